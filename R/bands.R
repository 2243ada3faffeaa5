# Banded ridge (issue 25): one penalty weight per group of columns ("band"),
# chosen for each response column by exact leave-one-out or K-fold
# cross-validation.  A candidate is a vector w of non-negative group weights
# summing to 1; its model is ridge with penalty lambda / w_g on the
# coefficients of group g, that is ridge on the columns of group g scaled by
# sqrt(w_g): the column multipliers of the engines (fit_model.R,
# column_multiplier()) divided by sqrt(w_g), Inf where w_g = 0 (the group's
# columns then vanish from the Gram, the kernel and the coefficients
# exactly).  So a candidate costs no new code path:
#   primal  the moments of pass 1 are formed once; each candidate is one
#           d x d eigendecomposition of the rescaled Gram (and one per fold
#           for K-fold), never a pass over the rows for it;
#   dual    one n x n eigendecomposition of sum_g w_g X_g X_g' per candidate
#           (the linear kernel of the rescaled columns).
# With per_response = FALSE the candidates are the settings of the usual
# search (search_settings(): one (candidate, lambda) for every column, any
# criterion).  With per_response = TRUE (the default with `bands`) each
# response column keeps the (candidate, lambda) of its smallest criterion:
# the candidates share one lambda grid, and the primal candidates are
# evaluated in batches, each batch in ONE pass over the rows (every block
# projected once per candidate of the batch, src/path.c accumulating each
# column's losses), the batches and the blocks of response columns sized so
# that their engines stay within options(rlsc.band_memory) bytes.

# ---- the arguments -----------------------------------------------------------

# `bands` (one group per column, per term of a formula, or a list of the
# columns of each group), `band_weights` or `n_candidates`: the group of each
# column and the candidates (rows) x groups (columns).
check_bands <- function(args, xnames, assign, kernel, pf) {
  bands <- args$bands
  if (is.null(bands)) {
    for (a in intersect(args$given, c("band_weights", "n_candidates"))) {
      stop_arg("`", a, "` needs `bands` (the group of each column)")
    }
    return(NULL)
  }
  if (!is.null(kernel)) check_band_kernel(kernel)
  if (!is.null(pf)) {
    stop_arg("`bands` and `penalty_factor` both set the penalty of each column: give one of them")
  }
  group <- band_groups(bands, xnames, assign)
  names <- levels(group)
  candidates <- if (!is.null(args$band_weights)) {
    check_band_weights(args$band_weights, names)
  } else {
    draw_candidates(names, check_count(args$n_candidates, "n_candidates"))
  }
  list(group = as.integer(group), names = names, candidates = candidates)
}

# The kernel of multiple-kernel ridge (`bands` with a kernel): one kernel of
# the family per group, on that group's columns.  The built-in RBF and
# polynomial kernels with one value of each parameter: a candidate is a
# weighting of the group kernels, and crossing it with parameter settings
# would multiply the candidates; a precomputed kernel has no columns to
# group, and a Nystrom or random-feature kernel is primal on its own features.
check_band_kernel <- function(kernel) {
  if (!kernel$name %in% c("rbf", "polynomial") || inherits(kernel, "rlsc_features")) {
    stop_arg("`bands` needs the linear kernel (banded ridge), an RBF or a polynomial kernel ",
             "(one kernel per group: multiple-kernel ridge), not ", format(kernel))
  }
  if (kernel$name == "rbf" && is.null(kernel$params$sigma)) {
    stop_arg("`bands` with an RBF kernel needs one value of `sigma`, such as kernel_rbf(1), ",
             "not the median heuristic")
  }
  if (any(lengths(kernel$params) != 1L)) {
    stop_arg("`bands` with a kernel needs one value of each kernel parameter (the candidates ",
             "are the group weights), not ", format(kernel), "; fit each value apart")
  }
}

# The group of each column as a factor (its levels the groups, in order).
band_groups <- function(bands, xnames, assign) {
  d <- length(xnames)
  if (is.list(bands) && !is.data.frame(bands)) {
    label <- names(bands) %||% paste0("band", seq_along(bands))
    label[label == ""] <- paste0("band", seq_along(bands))[label == ""]
    if (anyDuplicated(label)) {
      stop_arg("`bands` must name each group once; ", name_list(unique(label[duplicated(label)])),
               " names more than one: put their columns in one group or give the groups ",
               "different names")
    }
    group <- rep(NA_integer_, d)
    for (g in seq_along(bands)) {
      cols <- bands[[g]]
      twice <- if (is.character(cols)) intersect(cols, xnames[duplicated(xnames)])
      if (length(twice)) {
        stop_arg("`bands` names columns by name, but `x` has more than one column named ",
                 name_list(twice), " (columns ", paste(which(xnames == twice[1L]), collapse = ", "),
                 "): give the columns of each group by number")
      }
      idx <- if (is.character(cols)) match(cols, xnames) else if (is.numeric(cols)) {
        ifelse(cols >= 1 & cols <= d & cols == round(cols), cols, NA)
      } else {
        NA
      }
      if (!length(cols) || anyNA(idx)) {
        stop_arg("`bands` as a list must hold column names or numbers of `x` (1 to ", d,
                 ") for each group; group ", sQuote(label[g], FALSE), " has ",
                 if (!length(cols)) "none" else {
                   paste("unknown ones:", name_list(as.character(cols[is.na(idx)])))
                 })
      }
      if (any(!is.na(group[idx]))) {
        stop_arg("`bands` must put each column in one group; ",
                 name_list(xnames[idx[!is.na(group[idx])]]), " are in two")
      }
      group[idx] <- g
    }
    if (anyNA(group)) {
      stop_arg("`bands` must put every column of `x` in a group; ", name_list(xnames[is.na(group)]),
               " are in none")
    }
    return(factor(label[group], levels = unique(label)))
  }
  if (!is.atomic(bands) || !is.null(dim(bands)) || anyNA(bands)) {
    stop_arg("`bands` must be a vector giving the group of each column of `x` (or a list of ",
             "the columns of each group), without NA, not ", describe(bands))
  }
  nterms <- if (!is.null(assign)) max(assign, 0L)
  if (length(bands) != d) {
    if (is.null(nterms) || length(bands) != nterms) {
      stop_arg("`bands` must give the group of each of the ", d, " columns of `x`",
               if (!is.null(nterms)) paste0(" or of each of the ", nterms, " terms of the formula"),
               ", not ", length(bands), " values")
    }
    bands <- bands[assign]   # the group of each column is its term's
  }
  # groups in the order of the factor's levels, else of first appearance
  if (is.factor(bands)) droplevels(bands) else factor(bands, levels = unique(bands))
}

