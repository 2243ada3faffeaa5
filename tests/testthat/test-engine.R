# The C entry points check what they are handed: a bad direct .Call is an R
# error, never a crash.

call_c <- function(name, args) do.call(.Call, c(list(getFromNamespace(name, "rlsc")), args))

# For every entry point: arguments that work, and for every argument the bad
# values it must reject with an R error naming it.  Wrong types include
# integer, logical, character, list and NULL; wrong shapes include vectors
# where a matrix is expected, mismatched rows or columns and wrong lengths.
threads_error <- "'threads' must be a positive whole number"
entry_points <- list(
  C_rlsc_moments = list(
    ok = list(matrix(1, 4, 2), matrix(1, 4, 1), rep(1, 4), c(1, 1), 1, TRUE, NULL, 1L),
    bad = list(
      list(1:8, "'x' must be a double matrix"), list(c(1, 2), "'x' must be a matrix"),
      list(matrix(1L, 4, 2), "'x' must be a double matrix"), list(NULL, "'x' must be a double matrix"),
      list(array(1, c(4, 2, 1)), "'x' must be a matrix"),
      list(matrix(1, 3, 1), "'y' must have 4 rows"), list(1, "'y' must be a matrix"),
      list("a", "'y' must be a double matrix"), list(matrix(TRUE, 4, 1), "'y' must be a double matrix"),
      list(rep(1, 3), "'w' must have length 4"), list(rep(1L, 4), "'w' must be a double vector"),
      list(1, "'shift' must have length 2"), list(1:2, "'shift' must be a double vector"),
      list(NULL, "'shift' and 'yshift' must both be given, or neither"),
      list(c(1, 2), "'yshift' must have length 1"), list(1L, "'yshift' must be a double vector"),
      list(NA, "'gram' must be TRUE or FALSE"), list(1, "'gram' must be TRUE or FALSE"),
      list(c(1, 2, 3, 4), "'rows' must be an integer vector"), list(1:3, "'y' must have 3 rows, not 4"),
      list(c(1L, 5L, 2L, 3L), "'rows' must hold row numbers from 1 to 4"),
      list(c(1L, NA, 2L, 3L), "'rows' must hold row numbers from 1 to 4"),
      list(0L, threads_error), list(2, threads_error), list(NA_integer_, threads_error),
      list(1:2, threads_error)),
    arg = c(1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8)),
  C_rlsc_eigen = list(
    ok = list(diag(2), 1L),
    bad = list(
      list(matrix(1, 2, 3), "'s' must be square, not 2 x 3"), list(matrix(NA_real_, 2, 2), "'s' must be finite"),
      list(matrix(Inf, 2, 2), "'s' must be finite"), list("a", "'s' must be a double matrix"),
      list(matrix(1L, 2, 2), "'s' must be a double matrix"), list(c(1, 0, 0, 1), "'s' must be a matrix"),
      list(list(1), "'s' must be a double matrix"), list(-1L, threads_error), list(NULL, threads_error)),
    arg = c(rep(1, 7), 2, 2)),
  C_rlsc_eigen_list = list(
    ok = list(list(diag(2), matrix(1, 1, 1)), 2L),
    bad = list(
      list(diag(2), "'s' must be a list of matrices"), list(NULL, "'s' must be a list of matrices"),
      list(list(diag(2), matrix(1, 2, 3)), "'s[[2]]' must be square, not 2 x 3"),
      list(list(matrix(NaN, 2, 2)), "'s[[1]]' must be finite"),
      list(list(diag(2), 1:4), "'s[[2]]' must be a double matrix"),
      list(list(c(1, 0, 0, 1)), "'s[[1]]' must be a matrix"), list(0L, threads_error)),
    arg = c(1, 1, 1, 1, 1, 1, 2)),
  C_rlsc_svd_list = list(
    ok = list(list(diag(2), matrix(1, 2, 3)), 2L),
    bad = list(
      list(diag(2), "'s' must be a list of matrices"), list(NULL, "'s' must be a list of matrices"),
      list(list(diag(2), matrix(NaN, 2, 3)), "'s[[2]]' must be finite"),
      list(list(matrix(-Inf, 1, 1)), "'s[[1]]' must be finite"),
      list(list(diag(2), 1:4), "'s[[2]]' must be a double matrix"),
      list(list(c(1, 0, 0, 1)), "'s[[1]]' must be a matrix"), list(0L, threads_error),
      list(1.5, threads_error)),
    arg = c(1, 1, 1, 1, 1, 1, 2, 2)),
  C_rlsc_project = list(
    ok = list(matrix(1, 4, 2), c(1, 1), c(0, 0), diag(2), NULL, 2L),
    bad = list(
      list(1:8, "'x' must be a double matrix"), list(rep(1, 8), "'x' must be a matrix"),
      list(1, "'shift' must have length 2"), list(1:2, "'shift' must be a double vector"),
      list(1, "'center' must have length 2"), list(1:2, "'center' must be a double vector"),
      list(diag(3), "'v' must have 2 rows, not 3"), list(c(1, 0), "'v' must be a matrix"),
      list(TRUE, "'v' must be a double matrix"), list(2, "'rows' must be an integer vector"),
      list(c(0L, 1L), "'rows' must hold row numbers from 1 to 4"), list(0L, threads_error),
      list("2", threads_error)),
    arg = c(1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5, 6, 6)),
  C_rlsc_lpo_auc = list(
    ok = list(matrix(0.5, 4, 2), matrix(0.1, 4, 1), c(2, 1), c(1, 0.5), matrix(0.8, 4, 2),
              matrix(0.1, 4, 2), c(1, 1, -1, -1), rep(1, 4), 1:2, 3:4, TRUE, c(0, 0), 1L),
    bad = list(
      list(1:8, "'p' must be a double matrix"), list(rep(1, 8), "'p' must be a matrix"),
      list(matrix(1, 3, 1), "'z' must have 4 rows, not 3"), list("a", "'z' must be a double matrix"),
      list(1, "'values' must have length 2"), list(1:2, "'values' must be a double vector"),
      list(1L, "'lambda' must be a double vector"),
      list(matrix(1, 4, 3), "'a' and 'e' must be 4 x 2"), list(1, "'a' must be a matrix"),
      list(matrix(1, 3, 2), "'a' and 'e' must be 4 x 2"),
      list(rep(1, 3), "'y' must have length 4"),
      list(c(1, 1, 0, 1), "'w' must be positive"), list(rep(1L, 4), "'w' must be a double vector"),
      list(c(1, 2), "'pi' and 'pj' must be integer vectors"), list(c(0L, 1L), "'pi' must be in 1..4"),
      list(5L, "'pj' must be in 1..4"),
      list(NA, "'enumerate' must be TRUE or FALSE"), list(0, "'tie' must have length 2"),
      list(0L, threads_error)),
    arg = c(1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 8, 8, 9, 9, 10, 11, 12, 13)),
  C_rlsc_nystrom_rows = list(
    ok = list(matrix(1, 4, 2), matrix(0, 3, 2), "rbf", 1, c(0, 0), c(1, 1), diag(3), 2L),
    bad = list(
      list(1:8, "'x' must be a double matrix"), list(rep(1, 8), "'x' must be a matrix"),
      list(matrix(0, 3, 3), "'z' must have 2 columns, not 3"), list("z", "'z' must be a double matrix"),
      list("gauss", "'type' must be"), list(c("rbf", "rbf"), "'type' must be a single string"),
      list(-1, "'sigma' must be finite and positive"), list(c(1, 2), "'params' must have length 1"),
      list(1, "'center' must have length 2"), list(1:2, "'center' must be a double vector"),
      list(1, "'scale' must have length 2"), list(diag(2), "'map' must have 3 rows, not 2"),
      list(TRUE, "'map' must be a double matrix"), list(0L, threads_error)),
    arg = c(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 7, 8)),
  C_rlsc_fourier_rows = list(
    ok = list(matrix(1, 4, 2), matrix(0.5, 2, 3), c(0, 1, 2), 2L),
    bad = list(
      list(1:8, "'x' must be a double matrix"), list(rep(1, 8), "'x' must be a matrix"),
      list(matrix(1, 3, 3), "'w' must have 2 rows, not 3"), list(TRUE, "'w' must be a double matrix"),
      list(c(0, 1), "'b' must have length 3"), list(0:2, "'b' must be a double vector"),
      list(0L, threads_error)),
    arg = c(1, 1, 2, 2, 3, 3, 4)),
  C_rlsc_crossprod = list(
    ok = list(matrix(1, 3, 2), matrix(1, 3, 4), 2L),
    bad = list(
      list(1:6, "'a' must be a double matrix"), list(rep(1, 6), "'a' must be a matrix"),
      list(matrix(1, 2, 4), "'b' must have 3 rows, not 2"), list("b", "'b' must be a double matrix"),
      list(0L, threads_error)),
    arg = c(1, 1, 2, 2, 3)),
  C_rlsc_loo_path = list(
    ok = list(matrix(1, 4, 2), c(2, 1), matrix(1, 2, 1), rep(0.75, 4), matrix(0, 4, 1),
              matrix(1:4 + 0, 4, 1), rep(1, 4), rep(1, 4), 1:4, c(1, 0.5), FALSE, FALSE, TRUE, 2L,
              NULL, 2, NULL, TRUE, NULL, FALSE),
    bad = list(
      list(1:8, "'basis' must be a double matrix"), list(rep(1, 8), "'basis' must be a matrix"),
      list(1, "'values' must have length 2"), list(2:1, "'values' must be a double vector"),
      list(matrix(1, 3, 1), "'g' must have 2 rows"), list(c(1, 1), "'g' must be a matrix"),
      list(rep(1, 3), "'q' must have length 4"), list(rep(1L, 4), "'q' must be a double vector"),
      list(matrix(0, 4, 2), "'r0' must be 4 x 1"), list(rep(0, 4), "'r0' must be a matrix"),
      list(matrix(1, 4, 2), "'y' must be 4 x 1"), list(matrix(1, 5, 1), "'y' must be 4 x 1"),
      list(rep(1, 4), "'y' must be a matrix"),
      list(rep(1, 5), "'w' must have length 4"), list(rep(1L, 4), "'w' must be a double vector"),
      list(rep(1, 3), "'omega' must have length 4"), list(NULL, "'omega' must be a double vector"),
      list(c(1, 5), "'rows' must be an integer vector"), list(c(1L, 5L), "'rows' must hold row numbers from 1 to 4"),
      list(0L, "'rows' must hold row numbers from 1 to 4"), list(NA_integer_, "'rows' must hold row numbers"),
      list("a", "'lambda' must be a double vector"), list(1L, "'lambda' must be a double vector"),
      list(1, "'complement' must be TRUE or FALSE"), list(NA, "'classify' must be TRUE or FALSE"),
      list(NULL, "'keep' must be TRUE or FALSE"), list(c(TRUE, TRUE), "'keep' must be TRUE or FALSE"),
      list(0L, threads_error), list(1.5, threads_error),
      list(rep(0, 3), "'perp' must have length 4"), list(1:4, "'perp' must be a double vector"),
      list(rep(0, 4), "'perp' needs 'keep' and 'classify' FALSE"),
      list(2L, "'unit' must be a double vector"), list(c(1, 2), "'unit' must have length 1"),
      list(0, "'unit' must be positive and finite"), list(Inf, "'unit' must be positive and finite"),
      list(NaN, "'unit' must be positive and finite"),
      # with r0 NULL: r0 = (y - yorigin[1, ]) - yorigin[2, ]
      list(1, "'yorigin' must be a matrix"), list(matrix(0L, 2, 1), "'yorigin' must be a double matrix"),
      list(matrix(0, 1, 1), "'yorigin' must be 2 x 1"), list(matrix(0, 2, 2), "'yorigin' must be 2 x 1"),
      list(NULL, "'r0' and 'yorigin' must not both be NULL"),
      list(NA, "'columns' must be TRUE or FALSE"), list(1, "'columns' must be TRUE or FALSE"),
      # the held-out rows' products formed (n x T x L), with a basis of no columns
      list(rep(1, 3), "'products' must be a double array of 4 x 1 x 2"),
      list(array(1L, c(4, 1, 2)), "'products' must be a double array of 4 x 1 x 2"),
      list(array(1, c(4, 1, 2)), "'products' needs a 'basis' of no columns and the direct form"),
      # the LOO values alone: with keep (TRUE above) and without columns (TRUE above)
      list(NA, "'values' must be TRUE or FALSE"), list(TRUE, "'values' needs 'keep' TRUE and 'columns' FALSE")),
    arg = c(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 6, 7, 7, 8, 8, 9, 9, 9, 9, 10, 10, 11, 12, 13, 13, 14, 14,
            15, 15, 15, 16, 16, 16, 16, 16, 17, 17, 17, 17, 5, 18, 18, 19, 19, 19, 20, 20),
    # the 20 elements above go in three named lists and the threads
    pack = loo_path_call_args),
  C_rlsc_abs_max = list(
    ok = list(c(-3, 2)),
    bad = list(list(1:2, "'x' must be a double vector"), list("a", "'x' must be a double vector"),
               list(NULL, "'x' must be a double vector")),
    arg = c(1, 1, 1)),
  C_rlsc_scaled_sumsq = list(
    ok = list(matrix(1, 3, 2), c(1, 2, 3)),
    bad = list(list(1:6, "'v' must be a double matrix"), list(c(1, 2), "'v' must be a matrix"),
               list(c(1, 2), "'x' must have length 3"), list(1:3, "'x' must be a double vector")),
    arg = c(1, 1, 2, 2)),
  C_rlsc_effective_df = list(
    ok = list(c(2, 1), c(1, 0)),
    bad = list(list(1:2, "'values' must be a double vector"), list(NULL, "'values' must be a double vector"),
               list(1L, "'lambda' must be a double vector"), list("a", "'lambda' must be a double vector")),
    arg = c(1, 1, 2, 2)),
  C_rlsc_max_spread = list(
    ok = list(matrix(1, 4, 2)),
    bad = list(list(1:8, "'y' must be a double matrix"), list(c(1, 2), "'y' must be a matrix"),
               list(NULL, "'y' must be a double matrix")),
    arg = c(1, 1, 1)),
  C_rlsc_softmax_map = list(
    ok = list(matrix(0.5, 4, 2), c(1L, 2L, 1L, 2L), c(0.6, 0.6), rep(0.25, 4), c(0, 1, 1), 1:2, c(0, 0.5),
              c(1, 0), TRUE, 2L),
    bad = list(
      list(1:8, "'f' must be a double matrix"), list(rep(1, 8), "'f' must be a matrix"),
      list(c(1, 2, 1, 2), "'code' must be an integer vector of length 4"),
      list(c(1L, 3L, 1L, 2L), "'code' must hold classes 1 to 2"),
      list(0.5, "'own' must be a double vector of length at least 2"),
      list(rep(1, 3), "'w' must have length 4"), list(c(0, 1), "'theta' must have length 3"),
      list(c(1, 2), "'slopes' must be an integer vector of length 2"),
      list(c(1L, 5L), "'slopes' must hold classes 1 to 2"), list(1, "'center' must have length 2"),
      list(1:2, "'inv_scale' must be a double vector"), list(NA, "'hessian' must be TRUE or FALSE"),
      list(0L, threads_error)),
    arg = c(1, 1, 2, 2, 3, 4, 5, 6, 6, 7, 8, 9, 10)),
  C_rlsc_softmax_fit = list(
    ok = list(matrix(0.5, 4, 2), c(1L, 2L, 1L, 2L), c(0.6, 0.6), rep(0.25, 4), c(0, 1, 1), 1:2, c(0, 0.5),
              c(1, 0), 1e-8, 200L, 2L),
    bad = list(
      list(1:8, "'f' must be a double matrix"), list(c(1, 2, 1, 2), "'code' must be an integer vector of length 4"),
      list(c(1L, 3L, 1L, 2L), "'code' must hold classes 1 to 2"),
      list(0.5, "'own' must be a double vector of length at least 2"),
      list(rep(1, 3), "'w' must have length 4"), list(c(0, 1), "'theta' must have length 3"),
      list(c(1L, 5L), "'slopes' must hold classes 1 to 2"), list(1, "'center' must have length 2"),
      list(1:2, "'inv_scale' must be a double vector"),
      list(-1, "'tol' must be a number >= 0"), list(NA_real_, "'tol' must be a number >= 0"),
      list(c(1e-8, 1e-8), "'tol' must be a number >= 0"),
      list(-1L, "'maxit' must be a whole number >= 0"), list(NA_integer_, "'maxit' must be a whole number >= 0"),
      list(2, "'maxit' must be a whole number >= 0"),
      list(0L, threads_error)),
    arg = c(1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 10, 10, 10, 11)),
  C_rlsc_column_spreads = list(
    ok = list(matrix(1, 4, 2), rep(1, 4)),
    bad = list(list(1:8, "'f' must be a double matrix"), list(c(1, 2), "'f' must be a matrix"),
               list(rep(1, 3), "'w' must have length 4"), list(1:4, "'w' must be a double vector")),
    arg = c(1, 1, 2, 2)),
  C_rlsc_merge_moments = list(
    ok = list(diag(2), diag(2), matrix(1, 2, 1), matrix(1, 2, 1), c(1, 2), 3, 0.5, 2L),
    bad = list(
      list(1:4, "'sa' must be a double vector"),
      list(matrix(1, 3, 3), "'sa' must be a 2 x 2 matrix or a vector of length 2"),
      list(c(1, 2), "'sb' must have the shape of 'sa'"), list(matrix(1, 3, 3), "'sb' must have the shape of 'sa'"),
      list(matrix(1, 3, 1), "'ca' must be a 2 x 1 matrix"), list(c(1, 1), "'ca' must be a matrix"),
      list(matrix(1L, 2, 1), "'cb' must be a double matrix"), list(matrix(1, 2, 2), "'cb' must be a 2 x 1 matrix"),
      list(1:2, "'dx' must be a double vector"),
      list(c(1, 2, 3), "'sa' must be a 3 x 3 matrix or a vector of length 3"),
      list("a", "'dy' must be a double vector"), list(c(1, 2), "'ca' must be a 2 x 2 matrix"),
      list(c(1, 2), "'f' must be a number"), list(1L, "'f' must be a number"),
      list(0L, threads_error)),
    arg = c(1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8)),
  C_rlsc_thread_info = list(ok = list(), bad = list(), arg = numeric()),
  # the BLAS's threads set to what they are: nothing changes
  C_rlsc_blas_set_threads = list(
    ok = list(max(1L, .Call(getFromNamespace("C_rlsc_thread_info", "rlsc"))$blas_threads)),
    bad = list(list(0L, "'n' must be a positive whole number"), list(2, "'n' must be a positive whole number"),
               list(NA_integer_, "'n' must be a positive whole number"),
               list(1:2, "'n' must be a positive whole number")),
    arg = c(1, 1, 1, 1)))

