# Metamorphic relations (test-metamorphic.R): relations between two fits that
# hold whatever the data, each run on every data source.  A relation builds
# a data set, changes it in a way whose effect on the fit is known (rows
# permuted, a column rescaled, a row of weight 0 added, ...), fits both
# through the same source and compares what the effect says must agree.
# Where a table of cases checks one feature against a reference, a relation
# crosses the feature with every source, so a seam between two of them (a
# source that reads a term from one chunk, a map fitted at another lambda)
# shows as a broken relation.
#
# A cell is (relation, source, shape, response, weighted); RLSC_METAMORPHIC
# chooses the cells: "sample" (the default: every relation and every source
# at least once, `make test`), "all" (every applicable cell, `make
# metamorphic`) or a number of random cells; RLSC_METAMORPHIC_SEED the seed.

# ---- the data ------------------------------------------------------------------

# A data set: x (n x p, columns x1..xp), a numeric response y and a second
# one y2, a binary factor yb and a three-class factor ym (each class in
# every fifth of the rows), weights w (NULL when unweighted), folds.
meta_data <- function(shape, weighted, seed) {
  set.seed(seed)
  n <- if (shape == "tall") 36L else 18L
  p <- if (shape == "tall") 4L else 25L
  x <- matrix(stats::rnorm(n * p), n, p, dimnames = list(NULL, paste0("x", seq_len(p))))
  x[, 1L] <- x[, 1L] * 3 + 1
  signal <- x[, 1L] / 3 - x[, 2L]
  list(x = x,
       y = signal + stats::rnorm(n),
       y2 = x[, 2L] * 0.5 + stats::rnorm(n),
       yb = factor(ifelse(signal + stats::rnorm(n, sd = 0.7) > 0, "up", "down"), levels = c("down", "up")),
       ym = factor(c("a", "b", "c")[(rank(signal + stats::rnorm(n, sd = 0.5), ties.method = "first") - 1L) %% 3L + 1L]),
       w = if (weighted) round(stats::runif(n, 0.5, 2), 3),
       fold = rep_len(1:4, n))
}

# The response of a data set that a cell's response names.
meta_y <- function(d, response) {
  switch(response, numeric = d$y, binary = d$yb, multiclass = d$ym, multi = cbind(y = d$y, y2 = d$y2))
}

meta_rows <- function(d, i) {
  d[c("x", "y", "y2", "yb", "ym", "w", "fold")] <- list(d$x[i, , drop = FALSE], d$y[i], d$y2[i], d$yb[i],
                                                      d$ym[i], d$w[i], d$fold[i])
  d
}

# ---- the sources -----------------------------------------------------------------

# The sources of the combination matrix, and two kernels.  Each source fits a data set (`response` naming the response column, `...`
# rlsc()'s options) and turns new rows (a matrix) into its form of new data.
# Chunk sources take data sets of more rows than columns (primal) only.
meta_frame <- function(d, response) {
  df <- as.data.frame(d$x)
  df$y <- meta_y(d, if (response == "multi") "numeric" else response)
  if (response == "multi") df$y2 <- d$y2
  df$w <- d$w %||% rep(1, nrow(d$x))
  df$fold <- d$fold
  df
}

meta_formula <- function(d, response) {
  lhs <- if (response == "multi") "cbind(y, y2)" else "y"
  stats::as.formula(paste(lhs, "~", paste(colnames(d$x), collapse = " + ")), env = globalenv())
}

meta_sparse <- function(x) methods::as(Matrix::Matrix(x, sparse = TRUE), "generalMatrix")

# A formula source's call (weights and folds are columns of its data).
meta_formula_fit <- function(d, response, data, args) {
  extra <- c(if (!is.null(d$w)) list(weights = quote(w)), if (!is.null(args$foldid)) list(foldid = quote(fold)))
  args$foldid <- NULL
  eval(as.call(c(list(quote(rlsc), meta_formula(d, response), data = data), extra, args)))
}

