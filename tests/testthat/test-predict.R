test_that("predict() equals the reference fit on new data", {
  d <- make_data(50, 4, seed = 31)
  fit <- rlsc(d$x, d$y)
  newdata <- matrix(rnorm(20), 5)
  l <- fit$lambda[33]
  ref <- ref_predict(ref_coef(d$x, d$y, lambda = l), newdata)
  expect_equal(unname(predict(fit, newdata, lambda = l)), drop(ref), tolerance = 1e-9)
  expect_equal(predict(fit, as.data.frame(newdata)), predict(fit, newdata))
})

test_that("predict() gives decision values and classes for classification", {
  x <- as.matrix(iris[, 1:4])
  fit <- rlsc(x, iris$Species)
  f <- predict(fit, x)
  expect_identical(colnames(f), levels(iris$Species))
  cls <- predict(fit, x, type = "class")
  expect_s3_class(cls, "factor")
  expect_identical(levels(cls), levels(iris$Species))
  expect_identical(as.character(cls), levels(iris$Species)[max.col(f, "first")])
  expect_gt(mean(cls == iris$Species), 0.8)
  y2 <- factor(ifelse(iris$Species == "setosa", "setosa", "other"), c("other", "setosa"))
  fit2 <- rlsc(x, y2)
  f2 <- predict(fit2, x)
  expect_identical(as.character(predict(fit2, x, type = "class")),
                   ifelse(f2 > 0, "setosa", "other"))
})

test_that("predict() rejects bad new data and the class type for regression", {
  d <- make_data(30, 4, seed = 32)
  fit <- rlsc(d$x, d$y)
  expect_error(predict(fit, d$x[, 1:3]), "`newdata` must have 4 columns \\(as the training `x`\\), not 3")
  expect_error(predict(fit, "a"), "`newdata` must be a numeric matrix or data frame, not character vector")
  expect_identical(predict(fit, d$x * NA), rep(NA_real_, 30))
  expect_identical(predict(fit), fitted(fit))
  expect_error(predict(fit, d$x, type = "class"), "`type` = \"class\" needs a classification fit")
  expect_error(predict(fit, d$x, lambda = -123), "not -123$")
})

test_that("predict() matches the columns of new data by name when they are the training ones reordered", {
  x <- mtcars[, c("wt", "hp", "disp")]
  l <- 5
  ref <- unname(drop(ref_predict(ref_coef(as.matrix(x), mtcars$mpg, lambda = l), as.matrix(x[1:3, ]))))
  fit <- rlsc_short(x, mtcars$mpg, lambda = l)
  expect_equal(unname(predict(fit, mtcars[1:3, c("disp", "wt", "hp")])), ref, tolerance = 1e-9)
  expect_equal(unname(predict(fit, as.matrix(mtcars[1:3, c("hp", "disp", "wt")]))), ref,
               tolerance = 1e-9)
  kf <- rlsc_short(scale(x), mtcars$mpg, kernel = kernel_rbf(1), lambda = l)
  new <- scale(x)[1:3, ]
  expect_equal(predict(kf, new[, 3:1]), predict(kf, new))
  # without names, by position
  expect_equal(predict(fit, unname(as.matrix(x[1:3, ]))), predict(fit, x[1:3, ]), ignore_attr = TRUE)
})

test_that("new data that lacks a training column is an error naming it, never a silent mis-match", {
  # the user's first hour: a fit on wt, hp, disp and new data with disp, hp, weight
  x <- mtcars[, c("wt", "hp", "disp")]
  fit <- rlsc(x, mtcars$mpg)
  new <- mtcars[1:2, c("disp", "hp", "wt")]
  names(new)[3] <- "weight"
  msg <- "^`newdata` must have the columns of the training `x`; it lacks `wt` \\(it has `disp`, `hp`, `weight`\\)$"
  expect_error(predict(fit, new), msg)
  expect_error(predict(fit, as.matrix(new)), msg)
  expect_error(predict(fit, setNames(x[1:3, ], c("a", "b", "c"))), "it lacks `wt`, `hp`, `disp`")
  expect_error(predict(fit, cbind(x[1:2, ], wt = 1)), "^`newdata` must have each training column once, not `wt`$")
  kf <- suppressWarnings(rlsc(x, mtcars$mpg, kernel = kernel_rbf(100), standardize = TRUE))
  expect_error(predict(kf, new), msg)
  # with the right name the prediction is the reference's
  names(new)[3] <- "wt"
  ref <- ref_predict(ref_coef(as.matrix(x), mtcars$mpg, lambda = fit$lambda_min),
                     unname(as.matrix(mtcars[1:2, c("wt", "hp", "disp")])))
  expect_equal(unname(predict(fit, new)), drop(ref), tolerance = 1e-9)
  # unnamed new data is taken by position and must have as many columns
  expect_equal(unname(predict(fit, unname(as.matrix(x[1:2, ])))), drop(ref), tolerance = 1e-9)
  expect_error(predict(fit, unname(as.matrix(x[1:2, 1:2]))),
               "`newdata` must have 3 columns \\(as the training `x`\\), not 2")
  # a fit to `x` without names takes named new data by position
  un <- rlsc(unname(as.matrix(x)), mtcars$mpg)
  expect_equal(predict(un, new[, c("wt", "hp", "disp")]), predict(un, unname(as.matrix(x[1:2, ]))),
               ignore_attr = TRUE)
  expect_error(predict(un, new[, 1:2]), "`newdata` must have 3 columns")
  skip_if_not_installed("Matrix")   # suggested: sparse new data
  names(new)[3] <- "weight"
  expect_error(predict(fit, Matrix::Matrix(as.matrix(new), sparse = TRUE)), msg)
})

