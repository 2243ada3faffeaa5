# Kernel constructors, kernel matrices and the checks of the `kernel` argument.

test_that("kernel matrices computed in C equal the formulas written out in R", {
  set.seed(61)
  x <- matrix(rnorm(30 * 3), 30) + 1e3   # far from the origin: the RBF centers first
  z <- matrix(rnorm(7 * 3), 7) + 1e3
  expect_equal(kernel_matrix(kernel_rbf(0.7), x), ref_rbf(x - 1e3, sigma = 0.7), tolerance = 1e-10)
  expect_equal(kernel_matrix(kernel_rbf(2), x, z), ref_rbf(x - 1e3, z - 1e3, 2), tolerance = 1e-10)
  expect_identical(diag(kernel_matrix(kernel_rbf(2), x)), rep(1, 30))
  y <- x - 1e3
  expect_equal(kernel_matrix(kernel_polynomial(3, scale = 0.5, offset = 2), y),
               ref_poly(y, degree = 3, scale = 0.5, offset = 2), tolerance = 1e-12)
  expect_equal(kernel_matrix(kernel_polynomial(2), y, z - 1e3), ref_poly(y, z - 1e3, 2),
               tolerance = 1e-12)
  expect_equal(kernel_matrix(kernel_linear(), y, z - 1e3), tcrossprod(y, z - 1e3), tolerance = 1e-12)
  k <- kernel_matrix(kernel_rbf(1), y)
  expect_identical(k, t(k))
  custom <- kernel_custom(function(a, b, p) tcrossprod(a, b)^p, p = 2)
  expect_equal(kernel_matrix(custom, y, z - 1e3), tcrossprod(y, z - 1e3)^2)
})

test_that("constructors hold their parameters and print them", {
  expect_identical(kernel_rbf(c(1, 2))$params$sigma, c(1, 2))
  expect_null(kernel_rbf()$params$sigma)
  expect_identical(kernel_polynomial(2:3)$params,
                   list(degree = c(2, 3), scale = 1, offset = 1))
  expect_output(print(kernel_rbf(c(0.5, 1))), "<rlsc kernel> rbf\\(sigma = \\{0.5, 1\\}\\)")
  expect_output(print(kernel_rbf()), "median heuristic")
  expect_identical(format(kernel_polynomial(3, offset = 0)), "polynomial(degree = 3, scale = 1, offset = 0)")
  expect_identical(format(kernel_linear()), "linear()")
})

test_that("bad kernel parameters are clear errors naming the argument", {
  expect_error(kernel_rbf(0), "`sigma` must be positive, not 0")
  expect_error(kernel_rbf(c(1, -2)), "`sigma` must be positive, not -2")
  expect_error(kernel_rbf(NA), "`sigma` must be a numeric vector of positive values, not logical vector")
  expect_error(kernel_rbf(Inf), "`sigma` must be positive, not Inf")
  expect_error(kernel_rbf("1"), "`sigma` must be a numeric vector")
  expect_error(kernel_polynomial(1.5), "`degree` must be a positive whole number, not 1.5")
  expect_error(kernel_polynomial(c(2, 0)), "`degree` must be a positive whole number, not 0")
  expect_error(kernel_polynomial(2, scale = -1), "`scale` must be positive, not -1")
  expect_error(kernel_polynomial(2, offset = -1), "`offset` must be non-negative, not -1")
  expect_error(kernel_custom(1), "`fun` must be a function of two matrices")
  expect_error(kernel_custom(function(a, b, p) 1, 2), "must be named")
  expect_error(kernel_custom(function(a, b, p) 1, p = list(1)), "parameter `p` of `fun` must be a vector")
  x <- matrix(1:6, 3)
  expect_error(kernel_matrix("rbf", x), "`kernel` must be a kernel such as kernel_rbf\\(1\\)")
  expect_error(kernel_matrix(kernel_rbf(), x), "must have a value of `sigma`")
  expect_error(kernel_matrix(kernel_rbf(1:2), x), "one value of each parameter")
  expect_error(kernel_matrix(kernel_rbf(1), x, matrix(1, 2, 3)), "`z` must have 2 columns")
})

