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
  expect_error(coef(fit, c(10, -1)), "`lambda` must be a single number >= 0.*not -1")
  expect_error(coef(fit, list(10, 1)), "`lambda` must be numbers >= 0, .*not an object of class 'list' of length 2")
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

test_that("coef() and predict() take a vector of lambdas: a column per value, exact", {
  d <- make_data(30, 4, seed = 221)
  w <- runif(30, 0.5, 2)
  fit <- rlsc_short(d$x, d$y, weights = w, lambda = c(30, 3, 0.3))
  lams <- c(0.05, 3, 17.5)
  cf <- coef(fit, lams)
  expect_identical(dim(cf), c(5L, 3L))
  expect_identical(colnames(cf), c("0.05", "3", "17.5"))   # each value formatted alone
  for (k in 1:3) {
    expect_equal(unname(cf[, k]), drop(ref_coef(d$x, d$y, w, lams[k])), tolerance = 1e-9)
  }
  expect_identical(coef(fit, s = lams), cf)
  expect_identical(coef(fit, s = 3), coef(fit, 3))
  expect_identical(coef(fit, c("lambda_min", "lambda.1se")),
                   cbind(lambda_min = coef(fit), lambda.1se = coef(fit, "lambda_1se")))
  newx <- d$x[1:5, ] + 1
  p <- predict(fit, newx, lams)
  expect_identical(dim(p), c(5L, 3L))
  for (k in 1:3) {
    expect_equal(unname(p[, k]), drop(ref_predict(ref_coef(d$x, d$y, w, lams[k]), newx)), tolerance = 1e-9)
  }
  expect_identical(predict(fit, newx, s = lams), p)
  se <- predict(fit, newx, s = lams, se.fit = TRUE)
  expect_identical(se$fit, p)
  expect_equal(se$se.fit[, 2], predict(fit, newx, lambda = 3, se.fit = TRUE)$se.fit)
  expect_length(se$df, 3)
  # several response columns (classes): an array, the lambdas last
  cl <- rlsc_short(iris[, 1:4], iris$Species, lambda = c(10, 1, 0.1))
  arr <- coef(cl, c(1, 5))
  expect_identical(dim(arr), c(5L, 3L, 2L))
  expect_equal(arr[, , "5"], coef(cl, 5))
  pr <- predict(cl, as.matrix(iris[c(1, 51, 101), 1:4]), s = c(1, 5))
  expect_identical(dim(pr), c(3L, 3L, 2L))
  expect_equal(unname(pr[, , 1]), unname(ref_predict(ref_coef(as.matrix(iris[, 1:4]), ref_code(iris$Species),
                                                              lambda = 1), as.matrix(iris[c(1, 51, 101), 1:4]))),
               tolerance = 1e-9)
  lab <- predict(cl, iris[c(1, 51, 101), 1:4], s = c(1, 5), type = "class")
  expect_s3_class(lab, "data.frame")
  expect_identical(names(lab), c("1", "5"))
  expect_identical(lab[[1]], unname(predict(cl, iris[c(1, 51, 101), 1:4], s = 1, type = "class")))
  # a kernel fit serves the values of its grid
  s <- sine_data(30, 222)
  kf <- rlsc_short(s$x, s$y, kernel = kernel_rbf(1), lambda = c(1, 0.1, 0.01))
  expect_identical(dim(coef(kf, kf$lambda[1:2])), c(31L, 2L))
  expect_error(coef(kf, c(1, 0.5)), "`lambda` = 0.5 is not on the grid")
})

test_that("the values of `lambda` name their columns each alone, so cf[, \"1\"] finds one (issue 47)", {
  d <- make_data(30, 3, ntarget = 2, seed = 47)
  fit <- rlsc_short(d$x, d$y[, 1])
  cf <- coef(fit, s = c(10, 1, 100))
  expect_identical(colnames(cf), c("10", "1", "100"))
  expect_equal(unname(cf[, "1"]), drop(ref_coef(d$x, d$y[, 1], lambda = 1)), tolerance = 1e-9)
  p <- predict(fit, d$x[1:4, ], s = c(10, 1, 100))
  expect_identical(colnames(p), c("10", "1", "100"))
  expect_equal(unname(p[, "100"]), drop(ref_predict(ref_coef(d$x, d$y[, 1], lambda = 100), d$x[1:4, ])),
               tolerance = 1e-9)
  both <- rlsc_short(d$x, d$y)   # two response columns: the lambdas name the last dimension
  expect_identical(dimnames(coef(both, c(0.5, 25)))[[3L]], c("0.5", "25"))
  # values alike to 7 digits are named with 15
  expect_identical(colnames(coef(fit, c(1, 1 + 1e-9))), c("1", "1.000000001"))
})

