test_that("summary() holds the path around the minimum and the coefficients", {
  fit <- rlsc(mpg ~ ., data = mtcars)
  s <- summary(fit, rows = 2)
  expect_s3_class(s, "summary.rlsc")
  expect_identical(nrow(s$table), 5L)
  expect_identical(s$table$selected[3], "lambda_min")
  expect_identical(s$coefficients[, "lambda_min"], coef(fit))
  expect_identical(s$coefficients[, "lambda_1se"], coef(fit, "lambda_1se"))
  out <- capture.output(res <- withVisible(print(s)))
  expect_false(res$visible)
  expect_match(out, "Leave-one-out path around the minimum", all = FALSE)
  expect_error(summary(fit, rows = -1), "`rows` must be a whole number of at least 0")
})

test_that("summary() of a classification fit has the LOO confusion matrix", {
  fit <- rlsc(Species ~ ., data = iris)
  s <- summary(fit)
  loo_class <- levels(iris$Species)[max.col(loo_predict(fit), "first")]
  expect_equal(unclass(s$confusion), unclass(table(LOO = factor(loo_class, levels(iris$Species)),
                                                   truth = iris$Species)))
  expect_equal(1 - sum(diag(s$confusion)) / 150, fit$cvm[fit$index_min])
  expect_match(capture.output(print(s)), "confusion matrix", all = FALSE)
})

test_that("summary() of a classification fit under na.exclude counts the fitted rows only", {
  aq <- transform(airquality, hot = factor(ifelse(Temp > 80, "hot", "cold")))
  fit <- rlsc(hot ~ Ozone + Wind, data = aq, na.action = na.exclude)
  s <- summary(fit)
  used <- complete.cases(aq[, c("Ozone", "Wind")])
  loo_class <- ifelse(loo_predict(fit)[used] > 0, "hot", "cold")
  expect_equal(unclass(s$confusion),
               unclass(table(LOO = factor(loo_class, c("cold", "hot")), truth = aq$hot[used])))
  expect_equal(1 - sum(diag(s$confusion)) / sum(used), fit$cvm[fit$index_min])
})
