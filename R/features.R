#' Nyström and random-feature kernels: kernel RLS at scale
#'
#' Kernels for [rlsc()] that replace the \eqn{n \times n} kernel matrix by
#' \eqn{m} features per row, so that kernel regularized least squares runs in
#' \eqn{O(n m^2)} time and, since rows are processed in blocks, in memory
#' that does not grow with \eqn{n} beyond the data themselves; with a chunk
#' source ([chunk_source()]) on data larger than memory.
#'
#' A model on \eqn{m} features \eqn{\Phi} (\eqn{n \times m}) is a *linear*
#' ridge regression on them, so [rlsc()] fits it with its primal engine: one
#' \eqn{m \times m} eigendecomposition per kernel setting gives the **exact**
#' leave-one-out (LOO) values at every \eqn{\lambda} of the grid, and the
#' kernel parameters are chosen jointly with \eqn{\lambda} as for exact
#' kernels (`sigma_min`, `kernel_path`, [plot()]). "Exact" refers to the model
#' on the features: leaving a row out refits the ridge regression on the same
#' features (the landmarks or frequencies are not redrawn), which is what the
#' approximate model predicts with. How close that model is to exact kernel
#' RLS depends on \eqn{m}.
#'
#' * `nystrom(kernel, m, landmarks)`: \eqn{\Phi = K(x, Z) K(Z, Z)^{-1/2}} for
#'   \eqn{m} landmarks \eqn{Z}, with the pseudo-inverse square root (directions
#'   of \eqn{K(Z, Z)} below its numerical rank are dropped by the rule the
#'   engine uses for its own spectrum). Any kernel of the package: RBF,
#'   polynomial, linear or custom. With every training row a landmark the fit
#'   is the exact kernel fit. The landmarks are `m` rows of `x` of positive
#'   weight drawn uniformly at random (`landmarks = NULL`, reproducible under
#'   [set.seed()]), the centres of a k-means clustering (`landmarks =
#'   "kmeans"`: [stats::kmeans()] with `m` centres, at most 25 iterations, on
#'   a uniform sample of at most `10 * m` rows), or a numeric matrix with the
#'   columns of `x` (of the model matrix without its intercept for a formula;
#'   in the units of `x`, also with `standardize = TRUE`). The fit works in the
#'   basis \eqn{k(x, z_j)}: [coef()] gives the intercept \eqn{b} and the
#'   coefficients \eqn{\alpha_j} of \eqn{f(x) = b + \sum_j \alpha_j k(x, z_j)}.
#' * `random_features(kernel_rbf(sigma), m)`: random Fourier features of the
#'   RBF kernel, \eqn{\Phi = \sqrt{2/m} \cos(x \Omega / \sigma + b)} with
#'   \eqn{\Omega} a \eqn{d \times m} matrix of standard normal entries and
#'   \eqn{b} uniform on \eqn{[0, 2\pi)}, so that \eqn{\Phi \Phi^\top} tends to
#'   the kernel matrix as \eqn{m} grows. One draw of \eqn{\Omega} and \eqn{b}
#'   (reproducible under [set.seed()]) serves every value of \eqn{\sigma}.
#'   [coef()] gives the intercept and the weights of the \eqn{m} features.
#'
#' The fit keeps what [predict()] needs: the landmarks and the \eqn{m \times r}
#' map, or \eqn{\Omega} and \eqn{b}, and the coefficients at any
#' \eqn{\lambda \ge 0} (from the engine: \eqn{m \times r} numbers). [loo_predict()],
#' [fitted()], [residuals()] and [hatvalues()] compute the features of the
#' training rows again, block by block. Classification, weights, the formula
#' interface, `standardize` (which scales the columns before the features),
#' K-fold (`cv`, `foldid`: each fold's moments of the features, merged),
#' `cv = "gcv"`, the criteria (the AUC and a function of the predictions with
#' leave-one-out only), `per_response`, `class_weights`, `type = "prob"` and
#' `se.fit` work as for other fits.
#'
#' The features of built-in kernels are computed in C by the package's
#' threads (`options(rlsc.threads)`, [rlsc_threads()]), a block of rows at a
#' time; a custom kernel's in R.
#'
#' @param kernel a kernel from [kernel_rbf()], [kernel_polynomial()],
#'   [kernel_linear()] or [kernel_custom()] (or its name, as in [rlsc()]);
#'   parameters given as vectors are chosen by exact LOO. For
#'   `random_features()` an RBF kernel.
#' @param m the number of landmarks or random features, a whole number of at
#'   least 1. For `nystrom()` with landmarks drawn from the data, at most the
#'   number of observations of positive weight; with a matrix of `landmarks`,
#'   its number of rows (the default).
#' @param landmarks `NULL` (the default: `m` rows drawn at random), `"kmeans"`,
#'   or a numeric matrix (or data frame) of landmarks, one per row.
#' @return An object of class `rlsc_features` (and `rlsc_kernel`), to pass
#'   as the `kernel` of [rlsc()].
#' @seealso [rlsc()], [kernel_rbf()]; `vignette("rlsc")` for an example and
#'   the sense in which the LOO values are exact.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(runif(600, -2, 2), ncol = 2)
#' y <- sin(3 * x[, 1]) * cos(2 * x[, 2]) + rnorm(300, sd = 0.3)
#' fit <- rlsc(x, y, kernel = nystrom(kernel_rbf(sigma = c(0.25, 0.5, 1, 2)), m = 40))
#' fit
#' fit$sigma_min
#' predict(fit, x[1:3, ])
#' rf <- rlsc(x, y, kernel = random_features(kernel_rbf(sigma = c(0.25, 0.5, 1, 2)), m = 60))
#' rf$cvm[rf$index_min]
nystrom <- function(kernel, m, landmarks = NULL) {
  kernel <- feature_base(kernel, "nystrom")
  if (is.character(landmarks) && identical(landmarks, "kmeans")) {
    m <- check_count(m, "m")
  } else if (!is.null(landmarks)) {
    if (is.character(landmarks) || is_sparse(landmarks)) {
      stop_arg("`landmarks` must be NULL, \"kmeans\" or a numeric matrix, not ",
               if (is.character(landmarks)) paste(format(landmarks), collapse = " ") else describe(landmarks))
    }
    landmarks <- as_design_matrix(landmarks, "landmarks")
    if (!nrow(landmarks)) stop_arg("`landmarks` must have at least one row")
    if (missing(m)) m <- nrow(landmarks)
    m <- check_count(m, "m")
    if (m != nrow(landmarks)) {
      stop_arg("`m` must be the number of rows of `landmarks` (", nrow(landmarks), "), not ", m)
    }
  } else {
    m <- check_count(m, "m")
  }
  new_feature_kernel("nystrom", kernel, m, landmarks)
}

