# Hostile input to rlsc() (matrix interface), loo_predict(), predict(), coef()
# and plot(): every case asserts its exact outcome, an error message, a warning,
# or a result checked against brute-force refits.

d <- make_data(20, 3, seed = 41)

# The LOO of a fit on a user grid against brute force at every grid value.
expect_loo_ref <- function(fit, x, y, w = rep(1, nrow(x)), intercept = TRUE, tol = 1e-8) {
  for (l in fit$lambda) {
    expect_equal(unname(as.matrix(suppressWarnings(loo_predict(fit, l)))),
                 unname(ref_loo(x, y, w, l, intercept)), tolerance = tol)
  }
}

test_that("NA, NaN and Inf in `x` are rejected, in matrices and data frames", {
  for (bad in c(NA, NaN, Inf, -Inf)) {
    x <- d$x
    x[2, 2] <- bad
    expect_error(rlsc(x, d$y), "^`x` must not contain NA, NaN or Inf values$")
    df <- as.data.frame(x)
    expect_error(rlsc(df, d$y), "^`x` must not contain NA, NaN or Inf values$")
  }
  xi <- matrix(1:60, 20)
  xi[1, 1] <- NA_integer_
  expect_error(rlsc(xi, d$y), "`x` must not contain NA, NaN or Inf values")
})

test_that("`x` of the wrong type is rejected with what it was", {
  expect_error(rlsc(list(1, 2), 1:2), "`x` must be a numeric matrix or data frame, not an object of class 'list'")
  expect_error(rlsc(matrix("a", 3, 2), 1:3), "`x` must be a numeric matrix or data frame, not character matrix")
  expect_error(rlsc(matrix(1i, 3, 1), 1:3), "`x` must be a numeric matrix or data frame, not complex matrix")
  expect_error(rlsc(letters[1:20], d$y), "`x` must be a numeric matrix or data frame, not character vector")
  expect_error(rlsc(factor(1:20), d$y), "`x` must be a numeric matrix or data frame, not a factor")
  expect_error(rlsc(NULL, d$y), "`x` must be a numeric matrix or data frame, not NULL")
  expect_error(rlsc(array(d$x, c(20, 3, 1)), d$y),
               "`x` must be a numeric matrix or data frame, not an object of class 'array'")
  expect_error(rlsc(data.frame(a = 1:3, b = letters[1:3]), 1:3),
               paste0("`x` must have numeric columns only; column 'b' is character ",
                      "vector \\(use the formula interface for factors\\)"))
  expect_error(rlsc(data.frame(a = 1:3, f = factor(1:3)), 1:3), "column 'f' is a factor")
  expect_error(rlsc(data.frame(a = I(as.list(1:20))), d$y), "column 'a' is an object of class 'AsIs'")
})

test_that("integer and logical `x` are coerced and agree with brute force", {
  xi <- matrix(as.integer(round(d$x * 10)), 20)
  fit <- rlsc_short(xi, d$y, lambda = c(30, 3, 0.3))
  expect_identical(fit$path, rlsc_short(xi * 1, d$y, lambda = c(30, 3, 0.3))$path)
  expect_loo_ref(fit, xi * 1, d$y)
  xl <- d$x > 2
  fit <- rlsc_short(xl, d$y, lambda = c(10, 1, 0.1))
  expect_loo_ref(fit, xl * 1, d$y)
  # a logical vector is one column, like a numeric vector
  fit <- rlsc_short(xl[, 1], d$y, lambda = c(10, 1))
  expect_identical(fit$nvars, 1L)
  expect_loo_ref(fit, xl[, 1, drop = FALSE] * 1, d$y)
  # a data frame of integer and logical columns
  df <- data.frame(a = xi[, 1], b = xl[, 2], c = d$x[, 3])
  fit <- rlsc_short(df, d$y, lambda = c(10, 1))
  expect_identical(fit$xnames, c("a", "b", "c"))
  expect_loo_ref(fit, cbind(xi[, 1], xl[, 2], d$x[, 3]), d$y)
})

