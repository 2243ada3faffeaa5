# The R side of each C entry point (src/rlsc.h): one adapter per routine,
# with named arguments, the only place that calls .Call.  Each holds a
# threaded BLAS to one thread for the call (hold_blas_threads(), R/threads.R)
# and passes the package's thread count; R has validated the values, C checks
# types and dimensions again.

# Step 1: weighted means and centered co-moments of x - shift and y - yshift
# (shift NULL: raw moments, no intercept); `gram` FALSE forms only the
# diagonal of the Gram.  `rows` (integer, NULL: all): the rows of x whose
# moments are wanted, y and w being those rows' own (no copy of x's rows).
c_moments <- function(x, y, w, shift = NULL, yshift = NULL, gram = TRUE, rows = NULL) {
  hold_blas_threads()
  .Call(C_rlsc_moments, x, y, w, shift, yshift, gram, rows, thread_count())
}

# The pairwise update of two sets of moments (merge_moments()): list(sxx =
# sa + sb + f dx dx' (or its diagonal, for vectors sa and sb), sxy = ca + cb
# + f dx dy').
c_merge_moments <- function(sa, sb, ca, cb, dx, dy, f) {
  .Call(C_rlsc_merge_moments, sa, sb, ca, cb, dx, dy, f, thread_count())
}

# Step 2: the symmetric eigendecomposition, largest eigenvalue first.
c_eigen <- function(s) {
  hold_blas_threads()
  .Call(C_rlsc_eigen, s, thread_count())
}

# The same for a list of matrices: those of a few hundred rows two at a time
# on two threads (one thread each), with the results of c_eigen().
c_eigen_list <- function(s) {
  hold_blas_threads()
  .Call(C_rlsc_eigen_list, s, thread_count())
}

# The singular values `d` and right singular vectors `v` (as columns: t() of
# La.svd()'s `vt`) of each matrix of a list, La.svd(x, nu = 0)'s bit for bit
# (graded_eigen(), R/primal.R): several at once on the threads, one each.
c_svd_list <- function(s) {
  hold_blas_threads()
  .Call(C_rlsc_svd_list, s, thread_count())
}

# B = ((x - shift) - center) v, in row blocks (no centered copy of x), of
# x's rows `rows` (integer, NULL: all; no copy of them).
c_project <- function(x, shift, center, v, rows = NULL) {
  hold_blas_threads()
  .Call(C_rlsc_project, x, shift, center, v, rows, thread_count())
}

# crossprod(a, b) by the package's threads (the BLAS is held to one).
c_crossprod <- function(a, b) {
  hold_blas_threads()
  .Call(C_rlsc_crossprod, a, b, thread_count())
}

# Step 3 for one set of rows (R/path.R, row_path()), its arguments in three
# named lists that C reads by name (each with exactly these elements):
# set = list(basis, q, r0, y, w, omega, rows, perp, yorigin, products), the
# rows (r0 NULL: r0 = (y - shift) - mean from `yorigin`, 2 x T: the
# response's shift and mean, per block in C; `products`, held-out rows of a
# basis of no columns: the rows' basis times filtered g, n x T x L, formed by
# the caller); engine = list(values, g); path = list(lambda, complement,
# classify, keep, unit, columns, values), `columns` FALSE: the per-column
# losses are not wanted (NA); `values` TRUE (with `keep`, without `columns`):
# the LOO values alone, no losses.
c_loo_path <- function(set, engine, path) {
  hold_blas_threads()
  .Call(C_rlsc_loo_path, set, engine, path, thread_count())
}

# The leave-pair-out AUC's sums per lambda (R/auc.R): an L x 3 matrix of the
# weights of pairs ranked right (ties half), of all pairs, and the number of
# pairs whose fit without both rows is undefined; decision values within
# `tie` (one per lambda) of each other are tied.
c_lpo_auc <- function(p, z, values, lambda, a, e, y, w, pi, pj, enumerate, tie) {
  hold_blas_threads()
  .Call(C_rlsc_lpo_auc, p, z, values, lambda, a, e, y, w, as.integer(pi), as.integer(pj),
        enumerate, tie, thread_count())
}

