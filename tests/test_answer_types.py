"""What a "how <adjective>" question asks for (a distance, a duration, an age ...), and a memory
that gives it counted as holding the adjective: relevance only, never the ranking."""
from __future__ import annotations

import pytest

import engramdb
from engramdb.answer_types import answered_terms, asked_types


@pytest.mark.parametrize("question, text, terms", [
    ("How far did I run?", "Ran 5 km this morning.", {"far"}),
    ("how far did I run last week?", "Did a 10k on the trail", {"far"}),
    ("How far is the office?", "It's a 20-minute walk, about 2 miles.", {"far"}),
    ("How long was my longest run?", "My longest run ever was 21 km, a half marathon.", {"long"}),
    ("How long have I lived in Leeds?", "We've been here three years now.", {"long"}),
    ("How long is the flight?", "The flight takes 11 hours.", {"long"}),
    ("How old is my daughter?", "Lily turned 7 last week!", {"old"}),
    ("How old is Maya?", "Maya is 34.", {"old"}),
    ("How old is Maya?", "She's 34 years old and lives in Oslo.", {"old"}),
    ("How early do I start work?", "My shift starts at 6:30am.", {"earli"}),
    ("How big is the flat?", "It's 65 square metres, two bedrooms.", {"big"}),
    ("How fast can I run 5k?", "My 5k PB is 24 minutes.", {"fast"}),
    # no value of the asked kind, or no such question
    ("How far did I run?", "I love running.", set()),
    ("How far did I run?", "I ran for 3 hours", set()),
    ("How long have I lived in Leeds?", "I live in Leeds.", set()),
    ("How old is my daughter?", "The rent is 900 pounds a month.", set()),
    ("How old is Maya?", "Maya is 34 km away.", set()),
    ("What is my name?", "Ran 5 km.", set()),
    ("How did the run go?", "Ran 5 km.", set()),
])
def test_a_value_of_the_asked_kind_answers_the_adjective(question, text, terms):
    assert answered_terms(question, text) == terms


def test_asked_types_reads_the_wh_phrase():
    assert asked_types("How far did I run?") == (("far", ("distance",)),)
    assert asked_types("how long and how far was the hike?") == (("long", ("duration", "length", "distance")),
                                                                 ("far", ("distance",)))
    assert asked_types("How many times did I run?") == ()
    assert asked_types("Where is the far shore?") == ()


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_distance_answers_how_far(tmp_path, embedder):
    """helper199: "how far did I run?" found "Ran 5 km this morning." first, but with relevance
    0.115 and a weak_evidence gap (hashing): nothing knew that "how far" asks for a distance, so
    only "run" of its two words matched. A memory of a run without a distance stays weak."""
    chat = ["Ran 5 km this morning.", "I love running in the rain.", "My sister lives in Oslo."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": f"2025-04-06T09:{i:02d}:00Z"}
                              for i, t in enumerate(chat)], namespace="me")
        res = mem.recall("How far did I run?", namespace="me", k=3)
        by_text = {h.text: h.relevance for h in res.hits}
        threshold = res.stats["relevance_threshold"]
        assert by_text["user: Ran 5 km this morning."] >= threshold, by_text
        assert by_text.get("user: I love running in the rain.", 0.0) < threshold, by_text
        assert not [g for g in res.gaps if g.reason == "weak_evidence"]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_value_about_something_else_answers_nothing(tmp_path, embedder):
    """helper-203: "how far is the gym?" and "how long is my commute?" (never said) got "The new
    house is 12 miles from Tom's office." and a half marathon's time at relevance 0.92 and 0.89,
    no gap: any distance or duration counted as the answer. A value answers the adjective only in a
    memory that holds another word of the question."""
    chat = ["The new house is 12 miles from Tom's office.", "Tom ran his first half marathon on Sunday, 1 hour 52 minutes.",
            "We adopted a beagle named Biscuit."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": f"2025-04-06T09:{i:02d}:00Z"}
                              for i, t in enumerate(chat)], namespace="me")
        for question in ("how far is the gym?", "how long is my commute?"):
            res = mem.recall(question, namespace="me", k=3)
            assert "weak_evidence" in [g.reason for g in res.gaps], (question, [(h.text, h.relevance) for h in res.hits])
        res = mem.recall("how far is the office?", namespace="me", k=3)
        assert "12 miles" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
