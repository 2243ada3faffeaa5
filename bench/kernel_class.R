# The default kernel classification fit (issue 49): rlsc(x, y, kernel =
# kernel_rbf()) on a six-class problem of 36 columns, against one eigen() of
# its n x n kernel in the same run, and the held-out accuracy of the sigma it
# chose against that of the full exact search over the same five sigmas.
#
# Run from the repository root with rlsc installed:
#   Rscript bench/kernel_class.R            (RLSC_BENCH_N = "2000,4435" for both sizes)
#
# The data: mlbench's Satellite (6435 x 36, six classes; its first 4435 rows
# are the Statlog training set, the last 2000 its test set) when mlbench is
# installed, else a synthetic six-class set of the same shape and class
# shares.  The fits use the first n training rows; the accuracy is on the
# 2000 test rows.  Printed for each n:
#   * the default fit (sigma = NULL: from 2000 rows on, sigma screened on a
#     sample of 1000 rows, then the exact LOO path at it; the
#     calibration of the probabilities included) and the same fit with
#     calibration_folds = 0, each as a ratio to one eigen(K, symmetric = TRUE)
#     of the n x n kernel at the chosen sigma (the kernel computed
#     beforehand, not timed; the fits compute theirs).  Goal: the default fit
#     at most 2;
#   * the full exact search, kernel_rbf(sigma = <the same five values>)
#     (calibration_folds = 0), its time and ratio;
#   * the sizes of the default fit's kernel eigendecompositions (counted by a
#     trace in this script) and their cost in decompositions of the n x n
#     kernel, sum of (rows / n)^3;
#   * the test accuracy (classes by the decision values at lambda_min) of the
#     screened sigma and of the full search's.
# One run of each (each takes tens of seconds at n = 2000 under the
# reference BLAS, about 90 s per eigen() at n = 4435).  The times are
# printed as elapsed and CPU seconds, each as a ratio to the eigen().

suppressPackageStartupMessages(library(rlsc))
options(rlsc.progress = FALSE, width = 120)
sizes <- as.integer(strsplit(Sys.getenv("RLSC_BENCH_N", "2000"), ",")[[1]])
# RLSC_BENCH_SKIP=calibrated,full leaves out the default fit with its
# calibration and the full search (and so the accuracy), where time is short
skip <- strsplit(Sys.getenv("RLSC_BENCH_SKIP", ""), ",")[[1]]
cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "\n")
cat("LAPACK:   ", La_library(), "\n")
cat("cores:    ", parallel::detectCores(), "\n")

# A synthetic stand-in of Satellite's shape: six classes in the Statlog
# training set's shares, each a mixture of three clouds in 5 latent
# dimensions, seen through a smooth nonlinear map into 36 columns, with
# noise (the linear fit classifies 75 % of it, the RBF one about 86 %).
synthetic_six <- function(n, seed = 49) {
  set.seed(seed)
  share <- c(1072, 479, 961, 415, 470, 1038)
  centers <- matrix(rnorm(18 * 5, sd = 1.2), 18)
  a <- matrix(rnorm(5 * 36), 5) / sqrt(5)
  cls <- sample(6, n, TRUE, prob = share)
  cloud <- (cls - 1) * 3 + sample(3, n, TRUE)
  z <- centers[cloud, ] + matrix(rnorm(n * 5, sd = 0.6), n)
  x <- 2 * tanh(z %*% a) + matrix(rnorm(n * 36, sd = 0.3), n)
  list(x = x, y = factor(cls, labels = paste0("c", 1:6)))
}

if (requireNamespace("mlbench", quietly = TRUE)) {
  e <- new.env()
  utils::data("Satellite", package = "mlbench", envir = e)
  x_all <- as.matrix(e$Satellite[, 1:36])
  y_all <- droplevels(e$Satellite$classes)
  cat("data:      mlbench's Satellite\n")
} else {
  d <- synthetic_six(6435)
  x_all <- d$x
  y_all <- d$y
  cat("data:      synthetic six classes, 6435 x 36 (mlbench not installed)\n")
}
train <- 1:4435
test <- 4436:6435

