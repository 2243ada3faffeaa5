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

# Coefficient paths against log10(lambda), in the direction of the criterion
# plot: one panel per response column or class (titled with its name) when
# there are several.
plot_coef <- function(x, response, xlab, ylab, main = NULL, ...) {
  if (!x$nvars) stop_arg("nothing to plot: the fit has no coefficients besides the intercept")
  names <- response_names(x$y)
  which <- coef_panels(response, names)
  beta <- coef_path(x, which)   # the drawn columns only
  if (length(which) == 1L) {
    title <- if (length(names) > 1L) paste(c(main, panel_title(x, names[which])), collapse = ": ")
    coef_panel(x, beta[, , 1L], which, xlab, ylab, title %||% main, ...)
    return(invisible(x))
  }
  # smaller margins and legend than a single plot's, so that the curves keep
  # most of each panel
  old <- graphics::par(mfrow = panel_grid(length(which)), mar = c(3.6, 3.6, 4.6, 1),
                       mgp = c(2.2, 0.7, 0), oma = c(0, 0, if (is.null(main)) 0 else 2, 0))
  on.exit(graphics::par(old))
  for (k in seq_along(which)) {
    coef_panel(x, beta[, , k], which[k], xlab, ylab, panel_title(x, names[which[k]]), legend_cex = 0.8, ...)
  }
  if (!is.null(main)) graphics::mtext(main, side = 3, outer = TRUE, font = 2, cex = 1.2)
  invisible(x)
}

# The response columns `response` names (all, up to nine, when NULL).
coef_panels <- function(response, names) {
  if (is.null(response)) {
    if (length(names) > 9L) {
      message("drawing the coefficients of the first 9 of ", length(names), " response columns; ",
              "`response` chooses others")
    }
    return(seq_len(min(length(names), 9L)))
  }
  hit <- if (is.numeric(response)) match(response, seq_along(names)) else match(response, names)
  if (!length(response) || anyNA(hit)) {
    stop_arg("`response` must be one or more of ", paste(names, collapse = ", "),
             " or numbers up to ", length(names), ", not ", paste(format(response), collapse = ", "))
  }
  hit
}

# Rows and columns for k panels on the current device: the layout whose
# panels are largest, counting a panel by its height or two thirds of its
# width, whichever is smaller (a panel about 1.5 times as wide as high).
panel_grid <- function(k) {
  din <- graphics::par("din")
  ncol <- seq_len(k)
  nrow <- ceiling(k / ncol)
  size <- pmin(din[1L] / ncol / 1.5, din[2L] / nrow)
  best <- which.max(size)
  c(nrow[best], ncol[best])
}

panel_title <- function(x, name) {
  if (x$type == "classification") paste("class", name) else name
}

# One panel of coefficient paths, from the least penalized end (left, where
# the paths are apart and each is named, at distinct heights joined to its
# path by a thin line) to the most penalized (right), with that response
# column's lambda_min and lambda_1se.
coef_panel <- function(x, beta, which, xlab, ylab, main, legend_cex = 1, ...) {
  b <- matrix(beta, x$nvars)   # d x L, also for d = 1
  dots <- list(...)
  cols <- rep_len(dots$col %||% grDevices::hcl.colors(x$nvars, "Dark 3"), x$nvars)
  dots$col <- NULL
  xs <- lambda_x(x$lambda)
  left <- which.min(x$lambda)   # the least penalized end
  k <- if (length(x$lambda_min) > 1L) which else 1L
  marks <- selection_marks(list(lambda_min = x$lambda_min[k], lambda_1se = x$lambda_1se[k]))
  legend <- list(legend = marks$which, col = marks$col, lty = marks$lty)
  ylim <- dots$ylim %||% legend_room(range(b, 0), legend, cex = legend_cex)
  # room at the left for the names: their width as a share of the plot region
  cex <- 0.7
  share <- min(0.4, (max(graphics::strwidth(x$xnames, "inches", cex = cex)) + 0.15) /
                 graphics::par("pin")[1L])
  span <- padded_range(xs)
  xlim <- dots$xlim %||% c(span[1L] - diff(span) * share / (1 - share), span[2L])
  dots$xlim <- dots$ylim <- NULL
  do.call(graphics::plot, c(list(x = span, y = ylim, type = "n", xlab = xlab, xaxt = "n",
                                 ylab = ylab %||% "coefficient", xlim = xlim, ylim = ylim), dots))
  lambda_axis(x$lambda, from = min(xs))
  graphics::abline(h = 0, col = "grey")
  pos <- x$lambda > 0
  for (j in seq_len(x$nvars)) {
    if (sum(pos) > 1L) graphics::lines(xs[pos], b[j, pos], col = cols[j])
    if (any(!pos)) {
      last <- which(pos)[which.min(x$lambda[pos])]
      if (length(last)) graphics::segments(xs[last], b[j, last], xs[!pos], b[j, !pos], col = cols[j], lty = 3)
      graphics::points(xs[!pos], b[j, !pos], col = cols[j], pch = 19, cex = 0.6)
    }
    if (length(xs) == 1L) graphics::points(xs, b[j, 1L], col = cols[j], pch = 19)
  }
  at <- lambda_x(marks$lambda, x$lambda)
  graphics::segments(at, bottom_y(), at, max(b, 0), lty = marks$lty, col = marks$col)
  gap <- graphics::par("cxy")[2L] * cex   # one line of the names' text
  ends <- b[, left]
  heights <- spread_labels(ends, gap, bottom_y() + gap / 2, max(b, 0) + gap / 2)
  x0 <- xs[left]
  x1 <- x0 - graphics::strwidth("mm", cex = cex)
  graphics::segments(x0, ends, x1, heights, col = cols, lwd = 0.7)
  graphics::text(x1, heights, paste0(x$xnames, " "), adj = c(1, 0.5), cex = cex, col = cols,
                 xpd = NA)
  draw_legend(legend, legend_cex)
  df_axis(xs, x$df, main)
}

