# Multiple-kernel ridge (`bands` with an RBF or polynomial kernel, R/bands.R)
# against brute force: candidate w's kernel sum_g w_g K_g is written out in R
# (ref_rbf() / ref_poly() of helper-kernels.R on each group's columns), and
# every row (or fold) is refitted with solve() on the bordered system
# (ref_bordered()).

mk_gram <- function(x, z, group, w, fun) {
  Reduce(`+`, lapply(which(w > 0), function(g) {
    w[g] * fun(x[, group == g, drop = FALSE], z[, group == g, drop = FALSE])
  }))
}

# Per candidate a list(cvm, cvsd) of lambdas x columns: the LOO (or K-fold)
# squared error of each response column by refits.
mk_tables <- function(x, y, w, group, cand, lambda, fun, intercept = TRUE, folds = NULL) {
  y <- as.matrix(y)
  ref_candidate_tables(y, w, cand, lambda, folds, function(j) {
    k <- mk_gram(x, x, group, cand[j, ], fun)
    list(loo = function(t, l) ref_kernel_loo(k, y[, t], w, l, intercept),
         heldout = function(t, train, held, l) {
           sol <- ref_bordered(k, y[, t], w * train, l, intercept)
           ref_kernel_predict(sol, k[held, , drop = FALSE])
         })
  })
}

mk_data <- function(n = 40, seed = 3, noise_only = FALSE) {
  set.seed(seed)
  x <- matrix(rnorm(n * 6), n) + 2
  y <- cbind(a = sin(2 * x[, 1]) + x[, 2], b = (x[, 5] - 2)^2, c = x[, 3] * x[, 4] / 4) +
    matrix(rnorm(n * 3, sd = 0.3), n)
  if (noise_only) y[] <- rnorm(length(y))
  list(x = x, y = y, w = runif(n, 0.5, 2), group = c(1L, 1L, 2L, 2L, 3L, 3L),
       cand = rbind(c(1, 1, 1) / 3, c(1, 0, 0), c(0.2, 0, 0.8), c(0.05, 0.15, 0.8)),
       lambda = c(30, 3, 0.5, 0.1, 0.02))
}

mk_kernels <- list(
  rbf = list(kernel = kernel_rbf(1.5), fun = function(x, z) ref_rbf(x, z, sigma = 1.5)),
  polynomial = list(kernel = kernel_polynomial(2, scale = 0.1), fun = function(x, z) {
    ref_poly(x, z, degree = 2, scale = 0.1)
  }))

quiet_edges <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("(end|value) of the `lambda` grid", conditionMessage(w))) invokeRestart("muffleWarning")
  })
}

expect_mk_fit <- function(fit, d, tables, y = d$y, tol = 1e-8) {
  ref <- ref_band_choice(tables)
  expect_equal(unname(fit$band_index), ref$j)
  expect_equal(unname(fit$lambda_min), d$lambda[ref$index], tolerance = tol)
  expect_equal(unname(fit$band_scores), ref$scores, tolerance = tol)
  expect_equal(unname(fit$band_weights), t(d$cand[ref$j, ]), tolerance = tol)
  responses <- colnames(fit$band_weights)
  for (t in seq_along(responses)) {
    chosen <- tables[[ref$j[t]]]
    expect_equal(fit$path[[paste0("mse_", responses[t])]], chosen$cvm[, t], tolerance = tol)
    expect_equal(fit$path[[paste0("mse_", responses[t], "_se")]], chosen$cvsd[, t], tolerance = tol)
  }
}