test_that("every C entry point rejects wrong types, lengths and shapes of every argument", {
  for (name in names(entry_points)) {
    ep <- entry_points[[name]]
    pack <- if (is.null(ep$pack)) identity else ep$pack
    expect_no_error(call_c(name, pack(ep$ok)))
    expect_setequal(ep$arg, seq_along(ep$ok))    # every argument is tried
    for (k in seq_along(ep$bad)) {
      args <- ep$ok
      args[ep$arg[k]] <- list(ep$bad[[k]][[1]])
      expect_error(call_c(name, pack(args)), ep$bad[[k]][[2]], fixed = TRUE, info = paste(name, k))
    }
  }
})

test_that("the path's C entry point reads its three lists by name and rejects any other list", {
  ok <- loo_path_call_args(entry_points$C_rlsc_loo_path$ok)
  with_list <- function(k, value) {
    args <- ok
    args[k] <- list(value)
    call_c("C_rlsc_loo_path", args)
  }
  # the elements in any order: the same path
  expect_identical(with_list(1, rev(ok[[1]])), call_c("C_rlsc_loo_path", ok))
  expect_identical(with_list(3, rev(ok[[3]])), call_c("C_rlsc_loo_path", ok))
  expect_error(with_list(1, unlist(ok[[1]])), "'set' must be a list", fixed = TRUE)
  expect_error(with_list(2, NULL), "'engine' must be a list", fixed = TRUE)
  expect_error(with_list(3, unname(ok[[3]])), "'path' must be a list of 7 named elements", fixed = TRUE)
  expect_error(with_list(1, ok[[1]][-2]), "'set' must be a list of 10 named elements", fixed = TRUE)
  expect_error(with_list(2, c(ok[[2]], list(x = 1))), "'engine' must be a list of 2 named elements",
               fixed = TRUE)
  misspelt <- ok[[3]]
  names(misspelt)[names(misspelt) == "keep"] <- "kept"
  expect_error(with_list(3, misspelt), "'path' has no element 'keep'", fixed = TRUE)
  twice <- ok[[2]]
  names(twice) <- c("g", "g")
  expect_error(with_list(2, twice), "'engine' has no element 'values'", fixed = TRUE)
})

