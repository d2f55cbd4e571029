"""A-MAC admission throughput against a stored namespace: the engine's batched novelty search and
scoring vs the same done one candidate at a time, in the same run.

Candidates (unit vectors, dim 384) arrive in batches of ``--batch`` (one ``admit_batch`` call
each) against ``--stored`` memories held in an :class:`HnswIndex` built with the engine's
defaults (``IndexConfig``: M 16, efConstruction 100, ef 100). Each candidate gets five factors
in [0, 1]: future utility, factual confidence, temporal recency and content-type prior
(synthetic here, drawn before timing) and semantic novelty = 1 - max(cosine to its nearest
stored memory, cosine to any earlier candidate of its batch), clipped to [0, 1].

The batched path is the numeric core of ``admission.admit_batch``, per batch:

1. store novelty: one hnswlib query for the whole batch (``HnswIndex.knn_batch``, k = 8,
   ef = ``AdmissionConfig.novelty_ef`` (50), or ``--ef``: the engine's call; hnswlib's threads
   on every core);
2. batch novelty: :func:`engramdb.dynamics.admission.nearest_earlier` (blocked products over
   the lower triangle);
3. one ``admission_score`` kernel call (the registry's active backend).

The baseline, one candidate at a time: ``HnswIndex.knn_batch`` of one vector, k = 8, same ef
(one hnswlib query, one thread), a matrix-vector product with the earlier candidates of the batch, and the weighted sum
in Python; it runs on ``--baseline-n`` candidates spread evenly over the stream and its rate is
per candidate. Both report the median of ``--runs`` runs; the load average is recorded at the
start. Data (``--data``): ``clustered`` unit vectors around 2,000 random centroids, like
``bench_store.py``, ``iid`` Gaussian directions (the hardest case for HNSW), or ``locomo``:
hashing-embedder vectors of LoCoMo's turns grown to ``--stored`` memories as in
``bench_recall_scale.py`` (varied copies with renamed speakers), the candidates being the next
``--n`` memories of that stream (more varied copies: near-duplicates and restatements, as an
agent hearing similar conversations again would send; the 20 % / 10 % mix below applies to
the synthetic data only). Candidates: 20 % near-duplicates of stored memories, 10 % of earlier candidates of
the batch, the rest new. A-MAC weights 0.25/0.15/0.20/0.10/0.30, threshold 0.55
(arXiv:2603.04549). The text rules of ``admit_batch`` (kind inference, phatic and hedge checks)
and its write are not part of this figure.

Novelty accuracy: for ``--check`` candidates (default 2,000, spread over the stream), the
store's maximum cosine from hnswlib against an exact scan of the stored vectors, at the ef used
and at ef 100 (the default before ``novelty_ef``), with the rate of each in the same run.

    python benchmarks/bench_admission.py [--stored 100000] [--n 20000] [--batch 1000] [--runs 3]
        [--data clustered] [--ef 50] [--check 2000]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cmdline import without_options  # noqa: E402

from engramdb.config import AdmissionConfig, IndexConfig  # noqa: E402
from engramdb.dynamics.admission import nearest_earlier
from engramdb.index import HnswIndex
from engramdb.kernels import registry

RESULTS = Path(__file__).resolve().parent / "results"
WEIGHTS = np.array([0.25, 0.15, 0.20, 0.10, 0.30], dtype=np.float32)
THRESHOLD = 0.55
NOVELTY = 2   # column of semantic novelty in the features (reference.ADMISSION_FACTORS)
K = 8   # admit_batch's store query: k nearest (the first active one is the duplicate)
OLD_EF = 100   # its ef before AdmissionConfig.novelty_ef


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def base_vectors(n: int, dim: int, rng: np.random.Generator, data: str, centroids: np.ndarray) -> np.ndarray:
    if data == "iid":
        return unit(rng.standard_normal((n, dim), dtype=np.float32))
    v = centroids[rng.integers(0, len(centroids), n)] + 0.8 * rng.standard_normal((n, dim), dtype=np.float32)
    return unit(v)


def locomo_data(n: int, stored: int, dim: int, seed: int):
    """Hashing vectors of the grown LoCoMo stream: the first ``stored`` memories, the next ``n``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_recall_scale import corpus

    from engramdb.embed import get_embedder

    texts = [item["text"] for item in corpus(stored + n)]
    vecs = get_embedder("hashing", dim).embed(texts).astype(np.float32)
    other = np.random.default_rng(seed).uniform(0, 1, (n, 5)).astype(np.float32)
    return vecs[:stored], np.ascontiguousarray(vecs[stored:]), other


