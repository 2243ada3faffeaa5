# The C entry points called directly through .Call with random dimensions,
# special values and wrong arguments (helper-native.R): every call returns or
# ends in an R error.  The suite runs 500 calls (under `make sanitize` and
# `make valgrind` too); `make fuzz-native` runs 20000 under AddressSanitizer
# and UndefinedBehaviorSanitizer (RLSC_NATIVE_FUZZ_CALLS, RLSC_NATIVE_FUZZ_FIRST).

test_that("the C entry points return or raise an R error, whatever they are handed", {
  first <- as.integer(Sys.getenv("RLSC_NATIVE_FUZZ_FIRST", "1"))
  calls <- as.integer(Sys.getenv("RLSC_NATIVE_FUZZ_CALLS", "500"))
  old <- c_blas_set_threads(1L)   # the calls of rlsc_blas_set_threads() change it
  on.exit(c_blas_set_threads(as.integer(max(1, old))))
  out <- lapply(seq(first, length.out = calls), native_fuzz_call)
  outcome <- vapply(out, `[[`, "", "outcome")
  expect_true(all(outcome %in% c("value", "error")))
  # the arguments that fit reach the numerical code: most of them give values,
  # of every entry point
  valid <- !vapply(out, `[[`, NA, "mutated")
  expect_gt(mean(outcome[valid] == "value"), 0.6)
  names <- vapply(out, `[[`, "", "name")
  expect_setequal(unique(names[valid & outcome == "value"]), native_entry_points)
  # a wrong argument is an error that names it (or R's count of arguments)
  msgs <- vapply(out[!valid & outcome == "error"], `[[`, "", "message")
  expect_true(all(grepl("^'[a-z0-9_]+' |Incorrect number of arguments|must|overflow", msgs)))
})

test_that("the moments of no columns at all are well defined (a kernel's origin)", {
  for (n in c(5L, 3000L)) {
    m <- c_moments(matrix(0, n, 0L), matrix(0, n, 0L), rep(1, n), numeric(0), numeric(0), FALSE)
    expect_equal(m$sumw, n)
    expect_length(m$xbar, 0L)
  }
})

test_that("features of no landmarks are zero, with or without a map", {
  x <- matrix(rnorm(12), 4)
  z <- matrix(0, 0L, 3L)
  # seed 57558 of the fuzz: a map of 0 x 2 made dgemm refuse its leading dimension 0
  expect_identical(c_nystrom_rows(x, z, "rbf", 1, map = matrix(0, 0L, 2L)), matrix(0, 4L, 2L))
  expect_identical(dim(c_nystrom_rows(x, z, "rbf", 1)), c(4L, 0L))
  expect_identical(c_fourier_rows(x[, 0L, drop = FALSE], matrix(0, 0L, 2L), c(0, 0)),
                   matrix(sqrt(2 / 2) * cos(0), 4L, 2L))
})
