# The default grid, against brute-force refits on wider grids: on classic data
# sets the LOO minimum lies inside the default grid (or at lambda = 0, least
# squares, which closes it), and no warning says otherwise.

# Brute-force LOO mean squared error of the ridge fit of y on x at each lambda.
ref_cv_mse <- function(x, y, lambda) {
  vapply(lambda, function(l) ref_mse(y, ref_loo(x, y, lambda = l))[1], 1)
}

classic_fits <- function() {
  skip_if_not_installed("MASS")
  boston <- MASS::Boston
  list(
    `mpg ~ wt` = list(formula = mpg ~ wt, data = mtcars),
    cars = list(formula = dist ~ speed, data = cars),
    women = list(formula = weight ~ height, data = women),
    trees = list(formula = Volume ~ Girth + Height, data = trees),
    Boston = list(formula = medv ~ ., data = boston))
}

test_that("on classic data sets the default grid holds the LOO minimum, without an edge warning", {
  for (nm in names(classic_fits())) {
    case <- classic_fits()[[nm]]
    expect_no_warning(fit <- rlsc(case$formula, data = case$data))
    x <- model.matrix(case$formula, case$data)[, -1, drop = FALSE]
    y <- model.response(model.frame(case$formula, case$data))
    m <- lm(case$formula, data = case$data)
    # the grid: from df about 0.1 to within 1e-3 of the rank (or ten decades),
    # then least squares
    n <- length(fit$lambda)
    expect_identical(n, 100L)
    expect_identical(fit$lambda[n], 0)
    expect_lt(fit$df[1], 0.1)
    expect_true(fit$df[n - 1L] > ncol(x) - 1e-3 || fit$lambda[n - 1L] < 1.001e-10 * fit$lambda[1],
                label = nm)
    expect_equal(coef(fit, 0), coef(m), tolerance = 1e-8)
    expect_equal(fit$path$mse[n], mean((residuals(m) / (1 - hatvalues(m)))^2), tolerance = 1e-8)
    # lambda_min is inside the grid or least squares, and no lambda of a grid
    # ten decades wider on each side does better (brute-force refits)
    expect_true(fit$index_min > 1L, label = nm)
    pos <- fit$lambda[fit$lambda > 0]
    wide <- c(max(pos) * 10^c(10, 5, 1), exp(seq(log(max(pos)), log(min(pos)), length.out = 9)),
              min(pos) * 10^-c(1, 5, 10), 0)
    if (nm == "Boston") wide <- wide[c(1, 3, 7:13, 16)]   # fewer refits of 506 rows
    ref <- ref_cv_mse(x, y, wide)
    expect_lte(fit$cvm[fit$index_min], min(ref) * (1 + 1e-8))
    expect_equal(fit$cvm[fit$index_min], ref_cv_mse(x, y, fit$lambda_min), tolerance = 1e-8)
  }
})

test_that("mpg ~ wt: lambda_min no longer at the edge of a grid that stopped at df = 0.91", {
  fit <- rlsc(mpg ~ wt, data = mtcars)
  l <- fit$lambda_min
  expect_gt(l, 0)
  expect_gt(fit$df[fit$index_min], 0.909)
  # a local minimum of the exact criterion, by brute force on both sides
  ref <- ref_cv_mse(as.matrix(mtcars["wt"]), mtcars$mpg, l * c(0.8, 1, 1.25))
  expect_lt(ref[2], ref[1])
  expect_lt(ref[2], ref[3])
})

test_that("the default grid leaves out lambda = 0 where least squares has no LOO value", {
  set.seed(3)
  # more columns than rows: least squares interpolates
  x <- matrix(rnorm(20 * 30), 20)
  y <- drop(x %*% rnorm(30)) + rnorm(20)
  fit <- rlsc(x, y)
  expect_gt(min(fit$lambda), 0)
  expect_length(fit$lambda, 100)
  # one observation alone in its factor level has leverage 1 at lambda = 0
  df <- data.frame(y = mtcars$mpg, wt = mtcars$wt, g = factor(c("a", rep(c("b", "c"), length.out = 31))))
  expect_no_warning(fg <- rlsc(y ~ wt + g, data = df))
  expect_gt(min(fg$lambda), 0)
  expect_length(fg$lambda, 100)
  # nlambda = 1 is the largest value only
  expect_length(rlsc_short(mpg ~ wt, data = mtcars, nlambda = 1)$lambda, 1)
})

