"""A question that shares a content word with a memory finds it, with either embedder.

scikit-learn's stop list holds content words ("name", "move", "call", "fire", "bill", ...): the
keyword leg dropped them from the question, so "where did we move?" had no term at all, and a
long memory's hashed n-gram cosine to a short question falls under ``cosine_floor``, so neither
leg found it (and a found one carried a ``weak_evidence`` gap: no question term covered).
"""
import pytest

import engramdb

# a long memory (its hashed cosine to a short question is below the cosine floor) per content word
LONG = {
    "move": ("Last spring, after a long winter of house hunting and arguing about schools, commutes "
             "and the price of everything, we finally decided to move to Porto for good."),
    "name": ("The vet said the puppy was healthy, gave us a folder of vaccination papers, a sack of "
             "kibble and a leash, and asked what name we had chosen for him."),
    "call": ("On Tuesday I spent the whole afternoon on the phone with the insurance company, was put "
             "on hold four times, and finally got a call back from a manager."),
    "fire": ("The kitchen in the old flat had bad wiring, a gas cooker older than me, no extractor at "
             "all, and a small fire started there one evening in November."),
    "bill": ("The electricity company switched us to a new tariff without asking, doubled the standing "
             "charge and sent an enormous bill that I am still disputing."),
}
QUESTION = {"move": "where did we move?", "name": "what name did we choose?", "call": "who called me back?",
            "fire": "where was the fire?", "bill": "what about the bill?"}
OTHERS = ["I work at Acme Corp as a data engineer.", "My sister lives in Denver.",
          "I play tennis on Saturdays.", "My favourite food is ramen."]


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
def test_shared_content_word_finds_the_memory(tmp_path, embedder):
    with engramdb.open(tmp_path / "s", embedder=embedder) as mem:
        ids = {w: mem.add(text) for w, text in LONG.items()}
        for text in OTHERS:
            mem.add(text)
        for w, q in QUESTION.items():
            res = mem.recall(q, k=3)
            assert res.hits[0].id == ids[w], (q, [h.text[:30] for h in res.hits])
            assert [g.reason for g in res.gaps] == [], (q, res.gaps)


def test_short_question_hashing(tmp_path):
    """The fresh-user example: short facts, a short question sharing one content word."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        work = mem.add("I work at Acme Corp as a data engineer.")
        moved = mem.add("We moved to Porto in March.")
        name = mem.add("My name is Sam.")
        for text in OTHERS[1:]:
            mem.add(text)
        for q, want in [("where do I work?", work), ("when did we move?", moved), ("what is my name?", name)]:
            res = mem.recall(q, k=3)
            assert res.hits[0].id == want
            assert res.gaps == []
