# The findings of the hostile pass (issue 14), one test each: every input
# that once gave a silent wrong answer now gives a correct one (checked
# against brute force), or a warning or an error that says why.

is_reliability_warning <- function(w) grepl("may be inaccurate", conditionMessage(w))

# The fit and its warnings: messages muffled and collected.
fit_warnings <- function(expr) {
  warned <- character()
  value <- withCallingHandlers(expr, warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = warned)
}

rel_err <- function(a, b) max(abs(a - b)) / max(abs(b))

test_that("rows of tiny weight in the dual form get the fitted and LOO values of brute force", {
  set.seed(1)
  x <- matrix(rnorm(20 * 30), 20)
  y <- rnorm(20)
  for (wt in c(1e-6, 1e-20, 1e-50)) {
    w <- rep(1, 20)
    w[12] <- wt
    fit <- rlsc_short(x, y, weights = w, lambda = c(10, 1))
    expect_identical(fit$form, "dual")
    for (l in fit$lambda) {
      expect_equal(unname(loo_predict(fit, l)), drop(ref_loo(x, y, w, l)), tolerance = 1e-9,
                   info = paste("weight", wt, "lambda", l))
      expect_equal(unname(fitted(fit, l)), drop(ref_predict(ref_coef(x, y, w, l), x)),
                   tolerance = 1e-9)
    }
  }
  # a weight ratio of 1e30 between the two halves of the rows
  w <- rep(c(1e30, 1), each = 10)
  fit <- rlsc_short(x, y, weights = w, lambda = c(1e31, 1e30))
  expect_equal(unname(loo_predict(fit, 1e30)), drop(ref_loo(x, y, w, 1e30)), tolerance = 1e-9)
  # the same in a kernel fit (the bordered reference needs lambda / w finite)
  w <- rep(1, 20)
  w[3] <- 1e-12
  k <- ref_rbf(x, sigma = 6)
  fit <- rlsc_short(x, y, weights = w, kernel = kernel_rbf(6), lambda = c(1, 0.1))
  for (l in fit$lambda) {
    expect_equal(unname(loo_predict(fit, l)), drop(ref_kernel_loo(k, y, w, l)), tolerance = 1e-9)
  }
})

test_that("weights of 1e300 give the fit of unit weights with lambda scaled, the same in every run", {
  set.seed(2)
  x <- matrix(rnorm(20 * 3), 20)
  y <- sin(x[, 1]) + rnorm(20, sd = 0.3)
  kernels <- list(kernel_rbf(2), kernel_polynomial(2), "precomputed")
  for (kern in kernels) {
    xx <- if (identical(kern, "precomputed")) ref_rbf(x, sigma = 2) else x
    k <- if (identical(kern, "precomputed")) xx else kernel_matrix(kern, x)
    fits <- lapply(1:2, function(i) {
      rlsc_short(xx, y, weights = rep(1e300, 20), kernel = kern, lambda = c(1e300, 1e299))
    })
    expect_identical(fits[[1]]$path, fits[[2]]$path)
    for (l in c(1, 0.1)) {
      expect_equal(unname(loo_predict(fits[[1]], l * 1e300)), drop(ref_kernel_loo(k, y, lambda = l)),
                   tolerance = 1e-9)
    }
  }
})

test_that("coefficients do not underflow in the dual and kernel forms", {
  set.seed(3)
  x <- matrix(rnorm(20 * 30), 20)
  y <- rnorm(20)
  fit <- rlsc_short(x * 1e100, y, lambda = c(1e201, 1e200))
  expect_identical(fit$form, "dual")
  cf <- ref_coef(x, y, lambda = 1)
  expect_equal(unname(coef(fit, 1e200)) * c(1, rep(1e100, 30)), drop(cf), tolerance = 1e-9)
  expect_equal(unname(predict(fit, x[1:3, ] * 1e100, lambda = 1e200)),
               drop(ref_predict(cf, x[1:3, ])), tolerance = 1e-9)
  # an RBF fit with all weights 1e200 is the fit of unit weights at lambda / 1e200
  k <- ref_rbf(x, sigma = 6)
  fit <- rlsc_short(x, y, weights = rep(1e200, 20), kernel = kernel_rbf(6), lambda = c(1e201, 1e200))
  expect_equal(unname(predict(fit, x[1:3, ], lambda = 1e200)),
               drop(ref_kernel_predict(ref_bordered(k, y, lambda = 1), k[1:3, ])), tolerance = 1e-9)
})

