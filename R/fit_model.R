# The one driver every front door reaches (DESIGN.md, "The data flow"): rlsc() on
# a matrix, a formula or a chunk source builds its data (source.R) and hands
# them, with the arguments as given, to fit_model(), which
#   1. checks every argument once, for every data source alike (options.R);
#   2. chooses the search: the linear model (primal from merged moments, or
#      dual from the rows), exact kernels (dual, one engine per kernel
#      setting), or Nystrom and random-feature kernels (primal on the
#      features of each setting);
#   3. for each setting builds the engine (and the fold engines of K-fold),
#      chooses the lambda grid from its spectrum and computes the validation
#      table at the grid and the lambdas probed beyond its ends, in one
#      evaluation;
#   4. keeps the best setting, warns once about what may be inaccurate or cut
#      off, and builds the fit (fit.R).
fit_model <- function(data, args, call) {
  hold_blas_threads()
  pin_threads()
  data$progress <- fit_progress(data, args)
  checked <- check_fit_args(args, data)
  spec <- checked$spec
  data <- checked$data
  if (is.null(data$template$class_weights)) return(fit_checked(data, spec, call))
  withCallingHandlers(fit_checked(data, spec, call), rlsc_weights_overflow = function(e) {
    stop(weights_overflow(e$arg, "class_weights"))
  })
}

# Steps 2 to 4 of fit_model().
fit_checked <- function(data, spec, call) {
  if (!is.null(spec$bands)) return(fit_bands(data, spec, call))
  search <- if (inherits(spec$kernel, "rlsc_features")) {
    feature_search(data, spec)
  } else if (!is.null(spec$kernel)) {
    kernel_search(data, spec)
  } else {
    linear_search(data, spec)
  }
  best <- search_settings(search, spec)
  new_fit(call, best, search, spec)
}

# ---- the searches ------------------------------------------------------------
# A search: the kernel settings to try (`settings`, one NULL for the linear
# model; `grid`, their parameters as a data frame), `build(setting)` giving
# the setting's engine, the data its passes read, its fold engines and its
# count of rows of positive weight, and `what` the engine decomposes (for
# messages).

# The form of a linear fit ("auto": primal when the rows of positive weight
# are at least as many as the columns; chunk sources primal), for the linear
# search and the banded one.
linear_form <- function(data, spec) {
  if (spec$mode != "auto") return(spec$mode)
  if (data$kind == "chunks") return("primal")
  if (length(data$template$xnames) <= sum(all_rows(data)$w > 0)) "primal" else "dual"
}

linear_search <- function(data, spec) {
  form <- linear_form(data, spec)
  if (form == "dual" && length(spec$free)) {
    stop_arg("`penalty_factor` zeros (unpenalized columns) need the primal form, with at ",
             "least as many observations of positive weight as columns; here ",
             sum(all_rows(data)$w > 0), " and ", length(data$template$xnames))
  }
  sd <- if (form == "dual") standardize_rows(data, spec)
  build <- if (form == "primal") {
    function(kern) primal_build(data, spec, spec$standardize, spec$penalty_factor)
  } else {
    function(kern) dual_build(kernel_linear(), data, spec, sd)
  }
  list(settings = list(NULL), grid = NULL, build = build, form = form,
       what = "the weighted cross-products of `x`")
}

# (an RBF kernel without sigma on many rows: the bandwidth screened on a
# sample of the rows first, screen_sigma(), kernels.R)
kernel_search <- function(data, spec) {
  kernel <- spec$kernel
  sd <- standardize_rows(data, spec)
  screen <- NULL
  if (kernel$name == "rbf" && is.null(kernel$params$sigma)) {
    kernel$params$sigma <- sigma_grid(sample_pass(data, spec, 1000L)$x, sd)
    screen <- screen_sigma(kernel, data, spec, function(rows) exact_search(kernel, rows, spec, sd))
    if (!is.null(screen)) kernel$params$sigma <- screen$sigma
  }
  c(exact_search(kernel, data, spec, sd), list(screen = screen))
}

