# Benchmark of the exact leave-one-out path (DESIGN.md, section 10).
#
# Run from the repository root:  Rscript bench/path.R
#
# Every number is a ratio measured in this one run on this one machine:
#   1. the whole 100-lambda LOO path against ONE single-lambda ridge fit in base R
#      (primal: n = 5000, d = 500; dual: n = 500, d = 5000);
#   2. against brute-force LOO (n refits at one lambda), n = 1000, d = 100;
#   3. against glmnet::cv.glmnet(alpha = 0, nfolds = n), MASS::lm.ridge (GCV only)
#      and scikit-learn's RidgeCV (when installed), same data as 2;
#   4. peak memory of a primal fit, n = 200000, d = 100, in a fresh R process,
#      as a multiple of the size of X.
# Timings are medians of `reps` runs of system.time()[["elapsed"]] (fewer runs for
# the slow references).  The whole script takes a few minutes on 2 cores.

suppressPackageStartupMessages(library(rlsc))

# ---- helpers ----------------------------------------------------------------

# Median elapsed seconds of `reps` evaluations of f().
time_median <- function(f, reps) {
  median(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], numeric(1)))
}

# Medians of f() and g() timed alternately, so that a change in the load of the
# machine during the run hits both alike.
time_pair <- function(f, g, reps) {
  sec <- vapply(seq_len(reps), function(i) {
    c(system.time(f())[["elapsed"]], system.time(g())[["elapsed"]])
  }, numeric(2))
  apply(sec, 1L, median)
}

# Gaussian design and a linear response with unit noise.
simulate <- function(n, d, seed) {
  set.seed(seed)
  x <- matrix(rnorm(n * d), n, d)
  y <- drop(x %*% rnorm(d, sd = 1 / sqrt(d))) + rnorm(n)
  list(x = x, y = y)
}

# One row of the results table.  `ratio_def` says which way the ratio goes;
# `op` and `goal` the target (NA: no target, reported for information).
result_row <- function(case, rlsc_sec, reference, ref_sec, ratio_def,
                       op = NA, goal = NA, ratio = NULL) {
  if (is.null(ratio)) {
    ratio <- if (ratio_def == "rlsc/ref") rlsc_sec / ref_sec else ref_sec / rlsc_sec
  }
  verdict <- if (is.na(goal)) "info" else if (match.fun(op)(ratio, goal)) "PASS" else "MISS"
  data.frame(case = case, rlsc_sec = rlsc_sec, reference = reference, ref_sec = ref_sec,
             ratio_def = ratio_def, ratio = ratio,
             target = if (is.na(goal)) "-" else paste(op, goal),
             verdict = verdict, stringsAsFactors = FALSE)
}

# ---- the references -----------------------------------------------------------

# One single-lambda ridge fit without intercept, primal (d x d) form.
ridge_primal <- function(x, y, lam) {
  solve(crossprod(x) + lam * diag(ncol(x)), crossprod(x, y))
}

# The same fit in the tcrossprod (n x n, kernel) form, for d > n.
ridge_dual <- function(x, y, lam) {
  crossprod(x, solve(tcrossprod(x) + lam * diag(nrow(x)), y))
}

# Brute-force LOO predictions at one lambda: n refits, each a base-R solve of
# the (d+1) x (d+1) penalized normal equations with an unpenalized intercept.
brute_force_loo <- function(x, y, lam) {
  x1 <- cbind(1, x)
  pen <- diag(c(0, rep(lam, ncol(x))))
  vapply(seq_len(nrow(x)), function(i) {
    xi <- x1[-i, , drop = FALSE]
    beta <- solve(crossprod(xi) + pen, crossprod(xi, y[-i]))
    sum(x1[i, ] * beta)
  }, numeric(1))
}

