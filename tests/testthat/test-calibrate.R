# Class probabilities: a monotone map fitted on the exact leave-one-out
# decision values with the intercept of all rows, against brute-force refits
# leaving each row out and independent fits of the map; the probabilities at
# any lambda against a fit made at that lambda.

# The calibration's values by brute force: each row of positive weight's
# prediction by the model refitted without it, with that model's mean of
# the response (the other rows') replaced by all rows' (rows of weight 0:
# the fit's value).  `fit_predict(keep)` gives the model fitted on the rows
# `keep` (logical) and evaluated at every row.
ref_calibration_values <- function(code, w, fit_predict, intercept = TRUE, rows = which(w > 0)) {
  code <- as.matrix(code)
  out <- fit_predict(w > 0)
  mean_of <- function(keep) colSums(w[keep] * code[keep, , drop = FALSE]) / sum(w[keep])
  for (i in rows) {
    keep <- w > 0 & seq_along(w) != i
    out[i, ] <- fit_predict(keep)[i, ]
    if (intercept) out[i, ] <- out[i, ] - mean_of(keep) + mean_of(w > 0)
  }
  out
}

ridge_values <- function(x, code, w, lambda, intercept = TRUE, rows = which(w > 0)) {
  ref_calibration_values(code, w, function(keep) {
    ref_predict(ref_coef(x[keep, , drop = FALSE], as.matrix(code)[keep, , drop = FALSE], w[keep], lambda,
                         intercept), x, intercept)
  }, intercept, rows)
}

kernel_values <- function(k, code, w, lambda) {
  ref_calibration_values(code, w, function(keep) {
    ref_kernel_predict(ref_bordered(k, code, w * keep, lambda), k)
  })
}

# Platt's targets of a two-class response (TRUE = the second class).
platt_targets <- function(pos) {
  ifelse(pos, (sum(pos) + 1) / (sum(pos) + 2), 1 / (sum(!pos) + 2))
}

# The K-class map eta_k = a_k + b_k f_k (all b_k free) by Newton-Raphson on
# the weighted cross-entropy with Platt's targets.
ref_multinomial_map <- function(f, code, w) {
  k <- ncol(f)
  n <- nrow(f)
  counts <- tabulate(code, k)
  own <- (counts[code] + 1) / (counts[code] + 2)
  t <- matrix((1 - own) / (k - 1), n, k)
  t[cbind(1:n, code)] <- own
  theta <- numeric(2 * k - 1)
  for (it in 1:100) {
    a <- c(0, theta[1:(k - 1)])
    b <- theta[k:(2 * k - 1)]
    eta <- rep(a, each = n) + f * rep(b, each = n)
    p <- exp(eta - apply(eta, 1, max))
    p <- p / rowSums(p)
    grad <- numeric(2 * k - 1)
    hess <- matrix(0, 2 * k - 1, 2 * k - 1)
    for (i in 1:n) {
      j <- matrix(0, k, 2 * k - 1)   # d eta_i / d theta
      j[cbind(2:k, 1:(k - 1))] <- 1
      j[cbind(1:k, k:(2 * k - 1))] <- f[i, ]
      grad <- grad + w[i] * drop(crossprod(j, p[i, ] - t[i, ]))
      hess <- hess + w[i] * crossprod(j, (diag(p[i, ]) - tcrossprod(p[i, ])) %*% j)
    }
    step <- solve(hess, grad)
    theta <- theta - step
    if (max(abs(step)) < 1e-13) break
  }
  list(a = c(0, theta[1:(k - 1)]), b = theta[k:(2 * k - 1)])
}

ref_map_prob <- function(map, f) {
  eta <- rep(map$a, each = nrow(f)) + f * rep(map$b, each = nrow(f))
  p <- exp(eta - apply(eta, 1, max))
  unname(p / rowSums(p))
}


# The two-class map by glm() on Platt's targets (the slope free: where it
# is positive, the constrained optimum).
ref_platt <- function(f, pos, w) {
  target <- platt_targets(pos[w > 0])
  suppressWarnings(coef(glm(target ~ f[w > 0], weights = w[w > 0], family = quasibinomial())))
}

