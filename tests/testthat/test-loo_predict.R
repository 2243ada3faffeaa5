test_that("loo_predict() returns a vector or a named matrix and accepts selection strings", {
  x <- as.matrix(mtcars[, -1])
  fit <- rlsc(x, mtcars$mpg)
  loo <- loo_predict(fit)
  expect_named(loo, rownames(mtcars))
  expect_identical(loo, loo_predict(fit, "lambda_min"))
  expect_equal(mean((mtcars$mpg - loo)^2), fit$cvm[fit$index_min], tolerance = 1e-12)
  expect_equal(mean((mtcars$mpg - loo_predict(fit, "lambda_1se"))^2),
               fit$cvm[fit$index_1se], tolerance = 1e-12)
  ym <- cbind(mpg = mtcars$mpg, qsec = mtcars$qsec)
  fitm <- rlsc(x[, -6], ym)
  expect_identical(colnames(loo_predict(fitm)), c("mpg", "qsec"))
})

test_that("loo_predict() rejects negative lambdas and unknown arguments", {
  fit <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(3, 2, 1))
  expect_error(loo_predict(fit, -2.5), "`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\", not -2.5")
  expect_error(loo_predict(fit, 2, 3), "unknown argument\\(s\\): an unnamed argument")
})
