"""The incrementally merged CSR holds exactly the entries a full build holds."""
import numpy as np
from hypothesis import given, settings, strategies as st

from engramdb.graph.csr import CSRGraph, MemoryGraph, build_symmetric_csr


def _entries(csr: CSRGraph) -> list[tuple]:
    rows = np.repeat(np.arange(csr.n_nodes), np.diff(csr.indptr))
    return sorted(zip(rows.tolist(), csr.indices.tolist(), csr.relation.tolist(),
                      csr.weight.tolist(), csr.forward.tolist()))


edge = st.tuples(st.integers(0, 11), st.integers(0, 11), st.integers(0, 12),
                 st.sampled_from([0.25, 0.5, 1.0]))


@settings(max_examples=150, deadline=None)
@given(batches=st.lists(st.tuples(st.lists(edge, max_size=8), st.integers(0, 4)), min_size=1, max_size=6))
def test_merge_equals_full_build(batches):
    g = MemoryGraph()
    n = 12
    for edges, grow in batches:
        if edges:
            s, t, r, w = (np.array(x) for x in zip(*edges))
            g.upsert_many(s.astype(np.uint32), t.astype(np.uint32), r.astype(np.uint8), w.astype(np.float32))
        n += grow
        merged = g.csr(n)
        full = build_symmetric_csr(*g.edges(), n)
        assert merged.n_nodes == n
        assert np.array_equal(np.diff(merged.indptr), np.diff(full.indptr))
        assert _entries(merged) == _entries(full)


@settings(max_examples=200, deadline=None)
@given(batches=st.lists(st.tuples(st.lists(edge, max_size=6), st.booleans()), min_size=1, max_size=8))
def test_merge_equals_full_build_when_new_edges_are_reweighted_before_it(batches):
    """An edge added and then given another weight before the next merge, between nodes the
    last CSR did not have yet (a link repeated with a new weight before any recall): the merge
    indexed the old CSR's rows with them and raised IndexError."""
    g = MemoryGraph()
    g.csr(1)   # an early, small CSR: later edges reach past its nodes
    n = 1
    for edges, merge in batches:
        if edges:
            s, t, r, w = (np.array(x) for x in zip(*edges))
            g.upsert_many(s.astype(np.uint32), t.astype(np.uint32), r.astype(np.uint8), w.astype(np.float32))
            n = max(n, int(s.max()) + 1, int(t.max()) + 1)
        if merge:
            merged, full = g.csr(n), build_symmetric_csr(*g.edges(), n)
            assert _entries(merged) == _entries(full)
    assert _entries(g.csr(n)) == _entries(build_symmetric_csr(*g.edges(), n))


def test_snapshot_roundtrip_keeps_edges_and_allows_writes():
    g = MemoryGraph()
    g.upsert_many(np.array([0, 1], np.uint32), np.array([1, 2], np.uint32), np.array([9, 1], np.uint8),
                  np.array([1.0, 0.5], np.float32))
    csr = g.csr(3)
    h = MemoryGraph()
    h.set_csr(CSRGraph(**{k: v.copy() for k, v in csr.arrays().items()}))
    assert len(h) == 2 and h.has(0, 1, 9) and not h.has(1, 0, 9)
    h.upsert_many(np.array([0], np.uint32), np.array([1], np.uint32), np.array([9], np.uint8),
                  np.array([0.25], np.float32))   # re-weight, not a new edge
    assert len(h) == 2
    assert _entries(h.csr(3)) == _entries(build_symmetric_csr(*h.edges(), 3))


def test_a_link_given_a_new_weight_before_any_recall(tmp_path):
    """Through the engine: the same link set twice (another weight) between two new memories,
    then a recall (it raised IndexError)."""
    import engramdb

    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("first memory about apples", id="a")
        eng.recall("apples")   # the CSR over the memories so far
        eng.add("second memory about pears", id="x")
        eng.add("third memory about plums", id="y")
        eng.link("x", "y", "supports", 0.5)
        eng.link("x", "y", "supports", 0.8)
        assert {h.id for h in eng.recall("pears plums").hits} >= {"x", "y"}
        assert [(e.target, e.weight) for e in eng.edges("x") if e.relation.value == "supports"] == [("y", 0.8)]


def test_related_lists_one_relation_in_both_directions():
    src, tgt = np.array([0, 2, 1, 3]), np.array([1, 1, 3, 0])
    rel = np.array([5, 5, 7, 5], np.uint8)
    csr = build_symmetric_csr(src, tgt, rel, np.ones(4, np.float32), 5)
    assert sorted(csr.related(1, 5).tolist()) == [0, 2]      # 0 -> 1 and 2 -> 1, seen from 1
    assert csr.related(1, 7).tolist() == [3]
    assert sorted(csr.related(0, 5).tolist()) == [1, 3]
    assert csr.related(4, 5).tolist() == [] and csr.related(9, 5).tolist() == []   # none; past the graph
    assert csr.related(0, 5).dtype == np.int64