# A user's matrix of candidates (rows) x groups: non-negative, each row
# summing to 1 (to 1e-6; rescaled to 1 exactly), columns matched by name
# when named.
check_band_weights <- function(w, names) {
  g <- length(names)
  if (is.data.frame(w)) w <- as.matrix(w)
  if (is.numeric(w) && is.null(dim(w)) && length(w) == g) w <- matrix(w, 1L)
  if (!is.numeric(w) || !is.matrix(w) || ncol(w) != g || !nrow(w)) {
    stop_arg("`band_weights` must be a matrix of candidates (rows) by the ", g, " groups of ",
             "`bands` (columns), not ",
             if (is.matrix(w)) paste(nrow(w), "x", ncol(w)) else describe(w))
  }
  if (!is.null(colnames(w))) {
    if (!setequal(colnames(w), names)) {
      stop_arg("the columns of `band_weights` must be named by the groups of `bands` (",
               name_list(names), "), not ", name_list(colnames(w)))
    }
    w <- w[, names, drop = FALSE]
  }
  storage.mode(w) <- "double"
  if (!all_finite(w) || any(w < 0)) stop_arg("`band_weights` must be finite and non-negative")
  total <- rowSums(w)
  off <- which(abs(total - 1) > 1e-6)
  if (length(off)) {
    stop_arg("each row of `band_weights` (a candidate) must sum to 1; row ", off[1L], " sums to ",
             format(total[off[1L]], digits = 8))
  }
  w <- w / total
  dimnames(w) <- list(NULL, names)
  w
}

# himalaya's random search: the equal weighting, each group alone, then
# Dirichlet samples of concentrations 0.1 and 1 in turn (reproducible under
# set.seed()); `n` candidates in all.
draw_candidates <- function(names, n) {
  g <- length(names)
  fixed <- if (g == 1L) matrix(1, 1L, 1L) else rbind(rep(1 / g, g), diag(g))
  k <- if (g == 1L) 0L else max(n - nrow(fixed), 0L)
  drawn <- matrix(vapply(rep_len(c(0.1, 1), k), function(a) {
    repeat {   # all g draws underflowing to 0 (shape 0.1) is all but impossible
      x <- stats::rgamma(g, a)
      if (sum(x) > 0) return(x / sum(x))
    }
  }, numeric(g)), g)
  w <- rbind(fixed, t(drawn))[seq_len(min(n, nrow(fixed) + k)), , drop = FALSE]
  dimnames(w) <- list(NULL, names)
  w
}

# The column multipliers of candidate w: those of standardize (`sd`) divided
# by sqrt(w_g); Inf leaves a group of weight 0 out.  Their attribute `graded`
# (graded_bands()) tells primal_engine() which decomposition to take.
band_scale <- function(bands, w, sd = NULL) {
  structure((sd %||% 1) / sqrt(w[bands$group]), graded = bands$graded)
}

# Whether the primal engines of a banded fit take graded_eigen() (primal.R):
# where some candidate's scaled Gram may be conditioned beyond
# reliability()'s 1e9 at the smallest lambda of the grid, which the
# eigendecomposition of that Gram cannot resolve.  The bound: with the
# unweighted Gram's extreme eigenvalues (`values`, of the standardized
# columns), candidate w's Gram has eigenvalues between min(w) Lambda_r and
# max(w) Lambda_1 (its positive weights; a group of weight 0 leaves the
# model).  A band of tiny weight matters where lambda / w_g is of the order
# of its eigenvalues, and then the plain decomposition has lost its
# directions; elsewhere it is accurate and twice as fast.
graded_bands <- function(values, candidates, lambda) {
  if (!length(values)) return(FALSE)
  w <- candidates
  w[w == 0] <- NA
  lo <- apply(w, 1L, min, na.rm = TRUE)
  hi <- apply(w, 1L, max, na.rm = TRUE)
  any(hi * max(values) > 1e9 * (lo * min(values) + min(lambda)))
}

# ---- the fit -------------------------------------------------------------------

fit_bands <- function(data, spec, call) {
  search <- band_search(data, spec)
  spec$bands <- search$bands   # with the choice of decomposition (graded_bands())
  if (!spec$crit$per_response) {
    best <- search_settings(search, spec)
    chosen <- best$j
    # a candidate, not a kernel setting; with a kernel (multiple-kernel
    # ridge) the fit is a kernel fit of that kernel and the chosen candidate's table
    best$setting <- spec$kernel
    best$tables <- best$tables[chosen]
    fit <- new_fit(call, best, search, spec)
    nt <- ncol(fit$y)
    scores <- matrix(best$scores, ncol = 1L)
    return(band_fit(fit, spec, rep(chosen, nt), scores))
  }
  best <- search_per_response(search, spec)
  eng <- banded_engine(search, spec, best$cand)
  check_band_boundary(search, spec, best)
  lambda <- best$lambda
  used <- unique(best$cand)
  subs <- band_sub_engines(eng, used)
  bad <- vapply(subs, function(e) any(unreliable(e, lambda)), NA)
  if (any(bad)) warn_unreliable(subs[[which(bad)[1L]]], lambda)
  # df: the mean over the response columns of their candidates' degrees of freedom
  counts <- tabulate(match(best$cand, used), length(used))
  df <- Map(function(e, k) k * model_df(e, lambda), subs, counts)
  best$path$df <- Reduce(`+`, df) / length(best$cand)
  warn_undefined(best$path$n_na)
  sel <- list(index_min = stats::setNames(best$imin, spec$crit$responses),
              index_1se = stats::setNames(best$i1se, spec$crit$responses))
  # (one candidate per response column: no calibration of probabilities)
  kernel <- if (!is.null(spec$kernel)) {
    list(kernel = spec$kernel, sigma_min = spec$kernel$params$sigma)
  }
  fit <- new_rlsc(call, eng, search$data, best$path, sel, spec, form = search$form, sd = search$sd,
                  kernel = kernel, rownames = rownames(search$data$rows$x))
  band_fit(fit, spec, best$cand, best$scores)
}

