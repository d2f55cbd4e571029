"""Close and reopen at each stage gives the same memories, edges and recall results."""
import os

import numpy as np
import pytest

import engramdb
from engramdb import MemoryKind, MemoryState, Relation
from engramdb.testing import cache_status, crash

from .conftest import unit_vectors

DIM = 16


def _recall_ids(eng, qvec, **kw):
    return [(h.id, round(h.score, 6), tuple(s.id for s in h.path)) for h in eng.recall(vector=qvec, k=8, **kw).hits]


def test_reopen_empty(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        assert eng.stats()["memories"] == 0
    with engramdb.open(tmp_store) as eng:
        assert eng.dim == DIM
        res = eng.recall(vector=np.ones(DIM))
        assert res.hits == [] and res.gaps[0].reason == "empty_namespace"


def test_reopen_after_add_link_supersede(tmp_store, rng):
    vecs = unit_vectors(rng, 30, DIM)
    q = vecs[3] + 0.1 * vecs[4]
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add_batch([{"id": f"m{i}", "text": f"memory {i}", "embedding": v, "tags": ["t"]} for i, v in enumerate(vecs)])
        before_add = _recall_ids(eng, q)
    with engramdb.open(tmp_store) as eng:
        assert _recall_ids(eng, q) == before_add
        eng.link("m3", "m20", "supports", 0.9)
        eng.link("m20", "m21", Relation.CAUSED_BY)
        before_link = _recall_ids(eng, q, gate="on")
        assert any(h[0] == "m20" for h in before_link)
    with engramdb.open(tmp_store) as eng:
        assert _recall_ids(eng, q, gate="on") == before_link
        new = eng.supersede("m20", "memory 20, revised", embedding=vecs[20])
        assert eng.get("m20").state is MemoryState.SUPERSEDED
        assert eng.get("m20").superseded_by == new
        after = _recall_ids(eng, q, gate="on")
        assert "m20" not in [h[0] for h in after]
        assert "m20" in [h.id for h in eng.recall(vector=q, k=30, gate="on", include_superseded=True).hits]
    with engramdb.open(tmp_store) as eng:
        assert _recall_ids(eng, q, gate="on") == after
        rels = {(e.source, e.target, e.relation) for e in eng.edges("m20")}
        assert (new, "m20", Relation.SUPERSEDES) in rels and ("m3", "m20", Relation.SUPPORTS) in rels


def test_index_rebuilt_when_missing_or_stale(tmp_store, rng):
    vecs = unit_vectors(rng, 20, DIM)
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add_batch([{"id": f"m{i}", "text": "x", "embedding": v} for i, v in enumerate(vecs)])
        expected = _recall_ids(eng, vecs[5])
    index_dir = os.path.join(tmp_store, "index")
    for f in os.listdir(index_dir):
        os.remove(os.path.join(index_dir, f))
    with engramdb.open(tmp_store) as eng:   # missing: rebuilt from LMDB
        assert _recall_ids(eng, vecs[5]) == expected
        # simulate a crash: the LMDB commit lands but the index is never saved again
        eng.add("late", id="late", embedding=vecs[0] + 0.01)
        crash(eng, saved=("graph", "columns", "keyword"))
    with engramdb.open(tmp_store) as eng:   # stale sidecar generation: rebuilt
        assert eng.recall(vector=vecs[0], k=2).hits[1].id in {"late", "m0"}
        assert {h.id for h in eng.recall(vector=vecs[0], k=2).hits} == {"late", "m0"}


def test_graph_snapshot_and_delta(tmp_store, rng):
    vecs = unit_vectors(rng, 10, DIM)
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(snapshot_every=3))
    with engramdb.open(tmp_store, dim=DIM, config=cfg) as eng:
        eng.add_batch([{"id": f"m{i}", "text": "x", "embedding": v} for i, v in enumerate(vecs)])
        eng.link_batch([("m0", "m1"), ("m1", "m2", "next"), ("m2", "m3", "supports", 0.5)])  # snapshot
        assert eng.stats()["delta_edges"] == 0
        eng.link("m3", "m4", "related_to", 0.25)                                         # delta
        eng.link("m0", "m1", "related_to", 0.75)                                         # re-weight
        assert eng.stats()["delta_edges"] == 2
        crash(eng)  # before close() folds the delta into the snapshot
    with engramdb.open(tmp_store) as eng:
        assert eng.stats()["edges"] == 4
        w = {(e.source, e.target): e.weight for e in eng.edges("m1")}
        assert w[("m0", "m1")] == 0.75
        assert {(e.source, e.target) for e in eng.edges("m3")} == {("m2", "m3"), ("m3", "m4")}


