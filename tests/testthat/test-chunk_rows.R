# Bad chunks: each fault is an error naming the chunk, and no fit is returned.

test_that("a read() that fails, or returns the wrong shape, type or columns, names the chunk", {
  d <- make_data(30, 3, seed = 211)
  colnames(d$x) <- c("x1", "x2", "x3")
  chunks <- split(seq_len(30), rep(1:3, each = 10))
  make <- function(alter) {
    chunk_source(seq_along(chunks), function(i) {
      out <- list(x = d$x[chunks[[i]], ], y = d$y[chunks[[i]]])
      if (i == 2) alter(out) else out
    })
  }
  expect_error(rlsc(make(function(o) stop("disk on fire"))),
               "^chunk 2 \\('2'\\): reading it failed: disk on fire$")
  expect_error(rlsc(make(function(o) o$x)),
               paste0("^chunk 2 \\('2'\\): read\\(\\) must return list\\(x = , ",
                      "y = , weights = \\) as chunk 1 did, not double matrix$"))
  expect_error(rlsc(make(function(o) { o$x <- o$x[, 1:2]; o })),
               "chunk 2 \\('2'\\): it has 2 columns, chunk 1 has 3")
  expect_error(rlsc(make(function(o) { colnames(o$x) <- c("a", "b", "c"); o })),
               "chunk 2 \\('2'\\): its columns a, b, c differ from chunk 1's x1, x2, x3")
  expect_error(rlsc(make(function(o) { o$y <- as.character(o$y); o })),
               "chunk 2 \\('2'\\): `y` must be numeric as in chunk 1, not character vector")
  expect_error(rlsc(make(function(o) { o$y <- o$y[-1]; o })), "chunk 2 \\('2'\\): `y` has 9 values for 10 rows")
  expect_error(rlsc(make(function(o) { o$x[3, 2] <- NA; o })),
               "chunk 2 \\('2'\\): `x` must not contain NA, NaN or Inf values")
  expect_error(rlsc(make(function(o) { o$y[4] <- Inf; o })),
               "chunk 2 \\('2'\\): `y` must not contain NA, NaN or Inf values")
  expect_error(rlsc(make(function(o) { o$weights <- c(-1, rep(1, 9)); o })),
               "chunk 2 \\('2'\\): `weights` must be non-negative")
  expect_error(rlsc(make(function(o) { o$weights <- 1:3; o })),
               "chunk 2 \\('2'\\): `weights` must have length 10 \\(the number of the chunk's rows\\), not 3$")
  expect_error(rlsc(make(function(o) { o$weights <- matrix(1, 10, 1); o })),
               "chunk 2 \\('2'\\): `weights` must be a numeric vector, not double matrix$")
  expect_error(rlsc(make(function(o) { o$weights <- c(1, NaN, rep(1, 8)); o })),
               "chunk 2 \\('2'\\): `weights` must not contain NA, NaN or Inf values$")
  expect_error(rlsc(chunk_source(1:2, function(i) iris)),
               "the chunks are data frames: fit them with a formula")
  expect_error(rlsc(chunk_source(1:2, function(i) 1:3)),
               "chunk 1: read\\(\\) must return a data frame \\(for a formula\\) or list")
  expect_error(rlsc(y ~ x, data = chunk_source(1:2, function(i) list(x = 1))),
               "chunk 1: read\\(\\) must return a data frame for a formula fit, not an object of class 'list'")
})

test_that("formula chunks: missing columns, unseen levels and Inf values name the chunk", {
  df <- transform(mtcars, cyl = factor(cyl))
  parts <- split(df, rep(1:4, each = 8))
  expect_error(rlsc(mpg ~ wt + hp, data = chunk_source(1:4, function(i) {
    if (i == 3) parts[[i]][, -4] else parts[[i]]
  })), "^chunk 3 \\('3'\\): it lacks the column\\(s\\) `hp`$")
  given <- chunk_source(parts, identity, levels = list(cyl = c("4", "6")))
  expect_error(rlsc(mpg ~ wt + cyl, data = given),
               "chunk 1 \\(.*\\): factor cyl has new levels? 8 \\(levels the pre-scan did not see\\)")
  bad <- parts
  bad[[2]]$wt[1] <- Inf
  expect_error(rlsc(mpg ~ wt, data = chunk_source(bad, identity)),
               "chunk 2 \\(.*\\): `x` must not contain NA, NaN or Inf values")
  ys <- chunk_source(1:2, function(i) list(x = matrix(i + 1:4, 4), y = c("a", "b", "a", if (i == 2) "c" else "b")),
                     levels = list(y = c("a", "b")))
  expect_error(rlsc(ys), "chunk 2 \\('2'\\): `y` has value\\(s\\) 'c' that the levels pre-scan did not see \\(a, b\\)")
})

