# Chunked fits equal the in-memory fit of the same rows, whatever the chunking.

test_that("regression, multi-response and weights: every chunking gives the in-memory fit", {
  d <- make_data(60, 4, ntarget = 2, seed = 201)
  w <- runif(60, 0.2, 2)
  w[c(7, 19, 33)] <- 0
  for (icpt in c(TRUE, FALSE)) for (std in c(FALSE, TRUE)) {
    for (y in list(d$y[, 1], d$y)) {
      ref <- rlsc_short(d$x, y, weights = w, intercept = icpt, standardize = std)
      for (k in names(chunkings(60, w))) {
        fit <- rlsc_short(rows_source(d$x, y, w, chunkings(60, w)[[k]]), intercept = icpt,
                          standardize = std)
        expect_same_fit(fit, ref, info = paste(k, icpt, std, NCOL(y)))
      }
    }
  }
})

test_that("binary and multiclass classification: every chunking gives the in-memory fit", {
  set.seed(202)
  x <- as.matrix(iris[, 1:4])
  w <- runif(150, 0.5, 1.5)
  for (y in list(iris$Species, droplevels(iris$Species[51:150]))) {
    xs <- x[seq_along(y) + if (nlevels(y) == 2) 50 else 0, ]
    ws <- w[seq_along(y)]
    ref <- rlsc_short(xs, y, weights = ws)
    for (k in names(chunkings(length(y)))) {
      fit <- rlsc_short(rows_source(xs, y, ws, chunkings(length(y))[[k]]))
      expect_same_fit(fit, ref, info = paste(k, nlevels(y)))
    }
  }
})

test_that("the methods of a chunked fit stream the source and equal the in-memory ones", {
  d <- make_data(50, 3, seed = 203)
  w <- c(0, runif(49))
  src <- rows_source(d$x, d$y, w, chunkings(50)$uneven)
  fit <- rlsc_short(src)
  ref <- rlsc_short(d$x, d$y, weights = w)
  l <- fit$lambda[30]
  expect_equal(unname(loo_predict(fit, l)), unname(loo_predict(ref, l)), tolerance = 1e-10)
  expect_equal(unname(fitted(fit)), unname(fitted(ref)), tolerance = 1e-10)
  expect_equal(unname(residuals(fit, 2.5)), unname(residuals(ref, 2.5)), tolerance = 1e-10)
  expect_equal(unname(hatvalues(fit, l)), unname(hatvalues(ref, l)), tolerance = 1e-10)
  expect_equal(unname(predict(fit, src)), unname(predict(ref, d$x)), tolerance = 1e-10)
  expect_equal(unname(predict(fit, d$x[1:3, ])), unname(predict(ref, d$x[1:3, ])), tolerance = 1e-10)
  expect_identical(nobs(fit), nobs(ref))
  expect_output(print(fit), "n = 50 \\(49 with positive weight\\), d = 3, primal form from chunks")
  expect_s3_class(summary(fit), "summary.rlsc")
  cls <- rlsc_short(rows_source(as.matrix(iris[, 1:4]), iris$Species, chunks = chunkings(150)$two))
  expect_equal(summary(cls)$confusion, summary(rlsc_short(iris[, 1:4], iris$Species))$confusion)
})

