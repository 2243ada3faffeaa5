# `make coverage`: line coverage of R/ and src/ by the test suite, with covr.
# covr installs the package (C compiled for gcov) into a temporary library and
# runs tests/testthat.R there, so the tests that need an installed rlsc
# (parallel future workers) run too.  Prints the coverage of each file and
# the totals of R/ and src/, keeps the result in coverage.rds (git-ignored;
# covr::zero_coverage(readRDS("coverage.rds")) lists the lines not run), and
# fails when R/ or src/ is below COVERAGE_MIN percent.
minimum <- as.numeric(Sys.getenv("COVERAGE_MIN", "90"))
cov <- covr::package_coverage(".", type = "tests", quiet = TRUE)
saveRDS(cov, "coverage.rds")

lines <- covr::tally_coverage(cov, by = "line")
lines <- lines[!duplicated(lines[c("filename", "line")]), ]
per_file <- do.call(rbind, lapply(split(lines, lines$filename), function(f) {
  data.frame(file = f$filename[1L], lines = nrow(f), covered = sum(f$value > 0))
}))
per_file$percent <- 100 * per_file$covered / per_file$lines
per_file <- per_file[order(dirname(per_file$file), per_file$percent), ]

cat(sprintf("%-24s %6s %8s %7s\n", "file", "lines", "covered", "percent"))
cat(sprintf("%-24s %6d %8d %6.1f%%\n", per_file$file, per_file$lines, per_file$covered,
            per_file$percent), sep = "")
short <- character()
for (dir in c("R", "src")) {
  part <- per_file[dirname(per_file$file) == dir, ]
  percent <- 100 * sum(part$covered) / sum(part$lines)
  cat(sprintf("%-24s %6d %8d %6.1f%%\n", paste0(dir, "/ total"), sum(part$lines),
              sum(part$covered), percent))
  if (percent < minimum) short <- c(short, sprintf("%s/ %.1f%%", dir, percent))
}
if (length(short)) {
  cat("coverage: below ", minimum, "%: ", paste(short, collapse = ", "), "\n", sep = "")
  quit(status = 1L)
}
cat("coverage: OK (R/ and src/ at least ", minimum, "% of lines)\n", sep = "")