#' @rdname nystrom
#' @export
random_features <- function(kernel, m) {
  kernel <- feature_base(kernel, "random_features")
  if (kernel$name != "rbf") {
    stop_arg("`kernel` must be an RBF kernel, kernel_rbf(sigma), for random_features(): random ",
             "Fourier features approximate the Gaussian kernel; use nystrom() for ", format(kernel))
  }
  new_feature_kernel("random_features", kernel, check_count(m, "m"), NULL)
}

# The kernel a feature kernel approximates, checked.
feature_base <- function(kernel, what) {
  if (is.character(kernel) && length(kernel) == 1L && !is.na(kernel)) {
    kernel <- switch(kernel, linear = kernel_linear(), rbf = kernel_rbf(),
                     polynomial = kernel_polynomial(), kernel)
  }
  if (!inherits(kernel, "rlsc_kernel") || inherits(kernel, "rlsc_features") ||
      identical(kernel$name, "precomputed")) {
    got <- if (inherits(kernel, "rlsc_kernel")) {
      format(kernel)
    } else if (is.character(kernel) && length(kernel) == 1L) {
      paste0("\"", kernel, "\"")
    } else {
      describe(kernel)
    }
    stop_arg("`kernel` of ", what, "() must be a kernel such as kernel_rbf(sigma), not ", got)
  }
  kernel
}

# A feature kernel is a kernel (its name, the parameters to choose among and a
# custom kernel's function, as expand_kernel() and the search need) with the
# approximated kernel's name in `base`, and `m` and `landmarks`.
new_feature_kernel <- function(name, kernel, m, landmarks) {
  structure(list(name = name, params = kernel$params, fun = kernel$fun, base = kernel$name,
                 m = m, landmarks = landmarks), class = c("rlsc_features", "rlsc_kernel"))
}

# The approximated kernel, with the parameters of one setting.
base_kernel <- function(kernel) new_kernel(kernel$base, kernel$params, kernel$fun)

