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
# which amplifies the rounding of U (relative eps) to about
# eps sqrt(n max(w) / w_i), 1e-9 at this share.  Above it the complement form
# is the accurate one: the direct form computes 1 - h by cancellation, and a
# row of small weight can still be nearly interpolated at small lambda (a
# share of 2.4e-7 once gave LOO values off by 2.5e-5 there).  Near this share
# neither form is exact at small lambda (notes of issue 14).
negligible_weight <- 1e-12

dual_engine <- function(kernel, rows, intercept, scale = NULL) {
  x <- rows$x
  y <- rows$y
  w <- rows$w
  pos <- which(w > 0)
  check_dual_memory(length(pos))
  origin <- kernel_origin(kernel, x, y, w, intercept)
  src <- kernel_source(kernel, x, w, pos, origin, scale)
  gram <- kernel$gram
  if (!is.null(gram)) {
    # a banded candidate's sum of group kernels (bands.R), formed about the
    # origin of all rows: new rows are moved by the same
    origin[c("shift", "center")] <- gram[c("shift", "center")]
    kernel$gram <- NULL
  }
  eig <- tryCatch(
    c_kernel_eigen(src$k, src$w, src$type, src$params, src$shift, src$center, src$scale, intercept),
    error = function(e) {
      if (grepl("cannot allocate", conditionMessage(e))) {
        stop_dual_memory(length(pos), "more than R could allocate")
      }
      if (kernel$name != "linear" || !grepl("overflow", conditionMessage(e))) stop(e)
      check_overflow(Inf, "x", max(w) > 1)
    })
  rm(src)
  if (kernel$name %in% c("custom", "precomputed")) warn_indefinite(eig$values)
  # below the floor an eigenvalue is rounding: for the linear kernel the
  # rounding of a constant column, for other kernels that of the decomposition
  # and of the kernel's entries (dropping those is no loss worth a warning)
  floor <- if (kernel$name == "linear") linear_floor(origin$mom, max(length(pos), ncol(x)), scale) else 0
  noise <- max(floor, kernel_noise(eig$kmax, w[pos]))
  if (kernel$name == "linear") check_underflow(eig$values, origin$mom)
  kept <- kept_directions(eig$values, length(pos), floor, noise)
  keep <- kept$keep
  values <- eig$values[keep]
  n <- nrow(y)
  s <- sqrt(w[pos])
  resid <- (y - rep_each(origin$yshift, n)) - rep_each(origin$ybar, n)
  z <- c_crossprod(eig$vectors, s * resid[pos, , drop = FALSE])
  u <- eig$vectors[, keep, drop = FALSE]
  rest <- eig$vectors[, !keep, drop = FALSE]
  kbar <- eig$kbar
  rm(eig)

  basis <- matrix(0, n, length(values))
  basis[pos, ] <- u
  q <- 1 - intercept * w / sum(w)
  q[pos] <- rowSums(rest^2)
  r0 <- resid
  r0[pos, ] <- rest %*% z[!keep, , drop = FALSE]
  direct <- !(w > negligible_weight * max(w))
  eng <- new_engine("dual", values = values, dropped = kept$dropped, noise = noise,
                    light = light_rows(w[pos]),
                    g = sqrt(values) * z[keep, , drop = FALSE], yshift = origin$yshift,
                    ybar = origin$ybar, intercept = intercept, sumw = sum(w), shift = origin$shift,
                    center = origin$center, basis = basis, direct = direct, q = q, r0 = r0, w = w,
                    kernel = kernel, x = if (kernel$name != "precomputed") x,
                    kbar = kbar, rows = pos, scale = scale)
  if (any(direct)) {
    # direct rows: projected like new data, B_0 = (K_0 - 1 kbar')(s o U) / sqrt(Lambda),
    # and their values at lambda = Inf (also when no direction is kept)
    dr <- which(direct)
    if (length(values)) {
      k0 <- if (is.null(gram)) dual_cross(eng, x[dr, , drop = FALSE]) else {
        center_cross(eng, gram$k[dr, pos, drop = FALSE])   # the same kernel, already formed
      }
      eng$basis[dr, ] <- sweep(k0 %*% (s * u), 2L, sqrt(values), "/")
      attr(eng, "direct_err") <- new_row_factor(eng$basis[dr, , drop = FALSE], values)
    }
    eng$q[dr] <- 1 - intercept * w[dr] / sum(w)
    eng$r0[dr, ] <- resid[dr, , drop = FALSE]
  }
  eng
}

