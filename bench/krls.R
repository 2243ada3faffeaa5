# Shared by bench/kernel.R and bench/features.R.

# KRLS from a private library: the one already there, or CRAN into a
# temporary library; NULL when neither works (no network, no compiler).
krls_available <- function() {
  if (requireNamespace("KRLS", quietly = TRUE)) return(TRUE)
  lib <- file.path(tempdir(), "lib-krls")
  dir.create(lib, showWarnings = FALSE)
  ok <- tryCatch({
    # the user's repository (the first mirror where none is set)
    if (identical(unname(getOption("repos")["CRAN"]), "@CRAN@")) {
      utils::chooseCRANmirror(ind = 1, local.only = TRUE)
    }
    suppressWarnings(utils::install.packages("KRLS", lib = lib, quiet = TRUE))
    requireNamespace("KRLS", lib.loc = lib, quietly = TRUE)
  }, error = function(e) FALSE)
  if (ok) .libPaths(c(lib, .libPaths()))
  ok
}
