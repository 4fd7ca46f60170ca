# The two commands of the README; each installs what it needs into .venv first.
#   make demo   build the course, then grade the bundled sample class and print the grade table
#   make test   the test suite: unit tests, the build in check mode, nbval over solutions/, end-to-end grading
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test build clean tools blas-check

# The sandbox for student kernels needs bubblewrap (and util-linux's prlimit and setpriv).
tools:
	@command -v bwrap >/dev/null && command -v prlimit >/dev/null && command -v setpriv >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq bubblewrap util-linux >/dev/null; } || \
	  { echo "make: install bubblewrap and util-linux (apt-get install bubblewrap util-linux)"; exit 1; }

$(VENV)/installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

demo: tools $(VENV)/installed
	$(BIN)/python -m grader build
	rm -rf .course/sample_submissions
	$(BIN)/python -m tests.sample_class .course/sample_submissions
	$(BIN)/python -m grader grade .course/sample_submissions --course .course --csv .course/grade_table.csv
	$(BIN)/python -m grader export .course --format canvas
	$(BIN)/python -m grader diagnose-report .course

test: tools $(VENV)/installed
	$(BIN)/python -m pytest

# What the notebooks commit must not depend on the CPU's BLAS kernel or thread count: the build check,
# nbval and tests/test_rounding.py again, under OpenBLAS's AVX2 kernel (Haswell) and its generic SSE one
# (Prescott; OpenBLAS reports it as "Katmai"), on one thread. Both run on any x86-64 CPU; each build check
# prints the kernel it used. The build checks (one core each) run side by side, then nbval one at a time.
BLAS_KERNELS ?= Haswell Prescott
# make's shell may be dash, whose $(jobs -p) lists no jobs: each check's pid is kept, and waited for.
blas-check: $(VENV)/installed
	@pids=""; for kernel in $(BLAS_KERNELS); do \
	  OPENBLAS_CORETYPE=$$kernel OPENBLAS_NUM_THREADS=1 $(BIN)/python -m grader build --check \
	    > .blas-check-$$kernel.log 2>&1 & pids="$$pids $$!"; \
	done; failed=0; for pid in $$pids; do wait $$pid || failed=1; done; \
	for kernel in $(BLAS_KERNELS); do echo "blas-check: OPENBLAS_CORETYPE=$$kernel"; \
	  grep -v "^build: " .blas-check-$$kernel.log; rm -f .blas-check-$$kernel.log; done; \
	[ $$failed = 0 ] || { echo "blas-check: the build check failed under another BLAS kernel (above)"; exit 1; }
	@for kernel in $(BLAS_KERNELS); do \
	  echo "blas-check: nbval and test_rounding under OPENBLAS_CORETYPE=$$kernel"; \
	  OPENBLAS_CORETYPE=$$kernel OPENBLAS_NUM_THREADS=1 \
	    $(BIN)/python -m pytest -q -p no:cacheprovider solutions notebooks tests/test_rounding.py || exit 1; \
	done

build: $(VENV)/installed
	$(BIN)/python -m grader build

clean:
	rm -rf $(VENV) .course