# The folds of cross-fitted LOO probabilities, dealt by class (written out:
# the rows of positive weight class by class, then the others, each class's
# in an order shuffled by runif() under the seed 20261128, take the folds in
# turn).
ref_dealt <- function(nfold, code, w) {
  old <- RNGkind()
  set.seed(20261128L, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  key <- runif(length(code))
  RNGkind(old[1L], old[2L], old[3L])
  fold <- integer(length(code))
  k <- 0L
  for (pos in c(TRUE, FALSE)) {
    for (cl in sort(unique(code))) {
      rows <- which(code == cl & (w > 0) == pos)
      for (i in rows[order(key[rows])]) {
        fold[i] <- k %% nfold + 1L
        k <- k + 1L
      }
    }
  }
  fold
}

test_that("binary probabilities: Platt's map of the exact LOO values, cross-fitted LOO", {
  df <- transform(mtcars, am = factor(am, labels = c("auto", "manual")))
  x <- as.matrix(df[, c("wt", "hp", "qsec")])
  set.seed(8)
  w <- runif(32, 0.5, 2)
  w[c(4, 17)] <- 0
  pos <- df$am == "manual"
  for (icpt in c(TRUE, FALSE)) {
    fit <- rlsc_short(x, df$am, weights = w, lambda = c(100, 10, 1), intercept = icpt)
    expect_identical(fit$calibration$K, 5L)
    for (l in c(fit$lambda_min, 3.7)) {
      held <- drop(ridge_values(x, ref_code(df$am), w, l, icpt))
      cf <- ref_platt(held, pos, w)
      expect_gt(cf[2], 0)
      newx <- x[c(3, 9, 20), ] + 0.3
      p <- predict(fit, newx, type = "prob", lambda = l)
      expect_identical(colnames(p), c("auto", "manual"))
      expect_equal(unname(rowSums(p)), rep(1, 3))
      f <- drop(ref_predict(ref_coef(x, ref_code(df$am), w, l, icpt), newx, icpt))
      expect_equal(unname(p[, "manual"]), unname(plogis(cf[1] + cf[2] * f)), tolerance = 1e-7,
                   info = paste(icpt, l))
      # loo_predict: each row's value through the map fitted without its fold
      folds <- ref_dealt(5L, as.integer(df$am), w)
      lp <- loo_predict(fit, type = "prob", lambda = l)
      for (k in 1:5) {
        out <- folds != k
        cfk <- ref_platt(held[out], pos[out], w[out])
        cfk[2] <- max(cfk[2], 0)   # the slope is constrained to be >= 0
        expect_equal(unname(lp[folds == k, "manual"]), unname(plogis(cfk[1] + cfk[2] * held[folds == k])),
                     tolerance = 1e-6, info = paste(icpt, l, k))
      }
    }
  }
})

test_that("multiclass probabilities: the monotone multinomial map, primal, dual and kernel", {
  set.seed(41)
  centers <- rbind(c(0, 3), c(-3, -2), c(3, -2))
  code <- rep(1:3, c(20, 15, 25))
  cls <- factor(c("a", "b", "c")[code])
  x <- centers[code, ] + matrix(rnorm(120, sd = 1.6), 60)
  w <- runif(60, 0.5, 2)
  for (wide in c(FALSE, TRUE)) {
    xx <- if (wide) cbind(x, matrix(rnorm(60 * 70, sd = 0.05), 60)) else x
    fit <- rlsc_short(xx, cls, weights = w, lambda = c(50, 5, 0.5))
    expect_identical(fit$form, if (wide) "dual" else "primal")
    for (l in c(fit$lambda_min, 1.3)) {
      held <- ridge_values(xx, ref_code(cls), w, l)
      ref <- ref_multinomial_map(held, code, w)
      expect_true(all(ref$b > 0))   # the constraint is not active: the free optimum is the answer
      newx <- xx[c(1, 30, 59), ] * 1.1
      f <- ref_predict(ref_coef(xx, ref_code(cls), w, lambda = l), newx)
      expect_equal(unname(predict(fit, newx, type = "prob", lambda = l)), ref_map_prob(ref, f),
                   tolerance = 1e-7, info = paste(wide, l))
    }
  }
  # a kernel fit (the dual engine's LOO values), against the bordered system
  s <- sine_data(40, 51)
  yb <- factor(s$y > 0.5)
  kf <- rlsc_short(s$x, yb, kernel = kernel_rbf(1), lambda = c(1, 0.1, 0.01))
  heldk <- drop(kernel_values(ref_rbf(s$x, sigma = 1), ref_code(yb), rep(1, 40), kf$lambda_min))
  cf <- ref_platt(heldk, yb == "TRUE", rep(1, 40))
  expect_gt(cf[2], 0)
  fk <- predict(kf, s$x[1:4, ])
  expect_equal(unname(predict(kf, s$x[1:4, ], type = "prob")[, "TRUE"]), unname(plogis(cf[1] + cf[2] * fk)),
               tolerance = 1e-7)
  # iris: the versicolor column does not rank versicolor: its slope sits at 0
  # and the map satisfies the conditions of the constrained optimum there
  ir <- rlsc(Species ~ ., data = iris)
  map <- ir$calibration$at[[1L]]$map
  expect_equal(map$b[2], 0)
  expect_true(all(map$b[-2] > 0))
  heldi <- ridge_values(as.matrix(iris[, 1:4]), ref_code(iris$Species), rep(1, 150), ir$lambda_min)
  t <- matrix((1 - 51 / 52) / 2, 150, 3)
  t[cbind(1:150, as.integer(iris$Species))] <- 51 / 52
  r <- (ref_map_prob(map, heldi) - t) / 150
  expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-7)     # intercepts
  slope_grad <- colSums(r * heldi)
  expect_equal(unname(slope_grad[-2]), c(0, 0), tolerance = 1e-7)             # free slopes
  expect_gt(slope_grad[2], 0)                                          # the bound holds
})

test_that("the LOO model's own intercept would erase the signal at large lambda", {
  # as lambda grows the exact LOO values tend to the other rows' mean, which
  # moves away from the row's own class, while the decision values still
  # rank the classes (the nearest-centroid rule): the map keeps its slopes
  # and the probabilities their information
  set.seed(5)
  test <- c(1:15, 51:65, 101:115)
  x <- as.matrix(iris[-test, 1:4])
  y <- droplevels(iris$Species[-test])
  fit <- rlsc(x, y)
  big <- max(fit$lambda) * 1000
  p <- predict(fit, iris[test, 1:4], lambda = big, type = "prob")
  truth <- as.integer(iris$Species[test])
  expect_lt(-mean(log(p[cbind(seq_along(truth), truth)])), 0.4)   # the class shares: log(3) = 1.1
  expect_gt(mean(predict(fit, lambda = big, type = "prob")[cbind(1:105, as.integer(y))] > 0.5), 0.8)
  # the raw LOO values rank every row's own class below the others' rows
  # there: a map of them would have no slope
  loo <- loo_predict(fit, lambda = big)
  for (k in 1:3) expect_lt(max(loo[y == levels(y)[k], k]), min(loo[y != levels(y)[k], k]))
})
# The calibration map itself: its optimum, its stopping rule and its
# independence of the decision values' units are numerical properties of the
# map's fit that the fits' probabilities show only blurred by the held-out
# values, so these tests call it directly (fit_map(), class_probabilities();
# the Newton solver and the column spreads through their R/native.R adapters).

