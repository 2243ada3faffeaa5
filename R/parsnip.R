# The parsnip engine "rlsc" (tidymodels) for linear_reg() (regression),
# logistic_reg() (two classes) and multinom_reg() (three or more), registered
# in parsnip's model environment when parsnip is loaded: parsnip is only
# suggested, so .onLoad() registers the engine at once if parsnip is already
# loaded and otherwise from a hook on parsnip's own loading, as parsnip's
# extension guide asks of engines that live in other packages.

#' The rlsc engine for parsnip (tidymodels)
#'
#' With parsnip installed, loading rlsc registers the engine `"rlsc"` for
#' [parsnip::linear_reg()] (regression), [parsnip::logistic_reg()] (two
#' classes) and [parsnip::multinom_reg()] (three or more classes: RLSC,
#' one-vs-all):
#'
#' ```
#' parsnip::linear_reg(penalty = tune()) |> parsnip::set_engine("rlsc")
#' ```
#'
#' `rlsc_train()` is the function the engine calls; users call
#' [parsnip::fit()] (or fit a workflow) and never need it.
#'
#' @section The penalty:
#' `penalty` is the \eqn{\lambda} of [rlsc()], on its sum-of-squares scale
#' (scikit-learn's `alpha`; see `vignette("lambda-scales")`), for the columns
#' standardized as the engine fits them (below). For regression it maps onto
#' the glmnet engine's `penalty` (glmnet's `lambda` with `alpha = 0`, both
#' standardizing) as
#' \deqn{\lambda_{rlsc} = \lambda_{glmnet} \sum_i w_i / s_y,}
#' \eqn{\sum_i w_i = n} without case weights and \eqn{s_y} the (weighted,
#' \eqn{1/\sum w}) standard deviation of the outcome, since glmnet scales
#' the outcome to unit variance and the loss by \eqn{1/(2n)}: the same fit
#' to rounding. The factor depends on the data, so a grid tuned for one
#' engine is not the other's on resamples. For classification no mapping
#' exists: glmnet fits the logistic (multinomial) likelihood, rlsc least
#' squares on -1/+1 codes, different models at every penalty.
#'
#' Without `penalty` the engine chooses \eqn{\lambda} by exact leave-one-out
#' over [rlsc()]'s default grid (`lambda_min`), and predicts there. With a
#' `penalty` the fit is made at that value alone: one factorization, from
#' which `predict(fit, new_data, penalty = )` and [parsnip::multi_predict()]
#' predict at any other penalty exactly, so that `tune::tune_grid()` fits
#' each resample once for a whole grid of penalties (`penalty` has
#' submodels). Class probabilities at every penalty are those of a fit at
#' that penalty: the map of `predict(type = "prob")` is fitted on the exact
#' leave-one-out decision values at the penalty asked for (see
#' [predict.rlsc()]). The default tuning range is \eqn{10^{-3}} to \eqn{10^5}; the
#' values that matter grow with the number of rows, so a grid from the data (for example the `lambda` of an
#' [rlsc()] fit, as in the examples) serves better.
#'
#' @section Standardization:
#' The engine standardizes by default (`standardize = TRUE`, as the glmnet
#' engine does; [rlsc()] itself does not): the columns parsnip builds
#' (indicator columns of factors, a recipe's columns) have arbitrary units,
#' and a ridge penalty on columns of unequal scales shrinks the small-scale
#' ones hardest and can lose directions of a badly conditioned Gram matrix.
#' Standardized, the penalty treats all columns alike and its scale does not
#' change with the units. Coefficients and predictions are in the original
#' units. `set_engine("rlsc", standardize = FALSE)` fits the columns as given
#' (for columns already on one scale, such as a kernel's inputs chosen so).
#'
#' @section Kernels:
#' Engine arguments go to [rlsc()]: `kernel`, `standardize`, `class_weights`,
#' `nlambda`, `cv`, `criterion` and the rest (not `lambda`: that is the
#' model's `penalty`). With `kernel =
#' kernel_rbf(sigma = c(...))` (or [nystrom()], [random_features()]) each fit
#' chooses \eqn{\sigma} by its own exact leave-one-out. The engine argument
#' `sigma` instead fixes the width of the RBF kernel (of `kernel`, `"rbf"` by
#' default when `sigma` is given), so that it can be tuned by resampling:
#' `set_engine("rlsc", sigma = tune())`, with a default range of
#' \eqn{10^{-1}} to \eqn{10^{1.5}}, for predictors on unit scale (as the
#' engine's default standardization puts them). Exact kernel
#' fits keep their eigendecomposition (`keep_eigen = TRUE` unless given), so
#' that they predict at any penalty.
#'
#' @section Predictions:
#' `type = "numeric"` (regression), `"class"` and `"prob"` (classification:
#' probabilities calibrated on the exact leave-one-out decision values, see
#' [predict.rlsc()]) and `"raw"` (the decision values). The predicted class is
#' the most probable class (`class_rule = "prob"` of [predict.rlsc()]), so
#' that `.pred_class` agrees with the `.pred_<class>` columns; a level of the
#' outcome absent from the training data gets its column, of zeros. Case
#' weights (`hardhat::importance_weights()`, `hardhat::frequency_weights()`)
#' become the `weights` of [rlsc()]. `mixture` must be 0 (ridge): rlsc has no
#' lasso part; `mixture = tune()` tunes over the one value 0.
#'
#' @param x for `rlsc_train()`, a numeric matrix of predictors (parsnip
#'   builds it, with indicator columns for factors); for `tidy()`, a parsnip
#'   fit of the rlsc engine.
#' @param y the outcome: numeric, or a factor.
#' @param weights case weights, or `NULL`.
#' @param penalty for `rlsc_train()`, \eqn{\lambda \ge 0}, or `NULL` to
#'   choose it by exact leave-one-out; for `predict()` and `tidy()` one
#'   penalty (by default the model's, else `lambda_min`); for
#'   `multi_predict()`, the penalties to predict at (by default the fit's grid
#'   of \eqn{\lambda}).
#' @param mixture `NULL` or 0: rlsc fits ridge penalties only.
#' @param standardize as for [rlsc()], but `TRUE` by default (see
#'   "Standardization").
#' @param sigma the width of the RBF kernel, or `NULL`.
#' @param kernel as for [rlsc()]; `"rbf"` when `sigma` is given.
#' @param keep_eigen as for [rlsc()]; `TRUE` for exact kernels by default.
#' @param ... further arguments of [rlsc()].
#' @return `rlsc_train()`: an [rlsc()] fit.
#' @name rlsc_engine
#' @aliases rlsc-parsnip predict._rlsc multi_predict._rlsc tidy._rlsc
#' @seealso `vignette("rlsc")` for the engine in a tuning workflow.
#' @examples
#' fit <- rlsc_train(as.matrix(mtcars[, -1]), mtcars$mpg, penalty = 2)
#' fit$lambda
#' @examplesIf requireNamespace("parsnip", quietly = TRUE)
#' library(parsnip)
#' spec <- linear_reg(penalty = 2) |> set_engine("rlsc")
#' cars <- fit(spec, mpg ~ ., data = mtcars)
#' predict(cars, mtcars[1:3, ])
#' predict(cars, mtcars[1:3, ], penalty = 8)
#' multi_predict(cars, mtcars[1:2, ], penalty = c(0.5, 2, 8))$.pred[[1]]
#' tidy(cars, penalty = 8)
#' # without a penalty, lambda is chosen by exact leave-one-out
#' loo <- fit(linear_reg() |> set_engine("rlsc"), mpg ~ ., data = mtcars)
#' extract_fit_engine(loo)$lambda_min
#' # RLSC with calibrated probabilities; the class is the most probable one
#' flowers <- fit(multinom_reg() |> set_engine("rlsc"), Species ~ ., data = iris)
#' predict(flowers, iris[c(1, 51, 101), ], type = "prob")
#' predict(flowers, iris[c(1, 51, 101), ])
NULL