test_that("the table above covers every registered entry point but the kernel ones", {
  registered <- names(getDLLRegisteredRoutines("rlsc")$.Call)
  expect_setequal(paste0("C_", grep("kernel", registered, invert = TRUE, value = TRUE)),
                  names(entry_points))   # the kernel ones: test-kernels.R
})

# From here each C routine is checked against a slow reference in R: internal
# on purpose, and always through its one adapter in R/native.R (the threads
# given by options(rlsc.threads), as in a fit).
at_threads <- function(n, expr) withr::with_options(list(rlsc.threads = n), expr)

test_that("abs_max is the largest magnitude, NA for NA or NaN, Inf for Inf", {
  abs_max <- rlsc:::c_abs_max
  expect_identical(abs_max(c(-3, 2)), 3)
  expect_identical(abs_max(numeric()), 0)
  expect_identical(abs_max(c(1, NA, -Inf)), NA_real_)
  expect_identical(abs_max(c(1, NaN)), NA_real_)
  expect_identical(abs_max(c(1, -Inf)), Inf)
  expect_identical(abs_max(matrix(c(0, -1e300), 1)), 1e300)
})

test_that("max_spread is the largest max - min of a column, without copying the columns", {
  max_spread <- rlsc:::c_max_spread
  set.seed(7)
  for (shape in list(c(1, 1), c(5, 1), c(1, 4), c(30, 7), c(200, 300))) {
    y <- matrix(rnorm(prod(shape)) * 10^runif(prod(shape), -3, 3), shape[1L], shape[2L])
    y[, 1L] <- y[1L, 1L]   # a constant column among them
    expect_identical(max_spread(y), max(apply(y, 2, function(v) diff(range(v)))))
  }
  expect_identical(max_spread(matrix(c(5, -1e300, 2, 2), 2)), 5 + 1e300)
  expect_identical(max_spread(matrix(3, 4, 3)), 0)
  # NA when some value is not finite (the response's finiteness check)
  for (bad in c(NA, NaN, Inf, -Inf)) {
    expect_identical(max_spread(matrix(c(1, 2, 3, 4, bad, 6), 3)), NA_real_)
    expect_identical(max_spread(matrix(c(bad, 2, 3, 4, 5, 6), 3)), NA_real_)
  }
  expect_identical(max_spread(matrix(numeric(), 0, 3)), 0)
  expect_identical(max_spread(matrix(numeric(), 3, 0)), 0)
})

