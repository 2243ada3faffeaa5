# The fit object: one constructor for every fit, linear or kernel, and a cheap
# validator the methods call on entry, so that a damaged object is a clear
# error and never reaches C.

# `path` is the LOO table (one row per lambda, loo_table()); `lambda`, `df`,
# `cvm` and `cvsd` are read from it on access ($.rlsc).  `kernel` holds the
# fields of a kernel fit (kernel_fit.R), which also gets class "rlsc_kernel_fit".
new_rlsc <- function(call, engine, path, crit, resp, weights, intercept, mode, x,
                     scale = NULL, kernel = NULL, nobs = nrow(resp$y), npos = sum(weights > 0),
                     cv = list(type = "loo")) {
  sel <- select_fit(path, crit)
  fit <- c(list(
    call = call, engine = engine, path = path, criterion = crit$name,
    cv = if (cv$type == "kfold") cv$K else cv$type, foldid = cv$folds,
    per_response = isTRUE(crit$per_response),
    lambda_min = stats::setNames(path$lambda[sel$index_min], names(sel$index_min)),
    lambda_1se = stats::setNames(path$lambda[sel$index_1se], names(sel$index_1se)),
    index_min = sel$index_min, index_1se = sel$index_1se,
    type = resp$type, classes = resp$classes, multi = resp$multi, y = resp$y,
    yfactor = resp$yfactor, weights = weights, intercept = intercept, mode = mode,
    nobs = nobs, npos = npos, nvars = ncol(x), xnames = column_names(x),
    named_columns = !is.null(colnames(x)), rownames = rownames(x), scale = scale), kernel)
  validate_rlsc(structure(fit, class = c(if (!is.null(kernel)) "rlsc_kernel_fit", "rlsc")))
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
# methods.
validate_rlsc <- function(fit) {
  bad <- function(...) stop_arg("`object` is not a valid rlsc fit: ", ...)
  need <- c("engine", "path", "criterion", "y", "nobs", "npos", "nvars", "xnames",
            "index_min", "index_1se", "intercept")
  if (!is.list(fit) || !all(need %in% names(fit))) {
    bad("it lacks ", paste(setdiff(need, names(fit)), collapse = ", "))
  }
  y <- fit$y
  chunked <- inherits(fit$engine, "rlsc_chunked")   # its rows stay in the chunks
  n <- if (chunked) fit$nobs else nrow(y)
  if (!is.double(y) || !is.matrix(y) || !ncol(y)) bad("`y` must be a double matrix")
  if (!is.numeric(fit$nobs) || length(fit$nobs) != 1L || !is.numeric(fit$npos) ||
      length(fit$npos) != 1L || fit$npos > fit$nobs) {
    bad("`nobs` and `npos` must count the observations")
  }
  if (!chunked && (fit$nobs != n || !is.double(fit$weights) || length(fit$weights) != n ||
                   !all_finite(fit$weights) || any(fit$weights < 0))) {
    bad("`nobs`, `y` and `weights` must agree on the ", n, " observations, with finite ",
        "non-negative weights")
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
  if (!is.null(fit$scale) && (!is.double(fit$scale) || length(fit$scale) != fit$nvars ||
                              !all_finite(fit$scale) || any(fit$scale <= 0))) {
    bad("`scale` must hold one positive number per column of `x`")
  }
  eng <- fit$engine
  snapshot <- inherits(eng, "rlsc_snapshot")
  if (snapshot) validate_snapshot(eng) else validate_engine(eng)
  nt <- if (snapshot) dim(eng$loo)[2L] else ncol(eng$g)
  if ((!chunked && length(eng$w) != n) || nt != ncol(y)) bad("its engine does not match `y`")
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
  cross <- if (snapshot) eng$cross else eng
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
  if (!is.null(eng[["v"]]) && !inherits(fit$kernel, "rlsc_features") && nrow(eng[["v"]]) != fit$nvars) {
    bad("its engine's eigenvectors must have `nvars` = ", fit$nvars, " rows")
  }
  fit
}

valid_kernel <- function(kern) {
  params <- kern$params
  one <- vapply(params, function(p) length(p) == 1L && (!is.numeric(p) || is.finite(p)), NA)
  positive <- function(p) is.null(p) || isTRUE(p > 0)
  inherits(kern, "rlsc_kernel") && all(one) && positive(params$sigma) &&
    positive(params$scale) && positive(params$degree) &&
    (is.null(params$degree) || params$degree == round(params$degree)) &&
    (is.null(params$offset) || isTRUE(params$offset >= 0))
}
