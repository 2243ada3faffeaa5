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
                 "`response` must be one of setosa, versicolor, virginica")
  })
  expect_error(plot(fit, type = "pie"), "'arg' should be one of")
})

test_that("the coefficient paths equal coef() at every lambda", {
  fit <- rlsc(Species ~ ., data = iris, nlambda = 10)
  path <- getFromNamespace("coef_path", "rlsc")(fit)
  for (i in c(1, 5, 10)) {
    expect_equal(path[, i, ], coef(fit, fit$lambda[i])[-1, ])
  }
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
  zero <- getFromNamespace("lambda_x", "rlsc")(0, fit$lambda)
  # the least-squares point, its error bar and the lambda_min line at the "-Inf" tick
  expect_true(any(vapply(built$data, function(d) any(abs(d$x - zero) < 1e-12, na.rm = TRUE) ||
                           any(abs(d$xintercept - zero) < 1e-12, na.rm = TRUE), NA)))
  expect_identical(built$layout$panel_params[[1]]$x$get_labels()[1], "-Inf")
  expect_identical(unname(built$plot$scales$get_scales("fill")$get_labels()), "\u00b1 1 SE")
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
       par = par(c("usr", "cxy", "pin", "ylog")))
}

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

test_that("coefficient paths are named at their least penalized (right) end, at distinct heights", {
  skip_if_not_installed("MASS")
  for (fit in list(rlsc(mpg ~ ., data = mtcars), rlsc(medv ~ ., data = MASS::Boston))) {
    rec <- record_plot(plot(fit, type = "coef"))
    hit <- which(rec$calls == "C_text" &
                   vapply(rec$args, function(a) length(a) > 1L && identical(trimws(a[[2]]), fit$xnames), NA))
    expect_length(hit, 1L)
    xy <- rec$args[[hit]][[1]]
    # the axis runs from large lambda (left) to small (right): the names sit
    # right of the least penalized end, lambda = 0 here
    expect_identical(fit$lambda[length(fit$lambda)], 0)
    usr <- rec$par$usr
    expect_gt(usr[1], usr[2])
    end_x <- getFromNamespace("lambda_x", "rlsc")(0, fit$lambda)
    expect_true(all(xy$x < end_x))
    # at distinct heights: a line of text apart
    expect_gte(min(diff(sort(xy$y))), 0.99 * rec$par$cxy[2] * 0.7)
    expect_true(all(xy$y >= min(usr[3:4]) & xy$y <= max(usr[3:4])))
  }
})

test_that("a fit with a single lambda is drawn as a point with its error bar", {
  for (l in c(3, 0)) {
    fit <- rlsc(mpg ~ wt + hp, data = mtcars, lambda = l)
    rec <- record_plot(plot(fit))
    pts <- Filter(function(a) identical(a[[2]], "p") && isTRUE(all.equal(a[[1]]$y, fit$cvm)),
                  rec$args[rec$calls == "C_plotXY"])
    expect_length(pts, 1L)
    expect_equal(pts[[1]][[1]]$x, getFromNamespace("lambda_x", "rlsc")(l))
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
