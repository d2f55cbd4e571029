"""Time in questions: a day word names its day (slack weighs less), and a question that is mostly
a time expression ("What happened last week?") takes its candidates from the window.

The store's clock is a personal assistant's week: Wednesday 16 October 2024 is "today" (the
newest event time, the anchor of relative expressions).
"""
from datetime import datetime, timezone

import numpy as np
import pytest

import engramdb
from engramdb import RecallConfig
from engramdb.timeref import DAY_SLACK_S, resolve_time_refs

DAY = 86400.0


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


NOW = utc(2024, 10, 16, 20, 0)     # Wednesday
NO_BLEND = {"w_salience": 0.0, "w_recency": 0.0, "w_confidence": 0.0}


@pytest.fixture
def week(tmp_store):
    with engramdb.open(tmp_store, dim=256) as m:
        m.add_batch([
            # this week
            {"id": "dinner_today", "text": "Had sushi with Marta for dinner.", "created_at": utc(2024, 10, 16, 19, 30)},
            {"id": "dinner_yday", "text": "Cooked pasta carbonara for dinner.", "created_at": utc(2024, 10, 15, 19)},
            {"id": "car", "text": "Took the car to the mechanic for new brakes.", "created_at": utc(2024, 10, 14, 9)},
            # last week: Monday 7 to Sunday 13 October
            {"id": "board", "text": "Presented the quarterly roadmap to the board.", "created_at": utc(2024, 10, 8, 11)},
            {"id": "thai", "text": "Dinner at the Thai place downtown.", "created_at": utc(2024, 10, 10, 20)},
            {"id": "run", "text": "Ran a half marathon in Cascais.", "created_at": utc(2024, 10, 12, 8)},
            # older memories whose words look like the questions'
            {"id": "july", "text": "I did nothing special that week in July.", "created_at": utc(2024, 7, 10)},
            {"id": "crash", "text": "What a week: the server crashed twice.", "created_at": utc(2024, 9, 2)},
            {"id": "market", "text": "Happened to meet Joana at the market.", "created_at": utc(2024, 9, 20)},
            {"id": "aug", "text": "What happened at the August offsite: the budget was approved.",
             "created_at": utc(2024, 8, 20)},
            {"id": "do_list", "text": "Things I do on Mondays: laundry and groceries.", "created_at": utc(2024, 6, 3)},
            {"id": "dinner_old", "text": "Dinner party at Rui's: too much wine.", "created_at": utc(2024, 5, 4)},
        ])
        yield m


LAST_WEEK = {"board", "thai", "run"}


# ---------------------------------------------------------------- day words name their day
def test_yesterday_and_today_name_their_own_days():
    (y,) = resolve_time_refs("What did I have for dinner yesterday?", NOW)
    (t,) = resolve_time_refs("What did I have for dinner today?", NOW)
    assert (y.core_start, y.core_end) == (utc(2024, 10, 15), utc(2024, 10, 16))
    assert (t.core_start, t.core_end) == (utc(2024, 10, 16), utc(2024, 10, 17))
    # the widened spans keep their slack (LoCoMo: an event is often mentioned a day later)
    assert (y.start, y.end) == (utc(2024, 10, 15) - DAY_SLACK_S, utc(2024, 10, 17))
    # a calendar span is its own core
    (m,) = resolve_time_refs("in May 2023", NOW)
    assert (m.core_start, m.core_end) == (m.start, m.end)


def test_core_is_never_wider_than_the_window():
    for text in ("last week", "3 days ago", "the week before May 3, 2023", "last Friday", "today",
                 "on 14 October", "the first weekend of August 2023", "recently"):
        for w in resolve_time_refs(text, NOW):
            assert w.start <= w.core_start < w.core_end <= w.end, text


