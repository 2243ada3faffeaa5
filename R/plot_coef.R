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
  cf <- aperm(column_coef_path(object$engine, cols, object$lambda), c(1L, 3L, 2L))
  dimnames(cf) <- list(object$xnames, NULL, response_names(object$y)[cols])
  cf
}
