#' Plot the leave-one-out criterion or the coefficient paths
#'
#' `type = "criterion"` draws the exact LOO criterion against
#' \eqn{\log_{10}\lambda} with a band of one standard error, dashed vertical
#' lines at `lambda_min` and `lambda_1se`, and the effective degrees of freedom
#' on the top axis. `type = "coef"` draws the coefficient paths on the same
#' axis, in the same direction (\eqn{\lambda} grows to the right), each named
#' at its least penalized (left) end, as glmnet's plot does.
#'
#' The legend sits in a strip above the curves, so that it covers neither
#' them nor the lines at `lambda_min` and `lambda_1se`, and it lists only what
#' is drawn: no band where the criterion has no standard error (GCV, a
#' `criterion` function) and one line where `lambda_1se` is `lambda_min`.
#' \eqn{\lambda = 0} (least squares, the last value of the default grid when
#' it is defined) has no finite logarithm: it is drawn as a point with its
#' error bar (a bar in the colour of the band) at the left end of the axis,
#' labelled \eqn{-\infty}, behind a break in the axis. A fit with a single
#' \eqn{\lambda} is drawn as a point with its error bar.
#'
#' A fit with one \eqn{\lambda} per response column (`per_response = TRUE`)
#' draws one curve per column, named in the legend, each with its band and
#' its own `lambda_min` (dashed) and `lambda_1se` (dotted) in its colour.
#' With several response columns or classes, `type = "coef"` draws one panel
#' per column (at most nine; `response` chooses), each titled with the name of
#' its response column or class.
#'
#' For kernel fits with several kernel settings, `type = "criterion"` draws
#' one curve per setting (the chosen one thicker, with its band and its
#' degrees of freedom on the top axis), on a logarithmic criterion axis when
#' the curves span more than a factor of ten; `type = "heatmap"` draws the
#' criterion over the kernel settings (rows) and \eqn{\lambda} (columns), the
#' chosen pair marked by a cross and each setting's minimum by a circle.
#'
#' @param x an [rlsc()] fit.
#' @param type `"criterion"` or `"coef"`; for kernel fits `"criterion"` or
#'   `"heatmap"`.
#' @param response for `type = "coef"`, the response columns or classes whose
#'   coefficients to draw, by name or number, one panel each; by default all
#'   of them (the first nine when there are more).
#' @param xlab,ylab axis labels.
#' @param main a title, drawn above the degrees-of-freedom axis (above the
#'   panels when there are several).
#' @param ... further graphical arguments passed to [graphics::plot()] (for
#'   example `ylim`, `log` or `cex.axis`; `col` sets the colours of the
#'   coefficient paths).
#' @return `x`, invisibly.
#' @export
#' @examples
#' fit <- rlsc(mpg ~ ., data = mtcars, standardize = TRUE)
#' plot(fit)
#' plot(fit, type = "coef")
#' cl <- rlsc(Species ~ ., data = iris)
#' plot(cl, type = "coef")                         # a panel per class
#' plot(cl, type = "coef", response = "virginica")
#' kf <- rlsc(mpg ~ ., data = mtcars, standardize = TRUE,
#'            kernel = kernel_rbf(sigma = c(2, 4, 8, 16)))
#' plot(kf)
#' plot(kf, type = "heatmap")
plot.rlsc <- function(x, type = c("criterion", "coef"), response = NULL,
                      xlab = expression(log[10](lambda)), ylab = NULL, main = NULL, ...) {
  validate_rlsc(x)
  type <- match.arg(type)
  if (type == "coef") return(plot_coef(x, response, xlab, ylab, main, ...))
  if (x$per_response) {   # one curve per response column, each with its own lambdas
    responses <- names(x$index_min)
    curves <- criterion_curves(x$path, paste0("mse_", responses))
    draw_criterion(x, curves, seq_along(curves), responses, xlab,
                   ylab %||% criterion_label("mse", x$cv), main, ...)
    return(invisible(x))
  }
  curve <- criterion_curve(x$path, x$criterion)
  draw_criterion(x, list(curve), 1L, NULL, xlab, ylab, main, ...)
  invisible(x)
}