@pytest.mark.parametrize("erase", [(), ("do_list", "dinner_old")])
def test_dinner_yesterday_ranks_yesterdays_dinner_first(week, erase):
    # without the two older memories, BM25 favours today's dinner (a shorter text) by about a
    # quarter of the best score: the named day must outweigh that, not only break ties
    for x in erase:
        week.forget(x, hard=True)
    hits = [h.id for h in week.recall("What did I have for dinner yesterday?", k=3, reinforce=False).hits]
    assert hits[0] == "dinner_yday"
    hits = [h.id for h in week.recall("What did I have for dinner today?", k=3, reinforce=False).hits]
    assert hits[0] == "dinner_today"


def test_the_named_day_outranks_its_slack(tmp_store):
    """Three equal memories on 13, 14 and 15 October: the one on the named day first, its
    neighbours (the slack) next, at a weight below the day's but above memories outside."""
    v = np.ones(16, np.float32)
    cfg = RecallConfig(**NO_BLEND)
    with engramdb.open(tmp_store, dim=16, config=engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))) as m:
        for i, day in enumerate((12, 13, 14, 15)):
            m.add(f"errand number {i}", id=f"d{day}", embedding=v, created_at=utc(2024, 10, day, 12))
        m.add("errand number 9", id="now", embedding=v, created_at=NOW)
        res = m.recall("which errand on 14 October 2024", vector=v, k=5, config=cfg)
        ids = [h.id for h in res.hits]
        assert ids[0] == "d14"
        assert set(ids[1:3]) == {"d13", "d15"} and set(ids[3:]) == {"d12", "now"}
        s = {h.id: h.score for h in res.hits}
        assert s["d14"] > s["d13"] > s["d12"] and s["d13"] == pytest.approx(s["d15"])


# ---------------------------------------------------------------- time-only questions
def test_what_happened_last_week_comes_from_the_window(week):
    hits = [h.id for h in week.recall("What happened last week?", k=3).hits]
    assert set(hits) == LAST_WEEK


def test_a_memory_dated_in_the_future_does_not_move_last_week(week):
    # a planned event far ahead: "last week" stays the week before the recall's now, not 2036's
    week.add("My passport expires.", id="passport", created_at=utc(2036, 6, 15))
    hits = [h.id for h in week.recall("What happened last week?", k=3, now=NOW).hits]
    assert set(hits) == LAST_WEEK


def test_recall_now_reads_relative_cues_as_of_then(week):
    # as of Wednesday 9 October, "yesterday" is Tuesday 8: the board meeting
    then = utc(2024, 10, 9, 20)
    assert week.recall("What did I do yesterday?", k=1, now=then).hits[0].id == "board"


def test_what_did_i_do_on_a_day_comes_from_that_day(week):
    assert week.recall("what did I do on 14 October?", k=1).hits[0].id == "car"
    assert week.recall("What did I do on Tuesday 8 October 2024?", k=1).hits[0].id == "board"


def test_time_seeds_are_found_without_any_text_match(week):
    # "last weekend" (12-13 October): the marathon shares no word with the question
    assert week.recall("anything last weekend?", k=1).hits[0].id == "run"


def test_time_seeds_respect_filters(week):
    week.add("Decided to switch the team to four-day weeks.", id="decision", kind="decision",
             created_at=utc(2024, 10, 9, 10))
    hits = week.recall("What happened last week?", k=3, kinds=["decision"]).hits
    assert [h.id for h in hits] == ["decision"]
    week.add("An unrelated note from long ago.", id="elsewhere", namespace="other", created_at=utc(2020, 1, 1))
    other = week.recall("What happened last week?", k=5, namespace="other").hits
    assert {h.id for h in other} <= {"elsewhere"}    # the window never seeds another namespace


def test_a_content_question_with_a_time_keeps_its_words(week):
    # two content words: the window re-ranks what text search found, it does not flood it
    hits = [h.id for h in week.recall("Thai dinner downtown last week", k=2).hits]
    assert hits[0] == "thai"