test_that("fewer than two rows is an error, two rows work", {
  expect_error(rlsc(d$x[0, ], numeric()), "`x` must have at least 2 rows, not 0")
  expect_error(rlsc(matrix(numeric(), 0, 0), numeric()), "`x` must have at least 2 rows, not 0")
  expect_error(rlsc(d$x[1, , drop = FALSE], 1), "`x` must have at least 2 rows, not 1")
  # n = 2: leaving one point out leaves the other's y as the prediction
  expect_warning(fit <- rlsc_short(d$x[1:2, ], d$y[1:2], lambda = c(10, 1, 0)),
                 "undefined \\(NA\\) for up to 2 point\\(s\\) at 1 value\\(s\\)")
  for (l in c(10, 1)) expect_equal(unname(loo_predict(fit, l)), d$y[2:1], tolerance = 1e-12)
  expect_loo_ref(rlsc_short(d$x[1:2, 1], d$y[1:2], lambda = c(2, 0.5)), d$x[1:2, 1, drop = FALSE],
                 d$y[1:2])
})

test_that("zero columns give the intercept-only model: the LOO of the (weighted) mean", {
  x0 <- matrix(numeric(), 20, 0)
  for (mode in c("auto", "primal", "dual")) {
    fit <- rlsc(x0, d$y, mode = mode)
    expect_identical(fit$nvars, 0L)
    expect_identical(fit$df, rep(0, 100))
    expect_equal(unname(loo_predict(fit)), (sum(d$y) - d$y) / 19, tolerance = 1e-12)
    expect_equal(coef(fit), c("(Intercept)" = mean(d$y)), tolerance = 1e-12)
    expect_equal(unname(predict(fit, matrix(numeric(), 3, 0))), rep(mean(d$y), 3), tolerance = 1e-12)
  }
  w <- 1:20
  fit <- rlsc(x0, d$y, weights = w)
  loo_mean <- vapply(1:20, function(i) sum(w[-i] * d$y[-i]) / sum(w[-i]), numeric(1))
  expect_equal(unname(loo_predict(fit)), loo_mean, tolerance = 1e-12)
  # without intercept the model is 0
  fit <- rlsc(x0, d$y, intercept = FALSE)
  expect_identical(unname(loo_predict(fit)), rep(0, 20))
  # a data frame without columns, and a classification
  expect_identical(rlsc(data.frame(row.names = 1:20), d$y)$nvars, 0L)
  y2 <- factor(rep(c("a", "b"), c(8, 12)))
  fit <- rlsc(x0, y2)
  code <- ifelse(y2 == "b", 1, -1)
  expect_equal(unname(loo_predict(fit)), (sum(code) - code) / 19, tolerance = 1e-12)
})

test_that("constant columns and constant x contribute nothing, with or without weights", {
  xc <- cbind(d$x, 5)
  fit <- rlsc_short(xc, d$y, lambda = c(10, 1, 0.1))
  expect_loo_ref(fit, xc, d$y)
  expect_identical(unname(coef(fit, 1)[5]), 0)
  # constant x: exactly the intercept-only model, even when the weighted mean
  # of the constant rounds (this used to leave a direction of rounding noise)
  set.seed(1)
  w <- runif(20)
  xk <- matrix(c(5.1, 0.3), 20, 2, byrow = TRUE)
  for (mode in c("primal", "dual")) {
    fit <- rlsc(xk, d$y, weights = w, mode = mode)
    expect_length(fit$engine$values, 0L)
    loo_mean <- vapply(1:20, function(i) sum(w[-i] * d$y[-i]) / sum(w[-i]), numeric(1))
    expect_equal(unname(loo_predict(fit)), loo_mean, tolerance = 1e-12)
  }
})

test_that("duplicated rows, d = 1 and n = 5, d = 10000 agree with brute force", {
  xd <- d$x[rep(1:10, 2), ]
  expect_loo_ref(rlsc_short(xd, d$y, lambda = c(50, 5, 0.5)), xd, d$y)
  expect_loo_ref(rlsc_short(d$x[, 1], d$y, lambda = c(50, 5, 0)), d$x[, 1, drop = FALSE], d$y)
  set.seed(42)
  xw <- matrix(rnorm(5 * 10000), 5)
  yw <- rnorm(5)
  fit <- rlsc_short(xw, yw, lambda = c(1e5, 1e4, 1e3))
  expect_identical(fit$form, "dual")
  for (l in fit$lambda) {
    expect_equal(unname(loo_predict(fit, l)), ref_loo_wide(xw, yw, l), tolerance = 1e-10)
  }
  # kernel form of the full fit: beta = Xc' (Xc Xc' + lambda I)^-1 (y - ybar)
  xc <- sweep(xw, 2, colMeans(xw))
  beta <- crossprod(xc, solve(tcrossprod(xc) + 1e4 * diag(5), yw - mean(yw)))
  expect_equal(unname(predict(fit, xw[1:2, ] * 2, lambda = 1e4)),
               drop(mean(yw) + sweep(xw[1:2, ] * 2, 2, colMeans(xw)) %*% beta), tolerance = 1e-8)
})

