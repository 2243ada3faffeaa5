# Banded ridge against himalaya's BandedRidgeCV (issues 25 and 49), side by
# side in one run on one machine, through the exported API only:
#   n = 1000 rows, three bands of 100, 200 and 200 columns, 1000 targets,
#   20 candidates (himalaya's: the equal weighting, then Dirichlet samples of
#   concentrations 0.1 and 1 in turn; no weight of exactly 0, which himalaya
#   cannot take: it divides by sqrt(w)), 20 alphas, 5 contiguous folds,
#   the same candidates, folds and alphas given to both (alpha = lambda: both
#   penalize the sum of squares, lambda / w_g on band g);
# prints the seconds of each (elapsed and CPU, medians of RLSC_BENCH_REPS
# runs, default 3), their ratio, and the share of targets whose chosen
# (weights, alpha) agree.
#
# And the floor of rlsc's exact K-fold search at this shape (issue 49):
# the BLAS/LAPACK work no exact K-fold banded search can avoid, each piece
# timed alone in the same run, on the bench's own x and y (per candidate
# c = 1..20 and fold k = 1..5; d = 500 columns, h = 200 held-out rows,
# T = 1000 targets, L = 20 lambdas; flops at full scale):
#
#   moments  each fold's X_k'X_k and X_k'Y (one pass over the rows, shared
#            by every candidate): 5 x (h d^2 + 2 h d T), 1.3e9
#   eigen    the folds' training Grams, each candidate's column multipliers
#            applied (the matrices the fit decomposes, though neither
#            centered nor standardized), through the fit's own
#            rlsc:::c_eigen_list() (two at a time on two threads), in lists
#            of 4 candidates' folds: 100 x ~(4/3 + 2) d^3, 4.2e10.
#            `base eigen()` times R's eigen() of the same 100 one at a time
#            for comparison (not counted in the floor)
#   g        g = V' (X'Y) per fold-candidate: 100 x 2 d^2 T, 5.0e10
#   coords   the held-out rows' coordinates X_h V: 100 x 2 h d^2, 1.0e10
#   held     the held-out predictions at every lambda, the coordinates
#            (h x d) times the filtered g of the L lambdas (d x L T), one
#            dgemm each: 100 x 2 h d L T, 4.0e11 (the dominant piece; its
#            d x L T factor is formed once, untimed, and reused by the 100
#            products: a dgemm's time does not depend on the values)
#   final    the full-data Grams' decompositions of the candidates some
#            target chose (20 at most): up to 20 x ~(4/3 + 2) d^3, 8.3e9
#
# Not in the floor, printed below it: `graded_eigens()`, the decompositions
# the fit makes a second time (gram_eigens(): a spectrum wider than 1e9,
# lost_to_scales(), which candidates whose weights span more than about 1e7
# give: some of the Dirichlet(0.1) samples), the pivoted Cholesky factor and
# an SVD, each timed here on those Grams, and their count.
#
# (The held-out losses, the filters and the per-target choice are O(h L T)
# and O(d L T) per fold-candidate outside the BLAS, and not counted.)  The
# floor's calls run with the BLAS's own threads, c_eigen_list() with the
# package's (the BLAS held to one, as in the fit).  Fit and floor are
# alternated in every run; `rlsc / floor` is the median of the runs' own
# ratios, elapsed and CPU (on a machine whose speed drifts, both move
# together), the floor's pieces the medians of their times; `himalaya /
# floor` is what himalaya's time would be against it, and the last line
# what issue 49's 6x asks of rlsc against that floor.
#
# Run from the repository root with rlsc installed:
#     HIMALAYA_PATH=/tmp/himalaya Rscript bench/banded.R
# HIMALAYA_PATH: a source tree of gallantlab/himalaya (not shipped here);
# /usr/bin/python3 with numpy, scipy and scikit-learn (Debian's python3-*);
# without them the bench prints rlsc and its floor alone.
# Under OpenBLAS for both: `make bench-banded BLAS=openblas` (LD_PRELOAD of
# the .deps/openblas that make deps unpacks; R and python3 inherit it).
# RLSC_BENCH_SCALE < 1 shrinks n, the bands and the targets, and the floor's
# pieces with them (quick checks).
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