# The band fields of a fit: the groups of the columns, the candidates, the
# chosen candidate and weights of each response column, and the best
# criterion of each candidate (for each response column with per_response).
band_fit <- function(fit, spec, chosen, scores) {
  bands <- spec$bands
  responses <- response_names(fit$y)
  fit$bands <- stats::setNames(bands$names[bands$group], fit$xnames)
  fit$band_candidates <- bands$candidates
  fit$band_index <- stats::setNames(as.integer(chosen), responses)
  fit$band_weights <- matrix(t(bands$candidates[chosen, , drop = FALSE]), ncol = length(chosen),
                             dimnames = list(bands$names, responses))
  colnames(scores) <- if (ncol(scores) == length(responses)) responses else fit$criterion
  fit$band_scores <- scores
  class(fit) <- c("rlsc_banded_fit", class(fit))
  fit
}

# The search over the candidates: `build(j, cols, full, fold)` gives
# candidate j's engine and fold engines for response columns `cols` (no pass
# over the rows in the primal), `base()` the engine of the unweighted
# columns (for the default grid), and the settings for search_settings().
band_search <- function(data, spec) {
  bands <- spec$bands
  form <- linear_form(data, spec)
  what <- "the weighted cross-products of `x`"
  build_batch <- NULL
  if (form == "primal") {
    pass <- primal_moments(data, spec)
    # each fold's training moments, merged once for every candidate
    if (!is.null(pass$folds)) pass$training <- fold_training(pass$folds, spec$cv$labels)
    sd <- if (spec$standardize) scale_from_moments(pass$mom)
    data <- pass$data
    build <- function(j, cols = NULL, full = TRUE, fold = TRUE, eigens = NULL) {
      part <- pass
      if (!is.null(cols) && !identical(as.integer(cols), seq_along(pass$mom$ybar))) {
        part$mom <- target_moments(pass$mom, cols)
        if (!is.null(pass$folds)) {
          part$folds <- lapply(pass$folds, target_moments, cols = cols)
          part$training <- lapply(pass$training, target_moments, cols = cols)
        }
        part$data <- select_responses(pass$data, cols)
      }
      scale <- if (j == 0L) sd else band_scale(bands, bands$candidates[j, ], sd)
      primal_engines(part, spec, scale, sd, full, fold, eigens)
    }
    # the engines of candidates `batch` (their engines, `full`, and fold
    # engines, `fold`, for response columns `cols`, or cols[[b]] for
    # candidate b), their Grams decomposed together (two at a time on two
    # threads: batched_eigens())
    build_batch <- function(batch, cols, full = TRUE, fold = TRUE) {
      scales <- lapply(batch, function(j) band_scale(bands, bands$candidates[j, ], sd))
      folds <- if (fold) pass$training
      moms <- c(if (full) list(pass$mom), folds)
      eigs <- batched_eigens(rep(moms, length(batch)), rep(scales, each = length(moms)), spec$free)
      per <- split(eigs, rep(seq_along(batch), each = length(moms)))
      if (!is.list(cols)) cols <- rep(list(cols), length(batch))
      Map(function(j, cj, e) {
        build(j, cj, full, fold, list(full = if (full) e[[1L]], folds = if (length(folds)) e[full + seq_along(folds)]))
      }, batch, cols, per)
    }
    base <- build(0L, fold = FALSE)$engine
    lambda <- spec$lambda %||% band_default_grid(base, data, spec, what)
    bands$graded <- graded_bands(base$values, bands$candidates, lambda)
    rm(base)
  } else if (is.null(spec$kernel)) {
    pass <- NULL
    sd <- standardize_rows(data, spec)
    groups <- group_kernels(all_rows(data), bands, sd, spec$intercept)
    build <- function(j, cols = NULL, full = TRUE, fold = TRUE, eigens = NULL) {   # (eigens: primal)
      part <- if (is.null(cols)) data else select_responses(data, cols)
      scale <- if (j == 0L) sd else band_scale(bands, bands$candidates[j, ], sd)
      kernel <- kernel_linear()
      if (j > 0L && !is.null(groups)) kernel$gram <- candidate_gram(groups, bands$candidates[j, ])
      dual_build(kernel, part, spec, sd, scale, full)
    }
    lambda <- spec$lambda %||% if (spec$crit$per_response) band_default_grid(build(0L)$engine, data, spec, what)
  } else {
    # multiple-kernel ridge: candidate w's kernel is sum_g w_g K_g, K_g the
    # kernel of group g's (standardized) columns; j = 0, every weight 1,
    # gives the default grid as the unweighted columns do for the linear kernel
    pass <- NULL
    what <- "the weighted centered kernel"
    sd <- standardize_rows(data, spec)
    rows <- dense_kernel_rows(spec$kernel, all_rows(data))
    groups <- group_kernels(rows, bands, sd, spec$intercept, spec$kernel)
    weights <- function(j) if (j == 0L) rep(1, length(bands$names)) else bands$candidates[j, ]
    build <- function(j, cols = NULL, full = TRUE, fold = TRUE, eigens = NULL) {   # (eigens: primal)
      part <- if (is.null(cols)) data else select_responses(data, cols)
      kernel <- band_kernel(spec$kernel, bands, weights(j), rows, sd, spec$intercept, groups)
      dual_build(kernel, part, spec, sd, sd, full)
    }
    lambda <- spec$lambda %||% if (spec$crit$per_response) band_default_grid(build(0L)$engine, data, spec, what)
  }
  list(settings = as.list(seq_len(nrow(bands$candidates))), grid = NULL, form = form, sd = sd,
       data = data, mom = pass$mom, build = build, build_batch = build_batch, lambda = lambda, bands = bands,
       what = what)
}

