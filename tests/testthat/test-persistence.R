# A fit is plain data: saved with saveRDS() and read back in a fresh R process
# it predicts identically.

# Walks a fit and lists the types found, to show there is nothing (external
# pointers, environments other than the call's) that would dangle after loading.
object_types <- function(x) {
  if (is.list(x)) return(unique(c(typeof(x), unlist(lapply(x, object_types)))))
  typeof(x)
}

test_that("fits hold no external pointers or environments", {
  d <- make_data(30, 4, seed = 61)
  for (fit in list(rlsc(d$x, d$y), rlsc(d$x, d$y, mode = "dual"), rlsc(iris[, 1:4], iris$Species))) {
    types <- object_types(fit[setdiff(names(fit), "call")])
    expect_false(any(c("externalptr", "environment", "closure") %in% types))
  }
})

test_that("a fit saved with saveRDS() predicts identically in a fresh R process", {
  skip_if_not_installed("callr")
  d <- make_data(30, 4, seed = 62)
  w <- rep(c(0, 1, 2), 10)
  newdata <- matrix(rnorm(20), 5)
  fits <- list(primal = rlsc_short(d$x, d$y, weights = w), dual = rlsc(d$x[1:3, ], d$y[1:3], lambda = 1),
               multiclass = rlsc(iris[, 1:4], iris$Species),
               intercept_only = rlsc(d$x[, 0], d$y),
               formula = rlsc(mpg ~ wt + poly(hp, 2) + factor(cyl), data = mtcars),
               kernel = rlsc_short(d$x, d$y, weights = w, kernel = kernel_rbf(c(1, 3))),
               kernel_formula = rlsc(Species ~ ., data = iris, kernel = kernel_polynomial(2)))
  newdata <- list(primal = newdata, dual = newdata, multiclass = as.matrix(iris[c(1, 51, 101), 1:4]),
                  intercept_only = newdata[, 0], formula = mtcars[c(1, 5, 20), ], kernel = newdata,
                  kernel_formula = iris[c(1, 51, 101), ])
  outputs <- function(fits, newdata) {
    lapply(names(fits), function(k) {
      f <- fits[[k]]
      list(predict(f, newdata[[k]]), coef(f), suppressWarnings(loo_predict(f)),
           if (f$type == "classification") predict(f, newdata[[k]], type = "class"))
    })
  }
  file <- tempfile(fileext = ".rds")
  on.exit(unlink(file))
  saveRDS(fits, file)
  # the child loads this very build, from where this process loaded it
  path <- getNamespaceInfo("rlsc", "path")
  skip_if_not(file.exists(file.path(path, "Meta", "package.rds")), "rlsc is loaded from source, not installed")
  got <- callr::r(function(file, newdata, lib, outputs) {
    library(rlsc, lib.loc = lib)
    outputs(readRDS(file), newdata)
  }, args = list(file = file, newdata = newdata, lib = dirname(path), outputs = outputs))
  expect_identical(got, outputs(fits, newdata))
})