test_that("multiple-kernel LOO equals refits on the explicit kernel sum, with and without intercept", {
  for (name in names(mk_kernels)) {
    kern <- mk_kernels[[name]]
    for (intercept in c(TRUE, FALSE)) {
      d <- mk_data(seed = if (intercept) 3 else 4)
      tables <- mk_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda, kern$fun, intercept)
      fit <- quiet_edges(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
                              lambda = d$lambda, kernel = kern$kernel, intercept = intercept))
      expect_s3_class(fit, c("rlsc_banded_fit", "rlsc_kernel_fit"))
      expect_mk_fit(fit, d, tables)
      # new rows: each column through its own candidate's kernel and dual coefficients
      ref <- ref_band_choice(tables)
      new <- matrix(rnorm(5 * 6), 5) + 2
      p <- predict(fit, new)
      cf <- coef(fit)
      for (t in 1:3) {
        w <- d$cand[ref$j[t], ]
        sol <- ref_bordered(mk_gram(d$x, d$x, d$group, w, kern$fun), d$y[, t], d$w,
                            d$lambda[ref$index[t]], intercept)
        expect_equal(unname(p[, t]), drop(ref_kernel_predict(sol, mk_gram(new, d$x, d$group, w, kern$fun))),
                     tolerance = 1e-8)
        # the dual coefficients: the same intercept and kernel expansion (unique up to
        # the null space of a polynomial kernel of rank below n)
        k <- mk_gram(d$x, d$x, d$group, w, kern$fun)
        expect_equal(unname(cf[1L, t]), sol$b, tolerance = 1e-8)
        expect_equal(drop(k %*% cf[-1L, t]), drop(k %*% sol$c), tolerance = 1e-8)
        if (name == "rbf") expect_equal(unname(cf[-1L, t]), drop(sol$c), tolerance = 1e-6)
        loo <- ref_kernel_loo(k, d$y[, t], d$w, d$lambda[ref$index[t]], intercept)
        expect_equal(unname(loo_predict(fit)[, t]), loo[, 1L], tolerance = 1e-8)
      }
      expect_equal(unname(predict(fit, d$x)), unname(fitted(fit)), tolerance = 1e-8)
    }
  }
})

test_that("multiple-kernel K-fold equals refits without each fold", {
  d <- mk_data(seed = 5)
  folds <- rep_len(1:5, 40)
  kern <- mk_kernels$rbf
  for (intercept in c(TRUE, FALSE)) {
    tables <- mk_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda, kern$fun, intercept, folds)
    fit <- quiet_edges(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
                            lambda = d$lambda, kernel = kern$kernel, intercept = intercept,
                            foldid = folds))
    expect_mk_fit(fit, d, tables)
  }
})

test_that("standardize = TRUE scales each group's columns before its kernel", {
  d <- mk_data(seed = 6)
  d$x[, 3:4] <- d$x[, 3:4] * 10
  kern <- mk_kernels$rbf
  fit <- quiet_edges(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                          kernel = kern$kernel, standardize = TRUE))
  z <- sweep(d$x, 2L, sqrt(colMeans(sweep(d$x, 2L, colMeans(d$x))^2)), "/")
  expect_equal(unname(fit$scale), sqrt(colMeans(sweep(d$x, 2L, colMeans(d$x))^2)), tolerance = 1e-12)
  tables <- mk_tables(z, d$y, rep(1, 40), d$group, d$cand, d$lambda, kern$fun)
  expect_mk_fit(fit, d, tables)
  ref <- ref_band_choice(tables)
  w <- d$cand[ref$j[2], ]
  sol <- ref_bordered(mk_gram(z, z, d$group, w, kern$fun), d$y[, 2], lambda = d$lambda[ref$index[2]])
  new <- d$x[1:4, ] + 0.1
  znew <- sweep(new, 2L, unname(fit$scale), "/")
  expect_equal(unname(predict(fit, new)[, 2]),
               drop(ref_kernel_predict(sol, mk_gram(znew, z, d$group, w, kern$fun))), tolerance = 1e-8)
})