#' @rdname rlsc_engine
#' @export
rlsc_train <- function(x, y, weights = NULL, penalty = NULL, mixture = NULL, sigma = NULL,
                       kernel = NULL, keep_eigen = NULL, standardize = TRUE, ...) {
  if ("lambda" %in% dots_names(...)) {
    stop_arg("the rlsc engine takes `lambda` from the model's `penalty`: give ",
             "`penalty` in linear_reg(), logistic_reg() or multinom_reg() (a number, or tune()), ",
             "not `lambda` in set_engine()")
  }
  if (!is.null(mixture) && !identical(as.double(mixture), 0)) {
    stop_arg("the rlsc engine fits ridge penalties: `mixture` must be 0 (or not given), not ",
             paste(format(mixture, trim = TRUE), collapse = ", "))
  }
  if (!is.null(penalty)) {
    ok <- is.numeric(penalty) && length(penalty) == 1L && is.finite(penalty) && penalty >= 0
    if (!ok) {
      stop_arg("`penalty` must be a single number >= 0 for the rlsc engine, not ",
               paste(format(penalty, trim = TRUE), collapse = ", "))
    }
  }
  given_kernel <- kernel
  if (!is.null(sigma)) kernel <- with_sigma(kernel %||% "rbf", sigma)
  kernel <- kernel %||% "linear"
  exact <- !identical(kernel, "linear") && !inherits(kernel, "rlsc_features") &&
    !identical(kernel$name, "linear")
  keep_eigen <- keep_eigen %||% exact
  # at a given penalty nobody sees the fit's leave-one-out values: their
  # accuracy is no news (predict() warns about the predictions' own)
  fit <- withCallingHandlers(
    rlsc(x, y, lambda = penalty, weights = weights, kernel = kernel, keep_eigen = keep_eigen,
         standardize = standardize, ...),
    rlsc_loo_accuracy = function(w) if (!is.null(penalty)) invokeRestart("muffleWarning"))
  fit$call <- engine_call(match.call(), c(list(penalty = penalty, mixture = mixture, sigma = sigma,
                                               kernel = given_kernel, keep_eigen = keep_eigen,
                                               standardize = standardize), list(...)))
  fit
}