test_that("NA, NaN and Inf in `y` are rejected", {
  for (bad in c(NA, NaN, Inf, -Inf)) {
    expect_error(rlsc(d$x, c(bad, d$y[-1])), "^`y` must not contain NA, NaN or Inf values$")
  }
  expect_error(rlsc(d$x, cbind(d$y, c(NA, d$y[-1]))), "`y` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x, factor(c(NA, rep(c("a", "b"), length.out = 19)))), "^`y` must not contain NA values$")
  expect_error(rlsc(d$x, c(NA, rep(c("a", "b"), length.out = 19))), "^`y` must not contain NA values$")
  expect_error(rlsc(d$x, c(NA, rep(c(TRUE, FALSE), length.out = 19))), "^`y` must not contain NA values$")
})

test_that("`y` of the wrong type or shape is rejected with what it was", {
  msg <- "`y` must be a numeric vector or matrix, a factor, or a character or logical vector, not "
  expect_error(rlsc(d$x, list(1)), paste0(msg, "an object of class 'list'"))
  expect_error(rlsc(d$x, complex(real = d$y)), paste0(msg, "complex vector"))
  expect_error(rlsc(d$x, data.frame(d$y, g = "a")),
               paste0("`y` must be a data frame of one column or of numeric ",
                      "columns, not one with column `g` of class character"))
  expect_error(rlsc(d$x, array(d$y, c(20, 1, 1))), paste0(msg, "an object of class 'array'"))
  expect_error(rlsc(d$x, NULL), paste0(msg, "NULL"))
  expect_error(rlsc(d$x, Sys.Date() + 1:20), paste0(msg, "an object of class 'Date'"))
  expect_error(rlsc(d$x, matrix("a", 20, 1)),
               "`y` must be a vector, a matrix of numbers or a factor, not character matrix")
  expect_error(rlsc(d$x, d$y[-1]), "`y` must have 20 values or rows \\(the rows of `x`\\), not 19")
  expect_error(rlsc(d$x, cbind(d$y, d$y)[-1, ]), "`y` must have 20 values or rows \\(the rows of `x`\\), not 19")
  expect_error(rlsc(d$x, factor(rep(c("a", "b"), 5))), "`y` must have 20 values \\(the rows of `x`\\), not 10")
  expect_error(rlsc(d$x, matrix(numeric(), 20, 0)), "`y` must have at least one column")
})

test_that("constant responses and single classes are errors, empty levels are dropped", {
  expect_error(rlsc(d$x, rep(3, 20)), "^`y` is constant: every response column has a single distinct value$")
  expect_error(rlsc(d$x, c(0, rep(-0, 19))), "`y` is constant")
  expect_error(rlsc(d$x, cbind(rep(1, 20), rep(2, 20))), "`y` is constant")
  expect_error(rlsc(d$x, factor(rep("a", 20))), "^`y` must have at least 2 classes for classification, not 1$")
  expect_error(rlsc(d$x, rep("a", 20)), "at least 2 classes for classification, not 1")
  expect_warning(
    expect_error(rlsc(d$x, factor(rep("a", 20), levels = c("a", "b"))),
                 "at least 2 classes for classification, not 1"),
    "dropping empty level\\(s\\) of `y`: 'b'")
  # one constant column next to a varying one is fine
  ym <- cbind(a = rep(1, 20), b = d$y)
  fit <- rlsc_short(d$x, ym, lambda = c(10, 1))
  expect_loo_ref(fit, d$x, ym)
  # an empty level in the middle: dropped with a warning, then brute force
  y3 <- factor(rep(c("a", "c", "d"), length.out = 20), levels = c("a", "b", "c", "d"))
  expect_warning(fit <- rlsc_short(d$x, y3, lambda = c(10, 1)), "dropping empty level\\(s\\) of `y`: 'b'")
  expect_identical(fit$classes, c("a", "c", "d"))
  expect_loo_ref(fit, d$x, ref_code(droplevels(y3)))
})

test_that("integer, logical and ordered responses work", {
  yi <- as.integer(round(d$y * 10))
  expect_loo_ref(rlsc_short(d$x, yi, lambda = c(10, 1)), d$x, yi * 1)
  yl <- d$y > median(d$y)
  fit <- rlsc_short(d$x, yl, lambda = c(10, 1))
  expect_identical(fit$classes, c("FALSE", "TRUE"))
  expect_loo_ref(fit, d$x, ifelse(yl, 1, -1))
  yo <- factor(ifelse(yl, "hi", "lo"), levels = c("lo", "hi"), ordered = TRUE)
  expect_identical(rlsc_short(d$x, yo, lambda = c(10, 1))$path, fit$path)
})

test_that("bad `lambda` is rejected; unsorted, duplicated and integer grids are normalised", {
  expect_error(rlsc(d$x, d$y, lambda = -1), "^`lambda` must be non-negative; it has 1 negative value\\(s\\)$")
  expect_error(rlsc(d$x, d$y, lambda = c(1, -1, -2)), "it has 2 negative value\\(s\\)")
  for (bad in list(c(1, NA), NaN, Inf, -Inf)) {
    expect_error(rlsc(d$x, d$y, lambda = bad), "^`lambda` must not contain NA, NaN or Inf values$")
  }
  expect_error(rlsc(d$x, d$y, lambda = numeric()), "^`lambda` must have at least one value$")
  expect_error(rlsc(d$x, d$y, lambda = "1"), "`lambda` must be a numeric vector, not character vector")
  expect_error(rlsc(d$x, d$y, lambda = list(1)), "`lambda` must be a numeric vector, not an object of class 'list'")
  expect_error(rlsc(d$x, d$y, lambda = 1i), "`lambda` must be a numeric vector, not complex vector")
  expect_error(rlsc(d$x, d$y, lambda = TRUE), "`lambda` must be a numeric vector, not logical vector")
  expect_error(rlsc(d$x, d$y, lambda = matrix(1:2)), "`lambda` must be a numeric vector, not integer matrix")
  fit <- rlsc_short(d$x, d$y, lambda = c(1, 10, 0.1, 10, 1))
  expect_identical(fit$lambda, c(10, 1, 0.1))
  expect_identical(fit$path, rlsc_short(d$x, d$y, lambda = c(10, 1, 0.1))$path)
  expect_identical(rlsc_short(d$x, d$y, lambda = 3:1)$path, rlsc_short(d$x, d$y, lambda = c(3, 2, 1))$path)
  # a single lambda = 0: lm()'s PRESS residuals, plotted as one point
  fit0 <- rlsc(d$x, d$y, lambda = 0)
  m <- lm(d$y ~ d$x)
  expect_equal(unname(d$y - loo_predict(fit0, 0)), unname(residuals(m) / (1 - hatvalues(m))),
               tolerance = 1e-10)
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(fit0))
})