test_that("the C entry points survive empty inputs", {
  none <- call_c("C_rlsc_lpo_auc", list(matrix(0.5, 4, 2), matrix(0, 4, 0), c(2, 1), c(1, 0.5),
                                        matrix(0.8, 4, 2), matrix(0.1, 4, 2), c(1, 1, -1, -1),
                                        rep(1, 4), integer(), 3:4, TRUE, c(0, 0), 1L))
  expect_identical(none, matrix(0, 2, 3))
  mom <- call_c("C_rlsc_moments", list(matrix(numeric(), 0, 2), matrix(numeric(), 0, 1), numeric(), c(0, 0),
                                       0, TRUE, NULL, 1L))
  none <- call_c("C_rlsc_moments", list(matrix(1, 3, 2), matrix(numeric(), 0, 1), numeric(), c(0, 0),
                                        0, TRUE, integer(), 1L))
  expect_identical(none$sumw, 0)
  expect_identical(mom$sumw, 0)
  expect_identical(dim(mom$sxx), c(2L, 2L))
  expect_identical(call_c("C_rlsc_eigen", list(matrix(numeric(), 0, 0), 1L))$values, numeric())
  expect_identical(call_c("C_rlsc_eigen_list", list(list(), 2L)), list())
  expect_identical(call_c("C_rlsc_eigen_list", list(list(matrix(numeric(), 0, 0), diag(2)), 2L))[[1L]]$values,
                   numeric())
  expect_identical(dim(call_c("C_rlsc_project", list(matrix(numeric(), 0, 2), NULL, c(0, 0), diag(2), NULL, 2L))),
                   c(0L, 2L))
  expect_identical(dim(call_c("C_rlsc_project", list(matrix(1, 3, 2), NULL, c(0, 0), diag(2), integer(), 2L))),
                   c(0L, 2L))
  empty_path <- function(...) call_c("C_rlsc_loo_path", loo_path_call_args(list(...)))
  path <- empty_path(matrix(1, 4, 0), numeric(), matrix(1, 0, 1), rep(1, 4), matrix(0, 4, 1),
                     matrix(1:4 + 0, 4, 1), rep(1, 4), rep(1, 4), 1:4, numeric(), FALSE, FALSE, FALSE, 2L,
                     NULL, 1, NULL, TRUE, NULL)
  expect_identical(dim(path$mean), c(0L, 5L))
  path <- empty_path(matrix(1, 4, 0), numeric(), matrix(1, 0, 1), rep(1, 4), matrix(0, 4, 1),
                     matrix(1:4 + 0, 4, 1), rep(1, 4), rep(1, 4), integer(), 1, FALSE, FALSE, TRUE, 2L,
                     NULL, 1, NULL, TRUE, NULL)
  expect_identical(path$n_na, 0)
  expect_identical(dim(path$loo), c(0L, 1L, 1L))
  expect_error(empty_path(matrix(1, 4, 0), numeric(), matrix(1, 0, 0), rep(1, 4), matrix(1, 4, 0),
                          matrix(1, 4, 0), rep(1, 4), rep(1, 4), 1:4, 1, FALSE, FALSE, FALSE, 1L, NULL, 1,
                          NULL, TRUE, NULL),
               "'g' must have at least one column", fixed = TRUE)
  # a model without columns: every row projects to 0 on each direction asked for
  expect_identical(call_c("C_rlsc_project",
                          list(matrix(numeric(), 3, 0), NULL, numeric(), matrix(numeric(), 0, 2), NULL, 1L)),
                   matrix(0, 3, 2))
  # L x T accumulators past INT_MAX / 2 are refused before any allocation
  nt <- 2^16
  expect_error(empty_path(matrix(1, 1, 0), numeric(), matrix(1, 0, nt), 1, matrix(0, 1, nt),
                          matrix(1, 1, nt), 1, 1, 1L, rep(1, 2^15), FALSE, FALSE, FALSE, 1L, NULL, 1, NULL,
                          TRUE, NULL),
               "'lambda' and 'g' have too many values together", fixed = TRUE)
})

