# Exact K-fold cross-validation from the engine's machinery (DESIGN.md,
# section 12).  Each fold's fit is the model trained on the other folds; its
# held-out rows are rows outside that fit, evaluated like new data at every
# lambda by the direct form of the path (1 - h = 1: no leverage).
#   primal: the moments of each fold, kept apart by the first pass; each
#           training Gram merges the other folds' moments (Chan's update, no
#           subtraction of large sums), one d x d eigendecomposition per fold,
#           and one pass evaluates every block's rows with their fold's engine;
#   dual:   the dual engine of the training rows (the held-out rows get weight
#           0 and are projected through the cross-kernel), per fold.
# The criterion at each lambda is the mean over folds of the fold's weighted
# mean loss, weighted by the folds' sums of weights, with its standard error
# over folds, as cv.glmnet computes them; a fold without weight is no fold.

# Fold labels 1..K of data in memory: `foldid` as given (any labels), else K
# folds of sizes as equal as possible in random order (reproducible under
# set.seed()).
make_folds <- function(K, foldid, n) {
  if (!is.null(foldid)) return(as.integer(factor(foldid)))
  sample(rep_len(seq_len(K), n))
}

# The fold of each row of block i: its label (data in memory, or `foldid` from
# a chunk's read()), else the rows of each chunk take the folds in turn.
row_folds <- function(rows, i, nfold) {
  fold <- rows$fold
  n <- nrow(rows$x)
  if (is.null(fold)) return(as.integer((i - 1 + seq_len(n) - 1) %% nfold + 1))
  if (length(fold) != n || !is.numeric(fold) || anyNA(fold) || any(!fold %in% seq_len(nfold))) {
    stop("`foldid` must hold one fold number from 1 to ", nfold, " per row")
  }
  as.integer(fold)
}

# The rows of a block in fold k.
fold_rows <- function(rows, take) {
  list(x = take_rows(rows$x, take), y = take_rows(rows$y, take), w = rows$w[take])
}

# The primal engine of each fold: the other folds' moments merged.
fold_engines <- function(folds, intercept, scale, free) {
  lapply(seq_along(folds), function(k) {
    training <- Reduce(merge_moments, folds[-k])
    if (training$npos < 2L) {
      stop_arg("every fold's training rows must hold at least 2 observations of positive ",
               "weight; fold ", k, " leaves ", training$npos)
    }
    primal_engine(training, intercept, scale, free)
  })
}

# The per-fold paths of the held-out rows over `lambda` (a list of K parts):
# primal fold engines in one pass over the blocks; dual ones, built per fold,
# on their own rows.
kfold_paths <- function(engines, data, lambda, classify, keep, nfold) {
  if (is.function(engines)) {   # dual: engines(k) builds fold k's engine
    rows <- all_rows(data)
    fold <- row_folds(data$rows, 1L, nfold)
    return(lapply(seq_len(nfold), function(k) {
      eng <- engines(k)
      # the held-out rows: rows of zero weight for the fold's engine (direct,
      # no leverage), their losses weighted by their own weights
      set <- list(basis = eng$basis, q = eng$q, r0 = eng$r0, y = rows$y, w = rows$w, omega = eng$w,
                  rows = which(fold == k), complement = FALSE)
      finish_path(row_path(set, eng, lambda, classify, keep, data$unit), eng, lambda)
    }))
  }
  out <- map_rows(data, heldout_block_paths, function(a, b) Map(merge_path_parts, a, b),
                  engines = engines, lambda = lambda, classify = classify, keep = keep,
                  unit = data$unit, counts = data$counts, what = "evaluating")
  lapply(out, finish_path, eng = engines[[1L]], lambda = lambda)
}

heldout_block_paths <- function(rows, i, engines, lambda, classify, keep, unit, counts) {
  check_unchanged(rows, i, counts)
  fold <- row_folds(rows, i, length(engines))
  lapply(seq_along(engines), function(k) {
    held <- fold_rows(rows, which(fold == k))
    row_path(primal_rows(engines[[k]], held, heldout = TRUE), engines[[k]], lambda, classify, keep,
             unit)
  })
}

# The table of K folds: per lambda, the criteria's means over folds weighted by
# the folds' sums of weights, and their standard errors over folds.  A fold
# whose rows all weigh 0 counts neither in K nor in the standard errors.
folds_table <- function(per_fold, lambda, df, classify, crit) {
  nl <- length(lambda)
  fw <- matrix(vapply(per_fold, function(p) p$w[, 1L], numeric(nl)), nl)
  used <- colSums(fw) > 0
  per_fold <- per_fold[used]
  fw <- fw[, used, drop = FALSE]
  nfold <- length(per_fold)
  unit <- per_fold[[1L]]$unit %||% 1
  # means (L x S) over folds of L x S per-fold means, weighted by fw (L x K),
  # and their standard errors, for every stat at once
  over_folds <- function(means) {   # a list of L x S matrices, one per fold
    total <- rowSums(fw)
    m <- Reduce(`+`, Map(function(x, k) x * fw[, k], means, seq_len(nfold))) / total
    dev <- Reduce(`+`, Map(function(x, k) (x - m)^2 * fw[, k], means, seq_len(nfold)))
    list(m, sqrt(dev / total / (nfold - 1)))
  }
  all <- over_folds(lapply(per_fold, function(p) p$mean))
  power <- per_fold[[1L]]$power
  stat <- function(k) {   # in `unit`s in the folds, in units of y here
    lapply(all, function(v) from_unit_columns(v[, k, drop = FALSE], unit, power[k]))
  }
  cols <- criteria_columns(stat, classify, ncol(per_fold[[1L]]$mean) - 4L, crit)
  if (needs_values(crit)) {
    values <- over_folds(lapply(per_fold, function(p) matrix(p$value[[1L]], nl)))
    cols[paste0(crit$name, c("", "_se"))] <- lapply(values, drop)
  }
  tab <- new_table(c(list(lambda = lambda, df = df), recycle_columns(cols, nl), list(n_na = rep(0, nl))))
  attr(tab, "folds") <- nfold
  tab
}
