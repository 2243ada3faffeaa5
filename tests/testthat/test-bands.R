# Banded ridge (R/bands.R) against brute force: for every candidate weighting
# w the model is ridge with penalty lambda / w_g on group g, refitted without
# each row (or fold) with solve() on the columns of group g scaled by
# sqrt(w_g) (groups of weight 0 left out).

band_x <- function(x, group, w) {
  keep <- w[group] > 0
  sweep(x[, keep, drop = FALSE], 2L, sqrt(w[group][keep]), "*")
}

# Per candidate a list(cvm, cvsd) of lambdas x columns: the exact LOO (or
# K-fold) squared error of each response column.
ref_band_tables <- function(x, y, w, group, cand, lambda, intercept = TRUE, folds = NULL) {
  y <- as.matrix(y)
  ref_candidate_tables(y, w, cand, lambda, folds, function(j) {
    xs <- band_x(x, group, cand[j, ])
    list(loo = function(t, l) ref_loo(xs, y[, t], w, l, intercept),
         heldout = function(t, train, held, l) {
           cf <- ref_coef(xs[train, , drop = FALSE], y[train, t], w[train], l, intercept)
           ref_predict(cf, xs[held, , drop = FALSE], intercept)
         })
  })
}

# Small grids leave some columns' lambda_min at an end: muffle that warning
# only (its own test is below).
# The fits of short user grids, whose minimum often sits at an end (or,
# with lambda = 0 in the grid, at a minimum-norm fit): those warnings are
# tested on their own.
quiet_edge <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    edge <- "end of the `lambda` grid|value of the `lambda` grid"
    if (grepl(edge, conditionMessage(w))) invokeRestart("muffleWarning")
  })
}

band_data <- function(n = 24, seed = 3, noise_only = FALSE) {
  set.seed(seed)
  x <- matrix(rnorm(n * 5), n) + 3
  y <- cbind(a = x[, 1] - x[, 2], b = 2 * x[, 4] + x[, 5], c = x[, 3]) + matrix(rnorm(n * 3), n)
  if (noise_only) y[] <- rnorm(length(y))
  list(x = x, y = y, w = runif(n, 0.5, 2), group = c(1L, 1L, 2L, 3L, 3L),
       cand = rbind(c(1, 1, 1) / 3, c(1, 0, 0), c(0.2, 0, 0.8), c(0.05, 0.15, 0.8)),
       lambda = c(300, 30, 5, 1, 0.2, 0.01))
}

expect_band_fit <- function(fit, d, tables, tol = 1e-10) {
  ref <- ref_band_choice(tables)
  expect_equal(unname(fit$band_index), ref$j)
  expect_equal(unname(fit$lambda_min), d$lambda[ref$index], tolerance = tol)
  expect_equal(unname(fit$band_scores), ref$scores, tolerance = tol)
  expect_equal(unname(fit$band_weights), t(d$cand[ref$j, ]), tolerance = tol)
  for (t in seq_len(ncol(d$y))) {
    chosen <- tables[[ref$j[t]]]
    expect_equal(fit$path[[paste0("mse_", colnames(d$y)[t])]], chosen$cvm[, t], tolerance = tol)
    expect_equal(fit$path[[paste0("mse_", colnames(d$y)[t], "_se")]], chosen$cvsd[, t], tolerance = tol)
  }
}

test_that("banded LOO equals refits without each row, primal and dual, any weights", {
  for (noise_only in c(FALSE, TRUE)) {
    d <- band_data(noise_only = noise_only)
    tables <- ref_band_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda)
    for (mode in c("primal", "dual")) {
      fit <- quiet_edge(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
                             lambda = d$lambda, mode = mode))
      expect_s3_class(fit, "rlsc_banded_fit")
      expect_band_fit(fit, d, tables)
      # the coefficients of each column are those of its candidate's refit
      ref <- ref_band_choice(tables)
      cf <- coef(fit)
      for (t in 1:3) {
        w <- d$cand[ref$j[t], ]
        b <- ref_coef(band_x(d$x, d$group, w), d$y[, t], d$w, d$lambda[ref$index[t]])
        full <- numeric(5)
        full[w[d$group] > 0] <- b[-1L] * sqrt(w[d$group][w[d$group] > 0])
        expect_equal(unname(cf[, t]), c(b[1L], full), tolerance = 1e-9)
      }
    }
  }
})

test_that("pure noise: every candidate's best criterion is about the variance, at large lambda", {
  d <- band_data(n = 60, noise_only = TRUE, seed = 11)
  expect_warning(
    fit <- rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda),
    "response column\\(s\\) .* at an end of the `lambda` grid, and the criterion keeps decreasing")
  v <- apply(d$y, 2L, function(col) mean((col - mean(col))^2))
  expect_true(all(fit$band_scores > 0.9 * rep(v, each = nrow(d$cand))))
  expect_true(all(fit$lambda_min >= 30))
})

test_that("banded K-fold equals refits without each fold, primal and dual, without intercept too", {
  d <- band_data(n = 30, seed = 5)
  folds <- rep_len(1:4, 30)
  for (intercept in c(TRUE, FALSE)) {
    tables <- ref_band_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda, intercept, folds)
    for (mode in c("primal", "dual")) {
      fit <- quiet_edge(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
                             lambda = d$lambda, mode = mode, foldid = folds, intercept = intercept))
      expect_band_fit(fit, d, tables)
    }
  }
})

