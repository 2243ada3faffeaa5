# `make site`: the pkgdown site into docs/, from the rlsc installed in the
# private library that R_LIBS names (the Makefile installs it there; never the
# site library).  Examples and vignettes run as they do for a user.
#
# Nothing is fetched from the internet: pkgdown's "View on CRAN" probe is off
# (pkgdown.internet), and downlit, which links `pkg::fun()` to the pages of
# packages that are not installed by looking them up in CRAN's package
# database, gets no database: such calls (RhpcBLASctl, duckdb, sparklyr in
# vignette("chunked")) stay plain code.  Installed packages are linked as usual.
options(pkgdown.internet = FALSE, repos = c(CRAN = "@CRAN@"))
# (packages the vignettes load ask timedatectl for the time zone, which warns
# in containers without systemd)
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
utils::assignInNamespace("CRAN_urls", function() NULL, "downlit")
pkgdown::build_site(".", install = FALSE, new_process = FALSE, preview = FALSE)

# Math.  Debian's pkgdown loads MathJax from file:///usr/share/javascript/mathjax
# (which a published site cannot reach) and its configuration from a CDN
# (which an offline reader cannot), so every \(\lambda\) of the reference and
# the articles showed as TeX source.  The site carries the parts of that same
# MathJax (Debian's libjs-mathjax, a dependency of its r-cran-pkgdown) that
# TeX input and CommonHTML output need, about 2 MB, and every page loads it
# by a relative path.  Without libjs-mathjax (pkgdown from CRAN) the pages keep
# pkgdown's CDN MathJax.
mathjax <- "/usr/share/javascript/mathjax"
if (file.exists(file.path(mathjax, "MathJax.js"))) {
  parts <- c("MathJax.js", "config/TeX-AMS_CHTML.js", "extensions", "jax/input/TeX",
             "jax/output/CommonHTML", "jax/element/mml", "fonts/HTML-CSS/TeX/woff",
             "localization/en")
  unlink("docs/mathjax", recursive = TRUE)
  for (part in parts) {
    to <- file.path("docs/mathjax", dirname(part))
    dir.create(to, recursive = TRUE, showWarnings = FALSE)
    stopifnot(file.copy(file.path(mathjax, part), to, recursive = TRUE))
  }
  pages <- list.files("docs", pattern = "\\.html$", recursive = TRUE)
  pages <- pages[!startsWith(pages, "mathjax/")]
  loader <- '<script src="[^"]*MathJax\\.js"[^>]*></script>'
  config <- '<script src="[^"]*mathjax/[^"]*/config/[^"]*"[^>]*></script>'
  for (page in pages) {
    file <- file.path("docs", page)
    html <- readChar(file, file.size(file), useBytes = TRUE)
    if (!grepl(loader, html, useBytes = TRUE)) next
    root <- strrep("../", lengths(regmatches(page, gregexpr("/", page))))
    local <- sprintf('<script src="%smathjax/MathJax.js?config=TeX-AMS_CHTML"></script>', root)
    html <- sub(loader, local, html, useBytes = TRUE)
    html <- gsub(config, "", html, useBytes = TRUE)
    writeChar(html, file, eos = NULL, useBytes = TRUE)
  }
  cat("MathJax: Debian's libjs-mathjax copied to docs/mathjax,", length(pages), "pages load it\n")
}
