"""hnswlib build parameters (*M*, *efConstruction*) at ingest: insertion time against the index's
recall@10, in the same run.

For each (M, efConstruction) pair, the same clustered unit vectors as ``bench_store.py``
(dim 384) are inserted into a bare :class:`engramdb.index.HnswIndex` in ingest's chunks of
10,000 (every core, as ``add_batch`` does); the insertion time is the median of ``--runs``
builds (runs outside, pairs inside, so that the machine's load changes hit every pair alike).
The last build answers ``--queries`` queries of two sets at the engine's query-time *ef*
(``IndexConfig.ef_search``), k = 10: stored vectors plus noise (``bench_store.py``'s recall
queries) and fresh draws from the same clusters (near no stored vector in particular); its
recall@10 is the share of the exact top 10 (a full scan of the same vectors: the flat
baseline) that it returns; the auto-link search of ingest (k = 2 max(max_links, 5) + 1 = 11,
ef = 4 k, stored vectors as queries) is scored the same way against the exact top k
(recall@11). Ratios are printed against the first pair (the default before this benchmark:
M 16, efConstruction 200). Load average is recorded at the start and after each build.

Malkov & Yashunin (2018), "Efficient and robust approximate nearest neighbor search using
Hierarchical Navigable Small World graphs", TPAMI, Sec. 4.1 (the construction parameters).

    python benchmarks/bench_index_params.py [--n 100000] [--runs 2] [--queries 1000] \
        [--pairs 16:200 16:100 12:100]

Writes benchmarks/results/index_params.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import CHUNK, DIM, clustered_vectors, machine  # noqa: E402

import engramdb  # noqa: E402
from engramdb.index import HnswIndex  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def exact_topk(vecs: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    """Labels (int64, shape (q, k)) of the exact top ``k`` by inner product, in blocks."""
    out = np.empty((len(queries), k), np.int64)
    for q0 in range(0, len(queries), 256):
        sims = queries[q0:q0 + 256] @ vecs.T
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        out[q0:q0 + 256] = part
    return out


def recall_at(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean share of each row of ``truth`` present in the same row of ``found`` (percent)."""
    return 100.0 * float(np.mean([len(set(f.tolist()) & set(t.tolist())) / len(t) for f, t in zip(found, truth)]))


def build(vecs: np.ndarray, m: int, efc: int, ef_search: int) -> tuple[HnswIndex, float]:
    """A bare index of ``vecs`` inserted in CHUNK chunks; returns it and the insertion seconds."""
    index = HnswIndex(DIM, m=m, ef_construction=efc, ef_search=ef_search)
    t0 = time.perf_counter()
    for i0 in range(0, len(vecs), CHUNK):
        i1 = min(len(vecs), i0 + CHUNK)
        index.add(vecs[i0:i1], np.arange(i0, i1))
    return index, time.perf_counter() - t0


def fresh_queries(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` new draws from the clusters of ``clustered_vectors(n, DIM, default_rng(n))`` (its
    centroids are that generator's first draw): near no stored vector in particular, the
    harder case for the index."""
    centroids = np.random.default_rng(n).standard_normal((2000, DIM)).astype(np.float32)
    q = centroids[rng.integers(0, 2000, m)] + 0.8 * rng.standard_normal((m, DIM)).astype(np.float32)
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--pairs", nargs="+", default=["16:200", "16:100", "12:100"],
                    help="M:efConstruction pairs; the first is the baseline of the ratios")
    args = ap.parse_args(argv)
    command = "python benchmarks/bench_index_params.py " + " ".join(sys.argv[1:])
    load_start = os.getloadavg()
    rng = np.random.default_rng(args.n)
    vecs = clustered_vectors(args.n, DIM, rng)
    near = vecs[rng.integers(0, args.n, args.queries)] + 0.05 * rng.standard_normal(
        (args.queries, DIM)).astype(np.float32)
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    fresh = fresh_queries(args.n, args.queries, rng)
    ef_search = engramdb.IndexConfig().ef_search
    lc = engramdb.LinkConfig()
    k_link = 2 * max(lc.max_links, 5) + 1
    truth = {"near": exact_topk(vecs, near, 10), "fresh": exact_topk(vecs, fresh, 10),
             "link": exact_topk(vecs, vecs[:args.queries], k_link)}
    pairs = [tuple(int(x) for x in pair.split(":")) for pair in args.pairs]
    times: dict[tuple[int, int], list[float]] = {pair: [] for pair in pairs}
    loads: dict[tuple[int, int], list[float]] = {pair: [] for pair in pairs}
    found: dict[tuple[int, int], dict] = {}
    for r in range(args.runs):   # runs outside, pairs inside: a change of load hits every pair alike
        for m, efc in pairs:
            index, t = build(vecs, m, efc, ef_search)
            times[(m, efc)].append(t)
            loads[(m, efc)].append(round(os.getloadavg()[0], 2))
            print(f"run {r + 1}: M {m} efConstruction {efc}: insertion {t:.1f} s (load {loads[(m, efc)][-1]:.1f})",
                  flush=True)
            if r == args.runs - 1:
                found[(m, efc)] = {
                    "near": np.stack([index.knn(q, 10)[0] for q in near]),
                    "fresh": np.stack([index.knn(q, 10)[0] for q in fresh]),
                    "link": index.knn_batch(vecs[:args.queries], k_link, ef=4 * k_link)[0]}
            del index
    rows = []
    for m, efc in pairs:
        med = float(np.median(times[(m, efc)]))
        f = found[(m, efc)]
        rows.append({"m": m, "ef_construction": efc, "insert_s": round(med, 2),
                     "insert_s_each_run": [round(t, 2) for t in times[(m, efc)]],
                     "load_each_run": loads[(m, efc)], "vectors_per_s": round(args.n / med, 1),
                     "recall_at_10_near": round(recall_at(f["near"], truth["near"]), 2),
                     "recall_at_10_fresh": round(recall_at(f["fresh"], truth["fresh"]), 2),
                     f"autolink_recall_at_{k_link}": round(recall_at(f["link"], truth["link"]), 2)})
    base = rows[0]
    for r in rows:
        r["x_first_pair_speed"] = round(base["insert_s"] / r["insert_s"], 3)
        for key in ("recall_at_10_near", "recall_at_10_fresh"):
            r[key + "_change_points"] = round(r[key] - base[key], 2)
        print(f"M {r['m']:3d} efConstruction {r['ef_construction']:4d}: insertion {r['insert_s']:6.1f} s "
              f"({r['vectors_per_s']:,.0f} vectors/s, {r['x_first_pair_speed']:.2f}x the first pair); recall@10 at "
              f"ef {ef_search}: near-stored queries {r['recall_at_10_near']:.2f} ({r['recall_at_10_near_change_points']:+.2f}), "
              f"fresh queries {r['recall_at_10_fresh']:.2f} ({r['recall_at_10_fresh_change_points']:+.2f}); auto-link "
              f"recall@{k_link} {r[f'autolink_recall_at_{k_link}']:.2f}")
    RESULTS.mkdir(exist_ok=True)
    doc = {"benchmark": "hnswlib M / efConstruction: insertion time vs index recall@10 (exact scan baseline)",
           "n": args.n, "dim": DIM, "chunk": CHUNK, "queries": args.queries, "ef_search": ef_search,
           "runs": args.runs, "pairs": rows, "loadavg_start": [round(x, 2) for x in load_start],
           "machine": machine(), "command": command, "date": time.strftime("%Y-%m-%d")}
    (RESULTS / "index_params.json").write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
