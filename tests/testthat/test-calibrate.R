# Class probabilities: a monotone map fitted on exact K-fold held-out decision
# values, against brute-force refits on the training folds and independent
# fits of the map.

# Held-out decision values of every row: refits on the other folds (n x T).
ref_heldout <- function(x, code, w, folds, lambda, intercept = TRUE) {
  out <- matrix(NA_real_, nrow(x), ncol(code))
  for (k in unique(folds)) {
    held <- folds == k
    cf <- ref_coef(x[!held, , drop = FALSE], code[!held, , drop = FALSE], w[!held], lambda, intercept)
    out[held, ] <- ref_predict(cf, x[held, , drop = FALSE], intercept)
  }
  out
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

test_that("binary probabilities: Platt's map of exact K-fold held-out values, cross-fitted LOO", {
  df <- transform(mtcars, am = factor(am, labels = c("auto", "manual")))
  x <- as.matrix(df[, c("wt", "hp", "qsec")])
  w <- runif(32, 0.5, 2)
  for (icpt in c(TRUE, FALSE)) {
    fit <- rlsc_short(x, df$am, weights = w, lambda = c(100, 10, 1), intercept = icpt)
    folds <- fit$calibration$foldid
    expect_identical(fit$calibration$K, 5L)
    expect_true(all(table(folds, df$am) %in% 2:4))   # stratified by class
    pos <- df$am == "manual"
    l <- fit$lambda_min
    held <- drop(ref_heldout(x, ref_code(df$am), w, folds, l, icpt))
    target <- platt_targets(pos)
    ref <- suppressWarnings(glm(target ~ held, weights = w, family = quasibinomial()))
    expect_gt(coef(ref)[2], 0)
    newx <- x[c(3, 9, 20), ] + 0.3
    p <- predict(fit, newx, type = "prob")
    expect_identical(colnames(p), c("auto", "manual"))
    expect_equal(unname(rowSums(p)), rep(1, 3))
    f <- drop(ref_predict(ref_coef(x, ref_code(df$am), w, l, icpt), newx, icpt))
    expect_equal(unname(p[, "manual"]), unname(plogis(coef(ref)[1] + coef(ref)[2] * f)),
                 tolerance = 1e-6, info = icpt)
    # loo_predict: each row's exact LOO value through the map fitted without its fold
    loo <- drop(ref_loo(x, ref_code(df$am), w, l, icpt))
    lp <- loo_predict(fit, type = "prob")
    for (k in 1:5) {
      out <- folds != k
      tk <- platt_targets(pos[out])
      refk <- suppressWarnings(glm(tk ~ held[out], weights = w[out], family = quasibinomial()))
      cf <- coef(refk)
      cf[2] <- max(cf[2], 0)   # the slope is constrained to be >= 0
      expect_equal(unname(lp[folds == k, "manual"]), unname(plogis(cf[1] + cf[2] * loo[folds == k])),
                   tolerance = 1e-5, info = paste(icpt, k))
    }
  }
})

test_that("multiclass probabilities: the monotone multinomial map, primal and dual", {
  set.seed(41)
  centers <- rbind(c(0, 3), c(-3, -2), c(3, -2))
  code <- rep(1:3, c(20, 15, 25))
  cls <- factor(c("a", "b", "c")[code])
  x <- centers[code, ] + matrix(rnorm(120, sd = 1.6), 60)
  for (wide in c(FALSE, TRUE)) {
    xx <- if (wide) cbind(x, matrix(rnorm(60 * 70, sd = 0.05), 60)) else x
    fit <- rlsc_short(xx, cls, lambda = c(50, 5, 0.5))
    expect_identical(fit$form, if (wide) "dual" else "primal")
    folds <- fit$calibration$foldid
    held <- ref_heldout(xx, ref_code(cls), rep(1, 60), folds, fit$lambda_min)
    ref <- ref_multinomial_map(held, code, rep(1, 60))
    expect_true(all(ref$b > 0))   # the constraint is not active: the free optimum is the answer
    newx <- xx[c(1, 30, 59), ] * 1.1
    f <- ref_predict(ref_coef(xx, ref_code(cls), lambda = fit$lambda_min), newx)
    expect_equal(unname(predict(fit, newx, type = "prob")), ref_map_prob(ref, f), tolerance = 1e-6,
                 info = wide)
  }
  # iris: the versicolor column does not rank versicolor: its slope sits at 0
  # and the map satisfies the conditions of the constrained optimum there
  ir <- rlsc(Species ~ ., data = iris)
  map <- ir$calibration$at[[1L]]$full
  expect_equal(map$b[2], 0)
  expect_true(all(map$b[-2] > 0))
  heldi <- ref_heldout(as.matrix(iris[, 1:4]), ref_code(iris$Species), rep(1, 150),
                       ir$calibration$foldid, ir$lambda_min)
  counts <- rep(50, 3)
  t <- matrix((1 - 51 / 52) / 2, 150, 3)
  t[cbind(1:150, as.integer(iris$Species))] <- 51 / 52
  r <- (ref_map_prob(map, heldi) - t) / 150
  expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-5)     # intercepts
  slope_grad <- colSums(r * heldi)
  expect_equal(slope_grad[-2], c(0, 0), tolerance = 1e-5)             # free slopes
  expect_gt(slope_grad[2], 0)                                          # the bound holds
})

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
  logloss <- function(p, truth) -mean(log(ifelse(truth == "b", p, 1 - p)))
  lp <- loo_predict(fit, type = "prob")[, "b"]
  expect_lt(max(abs(lp - share)), 0.05)
  majority <- max(share, 1 - share)
  expect_lte(mean((lp > 0.5) == (y == "b")), majority + 0.02)   # was 100%: the labels leaked
  pt <- predict(fit, xt, type = "prob")[, "b"]
  expect_lt(abs(mean(pt) - share), 0.03)
  expect_lte(logloss(pt, yt), logloss(rep(share, 2000), yt) + 1e-3)
  # at a small lambda, where LOO values anti-correlate with their own labels
  small <- suppressWarnings(rlsc(x, y, lambda = c(1e-2, 1e-3)))
  lps <- loo_predict(small, type = "prob", lambda = small$lambda_min)[, "b"]
  expect_lte(mean((lps > 0.5) == (y == "b")), majority + 0.02)
  expect_lt(max(abs(predict(small, xt, type = "prob")[, "b"] - share)), 0.05)
  # three classes
  y3 <- factor(sample(c("a", "b", "c"), n, TRUE, prob = c(0.2, 0.3, 0.5)))
  f3 <- suppressWarnings(rlsc(x, y3))
  p3 <- predict(f3, xt, type = "prob")
  expect_lt(max(abs(colMeans(p3) - as.vector(table(y3)) / n)), 0.03)
})

