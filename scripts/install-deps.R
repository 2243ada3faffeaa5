# Install the R packages that DESCRIPTION (Imports and Suggests) and the
# developer targets need: Debian's r-cran-* builds where apt can be used, CRAN
# for the rest.  `Rscript scripts/install-deps.R --check` only reports.
# Package names after the options install those instead, for the targets that
# need more than the check (`make site`: pkgdown, `make coverage`: covr,
# `make lint`: lintr), only when such a target runs.
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
# future 1.40 changed how backends run futures.  The future.apply,
# future.batchtools and batchtools of Debian 12 predate it: beside a newer
# future (from CRAN, as another package's dependency) a failed future's error
# is lost, so they then come from CRAN too.
outdated <- function() {
  # the versions on disk, not those of namespaces missing() loaded
  version <- function(p) {
    path <- find.package(p, lib.loc = .libPaths(), quiet = TRUE)
    if (length(path)) package_version(read.dcf(file.path(path[1L], "DESCRIPTION"), "Version")[1L])
  }
  if (is.null(version("future")) || version("future") < "1.40.0") return(character())
  minimum <- c(future.apply = "1.20.0", future.batchtools = "0.20.0", batchtools = "0.9.17")
  pkgs <- intersect(names(minimum), c(wanted, if ("future.batchtools" %in% wanted) "batchtools"))
  pkgs[vapply(pkgs, function(p) !is.null(version(p)) && version(p) < minimum[[p]], logical(1))]
}
need <- missing()
old <- outdated()
if ("--check" %in% args) {
  if (length(need)) cat("missing:", need, "\n")
  if (length(old)) cat("older than the installed future needs:", old, "\n")
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
# from the repository configured for this R (never one written here)
if (length(c(need, old))) {
  if (identical(unname(getOption("repos")["CRAN"]), "@CRAN@")) chooseCRANmirror(ind = 1, local.only = TRUE)
  install.packages(c(need, old))
}
need <- c(missing(), outdated())
if (length(need)) stop("could not install: ", paste(need, collapse = ", "))
