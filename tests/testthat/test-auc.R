# The exact leave-pair-out AUC against refits without each pair.

test_that("leave-pair-out AUC equals refits without each pair: primal and dual, weights, intercept", {
  set.seed(231)
  lambda <- c(10, 1, 0.1, 0.01)
  for (d in c(3, 30)) {
    n <- 16
    x <- matrix(rnorm(n * d), n) + 1
    y <- factor(rep(c("no", "yes"), c(7, 9)))
    w <- runif(n, 0.5, 2)
    for (icpt in c(TRUE, FALSE)) for (weighted in c(FALSE, TRUE)) {
      ww <- if (weighted) w else rep(1, n)
      fit <- rlsc_short(x, y, weights = if (weighted) w, lambda = lambda, intercept = icpt,
                        criterion = "auc")
      expect_identical(fit$form, if (d == 3) "primal" else "dual")
      ref <- ref_lpo_auc(y == "yes", ww, lambda, function(keep, rows, l) {
        ref_predict(ref_coef(x[keep, , drop = FALSE], ref_code(y)[keep, , drop = FALSE], ww[keep], l,
                             icpt), x[rows, , drop = FALSE], icpt)
      })
      expect_equal(fit$cvm, ref, tolerance = 1e-10, info = paste(d, icpt, weighted))
      expect_identical(fit$lambda_min, lambda[which.max(ref)])
    }
  }
})

test_that("leave-pair-out AUC of kernel fits, unpenalized columns, class weights and zero weights", {
  s <- sine_data(18, 232)
  y <- factor(s$y > 0.6)
  k <- ref_rbf(s$x, sigma = 0.8)
  lambda <- c(1, 0.1, 0.01)
  w <- runif(18, 0.5, 1.5)
  kf <- rlsc_short(s$x, y, weights = w, kernel = kernel_rbf(0.8), lambda = lambda, criterion = "auc")
  ref <- ref_lpo_auc(y == "TRUE", w, lambda, function(keep, rows, l) {
    sol <- ref_bordered(k[keep, keep], ref_code(y)[keep, , drop = FALSE], w[keep], lambda = l)
    ref_kernel_predict(sol, k[rows, keep, drop = FALSE])
  })
  expect_equal(kf$cvm, ref, tolerance = 1e-10)
  # penalty factors (a free column), class weights and a row of zero weight
  set.seed(233)
  x <- matrix(rnorm(20 * 3), 20)
  yb <- factor(rep(c("a", "b"), 10))
  w2 <- runif(20, 0.5, 2)
  w2[4] <- 0
  pf <- c(0, 1, 2)
  fit <- rlsc_short(x, yb, weights = w2, penalty_factor = pf, class_weights = c(b = 3),
                    lambda = lambda, criterion = "auc")
  wt <- w2 * ifelse(yb == "b", 3, 1)
  ref2 <- ref_lpo_auc(yb == "b", wt, lambda, function(keep, rows, l) {
    ref_predict(ref_coef_pf(x[keep, ], ref_code(yb)[keep, , drop = FALSE], wt[keep], l, pf),
                x[rows, , drop = FALSE])
  })
  expect_equal(fit$cvm, ref2, tolerance = 1e-10)
  # the same from chunks
  src <- chunk_matrix(x, yb, weights = w2, chunk_rows = 6)
  chunked <- rlsc_short(src, penalty_factor = pf, class_weights = c(b = 3), lambda = lambda,
                        criterion = "auc")
  expect_equal(chunked$cvm, fit$cvm, tolerance = 1e-12)
})

