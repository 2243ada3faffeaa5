# Fixtures of the engine tests (test-engines-*.R): real servers started by
# `make test-engines` (scripts/test-engines), which sets the variables these
# tests look for.  Without them the tests skip, so `make test` and CRAN never
# need a server.

# Skips unless `make test-engines` started the engine (it sets `var`).  Under
# `make test-engines` (RLSC_ENGINES_STRICT set) whatever would skip an engine
# test is an error instead: the run must not pass by skipping.
skip_engine <- function(message) {
  if (nzchar(Sys.getenv("RLSC_ENGINES_STRICT"))) stop(message, call. = FALSE)
  skip(message)
}

skip_unless_engine <- function(var, what) {
  if (!nzchar(Sys.getenv(var))) {
    skip_engine(paste0(what, " is not running: `make test-engines` starts it and sets ", var))
  }
}

skip_unless_engine_packages <- function(...) {
  for (pkg in c(...)) {
    if (!requireNamespace(pkg, quietly = TRUE)) skip_engine(paste0(pkg, " is not installed (make deps)"))
  }
  # the workers load rlsc from the library, not from this source tree
  if (!file.exists(file.path(getNamespaceInfo("rlsc", "path"), "Meta", "package.rds"))) {
    skip_engine("rlsc is loaded from source, so workers would load another build")
  }
}

skip_unless_slurm <- function() {
  skip_unless_engine("RLSC_SLURM", "the local Slurm cluster (scripts/slurm-local)")
  skip_unless_engine_packages("future.batchtools", "nanoparquet", "callr")
}

skip_unless_postgres <- function() {
  skip_unless_engine("RLSC_PG_SOCKET", "the throwaway PostgreSQL server (scripts/pg-local)")
  skip_unless_engine_packages("RPostgreSQL", "future.apply", "callr")
}

skip_unless_ssh <- function() {
  skip_unless_engine("RLSC_SSH_KEY", "the loopback SSH server (scripts/sshd-local)")
  skip_unless_engine_packages("future.apply", "parallelly")
}

