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

default_threads <- function() {
  info <- .Call(C_rlsc_thread_info)
  info$processors
}
