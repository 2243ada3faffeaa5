# Kernel fits: exact LOO and predictions against the bordered system solved
# with solve(), and the joint choice of kernel parameters and lambda.

# The LOO values and criteria of a kernel fit at a few lambdas against brute
# force; `kfun(x, z)` is the reference kernel of the chosen setting.
check_kernel_path <- function(fit, x, y, kfun, w = NULL, intercept = TRUE, at = c(15, 50, 85),
                              tol = 1e-7) {
  wref <- if (is.null(w)) rep(1, nrow(x)) else w
  yref <- if (is.factor(y)) ref_code(y) else as.matrix(y)
  k <- kfun(x, x)
  for (l in fit$lambda[at]) {
    ref <- ref_kernel_loo(k, yref, wref, l, intercept)
    expect_equal(unname(as.matrix(loo_predict(fit, l))), unname(ref), tolerance = tol)
    i <- match(l, fit$lambda)
    expect_equal(c(fit$path$mse[i], fit$path$mse_se[i]), ref_mse(yref, ref, wref), tolerance = tol)
    if (is.factor(y)) {
      expect_equal(c(fit$path$misclass[i], fit$path$misclass_se[i]),
                   ref_misclass(y, ref, wref), tolerance = tol)
    }
  }
  invisible(fit)
}

test_that("RBF LOO equals brute-force refits of the bordered system, with and without intercept", {
  d <- sine_data(40, 71)
  for (icpt in c(TRUE, FALSE)) {
    fit <- suppressWarnings(rlsc(d$x, d$y, kernel = kernel_rbf(1), intercept = icpt, keep_eigen = TRUE))
    check_kernel_path(fit, d$x, d$y, function(a, b) ref_rbf(a, b, 1), intercept = icpt)
  }
})

test_that("polynomial LOO equals brute force, regression with weights and zero weights", {
  d <- sine_data(35, 72, d = 3)
  w <- c(0, rep(c(1, 2, 0.5), length.out = 33), 0)
  kern <- function(a, b) ref_poly(a, b, degree = 2, scale = 0.5, offset = 1)
  fit <- suppressWarnings(rlsc(d$x, d$y, weights = w, kernel = kernel_polynomial(2, 0.5, 1),
                               keep_eigen = TRUE))
  check_kernel_path(fit, d$x, d$y, kern, w = w)
  fit0 <- suppressWarnings(rlsc(d$x, d$y, weights = w, kernel = kernel_polynomial(3, 0.5, 1),
                                intercept = FALSE, keep_eigen = TRUE))
  check_kernel_path(fit0, d$x, d$y, function(a, b) ref_poly(a, b, 3, 0.5, 1), w = w,
                    intercept = FALSE)
})

test_that("multiclass and binary RBF classification LOO equals brute force", {
  idx <- c(1:15, 51:65, 101:115)
  x <- scale(as.matrix(iris[idx, 1:4]))
  y <- iris$Species[idx]
  fit <- suppressWarnings(rlsc(x, y, kernel = kernel_rbf(1.5), weights = rep(1:3, 15),
                               keep_eigen = TRUE))
  expect_identical(fit$criterion, "misclass")
  check_kernel_path(fit, x, y, function(a, b) ref_rbf(a, b, 1.5), w = rep(1:3, 15))
  y2 <- droplevels(y[16:45])
  fit2 <- suppressWarnings(rlsc(x[16:45, ], y2, kernel = kernel_polynomial(2), keep_eigen = TRUE))
  check_kernel_path(fit2, x[16:45, ], y2, function(a, b) ref_poly(a, b, 2))
  expect_identical(as.character(predict(fit2, x[16:45, ], type = "class")),
                   unname(ifelse(predict(fit2, x[16:45, ]) > 0, levels(y2)[2], levels(y2)[1])))
})

