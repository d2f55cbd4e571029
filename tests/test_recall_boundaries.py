"""Recall's and query's boundaries, each tested with a value exactly on it.

Through the public API only. Vectors are basis vectors, so cosines are exactly 0 or 1 and
every score below is exact; auto-linking is off, so the only edges are the ones a test makes.
"""
from datetime import date, datetime, timezone

import numpy as np
import pytest

import engramdb
from engramdb import RecallConfig
from .conftest import basis

DIM = 16
NO_BLEND = {"w_salience": 0.0, "w_recency": 0.0, "w_confidence": 0.0}   # score = activation




def utc(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


@pytest.fixture
def mem(tmp_store):
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))
    with engramdb.open(tmp_store, dim=DIM, config=cfg) as m:
        yield m


# ---------------------------------------------------------------- density gate
@pytest.fixture
def chain(mem):
    """s -> a -> b (b two hops from s), plus a linked pair elsewhere; only s matches basis(0)."""
    for i, name in enumerate(["s", "a", "b", "x", "y"]):
        mem.add(f"memory {name}", id=name, embedding=basis(i))
    mem.link("s", "a", "supports")
    mem.link("a", "b", "caused_by")
    mem.link("x", "y", "related_to")
    return mem


def test_density_gate_spreads_at_exactly_the_threshold(chain):
    density = chain.recall(vector=basis(0), gate="off").density
    assert density == pytest.approx(3 / 5)                     # 3 edges over 5 linked memories
    at = chain.recall(vector=basis(0), config=RecallConfig(density_threshold=density))
    assert at.mode == "spread" and at.density == density
    assert {h.id for h in at.hits} == {"s", "a", "b"}           # b is two hops away
    above = chain.recall(vector=basis(0), config=RecallConfig(density_threshold=float(np.nextafter(density, 1.0))))
    assert above.mode == "one_hop" and {h.id for h in above.hits} == {"s", "a"}


def test_gate_modes_override_the_density(chain):
    on = chain.recall(vector=basis(0), gate="on", config=RecallConfig(density_threshold=100.0))
    assert on.mode == "spread" and {h.id for h in on.hits} == {"s", "a", "b"}
    off = chain.recall(vector=basis(0), gate="off", config=RecallConfig(density_threshold=0.0))
    assert off.mode == "one_hop" and {h.id for h in off.hits} == {"s", "a"}


def test_paths_name_each_step(chain):
    hits = {h.id: h for h in chain.recall(vector=basis(0), gate="on").hits}
    assert [(p.id, p.relation) for p in hits["b"].path] == [
        ("s", None), ("a", engramdb.Relation.SUPPORTS), ("b", engramdb.Relation.CAUSED_BY)]


# ---------------------------------------------------------------- time cues
def test_time_cue_window_is_closed_at_its_start_and_open_at_its_end(mem):
    stamps = {"before": utc(2023, 4, 30, 23, 59, 59), "first": utc(2023, 5, 1), "last": utc(2023, 5, 31, 23, 59, 59),
              "june": utc(2023, 6, 1)}
    for name, t in stamps.items():
        mem.add(f"note {name}", id=name, embedding=basis(0), created_at=t)
    res = mem.recall("what happened in May 2023?", vector=basis(0), k=4, config=RecallConfig(**NO_BLEND))
    score = {h.id: h.score for h in res.hits}
    assert score.keys() == stamps.keys()
    boosted = score["first"]
    assert score["last"] == boosted and score["june"] == score["before"] < boosted
    assert boosted == pytest.approx(score["before"] * (1 + RecallConfig().w_time))


def test_time_cue_off_boosts_nothing(mem):
    for name, t in {"may": utc(2023, 5, 10), "june": utc(2023, 6, 10)}.items():
        mem.add(f"note {name}", id=name, embedding=basis(0), created_at=t)
    res = mem.recall("what happened in May 2023?", vector=basis(0), config=RecallConfig(w_time=0.0, **NO_BLEND))
    assert len({h.score for h in res.hits}) == 1


# ---------------------------------------------------------------- structured filters
@pytest.fixture
def tagged(mem):
    rows = [("x", ["alpha"], 0.74, 1000.0), ("y", ["beta"], 0.75, 1001.0), ("xy", ["alpha", "beta"], 0.7, 1002.0),
            ("none", [], 1.0, 1003.0)]
    for name, tags, conf, t in rows:
        mem.add(f"memory {name}", id=name, embedding=basis(0), tags=tags, confidence=conf, created_at=t)
    return mem


def _recall_ids(m, **filters):
    return {h.id for h in m.recall(vector=basis(0), k=10, **filters).hits}


