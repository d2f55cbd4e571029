"""Sentence-key rescoring: the ``sentence_lift`` kernel over the engine's arena vs the NumPy path.

Recall lifts the cosine of each memory of its vector pool and keyword leg toward its best
sentence key's (:func:`engramdb.recall.seeds.sentence_cosines`), twice a recall, about 46
memories a call at 100k memories. The keys recall has read are kept in one float32 arena
(:mod:`engramdb.state.key_cache`), which the kernel reads in place. The baseline is the NumPy
path recall ran before the kernel (session 50): each memory's keys a separate array, gathered
into one matrix (``np.concatenate``), one product with the query, the best of each memory's rows
(``np.maximum.reduceat``) and the lift. Both give the same values up to float32 rounding (the
kernel sums in eight interleaved partials; checked on every call, at most 1e-5 apart).

Arena: as full as the cache's bound allows (``KEY_BYTES_CACHED``, 128 MB at 384 dimensions),
memories holding as many keys as LoCoMo's turns do at the default ``StoreConfig.sentence_keys``
(their counts cycled), unit random keys. Each call rescores ``--per-call`` memories drawn at
random from the arena, so their rows are mostly out of cache, as in a recall. Each of
``--repeats`` passes times ``--calls`` calls of every path in turn; the median per call of each
pass is taken, and the median of the passes reported, with the load at start and end.

    python benchmarks/bench_sentence_lift.py [--calls 3000] [--per-call 46] [--repeats 5]
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

from engramdb.kernels import registry
from engramdb.locomo import default_locomo_path, load_locomo
from engramdb.sentences import key_sentences
from engramdb.state.key_cache import KEY_BYTES_CACHED

RESULTS = Path(__file__).resolve().parent / "results"
DIM = 384
WEIGHT = 0.5


def numpy_path(rows: list, nids: np.ndarray, cos: np.ndarray, query: np.ndarray, w: float) -> np.ndarray:
    """The rescoring before the kernel: gather, one product, the best row of each memory."""
    keys = [rows[n] for n in nids.tolist()]
    found = [i for i, k in enumerate(keys) if k is not None]
    if not found:
        return cos
    got = [keys[i] for i in found]
    sims = (np.concatenate(got) if len(got) > 1 else got[0]) @ query
    starts = np.zeros(len(got), np.intp)
    np.cumsum(np.fromiter(map(len, got[:-1]), np.intp, len(got) - 1), out=starts[1:])
    at = np.asarray(found, np.intp)
    lift = np.maximum.reduceat(sims, starts) - cos[at]
    out = np.array(cos, np.float32)
    out[at] += np.float32(w) * np.maximum(lift, np.float32(0.0))
    return out


def key_counts() -> np.ndarray:
    """Keys per LoCoMo turn at the default cap (16), in turn order."""
    counts = [len(key_sentences(t.text, 16)) for conv in load_locomo(default_locomo_path())
              for s in conv.sessions for t in s.turns]
    return np.array(counts, np.int32)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--per-call", type=int, default=46)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    if not default_locomo_path().exists():
        print(f"LoCoMo data not found at {default_locomo_path()}; set ENGRAMDB_LOCOMO", file=sys.stderr)
        return 2
    load_start = os.getloadavg()
    rng = np.random.default_rng(7)
    turns = key_counts()
    cap_rows = KEY_BYTES_CACHED // (4 * DIM)
    reps = -(-cap_rows // max(int(turns.sum()), 1))
    counts = np.tile(turns, reps)
    counts = counts[:int(np.searchsorted(np.cumsum(counts), cap_rows, side="right"))]
    n = len(counts)
    start = np.zeros(n, np.int64)
    np.cumsum(counts[:-1], out=start[1:])
    keys = rng.standard_normal((int(counts.sum()), DIM)).astype(np.float32)
    keys /= np.linalg.norm(keys, axis=1, keepdims=True)
    rows = [keys[s:s + c] if c else None for s, c in zip(start.tolist(), counts.tolist())]
    calls = [rng.choice(n, args.per_call, replace=False).astype(np.int64) for _ in range(args.calls)]
    queries = rng.standard_normal((args.calls, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    cos = rng.uniform(0.0, 0.6, (args.calls, args.per_call)).astype(np.float32)
    paths = {"numpy_gather": lambda i: numpy_path(rows, calls[i], cos[i], queries[i], WEIGHT)}
    for name in ("c", "numba"):
        try:
            kernel = registry.backend(name).sentence_lift
        except Exception as exc:   # a backend not built or not installed: reported, not timed
            print(f"{name}: not available ({exc})", file=sys.stderr)
            continue
        paths[name] = (lambda k: lambda i: k(keys, start, counts, calls[i], cos[i], queries[i], WEIGHT))(kernel)
    worst = 0.0
    for i in range(min(args.calls, 300)):   # the same values (up to float32 rounding)
        want = paths["numpy_gather"](i)
        for name in paths.keys() - {"numpy_gather"}:
            worst = max(worst, float(np.abs(paths[name](i) - want).max()))
    passes: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(args.repeats):
        for name, fn in paths.items():
            ts = []
            for i in range(args.calls):
                t0 = time.perf_counter()
                fn(i)
                ts.append(time.perf_counter() - t0)
            passes[name].append(1e6 * float(np.median(ts)))
    med = {name: round(float(np.median(v)), 2) for name, v in passes.items()}
    doc = {"benchmark": "sentence-key rescoring: sentence_lift kernel over the arena vs the NumPy gather path",
           "command": (f"python benchmarks/bench_sentence_lift.py --calls {args.calls} --per-call {args.per_call} "
                       f"--repeats {args.repeats}"),
           "date": time.strftime("%Y-%m-%d %H:%M"),
           "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
                       "numpy": np.__version__},
           "load_avg_1_5_15_start": [round(x, 2) for x in load_start],
           "arena": {"memories": n, "keys": int(counts.sum()), "dim": DIM, "mb": round(keys.nbytes / 2**20, 1),
                     "memories_with_keys": int((counts > 0).sum()),
                     "keys_per_call_mean": round(float(np.mean([counts[c].sum() for c in calls])), 1)},
           "per_call": args.per_call, "calls": args.calls, "repeats": args.repeats,
           "median_us": med, "median_us_per_pass": {k: [round(x, 2) for x in v] for k, v in passes.items()},
           "x_vs_numpy": {k: round(med["numpy_gather"] / v, 2) for k, v in med.items() if k != "numpy_gather"},
           "max_abs_difference": worst,
           "load_avg_1_5_15_end": [round(x, 2) for x in os.getloadavg()]}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sentence_lift.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(json.dumps(doc, indent=2))
    print("sentence_lift per call (median of passes): " +
          ", ".join(f"{k} {v} us" for k, v in med.items()) +
          "; x vs NumPy: " + ", ".join(f"{k} {v}x" for k, v in doc["x_vs_numpy"].items()) +
          f" (load {load_start[0]:.2f} at start)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
