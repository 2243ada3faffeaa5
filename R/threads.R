# The number of threads of the parallel loops in C (DESIGN.md, section 9):
# `options(rlsc.threads = )`, else default_threads().  Results do not depend on
# it: every parallel loop splits its work by the sizes of the problem only.
thread_count <- function() {
  n <- getOption("rlsc.threads")
  if (is.null(n)) return(pinned_threads$n %||% default_threads())
  if (!is.numeric(n) || length(n) != 1L || is.na(n) || n < 1 || n != round(n)) {
    stop_arg("`options(rlsc.threads = )` must be a positive whole number, not ",
             paste(format(n), collapse = " "))
  }
  as.integer(min(n, 1024))
}

# Every processor OpenMP sees, but no more than OMP_THREAD_LIMIT or
# OMP_NUM_THREADS when they are set, at most two under R CMD check
# (_R_CHECK_LIMIT_CORES_, which --as-cran sets: CRAN's limit for checks), and
# no more than the cores the futureverse grants the process (`cores`,
# available_cores()): a future's worker is granted one, so that two workers
# on two cores do not run four threads.  A BLAS with threads of its own
# (OpenBLAS, MKL, BLIS) does not change it: fits hold such a BLAS to one
# thread (hold_blas_threads() below), which measured faster than leaving the
# BLAS its threads around one thread of the package's (bench/README.md,
# "Threads").
default_threads <- function(info = c_thread_info(), cores = available_cores()) {
  n <- min(info$processors, cores)
  # (one read of the environment and one suppressWarnings(): every call into
  # C asks for the threads, a few times per fit)
  env <- Sys.getenv(c("OMP_THREAD_LIMIT", "OMP_NUM_THREADS", "_R_CHECK_LIMIT_CORES_"), names = FALSE)
  limit <- suppressWarnings(as.integer(env[1:2]))
  limit <- limit[!is.na(limit) & limit >= 1L]
  if (length(limit)) n <- min(n, limit)
  check <- toupper(env[3L])
  if (nzchar(check) && check != "FALSE") n <- min(n, 2L)
  as.integer(max(1L, n))
}

# The cores parallelly (the futureverse's) grants this process: its
# availableCores() reads options(mc.cores), which a future's worker sets to
# 1, the allocation of a Slurm job, cgroups and more.  Without parallelly
# (no future either) no limit.  It takes milliseconds (it reads files), and
# every call into C asks for the threads: the answer is kept per process and
# value of options(mc.cores), the part that changes within a process.
available_cores <- function() {
  key <- list(Sys.getpid(), getOption("mc.cores"))
  if (!identical(cores_granted$key, key)) {
    cores_granted$value <- if (requireNamespace("parallelly", quietly = TRUE)) {
      parallelly::availableCores()[[1L]]
    } else Inf
    cores_granted$key <- key
  }
  cores_granted$value
}
cores_granted <- new.env(parent = emptyenv())

# The default thread count worked out once for a whole fit, until the
# function that called this returns (also by an error or an interrupt):
# every call into C asks for the threads, and default_threads() takes 15 to
# 50 us (the environment, the cores granted), several times a fit.
# `options(rlsc.threads)` still wins, so a future's worker keeps the share
# run_task() sets, also when it was forked from inside a fit.
pin_threads <- function(env = parent.frame()) {
  # (nothing to work out when the option gives the count: the default would
  # ask parallelly for the cores, which reads files and options)
  if (!is.null(pinned_threads$n) || !is.null(getOption("rlsc.threads"))) return(invisible())
  pinned_threads$n <- default_threads()
  do.call(on.exit, list(as.call(list(unpin_threads)), add = TRUE), envir = env)
  invisible()
}
unpin_threads <- function() pinned_threads$n <- NULL
pinned_threads <- new.env(parent = emptyenv())

# A BLAS with threads of its own (OpenBLAS, MKL, BLIS) is held to one thread
# during the package's work, until the function that called this returns
# (also by an error or an interrupt), then given its threads back: the C
# loops call the BLAS on blocks from their own threads, and threads inside
# threads oversubscribe the cores.  Fits hold it from start to end, because
# each change of the BLAS's threads wakes its idle ones, which then compete
# with the package's for the cores (bench/README.md, "Threads").  It is held
# whatever `options(rlsc.threads)` says, so the BLAS computes the same way,
# and results are the same, with any number of the package's threads (a
# threaded OpenBLAS rounds differently from a single-threaded one); the
# reduction of an eigendecomposition of order 700 and up gets the BLAS's
# threads back (src/eigen.c).  A hold inside a hold changes nothing.
hold_blas_threads <- function(env = parent.frame()) {
  before <- c_blas_set_threads(1L)
  if (before > 1L) {
    restore <- as.call(list(c_blas_set_threads, before))   # the function itself, not its name
    do.call(on.exit, list(restore, add = TRUE), envir = env)
  }
  invisible(before > 1L)
}

#' Threads of rlsc and of the BLAS
#'
#' The number of threads the package's C loops run (`options(rlsc.threads)`,
#' else every processor OpenMP sees, within `OMP_THREAD_LIMIT`,
#' `OMP_NUM_THREADS`, R CMD check's two cores and the cores
#' `parallelly::availableCores()` grants: one in a future's worker), the
#' number of threads of a threaded BLAS (OpenBLAS, MKL, BLIS; 1 otherwise),
#' which fits hold to one thread while they run (see [rlsc-package],
#' Options), and the processors OpenMP sees. Benchmarks print them.
#'
#' @return A named integer vector: `rlsc`, `blas` and `processors`.
#' @export
#' @examples
#' rlsc_threads()
rlsc_threads <- function() {
  info <- c_thread_info()
  c(rlsc = thread_count(), blas = as.integer(max(1L, info$blas_threads)),
    processors = as.integer(info$processors))
}
