# The eigendecomposition (issue 13, DESIGN.md section 9): rlsc's own
# (src/eigen.c: dsytrd's loop in panels of 32, dstemr, a blocked
# back-transformation in parallel pieces), timed as the fit of a
# precomputed kernel at one lambda (its weighted double centering, the
# deflation of the constant and the eigendecomposition; the accuracy of the
# eigenpairs is checked by the tests), against base R's eigen() (LAPACK's
# dsyevr) and, through SciPy on the same LAPACK, dsyevd (divide and conquer)
# and dsyevr, at n = 500 ... 4000, with their orthogonality and residual.
#
# Run from the repository root with rlsc installed:
#     Rscript bench/eigen.R          # one run per solver and size (minutes)
# SciPy comes with Debian's python3-sklearn (make bench-deps); without it
# those columns are NA.
suppressPackageStartupMessages(library(rlsc))
python <- "/usr/bin/python3"
has_scipy <- file.exists(python) &&
  system2(python, c("-c", shQuote("import scipy")), stdout = FALSE, stderr = FALSE) == 0
sizes <- as.integer(strsplit(Sys.getenv("RLSC_EIGEN_SIZES", "500,1000,2000,4000"), ",")[[1]])

cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:  ", sub("model name\\s*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "| nproc", parallel::detectCores(), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "| LAPACK", La_library(), "\n")
cat("rlsc threads:", rlsc_threads()[["rlsc"]], "| load average at start:", readLines("/proc/loadavg"), "\n\n")

quality <- function(a, e) {
  n <- nrow(a)
  c(orth = max(abs(crossprod(e$vectors) - diag(n))),
    resid = max(abs(a %*% e$vectors - e$vectors * rep(e$values, each = n))) / max(abs(e$values)))
}
lapack <- function(a, driver) {
  if (!has_scipy) return(c(seconds = NA, orth = NA, resid = NA))
  file <- tempfile(fileext = ".bin")
  on.exit(unlink(file))
  writeBin(as.vector(a), file)
  out <- system2(python, c("bench/eigen_lapack.py", file, nrow(a), driver), stdout = TRUE)
  c(seconds = as.numeric(out[1]), setNames(as.numeric(strsplit(out[2], " ")[[1]]), c("orth", "resid")))
}
rlsc_eigen <- function(a, threads) {
  old <- options(rlsc.threads = threads)
  on.exit(options(old))
  rlsc(a, rep(c(-1, 1), length.out = nrow(a)), kernel = "precomputed", lambda = 1)
}
no_quality <- c(orth = NA, resid = NA)

rows <- list()
for (n in sizes) {
  set.seed(n)
  # an RBF kernel matrix (sigma = the median distance): the spectrum of the kernel fits
  x <- matrix(rnorm(n * 10), n)
  a <- exp(-as.matrix(dist(x))^2 / (2 * median(dist(x[seq_len(min(n, 1000)), ]))^2))
  cat("n =", n, "...\n")
  add <- function(solver, seconds, q) {
    rows[[length(rows) + 1L]] <<- data.frame(n = n, solver = solver, seconds = seconds,
                                             orth = q[["orth"]], resid = q[["resid"]])
  }
  e <- NULL
  add("eigen() (dsyevr)", system.time(e <- eigen(a, symmetric = TRUE))[["elapsed"]], quality(a, e))
  for (th in unique(c(1L, rlsc_threads()[["rlsc"]]))) {
    add(sprintf("rlsc fit, %d thread(s)", th), system.time(rlsc_eigen(a, th))[["elapsed"]], no_quality)
  }
  for (driver in c("evd", "evr")) {
    r <- lapack(a, driver)
    add(sprintf("SciPy dsy%s", driver), r[["seconds"]], r)
  }
}
res <- do.call(rbind, rows)
res$vs_eigen <- res$seconds / rep(res$seconds[res$solver == "eigen() (dsyevr)"], table(res$n)[as.character(unique(res$n))])
cat("\n")
print(format(res, digits = 3), row.names = FALSE)
cat("\nvs_eigen = seconds / eigen()'s seconds at the same n; orth = max|V'V - I|;",
    "resid = max|AV - V diag(values)| / max|values|.\n")
cat("load average at end:", readLines("/proc/loadavg"), "\n")
