# Nystrom and random-feature fits: exact LOO on the features against brute
# force, the exact kernel fit when every row is a landmark, the approximation
# as m grows, and chunked fits equal to in-memory ones.

test_that("Nystrom with every training row a landmark is the exact kernel fit", {
  d <- sine_data(50, 301)
  w <- c(0, 0, runif(48, 0.5, 2))
  lam <- 10^seq(1, -3, length.out = 13)
  newx <- matrix(runif(10, -2, 2), 5)
  sigmas <- c(0.6, 1.2, 2.4)
  exact <- rlsc_short(d$x, d$y, weights = w, kernel = kernel_rbf(sigmas), lambda = lam)
  set.seed(1)
  ny <- rlsc_short(d$x, d$y, weights = w, kernel = nystrom(kernel_rbf(sigmas), m = 48), lambda = lam)
  expect_s3_class(ny, "rlsc_features_fit")
  expect_equal(ny$kernel_path$mse, exact$kernel_path$mse, tolerance = 1e-8)
  expect_equal(ny$kernel_path$mse_se, exact$kernel_path$mse_se, tolerance = 1e-8)
  expect_identical(c(ny$sigma_min, ny$lambda_min, ny$lambda_1se),
                   c(exact$sigma_min, exact$lambda_min, exact$lambda_1se))
  for (l in lam[c(3, 7, 11)]) {
    expect_equal(loo_predict(ny, l), loo_predict(exact, l), tolerance = 1e-8)
  }
  expect_equal(predict(ny, newx), predict(exact, newx), tolerance = 1e-8)
  expect_equal(fitted(ny), fitted(exact), tolerance = 1e-8)
  exact_eig <- rlsc_short(d$x, d$y, weights = w, kernel = kernel_rbf(sigmas), lambda = lam,
                          keep_eigen = TRUE)
  se_ny <- predict(ny, newx, lambda = lam[5], se.fit = TRUE)
  se_ex <- predict(exact_eig, newx, lambda = lam[5], se.fit = TRUE)
  for (k in c("fit", "se.fit", "df", "residual.scale")) {
    expect_equal(unname(se_ny[[k]]), unname(se_ex[[k]]), tolerance = 1e-8, info = k)
  }
  # the landmarks are the rows of positive weight, in a random order
  z <- ny$features$landmarks
  expect_identical(sort(z[, 1]), sort(d$x[w > 0, 1]))
  # the default grid comes from the same spectrum: the same top; its bottom
  # stops where each form's numbers stay reliable (the exact kernel's rounding
  # noise differs from the features'), and both find the same minimum
  set.seed(1)
  nyd <- suppressWarnings(rlsc(d$x, d$y, weights = w, kernel = nystrom(kernel_rbf(1.2), m = 48)))
  exd <- suppressWarnings(rlsc(d$x, d$y, weights = w, kernel = kernel_rbf(1.2)))
  expect_equal(nyd$lambda[1], exd$lambda[1], tolerance = 1e-8)
  expect_equal(nyd$cvm[nyd$index_min], exd$cvm[exd$index_min], tolerance = 1e-3)
  at <- nyd$lambda_min
  expect_equal(loo_predict(nyd, at), loo_predict(rlsc_short(d$x, d$y, weights = w, kernel = kernel_rbf(1.2),
                                                            lambda = at)), tolerance = 1e-8)

  # multiclass, with weights
  idx <- c(1:20, 51:70, 101:120)
  x <- scale(as.matrix(iris[idx, 1:4]))
  y <- iris$Species[idx]
  wc <- rep(c(1, 2, 0.5), 20)
  exact <- rlsc_short(x, y, weights = wc, kernel = kernel_rbf(c(1, 2)), lambda = lam)
  ny <- rlsc_short(x, y, weights = wc, kernel = nystrom(kernel_rbf(c(1, 2)), m = 60), lambda = lam)
  expect_equal(ny$kernel_path[c("mse", "misclass", "misclass_se")],
               exact$kernel_path[c("mse", "misclass", "misclass_se")], tolerance = 1e-8)
  expect_identical(c(ny$sigma_min, ny$lambda_min), c(exact$sigma_min, exact$lambda_min))
  expect_equal(loo_predict(ny), loo_predict(exact), tolerance = 1e-8)
  expect_identical(unname(predict(ny, x, type = "class")), unname(predict(exact, x, type = "class")))
})