test_that("a class column flat to rounding gets no slope; the rest is the optimum", {
  # class 2's held-out values are one value but for their last bit: scaled up
  # to unit spread, that rounding took slopes of 1e15 (and probabilities of
  # new rows jumped to 0 or 1 with it)
  for (seed in 1:4) {
    set.seed(seed)
    n <- 300
    code <- sample(1:3, n, TRUE)
    f <- matrix(rnorm(n * 3, sd = 0.3), n) + outer(code, 1:3, "==") * 0.8 - 0.6
    f[, 2] <- -0.6 + sample(c(-1, 0, 1), n, TRUE) * 2^-53 * 0.6
    map <- rlsc:::fit_map(list(f = f, code = code, w = rep(1, n)), 3L)
    expect_identical(map$b[2], 0)
    # the conditions of the optimum, from their definitions: the intercepts'
    # and the other slopes' gradients vanish (with b_2 = 0, eta_2 is a_2
    # whatever class 2's value: an optimum of the problem with its slope)
    own <- (tabulate(code, 3) + 1) / (tabulate(code, 3) + 2)
    t <- matrix((1 - own[code]) / 2, n, 3)
    t[cbind(seq_len(n), code)] <- own[code]
    r <- (ref_map_prob(map, f) - t) / n
    expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-8)
    expect_equal(unname(colSums(r * f)[-2]), c(0, 0), tolerance = 1e-8)
    # and a new row's probabilities do not move with class 2's value
    obj <- structure(list(classes = c("x", "y", "z")), class = "rlsc")
    p <- rlsc:::class_probabilities(obj, rbind(c(0.2, -0.6, -0.6), c(0.2, 0.4, -0.6)), map)
    expect_equal(p[1, ], p[2, ])
  }
})

test_that("the map's Newton fit starts on the bounds and ends at a projected gradient below tol", {
  set.seed(31)
  n <- 60
  code <- sample(1:3, n, TRUE)
  f <- matrix(rnorm(n * 3), n) + 0.7 * outer(code, 1:3, "==")
  f[, 3] <- -f[, 3]   # class 3's values fall on its rows: its slope is held at 0
  w <- rep(1 / n, n)
  own <- rep(0.9, 3)
  fit <- function(theta, tol, maxit) {
    rlsc:::c_softmax_fit(f, code, own, w, theta, 1:3, numeric(3), rep(1, 3), tol, maxit)
  }
  start <- fit(c(0.1, -0.2, 1, -1, 2), 1e-10, 0L)
  expect_identical(start$theta, c(0.1, -0.2, 1, 0, 2))   # a negative slope moved onto its bound
  expect_identical(start$evaluations, 1L)
  end <- fit(c(0.1, -0.2, 1, -1, 2), 1e-10, 200L)
  at <- rlsc:::c_softmax_map(f, code, own, w, end$theta, 1:3, numeric(3), rep(1, 3))
  held <- c(FALSE, FALSE, end$theta[3:5] <= 0 & at$grad[3:5] > 0)
  expect_identical(held, c(FALSE, FALSE, FALSE, FALSE, TRUE))
  expect_lt(max(abs(at$grad[!held])), 1e-10)
  expect_gt(end$evaluations, 2L)
})

test_that("a map at its optimum to the loss's rounding stops in a few evaluations", {
  # every slope held at 0 (each class's values lower on its own rows), the
  # map started from the one fitted on all rows: the fold maps start next to
  # their optimum, where the loss is flat to its rounding while the gradient
  # still exceeds the tolerance.  Backtracking on the loss alone, fold 4's
  # took 160 evaluations (hundreds in loo_predict() on pure noise) and
  # stopped short of the optimum.
  set.seed(14)
  n <- 500
  code <- sample(1:3, n, TRUE)
  f <- matrix(rnorm(n * 3, sd = 0.3), n) - 0.2 * outer(code, 1:3, "==")
  fold <- sample(rep_len(1:5, n))
  full <- rlsc:::fit_map(list(f = f, code = code, w = rep(1, n)), 3L)
  expect_identical(full$b, c(0, 0, 0))
  for (j in 1:5) {
    h <- list(f = f[fold != j, ], code = code[fold != j], w = rep(1, sum(fold != j)))
    map <- rlsc:::fit_map(h, 3L, full[c("a", "b")], tol = 1e-8)
    expect_lte(map$evaluations, 6)
    # the optimum from its definition: the intercepts' gradient vanishes
    # (the slopes' pushes them below 0)
    own <- (tabulate(h$code, 3) + 1) / (tabulate(h$code, 3) + 2)
    t <- matrix((1 - own[h$code]) / 2, nrow(h$f), 3)
    t[cbind(seq_len(nrow(h$f)), h$code)] <- own[h$code]
    r <- (ref_map_prob(map, h$f) - t) / nrow(h$f)
    expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-8, info = j)
    expect_true(all(colSums(r * h$f) > 0), info = j)
  }
})

