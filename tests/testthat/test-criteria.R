# The criteria that choose lambda, against direct computations from
# brute-force leave-one-out predictions.

test_that("mae, auc and a user's function are computed from the exact LOO values", {
  d <- make_data(40, 3, seed = 311)
  w <- runif(40, 0.5, 2)
  lambda <- c(20, 2, 0.2)
  fit <- rlsc_short(d$x, d$y, weights = w, lambda = lambda, criterion = "mae")
  loo <- sapply(lambda, function(l) ref_loo(d$x, d$y, w, l))
  mae <- apply(abs(d$y - loo), 2, function(e) ref_criterion(e, w))
  expect_equal(fit$cvm, mae[1, ], tolerance = 1e-9)
  expect_equal(fit$cvsd, mae[2, ], tolerance = 1e-9)
  expect_equal(fit$path$mse, colSums(w * (d$y - loo)^2) / sum(w), tolerance = 1e-9)

  # binary AUC of the LOO decision values, against every pair counted
  x <- as.matrix(iris[51:150, 1:4])
  y <- droplevels(iris$Species[51:150])
  wb <- runif(100, 0.5, 2)
  auc <- rlsc_short(x, y, weights = wb, lambda = lambda, criterion = "auc")
  ref <- vapply(lambda, function(l) {
    ref_auc(drop(ref_loo(x, ref_code(y), wb, l)), y == "virginica", wb)
  }, 1)
  expect_equal(auc$cvm, ref, tolerance = 1e-12)
  expect_identical(auc$lambda_min, lambda[which.max(ref)])   # the largest AUC wins
  expect_true(all(auc$cvsd > 0 & auc$cvsd < 0.1))

  # a user's function of (y, pred, weights), one number per lambda
  med <- function(y, pred, weights) median(abs(y - pred))
  cust <- rlsc_short(d$x, d$y, lambda = lambda, criterion = med)
  expect_identical(cust$criterion, "custom")
  loo1 <- sapply(lambda, function(l) ref_loo(d$x, d$y, lambda = l))
  expect_equal(cust$cvm, apply(abs(d$y - loo1), 2, median), tolerance = 1e-9)
  expect_identical(cust$lambda_1se, cust$lambda_min)
  # classification: y is the factor, pred the decision values
  seen <- NULL
  rlsc_short(x, y, lambda = 1, criterion = function(y, pred, weights) {
    seen <<- list(y = y, pred = pred)
    mean(sign(pred) != ifelse(y == "virginica", 1, -1))
  })
  expect_identical(seen$y, y)
  expect_length(seen$pred, 100)
})

test_that("K-fold AUC and user functions are computed per fold", {
  x <- as.matrix(iris[51:150, 1:4])
  y <- droplevels(iris$Species[51:150])
  folds <- rep(1:4, 25)
  lambda <- c(5, 0.5)
  fit <- rlsc_short(x, y, foldid = folds, lambda = lambda, criterion = "auc")
  code <- ref_code(y)
  per <- sapply(lambda, function(l) sapply(1:4, function(f) {
    held <- folds == f
    p <- ref_predict(ref_coef(x[!held, ], code[!held, ], lambda = l), x[held, ])
    ref_auc(drop(p), y[held] == "virginica")
  }))
  expect_equal(fit$cvm, colMeans(per), tolerance = 1e-12)
  expect_equal(fit$cvsd, apply(per, 2, sd) / 2, tolerance = 1e-10)
})

test_that("per_response chooses each column's lambda, as separate fits do", {
  d <- make_data(50, 4, ntarget = 3, seed = 312)
  d$y[, 3] <- d$y[, 3] * 5 + d$x[, 1] * 3
  colnames(d$y) <- c("a", "b", "c")
  fit <- rlsc_short(d$x, d$y, per_response = TRUE)
  expect_named(fit$lambda_min, c("a", "b", "c"))
  for (j in 1:3) {
    one <- rlsc_short(d$x, d$y[, j], lambda = fit$lambda)
    expect_identical(unname(fit$lambda_min[j]), one$lambda_min)
    expect_identical(unname(fit$lambda_1se[j]), one$lambda_1se)
    expect_equal(fit$path[[paste0("mse_", colnames(d$y)[j])]], one$path$mse, tolerance = 1e-12)
    expect_equal(unname(coef(fit)[, j]), unname(coef(one)), tolerance = 1e-10)
    expect_equal(unname(loo_predict(fit)[, j]), unname(loo_predict(one)), tolerance = 1e-10)
    expect_equal(unname(predict(fit, d$x[1:3, ])[, j]), unname(predict(one, d$x[1:3, ])), tolerance = 1e-10)
    expect_equal(unname(hatvalues(fit)[, j]), unname(hatvalues(one)), tolerance = 1e-10)
  }
  expect_equal(coef(fit, 2), coef(rlsc_short(d$x, d$y, lambda = fit$lambda), 2))
  expect_equal(unname(coef(fit, c(1, 2, 3))[, 2]), unname(coef(fit, 2)[, 2]))
  expect_output(print(fit), "lambda_min")
  expect_error(rlsc(d$x, d$y, per_response = TRUE, criterion = "mae"),
               "`per_response` = TRUE chooses each column's lambda by its squared error")
  expect_error(coef(fit, c(1, 2)), "or one per response column, 3")
  # multiclass: one lambda per one-vs-all column
  cls <- rlsc_short(iris[, 1:4], iris$Species, per_response = TRUE)
  expect_named(cls$lambda_min, levels(iris$Species))
  expect_s3_class(predict(cls, iris[1:3, 1:4], type = "class"), "factor")
  # each column at its own lambda: probabilities, predictions over chunks and
  # the coefficients of a feature kernel (issue 27)
  prob <- predict(cls, iris[1:3, 1:4], type = "prob")
  expect_equal(unname(rowSums(prob)), rep(1, 3), tolerance = 1e-12)
  expect_equal(unname(predict(fit, chunk_matrix(d$x, d$y, chunk_rows = 20))), unname(predict(fit, d$x)),
               tolerance = 1e-12)
  ny <- nystrom(kernel_rbf(2), landmarks = d$x[1:6, ])
  nf <- rlsc_short(d$x, d$y, per_response = TRUE, kernel = ny)
  for (j in 1:3) {
    one <- rlsc_short(d$x, d$y[, j], kernel = ny, lambda = nf$lambda)
    expect_equal(unname(coef(nf)[, j]), unname(coef(one, nf$lambda_min[[j]])), tolerance = 1e-10)
  }
})

