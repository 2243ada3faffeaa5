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
  default <- with_threads(NULL, rlsc:::thread_count())
  expect_true(is.integer(default) && default >= 1L)
  expect_identical(with_threads(3, rlsc:::thread_count()), 3L)
  for (bad in list(0, -1, 1.5, NA, "2", c(1, 2), TRUE)) {
    expect_error(with_threads(bad, rlsc:::thread_count()),
                 "`options(rlsc.threads = )` must be a positive whole number", fixed = TRUE)
  }
})

test_that("the default threads follow OMP_THREAD_LIMIT, OMP_NUM_THREADS and R CMD check's limit", {
  with_env <- function(vars, expr) {
    old <- Sys.getenv(names(vars), unset = NA, names = TRUE)
    on.exit({
      for (v in names(old)) if (is.na(old[[v]])) Sys.unsetenv(v) else do.call(Sys.setenv, as.list(old[v]))
    })
    do.call(Sys.setenv, as.list(vars))
    expr
  }
  unset <- c(OMP_THREAD_LIMIT = "", OMP_NUM_THREADS = "", `_R_CHECK_LIMIT_CORES_` = "")
  info <- .Call(getFromNamespace("C_rlsc_thread_info", "rlsc"))
  skip_if(info$blas_threads > 1L, "the BLAS runs threads: the default is 1")
  processors <- info$processors
  expect_identical(with_env(unset, rlsc:::default_threads()), as.integer(processors))
  expect_identical(with_env(replace(unset, "OMP_THREAD_LIMIT", "1"), rlsc:::default_threads()), 1L)
  expect_identical(with_env(replace(unset, "OMP_NUM_THREADS", "1"), rlsc:::default_threads()), 1L)
  expect_identical(with_env(replace(unset, "OMP_NUM_THREADS", "junk"), rlsc:::default_threads()),
                   as.integer(processors))
  expect_identical(with_env(replace(unset, "_R_CHECK_LIMIT_CORES_", "TRUE"), rlsc:::default_threads()),
                   as.integer(min(processors, 2L)))
  expect_identical(with_env(replace(unset, "_R_CHECK_LIMIT_CORES_", "false"), rlsc:::default_threads()),
                   as.integer(processors))
  # a BLAS with threads of its own (OpenBLAS, MKL, BLIS) gets the cores alone
  threaded_blas <- list(openmp = TRUE, processors = 8L, blas_threads = 8L)
  expect_identical(with_env(unset, rlsc:::default_threads(threaded_blas)), 1L)
  expect_identical(with_env(unset, rlsc:::default_threads(replace(threaded_blas, "blas_threads", 1L))), 8L)
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
  eig_with <- function(th) .Call(getFromNamespace("C_rlsc_eigen", "rlsc"), crossprod(xw[, 1:600]), th)
  expect_identical(eig_with(2L), eig_with(1L))
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