test_that("a column on a scale of 1e17 beside O(1) columns warns in both forms, and standardize = TRUE is exact", {
  set.seed(4)
  z <- matrix(rnorm(40 * 3), 40)
  y <- drop(z %*% c(1, -1, 0.5)) + rnorm(40)
  for (off in c(0, 1e18)) {   # with an offset the old global noise floor dropped the others
    x <- cbind(z[, 1] * 1e17 + off, z[, 2], z[, 3])
    for (mode in c("primal", "dual")) {
      res <- fit_warnings(rlsc(x, y, lambda = c(10, 1), mode = mode))
      ref <- drop(ref_loo_qr(x, y, lambda = 1))
      expect_gt(rel_err(suppressWarnings(loo_predict(res$value, 1)), ref), 1e-6)   # far off
      expect_true(any(grepl("may be inaccurate .*`standardize = TRUE`", res$warnings)),
                  info = paste(mode, off))
    }
  }
  fit <- rlsc_short(x, y, lambda = c(10, 1), standardize = TRUE)
  xs <- sweep(x, 2, fit$scale, "/")
  expect_equal(unname(loo_predict(fit, 1)), drop(ref_loo_qr(xs, y, lambda = 1)), tolerance = 1e-9)
})

test_that("lambda = 0 with directions dropped as numerically zero warns: nearly collinear x is not lm()", {
  set.seed(3)
  z <- matrix(rnorm(30 * 3), 30)
  sv <- svd(sweep(z, 2, colMeans(z)))
  x <- sv$u %*% diag(c(1, 1e-4, 1 / 1.5e8)) %*% t(sv$v)   # condition number 1.5e8
  y <- rnorm(30)
  press <- residuals(lm(y ~ x)) / (1 - hatvalues(lm(y ~ x)))
  for (mode in c("primal", "dual")) {
    res <- fit_warnings(rlsc(x, y, lambda = c(1, 0), mode = mode))
    expect_gt(max(abs(y - suppressWarnings(loo_predict(res$value, 0)) - press)), 1e-3)
    expect_true(any(grepl(paste0("at `lambda` = 0 the directions dropped as numerically zero make the fit ",
                                 "the minimum-norm one"),
                          res$warnings, fixed = TRUE)), info = mode)
    expect_warning(loo_predict(res$value, 0), "at `lambda` = 0 the directions dropped")
    expect_no_warning(loo_predict(res$value, 1))
  }
  # full-rank x at lambda = 0: lm()'s PRESS residuals, without a warning
  d <- make_data(30, 3, seed = 5)
  expect_no_warning(fit <- rlsc(d$x, d$y, lambda = 0))
  m <- lm(d$y ~ d$x)
  expect_equal(unname(d$y - loo_predict(fit, 0)), unname(residuals(m) / (1 - hatvalues(m))),
               tolerance = 1e-10)
})

test_that("the warning of nearly collinear columns names them, as lm()'s aliased coefficients do", {
  set.seed(11)
  n <- 40
  x <- matrix(rnorm(n * 5), n, dimnames = list(NULL, c("a", "b", "c", "d", "e")))
  y <- drop(x[, c("a", "c", "e")] %*% c(1, -1, 2)) + 0.1 * rnorm(n)   # (lambda_min = 0)
  # d = a + 2 b up to 1e-5: the smallest eigenvalue below 1e-9 of the largest
  x[, "d"] <- x[, "a"] + 2 * x[, "b"] + 1e-5 * rnorm(n)
  named <- "the columns of `x` nearly collinear are `d`, `b`, `a`; use larger"
  expect_warning(fit <- rlsc(x, y, lambda = c(1, 0)), named, fixed = TRUE)
  expect_warning(loo_predict(fit, 0), named, fixed = TRUE)
  expect_warning(predict(fit, x[1:3, ], lambda = 0), named, fixed = TRUE)
  expect_no_warning(predict(fit, x[1:3, ], lambda = 1))
  # lm() finds the same columns aliased once the dependence is exact
  exact <- x
  exact[, "d"] <- exact[, "a"] + 2 * exact[, "b"]
  expect_identical(names(which(is.na(coef(lm(y ~ exact))))), "exactd")
  expect_warning(rlsc(exact, y, lambda = c(1, 0)), named, fixed = TRUE)
  # the design's column names for a formula; the column on another scale is
  # not part of the dependence, and standardize = TRUE leaves it in place
  df <- data.frame(y = y, x)
  df$e <- df$e * 1e7
  expect_warning(rlsc(y ~ ., data = df, lambda = c(1, 0)), named, fixed = TRUE)
  expect_warning(rlsc(y ~ ., data = df, lambda = c(1, 0), standardize = TRUE),
                 "nearly collinear are `d`, `b`, `a`; use larger values of `lambda`$")
  # many columns of one dependence: the first five, and how many more
  wide <- matrix(rnorm(n * 9), n, dimnames = list(NULL, paste0("v", 1:9)))
  wide[, 9] <- rowSums(wide[, 1:8]) + 1e-6 * rnorm(n)
  expect_warning(rlsc(wide, wide[, 1] + 0.1 * rnorm(n), lambda = c(1, 0)),
                 "nearly collinear are `v9`(, `v[1-8]`){4} and 4 more; ")
  # columns on different scales without a dependence: warned about, no column named
  far <- x
  far[, "d"] <- rnorm(n)
  for (s in c(1e12, 1e17)) {
    far[, "e"] <- x[, "e"] * s
    res <- fit_warnings(rlsc(far, y, lambda = c(1, 0)))
    expect_true(any(grepl("leave-one-out values may be inaccurate", res$warnings)), info = s)
    expect_false(any(grepl("nearly collinear are", res$warnings)), info = s)
  }
})

