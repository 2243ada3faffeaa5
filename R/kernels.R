#' Kernels for kernel regularized least squares
#'
#' Constructors of the kernels [rlsc()] accepts as its `kernel` argument. A
#' parameter given as a vector means "choose among these values": [rlsc()]
#' computes the exact leave-one-out (LOO) criterion over the whole grid of
#' kernel parameters times \eqn{\lambda}, one eigendecomposition per kernel
#' parameter setting, and keeps the best pair.
#'
#' * `kernel_linear()`: \eqn{k(x, z) = x^\top z}, the ordinary ridge
#'   regression of [rlsc()] (the default; `kernel = "linear"` is the same).
#' * `kernel_rbf(sigma)`: the Gaussian (radial basis function) kernel
#'   \eqn{k(x, z) = \exp(-\|x - z\|^2 / (2\sigma^2))}. With `sigma = NULL`
#'   (the default) the fit tries five values of \eqn{\sigma} from the data,
#'   \eqn{s/4, s/2, s, 2s, 4s} with \eqn{s} the *median heuristic* (the median
#'   Euclidean distance between distinct training rows of positive weight, of
#'   a uniform sample of at most 1000 rows), and chooses among them with
#'   \eqn{\lambda} by exact LOO, as `kernlab`'s `sigest()` gives a range of
#'   bandwidths; the fit prints the values tried. On 2000 rows of positive
#'   weight or more the five are *screened*: the same choice (the fit's
#'   criterion and `cv`, each bandwidth with its own \eqn{\lambda} grid) is
#'   made on a uniform random sample of 1000 rows (reproducible under
#'   [set.seed()]), and the fit is then the
#'   exact one at the bandwidth chosen, on every row: one eigendecomposition
#'   of the \eqn{n \times n} kernel instead of five (the sample's five cost
#'   at most 5/8 of it), and the same fit as `kernel_rbf(sigma =
#'   fit$sigma_min)` would give; `fit$sigma_screen` keeps the sampled rows and
#'   each bandwidth's result on them. Below 2000 rows the screen would cost
#'   about as much as the exact search, which is made instead. Candidates
#'   given, `kernel_rbf(sigma = c(...))`, are always searched exactly, on
#'   every row (one decomposition of the \eqn{n \times n} kernel each). This
#'   kernel is `kernlab`'s `rbfdot(sigma = s)` with `s` \eqn{= 1/(2\sigma^2)}.
#' * `kernel_polynomial(degree, scale, offset)`:
#'   \eqn{k(x, z) = (\mathrm{scale}\, x^\top z + \mathrm{offset})^{\mathrm{degree}}}.
#' * `kernel_custom(fun, ...)`: any positive semi-definite kernel, given as a
#'   function `fun(x, z, ...)` of two numeric matrices (rows are observations)
#'   that returns their `nrow(x)` \eqn{\times} `nrow(z)` kernel matrix. The
#'   parameters in `...` are passed to `fun` by name; vectors among them are
#'   choices, as for the built-in kernels. The matrix `fun(x, x)` is checked
#'   for its shape, finiteness and symmetry.
#' * `kernel = "precomputed"` in [rlsc()]: `x` is itself the \eqn{n \times n}
#'   kernel matrix of the training rows, and [predict()] takes the
#'   \eqn{m \times n} cross-kernel between new and training rows as `newdata`.
#'
#' Kernel matrices of the built-in kernels are computed in C from one level-3
#' BLAS product of the two sets of rows.
#'
#' @param sigma the bandwidth \eqn{\sigma > 0}: a number, a vector of
#'   candidates, or `NULL` for the median heuristic.
#' @param degree a positive whole number (or a vector of them).
#' @param scale a positive multiplier of \eqn{x^\top z} (or a vector).
#' @param offset a non-negative constant added before taking the power (or a
#'   vector).
#' @param fun a function of two numeric matrices (and the parameters in `...`)
#'   returning their kernel matrix.
#' @param ... named parameters of `fun`, each a vector of candidate values
#'   (without NA, NaN or Inf).
#' @return An object of class `rlsc_kernel`.
#' @seealso [rlsc()] for fitting, [kernel_matrix()] to compute a kernel matrix.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(100), ncol = 1)
#' y <- abs(sin(6 * x[, 1])) + rnorm(100, sd = 0.2)
#' fit <- rlsc(x, y, kernel = kernel_rbf(sigma = c(0.1, 0.5, 2)))
#' fit$sigma_min
#' fit$lambda_min
#' kernel_polynomial(degree = 2:3)
#' laplace <- kernel_custom(function(x, z, rho) {
#'   exp(-rho * as.matrix(dist(rbind(x, z)))[seq_len(nrow(x)), nrow(x) + seq_len(nrow(z))])
#' }, rho = c(0.03, 0.3, 3))
#' rlsc(x, y, kernel = laplace)$kernel
kernel_linear <- function() new_kernel("linear", list())