# Label heights near `y` but at least `gap` apart, within [lo, hi] when they
# fit there: each label is pushed up past the one below it, then the stack is
# moved down into range and pushed down past the one above it.
spread_labels <- function(y, gap, lo, hi) {
  o <- order(y)
  v <- y[o]
  n <- length(v)
  for (i in seq_len(n)[-1L]) v[i] <- max(v[i], v[i - 1L] + gap)
  if (v[n] > hi) v[n] <- hi
  for (i in rev(seq_len(n - 1L))) v[i] <- min(v[i], v[i + 1L] - gap)
  if (v[1L] < lo) v <- v + min(lo - v[1L], max(hi - v[n], 0))
  out <- y
  out[o] <- v
  out
}

# Slopes for every lambda of the grid: a d x L x T array, of the response
# columns `cols` (all 5000 of a wide fit took 12-15 s for the 9 drawn): their
# engine alone (a banded engine answers for all its columns).
coef_path <- function(object, cols = seq_len(ncol(object$y))) {
  eng <- object$engine
  banded <- inherits(eng, "rlsc_banded")
  if (!banded) eng <- engine_columns(eng, cols)
  cf <- engine_coef_path(eng, object$lambda)$coef
  if (banded) cf <- cf[, cols, , drop = FALSE]
  cf <- aperm(cf, c(1L, 3L, 2L))
  dimnames(cf) <- list(object$xnames, NULL, response_names(object$y)[cols])
  cf
}

