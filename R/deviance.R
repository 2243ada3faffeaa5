#' Residual sum of squares of an rlsc fit
#'
#' The weighted residual sum of squares \eqn{\sum_i w_i (y_i - \hat y_i)^2} at
#' one \eqn{\lambda}, summed over the response columns, as [deviance()] gives
#' it for [lm()] (at `lambda = 0` the two agree). For classification the
#' residuals are those of the -1/+1 coding (see [residuals.rlsc()]). Rows of
#' zero weight do not count; rows omitted by `na.action` are not part of the
#' fit.
#'
#' @param object an [rlsc()] fit.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`.
#' @param ... not used.
#' @return A single number.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ wt + hp, data = mtcars)
#' deviance(fit)
#' deviance(fit, lambda = 0)   # least squares, as deviance(lm(mpg ~ wt + hp, mtcars))
deviance.rlsc <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  out <- fit_outputs(object, lambda)
  sum(out$weights * (out$y - out$fitted)^2)
}