#' @export
format.rlsc_features <- function(x, ...) {
  marks <- if (is.character(x$landmarks)) {
    ", landmarks = \"kmeans\""
  } else if (is.matrix(x$landmarks)) {
    paste0(", landmarks = <", nrow(x$landmarks), " x ", ncol(x$landmarks), " matrix>")
  }
  paste0(x$name, "(", format(base_kernel(x)), ", m = ", x$m, marks, ")")
}

# ---- feature maps ----------------------------------------------------------
# A feature map turns rows of x (in the units of x; `scale`, the column scales
# of standardize = TRUE or NULL, is applied first) into the rows the primal
# engine is fitted on, `feature_rows()`:
#   nystrom          Phi = K(x, Z) map, n x r, with map = K(Z, Z)^(-1/2) (m x r);
#                    without `map`, K(x, Z) alone (see feature_engine()); the
#                    landmarks Z are kept in the units of x, and both sets of
#                    rows are scaled (and, for the RBF kernel, moved by the
#                    landmarks' mean) inside the kernel computation
#   random_features  Phi = sqrt(2 / m) cos((x / scale) omega / sigma + 1 b'), n x m.

# Both are computed in C by the package's threads, in tiles of rows (in a fit
# the BLAS is held to one thread: a product in R would run on one core), a
# tile's kernel mapped while in cache; a custom kernel's in R.
feature_rows <- function(map, x) {
  if (is_sparse(x)) x <- as.matrix(x)
  if (map$type == "random_features") {
    return(c_fourier_rows(x, map$omega / (map$sigma * (map$scale %||% 1)), map$b))
  }
  if (map$kernel$name != "custom") {
    return(c_nystrom_rows(x, map$landmarks, map$kernel$name, kernel_params(map$kernel),
                          map$center, map$scale, map$map))
  }
  k <- map_kernel(map$kernel, x, map$landmarks, map$center, map$scale)
  if (is.null(map$map)) k else k %*% map$map
}

# K(x, z) (z NULL: K(x, x)) of rows in the units of x, scaled by `scale` and
# moved by `center` first.
map_kernel <- function(kern, x, z, center, scale) {
  if (kern$name == "custom") {
    return(custom_kernel(kern, scaled_rows(x, seq_len(nrow(x)), scale),
                         if (!is.null(z)) scaled_rows(z, seq_len(nrow(z)), scale)))
  }
  c_kernel_matrix(x, z, kern$name, kernel_params(kern), center = center, scale = scale)
}

# The map of one kernel setting.  Nystrom: the kernel of the landmarks,
# K(Z, Z) = U D U', and map = U_r D_r^(-1/2) over the directions kept by the
# engine's rank rule (kept_directions()): the pseudo-inverse square root, up to
# the rotation U_r', which a ridge penalty does not see.  `root` = U_r D_r^(1/2)
# serves feature_engine().
setting_map <- function(kern, landmarks, draw, scale = NULL) {
  if (kern$name == "random_features") {
    return(list(type = "random_features", omega = draw$omega, b = draw$b,
                sigma = kern$params$sigma, scale = scale))
  }
  base <- base_kernel(kern)
  # distances about the landmarks' mean: no cancellation far from the origin
  center <- if (base$name == "rbf") colMeans(landmarks)
  kzz <- map_kernel(base, landmarks, NULL, center, scale)
  if (!all_finite(kzz)) {
    stop_arg("the kernel matrix of the landmarks has NA, NaN or Inf values (overflow?): ",
             "rescale `x` or change the kernel parameters")
  }
  eig <- c_eigen(kzz)
  keep <- kept_directions(eig$values, nrow(kzz))$keep
  if (!any(keep)) {
    stop_arg("the kernel matrix of the landmarks is zero for ", format(base),
             ": the Nystrom features are all zero")
  }
  u <- eig$vectors[, keep, drop = FALSE]
  d <- eig$values[keep]
  list(type = "nystrom", kernel = base, landmarks = landmarks, center = center, scale = scale,
       map = u / rep_each(sqrt(d), nrow(u)), root = u * rep_each(sqrt(d), nrow(u)))
}

# The random draw of random_features(): omega (d x m) standard normal, then b
# uniform on [0, 2 pi), in this order; one draw for every sigma.
draw_frequencies <- function(kernel, d) {
  if (kernel$name != "random_features") return(NULL)
  omega <- matrix(stats::rnorm(d * kernel$m), d, kernel$m)
  list(omega = omega, b = stats::runif(kernel$m, 0, 2 * pi))
}

