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
#' (scikit-learn's `alpha`; glmnet's `lambda` times the number of rows, see
#' `vignette("lambda-scales")`), not glmnet's. Without `penalty` the engine
#' chooses \eqn{\lambda} by exact leave-one-out over [rlsc()]'s default grid
#' (`lambda_min`), and predicts there. With a `penalty` the fit is made at
#' that value alone: one factorization, from which [parsnip::multi_predict()]
#' predicts at any other penalty exactly, so that `tune::tune_grid()` fits
#' each resample once for a whole grid of penalties (`penalty` has
#' submodels). Class probabilities are calibrated at the fitted penalty
#' (the map of `predict(type = "prob")`, fitted on exact K-fold held-out
#' decision values): at other penalties `multi_predict()` sends their exact
#' decision values through that map. The default tuning range is \eqn{10^{-3}} to \eqn{10^5}; the
#' values that matter grow with the number of rows and the scale of the
#' predictors, so a grid from the data (for example the `lambda` of an
#' [rlsc()] fit, as in the examples) serves better.
#'
#' @section Kernels:
#' Engine arguments go to [rlsc()]: `kernel`, `standardize`, `class_weights`,
#' `nlambda`, `cv`, `criterion` and the rest. With `kernel =
#' kernel_rbf(sigma = c(...))` (or [nystrom()], [random_features()]) each fit
#' chooses \eqn{\sigma} by its own exact leave-one-out. The engine argument
#' `sigma` instead fixes the width of the RBF kernel (of `kernel`, `"rbf"` by
#' default when `sigma` is given), so that it can be tuned by resampling:
#' `set_engine("rlsc", sigma = tune())`, with a default range of
#' \eqn{10^{-1}} to \eqn{10^{1.5}}, for predictors on unit scale (e.g. after
#' `recipes::step_normalize()` or with `standardize = TRUE`). Exact kernel
#' fits keep their eigendecomposition (`keep_eigen = TRUE` unless given), so
#' that they predict at any penalty.
#'
#' @section Predictions:
#' `type = "numeric"` (regression), `"class"` and `"prob"` (classification:
#' probabilities calibrated on the exact leave-one-out decision values, see
#' [predict.rlsc()]) and `"raw"` (the decision values). Case weights
#' (`hardhat::importance_weights()`, `hardhat::frequency_weights()`) become
#' the `weights` of [rlsc()]. `mixture` must be 0 (ridge): rlsc has no lasso
#' part.
#'
#' @param x a numeric matrix of predictors (parsnip builds it, with indicator
#'   columns for factors).
#' @param y the outcome: numeric, or a factor.
#' @param weights case weights, or `NULL`.
#' @param penalty for `rlsc_train()`, \eqn{\lambda \ge 0}, or `NULL` to
#'   choose it by exact leave-one-out; for `multi_predict()`, the penalties to
#'   predict at (by default the fit's grid of \eqn{\lambda}).
#' @param mixture `NULL` or 0: rlsc fits ridge penalties only.
#' @param sigma the width of the RBF kernel, or `NULL`.
#' @param kernel as for [rlsc()]; `"rbf"` when `sigma` is given.
#' @param keep_eigen as for [rlsc()]; `TRUE` for exact kernels by default.
#' @param ... further arguments of [rlsc()].
#' @return `rlsc_train()`: an [rlsc()] fit.
#' @name rlsc_engine
#' @aliases rlsc-parsnip
#' @seealso `vignette("rlsc")` for the engine in a tuning workflow.
#' @examples
#' fit <- rlsc_train(as.matrix(mtcars[, -1]), mtcars$mpg, penalty = 2)
#' fit$lambda
#' @examplesIf requireNamespace("parsnip", quietly = TRUE)
#' library(parsnip)
#' spec <- linear_reg(penalty = 2) |> set_engine("rlsc", standardize = TRUE)
#' cars <- fit(spec, mpg ~ ., data = mtcars)
#' predict(cars, mtcars[1:3, ])
#' multi_predict(cars, mtcars[1:2, ], penalty = c(0.5, 2, 8))$.pred[[1]]
#' # without a penalty, lambda is chosen by exact leave-one-out
#' loo <- fit(linear_reg() |> set_engine("rlsc"), mpg ~ ., data = mtcars)
#' extract_fit_engine(loo)$lambda_min
#' # RLSC with calibrated probabilities
#' flowers <- fit(multinom_reg() |> set_engine("rlsc"), Species ~ ., data = iris)
#' predict(flowers, iris[c(1, 51, 101), ], type = "prob")
NULL

