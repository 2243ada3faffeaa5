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
th <- rlsc:::thread_count()
cat("rlsc", format(packageVersion("rlsc")), "from", dirname(system.file(package = "rlsc")), "| threads", th,
    "| BLAS", extSoftVersion()[["BLAS"]], "| load", readLines("/proc/loadavg"), "\n")
set.seed(1)
x <- matrix(rnorm(60000 * 300), 60000)
y <- rnorm(60000)
timed("primal 60000 x 300", rlsc(x, y))
timed("moments 60000 x 300", .Call(rlsc:::C_rlsc_moments, x, matrix(y), rep(1, 60000), TRUE, th))
v <- qr.Q(qr(matrix(rnorm(300 * 300), 300)))
timed("projection 60000 x 300, 20 times", for (i in 1:20) .Call(rlsc:::C_rlsc_project, x, numeric(300), v, NULL, th))
timed("path 60000 x 300, 1000 lambdas",
      .Call(rlsc:::C_rlsc_loo_path, x, rep(1, 300), matrix(1, 300, 1), rep(1, 60000), matrix(y),
            matrix(y), rep(1, 60000), rep(1, 60000), 1:60000, 10^seq(3, -3, length.out = 1000),
            FALSE, FALSE, FALSE, th, NULL, 1))
rm(x, v)
xk <- matrix(rnorm(2500 * 5), 2500)
yk <- rnorm(2500)
timed("rbf n = 2500", rlsc(xk, yk, kernel = kernel_rbf(1)))
timed("rbf n = 2500, 3 sigmas", rlsc(xk, yk, kernel = kernel_rbf(c(1, 2, 3))))
timed("linear dual 2500 x 4000", rlsc(matrix(rnorm(2500 * 4000), 2500), yk))
s <- crossprod(matrix(rnorm(2500^2), 2500))
timed("eigendecomposition 2500 x 2500", .Call(rlsc:::C_rlsc_eigen, s, th))
timed("kernel_matrix 6000 x 6000", kernel_matrix(kernel_rbf(1), matrix(rnorm(6000 * 50), 6000)))
