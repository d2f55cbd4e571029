"""Relative time cues ("yesterday", "last week") of a namespace written as things happen are read
at the recall's now; a conversation stored after the fact keeps its own clock (its newest event).

Before, every namespace anchored on its newest event: asked on Monday morning, before anything was
stored that day, "what did I do yesterday?" meant Saturday (the day before Sunday's memory), and
``as_of=now`` moved the anchor back to the newest memory recorded by then."""
import datetime as dt

import engramdb

DAY = 86400.0
MONDAY = dt.datetime(2026, 1, 5, 9, tzinfo=dt.timezone.utc).timestamp()   # 09:00 UTC
DAYS = {"fri": "I went bowling with Rui.", "sat": "I painted the garden fence.", "sun": "I baked sourdough bread."}


def _week(eng, *, live: bool):
    for back, (key, text) in zip((3, 2, 1), DAYS.items()):
        t = MONDAY - back * DAY + 8 * 3600   # 17:00 that day
        eng.add(text, id=key, created_at=t, **({"recorded_at": t} if live else {}))


def test_a_namespace_written_as_things_happen_reads_cues_at_now(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        _week(eng, live=True)
        assert eng.recall("What did I do yesterday?", now=MONDAY, k=1).hits[0].id == "sun"
        assert eng.recall("What did I do yesterday?", now=MONDAY, as_of=MONDAY, k=1).hits[0].id == "sun"
        assert eng.recall("What did I do yesterday?", now=MONDAY - DAY, k=1).hits[0].id == "sat"


def test_a_conversation_stored_after_the_fact_keeps_its_own_clock(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        _week(eng, live=False)   # recorded now, years after it happened: a chat imported today
        assert eng.recall("What did I do yesterday?", k=1).hits[0].id == "sat"   # the day before Sunday