# The search over the settings of an exact kernel (its parameters given).
exact_search <- function(kernel, data, spec, sd) {
  settings <- expand_kernel(kernel)
  list(settings = settings$kernels, grid = settings$grid, form = "dual", kernel = kernel, sd = sd,
       build = function(kern) dual_build(kern, data, spec, sd),
       what = "the weighted centered kernel")
}

feature_search <- function(data, spec) {
  kernel <- spec$kernel
  xnames <- data$template$xnames
  draw <- draw_frequencies(kernel, length(xnames))   # first: in memory and chunked alike
  data <- split_blocks(data, feature_block_rows(kernel$m, length(xnames)))
  size <- max(if (kernel$name == "nystrom" && is.null(kernel$landmarks)) kernel$m,
              if (identical(kernel$landmarks, "kmeans")) 10 * kernel$m,
              if (needs_sigma(kernel)) 1000, 0)
  first <- if (size > 0 || spec$standardize) sample_pass(data, spec, size)
  sd <- if (spec$standardize) scale_from_moments(first$mom)
  if (needs_sigma(kernel)) kernel$params$sigma <- sigma_grid(first$x, sd)
  # the sample is ordered by its random keys: its first k rows are a uniform sample
  landmarks <- choose_landmarks(kernel, function(k) first$x[seq_len(k), , drop = FALSE],
                                first$npos %||% Inf, xnames, sd)
  settings <- expand_kernel(kernel)
  build <- function(kern) {
    map <- setting_map(kern, landmarks, draw, sd)
    mapped <- data
    # (the map's `root` serves feature_engine() only: not sent to the workers of every task)
    mapped$template$features <- map[names(map) != "root"]
    built <- primal_build(mapped, spec, FALSE, NULL)
    built$engine <- feature_engine(built$engine, map)
    built$folds <- map_fold_engines(built$folds, feature_engine, map = map)
    built$features <- evaluation_map(map)
    built$data$template$features <- built$features
    built
  }
  list(settings = settings$kernels, grid = settings$grid, form = "primal", kernel = kernel,
       sd = sd, build = build,
       what = "the weighted cross-products of the features")
}

# The primal engine of the data: pass 1 merges the moments of every block
# (for K-fold, of every fold apart), then step 2; the column scales of
# `standardize` come from the same moments.
# With K-fold over many response columns the fold engines are built later,
# per block of columns (fold_blocks(), kfold.R), and pass 1 keeps no folds.
primal_build <- function(data, spec, standardize, penalty_factor) {
  blocks <- fold_blocks(data, spec)
  pass <- primal_moments(data, spec, folds = is.null(blocks))
  sd <- if (standardize) scale_from_moments(pass$mom)
  scale <- column_multiplier(sd, penalty_factor)
  built <- primal_engines(pass, spec, scale, sd)
  if (!is.null(blocks)) built$folds <- blocks(pass$data, scale)
  # pass 1's S_xy (d x T) is garbage now, and with many response columns
  # large (190 MB at d = 500, T = 50000): R, which collects when its heap
  # reaches about 1.4 times the largest live memory, would keep it through
  # the evaluation; a full collection (tens of ms) frees it when it is large
  if (length(pass$mom$sxy) > budgets$moments_garbage) {
    rm(pass)
    gc(FALSE)
  }
  built
}

# Pass 1: the merged moments of the data (and of each fold apart for
# K-fold, unless `folds` is FALSE), with the data completed by the counts of
# the pass.
primal_moments <- function(data, spec, folds = TRUE) {
  kfold <- spec$cv$type == "kfold"
  nfold <- if (folds && kfold) spec$cv$K
  mom <- map_rows(data, chunk_moments, merge_moments, intercept = spec$intercept, nfold = nfold,
                  kfold = kfold, what = "reading (pass 1)")
  folds <- mom$folds
  if (!is.null(nfold)) mom <- merge_folds(mom)
  check_counts(mom$nrows, mom$npos)
  if (data$kind == "chunks" && spec$intercept) check_chunk_weight_share(mom, data$template)
  data <- with_counts(data, mom)
  if (data$kind == "chunks" && length(mom$xbar) > mom$npos) {
    stop_arg("the chunks hold fewer observations of positive weight (", mom$npos,
             ") than columns (", length(mom$xbar), "): such data need the dual form, which ",
             "needs all rows at once; fit them in memory")
  }
  list(mom = mom, folds = folds, data = data)
}