# The default grid of a banded fit: that of the unweighted columns' engine,
# shared by every candidate.
band_default_grid <- function(base, data, spec, what) {
  check_spectrum_range(base$values, what)
  npos <- data$npos %||% sum(all_rows(data)$w > 0)
  default_lambda(base$values, spec$nlambda, least_squares_candidate(base, npos))
}

# The dual search's linear kernel of each group's columns over all rows
# (standardized, moved by the origin of all rows as dual_engine() moves
# them), so that a candidate's kernel is their weighted sum, n^2 operations
# per group instead of n^2 d for the kernel of its rescaled columns.  NULL
# (each candidate's kernel from its columns) when they would take more than
# options(rlsc.band_memory) bytes.
# With a kernel of another family (multiple-kernel ridge), that kernel of
# each group's columns, moved as kernel_origin() moves its rows.
group_kernels <- function(rows, bands, sd, intercept, kernel = kernel_linear()) {
  x <- rows$x
  ng <- length(bands$names)
  if (8 * ng * as.double(nrow(x))^2 > getOption("rlsc.band_memory", 5e8)) return(NULL)
  origin <- kernel_origin(kernel, x, rows$y, rows$w, intercept)
  scale <- sd %||% rep(1, ncol(x))
  k <- lapply(seq_len(ng), function(g) {
    cols <- which(bands$group == g)
    if (is_sparse(x)) return(as.matrix(Matrix::tcrossprod(scale_columns(x[, cols, drop = FALSE], scale[cols]))))
    group_kernel(kernel, x, NULL, cols, origin$shift, origin$center, scale)
  })
  list(k = k, shift = origin$shift, center = origin$center)
}

# The kernel of the columns `cols` between rows x and z (z = NULL: x), the
# rows moved by shift + center and the columns divided by `scale`.
group_kernel <- function(kernel, x, z, cols, shift, center, scale) {
  c_kernel_matrix(x[, cols, drop = FALSE], if (!is.null(z)) z[, cols, drop = FALSE], kernel$name,
                  kernel_params(kernel), shift[cols], center[cols], scale[cols])
}

# sum_g w_g K_g(x_g, z_g) over the groups of positive weight: a multiple-kernel
# candidate's kernel between rows x and z, group by group.
weighted_kernel <- function(kernel, group, w, x, z, shift, center, scale) {
  pos <- which(w > 0)
  Reduce(`+`, lapply(pos, function(g) {
    w[g] * group_kernel(kernel, x, z, which(group == g), shift, center, scale)
  }))
}

# Multiple-kernel candidate w as the dual engine takes it: the family's
# kernel with the weighted sum of the group kernels over all rows as `gram`
# (from the group kernels when formed, else group by group) and the weights
# as `bands`, by which dual_cross() gives new rows the same kernel.
band_kernel <- function(kernel, bands, w, rows, sd, intercept, groups = NULL) {
  kernel$gram <- if (!is.null(groups)) candidate_gram(groups, w) else {
    origin <- kernel_origin(kernel, rows$x, rows$y, rows$w, intercept)
    list(k = weighted_kernel(kernel, bands$group, w, rows$x, NULL, origin$shift, origin$center,
                             sd %||% rep(1, ncol(rows$x))),
         shift = origin$shift, center = origin$center)
  }
  kernel$bands <- list(group = bands$group, weights = unname(w))
  kernel
}

# Candidate w's kernel from the group kernels: sum_g w_g K_g over its groups
# of positive weight (the weights sum to 1: there is one).
candidate_gram <- function(groups, w) {
  pos <- which(w > 0)
  list(k = Reduce(`+`, Map(`*`, w[pos], groups$k[pos])), shift = groups$shift, center = groups$center)
}

# The form of a linear fit ("auto": primal when the rows of positive weight
# are at least as many as the columns; chunk sources primal).
linear_form <- function(data, spec) {
  if (spec$mode != "auto") return(spec$mode)
  if (data$kind == "chunks") return("primal")
  if (length(data$template$xnames) <= sum(all_rows(data)$w > 0)) "primal" else "dual"
}

# The moments of some response columns only.
target_moments <- function(mom, cols) {
  mom$sxy <- mom$sxy[, cols, drop = FALSE]
  mom$ybar <- mom$ybar[cols]
  mom$yshift <- mom$yshift[cols]
  mom
}

# ---- per response column -------------------------------------------------------

