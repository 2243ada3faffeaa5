# The threads of the C code split their work into pieces that depend on the
# sizes of the problem only, so every result is the same, bit for bit,
# whatever their number.  The problems here are large enough that each
# parallel loop does start its threads (above about 1e6 operations a round).

with_threads <- function(n, expr) {
  old <- options(rlsc.threads = n)
  on.exit(options(old))
  expr
}

test_that("options(rlsc.threads) sets the threads, checked, with a default", {
  default <- with_threads(NULL, rlsc_threads()[["rlsc"]])
  expect_true(is.integer(default) && default >= 1L)
  expect_identical(with_threads(3, rlsc_threads()[["rlsc"]]), 3L)
  for (bad in list(0, -1, 1.5, NA, "2", c(1, 2), TRUE)) {
    expect_error(with_threads(bad, rlsc_threads()),
                 "`options(rlsc.threads = )` must be a positive whole number", fixed = TRUE)
  }
})

test_that("the default threads follow OMP_THREAD_LIMIT, OMP_NUM_THREADS, R CMD check's limit and the cores", {
  with_env <- function(vars, expr) {
    old <- Sys.getenv(names(vars), unset = NA, names = TRUE)
    on.exit({
      for (v in names(old)) if (is.na(old[[v]])) Sys.unsetenv(v) else do.call(Sys.setenv, as.list(old[v]))
    })
    do.call(Sys.setenv, as.list(vars))
    expr
  }
  unset <- c(OMP_THREAD_LIMIT = "", OMP_NUM_THREADS = "", `_R_CHECK_LIMIT_CORES_` = "")
  processors <- rlsc_threads()[["processors"]]
  expect_identical(with_env(unset, rlsc:::default_threads(cores = Inf)), as.integer(processors))
  expect_identical(with_env(replace(unset, "OMP_THREAD_LIMIT", "1"), rlsc:::default_threads(cores = Inf)), 1L)
  expect_identical(with_env(replace(unset, "OMP_NUM_THREADS", "1"), rlsc:::default_threads(cores = Inf)), 1L)
  expect_identical(with_env(replace(unset, "OMP_NUM_THREADS", "junk"), rlsc:::default_threads(cores = Inf)),
                   as.integer(processors))
  expect_identical(with_env(replace(unset, "_R_CHECK_LIMIT_CORES_", "TRUE"), rlsc:::default_threads(cores = Inf)),
                   as.integer(min(processors, 2L)))
  expect_identical(with_env(replace(unset, "_R_CHECK_LIMIT_CORES_", "false"), rlsc:::default_threads(cores = Inf)),
                   as.integer(processors))
  # a BLAS with threads of its own (OpenBLAS, MKL, BLIS) does not change it:
  # it is held to one thread during fits instead
  threaded_blas <- list(openmp = TRUE, processors = 8L, blas_threads = 8L)
  expect_identical(with_env(unset, rlsc:::default_threads(threaded_blas, cores = Inf)), 8L)
  # the cores the futureverse grants (parallelly::availableCores())
  expect_identical(with_env(unset, rlsc:::default_threads(threaded_blas, cores = 3L)), 3L)
  skip_if_not_installed("parallelly")
  old <- options(mc.cores = 1L)   # as a future's worker has it
  on.exit(options(old), add = TRUE)
  expect_identical(with_env(unset, rlsc:::default_threads()), 1L)
  expect_identical(with_env(unset, rlsc_threads()[["rlsc"]]), 1L)
})

