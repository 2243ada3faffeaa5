# make demo: choose lambda by exact leave-one-out on two base-R data sets,
# print the LOO tables and write the lambda-selection plots.
library(rlsc)
out <- "demo-output"
dir.create(out, showWarnings = FALSE)

show_table <- function(fit, title) {
  cat("\n==", title, "==\n")
  print(fit)
  around <- max(1, fit$index_min - 5):min(length(fit$lambda), fit$index_min + 5)
  tab <- fit$path[around, c("lambda", "df", fit$criterion, paste0(fit$criterion, "_se"))]
  tab$selected <- ifelse(around == fit$index_min, "<- lambda_min",
                         ifelse(around == fit$index_1se, "<- lambda_1se", ""))
  cat("Exact LOO table around the minimum:\n")
  print(tab, digits = 4, row.names = FALSE)
}

# Ridge regression: fuel consumption from the other mtcars columns, in their
# own units (standardize = TRUE penalizes them alike, as in the README).
cars <- rlsc(mpg ~ ., data = mtcars, standardize = TRUE)
show_table(cars, "mtcars: ridge regression of mpg")
cat("\nCoefficients at lambda_min:\n")
print(round(coef(cars), 4))

# RLSC: the three iris species, one-vs-all (the columns share their units, cm).
flowers <- rlsc(Species ~ ., data = iris)
show_table(flowers, "iris: one-vs-all RLSC of Species")
cat("\nLeave-one-out confusion matrix at lambda_min:\n")
print(table(LOO = loo_predict(flowers, type = "class"), truth = iris$Species))

png(file.path(out, "lambda-mtcars.png"), width = 800, height = 550, res = 110)
plot(cars, main = "mtcars: exact LOO error of ridge regression")
invisible(dev.off())
png(file.path(out, "coef-mtcars.png"), width = 800, height = 550, res = 110)
plot(cars, type = "coef", main = "mtcars: ridge coefficient paths")
invisible(dev.off())
png(file.path(out, "lambda-iris.png"), width = 800, height = 550, res = 110)
plot(flowers, main = "iris: exact LOO misclassification of RLSC")
invisible(dev.off())
cat("\nWrote", paste(file.path(out, c("lambda-mtcars.png", "coef-mtcars.png", "lambda-iris.png")),
                     collapse = ", "), "\n")

# Data in chunks: the same exact LOO path from files read twice, one at a time
# (in parallel when a future plan with several workers is set).
cat("\n== Chunked: 200000 rows in 8 files, fitted from chunks ==\n")
set.seed(1)
dir <- file.path(out, "chunks")
dir.create(dir, showWarnings = FALSE)
paths <- file.path(dir, sprintf("part%d.rds", 1:8))
beta <- c(2, -1, 0.5, rep(0, 7))
for (p in paths) {
  x <- matrix(rnorm(25000 * 10), 25000, dimnames = list(NULL, paste0("x", 1:10)))
  saveRDS(list(x = x, y = drop(x %*% beta) + rnorm(25000)), p)
}
print(system.time(big <- rlsc(chunk_files(paths))))
print(big)
print(round(coef(big), 3))
