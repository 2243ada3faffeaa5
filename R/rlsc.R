#' Regularized least squares with exact leave-one-out choice of lambda
#'
#' Fits ridge regression (numeric `y`) or regularized least squares
#' classification (factor `y`) for a whole grid of penalties \eqn{\lambda} and
#' computes the **exact** leave-one-out (LOO) predictions at every one of them
#' from a single eigendecomposition.
#'
#' The model is
#' \deqn{\min_{b,\beta} \sum_i w_i (y_i - b - x_i^\top\beta)^2 + \lambda \|\beta\|^2,}
#' with an unpenalized intercept \eqn{b}, fitted to `x` as given: the columns
#' are **not** standardized unless `standardize = TRUE` (then the penalty
#' applies to columns scaled to unit variance, as in `glmnet` and
#' `MASS::lm.ridge()`). This \eqn{\lambda} is on the "sum of squares" scale:
#' scikit-learn's `alpha`, and `MASS::lm.ridge()`'s `lambda` with
#' `standardize = TRUE`. Texts that average the loss, \eqn{\frac1n\sum_i
#' (\cdot)^2 + \lambda'\|\beta\|^2} (Rosasco's notes, the ridge LOO derivation),
#' use \eqn{\lambda' = \lambda / n}; an SVM-style \eqn{C} corresponds to
#' \eqn{\lambda = 1/(2C)}.
#'
#' For a fixed \eqn{\lambda} the fit is a linear smoother \eqn{\hat y = H y}.
#' Leaving point \eqn{i} out gives the same fit as keeping it with \eqn{y_i}
#' replaced by its own LOO prediction (Rennie, 2004), hence
#' \deqn{f_{-i}(x_i) = \frac{\hat y_i - h_{ii} y_i}{1 - h_{ii}},}
#' where \eqn{H} is the hat matrix of the model *with* its intercept. With the
#' eigendecomposition of the centered weighted Gram matrix (\eqn{d \times d}
#' when \eqn{n \ge d}, "primal"; \eqn{n \times n} otherwise, "dual", the
#' kernel-form solve \eqn{c = (K + \lambda I)^{-1} y}) both \eqn{h_{ii}} and
#' \eqn{\hat y_i} are rational functions of \eqn{\lambda}, and the whole path
#' costs a few matrix products.
#'
#' At \eqn{\lambda = 0} the minimum-norm (pseudo-inverse) solution is used.
#' Points with leverage \eqn{h_{ii} = 1} (the fit interpolates them) have no
#' defined LOO value: it is `NA`, the criterion at that \eqn{\lambda} is `NA`,
#' and one warning says how many.
#'
#' @section Standardization and cross-validation:
#' With `standardize = TRUE` the columns are scaled once, by their standard
#' deviations over all the data, and the leave-one-out values are exact for
#' the model **with these full-data column scales held fixed**: the fit that
#' leaves point \eqn{i} out uses the same scales. `glmnet::cv.glmnet()`
#' re-standardizes within each fold (each fold's fit scales the columns by
#' their standard deviations over its own training rows), so its
#' cross-validation error, and the \eqn{\lambda} it picks, can differ slightly
#' from these even with `nfolds = n`. Likewise the mapping of this
#' \eqn{\lambda} onto glmnet's (`vignette("lambda-scales")`, \eqn{\lambda =
#' n \lambda_g / s_y}) holds for a single fit: each glmnet fold fits with its
#' own \eqn{n} and standard deviation \eqn{s_y} of the response.
#'
#' @param x a numeric matrix, a data frame of numeric columns, or a sparse
#'   `Matrix` (e.g. a `dgCMatrix`, never densified), one row per observation.
#'   Integer and logical values are converted to double.
#' @param y the response: a numeric vector or matrix (regression; several
#'   columns share one factorization) or a factor (classification, also a
#'   character or logical vector). A factor with two levels is coded -1 / +1
#'   (first / second level); with \eqn{K \ge 3} levels one-vs-all, \eqn{K}
#'   columns of +1 for the class and -1 elsewhere.
#' @param lambda optional grid of penalties \eqn{\lambda \ge 0} (sorted
#'   decreasing, duplicates dropped). By default `nlambda` values, log-spaced
#'   from where the effective degrees of freedom are about 0.1 to where they
#'   are within about `1e-4` of the rank (at most ten decades), the last one
#'   replaced by \eqn{\lambda = 0}, least squares, when that is defined and
#'   accurate (more observations of positive weight than coefficients, no point
#'   of leverage 1, a condition number below `1e9`): then no minimum is cut off
#'   at the small end. When `lambda_min` is an end of the grid (other than 0),
#'   the criterion is computed a few steps beyond it, and a warning says so
#'   only if it keeps decreasing there. A single value needs no criterion:
#'   the fit is made at it, as [lm()] makes one at `lambda = 0`, even where a
#'   LOO value is undefined (a row of leverage 1: its LOO value is `NA`, with
#'   a warning); a grid whose criterion is undefined at every value leaves
#'   nothing to choose by, and is an error. The methods of linear fits take any
#'   \eqn{\lambda \ge 0}, computed exactly from the stored factorization;
#'   those of kernel fits the values of this grid (any value with
#'   `keep_eigen = TRUE`).
#' @param nlambda the length of the default grid.
#' @param intercept whether to fit an (unpenalized) intercept.
#' @param weights optional non-negative observation weights.
#' @param criterion what chooses \eqn{\lambda}: `"mse"` (mean squared error
#'   over all response columns; the default for regression), `"mae"` (mean
#'   absolute error), `"misclass"` (misclassification rate; the default for
#'   classification, ties broken by the squared error), `"auc"` (two classes:
#'   the area under the ROC curve of the decision values, ties counted half;
#'   the largest wins. Decision values tie within `1e-8` of their spread at
#'   that \eqn{\lambda}, which shrinks like \eqn{1/\lambda}, or within their
#'   rounding; where the spread itself is within rounding, near
#'   \eqn{\lambda = 10^{14}} for columns of scale 1, the AUC is `NA`), or a function `function(y, pred, weights)` returning
#'   one number to minimize, given the response (a factor for
#'   classification), the LOO (or held-out) decision values and the weights,
#'   called once per \eqn{\lambda}. All are computed from the exact LOO
#'   values (K-fold: held-out values): means over the observations weighted by
#'   `weights`, with standard errors over the observations of positive weight
#'   (over folds for K-fold; none for a function, and then `lambda_1se` is
#'   `lambda_min`). The AUC is not a mean over observations: with LOO it is
#'   the exact **leave-pair-out** AUC (Airola et al. 2011: the AUC of pooled
#'   LOO values, which come from \eqn{n} different models, is biased): for
#'   each (positive, negative) pair, the decision values at both rows of the
#'   fit without both, in closed form from the \eqn{2 \times 2} block of the
#'   hat matrix at each \eqn{\lambda} (Pahikkala et al. 2008), the pairs
#'   weighted by \eqn{w_i w_j}; every pair up to \eqn{10^6} pairs, beyond that
#'   a uniform sample of \eqn{10^6} pairs drawn with a fixed seed (the same
#'   data give the same sample; the session's random numbers are left alone;
#'   [print()] says so), with Hanley and McNeil's standard error. It costs
#'   about \eqn{2 P r L} flops for \eqn{P} pairs, \eqn{r} eigen-directions and
#'   \eqn{L} values of \eqn{\lambda}: little in the primal form, much for a
#'   kernel fit of thousands of rows (\eqn{r} near \eqn{n}). With K-fold the
#'   AUC is the mean of the folds' AUCs weighted by fold size, as
#'   `cv.glmnet()` computes it; a fold whose held-out rows hold one class has
#'   none and is left out, with a warning.
#' @param cv how to validate: `"loo"` (exact leave-one-out, the default),
#'   `"gcv"` (generalized cross-validation, Golub, Heath and Wahba 1979:
#'   \eqn{n \, RSS(\lambda) / (n - \mathrm{tr}\, H(\lambda))^2} with
#'   \eqn{H} the whole hat matrix, so \eqn{\mathrm{tr}\, H} is `df` plus
#'   one for the intercept, as `mgcv` counts it; with weights the weighted
#'   residual sum of squares rescaled to \eqn{n} observations, \eqn{n} the
#'   observations of positive weight. `MASS::lm.ridge()`'s GCV is
#'   \eqn{RSS / (n - df)^2}: it leaves the intercept's degree of freedom
#'   out, and tends to 0 as a fit interpolates), or a number
#'   \eqn{K} of folds: exact K-fold cross-validation, every fold refitted from
#'   the same machinery (no iteration) at every \eqn{\lambda}, the folds drawn
#'   at random (reproducible under [set.seed()]) and, for classification,
#'   stratified by class (each fold holds each class's count within one). For
#'   a chunk source the rows of each chunk take the folds in turn, row
#'   \eqn{j} of chunk \eqn{i} fold \eqn{(i + j - 2) \bmod K + 1}, so the fit
#'   equals that of the same rows in memory with these folds as `foldid`. The
#'   criterion is the mean of the folds' criteria weighted by fold size (the
#'   folds' sums of weights), as `cv.glmnet()` computes it, its standard
#'   error over folds. `fit$cv` records which.
#' @param foldid fold labels, one per row (glmnet's meaning): K-fold
#'   cross-validation over these folds; rows sharing a label stay together
#'   (grouped folds, e.g. repeated measures). A `cv` given as well must be
#'   their number. For the formula method it is evaluated like `weights`: a
#'   column of `data` (also of the chunks of a chunk source) or a vector,
#'   with the rows that `subset` and `na.action` keep. A chunk source takes
#'   fold numbers 1 to K from its chunks (`read()` returning `foldid`, or the
#'   formula's `foldid` column) with `cv = K`.
#' @param per_response whether to choose \eqn{\lambda} separately for each
#'   response column (multi-target regression, or the one-vs-all columns of a
#'   multiclass fit) by its own mean squared error. `lambda_min` and
#'   `lambda_1se` are then named vectors (by the columns of `y`, `y1`,
#'   `y2`, ... where it has no names; a formula's numeric response by its
#'   name; a repeated name, or one that would name another column of
#'   `path`, `se` or another column's name with `_se`, suffixed as by
#'   [make.unique()]: `se.1`), and the methods use each column's own
#'   \eqn{\lambda} by default. A `lambda` named by these names gives the
#'   methods one value per column; unnamed values are always a path, a
#'   result at each (see [coef.rlsc()]).
#' @param penalty_factor optional non-negative numbers, one per column of `x`
#'   (glmnet's `penalty.factor`): the penalty is \eqn{\lambda \sum_j p_j
#'   \beta_j^2}. Columns with \eqn{p_j = 0} are not penalized, like the
#'   intercept; the others are rescaled. LOO and K-fold stay exact. An
#'   unnamed vector gives the columns' values in order; a named one is
#'   matched by name (in any order), each name a column of `x` or, for a
#'   formula, a term label (`"factor(cyl)"`) or a variable (`"cyl"`), which
#'   covers every model-matrix column of the terms holding it (a more
#'   specific name wins: a column over its term, a term over a variable); columns no
#'   name covers keep 1. An unknown name is an error that names it.
#' @param class_weights for classification, `"balanced"` (each class weighs
#'   \eqn{n / (K n_k)}, as scikit-learn's) or a vector of weights named by the
#'   classes (classes not named weigh 1; a name that is no class is an
#'   error); they multiply `weights`.
#' @param calibration_folds for classification, the number of folds (default
#'   5, stratified by class, the same at every call) of the cross-fitted
#'   probabilities of `loo_predict(type = "prob")` (see [loo_predict()];
#'   `predict(type = "prob")` is calibrated on the exact leave-one-out values
#'   of every row, see [predict.rlsc()], and uses no folds); `0` fits no
#'   calibration, and the fit has no probabilities.
#' @param kernel `"linear"` (the default, ridge regression), `"rbf"`,
#'   `"polynomial"`, `"precomputed"` (then `x` is the \eqn{n \times n} kernel
#'   matrix), or a kernel from [kernel_rbf()], [kernel_polynomial()],
#'   [kernel_custom()] or [kernel_linear()]. Kernel parameters given as vectors
#'   are chosen jointly with \eqn{\lambda} by exact LOO: one eigendecomposition
#'   of the \eqn{n \times n} weighted double-centered kernel matrix per
#'   setting. The RBF kernel without `sigma` (`"rbf"`, `kernel_rbf()`) on
#'   2000 or more rows of positive weight screens its five default bandwidths
#'   by the same search on a random sample of 1000 rows and then makes the
#'   one exact decomposition at the bandwidth chosen (see [kernel_rbf()]);
#'   `kernel_rbf(sigma = c(...))` searches its values exactly on every row.
#'   See [kernel_linear()] for the kernels; kernel fits (class
#'   `rlsc_kernel_fit`) have the methods of linear ones, with dual
#'   coefficients (see [coef.rlsc()]). With several settings in an interactive
#'   session a progress bar (package cli) appears when the work takes more than
#'   about two seconds; `options(rlsc.progress = FALSE)` turns it off. For
#'   large \eqn{n}, [nystrom()] and [random_features()] approximate a kernel by
#'   \eqn{m} features and fit them in the primal form (exact LOO for the model
#'   on the features, one \eqn{m \times m} eigendecomposition per setting,
#'   any \eqn{\lambda} served, `keep_eigen` not needed); they also fit chunk
#'   sources.
#' @param mode `"auto"` (primal when there are at least as many observations
#'   with positive weight as columns, dual otherwise), `"primal"` or `"dual"`.
#'   Both give the same results up to rounding. Kernel fits are always dual,
#'   Nyström and random-feature fits primal.
#' @param standardize whether to divide the columns of `x` by their weighted
#'   standard deviations (normalized by the sum of the weights; about zero
#'   without an intercept) before fitting, so that the penalty treats all
#'   columns alike whatever their units, as `glmnet` and `MASS::lm.ridge()`
#'   do. Coefficients and predictions are on the original scale; `lambda`
#'   applies to the standardized columns (with unit weights exactly
#'   `MASS::lm.ridge()`'s `lambda`). The default `FALSE` fits `x` as given:
#'   the penalty `lambda` is then in the units of `x`, as in
#'   the model above (and `lm()`'s numbers at `lambda = 0`); columns on very
#'   different scales (`I(disp^3)` beside `wt`) keep every direction the data
#'   determine, the decomposition taking the Cholesky factor of the Gram
#'   with unit diagonal where the Gram's own eigenvalues would round the small
#'   directions away.
#'   For kernels the scaling is applied before the kernel, so that
#'   [predict()] takes new data in the original units. See the section
#'   "Standardization and cross-validation" for what the exact LOO then means.
#'   The `y` of the default method may also be a data frame: one column is
#'   taken as that column, several numeric ones as a response matrix.
#' @param keep_eigen for kernel fits: keep the eigendecomposition of the chosen
#'   kernel (about \eqn{n \times n} numbers), so that the methods work at any
#'   \eqn{\lambda \ge 0}. By default a kernel fit keeps instead, for the
#'   chosen kernel setting and every \eqn{\lambda} of the grid, the leverages,
#'   the fitted and LOO values and the dual coefficients: \eqn{n L (3T + 1)}
#'   numbers for \eqn{L} values of \eqn{\lambda} and \eqn{T} response
#'   columns, fewer than \eqn{n^2} whenever \eqn{3 L T < n}.
#' @param bands banded ridge: the group ("band") of each column of `x` (for
#'   the formula method, of each term of the formula), as a vector (the
#'   groups in the order of the factor's levels or of first appearance), or
#'   a list of the column names or numbers of each group. Each group \eqn{g}
#'   gets its own penalty weight \eqn{\gamma_g}: the model of a candidate
#'   \eqn{\gamma} (non-negative, summing to 1) is ridge with penalty
#'   \eqn{\lambda / \gamma_g} on the coefficients of group \eqn{g}, that is,
#'   with group \eqn{g}'s columns scaled by \eqn{\sqrt{\gamma_g}};
#'   \eqn{\gamma_g = 0} leaves the group out. Every candidate is scored at
#'   every \eqn{\lambda} of one grid by exact LOO (or K-fold, `cv`,
#'   `foldid`): one \eqn{d \times d} eigendecomposition per candidate (and
#'   fold) of the Gram matrix formed once (\eqn{n \times n} in the dual
#'   form), the candidates evaluated in batches, each in one pass over the
#'   rows (memory per batch bounded by `options(rlsc.band_memory)`, bytes,
#'   default `5e8`). With `per_response = TRUE` (the default when `bands` is
#'   given) each response column keeps its best (candidate, \eqn{\lambda})
#'   by its own squared error; with `per_response = FALSE` one pair for all
#'   columns, by `criterion`. Not with `penalty_factor`.
#'
#'   With `kernel = kernel_rbf(sigma)` or [kernel_polynomial()] (one value of
#'   each parameter; several values are an error: fit each apart), `bands`
#'   gives multiple-kernel ridge: one kernel of that family per group, on
#'   that group's columns only (standardized first with `standardize`), and
#'   candidate \eqn{\gamma}'s kernel \eqn{\sum_g \gamma_g K_g}; the
#'   candidates, grid, criteria and `per_response` are those of banded
#'   ridge, one \eqn{n \times n} eigendecomposition per candidate (and
#'   fold). Such a fit is also a kernel fit: new rows are predicted through
#'   each response column's own kernel sum, and [coef()] gives each column's
#'   dual coefficients. Other kernels, and chunk sources with a kernel, are
#'   an error. See `vignette("banded")` and [plot.rlsc_banded_fit()].
#' @param band_weights the candidates: a matrix with one row per candidate
#'   and one column per group (named by the groups, or in their order), rows
#'   non-negative and summing to 1. By default `n_candidates` candidates as
#'   himalaya's random search draws them: the equal weighting, each group
#'   alone, then Dirichlet samples of concentrations 0.1 and 1 in turn
#'   (reproducible under [set.seed()]).
#' @param n_candidates the number of candidates drawn when `band_weights` is
#'   not given.
#' @param ... for the formula method, further arguments of the default method
#'   (`lambda`, `kernel`, `criterion`, ...); for the default method, not used
#'   (an error if given).
#'
#' @return An object of class `rlsc`: a list with, among others,
#'   \item{path}{the LOO table, a data frame with one row per \eqn{\lambda}:
#'     `lambda` (decreasing), `df` (the effective degrees of freedom
#'     \eqn{\sum_k \Lambda_k/(\Lambda_k+\lambda)} of the penalized part; the
#'     intercept adds one), both criteria with their standard errors, and
#'     `n_na`, the number of points with undefined LOO value.}
#'   \item{lambda, df, cvm, cvsd}{read from `path` on access, as glmnet users
#'     know them: the grid, the degrees of freedom, and the chosen criterion
#'     with its standard error over observations.}
#'   \item{lambda_min, lambda_1se}{the \eqn{\lambda} minimizing the criterion
#'     (among values equal to rounding, within `1e-8` relative, the largest,
#'     as `cv.glmnet()` chooses: the simpler model), and the largest
#'     \eqn{\lambda} whose criterion is within one standard error of that
#'     minimum.}
#'   \item{calibration}{classification: the calibration of the class
#'     probabilities (see [predict.rlsc()]): `K`, the `calibration_folds` of
#'     cross-fitted probabilities, and `at`, for `lambda_min` and
#'     `lambda_1se` the `lambda` and the `map` fitted there, `list(a, b)`: the
#'     intercepts and slopes of the classes (maps at other values of `lambda`
#'     are fitted when asked).}
#'   Kernel fits (class `rlsc_kernel_fit`) also have
#'   \item{kernel}{the chosen kernel, with its parameter values.}
#'   \item{sigma_min}{for the RBF kernel, the chosen \eqn{\sigma}.}
#'   \item{sigma_screen}{for the RBF kernel without `sigma` on 2000 rows or
#'     more, how \eqn{\sigma} was screened: `rows`, the sampled rows, and
#'     `table`, each candidate's best criterion on them and its
#'     \eqn{\lambda} (on the sample's scale), the chosen one starred;
#'     otherwise `NULL`.}
#'   \item{kernel_path}{the LOO table over the whole grid: one row per kernel
#'     setting and \eqn{\lambda}, with the parameters as the first columns.
#'     `lambda`, `df`, `cvm`, `path`, `lambda_min` and `lambda_1se` are those
#'     of the chosen setting.}
#'   Banded fits (`bands`, class `rlsc_banded_fit`) also have
#'   \item{band_weights}{the chosen weights, groups x response columns.}
#'   \item{band_candidates}{the candidates, one row per candidate.}
#'   \item{band_index}{the chosen candidate of each response column.}
#'   \item{band_scores}{the best criterion of each candidate (rows) for each
#'     response column (columns; one column with `per_response = FALSE`).}
#'   \item{bands}{the group of each column.}
#'   With `per_response = TRUE` the columns `mse_*` of `path` are each
#'   response column's criterion at its chosen candidate, `mse` their mean
#'   and `df` the mean of their models' degrees of freedom.
#' @seealso [loo_predict()], [predict.rlsc()], [coef.rlsc()], [plot.rlsc()]
#' @references Rennie, J. D. M. (2004). Fast leave-one-out cross-validation for
#'   regularized least squares classification.
#' @order 1
#' @export
#' @examples
#' x <- as.matrix(mtcars[, -1])
#' fit <- rlsc(x, mtcars$mpg)
#' fit
#' coef(fit)
#' head(loo_predict(fit))
#'
#' # classification: one-vs-all on three classes
#' cl <- rlsc(iris[, 1:4], iris$Species)
#' table(predict(cl, as.matrix(iris[, 1:4]), type = "class"), iris$Species)
#'
#' # kernel RLS: the RBF bandwidth and lambda chosen jointly by exact LOO
#' kf <- rlsc(scale(mtcars[, -1]), mtcars$mpg, kernel = kernel_rbf(sigma = c(4, 8, 16)))
#' kf$sigma_min
rlsc <- function(x, ...) UseMethod("rlsc")

