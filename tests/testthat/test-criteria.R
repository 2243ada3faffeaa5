# The criteria that choose lambda, against direct computations from
# brute-force leave-one-out predictions.

test_that("mae, auc (leave-pair-out) and a user's function are computed exactly", {
  d <- make_data(40, 3, seed = 311)
  w <- runif(40, 0.5, 2)
  lambda <- c(20, 2, 0.2)
  fit <- rlsc_short(d$x, d$y, weights = w, lambda = lambda, criterion = "mae")
  loo <- sapply(lambda, function(l) ref_loo(d$x, d$y, w, l))
  mae <- apply(abs(d$y - loo), 2, function(e) ref_criterion(e, w))
  expect_equal(fit$cvm, mae[1, ], tolerance = 1e-9)
  expect_equal(fit$cvsd, mae[2, ], tolerance = 1e-9)
  expect_equal(fit$path$mse, colSums(w * (d$y - loo)^2) / sum(w), tolerance = 1e-9)

  # binary AUC: leave-pair-out, against refits without each pair
  rows <- c(51:80, 101:130)
  x <- as.matrix(iris[rows, 1:4])
  y <- droplevels(iris$Species[rows])
  wb <- runif(60, 0.5, 2)
  auc <- rlsc_short(x, y, weights = wb, lambda = lambda, criterion = "auc")
  ref <- ref_lpo_auc(y == "virginica", wb, lambda, function(keep, r, l) {
    ref_predict(ref_coef(x[keep, ], ref_code(y)[keep, , drop = FALSE], wb[keep], l), x[r, ])
  })
  expect_equal(auc$cvm, ref, tolerance = 1e-10)
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
  expect_length(seen$pred, 60)
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
  # one lambda per column when named by the columns, as lambda_min is (in
  # any order); unnamed values are a path whatever their number (issue 46)
  own <- coef(fit, c(b = 2, a = 1, c = 3))
  expect_identical(dim(own), c(5L, 3L))
  for (j in 1:3) expect_equal(unname(own[, j]), drop(ref_coef(d$x, d$y[, j], lambda = j)), tolerance = 1e-9)
  expect_equal(unname(predict(fit, d$x[1:4, ], c(c = 3, b = 2, a = 1))),
               ref_predict(cbind(ref_coef(d$x, d$y[, 1], lambda = 1), ref_coef(d$x, d$y[, 2], lambda = 2),
                                 ref_coef(d$x, d$y[, 3], lambda = 3)), d$x[1:4, ]), tolerance = 1e-9)
  three <- coef(fit, c(1, 2, 3))
  expect_identical(dim(three), c(5L, 3L, 3L))
  expect_identical(dimnames(three)[[3L]], c("1", "2", "3"))
  for (k in 1:3) expect_equal(unname(three[, , k]), unname(ref_coef(d$x, d$y, lambda = k)), tolerance = 1e-9)
  expect_identical(dim(predict(fit, d$x[1:4, ], s = c(1, 2, 3))), c(4L, 3L, 3L))
  expect_error(coef(fit, c(a = 1, b = 2, d = 3)),
               "^`lambda` named by response columns gives one lambda per column and must name each once \\(`a`, `b`, `c`\\), not `a`, `b`, `d`")
  expect_error(fitted(fit, c(1, 2, 3)),
               "^`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\" \\(or one per response column, named by them as `lambda_min` is\\), not double vector of length 3$")
  expect_equal(unname(fitted(fit, c(c = 3, a = 1, b = 2))[, 2]),
               drop(ref_predict(ref_coef(d$x, d$y[, 2], lambda = 2), d$x)), tolerance = 1e-9)
  expect_output(print(fit), "lambda_min")
  expect_error(rlsc(d$x, d$y, per_response = TRUE, criterion = "mae"),
               "`per_response` = TRUE chooses each column's lambda by its squared error")
  both <- coef(fit, c(1, 2))   # not one per column: a slice per lambda
  expect_identical(dim(both), c(5L, 3L, 2L))
  expect_equal(both[, , 2], coef(rlsc_short(d$x, d$y, lambda = fit$lambda), 2), tolerance = 1e-12)
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
  expect_error(rlsc(x, y, class_weights = c(setosa = 1, virginica = 1)),
               "`class_weights` names class\\(es\\) the response does not have: `virginica`")
  expect_error(rlsc(x, y, class_weights = c(setosa = 1, versicolor = -1)), "must be finite and non-negative")
  expect_error(rlsc(x, as.numeric(y), class_weights = "balanced"), "`class_weights` needs a classification fit")
})