test_that("a fit works out its default threads once; options(rlsc.threads) still wins inside it", {
  pin <- getFromNamespace("pin_threads", "rlsc")
  count <- getFromNamespace("thread_count", "rlsc")
  pinned <- getFromNamespace("pinned_threads", "rlsc")
  default <- with_threads(NULL, count())
  inside <- function(fail = FALSE) {
    pin()
    pin()   # a pin inside a pin changes nothing
    old <- options(mc.cores = 1L)   # a change of the default within the fit is not seen
    on.exit(options(old), add = TRUE)
    if (fail) stop("interrupted")
    c(default = with_threads(NULL, count()), set = with_threads(3, count()), pinned = pinned$n)
  }
  expect_identical(inside(), c(default = default, set = 3L, pinned = default))
  expect_null(pinned$n)
  expect_error(inside(fail = TRUE), "interrupted")
  expect_null(pinned$n)
  expect_identical(with_threads(NULL, count()), default)
  # with the option set, the default is not worked out at all (it would ask
  # parallelly, which rejects a bad mc.cores)
  skip_if_not_installed("parallelly")
  old <- options(rlsc.threads = 1L, mc.cores = -1L)
  on.exit(options(old), add = TRUE)
  expect_s3_class(rlsc(matrix(rnorm(80), 40), rnorm(40), lambda = 1), "rlsc")
})

test_that("primal fits, their methods and chunked fits do not depend on the number of threads", {
  set.seed(131)
  n <- 3000
  x <- matrix(rnorm(n * 150), n) + 5
  y <- drop(x[, 1:10] %*% rnorm(10)) + rnorm(n)
  w <- runif(n, 0.5, 2)
  fit_with <- function(th) with_threads(th, {
    fit <- rlsc(x, y, weights = w)
    list(path = fit$path, loo = loo_predict(fit), coef = coef(fit, 3.7),
         hat = hatvalues(fit, 3.7), pred = predict(fit, x[1:5, ]))
  })
  one <- fit_with(1L)
  expect_identical(fit_with(2L), one)
  expect_identical(fit_with(3L), one)
  src <- rows_source(x, y, w, chunks = split(seq_len(n), rep(1:3, each = n / 3)))
  chunked <- function(th) with_threads(th, {
    fit <- rlsc(src)
    list(path = fit$path, coef = coef(fit))
  })
  expect_identical(chunked(2L), chunked(1L))
})

test_that("kernel, dual and many-response fits do not depend on the number of threads", {
  set.seed(132)
  n <- 700
  x <- matrix(rnorm(n * 6), n)
  y <- sin(x[, 1]) + rnorm(n, sd = 0.2)
  kernel_with <- function(th) with_threads(th, {
    fit <- rlsc_short(x, y, kernel = kernel_rbf(c(1, 2)), keep_eigen = TRUE)
    list(path = fit$kernel_path, loo = loo_predict(fit), pred = predict(fit, x[1:5, ] + 0.1))
  })
  expect_identical(kernel_with(2L), kernel_with(1L))
  xw <- matrix(rnorm(400 * 2000), 400)
  ym <- xw[, 1:30] %*% matrix(rnorm(30 * 3), 30) + matrix(rnorm(400 * 3), 400)
  dual_with <- function(th) with_threads(th, rlsc_short(xw, ym)$path)
  expect_identical(dual_with(2L), dual_with(1L))
  xm <- matrix(rnorm(2000 * 40), 2000)
  many <- xm[, 1:5] %*% matrix(rnorm(5 * 120), 5) + matrix(rnorm(2000 * 120), 2000)
  many_with <- function(th) with_threads(th, rlsc_short(xm, many)$path)
  expect_identical(many_with(2L), many_with(1L))
  eig_with <- function(th) with_threads(th, rlsc:::c_eigen(crossprod(xw[, 1:600])))
  expect_identical(eig_with(2L), eig_with(1L))
  # the moments without a Gram (a dual fit's means of y) of 300 columns: their
  # row blocks once shrank with the threads
  ys <- matrix(rnorm(3000 * 300), 3000) + 5
  ws <- runif(3000)
  mom_with <- function(th) with_threads(th, rlsc:::c_moments(matrix(0, 3000, 0), ys, ws, numeric(0),
                                                             ys[1, ], FALSE))
  expect_identical(mom_with(2L), mom_with(1L))
  # and a wide x's column pass, whose one block of rows the threads split
  xs <- matrix(rnorm(500 * 3000), 500) + 3
  col_with <- function(th) with_threads(th, rlsc:::c_moments(xs, ys[1:500, 1:2], ws[1:500], xs[1, ],
                                                             ys[1, 1:2], FALSE))
  expect_identical(col_with(2L), col_with(1L))
})