# Step 2 from the moments of pass 1 (no pass over the rows): the engine of
# the columns seen through the multipliers `scale`, and its fold engines
# (`fold = FALSE`: the engine only, `full = FALSE`: the fold engines only);
# `eigens`: their decompositions made beforehand (batched_eigens(), kfold.R),
# `full` a hook for the engine and `folds` one per fold.
primal_engines <- function(pass, spec, scale, sd = NULL, full = TRUE, fold = TRUE, eigens = NULL) {
  mom <- pass$mom
  list(engine = if (full) primal_engine(mom, spec$intercept, scale, spec$free, eigens$full %||% c_eigen),
       data = pass$data,
       folds = if (fold && !is.null(pass$folds)) {
         fold_engines(pass$folds, spec$intercept, scale, spec$free, pass$training, spec$cv$labels,
                      eigens$folds)
       },
       npos = mom$npos, sd = sd)
}

# The dual engine of a kernel on the rows (in memory); for K-fold a function
# building fold k's engine (dual_fold_builder()); `scale` the column
# multipliers (a banded candidate's, bands.R), `full = FALSE` the folds only.
dual_build <- function(kernel, data, spec, sd, scale = column_multiplier(sd, spec$penalty_factor),
                       full = TRUE) {
  rows <- dense_kernel_rows(kernel, all_rows(data))
  folds <- if (spec$cv$type == "kfold") dual_fold_builder(kernel, rows, data$rows$fold, spec, scale)
  list(engine = if (full) dual_engine(kernel, rows, spec$intercept, scale), data = data, folds = folds,
       npos = sum(rows$w > 0), sd = sd)
}

# Kernels other than the linear one are dense anyway.
dense_kernel_rows <- function(kernel, rows) {
  if (kernel$name != "linear" && is_sparse(rows$x)) rows$x <- as.matrix(rows$x)
  rows
}

# A function building fold k's dual engine for fold labels `label`: the
# held-out rows given weight 0.
dual_fold_builder <- function(kernel, rows, label, spec, scale) {
  rows <- dense_kernel_rows(kernel, rows)
  function(k) {
    train <- rows
    train$w <- rows$w * (label != k)
    if (sum(train$w > 0) < 2L) {
      stop_arg("every fold's training rows must hold at least 2 observations of positive ",
               "weight; ", fold_name(k, spec$cv$labels), " leaves ", sum(train$w > 0))
    }
    dual_engine(kernel, train, spec$intercept, scale)
  }
}

# The primal engines of K folds: a pass of fold moments, each training Gram
# merged from the other folds' (fold_engines(), `eigens` its
# eigendecompositions).
primal_fold_engines <- function(data, spec, nfold, scale, eigens = NULL) {
  moments <- map_rows(data, chunk_moments, merge_moments, intercept = spec$intercept,
                      nfold = nfold, what = "reading (folds)")$folds
  fold_engines(moments, spec$intercept, scale, spec$free, eigens = eigens)
}

# The multipliers the penalty sees the columns through: the standard
# deviations of standardize = TRUE times sqrt(p_j) of positive penalty
# factors (lambda p_j beta_j^2); NULL when there are none.
column_multiplier <- function(sd, penalty_factor) {
  if (is.null(penalty_factor)) return(sd)
  (sd %||% 1) * ifelse(penalty_factor > 0, sqrt(penalty_factor), 1)
}

# The column scales of standardize = TRUE for the dual form and kernels,
# from the rows' moments without a Gram.
standardize_rows <- function(data, spec) {
  if (!spec$standardize) return(NULL)
  rows <- all_rows(data)
  scale_from_moments(block_moments(rows$x, rows$y, rows$w, spec$intercept, gram = FALSE))
}

