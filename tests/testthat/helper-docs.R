# A help page of the package: from the source's man/ under `make unit`, from
# the installed package in R CMD check.  NULL when neither is there.
rd_page <- function(name) {
  file <- test_path("..", "..", "man", paste0(name, ".Rd"))
  if (file.exists(file)) return(tools::parse_Rd(file))
  tools::Rd_db("rlsc")[[paste0(name, ".Rd")]]
}

# Its text as Rd2txt renders it, with quotes dropped and white space squeezed.
rd_text <- function(name) {
  rd <- rd_page(name)
  if (is.null(rd)) return(NULL)
  txt <- paste(capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
               collapse = " ")
  gsub("\\s+", " ", gsub("['\u2018\u2019]", "", txt))
}
