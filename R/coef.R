#' Coefficients of an rlsc fit
#'
#' The intercept and slopes at one \eqn{\lambda} of the fitted grid, computed
#' from the stored factorization.
#'
#' @param object an [rlsc()] fit.
#' @param lambda a value of `object$lambda`, or `"lambda_min"` / `"lambda_1se"`.
#' @param ... not used.
#' @return A named vector for one response column; otherwise a matrix with a
#'   row per coefficient and a column per response column (class).
#' @export
#' @examples
#' fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
#' coef(fit)
#' coef(fit, lambda = "lambda_1se")
coef.rlsc <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  l <- object$lambda[lambda_index(object, lambda)]
  eng <- object$engine
  beta <- engine_beta(eng, l)
  intercept <- if (object$intercept) eng$ybar - drop(crossprod(beta, eng$xbar)) else 0
  if (!is.null(object$scale)) beta <- beta / object$scale   # back to the original units
  out <- rbind(intercept, beta)
  dimnames(out) <- list(c("(Intercept)", object$xnames), response_names(object))
  if (ncol(out) == 1L) stats::setNames(out[, 1L], rownames(out)) else out
}

response_names <- function(object) {
  colnames(object$y) %||% paste0("y", seq_len(ncol(object$y)))
}
