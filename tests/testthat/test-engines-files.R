# chunk_files() reads by extension: parquet (nanoparquet), rds, csv, csv.gz.
# No server needed, so these run in `make unit` and R CMD check too.

test_that("chunk_files() reads .parquet, .rds, .csv and .csv.gz by extension, as in memory", {
  skip_if_not_installed("nanoparquet")
  df <- engine_data(900, d = 3, seed = 31)
  df$site[c(5, 400)] <- NA   # missing values, dropped row by row as in memory
  dir <- new_tempdir()
  for (ext in c("parquet", "rds", "csv", "csv.gz")) {
    paths <- write_parts(df, file.path(dir, ext), 3, ext)
    src <- chunk_files(paths)
    # the reader gives each file's rows back, whatever the format (CSV keeps
    # 15 significant digits, and text, not factors)
    back <- lapply(paths, src$read)
    expect_equal(vapply(back, nrow, 1L), c(300L, 300L, 300L), info = ext)
    expect_equal(back[[3]]$x1, df$x1[601:900], tolerance = 1e-14, info = ext)
    expect_identical(as.character(back[[3]]$site), as.character(df$site[601:900]), info = ext)
    expect_identical(as.character(back[[1]]$class), as.character(df$class[1:300]), info = ext)
    # the in-memory fit of the same rows; the third level of site first
    # appears in the last file; a factor response with three classes
    whole <- do.call(rbind, back)
    expect_engine_fit(rlsc(y ~ . - id - class, data = src), rlsc(y ~ . - id - class, data = whole), info = ext)
    expect_engine_fit(rlsc(class ~ . - id - y, data = src), rlsc(class ~ . - id - y, data = whole), info = ext)
  }
  # one source of files of every kind
  mixed <- c(write_parts(df[1:300, ], file.path(dir, "a"), 1, "parquet"),
             write_parts(df[301:600, ], file.path(dir, "b"), 1, "csv.gz"),
             write_parts(df[601:900, ], file.path(dir, "c"), 1, "rds"))
  ref <- rlsc(class ~ . - id - y, data = df)
  expect_engine_fit(rlsc(class ~ . - id - y, data = chunk_files(mixed)), ref)
})

test_that("parquet written by another writer reads the same", {
  skip_if_not_installed("nanoparquet")
  # nanoparquet is the only parquet writer that installs here in seconds
  # (arrow and duckdb compile for half an hour); its other encodings stand
  # in for another writer: dictionary pages, gzip, row groups, no statistics
  df <- engine_data(600, d = 3, seed = 32)
  dir <- new_tempdir()
  paths <- file.path(dir, c("gzip.parquet", "groups.parquet"))
  nanoparquet::write_parquet(df[1:300, ], paths[1], compression = "gzip",
                             options = nanoparquet::parquet_options(write_minmax_values = FALSE))
  nanoparquet::write_parquet(df[301:600, ], paths[2], compression = "uncompressed",
                             row_groups = c(1L, 101L, 201L))
  expect_engine_fit(rlsc(y ~ . - id - class, data = chunk_files(paths)), rlsc(y ~ . - id - class, data = df))
})

test_that("chunk_files() names a file of unknown type, and a custom `read` still reads any", {
  dir <- new_tempdir()
  df <- engine_data(60, d = 2, seed = 33)
  paths <- write_parts(df, dir, 2, "rds")
  odd <- file.path(dir, c("part03.feather", "part04.csv.bz2"))
  file.create(odd)
  expect_error(chunk_files(c(paths, odd)),
               paste("^`paths` has a file of unknown type, '.*part03\\.feather': give `read` for files",
                     "other than \\.parquet, \\.rds, \\.csv and \\.csv\\.gz$"))
  expect_error(chunk_files(odd[2]), "unknown type, '.*part04\\.csv\\.bz2'")
  # upper-case extensions are the same kinds
  upper <- file.path(dir, "PART.RDS")
  file.copy(paths[1], upper)
  expect_equal(chunk_files(upper)$read(upper), readRDS(paths[1]))
  txt <- file.path(dir, c("a.txt", "b.txt"))
  for (i in 1:2) utils::write.table(df[df$id %% 2 == i - 1, ], txt[i], sep = "\t", row.names = FALSE)
  fit <- rlsc(y ~ x1 + x2, data = chunk_files(txt, read = function(p) utils::read.delim(p)))
  expect_engine_fit(fit, rlsc(y ~ x1 + x2, data = df[order(df$id %% 2 == 0), ]))
  # a parquet file that is not one: the error names the chunk and the file
  bad <- file.path(dir, "bad.parquet")
  writeLines("not parquet", bad)
  skip_if_not_installed("nanoparquet")
  expect_error(rlsc(y ~ x1, data = chunk_files(c(write_parts(df, dir, 1, "parquet"), bad))),
               "chunk 2 \\('.*bad\\.parquet'\\): reading it failed: ")
})