test_that("Nystrom LOO equals brute-force ridge refits on the same features", {
  d <- sine_data(45, 302)
  w <- c(0, runif(43, 0.3, 2), 0)
  z <- matrix(runif(16, -2, 2), 8)
  newx <- matrix(runif(8, -2, 2), 4)
  kfun <- function(a, b) ref_rbf(a, b, 1.1)
  fit <- rlsc_short(d$x, d$y, weights = w, kernel = nystrom(kernel_rbf(1.1), landmarks = z))
  check_feature_fit(fit, ref_nystrom(d$x, z, kfun), d$y, w, at = c(20, 50, 80, fit$index_min),
                    newx = newx, phi_new = ref_nystrom(newx, z, kfun))
  # the coefficients are those of k(x, z_j): f(x) = b + sum_j alpha_j k(x, z_j)
  cf <- coef(fit)
  expect_named(cf, c("(Intercept)", paste0("z", 1:8)))
  expect_equal(unname(predict(fit, newx)), drop(cf[1] + kfun(newx, z) %*% cf[-1]), tolerance = 1e-10)
  # polynomial kernel, without intercept
  kp <- function(a, b) ref_poly(a, b, degree = 2, scale = 0.5)
  fitp <- rlsc_short(d$x, d$y, weights = w, intercept = FALSE,
                     kernel = nystrom(kernel_polynomial(2, scale = 0.5), landmarks = z))
  phi <- ref_nystrom(d$x, z, kp)
  for (l in fitp$lambda[c(30, 70)]) {
    expect_equal(unname(loo_predict(fitp, l)), drop(ref_loo(phi, d$y, w, l, intercept = FALSE)),
                 tolerance = 1e-8)
  }
  # multiclass with weights; a custom kernel, landmarks drawn from the data
  idx <- c(1:25, 51:75, 101:125)
  x <- scale(as.matrix(iris[idx, 1:4]))
  y <- iris$Species[idx]
  wc <- rep(c(1, 3, 0.5), 25)
  lap <- function(a, b, rho) exp(-rho * sqrt(pmax(ref_sqdist(a, b), 0)))
  set.seed(2)
  fitc <- rlsc_short(x, y, weights = wc, kernel = nystrom(kernel_custom(lap, rho = c(0.5, 1)), m = 12))
  zc <- fitc$features$landmarks
  expect_true(all(apply(zc, 1, function(r) any(colSums(abs(t(x) - r)) == 0))))
  rho <- fitc$kernel$params$rho
  check_feature_fit(fitc, ref_nystrom(x, zc, function(a, b) lap(a, b, rho)), y, wc,
                    at = c(25, 60, fitc$index_min), newx = x[1:6, ],
                    phi_new = ref_nystrom(x[1:6, ], zc, function(a, b) lap(a, b, rho)))
})

test_that("random-feature LOO equals brute-force ridge refits on the same features", {
  d <- sine_data(40, 303, d = 3)
  w <- c(runif(38, 0.3, 2), 0, 0)
  newx <- matrix(runif(12, -2, 2), 4)
  set.seed(3)
  fit <- rlsc_short(d$x, d$y, weights = w, kernel = random_features(kernel_rbf(c(0.8, 1.6)), m = 15))
  f <- fit$features
  # the documented draw: omega standard normal (d x m), then b uniform on [0, 2 pi)
  set.seed(3)
  expect_identical(f$omega, matrix(rnorm(45), 3, 15))
  expect_identical(f$b, runif(15, 0, 2 * pi))
  expect_identical(f$sigma, fit$sigma_min)
  check_feature_fit(fit, ref_rff(d$x, f$omega, f$b, f$sigma), d$y, w,
                    at = c(15, 50, 85, fit$index_min), newx = newx,
                    phi_new = ref_rff(newx, f$omega, f$b, f$sigma))
  expect_named(coef(fit), c("(Intercept)", paste0("phi", 1:15)))
  # multiclass
  idx <- c(1:20, 51:70, 101:120)
  x <- as.matrix(iris[idx, 1:4])
  y <- iris$Species[idx]
  wc <- rep(c(2, 1), 30)
  set.seed(4)
  fitc <- rlsc_short(x, y, weights = wc, kernel = random_features(kernel_rbf(1), m = 10))
  fc <- fitc$features
  check_feature_fit(fitc, ref_rff(x, fc$omega, fc$b, 1), y, wc, at = c(10, 50, 90))
})

