# The lambda grid, the choice of lambda_min and lambda_1se, and the reading of
# a method's `lambda` argument.

# Log-spaced and decreasing, from where the effective degrees of freedom
# df(lambda) = sum(Lambda / (Lambda + lambda)) are about 0.1 down to where they
# are within about 1e-4 of the rank (spanning at most ten decades); with
# `zero` (least_squares_ok()) the last of the `nlambda` values is lambda = 0,
# least squares, beyond which nothing lies.  Small models thus reach their LOO
# minimum inside the grid (mpg ~ wt: at df = 0.96, which a grid ending at
# df = rank - 0.1 cut off).
# The grid stops at 100 times `reliable`, the smallest lambda at which
# warn_unreliable() would not speak (reliable_lambda()), so that a default
# fit never warns about its own grid: the errors those rules bound carry
# constants up to about 30 (fuzzed problems), so at `reliable` itself LOO
# values were still off by a few 1e-6, silently.
default_lambda <- function(values, nlambda, zero = FALSE, reliable = 0) {
  if (!length(values)) return(10^seq(2, -2, length.out = nlambda))
  npos <- nlambda - (zero && nlambda > 1L)
  hi <- 10 * sum(values)
  lo <- max(1e-4 / sum(1 / values), hi * 1e-10, min(100 * reliable, hi / 10))
  c(exp(seq(log(hi), log(lo), length.out = npos)), if (npos < nlambda) 0)
}

# The smallest lambda the reliability rules of warn_unreliable() accept for
# the directions an engine dropped (above 1e6 times the largest dropped
# eigenvalue), for the cancellation noise of its kept ones (noise below
# 1e-6 of Lambda_k + lambda) and for rows of light weight (light_share()
# below 1e-6 lambda).  In the dual form, also where rows of zero or
# negligible weight (evaluated like new rows, warn_direct_rows()) stay
# accurate; `y` is the response.
reliable_lambda <- function(eng, y = NULL) {
  noise <- eng$noise %||% 0
  max(1e6 * eng$dropped, 1e6 * noise - eng$values, 1e6 * light_share(eng), 0,
      if (inherits(eng, "rlsc_dual") && !is.null(y)) direct_rows_lambda(eng, y))
}

# Whether the default grid may end with lambda = 0: least squares is defined
# when there are more observations of positive weight than coefficients, and
# its LOO values are accurate when the condition number passes
# warn_unreliable()'s test with a margin.  (grid_table() also drops 0 when a point is
# interpolated there.)
least_squares_candidate <- function(eng, npos) {
  length(eng$values) > 0L && npos > model_df(eng, 0) + eng$intercept &&
    reliable_lambda(eng) == 0 &&
    # warn_unreliable()'s condition number, 1e9, with a margin of 10: the LOO
    # values at 0 of a fuzzed problem of condition number 4e8 were off by 4e-6
    max(eng$values) / min(eng$values) <= 1e8
}

# Indices of lambda_min and lambda_1se on a decreasing grid.  Ties in the
# criterion go to `tiebreak` (the LOO squared error for "misclass"), then to the
# larger lambda.  A criterion to maximize (AUC) is negated; without a standard
# error (GCV, a user's function) lambda_1se is lambda_min.
select_lambda <- function(cvm, cvsd, tiebreak = NULL, maximize = FALSE) {
  if (maximize) cvm <- -cvm
  ok <- !is.na(cvm)
  if (!any(ok)) {
    stop_arg("the leave-one-out criterion is undefined (NA) at every value of `lambda`; ",
             "use larger values of `lambda`")
  }
  index_min <- if (is.null(tiebreak)) which.min(cvm) else order(cvm, tiebreak)[1L]
  threshold <- cvm[index_min] + cvsd[index_min]
  index_1se <- if (is.na(threshold)) index_min else which(ok & cvm <= threshold)[1L]
  list(index_min = index_min, index_1se = min(index_1se, index_min))
}

# The columns mse_<response><suffix> of a validation table as a lambdas x
# responses matrix: one match() for all of them (`[[` by name scans the
# names, for thousands of columns once per column).
response_curves <- function(path, responses, suffix = "") {
  matrix(unlist(unclass(path)[paste0("mse_", responses, suffix)], use.names = FALSE), nrow(path))
}

# lambda_min and lambda_1se of a validation table: one pair, or one per
# response column (named) with per_response = TRUE.
select_fit <- function(path, crit) {
  if (isTRUE(crit$per_response)) {
    sel <- select_columns(response_curves(path, crit$responses),
                          response_curves(path, crit$responses, "_se"))
    if (anyNA(sel$index_min)) select_lambda(NA_real_, NA_real_)   # its error
    return(lapply(sel[c("index_min", "index_1se")], stats::setNames, crit$responses))
  }
  select_lambda(path[[crit$name]], path[[paste0(crit$name, "_se")]],
                if (crit$name == "misclass") path$mse, crit$maximize)
}

