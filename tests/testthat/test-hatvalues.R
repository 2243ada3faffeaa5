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

test_that("the effective degrees of freedom are sum_k Lambda_k / (Lambda_k + lambda), named as lambda", {
  values <- c(50, 3, 0.2)
  lambda <- c(a = 10, b = 1, c = 0)
  ref <- vapply(lambda, function(l) sum(values / (values + l)), 0)
  expect_equal(rlsc:::effective_df(values, lambda), ref, tolerance = 1e-15)
  expect_identical(names(rlsc:::effective_df(values, lambda)), c("a", "b", "c"))
  expect_null(names(rlsc:::effective_df(values, unname(lambda))))
  expect_identical(rlsc:::effective_df(numeric(), c(1, 0)), c(0, 0))   # no directions kept
  expect_identical(rlsc:::effective_df(values, numeric()), numeric())
  expect_equal(rlsc:::effective_df(c(4L, 1L), 1L), 4 / 5 + 1 / 2, tolerance = 1e-15)   # integers become doubles
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