test_that("the joint choice is the brute-force argmin over kernel parameters x lambda", {
  d <- sine_data(30, 73)
  sigmas <- c(0.3, 1, 3)
  lam <- 10^seq(1, -3, length.out = 9)
  fit <- suppressWarnings(rlsc(d$x, d$y, kernel = kernel_rbf(sigmas), lambda = lam))
  crit <- outer(sigmas, lam, Vectorize(function(s, l) {
    ref_mse(d$y, ref_kernel_loo(ref_rbf(d$x, sigma = s), d$y, lambda = l))[1]
  }))
  best <- which(crit == min(crit), arr.ind = TRUE)
  expect_identical(fit$sigma_min, sigmas[best[1, 1]])
  expect_identical(fit$lambda_min, lam[best[1, 2]])
  expect_identical(fit$kernel$params$sigma, fit$sigma_min)
  expect_equal(fit$kernel_path$mse, c(t(crit)), tolerance = 1e-8)
  expect_identical(fit$kernel_path$sigma, rep(sigmas, each = 9))
  expect_identical(fit$kernel_path$lambda, rep(lam, 3))
  # lambda_1se on the chosen sigma's path
  i <- fit$index_min
  expect_identical(fit$lambda_1se, max(lam[fit$cvm <= fit$cvm[i] + fit$cvsd[i]]))
  # several parameters: every combination of degree and offset
  fitp <- suppressWarnings(rlsc(d$x, d$y, kernel = kernel_polynomial(1:3, offset = c(0.5, 2)),
                                lambda = lam))
  expect_identical(nrow(fitp$kernel_path), 6L * 9L)
  crit_p <- fitp$kernel_path$mse
  expect_identical(fitp$kernel_path$lambda[which.min(crit_p)], fitp$lambda_min)
  expect_identical(unlist(fitp$kernel_path[which.min(crit_p), c("degree", "offset")]),
                   unlist(fitp$kernel$params[c("degree", "offset")]))
})

test_that("misclassification ties between kernel settings are broken by the squared error", {
  x <- scale(as.matrix(iris[, 1:4]))
  fit <- suppressWarnings(rlsc(x, iris$Species, kernel = kernel_rbf(c(1, 2, 4)),
                               lambda = 10^seq(2, -2, length.out = 15)))
  tab <- fit$kernel_path
  best <- order(tab$misclass, tab$mse)[1]
  expect_identical(c(tab$sigma[best], tab$lambda[best]), c(fit$sigma_min, fit$lambda_min))
})

test_that("predictions and coefficients equal the bordered-system solution", {
  d <- sine_data(40, 74)
  w <- rep(c(1, 0.5, 2, 0), 10)
  newx <- matrix(runif(14, -2, 2), 7)
  fit <- rlsc_short(d$x, d$y, weights = w, kernel = kernel_rbf(c(0.7, 1.4)), keep_eigen = TRUE)
  for (l in fit$lambda[c(30, 60, fit$index_min)]) {
    ref <- ref_bordered(ref_rbf(d$x, sigma = fit$sigma_min), d$y, w, l)
    expect_equal(unname(coef(fit, l)), c(ref$b, ref$c), tolerance = 1e-7)
    expect_equal(unname(predict(fit, newx, lambda = l)),
                 drop(ref_kernel_predict(ref, ref_rbf(newx, d$x, fit$sigma_min))), tolerance = 1e-8)
  }
  expect_named(coef(fit), c("(Intercept)", paste0("c", 1:40)))
  expect_identical(unname(coef(fit)[-1][w == 0]), rep(0, 10))
  expect_equal(sum(coef(fit)[-1]), 0, tolerance = 1e-10)
  # several response columns: a matrix with a column per response
  y2 <- cbind(a = d$y, b = d$x[, 1])
  fit2 <- rlsc(d$x, y2, kernel = kernel_rbf(1))
  ref2 <- ref_bordered(ref_rbf(d$x, sigma = 1), y2, lambda = fit2$lambda_min)
  expect_equal(unname(coef(fit2)), unname(rbind(ref2$b, ref2$c)), tolerance = 1e-7)
  expect_identical(colnames(predict(fit2, newx)), c("a", "b"))
})