test_that("formula fits from data frame chunks: factor levels pre-scanned, or given", {
  df <- transform(mtcars, cyl = factor(cyl), gear = as.character(gear), id = seq_len(32))
  df$am <- factor(df$am, labels = c("auto", "manual"))
  parts <- split(df, rep(1:4, each = 8))   # the first part has no 8-cylinder car...
  parts[[1]]$cyl <- droplevels(parts[[1]]$cyl)
  src <- chunk_source(parts, identity)
  ref <- rlsc_short(mpg ~ wt + cyl + gear, data = df)
  fit <- rlsc_short(mpg ~ wt + cyl + gear, data = src)
  expect_same_fit(fit, ref)
  expect_equal(predict(fit, df[1:5, ]), predict(ref, df[1:5, ]), tolerance = 1e-10)
  expect_equal(unname(predict(fit, src)), unname(predict(ref, df)), tolerance = 1e-10)
  cls_ref <- rlsc_short(am ~ wt + hp + cyl, data = df)
  cls <- rlsc_short(am ~ wt + hp + cyl, data = src)
  expect_same_fit(cls, cls_ref)
  expect_identical(levels(predict(cls, df, type = "class")), c("auto", "manual"))
  # given levels skip the pre-scan: every read() is then a pass
  reads <- 0
  counted <- chunk_source(parts, function(p) { reads <<- reads + 1; p },
                          levels = list(cyl = c("4", "6", "8"), gear = c("3", "4", "5")))
  fit2 <- rlsc_short(mpg ~ wt + cyl + gear, data = counted)
  expect_same_fit(fit2, ref)
  expect_identical(reads, 1 + 4 + 4)   # the first chunk, pass 1, pass 2
  # weights by name, as for lm()
  df$w <- seq(0.5, 2, length.out = 32)
  expect_same_fit(suppressWarnings(rlsc(mpg ~ wt + hp, weights = w,
                                        data = chunk_source(split(df, rep(1:3, length.out = 32)), identity))),
                  suppressWarnings(rlsc(mpg ~ wt + hp, data = df, weights = w)))
  # rows with NA are dropped per chunk, as na.omit drops them in memory
  dfn <- df
  dfn$hp[c(3, 20)] <- NA
  expect_same_fit(rlsc_short(mpg ~ wt + hp, data = chunk_source(split(dfn, rep(1:2, 16)), identity)),
                  rlsc_short(mpg ~ wt + hp, data = dfn))
})

test_that("chunk sources of files, a database and a file-backed matrix give the in-memory fit", {
  d <- make_data(90, 3, seed = 204)
  ref <- rlsc_short(d$x, d$y)
  dir <- new_tempdir()
  idx <- split(seq_len(90), rep(1:4, length.out = 90))
  rds <- file.path(dir, paste0("part", 1:4, ".rds"))
  for (i in 1:4) saveRDS(list(x = d$x[idx[[i]], ], y = d$y[idx[[i]]]), rds[i])
  expect_same_fit(rlsc_short(chunk_files(rds)), ref)
  df <- data.frame(y = d$y, d$x)
  csv <- file.path(dir, paste0("part", 1:3, ".csv"))
  for (i in 1:3) utils::write.csv(df[idx[[i]], ], csv[i], row.names = FALSE)
  utils::write.csv(df[idx[[4]], ], file.path(dir, "part4.csv"), row.names = FALSE)
  expect_same_fit(rlsc_short(y ~ ., data = chunk_files(c(csv, file.path(dir, "part4.csv")))),
                  rlsc_short(y ~ ., data = df[unlist(idx), ]), tol = 1e-9)

  skip_if_not_installed("RSQLite")
  db <- file.path(dir, "data.sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), db)
  DBI::dbWriteTable(con, "rows", cbind(id = 90:1, df))
  DBI::dbDisconnect(con)
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), db, flags = RSQLite::SQLITE_RO)
  src <- chunk_db(connect, "rows", chunk_rows = 20, key = "id")
  expect_length(src$chunks, 5)
  expect_same_fit(rlsc_short(y ~ . - id, data = src), rlsc_short(y ~ ., data = df), tol = 1e-9)
  sub <- chunk_db(connect, "SELECT * FROM rows WHERE X1 > 1.5", chunk_rows = 7, key = "id")
  expect_same_fit(rlsc_short(y ~ X2 + X3, data = sub), rlsc_short(y ~ X2 + X3, data = df[df$X1 > 1.5, ]),
                  tol = 1e-9)

  skip_if_not_installed("bigmemory")
  bm <- bigmemory::filebacked.big.matrix(90, 4, backingfile = "bm.bin", descriptorfile = "bm.desc",
                                         backingpath = dir)
  bm[, ] <- cbind(d$x, d$y)
  expect_same_fit(rlsc_short(chunk_bigmatrix(bm, y = 4, chunk_rows = 25)), ref)
  yb <- bigmemory::filebacked.big.matrix(90, 1, backingfile = "y.bin", descriptorfile = "y.desc",
                                         backingpath = dir)
  yb[, 1] <- d$y
  xb <- bigmemory::filebacked.big.matrix(90, 3, backingfile = "x.bin", descriptorfile = "x.desc",
                                         backingpath = dir)
  xb[, ] <- d$x
  expect_same_fit(rlsc_short(chunk_bigmatrix(xb, yb, chunk_rows = 40)), ref)
})

