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
# larger lambda.
select_lambda <- function(cvm, cvsd, tiebreak = NULL) {
  ok <- !is.na(cvm)
  if (!any(ok)) {
    stop_arg("the leave-one-out criterion is undefined (NA) at every value of `lambda`; ",
             "use larger values of `lambda`")
  }
  index_min <- if (is.null(tiebreak)) which.min(cvm) else order(cvm, tiebreak)[1L]
  threshold <- cvm[index_min] + cvsd[index_min]
  index_1se <- which(ok & cvm <= threshold)[1L]
  list(index_min = index_min, index_1se = min(index_1se, index_min))
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
lambda_value <- function(object, lambda) {
  if (is.character(lambda) && length(lambda) == 1L && !is.na(lambda)) {
    key <- sub(".", "_", lambda, fixed = TRUE)
    if (key %in% c("lambda_min", "lambda_1se")) return(object[[key]])
  }
  if (!is.numeric(lambda) || length(lambda) != 1L || !is.finite(lambda) || lambda < 0) {
    got <- if (length(lambda) == 1L && is.atomic(lambda) && !is.complex(lambda)) {
      format(lambda)
    } else {
      paste(describe(lambda), "of length", length(lambda))
    }
    stop_arg("`lambda` must be a single number >= 0, \"lambda_min\" or \"lambda_1se\", not ", got)
  }
  grid <- object$lambda
  hit <- which(abs(grid - lambda) <= 1e-10 * lambda)
  if (length(hit)) grid[hit[1L]] else as.double(lambda)
}