test_that("data that change between the passes, empty sources and zero weights are errors", {
  d <- make_data(30, 3, seed = 212)
  reads <- 0
  changing <- chunk_source(1:3, function(i) {
    if (i == 2) reads <<- reads + 1
    rows <- (i - 1) * 10 + 1:10
    list(x = d$x[rows, ], y = d$y[rows], weights = rep(if (i == 2 && reads > 1) 2 else 1, 10))
  })
  expect_error(rlsc(changing), paste0("^chunk 2 \\('2'\\): its data changed between the passes: 10 rows with ",
                                      "weights summing to 20 now, 10 rows summing to 10 in pass 1$"))
  expect_error(chunk_source(list(), identity), "`chunks` must be a non-empty list or vector of chunk descriptors")
  empty <- chunk_source(1:2, function(i) list(x = d$x[0, ], y = numeric()))
  expect_error(rlsc(empty), "the chunks must hold at least 2 rows, not 0")
  zero <- chunk_source(1:2, function(i) list(x = d$x[1:5, ], y = d$y[1:5], weights = rep(0, 5)))
  expect_error(rlsc(zero), "^`weights` must be positive for at least 2 observations, not 0$")
  wide <- chunk_source(1:2, function(i) list(x = d$x[i, , drop = FALSE], y = d$y[i]))
  expect_error(rlsc(wide), "fewer observations of positive weight \\(2\\) than columns \\(3\\)")
})

test_that("one observation holding all but 1e-6 of the weight is the same error in chunks as in memory", {
  d <- make_data(20, 3, seed = 214)
  w <- rep(1, 20)
  w[13] <- 1e20
  msg <- paste0("^`weights` must leave more than 1e-6 of their total to the other observations when there ",
                "is an intercept, not %s: %s has the rest, so its leverage is 1 and its ",
                "leave-one-out value undefined at every `lambda`$")
  expect_error(rlsc(d$x, d$y, weights = w), sprintf(msg, "1.9e-19", "observation 13"))
  # (the chunks' total and largest weight: the rest cancels)
  src <- chunk_matrix(d$x, d$y, weights = w, chunk_rows = 10)
  in_chunks <- sprintf(msg, "0 \\(to rounding\\)", "an observation of weight 1e\\+20")
  expect_error(rlsc(src), in_chunks)
  expect_error(rlsc(src, cv = 4), in_chunks)
  w[13] <- 2e7   # near the threshold too: a share of 9.5e-7 left
  expect_error(rlsc(chunk_matrix(d$x, d$y, weights = w, chunk_rows = 10), lambda = 1),
               sprintf(msg, "9.5e-07", "an observation of weight 2e\\+07"))
  expect_error(rlsc(d$x, d$y, weights = w, lambda = 1), sprintf(msg, "9.5e-07", "observation 13"))
  # a share up to 1 - 1e-5 fits in chunks as in memory
  w[13] <- 19e5
  lambda <- c(100, 10)
  expect_warning(chunked <- rlsc(chunk_matrix(d$x, d$y, weights = w, chunk_rows = 10), lambda = lambda),
                 "smallest value of the `lambda` grid")
  expect_warning(memory <- rlsc(d$x, d$y, weights = w, lambda = lambda), "smallest value of the `lambda` grid")
  expect_equal(chunked$path$mse, memory$path$mse, tolerance = 1e-9)
})

test_that("what chunk sources cannot do is an error that says why", {
  d <- make_data(30, 3, seed = 213)
  src <- chunk_matrix(d$x, d$y, chunk_rows = 10)
  expect_error(rlsc(src, kernel = kernel_rbf(1)), "a kernel fit needs all rows at once")
  expect_error(rlsc(y ~ ., data = chunk_source(1:2, function(i) data.frame(y = 1:3, x = 3:1)),
                    kernel = "rbf"), "a kernel fit needs all rows at once")
  expect_error(rlsc(src, d$y), "`y` comes from the chunks of a chunk source")
  expect_error(rlsc(src, y = d$y), "`y` comes from the chunks of a chunk source")
  expect_error(rlsc(src, weights = 1), "`weights` comes from the chunks")
  expect_error(rlsc(src, mode = "dual"), "`mode`: a chunk source is fitted in the primal form only")
  expect_error(rlsc(y ~ x, data = chunk_source(1:2, function(i) data.frame(y = 1:3, x = 3:1)), subset = 1:2),
               "`subset` does not apply to a chunk source")
})

