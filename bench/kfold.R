# Benchmark of exact 10-fold cross-validation over 100 lambdas (issue 10):
# rlsc(cv = 10) against cv.glmnet(alpha = 0, nfolds = 10) and scikit-learn's
# GridSearchCV(Ridge) over the same folds and grid (what RidgeCV(cv = 10) runs),
# at n = 5000, d = 500 and n = 100000, d = 50, with the same folds for all.
# Ratios are measured within one run; the K-fold curves of rlsc and
# scikit-learn are compared (same folds of equal size, same lambda scale).
# Run from the repository root with rlsc installed:  Rscript bench/kfold.R
suppressPackageStartupMessages({
  library(rlsc)
  library(glmnet)
})
python <- "/usr/bin/python3"   # Debian's python3-sklearn (make bench-deps)
has_sklearn <- file.exists(python) &&
  system2(python, c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE) == 0
cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:  ", sub("model name\\s*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "| nproc", parallel::detectCores(), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "| LAPACK", La_library(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")
if (has_sklearn) {
  cat("sklearn:  ", system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")),
                            stdout = TRUE), "\n\n")
}

med_time <- function(expr, runs) {
  expr <- substitute(expr)
  env <- parent.frame()
  median(replicate(runs, system.time(eval(expr, env))[["elapsed"]]))
}

sklearn_kfold <- function(x, y, folds, lambda) {
  dir <- tempfile()
  dir.create(dir)
  writeBin(as.vector(x), file.path(dir, "x.bin"))
  writeBin(as.double(y), file.path(dir, "y.bin"))
  writeBin(as.double(folds - 1L), file.path(dir, "folds.bin"))
  writeBin(as.double(lambda), file.path(dir, "lambda.bin"))
  script <- file.path(dir, "cv.py")
  writeLines(c(
    "import sys, time, numpy as np",
    "from sklearn.linear_model import Ridge",
    "from sklearn.model_selection import GridSearchCV, PredefinedSplit",
    "d = sys.argv[1]; n, p = int(sys.argv[2]), int(sys.argv[3])",
    "x = np.fromfile(d + '/x.bin').reshape((p, n)).T.copy()",
    "y = np.fromfile(d + '/y.bin'); f = np.fromfile(d + '/folds.bin').astype(int)",
    "lam = np.fromfile(d + '/lambda.bin')",
    "t = time.perf_counter()",
    "g = GridSearchCV(Ridge(), {'alpha': lam}, cv=PredefinedSplit(f), scoring='neg_mean_squared_error').fit(x, y)",
    "print(time.perf_counter() - t)",
    "print(' '.join(repr(v) for v in -g.cv_results_['mean_test_score']))"), script)
  out <- system2(python, c(script, dir, nrow(x), ncol(x)), stdout = TRUE)
  list(seconds = as.numeric(out[1]), cvm = as.numeric(strsplit(out[2], " ")[[1]]))
}

rows <- list()
for (shape in list(c(5000, 500), c(100000, 50))) {
  n <- shape[1]
  d <- shape[2]
  set.seed(1)
  x <- matrix(rnorm(n * d), n)
  y <- drop(x %*% rnorm(d, sd = 0.1)) + rnorm(n, sd = 3)
  folds <- rep_len(1:10, n)
  lambda <- rlsc(x, y, nlambda = 100)$lambda
  lambda <- lambda[lambda > 0]
  cat(sprintf("n = %d, d = %d: rlsc ...", n, d))
  t_rlsc <- med_time(fit <- rlsc(x, y, foldid = folds, lambda = lambda), 3)
  cat(" cv.glmnet ...")
  # glmnet's lambda is rlsc's / (n sd(y)) on standardized columns; its own grid
  # of 100 values is the fair comparison of work
  t_glmnet <- med_time(cv.glmnet(x, y, alpha = 0, foldid = folds, nlambda = 100), 1)
  row <- data.frame(shape = sprintf("%d x %d", n, d), rlsc_sec = t_rlsc, glmnet_sec = t_glmnet,
                    glmnet_ratio = t_glmnet / t_rlsc, sklearn_sec = NA, sklearn_ratio = NA,
                    max_rel_diff_cv = NA)
  if (has_sklearn) {
    cat(" scikit-learn ...")
    sk <- sklearn_kfold(x, y, folds, lambda)
    row$sklearn_sec <- sk$seconds
    row$sklearn_ratio <- sk$seconds / t_rlsc
    row$max_rel_diff_cv <- max(abs(sk$cvm - fit$cvm) / fit$cvm)
  }
  cat("\n")
  rows[[length(rows) + 1L]] <- row
}
cat("\n")
print(do.call(rbind, rows), digits = 3, row.names = FALSE)
cat("\nratios: reference time / rlsc time (larger is faster for rlsc); medians of 3 runs for",
    "rlsc, 1 run for the references\n")
cat("load average at end:", readLines("/proc/loadavg"), "\n")