test_that("weights that leave one class alone are an error that names them", {
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  tail <- " with positive weight: a classification fit needs rows of at least 2 classes that weigh more than 0$"
  # (fitted, one class alone made every one-vs-all column constant: a
  # "perfect" classifier with a LOO misclassification of 0)
  expect_error(rlsc(x, y, class_weights = c(setosa = 0, versicolor = 0)),
               paste0("^`class_weights` leave only class `virginica`", tail))
  expect_error(rlsc(x, y, class_weights = c(setosa = 0, versicolor = 0, virginica = 0)),
               paste0("^`class_weights` leave no class", tail))
  expect_error(rlsc(x, y, weights = ifelse(y == "setosa", 1, 0)), paste0("^`weights` leave only class `setosa`", tail))
  two <- droplevels(y[1:100])
  expect_error(rlsc(x[1:100, ], two, weights = rep(c(1, 0), each = 50)),
               paste0("^`weights` leave only class `setosa`", tail))
  expect_error(rlsc(x[1:100, ], two, class_weights = c(versicolor = 0), cv = 5),
               paste0("^`class_weights` leave only class `setosa`", tail))
  expect_error(rlsc(chunk_matrix(x, y, chunk_rows = 50), class_weights = c(setosa = 0, versicolor = 0)),
               paste0("^`class_weights` leave only class `virginica`", tail))
  # a chunk source's row weights, counted by class in its levels pre-scan
  # (they fitted a classifier of one class: misclassification 0)
  expect_error(rlsc(chunk_matrix(x, y, weights = ifelse(y == "setosa", 1, 0), chunk_rows = 50)),
               paste0("^`weights` leave only class `setosa`", tail))
  expect_error(rlsc(chunk_matrix(x, y, weights = ifelse(y == "setosa", 0, 1), chunk_rows = 50),
                    class_weights = c(versicolor = 0)),
               paste0("^`weights` and `class_weights` leave only class `virginica`", tail))
  df <- transform(iris, w = ifelse(Species == "virginica", 1, 0))
  parts <- chunk_source(split(df, rep(1:3, length.out = 150)), identity)
  expect_error(rlsc(Species ~ Sepal.Length + Petal.Width, data = parts, weights = w),
               paste0("^`weights` leave only class `virginica`", tail))
  # ... and weights that leave two classes fit from chunks as in memory
  two <- ifelse(y == "setosa", 0, 1)
  expect_equal(rlsc_short(chunk_matrix(x, y, weights = two, chunk_rows = 50), lambda = c(1, 0.1))$path,
               rlsc_short(x, y, weights = two, lambda = c(1, 0.1))$path, tolerance = 1e-10)
  # both together: each took a class
  expect_error(rlsc(x, y, weights = ifelse(y == "setosa", 0, 1), class_weights = c(versicolor = 0)),
               paste0("^`weights` and `class_weights` leave only class `virginica`", tail))
  expect_error(rlsc(x, y, weights = ifelse(y == "setosa", 1, 0), class_weights = c(setosa = 0)),
               paste0("^`weights` and `class_weights` leave no class", tail))
  # one class of a dominant row: the share message names the product
  expect_error(rlsc(x[1:90, ], factor(c("a", rep("b", 89))), class_weights = c(b = 1e-12)),
               "^`weights` times `class_weights` must leave more than 1e-6 of their total")
  # two classes left of three fit, as the same fit with those rows' weights 0
  left <- rlsc_short(x, y, class_weights = c(setosa = 0), lambda = c(1, 0.1))
  expect_equal(coef(left), coef(rlsc_short(x, y, weights = ifelse(y == "setosa", 0, 1), lambda = c(1, 0.1))))
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

test_that("GCV is n RSS_w / (n - tr H)^2 with the whole hat matrix, formed densely", {
  # the hat matrix H (n x n) of the weighted ridge fit, intercept included:
  # H = X1 (X1' W X1 + lambda P)^-1 X1' W
  dense_gcv <- function(x, y, w, lambda, intercept) {
    x1 <- if (intercept) cbind(1, x) else x
    pen <- diag(c(if (intercept) 0, rep(1, ncol(x))), ncol(x1))
    h <- x1 %*% solve(crossprod(x1, w * x1) + lambda * pen, t(w * x1))
    r <- y - h %*% y
    n <- sum(w > 0)
    n^2 * (sum(w * r^2) / sum(w)) / (n - sum(diag(h)))^2
  }
  lambda <- c(30, 3, 0.3, 0.01)
  for (shape in c("primal", "dual")) {
    d <- if (shape == "primal") make_data(30, 4, seed = 321) else make_data(12, 20, seed = 322)
    n <- nrow(d$x)
    for (icpt in c(TRUE, FALSE)) for (weighted in c(FALSE, TRUE)) {
      w <- if (weighted) runif(n, 0.3, 2) else rep(1, n)
      fit <- rlsc_short(d$x, d$y, weights = if (weighted) w, lambda = lambda, intercept = icpt,
                        cv = "gcv")
      expect_identical(fit$form, shape)
      ref <- vapply(lambda, function(l) dense_gcv(d$x, d$y, w, l, icpt), 1)
      expect_equal(fit$cvm, ref, tolerance = 1e-9, info = paste(shape, icpt, weighted))
    }
  }
  # a kernel fit: H from the bordered system's fits of the unit vectors
  s <- sine_data(25, 323)
  k <- ref_rbf(s$x, sigma = 0.7)
  w <- runif(25, 0.5, 1.5)
  for (icpt in c(TRUE, FALSE)) {
    kf <- rlsc_short(s$x, s$y, weights = w, kernel = kernel_rbf(0.7), lambda = lambda,
                     intercept = icpt, cv = "gcv")
    ref <- vapply(lambda, function(l) {
      h <- ref_kernel_predict(ref_bordered(k, diag(25), w, l, icpt), k)
      r <- s$y - h %*% s$y
      25^2 * (sum(w * r^2) / sum(w)) / (25 - sum(diag(h)))^2
    }, 1)
    expect_equal(kf$cvm, ref, tolerance = 1e-8, info = icpt)
  }
})

test_that("GCV counts the intercept's degree of freedom, which MASS::lm.ridge leaves out", {
  skip_if_not_installed("MASS")
  lambda <- c(20, 5, 1, 0.2)
  fit <- rlsc_short(mpg ~ ., data = mtcars, cv = "gcv", standardize = TRUE, lambda = lambda)
  ref <- MASS::lm.ridge(mpg ~ ., data = mtcars, lambda = lambda)
  # MASS: RSS / (n - df)^2 with df of the slopes alone; here n RSS / (n - df - 1)^2
  n <- 32
  df <- fit$df
  expect_equal(fit$cvm, n * unname(ref$GCV) * (n - df)^2 / (n - df - 1)^2, tolerance = 1e-10)
  expect_identical(fit$lambda_min, lambda[which.min(ref$GCV * (n - df)^2 / (n - df - 1)^2)])
  expect_false(isTRUE(all.equal(fit$cvm, unname(ref$GCV))))
  # a kernel fit that interpolates as lambda -> 0 (tr H -> n): MASS's count
  # tends to 0 there, the whole trace keeps GCV away from the interpolant
  x <- scale(as.matrix(mtcars[1:24, -1]))
  kf <- rlsc_short(x, mtcars$mpg[1:24], kernel = kernel_rbf(3), cv = "gcv",
                   lambda = 10^seq(1, -8, length.out = 30))
  expect_gt(tail(kf$df, 1), 22.99)
  expect_gt(tail(kf$cvm, 1), 2 * min(kf$cvm))
  expect_gt(kf$lambda_min, 1e-3)
  mass_count <- kf$path$rss * 24 / (24 - kf$df)^2
  expect_identical(which.min(mass_count), 30L)
})

test_that("class_weights are matched to the classes by name; an unknown class is an error", {
  x <- as.matrix(iris[, 1:4])
  a <- rlsc_short(x, iris$Species, class_weights = c(virginica = 2, setosa = 0.5, versicolor = 1),
                  lambda = c(1, 0.1))
  w <- c(setosa = 0.5, versicolor = 1, virginica = 2)[as.character(iris$Species)]
  b <- rlsc_short(x, iris$Species, weights = unname(w), lambda = c(1, 0.1))
  expect_equal(coef(a), coef(b), tolerance = 1e-12)
  expect_equal(unname(coef(a)), unname(ref_coef(x, ref_code(iris$Species), unname(w), a$lambda_min)),
               tolerance = 1e-9)
  # classes not named weigh 1
  part <- rlsc_short(x, iris$Species, class_weights = c(virginica = 2), lambda = c(1, 0.1))
  w2 <- ifelse(iris$Species == "virginica", 2, 1)
  expect_equal(coef(part), coef(rlsc_short(x, iris$Species, weights = w2, lambda = c(1, 0.1))),
               tolerance = 1e-12)
  expect_error(rlsc(x, iris$Species, class_weights = c(virginica = 2, setosa_ = 1)),
               paste("`class_weights` names class\\(es\\) the response does not have: `setosa_`",
                     "\\(its classes are `setosa`, `versicolor`, `virginica`\\)"))
  expect_error(rlsc(x, iris$Species, class_weights = c(2, 1, 1)),
               "`class_weights` must be \"balanced\" or a numeric vector named by the classes .*not an unnamed one")
  expect_error(rlsc(x, iris$Species, class_weights = c(setosa = 1, setosa = 2)),
               "`class_weights` must name each class once, not `setosa`")
  # chunks: the same names, the same fit
  src <- chunk_matrix(x, iris$Species, chunk_rows = 40)
  expect_equal(coef(rlsc_short(src, class_weights = c(virginica = 2, setosa = 0.5), lambda = c(1, 0.1))),
               coef(rlsc_short(x, iris$Species, class_weights = c(virginica = 2, setosa = 0.5),
                               lambda = c(1, 0.1))), tolerance = 1e-10)

})

test_that("AUC with a fold of one class names the fold, not the lambda grid (issue 27)", {
  d <- make_data(60, 3, seed = 316)
  y <- factor(rep(c("a", "b"), 30))
  folds <- rep(2:3, each = 2, length.out = 60)
  folds[1:20][y[1:20] == "a"] <- 1   # fold 1 holds only class a
  lam <- c(10, 1)
  # that fold has no AUC: the mean of the others', with a warning naming it (by its label)
  expect_warning(fit <- rlsc_short(d$x, y, criterion = "auc", foldid = folds, lambda = lam),
                 "the AUC is undefined in fold\\(s\\) 1, whose held-out rows hold one class only")
  held <- function(k, l) {
    tr <- folds != k
    drop(ref_predict(ref_coef(d$x[tr, ], ref_code(y[tr]), lambda = l), d$x[!tr, , drop = FALSE]))
  }
  ref <- vapply(lam, function(l) {
    auc <- vapply(2:3, function(k) ref_auc(held(k, l), y[folds == k] == "b"), 1)
    sum(auc * table(folds)[2:3]) / sum(table(folds)[2:3])
  }, 1)
  expect_equal(fit$cvm, ref, tolerance = 1e-10)
  expect_warning(rlsc_short(d$x, y, criterion = "auc", foldid = c("p", "q", "r")[folds], lambda = lam),
                 "fold\\(s\\) p,")
  expect_warning(rlsc_short(chunk_matrix(d$x, y, chunk_rows = 25, foldid = folds), criterion = "auc",
                            cv = 3, lambda = lam), "fold\\(s\\) 1,")
  # every fold of one class: an error that says how to get folds with both
  expect_error(rlsc(d$x, y, criterion = "auc", foldid = ifelse(y == "a", 1, 2)),
               "every fold holds one class only; use `cv` = K \\(folds stratified by class\\)")
  # a fold of one class whose rows all weigh 0 is no fold: no warning
  w <- ifelse(folds == 1, 0, 1)
  fit <- rlsc_short(d$x, y, weights = w, criterion = "auc", foldid = folds, lambda = lam)
  expect_identical(fit$cv, 2L)
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

test_that("per-response criteria keep apart from the table's own columns: se, another's _se, repeated names", {
  d <- mtcars
  d$se <- d$mpg
  x <- as.matrix(d[c("wt", "hp", "disp")])
  ref <- rlsc(x, cbind(a = d$mpg, b = d$qsec), per_response = TRUE)
  # mse_se is the standard error of mse: a response named se is labelled se.1
  # (its lambda was chosen by that standard error before)
  named_se <- rlsc(x, cbind(se = d$mpg, b = d$qsec), per_response = TRUE)
  expect_named(named_se$lambda_min, c("se.1", "b"))
  expect_identical(unname(named_se$lambda_min), unname(ref$lambda_min))
  expect_false(anyDuplicated(names(named_se$path)) > 0)
  expect_equal(named_se$path$mse_se.1, ref$path$mse_a)
  expect_equal(named_se$path$mse_se, ref$path$mse_se)
  expect_equal(unname(coef(named_se)), unname(coef(ref)))
  expect_identical(colnames(coef(named_se)), c("se", "b"))
  formula_se <- rlsc(se ~ wt + hp + disp, data = d, per_response = TRUE)
  expect_identical(unname(formula_se$lambda_min), unname(ref$lambda_min[1L]))
  # two columns of one name: each its own criterion and lambda
  twice <- rlsc(x, cbind(a = d$mpg, a = d$qsec), per_response = TRUE)
  expect_named(twice$lambda_min, c("a", "a.1"))
  expect_identical(unname(twice$lambda_min), unname(ref$lambda_min))
  # a response named as another's standard error column: mse_a_se was both
  se_named <- rlsc(x, cbind(a = d$mpg, a_se = d$qsec), per_response = TRUE)
  expect_named(se_named$lambda_min, c("a", "a_se.1"))
  expect_identical(unname(se_named$lambda_min), unname(ref$lambda_min))
  expect_false(anyDuplicated(names(se_named$path)) > 0)
})
