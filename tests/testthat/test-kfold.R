# Exact K-fold cross-validation against refits on the training folds.

test_that("primal K-fold equals refits on the training folds, with weights and unequal folds", {
  d <- make_data(45, 4, ntarget = 2, seed = 301)
  w <- runif(45, 0.3, 2)
  folds <- c(rep(1:4, length.out = 44), 5)   # unequal sizes, fold 5 of one row
  lambda <- c(30, 3, 0.3)
  for (icpt in c(TRUE, FALSE)) {
    fit <- rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lambda, intercept = icpt)
    expect_identical(fit$cv, 5L)
    ref <- ref_kfold(d$y, w, folds, lambda, function(train, held, l) {
      ref_predict(ref_coef(d$x[train, ], d$y[train, ], w[train], l, icpt), d$x[held, , drop = FALSE], icpt)
    })
    expect_equal(fit$cvm, ref$cvm, tolerance = 1e-8)
    expect_equal(fit$cvsd, ref$cvsd, tolerance = 1e-8)
    expect_identical(fit$lambda_min, lambda[which.min(ref$cvm)])
    # the model itself is the full-data fit
    ref_cf <- ref_coef(d$x, d$y, w, 3, icpt)
    if (!icpt) ref_cf <- rbind(0, ref_cf)
    expect_equal(unname(coef(fit, 3)), unname(ref_cf), tolerance = 1e-9)
  }
})

test_that("K-fold and LOO with many response columns equal refits, whatever the threads", {
  # many columns against few held-out rows: src/path.c puts the filters on
  # the rows' coordinates (blocks of no more rows than columns) or on g
  # (more rows), and cuts the columns into blocks for the threads
  d <- make_data(150, 6, ntarget = 90, seed = 302)
  w <- runif(150, 0.3, 2)
  folds <- rep(1:5, length.out = 150)
  lambda <- c(30, 3, 0.3)
  with_threads <- function(n, code) {
    old <- options(rlsc.threads = n)
    on.exit(options(old))
    code
  }
  fits <- lapply(1:2, function(th) with_threads(th, list(
    kfold = rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lambda),
    loo = rlsc_short(d$x, d$y, weights = w, lambda = lambda))))
  expect_identical(fits[[2]]$kfold$path, fits[[1]]$kfold$path)
  expect_identical(fits[[2]]$loo$path, fits[[1]]$loo$path)
  ref <- ref_kfold(d$y, w, folds, lambda, function(train, held, l) {
    ref_predict(ref_coef(d$x[train, ], d$y[train, ], w[train], l, TRUE), d$x[held, , drop = FALSE], TRUE)
  })
  expect_equal(fits[[1]]$kfold$cvm, ref$cvm, tolerance = 1e-8)
  expect_equal(fits[[1]]$kfold$cvsd, ref$cvsd, tolerance = 1e-8)
  loo <- ref_kfold(d$y, w, seq_len(150), lambda, function(train, held, l) {
    ref_predict(ref_coef(d$x[train, ], d$y[train, ], w[train], l, TRUE), d$x[held, , drop = FALSE], TRUE)
  })
  expect_equal(fits[[1]]$loo$cvm, loo$cvm, tolerance = 1e-8)
})

test_that("held-out rows as x (V G) or (x V) G, whichever is cheaper, give the refits' K-fold", {
  # R/path.R, heldout_products(): 100 held-out rows against 3 lambdas x 2
  # columns form x (V G); against 60 lambdas, the rows' projections (x V) G
  d <- make_data(300, 5, ntarget = 2, seed = 311)
  w <- runif(300, 0.3, 2)
  folds <- rep(1:3, 100)
  pf <- c(0, 1, 1, 2, 1)   # an unpenalized column: the engine's v maps to [-A V; V]
  # sparse x standardized: the penalty on columns at the full data's scales
  m <- colSums(w * d$x) / sum(w)
  scale2 <- colSums(w * sweep(d$x, 2, m)^2) / sum(w)
  grids <- list(c(10, 1, 0.1), 10^seq(2, -2, length.out = 60))
  has_matrix <- requireNamespace("Matrix", quietly = TRUE)   # suggested: for sparse x
  for (lambda in grids) for (sparse in c(FALSE, if (has_matrix) TRUE)) {
    x <- if (sparse) Matrix::Matrix(d$x, sparse = TRUE) else d$x
    fit <- rlsc_short(x, d$y, weights = w, foldid = folds, lambda = lambda, penalty_factor = pf,
                      standardize = sparse)
    p <- if (sparse) pf * scale2 else pf
    ref <- ref_kfold(d$y, w, folds, lambda, function(train, held, l) {
      ref_predict(ref_coef_pf(d$x[train, ], d$y[train, ], w[train], l, p), d$x[held, , drop = FALSE])
    })
    expect_equal(fit$cvm, ref$cvm, tolerance = 1e-8)
    expect_equal(fit$cvsd, ref$cvsd, tolerance = 1e-8)
  }
  skip_if_not(has_matrix, "Matrix (suggested) is not installed: sparse x did not run")
})

