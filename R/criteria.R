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
  cols <- list()
  pair <- function(k) lapply(stat(k), drop)
  cols[c("mse", "mse_se")] <- pair(1L)
  cols[c("mae", "mae_se")] <- pair(2L)
  cols[c("misclass", "misclass_se")] <- if (classify) pair(3L) else list(NA_real_, NA_real_)
  if (isTRUE(crit$per_response)) {
    each <- stat(4L + seq_len(nt))
    per <- vector("list", 2L * nt)
    per[2L * seq_len(nt) - 1L] <- matrix_columns(each[[1L]])
    per[2L * seq_len(nt)] <- matrix_columns(each[[2L]])
    names(per) <- paste0("mse_", rep(crit$responses, each = 2L), c("", "_se"))
    cols <- c(cols, per)
  }
  cols
}

matrix_columns <- function(m) lapply(seq_len(ncol(m)), function(j) m[, j])

# A data frame of the columns `cols` (a named list of vectors of one length),
# built directly: data.frame() takes seconds for thousands of columns.
new_table <- function(cols) {
  structure(cols, names = names(cols), row.names = c(NA_integer_, -length(cols[[1L]])),
            class = "data.frame")
}

# The leave-one-out table of a path: losses averaged over the observations of
# positive weight, NA where a LOO value is undefined; the training residuals'
# weighted mean square (`rss`) and, for cv = "gcv", GCV(lambda).
path_table <- function(path, lambda, classify, crit) {
  ok <- path$n_na == 0
  stat <- function(k) {   # in the units of y (the path's losses are in `unit`s)
    back <- function(v) {
      v <- from_unit_columns(v, path$unit, path$power[k])
      v[!ok, ] <- NA_real_
      v
    }
    list(back(path$mean[, k, drop = FALSE]),
         back(sqrt(path$m2[, k, drop = FALSE] / path$w[, k, drop = FALSE] / (path$npos - 1))))
  }
  cols <- criteria_columns(stat, classify, ncol(path$mean) - 4L, crit)
  if (needs_values(crit)) cols[paste0(crit$name, c("", "_se"))] <- path$value
  rss <- from_unit(path$mean[, 4L], path$unit, path$power[4L])
  if (identical(crit$name, "gcv")) {
    # MASS::lm.ridge's RSS / (n - df)^2, with weights the weighted residual sum
    # of squares rescaled to n observations
    cols$gcv <- path$npos * rss / (path$npos - path$df)^2
    cols$gcv_se <- NA_real_
  }
  new_table(c(list(lambda = lambda, df = path$df), recycle_columns(cols, length(lambda)),
              list(rss = rss, n_na = path$n_na)))
}

# Scalar columns (NA where a criterion does not apply) repeated to `n` rows.
recycle_columns <- function(cols, n) lapply(cols, function(v) if (length(v) == n) v else rep_len(v, n))

# A criterion of the predictions themselves at each lambda: the AUC (with
# Hanley and McNeil's standard error) or a user's function (no standard
# error), for each of the parts `run(lambda)` returns (one for leave-one-out,
# one per fold for K-fold), each with kept outputs: its LOO (or held-out)
# values, y and weights.  Lambdas go in batches so that no more than about
# 1e7 values exist at once; each batch is a pass over the data.
value_criterion <- function(run, lambda, nrows, nt, crit) {
  batch <- max(1L, floor(1e7 / (max(nrows, 1) * nt)))
  out <- NULL
  for (b in split(seq_along(lambda), ceiling(seq_along(lambda) / batch))) {
    parts <- run(lambda[b])
    if (is.null(out)) out <- lapply(parts, function(p) matrix(NA_real_, length(lambda), 2L))
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

# The weighted AUC of scores for the positive class, ties counted half, and
# Hanley and McNeil's (1982) standard error from the counts of each class.
auc_with_se <- function(score, positive, w) {
  keep <- w > 0
  score <- score[keep]
  positive <- positive[keep]
  w <- w[keep]
  o <- order(score)
  tie <- cumsum(c(TRUE, diff(score[o]) != 0))
  wpos <- rowsum(w[o] * positive[o], tie)[, 1L]
  wneg <- rowsum(w[o] * !positive[o], tie)[, 1L]
  below <- cumsum(wneg) - wneg
  a <- sum(wpos * (below + wneg / 2)) / (sum(wpos) * sum(wneg))
  n1 <- sum(positive)
  n0 <- sum(!positive)
  q1 <- a / (2 - a)
  q2 <- 2 * a^2 / (1 + a)
  c(a, sqrt((a * (1 - a) + (n1 - 1) * (q1 - a^2) + (n0 - 1) * (q2 - a^2)) / (n1 * n0)))
}


# The validation table of an engine over `lambda`: leave-one-out (and GCV)
# from its path over the data, or K-fold from the fold engines (`folds`: a
# list of primal engines, or a function building fold k's dual engine).
validation_table <- function(eng, data, lambda, crit, folds = NULL, nfold = NULL) {
  classify <- data$resp$type == "classification"
  nt <- ncol(data$resp$y0)
  nrows <- sum(data$counts$n) %||% 0
  if (data$kind == "memory") nrows <- nrow(data$rows$x)
  if (is.null(folds)) {
    sums <- crit$name %in% c("mse", "gcv") && !isTRUE(crit$per_response)
    path <- engine_path(eng, data, lambda, classify, FALSE, sums)
    if (needs_values(crit)) {
      path$value <- value_criterion(function(l) list(engine_path(eng, data, l, classify, TRUE)),
                                    lambda, nrows, nt, crit)[[1L]]
    }
    return(path_table(path, lambda, classify, crit))
  }
  per_fold <- kfold_paths(folds, data, lambda, classify, FALSE, nfold)
  if (needs_values(crit)) {
    values <- value_criterion(function(l) kfold_paths(folds, data, l, classify, TRUE, nfold),
                              lambda, nrows, nt, crit)
    for (k in seq_along(per_fold)) per_fold[[k]]$value <- values[[k]]
  }
  folds_table(per_fold, lambda, model_df(eng, lambda), classify, crit)
}