test_that("LOO outputs of a banded fit are each column's candidate's refits", {
  d <- band_data()
  fit <- quiet_edge(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand, lambda = d$lambda))
  loo <- loo_predict(fit)
  h <- hatvalues(fit)
  for (t in 1:3) {
    w <- d$cand[fit$band_index[t], ]
    xs <- band_x(d$x, d$group, w)
    expect_equal(unname(loo[, t]), ref_loo(xs, d$y[, t], d$w, fit$lambda_min[t])[, 1L], tolerance = 1e-9)
    expect_equal(unname(h[, t]), ref_hat(xs, d$w, fit$lambda_min[t]), tolerance = 1e-9)
  }
  expect_equal(unname(predict(fit, d$x)), unname(fitted(fit)), tolerance = 1e-9)
})

test_that("per_response = FALSE picks one candidate for all columns, by any criterion", {
  d <- band_data()
  tables <- ref_band_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda)
  fit <- rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
              lambda = d$lambda, per_response = FALSE)
  total <- sapply(tables, function(tab) min(rowMeans(tab$cvm)))
  expect_equal(unname(fit$band_scores[, 1L]), total, tolerance = 1e-10)
  expect_equal(unique(unname(fit$band_index)), which.min(total))
  mae <- rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand,
              lambda = d$lambda, per_response = FALSE, criterion = "mae")
  expect_identical(mae$criterion, "mae")
})

test_that("classification: each class column picks its candidate by its squared error", {
  d <- band_data(n = 30, seed = 9)
  cls <- factor(ifelse(d$x[, 1] + rnorm(30) > 3, "up", "down"))
  code <- ifelse(cls == "up", 1, -1)
  fit <- rlsc(d$x, cls, bands = d$group, band_weights = d$cand, lambda = d$lambda)
  tables <- ref_band_tables(d$x, code, rep(1, 30), d$group, d$cand, d$lambda)
  ref <- ref_band_choice(tables)
  expect_equal(unname(fit$band_index), ref$j)
  expect_equal(unname(fit$lambda_min), d$lambda[ref$index])
  expect_s3_class(predict(fit, d$x, type = "class"), "factor")
  expect_error(predict(fit, d$x, type = "prob"), "each class column has its own band weights")
  one <- quiet_edge(rlsc(d$x, cls, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                         per_response = FALSE))
  p <- predict(one, d$x, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 30))
})

test_that("chunk sources and formulas give the in-memory banded fit", {
  d <- band_data(n = 40, seed = 2)
  src <- chunk_matrix(d$x, d$y, chunk_rows = 7)
  # K-fold: the rows of chunk i take the folds in turn from fold i
  chunk <- ceiling(seq_len(40) / 7)
  folds <- unlist(lapply(split(seq_len(40), chunk), function(r) (r[1] %/% 7 + seq_along(r) - 1) %% 4 + 1))
  fk <- quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                        foldid = folds))
  fc <- quiet_edge(rlsc(src, bands = d$group, band_weights = d$cand, lambda = d$lambda, cv = 4))
  expect_equal(fc$path, fk$path, tolerance = 1e-10)
  expect_equal(fc$band_scores, fk$band_scores, tolerance = 1e-10)
  loo <- rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda)
  fcl <- rlsc(src, bands = d$group, band_weights = d$cand, lambda = d$lambda)
  expect_equal(fcl$path, loo$path, tolerance = 1e-10)
  expect_equal(fcl$band_index, loo$band_index)
  expect_equal(coef(fcl), coef(loo), tolerance = 1e-10)
  expect_equal(predict(fcl, d$x), predict(loo, d$x), tolerance = 1e-10)
  df <- data.frame(y = d$y[, 1], p = d$x[, 1], q = d$x[, 2], r = d$x[, 3], s = d$x[, 4])
  ff <- rlsc(y ~ p + q + r + s, data = df, bands = c("A", "A", "B", "C"),
             band_weights = rbind(c(0.5, 0.25, 0.25), c(0, 0.5, 0.5)), lambda = d$lambda)
  fm <- rlsc(as.matrix(df[, -1]), df$y, bands = c("A", "A", "B", "C"),
             band_weights = rbind(c(0.5, 0.25, 0.25), c(0, 0.5, 0.5)), lambda = d$lambda)
  expect_equal(unname(coef(ff)), unname(coef(fm)), tolerance = 1e-10)
  expect_equal(rownames(ff$band_weights), c("A", "B", "C"))
})

test_that("formula bands are given per term", {
  df <- data.frame(y = rnorm(30), f = factor(rep(c("a", "b", "c"), 10)), u = rnorm(30), v = rnorm(30))
  fit <- rlsc(y ~ f + u + v, data = df, bands = c("cat", "num", "num"), n_candidates = 5)
  expect_equal(unname(fit$bands), c("cat", "cat", "num", "num"))
  expect_equal(dim(fit$band_candidates), c(5L, 2L))
})

