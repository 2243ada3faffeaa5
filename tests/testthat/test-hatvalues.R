test_that("hatvalues() equal the diagonal of the brute-force hat matrix at any lambda", {
  for (shape in list(c(40, 5), c(15, 30))) {
    d <- make_data(shape[1], shape[2], seed = 81)
    w <- runif(shape[1], 0.2, 2)
    w[4] <- 0
    for (icpt in c(TRUE, FALSE)) {
      fit <- rlsc_short(d$x, d$y, weights = w, intercept = icpt, lambda = c(20, 2))
      for (l in c(20, 7.5, 2, 0.013)) {
        expect_equal(unname(hatvalues(fit, l)), ref_hat(d$x, w, l, icpt), tolerance = 1e-9,
                     info = paste(shape[2], icpt, l))
      }
      expect_identical(unname(hatvalues(fit)[4]), 0)
    }
  }
})

test_that("hatvalues() of kernel fits equal the brute-force kernel hat matrix", {
  d <- sine_data(25, 83)
  w <- runif(25, 0.5, 2)
  k <- ref_rbf(d$x, sigma = 0.7)
  fit <- rlsc(d$x, d$y, weights = w, kernel = kernel_rbf(0.7))
  for (i in c(1, 40, 100)) {
    l <- fit$lambda[i]
    expect_equal(unname(hatvalues(fit, l)), ref_kernel_hat(k, w, l), tolerance = 1e-8)
  }
})

test_that("the effective degrees of freedom are sum_k Lambda_k / (Lambda_k + lambda)", {
  # centered orthogonal columns: the Gram is exactly diag(50, 2, 0.5)
  x <- cbind(c(5, -5, 0, 0, 0, 0), c(0, 0, 1, -1, 0, 0), c(0, 0, 0, 0, 0.5, -0.5))
  y <- c(5.1, -4.9, 1.2, -0.8, 0.4, -0.6)
  values <- c(50, 2, 0.5)
  lambda <- c(10, 1, 0)
  ref <- vapply(lambda, function(l) sum(values / (values + l)), 0)
  fit <- rlsc(x, y, lambda = lambda)
  expect_equal(fit$df, ref, tolerance = 1e-15)
  expect_equal(fit$path$df, ref, tolerance = 1e-15)
  expect_equal(sum(hatvalues(fit, 1)), ref[2] + 1, tolerance = 1e-14)
  # no directions kept (a constant column): no degrees of freedom
  expect_identical(rlsc(cbind(rep(1, 6)), y, lambda = c(1, 0))$df, c(0, 0))
})

test_that("hatvalues() sum to the degrees of freedom plus the intercept, and pad under na.exclude", {
  fit <- rlsc_short(mpg ~ wt + hp, data = mtcars)
  expect_equal(sum(hatvalues(fit, 0)), 3, tolerance = 1e-10)
  expect_equal(sum(hatvalues(fit, fit$lambda[30])), fit$df[30] + 1, tolerance = 1e-10)
  m <- lm(mpg ~ wt + hp, data = mtcars)
  expect_equal(hatvalues(fit, 0), hatvalues(m), tolerance = 1e-10)
  df <- mtcars
  df$wt[3] <- NA
  fitx <- rlsc_short(mpg ~ wt + hp, data = df, na.action = na.exclude)
  expect_length(hatvalues(fitx), 32)
  expect_true(is.na(hatvalues(fitx)[3]))
  expect_error(hatvalues(fit, -1), "`lambda` must be a single number >= 0")
  expect_error(hatvalues(fit, 1, 2), "unknown argument")
})
