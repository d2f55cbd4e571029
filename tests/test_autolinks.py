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