# The sampling pass (sample.R): `size` rows of positive weight, the counts
# and, with standardize = TRUE, the moments for the column scales.
sample_pass <- function(data, spec, size) {
  first <- map_rows(data, block_sample, merge_samples, intercept = spec$intercept, size = size,
                    seed = sample.int(.Machine$integer.max %/% 2L, 1L),
                    moments = spec$standardize, what = "sampling")
  check_counts(first$n, first$npos)
  first
}

check_counts <- function(n, npos) {
  if (n < 2) stop_arg("the chunks must hold at least 2 rows, not ", n)
  check_positive_weights(npos)
}

# ---- the search over the settings -------------------------------------------

# The one search over settings: kernel parameters, or band candidates.  The
# settings go in batches and the response columns in blocks (`search$plan`;
# by default one setting per batch and every column at once), each batch's
# validation tables made together (setting_tables()); each table's lambda is
# chosen by select_columns() (select_table()), per response column when
# the settings share one grid (`search$lambda`: banded ridge per response
# column) or on the pooled criterion as its one-column case, and each column
# keeps its best setting by better_score() (ties, to rounding, to the LOO
# squared error for "misclass", then to the first setting).  One setting and
# one lambda leave nothing to choose: that fit needs no criterion.
search_settings <- function(search, spec) {
  crit <- spec$crit
  settings <- search$settings
  nk <- length(settings)
  kind <- search$kind %||% "kernel parameter"
  per_column <- !is.null(search$lambda)
  responses <- if (per_column) crit$responses
  nt <- max(length(responses), 1L)
  plan <- search$plan %||% list(targets = list(seq_len(nt)), batches = as.list(seq_len(nk)))
  bar <- if (show_progress(nk)) {
    cli::cli_progress_bar(paste0("Exact LOO over the ", kind, "s"), total = nk * length(plan$targets))
  }
  scores <- matrix(NA_real_, nk, nt, dimnames = list(NULL, responses))
  tables <- vector("list", nk)
  lambdas <- rep(NA_real_, nk)
  best <- list(j = rep(NA_integer_, nt), zero_na = FALSE)
  for (cols in plan$targets) {
    for (batch in plan$batches) {
      grids <- setting_tables(search, spec, batch, cols)
      for (b in seq_along(batch)) {
        j <- batch[b]
        grid <- grids[[b]]
        grids[b] <- list(NULL)
        nl <- length(grid$lambda)
        # a point interpolated at lambda = 0 (fit_bands() then drops 0 from the shared grid)
        best$zero_na <- best$zero_na || (grid$lambda[nl] == 0 && grid$path$n_na[nl] > 0)
        sel <- select_table(grid$path, crit, responses[cols])
        scores[j, cols] <- sel$score[1L, ]
        if (!per_column) {
          tables[[j]] <- grid$path
          lambdas[j] <- grid$lambda[sel$index_min]
        }
        at <- (is.na(best$j[cols]) & !is.na(sel$score[1L, ])) | (nk == 1L && nl == 1L)
        if (!is.null(best$score)) at <- at | better_score(sel$score, best$score[, cols, drop = FALSE])
        if (any(at)) best <- keep_setting(best, grid, j, cols, which(at), sel)
        grid <- NULL   # (a kernel setting's n x n engine, before the next is built)
      }
      if (!is.null(bar)) cli::cli_progress_update(id = bar, inc = length(batch))
    }
  }
  if (!is.null(bar)) cli::cli_progress_done(id = bar)
  if (anyNA(best$j)) {
    stop_undefined(spec$cv$type == "kfold",
                   paste0(if (nk > 1L) paste(" for every", kind),
                          if (per_column) paste0(" for response column(s) ", name_list(responses[is.na(best$j)]))),
                   single = nk == 1L)
  }
  best$scores <- if (per_column) scores else scores[, 1L]
  if (per_column) {
    best$lambda <- search$lambda
  } else {
    best$setting <- settings[[best$j]]
    best$tables <- tables
    best$lambdas <- lambdas
  }
  best
}

