#' Print an rlsc fit
#'
#' Shows the call, the size and form of the problem, and the LOO criterion at
#' `lambda_min` and `lambda_1se` (at `lambda_min` alone for a criterion
#' without standard errors, such as GCV, where there is no `lambda_1se`). A
#' fit with one \eqn{\lambda} per response column (`per_response = TRUE`)
#' shows one row per response column or class, named by it (the first ten;
#' `summary()` shows all).
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
    paste0("regression, ", count_of(ncol(x$y), "response column"))
  }
  cat(sprintf("Regularized least squares (%s): n = %.0f%s, d = %d, %s form%s, %s\n",
              what, x$nobs, positive_note(x), x$nvars, x$form,
              if (x$data$kind == "chunks") " from chunks" else "",
              count_of(length(x$lambda), "lambda value")))
  cat(sprintf("%s: %s\n", validation_label(x$cv), selection_label(x)))
  pairs <- attr(x$path, "pairs")
  if (isTRUE(pairs$sampled)) {
    cat(sprintf("(over a seeded uniform sample of %s of the %s positive-negative pairs)\n",
                format(pairs$used), format(pairs$total, scientific = FALSE)))
  }
  cat("\n")
  tab <- selection_table(x)
  print(utils::head(tab, 10L), digits = digits)
  if (nrow(tab) > 10L) {
    cat(sprintf(" [ %d more response columns; summary(fit) or fit$lambda_min has them all ]\n",
                nrow(tab) - 10L))
  }
  cat("\n")
  invisible(x)
}

# lambda_min and lambda_1se with their df and criterion; one row per response
# column, named by it, for a fit with one lambda per column.
selection_table <- function(x) {
  if (isTRUE(x$per_response)) {
    cols <- names(x$index_min)
    pick <- function(v) response_curves(x$path, cols, v)[cbind(x$index_min, seq_along(cols))]
    return(data.frame(lambda_min = x$lambda_min, df = x$df[x$index_min], mse = pick(""),
                      se = pick("_se"), lambda_1se = x$lambda_1se, row.names = cols))
  }
  idx <- c(x$index_min, x$index_1se)
  tab <- data.frame(lambda = x$lambda[idx], df = x$df[idx], criterion = x$cvm[idx],
                    se = x$cvsd[idx], row.names = c("lambda_min", "lambda_1se"))
  names(tab)[3L] <- x$criterion
  if (all(is.na(x$cvsd))) tab <- tab[1L, -4L]   # no standard error, so no lambda_1se
  tab
}

validation_label <- function(cv) {
  if (is.numeric(cv)) {
    return(sprintf("Exact %d-fold cross-validation (the mean over folds weighted by fold size)", cv))
  }
  if (identical(cv, "gcv")) return("Generalized cross-validation")
  "Exact leave-one-out criterion"
}

positive_note <- function(x) {
  if (x$npos < x$nobs) sprintf(" (%.0f with positive weight)", x$npos) else ""
}

# What chose lambda: the criterion, or each response column's own squared error.
selection_label <- function(x) {
  if (!isTRUE(x$per_response)) return(criterion_label(x$criterion, x$cv))
  paste(criterion_label("mse", x$cv), "of each",
        if (x$type == "classification") "class (one-vs-all column)" else "response column")
}

# A kernel fit's kernel: one of each band's columns for multiple-kernel
# ridge, and how it was chosen among several settings, by the fit's own
# validation.
kernel_description <- function(x) {
  n <- NROW(x$kernel_grid)
  how <- if (is.numeric(x$cv)) paste0("exact ", x$cv, "-fold CV") else {
    if (identical(x$cv, "gcv")) "GCV" else "exact LOO"
  }
  screen <- x$sigma_screen
  paste0(format(x$kernel), if (!is.null(x$bands)) " of each band's columns",
         if (n > 1L) sprintf(", chosen among %d settings by %s", n, how),
         if (!is.null(screen)) {
           sprintf(", chosen among %d values by %s on a sample of %d rows", nrow(screen$table), how,
                   length(screen$rows))
         })
}

criterion_label <- function(criterion, cv = "loo") {
  how <- if (is.numeric(cv)) paste0(cv, "-fold CV") else "LOO"
  switch(criterion, mse = paste("mean squared", how, "error"),
         mae = paste("mean absolute", how, "error"), misclass = paste(how, "misclassification rate"),
         auc = if (is.numeric(cv)) paste(how, "AUC (mean over folds)") else "leave-pair-out AUC",
         gcv = "GCV = n RSS / (n - tr H)^2",
         custom = paste(how, "criterion (the `criterion` function)"))
}

#' @rdname print.rlsc
#' @export
print.rlsc_kernel_fit <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  NextMethod()
  cat("Kernel: ", kernel_description(x), sep = "")
  table <- if (NROW(x$kernel_grid) > 1L) kernel_summary(x) else x$sigma_screen$table
  if (!is.null(table)) {
    cat("\n\n")
    print(table, digits = digits, row.names = FALSE)
  }
  cat("\n")
  invisible(x)
}

# The best value of the criterion for each kernel setting.
kernel_summary <- function(x) {
  tab <- x$kernel_path
  crit <- tab[[x$criterion]]
  setting <- rep(seq_len(nrow(x$kernel_grid)), each = length(x$lambda))
  best <- vapply(split(seq_len(nrow(tab)), setting), function(rows) {
    if (all(is.na(crit[rows]))) NA_integer_ else rows[which.min(crit[rows])]
  }, 1L)
  out <- x$kernel_grid
  out$lambda <- tab$lambda[best]
  out[[x$criterion]] <- crit[best]
  out$chosen <- ifelse(seq_len(nrow(out)) == x$index_kernel, "*", "")
  out
}

#' @export
print.rlsc_banded_fit <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  NextMethod()
  w <- x$band_weights
  cat(sprintf("Bands: %d groups of columns (%s), %d candidate weightings; ",
              nrow(w), paste0(rownames(w), " ", table(factor(x$bands, rownames(w))), collapse = ", "),
              nrow(x$band_candidates)))
  cat(if (x$per_response) "the chosen weights of each response column:\n" else "the chosen weights:\n")
  shown <- w[, seq_len(min(ncol(w), 10L)), drop = FALSE]
  print(t(shown), digits = digits)
  if (ncol(w) > 10L) cat(sprintf(" [ %d more response columns: fit$band_weights ]\n", ncol(w) - 10L))
  cat("\n")
  invisible(x)
}
