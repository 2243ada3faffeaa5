# Developer entry points.  Every target installs what it needs first, so a
# fresh machine of this kind only needs `make demo` or `make test`: the demo
# only what the package and its vignettes need (demo-deps: Debian's pandoc,
# knitr and rmarkdown; 1.5 minutes in all, 3 on a busy machine), the test
# everything the full check needs (deps: the whole Suggests tree, tidymodels
# compiled from CRAN, about 30 minutes the first time, then 10 for the
# check).  Times on 2 cores shared with other jobs (README.md's first lines).
R       ?= R
RSCRIPT ?= Rscript
PKG     := rlsc
VERSION := $(shell sed -n 's/^Version: //p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz

# System tools the check needs, and the servers of `make test-engines`
# (Slurm with munge and accounting in MariaDB, PostgreSQL, an SSH server;
# none is started by installing it); the R packages come from DESCRIPTION
# (see scripts/install-deps.R: Debian's r-cran-* builds, CRAN as the fallback).
SYS_DEPS := pandoc qpdf slurm-wlm slurmdbd munge mariadb-server postgresql openssh-server
ENGINE_CMDS := /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmdbd /usr/sbin/munged \
               /usr/sbin/mariadbd /usr/sbin/sshd

# The CRAN-incoming and clock checks need the internet; this machine has none.
# NOT_CRAN=true runs the tests CRAN would skip (parallel backends, the memory
# cap): CI runs them all.  RLSC_SOURCE: the tree the tarball is built from,
# where test-design.R reads DESIGN.md (left out of the tarball).
CHECK_ENV := _R_CHECK_CRAN_INCOMING_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false \
             _R_CHECK_SYSTEM_CLOCK_=false NOT_CRAN=true RLSC_OPENBLAS=$(CURDIR)/.deps/openblas \
             RLSC_SOURCE=$(CURDIR)

.PHONY: deps demo-deps install demo readme test test-openblas unit check check-depends-only check-reference test-engines bench-engines bench-floor bench-targets bench-memory valgrind sanitize \
        sanitize-build fuzz fuzz-native combinations metamorphic bench bench-kernel bench-scale bench-kfold bench-peers \
        bench-eigen bench-kernel-class bench-threads bench-nystrom bench-banded bench-per-response bench-deps docs clean site-deps site \
        site-check coverage lint

deps:
	@if ! command -v pandoc >/dev/null || ! command -v qpdf >/dev/null || \
	    ! ( for c in $(ENGINE_CMDS); do command -v $$c >/dev/null || exit 1; done ) || \
	    ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	    ! $(RSCRIPT) scripts/install-deps.R --check; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SYS_DEPS); \
	  fi; \
	  $(RSCRIPT) scripts/install-deps.R; \
	fi
	@sh scripts/unpack-openblas.sh
	@# parallelly (future's workers) runs `scontrol` whenever it is on the PATH,
	@# and Debian's slurm-wlm comes without a configuration, so every
	@# plan(multisession) printed scontrol's errors and warned: a minimal
	@# configuration of a cluster nobody starts (make test-engines starts its
	@# own, with SLURM_CONF)
	@if command -v scontrol >/dev/null && [ ! -e /etc/slurm/slurm.conf ] && [ "$$(id -u)" = 0 ]; then \
	  mkdir -p /etc/slurm && printf 'ClusterName=localhost\nSlurmctldHost=localhost\n' > /etc/slurm/slurm.conf; \
	fi

# What `make demo` needs, and no more: the package imports base packages
# only, and its vignettes need knitr, rmarkdown and pandoc (Debian's
# r-cran-knitr, r-cran-rmarkdown and pandoc; CRAN's knitr and rmarkdown where
# apt cannot be used).  Vignette chunks that need a suggested package are
# skipped without it.
demo-deps:
	$(call extra-deps,knitr rmarkdown,pandoc,pandoc)

docs: deps
	$(RSCRIPT) -e 'roxygen2::roxygenise()'

