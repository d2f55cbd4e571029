"""Multi-view recall: the intent router's rules, its configurations, and routed recall through the API."""
from dataclasses import replace

import numpy as np
import pytest

import engramdb
from engramdb.config import RecallConfig
from engramdb.recall.router import VIEWS, Intent, classify, keyword_query, routed_config, without_view
from engramdb.types import Relation


@pytest.mark.parametrize("question, views, enumeration", [
    ("When did Caroline go to the support group?", ("temporal",), False),
    ("How long has Melanie been painting?", ("temporal",), False),
    ("What did she do after the concert?", ("temporal",), False),
    ("Why did Jon lose his job?", ("causal",), False),
    ("What caused the outage?", ("causal",), False),
    ("Why did she leave before the wedding?", ("temporal", "causal"), False),
    ("Who gave Maria the puppy?", ("entity",), False),
    ("Which person recommended the book?", ("entity",), False),
    ("How many times did Nate win a tournament?", (), True),
    ("What books has Melanie read?", (), True),
    ("What is Caroline's job?", (), False),
])
def test_classify(question, views, enumeration):
    assert classify(question) == Intent(views, enumeration)


def test_views_cover_every_relation_but_contradicts_once():
    covered = [r for rels in VIEWS.values() for r in rels]
    assert len(covered) == len(set(covered))
    assert set(covered) == set(Relation) - {Relation.CONTRADICTS}


def test_routed_config():
    base = RecallConfig(route=True, route_boost=2.0, route_fanout=2.0)
    assert routed_config(RecallConfig(), "When did it happen?") is not None
    assert routed_config(RecallConfig(), "When did it happen?") == RecallConfig()   # routing off: unchanged
    assert routed_config(base, "What is her job?") is base                          # nothing to route
    assert routed_config(base, None) is base
    t = routed_config(base, "When did she move?")
    assert t.relation_multipliers[Relation.NEXT] == pytest.approx(2 * base.relation_multipliers[Relation.NEXT])
    assert t.relation_multipliers[Relation.MENTIONS] == base.relation_multipliers[Relation.MENTIONS]
    assert t.rel_mult[Relation.NEXT.code] == pytest.approx(2 * base.rel_mult[Relation.NEXT.code])
    assert t.seed_k == base.seed_k and not t.route
    assert routed_config(base, "When did she move?") is t                           # cached
    e = routed_config(base, "How many times did she run?")
    assert (e.seed_k, e.keyword_k, e.fan_exp) == (2 * base.seed_k, 2 * base.keyword_k, base.fan_exp / 2)
    assert e.relation_multipliers == base.relation_multipliers


def test_without_view():
    cfg = without_view(RecallConfig(), "temporal")
    assert all(cfg.rel_mult[r.code] == 0 for r in VIEWS["temporal"])
    assert cfg.rel_mult[Relation.MENTIONS.code] == RecallConfig().rel_mult[Relation.MENTIONS.code]
    with pytest.raises(KeyError):
        without_view(RecallConfig(), "nope")


def _store(path):
    eng = engramdb.open(path)
    msgs = [{"role": "user", "content": c, "created_at": 1_700_000_000 + 60 * i, "session": "s"}
            for i, c in enumerate(["We booked the flight to Tokyo.", "It left on a rainy morning.",
                                   "The hotel near Shinjuku was tiny.", "We ate ramen twice."])]
    eng.add_conversation(msgs, namespace="u")
    return eng


def test_temporal_question_lifts_the_next_turn(tmp_store):
    with _store(tmp_store) as eng:
        q = "When did the flight to Tokyo leave?"
        plain = {h.id: h.score for h in eng.recall(q, namespace="u", k=8, gate="on").hits}
        cfg = replace(eng.config.recall, route=True, route_boost=3.0)
        routed = {h.id: h.score for h in eng.recall(q, namespace="u", k=8, gate="on", config=cfg).hits}
        assert routed["s:2"] > plain["s:2"]             # one `next` hop from the best match


def test_routed_batch_equals_single(tmp_store):
    with _store(tmp_store) as eng:
        cfg = replace(eng.config.recall, route=True)
        qs = ["When did the flight leave?", "How many times did we eat ramen?", "What was the hotel like?"]
        batch = eng.recall_batch(qs, namespace="u", k=5, config=cfg)
        for q, res in zip(qs, batch):
            single = eng.recall(q, namespace="u", k=5, config=cfg)
            assert [h.id for h in res.hits] == [h.id for h in single.hits]
            np.testing.assert_allclose([h.score for h in res.hits], [h.score for h in single.hits], rtol=1e-6)


@pytest.mark.parametrize("question, cut", [
    ("what time is standup?", "what is standup?"),
    ("At what time does the gym open on Sundays?", "At what does the gym open on Sundays?"),
    ("What time's the dentist?", "What's the dentist?"),
    ("What time management techniques do they use?", "What time management techniques do they use?"),
    ("How long has Melanie been painting?", "How long has Melanie been painting?"),   # answers say "long"
    ("Which year did she move to Rome?", "Which year did she move to Rome?"),
])
def test_keyword_query_cuts_the_noun_of_the_form(question, cut):
    assert keyword_query(question) == cut


@pytest.mark.parametrize("question, small_talk, facts", [
    ("what time is standup?", "Long time no talk! The weather has been great lately.",
     ["Standup is at 9:30am in the Blue room, and Priya leads it.", "Standup moved to 10:15."]),
    ("what time is my flight?", "I had a great time at the beach.",
     ["My flight to Boston leaves at 7:40am.", "The flight got a new gate, B12."]),
])
def test_the_noun_of_the_form_finds_no_small_talk(tmp_store, question, small_talk, facts):
    # in a small store the form's noun is as rare as the topic: by BM25 on "time" alone the small
    # talk came first for "what time is standup?"
    chat = ["Hi! Quick intro so you can help me plan my days.", facts[0], "I take 10 mg of lisinopril every morning.",
            "I live in Oakland, near Lake Merritt.", small_talk, "My rent is $1,400 a month.", facts[1],
            "Can you recommend a good podcast about Roman history?"]
    with engramdb.open(tmp_store, embedder="hashing") as mem:
        ids = mem.add_conversation([{"role": "user", "content": text, "created_at": f"2025-05-20T19:0{i}:00Z"}
                                    for i, text in enumerate(chat)], namespace="u", session="s")["message_ids"]
        got = mem.recall(question, namespace="u", k=3, now="2025-07-01T00:00:00Z")
    assert got.hits[0].id in {ids[chat.index(f)] for f in facts}
