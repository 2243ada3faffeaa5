# The factorization behind every fit.  Both forms reduce the problem to the
# same three things, which is all the LOO path (src/path.c) needs:
#   values  the r positive eigenvalues Lambda_k of the centered weighted Gram,
#   B       the n x r coordinates of the centered rows in its eigenbasis
#           (so that h_ii = w_i/sum(w) + w_i sum_k B_ik^2 / (Lambda_k + lambda)),
#   g       B' (w o (y - ybar)), r x T.
# Primal: eigendecompose A'A (d x d) and project the rows, B = (X - 1 xbar') V.
# Dual:   eigendecompose A A' = U Lambda U' (n x n); then B_ik = U_ik sqrt(Lambda_k) / s_i.

engine_fit <- function(x, y, w, intercept, mode) {
  if (is_sparse(x)) {
    if (mode == "primal") engine_primal_sparse(x, y, w, intercept) else engine_dual_sparse(x, y, w, intercept)
  } else {
    if (mode == "primal") engine_primal(x, y, w, intercept) else engine_dual(x, y, w, intercept)
  }
}

# Eigen-directions kept: those above the numerical rank threshold.  Dropping the
# rest is the pseudo-inverse at lambda = 0 and changes little for lambda > 0
# (warn_unreliable() says when it may matter).  The threshold is relative to the
# largest eigenvalue and, so that columns that are constant up to the rounding
# of their weighted mean do not become a direction of pure rounding noise, at
# least the noise floor of the centered values, sum(w) (max(n, d) eps max|x|)^2.
# Returns the kept indices (a prefix: the values are decreasing) and the largest
# eigenvalue dropped above that noise floor; a spectrum that underflowed is an
# error (check_underflow()).
positive_spectrum <- function(values, x, w, intercept) {
  check_underflow(values, x, w, intercept)
  n <- nrow(x)
  d <- ncol(x)
  eps <- .Machine$double.eps
  xmax <- max_abs(x)
  noise <- sum(w) * (max(n, d) * eps * xmax)^2
  keep <- values > max(max(values, 0) * max(n, d) * eps, noise)
  list(keep = keep, dropped = max(values[!keep & values > noise], 0))
}

max_abs <- function(x) {
  .Call(C_rlsc_abs_max, if (is_sparse(x)) x@x else x)
}

# Centered cross-products below about xmin / eps have lost digits to underflow
# (or vanished): reject such `x` as check_overflow() rejects huge `x`, instead
# of fitting it as if it had no signal.
check_underflow <- function(values, x, w, intercept) {
  top <- max(values, 0)
  if (top >= .Machine$double.xmin / .Machine$double.eps) return(invisible())
  rows <- x[w > 0, , drop = FALSE]
  signal <- if (is_sparse(rows) || !intercept) {
    max_abs(rows) > 0
  } else {
    any(rows != rep(rows[1L, ], each = nrow(rows)))
  }
  if (top > 0 || signal) {
    stop_arg("`x` is too small in magnitude: its weighted cross-products underflow; ",
             "rescale `x` (or `weights`)")
  }
}

engine_primal <- function(x, y, w, intercept) {
  mom <- .Call(C_rlsc_moments, x, y, w, intercept, TRUE)
  check_overflow(mom$sxx, "x")
  eig <- .Call(C_rlsc_eigen, mom$sxx)
  kept <- positive_spectrum(eig$values, x, w, intercept)
  keep <- kept$keep
  v <- eig$vectors[, keep, drop = FALSE]
  list(mode = "primal", values = eig$values[keep], dropped = kept$dropped,
       b = .Call(C_rlsc_project, x, mom$xbar, v), g = crossprod(v, mom$sxy),
       v = v, xbar = mom$xbar, ybar = mom$ybar)
}

engine_dual <- function(x, y, w, intercept) {
  mom <- .Call(C_rlsc_moments, x, y, w, intercept, FALSE)
  gram <- .Call(C_rlsc_dual_gram, x, w, mom$xbar)
  check_overflow(gram, "x")
  dual_from_gram(gram, x, y, w, intercept, mom)
}

# The dual engine from the weighted centered Gram A A' of the rows of positive
# weight (and the means `mom$xbar`, `mom$ybar`).
dual_from_gram <- function(gram, x, y, w, intercept, mom) {
  eig <- .Call(C_rlsc_eigen, gram)
  kept <- positive_spectrum(eig$values, x, w, intercept)
  keep <- kept$keep
  values <- eig$values[keep]
  u <- eig$vectors[, keep, drop = FALSE]
  pos <- w > 0
  s <- sqrt(w[pos])
  b <- matrix(0, nrow(x), length(values))
  b[pos, ] <- u * outer(1 / s, sqrt(values))
  if (any(!pos) && length(values)) {
    # rows of zero weight are not in A: project them like new data
    cross <- centered_cross(x[!pos, , drop = FALSE], x[pos, , drop = FALSE], mom$xbar, s)
    b[!pos, ] <- cross %*% sweep(u, 2L, sqrt(values), "/")
  }
  ytil <- sweep(y[pos, , drop = FALSE], 2L, mom$ybar) * s
  list(mode = "dual", values = values, dropped = kept$dropped,
       b = b, g = crossprod(u, ytil) * sqrt(values),
       x = x, w = w, xbar = mom$xbar, ybar = mom$ybar)
}

check_overflow <- function(gram, arg) {
  if (!all_finite(gram)) {
    stop_arg("`", arg, "` is too large in magnitude: its cross-products overflow; ",
             "rescale it")
  }
}

# Spectral filter of the ridge solution at one lambda: 1 / (Lambda + lambda),
# with directions where that is undefined dropped (pseudo-inverse).
spectral_filter <- function(values, lambda) {
  den <- values + lambda
  ifelse(den > 0, 1 / den, 0)
}

# beta(lambda), d x T.
engine_beta <- function(eng, lambda) {
  filt <- spectral_filter(eng$values, lambda)
  if (eng$mode == "primal") return(eng$v %*% (eng$g * filt))
  # dual: beta = X~' diag(w) B diag(1 / (Lambda (Lambda + lambda))) g
  coefs <- eng$w * (eng$b %*% (eng$g * (filt / eng$values)))
  mat_crossprod(eng$x, coefs) - outer(eng$xbar, colSums(coefs))
}

# The eigenvalues carry absolute errors of about eps * Lambda_1, so the LOO
# values at lambda lose about log10(Lambda_1 / (Lambda_r + lambda)) digits
# (Lambda_r the smallest direction kept); a direction dropped as numerically
# zero changes them by up to about its eigenvalue / lambda.  Beyond a condition
# number of 1e9, or a dropped share of 1e-6, fewer than about six correct digits
# may be left: say so.
warn_unreliable <- function(eng, lambda) {
  values <- eng$values
  if (!length(values)) return(invisible())
  cond <- max(values) / (min(values) + lambda)
  bad <- cond > 1e9 | (lambda > 0 & (eng$dropped %||% 0) > 1e-6 * lambda)
  if (!any(bad)) return(invisible())
  warning(sprintf(paste0(
    "leave-one-out values may be inaccurate (relative error above 1e-6) at %d value(s) ",
    "of `lambda` up to %s: they are below 1e-9 of the largest eigenvalue (%s) or near ",
    "eigenvalues dropped as numerically zero; use larger values of `lambda`"),
    sum(bad), format(max(lambda[bad]), digits = 3), format(max(values), digits = 3)),
    call. = FALSE)
}
