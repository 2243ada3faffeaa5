# The test files for `make valgrind`, shared by several R processes each run
# under valgrind: a process takes the next file nobody has claimed (a claim
# is a directory created in `claims`, which only one process can create)
# until none is left, so the files spread over the processes by their time,
# whatever it is.  The slowest files under valgrind go first (`first`, 320
# to 130 s each on 2026-11-27, of 3400 s for all 48), the rest largest
# first, so that no process is left with a long file at the end.  valgrind
# runs a process on one core (it serializes threads): one process ran the
# suite in 40-46 minutes, two on two cores in 29-30.
#
# Run from tests/: R -d valgrind -f ../scripts/valgrind-tests.R --args <claims>
# Fails (status 1) when a test fails; valgrind's own errors set its exit code.
# One expression that ends in quit(): R reads this file as its console input,
# and the tests' forked children, exiting, moved the shared file offset back,
# so that R read the end of the script again (a parse error after every test
# had passed).
local({
  claims <- commandArgs(TRUE)[1L]
  stopifnot(!is.na(claims), dir.exists(claims))
  library(testthat)
  library(rlsc)

  first <- c("test-threads.R", "test-fuzz.R", "test-feature_fit.R", "test-dual.R", "test-chunk_fit.R",
             "test-parsnip.R", "test-engine.R", "test-combinations.R", "test-bands-kernel.R",
             "test-kfold.R")
  files <- list.files("testthat", "^test-.*\\.R$")
  files <- files[order(match(files, first), -file.size(file.path("testthat", files)))]   # (NA last)
  failed <- character()
  for (f in files) {
    if (!dir.create(file.path(claims, f), showWarnings = FALSE)) next
    start <- proc.time()[["elapsed"]]
    res <- as.data.frame(test_file(file.path("testthat", f), package = "rlsc",
                                   load_package = "installed", reporter = "summary"))
    if (any(res$failed > 0 | res$error)) failed <- c(failed, f)
    cat(sprintf("%s: %d tests, %.0f s\n", f, sum(res$nb), proc.time()[["elapsed"]] - start))
  }
  if (length(failed)) cat("failed:", failed, "\n")
  quit(status = if (length(failed)) 1L else 0L)
})
