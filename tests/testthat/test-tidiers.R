test_that("tidy(), glance() and augment() return the path, the choice and the data", {
  skip_if_not_installed("generics")
  fit <- rlsc(mpg ~ ., data = mtcars)
  td <- generics::tidy(fit)
  expect_identical(names(td), c("lambda", "df", "estimate", "std.error", "conf.low", "conf.high"))
  expect_identical(td$estimate, fit$cvm)
  expect_equal(td$conf.high - td$estimate, fit$cvsd, tolerance = 1e-14)
  gl <- generics::glance(fit)
  expect_identical(gl$lambda_min, fit$lambda_min)
  expect_identical(gl$nobs, 32L)
  # per_response: each column's own squared error at its own lambda (it
  # labelled the classes' misclassification at those lambdas "misclass")
  pr <- rlsc(Species ~ ., data = iris, per_response = TRUE)
  gp <- generics::glance(pr)
  expect_identical(rownames(gp), levels(iris$Species))
  expect_identical(gp$criterion, rep("mse", 3))
  expect_identical(gp$lambda_min, unname(pr$lambda_min))
  ys <- sapply(levels(iris$Species), function(k) ifelse(iris$Species == k, 1, -1))
  own <- vapply(1:3, function(j) mean((ys[, j] - loo_predict(pr)[, j])^2), 0)
  expect_equal(gp$estimate, own, tolerance = 1e-12)
  w <- rep(c(1, 0), 16)
  expect_identical(generics::glance(rlsc_short(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg, weights = w))$nobs, 16L)
  au <- generics::augment(fit)
  expect_identical(names(au), c(names(mtcars)[c(1, 2:11)], ".fitted", ".loo", ".resid"))
  expect_equal(au$.loo, unname(loo_predict(fit)))
  expect_equal(au$.resid, mtcars$mpg - au$.fitted)
  cl <- rlsc(Species ~ ., data = iris)
  au <- generics::augment(cl, lambda = "lambda_1se")
  expect_true(all(c(".fitted_setosa", ".loo_virginica", ".class", ".loo_class") %in% names(au)))
  expect_identical(au$.class, predict(cl, iris, lambda = "lambda_1se", type = "class"),
                   ignore_attr = TRUE)
  mx <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
  expect_identical(names(generics::augment(mx)), c(".fitted", ".loo", ".resid"))
  expect_error(generics::augment(mx, data = mtcars[1:5, ]), "`data` must have the 32 rows")
})

test_that("augment() under na.exclude pads the new columns to the original data", {
  skip_if_not_installed("generics")
  aq <- airquality
  fit <- rlsc_short(Ozone ~ Solar.R + Wind, data = aq, na.action = na.exclude)
  used <- complete.cases(aq[, c("Ozone", "Solar.R", "Wind")])
  au <- generics::augment(fit, data = aq)
  expect_identical(nrow(au), nrow(aq))
  expect_identical(is.na(au$.loo), !used)
  expect_equal(au$.loo, unname(loo_predict(fit)))
  expect_equal(au$.resid, aq$Ozone - au$.fitted)
  expect_identical(nrow(generics::augment(fit)), sum(used))
  cl <- rlsc(factor(Temp > 80) ~ Ozone + Wind, data = aq, na.action = na.exclude)
  au <- generics::augment(cl, data = aq)
  expect_identical(is.na(au$.loo_class), !complete.cases(aq[, c("Ozone", "Wind")]))
  expect_error(generics::augment(fit, data = aq[1:5, ]), "`data` must have the 111 rows")
  omit <- rlsc_short(Ozone ~ Solar.R + Wind, data = aq)
  expect_error(generics::augment(omit, data = aq), "`data` must have the 111 rows the model was fitted to, not 153")
})

test_that("augment(newdata = ) adds predictions to new data, as broom does for lm()", {
  skip_if_not_installed("generics")
  fit <- rlsc(mpg ~ wt + hp, data = mtcars)
  new <- mtcars[c(3, 9, 20), ]
  au <- generics::augment(fit, newdata = new)
  expect_identical(names(au), c(names(mtcars), ".fitted", ".resid"))
  expect_identical(rownames(au), rownames(new))
  ref <- ref_predict(ref_coef(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg, lambda = fit$lambda_min),
                     as.matrix(new[, c("wt", "hp")]))
  expect_equal(au$.fitted, unname(drop(ref)), tolerance = 1e-9)
  expect_equal(au$.resid, unname(new$mpg - drop(ref)), tolerance = 1e-9)
  # without the response: predictions only
  au <- generics::augment(fit, newdata = new[, c("wt", "hp")], lambda = "lambda_1se")
  expect_identical(names(au), c("wt", "hp", ".fitted"))
  expect_equal(au$.fitted, unname(predict(fit, new, lambda = "lambda_1se")))
  # classification: decision values per class and the class
  cl <- rlsc(Species ~ ., data = iris)
  au <- generics::augment(cl, newdata = iris[c(1, 51, 101), ])
  expect_identical(au$.class, unname(predict(cl, iris[c(1, 51, 101), ], type = "class")))
  expect_equal(unname(as.matrix(au[, paste0(".fitted_", levels(iris$Species))])),
               unname(predict(cl, iris[c(1, 51, 101), ])))
  # matrix fits take matrix new data
  mx <- rlsc(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg)
  au <- generics::augment(mx, newdata = as.matrix(new[, c("hp", "wt")]))
  expect_equal(au$.fitted, unname(predict(mx, new)))
  expect_error(generics::augment(fit, data = mtcars, newdata = new),
               "^`data` and `newdata` must not both be given; `newdata` is augmented$")
})

test_that("the tidiers and autoplot() are documented as S3 methods, not as callable functions", {
  for (page in c("rlsc_tidiers", "autoplot.rlsc")) {
    txt <- rd_text(page)
    skip_if(is.null(txt), "no help page to read")
    expect_false(grepl("(tidy|glance|augment|autoplot)\\.rlsc\\(", txt), label = page)
  }
  expect_match(rd_text("rlsc_tidiers"), "## S3 method for class rlsc tidy(x, ...)", fixed = TRUE)
  expect_match(rd_text("rlsc_tidiers"),
               "augment(x, data = x$model, newdata = NULL, lambda = x$lambda_min, ...)", fixed = TRUE)
  expect_match(rd_text("autoplot.rlsc"), "## S3 method for class rlsc autoplot(object, ...)", fixed = TRUE)
})