def _query_ids(m, **filters):
    return {x.id for x in m.query(**filters)}


@pytest.mark.parametrize("ids", [_recall_ids, _query_ids])
def test_tag_filter_requires_every_tag(tagged, ids):
    assert ids(tagged, tags=["alpha", "beta"]) == {"xy"}
    assert ids(tagged, tags=["beta", "alpha"]) == {"xy"}
    assert ids(tagged, tags="alpha") == {"x", "xy"}
    assert ids(tagged, tags=["alpha", "gamma"]) == set()


@pytest.mark.parametrize("ids", [_recall_ids, _query_ids])
def test_min_confidence_keeps_a_memory_exactly_at_it(tagged, ids):
    assert ids(tagged, min_confidence=0.75) == {"y", "none"}
    assert ids(tagged, min_confidence=0.7) == {"x", "y", "xy", "none"}      # 0.7 is not exact in binary
    assert ids(tagged, min_confidence=0.74) == {"x", "y", "none"}
    assert ids(tagged, min_confidence=1.0) == {"none"}


@pytest.mark.parametrize("ids", [_recall_ids, _query_ids])
def test_event_time_range_is_inclusive_at_both_ends(tagged, ids):
    assert ids(tagged, since=1001.0, until=1002.0) == {"y", "xy"}
    assert ids(tagged, since=1000.5, until=1001.5) == {"y"}
    assert ids(tagged, until=1000.0) == {"x"}
    assert ids(tagged, since=1003.0) == {"none"}


@pytest.fixture
def dated(mem):
    """One memory at the first and the last second of 2025-05-31, one at midnight after it, one
    in 2024 and one at the last second of 2025 (UTC)."""
    for name, t in [("first", utc(2025, 5, 31)), ("last", utc(2025, 5, 31, 23, 59, 59) + 0.999),
                    ("next", utc(2025, 6, 1)), ("old", utc(2024, 7, 1)), ("eoy", utc(2025, 12, 31, 23, 59, 59) + 0.5)]:
        mem.add(f"memory {name}", id=name, embedding=basis(0), created_at=t)
    return mem


@pytest.mark.parametrize("ids", [_recall_ids, _query_ids])
def test_a_period_named_as_a_date_is_kept_whole(dated, ids):
    # until a day, a month or a year keeps the whole of it (its first instant would drop it)
    assert ids(dated, since="2025-05-31", until="2025-05-31") == {"first", "last"}
    assert ids(dated, since="20250531", until="20250531") == {"first", "last"}
    assert ids(dated, since="2025-05", until="2025-05") == {"first", "last"}
    assert ids(dated, until="2025-05-31T23") == {"first", "last", "old"}
    assert ids(dated, until="2025-05-31T23:58") == {"first", "old"}
    assert ids(dated, since="2025-06") == {"next", "eoy"}
    assert ids(dated, since="2025", until="2025") == {"first", "last", "next", "eoy"}
    assert ids(dated, until="2024") == {"old"}
    # a year is a year, not 2025 seconds into 1970
    assert ids(dated, since="2025") == {"first", "last", "next", "eoy"}
    # a date object is that day, whole; a reduced-precision time with its Z is that UTC minute
    assert ids(dated, since=date(2025, 5, 31), until=date(2025, 5, 31)) == {"first", "last"}
    assert ids(dated, since="2025-05-31T23:59Z", until="2025-05-31T23:59Z") == {"last"}
    # an instant to the second stays that instant, as does a datetime
    assert ids(dated, until="2025-05-31T00:00:00Z") == {"first", "old"}
    assert ids(dated, until=datetime(2025, 5, 31, tzinfo=timezone.utc)) == {"first", "old"}
    # an offset, the basic form, an ISO week or a time to the second name a period too (hostile pass)
    assert ids(dated, since="2025-06-01T01+02:00", until="2025-06-01T01+02:00") == {"last"}
    assert ids(dated, since="20250531T2359", until="20250531T2359") == {"last"}
    assert ids(dated, since="2025-05-31t23:59:59", until="2025-05-31T23:59:59") == {"last"}
    assert ids(dated, until="2025-05-31T23:59:59.5") == {"first", "old"}   # a fraction: that instant
    assert ids(dated, since="2025-W22", until="2025-W22") == {"first", "last", "next"}   # 26 May to 1 June
    assert ids(dated, since="2025-W22-6", until="2025-W22-6") == {"first", "last"}   # its Saturday
    assert ids(dated, until="12345678") == set()   # 8 digits that are no date: seconds, in 1970
    # the calendar's last periods end with it
    assert ids(dated, since="2025-06-01", until="9999-12-31") == {"next", "eoy"}
    assert ids(dated, since="2025-06-01", until="9999") == {"next", "eoy"}
    with pytest.raises(engramdb.InvalidInputError, match="no date"):
        ids(dated, since="2025-02-30")
    with pytest.raises(engramdb.InvalidInputError, match="after until"):
        ids(dated, since="2025-06", until="2025-05")


