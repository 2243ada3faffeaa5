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

test_that("coef() rejects a lambda that is not a single number >= 0 or a name", {
  fit <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(10, 1))
  expect_error(coef(fit, -2), "`lambda` must be a single number >= 0")
  expect_error(coef(fit, c(10, 1)), "`lambda` must be a single number >= 0")
  expect_error(coef(fit, NA), "`lambda` must be a single number >= 0")
  expect_error(coef(fit, "best"), "`lambda` must be a single number >= 0")
  expect_error(coef(fit, 10, extra = 1), "unknown argument\\(s\\): extra")
})

test_that("coef(), predict(), loo_predict() and fitted() take any lambda, exactly", {
  for (shape in list(c(40, 5), c(15, 30))) {
    d <- make_data(shape[1], shape[2], seed = 91)
    w <- runif(shape[1], 0.2, 2)
    w[2] <- 0
    fit <- rlsc_short(d$x, d$y, weights = w, lambda = c(30, 3, 0.3))
    grid_between <- sqrt(3 * 0.3)
    for (l in c(0.037, grid_between, 4.5, 1000)) {
      ref <- ref_coef(d$x, d$y, w, l)
      expect_equal(unname(coef(fit, l)), drop(ref), tolerance = 1e-8, info = paste(shape, l))
      newx <- d$x[1:4, ] + 0.5
      expect_equal(unname(predict(fit, newx, lambda = l)), drop(ref_predict(ref, newx)), tolerance = 1e-8)
      expect_equal(unname(fitted(fit, l)), drop(ref_predict(ref, d$x)), tolerance = 1e-8)
      expect_equal(unname(loo_predict(fit, l)), drop(ref_loo(d$x, d$y, w, l)), tolerance = 1e-8)
    }
    # lambda = 0 off the grid: least squares (n > d) or the minimum-norm fit
    if (shape[1] > shape[2]) {
      expect_equal(unname(coef(fit, 0)), unname(coef(lm(d$y ~ d$x, weights = w))), tolerance = 1e-8)
    }
  }
})

test_that("classification coefficients at any lambda equal the reference on the -1/+1 coding", {
  fit <- rlsc_short(iris[, 1:4], iris$Species, lambda = c(10, 1))
  for (l in c(0.5, 3, 50)) {
    ref <- ref_coef(as.matrix(iris[, 1:4]), ref_code(iris$Species), lambda = l)
    expect_equal(unname(coef(fit, l)), unname(ref), tolerance = 1e-9)
    expect_equal(unname(loo_predict(fit, l)),
                 unname(ref_loo(as.matrix(iris[, 1:4]), ref_code(iris$Species), lambda = l)),
                 tolerance = 1e-8)
  }
})

test_that("a lambda within 1e-10 of a grid value is that grid value; glmnet's names work", {
  fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
  l <- fit$lambda[37]
  expect_identical(coef(fit, l * (1 + 1e-12)), coef(fit, l))
  expect_identical(coef(fit, "lambda.min"), coef(fit, "lambda_min"))
  expect_identical(coef(fit, "lambda.1se"), coef(fit, fit$lambda_1se))
  expect_identical(loo_predict(fit, "lambda.1se"), loo_predict(fit, "lambda_1se"))
  # the value print() shows is served exactly, not rejected
  shown <- signif(fit$lambda_min, 4)
  expect_equal(unname(coef(fit, shown)),
               unname(drop(ref_coef(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = shown))), tolerance = 1e-8)
})
