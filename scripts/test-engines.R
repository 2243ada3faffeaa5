# The engine tests, one file at a time against the installed rlsc, each
# timed (scripts/test-engines starts the servers first and sets
# RLSC_ENGINES_STRICT, under which a missing engine or package is an error,
# not a skip: only the known defects skip).  Ends with the counts; fails if
# a test failed.
# one file at a time, never in parallel processes: the tests check that no
# Slurm job and no database session outlives a fit
Sys.setenv(TESTTHAT_PARALLEL = "false")
files <- sort(list.files("tests/testthat", pattern = "^test-engines-.*\\.R$"))
rows <- lapply(files, function(file) {
  filter <- sub("^test-(.*)\\.R$", "\\1", file)
  time <- system.time(res <- as.data.frame(testthat::test_dir(
    "tests/testthat", filter = filter, package = "rlsc", load_package = "installed",
    reporter = testthat::ProgressReporter$new(show_praise = FALSE), stop_on_failure = FALSE)))
  data.frame(file = file, seconds = round(time[["elapsed"]], 1), passed = sum(res$passed),
             failed = sum(res$failed + res$error), skipped = sum(res$skipped))
})
tab <- do.call(rbind, rows)
cat("\nengine tests, wall time per file:\n")
print(tab, row.names = FALSE)
cat(sprintf("%d passed, %d failed, %d skipped\n", sum(tab$passed), sum(tab$failed), sum(tab$skipped)))
if (sum(tab$failed)) quit(status = 1)
