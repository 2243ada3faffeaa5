# Interrupt latency: each long phase of a fit under setTimeLimit(elapsed = 1)
# should stop within a fraction of a second of the limit (DESIGN.md,
# section 8).  Uses the installed rlsc, or the library given as argument:
#     Rscript bench/interrupt.R [lib]
# About a minute and 1 GB of memory.
lib <- commandArgs(TRUE)[1]
suppressMessages(library(rlsc, lib.loc = if (!is.na(lib)) lib))
timed <- function(label, expr) {
  gc()
  t0 <- proc.time()[[3]]
  setTimeLimit(elapsed = 1, transient = TRUE)
  msg <- tryCatch({ force(expr); "finished" }, error = function(e) conditionMessage(e))
  setTimeLimit(elapsed = Inf)
  cat(sprintf("%-36s stopped after %.2f s: %s\n", label, proc.time()[[3]] - t0, msg))
}
cat("rlsc", format(packageVersion("rlsc")), "from", dirname(system.file(package = "rlsc")),
    "| threads", rlsc_threads()[["rlsc"]],
    "| BLAS", extSoftVersion()[["BLAS"]], "| load", readLines("/proc/loadavg"), "\n")
set.seed(1)
x <- matrix(rnorm(60000 * 300), 60000)
y <- rnorm(60000)
# the moments (the first second of a fit this size), then the path: a
# projection and 1000 lambdas
timed("primal 60000 x 300", rlsc(x, y))
timed("primal 60000 x 300, 1000 lambdas", rlsc(x, y, lambda = 10^seq(3, -3, length.out = 1000)))
timed("primal 60000 x 300, 10 targets", rlsc(x, matrix(rnorm(60000 * 10), 60000)))
rm(x)
xk <- matrix(rnorm(2500 * 5), 2500)
yk <- rnorm(2500)
timed("rbf n = 2500", rlsc(xk, yk, kernel = kernel_rbf(1)))
timed("rbf n = 2500, 3 sigmas", rlsc(xk, yk, kernel = kernel_rbf(c(1, 2, 3))))
timed("linear dual 2500 x 4000", rlsc(matrix(rnorm(2500 * 4000), 2500), yk))
s <- crossprod(matrix(rnorm(2500^2), 2500))
timed("precomputed kernel 2500 x 2500 (its eigendecomposition)",
      rlsc(s, yk, kernel = "precomputed", lambda = 1))
timed("kernel_matrix 6000 x 6000", kernel_matrix(kernel_rbf(1), matrix(rnorm(6000 * 50), 6000)))
