# `make lint`: lintr with the package's style, .lintr for R/ and
# tests/.lintr for tests/ (the same rules, less object_usage_linter).
#
# object_usage_linter checks calls against the namespace of the package, which
# it takes from the library: the working tree is loaded first (pkgload), or a
# stale installed rlsc would decide which functions exist.
#
# lintr 3.0.2's object_name_linter knows the S3 generics defined in the same
# file or imported.  The methods of the package's own generics (engine_path()
# in engine.R, rlsc() in rlsc.R) and of suggested packages' generics
# registered in NAMESPACE (generics::tidy(), ggplot2::autoplot()) are named
# generic.class as S3 requires, and the arguments that R's generics fix
# (`na.action`, `se.fit`) keep their names: those are not style faults.
pkgload::load_all(".", quiet = TRUE, helpers = FALSE)
ns <- asNamespace("rlsc")
own_generics <- Filter(function(f) {
  fun <- get(f, envir = ns)
  is.function(fun) && any(grepl("UseMethod", deparse(body(fun)), fixed = TRUE))
}, ls(ns, all.names = TRUE))
registered <- parseNamespaceFile(basename(getwd()), dirname(getwd()))$S3methods
registered <- paste(sub(".*::", "", registered[, 1L]), registered[, 2L], sep = ".")
r_arguments <- c("na.action", "se.fit")
s3_name <- function(name) {
  name %in% c(registered, r_arguments) ||
    any(startsWith(name, paste0(own_generics, ".")))
}
flagged_name <- function(lint) {
  rest <- substring(lint$line, lint$column_number)
  regmatches(rest, regexpr("^[[:alnum:]._]+", rest))
}

found <- list()
for (dir in c("R", "tests")) {
  lints <- lintr::lint_dir(dir)
  keep <- vapply(lints, function(lint) {
    lint$linter != "object_name_linter" || !s3_name(flagged_name(lint))
  }, logical(1))
  lints <- lints[keep]
  if (length(lints)) print(lints)
  found[[dir]] <- length(lints)
  cat(sprintf("lint: %s/ %d lints\n", dir, length(lints)))
}
if (sum(unlist(found))) {
  cat("lint: FAILED\n")
  quit(status = 1L)
}
cat("lint: OK (R/ and tests/ clean)\n")