#' @rdname rlsc
#' @order 2
#' @export
rlsc.default <- function(x, y, lambda = NULL, nlambda = 100, intercept = TRUE,
                         weights = NULL, criterion = NULL, kernel = "linear",
                         mode = c("auto", "primal", "dual"), standardize = FALSE,
                         keep_eigen = FALSE, cv = "loo", foldid = NULL, per_response = FALSE,
                         penalty_factor = NULL, class_weights = NULL, calibration_folds = 5,
                         bands = NULL, band_weights = NULL, n_candidates = 100, ...) {
  call <- match.call()
  call[[1L]] <- as.name("rlsc")
  check_no_dots(...)
  fit_model(list(kind = "memory"), fit_args(environment(), call), call)
}

#' @rdname rlsc
#' @order 4
#' @export
rlsc.rlsc_chunks <- function(x, y, lambda = NULL, nlambda = 100, intercept = TRUE,
                             weights = NULL, criterion = NULL, kernel = "linear",
                             mode = c("auto", "primal", "dual"), standardize = FALSE,
                             keep_eigen = FALSE, cv = "loo", foldid = NULL,
                             per_response = FALSE, penalty_factor = NULL, class_weights = NULL,
                             calibration_folds = 5, bands = NULL, band_weights = NULL,
                             n_candidates = 100, ...) {
  call <- match.call()
  call[[1L]] <- as.name("rlsc")
  check_no_dots(...)
  first <- first_chunk(x)
  data <- list(kind = "chunks", src = x, template = matrix_template(first, x$levels), first = first)
  fit_model(data, fit_args(environment(), call), call)
}

