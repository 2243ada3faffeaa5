# The primal engine (DESIGN.md, section 4): from merged moments (moments.R),
# step 2, the d x d eigendecomposition A'A = V Lambda V'; its rows stay in
# their source and are projected, B = ((x - shift) - center) v, each time a
# pass evaluates them (path.R).  The same engine serves data in memory (one
# block), chunks, the folds of K-fold and the features of Nystrom and
# random-feature kernels.
#
# Column scales `scale` (standardize = TRUE and positive penalty factors: the
# penalty applies to x / scale) are folded into v, so the rows are never
# scaled: B = ((x - shift) - center) diag(1 / scale) V, and the coefficients
# come out in the units of x.
#
# Columns `free` are not penalized (penalty_factor = 0): they are projected out
# like the intercept, through the Schur complement of the Gram,
#   S = S_uu - S_uz S_zz^-1 S_zu,   s_xy = S_uy - S_uz S_zz^-1 S_zy
# (u the penalized columns, z the free ones), so that B = (x - xbar) v with
# v = [-A V; V], A = S_zz^-1 S_zu; their coefficients are beta0 - A beta_u,
# beta0 = S_zz^-1 S_zy (rows z), and their leverage
# w_i |(x_i - xbar) free_map|^2 with free_map = S_zz^(-1/2) (rows z).
# `eigen`: the eigendecomposition (c_eigen(), or one that keeps the Gram
# it last decomposed: the fold engines of blocks of response columns share
# their folds' Grams, fold_eigen() in kfold.R), which gram_eigens() applies
# when it takes the symmetric route, or the decomposition itself, made
# with other engines' (batched_eigens(): by gram_eigens(), or graded_eigen()
# for graded scales; then the Gram was checked there and is formed again
# only for graded scales; `graded` TRUE when it is graded_eigen()'s).
primal_engine <- function(mom, intercept, scale = NULL, free = NULL, eigen = c_eigen) {
  m <- max(mom$nrows, length(mom$xbar))
  raw <- mom
  # g = V' diag(1 / scale) s_xy comes from the unscaled vectors and the raw
  # cross-products (with free columns too: v = [-A V; V] holds their Schur
  # complement), so the d x T cross-products are never scaled or copied
  mom$sxy <- NULL
  graded <- isTRUE(attr(scale, "graded")) && !length(free)
  gram <- engine_gram(mom, scale, free, is.function(eigen) || graded)
  mom <- gram$mom
  d <- length(mom$xbar)
  pen <- if (length(free)) seq_len(d)[-free] else seq_len(d)
  unscale <- function(m) if (is.null(m) || is.null(scale)) m else m / as.vector(scale)
  beta0 <- free_map <- NULL
  if (length(free)) {
    beta0 <- matrix(0, d, ncol(raw$sxy))
    sxy_free <- raw$sxy[free, , drop = FALSE]
    beta0[free, ] <- gram$solve_zz(if (is.null(scale)) sxy_free else sxy_free / scale[free])
    free_map <- matrix(0, d, length(free))
    free_map[free, ] <- backsolve(gram$root, diag(length(free)))
  }
  eig <- if (!is.function(eigen)) {
    eigen
  } else if (graded) {
    graded_eigen(raw$sxx, scale, gram$within)
  } else {
    gram_eigens(list(gram$sxx), function(grams) lapply(grams, eigen))[[1L]]
  }
  graded <- isTRUE(eig$graded)
  if (!is.null(gram$within)) eig$vectors <- widen_rows(eig$vectors, gram$within)
  floor <- direction_floor(eig$vectors, mom$xmax[pen], mom$sumw, m)
  noise <- if (is.null(mom$raw)) floor else pmax(floor, raw_noise(eig$vectors, mom$raw[pen]))
  kept <- kept_directions(eig$values, m, floor, noise, graded)
  # directions left out that no column constant over the rows (or exactly
  # equal to another) explains may hold an eigenvalue below the
  # decomposition's rounding (eps Lambda_1) that the data determine (rows
  # equal to 2e-9 of their size, columns collinear to 1e-10), of which the
  # Gram keeps no trace: least squares along them is not the minimum-norm
  # fit, so lambda = 0 counts as near a dropped direction (warned, and left
  # out of the default grid); at lambda > 0 they matter only below 1e6 times
  # the floor (explained_directions() only when a direction is left out: its
  # duplicated() of a 500 x 500 Gram took 5 ms, in each fold engine of each
  # block of response columns)
  if (any(!kept$keep) && sum(!kept$keep) > explained_directions(mom$sxx, pen)) {
    kept$dropped <- max(kept$dropped, min(floor[!kept$keep]))
  }
  # sparse x: a direction left out as below its cancellation noise may hold
  # an eigenvalue up to that noise (a large common offset of a column), which
  # warn_unreliable() then compares lambda with, as a dropped one
  hidden <- noise[!kept$keep & noise > floor]
  if (!is.null(mom$raw) && length(hidden)) kept$dropped <- max(kept$dropped, hidden)
  v <- if (all(kept$keep) && !length(free)) eig$vectors else {
    vp <- eig$vectors[, kept$keep, drop = FALSE]
    v <- matrix(0, d, ncol(vp))
    v[pen, ] <- vp
    if (length(free)) v[free, ] <- -gram$a %*% vp
    v
  }
  check_underflow(c(eig$values, if (length(free)) diag(mom$sxx)[free]), mom)
  v <- unscale(v)
  sizes <- if (is.matrix(mom$sxx)) diag(mom$sxx)[pen] else mom$sxx[pen]
  new_engine("primal", values = eig$values[kept$keep], dropped = kept$dropped, graded = graded,
             noise = if (any(kept$keep)) noise[kept$keep] else max(noise, 0),
             g = c_crossprod(v, raw$sxy), yshift = raw$yshift, ybar = raw$ybar, intercept = intercept,
             sumw = mom$sumw, shift = raw$shift, center = raw$xbar, v = v,
             beta0 = unscale(beta0), free_map = unscale(free_map),
             weak = weak_columns(eig, sizes, pen, if (graded) 1e-18 else 1e-9,
                                 if (graded) (m * .Machine$double.eps)^2 else m * .Machine$double.eps))
}

