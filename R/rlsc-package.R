#' rlsc: regularized least squares with exact leave-one-out
#'
#' Ridge regression, kernel ridge regression and regularized least squares
#' classification (RLSC) whose regularization \eqn{\lambda} is chosen by
#' **exact** leave-one-out cross-validation, computed for a whole grid of
#' \eqn{\lambda} from one eigendecomposition instead of \eqn{n} refits.
#'
#' The method rests on one identity: for a fixed \eqn{\lambda} the fit is a
#' linear smoother \eqn{\hat y = H y}, and the prediction at \eqn{x_i} of the fit
#' that leaves point \eqn{i} out is
#' \deqn{f_{-i}(x_i) = (\hat y_i - h_{ii} y_i) / (1 - h_{ii}).}
#' Start with [rlsc()]; see `vignette("rlsc")`.
#'
#' @section Options:
#' \describe{
#'   \item{`rlsc.threads`}{The number of threads of the package's C loops
#'     (the Gram and projection of the primal form, kernel matrices, the
#'     eigendecomposition's back-transformation, the LOO and K-fold path).
#'     The default is every processor OpenMP sees, no more than the
#'     environment variables `OMP_THREAD_LIMIT` and `OMP_NUM_THREADS` when
#'     they are set, at most 2 under `R CMD check`, and no more than the
#'     cores `parallelly::availableCores()` grants the process when
#'     parallelly is installed: one in a future's worker (which sets
#'     `options(mc.cores = 1)`), a Slurm job's allocation. A BLAS that runs
#'     threads of its own (OpenBLAS, MKL or BLIS) is held to one thread
#'     while a fit runs and given its threads back afterwards (also after an
#'     error or an interrupt), except in the reduction to tridiagonal form of
#'     eigendecompositions of order 700 and up, which it runs with its own
#'     threads: threads inside threads would oversubscribe the cores. The
#'     work is split by the sizes of the problem only, so every result is
#'     the same, bit for bit, whatever the number of threads. A forked
#'     child (`parallel::mclapply()`, `future::plan("multicore")`) runs one
#'     thread; workers of a chunked fit share the session's threads between
#'     them. `vignette("chunked")` says
#'     how to keep the threads of parallel workers within the cores.}
#'   \item{`rlsc.progress`}{Whether a search over several kernel settings
#'     shows a progress bar (with cli installed): `FALSE` never, `TRUE`
#'     also outside interactive sessions; by default in interactive
#'     sessions only.}
#'   \item{`rlsc.memory`}{Bytes of memory a kernel (or dual) fit may count
#'     on: one with more rows of positive weight than its three n x n
#'     matrices (about \eqn{24 n^2} bytes) fit in stops at once with an error
#'     that says so, instead of failing to allocate midway. By default the
#'     memory the system reports available (`MemAvailable` on Linux;
#'     elsewhere unknown, and nothing is checked); `Inf` turns the check
#'     off, and a smaller number keeps a fit within a share of a shared
#'     machine.}
#'   \item{`rlsc.band_memory`}{Bytes that the engines of a batch of
#'     candidates of a banded fit (`bands`) may take (default `5e8`): more
#'     candidates per pass over the rows, or fewer; half of it bounds the
#'     decompositions a banded search keeps for its last steps, and all of
#'     it the chosen candidates' engines a banded fit keeps for its
#'     methods.}
#'   \item{`rlsc.sigma_screen`}{`c(rows = 2000, sample = 1000)` (the
#'     default): [kernel_rbf()] without `sigma` on at least `rows` rows of
#'     positive weight chooses its bandwidth on a uniform sample of `sample`
#'     rows, then fits exactly at it on every row; below `rows` it searches
#'     every row.}
#'   \item{`rlsc.target_memory`}{Bytes that a block of response columns may
#'     take while the fold engines of an exact K-fold regression are built
#'     and evaluated (default `4e8`): with more columns than that allows, the
#'     fold engines are built for one block of columns at a time (a pass over
#'     the rows per block), so that 50000 columns need about 2 GB, not 5.}
#' }
#'
#' @references
#' Rennie, J. D. M. (2004). Fast leave-one-out cross-validation for regularized
#' least squares classification. MIT CSAIL note.
#'
#' Rosasco, L. Regularized least squares classification. Lecture notes, MIT 9.520.
#'
#' Rifkin, R. (2002). Everything old is new again: a fresh look at historical
#' approaches in machine learning. PhD thesis, MIT.
#'
#' @keywords internal
#' @docType package
#' @name rlsc-package
#' @aliases rlsc-package
#' @useDynLib rlsc, .registration = TRUE, .fixes = "C_"
#' @importFrom stats coef deviance fitted formula hatvalues model.frame nobs predict residuals
#' @importFrom graphics plot
#' @importFrom utils globalVariables
NULL

# the ggplot2 data pronoun in autoplot.rlsc()
utils::globalVariables(".data")
