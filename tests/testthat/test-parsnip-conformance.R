# tidymodels conformance of the rlsc engine (issues 46 and 47): for
# linear_reg(), logistic_reg() and multinom_reg(), tune_grid() over a grid of
# penalties -- which fits each resample once, at one penalty, and predicts
# the others with multi_predict() -- gives at every penalty what
# fit_resamples() gives with that penalty alone, for every metric, fold by
# fold; and the predicted class is the most probable class.

# yardstick's metrics for the mode: the class and the probability metrics
# apart, since they depend on different parts of the engine.
conformance_metrics <- function(mode) {
  ys <- asNamespace("yardstick")
  if (mode == "regression") return(list(regression = c("rmse", "rsq")))
  list(class = "accuracy",
       prob = intersect(c("roc_auc", "mn_log_loss", "brier_class"), ls(ys)))
}

# tune_grid() and fit_resamples() on the same folds: one row per penalty,
# fold and metric, with the estimates of each (`grid`, `alone`), and the
# predictions of tune_grid().
conformance_run <- function(model, formula, data, penalties, v, seed) {
  mode <- if (model == "linear_reg") "regression" else "classification"
  names <- unlist(conformance_metrics(mode), use.names = FALSE)
  metrics <- do.call(yardstick::metric_set, lapply(names, getExportedValue, ns = "yardstick"))
  # (the penalty as written in the call, so that tune() is seen)
  spec_at <- function(penalty) {
    parsnip::set_engine(do.call(getExportedValue("parsnip", model), list(penalty = penalty)), "rlsc")
  }
  set.seed(seed)
  folds <- rsample::vfold_cv(data, v = v)
  grid <- tune::tune_grid(spec_at(quote(tune())), formula, resamples = folds,
                          grid = data.frame(penalty = penalties), metrics = metrics,
                          control = tune::control_grid(save_pred = TRUE))
  got <- tune::collect_metrics(grid, summarize = FALSE)
  rows <- lapply(penalties, function(p) {
    alone <- tune::collect_metrics(tune::fit_resamples(spec_at(p), formula, resamples = folds,
                                                       metrics = metrics), summarize = FALSE)
    at <- got[abs(got$penalty - p) <= 1e-12 * p, ]
    hit <- match(paste(alone$id, alone$.metric), paste(at$id, at$.metric))
    data.frame(penalty = p, id = alone$id, metric = alone$.metric, alone = alone$.estimate,
               grid = at$.estimate[hit])
  })
  list(table = do.call(rbind, rows), predictions = tune::collect_predictions(grid),
       metrics = conformance_metrics(mode))
}

# The grid's estimates against fit_resamples()'s for some metrics: one
# expectation per metric over its penalties and folds.
expect_conformance <- function(run, metrics, tolerance = 1e-8) {
  tab <- run$table[run$table$metric %in% metrics, ]
  expect_setequal(unique(tab$metric), metrics)
  for (m in metrics) {
    at <- tab[tab$metric == m, ]
    expect_false(anyNA(at$grid))
    expect_equal(stats::setNames(at$grid, paste(at$penalty, at$id)),
                 stats::setNames(at$alone, paste(at$penalty, at$id)), tolerance = tolerance,
                 label = paste(m, "of tune_grid() at each penalty and fold"),
                 expected.label = "fit_resamples()'s")
  }
}

# Every predicted class is the most probable one (the first on ties).
expect_most_probable <- function(pred, levels) {
  p <- as.matrix(pred[paste0(".pred_", levels)])
  expect_identical(as.character(pred$.pred_class), levels[max.col(p, ties.method = "first")])
  expect_identical(levels(pred$.pred_class), levels)
}

# the runs, each made once for the tests that read it
runs <- new.env()
conformance <- function(key, ...) {
  if (is.null(runs[[key]])) runs[[key]] <- conformance_run(...)
  runs[[key]]
}

