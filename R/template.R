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
                   type = if (classify) "classification" else "regression")
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
                   type = if (classify) "classification" else "regression", named = TRUE)
  if (is.logical(y)) template$xlev[[response]] <- c("FALSE", "TRUE")
  if (!classify) {
    # (one column named as the formula names the response, as in memory)
    template$y0 <- matrix(0, 0, NCOL(y), dimnames = list(NULL, colnames(y) %||% response))
  }
  template
}

formula_rows <- function(data, template) {
  if (!is.data.frame(data)) stop("read() must return a data frame as chunk 1 did, not ", describe(data))
  missing_vars <- setdiff(all.vars(template$terms), names(data))
  if (length(missing_vars)) stop("it lacks the column(s) ", paste0("`", missing_vars, "`", collapse = ", "))
  data <- na_columns(data, template)
  check_column_types(data, template)
  xlev <- template$xlev[setdiff(names(template$xlev), template$response)]
  mf <- tryCatch(
    eval(bquote(stats::model.frame(.(template$terms), data = data, weights = .(template$weights),
                                   foldid = .(template$foldid), na.action = .(template$na.action),
                                   xlev = .(xlev)))),
    error = function(e) {
      if (!grepl("new level", conditionMessage(e))) stop(e)
      stop(conditionMessage(e), " (levels the pre-scan did not see)", call. = FALSE)
    })
  x <- design_matrix(template$terms, mf, template$contrasts)
  check_columns(colnames(x), template, design = TRUE)
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!all_finite(x)) stop("`x` must not contain NA, NaN or Inf values")
  n <- nrow(x)
  list(x = x, y = chunk_response(stats::model.response(mf), n, template),
       w = weight_values(stats::model.weights(mf), n, "the chunk's rows"), fold = mf[["(foldid)"]])
}