test_that("kernel_linear() and the linear kernel as a kernel equal the primal linear fit", {
  d <- make_data(40, 4, seed = 75)
  primal <- rlsc_short(d$x, d$y, mode = "primal")
  expect_identical(rlsc_short(d$x, d$y, kernel = kernel_linear())[-1], rlsc_short(d$x, d$y)[-1])
  lin <- kernel_custom(function(a, b) tcrossprod(a, b))
  as_kernel <- muffle_min_norm(list(
    custom = rlsc_short(d$x, d$y, kernel = lin, lambda = primal$lambda, keep_eigen = TRUE),
    polynomial = rlsc_short(d$x, d$y, kernel = kernel_polynomial(1, offset = 0),
                            lambda = primal$lambda, keep_eigen = TRUE),
    precomputed = rlsc_short(tcrossprod(d$x), d$y, kernel = "precomputed", lambda = primal$lambda,
                             keep_eigen = TRUE)))
  newx <- matrix(rnorm(12), 3)
  for (fit in as_kernel) {
    expect_equal(fit$path, primal$path, tolerance = 1e-8)
    expect_identical(fit$lambda_min, primal$lambda_min)
    for (l in primal$lambda[c(20, 70)]) {
      expect_equal(loo_predict(fit, l), loo_predict(primal, l), tolerance = 1e-8)
      beta <- crossprod(d$x, coef(fit, l)[-1])
      expect_equal(unname(c(coef(fit, l)[1], beta)), unname(coef(primal, l)), tolerance = 1e-8)
    }
  }
  expect_equal(predict(as_kernel$custom, newx), predict(primal, newx), tolerance = 1e-8)
  expect_equal(predict(as_kernel$precomputed, tcrossprod(newx, d$x)), predict(primal, newx),
               tolerance = 1e-8)
})

test_that("a precomputed kernel gives the same fit as the kernel it was computed from", {
  d <- sine_data(30, 76)
  w <- c(rep(1, 27), 0, 2, 0)
  fit <- rlsc(d$x, d$y, weights = w, kernel = kernel_rbf(0.8))
  pre <- rlsc(kernel_matrix(kernel_rbf(0.8), d$x), d$y, weights = w, kernel = "precomputed")
  expect_equal(pre$path, fit$path, tolerance = 1e-10)
  expect_equal(loo_predict(pre), loo_predict(fit), tolerance = 1e-10)
  newx <- matrix(runif(10, -2, 2), 5)
  expect_equal(predict(pre, kernel_matrix(kernel_rbf(0.8), newx, d$x)), predict(fit, newx),
               tolerance = 1e-10)
  expect_null(pre$x)
  expect_error(predict(pre, kernel_matrix(kernel_rbf(0.8), newx, d$x[-1, ])),
               paste0("`newdata` must be the m x 30 cross-kernel between the new rows and ",
                      "the 30 training rows for `kernel` = \"precomputed\", not 5 x 29"))
})

test_that("custom kernels with parameter vectors are chosen like the built-in ones", {
  d <- sine_data(30, 77)
  lam <- 10^seq(1, -3, length.out = 12)
  gauss <- kernel_custom(function(a, b, gamma) exp(-gamma * pmax(ref_sqdist(a, b), 0)),
                         gamma = 1 / (2 * c(0.5, 1, 2)^2))
  fit_c <- rlsc_short(d$x, d$y, kernel = gauss, lambda = lam)
  fit_r <- rlsc_short(d$x, d$y, kernel = kernel_rbf(c(0.5, 1, 2)), lambda = lam)
  expect_equal(fit_c$kernel_path[-1], fit_r$kernel_path[-1], tolerance = 1e-8)
  expect_equal(fit_c$kernel$params$gamma, 1 / (2 * fit_r$sigma_min^2))
  expect_null(fit_c$sigma_min)
  newx <- matrix(runif(6, -2, 2), 3)
  expect_equal(predict(fit_c, newx), predict(fit_r, newx), tolerance = 1e-8)
  wrong <- kernel_custom(function(a, b) if (nrow(a) == nrow(b)) tcrossprod(a, b) else matrix(0, 2, 2))
  fit_w <- rlsc_short(d$x, d$y, kernel = wrong, lambda = lam)
  expect_error(predict(fit_w, newx),
               "the custom `kernel` function must return a numeric 3 x 30 matrix for fun\\(newdata, x\\), not 2 x 2")
})