test_that("the kernel argument of rlsc() is checked", {
  set.seed(62)
  x <- matrix(rnorm(40), 20)
  y <- rnorm(20)
  expect_error(rlsc(x, y, kernel = "gauss"),
               "`kernel` must be \"linear\", \"rbf\", \"polynomial\", \"precomputed\" or a kernel")
  expect_error(rlsc(x, y, kernel = 2), "`kernel` must be")
  expect_error(rlsc(x, y, kernel = kernel_rbf(1), mode = "primal"), "`mode` = \"primal\" needs the linear kernel")
  expect_error(rlsc(x, y, kernel = kernel_rbf(1), keep_eigen = NA), "`keep_eigen` must be TRUE or FALSE")
  # a precomputed kernel: square, n x n, symmetric, finite
  k <- ref_rbf(x, sigma = 1)
  expect_error(rlsc(k[, -1], y, kernel = "precomputed"),
               "`x` must be a square n x n kernel matrix for `kernel` = \"precomputed\", not 20 x 19")
  expect_error(rlsc(k[-1, -1], y, kernel = "precomputed"),
               "`x` must be the n x n kernel matrix of the n = 20 training rows \\(the length of `y`\\)")
  ka <- k
  ka[1, 2] <- 0.5
  expect_error(rlsc(ka, y, kernel = "precomputed"), "`x` \\(a precomputed kernel\\) must be a symmetric matrix")
  k[3, 3] <- NA
  expect_error(rlsc(k, y, kernel = "precomputed"), "`x` must not contain NA, NaN or Inf values")
  # a custom kernel: right shape, finite, symmetric
  bad_shape <- kernel_custom(function(a, b) tcrossprod(a, b)[, -1])
  expect_error(rlsc(x, y, kernel = bad_shape),
               "the custom `kernel` function must return a numeric 20 x 20 matrix for fun\\(x, x\\), not 20 x 19")
  expect_error(rlsc(x, y, kernel = kernel_custom(function(a, b) "k")),
               "must return a numeric 20 x 20 matrix for fun\\(x, x\\), not character vector")
  with_na <- kernel_custom(function(a, b) { k <- tcrossprod(a, b); k[1, 1] <- NA; k })
  expect_error(rlsc(x, y, kernel = with_na),
               "the custom `kernel` function returned NA, NaN or Inf values for fun\\(x, x\\)")
  asym <- kernel_custom(function(a, b) tcrossprod(a, b + 1))
  expect_error(rlsc(x, y, kernel = asym), "the custom `kernel` function's fun\\(x, x\\) must be a symmetric matrix")
  fails <- kernel_custom(function(a, b) stop("boom"))
  expect_error(rlsc(x, y, kernel = fails), "the custom `kernel` function failed on fun\\(x, x\\): boom")
  # parameters the methods of a fit would reject are errors of the fit
  expect_error(kernel_custom(function(a, b, s) tcrossprod(a, b) + s, s = c(1, NA)),
               "parameter `s` of `fun` must have no NA, NaN or Inf values, not  1 NA")
  expect_error(kernel_custom(function(a, b, s) tcrossprod(a, b) + s, s = Inf), "must have no NA, NaN or Inf")
  edited <- kernel_polynomial(2)
  edited$params$offset <- -1
  msg <- "`kernel` must have finite values of its parameters, a positive `sigma`"
  expect_error(rlsc(x, y, kernel = edited), msg)
  edited <- nystrom(kernel_rbf(1), m = 5)
  edited$params$sigma <- c(1, -1)
  expect_error(rlsc(x, y, kernel = edited), msg)
  expect_error(rlsc(chunk_matrix(x, y, chunk_rows = 7), kernel = edited), msg)
})

test_that("an indefinite custom kernel warns and its negative eigenvalues are dropped", {
  set.seed(63)
  x <- matrix(rnorm(40), 20)
  y <- rnorm(20)
  neg <- kernel_custom(function(a, b) -tcrossprod(a, b))
  expect_warning(rlsc_short(x, y, kernel = neg, lambda = c(1, 0.1)), "not positive semi-definite")
})

test_that("without sigma, the RBF kernel tries the median heuristic times 1/4 to 4", {
  set.seed(64)
  x <- rbind(matrix(rnorm(60), 30), matrix(0, 2, 2))
  y <- rnorm(32)
  fit <- suppressWarnings(rlsc_short(x, y, kernel = kernel_rbf()))
  d <- dist(x)
  expect_equal(fit$kernel_grid$sigma, median(d[d > 0]) * 2^(-2:2))
  expect_equal(fit$sigma_min, fit$kernel_grid$sigma[fit$index_kernel])
  expect_identical(suppressWarnings(rlsc_short(x, y, kernel = "rbf"))$kernel_grid, fit$kernel_grid)
  # only rows of positive weight count
  w <- c(rep(1, 20), rep(0, 12))
  fitw <- suppressWarnings(rlsc_short(x, y, weights = w, kernel = kernel_rbf()))
  expect_equal(fitw$kernel_grid$sigma, median(dist(x[1:20, ])) * 2^(-2:2))
  # with standardize = TRUE, distances between the scaled rows
  fits <- suppressWarnings(rlsc_short(x * 10, y, standardize = TRUE, kernel = kernel_rbf()))
  xs <- sweep(x, 2, sqrt(colMeans(sweep(x, 2, colMeans(x))^2)), "/")
  ds <- dist(xs)
  expect_equal(fits$kernel_grid$sigma, median(ds[ds > 0]) * 2^(-2:2), tolerance = 1e-12)
  # the values tried are printed
  expect_output(print(fit), "chosen among 5 settings")
})

