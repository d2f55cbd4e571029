"""Mutation check: do the tests notice single-point changes to engramdb's behaviour?

Reads a list of hand-made mutants (``benchmarks/mutants.toml``: file, an exact snippet that
must occur exactly once in it, its replacement, and the test files relevant to it), then for
each mutant in turn

1. writes the mutated file into this working tree (nothing is copied elsewhere);
2. rebuilds the C extension when the mutant is in ``csrc/`` or the ``.pyx``;
3. runs the mutant's test files with ``pytest -x -q``: a failure *kills* the mutant, a pass
   means it *survived* (the tests cannot tell the mutant from the real code);
4. restores the file byte for byte with its original modification time (also on Ctrl-C,
   SIGTERM or an error), and rebuilds the C extension again after a C mutant.

It refuses to start when a file it would mutate has uncommitted changes, or when a snippet
is not found exactly once, and first checks that the selected tests pass on the unmutated
tree. Test runs never write byte code (``PYTHONDONTWRITEBYTECODE``), use their own
Hypothesis database and a fixed Hypothesis seed, and a Numba mutant compiles into a cache
directory of its own, so no stale compiled mutant can stand in for the real code or the
other way round. Those scratch directories live under ``tmp/`` in the repository (ignored by
git) and are removed afterwards.

Score = killed / (killed + survived); mutants that do not build or whose test run errors out
are reported apart and left out of the score. A timeout counts as killed.

Usage::

    python benchmarks/mutation_check.py                 # every mutant; writes results/mutation.json
    python benchmarks/mutation_check.py --verify        # only check the snippets (after a refactor)
    python benchmarks/mutation_check.py --list
    python benchmarks/mutation_check.py --only recall-density-gate-at-threshold --no-baseline
    python benchmarks/mutation_check.py --area kernels --skip-c
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MUTANTS = REPO / "benchmarks" / "mutants.toml"
DEFAULT_OUT = REPO / "benchmarks" / "results" / "mutation.json"
SCRATCH = REPO / "tmp" / "mutation-check"
C_SUFFIXES = (".c", ".h", ".pyx")
HYPOTHESIS_SEED = "20261130"
STATUSES = ("killed", "timeout", "survived", "build_error", "error", "skipped")


@dataclass
class Mutant:
    """One single-point change and the tests that should notice it."""

    id: str
    area: str
    description: str
    file: str
    original: str
    replacement: str
    tests: list[str]
    status: str = "pending"
    seconds: float = 0.0
    killed_by: str | None = None
    detail: str = ""
    line: int = 0

    @property
    def path(self) -> Path:
        return REPO / self.file

    @property
    def needs_build(self) -> bool:
        return self.file.endswith(C_SUFFIXES)

    @property
    def needs_numba_cache(self) -> bool:
        return self.file.endswith("_numba.py")


@dataclass
class Saved:
    """A file's original bytes and times, to put back exactly."""

    path: Path
    data: bytes
    times_ns: tuple[int, int] = field(default=(0, 0))

    @classmethod
    def of(cls, path: Path) -> "Saved":
        st = path.stat()
        return cls(path, path.read_bytes(), (st.st_atime_ns, st.st_mtime_ns))

    def restore(self) -> None:
        """Write the original bytes and modification time back, and check them."""
        self.path.write_bytes(self.data)
        os.utime(self.path, ns=self.times_ns)
        if self.path.read_bytes() != self.data:
            raise RuntimeError(f"could not restore {self.path}")


# ---------------------------------------------------------------- loading and checks
def load_mutants(path: Path) -> list[Mutant]:
    """The mutants of a TOML file: ``[groups]`` of test files, then ``[[mutant]]`` tables
    whose ``tests`` name files or ``@group``s."""
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    groups = data.get("groups", {})
    out, seen = [], set()
    for i, raw in enumerate(data.get("mutant", [])):
        missing = {"id", "area", "description", "file", "original", "replacement", "tests"} - raw.keys()
        if missing:
            raise SystemExit(f"{path}: mutant #{i} lacks {sorted(missing)}")
        if raw["id"] in seen:
            raise SystemExit(f"{path}: mutant id {raw['id']!r} is used twice")
        seen.add(raw["id"])
        tests: list[str] = []
        for t in raw["tests"]:
            if t.startswith("@"):
                if t[1:] not in groups:
                    raise SystemExit(f"{path}: mutant {raw['id']!r} names unknown test group {t!r}")
                tests.extend(groups[t[1:]])
            else:
                tests.append(t)
        out.append(Mutant(raw["id"], raw["area"], raw["description"], raw["file"], raw["original"],
                          raw["replacement"], list(dict.fromkeys(tests))))
    return out