meta_sources <- list(
  dense = list(
    fit = function(d, response, ...) rlsc(d$x, meta_y(d, response), weights = d$w, ...),
    newdata = identity),
  sparse = list(
    fit = function(d, response, ...) rlsc(meta_sparse(d$x), meta_y(d, response), weights = d$w, ...),
    newdata = meta_sparse, needs = "Matrix"),
  rbf = list(
    fit = function(d, response, ...) {
      rlsc(d$x, meta_y(d, response), weights = d$w, kernel = kernel_rbf(sigma = 2 * sqrt(ncol(d$x))),
           keep_eigen = TRUE, ...)   # (solutions at any lambda, not the grid's alone)
    },
    newdata = identity, kernel = TRUE),
  nystrom = list(
    fit = function(d, response, ...) {
      set.seed(7)
      landmarks <- matrix(stats::rnorm(6L * ncol(d$x)), 6L, ncol(d$x))
      rlsc(d$x, meta_y(d, response), weights = d$w,
           kernel = nystrom(kernel_rbf(sigma = 2 * sqrt(ncol(d$x))), landmarks = landmarks), ...)
    },
    newdata = identity, kernel = TRUE),
  formula = list(
    fit = function(d, response, ...) meta_formula_fit(d, response, meta_frame(d, response), list(...)),
    newdata = function(x) as.data.frame(x)),
  chunk_matrix = list(
    fit = function(d, response, ...) meta_chunk_matrix_fit(d, response, d$x, list(...)),
    newdata = identity, chunks = TRUE),
  chunk_sparse = list(
    fit = function(d, response, ...) meta_chunk_matrix_fit(d, response, meta_sparse(d$x), list(...)),
    newdata = meta_sparse, chunks = TRUE, needs = "Matrix"),
  files_rds = list(
    fit = function(d, response, ...) {
      meta_formula_fit(d, response, chunk_files(meta_files(meta_frame(d, response), "rds")), list(...))
    },
    newdata = function(x) as.data.frame(x), chunks = TRUE),
  files_csv = list(
    fit = function(d, response, ...) {
      meta_formula_fit(d, response, chunk_files(meta_files(meta_frame(d, response), "csv")), list(...))
    },
    newdata = function(x) as.data.frame(x), chunks = TRUE),
  database = list(
    fit = function(d, response, ...) {
      df <- meta_frame(d, response)
      df$id <- seq_len(nrow(df))
      df[] <- lapply(df, function(v) if (is.factor(v)) as.character(v) else v)
      db <- tempfile("rlsc-meta-", fileext = ".sqlite")
      con <- DBI::dbConnect(RSQLite::SQLite(), db)
      DBI::dbWriteTable(con, "d", df)
      DBI::dbDisconnect(con)
      src <- chunk_db(function() DBI::dbConnect(RSQLite::SQLite(), db), "d", chunk_rows = 11L, key = "id")
      meta_formula_fit(d, response, src, list(...))
    },
    newdata = function(x) as.data.frame(x), chunks = TRUE, needs = "RSQLite")
)

meta_chunk_matrix_fit <- function(d, response, x, args) {
  src <- chunk_matrix(x, meta_y(d, response), weights = d$w, chunk_rows = 7L, foldid = args$foldid)
  args$foldid <- NULL
  do.call(rlsc, c(list(src), args))
}

# The rows of a data frame in three files of one format.
meta_files <- function(df, format) {
  dir <- tempfile("rlsc-meta-")
  dir.create(dir)
  parts <- split(seq_len(nrow(df)), cut(seq_len(nrow(df)), 3L, labels = FALSE))
  paths <- file.path(dir, sprintf("part%d.%s", seq_along(parts), format))
  for (i in seq_along(parts)) {
    part <- df[parts[[i]], , drop = FALSE]
    if (format == "rds") saveRDS(part, paths[i]) else utils::write.csv(part, paths[i], row.names = FALSE)
  }
  paths
}

# ---- the relations ---------------------------------------------------------------

# Each relation: the responses it applies to, whether it needs a linear model
# (coefficients, columns) and the shapes it takes, and `run(src, d,
# response)`, which returns a named list of pairs list(a, b) that must agree
# to `tol` relative (meta_difference()).  `src$nd(x)` is new data in the
# source's form; `nd` a matrix of new rows.
meta_new <- function(d, m = 6L) {
  set.seed(99)
  x <- matrix(stats::rnorm(m * ncol(d$x)), m, ncol(d$x), dimnames = list(NULL, colnames(d$x)))
  x[, 1L] <- x[, 1L] * 3 + 1
  x
}

