# When the numbers of a fit may be inaccurate, and the warnings that say so
# (DESIGN.md, section 8).

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
# The share of the cancellation noise in Lambda_k + lambda estimates the
# relative error it causes; fuzzed problems showed errors up to 2.5 times it
# (1.1e-6 to 1.3e-6 at shares of 2.6e-7 to 4.5e-7, issue 46), so it is held to
# 2e-7 for the warning's 1e-6 (as are the rows evaluated like new ones,
# direct_rows_loose()).  The default grid stops where it is 1e-8
# (reliable_lambda()).
share_limit <- 2e-7

reliability <- function(eng, lambda, new_rows = FALSE) {
  values <- eng$values
  conditioned <- cancelled <- rep(FALSE, length(lambda))
  if (length(values)) {
    ratio <- max(values) / (min(values) + lambda)
    # singular values (graded_eigen()) lose the square root of those digits
    conditioned <- (if (isTRUE(eng$graded)) sqrt(ratio) else ratio) > 1e9
    noise <- eng$noise %||% 0
    r <- length(values)
    # noise_k / (Lambda_k + lambda) is at most max(noise) / (min(Lambda) +
    # min(lambda)) (rounding is monotone): the r x L ratios only when that
    # bound passes the limit (R's collector felt them in every small fit)
    if (length(lambda) && !(min(values) > 0 && max(noise) / (min(values) + min(lambda)) <= share_limit)) {
      cancelled <- .colSums(noise / (values + rep_each(lambda, r)) > share_limit, r, length(lambda)) > 0
    }
  }
  near_dropped <- eng$dropped > (if (new_rows) 1e-9 else 1e-6) * lambda   # lambda = 0: any
  light <- light_share(eng) > 1e-6 * lambda
  # directions dropped below the rounding error of a centering that cancelled
  # digits (a noise far above the eps * Lambda_1 of any decomposition)
  noise_max <- max(eng$noise %||% 0, 0)
  lost <- eng$dropped <= noise_max &&
    noise_max > 1e3 * .Machine$double.eps * max(values, eng$dropped)
  cancelled <- cancelled | (near_dropped & lost)
  list(conditioned = conditioned, near_dropped = near_dropped, cancelled = cancelled, lost = lost,
       light = light, bad = conditioned | near_dropped | cancelled | light)
}

unreliable <- function(eng, lambda) reliability(eng, lambda)$bad

# Rows of light weight in the dual form, between 1e-18 and 1e-7 of the
# largest: they enter the decomposition above its rounding yet far below the
# heavy rows, and their values (and the fit's, through them) carry the
# decomposition's rounding, about eps Lambda_1 / lambda, amplified by
# 1 / s_i relative to the heavy rows, sqrt(max(w) / w_i) (light_share(),
# compared with 1e-6 lambda; the condition number alone stayed below 1e9).
# Fuzzed problems with weights over 8 to 16 decades were off by 1e-6 to 1e-3
# at lambdas where it exceeds 1e-6, silently until issue 46; it overstates by
# up to 1e4 elsewhere (a "may").  Rows lighter than 1e-18 do not move the
# decomposition and are evaluated exactly as new rows (test-dual.R); a row of
# 2.4e-7 kept its digits in the complement form (test-reliability.R); rows of
# zero weight are not in the decomposition.  light_rows(): the factor
# sqrt(max(w) / w_i) of the lightest such row (0 without one).
light_share <- function(eng) {
  if (!length(eng$values) || !isTRUE(eng$light > 0)) return(0)
  .Machine$double.eps * eng$light * max(eng$values)
}

light_rows <- function(w) {
  ratio <- w / max(w)
  light <- ratio[ratio >= 1e-18 & ratio < 1e-7]
  if (length(light)) sqrt(1 / min(light)) else 0
}


# `standardized`: the columns were standardized (standardize = TRUE), so
# that putting them on comparable scales is no advice.
# `columns`: the names of the columns of a linear model (NULL for a model on
# features), to name those of a near-dependence (the engine's `weak`).
warn_unreliable <- function(eng, lambda, new_rows = FALSE, standardized = FALSE, columns = NULL) {
  UseMethod("warn_unreliable")
}

#' @export
#' @noRd
warn_unreliable.default <- function(eng, lambda, new_rows = FALSE, standardized = FALSE,
                                    columns = NULL) {
  values <- eng$values
  r <- reliability(eng, lambda, new_rows)
  conditioned <- r$conditioned
  near_dropped <- r$near_dropped
  cancelled <- r$cancelled
  lost <- r$lost
  light <- r$light
  bad <- r$bad
  if (!any(bad)) return(invisible())
  why <- c(
    if (any(conditioned)) {
      sprintf("they are below %s of the largest eigenvalue (%s)",
              if (isTRUE(eng$graded)) "1e-18" else "1e-9", format(max(values), digits = 3))
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
    },
    if (any(light)) {
      sprintf(paste("rows of weight %s of the largest carry the rounding of the",
                    "eigendecomposition, amplified by the square root of that ratio, into the values"),
              format(1 / eng$light^2, digits = 2))
    },
    if (any(conditioned | (near_dropped & !lost)) && !is.null(eng$weak) && !is.null(columns)) {
      paste("the columns of `x` nearly collinear are", name_list(columns[eng$weak], 5L))
    })
  linear <- linear_engine(eng)
  advice <- c("use larger values of `lambda`",
              if (any(cancelled)) "center `x` (or change the kernel parameters)",
              if (linear && !standardized && any(conditioned | (near_dropped & !lost))) {
                "put the columns of `x` on comparable scales (`standardize = TRUE`)"
              })
  if (any(light)) {
    advice <- c(advice, "give rows of negligible weight the weight 0 (or keep the weights within 1e7)")
  }
  advice <- paste(advice, collapse = ", or ")
  # what the caller asked for: predictions at new rows (class
  # "rlsc_prediction_accuracy": decisions_at() says it once for all its
  # lambdas), or the fit's leave-one-out values ("rlsc_loo_accuracy", which
  # the parsnip engine muffles at a given penalty: nobody sees them)
  msg <- sprintf(paste0(
    "%s may be inaccurate (relative error above 1e-6) at %d value(s) ",
    "of `lambda` up to %s: %s; %s"), if (new_rows) "predictions" else "leave-one-out values",
    sum(bad), format(max(lambda[bad]), digits = 3), paste(why, collapse = "; "), advice)
  warning(warningCondition(msg, class = if (new_rows) "rlsc_prediction_accuracy" else "rlsc_loo_accuracy"))
}


warn_undefined <- function(n_na) {
  if (!any(n_na > 0)) return(invisible())
  warning(sprintf(paste0(
    "leave-one-out values are undefined (NA) for up to %d point(s) at %d value(s) of ",
    "`lambda`: their leverage is 1, the fit interpolates them; the criterion is NA there"),
    max(n_na), sum(n_na > 0)), call. = FALSE)
}
