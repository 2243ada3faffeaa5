#' Summarize an rlsc fit
#'
#' The exact LOO table around the minimum, the coefficients, and for
#' classification the LOO confusion matrix at `lambda_min`.
#'
#' The coefficients of a fit with one response column are shown at
#' `lambda_min` and `lambda_1se` side by side (at `lambda_min` alone for a
#' criterion without standard errors, such as GCV); with several response
#' columns or classes, at `lambda_min` only, one column per response column or
#' class (`coef(fit, "lambda_1se")` gives the others). A fit with one
#' \eqn{\lambda} per response column (`per_response = TRUE`) shows, instead of
#' the table around the minimum, one row per response column or class, named
#' by it: its `lambda_min`, degrees of freedom, mean squared LOO error and
#' standard error, and `lambda_1se`. Kernel fits show the chosen kernel
#' instead of their coefficients (one per training row, or per landmark or
#' random feature), and say how many there are and that [coef()] gives them.
#'
#' The print method keeps the output readable for wide fits: it shows at most
#' `max` coefficients, response columns and classes (the rows and columns of
#' the coefficient matrix, of the per-response table and of the confusion
#' matrix), and says how many it left out and how to see them all, as
#' [print.data.frame()] does with its own `max`. The summary object itself
#' holds everything.
#'
#' @param object an [rlsc()] fit.
#' @param rows how many grid values on each side of `lambda_min` to show.
#' @param ... not used.
#' @return An object of class `summary.rlsc`: a list with `call`, `table`
#'   (rows of `object$path`; with `per_response`, one row per response column),
#'   `coefficients` (a matrix: columns `lambda_min` and `lambda_1se` for one
#'   response column, else one column per response column or class at
#'   `lambda_min`; `NULL` for kernel fits, whose number of coefficients is in
#'   `ncoef`) and, for classification, `confusion` (the LOO class against the
#'   truth).
#' @export
#' @examples
#' summary(rlsc(Species ~ ., data = iris))
#' s <- summary(rlsc(mpg ~ ., data = mtcars))
#' print(s, max = 4)   # at most four coefficients
#' summary(rlsc(as.matrix(mtcars[, c("wt", "hp")]), as.matrix(mtcars[, c("mpg", "qsec")]),
#'              per_response = TRUE))
summary.rlsc <- function(object, rows = 3L, ...) {
  check_no_dots(...)
  validate_rlsc(object)
  rows <- check_count(rows, "rows", min = 0L)
  if (isTRUE(object$per_response)) {
    table <- selection_table(object)
  } else {
    mid <- object$index_min[1L]
    around <- seq(max(1L, mid - rows), min(length(object$lambda), mid + rows))
    se <- paste0(object$criterion, "_se")
    shown <- c("lambda", "df", object$criterion, if (!all(is.na(object$path[[se]]))) se,
               if (object$criterion == "misclass") "mse", if (any(object$path$n_na > 0L)) "n_na")
    table <- object$path[around, shown]
    table$selected <- ifelse(around %in% object$index_min, "lambda_min",
                             ifelse(around %in% object$index_1se, "lambda_1se", ""))
  }
  kernel <- !is.null(object$kernel)
  out <- list(call = object$call, type = object$type, criterion = object$criterion, cv = object$cv,
              per_response = isTRUE(object$per_response), nobs = object$nobs,
              nvars = object$nvars, form = object$form, lambda_min = object$lambda_min,
              lambda_1se = object$lambda_1se, table = table,
              coefficients = if (!kernel) coefficient_table(object),
              kernel = if (kernel) kernel_description(object),
              ncoef = if (kernel) NROW(coef(object)) - 1L)
  if (object$type == "classification") {
    rows <- fit_outputs(object, "lambda_min")   # the fitted rows, not padded by na.exclude
    truth <- decode_classes(rows$y, object$classes)
    keep <- rows$weights > 0
    out$confusion <- table(LOO = decode_classes(rows$loo, object$classes)[keep], truth = truth[keep])
  }
  structure(out, class = "summary.rlsc")
}

# Coefficients at lambda_min and lambda_1se side by side for one response
# column (lambda_min alone when there is no lambda_1se); at lambda_min only (a
# column per response or class) otherwise.
coefficient_table <- function(object) {
  at_min <- as.matrix(coef(object, "lambda_min"))
  if (ncol(at_min) > 1L) return(at_min)
  if (all(is.na(object$cvsd))) return(cbind(lambda_min = at_min[, 1L]))
  cbind(lambda_min = at_min[, 1L], lambda_1se = as.matrix(coef(object, "lambda_1se"))[, 1L])
}

