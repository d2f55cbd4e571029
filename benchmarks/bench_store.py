"""Whole-store benchmarks: durable ingest, cold open + first recall, and whole recall.

For each size N (default 100k and 1M memories, dim 384, synthetic clustered unit vectors and a
power-law memory graph of mean undirected degree 6):

1. **Durable ingest**: ``add_batch`` in chunks (LMDB commits with fsync, hnswlib insertion,
   auto-linking), then ``link_batch`` of the graph. The same vectors are also inserted into a
   bare hnswlib index in the same run, so the report splits ingest time into hnswlib insertion
   and engramdb's own work.
2. **Cold open + first recall**: a fresh Python process imports engramdb, opens the store and
   runs one recall; the time from ``open`` to the first result is reported (import apart).
   The OS page cache is warm (the store was just written), as it is for a running agent.
3. **Whole recall** with the query vector given: hnswlib seeds at ef 100 + density gate +
   spreading activation + ranking + record fetch from LMDB, against hnswlib top-k alone on the
   same index, in the same process; median and p99 over the queries.

    python benchmarks/bench_store.py [--sizes 100000 1000000] [--queries 500]
    python benchmarks/bench_store.py --sizes 100000 --ingest-runs 3   # ingest throughput only
    python benchmarks/bench_store.py --sizes 20000 --ingest-runs 3 --texts locomo

``--texts locomo`` (ingest throughput only) stores real chat text instead of "synthetic memory
N": LoCoMo's turns grown to size as in ``bench_recall_scale.py`` (varied copies, speaker labels,
each turn linked ``next`` to the one before), their hashing-embedder vectors computed before
timing; the write path's text rules (time expressions, speech acts, standing relations, change
reports and the conflict rules between each memory and its neighbours) then do the work they do
for a user's chat. The bare hnswlib floor is timed on the same vectors.

Writes benchmarks/results/recall.json and benchmarks/results/ingest.json (``--ingest-runs``: the
``throughput`` rows of ingest.json, each the median of the runs with the bare hnswlib insertion
and auto-link search of the same vectors timed in every run, the CPU seconds of both (every
thread: on a shared machine the wall clock follows the load, the CPU time much less), and the
load average).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from graphs import power_law_graph  # noqa: E402

import engramdb  # noqa: E402
from engramdb.index import HnswIndex  # noqa: E402
from engramdb.kernels import registry  # noqa: E402
from engramdb.testing import vector_index  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
DIM = 384
CHUNK = 10_000


def clustered_vectors(n: int, dim: int, rng: np.random.Generator, clusters: int = 2000) -> np.ndarray:
    """Unit vectors around random centroids (closer to real embeddings than iid noise)."""
    centroids = rng.standard_normal((clusters, dim)).astype(np.float32)
    out = np.empty((n, dim), np.float32)
    for i0 in range(0, n, 100_000):
        m = min(100_000, n - i0)
        v = centroids[rng.integers(0, clusters, m)] + 0.8 * rng.standard_normal((m, dim)).astype(np.float32)
        out[i0:i0 + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def machine() -> dict:
    return {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
            "cpus": os.cpu_count(), "engramdb": engramdb.__version__,
            "kernel_backend": registry.active_backend()}


def stats_us(times: list[float]) -> dict:
    a = np.asarray(times) * 1e6
    return {"median_us": round(float(np.median(a)), 1), "p99_us": round(float(np.percentile(a, 99)), 1)}


def build(path: str, vecs: np.ndarray, rng: np.random.Generator) -> dict:
    n = len(vecs)
    ids = [f"m{i}" for i in range(n)]
    t0 = time.perf_counter()
    with engramdb.open(path, dim=DIM) as eng:
        for i0 in range(0, n, CHUNK):
            eng.add_batch([{"id": ids[i], "text": f"synthetic memory {i}", "embedding": vecs[i],
                            "kind": "semantic" if i % 3 else "episodic", "created_at": 1.7e9 + i}
                           for i in range(i0, min(n, i0 + CHUNK))])
        t_add = time.perf_counter() - t0
        g = power_law_graph(n, mean_degree=6.0, seed=int(rng.integers(1 << 30)))
        t1 = time.perf_counter()
        for e0 in range(0, len(g.src), 100_000):
            sl = slice(e0, e0 + 100_000)
            eng.link_batch([(ids[s], ids[t], engramdb.Relation.RELATED_TO if r == 0 else list(engramdb.Relation)[r], float(w))
                            for s, t, r, w in zip(g.src[sl].tolist(), g.dst[sl].tolist(),
                                                  g.edge_relation[sl].tolist(), g.edge_weight[sl].tolist())])
        t_link = time.perf_counter() - t1
        t2 = time.perf_counter()
    t_close = time.perf_counter() - t2   # close: CSR snapshot, column snapshot, index save
    # hnswlib insertion alone, same vectors and parameters, same run
    bare = HnswIndex(DIM)
    t3 = time.perf_counter()
    for i0 in range(0, n, CHUNK):
        bare.add(vecs[i0:i0 + CHUNK], np.arange(i0, min(n, i0 + CHUNK)))
    t_hnsw = time.perf_counter() - t3
    # the auto-link search engramdb runs during add_batch (k = 2 max(max_links, 5) + 1,
    # ef = LinkConfig.search_ef), alone
    lc = engramdb.LinkConfig()
    k = 2 * max(lc.max_links, 5) + 1
    t4 = time.perf_counter()
    for i0 in range(0, n, CHUNK):
        bare.knn_batch(vecs[i0:i0 + CHUNK], k, ef=max(lc.search_ef, k))
    t_search = time.perf_counter() - t4
    return {"memories": n, "edges": int(len(g.src)), "add_s": round(t_add, 2), "link_s": round(t_link, 2),
            "close_s": round(t_close, 2), "memories_per_s": round(n / t_add, 1),
            "hnswlib_insert_alone_s": round(t_hnsw, 2),
            "hnswlib_autolink_search_alone_s": round(t_search, 2),
            "engramdb_own_s": round(t_add - t_hnsw - t_search, 2),
            "hnswlib_share_of_add": round((t_hnsw + t_search) / t_add, 3)}


def synthetic_items(n: int) -> list[dict]:
    """The memories of the default ingest: "synthetic memory N", a third episodic."""
    return [{"id": f"m{i}", "text": f"synthetic memory {i}", "kind": "semantic" if i % 3 else "episodic",
             "created_at": 1.7e9 + i} for i in range(n)]


def add_once(path: str, vecs: np.ndarray, items: list[dict] | None = None) -> tuple[float, float]:
    """Seconds for ``add_batch`` of ``vecs`` in chunks of CHUNK into a new store (as :func:`build`),
    with the fields of ``items`` (default :func:`synthetic_items`): wall clock, and the CPU time
    of the process (every thread: hnswlib's too)."""
    n = len(vecs)
    items = synthetic_items(n) if items is None else items
    t0, c0 = time.perf_counter(), time.process_time()
    with engramdb.open(path, dim=DIM) as eng:
        for i0 in range(0, n, CHUNK):
            eng.add_batch([{**items[i], "embedding": vecs[i]} for i in range(i0, min(n, i0 + CHUNK))])
        t_add, c_add = time.perf_counter() - t0, time.process_time() - c0
    return t_add, c_add


def hnswlib_floor(vecs: np.ndarray) -> tuple[float, float, float]:
    """Seconds for the hnswlib work of the same ingest done bare, in the same chunks: insertion
    (every core) and the auto-link search (k = 2 max(max_links, 5) + 1, ef = LinkConfig.search_ef,
    every core), wall
    clock; and the CPU time of both (every thread)."""
    n = len(vecs)
    cfg, lc = engramdb.IndexConfig(), engramdb.LinkConfig()
    bare = HnswIndex(DIM, m=cfg.m, ef_construction=cfg.ef_construction, ef_search=cfg.ef_search)
    k = 2 * max(lc.max_links, 5) + 1
    t_ins = t_search = 0.0
    c0 = time.process_time()
    for i0 in range(0, n, CHUNK):
        i1 = min(n, i0 + CHUNK)
        t0 = time.perf_counter()
        bare.add(vecs[i0:i1], np.arange(i0, i1))
        t1 = time.perf_counter()
        bare.knn_batch(vecs[i0:i1], k, ef=max(lc.search_ef, k))
        t_ins, t_search = t_ins + t1 - t0, t_search + time.perf_counter() - t1
    return t_ins, t_search, time.process_time() - c0


def locomo_items(n: int) -> tuple[list[dict], np.ndarray]:
    """``n`` chat turns (``bench_recall_scale.corpus``) and their hashing-embedder vectors."""
    from bench_recall_scale import corpus
    from engramdb.embed import get_embedder
    items = corpus(n)
    return items, get_embedder("hashing", DIM).embed([it["text"] for it in items]).astype(np.float32)


def ingest_throughput(n: int, runs: int, texts: str = "synthetic") -> dict:
    """Durable ingest of ``n`` memories, ``runs`` times, each beside its hnswlib floor (median);
    ``texts``: "synthetic" or "locomo" (:func:`locomo_items`)."""
    load_start = os.getloadavg()
    if texts == "locomo":
        items, vecs = locomo_items(n)
    else:
        items, vecs = None, clustered_vectors(n, DIM, np.random.default_rng(n))
    rows = []
    for r in range(runs):
        base = tempfile.mkdtemp(prefix="engramdb-bench-")
        try:
            t_add, c_add = add_once(os.path.join(base, "store"), vecs, items)
        finally:
            import shutil
            shutil.rmtree(base, ignore_errors=True)
        t_ins, t_search, c_floor = hnswlib_floor(vecs)
        rows.append({"add_s": t_add, "hnswlib_insert_s": t_ins, "hnswlib_autolink_search_s": t_search,
                     "add_cpu_s": c_add, "hnswlib_cpu_s": c_floor, "load": os.getloadavg()[0]})
        print(f"[{n}] run {r + 1}: add_batch {n / t_add:,.0f} memories/s ({t_add:.1f} s, CPU {c_add:.1f} s); bare "
              f"hnswlib insertion {t_ins:.1f} s + auto-link search {t_search:.1f} s (CPU {c_floor:.1f} s) "
              f"(load {rows[-1]['load']:.1f})", flush=True)
    med = {k: float(np.median([r[k] for r in rows]))
           for k in ("add_s", "hnswlib_insert_s", "hnswlib_autolink_search_s", "add_cpu_s", "hnswlib_cpu_s")}
    floor = med["hnswlib_insert_s"] + med["hnswlib_autolink_search_s"]
    return {"memories": n, "texts": texts, "runs": runs, "chunk": CHUNK,
            "memories_per_s": round(n / med["add_s"], 1),
            "memories_per_s_each_run": [round(n / r["add_s"], 1) for r in rows],
            "add_s": round(med["add_s"], 2),
            "hnswlib_insert_alone_s": round(med["hnswlib_insert_s"], 2),
            "hnswlib_autolink_search_alone_s": round(med["hnswlib_autolink_search_s"], 2),
            "hnswlib_floor_memories_per_s": round(n / floor, 1),
            "engramdb_own_s": round(med["add_s"] - floor, 2),
            "x_hnswlib_floor": round(floor / med["add_s"], 3),
            # CPU seconds of every thread: less sensitive to the machine's load than the wall clock;
            # add's minus the bare hnswlib's is engramdb's own work (one thread of Python and LMDB)
            "add_cpu_s": round(med["add_cpu_s"], 2), "hnswlib_cpu_s": round(med["hnswlib_cpu_s"], 2),
            "engramdb_own_cpu_s": round(med["add_cpu_s"] - med["hnswlib_cpu_s"], 2),
            "loadavg_start": [round(x, 2) for x in load_start], "loadavg_each_run": [round(r["load"], 2) for r in rows]}


COLD = """
import sys, time, numpy as np
t0 = time.perf_counter(); import engramdb; engramdb.Engram; t1 = time.perf_counter()  # the engine loads lazily
eng = engramdb.open(sys.argv[1]); t2 = time.perf_counter()
q = np.load(sys.argv[2]); res = eng.recall(vector=q, k=10); t3 = time.perf_counter()
assert res.hits
print(t1 - t0, t2 - t1, t3 - t2, 'numba' in sys.modules)
"""


def cold_open(path: str, q: np.ndarray, runs: int = 5) -> dict:
    qfile = os.path.join(path, "query.npy")
    np.save(qfile, q)
    rows = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", COLD, path, qfile], capture_output=True, text=True, check=True)
        imp, opn, first, numba = out.stdout.split()
        rows.append((float(imp), float(opn), float(first), numba == "True"))
    a = np.array([r[:3] for r in rows]) * 1e3
    med = np.median(a, axis=0)
    return {"import_ms": round(float(med[0]), 1), "open_ms": round(float(med[1]), 1),
            "first_recall_ms": round(float(med[2]), 1), "open_plus_first_recall_ms": round(float(med[1] + med[2]), 1),
            "numba_imported": any(r[3] for r in rows), "runs": runs}


def whole_recall(path: str, queries: np.ndarray) -> list[dict]:
    with engramdb.open(path, readonly=True) as eng:
        index = vector_index(eng, "default")   # the engine's own hnswlib index: the baseline
        for q in queries[:20]:
            eng.recall(vector=q, k=10)
            index.knn(q, 10)
        t_h, t_r = [], []
        for q in queries:
            t0 = time.perf_counter()
            index.knn(q, 10)
            t1 = time.perf_counter()
            res = eng.recall(vector=q, k=10)
            t2 = time.perf_counter()
            t_h.append(t1 - t0)
            t_r.append(t2 - t1)
        mode = res.mode
    h, r = stats_us(t_h), stats_us(t_r)
    return [{"impl": "hnswlib_topk", **h}, {"impl": "engramdb_recall", "mode": mode, **r,
                                            "x_hnswlib": round(r["median_us"] / h["median_us"], 2)}]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--keep", default=None, help="build the stores under this directory and keep them")
    ap.add_argument("--ingest-runs", type=int, default=0,
                    help="only measure ingest throughput at each size, this many times (median), each run "
                         "beside the bare hnswlib insertion + auto-link search of the same vectors")
    ap.add_argument("--texts", choices=("synthetic", "locomo"), default="synthetic",
                    help="the memories' texts in the ingest throughput runs (see the module docstring)")
    args = ap.parse_args(argv)
    command = "python benchmarks/bench_store.py " + " ".join(sys.argv[1:])
    if args.ingest_runs:
        rows = []
        for n in args.sizes:
            row = ingest_throughput(n, args.ingest_runs, args.texts)
            rows.append({**row, "command": command, "date": time.strftime("%Y-%m-%d")})
            print(f"[{n}] ingest {row['memories_per_s']:,.0f} memories/s (median of {row['runs']}; target 4,000) = "
                  f"{row['x_hnswlib_floor']:.2f}x the bare hnswlib floor of {row['hnswlib_floor_memories_per_s']:,.0f}/s: "
                  f"add {row['add_s']} s = hnswlib insertion {row['hnswlib_insert_alone_s']} s + auto-link search "
                  f"{row['hnswlib_autolink_search_alone_s']} s + engramdb {row['engramdb_own_s']} s (CPU: add "
                  f"{row['add_cpu_s']} s, bare hnswlib {row['hnswlib_cpu_s']} s, engramdb's own {row['engramdb_own_cpu_s']} s); "
                  f"load at start {row['loadavg_start'][0]:.1f} on {os.cpu_count()} cores")
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / "ingest.json"
        doc = json.loads(path.read_text()) if path.exists() else {"machine": machine(), "runs": []}
        done = {(r["memories"], r["texts"]) for r in rows}   # a rerun replaces the rows of its sizes and texts
        doc["throughput"] = sorted([r for r in doc.get("throughput", [])
                                    if (r["memories"], r.get("texts", "synthetic")) not in done] + rows,
                                   key=lambda r: (r.get("texts", "synthetic"), r["memories"]))
        doc["throughput_machine"] = machine()
        path.write_text(json.dumps(doc, indent=2) + "\n")
        return 0
    recall_runs, ingest_runs = [], []
    for n in args.sizes:
        rng = np.random.default_rng(n)
        vecs = clustered_vectors(n, DIM, rng)
        base = args.keep or tempfile.mkdtemp(prefix="engramdb-bench-")
        path = os.path.join(base, f"store-{n}")
        print(f"[{n}] building ...", flush=True)
        ing = build(path, vecs, rng)
        queries = vecs[rng.integers(0, n, args.queries)] + 0.05 * rng.standard_normal((args.queries, DIM)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        cold = cold_open(path, queries[0])
        ingest_runs.append({**ing, **cold})
        print(f"[{n}] ingest {ing['memories_per_s']:.0f} memories/s: add {ing['add_s']} s = hnswlib insertion "
              f"{ing['hnswlib_insert_alone_s']} s + hnswlib auto-link search {ing['hnswlib_autolink_search_alone_s']} s "
              f"+ engramdb {ing['engramdb_own_s']} s; link {ing['link_s']} s; cold open {cold['open_ms']} ms + first recall "
              f"{cold['first_recall_ms']} ms (import {cold['import_ms']} ms, numba imported: {cold['numba_imported']})")
        for row in whole_recall(path, queries):
            recall_runs.append({"memories": n, **row})
            print(f"[{n}] {row['impl']:16s} median {row['median_us']:8.1f} us  p99 {row['p99_us']:8.1f} us"
                  + (f"  ({row['x_hnswlib']}x hnswlib, {row['mode']})" if "x_hnswlib" in row else ""))
        if args.keep is None:
            import shutil
            shutil.rmtree(base, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    for name, runs in (("recall", recall_runs), ("ingest", ingest_runs)):
        path = RESULTS / f"{name}.json"
        for r in runs:
            r["command"], r["date"] = command, time.strftime("%Y-%m-%d")
        old = json.loads(path.read_text())["runs"] if path.exists() else []
        sizes = {r["memories"] for r in runs}     # a rerun of a size replaces its rows
        merged = sorted([r for r in old if r.get("memories") not in sizes] + runs,
                        key=lambda r: (r["memories"], r.get("impl", "")))
        path.write_text(json.dumps({"machine": machine(), "runs": merged}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