test_that("the map does not depend on the decision values' units: tiny spreads keep their slopes", {
  # the same values shrunk to a spread of 1e-10 of an offset, or scaled far
  # up or down (where squares overflow or underflow), give the same
  # probabilities: the slopes scale as 1 / c (a spread of 1e-8, at lambda =
  # 1e11 on iris, was taken for rounding and lost its slopes)
  set.seed(11)
  n <- 200
  code <- sample(1:3, n, TRUE)
  f <- matrix(rnorm(n * 3, sd = 0.3), n) + outer(code, 1:3, "==") * 0.8 - 0.6
  w <- runif(n)
  w[1:20] <- 0
  map <- rlsc:::fit_map(list(f = f, code = code, w = w), 3L)
  expect_true(all(map$b > 0))
  obj <- structure(list(classes = c("x", "y", "z")), class = "rlsc")
  newf <- rbind(c(0.2, -0.6, -0.6), c(-0.5, 0.4, -0.1), c(-1, -1, 0.9))
  p0 <- rlsc:::class_probabilities(obj, rbind(f, newf), map)
  for (case in list(c(-0.5, 1e-10), c(0, 1e160), c(0, 1e-170), c(3, 1e-6))) {
    moved <- function(v) case[1] + case[2] * v
    mc <- rlsc:::fit_map(list(f = moved(f), code = code, w = w), 3L)
    expect_equal(mc$b * case[2], map$b, tolerance = 1e-5, info = case[2])
    expect_equal(rlsc:::class_probabilities(obj, moved(rbind(f, newf)), mc), p0, tolerance = 1e-5,
                 info = case[2])
  }
})

test_that("on pure noise the probabilities are the class shares, not the labels", {
  set.seed(22)
  n <- 200
  x <- matrix(rnorm(n * 50), n)
  y <- factor(sample(c("a", "b"), n, TRUE, prob = c(0.4, 0.6)))
  xt <- matrix(rnorm(2000 * 50), 2000)
  yt <- factor(sample(c("a", "b"), 2000, TRUE, prob = c(0.4, 0.6)))
  fit <- suppressWarnings(rlsc(x, y))
  share <- mean(y == "b")
  majority <- max(share, 1 - share)
  logloss <- function(p, truth) -mean(log(ifelse(truth == "b", p, 1 - p)))
  lp <- loo_predict(fit, type = "prob")[, "b"]
  expect_lt(max(abs(lp - share)), 0.05)
  expect_lte(mean((lp > 0.5) == (y == "b")), majority + 0.02)
  pt <- predict(fit, xt, type = "prob")[, "b"]
  expect_lt(abs(mean(pt) - share), 0.03)
  expect_lte(logloss(pt, yt), logloss(rep(share, 2000), yt) + 2e-3)
  # three classes
  y3 <- factor(sample(c("a", "b", "c"), n, TRUE, prob = c(0.2, 0.3, 0.5)))
  f3 <- suppressWarnings(rlsc(x, y3))
  p3 <- predict(f3, xt, type = "prob")
  expect_lt(max(abs(colMeans(p3) - as.vector(table(y3)) / n)), 0.03)
  lp3 <- loo_predict(f3, type = "prob")
  expect_lt(max(abs(lp3 - rep(as.vector(table(y3)) / n, each = n))), 0.1)
  # at small lambda, where the LOO values anti-correlate with their own
  # labels, and with d close to n (n = 60, d = 55), where they are wild
  for (case in list(list(x = x, l = c(1e-2, 1e-3)), list(x = matrix(rnorm(60 * 55), 60), l = c(1, 1e-2, 1e-4)))) {
    yy <- y[seq_len(nrow(case$x))]
    sh <- mean(yy == "b")
    small <- suppressWarnings(rlsc(case$x, yy, lambda = case$l))
    for (l in case$l) {
      lps <- loo_predict(small, type = "prob", lambda = l)[, "b"]
      expect_lte(mean((lps > 0.5) == (yy == "b")), max(sh, 1 - sh) + 0.05)
      expect_lt(max(abs(lps - sh)), 0.1)
      pn <- predict(small, matrix(rnorm(2000 * ncol(case$x)), 2000), type = "prob", lambda = l)[, "b"]
      expect_lt(abs(mean(pn) - sh), 0.03)
      expect_lt(sd(pn), 0.05)
    }
  }
})

# The probabilities of a fit at each lambda of `at` (and its cross-fitted
# LOO probabilities) equal those of a fit made at that lambda alone, to
# 1e-8; `refit(l)` makes that fit.
expect_refit_probabilities <- function(fit, refit, at, newx, info = NULL) {
  for (l in at) {
    one <- refit(l)
    expect_equal(predict(fit, newx, lambda = l, type = "prob"), predict(one, newx, type = "prob"),
                 tolerance = 1e-8, info = paste(info, l))
    expect_equal(loo_predict(fit, lambda = l, type = "prob"), loo_predict(one, type = "prob"),
                 tolerance = 1e-8, info = paste(info, l))
  }
  # several lambdas at once: each as alone
  both <- predict(fit, newx, lambda = at[1:2], type = "prob")
  expect_equal(both[, , 2L], predict(fit, newx, lambda = at[2L], type = "prob"), tolerance = 1e-12,
               info = info)
}

