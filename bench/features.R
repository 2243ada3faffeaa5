# Benchmark of kernel RLS at scale: Nystrom and random-feature kernels (issue
# 12, DESIGN.md, section 13).  Run from the repository root with rlsc
# installed:
#
#     Rscript bench/features.R
#
# RBF kernel, d = 10, y = sin(2 x1) + 0.5 x2 x3 + noise (sd 0.3), 5 values of
# sigma (the median heuristic s0 of a reference sample times 0.25, 0.5, 1, 2,
# 4) x 100 values of lambda, exact LOO at every pair.  Three parts, chosen
# with RLSC_BENCH_PARTS (default "accuracy,compare,scaling"):
#
#   accuracy  n = 2000 and 4000 (RLSC_BENCH_ACCURACY_NS): exact kernel RLS (rlsc's dual form) against
#             Nystrom and random features with m = 50, 200, 800 (and 1000 at
#             n = 4000): the LOO MSE at the chosen (sigma, lambda), the MSE on
#             10000 held-out rows, the chosen sigma, seconds.
#   compare   the larger of those n: kernlab::gausspr (exact GP regression at rlsc's chosen
#             sigma and lambda; 10-fold CV error) and KRLS::krls (exact, at
#             the same sigma, lambda by its own LOO search; and its Nystrom
#             mode with 1000 landmarks, also at n = 1e5: RLSC_BENCH_KRLS_NYSTROM_NS), when installed
#             (KRLS is installed from CRAN into a private library if missing).
#   scaling   n in RLSC_BENCH_NS (default 1e4, 3e4, 1e5, 3e5, 1e6), m = 1000:
#             the whole 5 x 100 search, each n and kind in a fresh R process:
#             seconds, peak R heap and peak resident set size above the data.
#
# Every row of a table is one run.  About 50 minutes on 2 cores with OpenBLAS;
# with the reference BLAS the n = 1e6 fits take hours (RLSC_BENCH_NS=1e4,1e5).

suppressPackageStartupMessages(library(rlsc))
options(rlsc.progress = FALSE)
parts <- strsplit(Sys.getenv("RLSC_BENCH_PARTS", "accuracy,compare,scaling"), ",")[[1]]
env_numbers <- function(name, default) as.numeric(strsplit(Sys.getenv(name, default), ",")[[1]])
ns <- env_numbers("RLSC_BENCH_NS", "1e4,3e4,1e5,3e5,1e6")
acc_ns <- env_numbers("RLSC_BENCH_ACCURACY_NS", "2000,4000")     # the last one is compared
krls_ns <- env_numbers("RLSC_BENCH_KRLS_NYSTROM_NS", "4000,1e5")
d <- 10
m_big <- 1000
mult <- c(0.25, 0.5, 1, 2, 4)

source(file.path("bench", "shapes.R"))   # feature_data(), feature_s0()
make_data <- function(n, seed) feature_data(n, seed, d)
s0 <- feature_s0(d)
sigmas <- s0 * mult
test <- make_data(10000, 99)

mse <- function(pred, y) mean((y - pred)^2)
quiet <- function(expr) suppressWarnings(expr)   # end-of-grid warnings, reported in the tables

# ---- the machine ------------------------------------------------------------

load_average <- function() paste(readLines("/proc/loadavg"), collapse = " ")
cpu <- grep("^model name", readLines("/proc/cpuinfo"), value = TRUE)
mem <- grep("^MemTotal", readLines("/proc/meminfo"), value = TRUE)
cat("date:      ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("machine:   ", sub(".*:\\s*", "", cpu[1]), "| nproc", parallel::detectCores(), "|",
    round(as.numeric(gsub("[^0-9]", "", mem)) / 2^20, 1), "GiB\n")
cat("R:         ", R.version.string, "| rlsc", format(packageVersion("rlsc")), "\n")
cat("BLAS:      ", extSoftVersion()[["BLAS"]], "\nLAPACK:    ", La_library(), "\n")
cat("load average at start:", load_average(), "\n")
cat(sprintf("data: d = %d, sigma = s0 x {%s}, s0 = %.3f (median heuristic), 100 lambdas\n\n",
            d, paste(mult, collapse = ", "), s0))

row <- function(...) data.frame(..., check.names = FALSE)
fmt <- function(tab) {
  for (k in names(tab)) if (is.double(tab[[k]])) tab[[k]] <- signif(tab[[k]], 4)
  print(tab, row.names = FALSE)
  cat("\n")
}