test_that("the candidates: equal weights, each band alone, Dirichlet draws, reproducible", {
  d <- band_data()
  set.seed(4)
  a <- rlsc(d$x, d$y, bands = d$group, n_candidates = 12, lambda = d$lambda)
  set.seed(4)
  b <- rlsc(d$x, d$y, bands = d$group, n_candidates = 12, lambda = d$lambda)
  expect_identical(a$band_candidates, b$band_candidates)
  w <- a$band_candidates
  expect_equal(dim(w), c(12L, 3L))
  expect_equal(w[1:4, ], rbind(rep(1 / 3, 3), diag(3)), ignore_attr = TRUE)
  expect_equal(rowSums(w), rep(1, 12))
  expect_true(all(w >= 0))
  few <- quiet_edge(rlsc(d$x, d$y, bands = d$group, n_candidates = 2, lambda = d$lambda))
  expect_equal(few$band_candidates, rbind(rep(1 / 3, 3), c(1, 0, 0)), ignore_attr = TRUE)
  # one band: ridge itself, one candidate
  one <- quiet_edge(rlsc(d$x, d$y, bands = rep("all", 5), lambda = d$lambda))
  plain <- quiet_edge(rlsc(d$x, d$y, lambda = d$lambda, per_response = TRUE))
  expect_equal(dim(one$band_candidates), c(1L, 1L))
  same <- c("lambda", "df", "mse", grep("^mse_y", names(plain$path), value = TRUE), "n_na")
  expect_equal(one$path[same], plain$path[same], tolerance = 1e-12)
})

test_that("band arguments are checked", {
  d <- band_data()
  expect_error(rlsc(d$x, d$y, bands = 1:3), "group of each of the 5 columns")
  expect_error(rlsc(d$x, d$y, bands = d$group, band_weights = matrix(1, 2, 2)),
               "matrix of candidates .* 3 groups")
  expect_error(rlsc(d$x, d$y, bands = d$group, band_weights = rbind(c(1, 1, 1))), "must sum to 1")
  expect_error(rlsc(d$x, d$y, bands = d$group, band_weights = rbind(c(-1, 1, 1))), "non-negative")
  expect_error(rlsc(d$x, d$y, band_weights = d$cand), "`band_weights` needs `bands`")
  expect_error(rlsc(d$x, d$y, bands = d$group, penalty_factor = rep(1, 5)), "give one of them")
  expect_error(rlsc(d$x, d$y, bands = d$group, kernel = kernel_custom(function(x, z) tcrossprod(x, z))),
               "`bands` needs the linear kernel .* an RBF or a polynomial kernel .* not custom")
  expect_error(rlsc(d$x, d$y, bands = list(a = 1:2, b = 2:5)), "in two")
  expect_error(rlsc(d$x, d$y, bands = list(a = 1:2, b = 3:4)), "in none")
  # messages that name what the caller gave (issues 46 and 47)
  expect_error(rlsc(d$x, d$y, bands = list(a = 1:2, a = 3:4, b = 5)),
               paste0("^`bands` must name each group once; `a` names more than one: put their columns ",
                      "in one group or give the groups different names$"))
  expect_error(rlsc(d$x, d$y, bands = list(band2 = 1:2, 3:5)), "`band2` names more than one")
  twice <- d$x
  colnames(twice) <- c("a", "b", "a", "c", "e")
  expect_error(rlsc(twice, d$y, bands = list(g = c("a", "b"), h = c("c", "e"))),
               paste0("^`bands` names columns by name, but `x` has more than one column named `a` ",
                      "\\(columns 1, 3\\): give the columns of each group by number$"))
  by_number <- quiet_edge(rlsc(twice, d$y, bands = list(g = 1:2, h = 3:5), lambda = d$lambda))
  expect_identical(rownames(by_number$band_weights), c("g", "h"))
  expect_equal(predict(by_number, twice), fitted(by_number), tolerance = 1e-9)
  for (cv in list(list(cv = "gcv"), list(criterion = "mae"))) {
    expect_error(do.call(rlsc, c(list(d$x, d$y, bands = d$group), cv)),
                 paste0("^`bands` chooses each response column's weights and lambda by its own squared ",
                        "error \\(`per_response` defaults to TRUE with `bands`\\), which ",
                        if (is.null(cv$cv)) "`criterion` = \"mae\"" else "`cv` = \"gcv\"",
                        " does not give: give `per_response` = FALSE to choose one for all columns$"))
  }
  cls <- factor(d$y[, 1] > median(d$y[, 1]))
  expect_error(rlsc(d$x, cls, bands = d$group, criterion = "auc"),
               "^`bands` chooses .* which `criterion` = \"auc\" does not give: give `per_response` = FALSE")
  # as the message says: per_response = FALSE takes them
  expect_identical(quiet_edge(rlsc(d$x, cls, bands = d$group, criterion = "auc", band_weights = d$cand,
                                   per_response = FALSE))$criterion, "auc")
  # given explicitly, per_response is the one to blame
  expect_error(rlsc(d$x, d$y, bands = d$group, cv = "gcv", per_response = TRUE),
               "^`per_response` = TRUE chooses each column's lambda by its own squared error, which `cv` = \"gcv\"")
  expect_error(rlsc(d$x, d$y, bands = d$group, n_candidates = 0), "`n_candidates` must be a whole number")
  expect_error(predict(quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand)), d$x, se.fit = TRUE),
               "not available for banded fits")
})

test_that("many response columns (the path one lambda at a time) equal one column at a time", {
  set.seed(8)
  x <- matrix(rnorm(50 * 4), 50)
  y <- x %*% matrix(rnorm(4 * 40), 4) + matrix(rnorm(50 * 40), 50)
  lam <- c(10, 1, 0.1)
  fit <- quiet_edge(rlsc(x, y, lambda = lam, per_response = TRUE, weights = runif(50)))
  for (t in c(1, 17, 40)) {
    one <- quiet_edge(rlsc(x, y[, t], lambda = lam, weights = fit$weights))
    expect_equal(fit$path[[paste0("mse_y", t)]], one$path$mse, tolerance = 1e-12)
    expect_equal(unname(loo_predict(fit, lambda = 1)[, t]), unname(loo_predict(one, lambda = 1)),
                 tolerance = 1e-12)
  }
  kf <- quiet_edge(rlsc(x, y, lambda = lam, per_response = TRUE, cv = 5))
  one <- quiet_edge(rlsc(x, y[, 3], lambda = lam, foldid = kf$foldid))
  expect_equal(kf$path$mse_y3, one$path$mse, tolerance = 1e-12)
})

