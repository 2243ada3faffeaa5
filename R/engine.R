# The engine: the one factorization behind a fit, and what the methods of a
# fit ask of it (DESIGN.md, section 6).  Every engine has these fields,
# whatever its form:
#   form       "primal" (eigendecomposition of the d x d centered weighted Gram)
#              or "dual" (of the n x n weighted double-centered kernel)
#   values     the r eigenvalues kept, decreasing and positive
#   dropped    the largest eigenvalue dropped above the noise floor (0 if none)
#   basis      n x r, the rows in the eigenbasis: B for rows of the direct form,
#              U for rows of the complement form (src/path.c)
#   direct     n logicals: the rows evaluated in the direct form (every primal
#              row; dual rows of zero or negligible weight, projected like new
#              data); the other rows use the complement form
#   q, r0      1 - h_i and y_i - f_i (n x T; times sqrt(w_i) for complement
#              rows) at the end of the filter the row starts from: lambda = Inf
#              for direct rows, lambda = 0 for complement rows
#   g          r x T, B'(w o (y - ybar)) in the direct basis B
#   ybar, w, intercept
#   center     column means subtracted before projecting (primal) or before the
#              linear and RBF kernels (dual); NULL when nothing is subtracted
#   v          d x r: B = (x - center) v (primal; NULL in the dual)
#   beta0,     with unpenalized columns (penalty_factor 0; primal only): the
#   free_map   slopes that do not depend on lambda (d x T) and the map whose
#              squared row norms give those columns' leverage (d x p0); NULL
#              otherwise (primal.R, moments_engine())
#   kernel     the kernel with its parameters (dual; NULL in the primal)
#   x          the training rows of positive weight the kernel needs for new
#              rows (dual, unless the kernel is precomputed; else NULL)
#   kbar       weighted mean kernel row of those rows (dual; else NULL)
#   rows       the indices of the rows of positive weight (dual; else NULL)
#   source     for an engine fitted from chunks (chunk_fit.R), the chunk source
#              and what reading it needs; its rows are not held, so `basis`,
#              `direct`, `q`, `r0` and `w` are NULL and its path streams the
#              chunks again.  NULL otherwise.
#   noise      the absolute error that rounding of the data or the kernel can
#              put into each kept eigenvalue beyond dsyevr's own eps * Lambda_1
#              (one value, or one per kept direction): the noise floor below
#              which directions are dropped (kept_directions()), and what
#              warn_unreliable() compares lambda with
# Methods: engine_path() (the LOO path over a grid of lambda), engine_coef()
# (coefficients at one lambda) and engine_decision() (decision values of new
# rows at one lambda).  The kernel fits' snapshot (class "rlsc_snapshot",
# snapshot.R) answers the same methods at the lambdas of its grid.

engine_fields <- c("form", "values", "dropped", "basis", "direct", "q", "r0", "g", "ybar",
                   "w", "intercept", "center", "v", "beta0", "free_map", "kernel", "x", "kbar",
                   "rows", "noise", "source")

new_engine <- function(form, values, dropped, basis, direct, q, r0, g, ybar, w, intercept,
                       center = NULL, v = NULL, beta0 = NULL, free_map = NULL, kernel = NULL,
                       x = NULL, kbar = NULL, rows = NULL, noise = 0, source = NULL) {
  eng <- list(form = form, values = values, dropped = dropped, basis = basis, direct = direct,
              q = q, r0 = r0, g = g, ybar = ybar, w = w, intercept = intercept,
              center = center, v = v, beta0 = beta0, free_map = free_map, kernel = kernel,
              x = x, kbar = kbar, rows = rows, noise = noise, source = source)
  class <- c(if (!is.null(source)) "rlsc_chunked", paste0("rlsc_", form), "rlsc_engine")
  validate_engine(structure(eng, class = class))
}

