# Benchmark of the exact LOO path against its peers (issue 13, DESIGN.md,
# section 10), over the shapes of the issue, in one run on one machine:
#
#   * scikit-learn's RidgeCV / RidgeClassifierCV (efficient LOO over the same
#     100 alphas, run by /usr/bin/python3 on the same data: bench/sklearn_loo.py),
#     with the largest relative difference of the two LOO curves;
#   * cv.glmnet(alpha = 0) (10 folds over its own 100 lambdas) and
#     MASS::lm.ridge (GCV only, the same lambdas), for information;
#   * the flop floor: the path's floating-point operations (Gram, one
#     eigendecomposition at 10/3 m^3, the projection B = (X - 1 xbar') V, the
#     path products 2 n r L (1 + T)) at the rates of dsyrk (crossprod() or
#     tcrossprod() of this X, the Gram) and dgemm (X %*% V, or an n x n times
#     n x L product in the dual) measured in the same run: time / floor;
#   * the RBF kernel fit (5 sigma x 100 lambda, n = 2000) against five base-R
#     eigen() calls of its kernel matrices.
#
# Run from the repository root with rlsc installed:
#     Rscript bench/peers.R              # RLSC_BENCH_REPS (default 3) timed runs each
# Needs glmnet and MASS; scikit-learn from Debian's python3-sklearn (make
# bench-deps installs it), else its columns are NA.  rlsc runs with its
# default threads (options(rlsc.threads)); print the BLAS with the results.
# About 12 minutes with the reference BLAS on 2 cores.
suppressPackageStartupMessages({
  library(rlsc)
  library(glmnet)
})
options(rlsc.progress = FALSE)
reps <- as.integer(Sys.getenv("RLSC_BENCH_REPS", "3"))
python <- "/usr/bin/python3"
has_sklearn <- file.exists(python) &&
  system2(python, c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE) == 0
helper <- file.path("bench", "sklearn_loo.py")

source(file.path("bench", "shapes.R"))
bench_header("The exact LOO path against its peers (bench/peers.R)")
if (has_sklearn) {
  cat("sklearn:  ", system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")),
                            stdout = TRUE), "\n\n")
} else {
  cat("sklearn:   not installed (make bench-deps installs python3-sklearn): its columns are NA\n\n")
}

med_time <- function(f, runs) median(vapply(seq_len(runs), function(i) system.time(f())[["elapsed"]], 1))

# Median seconds of scikit-learn's LOO over `alphas` and its LOO MSE curve.
sklearn_loo <- function(x, y, alphas, kind, runs) {
  if (!has_sklearn) return(list(seconds = NA_real_, cvm = NA_real_))
  dir <- tempfile()
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  writeBin(as.vector(x), file.path(dir, "x.bin"))
  writeBin(as.double(if (is.factor(y)) as.integer(y) else y), file.path(dir, "y.bin"))
  writeBin(as.double(alphas), file.path(dir, "alpha.bin"))
  nt <- if (is.matrix(y)) ncol(y) else 1L
  out <- system2(python, c(helper, dir, nrow(x), ncol(x), nt, kind, runs), stdout = TRUE)
  list(seconds = as.numeric(out[1]), cvm = as.numeric(strsplit(out[2], " ")[[1]]))
}

# The floor: Gram flops at the dsyrk rate, the rest at the dgemm rate, both
# measured on this shape.
flop_floor <- function(x, fit, nt) {
  n <- nrow(x)
  d <- ncol(x)
  nl <- length(fit$lambda)
  dual <- fit$form == "dual"
  m <- if (dual) n else d
  r <- m
  gram <- if (dual) n * (n + 1) * d else n * d * (d + 1)
  rest <- 10 / 3 * m^3 + (if (dual) 0 else 2 * n * d * r) + 2 * n * r * nl * (1 + nt)
  t_syrk <- min(replicate(2, system.time(if (dual) tcrossprod(x) else crossprod(x))[["elapsed"]]))
  a <- if (dual) matrix(rnorm(n * n), n) else x
  b <- matrix(rnorm(ncol(a) * (if (dual) nl else d)), ncol(a))
  t_gemm <- min(replicate(2, system.time(a %*% b)[["elapsed"]]))
  syrk_rate <- gram / t_syrk
  gemm_rate <- 2 * nrow(a) * ncol(a) * ncol(b) / t_gemm
  list(seconds = gram / syrk_rate + rest / gemm_rate, syrk = syrk_rate / 1e9, gemm = gemm_rate / 1e9)
}

