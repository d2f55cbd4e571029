"""Exact score ties in recall: the hit with the higher cosine to the query first, then insertion
order (the rule of ``engramdb.recall.ranking``), in ``recall`` and ``recall_batch`` alike, and
also when the tie straddles the k-th place.

Every memory of a time question's window starts with the same base ("what did I do on
14 May 2024?"), so they tie exactly; before, they kept insertion order whatever their similarity.
"""
import numpy as np
import pytest

import engramdb
from tests.conftest import basis

MAY_14 = 1715680800.0   # 2024-05-14T10:00:00Z
QUESTION = "what did I do on 14 May 2024?"
TEXTS = {"a": "Bought groceries at the market.", "b": "Had lunch with Ana.",
         "c": "Repainted the garden fence.", "d": "Fixed the bike chain."}


@pytest.fixture
def tied(tmp_path):
    with engramdb.open(tmp_path / "s", dim=16, embedder="hashing") as mem:
        for i, (mid, text) in enumerate(TEXTS.items()):
            mem.add(text, id=mid, embedding=basis(i), created_at=MAY_14 + 60 * i)
        # cosines to the query: a 0.2, b 0.5, c 0.2 (the same float as a's), d 0.8 (over the norm)
        q = 0.2 * basis(0) + 0.5 * basis(1) + 0.2 * basis(2) + 0.8 * basis(3)
        yield mem, (q / np.linalg.norm(q)).astype(np.float32)


def test_ties_break_by_cosine_then_insertion(tied):
    mem, q = tied
    res = mem.recall(QUESTION, vector=q, k=4, reinforce=False)
    assert len({h.score for h in res.hits}) == 1   # an exact tie, all four
    assert [h.id for h in res.hits] == ["d", "b", "a", "c"]
    assert res.hits[0].similarity == pytest.approx(0.8 / np.linalg.norm([0.2, 0.5, 0.2, 0.8]), rel=1e-5)


def test_a_tie_at_the_cut_keeps_the_closer(tied):
    mem, q = tied
    assert [h.id for h in mem.recall(QUESTION, vector=q, k=2, reinforce=False).hits] == ["d", "b"]
    assert [h.id for h in mem.recall(QUESTION, vector=q, k=3, reinforce=False).hits] == ["d", "b", "a"]


def test_batch_ranks_ties_alike(tied):
    mem, q = tied
    for k in (2, 4):
        batch = mem.recall_batch([QUESTION, QUESTION], vectors=np.stack([q, q]), k=k, reinforce=False)
        one = mem.recall(QUESTION, vector=q, k=k, reinforce=False)
        assert [[h.id for h in r.hits] for r in batch] == [[h.id for h in one.hits]] * 2