# elapsed and CPU seconds (user + system, this process and its threads): on a
# shared machine the elapsed time depends on the load, which varies within
# a run; the CPU time less so (the reference BLAS runs on one thread)
timed <- function(expr) {
  t <- system.time(expr)
  c(elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
}
# The sizes of the kernel eigendecompositions made while `expr` runs (a
# table: size -> count), by a trace of the package's one entry point to them
# (the bench only: tests count nothing inside).
decompositions <- function(expr) {
  seen <- new.env()
  seen$rows <- integer()
  suppressMessages(trace("c_kernel_eigen", bquote(assign("rows", c(.(seen)$rows, sum(w > 0)), envir = .(seen))),
        where = asNamespace("rlsc"), print = FALSE))
  on.exit(suppressMessages(untrace("c_kernel_eigen", where = asNamespace("rlsc"))))
  force(expr)
  table(seen$rows)
}
accuracy <- function(fit) {
  mean(predict(fit, x_all[test, ], type = "class", lambda = "lambda_min") == y_all[test])
}

for (n in sizes) {
  rows <- train[seq_len(n)]
  x <- x_all[rows, ]
  y <- y_all[rows]
  cat(sprintf("\n== n = %d, d = %d, %d classes; test: %d rows\n", n, ncol(x), nlevels(y), length(test)))
  k <- kernel_matrix(kernel_rbf(median(dist(x[seq(1, n, by = 2), ]))), x)
  t_eig1 <- timed(eigen(k, symmetric = TRUE))
  set.seed(1)
  t_fit <- NULL
  if (!"calibrated" %in% skip) {
    sizes_of <- decompositions(t_fit <- timed(fit <- rlsc(x, y, kernel = kernel_rbf())))
    set.seed(1)
  }
  sizes_nocal <- decompositions(t_nocal <- timed(plain <- rlsc(x, y, kernel = kernel_rbf(),
                                                               calibration_folds = 0)))
  if ("calibrated" %in% skip) {
    fit <- plain
    sizes_of <- sizes_nocal
  }
  t_eig2 <- timed(eigen(k, symmetric = TRUE))
  t_eig <- (t_eig1 + t_eig2) / 2
  rm(k)
  screen <- fit$sigma_screen
  sigmas <- if (is.null(screen)) fit$kernel_grid$sigma else screen$table$sigma
  if (!"full" %in% skip) {
    t_full <- timed(full <- rlsc(x, y, kernel = kernel_rbf(sigma = sigmas), calibration_folds = 0))
  }
  if (!is.null(screen)) {
    cat("screen (", length(screen$rows), " rows):\n", sep = "")
    print(screen$table, row.names = FALSE)
  }
  for (with in c(if (!"calibrated" %in% skip) "default fit", "calibration_folds = 0")) {
    made <- if (with == "default fit") sizes_of else sizes_nocal
    cat(sprintf("\n%s: eigendecompositions of (rows of positive weight) %s,\n", with,
                paste(names(made), "rows x", made, collapse = ", ")))
    cat(sprintf("  in decompositions of the n x n kernel, sum of (rows / n)^3: %.2f\n",
                sum(made * (as.numeric(names(made)) / n)^3)))
  }
  line <- function(what, t) {
    cat(sprintf("%-40s %8.1f s %6.2f   %8.1f s %6.2f\n", what, t[["elapsed"]],
                t[["elapsed"]] / t_eig[["elapsed"]], t[["cpu"]], t[["cpu"]] / t_eig[["cpu"]]))
  }
  cat(sprintf("\n%-40s %10s %6s   %10s %6s\n", "", "elapsed", "ratio", "CPU", "ratio"))
  line("one eigen() of the n x n kernel (mean of 2)", t_eig)
  if (!is.null(t_fit)) line("default fit (goal: ratio <= 2)", t_fit)
  line("default fit, calibration_folds = 0", t_nocal)
  if ("full" %in% skip) next
  line("full exact search, calibration_folds = 0", t_full)
  cat(sprintf("\nsigma: default fit (screened) %.4g, full search %.4g (%s)\n", fit$sigma_min, full$sigma_min,
              if (isTRUE(all.equal(fit$sigma_min, full$sigma_min))) "the same" else "different"))
  cat(sprintf("test accuracy: default fit's sigma %.4f, full search's %.4f (difference %+.4f)\n",
              accuracy(plain), accuracy(full), accuracy(plain) - accuracy(full)))
}
