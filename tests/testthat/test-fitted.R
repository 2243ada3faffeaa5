test_that("fitted() and residuals() equal the reference fit", {
  d <- make_data(30, 4, seed = 61)
  fit <- rlsc(d$x, d$y)
  l <- fit$lambda[40]
  ref <- drop(ref_predict(ref_coef(d$x, d$y, lambda = l), d$x))
  expect_equal(unname(fitted(fit, l)), ref, tolerance = 1e-9)
  expect_equal(unname(residuals(fit, l)), d$y - ref, tolerance = 1e-9)
  expect_equal(fitted(fit, l), predict(fit, d$x, lambda = l), tolerance = 1e-10)
  # any lambda, not only the grid's
  ref0 <- drop(ref_predict(ref_coef(d$x, d$y, lambda = 1e-99), d$x))
  expect_equal(unname(fitted(fit, 1e-99)), ref0, tolerance = 1e-9)
})

test_that("classification residuals are on the -1/+1 coding", {
  fit <- rlsc(Species ~ ., data = iris)
  expect_equal(residuals(fit), ref_code(iris$Species) - fitted(fit), ignore_attr = TRUE)
})

test_that("residuals() keep the row names, also for classification", {
  fit <- rlsc(Species ~ ., data = iris[c(1:10, 51:60, 101:110), ])
  expect_identical(rownames(residuals(fit)), rownames(fitted(fit)))
  expect_identical(rownames(residuals(fit))[1:2], c("1", "2"))
})

test_that("the methods of a per-response fit give each response column its own lambda's values", {
  d <- make_data(60, 5, ntarget = 8, seed = 73)
  d$y <- d$y * rep(c(1, 20), each = 4 * 60)   # signal and noise: distinct lambdas
  colnames(d$y) <- paste0("t", 1:8)
  fit <- rlsc_short(d$x, d$y, per_response = TRUE, lambda = 10^seq(-2, 3, length.out = 12))
  expect_gt(length(unique(fit$lambda_min)), 1L)
  # every column, whichever lambda it shares with others, equals the values of
  # its own lambda_min asked for alone (the speed of one path per distinct
  # lambda over its own columns is bench/'s to measure)
  fits <- fitted(fit)
  loo <- loo_predict(fit)
  hat <- hatvalues(fit)
  newx <- d$x[1:3, ]
  se <- predict(fit, newx, se.fit = TRUE)
  for (j in seq_len(8)) {
    l <- fit$lambda_min[[j]]
    expect_equal(fits[, j], fitted(fit, l)[, j], tolerance = 1e-12, info = j)
    expect_equal(loo[, j], loo_predict(fit, l)[, j], tolerance = 1e-12, info = j)
    expect_equal(hat[, j], hatvalues(fit, l), tolerance = 1e-12, ignore_attr = TRUE, info = j)
    at <- predict(fit, newx, lambda = l, se.fit = TRUE)
    expect_equal(se$fit[, j], at$fit[, j], tolerance = 1e-12, info = j)
    expect_equal(se$se.fit[, j], at$se.fit[, j], tolerance = 1e-12, info = j)
  }
})