test_that("candidates in batches and response columns in blocks (a small memory bound) change nothing", {
  d <- band_data(n = 30, seed = 6)
  fit <- quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda, cv = 3,
                         foldid = rep_len(1:3, 30)))
  old <- options(rlsc.band_memory = 300)
  on.exit(options(old))
  small <- quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                           foldid = rep_len(1:3, 30)))
  expect_identical(small$band_index, fit$band_index)
  expect_equal(small$path, fit$path, tolerance = 1e-13)
  expect_equal(small$band_scores, fit$band_scores, tolerance = 1e-13)
  expect_equal(coef(small), coef(fit), tolerance = 1e-12)
  plan <- rlsc:::band_plan(list(form = "primal"), list(cv = list(type = "kfold", K = 3)),
                           list(template = list(xnames = letters[1:5])), 3, 4)
  expect_equal(unname(lengths(plan$targets)), c(1L, 1L, 1L))
  expect_equal(length(plan$batches), 4L)
})

test_that("sparse x gives the dense banded fit, primal and dual; standardize scales within bands", {
  skip_if_not_installed("Matrix")
  d <- band_data(n = 30, seed = 7)
  x <- d$x - 3
  x[abs(x) < 0.7] <- 0
  sx <- Matrix::Matrix(x, sparse = TRUE)
  for (mode in c("primal", "dual")) {
    a <- quiet_edge(rlsc(x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda, mode = mode))
    b <- quiet_edge(rlsc(sx, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda, mode = mode))
    expect_equal(b$path, a$path, tolerance = 1e-9)
    expect_equal(coef(b), coef(a), tolerance = 1e-9)
  }
  # standardize = TRUE: the bands weight the standardized columns
  s <- quiet_edge(rlsc(x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                       standardize = TRUE))
  z <- scale(x, scale = sqrt(colMeans(sweep(x, 2L, colMeans(x))^2)))
  ref <- quiet_edge(rlsc(z, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda))
  expect_equal(s$path, ref$path, tolerance = 1e-9)
  expect_identical(s$band_index, ref$band_index)
})

test_that("a band of tiny weight at a tiny lambda keeps its directions", {
  set.seed(12)
  x <- matrix(rnorm(60 * 6), 60)
  y <- drop(x %*% c(1, -1, 0.5, 0.5, 2, 2)) + rnorm(60)
  w <- c(0.5, 0.5 - 1e-15, 1e-15)
  group <- c(1, 1, 2, 2, 3, 3)
  # (the criterion keeps falling as lambda / w_g of the third band does)
  expect_warning(fit <- rlsc(x, y, bands = group, band_weights = rbind(w), lambda = c(1, 1e-13)),
                 "keeps decreasing beyond it")
  expect_true(fit$engine$bands$graded)
  for (l in 1:2) {
    loo <- drop(ref_loo_pf(x, y, rep(1, 60), fit$lambda[l], 1 / w[group]))
    expect_equal(fit$path$mse[l], mean((y - loo)^2), tolerance = 1e-8)
  }
  # and its coefficients: lambda / w_g = 100 keeps the band in the model
  ref <- ref_coef_pf(x, y, rep(1, 60), 1e-13, 1 / w[group])
  expect_equal(unname(coef(fit, s = 1e-13)), drop(ref), tolerance = 1e-8)
  expect_gt(min(abs(coef(fit, s = 1e-13)[6:7])), 0.1)
  # K-fold: the fold engines take the same decomposition
  folds <- rep(1:4, 15)
  expect_warning(kf <- rlsc(x, y, bands = group, band_weights = rbind(w), lambda = c(1, 1e-13),
                            foldid = folds), "keeps decreasing beyond it")
  held <- ref_kfold(y, rep(1, 60), folds, 1e-13, function(train, out, l) {
    ref_predict(ref_coef_pf(x[train, ], y[train], rep(1, sum(train)), l, 1 / w[group]), x[out, ])
  })
  expect_equal(kf$path$mse[2], held$cvm, tolerance = 1e-8)
})