test_that("parallel backends give the same fit, and workers get descriptors, not data", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_unless_installed_build()
  d <- make_data(120, 4, ntarget = 1, seed = 205)
  w <- runif(120)
  ref <- rlsc_short(d$x, d$y, weights = w)
  dir <- new_tempdir()
  idx <- split(seq_len(120), rep(1:6, length.out = 120))
  paths <- file.path(dir, paste0("p", 1:6, ".rds"))
  for (i in 1:6) saveRDS(list(x = d$x[idx[[i]], ], y = d$y[idx[[i]]], weights = w[idx[[i]]]), paths[i])
  src <- chunk_files(paths)
  on.exit(future::plan("sequential"), add = TRUE)
  for (backend in c("multisession", "cluster")) {
    if (backend == "multisession") future::plan("multisession", workers = 2) else {
      future::plan("cluster", workers = c("localhost", "localhost"))
    }
    fit <- rlsc_short(src)
    expect_same_fit(fit, ref, info = backend)
    # in the order of the chunks' rows
    expect_equal(unname(loo_predict(fit)), unname(loo_predict(ref)[unlist(idx)]), tolerance = 1e-10)
  }
  # a read() written at the top level, referring to globals: they travel,
  # and the workers read the rows themselves.  (A cap on the size of what
  # travels, future.globals.maxSize, cannot tell: future 1.80 counts a task
  # as about 130 KiB where future 1.31 counted 11 KiB, and covr's
  # instrumented functions, which carry their source, as 1 MiB.)
  future::plan("multisession", workers = 2)
  env <- new.env(parent = globalenv())
  assign("the_paths", paths, envir = env)
  # each read leaves a file of its own, named by process and chunk: two
  # workers appending to one log can interleave their lines
  log_dir <- file.path(dir, "reads")
  dir.create(log_dir)
  assign("the_log_dir", log_dir, envir = env)
  read <- eval(quote(function(i) {
    file.create(tempfile(paste0(Sys.getpid(), "_", i, "_"), tmpdir = the_log_dir))
    readRDS(the_paths[i])
  }), env)
  expect_same_fit(rlsc_short(chunk_source(1:6, read)), ref)
  fields <- strsplit(list.files(log_dir), "_", fixed = TRUE)
  reads <- data.frame(pid = as.integer(vapply(fields, `[`, "", 1L)),
                      chunk = as.integer(vapply(fields, `[`, "", 2L)))
  master <- reads$pid == Sys.getpid()
  expect_true(all(reads$chunk[master] == 1L))   # the first chunk, for the template
  expect_identical(sort(unique(reads$chunk[!master])), 1:6)
  expect_identical(sum(!master), 12L)   # each chunk once a pass, on a worker
})

test_that("progress is reported through progressr, one step per chunk and pass", {
  skip_if_not_installed("progressr")
  d <- make_data(40, 2, seed = 206)
  old <- options(progressr.enable = TRUE)   # progressr is silent when not interactive
  on.exit(options(old))
  steps <- 0
  withCallingHandlers(
    rlsc_short(rows_source(d$x, d$y, chunks = chunkings(40)$uneven)),
    progression = function(p) if (identical(p$type, "update")) steps <<- steps + 1)
  expect_identical(steps, 14)   # 7 chunks, 2 passes
})

