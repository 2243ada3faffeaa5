# The dual engine (DESIGN.md, section 5): one path for every kernel,
# the linear one included.  Over the rows of positive weight, with s = sqrt(w),
# the weighted double-centered kernel is Kt = D_s P K P' D_s = U Lambda U'
# (src/kernel.c).  Rows of the decomposition are evaluated in the complement
# form from U; rows of zero or negligible weight are projected like new data,
# B_0 = (K_0 - 1 kbar') (s o U) Lambda^(-1/2), and evaluated in the direct form.
# The dual coefficients at lambda are c = s o U (z / (Lambda + lambda)) with
# z = U'(s o (y - ybar)), and f(x) = ybar + sum_i c_i (k(x, x_i) - kbar_i).

# Rows whose weight is below this share of the largest are evaluated in the
# direct form: in the complement form their values are divided by sqrt(w_i),
# which amplifies the rounding of U by 1 / sqrt(w_i).
negligible_weight <- 1e-6

dual_engine <- function(kernel, x, y, w, intercept) {
  rows <- which(w > 0)
  center <- kernel_center(kernel, x, w, rows, intercept)
  src <- kernel_source(kernel, x, w, rows, center)
  eig <- tryCatch(
    .Call(C_rlsc_kernel_eigen, src$k, src$w, src$type, src$params, src$center, intercept),
    error = function(e) {
      if (kernel$name != "linear" || !grepl("overflow", conditionMessage(e))) stop(e)
      check_overflow(Inf, "x")
    })
  rm(src)
  if (kernel$name %in% c("custom", "precomputed")) warn_indefinite(eig$values)
  floor <- if (kernel$name == "linear") linear_floor(x, w, max(length(rows), ncol(x))) else 0
  if (kernel$name == "linear") check_underflow(eig$values, x, w, intercept)
  kept <- kept_directions(eig$values, length(rows), floor)
  keep <- kept$keep
  values <- eig$values[keep]
  n <- nrow(y)
  nt <- ncol(y)
  ybar <- if (intercept) colSums(w * y) / sum(w) else numeric(nt)
  s <- sqrt(w[rows])
  resid <- y - rep(ybar, each = n)
  z <- crossprod(eig$vectors, s * resid[rows, , drop = FALSE])
  u <- eig$vectors[, keep, drop = FALSE]
  rest <- eig$vectors[, !keep, drop = FALSE]
  kbar <- eig$kbar
  rm(eig)

  basis <- matrix(0, n, length(values))
  basis[rows, ] <- u
  q <- 1 - intercept * w / sum(w)
  q[rows] <- rowSums(rest^2)
  r0 <- resid
  r0[rows, ] <- rest %*% z[!keep, , drop = FALSE]
  direct <- !(w > negligible_weight * max(w))
  eng <- new_engine("dual", values = values, dropped = kept$dropped, basis = basis,
                    direct = direct, q = q, r0 = r0, g = sqrt(values) * z[keep, , drop = FALSE],
                    ybar = ybar, w = w, intercept = intercept, center = center,
                    kernel = kernel, x = if (kernel$name != "precomputed") x[rows, , drop = FALSE],
                    kbar = kbar, rows = rows)
  if (any(direct) && length(values)) {
    # direct rows: projected like new data, B_0 = (K_0 - 1 kbar')(s o U) / sqrt(Lambda)
    dr <- which(direct)
    k0 <- dual_cross(eng, x[dr, , drop = FALSE])
    su <- s * u
    eng$basis[dr, ] <- sweep(k0 %*% su, 2L, sqrt(values), "/")
    eng$q[dr] <- 1 - intercept * w[dr] / sum(w)
    eng$r0[dr, ] <- resid[dr, , drop = FALSE]
  }
  eng
}

# The rows of the linear and RBF kernels are shifted by the weighted mean
# before the product (src/kernel.c): no change for the RBF kernel nor for the
# double-centered linear kernel, but no cancellation of a large common offset.
# Without an intercept the linear kernel is not centered, so x is not shifted.
kernel_center <- function(kernel, x, w, rows, intercept) {
  shift <- (kernel$name == "linear" && intercept && !is_sparse(x)) || kernel$name == "rbf"
  if (!shift) return(NULL)
  drop(crossprod(w[rows], x[rows, , drop = FALSE])) / sum(w[rows])
}

