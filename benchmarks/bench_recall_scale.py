"""Recall from text at 100k and 1M memories: LoCoMo turns grown to size, LoCoMo's questions.

The corpus is generated at run time from the LoCoMo data (../shared, never committed): every
turn of every conversation, then varied copies of them until the store holds ``N`` memories. A
copy renames the two speakers (names drawn from a fixed list), moves the turn by whole days,
and drops or swaps a few words, so copies are near-duplicates, not duplicates (the engine
would reinforce an exact repeat instead of storing it). All memories live in one namespace,
stored with ``add_batch`` in chunks (hashing embedder), each turn linked ``next`` to the one
before it in its conversation copy.

For each size it measures, in one run and process:

1. **recall from text** (``recall(question)``: hashing query embedding, vector and keyword
   legs, fusion, spreading activation, ranking, records): median and p99; and the same with
   ``RecallConfig.parallel_legs`` off (the keyword leg after hnswlib instead of beside it on a
   worker thread), the baseline of :mod:`engramdb.recall.legs`;
2. **recall with the vector given** (``recall(vector=...)``) against hnswlib alone on the
   same index (``knn`` at the same *ef*), which is the baseline: the difference of the medians
   is engramdb's own part;
3. **the stages** of a recall from text, each timed alone on the same queries: query
   embedding, keyword leg, hnswlib; and inside 1 and 2, the median of each recall stage as
   the recall itself reports it (``RecallResult.stats["stage_s"]``: prepare, seeds,
   activation, ranking, results, widen), the per-stage profile of where the time goes;
4. **cold open + first recall**: a fresh process imports engramdb and its engine module
   (engramdb imports it lazily, on first use), then opens the store and runs one recall from
   text; the time from ``open`` to the result (import apart), median of
   ``--cold-runs`` processes (the OS page cache is warm: the store was just written);
5. **concurrent readers**: queries per second with 1 and with 2 threads sharing one engine
   (``--threads``), the ratio.

Machines are shared: the load average is recorded at start, and each timing is the median
over ``--repeats`` passes of the query set (each pass: median over the queries).

    python benchmarks/bench_recall_scale.py [--sizes 100000 1000000] [--queries 300]
        [--repeats 3] [--cold-runs 5] [--cache DIR] [--cold-only]

``--cache DIR`` keeps the generated stores there between runs (rebuilt when missing).
``--cold-only`` runs stage 4 alone (cold open + first recall), for profiling the open.
Writes benchmarks/results/recall_scale.json: a run replaces the rows of the sizes it measured
and keeps the others; each row carries its date, load at start and command.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import engramdb
from engramdb.locomo import load_locomo
from engramdb.testing import vector_index

RESULTS = Path(__file__).resolve().parent / "results"
NAMES = ("Avery Jordan Riley Morgan Quinn Harper Rowan Sage Emerson Finley Hayden Jamie Kendall Logan "
         "Parker Reese Skyler Taylor Alex Blake Cameron Dakota Elliot Frankie Jesse Kai Lane Micah Nico "
         "Oakley Peyton Remy Shiloh Tatum Wren Zion Ari Bellamy Charlie Devon").split()
NS = "scale"
DAY = 86400.0


def varied(text: str, pat: re.Pattern, sub: dict[str, str], rng: np.random.Generator) -> str:
    """``text`` of a copy: the speakers renamed (``pat`` matches their names, ``sub`` maps
    them) and, past four words, one word dropped or swapped with the next."""
    words = pat.sub(lambda m: sub[m.group(1)], text).split()
    if len(words) > 4:
        i = int(rng.integers(0, len(words) - 1))
        if rng.random() < 0.5:
            words[i], words[i + 1] = words[i + 1], words[i]
        else:
            del words[i]
    return " ".join(words)


def corpus(n: int, seed: int = 7):
    """``n`` memory mappings: LoCoMo's turns, then varied copies (see the module docstring)."""
    convs = load_locomo()
    rng = np.random.default_rng(seed)
    out: list[dict] = []
    copy = 0
    while len(out) < n:
        for conv in convs:
            a, b = conv.speakers
            if copy:
                na, nb = rng.choice(NAMES, 2, replace=False)
                shift = float(rng.integers(1, 3650)) * DAY
                pat = re.compile(r"\b(" + re.escape(a) + "|" + re.escape(b) + r")\b")
                sub = {a: str(na), b: str(nb)}
            prev = None
            for t in conv.turns():
                text = t.text
                speaker = t.speaker
                at = t.created_at
                if copy:
                    text = varied(text, pat, sub, rng)
                    speaker = sub.get(speaker, speaker)
                    at += shift
                mid = f"c{copy}-{conv.sample_id}-{t.dia_id}"
                item = {"id": mid, "text": f"{speaker}: {text}", "created_at": at, "source": conv.sample_id}
                if prev is not None:
                    item["links"] = [{"to": prev, "relation": "next"}]
                out.append(item)
                prev = mid
                if len(out) >= n:
                    return out
        copy += 1
    return out


