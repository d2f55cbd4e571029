"""Salience rescoring pass over N memories: C, Numba (parallel) and the NumPy reference,
against the memory-bandwidth bound measured in the same run.

The kernel is ``rescore_salience(s0, t0, kind, half_life_by_kind, now)``: it reads s0
(float32), t0 (float64) and kind (uint8), 13 bytes per memory, and writes 4 bytes of
salience: 17 bytes per memory. The bound is ``np.copyto`` of a buffer of that many bytes
(17 N; a copy reads and writes it, so it moves twice the kernel's bytes); a second row,
``copy_half``, copies 8.5 N bytes so that its reads + writes equal the kernel's 17 N.
Each implementation is warmed up, then timed ``--repeat`` times; the table gives the
median and p99 in ms and the ratio of each median to the median of the 17 N copy.

    python benchmarks/bench_decay.py [--n 10000000] [--repeat 20]
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

from engramdb.kernels import reference, registry

RESULTS = Path(__file__).resolve().parent / "results"
BYTES_PER_MEMORY = 4 + 8 + 1 + 4  # s0 + t0 + kind read, salience written
DAY_S = 86_400.0
# Half-lives per kind code: working, episodic, semantic, procedural, decision.
HALF_LIFE_S = np.array([3600.0, 14 * DAY_S, 365 * DAY_S, 1e30, 180 * DAY_S], dtype=np.float32)


def _time(fn, repeat: int, warmup: int) -> np.ndarray:
    for _ in range(warmup):
        fn()
    out = np.empty(repeat)
    for i in range(repeat):
        t = time.perf_counter()
        fn()
        out[i] = time.perf_counter() - t
    return out * 1e3


def columns(n: int, seed: int = 0):
    """Synthetic memory columns: salience, last update up to a year back, kind codes."""
    rng = np.random.default_rng(seed)
    now = 1.7e9
    s0 = rng.uniform(0.0, 1.0, n).astype(np.float32)
    t0 = now - rng.uniform(0.0, 365 * DAY_S, n)
    kind = rng.integers(0, HALF_LIFE_S.shape[0], n).astype(np.uint8)
    return s0, t0, kind, now


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="memories (default 10,000,000)")
    ap.add_argument("--repeat", type=int, default=20, help="timed runs per implementation")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    ap.add_argument("--out", default=str(RESULTS / "decay.json"))
    args = ap.parse_args(argv)

    n = args.n
    s0, t0, kind, now = columns(n)
    want = reference.rescore_salience(s0, t0, kind, HALF_LIFE_S, now)
    impls = {}
    for name in ("c", "numba"):
        try:
            k = registry.backend(name).rescore_salience
        except Exception as exc:  # a backend that is not built is reported, not fatal
            print(f"skipping {name}: {exc}", file=sys.stderr)
            continue
        got = k(s0, t0, kind, HALF_LIFE_S, now)  # also compiles Numba before timing
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-37)
        impls[name] = k
    impls["numpy_reference"] = reference.rescore_salience

    nbytes = n * BYTES_PER_MEMORY
    src, dst = np.ones(nbytes, np.uint8), np.empty(nbytes, np.uint8)
    half = nbytes // 2
    rows = [("copy_bandwidth", lambda: np.copyto(dst, src)),
            ("copy_half", lambda: np.copyto(dst[:half], src[:half]))]
    rows += [(name, (lambda k=k: k(s0, t0, kind, HALF_LIFE_S, now))) for name, k in impls.items()]

    times = {name: _time(fn, args.repeat, args.warmup) for name, fn in rows}
    bound = float(np.median(times["copy_bandwidth"]))
    runs = []
    for name, t in times.items():
        med = float(np.median(t))
        runs.append({"n": n, "impl": name, "median_ms": round(med, 3),
                     "p99_ms": round(float(np.percentile(t, 99)), 3),
                     "x_bandwidth": round(med / bound, 3)})

    print(f"rescore_salience over {n:,} memories ({BYTES_PER_MEMORY} bytes each, "
          f"{nbytes / 1e6:.1f} MB); bound = np.copyto of {nbytes / 1e6:.1f} MB")
    print(f"{'impl':<18}{'median ms':>12}{'p99 ms':>12}{'x bandwidth':>14}{'GB/s':>9}")
    for r in runs:
        moved = 2 * nbytes if r["impl"] == "copy_bandwidth" else nbytes
        print(f"{r['impl']:<18}{r['median_ms']:>12.3f}{r['p99_ms']:>12.3f}{r['x_bandwidth']:>14.2f}"
              f"{moved / r['median_ms'] / 1e6:>9.2f}")

    import numba  # versions only, after timing

    doc = {
        "benchmark": "salience rescoring pass (rescore_salience) vs the memory-bandwidth bound",
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "numba": numba.__version__, "numba_threads": numba.get_num_threads(),
                    "cpus": os.cpu_count(), "machine": platform.machine()},
        "command": " ".join(["python", "benchmarks/bench_decay.py", *sys.argv[1:]]),
        "bandwidth_bound": f"np.copyto of {BYTES_PER_MEMORY} bytes per memory "
                           "(reads and writes that many: twice the kernel's traffic); "
                           "copy_half moves the kernel's traffic exactly",
        "runs": runs,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