# The columns of a near-dependence, for warn_unreliable() to name: those
# that carry the directions whose eigenvalues are below `limit` of the
# largest (the condition number warn_unreliable() speaks of, or dropped as
# numerically zero) because their columns cancel, not because the columns
# are small.  A direction u is a combination sum_j u_j x_j of the (scaled)
# columns, of squared norm Lambda_k against sum_j u_j^2 S_jj for its terms
# (S_jj the column's, `sizes`): it is a near-dependence when it cancels six
# digits of them or more, its terms are above the decomposition's rounding
# (`rel` Lambda_1, as kept_directions() counts it: below, the eigenvalue says
# nothing) and two columns or more carry it.  Column j carries
# |u_j| sqrt(S_jj) of it, and is named when that is at least a tenth of the
# largest column's share.  From the smallest direction up; NULL when there is
# none.  Column numbers among all columns (`pen`: those decomposed).
weak_columns <- function(eig, sizes, pen, limit, rel) {
  values <- eig$values
  top <- max(values, 0)
  weak <- which(values <= limit * top)
  if (!length(weak)) return(NULL)
  cols <- integer()
  for (k in weak[order(values[weak])]) {
    share <- abs(eig$vectors[, k]) * sqrt(pmax(sizes, 0))
    terms <- sum(share^2)
    carry <- order(share, decreasing = TRUE)[seq_len(sum(share >= max(share) / 10))]
    if (terms > rel * top && values[k] <= 1e-6 * terms && length(carry) > 1L) cols <- union(cols, carry)
  }
  if (length(cols)) pen[cols]
}

