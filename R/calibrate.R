# Class probabilities of a classification fit (DESIGN.md, section 4): a
# monotone multinomial logistic map of the decision values, fitted on the
# exact leave-one-out decision values at the lambda asked for, so that the
# map never sees the label of a row through that row's own decision value,
# and so that the probabilities at any lambda are those of a fit made at
# that lambda (tidymodels fits once and predicts at every penalty).
#
# The map: for K classes, eta_k = a_k + b_k f_k with f_k the decision value of
# class k (its one-vs-all column) and b_k >= 0, p = softmax(eta), a_1 = 0;
# each class's probability rises with its own decision value.  For two
# classes (one column f, +1 for the second class) it is Platt's map,
# p_2 = plogis(a + b f) with b >= 0.  The targets are Platt's, (N_k + 1) /
# (N_k + 2) for the row's own class and the rest shared by the others (N_k
# the rows of class k the map is fitted on), which keep the map finite when
# the values separate the classes.  Rows weigh their observation weights
# without the class weights: the probabilities are those of the classes as
# they occur, not as `class_weights` reweighs them.  Rows of weight 0 and
# rows whose LOO value is undefined (NA: leverage 1) drop out.
#
# The values (calibration_rows()): each row's exact LOO decision values,
# f_{-i}(x_i) = ybar_{-i} + s_i, with the intercept of all rows, ybar, in
# place of the LOO model's own, ybar_{-i} = ybar - w_i (y_i - ybar) /
# (sum(w) - w_i): s_i comes from the other rows alone, and ybar is one
# number for every row, so the values never saw their own labels.  The
# LOO model's own intercept moves away from the row's class (the row's
# label left out of the mean), the more the larger lambda: as lambda grows
# the LOO values tend to ybar_{-i}, perfectly anti-correlated with the
# labels, while the decision values still rank the classes (towards the
# nearest-centroid rule) by deviations of order 1 / lambda.  A monotone map
# of the raw LOO values then has slope 0 and gives the class shares (iris
# at 10 times the grid's largest lambda: test log loss 1.10 against 0.17).
# (K-fold held-out values, which the package used before, need one
# decomposition per fold; folds stratified by class move the intercept by
# less, not by nothing.)
#
# The maps at lambda_min and lambda_1se are fitted when fitting and kept in
# the fit (calibrate_fit()); a map at any other lambda is fitted when asked
# (calibration_maps(): one pass over the rows for all the lambdas asked at
# once), from the same values and the same start, so it is the map a fit at
# that lambda keeps.  Cross-fitted LOO probabilities (loo_predict(type =
# "prob")) send each row's value through the map fitted without its fold,
# the folds dealt by class by one rule for every data source
# (crossfit_folds(), dealt_folds()).

# The calibration of a fit, when fitting: NULL (regression, or
# calibration_folds = 0), or list(K, the folds of cross-fitted LOO
# probabilities, at = list of list(lambda, map)), the maps of lambda_min and
# lambda_1se (each response column at its own lambda with per_response).
calibrate_fit <- function(fit, spec) {
  if (fit$type != "classification" || !spec$calibration) return(NULL)
  lambdas <- unique(list(lambda_value(fit, "lambda_min"), lambda_value(fit, "lambda_1se")))
  fit$calibration <- list(K = spec$calibration_folds, at = list())
  maps <- calibration_maps(fit, lambdas)
  fit$calibration$at <- Map(function(l, m) list(lambda = unname(l), map = m), lambdas, maps)
  fit$calibration
}

# The maps at each of the list `lambdas` (values of lambda_value()): the
# fit's own where it keeps them, the others fitted from the values of one
# pass over the rows (in batches of lambdas of at most about 1e7 values);
# or an error that says why the fit has no probabilities.
calibration_maps <- function(object, lambdas) {
  check_calibrated(object)
  maps <- lapply(lambdas, stored_map, object = object)
  todo <- which(vapply(maps, is.null, NA))
  if (!length(todo)) return(maps)
  k <- length(object$classes)
  single <- all(lengths(lambdas[todo]) == 1L)
  size <- max(1, floor(budgets$values / (max(object$nobs, 1) * ncol(object$y))))
  batches <- if (single) split(todo, ceiling(seq_along(todo) / size)) else as.list(todo)
  for (b in batches) {
    outs <- if (single) path_outputs_at(object, unlist(lambdas[b])) else list(fit_outputs(object, lambdas[[b]]))
    for (j in seq_along(b)) maps[[b[j]]] <- fit_map(calibration_rows(object, outs[[j]]), k)[c("a", "b")]
  }
  maps
}