test_that("a band of weight 1e-12 at moderate lambda: the SVD route from the Gram's diagonal, as solve() gives", {
  # the scaled Gram's diagonal spans 1e12, so its plain eigendecomposition
  # would lose the band's directions: the engines (the full one and the
  # fold engines, decomposed together) take the SVD of the Cholesky factor
  # straight away, with every thread count alike
  set.seed(29)
  x <- matrix(rnorm(70 * 7), 70)
  y <- drop(x %*% c(1, -1, 0.5, 0.5, 2, 2, 1)) + rnorm(70)
  group <- c(1, 1, 2, 2, 3, 3, 3)
  cand <- rbind(c(0.5, 0.5 - 1e-12, 1e-12), c(0.3, 0.3, 0.4))
  lambda <- c(1, 1e-2, 1e-6)
  folds <- rep_len(1:5, 70)
  on_threads <- function(th, expr) withr::with_options(list(rlsc.threads = th), quiet_edge(expr))
  fits <- lapply(1:2, function(th) {
    on_threads(th, rlsc(x, y, bands = group, band_weights = cand[1, , drop = FALSE], lambda = lambda))
  })
  fit <- fits[[1L]]
  expect_false(fit$engine$bands$graded)   # (not the route of a tiny lambda: graded_bands())
  expect_true(fit$engine$subs[[1L]]$graded)
  expect_identical(fits[[2L]]$path, fit$path)
  expect_identical(coef(fits[[2L]], s = 1e-6), coef(fit, s = 1e-6))
  for (l in lambda) {
    ref <- drop(ref_coef_pf(x, y, rep(1, 70), l, 1 / cand[1, group]))
    expect_equal(unname(coef(fit, s = l)), ref, tolerance = 1e-10)
  }
  # K-fold over both candidates: each candidate's best criterion is that of
  # the refits without each fold
  kf <- lapply(1:2, function(th) {
    on_threads(th, rlsc(x, y, bands = group, band_weights = cand, lambda = lambda, foldid = folds))
  })
  expect_identical(kf[[2L]]$band_scores, kf[[1L]]$band_scores)
  for (j in 1:2) {
    held <- ref_kfold(y, rep(1, 70), folds, lambda, function(train, out, l) {
      ref_predict(ref_coef_pf(x[train, ], y[train], rep(1, sum(train)), l, 1 / cand[j, group]), x[out, ])
    })
    expect_equal(unname(kf[[1L]]$band_scores[j, 1L]), min(held$cvm), tolerance = 1e-10)
  }
})

test_that("a band of weight 0 leaves the decomposition: no directions dropped, no warning", {
  set.seed(41)
  x <- matrix(rnorm(80 * 6), 80) + 2
  y <- drop(x[, 3:4] %*% c(1, -1)) + rnorm(80)
  group <- c(1, 1, 2, 2, 3, 3)
  lambda <- c(10^seq(2, -3), 0)
  alone <- rlsc(x[, 3:4], y, lambda = lambda)
  # with the plain decomposition, and with the SVD route, which the second
  # candidate's tiny weight makes every engine take
  for (second in list(c(1, 1, 1) / 3, c(0.5, 0.5 - 1e-11, 1e-11))) {
    cand <- rbind(c(0, 1, 0), second)
    expect_no_warning(fit <- rlsc(x, y, bands = group, band_weights = cand, lambda = lambda))
    expect_identical(fit$engine$bands$graded, second[3] < 1e-3)
    expect_identical(unname(fit$band_index), 1L)
    # the candidate's LOO path is that of band 2 alone, with its two
    # directions (df 2 at lambda = 0) and none dropped (no warning above)
    expect_identical(fit$path$df[length(lambda)], 2)
    expect_equal(fit$path$df, alone$path$df, tolerance = 1e-10)
    expect_equal(fit$path$mse, alone$path$mse, tolerance = 1e-10)
    expect_equal(unname(coef(fit)[c(1, 4, 5)]), unname(coef(alone)[1:3]), tolerance = 1e-10)
    expect_equal(unname(coef(fit)[-c(1, 4, 5)]), rep(0, 4))
    # K-fold: the fold engines too
    kf <- rlsc(x, y, bands = group, band_weights = cand, lambda = lambda, foldid = rep_len(1:4, 80))
    kf_alone <- rlsc(x[, 3:4], y, lambda = lambda, foldid = rep_len(1:4, 80))
    expect_equal(unname(kf$band_scores[1, 1]), min(kf_alone$path$mse), tolerance = 1e-10)
  }
  # a band of weight 0 between the others, columns far from 0, the default
  # grid (down to lambda = 0): its zero rows of the scaled Gram gave
  # eigenvalues of rounding size, and the warning
  d <- band_data()
  w <- c(0.2, 0, 0.8)
  expect_no_warning(fit <- quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = rbind(w))))
  keep <- d$group != 2
  ref <- quiet_edge(rlsc(d$x[, keep], d$y, penalty_factor = 1 / w[d$group[keep]], lambda = fit$lambda))
  expect_equal(fit$path$df, ref$path$df, tolerance = 1e-10)
  expect_equal(fit$path$mse, ref$path$mse, tolerance = 1e-10)
})

test_that("graded_bands() takes the SVD route only where the grid needs it", {
  cand <- rbind(c(0.5, 0.5), c(0.9, 0.1))
  expect_false(graded_bands(c(200, 1), cand, 0))
  expect_true(graded_bands(c(2e9, 1), cand, 0))     # ill-conditioned columns at lambda = 0
  expect_false(graded_bands(c(2e9, 1), cand, 10))
  tiny <- rbind(c(1 - 1e-12, 1e-12), c(0, 1))       # weight 0: the group leaves the model
  expect_true(graded_bands(c(200, 1), tiny, 1e-8))
  expect_false(graded_bands(c(200, 1), tiny, 1e-6))
  expect_false(graded_bands(c(200, 1), rbind(c(0, 1)), 0))
  set.seed(3)
  x <- matrix(rnorm(40 * 4), 40)
  y <- rnorm(40)
  fit <- rlsc(x, y, bands = c(1, 1, 2, 2), band_weights = rbind(c(0.5, 0.5), c(0.9, 0.1)))
  expect_false(fit$engine$bands$graded)
})

