test_that("a sparse x gives the same results as its dense copy, primal and dual", {
  skip_if_not_installed("Matrix")
  set.seed(71)
  xs <- Matrix::rsparsematrix(120, 15, 0.2)
  y <- as.vector(xs %*% rnorm(15)) + rnorm(120, sd = 2)
  w <- rep(c(1, 0, 2), 40)
  for (rows in list(1:120, 1:12)) {
    sp <- rlsc_short(xs[rows, ], y[rows], weights = w[rows])
    de <- rlsc_short(as.matrix(xs[rows, ]), y[rows], weights = w[rows], lambda = sp$lambda)
    expect_identical(sp$form, de$form)
    expect_equal(sp$path, de$path, tolerance = 1e-9)
    expect_equal(loo_predict(sp), loo_predict(de), tolerance = 1e-9)
    expect_equal(coef(sp), coef(de), tolerance = 1e-9)
    expect_equal(predict(sp, xs[1:4, ]), predict(de, as.matrix(xs[1:4, ])), tolerance = 1e-9)
  }
  expect_identical(rlsc(xs[1:12, ], y[1:12])$form, "dual")
})

test_that("a sparse x is checked for non-finite values", {
  skip_if_not_installed("Matrix")
  xs <- Matrix::sparseMatrix(i = 1:3, j = 1:3, x = c(1, NA, 2), dims = c(5, 3))
  expect_error(rlsc(xs, 1:5), "`x` must not contain NA, NaN or Inf values")
})
