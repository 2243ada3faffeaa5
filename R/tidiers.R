# broom-style tidiers, registered for the generics package when it is loaded
# (generics is only suggested).

#' Tidy an rlsc fit
#'
#' `tidy()` gives one row per \eqn{\lambda}: `lambda`, `df`, `estimate` (the
#' exact LOO criterion), `std.error`, `conf.low` and `conf.high` (one standard
#' error either side). `glance()` gives one row: `lambda_min`, `lambda_1se`,
#' `nobs` (as [nobs()]: observations of positive weight), `criterion` and its
#' value at `lambda_min`; with `per_response = TRUE` one row per response
#' column, whose lambda its own squared error chose (`criterion` `"mse"`).
#' `augment()` adds `.fitted`, `.loo` and `.resid` at
#' one \eqn{\lambda} to the data (the model frame for a formula fit), with
#' `.class` and `.loo_class` for classification; several response columns get
#' one column each, suffixed by the column or class name. With `newdata`, as
#' broom's `augment()` for [lm()] does, it adds the predictions `.fitted` (and
#' `.class`) to the new data, and `.resid` when the new data of a regression
#' formula fit holds the response; leave-one-out values exist only for the
#' training rows.
#'
#' @param x an [rlsc()] fit.
#' @param data the data to augment; by default the model frame of a formula
#'   fit, else a data frame with only the new columns. Under `na.action =
#'   na.exclude` it may also be the original data, and the new columns are `NA`
#'   in the excluded rows.
#' @param newdata new observations to predict, as for [predict.rlsc()];
#'   `data` is then not used.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`.
#' @param ... not used.
#' @return A data frame.
#' @name rlsc_tidiers
#' @examplesIf requireNamespace("generics", quietly = TRUE)
#' fit <- rlsc(mpg ~ ., data = mtcars)
#' head(generics::tidy(fit))
#' generics::glance(fit)
#' head(generics::augment(fit))
NULL

#' @rdname rlsc_tidiers
#' @usage \method{tidy}{rlsc}(x, ...)
#' @exportS3Method generics::tidy
tidy.rlsc <- function(x, ...) {
  check_no_dots(...)
  data.frame(lambda = x$lambda, df = x$df, estimate = x$cvm, std.error = x$cvsd,
             conf.low = x$cvm - x$cvsd, conf.high = x$cvm + x$cvsd)
}

#' @rdname rlsc_tidiers
#' @usage \method{glance}{rlsc}(x, ...)
#' @exportS3Method generics::glance
glance.rlsc <- function(x, ...) {
  check_no_dots(...)
  if (isTRUE(x$per_response)) {
    # each column's lambda chosen by its own squared error (print()'s table);
    # the fit's criterion at each column's index was another number, labelled
    # as if it had chosen
    tab <- selection_table(x)
    return(data.frame(lambda_min = x$lambda_min, lambda_1se = x$lambda_1se, nobs = nobs(x),
                      criterion = "mse", estimate = tab$mse, row.names = rownames(tab)))
  }
  data.frame(lambda_min = x$lambda_min, lambda_1se = x$lambda_1se, nobs = nobs(x),
             criterion = x$criterion, estimate = x$cvm[x$index_min])
}

