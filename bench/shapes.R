# What the benchmarks of the path share (sourced by peers.R, floor.R and
# targets.R): the record of the run, the shapes of issues 13 and 24 and
# their data, and timing.  Only the exported API of rlsc.

# The run's record: date, machine, R and rlsc, the BLAS (and what was
# preloaded), the threads of rlsc and of the BLAS, the load average.
bench_header <- function(what) {
  info <- rlsc_threads()
  cpu <- grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]
  cat(what, "\n")
  cat("date:      ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
  cat("machine:   ", sub("model name\\s*: ", "", cpu), "| nproc", parallel::detectCores(), "|",
      format(as.numeric(sub("MemTotal: *([0-9]+).*", "\\1",
                            grep("MemTotal", readLines("/proc/meminfo"), value = TRUE))) / 2^20,
             digits = 3), "GiB\n")
  cat("R:         ", R.version.string, "| rlsc", format(packageVersion("rlsc")), "from",
      dirname(system.file(package = "rlsc")), "\n")
  cat("BLAS:      ", extSoftVersion()[["BLAS"]], "| LAPACK", La_library(), "\n")
  cat("LD_PRELOAD:", Sys.getenv("LD_PRELOAD", "(none)"), "\n")
  core <- openblas_core()
  if (!is.na(core)) cat("OpenBLAS kernels:", core, "\n")
  cat("threads:    rlsc", info[["rlsc"]], "| BLAS", info[["blas"]], "(held to 1 during fits)",
      "| processors", info[["processors"]], "\n")
  cat("load average at start:", readLines("/proc/loadavg"), "\n\n")
}

# The kernels a preloaded OpenBLAS chose for this processor (its
# openblas_get_corename(), read through python3's ctypes from the same
# library): Debian's 0.3.21 does not know every recent processor and falls
# back to old kernels (Prescott, SSE3) at a fifth of the speed, which moves
# every ratio against a BLAS call; NA without a preloaded OpenBLAS.
openblas_core <- function() {
  lib <- file.path(dirname(strsplit(Sys.getenv("LD_PRELOAD"), ":")[[1L]][1L]), "libopenblas.so.0")
  if (!nzchar(Sys.getenv("LD_PRELOAD")) || !file.exists(lib) || !nzchar(Sys.which("python3"))) {
    return(NA_character_)
  }
  code <- sprintf(paste0("import ctypes; l = ctypes.CDLL('%s'); ",
                         "l.openblas_get_corename.restype = ctypes.c_char_p; ",
                         "print(l.openblas_get_corename().decode())"), lib)
  out <- suppressWarnings(system2("python3", c("-c", shQuote(code)), stdout = TRUE, stderr = FALSE))
  if (length(out) == 1L) out else NA_character_
}

bench_footer <- function() cat("load average at end:", readLines("/proc/loadavg"), "\n")

bench_reps <- function(default) as.integer(Sys.getenv("RLSC_BENCH_REPS", default))

elapsed <- function(expr) system.time(expr)[["elapsed"]]

# Seconds per evaluation of `expr`, evaluated as many times in a row as take
# `min_s` (at least once; the mean): one call of a few milliseconds is within
# the timer's resolution, and swings two- to three-fold with what ran just
# before it (threads asleep or still spinning, cold caches).  Each timing
# starts after a pause of `pause` seconds, in which a threaded BLAS's idle
# threads stop spinning: OpenBLAS's spin for 2^28 cycles (about 0.1 s)
# after each call, and so took a core from the first tenth of a second of
# whatever was timed next.  Without the pause, rlsc's 1000 x 100 fit, timed
# after the floor's calls, read 1.43-1.92x its floor; with OpenBLAS's
# spinning cut short (OPENBLAS_THREAD_TIMEOUT=4), 1.14-1.17x.
per_call <- function(expr, min_s = 0.25, pause = 0.3) {
  e <- substitute(expr)
  env <- parent.frame()
  Sys.sleep(pause)
  k <- 0L
  t0 <- proc.time()[["elapsed"]]
  repeat {
    eval(e, env)
    k <- k + 1L
    t <- proc.time()[["elapsed"]] - t0
    if (t >= min_s) return(t / k)
  }
}