test_that("without keep_eigen every lambda of the grid is served, others need keep_eigen", {
  d <- sine_data(30, 78)
  fit <- rlsc(d$x, d$y, kernel = kernel_rbf(1))
  kept <- rlsc(d$x, d$y, kernel = kernel_rbf(1), keep_eigen = TRUE)
  expect_s3_class(fit$engine, "rlsc_snapshot")
  expect_s3_class(kept$engine, "rlsc_dual")
  # the same numbers through products in other orders: 1e-12 apart with the
  # reference BLAS, up to 2e-12 with OpenBLAS
  tol <- 1e-11
  for (l in c(list("lambda_min", "lambda_1se"), as.list(fit$lambda[c(1, 3, 57, 100)]))) {
    expect_equal(coef(fit, l), coef(kept, l), tolerance = tol)
    expect_equal(loo_predict(fit, l), loo_predict(kept, l), tolerance = tol)
    expect_equal(fitted(fit, l), fitted(kept, l), tolerance = tol)
    expect_equal(hatvalues(fit, l), hatvalues(kept, l), tolerance = tol)
    expect_equal(predict(fit, d$x[1:5, , drop = FALSE], l), predict(kept, d$x[1:5, , drop = FALSE], l),
                 tolerance = tol)
  }
  off <- mean(fit$lambda[3:4])
  expect_error(coef(fit, off), "is not on the grid of this kernel fit.*refit with `keep_eigen = TRUE`")
  expect_error(loo_predict(fit, off), "refit with `keep_eigen = TRUE`")
  expect_error(predict(fit, d$x, lambda = off), "refit with `keep_eigen = TRUE`")
  expect_length(coef(kept, off), 31)
  # a value printed with fewer digits is still an off-grid value, but one
  # within 1e-10 of a grid value is that value
  expect_identical(coef(fit, fit$lambda[3] * (1 + 1e-12)), coef(fit, fit$lambda[3]))
})

test_that("predict() on kernel fits rejects bad new data", {
  d <- sine_data(30, 79)
  fit <- rlsc(d$x, d$y, kernel = kernel_rbf(1))
  expect_error(predict(fit, d$x[, 1, drop = FALSE]), "`newdata` must have 2 columns \\(as the training `x`\\), not 1")
  expect_identical(predict(fit), fitted(fit))
  expect_error(predict(fit, d$x, type = "class"), "`type` = \"class\" needs a classification fit")
  expect_error(predict(fit, d$x, extra = 1), "unknown argument")
})

test_that("LOO values that are undefined at lambda = 0 are NA with a warning", {
  d <- sine_data(20, 80)
  expect_warning(fit <- rlsc_short(d$x, d$y, kernel = kernel_rbf(0.5), lambda = c(1, 0),
                                   keep_eigen = TRUE), "undefined \\(NA\\) for up to 20 point")
  expect_identical(fit$lambda_min, 1)
  expect_true(all(is.na(suppressWarnings(loo_predict(fit, 0)))))
  # the minimum-norm interpolant
  expect_equal(unname(predict(fit, d$x, lambda = 0)), d$y, tolerance = 1e-6)
  expect_error(suppressWarnings(rlsc(d$x, d$y, kernel = kernel_rbf(c(0.5, 1)), lambda = 0)),
               "undefined \\(NA\\) at every value of `lambda` for every kernel parameter")
})