# Cheap checks of types and dimensions (never of values): a malformed engine
# is an R error here, never a crash in C.
validate_engine <- function(eng) {
  bad <- function(...) stop_arg("malformed rlsc engine: ", ...)
  if (!is.list(eng) || !identical(names(eng), engine_fields)) {
    bad("its fields must be ", paste(engine_fields, collapse = ", "))
  }
  if (!(is.character(eng$form) && length(eng$form) == 1L && eng$form %in% c("primal", "dual"))) {
    bad("`form` must be \"primal\" or \"dual\"")
  }
  is_num <- function(v, len = NULL) is.double(v) && is.null(dim(v)) && (is.null(len) || length(v) == len)
  is_mat <- function(m, nr, nc) {
    is.double(m) && is.matrix(m) && (is.na(nr) || nrow(m) == nr) && (is.na(nc) || ncol(m) == nc)
  }
  r <- length(eng$values)
  n <- length(eng$w)
  nt <- length(eng$ybar)
  chunked <- !is.null(eng$source)
  if (!is_num(eng$values) || !is_num(eng$dropped, 1L) || !(chunked || is_num(eng$w)) ||
      !is_num(eng$ybar) || !nt || !is_num(eng$noise) || !length(eng$noise) %in% c(1L, r)) {
    bad("`values`, `dropped`, `w`, `ybar` and `noise` (1 or r values) must be double vectors")
  }
  if (!is_mat(eng$g, r, nt)) bad("`g` must be r x T (r = ", r, ", T = ", nt, ")")
  if (chunked) {
    if (!is.null(eng$basis) || !is.null(eng$w) || !is.list(eng$source) ||
        !inherits(eng$source$src, "rlsc_chunks")) {
      bad("an engine fitted from chunks holds no rows and needs its chunk `source`")
    }
  } else if (!is_mat(eng$basis, n, r) || !is_mat(eng$r0, n, nt) || !is_num(eng$q, n) ||
             !(is.logical(eng$direct) && length(eng$direct) == n)) {
    bad("`basis` must be n x r, `r0` n x T, `q` and `direct` of length n ",
        "(n = ", n, ", r = ", r, ", T = ", nt, ")")
  }
  if (!(is.logical(eng$intercept) && length(eng$intercept) == 1L && !is.na(eng$intercept))) {
    bad("`intercept` must be TRUE or FALSE")
  }
  if (!is.null(eng$center) && !is_num(eng$center)) bad("`center` must be a double vector")
  if (eng$form == "primal") {
    d <- nrow(eng$v)
    if (!is_mat(eng$v, NA, r) || !is_num(eng$center, d) || !all(eng$direct %||% TRUE) ||
        !(is.null(eng$beta0) || is_mat(eng$beta0, d, nt)) ||
        !(is.null(eng$free_map) || is_mat(eng$free_map, d, NA))) {
      bad("a primal engine needs `v` (d x r), `center` (d) and every row direct")
    }
  } else {
    if (!inherits(eng$kernel, "rlsc_kernel") || !is.integer(eng$rows) ||
        !is_num(eng$kbar, length(eng$rows)) || any(eng$rows < 1L | eng$rows > n)) {
      bad("a dual engine needs `kernel`, `rows` (indices of the rows of positive weight) ",
          "and `kbar` (one per row)")
    }
  }
  eng
}

engine_path <- function(eng, y, lambda, classify = FALSE, keep = FALSE, sums = FALSE) {
  UseMethod("engine_path")
}
engine_coef <- function(eng, lambda) UseMethod("engine_coef")
engine_decision <- function(eng, newx, lambda) UseMethod("engine_decision")

