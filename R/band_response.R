# The validation tables of a batch of band candidates over the grid they
# share (`search$lambda`), for response columns `cols` (search_settings()):
# in the primal every candidate's engine (or fold engines, for K-fold) of the
# batch in ONE pass over the rows, each block projected once per candidate
# (src/path.c accumulating each column's losses); in the dual from each
# engine's own rows.  The batches and blocks of columns are band_plan()'s.
shared_tables <- function(search, spec, batch, cols) {
  data <- select_responses(search$data, cols)
  lambda <- search$lambda
  crit <- spec$crit
  crit$responses <- crit$responses[cols]
  kfold <- spec$cv$type == "kfold"
  classify <- data$resp$type == "classification"
  full <- !kfold   # (K-fold: the fold engines only)
  built <- if (is.null(search$build_batch)) lapply(batch, search$build, cols = cols, full = full) else {
    search$build_batch(batch, cols, full)
  }
  paths <- if (search$form != "primal") {
    lapply(built, function(b) {
      if (kfold) kfold_paths(b$folds, data, lambda, classify, FALSE, spec$cv$K) else {
        engine_path(b$engine, data, lambda, classify)
      }
    })
  } else {
    parts <- map_rows(data, band_block_paths, merge_band_lists,
                      built = built, lambda = lambda, classify = classify, unit = data$unit,
                      counts = data$counts, kfold = kfold, what = "evaluating")
    lapply(seq_along(built), function(j) {
      if (!kfold) finish_path(parts[[j]], built[[j]]$engine, lambda) else {
        lapply(parts[[j]], finish_path, eng = built[[j]]$folds[[1L]], lambda = lambda)
      }
    })
  }
  rm(built)
  lapply(paths, function(path) {
    list(lambda = lambda, path = if (!kfold) path_table(path, lambda, classify, crit) else {
      folds_table(path, lambda, NA_real_, classify, crit, spec$cv$labels)
    })
  })
}

# The per-candidate parts of two blocks merged candidate by candidate.
merge_band_lists <- function(a, b) Map(merge_band_parts, a, b)

band_block_paths <- function(rows, i, built, lambda, classify, unit, counts, kfold) {
  check_unchanged(rows, i, counts)
  if (kfold) held <- held_out_rows(rows, i, length(built[[1L]]$folds))
  lapply(built, function(b) {
    if (kfold) return(heldout_paths(held, b$folds, lambda, classify, FALSE, unit))
    row_path(primal_rows(b$engine, rows), b$engine, lambda, classify, FALSE, unit)
  })
}

merge_band_parts <- function(a, b) {
  if (!is.null(a$mean)) merge_path_parts(a, b) else Map(merge_path_parts, a, b)
}

# Blocks of response columns and batches of candidates whose engines (per
# candidate: one, or K for K-fold, each about d x r + r x T numbers in the
# primal, and while the batch is built its eigendecomposition, d x d more
# below 700 columns: batched_eigens()) stay within options(rlsc.band_memory)
# bytes (default 5e8).
band_plan <- function(search, spec, data, nt, nc) {
  budget <- band_memory()
  d <- length(data$template$xnames)
  if (search$form != "primal") {
    return(list(targets = list(seq_len(nt)), batches = as.list(seq_len(nc))))
  }
  engines <- if (spec$cv$type == "kfold") spec$cv$K else 1
  squares <- if (d < batched_min_d) 2 else 1   # (batched_eigens() keeps no Grams beyond)
  per_target <- max(1, floor((budget / (8 * engines) - squares * d^2) / d))
  tb <- min(nt, per_target)
  per_candidate <- 8 * engines * (squares * d^2 + d * tb)
  cb <- max(1L, min(nc, floor(budget / per_candidate)))
  list(targets = split(seq_len(nt), ceiling(seq_len(nt) / tb)),
       batches = split(seq_len(nc), ceiling(seq_len(nc) / cb)))
}

# The validation table of a banded fit: per response column its criterion
# and standard error along the grid at its chosen candidate (columns mse_*),
# their mean over the columns as `mse` (no standard error for several
# columns: their errors are correlated), the most undefined LOO values of any column, and
# (fit_bands()) the mean over the columns of their models' degrees of
# freedom as `df`.
band_path <- function(lambda, curve, se, n_na, responses, classify) {
  cols <- c(list(mse = rowMeans(curve), mse_se = if (ncol(se) == 1L) se[, 1L] else NA_real_,
                 mae = NA_real_, mae_se = NA_real_,
                 misclass = NA_real_, misclass_se = NA_real_),
            response_columns(curve, se, responses))
  data.frame(lambda = lambda, df = NA_real_, cols, rss = NA_real_,
             n_na = apply(n_na, 1L, max), check.names = FALSE)
}

# The boundary probe of a banded fit per response column (new_fit()): for
# the columns whose lambda_min is an end of the grid (not 0), what
# boundary_found() finds past that end of their candidate's criterion, as
# every fit probes (probe_table()): one more evaluation of those columns'
# candidates, after the search, the candidates built in batches (their Grams
# decomposed together).
band_boundary_found <- function(search, spec, best, sel) {
  lambda <- best$lambda
  nl <- length(lambda)
  responses <- spec$crit$responses
  imin <- sel$index_min
  found <- vector("list", length(responses))
  edge <- nl >= 2L & imin %in% c(1L, nl) & lambda[imin] > 0
  cands <- unique(best$cand[edge])
  cols_of <- lapply(cands, function(j) which(edge & best$cand == j))
  plan <- band_plan(search, spec, search$data, max(lengths(cols_of), 1L), length(cands))
  for (batch in plan$batches) {
    built_all <- if (is.null(search$build_batch)) Map(search$build, cands[batch], cols_of[batch]) else {
      search$build_batch(cands[batch], cols_of[batch])
    }
    for (b in seq_along(batch)) {
      cols <- cols_of[[batch[b]]]
      built <- built_all[[b]]
      built$lambda <- lambda
      built$path <- best$path
      built$data <- select_responses(search$data, cols)
      part <- spec
      part$crit$responses <- responses[cols]
      at <- list(index_min = imin[cols])
      found[cols] <- boundary_found(probe_table(built, part, at), built$engine, lambda, at$index_min,
                                    part$crit)
    }
    rm(built_all)
  }
  found
}
