# A deterministic generator of random problems and an independent
# brute-force reference for each (test-fuzz.R; `make fuzz` runs thousands).
# Shapes: n from 2 to 300 and d from 0 to 400 (both forms), small ones most
# often.  The reference refits without each point by the SVD of the weighted,
# centered features (the columns of x, or the eigenfeatures F F' = K of a
# kernel matrix computed in R), so it shares no code with the package: no
# Gram matrix, no spectral path over lambda, no complement form.  Above 40
# rows it reads the LOO values off the dense hat matrix of that SVD instead
# of n refits (fuzz_reference_hat()).

# Weighted ridge fit on features f (n x p) with an unpenalized intercept:
# coefficients list(b, beta) from the SVD U S V' of sqrt(w) (f - fbar),
# beta = V diag(s / (s^2 + lambda)) U' sqrt(w) (y - ybar).  The columns are
# first shifted by `shift` (a row of f, absorbed by the intercept), so that a
# large common offset costs no digits.  Singular values below 1e-12 of the
# largest are rounding of exactly collinear columns and are dropped (the
# minimum-norm solution, as at lambda = 0).
fuzz_ridge <- function(f, y, w, lambda, intercept, shift) {
  if (intercept) {
    f <- f - rep(shift, each = nrow(f))
    fbar <- colSums(w * f) / sum(w)
    ybar <- colSums(w * y) / sum(w)
  } else {
    fbar <- numeric(ncol(f))
    ybar <- numeric(ncol(y))
  }
  beta <- matrix(0, ncol(f), ncol(y))
  if (ncol(f)) {
    a <- sqrt(w) * (f - rep(fbar, each = nrow(f)))
    sv <- svd(a)
    keep <- sv$d > 1e-12 * max(sv$d, 0)
    filt <- sv$d[keep] / (sv$d[keep]^2 + lambda)
    rhs <- crossprod(sv$u[, keep, drop = FALSE], sqrt(w) * (y - rep(ybar, each = nrow(y))))
    beta <- sv$v[, keep, drop = FALSE] %*% (filt * rhs)
  }
  list(b = ybar - drop(crossprod(fbar, beta)), beta = beta, shift = if (intercept) shift)
}

fuzz_predict <- function(cf, f) {
  if (!is.null(cf$shift)) f <- f - rep(cf$shift, each = nrow(f))
  f %*% cf$beta + rep(cf$b, each = nrow(f))
}

# LOO values (n x T), fitted values and predictions at `fnew` of the weighted
# ridge fit on features f; rows of zero weight get the full fit's prediction.
# Refits for up to 40 rows, the hat matrix above.
fuzz_reference <- function(f, y, w, lambda, intercept, fnew) {
  if (nrow(f) > 40L) return(fuzz_reference_hat(f, y, w, lambda, intercept, fnew))
  shift <- f[which.max(w), ]
  fit1 <- function(keep) fuzz_ridge(f[keep, , drop = FALSE], y[keep, , drop = FALSE], w[keep],
                                    lambda, intercept, shift)
  cf <- fit1(seq_len(nrow(f)))
  fitted <- fuzz_predict(cf, f)
  loo <- fitted
  for (i in which(w > 0)) loo[i, ] <- fuzz_predict(fit1(-i), f[i, , drop = FALSE])
  list(loo = loo, fitted = fitted, new = fuzz_predict(cf, fnew))
}

