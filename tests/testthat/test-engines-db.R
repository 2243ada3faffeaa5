# chunk_db() on workers, with the connect recipes of vignette("chunked") run
# as written there, in a fresh session's global environment: SQLite (no
# server) and a real PostgreSQL server (scripts/pg-local).

# The rows of the PostgreSQL tests: keys with gaps, SQL NULLs in a factor and
# a numeric column, a level of `site` that first appears in the last rows,
# a three-class target.  Text columns come back as character, so the
# in-memory reference has them as character too (levels in sorted order).
pg_rows <- function(n = 12000) {
  df <- engine_data(n, d = 4, seed = 51)
  df$id <- df$id * 3L + sample(0:2, n, replace = TRUE)
  df$site[c(10, n %/% 2)] <- NA
  df$x2[c(20, n - 100)] <- NA
  df$class <- as.character(df$class)
  df$site <- as.character(df$site)
  df
}

pg_connect <- function() {
  DBI::dbConnect(RPostgreSQL::PostgreSQL(), host = Sys.getenv("RLSC_PG_SOCKET"), dbname = "rlsc",
                 user = "postgres")
}

# Writes `df` as table `name` (replacing it) and returns the number of rows
# the server holds.
pg_write <- function(df, name = "rows") {
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, name, df, row.names = FALSE, overwrite = TRUE)
  DBI::dbGetQuery(con, sprintf("SELECT COUNT(*) AS n FROM %s", DBI::dbQuoteIdentifier(con, name)))$n
}

# The backends' sessions of database "rlsc" still open, other than the
# caller's own: chunk_db() closes each connection it opens.
pg_sessions <- function() {
  con <- pg_connect()
  on.exit(DBI::dbDisconnect(con))
  DBI::dbGetQuery(con, paste("SELECT COUNT(*) AS n FROM pg_stat_activity",
                             "WHERE datname = 'rlsc' AND pid <> pg_backend_pid()"))$n
}

# Runs the vignette's PostgreSQL recipe in a fresh session under the plan
# that `plan_setup` sets there; returns its fit.
run_pg_recipe <- function(plan_setup) {
  setup <- function() {
    library(rlsc)
    plan_setup()
  }
  run_as_user(vignette_chunk("pg-connect"), setup, function(env) env$fit,
              env = c(PGHOST = Sys.getenv("RLSC_PG_SOCKET")))
}

test_that("the vignette's SQLite recipe runs on multisession workers as written", {
  skip_on_cran()
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("future.apply")
  skip_if_not_installed("callr")
  skip_unless_installed_build()
  setup <- function() {
    library(rlsc)
    future::plan("multisession", workers = 2)
    # the data of the vignette's first chunks
    set.seed(1)
    x <- matrix(rnorm(2000 * 5), 2000)
    assign("x", x, envir = globalenv())
    assign("y", drop(x %*% c(1, -1, 0.5, 0, 0)) + rnorm(2000), envir = globalenv())
  }
  # `connect` refers to the global `db`, a path that workers do not have
  # unless it travels with connect()
  fit <- run_as_user(vignette_chunk("sqlite-connect"), setup, function(env) {
    list(fit = env$fit, ref = rlsc::rlsc(y ~ ., data = data.frame(y = env$y, env$x)))
  })
  expect_engine_fit(fit$fit, fit$ref)
})

test_that("chunk_db() reads a PostgreSQL table on multisession workers, as in memory", {
  skip_unless_postgres()
  df <- pg_rows()
  expect_equal(pg_write(df), nrow(df))
  fit <- run_pg_recipe(function() future::plan("multisession", workers = 2))
  ref <- rlsc(class ~ . - id - y, data = df)
  expect_engine_fit(fit, ref)
  # NULLs dropped row by row, the late level a column of the design
  expect_equal(fit$nobs, nrow(df) - 4)
  expect_true("sitewest" %in% rownames(coef(fit)))
  expect_true(wait_until(pg_sessions() == 0, 10))
})

test_that("chunk_db() reads a PostgreSQL table in Slurm jobs, as in memory", {
  skip_unless_postgres()
  skip_unless_slurm()
  df <- pg_rows(6000)
  expect_equal(pg_write(df), nrow(df))
  dir <- new_tempdir()
  template <- file.path(dir, "slurm.tmpl")
  writeLines(vignette_chunk("slurm-template"), template)
  cache <- file.path(dir, "future")
  fit <- run_pg_recipe(function() {
    options(future.cache.path = cache, future.wait.interval = 0.1)
    future::plan(future.batchtools::batchtools_slurm, template = template, workers = 2,
                  resources = list(ncpus = 1, memory = "1G", walltime = 300))
  })
  expect_engine_fit(fit, rlsc(class ~ . - id - y, data = df))
  expect_identical(slurm_jobs(), character())
  expect_true(wait_until(pg_sessions() == 0, 10))
})

test_that("a chunk whose query fails names its key range", {
  skip_unless_postgres()
  skip_unless_engine_packages("future.apply")
  df <- pg_rows(3000)
  pg_write(df, "rows_gone")
  src <- chunk_db(pg_connect, "rows_gone", chunk_rows = 1000, key = "id")
  # the table disappears between the chunking and the passes
  con <- pg_connect()
  DBI::dbRemoveTable(con, "rows_gone")
  DBI::dbDisconnect(con)
  old <- engine_options()
  on.exit(options(old), add = TRUE)
  on.exit(future::plan("sequential"), add = TRUE)
  future::plan("multisession", workers = 2)
  expect_error(rlsc(class ~ . - id - y, data = src),
               "chunk 1 \\(keys \\[[0-9]+, [0-9.]+\\)\\): reading it failed: the query failed: .*rows_gone")
})