meta_outputs <- function(fit, src, nd, lambda = fit$lambda_min, prob = TRUE) {
  out <- list(response = predict(fit, src$newdata(nd), lambda = lambda))
  if (fit$type == "classification") {
    out$class <- predict(fit, src$newdata(nd), lambda = lambda, type = "class")
    if (prob) out$prob <- predict(fit, src$newdata(nd), lambda = lambda, type = "prob")
  }
  out
}

all_responses <- c("numeric", "multi", "binary", "multiclass")
classes <- c("binary", "multiclass")
regression <- c("numeric", "multi")

meta_relations <- list(
  # predicting at a lambda off the grid is refitting there: values, classes
  # and probabilities
  off_grid_is_refit = list(responses = all_responses, run = function(src, d, response) {
    fit <- src$fit(d, response, nlambda = 15)
    i <- max(2L, fit$index_min)
    at <- sqrt(fit$lambda[i - 1L] * fit$lambda[i])
    refit <- src$fit(d, response, lambda = at)
    nd <- meta_new(d)
    list(outputs = list(meta_outputs(fit, src, nd, at), meta_outputs(refit, src, nd, at)))
  }),
  # the grid's own lambda_min, refitted alone, gives the same outputs
  # (probabilities calibrated there too)
  lambda_min_is_refit = list(responses = all_responses, run = function(src, d, response) {
    fit <- src$fit(d, response, nlambda = 12)
    refit <- src$fit(d, response, lambda = fit$lambda_min)
    nd <- meta_new(d)
    list(outputs = list(meta_outputs(fit, src, nd), meta_outputs(refit, src, nd, fit$lambda_min)),
         loo = list(loo_predict(fit), loo_predict(refit)))
  }),
  # a column rescaled changes nothing under standardize = TRUE
  rescaled_column_standardized = list(responses = all_responses, linear = TRUE, run = function(src, d, response) {
    e <- d
    e$x[, 2L] <- e$x[, 2L] * 1000
    nd <- meta_new(d)
    ne <- nd
    ne[, 2L] <- ne[, 2L] * 1000
    a <- src$fit(d, response, standardize = TRUE, nlambda = 10)
    b <- src$fit(e, response, standardize = TRUE, nlambda = 10)
    list(lambda = list(a$lambda, b$lambda), cvm = list(a$cvm, b$cvm),
         outputs = list(meta_outputs(a, src, nd), meta_outputs(b, src, ne)),
         loo = list(loo_predict(a), loo_predict(b)))
  }),
  # rows given twice weigh as one row of twice the weight (at a fixed lambda)
  duplicated_rows_are_weight_two = list(responses = all_responses, run = function(src, d, response) {
    twice <- c(seq_len(nrow(d$x)), 1:5)
    dup <- meta_rows(d, twice)
    dup$fold <- rep_len(1:4, length(twice))
    heavy <- d
    heavy$w <- (d$w %||% rep(1, nrow(d$x))) * rep(c(2, 1), c(5L, nrow(d$x) - 5L))
    if (is.null(d$w)) dup$w <- NULL
    nd <- meta_new(d)
    a <- src$fit(dup, response, lambda = 0.7)
    b <- src$fit(heavy, response, lambda = 0.7)
    list(outputs = list(meta_outputs(a, src, nd, prob = FALSE), meta_outputs(b, src, nd, prob = FALSE)))
  }),
  # rows permuted: the same model, every per-row output permuted alike
  permuted_rows = list(responses = all_responses, run = function(src, d, response) {
    set.seed(5)
    perm <- sample.int(nrow(d$x))
    e <- meta_rows(d, perm)
    e$fold <- d$fold
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    nd <- meta_new(d)
    rows <- function(v) if (is.matrix(v)) unname(v[perm, , drop = FALSE]) else unname(v[perm])
    list(lambda = list(a$lambda, b$lambda), cvm = list(a$cvm, b$cvm),
         outputs = list(meta_outputs(a, src, nd, prob = FALSE), meta_outputs(b, src, nd, prob = FALSE)),
         loo = list(rows(loo_predict(a)), unname(loo_predict(b))),
         fitted = list(rows(fitted(a)), unname(fitted(b))),
         hat = list(rows(hatvalues(a)), unname(hatvalues(b))))
  }),
  # classes relabelled (the levels in another order): the same rule, the
  # probabilities' columns permuted, the classes the same
  relabelled_classes = list(responses = classes, run = function(src, d, response) {
    e <- d
    if (response == "binary") e$yb <- factor(d$yb, levels = rev(levels(d$yb)))
    else e$ym <- factor(d$ym, levels = c("c", "a", "b"))
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    nd <- meta_new(d)
    pa <- predict(a, src$newdata(nd), type = "prob")
    pb <- predict(b, src$newdata(nd), type = "prob")
    list(lambda_min = list(a$lambda_min, b$lambda_min),
         class = list(as.character(predict(a, src$newdata(nd), type = "class")),
                      as.character(predict(b, src$newdata(nd), type = "class"))),
         prob = list(pa, pb[, colnames(pa), drop = FALSE]))
  }),
  # y times c: coefficients, LOO values and fitted values times c, the same
  # lambda_min
  scaled_response = list(responses = regression, run = function(src, d, response) {
    e <- d
    e$y <- d$y * 7.5
    e$y2 <- d$y2 * 7.5
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    list(lambda_min = list(a$lambda_min, b$lambda_min), loo = list(7.5 * loo_predict(a), loo_predict(b)),
         predict = list(7.5 * predict(a, src$newdata(meta_new(d))), predict(b, src$newdata(meta_new(d)))))
  }),
  # y plus c: the intercept and every prediction move by c, nothing else
  shifted_response = list(responses = regression, run = function(src, d, response) {
    e <- d
    e$y <- d$y + 40
    e$y2 <- d$y2 + 40
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    list(cvm = list(a$cvm, b$cvm), loo = list(loo_predict(a) + 40, loo_predict(b)),
         predict = list(predict(a, src$newdata(meta_new(d))) + 40, predict(b, src$newdata(meta_new(d)))))
  }),
  # a row of weight 0 changes nothing
  zero_weight_row = list(responses = all_responses, run = function(src, d, response) {
    n <- nrow(d$x)
    e <- meta_rows(d, c(seq_len(n), 3L))
    e$x[n + 1L, ] <- e$x[n + 1L, ] * 5 + 2
    e$y[n + 1L] <- 100
    e$w <- c(d$w %||% rep(1, n), 0)
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    nd <- meta_new(d)
    list(lambda = list(a$lambda, b$lambda), cvm = list(a$cvm, b$cvm),
         outputs = list(meta_outputs(a, src, nd), meta_outputs(b, src, nd)),
         loo = list(loo_predict(a), head(loo_predict(b), n)))
  }),
  # a weight of 0 is a deletion: the row's fitted value with weight 0 is its
  # leave-one-out value (at one lambda)
  zero_weight_is_leave_one_out = list(responses = all_responses, run = function(src, d, response) {
    a <- src$fit(d, response, lambda = 0.8)
    out <- list()
    for (i in c(2L, 9L)) {
      e <- d
      e$w <- d$w %||% rep(1, nrow(d$x))
      e$w[i] <- 0
      b <- src$fit(e, response, lambda = 0.8)
      loo <- loo_predict(a)
      out[[paste0("row", i)]] <- list(if (is.matrix(loo)) loo[i, ] else loo[i],
                                      if (is.matrix(loo)) fitted(b)[i, ] else fitted(b)[i])
    }
    out
  }),
  # x shifted by a constant: the same slopes and predictions (of shifted rows)
  shifted_column = list(responses = all_responses, linear = TRUE, run = function(src, d, response) {
    e <- d
    e$x[, 1L] <- d$x[, 1L] + 1e3
    nd <- meta_new(d)
    ne <- nd
    ne[, 1L] <- ne[, 1L] + 1e3
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    list(lambda_min = list(a$lambda_min, b$lambda_min),
         outputs = list(meta_outputs(a, src, nd), meta_outputs(b, src, ne)))
  }),
  # x times c and lambda times c^2: the same predictions (of scaled rows)
  scaled_x_and_lambda = list(responses = all_responses, linear = TRUE, run = function(src, d, response) {
    e <- d
    e$x <- d$x * 4
    nd <- meta_new(d)
    a <- src$fit(d, response, lambda = c(10, 1, 0.1))
    b <- src$fit(e, response, lambda = c(10, 1, 0.1) * 16)
    list(cvm = list(a$cvm, b$cvm), outputs = list(meta_outputs(a, src, nd, 1, prob = FALSE),
                                                  meta_outputs(b, src, nd * 4, 16, prob = FALSE)))
  }),
  # weights times c and lambda times c: the same model
  scaled_weights_and_lambda = list(responses = all_responses, run = function(src, d, response) {
    e <- d
    e$w <- (d$w %||% rep(1, nrow(d$x))) * 3
    nd <- meta_new(d)
    a <- src$fit(d, response, lambda = c(2, 0.5))
    b <- src$fit(e, response, lambda = c(2, 0.5) * 3)
    list(cvm = list(a$cvm, b$cvm), loo = list(loo_predict(a, lambda = 0.5), loo_predict(b, lambda = 1.5)),
         outputs = list(meta_outputs(a, src, nd, 0.5), meta_outputs(b, src, nd, 1.5)))
  }),
  # columns permuted: coefficients permuted, predictions the same
  permuted_columns = list(responses = all_responses, linear = TRUE, run = function(src, d, response) {
    perm <- rev(seq_len(ncol(d$x)))
    e <- d
    e$x <- d$x[, perm, drop = FALSE]
    nd <- meta_new(d)
    a <- src$fit(d, response, nlambda = 10)
    b <- src$fit(e, response, nlambda = 10)
    list(lambda = list(a$lambda, b$lambda), cvm = list(a$cvm, b$cvm),
         outputs = list(meta_outputs(a, src, nd), meta_outputs(b, src, nd[, perm, drop = FALSE])))
  }),
  # a column given twice is the column times sqrt(2) (ridge shares it evenly)
  duplicated_column = list(responses = all_responses, linear = TRUE, run = function(src, d, response) {
    e <- d
    e$x <- cbind(d$x, dup = d$x[, 1L])
    f <- d
    f$x[, 1L] <- d$x[, 1L] * sqrt(2)
    nd <- meta_new(d)
    a <- src$fit(e, response, lambda = c(3, 0.3))
    b <- src$fit(f, response, lambda = c(3, 0.3))
    nf <- nd
    nf[, 1L] <- nd[, 1L] * sqrt(2)
    list(cvm = list(a$cvm, b$cvm),
         outputs = list(meta_outputs(a, src, cbind(nd, dup = nd[, 1L]), 0.3, prob = FALSE),
                        meta_outputs(b, src, nf, 0.3, prob = FALSE)))
  }),
  # K-fold with a fold per row is leave-one-out
  folds_of_one_row_are_loo = list(responses = all_responses, run = function(src, d, response) {
    e <- d
    e$fold <- seq_len(nrow(d$x))
    a <- src$fit(d, response, nlambda = 8)
    b <- src$fit(e, response, nlambda = 8, cv = nrow(d$x), foldid = e$fold)
    list(cvm = list(a$cvm, b$cvm), lambda_min = list(a$lambda_min, b$lambda_min))
  }),
  # two responses fitted together are each fitted alone (one lambda grid)
  joint_is_separate = list(responses = "multi", run = function(src, d, response) {
    grid <- c(5, 1, 0.2)
    a <- src$fit(d, "multi", lambda = grid)
    b <- src$fit(d, "numeric", lambda = grid)
    e <- d
    e$y <- d$y2
    c2 <- src$fit(e, "numeric", lambda = grid)
    nd <- meta_new(d)
    list(predict = list(unname(predict(a, src$newdata(nd), lambda = 0.2)),
                        unname(cbind(predict(b, src$newdata(nd), lambda = 0.2),
                                     predict(c2, src$newdata(nd), lambda = 0.2)))),
         loo = list(unname(loo_predict(a, lambda = 0.2)),
                    unname(cbind(loo_predict(b, lambda = 0.2), loo_predict(c2, lambda = 0.2)))))
  }),
  # the coefficients are the predictions: intercept + x beta
  coefficients_predict = list(responses = all_responses, linear = TRUE, run = function(src, d, response) {
    fit <- src$fit(d, response, nlambda = 10)
    nd <- meta_new(d)
    at <- fit$lambda_min * 1.7
    b <- as.matrix(coef(fit, lambda = at))
    list(predict = list(unname(as.matrix(predict(fit, src$newdata(nd), lambda = at))),
                        unname(cbind(1, nd) %*% b)))
  }),
  # the fitted values are the predictions at the training rows
  fitted_is_predict = list(responses = all_responses, run = function(src, d, response) {
    fit <- src$fit(d, response, nlambda = 10)
    list(fitted = list(unname(as.matrix(fitted(fit))),
                       unname(as.matrix(predict(fit, src$newdata(d$x))))))
  }),
  # a data-dependent formula term (poly(), scale()) takes its parameters
  # from all the rows, whatever the source
  formula_terms = list(responses = c("numeric", "binary"), formula_only = TRUE, run = function(src, d, response) {
    df <- meta_frame(d, response)
    # (ns() with its knots fixed: knots from the rows are refused on chunks)
    fml <- stats::as.formula("y ~ poly(x1, 2) + scale(x2) + splines::ns(x3, knots = 0, Boundary.knots = c(-4, 4))",
                             env = globalenv())
    memory <- rlsc(fml, data = df, lambda = 0.5)
    chunks <- rlsc(fml, data = if (isTRUE(src$chunks)) chunk_files(meta_files(df, "rds")) else df, lambda = 0.5)
    nd <- as.data.frame(meta_new(d))
    list(predict = list(predict(memory, nd), predict(chunks, nd)), coef = list(coef(memory), coef(chunks)))
  })
)