test_that("the C entry points reject wrong types and shapes", {
  call <- function(name, ...) .Call(getFromNamespace(name, "rlsc"), ...)
  x <- matrix(rnorm(8), 4)
  w <- rep(1, 4)
  expect_error(call("C_rlsc_kernel_matrix", 1:8, NULL, "rbf", 1, NULL, NULL, NULL, 1L), "'x' must be a double matrix")
  expect_error(call("C_rlsc_kernel_matrix", x, matrix(1, 2, 3), "rbf", 1, NULL, NULL, NULL, 1L),
               "'z' must have 2 columns")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "gauss", 1, NULL, NULL, NULL, 1L), "'type' must be")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, c("rbf", "rbf"), 1, NULL, NULL, NULL, 1L),
               "'type' must be a single string")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "rbf", c(1, 2), NULL, NULL, NULL, 1L),
               "'params' must have length 1")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "rbf", -1, NULL, NULL, NULL, 1L),
               "'sigma' must be finite and positive")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "polynomial", c(0.5, 1, 1), NULL, NULL, NULL, 1L),
               "'degree' must be")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "polynomial", c(2, NA, 1), NULL, NULL, NULL, 1L),
               "'scale' and 'offset' must be finite")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "precomputed", numeric(0), NULL, NULL, NULL, 1L),
               "must not be \"precomputed\"")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "linear", numeric(0), 1, NULL, NULL, 1L),
               "'shift' must have length 2")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "linear", numeric(0), NULL, 1, NULL, 1L),
               "'center' must have length 2")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "linear", numeric(0), NULL, 1:2, NULL, 1L),
               "'center' must be a double vector")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "linear", numeric(0), NULL, NULL, "a", 1L),
               "'scale' must be a double vector")
  expect_error(call("C_rlsc_kernel_asymmetry", x), "'k' must be square")
  ok <- list(x, w, "rbf", 1, NULL, NULL, NULL, TRUE, 2L)
  eig <- function(k, value) {
    args <- ok
    args[k] <- list(value)
    do.call(call, c("C_rlsc_kernel_eigen", args))
  }
  expect_type(eig(1, x), "list")
  expect_error(eig(2, w[-1]), "'w' must have length 4")
  expect_error(eig(2, 0 * w), "'w' must have a positive element")
  expect_error(eig(3, "precomputed"), "'params' must have length 0")
  expect_error(eig(5, c(0, 0, 0)), "'shift' must have length 2")
  expect_error(eig(6, c(0, 0, 0)), "'center' must have length 2")
  expect_error(eig(7, 1), "'scale' must have length 2")
  expect_error(eig(8, NA), "'intercept' must be TRUE or FALSE")
  expect_error(eig(9, 0L), "'threads' must be a positive whole number")
  expect_error(call("C_rlsc_kernel_matrix", x, NULL, "rbf", 1, NULL, NULL, NULL, NA_integer_),
               "'threads' must be a positive whole number")
  expect_error(call("C_rlsc_kernel_eigen", x, w, "precomputed", numeric(0), NULL, NULL, NULL, TRUE, 1L),
               "'x' must be a square kernel matrix, not 4 x 2")
  expect_error(call("C_rlsc_kernel_eigen", x * 1e200, w, "polynomial", c(9, 1, 1), NULL, NULL, NULL, TRUE, 1L),
               "the kernel matrix has NA, NaN or Inf values")
  # weights that overflow only once the kernel is weighted and centered
  expect_error(call("C_rlsc_kernel_eigen", x, w * 1e300, "polynomial", c(3, 1e3, 1), NULL, NULL, NULL, TRUE, 1L),
               "the weighted centered kernel matrix overflows")
})

test_that("a custom kernel may return a Matrix or integer values: the fit is that of its double matrix", {
  skip_if_not_installed("Matrix")
  set.seed(61)
  x <- matrix(sample(0:3, 60, replace = TRUE), 30)   # whole numbers: the integer kernel is exact
  set.seed(62)
  y <- x[, 1] - x[, 2] + rnorm(30)
  k <- function(a, b) tcrossprod(a, b) + 1
  lambda <- c(100, 10, 1, 0.1)
  ref <- rlsc(x, y, kernel = kernel_custom(k), lambda = lambda)
  loo <- sapply(lambda, function(l) ref_kernel_loo(k(x, x), y, lambda = l))
  expect_equal(ref$path$mse, colMeans((y - loo)^2), tolerance = 1e-10)
  as_integer <- kernel_custom(function(a, b) {
    out <- k(a, b)
    storage.mode(out) <- "integer"
    out
  })
  as_sparse <- kernel_custom(function(a, b) Matrix::Matrix(k(a, b), sparse = TRUE))
  for (kern in list(as_integer, as_sparse)) {
    fit <- rlsc(x, y, kernel = kern, lambda = lambda)
    expect_equal(fit$path, ref$path, tolerance = 1e-12)
    expect_equal(predict(fit, x[1:4, ], lambda = 1), predict(ref, x[1:4, ], lambda = 1), tolerance = 1e-12)
  }
  expect_error(rlsc(x, y, kernel = kernel_custom(function(a, b) k(a, b)[, -1])),
               "the custom `kernel` function must return a numeric 30 x 30 matrix for fun\\(x, x\\), not 30 x 29")
})