# The Gram that the primal engine decomposes: that of the moments scaled by
# `scale`, or, with columns `free`, its Schur complement (with `a`, `root`
# and `solve_zz`, which the engine's other parts need); `mom`, the scaled
# moments.  `gram = FALSE`: only the moments, the Gram's diagonal for its
# matrix (already decomposed), unless columns are free.  Columns of infinite
# multiplier (a band of weight 0) leave the model: the Gram decomposed is
# that of the others (`within`: model_columns()).
engine_gram <- function(mom, scale, free, gram = TRUE) {
  if (!gram && !length(free)) mom$sxx <- diag(mom$sxx)   # (check_underflow() reads it)
  if (!is.null(scale)) mom <- scale_moments(mom, scale)
  within <- model_columns(scale, free)
  if (!is.matrix(mom$sxx)) return(list(mom = mom, within = within))
  check_overflow(mom$sxx, "x", mom$wmax > 1)
  if (!length(free)) {
    sxx <- if (is.null(within)) mom$sxx else mom$sxx[within, within, drop = FALSE]
    return(list(mom = mom, sxx = sxx, within = within))
  }
  pen <- setdiff(seq_along(mom$xbar), free)
  szz <- mom$sxx[free, free, drop = FALSE]
  root <- tryCatch(chol(szz), error = function(e) NULL)
  if (is.null(root) || min(diag(root))^2 <= 1e-12 * max(diag(szz))) {
    stop_arg("the columns with `penalty_factor` 0 are constant or collinear: ",
             "they cannot all be left unpenalized")
  }
  solve_zz <- function(b) backsolve(root, forwardsolve(t(root), b))
  a <- solve_zz(mom$sxx[free, pen, drop = FALSE])
  sxx <- mom$sxx[pen, pen, drop = FALSE] - crossprod(mom$sxx[free, pen, drop = FALSE], a)
  list(mom = mom, sxx = (sxx + t(sxx)) / 2, a = a, root = root, solve_zz = solve_zz)
}

# The eigenpairs of the Gram seen through column multipliers `scale` whose
# sizes span many decades (banded ridge with a band of tiny weight at a tiny
# lambda: bands.R, graded_bands()), or of a Gram whose own columns do
# (lost_to_scales()), without forming the scaled Gram: the Cholesky factor R
# of the unscaled Gram, then the SVD of R diag(1 / scale).  The Cholesky
# factor is that of the Gram with unit diagonal (pivoted, so a singular Gram
# keeps its rank, judged on the columns' correlations rather than against the
# largest column) times the columns' norms.  The eigendecomposition of the
# scaled Gram has absolute errors of eps Lambda_1 in every eigenvalue, which
# erase the directions of a band of weight 1e-12 (or of a column 1e8 times
# smaller than another); the factor's columns carry errors relative to their
# own size, and the singular values absolute errors of eps sqrt(Lambda_1), so
# an eigenvalue Lambda_k keeps a relative accuracy of about
# eps sqrt(Lambda_1 / Lambda_k) (reliability() counts with it), as long as
# the correlations are well conditioned.  (graded_eigens(correlated =
# TRUE), for gram_eigens(): NULL where they are not, beyond 1e9 or
# singular: the Cholesky factor would be no more accurate than the Gram's
# decomposition, whose warnings then speak.)
# The SVD costs about twice the symmetric eigendecomposition: only fits that
# need it take it.  Only the columns `within` (model_columns(): NULL, all) go
# into the SVD; the vectors are over them, as the plain route's.
graded_eigen <- function(sxx, scale = 1, within = NULL) {
  graded_eigens(list(sxx), list(scale), list(within))[[1L]]
}

# graded_eigen() of several Grams `sxxs` (with their `scales` and `withins`),
# their SVDs made together, two at a time on two threads (c_svd_list(): the
# results of La.svd(), one at a time, bit for bit); `graded` TRUE in each
# decomposition (primal_engine() counts its rank with it).
graded_eigens <- function(sxxs, scales = rep(list(1), length(sxxs)), withins = vector("list", length(sxxs)),
                          correlated = FALSE) {
  factors <- Map(graded_factor, sxxs, scales, withins, MoreArgs = list(correlated = correlated))
  eigs <- vector("list", length(sxxs))
  made <- !vapply(factors, is.null, NA)
  if (!any(made)) return(eigs)
  eigs[made] <- lapply(c_svd_list(factors[made]), function(sv) {
    list(values = sv$d^2, vectors = sv$v, graded = TRUE)
  })
  eigs
}