# Each response column's best (candidate, lambda): every candidate's
# validation table over one grid, in batches of candidates (one pass over the
# rows per batch in the primal) and blocks of response columns, each table
# folded into the running best as it comes (nothing of size candidates x
# lambdas x columns is kept): per column its candidate, lambda_min and
# lambda_1se (as select_lambda() chooses them), its criterion curve and
# standard errors, and each candidate's best criterion (`scores`).
search_per_response <- function(search, spec) {
  data <- search$data
  crit <- spec$crit
  responses <- crit$responses
  nt <- length(responses)
  nc <- length(search$settings)
  lambda <- search$lambda
  nl <- length(lambda)
  curve <- se <- matrix(NA_real_, nl, nt)
  n_na <- matrix(0, nl, nt)
  value <- rep(Inf, nt)
  cand <- imin <- i1se <- rep(NA_integer_, nt)
  scores <- matrix(NA_real_, nc, nt, dimnames = list(NULL, responses))
  plan <- band_plan(search, spec, data, nt, nc)
  full <- spec$cv$type != "kfold"   # (K-fold: the fold engines only)
  for (cols in plan$targets) {
    part <- select_responses(data, cols)
    for (batch in plan$batches) {
      built <- if (is.null(search$build_batch)) lapply(batch, search$build, cols = cols, full = full) else {
        search$build_batch(batch, cols, full)
      }
      tables <- candidate_tables(built, part, lambda, spec, search$form)
      rm(built)
      for (b in seq_along(batch)) {
        tab <- tables[[b]]
        m <- tab$m
        s <- tab$s
        sel <- select_columns(m, s)
        scores[batch[b], cols] <- sel$value
        # (strictly better than rounding: the first candidate wins ties, as
        # better_score() has it)
        better <- which(!is.na(sel$value) & sel$value < value[cols] &
                          !(equal_to_rounding(sel$value, value[cols]) %in% TRUE))
        if (!length(better)) next
        at <- cols[better]
        value[at] <- sel$value[better]
        cand[at] <- batch[b]
        imin[at] <- sel$index_min[better]
        i1se[at] <- sel$index_1se[better]
        curve[, at] <- m[, better]
        se[, at] <- s[, better]
        n_na[, at] <- tab$n_na
      }
    }
  }
  if (anyNA(cand)) {
    stop_arg("the ", if (spec$cv$type == "kfold") "cross-validation" else "leave-one-out",
             " criterion is undefined (NA) at every value of `lambda` for every candidate for ",
             "response column(s) ", name_list(responses[is.na(cand)]), "; use larger values of `lambda`")
  }
  list(lambda = lambda, cand = cand, imin = imin, i1se = i1se, scores = scores, value = value,
       path = band_path(lambda, curve, se, n_na, responses, data$resp$type == "classification"))
}

# Each engine's criterion of each response column over the grid (lambdas x
# columns: `m`, its standard error `s`, and the undefined LOO values per
# lambda `n_na`): in the primal every engine of the batch in one pass over
# the rows (each block projected once per candidate), in the dual from each
# engine's own rows.
candidate_tables <- function(built, data, lambda, spec, form) {
  kfold <- spec$cv$type == "kfold"
  classify <- data$resp$type == "classification"
  columns <- 4L + seq_len(ncol(data$resp$y0))   # the losses of the response columns
  table_of <- function(path) {
    if (kfold) {
      fw <- fold_weights(path, length(lambda))
      st <- fold_stats(path[attr(fw, "used")], fw, columns)
      return(list(m = st$mean, s = st$se, n_na = rep(0, length(lambda))))
    }
    st <- path_stats(path, columns)
    list(m = st$mean, s = st$se, n_na = path$n_na)
  }
  if (form != "primal") {
    return(lapply(built, function(b) {
      table_of(if (kfold) kfold_paths(b$folds, data, lambda, classify, FALSE, spec$cv$K) else {
        engine_path(b$engine, data, lambda, classify)
      })
    }))
  }
  parts <- map_rows(data, band_block_paths, merge_band_lists,
                    built = built, lambda = lambda, classify = classify, unit = data$unit,
                    counts = data$counts, kfold = kfold, what = "evaluating")
  lapply(seq_along(built), function(j) {
    table_of(if (!kfold) finish_path(parts[[j]], built[[j]]$engine, lambda) else {
      lapply(parts[[j]], finish_path, eng = built[[j]]$folds[[1L]], lambda = lambda)
    })
  })
}

# The per-candidate parts of two blocks merged candidate by candidate.
merge_band_lists <- function(a, b) Map(merge_band_parts, a, b)

band_block_paths <- function(rows, i, built, lambda, classify, unit, counts, kfold) {
  check_unchanged(rows, i, counts)
  if (kfold) held <- held_out_rows(rows, i, length(built[[1L]]$folds))
  lapply(built, function(b) {
    if (kfold) return(heldout_paths(held, b$folds, lambda, classify, FALSE, unit))
    row_path(primal_rows(b$engine, rows), b$engine, lambda, classify, FALSE, unit)
  })
}

merge_band_parts <- function(a, b) {
  if (!is.null(a$mean)) merge_path_parts(a, b) else Map(merge_path_parts, a, b)
}

# Blocks of response columns and batches of candidates whose engines (per
# candidate: one, or K for K-fold, each about d x r + r x T numbers in the
# primal, and while the batch is built its eigendecomposition, d x d more
# below 700 columns: batched_eigens()) stay within options(rlsc.band_memory)
# bytes (default 5e8).
band_plan <- function(search, spec, data, nt, nc) {
  budget <- getOption("rlsc.band_memory", 5e8)
  d <- length(data$template$xnames)
  if (search$form != "primal") {
    return(list(targets = list(seq_len(nt)), batches = as.list(seq_len(nc))))
  }
  engines <- if (spec$cv$type == "kfold") spec$cv$K else 1
  squares <- if (d < batched_min_d) 2 else 1   # (batched_eigens() keeps no Grams beyond)
  per_target <- max(1, floor((budget / (8 * engines) - squares * d^2) / d))
  tb <- min(nt, per_target)
  per_candidate <- 8 * engines * (squares * d^2 + d * tb)
  cb <- max(1L, min(nc, floor(budget / per_candidate)))
  list(targets = split(seq_len(nt), ceiling(seq_len(nt) / tb)),
       batches = split(seq_len(nc), ceiling(seq_len(nc) / cb)))
}

