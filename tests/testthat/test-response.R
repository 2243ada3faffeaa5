test_that("encode_classes() codes two classes -1/+1 and more one-vs-all", {
  two <- encode_classes(factor(c("b", "a", "b"), levels = c("a", "b")))
  expect_equal(two, structure(matrix(c(1, -1, 1), dimnames = list(NULL, "b")), classes = c("a", "b")))
  three <- encode_classes(iris$Species)
  expect_equal(unname(unclass(three)), unname(ref_code(iris$Species)), ignore_attr = TRUE)
  expect_identical(decode_classes(three, attr(three, "classes")), iris$Species)
  expect_identical(decode_classes(two, c("a", "b")), factor(c("b", "a", "b")))
  expect_identical(decode_classes(c(-0.2, 0.3), c("no", "yes")), factor(c("no", "yes")))
})

test_that("encode_classes() and decode_classes() reject bad input", {
  expect_error(encode_classes(1:3), "`y` must be a factor, or a character or logical vector, not integer vector")
  expect_error(encode_classes(c("a", NA)), "`y` must not contain NA values")
  expect_error(encode_classes("a"), "at least 2 classes for classification, not 1")
  expect_error(decode_classes(matrix(0, 2, 2), c("a", "b", "c")),
               "`decision` must have 3 column\\(s\\) for 3 classes, not 2")
})

test_that("class predictions of an ordered response are ordered, with its levels, for both methods", {
  df <- transform(mtcars, g = factor(gear, levels = 3:5, labels = c("three", "four", "five"), ordered = TRUE))
  ff <- rlsc(g ~ wt + hp + qsec, data = df)
  fd <- rlsc(df[, c("wt", "hp", "qsec")], df$g)
  for (fit in list(ff, fd)) {
    for (p in list(predict(fit, df, type = "class"), loo_predict(fit, type = "class"))) {
      expect_s3_class(p, c("ordered", "factor"), exact = TRUE)
      expect_identical(levels(p), c("three", "four", "five"))
      # comparisons with the truth work (they fail between ordered and unordered factors)
      expect_identical(unname(p == df$g), as.character(p) == as.character(df$g))
    }
  }
  expect_identical(predict(ff, df, type = "class"), predict(fd, df, type = "class"))
  # two ordered classes too
  y2 <- factor(ifelse(df$mpg > 20, "high", "low"), levels = c("low", "high"), ordered = TRUE)
  f2 <- rlsc(df[, c("wt", "hp")], y2)
  expect_s3_class(predict(f2, df, type = "class"), "ordered")
})

test_that("empty levels of the response: one warning naming them for both methods, all levels kept in predictions", {
  lev <- c("setosa", "rose", "versicolor", "virginica", "tulip")
  df <- transform(iris, Species = factor(Species, levels = lev))
  count <- function(expr) {
    msgs <- character()
    value <- withCallingHandlers(expr, warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    list(value = value, msgs = msgs)
  }
  ff <- count(rlsc(Species ~ ., data = df))
  fd <- count(rlsc(df[, 1:4], df$Species))
  expect_identical(ff$msgs, "dropping empty level(s) of the response `Species`: 'rose', 'tulip'")
  expect_identical(fd$msgs, "dropping empty level(s) of `y`: 'rose', 'tulip'")
  ff <- ff$value
  fd <- fd$value
  expect_identical(ff$classes, levels(iris$Species))
  expect_identical(ff$path, fd$path)
  # the fit is the one without the empty levels, checked by brute force
  l <- ff$lambda[40]
  ref <- ref_loo(as.matrix(iris[, 1:4]), ref_code(iris$Species), lambda = l)
  expect_equal(unname(loo_predict(ff, l)), unname(ref), tolerance = 1e-8)
  for (fit in list(ff, fd)) {
    p <- predict(fit, df, type = "class")
    expect_identical(levels(p), lev)
    expect_identical(unname(p == df$Species), as.character(p) == as.character(df$Species))
    expect_identical(levels(loo_predict(fit, type = "class")), lev)
  }
  # a subset that empties a level of the formula's response warns the same way
  expect_warning(rlsc(Species ~ ., data = iris, subset = Species != "setosa"),
                 "^dropping empty level\\(s\\) of the response `Species`: 'setosa'$")
})

test_that("a one-column data frame or tibble is its column; numeric columns are a response matrix", {
  x <- as.matrix(mtcars[, c("wt", "hp", "qsec")])
  ref <- rlsc(x, mtcars$mpg)
  expect_identical(rlsc(x, mtcars["mpg"])$path, ref$path)
  expect_equal(coef(rlsc(x, mtcars["mpg"])), coef(ref))
  cl <- rlsc(as.matrix(iris[, 1:4]), iris$Species)
  expect_identical(rlsc(as.matrix(iris[, 1:4]), iris["Species"])$path, cl$path)
  ym <- mtcars[, c("mpg", "drat")]
  fm <- rlsc(x, ym)
  expect_identical(fm$path, rlsc(x, as.matrix(ym))$path)
  expect_identical(colnames(coef(fm)), c("mpg", "drat"))
  skip_if_not_installed("tibble")
  expect_identical(rlsc(x, tibble::as_tibble(mtcars["mpg"]))$path, ref$path)
  expect_identical(rlsc(as.matrix(iris[, 1:4]), tibble::as_tibble(iris["Species"]))$path, cl$path)
  expect_error(rlsc(x, tibble::as_tibble(iris[1:32, 4:5])),
               paste0("`y` must be a data frame of one column or of numeric ",
                      "columns, not one with column `Species` of class factor"))
  expect_error(rlsc(x, mtcars[, 0]),
               "`y` must be a data frame of one column or of numeric columns, not one without columns")
})