test_that("probabilities at any lambda are those of a fit made at that lambda", {
  # the issue's case: a fit at 1000 predicted at 0.1 used the map of 1000 (1.7e-6 for 0.12)
  set.seed(9)
  x <- matrix(rnorm(360), 90)
  cls <- factor(ifelse(x[, 1] + rnorm(90) > .5, "z", "a"))
  f <- rlsc(x, cls, lambda = 1000)
  expect_equal(predict(f, x, lambda = 0.1, type = "prob"), predict(rlsc(x, cls, lambda = 0.1), x, type = "prob"),
               tolerance = 1e-8)
  expect_gt(predict(f, x, lambda = 0.1, type = "prob")[2, "z"], 0.05)
  # two and three classes, weights, class weights, on and off the grid
  # (lambda = 0: least squares, n > d), primal and dual
  set.seed(12)
  n <- 70
  x <- matrix(rnorm(n * 4), n)
  y2 <- factor(ifelse(x[, 1] - x[, 2] + rnorm(n) > 0, "yes", "no"))
  y3 <- factor(c("p", "q", "r")[max.col(x[, 1:3] + matrix(rnorm(n * 3), n))])
  w <- runif(n, 0.2, 2)
  w[c(5, 40)] <- 0
  newx <- x[c(2, 33, 61), ] + 0.2
  for (y in list(y2, y3)) {
    for (cw in list(NULL, stats::setNames(c(2, 0.5), levels(y)[1:2]))) {
      grid <- suppressWarnings(rlsc(x, y, weights = w, class_weights = cw))
      at <- c(grid$lambda[c(10, 40)], 0.77, max(grid$lambda) * 30, 0)
      expect_refit_probabilities(grid, function(l) rlsc_short(x, y, weights = w, class_weights = cw, lambda = l),
                                 at, newx, info = paste(nlevels(y), length(cw)))
    }
    wide <- cbind(x, matrix(rnorm(n * 90), n))
    dual <- suppressWarnings(rlsc(wide, y, weights = w))
    expect_identical(dual$form, "dual")
    expect_refit_probabilities(dual, function(l) rlsc_short(wide, y, weights = w, lambda = l),
                               c(dual$lambda[20], 3.3), wide[c(1, 9), ] * 0.9, info = "dual")
    # kernels with keep_eigen: any lambda; a chunk matrix and chunk files
    kern <- rlsc_short(x, y, weights = w, kernel = kernel_rbf(sigma = 2), keep_eigen = TRUE)
    expect_refit_probabilities(kern, function(l) {
      rlsc_short(x, y, weights = w, kernel = kernel_rbf(sigma = 2), keep_eigen = TRUE, lambda = l)
    }, c(kern$lambda[30], 0.123), newx, info = "kernel")
    chunked <- rlsc_short(chunk_matrix(x, y, w, chunk_rows = 25))
    inmem <- rlsc_short(x, y, weights = w)
    for (l in c(inmem$lambda_min, 0.77, 0)) {
      expect_equal(predict(chunked, newx, lambda = l, type = "prob"), predict(inmem, newx, lambda = l, type = "prob"),
                   tolerance = 1e-8)
      expect_equal(unname(loo_predict(chunked, lambda = l, type = "prob")),
                   unname(loo_predict(inmem, lambda = l, type = "prob")), tolerance = 1e-8)
    }
    expect_refit_probabilities(chunked, function(l) rlsc_short(chunk_matrix(x, y, w, chunk_rows = 25), lambda = l),
                               c(chunked$lambda[50], 2.2), newx, info = "chunks")
  }
  dir <- new_tempdir()
  idx <- split(seq_len(n), rep(1:3, length.out = n))
  rds <- file.path(dir, paste0("part", 1:3, ".rds"))
  for (i in 1:3) saveRDS(list(x = x[idx[[i]], ], y = y3[idx[[i]]], weights = w[idx[[i]]]), rds[i])
  files <- rlsc_short(chunk_files(rds), lambda = c(10, 1))
  order <- unlist(idx)
  inmem <- rlsc_short(x[order, ], y3[order], weights = w[order], lambda = c(10, 1))
  for (l in c(1, 0.35)) {
    expect_equal(predict(files, newx, lambda = l, type = "prob"), predict(inmem, newx, lambda = l, type = "prob"),
                 tolerance = 1e-8)
    expect_equal(unname(loo_predict(files, lambda = l, type = "prob")),
                 unname(loo_predict(inmem, lambda = l, type = "prob")), tolerance = 1e-8)
  }
})

test_that("a kernel fit without keep_eigen gives probabilities on its grid, and says how to get others", {
  s <- sine_data(50, 7)
  y <- factor(s$y > 0.3)
  fit <- rlsc_short(s$x, y, kernel = kernel_rbf(sigma = 1), lambda = c(3, 0.3, 0.03))
  one <- rlsc_short(s$x, y, kernel = kernel_rbf(sigma = 1), lambda = 0.3)
  expect_equal(predict(fit, s$x[1:5, ], lambda = 0.3, type = "prob"), predict(one, s$x[1:5, ], type = "prob"),
               tolerance = 1e-8)
  expect_equal(loo_predict(fit, lambda = 0.3, type = "prob"), loo_predict(one, type = "prob"), tolerance = 1e-8)
  msg <- "`lambda` = 0.5 is not on the grid of this kernel fit.*refit with `keep_eigen = TRUE` to use any lambda"
  expect_error(predict(fit, s$x[1:5, ], lambda = 0.5, type = "prob"), msg)
  expect_error(loo_predict(fit, lambda = 0.5, type = "prob"), msg)
})