test_that("the edge warning fires only where the criterion keeps decreasing beyond the grid", {
  d <- make_data(40, 3, seed = 13)
  fit <- rlsc(d$x, d$y)
  l <- fit$lambda_min
  expect_true(fit$index_min > 1 && fit$index_min < 100)
  # lambda_min at an end of a user grid, but the criterion rises beyond it: no warning
  expect_no_warning(small <- rlsc(d$x, d$y, lambda = c(100, 10, 1) * l))
  expect_identical(small$index_min, 3L)
  expect_no_warning(large <- rlsc(d$x, d$y, lambda = c(1, 0.1, 0.01) * l))
  expect_identical(large$index_min, 1L)
  # ... and where it decreases, the warning says where to, checked by brute force
  w <- NULL
  withCallingHandlers(rlsc(d$x, d$y, lambda = c(1e3, 1e2) * l),
                      warning = function(c) {
                        w <<- conditionMessage(c)
                        invokeRestart("muffleWarning")
                      })
  expect_match(w,
               paste0("^`lambda_min` is the smallest value of the `lambda` ",
                      "grid, and the criterion keeps decreasing beyond it: "))
  got <- regmatches(w, regexec("decreasing beyond it: ([0-9.e+-]+) at lambda = ([0-9.e+-]+) against ([0-9.e+-]+)",
                               w))[[1]]
  ref <- ref_cv_mse(d$x, d$y, as.numeric(got[3]))
  expect_equal(as.numeric(got[2]), ref, tolerance = 1e-3)
  expect_equal(as.numeric(got[4]), ref_cv_mse(d$x, d$y, 1e2 * l), tolerance = 1e-3)
  expect_lt(ref, ref_cv_mse(d$x, d$y, 1e2 * l))
  set.seed(99)
  expect_warning(rlsc(d$x, rnorm(40), lambda = c(1e3, 1e-3)),
                 "largest value of the `lambda` grid, and the criterion keeps decreasing beyond it")
  # a user grid ending at lambda = 0 has nothing beyond it
  expect_no_warning(f0 <- rlsc(mpg ~ wt + hp, data = mtcars, lambda = c(1e3, 0)))
  expect_identical(f0$lambda_min, 0)
})

test_that("kernel fits warn at an end of the grid only where the criterion keeps decreasing", {
  s <- sine_data(60, seed = 5)
  fit <- rlsc(s$x, s$y, kernel = kernel_rbf(1))
  l <- fit$lambda_min
  expect_true(fit$index_min > 1 && fit$index_min < 100)
  expect_no_warning(rlsc(s$x, s$y, kernel = kernel_rbf(1), lambda = c(100, 1) * l))
  expect_no_warning(rlsc(s$x, s$y, kernel = kernel_rbf(1), lambda = c(1, 0.01) * l))
  expect_warning(rlsc(s$x, s$y, kernel = kernel_rbf(1), lambda = c(1e4, 1e3) * l),
                 "smallest value of the `lambda` grid, and the criterion keeps decreasing")
})

test_that("the default grid stops where the LOO values stay reliable: a default fit never warns about its grid", {
  set.seed(1)
  x <- matrix(runif(200), ncol = 1)
  y <- sin(6 * x[, 1]) + rnorm(200, sd = 0.2)
  for (s in c(0.1, 0.5)) {   # kernels whose small eigenvalues are dropped as rounding
    expect_no_warning(fit <- rlsc(x, y, kernel = kernel_rbf(s)))
    eng <- rlsc(x, y, kernel = kernel_rbf(s), keep_eigen = TRUE)$engine
    expect_gt(eng$dropped, 0)
    expect_gte(min(fit$lambda), 1e6 * eng$dropped)
  }
})

test_that("lambda_min among values equal to rounding is the largest lambda, in every path", {
  # two points: leaving one out leaves the other, whose y is the LOO value at
  # every lambda (LOO error 9 everywhere, apart by 1e-11 of rounding)
  x <- matrix(c(1, 3, 2, 5), 2)
  ref <- vapply(1:2, function(i) c(4, 1)[i], 1)   # the other point's y
  expect_equal(unname(loo_predict(rlsc(x, c(1, 4), lambda = 1), 1)), ref)
  fit <- rlsc(x, c(1, 4))
  expect_equal(fit$path$mse, rep(9, 100), tolerance = 1e-9)
  # (the exact minimum picked index 98, by differences of 1e-11)
  expect_identical(fit$index_min, 1L)
  expect_identical(fit$lambda_min, fit$lambda[1])
  expect_identical(fit$lambda_1se, fit$lambda[1])
  # one lambda per response column by the same rule
  two <- rlsc(x, cbind(a = c(1, 4), b = c(2, -1)), per_response = TRUE)
  expect_identical(unname(two$index_min), c(1L, 1L))
})

test_that("a single lambda needs no criterion: lm()'s fit with a row of leverage 1", {
  d <- data.frame(y = c(1.2, 2.3, 2.9, 4.1, 5.2, 5.8, 7.1), x = 1:7,
                  g = factor(c("a", "a", "b", "b", "a", "b", "c")))
  m <- lm(y ~ x + g, d)
  # (an error: "the leave-one-out criterion is undefined (NA) at every value of `lambda`")
  expect_warning(fit <- rlsc(y ~ x + g, d, lambda = 0),
                 "undefined \\(NA\\) for up to 1 point\\(s\\) at 1 value\\(s\\) of `lambda`")
  expect_identical(fit$lambda_min, 0)
  expect_equal(unname(coef(fit)), unname(coef(m)), tolerance = 1e-10)
  expect_equal(unname(fitted(fit)), unname(fitted(m)), tolerance = 1e-10)
  press <- residuals(m) / (1 - hatvalues(m))
  loo <- suppressWarnings(loo_predict(fit))
  expect_true(is.na(loo[7]))
  expect_equal(unname(d$y - loo)[-7], unname(press)[-7], tolerance = 1e-8)
  expect_true(is.na(fit$path$mse))
  expect_output(print(fit), "lambda_min +0 +3 +NA")
  # a grid whose criterion is undefined everywhere leaves nothing to choose by
  expect_error(suppressWarnings(rlsc(y ~ x + g, d, lambda = c(1e-9, 0))),
               paste0("^the leave-one-out criterion is undefined \\(NA\\) at every value of `lambda`, ",
                      "so none can be chosen; use larger values of `lambda`, or a single value"))
})