# The dual form holds about three n x n matrices at once (the kernel, which
# the eigendecomposition destroys, its eigenvectors, and their copy in the
# engine): when they cannot fit in the memory available, say so before
# starting, with the size, instead of R's allocation error midway (which is
# also turned into this message).
check_dual_memory <- function(n) {
  available <- available_memory()
  if (is.na(available) || 3 * 8 * as.double(n)^2 <= available) return(invisible())
  stop_dual_memory(n, paste("more than the", format_bytes(available), "available (`options(rlsc.memory)`)"))
}

stop_dual_memory <- function(n, than) {
  stop_arg(sprintf(paste0(
    "a kernel (or dual) fit with n = %d rows of positive weight needs about 3 x %s of memory ",
    "for its n x n matrices, %s; fit a subsample of the rows, or a linear model on explicit ",
    "features (with fewer columns than rows, the primal form)"),
    n, format_bytes(8 * as.double(n)^2), than))
}

# Bytes of memory available to this process: options(rlsc.memory), else
# what the system reports (Linux: MemAvailable of /proc/meminfo), NA where
# unknown.
available_memory <- function() {
  given <- getOption("rlsc.memory")
  if (!is.null(given)) {
    if (!is.numeric(given) || length(given) != 1L || is.na(given) || given <= 0) {
      stop_arg("option `rlsc.memory` must be one positive number of bytes (Inf: no limit), not ",
               if (is.numeric(given) && length(given) == 1L) format(given) else describe(given))
    }
    return(as.double(given))
  }
  info <- tryCatch(readLines("/proc/meminfo", warn = FALSE), error = function(e) character())
  line <- grep("^MemAvailable:", info, value = TRUE)
  if (length(line) != 1L) return(NA_real_)
  1024 * as.double(gsub("[^0-9]", "", line))
}

format_bytes <- function(b) {
  if (b >= 1e9) sprintf("%.1f GB", b / 1e9) else sprintf("%.0f MB", b / 1e6)
}

# The rounding error of the weighted centered kernel: its entries are
# computed to about eps times the largest entry of the kernel, kmax, so its
# eigenvalues carry errors of about 2 eps kmax sqrt(sum(w) max(w)) (the norm
# of a symmetric matrix of such independent errors, scaled by the weights;
# errors shared by a whole row go with the centering).  When the kernel's
# entries are far larger than its centered part (a polynomial kernel or a
# sparse x with a large common offset, a precomputed kernel with a large
# constant, an RBF kernel nearly constant over the data) that is most of the
# centered kernel: directions below it are noise, and warn_unreliable()
# compares lambda with it.
kernel_noise <- function(kmax, w) {
  2 * .Machine$double.eps * kmax * sqrt(sum(w)) * sqrt(max(w))
}

# The origin of the rows and the response: the shift and weighted means of
# moments.R (the shift is the first row of positive weight).  The linear and
# RBF kernels subtract it before the product (src/kernel.c): no change for the
# RBF kernel nor for the double-centered linear kernel, but no cancellation of
# a large common offset.  Without an intercept the linear kernel is not
# centered, so x is not moved; nor is sparse x or x of other kernels.
# The moments of x (for the linear kernel's floor and underflow check) come
# from the same pass, without a Gram.
# The RBF kernel is moved with or without an intercept: its distances do not
# change, and computed far from the origin they lose every digit (a column
# at 5.7e4 with sigma = 5.6e-4 once lost two of six directions).
kernel_origin <- function(kernel, x, y, w, intercept) {
  rbf <- kernel$name == "rbf"
  moved <- (kernel$name == "linear" && intercept && !is_sparse(x)) || rbf
  columns <- kernel$name %in% c("linear", "rbf")
  # the means of x and of y apart: together the pass would also form x'y
  # (d x T), which no kernel needs (a third of a banded dual search's time)
  ymom <- block_moments(matrix(0, nrow(x), 0L), y, w, intercept || rbf, gram = FALSE)
  mom <- if (columns) block_moments(x, y[, 0L, drop = FALSE], w, intercept || rbf, gram = FALSE) else ymom
  yshift <- if (intercept) ymom$yshift else numeric(ncol(y))
  ybar <- if (intercept) ymom$ybar else numeric(ncol(y))
  list(shift = if (moved) mom$shift, center = if (moved) mom$xbar, yshift = yshift, ybar = ybar,
       mom = mom)
}

