# The threads of the C loops (issue 13, DESIGN.md section 9): each shape
# fitted with options(rlsc.threads = 1) and = 2, medians of RLSC_BENCH_REPS
# (default 3) runs, and the results compared (identical whatever the threads).
# Run under each BLAS: a threaded BLAS (OpenBLAS) is held to one thread
# during fits whatever the number of the package's threads (but for
# eigendecompositions of order 500 and up), so the second thread should pay
# under either.  Run from the repository root with rlsc installed:
#   Rscript bench/threads.R   (a few minutes)
suppressPackageStartupMessages(library(rlsc))
options(rlsc.progress = FALSE)
reps <- as.integer(Sys.getenv("RLSC_BENCH_REPS", "3"))
info <- rlsc_threads()
cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:  ", sub("model name\\s*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "| nproc", parallel::detectCores(), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "| BLAS threads", info[["blas"]],
    "| rlsc threads", info[["rlsc"]], "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n\n")

set.seed(9)
cases <- list(
  "primal 5000x500" = function() list(x = matrix(rnorm(5000 * 500), 5000), y = rnorm(5000)),
  "primal 100000x50" = function() list(x = matrix(rnorm(1e5 * 50), 1e5), y = rnorm(1e5)),
  "primal 2000x1000" = function() list(x = matrix(rnorm(2000 * 1000), 2000), y = rnorm(2000)),
  "dual 1000x20000" = function() list(x = matrix(rnorm(1000 * 20000), 1000), y = rnorm(1000)),
  "10 classes 5000x200" = function() {
    x <- matrix(rnorm(5000 * 200), 5000)
    list(x = x, y = factor(max.col(x[, 1:10] + matrix(rnorm(5e4, sd = 2), 5000))))
  },
  "RBF n=1500, 2 sigma" = function() {
    x <- matrix(rnorm(1500 * 5), 1500)
    list(x = x, y = sin(x[, 1]) + rnorm(1500, sd = 0.3), kernel = kernel_rbf(c(1, 2)))
  })
rows <- list()
for (name in names(cases)) {
  dat <- cases[[name]]()
  fit_with <- function(th) {
    old <- options(rlsc.threads = th)
    on.exit(options(old))
    fit <- NULL
    args <- dat[c("x", "y", if (!is.null(dat$kernel)) "kernel")]
    secs <- median(replicate(reps, system.time(fit <<- suppressWarnings(
      do.call(rlsc, args)))[["elapsed"]]))
    list(seconds = secs, path = if (is.null(dat$kernel)) fit$path else fit$kernel_path)
  }
  cat(name, "...\n")
  one <- fit_with(1L)
  two <- fit_with(2L)
  rows[[name]] <- data.frame(case = name, threads_1 = one$seconds, threads_2 = two$seconds,
                             ratio_2_over_1 = two$seconds / one$seconds,
                             identical = identical(one$path, two$path))
}
cat("\n")
print(format(do.call(rbind, rows), digits = 3), row.names = FALSE)
cat("\nratio_2_over_1 < 1: the second thread pays. identical: the LOO tables of 1 and 2 threads.\n")
cat("load average at end:", readLines("/proc/loadavg"), "\n")
