# penalty_factor: lambda sum_j p_j beta_j^2, zeros unpenalized like the intercept.

test_that("LOO, coefficients and leverages equal refits of the bordered normal equations", {
  d <- make_data(40, 5, ntarget = 2, seed = 321)
  w <- runif(40, 0.2, 2)
  w[7] <- 0
  pf <- c(0, 1, 2.5, 0, 0.3)
  for (icpt in c(TRUE, FALSE)) {
    fit <- rlsc_short(d$x, d$y, weights = w, penalty_factor = pf, lambda = c(10, 1, 0.1),
                      intercept = icpt)
    for (l in c(10, 1, 0.1, 3)) {
      ref <- ref_coef_pf(d$x, d$y, w, l, pf, icpt)
      if (!icpt) ref <- rbind(0, ref)
      expect_equal(unname(coef(fit, l)), unname(ref), tolerance = 1e-9)
      expect_equal(unname(loo_predict(fit, l)), ref_loo_pf(d$x, d$y, w, l, pf, icpt), tolerance = 1e-9)
      x1 <- if (icpt) cbind(1, d$x) else d$x
      h <- rowSums((x1 %*% solve(crossprod(x1, w * x1) + l * diag(c(if (icpt) 0, pf)))) * x1) * w
      expect_equal(unname(hatvalues(fit, l)), h, tolerance = 1e-9)
    }
    # the two unpenalized columns count in df, as the fit keeps them at any lambda
    values <- fit$engine$values
    expect_equal(fit$df, 2 + vapply(fit$lambda, function(l) sum(values / (values + l)), 1))
  }
  # positive factors only: also in the dual form (a rescaling of the columns)
  wide <- make_data(12, 20, seed = 322)
  pf2 <- rep(c(0.5, 2), 10)
  fitw <- rlsc_short(wide$x, wide$y, penalty_factor = pf2, lambda = c(5, 0.5))
  expect_identical(fitw$form, "dual")
  expect_equal(unname(coef(fitw, 0.5)), drop(ref_coef_pf(wide$x, wide$y, rep(1, 12), 0.5, pf2)), tolerance = 1e-8)
  expect_equal(unname(loo_predict(fitw, 0.5)), drop(ref_loo_pf(wide$x, wide$y, rep(1, 12), 0.5, pf2)),
               tolerance = 1e-8)
})

test_that("all columns unpenalized is least squares: LOO values are lm()'s PRESS", {
  fit <- rlsc_short(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg, penalty_factor = c(0, 0))
  m <- lm(mpg ~ wt + hp, data = mtcars)
  expect_equal(unname(mtcars$mpg - loo_predict(fit, 1)), unname(residuals(m) / (1 - hatvalues(m))),
               tolerance = 1e-9)
  expect_equal(unname(coef(fit, 5)), unname(coef(m)), tolerance = 1e-9)
})

test_that("K-fold and chunked fits with penalty factors equal their references", {
  d <- make_data(48, 4, seed = 323)
  pf <- c(0, 1, 3, 1)
  folds <- rep(1:4, 12)
  fit <- rlsc_short(d$x, d$y, penalty_factor = pf, foldid = folds, lambda = c(10, 1))
  ref <- ref_kfold(d$y, rep(1, 48), folds, c(10, 1), function(train, held, l) {
    ref_predict(ref_coef_pf(d$x[train, ], d$y[train], rep(1, sum(train)), l, pf), d$x[held, , drop = FALSE])
  })
  expect_equal(fit$cvm, ref$cvm, tolerance = 1e-8)
  src <- rows_source(d$x, d$y, chunks = chunkings(48)$uneven)
  expect_same_fit(rlsc_short(src, penalty_factor = pf), rlsc_short(d$x, d$y, penalty_factor = pf))
  expect_same_fit(rlsc_short(src, penalty_factor = pf, standardize = TRUE),
                  rlsc_short(d$x, d$y, penalty_factor = pf, standardize = TRUE))
})

test_that("bad penalty factors are errors naming the argument", {
  d <- make_data(20, 3, seed = 324)
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, 1)),
               paste("`penalty_factor` must be a numeric vector with one value per column of `x` \\(3\\)",
                     "or named by columns, not of length 2"))
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, -1, 1)), "`penalty_factor` must be non-negative")
  expect_error(rlsc(d$x, d$y, penalty_factor = c(1, NA, 1)), "`penalty_factor` must not contain NA")
  expect_error(rlsc(d$x, d$y, penalty_factor = "a"), "not character vector")
  expect_error(rlsc(cbind(d$x, d$x[, 1]), d$y, penalty_factor = c(0, 1, 1, 0)),
               "the columns with `penalty_factor` 0 are constant or collinear")
  wide <- make_data(10, 20, seed = 325)
  expect_error(rlsc(wide$x, wide$y, penalty_factor = rep(0, 20)),
               "`penalty_factor` zeros \\(unpenalized columns\\) need the primal form.*here 10 and 20")
  expect_error(rlsc(wide$x, wide$y, penalty_factor = c(0, rep(1, 19))), "need the primal form")
  expect_error(rlsc(d$x, d$y, kernel = kernel_rbf(1), penalty_factor = c(1, 1, 1)),
               "`penalty_factor` applies to the columns of a linear model, not to a kernel fit")
})

