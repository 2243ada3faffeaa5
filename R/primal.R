# The primal engine (DESIGN.md, section 4), for dense or sparse x:
# step 1 the weighted means and centered co-moments, step 2 the d x d
# eigendecomposition A'A = V Lambda V', and B = (X - 1 xbar') V for the path.

primal_engine <- function(x, y, w, intercept) {
  mom <- if (is_sparse(x)) sparse_moments(x, y, w, intercept) else {
    .Call(C_rlsc_moments, x, y, w, intercept)
  }
  check_overflow(mom$sxx, "x", w)
  eig <- .Call(C_rlsc_eigen, mom$sxx)
  check_underflow(eig$values, x, w, intercept)
  floor <- direction_floor(eig$vectors, mom$xmax, w, max(dim(x)))
  noise <- if (is.null(mom$raw)) floor else pmax(floor, raw_noise(eig$vectors, mom$raw))
  kept <- kept_directions(eig$values, max(dim(x)), floor, noise)
  v <- eig$vectors[, kept$keep, drop = FALSE]
  n <- nrow(x)
  basis <- project_rows(x, mom$xbar, v)
  # xbar is the weighted mean rounded to a double: with a large common offset
  # its error (eps times the offset) shifts every row of B alike and costs
  # digits of 1 - h wherever h is near 1.  The weighted mean of the rows of B
  # is that error (times V), from exact differences: remove it.
  if (intercept && length(v)) basis <- basis - rep(colSums(w * basis) / sum(w), each = n)
  new_engine("primal", values = eig$values[kept$keep], dropped = kept$dropped,
             basis = basis, direct = rep(TRUE, n),
             q = 1 - intercept * w / sum(w),
             r0 = y - rep(mom$ybar, each = n), g = crossprod(v, mom$sxy), ybar = mom$ybar,
             w = w, intercept = intercept, center = mom$xbar, v = v,
             noise = if (any(kept$keep)) noise[kept$keep] else max(noise, 0))
}

# Sparse x: its co-moments are raw cross-products minus the mean terms, so
# each carries an absolute error of about eps times the raw one; with a large
# common offset of a column (values far from 0 in most rows) that cancels
# most digits.  In direction v_k the error is up to eps (sum_j |v_jk|
# sqrt(raw_jj))^2, with raw_jj = sum_i w_i x_ij^2: directions below it are
# noise, and warn_unreliable() compares lambda with it.
raw_noise <- function(vectors, raw) {
  (sqrt(.Machine$double.eps) * colSums(abs(vectors) * sqrt(raw)))^2   # no overflow of the square
}

# The noise floor of each eigen-direction v_k: the centering rounds column j
# by about m eps max|x_j|, so sum(w) (m eps)^2 sum_j v_jk^2 max|x_j|^2 is the
# eigenvalue rounding alone can give that direction.  Per column, so that a
# column on a scale of 1e17 does not hide the others as noise: their directions
# are then dropped by the relative rule but counted in `dropped`, and
# warn_unreliable() speaks.
direction_floor <- function(vectors, xmax, w, m) {
  sum(w) * (m * .Machine$double.eps)^2 * colSums(vectors^2 * xmax^2)
}

# B = (X - 1 xbar') V without a centered copy of X.
project_rows <- function(x, xbar, v) {
  if (!is_sparse(x)) return(.Call(C_rlsc_project, x, xbar, v))
  as.matrix(x %*% v) - rep(drop(crossprod(xbar, v)), each = nrow(x))
}

# The moments of sparse x from its raw cross-products minus the rank-one mean
# terms, so that x is never densified: exact in exact arithmetic and accurate
# whenever the column means are not large against the columns' spread, the
# usual situation for sparse data.
sparse_moments <- function(x, y, w, intercept) {
  sw <- sum(w)
  xbar <- if (intercept) as.vector(Matrix::crossprod(x, w)) / sw else numeric(ncol(x))
  ybar <- if (intercept) colSums(w * y) / sw else numeric(ncol(y))
  sx <- Matrix::Diagonal(x = sqrt(w)) %*% x
  xp <- x[w > 0, , drop = FALSE]
  xmax <- numeric(ncol(x))
  nz <- diff(xp@p)
  xmax[nz > 0] <- vapply(split(abs(xp@x), rep.int(seq_len(ncol(x)), nz)), max, 0)
  raw <- as.matrix(Matrix::crossprod(sx))
  list(sumw = sw, xbar = xbar, ybar = ybar, xmax = xmax, raw = diag(raw),
       sxx = raw - sw * tcrossprod(xbar),
       sxy = as.matrix(Matrix::crossprod(x, w * sweep(y, 2L, ybar))))
}

# The slopes and intercept at lambda, and (for linear_decision()) the base
# ybar at the center of the columns.
engine_coef.rlsc_primal <- function(eng, lambda) {
  beta <- eng$v %*% (eng$g * spectral_filter(eng$values, lambda))
  list(coef = beta, intercept = eng$ybar - drop(crossprod(beta, eng$center)),
       center = eng$center, base = eng$ybar)
}

engine_decision.rlsc_primal <- function(eng, newx, lambda) {
  linear_decision(newx, engine_coef(eng, lambda))
}