test_that("one draw of landmarks or frequencies serves every sigma, reproducibly", {
  d <- sine_data(60, 304)
  lam <- 10^seq(1, -3, length.out = 9)
  for (make in list(function(s) nystrom(kernel_rbf(s), m = 15),
                    function(s) random_features(kernel_rbf(s), m = 25))) {
    set.seed(5)
    all <- rlsc_short(d$x, d$y, kernel = make(c(0.5, 1, 2)), lambda = lam)
    set.seed(5)
    one <- rlsc_short(d$x, d$y, kernel = make(2), lambda = lam)
    set.seed(5)
    again <- rlsc_short(d$x, d$y, kernel = make(c(0.5, 1, 2)), lambda = lam)
    expect_equal(all$kernel_path$mse[all$kernel_path$sigma == 2], one$path$mse, tolerance = 1e-12)
    expect_identical(again$kernel_path, all$kernel_path)
    expect_identical(predict(again, d$x[1:3, ]), predict(all, d$x[1:3, ]))
    expect_identical(nrow(all$kernel_path), 27L)
    expect_identical(all$kernel_path$lambda[all$kernel_path$sigma == all$sigma_min &
                                            all$kernel_path$mse == min(all$kernel_path$mse)],
                     all$lambda_min)
  }
})

test_that("the LOO error approaches the exact kernel's as m grows", {
  # n = 2000, m = 50, 200, 800 is in bench/README.md (features.R); this is its small version
  set.seed(305)
  n <- 400
  x <- matrix(runif(2 * n, -3, 3), n)
  y <- sin(2 * x[, 1]) * cos(2 * x[, 2]) + rnorm(n, sd = 0.2)
  sig <- c(0.4, 0.8, 1.6)
  exact <- suppressWarnings(rlsc(x, y, kernel = kernel_rbf(sig)))
  best <- exact$cvm[exact$index_min]
  gap <- function(kernel) {
    set.seed(6)
    fit <- suppressWarnings(rlsc(x, y, kernel = kernel))
    fit$cvm[fit$index_min] - best
  }
  ny <- vapply(c(10, 40, 160), function(m) gap(nystrom(kernel_rbf(sig), m = m)), 1)
  rf <- vapply(c(20, 80, 320), function(m) gap(random_features(kernel_rbf(sig), m = m)), 1)
  expect_true(all(diff(ny) < 0), info = paste(ny, collapse = " "))
  expect_true(all(diff(rf) < 0), info = paste(rf, collapse = " "))
  expect_lt(abs(ny[3]), 0.05 * best)
  expect_gt(ny[1], 0.5 * best)   # m = 10 is far from enough
})

