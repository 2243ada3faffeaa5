# rlsc() on a chunk source (DESIGN.md, section 11): the primal engine in two
# map-reduce passes over the chunks.  Pass 1 merges the moments of each chunk
# (step 1) with Chan's update; the master eigendecomposes the d x d Gram (step
# 2) and chooses the grid; pass 2 runs the LOO path of each chunk's rows (step
# 3) with the global sum of weights and merges the per-lambda accumulators.
# Only d x d, d x T and L x T numbers travel; nothing of size n x L exists.

#' @rdname rlsc
#' @order 4
#' @export
rlsc.rlsc_chunks <- function(x, y, lambda = NULL, nlambda = 100, intercept = TRUE,
                             weights = NULL, criterion = NULL, kernel = "linear", mode = "primal",
                             standardize = FALSE, cv = "loo", penalty_factor = NULL, ...) {
  call <- match.call()
  call[[1L]] <- as.name("rlsc")
  if (!missing(y)) reject_chunked_args(y = y)
  if (!missing(weights)) reject_chunked_args(weights = weights)
  if (!missing(mode)) reject_chunked_args(mode = mode)
  reject_chunked_args(...)
  hold_blas_threads()
  check_linear_kernel(kernel)
  intercept <- check_flag(intercept, "intercept")
  first <- first_chunk(x)
  template <- matrix_template(first, x$levels)
  template <- scan_levels(x, template)
  if (inherits(kernel, "rlsc_features")) {
    return(chunked_features(x, template, call, lambda, nlambda, intercept, criterion,
                            standardize, cv, penalty_factor, kernel))
  }
  fit_chunks(x, template, call, lambda, nlambda, intercept, criterion, standardize, cv,
             penalty_factor)
}

# rlsc(formula, data = <chunk source>): the template from the first chunk and
# the levels pre-scan, then the same passes; the fit keeps the terms, levels
# and contrasts for predict().
chunked_formula <- function(formula, src, weights, na.action, contrasts, call, lambda = NULL,
                            nlambda = 100, criterion = NULL, kernel = "linear",
                            standardize = FALSE, cv = "loo", penalty_factor = NULL, ...) {
  reject_chunked_args(...)
  hold_blas_threads()
  check_linear_kernel(kernel)
  first <- first_chunk(src)
  template <- formula_template(formula, first, src$levels, weights, na.action, contrasts)
  template <- scan_levels(src, template)
  # the columns of the design with every level found, not only the first chunk's
  x1 <- tryCatch(
    design_matrix(template$terms, stats::model.frame(template$terms, first, na.action = stats::na.pass,
                                                     xlev = template$xlev), contrasts),
    error = function(e) {
      stop_chunk(1L, src$chunks[[1L]], conditionMessage(e), " (levels the pre-scan did not see)")
    })
  template$xnames <- colnames(x1)
  intercept <- attr(template$terms, "intercept") == 1L
  fit <- if (inherits(kernel, "rlsc_features")) {
    chunked_features(src, template, call, lambda, nlambda, intercept, criterion, standardize,
                     cv, penalty_factor, kernel)
  } else {
    fit_chunks(src, template, call, lambda, nlambda, intercept, criterion, standardize, cv,
               penalty_factor)
  }
  fit$terms <- template$terms
  environment(fit$terms) <- environment(formula)
  fit$xlevels <- template$xlev
  fit$contrasts <- attr(x1, "contrasts")
  fit
}

# The kernels a chunk source can be fitted with: the linear one, and the
# Nystrom and random-feature kernels (feature_fit.R), whose features are
# computed chunk by chunk.
check_linear_kernel <- function(kernel) {
  if (inherits(kernel, "rlsc_features")) return(invisible())
  if (!identical(kernel, "linear") && !identical(kernel, kernel_linear())) {
    stop_arg("a kernel fit needs all rows at once (its n x n kernel matrix): it cannot be ",
             "fitted from chunks; use the linear kernel, nystrom() or random_features(), or a ",
             "data set that fits in memory")
  }
}

