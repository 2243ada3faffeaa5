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
# set.seed()); with `strata` (the classes of a classification fit) stratified
# as cv.glmnet users expect of scikit-learn's StratifiedKFold: each class's
# rows, in random order, deal the folds in turn, continuing from class to
# class, so every fold holds each class's count within one and the folds'
# sizes differ by at most one.
make_folds <- function(nfold, foldid, n, strata = NULL) {
  if (!is.null(foldid)) return(as.integer(factor(foldid)))
  if (is.null(strata)) return(sample(rep_len(seq_len(nfold), n)))
  order <- unlist(lapply(split(seq_len(n), strata), function(i) i[sample.int(length(i))]),
                  use.names = FALSE)
  fold <- integer(n)
  fold[order] <- rep_len(sample.int(nfold), n)
  fold
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

# Fold k as messages name it: by its label in `foldid` when given.
fold_name <- function(k, labels = NULL) paste("fold", if (is.null(labels)) k else labels[k])

# The primal engine of each fold: the other folds' moments merged
# (`training`: those merged moments, when already at hand).
fold_engines <- function(folds, intercept, scale, free, training = fold_training(folds)) {
  lapply(training, primal_engine, intercept = intercept, scale = scale, free = free)
}

# The moments of each fold's training rows: the other folds' merged.
fold_training <- function(folds, labels = NULL) {
  lapply(seq_along(folds), function(k) {
    training <- Reduce(merge_moments, folds[-k])
    if (training$npos < 2L) {
      stop_arg("every fold's training rows must hold at least 2 observations of positive ",
               "weight; ", fold_name(k, labels), " leaves ", training$npos)
    }
    training
  })
}

# Folds whose held-out rows hold one class have no AUC (NA at every lambda).
check_auc_folds <- function(values, labels) {
  none <- colSums(!is.na(values)) == 0
  if (all(none)) {
    stop_arg("`criterion` = \"auc\" with K-fold needs held-out rows of both classes in a fold, ",
             "but every fold holds one class only; use `cv` = K (folds stratified by class) or ",
             "`foldid` with both classes in each fold")
  }
  if (any(none)) {
    warning("the AUC is undefined in fold(s) ", paste(labels[none], collapse = ", "),
            ", whose held-out rows hold one class only: the AUC is the mean over the other ",
            sum(!none), " folds (weighted by fold size)", call. = FALSE)
  }
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
# the folds' sums of weights (fold size), and their standard errors over
# folds.  A fold whose rows all weigh 0 counts neither in K nor in the
# standard errors; nor, for the AUC, a fold whose held-out rows hold one class
# (its AUC is undefined: a warning names it, and when every fold is so, an
# error says how to get folds with both classes).
folds_table <- function(per_fold, lambda, df, classify, crit, labels = NULL) {
  fw <- fold_weights(per_fold, length(lambda))
  per_fold <- per_fold[attr(fw, "used")]
  nfold <- length(per_fold)
  stat <- function(k) {
    s <- fold_stats(per_fold, fw, k)
    list(s$mean, s$se)
  }
  cols <- criteria_columns(stat, classify, ncol(per_fold[[1L]]$mean) - 4L, crit)
  if (needs_values(crit)) {
    values <- matrix(vapply(per_fold, function(p) p$value[[1L]], numeric(length(lambda))),
                     length(lambda))
    if (crit$name == "auc") {
      used <- which(attr(fw, "used"))
      check_auc_folds(values, if (is.null(labels)) used else labels[used])
    }
    s <- over_folds(split(values, col(values)), fw * !is.na(values))
    cols[paste0(crit$name, c("", "_se"))] <- list(s$mean[, 1L], s$se[, 1L])
  }
  tab <- validation_frame(c(list(lambda = lambda, df = df), cols, list(n_na = 0)), length(lambda))
  attr(tab, "folds") <- nfold
  tab
}

# The folds' sums of weights at each lambda (lambdas x folds), those of
# folds with weight only; attribute "used": which folds have weight.
fold_weights <- function(per_fold, nl) {
  fw <- matrix(vapply(per_fold, function(p) p$w[, 1L], numeric(nl)), nl)
  used <- colSums(fw) > 0
  structure(fw[, used, drop = FALSE], used = used)
}

# The mean over folds (weighted by the folds' sums of weights) and its
# standard error over folds of the loss columns `k` of the folds' paths
# (lambdas x length(k) each), in the units of y.
fold_stats <- function(per_fold, fw, k) {
  over_folds(lapply(per_fold, function(p) p$mean[, k, drop = FALSE]), fw,
             per_fold[[1L]]$unit %||% 1, per_fold[[1L]]$power[k])
}

# `means`: one lambdas x columns matrix (or vector) per fold, in units of
# `unit` raised to `power` (one per column), weighted by the folds' weights
# `fw` (lambdas x folds; 0 leaves a fold out at that lambda).
over_folds <- function(means, fw, unit = 1, power = 0) {
  w <- split(fw, col(fw))
  means <- Map(function(x, f) {
    x <- as.matrix(x)
    x[f == 0, ] <- 0   # (an NA of a fold left out counts nothing)
    x
  }, means, w)
  total <- rowSums(fw)
  m <- Reduce(`+`, Map(`*`, means, w)) / total
  dev <- Map(function(x, f) f * (x - m)^2, means, w)
  se <- sqrt(Reduce(`+`, dev) / total / (rowSums(fw > 0) - 1))
  list(mean = from_unit_columns(m, unit, power), se = from_unit_columns(se, unit, power))
}
