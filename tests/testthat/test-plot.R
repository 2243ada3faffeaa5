with_null_device <- function(code) {
  pdf(NULL)
  on.exit(dev.off())
  code
}

test_that("plot() draws the criterion and the coefficient paths, returning invisibly", {
  fit <- rlsc(mpg ~ ., data = mtcars)
  with_null_device({
    res <- withVisible(plot(fit, main = "mtcars"))
    expect_false(res$visible)
    expect_identical(res$value, fit)
    expect_invisible(plot(fit, type = "coef", col = 1:10))
    cl <- rlsc(Species ~ ., data = iris)
    expect_invisible(plot(cl, type = "coef", response = "virginica"))
    expect_error(plot(cl, type = "coef", response = "rose"),
                 "^`response` must be one or more of setosa, versicolor, virginica or numbers up to 3, not rose$")
    expect_error(plot(cl, type = "coef", response = c(1, 4)), "numbers up to 3, not 1, 4$")
  })
  expect_error(plot(fit, type = "pie"), "'arg' should be one of")
})

# The display list of a plot drawn on a null device: the name and arguments of
# each graphics call, and the device's parameters after drawing.
record_plot <- function(code) {
  pdf(NULL)
  on.exit(dev.off())
  dev.control("enable")
  force(code)
  dl <- recordPlot()[[1]]
  list(calls = vapply(dl, function(e) {
         f <- e[[2]][[1]]
         if (is.list(f) && !is.null(f$name)) f$name else ""
       }, ""),
       args = lapply(dl, function(e) e[[2]][-1]),
       par = par(c("usr", "cxy", "pin", "ylog", "mfrow")))
}

# The coefficient paths a coefficient plot drew: per panel, a matrix of a row
# per coefficient and a column per lambda of the grid (the lines over the
# positive lambdas, the points at lambda = 0).
drawn_coefs <- function(rec, lambda) {
  xy <- rec$args[rec$calls == "C_plotXY"]
  type <- vapply(xy, function(a) a[[2]], "")
  panel <- cumsum(type == "n")
  pos <- lambda > 0
  lapply(unname(split(xy, panel)), function(calls) {
    ys <- function(t) do.call(rbind, lapply(calls[vapply(calls, function(a) a[[2]], "") == t],
                                            function(a) a[[1]]$y))
    b <- matrix(NA_real_, nrow(ys("l")), length(lambda))
    b[, pos] <- ys("l")
    if (any(!pos)) b[, !pos] <- ys("p")
    b
  })
}

# The x position where a plot drew the values at lambda = 0 (the points of
# type "p" all sit there).
drawn_zero <- function(rec) {
  pts <- Filter(function(a) identical(a[[2]], "p"), rec$args[rec$calls == "C_plotXY"])
  unique(unlist(lapply(pts, function(a) a[[1]]$x)))
}

# The x positions of lambdas on a plot's log10(lambda) axis: lambda = 0 where
# the plot drew its values at lambda = 0.
lambda_at <- function(rec, lambda) {
  x <- suppressWarnings(log10(lambda))
  if (any(lambda == 0)) x[lambda == 0] <- drawn_zero(rec)
  x
}

test_that("the coefficient paths drawn equal coef() at every lambda", {
  fit <- rlsc(Species ~ ., data = iris, nlambda = 10)
  drawn <- drawn_coefs(record_plot(plot(fit, type = "coef")), fit$lambda)
  expect_length(drawn, 3L)
  for (i in c(1, 5, 10)) {
    expect_equal(vapply(drawn, function(b) b[, i], numeric(4)), coef(fit, fit$lambda[i])[-1, ],
                 ignore_attr = TRUE)
  }
})

