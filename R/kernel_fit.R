# Kernel RLS: the fit over the grid of kernel parameters x lambda, and the
# methods of its class "rlsc_kernel_fit" (which extends "rlsc").
#
# The dual form of DESIGN.md section 2 serves any positive semi-definite kernel:
# with s = sqrt(w) and P = I - 1 w'/sum(w), the weighted double-centered kernel
# of the rows of positive weight is Kt = D_s P K P' D_s = U Lambda U', and
# B_ik = U_ik sqrt(Lambda_k) / s_i, g = B' (w o (y - ybar)) are all the LOO path
# (src/path.c) needs.  The dual coefficients at lambda are
#   c = w o (B a),  a = g / (Lambda (Lambda + lambda)),  sum(c) = 0,
# and f(x) = b + sum_i c_i k(x, x_i) with b = ybar - sum_i c_i kbar_i,
# kbar_i = sum_j w_j K_ij / sum(w).  Rows of zero weight are not in Kt: their
# rows of B come from the cross-kernel, B_0 = (K_0 - 1 kbar') (w o B) / Lambda.

fit_kernel <- function(x, resp, weights, lambda, nlambda, intercept, criterion, kernel,
                       keep_eigen, call) {
  pos <- weights > 0
  if (kernel$name == "rbf" && is.null(kernel$params$sigma)) {
    kernel$params$sigma <- median_heuristic(x[pos, , drop = FALSE])
  }
  settings <- expand_kernel(kernel)
  nk <- length(settings$kernels)
  tiebreak <- criterion == "misclass"
  bar <- if (show_progress(nk)) {
    cli::cli_progress_bar("Exact LOO over the kernel parameters", total = nk)
  }
  tables <- vector("list", nk)
  best <- NULL
  for (j in seq_len(nk)) {
    kern <- settings$kernels[[j]]
    eng <- kernel_engine(kern, x, resp$y, weights, intercept)
    lam <- lambda %||% default_lambda(eng$values, nlambda)
    path <- loo_path(eng, resp, weights, lam, intercept, keep = FALSE)
    tab <- path_table(lam, path)
    tables[[j]] <- tab
    crit <- tab[[criterion]]
    if (any(!is.na(crit))) {
      sel <- select_lambda(crit, tab[[paste0(criterion, "_se")]], if (tiebreak) tab$mse)
      score <- c(crit[sel$index_min], if (tiebreak) tab$mse[sel$index_min])
      if (is.null(best) || better_score(score, best$score)) {
        best <- list(j = j, score = score, sel = sel, lambda = lam, table = tab,
                     rank = length(eng$values), engine = if (keep_eigen) eng,
                     solutions = kernel_solutions(eng, resp, weights, intercept,
                                                  lam[c(sel$index_min, sel$index_1se)]))
      }
    }
    rm(eng)
    if (!is.null(bar)) cli::cli_progress_update(id = bar)
  }
  if (!is.null(bar)) cli::cli_progress_done(id = bar)
  if (is.null(best)) {
    stop_arg("the leave-one-out criterion is undefined (NA) at every value of `lambda` ",
             "for every kernel parameter; use larger values of `lambda`")
  }
  warn_undefined(best$table$n_na)
  # without any direction (a constant kernel) every lambda gives the same fit
  if (best$rank) warn_boundary(best$sel$index_min, length(best$lambda))
  warn_kernel_boundary(settings$grid, best$j)

  chosen <- settings$kernels[[best$j]]
  kernel_path <- if (is.null(settings$grid)) tables[[1L]] else {
    cbind(settings$grid[rep(seq_len(nk), each = length(best$lambda)), , drop = FALSE],
          do.call(rbind, tables))
  }
  rownames(kernel_path) <- NULL
  sel <- best$sel
  structure(list(
    call = call, lambda = best$lambda, df = best$table$df,
    cvm = best$table[[criterion]], cvsd = best$table[[paste0(criterion, "_se")]],
    criterion = criterion, path = best$table,
    lambda_min = best$lambda[sel$index_min], lambda_1se = best$lambda[sel$index_1se],
    index_min = sel$index_min, index_1se = sel$index_1se,
    kernel = chosen, sigma_min = if (chosen$name == "rbf") chosen$params$sigma,
    kernel_grid = settings$grid, kernel_path = kernel_path, index_kernel = best$j,
    type = resp$type, classes = resp$classes, multi = resp$multi,
    y = resp$y, weights = weights, intercept = intercept, mode = "kernel",
    nobs = nrow(x), nvars = ncol(x), xnames = column_names(x),
    rownames = rownames(x),
    x = if (kernel$name != "precomputed") x[pos, , drop = FALSE],
    solutions = best$solutions, engine = best$engine
  ), class = c("rlsc_kernel_fit", "rlsc"))
}