# The validation tables of a batch of settings for response columns `cols`:
# each setting's engine and table over its own grid (grid_table(): the
# default grid of its spectrum, or `lambda` given), or, when the settings
# share one grid (`search$lambda`), the batch's tables in one evaluation
# (shared_tables(), band_response.R: in the primal one pass over the rows).
setting_tables <- function(search, spec, batch, cols) {
  if (!is.null(search$lambda)) return(shared_tables(search, spec, batch, cols))
  lapply(batch, function(j) {
    built <- search$build(search$settings[[j]])
    c(built, grid_table(built, spec, search$what))
  })
}

# Columns `at` of `cols` keep setting j (search_settings()): of the pooled
# criterion the setting's engine and table whole; per response column each
# column's curve, standard error and undefined LOO values along the grid
# (`curve`, `se`, `n_na`: band_path() makes the fit's table of them).
keep_setting <- function(best, grid, j, cols, at, sel) {
  if (is.null(best$score)) best$score <- matrix(NA_real_, nrow(sel$score), length(best$j))
  to <- cols[at]
  best$j[to] <- j
  best$score[, to] <- sel$score[, at]
  if (is.null(sel$curve)) return(c(grid, best[c("j", "score", "zero_na")]))
  if (is.null(best$curve)) {
    best$curve <- best$se <- matrix(NA_real_, length(grid$lambda), length(best$j))
    best$n_na <- matrix(0, length(grid$lambda), length(best$j))
  }
  best$curve[, to] <- sel$curve[, at]
  best$se[, to] <- sel$se[, at]
  best$n_na[, to] <- grid$path$n_na
  best
}

# The lambda grid of an engine and its validation table.  The lambdas
# beyond_grid() may probe past the grid's ends go with the grid, in the same
# evaluation, unless probes_later() finds a second evaluation of only the
# probes needed cheaper (then probe_table() computes them once lambda_min is
# known; `extended` is NULL here).  The default grid ends at lambda = 0 when
# least squares is defined and accurate there (least_squares_candidate()) and
# no point is interpolated at 0 (else the grid is made again without it).
grid_table <- function(built, spec, what) {
  eng <- built$engine
  lambda <- spec$lambda
  zero <- FALSE
  if (is.null(lambda)) {
    grid <- default_grid(built, spec, what)
    lambda <- grid$lambda
    zero <- grid$zero
  }
  repeat {
    probes <- setdiff(beyond_probes(eng, lambda), lambda)
    later <- probes_later(built, spec, length(probes))
    folds <- if (later) probe_plan(built$folds, eng, lambda, spec$crit) else built$folds
    extended <- validation_table(eng, built$data, c(lambda, if (!later) probes), spec$crit,
                                 folds, spec$cv$K, spec$cv$labels)
    path <- if (nrow(extended) == length(lambda)) extended else table_head(extended, length(lambda))
    defined <- path$n_na == 0
    if (!all(is.finite(path$mse[defined]))) {
      stop_arg("the leave-one-out errors overflow: `y` (or `x`) is too large in magnitude; ",
               "rescale it")
    }
    if (!zero || path$n_na[length(lambda)] == 0) break
    zero <- FALSE
    lambda <- default_grid(built, spec, what, zero = FALSE)$lambda
  }
  attr(path, "folds") <- attr(extended, "folds")
  attr(path, "pairs") <- attr(extended, "pairs")
  list(lambda = lambda, path = path, extended = if (!later) extended)
}

# Whether the probes beyond the grid are better evaluated after lambda_min is
# chosen, for only the end(s) it sits at (and, choosing per response column,
# only those columns), than with the grid.  With the grid they cost their
# share of the path, nprobe / length(grid) of it, in every fit; later they
# cost a second evaluation, only when lambda_min sits at an end: for a dual
# engine (which holds its rows) the probes alone, for a primal one also the
# projection of the rows again, 2 n d r operations against 2 n r (1 + T) per
# lambda; a chunk source would be read again, and the dual K-fold engines
# rebuilt, so those keep the probes with the grid.
probes_later <- function(built, spec, nprobe) {
  # (a criterion of the values, AUC or a user's, keeps them in one evaluation)
  if (built$data$kind != "memory" || !nprobe || needs_values(spec$crit)) return(FALSE)
  later_probes(built$engine, spec$cv, nprobe)
}

