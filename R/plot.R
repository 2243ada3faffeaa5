#' Plot the leave-one-out criterion against lambda
#'
#' The exact LOO criterion against \eqn{\log_{10}\lambda} with a band of one
#' standard error, and dashed vertical lines at `lambda_min` and `lambda_1se`.
#'
#' @param x an [rlsc()] fit.
#' @param xlab,ylab axis labels.
#' @param ... further graphical arguments passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' fit <- rlsc(as.matrix(mtcars[, -1]), mtcars$mpg)
#' plot(fit)
plot.rlsc <- function(x, xlab = expression(log[10](lambda)),
                      ylab = criterion_label(x$criterion), ...) {
  ok <- !is.na(x$cvm) & x$lambda > 0
  if (!any(ok)) {
    stop_arg("nothing to plot: the fit has no `lambda` > 0 with a defined criterion")
  }
  ll <- log10(x$lambda[ok])
  lo <- x$cvm[ok] - x$cvsd[ok]
  hi <- x$cvm[ok] + x$cvsd[ok]
  graphics::plot(ll, x$cvm[ok], type = "n", xlab = xlab, ylab = ylab,
                 ylim = range(lo, hi, na.rm = TRUE), ...)
  graphics::polygon(c(ll, rev(ll)), c(lo, rev(hi)), col = grDevices::adjustcolor("grey", 0.4),
                    border = NA)
  graphics::lines(ll, x$cvm[ok], lwd = 2)
  graphics::abline(v = log10(c(x$lambda_min, x$lambda_1se)), lty = 2,
                   col = c("firebrick", "steelblue"))
  graphics::legend("topleft", c("lambda_min", "lambda_1se"), lty = 2,
                   col = c("firebrick", "steelblue"), bty = "n")
  invisible(x)
}
