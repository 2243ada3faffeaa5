#' Predictions from an rlsc fit
#'
#' @param object an [rlsc()] fit.
#' @param newdata new observations: for a fit made with a formula, a data frame
#'   with the variables of the formula (factor levels must be among those seen
#'   in training); otherwise a numeric matrix, data frame or sparse `Matrix`
#'   with the columns of the training `x`. When both have column names, the
#'   columns are taken **by name** (the order does not matter, other columns
#'   are ignored) and a missing training column is an error that names it;
#'   only new data without column names (or a fit to `x` without them) is
#'   taken by position, and then it must have as many columns as `x`. For a
#'   kernel fit with `kernel = "precomputed"`, the \eqn{m \times n}
#'   cross-kernel between the new rows and the training rows. Rows with `NA`
#'   get `NA` predictions, as for [predict.lm()]. When missing, the in-sample
#'   fitted values are returned.
#' @param lambda a number \eqn{\ge 0} (a value of the grid for kernel fits
#'   without `keep_eigen`), or `"lambda_min"` / `"lambda_1se"`; or a vector
#'   of them, for predictions at each (as glmnet's `s`, see Value), whatever
#'   their number. For a fit with `per_response = TRUE`, a vector named by
#'   the response columns, as `fit$lambda_min` is, gives each column its own
#'   \eqn{\lambda} (`"lambda_min"` and `"lambda_1se"` do so too).
#' @param type `"response"` for fitted values (decision values for
#'   classification, one column per class, or one column for two classes),
#'   `"class"` for class labels: a factor with the levels and the class of the
#'   response (an ordered factor for an ordered response; levels dropped as
#'   empty when fitting are kept, so that `pred == truth` works), by default
#'   the class of the largest decision value, not necessarily the most
#'   probable one (see `class_rule`); or `"prob"` for class probabilities (see
#'   Details).
#' @param se.fit for regression: also return standard errors of the fitted
#'   mean (see Details).
#' @param s glmnet's name for `lambda`: `predict(fit, newx, s = 1)` is
#'   `predict(fit, newx, lambda = 1)` (give one of the two).
#' @param class_rule for `type = "class"`: `"decision"` (the default) gives
#'   the class of the largest decision value (the sign of the one column for
#'   two classes), RLSC's rule; `"prob"` the most probable class, the
#'   largest of the probabilities of `type = "prob"` (the first on ties), so
#'   that the class agrees with them. The two can differ where the decision
#'   values of two classes are close, since each class's calibration map has
#'   its own intercept and slope. The parsnip engine predicts with `"prob"`.
#' @param ... not used.
#' @details
#' **Decision values** are the fitted values of least squares on the -1/+1
#' (one-vs-all) coding: the class is their sign or the column of their
#' maximum, but they are not probabilities and need not lie in \[-1, 1\].
#' `type = "prob"` maps them to probabilities with a monotone multinomial
#' logistic map, \eqn{p_k \propto \exp(a_k + b_k f_k)} with \eqn{f_k} the
#' decision value of class \eqn{k} and slopes \eqn{b_k \ge 0}, so that each
#' class's probability rises with its own decision value (for two classes
#' Platt's method, \eqn{p = plogis(a + b f)}, \eqn{b \ge 0}). The map is
#' fitted, with Platt's targets \eqn{(N_k + 1)/(N_k + 2)} in place of 1 (the
#' rest shared by the other classes) and the observation weights (not the
#' class weights: the probabilities are those of the classes as they occur;
#' but a class whose class weight is 0 is left out of the fit and of the
#' map, and its probability is near 0), on the **exact leave-one-out
#' decision values** at the same `lambda`, from the same factorization (no
#' refits), so the map never sees the label of a row through that row's own
#' decision value. Each row's value is that of the model fitted without the
#' row, with the intercept's mean of the response taken over all rows
#' rather than over the others: leaving a row out moves the mean away from
#' the row's own class, and as \eqn{\lambda} grows that shift, not the
#' data, comes to decide the leave-one-out values (a map of them would give
#' the class shares where the decision values still rank the classes). Rows
#' of weight 0 and rows whose leave-one-out value is undefined (leverage 1)
#' are left out of the map; on pure noise the slopes are (about) 0 and the
#' probabilities the class shares.
#'
#' The maps at `lambda_min` and `lambda_1se` are fitted when fitting and
#' stored in the fit (`fit$calibration`); at any other `lambda` (or one per
#' response column with `per_response = TRUE`) `predict()` fits the map
#' there, from one pass over the training rows for all the values of
#' `lambda` asked at once. Either way the probabilities at a `lambda` are
#' those of a fit made at that `lambda` alone (to the map's convergence,
#' about `1e-10`), which is what `tune::tune_grid()` needs when it fits once
#' and predicts at every penalty. A kernel fit without `keep_eigen` serves
#' them at the values of its grid only, as its decision values. Each row of
#' probabilities sums to 1.
#'
#' **Standard errors** (`se.fit = TRUE`, regression) are those of the fitted
#' mean at the new rows under the ridge model with the design fixed, \eqn{y_i
#' = f(x_i) + e_i}, \eqn{Var(e_i) = \sigma^2 / w_i}: \eqn{\sigma^2 (1/\sum w +
#' \sum_k B_{0k}^2 \Lambda_k / (\Lambda_k + \lambda)^2)} (plus the
#' unpenalized columns' share), with \eqn{B_0} the new rows' coordinates in
#' the eigenbasis and \eqn{\sigma^2} the weighted residual sum of squares
#' over the effective residual degrees of freedom \eqn{n - 1 - \sum_k (2\phi_k
#' - \phi_k^2)}, \eqn{\phi_k = \Lambda_k / (\Lambda_k + \lambda)}. They
#' describe the variance of the estimate only: ridge is biased, and the bias
#' is not included, so they are not confidence intervals for \eqn{f(x)}. At
#' \eqn{\lambda = 0} they are [predict.lm()]'s.
#' @return A vector for one response column, else a matrix; a factor for
#'   `type = "class"`; a matrix with a column per class for `type = "prob"`.
#'   With `se.fit = TRUE` a list with `fit`, `se.fit`, `df` (the residual
#'   degrees of freedom) and `residual.scale`, as [predict.lm()]. With several
#'   values of `lambda`, the result at each bound along a last dimension
#'   named by the values: a matrix with a column per value for one response
#'   column, else an array row x column x lambda (`type = "prob"`: row x
#'   class x lambda); a data frame with a factor column per value for
#'   `type = "class"`; with `se.fit`, each component so.
#' @export
#' @examples
#' fit <- rlsc(Species ~ ., data = iris)
#' head(predict(fit, iris))
#' head(predict(fit, iris, type = "class"))
predict.rlsc <- function(object, newdata, lambda = object$lambda_min,
                         type = c("response", "class", "prob"), se.fit = FALSE, ..., s = NULL,
                         class_rule = c("decision", "prob")) {
  check_no_dots(...)
  validate_rlsc(object)
  type <- check_type(object, type)
  class_rule <- match.arg(class_rule)
  if (type == "class" && class_rule == "prob") type <- "probable_class"
  se.fit <- check_flag(se.fit, "se.fit")
  if (se.fit && (object$type != "regression" || type != "response")) {
    stop_arg("`se.fit` = TRUE needs a regression fit and `type` = \"response\"")
  }
  if (missing(newdata)) newdata <- NULL
  if (se.fit && is.null(newdata)) stop_arg("`se.fit` = TRUE needs `newdata`")
  if (se.fit && inherits(newdata, "rlsc_chunks")) {
    stop_arg("`se.fit` = TRUE needs in-memory `newdata`, not a chunk source")
  }
  # at several lambdas the new rows are read, checked and mapped once (a
  # chunk source in one pass: predict_chunks()), decisions_at()
  many <- if (!is.null(newdata)) {
    function(ls) {
      ls <- as.list(ls)
      f <- if (inherits(newdata, "rlsc_chunks")) {
        predict_chunks(object, newdata, ls)
      } else {
        decisions_at(object, newdata, ls, if (!se.fit) engines_at(object$engine, ls), se.fit)
      }
      maps <- if (type %in% c("prob", "probable_class")) calibration_maps(object, ls)
      lapply(seq_along(ls), function(k) predict_at(object, newdata, ls[[k]], type, se.fit, f[[k]], maps[[k]]))
    }
  }
  over_lambdas(object, glmnet_s(lambda, s, missing(lambda)), function(l) {
    predict_at(object, newdata, l, type, se.fit)
  }, many)
}

