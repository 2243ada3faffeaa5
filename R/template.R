# What every block of rows must look like, and how its data become the
# engine's x, y, weights and folds (read_rows()).  The template of a chunk
# source is built from the first chunk (and the levels pre-scan) on the
# master and sent to the workers with the chunk descriptors: the column
# names, the response's kind and classes, for formula fits the terms (without
# an environment: they carry no data), factor levels and contrasts.  Data in
# memory have a template of kind "rows": their blocks are already x, y, w.
# Every kind then gets the class weights (class_weights) and, for Nystrom and
# random-feature kernels, the feature map of one kernel setting (features.R).

# The matrix interface: read() returns list(x = , y = , weights = ).
matrix_template <- function(first, levels) {
  if (is.data.frame(first)) {
    stop_arg("the chunks are data frames: fit them with a formula, ",
             "rlsc(y ~ ., data = <chunk source>)")
  }
  if (!is.list(first) || is.null(first$x) || is.null(first$y)) {
    stop_arg("chunk 1: read() must return a data frame (for a formula) or ",
             "list(x = , y = , weights = ), not ", describe(first))
  }
  x <- as_design(first$x)
  y <- first$y
  classify <- is.factor(y) || is.character(y) || is.logical(y)
  template <- list(kind = "matrix", xnames = column_names(x), named = !is.null(colnames(x)),
                   type = if (classify) "classification" else "regression", ordered = is.ordered(y))
  if (classify) {
    template$classes <- levels$y %||% if (is.logical(y)) c("FALSE", "TRUE")
    template$scan <- if (is.null(template$classes)) "y" else character()
  } else {
    ycols <- NCOL(y)
    template$y0 <- matrix(0, 0, ycols, dimnames = list(NULL, colnames(y)))
  }
  template
}

# The template of a chunk source made whole from its first chunk: the levels
# (pre-scanned when not given) and, for a formula, the columns of the design
# with every level found, not only the first chunk's.
complete_template <- function(data) {
  template <- scan_levels(data$src, data$template, data$progress)
  if (template$kind == "formula") {
    template <- whole_data_terms(data$src, template, data$progress)
    first <- data$first
    x1 <- tryCatch(
      design_matrix(template$terms, stats::model.frame(template$terms, na_columns(first, template),
                                                       na.action = stats::na.pass,
                                                       xlev = template$xlev), template$contrasts),
      error = function(e) {
        stop_chunk(1L, data$src$chunks[[1L]], conditionMessage(e),
                   " (levels the pre-scan did not see)")
      })
    template$xnames <- colnames(x1)
    template$assign <- attr(x1, "assign")
    template$term_vars <- attr(x1, "term_vars")
    template$contrasts_used <- attr(x1, "contrasts")
  }
  template
}

# The levels pre-scan: one pass reading the values of the factor and
# character columns (template$scan) when they were not given, and counting
# the rows of each class of a classification response (also when its levels
# were given): classes without rows are dropped with a warning by
# observed_classes(), as for a response in memory.
scan_levels <- function(src, template, progress = NULL) {
  classify <- template$type == "classification"
  if (length(template$scan) || classify) {
    found <- map_chunks(src, chunk_levels, merge_levels, template = template,
                        progress = progress, what = "scanning the levels of")
    counts <- found$.counts
    weighed <- found$.weighed
    found$.counts <- found$.weighed <- NULL
    for (v in names(found)) {
      template$xlev[[v]] <- found[[v]]
    }
    if (template$kind == "matrix" && "y" %in% names(found)) template$classes <- found$y
    template$scan <- character()
  }
  if (classify) {
    if (template$kind == "formula") template$classes <- template$xlev[[template$response]]
    template$xlev[[template$response %||% "y"]] <- NULL
    # every level, those without rows too, for the class predictions (as
    # `yfactor` in memory)
    template$yfactor <- factor(character(), levels = template$classes, ordered = isTRUE(template$ordered))
    what <- if (template$kind == "formula") paste0("the response `", template$response, "`") else "`y`"
    template$classes <- observed_classes(template$classes,
                                         template$classes %in% names(counts)[counts > 0], what)
    template$y0 <- class_matrix(integer(), template$classes)
    # which classes have rows of positive weight (check_classes_weighted())
    template$weighed <- template$classes %in% names(weighed)[weighed > 0]
  }
  template
}

