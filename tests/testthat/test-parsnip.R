# The parsnip engine (R/parsnip.R).  parsnip, tune, rsample, workflows and
# yardstick are suggested: each test says which one it lacks.

# Skips unless the tidymodels packages a test needs are installed.  tzdb
# (loaded with tune) calls Sys.timezone() when it loads, which on a machine
# without systemd warns that `timedatectl` failed unless TZ is set: that
# warning is the machine's, not rlsc's, so TZ is set for the test, before
# the packages load, when it is not.
need_tidymodels <- function(pkgs = c("parsnip", "tune", "rsample", "workflows", "yardstick"),
                            envir = parent.frame()) {
  force(envir)   # the caller's frame, not this one's, when forced inside withr
  if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC", .local_envir = envir)
  for (p in pkgs) skip_if_not_installed(p)
}

# rsample's folds as rlsc's fold labels: the assessment rows of fold k get k.
fold_labels <- function(folds, n) {
  id <- integer(n)
  for (k in seq_along(folds$splits)) id[rsample::complement(folds$splits[[k]])] <- k
  id
}

test_that("loading parsnip registers the rlsc engine for regression and classification", {
  need_tidymodels("parsnip")
  for (model in c("linear_reg", "logistic_reg", "multinom_reg")) {
    expect_true("rlsc" %in% parsnip::show_engines(model)$engine, label = model)
  }
  # registering again changes nothing
  before <- parsnip::get_model_env()$linear_reg_fit
  expect_true(getFromNamespace("register_parsnip", "rlsc")())
  expect_identical(parsnip::get_model_env()$linear_reg_fit, before)
})

test_that("a parsnip fit predicts as rlsc() at the penalty, and at lambda_min without one", {
  need_tidymodels("parsnip")
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = 3), "rlsc")
  fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)
  ref <- rlsc(mpg ~ ., data = mtcars)
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
  expect_equal(predict(fa, air)$.pred, unname(predict(rlsc(Ozone ~ ., data = air), air, lambda = 3)),
               tolerance = 1e-9)
  # case weights are rlsc's weights
  w <- rep(c(1, 3), 16)
  wt <- transform(mtcars, w = hardhat::importance_weights(w))
  fw <- parsnip::fit(spec, mpg ~ . - w, data = wt, case_weights = wt$w)
  expect_equal(predict(fw, mtcars)$.pred,
               unname(predict(rlsc(mpg ~ ., data = mtcars, weights = w), mtcars, lambda = 3)),
               tolerance = 1e-10)
})

test_that("multi_predict() gives every penalty from one fit, exactly", {
  need_tidymodels("parsnip")
  fit <- parsnip::fit(parsnip::set_engine(parsnip::linear_reg(penalty = 10), "rlsc"),
                      mpg ~ wt + hp + qsec, data = mtcars)
  ref <- rlsc(mpg ~ wt + hp + qsec, data = mtcars)
  pen <- c(0, 0.5, 10, 1e3)
  mp <- parsnip::multi_predict(fit, mtcars[1:4, ], penalty = pen)
  expect_identical(nrow(mp), 4L)
  expect_identical(names(mp$.pred[[2]]), c("penalty", ".pred"))
  for (i in 1:4) {
    expect_identical(mp$.pred[[i]]$penalty, pen)
    want <- vapply(pen, function(l) unname(predict(ref, mtcars[i, ], lambda = l)), 1)
    expect_equal(mp$.pred[[i]]$.pred, want, tolerance = 1e-10)
  }
  # by default the fit's grid, here its one penalty
  expect_identical(parsnip::multi_predict(fit, mtcars[1:2, ])$.pred[[1]]$penalty, 10)
  expect_error(parsnip::multi_predict(fit, mtcars[1:2, ], penalty = -1),
               "^`penalty` must be numbers >= 0, not -1$")
  expect_error(parsnip::multi_predict(fit, mtcars[1:2, ], type = "prob"),
               "^`type` must be \"numeric\" for a regression fit, not prob$")
})