# select_lambda() (without tie-break) for each column of cvm and cvsd
# (L x T) at once, thousands of response columns without a loop in R: the
# first smallest value of each column (as which.min()), its value, and the
# largest lambda within one standard error of it; NA for a column without
# any value (select_fit() makes that an error; a banded candidate is then
# passed over).
select_columns <- function(cvm, cvsd) {
  ok <- !is.na(cvm)
  at <- function(m, i) m[cbind(i, seq_len(ncol(m)))]
  low <- cvm
  low[!ok] <- Inf
  index_min <- max.col(t(-low), ties.method = "first")
  index_min[colSums(ok) == 0] <- NA_integer_
  value <- at(cvm, index_min)
  threshold <- value + at(cvsd, index_min)
  within <- ok & (cvm <= rep_each(threshold, nrow(cvm)))
  within[is.na(within)] <- FALSE
  index_1se <- ifelse(is.na(threshold), index_min, max.col(t(within) + 0, ties.method = "first"))
  list(index_min = index_min, index_1se = pmin(index_1se, index_min), value = value)
}

# When lambda_min sits at an end of the grid (not at lambda = 0, beyond which
# nothing lies), the exact criterion a few steps past that end: 10 to 1e8
# times larger past the largest value, 10 to 1e4 times smaller and 0 past the
# smallest, leaving out values warn_unreliable() would flag; the validation
# table was computed at those lambdas too (`extended`, grid_table()).  NULL
# when the criterion does not decrease there (or lambda_min is inside the
# grid); the best lambda beyond, its criterion and the criterion at
# lambda_min when it does; NA when nothing beyond can be evaluated
# accurately.  `values` is the criterion's column of `extended` (negated when
# maximized); `probe` the lambdas probed past that end, when known.
beyond_grid <- function(eng, extended, values, maximize, lambda, index,
                        probe = probe_lambdas(eng, lambda[index], index == 1L)) {
  nl <- length(lambda)
  if (nl < 2L || !index %in% c(1L, nl) || lambda[index] == 0 || !length(eng$values)) return(NULL)
  edge <- lambda[index]
  at <- match(c(edge, probe), extended$lambda)
  if (!length(probe) || anyNA(at)) return(NA)
  crit <- values[at] * if (maximize) -1 else 1
  best <- which.min(crit[-1L])
  if (!length(best) || !(crit[best + 1L] < crit[1L] - 1e-8 * abs(crit[1L]))) return(NULL)
  sign <- if (maximize) -1 else 1
  list(lambda = probe[best], value = sign * crit[best + 1L], edge = sign * crit[1L])
}

# The lambdas probed past one end of the grid (see beyond_grid()).
probe_lambdas <- function(eng, edge, above) {
  probe <- if (above) edge * 10^c(1, 2, 4, 8) else c(edge * 10^-c(1, 2, 4), 0)
  probe <- probe[is.finite(probe)]
  probe[!unreliable(eng, probe)]
}

# Every lambda beyond_grid() may probe for a grid, at both ends.
beyond_probes <- function(eng, lambda) {
  if (length(lambda) < 2L || !length(eng$values)) return(numeric())
  c(probe_lambdas(eng, lambda[1L], TRUE),
    if (lambda[length(lambda)] > 0) probe_lambdas(eng, lambda[length(lambda)], FALSE))
}

# The boundary warning of a fit, one per call: for each selected lambda_min
# (one per response column with per_response = TRUE), whether the criterion
# keeps improving past the end of the grid it sits at.
check_boundary <- function(extended, eng, lambda, index_min, crit) {
  per_response <- isTRUE(crit$per_response)
  cols <- if (per_response) paste0("mse_", names(index_min)) else crit$name
  # each end's probes once, and the columns at once (not one name lookup
  # per column: thousands of response columns); nothing when no lambda_min
  # sits at an end (most fits)
  nl <- length(lambda)
  if (!any(unlist(index_min) %in% c(1L, nl))) return(invisible())
  ends <- list(probe_lambdas(eng, lambda[1L], TRUE))
  ends[[2L]] <- if (lambda[nl] > 0) probe_lambdas(eng, lambda[nl], FALSE)
  values <- extended[cols]
  found <- lapply(seq_along(cols), function(k) {
    i <- index_min[[k]]
    if (!i %in% c(1L, length(lambda))) return(NULL)
    beyond_grid(eng, extended, values[[k]], isTRUE(crit$maximize), lambda, i,
                probe = ends[[if (i == 1L) 1L else 2L]])
  })
  warn_boundary_found(found, index_min, length(lambda), isTRUE(crit$maximize))
}