# The distinct values of each scanned column of one chunk (of its model frame
# for a formula fit), in the order factor() would give them, and for a
# classification response the rows of each value (`.counts`, named; and
# `.weighed`, those of positive weight, weights that are no numbers or NA
# counting as none: read_rows() rejects them later; for a
# formula the rows complete in the model's variables, which the fit keeps).
chunk_levels <- function(data, i, template) {
  if (template$kind == "formula") check_column_types(data <- na_columns(data, template), template)
  mf <- if (template$kind == "formula") {
    eval(bquote(stats::model.frame(.(template$terms), data, weights = .(template$weights),
                                   na.action = stats::na.pass)))
  }
  cols <- if (template$kind == "matrix") {
    if ("y" %in% template$scan) list(y = data$y) else list()
  } else {
    mf[template$scan]
  }
  out <- lapply(cols, function(col) {
    if (is.factor(col)) return(levels(col))
    if (is.logical(col)) return(c("FALSE", "TRUE"))
    sort(unique(as.character(col[!is.na(col)])))
  })
  if (template$type == "classification") {
    if (template$kind == "matrix") {
      y <- data$y
      w <- data$weights
    } else {
      keep <- stats::complete.cases(mf)
      y <- mf[[1L]][keep]
      w <- stats::model.weights(mf)[keep]
    }
    y <- as.character(y)
    out$.counts <- c(table(y[!is.na(y)]))
    positive <- if (is.null(w)) TRUE else if (is.numeric(w) && length(w) == length(y)) w > 0 else FALSE
    out$.weighed <- c(table(y[!is.na(y) & positive %in% TRUE]))
  }
  out
}

merge_levels <- function(a, b) {
  out <- a
  for (v in names(b)) {
    if (v %in% c(".counts", ".weighed")) {
      names_ab <- union(names(a[[v]]), names(b[[v]]))
      out[[v]] <- stats::setNames(vapply(names_ab, function(k) sum(a[[v]][k], b[[v]][k], na.rm = TRUE), 1),
                                  names_ab)
      next
    }
    out[[v]] <- union(a[[v]], b[[v]])
    if (!identical(out[[v]], a[[v]]) && !identical(out[[v]], b[[v]])) out[[v]] <- sort(out[[v]])
  }
  out
}

# The engine's x (n x d; mapped by the feature map template$features of a
# Nystrom or random-feature kernel), y (n x T), weights (times the class
# weights) and folds (NULL unless given) of one block, checked against the
# template.
read_rows <- function(data, template) {
  rows <- switch(template$kind, rows = data, matrix = matrix_rows(data, template),
                 formula = formula_rows(data, template))
  if (!is.null(template$class_weights)) {
    rows$w <- rows$w * template$class_weights[class_codes(rows$y)]
  }
  if (!is.null(template$features)) rows$x <- feature_rows(template$features, rows$x)
  # some response columns only (banded ridge: the targets of one candidate)
  if (!is.null(template$ycols)) rows$y <- rows$y[, template$ycols, drop = FALSE]
  rows
}

# The class (1..K) of each row of a coded response.
class_codes <- function(y) if (ncol(y) == 1L) 1L + (y[, 1L] > 0) else max.col(y, "first")

matrix_rows <- function(data, template) {
  if (!is.list(data) || is.data.frame(data) || is.null(data$x) || is.null(data$y)) {
    stop("read() must return list(x = , y = , weights = ) as chunk 1 did, not ", describe(data))
  }
  x <- as_design(data$x)
  check_columns(column_names(x), template, !is.null(colnames(x)))
  n <- nrow(x)
  list(x = x, y = chunk_response(data$y, n, template), w = weight_values(data$weights, n, "the chunk's rows"),
       fold = data$foldid)
}

# (`design`: the columns are those of a formula's model matrix)
check_columns <- function(names, template, named = TRUE, design = FALSE) {
  if (length(names) != length(template$xnames)) {
    stop(if (design) "its model matrix has " else "it has ", length(names), " columns, chunk 1",
         if (design) "'s", " has ", length(template$xnames))
  }
  if (named && template$named && !identical(names, template$xnames)) {
    stop("its columns ", paste(names[names != template$xnames], collapse = ", "),
         " differ from chunk 1's ", paste(template$xnames[names != template$xnames], collapse = ", "))
  }
}

