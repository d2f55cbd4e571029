"""The beam of ingest's auto-link search (``LinkConfig.search_ef``): its time against the
auto-links it finds, with the exact search (a full scan: the flat baseline) in the same run.

``add_batch`` inserts a batch into hnswlib, then searches the batch's own vectors for their
k = 2 max(max_links, 5) + 1 = 11 nearest neighbours at ef = ``search_ef`` (22); a neighbour with
cosine in [``cosine_threshold``, ``duplicate_cosine``) becomes an auto-link (the first
``max_links`` of each memory, best first; A-MEM, arXiv:2502.12110). This benchmark replays that
on a bare :class:`engramdb.index.HnswIndex` with the engine's defaults (M 16, efConstruction
100), in ingest's chunks of 10,000:

- ``locomo``: LoCoMo's turns grown to ``--n`` memories with varied copies (renamed speakers,
  a word dropped or swapped: ``bench_recall_scale.corpus``), hashing embedder. The realistic
  case: restatements and near-copies, most memories have auto-links;
- ``clustered``: ``bench_store.py``'s unit vectors around 2,000 centroids (no pair reaches the
  auto-link threshold: the search is pure cost there).

For each chunk and each beam factor (``--factors``), the search time (wall clock, hnswlib's
threads on every core; median of ``--runs`` passes over the chunk) and the auto-links it gives
against those of the exact top 11 of the same chunk (every vector stored so far): found share
(recall) and extra links (a tie or a neighbour the exact top 11 left out). Load average at the
start. Malkov & Yashunin (2018), TPAMI, Sec. 4 (ef, the size of the dynamic candidate list).

    python benchmarks/bench_autolink_beam.py [--n 100000] [--factors 1 2 3 4] [--runs 3]

Writes benchmarks/results/autolink_beam.json and .md. Needs ../shared's LoCoMo (or
``ENGRAMDB_LOCOMO``) for the locomo data.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import CHUNK, DIM, clustered_vectors, machine  # noqa: E402

import engramdb  # noqa: E402
from engramdb.embed import get_embedder  # noqa: E402
from engramdb.index import HnswIndex  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def locomo_vectors(n: int) -> np.ndarray:
    """Hashing-embedder vectors (float32, shape (n, 384)) of ``n`` LoCoMo-grown memories."""
    from bench_recall_scale import corpus

    items = corpus(n)
    return np.asarray(get_embedder("hashing").embed([it["text"] for it in items]), np.float32)


def exact_top(stored: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact top ``k`` by inner product (labels int64 and cosines float32, shape (q, k), best
    first), in blocks of 512 queries."""
    lab = np.empty((len(queries), k), np.int64)
    cos = np.empty((len(queries), k), np.float32)
    for q0 in range(0, len(queries), 512):
        sims = queries[q0:q0 + 512] @ stored.T
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        pc = np.take_along_axis(sims, part, 1)
        order = np.argsort(-pc, axis=1, kind="stable")
        lab[q0:q0 + 512] = np.take_along_axis(part, order, 1)
        cos[q0:q0 + 512] = np.take_along_axis(pc, order, 1)
    return lab, cos


def autolinks(first: int, labels: np.ndarray, cos: np.ndarray, lc: engramdb.LinkConfig) -> set[tuple[int, int]]:
    """The auto-links (query row label, neighbour label) of a search, by ``add_batch``'s rule."""
    self_ = labels == (first + np.arange(len(labels)))[:, None]
    pick = (~self_) & (labels >= 0) & (cos >= lc.cosine_threshold) & (cos < lc.duplicate_cosine)
    pick &= np.cumsum(pick, axis=1) <= lc.max_links
    r, j = np.nonzero(pick)
    return set(zip((first + r).tolist(), labels[r, j].tolist()))