# ---- accuracy: the approximation against exact kernel RLS --------------------

summarize <- function(fit, what, m, n, sec) {
  row(n = n, model = what, m = m, sec = sec, sigma_over_s0 = fit$sigma_min / s0,
      lambda_min = fit$lambda_min, loo_mse = fit$cvm[fit$index_min],
      test_mse = mse(predict(fit, test$x), test$y))
}

exact_fits <- list()
if ("accuracy" %in% parts || "compare" %in% parts) {
  cat("accuracy: exact kernel RLS against Nystrom and random features\n\n")
  rows <- list()
  for (n in acc_ns) {
    tr <- make_data(n, 1)
    fit <- NULL
    sec <- elapsed(fit <- quiet(rlsc(tr$x, tr$y, kernel = kernel_rbf(sigmas))))
    exact_fits[[as.character(n)]] <- list(fit = fit, sec = sec)
    rows[[length(rows) + 1]] <- summarize(fit, "exact (dual, n x n)", n, n, sec)
    for (m in Filter(function(m) m <= n, c(50, 200, 800, if (n == max(acc_ns)) m_big))) {
      for (kind in c("nystrom", "random_features")) {
        kern <- if (kind == "nystrom") nystrom(kernel_rbf(sigmas), m = m) else {
          random_features(kernel_rbf(sigmas), m = m)
        }
        set.seed(m)
        sec <- elapsed(fit <- quiet(rlsc(tr$x, tr$y, kernel = kern)))
        rows[[length(rows) + 1]] <- summarize(fit, kind, m, n, sec)
      }
    }
  }
  accuracy <- do.call(rbind, rows)
  fmt(accuracy)
}

# ---- compare: kernlab and KRLS at n = 4000 -----------------------------------

source(file.path("bench", "krls.R"))   # krls_available()

if ("compare" %in% parts) {
  n0 <- max(acc_ns)
  cat("compare: exact fits of kernlab and KRLS at n =", n0, "at rlsc's chosen sigma\n\n")
  tr <- make_data(n0, 1)
  ex <- exact_fits[[as.character(n0)]]$fit
  s <- ex$sigma_min
  rows <- list(row(method = "rlsc exact: 5 sigma x 100 lambda, exact LOO",
                   sec = exact_fits[[as.character(n0)]]$sec,
                   lambda = ex$lambda_min, cv_mse = ex$cvm[ex$index_min],
                   cv = "LOO", test_mse = mse(predict(ex, test$x), test$y)))
  if (requireNamespace("kernlab", quietly = TRUE)) {
    # rbfdot(sigma = g) is exp(-g |x - z|^2): g = 1 / (2 s^2); the noise
    # variance `var` is lambda on rlsc's scale (it must be at least 1e-3)
    # (its own `cross` fails with scaled = FALSE, so the 10 folds are fitted here)
    var <- max(ex$lambda_min, 1e-3)
    gp_fit <- function(rows) {
      kernlab::gausspr(tr$x[rows, ], tr$y[rows], kernel = "rbfdot",
                       kpar = list(sigma = 1 / (2 * s^2)), var = var, scaled = FALSE, fit = FALSE)
    }
    folds <- rep(1:10, length.out = n0)
    gp <- NULL
    cv <- numeric(n0)
    sec <- elapsed({
      gp <- gp_fit(seq_len(n0))
      for (k in 1:10) {
        out <- folds == k
        cv[out] <- kernlab::predict(gp_fit(which(!out)), tr$x[out, ])
      }
    })
    rows[[length(rows) + 1]] <- row(
      method = sprintf("kernlab %s gausspr, one sigma and lambda, 10-fold CV (11 fits)",
                       packageVersion("kernlab")),
      sec = sec, lambda = var, cv_mse = mse(cv, tr$y), cv = "10-fold",
      test_mse = mse(kernlab::predict(gp, test$x), test$y))
  } else {
    cat("kernlab is not installed: skipped\n")
  }
  if (krls_available()) {
    # KRLS scales the columns of x and y to unit variance; its kernel is
    # exp(-|x - z|^2 / sigma) on the scaled columns (sd about 1 here), so
    # sigma = 2 s^2; its Looe is the sum of squared LOO residuals of scaled y
    # times sd(y), so the LOO MSE is Looe sd(y) / n.  It has no unpenalized
    # intercept: y is centered by its mean.
    for (approx in c("none", "nystrom")) {
      for (n in if (approx == "none") n0 else krls_ns) {
        trk <- if (n == n0) tr else make_data(n, 1)
        args <- list(X = trk$x, y = trk$y, sigma = 2 * s^2, derivative = FALSE, vcov = FALSE,
                     print.level = 0, approx = approx)
        if (approx == "nystrom") args$nystrom_m <- m_big
        kf <- NULL
        set.seed(1)
        sec <- elapsed(kf <- do.call(KRLS::krls, args))
        rows[[length(rows) + 1]] <- row(
          method = sprintf("KRLS %s krls(approx = \"%s\"%s), n = %g, one sigma, its lambda search",
                           packageVersion("KRLS"), approx,
                           if (approx == "nystrom") ", nystrom_m = 1000" else "", n),
          sec = sec, lambda = kf$lambda, cv_mse = kf$Looe * sd(trk$y) / n,
          cv = "LOO", test_mse = mse(predict(kf, test$x)$fit, test$y))
        rm(kf, trk)
        invisible(gc())
      }
    }
  } else {
    cat("KRLS is not installed and could not be installed from CRAN: skipped\n")
  }
  fmt(do.call(rbind, rows))
}

