"""Crash safety: an ingest process is killed with SIGKILL at chosen and random points, reopened,
and checked against the ledger of calls that returned (see crash_worker.py).

After every kill: each memory whose add returned (and that was not being deleted) is present,
with its own vector, and recallable by it; each memory whose hard forget returned is gone;
nothing half-written is visible (every record has its vector and id mapping, ids are whole
batches, edges point at live memories); the vector indexes and the CSR are rebuilt or repaired
from LMDB with counts that match it.
"""
import os

import numpy as np
import pytest

import engramdb
from engramdb.testing import (
    entry_counts, graph_edges, indexed_counts, indexed_ids, keyword_counts, meta, namespace_meta, nid_of,
    raw_records,
)

from .crash_worker import config, vec
from .kill import run_and_kill_worker

WORKER = os.path.join(os.path.dirname(__file__), "crash_worker.py")
MODES = ("batch", "index", "sidecar", "snapshot", "columns", "forget", "random")


def run_and_kill(store: str, ledger: str, mode: str, skip: int, sync: bool, rng) -> None:
    run_and_kill_worker(WORKER, [store, ledger, mode, str(skip), "1" if sync else "0"],
                        float(rng.uniform(0.05, 0.8)) if mode == "random" else None)


def read_ledger(ledger: str) -> tuple[set, set, set]:
    added, deleting, deleted = set(), set(), set()
    if os.path.exists(ledger):
        with open(ledger, encoding="utf-8") as fh:
            for line in fh:
                if not line.endswith("\n"):
                    continue   # torn last line: that call's return is not proven
                verb, *ids = line.split()
                {"ADD": added, "DELETING": deleting, "DELETED": deleted}[verb].update(ids)
    return added, deleting, deleted


def check_store(store: str, ledger: str) -> int:
    """Reopen ``store`` and check it against ``ledger``; returns the number of live memories."""
    added, deleting, deleted = read_ledger(ledger)
    with engramdb.open(store, config=config(False)) as eng:
        recs = raw_records(eng)
        n_next = meta(eng, "next_nid", 0)
        for nid, rec in recs.items():
            i = int(rec["id"][1:])
            assert nid == i and rec["namespace"] == "ab"[i % 2] and rec["text"].startswith(f"memory {i}:")
            assert nid_of(eng, rec["id"], rec["namespace"]) == nid
            stored = eng.get(rec["id"], namespace=rec["namespace"], with_embedding=True)   # nid's vector
            np.testing.assert_allclose(stored.embedding, vec(i), atol=1e-6)              # whole, not torn
        counts = entry_counts(eng)
        n_ids, n_vecs, n_edges = counts["ids"], counts["vec"], counts["edges"]
        assert n_ids == n_vecs == len(recs)
        assert n_next % 8 == 0                                    # batches are all or nothing
        present = {r["id"] for r in recs.values()}
        must = added - deleting
        assert must <= present, f"lost committed memories: {sorted(must - present)[:10]}"
        assert not (deleted & present), f"erased memories came back: {sorted(deleted & present)}"
        assert present <= {f"m{i}" for i in range(n_next)}
        # every id below next_nid is present unless a forget of it was started
        assert {f"m{i}" for i in range(n_next)} - present <= deleting
        # caches rebuilt or repaired from LMDB, counts equal
        for ns in "ab":
            live = {nid for nid, r in recs.items() if r["namespace"] == ns}
            assert (namespace_meta(eng, ns) or {"count": 0})["count"] == len(live)
            assert indexed_counts(eng).get(ns, 0) == len(live)
            if ns in indexed_counts(eng):
                assert indexed_ids(eng, ns) == {recs[nid]["id"] for nid in live}
            assert keyword_counts(eng).get(ns, 0) == len(live)   # the keyword leg too
        src, tgt, _rel, _w = graph_edges(eng)
        assert eng.n_edges == n_edges == len(src)
        assert set(src.tolist()) | set(tgt.tolist()) <= set(recs)
        for nid, rec in recs.items():   # each memory's next link to m<i-2> when both exist
            if nid >= 2 and nid - 2 in recs:
                assert any(e.target == f"m{nid - 2}" and e.relation is engramdb.Relation.NEXT
                           for e in eng.edges(rec["id"], namespace=rec["namespace"]))
        for mid in sorted(must, key=lambda x: int(x[1:]))[-40:]:   # the newest: recallable by vector
            i = int(mid[1:])
            hits = eng.recall(vector=vec(i), namespace="ab"[i % 2], k=3, gate="off").hits
            assert hits[0].id == mid and hits[0].similarity == pytest.approx(1.0, abs=1e-5)
            text = recs[i]["text"]                                # and by its text (keyword leg)
            assert mid in [h.id for h in eng.recall(text, namespace="ab"[i % 2], k=5,
                                                    vector=vec(i)).hits]
        assert eng.stats()["memories"] == len(recs)
        return len(recs)


def kill_loop(tmp_path, rng, plan) -> list[int]:
    store, ledger = str(tmp_path / "store"), str(tmp_path / "ledger.txt")
    sizes = []
    for mode, skip, sync in plan:
        run_and_kill(store, ledger, mode, skip, sync, rng)
        sizes.append(check_store(store, ledger))
    return sizes


def test_sigkill_at_each_kind_of_point(tmp_path, rng):
    """Short version (make test): one kill at each point."""
    sizes = kill_loop(tmp_path, rng, [(m, 1, i % 2 == 0) for i, m in enumerate(MODES)])
    assert min(sizes) >= 8


@pytest.mark.slow
def test_sigkill_many_times(tmp_path, rng):
    """28 kills: every point four times at several depths (SKIP), fsync on and off."""
    plan = [(MODES[i % len(MODES)], int(rng.integers(0, 4)), bool(i % 2)) for i in range(28)]
    sizes = kill_loop(tmp_path, rng, plan)
    assert len(sizes) == 28 and sizes[-1] >= 8 * 10