test_that("the moments merged over blocks equal the two-pass weighted moments", {
  set.seed(51)
  n <- 9000   # several row blocks
  x <- matrix(rnorm(n * 3, mean = 1e4), n)
  y <- matrix(rnorm(n * 2), n)
  w <- runif(n)
  w[10] <- 0
  x[10, 1] <- -1e6   # the largest |x|, in a row of no weight: not a maximum
  shift <- x[1, ]
  yshift <- y[1, ]
  mom <- at_threads(2L, rlsc:::c_moments(x, y, w, shift, yshift, TRUE))
  wmean <- function(col) sum(w * col) / sum(w)   # sum() accumulates in long double
  xbar <- apply(x, 2, wmean)
  ybar <- apply(y, 2, wmean)
  xc <- sweep(x, 2, xbar)
  expect_equal(shift + mom$xbar, xbar, tolerance = 1e-13)
  expect_equal(yshift + mom$ybar, ybar, tolerance = 1e-13)
  expect_equal(mom$sxx, crossprod(xc, w * xc), tolerance = 1e-10)
  expect_equal(mom$sxy, crossprod(xc, w * sweep(y, 2, ybar)), tolerance = 1e-10)
  # the diagonal alone (gram = FALSE), and raw moments without a shift
  xmax <- apply(abs(x[w > 0, ]), 2, max)
  expect_identical(mom$xmax, xmax)
  diag_only <- at_threads(2L, rlsc:::c_moments(x, y, w, shift, yshift, FALSE))
  expect_equal(diag_only$sxx, diag(mom$sxx), tolerance = 1e-12)
  expect_equal(shift + diag_only$xbar, xbar, tolerance = 1e-13)
  expect_equal(diag_only$sxy, mom$sxy, tolerance = 1e-10)
  expect_identical(diag_only$xmax, xmax)
  raw <- at_threads(2L, rlsc:::c_moments(x, y, w, NULL, NULL, TRUE))
  expect_identical(raw$xbar, c(0, 0, 0))
  expect_equal(raw$sxx, crossprod(x, w * x), tolerance = 1e-12)
  raw_diag <- at_threads(2L, rlsc:::c_moments(x, y, w, NULL, NULL, FALSE))
  expect_equal(raw_diag$sxx, colSums(w * x^2), tolerance = 1e-12)
  expect_equal(raw_diag$sxy, crossprod(x, w * y), tolerance = 1e-12)
  expect_identical(raw_diag$xmax, xmax)
})

