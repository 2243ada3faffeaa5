#' A ggplot2 version of the lambda-selection plot
#'
#' @param object an [rlsc()] fit.
#' @param ... not used.
#' @return A `ggplot` object: the LOO criterion against \eqn{\log_{10}\lambda}
#'   with a one-standard-error ribbon (in the legend) and `lambda_min`,
#'   `lambda_1se` marked; \eqn{\lambda = 0} (least squares) is the point
#'   at the left, labelled `-Inf` (its logarithm), as in [plot.rlsc()].
#'   With `per_response = TRUE`, as [plot.rlsc()] draws it: each response
#'   column's own squared error, which chose its lambdas, in its colour,
#'   with its `lambda_min` (dashed) and `lambda_1se` (dotted). A fit at a
#'   single \eqn{\lambda} (such as a parsnip fit with a `penalty`) has no
#'   curve: an error says so.
#' @usage \method{autoplot}{rlsc}(object, ...)
#' @exportS3Method ggplot2::autoplot
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' ggplot2::autoplot(rlsc(mpg ~ ., data = mtcars))
autoplot.rlsc <- function(object, ...) {
  check_no_dots(...)
  if (length(object$lambda) == 1L) {   # a curve of one point says nothing
    stop_arg("autoplot() draws the leave-one-out criterion along a grid of `lambda`, and this ",
             "fit has one value, ", format(object$lambda), ": fit without `lambda` (the parsnip ",
             "engine without `penalty`) for the curve, or see coef(fit, lambda = <values>) for ",
             "the coefficients along a path")
  }
  if (isTRUE(object$per_response)) return(autoplot_responses(object))
  path <- criterion_curve(object$path, object$criterion)
  path$x <- lambda_x(path$lambda)
  marks <- data.frame(x = lambda_x(c(object$lambda_min, object$lambda_1se), path$lambda),
                      which = rep(c("lambda_min", "lambda_1se"), each = length(object$lambda_min)))
  pos <- path[path$lambda > 0, ]
  # the standard errors where there are some (GCV has none), a line where
  # there are two points to join, the lone points as points (each of these
  # drawn on nothing was a warning of ggplot2's or of min() and max())
  has_se <- any(is.finite(path$se))
  alone <- path[path$lambda == 0 | nrow(pos) == 1L, ]
  bars <- ggplot2::aes(ymin = .data$cvm - .data$se, ymax = .data$cvm + .data$se)
  ggplot2::ggplot(path, ggplot2::aes(x = .data$x, y = .data$cvm)) +
    list(
      if (has_se && nrow(pos) > 1L) {
        ggplot2::geom_ribbon(data = pos, ggplot2::aes(ymin = .data$cvm - .data$se,
                                                      ymax = .data$cvm + .data$se, fill = "\u00b1 1 SE"),
                             alpha = 0.35)
      },
      if (nrow(pos) > 1L) ggplot2::geom_line(data = pos),
      if (has_se) ggplot2::geom_pointrange(data = alone, bars) else ggplot2::geom_point(data = alone)
    ) +
    ggplot2::geom_vline(data = marks, ggplot2::aes(xintercept = .data$x, colour = .data$which),
                        linetype = 2) +
    lambda_scale(path$lambda) +
    ggplot2::scale_fill_manual(values = stats::setNames("grey50", "\u00b1 1 SE")) +
    ggplot2::scale_colour_manual(values = c(lambda_min = "firebrick", lambda_1se = "steelblue")) +
    ggplot2::labs(x = "log10(lambda)", y = criterion_label(object$criterion, object$cv), colour = NULL,
                  fill = NULL)
}

# autoplot() of a fit with one lambda per response column, as plot() draws
# it: each column's own squared error, which chose its lambdas, in its
# colour, with its lambda_min (dashed) and lambda_1se (dotted).  (The fit's
# criterion curve with every column's lambdas on it named none of them.)
autoplot_responses <- function(object) {
  responses <- names(object$index_min)
  curves <- criterion_curves(object$path, paste0("mse_", responses))
  path <- do.call(rbind, Map(function(curve, r) {
    data.frame(lambda = curve$lambda, cvm = curve$cvm, response = r)
  }, curves, responses))
  path$response <- factor(path$response, levels = responses)
  path$x <- lambda_x(path$lambda, object$lambda)
  marks <- data.frame(x = lambda_x(c(object$lambda_min, object$lambda_1se), object$lambda),
                      response = factor(rep(responses, 2L), levels = responses),
                      which = rep(c("lambda_min", "lambda_1se"), each = length(responses)))
  pos <- path[path$lambda > 0, ]
  several <- length(unique(pos$lambda)) > 1L
  ggplot2::ggplot(path, ggplot2::aes(x = .data$x, y = .data$cvm, colour = .data$response)) +
    list(if (several) ggplot2::geom_line(data = pos),
         ggplot2::geom_point(data = path[path$lambda == 0 | !several, ])) +
    ggplot2::geom_vline(data = marks, ggplot2::aes(xintercept = .data$x, colour = .data$response,
                                                   linetype = .data$which)) +
    lambda_scale(object$lambda) +
    ggplot2::scale_linetype_manual(values = c(lambda_min = 2, lambda_1se = 3)) +
    ggplot2::labs(x = "log10(lambda)", y = criterion_label("mse", object$cv),
                  colour = if (object$type == "classification") "class" else "response", linetype = NULL)
}

# The x axis of autoplot(): log10(lambda) at pretty values of the positive
# lambdas, and lambda = 0 (least squares) at the left, labelled "-Inf".
lambda_scale <- function(lambda) {
  positive <- lambda[lambda > 0]
  breaks <- numeric()
  if (length(positive)) {
    span <- range(log10(positive))
    breaks <- pretty(span)
    breaks <- breaks[breaks >= span[1L] - 1e-8 & breaks <= span[2L] + 1e-8]
  }
  labels <- format(breaks, trim = TRUE)
  if (any(lambda == 0)) {   # log10(0)
    breaks <- c(zero_x(lambda), breaks)
    labels <- c("-Inf", labels)
  }
  ggplot2::scale_x_continuous(breaks = breaks, labels = labels)
}