# ---- the cells -------------------------------------------------------------------

# Every applicable (relation, source, shape, response, weighted): chunk
# sources fit tall data only, kernel sources skip the linear relations, the
# formula relation runs on the formula sources.
meta_cells <- function() {
  cells <- expand.grid(relation = names(meta_relations), source = names(meta_sources),
                       shape = c("tall", "wide"), response = all_responses, weighted = c(FALSE, TRUE),
                       stringsAsFactors = FALSE)
  ok <- vapply(seq_len(nrow(cells)), function(i) {
    r <- meta_relations[[cells$relation[i]]]
    s <- meta_sources[[cells$source[i]]]
    cells$response[i] %in% r$responses &&
      !(isTRUE(r$linear) && isTRUE(s$kernel)) &&
      !(isTRUE(s$chunks) && cells$shape[i] == "wide") &&
      !(isTRUE(r$formula_only) && !cells$source[i] %in% c("formula", "files_rds"))
  }, NA)
  cells <- cells[ok, ]
  rownames(cells) <- NULL
  cells
}

# The cells to run: all, a number drawn at random, or "sample": for each
# relation one source, for each source one relation, and 40 cells more, all
# drawn at random (every relation and every source, a few seconds).
meta_choose <- function(which = "sample", seed = 1) {
  cells <- meta_cells()
  set.seed(seed)
  if (identical(which, "all")) return(cells)
  if (grepl("^[0-9]+$", which)) return(cells[sort(sample.int(nrow(cells), min(nrow(cells), as.integer(which)))), ])
  stopifnot(identical(which, "sample"))
  pick <- function(rows) rows[sample.int(length(rows), 1L)]
  chosen <- c(vapply(unique(cells$relation), function(r) pick(which(cells$relation == r)), 1L),
              vapply(unique(cells$source), function(s) pick(which(cells$source == s)), 1L),
              sample.int(nrow(cells), 40L))
  cells[sort(unique(chosen)), ]
}

# The relative difference of two results (nested lists of numbers, factors,
# characters): as the combination matrix measures it.
meta_difference <- function(a, b) value_difference(a, b)

# Runs one cell: character() when every pair agrees to `tol`, else what
# differed (or the error).
meta_run <- function(cell, tol = 1e-8) {
  cell <- as.list(cell)
  src <- meta_sources[[cell$source]]
  if (!is.null(src$needs) && !requireNamespace(src$needs, quietly = TRUE)) return(character())
  d <- meta_data(cell$shape, cell$weighted, seed = 100L + match(cell$relation, names(meta_relations)))
  pairs <- tryCatch(
    suppressWarnings(meta_relations[[cell$relation]]$run(src, d, cell$response)),
    error = function(e) e)
  if (inherits(pairs, "error")) return(paste("error:", conditionMessage(pairs)))
  out <- character()
  for (name in names(pairs)) {
    diff <- meta_difference(pairs[[name]][[1L]], pairs[[name]][[2L]])
    if (!(diff <= tol)) out <- c(out, sprintf("%s: relative difference %.3g", name, diff))
  }
  out
}
