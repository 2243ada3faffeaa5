# Developer entry points.  Every target installs what it needs first, so a
# fresh machine of this kind only needs `make demo` or `make test`.
R       ?= R
RSCRIPT ?= Rscript
PKG     := rlsc
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz

# System tools the check needs; the R packages come from DESCRIPTION (see
# scripts/install-deps.R: Debian's r-cran-* builds, CRAN as the fallback).
SYS_DEPS := pandoc qpdf

# The CRAN-incoming and clock checks need the internet; this machine has none.
# NOT_CRAN=true runs the tests CRAN would skip (parallel backends, the memory
# cap): CI runs them all.
CHECK_ENV := _R_CHECK_CRAN_INCOMING_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false \
             _R_CHECK_SYSTEM_CLOCK_=false NOT_CRAN=true

.PHONY: deps install demo test unit check valgrind bench bench-kernel bench-scale bench-kfold docs clean

deps:
	@if ! command -v pandoc >/dev/null || ! command -v qpdf >/dev/null || \
	    ! $(RSCRIPT) scripts/install-deps.R --check; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SYS_DEPS); \
	  fi; \
	  $(RSCRIPT) scripts/install-deps.R; \
	fi

docs: deps
	$(RSCRIPT) -e 'roxygen2::roxygenise()'

install: deps
	$(R) CMD INSTALL --no-multiarch .

demo: install
	$(RSCRIPT) scripts/demo.R

$(TARBALL): deps
	$(R) CMD build .

# The testthat suite alone against the working tree (compiled by pkgload), in
# seconds: the inner loop.  `make test` stays the full check that CI runs.
unit: deps
	NOT_CRAN=true $(RSCRIPT) -e 'testthat::test_local(".", reporter = testthat::ProgressReporter$$new(show_praise = FALSE), stop_on_failure = TRUE)'

# R CMD check --as-cran must end with "Status: OK": no ERROR, WARNING or NOTE.
check test: $(TARBALL)
	$(CHECK_ENV) $(R) CMD check --as-cran --no-manual $(TARBALL)
	@grep -q '^Status: OK' $(PKG).Rcheck/00check.log || { echo "R CMD check status is not OK"; exit 1; }
	@sed -n 's/.*\[ FAIL \([0-9]*\) | WARN [0-9]* | SKIP \([0-9]*\) | PASS \([0-9]*\) \].*/\3 passed, \1 failed, \2 skipped/p' \
	  $(PKG).Rcheck/tests/testthat.Rout | tail -n 1

# The test suite under valgrind: no invalid read or write, no definitely lost
# memory.  Installs into a private library (never the site library) and
# installs valgrind from Debian if it is missing.  Takes about 5 minutes.
# Only definite leaks count as errors: cli's timer thread (loaded by testthat)
# leaves 336 bytes "possibly lost" that are not this package's.
VALGRIND     := valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
VALGRIND_LIB := $(CURDIR)/valgrind-lib
valgrind: deps
	@command -v valgrind >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind; }
	mkdir -p $(VALGRIND_LIB)
	$(R) CMD INSTALL --no-multiarch -l $(VALGRIND_LIB) .
	cd tests && R_LIBS=$(VALGRIND_LIB) NOT_CRAN=true $(R) -d "$(VALGRIND)" --vanilla -f testthat.R \
	  > ../valgrind.log 2>&1 || { tail -n 40 ../valgrind.log; echo "valgrind: FAILED, see valgrind.log"; exit 1; }
	@grep -a -E 'ERROR SUMMARY|definitely lost|Invalid (read|write)|\[ FAIL' valgrind.log
	@echo "valgrind: OK (no errors, see valgrind.log)"

bench: install
	$(RSCRIPT) bench/path.R

# about 25 minutes: 5 RBF widths x 100 lambdas at n = 2000, against eigen(), kernlab, KRLS
bench-kernel: install
	$(RSCRIPT) bench/kernel.R

# exact 10-fold CV against cv.glmnet and scikit-learn (about 15 minutes)
bench-kfold: install
	$(RSCRIPT) bench/kfold.R

# about 25 minutes and 8 GB of disk (bench/cache): chunked fits of n = 2e7, d = 50
bench-scale: install
	$(RSCRIPT) bench/scale.R

clean:
	rm -rf $(PKG).Rcheck $(PKG)_*.tar.gz src/*.o src/*.so demo-output valgrind-lib valgrind.log