# --preclean: `make unit` (pkgload) leaves objects compiled with -O0 in src/,
# which a plain install would reuse (benchmarks then time unoptimized code).
install: deps
	$(R) CMD INSTALL --preclean --no-multiarch .

# Built (vignettes included) and installed from the tarball, so that
# vignette("rlsc"), which the README points to, is there; then the demo.
# Installs only demo-deps: a tarball built by an earlier `make demo` is
# never reused by `make test`, which builds its own after `make deps`.
demo: demo-deps
	$(R) CMD build .
	$(R) CMD INSTALL --no-multiarch $(TARBALL)
	$(RSCRIPT) scripts/demo.R

# The README's commands as a newcomer runs them, in a fresh clone of HEAD with
# a library of its own: make demo, the README's R code as written (warnings
# are errors) and the vignettes it names (scripts/readme-check.sh).  About
# two minutes.
readme:
	sh scripts/readme-check.sh

$(TARBALL): deps
	$(R) CMD build .

# The testthat suite alone against the working tree (compiled by pkgload), in
# seconds: the inner loop, with 50 of the fuzz test's 200 problems and 40
# random cells of the combination matrix instead of its pairs (the two take
# half of the suite's time).  `make test` stays the full check that CI runs.
UNIT_FUZZ_CASES   ?= 50
UNIT_COMBINATIONS ?= 40
unit: deps
	NOT_CRAN=true RLSC_OPENBLAS=$(CURDIR)/.deps/openblas RLSC_FUZZ_CASES=$(UNIT_FUZZ_CASES) \
	  RLSC_COMBINATIONS=$(UNIT_COMBINATIONS) $(RSCRIPT) -e 'testthat::test_local(".", reporter = testthat::ProgressReporter$$new(show_praise = FALSE), stop_on_failure = TRUE)'

# R CMD check --as-cran must end with "Status: OK": no ERROR, WARNING or NOTE.
check test: $(TARBALL)
	$(CHECK_ENV) $(R) CMD check --as-cran --no-manual $(TARBALL)
	@grep -q '^Status: OK' $(PKG).Rcheck/00check.log || { echo "R CMD check status is not OK"; exit 1; }
	@sed -n 's/.*\[ FAIL \([0-9]*\) | WARN [0-9]* | SKIP \([0-9]*\) | PASS \([0-9]*\) \].*/\3 passed, \1 failed, \2 skipped/p' \
	  $(PKG).Rcheck/tests/testthat.Rout | tail -n 1

# R CMD check as CRAN's check without suggested packages runs it
# (_R_CHECK_DEPENDS_ONLY_), and with R's recommended packages hidden too
# (_R_CHECK_NO_RECOMMENDED_: Matrix and MASS are suggested, and an R may come
# without them): the examples, tests and vignettes see the packages of Depends
# and Imports (base packages), testthat, knitr and rmarkdown (VignetteBuilder)
# and theirs, nothing else.  Every use of a suggested package must check for
# it first (skip_if_not_installed(), @examplesIf, a chunk's
# eval = requireNamespace()).  With the reduced fuzz test and combination
# matrix of `make unit`, into check/depends-only/ (`make test`'s rlsc.Rcheck
# stays).  About 4 minutes, the tarball's build included.
DEPENDS_ONLY_DIR := check/depends-only
check-depends-only: $(TARBALL)
	rm -rf $(DEPENDS_ONLY_DIR) && mkdir -p $(DEPENDS_ONLY_DIR)
	$(CHECK_ENV) _R_CHECK_DEPENDS_ONLY_=true _R_CHECK_NO_RECOMMENDED_=true RLSC_FUZZ_CASES=$(UNIT_FUZZ_CASES) \
	  RLSC_COMBINATIONS=$(UNIT_COMBINATIONS) $(R) CMD check --no-manual -o $(DEPENDS_ONLY_DIR) $(TARBALL)
	@grep -q '^Status: OK' $(DEPENDS_ONLY_DIR)/$(PKG).Rcheck/00check.log || \
	  { echo "R CMD check without suggested packages: status is not OK"; exit 1; }

