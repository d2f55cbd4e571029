"""A memory labelled with a topic the question names is no weak match: "what did we decide about
pricing?" and a decision tagged ``pricing`` that never says the word came with a weak_evidence
gap, and context() told the LLM the store may not hold the answer. Tags the engine gives (a chat
message's speaker and role, ``protected``) name no topic."""
import engramdb
import pytest


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add("Offer Acme a 20% discount on the annual Pro plan to prevent churn.", id="d", kind="decision",
              tags=["pricing"], created_at="2025-02-08")
        m.add("Ticket #101 (Acme): CSV export of the monthly report times out after 60 seconds.", id="t",
              tags=["ticket"], created_at="2025-01-15")
        m.add("Acme prefers email over phone calls.", id="p", created_at="2025-01-04")
        yield m


@pytest.mark.parametrize("query,first", [("what did we decide about pricing?", "d"),
                                         ("What tickets did Acme open in January?", "t")])
def test_a_named_tag_is_no_weak_match(mem, query, first):
    res = mem.recall(query, k=3, now="2025-03-25")
    hit = next(h for h in res.hits if h.id == first)
    assert hit.relevance >= res.stats["relevance_threshold"]
    assert "weak_evidence" not in [g.reason for g in res.gaps]
    assert not mem.context(query, now="2025-03-25").gaps


def test_an_unnamed_tag_changes_nothing(mem):
    res = mem.recall("quantum chromodynamics lecture notes", k=3, now="2025-03-25")
    assert all(h.relevance < res.stats["relevance_threshold"] for h in res.hits)
    assert "weak_evidence" in [g.reason for g in res.gaps]


def test_a_speakers_name_is_no_topic(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add_conversation([{"role": "user", "name": "Caroline", "content": "The weather was lovely today."}],
                           namespace="c")
        res = m.recall("What is Caroline's favourite book?", namespace="c", k=3)
    assert "weak_evidence" in [g.reason for g in res.gaps]