# The call of an engine fit as print() shows it: the values of the
# arguments where they are short (parsnip passes quosures, which print as
# `~penalty`), the data by name, anything longer as it was written.
engine_call <- function(call, values) {
  for (nm in setdiff(names(call)[-1L], c("", "x", "y", "weights"))) {
    v <- values[[nm]]
    arg <- call[[nm]]
    if (inherits(arg, "quosure")) arg <- arg[[2L]]
    call[nm] <- list(if (is.atomic(v) && length(v) <= 10L) v else arg)
  }
  call
}

# The kernel with its RBF width set to `sigma` (one value, the one tuned).
with_sigma <- function(kernel, sigma) {
  if (!is.numeric(sigma) || length(sigma) != 1L || !is.finite(sigma) || sigma <= 0) {
    stop_arg("`sigma` must be a single positive number, not ", paste(format(sigma), collapse = ", "))
  }
  if (identical(kernel, "rbf")) return(kernel_rbf(sigma))
  if (inherits(kernel, "rlsc_kernel") && "sigma" %in% names(kernel$params) &&
      identical(kernel$base %||% kernel$name, "rbf")) {
    kernel$params$sigma <- as.double(sigma)
    return(kernel)
  }
  stop_arg("`sigma` sets the width of an RBF kernel: `kernel` must be \"rbf\", kernel_rbf(), ",
           "nystrom(kernel_rbf()) or random_features(kernel_rbf()), not ",
           if (inherits(kernel, "rlsc_kernel")) format(kernel) else paste(format(kernel), collapse = " "))
}