def questions(limit: int, seed: int = 11) -> list[str]:
    qs = [q.question for conv in load_locomo() for q in conv.qa if q.question]
    rng = np.random.default_rng(seed)
    return [qs[i] for i in rng.permutation(len(qs))[:limit]]


def build(path: str, n: int, ef_construction: int = 200) -> float:
    """Write a store of ``n`` memories at ``path`` (hnswlib built at ``ef_construction``);
    returns memories per second."""
    items = corpus(n)
    t0 = time.perf_counter()
    config = engramdb.EngramConfig(index=engramdb.IndexConfig(ef_construction=ef_construction))
    with engramdb.open(path, embedder="hashing", config=config) as db:
        for i in range(0, n, 10_000):
            db.add_batch(items[i:i + 10_000], namespace=NS)
            print(f"  built {min(i + 10_000, n):,} / {n:,}", file=sys.stderr, flush=True)
    return n / (time.perf_counter() - t0)


def per_query(fn, args, repeats: int) -> tuple[float, float, list[float]]:
    """(median of per-pass medians, median of per-pass p99s) in microseconds."""
    med, p99, meds, _ = per_query_stages(fn, args, repeats)
    return med, p99, meds


def per_query_stages(fn, args, repeats: int) -> tuple[float, float, list[float], dict[str, float]]:
    """:func:`per_query`, plus the median microseconds of each recall stage over every call
    (``RecallResult.stats["stage_s"]``; empty when ``fn`` returns no recall result)."""
    meds, p99s = [], []
    stages: dict[str, list[float]] = {}
    for _ in range(repeats):
        ts = []
        for a in args:
            t0 = time.perf_counter()
            res = fn(a)
            ts.append((time.perf_counter() - t0) * 1e6)
            for name, sec in (getattr(res, "stats", None) or {}).get("stage_s", {}).items():
                stages.setdefault(name, []).append(sec * 1e6)
        meds.append(float(np.median(ts)))
        p99s.append(float(np.percentile(ts, 99)))
    return (statistics.median(meds), statistics.median(p99s), meds,
            {name: round(float(np.median(v)), 1) for name, v in stages.items()})


COLD = r"""
import sys, time
import engramdb
import engramdb.engine   # the import apart: engramdb loads its engine lazily, on first use
t0 = time.perf_counter()
db = engramdb.open(sys.argv[1], embedder="hashing")
r = db.recall(sys.argv[2], namespace=sys.argv[3], k=10)
t1 = time.perf_counter()
assert len(r.hits) > 0
print((t1 - t0) * 1e3)
db.close()
"""


