# Multiple-kernel ridge (`bands` with an RBF or polynomial kernel) and the
# dual banded search: the kernel of each group's columns, and a candidate's
# kernel as their weighted sum.

# The dual search's linear kernel of each group's columns over all rows
# (standardized, moved by the origin of all rows as dual_engine() moves
# them), so that a candidate's kernel is their weighted sum, n^2 operations
# per group instead of n^2 d for the kernel of its rescaled columns.  NULL
# (each candidate's kernel from its columns) when they would take more than
# options(rlsc.band_memory) bytes.
# With a kernel of another family (multiple-kernel ridge), that kernel of
# each group's columns, moved as kernel_origin() moves its rows.
group_kernels <- function(rows, bands, sd, intercept, kernel = kernel_linear()) {
  x <- rows$x
  ng <- length(bands$names)
  if (8 * ng * as.double(nrow(x))^2 > band_memory()) return(NULL)
  origin <- kernel_origin(kernel, x, rows$y, rows$w, intercept)
  scale <- sd %||% rep(1, ncol(x))
  k <- lapply(seq_len(ng), function(g) {
    cols <- which(bands$group == g)
    if (is_sparse(x)) return(as.matrix(Matrix::tcrossprod(scale_columns(x[, cols, drop = FALSE], scale[cols]))))
    group_kernel(kernel, x, NULL, cols, origin$shift, origin$center, scale)
  })
  list(k = k, shift = origin$shift, center = origin$center)
}

# The kernel of the columns `cols` between rows x and z (z = NULL: x), the
# rows moved by shift + center and the columns divided by `scale`.
group_kernel <- function(kernel, x, z, cols, shift, center, scale) {
  c_kernel_matrix(x[, cols, drop = FALSE], if (!is.null(z)) z[, cols, drop = FALSE], kernel$name,
                  kernel_params(kernel), shift[cols], center[cols], scale[cols])
}

# sum_g w_g K_g(x_g, z_g) over the groups of positive weight: a multiple-kernel
# candidate's kernel between rows x and z, group by group.
weighted_kernel <- function(kernel, group, w, x, z, shift, center, scale) {
  pos <- which(w > 0)
  Reduce(`+`, lapply(pos, function(g) {
    w[g] * group_kernel(kernel, x, z, which(group == g), shift, center, scale)
  }))
}

# Multiple-kernel candidate w as the dual engine takes it: the family's
# kernel with the weighted sum of the group kernels over all rows as `gram`
# (from the group kernels when formed, else group by group) and the weights
# as `bands`, by which dual_cross() gives new rows the same kernel.
band_kernel <- function(kernel, bands, w, rows, sd, intercept, groups = NULL) {
  kernel$gram <- if (!is.null(groups)) candidate_gram(groups, w) else {
    origin <- kernel_origin(kernel, rows$x, rows$y, rows$w, intercept)
    list(k = weighted_kernel(kernel, bands$group, w, rows$x, NULL, origin$shift, origin$center,
                             sd %||% rep(1, ncol(rows$x))),
         shift = origin$shift, center = origin$center)
  }
  kernel$bands <- list(group = bands$group, weights = unname(w))
  kernel
}

# Candidate w's kernel from the group kernels: sum_g w_g K_g over its groups
# of positive weight (the weights sum to 1: there is one).
candidate_gram <- function(groups, w) {
  pos <- which(w > 0)
  list(k = Reduce(`+`, Map(`*`, w[pos], groups$k[pos])), shift = groups$shift, center = groups$center)
}