# The landmarks of a Nystrom kernel, in the units of x: given, or from
# `sample_rows(k)`, k rows of positive weight drawn uniformly at random (k at
# most npos), or k-means centres of such rows (clustered on the columns scaled
# by `scale`, where the kernel measures distances).
choose_landmarks <- function(kernel, sample_rows, npos, xnames, scale = NULL) {
  if (kernel$name != "nystrom") return(NULL)
  m <- kernel$m
  z <- kernel$landmarks
  if (is.matrix(z)) {
    nms <- colnames(z)
    if (!is.null(nms) && !anyDuplicated(nms) && all(xnames %in% nms) && ncol(z) > length(xnames)) {
      z <- z[, xnames, drop = FALSE]
    }
    if (ncol(z) != length(xnames)) {
      stop_arg("`landmarks` must have ", length(xnames), " columns (as `x`), not ", ncol(z))
    }
    dimnames(z) <- NULL
    return(z)
  }
  if (m > npos) {
    stop_arg("`m` must be at most the number of observations of positive weight (", npos,
             ") for nystrom() with landmarks drawn from the data, not ", m)
  }
  if (is.null(z)) return(unname(sample_rows(m)))
  rows <- unname(sample_rows(min(npos, 10 * m)))
  if (is.null(scale)) return(kmeans_landmarks(rows, m))
  kmeans_landmarks(scale_columns(rows, scale), m) * rep_each(scale, m)
}

kmeans_landmarks <- function(rows, m) {
  distinct <- nrow(unique(rows))
  if (m > distinct) {
    stop_arg("`m` must be at most the number of distinct rows (", distinct, ") for ",
             "landmarks = \"kmeans\", not ", m)
  }
  # k-means centres need not have converged to be good landmarks
  km <- suppressWarnings(stats::kmeans(rows, centers = m, iter.max = 25L))
  unname(km$centers)
}

# Whether the fit needs sigma from the median heuristic.
needs_sigma <- function(kernel) {
  (identical(kernel$base, "rbf") || kernel$name == "random_features") && is.null(kernel$params$sigma)
}

# ---- the engine --------------------------------------------------------------
# The primal engine of a feature map, from the merged moments of the features
# (pass 1): the m x m eigendecomposition of their centered weighted Gram,
# Phi~' Phi~ = V Lambda V'.  For Nystrom the engine then works on the rows
# K(x, Z) instead of Phi = K(x, Z) map: with v = map V and the center c = root
# phibar (so that map' c = phibar), (K(x, Z) - 1 c') v = (Phi - 1 phibar') V is
# the same B, one product cheaper per row in every later pass and in predict(),
# and the coefficients are those of k(x, z_j).  The Gram itself is formed from
# Phi, never as map' K' K map, which would square the condition number of
# K(Z, Z).

feature_engine <- function(eng, map) {
  if (is.null(map$map)) return(eng)
  eng$v <- map$map %*% eng$v
  eng$shift <- drop(map$root %*% eng$shift)
  eng$center <- drop(map$root %*% eng$center)
  eng
}

# The map new rows go through once the engine works on K(x, Z): without the
# inverse square root.
evaluation_map <- function(map) {
  map$map <- map$root <- NULL
  map
}

# ---- methods of feature fits ------------------------------------------------

#' @rdname nystrom
#' @param object a fit of [rlsc()] with a Nyström or random-feature kernel.
#' @param lambda a number \eqn{\ge 0}, or `"lambda_min"` / `"lambda_1se"`, or a
#'   vector of them (a column per value).
#' @param s glmnet's name for `lambda` (give one of the two).
#' @param ... not used.
#' @export
coef.rlsc_features_fit <- function(object, lambda = object$lambda_min, ..., s = NULL) {
  check_no_dots(...)
  prefix <- if (object$features$type == "nystrom") "z" else "phi"
  coefficients_at(object, glmnet_s(lambda, s, missing(lambda)), function(p) paste0(prefix, seq_len(p)))
}

# Rows per block of data in memory for a feature map: about
# budgets$features doubles of features per block, so that no n x m matrix
# exists.
feature_block_rows <- function(m, d) max(1L, as.integer(budgets$features / max(m, d, 1)))