test_that("src/path.c reads held-out rows' formed products at every offset of its pieces", {
  # 300 rows, 40 columns and 200 lambdas cut into 5 blocks of rows, 2 of
  # columns and 2 chunks of lambdas: the path on formed products (no basis)
  # against the path's own products, and the fitted values against
  # mean(y) + B G phi formed here (direct form, held-out rows: 1 - h = 1).
  # (Internal on purpose: the C routine against a reference formed here,
  # through its one adapter in R/native.R.)
  set.seed(312)
  n <- 300
  nt <- 40
  lambda <- 10^seq(1, -2, length.out = 200)
  b <- matrix(rnorm(n * 3), n)
  values <- c(5, 2, 0.5)
  g <- matrix(rnorm(3 * nt), 3)
  y <- matrix(rnorm(n * nt), n)
  w <- runif(n)
  prod <- array(0, c(n, nt, length(lambda)))
  for (l in seq_along(lambda)) prod[, , l] <- b %*% (g / (values + lambda[l]))
  run <- function(basis, v, gg, products, values_only = FALSE) {
    loo_path(basis, v, gg, rep(1, n), NULL, y, w, numeric(n), seq_len(n), lambda, FALSE, FALSE,
             TRUE, NULL, 1, yorigin = rbind(0, colMeans(y)), columns = !values_only, products = products,
             values_only = values_only)
  }
  own <- run(b, values, g, NULL)
  formed <- run(matrix(0, n, 0), numeric(0), g[0, , drop = FALSE], prod)
  # the values alone (K-fold criteria of the values): the same LOO values,
  # y - (r0 - B G phi) with 1 - h = 1, bit for bit, and nothing else
  for (basis_given in c(TRUE, FALSE)) {
    alone <- if (basis_given) run(b, values, g, NULL, TRUE) else {
      run(matrix(0, n, 0), numeric(0), g[0, , drop = FALSE], prod, TRUE)
    }
    expect_identical(alone$loo, if (basis_given) own$loo else formed$loo)
    expect_null(alone$fitted)
    expect_null(alone$omh)
  }
  expect_equal(formed$loo, formed$fitted, tolerance = 1e-12)   # (no leverage: LOO = fitted)
  expect_equal(formed$fitted, own$fitted, tolerance = 1e-12)
  expect_equal(formed$mean, own$mean, tolerance = 1e-12)
  expect_equal(formed$fitted, prod + rep(colMeans(y), each = n), tolerance = 1e-12)
  expect_error(run(matrix(0, n, 0), numeric(0), g[0, , drop = FALSE], prod[, , -1]), "'products' must be")
  expect_error(run(b, values, g, prod), "'products' needs a 'basis' of no columns")
})

test_that("dual and kernel K-fold equal refits of the training folds", {
  d <- make_data(24, 40, seed = 302)
  w <- runif(24, 0.5, 1.5)
  folds <- rep(1:4, 6)
  lambda <- c(50, 5, 0.5)
  fit <- rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lambda)
  expect_identical(fit$form, "dual")
  ref <- ref_kfold(d$y, w, folds, lambda, function(train, held, l) {
    ref_predict(ref_coef(d$x[train, ], d$y[train], w[train], l), d$x[held, , drop = FALSE])
  })
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-8)
  s <- sine_data(30, 303)
  k <- ref_rbf(s$x, sigma = 0.8)
  kf <- rlsc_short(s$x, s$y, kernel = kernel_rbf(0.8), foldid = rep(1:3, 10), lambda = c(1, 0.1, 0.01))
  refk <- ref_kfold(s$y, rep(1, 30), rep(1:3, 10), kf$lambda, function(train, held, l) {
    sol <- ref_bordered(k[train, train], s$y[train], lambda = l)
    ref_kernel_predict(sol, k[held, train, drop = FALSE])
  })
  expect_equal(kf$cvm, refk$cvm, tolerance = 1e-8)
  expect_equal(kf$cvsd, refk$cvsd, tolerance = 1e-8)
})

