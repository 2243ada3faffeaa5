# The criteria that choose lambda, and the validation table they live in.
# Each row of the table is a lambda; for each criterion a mean and a standard
# error: over observations for leave-one-out (their losses are accumulated by
# src/path.c), over folds for K-fold (kfold.R).  AUC and a user's function need
# the predictions themselves, formed for a batch of lambdas at a time.

# The criterion of rlsc(): a name ("mse", "mae", "misclass", "auc", "gcv",
# "custom") with what choosing by it needs.
check_criterion <- function(criterion, resp, cv = "loo") {
  classify <- resp$type == "classification"
  if (is.function(criterion)) {
    return(list(name = "custom", fun = criterion, maximize = FALSE, classes = resp$classes))
  }
  if (identical(cv, "gcv")) {
    if (!is.null(criterion) && !identical(criterion, "mse")) {
      stop_arg("`cv` = \"gcv\" is a criterion of its own (the squared error); `criterion` must ",
               "be NULL or \"mse\", not ", paste(format(criterion), collapse = " "))
    }
    return(list(name = "gcv", maximize = FALSE))
  }
  name <- criterion %||% if (classify) "misclass" else "mse"
  known <- c("mse", "mae", "misclass", "auc")
  if (!is.character(name) || length(name) != 1L || !name %in% known) {
    stop_arg("`criterion` must be \"mse\", \"mae\", \"misclass\", \"auc\" or a function of ",
             "(y, pred, weights), not ", paste(format(criterion), collapse = " "))
  }
  if (name == "misclass" && !classify) {
    stop_arg("`criterion` = \"misclass\" needs a factor response; `y` is numeric")
  }
  if (name == "auc" && !(classify && length(resp$classes) == 2L)) {
    stop_arg("`criterion` = \"auc\" needs a response with two classes")
  }
  list(name = name, maximize = name == "auc", classes = resp$classes)
}

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
  if (isTRUE(crit$per_response)) {
    for (t in seq_len(nt)) {
      cols[paste0("mse_", crit$responses[t], c("", "_se"))] <- stat(4L + t)
    }
  }
  cols
}

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
  data.frame(lambda = lambda, df = path$df, cols, rss = rss, n_na = path$n_na,
             check.names = FALSE)
}

# A criterion of the predictions themselves at each lambda: the AUC (with
# Hanley and McNeil's standard error) or a user's function (no standard
# error).  `run(keep, lambda)` is the path with kept outputs; lambdas go in
# batches so that no more than about 1e7 values exist at once.
value_criterion <- function(run, lambda, y, w, crit) {
  n <- nrow(y)
  batch <- max(1L, floor(1e7 / (n * ncol(y))))
  out <- matrix(NA_real_, length(lambda), 2L)
  truth <- if (!is.null(crit$classes)) decode_classes(y, crit$classes)
  for (b in split(seq_along(lambda), ceiling(seq_along(lambda) / batch))) {
    part <- run(TRUE, lambda[b])
    for (j in seq_along(b)) {
      pred <- part$loo[, , j]
      if (anyNA(pred[w > 0])) next
      out[b[j], ] <- if (crit$name == "auc") {
        auc_with_se(pred, truth == crit$classes[2L], w)
      } else {
        c(user_criterion(crit$fun, truth %||% drop_columns(y), drop_columns(pred), w), NA_real_)
      }
    }
  }
  list(out[, 1L], out[, 2L])
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

# How rlsc() validates: `cv` = "loo" (the default), "gcv", or a number of
# folds K; `foldid` (fold labels, glmnet's meaning) gives the folds instead.
check_cv <- function(cv, foldid, n) {
  if (!is.null(foldid)) {
    if (!(is.numeric(foldid) || is.factor(foldid) || is.character(foldid)) ||
        !is.null(dim(foldid)) || length(foldid) != n) {
      stop_arg("`foldid` must be a vector of fold labels, one per row (", n, "), not ",
               if (length(foldid) != n && is.atomic(foldid)) paste("of length", length(foldid)) else describe(foldid))
    }
    if (anyNA(foldid)) stop_arg("`foldid` must not contain NA values")
    folds <- make_folds(NULL, foldid, n)
    if (max(folds) < 2L) stop_arg("`foldid` must have at least 2 folds, not 1")
    return(list(type = "kfold", K = max(folds), folds = folds))
  }
  if (is.character(cv) && length(cv) == 1L && cv %in% c("loo", "gcv")) return(list(type = cv))
  if (!is.numeric(cv) || length(cv) != 1L || !is.finite(cv) || cv != round(cv) || cv < 2 || cv > n) {
    stop_arg("`cv` must be \"loo\", \"gcv\" or a whole number of folds from 2 to ", n, ", not ",
             paste(format(cv, trim = TRUE), collapse = " "))
  }
  list(type = "kfold", K = as.integer(cv), folds = make_folds(as.integer(cv), NULL, n))
}

# The validation table of a model over `lambda`: leave-one-out (and GCV) from
# its engine, or K-fold from the engines of the folds.
validation_table <- function(eng, x, resp, w, intercept, lambda, crit, cv, kernel = NULL,
                             free = NULL) {
  if (cv$type != "kfold") return(loo_table(eng, resp, lambda, crit))
  kfold_table(x, resp, w, intercept, cv$folds, lambda, model_df(eng, lambda), crit, kernel, free)
}

# per_response = TRUE: one lambda per response column, chosen by that
# column's mean squared error.
check_per_response <- function(per_response, crit, resp) {
  crit$per_response <- check_flag(per_response, "per_response")
  crit$responses <- colnames(resp$y) %||% paste0("y", seq_len(ncol(resp$y)))
  if (crit$per_response && !crit$name %in% c("mse", "misclass")) {
    stop_arg("`per_response` = TRUE chooses each column's lambda by its squared error: ",
             "`criterion` must be NULL or \"mse\", not \"", crit$name, "\"")
  }
  crit
}
