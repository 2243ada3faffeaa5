#' Fitted values and residuals of an rlsc fit
#'
#' In-sample fitted values at one \eqn{\lambda} of the grid (decision values
#' for classification) and the residuals `y - fitted` (on the -1/+1 coding for
#' classification). Under `na.action = na.exclude` both are padded with `NA`
#' for the omitted rows.
#'
#' @param object,formula an [rlsc()] fit.
#' @param lambda a value of `object$lambda`, or `"lambda_min"` / `"lambda_1se"`.
#' @param ... not used.
#' @return A vector for one response column, else a matrix.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ ., data = mtcars)
#' head(fitted(fit))
#' head(residuals(fit, lambda = "lambda_1se"))
fitted.rlsc <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  out <- path_outputs(object, lambda)$fitted
  pad(object, out)
}

#' @rdname fitted.rlsc
#' @export
residuals.rlsc <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  out <- path_outputs(object, lambda)$fitted
  out[] <- object$y - out   # keeps the row names of the fitted values
  pad(object, out)
}

# Fitted and LOO values (n x T) of a fit at one lambda of its grid.
# Kernel fits store them at lambda_min and lambda_1se (kernel_solution()).
path_outputs <- function(object, lambda) {
  names <- list(object$rownames, response_names(object))
  if (inherits(object, "rlsc_kernel_fit")) {
    sol <- kernel_solution(object, lambda)
    return(list(fitted = matrix(sol$fitted, nrow = object$nobs, dimnames = names),
                loo = matrix(sol$loo, nrow = object$nobs, dimnames = names),
                n_na = sol$n_na, lambda = sol$lambda))
  }
  l <- object$lambda[lambda_index(object, lambda)]
  path <- loo_path(object$engine, object, object$weights, l, object$intercept, keep = TRUE)
  shape <- function(a) matrix(a[, , 1L], nrow = object$nobs, dimnames = names)
  list(fitted = shape(path$fitted), loo = shape(path$loo), n_na = path$n_na, lambda = l)
}

# Drop to a vector for one column, and pad rows removed by na.exclude.
pad <- function(object, m) {
  out <- if (ncol(m) == 1L) stats::setNames(m[, 1L], rownames(m)) else m
  if (is.null(object$na.action)) out else stats::naresid(object$na.action, out)
}