test_that("rows of weight 0 and rows whose LOO value is undefined drop out of the map", {
  set.seed(4)
  n <- 40
  x <- matrix(rnorm(n * 3), n)
  y <- factor(ifelse(x[, 1] + rnorm(n) > 0, "b", "a"))
  base <- rlsc_short(x, y, lambda = c(10, 1))
  # rows of weight 0 with any labels and values change no probability
  xz <- rbind(x, matrix(rnorm(12, sd = 5), 4))
  yz <- factor(c(as.character(y), "a", "a", "b", "a"))
  zero <- rlsc_short(xz, yz, weights = rep(c(1, 0), c(n, 4)), lambda = c(10, 1))
  for (l in c(1, 0.2)) {
    expect_equal(predict(zero, x[1:6, ], lambda = l, type = "prob"), predict(base, x[1:6, ], lambda = l, type = "prob"),
                 tolerance = 1e-10)
    expect_equal(loo_predict(zero, lambda = l, type = "prob")[1:n, ], loo_predict(base, lambda = l, type = "prob"),
                 tolerance = 1e-10)
  }
  # a column that only row 1 has: at lambda = 0 the row is interpolated, its
  # LOO value NA: the map is that of the other rows' values
  xi <- cbind(x, c(1, rep(0, n - 1)))
  fit <- rlsc_short(xi, y, lambda = c(10, 1))
  expect_warning(loo_predict(fit, lambda = 0), "their leverage is 1")
  held <- suppressWarnings(drop(loo_predict(fit, lambda = 0)))
  expect_true(is.na(held[1L]) && !anyNA(held[-1L]))
  vals <- drop(ridge_values(xi, ref_code(y), rep(1, n), 0, rows = 2:n)[-1])
  cf <- ref_platt(vals, (y == "b")[-1], rep(1, n - 1))
  f <- predict(fit, xi[2:5, ], lambda = 0)
  expect_equal(unname(predict(fit, xi[2:5, ], lambda = 0, type = "prob")[, "b"]), unname(plogis(cf[1] + cf[2] * f)),
               tolerance = 1e-7)
  lp <- suppressWarnings(loo_predict(fit, lambda = 0, type = "prob"))
  expect_true(all(is.na(lp[1, ])) && !anyNA(lp[-1, ]))
})

test_that("the maps of lambda_min and lambda_1se are kept: predict() applies them", {
  fit <- rlsc(Species ~ ., data = iris)
  expect_identical(length(fit$calibration$at), 2L)
  expect_identical(fit$calibration$at[[1L]]$lambda, unname(fit$lambda_min))
  expect_identical(fit$calibration$at[[2L]]$lambda, unname(fit$lambda_1se))
  p <- predict(fit, iris[c(1, 51, 101), ], type = "prob")
  changed <- fit
  changed$calibration$at[[1L]]$map$a <- c(0, 5, 5)
  q <- predict(changed, iris[c(1, 51, 101), ], type = "prob")
  f <- predict(fit, iris[c(1, 51, 101), ])
  expect_equal(unname(q), ref_map_prob(changed$calibration$at[[1L]]$map, f), tolerance = 1e-12)
  expect_false(isTRUE(all.equal(p, q)))
  expect_equal(unname(rowSums(predict(fit, iris[1:3, ], type = "prob", lambda = "lambda_1se"))), rep(1, 3))
  pp <- predict(fit, iris[1:3, ], type = "prob", s = c("lambda_min", "lambda_1se"))
  expect_identical(dim(pp), c(3L, 3L, 2L))
  none <- rlsc(Species ~ ., data = iris, calibration_folds = 0)
  expect_null(none$calibration)
  expect_error(predict(none, iris[1:3, ], type = "prob"), "`calibration_folds` = 0")
  expect_error(predict(none, iris[1:3, ], type = "prob", lambda = 0.3), "`calibration_folds` = 0")
  expect_error(loo_predict(none, type = "prob"), "`calibration_folds` = 0")
  expect_error(rlsc(mpg ~ wt, data = mtcars, calibration_folds = 3),
               "`calibration_folds` needs a classification fit")
  expect_error(rlsc(Species ~ ., data = iris, calibration_folds = 1),
               "`calibration_folds` must be 0 \\(no probabilities\\) or a whole number of at least 2, not 1")
  reg <- rlsc(mpg ~ wt, data = mtcars)
  expect_error(predict(reg, mtcars, type = "prob"), "`type` = \"prob\" needs a classification fit")
  expect_error(loo_predict(reg, type = "prob"), "`type` = \"prob\" needs a classification fit")
})

test_that("probabilities of no rows, and of a grid of lambda = 0 alone", {
  # two classes: Platt's map of one column took 0 rows for 1 (cbind(0, ...))
  two <- rlsc(am ~ wt + hp, data = transform(mtcars, am = factor(am)))
  none <- expect_silent(predict(two, transform(mtcars, am = factor(am))[0, ], type = "prob"))
  expect_identical(dim(none), c(0L, 2L))
  expect_identical(colnames(none), c("0", "1"))
  three <- rlsc(Species ~ ., data = iris)
  expect_identical(dim(predict(three, iris[0, ], type = "prob")), c(0L, 3L))
  zero <- rlsc(Species ~ ., data = iris, lambda = 0)
  p <- expect_silent(predict(zero, iris[c(1, 51, 101), ], type = "prob", lambda = 2))
  expect_equal(p, predict(rlsc(Species ~ ., data = iris, lambda = 2), iris[c(1, 51, 101), ], type = "prob"),
               tolerance = 1e-8)
})

