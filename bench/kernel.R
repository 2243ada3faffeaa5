# Benchmark of kernel RLS with the RBF kernel (issue 4, DESIGN.md, section 10).
#
# Run from the repository root with rlsc installed:  Rscript bench/kernel.R
#
# n = 2000 rows, d = 10 columns; 5 values of sigma x 100 values of lambda, all
# with exact LOO.  Every number is a ratio measured in this one run on this one
# machine:
#   1. rlsc() over the whole 5 x 100 grid against 5 x one base-R
#      eigen(K, symmetric = TRUE) of the same n x n kernel matrices (kernel
#      matrices computed beforehand, not timed; rlsc's time includes computing
#      them).  Target: at most 1.3.
#   2. against kernlab::gausspr (one fit at one noise variance per sigma, no
#      cross-validation), when kernlab is installed;
#   3. against KRLS::krls (per sigma: one eigendecomposition and LOO over its
#      own search of lambda), when KRLS is installed or can be installed from
#      CRAN into a private library (never the site library).
# Timings are medians of `reps` runs of system.time()[["elapsed"]], the rlsc
# fit and its reference timed alternately.  The script takes about 25 minutes
# on 2 cores with the reference BLAS, two thirds of it in KRLS.

suppressPackageStartupMessages(library(rlsc))
options(rlsc.progress = FALSE)
reps <- as.integer(Sys.getenv("RLSC_BENCH_REPS", "2"))

time_pair <- function(f, g, reps) {
  sec <- vapply(seq_len(reps), function(i) {
    c(system.time(f())[["elapsed"]], system.time(g())[["elapsed"]])
  }, numeric(2))
  apply(sec, 1L, median)
}

source(file.path("bench", "krls.R"))   # krls_available()

set.seed(2000)
n <- 2000
d <- 10
x <- matrix(rnorm(n * d), n, d)
y <- sin(x[, 1]) + 0.5 * x[, 2] * x[, 3] + rnorm(n, sd = 0.3)
s0 <- median(dist(x[seq(1, n, by = 2), ]))   # the median heuristic, on every other row
sigmas <- s0 * c(0.25, 0.5, 1, 2, 4)
kernels <- lapply(sigmas, function(s) kernel_matrix(kernel_rbf(s), x))

fit <- NULL
t1 <- time_pair(function() fit <<- rlsc(x, y, kernel = kernel_rbf(sigmas), nlambda = 100),
                function() for (k in kernels) eigen(k, symmetric = TRUE), reps)
rows <- list(data.frame(reference = "5 x eigen(K, symmetric = TRUE)", rlsc_sec = t1[1],
                        ref_sec = t1[2], ratio = t1[1] / t1[2], target = "<= 1.3",
                        verdict = if (t1[1] / t1[2] <= 1.3) "PASS" else "MISS"))
cat(sprintf("rlsc %.2f s, 5 x eigen %.2f s, ratio %.3f\n", t1[1], t1[2], t1[1] / t1[2]))
rm(kernels)
invisible(gc())

if (requireNamespace("kernlab", quietly = TRUE)) {
  # kernlab's rbfdot(sigma = g) is exp(-g |x - z|^2): g = 1 / (2 sigma^2); its
  # noise variance `var` is lambda on our scale and must exceed 1e-3
  var <- max(fit$lambda_min, 0.01)
  t2 <- system.time(for (s in sigmas) {
    kernlab::gausspr(x, y, kernel = "rbfdot", kpar = list(sigma = 1 / (2 * s^2)), var = var,
                     scaled = FALSE, fit = FALSE)
  })[["elapsed"]]
  rows[[2]] <- data.frame(reference = "5 x kernlab::gausspr (one lambda, no CV)",
                          rlsc_sec = t1[1], ref_sec = t2, ratio = t1[1] / t2, target = "-",
                          verdict = "info")
}

if (krls_available()) {
  # KRLS's kernel is exp(-|x - z|^2 / sigma) on standardized columns: sigma = 2 s^2
  # recent versions switch to a Nystrom approximation above n = 500: force the
  # exact path, the one comparable to rlsc
  exact <- if ("approx" %in% names(formals(KRLS::krls))) list(approx = "none")
  t3 <- system.time(for (s in sigmas) {
    do.call(KRLS::krls, c(list(X = x, y = y, sigma = 2 * s^2, derivative = FALSE,
                               vcov = FALSE, print.level = 0), exact))
  })[["elapsed"]]
  rows[[3]] <- data.frame(reference = paste0("5 x KRLS::krls ", packageVersion("KRLS"),
                                             " (exact, LOO over its own lambda search)"),
                          rlsc_sec = t1[1], ref_sec = t3, ratio = t1[1] / t3, target = "-",
                          verdict = "info")
} else {
  message("KRLS is not installed and could not be installed from CRAN: skipped")
}

cat(sprintf("n = %d, d = %d, %d sigma x %d lambda; sigma_min = %.3g (median heuristic %.3g), ",
            n, d, length(sigmas), length(fit$lambda), fit$sigma_min, s0),
    sprintf("lambda_min = %.3g, LOO MSE %.4f\n\n", fit$lambda_min, fit$cvm[fit$index_min]), sep = "")
res <- do.call(rbind, rows)
res$rlsc_sec <- round(res$rlsc_sec, 2)
res$ref_sec <- round(res$ref_sec, 2)
res$ratio <- round(res$ratio, 3)
print(res, row.names = FALSE)
cat("\nratio = rlsc seconds / reference seconds (below 1: rlsc is faster)\n\n")
si <- sessionInfo()
cat("R:", R.version.string, "\nBLAS:", si$BLAS, "\nLAPACK:", si$LAPACK, "\n")
cat("cores:", parallel::detectCores(), "\n")
