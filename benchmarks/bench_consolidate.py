"""Consolidation after each session: a pass that compares only what is new, against one computed whole.

Issue 15 asks for a ``consolidate()`` cheap enough to run after each session. A pass clusters
by exact cosine over all candidates (near-duplicate merges over notes, facts over every session
turn): from scratch an all-pairs product, O(n^2). ``engramdb.dynamics.pairs`` keeps each
candidate's most similar candidates between the passes of a process and compares the new or
changed ones only.

The corpus is generated at run time from the LoCoMo data (../shared, never committed): every
conversation's sessions, then varied copies (speakers renamed, each turn moved by whole days
and one word dropped or swapped, as in ``bench_recall_scale.py``), all in one namespace through
``add_conversation``, one call per conversation copy, until the namespace holds ``N`` turns;
``--tail`` more sessions are held back. For each size, in one run:

1. **first pass**: the process's first ``consolidate()`` (pairs computed whole);
2. **no-op pass**: the same again (nothing new);
3. **after a session**: each held-back session is added, then the pass is timed three times on
   the same store: in the process that ran the passes before (**kept**: the pairs of the new
   turns only), on a copy opened by a new engine (**new process**: the lists read from the file
   the last pass saved beside the index), and on a copy without that file (**whole**: the
   baseline, every pair compared, as the code before did); median over the sessions, the ratios,
   and whether the three wrote the same counts.

Machines are shared: the load average is recorded at start; each figure is a median.

    python benchmarks/bench_consolidate.py [--sizes 8000 16000 32000] [--tail 5]

Writes benchmarks/results/consolidate.json (a run replaces the rows of the sizes it measured).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import engramdb  # noqa: E402
from bench_recall_scale import NAMES, varied  # noqa: E402
from engramdb.ingest import locomo_messages  # noqa: E402
from engramdb.locomo import load_locomo  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
NS = "chat"
DAY = 86400.0
WEEK = 7 * DAY
COUNTS = ("merged", "summaries", "facts", "edges")


def conversations(n: int, tail: int, seed: int = 7) -> tuple[list[list[dict]], list[list[dict]]]:
    """Message lists: the bulk (one per conversation copy, ``n`` turns in all) and ``tail``
    single sessions after it (each a list of messages)."""
    rng = np.random.default_rng(seed)
    convs = load_locomo()
    bulk: list[list[dict]] = []
    held: list[list[dict]] = []
    total, copy = 0, 0
    while total < n or len(held) < tail:
        for conv in convs:
            messages, _titles = locomo_messages(conv)
            a, b = conv.speakers
            na, nb = (a, b) if not copy else (str(x) for x in rng.choice(NAMES, 2, replace=False))
            sub = {a: na, b: nb}
            pat = re.compile(r"\b(" + re.escape(a) + "|" + re.escape(b) + r")\b")
            shift = float(rng.integers(1, 3650)) * DAY if copy else 0.0
            out = []
            for m in messages:
                text = m["content"]
                if copy:
                    text = varied(text, pat, sub, rng)
                out.append({"role": "user", "name": sub.get(m["name"], m["name"]), "content": text,
                            "created_at": m["created_at"] + shift, "session": f"c{copy}-{conv.sample_id}-{m['session']}",
                            "id": f"c{copy}-{conv.sample_id}-{m['id']}"})
            if total < n:
                take = out[: n - total]
                bulk.append(take)
                total += len(take)
            elif len(held) < tail:   # whole sessions, one after the other
                for sid in dict.fromkeys(m["session"] for m in out):
                    if len(held) < tail:
                        held.append([m for m in out if m["session"] == sid])
            else:
                break
        copy += 1
    return bulk, held


def timed_pass(eng, now: float) -> tuple[float, dict]:
    t0 = time.perf_counter()
    out = eng.consolidate(namespace=NS, now=now)
    return time.perf_counter() - t0, {k: out[k] for k in COUNTS}


def measure(root: str, n: int, tail: int) -> dict:
    bulk, held = conversations(n, tail)
    path = os.path.join(root, f"n{n}")
    t0 = time.perf_counter()
    eng = engramdb.open(path, embedder="hashing")
    for messages in bulk:
        eng.add_conversation(messages, namespace=NS)
    build_s = time.perf_counter() - t0
    latest = max(m["created_at"] for msgs in bulk for m in msgs)
    first_s, first = timed_pass(eng, latest + WEEK)
    noop_s, noop = timed_pass(eng, latest + WEEK)
    kept_s, file_s, whole_s, same = [], [], [], True
    for messages in held:
        eng.add_conversation(messages, namespace=NS)
        now = max(m["created_at"] for m in messages) + WEEK
        eng.flush()
        copies = {}
        for way in ("file", "whole"):
            copies[way] = f"{path}-{way}"
            shutil.rmtree(copies[way], ignore_errors=True)
            shutil.copytree(path, copies[way])
        for f in glob.glob(os.path.join(copies["whole"], "index", "*.pairs-*")):
            os.remove(f)
        s, got_kept = timed_pass(eng, now)
        kept_s.append(s)
        got = {}
        for way, times in (("file", file_s), ("whole", whole_s)):
            other = engramdb.open(copies[way], embedder="hashing")
            try:
                s, got[way] = timed_pass(other, now)
            finally:
                other.close()
            times.append(s)
            shutil.rmtree(copies[way], ignore_errors=True)
        same &= got_kept == got["file"] == got["whole"]
        print(f"  session of {len(messages)} turns: kept {kept_s[-1]:.3f} s, new process {file_s[-1]:.3f} s, "
              f"whole {whole_s[-1]:.3f} s, {got_kept}", file=sys.stderr, flush=True)
    stats = eng.stats()["namespaces"][NS]
    eng.close()
    kept, from_file, whole = statistics.median(kept_s), statistics.median(file_s), statistics.median(whole_s)
    return {"turns": n, "memories": stats["memories"], "build_s": round(build_s, 1),
            "first_pass_s": round(first_s, 3), "first_pass": first,
            "noop_pass_s": round(noop_s, 3), "noop_pass": noop,
            "after_session_kept_s": round(kept, 3), "after_session_new_process_s": round(from_file, 3),
            "after_session_whole_s": round(whole, 3),
            "x_faster": round(whole / kept, 2) if kept else None,
            "x_faster_new_process": round(whole / from_file, 2) if from_file else None,
            "after_session_kept_each_s": [round(x, 3) for x in kept_s],
            "after_session_new_process_each_s": [round(x, 3) for x in file_s],
            "after_session_whole_each_s": [round(x, 3) for x in whole_s],
            "same_counts": same, "sessions": len(held)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[8000, 16000, 32000], help="turns in the namespace")
    ap.add_argument("--tail", type=int, default=5, help="sessions added one at a time after the first pass")
    ap.add_argument("--out", default=str(RESULTS / "consolidate.json"))
    args = ap.parse_args(argv)
    load = os.getloadavg()
    print(f"load at start {load}", file=sys.stderr)
    rows = []
    with tempfile.TemporaryDirectory(prefix="engramdb-consolidate-") as root:
        for n in args.sizes:
            print(f"{n:,} turns ...", file=sys.stderr, flush=True)
            row = measure(root, n, args.tail)
            rows.append(row)
            print(f"{row['memories']:>7,} memories: first pass {row['first_pass_s']:.2f} s, no-op {row['noop_pass_s']:.2f} s, "
                  f"after a session: kept {row['after_session_kept_s']:.3f} s, new process "
                  f"{row['after_session_new_process_s']:.3f} s, whole {row['after_session_whole_s']:.3f} s "
                  f"({row['x_faster']}x, {row['x_faster_new_process']}x), same counts: {row['same_counts']}", flush=True)
    out = Path(args.out)
    doc = json.loads(out.read_text()) if out.exists() else {}
    measured = {r["turns"] for r in rows}
    command = "python benchmarks/bench_consolidate.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if not a.startswith("--out"))
    for r in rows:
        r.update({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_at_start": [round(x, 2) for x in load],
                  "command": command.strip()})
    kept = [r for r in doc.get("runs", []) if r.get("turns") not in measured]
    doc = {"benchmark": __doc__.split("\n\n")[0],
           "machine": {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
                       "cpus": os.cpu_count(), "engramdb": engramdb.__version__},
           "runs": sorted(kept + rows, key=lambda r: r["turns"])}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
