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
    # bound passes 1e-6 (R's collector felt them in every small fit)
    if (length(lambda) && !(min(values) > 0 && max(noise) / (min(values) + min(lambda)) <= 1e-6)) {
      cancelled <- .colSums(noise / (values + rep_each(lambda, r)) > 1e-6, r, length(lambda)) > 0
    }
  }
  near_dropped <- eng$dropped > (if (new_rows) 1e-9 else 1e-6) * lambda   # lambda = 0: any
  # directions dropped below the rounding error of a centering that cancelled
  # digits (a noise far above the eps * Lambda_1 of any decomposition)
  noise_max <- max(eng$noise %||% 0, 0)
  lost <- eng$dropped <= noise_max &&
    noise_max > 1e3 * .Machine$double.eps * max(values, eng$dropped)
  cancelled <- cancelled | (near_dropped & lost)
  list(conditioned = conditioned, near_dropped = near_dropped, cancelled = cancelled, lost = lost,
       bad = conditioned | near_dropped | cancelled)
}

unreliable <- function(eng, lambda) reliability(eng, lambda)$bad

# `standardized`: the columns were standardized (standardize = TRUE), so
# that putting them on comparable scales is no advice.
warn_unreliable <- function(eng, lambda, new_rows = FALSE, standardized = FALSE) UseMethod("warn_unreliable")

warn_unreliable.default <- function(eng, lambda, new_rows = FALSE, standardized = FALSE) {
  values <- eng$values
  r <- reliability(eng, lambda, new_rows)
  conditioned <- r$conditioned
  near_dropped <- r$near_dropped
  cancelled <- r$cancelled
  lost <- r$lost
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
    })
  linear <- linear_engine(eng)
  advice <- c("use larger values of `lambda`",
              if (any(cancelled)) "center `x` (or change the kernel parameters)",
              if (linear && !standardized && any(conditioned | (near_dropped & !lost))) {
                "put the columns of `x` on comparable scales (`standardize = TRUE`)"
              })
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