# parsnip's models and the tuning ranges of the engine's arguments.
parsnip_models <- c(linear_reg = "regression", logistic_reg = "classification",
                    multinom_reg = "classification")

register_parsnip <- function(...) {
  if (!requireNamespace("parsnip", quietly = TRUE)) return(invisible(FALSE))
  if ("rlsc" %in% parsnip::get_model_env()$linear_reg$engine) return(invisible(TRUE))
  for (model in names(parsnip_models)) register_model(model, parsnip_models[[model]])
  invisible(TRUE)
}

register_model <- function(model, mode) {
  parsnip::set_model_engine(model, mode = mode, eng = "rlsc")
  parsnip::set_dependency(model, eng = "rlsc", pkg = "rlsc", mode = mode)
  # mixture: ridge only, so its one value (tune() of it tunes nothing)
  args <- list(penalty = list(pkg = "dials", fun = "penalty", range = c(-3, 5)),
               mixture = list(pkg = "dials", fun = "mixture", range = c(0, 0)),
               sigma = list(pkg = "dials", fun = "rbf_sigma", range = c(-1, 1.5)))
  for (arg in names(args)) {
    parsnip::set_model_arg(model = model, eng = "rlsc", parsnip = arg, original = arg,
                           func = args[[arg]], has_submodel = arg == "penalty")
  }
  parsnip::set_fit(model = model, eng = "rlsc", mode = mode,
                   value = list(interface = "matrix", protect = c("x", "y", "weights"),
                                func = c(pkg = "rlsc", fun = "rlsc_train"), defaults = list()))
  parsnip::set_encoding(model = model, eng = "rlsc", mode = mode,
                        options = list(predictor_indicators = "traditional", compute_intercept = TRUE,
                                       remove_intercept = TRUE, allow_sparse_x = TRUE))
  # at the penalty predict() was given, else the model's (engine_penalty():
  # predict._rlsc sets it); the class is the most probable one
  pred <- function(type, post = NULL, ...) {
    list(pre = NULL, post = post, func = c(fun = "predict"),
         args = list(object = quote(object$fit), newdata = quote(new_data),
                     lambda = quote(object$spec$args$penalty), type = type, ...))
  }
  types <- if (mode == "regression") {
    list(numeric = pred("response"))
  } else {
    list(class = pred("class", class_rule = "prob"), prob = pred("prob", prob_columns))
  }
  types$raw <- list(pre = NULL, post = NULL, func = c(fun = "predict"),
                    args = list(object = quote(object$fit), newdata = quote(new_data)))
  for (type in names(types)) {
    parsnip::set_pred(model = model, eng = "rlsc", mode = mode, type = type, value = types[[type]])
  }
}

# Probabilities as parsnip takes them: a data frame with a column per level
# of the outcome, in its order; a level absent from the training data (rlsc
# fits the classes that occur) has probability 0, as the glmnet engine gives it.
prob_columns <- function(x, object) {
  as.data.frame(level_probabilities(x, object$lvl), optional = TRUE)
}

# A matrix (rows x classes) or array (rows x classes x penalties) of rlsc's
# probabilities with a column of zeros for each level of `lvl` it lacks.
level_probabilities <- function(p, lvl) {
  have <- colnames(p)
  if (is.null(lvl) || identical(have, lvl)) return(p)
  d <- dim(p)
  d[2L] <- length(lvl)
  out <- array(0, d, dimnames = c(list(rownames(p), lvl), dimnames(p)[-(1:2)]))
  if (length(d) == 2L) out[, have] <- p else out[, have, ] <- p
  out
}

# The classes parsnip gives rlsc's fits: "_" and the fit's class.  Each
# method is one function registered for all of them in NAMESPACE under its
# own name (roxygen writes a class that starts with "_" unquoted, and such a
# NAMESPACE does not parse).

