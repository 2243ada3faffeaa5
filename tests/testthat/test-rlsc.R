# Exact LOO against brute-force refits, over shapes and options.

check_path <- function(x, y, w = NULL, intercept = TRUE, mode = "auto", at = c(10, 50, 90),
                       tol = 1e-8, ...) {
  fit <- suppressWarnings(rlsc(x, y, weights = w, intercept = intercept, mode = mode, ...))
  wref <- if (is.null(w)) rep(1, nrow(x)) else w
  yref <- if (is.factor(y)) ref_code(y) else y
  for (l in fit$lambda[at]) {
    ref <- ref_loo(x, yref, wref, l, intercept)
    got <- as.matrix(loo_predict(fit, l))
    expect_equal(unname(got), unname(ref), tolerance = tol)
    i <- match(l, fit$lambda)
    expect_equal(c(fit$path$mse[i], fit$path$mse_se[i]), ref_mse(yref, ref, wref),
                 tolerance = tol)
    if (is.factor(y)) {
      expect_equal(c(fit$path$misclass[i], fit$path$misclass_se[i]),
                   ref_misclass(y, ref, wref), tolerance = tol)
    }
  }
  invisible(fit)
}

test_that("primal LOO equals brute-force refits, with and without intercept", {
  d <- make_data(50, 6)
  check_path(d$x, d$y)
  check_path(d$x, d$y, intercept = FALSE)
})

test_that("dual LOO equals brute-force refits, with and without intercept", {
  d <- make_data(15, 30, seed = 2)
  fit <- check_path(d$x, d$y)
  expect_identical(fit$form, "dual")
  check_path(d$x, d$y, intercept = FALSE)
})

test_that("primal and dual forms agree on the same data", {
  d <- make_data(30, 8, ntarget = 2, seed = 3)
  w <- rep(1:3, 10)
  p <- rlsc(d$x, d$y, weights = w, mode = "primal")
  q <- muffle_min_norm(rlsc(d$x, d$y, weights = w, mode = "dual", lambda = p$lambda))
  expect_equal(q$path, p$path, tolerance = 1e-9)
  expect_equal(loo_predict(q, p$lambda[40]), loo_predict(p, p$lambda[40]), tolerance = 1e-9)
  expect_equal(coef(q, p$lambda[40]), coef(p, p$lambda[40]), tolerance = 1e-9)
})

test_that("integer weights act as repeated rows and enter the LOO exactly", {
  d <- make_data(40, 5, seed = 4)
  w <- rep(c(1, 2, 3, 1), 10)
  check_path(d$x, d$y, w = w)
  check_path(d$x[1:12, ], d$y[1:12], w = w[1:12], mode = "dual")
  # a weight-2 row is one row in the fit counted twice, not two rows:
  # its fitted values equal those of the duplicated data
  fit_w <- rlsc_short(d$x, d$y, weights = w, lambda = c(5, 1))
  dup <- rep(seq_along(w), w)
  fit_d <- rlsc_short(d$x[dup, ], d$y[dup], lambda = c(5, 1))
  expect_equal(coef(fit_w, 1), coef(fit_d, 1), tolerance = 1e-10)
})

test_that("zero-weight rows are predicted like new data, in both forms", {
  d <- make_data(20, 4, seed = 5)
  w <- c(0, rep(1, 18), 0)
  check_path(d$x, d$y, w = w)
  check_path(d$x, d$y, w = w, mode = "dual")
  fit <- rlsc(d$x, d$y, weights = w)
  l <- fit$lambda[30]
  expect_equal(unname(loo_predict(fit, l)[c(1, 20)]),
               unname(predict(fit, d$x[c(1, 20), ], lambda = l)), tolerance = 1e-10)
})

test_that("multi-target regression shares one factorization", {
  d <- make_data(35, 5, ntarget = 3, seed = 6)
  fit <- check_path(d$x, d$y)
  expect_equal(dim(loo_predict(fit)), c(35L, 3L))
  for (t in 1:3) {
    one <- rlsc_short(d$x, d$y[, t], lambda = fit$lambda)
    expect_equal(unname(loo_predict(one, fit$lambda[20])),
                 unname(loo_predict(fit, fit$lambda[20])[, t]), tolerance = 1e-10)
  }
})