# What stops pkgdown's reference step (`make site`), checked in seconds
# without pkgdown: every topic in _pkgdown.yml's reference index, every
# vignette in its articles, every usage parseable (scripts/check-reference.R).
check-reference:
	$(call extra-deps,yaml)
	$(RSCRIPT) scripts/check-reference.R

# The chunked fit on real engines (tests/testthat/test-engines-*.R): a
# one-node Slurm cluster, a throwaway PostgreSQL server and an SSH server on
# 127.0.0.2-3, each started in a /tmp/rlsc-engines-* folder and stopped by
# its PID when the tests end, also on failure (scripts/test-engines).  The
# package is installed into a library in that folder (never the site
# library), removed with it; Slurm jobs and the workers find it through
# R_LIBS.  About 5 minutes.
test-engines: deps
	R="$(R)" bash scripts/test-engines

# A chunked fit of 10^7 rows (100 parquet files, 0.9 GB, kept in
# bench/cache/engines) in Slurm jobs against the in-memory fit: times, the
# peak memory of each job; a few minutes (more the first time).
bench-engines: deps
	R="$(R)" bash scripts/test-engines scripts/engines-scale.R

# The test suite under valgrind: no invalid read or write, no definitely lost
# memory.  Installs into a private library (never the site library) and
# installs valgrind from Debian if it is missing.  valgrind runs a process on
# one core, so VALGRIND_JOBS processes (one per core, at most 4) share the
# test files (scripts/valgrind-tests.R: each takes the next file left), each
# with its log, valgrind-<job>.log; testthat's parallel workers would run
# outside valgrind.  Takes about 30 minutes on two cores (the fuzz test
# runs 60 of its problems there, not 200, and the combination matrix 40
# random cells, not its pairs).
# Only definite leaks count as errors: cli's timer thread (loaded by testthat)
# leaves 336 bytes "possibly lost" that are not this package's, and
# scripts/valgrind.supp suppresses fontconfig's font caches (the png() test).
VALGRIND     := valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
                --suppressions=$(CURDIR)/scripts/valgrind.supp
VALGRIND_LIB := $(CURDIR)/valgrind-lib
VALGRIND_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)
valgrind: deps
	@command -v valgrind >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind; }
	mkdir -p $(VALGRIND_LIB)
	$(R) CMD INSTALL --preclean --no-multiarch -l $(VALGRIND_LIB) .
	rm -rf valgrind-claims valgrind-*.log && mkdir valgrind-claims
	cd tests && status=0 && pids= && \
	  for j in $$(seq $(VALGRIND_JOBS)); do \
	    R_LIBS=$(VALGRIND_LIB) NOT_CRAN=true TESTTHAT_PARALLEL=FALSE RLSC_FUZZ_CASES=60 RLSC_COMBINATIONS=40 \
	    $(R) -d "$(VALGRIND)" --vanilla -f ../scripts/valgrind-tests.R --args ../valgrind-claims \
	      > ../valgrind-$$j.log 2>&1 & pids="$$pids $$!"; \
	  done; \
	  for p in $$pids; do wait $$p || status=1; done; \
	  [ $$status -eq 0 ] || { for f in ../valgrind-*.log; do echo "== $$f"; tail -n 40 $$f; done; \
	    echo "valgrind: FAILED, see valgrind-*.log"; exit 1; }
	rm -rf valgrind-claims
	@grep -a -E 'ERROR SUMMARY|definitely lost|Invalid (read|write)|^failed:' valgrind-*.log
	@grep -a -h -E '^test-.*: [0-9]+ tests' valgrind-*.log | sort -t: -k1,1
	@echo "valgrind: OK (no errors, see valgrind-*.log)"