# The response of one chunk as an n x T double matrix, coded with the classes
# found by the pre-scan.
chunk_response <- function(y, n, template) {
  if (NROW(y) != n) stop("`y` has ", NROW(y), " values for ", n, " rows")
  if (template$type == "classification") {
    if (!(is.factor(y) || is.character(y) || is.logical(y))) {
      stop("`y` must be a factor or a character or logical vector as in chunk 1, not ", describe(y))
    }
    codes <- match(as.character(y), template$classes)
    if (anyNA(codes)) {
      new <- unique(as.character(y)[is.na(codes)])
      stop("`y` has value(s) ", paste(sQuote(new, FALSE), collapse = ", "), " that the ",
           "levels pre-scan did not see (", paste(template$classes, collapse = ", "), ")")
    }
    return(class_matrix(codes, template$classes))
  }
  if (!is.numeric(y)) stop("`y` must be numeric as in chunk 1, not ", describe(y))
  y <- if (is.matrix(y)) y else matrix(y, ncol = 1L)
  if (ncol(y) != ncol(template$y0)) stop("`y` has ", ncol(y), " columns, chunk 1's has ", ncol(template$y0))
  if (!is.double(y)) storage.mode(y) <- "double"
  if (!all_finite(y)) stop("`y` must not contain NA, NaN or Inf values")
  y
}

# Columns of a chunk that hold NA only: a reader that guesses types from the
# values (data.table::fread(), read.csv()) makes them logical whatever they
# hold elsewhere, and a logical column becomes a factor of no levels in the
# model matrix ("variable 1 has no levels") or a column `xTRUE`.  They take
# the class the template knows the variable by (numeric when it has none:
# chunk 1 itself, or a variable the formula does not use as logical).
na_columns <- function(data, template = NULL) {
  classes <- attr(template$terms, "dataClasses")
  for (v in names(data)) {
    col <- data[[v]]
    if (!is.logical(col) || !all(is.na(col))) next
    cls <- if (!is.null(classes) && v %in% names(classes)) classes[[v]] else "numeric"
    data[[v]] <- switch(cls, logical = col, factor = , ordered = , character = as.character(col),
                        as.double(col))
  }
  data
}

# The columns of a chunk that the formula uses must have the types they have
# in chunk 1 (its model frame's dataClasses): a reader that guesses types
# from the values (read.csv(), data.table::fread()) reads a column of
# categories that holds only numbers in one file as numbers, and that chunk's
# model matrix then has other columns.  The error names the column and both
# types, not the columns of the model matrices that follow from them.
check_column_types <- function(data, template) {
  classes <- attr(template$terms, "dataClasses")
  kind <- function(cls) {
    switch(cls, numeric = , integer = "numeric", factor = , ordered = , character = "character", cls)
  }
  for (v in intersect(names(classes), names(data))) {
    col <- data[[v]]
    got <- if (is.numeric(col)) "numeric" else if (is.factor(col)) "factor" else class(col)[1L]
    want <- kind(classes[[v]])
    if (kind(got) == want || !want %in% c("numeric", "character", "logical")) next
    stop("column `", v, "` is ", got, " here but ", classes[[v]], " in chunk 1: read it as one type ",
         "in every chunk (readers that guess types from the values, as read.csv() does, read a column ",
         "of numbers as numeric; give `read` a reader that sets the type, e.g. with colClasses = c(",
         v, " = \"", want, "\"))", call. = FALSE)
  }
}