test_that("y of 1e150 and 1e-130 has the criteria and standard errors of y, scaled (no overflow to Inf or 0)", {
  d <- make_data(30, 3, seed = 5)
  lam <- c(30, 3, 0.3)
  ref <- rlsc_short(d$x, d$y, lambda = lam)
  for (l in seq_along(lam)) {
    expect_equal(unname(unlist(ref$path[l, c("mse", "mse_se")])),
                 ref_mse(d$y, ref_loo(d$x, d$y, lambda = lam[l])), tolerance = 1e-10)
  }
  for (k in c(500, -430)) {                 # 2^500 is about 3e150, 2^-430 about 3e-130
    for (kern in list("linear", kernel_rbf(2))) {
      fit <- rlsc_short(d$x, d$y * 2^k, lambda = lam, kernel = kern)
      base <- if (identical(kern, "linear")) ref else rlsc_short(d$x, d$y, lambda = lam, kernel = kern)
      expect_equal(fit$cvm / 2^k / 2^k, base$cvm, tolerance = 1e-12)
      expect_equal(fit$cvsd / 2^k / 2^k, base$cvsd, tolerance = 1e-12)
      expect_identical(c(fit$index_min, fit$index_1se), c(base$index_min, base$index_1se))
      expect_equal(coef(fit, "lambda_1se") / 2^k, coef(base, "lambda_1se"), tolerance = 1e-12)
    }
  }
  # y whose squared LOO errors overflow is an error that says so
  expect_error(rlsc(d$x, d$y * 1e160), "the leave-one-out errors overflow: `y` \\(or `x`\\) is too large")
})

