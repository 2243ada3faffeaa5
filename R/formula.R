#' @rdname rlsc
#' @order 3
#' @param formula a model formula, as for [lm()]: `y ~ .`, factors,
#'   interactions, `poly()`, `splines::ns()`, `log()` and `I()` terms. The
#'   model's own intercept (unpenalized) replaces the intercept column of the
#'   model matrix; `- 1` or `+ 0` fits without one. A factor, character or
#'   logical response means classification. From a chunk source, terms whose
#'   parameters come from the data take those of all rows, as in memory:
#'   `scale()` and `poly()` of one variable from extra passes over the chunks;
#'   others (`splines::ns()` or `bs()` without `knots` and `Boundary.knots`,
#'   `poly()` of several variables, `I(a - mean(a))`, `cut(a, 3)`) are an
#'   error: fix their parameters in the call (or use `raw = TRUE`).
#' @param data a data frame holding the variables of `formula`, or a chunk
#'   source ([chunk_source()]) whose `read()` returns data frames.
#' @param subset,na.action as for [lm()]; by default rows with `NA` are
#'   omitted (`na.omit`); with `na.exclude` the outputs of [fitted()],
#'   [residuals()] and [loo_predict()] are padded back with `NA`.
#' @param contrasts as for [model.matrix()].
#' @export
#' @examples
#'
#' # the formula interface
#' fit <- rlsc(mpg ~ wt + hp + factor(cyl), data = mtcars)
#' predict(fit, newdata = head(mtcars))
rlsc.formula <- function(formula, data, subset, weights, na.action, contrasts = NULL, foldid, ...) {
  call <- match.call()
  if ("intercept" %in% dots_names(...)) {
    stop_arg("`intercept` is set by the formula: use `- 1` to fit without one")
  }
  if (!missing(data) && inherits(data, "rlsc_chunks")) {
    if (!missing(subset)) stop_arg("`subset` does not apply to a chunk source: select rows in read()")
    call[[1L]] <- as.name("rlsc")
    first <- first_chunk(data)
    template <- formula_template(formula, first, data$levels, if (!missing(weights)) substitute(weights),
                                 if (missing(na.action)) getOption("na.action", "na.omit") else na.action,
                                 contrasts, if (!missing(foldid)) substitute(foldid))
    args <- args_of_dots(...)
    args$intercept <- attr(template$terms, "intercept") == 1L
    fit <- fit_model(list(kind = "chunks", src = data, template = template, first = first), args, call)
    fit$terms <- fit$data$template$terms
    environment(fit$terms) <- environment(formula)
    fit$xlevels <- fit$data$template$xlev
    fit$contrasts <- fit$data$template$contrasts_used
    fit$na.action <- chunk_na_action(fit$data)
    return(fit)
  }
  mf <- match.call(expand.dots = FALSE)
  mf <- mf[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "foldid"), names(mf), 0L))]
  mf[[1L]] <- quote(stats::model.frame)
  names(mf)[2L] <- "formula"
  mf <- tryCatch(eval(mf, parent.frame()), error = function(e) {
    stop_arg("cannot build the model frame: ", conditionMessage(e))
  })
  terms <- attr(mf, "terms")
  if (!attr(terms, "response")) stop_arg("`formula` must have a response, as in `y ~ x`")
  mf <- drop_unused_levels(mf)
  if (!is.null(attr(terms, "offset"))) {
    offsets <- as.list(attr(terms, "variables"))[-1L][attr(terms, "offset")]
    stop_arg("`formula` must not have an offset, not ",
             paste(vapply(offsets, deparse1, ""), collapse = ", "),
             ": subtract it from the response instead")
  }
  y <- stats::model.response(mf)
  x <- design_matrix(terms, mf, contrasts)
  response <- deparse1(formula[[2L]])
  # a numeric response is one column named as the formula names it (as
  # cbind(a, b) ~ . names its columns): per-response tables and labels read
  # `mpg`, not `y1`
  if (is.numeric(y) && is.null(dim(y))) y <- matrix(y, ncol = 1L, dimnames = list(names(y), response))
  # name the response as the user wrote it, not `y`
  named <- paste0("the response `", response, "`")
  fit <- withCallingHandlers(
    tryCatch(
      rlsc.default(x, y, weights = stats::model.weights(mf), foldid = mf[["(foldid)"]],
                   intercept = attr(terms, "intercept") == 1L, ...),
      error = function(e) stop_arg(sub("^`y`", named, conditionMessage(e)))),
    warning = function(w) {
      msg <- conditionMessage(w)
      if (!startsWith(msg, "dropping empty level")) return()
      warning(sub("`y`", named, msg, fixed = TRUE), call. = FALSE)
      invokeRestart("muffleWarning")
    })
  call[[1L]] <- as.name("rlsc")
  fit$call <- call
  fit$terms <- terms
  fit$xlevels <- stats::.getXlevels(terms, mf)
  fit$contrasts <- attr(x, "contrasts")
  fit$na.action <- attr(mf, "na.action")
  fit$model <- mf
  fit
}

