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

# The default grid of a setting's engine (`built`: the engine, its count of
# rows of positive weight `npos` and its data, as search$build() gives them):
# default_lambda() of its spectrum, down to the reliable limit of
# reliable_lambda() and ending at lambda = 0 where least_squares_candidate()
# allows it and `zero` is TRUE (grid_table() makes the grid again with `zero`
# FALSE when a point is interpolated at 0).  The one default grid of every
# search: kernel settings, band candidates and the shared grid of a banded
# search per response column.  A list of the grid and whether it ends at 0.
default_grid <- function(built, spec, what, zero = TRUE) {
  eng <- built$engine
  check_spectrum_range(eng$values, what)
  zero <- zero && least_squares_candidate(eng, built$npos)
  limit <- reliable_lambda(eng, rows_response(eng, built$data))
  list(lambda = default_lambda(eng$values, spec$nlambda, zero, limit), zero = zero)
}

# The smallest lambda the reliability rules of warn_unreliable() accept for
# the directions an engine dropped (above 1e6 times the largest dropped
# eigenvalue), for the cancellation noise of its kept ones (noise below
# 1e-6 of Lambda_k + lambda) and for rows of light weight (light_share()
# below 1e-6 lambda).  In the dual form, also where rows of zero or
# negligible weight (evaluated like new rows, warn_direct_rows()) stay
# accurate; `y` is the response of those rows (rows_response()).
reliable_lambda <- function(eng, y = NULL) {
  noise <- eng$noise %||% 0
  max(1e6 * eng$dropped, 1e6 * noise - eng$values, 1e6 * light_share(eng), 0,
      if (!is.null(y)) direct_rows_lambda(eng, y))
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

# Values of a criterion equal to rounding: within 1e-8 of the size of the
# smaller (the criteria are sums of losses accurate to far better than that,
# and LOO values to about 1e-6 where warn_unreliable() stays silent).  The
# one rule by which every choice treats two values of a criterion as equal:
# lambda_min on a grid, the candidates of a banded fit, kernel settings, and
# the criterion beyond the grid's end.  Vectorized; NA gives NA.
equal_to_rounding <- function(a, b) pmax(a, b) <= rounding_bound(pmin(a, b))

# The largest value equal to `v` to rounding (equal_to_rounding()).
rounding_bound <- function(v) v + 1e-8 * abs(v)

# The error of a grid of lambda whose criterion is undefined everywhere (the
# fit interpolates a point at each lambda, or the AUC's values are not
# resolved): there is nothing to choose by, as cv.glmnet has no lambda.min
# without a curve.  A single lambda needs no criterion (select_columns()).
# `single`: whether a single lambda would fit (a banded search chooses its
# candidates by the criterion even then).
stop_undefined <- function(kfold = FALSE, which = NULL, single = TRUE) {
  stop_arg("the ", if (kfold) "cross-validation" else "leave-one-out",
           " criterion is undefined (NA) at every value of `lambda`", which,
           ", so none can be chosen; use larger values of `lambda`",
           if (single) ", or a single value to fit at it without a criterion")
}

# The columns mse_<response><suffix> of a validation table as a lambdas x
# responses matrix: one match() for all of them (`[[` by name scans the
# names, for thousands of columns once per column).
response_curves <- function(path, responses, suffix = "") {
  matrix(unlist(unclass(path)[paste0("mse_", responses, suffix)], use.names = FALSE), nrow(path))
}

# lambda_min and lambda_1se of a fit's validation table: one pair, or one
# per response column (named) with per_response = TRUE; an error where the
# criterion is undefined at every lambda.
select_fit <- function(path, crit) {
  per_response <- isTRUE(crit$per_response)
  sel <- select_table(path, crit, if (per_response) crit$responses)
  if (anyNA(sel$index_min)) stop_undefined()
  if (!per_response) return(sel[c("index_min", "index_1se")])
  lapply(sel[c("index_min", "index_1se")], stats::setNames, crit$responses)
}

# lambda_min and lambda_1se of a validation table by select_columns(), for
# the fit (select_fit()) and each setting of a search (search_settings()),
# with the score there (rows: the criterion, then the tie-break): per
# response column (`responses`: their squared errors, whose curves and
# standard errors come too) or of the pooled criterion (negated when
# maximized; the LOO squared error breaks ties of "misclass"; without a
# standard error, GCV or a user's function, lambda_1se is lambda_min).
select_table <- function(path, crit, responses = NULL) {
  if (!is.null(responses)) {
    curve <- response_curves(path, responses)
    se <- response_curves(path, responses, "_se")
    sel <- select_columns(curve, se)
    return(c(sel, list(score = rbind(sel$value), curve = curve, se = se)))
  }
  value <- path[[crit$name]] * if (crit$maximize) -1 else 1
  tiebreak <- if (crit$name == "misclass") path$mse
  sel <- select_columns(matrix(value), matrix(path[[paste0(crit$name, "_se")]] %||% NA_real_, length(value)),
                        if (!is.null(tiebreak)) matrix(tiebreak))
  c(sel, list(score = rbind(sel$value, tiebreak[sel$index_min])))
}

# lambda_min and lambda_1se of each column of cvm and cvsd (L x T, the
# grid decreasing), thousands of response columns without a loop in R: the
# one place that chooses lambda.  lambda_min minimizes the criterion, values
# equal to rounding (equal_to_rounding()) counting as equal and going to
# `tiebreak` (L x T, the LOO squared error for "misclass": its smallest, to
# rounding), then to the largest lambda, as cv.glmnet does (the simpler
# model); lambda_1se is the largest lambda whose criterion is within one
# standard error of lambda_min's (to rounding).  Also the criterion at
# lambda_min (`value`); NA for a column without any value (select_fit()
# makes that an error; a setting of a search is then passed over).  A grid of
# one lambda leaves nothing to choose: its lambda, whatever the criterion (a
# fit at a given lambda needs none; lm() fits a row of leverage 1).
select_columns <- function(cvm, cvsd, tiebreak = NULL) {
  if (nrow(cvm) == 1L) {
    one <- rep(1L, ncol(cvm))
    return(list(index_min = one, index_1se = one, value = cvm[1L, ]))
  }
  ok <- !is.na(cvm)
  at <- function(m, i) m[cbind(i, seq_len(ncol(m)))]
  # the first TRUE of each column (NA for none)
  first <- function(keep) {
    keep[is.na(keep)] <- FALSE
    i <- max.col(t(keep) + 0, ties.method = "first")
    i[colSums(keep) == 0] <- NA_integer_
    i
  }
  # the values of each column equal to its least among `keep`, to rounding
  best <- function(m, keep) {
    low <- m
    low[!keep] <- Inf
    least <- at(low, max.col(t(-low), ties.method = "first"))
    keep & m <= rep_each(rounding_bound(least), nrow(m))
  }
  tied <- best(cvm, ok)
  if (!is.null(tiebreak)) {
    defined <- tied & !is.na(tiebreak)
    has <- colSums(defined) > 0
    tied[, has] <- best(tiebreak, defined)[, has]
  }
  index_min <- first(tied)
  value <- at(cvm, index_min)
  threshold <- value + at(cvsd, index_min)
  within <- ok & cvm <= rep_each(rounding_bound(threshold), nrow(cvm))
  index_1se <- ifelse(is.na(threshold), index_min, first(within))
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
  if (!length(best) || !(crit[best + 1L] < crit[1L]) || equal_to_rounding(crit[best + 1L], crit[1L])) {
    return(NULL)
  }
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

# What beyond_grid() finds past the end each lambda_min sits at (a list, one
# element per lambda_min; NULL inside the grid), for the boundary probe of
# new_fit() (of a banded fit per response column candidate by candidate,
# band_boundary_found()).
boundary_found <- function(extended, eng, lambda, index_min, crit) {
  per_response <- isTRUE(crit$per_response)
  cols <- if (per_response) paste0("mse_", names(index_min)) else crit$name
  # each end's probes once, and the columns at once (not one name lookup
  # per column: thousands of response columns); nothing when no lambda_min
  # sits at an end (most fits)
  nl <- length(lambda)
  if (!any(unlist(index_min) %in% c(1L, nl))) return(vector("list", length(cols)))
  ends <- list(probe_lambdas(eng, lambda[1L], TRUE))
  ends[[2L]] <- if (lambda[nl] > 0) probe_lambdas(eng, lambda[nl], FALSE)
  values <- extended[cols]
  lapply(seq_along(cols), function(k) {
    i <- index_min[[k]]
    if (!i %in% c(1L, length(lambda))) return(NULL)
    beyond_grid(eng, extended, values[[k]], isTRUE(crit$maximize), lambda, i,
                probe = ends[[if (i == 1L) 1L else 2L]])
  })
}

# The boundary warning of a fit, one per call: from what beyond_grid() found
# for each selected lambda_min (one per response column with per_response =
# TRUE, named by them), whether the criterion keeps improving past the end
# of the grid it sits at.
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
# A fit with one lambda per response column also takes one value per column
# named by its columns (per_column_lambda()), and its "lambda_min" and
# "lambda_1se" are such vectors.
lambda_value <- function(object, lambda) {
  if (is.character(lambda) && length(lambda) == 1L && !is.na(lambda)) {
    key <- sub(".", "_", lambda, fixed = TRUE)
    if (key %in% c("lambda_min", "lambda_1se")) return(object[[key]])
  }
  own <- per_column_lambda(object, lambda)
  if (!is.null(own)) {
    bad <- which(!is.finite(own) | own < 0)
    if (length(bad)) lambda_value(object, own[[bad[1L]]])   # its error
    return(vapply(own, on_grid, 1, grid = object$lambda))
  }
  if (!is.numeric(lambda) || length(lambda) != 1L || !is.finite(lambda) || lambda < 0) {
    got <- if (length(lambda) == 1L && is.atomic(lambda) && !is.complex(lambda)) {
      format(lambda)
    } else {
      paste(describe(lambda), "of length", length(lambda))
    }
    stop_arg("`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\"",
             if (isTRUE(object$per_response)) {
               paste0(" (or one per response column, named by them as `lambda_min` is)")
             }, ", not ", got)
  }
  on_grid(lambda, object$lambda)
}

# The one rule for a numeric `lambda` of several values: a path (a result per
# value, as glmnet's `s`), unless the fit has one lambda per response column
# and the values are named by its columns (as its `lambda_min` is): then one
# lambda per column, in the fit's order of the columns.  Unnamed values are
# always a path, whatever their number, and so are values named otherwise.
# NULL for a path (or a single value).
per_column_lambda <- function(object, lambda) {
  given <- names(lambda)
  columns <- names(object$lambda_min)
  if (!is.numeric(lambda) || length(lambda) < 2L || !isTRUE(object$per_response) ||
      is.null(columns) || !any(given %in% columns)) {
    return(NULL)
  }
  if (anyDuplicated(given) || !setequal(given, columns)) {
    stop_arg("`lambda` named by response columns gives one lambda per column and must name ",
             "each once (", name_list(columns), "), not ", name_list(given),
             "; unnamed values give a result at each")
  }
  lambda[columns]
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
  if (length(lambda) == 1L || !is.null(per_column_lambda(object, lambda))) {
    return(one(lambda_value(object, lambda)))
  }
  if (!(is.numeric(lambda) || is.character(lambda)) || !is.null(dim(lambda)) || !length(lambda)) {
    stop_arg("`lambda` must be numbers >= 0, \"lambda_min\" or \"lambda_1se\" (a vector gives ",
             "a column per value), not ", describe(lambda), " of length ", length(lambda))
  }
  values <- lapply(as.list(lambda), function(l) lambda_value(object, l))
  # each value formatted alone, so that names are "10", "1", "100" (not " 10",
  # "  1": cf[, "1"] finds its column); 15 digits where 7 would name two alike
  labels <- if (is.character(lambda)) lambda else vapply(lambda, format, "")
  if (is.numeric(lambda) && any(duplicated(labels) & !duplicated(lambda))) {
    labels <- vapply(lambda, format, "", digits = 15L)
  }
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
  if (length(lambdas) == 1L || per_column_lambdas(engine)) return(fun(lambdas))
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