def test_a_filter_span_answers_a_question_of_no_words(tmp_path):
    """"what did we decide?" with kind="decision", since="2025-04" shares no word with the
    decisions that pass its filters; it came with a weak_evidence gap, and context() told the
    model the store may not hold the answer. The filter's span is its window: the newest that
    pass answer it, as "what did we decide this month?" did."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.decide("Give ACME a 10% discount on the Team plan for 3 months.", confidence=0.7, id="discount",
                 recorded_at=utc(2025, 2, 20), now=utc(2025, 2, 20))
        m.decide("Escalate BUG-4821 (CSV export truncation) to P1 for ACME.", confidence=0.8, id="escalate",
                 recorded_at=utc(2025, 4, 10), now=utc(2025, 4, 10))
        m.decide("Move the ACME renewal call to the account manager.", confidence=0.6, id="renewal",
                 recorded_at=utc(2025, 4, 22), now=utc(2025, 4, 22))
        m.add("We decided on pizza for the team lunch.", id="lunch", created_at=utc(2025, 4, 12))
        now = utc(2025, 5, 1)
        res = m.recall("what did we decide?", kind="decision", since="2025-04", k=5, now=now)
        assert sorted(h.id for h in res.hits) == ["escalate", "renewal"]
        assert list(res.gaps) == [] and [h.relevance for h in res.hits] == [1.0, 1.0]
        block = m.context("what did we decide?", kind="decision", since="2025-04", now=now)
        assert "may not hold the answer" not in block.text
        # a question with words of its own still ranks by them; one without a span keeps its gap
        res = m.recall("what did we decide about the renewal call?", kind="decision", since="2025-04", k=5, now=now)
        assert res.hits[0].id == "renewal"
        res = m.recall("what did we decide?", kind="decision", k=5, now=now)
        assert [g.reason for g in res.gaps] == ["weak_evidence"]


def test_a_time_the_question_names_is_its_span_for_the_filters(tmp_path):
    """A coding-assistant user's "which decisions did we make in September?" (kind="decision")
    returned 4 of 7 decisions, November's among them, without two of September's, and a
    weak_evidence gap: "decisions" and "make" counted as the question's own content, so the
    month did not seed. Words that name what a span holds are no content with a time either."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        for id_, text, day in [("pg", "We chose PostgreSQL over MySQL for the main database.", utc(2026, 9, 10)),
                               ("orm", "We use SQLAlchemy 2.0 with Alembic for schema migrations.", utc(2026, 9, 11)),
                               ("deploy", "Deploys go through ArgoCD; production syncs by hand.", utc(2026, 9, 24)),
                               ("api", "Public API versioning uses a URL prefix like /v1.", utc(2026, 10, 2)),
                               ("queue", "We are moving background jobs from Celery to Dramatiq.", utc(2026, 10, 28)),
                               ("flags", "We dropped LaunchDarkly and moved feature flags to Unleash.", utc(2026, 11, 5)),
                               ("lint", "We lint with ruff at line length 100.", utc(2026, 11, 20))]:
            m.decide(text, confidence=0.8, id=id_, recorded_at=day, now=day)
        m.add("We made pancakes in September for the team.", id="pancakes", created_at=utc(2026, 9, 12))
        now = utc(2026, 12, 3)
        for q in ("which decisions did we make in September?", "what did we decide in September?"):
            res = m.recall(q, kind="decision", k=6, now=now)
            assert {h.id for h in res.hits[:3]} == {"pg", "orm", "deploy"}, q
            assert [g.reason for g in res.gaps] == [] and all(h.relevance == 1.0 for h in res.hits[:3])
        # a question with a word of its own still ranks by it, and the time does not make every
        # memory of September fully relevant (hostile pass)
        res = m.recall("which database did we choose in September?", kind="decision", k=6, now=now)
        assert res.hits[0].id == "pg"
        res = m.recall("which decisions did we make about Kubernetes in September?", kind="decision", k=6, now=now)
        assert [g.reason for g in res.gaps] == ["weak_evidence", "unmentioned"] and max(h.relevance for h in res.hits) < 0.5
        assert res.gaps[1].detail == "no memory mentions Kubernetes"
        m.add("The talk about observability went well; slides are on the wiki.", id="talk",
              created_at=utc(2026, 9, 18))
        res = m.recall("what did we say about the talk in September?", k=6, now=now)
        # "the talk" is a talk, not what was said: the month's decisions do not flood in at relevance 1.0
        assert "talk" in [h.id for h in res.hits[:2]] and all(h.relevance < 0.5 for h in res.hits if h.kind.value == "decision")