# The LOO values, responses and weights of the fit's rows at each of the
# single values `lambda`, from one pass: a list of list(loo, y, weights).
path_outputs_at <- function(object, lambda) {
  path <- engine_path(object$engine, object$data, lambda, keep = TRUE, columns = FALSE)
  n <- dim(path$loo)[1L]
  lapply(seq_along(lambda), function(j) {
    list(loo = matrix(path$loo[, , j], n), y = path$y, weights = path$weights)
  })
}

# The map the fit keeps at `lambda`, or NULL.
stored_map <- function(object, lambda) {
  for (entry in object$calibration$at) {
    if (identical(as.double(entry$lambda), as.double(lambda))) return(entry$map)
  }
  NULL
}

# An error unless the fit has probabilities.
check_calibrated <- function(object) {
  if (!is.null(object$calibration)) return(invisible())
  if (inherits(object, "rlsc_banded_fit") && object$type == "classification") {
    stop_arg("this banded fit has no probabilities: each class column has its own band weights; ",
             "refit with `per_response` = FALSE (one weighting for all classes)")
  }
  stop_arg("this fit has no probabilities: it was fitted with `calibration_folds` = 0; ",
           "refit with `calibration_folds` = 5 (the default)")
}

# What a map is fitted on, from a fit's outputs at one lambda (fit_outputs(),
# path_outputs_at()): list(f, code, w), each row's LOO decision values with
# the intercept of all rows (see above), its class and its observation
# weight.
calibration_rows <- function(object, out) {
  f <- out$loo
  w <- out$weights
  if (object$intercept) {
    total <- sum(w)
    ybar <- colSums(w * out$y) / total
    f <- f + (w / (total - w)) * (out$y - rep_each(ybar, nrow(out$y)))
  }
  list(f = f, code = class_codes(out$y), w = observation_weights(w, out$y, object$data$template$class_weights))
}

# Cross-fitted probabilities of the fit's rows (`rows`, calibration_rows()):
# each row's values through the map fitted without its fold (started from
# `map`, the map of every row).  A fold is left out by weighing its rows 0
# (fit_map() reads no row of weight 0), not by a copy of the other rows.
crossfit_probabilities <- function(object, rows, map) {
  k <- length(object$classes)
  fold <- crossfit_folds(object, rows)
  p <- matrix(NA_real_, nrow(rows$f), k, dimnames = list(rownames(rows$f), object$classes))
  for (j in seq_len(max(fold, 0L))) {
    out <- fold == j
    w <- rows$w
    w[out] <- 0
    fold_map <- fit_map(list(f = rows$f, code = rows$code, w = w), k, map)
    p[out, ] <- class_probabilities(object, rows$f[out, , drop = FALSE], fold_map)
  }
  p
}

# The folds of cross-fitted LOO probabilities: `calibration_folds` (at most
# the rows of positive weight) dealt by class (dealt_folds()) from the rows'
# classes and weights as every data source reads them, so that a chunk
# source's rows get the folds of the same rows in memory.
crossfit_folds <- function(object, rows) {
  dealt_folds(min(object$calibration$K, sum(rows$w > 0)), rows$code, rows$w)
}

# Folds dealt by class: the rows of positive weight `w`, class by class,
# then the others, deal the folds in turn, so that every fold holds each
# class's count of rows of positive weight within one, and rows of weight 0
# added after the others move no fold.  Within a class the rows go in an
# order shuffled by a fixed seed (with_seed(), which leaves the caller's
# random numbers as they were): the same rows in the same order get the
# same folds at every call; dealt in the rows' own order, they lined up
# with any structure of period K in it (5 conditions per subject, row after
# row, made each fold one condition, and weights of 0 on every other row
# left two of 4 folds without a row of positive weight).
dealt_folds <- function(nfold, strata, w) {
  n <- length(strata)
  shuffle <- with_seed(20261128L, stats::runif(n))
  fold <- integer(n)
  fold[order(!(w > 0), strata, shuffle)] <- rep_len(seq_len(nfold), n)
  fold
}

# Weights without the class weights (rows of a class weighing 0 drop out).
observation_weights <- function(w, y, cw) {
  if (is.null(cw)) return(w)
  share <- cw[class_codes(y)]
  ifelse(share > 0, w / share, 0)
}