reject_chunked_args <- function(...) {
  given <- dots_names(...)
  if ("foldid" %in% given) {
    stop_arg("`foldid` of a chunk source comes from the chunks: read() returns ",
             "list(x = , y = , weights = , foldid = ); or give `cv` = K")
  }
  for (arg in intersect(given, c("y", "weights"))) {
    stop_arg("`", arg, "` comes from the chunks of a chunk source: read() returns ",
             "list(x = , y = , weights = ) or a data frame")
  }
  if ("mode" %in% given) stop_arg("`mode`: a chunk source is fitted in the primal form only")
  check_no_dots(...)
}

first_chunk <- function(src) {
  if (!inherits(src, "rlsc_chunks")) stop_arg("`data` must be a data frame or a chunk source")
  chunk_call(function(data, i) data, src$chunks[[1L]], 1L, src$read)
}

# The two passes, the engine and the fit, for either interface.  With cv = K
# pass 1 keeps the moments of each fold apart and pass 2 evaluates each row
# with the engine of the other folds (kfold.R).
fit_chunks <- function(src, template, call, lambda, nlambda, intercept, criterion,
                       standardize, cv, penalty_factor = NULL) {
  args <- check_chunked_args(template, lambda, nlambda, criterion, cv, standardize)
  nlambda <- args$nlambda
  lambda <- args$lambda
  resp <- args$resp
  cv <- args$cv
  crit <- args$crit
  standardize <- args$standardize
  mom <- map_chunks(src, chunk_moments, merge_moments, template = template,
                    intercept = intercept, nfold = cv$K, what = "reading (pass 1)")
  if (!is.null(cv$K)) {
    mom <- c(Reduce(merge_moments, mom$folds), mom[c("n", "npos", "chunk_sumw", "ymax", "folds")])
  }
  if (sum(mom$n) < 2) stop_arg("the chunks must hold at least 2 rows, not ", sum(mom$n))
  if (sum(mom$npos) < 2) {
    stop_arg("the weights must be positive for at least 2 observations, not ", sum(mom$npos))
  }
  if (length(mom$xbar) > sum(mom$npos)) {
    stop_arg("the chunks hold fewer observations of positive weight (", sum(mom$npos),
             ") than columns (", length(mom$xbar), "): such data need the dual form, which ",
             "needs all rows at once; fit them in memory")
  }
  scale <- if (standardize) scale_from_moments(mom, intercept)
  pf <- check_penalty_factor(penalty_factor, matrix(0, 0, length(template$xnames)), NULL)
  if (!is.null(pf)) scale <- (scale %||% 1) * ifelse(pf > 0, sqrt(pf), 1)
  if (!is.null(scale)) {   # as rlsc.default() scales the columns before its one pass
    template$scale <- stats::setNames(scale, template$xnames)
    mom <- scale_moments(mom, template$scale)
    mom$folds <- lapply(mom$folds, scale_moments, template$scale)
  }
  template$free <- which(pf == 0)
  eng <- chunked_engine(src, template, mom, intercept)
  lambda <- lambda %||% default_lambda(eng$values, nlambda,
                                       least_squares_ok(eng, NULL, sum(mom$npos)))
  table_at <- function(l) {
    if (is.null(cv$K)) loo_table(eng, resp, l, crit) else {
      chunked_kfold_table(eng, mom$folds, intercept, l, crit)
    }
  }
  # pass 2 also evaluates the lambdas beyond_grid() probes past the ends of the
  # grid, so that the boundary check reads no chunk again
  probes <- setdiff(beyond_probes(eng, lambda), lambda)
  extended <- table_at(c(lambda, probes))
  path <- extended[seq_along(lambda), ]
  table_at <- function(l) extended[match(l, extended$lambda), ]
  warn_undefined(path$n_na)
  warn_unreliable(eng, lambda)
  x0 <- matrix(0, 0, length(template$xnames),
               dimnames = if (template$named) list(NULL, template$xnames))
  fit <- new_rlsc(call, eng, path, crit, resp, weights = NULL, intercept = intercept,
                  mode = "chunked", x = x0, scale = template$scale, nobs = sum(mom$n),
                  npos = sum(mom$npos), cv = cv)
  check_boundary(fit, eng, table_at)
  fit
}