test_that("print and plot show the kernel settings", {
  d <- sine_data(30, 81)
  fit <- rlsc(d$x, d$y, kernel = kernel_rbf(c(0.5, 1, 2)))
  out <- capture.output(print(fit))
  expect_true(any(grepl("dual form", out)))
  expect_true(any(grepl("Kernel: rbf\\(sigma = [0-9.]+\\), chosen among 3 settings by exact LOO", out)))
  expect_identical(sum(grepl("\\*", out)), 1L)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  expect_identical(plot(fit, main = "three sigmas"), fit)
  one <- rlsc(d$x, d$y, kernel = kernel_rbf(1))
  expect_output(print(one), "Kernel: rbf\\(sigma = 1\\)")
  expect_identical(plot(one), one)
  msg <- "`type` = \"coef\" needs a linear fit: a kernel fit has one dual coefficient per training row"
  expect_error(plot(fit, type = "coef"), msg)
  expect_error(plot(one, type = "coef"), msg)
  expect_error(plot(fit, type = "pie"), "'arg' should be one of")
})

test_that("the boundary warning applies to the chosen setting's lambda grid", {
  d <- sine_data(30, 82)
  expect_warning(rlsc(d$x, d$y, kernel = kernel_rbf(c(0.5, 1, 2)), lambda = c(1e4, 1e3)),
                 "smallest value of the `lambda` grid")
  expect_no_warning(rlsc(d$x, d$y, kernel = kernel_rbf(c(0.5, 1, 2))))
})

test_that("a kernel parameter chosen at the end of its values warns", {
  d <- sine_data(30, 82)
  expect_warning(fit <- rlsc(d$x, d$y, kernel = kernel_rbf(c(0.2, 0.3))),
                 "the chosen kernel parameter `sigma` = 0.3 is the largest value tried")
  expect_identical(fit$sigma_min, 0.3)
  expect_warning(rlsc(d$x, d$y, kernel = kernel_rbf(c(2, 5, 20))),
                 "`sigma` = 2 is the smallest value tried")
  expect_no_warning(rlsc(d$x, d$y, kernel = kernel_rbf(1)))
})

test_that("the progress bar of a search over kernel settings: interactive sessions only, or as the option says", {
  skip_if_not_installed("cli")
  skip_if(interactive(), "the default shows the bar in interactive sessions")
  d <- sine_data(30, 84)
  # cli's logger handler prints each event of a bar, wherever it runs
  old <- options(cli.progress_handlers_only = "logger", cli.progress_show_after = 0,
                 rlsc.progress = NULL)
  on.exit(options(old))
  fit <- function() rlsc(d$x, d$y, kernel = kernel_rbf(c(0.5, 1, 2)), lambda = c(1, 0.1))
  expect_silent(fit())
  options(rlsc.progress = TRUE)
  expect_output(fit(), "0/3 created")
  expect_silent(rlsc(d$x, d$y, kernel = kernel_rbf(1), lambda = c(1, 0.1)))   # (one setting: no bar)
  options(rlsc.progress = FALSE)
  expect_silent(fit())
  options(rlsc.progress = "yes")
  expect_error(fit(), "^option `rlsc.progress` must be TRUE or FALSE, not character vector")
})

test_that("kernel fits never modify their inputs", {
  d <- sine_data(25, 83)
  k <- kernel_matrix(kernel_rbf(1), d$x)
  w <- rep(c(1, 0), length.out = 25)
  copies <- list(d$x + 0, d$y + 0, k + 0, w + 0)
  invisible(rlsc_short(d$x, d$y, weights = w, kernel = kernel_rbf(1)))
  invisible(rlsc(k, d$y, weights = w, kernel = "precomputed"))
  expect_identical(list(d$x, d$y, k, w), copies)
})