test_that("large common offsets: sparse x, the linear kernel and the polynomial kernel are exact or warn", {
  has_matrix <- requireNamespace("Matrix", quietly = TRUE)   # suggested: for the sparse cases
  set.seed(7)
  z <- matrix(rnorm(30 * 4), 30)
  y <- drop(z %*% c(1, -1, 0.5, 0.2)) + rnorm(30)
  zw <- matrix(rnorm(10 * 30), 10)
  yw <- rnorm(10)
  check <- function(expr, ref, lam, what) {
    res <- fit_warnings(expr)
    err <- rel_err(suppressWarnings(loo_predict(res$value, lam)), ref)
    warned <- any(grepl("may be inaccurate", res$warnings))
    expect_true(err < 1e-6 || warned, info = sprintf("%s: error %.2g without a warning", what, err))
    list(err = err, warned = warned, warnings = res$warnings)
  }
  for (off in c(1e3, 1e5, 1e8)) {
    x <- z + off
    xw <- zw + off
    lam <- 1
    ref <- drop(ref_loo_qr(x, y, lambda = lam))
    if (has_matrix) {
      check(rlsc(Matrix::Matrix(x, sparse = TRUE), y, lambda = c(10, lam)), ref, lam,
            paste("sparse primal", off))
    }
    check(rlsc(x, y, kernel = kernel_linear(), lambda = c(10, lam), mode = "dual"), ref, lam,
          paste("dense dual", off))
    refw <- drop(ref_loo_qr(xw, yw, lambda = lam))
    if (has_matrix) {
      check(rlsc(Matrix::Matrix(xw, sparse = TRUE), yw, lambda = c(10, lam)), refw, lam,
            paste("sparse dual", off))
    }
    check(rlsc(xw, yw, lambda = c(10, 1e-3)), drop(ref_loo_qr(xw, yw, lambda = 1e-3)), 1e-3,
          paste("dense dual at 1e-3", off))
    refp <- drop(ref_loo_qr(poly2_features(x), y, lambda = lam))
    check(rlsc(x, y, kernel = kernel_polynomial(2), lambda = c(10, lam)), refp, lam,
          paste("polynomial", off))
    res <- check(rlsc(ref_poly(x, degree = 2), y, kernel = "precomputed", lambda = c(10, lam)),
                 refp, lam, paste("precomputed", off))
    if (off >= 1e5) {
      expect_true(any(grepl("within the rounding error of the centered cross-products or kernel",
                            res$warnings)))
    }
  }
  # the dense linear forms stay exact (no warning) at an offset of 1e8
  x <- z + 1e8
  expect_no_warning(fit <- rlsc_short(x, y, lambda = c(10, 1), mode = "dual"))
  expect_lt(rel_err(loo_predict(fit, 1), drop(ref_loo_qr(x, y, lambda = 1))), 1e-6)
  skip_if_not(has_matrix, "Matrix (suggested) is not installed: the sparse cases did not run")
})

test_that("unclear errors are clear: each names the argument and the problem", {
  d <- make_data(20, 3, seed = 41)
  k <- ref_rbf(d$x, sigma = 2)
  # one dominant weight with an intercept: no lambda gives it a LOO value
  w <- rep(1, 20)
  w[3] <- 1e20
  msg <- paste0("^`weights` must leave more than 1e-6 of their total to the other observations when ",
                "there is an intercept, not 1.9e-19: observation 3 has the rest, so its leverage is 1 ",
                "and its leave-one-out value undefined at every `lambda`$")
  expect_error(rlsc(d$x, d$y, weights = w), msg)
  expect_error(rlsc(d$x, d$y, weights = w, mode = "dual"), msg)
  expect_error(rlsc(k, d$y, weights = w, kernel = "precomputed"), msg)
  # ... while a share up to 1 - 1e-5 fits, and without an intercept any share does
  w[3] <- 19e5
  fit <- rlsc_short(d$x, d$y, weights = w, lambda = c(10, 1))
  expect_equal(unname(loo_predict(fit, 1)), drop(ref_loo(d$x, d$y, w, 1)), tolerance = 1e-6)
  # a precomputed kernel with one weight of 1e300 and no intercept: that point is
  # interpolated at small lambda (NA with the warning), the others are fine
  w[3] <- 1e300
  res <- fit_warnings(rlsc_short(k, d$y, kernel = "precomputed", weights = w, intercept = FALSE,
                                 lambda = c(1e301, 1)))
  fit <- res$value
  expect_match(res$warnings, "undefined \\(NA\\) for up to 1 point\\(s\\) at 1 value\\(s\\)", all = FALSE)
  # the other points weigh 1e-300 of point 3: beside it their directions are rounding
  expect_match(res$warnings, "near eigenvalues dropped as numerically zero", all = FALSE)
  expect_true(is.na(fit$cvm[2]))
  # at lambda = 1e301 the others weigh 1e-300 of point 3: to that precision the fit
  # is point 3's alone, c_3 = w_3 y_3 / (w_3 K_33 + lambda), and point 3 left out
  # leaves a fit of about 1 / lambda
  loo <- unname(loo_predict(fit, 1e301))
  expect_equal(loo[-3], (1e300 * d$y[3] / (1e300 * k[3, 3] + 1e301)) * k[-3, 3], tolerance = 1e-9)
  expect_lt(abs(loo[3]), 1e-290)
  # weights whose spectrum leaves the range of doubles: the default grid says so
  expect_error(rlsc(d$x, d$y, weights = rep(1e306, 20)),
               "^the default `lambda` grid overflows: the eigenvalues of the weighted cross-products of `x` reach")
  expect_error(rlsc(d$x, d$y, weights = rep(1e-320, 20), kernel = kernel_rbf(2)),
               "^the default `lambda` grid underflows: the eigenvalues of the weighted centered kernel go down to")
  # the RBF kernel with a tiny sigma is the identity matrix (was NaN on its diagonal)
  expect_identical(kernel_matrix(kernel_rbf(sigma = 1e-160), d$x[1:4, ]), diag(4))
  # plot() of a kernel fit with several settings and no lambda > 0
  set.seed(5)
  xp <- matrix(rnorm(40 * 2), 40)
  fit <- suppressWarnings(rlsc(xp, xp[, 1]^2 + rnorm(40), kernel = kernel_polynomial(degree = 1:2),
                               lambda = 0))
  expect_false(anyNA(fit$kernel_path$mse))
  pdf(NULL)
  on.exit(dev.off())
  # lambda = 0 is drawn at the left end of the axis, behind a break
  expect_no_error(plot(fit))
  skip_if_not_installed("Matrix")   # suggested: the rest of the test needs it
  # a sparse precomputed kernel is the dense one
  fit <- rlsc_short(Matrix::Matrix(k, sparse = TRUE), d$y, kernel = "precomputed", lambda = c(1, 0.1))
  expect_identical(fit$path, rlsc_short(k, d$y, kernel = "precomputed", lambda = c(1, 0.1))$path)
  expect_equal(predict(fit, Matrix::Matrix(k[1:3, ], sparse = TRUE), lambda = 0.1),
               predict(fit, k[1:3, ], lambda = 0.1))
})