test_that("the folds of cross-fitted probabilities are dealt by class, the same for every source", {
  code <- c(2L, 1L, 2L, 3L, 1L, 1L, 2L, 3L, 2L, 1L, 1L, 2L, 3L)
  w <- c(1, 0, 2, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1)
  expect_identical(rlsc:::dealt_folds(4L, code, w), ref_dealt(4L, code, w))
  # every other row of weight 0: each fold still holds rows of positive
  # weight of every class
  wz <- rep(c(1, 0), 100)
  cz <- rep(1:2, each = 100)
  fz <- rlsc:::dealt_folds(4L, cz, wz)
  expect_true(all(table(fz[wz > 0], cz[wz > 0]) %in% 12:13))
  # rows with a structure of period K (5 conditions per subject, subject
  # after subject) do not line up with the folds
  cond <- rep(1:5, 80)
  expect_true(all(table(rlsc:::dealt_folds(5L, rep(1:2, each = 200), rep(1, 400)), cond) > 0))
  # cross-fitted LOO probabilities by those folds, whatever the seed; the
  # caller's random numbers are left alone
  x <- as.matrix(iris[c(1:40, 51:120, 131:150), 1:4])
  cls <- droplevels(iris$Species[c(1:40, 51:120, 131:150)])
  wt <- rep(c(1, 2, 0.5), length.out = 130)
  set.seed(1)
  a <- rlsc_short(x, cls, weights = wt, class_weights = c(virginica = 3))
  pa <- loo_predict(a, type = "prob")
  after <- runif(1)
  set.seed(1)
  expect_identical(runif(1), after)
  set.seed(2)
  b <- rlsc_short(x, cls, weights = wt, class_weights = c(virginica = 3))
  expect_identical(loo_predict(b, type = "prob"), pa)
  expect_null(a$foldid)   # a fit by leave-one-out reports no folds of its own
  folds <- ref_dealt(5L, as.integer(cls), wt)
  held <- ridge_values(x, ref_code(cls), wt * ifelse(cls == "virginica", 3, 1), a$lambda_min)
  for (k in 1:5) {
    out <- folds != k
    map <- rlsc:::fit_map(list(f = held[out, ], code = as.integer(cls)[out], w = wt[out]), 3L)
    expect_equal(unname(pa[!out, ]), ref_map_prob(map, held[!out, ]), tolerance = 1e-6, info = k)
  }
  # a chunk source of the same rows: the same folds, the same probabilities;
  # a fit by cv = K deals them too (its folds are the criterion's)
  for (cv in list("loo", 4)) {
    # (the chunks' rows in their order: the folds are dealt by the rows' places)
    order <- unlist(split(1:130, rep(1:3, length.out = 130)))
    fid <- rep(1:4, length.out = 130)
    mem <- rlsc_short(x[order, ], cls[order], weights = wt[order], lambda = c(1, 0.1), cv = cv,
                      foldid = if (cv == 4) fid[order])
    src <- chunk_source(split(1:130, rep(1:3, length.out = 130)), function(i) {
      list(x = x[i, ], y = cls[i], weights = wt[i], foldid = if (cv == 4) fid[i])
    })
    chunked <- rlsc_short(src, lambda = c(1, 0.1), cv = cv)
    expect_equal(unname(loo_predict(chunked, type = "prob")), unname(loo_predict(mem, type = "prob")),
                 tolerance = 1e-8)
  }
})

test_that("a chunked fit of classes reads its chunks once for the calibration", {
  x <- as.matrix(iris[, 1:4])
  reads <- 0L
  src <- function() {
    chunk_source(split(1:150, rep(1:3, each = 50)), function(i) {
      reads <<- reads + 1L
      list(x = x[i, ], y = iris$Species[i])
    })
  }
  reads <- 0L
  plain <- rlsc_short(src(), lambda = c(1, 0.1), calibration_folds = 0)
  without <- reads
  reads <- 0L
  calibrated <- rlsc_short(src(), lambda = c(1, 0.1))
  # the LOO values of lambda_min and lambda_1se in one pass
  expect_identical(reads - without, 3L)
  expect_identical(calibrated$path, plain$path)
  reads <- 0L
  p <- predict(calibrated, x[1:3, ], lambda = c(0.5, 0.05, 0.3), type = "prob")
  expect_identical(reads, 3L)   # three maps fitted from one pass
  expect_equal(unname(apply(p, c(1, 3), sum)), matrix(1, 3, 3))
})

