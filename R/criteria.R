# The criteria that choose lambda, and the validation table they live in.
# Each row of the table is a lambda; for each criterion a mean and a standard
# error: over observations for leave-one-out (their losses are accumulated by
# src/path.c), over folds for K-fold (kfold.R).  AUC and a user's function need
# the predictions themselves, formed for a batch of lambdas at a time.

needs_values <- function(crit) crit$name %in% c("auc", "custom")

# The columns of a validation table from `stat(k)`, the means and standard
# errors (two L x length(k) matrices) of the losses k of src/path.c (1 squared
# error, 2 absolute error, 3 misclassification, 4 squared training residual,
# 4 + t squared error of response column t); all response columns at once,
# so thousands of them cost no loop in R.
criteria_columns <- function(stat, classify, nt, crit) {
  s <- stat(if (classify) 1:3 else 1:2)   # (one call: a small fit felt three)
  pair <- function(j) list(s[[1L]][, j], s[[2L]][, j])
  cols <- list()
  cols[c("mse", "mse_se")] <- pair(1L)
  cols[c("mae", "mae_se")] <- pair(2L)
  cols[c("misclass", "misclass_se")] <- if (classify) pair(3L) else list(NA_real_, NA_real_)
  if (isTRUE(crit$per_response)) {
    each <- stat(4L + seq_len(nt))
    cols <- c(cols, response_columns(each[[1L]], each[[2L]], crit$responses))
  }
  cols
}

# The labels of the response columns in a validation table's columns
# mse_<label> and mse_<label>_se, which are looked up by name: `responses`
# made unique (make.unique(): a, a.1), and a label that would name another
# column, "se" (mse_se, the standard error of mse) or another label's "_se"
# (mse_a_se, the standard error of a's), suffixed .1 (or the next free
# number), so that no response's lambda is chosen by another column.
criterion_labels <- function(responses) {
  labels <- make.unique(responses)
  repeat {
    taken <- c("se", paste0(labels, "_se"))
    i <- match(TRUE, labels %in% taken)   # (one hashed pass where none clashes)
    if (is.na(i)) return(labels)
    k <- 1L
    while (paste0(labels[i], ".", k) %in% c(labels, taken)) k <- k + 1L
    labels[i] <- paste0(labels[i], ".", k)
  }
}

# The columns mse_<response> and mse_<response>_se of a validation table,
# from lambdas x responses matrices of the criterion and its standard error.
response_columns <- function(curve, se, responses) {
  nt <- length(responses)
  per <- vector("list", 2L * nt)
  per[2L * seq_len(nt) - 1L] <- matrix_columns(curve)
  per[2L * seq_len(nt)] <- matrix_columns(se)
  names(per) <- paste0("mse_", rep(responses, each = 2L), c("", "_se"))
  per
}

# The columns of a matrix as a list of vectors.
matrix_columns <- function(m) lapply(seq_len(ncol(m)), function(j) m[, j])

# A validation table from its columns (single values repeated down the
# rows): data.frame() checks each column at a cost that thousands of response
# columns feel.  rep_len() only where a column is not yet a plain vector of
# nl values (a single value, or one with attributes, which it drops): a call
# per column of thousands cost a banded search's tables more than the rest
# of them.
validation_frame <- function(cols, nl) {
  redo <- lengths(cols) != nl | lengths(lapply(cols, attributes)) > 0L
  cols[redo] <- lapply(cols[redo], rep_len, nl)
  list2DF(cols, nl)
}

# The first k rows of a validation table, whose columns are plain vectors
# (`[.data.frame` took 0.2 ms of a 1000 x 100 fit's 11).
table_head <- function(tab, k) list2DF(lapply(unclass(tab), `[`, seq_len(k)), k)

