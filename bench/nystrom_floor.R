# Nystrom and random features at scale against their floor (issue 49): the
# fit of bench/features.R's scaling part (d = 10, m = 1000, RBF kernel, 5
# sigma x 100 lambda, exact LOO) against the work no fit on the features can
# avoid, each piece timed alone in the same run.  Per sigma, over the n rows
# (in blocks of the fit's size, so that no n x m matrix exists):
#
#   kernel    the n x m block K(x, Z) by the package's C routine the fit calls
#             (c_nystrom_rows() without a map); random features: x (Omega /
#             sigma), one gemm, and the cosines (c_fourier_rows())
#   features  K(x, Z) %*% map (m x r, the map of K(Z, Z)^(-1/2)), one gemm
#             (random features: nothing more, the kernel piece is the features)
#   gram      the r x r Gram of the features, crossprod() (one dsyrk)
#   basis     the rows' coordinates, K(x, Z) %*% v (m x r): one gemm
#   lev       the leverages at every lambda, (B * B) %*% F with F r x 100,
#             and the fitted values at every lambda, B %*% G (G r x 100)
#   eigen     the m x m eigendecompositions: K(Z, Z) (Nystrom) and the Gram
#
# floor5_s is the sum of the first five (the floor issue 49 names); floor_s
# adds the eigendecompositions, which no fit avoids either.  A fit passes
# over the rows twice per sigma (the Gram must be complete before its
# eigenvectors give the basis), so it computes the kernel block twice where
# the floor counts it once: the data are not kept as n x m features.  (In
# a fit the kernel and the features product are one call per block,
# c_nystrom_rows() with the map, which the table of the fit's calls shows
# as `rows`: the kernel of both passes and the features product.)
#
# On a machine loaded beyond its cores the eigendecompositions under
# OpenBLAS swing tenfold (1000 x 1000 took 1 to 33 s at a load average of 11
# on 2 cores, in the fit and in the floor alike): there read vs_floor5 and
# the table of the fit's calls against the floor's pieces.
#
# fit_s is rlsc()'s whole search divided by the number of sigma;
# vs_floor = fit_s / floor_s, vs_floor5 = fit_s / floor5_s, each the median
# of the runs' own ratios (fit and floor alternated in every run, so that a
# machine whose speed drifts moves both).  The floor's BLAS calls run with
# the BLAS's threads, the fit with the package's (the BLAS held to one).
# RLSC_BENCH_CLOCK=cpu times by the CPU seconds of the process (user +
# system) instead of the elapsed ones, for a machine busy with other work;
# with OPENBLAS_NUM_THREADS=1 RLSC_BENCH_THREADS=1 it gives the ratio of the
# work (the chunked fit's workers are other processes: read its elapsed
# time only).  At
# large n the floor is timed on the first RLSC_BENCH_FLOOR_ROWS rows (default
# 1e5) and scaled to n: every block is the same work.
#
# With RLSC_BENCH_PLAN=multisession the fit also runs as a chunked fit
# (chunk_matrix() over 10 chunks of x in memory) under
# future::plan(multisession, workers = 2), the cluster plan this machine has:
# chunked_s and chunked_vs_floor.
#
#     Rscript bench/nystrom_floor.R            (make bench-nystrom [BLAS=openblas])
#
# RLSC_BENCH_NS (default 1e5), RLSC_BENCH_KINDS (default nystrom,random_features),
# RLSC_BENCH_REPS (default 3), RLSC_BENCH_THREADS (options(rlsc.threads) for the fits).
suppressPackageStartupMessages(library(rlsc))
source(file.path("bench", "shapes.R"))
options(rlsc.progress = FALSE)
if (nzchar(Sys.getenv("RLSC_BENCH_THREADS"))) options(rlsc.threads = as.integer(Sys.getenv("RLSC_BENCH_THREADS")))
env_list <- function(name, default) strsplit(Sys.getenv(name, default), ",")[[1]]
ns <- as.numeric(env_list("RLSC_BENCH_NS", "1e5"))
kinds <- env_list("RLSC_BENCH_KINDS", "nystrom,random_features")
reps <- bench_reps("3")
floor_rows <- as.numeric(Sys.getenv("RLSC_BENCH_FLOOR_ROWS", "1e5"))
plan_kind <- Sys.getenv("RLSC_BENCH_PLAN", "")
cpu_clock <- identical(Sys.getenv("RLSC_BENCH_CLOCK"), "cpu")
now <- function() {
  p <- proc.time()
  if (cpu_clock) p[["user.self"]] + p[["sys.self"]] else p[["elapsed"]]
}
clocked <- function(expr) {
  t0 <- now()
  force(expr)
  now() - t0
}
bench_header("Nystrom and random features against their floor (bench/nystrom_floor.R)")