# The same from the dense hat matrix of the fit: with U S V' the SVD of
# sqrt(w) (f - fbar) (directions kept as fuzz_ridge() keeps them), 1 - h_i is
# the squared norm of row i of the orthonormal complement of sqrt(w) (with an
# intercept) and U, plus sum_k U_ik^2 lambda / (S_k^2 + lambda): a sum of
# non-negative terms, exact even where h_i is near 1.  The LOO value is
# y_i - (y_i - f_i) / (1 - h_i), undefined (NA) where 1 - h_i is below
# 1e-10 (the package says so there).
fuzz_reference_hat <- function(f, y, w, lambda, intercept, fnew) {
  n <- nrow(f)
  shift <- f[which.max(w), ]
  cf <- fuzz_ridge(f, y, w, lambda, intercept, shift)
  fitted <- fuzz_predict(cf, f)
  pos <- which(w > 0)
  s <- sqrt(w[pos])
  g <- f[pos, , drop = FALSE]
  if (intercept) {   # (the shift, a row, is absorbed by the intercept)
    g <- g - rep(shift, each = length(pos))
    g <- g - rep(colSums(w[pos] * g) / sum(w[pos]), each = length(pos))
  }
  a <- s * g
  sv <- if (ncol(a)) svd(a, nv = 0) else list(d = numeric(), u = matrix(0, length(pos), 0))
  keep <- sv$d > 1e-12 * max(sv$d, 0)
  u <- sv$u[, keep, drop = FALSE]
  basis <- cbind(if (intercept) s / sqrt(sum(s^2)), u)
  q <- qr(basis)
  rank <- q$rank
  # u of a singular value near 1e-12 of the largest has a component of about
  # eps sigma_1 / sigma_k along sqrt(w), which the centering removed: with it
  # the intercept, u and the complement would not sum to the identity (seed
  # 88: 1 - h off by 2e-6).  The orthonormalized basis spans the same space
  # and differs from u only in those directions, where lambda / (S^2 + lambda)
  # is 1 anyway.
  if (intercept && ncol(u) && identical(q$pivot, seq_len(ncol(basis)))) {
    u <- (qr.Q(q) * rep(sign(diag(qr.R(q))), each = nrow(basis)))[, -1L, drop = FALSE]
  }
  perp <- if (rank < length(pos)) qr.Q(q, complete = TRUE)[, -seq_len(rank), drop = FALSE]
  omh <- (if (is.null(perp)) 0 else rowSums(perp^2)) +
    if (ncol(u)) drop(u^2 %*% (lambda / (sv$d[keep]^2 + lambda))) else 0
  # the residuals as the same sums, sqrt(w) e = (P P' + U diag(lambda / (S^2 +
  # lambda)) U') sqrt(w) (y - ybar): y - f would cancel where the fit nearly
  # interpolates (rows of negligible weight, divided by sqrt(w), take y - f)
  yc <- y[pos, , drop = FALSE]
  if (intercept) yc <- yc - rep(colSums(w[pos] * yc) / sum(w[pos]), each = length(pos))
  sy <- s * yc
  se <- (if (is.null(perp)) 0 else perp %*% crossprod(perp, sy)) +
    if (ncol(u)) u %*% ((lambda / (sv$d[keep]^2 + lambda)) * crossprod(u, sy)) else 0
  e <- se / s
  tiny <- w[pos] <= 1e-12 * max(w)
  e[tiny, ] <- y[pos[tiny], , drop = FALSE] - fitted[pos[tiny], , drop = FALSE]
  loo <- fitted
  ok <- omh > 1e-10
  loo[pos, ] <- y[pos, , drop = FALSE] - e / omh
  loo[pos[!ok], ] <- NA
  list(loo = loo, fitted = fitted, new = fuzz_predict(cf, fnew))
}

# Eigenfeatures of a positive semi-definite kernel matrix over the training
# rows, and the same map for cross-kernel rows: F = U sqrt(Lambda),
# F_new = K_new U / sqrt(Lambda), keeping eigenvalues above n eps times the
# largest.  With an intercept the kernel is first double-centered (unweighted,
# by the mean kernel row): that changes the fit only by a constant, which the
# intercept absorbs (the dual coefficients sum to 0), and it removes a large
# constant part whose rounding would otherwise swamp the small eigenvalues.
kernel_features <- function(k, knew, intercept) {
  if (intercept) {
    kbar <- rowMeans(k)
    kk <- mean(kbar)
    knew <- knew - rowMeans(knew) - rep(kbar, each = nrow(knew)) + kk
    k <- k - kbar - rep(kbar, each = nrow(k)) + kk
  }
  e <- eigen(k, symmetric = TRUE)
  keep <- e$values > max(e$values, 0) * nrow(k) * .Machine$double.eps
  u <- e$vectors[, keep, drop = FALSE]
  s <- sqrt(e$values[keep])
  list(f = u * rep(s, each = nrow(u)), fnew = (knew %*% u) / rep(s, each = nrow(knew)))
}