test_that("kernel fits work with the formula interface, sparse x and the generic methods", {
  df <- data.frame(y = mtcars$mpg, wt = mtcars$wt, hp = mtcars$hp / 100,
                   cyl = factor(mtcars$cyl))
  kern <- kernel_rbf(sigma = c(1, 2))
  fit <- rlsc_short(y ~ wt + hp + cyl, data = df, kernel = kern)
  x <- model.matrix(~ wt + hp + cyl, df)[, -1]
  ref <- rlsc_short(x, df$y, kernel = kern, lambda = fit$lambda)
  expect_equal(loo_predict(fit), loo_predict(ref))
  expect_equal(predict(fit, df[1:4, ]), predict(ref, x[1:4, ]))
  expect_error(predict(fit, transform(df[1:2, ], cyl = factor(5))), "not seen in training: '5'")
  # fitted values and the bordered-system solution at lambda_min
  k <- ref_rbf(x, x, fit$sigma_min)
  sol <- ref_bordered(k, df$y, lambda = fit$lambda_min)
  expect_equal(unname(fitted(fit)), unname(drop(ref_kernel_predict(sol, k))), tolerance = 1e-8)
  expect_equal(residuals(fit), df$y - fitted(fit), ignore_attr = TRUE)
  s <- summary(fit)
  expect_null(s$coefficients)
  expect_match(capture.output(print(s)), "Kernel: rbf\\(sigma = [12]\\), chosen among 2 settings by exact LOO",
               all = FALSE)
  # the validation that chose it, and no choice where there was one setting
  kfold <- rlsc_short(y ~ wt + hp + cyl, data = df, kernel = kern, cv = 5)
  expect_output(print(kfold), "chosen among 2 settings by exact 5-fold CV")
  expect_match(capture.output(print(summary(kfold))), "chosen among 2 settings by exact 5-fold CV", all = FALSE)
  one <- rlsc_short(y ~ wt + hp + cyl, data = df, kernel = kernel_rbf(1), cv = 5)
  expect_match(capture.output(print(summary(one))), "^Kernel: rbf\\(sigma = 1\\)$", all = FALSE)
  expect_false(any(grepl("chosen", capture.output(print(one), print(summary(one))))))
  skip_if_not_installed("generics")
  au <- generics::augment(fit)
  expect_equal(au$.loo, unname(loo_predict(fit)))
  skip_if_not_installed("Matrix")
  xs <- Matrix::Matrix(x, sparse = TRUE)
  expect_equal(loo_predict(rlsc_short(xs, df$y, kernel = kern, lambda = fit$lambda)), loo_predict(ref))
})

test_that("a kernel fit without columns (y ~ 1) gives the LOO mean, without a boundary warning", {
  ref <- (sum(mtcars$mpg) - mtcars$mpg) / 31
  for (kernel in list(kernel_rbf(), kernel_rbf(1), kernel_polynomial(2))) {
    expect_no_warning(fit <- rlsc(mpg ~ 1, data = mtcars, kernel = kernel))
    expect_equal(unname(loo_predict(fit)), ref)
    expect_equal(unname(predict(fit, mtcars[1:2, ])), rep(mean(mtcars$mpg), 2))
  }
  # no distances: the median heuristic is 1, and every sigma gives the same fit
  expect_identical(rlsc(mpg ~ 1, data = mtcars, kernel = "rbf")$kernel_grid$sigma, 2^(-2:2))
})

test_that("kernel, sparse and formula fits never modify their inputs", {
  skip_if_not_installed("Matrix")
  snap <- function(v) serialize(v, NULL)
  d <- sine_data(20, 91)
  w <- rep(c(0, 1, 2, 0.5), 5)
  k <- ref_rbf(d$x, sigma = 1)
  xs <- Matrix::Matrix(d$x * (abs(d$x) > 0.3), sparse = TRUE)
  df <- data.frame(y = d$y, x1 = d$x[, 1], g = rep(c("u", "v"), 10), w = w)
  xi <- matrix(as.integer(round(d$x * 10)), nrow(d$x))
  inputs <- list(x = d$x, y = d$y, w = w, k = k, xs = xs, df = df, xi = xi)
  bytes <- lapply(inputs, snap)
  suppressWarnings({
    f <- rlsc(d$x, d$y, weights = w, kernel = kernel_rbf(c(0.5, 1)))
    predict(f, d$x)
    predict(rlsc(xi, d$y, weights = w, kernel = kernel_polynomial(2)), xi)
    f <- rlsc(k, d$y, weights = w, kernel = "precomputed")
    predict(f, k[1:3, ])
    f <- rlsc(xs, d$y, weights = w, kernel = kernel_rbf(1))
    predict(f, xs)
    predict(rlsc(xs, d$y, weights = w, mode = "dual"), xs)
    predict(rlsc(xs, d$y, weights = w, mode = "primal"), xs)
    f <- rlsc(y ~ x1 + g, data = df, weights = w, kernel = kernel_rbf(1))
    predict(f, df)
    predict(rlsc(y ~ x1 + g, data = df, weights = w), df)
  })
  expect_identical(lapply(inputs, snap), bytes)
})

