# predict(se.fit = TRUE): the standard error of the fitted mean.

test_that("at lambda = 0 the standard errors are predict.lm()'s, with and without weights", {
  w <- seq(0.5, 2, length.out = 32)
  for (wt in list(NULL, w)) {
    fit <- suppressWarnings(rlsc(mpg ~ wt + hp + qsec, data = mtcars, weights = wt, lambda = c(1, 0)))
    m <- lm(mpg ~ wt + hp + qsec, data = mtcars, weights = wt)
    new <- mtcars[c(1, 5, 20), ]
    got <- predict(fit, new, lambda = 0, se.fit = TRUE)
    ref <- predict(m, new, se.fit = TRUE)
    expect_equal(got$fit, ref$fit, tolerance = 1e-9)
    expect_equal(got$se.fit, ref$se.fit, tolerance = 1e-9)
    expect_equal(got$df, ref$df)
    expect_equal(got$residual.scale, ref$residual.scale, tolerance = 1e-9)
  }
})

test_that("for lambda > 0 they are the smoother's variance, primal and dual forms", {
  for (shape in list(c(40, 4), c(15, 25))) {
    d <- make_data(shape[1], shape[2], seed = 331)
    fit <- rlsc_short(d$x, d$y, lambda = c(10, 1))
    new <- d$x[1:3, ] + 0.3
    l <- 3
    # f(x0) = a(x0)' y is linear in y: Var = sigma^2 |a|^2, sigma^2 = RSS / (n - tr(2H - H'H))
    x1 <- cbind(1, d$x)
    m <- solve(crossprod(x1) + l * diag(c(0, rep(1, shape[2]))), t(x1))
    h <- x1 %*% m
    a <- cbind(1, new) %*% m
    nu <- shape[1] - sum(diag(2 * h - crossprod(h)))
    sigma2 <- sum((d$y - h %*% d$y)^2) / nu
    got <- predict(fit, new, lambda = l, se.fit = TRUE)
    expect_equal(unname(got$se.fit), sqrt(sigma2 * rowSums(a^2)), tolerance = 1e-8, info = shape[2])
    expect_equal(got$df, nu, tolerance = 1e-8)
  }
})

test_that("kernel fits need keep_eigen for standard errors; classification has none", {
  s <- sine_data(30, 332)
  kept <- rlsc_short(s$x, s$y, kernel = kernel_rbf(1), keep_eigen = TRUE, lambda = c(1, 0.1))
  k <- ref_rbf(s$x, sigma = 1)
  l <- 0.1
  sol <- ref_bordered(k, diag(30), lambda = l)   # the smoother's columns: fits of unit vectors
  kn <- ref_rbf(s$x[1:2, , drop = FALSE] + 0.1, s$x, sigma = 1)
  a <- ref_kernel_predict(sol, kn)               # f(x0) = a(x0)' y
  hat <- ref_kernel_predict(sol, k)
  nu <- 30 - sum(diag(2 * hat - crossprod(hat)))
  sigma2 <- sum((s$y - hat %*% s$y)^2) / nu
  got <- predict(kept, s$x[1:2, , drop = FALSE] + 0.1, lambda = l, se.fit = TRUE)
  expect_equal(unname(got$se.fit), sqrt(sigma2 * rowSums(a^2)), tolerance = 1e-7)
  snap <- rlsc_short(s$x, s$y, kernel = kernel_rbf(1), lambda = c(1, 0.1))
  expect_error(predict(snap, s$x, se.fit = TRUE), "refit with `keep_eigen = TRUE`")
  cls <- rlsc(Species ~ ., data = iris)
  expect_error(predict(cls, iris, se.fit = TRUE), "`se.fit` = TRUE needs a regression fit")
  expect_error(predict(kept, se.fit = TRUE), "`se.fit` = TRUE needs `newdata`")
  expect_error(predict(kept, s$x, se.fit = NA), "`se.fit` must be TRUE or FALSE")
})
