# Every argument of a fit, checked once, in the driver (fit_model() calls
# check_fit_args()), for every data source alike: an option a source cannot
# take is an error here that names the argument, never a failure deeper down.
# Messages: see stop_arg().

# The checked options of a fit (`spec`) and its completed data (`data`):
# for data in memory the design, the coded response, the weights and folds;
# for a chunk source its template, levels scanned.  `args` holds the
# arguments of rlsc() as given (`given`: the names the caller supplied).
check_fit_args <- function(args, data) {
  chunks <- data$kind == "chunks"
  given <- args$given
  if (chunks) reject_chunk_args(args)
  intercept <- check_flag(args$intercept, "intercept")
  if (chunks) {
    data <- chunk_data(data$src, complete_template(data), data$progress)
    resp <- data$resp
    kernel <- check_chunk_kernel(args$kernel, !is.null(args$bands))
    n <- NA
  } else {
    x <- as_design(args$x)
    kernel <- check_kernel(args$kernel, x, args$y)
    n <- nrow(x)
    if (n < 2L) stop_arg("`x` must have at least 2 rows, not ", n)
    coded <- encode_response(args$y, n)
    resp <- list(y0 = coded$y[0L, , drop = FALSE], type = coded$type, classes = coded$classes,
                 yfactor = coded$yfactor)
  }
  weights <- if (!chunks) check_weights(args$weights, n)
  class_weights <- class_weight_of(args$class_weights, resp, data, if (!chunks) coded$y)
  # the class of each row in memory (once: the checks below and the folds' strata)
  codes <- if (!chunks && resp$type == "classification") class_codes(coded$y)
  if (!chunks && !is.null(class_weights) && !is.finite(sum(weights * class_weights[codes]))) {
    stop_arg("`class_weights` times `weights` must have a finite sum, not Inf (the largest class ",
             "weight is ", format(max(class_weights), digits = 3), "); divide `class_weights` by a ",
             "constant, which changes only the scale of `lambda`")
  }
  if (resp$type == "classification") {
    # the classes with rows of positive weight, counted as the pre-scan of a
    # chunk source counts them
    weighed <- if (chunks) data$template$weighed else tabulate(codes[weights > 0], length(resp$classes)) > 0
    check_classes_weighted(resp$classes, class_weights, weighed)
  }
  if (intercept && !chunks) {
    if (is.null(class_weights)) check_weight_share(weights) else {
      check_weight_share(weights * class_weights[codes], "`weights` times `class_weights`")
    }
  }
  nlambda <- check_count(args$nlambda, "nlambda")
  lambda <- check_lambda(args$lambda)
  cv <- check_cv(args$cv, args$foldid, n, chunks, "cv" %in% given,
                 strata = codes)
  if (chunks && !is.null(data$template$foldid) && cv$type != "kfold") {
    stop_arg("`foldid` asks for K-fold cross-validation over the chunks' folds: give `cv` = K, ",
             "the number of folds")
  }
  crit <- check_criterion(args$criterion, resp, cv$type)
  # banded ridge chooses per response column unless told otherwise
  by_bands <- !is.null(args$bands) && !"per_response" %in% given
  crit <- check_per_response(if (by_bands) TRUE else args$per_response, crit, resp, by_bands)
  mode <- check_mode(args$mode, kernel, chunks)
  standardize <- check_flag(args$standardize, "standardize")
  keep_eigen <- check_flag(args$keep_eigen, "keep_eigen")
  calibration_folds <- check_calibration_folds(args$calibration_folds, resp,
                                               "calibration_folds" %in% given)
  if (standardize && identical(kernel$name, "precomputed")) {
    stop_arg("`standardize` = TRUE needs the data matrix, but `x` is a precomputed kernel")
  }
  xnames <- if (chunks) data$template$xnames else column_names(x)
  layout <- if (chunks) data$template else {
    list(xnames = xnames, assign = attr(x, "assign"), term_vars = attr(x, "term_vars"))
  }
  pf <- check_penalty_factor(args$penalty_factor, layout, kernel)
  if (any(pf == 0) && mode == "dual") {
    stop_arg("`penalty_factor` zeros (unpenalized columns) need the primal form, with at ",
             "least as many observations of positive weight as columns; here ",
             sum(weights > 0), " and ", length(xnames))
  }
  if (!chunks) {
    data <- memory_data(x, coded$y, weights, cv$folds, resp, xnames, !is.null(colnames(x)))
  }
  data$template$class_weights <- class_weights
  bands <- check_bands(args, xnames, if (chunks) data$template$assign else attr(args$x, "assign"),
                       kernel, pf)
  spec <- list(intercept = intercept, nlambda = nlambda, lambda = lambda, cv = cv, crit = crit,
               mode = mode, standardize = standardize, keep_eigen = keep_eigen, kernel = kernel,
               calibration = calibration_folds > 0, calibration_folds = calibration_folds,
               penalty_factor = pf, free = which(pf == 0), bands = bands)
  list(spec = spec, data = data)
}