test_that("a chunked fit runs in less memory than the data", {
  skip_on_cran()
  skip_unless_installed_build()   # the child loads the installed package
  skip_on_covr()   # covr's counters in the child process take more than the cap leaves
  # AddressSanitizer (make sanitize) reserves terabytes of address space for
  # its shadow memory: no child runs under an address-space cap
  skip_if(grepl("libasan", Sys.getenv("LD_PRELOAD")),
          "ASan (make sanitize) cannot map its shadow memory under ulimit -v")
  # so does a threaded OpenBLAS, for its buffers: the child does not start
  skip_if(any(grepl("openblas", c(extSoftVersion()[["BLAS"]], La_library(), Sys.getenv("LD_PRELOAD")),
                    ignore.case = TRUE)),
          "OpenBLAS reserves more address space than the cap leaves")
  skip_on_os(c("windows", "mac"))
  dir <- new_tempdir()
  # 160 MB of rows in 20 files; a child R process whose address space is
  # capped at 260 MB (about 110 MB of which R itself takes) fits them in
  # chunks, and fails to hold them all
  set.seed(207)
  for (i in 1:20) {
    x <- matrix(rnorm(10000 * 100), 10000)
    saveRDS(list(x = x, y = x[, 1] + rnorm(10000)), file.path(dir, sprintf("part%02d.rds", i)),
            compress = FALSE)
  }
  script <- file.path(dir, "fit.R")
  writeLines(c(
    "args <- commandArgs(TRUE)",
    "library(rlsc)",
    "paths <- list.files(args[1], '^part.*rds$', full.names = TRUE)",
    "if (args[2] == 'chunked') {",
    "  cat('lambda_min', rlsc(chunk_files(paths))$lambda_min, '\\n')",
    "} else {",
    "  parts <- lapply(paths, readRDS)",
    "  x <- do.call(rbind, lapply(parts, `[[`, 'x'))",
    "  cat('lambda_min', rlsc(x, unlist(lapply(parts, `[[`, 'y')))$lambda_min, '\\n')",
    "}"), script)
  run <- function(how) {
    cmd <- sprintf("ulimit -v 260000; '%s' --vanilla '%s' '%s' %s 2>&1", file.path(R.home("bin"), "Rscript"),
                   script, dir, how)
    suppressWarnings(system2("sh", c("-c", shQuote(cmd)), stdout = TRUE,
                             env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":"))))
  }
  expect_match(paste(run("chunked"), collapse = "\n"), "lambda_min [0-9.e+-]+")
  expect_match(paste(run("memory"), collapse = "\n"), "cannot allocate")
})

test_that("a logical response is two classes, FALSE and TRUE, in memory and in chunks", {
  df <- transform(mtcars, manual = am == 1)
  ref <- rlsc(manual ~ wt + hp + qsec, data = df)
  expect_identical(ref$classes, c("FALSE", "TRUE"))
  as_factor <- rlsc(factor(manual, levels = c(FALSE, TRUE)) ~ wt + hp + qsec, data = df)
  expect_equal(ref$path, as_factor$path, tolerance = 1e-14)
  # y = +1 for TRUE, -1 for FALSE: the fit of the coded response
  coded <- rlsc(ifelse(manual, 1, -1) ~ wt + hp + qsec, data = df, lambda = ref$lambda)
  expect_equal(coef(ref), coef(coded, ref$lambda_min), tolerance = 1e-12)
  parts <- split(df, rep(1:4, each = 8))
  chunked <- rlsc(manual ~ wt + hp + qsec, data = chunk_source(parts, identity))
  expect_same_fit(chunked, ref)
  expect_identical(predict(chunked, df[1:5, ], type = "class"), predict(ref, df[1:5, ], type = "class"))
  x <- as.matrix(df[c("wt", "hp", "qsec")])
  xy <- rlsc(x, df$manual)
  expect_equal(xy$path, ref$path, tolerance = 1e-12)
  expect_same_fit(rlsc(rows_source(x, df$manual, chunks = split(1:32, rep(1:4, 8)))), xy)
})

test_that("a chunked fit reports its progress on one progressor, a step per chunk and pass", {
  skip_if_not_installed("progressr")
  old <- options(progressr.enable = TRUE)
  on.exit(options(old))
  record <- function(expr) {
    seen <- list()
    withCallingHandlers(expr, progression = function(p) {
      seen[[length(seen) + 1L]] <<- list(type = p$type, steps = p$steps, id = p$progressor_uuid)
    })
    types <- vapply(seen, `[[`, "", "type")
    list(ids = unique(vapply(seen, `[[`, "", "id")), types = types,
         steps = seen[[1L]]$steps, updates = sum(types == "update"))
  }
  d <- make_data(40, 3, seed = 221)
  src <- chunk_matrix(d$x, d$y, chunk_rows = 10)   # 4 chunks
  loo <- record(rlsc(src))
  expect_length(loo$ids, 1L)
  expect_identical(loo$types[c(1L, length(loo$types))], c("initiate", "finish"))
  expect_identical(c(loo$steps, loo$updates), c(8, 8))   # moments, then the path
  kf <- record(rlsc(src, cv = 2))
  expect_identical(c(length(kf$ids), kf$steps, kf$updates), c(1, 8, 8))
  # a formula whose factor levels are scanned first: three passes
  df <- data.frame(y = d$y, g = rep(c("a", "b"), 20), x = d$x[, 1])
  fsrc <- chunk_source(1:4, function(i) df[(i - 1) * 10 + 1:10, ])
  fo <- record(rlsc_short(y ~ g + x, data = fsrc))
  expect_identical(c(length(fo$ids), fo$steps, fo$updates), c(1, 12, 12))
})

