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
    # the multipliers of candidate j (0: the unweighted columns), for its
    # engines and for the decompositions of their Grams alike
    scale_of <- function(j) if (j == 0L) sd else band_scale(bands, bands$candidates[j, ], sd)
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
      primal_engines(part, spec, scale_of(j), sd, full, fold, eigens)
    }
    # candidate j's Gram of engine k (0 the full data's, else fold k's)
    kept <- kept_eigens(function(j, k) {
      list(mom = if (k == 0L) pass$mom else pass$training[[k]], scale = scale_of(j))
    }, spec$free)
    # the engines of candidates `batch` (their engines, `full`, and fold
    # engines, `fold`, for response columns `cols`, or cols[[b]] for
    # candidate b), their Grams decomposed together (two at a time on two
    # threads) or kept from before (kept_eigens())
    build_batch <- function(batch, cols, full = TRUE, fold = TRUE) {
      folds <- if (fold) pass$training
      engines <- c(if (full) 0L, seq_along(folds))
      eigs <- kept(rep(batch, each = length(engines)), rep(engines, length(batch)))
      per <- split(eigs, rep(seq_along(batch), each = length(engines)))
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
  # the chosen candidates' engines (banded_engine()) take their kept
  # decompositions too
  full_eigens <- if (form == "primal") function(used) kept(used, rep(0L, length(used)))
  list(settings = as.list(seq_len(nc)), grid = NULL, form = form, sd = sd, kind = "candidate",
       data = data, mom = pass$mom, build = build, build_batch = build_batch, full_eigens = full_eigens,
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

# The decompositions of a primal banded search's Grams, made once each: a
# function of candidates `j` and engines `k` (0 the full data's, else fold
# k's) giving batched_eigens()'s list of their Grams (`gram_of(j, k)`: the
# moments and multipliers, those of the search's candidates and folds), from
# those kept or made together now.  The boundary probe
# (band_boundary_found()) builds again the fold engines of the candidates
# that the search decomposed, and the full engines that banded_engine() did:
# kept, each takes no second decomposition (of 500 columns, 20 candidates
# and 5 folds: 108 of them, a tenth of the fit).  A Gram depends on x, the
# candidate and the engine only (not on the response columns of a batch),
# so (j, k) names one Gram within a search.  Kept while they take at most
# half of options(rlsc.band_memory) bytes (the batches' engines take up to
# all of it meanwhile); NULL entries (primal_engine() decomposes those
# itself) are not kept.
kept_eigens <- function(gram_of, free) {
  kept <- new.env(parent = emptyenv())
  bytes <- 0
  function(j, k) {
    keys <- paste(j, k, sep = ":")
    eigs <- mget(keys, envir = kept, ifnotfound = list(NULL))
    miss <- vapply(eigs, is.null, NA)
    if (!any(miss)) return(unname(eigs))
    grams <- Map(gram_of, j[miss], k[miss])
    made <- batched_eigens(lapply(grams, `[[`, "mom"), lapply(grams, `[[`, "scale"), free)
    eigs[miss] <- made
    for (i in seq_along(made)) {
      size <- 8 * (length(made[[i]]$vectors) + length(made[[i]]$values))
      if (size > 0 && bytes + size <= band_memory() / 2) {
        assign(keys[miss][i], made[[i]], envir = kept)
        bytes <<- bytes + size
      }
    }
    unname(eigs)
  }
}