# The warning of check_boundary() from what beyond_grid() found for each
# selected lambda_min (named by response column when there are several).
warn_boundary_found <- function(found, index_min, nlambda, maximize = FALSE) {
  hit <- !vapply(found, is.null, NA)
  if (!any(hit)) return(invisible())
  if (length(found) == 1L) return(warn_boundary(index_min[[1L]], nlambda, found[[1L]], maximize))
  targets <- names(index_min)[hit]
  sure <- !vapply(found[hit], identical, NA, NA)
  warning(sprintf(paste0(
    "`lambda_min` of %d response column(s) (%s) is at an end of the `lambda` grid, and the ",
    "criterion %s beyond it; extend the grid (`fit$lambda_min` and the columns mse_* of ",
    "`fit$path` show each column's choice)"),
    length(targets), name_list(targets, 5L),
    if (all(sure)) "keeps decreasing" else "may keep decreasing"), call. = FALSE)
}

# The warning for lambda_min at an end of the grid, given what beyond_grid()
# found there (NA: not looked at, so the criterion only may keep decreasing).
warn_boundary <- function(index, nlambda, beyond = NA, maximize = FALSE) {
  if (nlambda < 2L || !(index %in% c(1L, nlambda)) || is.null(beyond)) return(invisible())
  end <- if (index == 1L) "largest" else "smallest"
  if (identical(beyond, NA)) {
    warning("`lambda_min` is the ", end, " value of the `lambda` grid; ",
            "the criterion may keep decreasing beyond it, so consider extending the grid",
            call. = FALSE)
    return(invisible())
  }
  warning("`lambda_min` is the ", end, " value of the `lambda` grid, and the criterion keeps ",
          if (maximize) "increasing" else "decreasing", " beyond it: ", format(beyond$value, digits = 4),
          " at lambda = ", format(beyond$lambda, digits = 3), " against ", format(beyond$edge, digits = 4),
          "; extend the grid", call. = FALSE)
}

# Like warn_boundary() for lambda: a numeric kernel parameter chosen at the
# smallest or largest of several values tried may do better beyond them.
warn_kernel_boundary <- function(grid, j) {
  for (p in names(grid)) {
    values <- unique(grid[[p]])
    if (!is.numeric(values) || length(values) < 2L) next
    chosen <- grid[[p]][j]
    end <- if (chosen == min(values)) "smallest" else if (chosen == max(values)) "largest"
    if (is.null(end)) next
    warning("the chosen kernel parameter `", p, "` = ", format(chosen), " is the ", end,
            " value tried; the criterion may improve beyond it, so consider extending ",
            "its values", call. = FALSE)
  }
}

# The value of a method's `lambda` argument: "lambda_min" or "lambda_1se" (also
# glmnet's spellings "lambda.min" and "lambda.1se"), or any lambda >= 0.  A value
# within 1e-10 (relative) of a grid value is that grid value, so that values
# printed with fewer digits select the grid's results exactly when they match.
# A fit with one lambda per response column also takes one value per column,
# and its "lambda_min" and "lambda_1se" are such vectors.
lambda_value <- function(object, lambda) {
  if (is.character(lambda) && length(lambda) == 1L && !is.na(lambda)) {
    key <- sub(".", "_", lambda, fixed = TRUE)
    if (key %in% c("lambda_min", "lambda_1se")) return(object[[key]])
  }
  nt <- ncol(object$y)
  if (isTRUE(object$per_response) && is.numeric(lambda) && length(lambda) == nt && nt > 1L) {
    bad <- which(!is.finite(lambda) | lambda < 0)
    if (length(bad)) lambda_value(object, lambda[[bad[1L]]])   # its error
    return(vapply(lambda, on_grid, 1, grid = object$lambda))
  }
  if (!is.numeric(lambda) || length(lambda) != 1L || !is.finite(lambda) || lambda < 0) {
    got <- if (length(lambda) == 1L && is.atomic(lambda) && !is.complex(lambda)) {
      format(lambda)
    } else {
      paste(describe(lambda), "of length", length(lambda))
    }
    stop_arg("`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\"",
             if (isTRUE(object$per_response)) paste0(" (or one per response column, ", nt, ")"),
             ", not ", got)
  }
  on_grid(lambda, object$lambda)
}

# A lambda given as a number: the grid's value when within rounding of it.
on_grid <- function(l, grid) {
  hit <- which(abs(grid - l) <= 1e-10 * l)
  if (length(hit)) grid[hit[1L]] else as.double(l)
}

# glmnet's `s` for a method's `lambda`: the one given (both is an error).
glmnet_s <- function(lambda, s, lambda_missing) {
  if (is.null(s)) return(lambda)
  if (!lambda_missing) {
    stop_arg("`s` is glmnet's name for `lambda`: give one of them, not both")
  }
  s
}

