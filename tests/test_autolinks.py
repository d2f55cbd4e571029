"""Auto-links (A-MEM): a new memory is linked ``related_to`` to its near neighbours above
``LinkConfig.cosine_threshold``, except near-copies (>= ``duplicate_cosine``), which would let
copies of one text lift each other in recall."""
import numpy as np
import pytest

import engramdb


def _vec(cos_to_e0):
    """A unit vector of dimension 8 with the given cosine to e0."""
    v = np.zeros(8)
    v[0], v[1] = cos_to_e0, np.sqrt(1 - cos_to_e0 ** 2)
    return v


def _linked(m, a, b):
    return any({e.source, e.target} == {a, b} and e.relation is engramdb.Relation.RELATED_TO for e in m.edges(a))


@pytest.mark.parametrize("cos, linked", [(0.5, False), (0.85, True), (0.97, True), (0.99, False), (1.0, False)])
def test_auto_links_skip_near_copies(tmp_path, cos, linked):
    with engramdb.open(tmp_path / "s", dim=8) as m:
        m.add("first wording", id="a", embedding=_vec(1.0))
        m.add("second wording", id="b", embedding=_vec(cos))
        assert _linked(m, "b", "a") is linked


def test_copies_of_one_question_do_not_outrank_the_answer(tmp_path):
    """Four copies of a question that shares one word with the query used to lift each other
    through their auto-links (cosine 1) above the message that answers."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("user: I live in Denver, in a small apartment near Washington Park.", id="fact")
        for i in range(4):
            m.add("user: What's the safest way to rebase a long-lived feature branch?", id=f"q{i}")
        assert not any(_linked(m, "q1", f"q{j}") for j in (0, 2, 3))
        hits = m.recall("Where do I live?", k=5, reinforce=False).hits
        by_id = {h.id: h for h in hits}
        assert by_id["q0"].score < 1.2   # no lift from its copies (was 1.54)
        assert hits[0].id == "fact"


def _rows(n, dim, seed):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(dim)
    v = base + 0.45 * rng.standard_normal((n, dim))   # near one another: cosines about 0.8
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _cos32(a, b):
    """The cosine of two float32 vectors, summed exactly enough to be the same on any CPU."""
    return np.float32(np.dot(np.asarray(a, np.float64), np.asarray(b, np.float64)))


def _exact(a, b):
    """:func:`_cos32` as ``Engram.edges`` gives a weight (7 significant digits)."""
    return float(f"{_cos32(a, b):.7g}")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_auto_link_weights_are_exact_cosines(tmp_path, seed):
    """A link's weight is stored, so it must not depend on the machine: hnswlib's distances
    (built for the CPU: AVX2 and AVX-512 add in different orders) differ in the last bits, and a
    store written on one machine differed byte for byte from the same writes on another."""
    vecs = _rows(40, 96, seed)
    with engramdb.open(tmp_path / "s", dim=96) as m:
        m.add_batch([{"id": f"m{i}", "text": f"memory {i}", "embedding": v} for i, v in enumerate(vecs[:20])])
        for i in range(20, 40):
            m.add(f"memory {i}", id=f"m{i}", embedding=vecs[i])
        stored = {f"m{i}": m.get(f"m{i}", with_embedding=True).embedding for i in range(40)}
        weights = [(e, _exact(stored[e.source], stored[e.target]))
                   for i in range(40) for e in m.edges(f"m{i}")
                   if e.relation is engramdb.Relation.RELATED_TO and e.source == f"m{i}"]
    assert len(weights) > 40
    assert all(e.weight == w for e, w in weights), [(e.source, e.target, e.weight, w) for e, w in weights if e.weight != w][:3]


def test_admission_logs_exact_cosines(tmp_path):
    """Admission's nearest cosine and novelty are logged: the exact cosine to the nearest stored
    memory or earlier candidate, the same on any machine."""
    vecs = _rows(30, 96, 4)
    with engramdb.open(tmp_path / "s", dim=96) as m:
        m.add_batch([{"id": f"m{i}", "text": f"stored memory number {i}", "embedding": v} for i, v in enumerate(vecs[:20])])
        stored = [m.get(f"m{i}", with_embedding=True).embedding for i in range(20)]
        decisions = m.admit_batch([{"id": f"c{i}", "text": f"candidate memory number {i}", "embedding": vecs[i]}
                                   for i in range(20, 30)])
    wide = vecs.astype(np.float64)
    unit = (wide / np.sqrt((wide * wide).sum(axis=1, keepdims=True))).astype(np.float32)   # as the engine makes a given vector
    for d in decisions:
        i = int(d.id[1:])
        best = max([_cos32(unit[i], v) for v in stored] + [_cos32(unit[i], unit[j]) for j in range(20, i)])
        assert d.nearest_cosine == float(best)
        assert d.factors["semantic_novelty"] == float(np.float32(1.0) - best)
