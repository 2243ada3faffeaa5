#' Summarize an rlsc fit
#'
#' The exact LOO table around the minimum, the coefficients at `lambda_min`
#' and `lambda_1se`, and for classification the LOO confusion matrix at
#' `lambda_min`.
#'
#' @param object an [rlsc()] fit.
#' @param rows how many grid values on each side of `lambda_min` to show.
#' @param ... not used.
#' @return An object of class `summary.rlsc`: a list with `call`, `table`
#'   (rows of `object$path`), `coefficients` and, for classification,
#'   `confusion`.
#' @export
#' @examples
#' summary(rlsc(Species ~ ., data = iris))
summary.rlsc <- function(object, rows = 3L, ...) {
  check_no_dots(...)
  validate_rlsc(object)
  rows <- check_count(rows, "rows", min = 0L)
  mid <- object$index_min[1L]
  around <- seq(max(1L, mid - rows), min(length(object$lambda), mid + rows))
  shown <- c("lambda", "df", object$criterion, paste0(object$criterion, "_se"),
             if (object$criterion == "misclass") "mse", if (any(object$path$n_na > 0L)) "n_na")
  table <- object$path[around, shown]
  table$selected <- ifelse(around %in% object$index_min, "lambda_min",
                           ifelse(around %in% object$index_1se, "lambda_1se", ""))
  # a kernel fit has one dual coefficient per training row: see coef()
  coefficients <- if (is.null(object$kernel)) coefficient_table(object)
  out <- list(call = object$call, type = object$type, criterion = object$criterion, cv = object$cv,
              nobs = object$nobs, nvars = object$nvars, mode = object$mode,
              lambda_min = object$lambda_min, lambda_1se = object$lambda_1se,
              table = table, coefficients = coefficients,
              kernel = if (!is.null(object$kernel)) format(object$kernel))
  if (object$type == "classification") {
    rows <- fit_outputs(object, "lambda_min")   # the fitted rows, not padded by na.exclude
    truth <- decode_classes(rows$y, object$classes)
    keep <- rows$weights > 0
    out$confusion <- table(LOO = decode_classes(rows$loo, object$classes)[keep], truth = truth[keep])
  }
  structure(out, class = "summary.rlsc")
}

# Coefficients at lambda_min and lambda_1se side by side for one response
# column; at lambda_min only (a column per response or class) otherwise.
coefficient_table <- function(object) {
  at_min <- as.matrix(coef(object, "lambda_min"))
  if (ncol(at_min) > 1L) return(at_min)
  cbind(lambda_min = at_min[, 1L], lambda_1se = as.matrix(coef(object, "lambda_1se"))[, 1L])
}

#' @rdname summary.rlsc
#' @param x a `summary.rlsc` object.
#' @param digits significant digits.
#' @export
print.summary.rlsc <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat("\nCall:  ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(sprintf("n = %d, d = %d, %s form; criterion: %s\n\n", x$nobs, x$nvars,
              x$mode, criterion_label(x$criterion, x$cv)))
  cat("Leave-one-out path around the minimum:\n")
  print(x$table, digits = digits, row.names = FALSE)
  if (!is.null(x$kernel)) cat("\nKernel chosen by leave-one-out:", x$kernel, "\n")
  if (!is.null(x$coefficients)) {
    cat(if (identical(colnames(x$coefficients), c("lambda_min", "lambda_1se"))) {
      "\nCoefficients:\n"
    } else {
      "\nCoefficients at lambda_min (one column per class or response):\n"
    })
    print(x$coefficients, digits = digits)
  }
  if (!is.null(x$confusion)) {
    cat("\nLeave-one-out confusion matrix at lambda_min:\n")
    print(x$confusion)
  }
  cat("\n")
  invisible(x)
}
