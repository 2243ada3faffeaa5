# The dual engine: one path for the linear dual and every kernel.

test_that("dual and RBF LOO values equal brute-force refits down to 1e-6 of the smallest eigenvalue", {
  set.seed(101)
  n <- 40
  x <- matrix(rnorm(n * 400), n)   # a well-conditioned centered Gram
  y <- rnorm(n)
  xc <- sweep(x, 2, colMeans(x))
  ev <- eigen(tcrossprod(xc), only.values = TRUE)$values
  low <- min(ev[ev > 1e-8 * max(ev)])
  fit <- rlsc_short(x, y, lambda = low * 10^-c(0, 3, 6))
  expect_identical(fit$form, "dual")
  for (l in fit$lambda) {
    ref <- drop(ref_loo_qr(x, y, lambda = l))
    expect_equal(unname(loo_predict(fit, l)), ref, tolerance = 1e-9, info = format(l))
  }
  # an RBF kernel matrix with a moderate spread of eigenvalues
  xs <- matrix(rnorm(30 * 3), 30)
  ys <- sin(xs[, 1]) + rnorm(30, sd = 0.1)
  k <- ref_rbf(xs, sigma = 2.5)
  kc <- k - outer(rowMeans(k), colMeans(k), "+") + mean(k)
  evk <- eigen(kc, only.values = TRUE)$values
  lowk <- min(evk[evk > 1e-6 * max(evk)])
  fitk <- rlsc_short(xs, ys, kernel = kernel_rbf(2.5), lambda = lowk * 10^-c(0, 3, 6))
  for (l in fitk$lambda) {
    ref <- drop(ref_kernel_loo(k, ys, lambda = l))
    expect_equal(unname(loo_predict(fitk, l)), ref, tolerance = 1e-9 * max(1, max(abs(ref))),
                 info = format(l))
  }
})

test_that("the linear dual and kernel_linear() are exact for columns with a large common offset", {
  d <- make_data(12, 30, seed = 102, offset = 0)
  ref <- rlsc_short(d$x, d$y, lambda = c(10, 1, 0.01), mode = "primal")
  lin <- kernel_custom(function(x, z) tcrossprod(x, z))
  for (shift in c(1e5, 1e8)) {
    xs <- d$x + shift
    for (fit in list(rlsc_short(xs, d$y, lambda = c(10, 1, 0.01), mode = "dual"),
                     rlsc_short(xs, d$y, lambda = c(10, 1, 0.01), kernel = kernel_linear()))) {
      for (l in fit$lambda) {
        expect_equal(loo_predict(fit, l), loo_predict(ref, l), tolerance = 1e-8, info = format(shift))
        expect_equal(coef(fit, l)[-1], coef(ref, l)[-1], tolerance = 1e-8)
        expect_equal(predict(fit, xs[1:3, ], l), predict(ref, d$x[1:3, ], l), tolerance = 1e-8)
      }
    }
  }
})

test_that("rows of tiny weight keep exact LOO values in the dual form", {
  d <- make_data(20, 30, seed = 103)
  for (tiny in c(1e-20, 1e-50)) {
    w <- rep(1, 20)
    w[12] <- tiny
    fit <- rlsc_short(d$x, d$y, weights = w, lambda = c(5, 0.5), mode = "dual")
    for (l in fit$lambda) {
      ref <- drop(ref_loo_qr(d$x, d$y, w, lambda = l))
      expect_equal(unname(loo_predict(fit, l)), ref, tolerance = 1e-8, info = format(tiny))
      expect_equal(unname(fitted(fit, l)), drop(predict(fit, d$x, lambda = l)), tolerance = 1e-10)
    }
  }
})

