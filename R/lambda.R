# The lambda grid, the choice of lambda_min and lambda_1se, and the reading of
# a method's `lambda` argument.

# Log-spaced and decreasing, from where the effective degrees of freedom
# df(lambda) = sum(Lambda / (Lambda + lambda)) are about 0.1 down to where they
# are within about 1e-4 of the rank (spanning at most ten decades); with
# `zero` (least_squares_ok()) the last of the `nlambda` values is lambda = 0,
# least squares, beyond which nothing lies.  Small models thus reach their LOO
# minimum inside the grid (mpg ~ wt: at df = 0.96, which a grid ending at
# df = rank - 0.1 cut off).
default_lambda <- function(values, nlambda, zero = FALSE) {
  if (!length(values)) return(10^seq(2, -2, length.out = nlambda))
  npos <- nlambda - (zero && nlambda > 1L)
  hi <- 10 * sum(values)
  lo <- max(1e-4 / sum(1 / values), hi * 1e-10)
  c(exp(seq(log(hi), log(lo), length.out = npos)), if (npos < nlambda) 0)
}

# Whether the default grid may end with lambda = 0: least squares is defined
# when there are more observations of positive weight than coefficients, and
# its LOO values are accurate when the condition number passes
# warn_unreliable()'s test.  (grid_table() also drops 0 when a point is
# interpolated there.)
least_squares_candidate <- function(eng, npos) {
  length(eng$values) > 0L && npos > model_df(eng, 0) + eng$intercept && !unreliable(eng, 0)
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

# lambda_min and lambda_1se of a validation table: one pair, or one per
# response column (named) with per_response = TRUE.
select_fit <- function(path, crit) {
  if (isTRUE(crit$per_response)) {
    col <- function(suffix) {
      matrix(unlist(unclass(path)[paste0("mse_", crit$responses, suffix)], use.names = FALSE),
             nrow(path))
    }
    sel <- select_columns(col(""), col("_se"))
    return(lapply(sel, stats::setNames, crit$responses))
  }
  select_lambda(path[[crit$name]], path[[paste0(crit$name, "_se")]],
                if (crit$name == "misclass") path$mse, crit$maximize)
}

# select_lambda() (without tie-break) for each column of cvm and cvsd
# (L x T) at once: thousands of response columns cost no loop in R.
select_columns <- function(cvm, cvsd) {
  ok <- !is.na(cvm)
  if (any(colSums(ok) == 0)) select_lambda(NA_real_, NA_real_)   # its error
  at <- function(m, i) m[cbind(i, seq_len(ncol(m)))]
  low <- cvm
  low[!ok] <- Inf
  # the first smallest value of each column, as which.min()
  index_min <- max.col(t(-low), ties.method = "first")
  threshold <- at(cvm, index_min) + at(cvsd, index_min)
  within <- ok & (cvm <= rep(threshold, each = nrow(cvm)))
  within[is.na(within)] <- FALSE
  index_1se <- ifelse(is.na(threshold), index_min, max.col(t(within) + 0, ties.method = "first"))
  list(index_min = index_min, index_1se = pmin(index_1se, index_min))
}

# When lambda_min sits at an end of the grid (not at lambda = 0, beyond which
# nothing lies), the exact criterion a few steps past that end: 10 to 1e8
# times larger past the largest value, 10 to 1e4 times smaller and 0 past the
# smallest, leaving out values warn_unreliable() would flag; the validation
# table was computed at those lambdas too (`extended`, grid_table()).  NULL
# when the criterion does not decrease there (or lambda_min is inside the
# grid); the best lambda beyond, its criterion and the criterion at
# lambda_min when it does; NA when nothing beyond can be evaluated
# accurately.  `column` is the criterion's column (negated when maximized).
beyond_grid <- function(eng, extended, column, maximize, lambda, index) {
  nl <- length(lambda)
  if (nl < 2L || !index %in% c(1L, nl) || lambda[index] == 0 || !length(eng$values)) return(NULL)
  edge <- lambda[index]
  probe <- probe_lambdas(eng, edge, index == 1L)
  at <- match(c(edge, probe), extended$lambda)
  if (!length(probe) || anyNA(at)) return(NA)
  crit <- extended[[column]][at] * if (maximize) -1 else 1
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
  found <- lapply(seq_along(cols), function(k) {
    beyond_grid(eng, extended, cols[k], isTRUE(crit$maximize), lambda, index_min[[k]])
  })
  hit <- !vapply(found, is.null, NA)
  if (!any(hit)) return(invisible())
  if (length(cols) == 1L) return(warn_boundary(index_min[[1L]], length(lambda), found[[1L]]))
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
warn_boundary <- function(index, nlambda, beyond = NA) {
  if (nlambda < 2L || !(index %in% c(1L, nlambda)) || is.null(beyond)) return(invisible())
  end <- if (index == 1L) "largest" else "smallest"
  if (identical(beyond, NA)) {
    warning("`lambda_min` is the ", end, " value of the `lambda` grid; ",
            "the criterion may keep decreasing beyond it, so consider extending the grid",
            call. = FALSE)
    return(invisible())
  }
  warning("`lambda_min` is the ", end, " value of the `lambda` grid, and the criterion keeps ",
          "decreasing beyond it: ", format(beyond$value, digits = 4), " at lambda = ",
          format(beyond$lambda, digits = 3), " against ", format(beyond$edge, digits = 4),
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
    return(vapply(lambda, function(l) lambda_value(object, l), 1))
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
  grid <- object$lambda
  hit <- which(abs(grid - lambda) <= 1e-10 * lambda)
  if (length(hit)) grid[hit[1L]] else as.double(lambda)
}

# fun(lambda) at each response column's own lambda: column t of every
# component of fun(lambdas[t]) (vectors of one value per column likewise; a
# vector of one value per row, such as 1 - h, becomes a matrix with a column
# per response).
at_lambdas <- function(lambdas, nt, fun) {
  if (length(lambdas) == 1L) return(fun(lambdas))
  out <- NULL
  for (l in unique(lambdas)) {
    cols <- which(lambdas == l)
    part <- fun(l)
    if (is.null(out)) out <- part
    for (k in names(part)) {
      v <- part[[k]]
      if (is.matrix(v) && ncol(v) == nt) {
        out[[k]][, cols] <- v[, cols]
      } else if (is.null(dim(v)) && length(v) == nt) {
        out[[k]][cols] <- v[cols]
      } else if (is.null(dim(v)) && length(v) > 1L) {
        if (!is.matrix(out[[k]])) out[[k]] <- matrix(out[[k]], length(v), nt)
        out[[k]][, cols] <- v
      }
    }
  }
  out
}
