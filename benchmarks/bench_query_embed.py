"""Query embedding with the hashing embedder: the native kernel vs scikit-learn's path.

The baseline is the pipeline HashingEmbedder ran before the native kernel: two scikit-learn
``HashingVectorizer``s (words 1-2-grams, char_wb 3-5-grams), sublinear tf and L2 rows with
``sklearn.preprocessing.normalize``, and the scipy sparse projection; built here from the
embedder's public projection, so both paths give the same vectors (checked on every query).
Each query is ``embed([question])`` alone, warm, over LoCoMo's questions; the median over the
questions is taken in each of ``--repeats`` passes (each pass runs both paths, one after the other) and
the median of the passes is reported, with the machine load at the start and end. The cold
cost is measured too: a fresh interpreter importing engramdb and embedding one query, with and
without scikit-learn's import.

    python benchmarks/bench_query_embed.py [--repeats 5]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from engramdb.embed import HashingEmbedder
from engramdb.kernels import registry
from engramdb.locomo import default_locomo_path, load_locomo

RESULTS = Path(__file__).resolve().parent / "results"
TARGET_US = 50.0


class SklearnPath:
    """The scikit-learn pipeline of HashingEmbedder before the native kernel (the baseline)."""

    def __init__(self, e: HashingEmbedder) -> None:
        from scipy import sparse
        from sklearn.feature_extraction.text import HashingVectorizer
        from sklearn.preprocessing import normalize

        self.e, self.normalize = e, normalize
        common = {"n_features": 1 << e.hash_bits, "lowercase": True, "strip_accents": "unicode",
                  "alternate_sign": False, "norm": None, "dtype": np.float32}
        self.words = HashingVectorizer(analyzer="word", ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b", **common)
        self.chars = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), **common)
        cols, vals = e.projection
        rows, nnz = cols.shape
        self.proj = sparse.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, rows * nnz + 1, nnz)),
                                      shape=(rows, e.dim), dtype=np.float32)
        self.a = np.float32(np.sqrt(e.word_weight))
        self.b = np.float32(np.sqrt(1.0 - e.word_weight))

    def _unit(self, x):
        x = x.tocsr()
        np.log(x.data, out=x.data)
        x.data += 1.0
        return self.normalize(x, norm="l2", copy=False)

    def embed(self, items: list[str]) -> np.ndarray:
        mixed = self.a * self._unit(self.words.transform(items)) + self.b * self._unit(self.chars.transform(items))
        out = np.asarray((mixed @ self.proj).todense(), dtype=np.float32)
        return out / np.linalg.norm(out, axis=1)[:, None]


def _cold_ms(code: str, runs: int = 3) -> float:
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
        ts.append(time.perf_counter() - t0)
    return round(1e3 * float(np.median(ts)), 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="passes over the questions; the median is reported")
    args = ap.parse_args()
    load_start = os.getloadavg()
    path = default_locomo_path()
    if not path.exists():
        print(f"LoCoMo data not found at {path}; set ENGRAMDB_LOCOMO", file=sys.stderr)
        return 2
    questions = [q.question for conv in load_locomo(path) for q in conv.qa]
    e = HashingEmbedder()
    sk = SklearnPath(e)
    mismatched = sum(not np.array_equal(e.embed([q]), sk.embed([q])) for q in questions)
    passes = {"native": [], "sklearn": []}
    for _ in range(args.repeats):
        ts = {"native": [], "sklearn": []}
        for name, fn in (("native", e.embed), ("sklearn", sk.embed)):
            for q in questions:
                t0 = time.perf_counter()
                fn([q])
                ts[name].append(time.perf_counter() - t0)
        for name, values in ts.items():
            passes[name].append(1e6 * float(np.median(values)))
    med = {name: round(float(np.median(v)), 1) for name, v in passes.items()}
    cold = {
        "native_import_and_first_embed_ms": _cold_ms(
            "from engramdb.embed import HashingEmbedder; HashingEmbedder().embed(['where do I live?'])"),
        "sklearn_import_ms": _cold_ms("import sklearn.feature_extraction.text, sklearn.preprocessing"),
    }
    doc = {"benchmark": "query embedding, hashing embedder: native kernel vs scikit-learn's path",
           "command": f"python benchmarks/bench_query_embed.py --repeats {args.repeats}",
           "date": time.strftime("%Y-%m-%d %H:%M"),
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
                       "numpy": np.__version__},
           "kernel_backend": registry.active_backend(), "embedder": e.name, "questions": len(questions),
           "load_avg_1_5_15_start": [round(x, 2) for x in load_start],
           "median_us": med, "median_us_per_pass": {k: [round(x, 1) for x in v] for k, v in passes.items()},
           "speedup_vs_sklearn": round(med["sklearn"] / med["native"], 1), "target_us": TARGET_US,
           "vectors_not_bit_identical": mismatched, "cold": cold,
           "load_avg_1_5_15_end": [round(x, 2) for x in os.getloadavg()]}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "query_embed.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))
    print(f"query embedding: native {med['native']} us vs scikit-learn {med['sklearn']} us "
          f"({doc['speedup_vs_sklearn']}x; target <= {TARGET_US} us; load {load_start[0]:.2f} at start); "
          f"{mismatched} of {len(questions)} vectors differ from scikit-learn's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
