# Benchmark of chunked fits at scale (not in CI): a file-backed data set of
# n = 2e7 rows and d = 50 columns (8 GB, generated once into a cache folder),
# pass 1 and pass 2 throughput in rows/s and GFLOP/s against the rate of dsyrk
# (crossprod) and dgemm on the same machine, sequential and with 2 workers,
# the in-memory fit of a subset for comparison, and the extrapolated time of
# n = 1e8, d = 100.  Run from the repository root, with rlsc installed:
#
#     Rscript bench/scale.R              # RLSC_BENCH_N, RLSC_BENCH_CACHE to change
#
# About 15 minutes on a 2-core machine once the data exist (their generation
# takes about 10 more minutes and 8 GB of disk).
suppressPackageStartupMessages({
  library(rlsc)
  library(bigmemory)
  library(future)
})
n <- as.numeric(Sys.getenv("RLSC_BENCH_N", "2e7"))
d <- 50
cache <- Sys.getenv("RLSC_BENCH_CACHE", file.path("bench", "cache"))
chunk_rows <- 5e5
nlambda <- 100

cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:  ", sub("model name\\s*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "| nproc", parallel::detectCores(), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "| LAPACK", La_library(), "\n")
cat("data:      n =", format(n, big.mark = ","), " d =", d, " (", round(n * (d + 1) * 8 / 2^30, 1),
    "GiB, file-backed big.matrix in", cache, ")\n\n")

# the data, generated once: x ~ N(0, 1) plus offsets, y = x beta + noise
dir.create(cache, showWarnings = FALSE, recursive = TRUE)
desc_file <- file.path(cache, sprintf("rows-%g.desc", n))
if (!file.exists(desc_file)) {
  cat("generating the data ...\n")
  bm <- filebacked.big.matrix(n, d + 1, backingfile = sprintf("rows-%g.bin", n),
                              descriptorfile = basename(desc_file), backingpath = cache)
  set.seed(1)
  beta <- rnorm(d, sd = 0.1)
  for (s in seq(1, n, by = 1e6)) {
    rows <- s:min(s + 1e6 - 1, n)
    x <- matrix(rnorm(length(rows) * d), length(rows)) + rep(seq_len(d) / 10, each = length(rows))
    bm[rows, ] <- cbind(x, drop(x %*% beta) + rnorm(length(rows), sd = 3))
  }
  flush(bm)
  rm(bm)
  invisible(gc())
}
bm <- attach.big.matrix(desc_file)
src <- chunk_bigmatrix(bm, y = d + 1, chunk_rows = chunk_rows)

# the floors: dsyrk (crossprod) and dgemm rates on blocks of the pass's shape
rate <- function(flops, f) {
  t <- min(replicate(3, system.time(f())[["elapsed"]]))
  flops / t / 1e9
}
xb <- matrix(rnorm(chunk_rows * d), chunk_rows)
vb <- matrix(rnorm(d * 200), d)
syrk_gflops <- rate(chunk_rows * d * (d + 1), function() crossprod(xb))
gemm_gflops <- rate(2 * chunk_rows * d * 200, function() xb %*% vb)
cat(sprintf("floors: dsyrk %.2f GFLOP/s, dgemm %.2f GFLOP/s\n\n", syrk_gflops, gemm_gflops))
rm(xb)

# the whole chunked fit (its two passes) against the floor of its flops: the
# moments at the dsyrk rate, the projection and the LOO path at the dgemm rate
passes <- function(label) {
  fit <- NULL
  t <- system.time(fit <- rlsc(src, nlambda = nlambda))[["elapsed"]]
  r <- round(max(fit$df))
  f1 <- n * d * (d + 1) + 2 * n * d
  f2 <- 2 * n * d * r + 2 * n * r * nlambda * (1 + 1)
  floor <- f1 / syrk_gflops / 1e9 + f2 / gemm_gflops / 1e9
  data.frame(backend = label, seconds = t, rows_per_s = n / t, gflops = (f1 + f2) / t / 1e9,
             floor_seconds = floor, share_of_floor = floor / t)
}
plan(sequential)
res <- passes("sequential")
plan(multisession, workers = 2)
res <- rbind(res, passes("multisession, 2 workers"))
plan(sequential)
print(res, digits = 3, row.names = FALSE)

# the in-memory fit of the first 2e6 rows against the chunked fit of the same rows
m <- 2e6
x <- bm[seq_len(m), seq_len(d)]
y <- bm[seq_len(m), d + 1]
t_mem <- system.time(fit_mem <- rlsc(x, y))[["elapsed"]]
t_chunk <- system.time(fit_chunk <- rlsc(chunk_matrix(x, y, chunk_rows = chunk_rows)))[["elapsed"]]
cat(sprintf("\nin memory vs chunked, n = %g: %.1f s vs %.1f s; max relative difference of the LOO table %.1e\n",
            m, t_mem, t_chunk, max(abs(fit_chunk$cvm - fit_mem$cvm) / fit_mem$cvm)))
rm(x, fit_mem, fit_chunk)

# extrapolation to n = 1e8, d = 100 at the measured rate of the best backend
best <- res[which.min(res$seconds), ]
scale <- (1e8 / n) * (100 * 101 + 2 * 100 * 100 + 4 * 100 * nlambda) /
  (d * (d + 1) + 2 * d * d + 4 * d * nlambda)
cat(sprintf("extrapolated, n = 1e8, d = 100, %s: %.1f min\n", best$backend, best$seconds * scale / 60))