# Unused levels of the predictors are dropped, as lm() does; the response
# keeps all its levels, so that encode_classes() drops its empty ones with the
# same warning as for the default method and class predictions keep them.
drop_unused_levels <- function(mf) {
  for (j in seq_along(mf)[-1L]) {
    v <- mf[[j]]
    if (is.factor(v) && length(unique(v[!is.na(v)])) < nlevels(v)) mf[[j]] <- v[, drop = TRUE]
  }
  mf
}

# The model matrix without its intercept column: the intercept is the model's
# own, unpenalized one.
design_matrix <- function(terms, mf, contrasts = NULL) {
  x <- stats::model.matrix(terms, mf, contrasts)
  keep <- attr(x, "assign") != 0L
  out <- x[, keep, drop = FALSE]
  attr(out, "assign") <- attr(x, "assign")[keep]
  attr(out, "contrasts") <- attr(x, "contrasts")
  attr(out, "term_vars") <- term_variables(terms)
  out
}

# The variables of each term of `terms` (named by the term's label), so that
# a variable's name covers all of its model-matrix columns (penalty_factor).
term_variables <- function(terms) {
  fac <- attr(terms, "factors")
  labels <- attr(terms, "term.labels")
  if (!length(labels)) return(list())
  stats::setNames(lapply(seq_along(labels), function(j) {
    unique(unlist(lapply(rownames(fac)[fac[, j] > 0], function(v) all.vars(str2lang(v)))))
  }), labels)
}

# New data rebuilt through the training terms and factor levels.
new_design <- function(object, newdata) {
  if (!is.data.frame(newdata) && !is.list(newdata)) {
    stop_arg("`newdata` must be a data frame for a fit made with a formula, not ",
             describe(newdata))
  }
  terms <- stats::delete.response(object$terms)
  missing_vars <- setdiff(all.vars(terms), names(newdata))
  if (length(missing_vars)) {
    stop_arg("`newdata` lacks the variable(s) ", paste0("`", missing_vars, "`", collapse = ", "))
  }
  mf <- stats::model.frame(terms, newdata, na.action = stats::na.pass)
  for (v in names(object$xlevels)) {
    new <- setdiff(unique(as.character(mf[[v]])), c(object$xlevels[[v]], NA))
    if (length(new)) {
      stop_arg("`newdata` has level(s) of `", v, "` not seen in training: ",
               paste(sQuote(new, FALSE), collapse = ", "))
    }
  }
  mf <- stats::model.frame(terms, newdata, na.action = stats::na.pass, xlev = object$xlevels)
  stats::.checkMFClasses(attr(terms, "dataClasses"), mf)
  design_matrix(terms, mf, object$contrasts)
}

#' The model frame of an rlsc fit
#'
#' The data a formula fit was made from, after `subset` and `na.action`, with
#' its `terms`, as [model.frame()] gives it for [lm()].
#'
#' @param formula an [rlsc()] fit made with a formula.
#' @param ... not used.
#' @return A data frame.
#' @export
#' @examples
#' head(model.frame(rlsc(mpg ~ wt + hp, data = mtcars)))
model.frame.rlsc <- function(formula, ...) {
  if (is.null(formula$model)) {
    stop_arg("this fit was made from a matrix, not a formula: it has no model frame")
  }
  formula$model
}

#' The formula of an rlsc fit
#'
#' The model formula of a fit made with a formula, as [formula()] gives it for
#' [lm()]: with `.` expanded into the variables it stood for, and the
#' environment of the original formula.
#'
#' @param x an [rlsc()] fit made with a formula.
#' @param ... not used.
#' @return A formula.
#' @export
#' @examples
#' formula(rlsc(mpg ~ ., data = mtcars))
formula.rlsc <- function(x, ...) {
  check_no_dots(...)
  if (is.null(x$terms)) {
    stop_arg("this fit was made from a matrix, not a formula: it has no formula")
  }
  stats::formula(x$terms)
}
