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
need <- missing()
if ("--check" %in% args) {
  if (length(need)) cat("missing:", need, "\n") else cat("deps: all present\n")
  quit(status = length(need) > 0)
}
if (!length(need)) quit(status = 0)
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
if (length(need)) install.packages(need, repos = "https://cloud.r-project.org")
need <- missing()
if (length(need)) stop("could not install: ", paste(need, collapse = ", "))
