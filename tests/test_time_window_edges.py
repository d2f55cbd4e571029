"""The edges of a time cue's window, through recall: a window is [start, end) (start inclusive,
end exclusive), both when it re-ranks candidates (slack weight inside the window, 0 outside) and
when a time-only question takes its candidates from it.

"on 14 October 2024" names the day 14 October (the core) and a slack of ``DAY_SLACK_S`` on each
side; the memories sit exactly on and one second beside the window's two edges.
"""
from datetime import datetime, timezone

import numpy as np
import pytest

import engramdb
from engramdb import RecallConfig
from engramdb.timeref import resolve_time_refs

NO_BLEND = {"w_salience": 0.0, "w_recency": 0.0, "w_confidence": 0.0}


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


ANCHOR = utc(2024, 10, 20, 12)
QUESTION = "which errand on 14 October 2024"
TIME_ONLY = "What happened on 14 October 2024?"


@pytest.fixture
def window():
    (w,) = resolve_time_refs(QUESTION, ANCHOR)
    assert w.start < w.core_start < w.core_end < w.end   # a day word keeps its slack
    return w


def _times(w):
    return {"before_start": w.start - 1, "at_start": w.start, "core": (w.core_start + w.core_end) / 2,
            "before_end": w.end - 1, "at_end": w.end}


def _open(tmp_store):
    return engramdb.open(tmp_store, dim=16, config=engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False)))


def test_the_window_start_is_inclusive_and_its_end_exclusive_in_ranking(tmp_store, window):
    v = np.ones(16, np.float32)
    with _open(tmp_store) as m:
        for name, t in _times(window).items():
            m.add(f"errand {name.replace('_', ' ')}", id=name, embedding=v, created_at=t)
        m.add("errand latest", id="latest", embedding=v, created_at=ANCHOR)
        res = m.recall(QUESTION, vector=v, k=10, config=RecallConfig(**NO_BLEND), reinforce=False)
        s = {h.id: h.score for h in res.hits}
        assert set(s) == {"before_start", "at_start", "core", "before_end", "at_end", "latest"}
        # inside the window (slack): at_start and before_end; outside: before_start and at_end
        assert s["core"] > s["at_start"]
        assert s["at_start"] > s["before_start"]
        assert s["before_end"] > s["at_end"]
        assert s["at_start"] == pytest.approx(s["before_end"], rel=1e-3)
        assert s["before_start"] == pytest.approx(s["at_end"], rel=1e-3)


def test_a_time_only_question_seeds_from_start_inclusive_to_end_exclusive(tmp_store, window):
    eye = np.eye(16, dtype=np.float32)
    with _open(tmp_store) as m:
        for i, (name, t) in enumerate(_times(window).items()):
            m.add(f"errand {name.replace('_', ' ')}", id=name, embedding=eye[i], created_at=t)
        m.add("errand latest", id="latest", embedding=eye[10], created_at=ANCHOR)
        # the question's vector is orthogonal to every memory: only the window seeds
        hits = {h.id for h in m.recall(TIME_ONLY, vector=eye[15], k=10, reinforce=False).hits}
        assert hits == {"at_start", "core", "before_end"}


def test_a_time_question_with_a_word_finds_relevant_only_the_memories_holding_it(tmp_path):
    """A fresh user's "where did I live in early March?" gave "I'm vegetarian." of early March
    relevance 1 (every memory of the window of a mostly-time question answers it); with a content
    word, only the window's memories that hold it are; a question of nothing but its time still
    finds every memory of its day relevant."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        veg = m.add("I'm vegetarian.", created_at=utc(2025, 3, 3, 10))
        home = m.add("I live in Austin.", created_at=utc(2025, 3, 4, 10))
        now = utc(2025, 6, 1)
        res = m.recall("where did I live in early March?", k=2, now=now, reinforce=False)
        rel = {h.id: h.relevance for h in res.hits}
        assert res.hits[0].id == home and rel[home] == 1.0 and rel[veg] < 0.5
        res = m.recall("What happened on March 3, 2025?", k=1, now=now, reinforce=False)
        assert [(h.id, h.relevance) for h in res.hits] == [(veg, 1.0)]