test_that("every option of the in-memory fit gives the same numbers from chunks", {
  set.seed(511)
  n <- 60
  x <- matrix(rnorm(n * 4), n, dimnames = list(NULL, c("a", "b", "c", "d")))
  w <- runif(n, 0.3, 2)
  cls <- factor(sample(c("p", "q", "r"), n, TRUE))
  bin <- factor(ifelse(x[, 1] + rnorm(n) > 0, "yes", "no"))
  yy <- cbind(u = x[, 1] + rnorm(n), v = x[, 2] - x[, 3] + rnorm(n))
  chunks <- chunkings(n)$uneven
  lam <- c(10, 1, 0.1)
  cases <- list(
    list(y = cls, args = list(class_weights = "balanced")),
    list(y = cls, args = list(class_weights = c(r = 2, p = 0.5))),
    list(y = cls, args = list(per_response = TRUE)),
    list(y = yy, args = list(per_response = TRUE)),
    list(y = yy[, 1], args = list(criterion = "mae")),
    list(y = bin, args = list(criterion = "auc")),
    list(y = bin, args = list(criterion = function(y, pred, weights) mean(weights * (pred > 0) != (y == "yes")))),
    list(y = yy[, 1], args = list(penalty_factor = c(d = 0, b = 2))),
    list(y = cls, args = list(standardize = TRUE, intercept = FALSE)),
    list(y = yy, args = list(cv = "gcv")))
  for (k in seq_along(cases)) {
    cs <- cases[[k]]
    mem <- do.call(rlsc_short, c(list(x, cs$y, weights = w, lambda = lam), cs$args))
    chk <- do.call(rlsc_short, c(list(rows_source(x, cs$y, w, chunks), lambda = lam), cs$args))
    crit <- mem$criterion
    expect_equal(chk$path[[crit]], mem$path[[crit]], tolerance = 1e-10, info = k)
    expect_equal(chk$lambda_min, mem$lambda_min, info = k)
    expect_equal(coef(chk), coef(mem), tolerance = 1e-10, info = k)
    expect_equal(predict(chk, x[1:3, ]), predict(mem, x[1:3, ]), tolerance = 1e-10, info = k)
  }
  # probabilities: the same folds (cv = K) give the same maps
  folds <- rep(1:4, length.out = n)
  src <- chunk_source(chunks, function(idx) list(x = x[idx, ], y = cls[idx], weights = w[idx],
                                                  foldid = folds[idx]))
  mem <- rlsc_short(x, cls, weights = w, foldid = folds, lambda = lam, per_response = TRUE)
  chk <- rlsc_short(src, cv = 4, lambda = lam, per_response = TRUE)
  expect_equal(predict(chk, x[1:3, ], type = "prob"), predict(mem, x[1:3, ], type = "prob"),
               tolerance = 1e-8)
})