test_that("a dual fit that cannot fit in memory says so up front, with the size it needs", {
  d <- make_data(300, 2, seed = 43)
  big <- list(x = matrix(rnorm(60000 * 2), 60000), y = rnorm(60000))
  old <- options(rlsc.memory = 16e9)
  on.exit(options(old))
  # (up front: a fit of 60000 rows would take minutes to get that far)
  expect_error(rlsc(big$x, big$y, kernel = kernel_rbf(1)),
               paste0("^a kernel \\(or dual\\) fit with n = 60000 rows of positive weight needs about ",
                      "3 x 28.8 GB of memory for its n x n matrices, more than the 16.0 GB available \\(`options\\(rlsc.memory\\)`\\); "))
  # the bound is 3 x 8 n^2 bytes, exactly; rows of weight 0 do not count
  need <- 3 * 8 * 300^2
  options(rlsc.memory = need - 1)
  expect_error(rlsc(d$x, d$y, kernel = kernel_rbf(1), lambda = 1), "n = 300 .* more than the 2 MB available")
  options(rlsc.memory = need)
  expect_equal(predict(rlsc(d$x, d$y, kernel = kernel_rbf(1), lambda = 1), d$x[1:3, ]),
               predict(rlsc(rbind(d$x, d$x[1:5, ]), c(d$y, d$y[1:5]), weights = rep(1:0, c(300, 5)),
                            kernel = kernel_rbf(1), lambda = 1), d$x[1:3, ]), tolerance = 1e-10)
  options(rlsc.memory = Inf)
  expect_no_error(rlsc(d$x, d$y, kernel = kernel_rbf(1), lambda = 1))
  for (bad in list(-1, NA_real_, "1e9", c(1e9, 2e9))) {
    options(rlsc.memory = bad)
    expect_error(rlsc(d$x, d$y, kernel = kernel_rbf(1), lambda = 1),
                 "^option `rlsc.memory` must be one positive number of bytes")
  }
  # by default the memory the system reports (Linux: MemAvailable)
  options(rlsc.memory = NULL)
  info <- tryCatch(readLines("/proc/meminfo", warn = FALSE), error = function(e) character())
  avail <- 1024 * as.double(gsub("[^0-9]", "", grep("^MemAvailable:", info, value = TRUE)))
  skip_if(length(avail) != 1L || avail > 80e9, "the memory available is unknown, or enough for n = 60000")
  expect_error(rlsc(big$x, big$y, kernel = kernel_rbf(1)), "n = 60000 .* 3 x 28.8 GB of memory")
})