test_that("the dual search's sums of group kernels give the kernels of the rescaled columns", {
  set.seed(29)
  x <- matrix(rnorm(30 * 50), 30)
  x[, 1:10] <- x[, 1:10] + 1e3   # offsets: the group kernels are moved by the origin of all rows
  y <- cbind(a = x[, 11] - x[, 30] + rnorm(30), b = x[, 40] + rnorm(30))
  w <- c(0, runif(29))           # a row of weight 0: projected like new rows
  group <- rep(1:3, c(10, 15, 25))
  cand <- rbind(c(0.2, 0.3, 0.5), c(0, 0.5, 0.5), c(1e-6, 0.5, 0.5 - 1e-6))
  for (foldid in list(NULL, rep(1:3, 10))) {
    fit <- function() {
      quiet_edge(rlsc(x, y, weights = w, bands = group, band_weights = cand, lambda = 10^(3:-3),
                      mode = "dual", foldid = foldid, standardize = TRUE))
    }
    a <- fit()
    expect_false(is.null(group_kernels(list(x = x, y = y, w = w), a$engine$bands, NULL, TRUE)))
    b <- withr::with_options(list(rlsc.band_memory = 1e3), fit())   # no room: each kernel from x
    expect_equal(a$path, b$path, tolerance = 1e-9)
    expect_identical(a$band_index, b$band_index)
    expect_equal(coef(a), coef(b), tolerance = 1e-9)
    expect_equal(predict(a, x[1:5, ]), predict(b, x[1:5, ]), tolerance = 1e-9)
  }
})

test_that("the SVD route for graded weights gives the same fit from chunks and sparse x", {
  skip_if_not_installed("Matrix")
  set.seed(31)
  n <- 60
  x <- matrix(rnorm(n * 6), n)
  x[, 1] <- x[, 1] + 50
  y <- cbind(a = drop(x %*% c(1, -1, 0.5, 0.5, 2, 2)) + rnorm(n), b = rnorm(n))
  w <- c(0, runif(n - 1))
  cand <- rbind(c(0.5, 0.5 - 1e-15, 1e-15), c(1, 0, 0) * (1 - 2e-12) + c(0, 1e-12, 1e-12))
  group <- c(1, 1, 2, 2, 3, 3)
  for (foldid in list(NULL, rep(1:4, 15))) {
    fit <- function(x) {
      quiet_edge(rlsc(x, y, weights = w, bands = group, band_weights = cand, lambda = c(1, 1e-6, 1e-13),
                      foldid = foldid, standardize = TRUE))
    }
    ref <- fit(x)
    expect_true(ref$engine$bands$graded)
    expect_same_fit(fit(Matrix::Matrix(x, sparse = TRUE)), ref, tol = 1e-8)
    src <- chunk_source(chunkings(n, w)$uneven, function(idx) {
      list(x = x[idx, , drop = FALSE], y = y[idx, , drop = FALSE], weights = w[idx], foldid = foldid[idx])
    })
    chunked <- quiet_edge(rlsc(src, bands = group, band_weights = cand, lambda = c(1, 1e-6, 1e-13),
                               standardize = TRUE, cv = if (is.null(foldid)) "loo" else 4L))
    expect_same_fit(chunked, ref, tol = 1e-8)
    expect_identical(chunked$band_index, ref$band_index)
  }
})

test_that("tidy(what = \"bands\") reads each response column's own curve, whatever its name (issue 46)", {
  skip_if_not_installed("generics")
  d <- band_data()
  colnames(d$y) <- c("a", "a", "b")   # the second `a` once read the first's curve
  tables <- ref_band_tables(d$x, d$y, d$w, d$group, d$cand, d$lambda)
  ref <- ref_band_choice(tables)
  fit <- quiet_edge(rlsc(d$x, d$y, weights = d$w, bands = d$group, band_weights = d$cand, lambda = d$lambda))
  tb <- generics::tidy(fit, what = "bands")
  expect_identical(unique(tb$response), c("a", "a.1", "b"))
  expect_identical(unique(tb$response), names(fit$lambda_min))
  first <- tb[!duplicated(tb$response), ]   # a row per response column
  expect_equal(first$estimate, ref$value, tolerance = 1e-10)
  expect_equal(first$lambda_min, d$lambda[ref$index], tolerance = 1e-12)
  expect_equal(tb$weight, as.vector(t(d$cand[ref$j, ])), tolerance = 1e-12)
})

test_that("candidates equal to rounding: the first, the same band_weights in memory and from chunks", {
  set.seed(3)
  x <- matrix(rnorm(60 * 6), 60)
  y <- cbind(a = x[, 2] + x[, 3] + rnorm(60, sd = 0.01), b = x[, 1] + rnorm(60, sd = 0.01))
  bands <- rep(c("p", "q", "r"), each = 2)
  # every candidate weighs every group: at lambda = 0 each gives least squares,
  # the same criterion apart by rounding (which chose candidate 3 in memory
  # and 1 from chunks; per response column 3, 3 and 3, 1)
  cand <- rbind(c(0.2, 0.3, 0.5), c(0.5, 0.3, 0.2), c(1, 1, 1) / 3, c(0.6, 0.2, 0.2), c(0.1, 0.1, 0.8))
  src <- chunk_matrix(x, y, chunk_rows = 7)
  for (per_response in c(FALSE, TRUE)) {
    m <- rlsc(x, y, bands = bands, band_weights = cand, lambda = 0, per_response = per_response)
    k <- rlsc(src, bands = bands, band_weights = cand, lambda = 0, per_response = per_response)
    expect_equal(unname(m$band_scores), matrix(m$band_scores[1, ], 5, ncol(m$band_scores), byrow = TRUE),
                 tolerance = 1e-9)
    expect_identical(unname(m$band_index), c(1L, 1L))
    expect_identical(k$band_weights, m$band_weights)
    expect_equal(unname(coef(m)), unname(coef(lm(y ~ x))), tolerance = 1e-8)
  }
})

