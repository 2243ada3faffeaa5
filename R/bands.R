# Banded ridge's arguments: the group of each column, the candidate weights
# (given or drawn), and each candidate's column multipliers.

# `bands` (one group per column, per term of a formula, or a list of the
# columns of each group), `band_weights` or `n_candidates`: the group of each
# column and the candidates (rows) x groups (columns).
check_bands <- function(args, xnames, assign, kernel, pf) {
  bands <- args$bands
  if (is.null(bands)) {
    for (a in intersect(args$given, c("band_weights", "n_candidates"))) {
      stop_arg("`", a, "` needs `bands` (the group of each column)")
    }
    return(NULL)
  }
  if (!is.null(kernel)) check_band_kernel(kernel)
  if (!is.null(pf)) {
    stop_arg("`bands` and `penalty_factor` both set the penalty of each column: give one of them")
  }
  group <- band_groups(bands, xnames, assign)
  names <- levels(group)
  candidates <- if (!is.null(args$band_weights)) {
    check_band_weights(args$band_weights, names)
  } else {
    draw_candidates(names, check_count(args$n_candidates, "n_candidates"))
  }
  list(group = as.integer(group), names = names, candidates = candidates)
}

# The kernel of multiple-kernel ridge (`bands` with a kernel): one kernel of
# the family per group, on that group's columns.  The built-in RBF and
# polynomial kernels with one value of each parameter: a candidate is a
# weighting of the group kernels, and crossing it with parameter settings
# would multiply the candidates; a precomputed kernel has no columns to
# group, and a Nystrom or random-feature kernel is primal on its own features.
check_band_kernel <- function(kernel) {
  if (!kernel$name %in% c("rbf", "polynomial") || inherits(kernel, "rlsc_features")) {
    stop_arg("`bands` needs the linear kernel (banded ridge), an RBF or a polynomial kernel ",
             "(one kernel per group: multiple-kernel ridge), not ", format(kernel))
  }
  if (kernel$name == "rbf" && is.null(kernel$params$sigma)) {
    stop_arg("`bands` with an RBF kernel needs one value of `sigma`, such as kernel_rbf(1), ",
             "not the median heuristic")
  }
  if (any(lengths(kernel$params) != 1L)) {
    stop_arg("`bands` with a kernel needs one value of each kernel parameter (the candidates ",
             "are the group weights), not ", format(kernel), "; fit each value apart")
  }
}

# The group of each column as a factor (its levels the groups, in order).
band_groups <- function(bands, xnames, assign) {
  d <- length(xnames)
  if (is.list(bands) && !is.data.frame(bands)) {
    label <- names(bands) %||% paste0("band", seq_along(bands))
    label[label == ""] <- paste0("band", seq_along(bands))[label == ""]
    if (anyDuplicated(label)) {
      stop_arg("`bands` must name each group once; ", name_list(unique(label[duplicated(label)])),
               " names more than one: put their columns in one group or give the groups ",
               "different names")
    }
    group <- rep(NA_integer_, d)
    for (g in seq_along(bands)) {
      cols <- bands[[g]]
      twice <- if (is.character(cols)) intersect(cols, xnames[duplicated(xnames)])
      if (length(twice)) {
        stop_arg("`bands` names columns by name, but `x` has more than one column named ",
                 name_list(twice), " (columns ", paste(which(xnames == twice[1L]), collapse = ", "),
                 "): give the columns of each group by number")
      }
      idx <- if (is.character(cols)) match(cols, xnames) else if (is.numeric(cols)) {
        ifelse(cols >= 1 & cols <= d & cols == round(cols), cols, NA)
      } else {
        NA
      }
      if (!length(cols) || anyNA(idx)) {
        stop_arg("`bands` as a list must hold column names or numbers of `x` (1 to ", d,
                 ") for each group; group ", sQuote(label[g], FALSE), " has ",
                 if (!length(cols)) "none" else {
                   paste("unknown ones:", name_list(as.character(cols[is.na(idx)])))
                 })
      }
      if (any(!is.na(group[idx]))) {
        stop_arg("`bands` must put each column in one group; ",
                 name_list(xnames[idx[!is.na(group[idx])]]), " are in two")
      }
      group[idx] <- g
    }
    if (anyNA(group)) {
      stop_arg("`bands` must put every column of `x` in a group; ", name_list(xnames[is.na(group)]),
               " are in none")
    }
    return(factor(label[group], levels = unique(label)))
  }
  if (!is.atomic(bands) || !is.null(dim(bands)) || anyNA(bands)) {
    stop_arg("`bands` must be a vector giving the group of each column of `x` (or a list of ",
             "the columns of each group), without NA, not ", describe(bands))
  }
  nterms <- if (!is.null(assign)) max(assign, 0L)
  if (length(bands) != d) {
    if (is.null(nterms) || length(bands) != nterms) {
      stop_arg("`bands` must give the group of each of the ", d, " columns of `x`",
               if (!is.null(nterms)) paste0(" or of each of the ", nterms, " terms of the formula"),
               ", not ", length(bands), " values")
    }
    bands <- bands[assign]   # the group of each column is its term's
  }
  # groups in the order of the factor's levels, else of first appearance
  if (is.factor(bands)) droplevels(bands) else factor(bands, levels = unique(bands))
}

