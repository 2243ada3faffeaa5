# rlsc() on a chunk source (DESIGN.md, section 11): the primal engine in two
# map-reduce passes over the chunks.  Pass 1 merges the moments of each chunk
# (step 1) with Chan's update; the master eigendecomposes the d x d Gram (step
# 2) and chooses the grid; pass 2 runs the LOO path of each chunk's rows (step
# 3) with the global sum of weights and merges the per-lambda accumulators.
# Only d x d, d x T and L x T numbers travel; nothing of size n x L exists.

#' @rdname rlsc
#' @export
rlsc.rlsc_chunks <- function(x, y, lambda = NULL, nlambda = 100, intercept = TRUE,
                             weights = NULL, criterion = NULL, kernel = "linear", mode = "primal",
                             standardize = FALSE, ...) {
  call <- match.call()
  call[[1L]] <- as.name("rlsc")
  if (!missing(y)) reject_chunked_args(y = y)
  if (!missing(weights)) reject_chunked_args(weights = weights)
  if (!missing(mode)) reject_chunked_args(mode = mode)
  reject_chunked_args(...)
  check_linear_kernel(kernel)
  intercept <- check_flag(intercept, "intercept")
  first <- first_chunk(x)
  template <- matrix_template(first, x$levels)
  template <- scan_levels(x, template)
  if (inherits(kernel, "rlsc_features")) {
    return(chunked_features(x, template, call, lambda, nlambda, intercept, criterion,
                            standardize, kernel))
  }
  fit_chunks(x, template, call, lambda, nlambda, intercept, criterion, standardize)
}

# rlsc(formula, data = <chunk source>): the template from the first chunk and
# the levels pre-scan, then the same passes; the fit keeps the terms, levels
# and contrasts for predict().
chunked_formula <- function(formula, src, weights, na.action, contrasts, call, lambda = NULL,
                            nlambda = 100, criterion = NULL, kernel = "linear",
                            standardize = FALSE, ...) {
  reject_chunked_args(...)
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
                     kernel)
  } else {
    fit_chunks(src, template, call, lambda, nlambda, intercept, criterion, standardize)
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

# The two passes, the engine and the fit, for either interface.
fit_chunks <- function(src, template, call, lambda, nlambda, intercept, criterion,
                       standardize) {
  nlambda <- check_count(nlambda, "nlambda")
  lambda <- check_lambda(lambda)
  criterion <- check_criterion(criterion, template$type)
  standardize <- check_flag(standardize, "standardize")
  mom <- map_chunks(src, chunk_moments, merge_chunk_moments, template = template,
                    intercept = intercept, what = "reading (pass 1)")
  if (sum(mom$n) < 2) stop_arg("the chunks must hold at least 2 rows, not ", sum(mom$n))
  if (sum(mom$npos) < 2) {
    stop_arg("the weights must be positive for at least 2 observations, not ", sum(mom$npos))
  }
  if (length(mom$xbar) > sum(mom$npos)) {
    stop_arg("the chunks hold fewer observations of positive weight (", sum(mom$npos),
             ") than columns (", length(mom$xbar), "): such data need the dual form, which ",
             "needs all rows at once; fit them in memory")
  }
  if (standardize) {
    template$scale <- stats::setNames(scale_from_moments(mom, intercept), template$xnames)
    mom <- scale_moments(mom, template$scale)
  }
  eng <- chunked_engine(src, template, mom, intercept)
  lambda <- lambda %||% default_lambda(eng$values, nlambda)
  resp <- list(y = template$y0, type = template$type)
  path <- loo_table(eng, resp, lambda)
  warn_undefined(path$n_na)
  warn_unreliable(eng, lambda)
  x0 <- matrix(0, 0, length(template$xnames), dimnames = list(NULL, template$xnames))
  fit <- new_rlsc(call, eng, path, criterion,
                  list(y = template$y0, type = template$type, classes = template$classes,
                       multi = template$multi),
                  weights = NULL, intercept = intercept, mode = "chunked", x = x0,
                  scale = template$scale, nobs = sum(mom$n), npos = sum(mom$npos))
  if (length(eng$values)) warn_boundary(fit$index_min, length(lambda))
  fit
}

# Pass 1 of one chunk: its moments, and its row count and sum of weights
# (checked again in pass 2, to catch data that changed between the passes).
chunk_moments <- function(data, i, template, intercept) {
  rows <- chunk_rows(data, template)
  mom <- .Call(C_rlsc_moments, rows$x, rows$y, rows$w, intercept)
  mom$n <- stats::setNames(nrow(rows$x) + 0, i)
  mom$npos <- sum(rows$w > 0)
  mom$chunk_sumw <- stats::setNames(sum(rows$w), i)
  mom
}

# Chan, Golub and LeVeque's pairwise update of weighted means and centered
# co-moments; without an intercept the moments are raw and add.
merge_chunk_moments <- function(a, b) {
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
  out$n <- c(a$n, b$n)
  out$npos <- a$npos + b$npos
  out$chunk_sumw <- c(a$chunk_sumw, b$chunk_sumw)
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
  check_overflow(mom$sxx, "x")
  eig <- .Call(C_rlsc_eigen, mom$sxx)
  if (max(eig$values, 0) < .Machine$double.xmin / .Machine$double.eps && any(mom$xmax > 0) &&
      any(diag(mom$sxx) > 0)) {
    stop_arg("`x` is too small in magnitude: its weighted cross-products underflow; ",
             "rescale `x` (or `weights`)")
  }
  m <- max(sum(mom$n), length(mom$xbar))
  kept <- kept_directions(eig$values, m, direction_floor(eig$vectors, mom$xmax, mom$sumw, m))
  v <- eig$vectors[, kept$keep, drop = FALSE]
  new_engine("primal", values = eig$values[kept$keep], dropped = kept$dropped, basis = NULL,
             direct = NULL, q = NULL, r0 = NULL, g = crossprod(v, mom$sxy), ybar = mom$ybar,
             w = NULL, intercept = intercept, center = mom$xbar, v = v,
             source = list(src = src, template = template, n = mom$n,
                           chunk_sumw = mom$chunk_sumw, sumw = mom$sumw))
}

# Pass 2 (and every later pass): the LOO path of each chunk's rows, merged.
engine_path.rlsc_chunked <- function(eng, y, lambda, classify = FALSE, keep = FALSE) {
  source <- eng$source
  out <- map_chunks(source$src, chunk_path, merge_chunk_paths, eng = eng, lambda = lambda,
                    classify = classify, keep = keep, what = "reading (pass 2)")
  if (keep) {
    out$omh <- do.call(rbind, out$omh)
    for (k in c("fitted", "loo")) out[[k]] <- bind_rows3(out[[k]])
    out$y <- do.call(rbind, out$y)
    out$weights <- unlist(out$weights, use.names = FALSE)
  }
  out$df <- effective_df(eng$values, lambda)
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
  q <- 1 - eng$intercept * rows$w / source$sumw
  r0 <- rows$y - rep(eng$ybar, each = n)
  part <- .Call(C_rlsc_loo_path, basis, eng$values, eng$g, q, r0, rows$y, rows$w, rows$w,
                seq_len(n), lambda, FALSE, classify, keep)
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
