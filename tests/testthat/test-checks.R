# The error messages of the argument checks of rlsc() that are not about the
# data: `x`, `y`, `weights`, `lambda` and `nlambda` (NA, types, shapes, ranges)
# are covered case by case in test-bad-input.R.

d <- make_data(20, 3, seed = 41)

test_that("character and logical responses are classification", {
  yc <- rep(c("b", "a"), 10)
  expect_identical(rlsc(d$x, yc)$classes, c("a", "b"))
  yl <- rep(c(TRUE, FALSE), 10)
  expect_identical(rlsc(d$x, yl)$classes, c("FALSE", "TRUE"))
})

test_that("bad `nlambda`, `intercept`, `criterion`, `kernel`, `mode` and extra arguments are rejected", {
  expect_error(rlsc(d$x, d$y, nlambda = 0), "`nlambda` must be a whole number of at least 1, not 0")
  expect_error(rlsc(d$x, d$y, nlambda = 2.5), "`nlambda` must be a whole number of at least 1, not 2.5")
  expect_error(rlsc(d$x, d$y, intercept = NA), "`intercept` must be TRUE or FALSE, not logical vector")
  expect_error(rlsc(d$x, d$y, intercept = "yes"), "`intercept` must be TRUE or FALSE")
  expect_error(rlsc(d$x, d$y, intercept = 1L), "`intercept` must be TRUE or FALSE, not integer vector")
  expect_error(rlsc(d$x, d$y, intercept = c(TRUE, TRUE)), "`intercept` must be TRUE or FALSE, not logical vector")
  expect_error(rlsc(d$x, d$y, criterion = "auc"), "`criterion` = \"auc\" needs a response with two classes")
  expect_error(rlsc(d$x, d$y, criterion = "mad"),
               paste0("`criterion` must be \"mse\", \"mae\", \"misclass\", ",
                      "\"auc\" or a function of \\(y, pred, weights\\), not mad"))
  expect_error(rlsc(d$x, d$y, criterion = NA),
               paste0("`criterion` must be \"mse\", \"mae\", \"misclass\", ",
                      "\"auc\" or a function of \\(y, pred, weights\\), not NA"))
  expect_error(rlsc(d$x, d$y, criterion = "misclass"), "`criterion` = \"misclass\" needs a factor response")
  expect_error(rlsc(d$x, d$y, kernel = "gauss"),
               paste0("`kernel` must be \"linear\", \"rbf\", \"polynomial\", ",
                      "\"precomputed\" or a kernel such as kernel_rbf\\(\\), not gauss"))
  expect_error(rlsc(d$x, d$y, mode = "fast"), "`mode` must be \"auto\", \"primal\" or \"dual\", not fast")
  expect_error(rlsc(d$x, d$y, mode = NA), "`mode` must be \"auto\", \"primal\" or \"dual\", not NA")
  expect_error(rlsc(d$x, d$y, lamda = 1), "unknown argument\\(s\\): lamda")
})

test_that("data frames are accepted and keep their column names", {
  df <- as.data.frame(d$x)
  expect_equal(rlsc(df, d$y)$path, rlsc(d$x, d$y)$path)
  expect_identical(rlsc(df, d$y)$xnames, names(df))
  expect_identical(rlsc(d$x[, 1], d$y)$nvars, 1L)
})