# The penalty of a parsnip fit's predictions: the one given to predict() or
# tidy(), else the model's, else (no penalty: rlsc chose it) "lambda_min".
engine_penalty <- function(object, penalty = NULL) {
  if (is.null(penalty)) return(parsnip::eval_args(object$spec)$args$penalty %||% "lambda_min")
  if (!is.numeric(penalty) || length(penalty) != 1L || !is.finite(penalty) || penalty < 0) {
    stop_arg("`penalty` must be a single number >= 0 (multi_predict() predicts at several), not ",
             paste(format(penalty, trim = TRUE), collapse = ", "))
  }
  penalty
}

#' @rdname rlsc_engine
#' @param object a parsnip fit of the rlsc engine.
#' @param new_data new predictors.
#' @param type for `predict()` as [parsnip::predict.model_fit()]; for
#'   `multi_predict()` `"numeric"` (regression), `"class"` or `"prob"`.
#' @param opts for `type = "raw"`, arguments of [predict.rlsc()].
#' @details `predict()` takes `penalty`, a single number, as the glmnet
#'   engine does: the predictions are those at that penalty, from the one
#'   fit (exact for linear fits, and kernel fits that keep their
#'   eigendecomposition).
#'
#'   `multi_predict()` returns a tibble with a list column `.pred`: for
#'   each row of `new_data` a tibble with one row per penalty, in increasing
#'   order, `penalty` and the predictions (`.pred`, `.pred_class` or
#'   `.pred_<class>`), as for parsnip's glmnet engine. The new data are
#'   prepared once for all penalties.
#'
#'   `tidy()` gives the coefficients at one penalty (the model's, or
#'   `penalty`): a tibble of `term`, `estimate` and `penalty` (with `class`
#'   first for three or more classes, `response` for several outcomes), as
#'   the glmnet engine's; kernel fits have a coefficient per training row.
#' @usage \method{predict}{_rlsc}(object, new_data, type = NULL, opts = list(), penalty = NULL, ...)
#' @rawNamespace S3method(predict, "_rlsc", predict_rlsc_engine)
#' @rawNamespace S3method(predict, "_rlsc_kernel_fit", predict_rlsc_engine)
#' @rawNamespace S3method(predict, "_rlsc_features_fit", predict_rlsc_engine)
#' @rawNamespace S3method(predict, "_rlsc_banded_fit", predict_rlsc_engine)
predict_rlsc_engine <- function(object, new_data, type = NULL, opts = list(), penalty = NULL, ...) {
  object$spec$args$penalty <- engine_penalty(object, penalty)
  parsnip::predict.model_fit(object, new_data = new_data, type = type, opts = opts, ...)
}

# parsnip's predict_numeric(), predict_class() and predict_classprob() of the
# engine: the penalty evaluated (the model's holds a quosure) for the
# prediction's `lambda`, as the glmnet engine does; tune calls
# predict.model_fit() directly, so predict_rlsc_engine() is not always
# passed.
#' @rawNamespace S3method(parsnip::predict_numeric, "_rlsc", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_numeric, "_rlsc_kernel_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_numeric, "_rlsc_features_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_numeric, "_rlsc_banded_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_class, "_rlsc", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_class, "_rlsc_kernel_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_class, "_rlsc_features_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_class, "_rlsc_banded_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_classprob, "_rlsc", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_classprob, "_rlsc_kernel_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_classprob, "_rlsc_features_fit", predict_at_penalty)
#' @rawNamespace S3method(parsnip::predict_classprob, "_rlsc_banded_fit", predict_at_penalty)
#' @noRd
predict_at_penalty <- function(object, new_data, ...) {
  object$spec$args$penalty <- engine_penalty(object)
  NextMethod()
}

