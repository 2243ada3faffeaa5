# Argument checks shared by rlsc() and its methods (messages: see stop_arg()).

as_design_matrix <- function(x, arg = "x") {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(ok)) {
      bad <- names(x)[!ok][1]
      stop_arg("`", arg, "` must have numeric columns only; column ", sQuote(bad, FALSE),
               " is ", describe(x[[bad]]), " (use the formula interface for factors)")
    }
    x <- as.matrix(x)
  }
  if ((is.numeric(x) || is.logical(x)) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    stop_arg("`", arg, "` must be a numeric matrix or data frame, not ", describe(x))
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!all_finite(x)) stop_arg("`", arg, "` must not contain NA, NaN or Inf values")
  x
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop_arg("`", arg, "` must be TRUE or FALSE, not ", describe(x))
  }
  x
}

check_weights <- function(weights, n) {
  if (is.null(weights)) return(rep(1, n))
  if (!is.numeric(weights) || !is.null(dim(weights))) {
    stop_arg("`weights` must be a numeric vector, not ", describe(weights))
  }
  if (length(weights) != n) {
    stop_arg("`weights` must have length ", n, " (the number of rows of `x`), not ",
             length(weights))
  }
  weights <- as.double(weights)
  if (!all_finite(weights)) stop_arg("`weights` must not contain NA, NaN or Inf values")
  if (any(weights < 0)) stop_arg("`weights` must be non-negative")
  if (!is.finite(sum(weights))) {
    stop_arg("`weights` must have a finite sum, not Inf (the largest is ",
             format(max(weights), digits = 3), "); divide them by a constant, which changes ",
             "only the scale of `lambda`")
  }
  if (sum(weights > 0) < 2L) {
    stop_arg("`weights` must be positive for at least 2 observations, not ",
             sum(weights > 0))
  }
  weights
}

# With an intercept the leverage of observation i is at least its share of the
# weight, w_i / sum(w): a share within 1e-6 of 1 (the threshold at which a LOO
# value of the direct form is undefined, src/path.c) leaves that observation
# without a LOO value at every lambda, and no lambda helps.
check_weight_share <- function(weights) {
  i <- which.max(weights)
  total <- sum(weights)
  rest <- (total - weights[i]) / total   # no copy of the weights, but cancels:
  if (rest <= 2e-6) rest <- sum(weights[-i]) / total   # exactly where it decides
  if (rest <= 1e-6) {
    stop_arg("`weights` must leave more than 1e-6 of their total to the other observations ",
             "when there is an intercept, not ", format(rest, digits = 3), ": observation ", i,
             " has the rest, so its leverage is 1 and its leave-one-out value undefined at ",
             "every `lambda`")
  }
}

check_lambda <- function(lambda) {
  if (is.null(lambda)) return(NULL)
  if (!is.numeric(lambda) || !is.null(dim(lambda))) {
    stop_arg("`lambda` must be a numeric vector, not ", describe(lambda))
  }
  if (!length(lambda)) stop_arg("`lambda` must have at least one value")
  if (!all_finite(lambda)) stop_arg("`lambda` must not contain NA, NaN or Inf values")
  if (any(lambda < 0)) stop_arg("`lambda` must be non-negative; it has ", sum(lambda < 0),
                                " negative value(s)")
  sort(unique(as.double(lambda)), decreasing = TRUE)
}

check_count <- function(x, arg, min = 1L) {
  if (!(is.numeric(x) || identical(x, NA)) || length(x) != 1L) {
    stop_arg("`", arg, "` must be a whole number of at least ", min, ", not ", describe(x))
  }
  if (!is.finite(x) || x != round(x) || x < min || x > .Machine$integer.max) {
    stop_arg("`", arg, "` must be a whole number of at least ", min, ", not ", format(x))
  }
  as.integer(x)
}

# Dense or sparse design, checked; dense goes through as_design_matrix().
as_design <- function(x, arg = "x") {
  if (!is_sparse(x)) return(as_design_matrix(x, arg))
  x <- methods::as(methods::as(methods::as(x, "dMatrix"), "generalMatrix"), "CsparseMatrix")
  if (!all_finite(x@x)) stop_arg("`", arg, "` must not contain NA, NaN or Inf values")
  x
}

# `class_weights`: "balanced" (each class weighs n / (K n_k), as scikit-learn's)
# or a named vector of one weight per class; multiplies the observation weights.
class_weight_of <- function(class_weights, resp) {
  if (is.null(class_weights)) return(1)
  if (resp$type != "classification") {
    stop_arg("`class_weights` needs a classification fit; `y` is numeric")
  }
  classes <- resp$classes
  codes <- if (length(classes) == 2L) 1L + (resp$y[, 1L] > 0) else max.col(resp$y, "first")
  if (identical(class_weights, "balanced")) {
    counts <- tabulate(codes, length(classes))
    return((length(codes) / (length(classes) * counts))[codes])
  }
  if (!is.numeric(class_weights) || is.null(names(class_weights)) ||
      !setequal(names(class_weights), classes) || anyDuplicated(names(class_weights))) {
    stop_arg("`class_weights` must be \"balanced\" or a vector named by the classes (",
             paste(classes, collapse = ", "), ")")
  }
  if (!all_finite(as.double(class_weights)) || any(class_weights < 0)) {
    stop_arg("`class_weights` must be finite and non-negative")
  }
  unname(class_weights[classes][codes])
}

check_penalty_factor <- function(pf, x, kernel) {
  if (is.null(pf)) return(NULL)
  if (!is.null(kernel)) {
    stop_arg("`penalty_factor` applies to the columns of a linear model, not to a kernel fit")
  }
  if (!is.numeric(pf) || !is.null(dim(pf)) || length(pf) != ncol(x)) {
    stop_arg("`penalty_factor` must be a numeric vector with one value per column of `x` (",
             ncol(x), "), not ", if (is.numeric(pf)) paste("of length", length(pf)) else describe(pf))
  }
  pf <- as.double(pf)
  if (!all_finite(pf)) stop_arg("`penalty_factor` must not contain NA, NaN or Inf values")
  if (any(pf < 0)) stop_arg("`penalty_factor` must be non-negative")
  pf
}
