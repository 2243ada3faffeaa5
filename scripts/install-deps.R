# Install the R packages that DESCRIPTION (Imports and Suggests) and the
# developer targets need: Debian's r-cran-* builds where apt can be used, CRAN
# for the rest.  `Rscript scripts/install-deps.R --check` only reports.
# Package names after the options install those instead, for the targets that
# need more than the check (`make site`: pkgdown, `make coverage`: covr,
# `make lint`: lintr), only when such a target runs.
# (loading some packages asks timedatectl for the time zone, which warns in
# containers without systemd)
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
args <- commandArgs(trailingOnly = TRUE)
named <- args[!startsWith(args, "--")]
if (length(named)) {
  wanted <- named
} else {
  fields <- read.dcf("DESCRIPTION", fields = c("Imports", "Suggests"))
  wanted <- unlist(strsplit(gsub("\\([^)]*\\)", "", fields), "[[:space:],]+"))
  wanted <- unique(c(wanted[nzchar(wanted) & !is.na(wanted)], "roxygen2", "callr", "pkgload", "pkgbuild"))
}
base <- rownames(installed.packages(priority = "base"))
missing <- function() {
  pkgs <- setdiff(wanted, base)
  pkgs[!vapply(pkgs, requireNamespace, logical(1), quietly = TRUE)]
}
# Installed packages older than a requirement (">=") of a package the
# wanted ones need, recursively: Debian's builds can be older than what a
# package from CRAN (parsnip's stack, future's) requires, and install.packages()
# installs missing dependencies but never upgrades old ones.  `db` says what
# each package requires: the installed DESCRIPTIONs (--check, offline) or the
# repository's index (when installing from it).
requirements <- function(entry) {
  fields <- entry[intersect(c("Depends", "Imports", "LinkingTo"), names(entry))]
  parts <- trimws(unlist(strsplit(gsub("\n", " ", fields[!is.na(fields)]), ",")))
  parts <- parts[nzchar(parts)]
  data.frame(name = sub("^([A-Za-z0-9.]+).*$", "\\1", parts),
             min = ifelse(grepl(">=", parts), sub(".*>=\\s*([^) ]+).*", "\\1", parts), NA))
}
outdated <- function(db = installed.packages(), seeds = wanted) {
  have <- installed.packages()
  version <- function(p) if (p %in% rownames(have)) package_version(have[p, "Version"])
  old <- character()
  seen <- c(base, "R")
  queue <- intersect(seeds, rownames(db))
  while (length(queue)) {
    p <- queue[1L]
    queue <- queue[-1L]
    if (p %in% seen) next
    seen <- c(seen, p)
    req <- requirements(db[p, ])
    for (k in seq_len(nrow(req))) {
      q <- req$name[k]
      if (q %in% c(base, "R")) next
      v <- version(q)
      if (!is.null(v) && !is.na(req$min[k]) && v < req$min[k]) old <- union(old, q)
      if (q %in% rownames(db)) queue <- c(queue, q)
    }
  }
  old
}
need <- missing()
old <- outdated()
if ("--check" %in% args) {
  if (length(need)) cat("missing:", need, "\n")
  if (length(old)) cat("older than other packages require:", old, "\n")
  if (!length(c(need, old))) cat("deps: all present\n")
  quit(status = length(c(need, old)) > 0)
}
if (!length(c(need, old))) quit(status = 0)
apt <- nzchar(Sys.which("apt-get")) && identical(unname(Sys.info()["effective_user"]), "root")
if (apt) {
  debs <- paste0("r-cran-", tolower(need))
  known <- debs[vapply(debs, function(p) {
    length(suppressWarnings(system2("apt-cache", c("show", p), stdout = TRUE, stderr = FALSE))) > 0
  }, logical(1))]
  if (length(known)) {
    system2("apt-get", c("install", "-y", "-qq", "--no-install-recommends", known),
            env = "DEBIAN_FRONTEND=noninteractive")
  }
  need <- missing()
}
# from the repository configured for this R (never one written here), with
# every installed package older than what the repository's versions require
if (length(c(need, old))) {
  if (identical(unname(getOption("repos")["CRAN"]), "@CRAN@")) chooseCRANmirror(ind = 1, local.only = TRUE)
  repo <- available.packages()
  old <- union(old, outdated(repo, c(need, old)))
  install.packages(c(need, old))
}
# checked again in a new R: this one may hold the namespaces the first check
# loaded, older than the ones just installed, so requireNamespace() of a
# package that needs the newer ones fails here (a fresh machine's first
# `make deps` stopped so with everything installed)
script <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1L])
if (is.na(script)) script <- file.path("scripts", "install-deps.R")   # (R -f, source())
status <- system2(file.path(R.home("bin"), "Rscript"), c(shQuote(script), "--check", shQuote(named)))
if (status != 0) stop("could not install every package (above)")
