# Sparse `x` (a Matrix "sparseMatrix"): the same engine outputs as the dense
# forms, with the centering done implicitly so X is never densified.  The
# Gram matrices come from the raw sparse cross-products minus the rank-one
# mean terms; that is exact in exact arithmetic and accurate whenever the
# column means are not large compared with the columns' spread, the usual
# situation for sparse data.

is_sparse <- function(x) inherits(x, "sparseMatrix")

# Dense or sparse design, checked; dense goes through as_design_matrix().
as_design <- function(x, arg = "x") {
  if (!is_sparse(x)) return(as_design_matrix(x, arg))
  x <- methods::as(methods::as(methods::as(x, "dMatrix"), "generalMatrix"), "CsparseMatrix")
  if (!all_finite(x@x)) stop_arg("`", arg, "` must not contain NA, NaN or Inf values")
  x
}

mat_crossprod <- function(x, y) {
  if (is_sparse(x)) as.matrix(Matrix::crossprod(x, y)) else crossprod(x, y)
}

# (X1 - 1 xbar') (X2 - 1 xbar')' diag(s): the centered cross-kernel.
centered_cross <- function(x1, x2, xbar, s) {
  if (!is_sparse(x1)) {
    return(tcrossprod(sweep(x1, 2L, xbar), sweep(x2, 2L, xbar)) * rep(s, each = nrow(x1)))
  }
  raw <- as.matrix(Matrix::tcrossprod(x1, x2))
  m1 <- as.vector(x1 %*% xbar)
  m2 <- as.vector(x2 %*% xbar)
  (raw - outer(m1, m2, "+") + sum(xbar^2)) * rep(s, each = nrow(x1))
}

sparse_means <- function(x, y, w, intercept) {
  if (!intercept) return(list(xbar = numeric(ncol(x)), ybar = numeric(ncol(y))))
  list(xbar = as.vector(Matrix::crossprod(x, w)) / sum(w), ybar = colSums(w * y) / sum(w))
}

engine_primal_sparse <- function(x, y, w, intercept) {
  mom <- sparse_means(x, y, w, intercept)
  sx <- Matrix::Diagonal(x = sqrt(w)) %*% x
  gram <- as.matrix(Matrix::crossprod(sx)) - sum(w) * tcrossprod(mom$xbar)
  check_overflow(gram, "x")
  sxy <- as.matrix(Matrix::crossprod(x, w * sweep(y, 2L, mom$ybar)))
  eig <- .Call(C_rlsc_eigen, gram)
  kept <- positive_spectrum(eig$values, x, w, intercept)
  v <- eig$vectors[, kept$keep, drop = FALSE]
  b <- as.matrix(x %*% v) - rep(as.vector(crossprod(mom$xbar, v)), each = nrow(x))
  list(mode = "primal", values = eig$values[kept$keep],
       dropped = kept$dropped, b = b, g = crossprod(v, sxy), v = v, xbar = mom$xbar, ybar = mom$ybar)
}

engine_dual_sparse <- function(x, y, w, intercept) {
  mom <- sparse_means(x, y, w, intercept)
  pos <- w > 0
  s <- sqrt(w[pos])
  xp <- x[pos, , drop = FALSE]
  gram <- centered_cross(xp, xp, mom$xbar, s) * s
  gram <- (gram + t(gram)) / 2
  check_overflow(gram, "x")
  dual_from_gram(gram, x, y, w, intercept, mom)
}