#' @rdname kernel_linear
#' @export
kernel_rbf <- function(sigma = NULL) {
  if (!is.null(sigma)) check_kernel_param(sigma, "sigma", "positive", sigma > 0)
  new_kernel("rbf", list(sigma = if (!is.null(sigma)) as.double(sigma)))
}

#' @rdname kernel_linear
#' @export
kernel_polynomial <- function(degree = 2, scale = 1, offset = 1) {
  check_kernel_param(degree, "degree", "a positive whole number",
                     degree >= 1 & degree == round(degree) & degree <= .Machine$integer.max)
  check_kernel_param(scale, "scale", "positive", scale > 0)
  check_kernel_param(offset, "offset", "non-negative", offset >= 0)
  new_kernel("polynomial", list(degree = as.double(degree), scale = as.double(scale),
                                offset = as.double(offset)))
}

#' @rdname kernel_linear
#' @export
kernel_custom <- function(fun, ...) {
  if (!is.function(fun)) {
    stop_arg("`fun` must be a function of two matrices returning their kernel matrix, not ",
             describe(fun))
  }
  params <- list(...)
  if (length(params) && (is.null(names(params)) || any(names(params) == ""))) {
    stop_arg("the parameters of `fun` in `...` must be named")
  }
  for (p in names(params)) {
    if (!is.atomic(params[[p]]) || !length(params[[p]]) || !is.null(dim(params[[p]]))) {
      stop_arg("parameter `", p, "` of `fun` must be a vector of candidate values, not ",
               describe(params[[p]]))
    }
    v <- params[[p]]
    if ((is.numeric(v) && !all(is.finite(v))) || anyNA(v)) {
      stop_arg("parameter `", p, "` of `fun` must have no NA, NaN or Inf values, not ",
               paste(format(v), collapse = " "))
    }
  }
  new_kernel("custom", params, fun)
}

new_kernel <- function(name, params, fun = NULL) {
  structure(list(name = name, params = params, fun = fun), class = "rlsc_kernel")
}

check_kernel_param <- function(x, arg, what, ok) {
  if (!is.numeric(x) || !is.null(dim(x)) || !length(x)) {
    stop_arg("`", arg, "` must be a numeric vector of ", what, " values, not ", describe(x))
  }
  ok <- ok & is.finite(x)
  if (!all(ok %in% TRUE)) {
    stop_arg("`", arg, "` must be ", what, ", not ", paste(format(x[!ok %in% TRUE]), collapse = ", "))
  }
}

#' @export
format.rlsc_kernel <- function(x, ...) {
  if (x$name == "rbf" && is.null(x$params$sigma)) return("rbf(sigma = median heuristic)")
  paste0(x$name, "(", format_params(x$params), ")")
}

# "a = 1, b = {2, 3}" for a list of parameter values.
format_params <- function(params) {
  if (!length(params)) return("")
  vals <- vapply(params, function(v) {
    v <- as.character(if (is.numeric(v)) signif(v, 4) else v)
    if (length(v) > 1L) paste0("{", paste(v, collapse = ", "), "}") else v
  }, "")
  paste(names(vals), "=", vals, collapse = ", ")
}

#' @export
print.rlsc_kernel <- function(x, ...) {
  cat("<rlsc kernel> ", format(x), "\n", sep = "")
  invisible(x)
}

