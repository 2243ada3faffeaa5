test_that("coef() equals solve() on the penalized normal equations", {
  d <- make_data(40, 5, seed = 21)
  w <- rep(c(0.5, 2), 20)
  for (mode in c("primal", "dual")) {
    fit <- rlsc(d$x, d$y, weights = w, mode = mode)
    for (l in fit$lambda[c(5, 50, 95)]) {
      expect_equal(unname(coef(fit, l)), drop(ref_coef(d$x, d$y, w, l)), tolerance = 1e-9)
    }
    fit0 <- rlsc(d$x, d$y, weights = w, mode = mode, intercept = FALSE)
    l <- fit0$lambda[40]
    expect_equal(unname(coef(fit0, l)),
                 c(0, drop(ref_coef(d$x, d$y, w, l, intercept = FALSE))), tolerance = 1e-9)
  }
})

test_that("coef() is named, accepts the selection strings, and is a matrix for several columns", {
  fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
  expect_named(coef(fit), c("(Intercept)", names(mtcars)[-1]))
  expect_identical(coef(fit), coef(fit, "lambda_min"))
  expect_identical(coef(fit, fit$lambda_1se), coef(fit, "lambda_1se"))
  fit3 <- rlsc(iris[, 1:4], iris$Species)
  cf <- coef(fit3)
  expect_identical(dim(cf), c(5L, 3L))
  expect_identical(colnames(cf), levels(iris$Species))
  ref <- ref_coef(as.matrix(iris[, 1:4]), ref_code(iris$Species), lambda = fit3$lambda_min)
  expect_equal(unname(cf), unname(ref), tolerance = 1e-9)
})

test_that("coef() rejects a lambda that is not on the grid", {
  fit <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(10, 1))
  expect_error(coef(fit, 2), "`lambda` = 2 is not on the fitted grid")
  expect_error(coef(fit, c(10, 1)), "`lambda` must be a single value")
  expect_error(coef(fit, NA), "`lambda` must be a single value")
  expect_error(coef(fit, "best"), "`lambda` must be a single value")
  expect_error(coef(fit, 10, extra = 1), "unknown argument\\(s\\): extra")
})
