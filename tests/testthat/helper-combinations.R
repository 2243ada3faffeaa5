# The combination matrix of test-combinations.R: every data source x every
# option x every method x every output, generated from ONE table.  A cell is a
# choice of one level on each axis of `combination_axes`; a new level (a new
# source, option value or method) joins every generated cell by itself.  Each
# cell either
#   * equals the dense in-memory fit of the same data (the same design matrix
#     and response, `rlsc(x, y, ...)`) in every output to 1e-9 relative, the
#     dense fit itself being checked against the brute-force definitions of
#     `combination_brute()` (refits without each row or fold, the hat matrix
#     of the normal equations); or
#   * ends, on every source alike, in the documented error of a rule of
#     `combination_rules`, which names the argument (or the fold).
# An internal message (an R error or warning with a call, a C error,
# "non-conformable", "subscript" and the like) fails the cell either way.
# The brute-force definitions encode today's documented semantics (GCV's
# degrees of freedom without the intercept, the LOO AUC of the LOO decision
# values): a change of those semantics changes `combination_brute()` only.

# ---- the one table -----------------------------------------------------------

combination_axes <- list(
  source = c("dense", "sparse", "formula", "chunk_dense", "chunk_sparse", "files_rds",
             "files_csv", "database"),
  kernel = c("linear", "nystrom", "random_features"),
  shape = c("tall", "wide"),            # n > d (primal) and d > n (dual for the linear kernel)
  response = c("numeric", "multi", "binary", "multiclass"),
  weights = c("none", "zeros"),         # zeros: a whole fold and two other rows weigh 0
  method = c("loo", "nfolds", "foldid", "gcv"),
  per_response = c("no", "yes"),
  penalty_factor = c("none", "some"),   # some: factors 0, 2, 1, 0.5, ... (a free column)
  class_weights = c("none", "balanced", "named"),
  criterion = c("default", "mse", "mae", "misclass", "auc"),
  intercept = c("yes", "no"),
  standardize = c("no", "yes")
)

# Sources in memory (their rows all at once) and chunk sources.
memory_sources <- c("dense", "sparse", "formula")

# The combinations that cannot be supported, each with the one sentence that
# says so (a regular expression).  A cell that matches a rule must end in the
# error of one of the rules it matches, on its source and on the dense fit
# (but for rules about the source alone, `source_only`, where the dense fit
# must fit); a cell that matches none must fit.  Each rule names the
# argument it is about, or says what the source cannot do.
combination_rules <- list(
  misclass_regression = list(
    when = function(c) c$criterion == "misclass" && c$response %in% c("numeric", "multi") && c$method != "gcv",
    error = "^`criterion` = \"misclass\" needs a factor response; `y` is numeric$"),
  auc_two_classes = list(
    when = function(c) c$criterion == "auc" && c$response != "binary" && c$method != "gcv",
    error = "^`criterion` = \"auc\" needs a response with two classes$"),
  gcv_criterion = list(
    when = function(c) c$method == "gcv" && c$criterion %in% c("mae", "misclass", "auc"),
    error = "^`cv` = \"gcv\" is a criterion of its own \\(the squared error\\); `criterion` must be NULL or \"mse\""),
  gcv_per_response = list(
    when = function(c) c$method == "gcv" && c$per_response == "yes",
    error = paste0("^`per_response` = TRUE chooses each column's lambda by its own squared error, ",
                   "which `cv` = \"gcv\" does not give")),
  per_response_criterion = list(
    when = function(c) c$per_response == "yes" && c$criterion %in% c("mae", "auc"),
    error = paste0("^`per_response` = TRUE chooses each column's lambda by its squared error: ",
                   "`criterion` must be NULL or \"mse\"")),
  class_weights_regression = list(
    when = function(c) c$class_weights != "none" && c$response %in% c("numeric", "multi"),
    error = "^`class_weights` needs a classification fit; `y` is numeric$"),
  penalty_factor_kernel = list(
    when = function(c) c$penalty_factor != "none" && c$kernel != "linear",
    error = "^`penalty_factor` applies to the columns of a linear model, not to a kernel fit$"),
  penalty_factor_dual = list(
    when = function(c) c$penalty_factor != "none" && c$kernel == "linear" && c$shape == "wide",
    error = "^`penalty_factor` zeros \\(unpenalized columns\\) need the primal form"),
  # (the dense fit of the same data is dual and fits: only the source errs)
  chunks_dual = list(
    source_only = TRUE,
    when = function(c) !c$source %in% memory_sources && c$kernel == "linear" && c$shape == "wide",
    error = paste0("^the chunks hold fewer observations of positive weight \\([0-9]+\\) than columns ",
                   "\\([0-9]+\\): such data need the dual form"))
)

# The rules a cell matches (their names).
cell_rules <- function(cell) {
  names(Filter(function(rule) rule$when(cell), combination_rules))
}

# Messages that come from inside (R, Matrix or C, or a wrong code path), never
# from the package's own checks.
internal_patterns <- c(
  "non-conformable", "subscript", "argument .* is missing", "object of type .closure.",
  "must be a double matrix", "\\.Call", "NAs introduced by coercion", "incorrect number of",
  "missing value where", "arguments imply differing", "non-numeric argument",
  "replacement has", "undefined columns", "\\$ operator", "could not find function",
  "object '.*' not found", "unused argument", "is not TRUE", "dims \\[product",
  "length of 'dimnames'", "invalid argument", "NA/NaN argument", "cannot coerce",
  "no applicable method", "invalid 'type'", "not a matrix", "Cholmod", "recycl")