test_that("an RBF fit without intercept moves the rows first: a common offset costs no digits (issue 27)", {
  set.seed(251)
  x <- matrix(rnorm(22 * 3, sd = 0.05), 22) + rep(c(-4e4, 2.5e4, 6e4), each = 22)
  y <- rnorm(22)
  sigma <- 0.05
  fit <- rlsc(x, y, kernel = kernel_rbf(sigma), intercept = FALSE, lambda = c(10, 0.5), keep_eigen = TRUE)
  k <- exp(-as.matrix(dist(x))^2 / (2 * sigma^2))   # the distances without cancellation
  for (l in c(10, 0.5)) {
    h <- k %*% solve(k + l * diag(22))
    expect_equal(unname(loo_predict(fit, l)), unname(drop((h %*% y - diag(h) * y) / (1 - diag(h)))),
                 tolerance = 1e-10)
  }
})

# ---- sigma = NULL on 2000 rows or more: the bandwidth screened on a sample ----
# (the screen's sizes moved to 200 rows and a sample of 100 by the option
# rlsc.sigma_screen: the same code, small enough for every run of the suite,
# valgrind's too)
screen_small <- c(rows = 200, sample = 100)

# Every output of two fits, at lambda_min and lambda_1se, on the rows and new rows.
expect_same_fit <- function(a, b, newx, tol = 1e-10) {
  expect_equal(a$path, b$path, tolerance = tol)
  expect_equal(a$kernel_path, b$kernel_path, tolerance = tol)
  expect_identical(a$kernel_grid, b$kernel_grid)
  expect_equal(c(a$lambda_min, a$lambda_1se), c(b$lambda_min, b$lambda_1se), tolerance = tol)
  for (l in c("lambda_min", "lambda_1se")) {
    expect_equal(loo_predict(a, l), loo_predict(b, l), tolerance = tol)
    expect_equal(predict(a, newx, lambda = l), predict(b, newx, lambda = l), tolerance = tol)
    expect_equal(coef(a, lambda = l), coef(b, lambda = l), tolerance = tol)
    expect_equal(fitted(a, lambda = l), fitted(b, lambda = l), tolerance = tol)
    expect_equal(hatvalues(a, lambda = l), hatvalues(b, lambda = l), tolerance = tol)
    if (a$type == "classification") {
      expect_identical(predict(a, newx, lambda = l, type = "class"),
                       predict(b, newx, lambda = l, type = "class"))
      expect_equal(predict(a, newx, lambda = l, type = "prob"),
                   predict(b, newx, lambda = l, type = "prob"), tolerance = tol)
      expect_equal(loo_predict(a, l, type = "prob"), loo_predict(b, l, type = "prob"), tolerance = tol)
    }
  }
}

# The screen's table against the exact search of its candidates on the
# sampled rows alone: the same choice, the same criteria.
expect_screen_of_sample <- function(fit, x, y) {
  screen <- fit$sigma_screen
  expect_length(screen$rows, 100L)
  expect_equal(nrow(screen$table), 5L)
  rows <- screen$rows
  sample_fit <- do.call(rlsc_short, c(list(x[rows, , drop = FALSE], y[rows],
                                           kernel = kernel_rbf(screen$table$sigma)),
                                      if (is.factor(y)) list(calibration_folds = 0)))
  expect_identical(fit$sigma_min, sample_fit$sigma_min)
  expect_identical(screen$table$chosen == "*", screen$table$sigma == fit$sigma_min)
  crit <- fit$criterion
  best <- vapply(split(sample_fit$kernel_path, sample_fit$kernel_path$sigma), function(p) {
    min(p[[crit]])
  }, 1)
  expect_equal(screen$table[[crit]], unname(best[as.character(screen$table$sigma)]), tolerance = 1e-10)
}

