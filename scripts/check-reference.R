# `make check-reference`: in a few seconds and without pkgdown, what would
# stop `make site` in pkgdown's reference step (which nothing else runs, so
# it broke unnoticed: two topics missing from the index, a usage that
# pkgdown could not parse):
#   * every topic of man/ that is not internal is in _pkgdown.yml's
#     reference index (pkgdown: "All topics must be included in reference
#     index"), and every name listed there is a topic's name or alias;
#   * every vignette is in its articles index (pkgdown: "Vignettes missing
#     from index");
#   * every \usage section parses as R code, read as the pkgdown that
#     `make site` installs (Debian's 2.0.7) reads it: \method{g}{c} as
#     S3method(`g`, `c`), so a class must not be quoted in the Rd (roxygen
#     quotes `_rlsc`, parsnip's class of the engine's fits, when it writes the
#     usage itself), \dots as ...; pkgdown warns "Failed to parse usage" and
#     lists no function for the topic.
# The index lists topics by name: pkgdown's selectors (starts_with(), ...)
# are refused here, so that this check and pkgdown agree.
config <- yaml::read_yaml("_pkgdown.yml")
listed <- unlist(lapply(config$reference, `[[`, "contents"))
if (!is.character(listed)) stop("_pkgdown.yml: every reference entry must be a topic's name")
selectors <- grep("[^A-Za-z0-9._-]", listed, value = TRUE)
if (length(selectors)) {
  stop("_pkgdown.yml: list topics by name, not by selector: ", paste(selectors, collapse = ", "))
}

rd_tags <- function(rd) vapply(rd, function(e) attr(e, "Rd_tag"), "")
rd_field <- function(rd, tag) trimws(vapply(rd[rd_tags(rd) == tag], paste, "", collapse = ""))

# the usage as pkgdown turns it into R code
usage_code <- function(x) {
  tag <- attr(x, "Rd_tag")
  if (is.null(tag)) tag <- ""
  switch(tag,
    TEXT = , RCODE = , VERB = paste(as.character(x), collapse = ""),
    COMMENT = "",
    "\\dots" = , "\\ldots" = "...",
    "\\method" = , "\\S3method" =
      sprintf("S3method(`%s`, `%s`)", usage_code(x[[1L]]), usage_code(x[[2L]])),
    "\\S4method" = sprintf("S4method(`%s`, list(%s))", usage_code(x[[1L]]),
                           paste0("`", strsplit(usage_code(x[[2L]]), ",")[[1L]], "`",
                                  collapse = ",")),
    paste(vapply(x, usage_code, ""), collapse = ""))
}

problems <- character()
topics <- character()
names_and_aliases <- character()
for (file in sort(list.files("man", pattern = "\\.Rd$", full.names = TRUE))) {
  rd <- tools::parse_Rd(file)
  name <- rd_field(rd, "\\name")
  names_and_aliases <- c(names_and_aliases, name, rd_field(rd, "\\alias"))
  if (!any(listed %in% c(name, rd_field(rd, "\\alias"))) && !"internal" %in% rd_field(rd, "\\keyword")) {
    topics <- c(topics, name)
  }
  usage <- rd[rd_tags(rd) == "\\usage"]
  if (length(usage)) {
    code <- usage_code(usage[[1L]])
    parsed <- tryCatch(parse(text = code, keep.source = FALSE), error = conditionMessage)
    if (is.character(parsed)) {
      problems <- c(problems, sprintf("%s: the usage does not parse as pkgdown reads it: %s",
                                      file, parsed))
    }
  }
}
if (length(topics)) {
  problems <- c(problems, paste("topics missing from _pkgdown.yml's reference index:",
                                paste(topics, collapse = ", ")))
}
unknown <- setdiff(listed, names_and_aliases)
if (length(unknown)) {
  problems <- c(problems, paste("_pkgdown.yml names topics that man/ does not have:",
                                paste(unknown, collapse = ", ")))
}
vignettes <- tools::file_path_sans_ext(list.files("vignettes", pattern = "\\.Rmd$"))
articles <- unlist(lapply(config$articles, `[[`, "contents"))
if (!is.null(config$articles) && length(setdiff(vignettes, articles))) {
  problems <- c(problems, paste("vignettes missing from _pkgdown.yml's articles index:",
                                paste(setdiff(vignettes, articles), collapse = ", ")))
}
if (length(problems)) {
  writeLines(problems)
  quit(status = 1)
}
cat("check-reference: OK (", length(unique(listed)), " topics in the index, every usage parses)\n",
    sep = "")