# The arguments every fit of a chunk source checks (fit_chunks(), and
# chunked_features() of feature_fit.R), and the response as the template has it.
check_chunked_args <- function(template, lambda, nlambda, criterion, cv, standardize) {
  nlambda <- check_count(nlambda, "nlambda")
  lambda <- check_lambda(lambda)
  resp <- list(y = template$y0, type = template$type, classes = template$classes,
               multi = template$multi)
  cv <- check_chunk_cv(cv)
  crit <- check_per_response(FALSE, check_criterion(criterion, resp, cv$type), resp)
  if (needs_values(crit)) {
    stop_arg("`criterion` = \"", crit$name, "\" needs every row's predictions at once: ",
             "not available for a chunk source")
  }
  list(nlambda = nlambda, lambda = lambda, resp = resp, cv = cv, crit = crit,
       standardize = check_flag(standardize, "standardize"))
}

# `cv` of a chunk source: "loo", "gcv" or K folds, a row's fold coming from
# read()'s `foldid` or, without one, the rows of each chunk taking the folds in
# turn (chunk_folds()).
check_chunk_cv <- function(cv) {
  if (is.character(cv) && length(cv) == 1L && cv %in% c("loo", "gcv")) return(list(type = cv))
  if (!is.numeric(cv) || length(cv) != 1L || !is.finite(cv) || cv != round(cv) || cv < 2) {
    stop_arg("`cv` must be \"loo\", \"gcv\" or a whole number of folds of at least 2, not ",
             paste(format(cv, trim = TRUE), collapse = " "))
  }
  list(type = "kfold", K = as.integer(cv))
}

chunk_folds <- function(data, i, n, nfold) {
  if (is.list(data) && !is.data.frame(data) && !is.null(data$foldid)) {
    fold <- data$foldid
    if (length(fold) != n || !is.numeric(fold) || anyNA(fold) || any(!fold %in% seq_len(nfold))) {
      stop("`foldid` must hold one fold number from 1 to ", nfold, " per row")
    }
    return(as.integer(fold))
  }
  as.integer((i - 1 + seq_len(n) - 1) %% nfold + 1)
}

# The K-fold table of a chunked fit: pass 2 evaluates each chunk's rows of
# fold k with the engine of the other folds' merged moments.
chunked_kfold_table <- function(eng, folds, intercept, lambda, crit) {
  engines <- lapply(seq_along(folds), function(k) {
    moments_engine(Reduce(merge_moments, folds[-k]), intercept, sum(eng$source$n),
                   eng$source$template$free)
  })
  per_fold <- map_chunks(eng$source$src, chunk_kfold_path, merge_fold_paths,
                         template = eng$source$template,
                         engines = engines, lambda = lambda, unit = eng$source$unit,
                         classify = eng$source$template$type == "classification",
                         what = "reading (pass 2)")
  folds_table(per_fold, lambda, model_df(eng, lambda),
              eng$source$template$type == "classification", crit)
}

merge_fold_paths <- function(a, b) Map(merge_chunk_paths, a, b)

chunk_kfold_path <- function(data, i, template, engines, lambda, classify, unit) {
  rows <- chunk_rows(data, template)
  fold <- chunk_folds(data, i, nrow(rows$x), length(engines))
  lapply(seq_along(engines), function(k) {
    idx <- which(fold == k)
    part <- heldout_path(engines[[k]], rows$x[idx, , drop = FALSE], rows$y[idx, , drop = FALSE],
                         rows$w[idx], lambda, classify, list(name = "mse"), unit)
    part$npos <- sum(rows$w[idx] > 0)
    part
  })
}

# Pass 1 of one chunk: its moments (for K folds, one set per fold), and its row
# count and sum of weights (checked again in pass 2, to catch data that changed
# between the passes).
chunk_moments <- function(data, i, template, intercept, nfold = NULL) {
  rows <- chunk_rows(data, template)
  mom <- if (is.null(nfold)) {
    threaded(.Call(C_rlsc_moments, rows$x, rows$y, rows$w, intercept, thread_count()))
  } else {
    fold <- chunk_folds(data, i, nrow(rows$x), nfold)
    list(folds = lapply(seq_len(nfold), function(k) {
      idx <- which(fold == k)
      threaded(.Call(C_rlsc_moments, rows$x[idx, , drop = FALSE], rows$y[idx, , drop = FALSE], rows$w[idx],
                     intercept, thread_count()))
    }))
  }
  mom$n <- stats::setNames(nrow(rows$x) + 0, i)
  mom$ymax <- max_abs(rows$y)
  mom$npos <- sum(rows$w > 0)
  mom$chunk_sumw <- stats::setNames(sum(rows$w), i)
  mom
}

