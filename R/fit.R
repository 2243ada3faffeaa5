# The fit object: one constructor for every fit, linear or kernel, and a cheap
# validator the methods call on entry, so that a damaged object (a saved fit
# edited, or read by another version) is a clear error and never reaches C.

# `path` is the validation table (one row per lambda, criteria.R); `lambda`,
# `df`, `cvm` and `cvsd` are read from it on access ($.rlsc).  `data` is the
# fit's data (source.R), which the methods read again through the engine.
# `kernel` holds the fields of a kernel fit (fit_model.R), which also gets
# class "rlsc_kernel_fit" (and "rlsc_features_fit" for Nystrom and random
# features).  `calibration`, NULL here, is the fit's own to compute
# (calibrate_fit(), from the fit's outputs).
new_rlsc <- function(call, engine, data, path, sel, spec, form, sd = NULL, kernel = NULL,
                     rownames = NULL) {
  resp <- data$resp
  memory <- data$kind == "memory"
  rows <- if (memory) all_rows(data)
  cv <- spec$cv
  fit <- c(list(
    call = call, engine = engine, data = data, path = path, criterion = spec$crit$name,
    cv = if (cv$type == "kfold") attr(path, "folds") %||% cv$K else cv$type,
    foldid = if (memory) data$rows$fold,
    per_response = isTRUE(spec$crit$per_response),
    lambda_min = stats::setNames(path$lambda[sel$index_min], names(sel$index_min)),
    lambda_1se = stats::setNames(path$lambda[sel$index_1se], names(sel$index_1se)),
    index_min = sel$index_min, index_1se = sel$index_1se,
    type = resp$type, classes = resp$classes,
    y = if (memory) rows$y else resp$y0, yfactor = resp$yfactor,
    weights = if (memory) rows$w, intercept = spec$intercept, form = form,
    nobs = if (memory) nrow(rows$y) else sum(data$counts$n),
    npos = if (memory) sum(rows$w > 0) else data$npos,
    nvars = length(data$template$xnames), xnames = data$template$xnames,
    named_columns = isTRUE(data$template$named), rownames = rownames,
    scale = if (!is.null(sd)) stats::setNames(sd, data$template$xnames),
    penalty_factor = if (!is.null(spec$penalty_factor)) {
      stats::setNames(spec$penalty_factor, data$template$xnames)
    }, calibration = NULL), kernel)
  class <- c(if (!is.null(kernel$features)) "rlsc_features_fit",
             if (!is.null(kernel)) "rlsc_kernel_fit", "rlsc")
  structure(fit, class = class)
}

#' @export
`$.rlsc` <- function(x, name) rlsc_field(x, name)

#' @export
`[[.rlsc` <- function(x, i, ...) if (is.character(i)) rlsc_field(x, i) else .subset2(x, i)

# The columns of the LOO table that glmnet users read as fields.
rlsc_field <- function(x, name) {
  path <- .subset2(x, "path")
  switch(name,
         lambda = path$lambda,
         df = path$df,
         cvm = path[[.subset2(x, "criterion")]],
         cvsd = path[[paste0(.subset2(x, "criterion"), "_se")]],
         .subset2(x, name))
}