# The exact LOO path of an engine over `lambda`: the per-lambda criteria as
# weighted means with their sums of squared deviations (merge_stats()), the
# number of undefined LOO values and df; with keep = TRUE also 1 - h (n x L)
# and the fitted and LOO values (n x T x L).  The rows of each form go through
# src/path.c in one call.
#
# With `sums` (only the squared losses summed over the response columns are
# wanted: the mean squared error and GCV) and more response columns than
# directions, the path runs on the responses' coordinates in the row space of
# g instead (response_space()); the absolute losses are then NA and there are
# no per-column losses.  Methods may ignore `sums`.
#
# y, g and r0 go to C divided by `unit`, the power of two nearest below
# max |y| (exact), so that the squared losses and the squared deviations of
# the squared losses (about y^4) neither overflow nor underflow: y of 1e80 or
# 1e-80 has standard errors, not Inf or 0.  The criteria come back in units of
# `unit` raised to `power` (one per criterion column: squared losses 2,
# absolute 1, misclassification 0); path_table() converts them, and paths
# merged by merge_stats() must share their unit.  The kept outputs are in the
# units of y.
engine_path.rlsc_engine <- function(eng, y, lambda, classify = FALSE, keep = FALSE,
                                    sums = FALSE) {
  unit <- loss_unit(y)
  space <- if (sums && !keep && !classify) response_space(eng$g, eng$r0 / unit)
  out <- NULL
  n <- nrow(eng$basis)
  n_direct <- sum(eng$direct)
  for (direct in c(TRUE, FALSE)) {
    count <- if (direct) n_direct else n - n_direct
    if (!count) next
    # every row in one form (the rule in primal fits): no n-vectors of indices
    rows <- if (count == n) seq_len(n) else which(eng$direct == direct)
    g <- (if (direct) eng$g else eng$g / sqrt(eng$values)) / unit
    part <- if (is.null(space)) {
      threaded(.Call(C_rlsc_loo_path, eng$basis, eng$values, g, eng$q, eng$r0, y, eng$w, eng$w,
                     rows, lambda, !direct, classify, keep, thread_count(), NULL, unit))
    } else {   # the responses' coordinates, already in units
      threaded(.Call(C_rlsc_loo_path, eng$basis, eng$values, g %*% space$basis, eng$q, space$r0,
                     space$r0, eng$w, eng$w, rows, lambda, !direct, classify, keep, thread_count(),
                     space$perp, 1))
    }
    part$npos <- if (length(rows) == n) sum(eng$w > 0) else sum(eng$w[rows] > 0)
    out <- merge_path(out, part, rows, n)
  }
  out <- in_units(out, unit, ncol(y))
  out$df <- model_df(eng, lambda)
  out
}

# The response columns (T of them) seen through the row space of g (r x T,
# rank m <= r): for T > r the path's products cost n r L m instead of n r L T.
# Every row's error e_i(lambda) = rho_i (r0_i + b_i(lambda) g) splits into
# its coordinates in an orthonormal basis V of that space, rho_i (r0_i V +
# b_i(lambda) g V), and the rest, rho_i r0_i (I - V V'), which no lambda
# changes: its squared norm is `perp`.  The columns are scaled by sqrt(m / T),
# so that the path's means over m columns are means over T.  NULL unless
# T > r.
response_space <- function(g, r0) {
  if (!nrow(g) || ncol(g) <= nrow(g)) return(NULL)
  sv <- svd(g, nu = 0)
  m <- sum(sv$d > max(sv$d, 0) * max(dim(g)) * .Machine$double.eps)
  if (m == 0) return(NULL)
  v <- sv$v[, seq_len(m), drop = FALSE]
  inside <- r0 %*% v
  scale <- sqrt(m / ncol(g))
  list(basis = v * scale, r0 = inside * scale, perp = rowSums((r0 - inside %*% t(v))^2) * scale^2)
}

# The powers of the unit of y in the loss columns of src/path.c: squared
# errors 2, absolute 1, misclassification 0, squared residuals 2, and the
# squared error of each response column 2.
loss_powers <- function(nt) c(2, 1, 0, 2, rep(2, nt))

# A power of two near max |y|: dividing by it is exact.
loss_unit <- function(y) {
  if (!length(y)) return(1)
  top <- max_abs(y)
  if (!is.finite(top) || top == 0) return(1)
  2^floor(log2(top))
}

# Values in units of `unit`^power back in the units of y, without forming
# unit^2 (which overflows before the value does).
from_unit <- function(v, unit, power) {
  for (k in seq_len(power)) v <- v * unit
  v
}

