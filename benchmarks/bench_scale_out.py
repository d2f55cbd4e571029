"""Scale-out: throughput of a rescore job and an admission job across shards, on Ray at 1 and 2
workers vs the same jobs run shard after shard in this process, in the same run.

Deployment: ``--shards`` stores (:mod:`engramdb.sharding`) holding ``--per-shard`` memories
each, made of LoCoMo turns (read at run time from ../shared/data/locomo, or $ENGRAMDB_LOCOMO):
every tenant namespace holds one conversation's turns (hashing embedder, 384-d, embeddings
computed once per distinct text and passed in), so a shard holds many tenants, as a platform's
would. The build is not timed.

Jobs, each timed end to end in the driver (wall seconds) with its shard work measured inside the
worker around the engine call (:attr:`engramdb.jobs.JobResult.work_s`):

- ``rescore``: ``Engram.rescore(now, materialize=True)`` on every shard: the decay kernel over
  every memory, then every record rewritten with s(now), t0 = now (the nightly job's full
  work). Memories are dated within the day before ``BASE`` (the run's start) and each rescore
  call gets its own ``now`` (``BASE`` + 1 h + 1 min per call, later than every record's last
  update), so every call rewrites every record and nothing decays below an archive floor: each
  repetition does the same work.
- ``admit``: a stream of ``--admit`` candidates (LoCoMo turns of other conversations, plus
  restatements and chatter) into fresh tenant namespaces spread over the shards, in chunks of
  ``--chunk`` (one ``admit_batch`` call each). Every repetition uses new namespaces, so each
  does the same work.

Runners: ``sequential`` (:func:`engramdb.jobs.run` in a fresh Python process started per
repetition, shards opened before timing, ``OMP_NUM_THREADS=1`` as Ray sets for its workers:
the baseline; in the long-lived driver the same units got slower from one repetition to the
next, and with multi-threaded BLAS on the busy 2 cores admission chunks took 1.4x longer), ``ray-1`` and ``ray-2`` (:class:`engramdb.ray_jobs.RayShards` on a local Ray with
``num_cpus=2``, writer actors started before timing; their start-up is reported apart).
Coordination share = 1 - work_s / (workers * wall_s): the part of the worker slots' time not
spent in shard work (scheduling, serialisation, journal writes, idle workers). The machine
has 2 cores shared with other people: the load average at the start is recorded, each figure
is the median of ``--reps`` repetitions (runner order rotated per repetition).

    python benchmarks/bench_scale_out.py [--shards 4] [--per-shard 25000] [--admit 4000] [--chunk 500] [--reps 3]
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

import engramdb
from engramdb import jobs
from engramdb.embed import get_embedder
from engramdb.kernels import registry
from engramdb.locomo import default_locomo_path, load_locomo

RESULTS = Path(__file__).resolve().parent / "results"
BASE = float(int(time.time()))   # Unix seconds, the run's start: memories are dated in the day before it
_calls = iter(range(10**6))


def rescore_now() -> float:
    """A new ``now`` for each rescore call: every record then changes and is rewritten."""
    return BASE + 3600.0 + 60.0 * next(_calls)


def _turns(convs):
    """Per conversation: list of (text, created_at)."""
    out = []
    for c in convs:
        rows = []
        for s in c.sessions:
            for t in s.turns:
                text = f"{t.speaker}: {t.text}" + (f" [shares a photo of {t.blip_caption}]" if t.blip_caption else "")
                rows.append((text, t.created_at))
        out.append(rows)
    return out


def build(root: Path, n_shards: int, per_shard: int, convs, embedder) -> dict:
    """The deployment: tenants ``t<k>`` each holding one conversation's turns, until every shard
    holds about ``per_shard`` memories. Returns counts and sizes."""
    turns = _turns(convs)
    texts = sorted({t for rows in turns for t, _ in rows})
    vec = dict(zip(texts, embedder.embed(texts)))
    target = n_shards * per_shard
    span = max(ts for rows in turns for _, ts in rows) - min(ts for rows in turns for _, ts in rows)
    t0 = time.perf_counter()
    n = 0
    k = 0
    with engramdb.open_sharded(root, n_shards=n_shards, embedder=embedder) as sh:
        while n < target:
            rows = turns[k % len(turns)]
            # event times squeezed into the day before BASE, in conversation order
            sh.add_batch([{"id": f"turn{i}", "text": t, "embedding": vec[t], "kind": "episodic",
                           "created_at": BASE - 86400.0 * (1.0 - (ts - min(r[1] for r in rows)) / max(span, 1.0))}
                          for i, (t, ts) in enumerate(rows)], namespace=f"t{k}")
            n += len(rows)
            k += 1
        sh.flush()
        stats = sh.stats()
    build_s = time.perf_counter() - t0
    disk = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
    return {"memories": stats["memories"], "tenants": k, "build_s": round(build_s, 1),
            "lmdb_bytes": stats["store_bytes"], "disk_bytes": disk,
            "per_shard_memories": [s["memories"] for s in stats["shards"]]}


def candidates(convs, n: int, rep: int, runner: str):
    """``n`` admission candidates into 32 fresh tenants of this repetition and runner: LoCoMo
    turns, every 10th a restatement of the tenant's earlier candidate, every 15th chatter."""
    pool = [t for rows in _turns(convs) for t, _ in rows]
    out = []
    for i in range(n):
        ns = f"adm-{runner}-{rep}-{i % 32}"
        if i % 15 == 7:
            text = "haha thanks, see you!"
        elif i % 10 == 3 and i >= 64:
            text = out[i - 32]["text"]
        else:
            text = pool[(i * 7919) % len(pool)]
        out.append({"namespace": ns, "text": text})
    return out


