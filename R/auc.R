# The AUC that chooses lambda (criterion = "auc", two classes).  With LOO it
# is the exact leave-pair-out AUC (Airola et al. 2011, who show that the AUC
# of pooled LOO values, from n different models, is biased and misranks
# lambdas; Pahikkala et al. 2008 derive the pair formula for RLS): for each
# (positive, negative) pair, the decision values at both rows of the fit
# without both, from the 2 x 2 block of the hat matrix at each lambda
# (src/auc.c), the pairs weighted by w_i w_j, ties (tie_tolerance()) half.  Every pair when there are at
# most `max_pairs`, else a uniform sample of that many pairs (with
# replacement), drawn with a fixed seed from the rows' order, so that the
# same data give the same sample in memory and in chunks and the user's
# random numbers are left alone; print() says so.  With K-fold it is the mean
# of the folds' AUCs weighted by fold size, as cv.glmnet computes it
# (criteria.R, kfold.R).

max_pairs <- 1e6
pair_seed <- 20221L

# The leave-pair-out AUC over `lambda` of an engine and its data: list(auc,
# se) with attribute "pairs" (the pairs there are, those used, sampled or
# not).  The standard error is Hanley and McNeil's from the counts of each
# class.
lpo_auc <- function(eng, data, lambda) {
  set <- pair_set(eng, data)
  npos <- length(set$pos)
  nneg <- length(set$neg)
  total <- as.double(npos) * nneg
  if (!npos || !nneg) {
    stop_arg("`criterion` = \"auc\" needs rows of both classes with positive weight")
  }
  # batches of lambda, so that the rows' 1 - h and residuals (two matrices)
  # stay within the budget of values
  batch <- max(1L, floor(budgets$values / 2 / max(nrow(set$p), 1)))
  sums <- NULL
  ties <- NULL
  for (b in split(seq_along(lambda), ceiling(seq_along(lambda) / batch))) {
    out <- set$path(lambda[b])
    # the values' scale at each lambda: the spread of the fit's values at the rows
    fitted <- set$y - out$e
    tie <- tie_tolerance(apply(fitted, 2L, min), apply(fitted, 2L, max))
    part <- c_lpo_auc(p = set$p, z = set$z, values = eng$values, lambda = lambda[b], a = out$a,
                      e = out$e, y = set$y, w = set$w, pi = set$pi, pj = set$pj,
                      enumerate = set$enumerate, tie = ifelse(is.na(tie), 0, tie))
    sums <- rbind(sums, part)
    ties <- c(ties, tie)
  }
  # undefined where a pair's fit is, or the values are not resolved from rounding
  auc <- ifelse(sums[, 3L] > 0 | !(sums[, 2L] > 0) | is.na(ties), NA_real_, sums[, 1L] / sums[, 2L])
  structure(list(auc, hanley_mcneil_se(auc, npos, nneg)),
            pairs = list(total = total, used = if (set$enumerate) total else as.double(max_pairs),
                         sampled = !set$enumerate))
}

# Hanley and McNeil's (1982) standard error of an AUC `a` from n1 positives
# and n0 negatives.
hanley_mcneil_se <- function(a, n1, n0) {
  q1 <- a / (2 - a)
  q2 <- 2 * a^2 / (1 + a)
  # (the terms are non-negative; at a = 1 their sum rounds to -eps)
  sqrt(pmax(a * (1 - a) + (n1 - 1) * (q1 - a^2) + (n0 - 1) * (q2 - a^2), 0) / (n1 * n0))
}

# The rows the pairs need, in the form src/auc.c takes them: p (m x r, the
# eigenbasis coordinates times sqrt(w)), z (the lambda-free part), y (the
# decision column, -1/+1), w, the pairs (`pi`, `pj` indices into the rows:
# with `enumerate`, the positives and negatives of every pair), and
# path(lambda) giving 1 - h and the residuals at the rows (m x L each).
pair_set <- function(eng, data) UseMethod("pair_set")

# A dual engine's rows from its own basis.
#' @export
#' @noRd
pair_set.rlsc_dual <- function(eng, data) {
  y <- all_rows(data)$y[, 1L]
  rows <- which(eng$w > 0)
  s <- sqrt(eng$w)
  # complement rows hold U (p = U sqrt(Lambda)); direct rows B (p = s B)
  p <- eng$basis
  comp <- !eng$direct
  p[comp, ] <- p[comp, , drop = FALSE] * rep_each(sqrt(eng$values), sum(comp))
  p[!comp, ] <- s[!comp] * p[!comp, , drop = FALSE]
  z <- if (eng$intercept) matrix(s / sqrt(eng$sumw)) else matrix(0, length(s), 0L)
  path <- function(l) {
    out <- engine_path(eng, data, l, classify = TRUE, keep = TRUE)
    list(a = out$omh[rows, , drop = FALSE],
         e = y[rows] - matrix(out$fitted[rows, 1L, ], length(rows)))
  }
  set <- list(p = p[rows, , drop = FALSE], z = z[rows, , drop = FALSE], y = y[rows],
              w = eng$w[rows], path = path)
  c(set, choose_pairs(set$y > 0, set$y < 0))
}