test_that("classification, the formula interface, standardize and sparse x work as for kernels", {
  df <- transform(mtcars, cyl = factor(cyl))
  x <- model.matrix(mpg ~ wt + hp + cyl, df)[, -1]   # (the design the formula method builds)
  z <- x[c(3, 9, 15, 21, 27), ]
  lam <- 10^seq(2, -2, length.out = 9)
  kern <- nystrom(kernel_rbf(c(50, 100)), landmarks = z)
  f1 <- rlsc_short(mpg ~ wt + hp + cyl, data = df, kernel = kern, lambda = lam)
  f2 <- rlsc_short(x, df$mpg, kernel = kern, lambda = lam)
  expect_equal(f1$kernel_path, f2$kernel_path, tolerance = 1e-12)
  expect_equal(unname(predict(f1, df[1:4, ])), unname(predict(f2, x[1:4, ])), tolerance = 1e-12)
  # standardize: the fit of the scaled columns, landmarks given in original units
  s <- sqrt(colMeans(sweep(x, 2, colMeans(x))^2))
  f3 <- rlsc_short(x, df$mpg, kernel = nystrom(kernel_rbf(c(1, 2)), landmarks = z),
                   standardize = TRUE, lambda = lam)
  f4 <- rlsc_short(sweep(x, 2, s, "/"), df$mpg,
                   kernel = nystrom(kernel_rbf(c(1, 2)), landmarks = sweep(z, 2, s, "/")), lambda = lam)
  expect_equal(f3$kernel_path, f4$kernel_path, tolerance = 1e-10)
  expect_equal(predict(f3, x[1:4, ]), predict(f4, sweep(x[1:4, ], 2, s, "/")),
               tolerance = 1e-10)
  # landmarks taken by name when they have the columns of x among others
  zn <- cbind(extra = 1, z[, rev(colnames(z))])
  expect_equal(rlsc_short(x, df$mpg, kernel = nystrom(kernel_rbf(50), landmarks = zn),
                          lambda = lam)$path,
               rlsc_short(x, df$mpg, kernel = nystrom(kernel_rbf(50), landmarks = z),
                          lambda = lam)$path, tolerance = 1e-12)
  # binary classification: classes from the sign of the decision values
  y2 <- factor(df$am, labels = c("auto", "manual"))
  set.seed(7)
  # 30 features on 32 rows nearly interpolate at the bottom of the grid: warned
  cl <- suppressWarnings(rlsc(scale(x), y2, kernel = random_features(kernel_rbf(c(2, 4)), m = 30)))
  expect_identical(cl$criterion, "misclass")
  expect_identical(as.character(predict(cl, scale(x), type = "class")),
                   unname(ifelse(predict(cl, scale(x)) > 0, "manual", "auto")))
  expect_s3_class(summary(cl)$confusion, "table")
  # sparse x gives the dense fit
  skip_if_not_installed("Matrix")
  xs <- Matrix::Matrix(x, sparse = TRUE)
  expect_equal(rlsc_short(xs, df$mpg, kernel = kern, lambda = lam)$kernel_path, f2$kernel_path,
               tolerance = 1e-12)
})

test_that("k-means landmarks are the centres of the clusters they define", {
  d <- sine_data(80, 306)
  set.seed(8)
  fit <- rlsc_short(d$x, d$y, kernel = nystrom(kernel_rbf(1), m = 8, landmarks = "kmeans"))
  z <- fit$features$landmarks
  expect_identical(dim(z), c(8L, 2L))
  nearest <- apply(ref_sqdist(d$x, z), 1, which.min)
  expect_setequal(unique(nearest), 1:8)
  for (k in 1:8) expect_equal(z[k, ], colMeans(d$x[nearest == k, , drop = FALSE]), tolerance = 1e-10)
  check_feature_fit(fit, ref_nystrom(d$x, z, function(a, b) ref_rbf(a, b, 1)), d$y, at = c(30, 70))
})

test_that("the median heuristic sets sigma when it is not given", {
  d <- sine_data(50, 307)
  set.seed(9)
  fit <- rlsc_short(d$x, d$y, kernel = random_features(kernel_rbf(), m = 20))
  # the median heuristic times 1/4 to 4, chosen among by exact LOO
  expect_equal(fit$kernel_grid$sigma, median(dist(d$x)) * 2^(-2:2))
  expect_true(fit$sigma_min %in% fit$kernel_grid$sigma)
  expect_output(print(random_features(kernel_rbf(), m = 20)),
                "random_features\\(rbf\\(sigma = median heuristic\\), m = 20\\)")
})

test_that("the methods of a feature fit: print, summary, plot, tidiers, saved fits", {
  d <- sine_data(40, 308)
  set.seed(10)
  fit <- rlsc_short(d$x, d$y, kernel = nystrom(kernel_rbf(c(0.5, 1)), m = 10))
  expect_output(print(fit), "Kernel: nystrom\\(rbf\\(sigma = (0.5|1)\\), m = 10\\), chosen among 2 settings")
  expect_output(print(summary(fit)),
                "Kernel: nystrom\\(rbf\\(sigma = (0.5|1)\\), m = 10\\), chosen among 2 settings by exact LOO")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(fit), fit)
  expect_error(plot(fit, type = "coef"), "needs a linear fit")
  expect_identical(nobs(fit), 40L)
  expect_equal(residuals(fit), d$y - fitted(fit))
  file <- tempfile(fileext = ".rds")
  on.exit(unlink(file), add = TRUE)
  saveRDS(fit, file)
  back <- readRDS(file)
  expect_identical(predict(back, d$x[1:5, ]), predict(fit, d$x[1:5, ]))
  expect_identical(loo_predict(back), loo_predict(fit))
  expect_identical(coef(back, lambda = 0.123), coef(fit, lambda = 0.123))
  # any lambda >= 0, exactly: the coefficients at a value off the grid
  phi <- ref_nystrom(d$x, fit$features$landmarks, function(a, b) ref_rbf(a, b, fit$sigma_min))
  cf <- ref_coef(phi, d$y, lambda = 0.123)
  expect_equal(unname(predict(fit, d$x[1:5, ], lambda = 0.123)),
               drop(ref_predict(cf, phi[1:5, ])), tolerance = 1e-8)
})