test_that("the map is stored at fit time: predict() applies it, at lambda_min and lambda_1se only", {
  fit <- rlsc(Species ~ ., data = iris)
  p <- predict(fit, iris[c(1, 51, 101), ], type = "prob")
  changed <- fit
  changed$calibration$at[[1L]]$full$a <- c(0, 5, 5)
  q <- predict(changed, iris[c(1, 51, 101), ], type = "prob")
  f <- predict(fit, iris[c(1, 51, 101), ])
  map <- changed$calibration$at[[1L]]$full
  expect_equal(unname(q), ref_map_prob(map, f), tolerance = 1e-12)
  expect_false(isTRUE(all.equal(p, q)))
  expect_equal(unname(rowSums(predict(fit, iris[1:3, ], type = "prob", lambda = "lambda_1se"))), rep(1, 3))
  # other lambdas: maps fitted at 11 values along the grid, interpolated in log(lambda)
  path <- fit$calibration$path
  expect_length(path$maps, 11L)
  expect_true(all(path$lambda %in% fit$lambda))
  # a path map is the map a fit at that one lambda calibrates, on the same
  # folds (to the Newton fits' tolerance: each starts elsewhere)
  set.seed(3)
  fit <- rlsc(Species ~ ., data = iris)
  path <- fit$calibration$path
  set.seed(3)
  one <- rlsc(Species ~ ., data = iris, lambda = path$lambda[4])
  expect_identical(one$calibration$foldid, fit$calibration$foldid)
  expect_equal(one$calibration$at[[1L]]$full, path$maps[[4]], tolerance = 1e-6)
  at <- path$lambda[4]
  f4 <- predict(fit, iris[c(1, 51, 101), ], lambda = at)
  expect_equal(unname(predict(fit, iris[c(1, 51, 101), ], type = "prob", lambda = at)),
               ref_map_prob(path$maps[[4]], f4), tolerance = 1e-12)
  mid <- sqrt(path$lambda[4] * path$lambda[5])
  half <- list(a = (path$maps[[4]]$a + path$maps[[5]]$a) / 2, b = (path$maps[[4]]$b + path$maps[[5]]$b) / 2)
  fm <- predict(fit, iris[c(1, 51, 101), ], lambda = mid)
  expect_equal(unname(predict(fit, iris[c(1, 51, 101), ], type = "prob", lambda = mid)),
               ref_map_prob(half, fm), tolerance = 1e-12)
  big <- max(fit$lambda) * 10   # beyond the grid: the end's map
  expect_equal(unname(predict(fit, iris[1:3, ], type = "prob", lambda = big)),
               ref_map_prob(path$maps[[1]], predict(fit, iris[1:3, ], lambda = big)), tolerance = 1e-12)
  # cross-fitted LOO probabilities need the held-out values kept at lambda_min and lambda_1se
  expect_error(loo_predict(fit, lambda = 123.4, type = "prob"),
               paste0("cross-fitted leave-one-out probabilities are calibrated at `lambda_min` and ",
                      "`lambda_1se`, not at `lambda` = 123.4"))
  pp <- predict(fit, iris[1:3, ], type = "prob", s = c("lambda_min", "lambda_1se"))
  expect_identical(dim(pp), c(3L, 3L, 2L))
  none <- rlsc(Species ~ ., data = iris, calibration_folds = 0)
  expect_null(none$calibration)
  expect_error(predict(none, iris[1:3, ], type = "prob"), "`calibration_folds` = 0")
  expect_error(rlsc(mpg ~ wt, data = mtcars, calibration_folds = 3),
               "`calibration_folds` needs a classification fit")
  expect_error(rlsc(Species ~ ., data = iris, calibration_folds = 1),
               "`calibration_folds` must be 0 \\(no probabilities\\) or a whole number of at least 2, not 1")
  fit <- rlsc(mpg ~ wt, data = mtcars)
  expect_error(predict(fit, mtcars, type = "prob"), "`type` = \"prob\" needs a classification fit")
  expect_error(loo_predict(fit, type = "prob"), "`type` = \"prob\" needs a classification fit")
})

