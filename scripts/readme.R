# The R code of a README, as written: its ```r blocks in order, echoed, in
# this session, with warnings as errors (a newcomer's first commands should
# not warn); then every vignette("...") the README names must be installed.
# Run by scripts/readme-check.sh on a fresh clone after `make demo`.
readme <- commandArgs(trailingOnly = TRUE)[1]
lines <- readLines(readme)
fences <- grep("^```", lines)
open <- fences[grepl("^```r\\s*$", lines[fences])]
code <- unlist(lapply(open, function(i) {
  close <- fences[fences > i][1L]
  lines[seq_len(close - i - 1L) + i]
}))
if (!length(code)) stop("no ```r block in ", readme)
options(warn = 2)
source(exprs = parse(text = code, keep.source = TRUE), echo = TRUE, max.deparse.length = Inf)
named <- unique(unlist(regmatches(lines, gregexpr('(?<=vignette\\(")[^"]+', lines, perl = TRUE))))
installed <- tools::getVignetteInfo("rlsc")[, "Topic"]
missing <- setdiff(named, installed)
if (length(missing)) {
  stop("the README points to vignettes that are not installed: ", paste(missing, collapse = ", "))
}
cat(sprintf("\nreadme: OK (%d lines of R ran without a warning; vignettes %s installed)\n",
            length(code), paste(named, collapse = ", ")))
