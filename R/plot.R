#' Plot the leave-one-out criterion or the coefficient paths
#'
#' `type = "criterion"` draws the exact LOO criterion against
#' \eqn{\log_{10}\lambda} with a band of one standard error, dashed vertical
#' lines at `lambda_min` and `lambda_1se`, and the effective degrees of freedom
#' on the top axis. `type = "coef"` draws the coefficient paths (for one
#' response column or class, chosen by `response`).
#'
#' @param x an [rlsc()] fit.
#' @param type `"criterion"` or `"coef"`.
#' @param response for `type = "coef"`, the response column or class whose
#'   coefficients to draw (name or number).
#' @param xlab,ylab axis labels.
#' @param main a title, drawn above the degrees-of-freedom axis.
#' @param ... further graphical arguments passed to [graphics::plot()] or
#'   [graphics::matplot()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ ., data = mtcars)
#' plot(fit)
#' plot(fit, type = "coef")
plot.rlsc <- function(x, type = c("criterion", "coef"), response = 1L,
                      xlab = expression(log[10](lambda)), ylab = NULL, main = NULL, ...) {
  validate_rlsc(x)
  type <- match.arg(type)
  if (type == "coef") return(plot_coef(x, response, xlab, ylab, main, ...))
  ok <- !is.na(x$cvm) & x$lambda > 0
  if (!any(ok)) {
    stop_arg("nothing to plot: the fit has no `lambda` > 0 with a defined criterion")
  }
  ll <- log10(x$lambda[ok])
  lo <- x$cvm[ok] - x$cvsd[ok]
  hi <- x$cvm[ok] + x$cvsd[ok]
  graphics::plot(ll, x$cvm[ok], type = "n", xlab = xlab,
                 ylab = ylab %||% criterion_label(x$criterion),
                 ylim = range(lo, hi, na.rm = TRUE), ...)
  graphics::polygon(c(ll, rev(ll)), c(lo, rev(hi)), border = NA,
                    col = grDevices::adjustcolor("grey", 0.4))
  graphics::lines(ll, x$cvm[ok], lwd = 2)
  mark_lambdas(x)
  df_axis(ll, x$df[ok], main)
  invisible(x)
}

mark_lambdas <- function(x, where = "topleft") {
  graphics::abline(v = log10(c(x$lambda_min, x$lambda_1se)), lty = 2,
                   col = c("firebrick", "steelblue"))
  graphics::legend(where, c("lambda_min", "lambda_1se"), lty = 2,
                   col = c("firebrick", "steelblue"), bty = "n")
}

# Effective degrees of freedom on the top axis, at about six grid points; the
# title goes above that axis and its label.
df_axis <- function(ll, df, main = NULL) {
  at <- unique(round(seq(1, length(ll), length.out = min(6L, length(ll)))))
  graphics::axis(3, at = ll[at], labels = formatC(df[at], digits = 2, format = "fg"))
  graphics::mtext("effective degrees of freedom", side = 3, line = 1.9, cex = 0.8)
  if (!is.null(main)) graphics::title(main = main, line = 3)
}

plot_coef <- function(x, response, xlab, ylab, main = NULL, ...) {
  if (!x$nvars) stop_arg("nothing to plot: the fit has no coefficients besides the intercept")
  beta <- coef_path(x)
  if (!(response %in% seq_len(dim(beta)[3L]) || response %in% dimnames(beta)[[3L]])) {
    stop_arg("`response` must be one of ", paste(dimnames(beta)[[3L]], collapse = ", "),
             " or a number up to ", dim(beta)[3L], ", not ", format(response))
  }
  b <- matrix(beta[, , response], x$nvars)   # d x L, also for d = 1
  ok <- x$lambda > 0
  ll <- log10(x$lambda[ok])
  graphics::matplot(ll, t(b[, ok, drop = FALSE]), type = "l", lty = 1, xlab = xlab,
                    ylab = ylab %||% "coefficient", ...)
  graphics::abline(h = 0, col = "grey")
  # name each path at its least penalized end, where the paths are apart
  graphics::text(ll[length(ll)], b[, ok, drop = FALSE][, length(ll)], x$xnames, pos = 4,
                 cex = 0.7, xpd = NA)
  mark_lambdas(x, "topright")   # the paths shrink to 0 there
  df_axis(ll, x$df[ok], main)
  invisible(x)
}