test_that("merged moments equal those of the rows together: the pairwise update in C", {
  set.seed(52)
  x <- matrix(rnorm(70 * 4, mean = 50), 70)
  y <- matrix(rnorm(70 * 2), 70)
  w <- runif(70)
  part <- function(i) {
    mom <- rlsc:::block_moments(x[i, ], y[i, , drop = FALSE], w[i], intercept = TRUE)
    mom$n <- stats::setNames(length(i), i[1])
    mom$chunk_sumw <- stats::setNames(sum(w[i]), i[1])
    mom
  }
  merged <- rlsc:::merge_moments(part(1:25), part(26:70))
  whole <- part(1:70)
  expect_equal(merged$shift + merged$xbar, whole$shift + whole$xbar, tolerance = 1e-13)
  expect_equal(merged$sxx, whole$sxx, tolerance = 1e-12)
  expect_equal(merged$sxy, whole$sxy, tolerance = 1e-12)
  # the update itself, against R's arithmetic (to rounding: a compiler may
  # fuse a multiply and an add), diagonal too
  merge <- rlsc:::c_merge_moments
  sa <- crossprod(x[1:9, ])
  sb <- crossprod(x[10:20, ])
  ca <- crossprod(x[1:9, ], y[1:9, ])
  cb <- crossprod(x[10:20, ], y[10:20, ])
  dx <- rnorm(4)
  dy <- rnorm(2)
  out <- merge(sa, sb, ca, cb, dx, dy, 2.5)
  expect_equal(out$sxx, sa + sb + 2.5 * tcrossprod(dx), tolerance = 1e-14)
  expect_equal(out$sxy, ca + cb + 2.5 * tcrossprod(dx, dy), tolerance = 1e-14)
  expect_equal(merge(diag(sa), diag(sb), ca, cb, dx, dy, 2.5)$sxx, diag(sa) + diag(sb) + 2.5 * dx^2,
               tolerance = 1e-14)
  none <- merge(matrix(0, 0, 0), matrix(0, 0, 0), matrix(0, 0, 2), matrix(0, 0, 2), numeric(), dy, 1)
  expect_identical(dim(none$sxx), c(0L, 0L))
  expect_identical(dim(none$sxy), c(0L, 2L))
})

test_that("the moments and projections of some rows, by their numbers, equal those of a copy of the rows", {
  # (the C gathers the rows block by block: a fold's rows are never copied)
  set.seed(53)
  n <- 6000
  x <- matrix(rnorm(n * 40, mean = 100), n)
  y <- matrix(rnorm(n * 3), n)
  w <- runif(n) * (runif(n) > 0.1)
  v <- qr.Q(qr(matrix(rnorm(40 * 40), 40)))
  moments <- getFromNamespace("c_moments", "rlsc")
  project <- getFromNamespace("c_project", "rlsc")
  for (rows in list(sample.int(n, 3100), sort(sample.int(n, 200)), c(5L, 5L, 2L), integer())) {
    xs <- x[rows, , drop = FALSE]
    for (gram in c(TRUE, FALSE)) {
      for (shift in list(NULL, x[1, ])) {
        ys <- if (is.null(shift)) NULL else y[1, ]
        by_rows <- moments(x, y[rows, , drop = FALSE], w[rows], shift, ys, gram, rows)
        expect_identical(by_rows, moments(xs, y[rows, , drop = FALSE], w[rows], shift, ys, gram))
      }
    }
    center <- rnorm(40)
    expect_identical(project(x, x[2, ], center, v, rows), project(xs, x[2, ], center, v))
  }
})