test_that("beyond 1e6 pairs, a seeded uniform sample of 1e6 pairs, the same in memory and chunks", {
  set.seed(234)
  n <- 2100
  x <- matrix(rnorm(n * 2), n)
  y <- factor(ifelse(x[, 1] + rnorm(n) > 0, "b", "a"))
  lambda <- c(100, 1)
  seed <- .Random.seed
  # (no calibration folds, which are drawn from the user's random numbers)
  fit <- rlsc_short(x, y, lambda = lambda, criterion = "auc", calibration_folds = 0)
  expect_identical(.Random.seed, seed)   # the pairs leave the user's random numbers alone
  pairs <- attr(fit$path, "pairs")
  npos <- sum(y == "b")
  expect_equal(pairs$total, npos * (n - npos))
  expect_true(pairs$sampled)
  expect_equal(pairs$used, 1e6)
  expect_output(print(fit), "uniform sample of 1e\\+06 of the 1102\\d+ positive-negative pairs")
  # the reference: the same pairs, scored from the dense hat matrix's 2 x 2 blocks
  set.seed(20221L, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  i <- which(y == "b")[sample.int(npos, 1e6, replace = TRUE)]
  j <- which(y == "a")[sample.int(n - npos, 1e6, replace = TRUE)]
  set.seed(1)
  code <- ref_code(y)[, 1]
  x1 <- cbind(1, x)
  ref <- vapply(lambda, function(l) {
    h <- x1 %*% solve(crossprod(x1) + l * diag(c(0, 1, 1)), t(x1))
    e <- code - drop(h %*% code)
    a_i <- 1 - h[cbind(i, i)]
    a_j <- 1 - h[cbind(j, j)]
    c <- h[cbind(i, j)]
    det <- a_i * a_j - c^2
    fi <- code[i] - (a_j * e[i] + c * e[j]) / det
    fj <- code[j] - (c * e[i] + a_i * e[j]) / det
    mean((fi > fj) + 0.5 * (fi == fj))
  }, 1)
  expect_equal(fit$cvm, ref, tolerance = 1e-10)
  src <- chunk_matrix(x, y, chunk_rows = 500)
  expect_equal(rlsc_short(src, lambda = lambda, criterion = "auc")$cvm, fit$cvm, tolerance = 1e-12)
})

test_that("K-fold AUC is the mean of the folds' AUCs weighted by fold size; one-class folds", {
  x <- as.matrix(iris[51:150, 1:2])
  y <- droplevels(iris$Species[51:150])
  w <- runif(100, 0.5, 2)
  folds <- rep(c(1, 2, 3, 4, 4), 20)   # unequal sizes
  lambda <- c(5, 0.5)
  fit <- rlsc_short(x, y, weights = w, foldid = folds, lambda = lambda, criterion = "auc")
  code <- ref_code(y)
  per <- sapply(lambda, function(l) sapply(1:4, function(f) {
    held <- folds == f
    p <- ref_predict(ref_coef(x[!held, ], code[!held, ], w[!held], l), x[held, ])
    ref_auc(drop(p), y[held] == "virginica", w[held])
  }))
  fw <- as.vector(tapply(w, folds, sum))
  cvm <- colSums(fw * per) / sum(fw)
  expect_equal(fit$cvm, cvm, tolerance = 1e-12)
  expect_equal(fit$cvsd, sqrt(colSums(fw * sweep(per, 2, cvm)^2) / sum(fw) / 3), tolerance = 1e-10)
  # a fold holding one class has no AUC: left out with a warning naming it
  one <- ifelse(y == "virginica" & seq_along(y) > 80, 5, rep(1:4, 25))
  expect_warning(f1 <- rlsc_short(x, y, foldid = one, lambda = lambda, criterion = "auc"),
                 "the AUC is undefined in fold\\(s\\) 5, whose held-out rows hold one class only")
  keep <- one != 5
  per1 <- sapply(lambda, function(l) sapply(1:4, function(f) {
    held <- one == f
    p <- ref_predict(ref_coef(x[!held, ], code[!held, ], lambda = l), x[held, ])
    ref_auc(drop(p), y[held] == "virginica")
  }))
  fw1 <- tabulate(one[keep], 4)
  expect_equal(f1$cvm, colSums(fw1 * per1) / sum(fw1), tolerance = 1e-12)
  # every fold of one class: a clear error, not the LOO one
  expect_error(rlsc(x, y, foldid = as.integer(y), criterion = "auc"),
               "every fold holds one class only; use `cv` = K \\(folds stratified by class\\)")
})

test_that("the boundary warning of the AUC says it keeps increasing", {
  set.seed(235)
  x <- matrix(rnorm(40 * 3), 40)
  y <- factor(ifelse(x[, 1] + rnorm(40) > 0, "b", "a"))
  expect_warning(rlsc(x, y, criterion = "auc", lambda = c(1e-3, 1e-4), calibration_folds = 0),
                 "the criterion keeps increasing beyond it")
})

# Four distinct points, each repeated: duplicated rows tie in exact arithmetic
# at every lambda, and the distinct ones differ by about 12 / lambda.
tied_auc_data <- function() {
  x <- cbind(rep(0:1, 15), rep(c(0, 0, 1), 10))
  set.seed(17)
  list(x = x, y = factor(ifelse(x[, 1] + x[, 2] + rnorm(30) > 1, "b", "a")))
}

test_that("AUC ties are judged relative to the values' scale: leave-pair-out up to lambda = 1e12", {
  d <- tied_auc_data()
  lambda <- 10^(12:0)
  w <- rep(c(1, 0.5, 2, 1.5, 1), 6)
  for (weighted in c(FALSE, TRUE)) {
    ww <- if (weighted) w else rep(1, 30)
    fit <- rlsc_short(d$x, d$y, weights = if (weighted) w, lambda = lambda, criterion = "auc",
                      calibration_folds = 0)
    ref <- ref_lpo_auc(d$y == "b", ww, lambda, function(keep, rows, l) {
      ref_predict(ref_coef(d$x[keep, ], ref_code(d$y)[keep, , drop = FALSE], ww[keep], l),
                  d$x[rows, , drop = FALSE])
    })
    # (an absolute tolerance of 1e-10 gave 0.5 at 1e11 and 1e12, 0.79 at 1e10)
    expect_equal(fit$cvm, ref, tolerance = 1e-10, info = paste(weighted))
  }
  src <- chunk_matrix(d$x, d$y, chunk_rows = 7)
  expect_equal(rlsc_short(src, lambda = lambda, criterion = "auc", calibration_folds = 0)$cvm,
               ref_lpo_auc(d$y == "b", rep(1, 30), lambda, function(keep, rows, l) {
                 ref_predict(ref_coef(d$x[keep, ], ref_code(d$y)[keep, , drop = FALSE], lambda = l),
                             d$x[rows, , drop = FALSE])
               }), tolerance = 1e-10)
  # the dual form: 40 columns, 6 distinct rows each repeated 5 times
  set.seed(171)
  z <- matrix(rnorm(6 * 40), 6)
  xd <- z[rep(1:6, 5), ]
  yd <- factor(ifelse(xd[, 1] + xd[, 2] + rnorm(30) > 0, "b", "a"))
  fd <- rlsc_short(xd, yd, lambda = lambda, criterion = "auc", calibration_folds = 0)
  expect_identical(fd$form, "dual")
  refd <- ref_lpo_auc(yd == "b", rep(1, 30), lambda, function(keep, rows, l) {
    ref_predict(ref_coef(xd[keep, ], ref_code(yd)[keep, , drop = FALSE], lambda = l), xd[rows, , drop = FALSE])
  })
  expect_equal(fd$cvm, refd, tolerance = 1e-10)
})

test_that("no false boundary warning from AUC ties at large lambda; unresolved values give NA", {
  d <- tied_auc_data()
  # the AUC is the same at every lambda from 100 up: lambda_min is the largest,
  # and the probes beyond it (1e10 gave 0.79 with an absolute tolerance) agree
  expect_no_warning(fit <- rlsc(d$x, d$y, lambda = c(1e9, 1e8), criterion = "auc",
                                calibration_folds = 0))
  expect_identical(fit$lambda_min, 1e9)
  # at 1e16 the values' spread (1e-15) is within their rounding: no AUC
  fit <- rlsc(d$x, d$y, lambda = c(1e16, 1), criterion = "auc", calibration_folds = 0)
  expect_identical(is.na(fit$cvm), c(TRUE, FALSE))
  expect_identical(fit$lambda_min, 1)
})

test_that("K-fold AUC ties are relative to the values' scale: refits per fold up to lambda = 1e12", {
  d <- tied_auc_data()
  lambda <- 10^(12:0)
  folds <- rep(1:5, 6)
  fit <- rlsc_short(d$x, d$y, foldid = folds, lambda = lambda, criterion = "auc", calibration_folds = 0)
  code <- ref_code(d$y)
  per <- sapply(lambda, function(l) sapply(1:5, function(f) {
    held <- folds == f
    p <- ref_predict(ref_coef(d$x[!held, ], code[!held, , drop = FALSE], lambda = l), d$x[held, ])
    ref_auc(drop(p), d$y[held] == "b")
  }))
  # (an absolute tolerance of 1e-10 gave 0.5 at 1e11 and 1e12, against 0.80)
  expect_equal(fit$cvm, colMeans(per), tolerance = 1e-12)
  expect_identical(fit$lambda_min, 1e12)
})
