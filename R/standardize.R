# standardize = TRUE: the columns of x are divided by their weighted standard
# deviations before fitting (about zero without an intercept), as glmnet and
# MASS::lm.ridge do, so the penalty treats every column alike whatever its
# units.  Coefficients and predictions are reported on the original scale.

column_scale <- function(x, w, intercept) {
  sw <- sum(w)
  if (is_sparse(x)) {
    mean_sq <- as.vector(Matrix::crossprod(x^2, w)) / sw
    m <- if (intercept) as.vector(Matrix::crossprod(x, w)) / sw else 0
    v <- pmax(mean_sq - m^2, 0)   # raw moments: x stays sparse, as for its Gram
  } else {
    m <- if (intercept) drop(crossprod(w, x)) / sw else numeric(ncol(x))
    v <- drop(crossprod(w, sweep(x, 2L, m)^2)) / sw   # centered: no cancellation
    mean_sq <- v + m^2
  }
  scale_from_variance(v, mean_sq)
}

# The scale of columns of weighted variance v and mean square mean_sq.
# Constant columns (up to rounding) are left as they are: scaling their
# rounding noise up to unit variance would invent a signal.
scale_from_variance <- function(v, mean_sq) {
  s <- sqrt(v)
  s[!(s > 1e-10 * sqrt(mean_sq))] <- 1
  s
}

scale_columns <- function(x, s) {
  if (!is_sparse(x)) return(x / rep(s, each = nrow(x)))
  out <- x %*% Matrix::Diagonal(x = 1 / s)
  dimnames(out) <- dimnames(x)   # the product drops the column names
  out
}