# The matrix whose SVD graded_eigen() takes: the Cholesky factor times the
# columns' norms, over the columns `within`, divided by the multipliers
# `scale`; NULL where `correlated` and the correlations are ill-conditioned.
graded_factor <- function(sxx, scale, within, correlated) {
  norms <- sqrt(pmax(diag(sxx), 0))
  if (correlated && !all(norms > 0)) return(NULL)
  norms[!(norms > 0)] <- 1
  root <- suppressWarnings(chol(sxx / norms / rep_each(norms, length(norms)), pivot = TRUE))
  rank <- attr(root, "rank")
  if (correlated) {
    pivots <- diag(root)
    if (rank < length(norms) || pivots[1L] > sqrt(1e9) * pivots[rank]) return(NULL)
  }
  root <- root[seq_len(rank), order(attr(root, "pivot")), drop = FALSE] * rep_each(norms, rank)
  scale <- rep_len(as.vector(scale), length(norms))
  if (!is.null(within)) {
    root <- root[, within, drop = FALSE]
    scale <- scale[within]
  }
  root / rep_each(scale, rank)
}

# The eigendecompositions of primal engines' Grams `grams` (a list, each
# scaled, over the columns in the model): the one place that chooses, per
# Gram, between the symmetric eigendecomposition (`plain`: a function from a
# list of Grams to their decompositions, c_eigen_list() or an engine's own
# `eigen`) and graded_eigens(correlated = TRUE), the SVD of the Cholesky
# factor, which keeps the directions that columns on very different scales
# give eigenvalues below 1e-9 of the largest (lost_to_scales()), as long as
# the correlations are well conditioned (else it gives NULL, and the plain
# decomposition stands).  The graded route is taken where the plain one
# comes out lost_to_scales(), and that is sure beforehand where the Gram's
# diagonal spans more than 2e9 (lost_by_diagonal()): such Grams go to the
# SVD first, without a plain decomposition to throw away.  The others are
# decomposed plainly and those that come out lost take the SVD after all
# (correlated columns, whose smallest eigenvalue is far below their
# smallest diagonal entry).  Either way the decomposition is the one the
# plain-first order gives.  The SVDs of a list are made together.
gram_eigens <- function(grams, plain = c_eigen_list) {
  eigs <- vector("list", length(grams))
  first <- vapply(grams, lost_by_diagonal, NA)
  eigs[first] <- graded_eigens(grams[first], correlated = TRUE)
  rest <- vapply(eigs, is.null, NA)
  eigs[rest] <- plain(grams[rest])
  lost <- rest & !first & vapply(eigs, function(e) lost_to_scales(e$values), NA)
  if (any(lost)) {
    alt <- graded_eigens(grams[lost], correlated = TRUE)
    made <- !vapply(alt, is.null, NA)
    eigs[which(lost)[made]] <- alt[made]
  }
  eigs
}

# Whether the symmetric eigendecomposition of the Gram `sxx` is sure to come
# out lost_to_scales(), from its diagonal alone.  A symmetric matrix's
# eigenvalues bound its diagonal entries (e_j' S e_j = S_jj is a Rayleigh
# quotient): Lambda_min <= min S_jj and Lambda_max >= max S_jj.  The
# decomposition gives each eigenvalue to an absolute error delta of a few
# eps Lambda_max, so its smallest is at most min S_jj + delta and its
# largest at least max S_jj - delta.  With min S_jj < 0.5e-9 max S_jj the
# smallest is then below 0.5e-9 Lambda_max + delta and the largest above
# Lambda_max - delta, and the first is below 1e-9 times the second whenever
# delta < 0.5e-9 Lambda_max / (1 + 1e-9): an error of up to 2e6 eps
# Lambda_max, which the eigensolver stays far within (the margin 0.5 is for
# it).  So lost_to_scales() of the decomposition holds, and the
# decomposition need not be made.  (One column: never lost.)
lost_by_diagonal <- function(sxx) {
  s <- diag(sxx)
  length(s) > 1L && min(s) < 0.5e-9 * max(s)
}

