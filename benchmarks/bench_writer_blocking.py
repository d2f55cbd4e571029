"""How long a writer blocks readers: recall latency while another thread stores memories.

A writing verb holds the engine's lock in update mode (beside readers) while it validates and
embeds, and takes it for writing only inside its write units (transaction, index insertions,
cache changes). The baseline, in the same run, is the engine as it was before: the writing verb
holds the lock alone from start to end (``EXCLUSIVE_VERBS`` extended on the instance).

Store: ``--stored`` LoCoMo turns in one namespace (read from ../shared at run time), MiniLM embeddings
(the default embedder; embedding is what a writer spends most of its time on). A writer thread
stores further turns with ``add_batch`` (``--batch`` texts a call, embedded by MiniLM inside the
verb) while a reader thread recalls LoCoMo questions with their query vector given (computed
before the run, so the reader itself never embeds). Reported per mode: reader latency median,
p99 and max, recalls per second, and writer memories per second; medians of ``--repeats`` runs
of ``--seconds`` each; also the reader alone. Load average at the start is recorded.

    python benchmarks/bench_writer_blocking.py [--seconds 6] [--repeats 3] [--batch 32] [--stored 2000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import engramdb
from engramdb.embed import get_embedder
from engramdb.locomo import load_locomo

RESULTS = Path(__file__).resolve().parent / "results"
NS = "chat"


def run_mode(db, qvecs, new_items, seconds: float, batch: int, exclusive: bool | None) -> dict:
    """Reader latencies while a writer adds ``new_items`` in batches (no writer when exclusive is None)."""
    base = type(db).EXCLUSIVE_VERBS
    db.EXCLUSIVE_VERBS = base | {"add_batch"} if exclusive else base
    stop = threading.Event()
    lat: list[float] = []
    written = [0]

    def reader():
        i = 0
        while not stop.is_set():
            t = time.perf_counter()
            db.recall(vector=qvecs[i % len(qvecs)], namespace=NS, k=10, reinforce=False)
            lat.append(time.perf_counter() - t)
            i += 1

    def writer():
        pos = 0
        while not stop.is_set() and pos < len(new_items):
            db.add_batch(new_items[pos:pos + batch], namespace=NS)
            written[0] += len(new_items[pos:pos + batch])
            pos += batch

    threads = [threading.Thread(target=reader)]
    if exclusive is not None:
        threads.append(threading.Thread(target=writer))
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    db.EXCLUSIVE_VERBS = base
    ms = np.array(lat) * 1e3
    return {"recall_median_ms": float(np.median(ms)), "recall_p99_ms": float(np.percentile(ms, 99)),
            "recall_max_ms": float(ms.max()), "recalls_per_s": len(ms) / wall,
            "writer_memories_per_s": written[0] / wall, "written": written[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--stored", type=int, default=2000, help="LoCoMo turns stored before the runs")
    ap.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm")
    ap.add_argument("--out", default=str(RESULTS / "writer_blocking.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    convs = load_locomo()
    turns = [f"{t.speaker}: {t.text}" for c in convs for t in c.turns()]
    questions = [q.question for c in convs for q in c.qa if q.question][:300]
    emb = get_embedder(args.embedder)
    qvecs = emb.embed(questions)
    stored = min(args.stored, len(turns) // 2)
    rows: dict[str, list[dict]] = {"reader_alone": [], "exclusive_writer": [], "update_mode_writer": []}
    with tempfile.TemporaryDirectory(prefix="engramdb-wb-") as tmp:
        with engramdb.open(os.path.join(tmp, "s"), dim=emb.dim, embedder=emb) as db:
            db.add_batch([{"id": f"t{i}", "text": t} for i, t in enumerate(turns[:stored])], namespace=NS)
            for rep in range(args.repeats):
                for mode, excl in (("exclusive_writer", True), ("update_mode_writer", False), ("reader_alone", None)):
                    new = [{"id": f"{mode}-{rep}-{i}", "text": t} for i, t in enumerate(turns[stored:])]
                    rows[mode].append(run_mode(db, qvecs, new, args.seconds, args.batch, excl))
                    print(mode, rep, {k: round(v, 2) for k, v in rows[mode][-1].items()}, flush=True)
    summary = {mode: {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}
               for mode, runs in rows.items()}
    ex, up = summary["exclusive_writer"], summary["update_mode_writer"]
    ratios = {"p99_exclusive_over_update": round(ex["recall_p99_ms"] / up["recall_p99_ms"], 2),
              "max_exclusive_over_update": round(ex["recall_max_ms"] / up["recall_max_ms"], 2),
              "recalls_per_s_update_over_exclusive": round(up["recalls_per_s"] / ex["recalls_per_s"], 2),
              "writer_update_over_exclusive": round(up["writer_memories_per_s"] / max(ex["writer_memories_per_s"], 1e-9), 2)}
    out = {"benchmark": __doc__.splitlines()[0], "load_at_start": [round(x, 2) for x in load],
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()},
           "embedder": emb.name, "stored_before": stored, "batch": args.batch, "seconds": args.seconds,
           "command": "python benchmarks/bench_writer_blocking.py " + " ".join(sys.argv[1:]),
           "median_of_runs": summary, "ratios": ratios, "runs": rows}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    for mode, r in summary.items():
        print(f"{mode:20s} recall median {r['recall_median_ms']:.2f} ms  p99 {r['recall_p99_ms']:.2f} ms  "
              f"max {r['recall_max_ms']:.1f} ms  {r['recalls_per_s']:.0f} recalls/s  "
              f"writer {r['writer_memories_per_s']:.0f} memories/s")
    print("ratios:", ratios, " load at start:", out["load_at_start"])


if __name__ == "__main__":
    main()
