"""Rebuild of the keyword postings from the records: bulk ``KeywordIndex.build`` vs. one ``add`` a memory.

When a store's keyword snapshot is stale (a crash after writes, or a new tokenizer version), the
engine rebuilds the BM25 postings of every namespace from LMDB on open. This times that rebuild
at ``--n`` memories (LoCoMo's turns grown with varied copies at run time, as
bench_recall_scale.py does; nothing from ../shared is stored) both ways in the same run: the
bulk build (tokenize once, install the vocabulary, segment and forward index with one array
operation each) and the baseline, ``add()`` per memory then ``compact()``, which is what the
rebuild did before. Both give the same arrays (tests/test_keyword.py). Median of ``--repeats``
runs; the load average at the start is recorded.

    python benchmarks/bench_keyword_rebuild.py [--n 100000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from engramdb.index.keyword import KeywordIndex

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_recall_scale import corpus   # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def one_by_one(docs):
    idx = KeywordIndex()
    for nid, text in docs:
        idx.add(nid, text)
    idx.compact()
    return idx


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(RESULTS / "keyword_rebuild.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    docs = [(i, item["text"]) for i, item in enumerate(corpus(args.n))]
    bulk_s, base_s = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        a = KeywordIndex.build(docs)
        bulk_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b = one_by_one(docs)
        base_s.append(time.perf_counter() - t0)
    same = all(np.array_equal(x, y) for x, y in zip(a.arrays().values(), b.arrays().values()))
    row = {"n": args.n, "bulk_build_s": round(statistics.median(bulk_s), 3),
           "one_add_each_s": round(statistics.median(base_s), 3),
           "speedup": round(statistics.median(base_s) / statistics.median(bulk_s), 2),
           "runs": {"bulk": [round(x, 3) for x in bulk_s], "one_add_each": [round(x, 3) for x in base_s]},
           "same_arrays": same}
    out = {"benchmark": __doc__.splitlines()[0], "load_at_start": [round(x, 2) for x in load],
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()},
           "command": "python benchmarks/bench_keyword_rebuild.py " + " ".join(sys.argv[1:]), "results": row}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"{args.n} memories: bulk build {row['bulk_build_s']} s, one add each {row['one_add_each_s']} s "
          f"({row['speedup']}x); same arrays: {same}; load at start {out['load_at_start']}")


if __name__ == "__main__":
    main()
