# Argument checks shared by rlsc() and its methods.  Messages follow one style:
# lower case, the argument in backquotes, what was expected and what was got.

stop_arg <- function(...) stop(paste0(...), call. = FALSE)

describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.matrix(x)) return(paste(typeof(x), "matrix"))
  if (is.factor(x)) return("a factor")
  cls <- class(x)[1]
  if (cls %in% c("numeric", "integer", "character", "logical", "complex")) {
    return(paste(typeof(x), "vector"))
  }
  paste("an object of class", sQuote(cls, FALSE))
}

all_finite <- function(x) {
  # one pass in C for doubles; range() is NA when any element is NA and
  # infinite when any is infinite, and allocates nothing of the size of x
  if (is.double(x)) return(is.finite(.Call(C_rlsc_abs_max, x)))
  !length(x) || all(is.finite(suppressWarnings(range(x))))
}

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
  if (sum(weights > 0) < 2L) {
    stop_arg("`weights` must be positive for at least 2 observations, not ",
             sum(weights > 0))
  }
  weights
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