def test_kind_filter(mem):
    mem.add("a fact", id="f", kind="semantic", embedding=basis(0))
    mem.add("an event", id="e", kind="episodic", embedding=basis(0))
    assert _recall_ids(mem, kinds=["semantic"]) == {"f"}
    assert _recall_ids(mem, kinds="episodic") == {"e"}
    # kind= as query() names it (recall refused it with a TypeError; new-user pass)
    assert _recall_ids(mem, kind="semantic") == {"f"}
    assert [{h.id for h in r.hits} for r in mem.recall_batch(vectors=[basis(0)], kind="episodic")] == [{"e"}]
    with pytest.raises(engramdb.InvalidInputError, match="not both"):
        mem.recall(vector=basis(0), kind="semantic", kinds="episodic")


# ---------------------------------------------------------------- seeds and gaps
def test_cosine_floor_keeps_a_seed_exactly_at_it(mem):
    mem.add("the match", id="m", embedding=basis(0))
    mem.add("orthogonal", id="o", embedding=basis(1))         # cosine exactly 0
    assert _recall_ids(mem, config=RecallConfig(cosine_floor=0.0)) == {"m", "o"}
    assert _recall_ids(mem, config=RecallConfig(cosine_floor=1e-6)) == {"m"}


def test_weak_evidence_gap_only_below_the_bar(mem):
    mem.add("the match", id="m", embedding=basis(0))          # cosine exactly 1
    assert mem.recall(vector=basis(0), config=RecallConfig(weak_evidence=1.0)).gaps == []
    res = mem.recall(vector=basis(1), config=RecallConfig(weak_evidence=0.5, cosine_floor=-1.0))
    assert [g.reason for g in res.gaps] == ["weak_evidence"] and res.gaps[0].best_similarity == 0.0


def test_superseded_and_archived_are_hidden_unless_asked(mem):
    mem.add("old plan", id="old", embedding=basis(0))
    mem.supersede("old", "new plan", id="new", embedding=basis(0))
    mem.add("shelved plan", id="shelf", embedding=basis(0))
    mem.forget("shelf")
    assert _recall_ids(mem) == {"new"}
    assert _recall_ids(mem, include_superseded=True) == {"new", "old"}
    assert _recall_ids(mem, include_archived=True) == {"new", "shelf"}
    assert _query_ids(mem) == {"new"}
    assert _query_ids(mem, include_superseded=True, include_archived=True) == {"new", "old", "shelf"}


def test_namespaces_never_mix(mem):
    mem.add("ours", id="m", embedding=basis(0), namespace="a")
    mem.add("theirs", id="m", embedding=basis(0), namespace="b")
    mem.add("theirs too", id="n", embedding=basis(0), namespace="b")
    mem.link("m", "n", namespace="b")
    assert _recall_ids(mem, namespace="a", gate="on") == {"m"}
    assert [h.text for h in mem.recall(vector=basis(0), namespace="a").hits] == ["ours"]


def test_a_gaps_best_similarity_is_never_a_hidden_connector_s(tmp_path):
    """helper72: for "Who approves my PRs?" the weak_evidence gap said best similarity 0.585, the
    cosine of the entity node "pr", which is never a hit; the best hit had 0.46."""
    chat = ["Daniel reviews every PR before merge.", "Marta used to approve the PR queue.",
            "The PR template asks for a changelog line.", "I like my coffee black.", "Daniel is on vacation next week."]
    with engramdb.open(tmp_path / "s", embedder="minilm") as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": f"2025-05-20T09:{i:02d}:00Z"}
                              for i, t in enumerate(chat)], namespace="me")
        question = "What is the name of the PR bot?"
        shown = mem.recall(question, namespace="me", k=3, config=RecallConfig(connector_hits=True)).hits
        entity = [h for h in shown if "entity" in h.tags]
        assert entity and entity[0].similarity > 0.6   # the entity node "pr" is the nearest vector
        res = mem.recall(question, namespace="me", k=5)
        assert [g.reason for g in res.gaps] == ["weak_evidence"]
        best = max(h.similarity for h in res.hits if h.similarity is not None)
        assert res.gaps[0].best_similarity == pytest.approx(best) and best < entity[0].similarity