test_that("chunked Nystrom and random-feature fits equal the in-memory ones", {
  d <- make_data(70, 3, ntarget = 2, seed = 309)
  w <- runif(70, 0.2, 2)
  w[c(5, 40)] <- 0
  z <- d$x[c(2, 11, 23, 31, 47, 58), ] + 0.1
  lam <- 10^seq(3, -1, length.out = 11)
  kernels <- list(nystrom = function() nystrom(kernel_rbf(c(2, 4)), landmarks = z),
                  rff = function() random_features(kernel_rbf(c(2, 4)), m = 12))
  for (k in names(kernels)) for (icpt in c(TRUE, FALSE)) for (std in c(FALSE, TRUE)) {
    y <- if (icpt) d$y else d$y[, 1]
    set.seed(11)
    ref <- rlsc_short(d$x, y, weights = w, intercept = icpt, standardize = std,
                      kernel = kernels[[k]](), lambda = lam)
    for (ch in c("one", "uneven", "singles", "shuffled", "zero_chunk")) {
      src <- rows_source(d$x, y, w, chunkings(70, w)[[ch]])   # chunkings() sets the seed
      set.seed(11)
      fit <- rlsc_short(src, intercept = icpt,
                        standardize = std, kernel = kernels[[k]](), lambda = lam)
      info <- paste(k, icpt, std, ch)
      expect_same_fit(fit, ref, info = info)
      expect_equal(fit$kernel_path, ref$kernel_path, tolerance = 1e-10, info = info)
      expect_identical(fit$sigma_min, ref$sigma_min, info = info)
      expect_equal(predict(fit, d$x[1:4, ]), predict(ref, d$x[1:4, ]), tolerance = 1e-10, info = info)
    }
  }
  # the methods stream the source again
  src <- rows_source(d$x, d$y[, 1], w, chunkings(70)$uneven)
  set.seed(12)
  fit <- rlsc_short(src, kernel = random_features(kernel_rbf(3), m = 9))
  set.seed(12)
  ref <- rlsc_short(d$x, d$y[, 1], weights = w, kernel = random_features(kernel_rbf(3), m = 9))
  expect_equal(unname(loo_predict(fit)), unname(loo_predict(ref)), tolerance = 1e-10)
  expect_equal(unname(hatvalues(fit)), unname(hatvalues(ref)), tolerance = 1e-10)
  expect_equal(unname(predict(fit, src)), unname(predict(ref, d$x)), tolerance = 1e-10)
  expect_identical(c(nobs(fit), fit$nobs), c(nobs(ref), 70))
  expect_output(print(fit), "primal form from chunks")
})

test_that("chunked classification and formula fits with features equal the in-memory ones", {
  df <- transform(iris, big = factor(Sepal.Width > 3))
  parts <- split(df, rep(1:5, length.out = 150))
  src <- chunk_source(parts, identity)
  all <- do.call(rbind, parts)
  z <- as.matrix(iris[c(1, 60, 120, 140), 1:3])
  for (kern in list(nystrom(kernel_rbf(c(0.7, 1.4)), landmarks = cbind(z, bigTRUE = 1)),
                    random_features(kernel_rbf(c(0.7, 1.4)), m = 20))) {
    set.seed(13)
    ref <- rlsc_short(Species ~ Sepal.Length + Sepal.Width + Petal.Length + big, data = all,
                      kernel = kern)
    set.seed(13)
    fit <- rlsc_short(Species ~ Sepal.Length + Sepal.Width + Petal.Length + big, data = src,
                      kernel = kern)
    expect_same_fit(fit, ref)
    expect_identical(predict(fit, df[1:9, ], type = "class"), predict(ref, df[1:9, ], type = "class"))
  }
})