# Whether a second evaluation of `nprobe` probes costs less than their share
# of the grid's (probes_later(), data in memory).
later_probes <- function(eng, cv, nprobe) UseMethod("later_probes")
#' @export
#' @noRd
later_probes.rlsc_dual <- function(eng, cv, nprobe) cv$type != "kfold"
#' @export
#' @noRd
later_probes.rlsc_primal <- function(eng, cv, nprobe) nrow(eng$v) < nprobe * (1 + ncol(eng$g))

# The validation table at the probes beyond_grid() needs for the lambda_min
# of `sel` (select_fit()) when grid_table() left them for later: the probes
# past the end(s) lambda_min sits at, for the criterion's column (choosing
# per response column: the squared-error columns of the regression responses
# at an end, computed for those responses only), with the grid's rows before
# them.  A list of the lambdas and those columns, which is what
# boundary_found() reads; the grid's table when no lambda_min sits at an end.
probe_table <- function(best, spec, sel) {
  eng <- best$engine
  lambda <- best$lambda
  nl <- length(lambda)
  crit <- spec$crit
  index <- sel$index_min
  top <- index == 1L
  bottom <- index == nl & lambda[nl] > 0
  if (nl < 2L || !any(top | bottom)) return(best$path)
  probes <- setdiff(c(if (any(top)) probe_lambdas(eng, lambda[1L], TRUE),
                      if (any(bottom)) probe_lambdas(eng, lambda[nl], FALSE)), lambda)
  cols <- if (isTRUE(crit$per_response)) paste0("mse_", crit$responses[top | bottom]) else crit$name
  if (!length(probes)) return(best$path)
  data <- best$data
  folds <- best$folds
  if (isTRUE(crit$per_response) && data$resp$type == "regression") {
    keep <- which(top | bottom)
    eng <- engine_columns(eng, keep)
    data <- select_responses(data, keep)
    folds <- fold_columns(folds, keep)
    crit$responses <- crit$responses[keep]
  }
  tab <- validation_table(eng, data, probes, crit, folds, spec$cv$K, spec$cv$labels)
  # the columns by one match() (`[[` by name scans the names once per column:
  # 1085 columns of a table of 10000 took 0.07 s)
  c(list(lambda = c(lambda, probes)),
    stats::setNames(Map(c, unclass(best$path)[cols], unclass(tab)[cols]), cols))
}

# Lexicographic comparison of (criterion, tie-break) (the rows of `a` and
# `b`; a vector is one column), column by column: strictly better only,
# values equal to rounding (equal_to_rounding()) counting as equal, so the
# first kernel setting (or band candidate, for each response column) wins
# ties, in memory and from chunks alike; an undefined value (NA) is never
# better.  The one rule by which every search keeps its best setting.
better_score <- function(a, b) {
  a <- as.matrix(a)
  b <- as.matrix(b)
  better <- rep(FALSE, ncol(a))
  open <- rep(TRUE, ncol(a))
  for (k in seq_len(nrow(a))) {
    equal <- equal_to_rounding(a[k, ], b[k, ]) %in% TRUE
    decide <- open & !equal
    better[decide] <- (a[k, ] < b[k, ])[decide] %in% TRUE
    open <- open & equal
  }
  better
}

# Whether a search over `total` kernel settings shows a progress bar (cli):
# options(rlsc.progress), by default in interactive sessions only.
show_progress <- function(total) {
  on <- getOption("rlsc.progress", interactive())
  if (!isTRUE(on) && !isFALSE(on)) {
    stop_arg("option `rlsc.progress` must be TRUE or FALSE, not ", describe(on))
  }
  total > 1L && on && requireNamespace("cli", quietly = TRUE)
}