test_that("a class without rows is dropped from chunks as in memory; all-NA CSV columns", {
  df <- iris
  df$Species <- factor(as.character(df$Species), levels = c("setosa", "unseen", "versicolor", "virginica"))
  src <- chunk_source(split(df, rep(1:3, 50)), identity)
  expect_warning(fc <- rlsc_short(Species ~ ., data = src, lambda = c(1, 0.1)),
                 "dropping empty level\\(s\\) of the response `Species`: 'unseen'")
  expect_warning(fm <- rlsc_short(Species ~ ., data = df, lambda = c(1, 0.1)),
                 "dropping empty level\\(s\\) of the response `Species`: 'unseen'")
  expect_identical(fc$classes, fm$classes)
  expect_equal(coef(fc), coef(fm), tolerance = 1e-10)
  expect_warning(fx <- rlsc_short(chunk_matrix(as.matrix(iris[, 1:4]), df$Species, chunk_rows = 40),
                                  lambda = c(1, 0.1)), "dropping empty level\\(s\\) of `y`: 'unseen'")
  expect_identical(fx$classes, c("setosa", "versicolor", "virginica"))
  # levels given for a class absent from the data: dropped too
  src2 <- chunk_source(split(iris, rep(1:3, 50)), identity,
                       levels = list(Species = c("setosa", "versicolor", "virginica", "other")))
  expect_warning(f2 <- rlsc_short(Species ~ ., data = src2, lambda = c(1, 0.1)), "'other'")
  expect_equal(coef(f2), coef(fm), tolerance = 1e-10)
  # a numeric column that is all NA in one CSV chunk (read as logical)
  dir <- new_tempdir()
  d <- mtcars
  d$extra <- seq(0.5, 16, by = 0.5)
  parts <- split(d, rep(1:2, 16))
  for (first in c(FALSE, TRUE)) {
    p <- parts
    p[[if (first) 1 else 2]]$extra <- NA
    paths <- file.path(dir, paste0(first, c("a.csv", "b.csv")))
    for (i in 1:2) utils::write.csv(p[[i]], paths[i], row.names = FALSE)
    fc <- rlsc_short(mpg ~ wt + extra, data = chunk_files(paths), lambda = c(10, 1))
    fm <- rlsc_short(mpg ~ wt + extra, data = rbind(p[[1]], p[[2]]), lambda = c(10, 1))
    expect_identical(fc$xnames, c("wt", "extra"))
    expect_equal(coef(fc), coef(fm), tolerance = 1e-10, info = first)
  }
})

test_that("workers get nothing of the caller's workspace, whatever its names (issue 27)", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_unless_installed_build()
  set.seed(208)
  n <- 3000
  df <- data.frame(y = rnorm(n), x1 = rnorm(n), g = factor(sample(letters[1:5], n, TRUE)))
  dir <- new_tempdir()
  paths <- file.path(dir, paste0("p", 1:4, ".rds"))
  parts <- split(df, rep(1:4, each = n / 4))
  # each file written after droplevels() without one level: the levels pre-scan runs
  for (i in 1:4) saveRDS(droplevels(parts[[i]][parts[[i]]$g != letters[i], ]), paths[i])
  kept <- unsplit(lapply(1:4, function(i) parts[[i]]$g != letters[i]), rep(1:4, each = n / 4))
  ref <- rlsc_short(y ~ x1 + g, data = df[kept, ])
  # objects named like the formula's variables, each larger than the limit
  env <- new.env(parent = globalenv())
  env$y <- rnorm(1e5)
  env$x1 <- rnorm(1e5)
  env$g <- sample(letters, 1e5, TRUE)
  env$paths <- paths
  # (under covr the package's own functions carry their instrumented source,
  # about 1 MiB a task: the cap then only keeps the fit from failing)
  old <- options(future.globals.maxSize = if (identical(Sys.getenv("R_COVR"), "true")) 1e8 else 1e5)
  on.exit(options(old), add = TRUE)
  on.exit(future::plan("sequential"), add = TRUE)
  future::plan("multisession", workers = 2)
  warned <- character()
  fit <- withCallingHandlers(
    evalq(rlsc(y ~ x1 + g, data = chunk_files(paths)), env),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_false(any(grepl("coercion", warned)))
  expect_same_fit(fit, ref, tol = 1e-9)
  expect_equal(unname(predict(fit, df[1:5, ])), unname(predict(ref, df[1:5, ])), tolerance = 1e-9)
  expect_equal(unname(predict(fit, chunk_files(paths[1:2]))),
               unname(predict(ref, do.call(rbind, lapply(paths[1:2], readRDS)))), tolerance = 1e-9)
})

