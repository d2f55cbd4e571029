"""Node relabelling for locality: does renumbering the graph speed up spreading activation?

Issue "Native hot path" names relabelling nodes when the snapshot is written (BFS or reverse
Cuthill-McKee order) as one way to bring the fused C kernel (``spread_topk``: depth 2, 10 seeds,
top 20, the query of ``bench_spreading.py``) under 10 µs at 100k nodes. This benchmark measures
that before the snapshot writer pays for it: the same power-law graph (``graphs.power_law_graph``)
under three numberings, the queries' seeds renamed alike, timed in one process, passes
interleaved (original, degree, rcm, original, ...):

- ``original``: the generator's ids (what the engine's insertion order gives a graph whose
  links are not local in time);
- ``degree``: nodes by degree, largest first (the hubs that most depth-2 spreads pass through
  share cache lines);
- ``rcm``: reverse Cuthill-McKee (``scipy.sparse.csgraph.reverse_cuthill_mckee``), the
  bandwidth-reducing order the issue names.

Every numbering must give the same top-20 activations as the original (checked on every query
of the first pass). Reported: the median of the passes' medians and p99s, and each numbering's
ratio to ``original``.

    python benchmarks/bench_relabel.py [--sizes 100000 1000000] [--queries 300] [--repeats 7]

Writes benchmarks/results/relabel.json and relabel.md.
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
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from engramdb.kernels import registry  # noqa: E402
from engramdb.kernels.reference import COMBINE_SUM, CONTRADICTS, N_RELATIONS  # noqa: E402
from cmdline import without_options  # noqa: E402
from graphs import power_law_graph  # noqa: E402

RESULTS = HERE / "results"
N_SEEDS, MAX_DEPTH, DECAY, FAN_EXP, SUM_CAP, TOP = 10, 2, 0.5, 0.0, 1e9, 20
REL_MULT = np.ones(N_RELATIONS, dtype=np.float32)
REL_MULT[CONTRADICTS] = 0.0
ORDERS = ("original", "degree", "rcm")


def renumbered(g, order: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The CSR of ``g`` with node ``order[i]`` renamed ``i`` (rows sorted by target), and the map
    old id -> new id."""
    n = g.n
    new_id = np.empty(n, np.int64)
    new_id[order] = np.arange(n)
    edge = sp.csr_matrix((np.arange(1, g.indices.size + 1), g.indices, g.indptr), shape=(n, n))
    moved = edge[order][:, order].tocsr()
    moved.sort_indices()
    e = moved.data - 1
    return (moved.indptr.astype(np.int64), moved.indices.astype(np.int32), g.weight[e], g.relation[e]), new_id


def numberings(g) -> dict[str, tuple[tuple[np.ndarray, ...], np.ndarray, float]]:
    """name -> (CSR, old id -> new id, seconds to compute the order and renumber)."""
    out = {"original": ((g.indptr, g.indices, g.weight, g.relation), np.arange(g.n), 0.0)}
    t = time.perf_counter()
    csr, new_id = renumbered(g, np.argsort(-g.degree, kind="stable"))
    out["degree"] = (csr, new_id, time.perf_counter() - t)
    t = time.perf_counter()
    adj = sp.csr_matrix((np.ones(g.indices.size, np.int8), g.indices, g.indptr), shape=(g.n, g.n))
    csr, new_id = renumbered(g, reverse_cuthill_mckee(adj, symmetric_mode=True).astype(np.int64))
    out["rcm"] = (csr, new_id, time.perf_counter() - t)
    return out


def bench_size(n: int, args, log) -> list[dict]:
    g = power_law_graph(n, seed=args.seed)
    cap = int(g.degree.max()) + 1
    rng = np.random.default_rng([args.seed, n])
    queries = [rng.choice(n, N_SEEDS, replace=False).astype(np.int32) for _ in range(args.queries)]
    mod = registry.backend("c")
    act = np.ones(N_SEEDS, np.float32)

    def call(csr, seeds):
        return mod.spread_topk(*csr, seeds, act, REL_MULT, MAX_DEPTH, DECAY, FAN_EXP, cap, COMBINE_SUM,
                               SUM_CAP, 1, TOP)

    variants = numberings(g)
    seeds_of = {name: [new_id[q].astype(np.int32) for q in queries] for name, (_c, new_id, _s) in variants.items()}
    same = {}
    for name, (csr, _new_id, _s) in variants.items():   # the same activations, node for node
        same[name] = all(np.array_equal(np.sort(call(variants["original"][0], q)[1]), np.sort(call(csr, s)[1]))
                         for q, s in zip(queries, seeds_of[name]))
    medians = {name: [] for name in variants}
    p99s = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, (csr, _new_id, _s) in variants.items():
            lat = []
            for s in seeds_of[name]:
                t = time.perf_counter()
                call(csr, s)
                lat.append(time.perf_counter() - t)
            lat_us = np.array(lat) * 1e6
            medians[name].append(float(np.median(lat_us)))
            p99s[name].append(float(np.percentile(lat_us, 99)))
    base = float(np.median(medians["original"]))
    runs = []
    for name in variants:
        med = float(np.median(medians[name]))
        runs.append({"nodes": n, "order": name, "median_us": round(med, 2),
                     "p99_us": round(float(np.median(p99s[name])), 2), "x_original": round(base / med, 3),
                     "same_top20": same[name], "renumber_s": round(variants[name][2], 2),
                     "pass_medians_us": [round(x, 2) for x in medians[name]]})
        log(f"{n:>9,} {name:9s} median {med:6.1f} us  p99 {runs[-1]['p99_us']:6.1f} us  "
            f"{base / med:4.2f}x original  same top-20: {same[name]}")
    return runs


def write_results(doc: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    lines = ["# Node relabelling for locality: spread_topk (C, depth 2, 10 seeds, top 20)", "",
             f"Command: `{doc['command']}`. Machine: {doc['machine']['cpus']} CPUs, {doc['machine']['platform']}, "
             f"load average {doc['loadavg_at_start']} at start. Median and p99: the medians over "
             f"{doc['repeats']} interleaved passes of {doc['queries']} queries.", "",
             "| nodes | numbering | median µs | p99 µs | speed-up vs original | same top-20 activations | renumbering s |",
             "|---|---|---|---|---|---|---|"]
    for r in doc["runs"]:
        lines.append(f"| {r['nodes']:,} | {r['order']} | {r['median_us']:.1f} | {r['p99_us']:.1f} | "
                     f"{r['x_original']:.2f}x | {'yes' if r['same_top20'] else 'NO'} | {r['renumber_s']} |")
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(RESULTS / "relabel.json"))
    args = ap.parse_args(argv)
    doc = {"benchmark": "spreading activation under node renumberings (locality)",
           "command": " ".join(["python benchmarks/bench_relabel.py",
                                *without_options(list(argv if argv is not None else sys.argv[1:]), ("--out",))]),
           "date": time.strftime("%Y-%m-%d"), "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
           "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
           "queries": args.queries, "repeats": args.repeats, "runs": []}
    for n in args.sizes:
        doc["runs"].extend(bench_size(n, args, print))
    write_results(doc, Path(args.out))
    print(f"wrote {args.out} and {Path(args.out).with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
