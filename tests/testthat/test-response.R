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