def test_a_time_from_which_nothing_is_stored_is_a_gap(tmp_path):
    """A companion-app user's "what did I do last weekend?", asked when nothing was stored from
    that weekend, got May's "we moved to Porto last weekend!" first (its words match), relevance
    0.99 and no gap. Now an empty_window gap says nothing is dated then, and context() says the
    memories it shows are from other times."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        for text, id_, t, kind in [("We did it, we moved to Porto last weekend!", "move", utc(2026, 5, 18), "episodic"),
                                   ("I walked the dog by the river.", "walk", utc(2026, 9, 12, 9), "episodic"),
                                   ("Dinner with Marta at the harbour.", "dinner", utc(2026, 9, 13, 20), "semantic")]:
            m.add(text, id=id_, created_at=t, recorded_at=t, kind=kind)   # written as things happen
        now = utc(2026, 9, 23, 12)      # a Wednesday: last weekend is 19-20 September
        res = m.recall("what did I do last weekend?", k=3, now=now)
        assert [g.reason for g in res.gaps] == ["empty_window"]
        assert res.gaps[0].detail == 'no memory is dated "last weekend" (2026-09-19 to 2026-09-20)'
        block = m.context("what did I do last weekend?", now=now)
        assert ('No memory is dated "last weekend" (2026-09-19 to 2026-09-20): the memories here are from '
                "other times.") in block.text
        # a week later that weekend holds the walk and the dinner: no such gap
        res = m.recall("what did I do last weekend?", k=3, now=utc(2026, 9, 16, 12))
        assert "empty_window" not in [g.reason for g in res.gaps] and {"walk", "dinner"} <= {h.id for h in res.hits}
        # the filters count: no episode from that weekend, only a semantic memory
        res = m.recall("what did I do last weekend?", k=3, now=utc(2026, 9, 16, 12), kind="episodic")
        assert "empty_window" not in [g.reason for g in res.gaps]   # the walk is episodic
        res = m.recall("what did I do last weekend?", k=3, now=utc(2026, 9, 16, 12), kind="procedural")
        assert "empty_window" in [g.reason for g in res.gaps]


def test_a_time_word_of_an_old_message_is_no_match_of_the_question(tmp_path):
    """helper173: "what did I do yesterday?", nothing said that day, got a message of three weeks
    before that says "yesterday" (of its own day) with relevance 1.0 and no gap: the question's
    time expression is its window, no word to match."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        m.add_conversation([{"role": "user", "content": "Been quite a ride, had an audition yesterday for a writing gig.",
                             "created_at": utc(2025, 6, 1, 10)}], namespace="u", session="june-1",
                           recorded_at=utc(2025, 6, 1, 11))
        m.add("Booked the dentist for next month.", namespace="u", created_at=utc(2025, 6, 20, 10),
              recorded_at=utc(2025, 6, 20, 10))
        res = m.recall("what did I do yesterday?", namespace="u", k=3, now=utc(2025, 6, 22, 9))
        audition = next(h for h in res.hits if "audition" in h.text)
        assert audition.relevance < res.stats["relevance_threshold"]
        assert "weak_evidence" in [g.reason for g in res.gaps]
        # a memory of that day answers it
        m.add("I went climbing at the Castle with Sam.", namespace="u", created_at=utc(2025, 6, 21, 18),
              recorded_at=utc(2025, 6, 21, 18))
        res = m.recall("what did I do yesterday?", namespace="u", k=3, now=utc(2025, 6, 22, 9))
        assert "climbing" in res.hits[0].text and res.hits[0].relevance >= res.stats["relevance_threshold"]
        assert not res.gaps