# The criterion over kernel settings (rows) x lambda (columns): each setting's
# own grid, cells bounded halfway between its lambdas, colours on a log scale
# when the criterion spans more than a decade; a colour key at the right, the
# chosen pair marked by a cross and each setting's minimum by a circle.
plot_heatmap <- function(x, xlab, ylab, main = NULL, ...) {
  grid <- x$kernel_grid
  curves <- if (!is.null(grid)) kernel_curves(x) else list(criterion_curve(x$path, x$criterion))
  # rows named by the parameters that vary (all of them when none does)
  if (is.null(grid)) grid <- data.frame(kernel = format(x$kernel))
  varying <- vapply(grid, function(p) length(unique(p)) > 1L, NA)
  if (any(varying)) grid <- grid[, varying, drop = FALSE]
  one <- ncol(grid) == 1L && is.numeric(grid[[1L]])
  labels <- if (one) as.character(signif(grid[[1L]], 4)) else setting_labels(grid)
  ylab <- ylab %||% if (one) names(grid) else ""
  chosen <- x$index_kernel %||% 1L

  all_lambda <- unlist(lapply(curves, `[[`, "lambda"))
  values <- unlist(lapply(curves, `[[`, "cvm"))
  log_col <- x$criterion == "mse" && min(values) > 0 && max(values) > 10 * min(values)
  tr <- if (log_col) log10 else identity
  breaks <- seq(min(tr(values)), max(tr(values)), length.out = 65L)
  if (diff(range(breaks)) == 0) breaks <- breaks[1L] + seq(-0.5, 0.5, length.out = 65L)
  pal <- grDevices::hcl.colors(64L, "viridis")
  colour <- function(v) pal[findInterval(tr(v), breaks, all.inside = TRUE)]

  lines <- max(graphics::strwidth(labels, "inches")) / graphics::par("csi")
  old <- graphics::par(mar = c(5.1, 1.5 + lines + if (nzchar(ylab)) 2 else 0,
                               if (is.null(main)) 2.6 else 4.6, 6.6))
  on.exit(graphics::par(old))
  ny <- length(curves)
  dots <- list(...)
  graphics::plot.new()
  graphics::plot.window(xlim = dots$xlim %||% padded_range(lambda_x(all_lambda)) +
                          c(-0.5, 0.5) * min_step(all_lambda), ylim = c(0.5, ny + 0.5),
                        xaxs = "i", yaxs = "i")
  for (i in seq_len(ny)) {
    cv <- curves[[i]]
    if (!nrow(cv)) next
    xs <- lambda_x(cv$lambda, all_lambda)
    o <- order(xs)
    edges <- cell_edges(xs[o])
    fill <- colour(cv$cvm[o])
    graphics::rect(edges[-length(edges)], i - 0.5, edges[-1L], i + 0.5, col = fill, border = fill,
                   lwd = 0.5)
    best <- which.min(cv$cvm)
    graphics::points(xs[best], i, pch = if (i == chosen) 4 else 1, col = "white",
                     cex = if (i == chosen) 1.6 else 1, lwd = 2)
  }
  graphics::box()
  lambda_axis(all_lambda)
  graphics::axis(2, at = seq_len(ny), labels = labels, las = 1, tick = FALSE)
  graphics::title(xlab = xlab, main = main, line = if (is.null(main)) NA else 3)
  graphics::title(ylab = ylab, line = lines + 1.5)
  colour_key(pal, breaks, log_col, criterion_label(x$criterion, x$cv))
  graphics::legend("bottom", inset = c(0, 1), xpd = NA, horiz = TRUE, bty = "n", cex = 0.8,
                   pch = c(4, 1), pt.lwd = 2, pt.cex = c(1.3, 1), col = "grey20",
                   legend = c("chosen setting and lambda", "each setting's best lambda"))
  invisible(x)
}

min_step <- function(lambda) {
  xs <- sort(unique(lambda_x(lambda)))
  if (length(xs) < 2L) 1 else min(diff(xs))
}

# Cell boundaries halfway between neighbouring positions.
cell_edges <- function(xs) {
  if (length(xs) == 1L) return(xs + c(-0.5, 0.5))
  mid <- (xs[-1L] + xs[-length(xs)]) / 2
  c(xs[1L] - (mid[1L] - xs[1L]), mid, xs[length(xs)] + (xs[length(xs)] - mid[length(mid)]))
}

# A vertical colour key in the right margin, labelled in the criterion's units.
colour_key <- function(pal, breaks, log, label) {
  usr <- graphics::par("usr")
  w <- diff(usr[1:2]) / graphics::par("pin")[1L] * 0.2   # 0.2 inches wide
  x0 <- usr[2L] + w * 0.8
  ys <- seq(usr[3L], usr[4L], length.out = length(pal) + 1L)
  graphics::rect(x0, ys[-length(ys)], x0 + w, ys[-1L], col = pal, border = NA, xpd = NA)
  graphics::rect(x0, usr[3L], x0 + w, usr[4L], border = "grey40", xpd = NA)
  ticks <- if (log) log10(grDevices::axisTicks(range(breaks), log = TRUE, nint = 6)) else pretty(breaks, 5)
  ticks <- ticks[ticks >= min(breaks) & ticks <= max(breaks)]
  at <- usr[3L] + (ticks - min(breaks)) / diff(range(breaks)) * (usr[4L] - usr[3L])
  text <- if (log) format(10^ticks, trim = TRUE, drop0trailing = TRUE) else format(ticks, trim = TRUE)
  graphics::text(x0 + w, at, text, pos = 4, cex = 0.75, xpd = NA)
  graphics::mtext(label, side = 4, line = 5, cex = 0.8)
}

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