effective_df <- function(values, lambda) {
  vapply(lambda, function(l) sum(values / (values + l)), 1)
}

# Merge a part of the path (rows `rows` of n) into the path so far: the
# criteria by merge_stats(), the kept outputs by row.
merge_path <- function(acc, part, rows, n) {
  if (!is.null(part$loo)) {
    for (nm in c("omh", "fitted", "loo")) {
      full <- acc[[nm]]
      if (is.null(full)) {
        dims <- dim(part[[nm]])
        dims[1L] <- n
        full <- array(NA_real_, dims)
      }
      if (length(dim(full)) == 2L) full[rows, ] <- part[[nm]] else full[rows, , ] <- part[[nm]]
      part[[nm]] <- full
    }
  }
  if (is.null(acc)) return(part)
  part[c("w", "mean", "m2")] <- merge_stats(acc, part)
  part$n_na <- acc$n_na + part$n_na
  part$npos <- acc$npos + part$npos
  part
}

# Pairwise merge of weighted means and sums of squared deviations (Chan, Golub
# and LeVeque): associative, so groups and chunks of rows merge in any order.
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

# The leave-one-out table of an engine over `lambda` (criteria.R), with the
# checks every fit makes.
loo_table <- function(eng, resp, lambda, crit) {
  classify <- resp$type == "classification"
  run <- function(keep, lam, sums = FALSE) engine_path(eng, resp$y, lam, classify, keep, sums)
  path <- run(FALSE, lambda, crit$name %in% c("mse", "gcv") && !isTRUE(crit$per_response))
  if (needs_values(crit)) {
    path$value <- value_criterion(run, lambda, resp$y, eng$w %||% NULL, crit)
  }
  tab <- path_table(path, lambda, classify, crit)
  defined <- tab$n_na == 0
  if (!all(is.finite(tab$mse[defined]))) {
    stop_arg("the leave-one-out errors overflow: `y` (or `x`) is too large in magnitude; ",
             "rescale it")
  }
  tab
}

# Fitted values, LOO values and 1 - h at one lambda, n x T (n for omh), with
# the response and weights of those rows (an engine fitted from chunks reads
# them again; otherwise they are the fit's own `y` and `w`).
path_outputs <- function(eng, y, w, lambda) {
  path <- engine_path(eng, y, lambda, keep = TRUE)
  n <- dim(path$loo)[1L]
  list(fitted = matrix(path$fitted, n), loo = matrix(path$loo, n), omh = path$omh[, 1L],
       n_na = path$n_na, y = path$y %||% y, weights = path$weights %||% w)
}

# The eigen-directions an engine keeps, one rule for every form: above the
# numerical rank threshold, relative to the largest eigenvalue (m, the order
# of the matrix, times eps), above `floor` (one value, or one per direction),
# the eigenvalue that rounding of the centering alone can give a column that
# is constant, and above `noise`, the error that rounding of the data or the
# kernel can put into an eigenvalue (large when centering cancelled digits).
# Dropping the others is the pseudo-inverse at lambda = 0 and changes little
# for lambda > 0 (warn_unreliable() says when it may matter).  Returns the kept
# directions and the largest eigenvalue dropped above `floor`: directions
# below `floor` are rounding of a constant, those below `noise` may be signal
# lost to cancellation.
kept_directions <- function(values, m, floor = 0, noise = 0) {
  keep <- values > pmax(max(values, 0) * (m * .Machine$double.eps), floor, noise)
  list(keep = keep, dropped = max(values[!keep & values > floor], 0))
}

# The noise floor of the linear dual: columns constant up to the rounding of
# their weighted mean would otherwise become directions of pure rounding
# noise, so sum(w) (m eps max|x|)^2 is no signal.
linear_floor <- function(x, w, m) {
  sum(w) * (m * .Machine$double.eps * max_abs(x))^2
}

max_abs <- function(x) .Call(C_rlsc_abs_max, if (is_sparse(x)) x@x else x)