test_that("x with a name twice predicts its own rows, by position (issue 47)", {
  x <- as.matrix(mtcars[, c("wt", "hp", "disp", "qsec")])
  colnames(x) <- c("a", "b", "a", "c")
  fit <- rlsc(x, mtcars$mpg)
  ref <- drop(ref_predict(ref_coef(unname(x), mtcars$mpg, lambda = fit$lambda_min), unname(x)))
  expect_equal(unname(predict(fit, x)), ref, tolerance = 1e-9)
  expect_equal(unname(predict(fit, as.data.frame(x))), ref, tolerance = 1e-9)
  # other orders cannot be matched by name
  expect_error(predict(fit, x[, c(2, 1, 3, 4)]),
               paste0("^`newdata` must have the columns of the training `x` in their order, as the ",
                      "training `x` has more than one column named `a`$"))
  skip_if_not_installed("Matrix")   # suggested: sparse new data
  expect_equal(unname(predict(fit, Matrix::Matrix(x, sparse = TRUE))), ref, tolerance = 1e-9)
})

test_that("a standardized sparse fit keeps its column names for predict()", {
  skip_if_not_installed("Matrix")
  x <- Matrix::Matrix(as.matrix(mtcars[, c("wt", "hp", "disp")]), sparse = TRUE)
  fit <- rlsc(x, mtcars$mpg, standardize = TRUE)
  expect_identical(fit$xnames, c("wt", "hp", "disp"))
  expect_equal(predict(fit, mtcars[1:3, c("disp", "wt", "hp")]), predict(fit, x[1:3, ]), tolerance = 1e-12)
})

test_that("rows of new data with NA get NA predictions, for matrix and formula fits alike", {
  x <- as.matrix(mtcars[, c("wt", "hp", "disp")])
  fit <- rlsc(x, mtcars$mpg)
  new <- x[1:4, ]
  new[2, "hp"] <- NA
  new[4, "wt"] <- NaN
  p <- predict(fit, new)
  expect_identical(unname(is.na(p)), c(FALSE, TRUE, FALSE, TRUE))
  expect_equal(p[c(1, 3)], predict(fit, x[c(1, 3), ]))
  expect_identical(names(p), rownames(x)[1:4])
  expect_identical(predict(fit, as.data.frame(new)), p)
  ff <- rlsc(mpg ~ wt + hp + disp, data = mtcars)
  expect_equal(predict(ff, as.data.frame(new)), p)
  cl <- rlsc(iris[, 1:4], iris$Species)
  nd <- iris[1:3, ]
  nd$Sepal.Width[2] <- NA
  pc <- predict(cl, nd, type = "class")
  expect_identical(as.character(pc), c("setosa", NA, "setosa"))
  expect_identical(levels(pc), levels(iris$Species))
  expect_true(all(is.na(predict(cl, nd)[2, ])))
  skip_if_not_installed("Matrix")   # suggested: sparse new data
  expect_equal(predict(fit, Matrix::Matrix(new, sparse = TRUE)), p, tolerance = 1e-12)
})

test_that("new data with the training columns among others is taken by name", {
  x <- as.matrix(iris[, 1:4])
  fit <- rlsc(x, iris$Species)
  expect_identical(unname(predict(fit, iris[c(1, 51, 101), ], type = "class")),
                   predict(fit, x[c(1, 51, 101), ], type = "class"))
  shuffled <- x[1:3, c(4, 2, 1, 3)]
  expect_equal(predict(fit, shuffled), predict(fit, x[1:3, ]))
  expect_error(predict(fit, unname(x[1:3, 1:3])), "`newdata` must have 4 columns")
})

test_that("a chunk source as new data of a kept kernel fit or of a fit to unnamed columns predicts as a matrix does", {
  s <- sine_data(40, seed = 81)
  kf <- rlsc_short(s$x, s$y, kernel = kernel_rbf(1), lambda = c(1, 0.1), keep_eigen = TRUE)
  newx <- s$x[1:12, , drop = FALSE] + 0.05
  src <- chunk_matrix(newx, rep(0, 12), chunk_rows = 5)
  expect_no_warning(p <- predict(kf, src))
  expect_equal(unname(p), unname(predict(kf, newx)), tolerance = 1e-12)
  # training x without column names: new columns are taken by position, named or not
  d <- make_data(30, 3, seed = 82)
  fit <- rlsc_short(unname(d$x), d$y, lambda = c(10, 1))
  named <- d$x[1:7, ]
  colnames(named) <- c("a", "b", "c")
  expect_equal(unname(predict(fit, chunk_matrix(named, rep(0, 7), chunk_rows = 3))),
               unname(predict(fit, named)), tolerance = 1e-12)
})