# The validation table of a banded fit: per response column its criterion
# and standard error along the grid at its chosen candidate (columns mse_*),
# their mean over the columns as `mse` (no standard error for several
# columns: their errors are correlated), the most undefined LOO values of any column, and
# (fit_bands()) the mean over the columns of their models' degrees of
# freedom as `df`.
band_path <- function(lambda, curve, se, n_na, responses, classify) {
  cols <- c(list(mse = rowMeans(curve), mse_se = if (ncol(se) == 1L) se[, 1L] else NA_real_,
                 mae = NA_real_, mae_se = NA_real_,
                 misclass = NA_real_, misclass_se = NA_real_),
            response_columns(curve, se, responses))
  data.frame(lambda = lambda, df = NA_real_, cols, rss = NA_real_,
             n_na = apply(n_na, 1L, max), check.names = FALSE)
}

# The boundary warning of a banded fit: for the columns whose lambda_min is
# an end of the grid (not 0), their candidate's criterion a few steps beyond
# it (one more evaluation of those columns' candidates, after the search).
check_band_boundary <- function(search, spec, best) {
  lambda <- best$lambda
  nl <- length(lambda)
  responses <- spec$crit$responses
  found <- vector("list", length(responses))
  edge <- nl >= 2L & best$imin %in% c(1L, nl) & lambda[best$imin] > 0
  cands <- unique(best$cand[edge])
  cols_of <- lapply(cands, function(j) which(edge & best$cand == j))
  # the candidates' engines in batches (their Grams decomposed together)
  plan <- band_plan(search, spec, search$data, max(lengths(cols_of), 1L), length(cands))
  for (batch in plan$batches) {
    built_all <- if (is.null(search$build_batch)) Map(search$build, cands[batch], cols_of[batch]) else {
      search$build_batch(cands[batch], cols_of[batch])
    }
    for (b in seq_along(batch)) {
      cols <- cols_of[[batch[b]]]
      built <- built_all[[b]]
      probes <- setdiff(beyond_probes(built$engine, lambda), lambda)
      crit <- spec$crit
      crit$responses <- responses[cols]
      # the criterion at the grid's ends these columns sit at and beyond them
      # (the rest of the grid is the search's)
      extended <- if (length(probes)) {
        validation_table(built$engine, select_responses(search$data, cols),
                         c(lambda[sort(unique(best$imin[cols]))], probes), crit, built$folds, spec$cv$K,
                         spec$cv$labels)
      }
      for (t in seq_along(cols)) {
        found[[cols[t]]] <- if (is.null(extended)) NA else {
          beyond_grid(built$engine, extended, extended[[paste0("mse_", responses[cols[t]])]], FALSE,
                      lambda, best$imin[cols[t]])
        }
      }
    }
    rm(built_all)
  }
  warn_boundary_found(found, stats::setNames(best$imin, responses), nl)
}

# ---- the engine of a banded fit ------------------------------------------------
# What the methods of a fit ask of its engine, answered column by column from
# the engine of each column's candidate (band_sub_engine()): rebuilt from the
# moments of pass 1 (primal; no pass over the rows) or the rows (dual), kept
# in a cache of the session bounded by options(rlsc.band_memory).  Its own
# `values` are empty: the sub-engines warn when they are built for the fit.

banded_engine <- function(search, spec, chosen) {
  data <- search$data
  nt <- length(chosen)
  band_counter$n <- band_counter$n + 1
  structure(list(
    form = search$form, values = numeric(0), dropped = 0, noise = 0, g = matrix(0, 0L, nt),
    intercept = spec$intercept, kernel = spec$kernel %||% kernel_linear(),
    id = paste0(format(Sys.time(), "%Y%m%d%H%M%OS6"), "-", band_counter$n),
    bands = spec$bands, chosen = as.integer(chosen), sd = search$sd,
    moments = search$mom,
    rows = if (search$form != "primal") dense_kernel_rows(spec$kernel %||% kernel_linear(), all_rows(data)),
    free = spec$free), class = c("rlsc_banded", "rlsc_engine"))
}

band_counter <- new.env(parent = emptyenv())
band_counter$n <- 0
band_cache <- new.env(parent = emptyenv())

validate_banded <- function(eng) {
  bad <- function(...) stop_arg("malformed rlsc engine: ", ...)
  bands <- eng$bands
  if (!is.list(bands) || !is.matrix(bands$candidates) || !is.integer(bands$group) ||
      !is.integer(eng$chosen) || any(!eng$chosen %in% seq_len(nrow(bands$candidates))) ||
      ncol(eng$g) != length(eng$chosen)) {
    bad("a banded engine needs its candidates, the group of each column and the chosen ",
        "candidate of each response column")
  }
  if (is.null(eng$moments) && is.null(eng$rows)) bad("a banded engine needs its moments or rows")
  eng
}

# The engines of candidates `used`, built together: in the primal their
# Grams decomposed two at a time on two threads (batched_eigens()).
band_sub_engines <- function(eng, used) {
  eigs <- if (eng$form == "primal") {
    scales <- lapply(used, function(j) band_scale(eng$bands, eng$bands$candidates[j, ], eng$sd))
    batched_eigens(rep(list(eng$moments), length(used)), scales, eng$free)
  }
  Map(band_sub_engine, j = used, eigen = eigs %||% list(NULL), MoreArgs = list(eng = eng))
}

# The engine of candidate j for the response columns that chose it
# (`eigen`: as primal_engine() takes it; band_sub_engines() gives the
# decomposition made beforehand).
band_sub_engine <- function(eng, j, eigen = c_eigen) {
  key <- paste0(eng$id, ":", j)
  hit <- band_cache[[key]]
  if (!is.null(hit)) return(hit)
  cols <- which(eng$chosen == j)
  scale <- band_scale(eng$bands, eng$bands$candidates[j, ], eng$sd)
  sub <- if (eng$form == "primal") {
    primal_engine(target_moments(eng$moments, cols), eng$intercept, scale, eng$free, eigen %||% c_eigen)
  } else if (eng$kernel$name == "linear") {
    rows <- eng$rows
    rows$y <- rows$y[, cols, drop = FALSE]
    dual_engine(kernel_linear(), rows, eng$intercept, scale)
  } else {
    # multiple-kernel ridge: the candidate's kernel over all rows, as the search formed it
    rows <- eng$rows
    kernel <- band_kernel(eng$kernel, eng$bands, eng$bands$candidates[j, ], rows, eng$sd, eng$intercept)
    rows$y <- rows$y[, cols, drop = FALSE]
    dual_engine(kernel, rows, eng$intercept, eng$sd)
  }
  cache_engine(key, sub)
  sub
}

