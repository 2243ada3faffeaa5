test_that("the constructors check their arguments", {
  x <- matrix(rnorm(20), 10)
  expect_error(chunk_source(1:3, "read"), "`read` must be a function of one chunk, not character vector")
  expect_error(chunk_source(matrix(1:4, 2), identity), "`chunks` must be a non-empty list or vector")
  expect_error(chunk_source(1:2, identity, levels = list("a")), "`levels` must be a named list of character vectors")
  expect_error(chunk_matrix(x, 1:3), "`y` must have 10 values or rows \\(the rows of `x`\\), not 3")
  expect_error(chunk_matrix(x, 1:10, weights = 1:2), "`weights` must have length 10")
  expect_error(chunk_matrix(x, 1:10, chunk_rows = 0), "`chunk_rows` must be a whole number of at least 1, not 0")
  expect_error(chunk_files(1:2), "`paths` must be a character vector of file paths")
  expect_error(chunk_files("no/such/file.rds"), "`paths` has files that do not exist: 'no/such/file.rds'")
  f <- tempfile(fileext = ".txt")
  file.create(f)
  expect_error(chunk_files(f), "^`paths` has a file of unknown type, '.*\\.txt': give `read` for files other than ")
  skip_if_not_installed("bigmemory")
  expect_error(chunk_bigmatrix(x, 1), "`x` must be a big.matrix, not double matrix")
  bm <- bigmemory::as.big.matrix(x)
  expect_error(chunk_bigmatrix(bm, 5), "`y` must be a column of `x`")
  expect_error(chunk_bigmatrix(bm, 1:3), "`y` must have 10 values")
  expect_error(chunk_bigmatrix(bm, bigmemory::as.big.matrix(matrix(1, 10, 2))),
               "^`y` must be a big.matrix with 10 rows and one column$")
  expect_error(chunk_bigmatrix(bm, bigmemory::as.big.matrix(matrix(1, 9, 1))),
               "^`y` must be a big.matrix with 10 rows and one column$")
  skip_if_not_installed("RSQLite")
  expect_error(chunk_db("db", "t", key = "id"), "`connect` must be a function returning a DBI connection")
  db <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), db)
  DBI::dbWriteTable(con, "t", data.frame(id = letters[1:3], y = 1:3))
  DBI::dbDisconnect(con)
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), db)
  expect_error(chunk_db(connect, "t", key = "id"), "`key` must be a numeric column; id is not")
  expect_error(chunk_db(connect, 1, key = "y"),
               "^`table_or_query` must be a table name or a SQL query, not double vector$")
  expect_error(chunk_db(connect, c("t", "u"), key = "y"), "^`table_or_query` must be .*, not character vector$")
  expect_error(chunk_db(connect, "t", key = 2), "^`key` must be the name of a numeric column, not double vector$")
  expect_error(chunk_db(connect, "t", key = NA_character_), "`key` must be the name of a numeric column")
  expect_error(chunk_db(connect, "SELECT * FROM t WHERE y > 5", key = "y"), "`table_or_query` has no rows")
})

test_that("chunk_matrix() splits the rows, and sources print their chunks", {
  x <- matrix(1:20 + 0, 10)
  src <- chunk_matrix(x, 1:10, chunk_rows = 4)
  expect_length(src$chunks, 3)
  expect_identical(src$read(src$chunks[[3]])$x, x[9:10, ])
  expect_output(print(src), "<rlsc chunk source> 3 chunks: rows 1-4, rows 5-8, rows 9-10")
  expect_output(print(chunk_source(list("a.csv"), identity)), "1 chunk: 'a.csv'")
  # the reader's environment holds what it reads and nothing else
  expect_setequal(ls(environment(src$read)), c("x", "y", "weights", "foldid"))
})

test_that("a column read as numbers in one file and as text in another is named with its types (issue 47)", {
  dir <- withr::local_tempdir()
  set.seed(47)
  one <- data.frame(y = rnorm(20), x1 = rnorm(20), g = sample(c("u", "v", "w"), 20, TRUE))
  two <- data.frame(y = rnorm(20), x1 = rnorm(20), g = sample(1:2, 20, TRUE))
  paths <- file.path(dir, c("1.csv", "2.csv"))
  utils::write.csv(one, paths[1], row.names = FALSE)
  utils::write.csv(two, paths[2], row.names = FALSE)
  msg <- function(got, want, as) {
    paste0("^chunk 2 \\('.*", basename(paths[if (got == "numeric") 2 else 1]), "'\\): column `g` is ", got,
           " here but ", want, " in chunk 1: read it as one type in every chunk \\(.*colClasses = ",
           "c\\(g = \"", as, "\"\\)\\)$")
  }
  expect_no_warning(expect_error(rlsc(y ~ ., data = chunk_files(paths)), msg("numeric", "character", "character")),
                    message = "not a factor")
  expect_error(rlsc(y ~ x1 + g, data = chunk_files(rev(paths))), msg("character", "numeric", "numeric"))
  # read so, both files fit, as the data in memory do
  read <- function(p) utils::read.csv(p, colClasses = c(g = "character"))
  fit <- rlsc(y ~ ., data = chunk_files(paths, read), lambda = 1)
  both <- rbind(read(paths[1]), read(paths[2]))
  expect_equal(coef(fit), coef(rlsc(y ~ ., data = both, lambda = 1)), tolerance = 1e-10)
})
