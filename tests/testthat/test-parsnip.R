# The parsnip engine (R/parsnip.R).  parsnip, tune, rsample, workflows and
# yardstick are suggested: each test says which one it lacks
# (need_tidymodels(), helper-tidymodels.R).

test_that("loading parsnip registers the rlsc engine for regression and classification", {
  need_tidymodels("parsnip")
  for (model in c("linear_reg", "logistic_reg", "multinom_reg")) {
    expect_true("rlsc" %in% parsnip::show_engines(model)$engine, label = model)
  }
  # registering again (parsnip's load event, which registers the engine)
  # changes nothing
  before <- parsnip::get_model_env()$linear_reg_fit
  hooks <- getHook(packageEvent("parsnip", "onLoad"))
  expect_gte(length(hooks), 1L)
  expect_no_warning(for (h in hooks) h("parsnip", dirname(getNamespaceInfo("parsnip", "path"))))
  expect_identical(parsnip::get_model_env()$linear_reg_fit, before)
})

test_that("a parsnip fit predicts as rlsc() at the penalty, and at lambda_min without one", {
  need_tidymodels("parsnip")
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 3), "rlsc")
  fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)
  # the engine standardizes by default, as the glmnet engine
  ref <- rlsc(mpg ~ ., data = mtcars, standardize = TRUE)
  expect_equal(predict(fit, mtcars[1:5, ])$.pred, unname(predict(ref, mtcars[1:5, ], lambda = 3)),
               tolerance = 1e-10)
  expect_identical(parsnip::extract_fit_engine(fit)$lambda, 3)
  # no penalty: exact LOO over rlsc's own grid
  loo <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(), "rlsc", standardize = TRUE),
                      mpg ~ ., data = mtcars)
  std <- rlsc(mpg ~ ., data = mtcars, standardize = TRUE)
  expect_equal(parsnip::extract_fit_engine(loo)$lambda_min, std$lambda_min, tolerance = 1e-12)
  expect_equal(predict(loo, mtcars)$.pred, unname(predict(std, mtcars)), tolerance = 1e-10)
  # factors become indicator columns, as in rlsc's formula method
  air <- transform(airquality[complete.cases(airquality), ], Month = factor(Month))
  fa <- parsnip::fit(spec, Ozone ~ ., data = air)
  expect_equal(predict(fa, air)$.pred,
               unname(predict(rlsc(Ozone ~ ., data = air, standardize = TRUE), air, lambda = 3)),
               tolerance = 1e-9)
  # case weights are rlsc's weights
  w <- rep(c(1, 3), 16)
  wt <- transform(mtcars, w = hardhat::importance_weights(w))
  fw <- parsnip::fit(spec, mpg ~ . - w, data = wt, case_weights = wt$w)
  expect_equal(predict(fw, mtcars)$.pred,
               unname(predict(rlsc(mpg ~ ., data = mtcars, weights = w, standardize = TRUE), mtcars,
                              lambda = 3)),
               tolerance = 1e-10)
  # standardize = FALSE fits the columns as given, as rlsc() does by default
  raw <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 3), "rlsc", standardize = FALSE),
                      mpg ~ ., data = mtcars)
  expect_equal(predict(raw, mtcars)$.pred, unname(predict(rlsc(mpg ~ ., data = mtcars), mtcars, lambda = 3)),
               tolerance = 1e-10)
})

test_that("multi_predict() gives every penalty from one fit, exactly", {
  need_tidymodels("parsnip")
  fit <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 10), "rlsc"),
                      mpg ~ wt + hp + qsec, data = mtcars)
  ref <- rlsc(mpg ~ wt + hp + qsec, data = mtcars, standardize = TRUE)
  pen <- c(0, 0.5, 10, 1e3)
  mp <- parsnip::multi_predict(fit, mtcars[1:4, ], penalty = pen)
  expect_identical(nrow(mp), 4L)
  expect_identical(names(mp$.pred[[2]]), c("penalty", ".pred"))
  for (i in 1:4) {
    expect_identical(mp$.pred[[i]]$penalty, pen)
    want <- vapply(pen, function(l) unname(predict(ref, mtcars[i, ], lambda = l)), 1)
    expect_equal(mp$.pred[[i]]$.pred, want, tolerance = 1e-10)
  }
  # in increasing order, as the glmnet engine gives them
  mp <- parsnip::multi_predict(fit, mtcars[1:4, ], penalty = rev(pen))
  expect_identical(mp$.pred[[3]]$penalty, pen)
  expect_equal(mp$.pred[[3]]$.pred, vapply(pen, function(l) unname(predict(ref, mtcars[3, ], lambda = l)), 1),
               tolerance = 1e-10)
  # by default the fit's grid, here its one penalty
  expect_identical(parsnip::multi_predict(fit, mtcars[1:2, ])$.pred[[1]]$penalty, 10)
  expect_error(parsnip::multi_predict(fit, mtcars[1:2, ], penalty = -1),
               "^`penalty` must be numbers >= 0, not -1$")
  expect_error(parsnip::multi_predict(fit, mtcars[1:2, ], type = "prob"),
               "^`type` must be \"numeric\" for a regression fit, not prob$")
})