d <- 10
m <- 1000
nlambda <- 100
mult <- c(0.25, 0.5, 1, 2, 4)
make_data <- function(n, seed) feature_data(n, seed, d)
s0 <- feature_s0(d)
sigmas <- s0 * mult
block <- rlsc:::feature_block_rows(m, d)
cat(sprintf("d = %d, m = %d, sigma = s0 x {%s}, s0 = %.3f, %d lambdas, blocks of %d rows\n\n",
            d, m, paste(mult, collapse = ", "), s0, nlambda, block))

kernel_of <- function(kind) {
  if (kind == "nystrom") nystrom(kernel_rbf(sigmas), m = m) else random_features(kernel_rbf(sigmas), m = m)
}

# The floor of one sigma on the rows x (blocks of `block` rows): seconds per
# piece, and r, the directions of the features.
floor_pieces <- function(kind, x, sigma, z, omega, b) {
  t <- c(kernel = 0, features = 0, gram = 0, basis = 0, lev = 0, eigen = 0)
  clock <- function(piece, expr) {
    t0 <- now()
    v <- expr
    t[[piece]] <<- t[[piece]] + (now() - t0)
    v
  }
  starts <- seq(1, nrow(x), by = block)
  rows_of <- function(i) i:min(nrow(x), i + block - 1)
  center <- colMeans(z)
  kblock <- function(rows) {
    xr <- x[rows, , drop = FALSE]
    if (kind == "nystrom") {
      clock("kernel", rlsc:::c_nystrom_rows(xr, z, "rbf", sigma, center = center))
    } else {
      clock("kernel", rlsc:::c_fourier_rows(xr, omega / sigma, b))
    }
  }
  map <- if (kind == "nystrom") {
    kzz <- clock("eigen", rlsc:::c_kernel_matrix(z, NULL, "rbf", sigma, center = center))
    e <- clock("eigen", eigen(kzz, symmetric = TRUE))
    keep <- rlsc:::kept_directions(e$values, m)$keep   # the fit's rank rule
    e$vectors[, keep, drop = FALSE] / rep(sqrt(e$values[keep]), each = m)
  }
  r <- if (is.null(map)) m else ncol(map)
  gram <- matrix(0, r, r)
  for (i in starts) {
    k <- kblock(rows_of(i))
    phi <- if (kind == "nystrom") clock("features", k %*% map) else k
    gram <- gram + clock("gram", crossprod(phi))
  }
  e <- clock("eigen", eigen(gram, symmetric = TRUE))
  v <- if (kind == "nystrom") map %*% e$vectors else e$vectors
  f <- outer(pmax(e$values, 0), 10^seq(2, -4, length.out = nlambda), function(a, l) 1 / (a + l))
  for (i in starts) {
    k <- kblock(rows_of(i))   # timed once: the floor counts the kernel block once
    bas <- clock("basis", k %*% v)
    clock("lev", (bas * bas) %*% f)
    clock("lev", bas %*% f)   # (B G: any r x 100 matrix G, as the fitted values take)
  }
  t[["kernel"]] <- t[["kernel"]] / 2
  c(t, r = r)
}

chunked_fit <- function(x, y, kern) {
  rlsc(chunk_matrix(x, y, chunk_rows = ceiling(nrow(x) / 10)), kernel = kern)
}

if (nzchar(plan_kind)) {
  if (plan_kind != "multisession") stop("RLSC_BENCH_PLAN must be multisession")
  future::plan(future::multisession, workers = 2)
  cat("chunked fits under future::plan(multisession, workers = 2)\n\n")
}

# Where the fit's time goes: seconds inside the package's calls, by a trace
# of each (fit_parts; rows is feature_rows(): the kernel of both passes and
# the features product).
clock <- new.env()
steps <- c(rows = "feature_rows", gram = "c_moments", basis = "c_project", lev = "c_loo_path",
           eigen = "c_eigen")
