"""Replace-import worker that the crash tests kill with SIGKILL (run as a script, see
test_import_crash.py).

Usage: ``python import_worker.py STORE EXPORTS LEDGER MODE SKIP``

STORE holds the memories of EXPORTS/old or EXPORTS/new (two exports of the same ids, worded
differently, long ones stored as pieces, more or fewer of them in the other version). The
worker finds which one STORE holds, then imports the other one with ``on_conflict="replace"``,
flushes, and goes on alternating. Before each import it appends ``IMPORTING <version>`` to
LEDGER and after it returns ``IMPORTED <version>``, each line fsynced.

MODE places a hook that prints ``HOOK <mode>`` and sleeps until killed, after SKIP earlier hits
of the same point:

- ``erase``: inside the import's write transaction, a stored memory (or piece) just erased;
- ``insert``: inside it, the export's records half inserted;
- ``ledger``: inside it, its audit ledger entry appended, just before the commit;
- ``index``: inside the flush after an import, an hnswlib index file written, not renamed;
- ``columns``: inside the flush, the column snapshot written, its transaction not committed;
- ``random``: no hook; the test kills at a random moment.
"""
import os
import sys

from worker_hooks import after as trigger, durable_notes, stop_here


def _install(mode: str, skip: int) -> None:
    from engramdb.index import hnsw
    from engramdb.store import ledger
    from engramdb.store.lmdb_store import LmdbStore
    from engramdb.write.unit import WriteUnit

    fire = trigger(skip)

    def after(cls_or_mod, name, when=lambda *a, **k: True):
        orig = getattr(cls_or_mod, name)

        def wrapped(*args, **kwargs):
            out = orig(*args, **kwargs)
            if when(*args, **kwargs) and fire():
                stop_here(mode)
            return out
        setattr(cls_or_mod, name, wrapped)

    if mode == "erase":
        after(WriteUnit, "erase")
    elif mode == "insert":
        after(WriteUnit, "insert", lambda self, nid, rec, *a, **k: rec.get("chunk_of") is not None)
    elif mode == "ledger":
        after(ledger, "append")
    elif mode == "columns":
        after(LmdbStore, "save_arrays", lambda self, txn, db_name, *a, **k: db_name == "cols")
    elif mode == "index":
        class Os:   # the ``os`` that hnsw.py sees: stops before an index file's rename
            def __getattr__(self, name):
                return getattr(os, name)

            def replace(self, src, dst):
                if dst.endswith(".hnsw") and fire():
                    stop_here(mode)
                os.replace(src, dst)
        hnsw.os = Os()


def main(store: str, exports: str, ledger_path: str, mode: str, skip: int) -> None:
    import engramdb

    _install(mode, skip)
    eng = engramdb.open(store)
    text = eng.get("k0", namespace="ns").text
    version = "new" if text.startswith("new") else "old"
    with durable_notes(ledger_path) as note:
        sys.stdout.write("READY\n")
        sys.stdout.flush()
        while True:
            version = "old" if version == "new" else "new"
            note(f"IMPORTING {version}")
            eng.import_from(os.path.join(exports, version), on_conflict="replace")
            note(f"IMPORTED {version}")
            eng.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
