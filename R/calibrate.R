# Class probabilities of a classification fit (DESIGN.md, section 4): a
# monotone multinomial logistic map of the decision values, fitted on exact
# K-fold held-out decision values, so that the map never sees the label of a
# row through that row's own decision value.  (Fitted on the LOO values, as
# before, it learnt their anti-correlation with the labels at small lambda:
# on pure noise every LOO probability "predicted" its own class.)
#
# The map: for K classes, eta_k = a_k + b_k f_k with f_k the decision value of
# class k (its one-vs-all column) and b_k >= 0, p = softmax(eta), a_1 = 0;
# each class's probability rises with its own decision value.  For two
# classes (one column f, +1 for the second class) it is Platt's map,
# p_2 = plogis(a + b f) with b >= 0.  The targets are Platt's, (N_k + 1) /
# (N_k + 2) for the row's own class and the rest shared by the others (N_k
# the rows of class k the map is fitted on), which keep the map finite when
# the held-out values separate the classes.  Rows weigh their observation
# weights without the class weights: the probabilities are those of the
# classes as they occur, not as `class_weights` reweighs them.
#
# At fit time (calibrate_fit(), called by new_fit()) the held-out values come
# from the package's K-fold machinery (kfold.R: fold engines from merged fold
# moments in the primal form, a dual engine per fold; no refits): the fit's
# own folds for cv = K, else `calibration_folds` folds stratified by class,
# dealt in turn (dealt_folds(); a chunk source's rows take the folds in turn
# within each chunk).  The fit
# keeps, at lambda_min and lambda_1se, the map fitted on every row's held-out
# value, which predict(type = "prob") applies, and the held-out values, from
# which loo_predict(type = "prob") fits the K maps without each fold and
# sends each row's LOO value through the map that did not see the row's fold
# (cross-fitting).

# The calibration of a fit: NULL (regression, or calibration_folds = 0), or
# list(K, foldid (memory) or NULL (the chunks' rule), at = list of list(lambda,
# full, held)).  `fold_engines(fold, K, moments)` builds the chosen setting's
# fold engines for fold labels `fold` (NULL: the chunks' rule), from the
# folds' `moments` when pass 1 kept them (NULL: a pass of its own).
calibrate_fit <- function(best, spec, data, sel, fold_engines) {
  if (data$resp$type != "classification" || !spec$calibration) return(NULL)
  if (spec$cv$type == "kfold") {
    nfold <- spec$cv$K
    fold <- data$rows$fold
    engines <- best$folds
  } else {
    nfold <- min(spec$calibration_folds, best$npos)
    # (the folds' moments from pass 1, where it kept them: with_calibration_folds())
    kept <- identical(data$calibration_folds, nfold)
    fold <- if (data$kind == "memory") {
      if (kept) data$rows$fold else calibration_fold_labels(data, nfold)
    }
    engines <- fold_engines(fold, nfold, if (kept) best$calibration)
  }
  if (data$kind == "memory") data$rows$fold <- fold
  k <- length(data$resp$classes)
  cw <- data$template$class_weights
  # the maps of lambda_min and lambda_1se (each response column at its own
  # lambda with per_response, else all at one), and maps at about 11 values
  # evenly spaced along the grid, for probabilities at other lambdas
  # (interpolated_map()): all from one pass over the held-out rows
  lambdas <- unique(list(best$path$lambda[sel$index_min], best$path$lambda[sel$index_1se]))
  path <- best$path$lambda
  at <- path[unique(round(seq(1, length(path), length.out = min(11L, length(path)))))]
  grid <- sort(unique(c(unlist(lambdas), at)), decreasing = TRUE)
  chosen <- lapply(lambdas, function(l) match(rep_len(l, ncol(data$resp$y0)), grid))
  held <- vector("list", length(lambdas))
  maps <- list()
  last <- NULL
  each_heldout(engines, data, grid, nfold, cw, function(j, rows) {
    for (e in seq_along(chosen)) {
      cols <- which(chosen[[e]] == j)
      if (!length(cols)) next
      h <- held[[e]] %||% c(list(f = matrix(NA_real_, nrow(rows$f), ncol(rows$f))), rows[-1L])
      h$f[, cols] <- rows$f[, cols]
      held[[e]] <<- h
    }
    # (in decreasing lambda, each map started from the one before; to the
    # tolerance of fold_maps(), 1e-8 in the gradient: these maps serve the
    # probabilities at other lambdas, interpolated, as the fold maps serve
    # LOO probabilities; lambda_min's and lambda_1se's are fitted to 1e-11)
    if (grid[j] %in% at) {
      last <<- fit_map(rows, k, last, tol = 1e-8)
      maps[[length(maps) + 1L]] <<- last
    }
  })
  list(K = nfold, foldid = fold,
       at = Map(function(l, h) fit_calibration(h, k, l, nearest_map(at, maps, l)), lambdas, held),
       path = list(lambda = at, maps = lapply(maps, `[`, c("a", "b"))))
}