test_that("a wide Gram over many row blocks, in rounds of chunks, equals the two-pass moments on any threads", {
  # 8 chunks of 1024 rows of 300 columns: large blocks, which go in rounds of
  # chunks once there are 8 of them (the Gram of Nystrom features, issue 49)
  set.seed(49)
  n <- 8192
  x <- matrix(rnorm(n * 300, mean = 1e3), n)
  y <- matrix(rnorm(n * 2), n)
  w <- runif(n) * (runif(n) > 0.05)
  mom_with <- function(th) with_threads(th, rlsc:::c_moments(x, y, w, x[1, ], y[1, ], TRUE))
  mom <- mom_with(2L)
  expect_identical(mom_with(1L), mom)
  expect_identical(mom_with(3L), mom)
  wmean <- function(col) sum(w * col) / sum(w)
  xbar <- apply(x, 2, wmean)
  ybar <- apply(y, 2, wmean)
  xc <- sweep(x, 2, xbar)
  expect_equal(x[1, ] + mom$xbar, xbar, tolerance = 1e-13)
  expect_equal(mom$sxx, crossprod(xc, w * xc), tolerance = 1e-10)
  expect_equal(mom$sxy, crossprod(xc, w * sweep(y, 2, ybar)), tolerance = 1e-10)
  expect_equal(mom$sumw, sum(w))
})

test_that("the calibration map's loss, gradient and Hessian do not depend on the number of threads", {
  # 12 blocks of 512 rows of 10 classes: above the threads' threshold
  set.seed(12)
  n <- 6000
  k <- 10L
  fs <- matrix(rnorm(n * k), n)
  code <- sample.int(k, n, TRUE)
  w <- runif(n)
  own <- (tabulate(code, k) + 1) / (tabulate(code, k) + 2)
  theta <- c(rnorm(k - 1L), abs(rnorm(k)))
  centre <- rnorm(k)
  inv_scale <- runif(k)
  map <- function() c_softmax_map(fs, code, own, w / sum(w), theta, seq_len(k), centre, inv_scale, TRUE)
  one <- with_threads(1L, map())
  expect_identical(with_threads(2L, map()), one)
  expect_identical(with_threads(3L, map()), one)
})

test_that("a K-fold fit of 10 classes and its probabilities do not depend on the number of threads", {
  # rows of weight 0; the calibration folds are drawn: the same seed each time
  set.seed(134)
  n <- 900
  x <- matrix(rnorm(n * 50), n)
  cls <- cut(x[, 1] + x[, 2] + rnorm(n), 10)
  w <- rep(c(1, 0, 2), length.out = n)
  fit_with <- function(th) with_threads(th, {
    set.seed(5)
    fit <- suppressWarnings(rlsc(x, cls, cv = 5, weights = w))
    list(path = fit$path, prob = predict(fit, x[1:5, ], type = "prob"), loo = loo_predict(fit, type = "prob"))
  })
  one <- fit_with(1L)
  expect_identical(fit_with(2L), one)
})