# The rows of results (data frames of one row) as one table, wide enough for
# all its columns.
print_rows <- function(rows) {
  old <- options(width = 200)
  on.exit(options(old))
  cat("\n")
  print(format(do.call(rbind, rows), digits = 3), row.names = FALSE)
}

# The shapes of issue 24 (those of issue 13, as bench/peers.R ran them):
# primal, dual, classes and targets.
bench_shapes <- list(
  list(n = 1000, d = 100), list(n = 5000, d = 500), list(n = 20000, d = 200),
  list(n = 100000, d = 50), list(n = 2000, d = 1000), list(n = 500, d = 5000),
  list(n = 1000, d = 20000), list(n = 5000, d = 200, classes = 10),
  list(n = 5000, d = 200, targets = 50))

shape_label <- function(s) {
  if (!is.null(s$classes)) return(sprintf("%d classes, %dx%d", s$classes, s$n, s$d))
  if (!is.null(s$targets)) return(sprintf("%d targets, %dx%d", s$targets, s$n, s$d))
  sprintf("%dx%d", s$n, s$d)
}

# RLSC_BENCH_SHAPES: some of them only, by parts of their labels separated by
# commas ("classes,500x5000"), for a quick rerun.
local({
  only <- Sys.getenv("RLSC_BENCH_SHAPES")
  if (nzchar(only)) {
    parts <- strsplit(only, ",", fixed = TRUE)[[1L]]
    keep <- vapply(bench_shapes, function(s) any(vapply(parts, grepl, NA, shape_label(s), fixed = TRUE)), NA)
    bench_shapes <<- bench_shapes[keep]
  }
})

# Gaussian x; y from the first 20 columns plus noise: one response, a matrix
# of `targets` responses, or the class of the largest of `classes` noisy scores.
simulate_shape <- function(s, seed = 13) {
  set.seed(seed)
  n <- s$n
  x <- matrix(rnorm(n * s$d), n)
  k <- min(s$d, 20)
  scores <- function(m, sd) x[, seq_len(k)] %*% matrix(rnorm(k * m), k) + matrix(rnorm(n * m, sd = sd), n)
  y <- if (!is.null(s$classes)) {
    factor(max.col(scores(s$classes, 2)))
  } else if (!is.null(s$targets)) {
    scores(s$targets, 3)
  } else {
    drop(scores(1, 3))
  }
  list(x = x, y = y)
}

# The positive lambdas of the default grid of 100 (scikit-learn takes
# positive alphas only; every benchmark fits this grid).
shape_grid <- function(dat) {
  grid <- suppressWarnings(rlsc(dat$x, dat$y, nlambda = 100))$lambda
  grid[grid > 0]
}

# The RBF kernel fit of issue 13: n = 2000, 10 columns, 5 widths around the
# median distance, 100 lambdas each.
rbf_case <- function() {
  set.seed(2000)
  n <- 2000
  x <- matrix(rnorm(n * 10), n)
  y <- sin(x[, 1]) + 0.5 * x[, 2] * x[, 3] + rnorm(n, sd = 0.3)
  list(x = x, y = y, sigma = median(dist(x[seq(1, n, by = 2), ])) * c(0.25, 0.5, 1, 2, 4))
}

# The data of the feature-map benches (features.R, nystrom_floor.R): `d`
# columns of standard normals and a smooth signal with an interaction, and
# the median heuristic `s0` of a reference sample of it (their sigmas are s0
# times 1/4 ... 4).
feature_data <- function(n, seed, d = 10) {
  set.seed(seed)
  x <- matrix(rnorm(n * d), n, d)
  list(x = x, y = sin(2 * x[, 1]) + 0.5 * x[, 2] * x[, 3] + rnorm(n, sd = 0.3))
}
feature_s0 <- function(d = 10) median(dist(feature_data(2000, 1, d)$x[seq(1, 2000, by = 2), ]))
