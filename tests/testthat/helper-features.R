# Slow references for Nystrom and random-feature fits: the features written out
# in R from their definitions, for brute-force refits with ref_loo() and
# ref_coef() (helper-reference.R) on the same features.

# Nystrom features K(x, Z) K(Z, Z)^(-1/2), the inverse square root by eigen()
# over the eigenvalues above m eps times the largest (the pseudo-inverse).
ref_nystrom <- function(x, z, kfun) {
  e <- eigen(kfun(z, z), symmetric = TRUE)
  keep <- e$values > max(e$values) * nrow(z) * .Machine$double.eps
  root_inv <- e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(e$values[keep]), sum(keep)) %*%
    t(e$vectors[, keep, drop = FALSE])
  kfun(x, z) %*% root_inv
}

# Random Fourier features sqrt(2 / m) cos(x omega / sigma + b), from the draw
# the fit stored.
ref_rff <- function(x, omega, b, sigma) {
  p <- x %*% omega / sigma
  sqrt(2 / ncol(omega)) * cos(p + matrix(b, nrow(x), ncol(omega), byrow = TRUE))
}

# The LOO values, criteria, leverages and predictions of a feature fit at the
# grid values `at` against brute-force ridge refits on the features `phi`
# (and the predictions of the rows `newx`, whose features are `phi_new`).
check_feature_fit <- function(fit, phi, y, w = rep(1, nrow(phi)), at, newx = NULL, phi_new = NULL,
                              tol = 1e-8) {
  yref <- if (is.factor(y)) ref_code(y) else as.matrix(y)
  for (l in fit$lambda[at]) {
    loo <- ref_loo(phi, yref, w, l)
    expect_equal(unname(as.matrix(loo_predict(fit, l))), unname(loo), tolerance = tol)
    i <- match(l, fit$lambda)
    expect_equal(c(fit$path$mse[i], fit$path$mse_se[i]), ref_mse(yref, loo, w), tolerance = tol)
    if (is.factor(y)) {
      expect_equal(c(fit$path$misclass[i], fit$path$misclass_se[i]), ref_misclass(y, loo, w),
                   tolerance = tol)
    }
    expect_equal(unname(hatvalues(fit, l)), unname(ref_hat(phi, w, l)), tolerance = tol)
    cf <- ref_coef(phi, yref, w, l)
    expect_equal(unname(as.matrix(fitted(fit, l))), unname(ref_predict(cf, phi)), tolerance = tol)
    if (!is.null(newx)) {
      expect_equal(unname(as.matrix(predict(fit, newx, lambda = l))),
                   unname(ref_predict(cf, phi_new)), tolerance = tol)
    }
  }
  invisible(fit)
}
