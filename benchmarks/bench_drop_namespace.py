"""Cost of drop_namespace and of compact() on a store of N memories in K namespaces, against the
ways of rewriting the same LMDB file measured in the same run.

drop_namespace erases one namespace in one write unit, then compacts the store: every key and
value is copied into a new LMDB environment that replaces data.mdb (LMDB leaves freed pages as
they were, and its own compacting copy can carry stale bytes in overflow pages), and the old
file is overwritten with zeros. So its cost follows the size of the whole store, not of the
dropped namespace. Rows:

- ``drop_namespace``: the verb, one namespace of N/K memories (median over the first
  ``--drops`` namespaces, each on the store the previous drop left);
- ``compact``: ``Engram.compact()`` alone on the store after the drops (its copy, swap, zeros);
- ``lmdb_compacting_copy``: LMDB's ``env.copy(path, compact=True)`` of the same file (what
  compact() does not rely on), to a new directory;
- ``file_copy``: a plain copy of data.mdb with fsync (the I/O floor of any rewrite).

Then the reason for the copy: ``--residue-stores`` small stores (2,000 memories dropped beside 200
kept) are dropped with each way of rewriting the file in turn (this module swaps the store's copy
step for LMDB's compacting copy, or skips the rewrite), and every file under each store
directory is searched for the dropped texts.

    python benchmarks/bench_drop_namespace.py [--memories 50000] [--namespaces 10] [--drops 3]
                                              [--residue-stores 20]
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
from engramdb.testing import store_path

RESULTS = Path(__file__).resolve().parent / "results"
DIM = 384


def build(path: str, n: int, k: int, seed: int = 0) -> None:
    """N memories with unit vectors and short texts in K namespaces, a ``next`` chain in each."""
    rng = np.random.default_rng(seed)
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False), store=engramdb.StoreConfig(sync=False))
    per = n // k
    with engramdb.open(path, dim=DIM, embedder="hashing", config=cfg) as eng:
        for j in range(k):
            vecs = rng.standard_normal((per, DIM)).astype(np.float32)
            items = [{"id": f"m{i}", "text": f"tenant {j} memory {i}: note {rng.integers(1 << 30)}",
                      "embedding": vecs[i], "links": [] if i == 0 else [{"to": f"m{i - 1}", "relation": "next"}]}
                     for i in range(per)]
            eng.add_batch(items, namespace=f"tenant-{j}")


def residue(method: str, stores: int) -> int:
    """How many of ``stores`` small stores still hold a dropped text after drop_namespace, with
    the file rewritten by ``method``: "engramdb" (compact(): a copy of every key and value into
    a new environment), "lmdb_compacting_copy" (LMDB's env.copy(compact=True) in its place) or
    "none" (no rewrite)."""
    from engramdb.store.lmdb_store import LmdbStore

    saved = LmdbStore._copy_into, LmdbStore.compact
    if method == "lmdb_compacting_copy":
        LmdbStore._copy_into = lambda self, directory, map_size: self.env.copy(directory, compact=True)
    elif method == "none":
        LmdbStore.compact = lambda self: {}
    dirty = 0
    try:
        for r in range(stores):
            with tempfile.TemporaryDirectory() as d:
                with engramdb.open(d, embedder="hashing") as eng:
                    eng.add_batch([{"text": f"SECRET-{i:04d} private note number {i} " + "pad " * 30}
                                   for i in range(2000)], namespace="gone")
                    eng.add_batch([{"text": f"KEEP-{i:04d} note {i}"} for i in range(200)], namespace="kept")
                    eng.flush()
                    eng.drop_namespace("gone")
                blobs = (Path(root, f).read_bytes() for root, _, files in os.walk(d) for f in files)
                dirty += any(b"SECRET-" in b for b in blobs)
    finally:
        LmdbStore._copy_into, LmdbStore.compact = saved
    return dirty


def _fsync_copy(src: str, dst: str) -> None:
    shutil.copyfile(src, dst)
    fd = os.open(dst, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=50_000)
    ap.add_argument("--namespaces", type=int, default=10)
    ap.add_argument("--drops", type=int, default=3)
    ap.add_argument("--residue-stores", type=int, default=20)
    ap.add_argument("--out", default=str(RESULTS / "drop_namespace.json"))
    args = ap.parse_args(argv)

    root = tempfile.mkdtemp(prefix="bench_drop_")
    path = os.path.join(root, "store")
    t = time.perf_counter()
    build(path, args.memories, args.namespaces)
    build_s = time.perf_counter() - t
    data = os.path.join(path, "data.mdb")
    runs = []
    with engramdb.open(path) as eng:   # default config: fsync on commit
        assert store_path(eng) == path
        size0 = os.path.getsize(data)
        drops = []
        for j in range(args.drops):
            size = os.path.getsize(data)
            t = time.perf_counter()
            erased = eng.drop_namespace(f"tenant-{j}")["memories"]
            drops.append((time.perf_counter() - t, erased, size, os.path.getsize(data)))
        t = time.perf_counter()
        out = eng.compact()
        compact_s = time.perf_counter() - t
        live = eng.stats()["memories"]
    for s, erased, before, after in drops:
        runs.append({"row": "drop_namespace", "seconds": round(s, 4), "memories_erased": erased,
                     "file_bytes_before": before, "file_bytes_after": after})
    runs.append({"row": "compact", "seconds": round(compact_s, 4), "live_memories": live,
                 "file_bytes_before": out["bytes_before"], "file_bytes_after": out["bytes_after"]})

    import lmdb

    env = lmdb.open(path, max_dbs=16, readonly=True, lock=False)
    times = []
    for _ in range(3):
        dst = tempfile.mkdtemp(dir=root)
        t = time.perf_counter()
        env.copy(dst, compact=True)
        times.append(time.perf_counter() - t)
        shutil.rmtree(dst)
    env.close()
    runs.append({"row": "lmdb_compacting_copy", "seconds": round(statistics.median(times), 4),
                 "file_bytes": os.path.getsize(data)})
    times = []
    for _ in range(3):
        t = time.perf_counter()
        _fsync_copy(data, os.path.join(root, "copy.mdb"))
        times.append(time.perf_counter() - t)
    runs.append({"row": "file_copy", "seconds": round(statistics.median(times), 4),
                 "file_bytes": os.path.getsize(data)})
    shutil.rmtree(root)

    leftovers = {m: residue(m, args.residue_stores) for m in ("none", "lmdb_compacting_copy", "engramdb")}

    drop_med = statistics.median(r["seconds"] for r in runs if r["row"] == "drop_namespace")
    print(f"store: {args.memories:,} memories in {args.namespaces} namespaces, dim {DIM}, "
          f"data.mdb {size0 / 1e6:.1f} MB (built in {build_s:.1f} s)")
    print(f"{'row':<22}{'seconds':>10}  notes")
    for r in runs:
        note = ", ".join(f"{k} {v:,}" for k, v in r.items() if k not in ("row", "seconds"))
        print(f"{r['row']:<22}{r['seconds']:>10.3f}  {note}")
    print(f"drop_namespace median {drop_med:.3f} s = {drop_med / runs[-1]['seconds']:.1f}x a plain file copy")
    for m, n in leftovers.items():
        print(f"rewrite {m:<22} {n}/{args.residue_stores} stores still hold dropped text")

    doc = {
        "benchmark": "drop_namespace and compact() vs rewriting the same LMDB file",
        "machine": {"python": platform.python_version(), "lmdb": lmdb.__version__,
                    "lmdb_engine": ".".join(map(str, lmdb.version())), "cpus": os.cpu_count(),
                    "machine": platform.machine()},
        "command": " ".join(["python", "benchmarks/bench_drop_namespace.py", *sys.argv[1:]]),
        "store": {"memories": args.memories, "namespaces": args.namespaces, "dim": DIM,
                  "data_mdb_bytes": size0, "build_seconds": round(build_s, 2)},
        "runs": runs,
        "stores_holding_dropped_text": {"stores": args.residue_stores, **leftovers},
    }
    dest = Path(args.out)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