# Median seconds of scikit-learn's RidgeCV (efficient LOO over `lambda`) run by
# Debian's /usr/bin/python3 (python3-sklearn: make bench-deps), or NA when it
# or scikit-learn is missing.
python <- "/usr/bin/python3"
sklearn_ridgecv_sec <- function(x, y, lambda, reps) {
  if (!file.exists(python)) return(NA_real_)
  status <- suppressWarnings(system2(python, c("-c", shQuote("import sklearn")),
                                     stdout = FALSE, stderr = FALSE))
  if (status != 0) return(NA_real_)
  data_file <- tempfile(fileext = ".csv")
  alpha_file <- tempfile(fileext = ".csv")
  script <- tempfile(fileext = ".py")
  on.exit(unlink(c(data_file, alpha_file, script)))
  utils::write.table(cbind(y, x), data_file, sep = ",", row.names = FALSE, col.names = FALSE)
  writeLines(format(lambda, digits = 17), alpha_file)
  writeLines(c(
    "import sys, time, statistics, numpy as np",
    "from sklearn.linear_model import RidgeCV",
    "a = np.loadtxt(sys.argv[1], delimiter=',')",
    "alphas = np.loadtxt(sys.argv[2])",
    "y, x = a[:, 0], a[:, 1:]",
    "times = []",
    "for _ in range(int(sys.argv[3])):",
    "    t0 = time.perf_counter()",
    "    RidgeCV(alphas=alphas, fit_intercept=True).fit(x, y)",
    "    times.append(time.perf_counter() - t0)",
    "print(statistics.median(times))"
  ), script)
  out <- system2(python, c(script, data_file, alpha_file, reps), stdout = TRUE)
  as.numeric(out[length(out)])
}

# Peak memory of a primal fit in a fresh R process.  Vcells are 8 bytes and
# Ncells 56 bytes on 64-bit R; "extra" is the peak minus what was in use
# (X, y and the session) just before the fit.  The OS view (peak resident set
# size, VmHWM, reset just before the fit) is reported too: it also sees memory
# that BLAS/LAPACK or C code allocates outside R's heap.
memory_probe <- function(n, d, seed) {
  callr::r(function(n, d, seed) {
    suppressPackageStartupMessages(library(rlsc))
    set.seed(seed)
    x <- matrix(rnorm(n * d), n, d)
    y <- drop(x %*% rnorm(d, sd = 1 / sqrt(d))) + rnorm(n)
    heap_bytes <- function(g, col) sum(g[c("Ncells", "Vcells"), col] * c(56, 8))
    rss_kb <- function(field) {
      line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
      as.numeric(gsub("[^0-9]", "", line))
    }
    before <- gc(reset = TRUE)
    rss_reset <- tryCatch({
      writeLines("5", "/proc/self/clear_refs")   # resets VmHWM to the current RSS
      TRUE
    }, error = function(e) FALSE, warning = function(w) FALSE)
    rss_before <- rss_kb("VmRSS") * 1024
    sec <- system.time(fit <- rlsc(x, y))[["elapsed"]]
    after <- gc()
    rss_peak <- rss_kb("VmHWM") * 1024
    list(sec = sec, size_x = as.numeric(object.size(x)),
         in_use_before = heap_bytes(before, "used"),
         peak = heap_bytes(after, "max used"),
         rss_before = rss_before, rss_peak = if (rss_reset) rss_peak else NA_real_,
         size_fit = as.numeric(object.size(fit)))
  }, args = list(n = n, d = d, seed = seed))
}

# ---- the machine ----------------------------------------------------------------

print_machine <- function() {
  cpu <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)
  mem <- grep("^MemTotal", readLines("/proc/meminfo"), value = TRUE)
  si <- sessionInfo()
  cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
  cat("machine:  ", sub(".*:\\s*", "", cpu[1]), "| nproc", parallel::detectCores(),
      "| memory", round(as.numeric(gsub("[^0-9]", "", mem)) / 1024^2, 1), "GiB\n")
  cat("R:        ", R.version.string, "| rlsc", format(packageVersion("rlsc")),
      "installed", format(file.mtime(system.file(package = "rlsc")), "%Y-%m-%d %H:%M"), "\n")
  cat("BLAS:     ", si$BLAS, "\n")
  cat("LAPACK:   ", si$LAPACK, "| La_version", La_version(), "\n")
  cat("extSoftVersion BLAS:", extSoftVersion()[["BLAS"]], "\n")
  cat("LD_PRELOAD:", Sys.getenv("LD_PRELOAD", "(none)"), "| rlsc threads", rlsc_threads()[["rlsc"]], "\n")
  cat("load average at start:", readLines("/proc/loadavg"), "\n\n")
}

# ---- the cases -------------------------------------------------------------------

reps <- 5

bench_one_fit <- function(n, d, ref_fun, ref_label, op, goal, seed) {
  dat <- simulate(n, d, seed)
  fit <- rlsc(dat$x, dat$y)
  lam <- fit$lambda_min
  sec <- time_pair(function() rlsc(dat$x, dat$y), function() ref_fun(dat$x, dat$y, lam), reps)
  result_row(sprintf("%s path vs one fit, n=%d d=%d", fit$form, n, d),
             sec[1], ref_label, sec[2], "rlsc/ref", op, goal)
}

print_machine()
rows <- list()