#' @rdname plot.rlsc
#' @export
plot.rlsc_kernel_fit <- function(x, type = c("criterion", "heatmap", "coef"), response = NULL,
                                 xlab = expression(log[10](lambda)), ylab = NULL, main = NULL,
                                 ...) {
  validate_rlsc(x)
  type <- match.arg(type)
  if (type == "coef") {
    stop_arg("`type` = \"coef\" needs a linear fit: a kernel fit has one dual coefficient ",
             "per training row (see coef())")
  }
  if (type == "heatmap") return(plot_heatmap(x, xlab, ylab, main, ...))
  grid <- x$kernel_grid
  if (is.null(grid) || nrow(grid) == 1L) return(NextMethod(type = "criterion"))
  draw_criterion(x, kernel_curves(x), x$index_kernel, setting_labels(grid), xlab, ylab, main, ...)
  invisible(x)
}

# The rows of a LOO table with a defined criterion: lambda, the criterion, its
# standard error and df.
criterion_curve <- function(path, criterion) criterion_curves(path, criterion)[[1L]]

# The same for several criteria (the mse_<response> columns of a
# per-response fit): their columns by one match() (`[[` by name scans the
# table's names, for each of thousands of response columns) into light
# frames (validation_frame(): data.frame() checks every column).
criterion_curves <- function(path, criteria) {
  tab <- unclass(path)
  unname(Map(function(cvm, se) {
    ok <- !is.na(cvm)
    validation_frame(list(lambda = tab$lambda[ok], cvm = cvm[ok], se = se[ok], df = tab$df[ok]), sum(ok))
  }, tab[criteria], tab[paste0(criteria, "_se")]))
}

# One criterion curve per kernel setting, from the LOO table over the whole grid.
kernel_curves <- function(x) {
  tab <- x$kernel_path
  setting <- rep(seq_len(nrow(x$kernel_grid)), each = nrow(tab) / nrow(x$kernel_grid))
  lapply(split(tab, setting), criterion_curve, x$criterion)
}

setting_labels <- function(grid) {
  vapply(seq_len(nrow(grid)), function(i) format_params(as.list(grid[i, , drop = FALSE])), "")
}

# The criterion plot of linear and kernel fits alike: one curve per setting
# (one for a linear fit, one per response column with per_response), the band
# of one standard error around the curves `banded` (the chosen setting, or
# every response column, each in its colour), the lines at lambda_min and
# lambda_1se, the degrees of freedom on top, and a legend of what is drawn in
# a strip above the curves.
draw_criterion <- function(x, curves, banded, labels, xlab, ylab, main, ...) {
  several <- length(curves) > 1L
  own <- isTRUE(x$per_response)   # each curve has its own lambdas
  chosen <- banded[1L]
  cols <- if (several) grDevices::hcl.colors(length(curves), "Dark 3") else "black"
  lwd <- if (!several) 2 else if (own) rep(1.5, length(curves)) else
    ifelse(seq_along(curves) == chosen, 2.5, 1)
  band_col <- if (own) grDevices::adjustcolor(cols, 0.2) else
    rep(grDevices::adjustcolor("grey", 0.45), length(curves))
  # a band only where the criterion has standard errors (not GCV, not a function)
  banded <- banded[vapply(curves[banded], function(cv) any(is.finite(cv$se)), NA)]
  lo <- lapply(curves, function(cv) cv$cvm - cv$se)
  hi <- lapply(curves, function(cv) cv$cvm + cv$se)
  values <- c(unlist(lapply(curves, `[[`, "cvm")), unlist(lo[banded]), unlist(hi[banded]))
  values <- values[is.finite(values)]
  # lambda_1se is drawn where it differs from lambda_min (GCV has none)
  marks <- selection_marks(x, if (own) cols else NULL)
  dots <- list(...)
  # curves over more than a decade (kernel settings that overfit at small
  # lambda, response columns on different scales) on a log axis, so that
  # none is cut off and none flattens the rest
  log_y <- dots$log %||% if (several && x$criterion %in% c("mse", "misclass") && min(values) > 0 &&
                            max(values) > 10 * min(values)) "y" else ""
  if (grepl("y", log_y)) values <- values[values > 0]
  legend <- criterion_legend(x, curves, chosen, labels, cols, lwd, banded, band_col, marks, own)
  all_lambda <- unlist(lapply(curves, `[[`, "lambda"))
  xlim <- dots$xlim %||% padded_range(lambda_x(all_lambda))
  ylim <- dots$ylim %||% legend_room(range(values), legend, grepl("y", log_y))
  dots$xlim <- dots$ylim <- dots$log <- NULL
  do.call(graphics::plot, c(list(x = xlim, y = ylim, type = "n", xlab = xlab, xaxt = "n",
                                 ylab = ylab %||% criterion_label(x$criterion, x$cv), log = log_y,
                                 xlim = xlim, ylim = ylim), dots))
  lambda_axis(all_lambda)
  for (i in banded) draw_band(curves[[i]], lo[[i]], hi[[i]], all_lambda, band_col[i])
  for (i in seq_along(curves)) draw_curve(curves[[i]], all_lambda, cols[i], lwd[i])
  graphics::segments(lambda_x(marks$lambda, all_lambda), bottom_y(), lambda_x(marks$lambda, all_lambda),
                     max(values), lty = marks$lty, col = marks$col)
  draw_legend(legend)
  df_axis(lambda_x(curves[[chosen]]$lambda, all_lambda), curves[[chosen]]$df, main)
}

