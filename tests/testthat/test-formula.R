test_that("the formula and matrix interfaces give identical LOO outputs", {
  fit <- rlsc(mpg ~ wt + hp + factor(cyl) + wt:hp, data = mtcars)
  x <- model.matrix(~ wt + hp + factor(cyl) + wt:hp, mtcars)[, -1]
  ref <- rlsc(x, mtcars$mpg)
  expect_equal(fit$path, ref$path)
  expect_equal(loo_predict(fit), loo_predict(ref))
  expect_equal(coef(fit), coef(ref))
  expect_identical(fit$xnames, colnames(x))
  expect_s3_class(fit$terms, "terms")
  expect_identical(fit$xlevels, list(`factor(cyl)` = c("4", "6", "8")))
})

test_that("a formula's numeric response is named as written, in memory and from chunks", {
  # per-response tables, band labels and the printed fit read `mpg`, not `y1`
  fit <- rlsc(mpg ~ wt + hp, data = mtcars, per_response = TRUE)
  ref <- rlsc(as.matrix(mtcars[c("wt", "hp")]), mtcars$mpg, per_response = TRUE)
  expect_named(fit$lambda_min, "mpg")
  expect_identical(names(ref$lambda_min), "y1")
  expect_true(all(c("mse_mpg", "mse_mpg_se") %in% names(fit$path)))
  expect_equal(unname(unclass(fit$path)), unname(unclass(ref$path)))
  expect_identical(colnames(fit$y), "mpg")
  expect_output(print(fit), "\nmpg ")
  # everything else as for a vector response: vectors of one column, an
  # unnamed residual scale, as lm()'s
  expect_null(dim(coef(fit)))
  expect_null(dim(fitted(fit)))
  expect_named(predict(fit, mtcars[1:2, ]), rownames(mtcars)[1:2])
  expect_null(names(predict(fit, mtcars[1:2, ], se.fit = TRUE)$residual.scale))
  expect_equal(coef(fit), coef(ref))
  # an expression as the response, and banded ridge's labels
  logged <- rlsc(log(mpg) ~ wt + hp + qsec, data = mtcars, nlambda = 20,
                 bands = list(a = "wt", b = c("hp", "qsec")), n_candidates = 3)
  expect_named(logged$band_index, "log(mpg)")
  expect_identical(colnames(logged$band_weights), "log(mpg)")
  # a chunk source's formula names it the same
  src <- chunk_source(split(mtcars, rep(1:2, 16)), identity)
  chunked <- rlsc(mpg ~ wt + hp, data = src, per_response = TRUE)
  expect_named(chunked$lambda_min, "mpg")
  expect_identical(names(chunked$path), names(fit$path))
  # a one-column numeric data frame as `y` keeps its name too
  expect_named(rlsc(as.matrix(mtcars[c("wt", "hp")]), mtcars["mpg"], per_response = TRUE)$lambda_min, "mpg")
})

test_that("formula fits agree with brute-force refits on the expanded design", {
  w <- rep(1:2, 16)
  fit <- rlsc(mpg ~ poly(hp, 2) + log(disp) + I(wt^2), data = mtcars, weights = w)
  x <- model.matrix(~ poly(hp, 2) + log(disp) + I(wt^2), mtcars)[, -1]
  l <- fit$lambda[60]
  expect_equal(unname(loo_predict(fit, l)), unname(drop(ref_loo(x, mtcars$mpg, w, l))), tolerance = 1e-8)
})

test_that("predict() rebuilds new data through terms, poly() and factor levels", {
  fit <- rlsc(mpg ~ poly(hp, 2) + splines::ns(wt, 3) + factor(gear), data = mtcars)
  x <- model.matrix(~ poly(hp, 2) + splines::ns(wt, 3) + factor(gear), mtcars)[, -1]
  ref <- rlsc(x, mtcars$mpg, lambda = fit$lambda)
  new <- mtcars[c(3, 9, 20), ]
  expect_equal(predict(fit, new), predict(ref, x[c(3, 9, 20), ]))
  expect_equal(predict(fit), fitted(fit))
})

test_that("intercept follows the formula", {
  fit <- rlsc_short(mpg ~ wt + hp - 1, data = mtcars)
  expect_false(fit$intercept)
  expect_equal(fit$path, rlsc_short(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg,
                              intercept = FALSE)$path)
  expect_error(rlsc(mpg ~ wt, data = mtcars, intercept = FALSE),
               "`intercept` is set by the formula: use `- 1`")
})

