# Fits with Nystrom and random-feature kernels (features.R).  Each kernel
# setting is a feature map and one primal engine on the features, built by the
# two passes of the chunked engine (chunk_fit.R): chunk_rows() applies the
# setting's map to every chunk, pass 1 merges the moments of the features, the
# master eigendecomposes their m x m Gram, and the LOO path streams the chunks
# again.  The settings are searched by fit_kernel() as exact kernels are.  Data
# in memory are read in blocks of rows through the same passes, so nothing of
# size n x m exists; a chunk source first gets a sampling pass when landmarks,
# the median heuristic or `standardize` need one.

# Rows per block of in-memory data: about 2^22 doubles of features per block.
feature_block_rows <- function(m, d) max(1L, as.integer(2^22 / max(m, d, 1)))

# rlsc(x, y, kernel = nystrom(...) / random_features(...)) for data in memory
# (x scaled already when `standardize`).
fit_features <- function(call, x, resp, weights, lambda, nlambda, intercept, crit, cv, kernel,
                         scale) {
  if (cv$type == "kfold" && needs_values(crit)) {
    stop_arg("`criterion` = \"", crit$name, "\" with K-fold needs every row's predictions at ",
             "once: not available for ", kernel$name, "() fits; use leave-one-out")
  }
  pos <- which(weights > 0)
  draw <- draw_frequencies(kernel, ncol(x))
  if (needs_sigma(kernel)) kernel$params$sigma <- median_heuristic(x[pos, , drop = FALSE])
  sample_rows <- function(k) as.matrix(x[pos[sample.int(length(pos), k)], , drop = FALSE])
  landmarks <- choose_landmarks(kernel, sample_rows, length(pos), column_names(x), scale)
  classify <- resp$type == "classification"
  src <- memory_source(x, if (classify) decode_classes(resp$y, resp$classes) else resp$y,
                       weights, cv$folds, feature_block_rows(kernel$m, ncol(x)))
  template <- list(kind = "matrix", xnames = column_names(x), named = !is.null(colnames(x)),
                   type = resp$type, classes = resp$classes, y0 = resp$y[0L, , drop = FALSE],
                   multi = resp$multi)
  found <- search_features(src, template, resp, lambda, nlambda, intercept, crit, cv, kernel,
                           landmarks, draw, weights)
  fit <- new_rlsc(call, found$engine, found$path, crit, resp, weights, intercept, "primal",
                  x, scale, kernel = found$kernel, cv = cv)
  structure(fit, class = c("rlsc_features_fit", class(fit)))
}

# In-memory rows as a chunk source of row blocks, with their folds for K-fold.
memory_source <- function(x, y, weights, folds, chunk_rows) {
  read <- local_reader(function(chunk) {
    rows <- rows_of(chunk)
    list(x = x[rows, , drop = FALSE], y = if (is.null(dim(y))) y[rows] else y[rows, , drop = FALSE],
         weights = weights[rows], foldid = folds[rows])
  }, x = x, y = y, weights = weights, folds = folds)
  chunk_source(row_chunks(nrow(x), chunk_rows), read)
}

# rlsc(<chunk source>, kernel = nystrom(...) / random_features(...)), for both
# interfaces: the template is built (and the levels scanned) by the caller.
chunked_features <- function(src, template, call, lambda, nlambda, intercept, criterion,
                             standardize, cv, penalty_factor, kernel) {
  a <- check_chunked_args(template, lambda, nlambda, criterion, cv, standardize)
  check_penalty_factor(penalty_factor, NULL, kernel)
  d <- length(template$xnames)
  draw <- draw_frequencies(kernel, d)
  size <- max(if (kernel$name == "nystrom" && is.null(kernel$landmarks)) kernel$m,
              if (identical(kernel$landmarks, "kmeans")) 10 * kernel$m,
              if (needs_sigma(kernel)) 1000, 0)
  if (size > 0 || a$standardize) {
    first <- map_chunks(src, chunk_sample, merge_samples, template = template,
                        intercept = intercept, size = size,
                        seed = sample.int(.Machine$integer.max %/% 2L, 1L), moments = a$standardize,
                        what = "sampling")
    check_counts(sum(first$n), first$npos)
    if (a$standardize) {
      template$scale <- stats::setNames(scale_from_moments(first$mom, intercept), template$xnames)
    }
    picked <- first$x
    if (!is.null(template$scale)) picked <- scale_columns(picked, template$scale)
    if (needs_sigma(kernel)) kernel$params$sigma <- median_heuristic(picked)
    # the sample is ordered by its random keys: its first k rows are a uniform sample
    landmarks <- choose_landmarks(kernel, function(k) picked[seq_len(k), , drop = FALSE],
                                  first$npos, template$xnames, template$scale)
  } else {
    landmarks <- choose_landmarks(kernel, NULL, Inf, template$xnames)
  }
  found <- search_features(src, template, a$resp, a$lambda, a$nlambda, intercept, a$crit, a$cv,
                           kernel, landmarks, draw)
  x0 <- matrix(0, 0, d, dimnames = if (template$named) list(NULL, template$xnames))
  fit <- new_rlsc(call, found$engine, found$path, a$crit, a$resp, weights = NULL,
                  intercept = intercept, mode = "chunked", x = x0, scale = template$scale,
                  kernel = found$kernel, nobs = found$counts$n, npos = found$counts$npos,
                  cv = a$cv)
  structure(fit, class = c("rlsc_features_fit", class(fit)))
}

