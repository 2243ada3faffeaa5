# Step 3 (DESIGN.md, section 3): the exact LOO path of rows in an engine's
# eigenbasis over a grid of lambda.  row_path() is the one caller of
# src/path.c; a set of rows comes from a primal engine (each block of the
# data source projected, primal_rows(): every pass streams the rows again,
# in memory one block) or from a dual engine (which holds its rows).  Each
# part of a path holds, per lambda and loss, a weighted mean and sum of
# squared deviations (merged by merge_stats()), the number of undefined LOO
# values and, on request, the kept outputs (1 - h, fitted and LOO values, and
# the rows' y and weights).
#
# y, g and r0 are divided in C by `unit` (data$unit, loss_unit()), a power of
# two near max |y| (exact), so that the squared losses and the squared
# deviations of the squared losses (about y^4) neither overflow nor
# underflow: y of 1e80 or 1e-80 has standard errors, not Inf or 0.  The
# criteria come back in units of `unit` raised to `power` (one per criterion
# column: squared losses 2, absolute 1, misclassification 0); path_table()
# converts them, and parts merged by merge_stats() share their unit.  The
# kept outputs are in the units of y.
#
# With `sums` (only the squared losses summed over the response columns are
# wanted: the mean squared error and GCV) and more response columns than
# directions, the path runs on the responses' coordinates in the row space of
# g instead (response_space()); the absolute losses are then NA and there are
# no per-column losses.  With `columns` FALSE (no criterion per response
# column) the per-column losses are NA, not computed.

#' @export
#' @noRd
engine_path.rlsc_primal <- function(eng, data, lambda, classify = FALSE, keep = FALSE,
                                    sums = FALSE, columns = TRUE) {
  space <- if (sums && !keep && !classify) response_space(eng$g)
  out <- map_rows(data, primal_block_path, merge_path_parts, eng = eng, lambda = lambda,
                  classify = classify, keep = keep, unit = data$unit, space = space,
                  columns = columns, counts = data$counts, what = "evaluating")
  finish_path(out, eng, lambda)
}

# One block's path: its rows projected, checked against the counts of the
# first pass (a chunk whose data changed between the passes is an error).
primal_block_path <- function(rows, i, eng, lambda, classify, keep, unit, space, columns, counts) {
  check_unchanged(rows, i, counts)
  row_path(primal_rows(eng, rows), eng, lambda, classify, keep, unit, space, columns)
}

# Rows of a primal engine as a set for row_path(): in the direct form, or as
# rows held out of the engine's fit (K-fold), with no leverage (1 - h = 1),
# which need only their products with g filtered at each of `lambda`
# (heldout_products()).  Their residuals at lambda = Inf, (y - yshift) -
# ybar, are formed in C from `yorigin` (no n x T copy of y); unpenalized
# columns subtract x beta0 here.  Held-out rows come as x's rows `take`
# (fold_rows()), read by number; `project`: project_rows(), or the
# coordinates kept of the same rows (heldout_basis()).
primal_rows <- function(eng, rows, heldout = FALSE, lambda = NULL, project = project_rows) {
  take <- rows$take
  n <- if (is.null(take)) nrow(rows$x) else length(take)
  q <- if (heldout) rep(1, n) else {
    1 - eng$intercept * rows$w / eng$sumw - free_leverage(rows$x, rows$w, eng)
  }
  products <- if (heldout) heldout_products(eng, rows$x, lambda, take)
  list(basis = if (is.null(products)) project(rows$x, eng, take = take) else matrix(0, n, 0L),
       products = products, q = q,
       r0 = if (!is.null(eng$beta0)) offset_residuals(rows$x, rows$y, eng, take),
       yorigin = rbind(eng$yshift, eng$ybar), y = rows$y, w = rows$w,
       omega = if (heldout) numeric(n) else rows$w, complement = FALSE)
}

# The held-out rows' B G (B their coordinates, G g filtered at each lambda),
# n x T x L, formed as x (V G) as predict() evaluates new rows, or NULL where
# (x V) G, the path's own products, takes fewer operations: x (V G) costs
# d r L T + n d L T, (x V) G n d r + n r L T, so with every direction kept
# (r = d) it is the cheaper when the held-out rows outnumber the lambdas
# times the columns (at 5000 x 500, 5-fold over 100 lambdas, 0.4e9
# operations instead of 1.5e9; with r < d, when L T < d r / (d - r)); and
# only while the products take at most budgets$products numbers.
heldout_products <- function(eng, x, lambda, take = NULL) {
  n <- as.numeric(if (is.null(take)) nrow(x) else length(take))
  d <- as.numeric(ncol(x))
  r <- length(eng$values)
  nt <- ncol(eng$g)
  nl <- length(lambda)
  lt <- as.numeric(nl) * nt
  if (!nl || n * lt > budgets$products || d * r * lt + n * d * lt >= n * d * r + n * r * lt) return(NULL)
  out <- project_rows(x, eng, primal_slope_path(eng, lambda), take)
  dim(out) <- c(n, nt, nl)
  out
}