def snippet_problems(mutants: list[Mutant]) -> list[str]:
    """Why each mutant cannot be applied as written (empty when all can); sets ``line``."""
    problems = []
    for m in mutants:
        if not m.path.is_file():
            problems.append(f"{m.id}: no file {m.file}")
            continue
        text = m.path.read_text(encoding="utf-8")
        count = text.count(m.original)
        if count != 1:
            problems.append(f"{m.id}: the snippet occurs {count} times in {m.file} (must be exactly once)")
        elif m.original == m.replacement:
            problems.append(f"{m.id}: the replacement equals the snippet")
        else:
            m.line = text[: text.index(m.original)].count("\n") + 1
        for t in m.tests:
            if not (REPO / t.split("::")[0]).exists():
                problems.append(f"{m.id}: no test file {t}")
    return problems


def dirty_files(files: list[str]) -> list[str]:
    """Those of ``files`` with uncommitted changes (staged, unstaged or untracked)."""
    res = subprocess.run(["git", "status", "--porcelain", "--", *files], cwd=REPO, capture_output=True,
                         text=True, check=True)
    return [line[3:] for line in res.stdout.splitlines() if line.strip()]


# ---------------------------------------------------------------- running
class Interrupted(Exception):
    """SIGTERM or SIGHUP arrived (Ctrl-C raises KeyboardInterrupt)."""


def _on_signal(signum, _frame):
    raise Interrupted(f"signal {signum}")


def rebuild_c() -> tuple[bool, str]:
    """Rebuild the Cython/C extension in place (forced: restored sources keep old mtimes)."""
    res = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "--force"], cwd=REPO,
                         capture_output=True, text=True)
    return res.returncode == 0, (res.stdout + res.stderr)[-2000:]