# Centered cross-products below about xmin / eps have lost digits to underflow
# (or vanished): reject such `x` as check_overflow() rejects huge `x`, instead
# of fitting it as if it had no signal.
check_underflow <- function(values, x, w, intercept) {
  top <- max(values, 0)
  if (top >= .Machine$double.xmin / .Machine$double.eps) return(invisible())
  rows <- x[w > 0, , drop = FALSE]
  signal <- if (is_sparse(rows) || !intercept) {
    max_abs(rows) > 0
  } else {
    any(rows != rep(rows[1L, ], each = nrow(rows)))
  }
  if (top > 0 || signal) {
    stop_arg("`x` is too small in magnitude: its weighted cross-products underflow; ",
             "rescale `x` (or `weights`)")
  }
}

check_overflow <- function(gram, arg, w = NULL) {
  if (all_finite(gram)) return(invisible())
  if (!is.null(w) && max(w) > 1) {
    stop_arg("`", arg, "` and `weights` are too large together: the weighted cross-products ",
             "overflow; rescale `", arg, "` or divide `weights` by a constant (which changes ",
             "only the scale of `lambda`)")
  }
  stop_arg("`", arg, "` is too large in magnitude: its cross-products overflow; rescale it")
}

# The default grid spans 10 sum(Lambda) down to about 0.1 / sum(1 / Lambda)
# (default_lambda()): both must be finite numbers, or the spectrum is out of
# the range of doubles and the user is told which way.
check_spectrum_range <- function(values, what) {
  if (!length(values)) return(invisible())
  if (!is.finite(10 * sum(values))) {
    stop_arg("the default `lambda` grid overflows: the eigenvalues of ", what, " reach ",
             format(max(values), digits = 3), "; rescale `x` or divide `weights` by a ",
             "constant (which changes only the scale of `lambda`), or give `lambda`")
  }
  if (!is.finite(sum(1 / values))) {
    stop_arg("the default `lambda` grid underflows: the eigenvalues of ", what, " go down to ",
             format(min(values), digits = 3), "; rescale `x` or multiply `weights` by a ",
             "constant (which changes only the scale of `lambda`), or give `lambda`")
  }
}

# The eigenvalues carry absolute errors of about eps * Lambda_1, so the LOO
# values at lambda lose about log10(Lambda_1 / (Lambda_r + lambda)) digits
# (Lambda_r the smallest direction kept); a direction dropped as numerically
# zero changes them by up to about its eigenvalue / lambda (at lambda = 0 it
# makes the fit the minimum-norm one, which differs from least squares when
# the columns are only nearly collinear); and rounding of the data or the
# kernel before the decomposition (`noise`, the error it can put into each
# eigenvalue, large when the centering cancelled most digits) changes them by
# about noise / (Lambda_k + lambda).  Beyond a condition number of 1e9, a
# dropped share of 1e-6 or a noise share of 1e-6, fewer than about six correct
# digits may be left: say so, and why.
# New rows (predict()) can have far larger components than the training rows
# along the directions dropped as numerically zero: for them a dropped share
# of 1e-9 already matters (`new_rows = TRUE`).
# Which lambdas fall under those limits, and why (one logical each).
reliability <- function(eng, lambda, new_rows = FALSE) {
  values <- eng$values
  conditioned <- cancelled <- rep(FALSE, length(lambda))
  if (length(values)) {
    conditioned <- max(values) / (min(values) + lambda) > 1e9
    noise <- eng$noise %||% 0
    cancelled <- vapply(lambda, function(l) max(noise / (values + l)), 1) > 1e-6
  }
  near_dropped <- eng$dropped > (if (new_rows) 1e-9 else 1e-6) * lambda   # lambda = 0: any
  # directions dropped below the rounding error of a centering that cancelled
  # digits (a noise far above the eps * Lambda_1 of any decomposition)
  noise_max <- max(eng$noise %||% 0, 0)
  lost <- eng$dropped <= noise_max &&
    noise_max > 1e3 * .Machine$double.eps * max(values, eng$dropped)
  cancelled <- cancelled | (near_dropped & lost)
  list(conditioned = conditioned, near_dropped = near_dropped, cancelled = cancelled, lost = lost,
       bad = conditioned | near_dropped | cancelled)
}