test_that("classification and per_response = FALSE: the refits' choices and predictions", {
  d <- mk_data(n = 40, seed = 9)
  kern <- mk_kernels$rbf
  cls <- factor(ifelse(sin(2 * d$x[, 1]) + rnorm(40, sd = 0.3) > 0, "up", "down"))
  code <- ifelse(cls == "up", 1, -1)
  fit <- quiet_edges(rlsc(d$x, cls, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                          kernel = kern$kernel))
  tables <- mk_tables(d$x, code, rep(1, 40), d$group, d$cand, d$lambda, kern$fun)
  ref <- ref_band_choice(tables)
  expect_equal(unname(fit$band_index), ref$j)
  expect_equal(unname(fit$lambda_min), d$lambda[ref$index])
  expect_equal(unname(fit$band_scores), ref$scores, tolerance = 1e-8)
  w <- d$cand[ref$j, ]
  sol <- ref_bordered(mk_gram(d$x, d$x, d$group, w, kern$fun), code, lambda = d$lambda[ref$index])
  f <- drop(ref_kernel_predict(sol, mk_gram(d$x[1:6, ], d$x, d$group, w, kern$fun)))
  expect_equal(as.character(predict(fit, d$x[1:6, ], type = "class")),
               ifelse(f > 0, "up", "down"))
  # one candidate for all columns: the smallest mean criterion; probabilities calibrated
  reg <- quiet_edges(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
                          lambda = d$lambda, kernel = kern$kernel, per_response = FALSE))
  tables <- mk_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda, kern$fun)
  total <- sapply(tables, function(tab) min(rowMeans(tab$cvm)))
  expect_equal(unname(reg$band_scores[, 1L]), total, tolerance = 1e-8)
  j <- which.min(total)
  expect_equal(unique(unname(reg$band_index)), j)
  l <- d$lambda[which.min(rowMeans(tables[[j]]$cvm))]
  expect_equal(unname(reg$lambda_min), l)
  sol <- ref_bordered(mk_gram(d$x, d$x, d$group, d$cand[j, ], kern$fun), d$y, d$w, l)
  new <- d$x[1:3, ] - 0.2
  expect_equal(unname(predict(reg, new)),
               unname(ref_kernel_predict(sol, mk_gram(new, d$x, d$group, d$cand[j, ], kern$fun))),
               tolerance = 1e-8)
  one <- quiet_edges(rlsc(d$x, cls, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                          kernel = kern$kernel, per_response = FALSE))
  p <- predict(one, d$x[1:5, ], type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 5))
})

test_that("pure noise: the chosen multiple-kernel model's LOO error is about the variance", {
  d <- mk_data(n = 60, seed = 11, noise_only = TRUE)
  fit <- quiet_edges(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, kernel = kernel_rbf(1.5)))
  v <- apply(d$y, 2L, function(col) mean((col - mean(col))^2))
  best <- apply(fit$band_scores, 2L, min)
  # selection over candidates and lambdas can only lower it a little (a
  # column's LOO error of the mean alone is v n^2 / (n - 1)^2)
  expect_true(all(best > 0.85 * v))
  expect_true(all(best < 1.1 * v))
  # and the same search on a signal finds it well below the variance
  s <- mk_data(n = 60, seed = 11)
  sig <- quiet_edges(rlsc(s$x, s$y, bands = s$group, band_weights = s$cand, kernel = kernel_rbf(1.5)))
  vs <- apply(s$y, 2L, function(col) mean((col - mean(col))^2))
  expect_true(all(apply(sig$band_scores, 2L, min) < 0.6 * vs))
})

test_that("the group kernels formed once and each candidate's kernel from the columns agree", {
  skip_if_not_installed("Matrix")
  d <- mk_data(n = 30, seed = 12)
  d$w[2] <- 0   # a row of weight 0: projected like new rows
  for (foldid in list(NULL, rep(1:3, 10))) {
    fit <- function(x) {
      quiet_edges(rlsc(x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
                       lambda = d$lambda, kernel = kernel_rbf(2), foldid = foldid))
    }
    a <- fit(d$x)
    b <- withr::with_options(list(rlsc.band_memory = 1e3), fit(d$x))
    expect_equal(a$path, b$path, tolerance = 1e-10)
    expect_identical(a$band_index, b$band_index)
    expect_equal(predict(a, d$x[1:5, ]), predict(b, d$x[1:5, ]), tolerance = 1e-10)
    s <- fit(Matrix::Matrix(d$x, sparse = TRUE))
    expect_equal(s$path, a$path, tolerance = 1e-10)
  }
})