test_that("chunked fits sample landmarks and sigma from the whole source, reproducibly", {
  d <- sine_data(120, 310)
  src <- rows_source(d$x, d$y, chunks = split(1:120, rep(1:6, each = 20)))
  lam <- 10^seq(1, -4, length.out = 11)
  set.seed(14)
  fit <- rlsc_short(src, kernel = nystrom(kernel_rbf(), m = 30), lambda = lam)
  z <- fit$features$landmarks
  # rows of the data, from several chunks; sigma from the median heuristic of the sample
  rows <- apply(z, 1, function(r) which(colSums(abs(t(d$x) - r)) == 0))
  expect_length(unique(rows), 30)
  expect_gt(length(unique(ceiling(rows / 20))), 3)
  expect_equal(fit$sigma_min, median(dist(d$x)))   # all 120 rows: fewer than 1000
  set.seed(14)
  again <- rlsc_short(src, kernel = nystrom(kernel_rbf(), m = 30), lambda = lam)
  expect_identical(again$features$landmarks, z)
  # the caller's random numbers go on as if no worker had drawn any
  set.seed(15)
  u <- runif(3)
  set.seed(15)
  invisible(rlsc_short(src, kernel = nystrom(kernel_rbf(1), landmarks = z[1:3, ])))
  expect_identical(runif(3), u)
  # the same features as an in-memory fit with those landmarks: the same
  # criteria and the same function, to rounding
  ref <- rlsc_short(d$x, d$y, kernel = nystrom(kernel_rbf(fit$sigma_min), landmarks = z),
                    lambda = lam)
  cols <- c("lambda", "df", "mse", "mse_se")
  expect_equal(fit$path[cols], ref$path[cols], tolerance = 1e-10)
  expect_identical(fit$lambda_min, ref$lambda_min)
  expect_equal(predict(fit, d$x), predict(ref, d$x), tolerance = 1e-10)
  # The coefficients on the landmark columns k(x, z_j) are map V beta, map =
  # U D^(-1/2) from the eigendecomposition of K(Z, Z): a perturbation of the
  # Gram of the features (a chunked fit sums it in another order) moves beta
  # by about eps cond(Gram + lambda) relatively, and the map multiplies that
  # by up to sqrt(D_1 / D_r), here 4e5 (D_1 / D_r = 1.4e11).  Under the
  # reference BLAS both orders happen to round alike (2.7e-12); under
  # OpenBLAS they differ by 5e-9, within the bound (1.8e-6), while the
  # function above agrees to 1e-11.
  gram <- fit$engine$values
  kz <- eigen(kernel_matrix(kernel_rbf(fit$sigma_min), z), symmetric = TRUE, only.values = TRUE)$values
  bound <- .Machine$double.eps * (max(gram) + fit$lambda_min) / (min(gram) + fit$lambda_min) *
    sqrt(max(kz) / min(kz))
  expect_lt(bound, 1e-5)
  expect_equal(coef(fit), coef(ref), tolerance = bound)
})

test_that("parallel backends give the same feature fits as a sequential one", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  path <- getNamespaceInfo("rlsc", "path")
  skip_if_not(file.exists(file.path(path, "Meta", "package.rds")), "rlsc is loaded from source, not installed")
  d <- sine_data(90, 311)
  src <- rows_source(d$x, d$y, chunks = split(1:90, rep(1:5, length.out = 90)))
  fits <- list()
  on.exit(future::plan("sequential"))
  for (backend in c("sequential", "multisession")) {
    if (backend == "sequential") future::plan("sequential") else future::plan(backend, workers = 2)
    set.seed(16)
    fits[[backend]] <- rlsc_short(src, standardize = TRUE, kernel = nystrom(kernel_rbf(), m = 12))
  }
  expect_identical(fits$multisession$features$landmarks, fits$sequential$features$landmarks)
  expect_same_fit(fits$multisession, fits$sequential)
})