test_that("probabilities of no rows, and of a grid of lambda = 0 alone", {
  # two classes: Platt's map of one column took 0 rows for 1 (cbind(0, ...))
  two <- rlsc(am ~ wt + hp, data = transform(mtcars, am = factor(am)))
  none <- expect_silent(predict(two, transform(mtcars, am = factor(am))[0, ], type = "prob"))
  expect_identical(dim(none), c(0L, 2L))
  expect_identical(colnames(none), c("0", "1"))
  three <- rlsc(Species ~ ., data = iris)
  expect_identical(dim(predict(three, iris[0, ], type = "prob")), c(0L, 3L))
  # a grid of lambda = 0 alone has one map, which serves every lambda
  # (the interpolation took the smallest positive lambda of none: a warning)
  zero <- rlsc(Species ~ ., data = iris, lambda = 0)
  expect_length(zero$calibration$path$maps, 1L)
  p <- expect_silent(predict(zero, iris[c(1, 51, 101), ], type = "prob", lambda = 2))
  expect_equal(unname(p), ref_map_prob(zero$calibration$path$maps[[1L]],
                                       predict(zero, iris[c(1, 51, 101), ], lambda = 2)), tolerance = 1e-12)
})

test_that("the calibration's folds are dealt, not drawn: a fit's numbers are the same at every call", {
  # within each class its rows of positive weight, then its others, in an
  # order shuffled by a fixed seed, take the folds in turn, continuing from
  # class to class (a reference built row by row)
  code <- c(2L, 1L, 2L, 3L, 1L, 1L, 2L, 3L, 2L, 1L, 1L, 2L, 3L)
  w <- c(1, 0, 2, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1)
  old <- RNGkind()
  set.seed(20261128L, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  key <- runif(length(code))
  RNGkind(old[1L], old[2L], old[3L])
  ref <- integer(length(code))
  k <- 0L
  for (cl in 1:3) {
    for (pos in c(TRUE, FALSE)) {
      rows <- which(code == cl & (w > 0) == pos)
      for (i in rows[order(key[rows])]) {
        ref[i] <- k %% 4L + 1L
        k <- k + 1L
      }
    }
  }
  expect_identical(rlsc:::dealt_folds(4L, code, w), ref)
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
  # a primal fit by LOO merges the whole data's moments from its calibration
  # folds': folds from the caller's random numbers would move its path's
  # last bits from call to call; and the caller's stream is left alone
  x <- as.matrix(iris[c(1:40, 51:120, 131:150), 1:4])
  cls <- droplevels(iris$Species[c(1:40, 51:120, 131:150)])
  set.seed(1)
  a <- rlsc_short(x, cls)
  after <- runif(1)
  set.seed(1)
  expect_identical(runif(1), after)
  set.seed(2)
  b <- rlsc_short(x, cls)
  expect_identical(a$path, b$path)
  expect_identical(a$calibration, b$calibration)
  expect_identical(a$calibration$foldid, rlsc:::dealt_folds(5L, as.integer(cls), rep(1, 130)))
  expect_true(all(table(a$calibration$foldid, cls) == rep(c(8L, 10L, 8L), each = 5)))
  # a fit by leave-one-out reports no folds of its own
  expect_null(a$foldid)
  expect_identical(a$cv, "loo")
  # the path is that of the whole data's moments, as without a calibration
  none <- rlsc_short(x, cls, calibration_folds = 0)
  expect_equal(a$path, none$path, tolerance = 1e-12)
  expect_equal(coef(a), coef(none), tolerance = 1e-12)
  # class weights count as pass 1 counts the rows: 4 rows of positive
  # weight, so 4 folds, their moments kept from pass 1
  x6 <- x[c(1:4, 41:44, 111:114), ]
  c6 <- droplevels(cls[c(1:4, 41:44, 111:114)])
  w6 <- c(1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0)
  f6 <- suppressWarnings(rlsc(x6, c6, weights = w6, lambda = 1,
                              class_weights = c(setosa = 0, versicolor = 1, virginica = 1)))
  expect_identical(f6$calibration$K, 4L)
  expect_identical(f6$calibration$foldid,
                   rlsc:::dealt_folds(4L, as.integer(c6), w6 * c(0, 1, 1)[as.integer(c6)]))
})

test_that("a chunked LOO fit of classes reads its chunks once for the calibration", {
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
  # the held-out values' pass; the folds' moments come from pass 1
  expect_identical(reads - without, 3L)
  expect_identical(calibrated$calibration$K, 5L)
  expect_equal(calibrated$path, plain$path, tolerance = 1e-12)
  # chunks holding fewer rows of positive weight than `calibration_folds`:
  # the calibration makes its own pass with fewer folds
  few <- chunk_source(list(1:3, c(51:52, 101)), function(i) list(x = x[i, ], y = iris$Species[i]))
  small <- suppressWarnings(rlsc(few, lambda = c(1, 0.1), calibration_folds = 10))
  expect_identical(small$calibration$K, 6L)
  expect_equal(unname(rowSums(predict(small, x[1:2, ], type = "prob"))), c(1, 1))
})

test_that("K-fold fits calibrate on their own folds; chunks equal memory; kernels and weights", {
  x <- as.matrix(iris[, 1:4])
  folds <- rep(1:4, length.out = 150)
  w <- runif(150, 0.5, 2)
  fit <- rlsc_short(x, iris$Species, weights = w, foldid = folds, lambda = c(1, 0.1),
                    class_weights = c(setosa = 2))
  expect_identical(fit$calibration$foldid, folds)
  held <- ref_heldout(x, ref_code(iris$Species), w * ifelse(iris$Species == "setosa", 2, 1), folds,
                      fit$lambda_min)
  # the map weighs the observation weights, not the class weights
  map <- fit$calibration$at[[1L]]$full
  code <- as.integer(iris$Species)
  t <- matrix((1 - 51 / 52) / 2, 150, 3)
  t[cbind(1:150, code)] <- 51 / 52
  r <- w * (ref_map_prob(map, held) - t)
  free <- map$b > 0
  expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-5)
  expect_equal(unname(colSums(r * held)[free]), rep(0, sum(free)), tolerance = 1e-5)
  # a chunk source reading the same folds: the same probabilities
  src <- chunk_source(split(1:150, rep(1:3, 50)), function(i) {
    list(x = x[i, ], y = iris$Species[i], weights = w[i], foldid = folds[i])
  })
  chunked <- rlsc_short(src, cv = 4, lambda = c(1, 0.1), class_weights = c(setosa = 2))
  newx <- x[c(2, 60, 140), ]
  expect_equal(predict(chunked, newx, type = "prob"), predict(fit, newx, type = "prob"), tolerance = 1e-8)
  # a chunked LOO fit: the chunks' own folds, its LOO probabilities cross-fitted
  src2 <- chunk_matrix(x, iris$Species, chunk_rows = 50)
  loo_chunks <- rlsc_short(src2, lambda = c(1, 0.1))
  expect_null(loo_chunks$calibration$foldid)
  expect_equal(unname(rowSums(loo_predict(loo_chunks, type = "prob"))), rep(1, 150))
  inmem <- rlsc_short(x, iris$Species, foldid = rep(1:5, 30), lambda = c(1, 0.1))
  chunk_rule <- rlsc_short(chunk_matrix(x, iris$Species, chunk_rows = 150), cv = 5, lambda = c(1, 0.1))
  expect_equal(predict(chunk_rule, newx, type = "prob"), predict(inmem, newx, type = "prob"),
               tolerance = 1e-8)
  # a kernel fit: dual engines per fold, against the bordered system on the training folds
  s <- sine_data(40, 51)
  yb <- factor(s$y > 0.5)
  kf <- rlsc_short(s$x, yb, kernel = kernel_rbf(1), lambda = c(1, 0.1, 0.01))
  k <- ref_rbf(s$x, sigma = 1)
  kfolds <- kf$calibration$foldid
  heldk <- numeric(40)
  for (j in 1:5) {
    tr <- kfolds != j
    sol <- ref_bordered(k[tr, tr], ref_code(yb)[tr, ], lambda = kf$lambda_min)
    heldk[!tr] <- ref_kernel_predict(sol, k[!tr, tr, drop = FALSE])
  }
  pos <- yb == "TRUE"
  ref <- suppressWarnings(glm(platt_targets(pos) ~ heldk, family = quasibinomial()))
  expect_gt(coef(ref)[2], 0)
  fk <- predict(kf, s$x[1:4, ])
  expect_equal(unname(predict(kf, s$x[1:4, ], type = "prob")[, "TRUE"]),
               unname(plogis(coef(ref)[1] + coef(ref)[2] * fk)), tolerance = 1e-6)
})

