# Chunk sources over in-memory data with chosen row sets, for the equality of
# chunked and in-memory fits whatever the chunking.
rows_source <- function(x, y, w = NULL, chunks) {
  chunk_source(chunks, function(idx) {
    list(x = x[idx, , drop = FALSE], y = if (is.null(dim(y))) y[idx] else y[idx, , drop = FALSE],
         weights = w[idx])
  })
}

# The chunkings every equality is checked on: 1 chunk, 2, 7 uneven, chunks of
# one row (a prefix of them), a chunk whose rows all have weight 0 (when w
# has zeros), and the chunks in shuffled order.
chunkings <- function(n, w = NULL, seed = 1) {
  set.seed(seed)
  uneven <- split(seq_len(n), sort(sample(rep(1:7, length.out = n))))
  singles <- c(as.list(1:5), list(6:n))
  out <- list(one = list(seq_len(n)), two = split(seq_len(n), rep(1:2, length.out = n)),
              uneven = unname(uneven), singles = singles, shuffled = unname(uneven)[sample(7)])
  if (!is.null(w) && any(w == 0)) {
    zero <- which(w == 0)
    out$zero_chunk <- list(zero, setdiff(seq_len(n), zero))
  }
  out
}

# Relative equality of the LOO tables, selected lambdas and coefficients.
expect_same_fit <- function(chunked, ref, tol = 1e-10, info = NULL) {
  cols <- c("lambda", "df", "mse", "mse_se", "misclass", "misclass_se")
  expect_equal(chunked$path[cols], ref$path[cols], tolerance = tol, info = info)
  expect_equal(chunked$lambda_min, ref$lambda_min, tolerance = tol, info = info)
  expect_equal(chunked$lambda_1se, ref$lambda_1se, tolerance = tol, info = info)
  expect_equal(coef(chunked), coef(ref), tolerance = tol, info = info)
}

# A fresh folder under the session's temporary directory (removed with it).
new_tempdir <- function() {
  dir <- tempfile("rlsc-test-")
  dir.create(dir)
  dir
}

# Workers of a parallel plan load rlsc from the library: that is this build
# only when the tests run on an installed package (R CMD check), not under
# pkgload (make unit).
skip_unless_installed_build <- function() {
  path <- getNamespaceInfo("rlsc", "path")
  skip_if_not(file.exists(file.path(path, "Meta", "package.rds")),
              "rlsc is loaded from source, so workers would load another build")
}