# A primal engine's from the rows the pairs need, read and projected
# (gather_pair_rows()).
#' @export
#' @noRd
pair_set.rlsc_primal <- function(eng, data) {
  picked <- gather_pair_rows(data)
  rows <- picked$rows
  s <- sqrt(rows$w)
  p <- s * project_rows(rows$x, eng)
  z <- cbind(if (eng$intercept) s / sqrt(eng$sumw),
             if (!is.null(eng$free_map)) s * project_rows(rows$x, eng, eng$free_map))
  if (is.null(z)) z <- matrix(0, length(s), 0L)
  y <- rows$y[, 1L]
  path <- function(l) {
    out <- row_path(primal_rows(eng, rows), eng, l, TRUE, TRUE, data$unit)
    list(a = out$omh[[1L]], e = y - matrix(out$fitted[[1L]][, 1L, ], length(y)))
  }
  list(p = p, z = z, y = y, w = rows$w, path = path, pi = picked$pi, pj = picked$pj,
       enumerate = picked$enumerate, pos = picked$pos, neg = picked$neg)
}

# The pairs of positives and negatives (logical vectors over the rows, in the
# data's order): every pair, or a uniform sample of max_pairs pairs drawn with
# the package's seed.
choose_pairs <- function(pos, neg) {
  ip <- which(pos)
  ineg <- which(neg)
  sample <- sample_pairs(length(ip), length(ineg))
  if (is.null(sample)) {
    return(list(pi = ip, pj = ineg, enumerate = TRUE, pos = ip, neg = ineg))
  }
  list(pi = ip[sample$i], pj = ineg[sample$j], enumerate = FALSE, pos = ip, neg = ineg)
}

# NULL when the npos x nneg pairs are few enough to use them all, else the
# positive and negative numbers (1-based) of max_pairs pairs drawn uniformly
# with replacement under the package's seed, the user's random numbers
# restored afterwards.
sample_pairs <- function(npos, nneg) {
  if (as.double(npos) * nneg <= max_pairs) return(NULL)
  with_seed(pair_seed, list(i = sample.int(npos, max_pairs, replace = TRUE),
                            j = sample.int(nneg, max_pairs, replace = TRUE)))
}

# The rows of the pairs of a primal engine's data, read in two passes (one
# for the data in memory): the counts of positive and negative rows of
# positive weight per block, then the rows of the pairs chosen (every row of
# positive weight, or those of the sampled pairs); pi, pj index the rows
# returned.
gather_pair_rows <- function(data) {
  counts <- map_rows(data, block_pair_counts, c, what = "counting the classes of")
  counts <- do.call(rbind, counts)
  npos <- sum(counts[, 1L])
  nneg <- sum(counts[, 2L])
  sample <- sample_pairs(npos, nneg)
  want_pos <- if (is.null(sample)) seq_len(npos) else sort(unique(sample$i))
  want_neg <- if (is.null(sample)) seq_len(nneg) else sort(unique(sample$j))
  offsets <- rbind(0, apply(counts, 2L, cumsum))[seq_len(nrow(counts)), , drop = FALSE]
  parts <- map_rows(data, block_pair_rows, c, offsets = offsets, want_pos = want_pos,
                    want_neg = want_neg, what = "reading the pairs of")
  rows <- list(x = do.call(rbind, lapply(parts, `[[`, "x")),
               y = do.call(rbind, lapply(parts, `[[`, "y")),
               w = unlist(lapply(parts, `[[`, "w")))
  id <- unlist(lapply(parts, `[[`, "id"))
  pos <- match(want_pos, id)
  neg <- match(-want_neg, id)
  if (is.null(sample)) {
    return(list(rows = rows, pi = pos, pj = neg, enumerate = TRUE, pos = pos, neg = neg))
  }
  list(rows = rows, pi = match(sample$i, id), pj = match(-sample$j, id), enumerate = FALSE,
       pos = seq_len(npos), neg = seq_len(nneg))
}

# The positive and negative rows of positive weight of block i.
block_pair_counts <- function(rows, i) {
  on <- rows$w > 0
  list(c(sum(on & rows$y[, 1L] > 0), sum(on & rows$y[, 1L] < 0)))
}

# The rows of block i that the pairs want, with their numbers among the
# positive (id > 0) and negative (id < 0) rows of positive weight.
block_pair_rows <- function(rows, i, offsets, want_pos, want_neg) {
  on <- rows$w > 0
  gpos <- offsets[i, 1L] + cumsum(on & rows$y[, 1L] > 0)
  gneg <- offsets[i, 2L] + cumsum(on & rows$y[, 1L] < 0)
  take_pos <- which(on & rows$y[, 1L] > 0 & gpos %in% want_pos)
  take_neg <- which(on & rows$y[, 1L] < 0 & gneg %in% want_neg)
  take <- c(take_pos, take_neg)
  list(list(x = rows$x[take, , drop = FALSE], y = rows$y[take, , drop = FALSE], w = rows$w[take],
            id = c(gpos[take_pos], -gneg[take_neg])))
}