#' @rdname rlsc_tidiers
#' @usage \method{augment}{rlsc}(x, data = x$model, newdata = NULL, lambda = x$lambda_min, ...)
#' @exportS3Method generics::augment
augment.rlsc <- function(x, data = x$model, newdata = NULL, lambda = x$lambda_min, ...) {
  check_no_dots(...)
  if (!is.null(newdata)) {
    if (!missing(data)) stop_arg("`data` and `newdata` must not both be given; `newdata` is augmented")
    return(augment_new(x, newdata, lambda))
  }
  out <- fit_outputs(x, lambda)
  cols <- list(.fitted = out$fitted, .loo = out$loo, .resid = out$y - out$fitted)
  if (x$type == "classification") {
    cols$.class <- class_labels(x, out$fitted)
    cols$.loo_class <- class_labels(x, out$loo)
  }
  new <- augment_columns(cols)
  if (is.null(data)) return(new)
  data <- as.data.frame(data)
  # under na.exclude the data may also be the original rows, those excluded included
  padded <- if (inherits(x$na.action, "exclude")) nrow(new) + length(x$na.action)
  if (identical(nrow(data), padded)) {
    new <- new[stats::naresid(x$na.action, seq_len(nrow(new))), , drop = FALSE]
  } else if (nrow(data) != nrow(new)) {
    stop_arg("`data` must have the ", nrow(new), " rows the model was fitted to",
             if (!is.null(padded)) paste0(" (or ", padded, " with those excluded by `na.action`)"),
             ", not ", nrow(data))
  }
  rownames(new) <- NULL
  cbind(data, new)
}

# The new columns as a data frame: one column for one response column, else
# one per column suffixed by its name.
augment_columns <- function(cols) {
  new <- as.data.frame(lapply(cols, function(col) {
    if (is.matrix(col) && ncol(col) == 1L) col[, 1L] else col
  }), optional = TRUE)
  names(new) <- unlist(lapply(names(cols), function(nm) {
    col <- cols[[nm]]
    if (is.matrix(col) && ncol(col) > 1L) paste0(nm, "_", colnames(col)) else nm
  }))
  rownames(new) <- NULL
  new
}

# augment(newdata = ): the predictions at new rows, and their residuals when
# the new data of a regression formula fit holds the response.
augment_new <- function(x, newdata, lambda) {
  if (is_sparse(newdata)) newdata <- as.matrix(newdata)
  f <- predict_matrix(x, newdata, lambda)
  cols <- list(.fitted = f)
  if (x$type == "classification") {
    cols$.class <- class_labels(x, f)
  } else if (!is.null(x$terms) && all(all.vars(x$terms[[2L]]) %in% names(newdata))) {
    y <- as.matrix(eval(x$terms[[2L]], as.data.frame(newdata), environment(x$terms)))
    cols$.resid <- y - f
    colnames(cols$.resid) <- colnames(f)
  }
  cbind(as.data.frame(newdata), augment_columns(cols))
}

#' Tidy the bands of a banded fit
#'
#' `tidy(fit, what = "bands")` gives one row per response column and group of
#' columns: `response` (named as in `fit$lambda_min`: with one choice per
#' response column, repeated names made unique, `a`, `a.1`), `band`, `weight`
#' (the chosen weight), `lambda_min`
#' and `estimate` (the response column's criterion at its chosen weights and
#' lambda). `what = "lambda"` (the default) is the tidier of any fit
#' ([rlsc_tidiers]).
#'
#' @param x a banded [rlsc()] fit.
#' @param what `"lambda"` or `"bands"`.
#' @param ... not used.
#' @return A data frame.
#' @rdname rlsc_band_tidiers
#' @usage \method{tidy}{rlsc_banded_fit}(x, what = c("lambda", "bands"), ...)
#' @exportS3Method generics::tidy
tidy.rlsc_banded_fit <- function(x, what = c("lambda", "bands"), ...) {
  what <- match.arg(what)
  if (what == "lambda") return(NextMethod())
  check_no_dots(...)
  w <- x$band_weights
  # per response column, the labels of its path columns mse_<label> (response
  # names made unique, as the names of lambda_min), not the names, which may
  # repeat and would read another column's curve
  responses <- if (x$per_response) names(x$index_min) else colnames(w)
  value <- if (x$per_response) {
    response_curves(x$path, responses)[cbind(x$index_min, seq_along(responses))]
  } else {
    rep(x$cvm[x$index_min], length(responses))
  }
  data.frame(response = rep(responses, each = nrow(w)), band = rep(rownames(w), ncol(w)),
             weight = as.vector(w),
             lambda_min = rep(unname(rep_len(x$lambda_min, ncol(w))), each = nrow(w)),
             estimate = rep(unname(value), each = nrow(w)))
}