test_that("classification: logistic_reg() and multinom_reg() give RLSC's classes and probabilities", {
  need_tidymodels("parsnip")
  fl <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(penalty = 2), "rlsc"), Species ~ ., data = iris)
  new <- iris[c(1, 51, 71, 101, 120), ]
  prob <- predict(fl, new, type = "prob")
  expect_identical(names(prob), paste0(".pred_", levels(iris$Species)))
  # the fit at penalty 2 is rlsc's fit of that one lambda, its map calibrated there
  at2 <- rlsc(Species ~ ., data = iris, lambda = 2, standardize = TRUE)
  expect_equal(unname(as.matrix(prob)), unname(predict(at2, new, type = "prob")), tolerance = 1e-8)
  expect_equal(rowSums(prob), rep(1, 5), tolerance = 1e-12)
  # the class is the most probable class
  expect_identical(predict(fl, new)$.pred_class, unname(predict(at2, new, type = "class", class_rule = "prob")))
  mp <- parsnip::multi_predict(fl, new, type = "prob", penalty = c(2, 20))
  # other penalties: the probabilities of a fit at that penalty (issue 46)
  expect_equal(unlist(mp$.pred[[3]][2, -1]), predict(at2, new[3, ], lambda = 20, type = "prob")[1, ],
               tolerance = 1e-8, ignore_attr = TRUE)
  expect_equal(unlist(mp$.pred[[3]][2, -1]),
               predict(rlsc(Species ~ ., data = iris, lambda = 20, standardize = TRUE), new[3, ], type = "prob")[1, ],
               tolerance = 1e-8, ignore_attr = TRUE)
  mc <- parsnip::multi_predict(fl, new, penalty = c(2, 20))
  expect_identical(mc$.pred[[2]]$.pred_class,
                   unname(c(predict(at2, new[2, ], lambda = 2, type = "class", class_rule = "prob"),
                            predict(at2, new[2, ], lambda = 20, type = "class", class_rule = "prob"))))
  bin <- droplevels(iris[51:150, ])
  lr <- parsnip::fit(parsnip::set_engine(parsnip::logistic_reg(), "rlsc"), Species ~ ., data = bin)
  two <- rlsc(Species ~ ., data = bin, standardize = TRUE)
  expect_equal(unname(as.matrix(predict(lr, bin, type = "prob"))), unname(predict(two, bin, type = "prob")),
               tolerance = 1e-8)
  expect_identical(predict(lr, bin)$.pred_class, unname(predict(two, bin, type = "class", class_rule = "prob")))
  expect_error(parsnip::fit(parsnip::set_engine(parsnip::logistic_reg(), "rlsc"), Species ~ ., data = iris),
               "binary outcome")
  expect_error(parsnip::fit(parsnip::set_engine(parsnip::linear_reg(mixture = 0.5), "rlsc"), mpg ~ ., data = mtcars),
               "the rlsc engine fits ridge penalties: `mixture` must be 0 \\(or not given\\), not 0.5")
})

