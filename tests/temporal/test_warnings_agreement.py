"""contradiction_warnings (vectorised over the CSR rows of the hits) agrees with a plain scan of
the directed edge list, on hypothesis-generated graphs with self-loops, dead nodes and duplicates."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engramdb.graph.csr import build_symmetric_csr
from engramdb.slots import contradiction_warnings
from engramdb.types import STATE_BY_CODE, Relation

C = Relation.CONTRADICTS.code


@st.composite
def cases(draw):
    n = draw(st.integers(1, 20))
    node = st.integers(0, n - 1)
    rel = st.sampled_from([C, C, Relation.SUPPORTS.code, Relation.SUPERSEDES.code])
    edges = draw(st.lists(st.tuples(node, node, rel), max_size=50, unique=True))
    hits = draw(st.lists(st.integers(0, n + 2), max_size=8, unique=True))   # some beyond the CSR
    alive = np.array(draw(st.lists(st.booleans(), min_size=n + 3, max_size=n + 3)))
    state = np.array(draw(st.lists(st.integers(0, 2), min_size=n + 3, max_size=n + 3)), np.uint8)
    return n, edges, hits, alive, state


@settings(max_examples=200, deadline=None)
@given(cases())
def test_matches_edge_scan(case):
    n, edges, hits, alive, state = case
    src = np.array([e[0] for e in edges], np.uint32)
    tgt = np.array([e[1] for e in edges], np.uint32)
    rel = np.array([e[2] for e in edges], np.uint8)
    csr = build_symmetric_csr(src, tgt, rel, np.ones(len(edges), np.float32), n)
    ids = [f"n{i}" for i in range(n + 3)]
    got = contradiction_warnings(csr, hits, state, alive, ids, C)
    hit_set = {h for h in hits if h < n}
    expected = set()
    for s, t, r in edges:
        if r != C:
            continue
        if (s in hit_set and alive[t]) or (t in hit_set and alive[s]):
            expected.add((f"n{s}", f"n{t}", STATE_BY_CODE[state[s]], STATE_BY_CODE[state[t]],
                          s in hit_set, t in hit_set))
    got_t = [(w.source, w.target, w.source_state, w.target_state, w.source_in_hits, w.target_in_hits) for w in got]
    assert len(got_t) == len(set(got_t))          # each pair once
    assert set(got_t) == expected
