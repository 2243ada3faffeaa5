# Agreement with himalaya on its own example shapes (issue 25): himalaya
# generates the data (himalaya.utils.generate_multikernel_dataset), the
# candidates (its Dirichlet samples, the first the equal weighting) and fits
# with 21 alphas (logspace(-10, 10)) and 5 contiguous folds (BandedRidgeCV;
# with more features than rows its multiple-kernel random search on the
# bands' linear kernels, as it recommends there); rlsc fits
# the same data with the same candidates, alphas (its lambda: both penalize
# the sum of squares, lambda / w_g on band g) and folds.  Prints, per shape,
# the share of targets whose chosen (weights, alpha) agree, and for the
# others how far apart the two criteria are (himalaya's in float64 too).
#
#     HIMALAYA_PATH=/tmp/himalaya Rscript bench/himalaya_agree.R
suppressPackageStartupMessages(library(rlsc))
options(rlsc.progress = FALSE)
python <- "/usr/bin/python3"
himalaya <- Sys.getenv("HIMALAYA_PATH", "/tmp/himalaya")
cat("date:", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "| BLAS:", extSoftVersion()[["BLAS"]], "\n")
shapes <- list(
  # the multiple-kernel example (plot_mkr_0_random_search.py): 3 spaces of
  # 1000 features, 50 targets, 600 training rows, 100 candidates (d > n: dual)
  list(kernels = 3, targets = 50, train = 600, features = c(1000, 1000, 1000), iter = 100, seed = 42),
  # the same generator with fewer features than rows (primal), 4 spaces
  list(kernels = 4, targets = 300, train = 800, features = c(100, 50, 200, 150), iter = 40, seed = 0))
# RLSC_AGREE_SHAPES: which shapes to run (default all), e.g. "1"
pick <- as.integer(strsplit(Sys.getenv("RLSC_AGREE_SHAPES", paste(seq_along(shapes), collapse = ",")),
                            ",")[[1]])
for (s in shapes[pick]) {
  dir <- tempfile()
  dir.create(dir)
  status <- system2(python, c(file.path("bench", "himalaya_example.py"), dir, s$kernels, s$targets,
                              s$train, paste(s$features, collapse = ","), s$iter, s$seed),
                    env = paste0("HIMALAYA_PATH=", himalaya))
  if (status != 0) stop("himalaya failed")
  dims <- scan(file.path(dir, "dims.txt"), quiet = TRUE)
  rd <- function(f, nr, nc = 1) matrix(readBin(file.path(dir, f), "double", nr * nc), nr, nc)
  n <- dims[1]; d <- dims[2]; nt <- dims[3]; nc <- dims[4]; g <- dims[5]
  x <- rd("x.bin", n, d)
  y <- rd("y.bin", n, nt)
  gamma <- rd("gamma.bin", nc, g)
  alphas <- drop(rd("alpha.bin", 21))
  folds <- drop(rd("fold.bin", n)) + 1
  groups <- drop(rd("group.bin", d)) + 1
  t_rlsc <- system.time(fit <- suppressWarnings(
    rlsc(x, y, bands = groups, band_weights = gamma, lambda = alphas, foldid = folds)))[["elapsed"]]
  him_gamma <- rd("best_gamma.bin", g, nt)
  him_alpha <- drop(rd("best_alpha.bin", nt))
  same <- abs(fit$lambda_min - him_alpha) <= 1e-6 * him_alpha &
    colSums(abs(fit$band_weights - him_gamma)) <= 1e-6
  cat(sprintf("n = %d, bands %s, %d targets, %d candidates (%s form): %.1f%% of targets agree",
              n, paste(s$features, collapse = "/"), nt, nc, fit$form, 100 * mean(same)))
  cat(sprintf(" | rlsc %.1f s, himalaya %.1f s\n", t_rlsc, scan(file.path(dir, "time.txt"), quiet = TRUE)[1]))
  if (any(!same)) {
    # himalaya adds 1e-10 log(alpha) to its scores (towards larger alphas on
    # near-ties): where the choices differ, rlsc's exact criterion at
    # himalaya's (candidate, alpha) against rlsc's best
    key <- function(m) apply(round(m, 8), 1, paste, collapse = ",")
    j <- match(key(t(him_gamma[, !same, drop = FALSE])), key(gamma))
    bad <- which(!same)
    at_him <- vapply(seq_along(bad), function(k) {
      one <- suppressWarnings(rlsc(x, y[, bad[k]], bands = groups, band_weights = gamma[j[k], , drop = FALSE],
                                   lambda = alphas, foldid = folds))
      one$path$mse[which.min(abs(log(one$lambda / him_alpha[bad[k]])))]
    }, 1)
    best <- fit$band_scores[cbind(fit$band_index[bad], bad)]
    cat(sprintf(paste0("  where they differ: rlsc lambda %s vs himalaya alpha %s; criterion at ",
                       "himalaya's pair / rlsc's best - 1: max %.2e\n"),
                paste(format(range(fit$lambda_min[bad]), digits = 3), collapse = ".."),
                paste(format(range(him_alpha[bad]), digits = 3), collapse = ".."),
                max(at_him / best - 1)))
    cat(sprintf("  agreement up to near-ties (within 1e-8 of the best): %.1f%%\n",
                100 * mean(same | (seq_len(nt) %in% bad[at_him / best - 1 <= 1e-8]))))
  }
  unlink(dir, recursive = TRUE)
}