test_that("K-fold classification: misclassification per fold, multiclass", {
  x <- as.matrix(iris[, 1:4])
  folds <- rep(1:5, 30)
  lambda <- c(10, 1, 0.1)
  fit <- rlsc_short(x, iris$Species, foldid = folds, lambda = lambda)
  expect_identical(fit$criterion, "misclass")
  code <- ref_code(iris$Species)
  pred <- function(train, held, l) ref_predict(ref_coef(x[train, ], code[train, ], lambda = l), x[held, , drop = FALSE])
  ref <- ref_kfold(code, rep(1, 150), folds, lambda, pred, loss = function(y, p) {
    as.numeric(max.col(p, "first") != max.col(y, "first"))
  })
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-12)
  expect_equal(fit$path$mse, ref_kfold(code, rep(1, 150), folds, lambda, pred)$cvm, tolerance = 1e-8)
})

test_that("cv = K draws folds reproducibly under set.seed(); chunked K-fold equals in memory", {
  d <- make_data(50, 3, seed = 304)
  set.seed(9)
  a <- rlsc_short(d$x, d$y, cv = 5)
  set.seed(9)
  b <- rlsc_short(d$x, d$y, cv = 5)
  expect_identical(a$path, b$path)
  expect_identical(sort(tabulate(a$foldid)), rep(10L, 5))
  # chunks: the rows of each chunk take the folds in turn, or read() gives them
  folds <- as.integer((seq_len(50) - 1) %% 5 + 1)
  src <- chunk_source(1L, function(i) list(x = d$x, y = d$y))
  expect_same_fit(rlsc_short(src, cv = 5), rlsc_short(d$x, d$y, foldid = folds))
  w <- runif(50)
  given <- chunk_source(split(seq_len(50), rep(1:3, length.out = 50)), function(idx) {
    list(x = d$x[idx, ], y = d$y[idx], weights = w[idx], foldid = folds[idx])
  })
  expect_same_fit(rlsc_short(given, cv = 5), rlsc_short(d$x, d$y, weights = w, foldid = folds))
})

test_that("chunked GCV equals GCV in memory", {
  lambda <- c(20, 5, 1, 0.2)
  fit <- rlsc_short(mpg ~ ., data = mtcars, cv = "gcv", standardize = TRUE, lambda = lambda)
  expect_identical(fit$criterion, "gcv")
  expect_identical(fit$lambda_1se, fit$lambda_min)   # no standard error
  expect_output(print(fit), "Generalized cross-validation")
  # chunked GCV is the same
  src <- chunk_source(split(mtcars, rep(1:3, length.out = 32)), identity)
  expect_equal(rlsc_short(mpg ~ ., data = src, cv = "gcv", standardize = TRUE, lambda = lambda)$cvm,
               fit$cvm, tolerance = 1e-10)
})

test_that("bad cv and foldid are errors naming the argument", {
  d <- make_data(20, 2, seed = 305)
  expect_error(rlsc(d$x, d$y, cv = "kfold"),
               "`cv` must be \"loo\", \"gcv\" or a whole number of folds from 2 to 20, not kfold")
  expect_error(rlsc(d$x, d$y, cv = c(5, 10)), "folds from 2 to 20, not 5 10$")
  expect_error(rlsc(d$x, d$y, cv = 1), "`cv` must be .* from 2 to 20, not 1")
  expect_error(rlsc(d$x, d$y, cv = 21), "not 21")
  expect_error(rlsc(d$x, d$y, cv = 2.5), "not 2.5")
  expect_error(rlsc(d$x, d$y, foldid = 1:19),
               "`foldid` must be a vector of fold labels, one per row \\(20\\), not of length 19")
  expect_error(rlsc(d$x, d$y, foldid = c(NA, rep(1:2, length.out = 19))), "`foldid` must not contain NA values")
  expect_error(rlsc(d$x, d$y, foldid = rep(3, 20)), "`foldid` must have at least 2 folds, not 1")
  expect_error(rlsc(d$x, d$y, cv = "gcv", criterion = "mae"), "`cv` = \"gcv\" is a criterion of its own")
  expect_error(rlsc(d$x, d$y, foldid = c(1, 1, rep(2, 18)), weights = c(1, 1, rep(0, 18))),
               "fold 1 leaves 0")
})

