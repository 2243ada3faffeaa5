# The constructors nystrom() and random_features(), the feature maps, and bad
# input: clear errors that name the argument.

test_that("constructors hold the kernel, m and the landmarks, and print them", {
  k <- nystrom(kernel_rbf(c(0.5, 1)), m = 10)
  expect_s3_class(k, c("rlsc_features", "rlsc_kernel"))
  expect_identical(k[c("name", "params", "base", "m")],
                   list(name = "nystrom", params = list(sigma = c(0.5, 1)), base = "rbf", m = 10L))
  expect_output(print(k), "<rlsc kernel> nystrom\\(rbf\\(sigma = \\{0.5, 1\\}\\), m = 10\\)")
  expect_identical(format(nystrom("polynomial", 5, "kmeans")),
                   "nystrom(polynomial(degree = 2, scale = 1, offset = 1), m = 5, landmarks = \"kmeans\")")
  z <- matrix(1:6, 3)
  kz <- nystrom(kernel_linear(), landmarks = z)
  expect_identical(kz$m, 3L)
  expect_identical(kz$landmarks, matrix(as.double(1:6), 3))
  expect_identical(format(kz), "nystrom(linear(), m = 3, landmarks = <3 x 2 matrix>)")
  expect_identical(format(random_features(kernel_rbf(2), 100)), "random_features(rbf(sigma = 2), m = 100)")
  expect_identical(random_features("rbf", 7)$params, list(sigma = NULL))
})

test_that("bad m is an error naming `m`", {
  for (bad in list(0, -1, 1.5, NA, Inf, "5", c(2, 3), NULL)) {
    expect_error(nystrom(kernel_rbf(1), m = bad), "^`m` must be a whole number of at least 1")
    expect_error(random_features(kernel_rbf(1), m = bad), "^`m` must be a whole number of at least 1")
  }
  expect_error(nystrom(kernel_rbf(1)), "argument \"m\" is missing")
  expect_error(nystrom(kernel_rbf(1), m = 4, landmarks = matrix(0, 3, 2)),
               "^`m` must be the number of rows of `landmarks` \\(3\\), not 4$")
  d <- sine_data(20, 321)
  w <- c(rep(0, 5), rep(1, 15))
  expect_error(rlsc(d$x, d$y, kernel = nystrom(kernel_rbf(1), m = 21)),
               paste0("^`m` must be at most the number of observations of positive weight ",
                      "\\(20\\) for nystrom\\(\\) with landmarks drawn from the data, not 21$"))
  expect_error(rlsc(d$x, d$y, weights = w, kernel = nystrom(kernel_rbf(1), m = 16)),
               "observations of positive weight \\(15\\)")
  expect_error(rlsc(rows_source(d$x, d$y, chunks = list(1:7, 8:20)), kernel = nystrom(kernel_rbf(1), m = 25)),
               "^`m` must be at most the number of observations of positive weight \\(20\\)")
  expect_error(rlsc(cbind(rep(1:2, 10), 0), d$y, kernel = nystrom(kernel_rbf(1), m = 3, landmarks = "kmeans")),
               "^`m` must be at most the number of distinct rows \\(2\\) for landmarks = \"kmeans\", not 3$")
  # more random features than rows is a primal fit of rank n - 1, not an error
  set.seed(1)
  fit <- suppressWarnings(rlsc(d$x, d$y, kernel = random_features(kernel_rbf(1), m = 50)))
  expect_identical(length(fit$engine$values), 19L)
})

