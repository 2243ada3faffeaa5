# Slow, independent references: everything here refits with solve() on the
# (d + 1) x (d + 1) penalized normal equations and never uses the package's
# identities.

# Coefficients (intercept first when `intercept`) of the weighted ridge fit.
ref_coef <- function(x, y, w = rep(1, nrow(x)), lambda, intercept = TRUE) {
  x1 <- if (intercept) cbind(1, x) else x
  pen <- diag(c(if (intercept) 0, rep(1, ncol(x))), ncol(x1))
  solve(crossprod(x1, w * x1) + lambda * pen, crossprod(x1, w * as.matrix(y)))
}

ref_predict <- function(cf, x, intercept = TRUE) {
  (if (intercept) cbind(1, x) else x) %*% cf
}

# Brute-force leave-one-out: refit without each point of positive weight;
# points of zero weight are not in the fit, so they get the full fit's value.
ref_loo <- function(x, y, w = rep(1, nrow(x)), lambda, intercept = TRUE) {
  y <- as.matrix(y)
  full <- ref_predict(ref_coef(x, y, w, lambda, intercept), x, intercept)
  out <- full
  for (i in which(w > 0)) {
    cf <- ref_coef(x[-i, , drop = FALSE], y[-i, , drop = FALSE], w[-i], lambda, intercept)
    out[i, ] <- ref_predict(cf, x[i, , drop = FALSE], intercept)
  }
  out
}

# The LOO criteria from LOO predictions: weighted mean of the per-point loss
# and its standard error over points of positive weight.
ref_criterion <- function(loss, w) {
  m <- sum(w * loss) / sum(w)
  c(m, sqrt(sum(w * (loss - m)^2) / sum(w) / (sum(w > 0) - 1)))
}
ref_mse <- function(y, loo, w = rep(1, NROW(y))) {
  ref_criterion(rowMeans((as.matrix(y) - as.matrix(loo))^2), w)
}
ref_misclass <- function(truth, loo, w = rep(1, length(truth))) {
  loo <- as.matrix(loo)
  pred <- if (ncol(loo) == 1L) ifelse(loo[, 1] > 0, 2L, 1L) else max.col(loo, "first")
  ref_criterion(as.numeric(pred != as.integer(truth)), w)
}

# Coding of a factor as in DESIGN.md, section 1, written out independently.
ref_code <- function(f) {
  lev <- levels(f)
  if (length(lev) == 2L) return(matrix(ifelse(f == lev[2], 1, -1)))
  sapply(lev, function(l) ifelse(f == l, 1, -1))
}

# Noisy enough that the LOO optimum is inside the default grid.
make_data <- function(n, d, ntarget = 1, seed = 1, offset = 2) {
  set.seed(seed)
  x <- matrix(rnorm(n * d), n, d) + offset
  beta <- matrix(rnorm(d * ntarget, sd = 0.3), d, ntarget)
  y <- x %*% beta + matrix(rnorm(n * ntarget, sd = 2), n, ntarget)
  list(x = x, y = if (ntarget == 1) drop(y) else y)
}

# Fits on short user grids of lambda or kernel parameters, where the minimum
# often sits at an end: the boundary warnings are expected there and are
# tested on their own in test-rlsc.R and test-kernel_fit.R.
rlsc_short <- function(...) {
  withCallingHandlers(rlsc(...), warning = function(w) {
    if (grepl("value of the `lambda` grid|value tried|at an end of the `lambda` grid", conditionMessage(w))) {
      invokeRestart("muffleWarning")
    }
  })
}

# The same for a call written out (a formula fit whose `weights` or `foldid`
# are columns: rlsc_short() would pass them on through `...`, where
# model.frame() cannot find them).
quiet_boundary <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("value of the `lambda` grid|value tried", conditionMessage(w))) {
      invokeRestart("muffleWarning")
    }
  })
}

# Brute-force LOO for d >> n, unweighted with intercept: each refit solves the
# (n - 1) x (n - 1) kernel-form system on the data centered without point i,
# beta = Xc' (Xc Xc' + lambda I)^-1 yc, instead of the d x d normal equations.
ref_loo_wide <- function(x, y, lambda) {
  vapply(seq_len(nrow(x)), function(i) {
    xi <- x[-i, , drop = FALSE]
    m <- colMeans(xi)
    xc <- sweep(xi, 2, m)
    a <- solve(tcrossprod(xc) + lambda * diag(nrow(xc)), y[-i] - mean(y[-i]))
    mean(y[-i]) + sum((x[i, ] - m) * crossprod(xc, a))
  }, numeric(1))
}

# Brute-force LOO that stays accurate for ill-conditioned x: each refit is the
# augmented least-squares problem [sqrt(w) (1, x); 0, sqrt(lambda) I] solved by
# Householder QR (condition number the square root of that of the normal
# equations), on columns shifted by their first value (the intercept absorbs the
# shift, and the shift removes large offsets before any rounding).
ref_loo_qr <- function(x, y, w = rep(1, nrow(x)), lambda) {
  x <- sweep(x, 2, x[1, ])
  y <- as.matrix(y)
  d <- ncol(x)
  vapply(seq_len(nrow(x)), function(i) {
    a <- rbind(sqrt(w[-i]) * cbind(1, x[-i, , drop = FALSE]), cbind(0, diag(sqrt(lambda), d)))
    b <- rbind(sqrt(w[-i]) * y[-i, , drop = FALSE], matrix(0, d, ncol(y)))
    drop(cbind(1, x[i, , drop = FALSE]) %*% qr.coef(qr(a, LAPACK = TRUE), b))
  }, numeric(ncol(y)))
}