test_that("cv = K stratifies the folds of a classification fit by class", {
  set.seed(22)
  fit <- rlsc_short(iris[, 1:4], iris$Species, cv = 5, lambda = c(1, 0.1))
  counts <- table(fit$foldid, iris$Species)
  expect_true(all(counts == 10))
  # unequal classes: each fold holds each class's count within one, sizes within one
  y <- factor(c(rep("a", 23), rep("b", 9), rep("c", 4)))
  x <- matrix(rnorm(36 * 2), 36)
  for (K in c(3, 5, 7)) {
    f <- rlsc_short(x, y, cv = K, lambda = c(1, 0.1))$foldid
    tab <- table(factor(f, 1:K), y)
    expect_true(all(apply(tab, 2, function(v) max(v) - min(v)) <= 1), info = K)
    expect_lte(diff(range(rowSums(tab))), 1)
  }
  # reproducible under set.seed(), and random: two seeds give two assignments
  set.seed(3); a <- rlsc_short(x, y, cv = 5, lambda = 1)$foldid
  set.seed(3); b <- rlsc_short(x, y, cv = 5, lambda = 1)$foldid
  set.seed(4); c2 <- rlsc_short(x, y, cv = 5, lambda = 1)$foldid
  expect_identical(a, b)
  expect_false(identical(a, c2))
  # regression folds stay plain random folds of equal size
  set.seed(5)
  r <- rlsc_short(x, rnorm(36), cv = 6, lambda = 1)$foldid
  expect_identical(as.vector(table(r)), rep(6L, 6))
})

test_that("a fold whose rows all weigh 0 is no fold: K and the standard errors without it (issue 27)", {
  d <- make_data(40, 3, seed = 306)
  folds <- rep(1:5, 8)
  w <- runif(40, 0.5, 2)
  w[folds == 5] <- 0
  lambda <- c(10, 1, 0.1)
  keep <- w > 0
  fit <- rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lambda)
  expect_identical(fit$cv, 4L)
  ref <- ref_kfold(d$y[keep], w[keep], folds[keep], lambda, function(train, held, l) {
    ref_predict(ref_coef(d$x[keep, ][train, ], d$y[keep][train], w[keep][train], l),
                d$x[keep, ][held, , drop = FALSE])
  })
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-9)
  expect_equal(fit$cvsd, ref$cvsd, tolerance = 1e-9)   # over 4 folds, not 5
  expect_equal(fit$path, rlsc_short(d$x[keep, ], d$y[keep], weights = w[keep], foldid = folds[keep],
                                    lambda = lambda)$path, tolerance = 1e-9)
  # a kernel fit (dual) the same
  k <- rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lambda, kernel = kernel_rbf(2))
  expect_identical(k$cv, 4L)
  kref <- ref_kfold(d$y[keep], w[keep], folds[keep], lambda, function(train, held, l) {
    xk <- d$x[keep, ]
    cf <- ref_bordered(ref_rbf(xk[train, ], sigma = 2), d$y[keep][train], w[keep][train], l)
    ref_kernel_predict(cf, ref_rbf(xk[held, , drop = FALSE], xk[train, ], sigma = 2))
  })
  expect_equal(k$cvm, kref$cvm, tolerance = 1e-8)
  expect_equal(k$cvsd, kref$cvsd, tolerance = 1e-8)
})

test_that("foldid and cv must agree, on every source (issue 27)", {
  d <- make_data(24, 2, seed = 307)
  folds <- rep(1:3, 8)
  expect_error(rlsc(d$x, d$y, foldid = folds, cv = "gcv"),
               paste0("^`cv` and `foldid` disagree: `foldid` asks for K-fold cross-validation over ",
                      "its 3 folds, `cv` is \"gcv\""))
  expect_error(rlsc(d$x, d$y, foldid = folds, cv = 4),
               "over its 3 folds, `cv` is 4; give one of them \\(or `cv` = 3\\)$")
  expect_identical(rlsc_short(d$x, d$y, foldid = folds, cv = 3)$cv, 3L)
  # folds from the chunks need cv = K
  src <- chunk_matrix(d$x, d$y, chunk_rows = 7, foldid = folds)
  expect_error(rlsc(src), paste0("read\\(\\) gives `foldid`, which asks for K-fold cross-validation ",
                                 "over the chunks' folds: give `cv` = K"))
  expect_same_fit(rlsc_short(src, cv = 3), rlsc_short(d$x, d$y, foldid = folds))
  # a formula takes the folds from a column, in memory and in chunks
  df <- data.frame(y = d$y, a = d$x[, 1], b = d$x[, 2], f = folds)
  ref <- rlsc_short(d$x, d$y, foldid = folds)
  expect_equal(quiet_boundary(rlsc(y ~ a + b, data = df, foldid = f))$path, ref$path, tolerance = 1e-12)
  chunks <- chunk_source(split(df, rep(1:3, each = 8)), identity)
  expect_equal(quiet_boundary(rlsc(y ~ a + b, data = chunks, foldid = f, cv = 3))$path, ref$path,
               tolerance = 1e-10)
  expect_error(rlsc(y ~ a + b, data = chunks, foldid = f),
               "^`foldid` asks for K-fold cross-validation over the chunks' folds: give `cv` = K, the number of folds$")
  # rows that na.action drops take their folds with them
  df$a[5] <- NA
  expect_equal(quiet_boundary(rlsc(y ~ a + b, data = df, foldid = f))$path,
               rlsc_short(d$x[-5, ], d$y[-5], foldid = folds[-5])$path, tolerance = 1e-12)
})

