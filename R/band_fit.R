# Banded ridge (issue 25): one penalty weight per group of columns ("band"),
# chosen for each response column by exact leave-one-out or K-fold
# cross-validation.  A candidate is a vector w of non-negative group weights
# summing to 1; its model is ridge with penalty lambda / w_g on the
# coefficients of group g, that is ridge on the columns of group g scaled by
# sqrt(w_g): the column multipliers of the engines (fit_model.R,
# column_multiplier()) divided by sqrt(w_g), Inf where w_g = 0 (the group's
# columns then vanish from the Gram, the kernel and the coefficients
# exactly).  So a candidate costs no new code path:
#   primal  the moments of pass 1 are formed once; each candidate is one
#           d x d eigendecomposition of the rescaled Gram (and one per fold
#           for K-fold), never a pass over the rows for it;
#   dual    one n x n eigendecomposition of sum_g w_g X_g X_g' per candidate
#           (the linear kernel of the rescaled columns).
# The candidates are the settings of the one search (search_settings()):
# with per_response = FALSE one (candidate, lambda) for every column, any
# criterion, each candidate on its own default grid; with per_response = TRUE
# (the default with `bands`) each response column keeps the (candidate,
# lambda) of its smallest criterion: the candidates share one lambda grid, and
# the primal candidates are evaluated in batches, each batch in ONE pass over
# the rows (every block projected once per candidate of the batch, src/path.c
# accumulating each column's losses), the batches and the blocks of response
# columns sized so that their engines stay within options(rlsc.band_memory)
# bytes.

fit_bands <- function(data, spec, call) {
  search <- band_search(data, spec)
  spec$bands <- search$bands   # with the choice of decomposition (graded_bands())
  # (one candidate per response column: no calibration of probabilities)
  if (spec$crit$per_response) spec$calibration <- FALSE
  best <- search_settings(search, spec)
  if (search$zero && best$zero_na) {
    # a point interpolated at lambda = 0: the shared default grid again
    # without 0, as grid_table() makes each setting's
    search <- NULL   # (its decompositions kept: freed before the second search keeps its own)
    search <- band_search(data, spec, zero = FALSE)
    spec$bands <- search$bands   # (its choice of decomposition, for its grid without 0)
    best <- search_settings(search, spec)
  }
  # a candidate, not a kernel setting; with a kernel (multiple-kernel ridge)
  # the fit is a kernel fit of that kernel
  best$setting <- spec$kernel
  if (!spec$crit$per_response) {
    chosen <- best$j
    best$tables <- best$tables[chosen]   # (the chosen candidate's table)
    fit <- new_fit(call, best, search, spec)
    return(band_fit(fit, spec, rep(chosen, ncol(fit$y)), matrix(best$scores, ncol = 1L)))
  }
  best$cand <- best$j
  best$j <- NULL   # (no kernel setting to index)
  best$engine <- banded_engine(search, spec, best$cand)
  best$data <- search$data
  best$path <- band_path(best$lambda, best$curve, best$se, best$n_na, spec$crit$responses,
                         search$data$resp$type == "classification")
  best[c("curve", "se", "n_na")] <- NULL
  best$tables <- list(best$path)
  best$path$df <- band_df(best$engine, best$lambda)
  fit <- new_fit(call, best, search, spec)
  band_fit(fit, spec, best$cand, best$scores)
}

# The band fields of a fit: the groups of the columns, the candidates, the
# chosen candidate and weights of each response column, and the best
# criterion of each candidate (for each response column with per_response).
band_fit <- function(fit, spec, chosen, scores) {
  bands <- spec$bands
  responses <- response_names(fit$y)
  fit$bands <- stats::setNames(bands$names[bands$group], fit$xnames)
  fit$band_candidates <- bands$candidates
  fit$band_index <- stats::setNames(as.integer(chosen), responses)
  fit$band_weights <- matrix(t(bands$candidates[chosen, , drop = FALSE]), ncol = length(chosen),
                             dimnames = list(bands$names, responses))
  colnames(scores) <- if (ncol(scores) == length(responses)) responses else fit$criterion
  fit$band_scores <- scores
  class(fit) <- c("rlsc_banded_fit", class(fit))
  fit
}
