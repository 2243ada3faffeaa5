test_that("deviance() is the weighted residual sum of squares, lm()'s at lambda = 0", {
  fit <- rlsc(mpg ~ wt + hp, data = mtcars)
  m <- lm(mpg ~ wt + hp, data = mtcars)
  expect_equal(deviance(fit, lambda = 0), deviance(m), tolerance = 1e-10)
  x <- as.matrix(mtcars[, c("wt", "hp")])
  for (l in list(fit$lambda_min, fit$lambda_1se, 7)) {
    ref <- sum((mtcars$mpg - ref_predict(ref_coef(x, mtcars$mpg, lambda = l), x))^2)
    expect_equal(deviance(fit, lambda = l), ref, tolerance = 1e-10)
  }
  expect_identical(deviance(fit), deviance(fit, "lambda_min"))
  # weights, and rows of zero weight not counted
  w <- rep(c(2, 1, 0, 1), 8)
  fw <- rlsc(x, mtcars$mpg, weights = w)
  mw <- lm(mpg ~ wt + hp, data = mtcars, weights = w)
  expect_equal(deviance(fw, 0), deviance(mw), tolerance = 1e-10)
  # several response columns and classes: summed over the columns
  ym <- cbind(mpg = mtcars$mpg, qsec = mtcars$qsec)
  fm <- rlsc(x, ym)
  expect_equal(deviance(fm, 3), sum((ym - ref_predict(ref_coef(x, ym, lambda = 3), x))^2),
               tolerance = 1e-10)
  cl <- rlsc(Species ~ ., data = iris)
  expect_equal(deviance(cl), sum(residuals(cl)^2), tolerance = 1e-12)
  expect_error(deviance(fit, lambda = -1), "`lambda` must be a single number >= 0")
  expect_error(deviance(fit, 1, 2), "unknown argument\\(s\\): an unnamed argument")
})

test_that("deviance() of chunked fits is the in-memory one, regression and classes (issue 27)", {
  d <- make_data(50, 3, seed = 401)
  w <- rep(c(1, 0, 2, 0.5, 1), 10)
  cls <- factor(ifelse(d$y > median(d$y), "hi", "lo"))
  for (y in list(d$y, cls)) {
    code <- if (is.factor(y)) ref_code(y) else as.matrix(y)
    fit <- rlsc_short(chunk_matrix(d$x, y, weights = w, chunk_rows = 12))
    for (l in list("lambda_min", 2)) {
      lv <- if (is.character(l)) fit$lambda_min else l
      ref <- sum(w * (code - ref_predict(ref_coef(d$x, code, w, lv), d$x))^2)
      expect_equal(deviance(fit, lambda = l), ref, tolerance = 1e-9)
    }
  }
})
