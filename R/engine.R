# The engine: the one factorization behind a fit, and what the methods of a
# fit ask of it (DESIGN.md, "The data and the engine, as contracts").  Five
# kinds of engine, each a class that answers the generics below:
#   rlsc_primal   the eigendecomposition of the d x d centered weighted Gram
#                 (primal.R; Nystrom and random features too, features.R);
#                 holds no rows
#   rlsc_dual     that of the n x n weighted double-centered kernel (dual.R);
#                 holds its rows
#   rlsc_snapshot a kernel fit's outputs and dual coefficients at the lambdas
#                 of its grid, kept instead of a dual engine (snapshot.R)
#   rlsc_banded   a per-response banded fit's: each response column's
#                 candidate's primal or dual engine (band_engine.R)
#   rlsc_linear   a linear model's coefficients at one lambda (engine_at()),
#                 which answers engine_decision() only, for predict()
# new_engine() builds the first two (class c("rlsc_<form>", "rlsc_engine")),
# with these fields:
#   form       "primal" or "dual"
#   values     the r eigenvalues kept, decreasing and positive
#   dropped    the largest eigenvalue dropped above the noise floor (0 if none)
#   noise      the absolute error that rounding of the data or the kernel can
#              put into each kept eigenvalue beyond dsyevr's own eps * Lambda_1
#              (one value, or one per kept direction): the floor below which
#              directions are dropped (kept_directions()), and what
#              warn_unreliable() compares lambda with
#   g          r x T, B'(w o (y - ybar)) in the direct basis B
#   yshift, ybar  the response's shift and weighted mean of y - yshift
#   intercept, sumw
#   shift, center  the rows' origin: rows are moved to ((x - shift) - center)
#              (R/moments.R says why in two steps); NULL where nothing is
#              subtracted (kernels other than linear and RBF)
# primal only (its rows stay in their source; path.R projects them):
#   v          d x r: B = ((x - shift) - center) v, column scales folded in
#   beta0,     with unpenalized columns (penalty_factor 0): the slopes that do
#   free_map   not depend on lambda (d x T) and the map whose squared row
#              norms give those columns' leverage (d x p0); NULL otherwise
#   light      dual: sqrt(the largest weight / the smallest of a light row),
#              light_rows(); 0 (or NULL) without light rows
#   graded     TRUE where the eigenpairs came from the SVD of the Cholesky
#              factor times the column multipliers (graded_eigen(): banded
#              ridge with weights over many decades, or columns on very
#              different scales, lost_to_scales()); NULL or FALSE otherwise
#   weak       the columns of a near-dependence (weak_columns(): those that
#              carry the directions whose eigenvalues are below 1e-9 of the
#              largest, dropped or kept), which warn_unreliable() names; NULL
#              without such directions
# dual only (it holds its rows):
#   basis      n x r, the rows in the eigenbasis: B for rows of the direct
#              form, U for rows of the complement form (src/path.c)
#   direct     n logicals: the rows evaluated in the direct form (rows of zero
#              or negligible weight, projected like new data)
#   q, r0      1 - h_i and y_i - f_i (n x T; times sqrt(w_i) for complement
#              rows) at the end of the filter the row starts from: lambda = Inf
#              for direct rows, lambda = 0 for complement rows
#   w          the rows' weights
#   kernel     the kernel with its parameters
#   x          the training rows of positive weight the kernel needs for new
#              rows (NULL for a precomputed kernel)
#   kbar       weighted mean kernel row of those rows
#   rows       the indices of the rows of positive weight
#   scale      column scales applied before the kernel (NULL: none)
# Generics (a new kind of engine is new methods of these, no edit elsewhere;
# each method registered in NAMESPACE, so that it dispatches from any caller):
#   the path and the solutions: engine_path() (path.R: the LOO path over a
#     grid of lambda), engine_coef() (coefficients at one lambda, in the
#     units of x), coef_columns() (at every lambda of a grid, for
#     engine_coef_path()), column_coef_path() (of some response columns),
#     coef_blocks() (coef.R: several single lambdas at once),
#     engine_outputs() (fitted.R: fitted and LOO values at one lambda),
#     pair_set() (auc.R: the rows of the leave-pair-out AUC)
#   new rows: engine_decision() (decision values at one lambda),
#     engine_basis() (coordinates in the eigenbasis), engine_cross() (the
#     kernel and training rows they are evaluated with), linear_engine()
#     and engines_at() (a linear model's coefficients at each lambda)
#   what the fit keeps and checks: validate_engine(), engine_ncol(),
#     holds_rows(), kept_engine() (a dual engine's snapshot),
#     without_rows() / with_rows() (band_engine.R), per_column_lambdas()
#     (at_lambdas())
#   warnings and the grid: warn_unreliable() (reliability.R),
#     rows_response() (the rows of zero weight of a dual engine),
#     later_probes() and fit_boundary_found() (fit_model.R)

