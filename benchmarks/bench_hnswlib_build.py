"""hnswlib built for this machine (-march=native, the default of `make setup`) vs the portable build
(`make PORTABLE=1`, HNSWLIB_NO_NATIVE=1), in the same run.

Builds both from the same hnswlib source distribution into two temporary folders (pip, no cache),
then times each in its own subprocess on the same clustered unit vectors: index build
(vectors/s, all cores) and single-query k-NN latency at ef 100 (median and p99 over the queries,
median of several passes). Load average is recorded at the start.

    python benchmarks/bench_hnswlib_build.py [--n 100000] [--dim 384] [--queries 1000] [--passes 3]
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

RESULTS = Path(__file__).resolve().parent / "results"

CHILD = r"""
import json, sys, time
import numpy as np
import hnswlib
n, dim, nq, passes = (int(x) for x in sys.argv[1:5])
rng = np.random.default_rng(7)
centres = rng.normal(size=(64, dim)).astype(np.float32)
data = centres[rng.integers(0, 64, n)] + 0.35 * rng.normal(size=(n, dim)).astype(np.float32)
data /= np.linalg.norm(data, axis=1, keepdims=True)
queries = data[rng.integers(0, n, nq)] + 0.05 * rng.normal(size=(nq, dim)).astype(np.float32)
queries /= np.linalg.norm(queries, axis=1, keepdims=True)
index = hnswlib.Index(space="ip", dim=dim)
index.init_index(max_elements=n, ef_construction=200, M=16)
t = time.perf_counter()
index.add_items(data, np.arange(n))
build_s = time.perf_counter() - t
index.set_ef(100)
index.set_num_threads(1)
medians, p99s = [], []
for _ in range(passes):
    lat = []
    for q in queries:
        t = time.perf_counter()
        index.knn_query(q, k=10)
        lat.append(time.perf_counter() - t)
    lat = np.array(lat) * 1e6
    medians.append(float(np.median(lat)))
    p99s.append(float(np.percentile(lat, 99)))
print(json.dumps({"build_vectors_per_s": n / build_s, "query_median_us": float(np.median(medians)),
                  "query_p99_us": float(np.median(p99s)), "passes_median_us": medians}))
"""


def build(target: str, portable: bool) -> None:
    env = dict(os.environ, PIP_NO_CACHE_DIR="1")
    env.pop("HNSWLIB_NO_NATIVE", None)
    if portable:
        env["HNSWLIB_NO_NATIVE"] = "1"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                    "--no-binary", "hnswlib", "--target", target, "hnswlib>=0.8.0"], check=True, env=env)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--out", default=str(RESULTS / "hnswlib_build.json"))
    args = ap.parse_args(argv)
    load = os.getloadavg()
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, portable in (("native", False), ("portable", True)):
            target = os.path.join(tmp, name)
            t = time.perf_counter()
            build(target, portable)
            print(f"built {name} hnswlib in {time.perf_counter() - t:.0f} s", flush=True)
            env = dict(os.environ, PYTHONPATH=target)
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.n), str(args.dim), str(args.queries),
                                  str(args.passes)], capture_output=True, text=True, check=True, env=env)
            runs[name] = json.loads(out.stdout)
            r = runs[name]
            print(f"{name:9s} build {r['build_vectors_per_s']:,.0f} vectors/s  query median "
                  f"{r['query_median_us']:.0f} us  p99 {r['query_p99_us']:.0f} us", flush=True)
    ratio = runs["portable"]["query_median_us"] / runs["native"]["query_median_us"]
    print(f"native queries are {ratio:.2f}x faster than portable")
    result = {"benchmark": "hnswlib native vs portable build", "load_average_at_start": load,
              "machine": {"python": platform.python_version(), "machine": platform.machine(),
                          "cpus": os.cpu_count()},
              "params": vars(args) | {"out": None, "M": 16, "ef_construction": 200, "ef": 100, "k": 10},
              "runs": runs, "query_speedup_native": round(ratio, 3),
              "command": "python benchmarks/bench_hnswlib_build.py " + " ".join(
                  f"--{k} {v}" for k, v in vars(args).items() if k != "out")}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