# The search over the kernel settings (fit_kernel()), each setting's engine
# built by the two passes over `src` with the setting's map in the template.
# With K folds, pass 1 keeps each fold's moments of the features, and the
# folds' held-out rows are evaluated as chunked fits do (chunked_kfold_table()),
# on the features themselves (the pass-1 template).
search_features <- function(src, template, resp, lambda, nlambda, intercept, crit, cv, kernel,
                            landmarks, draw, weights = NULL) {
  counts <- NULL
  nfold <- cv$K
  fold_moments <- features_template <- NULL
  engine_of <- function(kern) {
    template$features <- setting_map(kern, landmarks, draw)
    mom <- map_chunks(src, chunk_moments, merge_moments, template = template,
                      intercept = intercept, nfold = nfold, what = "reading (pass 1)")
    if (!is.null(nfold)) {
      fold_moments <<- mom$folds
      mom <- c(Reduce(merge_moments, mom$folds), mom[c("n", "npos", "chunk_sumw", "ymax")])
    }
    if (is.null(counts)) {
      check_counts(sum(mom$n), mom$npos)
      counts <<- list(n = sum(mom$n), npos = mom$npos)
    }
    features_template <<- template
    feature_engine(src, template, mom, intercept)
  }
  table_of <- function(eng, kern, lam) {
    if (is.null(nfold)) {
      # the AUC or a user's criterion read the rows' weights from the engine
      if (needs_values(crit)) eng$w <- weights
      return(loo_table(eng, resp, lam, crit))
    }
    eng$source$template <- features_template
    chunked_kfold_table(eng, fold_moments, intercept, lam, crit)
  }
  found <- fit_kernel(NULL, resp, NULL, lambda, nlambda, intercept, crit, cv, kernel,
                      keep_eigen = TRUE, engine_of = engine_of, table_of = table_of)
  chosen <- found$kernel$kernel
  rbf <- identical(chosen$base, "rbf") || chosen$name == "random_features"
  found$kernel$sigma_min <- if (rbf) chosen$params$sigma
  found$kernel$features <- found$engine$source$template$features
  found$counts <- counts
  found
}

check_counts <- function(n, npos) {
  if (n < 2) stop_arg("the chunks must hold at least 2 rows, not ", n)
  if (npos < 2) stop_arg("the weights must be positive for at least 2 observations, not ", npos)
}

# The sampling pass of a chunk source: the row counts, the moments of x when
# `standardize` needs them, and a uniform sample of `size` rows of positive
# weight.  Every row gets a uniform random key, from a stream seeded by `seed`
# and the chunk's number (so the sample does not depend on the backend, nor on
# how chunks are grouped into tasks), and the sample is the `size` rows of
# smallest key, merged across chunks (merge_samples()).
chunk_sample <- function(data, i, template, intercept, size, seed, moments) {
  rows <- chunk_rows(data, template)
  n <- nrow(rows$x)
  keys <- with_seed(seed + i, stats::runif(n))
  pos <- which(rows$w > 0)
  take <- pos[order(keys[pos])][seq_len(min(size, length(pos)))]
  list(n = n + 0, npos = length(pos), size = size, keys = keys[take],
       x = as.matrix(rows$x[take, , drop = FALSE]),
       mom = if (moments) chunk_moments(data, i, template, intercept))
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
