with_null_device <- function(code) {
  pdf(NULL)
  on.exit(dev.off())
  code
}

test_that("plot() draws the criterion and the coefficient paths, returning invisibly", {
  fit <- rlsc(mpg ~ ., data = mtcars)
  with_null_device({
    res <- withVisible(plot(fit, main = "mtcars"))
    expect_false(res$visible)
    expect_identical(res$value, fit)
    expect_invisible(plot(fit, type = "coef", col = 1:10))
    cl <- rlsc(Species ~ ., data = iris)
    expect_invisible(plot(cl, type = "coef", response = "virginica"))
    expect_error(plot(cl, type = "coef", response = "rose"),
                 "`response` must be one of setosa, versicolor, virginica")
  })
  expect_error(plot(fit, type = "pie"), "'arg' should be one of")
})

test_that("the coefficient paths equal coef() at every lambda", {
  fit <- rlsc(Species ~ ., data = iris, nlambda = 10)
  path <- getFromNamespace("coef_path", "rlsc")(fit)
  for (i in c(1, 5, 10)) {
    expect_equal(path[, i, ], coef(fit, fit$lambda[i])[-1, ])
  }
})

test_that("autoplot() builds a ggplot", {
  skip_if_not_installed("ggplot2")
  p <- ggplot2::autoplot(rlsc(mpg ~ ., data = mtcars))
  expect_s3_class(p, "ggplot")
  expect_identical(p$labels$y, "mean squared LOO error")
})

test_that("plot(type = \"coef\") draws one column and says when there is none", {
  set.seed(1)
  x <- rnorm(30)
  fit <- rlsc_short(x, 2 * x + rnorm(30))
  with_null_device({
    expect_invisible(plot(fit, type = "coef"))
    expect_error(plot(rlsc(mpg ~ 1, data = mtcars), type = "coef"),
                 "nothing to plot: the fit has no coefficients besides the intercept")
  })
})