engine_fields <- c("form", "values", "dropped", "noise", "g", "yshift", "ybar", "intercept",
                   "sumw", "shift", "center", "v", "beta0", "free_map", "basis", "direct", "q",
                   "r0", "w", "kernel", "x", "kbar", "rows", "scale", "graded", "light", "weak")

new_engine <- function(form, ...) {
  given <- list(form = form, ...)
  if (!all(names(given) %in% engine_fields)) {
    stop("unknown engine fields: ", paste(setdiff(names(given), engine_fields), collapse = ", "))
  }
  eng <- given[engine_fields]   # (absent fields: NULL, named below)
  names(eng) <- engine_fields
  structure(eng, class = c(paste0("rlsc_", form), "rlsc_engine"))
}

# Cheap checks of types and dimensions (never of values): a malformed engine
# is an R error here, never a crash in C.  The methods call it on entry
# (validate_rlsc()), not the constructors: a fit builds an engine per fold
# and setting, and the test matrix checks every fit it makes.  Returns the
# engine; each kind checks its own fields (validate_engine.rlsc_banded(),
# validate_engine.rlsc_snapshot()).
validate_engine <- function(object) UseMethod("validate_engine")

# The fields every engine of new_engine() has; the primal and the dual
# methods check their own after these.
#' @export
#' @noRd
validate_engine.rlsc_engine <- function(object) {
  # the fields as a plain list: `$` on a classed list looks for methods
  # first (a third of this check's time)
  eng <- unclass(object)
  if (!is.list(eng) || !identical(names(eng), engine_fields)) {
    bad_engine("its fields must be ", paste(engine_fields, collapse = ", "))
  }
  if (!(is.character(eng$form) && length(eng$form) == 1L && eng$form %in% c("primal", "dual"))) {
    bad_engine("`form` must be \"primal\" or \"dual\"")
  }
  r <- length(eng$values)
  nt <- length(eng$ybar)
  if (!is_num(eng$values) || !is_num(eng$dropped, 1L) || !is_num(eng$ybar) || !nt ||
      !is_num(eng$yshift, nt) || !is_num(eng$sumw, 1L) || !is_num(eng$noise) ||
      !length(eng$noise) %in% c(1L, r)) {
    bad_engine("`values`, `dropped`, `ybar`, `yshift`, `sumw` and `noise` (1 or r values) must be ",
               "double vectors")
  }
  if (!is_mat(eng$g, r, nt)) bad_engine("`g` must be r x T (r = ", r, ", T = ", nt, ")")
  if (!(is.logical(eng$intercept) && length(eng$intercept) == 1L && !is.na(eng$intercept))) {
    bad_engine("`intercept` must be TRUE or FALSE")
  }
  d <- length(eng$center)
  if (!is.null(eng$center) && (!is_num(eng$center) || !is_num(eng$shift, d))) {
    bad_engine("`center` and `shift` must be double vectors of the same length")
  }
  object
}

