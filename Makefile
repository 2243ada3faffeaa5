# Developer entry points.  Every target installs what it needs first, so a
# fresh machine of this kind only needs `make demo` or `make test`.
R       ?= R
RSCRIPT ?= Rscript
PKG     := rlsc
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz

# R packages the check, the vignette and the benchmarks need, and Debian's
# builds of them (CRAN is the fallback for anything Debian lacks).
R_DEPS   := testthat knitr rmarkdown glmnet MASS roxygen2 callr
DEB_DEPS := r-cran-testthat r-cran-callr r-cran-knitr r-cran-rmarkdown r-cran-glmnet r-cran-roxygen2 pandoc qpdf
CRAN     := https://cloud.r-project.org

# The CRAN-incoming and clock checks need the internet; this machine has none.
CHECK_ENV := _R_CHECK_CRAN_INCOMING_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false \
             _R_CHECK_SYSTEM_CLOCK_=false

.PHONY: deps install demo test check valgrind bench bench-kernel docs clean

deps:
	@if $(RSCRIPT) -e 'q(status = !all(sapply(strsplit("$(R_DEPS)", " ")[[1]], requireNamespace, quietly = TRUE)))' \
	    && command -v pandoc >/dev/null && command -v qpdf >/dev/null; then \
	  echo "deps: all present"; \
	else \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_DEPS); \
	  fi; \
	  $(RSCRIPT) -e 'need <- strsplit("$(R_DEPS)", " ")[[1]]; need <- need[!sapply(need, requireNamespace, quietly = TRUE)]; if (length(need)) install.packages(need, repos = "$(CRAN)")'; \
	fi

docs: deps
	$(RSCRIPT) -e 'roxygen2::roxygenise()'

install: deps
	$(R) CMD INSTALL --no-multiarch .

demo: install
	$(RSCRIPT) scripts/demo.R

$(TARBALL): deps
	$(R) CMD build .

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

clean:
	rm -rf $(PKG).Rcheck $(PKG)_*.tar.gz src/*.o src/*.so demo-output valgrind-lib valgrind.log