#' @rdname summary.rlsc
#' @param x a `summary.rlsc` object.
#' @param digits significant digits.
#' @param max the largest number of coefficients, and of response columns or
#'   classes, to print.
#' @export
print.summary.rlsc <- function(x, digits = max(3L, getOption("digits") - 3L), max = 15L, ...) {
  cap <- check_count(max, "max")
  cat("\nCall:  ", paste(deparse(x$call), collapse = "\n"), "\n\n", sep = "")
  cat(sprintf("n = %d, d = %d, %s form; criterion: %s\n\n", x$nobs, x$nvars,
              x$form, selection_label(x)))
  per_response <- isTRUE(x$per_response)
  if (per_response) {
    cat("The lambda of each ", if (x$type == "classification") "class" else "response column",
        ":\n", sep = "")
    print(utils::head(x$table, cap), digits = digits)
  } else {
    cat(if (is.numeric(x$cv)) {
      sprintf("%d-fold cross-validation (means over folds weighted by fold size)", x$cv)
    } else if (identical(x$cv, "gcv")) {
      "Generalized cross-validation"
    } else {
      "Leave-one-out"
    }, " path around the minimum:\n", sep = "")
    print(x$table, digits = digits, row.names = FALSE)
  }
  if (!is.null(x$kernel)) cat("\nKernel: ", x$kernel, "\n", sep = "")
  cf <- x$coefficients
  several <- NCOL(cf) > 1L && !identical(colnames(cf), c("lambda_min", "lambda_1se"))
  if (!is.null(cf)) {
    cat(if (several) {
      paste0("\nCoefficients at lambda_min (one column per ",
             if (x$type == "classification") "class" else "response column", "):\n")
    } else {
      "\nCoefficients:\n"
    })
    print(head_matrix(cf, cap), digits = digits)
  }
  cm <- x$confusion
  if (!is.null(cm)) {
    cat("\nLeave-one-out confusion matrix at lambda_min:\n")
    print(head_matrix(cm, cap))
  }
  hidden_note(x, cap, several)
  cat("\n")
  invisible(x)
}

# How many coefficients, response columns and classes print.summary.rlsc()
# left out, and how to see them; a kernel fit's coefficients are never shown.
hidden_note <- function(x, cap, several) {
  cf <- x$coefficients
  columns <- if (x$type == "classification") NCOL(x$confusion) else if (several) ncol(cf) else 0L
  if (x$per_response) columns <- max(columns, nrow(x$table))
  left <- c(max(NROW(cf) - cap, 0L), max(columns - cap, 0L))
  if (any(left > 0L) || !is.null(x$ncoef)) cat("\n")
  if (any(left > 0L)) {
    what <- c(count_of(left[1L], "coefficient"),
              if (x$type == "classification") count_of(left[2L], "class", "classes") else
                count_of(left[2L], "response column"))
    cat(sprintf(" [ %s not shown; print(summary(fit), max = %d) shows all ]\n",
                paste(what[left > 0L], collapse = " and "), max(NROW(cf), columns)))
  }
  if (!is.null(x$ncoef)) {
    cat(sprintf(" [ %s of the kernel expansion not shown; coef(fit) gives them ]\n",
                count_of(x$ncoef, "coefficient")))
  }
}

# The first `cap` rows and columns of a matrix or table.
head_matrix <- function(m, cap) {
  m[seq_len(min(nrow(m), cap)), seq_len(min(ncol(m), cap)), drop = FALSE]
}

#' @export
summary.rlsc_banded_fit <- function(object, rows = 3L, ...) {
  out <- NextMethod()
  out$band_weights <- object$band_weights
  class(out) <- c("summary.rlsc_banded_fit", class(out))
  out
}

#' @export
print.summary.rlsc_banded_fit <- function(x, digits = max(3L, getOption("digits") - 3L),
                                          max = 15L, ...) {
  NextMethod()
  w <- x$band_weights
  cap <- min(ncol(w), check_count(max, "max"))
  cat("Band weights (one row per response column):\n")
  print(t(w[, seq_len(cap), drop = FALSE]), digits = digits)
  if (ncol(w) > cap) cat(sprintf(" [ %d response columns not shown ]\n", ncol(w) - cap))
  cat("\n")
  invisible(x)
}