test_that("a worker that dies mid-pass is an error naming its chunks", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_unless_installed_build()
  d <- make_data(40, 2, seed = 214)
  dir <- new_tempdir()
  paths <- file.path(dir, paste0("p", 1:4, ".rds"))
  for (i in 1:4) saveRDS(list(x = d$x[(i - 1) * 10 + 1:10, ], y = d$y[(i - 1) * 10 + 1:10]), paths[i])
  future::plan("multisession", workers = 2)
  on.exit(future::plan("sequential"))
  doomed <- chunk_source(paths, local({
    victim <- paths[3]
    function(p) {
      if (p == victim) quit(save = "no")
      readRDS(p)
    }
  }))
  expect_error(rlsc(doomed), "a worker failed while reading \\(pass 1\\) chunk\\(s\\) 3 \\('.*p3.rds'\\)")
})

test_that("options a chunk source cannot take, bad folds and classes from read(), tiny x: errors that say why", {
  d <- make_data(30, 3, seed = 214)
  rows <- function(i) (i - 1) * 10 + 1:10
  src <- chunk_matrix(d$x, d$y, chunk_rows = 10)
  expect_error(rlsc(src, foldid = rep(1:3, 10)),
               paste0("`foldid` of a chunk source comes from the chunks: read() returns ",
                      "list(x = , y = , weights = , foldid = ); or give `cv` = K"), fixed = TRUE)
  expect_error(rlsc(src, cv = 1),
               "`cv` must be \"loo\", \"gcv\" or a whole number of folds of at least 2, not 1", fixed = TRUE)
  expect_error(rlsc(src, cv = c(5, 10)), "folds of at least 2, not 5 10$")
  # criteria of the predictions themselves read every row's predictions from the chunks
  mad <- function(y, pred, weights) median(abs(y - pred))
  expect_equal(rlsc(src, criterion = mad)$path, rlsc(d$x, d$y, criterion = mad)$path, tolerance = 1e-10)
  cls <- factor(d$y > median(d$y))
  bin <- chunk_source(1:3, function(i) list(x = d$x[rows(i), ], y = cls[rows(i)]))
  expect_equal(rlsc(bin, criterion = "auc")$path, rlsc(d$x, cls, criterion = "auc")$path, tolerance = 1e-10)
  folds <- chunk_source(1:3, function(i) list(x = d$x[rows(i), ], y = d$y[rows(i)], foldid = rep(c(1, 3), 5)))
  expect_error(rlsc(folds, cv = 2), "^chunk 1 \\('1'\\): `foldid` must hold one fold number from 1 to 2 per row$")
  one_class <- chunk_source(1:2, function(i) list(x = d$x[rows(i), ], y = factor(rep("a", 10))))
  expect_error(rlsc(one_class), "^`y` must have at least 2 classes for classification, not 1$")
  # as in memory: empty classes dropped with a warning, in chunks of a formula too
  one_seen <- chunk_source(1:2, function(i) data.frame(x = d$x[rows(i), 1], y = factor(rep("a", 10), c("a", "b"))))
  expect_error(expect_warning(rlsc(y ~ x, data = one_seen), "^dropping empty level\\(s\\) of the response `y`: 'b'$"),
               "^the response `y` must have at least 2 classes for classification, not 1$")
  mixed <- chunk_source(1:2, function(i) {
    y <- d$y[rows(i)] > 0
    list(x = d$x[rows(i), ], y = if (i == 1) factor(y) else as.numeric(y))
  })
  expect_error(rlsc(mixed),
               paste0("^chunk 2 \\('2'\\): `y` must be a factor or a character or logical vector ",
                      "as in chunk 1, not double vector$"))
  widths <- chunk_source(1:2, function(i) list(x = d$x[rows(i), ], y = matrix(d$y[rows(i)], 10, i + 1)))
  expect_error(rlsc(widths), "^chunk 2 \\('2'\\): `y` has 3 columns, chunk 1's has 2$")
  expect_error(rlsc(chunk_matrix(d$x * 1e-300, d$y, chunk_rows = 10)),
               "^`x` is too small in magnitude: its weighted cross-products underflow; rescale `x` \\(or `weights`\\)$")
  frames <- chunk_source(1:2, function(i) if (i == 1) mtcars[1:16, ] else as.list(mtcars[17:32, ]))
  expect_error(rlsc(mpg ~ wt, data = frames),
               "^chunk 2 \\('2'\\): read\\(\\) must return a data frame as chunk 1 did, not an object of class 'list'$")
  expect_error(rlsc(~ wt, data = chunk_source(1:2, function(i) mtcars)),
               "`formula` must have a response, as in `y ~ x`", fixed = TRUE)
})