# Types and dimensions of a fit's fields, checked in O(n + d) on entry to the
# methods (not by new_rlsc(): a fit the package just made is checked by the
# test matrix, test-combinations.R, and each check costs a small fit a
# few percent).
validate_rlsc <- function(object) {
  bad <- function(...) stop_arg("`object` is not a valid rlsc fit: ", ...)
  # the fields as a plain list: `$.rlsc` (the LOO table's columns as fields)
  # took a third of this check's time
  fit <- unclass(object)
  need <- c("engine", "data", "path", "criterion", "y", "nobs", "npos", "nvars", "xnames",
            "index_min", "index_1se", "intercept")
  if (!is.list(fit) || !all(need %in% names(fit))) {
    bad("it lacks ", paste(setdiff(need, names(fit)), collapse = ", "))
  }
  data <- fit$data
  if (!inherits(data, "rlsc_data") || !isTRUE(data$kind %in% c("memory", "chunks")) ||
      (data$kind == "chunks" && !inherits(data$src, "rlsc_chunks"))) {
    bad("`data` must describe its rows in memory or in chunks")
  }
  memory <- data$kind == "memory"
  y <- fit$y
  n <- if (memory) nrow(y) else fit$nobs
  if (!is.double(y) || !is.matrix(y) || !ncol(y)) bad("`y` must be a double matrix")
  if (!is.numeric(fit$nobs) || length(fit$nobs) != 1L || !is.numeric(fit$npos) ||
      length(fit$npos) != 1L || fit$npos > fit$nobs) {
    bad("`nobs` and `npos` must count the observations")
  }
  if (memory && (fit$nobs != n || !is.double(fit$weights) || length(fit$weights) != n ||
                 !all_finite(fit$weights) || any(fit$weights < 0) ||
                 !NROW(data$rows$x) %in% c(0L, n) || !identical(dim(data$rows$y), dim(y)))) {
    bad("`nobs`, `y`, `weights` and its data must agree on the ", n, " observations, with ",
        "finite non-negative weights")
  }
  if (!is.numeric(fit$nvars) || length(fit$nvars) != 1L || length(fit$xnames) != fit$nvars) {
    bad("`nvars` must be the number of `xnames`")
  }
  path <- fit$path
  if (!is.data.frame(path) || !is.double(path$lambda) || !nrow(path) ||
      !all_finite(path$lambda) || any(path$lambda < 0) || is.null(path[[fit$criterion]])) {
    bad("`path` must be the LOO table with non-negative `lambda` and the criterion")
  }
  nl <- nrow(path)
  for (i in c("index_min", "index_1se")) {
    if (!is.numeric(fit[[i]]) || !length(fit[[i]]) || !all(fit[[i]] %in% seq_len(nl))) {
      bad("`", i, "` must index the `lambda` grid")
    }
  }
  for (v in c("scale", "penalty_factor")) {
    if (!is.null(fit[[v]]) && (!is.double(fit[[v]]) || length(fit[[v]]) != fit$nvars ||
                               !all_finite(fit[[v]]) || any(fit[[v]] < 0) ||
                               (v == "scale" && any(fit[[v]] == 0)))) {
      bad("`", v, "` must hold one ", if (v == "scale") "positive" else "non-negative",
          " number per column of `x`")
    }
  }
  cal <- fit$calibration
  if (!is.null(cal) && (!is.list(cal$at) || !is.numeric(cal$K))) {
    bad("`calibration` must hold the maps of the class probabilities")
  }
  eng <- fit$engine
  validate_engine(eng)
  nt <- engine_ncol(eng)
  if ((!is.null(eng$w) && length(eng$w) != n) || nt != ncol(y)) bad("its engine does not match `y`")
  if (!identical(fit$type, "regression") && !identical(fit$type, "classification")) {
    bad("`type` must be \"regression\" or \"classification\"")
  }
  if (fit$type == "classification") {
    k <- length(fit$classes)
    if (!is.character(fit$classes) || k < 2L || ncol(y) != if (k == 2L) 1L else k) {
      bad("`classes` must name the classes coded in the columns of `y`")
    }
  }
  # the kernel of the fit and the one its engine evaluates new rows with
  cross <- engine_cross(eng)
  for (kern in list(fit$kernel, cross[["kernel"]])) {
    if (!is.null(kern) && !valid_kernel(kern)) {
      bad("its kernel must have one finite value of each parameter, a positive `sigma`, ",
          "`scale` and whole `degree`, and a non-negative `offset`")
    }
  }
  if (!is.null(cross[["x"]]) && ncol(cross[["x"]]) != fit$nvars) {
    bad("its engine's training rows must have `nvars` = ", fit$nvars, " columns")
  }
  # (a feature fit's engine works on its m features, not on the columns of x)
  if (!is.null(eng[["v"]]) && is.null(fit$features) && nrow(eng[["v"]]) != fit$nvars) {
    bad("its engine's eigenvectors must have `nvars` = ", fit$nvars, " rows")
  }
  object
}

# The names of the columns a fit's engine works on, which warn_unreliable()
# names those of a near-dependence with: the columns of x, NULL for a model
# on features (Nystrom, random features: its engine's columns are those).
column_names_of <- function(xnames, features) if (is.null(features)) xnames

valid_kernel <- function(kern) {
  params <- kern$params
  one <- vapply(params, function(p) length(p) == 1L && (!is.numeric(p) || is.finite(p)), NA)
  positive <- function(p) is.null(p) || isTRUE(p > 0)
  inherits(kern, "rlsc_kernel") && all(one) && positive(params$sigma) &&
    positive(params$scale) && positive(params$degree) &&
    (is.null(params$degree) || params$degree == round(params$degree)) &&
    (is.null(params$offset) || isTRUE(params$offset >= 0))
}
