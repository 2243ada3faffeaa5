# `make site-check`: the site that `make site` built, checked as a reader meets
# it.  Fails on
#   * a missing page: the home page, the reference index and every help topic,
#     the articles index and every vignette, the changelog;
#   * a topic the reference index does not list (pkgdown refuses the build
#     too; this says it of the built site);
#   * a broken internal link: every href and src of every page that points
#     inside the site must name a file of the site, and a #fragment an id of
#     its page;
#   * an example that errored while the site was built (pkgdown shows the
#     error on the page and goes on);
#   * a screenshot Chromium could not take.
# Examples that warn are listed, not failed.  Headless Chromium takes
# screenshots of the home page, the reference index, rlsc()'s page and the
# first article into site-screenshots/ (git-ignored): look at them.
#
#   Rscript scripts/site-check.R [site directory, default docs] [screenshot directory]
args <- commandArgs(trailingOnly = TRUE)
site <- if (length(args) >= 1L) args[[1L]] else "docs"
shots <- if (length(args) >= 2L) args[[2L]] else "site-screenshots"
if (!file.exists(file.path(site, "index.html"))) {
  stop("no built site in ", site, "/: run `make site` first", call. = FALSE)
}
site <- normalizePath(site)
failures <- character()
fail <- function(...) failures <<- c(failures, paste0(...))

# Pages that must be there.
rd_files <- list.files("man", pattern = "\\.Rd$")
rd <- lapply(file.path("man", rd_files), tools::parse_Rd)
rd_keywords <- vapply(rd, function(x) {
  keys <- x[vapply(x, attr, "", "Rd_tag") == "\\keyword"]
  paste(unlist(keys), collapse = " ")
}, "")
topic_pages <- file.path("reference", sub("\\.Rd$", ".html", rd_files))
vignettes <- list.files("vignettes", pattern = "\\.Rmd$")
article_pages <- file.path("articles", sub("\\.Rmd$", ".html", vignettes))
expected <- c("index.html", "reference/index.html", topic_pages, "articles/index.html",
              article_pages, "news/index.html")
for (page in expected[!file.exists(file.path(site, expected))]) fail("missing page: ", page)

# Every topic that is not internal is listed in the reference index.
read_page <- function(file) xml2::read_html(file, encoding = "UTF-8")
if (file.exists(file.path(site, "reference/index.html"))) {
  index <- read_page(file.path(site, "reference/index.html"))
  listed <- unique(sub("#.*", "", xml2::xml_attr(xml2::xml_find_all(index, "//main//a[@href]"), "href")))
  public <- topic_pages[!grepl("\\binternal\\b", rd_keywords)]
  for (page in public[!basename(public) %in% listed]) {
    fail("topic not in the reference index: ", sub("\\.html$", "", basename(page)))
  }
}

# Internal links and resources of every page.
pages <- list.files(site, pattern = "\\.html$", recursive = TRUE)
pages <- pages[!grepl("^(mathjax|deps)/", pages)]
ids <- new.env()
ids_of <- function(file) {
  if (is.null(ids[[file]])) {
    doc <- read_page(file)
    ids[[file]] <- c(xml2::xml_attr(xml2::xml_find_all(doc, "//*[@id]"), "id"),
                     xml2::xml_attr(xml2::xml_find_all(doc, "//a[@name]"), "name"))
  }
  ids[[file]]
}
external <- "^([A-Za-z][A-Za-z0-9+.-]*:|//)"
n_links <- 0L
for (page in pages) {
  file <- file.path(site, page)
  doc <- read_page(file)
  nodes <- xml2::xml_find_all(doc, "//*[@href or @src]")
  refs <- ifelse(is.na(xml2::xml_attr(nodes, "href")), xml2::xml_attr(nodes, "src"),
                 xml2::xml_attr(nodes, "href"))
  refs <- unique(refs[!is.na(refs) & nzchar(refs) & !grepl(external, refs)])
  n_links <- n_links + length(refs)
  for (ref in refs) {
    fragment <- if (grepl("#", ref, fixed = TRUE)) sub("^[^#]*#", "", ref) else ""
    path <- utils::URLdecode(sub("[?#].*", "", ref))
    target <- if (nzchar(path)) file.path(dirname(file), path) else file
    if (dir.exists(target)) target <- file.path(target, "index.html")
    target <- normalizePath(target, mustWork = FALSE)
    if (!file.exists(target) || !startsWith(target, paste0(site, "/"))) {
      fail("broken link in ", page, ": ", ref)
    } else if (nzchar(fragment) && grepl("\\.html$", target) &&
               !utils::URLdecode(fragment) %in% ids_of(target)) {
      fail("broken anchor in ", page, ": ", ref)
    }
  }
}

# Examples: errors fail, warnings are listed.
examples <- function(page, class) {
  doc <- read_page(file.path(site, page))
  out <- xml2::xml_text(xml2::xml_find_all(doc, sprintf("//span[contains(@class, '%s')]", class)))
  trimws(sub("^#>\\s*", "", out))
}
n_warnings <- 0L
for (page in topic_pages[file.exists(file.path(site, topic_pages))]) {
  for (msg in examples(page, "r-err")) fail("example error in ", page, ": ", msg)
  warned <- examples(page, "r-wrn")
  n_warnings <- n_warnings + length(warned)
  for (msg in warned) cat("note: example warning in ", page, ": ", substr(msg, 1L, 160L), "\n", sep = "")
}

# Screenshots, as headless Chromium renders the pages.  The network is not
# needed: pkgdown's CDN scripts (Font Awesome, the article's table of
# contents, search) fail to load offline and the pages render without them.
browser <- Sys.which(c("chromium", "chromium-browser", "google-chrome"))
browser <- browser[nzchar(browser)][1L]
if (is.na(browser)) stop("no Chromium found: `make site-deps` installs Debian's chromium", call. = FALSE)
dir.create(shots, showWarnings = FALSE, recursive = TRUE)
article <- if ("rlsc.Rmd" %in% vignettes) "articles/rlsc.html" else article_pages[1L]
screens <- list(home = c("index.html", 2000), reference = c("reference/index.html", 2000),
                rlsc = c("reference/rlsc.html", 2600), article = c(article, 2600))
for (name in names(screens)) {
  page <- screens[[name]][1L]
  png <- normalizePath(file.path(shots, paste0(name, ".png")), mustWork = FALSE)
  unlink(png)
  profile <- tempfile("chromium-")
  log <- system2(browser, c("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                            "--no-first-run", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync",
                            paste0("--user-data-dir=", profile), "--hide-scrollbars",
                            "--virtual-time-budget=10000",
                            paste0("--window-size=1280,", screens[[name]][2L]),
                            paste0("--screenshot=", png),
                            paste0("file://", file.path(site, page))),
                 stdout = TRUE, stderr = TRUE)
  unlink(profile, recursive = TRUE)
  if (!file.exists(png) || file.size(png) < 10000) {
    fail("no screenshot of ", page, ": ", paste(utils::tail(log, 3L), collapse = " | "))
  } else {
    cat("screenshot: ", file.path(shots, basename(png)), " (", page, ")\n", sep = "")
  }
}

cat(sprintf("site-check: %d pages, %d internal links and resources, %d example warnings\n",
            length(pages), n_links, n_warnings))
if (length(failures)) {
  cat(paste0("FAIL: ", failures), sep = "\n")
  cat("site-check: FAILED (", length(failures), " problems)\n", sep = "")
  quit(status = 1L)
}
cat("site-check: OK\n")