# Like warn_boundary() for lambda: a numeric kernel parameter chosen at the
# smallest or largest of several values tried may do better beyond them.
warn_kernel_boundary <- function(grid, j) {
  for (p in names(grid)) {
    values <- unique(grid[[p]])
    if (!is.numeric(values) || length(values) < 2L) next
    chosen <- grid[[p]][j]
    end <- if (chosen == min(values)) "smallest" else if (chosen == max(values)) "largest"
    if (is.null(end)) next
    warning("the chosen kernel parameter `", p, "` = ", format(chosen), " is the ", end,
            " value tried; the criterion may improve beyond it, so consider extending ",
            "its values", call. = FALSE)
  }
}

# Lexicographic comparison of (criterion, tie-break): strictly better only, so
# the first kernel setting wins ties.
better_score <- function(a, b) {
  for (k in seq_along(a)) if (a[k] != b[k]) return(a[k] < b[k])
  FALSE
}

show_progress <- function(total) {
  total > 1L && isTRUE(getOption("rlsc.progress", TRUE)) && interactive() &&
    requireNamespace("cli", quietly = TRUE)
}

# The factorization of one kernel setting, in the shape the LOO path takes.
kernel_engine <- function(kernel, x, y, w, intercept) {
  pos <- w > 0
  n <- nrow(x)
  src <- x
  type <- kernel$name
  if (type == "custom") {
    src <- custom_kernel(kernel, x[pos, , drop = FALSE])
    type <- "precomputed"
  }
  wsrc <- if (type == "precomputed" && kernel$name == "custom") w[pos] else w
  params <- if (type == "precomputed") numeric(0) else kernel_params(kernel)
  eig <- .Call(C_rlsc_kernel_eigen, src, wsrc, type, params, intercept, n * .Machine$double.eps)
  rm(src)
  if (kernel$name %in% c("custom", "precomputed")) warn_indefinite(eig$values)
  r <- ncol(eig$b)
  values <- eig$values[seq_len(r)]
  b <- eig$b
  if (any(!pos)) {
    b <- matrix(0, n, r)
    b[pos, ] <- eig$b
    if (r > 0L) {
      k0 <- if (kernel$name == "precomputed") x[!pos, pos, drop = FALSE] else
        kernel_cross(kernel, x[!pos, , drop = FALSE], x[pos, , drop = FALSE])
      if (intercept) k0 <- sweep(k0, 2L, eig$kbar)
      b[!pos, ] <- sweep(k0 %*% (w[pos] * eig$b), 2L, values, "/")
    }
  }
  ybar <- if (intercept) colSums(w * y) / sum(w) else rep(0, ncol(y))
  kbar <- numeric(n)
  kbar[pos] <- eig$kbar
  list(mode = "kernel", values = values, b = b,
       g = crossprod(b, w * sweep(y, 2L, ybar)), ybar = ybar, kbar = kbar, w = w)
}

warn_indefinite <- function(values) {
  top <- max(values, 0)
  low <- min(values)
  if (low < -1e-8 * top) {
    warning("the kernel matrix is not positive semi-definite (smallest eigenvalue of the ",
            "centered kernel ", format(low, digits = 3), ", largest ", format(top, digits = 3),
            "); its negative eigenvalues are treated as 0", call. = FALSE)
  }
}