# Diagonal of the hat matrix of the weighted ridge fit with unpenalized
# intercept, from the (d + 1) x (d + 1) normal equations: H = X1 M^-1 X1' W.
ref_hat <- function(x, w = rep(1, nrow(x)), lambda, intercept = TRUE) {
  x1 <- if (intercept) cbind(1, x) else x
  pen <- diag(c(if (intercept) 0, rep(1, ncol(x))), ncol(x1))
  m <- crossprod(x1, w * x1) + lambda * pen
  rowSums((x1 %*% solve(m)) * x1) * w
}

# Brute-force K-fold: refit on the training folds at each lambda, predict the
# held-out rows, average each fold's weighted loss and combine the folds as
# cv.glmnet does (weights: the folds' sums of weights; SE over folds).
# `fit_predict(train, held, lambda)` returns the held-out predictions.
ref_kfold <- function(y, w, folds, lambda, fit_predict, loss = function(y, p) rowMeans((y - p)^2)) {
  y <- as.matrix(y)
  k <- sort(unique(folds))
  per <- vapply(lambda, function(l) {
    vapply(k, function(f) {
      held <- folds == f
      p <- as.matrix(fit_predict(!held, held, l))
      sum(w[held] * loss(y[held, , drop = FALSE], p)) / sum(w[held])
    }, 1)
  }, numeric(length(k)))
  per <- matrix(per, length(k))
  fw <- vapply(k, function(f) sum(w[folds == f]), 1)
  cvm <- colSums(fw * per) / sum(fw)
  cvsd <- sqrt(colSums(fw * sweep(per, 2, cvm)^2) / sum(fw) / (length(k) - 1))
  list(cvm = cvm, cvsd = cvsd)
}

# Weighted AUC by counting every (positive, negative) pair, ties half.
ref_auc <- function(score, positive, w = rep(1, length(score))) {
  keep <- w > 0
  s1 <- score[positive & keep]
  s0 <- score[!positive & keep]
  w1 <- w[positive & keep]
  w0 <- w[!positive & keep]
  sum(outer(w1, w0) * (outer(s1, s0, ">") + 0.5 * outer(s1, s0, "=="))) / (sum(w1) * sum(w0))
}

# Weighted ridge with a penalty factor per column (glmnet's penalty.factor):
# the bordered normal equations with penalty diag(0 (intercept), pf).
ref_coef_pf <- function(x, y, w, lambda, pf, intercept = TRUE) {
  x1 <- if (intercept) cbind(1, x) else x
  pen <- diag(c(if (intercept) 0, pf), ncol(x1))
  solve(crossprod(x1, w * x1) + lambda * pen, crossprod(x1, w * as.matrix(y)))
}

ref_loo_pf <- function(x, y, w, lambda, pf, intercept = TRUE) {
  y <- as.matrix(y)
  t(vapply(seq_len(nrow(x)), function(i) {
    cf <- ref_coef_pf(x[-i, , drop = FALSE], y[-i, , drop = FALSE], w[-i], lambda, pf, intercept)
    drop(ref_predict(cf, x[i, , drop = FALSE], intercept))
  }, numeric(ncol(y))))
}

# Fits at lambda = 0 in the dual or kernel forms drop the null directions of a
# kernel of low rank and say so ("the minimum-norm one"): expected in the
# equality tests that reuse a primal grid ending at 0.
muffle_min_norm <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("make the fit the minimum-norm one", conditionMessage(w))) invokeRestart("muffleWarning")
  })
}

# Brute-force leave-pair-out AUC: for every (positive, negative) pair of
# positive weight, refit without both rows and score both; pairs weighted by
# w_i w_j, ties half.  `fit_predict(keep, rows, lambda)` returns the decision
# values at `rows` of the fit on `keep` (logical).
ref_lpo_auc <- function(positive, w, lambda, fit_predict) {
  pos <- which(positive & w > 0)
  neg <- which(!positive & w > 0)
  vapply(lambda, function(l) {
    num <- 0
    den <- 0
    for (i in pos) for (j in neg) {
      keep <- !(seq_along(w) %in% c(i, j))
      f <- fit_predict(keep, c(i, j), l)
      pw <- w[i] * w[j]
      num <- num + pw * ((f[1] > f[2]) + 0.5 * (f[1] == f[2]))
      den <- den + pw
    }
    num / den
  }, 1)
}

# The rows of a dual engine's decomposition as src/path.c takes them in the
# complement form: an m x r orthonormal basis, `nt` one-vs-all columns whose
# best class follows the basis, their g, and weights 1, 0.5, 2 in turn
# (enough columns for several column blocks of a path).
complement_case <- function(m = 300, r = 20, nt = 200) {
  basis <- qr.Q(qr(matrix(rnorm(m * r), m)))
  ys <- -1 + 2 * outer(max.col(basis %*% matrix(rnorm(r * nt), r)), seq_len(nt), "==")
  list(basis = basis, ys = ys, g = crossprod(basis, ys), w = rep(c(1, 0.5, 2), length.out = m),
       values = as.double(r:1), q = 1 - rowSums(basis^2))
}
