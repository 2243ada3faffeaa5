# Step 1 of the primal engine (DESIGN.md, section 3): per block of rows, the
# sum of weights, the weighted means and the centered co-moments S_xx = A'A
# and S_xy, merged across blocks, folds and chunks by the pairwise update of
# Chan, Golub and LeVeque.  One code path for data in memory (one block),
# chunks, folds and the features of Nystrom and random-feature kernels.
#
# The moments are those of the rows moved by `shift`, a representative row of
# the block (its first row of positive weight): for a column with a large
# common offset x - shift is exact, so the means are rounded relative to the
# columns' spread, not to their offset, and the engine centers rows the same
# way (c_project()).  Blocks with different shifts merge exactly: the merge
# moves one block's means to the other's shift first.  Without an intercept
# the moments are raw (shift 0, nothing centered) and add.
#
# A moments object: sumw, shift, xbar (mean of x - shift), yshift, ybar, sxx
# (d x d, or its diagonal with gram = FALSE), sxy (d x T), xmax (largest |x|
# per column over rows of positive weight), raw (sparse x: the diagonal of the
# raw weighted cross-products, for raw_noise()), and counts: nrows, npos (rows
# of positive weight), ymax (largest |y|), wmax (largest weight), and per chunk
# (named by chunk) n and chunk_sumw, which pass 2 checks again.

# The moments of a block of rows: of dense x's rows `take` (NULL: all of
# x; fold_rows()), read by number in C, whose own y and w are given.
block_moments <- function(x, y, w, intercept, gram = TRUE, take = NULL) {
  mom <- if (is_sparse(x)) sparse_moments(x, y, w, intercept, gram) else {
    first <- match(TRUE, w > 0)
    if (intercept && !is.na(first)) {
      shift <- x[if (is.null(take)) first else take[first], ]
      yshift <- y[first, ]
    } else {
      shift <- numeric(ncol(x))
      yshift <- numeric(ncol(y))
    }
    mom <- c_moments(x, y, w, if (intercept) shift, if (intercept) yshift, gram, take)
    mom$shift <- shift
    mom$yshift <- yshift
    mom
  }
  mom$nrows <- length(w) + 0
  mom$npos <- sum(w > 0)
  mom$ymax <- max_abs(y)
  mom$wmax <- if (length(w)) max(w) else 0
  mom
}

# The moments of sparse x from its raw cross-products minus the rank-one mean
# terms, so that x is never densified: exact in exact arithmetic and accurate
# whenever the column means are not large against the columns' spread, the
# usual situation for sparse data (raw_noise() bounds the error otherwise).
sparse_moments <- function(x, y, w, intercept, gram = TRUE) {
  sw <- sum(w)
  xbar <- if (intercept && sw > 0) as.vector(Matrix::crossprod(x, w)) / sw else numeric(ncol(x))
  ybar <- if (intercept && sw > 0) colSums(w * y) / sw else numeric(ncol(y))
  sx <- Matrix::Diagonal(x = sqrt(w)) %*% x
  xp <- x[w > 0, , drop = FALSE]
  xmax <- numeric(ncol(x))
  nz <- diff(xp@p)
  xmax[nz > 0] <- vapply(split(abs(xp@x), rep.int(seq_len(ncol(x)), nz)), max, 0)
  raw <- if (gram) as.matrix(Matrix::crossprod(sx)) else Matrix::colSums(sx^2)
  sxx <- if (gram) raw - sw * tcrossprod(xbar) else raw - sw * xbar^2
  list(sumw = sw, shift = numeric(ncol(x)), xbar = xbar, yshift = numeric(ncol(y)), ybar = ybar,
       sxx = sxx, sxy = as.matrix(Matrix::crossprod(x, w * sweep(y, 2L, ybar))), xmax = xmax,
       raw = if (gram) diag(raw) else raw)
}

