# Peak resident memory of a fit with many response columns (issue 24, goals
# 2 and 4): n = 2000, d = 500, T = 50000 targets (y is 800 MB), 20 lambdas,
# one lambda per target (per_response = TRUE), by exact LOO and by exact
# 5-fold CV (foldid).  Each fit runs in a fresh R process (a child Rscript of
# this script) that makes x and y (y a block of columns at a time, so that no
# more than y exists at once), then fits; the peak is the process's VmHWM
# from /proc/self/status, reset just before the fit (/proc/self/clear_refs)
# so that it is the fit's own.
#   input_mb   x and y (what the caller holds)
#   before_mb  VmHWM just before the fit (after the reset: the resident memory
#              of the process holding its data)
#   peak_mb    VmHWM after the fit: the peak resident memory during it
#   bound_mb   2 x input + the factorization and the fit's outputs (d x d
#              eigenvectors and d x T coefficients): the goal
#   peak_vs_input, peak_vs_bound   (goal: peak_vs_bound <= 1, about 2 GB)
# RLSC_BENCH_SCALE (default 1) multiplies T for quick runs (0.1: 5000
# targets); RLSC_BENCH_CASES=kfold runs one case.  Only the exported API of rlsc.  Run from the repository root with
# rlsc installed: make bench-memory (about 4 minutes under OpenBLAS,
# BLAS=openblas; the children inherit its LD_PRELOAD).
args <- commandArgs(TRUE)
suppressPackageStartupMessages(library(rlsc))
source(file.path("bench", "shapes.R"))
options(rlsc.progress = FALSE)
scale <- as.numeric(Sys.getenv("RLSC_BENCH_SCALE", "1"))
n <- 2000
d <- 500
nt <- max(1L, as.integer(round(50000 * scale)))
lambda <- 10^seq(-1, 5, length.out = 20)
cases <- list(loo = list(label = "LOO", foldid = NULL),
              kfold = list(label = "5-fold", foldid = rep(1:5, each = n / 5)))
# RLSC_BENCH_CASES: some of them only ("kfold", "loo,kfold")
only <- strsplit(Sys.getenv("RLSC_BENCH_CASES", "loo,kfold"), ",")[[1L]]

status_mb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", line)) / 1024
}

if (length(args) == 2L && args[1L] == "child") {
  case <- cases[[args[2L]]]
  set.seed(24)
  x <- matrix(rnorm(n * d), n)
  y <- matrix(0, n, nt)
  for (b in split(seq_len(nt), ceiling(seq_len(nt) / 1000))) {
    y[, b] <- x %*% matrix(rnorm(d * length(b), sd = 1 / sqrt(d)), d) +
      matrix(rnorm(n * length(b)), n)
  }
  input <- as.numeric(object.size(x) + object.size(y)) / 2^20
  invisible(gc())
  reset <- tryCatch({
    writeLines("5", "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
  before <- status_mb("VmHWM")
  seconds <- elapsed(fit <- suppressWarnings(
    rlsc(x, y, lambda = lambda, foldid = case$foldid, per_response = TRUE)))
  peak <- status_mb("VmHWM")
  # (a check that the fit is whole: every column has its lambda)
  stopifnot(length(fit$lambda_min) == nt)
  cat(input, before, if (reset) peak else NA_real_, seconds, "\n")
  quit(save = "no")
}

bench_header(sprintf("Peak resident memory of a fit (bench/memory.R), %dx%d, %d targets", n, d, nt))
rscript <- file.path(R.home("bin"), "Rscript")
rows <- list()
for (k in intersect(names(cases), only)) {
  cat(sprintf("%-8s ...\n", cases[[k]]$label))
  out <- system2(rscript, c(file.path("bench", "memory.R"), "child", k), stdout = TRUE)
  v <- as.numeric(strsplit(trimws(out[length(out)]), " +")[[1L]])
  bound <- 2 * v[1L] + (d * d + d * nt) * 8 / 2^20
  rows[[k]] <- data.frame(cv = cases[[k]]$label, targets = nt, input_mb = v[1L], before_mb = v[2L],
                          peak_mb = v[3L], bound_mb = bound, peak_vs_input = v[3L] / v[1L],
                          peak_vs_bound = v[3L] / bound, fit_s = v[4L])
}
print_rows(rows)
cat("\npeak_mb: VmHWM of the fit's process during the fit (its data included);",
    "bound_mb = 2 input + d x d + d x T doubles; goal peak_vs_bound <= 1.\n")
bench_footer()
