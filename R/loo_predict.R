#' Exact leave-one-out predictions
#'
#' For each training point \eqn{i}, the prediction at \eqn{x_i} of the model
#' fitted without point \eqn{i}, \eqn{f_{-i}(x_i) = (\hat y_i - h_{ii} y_i) /
#' (1 - h_{ii})}, computed exactly from the stored factorization (no refits).
#' For classification these are decision values; the LOO class is their sign
#' (two classes) or the column of their maximum, which `type = "class"` gives.
#'
#' Points with zero weight are not part of the fit: their "LOO" value is the
#' fitted value. Points the fit interpolates (leverage within rounding of 1)
#' get `NA`, with a warning. Under `na.action = na.exclude` the output is
#' padded with `NA` for omitted rows.
#'
#' The values come from an eigendecomposition of the Gram matrix, whose
#' eigenvalues are known to about `eps` times the largest one, \eqn{\Lambda_1}.
#' When `lambda` is below \eqn{10^{-9} \Lambda_1} (or close to an eigenvalue
#' dropped as numerically zero) the LOO values may be off by more than `1e-6`
#' relative, and a warning says so; use a larger `lambda`.
#'
#' @param fit an [rlsc()] fit.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`.
#' @param type `"response"` for the LOO values (decision values for
#'   classification) or `"class"` for the LOO class labels of a
#'   classification fit, a factor with the levels and class of the response
#'   (as [predict.rlsc()] gives them), or `"prob"` for LOO class
#'   probabilities, cross-fitted: each row's LOO decision values (with the
#'   intercept of all rows, as the calibration takes them, see
#'   [predict.rlsc()]) through the calibration map fitted on the rows of the
#'   other folds, so that no row's probability comes from a map that saw its
#'   label. The `calibration_folds` folds (see [rlsc()]) are dealt by class,
#'   the rows of positive weight first, in an order shuffled by a fixed seed:
#'   the same rows in the same order get the same folds at every call and
#'   from every data source. At any `lambda`.
#' @param ... not used.
#' @return A vector for one response column, else an \eqn{n \times T} matrix
#'   with columns named by response column or class; a factor for
#'   `type = "class"`; a matrix with a column per class for `type = "prob"`.
#' @export
#' @examples
#' fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
#' loo <- loo_predict(fit)
#' mean((mtcars$mpg - loo)^2)   # the LOO mean squared error at lambda_min
#' fit$cvm[fit$index_min]
#'
#' cl <- rlsc(Species ~ ., data = iris)
#' table(LOO = loo_predict(cl, type = "class"), truth = iris$Species)
loo_predict <- function(fit, lambda = fit$lambda_min, ...) UseMethod("loo_predict")

#' @rdname loo_predict
#' @export
loo_predict.rlsc <- function(fit, lambda = fit$lambda_min, ..., type = c("response", "class", "prob")) {
  check_no_dots(...)
  type <- check_type(fit, type)
  out <- fit_outputs(fit, lambda)
  warn_undefined(out$n_na)
  warn_unreliable(fit$engine, out$lambda, standardized = !is.null(fit$scale),
                  columns = column_names_of(fit$xnames, fit$features))
  if (type == "class") return(pad(fit, stats::setNames(class_labels(fit, out$loo), rownames(out$loo))))
  if (type == "prob") {
    check_calibrated(fit)
    rows <- calibration_rows(fit, out)
    map <- stored_map(fit, out$lambda) %||% fit_map(rows, length(fit$classes))[c("a", "b")]
    return(pad(fit, crossfit_probabilities(fit, rows, map)))
  }
  pad(fit, out$loo)
}