test_that("binary and multiclass classification LOO equals brute force", {
  set.seed(7)
  x <- matrix(rnorm(60 * 3), 60) + rep(c(0, 1), each = 30)
  y2 <- factor(rep(c("no", "yes"), each = 30))
  fit <- check_path(x, y2)
  expect_identical(fit$criterion, "misclass")
  expect_length(loo_predict(fit), 60)
  expect_null(dim(loo_predict(fit)))
  y3 <- iris$Species[c(1:20, 51:70, 101:120)]
  x3 <- as.matrix(iris[c(1:20, 51:70, 101:120), 1:4])
  fit3 <- check_path(x3, y3, w = rep(1:2, 30))
  expect_identical(colnames(loo_predict(fit3)), levels(iris$Species))
  check_path(x3[1:25, ], droplevels(y3[1:25]), mode = "dual")
})

test_that("lambda = 0 with n > d gives lm()'s PRESS residuals", {
  m <- lm(mpg ~ ., data = mtcars)
  fit <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(1, 0))
  press <- residuals(m) / (1 - hatvalues(m))
  expect_equal(unname(mtcars$mpg - loo_predict(fit, 0)), unname(press), tolerance = 1e-8)
  expect_equal(unname(coef(fit, 0)), unname(coef(m)), tolerance = 1e-8)
  # weighted, through lm(weights = )
  w <- rep(1:4, 8)
  mw <- lm(mpg ~ ., data = mtcars, weights = w)
  fitw <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(1, 0), weights = w)
  expect_equal(unname(mtcars$mpg - loo_predict(fitw, 0)),
               unname(residuals(mw) / (1 - hatvalues(mw))), tolerance = 1e-8)
})

test_that("lambda = 0 in the dual form is the minimum-norm interpolant with NA LOO values", {
  skip_if_not_installed("MASS")
  d <- make_data(8, 20, seed = 8)
  expect_warning(fit <- rlsc_short(d$x, d$y, lambda = c(1, 0)),
                 "undefined \\(NA\\) for up to 8 point\\(s\\) at 1 value\\(s\\)")
  expect_true(is.na(fit$path$mse[2]))
  expect_identical(fit$path$n_na, c(0, 8))
  expect_identical(fit$lambda_min, 1)
  expect_warning(loo <- loo_predict(fit, 0), "undefined")
  expect_true(all(is.na(loo)))
  # minimum-norm solution: the pseudo-inverse of the centered design
  xc <- sweep(d$x, 2, colMeans(d$x))
  beta <- MASS::ginv(xc) %*% (d$y - mean(d$y))
  expect_equal(unname(coef(fit, 0)[-1]), drop(beta), tolerance = 1e-8)
  expect_equal(unname(predict(fit, d$x, lambda = 0)), d$y, tolerance = 1e-8)
})

test_that("a point with leverage one gets NA only where the leverage is one", {
  d <- make_data(30, 3, seed = 9)
  x <- cbind(d$x, c(1, rep(0, 29)))   # a dummy column that isolates point 1
  expect_warning(fit <- rlsc_short(x, d$y, lambda = c(2, 0)), "up to 1 point")
  expect_identical(fit$path$n_na, c(0, 1))
  loo <- suppressWarnings(loo_predict(fit, 0))
  expect_true(is.na(loo[1]))
  m <- lm(d$y ~ x)
  press <- residuals(m) / (1 - hatvalues(m))
  expect_equal(unname(loo[-1]), unname(d$y - press)[-1], tolerance = 1e-8)
  expect_equal(unname(suppressWarnings(loo_predict(fit, 2))), drop(ref_loo(x, d$y, lambda = 2)),
               tolerance = 1e-8)
})

test_that("the default grid is decreasing and spans df from near 0 to near the rank", {
  d <- make_data(60, 7, seed = 10)
  fit <- rlsc(d$x, d$y, nlambda = 25)
  expect_length(fit$lambda, 25)
  expect_true(all(diff(fit$lambda) < 0))
  expect_lt(fit$df[1], 0.11)
  expect_gt(fit$df[25], 7 - 0.11)
  xc <- sweep(d$x, 2, colMeans(d$x))
  ev <- eigen(crossprod(xc), symmetric = TRUE)$values
  expect_equal(fit$df, sapply(fit$lambda, function(l) sum(ev / (ev + l))), tolerance = 1e-10)
})

