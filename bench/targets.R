# Many targets (issue 24): n = 2000, d = 500, RLSC_TARGETS (default 5000)
# response columns, 20 alphas, one alpha per target (per_response = TRUE):
# rlsc's exact 5-fold CV and exact LOO against himalaya's RidgeCV
# (gallantlab/himalaya, the tool of encoding models) over the same 5 fixed
# folds and alphas, and the share of targets whose chosen alpha agrees
# between rlsc's K-fold and himalaya.  Targets: 70% a random linear signal
# of x plus noise, 30% noise alone.
#
# himalaya is on no registry here: lay its source out in a directory outside
# the repository and point HIMALAYA_PATH at it (Debian's python3-numpy,
# python3-scipy, python3-packaging and python3-sklearn suffice):
#   mkdir -p /tmp/himalaya && git --git-dir=<bare clone> archive HEAD | tar -x -C /tmp/himalaya
#   make bench-targets HIMALAYA_PATH=/tmp/himalaya BLAS=openblas
# Without it its columns are NA.  Both processes load the same BLAS (make's
# BLAS=openblas preloads .deps/openblas into R, and python inherits it), and
# the runs alternate: rlsc K-fold, rlsc LOO, himalaya, RLSC_BENCH_REPS
# (default 3) times; medians.  About 3 minutes under OpenBLAS.
# Then the LOO fit's methods (print, summary, coef, predict, fitted,
# loo_predict), each timed once against the fit.
# Also the LOO fit against its floor (issue 24's goal 1, as bench/floor.R
# defines it): crossprod(x), eigen() of it, the basis x V, the leverages
# (B * B) F (F r x L) and the fitted values B G (G r x (L T)), each BLAS call
# timed alone in the same run; B G in blocks of 500 targets, whose outputs
# (n x 10^4) stand for the 1.6 GB that one call would write.  And the K-fold
# fit against its floor (issue 49): the held-out rows' predictions, per fold
# its 400 rows' coordinates B_k times G (r x (L T)), in the same blocks; the
# folds' Grams, eigendecompositions and g = V'X'y are left out (1/20 of it).
# Issue 49's goals: himalaya_over_kfold >= 5, himalaya_over_loo >= 8.
suppressPackageStartupMessages(library(rlsc))
source(file.path("bench", "shapes.R"))
options(rlsc.progress = FALSE)
reps <- bench_reps("3")
nt <- as.integer(Sys.getenv("RLSC_TARGETS", "5000"))
himalaya <- Sys.getenv("HIMALAYA_PATH")
python <- "/usr/bin/python3"
found <- nzchar(himalaya) && dir.exists(file.path(himalaya, "himalaya")) && file.exists(python)
# (the import's own last words when it fails: a source tree without the
# modules it imports is not "not found")
import_error <- if (found) {
  out <- suppressWarnings(system2(python, c("-c", shQuote(sprintf(
    "import sys; sys.path.insert(0, '%s'); import himalaya.ridge", himalaya))), stdout = TRUE, stderr = TRUE))
  if (!is.null(attr(out, "status"))) utils::tail(out, 1L)
}
has_himalaya <- found && is.null(import_error)
bench_header(sprintf("Many targets: rlsc against himalaya's RidgeCV (bench/targets.R), %d targets", nt))
if (!found) {
  cat("himalaya: not found (set HIMALAYA_PATH to a himalaya source tree): its columns are NA\n\n")
} else if (!has_himalaya) {
  cat("himalaya: found in", himalaya, "but its import failed (", import_error,
      "; make bench-deps installs what it needs): its columns are NA\n\n")
} else {
  cat("himalaya: ", system2(python, c("-c", shQuote(sprintf(
    "import sys; sys.path.insert(0, '%s'); import himalaya, numpy; print(himalaya.__version__, 'numpy', numpy.__version__)",
    himalaya))), stdout = TRUE), "from", himalaya, "\n\n")
}

set.seed(24)
n <- 2000
d <- 500
x <- matrix(rnorm(n * d), n)
signal <- runif(nt) < 0.7
w <- matrix(rnorm(d * nt), d) * rep(rexp(nt) * signal, each = d) / sqrt(d)
y <- x %*% w + matrix(rnorm(n * nt), n)
rm(w)
alphas <- 10^seq(-1, 5, length.out = 20)
folds <- rep(1:5, each = n / 5)