test_that("the engine validator rejects malformed engines; damaged fits get clear errors", {
  fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
  x <- as.matrix(mtcars[, -1])
  # every method validates the fit, its engine included
  with_engine <- function(fit, eng) {
    fit$engine <- eng
    fit
  }
  eng <- unclass(fit$engine)
  expect_error(predict(with_engine(fit, structure(eng[-1], class = class(fit$engine))), x),
               "malformed rlsc engine: its fields must be")
  small <- rlsc(as.matrix(mtcars[1:8, -1]), mtcars$mpg[1:8])   # dual: it holds its rows
  bad <- small$engine
  bad$basis <- bad$basis[-1, ]
  expect_error(predict(with_engine(small, bad), x), "malformed rlsc engine: `basis` must be n x r")
  bad <- fit$engine
  bad$form <- "tertiary"
  expect_error(predict(with_engine(fit, bad), x), "`form` must be \"primal\" or \"dual\"")
  bad <- fit$engine
  bad$v <- NULL
  expect_error(coef(with_engine(fit, bad)), "its fields must be")
  damaged <- fit
  damaged$engine$g <- damaged$engine$g[-1, , drop = FALSE]
  expect_error(predict(damaged, as.matrix(mtcars[, -1])), "malformed rlsc engine")
  damaged <- fit
  damaged$nobs <- 1e9
  expect_error(coef(damaged), "not a valid rlsc fit: `nobs`, `y`, `weights` and its data must agree")
  damaged <- fit
  damaged$weights[3] <- -1
  expect_error(fitted(damaged), "finite non-negative weights")
  damaged <- fit
  damaged$path$lambda <- "a"
  expect_error(loo_predict(damaged), "`path` must be the LOO table")
  kf <- rlsc_short(as.matrix(mtcars[, 2:4]), mtcars$mpg, kernel = kernel_rbf(c(50, 100)))
  damaged <- kf
  damaged$kernel$params$sigma <- -1
  expect_error(predict(damaged, as.matrix(mtcars[, 2:4])), "positive `sigma`")
  damaged <- kf
  damaged$engine$loo <- damaged$engine$loo[-1, , , drop = FALSE]
  expect_error(loo_predict(damaged), "stored solutions do not match")
})

test_that("rows of weight 0 change no dual fit's coefficients or predictions (the engine holds x whole)", {
  # the engine keeps x with its rows of weight 0 and takes the rows of
  # positive weight where new rows or coefficients need them: the fit
  # without those rows at all is the same, for the linear dual, a kernel and
  # the fold engines of K-fold (their held-out rows of weight 0)
  set.seed(77)
  x <- matrix(rnorm(40 * 60), 40)
  y <- x[, 1] - x[, 2] + 3 * rnorm(40)
  w <- runif(40, 0.5, 2)
  w[c(3, 17, 40)] <- 0
  keep <- w > 0
  new <- x[1:5, ] + 0.3
  fit <- function(...) {   # (a lambda_min at an end of the short grid is not the point here)
    withCallingHandlers(rlsc(...), warning = function(w) {
      if (grepl("value of the `lambda` grid", conditionMessage(w))) invokeRestart("muffleWarning")
    })
  }
  for (kernel in list("linear", kernel_rbf(sigma = 8))) {
    args <- list(lambda = 10^seq(4, -1, length.out = 6), mode = "dual", kernel = kernel)
    with0 <- do.call(fit, c(list(x, y, weights = w), args))
    without <- do.call(fit, c(list(x[keep, ], y[keep], weights = w[keep]), args))
    expect_equal(predict(with0, new, lambda = 1), predict(without, new, lambda = 1), tolerance = 1e-10)
    if (identical(kernel, "linear")) expect_equal(coef(with0, lambda = 1), coef(without, lambda = 1), tolerance = 1e-10)
    # K-fold: the same folds of the rows of positive weight
    folds <- rep_len(1:4, 40)
    kf0 <- do.call(fit, c(list(x, y, weights = w, foldid = folds), args))
    kf <- do.call(fit, c(list(x[keep, ], y[keep], weights = w[keep], foldid = folds[keep]), args))
    expect_equal(kf0$path$mse, kf$path$mse, tolerance = 1e-10)
  }
})
