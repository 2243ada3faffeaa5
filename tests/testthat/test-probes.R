# The lambdas probed beyond the ends of the grid (R/lambda.R, beyond_grid()):
# with the grid, or after lambda_min is chosen and only for the ends and the
# response columns that need them (R/fit_model.R, probes_later()).  Either
# way the boundary warning must say what brute force says.

# The columns t of y whose criterion keeps decreasing past the end of `grid`
# their lambda_min sits at, by brute-force LOO (or K-fold) at the probes: 10,
# 100, 10^4 and 10^8 times the largest lambda, or a tenth, a hundredth, 10^-4
# times the smallest and 0 (the data below are well conditioned: every probe is
# reliable).
ref_beyond <- function(x, y, grid, cv = NULL) {
  y <- as.matrix(y)
  crit <- function(t, l) {
    if (is.null(cv)) return(ref_mse(y[, t], ref_loo(x, y[, t], lambda = l))[1])
    ref_kfold(y[, t], rep(1, nrow(x)), cv, l, function(train, held, lam) {
      ref_predict(ref_coef(x[train, ], y[train, t], lambda = lam), x[held, , drop = FALSE])
    })$cvm
  }
  vapply(seq_len(ncol(y)), function(t) {
    path <- vapply(grid, function(l) crit(t, l), 1)
    at <- which.min(path)
    if (!at %in% c(1L, length(grid))) return(FALSE)
    probes <- if (at == 1L) grid[at] * 10^c(1, 2, 4, 8) else c(grid[at] * 10^-c(1, 2, 4), 0)
    beyond <- vapply(probes, function(l) crit(t, l), 1)
    any(beyond < path[at] - 1e-8 * abs(path[at]))
  }, NA)
}

boundary_warning <- function(expr) {
  msg <- NULL
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("grid", conditionMessage(w))) {
      msg <<- c(msg, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  })
  msg
}

test_that("per-response probes later name the columns brute force finds still decreasing", {
  set.seed(24)
  n <- 40
  x <- matrix(rnorm(n * 3), n)
  # signal (lambda_min inside), pure noise (the largest lambda), strong signal
  # (the smallest lambda of this grid), and noise again
  y <- cbind(signal = drop(x %*% c(1, -1, 0.5)) + rnorm(n, sd = 2), noise = rnorm(n),
             strong = drop(x %*% c(3, 2, 1)) + rnorm(n, sd = 0.1), more = rnorm(n))
  grid <- c(30, 10, 3, 1)
  # (3 columns are fewer than the probes' cost: the probes come after the
  # choice; the next test checks that both ways warn alike)
  for (cv in list(NULL, rep(1:4, length.out = n))) {
    msg <- boundary_warning(fit <- rlsc(x, y, lambda = grid, per_response = TRUE, foldid = cv))
    ref <- ref_beyond(x, y, grid, cv)
    expect_true(any(ref))
    expect_length(msg, 1L)
    named <- sub("^.*response column\\(s\\) \\(([^)]*)\\) is at an end.*$", "\\1", msg)
    expect_setequal(strsplit(gsub("`", "", named), ", ")[[1]], colnames(y)[ref])
    # the table itself holds the grid only
    expect_identical(fit$path$lambda, grid)
  }
})

test_that("probes later and with the grid give the same boundary warning for one response", {
  d <- make_data(40, 3, seed = 13)
  l <- rlsc(d$x, d$y)$lambda_min
  grid <- c(1e3, 1e2) * l
  # d = 3: later; the same data padded with 30 columns of zeros (no direction
  # of theirs is kept, d = 33 > 16): with the grid
  wide <- cbind(d$x, matrix(0, 40, 30))
  a <- boundary_warning(rlsc(d$x, d$y, lambda = grid))
  b <- boundary_warning(rlsc(wide, d$y, lambda = grid))
  expect_match(a, "smallest value of the `lambda` grid, and the criterion keeps decreasing beyond it: ")
  expect_identical(a, b)
})

test_that("a response column whose name is empty or repeated keeps its own lambda", {
  set.seed(3)
  x <- matrix(rnorm(200), 50)
  y <- cbind(a = rnorm(50), x %*% c(2, 1, 0, 0) + rnorm(50, sd = 0.1))
  y <- cbind(y, y[, 2] + rnorm(50, sd = 2))   # names "a", "", ""
  fit <- rlsc_short(x, y, per_response = TRUE)
  each <- vapply(1:3, function(t) rlsc_short(x, y[, t])$lambda_min, 1)
  expect_equal(unname(fit$lambda_min), each)
  # each column named apart, the same in every output: y<j> where a name is
  # missing, repeated names made unique (a, a.1)
  expect_identical(names(fit$lambda_min), c("a", "y2", "y3"))
  expect_identical(colnames(coef(fit)), c("a", "y2", "y3"))
  colnames(y) <- c("a", "a", "b")
  fit <- rlsc_short(x, y, per_response = TRUE)
  expect_equal(unname(fit$lambda_min), each)
  expect_identical(names(fit$lambda_min), c("a", "a.1", "b"))
  expect_identical(colnames(predict(fit, x[1:2, ])), c("a", "a.1", "b"))
})
