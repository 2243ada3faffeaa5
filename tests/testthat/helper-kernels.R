# Slow references for kernel fits: kernel matrices written out in R, and the
# bordered system of the weighted kernel RLS solved with solve() on the rows
# of positive weight,
#   [K + lambda W^-1, 1; 1', 0] [c; b] = [y; 0]   (without intercept: no border).

ref_sqdist <- function(x, z) outer(rowSums(x^2), rowSums(z^2), "+") - 2 * tcrossprod(x, z)
ref_rbf <- function(x, z = x, sigma) exp(-pmax(ref_sqdist(x, z), 0) / (2 * sigma^2))
ref_poly <- function(x, z = x, degree, scale = 1, offset = 1) (scale * tcrossprod(x, z) + offset)^degree

# Dual coefficients (n x T, zero for rows of zero weight) and intercepts.
ref_bordered <- function(k, y, w = rep(1, nrow(k)), lambda, intercept = TRUE) {
  y <- as.matrix(y)
  pos <- which(w > 0)
  m <- length(pos)
  a <- k[pos, pos, drop = FALSE] + lambda * diag(1 / w[pos], m)
  rhs <- y[pos, , drop = FALSE]
  if (intercept) {
    a <- rbind(cbind(a, 1), c(rep(1, m), 0))
    rhs <- rbind(rhs, 0)
  }
  sol <- solve(a, rhs)
  cf <- matrix(0, nrow(k), ncol(y))
  cf[pos, ] <- sol[seq_len(m), , drop = FALSE]
  list(c = cf, b = if (intercept) sol[m + 1L, ] else rep(0, ncol(y)))
}

ref_kernel_predict <- function(fit, knew) {
  knew %*% fit$c + rep(fit$b, each = nrow(knew))
}

# Brute-force LOO: refit without each row of positive weight; rows of zero
# weight are not in the fit and get the full fit's prediction.
ref_kernel_loo <- function(k, y, w = rep(1, nrow(k)), lambda, intercept = TRUE) {
  y <- as.matrix(y)
  out <- ref_kernel_predict(ref_bordered(k, y, w, lambda, intercept), k)
  for (i in which(w > 0)) {
    wi <- w
    wi[i] <- 0
    out[i, ] <- ref_kernel_predict(ref_bordered(k, y, wi, lambda, intercept), k[i, , drop = FALSE])
  }
  out
}

# Diagonal of the hat matrix of weighted kernel RLS: the fit K c + b of the
# bordered system is linear in y, so its columns are the fits of unit vectors.
ref_kernel_hat <- function(k, w = rep(1, nrow(k)), lambda, intercept = TRUE) {
  sol <- ref_bordered(k, diag(nrow(k)), w, lambda, intercept)
  diag(ref_kernel_predict(sol, k))
}

# A smooth nonlinear signal in d dimensions, for kernel fits.
sine_data <- function(n, seed, d = 2) {
  set.seed(seed)
  x <- matrix(runif(n * d, -2, 2), n)
  list(x = x, y = sin(2 * x[, 1]) + 0.5 * x[, 2]^2 + rnorm(n, sd = 0.3))
}

# The explicit feature map of the polynomial kernel (scale x'z + offset)^2,
# without its constant feature (the unpenalized intercept absorbs it): a
# kernel fit equals the linear ridge fit on these columns, which ref_loo_qr()
# solves stably however large a common offset of x is.
poly2_features <- function(x, scale = 1, offset = 1) {
  d <- ncol(x)
  pairs <- which(upper.tri(diag(d), diag = TRUE), arr.ind = TRUE)
  quad <- vapply(seq_len(nrow(pairs)), function(p) {
    i <- pairs[p, 1]
    j <- pairs[p, 2]
    (if (i == j) 1 else sqrt(2)) * x[, i] * x[, j]
  }, numeric(nrow(x)))
  cbind(scale * matrix(quad, nrow(x)), sqrt(2 * scale * offset) * x)
}