# What a chunk source cannot take: its rows, weights and folds come from the
# chunks, and it is fitted in the primal form.
reject_chunk_args <- function(args) {
  for (arg in intersect(args$given, c("y", "weights"))) {
    stop_arg("`", arg, "` comes from the chunks of a chunk source: read() returns ",
             "list(x = , y = , weights = ) or a data frame")
  }
  if (isTRUE(args$keep_eigen)) {
    stop_arg("`keep_eigen` applies to kernel fits, which a chunk source cannot have")
  }
}

# `mode`: "auto" picks the form when the rows are counted (fit_model());
# kernel fits are dual, Nystrom and random-feature fits primal, chunk sources
# primal.
check_mode <- function(mode, kernel, chunks) {
  if (is.character(mode) && length(mode) == 3L) mode <- mode[1L]   # the default
  if (!is.character(mode) || length(mode) != 1L || !mode %in% c("auto", "primal", "dual")) {
    stop_arg("`mode` must be \"auto\", \"primal\" or \"dual\", not ", paste(format(mode), collapse = " "))
  }
  if (inherits(kernel, "rlsc_features")) {
    if (mode == "dual") {
      stop_arg("`mode` = \"dual\" does not apply to ", kernel$name, "() kernels: their fit is ",
               "the primal form, a ridge regression on the features")
    }
    return("primal")
  }
  if (!is.null(kernel)) {
    if (mode == "primal") stop_arg("`mode` = \"primal\" needs the linear kernel; kernel fits are dual")
    return("dual")
  }
  if (chunks) {
    if (mode == "dual") stop_arg("`mode`: a chunk source is fitted in the primal form only")
    return("primal")
  }
  mode
}

# The kernels a chunk source can be fitted with: the linear one, and the
# Nystrom and random-feature kernels, whose features are computed chunk by
# chunk (which `bands` does not take: check_band_kernel() says so).
check_chunk_kernel <- function(kernel, bands = FALSE) {
  if (inherits(kernel, "rlsc_features")) return(check_kernel_settings(kernel))
  if (!identical(kernel, "linear") && !identical(kernel, kernel_linear())) {
    stop_arg("a kernel fit needs all rows at once (its n x n kernel matrix): it cannot be ",
             "fitted from chunks; use the linear kernel",
             if (bands) " (banded ridge)" else ", nystrom() or random_features()",
             ", or a data set that fits in memory")
  }
  NULL
}

# The criterion of rlsc(): a name ("mse", "mae", "misclass", "auc", "gcv",
# "custom") with what choosing by it needs.
check_criterion <- function(criterion, resp, cv = "loo") {
  classify <- resp$type == "classification"
  if (is.function(criterion)) {
    return(list(name = "custom", fun = criterion, maximize = FALSE, classes = resp$classes))
  }
  if (identical(cv, "gcv")) {
    if (!is.null(criterion) && !identical(criterion, "mse")) {
      stop_arg("`cv` = \"gcv\" is a criterion of its own (the squared error); `criterion` must ",
               "be NULL or \"mse\", not ", paste(format(criterion), collapse = " "))
    }
    return(list(name = "gcv", maximize = FALSE))
  }
  name <- criterion %||% if (classify) "misclass" else "mse"
  known <- c("mse", "mae", "misclass", "auc")
  if (!is.character(name) || length(name) != 1L || !name %in% known) {
    stop_arg("`criterion` must be \"mse\", \"mae\", \"misclass\", \"auc\" or a function of ",
             "(y, pred, weights), not ", paste(format(criterion), collapse = " "))
  }
  if (name == "misclass" && !classify) {
    stop_arg("`criterion` = \"misclass\" needs a factor response; `y` is numeric")
  }
  if (name == "auc" && !(classify && length(resp$classes) == 2L)) {
    stop_arg("`criterion` = \"auc\" needs a response with two classes")
  }
  list(name = name, maximize = name == "auc", classes = resp$classes)
}

