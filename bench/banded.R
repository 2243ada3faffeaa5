# Banded ridge against himalaya's BandedRidgeCV (issue 25), side by side in
# one run on one machine, through the exported API only:
#   n = 1000 rows, three bands of 100, 200 and 200 columns, 1000 targets,
#   20 candidates (himalaya's: the equal weighting, then Dirichlet samples of
#   concentrations 0.1 and 1 in turn; no weight of exactly 0, which himalaya
#   cannot take: it divides by sqrt(w)), 20 alphas, 5 contiguous folds,
#   the same candidates, folds and alphas given to both (alpha = lambda: both
#   penalize the sum of squares, lambda / w_g on band g);
# prints the seconds of each (median of RLSC_BENCH_REPS runs, default 3;
# himalaya once per run), their ratio, and the share of targets whose chosen
# (weights, alpha) agree.
#
# Run from the repository root with rlsc installed:
#     HIMALAYA_PATH=/tmp/himalaya Rscript bench/banded.R
# HIMALAYA_PATH: a source tree of gallantlab/himalaya (not shipped here);
# /usr/bin/python3 with numpy, scipy and scikit-learn (Debian's python3-*).
# Under OpenBLAS for both: `make bench-banded BLAS=openblas` (LD_PRELOAD of
# the .deps/openblas that make deps unpacks; R and python3 inherit it).
# RLSC_BENCH_SCALE < 1 shrinks n, the bands and the targets (quick checks).
suppressPackageStartupMessages(library(rlsc))
options(rlsc.progress = FALSE)
reps <- as.integer(Sys.getenv("RLSC_BENCH_REPS", "3"))
scale <- as.numeric(Sys.getenv("RLSC_BENCH_SCALE", "1"))
python <- "/usr/bin/python3"
himalaya <- Sys.getenv("HIMALAYA_PATH", "/tmp/himalaya")
helper <- file.path("bench", "himalaya_banded.py")

cat("date:      ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:   ", sub("model name\\s*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "| nproc", parallel::detectCores(), "\n")
cat("R:         ", R.version.string, "| rlsc", format(packageVersion("rlsc")), "\n")
cat("BLAS:      ", extSoftVersion()[["BLAS"]], "| LAPACK", La_library(), "\n")
cat("LD_PRELOAD:", Sys.getenv("LD_PRELOAD", "(none)"), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")
has_himalaya <- file.exists(file.path(himalaya, "himalaya", "__init__.py")) &&
  system2(python, c("-c", shQuote("import numpy, scipy, sklearn")), stdout = FALSE, stderr = FALSE) == 0
if (!has_himalaya) cat("himalaya:   not found (HIMALAYA_PATH) or python3 lacks numpy/scipy/sklearn\n")
cat("\n")

set.seed(25)
n <- round(1000 * scale)
sizes <- round(c(100, 200, 200) * scale)
nt <- round(1000 * scale)
nc <- 20
K <- 5
alphas <- 10^seq(-1, 5, length.out = 20)
bands <- rep(seq_along(sizes), sizes)
x <- matrix(rnorm(n * sum(sizes)), n)
# encoding-model targets: each band's share of the signal drawn per target
share <- matrix(rgamma(length(sizes) * nt, 0.3), length(sizes))
share <- sweep(share, 2L, colSums(share), "/")
y <- matrix(0, n, nt)
for (g in seq_along(sizes)) {
  beta <- matrix(rnorm(sizes[g] * nt), sizes[g]) / sqrt(sizes[g])
  y <- y + (x[, bands == g] %*% beta) * rep(sqrt(share[g, ]), each = n)
}
y <- y + matrix(rnorm(n * nt, sd = 0.5), n)
draws <- t(vapply(rep_len(c(0.1, 1), nc - 1L), function(a) {
  v <- rgamma(3, a)
  v / sum(v)
}, numeric(3)))
candidates <- rbind(rep(1 / 3, 3), draws)
folds <- rep(seq_len(K), each = n / K)

# elapsed and CPU seconds (user + system, over all threads): on a shared
# machine the CPU seconds are the steadier measure
timed <- function(f) {
  gc()
  t0 <- proc.time()
  out <- f()
  t1 <- proc.time() - t0
  list(seconds = t1[["elapsed"]], cpu = t1[["user.self"]] + t1[["sys.self"]], value = out)
}
fit_rlsc <- function() {
  rlsc(x, y, bands = bands, band_weights = candidates, lambda = alphas, foldid = folds)
}
runs <- lapply(seq_len(reps), function(i) timed(fit_rlsc))
t_rlsc <- median(vapply(runs, `[[`, 1, "seconds"))
c_rlsc <- median(vapply(runs, `[[`, 1, "cpu"))
fit <- runs[[1L]]$value

run_himalaya <- function() {
  dir <- tempfile()
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  writeBin(as.vector(x), file.path(dir, "x.bin"))
  writeBin(as.vector(y), file.path(dir, "y.bin"))
  writeBin(as.double(alphas), file.path(dir, "alpha.bin"))
  writeBin(as.vector(candidates), file.path(dir, "gamma.bin"))
  writeBin(as.double(bands - 1), file.path(dir, "group.bin"))
  writeBin(as.double(folds - 1), file.path(dir, "fold.bin"))
  writeLines(paste(n, ncol(x), nt, nrow(candidates), length(sizes)), file.path(dir, "dims.txt"))
  status <- system2(python, c(helper, dir), env = paste0("HIMALAYA_PATH=", himalaya))
  if (status != 0) stop("himalaya failed")
  times <- scan(file.path(dir, "time.txt"), quiet = TRUE)
  list(seconds = times[1L], cpu = times[2L],
       gamma = matrix(readBin(file.path(dir, "best_gamma.bin"), "double", length(sizes) * nt),
                      length(sizes)),
       alpha = readBin(file.path(dir, "best_alpha.bin"), "double", nt))
}
if (has_himalaya) {
  him <- lapply(seq_len(reps), function(i) run_himalaya())
  t_him <- median(vapply(him, `[[`, 1, "seconds"))
  c_him <- median(vapply(him, `[[`, 1, "cpu"))
  h <- him[[1L]]
  same_alpha <- abs(fit$lambda_min - h$alpha) <= 1e-8 * h$alpha
  same_gamma <- colSums(abs(fit$band_weights - h$gamma)) <= 1e-8
  agree <- mean(same_alpha & same_gamma)
} else {
  t_him <- c_him <- agree <- NA_real_
}
cat(sprintf("shape: n = %d, bands %s, %d targets, %d candidates, %d alphas, %d folds\n",
            n, paste(sizes, collapse = "/"), nt, nc, length(alphas), K))
cat(sprintf("                                  elapsed s    CPU s (median of %d)\n", reps))
cat(sprintf("rlsc (exact K-fold, per target):  %9.2f %8.2f\n", t_rlsc, c_rlsc))
cat(sprintf("himalaya BandedRidgeCV:           %9.2f %8.2f\n", t_him, c_him))
cat(sprintf("ratio himalaya / rlsc:            %9.2f %8.2f\n", t_him / t_rlsc, c_him / c_rlsc))
cat(sprintf("targets with the same (weights, alpha): %.1f%%\n", 100 * agree))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