test_that("a classification fit sends the workers no frame of the calibration (issue 46)", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_unless_installed_build()
  skip_on_covr()   # covr's instrumented functions alone exceed the cap
  set.seed(209)
  n <- 4000
  dir <- new_tempdir()
  paths <- file.path(dir, paste0("p", 1:3, ".rds"))
  parts <- lapply(1:3, function(i) {
    x <- matrix(rnorm(n * 12), n)
    data.frame(x, y = factor(sample(c("a", "b", "c"), n, TRUE)), w = runif(n))
  })
  for (i in 1:3) saveRDS(parts[[i]], paths[i])
  df <- do.call(rbind, parts)
  ref <- quiet_boundary(rlsc(y ~ . - w, data = df, weights = w))
  # the calibration's pass over the held-out rows sent its callers' frames
  # to every worker (7.4 MiB a task here, where a task is about 25 KiB).
  # (The cap is read when the plan is set.)
  old <- options(future.globals.maxSize = 2e5)
  on.exit(options(old), add = TRUE)
  on.exit(future::plan("sequential"), add = TRUE)
  future::plan("multisession", workers = 2)
  fit <- quiet_boundary(rlsc(y ~ . - w, data = chunk_files(paths), weights = w))
  expect_same_fit(fit, ref, tol = 1e-9)
  expect_equal(unname(predict(fit, df[1:5, ], type = "class")), unname(predict(ref, df[1:5, ], type = "class")))
})

test_that("a formula's terms with parameters from the data take them from every chunk, or are refused (issue 46)", {
  set.seed(210)
  n <- 60
  df <- data.frame(a = rnorm(n, 2), b = rnorm(n), c = runif(n, 10, 12))
  df$y <- sin(df$a) + df$b + df$c / 4 + rnorm(n, sd = 0.1)
  df$a[7] <- NA   # scale() leaves it out; the row is omitted from the fit
  dir <- new_tempdir()
  idx <- list(1:25, 26:40, 41:60)
  paths <- file.path(dir, paste0("p", 1:3, ".rds"))
  for (i in 1:3) saveRDS(df[idx[[i]], ], paths[i])
  sources <- list(files = chunk_files(paths),
                  frames = chunk_source(rev(idx), function(i) df[i, , drop = FALSE]))
  new <- data.frame(a = c(0, 2, 5), b = c(-1, 0, 2), c = c(10, 11, 13))
  formulas <- list(y ~ poly(b, 3) + c, y ~ poly(c, degree = 4) + stats::poly(b, 2),
                   y ~ scale(a) + b, y ~ scale(a, scale = FALSE) + scale(c, center = FALSE),
                   y ~ scale(a, center = 1) + scale(cbind(b, c)), scale(y) ~ a + b,
                   y ~ splines::ns(a, knots = c(1, 2), Boundary.knots = c(-2, 6)) + poly(b, 2, raw = TRUE))
  for (f in formulas) {
    ref <- rlsc_short(f, data = df, lambda = c(10, 1, 0))
    # the in-memory fit is least squares at lambda = 0 (stats::lm())
    expect_equal(unname(coef(ref, lambda = 0)), unname(coef(lm(f, data = df))), tolerance = 1e-8,
                 info = deparse1(f))
    for (s in names(sources)) {
      info <- paste(deparse1(f), s)
      fit <- rlsc_short(f, data = sources[[s]], lambda = c(10, 1, 0))
      expect_same_fit(fit, ref, info = info)
      expect_equal(predict(fit, new, lambda = 1), predict(ref, new, lambda = 1), tolerance = 1e-10,
                   info = info)
    }
  }
  # (on main, poly(b, 3) predicted 0.3 off the in-memory fit: chunk 1's coefficients)
  # base::scale() is scale() (which model.frame() does not fix for new data
  # in memory: its predictions scale new rows by their own moments)
  fit <- rlsc_short(y ~ base::scale(a) + b, data = sources$files, lambda = 1)
  expect_same_fit(fit, rlsc_short(y ~ base::scale(a) + b, data = df, lambda = 1))
  expect_equal(predict(fit, new), predict(rlsc_short(y ~ scale(a) + b, data = df, lambda = 1), new),
               tolerance = 1e-10)
  # terms whose parameters are no moments: an error naming the term and the remedy
  expect_error(rlsc(y ~ splines::ns(a, 3) + b, data = sources$files),
               "term `splines::ns\\(a, 3\\)` of `formula` takes its `knots` and `Boundary.knots` from the rows.*fix them in the call")
  expect_error(rlsc(y ~ splines::bs(b, df = 5), data = sources$files),
               "term `splines::bs\\(b, df = 5\\)`.*`knots` and `Boundary.knots`")
  expect_error(rlsc(y ~ poly(b, c, degree = 2), data = sources$files),
               "term `poly\\(b, c, degree = 2\\)` of `formula` takes its `coefs`.*or use `raw = TRUE`")
  # terms whose value on a row depends on the other rows with no parameters
  # to fix (model.frame() keeps no predvars for them): an error too
  for (term in c("I(a - mean(a, na.rm = TRUE))", "cut(b, 3)", "rank(b)")) {
    expect_error(rlsc(stats::as.formula(paste("y ~ c +", term)), data = sources$files),
                 paste0("term `", gsub("([().^])", "\\\\\\1", term),
                        "` of `formula` gives a row a value that depends on the other rows"), info = term)
  }
  # fixed in the call, they fit as in memory
  f <- y ~ splines::bs(b, knots = c(-0.5, 0.5), Boundary.knots = c(-4, 4)) + poly(b, c, degree = 2, raw = TRUE)
  expect_same_fit(rlsc_short(f, data = sources$files, lambda = 1), rlsc_short(f, data = df, lambda = 1))
})