# How rlsc() validates: `cv` = "loo" (the default), "gcv", or a number of
# folds K; `foldid` (fold labels, glmnet's meaning) gives the folds instead,
# and a `cv` given with it must be their number (a chunk source's read()
# gives its folds, so there `cv` = K is needed); `strata`, the class of each
# row, stratifies random folds.
check_cv <- function(cv, foldid, n, chunks = FALSE, cv_given = FALSE, strata = NULL) {
  if (chunks) {
    if (!is.null(foldid)) {
      stop_arg("`foldid` of a chunk source comes from the chunks: read() returns ",
               "list(x = , y = , weights = , foldid = ); or give `cv` = K")
    }
    n <- Inf   # checked against the folds of each chunk
  }
  if (!is.null(foldid)) {
    if (!(is.numeric(foldid) || is.factor(foldid) || is.character(foldid)) ||
        !is.null(dim(foldid)) || length(foldid) != n) {
      stop_arg("`foldid` must be a vector of fold labels, one per row (", n, "), not ",
               if (length(foldid) != n && is.atomic(foldid)) paste("of length", length(foldid)) else describe(foldid))
    }
    if (anyNA(foldid)) stop_arg("`foldid` must not contain NA values")
    folds <- make_folds(NULL, foldid, n)
    if (max(folds) < 2L) stop_arg("`foldid` must have at least 2 folds, not 1")
    if (cv_given && !(is.numeric(cv) && length(cv) == 1L && isTRUE(cv == max(folds)))) {
      stop_arg("`cv` and `foldid` disagree: `foldid` asks for K-fold cross-validation over its ",
               max(folds), " folds, `cv` is ",
               if (is.character(cv)) paste0("\"", cv, "\"", collapse = " ") else paste(format(cv), collapse = " "),
               "; give one of them (or `cv` = ", max(folds), ")")
    }
    return(list(type = "kfold", K = max(folds), folds = folds, labels = levels(factor(foldid))))
  }
  if (is.character(cv) && length(cv) == 1L && cv %in% c("loo", "gcv")) return(list(type = cv))
  if (!is.numeric(cv) || length(cv) != 1L || !is.finite(cv) || cv != round(cv) || cv < 2 || cv > n) {
    stop_arg("`cv` must be \"loo\", \"gcv\" or a whole number of folds ",
             if (is.finite(n)) paste("from 2 to", n) else "of at least 2", ", not ",
             paste(format(cv, trim = TRUE), collapse = " "))
  }
  nfold <- as.integer(cv)
  list(type = "kfold", K = nfold, folds = if (!chunks) make_folds(nfold, NULL, n, strata))
}

# `calibration_folds`: the folds of cross-fitted class probabilities
# (calibrate.R), 0 for no probabilities; given for a regression fit, an error.
check_calibration_folds <- function(folds, resp, given) {
  if (given && resp$type != "classification") {
    stop_arg("`calibration_folds` needs a classification fit; `y` is numeric")
  }
  if (!is.numeric(folds) || length(folds) != 1L || !is.finite(folds) || folds != round(folds) ||
      folds < 0 || folds == 1) {
    stop_arg("`calibration_folds` must be 0 (no probabilities) or a whole number of at least 2, ",
             "not ", if (is.numeric(folds) && length(folds) == 1L) format(folds) else describe(folds))
  }
  as.integer(folds)
}

# per_response = TRUE: one lambda per response column, chosen by that
# column's mean squared error.  `by_bands`: TRUE when the caller did not set
# it and `bands` made it the default, so a message names what the caller gave.
check_per_response <- function(per_response, crit, resp, by_bands = FALSE) {
  crit$per_response <- check_flag(per_response, "per_response")
  crit$responses <- criterion_labels(response_names(resp$y0))
  if (!crit$per_response || crit$name %in% c("mse", "misclass")) return(crit)
  if (by_bands) {
    stop_arg("`bands` chooses each response column's weights and lambda by its own squared error ",
             "(`per_response` defaults to TRUE with `bands`), which ",
             if (crit$name == "gcv") "`cv` = \"gcv\"" else paste0("`criterion` = \"", crit$name, "\""),
             " does not give: give `per_response` = FALSE to choose one for all columns")
  }
  if (crit$name == "gcv") {
    stop_arg("`per_response` = TRUE chooses each column's lambda by its own squared error, which ",
             "`cv` = \"gcv\" does not give: use `cv` = \"loo\" or a number of folds")
  }
  stop_arg("`per_response` = TRUE chooses each column's lambda by its squared error: ",
           "`criterion` must be NULL or \"mse\", not \"", crit$name, "\"")
}