test_that("tune_grid() over vfold_cv() equals rlsc's exact K-fold on the same folds", {
  need_tidymodels()
  set.seed(21)
  folds <- rsample::vfold_cv(mtcars, v = 5)   # folds of 7, 7, 6, 6 and 6 rows
  lam <- rlsc(mpg ~ ., data = mtcars, nlambda = 12)$lambda
  # rlsc's K-fold keeps the columns as given in every fold: so does the engine
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = tune::tune()), "rlsc", standardize = FALSE)
  res <- tune::tune_grid(spec, mpg ~ ., resamples = folds, grid = data.frame(penalty = lam),
                         metrics = yardstick::metric_set(yardstick::rmse))
  per_fold <- tune::collect_metrics(res, summarize = FALSE)
  foldid <- fold_labels(folds, nrow(mtcars))
  kf <- rlsc(mpg ~ ., data = mtcars, foldid = foldid, lambda = lam)
  expect_identical(kf$cv, 5L)
  sizes <- tabulate(foldid)
  # rlsc's K-fold criterion is the mean over folds of each fold's mean squared
  # error, weighted by the folds' sizes (their sums of weights, as cv.glmnet);
  # yardstick's rmse per fold, squared, weighted the same way, is the same
  # number.  collect_metrics()'s summary is the unweighted mean of the rmse,
  # another number.
  fold_of <- as.integer(sub("Fold", "", per_fold$id))
  for (l in lam) {
    at <- abs(per_fold$penalty - l) <= 1e-12 * l
    expect_identical(sum(at), 5L)
    mse <- per_fold$.estimate[at]^2
    expect_equal(sum(sizes[fold_of[at]] * mse) / sum(sizes), kf$cvm[kf$lambda == l], tolerance = 1e-10)
  }
  # with folds of equal size, the unweighted mean over folds is the same too
  set.seed(4)
  d <- mtcars[1:30, ]
  folds <- rsample::vfold_cv(d, v = 5)
  res <- tune::tune_grid(spec, mpg ~ wt + hp + qsec + am, resamples = folds, grid = data.frame(penalty = lam[4:6]),
                         metrics = yardstick::metric_set(yardstick::rmse))
  per_fold <- tune::collect_metrics(res, summarize = FALSE)
  # foldid is evaluated in the model frame, as lm() does with weights, so the
  # call is written out rather than passed through rlsc_short()'s `...`
  kf <- quiet_boundary(rlsc(mpg ~ wt + hp + qsec + am, data = d, foldid = fold_labels(folds, 30), lambda = lam[4:6]))
  mse <- tapply(per_fold$.estimate^2, per_fold$penalty, mean)   # increasing penalties
  expect_equal(as.vector(mse), rev(kf$cvm), tolerance = 1e-10)
})

test_that("sigma of the RBF kernel tunes by resampling, with exact predictions at every penalty", {
  need_tidymodels()
  set.seed(3)
  folds <- rsample::vfold_cv(mtcars, v = 4)
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = tune::tune()), "rlsc",
                              sigma = tune::tune(), standardize = TRUE)
  params <- hardhat::extract_parameter_set_dials(spec)
  expect_identical(params$name, c("penalty", "sigma"))
  grid <- expand.grid(penalty = c(0.01, 0.1, 1), sigma = c(4, 8))
  res <- tune::tune_grid(spec, mpg ~ ., resamples = folds, grid = grid,
                         metrics = yardstick::metric_set(yardstick::rmse))
  per_fold <- tune::collect_metrics(res, summarize = FALSE)
  foldid <- fold_labels(folds, 32)
  sizes <- tabulate(foldid)
  fold_of <- as.integer(sub("Fold", "", per_fold$id))
  for (s in c(4, 8)) {
    # standardize = TRUE scales each analysis set by its own standard
    # deviations: the reference refits each fold the same way
    for (k in 1:4) {
      train <- mtcars[foldid != k, ]
      ref <- rlsc(mpg ~ ., data = train, standardize = TRUE, kernel = kernel_rbf(sigma = s),
                  lambda = c(1, 0.1, 0.01))
      for (l in c(0.01, 0.1, 1)) {
        at <- per_fold$penalty == l & per_fold$sigma == s & fold_of == k
        err <- sqrt(mean((predict(ref, mtcars[foldid == k, ], lambda = l) - mtcars$mpg[foldid == k])^2))
        expect_equal(per_fold$.estimate[at], err, tolerance = 1e-9)
      }
    }
  }
  expect_error(rlsc_train(as.matrix(mtcars[, -1]), mtcars$mpg, sigma = 2, kernel = kernel_polynomial()),
               "^`sigma` sets the width of an RBF kernel: `kernel` must be \"rbf\", kernel_rbf\\(\\)")
  expect_error(rlsc_train(as.matrix(mtcars[, -1]), mtcars$mpg, sigma = c(1, 2)),
               "^`sigma` must be a single positive number, not 1, 2$")
  expect_error(rlsc_train(as.matrix(mtcars[, -1]), mtcars$mpg, penalty = c(1, 2)),
               "^`penalty` must be a single number >= 0 for the rlsc engine, not 1, 2$")
  # (numbers of different widths without format()'s padding)
  expect_error(rlsc_train(as.matrix(mtcars[, -1]), mtcars$mpg, penalty = c(1, 10)),
               "^`penalty` must be a single number >= 0 for the rlsc engine, not 1, 10$")
})