# The formula interface: read() returns data frames.  Factor and character
# columns of the model frame get their levels from `levels` or the pre-scan
# (logical ones always have FALSE and TRUE).
formula_template <- function(formula, first, levels, weights, na.action, contrasts, foldid = NULL) {
  if (!is.data.frame(first)) {
    stop_arg("chunk 1: read() must return a data frame for a formula fit, not ", describe(first))
  }
  mf <- stats::model.frame(formula, na_columns(first), na.action = stats::na.pass)
  terms <- attr(mf, "terms")
  if (!attr(terms, "response")) stop_arg("`formula` must have a response, as in `y ~ x`")
  moments <- moment_terms(terms, environment(formula))
  check_row_terms(terms, na_columns(first), environment(formula),
                  vapply(moments, `[[`, 1, "index"))
  environment(terms) <- globalenv()   # the terms travel to the workers: carry no data
  classes <- attr(terms, "dataClasses")
  response <- names(classes)[1L]
  categorical <- names(classes)[classes %in% c("factor", "ordered", "character")]
  y <- stats::model.response(mf)
  classify <- is.factor(y) || is.character(y) || is.logical(y)
  template <- list(kind = "formula", terms = terms, response = response,
                   scan = setdiff(categorical, names(levels)),
                   xlev = levels[intersect(names(levels), names(classes))],
                   weights = weights, foldid = foldid, na.action = na.action, contrasts = contrasts,
                   type = if (classify) "classification" else "regression", named = TRUE,
                   ordered = is.ordered(y),
                   moments = moments, term_passes = term_passes(moments))
  if (is.logical(y)) template$xlev[[response]] <- c("FALSE", "TRUE")
  if (!classify) {
    # (one column named as the formula names the response, as in memory)
    template$y0 <- matrix(0, 0, NCOL(y), dimnames = list(NULL, colnames(y) %||% response))
  }
  template
}

formula_rows <- function(data, template) {
  mf <- chunk_model_frame(data, template)
  x <- design_matrix(template$terms, mf, template$contrasts)
  check_columns(colnames(x), template, design = TRUE)
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!all_finite(x)) stop("`x` must not contain NA, NaN or Inf values")
  n <- nrow(x)
  list(x = x, y = chunk_response(stats::model.response(mf), n, template),
       w = weight_values(stats::model.weights(mf), n, "the chunk's rows"), fold = mf[["(foldid)"]])
}

# The model frame of one chunk, its rows with NA handled by `na.action`.
chunk_model_frame <- function(data, template) {
  if (!is.data.frame(data)) stop("read() must return a data frame as chunk 1 did, not ", describe(data))
  missing_vars <- setdiff(all.vars(template$terms), names(data))
  if (length(missing_vars)) stop("it lacks the column(s) ", paste0("`", missing_vars, "`", collapse = ", "))
  data <- na_columns(data, template)
  check_column_types(data, template)
  xlev <- template$xlev[setdiff(names(template$xlev), template$response)]
  tryCatch(
    eval(bquote(stats::model.frame(.(template$terms), data = data, weights = .(template$weights),
                                   foldid = .(template$foldid), na.action = .(template$na.action),
                                   xlev = .(xlev)))),
    error = function(e) {
      if (!grepl("new level", conditionMessage(e))) stop(e)
      stop(conditionMessage(e), " (levels the pre-scan did not see)", call. = FALSE)
    })
}

# The rows that `na.action` left out of a formula fit from chunks, numbered
# over all chunks in their order, as model.frame() numbers them in memory
# (its "na.action"; NULL when none was): with na.exclude, fitted(),
# residuals() and loo_predict() are padded back with NA.  A pass of its own,
# made only for an `na.action` that excludes (na.omit's rows need no number).
chunk_na_action <- function(data) {
  template <- data$template
  if (template$kind != "formula" || !excludes_rows(template$na.action)) return(NULL)
  parts <- map_chunks(data$src, chunk_excluded, c, template = template,
                      what = "numbering the rows excluded by `na.action` of")
  n <- vapply(parts, `[[`, 1, "n")
  at <- cumsum(c(0, n))[seq_along(n)]
  omit <- unlist(Map(function(p, a) a + as.vector(p$omit), parts, at))
  if (!length(omit)) return(NULL)
  names(omit) <- unlist(lapply(parts, function(p) names(p$omit)))
  class(omit) <- class(Find(Negate(is.null), lapply(parts, `[[`, "omit")))
  omit
}

# Whether `na.action` keeps the places of the rows it leaves out (na.exclude).
excludes_rows <- function(na.action) {
  fun <- if (is.character(na.action)) get(na.action, mode = "function", envir = globalenv()) else na.action
  out <- tryCatch(fun(data.frame(v = c(1, NA))), error = function(e) NULL)
  inherits(attr(out, "na.action"), "exclude")
}

