"""Writer that the ledger crash test kills with SIGKILL (run as a script, see test_ledger_crash.py).

Usage: ``python ledger_worker.py STORE NOTES SEED MODE``

It opens STORE and writes in a loop, choosing by SEED among ``add``, ``link``, ``supersede``,
``forget`` (archive) and ``forget`` (hard), over the active memories of namespace
``"default"``; new ids are ``m<next nid>``, so they never repeat across runs. Around each call
it appends to NOTES, fsynced: ``DO <verb> <id>`` before and ``DONE <verb> <id>`` after the call
returned (its write unit committed).

MODE ``random``: no hook, the test kills at a random moment. ``in_txn``: the 20th write stops
inside its transaction, its ledger entry appended but not committed, prints ``HOOK`` and sleeps
until killed. ``after_commit``: the 20th call returns, then the worker prints ``HOOK`` and
sleeps before its ``DONE`` line.
"""
import sys

import numpy as np
from worker_hooks import durable_notes, stop_here

DIM = 16


def vec(i: int) -> np.ndarray:
    v = np.random.default_rng(424_242 + i).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def main(store: str, notes: str, seed: int, mode: str) -> None:
    import engramdb
    from engramdb.store import ledger
    from engramdb.testing import meta

    calls = {"n": 0}
    if mode == "in_txn":
        append = ledger.append

        def append_then_stop(*args, **kwargs):
            out = append(*args, **kwargs)
            calls["n"] += 1
            if calls["n"] == 20:
                stop_here()
            return out
        ledger.append = append_then_stop

    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False, detect_conflicts=False),
                                store=engramdb.StoreConfig(sync=False, snapshot_every=16))
    eng = engramdb.open(store, dim=DIM, embedder="hashing", config=cfg, actor=f"worker-{seed}")
    rng = np.random.default_rng(seed)
    n = meta(eng, "next_nid", 0)
    active = [m.id for m in eng.query(limit=100_000)] if "default" in eng.namespaces() else []
    with durable_notes(notes) as note:
        sys.stdout.write("READY\n")
        sys.stdout.flush()
        while True:
            ops = ["add", "add", "add", "link", "supersede", "archive", "erase"]
            op = rng.choice(ops) if len(active) > 3 else "add"
            if op == "add":
                mid = f"m{n}"
                note(f"DO add {mid}")
                eng.add(f"memory {n} about topic {n % 7}", id=mid, embedding=vec(n))
                n += 1
                active.append(mid)
            elif op == "link":
                a, b = rng.choice(len(active), 2, replace=False)
                mid = active[a]
                note(f"DO link {mid}")
                # a new weight each call: a link set again to its weight changes nothing and has no entry
                eng.link(active[a], active[b], "supports", float(rng.uniform(0.05, 1.0)))
            elif op == "supersede":
                old = active.pop(int(rng.integers(len(active))))
                mid = f"m{n}"
                note(f"DO supersede {mid}")
                eng.supersede(old, f"memory {n} replacing {old}", id=mid, embedding=vec(n))
                n += 1
                active.append(mid)
            else:
                mid = active.pop(int(rng.integers(len(active))))
                note(f"DO forget {mid}")
                eng.forget(mid, hard=op == "erase")
            calls["n"] += mode == "after_commit"
            if calls["n"] == 20 and mode == "after_commit":
                stop_here()
            note(f"DONE {op if op in ('add', 'link', 'supersede') else 'forget'} {mid}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
