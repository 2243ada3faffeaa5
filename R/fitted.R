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
  eng <- object$engine
  out <- engine_outputs(eng, object$data, l)
  names <- list(object$rownames, response_names(object$y))
  dimnames(out$fitted) <- dimnames(out$loo) <- names
  out$lambda <- l
  out
}

# The fitted and LOO values and 1 - h of an engine at `lambda` (one, or one
# per response column).  path_outputs() at each response column's own
# lambda (per_response): one path per distinct lambda over the columns that
# take it (engine_columns(), select_responses()), not one over all the
# columns per distinct lambda (fitted() of 5000 response columns with 20
# distinct lambdas did 20 times the work: 30-40 s).  1 - h then differs by
# column: n x T.  A kernel fit's snapshot holds its outputs at every lambda
# and serves them by slicing; a banded engine's are its candidates'
# (band_outputs()).
engine_outputs <- function(eng, data, lambda) UseMethod("engine_outputs")
#' @export
#' @noRd
engine_outputs.rlsc_banded <- function(eng, data, lambda) band_outputs(eng, data, lambda)
#' @export
#' @noRd
engine_outputs.rlsc_snapshot <- function(eng, data, lambda) outputs_at(eng, data, lambda)
#' @export
#' @noRd
engine_outputs.default <- function(eng, data, lambda) {
  values <- unique(lambda)
  if (length(values) == 1L) return(outputs_at(eng, data, lambda))
  of <- match(lambda, values)
  out <- NULL
  for (j in seq_along(values)) {
    cols <- which(of == j)
    part <- path_outputs(engine_columns(eng, cols), select_responses(data, cols), values[j])
    if (is.null(out)) {
      blank <- matrix(NA_real_, nrow(part$fitted), length(lambda))
      out <- list(fitted = blank, loo = blank, omh = blank, n_na = 0, y = blank,
                  weights = part$weights)
    }
    out$fitted[, cols] <- part$fitted
    out$loo[, cols] <- part$loo
    out$omh[, cols] <- part$omh
    out$y[, cols] <- part$y
    out$n_na <- max(out$n_na, part$n_na)   # rows: the same at any column
  }
  out
}

# Drop to a vector for one column, and pad rows removed by na.exclude.
pad <- function(object, m) {
  out <- if (is.matrix(m) && ncol(m) == 1L) stats::setNames(m[, 1L], rownames(m)) else m
  if (is.null(object$na.action)) out else stats::naresid(object$na.action, out)
}

# path_outputs() at `lambda` through at_lambdas(): one path per distinct
# lambda over all the response columns.
outputs_at <- function(eng, data, lambda) {
  at_lambdas(lambda, length(lambda), function(l) path_outputs(eng, data, l), rows = "omh")
}