test_that("the path of many one-vs-all columns and the leave-pair-out AUC do not depend on the number of threads", {
  # 200 columns of 300 rows in the complement form (a dual engine's rows):
  # pieces of four column blocks, merged per row block (each row's best
  # column across them)
  set.seed(135)
  cc <- complement_case()
  basis <- cc$basis
  m <- nrow(basis)
  lambda <- 10^seq(2, -2, length.out = 10)
  path_with <- function(th) with_threads(th, loo_path(basis, cc$values, cc$g, cc$q, cc$ys - basis %*% cc$g,
                                                      cc$ys, cc$w, cc$w, seq_len(m), lambda,
                                                      TRUE, TRUE, FALSE, NULL, 1))
  expect_gt(diff(range(path_with(1L)$mean[, 3])), 0)   # misclassifications that vary with lambda
  expect_identical(path_with(2L), path_with(1L))
  expect_identical(path_with(3L), path_with(1L))
  # the leave-pair-out AUC's sums over 22500 pairs in blocks (weights whose
  # products round)
  p <- basis[, 1:15] * 3
  wa <- runif(m, 0.5, 2)
  a <- matrix(runif(m * 10, 0.3, 1), m)
  e <- matrix(rnorm(m * 10), m)
  yb <- rep(c(-1, 1), length.out = m)
  auc_with <- function(th) with_threads(th, c_lpo_auc(p, basis[, 16:17], as.double(15:1), lambda, a, e, yb, wa,
                                                      which(yb > 0), which(yb < 0), TRUE,
                                                      rep(1e-10, length(lambda))))
  expect_gt(min(auc_with(1L)[, 1]), 0)
  expect_identical(auc_with(2L), auc_with(1L))
  expect_identical(auc_with(3L), auc_with(1L))
})

test_that("a forked child fits with one thread instead of waiting for its parent's", {
  skip_on_os("windows")
  skip_on_cran()
  set.seed(133)
  x <- matrix(rnorm(3000 * 100), 3000)
  y <- drop(x[, 1:5] %*% rnorm(5)) + rnorm(3000)
  parent <- with_threads(2L, rlsc(x, y)$path)
  child <- with_threads(2L, parallel::mclapply(1:2, function(i) rlsc(x, y)$path, mc.cores = 2L))
  expect_identical(child[[1]], parent)
  expect_identical(child[[2]], parent)
})

# A threaded BLAS can only be tried in a process that loaded it: a child R
# with OpenBLAS preloaded (Debian's libopenblas0-pthread; `make deps`
# unpacks it into .deps/ without making it the system's BLAS, and `make test`
# passes its directory in RLSC_OPENBLAS).
openblas_dir <- function() {
  dirs <- c(Sys.getenv("RLSC_OPENBLAS"), "/usr/lib/x86_64-linux-gnu/openblas-pthread")
  dirs <- dirs[nzchar(dirs) & file.exists(file.path(dirs, "libblas.so.3")) &
                 file.exists(file.path(dirs, "liblapack.so.3"))]
  if (length(dirs)) dirs[[1]] else ""
}