test_that("the default grid of a banded fit is that of its unweighted columns, with the same limits (issue 48)", {
  g <- c(1, 1, 2, 2, 3, 3)
  cand <- rbind(c(1, 1, 1) / 3, c(0.5, 0.25, 0.25))
  # a large common offset and two nearly equal columns: the grid stops where
  # the LOO values stay accurate, so the fit does not warn about its own grid
  set.seed(5)
  x <- matrix(rnorm(40 * 6), 40) + 1e8
  x[, 6] <- x[, 5] + 1e-4 * rnorm(40)
  y <- cbind(a = x[, 1] - 1e8 + rnorm(40), b = x[, 4] - 1e8 + rnorm(40))
  w <- c(0, 0, 0, rep(1, 37))
  for (mode in c("primal", "dual")) {
    plain <- rlsc(x, y, weights = w, mode = mode)
    expect_no_warning(band <- rlsc(x, y, weights = w, mode = mode, bands = g, band_weights = cand))
    expect_identical(band$lambda, plain$lambda)
  }
  # a column nonzero in one row only: that row's leverage is 1 at lambda = 0,
  # so the grid ends above 0, without the warning of an undefined LOO value
  set.seed(6)
  x <- cbind(matrix(rnorm(40 * 5), 40), c(1, rep(0, 39)))
  y <- cbind(a = x[, 1] + rnorm(40), b = x[, 4] + rnorm(40))
  plain <- rlsc(x, y)
  expect_gt(min(plain$lambda), 0)
  expect_no_warning(band <- rlsc(x, y, bands = g, band_weights = cand))
  expect_identical(band$lambda, plain$lambda)
  # the search over the grid without 0: each column's criterion is its
  # candidate's LOO squared error there, by refits
  j <- band$band_index[["a"]]
  pf <- 1 / cand[j, g]
  l <- band$lambda_min[["a"]]
  loo <- drop(ref_loo_pf(x, y[, "a"], rep(1, 40), l, pf))
  expect_equal(band$path$mse_a[band$index_min[["a"]]], mean((y[, "a"] - loo)^2), tolerance = 1e-8)
})

test_that("a dual banded fit holds x once, in its engine, and predicts as the primal one", {
  d <- band_data(n = 30, seed = 8)
  for (per_response in c(TRUE, FALSE)) {
    dual <- quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                            mode = "dual", per_response = per_response))
    primal <- quiet_edge(rlsc(d$x, d$y, bands = d$group, band_weights = d$cand, lambda = d$lambda,
                              mode = "primal", per_response = per_response))
    expect_null(dual$data$rows$x)
    expect_false(is.null(primal$data$rows$x))   # (the primal engine holds no rows)
    expect_equal(predict(dual, d$x[1:5, ]), predict(primal, d$x[1:5, ]), tolerance = 1e-8)
    expect_equal(fitted(dual), fitted(primal), tolerance = 1e-8)
  }
})

test_that("the boundary warning of a banded fit names the columns at an end beyond which the criterion decreases", {
  set.seed(3)
  x <- matrix(rnorm(60 * 6), 60)
  x[, 6] <- x[, 5] + 1e-9 * rnorm(60)
  y <- cbind(a = x[, 1] + rnorm(60), b = x[, 6] - x[, 2] + rnorm(60))
  g <- rep(c("u", "v", "w"), each = 2)
  # both columns choose lambda = 1, the largest; only a's criterion keeps
  # decreasing past it (a column whose search found nothing beyond dropped
  # out of the list, which then named no column, or the wrong one's end)
  # (x5 and x6 nearly collinear at lambda = 1e-10: whether the LOO values
  # there are flagged as maybe inaccurate depends on the BLAS's rounding;
  # the threaded OpenBLAS flags them)
  rounding <- function(expr) {
    withCallingHandlers(expr, warning = function(w) {
      if (grepl("may be inaccurate", conditionMessage(w))) invokeRestart("muffleWarning")
    })
  }
  expect_warning(fit <- rounding(rlsc(x, y, bands = g, band_weights = rbind(c(1, 1, 1) / 3, c(0.2, 0.2, 0.6)),
                                      lambda = c(1, 1e-10))),
                 "`lambda_min` of 1 response column\\(s\\) \\(`a`\\) is at an end")
  expect_equal(unname(fit$index_min), c(1L, 1L))
  # the reference: a's criterion at its candidate beyond lambda = 1, by refits
  pf <- 1 / fit$band_weights[g, "a"]
  at <- function(l) mean((y[, "a"] - drop(ref_loo_pf(x, y[, "a"], rep(1, 60), l, pf)))^2)
  expect_lt(at(10), at(1))
  expect_equal(fit$path$mse_a[1], at(1), tolerance = 1e-8)
  # K-fold: the probe builds the fold engines again from the decompositions
  # the search kept, or (no memory to keep them) decomposes afresh: the same
  kfold <- function() {
    rounding(rlsc(x, y, bands = g, band_weights = rbind(c(1, 1, 1) / 3, c(0.2, 0.2, 0.6)),
                  lambda = c(1, 1e-10), foldid = rep_len(1:5, 60)))
  }
  expect_warning(kept <- kfold(), "response column\\(s\\) \\(`a`\\) is at an end")
  expect_warning(afresh <- withr::with_options(list(rlsc.band_memory = 100), kfold()),
                 "response column\\(s\\) \\(`a`\\) is at an end")
  expect_identical(afresh$path, kept$path)
  expect_identical(coef(afresh), coef(kept))
})

