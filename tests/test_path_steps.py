"""Explaining paths: each step names the strongest edge joining its two memories, in its
direction, whichever of the two rows (a hub's long one or the other) is scanned."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engramdb.graph.csr import build_symmetric_csr
from engramdb.recall.results import path_of
from engramdb.types import RELATION_BY_CODE


def strongest(src, tgt, rel, w, mult, u, v):
    """(relation, forward) of the strongest edge between u and v; among equals one from u to v,
    then the smaller relation code."""
    keys = [(float(np.float32(x)) * float(mult[r]), s == u, -r) for s, t, r, x in zip(src, tgt, rel, w)
            if {s, t} == {u, v}]
    best = max(keys)
    return RELATION_BY_CODE[-best[2]], best[1]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_steps_match_a_scan_of_every_edge(data):
    n = data.draw(st.integers(3, 12))
    m = data.draw(st.integers(1, 40))
    hub = 0   # many edges at node 0, so its row is the long one
    pairs = [(hub, data.draw(st.integers(1, n - 1))) if data.draw(st.booleans()) else
             tuple(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
             for _ in range(m)]
    src = np.array([p[0] for p in pairs], np.uint32)
    tgt = np.array([p[1] for p in pairs], np.uint32)
    rel = np.array(data.draw(st.lists(st.integers(0, len(RELATION_BY_CODE) - 1), min_size=m, max_size=m)), np.uint8)
    w = np.array(data.draw(st.lists(st.sampled_from([0.25, 0.5, 0.75, 1.0]), min_size=m, max_size=m)), np.float32)
    # keep (src, tgt, rel) unique, as the engine does
    _, first = np.unique(np.stack([src, tgt, rel], 1), axis=0, return_index=True)
    keep = np.sort(first)
    src, tgt, rel, w = src[keep], tgt[keep], rel[keep], w[keep]
    csr = build_symmetric_csr(src, tgt, rel, w, n)
    mult = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(RELATION_BY_CODE),
                                       max_size=len(RELATION_BY_CODE))), np.float32)
    ids = [f"m{i}" for i in range(n)]
    for s, t in {(int(a), int(b)) for a, b in zip(src, tgt)}:
        for u, v in ((s, t), (t, s)):
            parent = np.array([-1, u], np.int32)   # kernel rows: u (a seed), then v reached from u
            pos = np.zeros(n, np.int32)
            pos[u], pos[v] = 0, 1
            steps = path_of(v, parent, pos, csr, mult, ids)
            assert [x.id for x in steps] == [f"m{u}", f"m{v}"]
            rel_name, forward = strongest(src.tolist(), tgt.tolist(), rel.tolist(), w.tolist(), mult, u, v)
            assert (steps[1].relation, steps[1].forward) == (rel_name, forward)
