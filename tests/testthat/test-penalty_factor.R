# penalty_factor: lambda sum_j p_j beta_j^2, zeros unpenalized like the intercept.

test_that("LOO, coefficients and leverages equal refits of the bordered normal equations", {
  d <- make_data(40, 5, ntarget = 2, seed = 321)
  w <- runif(40, 0.2, 2)
  w[7] <- 0
  pf <- c(0, 1, 2.5, 0, 0.3)
  for (icpt in c(TRUE, FALSE)) {
    fit <- rlsc_short(d$x, d$y, weights = w, penalty_factor = pf, lambda = c(10, 1, 0.1),
                      intercept = icpt)
    for (l in c(10, 1, 0.1, 3)) {
      ref <- ref_coef_pf(d$x, d$y, w, l, pf, icpt)
      if (!icpt) ref <- rbind(0, ref)
      expect_equal(unname(coef(fit, l)), unname(ref), tolerance = 1e-9)
      expect_equal(unname(loo_predict(fit, l)), ref_loo_pf(d$x, d$y, w, l, pf, icpt), tolerance = 1e-9)
      x1 <- if (icpt) cbind(1, d$x) else d$x
      h <- rowSums((x1 %*% solve(crossprod(x1, w * x1) + l * diag(c(if (icpt) 0, pf)))) * x1) * w
      expect_equal(unname(hatvalues(fit, l)), h, tolerance = 1e-9)
    }
    # the two unpenalized columns count in df, as the fit keeps them at any lambda
    values <- fit$engine$values
    expect_equal(fit$df, 2 + vapply(fit$lambda, function(l) sum(values / (values + l)), 1))
  }
  # positive factors only: also in the dual form (a rescaling of the columns)
  wide <- make_data(12, 20, seed = 322)
  pf2 <- rep(c(0.5, 2), 10)
  fitw <- rlsc_short(wide$x, wide$y, penalty_factor = pf2, lambda = c(5, 0.5))
  expect_identical(fitw$form, "dual")
  expect_equal(unname(coef(fitw, 0.5)), drop(ref_coef_pf(wide$x, wide$y, rep(1, 12), 0.5, pf2)), tolerance = 1e-8)
  expect_equal(unname(loo_predict(fitw, 0.5)), drop(ref_loo_pf(wide$x, wide$y, rep(1, 12), 0.5, pf2)),
               tolerance = 1e-8)
})

test_that("all columns unpenalized is least squares: LOO values are lm()'s PRESS", {
  fit <- rlsc_short(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg, penalty_factor = c(0, 0))
  m <- lm(mpg ~ wt + hp, data = mtcars)
  expect_equal(unname(mtcars$mpg - loo_predict(fit, 1)), unname(residuals(m) / (1 - hatvalues(m))),
               tolerance = 1e-9)
  expect_equal(unname(coef(fit, 5)), unname(coef(m)), tolerance = 1e-9)
})

test_that("K-fold and chunked fits with penalty factors equal their references", {
  d <- make_data(48, 4, seed = 323)
  pf <- c(0, 1, 3, 1)
  folds <- rep(1:4, 12)
  fit <- rlsc_short(d$x, d$y, penalty_factor = pf, foldid = folds, lambda = c(10, 1))
  ref <- ref_kfold(d$y, rep(1, 48), folds, c(10, 1), function(train, held, l) {
    ref_predict(ref_coef_pf(d$x[train, ], d$y[train], rep(1, sum(train)), l, pf), d$x[held, , drop = FALSE])
  })
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-8)
  src <- rows_source(d$x, d$y, chunks = chunkings(48)$uneven)
  expect_same_fit(rlsc_short(src, penalty_factor = pf), rlsc_short(d$x, d$y, penalty_factor = pf))
  expect_same_fit(rlsc_short(src, penalty_factor = pf, standardize = TRUE),
                  rlsc_short(d$x, d$y, penalty_factor = pf, standardize = TRUE))
})

test_that("bad penalty factors are errors naming the argument", {
  d <- make_data(20, 3, seed = 324)
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, 1)),
               "`penalty_factor` must be a numeric vector with one value per column of `x` \\(3\\), not of length 2")
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, -1, 1)), "`penalty_factor` must be non-negative")
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, NA, 1)), "`penalty_factor` must not contain NA")
  expect_error(rlsc(d$x, d$y, penalty_factor = "a"), "not character vector")
  expect_error(rlsc(cbind(d$x, d$x[, 1]), d$y, penalty_factor = c(0, 1, 1, 0)),
               "the columns with `penalty_factor` 0 are constant or collinear")
  wide <- make_data(10, 20, seed = 325)
  expect_error(rlsc(wide$x, wide$y, penalty_factor = rep(0, 20)),
               "`penalty_factor` zeros \\(unpenalized columns\\) need the primal form.*here 10 and 20")
  expect_error(rlsc(wide$x, wide$y, penalty_factor = c(0, rep(1, 19))), "need the primal form")
  expect_error(rlsc(d$x, d$y, kernel = kernel_rbf(1), penalty_factor = c(1, 1, 1)),
               "`penalty_factor` applies to the columns of a linear model, not to a kernel fit")
})
