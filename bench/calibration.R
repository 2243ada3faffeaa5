# Calibration of predict(type = "prob") (issues 22 and 46): rlsc's monotone
# map fitted on the exact LOO decision values (with the intercept of all
# rows) against Platt scaling with 5-fold cross-fitting in scikit-learn
# (CalibratedClassifierCV(method = "sigmoid", ensemble = False) around
# RidgeClassifier at rlsc's lambda_min, on the folds rlsc deals for its
# cross-fitted LOO probabilities), on held-out test rows of random stratified 70/30 splits
# of real data (mlbench's Vehicle and Sonar, iris) and on pure noise.  Also
# the probabilities that leaked the labels before issue 22 (a map fitted on
# the LOO decision values of all rows), for contrast.  Prints log loss,
# Brier score, expected calibration error (10 bins of the top probability)
# and accuracy, averaged over the splits.  Not a unit test.
# Run from the repository root with rlsc installed:  Rscript bench/calibration.R
suppressPackageStartupMessages(library(rlsc))
options(width = 150)
python <- "/usr/bin/python3"   # Debian's python3-sklearn
has_sklearn <- file.exists(python) &&
  system2(python, c("-c", shQuote("import sklearn")), stdout = FALSE, stderr = FALSE) == 0
cat("date:     ", format(Sys.time(), "%Y-%m-%d %H:%M %Z"), "\n")
cat("BLAS:     ", extSoftVersion()[["BLAS"]], "\n")
if (has_sklearn) {
  cat("sklearn:  ", system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")),
                            stdout = TRUE), "\n")
}
nsplit <- as.integer(Sys.getenv("RLSC_BENCH_SPLITS", "20"))
cat("splits:   ", nsplit, "random stratified 70/30 splits per data set\n\n")

datasets <- list(iris = list(x = as.matrix(iris[, 1:4]), y = iris$Species))
if (requireNamespace("mlbench", quietly = TRUE)) {
  e <- new.env()
  utils::data("Vehicle", package = "mlbench", envir = e)
  utils::data("Sonar", package = "mlbench", envir = e)
  datasets$Vehicle <- list(x = scale(as.matrix(e$Vehicle[, 1:18])), y = e$Vehicle$Class)
  datasets$Sonar <- list(x = as.matrix(e$Sonar[, 1:60]), y = e$Sonar$Class)
} else {
  cat("(mlbench not installed: Vehicle and Sonar skipped)\n")
}
set.seed(22)
datasets$noise <- list(x = matrix(rnorm(300 * 50), 300),
                       y = factor(sample(c("a", "b"), 300, TRUE, prob = c(0.4, 0.6))))

metrics <- function(p, y) {
  k <- as.integer(y)
  own <- p[cbind(seq_along(k), k)]
  onehot <- diag(ncol(p))[k, , drop = FALSE]
  top <- apply(p, 1, max)
  right <- max.col(p, "first") == k
  bins <- cut(top, seq(0, 1, 0.1), include.lowest = TRUE)
  ece <- sum(tapply(seq_along(top), bins, function(i) length(i) * abs(mean(right[i]) - mean(top[i]))),
             na.rm = TRUE) / length(top)
  c(logloss = -mean(log(pmax(own, 1e-15))), brier = mean(rowSums((p - onehot)^2)), ece = ece,
    accuracy = mean(right))
}

# the map of the old design: a softmax of the LOO decision values (not
# monotone, fitted on all rows' LOO values, applied to new rows)
leaky <- function(fit, newx) {
  loo <- as.matrix(loo_predict(fit))
  k <- length(fit$classes)
  code <- if (ncol(fit$y) == 1L) 1L + (fit$y[, 1] > 0) else max.col(fit$y, "first")
  counts <- tabulate(code, k)
  own <- (counts[code] + 1) / (counts[code] + 2)
  target <- matrix((1 - own) / (k - 1), length(code), k)
  target[cbind(seq_along(code), code)] <- own
  feat <- cbind(1, loo)
  softmax <- function(eta) exp(eta - apply(eta, 1, max)) / rowSums(exp(eta - apply(eta, 1, max)))
  loss <- function(b) {
    eta <- cbind(0, feat %*% matrix(b, ncol(feat)))
    -sum(target * log(softmax(eta)))
  }
  b <- stats::optim(numeric(ncol(feat) * (k - 1)), loss, method = "BFGS",
                    control = list(maxit = 500))$par
  softmax(cbind(0, cbind(1, as.matrix(predict(fit, newx))) %*% matrix(b, ncol(feat))))
}

report <- NULL
for (name in names(datasets)) {
  d <- datasets[[name]]
  n <- nrow(d$x)
  dir <- tempfile("calib-")
  dir.create(dir)
  plan <- NULL
  alpha <- numeric(nsplit)
  res <- list(rlsc = NULL, sklearn = NULL, leaky = NULL)
  probs <- list()
  for (s in seq_len(nsplit)) {
    test <- unlist(lapply(split(seq_len(n), d$y), function(i) sample(i, round(0.3 * length(i)))))
    train <- setdiff(seq_len(n), test)
    fit <- suppressWarnings(rlsc(d$x[train, ], d$y[train]))
    alpha[s] <- fit$lambda_min
    p <- predict(fit, d$x[test, ], type = "prob")
    probs[[s]] <- list(test = test, p = p)
    res$rlsc <- rbind(res$rlsc, metrics(p, d$y[test]))
    res$leaky <- rbind(res$leaky, metrics(leaky(fit, d$x[test, ]), d$y[test]))
    folds <- getFromNamespace("dealt_folds", "rlsc")(5L, as.integer(d$y[train]), rep(1, length(train)))
    plan <- rbind(plan, cbind(s, train, folds), cbind(s, test, 0L))
  }
  if (has_sklearn) {
    utils::write.table(d$x, file.path(dir, "x.csv"), sep = ",", row.names = FALSE, col.names = FALSE)
    writeLines(as.character(d$y), file.path(dir, "y.csv"))
    utils::write.table(plan, file.path(dir, "plan.csv"), sep = ",", row.names = FALSE, col.names = FALSE)
    writeLines(format(alpha, digits = 17), file.path(dir, "alpha.csv"))
    status <- system2(python, c("bench/calibration_sklearn.py", dir))
    if (status == 0) {
      sk <- utils::read.csv(file.path(dir, "prob.csv"), header = FALSE)
      for (s in seq_len(nsplit)) {
        rows <- sk[sk[, 1] == s, ]
        p <- as.matrix(rows[match(probs[[s]]$test, rows[, 2]), -(1:2)])
        res$sklearn <- rbind(res$sklearn, metrics(p, d$y[probs[[s]]$test]))
      }
    }
  }
  for (m in names(res)) {
    if (is.null(res[[m]])) next
    report <- rbind(report, data.frame(data = name, n = n, classes = nlevels(d$y),
                                       method = m, t(colMeans(res[[m]]))))
  }
  unlink(dir, recursive = TRUE)
}
report$method <- c(rlsc = "rlsc (K-fold monotone map)", sklearn = "sklearn Platt, same folds",
                   leaky = "old: map on LOO values")[report$method]
print(report, digits = 4, row.names = FALSE)
