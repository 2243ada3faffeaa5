# DESIGN.md's file index names every file of R/ and src/ (*.R, *.c, *.h), and
# no file that is gone.  DESIGN.md is left out of the built package
# (.Rbuildignore: R CMD check notes a non-standard top-level file), so the
# test reads the source tree: the one the tests run in (make unit,
# test-openblas, valgrind, sanitize run tests/ of the source), or under
# R CMD check the one RLSC_SOURCE names (make check / make test set it to
# the tree they build, so CI runs this test).  A bare R CMD check of a
# tarball without RLSC_SOURCE skips it, saying why.

design_root <- function() {
  given <- Sys.getenv("RLSC_SOURCE")
  if (nzchar(given)) return(given)
  here <- test_path("..", "..")
  if (file.exists(file.path(here, "DESIGN.md")) && dir.exists(file.path(here, "R"))) here
}

# The backquoted file names of the section "## Files, each with one job", up
# to the next section.
design_index <- function(root) {
  lines <- readLines(file.path(root, "DESIGN.md"), warn = FALSE)
  start <- grep("^## Files, each with one job", lines)
  expect_length(start, 1L)
  ends <- grep("^## ", lines)
  end <- min(c(ends[ends > start], length(lines) + 1L)) - 1L
  text <- paste(lines[start:end], collapse = "\n")
  found <- regmatches(text, gregexpr("`[A-Za-z0-9_.-]+\\.(R|c|h)`", text))[[1L]]
  unique(gsub("`", "", found))
}

test_that("DESIGN.md's file index names every file of R/ and src/, and only those", {
  root <- design_root()
  if (is.null(root)) {
    skip("DESIGN.md is not in the built package: set RLSC_SOURCE to the source tree (make check does)")
  }
  expect_true(file.exists(file.path(root, "DESIGN.md")), label = "DESIGN.md under RLSC_SOURCE")
  files <- c(list.files(file.path(root, "R"), pattern = "\\.R$"),
             list.files(file.path(root, "src"), pattern = "\\.(c|h)$"))
  expect_gt(length(files), 20L)
  index <- design_index(root)
  expect_identical(setdiff(files, index), character(0),
                   label = "files of R/ and src/ missing from DESIGN.md's index")
  expect_identical(setdiff(index, files), character(0),
                   label = "files in DESIGN.md's index that R/ and src/ do not hold")
})
