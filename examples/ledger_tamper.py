"""The audit ledger catching a tampered entry.

An agent and a planner write to a store (adds, a link, a supersession, a forget); the ledger
lists each change with its actor and verb, and ``verify_ledger()`` passes. Then, with the
engine closed, one entry's actor is rewritten directly in the LMDB file (py-lmdb, as an
attacker with file access would) and a second entry is deleted: each time ``verify_ledger()``
reports the first bad entry and why (``engramdb ledger --store DIR --verify`` says the same
and exits with status 1).

    python examples/ledger_tamper.py
"""
from __future__ import annotations

import os
import tempfile

import lmdb
import msgpack
import numpy as np
from rich.console import Console
from rich.table import Table

import engramdb


def vec(i: int, dim: int = 32) -> np.ndarray:
    v = np.random.default_rng(i).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def show(eng: engramdb.Engram, console: Console, title: str) -> None:
    table = Table(title=title)
    for col in ("seq", "actor", "verb", "ids", "hash"):
        table.add_column(col)
    for e in eng.ledger():
        table.add_row(str(e.seq), e.actor, e.verb, ", ".join(e.ids), e.hash[:16])
    console.print(table)
    r = eng.verify_ledger()
    console.print(f"verify_ledger(): ok={r.ok} entries={r.entries} first_bad_seq={r.first_bad_seq} "
                  f"reason={r.reason!r}")


def tamper(path: str, seq: int, edit) -> None:
    """Apply ``edit`` to the raw entry ``seq`` (None: delete it), bypassing engramdb."""
    with lmdb.open(path, max_dbs=32) as env:
        db = env.open_db(b"ledger")
        with env.begin(write=True) as txn:
            key = seq.to_bytes(8, "big")
            entry = msgpack.unpackb(txn.get(key, db=db), raw=False)
            new = edit(entry)
            if new is None:
                txn.delete(key, db=db)
            else:
                txn.put(key, msgpack.packb(new, use_bin_type=True), db=db)


def main() -> None:
    console = Console()
    tmp = tempfile.TemporaryDirectory(prefix="ledger_demo_")   # (removed at the end)
    path = os.path.join(tmp.name, "store")
    with engramdb.open(path, dim=32, embedder="hashing", actor="assistant") as eng:
        eng.add("The user's flight is LH 1234 on 3 May", id="flight", embedding=vec(1))
        eng.add("Confirmation code QX7Z9M", id="code", embedding=vec(2))
        with eng.acting_as("planner"):
            eng.link("code", "flight", "supports")
            eng.supersede("flight", "The user's flight moved to 4 May", id="flight2", embedding=vec(3))
        eng.forget("code")
        show(eng, console, "the ledger as written")

    def steal(entry):   # claim the planner's supersession was the user's
        entry["h"]["actor"] = "user"
        return entry
    tamper(path, 5, steal)
    with engramdb.open(path, readonly=True) as eng:
        show(eng, console, "after rewriting entry 5's actor in the file")
    tamper(path, 5, lambda e: {**e, "h": {**e["h"], "actor": "planner"}})   # undo
    tamper(path, 4, lambda e: None)                                          # delete the link's entry
    with engramdb.open(path, readonly=True) as eng:
        show(eng, console, "after deleting entry 4 from the file")
    tmp.cleanup()


if __name__ == "__main__":
    main()