#' Kernel matrix of two sets of rows
#'
#' The matrix \eqn{K_{ij} = k(x_i, z_j)} of a kernel with one value of each
#' parameter, for example to pass to [rlsc()] with `kernel = "precomputed"`.
#'
#' @param kernel a kernel from [kernel_rbf()], [kernel_polynomial()],
#'   [kernel_linear()] or [kernel_custom()], each parameter a single value.
#' @param x,z numeric matrices (or data frames of numeric columns) with the
#'   same columns; `z = NULL` means `z = x`.
#' @return The `nrow(x)` \eqn{\times} `nrow(z)` kernel matrix.
#' @export
#' @examples
#' x <- as.matrix(iris[1:5, 1:4])
#' kernel_matrix(kernel_rbf(sigma = 1), x)
#' kernel_matrix(kernel_polynomial(degree = 2), x, x[1:2, ])
kernel_matrix <- function(kernel, x, z = NULL) {
  if (!inherits(kernel, "rlsc_kernel")) {
    stop_arg("`kernel` must be a kernel such as kernel_rbf(1), not ", describe(kernel))
  }
  if (inherits(kernel, "rlsc_features")) {
    stop_arg("`kernel` must be an exact kernel such as kernel_rbf(1), not ", format(kernel),
             ": its features are built from the data when fitting")
  }
  if (kernel$name == "rbf" && is.null(kernel$params$sigma)) {
    stop_arg("`kernel` must have a value of `sigma`; the median heuristic applies when fitting")
  }
  if (any(lengths(kernel$params) != 1L)) {
    stop_arg("`kernel` must have one value of each parameter, not ", format(kernel))
  }
  x <- as_design_matrix(x)
  if (!is.null(z)) {
    z <- as_design_matrix(z, "z")
    if (ncol(z) != ncol(x)) stop_arg("`z` must have ", ncol(x), " columns (as `x`), not ", ncol(z))
  }
  if (kernel$name == "custom") return(custom_kernel(kernel, x, z))
  # distances computed about the mean of x: no cancellation far from the origin
  center <- if (kernel$name == "rbf") colMeans(x)
  c_kernel_matrix(x, z, kernel$name, kernel_params(kernel), center = center)
}

kernel_params <- function(kernel) as.double(unlist(kernel$params, use.names = FALSE))

# A custom kernel's matrix, checked: the right shape, finite, and symmetric
# when z = NULL.
custom_kernel <- function(kernel, x, z = NULL) {
  what <- if (is.null(z)) "fun(x, x)" else "fun(newdata, x)"
  k <- tryCatch(do.call(kernel$fun, c(list(x, if (is.null(z)) x else z), kernel$params)),
                error = function(e) {
                  stop_arg("the custom `kernel` function failed on ", what, ": ",
                           conditionMessage(e))
                })
  dims <- c(nrow(x), nrow(z %||% x))
  if (inherits(k, "Matrix")) k <- as.matrix(k)
  if (!is.matrix(k) || !is.numeric(k) || !identical(as.integer(dim(k)), as.integer(dims))) {
    got <- if (is.matrix(k)) paste(dim(k), collapse = " x ") else describe(k)
    stop_arg("the custom `kernel` function must return a numeric ", dims[1], " x ", dims[2],
             " matrix for ", what, ", not ", got)
  }
  if (!is.double(k)) storage.mode(k) <- "double"
  if (!all_finite(k)) {
    stop_arg("the custom `kernel` function returned NA, NaN or Inf values for ", what)
  }
  if (is.null(z)) check_symmetric(k, paste("the custom `kernel` function's", what))
  k
}

check_symmetric <- function(k, what) {
  gap <- c_kernel_asymmetry(k)
  if (gap > 1e-8 * max(abs(range(k)))) {
    stop_arg(what, " must be a symmetric matrix; its largest asymmetry |K[i, j] - K[j, i]| is ",
             format(gap, digits = 3))
  }
}

# The `kernel` argument of rlsc(): NULL for the linear kernel (the linear
# engine), otherwise a kernel object ("precomputed" is one without parameters).
check_kernel <- function(kernel, x, y) {
  if (is.character(kernel) && length(kernel) == 1L && !is.na(kernel)) {
    kernel <- switch(kernel, linear = kernel_linear(), rbf = kernel_rbf(),
                     polynomial = kernel_polynomial(),
                     precomputed = new_kernel("precomputed", list()), kernel)
  }
  if (!inherits(kernel, "rlsc_kernel")) {
    stop_arg("`kernel` must be \"linear\", \"rbf\", \"polynomial\", \"precomputed\" or a ",
             "kernel such as kernel_rbf(), not ", paste(format(kernel), collapse = " "))
  }
  if (kernel$name == "linear") return(NULL)
  if (kernel$name == "precomputed") {
    if (nrow(x) != ncol(x)) {
      stop_arg("`x` must be a square n x n kernel matrix for `kernel` = \"precomputed\", not ",
               nrow(x), " x ", ncol(x))
    }
    if (NROW(y) != nrow(x)) {
      stop_arg("`x` must be the n x n kernel matrix of the n = ", NROW(y),
               " training rows (the length of `y`) for `kernel` = \"precomputed\", not ",
               nrow(x), " x ", ncol(x))
    }
    check_symmetric(if (is_sparse(x)) as.matrix(x) else x, "`x` (a precomputed kernel)")
  }
  check_kernel_settings(kernel)
}