test_that("multiple-kernel fits print, summarize, plot and tidy their weights", {
  d <- mk_data(n = 30, seed = 13)
  fit <- quiet_edges(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                          kernel = kernel_rbf(1.5)))
  out <- capture.output(print(fit))
  expect_true(any(grepl("^Kernel: rbf\\(sigma = 1.5\\) of each band's columns$", out)))
  expect_true(any(grepl("Bands: 3 groups of columns", out)))
  sout <- capture.output(print(summary(fit)))
  expect_true(any(grepl("Band weights", sout)))
  expect_true(any(grepl("^Kernel: rbf\\(sigma = 1.5\\) of each band's columns$", sout)))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  expect_invisible(plot(fit, type = "criterion"))
  expect_equal(fit$sigma_min, 1.5)
  skip_if_not_installed("generics")   # suggested: the rest of the test needs it
  tb <- generics::tidy(fit, what = "bands")
  expect_equal(tb$weight, as.vector(fit$band_weights))
  expect_equal(nrow(tb), 9L)
})

test_that("bands with a kernel: the kernel is checked", {
  d <- mk_data(n = 20, seed = 1)
  expect_error(rlsc(d$x, d$y, bands = d$group, kernel = kernel_rbf(c(0.5, 1))),
               "`bands` with a kernel needs one value of each kernel parameter .* not rbf\\(sigma = \\{0.5, 1\\}\\)")
  expect_error(rlsc(d$x, d$y, bands = d$group, kernel = kernel_polynomial(2:3)),
               "one value of each kernel parameter .* not polynomial")
  expect_error(rlsc(d$x, d$y, bands = d$group, kernel = "rbf"),
               "`bands` with an RBF kernel needs one value of `sigma`")
  expect_error(rlsc(d$x, d$y, bands = d$group, kernel = kernel_custom(function(x, z) tcrossprod(x, z))),
               "`bands` needs the linear kernel .* not custom")
  expect_error(rlsc(d$x, d$y, bands = d$group, kernel = nystrom(kernel_rbf(1), m = 5)),
               "`bands` needs the linear kernel .* not nystrom")
  src <- chunk_matrix(d$x, d$y, chunk_rows = 7)
  expect_error(rlsc(src, bands = d$group, kernel = kernel_rbf(1)),
               "cannot be fitted from chunks; use the linear kernel \\(banded ridge\\), or a data set")
  expect_error(rlsc(src, bands = d$group, kernel = nystrom(kernel_rbf(1), m = 5)),
               "`bands` needs the linear kernel .* not nystrom")
  expect_error(rlsc(src, kernel = kernel_rbf(1)), "use the linear kernel, nystrom\\(\\) or random_features\\(\\)")
})

test_that("a multiple-kernel fit predicts at any lambda, and after saveRDS()", {
  d <- mk_data(n = 30, seed = 14)
  kern <- mk_kernels$polynomial
  fit <- quiet_edges(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                          kernel = kern$kernel))
  new <- d$x[1:4, ] * 0.9
  for (l in c(0.7, 7)) {   # off the grid: each column's candidate's engine solves at l
    p <- predict(fit, new, lambda = l)
    for (t in 1:3) {
      w <- d$cand[fit$band_index[t], ]
      sol <- ref_bordered(mk_gram(d$x, d$x, d$group, w, kern$fun), d$y[, t], lambda = l)
      expect_equal(unname(p[, t]), drop(ref_kernel_predict(sol, mk_gram(new, d$x, d$group, w, kern$fun))),
                   tolerance = 1e-8)
    }
  }
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  expect_equal(predict(readRDS(path), new), predict(fit, new), tolerance = 1e-12)
  # per_response = FALSE keeps, as kernel fits do, the solutions of its grid only
  one <- quiet_edges(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                          kernel = kern$kernel, per_response = FALSE))
  expect_error(predict(one, new, lambda = 0.7), "not on the grid of this kernel fit")
})