# Slopes for every lambda of the grid: a d x L x T array.
coef_path <- function(object) {
  cf <- vapply(object$lambda, function(l) {
    as.matrix(coef(object, lambda = l))[-1L, , drop = FALSE]
  }, matrix(0, object$nvars, ncol(object$y)))
  cf <- array(cf, c(object$nvars, ncol(object$y), length(object$lambda)))
  cf <- aperm(cf, c(1L, 3L, 2L))
  dimnames(cf) <- list(object$xnames, NULL, response_names(object))
  cf
}

#' @rdname plot.rlsc
#' @export
plot.rlsc_kernel_fit <- function(x, type = c("criterion", "coef"), response = 1L,
                                 xlab = expression(log[10](lambda)), ylab = NULL, main = NULL,
                                 ...) {
  validate_rlsc(x)
  type <- match.arg(type)
  if (type == "coef") {
    stop_arg("`type` = \"coef\" needs a linear fit: a kernel fit has one dual coefficient ",
             "per training row (see coef())")
  }
  grid <- x$kernel_grid
  if (is.null(grid) || nrow(grid) == 1L) return(NextMethod())
  tab <- x$kernel_path
  ok <- !is.na(tab[[x$criterion]]) & tab$lambda > 0
  if (!any(ok)) {
    stop_arg("nothing to plot: the fit has no `lambda` > 0 with a defined criterion")
  }
  setting <- rep(seq_len(nrow(grid)), each = length(x$lambda))
  cols <- grDevices::hcl.colors(nrow(grid), "Dark 3")
  # up to the criterion at the largest lambda (near the intercept-only model):
  # curves that blow up at small lambda are cut off instead of flattening the rest
  crit <- tab[[x$criterion]]
  top <- max(crit[ok & !duplicated(setting)], x$cvm[x$index_1se], na.rm = TRUE)
  graphics::plot(log10(tab$lambda[ok]), crit[ok], type = "n", xlab = xlab,
                 ylab = ylab %||% criterion_label(x$criterion), ylim = c(min(crit[ok]), top),
                 main = main, ...)
  chosen <- x$index_kernel
  for (i in seq_len(nrow(grid))) {
    rows <- which(ok & setting == i)
    graphics::lines(log10(tab$lambda[rows]), crit[rows], col = cols[i],
                    lwd = if (i %in% chosen) 3 else 1)
  }
  graphics::abline(v = log10(c(x$lambda_min, x$lambda_1se)), lty = 2,
                   col = c("firebrick", "steelblue"))
  labels <- vapply(seq_len(nrow(grid)), function(i) {
    format_params(as.list(grid[i, , drop = FALSE]))
  }, "")
  graphics::legend("topleft", labels, col = cols, lwd = ifelse(seq_along(labels) %in% chosen, 3, 1),
                   bty = "n", cex = 0.8)
  invisible(x)
}

#' A ggplot2 version of the lambda-selection plot
#'
#' @param object an [rlsc()] fit.
#' @param ... not used.
#' @return A `ggplot` object: the LOO criterion against \eqn{\lambda} (log
#'   scale) with a one-standard-error ribbon and `lambda_min`, `lambda_1se`
#'   marked.
#' @exportS3Method ggplot2::autoplot
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' ggplot2::autoplot(rlsc(mpg ~ ., data = mtcars))
autoplot.rlsc <- function(object, ...) {
  check_no_dots(...)
  path <- object$path[!is.na(object$cvm) & object$lambda > 0, ]
  path$criterion <- path[[object$criterion]]
  path$se <- path[[paste0(object$criterion, "_se")]]
  marks <- data.frame(lambda = c(object$lambda_min, object$lambda_1se),
                      which = c("lambda_min", "lambda_1se"))
  ggplot2::ggplot(path, ggplot2::aes(x = .data$lambda, y = .data$criterion)) +
    ggplot2::geom_ribbon(ggplot2::aes(ymin = .data$criterion - .data$se,
                                      ymax = .data$criterion + .data$se), alpha = 0.25) +
    ggplot2::geom_line() +
    ggplot2::geom_vline(data = marks, ggplot2::aes(xintercept = .data$lambda,
                                                   colour = .data$which), linetype = 2) +
    ggplot2::scale_x_log10() +
    ggplot2::scale_colour_manual(values = c(lambda_min = "firebrick", lambda_1se = "steelblue")) +
    ggplot2::labs(x = "lambda", y = criterion_label(object$criterion), colour = NULL)
}