test_that("bad `weights` are rejected; integer weights work", {
  expect_error(rlsc(d$x, d$y, weights = rep(1, 19)),
               "^`weights` must have length 20 \\(the number of rows of `x`\\), not 19$")
  expect_error(rlsc(d$x, d$y, weights = rep(1, 21)), "not 21")
  expect_error(rlsc(d$x, d$y, weights = c(-1, rep(1, 19))), "^`weights` must be non-negative$")
  for (bad in c(NA, NaN, Inf)) {
    expect_error(rlsc(d$x, d$y, weights = c(bad, rep(1, 19))), "^`weights` must not contain NA, NaN or Inf values$")
  }
  expect_error(rlsc(d$x, d$y, weights = rep(0, 20)), "^`weights` must be positive for at least 2 observations, not 0$")
  expect_error(rlsc(d$x, d$y, weights = c(1, rep(0, 19))), "positive for at least 2 observations, not 1")
  expect_error(rlsc(d$x, d$y, weights = as.character(1:20)), "`weights` must be a numeric vector, not character vector")
  expect_error(rlsc(d$x, d$y, weights = rep(TRUE, 20)), "`weights` must be a numeric vector, not logical vector")
  expect_error(rlsc(d$x, d$y, weights = matrix(1, 20, 1)), "`weights` must be a numeric vector, not double matrix")
  expect_error(rlsc(d$x, d$y, weights = as.list(rep(1, 20))),
               "`weights` must be a numeric vector, not an object of class 'list'")
  wi <- rep(1:4, 5)
  fit <- rlsc_short(d$x, d$y, weights = wi, lambda = c(10, 1))
  expect_identical(fit$path, rlsc_short(d$x, d$y, weights = wi * 1, lambda = c(10, 1))$path)
  expect_loo_ref(fit, d$x, d$y, wi * 1)
})

