"""A memory's text that names a time ("last Friday I went to ...") is placed at that time too:
the span is resolved against the memory's own event time when it is written
(:func:`engramdb.timeref.mentioned_span`), kept as a column, and recall's time cues weigh it
as they weigh the event time."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

import engramdb
from engramdb.testing import cache_status, damage_snapshot
from engramdb.timeref import mentioned_span


def _ts(*args) -> float:
    return datetime(*args, tzinfo=timezone.utc).timestamp()


MON = _ts(2023, 7, 10, 15)   # Monday 10 July 2023
ITEMS = [
    {"id": "show", "text": "Dave: Last Friday I went to a classic car show downtown.", "created_at": MON},
    {"id": "fix", "text": "Dave: I went to fix the classic car engine at the show garage.", "created_at": MON},
    {"id": "old", "text": "Dave: My first car show was years ago.", "created_at": MON - 300 * 86400},
]
NO_TIME = engramdb.RecallConfig(w_time=0.0)


@pytest.mark.parametrize("text,at,span", [
    ("Last Friday I went to a council meeting.", MON, (_ts(2023, 7, 7), _ts(2023, 7, 8))),
    ("Two days ago I wanted to be alone with nature.", MON, (_ts(2023, 7, 8), _ts(2023, 7, 9))),
    ("I scored 40 points last week!", MON, (_ts(2023, 7, 3), _ts(2023, 7, 10))),
    ("We met in May 2021 and again yesterday.", MON, (_ts(2021, 5, 1), _ts(2021, 6, 1))),   # the first
    ("I like tea.", MON, None),
    ("Two days ago I ran.", 1e15, None),   # an event time the calendar cannot anchor: no span
])
def test_mentioned_span_is_the_first_expression_against_the_event_time(text, at, span):
    assert mentioned_span(text, at) == span


def _scores(mem, question, config=None):
    return [(h.id, round(h.score, 6)) for h in mem.recall(question, namespace="d", k=3, config=config).hits]


def test_a_time_question_finds_the_memory_that_names_that_time(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_batch(ITEMS, namespace="d")
        q = "What did Dave do on 7 July 2023?"
        plain = dict(_scores(mem, q, NO_TIME))
        timed = dict(_scores(mem, q))
        assert _scores(mem, q, NO_TIME)[0][0] == "fix"      # by its words alone
        assert _scores(mem, q)[0][0] == "show"              # said on the 10th, it names the 7th
        # the named day is the window's core: show gains w_time x the best score (0.5 x fix's),
        # and more, as a seed of the window holding the question's one content word ("Dave":
        # base (1 + 1) / (1 + 1), the best); fix, said on the 10th (outside the 6th-8th
        # slack), gains nothing
        assert timed["show"] >= plain["show"] + 0.5 * plain["fix"] - 1e-5
        assert timed["show"] == pytest.approx(1.5 * timed["fix"], abs=1e-5)
        assert timed["fix"] == plain["fix"] and timed["old"] == plain["old"]


def test_the_mentioned_span_survives_reopen_and_an_older_snapshot(tmp_path):
    path = tmp_path / "s"
    q = "What did Dave do on 7 July 2023?"
    with engramdb.open(path, embedder="hashing") as mem:
        mem.add_batch(ITEMS, namespace="d")
        mem.update("fix", text="Dave: Two days ago I fixed the classic car engine.", namespace="d")   # the 8th
        before = _scores(mem, q)
        plain = dict(_scores(mem, q, NO_TIME))
    with engramdb.open(path, embedder="hashing") as mem:
        assert cache_status(mem)["columns"] == "current"
        assert _scores(mem, q) == before
        damage_snapshot(mem, "columns", array="mentioned_start")   # as an earlier engramdb's snapshot
    with engramdb.open(path, embedder="hashing") as mem:
        assert cache_status(mem)["columns"] == "rebuilt"
        assert _scores(mem, q) == before
    # the reworded memory names the 8th, in the slack of "7 July": a quarter of the time gain
    assert dict(before)["fix"] == pytest.approx(plain["fix"] + 0.5 * 0.25 * max(plain.values()), abs=1e-5)