#' @rdname rlsc_engine
#' @usage \method{multi_predict}{_rlsc}(object, new_data, type = NULL, penalty = NULL, ...)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc", multi_predict_rlsc)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc_kernel_fit", multi_predict_rlsc)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc_features_fit", multi_predict_rlsc)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc_banded_fit", multi_predict_rlsc)
multi_predict_rlsc <- function(object, new_data, type = NULL, penalty = NULL, ...) {
  check_no_dots(...)
  regression <- object$spec$mode == "regression"
  type <- type %||% if (regression) "numeric" else "class"
  allowed <- if (regression) "numeric" else c("class", "prob")
  if (!is.character(type) || length(type) != 1L || !type %in% allowed) {
    stop_arg("`type` must be ", paste0("\"", allowed, "\"", collapse = " or "), " for a ",
             object$spec$mode, " fit, not ", paste(format(type), collapse = ", "))
  }
  penalty <- penalty %||% object$fit$lambda
  if (!is.numeric(penalty) || !length(penalty) || any(!is.finite(penalty) | penalty < 0)) {
    stop_arg("`penalty` must be numbers >= 0, not ", paste(format(penalty, trim = TRUE), collapse = ", "))
  }
  penalty <- sort(as.double(penalty))
  # all penalties in one call: parsnip prepares the rows once, rlsc maps them once
  opts <- switch(type, numeric = list(type = "response"), prob = list(type = "prob"),
                 class = list(type = "class", class_rule = "prob"))
  f <- stats::predict(object, new_data, type = "raw", opts = c(list(lambda = penalty), opts))
  nl <- length(penalty)
  # each column a vector over (penalty, row), each row's penalties together
  by_row <- function(v, m) as.vector(t(matrix(v, m, nl)))
  cols <- switch(type,
    numeric = list(.pred = by_row(f, NROW(f))),
    class = {
      f <- if (is.factor(f)) list(f) else as.list(f)
      m <- length(f[[1L]])
      lv <- levels(f[[1L]])
      list(.pred_class = factor(lv[by_row(unlist(lapply(f, as.integer)), m)], levels = lv))
    },
    prob = {
      m <- nrow(f)
      p <- level_probabilities(array(f, c(m, ncol(f), nl), list(NULL, colnames(f), NULL)), object$lvl)
      stats::setNames(lapply(seq_len(ncol(p)), function(k) by_row(p[, k, ], m)),
                      paste0(".pred_", colnames(p)))
    })
  m <- length(cols[[1L]]) / nl
  cols <- c(list(penalty = rep(penalty, m)), cols)
  tibble::tibble(.pred = lapply(seq_len(m), function(i) {
    at <- (i - 1L) * nl + seq_len(nl)
    tibble::new_tibble(lapply(cols, `[`, at), nrow = nl)
  }))
}

#' @rdname rlsc_engine
#' @usage \method{tidy}{_rlsc}(x, penalty = NULL, ...)
#' @rawNamespace S3method(generics::tidy, "_rlsc", tidy_rlsc_engine)
#' @rawNamespace S3method(generics::tidy, "_rlsc_kernel_fit", tidy_rlsc_engine)
#' @rawNamespace S3method(generics::tidy, "_rlsc_features_fit", tidy_rlsc_engine)
#' @rawNamespace S3method(generics::tidy, "_rlsc_banded_fit", tidy_rlsc_engine)
tidy_rlsc_engine <- function(x, penalty = NULL, ...) {
  check_no_dots(...)
  lambda <- engine_penalty(x, penalty)
  cf <- stats::coef(x$fit, lambda = lambda)
  at <- lambda_value(x$fit, lambda)
  if (!is.matrix(cf)) return(tibble::tibble(term = names(cf), estimate = unname(cf), penalty = at))
  out <- tibble::tibble(group = rep(colnames(cf), each = nrow(cf)), term = rep(rownames(cf), ncol(cf)),
                        estimate = as.vector(cf), penalty = at)
  names(out)[1L] <- if (x$fit$type == "classification") "class" else "response"
  out
}