def run_tests(tests: list[str], timeout: float, scratch: Path, numba_cache: bool) -> tuple[str, str, str | None]:
    """Run pytest on ``tests``; returns (status, output tail, first failing test)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
           "HYPOTHESIS_STORAGE_DIRECTORY": str(scratch / "hypothesis")}
    if numba_cache:
        env["NUMBA_CACHE_DIR"] = str(scratch / "numba")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
           f"--hypothesis-seed={HYPOTHESIS_SEED}", *tests]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return "timeout", "", None
    except BaseException:
        _kill_group(proc)
        raise
    failed = re.search(r"^(?:FAILED|ERROR) (\S+)", out, re.MULTILINE)
    first = failed.group(1) if failed else None
    if proc.returncode == 0:
        return "survived", out[-1500:], None
    if proc.returncode == 1:
        return "killed", out[-1500:], first
    return "error", out[-3000:], first      # interrupted, usage error, collection error, no tests


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run_mutant(m: Mutant, timeout: float) -> None:
    """Apply ``m``, run its tests, restore; fills ``m.status`` and friends."""
    saved = Saved.of(m.path)
    scratch = SCRATCH / m.id
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    t0 = time.perf_counter()
    try:
        text = saved.data.decode("utf-8")
        m.path.write_text(text.replace(m.original, m.replacement, 1), encoding="utf-8")
        if m.needs_build:
            ok, log = rebuild_c()
            if not ok:
                m.status, m.detail = "build_error", log
                return
        m.status, m.detail, m.killed_by = run_tests(m.tests, timeout, scratch, m.needs_numba_cache)
    finally:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)   # a second Ctrl-C may not
        try:                                                      # leave a mutant behind
            saved.restore()
            shutil.rmtree(scratch, ignore_errors=True)
            if m.needs_build:
                ok, log = rebuild_c()
                if not ok:
                    raise SystemExit("rebuilding the C extension from the restored sources failed; run "
                                     f"`python setup.py build_ext --inplace --force`:\n{log}")
        finally:
            signal.signal(signal.SIGINT, previous)
        m.seconds = round(time.perf_counter() - t0, 2)


def baseline(mutants: list[Mutant], timeout: float) -> None:
    """The selected tests must pass on the unmutated tree, or no kill would mean anything."""
    tests = list(dict.fromkeys(t for m in mutants for t in m.tests))
    scratch = SCRATCH / "baseline"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    try:
        status, out, first = run_tests(tests, timeout * 4, scratch, numba_cache=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if status != "survived":
        raise SystemExit(f"the tests fail on the unmutated tree ({status}, first: {first}):\n{out}")


# ---------------------------------------------------------------- reporting
def score_of(mutants: list[Mutant]) -> dict:
    counts = {s: sum(m.status == s for m in mutants) for s in STATUSES}
    scored = counts["killed"] + counts["timeout"] + counts["survived"]
    return {"mutants": len(mutants), **counts, "scored": scored,
            "score": round((counts["killed"] + counts["timeout"]) / scored, 4) if scored else None}


def print_table(mutants: list[Mutant]) -> None:
    width = max(len(m.id) for m in mutants)
    print(f"{'mutant':<{width}}  {'area':<11} {'status':<11} {'seconds':>8}  killed by / description")
    for m in mutants:
        note = m.killed_by or m.description
        print(f"{m.id:<{width}}  {m.area:<11} {m.status:<11} {m.seconds:>8.1f}  {note}")
    s = score_of(mutants)
    killed = s["killed"] + s["timeout"]
    pct = "n/a" if s["score"] is None else f"{100 * s['score']:.1f}%"
    print(f"\nkilled {killed} of {s['scored']} scored mutants: {pct}"
          + "".join(f"; {s[k]} {k.replace('_', ' ')}" for k in ("build_error", "error", "skipped") if s[k]))
    survivors = [m for m in mutants if m.status == "survived"]
    for m in survivors:
        print(f"SURVIVED {m.id} ({m.file}:{m.line}): {m.description}")


def write_json(path: Path, mutants: list[Mutant], argv: list[str], mutants_file: Path) -> None:
    import numpy as np

    try:
        import numba
        numba_version = numba.__version__
    except ImportError:
        numba_version = None
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    out = {
        "benchmark": "mutation check: hand-made single-point mutants, the relevant tests run for each",
        "command": " ".join(["python", "benchmarks/mutation_check.py", *argv]),
        "machine": {"python": platform.python_version(), "numpy": np.__version__, "numba": numba_version,
                    "cpus": os.cpu_count(), "machine": platform.machine()},
        "git_commit": commit,
        "mutants_file": str(mutants_file.relative_to(REPO)) if mutants_file.is_relative_to(REPO) else mutants_file.name,
        "pytest": f"-x -q -p no:cacheprovider --hypothesis-seed={HYPOTHESIS_SEED}",
        "summary": score_of(mutants),
        "by_area": {a: score_of([m for m in mutants if m.area == a]) for a in dict.fromkeys(m.area for m in mutants)},
        "results": [{"id": m.id, "area": m.area, "file": m.file, "line": m.line, "description": m.description,
                     "status": m.status, "killed_by": m.killed_by, "seconds": m.seconds, "tests": m.tests}
                    for m in mutants],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")


# ---------------------------------------------------------------- main
def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=Path, default=DEFAULT_MUTANTS, help="TOML list of mutants")
    ap.add_argument("--only", nargs="+", metavar="ID", help="run only these mutants")
    ap.add_argument("--area", nargs="+", help="run only mutants of these areas")
    ap.add_argument("--skip-c", action="store_true", help="skip mutants that need a C rebuild")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--verify", action="store_true", help="check that every snippet applies, then exit")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated test run")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant's test run")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results (default %(default)s)")
    args = ap.parse_args(argv)

    mutants = load_mutants(args.mutants)
    if args.only:
        unknown = set(args.only) - {m.id for m in mutants}
        if unknown:
            raise SystemExit(f"unknown mutant id(s): {sorted(unknown)}")
        mutants = [m for m in mutants if m.id in args.only]
    if args.area:
        mutants = [m for m in mutants if m.area in args.area]
    skip_c = args.skip_c or os.environ.get("ENGRAMDB_NO_C") == "1"
    problems = snippet_problems(mutants)
    if args.list:
        for m in mutants:
            print(f"{m.id:<44} {m.area:<11} {m.file}:{m.line}  {m.description}")
        return 0
    if problems:
        print("mutants that cannot be applied (re-target their snippets):", *problems, sep="\n  ", file=sys.stderr)
        return 2
    if args.verify:
        print(f"all {len(mutants)} snippets occur exactly once")
        return 0
    dirty = dirty_files(sorted({m.file for m in mutants}))
    if dirty:
        print("refusing to start: uncommitted changes in files to be mutated (commit them, or, if an "
              "interrupted run left a mutant behind, `git checkout -- FILE`):", *dirty, sep="\n  ", file=sys.stderr)
        return 2

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    todo = [m for m in mutants if not (skip_c and m.needs_build)]
    for m in mutants:
        if m not in todo:
            m.status = "skipped"
    try:
        if not args.no_baseline:
            print(f"baseline: running the tests of {len(todo)} mutants on the unmutated tree ...", flush=True)
            baseline(todo, args.timeout)
        for i, m in enumerate(todo, 1):
            print(f"[{i}/{len(todo)}] {m.id} ({m.file}:{m.line}) ...", end=" ", flush=True)
            run_mutant(m, args.timeout)
            print(f"{m.status} in {m.seconds:.1f} s" + (f" by {m.killed_by}" if m.killed_by else ""), flush=True)
            if m.status in ("error", "build_error"):
                print(m.detail, flush=True)
    except (KeyboardInterrupt, Interrupted):
        print("\ninterrupted: the mutated file was restored; no results written", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
        if SCRATCH.parent.is_dir() and not any(SCRATCH.parent.iterdir()):
            SCRATCH.parent.rmdir()
    print()
    print_table(mutants)
    write_json(args.out, mutants, argv, args.mutants)
    print(f"\nwrote {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