chunk_excluded <- function(data, i, template) {
  list(list(n = nrow(data), omit = attr(chunk_model_frame(data, template), "na.action")))
}

# ---- terms whose parameters come from the data ----------------------------------

# model.frame() evaluates a formula's terms on all rows, and a term whose
# parameters come from the data (scale()'s center and scale, poly()'s
# coefficients, the knots of splines::ns() and bs()) is written again for
# prediction with them fixed (makepredictcall(), the terms' "predvars").  The
# terms of a chunk source are built from chunk 1, so such a term would take
# chunk 1's parameters and differ, silently, from the fit of all rows in
# memory.  A variable is such a term when makepredictcall() rewrites its call
# in an argument that the call (or the function's default) does not fix
# (knots given in full are fixed); scale() always is, also written
# base::scale(), which makepredictcall() does not rewrite.  Terms whose
# parameters are moments, scale() and poly() of one variable, take them from
# passes over every chunk (whole_data_terms()); any other is an error that
# names the term and the arguments that would fix it.
moment_terms <- function(terms, env) {
  vars <- as.list(attr(terms, "variables"))[-1L]
  pred <- as.list(attr(terms, "predvars"))[-1L]
  specs <- list()
  for (k in seq_along(vars)) {
    call <- vars[[k]]
    if (!is.call(call)) next
    fun <- tryCatch(eval(call[[1L]], env), error = function(e) NULL)
    spec <- if (identical(fun, base::scale)) scale_term(call, env)
    if (is.null(spec) && !identical(call, pred[[k]])) {
      taken <- data_arguments(call, pred[[k]], fun, env)
      if (!length(taken)) next
      spec <- if (identical(fun, stats::poly)) poly_term(call, env)
      if (is.null(spec)) {
        stop_arg("the term `", deparse1(call), "` of `formula` takes its ",
                 paste0("`", taken, "`", collapse = " and "), " from the rows, and from a chunk ",
                 "source it would take those of chunk 1 only: fix ",
                 if (length(taken) > 1L) "them" else "it", " in the call",
                 if (identical(fun, stats::poly)) ", or use `raw = TRUE`")
      }
    }
    if (!is.null(spec) && spec$passes > 0) specs[[length(specs) + 1L]] <- c(spec, list(index = k))
  }
  specs
}

# The terms whose value on a row depends on the other rows even with their
# parameters fixed for prediction (I(a - mean(a)), cut(a, 3), rank(a)):
# model.frame() gives them no "predvars" of their own, and in chunks each
# chunk's rows would make them.  Found as the variables whose values on chunk
# 1's two halves apart differ from those on chunk 1 whole (its first 2000
# rows: the check costs little whatever the chunk; the moment terms `skip`
# aside, fixed later by whole_data_terms()); an error names the first.
check_row_terms <- function(terms, first, env, skip) {
  n <- min(nrow(first), 2000L)
  if (n < 2L) return(invisible())
  pred <- attr(terms, "predvars")
  half <- seq_len(n %/% 2L)
  values <- function(rows) tryCatch(eval(pred, first[rows, , drop = FALSE], env), error = function(e) NULL)
  whole <- values(seq_len(n))
  a <- values(half)
  b <- values(seq(length(half) + 1L, n))
  if (is.null(whole) || is.null(a) || is.null(b)) return(invisible())
  for (k in setdiff(seq_along(whole), skip)) {
    apart <- if (is.null(dim(whole[[k]]))) c(row_values(a[[k]]), row_values(b[[k]])) else {
      rbind(row_values(a[[k]]), row_values(b[[k]]))
    }
    if (!isTRUE(all.equal(row_values(whole[[k]]), apart, tolerance = 1e-10, check.attributes = FALSE))) {
      stop_arg("the term `", deparse1(pred[[k + 1L]]), "` of `formula` gives a row a value that ",
               "depends on the other rows, and from a chunk source each chunk's rows would make it: ",
               "give its parameters as numbers in the call, or compute the column before the fit")
    }
  }
  invisible()
}

row_values <- function(v) {
  if (is.factor(v)) return(as.character(v))
  if (!is.null(dim(v))) return(matrix(unclass(v), nrow(v)))
  as.vector(v)
}