regression_run <- function() {
  conformance("linear", "linear_reg", mpg ~ ., mtcars, c(0.01, 0.3, 3, 30, 300), v = 4, seed = 5)
}
binary_run <- function() {
  conformance("logistic", "logistic_reg", Species ~ ., droplevels(iris[51:150, ]), c(0.1, 1, 10, 100),
              v = 4, seed = 6)
}
multiclass_run <- function() {
  conformance("multinom", "multinom_reg", Species ~ ., iris, c(0.1, 1, 10, 100, 1e4), v = 5, seed = 7)
}

test_that("linear_reg(): tune_grid() equals fit_resamples() at every penalty (rmse, rsq)", {
  need_tidymodels()
  run <- regression_run()
  expect_conformance(run, run$metrics$regression)
})

test_that("logistic_reg() and multinom_reg(): .pred_class is the most probable class", {
  need_tidymodels()
  expect_most_probable(binary_run()$predictions, c("versicolor", "virginica"))
  expect_most_probable(multiclass_run()$predictions, levels(iris$Species))
})

# The class and probability metrics at the penalties tune_grid() did not fit
# need probabilities at any penalty equal to those of a fit made there (issue
# 46 item 1, branch calib): the class is the most probable one, so accuracy
# depends on them too (binary roc_auc does not: any monotone map ranks alike).
test_that("logistic_reg(): tune_grid() equals fit_resamples() at every penalty (class and probability metrics)", {
  need_tidymodels()
  run <- binary_run()
  expect_conformance(run, run$metrics$class)
  expect_conformance(run, run$metrics$prob)
})

test_that("multinom_reg(): tune_grid() equals fit_resamples() at every penalty (class and probability metrics)", {
  need_tidymodels()
  run <- multiclass_run()
  expect_conformance(run, run$metrics$class)
  expect_conformance(run, run$metrics$prob)
})

test_that("a workflow tuned by mn_log_loss picks fit_resamples()'s best penalty, and last_fit() is rlsc's fit there", {
  need_tidymodels()
  # the path a tidymodels user takes: a workflow, tune_grid(), select_best(),
  # finalize_workflow(), last_fit(); before issue 46 select_best() picked the
  # largest penalty (the probabilities at the others came from its map)
  set.seed(11)
  split <- rsample::initial_split(iris, prop = 0.7, strata = Species)
  train <- rsample::training(split)
  folds <- rsample::vfold_cv(train, v = 4, strata = Species)
  penalties <- c(0.01, 1, 100, 1e4)
  wf <- workflows::add_formula(workflows::add_model(workflows::workflow(), parsnip::set_engine(
    parsnip::multinom_reg(penalty = tune::tune()), "rlsc")), Species ~ .)
  metrics <- yardstick::metric_set(yardstick::mn_log_loss, yardstick::accuracy)
  tuned <- tune::tune_grid(wf, resamples = folds, grid = data.frame(penalty = penalties), metrics = metrics)
  best <- tune::select_best(tuned, metric = "mn_log_loss")$penalty
  alone <- vapply(penalties, function(p) {
    m <- tune::collect_metrics(tune::fit_resamples(tune::finalize_workflow(wf, list(penalty = p)),
                                                   resamples = folds, metrics = metrics))
    m$mean[m$.metric == "mn_log_loss"]
  }, 1)
  expect_identical(best, penalties[which.min(alone)])
  expect_lt(best, max(penalties))
  final <- tune::last_fit(tune::finalize_workflow(wf, list(penalty = best)), split, metrics = metrics)
  pred <- tune::collect_predictions(final)
  direct <- rlsc(Species ~ ., data = train, lambda = best, standardize = TRUE)
  test <- rsample::testing(split)
  expect_equal(unname(as.matrix(pred[paste0(".pred_", levels(iris$Species))])),
               unname(predict(direct, test, type = "prob")), tolerance = 1e-8)
  expect_identical(as.character(pred$.pred_class),
                   as.character(predict(direct, test, type = "class", class_rule = "prob")))
  expect_gt(tune::collect_metrics(final)$.estimate[tune::collect_metrics(final)$.metric == "accuracy"], 0.85)
})