# One progressor (progressr) for the passes over the chunks of a chunk
# source: a step per chunk and pass, the number of passes estimated from the
# arguments (a levels pass, the passes of a formula's moment terms, a
# sampling pass for feature kernels, two passes per kernel setting).  NULL for data in memory or without progressr.
# The progressor finishes when the fit (the caller's frame) returns.
fit_progress <- function(data, args, envir = parent.frame()) {
  if (data$kind != "chunks" || !requireNamespace("progressr", quietly = TRUE)) return(NULL)
  kernel <- args$kernel
  settings <- if (inherits(kernel, "rlsc_kernel")) max(1, prod(lengths(kernel$params))) else 1
  passes <- (length(data$template$scan) > 0) + (data$template$term_passes %||% 0) +
    inherits(kernel, "rlsc_features") + 2 * settings
  progressr::progressor(steps = length(data$src$chunks) * passes, envir = envir)
}

# ---- the fit -------------------------------------------------------------------

# Where the criterion goes on improving past the end of the grid that a
# lambda_min sits at (for warn_boundary_found()): from the probes beyond the
# grid; a banded engine's column by column, each with its own candidate.
# Without any direction (a constant kernel) every lambda gives the same fit:
# nothing is found.
fit_boundary_found <- function(eng, best, search, spec, sel) UseMethod("fit_boundary_found")
#' @export
#' @noRd
fit_boundary_found.default <- function(eng, best, search, spec, sel) {
  if (!length(eng$values)) return(NULL)
  boundary_found(best$extended %||% probe_table(best, spec, sel), eng, best$lambda,
                 sel$index_min, spec$crit)
}
#' @export
#' @noRd
fit_boundary_found.rlsc_banded <- function(eng, best, search, spec, sel) {
  band_boundary_found(search, spec, best, sel)
}

# The warnings of the chosen setting, and the fit.
new_fit <- function(call, best, search, spec) {
  eng <- best$engine
  data <- best$data
  data$progress <- NULL
  lambda <- best$lambda
  warn_undefined(best$path$n_na)
  warn_unreliable(eng, lambda, standardized = spec$standardize,
                  columns = column_names_of(data$template$xnames, best$features))
  y <- rows_response(eng, data)
  if (!is.null(y)) warn_direct_rows(direct_rows_loose(eng, y, lambda), lambda)
  sel <- select_fit(best$path, spec$crit)
  found <- fit_boundary_found(eng, best, search, spec, sel)
  warn_boundary_found(found, sel$index_min, length(lambda), isTRUE(spec$crit$maximize))
  # (settings that all give the same criterion leave nothing to extend)
  # (a screened sigma: at an end of the screen's values)
  choice <- search$screen %||% list(grid = search$grid, scores = best$scores, j = best$j)
  if (length(unique(choice$scores)) > 1L) warn_kernel_boundary(choice$grid, choice$j)
  kernel <- if (!is.null(best$setting)) {
    chosen <- best$setting
    rbf <- identical(chosen$name, "rbf") || identical(chosen$base, "rbf") ||
      chosen$name == "random_features"
    grid <- search$grid
    kernel_path <- if (is.null(grid)) best$tables[[1L]] else {
      cbind(grid[rep(seq_len(nrow(grid)), vapply(best$tables, nrow, 1L)), , drop = FALSE],
            do.call(rbind, best$tables))
    }
    rownames(kernel_path) <- NULL
    list(kernel = chosen, sigma_min = if (rbf) chosen$params$sigma, kernel_grid = grid,
         kernel_path = kernel_path, index_kernel = best$j, features = best$features,
         sigma_screen = search$screen[c("rows", "table")])
  }
  sd <- best$sd %||% search$sd
  if (!is.null(kernel) && !spec$keep_eigen) eng <- kept_engine(eng, data, lambda)
  rownames <- rownames(data$rows$x)
  # an engine that holds the rows new data need leaves the fit's data only
  # y and w, which the methods read (a saved fit would otherwise hold x twice)
  if (data$kind == "memory" && holds_rows(eng)) data$rows["x"] <- list(NULL)
  fit <- new_rlsc(call, eng, data, best$path, sel, spec, form = search$form, sd = sd,
                  kernel = kernel, rownames = rownames)
  # (the maps of lambda_min and lambda_1se, from the fit's own outputs)
  fit$calibration <- calibrate_fit(fit, spec)
  fit
}