# The dual engine's own rows, in their two forms; the rows' response comes
# from the data.
#' @export
#' @noRd
engine_path.rlsc_dual <- function(eng, data, lambda, classify = FALSE, keep = FALSE,
                                  sums = FALSE, columns = TRUE) {
  space <- if (sums && !keep && !classify) response_space(eng$g)
  y <- all_rows(data)$y
  n <- length(eng$w)
  out <- NULL
  for (direct in c(TRUE, FALSE)) {
    take <- eng$direct == direct
    count <- sum(take)
    if (!count) next
    # every row in one form (the usual case): no n-vector of indices
    idx <- if (count == n) NULL else which(take)
    set <- list(basis = eng$basis, q = eng$q, r0 = eng$r0, y = y, w = eng$w, omega = eng$w,
                rows = idx, complement = !direct)
    part <- row_path(set, eng, lambda, classify, keep, data$unit, space, columns)
    if (keep) part$index <- list(idx %||% seq_len(n))
    out <- if (is.null(out)) part else merge_path_parts(out, part)
  }
  finish_path(out, eng, lambda)
}

# The path of one set of rows: list(basis, q, r0 (or NULL and yorigin: r0 =
# (y - yorigin[1, ]) - yorigin[2, ]), y, w, omega, rows (indices into the
# set's rows, NULL: all), complement), through src/path.c.  `values_only`: the
# rows' LOO values alone (n x T x L, in a list) with their responses,
# weights, npos and unit, without losses (held-out rows whose criteria are
# computed from their values, heldout_paths()).
row_path <- function(set, eng, lambda, classify, keep, unit, space = NULL, columns = TRUE,
                     values_only = FALSE) {
  # (c_loo_path() divides g by `unit` itself: no copy of g, r x T)
  g <- if (set$complement) eng$g / sqrt(eng$values) else eng$g
  rows <- set$rows %||% seq_len(nrow(set$basis))
  if (!is.null(set$products)) {   # held-out rows' products formed: no basis
    values <- numeric(0)
    g <- g[0L, , drop = FALSE]
  } else values <- eng$values
  path <- list(lambda = lambda, complement = set$complement, classify = classify,
               keep = keep || values_only, unit = unit, columns = columns && !values_only,
               values = values_only)
  rows_of <- function(r0, y, perp = NULL, yorigin = NULL, products = NULL) {
    list(basis = set$basis, q = set$q, r0 = r0, y = y, w = set$w, omega = set$omega, rows = rows,
         perp = perp, yorigin = yorigin, products = products)
  }
  if (is.null(space)) {
    part <- c_loo_path(rows_of(set$r0, set$y, yorigin = set$yorigin, products = set$products),
                       list(values = values, g = g), path)
  } else {   # the responses' coordinates, already in units
    r0 <- set$r0 %||% ((set$y - rep_each(set$yorigin[1L, ], nrow(set$y))) -
                         rep_each(set$yorigin[2L, ], nrow(set$y)))
    inside <- space_rows(space, r0 / unit)
    path$unit <- 1
    part <- c_loo_path(rows_of(inside$r0, inside$r0, inside$perp),
                       list(values = eng$values, g = g %*% space$basis / unit), path)
  }
  nt <- ncol(set$y)
  npos <- if (is.null(set$rows)) sum(set$w > 0) else sum(set$w[rows] > 0)
  if (values_only) {
    return(list(loo = list(if (unit == 1) part$loo else part$loo * unit),
                y = list(set$y[rows, , drop = FALSE]), weights = list(set$w[rows]), npos = npos,
                unit = unit))
  }
  if (keep) {
    # (in the units of y; a unit of 1, as for classes, is no copy)
    back <- function(v) if (unit == 1) v else v * unit
    part[c("omh", "fitted", "loo")] <- list(list(part$omh), list(back(part$fitted)), list(back(part$loo)))
    part$y <- list(set$y[rows, , drop = FALSE])
    part$weights <- list(set$w[rows])
  }
  part$npos <- npos
  part$unit <- unit
  part$power <- loss_powers(nt)
  part
}

kept_fields <- c("omh", "fitted", "loo", "y", "weights", "index")

# Two parts of a path merged: the losses by merge_stats(), the kept outputs
# listed in order (finish_path() binds them).
merge_path_parts <- function(a, b) {
  out <- b
  # (held-out values alone, heldout_paths(), carry no losses)
  if (!is.null(b[["w"]])) {
    out[c("w", "mean", "m2")] <- merge_stats(a, b)
    out$n_na <- a$n_na + b$n_na
  }
  out$npos <- a$npos + b$npos
  for (k in kept_fields) out[[k]] <- c(a[[k]], b[[k]])
  out
}

