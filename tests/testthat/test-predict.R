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
  expect_error(predict(fit, d$x * NA), "`newdata` must not contain NA, NaN or Inf values")
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
  # names that are not the training ones: by position, as before
  expect_equal(predict(fit, setNames(x[1:3, ], c("a", "b", "c"))), predict(fit, x[1:3, ]))
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