for (k in names(steps)) {
  trace(steps[[k]], where = asNamespace("rlsc"), print = FALSE,
        tracer = bquote(clock[[.(paste0(k, "0"))]] <- c(clock[[.(paste0(k, "0"))]], now())),
        exit = bquote({
          t0 <- clock[[.(paste0(k, "0"))]]
          clock[[.(k)]] <- clock[[.(k)]] + now() - t0[length(t0)]
          clock[[.(paste0(k, "0"))]] <- t0[-length(t0)]
        }))
}
reset_clock <- function() for (k in names(steps)) clock[[k]] <- 0
fit_parts <- function(total) {
  t <- vapply(names(steps), function(k) clock[[k]], 0)
  c(t, other = total - sum(t))
}

med <- function(v) median(v, na.rm = TRUE)
out <- list()
for (n in ns) {
  dat <- make_data(n, 1)
  nf <- min(n, floor_rows)
  for (kind in kinds) {
    fit_s <- chunk_s <- floor_s <- floor5_s <- rep(NA_real_, reps)
    pieces <- parts <- NULL
    for (rep in seq_len(reps)) {
      set.seed(2)
      reset_clock()
      fit_s[rep] <- clocked(fit <- suppressWarnings(rlsc(dat$x, dat$y, kernel = kernel_of(kind)))) /
        length(sigmas)
      parts <- c(parts, list(fit_parts(fit_s[rep] * length(sigmas)) / length(sigmas)))
      if (nzchar(plan_kind)) {
        set.seed(2)
        chunk_s[rep] <- elapsed(suppressWarnings(chunked_fit(dat$x, dat$y, kernel_of(kind)))) /
          length(sigmas)
      }
      set.seed(3)
      z <- dat$x[sample(n, m), , drop = FALSE]
      omega <- matrix(rnorm(d * m), d, m)
      b <- runif(m, 0, 2 * pi)
      p <- vapply(sigmas, function(s) floor_pieces(kind, dat$x[seq_len(nf), , drop = FALSE], s, z, omega, b),
                  numeric(7))
      p[1:5, ] <- p[1:5, ] * n / nf   # the eigendecompositions do not grow with n
      pieces <- c(pieces, list(p))
      floor5_s[rep] <- sum(p[1:5, ]) / length(sigmas)
      floor_s[rep] <- sum(p[1:6, ]) / length(sigmas)
      cat(sprintf("  n = %g, %s, run %d: fit %.2f s per sigma, floor %.2f s%s\n", n, kind, rep,
                  fit_s[rep], floor_s[rep],
                  if (nzchar(plan_kind)) sprintf(", chunked %.2f s", chunk_s[rep]) else ""))
    }
    p <- apply(simplify2array(pieces), c(1, 2), median)
    colnames(p) <- format(mult)
    cat(sprintf("\nn = %g, %s: the floor's pieces per sigma (sigma / s0 in columns; seconds, medians)\n",
                n, kind))
    print(signif(p, 3))
    cat("the fit's time per sigma in the same calls (rows: its kernel block, computed twice, and the",
        "features), the floor's sum:\n")
    fl <- rowSums(p[1:6, ]) / length(sigmas)
    print(signif(rbind(fit = apply(simplify2array(parts), 1, median),
                       floor = c(rows = fl[["kernel"]] + fl[["features"]], fl[c("gram", "basis", "lev", "eigen")],
                                 other = 0)), 3))
    out[[length(out) + 1]] <- data.frame(
      n = n, kind = kind, fit_s = med(fit_s), floor5_s = med(floor5_s), floor_s = med(floor_s),
      vs_floor5 = med(fit_s / floor5_s), vs_floor = med(fit_s / floor_s),
      chunked_s = med(chunk_s), chunked_vs_floor = med(chunk_s / floor_s))
    cat("\n")
  }
  rm(dat)
  invisible(gc())
}
tab <- do.call(rbind, out)
for (k in names(tab)) if (is.double(tab[[k]])) tab[[k]] <- signif(tab[[k]], 3)
cat("seconds per sigma (medians of", reps, "runs; ratios the medians of each run's ratio)\n")
print(tab, row.names = FALSE)
cat("\n")
bench_footer()