# Every setting of a kernel's parameters (a sigma left NULL is chosen later)
# as the methods' check of a fit (valid_kernel()) wants it: a kernel object
# edited by hand is an error of the fit, not of every method of a fit made
# from it.
check_kernel_settings <- function(kernel) {
  given <- kernel
  given$params <- Filter(Negate(is.null), kernel$params)
  if (!all(vapply(expand_kernel(given)$kernels, valid_kernel, NA))) {
    stop_arg("`kernel` must have finite values of its parameters, a positive `sigma`, `scale` ",
             "and whole `degree`, and a non-negative `offset`")
  }
  kernel
}

# Every setting of the kernel's parameters, as a list of kernels with single
# values, and the data frame of the settings (one row each).
expand_kernel <- function(kernel) {
  if (!length(kernel$params)) return(list(kernels = list(kernel), grid = NULL))
  grid <- expand.grid(kernel$params, KEEP.OUT.ATTRS = FALSE, stringsAsFactors = FALSE)
  kernels <- lapply(seq_len(nrow(grid)), function(i) {
    kernel$params <- as.list(grid[i, , drop = FALSE])   # other fields (features.R) kept
    kernel
  })
  list(kernels = kernels, grid = grid)
}

# sigma = NULL of the RBF kernel: the median distance between distinct rows
# of a sample (the median heuristic), times 1/4, 1/2, 1, 2 and 4, so that the
# bandwidth is chosen with lambda by exact LOO, as kernlab's sigest() gives a
# range of bandwidths.  `sample` is in the units of x, `scale` the column
# scales of standardize = TRUE (NULL: none).
sigma_grid <- function(sample, scale = NULL) {
  if (!is.null(scale)) sample <- scale_columns(sample, scale)
  median_heuristic(sample) * 2^(-2:2)
}

median_heuristic <- function(x) {
  idx <- unique(round(seq(1, nrow(x), length.out = min(nrow(x), 1000L))))
  d <- stats::dist(x[idx, , drop = FALSE])
  d <- d[d > 0 & !is.na(d)]   # NaN when x has no columns
  if (length(d)) stats::median(d) else 1
}

# sigma = NULL of the RBF kernel on many rows.  The exact search over the
# five bandwidths of sigma_grid() costs five eigendecompositions of the
# n x n kernel; from screen_size() rows on, the bandwidth is screened instead:
# the same search over the five (search_settings(): the fit's criterion, cv
# and lambda grid logic) on a uniform sample of rows of positive weight,
# `search(data)` the search of the sampled data.  The fit is then the exact
# one at the screened bandwidth alone: one decomposition of the n x n kernel
# and five of the sample's.  NULL (the exact search over the five) below
# screen_size()'s rows; else the chosen sigma, what new_fit() warns from
# (`grid`, `scores`, `j`: the choice at an end of the values) and what the fit
# keeps (`rows` sampled, and the `table` of each bandwidth's best criterion).
screen_sigma <- function(kernel, data, spec, search) {
  pos <- which(all_rows(data)$w > 0)
  size <- screen_size(length(pos))
  if (!size) return(NULL)
  seed <- sample.int(.Machine$integer.max %/% 2L, 1L)
  take <- sort(pos[with_seed(seed, sample.int(length(pos), size))])
  sampled <- search(data_rows(data, take))
  best <- search_settings(sampled, spec)
  crit <- spec$crit
  table <- sampled$grid
  table$lambda <- best$lambdas
  table[[crit$name]] <- best$scores * if (crit$maximize) -1 else 1
  table$chosen <- ifelse(seq_len(nrow(table)) == best$j, "*", "")
  list(sigma = best$setting$params$sigma, grid = sampled$grid, scores = best$scores, j = best$j,
       rows = take, table = table)
}

# The one rule of the screen: a sample of 1000 rows, from 2000 rows of
# positive weight on (its five decompositions then cost at most 5/8 of the
# one of the n x n kernel, 1/17 at n = 4435; below, about as much as the
# exact search's five); 0 for no screen.  Both numbers are the option
# rlsc.sigma_screen's (?rlsc-package), so that tests and users can move them.
screen_size <- function(npos) {
  s <- getOption("rlsc.sigma_screen", c(rows = 2000, sample = 1000))
  if (!is.numeric(s) || !all(c("rows", "sample") %in% names(s)) || anyNA(s[c("rows", "sample")]) ||
      s[["sample"]] < 2 || s[["rows"]] <= s[["sample"]]) {
    stop_arg("option `rlsc.sigma_screen` must be c(rows = , sample = ) with 2 <= sample < rows")
  }
  if (npos >= s[["rows"]]) as.integer(s[["sample"]]) else 0L
}