is_internal <- function(condition) {
  !is.null(conditionCall(condition)) && !inherits(condition, "rlsc_chunk_error") ||
    any(vapply(internal_patterns, grepl, NA, x = conditionMessage(condition)))
}

# ---- the cells -----------------------------------------------------------------

# The cells to run, as a data frame of levels (one row per cell):
#   "pairs"   (the default) every source crossed with a covering array of
#             strength 2 over the other axes: each pair of levels of two
#             options that a supported cell can hold is in a supported cell,
#             and that cell runs on every source; and each rule met by a cell
#             on every source;
#   "triples" the same with every triple of levels of the options;
#   "all"     the whole product (about 3.7e5 cells: hours);
#   a number  that many cells drawn at random from the product.
# The greedy construction is deterministic under `seed`.
combination_cells <- function(which = "pairs", seed = 1) {
  set.seed(seed)
  axes <- combination_axes
  if (identical(which, "all")) return(expand.grid(axes, stringsAsFactors = FALSE))
  if (grepl("^[0-9]+$", which)) {
    n <- as.integer(which)
    return(as.data.frame(lapply(axes, function(l) l[sample.int(length(l), n, replace = TRUE)]),
                         stringsAsFactors = FALSE))
  }
  strength <- switch(which, pairs = 2L, triples = 3L,
                     stop("RLSC_COMBINATIONS must be pairs, triples, all or a number, not ", which))
  options <- axes[names(axes) != "source"]
  supported <- covering_cells(options, strength, function(cell) {
    !length(cell_rules(c(list(source = "dense"), cell)))
  })
  crossed <- merge(data.frame(source = axes$source, stringsAsFactors = FALSE), supported, by = NULL)
  # every rule met on every source that can meet it
  unsupported <- do.call(rbind, lapply(names(combination_rules), function(r) {
    do.call(rbind, lapply(axes$source, function(s) {
      cell <- random_cell(axes, list(source = s), function(cell) r %in% cell_rules(cell), tries = 2000L)
      if (!is.null(cell)) as.data.frame(cell, stringsAsFactors = FALSE)
    }))
  }))
  out <- rbind(crossed[names(axes)], unsupported[names(axes)])
  rownames(out) <- NULL
  out
}

# A random cell with the levels `fixed`, accepted by `ok` (NULL after `tries`).
random_cell <- function(axes, fixed, ok, tries = 200L) {
  for (i in seq_len(tries)) {
    cell <- lapply(axes, function(l) l[sample.int(length(l), 1L)])
    cell[names(fixed)] <- fixed
    if (ok(cell)) return(cell)
  }
  NULL
}

# A covering array of the cells `ok` accepts, by a greedy rule: from a pool of
# random acceptable cells, take the one that covers most t-tuples of levels
# not yet covered, until every tuple the pool holds is covered.  Tuples are
# numbered (one block of numbers per set of t axes), so a pool of thousands
# of cells is scored in a few vector operations.
covering_cells <- function(axes, strength, ok, pool = 2000L * strength^2) {
  sizes <- lengths(axes)
  codes <- vapply(sizes, function(k) sample.int(k, pool, replace = TRUE), integer(pool))
  levels <- Map(function(l, i) l[i], axes, as.data.frame(codes))
  keep <- vapply(seq_len(pool), function(i) ok(lapply(levels, `[[`, i)), NA)
  cells <- as.data.frame(levels, stringsAsFactors = FALSE)
  codes <- codes[keep, , drop = FALSE]
  cells <- cells[keep, , drop = FALSE]
  sets <- utils::combn(length(axes), strength, simplify = FALSE)
  offset <- 0
  ids <- vapply(sets, function(vars) {
    id <- rep(offset, nrow(codes))
    stride <- 1
    for (v in vars) {
      id <- id + (codes[, v] - 1) * stride
      stride <- stride * sizes[v]
    }
    offset <<- offset + stride
    id + 1
  }, numeric(nrow(codes)))
  ids <- matrix(ids, nrow(codes))
  uncovered <- logical(offset)
  uncovered[ids] <- TRUE
  chosen <- integer()
  while (any(uncovered)) {
    gain <- rowSums(matrix(uncovered[ids], nrow(ids)))
    best <- which.max(gain)
    chosen <- c(chosen, best)
    uncovered[ids[best, ]] <- FALSE
  }
  out <- cells[chosen, , drop = FALSE]
  rownames(out) <- NULL
  out
}

# ---- the data ------------------------------------------------------------------

combination_cache <- new.env()

