# The search over the candidates, for search_settings(): `build(j, cols,
# full, fold)` gives candidate j's engine and fold engines for response
# columns `cols` (no pass over the rows in the primal; j = 0 the unweighted
# columns, whose engine gives the shared default grid, default_grid(): `zero`
# FALSE makes it without lambda = 0, fit_bands()).  Per response column the
# candidates share that grid (`lambda`) and go in band_plan()'s batches;
# otherwise each has its own default grid, as kernel settings do.
band_search <- function(data, spec, zero = TRUE) {
  bands <- spec$bands
  form <- linear_form(data, spec)
  what <- "the weighted cross-products of `x`"
  build_batch <- NULL
  if (form == "primal") {
    pass <- primal_moments(data, spec)
    # each fold's training moments, merged once for every candidate
    if (!is.null(pass$folds)) pass$training <- fold_training(pass$folds, spec$cv$labels)
    sd <- if (spec$standardize) scale_from_moments(pass$mom)
    data <- pass$data
    build <- function(j, cols = NULL, full = TRUE, fold = TRUE, eigens = NULL) {
      part <- pass
      if (!is.null(cols) && !identical(as.integer(cols), seq_along(pass$mom$ybar))) {
        part$mom <- target_moments(pass$mom, cols)
        if (!is.null(pass$folds)) {
          part$folds <- lapply(pass$folds, target_moments, cols = cols)
          part$training <- lapply(pass$training, target_moments, cols = cols)
        }
        part$data <- select_responses(pass$data, cols)
      }
      scale <- if (j == 0L) sd else band_scale(bands, bands$candidates[j, ], sd)
      primal_engines(part, spec, scale, sd, full, fold, eigens)
    }
    # the engines of candidates `batch` (their engines, `full`, and fold
    # engines, `fold`, for response columns `cols`, or cols[[b]] for
    # candidate b), their Grams decomposed together (two at a time on two
    # threads: batched_eigens())
    build_batch <- function(batch, cols, full = TRUE, fold = TRUE) {
      scales <- lapply(batch, function(j) band_scale(bands, bands$candidates[j, ], sd))
      folds <- if (fold) pass$training
      moms <- c(if (full) list(pass$mom), folds)
      eigs <- batched_eigens(rep(moms, length(batch)), rep(scales, each = length(moms)), spec$free)
      per <- split(eigs, rep(seq_along(batch), each = length(moms)))
      if (!is.list(cols)) cols <- rep(list(cols), length(batch))
      Map(function(j, cj, e) {
        build(j, cj, full, fold, list(full = if (full) e[[1L]], folds = if (length(folds)) e[full + seq_along(folds)]))
      }, batch, cols, per)
    }
    base <- build(0L, fold = FALSE)
    grid <- if (is.null(spec$lambda)) default_grid(base, spec, what, zero)
    lambda <- spec$lambda %||% grid$lambda
    bands$graded <- graded_bands(base$engine$values, bands$candidates, lambda)
    rm(base)
  } else if (is.null(spec$kernel)) {
    pass <- NULL
    sd <- standardize_rows(data, spec)
    groups <- group_kernels(all_rows(data), bands, sd, spec$intercept)
    build <- function(j, cols = NULL, full = TRUE, fold = TRUE, eigens = NULL) {   # (eigens: primal)
      part <- if (is.null(cols)) data else select_responses(data, cols)
      scale <- if (j == 0L) sd else band_scale(bands, bands$candidates[j, ], sd)
      kernel <- kernel_linear()
      if (j > 0L && !is.null(groups)) kernel$gram <- candidate_gram(groups, bands$candidates[j, ])
      dual_build(kernel, part, spec, sd, scale, full)
    }
    grid <- if (is.null(spec$lambda) && spec$crit$per_response) default_grid(build(0L), spec, what, zero)
    lambda <- spec$lambda %||% grid$lambda
  } else {
    # multiple-kernel ridge: candidate w's kernel is sum_g w_g K_g, K_g the
    # kernel of group g's (standardized) columns; j = 0, every weight 1,
    # gives the default grid as the unweighted columns do for the linear kernel
    pass <- NULL
    what <- "the weighted centered kernel"
    sd <- standardize_rows(data, spec)
    rows <- dense_kernel_rows(spec$kernel, all_rows(data))
    groups <- group_kernels(rows, bands, sd, spec$intercept, spec$kernel)
    weights <- function(j) if (j == 0L) rep(1, length(bands$names)) else bands$candidates[j, ]
    build <- function(j, cols = NULL, full = TRUE, fold = TRUE, eigens = NULL) {   # (eigens: primal)
      part <- if (is.null(cols)) data else select_responses(data, cols)
      kernel <- band_kernel(spec$kernel, bands, weights(j), rows, sd, spec$intercept, groups)
      dual_build(kernel, part, spec, sd, sd, full)
    }
    grid <- if (is.null(spec$lambda) && spec$crit$per_response) default_grid(build(0L), spec, what, zero)
    lambda <- spec$lambda %||% grid$lambda
  }
  # one grid for all candidates, and batches of them, only per response column
  shared <- spec$crit$per_response
  nc <- nrow(bands$candidates)
  list(settings = as.list(seq_len(nc)), grid = NULL, form = form, sd = sd, kind = "candidate",
       data = data, mom = pass$mom, build = build, build_batch = build_batch,
       lambda = if (shared) lambda, zero = shared && isTRUE(grid$zero), bands = bands, what = what,
       plan = if (shared) band_plan(list(form = form), spec, data, ncol(data$resp$y0), nc))
}

# The moments of some response columns only.
target_moments <- function(mom, cols) {
  mom$sxy <- mom$sxy[, cols, drop = FALSE]
  mom$ybar <- mom$ybar[cols]
  mom$yshift <- mom$yshift[cols]
  mom
}
