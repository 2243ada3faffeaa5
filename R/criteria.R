# The criteria that choose lambda, and the validation table they live in.
# Each row of the table is a lambda; for each criterion a mean and a standard
# error: over observations for leave-one-out (their losses are accumulated by
# src/path.c), over folds for K-fold (kfold.R).  AUC and a user's function need
# the predictions themselves, formed for a batch of lambdas at a time.

needs_values <- function(crit) crit$name %in% c("auc", "custom")

# The columns of a validation table from `stat(k)`, the mean and standard
# error of the k-th loss of src/path.c (1 squared error, 2 absolute error,
# 3 misclassification, 4 squared training residual, 4 + t squared error of
# response column t).
criteria_columns <- function(stat, classify, nt, crit) {
  cols <- list()
  cols[c("mse", "mse_se")] <- stat(1L)
  cols[c("mae", "mae_se")] <- stat(2L)
  cols[c("misclass", "misclass_se")] <- if (classify) stat(3L) else list(NA_real_, NA_real_)
  if (isTRUE(crit$per_response)) {   # (one list, not a list grown column by column)
    per <- unlist(lapply(seq_len(nt), function(t) stat(4L + t)), recursive = FALSE)
    names(per) <- paste0("mse_", rep(crit$responses, each = 2L), c("", "_se"))
    cols <- c(cols, per)
  }
  cols
}

# A validation table from its columns (single values repeated down the
# rows): data.frame() checks each column at a cost that thousands of response
# columns feel.
validation_frame <- function(cols, nl) list2DF(lapply(cols, rep_len, nl), nl)

# The leave-one-out table of a path: losses averaged over the observations of
# positive weight, NA where a LOO value is undefined; the training residuals'
# weighted mean square (`rss`) and, for cv = "gcv", GCV(lambda).
path_table <- function(path, lambda, classify, crit) {
  ok <- path$n_na == 0
  stat <- function(k) {   # in the units of y (the path's losses are in `unit`s)
    back <- function(v) ifelse(ok, from_unit(v, path$unit, path$power[k]), NA_real_)
    list(back(path$mean[, k]), back(sqrt(path$m2[, k] / path$w[, k] / (path$npos - 1))))
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
  validation_frame(c(list(lambda = lambda, df = path$df), cols, list(rss = rss, n_na = path$n_na)),
                   length(lambda))
}

# A criterion of the predictions themselves at each lambda: the AUC (with
# Hanley and McNeil's standard error) or a user's function (no standard
# error), for each of the parts `run(lambda)` returns (one for leave-one-out,
# one per fold for K-fold), each with kept outputs: its LOO (or held-out)
# values, y and weights.  Lambdas go in batches so that no more than about
# 1e7 values exist at once; each batch is a pass over the data.
value_criterion <- function(run, lambda, nrows, nt, crit, part_name = NULL) {
  batch <- max(1L, floor(1e7 / (max(nrows, 1) * nt)))
  out <- NULL
  for (b in split(seq_along(lambda), ceiling(seq_along(lambda) / batch))) {
    parts <- run(lambda[b])
    if (is.null(out)) {
      if (crit$name == "auc") check_auc_classes(parts, crit$classes, part_name)
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

# The AUC compares the two classes: every part (the rows for leave-one-out,
# each fold's held-out rows for K-fold; `part_name(k)` names part k, NULL for
# one part) must hold both among its rows of positive weight.  A part without
# weight is no part (no fold).
check_auc_classes <- function(parts, classes, part_name = NULL) {
  for (k in seq_along(parts)) {
    w <- parts[[k]]$weights
    if (!any(w > 0)) next
    found <- unique(decode_classes(parts[[k]]$y[w > 0, , drop = FALSE], classes))
    if (length(found) == 1L) {
      class <- sQuote(as.character(found), FALSE)
      if (is.null(part_name)) {
        stop_arg("`criterion` = \"auc\" needs both classes among the rows of positive weight: all ",
                 sum(w > 0), " are of class ", class)
      }
      stop_arg("`criterion` = \"auc\" needs both classes in the held-out rows of every fold: ",
               part_name(k), "'s ", sum(w > 0), " rows of positive weight are all of class ", class,
               ", so its AUC is undefined; choose folds that hold both classes")
    }
  }
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
  # (the terms are non-negative; at a = 1 their sum rounds to -eps)
  c(a, sqrt(max(a * (1 - a) + (n1 - 1) * (q1 - a^2) + (n0 - 1) * (q2 - a^2), 0) / (n1 * n0)))
}


# The validation table of an engine over `lambda`: leave-one-out (and GCV)
# from its path over the data, or K-fold from the fold engines (`folds`: a
# list of primal engines, or a function building fold k's dual engine).
validation_table <- function(eng, data, lambda, crit, folds = NULL, nfold = NULL, labels = NULL) {
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
                              lambda, nrows, nt, crit, function(k) fold_name(k, labels))
    for (k in seq_along(per_fold)) per_fold[[k]]$value <- values[[k]]
  }
  folds_table(per_fold, lambda, model_df(eng, lambda), classify, crit)
}