test_that("`s` means lambda, as in glmnet, and never se.fit", {
  fit <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(100, 10, 1))
  x <- as.matrix(mtcars[1:3, -1])
  expect_identical(predict(fit, x, s = 1), predict(fit, x, lambda = 1))
  expect_false(is.list(predict(fit, x, s = 1)))
  expect_identical(predict(fit, x, s = "lambda.min"), predict(fit, x))
  expect_error(predict(fit, x, lambda = 1, s = 2),
               "`s` is glmnet's name for `lambda`: give one of them, not both")
  expect_error(coef(fit, lambda = 1, s = 2), "give one of them, not both")
  expect_identical(names(predict(fit, x, se = TRUE)), c("fit", "se.fit", "df", "residual.scale"))
})

test_that("several lambdas of a linear dual fit give the values of one lambda at a time", {
  set.seed(71)
  x <- matrix(rnorm(20 * 60), 20) + 1e4   # wide: the dual form; a common offset x must be moved by
  y <- x[, 1] - 1e4 + rnorm(20)
  fit <- rlsc_short(x, y, lambda = c(10, 1, 0.1))
  expect_identical(fit$form, "dual")
  lams <- c(10, 2, 0.1)
  newx <- x[1:4, ] + 0.5
  cf <- coef(fit, s = lams)
  p <- predict(fit, newx, s = lams)
  for (k in seq_along(lams)) {
    expect_equal(cf[, k], coef(fit, lams[k]), tolerance = 1e-13)
    expect_equal(p[, k], predict(fit, newx, lams[k]), tolerance = 1e-13)
    # against the closed form of the centered ridge solution
    expect_equal(unname(p[, k]), drop(ref_predict(ref_coef(x - 1e4, y, rep(1, 20), lams[k]), newx - 1e4)),
                 tolerance = 1e-7)
  }
  # classes, per value: the same labels and probabilities as one value at a time
  cls <- factor(rep(c("a", "b", "c"), length.out = 20))
  cl <- rlsc_short(x, cls, lambda = c(10, 1))
  pr <- predict(cl, newx, s = c(1, 10), type = "prob")
  expect_equal(pr[, , "10"], predict(cl, newx, lambda = 10, type = "prob"), tolerance = 1e-13)
})

test_that("predict() at several lambdas gives the values of one lambda at a time", {
  d <- make_data(40, 5, seed = 72)
  newx <- d$x[1:6, ] + 0.25
  newx[2, 3] <- NA   # a row without a prediction
  cls <- factor(rep(c("a", "b", "c"), length.out = 40))
  wide <- make_data(12, 30, seed = 73)
  fits <- list(
    primal = list(rlsc_short(d$x, d$y, lambda = c(10, 1, 0.1)), newx, "response"),
    dual = list(rlsc_short(wide$x, wide$y, lambda = c(10, 1, 0.1)), wide$x[1:3, ] - 1, "response"),
    kernel = list(rlsc_short(d$x, d$y, kernel = kernel_rbf(2), lambda = c(10, 1, 0.1)), newx, "response"),
    nystrom = list(rlsc_short(d$x, d$y, kernel = nystrom(kernel_rbf(2), m = 8), lambda = c(10, 1, 0.1)),
                   newx, "response"),
    classes = list(rlsc_short(d$x, cls, lambda = c(10, 1, 0.1)), newx, "prob"),
    labels = list(rlsc_short(d$x, cls, lambda = c(10, 1, 0.1)), newx, "class"))
  lams <- c(0.1, 10, 1)
  for (k in names(fits)) {
    fit <- fits[[k]][[1]]
    nx <- fits[[k]][[2]]
    type <- fits[[k]][[3]]
    p <- predict(fit, nx, s = lams, type = type)
    one <- lapply(lams, function(l) predict(fit, nx, s = l, type = type))
    for (j in seq_along(lams)) {
      got <- if (is.data.frame(p)) p[[j]] else if (length(dim(p)) == 3L) p[, , j] else p[, j]
      expect_equal(unname(got), unname(one[[j]]), tolerance = 1e-13, info = paste(k, lams[j]))
    }
  }
  fit <- fits$primal[[1]]
  se <- predict(fit, newx, s = lams, se.fit = TRUE)
  expect_equal(se$se.fit[, 3], predict(fit, newx, s = 1, se.fit = TRUE)$se.fit, tolerance = 1e-13)
  expect_true(is.na(se$fit[2, 1]) && is.na(se$se.fit[2, 2]))
})

test_that("several lambdas of a dual fit warn as one lambda does", {
  set.seed(3)
  x <- matrix(rnorm(20 * 40), 20)
  x[, 2] <- x[, 2] * 1e6   # eigenvalues over 13 decades: a small lambda is unreliable
  y <- x[, 1] + rnorm(20)
  fit <- suppressWarnings(rlsc_short(x, y, lambda = c(1, 1e-4)))
  expect_identical(fit$form, "dual")
  expect_warning(predict(fit, x[1:2, ], s = 1e-4), "comparable scales \\(`standardize = TRUE`\\)")
  expect_silent(predict(fit, x[1:2, ], s = 1e6))
  expect_warning(predict(fit, x[1:2, ], s = c(1e6, 1e-4)), "comparable scales \\(`standardize = TRUE`\\)")
})
