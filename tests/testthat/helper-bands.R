# Shared by the banded ridge and multiple-kernel ridge tests (test-bands.R,
# test-bands-kernel.R).

# Each column's best (candidate, lambda): the smallest criterion, the first
# candidate and the largest lambda on ties.
ref_band_choice <- function(tables) {
  nt <- ncol(tables[[1L]]$cvm)
  best <- lapply(seq_len(nt), function(t) {
    mins <- vapply(tables, function(tab) min(tab$cvm[, t]), 1)
    j <- which.min(mins)
    list(j = j, index = which.min(tables[[j]]$cvm[, t]), value = mins[j], all = mins)
  })
  list(j = vapply(best, `[[`, 1L, "j"), index = vapply(best, `[[`, 1L, "index"),
       value = vapply(best, `[[`, 1, "value"), scores = sapply(best, `[[`, "all"))
}

# Per candidate a list(cvm, cvsd) of lambdas x columns: the LOO (or K-fold)
# squared error of each response column by refits.  `model(j)` sets up
# candidate j once and gives list(loo = function(t, l): column t's LOO values
# (n x 1 or more, the first column used), heldout = function(t, train, held,
# l): the held-out predictions of a fold's refit).
ref_candidate_tables <- function(y, w, cand, lambda, folds, model) {
  y <- as.matrix(y)
  lapply(seq_len(nrow(cand)), function(j) {
    m <- model(j)
    per_col <- lapply(seq_len(ncol(y)), function(t) {
      if (is.null(folds)) {
        vals <- vapply(lambda, function(l) ref_criterion((y[, t] - m$loo(t, l)[, 1L])^2, w), numeric(2))
        return(list(cvm = vals[1L, ], cvsd = vals[2L, ]))
      }
      ref_kfold(y[, t], w, folds, lambda, function(train, held, l) m$heldout(t, train, held, l))
    })
    list(cvm = sapply(per_col, `[[`, "cvm"), cvsd = sapply(per_col, `[[`, "cvsd"))
  })
}