# The floor (see the header), on the bench's x and y: per piece its calls,
# flops and (floor_run()) seconds, elapsed and CPU, summed over its calls.
d <- ncol(x)
nh <- n / K                   # held-out rows per fold
nl <- length(alphas)
eigen_flops <- (4 / 3 + 2) * d^3   # dsytrd's reduction and the back-transformation
held_out <- split(seq_len(n), folds)
xk <- lapply(held_out, function(r) x[r, , drop = FALSE])
yk <- lapply(held_out, function(r) y[r, , drop = FALSE])
floor_pieces <- c("moments", "eigen", "g", "coords", "held", "final")
floor_calls <- function(nchosen) {
  c(moments = K, eigen = nc * K, g = nc * K, coords = nc * K, held = nc * K, final = nchosen)
}
floor_flops <- function(nchosen) {
  c(moments = K * (nh * d^2 + 2 * nh * d * nt), eigen = nc * K * eigen_flops,
    g = nc * K * 2 * d^2 * nt, coords = nc * K * 2 * nh * d^2, held = nc * K * 2 * nh * d * nl * nt,
    final = nchosen * eigen_flops)
}
# the candidates (rows of `candidates`) that some target of `fit` chose
chosen_of <- function(fit) {
  w <- unique(t(fit$band_weights))
  apply(w, 1L, function(v) which.min(colSums(abs(t(candidates) - v))))
}
# candidate j's Gram of the moments `s`: diag(m) s diag(m), m its column
# multipliers 1 / sqrt(w_g)
candidate_gram <- function(s, j) s * tcrossprod(1 / sqrt(candidates[j, bands]))
floor_run <- function(chosen) {
  t <- matrix(0, 2L, length(floor_pieces) + 2L,
              dimnames = list(c("elapsed", "cpu"), c(floor_pieces, "base_eigen", "graded")))
  clock <- function(piece, expr) {
    t0 <- proc.time()
    v <- expr
    dt <- proc.time() - t0
    t[, piece] <<- t[, piece] + c(dt[["elapsed"]], dt[["user.self"]] + dt[["sys.self"]])
    v
  }
  graded <- 0L
  # the decompositions the fit makes again by graded_eigens() (gram_eigens():
  # a spectrum wider than 1e9, lost_to_scales()), timed apart
  regrade <- function(grams, eig) {
    lost <- vapply(eig, function(e) rlsc:::lost_to_scales(e$values), NA)
    for (a in grams[lost]) clock("graded", rlsc:::graded_eigens(list(a), correlated = TRUE))
    graded <<- graded + sum(lost)
  }
  gc()
  mom <- Map(function(xi, yi) list(sxx = clock("moments", crossprod(xi)),
                                   sxy = clock("moments", crossprod(xi, yi))), xk, yk)
  # the training rows' moments: the other folds' summed (additions, untimed)
  total <- lapply(c(sxx = "sxx", sxy = "sxy"), function(f) Reduce(`+`, lapply(mom, `[[`, f)))
  training <- lapply(mom, function(m) list(sxx = total$sxx - m$sxx, sxy = total$sxy - m$sxy))
  gf <- NULL
  for (batch in split(seq_len(nc), ceiling(seq_len(nc) / 4))) {
    grams <- unlist(lapply(batch, function(j) lapply(training, function(m) candidate_gram(m$sxx, j))),
                    recursive = FALSE)
    eig <- clock("eigen", rlsc:::c_eigen_list(grams))
    for (a in grams) clock("base_eigen", eigen(a, symmetric = TRUE))
    regrade(grams, eig)
    for (i in seq_along(grams)) {
      k <- (i - 1L) %% K + 1L
      v <- eig[[i]]$vectors
      g <- clock("g", crossprod(v, training[[k]]$sxy))
      b <- clock("coords", xk[[k]] %*% v)
      # the filtered g of every lambda side by side (d x L T), formed once
      if (is.null(gf)) gf <- do.call(cbind, lapply(alphas, function(l) g / (eig[[i]]$values + l)))
      clock("held", b %*% gf)
    }
  }
  grams <- lapply(chosen, function(j) candidate_gram(total$sxx, j))
  regrade(grams, clock("final", rlsc:::c_eigen_list(grams)))
  structure(t, graded = graded)
}