def one_rep(root: Path, convs, args, rep: int, order: list[str]) -> dict:
    from engramdb.ray_jobs import RayShards

    out = {}
    for runner in order:
        if runner == "sequential":
            # a fresh process, as each Ray worker is: the driver's heap (LoCoMo, earlier
            # repetitions, the Ray driver) made the same units slower in it as the run went on
            cmd = [sys.executable, __file__, "--_sequential", str(root), str(rep), repr(rescore_now()), repr(BASE),
                   str(args.admit), str(args.chunk)] + (["--data", args.data] if args.data else [])
            # with the thread setting Ray gives its workers (OMP_NUM_THREADS=1: single-threaded
            # BLAS), so that runner and baseline run the same code the same way
            done = subprocess.run(cmd, capture_output=True, text=True, check=True,
                                  env={**os.environ, "OMP_NUM_THREADS": "1"})
            out[runner] = json.loads(done.stdout.splitlines()[-1])
            continue
        workers = int(runner.split("-")[1])
        with RayShards(root, workers=workers) as cluster:
            start_s = cluster.start()
            r = cluster.run("rescore", now=rescore_now(), materialize=True)
            a = cluster.run("admit", candidates=candidates(convs, args.admit, rep, runner), now=BASE,
                            chunk_size=args.chunk)
        out[runner] = {"rescore": _fig(r), "admit": _fig(a), "actor_start_s": round(start_s, 3)}
    return out


def sequential_child(root: str, rep: int, now: float, base: float, n_admit: int, chunk: int, data) -> dict:
    """The baseline in this (fresh) process: open every shard, then time both jobs shard after shard."""
    convs = load_locomo(data or default_locomo_path())
    cands = candidates(convs, n_admit, rep, "sequential")
    with engramdb.open_sharded(root) as sh:
        for s in range(sh.n_shards):
            sh.engine(s)   # open every shard before timing (the actors have theirs open too)
        r = jobs.run(sh, "rescore", now=now, materialize=True)
        a = jobs.run(sh, "admit", candidates=cands, now=base, chunk_size=chunk)
    return {"rescore": _fig(r), "admit": _fig(a)}