# The vertical lines at lambda_min and lambda_1se: one pair, or one per
# response column in its colour (`cols`); lambda_1se only where it differs.
selection_marks <- function(x, cols = NULL) {
  k <- length(x$lambda_min)
  col_min <- if (is.null(cols)) rep("firebrick", k) else cols
  col_1se <- if (is.null(cols)) rep("steelblue", k) else cols
  differ <- x$lambda_1se != x$lambda_min
  data.frame(lambda = c(x$lambda_min, x$lambda_1se[differ]),
             col = c(col_min, col_1se[differ]),
             lty = c(rep(2, k), rep(if (is.null(cols)) 2 else 3, sum(differ))),
             which = c(rep("lambda_min", k), rep("lambda_1se", sum(differ))))
}

# The legend of the criterion plot: the curves, then the band and the lines
# when they are drawn.
criterion_legend <- function(x, curves, chosen, labels, cols, lwd, banded, band_col, marks, own) {
  n <- length(curves)
  single <- nrow(curves[[chosen]]) == 1L
  legend <- list(legend = if (n > 1L) labels else criterion_label(x$criterion, x$cv),
                 col = cols, lty = rep(1, n), lwd = lwd, pch = rep(if (single) 19 else NA, n),
                 fill = rep(NA, n), border = rep(NA, n))
  add <- function(legend, label, col = NA, lty = NA, fill = NA) {
    Map(c, legend, list(label, col, lty, if (is.na(lty)) NA else 1, NA, fill, NA))
  }
  if (length(banded)) {
    legend <- add(legend, "\u00b1 1 SE", fill = if (own) grDevices::adjustcolor("grey40", 0.3) else band_col[1L])
  }
  neutral <- if (own) "grey30"
  legend <- add(legend, "lambda_min", neutral %||% "firebrick", 2)
  if (any(marks$which == "lambda_1se")) {
    legend <- add(legend, "lambda_1se", neutral %||% "steelblue", if (own) 3 else 2)
  }
  legend
}

# A curve's band of one standard error: a polygon over lambda > 0, a bar of
# the band's colour at a point alone (lambda = 0, or a single lambda).
draw_band <- function(curve, lo, hi, all_lambda, col) {
  xs <- lambda_x(curve$lambda, all_lambda)
  pos <- curve$lambda > 0 & is.finite(lo) & is.finite(hi)
  if (sum(pos) > 1L) {
    graphics::polygon(c(xs[pos], rev(xs[pos])), c(lo[pos], rev(hi[pos])), border = NA, col = col)
  }
  single <- (if (sum(pos) == 1L) pos else curve$lambda == 0) & is.finite(lo) & is.finite(hi)
  if (any(single)) {
    graphics::segments(xs[single], lo[single], xs[single], hi[single], col = col, lwd = 10,
                       lend = "butt")
  }
}

# One curve: a line over lambda > 0, and lambda = 0 as a point joined to it by
# a dotted line across the axis break (a point alone when it is all there is).
draw_curve <- function(curve, all_lambda, col, lwd) {
  xs <- lambda_x(curve$lambda, all_lambda)
  pos <- curve$lambda > 0
  if (sum(pos) > 1L) graphics::lines(xs[pos], curve$cvm[pos], col = col, lwd = lwd)
  if (sum(pos) == 1L) graphics::points(xs[pos], curve$cvm[pos], col = col, pch = 19)
  if (any(!pos)) {
    graphics::points(xs[!pos], curve$cvm[!pos], col = col, pch = 19, cex = 0.8)
    if (any(pos)) {
      last <- which(pos)[which.min(curve$lambda[pos])]
      graphics::segments(xs[last], curve$cvm[last], xs[!pos], curve$cvm[!pos], col = col, lty = 3)
    }
  }
}