rows <- list()
for (s in bench_shapes) {
  n <- s$n
  d <- s$d
  dat <- simulate_shape(s)
  x <- dat$x
  y <- dat$y
  label <- shape_label(s)
  nt <- if (is.factor(y)) nlevels(y) else NCOL(y)
  cat(sprintf("%-24s rlsc ...", label))
  grid <- shape_grid(dat)   # (positive: scikit-learn takes positive alphas only)
  fit <- NULL
  t_rlsc <- med_time(function() fit <<- suppressWarnings(rlsc(x, y, lambda = grid)), reps)
  # classes without probabilities (calibration_folds = 0): what
  # RidgeClassifierCV computes, which has none
  t_no_prob <- if (!is.factor(y)) NA_real_ else {
    med_time(function() suppressWarnings(rlsc(x, y, lambda = grid, calibration_folds = 0)), reps)
  }
  cat(" scikit-learn ...")
  sk <- sklearn_loo(x, y, grid, if (is.factor(y)) "class" else "reg", reps)
  ours <- fit$path$mse
  diff <- if (length(sk$cvm) == length(ours)) max(abs(sk$cvm - ours) / ours) else NA_real_
  cat(" cv.glmnet ...")
  t_glmnet <- if (n * d > 5e6) NA_real_ else {
    family <- if (is.factor(y)) "multinomial" else if (nt > 1) "mgaussian" else "gaussian"
    med_time(function() cv.glmnet(x, y, alpha = 0, nfolds = 10, family = family), 1)
  }
  cat(" lm.ridge ...")
  t_ridge <- if (nt > 1 || is.factor(y)) NA_real_ else {
    med_time(function() MASS::lm.ridge(y ~ x, lambda = grid), 1)
  }
  cat(" floor ...\n")
  fl <- flop_floor(x, fit, nt)
  rows[[length(rows) + 1L]] <- data.frame(
    shape = label, mode = fit$form, rlsc_s = t_rlsc, sklearn_s = sk$seconds,
    vs_sklearn = sk$seconds / t_rlsc, no_prob_vs_sklearn = sk$seconds / t_no_prob, loo_rel_diff = diff, glmnet10_s = t_glmnet,
    lm_ridge_s = t_ridge, floor_s = fl$seconds, vs_floor = t_rlsc / fl$seconds,
    syrk_gflops = fl$syrk, gemm_gflops = fl$gemm)
}
rm(x, y, fit)
invisible(gc())

# the RBF kernel fit against five base-R eigen() of its kernel matrices
cat("RBF n = 2000, 5 sigma x 100 lambda: rlsc ...")
rbf <- rbf_case()
x <- rbf$x
y <- rbf$y
sigmas <- rbf$sigma
t_kernel <- med_time(function() rlsc(x, y, kernel = kernel_rbf(sigmas), nlambda = 100), 1)
cat(" 5 x eigen() ...\n")
kernels <- lapply(sigmas, function(s) kernel_matrix(kernel_rbf(s), x))
t_eigen <- med_time(function() for (k in kernels) eigen(k, symmetric = TRUE), 1)
rows[[length(rows) + 1L]] <- data.frame(
  shape = "RBF n=2000, 5 sigma x 100 lambda", mode = "kernel", rlsc_s = t_kernel, sklearn_s = NA,
  vs_sklearn = NA, no_prob_vs_sklearn = NA, loo_rel_diff = NA, glmnet10_s = NA, lm_ridge_s = NA, floor_s = t_eigen,
  vs_floor = t_kernel / t_eigen, syrk_gflops = NA, gemm_gflops = NA)

print_rows(rows)
cat("\nvs_sklearn = scikit-learn seconds / rlsc seconds (target >= 3 with the reference BLAS, > 1 with",
    "OpenBLAS);\nno_prob_vs_sklearn (classes) against the fit with calibration_folds = 0 (no",
    "probabilities: RidgeClassifierCV has none);\nloo_rel_diff = largest relative difference of the two LOO MSE curves; vs_floor = rlsc",
    "seconds / flop floor (target <= 1.3);\nthe last row's floor_s is five eigen() calls (target",
    "vs_floor <= 0.7); medians of", reps, "runs for rlsc and scikit-learn, 1 for the others.\n")
bench_footer()