# fit and floor alternated in every run
runs <- lapply(seq_len(reps), function(i) {
  run <- timed(fit_rlsc)
  run$floor <- floor_run(chosen_of(run$value))
  run
})
t_rlsc <- median(vapply(runs, `[[`, 1, "seconds"))
c_rlsc <- median(vapply(runs, `[[`, 1, "cpu"))
fit <- runs[[1L]]$value
nchosen <- length(chosen_of(fit))
ngraded <- attr(runs[[1L]]$floor, "graded")
floor_t <- apply(simplify2array(lapply(runs, `[[`, "floor")), 1:2, median)
floor_sum <- function(run) rowSums(run$floor[, floor_pieces, drop = FALSE])
t_floor <- median(vapply(runs, function(r) floor_sum(r)[["elapsed"]], 1))
c_floor <- median(vapply(runs, function(r) floor_sum(r)[["cpu"]], 1))
vs_floor <- median(vapply(runs, function(r) r$seconds / floor_sum(r)[["elapsed"]], 1))
vs_floor_cpu <- median(vapply(runs, function(r) r$cpu / floor_sum(r)[["cpu"]], 1))

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
cat(sprintf("\nfloor of rlsc's exact K-fold search (d = %d, h = %d held-out rows, T = %d, L = %d;\n",
            d, nh, nt, nl))
cat(sprintf("%d candidates x %d folds; %d candidates chosen; each piece timed alone, median of %d):\n",
            nc, K, nchosen, reps))
flops <- floor_flops(nchosen)
calls <- floor_calls(nchosen)
piece_line <- function(label, calls, flops, el, cpu) {
  cat(sprintf("  %-33s %5d %8.1f %9.2f %8.2f %8.1f\n", label, calls, flops / 1e9, el, cpu,
              if (el > 0) flops / 1e9 / el else NA_real_))
}
cat(sprintf("  %-33s %5s %8s %9s %8s %8s\n", "piece", "calls", "Gflop", "elapsed s", "CPU s", "Gflop/s"))
labels <- c(moments = "moments X_k'X_k, X_k'Y", eigen = "eigen c_eigen_list() fold Grams",
            g = "g = V'(X'Y)", coords = "coords X_h V", held = "held X_h V times filtered g",
            final = "final chosen candidates' eigen")
for (p in floor_pieces) piece_line(labels[[p]], calls[[p]], flops[[p]], floor_t["elapsed", p], floor_t["cpu", p])
cat(sprintf("  %-33s %5s %8.1f %9.2f %8.2f %8.1f\n", "floor (sum)", "", sum(flops) / 1e9,
            t_floor, c_floor, sum(flops) / 1e9 / t_floor))
piece_line("(base eigen() of the fold Grams)", calls[["eigen"]], flops[["eigen"]],
           floor_t["elapsed", "base_eigen"], floor_t["cpu", "base_eigen"])
cat(sprintf("  %-33s %5d %8s %9.2f %8.2f\n", "(graded_eigens(), the fit's redos)", ngraded, "",
            floor_t["elapsed", "graded"], floor_t["cpu", "graded"]))
cat(sprintf("ratio rlsc / floor (runs' median):%9.2f %8.2f\n", vs_floor, vs_floor_cpu))
cat(sprintf("ratio himalaya / floor:           %9.2f %8.2f\n", t_him / t_floor, c_him / c_floor))
cat(sprintf("6x needs rlsc at %s; the floor is %.2f s (%.2f CPU s)\n",
            if (is.na(t_him)) "(no himalaya time)" else sprintf("%.2f s (%.2f CPU s)", t_him / 6, c_him / 6),
            t_floor, c_floor))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