test_that("K-fold, GCV and the AUC of feature fits equal refits on the same features", {
  d <- sine_data(48, 312)
  w <- runif(48, 0.3, 2)
  folds <- rep(1:4, length.out = 48)
  z <- d$x[c(3, 9, 17, 26, 33, 41), ]
  lam <- c(3, 0.3, 0.03)
  kfun <- function(a, b) ref_rbf(a, b, 0.9)
  phi <- ref_nystrom(d$x, z, kfun)
  fit <- rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lam,
                    kernel = nystrom(kernel_rbf(0.9), landmarks = z))
  ref <- ref_kfold(d$y, w, folds, lam, function(train, held, l) {
    ref_predict(ref_coef(phi[train, ], d$y[train], w[train], l), phi[held, , drop = FALSE])
  })
  expect_identical(fit$cv, 4L)
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-8)
  expect_equal(fit$cvsd, ref$cvsd, tolerance = 1e-8)
  # the model itself is the full-data fit; a chunk source with the same folds agrees
  expect_equal(unname(fitted(fit, 0.3)), drop(ref_predict(ref_coef(phi, d$y, w, 0.3), phi)),
               tolerance = 1e-8)
  src <- chunk_source(split(1:48, rep(1:3, each = 16)), function(idx) {
    list(x = d$x[idx, ], y = d$y[idx], weights = w[idx], foldid = folds[idx])
  })
  expect_same_fit(rlsc_short(src, cv = 4, lambda = lam, kernel = nystrom(kernel_rbf(0.9), landmarks = z)),
                  fit)
  # random features, K-fold on a multiclass response
  idx <- c(1:20, 51:70, 101:120)
  x <- as.matrix(iris[idx, 1:4])
  y <- iris$Species[idx]
  set.seed(17)
  rf <- rlsc_short(x, y, cv = 3, lambda = lam, kernel = random_features(kernel_rbf(1), m = 10))
  f <- rf$features
  phr <- ref_rff(x, f$omega, f$b, 1)
  refc <- ref_kfold(ref_code(y), rep(1, 60), rf$foldid, lam, function(train, held, l) {
    ref_predict(ref_coef(phr[train, ], ref_code(y)[train, ], rep(1, sum(train)), l),
                phr[held, , drop = FALSE])
  }, loss = function(yy, p) as.numeric(max.col(p, "first") != max.col(yy, "first")))
  expect_equal(rf$cvm, refc$cvm, tolerance = 1e-8)
  # GCV: n RSS / (n - df)^2 of the fit on the features
  gcv <- rlsc_short(d$x, d$y, cv = "gcv", lambda = lam, kernel = nystrom(kernel_rbf(0.9), landmarks = z))
  ref_gcv <- vapply(lam, function(l) {
    r <- d$y - ref_predict(ref_coef(phi, d$y, lambda = l), phi)
    48^2 * mean(r^2) / (48 - sum(ref_hat(phi, lambda = l)))^2
  }, 1)
  expect_equal(gcv$cvm, ref_gcv, tolerance = 1e-8)
  # the leave-pair-out AUC of the fit on the features
  yb <- factor(d$y > median(d$y))
  auc <- rlsc_short(d$x, yb, criterion = "auc", lambda = lam,
                    kernel = nystrom(kernel_rbf(0.9), landmarks = z))
  ref_lpo <- ref_lpo_auc(yb == "TRUE", rep(1, nrow(phi)), lam, function(keep, r, l) {
    ref_predict(ref_coef(phi[keep, ], ref_code(yb)[keep, , drop = FALSE], lambda = l),
                phi[r, , drop = FALSE])
  })
  expect_equal(auc$cvm, ref_lpo, tolerance = 1e-10)
  # K-fold AUC: the mean over folds of each fold's AUC of its held-out values
  aucf <- rlsc_short(d$x, yb, criterion = "auc", foldid = folds, lambda = lam,
                     kernel = nystrom(kernel_rbf(0.9), landmarks = z))
  for (i in seq_along(lam)) {
    per_fold <- vapply(1:4, function(k) {
      train <- folds != k
      pred <- ref_predict(ref_coef(phi[train, ], ref_code(yb)[train, ], lambda = lam[i]),
                          phi[!train, , drop = FALSE])
      ref_auc(drop(pred), yb[!train] == "TRUE")
    }, 1)
    expect_equal(aucf$cvm[i], mean(per_fold), tolerance = 1e-10)
  }
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, 2), kernel = nystrom(kernel_rbf(0.9), landmarks = z)),
               "`penalty_factor` applies to the columns of a linear model, not to a kernel fit")
  expect_error(rlsc(src, penalty_factor = c(1, 2), kernel = nystrom(kernel_rbf(0.9), landmarks = z)),
               "`penalty_factor` applies to the columns of a linear model, not to a kernel fit")
})