test_that("class_weights multiply the observation weights", {
  x <- as.matrix(iris[c(1:50, 51:70), 1:4])
  y <- droplevels(iris$Species[c(1:50, 51:70)])
  bal <- rlsc_short(x, y, class_weights = "balanced", lambda = c(1, 0.1))
  by_hand <- rlsc_short(x, y, weights = ifelse(y == "setosa", 70 / 100, 70 / 40), lambda = c(1, 0.1))
  expect_equal(bal$path, by_hand$path)
  named <- rlsc_short(x, y, class_weights = c(versicolor = 3, setosa = 1), lambda = c(1, 0.1))
  expect_equal(coef(named), coef(rlsc_short(x, y, weights = ifelse(y == "setosa", 1, 3), lambda = c(1, 0.1))))
  expect_error(rlsc(x, y, class_weights = c(setosa = 1)),
               "`class_weights` must be \"balanced\" or a vector named by the classes \\(setosa, versicolor\\)")
  expect_error(rlsc(x, y, class_weights = c(setosa = 1, versicolor = -1)), "must be finite and non-negative")
  expect_error(rlsc(x, as.numeric(y), class_weights = "balanced"), "`class_weights` needs a classification fit")
})

test_that("a criterion function that fails or returns the wrong length is a clear error", {
  d <- make_data(20, 2, seed = 313)
  expect_error(rlsc(d$x, d$y, criterion = function(y, pred, weights) c(1, 2)),
               "the `criterion` function must return one number per lambda, not 2 numbers")
  expect_error(rlsc(d$x, d$y, criterion = function(y, pred, weights) "a"),
               "the `criterion` function must return one number per lambda, not character vector")
  expect_error(rlsc(d$x, d$y, criterion = function(y, pred, weights) stop("boom")),
               "the `criterion` function failed: boom")
})

test_that("AUC with a fold of one class names the fold, not the lambda grid (issue 27)", {
  d <- make_data(60, 3, seed = 316)
  y <- factor(rep(c("a", "b"), 30))
  folds <- rep(2:3, each = 2, length.out = 60)
  folds[1:20][y[1:20] == "a"] <- 1   # fold 1 holds only class a
  msg <- paste0("^`criterion` = \"auc\" needs both classes in the held-out rows of every fold: fold 1's 10 ",
                "rows of positive weight are all of class 'a', so its AUC is undefined; choose folds that ",
                "hold both classes$")
  expect_error(rlsc(d$x, y, criterion = "auc", foldid = folds), msg)
  # by its label; dual and chunked alike
  expect_error(rlsc(d$x, y, criterion = "auc", foldid = c("p", "q", "r")[folds]), "fold p's 10 rows")
  expect_error(rlsc(d$x, y, criterion = "auc", foldid = folds, kernel = kernel_rbf(2)), msg)
  expect_error(rlsc(chunk_matrix(d$x, y, chunk_rows = 25, foldid = folds), criterion = "auc", cv = 3), msg)
  # a fold of one class whose rows all weigh 0 is no fold: no error
  w <- ifelse(folds == 1, 0, 1)
  fit <- rlsc_short(d$x, y, weights = w, criterion = "auc", foldid = folds, lambda = c(10, 1))
  expect_identical(fit$cv, 2L)
  # leave-one-out: one class among the rows of positive weight
  expect_error(rlsc(d$x, y, criterion = "auc", weights = as.numeric(y == "b")),
               "^`criterion` = \"auc\" needs both classes among the rows of positive weight: all 30 are of class 'b'$")
})

test_that("per_response with many targets at an end of the grid: one warning saying how many (issue 27)", {
  set.seed(317)
  x <- matrix(rnorm(60 * 4), 60)
  y <- matrix(rnorm(60 * 400), 60, dimnames = list(NULL, sprintf("t%03d", 1:400)))
  warnings <- character()
  fit <- withCallingHandlers(rlsc(x, y, per_response = TRUE), warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_length(warnings, 1L)
  at_end <- names(fit$lambda_min)[fit$index_min %in% c(1L, length(fit$lambda))]
  expect_gt(length(at_end), 100)
  expect_match(warnings, paste0("^`lambda_min` of [0-9]+ response column\\(s\\) \\(",
                                paste0("`", at_end[1:5], "`", collapse = ", "), " and [0-9]+ more\\) is at an end"))
  # (the count: those of them whose criterion keeps decreasing beyond their end)
  n <- as.integer(sub("^`lambda_min` of ([0-9]+) .*", "\\1", warnings))
  expect_lte(n, length(at_end))
  expect_gt(n, 0)
})
