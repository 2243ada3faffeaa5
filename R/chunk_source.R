#' Data in chunks: files, databases, file-backed matrices
#'
#' A chunk source describes data that need not fit in memory: a list of small
#' descriptors (file paths, row ranges, key ranges) and a function `read()`
#' that turns one descriptor into the rows it stands for. [rlsc()] fits it in
#' two passes over the chunks, each chunk read where it is processed, and gets
#' the same numbers as the fit of all rows in memory (see
#' `vignette("chunked")`).
#'
#' `read(chunk)` returns either a data frame (for the formula interface,
#' `rlsc(y ~ ., data = src)`) or a list with a numeric matrix `x`, the response
#' `y` (a vector, a matrix or a factor) and optionally `weights`. Every chunk
#' must have the same columns. `read()` runs on the workers of the user's
#' [future::plan()]: the storage it reads must be reachable from every worker,
#' and what its environment holds is sent to them, so keep it small (the
#' constructors below do).
#'
#' * `chunk_matrix()` splits an in-memory matrix into row chunks (for tests,
#'   examples, and parallel work on large in-memory data; the data travel to
#'   the workers with `read()`).
#' * `chunk_files()` has one chunk per file, read by its extension: `.parquet`
#'   with `nanoparquet::read_parquet()`, `.rds` with [readRDS()], `.csv` and
#'   `.csv.gz` with `data.table::fread()` when data.table is installed, else
#'   [utils::read.csv()]. Other files need a `read` of your own.
#' * `chunk_bigmatrix()` reads row blocks of a file-backed
#'   `bigmemory::big.matrix`; the workers attach it from its descriptor, so
#'   only the descriptor travels.
#' * `chunk_db()` reads key ranges of a table or query of any DBI database;
#'   `connect()` opens a connection (each chunk opens its own, on its worker;
#'   open it read-only). A `connect()` defined at the top level takes the
#'   values it refers to there (a path, a host name) along to the workers.
#'   Key ranges are used rather than `dbFetch(n = )` because some drivers
#'   (duckdb among them) materialize the whole result before fetching from
#'   it.
#'
#' @param chunks a list or vector of chunk descriptors.
#' @param read a function of one descriptor returning the chunk's rows.
#' @param levels optional named list of the levels of factor and character
#'   columns (and of a factor response, for the matrix interface under the
#'   name `y`). By default they are collected in a first pass over the chunks
#'   when the first chunk has such columns.
#' @param x a numeric matrix (`chunk_matrix()`) or a `big.matrix`
#'   (`chunk_bigmatrix()`).
#' @param y the response: a vector, matrix or factor with one value or row per
#'   row of `x`; for `chunk_bigmatrix()` also a column number or name of `x`
#'   (then the other columns are the predictors) or a `big.matrix` with one
#'   column.
#' @param weights optional observation weights, one per row of `x`.
#' @param chunk_rows the number of rows per chunk.
#' @param foldid optional fold numbers 1 to K, one per row of `x`, for K-fold
#'   cross-validation over these folds (then fit with `cv = K`).
#' @param paths file paths, one chunk each.
#' @param connect a function of no arguments returning a DBI connection.
#' @param table_or_query a table name, or a SQL query whose rows are the data.
#' @param key the name of a numeric column that orders the rows; chunks are
#'   ranges of its values holding about `chunk_rows` rows each.
#' @return An object of class `rlsc_chunks`.
#' @seealso [rlsc()]; `vignette("chunked")` for the two passes, the backends
#'   of the futureverse, progress reporting and a Spark recipe.
#' @export
#' @examples
#' src <- chunk_matrix(as.matrix(mtcars[, -1]), mtcars$mpg, chunk_rows = 10)
#' src
#' fit <- rlsc(src)
#' all.equal(fit$cvm, rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)$cvm)
#'
#' # one data frame per file, fitted with a formula
#' dir <- tempfile()
#' dir.create(dir)
#' paths <- file.path(dir, paste0("part", 1:3, ".rds"))
#' parts <- split(iris, rep(1:3, length.out = nrow(iris)))
#' for (i in 1:3) saveRDS(parts[[i]], paths[i])
#' fit <- rlsc(Species ~ ., data = chunk_files(paths))
#' fit$cvm[fit$index_min]
chunk_source <- function(chunks, read, levels = NULL) {
  if (!(is.list(chunks) || is.atomic(chunks)) || !is.null(dim(chunks)) || !length(chunks)) {
    stop_arg("`chunks` must be a non-empty list or vector of chunk descriptors, not ",
             if (length(chunks)) describe(chunks) else "an empty one")
  }
  if (!is.function(read)) stop_arg("`read` must be a function of one chunk, not ", describe(read))
  if (!is.null(levels) && (!is.list(levels) || is.null(names(levels)) || any(names(levels) == "") ||
                           !all(vapply(levels, is.character, NA)))) {
    stop_arg("`levels` must be a named list of character vectors")
  }
  structure(list(chunks = as.list(chunks), read = read, levels = levels), class = "rlsc_chunks")
}