# Fitting and predicting never write into what they are given: every input is
# compared, by identical() to a deep copy and byte for byte by serialize(),
# after fits in both forms and calls of every method.
test_that("fitting and predicting never modify their inputs", {
  snap <- function(v) serialize(v, NULL)
  deep <- function(v) unserialize(serialize(v, NULL))
  use_all <- function(x, y, w, lam, newdata) {
    fit <- rlsc_short(x, y, weights = w, lambda = lam)
    fit2 <- suppressWarnings(rlsc_short(x, y, weights = w, lambda = lam, mode = "primal"))
    fit3 <- rlsc_short(x, y, weights = w, lambda = lam, mode = "dual")
    l <- fit$lambda[2]
    invisible(list(loo_predict(fit, l), predict(fit, newdata, lambda = l), coef(fit, l),
                   loo_predict(fit2, l), predict(fit3, newdata, lambda = l), coef(fit3, l)))
  }
  d <- make_data(15, 25, seed = 52)
  ym <- cbind(d$y, rev(d$y))
  cases <- list(
    double = list(x = d$x, y = d$y, w = rep(2, 15), lam = c(3, 1)),
    double_matrix_y = list(x = d$x, y = ym, w = seq(0.5, 7.5, by = 0.5), lam = c(1, 3)),
    integer = list(x = matrix(as.integer(round(d$x * 10)), 15), y = as.integer(round(d$y * 10)),
                   w = rep(1:3, 5), lam = 3:1),
    data_frame = list(x = as.data.frame(d$x[, 1:5]), y = d$y, w = rep(1, 15), lam = c(2, 0.5)),
    factor = list(x = d$x[, 1:4], y = factor(rep(c("a", "b", "c"), 5)), w = NULL, lam = c(1, 0.1)),
    altrep = list(x = cbind(seq(1, 15), (1:15)^2), y = seq(2, 30, by = 2) + sin(1:15), w = NULL,
                  lam = c(10, 1)))
  for (case in cases) {
    copies <- lapply(case, deep)
    bytes <- lapply(case, snap)
    newdata <- as.matrix(case$x)[1:3, , drop = FALSE]
    use_all(case$x, case$y, case$w, case$lam, newdata)
    expect_identical(case, copies)
    expect_identical(lapply(case, snap), bytes)
  }
  # x shared by two bindings (so R would not copy it before a write)
  x <- d$x
  shared <- x
  before <- snap(x)
  use_all(x, d$y, NULL, c(3, 1), x[1:2, ])
  expect_identical(snap(x), before)
  expect_identical(snap(shared), before)
  expect_identical(x, shared)
})


# The eigendecomposition (src/eigen.c) runs dsyevr's steps itself: its
# vectors must be as orthogonal, and its residuals as small, as LAPACK's, on
# spectra that are spread, graded over many decades, clustered or repeated,
# at sizes around its panels of 32 columns and pieces of 64 vectors.
test_that("the eigendecomposition is orthogonal with small residuals, its values eigen()'s", {
  eig <- function(s) at_threads(2L, rlsc:::c_eigen(s))
  rotate <- function(values) {
    q <- qr.Q(qr(matrix(rnorm(length(values)^2), length(values))))
    q %*% (values * t(q))
  }
  set.seed(134)
  cases <- list(
    wishart_33 = crossprod(matrix(rnorm(36 * 33), 36)),
    wishart_65 = crossprod(matrix(rnorm(70 * 65), 70)),
    rank_deficient = crossprod(matrix(rnorm(40 * 130), 40)),
    graded = rotate(10^seq(0, -14, length.out = 97)),
    clustered = rotate(c(rep(1, 50), 1 + 1e-12 * (1:40), rep(1e-3, 40), 0)),
    scaled = crossprod(matrix(rnorm(60 * 50), 60)) * 1e-200,
    wishart_450 = crossprod(matrix(rnorm(460 * 450), 460)))
  for (name in names(cases)) {
    s <- cases[[name]]
    s <- (s + t(s)) / 2
    n <- nrow(s)
    e <- eig(s)
    top <- max(abs(e$values))
    expect_true(all(diff(e$values) <= 0), info = name)
    expect_lt(max(abs(crossprod(e$vectors) - diag(n))), max(1e-13, n * 1e-14), label = name)
    expect_lt(max(abs(s %*% e$vectors - e$vectors %*% (e$values * diag(n)))) / top, 1e-13,
              label = name)
    expect_lt(max(abs(e$values - eigen(s, symmetric = TRUE, only.values = TRUE)$values)) / top,
              1e-13, label = name)
  }
  # several at once (c_eigen_list(): whole matrices to the threads, one
  # each, below 700 rows; one after the other with every thread above): bit
  # for bit each one's own decomposition, with any number of threads
  cases <- lapply(cases, function(s) (s + t(s)) / 2)
  cases$large <- crossprod(matrix(rnorm(720 * 710), 720))
  cases$empty <- matrix(numeric(), 0, 0)
  eig_list <- function(s, th) at_threads(th, rlsc:::c_eigen_list(s))
  alone <- lapply(cases, eig)
  small <- cases[names(cases) != "large"]
  expect_identical(eig_list(unname(small), 2L), unname(alone[names(small)]))
  expect_identical(eig_list(unname(small), 1L), unname(alone[names(small)]))
  expect_identical(eig_list(unname(small[c(7, 7, 7)]), 3L), unname(alone[c(7, 7, 7)]))
  expect_identical(eig_list(unname(cases[c("large", "wishart_65")]), 2L), unname(alone[c("large", "wishart_65")]))
})