def _fig(res) -> dict:
    n = res.result.get("scanned", res.result.get("candidates"))
    coord = 1.0 - res.work_s / (res.workers * res.wall_s)
    return {"items": n, "records_written": res.result.get("records_written"), "wall_s": round(res.wall_s, 4), "work_s": round(res.work_s, 4),
            "items_per_s": round(n / res.wall_s, 1), "coordination_share": round(coord, 4),
            "unit_work_s": [round(x, 4) for x in res.unit_work_s], "units": res.units_run}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_sequential":
        root, rep, now, base, n_admit, chunk = argv[1:7]
        data = argv[8] if len(argv) > 8 else None
        print(json.dumps(sequential_child(root, int(rep), float(now), float(base), int(n_admit), int(chunk), data)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--per-shard", type=int, default=25000)
    ap.add_argument("--admit", type=int, default=4000)
    ap.add_argument("--chunk", type=int, default=500)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=str(RESULTS / "scale_out.json"))
    args = ap.parse_args(argv)

    load_start = os.getloadavg()
    data = Path(args.data) if args.data else default_locomo_path()
    if not data.exists():
        print(f"LoCoMo data not found at {data}; set ENGRAMDB_LOCOMO", file=sys.stderr)
        return 2
    import ray

    convs = load_locomo(data)
    embedder = get_embedder("hashing", 384)
    tmp = tempfile.mkdtemp(prefix="engramdb-scale-")
    root = Path(tmp) / "shards"
    try:
        info = build(root, args.shards, args.per_shard, convs, embedder)
        print(f"built {info['memories']} memories in {info['tenants']} tenants over {args.shards} shards "
              f"({info['build_s']} s; {info['disk_bytes'] / info['memories']:.0f} B/memory on disk)", flush=True)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        runners = ["sequential", "ray-1", "ray-2"]
        reps = []
        for rep in range(args.reps):
            order = runners[rep % 3:] + runners[:rep % 3]
            reps.append(one_rep(root, convs, args, rep, order))
            print(f"rep {rep + 1}/{args.reps}: " + ", ".join(
                f"{r} rescore {reps[-1][r]['rescore']['items_per_s']:.0f}/s admit {reps[-1][r]['admit']['items_per_s']:.0f}/s"
                for r in runners), flush=True)
        ray.shutdown()
        with engramdb.open_sharded(root, readonly=True) as sh:
            n_after = sh.stats()["memories"]
        per_memory_disk = sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / n_after
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    summary = {}
    for r in runners:
        summary[r] = {}
        for job in ("rescore", "admit"):
            figs = [rep[r][job] for rep in reps]
            # shard work rate: memories rescored per second of one worker's shard work
            unit_rates = [f["items"] / sum(f["unit_work_s"]) for f in figs] if job == "rescore" else []
            summary[r][job] = {**{key: statistics.median(f[key] for f in figs)
                                  for key in ("items_per_s", "wall_s", "work_s", "coordination_share")},
                               **({"shard_work_memories_per_s": round(statistics.median(unit_rates), 1)}
                                  if unit_rates else {})}
        if r != "sequential":
            summary[r]["actor_start_s"] = statistics.median(rep[r]["actor_start_s"] for rep in reps)
    base = summary["sequential"]
    ratios = {f"{r}/sequential": {job: round(summary[r][job]["items_per_s"] / base[job]["items_per_s"], 3)
                                  for job in ("rescore", "admit")} for r in runners[1:]}
    ratios["ray-2/ray-1"] = {job: round(summary["ray-2"][job]["items_per_s"] / summary["ray-1"][job]["items_per_s"], 3)
                             for job in ("rescore", "admit")}
    doc = {"benchmark": "scale-out batch jobs: rescore and admission, sequential vs Ray at 1 and 2 workers",
           "command": "python benchmarks/bench_scale_out.py " + " ".join(argv),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "load_at_start": [round(x, 2) for x in load_start], "load_at_end": [round(x, 2) for x in os.getloadavg()],
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "ray": ray.__version__,
                       "engramdb": engramdb.__version__, "kernel_backend": registry.active_backend()},
           "params": {k: v for k, v in vars(args).items() if k != "out"},   # no machine path in results "deployment": {**info, "disk_bytes_per_memory_after": round(per_memory_disk, 1)},
           "median": summary, "ratios": ratios, "reps": reps}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"load at start {doc['load_at_start']}")
    for r in runners:
        s = summary[r]
        print(f"{r:10s} rescore {s['rescore']['items_per_s']:9.0f} mem/s (coord {100 * s['rescore']['coordination_share']:4.1f} %)"
              f"  admit {s['admit']['items_per_s']:7.0f} cand/s (coord {100 * s['admit']['coordination_share']:4.1f} %)"
              + (f"  actor start {s['actor_start_s']:.2f} s" if "actor_start_s" in s else ""))
    for k, v in ratios.items():
        print(f"ratio {k}: rescore {v['rescore']:.3f}, admit {v['admit']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
