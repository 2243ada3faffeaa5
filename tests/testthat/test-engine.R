# The C entry points check what they are handed: a bad direct .Call is an R
# error, never a crash.

test_that("the C entry points reject wrong types and shapes", {
  m <- matrix(1, 4, 2)
  y <- matrix(1, 4, 1)
  w <- rep(1, 4)
  call <- function(name, ...) .Call(getFromNamespace(name, "rlsc"), ...)
  expect_error(call("C_rlsc_moments", 1:8, y, w, TRUE, TRUE), "'x' must be a double matrix")
  expect_error(call("C_rlsc_moments", c(1, 2), y, w, TRUE, TRUE), "'x' must be a matrix")
  expect_error(call("C_rlsc_moments", m, matrix(1, 3, 1), w, TRUE, TRUE), "'y' must have 4 rows")
  expect_error(call("C_rlsc_moments", m, y, w[-1], TRUE, TRUE), "'w' must have length 4")
  expect_error(call("C_rlsc_moments", m, y, -w, TRUE, TRUE), "'w' must be finite and non-negative")
  expect_error(call("C_rlsc_moments", m, y, w, NA, TRUE), "'intercept' must be TRUE or FALSE")
  expect_error(call("C_rlsc_eigen", matrix(1, 2, 3)), "'s' must be square")
  expect_error(call("C_rlsc_eigen", matrix(NA_real_, 2, 2)), "'s' must be finite")
  expect_error(call("C_rlsc_eigen", "a"), "'s' must be a double matrix")
  expect_error(call("C_rlsc_project", m, 1, diag(2)), "'center' must have length 2")
  expect_error(call("C_rlsc_project", m, c(0, 0), diag(3)), "'v' must have 2 rows")
  expect_error(call("C_rlsc_dual_gram", m, w[-1], c(0, 0)), "'w' must have length 4")
  expect_error(call("C_rlsc_dual_gram", m, w, 0), "'center' must have length 2")
  b <- matrix(1, 4, 2)
  g <- matrix(1, 2, 1)
  ok <- list(b, c(2, 1), g, y, w, 0, c(1, 0.5), TRUE, FALSE, FALSE)
  path <- function(k, value) {
    args <- ok
    args[k] <- list(value)
    do.call(call, c("C_rlsc_loo_path", args))
  }
  expect_type(path(1, b), "list")
  expect_error(path(1, 1:8), "'b' must be a double matrix")
  expect_error(path(2, 1), "'values' must have length 2")
  expect_error(path(2, c(-1, 1)), "'values' must be finite and non-negative")
  expect_error(path(3, matrix(1, 3, 1)), "'g' must have 2 rows")
  expect_error(path(4, matrix(1, 4, 2)), "'y' must be 4 x 1")
  expect_error(path(5, rep(0, 4)), "'w' must have a positive sum")
  expect_error(path(6, c(0, 0)), "'ybar' must have length 1")
  expect_error(path(7, c(1, NA)), "'lambda' must be finite and non-negative")
  expect_error(path(7, "a"), "'lambda' must be a double vector")
  expect_error(path(8, 1), "'intercept' must be TRUE or FALSE")
  expect_error(path(10, NULL), "'keep' must be TRUE or FALSE")
})

test_that("the moments merged over blocks equal the two-pass weighted moments", {
  set.seed(51)
  n <- 9000   # several row blocks
  x <- matrix(rnorm(n * 3, mean = 1e4), n)
  y <- matrix(rnorm(n * 2), n)
  w <- runif(n)
  mom <- .Call(getFromNamespace("C_rlsc_moments", "rlsc"), x, y, w, TRUE, TRUE)
  wmean <- function(col) sum(w * col) / sum(w)   # sum() accumulates in long double
  xbar <- apply(x, 2, wmean)
  ybar <- apply(y, 2, wmean)
  xc <- sweep(x, 2, xbar)
  expect_equal(mom$xbar, xbar, tolerance = 1e-13)
  expect_equal(mom$ybar, ybar, tolerance = 1e-13)
  expect_equal(mom$sxx, crossprod(xc, w * xc), tolerance = 1e-10)
  expect_equal(mom$sxy, crossprod(xc, w * sweep(y, 2, ybar)), tolerance = 1e-10)
})

test_that("fitting never modifies its inputs", {
  d <- make_data(15, 25, seed = 52)
  x <- d$x; y <- d$y; w <- rep(2, 15); lam <- c(3, 1)
  copies <- list(x + 0, y + 0, w + 0, lam + 0)
  fit <- rlsc_short(x, y, weights = w, lambda = lam)
  fit2 <- rlsc_short(x, y, weights = w, lambda = lam, mode = "primal")
  invisible(loo_predict(fit, 1)); invisible(predict(fit, x, lambda = 1))
  expect_identical(list(x, y, w, lam), copies)
})
