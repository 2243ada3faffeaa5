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