# predict() at one lambda (or one per response column), from the decision
# values `f` and the calibration map `map` when computed already (several
# lambdas at once).
predict_at <- function(object, newdata, lambda, type, se.fit, f = NULL, map = NULL) {
  if (is.null(f)) {
    f <- if (is.null(newdata)) {
      as.matrix(fitted(object, lambda = lambda))
    } else if (inherits(newdata, "rlsc_chunks")) {
      predict_chunks(object, newdata, list(lambda))[[1L]]
    } else {
      predict_matrix(object, newdata, lambda, se.fit)
    }
  }
  if (type == "class") return(stats::setNames(class_labels(object, f), rownames(f)))
  if (type == "probable_class") {   # as decision values: p2 - p1 of two classes
    p <- predict_at(object, newdata, lambda, "prob", se.fit, f, map)
    return(stats::setNames(class_labels(object, if (ncol(p) == 2L) p[, 2L] - p[, 1L] else p),
                           rownames(f)))
  }
  if (type == "prob") {
    return(class_probabilities(object, f, map %||% calibration_maps(object, list(lambda))[[1L]]))
  }
  se <- attr(f, "se")
  attr(f, "se") <- NULL
  fit <- if (ncol(f) == 1L) stats::setNames(f[, 1L], rownames(f)) else f
  if (!se.fit) return(fit)
  list(fit = fit, se.fit = if (ncol(se$se) == 1L) stats::setNames(se$se[, 1L], rownames(f)) else se$se,
       df = drop_columns(se$df), residual.scale = drop_columns(se$scale))
}

