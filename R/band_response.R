# Each response column's best (candidate, lambda): every candidate's
# validation table over one grid, in batches of candidates (one pass over the
# rows per batch in the primal) and blocks of response columns, each table
# folded into the running best as it comes (nothing of size candidates x
# lambdas x columns is kept): per column its candidate, lambda_min and
# lambda_1se (as select_lambda() chooses them), its criterion curve and
# standard errors, and each candidate's best criterion (`scores`).
search_per_response <- function(search, spec) {
  data <- search$data
  crit <- spec$crit
  responses <- crit$responses
  nt <- length(responses)
  nc <- length(search$settings)
  lambda <- search$lambda
  nl <- length(lambda)
  curve <- se <- matrix(NA_real_, nl, nt)
  n_na <- matrix(0, nl, nt)
  value <- rep(Inf, nt)
  cand <- imin <- i1se <- rep(NA_integer_, nt)
  scores <- matrix(NA_real_, nc, nt, dimnames = list(NULL, responses))
  zero_na <- FALSE   # a point interpolated at lambda = 0 (by some candidate)
  plan <- band_plan(search, spec, data, nt, nc)
  full <- spec$cv$type != "kfold"   # (K-fold: the fold engines only)
  for (cols in plan$targets) {
    part <- select_responses(data, cols)
    for (batch in plan$batches) {
      built <- if (is.null(search$build_batch)) lapply(batch, search$build, cols = cols, full = full) else {
        search$build_batch(batch, cols, full)
      }
      tables <- candidate_tables(built, part, lambda, spec, search$form)
      rm(built)
      for (b in seq_along(batch)) {
        tab <- tables[[b]]
        zero_na <- zero_na || (lambda[nl] == 0 && tab$n_na[nl] > 0)
        m <- tab$m
        s <- tab$s
        sel <- select_columns(m, s)
        scores[batch[b], cols] <- sel$value
        # (strictly better than rounding: the first candidate wins ties)
        better <- which(better_score(rbind(sel$value), rbind(value[cols])))
        if (!length(better)) next
        at <- cols[better]
        value[at] <- sel$value[better]
        cand[at] <- batch[b]
        imin[at] <- sel$index_min[better]
        i1se[at] <- sel$index_1se[better]
        curve[, at] <- m[, better]
        se[, at] <- s[, better]
        n_na[, at] <- tab$n_na
      }
    }
  }
  if (anyNA(cand)) {
    stop_undefined(spec$cv$type == "kfold", paste0(" for every candidate for response column(s) ",
                                                   name_list(responses[is.na(cand)])), single = FALSE)
  }
  list(lambda = lambda, cand = cand, imin = imin, i1se = i1se, scores = scores, value = value,
       zero_na = zero_na,
       path = band_path(lambda, curve, se, n_na, responses, data$resp$type == "classification"))
}

# Each engine's criterion of each response column over the grid (lambdas x
# columns: `m`, its standard error `s`, and the undefined LOO values per
# lambda `n_na`): in the primal every engine of the batch in one pass over
# the rows (each block projected once per candidate), in the dual from each
# engine's own rows.
candidate_tables <- function(built, data, lambda, spec, form) {
  kfold <- spec$cv$type == "kfold"
  classify <- data$resp$type == "classification"
  columns <- 4L + seq_len(ncol(data$resp$y0))   # the losses of the response columns
  table_of <- function(path) {
    if (kfold) {
      fw <- fold_weights(path, length(lambda))
      st <- fold_stats(path[attr(fw, "used")], fw, columns)
      return(list(m = st$mean, s = st$se, n_na = rep(0, length(lambda))))
    }
    st <- path_stats(path, columns)
    list(m = st$mean, s = st$se, n_na = path$n_na)
  }
  if (form != "primal") {
    return(lapply(built, function(b) {
      table_of(if (kfold) kfold_paths(b$folds, data, lambda, classify, FALSE, spec$cv$K) else {
        engine_path(b$engine, data, lambda, classify)
      })
    }))
  }
  parts <- map_rows(data, band_block_paths, merge_band_lists,
                    built = built, lambda = lambda, classify = classify, unit = data$unit,
                    counts = data$counts, kfold = kfold, what = "evaluating")
  lapply(seq_along(built), function(j) {
    table_of(if (!kfold) finish_path(parts[[j]], built[[j]]$engine, lambda) else {
      lapply(parts[[j]], finish_path, eng = built[[j]]$folds[[1L]], lambda = lambda)
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

# The boundary warning of a banded fit: for the columns whose lambda_min is
# an end of the grid (not 0), the probes past that end of their candidate's
# criterion, as every fit has them (probe_table(), check_boundary()): one
# more evaluation of those columns' candidates, after the search, the
# candidates built in batches (their Grams decomposed together).
check_band_boundary <- function(search, spec, best, sel) {
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
  warn_boundary_found(found, imin, nl)
}