# Dual coefficients, intercept, fitted and LOO values at the given lambdas.
kernel_solutions <- function(eng, resp, w, intercept, lambda) {
  lambda <- unique(lambda)
  path <- loo_path(eng, resp, w, lambda, intercept, keep = TRUE)
  n <- nrow(eng$b)
  out <- lapply(seq_along(lambda), function(l) {
    a <- eng$g * (spectral_filter(eng$values, lambda[l]) / eng$values)
    cf <- w * (eng$b %*% a)
    list(lambda = lambda[l], c = cf,
         intercept = if (intercept) eng$ybar - colSums(eng$kbar * cf) else 0 * eng$ybar,
         fitted = matrix(path$fitted[, , l], n), loo = matrix(path$loo[, , l], n),
         n_na = path$n_na[l])
  })
  stats::setNames(out, sprintf("%.17g", lambda))
}

# The solution at one lambda of the grid: stored for lambda_min and lambda_1se,
# computed from the eigendecomposition for others when it was kept.
kernel_solution <- function(object, lambda) {
  l <- object$lambda[lambda_index(object, lambda)]
  hit <- object$solutions[[sprintf("%.17g", l)]]
  if (!is.null(hit)) return(hit)
  if (is.null(object$engine)) {
    stop_arg("`lambda` = ", format(l), " is neither `lambda_min` nor `lambda_1se`; refit with ",
             "`keep_eigen = TRUE` to use the other values of the grid")
  }
  kernel_solutions(object$engine, object, object$weights, object$intercept, l)[[1L]]
}

#' Methods for kernel fits
#'
#' Fits made by [rlsc()] with a kernel other than the linear one have class
#' `rlsc_kernel_fit` (extending `rlsc`). Their coefficients are the dual
#' coefficients \eqn{c} (one per training row; zero for rows of zero weight)
#' and the intercept \eqn{b} of \eqn{f(x) = b + \sum_i c_i k(x, x_i)}.
#'
#' By default a kernel fit keeps the solutions at `lambda_min` and
#' `lambda_1se` only, not the eigendecomposition: `coef()`, `predict()`,
#' `loo_predict()`, `fitted()`, `residuals()` and `augment()` at the other
#' values of `lambda` need a fit made with `keep_eigen = TRUE`.
#'
#' [predict()], [loo_predict()], [fitted()], [residuals()], [summary()] and
#' the tidiers work on kernel fits as on linear ones ([predict.rlsc()] takes
#' the \eqn{m \times n} cross-kernel as `newdata` for `kernel =
#' "precomputed"`).
#'
#' @param object,x a kernel fit from [rlsc()].
#' @param lambda a value of `lambda` of the fit, or `"lambda_min"` /
#'   `"lambda_1se"`.
#' @param type `"criterion"`; `"coef"` (the coefficient paths of linear fits)
#'   is an error, since a kernel fit keeps its dual coefficients at
#'   `lambda_min` and `lambda_1se` only.
#' @param xlab,ylab axis labels.
#' @param digits significant digits.
#' @param ... not used by `coef()` and `print()`;
#'   graphical arguments for `plot()`.
#' @return `coef()`: a named vector `(Intercept), c_1, ..., c_n` for one
#'   response column, else a matrix with a column per response column (class).
#'   `plot()`, `print()`: `x`, invisibly.
#' @name rlsc_kernel_fit
#' @examples
#' x <- as.matrix(mtcars[, -1])
#' fit <- rlsc(scale(x), mtcars$mpg, kernel = kernel_rbf(sigma = c(4, 8, 16)))
#' fit
#' head(coef(fit))
#' predict(fit, scale(x)[1:3, ])
#' plot(fit)
NULL

#' @rdname rlsc_kernel_fit
#' @export
coef.rlsc_kernel_fit <- function(object, lambda = object$lambda_min, ...) {
  check_no_dots(...)
  sol <- kernel_solution(object, lambda)
  out <- rbind(sol$intercept, sol$c)
  dimnames(out) <- list(c("(Intercept)", object$rownames %||% paste0("c", seq_len(object$nobs))),
                        response_names(object))
  if (ncol(out) == 1L) out[, 1L] else out
}