unreliable <- function(eng, lambda) reliability(eng, lambda)$bad

warn_unreliable <- function(eng, lambda, new_rows = FALSE) {
  values <- eng$values
  r <- reliability(eng, lambda, new_rows)
  conditioned <- r$conditioned
  near_dropped <- r$near_dropped
  cancelled <- r$cancelled
  lost <- r$lost
  bad <- r$bad
  if (!any(bad)) return(invisible())
  why <- c(
    if (any(conditioned)) {
      sprintf("they are below 1e-9 of the largest eigenvalue (%s)", format(max(values), digits = 3))
    },
    if (!lost && any(near_dropped & lambda > 0)) {
      "they are near eigenvalues dropped as numerically zero"
    },
    if (!lost && any(near_dropped & lambda == 0)) {
      paste("at `lambda` = 0 the directions dropped as numerically zero make the fit the",
            "minimum-norm one, not least squares on columns that are only nearly collinear")
    },
    if (any(cancelled)) {
      paste("they are within the rounding error of the centered cross-products or kernel,",
            "whose entries are far larger than their centered part (a large common offset",
            "of the columns of `x`, or a kernel nearly constant over the data)")
    })
  linear <- identical(eng$form, "primal") || identical(eng$kernel$name, "linear")
  advice <- c("use larger values of `lambda`",
              if (any(cancelled)) "center `x` (or change the kernel parameters)",
              if (linear && any(conditioned | (near_dropped & !lost))) {
                "put the columns of `x` on comparable scales (`standardize = TRUE`)"
              })
  advice <- paste(advice, collapse = ", or ")
  warning(sprintf(paste0(
    "leave-one-out values may be inaccurate (relative error above 1e-6) at %d value(s) ",
    "of `lambda` up to %s: %s; %s"),
    sum(bad), format(max(lambda[bad]), digits = 3), paste(why, collapse = "; "), advice),
    call. = FALSE)
}


warn_undefined <- function(n_na) {
  if (!any(n_na > 0)) return(invisible())
  warning(sprintf(paste0(
    "leave-one-out values are undefined (NA) for up to %d point(s) at %d value(s) of ",
    "`lambda`: their leverage is 1, the fit interpolates them; the criterion is NA there"),
    max(n_na), sum(n_na > 0)), call. = FALSE)
}

# Spectral filter of the ridge solution: 1 / (Lambda + lambda), with
# directions where that is undefined dropped (the pseudo-inverse).
spectral_filter <- function(values, lambda) {
  den <- values + lambda
  ifelse(den > 0, 1 / den, 0)
}

# What engine_decision() needs of an engine at one lambda: for a linear model
# its coefficients alone (class "rlsc_linear"), for a kernel model the engine.
engine_at <- function(eng, lambda) {
  if (!is.null(eng$v) || identical(eng$kernel$name, "linear")) {
    cf <- at_lambdas(lambda, ncol(eng$g), function(l) engine_coef(eng, l))
    cf[c("values", "dropped", "noise")] <- list(eng$values, eng$dropped, eng$noise)
    return(structure(cf, class = "rlsc_linear"))
  }
  eng
}

engine_decision.rlsc_linear <- function(eng, newx, lambda) linear_decision(newx, eng)

# Decision values of a linear model from engine_coef(): intercept + x beta,
# evaluated as base + (x - center) beta for dense x, which keeps the digits a
# large common offset of the columns would cancel.
linear_decision <- function(x, cf) {
  if (is.null(cf$center) || is_sparse(x)) {
    return(as.matrix(x %*% cf$coef) + rep(cf$intercept, each = nrow(x)))
  }
  (x - rep(cf$center, each = nrow(x))) %*% cf$coef + rep(cf$base, each = nrow(x))
}
