"""recall_batch: each answer equals recall of that query alone (one batched kernel call)."""
from __future__ import annotations

import numpy as np
import pytest

import engramdb

FACTS = [
    ("trip", "I booked TAP flight TP 218, Boston to Lisbon."),
    ("code", "The airline emailed confirmation code QX7Z9M."),
    ("dates", "We leave on May 14 and come back on May 21."),
    ("hotel", "The hotel in Lisbon is near the Alfama district."),
    ("dog", "Our neighbour feeds the dog while we travel."),
    ("work", "I start the new job at the bakery in June."),
]
QUESTIONS = ["status of my TAP flight?", "where do we stay in Lisbon?", "who looks after the dog?",
             "when does the new job start?", "confirmation code of the airline"]


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", dim=256, embedder="hashing") as m:
        for i, text in FACTS:
            m.add(text, id=i)
        m.link("code", "trip", "evidence_for")
        m.link("dates", "trip", "evidence_for")
        m.link("hotel", "trip", "related_to")
        yield m


def _key(result):
    return [(h.id, round(h.score, 6), [s.id for s in h.path]) for h in result.hits], result.mode, \
        [g.reason for g in result.gaps]


@pytest.mark.parametrize("gate", ["on", "off", "auto"])
def test_batch_equals_one_by_one(mem, gate):
    batch = mem.recall_batch(QUESTIONS, k=4, gate=gate, reinforce=False)
    alone = [mem.recall(q, k=4, gate=gate, reinforce=False) for q in QUESTIONS]
    assert [_key(r) for r in batch] == [_key(r) for r in alone]
    assert batch[0].hits[0].id == "trip"


def test_batch_with_vectors_and_an_empty_batch(mem):
    rng = np.random.default_rng(0)
    v = rng.normal(size=(3, 256)).astype(np.float32)
    batch = mem.recall_batch(vectors=v, k=3, reinforce=False)
    alone = [mem.recall(vector=x, k=3, reinforce=False) for x in v]
    assert [_key(r) for r in batch] == [_key(r) for r in alone]
    assert mem.recall_batch([], k=3) == []


def test_batch_checks_its_arguments(mem):
    with pytest.raises(engramdb.InvalidInputError):
        mem.recall_batch()
    with pytest.raises(engramdb.InvalidInputError):
        mem.recall_batch(["a", "b"], vectors=np.ones((1, 256), np.float32))
    with pytest.raises(engramdb.EmptyTextError):
        mem.recall_batch(["fine", "  "])
    with pytest.raises(engramdb.DimensionMismatchError):
        mem.recall_batch(vectors=np.ones((2, 5), np.float32))


def test_batch_reinforces_each_hit(mem):
    before = mem.get("trip").access_count
    mem.recall_batch(["TAP flight", "flight to Lisbon"], k=1, reinforce=True)
    assert mem.get("trip").access_count == before + 2


def test_empty_namespace_gives_a_gap_and_an_unknown_one_an_error(mem):
    mem.add("only memory here", id="x", namespace="emptied")
    mem.forget("x", namespace="emptied", hard=True)
    (r,) = mem.recall_batch(["anything"], namespace="emptied")
    assert r.hits == [] and [g.reason for g in r.gaps] == ["empty_namespace"]
    with pytest.raises(engramdb.NamespaceError, match="no namespace 'nobody'"):
        mem.recall_batch(["anything"], namespace="nobody")


def test_a_recall_in_the_empty_default_namespace_warns_where_the_memories_are(tmp_path):
    """A recall in the wrong (empty) namespace says where the memories are: the warning does,
    to the developer; the gap (an answer, shown to models) names no other namespace."""
    with engramdb.open(tmp_path / "s", dim=32) as m:
        assert "holds no memories yet" in m.recall("anything").gaps[0].detail
        m.add("kept in another namespace", id="x", namespace="maya")
        with pytest.warns(engramdb.EmptyNamespaceWarning, match="'maya'"):
            gap = m.recall("anything", namespace="default").gaps[0]
        assert gap.reason == "empty_namespace" and "maya" not in gap.detail
