#!/bin/sh
# `make readme`: the README's commands as a newcomer runs them, in a fresh
# clone of the committed HEAD, with a library of its own (yours is not
# touched): `make demo`, then the README's R code as written in a new R
# session, warnings counted as errors, and the vignettes it points to.
# `make test`, the README's other command, is the first thing CI runs
# (.ci/run), in its own checkout.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q . "$work/rlsc"
mkdir "$work/lib"
lib="$work/lib${R_LIBS:+:$R_LIBS}"
cd "$work/rlsc"
R_LIBS="$lib" make demo > "$work/demo.log" 2>&1 || {
  tail -n 30 "$work/demo.log"
  echo "readme: make demo FAILED in a fresh clone"
  exit 1
}
R_LIBS="$lib" Rscript scripts/readme.R README.md