# One data set per shape, as a data frame (numeric columns with zeros, a
# factor g, the responses, the weights with zeros and the folds), new rows
# to predict, the same rows in rds and csv files (each written after
# droplevels(), so the files disagree on the levels of g) and in an SQLite
# database.
combination_data <- function(shape) {
  if (!is.null(combination_cache[[shape]])) return(combination_cache[[shape]])
  n <- if (shape == "tall") 40L else 24L
  p <- if (shape == "tall") 3L else 30L
  chunk_rows <- if (shape == "tall") 11L else 7L
  # a seed whose data hold both classes of the binary response among the
  # rows of positive weight of every fold of every fold scheme of the
  # matrix (foldid, cv = 4 in memory and over chunks), for the AUC
  for (seed in 2701:2800) {
    d <- combination_rows(seed, n, p)
    if (both_classes_in_folds(d$df, chunk_rows)) break
  }
  dir <- tempfile("rlsc-combinations-")
  dir.create(dir)
  df <- d$df
  new <- d$new
  parts <- split(seq_len(n), cut(seq_len(n), 3, labels = FALSE))
  files <- list(rds = character(), csv = character())
  for (i in seq_along(parts)) {
    part <- droplevels(df[parts[[i]], ])
    files$rds[i] <- file.path(dir, sprintf("part%d.rds", i))
    files$csv[i] <- file.path(dir, sprintf("part%d.csv", i))
    saveRDS(part, files$rds[i])
    utils::write.csv(part, files$csv[i], row.names = FALSE)
  }
  newfiles <- list(rds = file.path(dir, "new.rds"), csv = file.path(dir, "new.csv"))
  saveRDS(new, newfiles$rds)
  utils::write.csv(new, newfiles$csv, row.names = FALSE)
  db <- file.path(dir, "data.sqlite")
  if (requireNamespace("RSQLite", quietly = TRUE)) {
    con <- DBI::dbConnect(RSQLite::SQLite(), db)
    as_text <- function(d) {
      d[] <- lapply(d, function(v) if (is.factor(v)) as.character(v) else v)
      d
    }
    DBI::dbWriteTable(con, "d", as_text(df))
    DBI::dbWriteTable(con, "new", as_text(new))
    DBI::dbDisconnect(con)
  }
  out <- list(shape = shape, n = n, df = df, new = new, xnames = d$xnames, files = files,
              newfiles = newfiles, db = db, chunk_rows = chunk_rows, seed = seed)
  combination_cache[[shape]] <- out
  out
}

