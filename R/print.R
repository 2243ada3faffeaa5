#' Print an rlsc fit
#'
#' Shows the call, the size and form of the problem, and the LOO criterion at
#' `lambda_min` and `lambda_1se`.
#'
#' @param x an [rlsc()] fit.
#' @param digits significant digits.
#' @param ... not used.
#' @return `x`, invisibly.
#' @export
#' @examples
#' rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
print.rlsc <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat("\nCall:  ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  what <- if (x$type == "classification") {
    paste0("classification, ", length(x$classes), " classes")
  } else {
    paste0("regression, ", ncol(x$y), " response column(s)")
  }
  cat(sprintf("Regularized least squares (%s): n = %d%s, d = %d, %s form, %d lambda values\n",
              what, x$nobs, positive_note(x), x$nvars, x$mode, length(x$lambda)))
  cat(sprintf("Exact leave-one-out criterion: %s\n\n", criterion_label(x$criterion)))
  idx <- c(x$index_min, x$index_1se)
  tab <- data.frame(lambda = x$lambda[idx], df = x$df[idx], criterion = x$cvm[idx],
                    se = x$cvsd[idx], row.names = c("lambda_min", "lambda_1se"))
  names(tab)[3L] <- x$criterion
  print(tab, digits = digits)
  cat("\n")
  invisible(x)
}

positive_note <- function(x) {
  npos <- sum(x$weights > 0)
  if (npos < x$nobs) sprintf(" (%d with positive weight)", npos) else ""
}

criterion_label <- function(criterion) {
  switch(criterion, mse = "mean squared LOO error", misclass = "LOO misclassification rate")
}

#' @rdname print.rlsc
#' @param object an [rlsc()] fit.
#' @export
nobs.rlsc <- function(object, ...) sum(object$weights > 0)   # as lm(): rows of zero weight do not count