test_that("named penalty factors are matched to the columns, terms and variables", {
  x <- as.matrix(mtcars[, c("cyl", "disp", "hp", "wt")])
  pos <- rlsc_short(x, mtcars$mpg, penalty_factor = c(0, 1, 2, 0.5), lambda = c(100, 10))
  named <- rlsc_short(x, mtcars$mpg, penalty_factor = c(wt = 0.5, hp = 2, cyl = 0, disp = 1),
                      lambda = c(100, 10))
  expect_equal(coef(named, 10), coef(pos, 10), tolerance = 1e-12)
  expect_equal(unname(coef(named, 10)),
               unname(drop(ref_coef_pf(x, mtcars$mpg, rep(1, 32), 10, c(0, 1, 2, 0.5)))), tolerance = 1e-9)
  expect_equal(named$penalty_factor, c(cyl = 0, disp = 1, hp = 2, wt = 0.5))
  # names not given keep 1
  part <- rlsc_short(x, mtcars$mpg, penalty_factor = c(hp = 2, cyl = 0), lambda = c(100, 10))
  expect_equal(coef(part, 10), coef(pos <- rlsc_short(x, mtcars$mpg, penalty_factor = c(0, 1, 2, 1),
                                                      lambda = c(100, 10)), 10), tolerance = 1e-12)
  # a formula: a variable covers all its columns, a term label likewise
  f <- rlsc_short(mpg ~ factor(cyl) + wt + poly(hp, 2), data = mtcars, lambda = c(100, 10),
                  penalty_factor = c(cyl = 0, hp = 3))
  mm <- model.matrix(~ factor(cyl) + wt + poly(hp, 2), mtcars)[, -1]
  pf <- c(0, 0, 1, 3, 3)
  expect_equal(unname(f$penalty_factor), pf)
  expect_equal(unname(coef(f, 10)), unname(drop(ref_coef_pf(mm, mtcars$mpg, rep(1, 32), 10, pf))),
               tolerance = 1e-8)
  lab <- rlsc_short(mpg ~ factor(cyl) + wt + poly(hp, 2), data = mtcars, lambda = c(100, 10),
                    penalty_factor = c(`poly(hp, 2)` = 3, `factor(cyl)` = 0))
  expect_equal(coef(lab, 10), coef(f, 10), tolerance = 1e-12)
  # a column name of the model matrix also works
  one <- rlsc_short(mpg ~ factor(cyl) + wt, data = mtcars, lambda = c(100, 10),
                    penalty_factor = c(`factor(cyl)8` = 0))
  expect_equal(unname(one$penalty_factor), c(1, 0, 1))
  # a name that is a column is that column; a variable that is no column
  # covers its main effect and its interactions
  int <- rlsc_short(mpg ~ wt * hp, data = mtcars, lambda = c(100, 10), penalty_factor = c(hp = 0))
  expect_equal(unname(int$penalty_factor), c(1, 0, 1))
  int2 <- rlsc_short(mpg ~ factor(am) * hp, data = mtcars, lambda = c(100, 10),
                     penalty_factor = c(am = 0, `factor(am)1:hp` = 2))
  expect_equal(unname(int2$penalty_factor), c(0, 1, 2))   # the column's own value wins
  expect_error(rlsc(mpg ~ factor(am) * factor(vs), data = mtcars, penalty_factor = c(am = 0, vs = 2)),
               "`penalty_factor` gives column `factor\\(am\\)1:factor\\(vs\\)1` two values \\(`am` and `vs`\\)")
  # chunks read as data frames: the same
  src <- chunk_source(split(mtcars, rep(1:3, length.out = 32)), identity)
  fc <- rlsc_short(mpg ~ factor(cyl) + wt + hp, data = src, lambda = c(100, 10),
                   penalty_factor = c(cyl = 0, hp = 3))
  fm <- rlsc_short(mpg ~ factor(cyl) + wt + hp, data = mtcars, lambda = c(100, 10),
                   penalty_factor = c(cyl = 0, hp = 3))
  expect_equal(coef(fc, 10), coef(fm, 10), tolerance = 1e-10)
  expect_equal(unname(fc$penalty_factor), c(0, 0, 1, 3))
})

test_that("unknown or doubled penalty_factor names are errors naming them", {
  x <- as.matrix(mtcars[, c("cyl", "disp", "hp", "wt")])
  expect_error(rlsc(x, mtcars$mpg, penalty_factor = c(cyl = 0, drat = 1)),
               "`penalty_factor` names `drat`, which is not a column of `x` \\(the columns are `cyl`")
  expect_error(rlsc(mpg ~ factor(cyl) + wt, data = mtcars, penalty_factor = c(gear = 0)),
               "`penalty_factor` names `gear`, which is not a column of `x` nor a term or variable")
  expect_equal(unname(rlsc_short(mpg ~ factor(cyl) + wt, data = mtcars, lambda = c(10, 1),
                                  penalty_factor = c(cyl = 0, `factor(cyl)6` = 2))$penalty_factor),
               c(2, 0, 1))
  expect_error(rlsc(x, mtcars$mpg, penalty_factor = c(cyl = 0, 1, 1, 1)),
               "`penalty_factor` must have a name for every value or for none")
  expect_error(rlsc(x, mtcars$mpg, penalty_factor = c(cyl = -1)), "must be non-negative")
})
