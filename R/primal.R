# The primal engine (DESIGN.md, section 4), for dense or sparse x:
# step 1 the weighted means and centered co-moments, step 2 the d x d
# eigendecomposition A'A = V Lambda V', and B = (X - 1 xbar') V for the path.

primal_engine <- function(x, y, w, intercept, free = NULL) {
  mom <- if (is_sparse(x)) sparse_moments(x, y, w, intercept) else {
    threaded(.Call(C_rlsc_moments, x, y, w, intercept, thread_count()))
  }
  part <- moments_engine(mom, intercept, max(dim(x)), free, w)
  check_underflow(part$all_values, x, w, intercept)
  n <- nrow(x)
  # xbar is the weighted mean rounded to a double: with a large common offset
  # its error (eps times the offset) shifts every row of B alike and costs
  # digits of 1 - h wherever h is near 1.  The weighted mean of the rows of B
  # is that error (times v), from exact differences: project_rows() removes it.
  basis <- project_rows(x, part$center, part$v, if (intercept) as.double(w))
  new_engine("primal", values = part$values, dropped = part$dropped,
             basis = basis, direct = rep(TRUE, n),
             q = 1 - intercept * w / sum(w) - free_leverage(x, w, part),
             r0 = offset_residuals(x, y, part), g = part$g, ybar = part$ybar, w = w,
             intercept = intercept, center = part$center, v = part$v, beta0 = part$beta0,
             free_map = part$free_map, noise = part$noise)
}

# The primal engine of moments (in memory, of K - 1 folds, or merged from
# chunks): the d x d eigendecomposition and what the path of any rows needs.
# Columns `free` are not penalized (penalty_factor = 0): they are projected out
# like the intercept, through the Schur complement of the Gram,
#   S = S_uu - S_uz S_zz^-1 S_zu,   s_xy = S_uy - S_uz S_zz^-1 S_zy
# (u the penalized columns, z the free ones), so that B = (x - xbar) v with
# v = [-A V; V], A = S_zz^-1 S_zu; their coefficients are beta0 - A beta_u,
# beta0 = S_zz^-1 S_zy (rows z), and their leverage
# w_i |(x_i - xbar) free_map|^2 with free_map = S_zz^(-1/2) (rows z).
moments_engine <- function(mom, intercept, nrows, free = NULL, w = NULL) {
  check_overflow(mom$sxx, "x", w)
  d <- length(mom$xbar)
  pen <- setdiff(seq_len(d), free)
  sxx <- mom$sxx
  sxy <- mom$sxy
  beta0 <- free_map <- NULL
  if (length(free)) {
    szz <- mom$sxx[free, free, drop = FALSE]
    root <- tryCatch(chol(szz), error = function(e) NULL)
    if (is.null(root) || min(diag(root))^2 <= 1e-12 * max(diag(szz))) {
      stop_arg("the columns with `penalty_factor` 0 are constant or collinear: ",
               "they cannot all be left unpenalized")
    }
    solve_zz <- function(b) backsolve(root, forwardsolve(t(root), b))
    a <- solve_zz(mom$sxx[free, pen, drop = FALSE])
    sxx <- mom$sxx[pen, pen, drop = FALSE] - crossprod(mom$sxx[free, pen, drop = FALSE], a)
    sxx <- (sxx + t(sxx)) / 2
    sxy <- mom$sxy[pen, , drop = FALSE] - crossprod(a, mom$sxy[free, , drop = FALSE])
    beta0 <- matrix(0, d, ncol(sxy))
    beta0[free, ] <- solve_zz(mom$sxy[free, , drop = FALSE])
    free_map <- matrix(0, d, length(free))
    free_map[free, ] <- backsolve(root, diag(length(free)))
  }
  eig <- threaded(.Call(C_rlsc_eigen, sxx, thread_count()))
  m <- max(nrows, d)
  floor <- direction_floor(eig$vectors, mom$xmax[pen], mom$sumw, m)
  noise <- if (is.null(mom$raw)) floor else pmax(floor, raw_noise(eig$vectors, mom$raw[pen]))
  kept <- kept_directions(eig$values, m, floor, noise)
  vp <- eig$vectors[, kept$keep, drop = FALSE]
  v <- matrix(0, d, ncol(vp))
  v[pen, ] <- vp
  if (length(free)) v[free, ] <- -a %*% vp
  # all_values: the scale of the Gram for check_underflow(), free columns included
  list(values = eig$values[kept$keep], all_values = c(eig$values, diag(mom$sxx)[free]),
       dropped = kept$dropped, v = v,
       g = crossprod(vp, sxy), center = mom$xbar, ybar = mom$ybar, beta0 = beta0,
       free_map = free_map, noise = if (any(kept$keep)) noise[kept$keep] else max(noise, 0))
}

# The unpenalized columns' share of the leverage of rows x (0 without them).
free_leverage <- function(x, w, eng) {
  if (is.null(eng$free_map)) return(0)
  w * rowSums(project_rows(x, eng$center, eng$free_map)^2)
}

# y - ybar - (x - xbar) beta0: the residuals of rows x at lambda = Inf, the
# start of the direct form of the path.
offset_residuals <- function(x, y, eng) {
  r0 <- if (ncol(y) == 1L) y - eng$ybar else y - rep(eng$ybar, each = nrow(y))
  if (is.null(eng$beta0)) r0 else r0 - project_rows(x, eng$center, eng$beta0)
}

# The degrees of freedom of the fit at lambda: the penalized directions' plus
# one per unpenalized column (the intercept adds one more).
model_df <- function(eng, lambda) {
  effective_df(eng$values, lambda) + if (is.null(eng$free_map)) 0 else ncol(eng$free_map)
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

# B = (X - 1 xbar') V without a centered copy of X; with weights `w`, minus
# the weighted mean of its rows (src/project.c says why).
project_rows <- function(x, xbar, v, w = NULL) {
  if (!is_sparse(x)) return(threaded(.Call(C_rlsc_project, x, xbar, v, w, thread_count())))
  basis <- as.matrix(x %*% v) - rep(drop(crossprod(xbar, v)), each = nrow(x))
  if (is.null(w) || !ncol(basis)) return(basis)
  basis - rep(colSums(w * basis) / sum(w), each = nrow(x))
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
  if (!is.null(eng$beta0)) beta <- beta + eng$beta0
  list(coef = beta, intercept = eng$ybar - drop(crossprod(beta, eng$center)),
       center = eng$center, base = eng$ybar)
}

engine_decision.rlsc_primal <- function(eng, newx, lambda) {
  linear_decision(newx, engine_coef(eng, lambda))
}
