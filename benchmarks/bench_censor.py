"""Recall latency with 0 vs 10 censor rules, on the same LoCoMo store in the same run.

The store holds the 10 LoCoMo conversations (one namespace each, hashing embedder). The
questions of each conversation are recalled in its namespace (text query, k=10, no
reinforcement) in passes that alternate between the two conditions on the same engine:

- ``0 rules``: no censor rule (the engine's plain path);
- ``10 rules``: 8 ``block`` pattern rules on words that LoCoMo turns use (they hide a share of
  the memories, reported) and 2 ``warn`` rules, so every recall pays for the blocked-seed check,
  the censored recall graph, the filter mask and the warn notes of its hits.

Each pass times every question (perf_counter); a pass's figure is the median per question, and
each condition reports the median over its passes (and the p95 of the pooled per-question
times). The one-off costs are reported beside: adding a rule (it is evaluated on every record)
and opening the store with and without the rules (all of them evaluated on every record).

    python benchmarks/bench_censor.py [--passes 5] [--questions 30] [--out benchmarks/results/censor.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import engramdb
from engramdb.ingest import ingest_locomo
from engramdb.locomo import default_locomo_path, load_locomo

RESULTS = Path(__file__).resolve().parent / "results"

BLOCK_PATTERNS = [r"\bpaint", r"\bcamping\b", r"\badopt", r"\bpottery\b", r"\bguitar\b", r"\bdogs?\b",
                  r"\bsupport group\b", r"\bmarathon\b"]
WARN_PATTERNS = [r"\bschool\b", r"\bbooks?\b"]


def add_rules(eng) -> list[str]:
    ids = []
    for i, p in enumerate(BLOCK_PATTERNS):
        ids.append(eng.censor(pattern=p, action="block", reason=f"bench block {i}", id=f"b{i}").id)
    for i, p in enumerate(WARN_PATTERNS):
        ids.append(eng.censor(pattern=p, action="warn", reason=f"bench warn {i}", id=f"w{i}").id)
    return ids


def one_pass(eng, questions) -> list[float]:
    out = []
    for ns, q in questions:
        t = time.perf_counter()
        eng.recall(q, namespace=ns, k=10, reinforce=False)
        out.append(time.perf_counter() - t)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=5, help="Passes per condition.")
    ap.add_argument("--questions", type=int, default=30, help="Questions per conversation.")
    ap.add_argument("--data", default=None, help="locomo10.json (default: the shared data set).")
    ap.add_argument("--out", default=str(RESULTS / "censor.json"))
    args = ap.parse_args(argv)
    load_start = os.getloadavg()
    data = args.data or str(default_locomo_path())
    convs = load_locomo(data)
    questions = [(c.sample_id, qa.question) for c in convs for qa in c.qa[: args.questions]]
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        t = time.perf_counter()
        with engramdb.open(store, embedder="hashing") as eng:
            ingest_locomo(eng, data, progress=False)
        build_s = time.perf_counter() - t

        open_s = {}
        t = time.perf_counter()
        eng = engramdb.open(store)
        open_s["0 rules"] = time.perf_counter() - t
        try:
            n_mem = eng.stats()["memories"]
            one_pass(eng, questions[:50])                         # warm-up: caches, kernels
            add_s = []
            runs: dict[str, list[float]] = {"0 rules": [], "10 rules": []}
            pooled: dict[str, list[float]] = {"0 rules": [], "10 rules": []}
            hidden = None
            for p in range(args.passes):
                order = ["0 rules", "10 rules"] if p % 2 == 0 else ["10 rules", "0 rules"]
                for cond in order:
                    if cond == "10 rules":
                        t = time.perf_counter()
                        ids = add_rules(eng)
                        add_s.append((time.perf_counter() - t) / len(ids))
                        if hidden is None:
                            visible = sum(len(eng.query(namespace=ns, limit=100_000, include_archived=True,
                                                        include_superseded=True)) for ns in eng.namespaces())
                            hidden = n_mem - visible
                    times = one_pass(eng, questions)
                    runs[cond].append(statistics.median(times))
                    pooled[cond].extend(times)
                    if cond == "10 rules":
                        for rid in ids:
                            eng.remove_censor(rid)
            add_rules(eng)
        finally:
            eng.close()
        t = time.perf_counter()
        with engramdb.open(store):
            open_s["10 rules"] = time.perf_counter() - t
    med = {c: statistics.median(v) for c, v in runs.items()}
    p95 = {c: float(np.percentile(v, 95)) for c, v in pooled.items()}
    ratio = med["10 rules"] / med["0 rules"]
    load_end = os.getloadavg()
    print(f"load average at start {load_start[0]:.2f}, at end {load_end[0]:.2f}; {n_mem} memories, "
          f"{len(questions)} questions x {args.passes} passes per condition")
    for c in runs:
        print(f"{c:<9} median {med[c] * 1e6:8.0f} us/recall  (passes: "
              + ", ".join(f"{x * 1e6:.0f}" for x in runs[c]) + f")  p95 {p95[c] * 1e6:.0f} us")
    print(f"ratio 10 rules / 0 rules: {ratio:.3f}x; the 8 block rules hide {hidden} of {n_mem} memories")
    print(f"adding a rule (evaluates it on every record): {statistics.median(add_s) * 1e3:.1f} ms median; "
          f"open {open_s['0 rules'] * 1e3:.0f} ms without rules, {open_s['10 rules'] * 1e3:.0f} ms with 10")
    import lmdb

    doc = {
        "benchmark": "recall latency with 0 vs 10 censor rules (same store, same run, alternating passes)",
        "command": " ".join(["python", "benchmarks/bench_censor.py", *sys.argv[1:]]),
        "machine": {"python": platform.python_version(), "numpy": np.__version__, "lmdb": lmdb.__version__,
                    "cpus": os.cpu_count(), "machine": platform.machine(),
                    "loadavg_start": [round(x, 2) for x in load_start],
                    "loadavg_end": [round(x, 2) for x in load_end]},
        "store": {"memories": n_mem, "hidden_by_block_rules": hidden, "embedder": "hashing",
                  "build_seconds": round(build_s, 1)},
        "questions": len(questions), "passes": args.passes,
        "recall_median_us": {c: round(v * 1e6, 1) for c, v in med.items()},
        "recall_pass_medians_us": {c: [round(x * 1e6, 1) for x in v] for c, v in runs.items()},
        "recall_p95_us": {c: round(v * 1e6, 1) for c, v in p95.items()},
        "ratio_10_rules_over_0": round(ratio, 4),
        "add_rule_ms_median": round(statistics.median(add_s) * 1e3, 2),
        "open_ms": {c: round(v * 1e3, 1) for c, v in open_s.items()},
        "rules": {"block": BLOCK_PATTERNS, "warn": WARN_PATTERNS},
    }
    dest = Path(args.out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