test_that("factor, character and logical responses are classification", {
  fit <- rlsc(Species ~ ., data = iris)
  expect_identical(fit$classes, levels(iris$Species))
  expect_identical(levels(predict(fit, iris, type = "class")), levels(iris$Species))
  df <- data.frame(x1 = mtcars$wt, x2 = mtcars$hp, am = mtcars$am == 1,
                   gear = as.character(mtcars$gear))
  expect_identical(rlsc(am ~ x1 + x2, data = df)$classes, c("FALSE", "TRUE"))
  expect_identical(rlsc(gear ~ x1 + x2, data = df)$classes, c("3", "4", "5"))
})

test_that("character predictors act as factors, as in lm()", {
  df <- data.frame(y = mtcars$mpg, g = as.character(mtcars$cyl), wt = mtcars$wt)
  fit <- rlsc(y ~ g + wt, data = df)
  expect_identical(fit$xnames, c("g6", "g8", "wt"))
  expect_length(predict(fit, df[1:3, ]), 3)
})

test_that("NA rows follow na.action and outputs are padded under na.exclude", {
  aq <- airquality
  omit <- rlsc(Ozone ~ Solar.R + Wind + Temp, data = aq)
  expect_identical(nobs(omit), sum(complete.cases(aq[, 1:4])))
  expect_length(loo_predict(omit), nobs(omit))
  excl <- rlsc(Ozone ~ Solar.R + Wind + Temp, data = aq, na.action = na.exclude)
  expect_length(loo_predict(excl), nrow(aq))
  expect_length(fitted(excl), nrow(aq))
  expect_identical(unname(which(is.na(residuals(excl)))), which(!complete.cases(aq[, 1:4])))
  expect_equal(unname(loo_predict(excl)[complete.cases(aq[, 1:4])]), unname(loo_predict(omit)))
  expect_error(rlsc(Ozone ~ Solar.R, data = aq, na.action = na.fail), "missing values")
  new <- aq[1:6, ]
  p <- predict(omit, new)
  expect_identical(unname(is.na(p)), !complete.cases(new[, 2:4]))
})

test_that("formula fits report bad input by variable name", {
  expect_error(rlsc(nothere ~ wt, data = mtcars), "cannot build the model frame: .*nothere")
  expect_error(rlsc(~ wt, data = mtcars), "`formula` must have a response")
  expect_error(rlsc(mpg ~ wt, data = transform(mtcars, mpg = 1)),
               "the response `mpg` is constant")
  expect_error(rlsc(f ~ wt, data = data.frame(f = factor(rep("a", 32)), wt = mtcars$wt)),
               "the response `f` must have at least 2 classes")
  fit <- rlsc(mpg ~ wt + hp + factor(cyl), data = mtcars)
  expect_error(predict(fit, data.frame(wt = 1)), "`newdata` lacks the variable\\(s\\) `hp`, `cyl`")
  expect_error(predict(fit, data.frame(wt = 1, hp = 100, cyl = 5)),
               "`newdata` has level\\(s\\) of `factor\\(cyl\\)` not seen in training: '5'")
  expect_error(predict(fit, as.matrix(mtcars)), "`newdata` must be a data frame for a fit made with a formula")
  df <- data.frame(y = mtcars$mpg, g = factor(mtcars$cyl))
  fg <- rlsc_short(y ~ g, data = df)
  expect_error(predict(fg, data.frame(g = "5")), "level\\(s\\) of `g` not seen in training: '5'")
})

test_that("model.frame() returns the stored frame, or says there is none", {
  fit <- rlsc_short(mpg ~ wt, data = mtcars)
  expect_identical(model.frame(fit), fit$model)
  expect_error(model.frame(rlsc(as.matrix(mtcars[, 2:3]), mtcars$mpg)), "made from a matrix")
})

test_that("offsets are an error, not silently dropped", {
  expect_error(rlsc(mpg ~ wt + offset(hp), data = mtcars),
               "`formula` must not have an offset, not offset\\(hp\\): subtract it from the response")
  expect_error(rlsc(mpg ~ wt, data = mtcars, offset = hp), "unknown argument\\(s\\): offset")
})

test_that("formula() returns the model formula, as for lm(), and says when there is none", {
  fit <- rlsc(mpg ~ ., data = mtcars)
  f <- formula(fit)
  expect_s3_class(f, "formula")
  expect_null(attr(f, "variables"))
  expect_identical(f, formula(lm(mpg ~ ., data = mtcars)))
  expect_identical(environment(f), environment())
  fl <- formula(rlsc(log(mpg) ~ wt + factor(cyl), data = mtcars))
  expect_identical(deparse(fl), "log(mpg) ~ wt + factor(cyl)")
  # refitting from it gives the same fit
  expect_identical(rlsc(f, data = mtcars)$path, fit$path)
  expect_error(formula(rlsc(as.matrix(mtcars[, 2:3]), mtcars$mpg)),
               "^this fit was made from a matrix, not a formula: it has no formula$")
})