#' @rdname rlsc_engine
#' @keywords internal
#' @export
rlsc_train <- function(x, y, weights = NULL, penalty = NULL, mixture = NULL, sigma = NULL,
                       kernel = NULL, keep_eigen = NULL, ...) {
  if (!is.null(mixture) && !identical(as.double(mixture), 0)) {
    stop_arg("the rlsc engine fits ridge penalties: `mixture` must be 0 (or not given), not ",
             paste(format(mixture), collapse = ", "))
  }
  if (!is.null(penalty)) {
    ok <- is.numeric(penalty) && length(penalty) == 1L && is.finite(penalty) && penalty >= 0
    if (!ok) {
      stop_arg("`penalty` must be a single number >= 0 for the rlsc engine, not ",
               paste(format(penalty), collapse = ", "))
    }
  }
  if (!is.null(sigma)) kernel <- with_sigma(kernel %||% "rbf", sigma)
  kernel <- kernel %||% "linear"
  exact <- !identical(kernel, "linear") && !inherits(kernel, "rlsc_features") &&
    !identical(kernel$name, "linear")
  keep_eigen <- keep_eigen %||% exact
  rlsc(x, y, lambda = penalty, weights = weights, kernel = kernel, keep_eigen = keep_eigen, ...)
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
  args <- list(penalty = list(pkg = "dials", fun = "penalty", range = c(-3, 5)),
               mixture = list(pkg = "dials", fun = "mixture", values = 0),
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
  # at the fit's lambda_min: the penalty when one was given, else the LOO choice
  pred <- function(type, post = NULL) {
    list(pre = NULL, post = post, func = c(fun = "predict"),
         args = list(object = quote(object$fit), newdata = quote(new_data), lambda = "lambda_min",
                     type = type))
  }
  types <- if (mode == "regression") {
    list(numeric = pred("response"))
  } else {
    list(class = pred("class"), prob = pred("prob", prob_columns))
  }
  types$raw <- list(pre = NULL, post = NULL, func = c(fun = "predict"),
                    args = list(object = quote(object$fit), newdata = quote(new_data)))
  for (type in names(types)) {
    parsnip::set_pred(model = model, eng = "rlsc", mode = mode, type = type, value = types[[type]])
  }
}

# Probabilities as parsnip takes them: a data frame with a column per class.
prob_columns <- function(x, object) as.data.frame(x, optional = TRUE)

# parsnip's multi_predict() for the classes parsnip gives rlsc's fits
# ("_" and the fit's class): one function, registered for each in NAMESPACE
# under its own name (roxygen writes a class that starts with "_" unquoted,
# and such a NAMESPACE does not parse).
#' @rdname rlsc_engine
#' @param object a parsnip fit of the rlsc engine.
#' @param new_data new predictors.
#' @param type `"numeric"` (regression), `"class"` or `"prob"`.
#' @details `multi_predict()` returns a tibble with a list column `.pred`: for
#'   each row of `new_data` a tibble with one row per penalty, `penalty` and
#'   the predictions (`.pred`, `.pred_class` or `.pred_<class>`), as for
#'   parsnip's glmnet engine.
#' @usage \method{multi_predict}{_rlsc}(object, new_data, type = NULL, penalty = NULL, ...)
#' @usage \method{multi_predict}{_rlsc_kernel_fit}(object, new_data, type = NULL, penalty = NULL, ...)
#' @usage \method{multi_predict}{_rlsc_features_fit}(object, new_data, type = NULL, penalty = NULL, ...)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc", multi_predict_rlsc)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc_kernel_fit", multi_predict_rlsc)
#' @rawNamespace S3method(parsnip::multi_predict, "_rlsc_features_fit", multi_predict_rlsc)
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
    stop_arg("`penalty` must be numbers >= 0, not ", paste(format(penalty), collapse = ", "))
  }
  rlsc_type <- c(numeric = "response", class = "class", prob = "prob")[[type]]
  parts <- lapply(penalty, function(p) {
    f <- stats::predict(object, new_data, type = "raw", opts = list(lambda = p, type = rlsc_type))
    cols <- switch(type,
                   numeric = list(.pred = unname(as.vector(f))),
                   class = list(.pred_class = stats::setNames(f, NULL)),
                   prob = stats::setNames(as.list(as.data.frame(unname(f))),
                                          paste0(".pred_", colnames(f))))
    c(list(penalty = rep(p, NROW(f))), cols, list(.row = seq_len(NROW(f))))
  })
  long <- do.call(rbind, lapply(parts, as.data.frame, optional = TRUE, stringsAsFactors = FALSE))
  long <- long[order(long$.row), ]   # a stable order: each row's penalties as given
  rows <- split(long[setdiff(names(long), ".row")], long$.row)
  tibble::tibble(.pred = lapply(unname(rows), function(r) tibble::as_tibble(`rownames<-`(r, NULL))))
}

.onLoad <- function(libname, pkgname) {
  # a failure to register must not stop rlsc (or parsnip) from loading
  register <- function(...) {
    tryCatch(register_parsnip(), error = function(e) {
      warning("rlsc could not register its parsnip engine: ", conditionMessage(e), call. = FALSE)
    })
  }
  if (isNamespaceLoaded("parsnip")) register()
  setHook(packageEvent("parsnip", "onLoad"), register)
  invisible()
}