test_that("bad `nlambda` is rejected", {
  expect_error(rlsc(d$x, d$y, nlambda = Inf), "^`nlambda` must be a whole number of at least 1, not Inf$")
  expect_error(rlsc(d$x, d$y, nlambda = 1e10), "`nlambda` must be a whole number of at least 1, not 1e\\+10")
  expect_error(rlsc(d$x, d$y, nlambda = NA), "`nlambda` must be a whole number of at least 1, not NA")
  expect_error(rlsc(d$x, d$y, nlambda = "5"), "`nlambda` must be a whole number of at least 1, not character vector")
  expect_error(rlsc(d$x, d$y, nlambda = 1:2), "`nlambda` must be a whole number of at least 1, not integer vector")
  expect_length(rlsc(d$x, d$y, nlambda = 1)$lambda, 1L)
})

test_that("values near 1e-300 and 1e300 are errors; large and small ones that fit scale exactly", {
  expect_error(rlsc(d$x * 1e300, d$y), "^`x` is too large in magnitude: its cross-products overflow; rescale it$")
  expect_error(rlsc(d$x * 1e200, d$y, mode = "dual"), "`x` is too large in magnitude")
  expect_error(rlsc(d$x, d$y, weights = rep(1e308, 20)),
               paste0("^`weights` must have a finite sum, not Inf \\(the largest is 1e\\+308\\); ",
                      "divide them by a constant, which changes only the scale of `lambda`$"))
  expect_error(rlsc(d$x * 1e5, d$y, weights = rep(1e300, 20)),
               paste0("^`x` and `weights` are too large together: the weighted cross-products overflow; rescale ",
                      "`x` or divide `weights` by a constant \\(which changes only the scale of `lambda`\\)$"))
  # class weights are multiplied into the weights: blamed by name (issue 47)
  cls <- factor(d$y > median(d$y))
  expect_error(rlsc(d$x * 1e5, cls, class_weights = c("TRUE" = 1e300)),
               paste0("^`x` and `class_weights` are too large together: the weighted cross-products overflow; ",
                      "rescale `x` or divide `class_weights` by a constant \\(which changes only the scale of `lambda`\\)$"))
  expect_error(rlsc(chunk_matrix(d$x * 1e5, cls, chunk_rows = 7), class_weights = c("TRUE" = 1e300)),
               "^`x` and `class_weights` are too large together")
  expect_error(rlsc(d$x * 1e5, cls, class_weights = c("TRUE" = 1e300), standardize = TRUE, cv = 4),
               "^`x` and `class_weights` are too large together")
  expect_error(rlsc(d$x, cls, class_weights = c("TRUE" = 1e308, "FALSE" = 1e308)),
               paste0("^`class_weights` times `weights` must have a finite sum, not Inf \\(the largest class ",
                      "weight is 1e\\+308\\); divide `class_weights` by a constant, which changes only the ",
                      "scale of `lambda`$"))
  expect_error(rlsc(d$x, cls, class_weights = c("TRUE" = 1e308, "FALSE" = 1e308), intercept = FALSE),
               "^`class_weights` times `weights` must have a finite sum")
  expect_error(rlsc(d$x * 1e-300, d$y),
               "^`x` is too small in magnitude: its weighted cross-products underflow; rescale `x` \\(or `weights`\\)$")
  expect_error(rlsc(d$x * 1e-160, d$y, mode = "dual"), "`x` is too small in magnitude")
  expect_error(rlsc(d$x + 1e-300 * d$x, d$y, weights = rep(1e-300, 20)), "`x` is too small in magnitude")
  expect_error(rlsc(d$x, d$y * 1e300),
               "the leave-one-out errors overflow: `y` \\(or `x`\\) is too large in magnitude; rescale it")
  expect_error(rlsc(d$x, d$y * 1e-300),
               "^`y` is too small in magnitude: its squared leave-one-out errors underflow; rescale it$")
  # powers of two scale exactly: x * 2^k with lambda * 4^k is the same fit
  ref <- rlsc_short(d$x, d$y, lambda = c(1, 0.1))
  for (k in c(-440, 440)) {
    fit <- rlsc_short(d$x * 2^k, d$y, lambda = c(1, 0.1) * 4^k)
    expect_equal(loo_predict(fit, 0.1 * 4^k), loo_predict(ref, 0.1), tolerance = 1e-12)
  }
  for (k in c(-440, 440)) {
    fit <- rlsc_short(d$x, d$y * 2^k, lambda = c(1, 0.1))
    expect_equal(loo_predict(fit, 0.1) / 2^k, loo_predict(ref, 0.1), tolerance = 1e-12)
  }
  fit <- rlsc_short(d$x, d$y, weights = rep(2^-900, 20), lambda = c(1, 0.1) * 2^-900)
  expect_equal(loo_predict(fit, 0.1 * 2^-900), loo_predict(ref, 0.1), tolerance = 1e-12)
})

