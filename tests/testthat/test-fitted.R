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