test_that("se.fit at several lambdas: new rows all NA, and several response columns", {
  d <- make_data(30, 3, seed = 83)
  fit <- rlsc_short(d$x, d$y, lambda = c(10, 1))
  nas <- matrix(NA_real_, 2, 3)
  got <- predict(fit, nas, s = c(10, 1), se.fit = TRUE)
  expect_true(all(is.na(got$fit)) && all(is.na(got$se.fit)))
  expect_identical(dim(got$fit), c(2L, 2L))
  expect_null(got$df)
  multi <- rlsc_short(d$x, cbind(a = d$y, b = -d$y + rnorm(30)), lambda = c(10, 1))
  se <- predict(multi, d$x[1:4, ], se.fit = TRUE)
  expect_null(attr(se$fit, "se"))
  expect_identical(dim(se$fit), dim(se$se.fit))
})

test_that("a chunk source as new data at several lambdas is read in one pass, as one lambda at a time", {
  d <- make_data(40, 3, seed = 84)
  cls <- factor(rep(c("a", "b", "c"), length.out = 40))
  s <- sine_data(40, seed = 85)
  newx <- d$x[1:11, ] + 0.1   # (chunk_matrix() takes no NA)
  fits <- list(
    linear = list(rlsc_short(chunk_matrix(d$x, d$y, chunk_rows = 9), lambda = c(10, 1, 0.1)), newx, "response"),
    classes = list(rlsc_short(d$x, cls, lambda = c(10, 1, 0.1)), newx, "prob"),
    labels = list(rlsc_short(d$x, cls, lambda = c(10, 1, 0.1)), newx, "class"),
    kernel = list(rlsc_short(s$x, s$y, kernel = kernel_rbf(1), lambda = c(1, 0.1)), s$x[1:11, , drop = FALSE],
                  "response"))
  for (k in names(fits)) {
    fit <- fits[[k]][[1]]
    nx <- fits[[k]][[2]]
    type <- fits[[k]][[3]]
    reads <- 0
    src <- chunk_source(list(1:4, 5:8, 9:11), function(i) {
      reads <<- reads + 1
      list(x = nx[i, , drop = FALSE], y = rep(0, length(i)))
    })
    lams <- fit$lambda[c(2, 1)]
    p <- predict(fit, src, s = lams, type = type)
    expect_identical(reads, 3, info = k)   # 11 rows in chunks of 4: one pass
    for (j in seq_along(lams)) {
      got <- if (is.data.frame(p)) p[[j]] else if (length(dim(p)) == 3L) p[, , j] else p[, j]
      expect_equal(unname(got), unname(predict(fit, nx, s = lams[j], type = type)), tolerance = 1e-12,
                   info = paste(k, j))
    }
  }
  expect_error(predict(fits$linear[[1]], chunk_matrix(newx, rep(0, 11), chunk_rows = 4), s = c(1, 10),
                       se.fit = TRUE), "`se.fit` = TRUE needs in-memory `newdata`, not a chunk source")
})

test_that("class_rule = \"prob\" gives the most probable class; the default stays the largest decision value", {
  fit <- rlsc(Species ~ ., data = iris, standardize = TRUE)
  for (l in c(1, 1e4)) {
    p <- predict(fit, iris, lambda = l, type = "prob")
    probable <- predict(fit, iris, lambda = l, type = "class", class_rule = "prob")
    expect_identical(as.character(probable), colnames(p)[max.col(p, ties.method = "first")])
    expect_identical(levels(probable), levels(iris$Species))
    # the two rules differ on iris (14 rows at lambda 1, 39 at 1e4): the rule matters
    decision <- predict(fit, iris, lambda = l, type = "class")
    expect_identical(as.character(decision), levels(iris$Species)[max.col(predict(fit, iris, lambda = l),
                                                                          ties.method = "first")])
    expect_gt(sum(probable != decision), 0)
  }
  # several lambdas: a column per value, each the rule at its lambda
  both <- predict(fit, iris[1:60, ], lambda = c(1, 1e4), type = "class", class_rule = "prob")
  expect_identical(both[[2]], unname(predict(fit, iris[1:60, ], lambda = 1e4, type = "class", class_rule = "prob")))
  # two classes: the class whose probability is the larger
  bin <- droplevels(iris[51:150, ])
  two <- rlsc(Species ~ ., data = bin)
  p <- predict(two, bin, type = "prob")
  expect_identical(as.character(predict(two, bin, type = "class", class_rule = "prob")),
                   colnames(p)[max.col(p, ties.method = "first")])
  expect_error(predict(fit, iris, type = "class", class_rule = "argmax"), "should be one of")
})