# The cache of sub-engines: the oldest go first beyond the memory bound.
cache_engine <- function(key, sub) {
  size <- as.double(utils::object.size(sub))
  budget <- getOption("rlsc.band_memory", 5e8)
  keys <- band_cache$.keys %||% character()
  sizes <- band_cache$.sizes %||% numeric()
  while (length(keys) && sum(sizes) + size > budget) {
    rm(list = keys[1L], envir = band_cache)
    keys <- keys[-1L]
    sizes <- sizes[-1L]
  }
  if (size <= budget) {
    assign(key, sub, envir = band_cache)
    keys <- c(keys, key)
    sizes <- c(sizes, size)
  }
  band_cache$.keys <- keys
  band_cache$.sizes <- sizes
}

# The response columns of each candidate chosen, as (candidate, columns).
band_groups_of <- function(eng) {
  used <- unique(eng$chosen)
  lapply(used, function(j) list(j = j, cols = which(eng$chosen == j)))
}

# Coefficients at one lambda, or one per response column.
engine_coef.rlsc_banded <- function(eng, lambda) {
  nt <- length(eng$chosen)
  lambda <- rep_len(lambda, nt)
  out <- NULL
  for (grp in band_groups_of(eng)) {
    sub <- band_sub_engine(eng, grp$j)
    cf <- at_lambdas(lambda[grp$cols], length(grp$cols), function(l) engine_coef(sub, l))
    if (is.null(out)) {
      out <- list(coef = matrix(0, nrow(as.matrix(cf$coef)), nt), intercept = numeric(nt),
                  shift = cf$shift, center = cf$center, base = numeric(nt))
    }
    out$coef[, grp$cols] <- cf$coef
    out$intercept[grp$cols] <- cf$intercept
    if (!is.null(cf$base)) out$base[grp$cols] <- cf$base   # (dual coefficients have none)
  }
  out
}

# Decision values of new rows; multiple-kernel ridge through each candidate's
# dual engine (its own kernel), with the bound of their rounding error.
engine_decision.rlsc_banded <- function(eng, newx, lambda) {
  if (eng$kernel$name == "linear") return(linear_decision(newx, engine_coef(eng, lambda)))
  nt <- length(eng$chosen)
  lambda <- rep_len(lambda, nt)
  f <- bound <- matrix(0, nrow(newx), nt)
  for (grp in band_groups_of(eng)) {
    sub <- band_sub_engine(eng, grp$j)
    new <- dual_new_rows(sub, newx)   # (once for the lambdas of its columns)
    got <- at_lambdas(lambda[grp$cols], length(grp$cols), function(l) {
      f <- dual_decision(new, sub, l)
      list(f = f, bound = attr(f, "bound") %||% matrix(0, nrow(f), ncol(f)))
    })
    f[, grp$cols] <- got$f
    bound[, grp$cols] <- got$bound
  }
  attr(f, "bound") <- bound
  f
}

engine_basis.rlsc_banded <- function(eng, newx) {
  stop_arg("`se.fit` = TRUE is not available for banded fits (`bands`): the columns' models ",
           "differ by response column")
}

# Fitted values, LOO values and 1 - h (n x T: they differ by candidate) at
# each response column's lambda (one or T values): one path per candidate
# chosen, at its columns' lambdas.
band_outputs <- function(eng, data, lambda) {
  nt <- length(eng$chosen)
  lambda <- rep_len(lambda, nt)
  out <- NULL
  for (grp in band_groups_of(eng)) {
    sub <- band_sub_engine(eng, grp$j)
    cols <- grp$cols
    grid <- unique(lambda[cols])
    path <- engine_path(sub, select_responses(data, cols), grid, keep = TRUE)
    n <- dim(path$loo)[1L]
    if (is.null(out)) {
      out <- list(fitted = matrix(NA_real_, n, nt), loo = matrix(NA_real_, n, nt),
                  omh = matrix(NA_real_, n, nt), n_na = 0, y = matrix(NA_real_, n, nt),
                  weights = path$weights)
    }
    at <- match(lambda[cols], grid)
    for (k in seq_along(cols)) {
      out$fitted[, cols[k]] <- path$fitted[, k, at[k]]
      out$loo[, cols[k]] <- path$loo[, k, at[k]]
      out$omh[, cols[k]] <- path$omh[, at[k]]
    }
    out$y[, cols] <- path$y
    out$n_na <- max(out$n_na, path$n_na)
  }
  out
}

# ---- printing ----------------------------------------------------------------

#' @export
print.rlsc_banded_fit <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  NextMethod()
  w <- x$band_weights
  cat(sprintf("Bands: %d groups of columns (%s), %d candidate weightings; ",
              nrow(w), paste0(rownames(w), " ", table(factor(x$bands, rownames(w))), collapse = ", "),
              nrow(x$band_candidates)))
  cat(if (x$per_response) "the chosen weights of each response column:\n" else "the chosen weights:\n")
  shown <- w[, seq_len(min(ncol(w), 10L)), drop = FALSE]
  print(t(shown), digits = digits)
  if (ncol(w) > 10L) cat(sprintf(" [ %d more response columns: fit$band_weights ]\n", ncol(w) - 10L))
  cat("\n")
  invisible(x)
}

# ---- plotting ----------------------------------------------------------------