# k(x_i, z_j) of a built-in kernel (z NULL: z = x), the rows of both moved to
# the origin, ((x - shift) - center) / scale, first (each part NULL: none).
c_kernel_matrix <- function(x, z, type, params, shift = NULL, center = NULL, scale = NULL) {
  hold_blas_threads()
  .Call(C_rlsc_kernel_matrix, x, z, type, params, shift, center, scale, thread_count())
}

# The Nystrom features of the rows of x, K(x, z) map (map NULL: the kernel
# K(x, z) itself), of a built-in kernel, both sets of rows moved to the
# origin, (x - center) / scale, first; computed in tiles of rows by the
# threads (no n x m kernel with a map).
c_nystrom_rows <- function(x, z, type, params, center = NULL, scale = NULL, map = NULL) {
  hold_blas_threads()
  .Call(C_rlsc_nystrom_rows, x, z, type, params, center, scale, map, thread_count())
}

# Random Fourier features of the rows of x, sqrt(2 / m) cos(x w + 1 b'), in
# tiles of rows computed by the threads.
c_fourier_rows <- function(x, w, b) {
  hold_blas_threads()
  .Call(C_rlsc_fourier_rows, x, w, b, thread_count())
}

# The eigendecomposition of the weighted double-centered kernel of the rows
# of positive weight (type "precomputed": x is the kernel matrix).
c_kernel_eigen <- function(x, w, type, params, shift, center, scale, intercept) {
  hold_blas_threads()
  .Call(C_rlsc_kernel_eigen, x, w, type, params, shift, center, scale, intercept, thread_count())
}

c_kernel_asymmetry <- function(k) .Call(C_rlsc_kernel_asymmetry, k)

# max |x| of a double vector in one pass: NA when x has NA or NaN.
c_abs_max <- function(x) .Call(C_rlsc_abs_max, x)

# The largest max - min of the columns of a double matrix (no column copied),
# NA when a value is not finite.
c_max_spread <- function(y) .Call(C_rlsc_max_spread, y)

# sum_j (x_j v_jk)^2 of each column k of v, in one pass (direction_floor()).
c_scaled_sumsq <- function(v, x) .Call(C_rlsc_scaled_sumsq, v, x)

# sum_k values_k / (values_k + lambda) at each lambda (effective_df()).
c_effective_df <- function(values, lambda) .Call(C_rlsc_effective_df, values, lambda)

# The calibration map's loss, gradient and (with `hessian`) Hessian at theta
# (R/calibrate.R, fit_map()): f the decision values of the classes `slopes`,
# centred at `center` and multiplied by `inv_scale` (0: a flat column, taken
# as 0) as they are read, `own` Platt's target of each class for its own
# rows; rows of weight 0 add nothing, whatever their values.  (Fits take
# their evaluations inside c_softmax_fit(); the tests check the derivatives
# through this.)
c_softmax_map <- function(f, code, own, w, theta, slopes, center, inv_scale, hessian = FALSE) {
  hold_blas_threads()
  .Call(C_rlsc_softmax_map, f, code, own, w, theta, slopes, center, inv_scale, hessian, thread_count())
}

# The map's fit from `theta` by projected Newton steps (slopes >= 0) to a
# projected gradient below `tol`: list(theta, evaluations).
c_softmax_fit <- function(f, code, own, w, theta, slopes, center, inv_scale, tol, maxit = 200L) {
  hold_blas_threads()
  .Call(C_rlsc_softmax_fit, f, code, own, w, theta, slopes, center, inv_scale, tol, maxit, thread_count())
}

# Each column's weighted mean and standard deviation over the rows of
# positive weight: list(mean, sd).
c_column_spreads <- function(f, w) .Call(C_rlsc_column_spreads, f, w)

# OpenMP's view of the machine and the BLAS's threads (src/threads.c).
c_thread_info <- function() .Call(C_rlsc_thread_info)

# Sets a threaded BLAS's threads (found by symbol at load); returns the number
# it had (1 when there is no such BLAS).
c_blas_set_threads <- function(n) .Call(C_rlsc_blas_set_threads, n)