cat("1. path vs one fit ...\n")
rows$primal <- bench_one_fit(5000, 500, ridge_primal, "solve(crossprod(X)+lam*I, X'y)",
                             "<=", 3, seed = 1)
rows$dual <- bench_one_fit(500, 5000, ridge_dual, "X' solve(tcrossprod(X)+lam*I, y)",
                           "<=", 1.5, seed = 2)

cat("2. brute-force LOO ...\n")
loo_data <- simulate(1000, 100, seed = 3)
x <- loo_data$x
y <- loo_data$y
fit <- rlsc(x, y)
lam <- fit$lambda_min
rlsc_sec <- time_median(function() rlsc(x, y), reps)
brute <- NULL  # the LOO predictions of the timed runs, kept for the correctness line
brute_sec <- time_median(function() brute <<- brute_force_loo(x, y, lam), 2)
max_abs_diff <- max(abs(loo_predict(fit, lam) - brute))
rows$brute <- result_row("100-lambda path vs n refits, n=1000 d=100", rlsc_sec,
                         "brute-force LOO at 1 lambda (2 runs)", brute_sec,
                         "ref/rlsc", ">=", 100)

cat("3. cv.glmnet, lm.ridge, RidgeCV ...\n")
glmnet_sec <- time_median(function() {
  glmnet::cv.glmnet(x, y, alpha = 0, nfolds = nrow(x), grouped = FALSE)
}, 1)
rows$glmnet <- result_row("100-lambda path, n=1000 d=100", rlsc_sec,
                          "cv.glmnet(alpha=0, nfolds=n) (1 run)", glmnet_sec, "ref/rlsc")
lmridge_sec <- time_median(function() MASS::lm.ridge(y ~ x, lambda = fit$lambda), reps)
rows$lmridge <- result_row("100-lambda path, n=1000 d=100", rlsc_sec,
                           "MASS::lm.ridge, 100 lambdas (GCV only)", lmridge_sec, "ref/rlsc")
sklearn_sec <- sklearn_ridgecv_sec(x, y, fit$lambda[fit$lambda > 0], reps)   # positive alphas only
if (is.na(sklearn_sec)) {
  cat("   scikit-learn RidgeCV: not installed, skipped\n")
} else {
  rows$sklearn <- result_row("100-lambda path, n=1000 d=100", rlsc_sec,
                             "sklearn RidgeCV, 100 alphas (python3)", sklearn_sec, "ref/rlsc")
}

cat("4. peak memory, primal n=200000 d=100 (fresh R process) ...\n\n")
mem <- memory_probe(200000, 100, seed = 4)
extra <- mem$peak - mem$in_use_before
rows$memory <- result_row("peak extra memory of fit, n=200000 d=100", mem$sec,
                          "object.size(X)", NA, "extra/size(X)", "<=", 3,
                          ratio = extra / mem$size_x)

results <- do.call(rbind, unname(rows))
three_digits <- function(v) {
  vapply(v, function(x) if (is.na(x)) "NA" else format(signif(x, 3)), character(1))
}
results$rlsc_sec <- three_digits(results$rlsc_sec)
results$ref_sec <- three_digits(results$ref_sec)
results$ratio <- three_digits(results$ratio)
old <- options(width = 200)
print(results, right = FALSE, row.names = FALSE)
options(old)

mb <- function(bytes) sprintf("%.1f MB", bytes / 2^20)
cat("\nmemory (n=200000, d=100): size(X) =", mb(mem$size_x),
    "| R heap in use before fit =", mb(mem$in_use_before),
    "| peak =", mb(mem$peak),
    "\n  extra peak =", mb(extra), sprintf("(%.2f x size(X))", extra / mem$size_x),
    "| total peak incl. X =", mb(mem$peak),
    sprintf("(%.2f x size(X))", mem$peak / mem$size_x),
    "| fit object =", mb(mem$size_fit), "\n")
if (!is.na(mem$rss_peak)) {
  cat("  OS view: RSS before fit =", mb(mem$rss_before), "| peak RSS during fit =",
      mb(mem$rss_peak), sprintf("(extra %.2f x size(X))",
                                (mem$rss_peak - mem$rss_before) / mem$size_x), "\n")
}
cat(sprintf(paste0("\ncorrectness (n=1000, d=100, lambda = lambda_min = %.4g): ",
                   "max |loo_predict - brute-force LOO| = %.3g (%s)\n"),
            lam, max_abs_diff, if (max_abs_diff <= 1e-8) "PASS, <= 1e-8" else "MISS, > 1e-8"))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