test_that("damaged fit objects are errors on entry to the methods, never a crash or a huge allocation", {
  d <- make_data(20, 3, seed = 41)
  lin <- rlsc_short(d$x, d$y, lambda = c(10, 1))
  kern <- rlsc_short(d$x, d$y, kernel = kernel_rbf(2), lambda = c(1, 0.1))
  cls <- rlsc_short(d$x, factor(rep(c("a", "b"), 10)), lambda = c(10, 1))
  damage <- function(fit, f) {
    out <- unclass(fit)
    out <- f(out)
    class(out) <- class(fit)
    out
  }
  cases <- list(
    list(lin, function(f) { f$nobs <- 1e9; f }, "`nobs`, `y`, `weights` and its data must agree"),
    list(lin, function(f) { f$weights[2] <- -1; f }, "finite non-negative weights"),
    list(lin, function(f) { f$nvars <- 1e9; f }, "`nvars` must be the number of `xnames`"),
    list(lin, function(f) { f$engine$v <- f$engine$v[1:2, , drop = FALSE]; f$engine$center <- f$engine$center[1:2]
                 f$engine$shift <- f$engine$shift[1:2]; f },
         "eigenvectors must have `nvars` = 3 rows"),
    list(kern, function(f) { f$kernel$params$sigma <- -1; f }, "a positive `sigma`"),
    list(kern, function(f) { f$engine$cross$kernel$params$sigma <- -1; f }, "a positive `sigma`"),
    list(kern, function(f) { f$engine$cross$x <- f$engine$cross$x[, 1:2]; f },
         "training rows must have `nvars` = 3 columns"),
    list(cls, function(f) { f$classes <- NULL; f }, "`classes` must name the classes"),
    list(cls, function(f) { f$type <- "other"; f }, "`type` must be"))
  for (case in cases) {
    bad <- damage(case[[1]], case[[2]])
    for (method in list(coef, function(f) predict(f, d$x), loo_predict, fitted)) {
      expect_error(method(bad), paste0("`object` is not a valid rlsc fit: .*", case[[3]]))
    }
  }
})

test_that("every kind of fit passes the checks of its fields (the constructors leave them to the methods)", {
  d <- make_data(30, 4, seed = 7)
  wide <- make_data(12, 20, seed = 8)
  cls <- factor(rep(c("a", "b", "c"), 10))
  fits <- list(
    primal = rlsc_short(d$x, d$y, lambda = c(10, 1)),
    dual = rlsc_short(wide$x, wide$y, lambda = c(10, 1)),
    kfold = rlsc_short(d$x, d$y, lambda = c(10, 1), cv = 3),
    classes = rlsc_short(d$x, cls, lambda = c(10, 1)),
    kernel = rlsc_short(d$x, d$y, kernel = kernel_rbf(c(1, 2)), lambda = c(1, 0.1)),
    kept = rlsc_short(d$x, d$y, kernel = kernel_rbf(2), lambda = c(1, 0.1), keep_eigen = TRUE),
    nystrom = rlsc_short(d$x, d$y, kernel = nystrom(kernel_rbf(2), m = 10), lambda = c(1, 0.1)),
    banded = rlsc_short(d$x, d$y, bands = c(1, 1, 2, 2), lambda = c(10, 1)),
    chunks = rlsc_short(chunk_matrix(d$x, d$y, chunk_rows = 7), lambda = c(10, 1)))
  # every method checks the fit on entry (validate_rlsc()): a check that
  # refused a valid kind of fit would be an error here
  for (k in names(fits)) {
    fit <- fits[[k]]
    newx <- if (k == "dual") wide$x[1:3, ] else d$x[1:3, ]
    for (method in list(coef, fitted, summary, function(f) predict(f, newx))) {
      expect_no_error(method(fit))
    }
  }
})