def cold_open(path: str, question: str, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        res = subprocess.run([sys.executable, "-c", COLD, path, question, NS], capture_output=True, text=True,
                             check=True)
        out.append(float(res.stdout.strip().splitlines()[-1]))
    return out


def throughput(db, qs: list[str], threads: int, seconds: float = 4.0) -> float:
    """Recalls per second from ``threads`` threads sharing ``db`` (each loops over ``qs``)."""
    done = [0] * threads
    stop = time.perf_counter() + seconds
    barrier = threading.Barrier(threads)

    def work(i: int) -> None:
        barrier.wait()
        j = i
        while time.perf_counter() < stop:
            db.recall(qs[j % len(qs)], namespace=NS, k=10)
            j += threads
            done[i] += 1

    t0 = time.perf_counter()
    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(done) / (time.perf_counter() - t0)


def measure(path: str, n: int, args) -> dict:
    qs = questions(args.queries)
    row: dict = {"memories": n}
    if args.cold_only:
        load = os.getloadavg()
        cold = cold_open(path, qs[0], args.cold_runs)
        row["cold_open_first_recall_ms"] = {"median": statistics.median(cold), "runs": cold, "load_at_start": load}
        return row
    with engramdb.open(path, embedder="hashing") as db:
        emb = db.embedder
        vecs = emb.embed(qs)
        for q in qs[:50]:   # warm-up: kernels compiled, pages touched
            db.recall(q, namespace=NS, k=10)
        index = vector_index(db, NS)
        seed_k = max(db.config.recall.seed_k, 10)

        med, p99, meds, st = per_query_stages(lambda q: db.recall(q, namespace=NS, k=10), qs, args.repeats)
        row["recall_text"] = {"median_us": med, "p99_us": p99, "pass_medians_us": meds, "stage_median_us": st}
        serial = replace(db.config.recall, parallel_legs=False)   # the legs one after the other
        med, p99, meds, st = per_query_stages(lambda q: db.recall(q, namespace=NS, k=10, config=serial), qs,
                                              args.repeats)
        row["recall_text_serial_legs"] = {"median_us": med, "p99_us": p99, "pass_medians_us": meds,
                                          "stage_median_us": st}
        med, p99, meds, st = per_query_stages(lambda v: db.recall(vector=v, namespace=NS, k=10), vecs, args.repeats)
        row["recall_vector"] = {"median_us": med, "p99_us": p99, "pass_medians_us": meds, "stage_median_us": st}
        med, p99, meds = per_query(lambda v: index.knn(v, seed_k), vecs, args.repeats)
        row["hnswlib_knn"] = {"median_us": med, "p99_us": p99, "pass_medians_us": meds, "k": seed_k}
        med, p99, _ = per_query(lambda q: emb.embed([q]), qs, args.repeats)
        row["stage_query_embedding"] = {"median_us": med, "p99_us": p99}
        from engramdb.testing import keyword_search
        med, p99, _ = per_query(lambda q: keyword_search(db, NS, q, k=db.config.recall.prf_docs, feedback=db.config.recall), qs, args.repeats)
        row["stage_keyword"] = {"median_us": med, "p99_us": p99}
        row["own_part_vector_us"] = row["recall_vector"]["median_us"] - row["hnswlib_knn"]["median_us"]
        row["x_hnswlib_vector"] = row["recall_vector"]["median_us"] / row["hnswlib_knn"]["median_us"]
        if args.threads:
            one = statistics.median(throughput(db, qs, 1) for _ in range(args.repeats))
            two = statistics.median(throughput(db, qs, 2) for _ in range(args.repeats))
            row["threads"] = {"qps_1": one, "qps_2": two, "speedup_2": two / one}
    if args.cold_runs:
        cold = cold_open(path, qs[0], args.cold_runs)
        row["cold_open_first_recall_ms"] = {"median": statistics.median(cold), "runs": cold}
    return row


def _public_args(argv: list[str]) -> list[str]:
    """The command line with the cache folder (a path of this machine) written as DIR."""
    out, hide = [], False
    for a in argv:
        out.append("DIR" if hide else a)
        hide = a == "--cache"
    return [("--cache=DIR" if a.startswith("--cache=") else a) for a in out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--threads", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--cache", help="keep generated stores in this folder between runs")
    ap.add_argument("--cold-only", action="store_true",
                    help="measure only the cold open + first recall (stage 4) of each size")
    ap.add_argument("--ef-construction", type=int, default=200,
                    help="hnswlib efConstruction when a store is built (a lower one builds 1M faster)")
    ap.add_argument("--out", default=str(RESULTS / "recall_scale.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    root = args.cache or tempfile.mkdtemp(prefix="engramdb-scale-")
    rows = []
    try:
        for n in args.sizes:
            path = os.path.join(root, f"locomo-{n}")
            built = None
            if not os.path.exists(path):
                print(f"building {n:,} memories ...", file=sys.stderr)
                built = build(path, n, args.ef_construction)
            row = measure(path, n, args)
            row["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
            row["load_at_start"] = [round(x, 2) for x in load]
            row["command"] = "python benchmarks/bench_recall_scale.py " + " ".join(_public_args(sys.argv[1:]))
            if built is not None:
                row["build_memories_per_s"] = built
                row["ef_construction"] = args.ef_construction
            rows.append(row)
            print(json.dumps(row, indent=1))
    finally:
        if not args.cache:
            shutil.rmtree(root, ignore_errors=True)
    out = {
        "machine": {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
                    "cpus": os.cpu_count(), "engramdb": engramdb.__version__},
        "load_at_start": load, "load_at_end": os.getloadavg(),
        "command": "python benchmarks/bench_recall_scale.py " + " ".join(_public_args(sys.argv[1:])),
        "date": time.strftime("%Y-%m-%d"),
        "targets": {"recall_text_median_us": {"100000": 1000, "1000000": 2000}, "recall_text_p99_us_100k": 3000,
                    "recall_vector_median_us_100k": 400, "own_part_us": 100,
                    "cold_open_ms": {"100000": 150, "1000000": 600}, "threads_speedup_2": 1.7},
        "runs": _merged(Path(args.out), rows),
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


def _merged(out: Path, rows: list[dict]) -> list[dict]:
    """``rows`` plus the earlier file's rows of the sizes this run did not measure (each row
    keeps its own date, load and command), by size."""
    sizes = {r["memories"] for r in rows}
    doc = json.loads(out.read_text()) if out.exists() else {}
    kept = []
    for r in doc.get("runs", []):
        if r.get("memories") not in sizes:   # a row of a file written before rows carried these
            kept.append({"date": doc.get("date"), "load_at_start": doc.get("load_at_start"),
                         "command": doc.get("command"), **r})
    return sorted(rows + kept, key=lambda r: r["memories"])


if __name__ == "__main__":
    main()