# The explicit features of the polynomial kernel (scale x'z + offset)^degree:
# every monomial x^a with |a| <= degree, weighted by
# sqrt(degree! / (a! (degree - |a|)!) scale^|a| offset^(degree - |a|)), so that
# their cross-products are the kernel.  Centering them is exact, where the
# double centering of the kernel matrix cancels digits.
poly_features <- function(x, degree, scale, offset) {
  d <- ncol(x)
  powers <- as.matrix(expand.grid(rep(list(0:degree), d)))
  powers <- powers[rowSums(powers) <= degree, , drop = FALSE]
  coef <- apply(powers, 1, function(a) {
    factorial(degree) / (prod(factorial(a)) * factorial(degree - sum(a))) *
      scale^sum(a) * offset^(degree - sum(a))
  })
  powers <- powers[coef > 0, , drop = FALSE]
  coef <- coef[coef > 0]
  f <- vapply(seq_len(nrow(powers)), function(m) {
    sqrt(coef[m]) * apply(x^rep(powers[m, ], each = nrow(x)), 1, prod)
  }, numeric(nrow(x)))
  matrix(f, nrow(x))
}

fuzz_pick <- function(...) {
  v <- c(...)
  v[sample.int(length(v), 1L)]
}

# The problem of case `seed`: the arguments of rlsc(), and what the reference
# needs (the kernel as an R function of two matrices, or NULL for linear).
fuzz_case <- function(seed) {
  set.seed(seed)
  kind <- fuzz_pick("linear", "linear", "linear", "sparse", "rbf", "polynomial", "precomputed")
  large <- runif(1) < 0.25   # up to 300 rows and 400 columns
  n <- if (large) sample(26:300, 1L) else sample(2:25, 1L)
  d <- if (kind %in% c("rbf", "polynomial", "precomputed")) sample(1:6, 1L) else if (large) {
    sample(1:400, 1L)
  } else {
    sample(c(0:12, 20, 40), 1L)
  }
  x <- matrix(rnorm(n * d), n, d)
  if (d && runif(1) < 0.3) x <- x * rep(10^runif(d, -3, 3), each = n)      # column scales
  if (d && runif(1) < 0.25) x <- x + rep(fuzz_pick(10, 1e3, 1e6, 1e8) * rnorm(d), each = n)  # offsets
  if (d >= 2 && runif(1) < 0.2) x[, 2] <- x[, 1]                            # duplicated
  if (d && runif(1) < 0.15) x[, d] <- x[1, d]                               # constant
  if (runif(1) < 0.1) x <- round(x)                                          # ties
  if (n >= 4 && runif(1) < 0.15) {                                           # tied rows
    twins <- sample.int(n, sample(2:max(2L, n %/% 3L), 1L))
    x[twins[-1L], ] <- x[rep(twins[1L], length(twins) - 1L), ]
  }
  x <- x * 10^runif(1, -3, 3)
  if (kind == "sparse" && d) x[abs(x) < stats::quantile(abs(x), 0.5)] <- 0
  # new rows among the training rows (weights summing to 1): extrapolating far
  # along a direction the data do not span tests the problem, not the package
  mix <- matrix(runif(2 * n), 2)

  w <- switch(fuzz_pick("none", "none", "unif", "zeros", "extreme", "tiny", "int"),
    none = NULL,
    unif = runif(n, 0.1, 2),
    zeros = {
      w <- runif(n)
      w[sample.int(n, min(n - 2L, sample(1:3, 1L)))] <- 0
      w
    },
    extreme = 10^runif(n, -8, 8),
    tiny = {
      w <- rep(1, n)
      w[sample.int(n, 1L)] <- fuzz_pick(1e-12, 1e-30)
      w
    },
    int = sample(0:5, n, replace = TRUE))
  if (!is.null(w) && runif(1) < 0.2) w <- w * 10^fuzz_pick(-100, 100)
  # ... among the rows that carry weight: rows of weight 1e-12 of the others
  # hardly determine the fit, so a point near them is an extrapolation too
  if (!is.null(w) && any(w >= 1e-6 * max(w))) mix[, w < 1e-6 * max(w)] <- 0
  newx <- (mix / rowSums(mix)) %*% x

  ytype <- fuzz_pick("reg", "reg", "reg2", "bin", "multi")
  signal <- if (d) drop(scale(x, scale = FALSE)[, 1] / max(sd(x[, 1]), 1e-300)) else 0
  yreg <- signal + rnorm(n)
  y <- switch(ytype,
    reg = yreg * 10^fuzz_pick(0, 0, runif(1, -3, 3), 100, -100),
    reg2 = cbind(a = yreg, b = rnorm(n)),
    bin = factor(ifelse(yreg > stats::median(yreg), "hi", "lo"), levels = c("lo", "hi")),
    multi = factor(sample(c("a", "b", "c"), n, replace = TRUE),
                   levels = if (runif(1) < 0.2) c("a", "b", "c", "empty") else c("a", "b", "c")))
  if (is.factor(y) && n >= 4 && runif(1) < 0.3) {   # a class of one or two rows
    small <- levels(y)[1L]
    y[] <- ifelse(y == small, levels(y)[2L], as.character(y))
    y[sample.int(n, sample(1:2, 1L))] <- small
  }

  lambda <- switch(fuzz_pick("default", "default", "user", "with0", "tiny"),
    default = NULL,
    user = 10^runif(3, -3, 3),
    with0 = c(10^runif(2, -2, 2), 0),
    tiny = 10^runif(2, -14, -8))
  intercept <- runif(1) < 0.8

  kern <- feat <- NULL
  kernel <- "linear"
  mode <- "auto"
  standardize <- FALSE
  if (kind %in% c("linear", "sparse")) {
    mode <- fuzz_pick("auto", "primal", "dual")
    standardize <- kind == "linear" && runif(1) < 0.1
  } else {
    dist <- stats::median(as.vector(stats::dist(x)))
    if (!(dist > 0)) dist <- 1
    if (kind == "polynomial") {
      degree <- sample(1:3, 1L)
      sc <- 10^runif(1, -1, 1) / max(mean(rowSums(x^2)), 1e-300)
      off <- fuzz_pick(0, 1, 2)
      kernel <- kernel_polynomial(degree, sc, off)
      kern <- function(a, b) (sc * tcrossprod(a, b) + off)^degree
      feat <- function(a) poly_features(a, degree, sc, off)
    } else {
      sigma <- dist * 10^runif(1, -1.5, 1.5)
      kernel <- kernel_rbf(sigma)
      ctr <- colMeans(x)   # distances about the center: no cancellation of offsets
      kern <- function(a, b) ref_rbf(a - rep(ctr, each = nrow(a)), b - rep(ctr, each = nrow(b)), sigma)
    }
  }
  xarg <- x
  if (kind == "sparse") {
    skip_if_not_installed("Matrix")   # suggested: the test of a sparse problem is skipped without it
    xarg <- Matrix::Matrix(x, sparse = TRUE)
  }
  if (kind == "precomputed") {
    xarg <- kern(x, x)
    kernel <- "precomputed"
  }
  list(seed = seed, kind = kind, x = x, xarg = xarg, newx = newx, y = y, w = w, lambda = lambda,
       intercept = intercept, kernel = kernel, kern = kern, feat = feat, mode = mode,
       standardize = standardize)
}