combination_rows <- function(seed, n, p) {
  set.seed(seed)
  nnew <- 5L
  total <- n + nnew
  x <- matrix(rnorm(total * p), total, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  x[sample.int(total * p, round(0.4 * total * p))] <- 0   # sparse enough to matter
  x[, 1] <- x[, 1] + 1
  g <- factor(sample(c("g1", "g2", "g3"), total, replace = TRUE))
  signal <- x[, 1] - x[, 2] + (g == "g2")
  df <- data.frame(id = seq_len(total), x, g = g, y = signal + rnorm(total),
                   y2 = -0.5 * x[, min(3L, p)] + rnorm(total),
                   yb = factor(ifelse(signal + rnorm(total, sd = 0.5) > stats::median(signal), "b", "a")),
                   ym = factor(c("a", "b", "c")[1L + (signal > -0.3) + (signal > 0.8)]),
                   w = round(runif(total, 0.5, 2), 2), fold = rep_len(1:4, total))
  # a whole fold and two other rows of weight 0
  df$w[df$fold == 4 | seq_len(total) %in% c(1L, 6L)] <- 0
  new <- df[n + seq_len(nnew), ]
  rownames(new) <- NULL
  list(df = df[seq_len(n), ], new = new, xnames = colnames(x))
}

both_classes_in_folds <- function(df, chunk_rows) {
  n <- nrow(df)
  schemes <- list(df$fold, with_seed_27(sample(rep_len(1:4, n))),
                  chunk_cycle_folds(tabulate(ceiling(seq_len(n) / chunk_rows)), 4),
                  chunk_cycle_folds(tabulate(cut(seq_len(n), 3, labels = FALSE)), 4),
                  chunk_cycle_folds(key_range_sizes(n, chunk_rows), 4))
  for (folds in schemes) for (w in list(rep(1, n), df$w)) {
    for (k in unique(folds[w > 0])) {
      if (length(unique(df$yb[folds == k & w > 0])) < 2L) return(FALSE)
    }
  }
  TRUE
}

# The rows of chunk_db()'s key ranges over keys 1..n.
key_range_sizes <- function(n, chunk_rows) {
  m <- ceiling(n / chunk_rows)
  cuts <- c(seq(1, n, length.out = m + 1L)[-(m + 1L)], Inf)
  tabulate(findInterval(seq_len(n), cuts), m)
}

with_seed_27 <- function(expr) {
  set.seed(27)
  expr
}

# The response of a cell as the default method takes it, and as a formula
# writes it.
cell_response <- function(cell, df) {
  switch(cell$response, numeric = df$y, multi = cbind(y = df$y, y2 = df$y2), binary = df$yb,
         multiclass = df$ym)
}
response_term <- function(cell) {
  switch(cell$response, numeric = "y", multi = "cbind(y, y2)", binary = "yb", multiclass = "ym")
}

cell_formula <- function(cell, d) {
  rhs <- paste(c(d$xnames, "g", if (cell$intercept == "no" && formula_source(cell)) "- 1"),
               collapse = " + ")
  stats::as.formula(paste(response_term(cell), "~", sub("+ -", "-", rhs, fixed = TRUE)),
                    env = globalenv())
}

formula_source <- function(cell) cell$source %in% c("formula", "files_rds", "files_csv", "database")

# The design matrix a source's fit is made of, for the dense reference: the
# model matrix of the formula without its intercept column (for a formula
# without intercept, g in all its levels, as lm() codes it).
cell_design <- function(cell, rows) {
  noint <- cell$intercept == "no" && formula_source(cell)
  f <- stats::as.formula(paste("~", paste(c(grep("^x", names(rows), value = TRUE), "g"),
                                          collapse = " + "), if (noint) "- 1"))
  rows$g <- factor(rows$g, levels = c("g1", "g2", "g3"))
  x <- stats::model.matrix(f, rows)
  x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
  attr(x, "assign") <- attr(x, "contrasts") <- NULL
  x
}

# The options of a cell as arguments of rlsc(), but for the weights and the
# folds, which each source passes its own way.
cell_args <- function(cell, design, classes) {
  args <- list(nlambda = 12)
  if (cell$kernel == "nystrom") {
    args$kernel <- nystrom(kernel_rbf(sigma = 1.5 * sqrt(ncol(design))),
                           landmarks = design[c(2, 5, 8, 11, 14), , drop = FALSE])
  } else if (cell$kernel == "random_features") {
    args$kernel <- random_features(kernel_rbf(sigma = 1.5 * sqrt(ncol(design))), m = 9)
  }
  args$cv <- switch(cell$method, loo = NULL, nfolds = 4, foldid = 4, gcv = "gcv")
  if (cell$per_response == "yes") args$per_response <- TRUE
  if (cell$penalty_factor == "some") args$penalty_factor <- rep_len(c(0, 2, 1, 0.5), ncol(design))
  if (cell$class_weights == "balanced") args$class_weights <- "balanced"
  if (cell$class_weights == "named") {
    k <- max(length(classes), 2L)
    args$class_weights <- stats::setNames(c(2, 0.5, 1)[seq_len(k)], classes %||% c("p", "q"))
  }
  if (cell$criterion != "default") args$criterion <- cell$criterion
  if (cell$intercept == "no" && !formula_source(cell)) args$intercept <- FALSE
  if (cell$standardize == "yes") args$standardize <- TRUE
  args
}

# ---- the sources ---------------------------------------------------------------

# The folds cv = K gives a chunk source: the rows of chunk i take the folds in
# turn, starting with fold i (as rlsc()'s documentation of `cv` says).
chunk_cycle_folds <- function(sizes, k) {
  unlist(lapply(seq_along(sizes), function(i) (i - 1 + seq_len(sizes[i]) - 1) %% k + 1))
}

chunk_sizes <- function(src) {
  vapply(src$chunks, function(ch) {
    rows <- src$read(ch)
    if (is.data.frame(rows)) nrow(rows) else nrow(rows$x)
  }, 1)
}

# A source's fit of a cell (errors and warnings as they come), the design and
# folds of its dense reference, its new data, and, for chunk sources, its new
# data as a chunk source.
source_fit <- function(cell, d) {
  df <- d$df
  design <- cell_design(cell, df)
  y <- cell_response(cell, df)
  classes <- if (is.factor(y)) levels(y)
  args <- cell_args(cell, design, classes)
  weighted <- cell$weights == "zeros"
  folds <- cell$method == "foldid"
  newdesign <- cell_design(cell, d$new)
  sparse <- function(m) methods::as(Matrix::Matrix(m, sparse = TRUE), "generalMatrix")
  fml <- cell_formula(cell, d)
  chunk_rows <- d$chunk_rows
  out <- switch(cell$source,
    dense = , sparse = {
      x <- if (cell$source == "sparse") sparse(design) else design
      list(call = function() do.call(rlsc, c(list(x, y, weights = if (weighted) df$w,
                                                  foldid = if (folds) df$fold), args)),
           newdata = if (cell$source == "sparse") sparse(newdesign) else newdesign)
    },
    formula = {
      extra <- c(if (weighted) list(weights = quote(w)), if (folds) list(foldid = quote(fold)))
      list(call = function() eval(as.call(c(list(quote(rlsc), fml, data = df), extra, args))),
           newdata = d$new)
    },
    chunk_dense = , chunk_sparse = {
      x <- if (cell$source == "chunk_sparse") sparse(design) else design
      src <- chunk_matrix(x, y, weights = if (weighted) df$w, chunk_rows = chunk_rows,
                          foldid = if (folds) df$fold)
      newx <- if (cell$source == "chunk_sparse") sparse(newdesign) else newdesign
      list(call = function() do.call(rlsc, c(list(src), args)), newdata = newx, src = src,
           newsource = chunk_matrix(newx, rep(0, nrow(newx)), chunk_rows = 2))
    },
    files_rds = , files_csv = , database = {
      src <- switch(cell$source,
        files_rds = chunk_files(d$files$rds), files_csv = chunk_files(d$files$csv),
        database = chunk_db(function() DBI::dbConnect(RSQLite::SQLite(), d$db), "SELECT * FROM d",
                            chunk_rows = chunk_rows, key = "id"))
      newsource <- switch(cell$source,
        files_rds = chunk_files(d$newfiles$rds), files_csv = chunk_files(d$newfiles$csv),
        database = chunk_db(function() DBI::dbConnect(RSQLite::SQLite(), d$db), "new",
                            chunk_rows = 2, key = "id"))
      extra <- c(if (weighted) list(weights = quote(w)), if (folds) list(foldid = quote(fold)))
      list(call = function() eval(as.call(c(list(quote(rlsc), fml, data = src), extra, args))),
           newdata = d$new, src = src, newsource = newsource)
    })
  # the reference: the dense in-memory fit of the same design and response,
  # with the folds the source's fit used
  ref_folds <- if (folds) df$fold else if (cell$method == "nfolds" && !is.null(out$src)) {
    chunk_cycle_folds(chunk_sizes(out$src), 4)
  }
  ref_args <- args
  if (!is.null(ref_folds)) ref_args$cv <- NULL
  if (cell$intercept == "no") ref_args$intercept <- FALSE
  # (a formula names its numeric response, `y`, as the matrix interface
  # names a one-column matrix's)
  ref_y <- if (formula_source(cell) && cell$response == "numeric") cbind(y = y) else y
  out$reference <- function() {
    do.call(rlsc, c(list(design, ref_y, weights = if (weighted) df$w, foldid = ref_folds), ref_args))
  }
  out$ref_newdata <- newdesign
  out$design <- design
  out$y <- y
  out$args <- args
  out$ref_folds <- ref_folds
  out
}

# ---- running a cell --------------------------------------------------------------

# expr's value or error, with its warnings (muffled) and whether any of them
# was internal.
capture <- function(expr) {
  warnings <- list()
  value <- withCallingHandlers(
    tryCatch(expr, error = function(e) e),
    warning = function(w) {
      warnings[[length(warnings) + 1L]] <<- w
      invokeRestart("muffleWarning")
    })
  list(value = value, error = inherits(value, "error"),
       warnings = vapply(warnings, conditionMessage, ""),
       internal = c(if (inherits(value, "error") && is_internal(value)) conditionMessage(value),
                    vapply(Filter(is_internal, warnings), conditionMessage, "")))
}

# The outputs every fit is read through; `nd` is the new data in the form of
# the fit's source.
combination_outputs <- list(
  path = function(fit, nd) {
    p <- fit$path
    list(table = p[vapply(p, is.numeric, NA)], cv = fit$cv, criterion = fit$criterion,
         scale = fit$scale, penalty_factor = fit$penalty_factor)
  },
  lambda = function(fit, nd) {
    list(min = fit$lambda_min, se = fit$lambda_1se, index = c(fit$index_min, fit$index_1se))
  },
  coef = function(fit, nd) {
    list(coef(fit), coef(fit, lambda = "lambda_1se"), coef(fit, lambda = fit$lambda_min * 0.37 + 0.01))
  },
  predict = function(fit, nd) {
    c(list(predict(fit, nd)), if (fit$type == "classification") list(predict(fit, nd, type = "class")))
  },
  loo_predict = function(fit, nd) {
    c(list(loo_predict(fit)), if (fit$type == "classification") list(loo_predict(fit, type = "class")))
  },
  prob = function(fit, nd) {
    if (fit$type == "classification") {
      list(predict(fit, nd, type = "prob"), loo_predict(fit, type = "prob"),
           predict(fit, nd, type = "prob", lambda = fit$lambda_min[[1L]] * 0.37 + 0.01))
    }
  },
  residuals = function(fit, nd) residuals(fit),
  fitted = function(fit, nd) fitted(fit),
  deviance = function(fit, nd) deviance(fit),
  hatvalues = function(fit, nd) hatvalues(fit),
  se_fit = function(fit, nd) predict(fit, nd, se.fit = TRUE)
)

# Outputs compared more loosely than `tol` (none today).
combination_tolerance <- list()

# The relative difference of two values (lists, matrices, factors): 0 when
# equal, Inf when they differ in shape, type, levels or where they are NA.
value_difference <- function(a, b) {
  if (is.list(a) && !is.data.frame(a) || is.list(b) && !is.data.frame(b)) {
    if (!is.list(a) || !is.list(b) || length(a) != length(b)) return(Inf)
    if (!length(a)) return(0)
    return(max(vapply(seq_along(a), function(i) value_difference(a[[i]], b[[i]]), 1)))
  }
  if (is.data.frame(a) || is.data.frame(b)) {
    if (!identical(names(a), names(b))) return(Inf)
    return(value_difference(as.list(a), as.list(b)))
  }
  if (is.null(a) || is.null(b)) return(if (is.null(a) && is.null(b)) 0 else Inf)
  if (is.factor(a) || is.factor(b) || is.character(a) || is.character(b)) {
    return(if (identical(unname(a), unname(b)) || identical(as.vector(a), as.vector(b)) &&
               identical(levels(a), levels(b))) 0 else Inf)
  }
  if (!identical(dim(a), dim(b)) || length(a) != length(b)) return(Inf)
  a <- as.vector(a)
  b <- as.vector(b)
  if (!identical(is.na(a), is.na(b))) return(Inf)
  ok <- !is.na(a)
  if (!any(ok)) return(0)
  scale <- max(abs(b[ok]), 1e-300)
  max(abs(a[ok] - b[ok])) / scale
}

# Runs one cell: "equal" (every output within `tol` of the dense fit's), or
# "error" (the documented error of a matching rule, on the source and on the
# dense fit alike), or "problem" with the problems found.  `tamper` (for the
# test that the matrix can fail) changes the source's fit before it is read.
run_cell <- function(cell, tol = 1e-9, tamper = identity) {
  cell <- as.list(cell)
  d <- combination_data(cell$shape)
  rules <- cell_rules(cell)
  problems <- character()
  setup <- capture(source_fit(cell, d))
  if (setup$error) return(list(outcome = "problem", problems = paste("setup:", conditionMessage(setup$value))))
  s <- setup$value
  seed <- 27L
  got <- capture({set.seed(seed); s$call()})
  ref <- capture({set.seed(seed); s$reference()})
  problems <- c(problems, labelled("internal", c(got$internal, ref$internal)))
  if (length(rules)) {
    patterns <- vapply(combination_rules[rules], `[[`, "", "error")
    dense_errs <- !all(vapply(combination_rules[rules], function(r) isTRUE(r$source_only), NA))
    if (!dense_errs && ref$error) {
      problems <- c(problems, paste("dense: the rule is about the source alone, but:",
                                    conditionMessage(ref$value)))
    }
    for (side in list(list("source", got), if (dense_errs) list("dense", ref))) {
      if (is.null(side)) next
      r <- side[[2L]]
      if (!r$error) {
        problems <- c(problems, paste0(side[[1L]], ": fits, but the rule(s) ", paste(rules, collapse = ", "),
                                       " say it cannot"))
      } else if (!any(vapply(patterns, grepl, NA, x = conditionMessage(r$value)))) {
        problems <- c(problems, paste0(side[[1L]], ": error not of rule(s) ", paste(rules, collapse = ", "),
                                       ": ", conditionMessage(r$value)))
      }
    }
    return(if (length(problems)) list(outcome = "problem", problems = problems) else
      list(outcome = "error", message = conditionMessage(got$value)))
  }
  if (got$error || ref$error) {
    problems <- c(problems, paste0("unexpected error: ",
                                   if (got$error) paste("source:", conditionMessage(got$value)),
                                   if (ref$error) paste(" dense:", conditionMessage(ref$value))))
    return(list(outcome = "problem", problems = problems))
  }
  # the constructors leave the checks of a fit's fields to the methods:
  # every fit made here must pass them (coef() checks them first)
  for (side in list(list("source", got$value), list("dense", ref$value))) {
    valid <- capture(coef(side[[2L]]))
    if (valid$error) problems <- c(problems, paste0(side[[1L]], ": ", conditionMessage(valid$value)))
  }
  fit <- tamper(got$value)
  dense <- ref$value
  if (!setequal(got$warnings, ref$warnings)) {
    problems <- c(problems, paste0("warnings differ: source [", paste(got$warnings, collapse = " | "),
                                   "] dense [", paste(ref$warnings, collapse = " | "), "]"))
  }
  compare <- function(name, a, b, tol_here = tol) {
    if (a$error || b$error) {
      if (!(a$error && b$error && identical(conditionMessage(a$value), conditionMessage(b$value)))) {
        problems <<- c(problems, paste0(name, ": source ",
                                        if (a$error) conditionMessage(a$value) else "gives a value",
                                        "; dense ", if (b$error) conditionMessage(b$value) else "gives a value"))
      }
    } else {
      diff <- value_difference(a$value, b$value)
      if (!(diff <= tol_here)) problems <<- c(problems, sprintf("%s: relative difference %.3g", name, diff))
    }
    problems <<- c(problems, labelled(paste0(name, ": internal"), c(a$internal, b$internal)))
  }
  for (out in names(combination_outputs)) {
    f <- combination_outputs[[out]]
    compare(out, capture(f(fit, s$newdata)), capture(f(dense, s$ref_newdata)),
            combination_tolerance[[out]] %||% tol)
  }
  if (!is.null(s$newsource)) {
    compare("predict_chunks", capture(predict(fit, s$newsource)),
            capture(predict(dense, s$ref_newdata)))
  }
  if (cell$source == "dense") problems <- c(problems, combination_brute(cell, s, fit, d))
  if (length(problems)) list(outcome = "problem", problems = problems) else list(outcome = "equal")
}

# ---- the brute-force reference of the dense fit --------------------------------

# The dense fit of a cell against the definitions, by refits on the penalized
# normal equations (solve()): the validation table at every lambda of the
# grid (LOO by refitting without each row of positive weight, K-fold by
# refitting without each fold, GCV from the trace of the hat matrix), the
# choice of lambda_min and lambda_1se, and at lambda_min the coefficients,
# fitted values, residuals, deviance, leverages, LOO values, predictions and
# their standard errors.  For Nystrom and random-feature kernels the design
# is their features, computed here from the landmarks (or the fit's random
# draw).  The problems found, as text.
combination_brute <- function(cell, s, fit, d, tol = 1e-8) {
  problems <- character()
  check <- function(name, got, want, tol_here = tol) {
    diff <- value_difference(unname(as_plain(got)), unname(as_plain(want)))
    if (!(diff <= tol_here)) problems <<- c(problems, sprintf("brute %s: relative difference %.3g", name, diff))
  }
  x <- s$design
  n <- nrow(x)
  yraw <- s$y
  classify <- is.factor(yraw)
  y <- if (classify) ref_code(yraw) else as.matrix(yraw)
  codes <- if (classify) as.integer(yraw)
  nt <- ncol(y)
  w <- if (cell$weights == "zeros") d$df$w else rep(1, n)
  cw <- s$args$class_weights
  if (!is.null(cw)) {
    k <- nlevels(yraw)
    cw <- if (identical(cw, "balanced")) n / (k * tabulate(codes, k)) else unname(cw[levels(yraw)])
    w <- w * cw[codes]
  }
  intercept <- cell$intercept == "yes"
  pos <- w > 0
  # standardize: weighted standard deviations about the weighted mean, or
  # about 0 without an intercept (the fit's own scale is then checked too)
  sd <- rep(1, ncol(x))
  if (cell$standardize == "yes") {
    mu <- if (intercept) colSums(w * x) / sum(w) else 0
    sd <- sqrt(colSums(w * sweep(x, 2, mu)^2) / sum(w))
    check("scale", fit$scale, sd)
  }
  newx <- s$ref_newdata
  kern <- s$args$kernel
  if (is.null(kern)) {
    feat <- function(a) a
    pen <- (s$args$penalty_factor %||% rep(1, ncol(x))) * sd^2
  } else {
    sigma <- kern$params$sigma
    if (kern$name == "nystrom") {
      z <- sweep(kern$landmarks, 2, sd, "/")
      e <- eigen(ref_rbf(z, z, sigma), symmetric = TRUE)
      keep <- e$values > max(e$values) * nrow(z) * .Machine$double.eps
      map <- e$vectors[, keep, drop = FALSE] / rep(sqrt(e$values[keep]), each = nrow(z))
      feat <- function(a) ref_rbf(sweep(a, 2, sd, "/"), z, sigma) %*% map
    } else {
      omega <- fit$features$omega
      b <- fit$features$b
      feat <- function(a) sqrt(2 / length(b)) * cos(sweep(a, 2, sd, "/") %*% omega / sigma + rep(b, each = nrow(a)))
    }
    pen <- rep(1, ncol(feat(x[1, , drop = FALSE])))
  }
  f <- feat(x)
  fnew <- feat(newx)
  with1 <- function(a) if (intercept) cbind(1, a) else a
  penalty <- diag(c(if (intercept) 0, pen), length(pen) + intercept)
  ridge <- function(rows, l) {
    a <- with1(f[rows, , drop = FALSE])
    solve(crossprod(a, w[rows] * a) + l * penalty, crossprod(a, w[rows] * y[rows, , drop = FALSE]))
  }
  predict_at <- function(cf, a) with1(a) %*% cf
  lambda <- fit$lambda
  nl <- length(lambda)

  # ---- the validation table
  loss <- function(p, rows = seq_len(n)) {
    e <- y[rows, , drop = FALSE] - p
    out <- cbind(rowMeans(e^2), rowMeans(abs(e)), e^2)
    colnames(out) <- c("sq", "abs", paste0("col", seq_len(nt)))
    if (classify) {
      pred <- if (nt == 1L) ifelse(p[, 1] > 0, 2L, 1L) else max.col(p, "first")
      out <- cbind(out, mis = as.numeric(pred != codes[rows]))
    }
    out
  }
  loo_at <- function(l) {
    full <- predict_at(ridge(seq_len(n), l), f)
    out <- full
    for (i in which(pos)) out[i, ] <- predict_at(ridge(-i, l), f[i, , drop = FALSE])
    out
  }
  over_rows <- function(v) {
    m <- sum(w[pos] * v[pos]) / sum(w[pos])
    c(m, sqrt(sum(w[pos] * (v[pos] - m)^2) / sum(w[pos]) / (sum(pos) - 1)))
  }
  auc_se <- function(a, positive) {
    n1 <- sum(positive)
    n0 <- sum(!positive)
    q1 <- a / (2 - a)
    q2 <- 2 * a^2 / (1 + a)
    sqrt((a * (1 - a) + (n1 - 1) * (q1 - a^2) + (n0 - 1) * (q2 - a^2)) / (n1 * n0))
  }
  kfold <- cell$method %in% c("nfolds", "foldid")
  folds <- if (kfold) fit$foldid
  stats <- lapply(lambda, function(l) {
    if (!kfold) {
      p <- loo_at(l)
      ls <- loss(p)
      out <- lapply(colnames(ls), function(k) over_rows(ls[, k]))
      names(out) <- colnames(ls)
      if (classify && nt == 1L) {
        # the leave-pair-out AUC: each (positive, negative) pair scored by the fit without both
        a <- ref_lpo_auc(codes == 2L, w, l, function(keep, rows, lam) {
          drop(predict_at(ridge(which(keep), lam), f[rows, , drop = FALSE]))
        })
        out$auc <- c(a, auc_se(a, codes[pos] == 2L))
      }
      return(out)
    }
    per <- list()
    fw <- numeric()
    for (k in sort(unique(folds))) {
      held <- folds == k
      if (!(sum(w[held]) > 0)) next   # a fold without weight is no fold
      p <- predict_at(ridge(which(!held), l), f[held, , drop = FALSE])
      wh <- w[held]
      m <- colSums(wh * loss(p, which(held))) / sum(wh)
      if (classify && nt == 1L) m <- c(m, auc = ref_auc(p[, 1], codes[held] == 2L, wh))
      per[[length(per) + 1L]] <- m
      fw <- c(fw, sum(wh))
    }
    per <- do.call(rbind, per)
    cvm <- colSums(fw * per) / sum(fw)
    se <- sqrt(colSums(fw * sweep(per, 2, cvm)^2) / sum(fw) / (length(fw) - 1))
    stats::setNames(lapply(seq_along(cvm), function(k) c(cvm[k], se[k])), colnames(per))
  })
  column <- function(k, j) vapply(stats, function(s) s[[k]][j], 1)
  path <- fit$path
  hat_matrix <- function(l) {
    a <- with1(f)
    m <- crossprod(a, w * a) + l * penalty
    list(a = a, m = m, h = w * rowSums((a %*% solve(m)) * a))
  }
  want <- list(df = vapply(lambda, function(l) sum(hat_matrix(l)$h) - intercept, 1),
               mse = column("sq", 1), mse_se = column("sq", 2),
               mae = column("abs", 1), mae_se = column("abs", 2))
  if (classify) want[c("misclass", "misclass_se")] <- list(column("mis", 1), column("mis", 2))
  if (!is.null(path$auc)) want[c("auc", "auc_se")] <- list(column("auc", 1), column("auc", 2))
  responses <- sub("^mse_(.*)_se$", "\\1", grep("^mse_.*_se$", names(path), value = TRUE))
  for (t in seq_along(responses)) {
    want[[paste0("mse_", responses[t])]] <- column(paste0("col", t), 1)
    want[[paste0("mse_", responses[t], "_se")]] <- column(paste0("col", t), 2)
  }
  # GCV near interpolation is a ratio of two small numbers, RSS and (n - tr
  # H)^2, each formed by cancellation (in the brute force more than in the
  # package): its relative accuracy is that of the rest times n / (n - tr H)
  gcv_amp <- rep(1, nl)
  if (cell$method == "gcv") {
    trace_h <- vapply(lambda, function(l) sum(hat_matrix(l)$h), 1)
    gcv_amp <- pmax(1, sum(pos) / (sum(pos) - trace_h))
    want$gcv <- vapply(seq_len(nl), function(j) {
      e <- y - predict_at(ridge(seq_len(n), lambda[j]), f)
      rss <- sum(w * rowMeans(e^2)) / sum(w)
      # Golub, Heath and Wahba: the trace of the whole hat matrix, the intercept's share counted
      sum(pos)^2 * rss / (sum(pos) - trace_h[j])^2
    }, 1)
    gcv_err <- max(abs(path$gcv - want$gcv) / (abs(want$gcv) * gcv_amp))
    if (!(gcv_err <= tol)) problems <- c(problems, sprintf("brute path$gcv: relative difference %.3g", gcv_err))
  }
  for (k in setdiff(names(want), "gcv")) check(paste0("path$", k), path[[k]], want[[k]])
  if (any(path$n_na != 0)) problems <- c(problems, "brute: n_na is not 0")

  # ---- lambda_min and lambda_1se
  # (DESIGN.md: values equal to rounding, 1e-8 relative, are equal; among
  # them the tie-break's least, to rounding, then the largest lambda)
  same <- function(a, b) abs(a - b) <= 1e-8 * abs(pmin(a, b))
  select <- function(cvm, se, maximize = FALSE, tiebreak = NULL) {
    v <- if (maximize) -cvm else cvm
    tied <- which(same(v, min(v, na.rm = TRUE)))
    if (!is.null(tiebreak)) tied <- tied[same(tiebreak[tied], min(tiebreak[tied]))]
    imin <- tied[1L]
    threshold <- v[imin] + se[imin]
    c(imin, if (is.na(threshold)) imin else min(which(v <= threshold | same(v, threshold))[1L], imin))
  }
  crits <- if (fit$per_response) paste0("mse_", responses) else fit$criterion
  chosen <- lapply(crits, function(k) {
    v <- want[[k]] %||% path[[k]]
    se <- want[[paste0(k, "_se")]] %||% rep(NA_real_, nl)
    sel <- select(v, se, k == "auc", if (k == "misclass") want$mse)
    got <- c(fit$index_min[[match(k, crits)]], fit$index_1se[[match(k, crits)]])
    for (j in 1:2) {
      amp <- if (k == "gcv") max(gcv_amp[c(got[j], sel[j])]) else 1
      if (got[j] != sel[j] && abs(v[got[j]] - v[sel[j]]) > 1e-9 * amp * max(abs(v), 1e-300)) {
        problems <<- c(problems, sprintf("brute: index %s of %s is %d, the definition gives %d",
                                         c("min", "1se")[j], k, got[j], sel[j]))
      }
    }
    got
  })

  # ---- the outputs at lambda_min (each response column at its own)
  lmin <- rep_len(fit$lambda_min, nt)
  by_column <- function(fun) {
    parts <- lapply(seq_len(nt), function(t) as.matrix(fun(lmin[t]))[, t])
    do.call(cbind, parts)
  }
  cf <- by_column(function(l) ridge(seq_len(n), l))
  fitted_values <- predict_at(cf, f)
  if (is.null(kern)) {
    check("coef", coef(fit), if (intercept) cf else rbind(0, cf))
  }
  check("fitted", fitted(fit), fitted_values)
  check("residuals", residuals(fit), y - fitted_values)
  check("deviance", deviance(fit), sum(w * (y - fitted_values)^2))
  h <- hatvalues(fit)   # one column per response column only when their lambdas differ
  hm <- by_column(function(l) matrix(hat_matrix(l)$h, n, nt))
  check("hatvalues", h, if (is.matrix(h)) hm else hm[, 1L])
  check("loo_predict", loo_predict(fit), by_column(loo_at))
  check("predict", predict(fit, newx), predict_at(cf, fnew))
  if (classify) {
    cls <- function(p) factor(levels(yraw)[if (nt == 1L) ifelse(p[, 1] > 0, 2L, 1L) else max.col(p, "first")],
                              levels = levels(yraw))
    check("predict class", predict(fit, newx, type = "class"), cls(predict_at(cf, fnew)))
  } else {
    se_fit <- predict(fit, newx, se.fit = TRUE)
    parts <- lapply(seq_len(nt), function(t) {
      hm <- hat_matrix(lmin[t])
      a <- hm$a[pos, , drop = FALSE]
      minv <- solve(hm$m)
      hs <- sqrt(w[pos]) * a %*% minv %*% t(a) * rep(sqrt(w[pos]), each = sum(pos))
      nu <- sum(pos) - sum(diag(2 * hs - hs %*% hs))
      sigma2 <- sum(w[pos] * (y[pos, t] - fitted_values[pos, t])^2) / nu
      a0 <- with1(fnew)
      v <- rowSums((a0 %*% minv %*% crossprod(a, w[pos] * a) %*% minv) * a0)
      list(se = sqrt(sigma2 * v), df = nu, scale = sqrt(sigma2))
    })
    # nu = npos - tr(2H - H^2) cancels here to about eps npos (absolute):
    # near interpolation (nu -> 0) the reference knows it only that well
    nu <- vapply(parts, `[[`, 1, "df")
    tol_nu <- max(tol, 1e-13 * sum(pos) / min(nu))
    check("se.fit", se_fit$se.fit, do.call(cbind, lapply(parts, `[[`, "se")), tol_nu)
    check("se.fit df", se_fit$df, nu, tol_nu)
    check("se.fit scale", se_fit$residual.scale, vapply(parts, `[[`, 1, "scale"), tol_nu)
  }
  problems
}

labelled <- function(label, messages) if (length(messages)) paste0(label, ": ", messages)

as_plain <- function(v) {
  if (is.factor(v)) return(v)
  if (is.null(dim(v))) v <- as.matrix(v)
  v
}