test_that("per_response multiclass fits give probabilities at each column's lambda", {
  fit <- rlsc_short(iris[, 1:4], iris$Species, per_response = TRUE)
  p <- predict(fit, iris[c(1, 51, 101), 1:4], type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 3))
  f <- predict(fit, iris[c(1, 51, 101), 1:4])
  map <- fit$calibration$at[[1L]]$map
  expect_equal(unname(p), ref_map_prob(map, f), tolerance = 1e-12)
  lp <- loo_predict(fit, type = "prob")
  expect_identical(dim(lp), c(150L, 3L))
  expect_equal(unname(rowSums(lp)), rep(1, 150))
  # the values of each column at its own lambda
  x <- as.matrix(iris[, 1:4])
  held <- sapply(1:3, function(t) ridge_values(x, ref_code(iris$Species), rep(1, 150), fit$lambda_min[t])[, t])
  t <- matrix((1 - 51 / 52) / 2, 150, 3)
  t[cbind(1:150, as.integer(iris$Species))] <- 51 / 52
  r <- (ref_map_prob(map, held) - t) / 150
  expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-7)
  expect_equal(unname(colSums(r * held)[map$b > 0]), rep(0, sum(map$b > 0)), tolerance = 1e-7)
  # other lambdas, one per column: the fit's values there
  other <- stats::setNames(c(0.5, 2, 7), names(fit$lambda_min))   # (named: one per column)
  q <- predict(fit, iris[c(1, 51, 101), 1:4], lambda = other, type = "prob")
  held2 <- sapply(1:3, function(t) ridge_values(x, ref_code(iris$Species), rep(1, 150), other[[t]])[, t])
  map2 <- rlsc:::fit_map(list(f = held2, code = as.integer(iris$Species), w = rep(1, 150)), 3L)
  expect_equal(unname(q), ref_map_prob(map2, predict(fit, iris[c(1, 51, 101), 1:4], lambda = other)),
               tolerance = 1e-7)
})

test_that("the map's column centres and spreads (C) are the weighted mean and sd of rows of positive weight", {
  c_column_spreads <- rlsc:::c_column_spreads
  set.seed(43)
  n <- 700
  f <- matrix(rnorm(n * 3, 5, 2), n)
  w <- runif(n) * (runif(n) > 0.2)
  f[which(w == 0)[1:4], 2] <- NA   # not read
  out <- c_column_spreads(f, w)
  pos <- w > 0
  m <- colSums(w[pos] * f[pos, ]) / sum(w)
  expect_equal(out$mean, m, tolerance = 1e-13)
  expect_equal(out$sd, sqrt(colSums(w[pos] * (f[pos, ] - rep(m, each = sum(pos)))^2) / sum(w)),
               tolerance = 1e-13)
  # values whose squares overflow or underflow: scaled by the largest deviation first
  for (size in c(1e200, 1e-200)) {
    big <- c_column_spreads(f[, 1, drop = FALSE] * size, w)
    expect_equal(big$sd / size, out$sd[1L], tolerance = 1e-13)
    expect_equal(big$mean / size, out$mean[1L], tolerance = 1e-13)
  }
  expect_identical(c_column_spreads(matrix(3, 5, 1), rep(1, 5)), list(mean = 3, sd = 0))
  expect_identical(c_column_spreads(matrix(3, 5, 1), numeric(5)), list(mean = 0, sd = 0))
  expect_true(is.nan(c_column_spreads(matrix(c(1, NaN), 2, 1), c(1, 1))$sd))
})

test_that("the calibration map's loss, gradient and Hessian (C) match their definitions", {
  # (the C centres and scales the raw values row by row, and reads no row of
  # weight 0)
  set.seed(41)
  n <- 1300   # three blocks of rows (512 each), summed in order
  for (k in c(2L, 4L)) {
    slopes <- if (k == 2L) 2L else seq_len(k)
    fs <- matrix(rnorm(n * length(slopes)), n)
    code <- sample.int(k, n, TRUE)
    w <- runif(n) * (runif(n) > 0.1)
    w <- w / sum(w)
    own <- (tabulate(code, k) + 1) / (tabulate(code, k) + 2)
    na <- k - 1L
    theta <- c(rnorm(na), abs(rnorm(length(slopes))))
    loss <- function(theta) {   # the cross-entropy against Platt's targets, from its definition
      eta <- matrix(c(0, theta[seq_len(na)]), n, k, byrow = TRUE)
      eta[, slopes] <- eta[, slopes] + fs * rep(theta[-seq_len(na)], each = n)
      logp <- eta - log(rowSums(exp(eta)))
      target <- matrix((1 - own[code]) / (k - 1), n, k)
      target[cbind(seq_len(n), code)] <- own[code]
      -sum(w * target * logp)
    }
    centre <- rnorm(length(slopes))
    inv <- runif(length(slopes), 0.5, 2)
    if (k > 2L) inv[2L] <- 0   # a flat column: its values taken as 0
    raw <- fs / rep(ifelse(inv == 0, 1, inv), each = n) + rep(centre, each = n)
    fs[, inv == 0] <- 0
    raw[which(w == 0)[1:3], ] <- NA   # rows of weight 0 are not read
    map <- function(theta, hessian = FALSE) {
      c_softmax_map(raw, code, own, w, theta, as.integer(slopes), centre, inv, hessian)
    }
    out <- map(theta, TRUE)
    expect_equal(out$value, loss(theta), tolerance = 1e-12)
    h <- 1e-5
    num_grad <- vapply(seq_along(theta), function(j) {
      e <- replace(numeric(length(theta)), j, h)
      (loss(theta + e) - loss(theta - e)) / (2 * h)
    }, 1)
    expect_equal(out$grad, num_grad, tolerance = 1e-7)
    num_hess <- vapply(seq_along(theta), function(j) {
      e <- replace(numeric(length(theta)), j, h)
      (map(theta + e)$grad - map(theta - e)$grad) / (2 * h)
    }, numeric(length(theta)))
    expect_equal(out$hess, num_hess, tolerance = 1e-7)
    expect_equal(out$hess, t(out$hess))
    expect_null(map(theta)$hess)
  }
})