# ---- scaling: n = 1e4 ... 1e6, m = 1000, in fresh processes -------------------

# One fit in a fresh R process: seconds, the peak R heap above what was in use
# before the fit (x, y and the session), and the peak resident set size (reset
# just before the fit) above the resident size before it.
probe <- function(n, kind, m, sigmas) {
  callr::r(function(n, kind, m, sigmas, d) {
    suppressPackageStartupMessages(library(rlsc))
    options(rlsc.progress = FALSE)
    set.seed(1)
    x <- matrix(rnorm(n * d), n, d)
    y <- sin(2 * x[, 1]) + 0.5 * x[, 2] * x[, 3] + rnorm(n, sd = 0.3)
    kern <- if (kind == "nystrom") nystrom(kernel_rbf(sigmas), m = m) else {
      random_features(kernel_rbf(sigmas), m = m)
    }
    heap <- function(g, col) sum(g[c("Ncells", "Vcells"), col] * c(56, 8))
    rss <- function(field) {
      line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
      as.numeric(gsub("[^0-9]", "", line)) * 1024
    }
    before <- gc(reset = TRUE)
    writeLines("5", "/proc/self/clear_refs")   # resets VmHWM to the current RSS
    rss0 <- rss("VmRSS")
    set.seed(2)
    sec <- system.time(fit <- suppressWarnings(rlsc(x, y, kernel = kern)))[["elapsed"]]
    after <- gc()
    list(sec = sec, size_x = as.numeric(object.size(x)),
         heap_extra = heap(after, "max used") - heap(before, "used"),
         rss_extra = rss("VmHWM") - rss0, size_fit = as.numeric(object.size(fit)),
         sigma = fit$sigma_min, lambda = fit$lambda_min, loo_mse = fit$cvm[fit$index_min])
  }, args = list(n = n, kind = kind, m = m, sigmas = sigmas, d = d))
}

if ("scaling" %in% parts) {
  cat("scaling: m = 1000, 5 sigma x 100 lambda, fresh R process per fit\n\n")
  rows <- list()
  for (n in ns) {
    for (kind in c("nystrom", "random_features")) {
      p <- probe(n, kind, m_big, sigmas)
      rows[[length(rows) + 1]] <- row(
        n = n, kind = kind, sec = p$sec, sec_per_setting = p$sec / length(sigmas),
        us_per_row_setting = 1e6 * p$sec / length(sigmas) / n,
        x_MB = p$size_x / 2^20, heap_extra_MB = p$heap_extra / 2^20,
        rss_extra_MB = p$rss_extra / 2^20, fit_MB = p$size_fit / 2^20,
        sigma_over_s0 = p$sigma / s0, loo_mse = p$loo_mse)
      cat(sprintf("  n = %g, %s: %.1f s\n", n, kind, p$sec))
    }
  }
  cat("\n")
  scaling <- do.call(rbind, rows)
  fmt(scaling)
}

cat("load average at end:", load_average(), "\n")