test_that("a banded search made again without lambda = 0 gives engines of its own choice of decomposition", {
  # lambda = 0 interpolates the row of the dummy column: the default grid is
  # made again without 0, which moves the smallest lambda and with it the
  # choice of the SVD route (graded_bands()); the fit's engines, whether
  # kept from the search, built at the fit or rebuilt without room to keep
  # anything, are all of the second search's choice
  set.seed(1)
  x <- cbind(matrix(rnorm(40 * 4), 40), c(1, rep(0, 39)))
  y <- drop(x[, 1:4] %*% c(1, -1, 0.5, 2)) + rnorm(40)
  fit <- function() {
    suppressWarnings(rlsc(x, y, bands = c(1, 1, 2, 2, 2), band_weights = rbind(c(0.5, 0.5), c(1 - 1e-12, 1e-12))))
  }
  kept <- fit()
  afresh <- withr::with_options(list(rlsc.band_memory = 100), fit())
  expect_gt(min(kept$lambda), 0)
  expect_identical(coef(afresh), coef(kept))
  expect_identical(predict(afresh, x[1:5, ]), predict(kept, x[1:5, ]))
  expect_identical(afresh$path, kept$path)
})

test_that("predict() and loo_predict() of a banded fit warn where its candidates' numbers may be inaccurate", {
  set.seed(3)
  x <- matrix(rnorm(60 * 6), 60)
  y <- cbind(a = x[, 1] + rnorm(60), b = x[, 6] - x[, 2] + rnorm(60), c = rnorm(60))
  g <- rep(c("u", "v", "w"), each = 2)
  set.seed(1)
  expect_warning(fit <- rlsc(x, y, bands = g, n_candidates = 8, kernel = kernel_rbf(2)), "may be inaccurate")
  low <- min(fit$lambda)
  expect_warning(expect_warning(predict(fit, x[1:3, ] + 0.5, lambda = low), "may be inaccurate"),
                 "predictions at 3 new row")
  expect_warning(loo_predict(fit, lambda = low), "may be inaccurate")
  # at each column's lambda_min the numbers are accurate: no warning
  expect_no_warning(predict(fit, x[1:3, ]))
  expect_no_warning(loo_predict(fit))
})

test_that("a banded grid whose criterion is undefined everywhere ends in the one message of every fit", {
  # lambda = 0 with as many columns as rows of positive weight less one:
  # every candidate interpolates every row
  set.seed(12)
  x <- matrix(rnorm(6 * 5), 6)
  y <- cbind(a = rnorm(6), b = rnorm(6))
  # (candidates weighing both groups: one weighing a group 0 drops its directions)
  expect_error(suppressWarnings(rlsc(x, y, bands = rep(c("p", "q"), c(2, 3)), lambda = c(1e-200, 0),
                                     band_weights = rbind(c(0.5, 0.5), c(0.3, 0.7)), per_response = TRUE)),
               paste0("^the leave-one-out criterion is undefined \\(NA\\) at every value of `lambda` for every ",
                      "candidate for response column\\(s\\) `a`, `b`, so none can be chosen; use larger ",
                      "values of `lambda`$"))
})

test_that("a banded fit at a single lambda needs no criterion, as an unbanded one, and names its candidates", {
  # a column nonzero in row 1 only: that row has leverage 1 at lambda = 0
  # (least squares), so its LOO value, and the criterion, is undefined there
  set.seed(48)
  n <- 20
  x <- cbind(matrix(rnorm(n * 3), n), c(1, rep(0, n - 1)))
  y <- cbind(a = rnorm(n), b = rnorm(n))
  bands <- c("p", "p", "q", "q")
  one <- rbind(c(0.4, 0.6))
  for (per in c(TRUE, FALSE)) {
    expect_warning(fit <- rlsc(x, y, bands = bands, band_weights = one, lambda = 0, per_response = per),
                   "undefined \\(NA\\) for up to 1 point")
    # every group weighted: least squares, whatever the weights
    ref <- coef(lm(y ~ x))
    expect_equal(unname(coef(fit)), unname(ref), tolerance = 1e-8)
    expect_equal(unname(fit$band_index), c(1L, 1L))
  }
  unbanded <- suppressWarnings(rlsc(x, y, lambda = 0, per_response = TRUE))
  expect_equal(unname(coef(fit)), unname(coef(unbanded)), tolerance = 1e-10)
  # several candidates: the criterion must choose, and is undefined
  two <- rbind(c(0.4, 0.6), c(0.7, 0.3))
  expect_error(suppressWarnings(rlsc(x, y, bands = bands, band_weights = two, lambda = 0)),
               paste0("at every value of `lambda` for every candidate for response column\\(s\\) ",
                      "`a`, `b`, so none can be chosen; use larger values of `lambda`$"))
  expect_error(suppressWarnings(rlsc(x, y, bands = bands, band_weights = two, lambda = 0,
                                     per_response = FALSE)),
               "at every value of `lambda` for every candidate, so none can be chosen; use larger values of `lambda`$")
})