# The pairwise update of two blocks' moments (associative: blocks, chunks and
# folds merge in any order).  b's means are first moved to a's shift; the
# difference of two shifts of the same data is exact.
merge_moments <- function(a, b) {
  if (!is.null(a$folds)) {
    out <- merge_counts(a, b)
    out$folds <- Map(merge_moments, a$folds, b$folds)
    return(out)
  }
  out <- if (a$sumw > 0 || !(b$sumw > 0)) a else b
  w <- a$sumw + b$sumw
  if (a$sumw > 0 && b$sumw > 0) {
    dx <- ((b$shift - a$shift) + b$xbar) - a$xbar
    dy <- ((b$yshift - a$yshift) + b$ybar) - a$ybar
    f <- a$sumw * b$sumw / w
    out$xbar <- a$xbar + dx * (b$sumw / w)
    out$ybar <- a$ybar + dy * (b$sumw / w)
    out[c("sxx", "sxy")] <- c_merge_moments(a$sxx, b$sxx, a$sxy, b$sxy, dx, dy, f)
    if (!is.null(a$raw)) out$raw <- a$raw + b$raw
  }
  out$sumw <- w
  out$xmax <- pmax(a$xmax, b$xmax)
  merge_counts(a, b, out)
}

# The counts of two merged parts.
merge_counts <- function(a, b, out = list()) {
  out$n <- c(a$n, b$n)
  out$chunk_sumw <- c(a$chunk_sumw, b$chunk_sumw)
  for (k in c("nrows", "npos")) out[[k]] <- a[[k]] + b[[k]]
  for (k in c("ymax", "wmax")) out[[k]] <- max(a[[k]], b[[k]])
  out
}

# The moments of one chunk's rows (or, for K folds, one set per fold), with
# the chunk's counts.  `kfold` FALSE (the first pass of a fit without folds):
# folds that read() gives are an error, not silently ignored.
chunk_moments <- function(rows, i, intercept, nfold = NULL, gram = TRUE, kfold = NA) {
  if (isFALSE(kfold) && !is.null(rows$fold)) {
    stop("read() gives `foldid`, which asks for K-fold cross-validation over the chunks' folds: ",
         "give `cv` = K, the number of folds")
  }
  mom <- if (is.null(nfold)) block_moments(rows$x, rows$y, rows$w, intercept, gram) else {
    fold <- row_folds(rows, i, nfold)
    parts <- lapply(seq_len(nfold), function(k) {
      part <- fold_rows(rows, which(fold == k))
      block_moments(part$x, part$y, part$w, intercept, gram, part$take)
    })
    # (the folds' counts merged: no moments of all folds, which pass 1 merges)
    c(counts_of(Reduce(merge_counts, parts)), list(folds = parts))
  }
  mom$n <- stats::setNames(nrow(rows$x) + 0, i)
  mom$chunk_sumw <- stats::setNames(sum(rows$w), i)
  mom
}

# The moments of every fold merged, with the counts of the whole pass.
merge_folds <- function(mom) {
  all <- Reduce(merge_moments, mom$folds)
  c(all[setdiff(names(all), count_fields)], counts_of(mom))
}

count_fields <- c("n", "chunk_sumw", "nrows", "npos", "ymax", "wmax")

counts_of <- function(mom) mom[intersect(count_fields, names(mom))]

# The column scales of standardize = TRUE: weighted standard deviations
# (normalized by the sum of weights), from merged moments.  Constant columns
# (up to rounding) keep scale 1: scaling their rounding noise up to unit
# variance would invent a signal.
scale_from_moments <- function(mom) {
  v <- (if (is.matrix(mom$sxx)) diag(mom$sxx) else mom$sxx) / mom$sumw
  s <- sqrt(v)
  mean_sq <- v + (mom$shift + mom$xbar)^2
  s[!(s > 1e-10 * sqrt(mean_sq))] <- 1
  s
}

# The moments of the columns divided by `s` (exact up to rounding).
scale_moments <- function(mom, s) {
  mom$sxx <- mom$sxx / (if (is.matrix(mom$sxx)) tcrossprod(s) else s^2)
  if (!is.null(mom$sxy)) mom$sxy <- mom$sxy / s
  mom$xbar <- mom$xbar / s
  mom$shift <- mom$shift / s
  mom$xmax <- mom$xmax / s
  if (!is.null(mom$raw)) mom$raw <- mom$raw / s^2
  mom
}

scale_columns <- function(x, s) {
  if (!is_sparse(x)) return(x / rep_each(s, nrow(x)))
  out <- x %*% Matrix::Diagonal(x = 1 / s)
  dimnames(out) <- dimnames(x)   # the product drops the column names
  out
}