test_that("c_svd_list() gives La.svd()'s singular values and right vectors bit for bit, with any threads", {
  # graded_eigen()'s SVDs of Cholesky factors, several at once on the
  # threads (one each): each that of La.svd(x, nu = 0) alone, whatever the
  # number of threads, wide, tall, of columns on very different scales,
  # empty
  set.seed(135)
  graded <- function(m, n) matrix(rnorm(m * n), m) * rep(10^runif(n, -8, 3), each = m)
  cases <- list(graded(120, 120), graded(60, 90), graded(90, 60), graded(1, 5), graded(7, 1),
                chol(crossprod(matrix(rnorm(300 * 250), 300))), graded(120, 120), matrix(numeric(), 0, 3))
  # (La.svd() with the BLAS held to one thread, as in a fit: a threaded
  # OpenBLAS rounds differently)
  held_svds <- function(cases) {
    rlsc:::hold_blas_threads()   # (until this function returns)
    lapply(cases, function(x) {
      if (!length(x)) return(list(d = numeric(), v = matrix(numeric(), ncol(x), 0)))
      sv <- La.svd(x, nu = 0)
      list(d = sv$d, v = t(sv$vt))
    })
  }
  alone <- held_svds(cases)
  for (th in 1:3) expect_identical(at_threads(th, rlsc:::c_svd_list(cases)), alone)
  expect_identical(rlsc:::c_svd_list(list()), list())
  # the vectors are right singular vectors: x v = u diag(d) with u orthonormal
  sv <- rlsc:::c_svd_list(cases[6])[[1L]]
  u <- cases[[6]] %*% sv$v / rep(sv$d, each = 250)
  expect_lt(max(abs(crossprod(u) - diag(250))), 1e-12)
  expect_lt(max(abs(crossprod(sv$v) - diag(250))), 1e-12)
})

test_that("a Gram whose diagonal spans more than 2e9 loses directions in its eigendecomposition", {
  # (gram_eigens() then takes the SVD route first: the plain decomposition
  # is sure to come out lost_to_scales(), min eigenvalue <= min diagonal,
  # max eigenvalue >= max diagonal, to the decomposition's rounding)
  set.seed(136)
  for (i in 1:30) {
    d <- sample(c(2, 5, 40, 150), 1L)
    x <- matrix(rnorm((d + sample(0:30, 1L)) * d), ncol = d)
    if (i %% 3 == 0) x[, 2] <- x[, 1] + 1e-3 * x[, 2]        # correlated columns too
    s <- crossprod(x) / tcrossprod(10^runif(d, 0, sample(c(2, 6, 12), 1L)))
    s <- (s + t(s)) / 2
    if (rlsc:::lost_by_diagonal(s)) expect_true(rlsc:::lost_to_scales(rlsc:::c_eigen(s)$values))
  }
  # at the margin: diagonals spanning just over 2e9, correlated columns
  for (ratio in c(4.9e-10, 4.99e-10)) {
    x <- matrix(rnorm(200 * 6), 200)
    x[, 2] <- x[, 1] + 0.1 * x[, 2]
    s <- crossprod(x)
    m <- sqrt(diag(s)) * rep(c(1, sqrt(ratio)), each = 3)
    s <- s / tcrossprod(sqrt(diag(s))) * tcrossprod(m)
    s <- (s + t(s)) / 2
    expect_true(rlsc:::lost_by_diagonal(s))
    expect_true(rlsc:::lost_to_scales(rlsc:::c_eigen(s)$values))
  }
  expect_false(rlsc:::lost_by_diagonal(matrix(1e-30, 1, 1)))
  expect_true(rlsc:::lost_by_diagonal(diag(c(1, 4e-10))))
  expect_false(rlsc:::lost_by_diagonal(diag(c(1, 6e-10))))
})

test_that("c_scaled_sumsq() is colSums((v * x)^2), the directions' noise floors", {
  set.seed(3)
  v <- matrix(rnorm(40 * 7), 40)
  x <- abs(rnorm(40)) * 10^runif(40, -3, 3)
  expect_equal(c_scaled_sumsq(v, x), colSums((v * x)^2), tolerance = 1e-14)
  expect_identical(c_scaled_sumsq(matrix(0, 0, 3), numeric(0)), numeric(3))
  expect_identical(c_scaled_sumsq(matrix(0, 4, 0), rep(1, 4)), numeric(0))
})

test_that("without `columns` the path's per-column losses are NA and the rest is unchanged", {
  set.seed(361)
  n <- 300
  x <- matrix(rnorm(n * 8), n)
  y <- factor(sample(letters[1:4], n, TRUE))
  w <- runif(n, 0.5, 2)
  lambda <- c(10, 1, 0.1)
  # a fit by one lambda for all columns wants no per-column losses; one by
  # a lambda per column does: the rest of their tables is the same, bit for
  # bit, for classes and for their codes as a regression's response columns
  code <- -1 + 2 * outer(as.integer(y), 1:4, "==")
  for (resp in list(y, code)) {
    calib <- if (is.factor(resp)) list(calibration_folds = 0)
    one <- do.call(rlsc_short, c(list(x, resp, weights = w, lambda = lambda), calib))
    each <- do.call(rlsc_short, c(list(x, resp, weights = w, lambda = lambda, per_response = TRUE), calib))
    cols <- setdiff(names(each$path), names(one$path))   # mse_<column> and its _se
    expect_length(cols, 8L)
    expect_identical(each$path[names(one$path)], one$path)
    expect_false(anyNA(each$path[cols]))
    first <- rlsc_short(x, code[, 1], weights = w, lambda = lambda)
    expect_equal(each$path[[cols[1]]], first$path$mse, tolerance = 1e-12)
  }
  # the complement form (a dual engine's rows) with 200 one-vs-all columns in
  # several column blocks, classes and kept outputs or not
  cc <- complement_case()
  for (keep in c(FALSE, TRUE)) {
    path <- function(columns) {
      loo_path(cc$basis, cc$values, cc$g, cc$q, cc$ys - cc$basis %*% cc$g, cc$ys, cc$w, cc$w,
               seq_along(cc$w), lambda, TRUE, TRUE, keep, NULL, 1, columns = columns)
    }
    all <- path(TRUE)
    some <- path(FALSE)
    for (f in c("w", "mean", "m2")) {
      expect_identical(some[[f]][, 1:4], all[[f]][, 1:4])
      expect_true(all(is.na(some[[f]][, -(1:4)])))
    }
    expect_identical(some[c("n_na", "omh", "fitted", "loo")], all[c("n_na", "omh", "fitted", "loo")])
  }
})
