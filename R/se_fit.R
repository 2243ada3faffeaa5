# predict(se.fit = TRUE) for regression: the standard error of the fitted mean
# at new rows under the ridge model with fixed design, y_i = f(x_i) + e_i,
# Var(e_i) = sigma^2 / w_i.  With B0 the new rows' coordinates in the
# eigenbasis (engine_basis()),
#   Var(f(x0)) = sigma^2 (1 / sum(w) + lev_free(x0) + sum_k B0_k^2 Lambda_k / (Lambda_k + lambda)^2)
# (the intercept's, the unpenalized columns' and the penalized directions'
# shares, uncorrelated), and sigma^2 = sum(w e^2) / nu with the effective
# residual degrees of freedom nu = n - 1 - p0 - sum_k (2 phi_k - phi_k^2),
# phi_k = Lambda_k / (Lambda_k + lambda) (Hastie and Tibshirani's n - tr(2H - H'H)).
# The bias of ridge is not included.  At lambda = 0 it is predict.lm()'s.
# The new rows' coordinates and each column's residual sum of squares (at
# its own lambda) are formed once, not once per distinct lambda of a
# per-response fit (5000 response columns: each time a path over all of them).
prediction_se <- function(object, x, lambda) {
  eng <- object$engine
  b0 <- engine_basis(eng, x)
  free <- free_leverage(x, 1, eng)
  out <- fit_outputs(object, lambda)
  keep <- out$weights > 0
  rss <- colSums(out$weights[keep] * (out$y[keep, , drop = FALSE] - out$fitted[keep, , drop = FALSE])^2)
  if (length(rss) == 1L) rss <- unname(rss)   # (one column: a number, as predict.lm()'s)
  at_lambdas(lambda, ncol(object$y), function(l) {
    phi <- eng$values / (eng$values + l)
    share <- drop(b0^2 %*% (phi / (eng$values + l))) + free
    nu <- sum(keep) - eng$intercept - (model_df(eng, l) - effective_df(eng$values, l)) -
      sum(2 * phi - phi^2)
    sigma2 <- rss / nu
    if (eng$intercept) share <- share + 1 / sum(out$weights)
    list(se = sqrt(outer(share, sigma2)), df = rep(nu, ncol(object$y)), scale = sqrt(sigma2))
  })
}

# (K_0 - 1 kbar')(s o U) Lambda^(-1/2), as the dual engine projects rows of
# zero weight.
#' @export
#' @noRd
engine_basis.rlsc_dual <- function(eng, newx) {
  su <- sqrt(eng$w[eng$rows]) * dual_u(eng)
  sweep(dual_cross(eng, newx) %*% su, 2L, sqrt(eng$values), "/")
}

#' @export
#' @noRd
engine_basis.rlsc_snapshot <- function(eng, newx) {
  stop_arg("`se.fit` = TRUE for a kernel fit needs its eigendecomposition: refit with ",
           "`keep_eigen = TRUE`")
}
