# Class probabilities calibrated on the exact LOO decision values.

test_that("binary probabilities are Platt's logistic map of the LOO decision values", {
  df <- transform(mtcars, am = factor(am, labels = c("auto", "manual")))
  fit <- rlsc(am ~ wt + hp + qsec, data = df)
  p <- predict(fit, df, type = "prob")
  expect_identical(colnames(p), c("auto", "manual"))
  expect_equal(unname(rowSums(p)), rep(1, 32))
  # the reference: a logistic regression of Platt's targets on the LOO values
  loo <- loo_predict(fit)
  pos <- df$am == "manual"
  target <- ifelse(pos, (sum(pos) + 1) / (sum(pos) + 2), 1 / (sum(!pos) + 2))
  ref <- suppressWarnings(glm(target ~ loo, family = quasibinomial()))
  expect_equal(unname(p[, "manual"]), unname(plogis(coef(ref)[1] + coef(ref)[2] * predict(fit, df))),
               tolerance = 1e-6)
  # monotone in the decision value
  grid <- data.frame(wt = 3, hp = seq(50, 300, length.out = 40), qsec = 18)
  f <- predict(fit, grid)
  pm <- predict(fit, grid, type = "prob")[, "manual"]
  expect_true(all(diff(pm[order(f)]) >= 0) || all(diff(pm[order(f)]) <= 0))
  # LOO probabilities: the same map on the LOO values
  lp <- loo_predict(fit, type = "prob")
  expect_equal(unname(lp[, "manual"]), unname(plogis(coef(ref)[1] + coef(ref)[2] * loo)), tolerance = 1e-6)
})

test_that("multiclass probabilities: the multinomial map of the K LOO decision values", {
  skip_if_not_installed("nnet")
  fit <- rlsc(Species ~ ., data = iris)
  p <- predict(fit, iris, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 150))
  expect_identical(colnames(p), levels(iris$Species))
  loo <- loo_predict(fit)
  codes <- as.integer(iris$Species)
  own <- (50 + 1) / (50 + 2)
  target <- matrix((1 - own) / 2, 150, 3)
  target[cbind(1:150, codes)] <- own
  ref <- nnet::multinom(target ~ loo, trace = FALSE, reltol = 1e-14, maxit = 2000)
  expect_equal(unname(loo_predict(fit, type = "prob")), unname(fitted(ref)), tolerance = 1e-4)
})

test_that("probabilities need a classification fit; at other lambdas the map is refitted", {
  fit <- rlsc(mpg ~ wt, data = mtcars)
  expect_error(predict(fit, mtcars, type = "prob"), "`type` = \"prob\" needs a classification fit")
  expect_error(loo_predict(fit, type = "prob"), "`type` = \"prob\" needs a classification fit")
  cls <- rlsc(Species ~ ., data = iris)
  a <- predict(cls, iris[1:5, ], type = "prob", lambda = cls$lambda[10])
  b <- predict(cls, iris[1:5, ], type = "prob", lambda = cls$lambda[80])
  expect_false(isTRUE(all.equal(a, b)))
})