# x[rows, ], but x itself when `rows` (increasing, as which() gives them) are
# all its rows: x of d > n takes gigabytes, and each copy a pass over them.
take_rows <- function(x, rows) if (length(rows) == nrow(x)) x else x[rows, , drop = FALSE]

# What src/kernel.c decomposes: the data and kernel type, or a kernel matrix
# computed here (custom kernels, X X' of sparse x, and the weighted sum of
# group kernels of a banded candidate, `kernel$gram`) as "precomputed".
kernel_source <- function(kernel, x, w, rows, origin, scale) {
  own <- function(k) {
    list(k = k, w = w[rows], type = "precomputed", params = numeric(0), shift = NULL,
         center = NULL, scale = NULL)
  }
  if (!is.null(kernel$gram)) return(own(kernel$gram$k[rows, rows, drop = FALSE]))
  if (kernel$name == "custom") return(own(custom_kernel(kernel, scaled_rows(x, rows, scale))))
  if (is_sparse(x)) return(own(as.matrix(Matrix::tcrossprod(scaled_rows(x, rows, scale)))))
  list(k = x, w = w, type = kernel$name, params = kernel_params(kernel), shift = origin$shift,
       center = origin$center, scale = scale)
}

# Rows of x divided by the column scales (for kernels computed in R).
scaled_rows <- function(x, rows, scale) {
  x <- take_rows(x, rows)
  if (is.null(scale)) x else scale_columns(x, scale)
}

# The training rows of a dual engine: those of positive weight of x, which
# the engine holds whole (as the data gave it: no copy), taken here when
# new rows or coefficients need them.  (The fold engines of K-fold, rows of
# zero weight held out, need them only for their held-out rows, and those of
# a banded candidate's kernel of groups not at all: taking them in each cost
# a fifth of a banded search of 3000 columns.)
dual_x <- function(eng) take_rows(eng$x, eng$rows)

# K(newx, x_i) - kbar_i over the training rows i of positive weight: the
# centering of new rows that s'U = 0 leaves.  For a precomputed kernel `newx`
# is the cross-kernel with all n training rows.
dual_cross <- function(eng, newx) {
  kern <- eng$kernel
  x <- if (kern$name != "precomputed") dual_x(eng)
  if (!is.null(kern$bands)) {
    # multiple-kernel ridge (bands.R): the candidate's weighted sum of group kernels
    return(center_cross(eng, weighted_kernel(kern, kern$bands$group, kern$bands$weights,
                                             as.matrix(newx), x, eng$shift, eng$center,
                                             eng$scale %||% rep(1, ncol(x)))))
  }
  k <- switch(kern$name,
    precomputed = newx[, eng$rows, drop = FALSE],
    custom = custom_kernel(kern, scaled_rows(as.matrix(newx), seq_len(nrow(newx)), eng$scale),
                           scaled_rows(x, seq_len(nrow(x)), eng$scale)),
    linear = if (is_sparse(newx) || is_sparse(x)) {
      as.matrix(Matrix::tcrossprod(scaled_rows(newx, seq_len(nrow(newx)), eng$scale),
                                   scaled_rows(x, seq_len(nrow(x)), eng$scale)))
    } else {
      c_kernel_matrix(newx, x, "linear", numeric(0), eng$shift, eng$center, eng$scale)
    },
    c_kernel_matrix(as.matrix(newx), x, kern$name, kernel_params(kern), eng$shift,
                    eng$center, eng$scale))
  center_cross(eng, k)
}

# A cross-kernel with the training rows, centered as s'U = 0 leaves it.
center_cross <- function(eng, k) if (eng$intercept) k - rep_each(eng$kbar, nrow(k)) else k

# The dual coefficients c (one per row of positive weight, m x T) at lambda:
# s o U (z / (Lambda + lambda)), z = g / sqrt(Lambda).  Rows kept in the direct
# form hold B = U sqrt(Lambda) / s in the basis instead of U.
dual_coefficients <- function(eng, lambda) {
  matrix(dual_coefficient_path(eng, lambda), ncol = ncol(eng$g))
}