# New data as the engine takes them, read and checked once for any number of
# lambdas: the design of the rows without NA, prepared (prepare_design()),
# which rows those are (`ok`) and the rows' names.
new_rows <- function(object, newdata) {
  x <- if (!is.null(object$terms)) new_design(object, newdata) else match_columns(object, newdata)
  if (length(dim(x)) != 2L) x <- as_design(x, "newdata")
  ok <- complete_rows(x)
  # automatic row names of a data frame name nothing, as in as.matrix()
  names <- if (!is.data.frame(x) || .row_names_info(x) > 0L) rownames(x)
  design <- if (any(ok)) prepare_design(object, as_design(x[ok, , drop = FALSE], "newdata"))
  list(design = design, ok = ok, names = names)
}

# Decision values of new data at each of the list `lambdas`, its rows read,
# checked and mapped once (new_rows()): `engines` the engine at each lambda
# (engines_at(); NULL: the fit's own), which take the rows moved to their
# shared origin once (at_origin()).  A list of predict_matrix()'s values.
decisions_at <- function(object, newdata, lambdas, engines = NULL, se = FALSE) {
  rows <- new_rows(object, newdata)
  if (!is.null(engines) && !is.null(rows$design)) {
    moved <- at_origin(engines, rows$design)
    rows$design <- moved$x
    engines <- moved$engines
  }
  # one warning for all the lambdas whose predictions may be inaccurate
  warned <- FALSE
  out <- withCallingHandlers(lapply(seq_along(lambdas), function(k) {
    if (!is.null(engines)) object$engine <- engines[[k]]
    predict_matrix(object, newdata, lambdas[[k]], se, rows)
  }), rlsc_prediction_accuracy = function(w) {
    warned <<- TRUE
    invokeRestart("muffleWarning")
  })
  if (warned) {
    warn_unreliable(if (is.null(engines)) object$engine else engines[[1L]],
                    unlist(lapply(lambdas, lambda_value, object = object)),
                    new_rows = TRUE, standardized = !is.null(object$scale),
                    columns = column_names_of(object$xnames, object$features))
  }
  out
}

# Decision values (m x T) at new data (`rows`, new_rows()); rows with NA
# values get NA.  With `se` their standard errors in attribute "se"
# (prediction_se()).
predict_matrix <- function(object, newdata, lambda, se = FALSE, rows = new_rows(object, newdata)) {
  ok <- rows$ok
  out <- matrix(NA_real_, length(ok), ncol(object$y), dimnames = list(rows$names, response_names(object$y)))
  if (se) err <- list(se = out, df = NULL, scale = NULL)
  if (any(ok)) {
    out[ok, ] <- predict_design(object, rows$design, lambda)
    if (se) {
      got <- prediction_se(object, rows$design, lambda_value(object, lambda))
      err$se[ok, ] <- got$se
      err[c("df", "scale")] <- got[c("df", "scale")]
    }
  }
  if (se) attr(out, "se") <- err
  out
}

# Rows without NA (or NaN) of a data frame, matrix or sparse Matrix.  Infinite
# values are an error: their predictions would be infinite or NaN.
complete_rows <- function(x) {
  sparse <- is_sparse(x)
  if (sparse) x <- methods::as(x, "TsparseMatrix")
  values <- if (!sparse) as.matrix(x) else if (methods::.hasSlot(x, "x")) x@x
  if (is.numeric(values) && any(is.infinite(values))) {
    stop_arg("`newdata` must not contain Inf values, not ", sum(is.infinite(values)),
             " (rows with NA get NA predictions)")
  }
  if (!sparse) return(stats::complete.cases(x))
  !seq_len(nrow(x)) %in% (x@i[is.na(values)] + 1L)
}