#' @export
#' @noRd
validate_engine.rlsc_primal <- function(object) {
  NextMethod()
  eng <- unclass(object)
  d <- nrow(eng$v)
  nt <- length(eng$ybar)
  if (!is_mat(eng$v, NA, length(eng$values)) || !is_num(eng$center, d) ||
      !(is.null(eng$beta0) || is_mat(eng$beta0, d, nt)) ||
      !(is.null(eng$free_map) || is_mat(eng$free_map, d, NA))) {
    bad_engine("a primal engine needs `v` (d x r), `center` and `shift` (d)")
  }
  if (!is.null(eng$weak) && !(is.integer(eng$weak) && all(eng$weak >= 1L & eng$weak <= d))) {
    bad_engine("`weak` must index columns of `v`")
  }
  object
}

#' @export
#' @noRd
validate_engine.rlsc_dual <- function(object) {
  NextMethod()
  eng <- unclass(object)
  n <- length(eng$w)
  r <- length(eng$values)
  nt <- length(eng$ybar)
  if (!is_num(eng$w) || !is_mat(eng$basis, n, r) || !is_mat(eng$r0, n, nt) || !is_num(eng$q, n) ||
      !(is.logical(eng$direct) && length(eng$direct) == n)) {
    bad_engine("`basis` must be n x r, `r0` n x T, `q`, `w` and `direct` of length n ",
               "(n = ", n, ", r = ", r, ", T = ", nt, ")")
  }
  if (!inherits(eng$kernel, "rlsc_kernel") || !is.integer(eng$rows) ||
      !is_num(eng$kbar, length(eng$rows)) || any(eng$rows < 1L | eng$rows > n)) {
    bad_engine("a dual engine needs `kernel`, `rows` (indices of the rows of positive weight) ",
               "and `kbar` (one per row)")
  }
  if (!is.null(eng$scale) && !is_num(eng$scale)) bad_engine("`scale` must be a double vector")
  object
}

bad_engine <- function(...) stop_arg("malformed rlsc engine: ", ...)
is_num <- function(v, len = NULL) is.double(v) && is.null(dim(v)) && (is.null(len) || length(v) == len)
is_mat <- function(m, nr, nc) {
  is.double(m) && is.matrix(m) && (is.na(nr) || nrow(m) == nr) && (is.na(nc) || ncol(m) == nc)
}

# The number of response columns an engine answers for.
engine_ncol <- function(eng) UseMethod("engine_ncol")
#' @export
#' @noRd
engine_ncol.default <- function(eng) ncol(eng$g)

# The fields new rows are evaluated with (`kernel`, the training rows `x`,
# their origin): the engine's own, or those a snapshot keeps (`cross`).
engine_cross <- function(eng) UseMethod("engine_cross")
#' @export
#' @noRd
engine_cross.default <- function(eng) eng

# The engine of the response columns `cols` alone (the same factorization).
engine_columns <- function(eng, cols) {
  for (f in c("g", "r0", "beta0")) {
    if (!is.null(eng[[f]])) eng[[f]] <- eng[[f]][, cols, drop = FALSE]
  }
  for (f in c("ybar", "yshift")) eng[[f]] <- eng[[f]][cols]
  eng
}

engine_path <- function(eng, data, lambda, classify = FALSE, keep = FALSE, sums = FALSE,
                        columns = TRUE) {
  UseMethod("engine_path")
}
engine_coef <- function(eng, lambda) UseMethod("engine_coef")

# engine_coef_path()'s coefficients (p x T x L) of the response columns
# `cols`: those columns' engine alone (engine_columns()), or a banded
# engine's for all its columns (each column's own candidate), then `cols`.
column_coef_path <- function(eng, cols, lambda) UseMethod("column_coef_path")
#' @export
#' @noRd
column_coef_path.default <- function(eng, cols, lambda) {
  engine_coef_path(engine_columns(eng, cols), lambda)$coef
}
#' @export
#' @noRd
column_coef_path.rlsc_banded <- function(eng, cols, lambda) {
  engine_coef_path(eng, lambda)$coef[, cols, , drop = FALSE]
}

