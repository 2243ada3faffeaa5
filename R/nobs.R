#' Number of observations of an rlsc fit
#'
#' As for [lm()], the observations of positive weight: rows of zero weight are
#' not part of the fit (their "leave-one-out" value is their prediction).
#' `print()` shows both counts when they differ.
#'
#' @param object an [rlsc()] fit.
#' @param ... not used.
#' @return A single integer.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ wt, data = mtcars, weights = rep(0:1, 16))
#' nobs(fit)
nobs.rlsc <- function(object, ...) object$npos