# The leave-one-out table of a path: losses averaged over the observations of
# positive weight, NA where a LOO value is undefined; the training residuals'
# weighted mean square (`rss`) and, for cv = "gcv", GCV(lambda).
path_table <- function(path, lambda, classify, crit) {
  stat <- function(k) {
    s <- path_stats(path, k)
    list(s$mean, s$se)
  }
  cols <- criteria_columns(stat, classify, ncol(path$mean) - 4L, crit)
  if (needs_values(crit)) cols[paste0(crit$name, c("", "_se"))] <- path$value
  rss <- from_unit(path$mean[, 4L], path$unit, path$power[4L])
  if (identical(crit$name, "gcv")) cols[c("gcv", "gcv_se")] <- list(gcv_value(path, rss), NA_real_)
  validation_frame(c(list(lambda = lambda, df = path$df), cols, list(rss = rss, n_na = path$n_na)),
                   length(lambda))
}

# The means over the observations and their standard errors of the loss
# columns `k` of a path (lambdas x length(k)), in the units of y (the path's
# losses are in `unit`s), NA where a LOO value is undefined.
path_stats <- function(path, k) {
  ok <- path$n_na == 0
  mean <- from_unit_columns(path$mean[, k, drop = FALSE], path$unit, path$power[k])
  se <- from_unit_columns(sqrt(path$m2[, k, drop = FALSE] / path$w[, k, drop = FALSE] / (path$npos - 1)),
                          path$unit, path$power[k])
  mean[!ok, ] <- NA_real_
  se[!ok, ] <- NA_real_
  list(mean = mean, se = se)
}

# Generalized cross-validation (Golub, Heath and Wahba 1979), n RSS_w /
# (n - tr H)^2 with H the whole hat matrix: tr H is the penalized part's df
# plus one per unpenalized column and one for the intercept (mgcv's gcv.ubre
# is the same; MASS::lm.ridge() divides RSS by (n - df)^2 with df of the
# slopes alone, which tends to 0 as a fit interpolates: tr H = n there, not
# n - 1).  RSS_w is the weighted mean of the squared residuals (`rss`) times
# n, the rows of positive weight: with weights summing to n it is
# sum(w r^2).  NA where the fit interpolates (n - tr H within rounding of 0).
gcv_value <- function(path, rss) {
  n <- path$npos
  room <- n - (path$df + path$intercept)
  ifelse(room > 1e-8 * n, n^2 * rss / room^2, NA_real_)
}

# A criterion of the predictions themselves at each lambda: the AUC (with
# Hanley and McNeil's standard error) or a user's function (no standard
# error), for each of the parts `run(lambda)` returns (one for leave-one-out,
# one per fold for K-fold), each with kept outputs: its LOO (or held-out)
# values, y and weights.  Lambdas go in batches so that no more than about
# budgets$values (1e7) values exist at once; each batch is a pass over the data.
value_criterion <- function(run, lambda, nrows, nt, crit) {
  batch <- max(1L, floor(budgets$values / (max(nrows, 1) * nt)))
  out <- NULL
  for (b in split(seq_along(lambda), ceiling(seq_along(lambda) / batch))) {
    parts <- run(lambda[b])
    if (is.null(out)) {
      out <- lapply(parts, function(p) matrix(NA_real_, length(lambda), 2L))
    }
    for (k in seq_along(parts)) {
      part <- parts[[k]]
      w <- part$weights
      truth <- if (!is.null(crit$classes)) decode_classes(part$y, crit$classes)
      for (j in seq_along(b)) {
        pred <- part$loo[, , j]
        if (!any(w > 0) || anyNA(pred[w > 0])) next
        out[[k]][b[j], ] <- if (crit$name == "auc") {
          auc_with_se(pred, truth == crit$classes[2L], w)
        } else {
          c(user_criterion(crit$fun, truth %||% drop_columns(part$y), drop_columns(pred), w),
            NA_real_)
        }
      }
    }
  }
  lapply(out, function(o) list(o[, 1L], o[, 2L]))
}

drop_columns <- function(m) if (is.matrix(m) && ncol(m) == 1L) m[, 1L] else m

user_criterion <- function(fun, y, pred, w) {
  value <- tryCatch(fun(y, pred, w), error = function(e) {
    stop_arg("the `criterion` function failed: ", conditionMessage(e))
  })
  if (!is.numeric(value) || length(value) != 1L || is.na(value)) {
    stop_arg("the `criterion` function must return one number per lambda, not ",
             if (is.numeric(value)) paste(length(value), "numbers") else describe(value))
  }
  value
}