test_that("per_response multiclass fits give probabilities at each column's lambda", {
  fit <- rlsc_short(iris[, 1:4], iris$Species, per_response = TRUE)
  p <- predict(fit, iris[c(1, 51, 101), 1:4], type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 3))
  f <- predict(fit, iris[c(1, 51, 101), 1:4])
  expect_equal(unname(p), ref_map_prob(fit$calibration$at[[1L]]$full, f), tolerance = 1e-12)
  lp <- loo_predict(fit, type = "prob")
  expect_identical(dim(lp), c(150L, 3L))
  expect_equal(unname(rowSums(lp)), rep(1, 150))
  # the held-out values of each column at its own lambda
  folds <- fit$calibration$foldid
  x <- as.matrix(iris[, 1:4])
  held <- sapply(1:3, function(t) ref_heldout(x, ref_code(iris$Species), rep(1, 150), folds,
                                              fit$lambda_min[t])[, t])
  map <- fit$calibration$at[[1L]]$full
  t <- matrix((1 - 51 / 52) / 2, 150, 3)
  t[cbind(1:150, as.integer(iris$Species))] <- 51 / 52
  r <- (ref_map_prob(map, held) - t) / 150
  expect_equal(unname(colSums(r)[-1]), c(0, 0), tolerance = 1e-5)
  expect_equal(unname(colSums(r * held)[map$b > 0]), rep(0, sum(map$b > 0)), tolerance = 1e-5)
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
