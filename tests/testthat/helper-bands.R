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