# The same at every lambda of a grid (m x T x L), in one product with U.
dual_coefficient_path <- function(eng, lambda) {
  nt <- ncol(eng$g)
  nl <- length(lambda)
  filt <- matrix(vapply(lambda, function(l) spectral_filter(eng$values, l), eng$values),
                 length(eng$values), nl)
  a <- (eng$g / sqrt(eng$values))[, rep(seq_len(nt), nl), drop = FALSE] *
    filt[, rep(seq_len(nl), each = nt), drop = FALSE]
  array(sqrt(eng$w[eng$rows]) * (dual_u(eng) %*% a), c(length(eng$rows), nt, nl))
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
#' @export
#' @noRd
engine_coef.rlsc_dual <- function(eng, lambda) dual_coef_of(eng, dual_coefficients(eng, lambda))

# engine_coef() of dual coefficients `cf`: m x T at one lambda, or m x (T L)
# for L lambdas side by side (engine_coef_path()).
dual_coef_of <- function(eng, cf) {
  b <- rep_len(eng$yshift + eng$ybar, ncol(cf)) - if (eng$intercept) drop(crossprod(eng$kbar, cf)) else 0
  if (eng$kernel$name == "linear") {
    # f(x) = b + ((x - shift - center) / scale)' beta_s: slopes in the units of x
    beta <- centered_crossprod(dual_x(eng), eng$shift, eng$center, cf)
    if (!is.null(eng$scale)) beta <- beta / eng$scale^2
    base <- b
    if (!is.null(eng$center)) b <- b - drop(crossprod(beta, eng$shift + eng$center))
    return(list(coef = beta, intercept = b, shift = eng$shift, center = eng$center, base = base))
  }
  full <- matrix(0, length(eng$w), ncol(cf))
  full[eng$rows, ] <- cf
  list(coef = full, intercept = b)
}

# ((X - 1 shift') - 1 center')' c, moving dense X before the product (no
# cancellation of a large common offset); sparse X is not moved (center NULL),
# nor X without an intercept (center NULL too: dense X needs no Matrix then).
centered_crossprod <- function(x, shift, center, c) {
  if (is.null(center)) return(as.matrix(if (is_sparse(x)) Matrix::crossprod(x, c) else crossprod(x, c)))
  crossprod((x - rep_each(shift, nrow(x))) - rep_each(center, nrow(x)), c)
}

# Decision values of new rows, with the bound of their rounding error (see
# new_row_factor()) as attribute "bound", which predict() compares with the
# scale of y (warn_prediction()); a snapshot has no U to bound them with.
#' @export
#' @noRd
engine_decision.rlsc_dual <- function(eng, newx, lambda) {
  if (eng$kernel$name == "linear") return(linear_decision(newx, engine_coef(eng, lambda)))
  dual_decision(dual_new_rows(eng, newx), eng, lambda)
}

# What the decision values of new rows take from them at any lambda: their
# cross-kernel with the training rows and their coordinates in the
# eigenbasis (an n_new x n x r product), formed once for several lambdas
# (a multiple-kernel fit's response columns each at their own,
# engine_decision.rlsc_banded()).
dual_new_rows <- function(eng, newx) {
  k0 <- dual_cross(eng, newx)
  values <- eng$values
  list(k0 = k0, b0 = if (length(values)) {
    sweep(k0 %*% (sqrt(eng$w[eng$rows]) * dual_u(eng)), 2L, sqrt(values), "/")
  })
}

# Decision values at lambda of new rows from dual_new_rows(), with the bound
# of their rounding error.
dual_decision <- function(new, eng, lambda) {
  k0 <- new$k0
  f <- k0 %*% dual_coefficients(eng, lambda) + rep_each(eng$yshift + eng$ybar, nrow(k0))
  values <- eng$values
  if (length(values)) {
    bound <- new_row_factor(new$b0, values) %o% lambda_factor(eng$g, values, lambda)
    # rows of negligible weight: their U, rebuilt from their own B_0, carries
    # that error into their coefficients c_i = w_i B_0i (g / (Lambda (Lambda + lambda)))
    tiny <- which(eng$direct[eng$rows])
    if (length(tiny)) {
      dr <- eng$rows[tiny]
      dc <- eng$w[dr] * new_row_factor(eng$basis[dr, , drop = FALSE], values) %o%
        lambda_factor(eng$g / values, values, lambda)
      bound <- bound + abs(k0[, tiny, drop = FALSE]) %*% dc
    }
    attr(f, "bound") <- bound
  }
  f
}

# `scale`: y_scale() of the training response.
warn_prediction <- function(bound, scale, lambda) {
  bad <- rowSums(bound > 1e-6 * rep_each(scale, nrow(bound))) > 0
  if (!any(bad)) return(invisible())
  warning(sprintf(paste0(
    "predictions at %d new row(s) may be inaccurate (relative error above 1e-6) at `lambda` ",
    "= %s: the rounding of the eigenvectors of small eigenvalues reaches new rows far ",
    "more than the training rows; use a larger `lambda`"),
    sum(bad), format(lambda, digits = 3)), call. = FALSE)
}

# Rows evaluated like new data (new rows in predict(), rows of zero or
# negligible weight in the path) are less accurate than rows of the
# decomposition: the eigenvectors of small eigenvalues carry rounding from
# the large ones, about eps Lambda_1 / Lambda_j of u_j, which a new row's
# projections a_j = u_j'(s o k0) carry into the directions k of small
# Lambda_k + lambda.  The error of f - ybar is about
#     eps Lambda_1 (sum_j |a_j| / Lambda_j) (sum_k |z_k| / (Lambda_k + lambda)),
# a row factor times a factor of lambda (within a factor 5 above the errors
# fuzzed problems showed; the rows of the decomposition need no such bound,
# their a_j being u_ij Lambda_j / s_i).  With a_j = B_0j sqrt(Lambda_j) and
# z_k = g_k / sqrt(Lambda_k):
new_row_factor <- function(b0, values) {
  .Machine$double.eps * max(values) * drop(abs(b0) %*% (1 / sqrt(values)))
}

lambda_factor <- function(g, values, lambda) {
  colSums(abs(g) / sqrt(values) / (values + lambda))
}

# The number of rows of zero or negligible weight whose fitted and LOO values
# may be off by more than 1e-6 of the scale of y, at each lambda: where the
# estimate passes `limit`, share_limit for the warning (a fuzzed RBF fit
# was off by 1.4e-6 where it gave 8.6e-7), 1e-6 for where the default grid
# stops (100 times above it, direct_rows_lambda()).
direct_rows_loose <- function(eng, y, lambda, limit = share_limit) {
  rows <- attr(eng, "direct_err")
  if (is.null(rows)) return(rep(0, length(lambda)))
  scale <- y_scale(y)
  vapply(lambda, function(l) {
    est <- rows %o% (lambda_factor(eng$g, eng$values, l) / scale)   # rows x T
    sum(apply(est > limit, 1L, any))
  }, 1)
}

y_scale <- function(y) apply(y, 2L, function(col) max(abs(col - mean(col))))

# The smallest lambda (to about 1%) at which no row of zero or negligible
# weight is loose (direct_rows_loose()): the error bound decreases with
# lambda, so a bisection in log(lambda) between the spectrum's ends.
direct_rows_lambda <- function(eng, y) {
  if (is.null(attr(eng, "direct_err")) || !length(eng$values)) return(0)
  loose <- function(l) direct_rows_loose(eng, y, l, 1e-6) > 0
  hi <- 10 * sum(eng$values)
  lo <- hi * 1e-16
  if (!loose(lo)) return(0)
  if (loose(hi)) return(hi)
  while (log(hi / lo) > 0.01) {
    mid <- sqrt(hi * lo)
    if (loose(mid)) lo <- mid else hi <- mid
  }
  hi
}

warn_direct_rows <- function(loose, lambda) {
  if (!any(loose > 0)) return(invisible())
  warning(sprintf(paste0(
    "fitted and leave-one-out values of up to %d row(s) of zero or negligible weight ",
    "(evaluated like new rows) may be inaccurate (relative error above 1e-6) at %d value(s) ",
    "of `lambda` up to %s: the rounding of the eigenvectors of small eigenvalues reaches ",
    "rows outside the decomposition far more than the others; use larger values of `lambda`"),
    max(loose), sum(loose > 0), format(max(lambda[loose > 0]), digits = 3)), call. = FALSE)
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