test_that("bad landmarks are errors naming `landmarks`", {
  d <- sine_data(20, 322)
  expect_error(nystrom(kernel_rbf(1), landmarks = matrix(c(1, NA), 1)),
               "^`landmarks` must not contain NA, NaN or Inf values$")
  expect_error(nystrom(kernel_rbf(1), landmarks = matrix(c(1, Inf, 2, 3), 2)),
               "^`landmarks` must not contain NA, NaN or Inf values$")
  expect_error(nystrom(kernel_rbf(1), landmarks = data.frame(a = 1:2, b = c("u", "v"))),
               "^`landmarks` must have numeric columns only; column 'b' is character vector")
  expect_error(nystrom(kernel_rbf(1), 3, landmarks = "random"),
               "^`landmarks` must be NULL, \"kmeans\" or a numeric matrix, not random$")
  expect_error(nystrom(kernel_rbf(1), landmarks = list(1, 2)),
               "^`landmarks` must be a numeric matrix or data frame, not an object of class 'list'$")
  expect_error(nystrom(kernel_rbf(1), landmarks = matrix(0, 0, 2)), "^`landmarks` must have at least one row$")
  three <- nystrom(kernel_rbf(1), landmarks = matrix(0, 4, 3))
  expect_error(rlsc(d$x, d$y, kernel = three), "^`landmarks` must have 2 columns \\(as `x`\\), not 3$")
  expect_error(rlsc(rows_source(d$x, d$y, chunks = list(1:10, 11:20)), kernel = three),
               "^`landmarks` must have 2 columns \\(as `x`\\), not 3$")
  expect_error(rlsc(y ~ x1, data = data.frame(y = d$y, x1 = d$x[, 1]), kernel = three),
               "^`landmarks` must have 1 columns \\(as `x`\\), not 3$")
})

test_that("random_features() of a kernel other than RBF, and other bad kernels, are errors naming `kernel`", {
  expect_error(random_features(kernel_polynomial(2), 10),
               paste0("^`kernel` must be an RBF kernel, kernel_rbf\\(sigma\\), for ",
                      "random_features\\(\\): .* use nystrom\\(\\) for polynomial\\(degree = 2"))
  expect_error(random_features(kernel_linear(), 10), "`kernel` must be an RBF kernel")
  expect_error(random_features("polynomial", 10), "`kernel` must be an RBF kernel")
  expect_error(random_features(kernel_custom(function(a, b) tcrossprod(a, b)), 10),
               "`kernel` must be an RBF kernel")
  expect_error(nystrom("precomputed", 10),
               "^`kernel` of nystrom\\(\\) must be a kernel such as kernel_rbf\\(sigma\\), not \"precomputed\"$")
  expect_error(nystrom(nystrom(kernel_rbf(1), 5), 10), "`kernel` of nystrom\\(\\) must be a kernel")
  expect_error(random_features(function(a, b) 1, 10),
               paste0("^`kernel` of random_features\\(\\) must be a kernel such as ",
                      "kernel_rbf\\(sigma\\), not an object of class 'function'$"))
  expect_error(nystrom("gauss", 3), "must be a kernel such as kernel_rbf\\(sigma\\), not \"gauss\"$")
  d <- sine_data(20, 323)
  expect_error(rlsc(d$x, d$y, kernel = nystrom(kernel_rbf(1), 5), mode = "dual"),
               "^`mode` = \"dual\" does not apply to nystrom\\(\\) kernels")
  expect_error(kernel_matrix(nystrom(kernel_rbf(1), 5), d$x),
               paste0("^`kernel` must be an exact kernel such as kernel_rbf\\(1\\), ",
                      "not nystrom\\(rbf\\(sigma = 1\\), m = 5\\)"))
  # exact kernels stay an error for chunk sources
  expect_error(rlsc(rows_source(d$x, d$y, chunks = list(1:20)), kernel = kernel_rbf(1)),
               "a kernel fit needs all rows at once .* use the linear kernel, nystrom\\(\\) or random_features\\(\\)")
  expect_error(rlsc(d$x, d$y, kernel = nystrom(kernel_rbf(1), 5), keep_eigen = NA),
               "`keep_eigen` must be TRUE or FALSE")
})