test_that("user grids are sorted decreasing and deduplicated", {
  d <- make_data(20, 3, seed = 11)
  fit <- rlsc_short(d$x, d$y, lambda = c(1, 10, 0.1, 10))
  expect_identical(fit$lambda, c(10, 1, 0.1))
  # in decreasing order already: kept, but still deduplicated and unnamed
  expect_identical(rlsc_short(d$x, d$y, lambda = c(10, 10, 1, 0.1))$lambda, c(10, 1, 0.1))
  expect_identical(rlsc_short(d$x, d$y, lambda = c(a = 10, b = 1))$lambda, c(10, 1))
})

test_that("lambda_min minimizes the criterion and lambda_1se follows the one-SE rule", {
  d <- make_data(80, 10, seed = 12)
  fit <- rlsc(d$x, d$y)
  expect_identical(fit$lambda_min, fit$lambda[which.min(fit$cvm)])
  i <- which.min(fit$cvm)
  expect_identical(fit$lambda_1se, max(fit$lambda[fit$cvm <= fit$cvm[i] + fit$cvsd[i]]))
  expect_gte(fit$lambda_1se, fit$lambda_min)
})

test_that("misclassification ties are broken by the LOO squared error", {
  x <- as.matrix(iris[, 1:4])
  fit <- rlsc(x, iris$Species)
  best <- which(fit$cvm == min(fit$cvm))
  expect_identical(fit$index_min, best[which.min(fit$path$mse[best])])
})

test_that("a minimum at the end of the grid warns", {
  d <- make_data(40, 3, seed = 13)
  expect_warning(rlsc(d$x, d$y, lambda = c(1e4, 1e3)), "smallest value of the `lambda` grid")
  set.seed(99)
  expect_warning(rlsc(d$x, rnorm(40), lambda = c(1e3, 1e-3)), "largest value of the `lambda` grid")
  expect_no_warning(rlsc(d$x, d$y))
})

test_that("large lambda gives the nearest-centroid rule on balanced classes", {
  set.seed(14)
  x <- matrix(rnorm(100 * 4), 100) + rep(c(0, 0.7), each = 50)
  y <- factor(rep(c("a", "b"), each = 50))
  fit <- rlsc_short(x, y, lambda = c(1e9, 1))
  newx <- matrix(rnorm(200 * 4), 200) + 0.35
  m_a <- colMeans(x[y == "a", ])
  m_b <- colMeans(x[y == "b", ])
  centroid <- ifelse(rowSums(sweep(newx, 2, m_a)^2) > rowSums(sweep(newx, 2, m_b)^2), "b", "a")
  expect_identical(as.character(predict(fit, newx, lambda = 1e9, type = "class")), centroid)
})

test_that("agrees with brute force on data sets not used while writing the code", {
  x <- as.matrix(swiss[, -1])
  check_path(x, swiss$Fertility, at = c(20, 60, 95))
  x <- as.matrix(longley[, -7])   # nearly collinear columns
  check_path(x, longley$Employed, at = c(10, 50, 90), tol = 1e-6)
  x <- as.matrix(USJudgeRatings[, -12])
  check_path(x, USJudgeRatings$RTEN, w = seq_len(nrow(x)) %% 3, at = c(20, 70))
})

test_that("unknown arguments are named without being evaluated", {
  d <- make_data(20, 2, seed = 11)
  expect_error(rlsc(d$x, d$y, foo = not_a_variable), "unknown argument\\(s\\): foo")
  expect_error(rlsc(mpg ~ wt, data = mtcars, foo = hp), "unknown argument\\(s\\): foo")
  fit <- rlsc(d$x, d$y)
  expect_error(predict(fit, d$x, foo = not_a_variable), "unknown argument\\(s\\): foo")
  expect_error(coef(fit, "lambda_min", not_a_variable), "unknown argument\\(s\\): an unnamed argument")
})