test_that("each field the validators check is an error naming it, for fits and their engines", {
  d <- make_data(20, 3, seed = 42)
  lin <- rlsc_short(d$x, d$y, lambda = c(10, 1))
  dual <- rlsc_short(d$x, d$y, kernel = kernel_rbf(2), lambda = c(1, 0.1), keep_eigen = TRUE)
  chunked <- rlsc_short(chunk_matrix(d$x, d$y, chunk_rows = 7), lambda = c(10, 1))
  damage <- function(fit, f) structure(f(unclass(fit)), class = class(fit))
  fits <- list(
    list(lin, function(f) { f$path <- NULL; f }, "it lacks path"),
    list(lin, function(f) { f$y <- f$y > 0; f }, "`y` must be a double matrix"),
    list(lin, function(f) { f$npos <- 21; f }, "`nobs` and `npos` must count the observations"),
    list(lin, function(f) { f$index_min <- 3L; f }, "`index_min` must index the `lambda` grid"),
    list(lin, function(f) { f$scale <- c(1, -1, 1); f }, "`scale` must hold one positive number per column"),
    list(lin, function(f) { f$y <- cbind(f$y, f$y); f }, "`y`, `weights` and its data must agree"),
    list(lin, function(f) { f$data$rows$x <- f$data$rows$x[-1, ]; f }, "its data must agree"),
    list(chunked, function(f) { f$data$src <- list(); f },
         "`data` must describe its rows in memory or in chunks"))
  engines <- list(
    list(lin, function(e) { e$values <- as.integer(e$values); e },
         "`values`, `dropped`, `ybar`, `yshift`, `sumw` and `noise`"),
    list(lin, function(e) { e$intercept <- NA; e }, "`intercept` must be TRUE or FALSE"),
    list(lin, function(e) { e$center <- as.character(e$center); e }, "`center` and `shift` must be double vectors"),
    list(lin, function(e) { e["v"] <- list(NULL); e }, "a primal engine needs `v` \\(d x r\\)"),
    list(lin, function(e) { e$weak <- 99L; e }, "`weak` must index columns of `v`"),
    list(dual, function(e) { e$rows <- as.double(e$rows); e }, "a dual engine needs `kernel`, `rows`"))
  cases <- c(lapply(fits, function(case) c(case, "`object` is not a valid rlsc fit: ")),
             lapply(engines, function(case) {
               list(case[[1]], function(f) { f$engine <- case[[2]](f$engine); f }, case[[3]],
                    "malformed rlsc engine: ")
             }))
  for (case in cases) {
    bad <- damage(case[[1]], case[[2]])
    for (method in list(coef, function(f) predict(f, d$x), function(f) summary(f))) {
      expect_error(method(bad), paste0(case[[4]], ".*", case[[3]]), info = case[[3]])
    }
  }
  expect_no_error(predict(chunked, d$x))
})

test_that("an interrupted fit (a time limit) stops in C and leaves R and the package working", {
  # an RBF fit of n = 1500: seconds in the eigendecomposition with the
  # reference BLAS, longer under valgrind; the limit interrupts it in C between
  # blocks (R_CheckUserInterrupt), and the jump out frees what C allocated
  set.seed(9)
  x <- matrix(rnorm(1500 * 3), 1500)
  y <- sin(x[, 1]) + rnorm(1500)
  setTimeLimit(elapsed = 0.2, transient = TRUE)
  res <- tryCatch(rlsc(x, y, kernel = kernel_rbf(1)), error = function(e) e)
  setTimeLimit(elapsed = Inf)
  expect_s3_class(res, "error")
  expect_match(conditionMessage(res), "time limit")
  fit <- rlsc_short(x[1:30, ], y[1:30], kernel = kernel_rbf(1), lambda = c(1, 0.1))
  expect_equal(unname(loo_predict(fit, 0.1)),
               drop(ref_kernel_loo(ref_rbf(x[1:30, ], sigma = 1), y[1:30], lambda = 0.1)),
               tolerance = 1e-9)
})

test_that("problems the fuzz found stay fixed", {
  # a dual fit without any direction left its rows of negligible weight at y
  set.seed(11)
  y <- rnorm(14)
  w <- c(rep(1, 7), 1e-30, rep(1, 6))
  fit <- rlsc_short(matrix(82.3, 14, 1), y, weights = w, mode = "dual", lambda = c(1, 0.1))
  expect_length(fit$engine$values, 0L)
  expect_equal(unname(fitted(fit, 0.1)), rep(sum(w * y) / sum(w), 14), tolerance = 1e-14)
  # a row of weight 2.4e-7 of the largest, nearly interpolated at small lambda:
  # the complement form keeps it exact where the direct form lost 5 digits
  set.seed(12)
  x <- matrix(rnorm(6 * 9), 6)
  y <- rnorm(6)
  w <- c(543, 3258, 602, 1356550, 0.327, 461380)
  fit <- rlsc_short(x, y, weights = w, lambda = c(1, 1e-3))
  expect_equal(unname(loo_predict(fit, 1e-3)), drop(ref_loo_qr(x, y, w, 1e-3)), tolerance = 1e-9)
  # the rounded weighted mean of columns with an offset of 1e8 no longer
  # shifts every row of the primal basis (LOO values were off by 8e-9)
  set.seed(7)
  z <- matrix(rnorm(30 * 4), 30)
  y <- drop(z %*% rnorm(4)) + rnorm(30)
  fit <- rlsc_short(z + 1e8, y, lambda = c(10, 1))
  expect_equal(unname(loo_predict(fit, 1)), drop(ref_loo_qr(z + 1e8, y, lambda = 1)), tolerance = 1e-12)
  # fuzzed problems that once gave silent wrong values: zero-weight rows of a
  # dual fit (now warned), nearly interpolated rows of the direct form (now
  # NA), predictions depending on a direction dropped as numerically zero
  # (now warned), values at the grid's bottom
  for (seed in c(1265, 1312, 1913, 1961, 3261, 3991)) {
    expect_true(fuzz_run(fuzz_case(seed))$outcome %in% c("fit", "error"), info = seed)
  }
})

