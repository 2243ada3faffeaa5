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

# The rows `take` of a block (a fold's), with their own y and w: dense x
# whole with the rows' numbers (`take`), which the moments and projections
# read by number in C (no copy of x's rows); sparse x, which R multiplies,
# taken once here.
fold_rows <- function(rows, take) {
  dense <- !is_sparse(rows$x)
  list(x = if (dense) rows$x else take_rows(rows$x, take), take = if (dense) take,
       y = take_rows(rows$y, take), w = rows$w[take])
}

# Fold k as messages name it: by its label in `foldid` when given.
fold_name <- function(k, labels = NULL) paste("fold", if (is.null(labels)) k else labels[k])

# The primal engine of each fold: the other folds' moments merged
# (`training`: those merged moments, when already at hand; else merged for
# all folds at once when they are small, at most 2^24 numbers in all, and
# one fold at a time otherwise, so that one fold's training moments exist
# at once).  With all of them at hand, the folds' Grams are decomposed
# together (batched_eigens()).
# `eigens`: per fold an eigendecomposition function or the decomposition
# itself (primal_engine()).
# Each engine's garbage (its training moments, the merges' temporaries: a
# few d x T each) is collected before the next engine is built, by a
# collection of the youngest generation (under a millisecond): left to
# itself R collects when its heap reaches about 1.4 times the largest live
# memory seen, and with y of 800 MB the K engines' garbage would pile up to
# hundreds of MB (fold_collect()).
fold_engines <- function(folds, intercept, scale, free, training = NULL, labels = NULL,
                         eigens = NULL) {
  small <- sum(vapply(folds, function(f) length(f$sxx) + length(f$sxy), 0)) <= budgets$fold_moments
  if (is.null(training) && is.null(eigens) && small) training <- fold_training(folds, labels)
  if (!is.null(training) && is.null(eigens)) {
    eigens <- batched_eigens(training, rep(list(scale), length(training)), free)
  }
  lapply(seq_along(folds), function(k) {
    fold_collect(primal_engine(training[[k]] %||% fold_training(folds, labels, k)[[1L]], intercept,
                               scale, free, eigens[[k]] %||% c_eigen), length(folds[[k]]$sxy))
  })
}

# The eigendecompositions of several primal engines' Grams, those of
# moments `moms` seen through column multipliers `scales` (one each), by
# gram_eigens() (primal.R): made together by c_eigen_list(), which on two
# threads decomposes two matrices of a few hundred rows at once (one thread
# decomposes such a matrix as fast as two), and the SVDs of those that go
# graded two at a time by c_svd_list(); one per engine for the `eigen` of
# primal_engine(): the folds of a banded candidate, the candidates of a
# batch (bands.R), the engines of the candidates chosen.  Graded scales
# (graded_bands()) take graded_eigen() of the unscaled Gram, their SVDs
# together too.  NULL for all at 700 columns or more (batched_min_d), which
# c_eigen_list() decomposes one after the other with every thread anyway:
# each engine then decomposes its own Gram when it is built, and the Grams
# are not all kept at once.
batched_eigens <- function(moms, scales, free) {
  graded <- vapply(scales, function(s) isTRUE(attr(s, "graded")) && !length(free), NA)
  eigs <- vector("list", length(moms))
  if (!length(moms) || length(moms[[1L]]$xbar) - length(free) >= batched_min_d) return(eigs)
  eigs[graded] <- graded_eigens(lapply(moms[graded], `[[`, "sxx"), scales[graded],
                                lapply(scales[graded], model_columns, free = free))
  grams <- Map(function(mom, scale) {
    mom$sxy <- NULL   # only the Gram: no scaled copy of the d x T cross-products
    engine_gram(mom, scale, free)$sxx
  }, moms[!graded], scales[!graded])
  eigs[!graded] <- gram_eigens(grams)
  eigs
}

# The order from which c_eigen_list() decomposes one matrix at a time (its
# EIGEN_LEND_MIN in src/eigen.c).
batched_min_d <- 700

# `value`, after a collection of the youngest generation of R's heap when
# the fold's work made large temporaries (`numbers`, the size of its d x T
# cross-products, above 2^20: 8 MB): they are freed before the next fold
# makes its own.  (Each collection costs about a millisecond, and a banded
# search evaluates candidates x folds x blocks of rows.)
fold_collect <- function(value, numbers) {
  if (numbers > budgets$fold_garbage) gc(FALSE, full = FALSE)
  value
}

