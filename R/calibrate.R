# Class probabilities of a classification fit: a multinomial logistic map of
# the decision values, fitted on the *exact LOO* decision values at the chosen
# lambda, so that the calibration sees out-of-sample outputs at no refitting
# cost.  For two classes (one decision column) it is Platt's method: a
# logistic regression of the class on the decision value, with Platt's
# targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2) instead of 1 and 0, which keep
# the map finite when the LOO values separate the classes.  For K classes the
# same soft targets: (N_k + 1) / (N_k + 2) for the row's own class, the rest
# shared by the others.

# The map at one lambda: coefficients ((T + 1) x (K - 1), the first class the
# reference) from the LOO decision values, their classes and weights.
calibration_map <- function(object, lambda) {
  out <- fit_outputs(object, lambda)
  keep <- out$weights > 0 & stats::complete.cases(out$loo)
  f <- out$loo[keep, , drop = FALSE]
  codes <- as.integer(decode_classes(out$y[keep, , drop = FALSE], object$classes))
  k <- length(object$classes)
  counts <- tabulate(codes, k)
  own <- (counts[codes] + 1) / (counts[codes] + 2)
  target <- matrix((1 - own) / (k - 1), length(codes), k)
  target[cbind(seq_along(codes), codes)] <- own
  fit_softmax(cbind(1, f), target, out$weights[keep])
}

# Weighted multinomial logistic regression with soft targets, by BFGS on the
# (convex) cross-entropy; the design's columns are scaled for the optimizer.
fit_softmax <- function(x, target, w) {
  k <- ncol(target)
  s <- pmax(apply(abs(x), 2L, max), 1e-300)
  xs <- x / rep(s, each = nrow(x))
  w <- w / sum(w)
  loss <- function(b) {
    eta <- cbind(0, xs %*% matrix(b, ncol(xs)))
    lse <- log_sum_exp(eta)
    -sum(w * rowSums(target * (eta - lse)))
  }
  grad <- function(b) {
    eta <- cbind(0, xs %*% matrix(b, ncol(xs)))
    p <- exp(eta - log_sum_exp(eta))
    -crossprod(xs, w * (target - p))[, -1L]
  }
  opt <- stats::optim(numeric(ncol(xs) * (k - 1L)), loss, grad, method = "BFGS",
                      control = list(maxit = 1000, reltol = 1e-12))
  matrix(opt$par, ncol(xs)) / s
}

log_sum_exp <- function(eta) {
  top <- apply(eta, 1L, max)
  top + log(rowSums(exp(eta - top)))
}

# Probabilities (m x K, named by class) of decision values under a map.
class_probabilities <- function(object, decision, map) {
  eta <- cbind(0, cbind(1, decision) %*% map)
  p <- exp(eta - log_sum_exp(eta))
  dimnames(p) <- list(rownames(decision), object$classes)
  p
}
