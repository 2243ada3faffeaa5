# Small helpers shared by the whole package.

`%||%` <- function(a, b) if (is.null(a)) b else a

# Errors about arguments, in one style: lower case, the argument in
# backquotes, what was expected and what was got, no call.
stop_arg <- function(...) stop(paste0(...), call. = FALSE)

describe <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.matrix(x)) return(paste(typeof(x), "matrix"))
  if (is.factor(x)) return("a factor")
  cls <- class(x)[1]
  if (cls %in% c("numeric", "integer", "character", "logical", "complex")) {
    return(paste(typeof(x), "vector"))
  }
  paste("an object of class", sQuote(cls, FALSE))
}

all_finite <- function(x) {
  # one pass in C for doubles; range() is NA when any element is NA and
  # infinite when any is infinite, and allocates nothing of the size of x
  if (is.double(x)) return(is.finite(c_abs_max(x)))
  !length(x) || all(is.finite(suppressWarnings(range(x))))
}

check_no_dots <- function(...) {
  if (!...length()) return(invisible())
  nms <- dots_names(...) %||% character(...length())
  nms[nms == ""] <- "an unnamed argument"
  stop_arg("unknown argument(s): ", paste(nms, collapse = ", "))
}

# The names of `...` without evaluating it (NULL when none is named).
dots_names <- function(...) names(substitute(list(...)))[-1L]

# The memory budgets, in one place: how many numbers (doubles, 8 bytes) a
# piece of work may hold at once, where work is cut into batches of lambdas
# or blocks of rows by its size, and how large garbage must be for a
# collection of R's heap to be worth its time.
budgets <- list(
  # the kept values of a batch of lambdas (rows x columns x lambdas): the
  # criteria of the values (criteria.R), the calibration's held-out values
  # (calibrate.R), the leave-pair-out AUC's rows' 1 - h and residuals (two
  # such matrices, auc.R): 80 MB
  values = 1e7,
  # a dual engine's coefficients at a block of lambdas (engine.R): 128 MB
  coefficients = 2^24,
  # the features of a block of rows of a feature map (features.R): 32 MB
  features = 2^22,
  # the held-out rows' products formed as x (V G) (path.R,
  # heldout_products()): 64 MB, about three such temporaries with sparse x
  products = 2^23,
  # the folds' moments merged for all folds at once rather than one fold
  # at a time (kfold.R, fold_engines()): 128 MB
  fold_moments = 2^24,
  # the held-out rows' coordinates in their folds' eigenbases that blocks of
  # response columns keep for each other (kfold.R, heldout_basis()): 64 MB
  fold_bases = 2^23,
  # a fold's d x T cross-products that are worth a collection of the young
  # generation before the next fold (kfold.R, fold_collect()): 8 MB
  fold_garbage = 2^20,
  # pass 1's S_xy worth a full collection before the evaluation
  # (fit_model.R): 64 MB
  moments_garbage = 2^23,
  # bytes (not numbers) of a banded search's group kernels and its cache of
  # candidates' engines: the default of options(rlsc.band_memory) (bands.R)
  band_bytes = 5e8
)

# The bytes a banded search may hold: options(rlsc.band_memory), else the
# budget.
band_memory <- function() getOption("rlsc.band_memory", budgets$band_bytes)

# rep(x, each = k) for one count k: rep()'s `each` takes about 8 ns an
# element in R 4.2 (a 100 x 100 grid of Lambda_k + lambda: 80 us of a
# 1000 x 100 fit's 8 ms), rep.int() with a vector of counts a quarter of
# that.  No names (operands of matrices, whose attributes win anyway).
rep_each <- function(x, k) if (is.null(x)) NULL else rep.int(x, rep.int(k, length(x)))

column_names <- function(x) colnames(x) %||% sprintf("x%d", seq_len(ncol(x)))

# The names of the response columns of `y` (a matrix): its column names, y<j>
# for a column without one (cbind() of a named and an unnamed column), made
# unique as make.unique() does (a, a.1), so that every output names each
# column apart (criterion_labels() builds on these).
response_names <- function(y) {
  names <- colnames(y)
  if (is.null(names)) return(paste0("y", seq_len(ncol(y))))
  empty <- is.na(names) | names == ""
  names[empty] <- paste0("y", which(empty))
  make.unique(names)
}

# "`a`, `b`, `c`" for up to `max` names, then "and 7 more".
name_list <- function(x, max = 6L) {
  shown <- paste0("`", utils::head(x, max), "`", collapse = ", ")
  if (length(x) > max) paste0(shown, " and ", length(x) - max, " more") else shown
}

is_sparse <- function(x) inherits(x, "sparseMatrix")

# "1 lambda value", "2 lambda values".
count_of <- function(n, what, plural = paste0(what, "s")) {
  paste(n, if (n == 1) what else plural)
}
