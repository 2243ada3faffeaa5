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

test_that("print(summary()) of a fit with many classes stays readable and says how to see all", {
  set.seed(7)
  classes <- sprintf("c%02d", 1:50)
  y <- factor(rep(classes, 8))
  x <- matrix(rnorm(400 * 5), 400) + as.integer(y) / 10
  fit <- rlsc(x, y)
  s <- summary(fit)
  # the object holds everything: the K x K confusion matrix and K coefficient columns
  expect_identical(dim(s$confusion), c(50L, 50L))
  expect_equal(s$coefficients, coef(fit, "lambda_min"))
  out <- capture.output(print(s))
  expect_lt(length(out), 80L)   # was 498 lines
  expect_match(out, "^ \\[ 35 classes not shown; print\\(summary\\(fit\\), max = 50\\) shows all \\]$", all = FALSE)
  expect_match(out, "Coefficients at lambda_min \\(one column per class\\)", all = FALSE)
  expect_false(any(grepl("c16", out)))
  full <- capture.output(print(s, max = 50))
  expect_true(any(grepl("c50", full)))
  expect_false(any(grepl("not shown", full)))
  expect_gt(length(full), 200L)
  expect_error(print(s, max = 0), "^`max` must be a whole number of at least 1, not 0$")
})

test_that("print(summary(), max = ) caps the coefficients of a wide fit, with the right plural", {
  s <- summary(rlsc(mpg ~ ., data = mtcars))
  out <- capture.output(print(s, max = 4))
  expect_match(out, "^ \\[ 7 coefficients not shown; print\\(summary\\(fit\\), max = 11\\) shows all \\]$", all = FALSE)
  expect_false(any(grepl("not shown", capture.output(print(s)))))
  out <- capture.output(print(s, max = 10))
  expect_match(out, "\\[ 1 coefficient not shown", all = FALSE)
  # several response columns: the columns are capped too
  ym <- as.matrix(mtcars[, c("mpg", "qsec", "drat")])
  sm <- summary(rlsc(as.matrix(mtcars[, c("wt", "hp")]), ym))
  out <- capture.output(print(sm, max = 2))
  expect_match(out, "Coefficients at lambda_min \\(one column per response column\\)", all = FALSE)
  expect_match(out, "\\[ 1 coefficient and 1 response column not shown", all = FALSE)
})

test_that("summary() shows both lambdas for one response column and lambda_min for several, as documented", {
  s1 <- summary(rlsc(mpg ~ wt + hp, data = mtcars))
  expect_identical(colnames(s1$coefficients), c("lambda_min", "lambda_1se"))
  cl <- rlsc(Species ~ ., data = iris)
  s3 <- summary(cl)
  expect_identical(s3$coefficients, coef(cl, "lambda_min"))
  # the help page says the same
  txt <- rd_text("summary.rlsc")
  skip_if(is.null(txt), "no help page to read")
  expect_match(txt, paste("side by side (at lambda_min alone for a criterion without standard errors, such as GCV);",
                          "with several response columns or classes, at lambda_min only"), fixed = TRUE)
})

test_that("summary() of a per-response fit has one row per response column, named", {
  d <- make_data(60, 3, ntarget = 3, seed = 45)
  colnames(d$y) <- c("height", "weight", "age")
  fit <- rlsc_short(d$x, d$y, per_response = TRUE)
  s <- summary(fit)
  expect_identical(rownames(s$table), colnames(d$y))
  expect_equal(s$table$lambda_min, unname(fit$lambda_min))
  expect_equal(s$table$mse[2], fit$path$mse_weight[fit$index_min[["weight"]]])
  expect_identical(colnames(s$coefficients), colnames(d$y))
  expect_equal(s$coefficients[, "age"], coef(fit)[, "age"])
  out <- capture.output(print(s))
  expect_match(out, "^The lambda of each response column:$", all = FALSE)
  expect_match(out, "^weight ", all = FALSE)
  expect_false(any(grepl("path around the minimum", out)))
  out <- capture.output(print(s, max = 2))
  expect_match(out, paste0("^ \\[ 2 coefficients and 1 response column not shown; ",
                          "print\\(summary\\(fit\\), max = 4\\) shows all \\]$"),
               all = FALSE)
  expect_false(any(grepl("^age ", out)))
})

test_that("summary() says how many coefficients a kernel fit hides and how to see them", {
  kf <- rlsc_short(mpg ~ ., data = mtcars, standardize = TRUE, kernel = kernel_rbf(sigma = c(4, 8)))
  s <- summary(kf)
  expect_null(s$coefficients)
  expect_identical(s$ncoef, 32L)
  expect_identical(s$ncoef, length(coef(kf)) - 1L)
  expect_match(capture.output(print(s)),
               "^ \\[ 32 coefficients of the kernel expansion not shown; coef\\(fit\\) gives them \\]$", all = FALSE)
})

test_that("summary() of a GCV fit shows no standard errors and no lambda_1se", {
  s <- summary(rlsc(mpg ~ ., data = mtcars, cv = "gcv"))
  expect_identical(names(s$table), c("lambda", "df", "gcv", "selected"))
  expect_identical(colnames(s$coefficients), "lambda_min")
  expect_false(any(grepl("lambda_1se", capture.output(print(s)))))
})
