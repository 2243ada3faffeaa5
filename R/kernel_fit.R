# Kernel RLS: the search over the grid of kernel parameters x lambda.  Each
# kernel setting is one dual engine (dual.R) and one LOO path over its lambda
# grid; the best setting's engine is kept (keep_eigen = TRUE) or, by default,
# its snapshot at every lambda of its grid (snapshot.R).  The fit itself is
# built by new_rlsc(), with class "rlsc_kernel_fit".  `engine_of(kern)` builds
# the engine of one setting and `table_of(eng, kern, lambda)` its validation
# table: by default the dual engine of the kernel on `x` and its LOO or K-fold
# table; Nystrom and random-feature kernels pass the primal engine of their
# features and its table (feature_fit.R).

fit_kernel <- function(x, resp, weights, lambda, nlambda, intercept, crit, cv, kernel,
                       keep_eigen, engine_of = NULL, table_of = NULL) {
  pos <- weights > 0
  if (kernel$name == "rbf" && is.null(kernel$params$sigma)) {
    kernel$params$sigma <- median_heuristic(x[pos, , drop = FALSE])
  }
  engine_of <- engine_of %||% function(kern) dual_engine(kern, x, resp$y, weights, intercept)
  table_of <- table_of %||% function(eng, kern, lam) {
    validation_table(eng, x, resp, weights, intercept, lam, crit, cv, kern)
  }
  settings <- expand_kernel(kernel)
  nk <- length(settings$kernels)
  tiebreak <- crit$name == "misclass"
  bar <- if (show_progress(nk)) {
    cli::cli_progress_bar("Exact LOO over the kernel parameters", total = nk)
  }
  tables <- vector("list", nk)
  best <- NULL
  for (j in seq_len(nk)) {
    kern <- settings$kernels[[j]]
    eng <- engine_of(kern)
    if (is.null(lambda)) check_spectrum_range(eng$values, "the weighted centered kernel")
    lam <- lambda %||% default_lambda(eng$values, nlambda, least_squares_ok(eng, resp$y))
    tab <- table_of(eng, kern, lam)
    tables[[j]] <- tab
    value <- tab[[crit$name]] * if (crit$maximize) -1 else 1
    if (any(!is.na(value))) {
      sel <- select_lambda(value, tab[[paste0(crit$name, "_se")]], if (tiebreak) tab$mse)
      score <- c(value[sel$index_min], if (tiebreak) tab$mse[sel$index_min])
      if (is.null(best) || better_score(score, best$score)) {
        best <- list(j = j, score = score, sel = sel, lambda = lam, table = tab,
                     rank = length(eng$values), loose = direct_rows_loose(eng, resp$y, lam),
                     # K-fold past the grid would cost K more decompositions: say "may"
                     beyond = if (cv$type == "kfold") {
                       if (lam[sel$index_min] > 0) NA
                     } else {
                       beyond_grid(eng, function(l) table_of(eng, kern, l), crit$name,
                                   crit$maximize, lam, sel$index_min)
                     },
                     engine = if (keep_eigen) eng else new_snapshot(eng, resp$y, lam))
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
  warn_unreliable(best$engine, best$lambda)
  warn_direct_rows(best$loose, best$lambda)
  # without any direction (a constant kernel) every lambda gives the same fit
  if (best$rank) warn_boundary(best$sel$index_min, length(best$lambda), best$beyond)
  warn_kernel_boundary(settings$grid, best$j)

  chosen <- settings$kernels[[best$j]]
  kernel_path <- if (is.null(settings$grid)) tables[[1L]] else {
    cbind(settings$grid[rep(seq_len(nk), each = length(best$lambda)), , drop = FALSE],
          do.call(rbind, tables))
  }
  rownames(kernel_path) <- NULL
  list(engine = best$engine, path = best$table,
       kernel = list(kernel = chosen, sigma_min = if (chosen$name == "rbf") chosen$params$sigma,
                     kernel_grid = settings$grid, kernel_path = kernel_path,
                     index_kernel = best$j))
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