def make_data(n: int, stored: int, dim: int, batch: int, data: str, seed: int):
    if data == "locomo":
        return locomo_data(n, stored, dim, seed)
    rng = np.random.default_rng(seed)
    centroids = rng.standard_normal((2000, dim), dtype=np.float32)
    store = base_vectors(stored, dim, rng, data, centroids)
    cand = base_vectors(n, dim, rng, data, centroids)
    kind = rng.uniform(0, 1, n)
    dup_store = np.flatnonzero(kind < 0.2)
    if stored:
        cand[dup_store] = unit(store[rng.integers(0, stored, dup_store.size)]
                               + 0.05 * rng.standard_normal((dup_store.size, dim), dtype=np.float32))
    for i in np.flatnonzero((kind >= 0.2) & (kind < 0.3)):
        b0 = i - i % batch   # an earlier candidate of the same batch
        if i > b0:
            j = rng.integers(b0, i)
            cand[i] = unit(cand[j:j + 1] + 0.05 * rng.standard_normal((1, dim), dtype=np.float32))[0]
    other = rng.uniform(0, 1, (n, 5)).astype(np.float32)   # novelty column overwritten
    return store, np.ascontiguousarray(cand), other


def batched(index: HnswIndex, cand: np.ndarray, features: np.ndarray, batch: int, admission_score,
            ef: int) -> dict:
    """The engine's path over the stream, batch by batch; per-stage seconds and the decisions."""
    t = {"store_novelty_s": 0.0, "batch_novelty_s": 0.0, "combine_s": 0.0, "scoring_kernel_s": 0.0}
    scores, admits = [], []
    for b0 in range(0, len(cand), batch):
        vecs, feats = cand[b0:b0 + batch], features[b0:b0 + batch].copy()
        t0 = time.perf_counter()
        _, cos = index.knn_batch(vecs, K, ef=ef)
        cos_store = cos[:, 0]
        t1 = time.perf_counter()
        _, cos_batch = nearest_earlier(vecs)
        t2 = time.perf_counter()
        feats[:, NOVELTY] = np.clip(1.0 - np.maximum(cos_store, cos_batch), 0.0, 1.0)
        t3 = time.perf_counter()
        score, admit = admission_score(feats, WEIGHTS, THRESHOLD)
        t4 = time.perf_counter()
        for key, dt in zip(t, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            t[key] += dt
        scores.append(score)
        admits.append(admit)
    t["total_s"] = sum(t.values())
    return {**t, "score": np.concatenate(scores), "admit": np.concatenate(admits)}


def one_at_a_time(index: HnswIndex, cand: np.ndarray, features: np.ndarray, batch: int,
                  sample: np.ndarray, score: np.ndarray, ef: int) -> dict:
    """The baseline on the sampled candidates; checks each score against the batched path."""
    w = WEIGHTS.tolist()
    t_store = t_batch = t_score = 0.0
    for i in sample.tolist():
        v = cand[i]
        b0 = i - i % batch
        a = time.perf_counter()
        cs = float(index.knn_batch(v[None], K, ef=ef)[1][0, 0])
        b = time.perf_counter()
        cb = float((cand[b0:i] @ v).max()) if i > b0 else -1.0
        c = time.perf_counter()
        row = features[i].tolist()
        row[NOVELTY] = min(max(1.0 - max(cs, cb), 0.0), 1.0)
        s = 0.0
        for x, wx in zip(row, w):
            s += x * wx
        d = time.perf_counter()
        t_store, t_batch, t_score = t_store + b - a, t_batch + c - b, t_score + d - c
        # one query and the batch search the same graph with the same ef: same answer
        assert abs(s - float(score[i])) <= 1e-4, (i, s, float(score[i]))
    return {"store_novelty_s": t_store, "batch_novelty_s": t_batch, "scoring_s": t_score,
            "total_s": t_store + t_batch + t_score}


def novelty_accuracy(index: HnswIndex, store: np.ndarray, cand: np.ndarray, m: int, ef: int) -> dict:
    """hnswlib's maximum store cosine at ``ef`` against an exact scan, on ``m`` candidates."""
    pick = np.unique(np.linspace(0, len(cand) - 1, min(m, len(cand))).astype(np.int64))
    q = cand[pick]
    _, cos = index.knn_batch(q, K, ef=ef)
    exact = np.concatenate([(q[i:i + 256] @ store.T).max(axis=1) for i in range(0, len(q), 256)])
    err = np.maximum(exact - cos[:, 0], 0.0)
    return {"checked": int(len(q)), "exact_share": round(float(np.mean(err <= 1e-5)), 4),
            "p99_error": round(float(np.percentile(err, 99)), 4), "max_error": round(float(err.max()), 4)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000, help="candidates in the stream")
    ap.add_argument("--stored", type=int, default=100_000, help="memories in the index")
    ap.add_argument("--batch", type=int, default=1000, help="candidates per admit_batch call")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline-n", type=int, default=1000, help="candidates in the one-at-a-time loop")
    ap.add_argument("--data", choices=("clustered", "iid", "locomo"), default="clustered")
    ap.add_argument("--ef", type=int, default=AdmissionConfig().novelty_ef,
                    help="hnswlib ef of the novelty search (default: AdmissionConfig.novelty_ef)")
    ap.add_argument("--check", type=int, default=2000, help="candidates checked against an exact scan")
    ap.add_argument("--out", default=str(RESULTS / "admission.json"))
    args = ap.parse_args(argv)
    load_start = os.getloadavg()

    n = args.n
    store, cand, features = make_data(n, args.stored, args.dim, args.batch, args.data, seed=0)
    cfg = IndexConfig()
    t = time.perf_counter()
    index = HnswIndex(args.dim, m=cfg.m, ef_construction=cfg.ef_construction, ef_search=cfg.ef_search,
                      capacity=max(args.stored, 16))
    index.add(store, np.arange(args.stored, dtype=np.int64))   # every core (setup, untimed)
    build_s = time.perf_counter() - t
    admission_score = registry.get("admission_score")
    admission_score(features[:1], WEIGHTS, THRESHOLD)   # load the backend before timing
    m = min(args.baseline_n, n)
    sample = np.unique(np.linspace(0, n - 1, m).astype(np.int64)) if m else np.zeros(0, np.int64)

    fast, slow = [], []
    old = []   # the batched path at the ef before novelty_ef, for the rate it gave up
    for r in range(args.runs):
        fast.append(batched(index, cand, features, args.batch, admission_score, args.ef))
        old.append(batched(index, cand, features, args.batch, admission_score, OLD_EF))
        slow.append(one_at_a_time(index, cand, features, args.batch, sample, fast[-1]["score"], args.ef))
        print(f"run {r + 1}: batched {n / fast[-1]['total_s']:,.0f}/s (ef {OLD_EF}: {n / old[-1]['total_s']:,.0f}/s), "
              f"one at a time {sample.size / slow[-1]['total_s']:,.0f}/s (load {os.getloadavg()[0]:.1f})", flush=True)
    accuracy = {f"ef_{ef}": novelty_accuracy(index, store, cand, args.check, ef) for ef in (args.ef, OLD_EF)}
    admitted = int(fast[-1]["admit"].sum())

    def med(rows, key):
        return float(np.median([r[key] for r in rows]))

    b_keys = ("store_novelty_s", "batch_novelty_s", "combine_s", "scoring_kernel_s", "total_s")
    s_keys = ("store_novelty_s", "batch_novelty_s", "scoring_s", "total_s")
    b_med = {k: med(fast, k) for k in b_keys}
    s_med = {k: med(slow, k) for k in s_keys}
    b_rate, p_rate = n / b_med["total_s"], sample.size / s_med["total_s"]
    old_rate = n / med(old, "total_s")
    runs = [
        {"impl": f"batched ({registry.active_backend()} kernel)", "n": n, "stored": args.stored,
         "batch": args.batch, "candidates_per_s": round(b_rate, 1),
         **{k: round(v, 4) for k, v in b_med.items()},
         "store_novelty_per_candidate_us": round(b_med["store_novelty_s"] / n * 1e6, 1),
         "candidates_per_s_each_run": [round(n / f["total_s"], 1) for f in fast],
         "admitted": admitted, "x_one_at_a_time": round(b_rate / p_rate, 2), "ef": args.ef,
         "candidates_per_s_at_ef_100": round(old_rate, 1), "x_ef_100": round(b_rate / old_rate, 2),
         "novelty_accuracy": accuracy},
        {"impl": "one candidate at a time (HnswIndex.knn, Python scoring)", "n": int(sample.size),
         "stored": args.stored, "batch": args.batch, "candidates_per_s": round(p_rate, 1),
         **{k: round(v, 4) for k, v in s_med.items()},
         "store_novelty_per_candidate_us": round(s_med["store_novelty_s"] / sample.size * 1e6, 1),
         "candidates_per_s_each_run": [round(sample.size / s["total_s"], 1) for s in slow]},
    ]
    print(f"admission of {n:,} candidates in batches of {args.batch:,} (dim {args.dim}, {args.data}) against "
          f"{args.stored:,} stored; index build {build_s:.1f} s untimed; load at start "
          f"{load_start[0]:.1f} on {os.cpu_count()} cores; median of {args.runs} runs")
    print(f"batched: {b_rate:,.0f} candidates/s = store novelty {b_med['store_novelty_s']:.2f} s + batch "
          f"novelty {b_med['batch_novelty_s']:.2f} s + combine {b_med['combine_s'] * 1e3:.1f} ms + scoring "
          f"kernel {b_med['scoring_kernel_s'] * 1e3:.2f} ms; admitted {admitted:,}")
    print(f"one at a time: {p_rate:,.0f} candidates/s (store {s_med['store_novelty_s']:.2f} s + batch "
          f"{s_med['batch_novelty_s']:.2f} s + scoring {s_med['scoring_s'] * 1e3:.1f} ms over {sample.size:,})"
          f"  -> batched is {b_rate / p_rate:.1f}x")
    print(f"ef {args.ef}: {b_rate:,.0f}/s, ef {OLD_EF}: {old_rate:,.0f}/s ({b_rate / old_rate:.2f}x); exact max cosine "
          + ", ".join(f"{k}: {v['exact_share']:.3f} (p99 error {v['p99_error']:.4f}, max {v['max_error']:.4f})"
                      for k, v in accuracy.items()))

    from importlib.metadata import version

    doc = {
        "benchmark": "A-MAC admission against a stored namespace: batched novelty search + admission_score "
                     "kernel vs one candidate at a time",
        "machine": {"python": platform.python_version(), "numpy": np.__version__, "hnswlib": version("hnswlib"),
                    "kernel_backend": registry.active_backend(), "cpus": os.cpu_count(),
                    "machine": platform.machine(), "loadavg_start": [round(x, 2) for x in load_start],
                    "loadavg_end": [round(x, 2) for x in os.getloadavg()]},
        # --out names a file of this machine: left out (the results land where it says)
        "command": " ".join(["python", "benchmarks/bench_admission.py",
                             *without_options(sys.argv[1:] if argv is None else list(argv), ("--out",))]),
        "notes": (f"data {args.data}; index M={cfg.m}, ef_construction={cfg.ef_construction} (engine defaults), "
                  f"store query k={K}, ef={args.ef} (admit_batch's AdmissionConfig.novelty_ef); build untimed "
                  f"({build_s:.1f} s); "
                  f"median of {args.runs} runs"),
        "runs": runs,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
