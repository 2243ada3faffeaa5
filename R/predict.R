#' Predictions from an rlsc fit
#'
#' @param object an [rlsc()] fit.
#' @param newdata a numeric matrix (or data frame of numeric columns) with the
#'   columns of the training `x`.
#' @param lambda a value of `object$lambda`, or `"lambda_min"` / `"lambda_1se"`.
#' @param type `"response"` for fitted values (decision values for
#'   classification, one column per class, or one column for two classes) or
#'   `"class"` for class labels (a factor).
#' @param ... not used.
#' @return A vector for one response column, else a matrix; a factor for
#'   `type = "class"`.
#' @export
#' @examples
#' x <- as.matrix(iris[, 1:4])
#' fit <- rlsc(x, iris$Species)
#' head(predict(fit, x))
#' head(predict(fit, x, type = "class"))
predict.rlsc <- function(object, newdata, lambda = object$lambda_min,
                         type = c("response", "class"), ...) {
  check_no_dots(...)
  type <- match.arg(type)
  if (missing(newdata)) stop_arg("`newdata` is missing; give the new data")
  newdata <- as_design_matrix(newdata, "newdata")
  if (ncol(newdata) != object$nvars) {
    stop_arg("`newdata` must have ", object$nvars, " columns (as the training `x`), not ",
             ncol(newdata))
  }
  cf <- as.matrix(coef(object, lambda = lambda))
  f <- newdata %*% cf[-1L, , drop = FALSE] + rep(cf[1L, ], each = nrow(newdata))
  dimnames(f) <- list(rownames(newdata), colnames(cf))
  if (type == "class") {
    if (object$type != "classification") {
      stop_arg("`type` = \"class\" needs a classification fit; this one is regression")
    }
    return(stats::setNames(decode_classes(f, object$classes), rownames(newdata)))
  }
  if (ncol(f) == 1L) stats::setNames(f[, 1L], rownames(newdata)) else f
}