# ---- many response columns: fold engines per block of columns (issue 24) ------

# A fit with one response column per block (options(rlsc.target_memory)
# below any column's).
blocked_fit <- function(...) {
  withr::with_options(list(rlsc.target_memory = 1), rlsc_short(...))
}

# A fit of x and y read from 5 chunks of rows, with the number of chunks read.
counted_fit <- function(x, y, foldid, ..., target_memory = NULL) {
  reads <- 0
  rows <- split(seq_len(nrow(x)), rep(1:5, length.out = nrow(x)))
  src <- chunk_source(unname(rows), function(i) {
    reads <<- reads + 1
    list(x = x[i, , drop = FALSE], y = if (is.null(dim(y))) y[i] else y[i, , drop = FALSE], foldid = foldid[i])
  })
  fit <- withr::with_options(list(rlsc.target_memory = target_memory), rlsc_short(src, ...))
  list(fit = fit, reads = reads)
}

expect_same_table <- function(a, b, tol = 1e-10) {
  cols <- setdiff(names(a$path), "n_na")
  expect_equal(a$path[cols], b$path[cols], tolerance = tol)
  expect_identical(a$lambda_min, b$lambda_min)
  expect_identical(a$lambda_1se, b$lambda_1se)
  expect_equal(coef(a, a$lambda_min), coef(b, b$lambda_min), tolerance = tol)
}

test_that("K-fold over blocks of response columns equals one block and refits, with weights", {
  d <- make_data(48, 4, ntarget = 5, seed = 311)
  colnames(d$y) <- paste0("t", 1:5)
  w <- runif(48, 0.3, 2)
  folds <- rep(1:4, length.out = 48)
  lambda <- c(100, 10, 1, 0.1)
  for (icpt in c(TRUE, FALSE)) for (per in c(TRUE, FALSE)) {
    one <- rlsc_short(d$x, d$y, weights = w, foldid = folds, lambda = lambda, intercept = icpt,
                      per_response = per)
    blocked <- blocked_fit(d$x, d$y, weights = w, foldid = folds, lambda = lambda,
                           intercept = icpt, per_response = per)
    expect_same_table(blocked, one)
    ref <- ref_kfold(d$y, w, folds, lambda, function(train, held, l) {
      ref_predict(ref_coef(d$x[train, ], d$y[train, ], w[train], l, icpt), d$x[held, , drop = FALSE], icpt)
    })
    expect_equal(blocked$path$mse, ref$cvm, tolerance = 1e-8)
    expect_equal(blocked$path$mse_se, ref$cvsd, tolerance = 1e-8)
    if (per) {
      ref3 <- ref_kfold(d$y[, 3], w, folds, lambda, function(train, held, l) {
        ref_predict(ref_coef(d$x[train, ], d$y[train, 3], w[train], l, icpt), d$x[held, , drop = FALSE], icpt)
      })
      expect_equal(blocked$path$mse_t3, ref3$cvm, tolerance = 1e-8)
      expect_equal(blocked$path$mse_t3_se, ref3$cvsd, tolerance = 1e-8)
      expect_identical(unname(blocked$lambda_min[3]), lambda[which.min(ref3$cvm)])
    }
  }
})