#' @export
print.rlsc_chunks <- function(x, ...) {
  desc <- vapply(utils::head(x$chunks, 3L), describe_chunk, "")
  cat("<rlsc chunk source> ", count_of(length(x$chunks), "chunk"), ": ",
      paste(desc, collapse = ", "), if (length(x$chunks) > 3L) ", ...", "\n", sep = "")
  invisible(x)
}

# A short label of a chunk descriptor for messages: "'file.csv'", "rows 1-100".
describe_chunk <- function(chunk) {
  if (inherits(chunk, "rlsc_rows")) return(sprintf("rows %.0f-%.0f", chunk[1L], chunk[2L]))
  if (inherits(chunk, "rlsc_keys")) return(sprintf("keys [%s, %s)", format(chunk[1L]), format(chunk[2L])))
  if (is.atomic(chunk) && length(chunk) == 1L) return(sQuote(format(chunk), FALSE))
  paste0("<", describe(chunk), ">")
}

# Row ranges of n rows, about chunk_rows each, as descriptors.
row_chunks <- function(n, chunk_rows) {
  chunk_rows <- check_count(chunk_rows, "chunk_rows")
  starts <- seq(1, n, by = chunk_rows)
  lapply(starts, function(s) structure(c(s, min(s + chunk_rows - 1, n)), class = "rlsc_rows"))
}

rows_of <- function(chunk) seq(chunk[1L], chunk[2L])

#' @rdname chunk_source
#' @export
chunk_matrix <- function(x, y, weights = NULL, chunk_rows = 10000, foldid = NULL) {
  x <- as_design(x)
  n <- nrow(x)
  if (NROW(y) != n) stop_arg("`y` must have ", n, " values or rows (the rows of `x`), not ", NROW(y))
  given <- list(weights = weights, foldid = foldid)
  for (arg in names(given)) {
    v <- given[[arg]]
    if (!is.null(v) && (!is.null(dim(v)) || length(v) != n)) {
      stop_arg("`", arg, "` must have length ", n, " (the number of rows of `x`), not ",
               if (is.null(dim(v))) length(v) else describe(v))
    }
  }
  read <- local_reader(function(chunk) {
    rows <- rows_of(chunk)
    list(x = x[rows, , drop = FALSE],
         y = if (is.null(dim(y))) y[rows] else y[rows, , drop = FALSE],
         weights = weights[rows], foldid = foldid[rows])
  }, x = x, y = y, weights = weights, foldid = foldid)
  chunk_source(row_chunks(n, chunk_rows), read)
}

#' @rdname chunk_source
#' @export
chunk_files <- function(paths, read = NULL) {
  if (!is.character(paths) || !length(paths) || anyNA(paths)) {
    stop_arg("`paths` must be a character vector of file paths, not ", describe(paths))
  }
  missing <- paths[!file.exists(paths)]
  if (length(missing)) stop_arg("`paths` has files that do not exist: ", paste(sQuote(missing, FALSE), collapse = ", "))
  if (is.null(read)) {
    kind <- file_kind(paths)
    if (anyNA(kind)) {
      stop_arg("`paths` has a file of unknown type, ", sQuote(paths[is.na(kind)][1L], FALSE),
               ": give `read` for files other than .parquet, .rds, .csv and .csv.gz")
    }
    if (any(kind == "parquet") && !requireNamespace("nanoparquet", quietly = TRUE)) {
      stop_arg("reading ", sQuote(paths[kind == "parquet"][1L], FALSE), " needs the nanoparquet package")
    }
    read <- local_reader(read_file)
  }
  chunk_source(paths, read)
}

# The kind of file chunk_files() reads by default, from its extension, or NA.
file_kind <- function(path) {
  path <- tolower(path)
  at <- regexpr("\\.(parquet|rds|csv|csv\\.gz)$", path)
  ifelse(at > 0, substring(path, at + 1L), NA_character_)
}

# The default reader of chunk_files(): a data frame, whatever the format.
read_file <- function(path) {
  switch(file_kind(path),
         parquet = as.data.frame(nanoparquet::read_parquet(path)),
         rds = readRDS(path),
         csv = read_csv(path),
         csv.gz = read_csv(path, gz = TRUE))
}

# fread() reads .gz files only with R.utils installed; the lines of a chunk
# are read through gzfile() instead, so .csv and .csv.gz chunks of one source
# are parsed alike, with or without R.utils.
read_csv <- function(path, gz = FALSE) {
  if (!requireNamespace("data.table", quietly = TRUE)) return(utils::read.csv(path))
  table <- if (gz) {
    con <- gzfile(path, "r")
    on.exit(close(con))
    data.table::fread(text = readLines(con), showProgress = FALSE)
  } else {
    data.table::fread(path, showProgress = FALSE)
  }
  as.data.frame(table)
}