# The number of directions of zero variance that the Gram `sxx` (or its
# diagonal) itself shows over the columns `pen`: constant columns, and
# columns whose cross-products equal another's bit for bit (a duplicated
# column).
explained_directions <- function(sxx, pen) {
  if (!is.matrix(sxx)) return(sum(sxx[pen] <= 0))
  g <- sxx[pen, pen, drop = FALSE]
  sum(diag(g) <= 0 | duplicated(g))
}

# Whether a spectrum has directions beyond the eigendecomposition's reach
# (below 1e-9 of the largest: dropped as numerically zero, or conditioned
# beyond reliability()'s limit at lambda = 0), which the Cholesky factor of
# graded_eigen() may keep when the columns are merely on different scales.
lost_to_scales <- function(values) length(values) > 1L && min(values) < 1e-9 * max(values)

# The columns in the model (NULL: all of them): those of finite multiplier.
# A band of weight 0 has an infinite one (band_scale()); left in the
# decomposition (or the SVD of graded_eigen()), its zero rows and columns
# would come out as eigenvalues of rounding size, counted as directions
# dropped and warned about at lambda = 0.  (`bands` takes no
# penalty_factor, so no column is free then.)
model_columns <- function(scale, free) {
  if (is.null(scale) || all(is.finite(scale))) return(NULL)
  if (length(free)) stop_arg("columns cannot be both unpenalized and out of the model")
  is.finite(as.vector(scale))
}

# Vectors over the columns `within` widened to all columns, 0 on the others.
widen_rows <- function(vectors, within) {
  out <- matrix(0, length(within), ncol(vectors))
  out[within, ] <- vectors
  out
}

# Centered cross-products below about xmin / eps have lost digits to
# underflow (or vanished): reject such `x` as check_overflow() rejects huge
# `x`, instead of fitting it as if it had no signal.  A column varies when its
# centered cross-product is positive or its largest magnitude exceeds that of
# its mean (without an intercept the mean is 0: any non-zero value counts).
check_underflow <- function(values, mom) {
  if (max(values, 0) >= .Machine$double.xmin / .Machine$double.eps) return(invisible())
  sxx <- if (is.matrix(mom$sxx)) diag(mom$sxx) else mom$sxx
  varies <- any(sxx > 0) || any(mom$xmax > abs(mom$shift + mom$xbar) * (1 + 1e-12))
  if (max(values, 0) > 0 || varies) {
    stop_arg("`x` is too small in magnitude: its weighted cross-products underflow; ",
             "rescale `x` (or `weights`)")
  }
}

check_overflow <- function(gram, arg, weighted = FALSE) {
  if (all_finite(gram)) return(invisible())
  if (weighted) stop(weights_overflow(arg, "weights"))
  stop_arg("`", arg, "` is too large in magnitude: its cross-products overflow; rescale it")
}

# The error of weighted cross-products that overflow, naming the weights to
# blame: `weights`, or `class_weights` (fit_model() signals it again so when
# the fit has class weights, which the engines see only multiplied into the
# weights).
weights_overflow <- function(arg, weights) {
  msg <- paste0("`", arg, "` and `", weights, "` are too large together: the weighted ",
                "cross-products overflow; rescale `", arg, "` or divide `", weights,
                "` by a constant (which changes only the scale of `lambda`)")
  structure(class = c("rlsc_weights_overflow", "error", "condition"),
            list(message = msg, call = NULL, arg = arg))
}

# Sparse x: its co-moments are raw cross-products minus the mean terms, so
# each carries an absolute error of about eps times the raw one; with a large
# common offset of a column (values far from 0 in most rows) that cancels
# most digits.  In direction v_k the error is up to eps (sum_j |v_jk|
# sqrt(raw_jj))^2, with raw_jj = sum_i w_i x_ij^2: directions below it are
# noise, and warn_unreliable() compares lambda with it.
raw_noise <- function(vectors, raw) {
  (sqrt(.Machine$double.eps) * colSums(abs(vectors) * sqrt(raw)))^2   # no overflow of the square
}