# The merged path with its kept outputs bound into n x L, n x T x L, n x T
# and n arrays (in the rows' order), and df.
finish_path <- function(out, eng, lambda) {
  if (!is.null(out$loo)) {
    order <- if (!is.null(out$index)) order(unlist(out$index))
    pick <- function(m) if (is.null(order)) m else if (is.matrix(m)) m[order, , drop = FALSE] else m[order]
    if (!is.null(out$omh)) out$omh <- pick(do.call(rbind, out$omh))
    out$y <- pick(do.call(rbind, out$y))
    out$weights <- pick(unlist(out$weights, use.names = FALSE))
    for (k in intersect(c("fitted", "loo"), names(out))) {
      out[[k]] <- bind_rows3(out[[k]])
      if (!is.null(order)) out[[k]] <- out[[k]][order, , , drop = FALSE]
    }
    out$index <- NULL
  }
  out$df <- model_df(eng, lambda)
  out$intercept <- eng$intercept
  out
}

# n1 x T x L, n2 x T x L, ... stacked along the rows.
bind_rows3 <- function(parts) {
  if (length(parts) == 1L) return(parts[[1L]])
  dims <- dim(parts[[1L]])
  n <- vapply(parts, function(p) dim(p)[1L], 1L)
  out <- array(NA_real_, c(sum(n), dims[2L], dims[3L]))
  at <- 0L
  for (k in seq_along(parts)) {
    if (n[k]) out[at + seq_len(n[k]), , ] <- parts[[k]]
    at <- at + n[k]
  }
  out
}

# Pairwise merge of weighted means and sums of squared deviations (Chan, Golub
# and LeVeque): associative, so blocks and chunks of rows merge in any order.
merge_stats <- function(a, b) {
  w <- a$w + b$w
  delta <- b$mean - a$mean
  share <- ifelse(w > 0, b$w / w, 0)
  merged <- list(w = w, mean = a$mean + delta * share, m2 = a$m2 + b$m2 + delta^2 * a$w * share)
  # an empty side contributes nothing (and no Inf * 0 when delta^2 overflows)
  for (k in names(merged)) {
    merged[[k]] <- ifelse(a$w > 0, ifelse(b$w > 0, merged[[k]], a[[k]]), b[[k]])
  }
  merged
}

# The response columns (T of them) seen through the row space of g (r x T,
# rank m <= r): for T > r the path's products cost n r L m instead of n r L T.
# Every row's error e_i(lambda) = rho_i (r0_i + b_i(lambda) g) splits into
# its coordinates in an orthonormal basis V of that space, rho_i (r0_i V +
# b_i(lambda) g V), and the rest, rho_i r0_i (I - V V'), which no lambda
# changes: its squared norm is `perp` (space_rows()).  The columns are scaled
# by sqrt(m / T), so that the path's means over m columns are means over T.
# NULL unless T > r.
response_space <- function(g) {
  if (!nrow(g) || ncol(g) <= nrow(g)) return(NULL)
  sv <- svd(g, nu = 0)
  m <- sum(sv$d > max(sv$d, 0) * max(dim(g)) * .Machine$double.eps)
  if (m == 0) return(NULL)
  v <- sv$v[, seq_len(m), drop = FALSE]
  scale <- sqrt(m / ncol(g))
  list(v = v, basis = v * scale, scale = scale)
}

space_rows <- function(space, r0) {
  inside <- r0 %*% space$v
  list(r0 = inside * space$scale,
       perp = rowSums((r0 - inside %*% t(space$v))^2) * space$scale^2)
}

# The powers of the unit of y in the loss columns of src/path.c: squared
# errors 2, absolute 1, misclassification 0, squared residuals 2, and the
# squared error of each response column 2.
loss_powers <- function(nt) c(2, 1, 0, 2, rep(2, nt))

# A power of two near max |y| (`top`): dividing by it is exact.
loss_unit <- function(top) {
  if (!length(top) || !is.finite(top) || top == 0) return(1)
  2^floor(log2(top))
}

# Values in units of `unit`^power back in the units of y, without forming
# unit^2 (which overflows before the value does).
from_unit <- function(v, unit, power) {
  for (k in seq_len(power)) v <- v * unit
  v
}

# The same for the columns of a matrix, column j in units of unit^power[j].
from_unit_columns <- function(m, unit, power) {
  power <- rep_len(power, ncol(m))
  for (p in unique(power)) {
    at <- power == p
    m[, at] <- from_unit(m[, at], unit, p)
  }
  m
}

# Fitted values, LOO values (n x T) and 1 - h (n) at one lambda, with the
# rows' response and weights, read from the fit's data (or its snapshot).
path_outputs <- function(eng, data, lambda) {
  path <- engine_path(eng, data, lambda, keep = TRUE, columns = FALSE)
  n <- dim(path$loo)[1L]
  # (1 - h of a banded fit differs by response column: n x T x L)
  omh <- if (length(dim(path$omh)) == 3L) matrix(path$omh[, , 1L], n) else path$omh[, 1L]
  list(fitted = matrix(path$fitted, n), loo = matrix(path$loo, n), omh = omh,
       n_na = path$n_na, y = path$y, weights = path$weights)
}
