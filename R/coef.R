#' Coefficients of an rlsc fit
#'
#' The intercept and slopes at any \eqn{\lambda \ge 0}, computed exactly from
#' the stored factorization (a value within `1e-10` of a grid value gives the
#' grid's result). A kernel fit has one dual coefficient \eqn{c_i} per
#' training row (zero for rows of zero weight) and the intercept \eqn{b} of
#' \eqn{f(x) = b + \sum_i c_i k(x, x_i)}; it serves the values of its grid,
#' and any \eqn{\lambda} when fitted with `keep_eigen = TRUE`.
#'
#' @param object an [rlsc()] fit.
#' @param lambda a number \eqn{\ge 0}, or `"lambda_min"` / `"lambda_1se"`
#'   (also glmnet's spellings `"lambda.min"` / `"lambda.1se"`); or a vector
#'   of them, for a column per value (as glmnet's `s`), whatever their
#'   number. For a fit with `per_response = TRUE`, a vector named by the
#'   response columns, as `fit$lambda_min` is, gives each column its own
#'   \eqn{\lambda} (`"lambda_min"` and `"lambda_1se"` do so too).
#' @param s glmnet's name for `lambda` (give one of the two; by its full
#'   name, as it follows `...`).
#' @param ... not used.
#' @return A named vector for one response column; otherwise a matrix with a
#'   row per coefficient and a column per response column (class). With
#'   several values of `lambda`, a matrix with a column per value (one
#'   response column), else an array coefficient x column x lambda; the
#'   values name the last dimension.
#' @export
#' @examples
#' fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
#' coef(fit)
#' coef(fit, lambda = "lambda_1se")
#' coef(fit, lambda = 5)     # any lambda, exactly
#' coef(fit, s = c(0.1, 1, 10))  # a column per lambda
coef.rlsc <- function(object, lambda = object$lambda_min, ..., s = NULL) {
  check_no_dots(...)
  coefficients_at(object, glmnet_s(lambda, s, missing(lambda)), function(p) object$xnames)
}

#' @rdname coef.rlsc
#' @export
coef.rlsc_kernel_fit <- function(object, lambda = object$lambda_min, ..., s = NULL) {
  check_no_dots(...)
  coefficients_at(object, glmnet_s(lambda, s, missing(lambda)), function(p) {
    object$rownames %||% paste0("c", seq_len(object$nobs))
  })
}

# The coefficients at each value of `lambda` (over_lambdas()), named by
# `names(p)` for p coefficients; a dual engine's several single lambdas
# from its coefficient path (dual_coef_blocks(): a linear dual fit moves x
# once, not once per lambda: 500 x 5000 at its 100 lambdas 6.5 s -> 0.1 s).
# A primal engine's path would be the same lambda-by-lambda loop.
coefficients_at <- function(object, lambda, names) {
  eng <- object$engine
  nt <- ncol(object$y)
  named <- function(cf) coef_matrix(object, cf$intercept, cf$coef, names(nrow(cf$coef)))
  over_lambdas(object, lambda, function(l) {
    named(at_lambdas(l, nt, function(l) engine_coef(eng, l), engine = eng))
  }, many = coef_blocks(eng, named))
}

# A function giving `fun(cf)` at several single lambdas at once, from one
# coefficient path of a dual engine (dual_coef_blocks()); NULL where lambda
# by lambda serves (over_lambdas()).
coef_blocks <- function(eng, fun) UseMethod("coef_blocks")
#' @export
#' @noRd
coef_blocks.default <- function(eng, fun) NULL
#' @export
#' @noRd
coef_blocks.rlsc_dual <- function(eng, fun) function(ls) dual_coef_blocks(eng, ls, fun)

coef_matrix <- function(object, intercept, coefs, names) {
  out <- rbind(intercept, coefs)
  dimnames(out) <- list(c("(Intercept)", names), response_names(object$y))
  if (ncol(out) == 1L) stats::setNames(out[, 1L], rownames(out)) else out
}