def test_forget_soft_and_hard(tmp_store, rng):
    vecs = unit_vectors(rng, 6, DIM)
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add_batch([{"id": f"m{i}", "text": "x", "embedding": v} for i, v in enumerate(vecs)])
        eng.link("m0", "m1")
        eng.forget("m1")
        assert eng.get("m1").state is MemoryState.ARCHIVED
        assert "m1" not in [h.id for h in eng.recall(vector=vecs[1], k=6).hits]
        eng.forget("m0", hard=True)
        with pytest.raises(engramdb.MemoryNotFoundError):
            eng.get("m0")
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(engramdb.MemoryNotFoundError):
            eng.get("m0")
        assert eng.edges("m1") == []
        assert "m0" not in [h.id for h in eng.recall(vector=vecs[0], k=6, include_archived=True).hits]
        assert eng.stats()["memories"] == 5


def test_batch_equals_one_by_one(tmp_path, rng):
    vecs = unit_vectors(rng, 7, DIM)
    items = [{"id": f"m{i}", "text": f"t{i}", "embedding": v, "kind": "semantic", "created_at": 1e9 + i}
             for i, v in enumerate(vecs)]
    no_link = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))
    with engramdb.open(tmp_path / "a", dim=DIM, config=no_link) as a, \
            engramdb.open(tmp_path / "b", dim=DIM, config=no_link) as b:
        a.add_batch(items)
        for it in items:
            b.add(**{k: v for k, v in it.items()})
        for v in vecs:
            assert _recall_ids(a, v) == _recall_ids(b, v)
        assert a.get("m3").kind is MemoryKind.SEMANTIC and a.get("m3").created_at == 1e9 + 3


def test_namespaces_are_isolated(tmp_store, rng):
    vecs = unit_vectors(rng, 4, DIM)
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("alice's", id="x", namespace="alice", embedding=vecs[0])
        eng.add("bob's", id="x", namespace="bob", embedding=vecs[0])
        assert [h.text for h in eng.recall(vector=vecs[0], namespace="alice").hits] == ["alice's"]
        with pytest.raises(engramdb.MemoryNotFoundError):
            eng.link("x", "y", namespace="alice")
        assert eng.namespaces() == ["alice", "bob"]


def test_column_snapshot_fast_path_and_stale_fallback(tmp_store, rng):
    vecs = unit_vectors(rng, 12, DIM)
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add_batch([{"id": f"m{i}", "text": "x", "embedding": v, "namespace": f"ns{i % 3}",
                        "kind": "semantic" if i % 2 else "episodic"} for i, v in enumerate(vecs)])
        eng.forget("m4", namespace="ns1", hard=True)
        eng.forget("m5", namespace="ns2")
        expected = {ns: _recall_ids(eng, vecs[7], namespace=ns) for ns in ("ns0", "ns1", "ns2")}
    with engramdb.open(tmp_store) as eng:                      # from the column snapshot
        assert cache_status(eng)["columns"] == "current"
        assert {ns: _recall_ids(eng, vecs[7], namespace=ns) for ns in expected} == expected
        eng.add("late", id="late", namespace="ns0", embedding=vecs[0])
        crash(eng)                        # before the column snapshot is saved again
    with engramdb.open(tmp_store) as eng:                      # stale snapshot: full scan
        assert cache_status(eng)["columns"] == "rebuilt"
        assert eng.get("late", namespace="ns0").text == "late"
        assert "late" in [h.id for h in eng.recall(vector=vecs[0], namespace="ns0", k=2).hits]
        assert {ns: _recall_ids(eng, vecs[7], namespace=ns) for ns in ("ns1", "ns2")} == \
            {ns: expected[ns] for ns in ("ns1", "ns2")}