test_that("the features of many rows come in tiles from C, equal to R's own on any threads", {
  # rows enough for several tiles per block and for the threads to start
  set.seed(49)
  x <- matrix(rnorm(3000 * 4), 3000) * 2 + 50
  z <- x[sample(3000, 300), ]
  ctr <- colMeans(z)
  sd <- c(1, 2, 0.5, 3)
  moved <- function(a) sweep(sweep(a, 2, ctr), 2, sd, "/")
  with_threads <- function(n, expr) withr::with_options(list(rlsc.threads = n), expr)
  for (kern in list(kernel_rbf(3), kernel_polynomial(2, 0.1, 1), kernel_linear())) {
    refk <- switch(kern$name, rbf = ref_rbf(moved(x), moved(z), 3),
                   polynomial = ref_poly(moved(x), moved(z), 2, 0.1, 1),
                   linear = tcrossprod(moved(x), moved(z)))
    map <- list(type = "nystrom", kernel = kern, landmarks = z, center = ctr, scale = sd,
                map = matrix(rnorm(300 * 40), 300))
    expect_equal(feature_rows(map, x), refk %*% map$map, tolerance = 1e-12)
    map$map <- NULL   # (the kernel alone: the path's and predict()'s rows)
    expect_equal(feature_rows(map, x), refk, tolerance = 1e-12)
    expect_identical(with_threads(2L, feature_rows(map, x)), with_threads(1L, feature_rows(map, x)))
  }
  omega <- matrix(rnorm(4 * 500), 4)
  b <- runif(500, 0, 2 * pi)
  rf <- list(type = "random_features", omega = omega, b = b, sigma = 0.7, scale = sd)
  expect_equal(feature_rows(rf, x), ref_rff(sweep(x, 2, sd, "/"), omega, b, 0.7), tolerance = 1e-12)
  expect_identical(with_threads(2L, feature_rows(rf, x)), with_threads(1L, feature_rows(rf, x)))
  # a fit's features on the threads and on one: the same path, bit for bit
  y <- sin(x[, 1]) + rnorm(3000, sd = 0.2)
  fit_with <- function(th, kernel) with_threads(th, {
    set.seed(3)
    rlsc_short(x, y, kernel = kernel)$kernel_path
  })
  for (kernel in list(nystrom(kernel_rbf(c(2, 4)), m = 200), random_features(kernel_rbf(c(2, 4)), 200))) {
    expect_identical(fit_with(2L, kernel), fit_with(1L, kernel))
  }
})

test_that("a kernel whose landmark matrix is zero or overflows is a clear error", {
  d <- sine_data(20, 324)
  zero <- kernel_custom(function(a, b) matrix(0, nrow(a), nrow(b)))
  expect_error(rlsc(d$x, d$y, kernel = nystrom(zero, 5)),
               "^the kernel matrix of the landmarks is zero for custom\\(\\): the Nystrom features are all zero$")
  expect_error(rlsc(d$x * 1e100, d$y, kernel = nystrom(kernel_polynomial(4), 5)),
               "^the kernel matrix of the landmarks has NA, NaN or Inf values \\(overflow\\?\\)")
})

test_that("feature maps written out in R: K(x, Z) map and the random Fourier features", {
  set.seed(2)
  x <- matrix(rnorm(30), 10) + 100
  z <- x[c(2, 5, 7), ] + 0.01
  map <- setting_map(nystrom(kernel_rbf(1.5), landmarks = z), z, NULL)
  phi <- feature_rows(map, x)
  ref <- ref_nystrom(x - 100, z - 100, function(a, b) ref_rbf(a, b, 1.5))
  expect_equal(tcrossprod(phi), tcrossprod(ref), tolerance = 1e-10)
  expect_equal(crossprod(map$map, feature_rows(map, z)), diag(3), tolerance = 1e-10)
  omega <- matrix(rnorm(6), 3)
  b <- runif(2, 0, 2 * pi)
  rf <- list(type = "random_features", omega = omega, b = b, sigma = 0.7)
  expect_equal(feature_rows(rf, x), ref_rff(x, omega, b, 0.7), tolerance = 1e-12)
  # as m grows, random features reproduce the kernel
  big <- random_features(kernel_rbf(2), 20000)
  draw <- draw_frequencies(big, 3)
  phi <- feature_rows(setting_map(big, NULL, draw), x[1:4, ] - 100)
  expect_lt(max(abs(tcrossprod(phi) - ref_rbf(x[1:4, ] - 100, sigma = 2))), 0.03)
})
