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


@pytest.mark.parametrize("question, asks", [
    ("how much do I earn at Abbott?", True), ("How much does James pay per cooking class?", True),
    ("how much was the rent?", True), ("how much money did I spend on the trip?", True),
    ("How much did the trip cost?", True), ("what's my rent?", True), ("What is Caroline's salary?", True),
    ("how much do I run?", False), ("how much do you like it?", False), ("how much time do I spend on email?", False),
    ("how much sleep do I get?", False), ("how much weight did I lose?", False), ("what do I earn?", False),
])
def test_asks_money_reads_a_question_for_an_amount(question, asks):
    from engramdb.answer_types import asks_money

    assert asks_money(question) is asks


@pytest.mark.parametrize("text, lacks", [
    ("I work at Abbott as a nurse.", True), ("My yoga class at the Y is great.", True),
    # (helper-208) an amount without its currency, in words, or relative
    ("Rent is 1800 a month.", False), ("I got a 5% raise.", False), ("I make eighty thousand a year.", False),
    ("Rent is half my paycheck.", False), ("I'm paid minimum wage.", False),
    # (helper-210) a date, a year, a clock time, a duration or a code is no amount
    ("My rent is due on the 1st of every month.", True), ("I've lived here since 2019.", True),
    ("The landlord texted at 7am.", True), ("I've been at my job for 5 years.", True),
    ("Nothing new on the rent front.", True), ("It's paid at apartment 4B.", True),
    ("I make 85k a year.", False), ("It was $1,200 in 2023.", False),
    ("At only $10 per class, it's very cheap!", False), ("I make 85k a year.", False), ("It was fifty bucks.", False),
    ("Rent is 1,200 euros.", False), ("The class was free!", False), ("£900 a month", False), ("costs 30 USD", False),
])
def test_a_text_without_an_amount_lacks_the_money_asked(text, lacks):
    from engramdb.answer_types import lacks_asked_value

    assert lacks_asked_value("how much do I pay for it?", text) is lacks
    assert lacks_asked_value("where do I work?", text) is False


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_a_question_of_money_is_weak_without_an_amount(tmp_path, embedder):
    """helper-203: "how much do I earn at Abbott?" got "I just started as a nurse at Abbott." at
    relevance 0.86 and no gap: the store never says what the job pays."""
    chat = ["I just started as a nurse at Abbott.", "My commute is now 25 minutes by car.",
            "We pay 1,800 dollars a month for the new apartment.", "My yoga class at the Y is great."]
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": f"2025-04-0{i + 1}T09:00:00Z"}
                              for i, t in enumerate(chat)], namespace="me")
        for question in ("how much do I earn at Abbott?", "how much does my yoga class cost?"):
            res = mem.recall(question, namespace="me", k=2)
            assert "weak_evidence" in [g.reason for g in res.gaps], (question, [(h.text, h.relevance) for h in res.hits])
        res = mem.recall("how much do I pay for the apartment?", namespace="me", k=2)
        assert "1,800" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        assert not res.gaps
