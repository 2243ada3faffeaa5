test_that("print() shows the problem and the selected lambdas and returns invisibly", {
  fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
  out <- capture.output(res <- withVisible(print(fit)))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  expect_match(out, "n = 32, d = 10, primal form, 100 lambda values", all = FALSE)
  expect_match(out, "^lambda_min", all = FALSE)
  expect_match(out, "^lambda_1se", all = FALSE)
  cl <- rlsc(iris[, 1:4], iris$Species)
  expect_match(capture.output(print(cl)), "classification, 3 classes", all = FALSE)
  expect_match(capture.output(print(cl)), "misclassification rate", all = FALSE)
  expect_identical(nobs(cl), 150L)
})

test_that("the printed call is rlsc(), and rows of zero weight are not counted by nobs()", {
  w <- rep(c(1, 1, 0, 1), 8)
  fit <- rlsc(mpg ~ wt + hp + qsec, data = mtcars, weights = w)
  expect_identical(nobs(fit), 24L)
  out <- capture.output(print(fit))
  expect_match(out, "^Call:  rlsc\\(formula = mpg ~ wt \\+ hp \\+ qsec", all = FALSE)
  expect_match(out, "n = 32 \\(24 with positive weight\\)", all = FALSE)
  expect_match(capture.output(print(rlsc(as.matrix(mtcars[, 2:3]), mtcars$mpg))),
               "^Call:  rlsc\\(x = ", all = FALSE)
})

test_that("print() uses the singular for one of a kind and the plural otherwise", {
  one <- capture.output(print(rlsc(mtcars$wt, mtcars$mpg, lambda = 1)))
  expect_match(one, "regression, 1 response column\\): n = 32, d = 1, primal form, 1 lambda value$", all = FALSE)
  expect_false(any(grepl("\\(s\\)|1 lambda values|1 response columns", one)))
  two <- capture.output(print(rlsc(mtcars$wt, cbind(mtcars$mpg, mtcars$qsec), lambda = c(2, 1))))
  expect_match(two, "regression, 2 response columns\\): .*, 2 lambda values$", all = FALSE)
})

test_that("print() and summary() name the validation and the criterion", {
  set.seed(1)
  header <- function(fit) {   # the line below the problem's
    out <- capture.output(print(fit))
    out[grep("^Regularized least squares", out) + 1L]
  }
  expect_identical(header(rlsc(mpg ~ ., data = mtcars, cv = 5)),
                   paste("Exact 5-fold cross-validation (the mean over folds weighted by fold size):",
                         "mean squared 5-fold CV error"))
  expect_match(capture.output(print(summary(rlsc(mpg ~ ., data = mtcars, cv = 5)))),
               "^5-fold cross-validation \\(means over folds weighted by fold size\\) path", all = FALSE)
  expect_identical(header(rlsc(mpg ~ ., data = mtcars, criterion = "mae")),
                   "Exact leave-one-out criterion: mean absolute LOO error")
  gcv <- rlsc(mpg ~ ., data = mtcars, cv = "gcv")
  expect_identical(header(gcv), "Generalized cross-validation: GCV = n RSS / (n - tr H)^2")
  expect_match(capture.output(print(summary(gcv))), "^Generalized cross-validation path around the minimum",
               all = FALSE)
  bin <- droplevels(iris[51:150, ])
  expect_identical(header(rlsc(Species ~ ., data = bin, criterion = "auc")),
                   "Exact leave-one-out criterion: leave-pair-out AUC")
  expect_identical(header(rlsc(Species ~ ., data = bin, cv = 4, criterion = "misclass")),
                   paste("Exact 4-fold cross-validation (the mean over folds weighted by fold size):",
                         "4-fold CV misclassification rate"))
  cube <- function(y, pred, weights) sum(weights * abs(y - pred)^3)
  expect_identical(header(rlsc(mpg ~ ., data = mtcars, criterion = cube)),
                   "Exact leave-one-out criterion: LOO criterion (the `criterion` function)")
})

test_that("a per-response fit prints one row per response column, named, with its own criterion", {
  d <- make_data(60, 3, ntarget = 12, seed = 44)
  colnames(d$y) <- sprintf("target_%02d", 1:12)
  fit <- rlsc_short(d$x, d$y, per_response = TRUE)
  out <- capture.output(print(fit))
  expect_match(out, "^Exact leave-one-out criterion: mean squared LOO error of each response column$", all = FALSE)
  tab <- summary(fit)$table   # the table print() shows the first ten rows of
  expect_identical(rownames(tab), colnames(d$y))
  for (j in c(1, 7)) {
    r <- colnames(d$y)[j]
    i <- fit$index_min[[r]]
    expect_identical(tab$mse[j], fit$path[[paste0("mse_", r)]][i])
    expect_identical(tab$se[j], fit$path[[paste0("mse_", r, "_se")]][i])
    expect_identical(tab$lambda_1se[j], fit$lambda_1se[[r]])
  }
  # the first ten rows, and a note of the rest
  expect_match(out, "^target_10 ", all = FALSE)
  expect_false(any(grepl("^target_11", out)))
  expect_match(out, "^ \\[ 2 more response columns; summary\\(fit\\) or fit\\$lambda_min has them all \\]$",
               all = FALSE)
  cl <- capture.output(print(rlsc(Species ~ ., data = iris, per_response = TRUE)))
  expect_match(cl, "mean squared LOO error of each class \\(one-vs-all column\\)$", all = FALSE)
  expect_match(cl, "^versicolor ", all = FALSE)
})

test_that("a criterion without standard errors prints lambda_min alone", {
  out <- capture.output(print(rlsc(mpg ~ ., data = mtcars, cv = "gcv")))
  expect_match(out, "^lambda_min ", all = FALSE)
  expect_false(any(grepl("lambda_1se|\\bse\\b", out)))
})