# The monotone multinomial map of decision values `f` (n x T), classes `code`
# (1..k) and weights `w`: list(a, b, theta), a and b k values each (a_1 = 0;
# for two classes b_1 = 0 and b_2 the slope of the one column), minimizing the weighted
# cross-entropy against Platt's targets under b >= 0: a convex problem of
# 2k - 1 parameters, solved by projected Newton steps (c_softmax_fit()) on
# columns centred at their weighted means and scaled by their weighted
# standard deviations, in O(n k^2) per step, to a projected gradient below
# `tol`; `theta` the parameters on those columns.  `start`, a map (a, b),
# starts a fold's map of cross-fitted probabilities from the map of every
# row.  (Scaled by their largest magnitudes alone, columns of large
# lambdas, an intercept's -0.8 and deviations of 1e-4, made the slopes
# collinear with the intercepts and thousands strong.)
# Rows of weight 0 or with a value missing drop out by weighing 0: nothing
# of such a row counts in the C, which centres and scales the values as it
# reads them, so `f` is never copied (its copies, centred and scaled, were
# a millisecond of each map of 5000 rows and 10 classes).  Without a row
# of positive weight and values (every LOO value undefined) the map has
# no slopes: the class shares of the rows of positive weight.
fit_map <- function(held, k, start = NULL, tol = 1e-11) {
  hold_blas_threads()   # once for all its evaluations (outside a fit: loo_predict())
  w <- held$w
  keep <- w > 0
  if (anyNA(held$f)) keep <- keep & stats::complete.cases(held$f)
  if (!any(w > 0)) return(list(a = numeric(k), b = numeric(k), theta = NULL))
  if (!any(keep)) {
    held$f[] <- 0
    keep <- w > 0
  }
  w[!keep] <- 0
  w <- w / sum(w)
  code <- as.integer(held$code)
  counts <- tabulate(code[keep], k)
  own <- (counts + 1) / (counts + 2)   # Platt's target of each class for its own rows
  slopes <- if (k == 2L) 2L else seq_len(k)   # two classes: one slope
  f <- if (k == 2L) held$f[, 1L, drop = FALSE] else held$f   # own_values(f, k)[, slopes]
  cols <- c_column_spreads(f, w)
  m <- numeric(k)
  m[slopes] <- cols$mean
  s <- cols$sd
  # a column whose values differ by less than a thousand units in the last
  # place of their size differs by little more than their rounding: it
  # carries nothing to map, and gets no slope (scaled up to unit spread,
  # a spread of one unit took slopes of 1e15).  Larger spreads, however
  # small, are the map's to fit: at lambda = 1e11 on iris the classes'
  # values spread by 1e-8 of their size and still ranked the classes.
  flat <- !(s > 1024 * .Machine$double.eps * (abs(m[slopes]) + s))
  s[flat] <- 1
  inv_scale <- ifelse(flat, 0, 1 / s)
  na <- k - 1L
  # the parameters on the centred, scaled columns (intercepts relative to
  # the first class's) of a map, and back
  scaled <- function(map) {
    at_mean <- map$a + map$b * m
    c(at_mean[-1L] - at_mean[1L], map$b[slopes] * s)
  }
  unscaled <- function(theta) {
    b <- numeric(k)
    b[slopes] <- theta[-seq_len(na)] / s
    a <- c(0, theta[seq_len(na)]) - b * m
    list(a = a - a[1L], b = b, theta = theta)
  }
  # the start: the map given, on the centred, scaled columns; else the
  # intercepts of the class shares, and unit slopes on the scaled values:
  # closer to the optimum than 0, where every slope is held
  theta0 <- if (!is.null(start)) {
    near <- scaled(start)
    near[na + which(flat)] <- 0
    near
  } else {
    wsum <- numeric(k)
    by_class <- rowsum(w, code)
    wsum[as.integer(rownames(by_class))] <- by_class
    other <- wsum * (1 - own) / (k - 1)
    share <- wsum * own + sum(other) - other
    c(log(share[-1L] / share[1L]), ifelse(flat, 0, 1))
  }
  fit <- c_softmax_fit(f, code, own, w, theta0, slopes, m[slopes], inv_scale, tol)
  c(unscaled(fit$theta), list(evaluations = fit$evaluations))
}

# Each class's own decision value (n x k): its one-vs-all column, or for two
# classes 0 and the one column.
own_values <- function(f, k) if (k == 2L) cbind(numeric(nrow(f)), f[, 1L]) else f

log_sum_exp <- function(eta) {
  top <- eta[cbind(seq_len(nrow(eta)), max.col(eta, "first"))]
  top + log(rowSums(exp(eta - top)))
}

# Probabilities (m x K, named by class) of decision values under a map.
class_probabilities <- function(object, decision, map) {
  k <- length(object$classes)
  f <- own_values(decision, k)
  eta <- rep_each(map$a, nrow(f)) + f * rep_each(map$b, nrow(f))
  p <- exp(eta - log_sum_exp(eta))
  dimnames(p) <- list(rownames(decision), object$classes)
  p
}