# The weighted AUC of scores for the positive class, ties counted half (scores
# within tie_tolerance() of each other: duplicated rows score the same in
# exact arithmetic and apart by rounding), and Hanley and McNeil's (1982)
# standard error from the counts of each class (both NA when the rows hold
# one class only, or the scores are not resolved from their rounding).
auc_with_se <- function(score, positive, w) {
  keep <- w > 0
  score <- score[keep]
  positive <- positive[keep]
  w <- w[keep]
  if (all(positive) || !any(positive)) return(c(NA_real_, NA_real_))
  o <- order(score)
  sorted <- score[o]
  tol <- tie_tolerance(sorted[1L], sorted[length(sorted)])
  if (is.na(tol)) return(c(NA_real_, NA_real_))
  tie <- cumsum(c(TRUE, diff(sorted) > tol))
  wpos <- rowsum(w[o] * positive[o], tie)[, 1L]
  wneg <- rowsum(w[o] * !positive[o], tie)[, 1L]
  below <- cumsum(wneg) - wneg
  a <- sum(wpos * (below + wneg / 2)) / (sum(wpos) * sum(wneg))
  c(a, hanley_mcneil_se(a, sum(positive), sum(!positive)))
}

# Two decision values (of the AUC's pairs or folds) within this of each other
# are tied, at one lambda: 1e-8 of the spread hi - lo of the values there,
# their scale, which shrinks like 1 / lambda as the fit flattens towards the
# classes' mean (an absolute tolerance made real differences ties at large
# lambda), and at least the rounding of values of their size (64 eps on the
# -1/+1 scale of the classes' coding), which no lambda shrinks: values equal
# in exact arithmetic (duplicated rows) come apart by a few eps.  NA where
# the spread is within 64 times that rounding (but not 0): the values are
# not resolved from their rounding there, and the AUC is undefined (at a
# lambda of 1e14 for columns of scale 1).
tie_tolerance <- function(lo, hi) {
  rounding <- 64 * .Machine$double.eps * pmax(1, abs(lo), abs(hi))
  tol <- 1e-8 * (hi - lo) + rounding
  tol[hi - lo > 0 & hi - lo < 64 * rounding] <- NA_real_
  tol
}

# The validation table of an engine over `lambda`: leave-one-out (and GCV)
# from its path over the data, or K-fold from the fold engines (`folds`: a
# list of primal engines, or a function building fold k's dual engine).
validation_table <- function(eng, data, lambda, crit, folds = NULL, nfold = NULL, labels = NULL) {
  classify <- data$resp$type == "classification"
  nt <- ncol(data$resp$y0)
  nrows <- sum(data$counts$n) %||% 0
  if (data$kind == "memory") nrows <- nrow(data$rows$x)
  # the losses of each response column only for a criterion per column
  columns <- isTRUE(crit$per_response)
  if (is.null(folds)) {
    sums <- crit$name %in% c("mse", "gcv") && !columns
    path <- engine_path(eng, data, lambda, classify, FALSE, sums, columns)
    if (crit$name == "auc") {
      path$value <- lpo_auc(eng, data, lambda)
      return(structure(path_table(path, lambda, classify, crit), pairs = attr(path$value, "pairs")))
    }
    if (needs_values(crit)) {
      path$value <- value_criterion(function(l) list(engine_path(eng, data, l, classify, TRUE, columns = FALSE)),
                                    lambda, nrows, nt, crit)[[1L]]
    }
    return(path_table(path, lambda, classify, crit))
  }
  per_fold <- kfold_paths(folds, data, lambda, classify, FALSE, nfold, columns)
  if (needs_values(crit)) {
    values <- value_criterion(function(l) kfold_paths(folds, data, l, classify, TRUE, nfold, columns = FALSE),
                              lambda, nrows, nt, crit)
    for (k in seq_along(per_fold)) per_fold[[k]]$value <- values[[k]]
  }
  folds_table(per_fold, lambda, model_df(eng, lambda), classify, crit, labels)
}