# The classes of a classification response that have rows (`has_rows`, one
# per class), for a response in memory (encode_classes()) and in chunks (the
# levels' pre-scan, scan_levels()): the empty ones dropped with a warning,
# and at least 2 left.  `what` names the response.
observed_classes <- function(classes, has_rows, what = "`y`") {
  if (!all(has_rows)) {
    warning("dropping empty level(s) of ", what, ": ", paste(sQuote(classes[!has_rows], FALSE), collapse = ", "),
            call. = FALSE)
  }
  kept <- classes[has_rows]
  if (length(kept) < 2L) stop_arg(what, " must have at least 2 classes for classification, not ", length(kept))
  kept
}

# Checks of single arguments, shared by rlsc() and its methods.

as_design_matrix <- function(x, arg = "x") {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(ok)) {
      bad <- names(x)[!ok][1]
      stop_arg("`", arg, "` must have numeric columns only; column ", sQuote(bad, FALSE),
               " is ", describe(x[[bad]]), " (use the formula interface for factors)")
    }
    x <- as.matrix(x)
  }
  if ((is.numeric(x) || is.logical(x)) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    stop_arg("`", arg, "` must be a numeric matrix or data frame, not ", describe(x))
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!all_finite(x)) stop_arg("`", arg, "` must not contain NA, NaN or Inf values")
  x
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    stop_arg("`", arg, "` must be TRUE or FALSE, not ", describe(x))
  }
  x
}

# The weights of the rows in memory: weight_values(), then what all the
# rows' weights must satisfy together (a finite sum, check_positive_weights()).
check_weights <- function(weights, n) {
  weights <- weight_values(weights, n, "rows of `x`")
  if (!is.finite(sum(weights))) {
    stop_arg("`weights` must have a finite sum, not Inf (the largest is ",
             format(max(weights), digits = 3), "); divide them by a constant, which changes ",
             "only the scale of `lambda`")
  }
  check_positive_weights(sum(weights > 0))
  weights
}

# The weights of n rows (NULL: all 1) as doubles: a numeric vector of length
# n, finite and non-negative.  The one check of every data source: the rows
# in memory (check_weights()) and each chunk's as it is read (read_rows(),
# whose errors map_rows() prefixes with the chunk).  `rows` says what n
# counts.
weight_values <- function(weights, n, rows) {
  if (is.null(weights)) return(rep(1, n))
  if (!is.numeric(weights) || !is.null(dim(weights))) {
    stop_arg("`weights` must be a numeric vector, not ", describe(weights))
  }
  if (length(weights) != n) {
    stop_arg("`weights` must have length ", n, " (the number of ", rows, "), not ", length(weights))
  }
  weights <- as.double(weights)
  if (!all_finite(weights)) stop_arg("`weights` must not contain NA, NaN or Inf values")
  if (any(weights < 0)) stop_arg("`weights` must be non-negative")
  weights
}

# At least 2 rows of positive weight (`npos`), in memory and, after the
# first pass, in chunks (check_counts()).
check_positive_weights <- function(npos) {
  if (npos < 2L) stop_arg("`weights` must be positive for at least 2 observations, not ", npos)
}

# With an intercept the leverage of observation i is at least its share of the
# weight, w_i / sum(w): a share within 1e-6 of 1 (the threshold at which a LOO
# value of the direct form is undefined, src/path.c) leaves that observation
# without a LOO value at every lambda, and no lambda helps.  In memory from
# the weights (times the class weights: `what`); in chunks from the first
# pass's total and largest weight (check_chunk_weight_share()).
check_weight_share <- function(weights, what = "`weights`") {
  i <- which.max(weights)
  total <- sum(weights)
  rest <- (total - weights[i]) / total   # no copy of the weights, but cancels:
  if (rest <= 2e-6) rest <- sum(weights[-i]) / total   # exactly where it decides
  stop_weight_share(rest, what, paste("observation", i))
}

