"""Import and start-up time: ``import engramdb``, ``engramdb --help`` and the first recall, each
in fresh processes, with the baselines in the same run.

Every figure is the median over ``--runs`` fresh interpreters (after one untimed run that
writes the bytecode caches):

- ``import engramdb``: the import alone (``time.perf_counter`` around it inside the process)
  and the whole process (``python -c "import engramdb"``, wall time).
- ``engramdb --help``: wall time of the installed script (and of ``python -m engramdb``).
- baselines: an empty interpreter (``python -c pass``), ``import numpy`` alone, and
  ``import sklearn.feature_extraction.text``: the cost that the keyword index's stop-word
  list used to add to every import.
- ``import engramdb.engine``: what the first ``engramdb.open`` loads, and the first use
  (import + open of a 12-memory store + one recall by text) split into its parts.

It also records ``python -X importtime`` (the 15 largest cumulative entries) for
``import engramdb`` and for the first use, the engine's direct imports with their cumulative
cost, and ``os.getloadavg()`` at start and end: this machine may be shared, and a load above
the core count inflates every figure.

The child processes run with bytecode caches on, as on a user's machine: an inherited
``PYTHONDONTWRITEBYTECODE`` is removed from their environment (without caches every module of
engramdb is compiled from source at each start; the engine alone took ~40 ms to compile).

    python benchmarks/bench_import.py [--runs 10]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
PY = sys.executable
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

TIMED_IMPORT = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
FIRST_USE = """
import sys, time
t0 = time.perf_counter(); import engramdb; t1 = time.perf_counter()
eng = engramdb.open(sys.argv[1], readonly=True); t2 = time.perf_counter()
res = eng.recall("What is the status of my TAP flight to Lisbon?", namespace="demo", k=5)
t3 = time.perf_counter()
assert res.hits
print(t1 - t0, t2 - t1, t3 - t2)
"""


def _script() -> list[str]:
    """The installed ``engramdb`` console script beside this interpreter, else ``-m``."""
    path = Path(PY).parent / "engramdb"
    return [str(path)] if path.exists() else [PY, "-m", "engramdb"]


def _run(cmd: list[str]) -> tuple[float, str]:
    """Wall seconds of one process, and its stdout."""
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=ENV)
    return time.perf_counter() - t, out.stdout


def _median_ms(samples: list[float]) -> dict:
    ms = [s * 1e3 for s in samples]
    return {"median_ms": round(statistics.median(ms), 1), "min_ms": round(min(ms), 1),
            "max_ms": round(max(ms), 1), "runs": len(ms)}


def wall(cmd: list[str], runs: int) -> dict:
    _run(cmd)   # untimed: bytecode caches
    return _median_ms([_run(cmd)[0] for _ in range(runs)])


def in_process(module: str, runs: int) -> dict:
    cmd = [PY, "-c", TIMED_IMPORT.format(module=module)]
    _run(cmd)
    return _median_ms([float(_run(cmd)[1].split()[-1]) for _ in range(runs)])


def importtime(code: list[str], top: int = 15) -> tuple[list[dict], list[tuple[int, str, float, float]]]:
    """``-X importtime`` of ``python -c code...``: the ``top`` largest cumulative entries, and
    every entry as (depth, module, cumulative ms, own ms) in the order printed."""
    err = subprocess.run([PY, "-X", "importtime", "-c", *code], capture_output=True, text=True,
                         check=True, env=ENV).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, self_us, cum_us, name = (part.strip() for part in line.replace("import time:", "|", 1).split("|"))
        if not self_us.isdigit():
            continue   # the header line
        depth = (len(line.rsplit("|", 1)[1]) - len(line.rsplit("|", 1)[1].lstrip()) - 1) // 2
        rows.append((depth, name, int(cum_us) / 1e3, int(self_us) / 1e3))
    ranked = sorted(rows, key=lambda r: -r[2])[:top]
    return [{"module": n, "cumulative_ms": round(c, 1), "self_ms": round(s, 1)} for _, n, c, s in ranked], rows


def direct_imports(tree: list[tuple[int, str, float, float]], parent: str) -> dict:
    """``parent``'s cumulative and own import cost, and the modules it imported first with
    their cumulative cost (a shared module is charged to whichever module imported it first,
    as importtime prints it; ``engramdb`` is the package, imported on the way)."""
    for i, (depth, name, cum, own) in enumerate(tree):
        if name == parent:
            break
    else:
        return {}
    # importtime prints children before their parent, one level deeper
    children = []
    for d, n, c, _ in reversed(tree[:i]):
        if d <= depth:
            break
        if d == depth + 1:
            children.append({"module": n, "cumulative_ms": round(c, 1)})
    return {"module": parent, "cumulative_ms": round(cum, 1), "self_ms": round(own, 1),
            "direct_imports": sorted(children, key=lambda r: -r["cumulative_ms"])}


def first_use(store: str, runs: int) -> dict:
    cmd = [PY, "-c", FIRST_USE, store]
    _run(cmd)
    rows = [[float(x) for x in _run(cmd)[1].split()] for _ in range(runs)]
    parts = {}
    for j, name in enumerate(("import", "open", "first_recall")):
        parts[name] = _median_ms([r[j] for r in rows])
    return parts


def make_store(path: str) -> None:
    """The built-in 12-memory demo conversation, ingested by the CLI in a separate process."""
    from engramdb.demo import sample_path   # this process's imports are not measured

    subprocess.run([*_script(), "ingest", "--store", path, sample_path()], capture_output=True, text=True,
                   check=True, env=ENV)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="fresh processes per figure (default 10)")
    ap.add_argument("--out", default=str(RESULTS / "import.json"))
    args = ap.parse_args(argv)
    load_start = os.getloadavg()
    n = args.runs
    script = _script()

    results = {
        "python -c pass (wall)": wall([PY, "-c", "pass"], n),
        "import engramdb (in process)": in_process("engramdb", n),
        "import engramdb (wall)": wall([PY, "-c", "import engramdb"], n),
        "engramdb --help (wall)": wall([*script, "--help"], n),
        "python -m engramdb --help (wall)": wall([PY, "-m", "engramdb", "--help"], n),
        "import numpy (in process)": in_process("numpy", n),
        "import sklearn.feature_extraction.text (in process)": in_process("sklearn.feature_extraction.text", n),
        "import engramdb.engine (in process)": in_process("engramdb.engine", n),
    }
    tmp = tempfile.mkdtemp(prefix="engramdb-bench-import-")
    try:
        store = os.path.join(tmp, "s")
        make_store(store)
        use = first_use(store, n)
        top_first_use, _ = importtime([FIRST_USE, store])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    top_import, _ = importtime(["import engramdb"])
    _, engine_tree = importtime(["import engramdb.engine"])
    load_end = os.getloadavg()

    width = max(map(len, results))
    for what, r in results.items():
        print(f"{what:<{width}}  {r['median_ms']:8.1f} ms median  ({r['min_ms']:.1f} .. {r['max_ms']:.1f}, {r['runs']} runs)")
    print("first use, median ms: " + ", ".join(f"{k} {v['median_ms']:.1f}" for k, v in use.items()))
    print(f"load average {load_start[0]:.2f} at start, {load_end[0]:.2f} at end ({os.cpu_count()} cores)")

    from importlib.metadata import version

    doc = {
        "benchmark": "import and start-up time in fresh processes (import engramdb, engramdb --help, first recall)",
        "machine": {"python": platform.python_version(), "machine": platform.machine(),
                    "cpus": os.cpu_count(), "engramdb": version("engramdb"),
                    "numpy": version("numpy"), "scikit-learn": version("scikit-learn"),
                    "loadavg_start": [round(x, 2) for x in load_start],
                    "loadavg_end": [round(x, 2) for x in load_end]},
        "command": " ".join(["python", "benchmarks/bench_import.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d"),
        "runs": [{"what": what, **r} for what, r in results.items()],
        "first_use": {"what": "import engramdb; open a 12-memory store; one recall by text (hashing embedder)",
                      **use},
        "importtime_top15": {"import engramdb": top_import, "first use": top_first_use},
        "bytecode_cache": "on (PYTHONDONTWRITEBYTECODE removed from the child processes' environment)",
        "engine_import": direct_imports(engine_tree, "engramdb.engine"),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
