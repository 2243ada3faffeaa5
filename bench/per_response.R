# per_response = TRUE against per_response = FALSE (issue 27): one lambda per
# response column, chosen from the path the fit computes anyway.  The exact
# LOO path accumulates every response column's squared errors in the same
# pass as their mean (src/path.c), so per-target selection costs the reading
# of those columns and one boundary check per call, not a validation per
# target.  Three fits per shape, through the exported API only:
#   FALSE      the mean squared error over the columns (the default)
#   TRUE       one lambda per column
#   FALSE/mae  the mean absolute error: a criterion of the columns' own
#              errors, so the path runs on every column, as TRUE's does
# When there are more targets than directions (T > rank of x), FALSE runs
# the path on the responses' coordinates in the row space of the engine's
# cross-products (rank columns instead of T: R/path.R, response_space()),
# which no criterion of the single columns can use: per-column LOO errors
# cost n r T L, the mean n r min(r, T) L.  TRUE is then compared with
# FALSE/mae, the same path.
# Run from the repository root with rlsc installed:  Rscript bench/per_response.R
suppressPackageStartupMessages(library(rlsc))
cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:  ", sub("model name\\s*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "| nproc", parallel::detectCores(), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "| LAPACK", La_library(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n\n")

# Elapsed seconds (median of `runs`) and the warnings of one fit.
timed <- function(fit, runs) {
  warnings <- character()
  one <- function() {
    system.time(withCallingHandlers(fit(), warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    }))[["elapsed"]]
  }
  secs <- median(vapply(seq_len(runs), function(i) one(), 1))
  list(secs = secs, warnings = length(warnings) / runs)
}

shapes <- list(
  list(n = 500, d = 400, targets = 400, signal = TRUE, runs = 3),
  list(n = 500, d = 400, targets = 5000, signal = TRUE, runs = 1),
  # issue 27's report: noise targets, most of them chosen at an end of the grid
  list(n = 100, d = 10, targets = 400, signal = FALSE, runs = 5),
  list(n = 100, d = 10, targets = 5000, signal = FALSE, runs = 3)
)
rows <- lapply(shapes, function(s) {
  set.seed(27)
  x <- matrix(rnorm(s$n * s$d), s$n)
  y <- matrix(rnorm(s$n * s$targets), s$n)
  if (s$signal) y <- y + x %*% matrix(rnorm(s$d * s$targets, sd = 0.05), s$d)
  pooled <- timed(function() rlsc(x, y), s$runs)
  each <- timed(function() rlsc(x, y, per_response = TRUE), s$runs)
  full <- timed(function() rlsc(x, y, criterion = "mae"), s$runs)
  data.frame(shape = sprintf("%dx%d, %d %s targets", s$n, s$d, s$targets,
                             if (s$signal) "signal" else "noise"),
             rank_vs_T = if (min(s$n - 1, s$d) >= s$targets) "T <= rank" else "T > rank",
             false_s = pooled$secs, true_s = each$secs, true_vs_false = each$secs / pooled$secs,
             mae_s = full$secs, true_vs_mae = each$secs / full$secs,
             true_warnings = each$warnings)
})
out <- do.call(rbind, rows)
print(format(out, digits = 3), row.names = FALSE)