test_that("a threaded BLAS is held to one thread during fits, given its threads back, results the same", {
  skip_on_cran()
  skip_on_covr()
  skip_on_os(c("windows", "mac"))
  # the child's LD_PRELOAD replaces libasan's (make sanitize)
  skip_if(grepl("libasan", Sys.getenv("LD_PRELOAD")), "ASan's runtime must come first in a child")
  dir <- openblas_dir()
  skip_if(!nzchar(dir), "no OpenBLAS to preload (make deps unpacks one)")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  # the package under test: the installed one, or under `make unit` the
  # source tree that pkgload loaded (an installed package has Meta/, no src/)
  path <- getNamespaceInfo("rlsc", "path")
  load <- if (dir.exists(file.path(path, "src")) && !dir.exists(file.path(path, "Meta"))) {
    sprintf('pkgload::load_all("%s", quiet = TRUE)', path)
  } else {
    "suppressPackageStartupMessages(library(rlsc))"
  }
  # what the child runs, after loading the package
  child <- function() {
    blas <- function() .Call(getFromNamespace("C_rlsc_thread_info", "rlsc"))$blas_threads
    start <- blas()
    seen <- integer()   # the BLAS's threads while a fit evaluates its criterion
    watch <- function(y, pred, weights) {
      seen[length(seen) + 1L] <<- blas()
      mean((y - pred)^2)
    }
    set.seed(1)
    n <- 1200
    x <- matrix(rnorm(n * 300), n) + 3
    y <- drop(x[, 1:5] %*% rnorm(5)) + rnorm(n)
    xk <- x[1:600, 1:4]
    yk <- y[1:600]
    fits <- lapply(1:3, function(th) {
      options(rlsc.threads = th)
      fit <- rlsc(x, y, criterion = watch)
      kfit <- suppressWarnings(rlsc(xk, yk, kernel = kernel_rbf(c(1, 3)), keep_eigen = TRUE))
      list(fit$path, coef(fit, 2.5), predict(fit, x[1:4, ]), kfit$kernel_path,
           predict(kfit, xk[1:3, ], 0.1))
    })
    after_fits <- blas()
    err <- try(rlsc(x, y, criterion = function(y, pred, weights) stop("boom")), silent = TRUE)
    cat(start, after_fits, blas(), all(seen == 1L), length(seen) > 0,
        identical(fits[[1]], fits[[2]]), identical(fits[[1]], fits[[3]]),
        inherits(err, "try-error"), "\n")
  }
  writeLines(c(load, deparse(body(child))), script)
  preload <- paste(file.path(dir, c("libblas.so.3", "liblapack.so.3")), collapse = ":")
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script), stdout = TRUE, stderr = TRUE,
                 env = c(paste0("LD_PRELOAD=", preload), "OPENBLAS_NUM_THREADS=2",
                         paste0("R_LIBS=", paste(.libPaths(), collapse = ":"))))
  got <- strsplit(trimws(tail(out, 1)), " ")[[1]]
  expect_identical(got, c("2", "2", "2", rep("TRUE", 5)), info = paste(out, collapse = "\n"))
})

test_that("a future's worker runs one thread of its own (the futureverse grants it one core)", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("parallelly")
  skip_unless_installed_build()   # the worker loads the installed package
  old_plan <- future::plan("multisession", workers = 2L)   # (one worker would be sequential)
  on.exit(future::plan(old_plan), add = TRUE)
  expect_identical(future::value(future::future(rlsc::rlsc_threads()[["rlsc"]])), 1L)
})

test_that("a banded K-fold fit decomposes its fold Grams on the threads: the one-thread fit, the refits", {
  # 60 columns: each batch of fold Grams goes to c_eigen_list()'s threads
  set.seed(61)
  x <- matrix(rnorm(90 * 60), 90)
  y <- cbind(a = drop(x[, 1:10] %*% rnorm(10)) + rnorm(90), b = rnorm(90))
  group <- rep(1:3, each = 20)
  cand <- rbind(c(1, 1, 1) / 3, c(0.6, 0.3, 0.1), c(0, 0.5, 0.5))
  folds <- rep_len(1:5, 90)
  lambda <- 10^seq(3, -1, length.out = 6)
  fit_with <- function(th) {
    with_threads(th, suppressWarnings(rlsc(x, y, bands = group, band_weights = cand, lambda = lambda,
                                           foldid = folds)))
  }
  two <- fit_with(2L)
  one <- fit_with(1L)
  expect_identical(two$path, one$path)
  expect_identical(two$band_scores, one$band_scores)
  expect_identical(coef(two), coef(one))
  # each candidate's best 5-fold criterion of column a: refits without each fold
  for (j in 1:3) {
    pf <- 1 / cand[j, group]
    keep <- is.finite(pf)
    held <- ref_kfold(y[, "a"], rep(1, 90), folds, lambda, function(train, out, l) {
      ref_predict(ref_coef_pf(x[train, keep], y[train, "a"], rep(1, sum(train)), l, pf[keep]), x[out, keep])
    })
    expect_equal(unname(two$band_scores[j, "a"]), min(held$cvm), tolerance = 1e-9)
  }
})
