# The engine of a banded fit (class rlsc_banded).
# What the methods of a fit ask of its engine, answered column by column from
# the engine of each column's candidate (band_sub_engine()): those built for
# the fit, which it keeps within options(rlsc.band_memory) (`subs`), else
# rebuilt from the moments of pass 1 (primal; no pass over the rows) or the
# rows (dual).  Its own `values` are empty: its candidates' engines warn
# (warn_unreliable.rlsc_banded()).

banded_engine <- function(search, spec, chosen) {
  data <- search$data
  nt <- length(chosen)
  eng <- structure(list(
    form = search$form, values = numeric(0), dropped = 0, noise = 0, g = matrix(0, 0L, nt),
    intercept = spec$intercept, kernel = spec$kernel %||% kernel_linear(),
    bands = spec$bands, chosen = as.integer(chosen), sd = search$sd,
    moments = search$mom,
    rows = if (search$form != "primal") dense_kernel_rows(spec$kernel %||% kernel_linear(), all_rows(data)),
    free = spec$free), class = c("rlsc_banded", "rlsc_engine"))
  used <- unique(eng$chosen)
  eng$subs <- kept_engines(band_sub_engines(eng, used, search$full_eigens), used)
  eng
}

# The chosen candidates' engines the fit keeps (named by candidate), in
# order while their sizes stay within options(rlsc.band_memory) bytes; the
# methods rebuild the others when they need them (band_sub_engine()).  A
# dual engine holds x, which the banded engine holds once for all (`rows`):
# each kept engine leaves it out.
kept_engines <- function(subs, used) {
  budget <- band_memory()
  subs <- lapply(subs, without_rows)
  sizes <- vapply(subs, function(sub) as.double(utils::object.size(sub)), 1)
  keep <- cumsum(sizes) <= budget
  stats::setNames(subs[keep], used[keep])
}

# The effective degrees of freedom of a banded fit's path: the mean over the
# response columns of their candidates' (fit_bands()).
band_df <- function(eng, lambda) {
  used <- unique(eng$chosen)
  counts <- tabulate(match(eng$chosen, used), length(used))
  df <- Map(function(j, k) k * model_df(band_sub_engine(eng, j), lambda), used, counts)
  Reduce(`+`, df) / length(eng$chosen)
}

# The reliability warning of a banded fit (new_fit(), and predict() and
# loo_predict() as for any fit): that of the first chosen candidate's engine
# whose numbers may be inaccurate at `lambda`, the grid or one lambda for all
# columns, or its columns' own (named by the response columns, as
# lambda_value() gives them).
#' @export
#' @noRd
warn_unreliable.rlsc_banded <- function(eng, lambda, new_rows = FALSE, standardized = FALSE,
                                        columns = NULL) {
  per_column <- length(lambda) == length(eng$chosen) && !is.null(names(lambda))
  for (j in unique(eng$chosen)) {
    sub <- band_sub_engine(eng, j)
    l <- if (per_column) unique(unname(lambda[eng$chosen == j])) else lambda
    if (any(reliability(sub, l, new_rows)$bad)) return(warn_unreliable(sub, l, new_rows, standardized, columns))
  }
  invisible()
}

#' @export
#' @noRd
validate_engine.rlsc_banded <- function(object) {
  eng <- object
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
# Grams decomposed together by `decompose(used)`, the search's
# (band_search(): batched_eigens(), two at a time on two threads, and kept
# for the boundary probe; its candidates and multipliers are the engine's,
# fit_bands()).
band_sub_engines <- function(eng, used, decompose) {
  eigs <- if (eng$form == "primal") decompose(used)
  Map(band_sub_engine, j = used, eigen = eigs %||% list(NULL), MoreArgs = list(eng = eng))
}

# The engine of candidate j for the response columns that chose it
# (`eigen`: as primal_engine() takes it; band_sub_engines() gives the
# decomposition made beforehand).
band_sub_engine <- function(eng, j, eigen = c_eigen) {
  kept <- eng$subs[[as.character(j)]]
  if (!is.null(kept)) return(with_rows(kept, eng$rows$x))
  cols <- which(eng$chosen == j)
  scale <- band_scale(eng$bands, eng$bands$candidates[j, ], eng$sd)
  if (eng$form == "primal") {
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
}

# The response columns of each candidate chosen, as (candidate, columns).
band_groups_of <- function(eng) {
  used <- unique(eng$chosen)
  lapply(used, function(j) list(j = j, cols = which(eng$chosen == j)))
}

# Coefficients at one lambda, or one per response column.
#' @export
#' @noRd
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
#' @export
#' @noRd
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

#' @export
#' @noRd
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