# The noise floor of each eigen-direction v_k: the centering rounds column j
# by about m eps max|x_j|, so sum(w) (m eps)^2 sum_j v_jk^2 max|x_j|^2 is the
# eigenvalue rounding alone can give that direction.  Per column, so that a
# column on a scale of 1e17 does not hide the others as noise: their directions
# are then dropped by the relative rule but counted in `dropped`, and
# warn_unreliable() speaks.
direction_floor <- function(vectors, xmax, w, m) {
  sum(w) * (m * .Machine$double.eps)^2 * c_scaled_sumsq(vectors, as.double(xmax))
}

# B of rows x (of dense x's rows `take`, when given: fold_rows()):
# ((x - shift) - center) v; sparse x is not shifted (its shift is 0).
project_rows <- function(x, eng, v = eng$v, take = NULL) {
  if (!is_sparse(x)) return(c_project(x, eng$shift, eng$center, v, take))
  as.matrix(x %*% v) - rep_each(drop(crossprod(eng$center, v)), nrow(x))
}

# The unpenalized columns' share of the leverage of rows x (0 without them).
free_leverage <- function(x, w, eng) {
  if (is.null(eng$free_map)) return(0)
  w * rowSums(project_rows(x, eng, eng$free_map)^2)
}

# (y - yshift) - ybar - (x - xbar) beta0: the residuals of rows at
# lambda = Inf, the start of the direct form of the path (x's rows `take`,
# when given, are those of y).
offset_residuals <- function(x, y, eng, take = NULL) {
  r0 <- (y - rep_each(eng$yshift, nrow(y))) - rep_each(eng$ybar, nrow(y))
  if (is.null(eng$beta0)) r0 else r0 - project_rows(x, eng, eng$beta0, take)
}

# The degrees of freedom of the fit at lambda: the penalized directions' plus
# one per unpenalized column (the intercept adds one more).
model_df <- function(eng, lambda) {
  effective_df(eng$values, lambda) + if (is.null(eng$free_map)) 0 else ncol(eng$free_map)
}

# The slopes (in the units of x) and intercept at lambda (one, or one per
# response column: spectral_filter()), and what linear_decision() centers
# new rows with.
#' @export
#' @noRd
engine_coef.rlsc_primal <- function(eng, lambda) {
  beta <- eng$v %*% (eng$g * spectral_filter(eng$values, lambda))
  if (!is.null(eng$beta0)) beta <- beta + eng$beta0
  base <- eng$yshift + eng$ybar
  list(coef = beta, intercept = base - drop(crossprod(beta, eng$shift + eng$center)),
       shift = eng$shift, center = eng$center, base = base)
}

# V (g phi(lambda)) at every lambda of a grid, d x (T L), each lambda's
# response columns side by side, in one product: the slopes without the
# unpenalized columns' beta0 (engine_coef_path() adds them; held-out rows,
# whose residuals subtract x beta0 already, take these, heldout_products()).
primal_slope_path <- function(eng, lambda) {
  nt <- ncol(eng$g)
  nl <- length(lambda)
  filt <- matrix(spectral_filter(eng$values, lambda), length(eng$values), nl)
  eng$v %*% (eng$g[, rep(seq_len(nt), nl), drop = FALSE] * filt[, rep(seq_len(nl), each = nt), drop = FALSE])
}

#' @export
#' @noRd
engine_decision.rlsc_primal <- function(eng, newx, lambda) {
  linear_decision(newx, engine_coef(eng, lambda))
}

#' @export
#' @noRd
engine_basis.rlsc_primal <- function(eng, newx) project_rows(newx, eng)

# Decision values of a linear model from engine_coef(): intercept + x beta,
# evaluated as base + ((x - shift) - center) beta for dense x, which keeps the
# digits a large common offset of the columns would cancel.
linear_decision <- function(x, cf) {
  if (is.null(cf$center) || is_sparse(x)) {
    return(as.matrix(x %*% cf$coef) + rep_each(cf$intercept, nrow(x)))
  }
  move_rows(x, cf) %*% cf$coef + rep_each(cf$base, nrow(x))
}

# Rows moved to the training origin, (x - shift) - center (R/moments.R says
# why in two steps).
move_rows <- function(x, cf) (x - rep_each(cf$shift %||% 0, nrow(x))) - rep_each(cf$center, nrow(x))
