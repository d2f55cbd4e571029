"""Cost of the audit ledger per write, and how verify_ledger scales.

Every committed write unit appends one hash-chained ledger entry in its own transaction: it
hashes what the unit wrote (records, vectors, edges; ``Digest.fold``), groups the ids it
touched, and puts the entry and the head (``WriteUnit._append_ledger``). Rows, each on a fresh
store per repeat, median over ``--repeats`` (the modes interleaved, their order alternating):

- ``on``: the engine as it is;
- ``off``: the baseline in the same process: ``_append_ledger`` and ``Digest.fold`` replaced by
  no-ops (what the write costs without the ledger; the old code path otherwise);
- ``profiled``: the engine with ``_append_ledger`` and ``Digest.fold`` timed
  (``time.perf_counter`` around each call): the ledger's own share of the write's time.

for ``add`` (one memory per call, ``--adds`` calls) and ``add_batch`` (``--batch`` memories per
call, ``--batches`` calls), with ``sync`` on (fsync per commit, the default) and off. Vectors
are given (random unit vectors, ``--dim``), so no embedding time is counted; auto-linking is on
(the default). Then ``verify_ledger`` on ledgers of ``--verify-sizes`` entries (one ``add``
each), median of 5: entries per second.

    python benchmarks/bench_ledger.py [--dim 384] [--adds 300] [--batch 1000] [--batches 3]
                                      [--repeats 5] [--verify-sizes 1000,4000,16000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import engramdb
from engramdb.store import ledger as _ledger
from engramdb.write import unit as _unit

RESULTS = Path(__file__).resolve().parent / "results"


def unit_vectors(rng, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


class Mode:
    """Installs one way of running the ledger (on / off / profiled) and restores the engine."""

    def __init__(self, name: str):
        self.name = name
        self.ledger_s = 0.0
        self._saved = (_unit.WriteUnit._append_ledger, _ledger.Digest.fold)

    def __enter__(self):
        append, fold = self._saved
        if self.name == "off":
            _unit.WriteUnit._append_ledger = lambda unit: None
            _ledger.Digest.fold = lambda d, tag, *fields: None
        elif self.name == "profiled":
            def timed_append(unit):
                t = time.perf_counter()
                append(unit)
                self.ledger_s += time.perf_counter() - t

            def timed_fold(d, tag, *fields):
                t = time.perf_counter()
                fold(d, tag, *fields)
                self.ledger_s += time.perf_counter() - t
            _unit.WriteUnit._append_ledger = timed_append
            _ledger.Digest.fold = timed_fold
        return self

    def __exit__(self, *exc):
        _unit.WriteUnit._append_ledger, _ledger.Digest.fold = self._saved


def run_writes(root: Path, mode: str, verb: str, args, sync: bool, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    path = root / f"{mode}-{verb}-{sync}-{seed}"
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(sync=sync))
    with Mode(mode) as m, engramdb.open(path, dim=args.dim, embedder="hashing", config=cfg) as eng:
        calls, per_call = (args.adds, 1) if verb == "add" else (args.batches, args.batch)
        vecs = unit_vectors(rng, calls * per_call, args.dim)
        times = []
        t_all = time.perf_counter()
        for c in range(calls):
            t = time.perf_counter()
            if verb == "add":
                eng.add(f"memory {c} on topic {c % 17}", embedding=vecs[c])
            else:
                base = c * per_call
                eng.add_batch([{"text": f"memory {base + i} on topic {i % 17}", "embedding": vecs[base + i]}
                               for i in range(per_call)])
            times.append(time.perf_counter() - t)
        total = time.perf_counter() - t_all
        entries = len(eng.ledger()) if mode != "off" else None
    shutil.rmtree(path)
    return {"per_call_s": statistics.median(times), "total_s": total, "ledger_s": m.ledger_s,
            "memories": calls * per_call, "calls": calls, "entries": entries}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--adds", type=int, default=300)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--verify-sizes", default="1000,4000,16000")
    ap.add_argument("--out", default=str(RESULTS / "ledger.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min), {os.cpu_count()} cpus")
    root = Path(tempfile.mkdtemp(prefix="bench_ledger_"))
    rows = []
    try:
        for verb in ("add", "add_batch"):
            for sync in (True, False):
                got: dict[str, list[dict]] = {"on": [], "off": [], "profiled": []}
                for r in range(args.repeats):
                    order = ["on", "off", "profiled"] if r % 2 == 0 else ["profiled", "off", "on"]
                    for mode in order:
                        got[mode].append(run_writes(root, mode, verb, args, sync, 100 * r))
                on = statistics.median(x["per_call_s"] for x in got["on"])
                off = statistics.median(x["per_call_s"] for x in got["off"])
                share = statistics.median(x["ledger_s"] / x["total_s"] for x in got["profiled"])
                per_entry = statistics.median(x["ledger_s"] / x["calls"] for x in got["profiled"])
                per_memory = statistics.median(x["ledger_s"] / x["memories"] for x in got["profiled"])
                row = {"verb": verb, "sync": sync, "memories_per_call": 1 if verb == "add" else args.batch,
                       "per_call_s_on": on, "per_call_s_off": off, "ratio_on_over_off": on / off,
                       "ledger_share_profiled": share, "ledger_s_per_entry": per_entry,
                       "ledger_s_per_memory": per_memory, "repeats": args.repeats,
                       "entries_per_run": got["on"][0]["entries"]}
                rows.append(row)
                print(f"{verb:<10} sync={str(sync):<5} per call: on {on * 1e3:8.3f} ms, off {off * 1e3:8.3f} ms, "
                      f"on/off {on / off:5.3f}; ledger share (profiled) {share * 100:5.2f}%, "
                      f"{per_entry * 1e6:8.1f} us/entry, {per_memory * 1e6:6.2f} us/memory")

        verify_rows = []
        sizes = sorted(int(s) for s in args.verify_sizes.split(","))
        rng = np.random.default_rng(7)
        path = root / "verify"
        cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(sync=False),
                                    link=engramdb.LinkConfig(auto_link=False, detect_conflicts=False))
        with engramdb.open(path, dim=args.dim, embedder="hashing", config=cfg) as eng:
            done = 1   # the genesis entry
            for size in sizes:
                vecs = unit_vectors(rng, size - done, args.dim)
                for i in range(size - done):
                    eng.add(f"memory {done + i}", embedding=vecs[i])
                done = size
                times, reads = [], []
                for _ in range(5):
                    rep = eng.verify_ledger()
                    assert rep.ok and rep.entries == size, rep
                    times.append(rep.seconds)
                    t = time.perf_counter()
                    n = len(eng.ledger())
                    reads.append(time.perf_counter() - t)
                    assert n == size
                med = statistics.median(times)
                verify_rows.append({"entries": size, "verify_s": med, "entries_per_s": size / med,
                                    "ledger_read_s": statistics.median(reads)})
                print(f"verify_ledger {size:>7,} entries: {med * 1e3:8.1f} ms = {size / med:,.0f} entries/s; "
                      f"ledger() read {statistics.median(reads) * 1e3:8.1f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)

    import lmdb

    doc = {
        "benchmark": "audit ledger: cost per write (on / off / profiled) and verify_ledger speed",
        "machine": {"python": platform.python_version(), "lmdb": lmdb.__version__, "cpus": os.cpu_count(),
                    "machine": platform.machine()},
        "load_average_at_start": list(load),
        "command": " ".join(["python", "benchmarks/bench_ledger.py", *sys.argv[1:]]),
        "settings": {"dim": args.dim, "adds": args.adds, "batch": args.batch, "batches": args.batches,
                     "repeats": args.repeats},
        "writes": rows,
        "verify": verify_rows,
    }
    dest = Path(args.out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