dir <- tempfile()
if (has_himalaya) {
  dir.create(dir)
  writeBin(as.vector(x), file.path(dir, "x.bin"))
  writeBin(as.vector(y), file.path(dir, "y.bin"))
  writeBin(alphas, file.path(dir, "alpha.bin"))
  writeBin(as.double(folds - 1L), file.path(dir, "folds.bin"))
}
run_himalaya <- function() {
  if (!has_himalaya) return(list(seconds = NA_real_, alpha = rep(NA_real_, nt)))
  out <- system2(python, c(file.path("bench", "himalaya_cv.py"), himalaya, dir, n, d, nt, 1L),
                 stdout = TRUE)
  list(seconds = as.numeric(strsplit(out[1], " ")[[1]]), alpha = as.numeric(strsplit(out[2], " ")[[1]]))
}

S <- crossprod(x)
V <- eigen(S, symmetric = TRUE)$vectors
B <- x %*% V
F <- matrix(runif(d * length(alphas)), d)
G <- matrix(runif(d * length(alphas) * min(nt, 500)), d)
floor_parts <- function() {
  c(gram = elapsed(crossprod(x)), eigen = elapsed(eigen(S, symmetric = TRUE)), basis = elapsed(x %*% V),
    lev = elapsed((B * B) %*% F), fitted = sum(replicate(ceiling(nt / 500), elapsed(B %*% G))))
}
Bk <- B[folds == 1, , drop = FALSE]
kfold_floor <- function() sum(replicate(max(folds) * ceiling(nt / 500), elapsed(Bk %*% G)))

t <- matrix(NA_real_, reps, 5, dimnames = list(NULL, c("kfold", "loo", "himalaya", "floor", "kfold_floor")))
kfold <- loo <- hm <- NULL
for (k in seq_len(reps)) {
  cat("run", k, "...\n")
  t[k, "kfold"] <- elapsed(kfold <- suppressWarnings(
    rlsc(x, y, lambda = alphas, foldid = folds, per_response = TRUE)))
  t[k, "loo"] <- elapsed(loo <- suppressWarnings(rlsc(x, y, lambda = alphas, per_response = TRUE)))
  hm <- run_himalaya()
  t[k, "himalaya"] <- hm$seconds
  t[k, "floor"] <- sum(floor_parts())
  t[k, "kfold_floor"] <- kfold_floor()
}
unlink(dir, recursive = TRUE)
m <- apply(t, 2, median)
agree <- mean(abs(kfold$lambda_min - hm$alpha) <= 1e-9 * hm$alpha)
cat("\n")
options(width = 200)
print(format(data.frame(
  targets = nt, rlsc_kfold_s = m[["kfold"]], rlsc_loo_s = m[["loo"]], himalaya_s = m[["himalaya"]],
  himalaya_over_kfold = m[["himalaya"]] / m[["kfold"]], himalaya_over_loo = m[["himalaya"]] / m[["loo"]],
  alphas_agree = agree, loo_floor_s = m[["floor"]], loo_vs_floor = m[["loo"]] / m[["floor"]],
  kfold_floor_s = m[["kfold_floor"]], kfold_vs_floor = m[["kfold"]] / m[["kfold_floor"]],
  himalaya_over_kfold_floor = m[["himalaya"]] / m[["kfold_floor"]],
  himalaya_over_loo_floor = m[["himalaya"]] / m[["floor"]]),
  digits = 3), row.names = FALSE)
cat("\nper run (seconds):\n")
print(t)
# what a user does next with the fit: each method once, against the fit's
# time (coef() and summary() of 5000 columns once took 80 s each)
methods <- c(print = elapsed(utils::capture.output(print(loo))),
             summary = elapsed(utils::capture.output(print(summary(loo)))),
             coef = elapsed(coef(loo)), predict_100_rows = elapsed(predict(loo, x[1:100, ])),
             fitted = elapsed(fitted(loo)), loo_predict = elapsed(loo_predict(loo)))
cat("\nmethods of the LOO fit (seconds, once; the fit", format(m[["loo"]], digits = 3), "s):\n")
print(round(methods, 3))
cat("\nhimalaya_over_kfold: target >= 5; himalaya_over_loo: target >= 8 (issue 49); alphas_agree: the share of",
    "targets\nwhose K-fold alpha is himalaya's (target >= 0.99); loo_vs_floor: the LOO fit over its floor",
    "(target <= 1.3);\nkfold_vs_floor: the K-fold fit over its held-out predictions (B_k G per fold);",
    "himalaya_over_*_floor: the\nratio each fit would reach at its floor; medians of", reps, "alternated runs.\n")
bench_footer()
