# The lambda grid, the choice of lambda_min and lambda_1se, and the reading of
# a method's `lambda` argument.

# Log-spaced and decreasing, from where the effective degrees of freedom
# df(lambda) = sum(Lambda / (Lambda + lambda)) are about 0.1 down to where they
# are within about 0.1 of the rank, spanning at most ten decades.
default_lambda <- function(values, nlambda) {
  if (!length(values)) return(10^seq(2, -2, length.out = nlambda))
  hi <- 10 * sum(values)
  lo <- max(0.1 / sum(1 / values), hi * 1e-10)
  exp(seq(log(hi), log(lo), length.out = nlambda))
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
    sel <- lapply(crit$responses, function(r) {
      select_lambda(path[[paste0("mse_", r)]], path[[paste0("mse_se_", r)]])
    })
    pick <- function(k) stats::setNames(vapply(sel, `[[`, 1L, k), crit$responses)
    return(list(index_min = pick("index_min"), index_1se = pick("index_1se")))
  }
  select_lambda(path[[crit$name]], path[[paste0(crit$name, "_se")]],
                if (crit$name == "misclass") path$mse, crit$maximize)
}

warn_boundary <- function(index, nlambda) {
  if (nlambda < 2L || !(index %in% c(1L, nlambda))) return(invisible())
  end <- if (index == 1L) "largest" else "smallest"
  warning("`lambda_min` is the ", end, " value of the `lambda` grid; ",
          "the criterion may keep decreasing beyond it, so consider extending the grid",
          call. = FALSE)
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
