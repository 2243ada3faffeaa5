# Every error message of the argument checks of rlsc().

d <- make_data(20, 3, seed = 41)

test_that("bad `x` is rejected with a message naming it", {
  expect_error(rlsc(list(1, 2), 1:2), "`x` must be a numeric matrix or data frame, not an object of class 'list'")
  expect_error(rlsc(matrix("a", 3, 2), 1:3), "`x` must be a numeric matrix or data frame, not character matrix")
  expect_error(rlsc(data.frame(a = 1:3, b = letters[1:3]), 1:3),
               "`x` must have numeric columns only; column 'b' is character vector")
  expect_error(rlsc(data.frame(a = 1:3, f = factor(1:3)), 1:3), "column 'f' is a factor")
  x <- d$x; x[2, 2] <- NA
  expect_error(rlsc(x, d$y), "`x` must not contain NA, NaN or Inf values")
  x[2, 2] <- Inf
  expect_error(rlsc(x, d$y), "`x` must not contain NA, NaN or Inf values")
  x[2, 2] <- NaN
  expect_error(rlsc(x, d$y), "`x` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x[1, , drop = FALSE], 1), "`x` must have at least 2 rows, not 1")
  expect_error(rlsc(d$x[0, ], numeric()), "`x` must have at least 2 rows, not 0")
  expect_error(rlsc(matrix(1i, 3, 1), 1:3), "not complex matrix")
})

test_that("bad `y` is rejected with a message naming it", {
  expect_error(rlsc(d$x, list(1)), "`y` must be a numeric vector or matrix, a factor, or a character or logical vector, not an object of class 'list'")
  expect_error(rlsc(d$x, d$y[-1]), "`y` must have 20 values or rows \\(the rows of `x`\\), not 19")
  expect_error(rlsc(d$x, c(NA, d$y[-1])), "`y` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x, rep(3, 20)), "`y` is constant")
  expect_error(rlsc(d$x, factor(rep("a", 20))), "`y` must have at least 2 classes for classification, not 1")
  expect_error(rlsc(d$x, factor(c(NA, rep(c("a", "b"), length.out = 19)))), "`y` must not contain NA values")
  expect_error(rlsc(d$x, factor(rep(c("a", "b"), 5))), "`y` must have 20 values \\(the rows of `x`\\), not 10")
  expect_error(rlsc(d$x, matrix(numeric(), 20, 0)), "`y` must have at least one column")
  f <- factor(rep(c("a", "b"), 10), levels = c("a", "b", "c"))
  expect_warning(fit <- rlsc(d$x, f), "dropping empty level\\(s\\) of `y`: 'c'")
  expect_identical(fit$classes, c("a", "b"))
})

test_that("character and logical responses are classification", {
  yc <- rep(c("b", "a"), 10)
  expect_identical(rlsc(d$x, yc)$classes, c("a", "b"))
  yl <- rep(c(TRUE, FALSE), 10)
  expect_identical(rlsc(d$x, yl)$classes, c("FALSE", "TRUE"))
})

test_that("bad `weights` are rejected with a message naming them", {
  expect_error(rlsc(d$x, d$y, weights = rep(1, 19)), "`weights` must have length 20 \\(the number of rows of `x`\\), not 19")
  expect_error(rlsc(d$x, d$y, weights = c(-1, rep(1, 19))), "`weights` must be non-negative")
  expect_error(rlsc(d$x, d$y, weights = c(NA, rep(1, 19))), "`weights` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x, d$y, weights = c(Inf, rep(1, 19))), "`weights` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x, d$y, weights = rep(0, 20)), "`weights` must be positive for at least 2 observations, not 0")
  expect_error(rlsc(d$x, d$y, weights = c(1, rep(0, 19))), "not 1")
  expect_error(rlsc(d$x, d$y, weights = as.character(1:20)), "`weights` must be a numeric vector, not character vector")
})

test_that("bad `lambda`, `nlambda`, `intercept`, `criterion`, `kernel`, `mode` are rejected", {
  expect_error(rlsc(d$x, d$y, lambda = -1), "`lambda` must be non-negative; it has 1 negative value\\(s\\)")
  expect_error(rlsc(d$x, d$y, lambda = c(1, NA)), "`lambda` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x, d$y, lambda = Inf), "`lambda` must not contain NA, NaN or Inf values")
  expect_error(rlsc(d$x, d$y, lambda = numeric()), "`lambda` must have at least one value")
  expect_error(rlsc(d$x, d$y, lambda = "1"), "`lambda` must be a numeric vector, not character vector")
  expect_error(rlsc(d$x, d$y, nlambda = 0), "`nlambda` must be a whole number of at least 1, not 0")
  expect_error(rlsc(d$x, d$y, nlambda = 2.5), "`nlambda` must be a whole number of at least 1, not 2.5")
  expect_error(rlsc(d$x, d$y, intercept = NA), "`intercept` must be TRUE or FALSE, not logical vector")
  expect_error(rlsc(d$x, d$y, intercept = "yes"), "`intercept` must be TRUE or FALSE")
  expect_error(rlsc(d$x, d$y, criterion = "auc"), "`criterion` must be \"mse\" or \"misclass\", not auc")
  expect_error(rlsc(d$x, d$y, criterion = "misclass"), "`criterion` = \"misclass\" needs a factor response")
  expect_error(rlsc(d$x, d$y, kernel = "gauss"), "`kernel` must be \"linear\", \"rbf\", \"polynomial\", \"precomputed\" or a kernel such as kernel_rbf\\(\\), not gauss")
  expect_error(rlsc(d$x, d$y, mode = "fast"), "'arg' should be one of")
  expect_error(rlsc(d$x, d$y, lamda = 1), "unknown argument\\(s\\): lamda")
})

test_that("values too large to square are an error, not a silent overflow", {
  expect_error(rlsc(d$x * 1e200, d$y), "`x` is too large in magnitude")
  expect_error(rlsc(d$x * 1e200, d$y, mode = "dual"), "`x` is too large in magnitude")
  expect_error(rlsc(d$x, d$y * 1e200), "the leave-one-out errors overflow")
  # large but representable values scale exactly
  fit <- rlsc_short(d$x * 1e100, d$y * 1e100, lambda = c(1e200, 1e199))
  ref <- rlsc_short(d$x, d$y, lambda = c(1, 0.1))
  expect_equal(loo_predict(fit, 1e199) / 1e100, loo_predict(ref, 0.1), tolerance = 1e-10)
})

test_that("integer and logical inputs are coerced, data frames accepted", {
  xi <- matrix(as.integer(round(d$x * 10)), 20)
  expect_equal(rlsc(xi, d$y)$path, rlsc(xi * 1.0, d$y)$path)
  df <- as.data.frame(d$x)
  expect_equal(rlsc(df, d$y)$path, rlsc(d$x, d$y)$path)
  expect_identical(rlsc(df, d$y)$xnames, names(df))
  one <- rlsc(d$x[, 1], d$y)
  expect_identical(one$nvars, 1L)
})
