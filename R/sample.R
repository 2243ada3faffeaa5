# The sampling pass, for fits that need the data before their engine: the row
# counts, the moments of x when `standardize` needs its column scales, and a
# uniform sample of `size` rows of positive weight (the median heuristic of
# the RBF kernel, Nystrom landmarks, k-means).  Every row gets a uniform random
# key, from a stream seeded by `seed` and the block's number (so the sample
# does not depend on the backend, nor on how chunks are grouped into tasks),
# and the sample is the `size` rows of smallest key, merged across blocks
# (merge_samples()).  The sampled rows are in the units of x.
block_sample <- function(rows, i, intercept, size, seed, moments) {
  n <- nrow(rows$x)
  keys <- with_seed(seed + i, stats::runif(n))
  pos <- which(rows$w > 0)
  take <- pos[order(keys[pos])][seq_len(min(size, length(pos)))]
  list(n = n + 0, npos = length(pos), size = size, keys = keys[take],
       x = as.matrix(rows$x[take, , drop = FALSE]),
       mom = if (moments) chunk_moments(rows, i, intercept, gram = FALSE))
}

merge_samples <- function(a, b) {
  keys <- c(a$keys, b$keys)
  take <- order(keys)[seq_len(min(a$size, length(keys)))]
  list(n = a$n + b$n, npos = a$npos + b$npos, size = a$size, keys = keys[take],
       x = rbind(a$x, b$x)[take, , drop = FALSE],
       mom = if (!is.null(a$mom)) merge_moments(a$mom, b$mom))
}

# Evaluate `expr` with R's random numbers seeded by `seed` (Mersenne-Twister,
# whatever the caller's kind), leaving the caller's stream as it was.
with_seed <- function(seed, expr) {
  env <- globalenv()
  kind <- RNGkind()
  saved <- if (exists(".Random.seed", envir = env, inherits = FALSE)) {
    get(".Random.seed", envir = env, inherits = FALSE)
  }
  on.exit({
    suppressWarnings(RNGkind(kind[1L], kind[2L], kind[3L]))
    if (is.null(saved)) rm(".Random.seed", envir = env) else assign(".Random.seed", saved, envir = env)
  })
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  expr
}