# The arguments of `pred` (the call rewritten for prediction) whose values
# the call `call` does not fix: neither given in it with that value nor, when
# absent, the function's constant default.
data_arguments <- function(call, pred, fun, env) {
  matched <- function(cl) {
    if (!is.function(fun) || is.primitive(fun)) return(cl)
    tryCatch(match.call(fun, cl), error = function(e) cl)
  }
  given <- matched(call)
  pred <- matched(pred)
  positional <- function(cl) {
    args <- as.list(cl)[-1L]
    args[!nzchar(names(args) %||% rep("", length(args)))]
  }
  # a method that rewrites the call's positional arguments fixes nothing we can check
  if (!identical(positional(pred), positional(given))) return("its arguments")
  defaults <- if (is.function(fun)) formals(args(fun))
  taken <- character()
  for (a in setdiff(names(pred)[-1L], "")) {
    if (identical(given[[a]], pred[[a]])) next
    fixed <- if (a %in% names(given)) {
      tryCatch(list(eval(given[[a]], env)), error = function(e) NULL)
    } else if (a %in% names(defaults) && !is.language(defaults[[a]])) {
      list(defaults[[a]])
    }
    if (is.null(fixed) || !same_value(fixed[[1L]], pred[[a]])) taken <- c(taken, a)
  }
  taken
}

same_value <- function(a, b) {
  if (is.numeric(a) && is.numeric(b)) return(identical(as.double(unname(a)), as.double(unname(b))))
  identical(unname(a), unname(b))
}

# scale(x, center, scale) as scale.default() computes it: a `center` or
# `scale` of TRUE is taken from the data; NULL when neither is.
scale_term <- function(call, env) {
  args <- tryCatch(match.call(base::scale, call), error = function(e) NULL)
  if (is.null(args)) return(NULL)
  value <- function(a) if (is.null(args[[a]])) TRUE else tryCatch(eval(args[[a]], env), error = function(e) NULL)
  center <- value("center")
  scale <- value("scale")
  if (is.null(center) || is.null(scale)) return(NULL)
  if (!isTRUE(center) && !isTRUE(scale)) return(list(passes = 0))
  list(kind = "scale", call = call, x = args$x, center = center, scale = scale, passes = 1)
}

# poly() of one variable with orthogonal polynomials (poly(x, degree)): its
# coefficients, alpha and norm2, from degree + 1 passes (chunk_term_sums()).
# NULL for poly() of several variables.
poly_term <- function(call, env) {
  args <- tryCatch(match.call(stats::poly, call), error = function(e) NULL)
  if (is.null(args)) return(NULL)
  extra <- setdiff(names(args)[-1L], c("x", "degree", "raw", "simple"))
  dots <- as.list(args)[-1L][!nzchar(names(args)[-1L]) | names(args)[-1L] %in% extra]
  degree <- tryCatch(eval(if (length(dots) == 1L) dots[[1L]] else args$degree %||% 1, env),
                     error = function(e) NULL)
  if (length(dots) > 1L || !is.numeric(degree) || length(degree) != 1L || is.na(degree) || degree < 1) {
    return(NULL)
  }
  list(kind = "poly", call = call, x = args$x, degree = as.integer(degree), passes = as.integer(degree) + 1L)
}

term_passes <- function(specs) as.integer(max(0, vapply(specs, `[[`, 1, "passes")))

# The template's terms with the parameters of its moment terms taken from
# every chunk: pass 0 the count, mean and squared deviations of each term's
# variable (scale()'s center and scale; poly()'s mean), pass j of poly()
# the norm of its polynomial of degree j and the next alpha, by the
# three-term recurrence of predict(<poly>) as poly() forms them with a QR.
whole_data_terms <- function(src, template, progress = NULL) {
  specs <- template$moments
  if (!length(specs)) return(template)
  state <- lapply(specs, function(spec) list())
  for (pass in seq_len(template$term_passes) - 1L) {
    sums <- map_chunks(src, chunk_term_sums, merge_term_sums, template = template, state = state,
                       pass = pass, progress = progress, what = "computing the terms' parameters of")
    state <- Map(next_term_state, specs, state, sums, pass)
  }
  pred <- attr(template$terms, "predvars")
  for (j in seq_along(specs)) {
    spec <- specs[[j]]
    call <- spec$call
    if (spec$kind == "scale") {
      # as makepredictcall() writes a scale() term
      if (isTRUE(spec$center)) call$center <- state[[j]]$center
      if (isTRUE(spec$scale)) call$scale <- state[[j]]$scale
    } else {
      call$coefs <- list(alpha = state[[j]]$alpha, norm2 = state[[j]]$norm2)
    }
    pred[[spec$index + 1L]] <- call
  }
  attr(template$terms, "predvars") <- pred
  template
}