# Decision values (m x T) at a new design: through the cross-kernel with the
# training rows, or, for a precomputed kernel, from the m x n cross-kernel given.
kernel_predict <- function(object, newdata, lambda) {
  sol <- kernel_solution(object, lambda)
  pos <- object$weights > 0
  if (object$kernel$name == "precomputed") {
    if (ncol(newdata) != object$nobs) {
      stop_arg("`newdata` must be the m x ", object$nobs, " cross-kernel between the new rows ",
               "and the ", object$nobs, " training rows for `kernel` = \"precomputed\", not ",
               nrow(newdata), " x ", ncol(newdata))
    }
    k <- newdata[, pos, drop = FALSE]
  } else {
    if (ncol(newdata) != object$nvars) {
      stop_arg("`newdata` must have ", object$nvars, " columns (as the training `x`), not ",
               ncol(newdata))
    }
    if (!is.null(object$scale)) newdata <- scale_columns(newdata, object$scale)
    k <- kernel_cross(object$kernel, as.matrix(newdata), object$x)
  }
  f <- k %*% sol$c[pos, , drop = FALSE] + rep(sol$intercept, each = nrow(k))
  dimnames(f) <- list(rownames(newdata), response_names(object))
  f
}

#' @rdname rlsc_kernel_fit
#' @export
print.rlsc_kernel_fit <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  NextMethod()
  cat("Kernel: ", format(x$kernel), sep = "")
  if (!is.null(x$kernel_grid) && nrow(x$kernel_grid) > 1L) {
    cat(sprintf(", chosen among %d settings by exact LOO\n\n", nrow(x$kernel_grid)))
    print(kernel_summary(x), digits = digits, row.names = FALSE)
  }
  cat("\n")
  invisible(x)
}

# The best value of the criterion for each kernel setting.
kernel_summary <- function(x) {
  tab <- x$kernel_path
  crit <- tab[[x$criterion]]
  setting <- rep(seq_len(nrow(x$kernel_grid)), each = length(x$lambda))
  best <- vapply(split(seq_len(nrow(tab)), setting), function(rows) {
    if (all(is.na(crit[rows]))) NA_integer_ else rows[which.min(crit[rows])]
  }, 1L)
  out <- x$kernel_grid
  out$lambda <- tab$lambda[best]
  out[[x$criterion]] <- crit[best]
  out$chosen <- ifelse(seq_len(nrow(out)) == x$index_kernel, "*", "")
  out
}

#' @rdname rlsc_kernel_fit
#' @export
plot.rlsc_kernel_fit <- function(x, type = c("criterion", "coef"),
                                 xlab = expression(log[10](lambda)),
                                 ylab = criterion_label(x$criterion), ...) {
  type <- match.arg(type)
  if (type == "coef") return(plot_coef(x))
  grid <- x$kernel_grid
  if (is.null(grid) || nrow(grid) == 1L) return(NextMethod())
  tab <- x$kernel_path
  ok <- !is.na(tab[[x$criterion]]) & tab$lambda > 0
  setting <- rep(seq_len(nrow(grid)), each = length(x$lambda))
  cols <- grDevices::hcl.colors(nrow(grid), "Dark 3")
  # up to the criterion at the largest lambda (near the intercept-only model):
  # curves that blow up at small lambda are cut off instead of flattening the rest
  crit <- tab[[x$criterion]]
  top <- max(crit[ok & !duplicated(setting)], x$cvm[x$index_1se], na.rm = TRUE)
  graphics::plot(log10(tab$lambda[ok]), crit[ok], type = "n", xlab = xlab, ylab = ylab,
                 ylim = c(min(crit[ok]), top), ...)
  chosen <- x$index_kernel
  for (i in seq_len(nrow(grid))) {
    rows <- which(ok & setting == i)
    graphics::lines(log10(tab$lambda[rows]), crit[rows], col = cols[i],
                    lwd = if (i %in% chosen) 3 else 1)
  }
  graphics::abline(v = log10(c(x$lambda_min, x$lambda_1se)), lty = 2,
                   col = c("firebrick", "steelblue"))
  labels <- vapply(seq_len(nrow(grid)), function(i) {
    format_params(as.list(grid[i, , drop = FALSE]))
  }, "")
  graphics::legend("topleft", labels, col = cols, lwd = ifelse(seq_along(labels) %in% chosen, 3, 1),
                   bty = "n", cex = 0.8)
  invisible(x)
}
