#' Predictions from an rlsc fit
#'
#' @param object an [rlsc()] fit.
#' @param newdata new observations: for a fit made with a formula, a data frame
#'   with the variables of the formula (factor levels must be among those seen
#'   in training; rows with `NA` get `NA` predictions); otherwise a numeric
#'   matrix, data frame or sparse `Matrix` with the columns of the training
#'   `x`, taken by name when its column names include all the training
#'   columns' (other columns are ignored) and by position otherwise (for a kernel fit with `kernel = "precomputed"`: the \eqn{m \times n}
#'   cross-kernel between the new rows and the training rows). When missing,
#'   the in-sample fitted values are returned.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`.
#' @param type `"response"` for fitted values (decision values for
#'   classification, one column per class, or one column for two classes) or
#'   `"class"` for class labels (a factor with the levels of the response).
#' @param ... not used.
#' @return A vector for one response column, else a matrix; a factor for
#'   `type = "class"`.
#' @export
#' @examples
#' fit <- rlsc(Species ~ ., data = iris)
#' head(predict(fit, iris))
#' head(predict(fit, iris, type = "class"))
predict.rlsc <- function(object, newdata, lambda = object$lambda_min,
                         type = c("response", "class"), ...) {
  check_no_dots(...)
  validate_rlsc(object)
  type <- match.arg(type)
  if (type == "class" && object$type != "classification") {
    stop_arg("`type` = \"class\" needs a classification fit; this one is regression")
  }
  if (missing(newdata) || is.null(newdata)) {
    f <- as.matrix(fitted(object, lambda = lambda))
  } else if (inherits(newdata, "rlsc_chunks")) {
    f <- predict_chunks(object, newdata, lambda)
  } else {
    f <- predict_matrix(object, newdata, lambda)
  }
  if (type == "class") return(stats::setNames(decode_classes(f, object$classes), rownames(f)))
  if (ncol(f) == 1L) stats::setNames(f[, 1L], rownames(f)) else f
}

# Decision values (m x T) at new data; rows of a formula's new data with NA
# values get NA.
predict_matrix <- function(object, newdata, lambda) {
  if (!is.null(object$terms)) {
    x <- new_design(object, newdata)
    ok <- stats::complete.cases(x)
    out <- matrix(NA_real_, nrow(x), ncol(object$y),
                  dimnames = list(rownames(x), response_names(object)))
    if (any(ok)) out[ok, ] <- predict_design(object, x[ok, , drop = FALSE], lambda)
    return(out)
  }
  predict_design(object, as_design(match_columns(object, newdata), "newdata"), lambda)
}

# New data whose column names include all the training columns' is taken by
# name (other columns are ignored, the order does not matter); otherwise the
# columns are taken by position.
match_columns <- function(object, newdata) {
  nms <- colnames(newdata)
  if (identical(object$kernel$name, "precomputed") || is.null(nms) || anyDuplicated(nms) ||
      !all(object$xnames %in% nms) || identical(nms, object$xnames)) {
    return(newdata)
  }
  newdata[, object$xnames, drop = FALSE]
}

# Decision values (m x T) of the rows of a design, through the engine: new
# columns scaled as the training ones were, or, for a precomputed kernel, the
# m x n cross-kernel with the training rows.
predict_design <- function(object, x, lambda) {
  if (identical(object$kernel$name, "precomputed")) {
    if (ncol(x) != object$nobs) {
      stop_arg("`newdata` must be the m x ", object$nobs, " cross-kernel between the new rows ",
               "and the ", object$nobs, " training rows for `kernel` = \"precomputed\", not ",
               nrow(x), " x ", ncol(x))
    }
  } else if (ncol(x) != object$nvars) {
    stop_arg("`newdata` must have ", object$nvars, " columns (as the training `x`), not ",
             ncol(x))
  }
  if (!is.null(object$scale)) x <- scale_columns(x, object$scale)
  if (!is.null(object$features)) x <- feature_rows(object$features, x)
  if (!is.null(object$kernel) && is_sparse(x)) x <- as.matrix(x)
  f <- engine_decision(object$engine, x, lambda_value(object, lambda))
  dimnames(f) <- list(rownames(x), response_names(object))
  f
}
