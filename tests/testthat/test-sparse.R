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

test_that("a sparse x with foldid, and chunk_matrix() over a sparse x, equal brute-force refits (issue 27)", {
  skip_if_not_installed("Matrix")
  set.seed(72)
  xs <- Matrix::rsparsematrix(60, 6, 0.4)
  y <- as.vector(xs %*% rnorm(6)) + rnorm(60)
  w <- rep(c(1, 2, 0.5), 20)
  folds <- rep(1:4, 15)
  lambda <- c(20, 2, 0.2)
  xd <- as.matrix(xs)
  fit <- rlsc_short(xs, y, weights = w, foldid = folds, lambda = lambda)
  ref <- ref_kfold(y, w, folds, lambda, function(train, held, l) {
    ref_predict(ref_coef(xd[train, ], y[train], w[train], l), xd[held, , drop = FALSE])
  })
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-9)
  expect_equal(fit$cvsd, ref$cvsd, tolerance = 1e-9)
  # in chunks (with the same folds, and then without them: LOO)
  src <- chunk_matrix(xs, y, weights = w, chunk_rows = 13, foldid = folds)
  expect_same_fit(rlsc_short(src, cv = 4, lambda = lambda), fit, tol = 1e-9)
  loo <- rlsc_short(chunk_matrix(xs, y, weights = w, chunk_rows = 13), lambda = lambda)
  expect_equal(loo$cvm, vapply(lambda, function(l) ref_mse(y, ref_loo(xd, y, w, l), w)[1], 1),
               tolerance = 1e-9)
})
