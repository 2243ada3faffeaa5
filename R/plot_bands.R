#' Plot the band weights of a banded fit
#'
#' For a fit with `bands` ([rlsc()]), `type = "weights"` (the default) draws
#' the chosen weight of each group of columns for each response column as a
#' stacked bar (the bars sum to 1); `type = "criterion"` and `type = "coef"`
#' are those of [plot.rlsc()].
#'
#' @param x a banded [rlsc()] fit (class `rlsc_banded_fit`).
#' @param type `"weights"`, `"criterion"` or `"coef"`.
#' @param response for `type = "coef"`, the response column.
#' @param order for `type = "weights"`, the order of the response columns:
#'   `"band"` (grouped by their largest band, then by its weight) or
#'   `"given"`.
#' @param col the colours of the groups.
#' @param xlab,ylab,main axis labels and title.
#' @param ... further graphical arguments for [graphics::barplot()] or
#'   [plot.rlsc()].
#' @return `x`, invisibly.
#' @seealso [rlsc()] for `bands`.
#' @export
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(100 * 6), 100)
#' y <- cbind(first = x[, 1] + rnorm(100), last = x[, 6] + rnorm(100))
#' fit <- rlsc(x, y, bands = rep(c("a", "b", "c"), each = 2), n_candidates = 20)
#' fit$band_weights
#' plot(fit)
plot.rlsc_banded_fit <- function(x, type = c("weights", "criterion", "coef"), response = 1L,
                                 order = c("band", "given"), col = NULL, xlab = NULL,
                                 ylab = "band weight", main = NULL, ...) {
  validate_rlsc(x)
  type <- match.arg(type)
  if (type != "weights") {
    # (plot.rlsc() itself, not NextMethod(), which passes this call's
    # arguments on again: a type given by position, plot(fit, "coef"),
    # reached the panels as a graphical argument, "invalid 'cex' value")
    return(plot.rlsc(x, type = type, response = response, xlab = xlab %||% expression(log[10](lambda)),
                     ylab = if (missing(ylab)) NULL else ylab, main = main, ...))
  }
  order <- match.arg(order)
  w <- x$band_weights
  g <- nrow(w)
  if (order == "band") {
    top <- max.col(t(w), "first")
    w <- w[, base::order(top, -w[cbind(top, seq_len(ncol(w)))]), drop = FALSE]
  }
  col <- col %||% grDevices::hcl.colors(g, "Dark 3")
  many <- ncol(w) > 40L
  # the names stand under their bars (las = 2): the axis label goes below the
  # longest one, not across them
  names <- if (many) character() else colnames(w)
  below <- if (length(names)) max(graphics::strwidth(names, "inches")) / graphics::par("csi") else 0
  old <- graphics::par(mar = c(max(4, below + 3), 4, 4, 1))
  on.exit(graphics::par(old))
  graphics::barplot(w, col = col, border = if (many) NA else "white", space = if (many) 0 else 0.2,
                    names.arg = if (many) rep("", ncol(w)) else colnames(w), ylim = c(0, 1),
                    ylab = ylab, main = main, las = if (many) 1 else 2, ...)
  graphics::title(xlab = xlab %||% paste0("response column (", ncol(w), ")"), line = max(3, below + 1.8))
  graphics::legend("bottom", inset = c(0, 1), xpd = TRUE, horiz = TRUE, bty = "n",
                   fill = col, legend = rownames(w), cex = 0.9)
  invisible(x)
}