test_that("predict() rejects bad `newdata` and `lambda`; integer and empty `newdata` work", {
  fit <- rlsc(d$x, d$y)
  expect_identical(predict(fit), fitted(fit))   # no newdata: the fitted values, as lm()
  for (bad in c(NA, NaN, Inf)) {
    nd <- d$x
    nd[3, 1] <- bad
    if (is.na(bad)) {   # NA rows get NA, as for formula fits and lm()
      expect_identical(predict(fit, nd), replace(predict(fit, d$x), 3, NA))
    } else {
      expect_error(predict(fit, nd),
                   "^`newdata` must not contain Inf values, not 1 \\(rows with NA get NA predictions\\)$")
    }
  }
  expect_error(predict(fit, d$x[, 1:2]), "`newdata` must have 3 columns \\(as the training `x`\\), not 2")
  expect_error(predict(fit, d$x[1, ]), "`newdata` must have 3 columns \\(as the training `x`\\), not 1")
  expect_error(predict(fit, list(1, 2, 3)),
               "`newdata` must be a numeric matrix or data frame, not an object of class 'list'")
  expect_error(predict(fit, matrix("1", 2, 3)),
               "`newdata` must be a numeric matrix or data frame, not character matrix")
  expect_error(predict(fit, matrix(1i, 2, 3)), "not complex matrix")
  expect_error(predict(fit, d$x, type = "odds"), "'arg' should be one of")
  expect_error(predict(fit, d$x, type = "prob"), "`type` = \"prob\" needs a classification fit")
  expect_error(predict(fit, d$x, lambda = Inf),
               "^`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\", not Inf$")
  expect_error(predict(fit, d$x, lambda = NaN), "not NaN")
  expect_error(predict(fit, d$x, lambda = NULL), "not NULL of length 0")
  expect_error(predict(fit, d$x, lambda = numeric()), "not double vector of length 0")
  expect_identical(dim(predict(fit, d$x, lambda = fit$lambda[1:2])), c(nrow(d$x), 2L))
  expect_error(predict(fit, d$x, lambda = c(fit$lambda[1], NA)), "must be a single number >= 0.*not NA")
  expect_error(predict(fit, d$x, lambda = -fit$lambda_min), "must be a single number >= 0")
  expect_error(predict(fit, d$x, lambda = "min"), "not min")
  ni <- matrix(1:6, 2)
  expect_identical(predict(fit, ni), predict(fit, ni * 1))
  expect_identical(predict(fit, d$x[0, ]), numeric())
  expect_identical(predict(fit, d$x[1, , drop = FALSE] > 2), predict(fit, (d$x[1, , drop = FALSE] > 2) * 1))
})

test_that("coef() and loo_predict() reject bad `lambda` and other objects", {
  fit <- rlsc_short(d$x, d$y, lambda = c(10, 1))
  expect_error(coef(fit, Inf), "not Inf$")
  expect_error(coef(fit, -Inf), "not -Inf$")
  expect_error(coef(fit, list(10)), "not an object of class 'list' of length 1")
  expect_error(coef(fit, 10 + 0i), "not complex vector of length 1")
  expect_error(coef(fit, TRUE), "not TRUE")
  expect_error(coef(fit, NULL), "not NULL of length 0")
  expect_error(loo_predict(fit, Inf), "not Inf$")
  expect_error(loo_predict(fit, NA_real_), "not NA$")
  expect_error(loo_predict(fit, -5), "not -5$")
  expect_error(loo_predict(fit, 1, 2), "unknown argument\\(s\\): an unnamed argument")
  expect_error(loo_predict(list()), "no applicable method for 'loo_predict'")
  expect_error(coef(fit, "lambda_max"), "not lambda_max$")
})

test_that("plot() draws around lambda = 0 and undefined criteria", {
  d8 <- make_data(8, 20, seed = 8)
  fit <- suppressWarnings(rlsc_short(d8$x, d8$y, lambda = c(10, 1, 0)))
  expect_true(is.na(fit$cvm[3]))
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(fit, xlim = c(-5, 5)), fit)
})