# The moments of the training rows of folds `which`: the other folds' merged.
fold_training <- function(folds, labels = NULL, which = seq_along(folds)) {
  lapply(which, function(k) {
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
kfold_paths <- function(engines, data, lambda, classify, keep, nfold, columns = TRUE,
                        cache = NULL) {
  if (inherits(engines, "rlsc_fold_blocks")) {
    return(blocked_kfold_paths(engines, data, lambda, classify, keep, nfold, columns))
  }
  if (is.function(engines)) {   # dual: engines(k) builds fold k's engine
    rows <- all_rows(data)
    fold <- row_folds(data$rows, 1L, nfold)
    return(lapply(seq_len(nfold), function(k) {
      eng <- engines(k)
      # the held-out rows: rows of zero weight for the fold's engine (direct,
      # no leverage), their losses weighted by their own weights
      set <- list(basis = eng$basis, q = eng$q, r0 = eng$r0, y = rows$y, w = rows$w, omega = eng$w,
                  rows = which(fold == k), complement = FALSE)
      finish_path(row_path(set, eng, lambda, classify, keep, data$unit, columns = columns,
                           values_only = keep), eng, lambda)
    }))
  }
  out <- map_rows(data, heldout_block_paths, merge_fold_paths,
                  engines = engines, lambda = lambda, classify = classify, keep = keep,
                  unit = data$unit, columns = columns, counts = data$counts, cache = cache,
                  what = "evaluating")
  lapply(out, finish_path, eng = engines[[1L]], lambda = lambda)
}

# The per-fold parts of two blocks merged fold by fold.
merge_fold_paths <- function(a, b) Map(merge_path_parts, a, b)

heldout_block_paths <- function(rows, i, engines, lambda, classify, keep, unit, columns, counts,
                                cache = NULL) {
  check_unchanged(rows, i, counts)
  heldout_paths(held_out_rows(rows, i, length(engines)), engines, lambda, classify, keep, unit, columns,
                if (!is.null(cache)) list(cache = cache, block = i))
}

# The rows of a block held out by each fold (taken once for all the engines
# that evaluate them: a banded search's candidates share them).
held_out_rows <- function(rows, i, nfold) {
  fold <- row_folds(rows, i, nfold)
  lapply(seq_len(nfold), function(k) fold_rows(rows, which(fold == k)))
}

# The held-out rows' paths of each fold, or with `keep` their values alone
# (n x T x L) with their responses and weights (row_path()'s
# `values_only`): all that the callers that keep them read (criteria of the
# values), whichever route the rows' products take (heldout_products()).
# `reuse`: list(cache, block), the fold cache of blocks of response columns
# (fold_cache()) and the number of the block of rows, whose held-out rows'
# coordinates it keeps.
heldout_paths <- function(held, engines, lambda, classify, keep, unit, columns = TRUE, reuse = NULL) {
  lapply(seq_along(engines), function(k) {
    project <- if (is.null(reuse)) project_rows else function(x, eng, take) {
      heldout_basis(reuse$cache, k, reuse$block, x, eng, take)
    }
    set <- primal_rows(engines[[k]], held[[k]], heldout = TRUE, lambda = lambda, project = project)
    part <- row_path(set, engines[[k]], lambda, classify, keep, unit, columns = columns,
                     values_only = keep)
    fold_collect(part, length(engines[[k]]$g))
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

# ---- many response columns ----------------------------------------------------
# The primal fold engines of all response columns at once hold, per fold, the
# fold's moments S_xy, its training moments and its engine's g, about 3 K d
# numbers per column: with T = 50000 columns, d = 500 and K = 5 about 3 GB
# beside y's 800 MB.  With more columns than options(rlsc.target_memory)
# bytes (default 4e8) allow, the fold engines are built per block of
# response columns instead, each block by a pass of fold moments over the
# rows of its columns alone (select_responses(): read_rows() takes a block's
# columns, no copy of y), and the blocks' held-out paths are written column
# by column (blocked_kfold_paths()).  The fit's own engine (every column)
# then comes from a pass 1 without folds (so S_xy is formed twice: about 2%
# of the fit).  Each fold's mean loss is linear in the columns, so the K-fold
# table is the same to rounding; each fold's Gram is decomposed once, and
# its held-out rows projected once (fold_cache()), its g per block.  Regression only
# (misclassification needs every class column at once, and classes are few),
# and not for the AUC or a user's criterion (they need the predictions).

# NULL for one block of columns, else a function of the data (after pass 1)
# and the column multipliers giving the fold engines' builder.
fold_blocks <- function(data, spec) {
  if (spec$cv$type != "kfold" || data$resp$type != "regression" || needs_values(spec$crit)) {
    return(NULL)
  }
  per_column <- fold_column_doubles(data, spec$cv$K)
  if (length(response_blocks(ncol(data$resp$y0), per_column)) < 2L) return(NULL)
  function(data, scale) {
    structure(list(data = data, spec = spec, scale = scale, per_column = per_column, finish = list(),
                   cache = fold_cache(spec$cv$K)), class = "rlsc_fold_blocks")
  }
}

# What the blocks of response columns share, fold by fold, and work out
# once: a fold's training Gram is the same in every block (its moments do
# not depend on y), so its eigendecomposition (`eigen`: the Gram and its
# decomposition) runs once, and so do the coordinates of its held-out rows
# in its eigenbasis (`basis`: per block of rows, with what they were
# projected from).  An environment that the blocks (and the probes past the
# grid, probe_table(), which evaluate some of the columns again) read and
# fill in turn; a Gram or engine that differs in any bit from the one kept
# (the row blocking of c_moments() depends on the number of columns of y)
# is decomposed or projected again.
fold_cache <- function(nfold) {
  cache <- new.env(parent = emptyenv())
  cache$eigen <- cache$basis <- vector("list", nfold)
  cache
}

# c_eigen() of fold k's Gram `s`, or the decomposition kept of it.
fold_eigen <- function(cache, k, s) {
  kept <- cache$eigen[[k]]
  if (is.null(kept) || !identical(kept$s, s)) {
    kept <- list(s = s, eig = c_eigen(s))
    cache$eigen[[k]] <- kept
  }
  kept$eig
}

# The coordinates of fold k's held-out rows of block `block` (x's rows
# `take`) in the eigenbasis of its engine `eng`, or those kept of them when
# x, the rows and what the engine projects with (shift, center and v) are
# the same bits; kept while the coordinates of the block's rows, nrow(x)
# x r for its folds together, take at most budgets$fold_bases numbers.
heldout_basis <- function(cache, k, block, x, eng, take) {
  key <- list(x = x, take = take, shift = eng$shift, center = eng$center, v = eng$v)
  kept <- cache$basis[[k]][[as.character(block)]]
  if (!is.null(kept) && identical(kept$key, key)) return(kept$basis)
  basis <- project_rows(x, eng, take = take)
  if (as.numeric(nrow(x)) * ncol(eng$v) <= budgets$fold_bases) {
    cache$basis[[k]][[as.character(block)]] <- list(key = key, basis = basis)
  }
  basis
}

# The numbers a response column costs while its block's fold engines are
# built and evaluated, garbage included: per fold its moments, its training
# moments and the temporaries of their merges (about 4), and g (d each: the
# engine's columns, or its features); the rows' responses (their block's y
# read, a fold's rows taken, its held-out rows: about 3 per row).
fold_column_doubles <- function(data, nfold) {
  features <- data$template$features
  d <- max(length(data$template$xnames), NROW(features$landmarks), NCOL(features$omega))
  rows <- if (data$kind == "memory") max(vapply(data$blocks, function(b) b[2L] - b[1L] + 1, 1)) else 0
  6 * nfold * d + 3 * rows
}

# Blocks of response columns of about options(rlsc.target_memory) bytes at
# `per_column` doubles each.
response_blocks <- function(nt, per_column) {
  size <- max(1, floor(getOption("rlsc.target_memory", 4e8) / (8 * per_column)))
  split(seq_len(nt), ceiling(seq_len(nt) / size))
}

# The per-fold held-out paths of `data`'s response columns, block by block:
# each block's fold engines built (a pass over its columns), its paths
# computed and written into the folds' paths of every column, the engines
# dropped.  Each fold's losses averaged over the columns (squared and
# absolute error, misclassification, training residual) are the blocks'
# averaged again, weighted by their columns; their sums of squared
# deviations over the rows do not merge so (they would need the covariances
# of the blocks): NA, which the K-fold table does not read (its standard
# errors are over folds).  R collects a block's garbage before the next (a
# full collection, 50 ms at 5000 columns of 2000 rows):
# left to itself it collects when its heap reaches about 1.4 times the
# largest live memory seen, which here is y itself.
# With a plan of the probes past the grid (probe_plan()), evaluating the
# grid, each block's columns whose lambda_min sits at an end are probed past
# it with the block's engines (probe_block()), and a later evaluation of
# such probes (probe_table()) reads them (kept_probe_paths()).
blocked_kfold_paths <- function(blocks, data, lambda, classify, keep, nfold, columns = TRUE) {
  if (keep) stop("kept outputs are not bound across blocks of response columns")
  nt <- ncol(data$resp$y0)
  kept <- kept_probe_paths(blocks, lambda, nt)
  if (!is.null(kept)) return(kept)
  plan <- blocks$probe
  probing <- !is.null(plan) && identical(lambda, plan$grid)
  if (probing) blocks$cache$probes <- list()
  first <- seq_len(4L)
  out <- NULL
  for (cols in response_blocks(nt, blocks$per_column)) {
    part <- select_responses(data, cols)
    eigens <- lapply(seq_len(nfold), function(k) function(s) fold_eigen(blocks$cache, k, s))
    engines <- primal_fold_engines(select_responses(blocks$data, cols), blocks$spec, nfold,
                                   blocks$scale, eigens)
    for (f in blocks$finish) engines <- lapply(engines, f)
    per_fold <- kfold_paths(engines, part, lambda, classify, keep, nfold, columns,
                            cache = if (part$kind == "memory") blocks$cache)
    if (probing) {
      probe_block(blocks, engines, part, per_fold, (blocks$columns %||% seq_len(nt))[cols], lambda,
                  classify, nfold)
    }
    rm(engines)
    if (is.null(out)) {
      out <- lapply(per_fold, function(p) {
        wide <- matrix(0, nrow(p$mean), 4L + nt)
        p$m2 <- p$w <- p$mean <- wide
        p$m2[, first] <- NA_real_
        p$n_na <- 0 * p$n_na
        p$power <- loss_powers(nt)
        p
      })
    }
    at <- 4L + cols
    for (k in seq_along(per_fold)) {
      p <- per_fold[[k]]
      out[[k]]$mean[, first] <- out[[k]]$mean[, first] + p$mean[, first] * (length(cols) / nt)
      out[[k]]$w[, first] <- p$w[, first]
      out[[k]]$mean[, at] <- p$mean[, -first]
      out[[k]]$m2[, at] <- p$m2[, -first]
      out[[k]]$w[, at] <- p$w[, -first]
      out[[k]]$n_na <- out[[k]]$n_na + p$n_na
    }
    rm(per_fold, p, part)
    gc(FALSE)
  }
  out
}

# The fold engines with each engine transformed by fun(engine, arg): a list
# of engines, or the builder of blocks of columns (transformed as built).
map_fold_engines <- function(folds, fun, ...) {
  if (inherits(folds, "rlsc_fold_blocks")) {
    args <- list(...)
    folds$finish <- c(folds$finish, list(function(eng) do.call(fun, c(list(eng), args))))
    return(folds)
  }
  if (is.list(folds)) lapply(folds, fun, ...) else folds
}

# The fold engines of response columns `cols` alone.
fold_columns <- function(folds, cols) {
  if (inherits(folds, "rlsc_fold_blocks")) {
    folds$columns <- (folds$columns %||% seq_len(ncol(folds$data$resp$y0)))[cols]
    folds$data <- select_responses(folds$data, cols)
    return(folds)
  }
  if (is.list(folds)) lapply(folds, engine_columns, cols = cols) else folds
}

# ---- the probes past the grid, block by block -------------------------------
# A fit choosing lambda per response column probes past the grid's ends the
# columns whose lambda_min sits at one (probe_table(), fit_model.R): with
# blocks of response columns that evaluation built every fold engine again
# for those columns (their fold moments and g, a tenth of a fit of 5000
# columns).  Instead each block, right after its grid, finds its columns'
# lambda_min as select_fit() does (each column's curve and choice depend on
# that column alone, so they are the fit's to the bit) and probes those at
# an end with the engines it has, past that end only; the probes'
# evaluation reads them from the fold cache.

# The fold engines `folds` with the plan of the probes past the ends of the
# grid `lambda` (those probe_table() evaluates, from the fit's engine
# `eng`), when they are blocks of response columns choosing lambda per
# column; else `folds` as they are.
probe_plan <- function(folds, eng, lambda, crit) {
  nl <- length(lambda)
  if (!inherits(folds, "rlsc_fold_blocks") || !isTRUE(crit$per_response) || nl < 2L ||
      !length(eng$values)) {
    return(folds)
  }
  folds$probe <- list(grid = lambda, crit = crit,
                      top = setdiff(probe_lambdas(eng, lambda[1L], TRUE), lambda),
                      bottom = if (lambda[nl] > 0) setdiff(probe_lambdas(eng, lambda[nl], FALSE), lambda))
  folds
}

# A block's probes: its columns (`columns`, of the fit's) chosen at the
# grid's first lambda probed above it, those chosen at its last (not 0)
# below it, each with the block's fold engines, kept in the fold cache.
probe_block <- function(blocks, engines, part, per_fold, columns, lambda, classify, nfold) {
  plan <- blocks$probe
  crit <- plan$crit
  crit$responses <- crit$responses[columns]
  nl <- length(lambda)
  tab <- folds_table(per_fold, lambda, numeric(nl), classify, crit)
  index <- select_table(tab, crit, crit$responses)$index_min
  for (end in list(list(at = index %in% 1L, probes = plan$top),
                   list(at = index %in% nl, probes = plan$bottom))) {
    idx <- which(end$at)
    if (!length(idx)) next
    # (no probe past that end, all of them unreliable: the columns are
    # probed, at no lambda)
    paths <- if (length(end$probes)) {
      kfold_paths(lapply(engines, engine_columns, cols = idx), select_responses(part, idx),
                  end$probes, classify, FALSE, nfold, TRUE, cache = if (part$kind == "memory") blocks$cache)
    }
    blocks$cache$probes[[length(blocks$cache$probes) + 1L]] <-
      list(lambda = end$probes, columns = columns[idx], per_fold = paths)
  }
}

# The per-fold paths at `lambda` of the blocks' columns (blocks$columns of
# the fit's, `nt` of them) from the probes kept (probe_block()), when every
# column was probed; NULL otherwise.  A column has the probes past the end
# its lambda_min sits at; past the other end its entries are NA, which
# boundary_found() does not read.  The aggregate losses over the columns
# are NA (only the columns' are read); the folds' weights are their held-out
# rows' at every lambda (those rows have no leverage: no LOO value is
# undefined).
kept_probe_paths <- function(blocks, lambda, nt) {
  kept <- blocks$cache$probes
  cols <- blocks$columns
  if (!length(kept) || is.null(cols)) return(NULL)
  probed <- unlist(lapply(kept, `[[`, "columns"), use.names = FALSE)
  if (anyNA(match(cols, probed)) || !all(lambda %in% unlist(lapply(kept, `[[`, "lambda")))) {
    return(NULL)
  }
  nl <- length(lambda)
  template <- Find(function(e) !is.null(e$per_fold), kept)$per_fold
  if (is.null(template)) return(NULL)
  lapply(seq_along(template), function(k) {
    p <- template[[k]]
    wide <- matrix(NA_real_, nl, 4L + nt)
    fold_w <- p$w[1L, 1L]
    p$mean <- p$m2 <- p$w <- wide
    p$w[, 1L] <- fold_w
    for (e in kept) {
      r <- match(lambda, e$lambda)
      at <- match(e$columns, cols)
      rows <- which(!is.na(r))
      from <- which(!is.na(at))
      if (!length(rows) || !length(from) || is.null(e$per_fold)) next
      src <- e$per_fold[[k]]
      for (f in c("mean", "m2", "w")) p[[f]][rows, 4L + at[from]] <- src[[f]][r[rows], 4L + from]
    }
    p$n_na <- numeric(nl)
    p$power <- loss_powers(nt)
    p$df <- NULL
    p
  })
}