test_that("rlsc_train() sets sigma in Nystrom kernels and keeps exact kernels' eigenvectors", {
  x <- scale(as.matrix(mtcars[, -1]))
  set.seed(1)
  ny <- rlsc_train(x, mtcars$mpg, sigma = 3, kernel = nystrom(kernel_rbf(sigma = 1), m = 10), penalty = 1)
  set.seed(1)
  ref <- rlsc(x, mtcars$mpg, kernel = nystrom(kernel_rbf(sigma = 3), m = 10), lambda = 1, standardize = TRUE)
  expect_equal(predict(ny, x), predict(ref, x), tolerance = 1e-12)
  ex <- rlsc_train(x, mtcars$mpg, sigma = 3, penalty = 1)
  expect_identical(ex$sigma_min, 3)
  # any other penalty, exactly (a fit without kept eigenvectors serves its grid only)
  direct <- rlsc(x, mtcars$mpg, kernel = kernel_rbf(sigma = 3), lambda = 0.2, standardize = TRUE)
  expect_equal(predict(ex, x[1:3, ], lambda = 0.2), predict(direct, x[1:3, ]), tolerance = 1e-9)
})

test_that("a fixed penalty = 0 fits where a row has leverage 1, as lm() does", {
  need_tidymodels("parsnip")
  d <- data.frame(y = c(1.2, 2.3, 2.9, 4.1, 5.2, 5.8, 7.1), x = 1:7,
                  g = factor(c("a", "a", "b", "b", "a", "b", "c")))
  # (an error: "the leave-one-out criterion is undefined (NA) at every value of `lambda`")
  expect_warning(f <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 0), "rlsc"),
                                   y ~ x + g, data = d),
                 "undefined \\(NA\\) for up to 1 point")
  expect_equal(unname(predict(f, d)$.pred), unname(fitted(lm(y ~ x + g, d))), tolerance = 1e-10)
})

# ---- as the glmnet engine (issue 47) -------------------------------------------

# The standardized ridge fit by the normal equations, as an independent
# reference: columns scaled by their 1/n standard deviations, the intercept
# unpenalized.  Coefficients in the original units.
ridge_solve <- function(x, y, lambda) {
  sd_n <- sqrt(colMeans(sweep(x, 2, colMeans(x))^2))
  xs <- scale(x, scale = sd_n)
  beta <- solve(crossprod(xs) + lambda * diag(ncol(x)), crossprod(xs, y - mean(y))) / sd_n
  c(`(Intercept)` = mean(y) - sum(colMeans(x) * beta), stats::setNames(drop(beta), colnames(x)))
}

test_that("tidy() gives the coefficients at the model's penalty, or at another, as the glmnet engine's tibble", {
  need_tidymodels("parsnip")
  fit <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 3), "rlsc"), mpg ~ ., data = mtcars)
  x <- as.matrix(mtcars[, -1])
  td <- generics::tidy(fit)
  expect_s3_class(td, "tbl_df")
  expect_identical(names(td), c("term", "estimate", "penalty"))
  expect_identical(td$term, c("(Intercept)", colnames(x)))
  expect_equal(td$estimate, unname(ridge_solve(x, mtcars$mpg, 3)), tolerance = 1e-9)
  expect_identical(unique(td$penalty), 3)
  at10 <- generics::tidy(fit, penalty = 10)
  expect_equal(at10$estimate, unname(ridge_solve(x, mtcars$mpg, 10)), tolerance = 1e-9)
  expect_identical(unique(at10$penalty), 10)
  expect_error(generics::tidy(fit, penalty = c(1, 10)),
               "^`penalty` must be a single number >= 0 \\(multi_predict\\(\\) predicts at several\\), not 1, 10$")
  # three classes: a row per class and term, the class first
  fl <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(penalty = 2), "rlsc"), Species ~ ., data = iris)
  tl <- generics::tidy(fl)
  expect_identical(names(tl), c("class", "term", "estimate", "penalty"))
  ref <- coef(rlsc(Species ~ ., data = iris, lambda = 2, standardize = TRUE))
  expect_identical(tl$class, rep(levels(iris$Species), each = 5))
  expect_equal(tl$estimate, as.vector(ref), tolerance = 1e-10)
  # without a penalty: the leave-one-out choice
  loo <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(), "rlsc"), mpg ~ ., data = mtcars)
  expect_identical(unique(generics::tidy(loo)$penalty), parsnip::extract_fit_engine(loo)$lambda_min)
})