# The same for chunks, from pass 1's moments (their weights include the class
# weights; the largest weight's row is not known, its weight is).  The
# difference cancels, with an error of a few eps against the threshold 1e-6
# (which decides right) but not against the share itself when it is that
# small (shown as 0 to rounding).
check_chunk_weight_share <- function(mom, template) {
  what <- if (is.null(template$class_weights)) "`weights`" else "`weights` times `class_weights`"
  rest <- (mom$sumw - mom$wmax) / mom$sumw
  stop_weight_share(rest, what, paste("an observation of weight", format(mom$wmax, digits = 3)),
                    if (rest < 1e-12) "0 (to rounding)" else format(rest, digits = 3))
}

stop_weight_share <- function(rest, what, who, shown = format(rest, digits = 3)) {
  if (rest <= 1e-6) {
    stop_arg(what, " must leave more than 1e-6 of their total to the other observations ",
             "when there is an intercept, not ", shown, ": ", who,
             " has the rest, so its leverage is 1 and its leave-one-out value undefined at ",
             "every `lambda`")
  }
}

check_lambda <- function(lambda) {
  if (is.null(lambda)) return(NULL)
  if (!is.numeric(lambda) || !is.null(dim(lambda))) {
    stop_arg("`lambda` must be a numeric vector, not ", describe(lambda))
  }
  if (!length(lambda)) stop_arg("`lambda` must have at least one value")
  if (!all_finite(lambda)) stop_arg("`lambda` must not contain NA, NaN or Inf values")
  if (any(lambda < 0)) stop_arg("`lambda` must be non-negative; it has ", sum(lambda < 0),
                                " negative value(s)")
  lambda <- as.double(lambda)
  # a grid given in decreasing order (as fits return it) is kept as it is
  if (!is.unsorted(-lambda, strictly = TRUE)) return(lambda)
  lambda <- unique(lambda)
  lambda[order(lambda, decreasing = TRUE)]   # (sort()'s dispatch: half of this check)
}

check_count <- function(x, arg, min = 1L) {
  if (!(is.numeric(x) || identical(x, NA)) || length(x) != 1L) {
    stop_arg("`", arg, "` must be a whole number of at least ", min, ", not ", describe(x))
  }
  if (!is.finite(x) || x != round(x) || x < min || x > .Machine$integer.max) {
    stop_arg("`", arg, "` must be a whole number of at least ", min, ", not ", format(x))
  }
  as.integer(x)
}

# Dense or sparse design, checked; dense goes through as_design_matrix().
as_design <- function(x, arg = "x") {
  if (!is_sparse(x)) return(as_design_matrix(x, arg))
  x <- methods::as(methods::as(methods::as(x, "dMatrix"), "generalMatrix"), "CsparseMatrix")
  if (!all_finite(x@x)) stop_arg("`", arg, "` must not contain NA, NaN or Inf values")
  x
}

# A classification fit needs rows of at least two classes with positive
# weight: with one class alone every one-vs-all column is constant, and the
# fit would report a perfect classifier.  The error names what took the
# other classes' weight: `weights`, `class_weights`, or both.  `weighed`:
# which classes have rows of positive weight (a chunk source's from the
# levels pre-scan, scan_levels()).
check_classes_weighted <- function(classes, class_weights, weighed) {
  left <- weighed & (class_weights %||% 1) > 0
  if (sum(left) >= 2L) return(invisible())
  by_class_weights <- any(weighed & !left)   # classes that only the class weights took
  culprit <- if (!by_class_weights) "`weights`" else if (all(weighed)) "`class_weights`" else {
    "`weights` and `class_weights`"
  }
  stop_arg(culprit, " leave ", if (any(left)) paste("only class", name_list(classes[left])) else "no class",
           " with positive weight: a classification fit needs rows of at least 2 classes that weigh ",
           "more than 0")
}

