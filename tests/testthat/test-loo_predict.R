test_that("loo_predict() returns a vector or a named matrix and accepts selection strings", {
  x <- as.matrix(mtcars[, -1])
  fit <- rlsc(x, mtcars$mpg)
  loo <- loo_predict(fit)
  expect_named(loo, rownames(mtcars))
  expect_identical(loo, loo_predict(fit, "lambda_min"))
  expect_equal(mean((mtcars$mpg - loo)^2), fit$cvm[fit$index_min], tolerance = 1e-12)
  expect_equal(mean((mtcars$mpg - loo_predict(fit, "lambda_1se"))^2),
               fit$cvm[fit$index_1se], tolerance = 1e-12)
  ym <- cbind(mpg = mtcars$mpg, qsec = mtcars$qsec)
  fitm <- rlsc(x[, -6], ym)
  expect_identical(colnames(loo_predict(fitm)), c("mpg", "qsec"))
})

test_that("loo_predict() rejects negative lambdas and unknown arguments", {
  fit <- rlsc_short(as.matrix(mtcars[, -1]), mtcars$mpg, lambda = c(3, 2, 1))
  expect_error(loo_predict(fit, -2.5),
               "`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\", not -2.5")
  expect_error(loo_predict(fit, 2, 3), "unknown argument\\(s\\): an unnamed argument")
})

test_that("loo_predict(type = \"class\") gives the LOO class labels, checked by brute force", {
  x <- as.matrix(iris[, 1:4])
  fit <- rlsc(Species ~ ., data = iris)
  l <- fit$lambda_min
  ref <- ref_loo(x, ref_code(iris$Species), lambda = l)
  ref_class <- levels(iris$Species)[max.col(ref, "first")]
  cls <- loo_predict(fit, type = "class")
  expect_s3_class(cls, "factor")
  expect_identical(levels(cls), levels(iris$Species))
  expect_identical(as.character(cls), ref_class)
  expect_equal(mean(cls != iris$Species), fit$cvm[fit$index_min], tolerance = 1e-12)
  # two classes: the sign of the LOO decision value
  two <- droplevels(subset(iris, Species != "setosa"))
  f2 <- rlsc(Species ~ ., data = two)
  ref2 <- ref_loo(as.matrix(two[, 1:4]), ref_code(two$Species), lambda = f2$lambda[30])
  expect_identical(as.character(loo_predict(f2, f2$lambda[30], type = "class")),
                   unname(ifelse(ref2[, 1] > 0, "virginica", "versicolor")))
  expect_error(loo_predict(rlsc(mpg ~ wt + hp, data = mtcars), type = "class"),
               "^`type` = \"class\" needs a classification fit; this one is regression$")
})

test_that("loo_predict(type = \"class\") is padded under na.exclude", {
  aq <- transform(airquality, hot = factor(ifelse(Temp > 80, "hot", "cold")))
  fit <- rlsc(hot ~ Ozone + Wind, data = aq, na.action = na.exclude)
  cls <- loo_predict(fit, type = "class")
  expect_length(cls, nrow(aq))
  used <- complete.cases(aq[, c("Ozone", "Wind")])
  expect_identical(unname(is.na(cls)), !used)
  expect_identical(as.character(cls[used]), ifelse(loo_predict(fit)[used] > 0, "hot", "cold"),
                   ignore_attr = TRUE)
})
