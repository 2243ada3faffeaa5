# Numerical stress: badly scaled and nearly collinear columns, lambda down to
# 1e-12 of the largest eigenvalue.  Wherever rlsc() and loo_predict() do not
# warn, the LOO values agree with stable (QR) brute-force refits to 1e-6
# relative; where they warn, the warning says so.

stress_data <- function() {
  set.seed(71)
  z <- matrix(rnorm(40 * 3), 40)
  y <- drop(z %*% c(1, -1, 0.5)) + rnorm(40)
  list(
    scaled = list(x = cbind(z[, 1] * 1e-8, z[, 2] * 1e8, z[, 3]), y = y),
    scaled_offset = list(x = cbind(z[, 1] * 1e-8 + 1, z[, 2] * 1e8 + 1e9, z[, 3]), y = y),
    collinear = list(x = cbind(z[, 1], z[, 1] + 1e-6 * z[, 2], z[, 3]), y = y),
    offset = list(x = z + 1e8, y = y),
    wide = list(x = cbind(z[1:10, ] * 1e-8, z[11:20, ] * 1e8, z[21:30, ]), y = y[1:10]))
}

is_reliability_warning <- function(w) grepl("may be inaccurate", conditionMessage(w))

# Fits on a grid lambda_1 * 10^-(0..12) and returns, per lambda, whether the
# fit warned about it and the relative error of the LOO values.
stress_path <- function(x, y, mode) {
  xc <- sweep(x, 2, colMeans(x))
  top <- max(eigen(crossprod(xc), symmetric = TRUE, only.values = TRUE)$values)
  lams <- top * 10^-(0:12)
  warned <- character()
  fit <- withCallingHandlers(
    rlsc(x, y, lambda = lams, mode = mode),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  lapply(fit$lambda, function(l) {
    w_loo <- FALSE
    loo <- withCallingHandlers(loo_predict(fit, l), warning = function(w) {
      w_loo <<- w_loo || is_reliability_warning(w)
      invokeRestart("muffleWarning")
    })
    ref <- drop(ref_loo_qr(x, y, lambda = l))
    err <- if (anyNA(loo)) NA else max(abs(loo - ref)) / max(abs(ref))
    list(lambda = l, warned = w_loo, err = err, fit_warned = any(grepl("may be inaccurate", warned)))
  })
}

test_that("LOO values are accurate to 1e-6 or come with a warning", {
  for (case in stress_data()) {
    for (mode in c("primal", "dual")) {
      res <- stress_path(case$x, case$y, mode)
      warned <- vapply(res, `[[`, logical(1), "warned")
      err <- vapply(res, `[[`, numeric(1), "err")
      # never silently off by more than 1e-6 (NA values come with their own warning)
      expect_true(all(warned | is.na(err) | err < 1e-6))
      # the largest lambdas are never flagged and are accurate
      expect_false(any(warned[1:4]))
      expect_true(all(err[1:4] < 1e-7))
      # rlsc() warned once for the grid whenever loo_predict() warns for a value of it
      if (any(warned)) expect_true(res[[1]]$fit_warned)
    }
  }
})

test_that("the reliability warning names the values of lambda it concerns", {
  # (nearly collinear columns: columns merely on different scales keep their
  # directions, next test)
  x <- stress_data()$collinear$x
  y <- stress_data()$collinear$y
  top <- max(eigen(crossprod(sweep(x, 2, colMeans(x))), only.values = TRUE)$values)
  expect_warning(rlsc_short(x, y, lambda = top * c(1, 1e-3, 1e-12)),
                 "leave-one-out values may be inaccurate \\(relative error above 1e-6\\) at 1 value\\(s\\) of `lambda`")
  expect_no_warning(rlsc_short(x, y, lambda = top * c(1, 1e-3)))
  # the default grid stays where the values are reliable
  expect_no_warning(fit <- rlsc_short(x, y))
  expect_no_warning(loo_predict(fit, fit$lambda[100]))
})

test_that("the dual LOO values stay exact however small lambda is; exactly interpolated points are NA", {
  set.seed(72)
  x <- matrix(rnorm(10 * 30), 10)
  y <- rnorm(10)
  xc <- sweep(x, 2, colMeans(x))
  top <- max(eigen(tcrossprod(xc), only.values = TRUE)$values)
  # 1 - h is about 1e-12 here: the direct formula 1 - sum(...) would keep four
  # digits, the complement form of the dual keeps them all
  fit <- rlsc_short(x, y, lambda = top * 10^-c(6, 12))
  expect_identical(fit$path$n_na, c(0, 0))
  for (l in fit$lambda) {
    expect_equal(unname(loo_predict(fit, l)), drop(ref_loo_qr(x, y, lambda = l)), tolerance = 1e-9)
  }
  expect_lt(min(1 - hatvalues(fit, fit$lambda[2])), 1e-11)
  expect_warning(fit0 <- rlsc_short(x, y, lambda = c(top, 0)), "undefined \\(NA\\) for up to 10 point")
  expect_identical(fit0$path$n_na, c(0, 10))
})

test_that("in the primal form a leverage within 1e-8 of 1 gives NA rather than digits lost to cancellation", {
  d <- make_data(30, 3, seed = 9)
  x <- cbind(d$x, c(1 + 1e-5, rep(0, 29)))   # a column that nearly isolates point 1
  expect_warning(fit <- rlsc_short(x, d$y, lambda = c(2, 1e-12)), "up to 1 point")
  expect_identical(fit$path$n_na, c(0, 1))
})

test_that("a large common offset of the columns costs no digits, in memory and in chunks", {
  # every column offset by 1e8 and one row weighing 1e4 (its leverage near 1):
  # the same data shifted back by exactly 1e8 must give the same numbers,
  # since an unpenalized intercept makes the fit invariant to column shifts
  rel <- function(a, b) max(abs(a - b)) / max(abs(b))
  lam <- 10^seq(3, -3, length.out = 12)
  check <- function(x, y, w, chunk_rows = 300, ...) {
    u <- x - 1e8   # exact
    a <- rlsc_short(x, y, weights = w, lambda = lam, ...)
    b <- rlsc_short(u, y, weights = w, lambda = lam, ...)
    expect_lt(rel(a$path$mse, b$path$mse), 1e-12)
    expect_lt(rel(loo_predict(a, lam[6]), loo_predict(b, lam[6])), 1e-12)
    expect_lt(rel(predict(a, x[1:5, ], lambda = lam[6]), predict(b, u[1:5, ], lambda = lam[6])), 1e-12)
    if (is.null(list(...)$kernel) && a$form == "primal") {
      ch <- rlsc_short(chunk_matrix(x, y, w, chunk_rows = chunk_rows), lambda = lam)
      expect_lt(rel(ch$path$mse, b$path$mse), 1e-12)
      expect_lt(rel(loo_predict(ch, lam[6]), loo_predict(b, lam[6])), 1e-12)
      slopes <- function(cf) if (is.matrix(cf)) cf[-1, ] else cf[-1]   # intercepts differ by the shift
      expect_lt(rel(slopes(coef(ch, lam[6])), slopes(coef(b, lam[6]))), 1e-12)
    }
    a
  }
  set.seed(81)
  n <- 2000
  x <- matrix(rnorm(n * 5), n) + 1e8
  y <- drop((x - 1e8) %*% rnorm(5)) + rnorm(n)
  w <- rep(1, n)
  w[7] <- 1e4
  expect_identical(check(x, y, w)$form, "primal")
  check(x, factor(y > 0), w)                       # classification
  check(x, cbind(y, -y + rnorm(n)), w)             # two response columns
  xd <- matrix(rnorm(60 * 100), 60) + 1e8          # dual: more columns than rows
  yd <- drop((xd - 1e8) %*% rnorm(100)) / 10 + rnorm(60)
  wd <- rep(1, 60)
  wd[3] <- 1e3
  expect_identical(check(xd, yd, wd)$form, "dual")
  check(xd, yd, wd, kernel = kernel_rbf(50))
})

test_that("columns on very different scales keep their directions (issue 46, item 7)", {
  # I(disp^3) reaches 1.6e8 where wt is about 3: the Gram's eigenvalues span
  # 16 decades, and its eigendecomposition rounded away every direction but
  # disp^3's (wt and cyl came out as 1e-15, with only a warning about LOO
  # values); the Cholesky factor of the Gram with unit diagonal keeps them
  form <- mpg ~ I(disp^3) + wt + factor(cyl)
  ols <- lm(form, mtcars)
  x <- model.matrix(form, mtcars)[, -1]
  lam <- c(10, 0.1, 0.001, 0)
  # the penalized slopes of an independent solve: least squares on the
  # centered x stacked over sqrt(lambda) I
  ridge <- function(l) {
    xc <- sweep(x, 2L, colMeans(x))
    qr.coef(qr(rbind(xc, sqrt(l) * diag(ncol(x)))), c(mtcars$mpg - mean(mtcars$mpg), numeric(ncol(x))))
  }
  press <- mtcars$mpg - residuals(ols) / (1 - hatvalues(ols))
  fits <- list(formula = rlsc(form, mtcars, lambda = lam),
               memory = rlsc(x, mtcars$mpg, lambda = lam),
               chunks = rlsc(chunk_matrix(x, mtcars$mpg, chunk_rows = 10), lambda = lam))
  for (fit in fits) {
    expect_equal(coef(fit, lambda = 0), coef(ols), tolerance = 1e-6, ignore_attr = TRUE)
    expect_equal(unname(coef(fit, lambda = 0.001)[-1]), unname(ridge(0.001)), tolerance = 1e-6)
    expect_equal(unname(loo_predict(fit, 0)), unname(press), tolerance = 1e-6)
  }
  # no warning: the values are accurate
  expect_no_warning(rlsc(form, mtcars, lambda = lam))
})