# x positions on the log10(lambda) axis: lambda = 0 (log10 = -Inf) sits left
# of the smallest positive value of `all`, an eighth of the axis (at least half
# a decade) away.
lambda_x <- function(lambda, all = lambda) {
  out <- suppressWarnings(log10(lambda))
  if (any(lambda == 0)) out[lambda == 0] <- zero_x(all)
  out
}

zero_x <- function(all) {
  ll <- log10(all[all > 0])
  if (!length(ll)) return(0)
  min(ll) - max(diff(range(ll)) / 8, 0.5)
}

padded_range <- function(xs) {
  r <- range(xs)
  if (diff(r) == 0) r + c(-1, 1) else r
}

# The bottom axis in log10(lambda), with a tick "-Inf" (log10 of lambda = 0)
# behind a break mark, and no tick left of `from`.  A tick whose label would
# come within two characters of the "-Inf" label is left out.
lambda_axis <- function(all, side = 1L, from = -Inf) {
  at <- graphics::axTicks(side)
  at <- at[at >= from - 1e-8]
  if (!any(all == 0)) return(graphics::axis(side, at = at))
  z <- zero_x(all)
  pos <- all[all > 0]
  if (!length(pos)) return(graphics::axis(side, at = z, labels = expression(-infinity)))
  cut <- (z + log10(min(pos))) / 2
  width <- function(s) abs(graphics::strwidth(s, cex = graphics::par("cex.axis")))
  at <- at[at > cut]
  at <- at[at - width(format(at)) / 2 > z + width(expression(-infinity)) / 2 + 2 * width("m")]
  graphics::axis(side, at = c(z, at), labels = c(expression(-infinity), format(at)))
  axis_break(cut)
}

# The bottom of the plot region in user coordinates (also on a log axis).
bottom_y <- function() graphics::grconvertY(0, "npc", "user")

# Two short slanted strokes across the bottom of the box, the axis cut between.
axis_break <- function(x) {
  ys <- graphics::grconvertY(c(-0.02, 0.02), "npc", "user")
  dx <- abs(graphics::strwidth("m")) / 3
  bg <- graphics::par("bg")
  graphics::rect(x - dx, ys[1L], x + dx, ys[2L], border = NA, xpd = NA,
                 col = if (identical(bg, "transparent")) "white" else bg)
  for (s in c(-1, 1)) {
    graphics::segments(x + s * dx - dx / 2, ys[1L], x + s * dx + dx / 2, ys[2L], xpd = NA)
  }
}

# A y range with room above the data for the legend strip: the legend's
# height (in inches, from the device's character size) as a share of the plot
# region.
legend_room <- function(range, legend, log = FALSE, cex = 1) {
  rows <- legend_rows(legend, cex)
  share <- min(0.5, (rows + 1) * 1.1 * graphics::par("cin")[2L] * cex / graphics::par("pin")[2L])
  r <- if (log) log10(range) else range
  if (diff(r) == 0) r <- r + c(-1, 1) * max(abs(r[1L]) * 0.1, 0.1)
  top <- r[2L] + diff(r) * share / (1 - share)
  out <- c(r[1L], top)
  if (log) 10^out else out
}

# How many columns the legend can have across the plot, and so how many rows.
legend_columns <- function(legend, cex = 1) {
  width <- max(graphics::strwidth(legend$legend, units = "inches", cex = cex)) +
    3.5 * graphics::par("cin")[1L] * cex
  max(1L, min(length(legend$legend), floor(0.96 * graphics::par("pin")[1L] / width)))
}

legend_rows <- function(legend, cex = 1) {
  ceiling(length(legend$legend) / legend_columns(legend, cex))
}

draw_legend <- function(legend, cex = 1) {
  do.call(graphics::legend, c(list("top", ncol = legend_columns(legend, cex), bty = "n",
                                   cex = cex, inset = 0.01, x.intersp = 0.7), legend))
}

# Effective degrees of freedom on the top axis, at about six grid points; the
# title goes above that axis and its label.
df_axis <- function(xs, df, main = NULL) {
  at <- unique(round(seq(1, length(xs), length.out = min(6L, length(xs)))))
  graphics::axis(3, at = xs[at], labels = formatC(df[at], digits = 2, format = "fg"))
  graphics::mtext("effective degrees of freedom", side = 3, line = 1.9, cex = 0.8)
  if (!is.null(main)) graphics::title(main = main, line = 3)
}
