# The response as the engine sees it: an n x T double matrix.  A factor becomes
# one column coded -1 (first level) / +1 (second level) when it has two levels,
# and K one-vs-all columns (+1 for the point's class, -1 elsewhere) otherwise.

# A data frame is taken as its column (one column) or as a matrix (numeric
# columns).  A factor response also keeps `yfactor`, a zero-length factor with
# all its levels and its class (ordered or not), for the class predictions.
encode_response <- function(y, n) {
  if (is.data.frame(y)) y <- response_column(y)
  if (is.character(y) || is.logical(y)) {
    if (!is.null(dim(y))) stop_arg("`y` must be a vector, a matrix of numbers or a factor, not ", describe(y))
    y <- if (is.logical(y)) factor(y, levels = c(FALSE, TRUE)) else factor(y)
  }
  if (is.factor(y)) {
    if (length(y) != n) {
      stop_arg("`y` must have ", n, " values (the rows of `x`), not ", length(y))
    }
    ymat <- encode_classes(y)
    classes <- attr(ymat, "classes")
    attr(ymat, "classes") <- NULL
    return(list(y = ymat, type = "classification", classes = classes, yfactor = y[0L]))
  }
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
  # the largest spread of a column, in C: no copy of y (apply() transposes
  # it) nor of each column (with thousands of columns, hundreds of MB of
  # freed heap that stays resident), and in the same pass whether y is finite
  spread <- c_max_spread(ymat)
  if (is.na(spread)) stop_arg("`y` must not contain NA, NaN or Inf values")
  if (spread == 0) {
    stop_arg("`y` is constant: every response column has a single distinct value")
  }
  if (spread < sqrt(.Machine$double.xmin) / .Machine$double.eps) {
    stop_arg("`y` is too small in magnitude: its squared leave-one-out errors underflow; ",
             "rescale it")
  }
  list(y = ymat, type = "regression", classes = NULL)
}

response_column <- function(y) {
  # (a numeric column keeps its name, as the response column's)
  if (ncol(y) == 1L && !is.numeric(y[[1L]])) return(y[[1L]])
  numeric <- vapply(y, is.numeric, NA)
  if (!ncol(y) || !all(numeric)) {
    stop_arg("`y` must be a data frame of one column or of numeric columns, not ",
             if (!ncol(y)) "one without columns" else paste0("one with column `", names(y)[!numeric][1L],
                                                       "` of class ", class(y[[which(!numeric)[1L]]])[1L]))
  }
  as.matrix(y)
}

# Class labels of decision values: a factor with the levels and the class of
# the response (`yfactor`), so that levels dropped as empty when fitting are
# kept and an ordered response gives ordered predictions.
class_labels <- function(object, decision) {
  labels <- decode_classes(decision, object$classes)
  proto <- object$yfactor
  if (is.null(proto)) return(labels)
  factor(as.character(labels), levels = levels(proto), ordered = is.ordered(proto))
}

#' The class coding of RLSC and its inverse
#'
#' `encode_classes()` turns class labels into the response columns that
#' [rlsc()] fits: with two classes one column, -1 for the first level and +1
#' for the second (as [glm()] orders them); with \eqn{K \ge 3} classes
#' one-vs-all, \eqn{K} columns with +1 in the column of the point's class and -1
#' elsewhere. `decode_classes()` maps decision values back to labels: the sign
#' of the one column, or the column of the largest value (first on ties).
#'
#' @param y class labels: a factor, or a character or logical vector. Levels
#'   that do not occur are dropped with a warning.
#' @return `encode_classes()`: a numeric matrix with one row per label and
#'   columns named by class (the second class for two classes), with the
#'   classes in attribute `"classes"`. `decode_classes()`: a factor.
#' @export
#' @examples
#' codes <- encode_classes(iris$Species[c(1, 51, 101)])
#' codes
#' decode_classes(codes, attr(codes, "classes"))
#' encode_classes(c("no", "yes", "yes"))
encode_classes <- function(y) {
  if (is.logical(y)) y <- factor(y, levels = c(FALSE, TRUE))
  if (is.character(y)) y <- factor(y)
  if (!is.factor(y)) {
    stop_arg("`y` must be a factor, or a character or logical vector, not ", describe(y))
  }
  if (anyNA(y)) stop_arg("`y` must not contain NA values")
  classes <- observed_classes(levels(y), tabulate(y, nlevels(y)) > 0L)
  if (length(classes) < nlevels(y)) y <- droplevels(y)
  structure(class_matrix(as.integer(y), classes), classes = classes)
}

# The response columns of class codes 1..K: one column -1/+1 for two classes,
# K one-vs-all columns otherwise.
class_matrix <- function(codes, classes) {
  n <- length(codes)
  if (length(classes) == 2L) {
    return(matrix(2 * (codes == 2L) - 1, ncol = 1L, dimnames = list(NULL, classes[2L])))
  }
  out <- matrix(-1, n, length(classes), dimnames = list(NULL, classes))
  out[cbind(seq_len(n), codes)] <- 1
  out
}

#' @rdname encode_classes
#' @param decision decision values: a vector (two classes) or a matrix with
#'   one column per class.
#' @param classes the class labels, as in `attr(encode_classes(y), "classes")`
#'   or `fit$classes`.
#' @export
decode_classes <- function(decision, classes) {
  decision <- as.matrix(decision)
  two <- length(classes) == 2L
  if (ncol(decision) != if (two) 1L else length(classes)) {
    stop_arg("`decision` must have ", if (two) 1L else length(classes), " column(s) for ",
             length(classes), " classes, not ", ncol(decision))
  }
  idx <- if (two) ifelse(decision[, 1L] > 0, 2L, 1L) else max.col(decision, ties.method = "first")
  factor(classes[idx], levels = classes)
}
