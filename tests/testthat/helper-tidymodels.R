# Helpers of the tests of the parsnip engine (test-parsnip.R,
# test-parsnip-conformance.R).

# Skips unless the tidymodels packages a test needs are installed.  tzdb
# (loaded with tune) calls Sys.timezone() when it loads, which on a machine
# without systemd warns that `timedatectl` failed unless TZ is set: that
# warning is the machine's, not rlsc's, so TZ is set for the test, before
# the packages load, when it is not.
need_tidymodels <- function(pkgs = c("parsnip", "tune", "rsample", "workflows", "yardstick"),
                            envir = parent.frame()) {
  force(envir)   # the caller's frame, not this one's, when forced inside withr
  if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC", .local_envir = envir)
  for (p in pkgs) skip_if_not_installed(p)
}

# rsample's folds as rlsc's fold labels: the assessment rows of fold k get k.
fold_labels <- function(folds, n) {
  id <- integer(n)
  for (k in seq_along(folds$splits)) id[rsample::complement(folds$splits[[k]])] <- k
  id
}