test_that("predict() takes a penalty, as the glmnet engine does", {
  need_tidymodels("parsnip")
  fit <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 3), "rlsc"), mpg ~ ., data = mtcars)
  x <- as.matrix(mtcars[, -1])
  for (p in c(0, 1, 3, 50)) {
    b <- ridge_solve(x, mtcars$mpg, p)
    expect_equal(predict(fit, mtcars[1:5, ], penalty = p)$.pred, unname(drop(cbind(1, x[1:5, ]) %*% b)),
                 tolerance = 1e-9, info = p)
  }
  # tune calls predict.model_fit() itself: the model's penalty there too
  expect_equal(parsnip::predict.model_fit(fit, mtcars[1:5, ])$.pred, predict(fit, mtcars[1:5, ])$.pred)
  expect_error(predict(fit, mtcars, penalty = c(1, 2)), "^`penalty` must be a single number >= 0")
  expect_error(predict(fit, mtcars, penalty = -1), "^`penalty` must be a single number >= 0")
  # classification: classes and probabilities as rlsc's at that penalty
  fl <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(penalty = 2), "rlsc"), Species ~ ., data = iris)
  ref <- parsnip::extract_fit_engine(fl)
  new <- iris[c(1, 51, 71, 101, 120), ]
  expect_equal(unname(as.matrix(predict(fl, new, type = "prob", penalty = 20))),
               unname(predict(ref, new, lambda = 20, type = "prob")), tolerance = 1e-12)
  expect_identical(predict(fl, new, penalty = 20)$.pred_class,
                   unname(predict(ref, new, lambda = 20, type = "class", class_rule = "prob")))
})

test_that("mixture: 0 alone fits, any other value is a clear error, and mixture = tune() tunes the one value 0", {
  need_tidymodels()
  fit <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 3, mixture = 0), "rlsc"),
                      mpg ~ ., data = mtcars)
  expect_equal(predict(fit, mtcars)$.pred, unname(drop(cbind(1, as.matrix(mtcars[, -1])) %*%
                                                         ridge_solve(as.matrix(mtcars[, -1]), mtcars$mpg, 3))),
               tolerance = 1e-9)
  expect_error(parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 3, mixture = 1), "rlsc"),
                            mpg ~ ., data = mtcars),
               "the rlsc engine fits ridge penalties: `mixture` must be 0 \\(or not given\\), not 1")
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = tune::tune(), mixture = tune::tune()), "rlsc")
  params <- hardhat::extract_parameter_set_dials(spec)
  expect_identical(params$name, c("penalty", "mixture"))
  grid <- dials::grid_regular(params, levels = 3)
  expect_true(all(grid$mixture == 0))
  set.seed(2)
  res <- tune::tune_grid(spec, mpg ~ ., resamples = rsample::vfold_cv(mtcars, v = 3), grid = 3,
                         metrics = yardstick::metric_set(yardstick::rmse))
  m <- tune::collect_metrics(res)
  expect_gt(nrow(m), 0)
  expect_true(all(m$mixture == 0))
})

test_that("set_engine(\"rlsc\", lambda = ) is an error naming `penalty`", {
  need_tidymodels("parsnip")
  expect_error(parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 1), "rlsc", lambda = 3),
                            mpg ~ ., data = mtcars),
               "the rlsc engine takes `lambda` from the model's `penalty`")
})

