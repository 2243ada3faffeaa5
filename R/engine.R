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
# rest is the pseudo-inverse at lambda = 0 and changes nothing for lambda > 0.
positive_spectrum <- function(values, n, d) {
  top <- max(values, 0)
  values > top * max(n, d) * .Machine$double.eps
}

engine_primal <- function(x, y, w, intercept) {
  mom <- .Call(C_rlsc_moments, x, y, w, intercept, TRUE)
  check_overflow(mom$sxx, "x")
  eig <- .Call(C_rlsc_eigen, mom$sxx)
  keep <- positive_spectrum(eig$values, nrow(x), ncol(x))
  v <- eig$vectors[, keep, drop = FALSE]
  list(mode = "primal", values = eig$values[keep], spectrum = pmax(eig$values, 0),
       b = .Call(C_rlsc_project, x, mom$xbar, v), g = crossprod(v, mom$sxy),
       v = v, xbar = mom$xbar, ybar = mom$ybar)
}

engine_dual <- function(x, y, w, intercept) {
  mom <- .Call(C_rlsc_moments, x, y, w, intercept, FALSE)
  gram <- .Call(C_rlsc_dual_gram, x, w, mom$xbar)
  check_overflow(gram, "x")
  dual_from_gram(gram, x, y, w, mom)
}

# The dual engine from the weighted centered Gram A A' of the rows of positive
# weight (and the means `mom$xbar`, `mom$ybar`).
dual_from_gram <- function(gram, x, y, w, mom) {
  eig <- .Call(C_rlsc_eigen, gram)
  keep <- positive_spectrum(eig$values, nrow(x), ncol(x))
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
  list(mode = "dual", values = values, spectrum = pmax(eig$values, 0),
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