# engine_coef() at every lambda of a grid: `coef` p x T x L (p slopes, or a
# kernel's n dual coefficients), `intercept` T x L and, for a linear dual
# engine, what linear_decision() centers new rows with: `shift`, `center`
# and `base` (T x L).  A primal engine's in one product with V
# (primal_slope_path()); a dual engine's in one product with U (dual_coefficient_path())
# and, for a linear kernel, one with the moved x, formed once: lambda by
# lambda, a 500 x 5000 fit's 100 lambdas took 8 s, moving x each time.
engine_coef_path <- function(eng, lambda) {
  nt <- ncol(eng$g)
  nl <- length(lambda)
  cf <- coef_columns(eng, lambda)
  list(coef = array(cf$coef, c(length(cf$coef) / (nt * nl), nt, nl)),
       intercept = matrix(cf$intercept, nt, nl),
       base = if (!is.null(cf$base)) matrix(rep_len(cf$base, nt * nl), nt, nl),
       shift = cf$shift, center = cf$center)
}
# engine_coef_path()'s coefficients and intercepts, each lambda's response
# columns side by side: `coef` p x (T L), `intercept` T L (and, for a linear
# dual engine, `shift`, `center`, `base`).  Banded and snapshot engines
# lambda by lambda (the default).
coef_columns <- function(eng, lambda) UseMethod("coef_columns")
#' @export
#' @noRd
coef_columns.default <- function(eng, lambda) {
  parts <- lapply(lambda, function(l) engine_coef(eng, l))
  list(coef = unlist(lapply(parts, `[[`, "coef")), intercept = unlist(lapply(parts, `[[`, "intercept")))
}
#' @export
#' @noRd
coef_columns.rlsc_dual <- function(eng, lambda) {
  dual_coef_of(eng, matrix(dual_coefficient_path(eng, lambda), length(eng$rows)))
}
# (engine_coef.rlsc_primal(), in one product)
#' @export
#' @noRd
coef_columns.rlsc_primal <- function(eng, lambda) {
  beta <- primal_slope_path(eng, lambda)
  if (!is.null(eng$beta0)) beta <- beta + as.vector(eng$beta0)   # (d x T, the same at each lambda)
  list(coef = beta,
       intercept = rep(eng$yshift + eng$ybar, length(lambda)) - drop(crossprod(beta, eng$shift + eng$center)))
}

engine_decision <- function(eng, newx, lambda) UseMethod("engine_decision")
engine_basis <- function(eng, newx) UseMethod("engine_basis")

# sum_k Lambda_k / (Lambda_k + lambda) at each lambda (named as lambda), in
# C: in R its r x L temporaries took 60 us of every fit.
effective_df <- function(values, lambda) {
  df <- c_effective_df(as.double(values), as.double(lambda))
  if (!is.null(names(lambda))) names(df) <- names(lambda)
  df
}