def run(name: str, vecs: np.ndarray, factors: list[int], runs: int) -> dict:
    cfg, lc = engramdb.IndexConfig(), engramdb.LinkConfig()
    k = 2 * max(lc.max_links, 5) + 1
    index = HnswIndex(vecs.shape[1], m=cfg.m, ef_construction=cfg.ef_construction, ef_search=cfg.ef_search)
    secs = {f: 0.0 for f in factors}
    found = {f: 0 for f in factors}
    extra = {f: 0 for f in factors}
    exact_links = 0
    for i0 in range(0, len(vecs), CHUNK):
        i1 = min(len(vecs), i0 + CHUNK)
        index.add(vecs[i0:i1], np.arange(i0, i1))
        truth = autolinks(i0, *exact_top(vecs[:i1], vecs[i0:i1], k), lc)
        exact_links += len(truth)
        for f in factors:
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                lab, cos = index.knn_batch(vecs[i0:i1], k, ef=f * k)
                times.append(time.perf_counter() - t0)
            secs[f] += statistics.median(times)
            got = autolinks(i0, lab, cos.astype(np.float32), lc)
            found[f] += len(got & truth)
            extra[f] += len(got - truth)
        print(f"  {name}: {i1:,} / {len(vecs):,}", file=sys.stderr, flush=True)
    ref = factors[-1]
    rows = []
    for f in factors:
        rows.append({"factor": f, "ef": f * k, "search_s": round(secs[f], 3),
                     "us_per_memory": round(1e6 * secs[f] / len(vecs), 1),
                     "x_time_of_largest": round(secs[f] / secs[ref], 3),
                     "autolinks_exact": exact_links, "autolinks_found": found[f], "autolinks_extra": extra[f],
                     "autolink_recall": round(100.0 * found[f] / exact_links, 3) if exact_links else None})
        r = rows[-1]
        print(f"{name:9s} ef {f} k = {f * k:3d}: {r['search_s']:6.2f} s ({r['us_per_memory']:5.1f} us a memory, "
              f"{r['x_time_of_largest']:.2f}x ef {ref} k); auto-links {found[f]:,} of the exact {exact_links:,} "
              f"({r['autolink_recall'] if exact_links else '-'} %), {extra[f]:,} not in the exact set", flush=True)
    return {"data": name, "memories": len(vecs), "k": k, "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--factors", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--data", nargs="+", choices=("locomo", "clustered"), default=["locomo", "clustered"])
    args = ap.parse_args(argv)
    load = os.getloadavg()
    factors = sorted(set(args.factors))
    out = []
    for name in args.data:
        vecs = locomo_vectors(args.n) if name == "locomo" else clustered_vectors(args.n, DIM, np.random.default_rng(args.n))
        out.append(run(name, vecs, factors, args.runs))
    doc = {"benchmark": "auto-link search beam (LinkConfig.search_ef) vs the exact search's auto-links",
           "command": " ".join(["python benchmarks/bench_autolink_beam.py", *(sys.argv[1:] if argv is None else argv)]),
           "date": time.strftime("%Y-%m-%d"), "machine": machine(),
           "loadavg_start": [round(x, 2) for x in load], "loadavg_end": [round(x, 2) for x in os.getloadavg()],
           "default_ef": engramdb.LinkConfig().search_ef, "results": out}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "autolink_beam.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = ["# Auto-link search beam", "", f"Rerun: `{doc['command']}` (load at start {load[0]:.1f} on "
             f"{os.cpu_count()} cores; median of {args.runs} passes per chunk). Search time of ingest's auto-link "
             "search (k = 11) over every chunk of 10,000, and the auto-links it gives against the exact search's.", "",
             "| data | memories | ef | search s | µs a memory | x time of the largest | auto-links found | recall % | not in exact |",
             "|---|---|---|---|---|---|---|---|---|"]
    for res in out:
        for r in res["rows"]:
            lines.append(f"| {res['data']} | {res['memories']:,} | {r['factor']} k = {r['ef']} | {r['search_s']} | "
                         f"{r['us_per_memory']} | {r['x_time_of_largest']} | {r['autolinks_found']:,} of "
                         f"{r['autolinks_exact']:,} | {r['autolink_recall'] if r['autolink_recall'] is not None else '-'} | "
                         f"{r['autolinks_extra']:,} |")
    (RESULTS / "autolink_beam.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
