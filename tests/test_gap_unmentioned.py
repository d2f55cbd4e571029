"""The ``unmentioned`` gap: a question that names something no memory of the namespace mentions is
told so (negative recall), as helper-250's chat showed: "What did you suggest for my Japan
itinerary?" of a chat that never spoke of Japan came back with a confident wrong answer. And
never told so of a name a memory does mention, however it writes it (helper-251's hostile pass)."""
import pytest

import engramdb

T0 = 1_748_000_000.0   # 2025-05-23
DAY = 86400.0

CHAT = [
    {"id": "m1", "text": "user: I'm planning a trip to Portugal in September, Lisbon then Porto.", "created_at": T0},
    {"id": "m2", "text": "assistant: For Lisbon, stay in Alfama; take the train to Porto (about 3 hours).",
     "created_at": T0 + 60},
    {"id": "m3", "text": "user: My cat Miso hates the carrier, any tips for the vet trip?", "created_at": T0 + DAY},
    {"id": "m4", "text": "assistant: Leave the carrier open at home for a week with treats inside.",
     "created_at": T0 + DAY + 60},
    {"id": "m5", "text": "user: pushed the repo to github, the wifi at the cafe was slow", "created_at": T0 + 2 * DAY},
    {"id": "m6", "text": "user: Dr Patel moved my appointment; we might also see New York in spring.",
     "created_at": T0 + 3 * DAY},
    {"id": "m7", "text": "user: packing list for the trip", "created_at": T0 + 4 * DAY, "tags": ["japan"]},
    {"id": "m8", "text": "user: we moved to the U.K. in 2019", "created_at": T0 + 5 * DAY},
]


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", dim=64, embedder="hashing") as m:
        m.add_batch(CHAT)
        yield m


def _unmentioned(result):
    return [g.detail for g in result.gaps if g.reason == "unmentioned"]


@pytest.mark.parametrize("question,detail", [
    ("What did you suggest for my Kyoto itinerary?", "no memory mentions Kyoto"),
    ("Which vet did Miso see in Tokyo?", "no memory mentions Tokyo"),
    ("Did I tell Rosalind about the Osaka and Nagoya plans?",
     "no memory mentions Rosalind, Osaka or Nagoya"),
    ("Did I see Rosalind, Barnaby, Ottoline and Quentin Blake?",
     "no memory mentions Rosalind, Barnaby, Ottoline or 1 more name the question writes"),
])
def test_a_name_no_memory_mentions_is_a_gap(mem, question, detail):
    res = mem.recall(question, k=3)
    assert _unmentioned(res) == [detail]
    assert res.hits   # the rest of the question still matches: the hits are given


def test_context_says_it_once(mem):
    block = mem.context("What did you suggest for my Kyoto itinerary?")
    assert "No memory mentions Kyoto." in block.text
    places = "Quorvik Belmira Tashkor Ulvenne Drabos Kelmarth Yostra Fennick Orvalle Grimsvik Palundra Sethmoor"
    long = "Can you compare " + ", ".join(places.split()) + " for the Lisbon trip?"
    assert mem.context(long).text.count("No memory mentions") == 1


@pytest.mark.parametrize("question", [
    "What did you suggest for my Lisbon itinerary?",          # mentioned
    "Where should I stay in Lisbon and Porto?",
    "Did I push the repo to GitHub?",                          # another case: "github"
    "Was the Wi-Fi at the cafe slow?",                         # "wifi"
    "When is my appointment with Dr. Patel?",                  # "Dr Patel", the title apart
    "Is New York City on the list?",                           # one word of it mentioned
    "What should I pack for Japan?",                           # a hit's tag
    "What did I plan for September?",                          # a month: a time, not a name
    "What did I ask about on Friday?",
    "Tips for the vet?",                                       # no name
    "What Did I Say About The Budget?",                        # Title Case: no word stands out
    "WHERE DID I LEAVE THE CARRIER?",                          # capitals
    "Can you help me with the carrier, Claude?",               # the one addressed
    "Hey Assistant, what did Miso hate?",
    "Что я делал в Москве?",                                   # no capitals of A-Z: nothing read
    "Was it Lisbon? No. Remind me about the carrier.",         # "No." ends a sentence
    "Please tell me ASAP what Miso hates",                     # a chat acronym
    "When did we move to the UK?",                             # "U.K." below
])
def test_no_gap_for_a_mentioned_name_a_time_or_no_name(mem, question):
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


def test_no_gap_as_of_a_past_time(mem):
    """The keyword index is today's: what the memories said then is not known to it."""
    assert _unmentioned(mem.recall("What did I do in Kyoto?", k=3, as_of=T0 + 10 * DAY)) == []