test_that("sigma = NULL on enough rows screens sigma on a sample of them, then fits exactly at it (classes)", {
  withr::local_options(rlsc.sigma_screen = screen_small)
  set.seed(491)
  n <- 200
  x <- matrix(runif(n * 2, -2, 2), n)
  y <- factor(ifelse(sin(2 * x[, 1]) + x[, 2]^2 / 2 + rnorm(n, sd = 0.4) > 0.6, "b",
                     ifelse(x[, 2] > 0, "a", "c")))
  newx <- matrix(runif(40, -2, 2), 20)
  set.seed(1)
  fit <- rlsc_short(x, y, kernel = kernel_rbf(), calibration_folds = 2)
  expect_screen_of_sample(fit, x, y)
  expect_equal(nrow(fit$kernel_grid), 1L)
  expect_output(print(fit), "chosen among 5 values by exact LOO on a sample of 100 rows")
  # the lambda path is that of the one exact fit at the screened sigma
  exact <- rlsc_short(x, y, kernel = kernel_rbf(fit$sigma_min), calibration_folds = 2)
  expect_null(exact$sigma_screen)
  expect_same_fit(fit, exact, newx)
})

test_that("sigma = NULL on enough rows screens sigma for regression; explicit sigmas search every row", {
  withr::local_options(rlsc.sigma_screen = screen_small)
  d <- sine_data(200, 492)
  set.seed(2)
  warned <- character()
  fit <- withCallingHandlers(rlsc(d$x, d$y, kernel = kernel_rbf()), warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_screen_of_sample(fit, d$x, d$y)
  # the warning of a sigma at an end of the values tried reads the screen
  expect_identical(any(grepl("`sigma` = .* is the (smallest|largest) value tried", warned)),
                   any(fit$sigma_screen$table$chosen[c(1L, 5L)] == "*"))
  # sigma = c(...) keeps the exact search on every row: two settings, each
  # its whole path, the screened one's that of the default fit
  other <- setdiff(fit$sigma_screen$table$sigma, fit$sigma_min)[1L]
  both <- rlsc_short(d$x, d$y, kernel = kernel_rbf(c(fit$sigma_min, other)))
  expect_null(both$sigma_screen)
  expect_equal(both$kernel_grid$sigma, c(fit$sigma_min, other))
  expect_equal(both$kernel_path[both$kernel_path$sigma == fit$sigma_min, ], fit$kernel_path,
               tolerance = 1e-10, ignore_attr = TRUE)
})

test_that("the screen of sigma on pure noise gives the flat fit", {
  withr::local_options(rlsc.sigma_screen = screen_small)
  set.seed(493)
  n <- 400
  x <- matrix(rnorm(n * 3), n)
  y <- factor(sample(c("u", "v"), n, TRUE, prob = c(0.3, 0.7)))
  fit <- rlsc_short(x, y, kernel = kernel_rbf(), calibration_folds = 2)
  expect_screen_of_sample(fit, x, y)
  # nothing to learn: the most frequent class everywhere, probabilities near
  # the class shares
  newx <- matrix(rnorm(30), 10)
  expect_true(all(predict(fit, newx, type = "class") == "v"))
  expect_equal(colMeans(predict(fit, newx, type = "prob")), c(u = 0.3, v = 0.7), tolerance = 0.1)
})

test_that("below the screen's rows sigma = NULL searches every row, and a bad rlsc.sigma_screen is refused", {
  withr::local_options(rlsc.sigma_screen = screen_small)
  d <- sine_data(199, 494)
  fit <- suppressWarnings(rlsc(d$x, d$y, kernel = kernel_rbf()))
  expect_null(fit$sigma_screen)
  expect_equal(nrow(fit$kernel_grid), 5L)
  withr::local_options(rlsc.sigma_screen = c(rows = 10, sample = 20))
  expect_error(rlsc(d$x, d$y, kernel = kernel_rbf()),
               "^option `rlsc.sigma_screen` must be c\\(rows = , sample = \\) with 2 <= sample < rows$")
})