# The folds' held-out decision values at each lambda of `grid` (in batches of
# lambdas of at most about 1e7 numbers): visit(j, rows) gets, for grid[j],
# list(f, code, w, fold, nfold) of the rows of every fold, fold by fold:
# their decision values (n x T), classes, observation weights without the
# class weights, and folds (of 1..nfold).  The folds' rows are bound once a
# batch, not once a lambda (that and the slices per fold were 30 ms of R a
# 10-class fit of 5000 rows).
each_heldout <- function(engines, data, grid, nfold, cw, visit) {
  n <- if (data$kind == "memory") nrow(data$rows$y) else sum(data$counts$n)
  nt <- ncol(data$resp$y0)
  batch <- max(1L, floor(1e7 / (max(n, 1) * nt)))
  rows <- NULL
  for (b in split(seq_along(grid), ceiling(seq_along(grid) / batch))) {
    parts <- kfold_paths(engines, data, grid[b], TRUE, TRUE, nfold, columns = FALSE)
    # (the classes, weights and folds of the rows are the same at every lambda)
    rows <- rows %||% list(
      code = unlist(lapply(parts, function(p) class_codes(p$y))),
      w = unlist(lapply(parts, function(p) observation_weights(p$weights, p$y, cw))),
      fold = rep(seq_along(parts), vapply(parts, function(p) length(p$weights), 1L)), nfold = length(parts))
    # n x (T x lambdas), each fold's rows filled in place (a matrix() of
    # each fold's values and their rbind() copied every value twice)
    f <- matrix(0, length(rows$fold), nt * length(b))
    at <- 0L
    for (p in parts) {
      k <- nrow(p$loo)
      if (k) f[at + seq_len(k), ] <- p$loo
      at <- at + k
    }
    for (j in seq_along(b)) visit(b[j], c(list(f = f[, (j - 1L) * nt + seq_len(nt), drop = FALSE]), rows))
  }
}

# The calibration's folds of rows in memory: each class's rows of positive
# weight `w`, then its others, deal the folds in turn, continuing from class
# to class, so that every fold holds each class's count of rows of positive
# weight within one (a chunk source's rows deal theirs in turn within each
# chunk).  Within a class the rows go in an order shuffled by a fixed seed
# (with_seed(), which leaves the caller's random numbers as they were): in
# a primal fit the whole data's moments are the folds' merged
# (with_calibration_folds()), and folds drawn from the caller's stream would
# move a fit's numbers, its leave-one-out path too, in their last bits from
# one call to the next; dealt in the rows' own order, they lined up with any
# structure of period K in it (5 conditions per subject, row after row, made
# each fold one condition, and weights of 0 on every other row left two of
# 4 folds without a row of positive weight).
dealt_folds <- function(nfold, strata, w) {
  n <- length(strata)
  shuffle <- with_seed(20261128L, stats::runif(n))
  fold <- integer(n)
  fold[order(strata, !(w > 0), shuffle)] <- rep_len(seq_len(nfold), n)
  fold
}

