# The response as the engine sees it: an n x T double matrix.  A factor becomes
# one column coded -1 (first level) / +1 (second level) when it has two levels,
# and K one-vs-all columns (+1 for the point's class, -1 elsewhere) otherwise.

encode_response <- function(y, n) {
  if (is.character(y) || is.logical(y)) {
    if (!is.null(dim(y))) stop_arg("`y` must be a vector, a matrix of numbers or a factor, not ", describe(y))
    y <- if (is.logical(y)) factor(y, levels = c(FALSE, TRUE)) else factor(y)
  }
  if (is.factor(y)) return(encode_classes(y, n))
  if (!is.numeric(y) || (!is.null(dim(y)) && !is.matrix(y))) {
    stop_arg("`y` must be a numeric vector or matrix, a factor, or a character or ",
             "logical vector, not ", describe(y))
  }
  ymat <- if (is.matrix(y)) y else matrix(y, ncol = 1L, dimnames = list(names(y), NULL))
  if (nrow(ymat) != n) {
    stop_arg("`y` must have ", n, " values or rows (the rows of `x`), not ", nrow(ymat))
  }
  if (!ncol(ymat)) stop_arg("`y` must have at least one column")
  if (!is.double(ymat)) storage.mode(ymat) <- "double"
  if (!all_finite(ymat)) stop_arg("`y` must not contain NA, NaN or Inf values")
  spread <- apply(ymat, 2L, function(col) diff(range(col)))
  if (all(spread == 0)) {
    stop_arg("`y` is constant: every response column has a single distinct value")
  }
  if (max(spread) < sqrt(.Machine$double.xmin) / .Machine$double.eps) {
    stop_arg("`y` is too small in magnitude: its squared leave-one-out errors underflow; ",
             "rescale it")
  }
  list(y = ymat, type = "regression", classes = NULL, multi = is.matrix(y))
}

encode_classes <- function(y, n) {
  if (length(y) != n) {
    stop_arg("`y` must have ", n, " values (the rows of `x`), not ", length(y))
  }
  if (anyNA(y)) stop_arg("`y` must not contain NA values")
  empty <- levels(y)[tabulate(y, nlevels(y)) == 0L]
  if (length(empty)) {
    warning("dropping empty level(s) of `y`: ", paste(sQuote(empty, FALSE), collapse = ", "),
            call. = FALSE)
    y <- droplevels(y)
  }
  classes <- levels(y)
  if (length(classes) < 2L) {
    stop_arg("`y` must have at least 2 classes for classification, not ", length(classes))
  }
  codes <- as.integer(y)
  if (length(classes) == 2L) {
    ymat <- matrix(ifelse(codes == 2L, 1, -1), ncol = 1L, dimnames = list(NULL, classes[2L]))
  } else {
    ymat <- matrix(-1, n, length(classes), dimnames = list(NULL, classes))
    ymat[cbind(seq_len(n), codes)] <- 1
  }
  list(y = ymat, type = "classification", classes = classes, multi = length(classes) > 2L)
}

# Decision values (n x T) to class labels, the inverse of encode_classes().
decode_classes <- function(f, classes) {
  f <- as.matrix(f)
  idx <- if (length(classes) == 2L) ifelse(f[, 1L] > 0, 2L, 1L) else max.col(f, ties.method = "first")
  factor(classes[idx], levels = classes)
}