# Chan, Golub and LeVeque's pairwise update of weighted means and centered
# co-moments; without an intercept the moments are raw and add.
merge_moments <- function(a, b) {
  if (!is.null(a$folds)) {
    out <- merge_chunk_bookkeeping(a, b)
    out$folds <- Map(merge_moments, a$folds, b$folds)
    return(out)
  }
  out <- b
  w <- a$sumw + b$sumw
  if (a$sumw > 0 && b$sumw > 0) {
    dx <- b$xbar - a$xbar
    dy <- b$ybar - a$ybar
    f <- a$sumw * b$sumw / w
    out$xbar <- a$xbar + dx * (b$sumw / w)
    out$ybar <- a$ybar + dy * (b$sumw / w)
    out$sxx <- a$sxx + b$sxx + f * tcrossprod(dx)
    out$sxy <- a$sxy + b$sxy + f * tcrossprod(dx, dy)
  } else if (a$sumw > 0) {
    out[c("xbar", "ybar", "sxx", "sxy")] <- a[c("xbar", "ybar", "sxx", "sxy")]
  }
  out$sumw <- w
  out$xmax <- pmax(a$xmax, b$xmax)
  merge_chunk_bookkeeping(a, b, out)
}

merge_chunk_bookkeeping <- function(a, b, out = list()) {
  if (!is.null(a$n)) {
    out$ymax <- max(a$ymax, b$ymax)
    out$n <- c(a$n, b$n)
    out$npos <- a$npos + b$npos
    out$chunk_sumw <- c(a$chunk_sumw, b$chunk_sumw)
  }
  out
}

# standardize = TRUE from the merged moments: column_scale() without a pass.
scale_from_moments <- function(mom, intercept) {
  v <- diag(mom$sxx) / mom$sumw
  scale_from_variance(v, v + mom$xbar^2)
}

scale_moments <- function(mom, s) {
  mom$sxx <- mom$sxx / tcrossprod(s)
  mom$sxy <- mom$sxy / s
  mom$xbar <- mom$xbar / s
  mom$xmax <- mom$xmax / s
  mom
}

# The primal engine of merged moments; its rows stay in the chunks.
chunked_engine <- function(src, template, mom, intercept) {
  part <- moments_engine(mom, intercept, sum(mom$n), template$free)
  # as check_underflow() in memory: tiny cross-products of an `x` that varies.
  # Centered cross-products that underflowed to 0 say nothing; a column whose
  # largest magnitude exceeds that of its mean varies (without an intercept
  # the mean is 0: any non-zero value counts)
  varies <- any(diag(mom$sxx) > 0) || any(mom$xmax > abs(mom$xbar) * (1 + 1e-12))
  if (max(part$all_values, 0) < .Machine$double.xmin / .Machine$double.eps && varies) {
    stop_arg("`x` is too small in magnitude: its weighted cross-products underflow; ",
             "rescale `x` (or `weights`)")
  }
  new_engine("primal", values = part$values, dropped = part$dropped, basis = NULL,
             direct = NULL, q = NULL, r0 = NULL, g = part$g, ybar = part$ybar,
             w = NULL, intercept = intercept, center = part$center, v = part$v,
             beta0 = part$beta0, free_map = part$free_map, noise = part$noise,
             source = list(src = src, template = template, n = mom$n, chunk_sumw = mom$chunk_sumw,
                           sumw = mom$sumw, unit = loss_unit(mom$ymax)))
}