# `class_weights`: "balanced" (each class weighs n / (K n_k), as scikit-learn's)
# or a named vector of one weight per class: the weight of each class (NULL:
# none), which read_rows() multiplies into the observation weights.  A chunk
# source counts its classes in a pass for "balanced".
class_weight_of <- function(class_weights, resp, data, y = NULL) {
  if (is.null(class_weights)) return(NULL)
  if (resp$type != "classification") {
    stop_arg("`class_weights` needs a classification fit; `y` is numeric")
  }
  classes <- resp$classes
  if (identical(class_weights, "balanced")) {
    counts <- if (!is.null(y)) tabulate(class_codes(y), length(classes)) else class_counts(data)
    out <- sum(counts) / (length(classes) * counts)
    out[counts == 0] <- 0
    return(out)
  }
  nms <- names(class_weights)
  if (!is.numeric(class_weights) || !is.null(dim(class_weights)) || is.null(nms) ||
      anyNA(nms) || any(nms == "")) {
    stop_arg("`class_weights` must be \"balanced\" or a numeric vector named by the classes (",
             name_list(classes), "), not ",
             if (is.numeric(class_weights)) "an unnamed one" else describe(class_weights))
  }
  unknown <- setdiff(nms, classes)
  if (length(unknown)) {
    stop_arg("`class_weights` names class(es) the response does not have: ", name_list(unknown),
             " (its classes are ", name_list(classes), ")")
  }
  if (anyDuplicated(nms)) {
    stop_arg("`class_weights` must name each class once, not ", name_list(unique(nms[duplicated(nms)])))
  }
  if (!all_finite(as.double(class_weights)) || any(class_weights < 0)) {
    stop_arg("`class_weights` must be finite and non-negative")
  }
  # classes not named weigh 1, as in scikit-learn's dictionaries
  out <- rep(1, length(classes))
  out[match(nms, classes)] <- as.double(class_weights)
  out
}

# `penalty_factor`: unnamed, one value per column of x in order; named, each
# name a column of x or, for a formula fit, a term label or a variable, which
# covers every model-matrix column of its terms (factor(cyl) -> cyl6, cyl8);
# columns no name covers keep 1.  `layout`: xnames, and for a formula assign
# and term_vars (design_matrix()).
check_penalty_factor <- function(pf, layout, kernel) {
  if (is.null(pf)) return(NULL)
  xnames <- layout$xnames
  if (!is.null(kernel)) {
    stop_arg("`penalty_factor` applies to the columns of a linear model, not to a kernel fit")
  }
  nms <- names(pf)
  if (!is.numeric(pf) || !is.null(dim(pf)) || (is.null(nms) && length(pf) != length(xnames))) {
    stop_arg("`penalty_factor` must be a numeric vector with one value per column of `x` (",
             length(xnames), ") or named by columns, not ",
             if (is.numeric(pf)) paste("of length", length(pf)) else describe(pf))
  }
  if (!all_finite(as.double(pf))) stop_arg("`penalty_factor` must not contain NA, NaN or Inf values")
  if (any(pf < 0)) stop_arg("`penalty_factor` must be non-negative")
  if (is.null(nms)) return(as.double(pf))
  if (anyNA(nms) || any(nms == "")) {
    stop_arg("`penalty_factor` must have a name for every value or for none")
  }
  covers <- lapply(nms, penalty_columns, layout = layout)
  for (k in which(lengths(covers) == 0L)) {
    stop_arg("`penalty_factor` names ", name_list(nms[k]), ", which is not a column of `x`",
             if (!is.null(layout$term_vars)) " nor a term or variable of the formula",
             " (the columns are ", name_list(xnames), ")")
  }
  # the more specific name wins: a column over its term, a term over a variable
  out <- rep(1, length(xnames))
  given <- rep(NA_character_, length(xnames))
  level <- vapply(covers, attr, 1L, "level")
  for (k in order(-level)) {
    cols <- as.vector(covers[[k]])
    twice <- cols[!is.na(given[cols]) & given_level(given[cols], nms, level) == level[k]]
    if (length(twice)) {
      stop_arg("`penalty_factor` gives column ", name_list(xnames[twice]), " two values (`",
               given[twice[1L]], "` and `", nms[k], "`)")
    }
    out[cols] <- pf[[k]]
    given[cols] <- nms[k]
  }
  out
}

given_level <- function(given, nms, level) level[match(given, nms)]

# The columns a name of `penalty_factor` covers, with their specificity as
# attribute "level": the column of that name (1), else those of the term
# with that label (2), else those of every term holding that variable (3).
penalty_columns <- function(name, layout) {
  hit <- which(layout$xnames == name)
  if (length(hit) || is.null(layout$term_vars)) return(structure(hit, level = 1L))
  terms <- which(names(layout$term_vars) == name)
  if (length(terms)) return(structure(which(layout$assign %in% terms), level = 2L))
  terms <- which(vapply(layout$term_vars, function(v) name %in% v, NA))
  structure(which(layout$assign %in% terms), level = 3L)
}
