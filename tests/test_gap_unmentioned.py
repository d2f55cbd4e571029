"""The ``unmentioned`` gap: a question that writes a name no memory of the namespace mentions is
told so (negative recall), as helper-250's chat showed: "What did you suggest for my Japan
itinerary?" of a chat that never spoke of Japan came back with a confident wrong answer."""
import pytest

import engramdb
from engramdb.recall.results import named_in

T0 = 1_748_000_000.0   # 2025-05-23
DAY = 86400.0

CHAT = [
    {"id": "m1", "text": "user: I'm planning a trip to Portugal in September, Lisbon then Porto.", "created_at": T0},
    {"id": "m2", "text": "assistant: For Lisbon, stay in Alfama; take the train to Porto (about 3 hours).",
     "created_at": T0 + 60},
    {"id": "m3", "text": "user: My cat Miso hates the carrier, any tips for the vet trip?", "created_at": T0 + DAY},
    {"id": "m4", "text": "assistant: Leave the carrier open at home for a week with treats inside.",
     "created_at": T0 + DAY + 60},
]


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", dim=64, embedder="hashing") as m:
        m.add_batch(CHAT)
        yield m


def _unmentioned(result):
    return [g.detail for g in result.gaps if g.reason == "unmentioned"]


@pytest.mark.parametrize("question,names", [
    ("What did you suggest for my Japan itinerary?", ["Japan"]),
    ("Did Anna meet New York friends?", ["Anna", "New York"]),
    ("Where is it?", []),
    ("I love it. What did I say about Bob?", ["Bob"]),                # "I", a sentence's first word
    ("Would she like Dr. Seuss books?", ["Dr. Seuss"]),              # an abbreviation ends no sentence
    ("Would Tim read C. S. Lewis or John Greene?", ["Tim", "C. S. Lewis", "John Greene"]),
    ("What areas of the U.S. has John been to?", ["U.S.", "John"]),
    ("Did I go to Japan.", ["Japan"]),
    ("What Did I Say About The Budget?", []),                         # Title Case: no word stands out
    ("WHERE DID I LEAVE THE KEYS?", []),
    ("Did Anna call?", ["Anna"]),
    ("Would Melanie enjoy The Four Seasons by Vivaldi?", ["Melanie", "The Four Seasons", "Vivaldi"]),
])
def test_the_names_a_question_writes(question, names):
    assert named_in(question) == names


def test_a_name_no_memory_mentions_is_a_gap(mem):
    res = mem.recall("What did you suggest for my Japan itinerary?", k=3)
    assert _unmentioned(res) == ["no memory mentions Japan"]
    assert res.hits   # the rest of the question still matches: the hits are given
    block = mem.context("What did you suggest for my Japan itinerary?")
    assert "No memory mentions Japan." in block.text
    assert _unmentioned(mem.recall("Which vet did Miso see in Tokyo?", k=3)) == ["no memory mentions Tokyo"]


@pytest.mark.parametrize("question", [
    "What did you suggest for my Lisbon itinerary?",          # mentioned
    "Where should I stay in Lisbon and Porto?",
    "What does Miso hate?",
    "What did I plan for September?",                          # a month: a time, not a name
    "What did I ask about on Friday?",
    "Tips for the vet?",                                       # no name
])
def test_no_gap_for_a_mentioned_name_or_a_time(mem, question):
    assert _unmentioned(mem.recall(question, k=3)) == []


def test_a_name_mentioned_by_a_memory_of_another_namespace_only_is_unmentioned(mem):
    mem.add("user: We loved Kyoto in the spring.", namespace="other")
    assert _unmentioned(mem.recall("What did I do in Kyoto?", k=3)) == ["no memory mentions Kyoto"]
    assert _unmentioned(mem.recall("What did I do in Kyoto?", k=3, namespace="other")) == []


def test_an_erased_memory_no_longer_mentions_its_names(mem):
    mem.add("user: Booked the Ryokan Sakura for two nights.", id="r1")
    assert _unmentioned(mem.recall("Where is Ryokan Sakura?", k=3)) == []
    mem.forget("r1", hard=True)
    assert _unmentioned(mem.recall("Where is Ryokan Sakura?", k=3)) == ["no memory mentions Ryokan Sakura"]