# The plan of the SSH tests: workers on 127.0.0.2 and 127.0.0.3, reached
# through the port and key of scripts/sshd-local, loading rlsc from this
# session's libraries as from a cluster's shared one.
ssh_plan <- function() {
  future::plan(future::cluster, workers = c("127.0.0.2", "127.0.0.3"),
               rshopts = c("-p", Sys.getenv("RLSC_SSH_PORT"), "-i", Sys.getenv("RLSC_SSH_KEY"),
                           "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                           "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"),
               rscript_libs = .libPaths())
}

# A data frame like a user's: a key, a numeric response, a three-class
# response, a factor whose third level first appears in the last rows (the
# chunks before never see it), and numeric columns.
engine_data <- function(n = 6000, d = 5, seed = 23) {
  set.seed(seed)
  x <- matrix(rnorm(n * d), n, dimnames = list(NULL, paste0("x", seq_len(d))))
  site <- factor(sample(c("north", "south"), n, replace = TRUE), levels = c("north", "south", "west"))
  site[seq(n - n %/% 10 + 1, n)] <- "west"
  score <- drop(x %*% seq(1, -1, length.out = d)) + c(north = 0, south = 0.5, west = -1)[site]
  class <- cut(score + rnorm(n, sd = 0.5), c(-Inf, -0.7, 0.7, Inf), labels = c("low", "mid", "high"))
  data.frame(id = seq_len(n), y = score + rnorm(n), class, site, x)
}

# Writes the rows of `df` to `nfiles` files of one format (consecutive rows
# in each) and returns their paths.
write_parts <- function(df, dir, nfiles, ext = c("parquet", "rds", "csv", "csv.gz")) {
  ext <- match.arg(ext)
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  parts <- split(df, ceiling(seq_len(nrow(df)) * nfiles / nrow(df)))
  paths <- file.path(dir, sprintf("part%02d.%s", seq_len(nfiles), ext))
  for (i in seq_len(nfiles)) {
    switch(ext,
           parquet = nanoparquet::write_parquet(parts[[i]], paths[i]),
           rds = saveRDS(parts[[i]], paths[i]),
           csv = utils::write.csv(parts[[i]], paths[i], row.names = FALSE),
           csv.gz = {
             con <- gzfile(paths[i], "w")
             utils::write.csv(parts[[i]], con, row.names = FALSE)
             close(con)
           })
  }
  paths
}

# A chunked fit against the in-memory fit of the same rows: the lambda grid,
# lambda_min and lambda_1se, the criterion path and the coefficients, to
# 1e-9 relative (the issue's bar; they agree to about 1e-14).
expect_engine_fit <- function(chunked, ref, info = NULL) {
  expect_equal(chunked$lambda, ref$lambda, tolerance = 1e-9, info = info)
  expect_equal(chunked$cvm, ref$cvm, tolerance = 1e-9, info = info)
  expect_same_fit(chunked, ref, tol = 1e-9, info = info)
}

# Options for a parallel plan whose workers must not receive the data: the
# globals of each future are capped at 1 MB, below the data's size in the
# tests that check it (the code and small objects of a task come to about
# 140 KB under future 1.80), and future.batchtools keeps its registries in a
# folder of the test's own.
engine_options <- function(cache = new_tempdir()) {
  options(future.globals.maxSize = 1e6, future.cache.path = cache, future.wait.interval = 0.1)
}

# This session's plan for the local Slurm cluster: the template of
# vignette("chunked") (written to `dir`), two jobs at a time, the job files
# under dir/future.  Returns the function that restores the options and the
# sequential plan.
use_slurm <- function(dir, workers = 2) {
  old <- engine_options(file.path(dir, "future"))
  template <- file.path(dir, "slurm.tmpl")
  writeLines(vignette_chunk("slurm-template"), template)
  future::plan(future.batchtools::batchtools_slurm, template = template, workers = workers,
               resources = list(ncpus = 1, memory = "1G", walltime = 300))
  function() {
    options(old)
    future::plan("sequential")
  }
}

# The jobs of this cluster that have not ended (squeue prints no header).
slurm_jobs <- function() {
  system2("squeue", c("--noheader", "--format=%i:%j:%T"), stdout = TRUE)
}

# The text of a chunk of vignettes/chunked.Rmd, by its label, so that the
# tests run what the vignette shows, as it is written.
vignette_chunk <- function(label) {
  candidates <- c(test_path("..", "..", "vignettes", "chunked.Rmd"),
                  system.file("doc", "chunked.Rmd", package = "rlsc"))
  rmd <- candidates[nzchar(candidates) & file.exists(candidates)][1L]
  if (is.na(rmd)) skip("vignettes/chunked.Rmd is not reachable from the tests")
  lines <- readLines(rmd)
  start <- grep(paste0("^```\\{[a-z]+ ", label, "[,}]"), lines)
  if (length(start) != 1L) stop("vignette chunk ", label, " not found")
  end <- start + which(lines[-seq_len(start)] == "```")[1L]
  lines[seq(start + 1L, end - 1L)]
}

# Runs vignette code in a fresh R session's global environment, where a user
# runs it (so that nothing comes from the test's environment), after `setup`
# (a function run in that session first); returns the value of `result`, a
# function of the global environment.
run_as_user <- function(code, setup, result, env = character()) {
  callr::r(function(code, setup, result) {
    setup()
    eval(parse(text = code), globalenv())
    result(globalenv())
  }, list(code = code, setup = setup, result = result),
  env = c(callr::rcmd_safe_env(), env), show = FALSE)
}

# Polls `cond` every half second until it holds (TRUE) or `seconds` pass
# (FALSE): Slurm ends jobs and PostgreSQL closes sessions asynchronously.
wait_until <- function(cond, seconds) {
  cond <- substitute(cond)
  env <- parent.frame()
  deadline <- Sys.time() + seconds
  repeat {
    if (isTRUE(eval(cond, env))) return(TRUE)
    if (Sys.time() > deadline) return(FALSE)
    Sys.sleep(0.5)
  }
}