# A user's matrix of candidates (rows) x groups: non-negative, each row
# summing to 1 (to 1e-6; rescaled to 1 exactly), columns matched by name
# when named.
check_band_weights <- function(w, names) {
  g <- length(names)
  if (is.data.frame(w)) w <- as.matrix(w)
  if (is.numeric(w) && is.null(dim(w)) && length(w) == g) w <- matrix(w, 1L)
  if (!is.numeric(w) || !is.matrix(w) || ncol(w) != g || !nrow(w)) {
    stop_arg("`band_weights` must be a matrix of candidates (rows) by the ", g, " groups of ",
             "`bands` (columns), not ",
             if (is.matrix(w)) paste(nrow(w), "x", ncol(w)) else describe(w))
  }
  if (!is.null(colnames(w))) {
    if (!setequal(colnames(w), names)) {
      stop_arg("the columns of `band_weights` must be named by the groups of `bands` (",
               name_list(names), "), not ", name_list(colnames(w)))
    }
    w <- w[, names, drop = FALSE]
  }
  storage.mode(w) <- "double"
  if (!all_finite(w) || any(w < 0)) stop_arg("`band_weights` must be finite and non-negative")
  total <- rowSums(w)
  off <- which(abs(total - 1) > 1e-6)
  if (length(off)) {
    stop_arg("each row of `band_weights` (a candidate) must sum to 1; row ", off[1L], " sums to ",
             format(total[off[1L]], digits = 8))
  }
  w <- w / total
  dimnames(w) <- list(NULL, names)
  w
}

# himalaya's random search: the equal weighting, each group alone, then
# Dirichlet samples of concentrations 0.1 and 1 in turn (reproducible under
# set.seed()); `n` candidates in all.
draw_candidates <- function(names, n) {
  g <- length(names)
  fixed <- if (g == 1L) matrix(1, 1L, 1L) else rbind(rep(1 / g, g), diag(g))
  k <- if (g == 1L) 0L else max(n - nrow(fixed), 0L)
  drawn <- matrix(vapply(rep_len(c(0.1, 1), k), function(a) {
    repeat {   # all g draws underflowing to 0 (shape 0.1) is all but impossible
      x <- stats::rgamma(g, a)
      if (sum(x) > 0) return(x / sum(x))
    }
  }, numeric(g)), g)
  w <- rbind(fixed, t(drawn))[seq_len(min(n, nrow(fixed) + k)), , drop = FALSE]
  dimnames(w) <- list(NULL, names)
  w
}

# The column multipliers of candidate w: those of standardize (`sd`) divided
# by sqrt(w_g); Inf leaves a group of weight 0 out.  Their attribute `graded`
# (graded_bands()) tells primal_engine() which decomposition to take.
band_scale <- function(bands, w, sd = NULL) {
  structure((sd %||% 1) / sqrt(w[bands$group]), graded = bands$graded)
}

# Whether the primal engines of a banded fit take graded_eigen() (primal.R):
# where some candidate's scaled Gram may be conditioned beyond
# reliability()'s 1e9 at the smallest lambda of the grid, which the
# eigendecomposition of that Gram cannot resolve.  The bound: with the
# unweighted Gram's extreme eigenvalues (`values`, of the standardized
# columns), candidate w's Gram has eigenvalues between min(w) Lambda_r and
# max(w) Lambda_1 (its positive weights; a group of weight 0 leaves the
# model).  A band of tiny weight matters where lambda / w_g is of the order
# of its eigenvalues, and then the plain decomposition has lost its
# directions; elsewhere it is accurate and twice as fast.
graded_bands <- function(values, candidates, lambda) {
  if (!length(values)) return(FALSE)
  w <- candidates
  w[w == 0] <- NA
  lo <- apply(w, 1L, min, na.rm = TRUE)
  hi <- apply(w, 1L, max, na.rm = TRUE)
  any(hi * max(values) > 1e9 * (lo * min(values) + min(lambda)))
}
