# standardize = TRUE: the penalty applies to columns scaled to unit weighted
# variance; references scale the columns themselves.

ref_scale <- function(x, w = rep(1, nrow(x)), intercept = TRUE) {
  m <- if (intercept) colSums(w * x) / sum(w) else 0 * x[1, ]
  sqrt(colSums(w * sweep(x, 2, m)^2) / sum(w))
}

test_that("standardize = TRUE is MASS::lm.ridge's model, coefficients in original units", {
  skip_if_not_installed("MASS")
  fit <- rlsc_short(mpg ~ ., data = mtcars, standardize = TRUE, lambda = c(20, 5, 1))
  for (l in c(20, 5, 1)) {
    expect_equal(unname(coef(fit, l)), unname(coef(MASS::lm.ridge(mpg ~ ., data = mtcars, lambda = l))),
                 tolerance = 1e-10)
  }
})

test_that("standardized LOO values equal brute-force refits on the scaled columns", {
  d <- make_data(40, 5, seed = 91)
  x <- d$x * rep(c(1, 10, 100, 0.1, 1e3), each = 40)
  w <- rep(c(1, 2, 0, 3), 10)
  for (icpt in c(TRUE, FALSE)) {
    fit <- rlsc(x, d$y, weights = w, intercept = icpt, standardize = TRUE)
    xs <- sweep(x, 2, ref_scale(x, w, icpt), "/")
    for (l in fit$lambda[c(20, 60)]) {
      expect_equal(unname(loo_predict(fit, l)), drop(ref_loo(xs, d$y, w, l, icpt)), tolerance = 1e-8)
      cf <- ref_coef(xs, d$y, w, l, icpt)
      slopes <- if (icpt) drop(cf)[-1] else drop(cf)
      expect_equal(unname(coef(fit, l)[-1]), slopes / ref_scale(x, w, icpt), tolerance = 1e-8)
      newx <- x[1:5, ] * 1.1
      expect_equal(unname(predict(fit, newx, lambda = l)),
                   drop(ref_predict(cf, sweep(newx, 2, ref_scale(x, w, icpt), "/"), icpt)),
                   tolerance = 1e-8)
    }
  }
})

test_that("standardize works in the dual form, for sparse x, and leaves constant columns alone", {
  d <- make_data(12, 30, seed = 92)
  x <- d$x * rep(c(1, 50), each = 12 * 15)
  fit <- rlsc_short(x, d$y, standardize = TRUE)
  expect_identical(fit$form, "dual")
  xs <- sweep(x, 2, ref_scale(x), "/")
  l <- fit$lambda[50]
  expect_equal(unname(loo_predict(fit, l)), drop(ref_loo(xs, d$y, lambda = l)), tolerance = 1e-8)
  skip_if_not_installed("Matrix")
  sp <- rlsc_short(Matrix::Matrix(x, sparse = TRUE), d$y, standardize = TRUE, lambda = fit$lambda)
  expect_equal(loo_predict(sp, l), loo_predict(fit, l), tolerance = 1e-8)
  expect_equal(coef(sp, l), coef(fit, l), tolerance = 1e-8)
  # a constant column adds nothing and keeps scale 1 (its rounding noise is not blown up)
  xc <- cbind(d$x[, 1:3], 0.1)
  a <- rlsc_short(xc, d$y, standardize = TRUE)
  b <- rlsc_short(d$x[, 1:3], d$y, standardize = TRUE, lambda = a$lambda)
  expect_equal(a$path, b$path, tolerance = 1e-10)
  expect_identical(unname(a$scale[4]), 1)
})

test_that("kernel fits standardize before the kernel", {
  d <- make_data(30, 3, seed = 93)
  x <- d$x * rep(c(1, 100, 0.01), each = 30)
  fit <- rlsc(x, d$y, kernel = kernel_rbf(1), standardize = TRUE)
  ref <- rlsc(sweep(x, 2, ref_scale(x), "/"), d$y, kernel = kernel_rbf(1), lambda = fit$lambda)
  expect_equal(loo_predict(fit), loo_predict(ref), tolerance = 1e-10)
  expect_equal(predict(fit, x[1:4, ]), predict(ref, sweep(x[1:4, ], 2, ref_scale(x), "/")),
               tolerance = 1e-10)
})

test_that("bad `standardize` is rejected", {
  d <- make_data(10, 2, seed = 94)
  expect_error(rlsc(d$x, d$y, standardize = NA), "`standardize` must be TRUE or FALSE")
  k <- tcrossprod(d$x)
  expect_error(rlsc(k, d$y, kernel = "precomputed", standardize = TRUE),
               "`standardize` = TRUE needs the data matrix, but `x` is a precomputed kernel")
})

test_that("the LOO of standardize = TRUE holds the full-data scales fixed, as documented", {
  x <- as.matrix(mtcars[, c("wt", "hp", "disp", "qsec")])
  y <- mtcars$mpg
  fit <- rlsc(x, y, standardize = TRUE)
  l <- fit$lambda_min
  fixed <- sweep(x, 2, ref_scale(x), "/")
  expect_equal(unname(loo_predict(fit, l)), unname(drop(ref_loo(fixed, y, lambda = l))), tolerance = 1e-8)
  # re-standardizing within each fold, as cv.glmnet does, is another (slightly different) model
  refold <- vapply(seq_len(nrow(x)), function(i) {
    s <- ref_scale(x[-i, ])
    cf <- ref_coef(sweep(x[-i, ], 2, s, "/"), y[-i], lambda = l)
    drop(ref_predict(cf, x[i, , drop = FALSE] / s))
  }, 1)
  expect_gt(max(abs(refold - loo_predict(fit, l))), 1e-6)
  expect_lt(max(abs(refold - loo_predict(fit, l))), 1)
  txt <- rd_text("rlsc")
  skip_if(is.null(txt), "no help page to read")
  expect_match(txt, "with these full-data column scales held fixed", fixed = TRUE)
  expect_match(txt, "holds for a single fit: each glmnet fold fits with its own", fixed = TRUE)
})

test_that("fit$scale is the columns' standard deviation, fit$penalty_factor the factors (issue 27)", {
  d <- make_data(40, 3, seed = 95)
  x <- d$x * rep(c(1, 5, 0.2), each = 40)
  w <- rep(c(1, 2, 0, 0.5), 10)
  pf <- c(4, 1, 0)
  fit <- rlsc_short(x, d$y, weights = w, standardize = TRUE, penalty_factor = pf, lambda = c(3, 0.3))
  s <- ref_scale(x, w)
  expect_equal(unname(fit$scale), s, tolerance = 1e-12)
  expect_identical(unname(fit$penalty_factor), pf)
  # the model: lambda sum_j p_j (s_j beta_j)^2, in the units of x
  for (l in c(3, 0.3)) {
    expect_equal(unname(coef(fit, l)), unname(drop(ref_coef_pf(x, d$y, w, l, pf * s^2))), tolerance = 1e-10)
  }
})
