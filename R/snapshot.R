# What a kernel fit keeps by default instead of its n x n eigenvectors: the
# outputs of the chosen kernel setting at every lambda of its grid, n x L for
# 1 - h and n x T x L for the fitted values, the LOO values and the dual
# coefficients (far fewer numbers than n x n whenever 3 L T < n).  It answers
# the engine methods (engine.R) at the lambdas of the grid; other lambdas need
# the engine itself (`keep_eigen = TRUE`).

new_snapshot <- function(eng, data, lambda) {
  path <- engine_path(eng, data, lambda, keep = TRUE, columns = FALSE)
  cf <- engine_coef_path(eng, lambda)   # dual coefficients n x T x L, intercepts T x L
  structure(list(
    lambda = lambda, values = eng$values, dropped = eng$dropped, noise = eng$noise, w = eng$w,
    light = eng$light,
    omh = path$omh,
    fitted = path$fitted, loo = path$loo,
    coef = cf$coef, intercept = cf$intercept,
    cross = eng[c("kernel", "x", "shift", "center", "scale", "kbar", "rows", "intercept", "yshift",
                  "ybar")]
  ), class = "rlsc_snapshot")
}

# The grid indices of `lambda`, or an error naming what would serve others.
snapshot_index <- function(snap, lambda) {
  idx <- match(lambda, snap$lambda)
  if (anyNA(idx)) {
    stop_arg("`lambda` = ", format(lambda[is.na(idx)][1L]), " is not on the grid of this ",
             "kernel fit, which keeps its solutions at the values of `fit$lambda` only; use ",
             "one of those, or refit with `keep_eigen = TRUE` to use any lambda")
  }
  idx
}

#' @export
#' @noRd
engine_path.rlsc_snapshot <- function(eng, data, lambda, classify = FALSE, keep = FALSE,
                                      sums = FALSE, columns = TRUE) {
  idx <- snapshot_index(eng, lambda)
  loo <- eng$loo[, , idx, drop = FALSE]
  list(omh = eng$omh[, idx, drop = FALSE], fitted = eng$fitted[, , idx, drop = FALSE],
       loo = loo, n_na = colSums(is.na(loo[, 1L, , drop = FALSE]) & eng$w > 0)[1L, ],
       npos = sum(eng$w > 0), df = effective_df(eng$values, lambda), y = all_rows(data)$y,
       weights = eng$w)
}

#' @export
#' @noRd
engine_coef.rlsc_snapshot <- function(eng, lambda) {
  idx <- snapshot_index(eng, lambda)
  list(coef = matrix(eng$coef[, , idx], nrow(eng$coef)), intercept = eng$intercept[, idx])
}

#' @export
#' @noRd
engine_decision.rlsc_snapshot <- function(eng, newx, lambda) {
  cf <- engine_coef(eng, lambda)
  dual_cross(eng$cross, newx) %*% cf$coef[eng$cross$rows, , drop = FALSE] +
    rep_each(eng$cross$yshift + eng$cross$ybar, nrow(newx))
}

#' @export
#' @noRd
engine_ncol.rlsc_snapshot <- function(eng) dim(eng$loo)[2L]
#' @export
#' @noRd
engine_cross.rlsc_snapshot <- function(eng) eng$cross

#' @export
#' @noRd
validate_engine.rlsc_snapshot <- function(object) {
  snap <- object
  n <- length(snap$w)
  nl <- length(snap$lambda)
  ok <- is.double(snap$lambda) && is.double(snap$w) &&
    identical(dim(snap$omh), c(n, nl)) && length(dim(snap$loo)) == 3L &&
    identical(dim(snap$loo)[c(1L, 3L)], c(n, nl)) && identical(dim(snap$fitted), dim(snap$loo)) &&
    identical(dim(snap$coef), dim(snap$loo)) && is.list(snap$cross) &&
    is.integer(snap$cross$rows) && all(snap$cross$rows >= 1L & snap$cross$rows <= n)
  if (!isTRUE(ok)) stop_arg("malformed rlsc engine: the kernel fit's stored solutions do not match")
  snap
}