# The sums of one chunk for each moment term active in this pass.
chunk_term_sums <- function(data, i, template, state, pass) {
  data <- na_columns(data, template)
  lapply(seq_along(template$moments), function(j) {
    spec <- template$moments[[j]]
    if (pass >= spec$passes) return(NULL)
    x <- eval(spec$x, data, globalenv())
    if (!is.numeric(x)) stop("`", deparse1(spec$x), "` of the term `", deparse1(spec$call), "` must be numeric")
    if (spec$kind == "poly" && anyNA(x)) stop("missing values are not allowed in 'poly'")
    if (spec$kind == "poly" && NCOL(x) != 1L) {
      stop("the term `", deparse1(spec$call), "` is a poly() of several variables: use `raw = TRUE`")
    }
    x <- as.matrix(x)
    storage.mode(x) <- "double"
    if (spec$kind == "scale" && !isTRUE(spec$center)) {
      # squares about a center fixed by the call (0 when it is FALSE)
      center <- if (isFALSE(spec$center)) rep(0, ncol(x)) else spec$center
      return(list(w = colSums(!is.na(x)), ss = colSums(sweep(x, 2L, center)^2, na.rm = TRUE)))
    }
    if (pass == 0L) return(column_moments(x))
    z <- poly_column(x[, 1L], state[[j]]$alpha, state[[j]]$norm2, pass)
    list(s = sum(z^2), t = sum((x[, 1L] - state[[j]]$mean) * z^2))
  })
}

# The count (w), mean and centred sum of squares of each column of x, NA
# left out, as merge_stats() merges them.
column_moments <- function(x) {
  n <- colSums(!is.na(x))
  mean <- ifelse(n > 0, colSums(x, na.rm = TRUE) / pmax(n, 1), 0)
  list(w = n, mean = mean, m2 = colSums(sweep(x, 2L, mean)^2, na.rm = TRUE))
}

merge_term_sums <- function(a, b) {
  Map(function(u, v) {
    if (is.null(u)) return(NULL)
    if (!is.null(u$mean)) merge_stats(u, v) else Map(`+`, u, v)
  }, a, b)
}

# The polynomial of degree `degree` at x given alpha[1..degree] and
# norm2[1..degree + 1], by the recurrence of predict(<poly>).
poly_column <- function(x, alpha, norm2, degree) {
  z0 <- rep(1, length(x))
  z1 <- x - alpha[1L]
  if (degree == 1L) return(z1)
  for (i in seq(2L, degree)) {
    z2 <- (x - alpha[i]) * z1 - (norm2[i + 1L] / norm2[i]) * z0
    z0 <- z1
    z1 <- z2
  }
  z1
}

# A term's parameters after a pass's merged sums.
next_term_state <- function(spec, state, sums, pass) {
  if (pass >= spec$passes) return(state)
  if (spec$kind == "scale") {
    n <- sums$w
    if (isTRUE(spec$center)) {
      state$center <- sums$mean
      ss <- sums$m2
    } else {
      ss <- sums$ss
    }
    # scale.default(): the root mean square over n - 1
    if (isTRUE(spec$scale)) state$scale <- sqrt(ss / pmax(1, n - 1))
    return(state)
  }
  if (pass == 0L) {
    return(list(mean = sums$mean, alpha = sums$mean, norm2 = c(1, sums$w)))
  }
  if (sums$s <= 0) stop_arg("the term `", deparse1(spec$call), "` of `formula`: `degree` must be less than ",
                            "the number of unique points")
  state$norm2 <- c(state$norm2, sums$s)
  if (pass < spec$degree) state$alpha <- c(state$alpha, sums$t / sums$s + state$mean)
  state
}