test_that("blocks of response columns: mae, unpenalized and standardized columns, chunks, features", {
  d <- make_data(40, 5, ntarget = 4, seed = 312)
  folds <- rep(1:5, length.out = 40)
  lambda <- c(50, 5, 0.5)
  args <- list(list(criterion = "mae"), list(penalty_factor = c(0, 1, 1, 2, 1)),
               list(standardize = TRUE, intercept = FALSE))
  for (a in args) {
    one <- do.call(rlsc_short, c(list(d$x, d$y, foldid = folds, lambda = lambda), a))
    blocked <- do.call(blocked_fit, c(list(d$x, d$y, foldid = folds, lambda = lambda), a))
    expect_same_table(blocked, one)
  }
  # a chunk source reads each block's columns from its chunks: a pass of
  # fold moments per column, of its 5 chunks
  chunked <- counted_fit(d$x, d$y, folds, cv = 5, lambda = lambda, per_response = TRUE, target_memory = 1)
  whole <- counted_fit(d$x, d$y, folds, cv = 5, lambda = lambda, per_response = TRUE)
  expect_gte(chunked$reads, 4 * 5)
  expect_lt(whole$reads, 4 * 5)
  expect_same_table(chunked$fit, rlsc_short(d$x, d$y, foldid = folds, lambda = lambda,
                                            per_response = TRUE))
  expect_same_table(whole$fit, chunked$fit)
  # Nystrom features: the fold engines mapped as they are built
  kern <- nystrom(kernel_rbf(2), m = 12)
  set.seed(5)
  one <- rlsc_short(d$x, d$y, kernel = kern, foldid = folds, lambda = lambda, per_response = TRUE)
  set.seed(5)
  blocked <- blocked_fit(d$x, d$y, kernel = kern, foldid = folds, lambda = lambda,
                         per_response = TRUE)
  expect_same_table(blocked, one)
})

test_that("blocks of response columns probe past the grid's ends as one block does, to refits", {
  # columns of noise choose the largest lambda and those of a strong signal
  # the smallest: each block probes its own columns past the end they sit at
  set.seed(314)
  x <- matrix(rnorm(60 * 4), 60)
  y <- cbind(noise1 = rnorm(60), signal1 = drop(x %*% c(3, -2, 1, 2)) + 0.01 * rnorm(60),
             noise2 = rnorm(60), signal2 = drop(x %*% c(-1, 2, 2, 1)) + 0.01 * rnorm(60), mixed = x[, 1] + rnorm(60))
  folds <- rep(1:4, length.out = 60)
  lambda <- c(5, 1, 0.2)
  catch <- function(expr) {
    msgs <- character(0)
    fit <- withCallingHandlers(expr, warning = function(w) {
      msgs <<- c(msgs, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    list(fit = fit, warnings = msgs)
  }
  one <- catch(rlsc(x, y, foldid = folds, lambda = lambda, per_response = TRUE))
  blocked <- catch(withr::with_options(list(rlsc.target_memory = 1),
                                       rlsc(x, y, foldid = folds, lambda = lambda, per_response = TRUE)))
  expect_same_table(blocked$fit, one$fit)
  expect_identical(blocked$warnings, one$warnings)
  expect_match(blocked$warnings, "`lambda_min` of 4 response column\\(s\\) \\(`noise1`, `signal1`, `noise2`, `signal2`\\) is at an end",
               all = FALSE)
  expect_identical(unname(match(blocked$fit$lambda_min, lambda)), c(1L, 3L, 1L, 3L, 2L))
  # the probes past each end, by refits: the criterion keeps decreasing
  ref <- function(j, l) {
    ref_kfold(y[, j], rep(1, 60), folds, l, function(train, held, l) {
      ref_predict(ref_coef(x[train, ], y[train, j], rep(1, 60)[train], l, TRUE), x[held, , drop = FALSE], TRUE)
    })$cvm
  }
  expect_lt(ref(1, 50), ref(1, 5))
  expect_lt(ref(2, 0.02), ref(2, 0.2))
  expect_equal(blocked$fit$path$mse_noise1, ref(1, lambda), tolerance = 1e-8)
})

test_that("classification K-fold keeps its class columns in one block", {
  set.seed(313)
  x <- matrix(rnorm(90 * 3), 90)
  y <- factor(sample(c("a", "b", "c"), 90, replace = TRUE))
  # no more passes over the chunks with the least memory than with the default
  folds <- rep(1:3, length.out = 90)
  blocked <- counted_fit(x, y, folds, cv = 3, lambda = c(10, 1), calibration_folds = 0, target_memory = 1)
  whole <- counted_fit(x, y, folds, cv = 3, lambda = c(10, 1), calibration_folds = 0)
  expect_identical(blocked$reads, whole$reads)
  expect_same_table(blocked$fit, whole$fit)
})