# `one(l)` at each value of a method's `lambda` (lambda_value() reads each):
# its result for a single value; for several, one column (one response
# column) or one slice of the last dimension per value, named by the values,
# as glmnet's `s = ` gives them.  A fit with one lambda per response column
# takes a vector of one value per column as a single value.
over_lambdas <- function(object, lambda, one, many = NULL) {
  validate_rlsc(object)
  nt <- ncol(object$y)
  single <- length(lambda) == 1L ||
    (isTRUE(object$per_response) && is.numeric(lambda) && length(lambda) == nt && nt > 1L)
  if (single) return(one(lambda_value(object, lambda)))
  if (!(is.numeric(lambda) || is.character(lambda)) || !is.null(dim(lambda)) || !length(lambda)) {
    stop_arg("`lambda` must be numbers >= 0, \"lambda_min\" or \"lambda_1se\" (a vector gives ",
             "a column per value), not ", describe(lambda), " of length ", length(lambda))
  }
  values <- lapply(as.list(lambda), function(l) lambda_value(object, l))
  labels <- if (is.character(lambda)) lambda else format(lambda)
  # `many(lambdas)`, the results at several single lambdas at once, where a
  # method has it (what does not depend on lambda done once)
  at_once <- !is.null(many) && all(lengths(values) == 1L)
  stack_lambdas(if (at_once) many(unlist(values)) else lapply(values, one), labels)
}

# Results at several lambdas bound along a new last dimension: vectors into
# the columns of a matrix, matrices into an array, factors into the columns
# of a data frame, lists component by component, single numbers into a
# named vector.
stack_lambdas <- function(parts, labels) {
  first <- parts[[1L]]
  if (is.null(first)) return(NULL)   # (se.fit's df when no new row has values)
  if (is.factor(first)) {
    out <- as.data.frame(stats::setNames(parts, labels), check.names = FALSE,
                         row.names = if (!anyDuplicated(names(first))) names(first))
    return(out)
  }
  if (is.list(first)) {
    return(stats::setNames(lapply(names(first), function(k) {
      stack_lambdas(lapply(parts, `[[`, k), labels)
    }), names(first)))
  }
  if (is.null(dim(first)) && length(first) == 1L) return(stats::setNames(unlist(parts), labels))
  if (is.null(dim(first))) {
    out <- do.call(cbind, parts)
    dimnames(out) <- list(names(first), labels)
    return(out)
  }
  names <- dimnames(first) %||% vector("list", length(dim(first)))
  array(unlist(parts), c(dim(first), length(parts)), dimnames = c(names, list(labels)))
}

# fun(lambda) at each response column's own lambda: of each component that
# depends on lambda, column t of a matrix with a column per response (T of
# them), element t of a vector of one value per response column, or, for a
# vector of one value per row such as 1 - h (or one named in `rows`, where a
# row count equals T), column t of a matrix with a column per response; a
# count (one number) the largest.  Components that do not depend on lambda
# (the rows' weights, the engine's shift) stay as they are.  A banded engine
# (bands.R) and a primal one (one filter per column, engine_coef()) take the
# response columns' lambdas at once: one product for all columns instead of
# one per distinct lambda.
at_lambdas <- function(lambdas, nt, fun, rows = character(), engine = NULL) {
  # (an engine given by position landed in `rows`: `%in%` then deparsed its
  # matrices, and coef() of 5000 response columns took 89 s)
  stopifnot(is.character(rows))
  if (length(lambdas) == 1L || inherits(engine, c("rlsc_banded", "rlsc_primal"))) return(fun(lambdas))
  values <- unique(lambdas)
  parts <- lapply(values, fun)
  of <- match(lambdas, values)   # the part of each response column
  out <- parts[[1L]]
  for (k in names(out)) {
    v <- lapply(parts, `[[`, k)
    if (all(vapply(v, identical, NA, v[[1L]]))) next
    first <- v[[1L]]
    per_column <- if (is.matrix(first)) ncol(first) == nt else {
      is.null(dim(first)) && length(first) == nt && !k %in% rows
    }
    if (per_column) {
      # the columns (elements) of each distinct lambda in one assignment,
      # not one assignment per column
      for (j in seq_along(v)[-1L]) {
        cols <- which(of == j)
        if (is.matrix(first)) first[, cols] <- v[[j]][, cols, drop = FALSE] else first[cols] <- v[[j]][cols]
      }
      out[[k]] <- first
    } else if (is.null(dim(first)) && length(first) == 1L) {
      out[[k]] <- max(unlist(v))
    } else {
      out[[k]] <- vapply(of, function(j) v[[j]], first)
    }
  }
  out
}
