#' Leverages of an rlsc fit
#'
#' The diagonal \eqn{h_{ii}(\lambda)} of the hat matrix of the fit, the
#' intercept's share \eqn{w_i / \sum w} included: the leverages that make the
#' leave-one-out values exact, \eqn{f_{-i}(x_i) = (\hat y_i - h_{ii} y_i) /
#' (1 - h_{ii})}. Rows of zero weight are not part of the fit: their leverage
#' is 0.
#'
#' @param model an [rlsc()] fit.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`.
#' @param ... not used.
#' @return A named vector of length `nobs`, padded with `NA` under
#'   `na.action = na.exclude`.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ wt + hp, data = mtcars)
#' head(hatvalues(fit))
#' sum(hatvalues(fit, lambda = 0))   # least squares: 3, the number of coefficients
hatvalues.rlsc <- function(model, lambda = model$lambda_min, ...) {
  check_no_dots(...)
  out <- fit_outputs(model, lambda)
  h <- 1 - out$omh
  if (is.matrix(h)) dimnames(h) <- list(model$rownames, response_names(model$y)) else names(h) <- model$rownames
  pad(model, h)
}