test_that("penalty maps onto the glmnet engine's: lambda_glmnet * sum(w) / sd(y), the same fit", {
  need_tidymodels("parsnip")
  skip_if_not_installed("glmnet")
  y <- mtcars$mpg
  sd_w <- function(v, w) sqrt(sum(w * (v - sum(w * v) / sum(w))^2) / sum(w))
  for (w in list(rep(1, 32), rep(c(1, 3), 16))) {
    d <- transform(mtcars, w = hardhat::importance_weights(w))
    for (lg in c(0.05, 1)) {
      # the glmnet path through lg itself: glmnet interpolates between its
      # path's values otherwise
      g <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = lg, mixture = 0), "glmnet",
                                            path_values = lg * c(4, 2, 1), thresh = 1e-22),
                        mpg ~ . - w, data = d, case_weights = d$w)
      r <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = lg * sum(w) / sd_w(y, w)), "rlsc"),
                        mpg ~ . - w, data = d, case_weights = d$w)
      expect_equal(predict(r, mtcars)$.pred, predict(g, mtcars)$.pred, tolerance = 1e-6,
                   info = paste(lg, w[2]))
      expect_equal(generics::tidy(r)$estimate, generics::tidy(g)$estimate, tolerance = 1e-6)
    }
  }
})

test_that("the engine standardizes by default: rescaling a column changes no prediction", {
  need_tidymodels("parsnip")
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 5), "rlsc")
  a <- parsnip::fit(spec, mpg ~ ., data = mtcars)
  big <- transform(mtcars, disp = disp * 1e4)
  b <- parsnip::fit(spec, mpg ~ ., data = big)
  expect_equal(predict(b, big)$.pred, predict(a, mtcars)$.pred, tolerance = 1e-10)
})

test_that("a fit at a penalty is silent about leave-one-out values; predict() warns once about its predictions", {
  need_tidymodels("parsnip")
  set.seed(1)
  x1 <- rnorm(50)
  d <- data.frame(a = x1, b = x1 + 1e-7 * rnorm(50), c = rnorm(50), y = x1 + rnorm(50))
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 1e-8), "rlsc")
  expect_no_warning(fit <- parsnip::fit(spec, y ~ ., data = d))
  said <- character()
  withCallingHandlers(predict(fit, d), warning = function(w) {
    said <<- c(said, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_length(said, 1L)
  expect_match(said, "^predictions may be inaccurate")
  expect_no_match(said, "standardize")
})

test_that("an outcome level absent from the training data gets its column, of zeros, as with glmnet", {
  need_tidymodels("parsnip")
  d <- iris
  d$Species <- factor(d$Species, levels = c(levels(iris$Species), "unseen"))
  # (rlsc says it fits the classes that occur)
  expect_warning(fit <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(penalty = 1), "rlsc"),
                                     Species ~ ., data = d),
                 "^dropping empty level\\(s\\) of `y`: 'unseen'$")
  new <- d[c(1, 51, 101), ]
  prob <- predict(fit, new, type = "prob")
  expect_identical(names(prob), paste0(".pred_", levels(d$Species)))
  expect_identical(prob$.pred_unseen, rep(0, 3))
  expect_equal(rowSums(prob), rep(1, 3), tolerance = 1e-12)
  expect_identical(levels(predict(fit, new)$.pred_class), levels(d$Species))
  mp <- parsnip::multi_predict(fit, new, type = "prob", penalty = c(1, 10))
  expect_identical(names(mp$.pred[[1]]), c("penalty", paste0(".pred_", levels(d$Species))))
  expect_identical(levels(parsnip::multi_predict(fit, new, penalty = c(1, 10))$.pred[[1]]$.pred_class),
                   levels(d$Species))
})

test_that("the printed fit shows the values of its arguments; autoplot() of a fit at a penalty says why it draws none", {
  need_tidymodels("parsnip")
  pen <- 3
  fit <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = pen), "rlsc", nlambda = 20),
                      mpg ~ ., data = mtcars)
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, "rlsc_train(x = maybe_matrix(x), y = y, penalty = 3, nlambda = 20)", fixed = TRUE)
  skip_if_not_installed("ggplot2")
  expect_error(ggplot2::autoplot(fit), "this fit has one value, 3: fit without `lambda`")
})

test_that(".pred_class is the most probable class where RLSC's largest decision value is another", {
  need_tidymodels("parsnip")
  fit <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(penalty = 1e4), "rlsc"), Species ~ ., data = iris)
  prob <- as.matrix(predict(fit, iris, type = "prob"))
  cls <- predict(fit, iris)$.pred_class
  expect_identical(as.character(cls), levels(iris$Species)[max.col(prob, ties.method = "first")])
  # (the rule matters here: the largest decision value names another class in some rows)
  decision <- predict(parsnip::extract_fit_engine(fit), iris, type = "class")
  expect_gt(sum(decision != cls), 0)
})
