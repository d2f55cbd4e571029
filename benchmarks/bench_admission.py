"""Batched A-MAC admission scoring of N candidates against a store held in an HnswIndex,
with the per-candidate Python loop measured in the same run as the baseline.

Each candidate (a unit vector, dim 384) gets five factors in [0, 1]: future utility, factual
confidence, temporal recency and content-type prior (synthetic here, drawn before timing)
and semantic novelty = 1 - max(cosine to its nearest stored memory, cosine to any earlier
candidate of the batch), clipped to [0, 1]. The batched path is

1. store novelty: one hnswlib batch query, k = 1 (``HnswIndex.knn_batch``: hnswlib's batch
   call on every core, ef = ef_search = 100);
2. batch novelty: blocked matrix products C[i0:i1] @ C[j0:j1].T over the lower triangle,
   a running row maximum, diagonal and later candidates masked;
3. one ``admission_score`` kernel call (the registry's active backend).

The baseline does the same per candidate in a Python loop: ``HnswIndex.knn(v, 1)``, a
matrix-vector product with the earlier candidates, and the weighted sum in Python. It runs on
``--baseline-n`` candidates spread evenly over the batch (so the in-batch part costs what it
costs on average) and its rate is reported per candidate; the Python scoring loop alone also
runs over all N. Candidates: 20 % near-duplicates of stored memories, 10 % of earlier
candidates, the rest random. A-MAC weights 0.25/0.15/0.20/0.10/0.30, threshold 0.55
(arXiv:2603.04549).

    python benchmarks/bench_admission.py [--n 100000] [--stored 100000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from engramdb.index import HnswIndex
from engramdb.kernels import registry

RESULTS = Path(__file__).resolve().parent / "results"
WEIGHTS = np.array([0.25, 0.15, 0.20, 0.10, 0.30], dtype=np.float32)
THRESHOLD = 0.55
NOVELTY = 2  # column of semantic novelty in the features (reference.ADMISSION_FACTORS)


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def make_data(n: int, stored: int, dim: int, seed: int):
    rng = np.random.default_rng(seed)
    store = unit(rng.standard_normal((stored, dim), dtype=np.float32))
    cand = unit(rng.standard_normal((n, dim), dtype=np.float32))
    kind = rng.uniform(0, 1, n)
    dup_store = np.flatnonzero(kind < 0.2)
    if stored:
        cand[dup_store] = unit(store[rng.integers(0, stored, dup_store.size)]
                               + 0.05 * rng.standard_normal((dup_store.size, dim), dtype=np.float32))
    for i in np.flatnonzero((kind >= 0.2) & (kind < 0.3)):
        if i:
            j = rng.integers(0, i)
            cand[i] = unit(cand[j:j + 1] + 0.05 * rng.standard_normal((1, dim), dtype=np.float32))[0]
    other = rng.uniform(0, 1, (n, 5)).astype(np.float32)  # novelty column overwritten later
    return store, np.ascontiguousarray(cand), other


def store_max_cosine(index: HnswIndex, cand: np.ndarray) -> np.ndarray:
    if len(index) == 0:
        return np.full(cand.shape[0], -1.0, np.float32)
    _, cos = index.knn_batch(cand, 1)   # hnswlib's batch query on every core, ef = ef_search
    return cos[:, 0]


def batch_max_cosine(cand: np.ndarray, block: int) -> np.ndarray:
    """Row i: max cosine to candidates 0 .. i-1 (-1 for the first), by blocked products."""
    n = cand.shape[0]
    best = np.full(n, -1.0, np.float32)
    for i0 in range(0, n, block):
        i1 = min(i0 + block, n)
        rows = cand[i0:i1]
        for j0 in range(0, i1, block):
            j1 = min(j0 + block, i1)
            s = rows @ cand[j0:j1].T
            if j1 > i0:  # the diagonal block: keep j < i only
                ii = np.arange(i0, i1)[:, None]
                jj = np.arange(j0, j1)[None, :]
                s[jj >= ii] = -1.0
            np.maximum(best[i0:i1], s.max(axis=1), out=best[i0:i1])
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="candidates in the batch")
    ap.add_argument("--stored", type=int, default=100_000, help="memories in the index")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--block", type=int, default=2048, help="block size of the in-batch products")
    ap.add_argument("--baseline-n", type=int, default=2000, help="candidates in the Python loop")
    ap.add_argument("--ef-construction", type=int, default=100)
    ap.add_argument("--out", default=str(RESULTS / "admission.json"))
    args = ap.parse_args(argv)

    n = args.n
    store, cand, features = make_data(n, args.stored, args.dim, seed=0)
    t = time.perf_counter()
    index = HnswIndex(args.dim, m=16, ef_construction=args.ef_construction, ef_search=100,
                      capacity=max(args.stored, 16))
    index.add(store, np.arange(args.stored, dtype=np.int64))   # every core (setup, untimed)
    build_s = time.perf_counter() - t
    admission_score = registry.get("admission_score")
    admission_score(features[:1], WEIGHTS, THRESHOLD)  # load the backend before timing

    # ---- batched path
    t0 = time.perf_counter()
    cos_store = store_max_cosine(index, cand)
    t1 = time.perf_counter()
    cos_batch = batch_max_cosine(cand, args.block)
    t2 = time.perf_counter()
    features[:, NOVELTY] = np.clip(1.0 - np.maximum(cos_store, cos_batch), 0.0, 1.0)
    t3 = time.perf_counter()
    score, admit = admission_score(features, WEIGHTS, THRESHOLD)
    t4 = time.perf_counter()
    batched = {"store_novelty_s": t1 - t0, "batch_novelty_s": t2 - t1,
               "combine_s": t3 - t2, "scoring_kernel_s": t4 - t3, "total_s": t4 - t0}

    # ---- baseline: per candidate, in a Python loop
    m = min(args.baseline_n, n)
    sample = np.unique(np.linspace(0, n - 1, m).astype(np.int64)) if m else np.zeros(0, np.int64)
    w = WEIGHTS.tolist()
    base_store = base_batch = base_score = 0.0
    for i in sample.tolist():
        v = cand[i]
        a = time.perf_counter()
        cs = float(index.knn(v, 1)[1][0]) if len(index) else -1.0
        b = time.perf_counter()
        cb = float((cand[:i] @ v).max()) if i else -1.0
        c = time.perf_counter()
        row = features[i].tolist()
        row[NOVELTY] = min(max(1.0 - max(cs, cb), 0.0), 1.0)
        s = 0.0
        for x, wx in zip(row, w):
            s += x * wx
        ok = s >= THRESHOLD
        d = time.perf_counter()
        base_store, base_batch, base_score = base_store + b - a, base_batch + c - b, base_score + d - c
        assert abs(s - float(score[i])) <= 1e-5 and (ok == bool(admit[i]) or abs(s - THRESHOLD) < 1e-5), i
    rows_all = features.tolist()
    a = time.perf_counter()
    loop_admit = [sum(x * wx for x, wx in zip(r, w)) >= THRESHOLD for r in rows_all]
    loop_all_s = time.perf_counter() - a
    del loop_admit

    def rate(count, seconds):
        return round(count / seconds, 1) if seconds > 0 else None

    base_total = base_store + base_batch + base_score
    runs = [
        {"impl": f"batched ({registry.active_backend()} kernel)", "n": n, "stored": args.stored,
         "candidates_per_s": rate(n, batched["total_s"]),
         **{k: round(v, 6) for k, v in batched.items()},
         "kernel_candidates_per_s": rate(n, batched["scoring_kernel_s"]),
         "admitted": int(admit.sum())},
        {"impl": "python loop per candidate", "n": int(sample.size), "stored": args.stored,
         "candidates_per_s": rate(sample.size, base_total),
         "store_novelty_s": round(base_store, 4), "batch_novelty_s": round(base_batch, 4),
         "scoring_s": round(base_score, 4), "total_s": round(base_total, 4)},
        {"impl": "python loop, scoring only", "n": n, "stored": args.stored,
         "candidates_per_s": rate(n, loop_all_s), "scoring_s": round(loop_all_s, 4)},
    ]
    b_rate, p_rate = runs[0]["candidates_per_s"], runs[1]["candidates_per_s"]
    print(f"admission of {n:,} candidates (dim {args.dim}) against {args.stored:,} stored "
          f"(index build {build_s:.1f} s, untimed)")
    print(f"batched: {b_rate:,.0f} candidates/s  total {batched['total_s'] * 1e3:.1f} ms = "
          f"store novelty {batched['store_novelty_s'] * 1e3:.1f} + batch novelty "
          f"{batched['batch_novelty_s'] * 1e3:.1f} + combine {batched['combine_s'] * 1e3:.1f} + "
          f"scoring kernel {batched['scoring_kernel_s'] * 1e3:.3f} ms; admitted {int(admit.sum()):,}")
    if p_rate:
        print(f"python loop per candidate ({sample.size:,} sampled): {p_rate:,.0f} candidates/s "
              f"(store {base_store * 1e3:.1f} + batch {base_batch * 1e3:.1f} + scoring "
              f"{base_score * 1e3:.1f} ms)  -> batched is {b_rate / p_rate:.1f}x")
    k_rate, s_rate = runs[0]["kernel_candidates_per_s"], runs[2]["candidates_per_s"]
    if k_rate and s_rate:
        print(f"scoring only: kernel {k_rate:,.0f}/s vs python loop {s_rate:,.0f}/s "
              f"-> {k_rate / s_rate:.0f}x")

    from importlib.metadata import version

    doc = {
        "benchmark": "batched A-MAC admission (store + in-batch novelty, admission_score kernel) "
                     "vs a per-candidate Python loop",
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "hnswlib": version("hnswlib"),
                    "kernel_backend": registry.active_backend(), "cpus": os.cpu_count(),
                    "machine": platform.machine()},
        "command": " ".join(["python", "benchmarks/bench_admission.py", *sys.argv[1:]]),
        "notes": "store novelty uses HnswIndex.knn_batch (hnswlib's batch query, every core); "
                 f"index m=16, ef_construction="
                 f"{args.ef_construction}, ef_search=100; build untimed ({build_s:.1f} s)",
        "runs": runs,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