#' @rdname chunk_source
#' @export
chunk_bigmatrix <- function(x, y, chunk_rows = 10000) {
  if (!requireNamespace("bigmemory", quietly = TRUE)) {
    stop_arg("chunk_bigmatrix() needs the bigmemory package")
  }
  if (!methods::is(x, "big.matrix")) stop_arg("`x` must be a big.matrix, not ", describe(x))
  n <- nrow(x)
  desc <- bigmemory::describe(x)
  ycol <- NULL
  ydesc <- NULL
  if (methods::is(y, "big.matrix")) {
    if (nrow(y) != n || ncol(y) != 1L) stop_arg("`y` must be a big.matrix with ", n, " rows and one column")
    ydesc <- bigmemory::describe(y)
    y <- NULL
  } else if ((is.numeric(y) || is.character(y)) && length(y) == 1L && n != 1L) {
    ycol <- if (is.character(y)) match(y, colnames(x)) else as.integer(y)
    if (is.na(ycol) || ycol < 1L || ycol > ncol(x)) {
      stop_arg("`y` must be a column of `x` (a number or name), a vector or a big.matrix, not ", format(y))
    }
    y <- NULL
  } else if (NROW(y) != n) {
    stop_arg("`y` must have ", n, " values (the rows of `x`), not ", NROW(y))
  }
  read <- local_reader(function(chunk) {
    m <- bigmemory::attach.big.matrix(desc)
    rows <- rows_of(chunk)
    block <- m[rows, , drop = FALSE]
    if (!is.null(ycol)) return(list(x = block[, -ycol, drop = FALSE], y = block[, ycol]))
    yy <- if (!is.null(ydesc)) bigmemory::attach.big.matrix(ydesc)[rows, 1L] else y[rows]
    list(x = block, y = yy)
  }, desc = desc, ydesc = ydesc, ycol = ycol, y = y)
  chunk_source(row_chunks(n, chunk_rows), read)
}

#' @rdname chunk_source
#' @export
chunk_db <- function(connect, table_or_query, chunk_rows = 10000, key) {
  if (!requireNamespace("DBI", quietly = TRUE)) stop_arg("chunk_db() needs the DBI package")
  if (!is.function(connect)) {
    stop_arg("`connect` must be a function returning a DBI connection, not ", describe(connect))
  }
  if (!is.character(table_or_query) || length(table_or_query) != 1L || is.na(table_or_query)) {
    stop_arg("`table_or_query` must be a table name or a SQL query, not ", describe(table_or_query))
  }
  if (!is.character(key) || length(key) != 1L || is.na(key)) {
    stop_arg("`key` must be the name of a numeric column, not ", describe(key))
  }
  chunk_rows <- check_count(chunk_rows, "chunk_rows")
  # a connect() written at the top level refers to values of the user's
  # workspace (the database's path, a host name), which workers do not have
  connect <- portable_reader(connect)
  con <- connect()
  on.exit(DBI::dbDisconnect(con))
  from <- sql_from(con, table_or_query)
  k <- DBI::dbQuoteIdentifier(con, key)
  range <- DBI::dbGetQuery(con, sprintf("SELECT MIN(%s) AS lo, MAX(%s) AS hi, COUNT(*) AS n FROM %s",
                                        k, k, from))
  if (!range$n) stop_arg("`table_or_query` has no rows")
  if (!is.numeric(range$lo)) stop_arg("`key` must be a numeric column; ", key, " is not")
  # equal-width key ranges holding about chunk_rows rows each on average
  m <- ceiling(range$n / chunk_rows)
  cuts <- seq(range$lo, range$hi, length.out = m + 1L)
  cuts[m + 1L] <- Inf
  chunks <- lapply(seq_len(m), function(i) structure(cuts[c(i, i + 1L)], class = "rlsc_keys"))
  read <- local_reader(function(chunk) {
    con <- connect()
    on.exit(DBI::dbDisconnect(con))
    k <- DBI::dbQuoteIdentifier(con, key)
    sql <- sprintf("SELECT * FROM %s WHERE %s >= %s%s ORDER BY %s", sql_from(con, table_or_query),
                   k, format(chunk[1L], digits = 17),
                   if (is.finite(chunk[2L])) sprintf(" AND %s < %s", k, format(chunk[2L], digits = 17)) else "",
                   k)
    # RPostgreSQL turns a failed query into a warning and a NULL result:
    # that is an error naming the query; other warnings pass on
    warned <- character()
    rows <- withCallingHandlers(DBI::dbGetQuery(con, sql), warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    if (!is.data.frame(rows)) {
      stop("the query failed: ", paste(c(warned, sql)[1L], collapse = ""), call. = FALSE)
    }
    for (w in warned) warning(w, call. = FALSE)
    rows
  }, connect = connect, table_or_query = table_or_query, key = key)
  chunk_source(chunks, read)
}

# A table name, quoted, or a query as a subquery.
sql_from <- function(con, table_or_query) {
  if (grepl("^\\s*(select|with)\\s", table_or_query, ignore.case = TRUE)) {
    paste0("(", table_or_query, ") AS rlsc_source")
  } else {
    DBI::dbQuoteIdentifier(con, table_or_query)
  }
}

# `fun` with an environment holding only the named values (and the package
# namespace above them), so that sending it to a worker sends nothing else.
local_reader <- function(fun, ...) {
  env <- list2env(list(...), parent = asNamespace("rlsc"))
  environment(fun) <- env
  fun
}
