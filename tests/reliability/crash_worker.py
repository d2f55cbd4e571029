"""Ingest worker that the crash tests kill with SIGKILL (run as a script, see test_crash.py).

Usage: ``python crash_worker.py STORE LEDGER MODE SKIP SYNC``

It opens STORE, continues the deterministic ingest where the store stops (memory ``m<i>`` in
namespace ``"a"`` or ``"b"`` by parity, vector :func:`vec` ``(i)``, a ``next`` link to
``m<i-2>``), 8 memories per ``add_batch``, a ``link_batch`` of ``supports`` edges every other
batch, a hard ``forget`` every fifth batch and a ``flush`` (vector index and column snapshots)
every third. After each call returns it appends a line to LEDGER and fsyncs it: ``ADD ids``,
``DELETING id`` (before the forget) and ``DELETED id`` (after).

MODE places a hook that prints ``HOOK <mode>`` and sleeps until killed, after SKIP earlier
hits of the same point:

- ``batch``: inside an ``add_batch`` write transaction, after some of its vectors are put;
- ``index``: inside an hnswlib index save, the new file written but not renamed;
- ``sidecar``: between the index file's rename and its sidecar's;
- ``snapshot``: inside a CSR snapshot write transaction, before its commit;
- ``columns``: inside the column-snapshot write transaction of a flush;
- ``forget``: inside a hard forget's transaction, its edges deleted, the record not yet;
- ``random``: no hook; the test kills at a random moment.
"""
import os
import sys

import numpy as np

DIM = 16


def vec(i: int, dim: int = DIM) -> np.ndarray:
    """The deterministic unit vector of memory ``i`` (float32, shape (dim,))."""
    v = np.random.default_rng(1_000_003 + i).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def item(i: int) -> dict:
    return {"id": f"m{i}", "namespace": "ab"[i % 2], "text": f"memory {i}: the number {i} in words",
            "embedding": vec(i), "links": [{"to": f"m{i - 2}", "relation": "next"}] if i >= 2 else []}


def _install(mode: str, skip: int) -> None:
    from worker_hooks import after, stop_here   # a sibling module: this file runs as a script

    from engramdb.index import hnsw
    from engramdb.store.lmdb_store import LmdbStore

    fire = after(skip)

    if mode in ("index", "sidecar"):
        class Os:   # the ``os`` that hnsw.py sees: stops before the index file's or the sidecar's rename
            def __getattr__(self, name):
                return getattr(os, name)

            def replace(self, src, dst):
                if dst.endswith(".json" if mode == "sidecar" else ".hnsw") and fire():
                    stop_here(mode)
                os.replace(src, dst)
        hnsw.os = Os()
    elif mode == "snapshot":
        save = LmdbStore.save_snapshot

        def save_snapshot(self, txn, arrays, meta):
            save(self, txn, arrays, meta)
            if fire():
                stop_here(mode)
        LmdbStore.save_snapshot = save_snapshot
    elif mode == "columns":
        save_arrays = LmdbStore.save_arrays

        def save_cols(self, txn, db_name, arrays, meta):
            save_arrays(self, txn, db_name, arrays, meta)
            if db_name == "cols" and fire():
                stop_here(mode)
        LmdbStore.save_arrays = save_cols
    elif mode == "forget":
        delete_edges_of = LmdbStore.delete_edges_of

        def delete_edges(self, txn, nid):
            n = delete_edges_of(self, txn, nid)
            if fire():
                stop_here(mode)
            return n
        LmdbStore.delete_edges_of = delete_edges
    elif mode == "batch":
        put = LmdbStore.put_vector

        def put_vector(self, txn, nid, v):
            put(self, txn, nid, v)
            if nid % 8 == 3 and fire():
                stop_here(mode)
        LmdbStore.put_vector = put_vector


def config(sync: bool):
    import engramdb

    return engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False),
                                 store=engramdb.StoreConfig(snapshot_every=12, sync=sync))


def main(store: str, ledger: str, mode: str, skip: int, sync: bool) -> None:
    import engramdb
    from engramdb.testing import meta
    from worker_hooks import durable_notes

    _install(mode, skip)
    eng = engramdb.open(store, dim=DIM, config=config(sync))
    n = meta(eng, "next_nid", 0)   # memories ever added (some maybe erased)
    with durable_notes(ledger) as note:
        sys.stdout.write(f"READY {n}\n")
        sys.stdout.flush()
        batch = n // 8
        while True:
            ids = eng.add_batch([item(i) for i in range(n, n + 8)])
            note("ADD " + " ".join(ids))
            n += 8
            batch += 1
            if batch % 2 == 0:
                for ns in "ab":
                    eng.link_batch([(f"m{i}", f"m{i - 4}", "supports", 0.5)
                                    for i in range(n - 8, n) if "ab"[i % 2] == ns and i >= 4 and i % 5], namespace=ns)
            if batch % 5 == 0:
                victim = n - 7
                note(f"DELETING m{victim}")
                eng.forget(f"m{victim}", namespace="ab"[victim % 2], hard=True)
                note(f"DELETED m{victim}")
            if batch % 3 == 0:
                eng.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1")