test_that("na.exclude pads a chunked fit's outputs, and unused levels stay in its classes, as in memory (issue 46)", {
  set.seed(211)
  n <- 60
  df <- data.frame(a = rnorm(n), b = rnorm(n))
  df$y <- df$a + df$b + rnorm(n)
  df$g <- factor(ifelse(df$a + rnorm(n) > 0, "u", "v"), levels = c("u", "v", "w"))
  df$o <- factor(df$g, levels = c("w", "v", "u"), ordered = TRUE)
  df$a[c(5, 33)] <- NA
  df$b[50] <- NA
  dir <- new_tempdir()
  paths <- file.path(dir, paste0("p", 1:3, ".rds"))
  idx <- list(1:20, 21:45, 46:60)
  for (i in 1:3) saveRDS(df[idx[[i]], ], paths[i])
  ref <- quiet_boundary(rlsc(y ~ a + b, data = df, na.action = na.exclude))
  fit <- quiet_boundary(rlsc(y ~ a + b, data = chunk_files(paths), na.action = na.exclude))
  # (a chunked fit's outputs have no row names)
  expect_length(loo_predict(fit), 60)   # 57 before: the excluded rows were dropped
  for (out in c("loo_predict", "fitted", "residuals", "hatvalues")) {
    expect_equal(get(out)(fit), unname(get(out)(ref)), tolerance = 1e-10, info = out)
  }
  expect_identical(which(is.na(loo_predict(fit))), c(5L, 33L, 50L))
  # as a string too, and na.omit drops them as in memory
  fit <- quiet_boundary(rlsc(y ~ a + b, data = chunk_files(paths), na.action = "na.exclude"))
  expect_equal(loo_predict(fit), unname(loo_predict(ref)), tolerance = 1e-10)
  expect_equal(unname(loo_predict(quiet_boundary(rlsc(y ~ a + b, data = chunk_files(paths))))),
               unname(loo_predict(quiet_boundary(rlsc(y ~ a + b, data = df)))), tolerance = 1e-10)
  # a level without rows, given in `levels`: dropped from the fit with a
  # warning, kept in the class predictions; an ordered response stays ordered
  for (resp in c("g", "o")) {
    f <- stats::as.formula(paste(resp, "~ b"))
    levs <- stats::setNames(list(levels(df[[resp]])), resp)
    expect_warning(ref <- quiet_boundary(rlsc(f, data = df)), "dropping empty level")
    expect_warning(fit <- quiet_boundary(rlsc(f, data = chunk_source(paths, readRDS, levels = levs))),
                   "dropping empty level")
    new <- df[c(1:4, 51:54), ]
    expect_identical(predict(fit, new, type = "class"), predict(ref, new, type = "class"))
    expect_identical(levels(predict(fit, new, type = "class")), levels(df[[resp]]))
  }
  # the matrix interface likewise
  x <- cbind(b = df$b[-50])
  ref <- suppressWarnings(rlsc_short(x, df$g[-50]))
  fit <- suppressWarnings(rlsc_short(chunk_source(list(1:30, 31:59), function(i) list(x = x[i, , drop = FALSE], y = df$g[-50][i]),
                                                  levels = list(y = c("u", "v", "w")))))
  expect_identical(predict(fit, x[1:5, , drop = FALSE], type = "class"),
                   predict(ref, x[1:5, , drop = FALSE], type = "class"))
})
