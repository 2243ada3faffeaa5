# The number of threads of the parallel loops in C (DESIGN.md, section 9):
# `options(rlsc.threads = )`, else default_threads().  Results do not depend on
# it: every parallel loop splits its work by the sizes of the problem only.
thread_count <- function() {
  n <- getOption("rlsc.threads")
  if (is.null(n)) return(default_threads())
  if (!is.numeric(n) || length(n) != 1L || is.na(n) || n < 1 || n != round(n)) {
    stop_arg("`options(rlsc.threads = )` must be a positive whole number, not ",
             paste(format(n), collapse = " "))
  }
  as.integer(min(n, 1024))
}

# Every processor OpenMP sees, but no more than OMP_THREAD_LIMIT or
# OMP_NUM_THREADS when they are set, and at most two under R CMD check
# (_R_CHECK_LIMIT_CORES_, which --as-cran sets: CRAN's limit for checks).
# One when the BLAS runs threads of its own (OpenBLAS, MKL, BLIS): the
# package's loops call the BLAS on blocks, and a threaded BLAS inside
# threads oversubscribes the cores (bench/README.md, "Threads": 2 threads
# over OpenBLAS were slower than 1).
default_threads <- function(info = .Call(C_rlsc_thread_info)) {
  if (info$blas_threads > 1L) return(1L)
  n <- info$processors
  for (var in c("OMP_THREAD_LIMIT", "OMP_NUM_THREADS")) {
    limit <- suppressWarnings(as.integer(Sys.getenv(var)))
    if (!is.na(limit) && limit >= 1L) n <- min(n, limit)
  }
  check <- toupper(Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  if (nzchar(check) && check != "FALSE") n <- min(n, 2L)
  as.integer(max(1L, n))
}