# The calibration's `nfold` fold labels of data in memory: dealt by class,
# the rows' weights those with the class weights, as pass 1 counts them
# (with_calibration_folds() before pass 1, calibrate_fit() where pass 1 kept
# no folds).
calibration_fold_labels <- function(data, nfold) {
  dealt_folds(nfold, class_codes(data$rows$y), all_rows(data)$w)
}

# The path map nearest to (the first of) `lambda` in log(lambda): a start
# for the map there.
nearest_map <- function(at, maps, lambda) {
  maps[[which.min(abs(log(pmax(at, 1e-300)) - log(max(lambda[1L], 1e-300))))]]
}

# The map at a lambda between those of the path (calibrate_fit()): the parameters
# interpolated linearly in log(lambda) (lambda = 0, the end of a grid that
# reaches least squares, counts as one step beyond its neighbour); beyond the
# ends, the end's map.  Each map interpolated is fitted on held-out values,
# so the interpolated one never saw a row's own label either.
interpolated_map <- function(path, lambda) {
  at <- path$lambda
  if (!any(at > 0)) return(path$maps[[1L]])   # a grid of lambda = 0 alone: its one map
  pos <- log(at)
  if (any(at == 0)) {
    positive <- pos[at > 0]
    step <- if (length(positive) > 1L) abs(diff(positive[1:2])) else 1
    pos[at == 0] <- min(positive) - step
  }
  x <- if (lambda > 0) log(lambda) else min(pos)
  if (x >= max(pos)) return(path$maps[[which.max(pos)]])
  if (x <= min(pos)) return(path$maps[[which.min(pos)]])
  hi <- which(pos >= x)[which.min(pos[pos >= x])]
  lo <- which(pos <= x)[which.max(pos[pos <= x])]
  if (hi == lo) return(path$maps[[hi]])
  t <- (x - pos[lo]) / (pos[hi] - pos[lo])
  mix <- function(field) (1 - t) * path$maps[[lo]][[field]] + t * path$maps[[hi]][[field]]
  list(a = mix("a"), b = mix("b"))
}

# Weights without the class weights (rows of a class weighing 0 drop out).
observation_weights <- function(w, y, cw) {
  if (is.null(cw)) return(w)
  share <- cw[class_codes(y)]
  ifelse(share > 0, w / share, 0)
}

# The map on every fold's held-out values; the K maps without each fold
# are fitted when loo_predict() asks for them, from the held-out values kept
# (every fold's rows' decision values, classes, weights and folds, from
# each_heldout(): n x T numbers, as many as the response), so that fitting
# costs one map per lambda, not K + 1.
fit_calibration <- function(held, k, lambda, start = NULL) {
  list(lambda = lambda, full = fit_map(held, k, start)[c("a", "b")], held = held)
}

# The K maps fitted without each fold, started from the full map (a looser
# tolerance: they serve LOO probabilities, whose folds' maps differ more).
# A fold is left out by weighing its rows 0 (fit_map() reads no row of
# weight 0), not by a copy of the other folds' rows.
fold_maps <- function(entry, k) {
  held <- entry$held
  lapply(seq_len(held$nfold), function(j) {
    w <- held$w
    w[held$fold == j] <- 0
    fit_map(list(f = held$f, code = held$code, w = w), k, entry$full, tol = 1e-8)
  })
}