#' Plot the band weights of a banded fit
#'
#' For a fit with `bands` ([rlsc()]), `type = "weights"` (the default) draws
#' the chosen weight of each group of columns for each response column as a
#' stacked bar (the bars sum to 1); `type = "criterion"` and `type = "coef"`
#' are those of [plot.rlsc()].
#'
#' @param x a banded [rlsc()] fit (class `rlsc_banded_fit`).
#' @param type `"weights"`, `"criterion"` or `"coef"`.
#' @param response for `type = "coef"`, the response column.
#' @param order for `type = "weights"`, the order of the response columns:
#'   `"band"` (grouped by their largest band, then by its weight) or
#'   `"given"`.
#' @param col the colours of the groups.
#' @param xlab,ylab,main axis labels and title.
#' @param ... further graphical arguments for [graphics::barplot()] or
#'   [plot.rlsc()].
#' @return `x`, invisibly.
#' @seealso [rlsc()] for `bands`.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(100 * 6), 100)
#' y <- cbind(first = x[, 1] + rnorm(100), last = x[, 6] + rnorm(100))
#' fit <- rlsc(x, y, bands = rep(c("a", "b", "c"), each = 2), n_candidates = 20)
#' fit$band_weights
#' plot(fit)
plot.rlsc_banded_fit <- function(x, type = c("weights", "criterion", "coef"), response = 1L,
                                 order = c("band", "given"), col = NULL, xlab = NULL,
                                 ylab = "band weight", main = NULL, ...) {
  validate_rlsc(x)
  type <- match.arg(type)
  if (type != "weights") {
    # (plot.rlsc() itself, not NextMethod(), which passes this call's
    # arguments on again: a type given by position, plot(fit, "coef"),
    # reached the panels as a graphical argument, "invalid 'cex' value")
    return(plot.rlsc(x, type = type, response = response, xlab = xlab %||% expression(log[10](lambda)),
                     ylab = if (missing(ylab)) NULL else ylab, main = main, ...))
  }
  order <- match.arg(order)
  w <- x$band_weights
  g <- nrow(w)
  if (order == "band") {
    top <- max.col(t(w), "first")
    w <- w[, base::order(top, -w[cbind(top, seq_len(ncol(w)))]), drop = FALSE]
  }
  col <- col %||% grDevices::hcl.colors(g, "Dark 3")
  many <- ncol(w) > 40L
  # the names stand under their bars (las = 2): the axis label goes below the
  # longest one, not across them
  names <- if (many) character() else colnames(w)
  below <- if (length(names)) max(graphics::strwidth(names, "inches")) / graphics::par("csi") else 0
  old <- graphics::par(mar = c(max(4, below + 3), 4, 4, 1))
  on.exit(graphics::par(old))
  graphics::barplot(w, col = col, border = if (many) NA else "white", space = if (many) 0 else 0.2,
                    names.arg = if (many) rep("", ncol(w)) else colnames(w), ylim = c(0, 1),
                    ylab = ylab, main = main, las = if (many) 1 else 2, ...)
  graphics::title(xlab = xlab %||% paste0("response column (", ncol(w), ")"), line = max(3, below + 1.8))
  graphics::legend("bottom", inset = c(0, 1), xpd = TRUE, horiz = TRUE, bty = "n",
                   fill = col, legend = rownames(w), cex = 0.9)
  invisible(x)
}

# ---- summary and tidiers -------------------------------------------------------

#' @export
summary.rlsc_banded_fit <- function(object, rows = 3L, ...) {
  out <- NextMethod()
  out$band_weights <- object$band_weights
  class(out) <- c("summary.rlsc_banded_fit", class(out))
  out
}

#' @export
print.summary.rlsc_banded_fit <- function(x, digits = max(3L, getOption("digits") - 3L),
                                          max = 15L, ...) {
  NextMethod()
  w <- x$band_weights
  cap <- min(ncol(w), check_count(max, "max"))
  cat("Band weights (one row per response column):\n")
  print(t(w[, seq_len(cap), drop = FALSE]), digits = digits)
  if (ncol(w) > cap) cat(sprintf(" [ %d response columns not shown ]\n", ncol(w) - cap))
  cat("\n")
  invisible(x)
}

#' Tidy the bands of a banded fit
#'
#' `tidy(fit, what = "bands")` gives one row per response column and group of
#' columns: `response` (named as in `fit$lambda_min`: with one choice per
#' response column, repeated names made unique, `a`, `a.1`), `band`, `weight`
#' (the chosen weight), `lambda_min`
#' and `estimate` (the response column's criterion at its chosen weights and
#' lambda). `what = "lambda"` (the default) is the tidier of any fit
#' ([rlsc_tidiers]).
#'
#' @param x a banded [rlsc()] fit.
#' @param what `"lambda"` or `"bands"`.
#' @param ... not used.
#' @return A data frame.
#' @rdname rlsc_band_tidiers
#' @usage \method{tidy}{rlsc_banded_fit}(x, what = c("lambda", "bands"), ...)
#' @exportS3Method generics::tidy
tidy.rlsc_banded_fit <- function(x, what = c("lambda", "bands"), ...) {
  what <- match.arg(what)
  if (what == "lambda") return(NextMethod())
  check_no_dots(...)
  w <- x$band_weights
  # per response column, the labels of its path columns mse_<label> (response
  # names made unique, as the names of lambda_min), not the names, which may
  # repeat and would read another column's curve
  responses <- if (x$per_response) names(x$index_min) else colnames(w)
  value <- if (x$per_response) {
    response_curves(x$path, responses)[cbind(x$index_min, seq_along(responses))]
  } else {
    rep(x$cvm[x$index_min], length(responses))
  }
  data.frame(response = rep(responses, each = nrow(w)), band = rep(rownames(w), ncol(w)),
             weight = as.vector(w),
             lambda_min = rep(unname(rep_len(x$lambda_min, ncol(w))), each = nrow(w)),
             estimate = rep(unname(value), each = nrow(w)))
}