# What src/kernel.c decomposes: the data and kernel type, or a kernel matrix
# computed here (custom kernels, and X X' of sparse x) as "precomputed".
kernel_source <- function(kernel, x, w, rows, center) {
  own <- function(k) list(k = k, w = w[rows], type = "precomputed", params = numeric(0), center = NULL)
  if (kernel$name == "custom") return(own(custom_kernel(kernel, x[rows, , drop = FALSE])))
  if (is_sparse(x)) return(own(as.matrix(Matrix::tcrossprod(x[rows, , drop = FALSE]))))
  list(k = x, w = w, type = kernel$name, params = kernel_params(kernel), center = center)
}

# K(newx, x_i) - kbar_i over the training rows i of positive weight: the
# centering of new rows that s'U = 0 leaves.  For a precomputed kernel `newx`
# is the cross-kernel with all n training rows.
dual_cross <- function(eng, newx) {
  kern <- eng$kernel
  k <- switch(kern$name,
    precomputed = newx[, eng$rows, drop = FALSE],
    custom = custom_kernel(kern, as.matrix(newx), eng$x),
    linear = if (is_sparse(newx) || is_sparse(eng$x)) {
      as.matrix(Matrix::tcrossprod(newx, eng$x))
    } else {
      .Call(C_rlsc_kernel_matrix, newx, eng$x, "linear", numeric(0), eng$center)
    },
    .Call(C_rlsc_kernel_matrix, as.matrix(newx), eng$x, kern$name, kernel_params(kern), eng$center))
  if (eng$intercept) k <- k - rep(eng$kbar, each = nrow(k))
  k
}

# The dual coefficients c (one per row of positive weight, m x T) at lambda:
# s o U (z / (Lambda + lambda)), z = g / sqrt(Lambda).  Rows kept in the direct
# form hold B = U sqrt(Lambda) / s in the basis instead of U.
dual_coefficients <- function(eng, lambda) {
  a <- eng$g / sqrt(eng$values) * spectral_filter(eng$values, lambda)
  sqrt(eng$w[eng$rows]) * (dual_u(eng) %*% a)
}

# U over the rows of positive weight; rows kept in the direct form hold
# B = U sqrt(Lambda) / s in the basis instead of U.
dual_u <- function(eng) {
  rows <- eng$rows
  u <- eng$basis[rows, , drop = FALSE]
  tiny <- eng$direct[rows]
  if (any(tiny)) {
    u[tiny, ] <- sqrt(eng$w[rows][tiny]) * sweep(u[tiny, , drop = FALSE], 2L, sqrt(eng$values), "/")
  }
  u
}

# Linear kernels report the slopes beta = X~' c (d x T) and the matching
# intercept; other kernels the dual coefficients, one per training row (zero
# for rows of zero weight), and the intercept b = ybar - kbar'c.
engine_coef.rlsc_dual <- function(eng, lambda) {
  cf <- dual_coefficients(eng, lambda)
  b <- eng$ybar - if (eng$intercept) drop(crossprod(eng$kbar, cf)) else 0
  if (eng$kernel$name == "linear") {
    beta <- centered_crossprod(eng$x, eng$center, cf)
    base <- b
    if (!is.null(eng$center)) b <- b - drop(crossprod(beta, eng$center))
    return(list(coef = beta, intercept = b, center = eng$center, base = base))
  }
  full <- matrix(0, length(eng$w), ncol(cf))
  full[eng$rows, ] <- cf
  list(coef = full, intercept = b)
}

# (X - 1 center')' c, centering dense X before the product (no cancellation of
# a large common offset); sparse X is not shifted (center NULL).
centered_crossprod <- function(x, center, c) {
  if (is.null(center)) return(as.matrix(Matrix::crossprod(x, c)))
  crossprod(x - rep(center, each = nrow(x)), c)
}

engine_decision.rlsc_dual <- function(eng, newx, lambda) {
  if (eng$kernel$name == "linear") return(linear_decision(newx, engine_coef(eng, lambda)))
  dual_cross(eng, newx) %*% dual_coefficients(eng, lambda) + rep(eng$ybar, each = nrow(newx))
}

warn_indefinite <- function(values) {
  top <- max(values, 0)
  low <- min(values, 0)
  if (low < -1e-8 * top) {
    warning("the kernel matrix is not positive semi-definite (smallest eigenvalue of the ",
            "centered kernel ", format(low, digits = 3), ", largest ", format(top, digits = 3),
            "); its negative eigenvalues are treated as 0", call. = FALSE)
  }
}