# The training columns of new data: by name when the training `x` and the new
# data both have column names (a missing one is an error), by position when
# either has none (then predict_design() checks their number) or when the
# names are the training ones in their order (the only match when the
# training `x` names two columns alike).
match_columns <- function(object, newdata) {
  if (is.null(dim(newdata)) && (is.numeric(newdata) || is.logical(newdata))) {
    newdata <- matrix(newdata, ncol = 1L)   # a vector is one column
  }
  nms <- colnames(newdata)
  if (identical(object$kernel$name, "precomputed") || is.null(nms) ||
      isFALSE(object$named_columns)) {
    return(newdata)
  }
  if (identical(nms, object$xnames)) return(newdata)
  lacking <- setdiff(object$xnames, nms)
  if (length(lacking)) {
    stop_arg("`newdata` must have the columns of the training `x`; it lacks ",
             name_list(lacking), " (it has ", name_list(nms), ")")
  }
  same <- unique(object$xnames[duplicated(object$xnames)])
  if (length(same)) {   # a name of two training columns matches by position only
    stop_arg("`newdata` must have the columns of the training `x` in their order, as the ",
             "training `x` has more than one column named ", name_list(same))
  }
  twice <- intersect(object$xnames, nms[duplicated(nms)])
  if (length(twice)) stop_arg("`newdata` must have each training column once, not ", name_list(twice))
  newdata[, object$xnames, drop = FALSE]
}

# Decision values (m x T) of the rows of a design prepared by
# prepare_design(), through the engine: new columns scaled as the training
# ones were, or, for a precomputed kernel, the m x n cross-kernel with the
# training rows.
predict_design <- function(object, x, lambda) {
  lam <- lambda_value(object, lambda)
  out <- at_lambdas(lam, ncol(object$y), function(l) {
    f <- engine_decision(object$engine, x, l)
    list(f = f, bound = attr(f, "bound"))
  }, engine = object$engine)
  f <- out$f
  attr(f, "bound") <- NULL
  warn_unreliable(object$engine, lam, new_rows = TRUE, standardized = !is.null(object$scale),
                  columns = column_names_of(object$xnames, object$features))
  # (the slim fit of predict_chunks() holds the scale of y, not y)
  if (!is.null(out$bound)) warn_prediction(out$bound, object$y_scale %||% y_scale(object$y), lam)
  dimnames(f) <- list(rownames(x), response_names(object$y))
  f
}

# New rows as the engine takes them, checked (the engines scale columns
# themselves); for a Nystrom or random-feature fit, their features.
prepare_design <- function(object, x) {
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
  if (!is.null(object$features)) x <- feature_rows(object$features, x)
  if (!is.null(object$kernel) && is_sparse(x)) x <- as.matrix(x)
  x
}

# `type` of predict() and loo_predict(): "class" needs a classification fit.
check_type <- function(object, type = c("response", "class", "prob")) {
  type <- match.arg(type)
  if (type != "response" && object$type != "classification") {
    stop_arg("`type` = \"", type, "\" needs a classification fit; this one is regression")
  }
  type
}

# predict(fit, newdata = <chunk source>): the decision values of every chunk's
# rows, in chunk order (rows with NA values of a formula fit's variables give
# NA), at each of the lambdas of the list `lambdas` (each a single value or
# one per response column), in one pass over the chunks: a list of matrices.
# The workers get a slim copy of the fit: what predict() needs at these
# lambdas, a linear fit's coefficients at each instead of its training rows,
# and terms without an environment (they would carry the caller's).
predict_chunks <- function(object, src, lambdas) {
  lambdas <- lapply(lambdas, lambda_value, object = object)
  # (an engine that is no linear model is the same at every lambda: once)
  engines <- engines_at(object$engine, lambdas)
  keep <- c("path", "criterion", "lambda_min", "lambda_1se", "per_response", "terms", "xlevels",
            "contrasts", "nvars", "xnames", "named_columns", "kernel", "features", "nobs", "type",
            "classes")
  slim <- structure(c(unclass(object)[intersect(keep, names(object))],
                      list(engine = if (is.null(engines)) object$engine, engines = engines,
                           y = object$y[0L, , drop = FALSE],
                           # (the scale of a kernel fit's bound; a chunk fit holds no y)
                           y_scale = if (nrow(object$y)) y_scale(object$y))),
                    class = class(object))
  if (!is.null(slim$terms)) environment(slim$terms) <- globalenv()
  progress <- if (requireNamespace("progressr", quietly = TRUE)) {
    progressr::progressor(steps = length(src$chunks))
  }
  parts <- map_chunks(src, predict_chunk, c, slim = slim, lambdas = lambdas, progress = progress,
                      what = "predicting")
  lapply(seq_along(lambdas), function(k) {
    out <- do.call(rbind, lapply(parts, `[[`, k))
    rownames(out) <- NULL   # each chunk numbers its own rows
    out
  })
}

# A chunk's decision values at each lambda (a list in a list, which `c`
# merges into one element per chunk).
predict_chunk <- function(data, i, slim, lambdas) {
  newdata <- if (is.null(slim$terms) && is.list(data) && !is.data.frame(data)) data$x else data
  list(decisions_at(slim, newdata, lambdas, slim$engines))
}