# Pass 2 (and every later pass): the LOO path of each chunk's rows, merged.
engine_path.rlsc_chunked <- function(eng, y, lambda, classify = FALSE, keep = FALSE,
                                     sums = FALSE) {
  source <- eng$source
  out <- map_chunks(source$src, chunk_path, merge_chunk_paths, eng = eng, lambda = lambda,
                    classify = classify, keep = keep, what = "reading (pass 2)")
  if (keep) {
    out$omh <- do.call(rbind, out$omh)
    for (k in c("fitted", "loo")) out[[k]] <- bind_rows3(out[[k]])
    out$y <- do.call(rbind, out$y)
    out$weights <- unlist(out$weights, use.names = FALSE)
  }
  out$df <- model_df(eng, lambda)
  out
}

chunk_path <- function(data, i, eng, lambda, classify, keep) {
  source <- eng$source
  rows <- chunk_rows(data, source$template)
  n <- nrow(rows$x)
  key <- as.character(i)
  if (n != source$n[[key]] || !isTRUE(all.equal(sum(rows$w), source$chunk_sumw[[key]],
                                                 tolerance = 1e-12))) {
    stop("its data changed between the passes: ", n, " rows with weights summing to ",
         format(sum(rows$w)), " now, ", source$n[[key]], " rows summing to ",
         format(source$chunk_sumw[[key]]), " in pass 1")
  }
  basis <- project_rows(rows$x, eng$center, eng$v)
  q <- 1 - eng$intercept * rows$w / source$sumw - free_leverage(rows$x, rows$w, eng)
  r0 <- offset_residuals(rows$x, rows$y, eng)
  unit <- source$unit   # one for every chunk, so that their losses merge
  part <- in_units(threaded(.Call(C_rlsc_loo_path, basis, eng$values, eng$g / unit, q, r0, rows$y,
                                  rows$w, rows$w, seq_len(n), lambda, FALSE, classify, keep,
                                  thread_count(), NULL, unit)),
                   unit, ncol(rows$y))
  part$npos <- sum(rows$w > 0)
  if (keep) {
    part[c("omh", "fitted", "loo", "y", "weights")] <-
      list(list(part$omh), list(part$fitted), list(part$loo), list(rows$y), list(rows$w))
  }
  part
}

merge_chunk_paths <- function(a, b) {
  out <- b
  out[c("w", "mean", "m2")] <- merge_stats(a, b)
  out$n_na <- a$n_na + b$n_na
  out$npos <- a$npos + b$npos
  for (k in c("omh", "fitted", "loo", "y", "weights")) out[[k]] <- c(a[[k]], b[[k]])
  out
}

# n1 x T x L, n2 x T x L, ... stacked along the rows.
bind_rows3 <- function(parts) {
  dims <- dim(parts[[1L]])
  n <- vapply(parts, function(p) dim(p)[1L], 1L)
  out <- array(NA_real_, c(sum(n), dims[2L], dims[3L]))
  at <- 0L
  for (k in seq_along(parts)) {
    if (n[k]) out[at + seq_len(n[k]), , ] <- parts[[k]]
    at <- at + n[k]
  }
  out
}

# predict(fit, newdata = <chunk source>): the decision values of every chunk's
# rows, in chunk order (rows with NA values of a formula fit's variables give
# NA).  The workers get a slim copy of the fit: what predict() needs at this
# lambda, without the training rows of a linear fit.
predict_chunks <- function(object, src, lambda) {
  l <- lambda_value(object, lambda)
  keep <- c("path", "criterion", "lambda_min", "lambda_1se", "terms", "xlevels", "contrasts",
            "nvars", "xnames", "scale", "kernel", "features", "nobs", "type", "classes")
  slim <- structure(c(unclass(object)[intersect(keep, names(object))],
                      list(engine = engine_at(object$engine, l), y = object$y[0L, , drop = FALSE])),
                    class = class(object))
  parts <- map_chunks(src, predict_chunk, c, slim = slim, lambda = l, what = "predicting")
  out <- do.call(rbind, parts)
  rownames(out) <- NULL   # each chunk numbers its own rows
  out
}

predict_chunk <- function(data, i, slim, lambda) {
  newdata <- if (is.null(slim$terms) && is.list(data) && !is.data.frame(data)) data$x else data
  list(predict_matrix(slim, newdata, lambda))
}
