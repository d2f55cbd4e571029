"""Spreading activation latency: engramdb's kernels vs scipy, networkx and a PostgreSQL CTE.

One query = spreading activation from 10 uniform random seeds (activation 1.0), depth 2,
then the top 20 nodes by activation without the seeds (ties by node id), on power-law graphs
(benchmarks/graphs.py, mean degree 6, hubs of degree up to thousands, 5% `contradicts`).
Every implementation computes the same thing, in the same process and run:

- relation multiplier 1.0 for every relation except `contradicts` (0: carries nothing),
  decay 0.5 per hop, fan effect off (fan_exp 0), degree cap above every degree, SUM with a
  cap (1e9) that is never reached, visited-set semantics (a node's activation is fixed at
  the level where it is first reached; seeds are never re-scored);
- ``c``, ``numba``: ``engramdb.kernels.registry.backend(name).spread_topk`` (min_depth 1, k 20):
  the traversal and a k-heap over the touched nodes in one native call;
- ``c_unfused``, ``reference``: ``spread_activation`` of that backend, then the top-20 selection
  in NumPy (np.partition plus a tie-exact sort); ``c_unfused`` is the C pipeline before the
  fused kernel, kept as a per-stage comparison;
- ``scipy``: level-by-level frontier, one sparse row-vector x matrix product per level over a
  CSR with `contradicts` edges removed (built once), and a visited mask;
- ``networkx``: the same breadth-first loop over a ``networkx.Graph`` (sizes up to
  ``--networkx-max``, default 1M: a 1M-node Graph takes ~20 s and ~1.5 GB to build);
- ``postgres_cte``: the reference system's recursive CTE over ``graph_edges`` in a
  throw-away PostgreSQL cluster (benchmarks/pg_baseline.py), one round trip per query.

The NumPy reference runs on every query (its top 20 is the ground truth of
``top20_matches_reference``), even where its timing is not reported.

    python benchmarks/bench_spreading.py [--sizes 10000 100000 1000000] [--queries 200] [--impls c numba ...]

Each implementation runs ``--repeats`` passes over the query set (after ``--warmup`` queries);
its median and p99 are the medians of the passes' medians and p99s, each pass listed in the
JSON (machines are shared: one pass can fall on a busy moment; the first pass also starts with
the graph out of the caches).

Writes benchmarks/results/spreading.json and spreading.md. Collins & Loftus (1975);
SYNAPSE, arXiv:2601.02744, section 3; DESIGN.md "Recall", step 4.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import engramdb  # noqa: E402
from engramdb.kernels import registry  # noqa: E402
from engramdb.kernels.reference import COMBINE_SUM, CONTRADICTS, N_RELATIONS  # noqa: E402
from graphs import power_law_graph  # noqa: E402

RESULTS = HERE / "results"
IMPLS = ("c", "c_unfused", "numba", "reference", "scipy", "networkx", "postgres_cte")
N_SEEDS, MAX_DEPTH, DECAY, FAN_EXP, SUM_CAP, TOP = 10, 2, 0.5, 0.0, 1e9, 20
REL_MULT = np.ones(N_RELATIONS, dtype=np.float32)
REL_MULT[CONTRADICTS] = 0.0


def top20(nodes: np.ndarray, act: np.ndarray, k: int = TOP) -> np.ndarray:
    """The ``k`` nodes of highest activation, ties by smaller node id (seeds already removed)."""
    if nodes.size > k:
        kth = np.partition(act, nodes.size - k)[nodes.size - k]  # k-th largest value
        keep = act >= kth  # everything tied with it stays in, the sort settles ties
        nodes, act = nodes[keep], act[keep]
    order = np.lexsort((nodes, -act.astype(np.float64)))[:k]
    return nodes[order]


def kernel_top20(mod, g, seeds: np.ndarray, degree_cap: int) -> np.ndarray:
    nodes, act, _parent, depth = mod.spread_activation(
        g.indptr, g.indices, g.weight, g.relation, seeds, np.ones(seeds.size, np.float32),
        REL_MULT, MAX_DEPTH, DECAY, FAN_EXP, degree_cap, COMBINE_SUM, SUM_CAP)
    keep = depth > 0
    return top20(nodes[keep], act[keep])


def reference_top20(g, seeds: np.ndarray) -> np.ndarray:
    """Top 20 of the engramdb reference kernel (the ground truth)."""
    return kernel_top20(registry.backend("reference"), g, np.asarray(seeds, np.int32),
                        int(g.degree.max(initial=0)) + 1)


class ScipyFrontier:
    """Level-by-level spreading with scipy.sparse products and a visited mask."""

    def __init__(self, g):
        import scipy.sparse as sp

        self.sp = sp
        rows = np.repeat(np.arange(g.n, dtype=np.int32), np.diff(g.indptr))
        data = g.weight.astype(np.float64) * REL_MULT[g.relation] * DECAY
        keep = (data > 0) & (g.indices != rows)  # contradicts edges and self-loops carry nothing
        self.a = sp.csr_matrix((data[keep], (rows[keep], g.indices[keep])), shape=(g.n, g.n))
        self.n = g.n
        self.visited = np.zeros(g.n, dtype=bool)

    def __call__(self, seeds: np.ndarray) -> np.ndarray:
        f_idx = np.unique(seeds).astype(np.int32)
        f_act = np.ones(f_idx.size)
        visited = self.visited
        visited[f_idx] = True
        touched, out_idx, out_act = [f_idx], [], []
        for _ in range(MAX_DEPTH):
            if f_idx.size == 0:
                break
            x = self.sp.csr_matrix((f_act, f_idx, np.array([0, f_idx.size])), shape=(1, self.n))
            y = x @ self.a
            fresh = ~visited[y.indices]
            f_idx, f_act = y.indices[fresh], y.data[fresh]
            visited[f_idx] = True
            touched.append(f_idx)
            out_idx.append(f_idx)
            out_act.append(f_act)
        visited[np.concatenate(touched)] = False
        if not out_idx:
            return np.empty(0, np.int32)
        return top20(np.concatenate(out_idx), np.concatenate(out_act))


class NetworkxSpread:
    """The same breadth-first spreading over a ``networkx.Graph`` (edge attributes
    ``weight`` and ``relation``)."""

    def __init__(self, g):
        import networkx as nx

        G = nx.Graph()
        G.add_nodes_from(range(g.n))
        G.add_edges_from(zip(g.src.tolist(), g.dst.tolist(),
                             ({"weight": w, "relation": r}
                              for w, r in zip(g.edge_weight.tolist(), g.edge_relation.tolist()))))
        self.adj = G.adj

    def __call__(self, seeds: np.ndarray) -> np.ndarray:
        adj = self.adj
        depth = {}
        frontier = []
        for s in seeds.tolist():
            if s not in depth:
                depth[s] = 0
                frontier.append(s)
        act = dict.fromkeys(frontier, 1.0)
        for d in range(1, MAX_DEPTH + 1):
            level: dict[int, float] = {}
            for u in frontier:
                au = act[u]
                for v, e in adj[u].items():
                    if e["relation"] == CONTRADICTS or v == u:
                        continue
                    if v in depth and v not in level:
                        continue  # visited at an earlier level: fixed
                    p = au * e["weight"] * DECAY
                    if v in level:
                        level[v] = min(level[v] + p, SUM_CAP)
                    else:
                        depth[v] = d
                        level[v] = min(p, SUM_CAP)
            act.update(level)
            frontier = list(level)
        nodes = np.fromiter((v for v, d in depth.items() if d > 0), dtype=np.int64)
        vals = np.fromiter((act[v] for v, d in depth.items() if d > 0), dtype=np.float64)
        return top20(nodes, vals)


def _versions() -> dict:
    out = {}
    for dist in ("numpy", "scipy", "numba", "networkx", "psycopg"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _stats(lat: list[float]) -> tuple[float, float]:
    a = np.asarray(lat) * 1e6
    return round(float(np.median(a)), 1), round(float(np.percentile(a, 99)), 1)


def bench_size(n: int, args, impls: list[str], pg, log) -> list[dict]:
    t0 = time.perf_counter()
    g = power_law_graph(n, seed=args.seed)
    deg = g.degree
    log(f"\n== {n:,} nodes, {g.src.size:,} edges, max degree {int(deg.max())} "
        f"(built in {time.perf_counter() - t0:.1f} s)")
    cap = int(deg.max(initial=0)) + 1
    rng = np.random.default_rng([args.seed, n])
    queries = [rng.choice(n, N_SEEDS, replace=False).astype(np.int32) for _ in range(args.queries)]
    warm = [rng.choice(n, N_SEEDS, replace=False).astype(np.int32) for _ in range(args.warmup)]

    # Ground truth: the reference on every query (timed too).
    ref_mod = registry.backend("reference")
    for s in warm[:2]:
        kernel_top20(ref_mod, g, s, cap)
    truth, ref_lat = [], []
    for s in queries:
        t = time.perf_counter()
        truth.append(kernel_top20(ref_mod, g, s, cap))
        ref_lat.append(time.perf_counter() - t)
    truth_sets = [set(t.tolist()) for t in truth]

    runs = []
    base = {"nodes": n, "edges": int(g.src.size), "max_degree": int(deg.max()), "queries": len(queries)}

    def record(impl: str, fn=None, lat=None, tops=None, note=None):
        passes = [_stats(lat)] if lat is not None else []
        if fn is not None:
            for s in warm:
                fn(s)
            for rep in range(args.repeats):   # every pass runs the whole query set
                lat, got = [], []
                for s in queries:
                    t = time.perf_counter()
                    got.append(fn(s))
                    lat.append(time.perf_counter() - t)
                passes.append(_stats(lat))
                tops = tops or got
        med = float(np.median([p[0] for p in passes]))
        p99 = float(np.median([p[1] for p in passes]))
        overlap = [len(set(np.asarray(t).tolist()) & ts) / max(len(ts), 1) for t, ts in zip(tops, truth_sets)]
        equal = sum(set(np.asarray(t).tolist()) == ts for t, ts in zip(tops, truth_sets))
        run = {**base, "impl": impl, "median_us": med, "p99_us": p99,
               "top20_matches_reference": equal == len(queries),
               "queries_matching": equal, "mean_top20_overlap": round(float(np.mean(overlap)), 4),
               "pass_medians_us": [round(p[0], 2) for p in passes], "pass_p99s_us": [round(p[1], 2) for p in passes]}
        if note:
            run["note"] = note
        runs.append(run)
        log(f"{impl:13s} median {med:12.1f} us   p99 {p99:12.1f} us   top-20 = reference on "
            f"{equal}/{len(queries)} queries")

    def skip(impl: str, reason: str):
        runs.append({**base, "impl": impl, "median_us": None, "p99_us": None,
                     "top20_matches_reference": None, "skipped": reason})
        log(f"{impl:13s} skipped: {reason}")

    for impl in impls:
        try:
            if impl in ("c", "numba"):
                mod = registry.backend(impl)
                seed_act = np.ones(N_SEEDS, np.float32)
                # The call itself, arguments bound beforehand as the recall path holds them.
                record(impl, lambda s, mod=mod, a=seed_act: mod.spread_topk(
                    g.indptr, g.indices, g.weight, g.relation, s, a, REL_MULT, MAX_DEPTH, DECAY,
                    FAN_EXP, cap, COMBINE_SUM, SUM_CAP, 1, TOP)[0])
            elif impl == "c_unfused":
                mod = registry.backend("c")
                record(impl, lambda s, mod=mod: kernel_top20(mod, g, s, cap))
            elif impl == "reference":
                if args.reference_max and n > args.reference_max:
                    skip(impl, f"timing not reported above {args.reference_max:,} nodes "
                               "(--reference-max); still run on every query as the ground truth")
                else:
                    record(impl, lat=ref_lat, tops=truth)
            elif impl == "scipy":
                t = time.perf_counter()
                fn = ScipyFrontier(g)
                record(impl, fn, note=f"matrix built once in {time.perf_counter() - t:.2f} s (not timed)")
            elif impl == "networkx":
                if n > args.networkx_max:
                    skip(impl, f"limited to {args.networkx_max:,} nodes (--networkx-max): building "
                               "the Graph grows with the size (~20 s and ~1.5 GB at 1M nodes)")
                    continue
                t = time.perf_counter()
                fn = NetworkxSpread(g)
                record(impl, fn, note=f"Graph built in {time.perf_counter() - t:.1f} s (not timed)")
            elif impl == "postgres_cte":
                if isinstance(pg, str):
                    skip(impl, pg)
                    continue
                load_s = pg.load_graph(g)
                record(impl, lambda s: pg.top_k(s, TOP, MAX_DEPTH)[0],
                       note=f"{pg.version()}; {2 * g.src.size:,} rows loaded and indexed in "
                            f"{load_s:.1f} s; one round trip over 127.0.0.1 per query")
        except Exception as exc:  # an unavailable backend must not lose the other results
            skip(impl, f"{type(exc).__name__}: {exc}")

    by = {r["impl"]: r for r in runs if r.get("median_us")}
    if "c" in by and len(by) > 1:
        c = by["c"]["median_us"]
        parts = [f"{k} {v['median_us'] / c:,.1f}x" for k, v in by.items() if k != "c"]
        log("median vs C: " + ", ".join(parts))
        if "postgres_cte" in by:
            log(f"C is {by['postgres_cte']['median_us'] / c:,.0f}x faster than the PostgreSQL CTE "
                f"(median), {by['postgres_cte']['p99_us'] / by['c']['p99_us']:,.0f}x at p99")
    return runs


def write_results(doc: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    m = doc["machine"]
    lines = ["# Spreading activation latency (depth 2, 10 seeds, top 20)", "",
             f"Command: `{doc['command']}`. Machine: {m['cpus']} CPUs, {m['platform']}, "
             f"load average {m['loadavg_at_start']} at start.", "",
             "Same semantics everywhere: relation multiplier 1 except `contradicts` (0), decay 0.5, "
             "no fan effect, no degree cap, SUM, visited set. Ratio = median / C median. "
             f"Median and p99: the medians over {doc.get('repeats', 1)} passes of the query set "
             "(the reference: one pass).", "",
             "| nodes | impl | median µs | p99 µs | ratio vs C | top-20 = reference | note |",
             "|---|---|---|---|---|---|---|"]
    c_med = {r["nodes"]: r["median_us"] for r in doc["runs"] if r["impl"] == "c" and r.get("median_us")}
    for r in doc["runs"]:
        if r.get("skipped"):
            lines.append(f"| {r['nodes']:,} | {r['impl']} | – | – | – | – | skipped: {r['skipped']} |")
            continue
        ratio = f"{r['median_us'] / c_med[r['nodes']]:,.1f}" if r["nodes"] in c_med else "–"
        match = "yes" if r["top20_matches_reference"] else \
            f"no ({r['queries_matching']}/{r['queries']}, overlap {r['mean_top20_overlap']:.3f})"
        lines.append(f"| {r['nodes']:,} | {r['impl']} | {r['median_us']:,.1f} | {r['p99_us']:,.1f} | "
                     f"{ratio} | {match} | {r.get('note', '')} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000], help="node counts")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5,
                    help="passes over the query set; median and p99 are the medians of the passes' "
                         "(the reference, timed while it makes the ground truth, runs one pass)")
    ap.add_argument("--impls", nargs="+", default=list(IMPLS), choices=IMPLS, metavar="IMPL",
                    help=f"implementations to run (default: all of {', '.join(IMPLS)})")
    ap.add_argument("--networkx-max", type=int, default=1_000_000)
    ap.add_argument("--reference-max", type=int, default=0,
                    help="report no reference timing above this many nodes (0: always report)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(RESULTS / "spreading.json"))
    args = ap.parse_args(argv)
    sizes = args.sizes
    impls = list(dict.fromkeys(args.impls))

    machine = {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
               "cpus": os.cpu_count(), "python": platform.python_version(),
               "engramdb": engramdb.__version__, **_versions(),
               "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}
    command = " ".join(["python", "benchmarks/bench_spreading.py", *sys.argv[1:]]) if argv is None \
        else " ".join(["python", "benchmarks/bench_spreading.py", *argv])

    pg = "not requested"
    runs: list[dict] = []
    try:
        if "postgres_cte" in impls:
            from pg_baseline import PgCluster, PgUnavailable

            try:
                pg = PgCluster().start()
                machine["postgres"] = pg.version()
            except PgUnavailable as exc:
                pg = str(exc)
                print(f"postgres_cte skipped: {exc}")
        for n in sizes:
            runs += bench_size(n, args, impls, pg, print)
    finally:
        if not isinstance(pg, str):
            pg.stop()
    machine["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_results({"machine": machine, "command": command, "repeats": args.repeats, "runs": runs},
                  Path(args.out))
    print(f"\nwrote {args.out} and {Path(args.out).with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