test_that("the coefficient plot draws the chosen columns' paths, of primal and dual fits", {
  # (the speed of computing the drawn columns only, every lambda in one
  # product, is bench/'s to measure)
  d <- make_data(40, 3, ntarget = 12, seed = 91)
  fit <- rlsc_short(d$x, d$y, nlambda = 5)
  drawn <- drawn_coefs(record_plot(suppressMessages(plot(fit, type = "coef"))), fit$lambda)
  expect_length(drawn, 9L)
  one <- drawn_coefs(record_plot(plot(fit, type = "coef", response = 11)), fit$lambda)
  expect_length(one, 1L)
  for (i in seq_along(fit$lambda)) {
    cf <- coef(fit, fit$lambda[i])[-1, ]
    expect_equal(vapply(drawn, function(b) b[, i], numeric(3)), cf[, 1:9], tolerance = 1e-12,
                 ignore_attr = TRUE)
    expect_equal(one[[1]][, i], cf[, 11], tolerance = 1e-12, ignore_attr = TRUE)
  }
  wide <- make_data(20, 30, seed = 92)
  dual <- rlsc_short(wide$x, wide$y, nlambda = 7)
  expect_identical(dual$form, "dual")
  path <- drawn_coefs(record_plot(plot(dual, type = "coef")), dual$lambda)[[1]]
  for (i in c(1, 7)) expect_equal(path[, i], coef(dual, dual$lambda[i])[-1], tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("autoplot() builds a ggplot with the band in its legend and lambda = 0 on the axis", {
  skip_if_not_installed("ggplot2")
  p <- ggplot2::autoplot(rlsc(mpg ~ ., data = mtcars))
  expect_s3_class(p, "ggplot")
  expect_identical(p$labels$y, "mean squared LOO error")
  fit <- rlsc(weight ~ height, data = women)
  expect_identical(fit$lambda_min, 0)
  p <- ggplot2::autoplot(fit)
  expect_no_warning(built <- ggplot2::ggplot_build(p))
  axis <- built$layout$panel_params[[1]]$x
  zero <- axis$get_breaks()[which(axis$get_labels() == "-Inf")]
  expect_length(zero, 1L)
  # the least-squares point, its error bar and the lambda_min line at the "-Inf" tick
  expect_true(any(vapply(built$data, function(d) any(abs(d$x - zero) < 1e-12, na.rm = TRUE) ||
                           any(abs(d$xintercept - zero) < 1e-12, na.rm = TRUE), NA)))
  expect_identical(built$layout$panel_params[[1]]$x$get_labels()[1], "-Inf")
  expect_identical(unname(built$plot$scales$get_scales("fill")$get_labels()), "\u00b1 1 SE")
})

test_that("autoplot() of a per_response fit draws each column's own squared error and lambdas", {
  skip_if_not_installed("ggplot2")
  # (it drew the fit's misclassification curve with every class's lambdas on
  # it, none of them named)
  fit <- rlsc(Species ~ ., data = iris, per_response = TRUE)
  p <- ggplot2::autoplot(fit)
  expect_identical(p$labels$y, "mean squared LOO error")
  expect_no_warning(built <- ggplot2::ggplot_build(p))
  line <- built$data[[1L]]
  expect_length(unique(line$colour), 3L)
  ys <- sapply(levels(iris$Species), function(k) ifelse(iris$Species == k, 1, -1))
  setosa <- line[line$group == 1L, ]
  at <- 10^setosa$x
  own <- vapply(at, function(l) mean((ys[, 1] - loo_predict(fit, lambda = l)[, 1])^2), 0)
  expect_equal(setosa$y, own, tolerance = 1e-10)
  marks <- built$data[[3L]]
  expect_equal(sort(10^marks$xintercept), unname(sort(c(fit$lambda_min, fit$lambda_1se))), tolerance = 1e-12)
})

test_that("autoplot() of GCV and of lambda = 0 draws without a warning; of one lambda, an error says why", {
  skip_if_not_installed("ggplot2")
  # (GCV has no standard errors: its band and bars warned from ggplot2; a grid
  # with lambda = 0 takes the range of its positive values)
  layers <- function(p) vapply(p$layers, function(l) class(l$geom)[1L], "")
  expect_no_warning(gcv <- ggplot2::autoplot(rlsc(mpg ~ ., data = mtcars, cv = "gcv")))
  expect_no_warning(built <- ggplot2::ggplot_build(gcv))
  expect_false(any(c("GeomRibbon", "GeomPointrange") %in% layers(gcv)))
  expect_true(all(is.finite(built$data[[1L]]$y)))
  fit <- suppressWarnings(rlsc(mpg ~ ., data = mtcars, lambda = c(2, 0)))
  expect_no_warning(zero <- ggplot2::autoplot(fit))
  expect_no_warning(built <- ggplot2::ggplot_build(zero))
  expect_identical(built$layout$panel_params[[1]]$x$get_labels()[1L], "-Inf")
  # a fit at one lambda (a parsnip fit at its penalty) has no curve: a lone
  # point said nothing
  expect_error(ggplot2::autoplot(suppressWarnings(rlsc(mpg ~ ., data = mtcars, lambda = 2))),
               "^autoplot\\(\\) draws the leave-one-out criterion along a grid of `lambda`, and this fit has one value, 2:")
  expect_error(ggplot2::autoplot(rlsc(mpg ~ ., data = mtcars, lambda = 0)), "this fit has one value, 0:")
})

test_that("plot(type = \"coef\") draws one column and says when there is none", {
  set.seed(1)
  x <- rnorm(30)
  fit <- rlsc_short(x, 2 * x + rnorm(30))
  with_null_device({
    expect_invisible(plot(fit, type = "coef"))
    expect_error(plot(rlsc(mpg ~ 1, data = mtcars), type = "coef"),
                 "nothing to plot: the fit has no coefficients besides the intercept")
  })
})

# The y coordinates of the legend's texts (the call whose labels include `label`).
legend_text_y <- function(rec, label = "lambda_min") {
  hit <- which(rec$calls == "C_text" &
                 vapply(rec$args, function(a) length(a) > 1L && label %in% a[[2]], NA))
  rec$args[[hit[1]]][[1]]$y
}

test_that("plot() puts the legend above the curve and its band, with the band in the legend", {
  skip_if_not_installed("MASS")
  fits <- list(mtcars = rlsc(mpg ~ ., data = mtcars, standardize = TRUE),
               fgl = rlsc(type ~ ., data = MASS::fgl))
  for (fit in fits) {
    rec <- record_plot(plot(fit))
    y <- legend_text_y(rec)
    top <- max(fit$cvm + fit$cvsd, na.rm = TRUE)
    expect_gt(min(y) - rec$par$cxy[2] / 2, top)   # the legend's lowest line clears the band
    expect_true("\u00b1 1 SE" %in% unlist(lapply(rec$args[rec$calls == "C_text"], `[[`, 2)))
    expect_lte(max(y), rec$par$usr[4])
  }
})

test_that("coefficient paths run in the direction of the criterion plot, named at their left end", {
  skip_if_not_installed("MASS")
  for (fit in list(rlsc(mpg ~ ., data = mtcars), rlsc(medv ~ ., data = MASS::Boston))) {
    rec <- record_plot(plot(fit, type = "coef"))
    hit <- which(rec$calls == "C_text" &
                   vapply(rec$args, function(a) length(a) > 1L && identical(trimws(a[[2]]), fit$xnames), NA))
    expect_length(hit, 1L)
    xy <- rec$args[[hit]][[1]]
    # lambda grows to the right as in plot(fit): the least penalized end,
    # lambda = 0 here, is at the left, and the names left of it
    expect_identical(fit$lambda[length(fit$lambda)], 0)
    usr <- rec$par$usr
    expect_lt(usr[1], usr[2])
    crit <- record_plot(plot(fit))
    expect_lt(crit$par$usr[1], crit$par$usr[2])
    end_x <- drawn_zero(rec)
    expect_length(end_x, 1L)
    expect_true(all(xy$x < end_x))
    expect_true(all(xy$x > usr[1]))
    # at distinct heights: a line of text apart
    expect_gte(min(diff(sort(xy$y))), 0.99 * rec$par$cxy[2] * 0.7)
    expect_true(all(xy$y >= min(usr[3:4]) & xy$y <= max(usr[3:4])))
  }
})

# The labels and positions of the bottom axis of a plot drawn on a device of
# 800 x 550 pixels at 110 dpi (as `make demo` writes them), and the width of
# each label in user coordinates.
bottom_axis <- function(code) {
  pdf(NULL, width = 800 / 110, height = 550 / 110)
  on.exit(dev.off())
  dev.control("enable")
  force(code)
  dl <- recordPlot()[[1]]
  axes <- Filter(function(e) identical(e[[2]][[1]]$name, "C_axis") && e[[2]][[2]] == 1, dl)
  a <- axes[[length(axes)]][[2]]
  labels <- if (is.expression(a[[4]]) || is.list(a[[4]])) as.list(a[[4]]) else a[[4]]
  points <- Filter(function(e) identical(e[[2]][[1]]$name, "C_plotXY") && identical(e[[2]][[3]], "p"), dl)
  list(at = a[[3]], labels = labels,
       width = vapply(labels, function(l) strwidth(if (is.character(l)) l else as.expression(l)), 1),
       m = strwidth("m"), zero = unique(unlist(lapply(points, function(e) e[[2]][[2]]$x))))
}

test_that("the -Inf tick of lambda = 0 keeps two characters from the next tick's label", {
  skip_if_not_installed("MASS")
  fits <- list(rlsc(Species ~ ., data = iris), rlsc(mpg ~ ., data = mtcars), rlsc(weight ~ height, data = women),
               rlsc(medv ~ ., data = MASS::Boston))
  for (fit in fits) {
    for (type in c("criterion", "coef")) {
      ax <- bottom_axis(plot(fit, type = type))
      # the tick sits where the values at lambda = 0 are drawn
      expect_identical(fit$lambda[length(fit$lambda)], 0)
      expect_length(ax$zero, 1L)
      expect_equal(ax$at[1], ax$zero)
      expect_identical(deparse(ax$labels[[1]]), "-infinity")
      gap <- (ax$at[2] - ax$width[2] / 2) - (ax$at[1] + ax$width[1] / 2)
      expect_gt(gap, 2 * ax$m)
    }
  }
  # iris drew "-4" next to "-Inf" before: its grid's smallest positive lambda is near 1e-3.5
  ax <- bottom_axis(plot(fits[[1]]))
  expect_false(-4 %in% ax$at)
})

test_that("the GCV plot's legend lists only what is drawn: no band, no lambda_1se", {
  fit <- rlsc(mpg ~ ., data = mtcars, cv = "gcv", standardize = TRUE)
  expect_identical(fit$lambda_1se, fit$lambda_min)
  rec <- record_plot(plot(fit))
  legend_labels <- rec$args[[which(rec$calls == "C_text" & vapply(rec$args, function(a) {
    length(a) > 1L && "lambda_min" %in% a[[2]]
  }, NA))[1]]][[2]]
  expect_identical(legend_labels, c("GCV = n RSS / (n - tr H)^2", "lambda_min"))
  expect_false(any(rec$calls == "C_polygon"))
  dashed <- Filter(function(a) identical(a[[6]], 2), rec$args[rec$calls == "C_segments"])
  expect_length(dashed, 1L)
  expect_equal(dashed[[1]][[1]], log10(fit$lambda_min))
  # a criterion with standard errors keeps both
  rec <- record_plot(plot(rlsc(mpg ~ ., data = mtcars, standardize = TRUE)))
  expect_true(all(c("\u00b1 1 SE", "lambda_min", "lambda_1se") %in%
                    unlist(lapply(rec$args[rec$calls == "C_text"], `[[`, 2))))
})

test_that("a multiclass coefficient plot has a panel per class, each titled with its class", {
  cl <- rlsc(Species ~ ., data = iris)
  rec <- record_plot(res <- withVisible(plot(cl, type = "coef", main = "iris")))
  expect_false(res$visible)
  titles <- unlist(lapply(rec$args[rec$calls == "C_title"], `[[`, 1))
  expect_identical(titles, paste("class", levels(iris$Species)))
  expect_true(any(vapply(rec$args[rec$calls == "C_mtext"], function(a) identical(a[[1]], "iris"), NA)))
  expect_identical(sum(rec$calls == "C_plot_new"), 3L)
  expect_identical(rec$par$mfrow, c(1L, 1L))   # the layout is given back
  # each panel draws its class's paths
  lines <- Filter(function(a) identical(a[[2]], "l"), rec$args[rec$calls == "C_plotXY"])
  expect_length(lines, 12L)
  pos <- cl$lambda > 0
  expect_equal(lines[[5]][[1]]$y, vapply(cl$lambda[pos], function(l) coef(cl, l)[2, "versicolor"], 0))
  # one class chosen: one panel, still named
  rec <- record_plot(plot(cl, type = "coef", response = 3))
  expect_identical(unlist(lapply(rec$args[rec$calls == "C_title"], `[[`, 1)), "class virginica")
  # two classes: one column of decision values, one panel without a class title
  two <- rlsc(Species ~ ., data = droplevels(iris[51:150, ]))
  rec <- record_plot(plot(two, type = "coef", main = "two"))
  expect_identical(unlist(lapply(rec$args[rec$calls == "C_title"], `[[`, 1)), "two")
})

# The panel layout (par("mfrow")) in which a plot drawn on a device of 800 x
# 550 pixels at 110 dpi began its last panel.
drawn_layout <- function(code) {
  pdf(NULL, width = 800 / 110, height = 550 / 110)
  layout <- NULL
  hooks <- getHook("plot.new")
  setHook("plot.new", function() layout <<- par("mfrow"))
  on.exit({
    setHook("plot.new", hooks, "replace")
    dev.off()
  })
  force(code)
  layout
}

test_that("panels are laid out for the device, at most nine, with a message beyond", {
  set.seed(5)
  y <- factor(rep(sprintf("c%02d", 1:12), 10))
  x <- matrix(rnorm(120 * 3), 120) + as.integer(y) / 5
  fit <- rlsc(x, y)
  expect_identical(drawn_layout(plot(fit, type = "coef", response = 1)), c(1L, 1L))
  # two wide panels rather than two tall ones
  expect_identical(drawn_layout(plot(fit, type = "coef", response = 1:2)), c(2L, 1L))
  expect_identical(drawn_layout(plot(fit, type = "coef", response = 1:3)), c(2L, 2L))
  expect_identical(drawn_layout(plot(fit, type = "coef", response = 1:9)), c(3L, 3L))
  expect_message(rec <- record_plot(plot(fit, type = "coef")),
                 "^drawing the coefficients of the first 9 of 12 response columns; `response` chooses others")
  expect_identical(sum(rec$calls == "C_plot_new"), 9L)
  expect_no_message(rec <- record_plot(plot(fit, type = "coef", response = c("c11", "c12"))))
  expect_identical(unlist(lapply(rec$args[rec$calls == "C_title"], `[[`, 1)), c("class c11", "class c12"))
})

test_that("a per-response coefficient plot marks each column's own lambda_min and lambda_1se", {
  d <- make_data(50, 4, ntarget = 2, seed = 31)
  d$y[, 2] <- d$y[, 2] * 5 + d$x[, 1] * 3
  colnames(d$y) <- c("a", "b")
  fit <- rlsc_short(d$x, d$y, per_response = TRUE)
  expect_false(fit$lambda_min[1] == fit$lambda_min[2])
  rec <- record_plot(plot(fit, type = "coef"))
  expect_identical(unlist(lapply(rec$args[rec$calls == "C_title"], `[[`, 1)), c("a", "b"))
  # the vertical lines (the legend's strokes have two y values)
  marks <- Filter(function(a) length(a[[1]]) == 2L && length(a[[2]]) == 1L && identical(a[[6]], c(2, 2)),
                  rec$args[rec$calls == "C_segments"])
  expect_length(marks, 2L)
  expect_equal(marks[[1]][[1]], lambda_at(rec, c(fit$lambda_min[["a"]], fit$lambda_1se[["a"]])))
  expect_equal(marks[[2]][[1]], lambda_at(rec, c(fit$lambda_min[["b"]], fit$lambda_1se[["b"]])))
})

test_that("a fit with a single lambda is drawn as a point with its error bar", {
  for (l in c(3, 0)) {
    fit <- rlsc(mpg ~ wt + hp, data = mtcars, lambda = l)
    rec <- record_plot(plot(fit))
    pts <- Filter(function(a) identical(a[[2]], "p") && isTRUE(all.equal(a[[1]]$y, fit$cvm)),
                  rec$args[rec$calls == "C_plotXY"])
    expect_length(pts, 1L)
    # lambda = 0 alone sits at its "-Inf" tick
    ax <- Filter(function(a) a[[1]] == 1, rec$args[rec$calls == "C_axis"])
    ax <- ax[[length(ax)]]   # the lambda axis, drawn last
    at <- if (l > 0) log10(l) else ax[[2]][vapply(as.list(ax[[3]]), deparse, "") == "-infinity"]
    expect_length(at, 1L)
    expect_equal(pts[[1]][[1]]$x, at)
    bars <- rec$args[rec$calls == "C_segments"]
    bar <- Filter(function(a) isTRUE(all.equal(c(a[[2]], a[[4]]), fit$cvm + c(-1, 1) * fit$cvsd)), bars)
    expect_length(bar, 1L)
  }
})

test_that("kernel fits draw one curve per setting with the band, the df axis and the legend", {
  kf <- rlsc_short(mpg ~ ., data = mtcars, standardize = TRUE,
                   kernel = kernel_rbf(sigma = c(2, 4, 8, 16)))
  rec <- record_plot(plot(kf))
  lines <- Filter(function(a) identical(a[[2]], "l"), rec$args[rec$calls == "C_plotXY"])
  expect_length(lines, 4L)
  # each curve is its setting's LOO criterion, none cut off by the axis
  tab <- kf$kernel_path
  for (i in 1:4) {
    rows <- tab$sigma == c(2, 4, 8, 16)[i]
    expect_equal(lines[[i]][[1]]$y, tab$mse[rows])
    expect_true(all(tab$mse[rows] <= 10^rec$par$usr[4]))
  }
  expect_true(rec$par$ylog)   # they span more than a decade
  expect_true(any(rec$calls == "C_polygon"))
  sides <- vapply(rec$args[rec$calls == "C_axis"], `[[`, 1, 1)
  expect_true(all(c(1, 2, 3) %in% sides))   # log10(lambda), criterion, df
  expect_true(any(rec$calls == "C_mtext"))
  y <- legend_text_y(rec, "sigma = 8")
  expect_gt(min(y), max(tab$mse, kf$cvm + kf$cvsd))
})

test_that("a per-response fit draws one curve per response column, each its own criterion", {
  d <- make_data(50, 4, ntarget = 3, seed = 312)
  d$y[, 3] <- d$y[, 3] * 5 + d$x[, 1] * 3
  colnames(d$y) <- c("a", "b", "c")
  fit <- rlsc_short(d$x, d$y, per_response = TRUE)
  rec <- record_plot(res <- withVisible(plot(fit)))
  expect_false(res$visible)
  expect_identical(res$value, fit)
  lines <- Filter(function(a) identical(a[[2]], "l"), rec$args[rec$calls == "C_plotXY"])
  expect_length(lines, 3L)
  pos <- fit$path$lambda > 0   # the grid ends at lambda = 0, drawn as a point beyond the axis break
  expect_identical(sum(!pos), 1L)
  for (j in 1:3) {
    expect_equal(lines[[j]][[1]]$y, fit$path[[paste0("mse_", colnames(d$y)[j])]][pos])
  }
  expect_identical(legend_text_y(rec, "c"), legend_text_y(rec, "lambda_min"))
  # each column its band, and its lambda_min (dashed) and lambda_1se (dotted) in its colour
  cols <- vapply(lines, function(a) a[[5]], "")
  bands <- rec$args[rec$calls == "C_polygon"]
  expect_length(bands, 3L)
  expect_identical(vapply(bands, `[[`, "", 3), adjustcolor(cols, 0.2))
  marks <- Filter(function(a) length(a[[1]]) > 1L, rec$args[rec$calls == "C_segments"])[[1]]
  differ <- fit$lambda_1se != fit$lambda_min
  expect_equal(marks[[1]], unname(log10(c(fit$lambda_min, fit$lambda_1se[differ]))))
  expect_identical(marks[[5]], c(cols, cols[differ]))
  expect_identical(marks[[6]], c(2, 2, 2, rep(3, sum(differ))))
})

test_that("plot(type = \"heatmap\") shows the criterion over sigma x lambda, the choice marked", {
  kf <- rlsc_short(mpg ~ ., data = mtcars, standardize = TRUE,
                   kernel = kernel_rbf(sigma = c(2, 4, 8, 16)))
  rec <- record_plot(plot(kf, type = "heatmap"))
  cells <- rec$args[rec$calls == "C_rect"]
  rows <- Filter(function(a) length(a[[1]]) > 1L, cells)
  expect_length(rows, 4L)
  expect_equal(sum(lengths(lapply(rows, `[[`, 1))), nrow(kf$kernel_path))
  marks <- Filter(function(a) identical(a[[2]], "p") && identical(a[[3]], 4), rec$args[rec$calls == "C_plotXY"])
  expect_length(marks, 1L)
  expect_equal(marks[[1]][[1]]$x, log10(kf$lambda_min))
  expect_equal(marks[[1]][[1]]$y, kf$index_kernel)
  expect_error(plot(rlsc(mpg ~ wt, data = mtcars), type = "heatmap"), "'arg' should be one of")
})

test_that("the plots render to PNG files", {
  skip_if_not(capabilities("png"), "no png device")
  skip_if_not_installed("MASS")
  kf <- rlsc_short(mpg ~ ., data = mtcars, standardize = TRUE,
                   kernel = kernel_rbf(sigma = c(2, 4, 8, 16)))
  plots <- list(
    linear = function() plot(rlsc(mpg ~ ., data = mtcars, standardize = TRUE)),
    coef_mtcars = function() plot(rlsc(mpg ~ ., data = mtcars), type = "coef"),
    coef_boston = function() plot(rlsc(medv ~ ., data = MASS::Boston), type = "coef"),
    fgl = function() plot(rlsc(type ~ ., data = MASS::fgl)),
    single = function() plot(rlsc(mpg ~ wt + hp, data = mtcars, lambda = 3)),
    multiclass_coef = function() plot(rlsc(Species ~ ., data = iris), type = "coef"),
    gcv = function() plot(rlsc(mpg ~ ., data = mtcars, cv = "gcv")),
    kfold = function() plot(rlsc(mpg ~ ., data = mtcars, cv = 5)),
    per_response = function() plot(rlsc_short(as.matrix(mtcars[, 3:7]), as.matrix(mtcars[, 1:2]),
                                              per_response = TRUE)),
    kernel = function() plot(kf),
    heatmap = function() plot(kf, type = "heatmap"))
  for (nm in names(plots)) {
    file <- tempfile(fileext = ".png")
    png(file, width = 800, height = 550, res = 110)
    res <- withVisible(plots[[nm]]())
    dev.off()
    expect_false(res$visible)
    expect_true(file.exists(file), label = nm)
    expect_gt(file.size(file), 5000)
    unlink(file)
  }
})

test_that("a banded fit draws every type, the type given by name or by position", {
  set.seed(1)
  x <- matrix(rnorm(60 * 4), 60)
  y <- cbind(first = x[, 1] + rnorm(60), last = x[, 4] + rnorm(60))
  fit <- rlsc(x, y, bands = rep(c("a", "b"), each = 2), n_candidates = 5)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (type in c("weights", "criterion", "coef")) {
    # (by position, "coef" had reached the panels as `legend_cex`: an error,
    # "invalid 'cex' value", after a warning from strwidth())
    expect_no_warning(expect_invisible(plot(fit, type)))
    expect_no_warning(expect_invisible(plot(fit, type = type)))
  }
  expect_no_warning(plot(fit, "coef", response = 2L, lwd = 2))
})
