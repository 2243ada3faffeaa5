#' Fitted values and residuals of an rlsc fit
#'
#' In-sample fitted values at one \eqn{\lambda} (decision values for
#' classification) and the residuals `y - fitted` (on the -1/+1 coding for
#' classification). Under `na.action = na.exclude` both are padded with `NA`
#' for the omitted rows.
#'
#' @param object an [rlsc()] fit.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`.
#' @param ... not used.
#' @return A vector for one response column, else a matrix.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ ., data = mtcars)
#' head(fitted(fit))
#' head(residuals(fit, lambda = "lambda_1se"))
fitted.rlsc <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  pad(object, fit_outputs(object, lambda)$fitted)
}

#' @rdname fitted.rlsc
#' @export
residuals.rlsc <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  out <- fit_outputs(object, lambda)
  resid <- out$fitted
  resid[] <- out$y - out$fitted   # keeps the row names of the fitted values
  pad(object, resid)
}

# Fitted values, LOO values (n x T, named) and 1 - h of a fit at one lambda.
fit_outputs <- function(object, lambda) {
  validate_rlsc(object)
  l <- lambda_value(object, lambda)
  out <- if (inherits(object$engine, "rlsc_banded")) band_outputs(object$engine, object$data, l) else {
    at_lambdas(l, ncol(object$y), function(l) path_outputs(object$engine, object$data, l), rows = "omh")
  }
  names <- list(object$rownames, response_names(object))
  dimnames(out$fitted) <- dimnames(out$loo) <- names
  out$lambda <- l
  out
}

# Drop to a vector for one column, and pad rows removed by na.exclude.
pad <- function(object, m) {
  out <- if (is.matrix(m) && ncol(m) == 1L) stats::setNames(m[, 1L], rownames(m)) else m
  if (is.null(object$na.action)) out else stats::naresid(object$na.action, out)
}