# The arguments of a fit method (the formals of rlsc.default(), which every
# method has, evaluated in `env`) and the names of those the caller gave.
fit_args <- function(env, call) {
  args <- mget(fit_arg_names, envir = env)
  args$y <- if (!eval(quote(missing(y)), env)) env$y
  args$given <- names(call)[-1L]
  args
}

fit_arg_names <- setdiff(names(formals(rlsc.default)), c("...", "y"))

first_chunk <- function(src) {
  if (!inherits(src, "rlsc_chunks")) stop_arg("`data` must be a data frame or a chunk source")
  chunk_call(function(data, i) data, src$chunks[[1L]], 1L, src$read)
}

# The arguments of a fit given through `...` (the formula method on a chunk
# source), the others at the defaults of rlsc.default().
args_of_dots <- function(...) {
  defaults <- formals(rlsc.default)
  defaults <- defaults[setdiff(names(defaults), c("x", "y", "..."))]
  dots <- list(...)
  unknown <- setdiff(names(dots) %||% rep("", length(dots)), names(defaults))
  if (length(unknown)) {
    unknown[unknown == ""] <- "an unnamed argument"
    stop_arg("unknown argument(s): ", paste(unknown, collapse = ", "))
  }
  args <- lapply(defaults, eval, envir = baseenv())
  args[names(dots)] <- dots
  args$given <- names(dots)
  args
}
