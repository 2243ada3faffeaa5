# Exact K-fold cross-validation from the engine's machinery (DESIGN.md,
# section 12).  Each fold's fit is the model trained on the other folds; its
# held-out rows are rows of zero weight for that fit, evaluated like new data
# at every lambda by the direct form of the path (1 - h = 1: no leverage).
#   primal: the co-moments of each fold, once; each training Gram merges the
#           other folds' moments (Chan's update, no subtraction of large
#           sums), one d x d eigendecomposition per fold;
#   dual:   the dual engine of the training rows (the held-out rows get weight
#           0 and are projected through the cross-kernel), per fold.
# The criterion at each lambda is the mean over folds of the fold's weighted
# mean loss (weighted by the fold's sum of weights) and its standard error over
# folds, as cv.glmnet computes them.

# Fold labels 1..K: `foldid` as given (any labels), else `cv` folds of sizes as
# equal as possible in random order (reproducible under set.seed()).
make_folds <- function(cv, foldid, n) {
  if (!is.null(foldid)) return(as.integer(factor(foldid)))
  sample(rep_len(seq_len(cv), n))
}

# The K-fold table of a linear or kernel model over `lambda`; `dual_engine_of`
# builds the engine of given training weights (NULL: the primal form).
kfold_table <- function(x, resp, w, intercept, folds, lambda, df, crit, kernel = NULL,
                        free = NULL) {
  classify <- resp$type == "classification"
  nfold <- max(folds)
  unit <- loss_unit(resp$y)
  if (is.null(kernel)) {   # each fold's moments, once
    fold_moments <- lapply(seq_len(nfold), function(k) {
      held <- folds == k
      threaded(.Call(C_rlsc_moments, x[held, , drop = FALSE], resp$y[held, , drop = FALSE], w[held],
                     intercept, thread_count()))
    })
  }
  per_fold <- lapply(seq_len(nfold), function(k) {
    held <- which(folds == k)
    train <- w * (folds != k)
    if (sum(train > 0) < 2L) {
      stop_arg("every fold's training rows must hold at least 2 observations of positive ",
               "weight; fold ", k, " leaves ", sum(train > 0))
    }
    if (is.null(kernel)) {
      eng <- moments_engine(Reduce(merge_moments, fold_moments[-k]), intercept,
                            nrow(x) - length(held), free)
      heldout_path(eng, x[held, , drop = FALSE], resp$y[held, , drop = FALSE], w[held], lambda,
                   classify, crit, unit)
    } else {
      eng <- dual_engine(kernel, x, resp$y, train, intercept)
      heldout_rows_path(eng, held, resp$y, w, lambda, classify, crit, unit)
    }
  })
  folds_table(per_fold, lambda, df, classify, crit)
}

# The held-out rows of a primal fold engine: B = (X_k - 1 xbar') V, no leverage.
heldout_path <- function(eng, x, y, w, lambda, classify, crit, unit) {
  n <- nrow(x)
  basis <- project_rows(x, eng$center, eng$v)
  r0 <- offset_residuals(x, y, eng)
  path_with_values(function(keep, lam) {
    in_units(threaded(.Call(C_rlsc_loo_path, basis, eng$values, eng$g / unit, rep(1, n), r0, y, w,
                            numeric(n), seq_len(n), lam, FALSE, classify, keep, thread_count(), NULL,
                            unit)),
             unit, ncol(y))
  }, lambda, y, w, crit)
}

# The held-out rows `held` of a dual fold engine (rows of zero weight in it).
heldout_rows_path <- function(eng, held, y, w, lambda, classify, crit, unit) {
  path_with_values(function(keep, lam) {
    in_units(threaded(.Call(C_rlsc_loo_path, eng$basis, eng$values, eng$g / unit, eng$q, eng$r0, y,
                            w, numeric(length(w)), held, lam, FALSE, classify, keep, thread_count(),
                            NULL, unit)),
             unit, ncol(y))
  }, lambda, y[held, , drop = FALSE], w[held], crit)
}

# A path of src/path.c run on y / unit: its kept outputs back in the units of
# y, its losses labelled with their unit (engine_path()).
in_units <- function(part, unit, nt) {
  if (!is.null(part$loo)) {
    part$fitted <- part$fitted * unit
    part$loo <- part$loo * unit
  }
  part$unit <- unit
  part$power <- loss_powers(nt)
  part
}

# One fold's per-lambda losses: the stats of the path, and the criteria that
# need the predictions themselves (AUC, a user's function) from kept outputs.
path_with_values <- function(run, lambda, y, w, crit) {
  part <- run(FALSE, lambda)
  if (needs_values(crit)) part$value <- value_criterion(run, lambda, y, w, crit)
  part
}

# The table of K folds: per lambda, the criteria's means over folds weighted by
# the folds' sums of weights, and their standard errors over folds.
folds_table <- function(per_fold, lambda, df, classify, crit) {
  nfold <- length(per_fold)
  fw <- vapply(per_fold, function(p) p$w[, 1L], numeric(length(lambda)))
  fw <- matrix(fw, length(lambda))
  over_folds <- function(means, power = 0) {   # means in `unit`s, results in units of y
    means <- matrix(means, length(lambda))
    m <- rowSums(fw * means) / rowSums(fw)
    se <- sqrt(rowSums(fw * (means - m)^2) / rowSums(fw) / (nfold - 1))
    unit <- per_fold[[1L]]$unit %||% 1
    list(from_unit(m, unit, power), from_unit(se, unit, power))
  }
  stat <- function(k) {
    over_folds(vapply(per_fold, function(p) p$mean[, k], numeric(length(lambda))),
               per_fold[[1L]]$power[k])
  }
  cols <- criteria_columns(stat, classify, ncol(per_fold[[1L]]$mean) - 4L, crit)
  if (needs_values(crit)) {
    cols[paste0(crit$name, c("", "_se"))] <-
      over_folds(vapply(per_fold, function(p) p$value[[1L]], numeric(length(lambda))))
  }
  data.frame(lambda = lambda, df = df, cols, n_na = 0, check.names = FALSE)
}