# Spectral filter of the ridge solution: 1 / (Lambda + lambda), with
# directions where that is undefined dropped (the pseudo-inverse); for one
# lambda an r-vector, for one lambda per response column an r x T matrix.
spectral_filter <- function(values, lambda) {
  den <- values + rep_each(lambda, length(values))
  filt <- 1 / den
  filt[den <= 0] <- 0
  if (length(lambda) > 1L) dim(filt) <- c(length(values), length(lambda))
  filt
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
kept_directions <- function(values, m, floor = 0, noise = 0, graded = FALSE) {
  # eigenvalues from singular values (graded_eigen()) have errors of order
  # the square of the relative rule
  rel <- m * .Machine$double.eps
  keep <- values > pmax(max(values, 0) * if (graded) rel^2 else rel, floor, noise)
  list(keep = keep, dropped = max(values[!keep & values > floor], 0))
}

# The noise floor of the linear dual: columns constant up to the rounding of
# their weighted mean would otherwise become directions of pure rounding
# noise, so sum(w) (m eps max|x|)^2 is no signal.
linear_floor <- function(mom, m, scale = NULL) {
  mom$sumw * (m * .Machine$double.eps * max(mom$xmax / (scale %||% 1), 0))^2
}


max_abs <- function(x) c_abs_max(if (is_sparse(x)) x@x else x)

# What engine_decision() needs of an engine at one lambda: for a linear model
# its coefficients alone (class "rlsc_linear"), for a kernel model the engine.
engine_at <- function(eng, lambda) {
  if (linear_engine(eng)) {
    cf <- at_lambdas(lambda, ncol(eng$g), function(l) engine_coef(eng, l), engine = eng)
    return(as_linear_engine(cf, eng))
  }
  eng
}

# Coefficients `cf` (engine_coef() at one lambda) as an engine of class
# "rlsc_linear", with what warn_unreliable() reads of the engine `eng`.
as_linear_engine <- function(cf, eng) {
  cf[c("values", "dropped", "noise", "weak")] <- list(eng$values, eng$dropped, eng$noise, eng$weak)
  structure(cf, class = "rlsc_linear")
}

# `fun(cf)` at each of several single lambdas of a dual engine, cf as
# engine_coef() gives it at that lambda, from engine_coef_path() over blocks
# of lambdas of at most budgets$coefficients doubles of coefficients: a
# linear kernel's moves x once per block, not once per lambda, and no
# p x T x L array of all of them exists (5000 columns and 5000 response
# columns: 200 MB a lambda).
dual_coef_blocks <- function(eng, lambda, fun) {
  nt <- ncol(eng$g)
  p <- if (identical(eng$kernel$name, "linear")) ncol(eng$x) else length(eng$w)
  per <- max(1, floor(budgets$coefficients / (max(p, 1) * nt)))
  blocks <- split(seq_along(lambda), ceiling(seq_along(lambda) / per))
  unlist(lapply(blocks, function(b) {
    path <- engine_coef_path(eng, lambda[b])
    lapply(seq_along(b), function(k) {
      fun(list(coef = matrix(path$coef[, , k], dim(path$coef)[1L], nt),
               intercept = path$intercept[, k], shift = path$shift, center = path$center,
               base = if (!is.null(path$base)) path$base[, k]))
    })
  }), recursive = FALSE, use.names = FALSE)
}

# engine_at() of a linear dual engine at several single lambdas
# (dual_coef_blocks()).
linear_engines <- function(eng, lambda) {
  dual_coef_blocks(eng, lambda, function(cf) as_linear_engine(cf, eng))
}

# The engines new rows are evaluated with at each of the list `lambdas`
# (single values, or one per response column): a linear model's
# coefficients at each (engine_at(); a dual fit's at single values from one
# path, linear_engines()), NULL for other engines (the same at every lambda).
engines_at <- function(eng, lambdas) UseMethod("engines_at")
#' @export
#' @noRd
engines_at.default <- function(eng, lambdas) {
  if (!linear_engine(eng)) return(NULL)
  lapply(lambdas, engine_at, eng = eng)
}
#' @export
#' @noRd
engines_at.rlsc_dual <- function(eng, lambdas) {
  if (linear_engine(eng) && all(lengths(lambdas) == 1L)) return(linear_engines(eng, unlist(lambdas)))
  NextMethod()
}

# The linear engines of several lambdas of one engine share its origin: dense
# new rows `x` moved there once, and the engines as engines of rows so
# moved (their intercept at the origin, `base`).  Moving the rows once per
# lambda was most of predict() at many lambdas (200 x 5000 new rows, 100
# lambdas: 1.0 of 1.5 s).
at_origin <- function(engines, x) {
  if (is.null(engines[[1L]]$center) || is_sparse(x)) return(list(x = x, engines = engines))
  list(x = move_rows(x, engines[[1L]]), engines = lapply(engines, function(e) {
    e$intercept <- e$base
    e[c("shift", "center")] <- list(NULL)
    e
  }))
}

# Whether an engine's decision values are those of a linear model (engine_at()
# gives such an engine its coefficients alone: class "rlsc_linear").  A dual
# or banded engine's are where its kernel is linear; a snapshot's never (it
# answers at its grid from its dual coefficients).
linear_engine <- function(eng) UseMethod("linear_engine")
#' @export
#' @noRd
linear_engine.default <- function(eng) FALSE
#' @export
#' @noRd
linear_engine.rlsc_linear <- function(eng) TRUE
#' @export
#' @noRd
linear_engine.rlsc_primal <- function(eng) TRUE
#' @export
#' @noRd
linear_engine.rlsc_dual <- function(eng) identical(eng$kernel$name, "linear")
#' @export
#' @noRd
linear_engine.rlsc_banded <- function(eng) identical(eng$form, "primal") || identical(eng$kernel$name, "linear")

# Whether engine_coef() takes one lambda per response column at once (one
# filter per column: a primal engine, and a banded one for its candidates),
# where at_lambdas() would otherwise evaluate once per distinct lambda.
per_column_lambdas <- function(eng) UseMethod("per_column_lambdas")
#' @export
#' @noRd
per_column_lambdas.default <- function(eng) FALSE
#' @export
#' @noRd
per_column_lambdas.rlsc_primal <- function(eng) TRUE
#' @export
#' @noRd
per_column_lambdas.rlsc_banded <- function(eng) TRUE

# Whether the engine holds the rows new data need (a fit in memory then
# keeps only y and w of its data: a saved fit would otherwise hold x twice).
holds_rows <- function(eng) UseMethod("holds_rows")
#' @export
#' @noRd
holds_rows.default <- function(eng) FALSE
#' @export
#' @noRd
holds_rows.rlsc_dual <- function(eng) TRUE
#' @export
#' @noRd
holds_rows.rlsc_snapshot <- function(eng) TRUE
#' @export
#' @noRd
holds_rows.rlsc_banded <- function(eng) !identical(eng$form, "primal")

# The response of the rows an engine holds, for the reliability of its rows
# of zero or negligible weight (a dual engine's, direct_rows_lambda() and
# direct_rows_loose()); NULL for engines whose rows are all alike.
rows_response <- function(eng, data) UseMethod("rows_response")
#' @export
#' @noRd
rows_response.default <- function(eng, data) NULL
#' @export
#' @noRd
rows_response.rlsc_dual <- function(eng, data) all_rows(data)$y

# What a fit keeps of the engine of its chosen kernel setting without
# `keep_eigen`: a dual engine's snapshot at the grid `lambda` (snapshot.R),
# any other engine itself.
kept_engine <- function(eng, data, lambda) UseMethod("kept_engine")
#' @export
#' @noRd
kept_engine.default <- function(eng, data, lambda) eng
#' @export
#' @noRd
kept_engine.rlsc_dual <- function(eng, data, lambda) new_snapshot(eng, data, lambda)

# An engine without the rows another object holds for it (a banded
# engine's kept candidates, band_engine.R), and with them again from `x`.
without_rows <- function(eng) UseMethod("without_rows")
#' @export
#' @noRd
without_rows.default <- function(eng) eng
#' @export
#' @noRd
without_rows.rlsc_dual <- function(eng) {
  eng["x"] <- list(NULL)
  eng
}
with_rows <- function(eng, x) UseMethod("with_rows")
#' @export
#' @noRd
with_rows.default <- function(eng, x) eng
#' @export
#' @noRd
with_rows.rlsc_dual <- function(eng, x) {
  if (eng$kernel$name != "precomputed") eng$x <- x   # (dual_x() takes its rows)
  eng
}

#' @export
#' @noRd
engine_decision.rlsc_linear <- function(eng, newx, lambda) linear_decision(newx, eng)