test_that("classification: logistic_reg() and multinom_reg() give RLSC's classes and probabilities", {
  need_tidymodels("parsnip")
  set.seed(3)   # the calibration folds are drawn at random
  fl <- parsnip::fit(parsnip::set_engine(parsnip::multinom_reg(penalty = 2), "rlsc"), Species ~ ., data = iris)
  ref <- rlsc(Species ~ ., data = iris)
  new <- iris[c(1, 51, 71, 101, 120), ]
  expect_identical(predict(fl, new)$.pred_class, unname(predict(ref, new, lambda = 2, type = "class")))
  prob <- predict(fl, new, type = "prob")
  expect_identical(names(prob), paste0(".pred_", levels(iris$Species)))
  # the fit at penalty 2 is rlsc's fit of that one lambda, its map calibrated there
  set.seed(3)
  at2 <- rlsc(Species ~ ., data = iris, lambda = 2)
  expect_equal(unname(as.matrix(prob)), unname(predict(at2, new, type = "prob")), tolerance = 1e-8)
  expect_equal(rowSums(prob), rep(1, 5), tolerance = 1e-12)
  mp <- parsnip::multi_predict(fl, new, type = "prob", penalty = c(2, 20))
  # other penalties: the probabilities of a fit at that penalty (issue 46)
  expect_equal(unlist(mp$.pred[[3]][2, -1]), predict(at2, new[3, ], lambda = 20, type = "prob")[1, ],
               tolerance = 1e-8, ignore_attr = TRUE)
  expect_equal(unlist(mp$.pred[[3]][2, -1]),
               predict(rlsc(Species ~ ., data = iris, lambda = 20), new[3, ], type = "prob")[1, ],
               tolerance = 1e-8, ignore_attr = TRUE)
  mc <- parsnip::multi_predict(fl, new, penalty = c(2, 20))
  expect_identical(mc$.pred[[2]]$.pred_class,
                   unname(c(predict(ref, new[2, ], lambda = 2, type = "class"),
                            predict(ref, new[2, ], lambda = 20, type = "class"))))
  bin <- droplevels(iris[51:150, ])
  set.seed(4)
  lr <- parsnip::fit(parsnip::set_engine(parsnip::logistic_reg(), "rlsc"), Species ~ ., data = bin)
  set.seed(4)
  two <- rlsc(Species ~ ., data = bin)
  expect_equal(unname(as.matrix(predict(lr, bin, type = "prob"))), unname(predict(two, bin, type = "prob")),
               tolerance = 1e-8)
  expect_identical(predict(lr, bin)$.pred_class, unname(predict(two, bin, type = "class")))
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
  spec <- parsnip::set_engine(parsnip::linear_reg(penalty = tune::tune()), "rlsc")
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

test_that("tune_grid() of the misclassification rate equals rlsc's K-fold for RLSC", {
  need_tidymodels()
  set.seed(8)
  folds <- rsample::vfold_cv(iris, v = 4)   # folds of 38, 38, 37 and 37 rows
  lam <- c(100, 10, 1, 0.1)
  spec <- parsnip::set_engine(parsnip::multinom_reg(penalty = tune::tune()), "rlsc")
  res <- tune::tune_grid(spec, Species ~ ., resamples = folds, grid = data.frame(penalty = lam),
                         metrics = yardstick::metric_set(yardstick::accuracy))
  per_fold <- tune::collect_metrics(res, summarize = FALSE)
  foldid <- fold_labels(folds, 150)
  kf <- rlsc(Species ~ ., data = iris, foldid = foldid, lambda = lam, criterion = "misclass")
  sizes <- tabulate(foldid)
  fold_of <- as.integer(sub("Fold", "", per_fold$id))
  for (l in lam) {
    at <- per_fold$penalty == l
    err <- 1 - per_fold$.estimate[at]
    expect_equal(sum(sizes[fold_of[at]] * err) / sum(sizes), kf$cvm[kf$lambda == l], tolerance = 1e-12)
  }
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
})

test_that("rlsc_train() sets sigma in Nystrom kernels and keeps exact kernels' eigenvectors", {
  x <- scale(as.matrix(mtcars[, -1]))
  set.seed(1)
  ny <- rlsc_train(x, mtcars$mpg, sigma = 3, kernel = nystrom(kernel_rbf(sigma = 1), m = 10), penalty = 1)
  set.seed(1)
  ref <- rlsc(x, mtcars$mpg, kernel = nystrom(kernel_rbf(sigma = 3), m = 10), lambda = 1)
  expect_equal(predict(ny, x), predict(ref, x), tolerance = 1e-12)
  ex <- rlsc_train(x, mtcars$mpg, sigma = 3, penalty = 1)
  expect_identical(ex$sigma_min, 3)
  # any other penalty, exactly (a fit without kept eigenvectors serves its grid only)
  direct <- rlsc(x, mtcars$mpg, kernel = kernel_rbf(sigma = 3), lambda = 0.2)
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

test_that("tune_grid() gives fit_resamples()'s probability metrics at every penalty (issue 46)", {
  need_tidymodels()
  # tune_grid() fits each resample once and predicts the other penalties by
  # multi_predict(): the probabilities there were sent through the map of
  # the fitted penalty (mn_log_loss 0.272 against fit_resamples()'s 0.252)
  set.seed(1)
  folds <- rsample::vfold_cv(iris, v = 3, strata = Species)
  mets <- yardstick::metric_set(yardstick::mn_log_loss, yardstick::roc_auc, yardstick::accuracy)
  spec <- parsnip::set_engine(parsnip::multinom_reg(penalty = tune::tune()), "rlsc")
  grid <- data.frame(penalty = c(0.01, 1, 100))
  tuned <- tune::collect_metrics(tune::tune_grid(spec, Species ~ ., resamples = folds, grid = grid,
                                                 metrics = mets))
  for (p in grid$penalty) {
    one <- parsnip::set_engine(parsnip::multinom_reg(penalty = p), "rlsc")
    each <- tune::collect_metrics(tune::fit_resamples(one, Species ~ ., resamples = folds, metrics = mets))
    at <- tuned[tuned$penalty == p, ]
    expect_equal(at$mean[match(each$.metric, at$.metric)], each$mean, tolerance = 1e-8, info = p)
  }
})