# The test suite under gcc's AddressSanitizer and UndefinedBehaviorSanitizer:
# the package compiled with -fsanitize=address,undefined through a private
# Makevars (R_MAKEVARS_USER, never ~/.R) into sanitize-lib/, and R run with
# LD_PRELOAD of libasan only (preloading libubsan too hides UBSan's reports;
# the package's own link brings it).  The tests run in this one process
# (TESTTHAT_PARALLEL=FALSE: testthat's parallel workers would write their
# reports where this log does not see them; under valgrind they would not
# be checked at all).  R itself is not instrumented, so leak
# detection is off (valgrind checks leaks).  Any ASan or UBSan report fails.
# About three minutes; the compiler's sanitizer runtimes come with gcc.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer
SAN_LIB   := $(CURDIR)/sanitize-lib
SAN_RUN   := LD_PRELOAD="$$(gcc -print-file-name=libasan.so)" \
             ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
             R_LIBS=$(SAN_LIB) NOT_CRAN=true TESTTHAT_PARALLEL=FALSE
# (the build is remade only when the package's sources are newer than it)
SAN_BUILT := $(SAN_LIB)/$(PKG)/DESCRIPTION
sanitize-build: deps $(SAN_BUILT)
$(SAN_BUILT): $(wildcard R/*.R src/*.c src/*.h src/Makevars) DESCRIPTION NAMESPACE
	@test -e "$$(gcc -print-file-name=libasan.so)" || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libasan8 libubsan1; }
	mkdir -p $(SAN_LIB)
	printf 'CFLAGS = -g -O1 $(SAN_FLAGS)\nLDFLAGS = $(SAN_FLAGS)\n' > $(SAN_LIB)/Makevars
	R_MAKEVARS_USER=$(SAN_LIB)/Makevars $(R) CMD INSTALL --preclean --clean --no-test-load --no-multiarch \
	  -l $(SAN_LIB) .
	touch $@

sanitize: sanitize-build
	cd tests && $(SAN_RUN) $(R) --vanilla -f testthat.R > ../sanitize.log 2>&1 || \
	  { tail -n 40 ../sanitize.log; echo "sanitize: FAILED, see sanitize.log"; exit 1; }
	@if grep -a -E 'runtime error|AddressSanitizer|LeakSanitizer' sanitize.log; then \
	  echo "sanitize: FAILED, see sanitize.log"; exit 1; fi
	@grep -a -E '\[ FAIL' sanitize.log | tail -n 1
	@echo "sanitize: OK (no ASan or UBSan report, see sanitize.log)"

# The test suite once more in an R that preloads OpenBLAS (the threaded one
# `make deps` unpacks into .deps/openblas) in place of R's BLAS and LAPACK,
# so that a result that depends on the BLAS, or a defect under a BLAS with
# threads of its own, shows before users see it.  OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE are unset for this command alone (OpenBLAS picks its
# kernels for the CPU, as on a user's machine).  The package is installed
# into a temporary library, never the site library, and the log kept in a
# temporary file (nothing is left in the tree for R CMD build to find).
# About four minutes on 2 cores.
OPENBLAS := $(CURDIR)/.deps/openblas
OPENBLAS_ENV := LD_PRELOAD=$(OPENBLAS)/libblas.so.3:$(OPENBLAS)/liblapack.so.3 NOT_CRAN=true \
                RLSC_OPENBLAS=$(OPENBLAS)
test-openblas: deps
	@test -f $(OPENBLAS)/libblas.so.3 || { echo "test-openblas: no OpenBLAS in .deps/openblas (make deps unpacks it)"; exit 1; }
	@lib=$$(mktemp -d) && log=$$(mktemp --suffix=-openblas.log) && \
	$(R) CMD INSTALL --preclean --no-multiarch -l $$lib . > $$log 2>&1 && \
	cd tests && env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(OPENBLAS_ENV) R_LIBS=$$lib$${R_LIBS:+:$$R_LIBS} \
	  $(R) --vanilla -s -e 'b <- extSoftVersion()[["BLAS"]]; cat("BLAS:", b, "\n"); if (!grepl("openblas", b)) quit(status = 1)' && \
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(OPENBLAS_ENV) R_LIBS=$$lib$${R_LIBS:+:$$R_LIBS} \
	  $(R) --vanilla -f testthat.R >> $$log 2>&1; status=$$?; rm -rf $$lib; \
	grep -a -E '\[ FAIL [0-9]+ \|' $$log | tail -n 1; \
	if [ $$status -ne 0 ]; then grep -a -A 12 -E '^── (Failure|Error)' $$log; \
	  echo "test-openblas: FAILED, log in $$log"; exit 1; fi; \
	echo "test-openblas: OK (log in $$log)"

# The C entry points fuzzed through .Call (tests/testthat/helper-native.R:
# random dimensions, NA, NaN, Inf, zero-length and wrong-type arguments) in
# the build of `make sanitize`: every call returns or ends in an R error;
# a crash, an ASan or a UBSan report fails.  NATIVE_CALLS calls from seed
# NATIVE_FIRST; a failure names the seed (in fuzz-native.log).  About a
# minute for the default 100000 (20000 calls in 14 s), and the build.
NATIVE_FIRST ?= 1
NATIVE_CALLS ?= 100000
fuzz-native: sanitize-build
	cd tests && $(SAN_RUN) RLSC_NATIVE_FUZZ_FIRST=$(NATIVE_FIRST) RLSC_NATIVE_FUZZ_CALLS=$(NATIVE_CALLS) \
	  $(R) --vanilla -e 'testthat::test_dir("testthat", filter = "native", package = "rlsc", load_package = "installed", stop_on_failure = TRUE)' \
	  > ../fuzz-native.log 2>&1 || \
	  { tail -n 40 ../fuzz-native.log; echo "fuzz-native: FAILED, see fuzz-native.log"; exit 1; }
	@if grep -a -E 'runtime error|AddressSanitizer|LeakSanitizer' fuzz-native.log; then \
	  echo "fuzz-native: FAILED, see fuzz-native.log"; exit 1; fi
	@echo "fuzz-native: OK ($(NATIVE_CALLS) calls from seed $(NATIVE_FIRST), no ASan or UBSan report)"

# The property test with ten thousand problems (the suite runs 200 of them;
# helper-fuzz.R: n from 2 to 300, d from 0 to 400, both forms, every kernel,
# weights with zeros, constant and duplicated columns, tied rows, classes of
# one or two rows, offsets to 1e8, each against brute force): about 40
# minutes for the default 10000.  FUZZ_FIRST and FUZZ_CASES
# choose the seeds; a failure names them.
FUZZ_FIRST ?= 1
FUZZ_CASES ?= 10000
fuzz: deps
	RLSC_FUZZ_FIRST=$(FUZZ_FIRST) RLSC_FUZZ_CASES=$(FUZZ_CASES) NOT_CRAN=true $(RSCRIPT) -e \
	  'testthat::test_local(".", filter = "fuzz", reporter = testthat::ProgressReporter$$new(show_praise = FALSE), stop_on_failure = TRUE)'

# Every metamorphic relation on every source, shape, response and weighting
# it applies to (tests/testthat/helper-metamorphic.R, about 1300 cells, a
# minute or two); the suite runs every relation and every source once and 40
# random cells more.  METAMORPHIC = all or a number of random cells, from
# METAMORPHIC_SEED.
METAMORPHIC      ?= all
METAMORPHIC_SEED ?= 1
metamorphic: deps
	RLSC_METAMORPHIC=$(METAMORPHIC) RLSC_METAMORPHIC_SEED=$(METAMORPHIC_SEED) NOT_CRAN=true $(RSCRIPT) -e \
	  'testthat::test_local(".", filter = "metamorphic", reporter = testthat::ProgressReporter$$new(show_praise = FALSE), stop_on_failure = TRUE)'

# The combination matrix (tests/testthat/test-combinations.R) beyond the
# suite's pairs: COMBINATIONS = triples (every triple of option levels on
# every source, 789 cells, about two minutes), all (the whole product:
# hours) or a number of random cells, from COMBINATIONS_SEED.
COMBINATIONS      ?= triples
COMBINATIONS_SEED ?= 1
combinations: deps
	RLSC_COMBINATIONS=$(COMBINATIONS) RLSC_COMBINATIONS_SEED=$(COMBINATIONS_SEED) NOT_CRAN=true $(RSCRIPT) -e \
	  'testthat::test_local(".", filter = "combinations", reporter = testthat::ProgressReporter$$new(show_praise = FALSE), stop_on_failure = TRUE)'

# The pkgdown site, its check in a browser, coverage and lint: habits for the
# maintainers, not part of `make test`.  Each installs what it needs only when
# it runs: $(call extra-deps,R packages,Debian packages,commands) installs the
# R packages as install-deps.R does (Debian's r-cran-*, CRAN as the fallback)
# and the Debian packages, if one of the R packages or of the commands is missing.
define extra-deps
@if ! $(RSCRIPT) scripts/install-deps.R --check $(1) >/dev/null || \
    ! ( for c in $(3) true; do command -v $$c >/dev/null || exit 1; done ); then \
  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
    apt-get update -qq $(if $(2),&& DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends $(2)); \
  fi; \
  $(RSCRIPT) scripts/install-deps.R $(1); \
fi
endef

# pkgdown (Debian's brings libjs-mathjax, which the site carries for its
# math), xml2 to read the built pages, Chromium to look at them.
site-deps:
	$(call extra-deps,pkgdown xml2,chromium,chromium)

# The site in docs/ (git- and build-ignored): README as the home page, the
# reference by topic (_pkgdown.yml), the vignettes as articles, NEWS.  The
# package is installed into site-lib/ (never the site library) and the
# examples and vignettes run against it.  Nothing is fetched from the
# internet (scripts/build-site.R says how).  About a minute.
SITE_LIB := $(CURDIR)/site-lib
site: deps site-deps
	rm -rf $(SITE_LIB) && mkdir -p $(SITE_LIB)
	$(R) CMD INSTALL --preclean --no-multiarch -l $(SITE_LIB) .
	R_LIBS=$(SITE_LIB) $(RSCRIPT) scripts/build-site.R

# The built site in headless Chromium: screenshots in site-screenshots/, and a
# failure for a missing page, a broken internal link or anchor, or an example
# that errored (scripts/site-check.R).  Seconds; run `make site` first.
site-check: site-deps
	$(RSCRIPT) scripts/site-check.R docs site-screenshots

# Line coverage of R/ and src/ by the test suite, per file, with covr (which
# installs the package, compiled for gcov, into a temporary library).
# Fails below COVERAGE_MIN percent of the lines of R/ or of src/.  A few minutes.
COVERAGE_MIN ?= 90
coverage: deps
	$(call extra-deps,covr)
	NOT_CRAN=true COVERAGE_MIN=$(COVERAGE_MIN) $(RSCRIPT) scripts/coverage.R

# lintr with the package's style (.lintr) on R/, tests/ and scripts/.
lint:
	$(call extra-deps,lintr)
	$(RSCRIPT) scripts/lint.R

# scikit-learn for the benchmarks that compare with it: Debian's
# python3-sklearn, run by /usr/bin/python3 (not a python3 earlier on PATH)
# (python3-packaging: himalaya imports it, bench/targets.R)
bench-deps:
	@/usr/bin/python3 -c 'import sklearn, packaging' 2>/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-sklearn \
	  python3-packaging; }

bench: install bench-deps
	$(BENCH_ENV) $(RSCRIPT) bench/path.R

# about 12 minutes: the shapes of issue 13 against scikit-learn, cv.glmnet,
# MASS::lm.ridge and the flop floor, and the RBF fit against eigen()
bench-peers: install bench-deps
	$(BENCH_ENV) $(RSCRIPT) bench/peers.R

# a few minutes: the eigendecomposition against eigen() and LAPACK's dsyevd
# and dsyevr (through SciPy) at n = 500 ... 4000
bench-eigen: install bench-deps
	$(BENCH_ENV) $(RSCRIPT) bench/eigen.R

# a few minutes: fits with 1 and 2 threads (run under each BLAS)
bench-threads: install
	$(BENCH_ENV) $(RSCRIPT) bench/threads.R

# per_response = TRUE against FALSE with 400 and 5000 targets (about 8 minutes)
bench-per-response: install
	$(BENCH_ENV) $(RSCRIPT) bench/per_response.R

# about 25 minutes: 5 RBF widths x 100 lambdas at n = 2000, against eigen(), kernlab, KRLS
bench-kernel: install
	$(BENCH_ENV) $(RSCRIPT) bench/kernel.R

# Nystrom and random features (n = 1e5, m = 1000, 5 sigma x 100 lambda)
# against their floor, the pieces timed alone in the same run (two runs of
# one kind took 35 minutes under OpenBLAS on this machine at a load average
# of 11, three times its cores' worth); RLSC_BENCH_NS=1e5,1e6 for both
# sizes, RLSC_BENCH_PLAN=multisession for the chunked fit on that plan
bench-nystrom: install
	$(BENCH_ENV) $(RSCRIPT) bench/nystrom_floor.R

# the default kernel classification fit, kernel_rbf() without sigma, on six
# classes (mlbench's Satellite, or a synthetic set of its shape) against one
# eigen() of its kernel, and the test accuracy of its screened sigma against
# the full exact search's, at n = 2000 (a few minutes under the reference
# BLAS); RLSC_BENCH_N=2000,4435 adds n = 4435 (about 25 minutes more)
bench-kernel-class: install
	$(BENCH_ENV) $(RSCRIPT) bench/kernel_class.R

# exact 10-fold CV against cv.glmnet and scikit-learn (about 15 minutes)
bench-kfold: install bench-deps
	$(BENCH_ENV) $(RSCRIPT) bench/kfold.R

# about 25 minutes and 8 GB of disk (bench/cache): chunked fits of n = 2e7, d = 50
bench-scale: install
	$(BENCH_ENV) $(RSCRIPT) bench/scale.R

# banded ridge against himalaya's BandedRidgeCV (speed, and rlsc's floor, then agreement on its
# example shapes); HIMALAYA_PATH must name a source tree of gallantlab/himalaya,
# which no registry here serves and the repository does not ship
bench-banded: install bench-deps
	$(BENCH_ENV) HIMALAYA_PATH=$(HIMALAYA_PATH) $(RSCRIPT) bench/banded.R
	$(BENCH_ENV) HIMALAYA_PATH=$(HIMALAYA_PATH) $(RSCRIPT) bench/himalaya_agree.R

# BLAS=openblas runs any benchmark in an R that preloads the OpenBLAS of
# .deps/openblas (and scikit-learn's or himalaya's numpy with it), with
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for that command alone
BENCH_ENV := $(if $(filter openblas,$(BLAS)),env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
             LD_PRELOAD=$(OPENBLAS)/libblas.so.3:$(OPENBLAS)/liblapack.so.3)

# the exact path of each shape of issue 24 against its floor, the BLAS calls
# it cannot do without, timed alone in the same run (about 6 minutes under
# OpenBLAS, 25 under the reference BLAS)
bench-floor: install
	$(BENCH_ENV) $(RSCRIPT) bench/floor.R

# 5000 targets, one lambda each, by exact K-fold and LOO against himalaya's
# RidgeCV on the same folds and alphas (HIMALAYA_PATH as for bench-banded;
# about 3 minutes under OpenBLAS)
bench-targets: install bench-deps
	$(BENCH_ENV) HIMALAYA_PATH=$(HIMALAYA_PATH) $(RSCRIPT) bench/targets.R

# peak resident memory of exact LOO and 5-fold fits of 50000 targets (2000 x
# 500, one lambda each), each in a fresh R process; RLSC_BENCH_SCALE=0.1 for
# 5000 targets (about 4 minutes under OpenBLAS)
bench-memory: install
	$(BENCH_ENV) $(RSCRIPT) bench/memory.R

clean:
	rm -rf $(PKG).Rcheck $(PKG)_*.tar.gz src/*.o src/*.so demo-output valgrind-lib valgrind-*.log valgrind-claims \
	  sanitize-lib sanitize.log fuzz-native.log site-lib site-screenshots check