# The monotone multinomial map of decision values `f` (n x T), classes `code`
# (1..k) and weights `w`: list(a, b, theta), a and b k values each (a_1 = 0;
# for two classes b_1 = 0 and b_2 the slope of the one column), minimizing the weighted
# cross-entropy against Platt's targets under b >= 0: a convex problem of
# 2k - 1 parameters, solved by projected Newton steps (c_softmax_fit()) on
# columns centred at their weighted means and scaled by their weighted
# standard deviations, in O(n k^2) per step; `theta`, the parameters on those
# columns, serves as the start of the next lambda's map (`start`: a map,
# with or without its theta).  (Scaled by their largest magnitudes
# alone, the columns of the largest lambdas, an intercept's -0.8 and
# deviations of 1e-4, made the slopes collinear with the intercepts and
# thousands strong: each map took 7 or 8 Newton steps, a neighbour's map was
# a poor start, and the maps were half the cost of a 10-class fit.)
# Rows of weight 0 or with a value missing drop out by weighing 0: nothing
# of such a row counts in the C, which centres and scales the values as it
# reads them, so `f` is never copied (its copies, centred and scaled, were
# a millisecond of each map of 5000 rows and 10 classes).
fit_map <- function(held, k, start = NULL, tol = 1e-11) {
  hold_blas_threads()   # once for all its evaluations (outside a fit: loo_predict())
  w <- held$w
  keep <- w > 0
  if (anyNA(held$f)) keep <- keep & stats::complete.cases(held$f)
  if (!any(keep)) return(list(a = numeric(k), b = numeric(k), theta = NULL))
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
  # the start: a neighbouring lambda's map, on the centred, scaled columns
  # (where lambda is large the decision values' deviations shrink as
  # 1 / lambda, and there the map barely moves from one lambda to the next);
  # else the intercepts of the class shares, and unit slopes on the scaled
  # values: closer to the optimum than 0, where every slope is held.  (The
  # neighbour's map was compared with that plain start, an evaluation per
  # map, 12 a fit: in fits of 2, 3 and 10 classes, on signal and on noise,
  # it never chose the plain start.)
  theta0 <- if (!is.null(start)) {
    near <- start$theta %||% scaled(start)
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

# The stored calibration at `lambda` (a value of lambda_value()): the maps of
# lambda_min and lambda_1se with the held-out values cross-fitting needs, or
# (not for cross-fitting) a map interpolated along the grid; or an error that
# says where probabilities are served.
calibration_at <- function(object, lambda, crossfit = FALSE) {
  cal <- object$calibration
  if (is.null(cal) && inherits(object, "rlsc_banded_fit") && object$type == "classification") {
    stop_arg("this banded fit has no probabilities: each class column has its own band weights; ",
             "refit with `per_response` = FALSE (one weighting for all classes)")
  }
  if (is.null(cal)) {
    stop_arg("this fit has no probabilities: it was fitted with `calibration_folds` = 0; ",
             "refit with `calibration_folds` = 5 (the default)")
  }
  for (entry in cal$at) if (identical(as.double(entry$lambda), unname(as.double(lambda)))) return(entry)
  if (!crossfit && length(unique(lambda)) == 1L && !is.null(cal$path)) {
    return(list(lambda = lambda, full = interpolated_map(cal$path, lambda[1L])))
  }
  stop_arg(if (crossfit) "cross-fitted leave-one-out probabilities" else "probabilities",
           " are calibrated at `lambda_min` and `lambda_1se`",
           if (!crossfit) " (and, interpolated, at any single lambda)", ", not at `lambda` = ",
           paste(format(lambda), collapse = " "), "; to calibrate there, refit with `lambda` = ",
           format(lambda[1L]), " (a grid of that one value is its own lambda_min)")
}

# Cross-fitted probabilities of the LOO decision values `loo` (n x T, the
# fit's rows in order): each row through the map fitted without its fold.
crossfit_probabilities <- function(object, loo, entry) {
  fold <- calibration_folds(object)
  maps <- fold_maps(entry, length(object$classes))
  p <- matrix(NA_real_, nrow(loo), length(object$classes),
              dimnames = list(rownames(loo), object$classes))
  for (k in seq_along(maps)) {
    rows <- which(fold == k)
    if (length(rows)) p[rows, ] <- class_probabilities(object, loo[rows, , drop = FALSE], maps[[k]])
  }
  p
}

# The calibration fold of each row: stored for data in memory, else the
# chunks' rule (or their `foldid`) read again.
calibration_folds <- function(object) {
  cal <- object$calibration
  if (!is.null(cal$foldid)) return(cal$foldid)
  unlist(map_rows(object$data, block_folds, c, nfold = cal$K, what = "reading the folds of"),
         use.names = FALSE)
}