test_that("predict() warns about predictions, once for all its lambdas, and a standardized fit is not told to standardize", {
  set.seed(1)
  x1 <- rnorm(50)
  x <- cbind(x1, x1 + 1e-7 * rnorm(50), rnorm(50))   # two columns nearly the same
  colnames(x) <- c("a", "b", "c")
  y <- x1 + rnorm(50)
  fit <- suppressWarnings(rlsc(x, y, lambda = c(1, 1e-6, 1e-7), standardize = TRUE))
  res <- fit_warnings(predict(fit, x[1:3, ], lambda = c(1e-6, 1e-7, 1)))
  expect_length(res$warnings, 1L)
  expect_match(res$warnings, paste0("^predictions may be inaccurate \\(relative error above 1e-6\\) at 2 ",
                                    "value\\(s\\) of `lambda` up to 1e-06: they are near eigenvalues dropped"))
  expect_no_match(res$warnings, "standardize")
  # one lambda: one warning too, and the fit's own leave-one-out values warn in
  # their own words
  expect_warning(predict(fit, x[1:3, ], lambda = 1e-6), "^predictions may be inaccurate")
  expect_warning(loo_predict(fit, 1e-7), "^leave-one-out values may be inaccurate")
})

test_that("rows of light weight in the dual form are warned about where their rounding reaches 1e-6 (issue 46)", {
  # two rows of weight 1e-12 and 3e-13 of the others in an RBF fit: the
  # decomposition's rounding, eps Lambda_1 / lambda, reaches their values
  # amplified by sqrt(1 / 3e-13); fuzzed problems of this kind were off by
  # 2e-6 to 1e-3 silently (test-fuzz.R, former defects)
  set.seed(46)
  x <- matrix(rnorm(30 * 2), 30)
  y <- sin(2 * x[, 1]) + rnorm(30, sd = 0.1)
  w <- rep(1, 30)
  w[c(4, 9)] <- c(1e-12, 3e-13)
  k <- ref_rbf(x, sigma = 1)
  top <- max(eigen(k, symmetric = TRUE, only.values = TRUE)$values)
  pattern <- paste0("may be inaccurate \\(relative error above 1e-6\\) at 1 value\\(s\\) of `lambda` .*",
                    "rows of weight 3e-13 of the largest carry the rounding of the eigendecomposition")
  expect_warning(fit <- rlsc_short(x, y, weights = w, kernel = kernel_rbf(1), lambda = top * c(1e-2, 1e-7)),
                 pattern)
  expect_warning(loo_predict(fit, top * 1e-7), "rows of weight 3e-13 of the largest")
  expect_warning(predict(fit, x[1:3, ], lambda = top * 1e-7), "rows of weight 3e-13 of the largest")
  # where the estimate stays below 1e-6: silent, and the values those of brute force
  expect_no_warning(fit <- rlsc_short(x, y, weights = w, kernel = kernel_rbf(1), lambda = top * c(1, 1e-2)))
  expect_equal(unname(loo_predict(fit, top * 1e-2)), drop(ref_kernel_loo(k, y, w, top * 1e-2)),
               tolerance = 1e-9)
  # the default grid stops above the lambdas it cannot give accurately
  expect_no_warning(fit <- rlsc_short(x, y, weights = w, kernel = kernel_rbf(1)))
  expect_gt(min(fit$lambda), 1e-6 * top)
  # rows below 1e-18 of the largest do not move the decomposition and are
  # evaluated exactly as new rows: no warning
  w[c(4, 9)] <- 1e-20
  expect_no_warning(rlsc_short(x, y, weights = w, kernel = kernel_rbf(1), lambda = top * c(1e-2, 1e-7)))
})