# Runs one case: the fit, and at a few of its lambdas the LOO values, fitted
# values and predictions against fuzz_reference().  The outcome is "error"
# (a package error: no call, as stop_arg() gives), "fit" (every value within
# 1e-6, or off with a warning that says the values may be inaccurate or are
# undefined), or a string that says what went wrong: an R or C error with a
# call, a warning with a call, or a silent wrong value.
# `tamper` (for the test that the check can fail) changes the fit before it
# is checked.
fuzz_run <- function(case, tamper = identity) {
  warned <- character()
  collect <- function(expr) {
    withCallingHandlers(expr, warning = function(w) {
      if (!is.null(conditionCall(w))) {
        warned <<- c(warned, paste("WARNING WITH A CALL:", conditionMessage(w)))
      }
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  }
  fit <- tryCatch(
    collect(rlsc(case$xarg, case$y, lambda = case$lambda, weights = case$w,
                 intercept = case$intercept, kernel = case$kernel, mode = case$mode,
                 standardize = case$standardize, keep_eigen = TRUE)),
    error = function(e) e)
  if (inherits(fit, "error")) {
    if (is.null(conditionCall(fit))) return(list(outcome = "error", message = conditionMessage(fit)))
    return(list(outcome = paste("error with a call:", conditionMessage(fit))))
  }
  bad <- grep("WITH A CALL", warned, value = TRUE)
  if (length(bad)) return(list(outcome = bad[1L]))
  fit <- tamper(fit)

  n <- nrow(case$x)
  w <- case$w %||% rep(1, n)
  yref <- if (is.factor(case$y)) ref_code(droplevels(case$y)) else as.matrix(case$y)
  x <- case$x
  if (case$standardize) x <- x / rep(fit$scale, each = n)
  newx <- case$newx
  if (case$standardize) newx <- newx / rep(fit$scale, each = nrow(newx))
  if (is.null(case$kern)) {
    feat <- list(f = x, fnew = newx)
    newarg <- case$newx
  } else if (!is.null(case$feat) && all(is.finite(case$feat(x)))) {
    feat <- list(f = case$feat(x), fnew = case$feat(newx))
    newarg <- newx
  } else {
    feat <- kernel_features(case$kern(x, x), case$kern(newx, x), case$intercept)
    newarg <- if (identical(case$kernel, "precomputed")) case$kern(newx, x) else newx
  }
  lams <- unique(fit$lambda[unique(round(c(1, length(fit$lambda) / 2, length(fit$lambda))))])
  values <- fit$engine$values
  for (l in lams) {
    # the accuracy the package claims: LOO values lose about log10 of the
    # condition number in digits (DESIGN.md, section 8), and it warns beyond
    # 1e9, where fuzzed problems showed errors of 5 to 22 eps times it
    cond <- if (length(values)) (max(values) + l) / (min(values) + l) else 1
    ref <- fuzz_reference(feat$f, yref, w, l, case$intercept, feat$fnew)
    # That loss is relative to the residuals r = y - f, not to the values: a
    # perturbation dK of the decomposed matrix (its rounding, which differs
    # between BLASes) moves the fitted values by (K + lambda I)^-1 dK r, about
    # eps cond |r|, which is |r| / |f| times eps cond in units of the values,
    # large where lambda shrinks the fit towards 0 (seed 3261: |r| / |f| = 40,
    # errors of 22 eps cond under the reference BLAS and 28 under OpenBLAS).
    shrink <- max(abs(yref - ref$fitted)) / max(abs(ref$fitted), abs(yref) * 1e-3, 1e-300)
    tol <- max(1e-6, 25 * .Machine$double.eps * cond * max(1, shrink))
    lw <- list()
    got <- list()
    calls <- list(loo = function() loo_predict(fit, l), fitted = function() fitted(fit, l),
                  new = function() predict(fit, newarg, lambda = l))
    for (what in names(calls)) {
      got[[what]] <- as.matrix(withCallingHandlers(calls[[what]](), warning = function(w) {
        lw[[what]] <<- c(lw[[what]], conditionMessage(w))
        invokeRestart("muffleWarning")
      }))
    }
    for (what in names(got)) {
      # a value is excused by a warning of its own call (or, for in-sample
      # values, of the fit or of loo_predict() at this lambda)
      said <- c(lw[[what]], if (what != "new") c(warned, lw$loo))
      excused <- any(grepl("may be inaccurate|undefined \\(NA\\)", said))
      a <- unname(got[[what]])
      b <- unname(ref[[what]])
      if (anyNA(a)) {
        if (!excused) return(list(outcome = sprintf("silent NA in %s at lambda %g", what, l)))
        next
      }
      # relative to the values, or to 1e-3 of y where the fit shrinks them to 0
      # (where the hat-matrix reference finds a point interpolated, its LOO
      # value is undefined: not compared)
      defined <- !is.na(b)
      err <- max(abs(a - b)[defined], 0) / max(abs(b[defined]), abs(yref) * 1e-3, 1e-300)
      if (!is.finite(err) || (err > tol && !excused)) {
        return(list(outcome = sprintf("silent error %.3g in %s at lambda %g", err, what, l)))
      }
    }
  }
  list(outcome = "fit", warned = length(warned) > 0, messages = warned)
}

# Found by the larger problems of issue 27 (seeds of this generator; the last
# groups by `make fuzz`'s 10000 on 2026-11-27): each was a silent inaccuracy
# beyond 1e-6 at the lambda `at` (NA: the seed already passed at ae19190),
# skipped as a known defect until issue 46.  Each is now a correct fit, or
# one whose inaccuracy a warning states with its cause: as generated (the
# default grid now stops above the lambdas it cannot give accurately) and at
# `at` itself, where the warning must match `warning`.  test-fuzz.R runs them.
light_rows_warning <- "rows of weight [-0-9.e]+ of the largest carry the rounding of the eigendecomposition"
cancelled_warning <- "within the rounding error of the centered cross-products or kernel"
dropped_warning <- "near eigenvalues dropped as numerically zero.*minimum-norm"
fuzz_former_defects <- list(
  list(what = "weights of 1e-12 of the largest, no intercept: LOO or fitted values off by 1e-5 at small lambda",
       seeds = c(1493, 1508, 1818), at = c(1.25336e-11, NA, NA), warning = light_rows_warning),
  list(what = "weights over 11 to 15 decades, polynomial kernel, no intercept: off by 6e-6 to 7e-5",
       seeds = c(964, 1540), at = c(10.2971, NA), warning = light_rows_warning),
  list(what = "sparse dual fit without intercept, entries of 5e7: fitted values off by 7e-5",
       seeds = 211, at = NA, warning = NULL),
  list(what = "sparse x with offsets of 3e8: a direction lost to the raw moments, lambda = 0 kept, LOO off by 0.36",
       seeds = 1357, at = 0, warning = dropped_warning),
  list(what = "weights over 12 to 16 decades, polynomial, RBF and precomputed kernels: values off by 2e-6 to 5e-5",
       seeds = c(4610, 4846, 5176, 5461, 5576, 6167, 7105, 7505, 8614, 8868, 9455),
       at = c(60.9028, 5.33825e-05, 4.36894e-106, 2.53397, 20.201, 1.92471, 0.250234, 1.38646e-07,
              3.52383e+93, 0.00012094, 1.94652e-06),
       warning = light_rows_warning),
  list(what = "weights over 11 to 12 decades, linear and sparse dual fits: values off by 7e-6 to 1e-3",
       seeds = c(7637, 9052, 9260), at = c(2.28617e+10, 1.2609e-05, 0.065897), warning = light_rows_warning),
  list(what = paste("13 rows equal to 2e-9 of their size (weights over 10 decades, no intercept),",
                    "lambda = 0: LOO off by 1.07, a direction below the Gram's rounding"),
       seeds = 8681, at = 0, warning = dropped_warning),
  list(what = "without extreme weights, 1.1e-6 to 2.5e-6: polynomial kernels (lambda 1e-10, weights over 8 decades)",
       seeds = c(2585, 7400), at = c(0.018837, 8.71584e-11),
       warning = paste(light_rows_warning, cancelled_warning, sep = "|")),
  list(what = "without extreme weights, 1.1e-6 to 2.5e-6: an RBF kernel of one column, linear and sparse duals of d >= n",
       seeds = c(8915, 4793, 9142), at = c(0.00194853, 0.0187448, 0.099566),
       warning = paste("rounding of the eigenvectors of small eigenvalues reaches rows outside",
                       cancelled_warning, sep = "|")))
