"""Decisions, their outcomes and the calibration of their confidence (engramdb.decisions).

decide() stores a held decision memory; review(id, outcome) records the outcome on it and as an
outcome memory caused_by it, a later review superseding the earlier one; calibration() scores the
latest outcomes (Brier score, reliability bins) against a plain-Python reference; recall and
context() show the outcomes of similar decisions; the CLI and export/import keep all of it.
"""
import itertools
import json
import math
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import engramdb
from engramdb import errors
from engramdb.cli import main
from engramdb.testing import store_digest

T0 = 1_767_225_600.0       # 2026-01-01T00:00:00Z
DAY = 86_400.0
VALUE = {"success": 1.0, "partial": 0.5, "failure": 0.0}


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as m:
        yield m


def outcome_ids(m, namespace="default"):
    """Every outcome memory of the namespace (any state): id -> (state, superseded_by)."""
    return {x.id: (x.state.value, x.superseded_by) for x in m.query(namespace=namespace, limit=10_000,
                                                                     state=["active", "superseded", "archived"])
            if ":outcome:" in x.id}


# ---------------------------------------------------------------------------------- decide
def test_decide_stores_a_held_decision_with_its_fields(mem):
    d = mem.decide("Use Postgres for the billing service", confidence=0.8, options=["Postgres", "MySQL"],
                   chosen="Postgres", tags=["infra"], category="databases",
                   reasons=["it has transactions", {"type": "empirical", "text": "it ran billing before"}],
                   id="db", now=T0)
    assert d == "db"
    m = mem.get("db")
    assert m.kind is engramdb.MemoryKind.DECISION and m.confidence == 0.8 and m.created_at == T0
    assert m.tags == ("infra",) and math.isinf(m.salience_at)            # held until reviewed
    assert m.decision == engramdb.DecisionInfo(
        options=("Postgres", "MySQL"), chosen="Postgres", category="databases",
        reasons=((None, "it has transactions"), ("empirical", "it ran billing before")))
    assert m.decision.outcome == "pending" and m.to_dict()["decision"]["outcome"] == "pending"
    assert mem.get("db").decision.reviews == 0


def test_a_backfilled_decision_is_seen_as_of_its_record_time(mem, tmp_path):
    """A fresh user backfilling three months of a team's decisions: decide had no recorded_at, so
    every decision was recorded now and ``as_of`` any earlier day found none of them."""
    mem.decide("We decided to move the API to FastAPI.", confidence=0.7, id="api", now=T0 + 35 * DAY,
               recorded_at=T0 + 35 * DAY)
    mem.decide("We decided to adopt Renovate for dependency updates.", confidence=0.6, id="renovate",
               now=T0 + 110 * DAY)
    assert mem.get("api").recorded_at == T0 + 35 * DAY
    assert [x.id for x in mem.query(kind="decision", as_of=T0 + 100 * DAY)] == ["api"]
    assert [h.id for h in mem.recall("what did we decide about the API framework?", as_of=T0 + 60 * DAY).hits] == ["api"]
    store = str(tmp_path / "cli")
    res = CliRunner().invoke(main, ["decide", "--store", store, "--embedder", "hashing", "--confidence", "0.5",
                                    "--id", "cli", "--now", "2026-02-01", "--recorded-at", "2026-02-02",
                                    "Keep the monolith."])
    assert res.exit_code == 0, res.output
    with engramdb.open(store, readonly=True) as other:
        assert other.get("cli").recorded_at == T0 + 32 * DAY


def test_two_decisions_with_the_same_text_or_a_changed_number_are_two_forecasts(mem):
    a = mem.decide("Run the import with 3 workers", confidence=0.6, now=T0)
    b = mem.decide("Run the import with 3 workers", confidence=0.7, now=T0 + 1)
    c = mem.decide("Run the import with 5 workers", confidence=0.9, now=T0 + 2)
    assert len({a, b, c}) == 3
    states = {x.id: x.state.value for x in mem.query(kind="decision", state=["active", "superseded"])}
    assert states == {a: "active", b: "active", c: "active"}     # no dedup, no conflict supersession
    assert mem.calibration().n_pending == 3


BAD_DECISIONS = [
    ("no confidence", dict(confidence=None), errors.InvalidInputError),
    ("confidence above 1", dict(confidence=1.5), errors.InvalidInputError),
    ("negative confidence", dict(confidence=-0.1), errors.InvalidInputError),
    ("NaN confidence", dict(confidence=float("nan")), errors.NonFiniteError),
    ("confidence as text", dict(confidence="0.7"), errors.InvalidInputError),
    ("confidence as bool", dict(confidence=True), errors.InvalidInputError),
    ("options as a string", dict(options="Postgres"), errors.InvalidInputError),
    ("an empty option", dict(options=["Postgres", " "]), errors.InvalidInputError),
    ("a repeated option", dict(options=["Postgres", "Postgres"]), errors.InvalidInputError),
    ("a non-string option", dict(options=["Postgres", 3]), errors.InvalidInputError),
    ("chosen not among options", dict(options=["Postgres", "MySQL"], chosen="Mongo"), errors.InvalidInputError),
    ("empty chosen", dict(chosen=""), errors.InvalidInputError),
    ("unknown reason type", dict(reasons=[{"type": "vibes", "text": "x"}]), errors.InvalidInputError),
    ("reason without text", dict(reasons=[{"type": "analysis"}]), errors.InvalidInputError),
    ("reasons as a string", dict(reasons="because"), errors.InvalidInputError),
    ("empty category", dict(category=""), errors.InvalidInputError),
    ("too many options", dict(options=[f"o{i}" for i in range(300)]), errors.OversizeError),
    ("empty text", dict(text="  "), errors.EmptyTextError),
    ("bad tags", dict(tags=[""]), errors.InvalidInputError),
    ("id taken", dict(id="first"), errors.InvalidInputError),
    ("bad namespace", dict(namespace=""), errors.NamespaceError),
    ("recorded in the future", dict(recorded_at="2999-01-01"), errors.InvalidInputError),
    ("recorded at no time", dict(recorded_at="soon"), errors.InvalidInputError),
]


@pytest.mark.parametrize("name,kwargs,exc", BAD_DECISIONS, ids=[c[0] for c in BAD_DECISIONS])
def test_a_bad_decision_leaves_the_store_unchanged(mem, name, kwargs, exc):
    mem.decide("Pick the Alfama hotel", confidence=0.5, id="first", now=T0)
    before = store_digest(mem)
    args = {"confidence": 0.7, **kwargs}
    text = args.pop("text", "Use Postgres for billing")
    with pytest.raises(exc) as info:
        mem.decide(text, **args)
    assert str(info.value)
    assert store_digest(mem) == before
    assert [x.id for x in mem.query(kind="decision")] == ["first"]


# ---------------------------------------------------------------------------------- review
def test_review_records_the_outcome_links_it_and_ends_the_hold(mem):
    mem.decide("Book the TAP flight for the offsite", confidence=0.7, id="fly", tags=["travel"], now=T0)
    s = mem.review("fly", "success", note="on time both ways", at=T0 + 3 * DAY)
    info = mem.get("fly").decision
    assert (info.outcome, info.note, info.outcome_at, info.reviews) == ("success", "on time both ways", T0 + 3 * DAY, 1)
    assert info.outcome_id == "fly:outcome:1"
    assert mem.get("fly").salience_at == T0 + 3 * DAY                    # the hold ended at the review
    assert s == pytest.approx(mem.salience("fly", now=T0 + 3 * DAY))
    out = mem.get("fly:outcome:1")
    assert out.kind is engramdb.MemoryKind.EPISODIC and out.created_at == T0 + 3 * DAY
    assert out.tags == ("travel",) and "success" in out.text and "on time both ways" in out.text
    assert ("fly:outcome:1", "fly", "caused_by") in {(e.source, e.target, e.relation.value) for e in mem.edges("fly")}


def test_a_second_review_supersedes_the_first_outcome(mem):
    mem.decide("Ship the release on Friday", confidence=0.9, id="ship", now=T0)
    mem.review("ship", "success", at=T0 + DAY)
    assert mem.get("ship").salience_at == T0 + DAY                      # the first review ended the hold
    mem.review("ship", "failure", note="a regression surfaced on Monday", at=T0 + 4 * DAY)
    info = mem.get("ship").decision
    assert (info.outcome, info.outcome_id, info.reviews) == ("failure", "ship:outcome:2", 2)
    assert outcome_ids(mem) == {"ship:outcome:1": ("superseded", "ship:outcome:2"),
                                "ship:outcome:2": ("active", None)}     # kept, never deleted
    assert ("ship:outcome:2", "ship:outcome:1", "supersedes") in {
        (e.source, e.target, e.relation.value) for e in mem.edges("ship:outcome:1")}
    report = mem.calibration()
    assert report.n_reviewed == 1 and report.brier == pytest.approx(0.81)   # only the latest counts
    assert dict(report.outcomes) == {"success": 0, "partial": 0, "failure": 1}


def test_review_without_outcome_only_ends_the_hold(mem):
    mem.decide("Hire Ana for the backend role", confidence=0.6, id="hire", now=T0)
    s = mem.review("hire", now=T0 + DAY)                  # the earlier form of the verb
    assert isinstance(s, float) and mem.get("hire").salience_at == T0 + DAY
    assert mem.get("hire").decision.outcome == "pending" and outcome_ids(mem) == {}
    assert mem.calibration().n_pending == 1 and mem.calibration().n_reviewed == 0


BAD_REVIEWS = [
    ("unknown outcome", lambda m: m.review("d", "great"), errors.InvalidInputError),
    ("note without outcome", lambda m: m.review("d", note="went well"), errors.InvalidInputError),
    ("empty note", lambda m: m.review("d", "success", note=""), errors.InvalidInputError),
    ("not a decision", lambda m: m.review("fact", "success"), errors.InvalidInputError),
    ("unknown id", lambda m: m.review("ghost", "success"), errors.MemoryNotFoundError),
    ("before the latest review", lambda m: m.review("d", "failure", at=T0 + DAY), errors.InvalidInputError),
    ("before the decision", lambda m: m.review("d2", "failure", at=T0 - 1), errors.InvalidInputError),
    ("at and now disagree", lambda m: m.review("d", "failure", at=T0 + 9 * DAY, now=T0 + 8 * DAY),
     errors.InvalidInputError),
    ("bad time", lambda m: m.review("d", "failure", at="someday"), errors.InvalidInputError),
    ("in the future (a mistyped year)", lambda m: m.review("d", "failure", at="2099-01-01"), errors.InvalidInputError),
]


@pytest.mark.parametrize("name,call,exc", BAD_REVIEWS, ids=[c[0] for c in BAD_REVIEWS])
def test_a_bad_review_leaves_the_store_unchanged(mem, name, call, exc):
    mem.decide("Use Postgres for billing", confidence=0.7, id="d", now=T0)
    mem.decide("Use MySQL for search", confidence=0.6, id="d2", now=T0)
    mem.add("Ana likes green tea", id="fact", kind="semantic")
    mem.review("d", "success", at=T0 + 2 * DAY)
    before = store_digest(mem)
    with pytest.raises(exc):
        call(mem)
    assert store_digest(mem) == before
    assert mem.get("d").decision.reviews == 1


# ---------------------------------------------------------------------------------- calibration
def reference_report(confidences, outcomes, bins):
    """Brier score and reliability bins computed by hand, one decision at a time."""
    values = [VALUE[o] for o in outcomes]
    n = len(values)
    brier = sum((p - v) ** 2 for p, v in zip(confidences, values)) / n if n else None
    rows = []
    for j in range(bins):
        lo, hi = j / bins, (j + 1) / bins
        inside = [(p, v) for p, v in zip(confidences, values) if lo <= p < hi or (j == bins - 1 and p == 1.0)]
        k = len(inside)
        rows.append((lo, hi, k, sum(p for p, _ in inside) / k if k else None,
                     sum(v for _, v in inside) / k if k else None))
    return brier, rows


confidences = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0]))
decisions = st.lists(st.tuples(confidences, st.sampled_from([None, "success", "partial", "failure"])),
                     min_size=0, max_size=25)
_namespaces = itertools.count()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=decisions, bins=st.integers(1, 12))
def test_brier_and_reliability_bins_match_a_hand_computed_reference(mem, items, bins):
    ns = f"ns{next(_namespaces)}"
    for i, (p, outcome) in enumerate(items):
        d = mem.decide(f"decision number {i}", confidence=p, namespace=ns, now=T0 + i)
        if outcome is not None:
            mem.review(d, outcome, namespace=ns, at=T0 + 100 + i)
    reviewed = [(p, o) for p, o in items if o is not None]
    brier, rows = reference_report([p for p, _ in reviewed], [o for _, o in reviewed], bins)
    r = mem.calibration(namespace=ns, bins=bins) if items else mem.calibration(bins=bins)
    assert r.n_reviewed == len(reviewed) and r.n_pending == len(items) - len(reviewed)
    if not reviewed:
        assert r.brier is None and r.accuracy is None and all(b.n == 0 for b in r.bins)
    else:
        assert r.brier == pytest.approx(brier, abs=1e-12)
        assert r.accuracy == pytest.approx(np.mean([VALUE[o] for _, o in reviewed]), abs=1e-12)
        assert r.mean_confidence == pytest.approx(np.mean([p for p, _ in reviewed]), abs=1e-12)
        assert r.overconfidence == pytest.approx(r.mean_confidence - r.accuracy, abs=1e-12)
        assert dict(r.outcomes) == {o: sum(x == o for _, x in reviewed) for o in ("success", "partial", "failure")}
    assert len(r.bins) == bins
    for b, (lo, hi, k, mp, obs) in zip(r.bins, rows):
        assert (b.lo, b.hi, b.n) == (lo, hi, k)
        assert (b.mean_predicted is None) == (mp is None) and (b.observed is None) == (obs is None)
        if k:
            assert b.mean_predicted == pytest.approx(mp, abs=1e-12) and b.observed == pytest.approx(obs, abs=1e-12)


def test_calibration_filters_by_tags_and_decision_time(mem):
    plan = [("a", 0.9, "success", ["infra"], 0), ("b", 0.8, "failure", ["infra", "db"], 1),
            ("c", 0.6, "partial", ["travel"], 2), ("d", 0.3, None, ["infra"], 3), ("e", 0.7, "failure", [], 4)]
    for i, p, outcome, tags, day in plan:
        mem.decide(f"decision {i}", confidence=p, id=i, tags=tags, now=T0 + day * DAY)
        if outcome:
            mem.review(i, outcome, at=T0 + 10 * DAY)

    def brier(ids):
        rows = [(p, VALUE[o]) for i, p, o, _, _ in plan if i in ids and o]
        return sum((p - v) ** 2 for p, v in rows) / len(rows)

    r = mem.calibration(tags=["infra"])
    assert (r.n_reviewed, r.n_pending, r.tags) == (2, 1, ("infra",)) and r.brier == pytest.approx(brier("ab"))
    assert mem.calibration(tags=["infra", "db"]).n_reviewed == 1
    r = mem.calibration(since=T0 + DAY, until=T0 + 2 * DAY)                 # inclusive, on the decision time
    assert (r.n_reviewed, r.n_pending) == (2, 0) and r.brier == pytest.approx(brier("bc"))
    r = mem.calibration(since="2026-01-04T00:00:00Z")
    assert (r.n_reviewed, r.n_pending, r.since) == (1, 1, T0 + 3 * DAY) and r.brier == pytest.approx(brier("e"))
    mem.forget("e")                                                          # archived: still a forecast made
    assert mem.calibration().n_reviewed == 4
    empty = mem.calibration(tags=["nothing"])
    assert (empty.n_reviewed, empty.n_pending, empty.brier, empty.accuracy) == (0, 0, None, None)
    assert "no reviewed decision" in empty.summary()
    with pytest.raises(errors.NamespaceError):
        mem.calibration(namespace="nope")
    with pytest.raises(errors.InvalidInputError):
        mem.calibration(bins=0)


# ---------------------------------------------------------------------------------- recall and context
SIMILAR = [("Use Postgres for the billing service database", "success"),
           ("Use Postgres for the analytics service database", "success"),
           ("Use Postgres for the search service database", "failure"),
           ("Use Postgres for the ledger service database", "success")]


def test_recall_hits_carry_the_outcome_and_context_states_the_track_record(mem):
    for i, (text, outcome) in enumerate(SIMILAR):
        mem.decide(text, confidence=0.8, id=f"pg{i}", tags=["infra"], now=T0 + i * DAY)
        mem.review(f"pg{i}", outcome, at=T0 + (i + 5) * DAY)
    mem.decide("Hire Marta for the design role", confidence=0.9, id="hire", now=T0)
    mem.review("hire", "failure", at=T0 + DAY)
    mem.add("Ana likes green tea", id="tea", kind="semantic")
    question = "Should we use Postgres for the payments service database?"
    hits = {h.id: h for h in mem.recall(question, k=20, reinforce=False).hits}
    assert {hits[f"pg{i}"].outcome for i in range(4)} == {"success", "failure"}
    assert hits["pg2"].outcome == "failure" and hits["pg2"].to_dict()["outcome"] == "failure"
    assert all(h.outcome is None for h in hits.values() if h.kind is not engramdb.MemoryKind.DECISION)
    block = mem.context(question, frame="decision")
    tr = block.track_record
    assert set(tr.ids) == {"pg0", "pg1", "pg2", "pg3"}                     # not the unrelated hire
    assert (tr.success, tr.partial, tr.failure, tr.pending) == (3, 0, 1, 0)
    assert "Track record: 3 of 4 similar decisions succeeded (1 failed)." in block.text
    assert "[outcome: failure]" in block.text
    assert block.to_dict()["track_record"]["success"] == 3
    # a pending similar decision is counted as pending; an unrelated question states no track record
    mem.decide("Use Postgres for the mail service database", confidence=0.7, id="pg4", now=T0 + 9 * DAY)
    block = mem.context(question, frame="decision")
    assert "Track record: 3 of 4 similar decisions succeeded (1 failed); 1 still pending." in block.text
    assert mem.context("What tea does Ana like?").track_record is None


# ---------------------------------------------------------------------------------- export / import
def test_export_and_import_keep_decisions_and_outcomes(mem, tmp_path):
    mem.decide("Ship on Friday", confidence=0.9, id="ship", options=["Friday", "Monday"], chosen="Friday",
               category="release", reasons=[{"type": "constraint", "text": "the demo is Monday"}], now=T0)
    mem.review("ship", "success", at=T0 + DAY)
    mem.review("ship", "partial", note="one hotfix", at=T0 + 2 * DAY)
    mem.decide("Hire Rui", confidence=0.4, id="hire", now=T0)
    mem.export(tmp_path / "x")
    with engramdb.open(tmp_path / "copy", embedder="hashing") as b:
        b.import_from(tmp_path / "x")
        for i in ("ship", "hire"):
            assert b.get(i).decision == mem.get(i).decision and b.get(i).salience_at == mem.get(i).salience_at
        assert outcome_ids(b) == outcome_ids(mem)
        assert b.get("ship:outcome:2").text == mem.get("ship:outcome:2").text
        assert sorted((e.source, e.target, e.relation.value) for e in b.edges("ship")) == \
               sorted((e.source, e.target, e.relation.value) for e in mem.edges("ship"))
        assert b.calibration().to_dict() == mem.calibration().to_dict()
        b.review("ship", "success", at=T0 + 3 * DAY)                 # reviews go on after an import
        assert b.get("ship").decision.outcome_id == "ship:outcome:3"


# ---------------------------------------------------------------------------------- CLI
def test_cli_decide_review_calibration_and_plot(tmp_path):
    store = str(tmp_path / "s")
    runner = CliRunner()
    ids = []
    for i, (p, outcome) in enumerate([(0.9, "success"), (0.8, "failure"), (0.6, "partial")]):
        res = runner.invoke(main, ["decide", "--store", store, "--embedder", "hashing", "--confidence", str(p),
                                   "--option", "A", "--option", "B", "--chosen", "A", "--tag", "t",
                                   "--reason", "empirical:it worked", "--now", str(T0 + i),
                                   f"Pick option A for case {i}"])
        assert res.exit_code == 0, res.output
        ids.append(res.output.strip())
        res = runner.invoke(main, ["review", "--store", store, ids[-1], "--outcome", outcome, "--note", "done",
                                   "--at", str(T0 + 10 + i)])
        assert res.exit_code == 0 and f"reviewed {ids[-1]}: {outcome}" in res.output, res.output
    res = runner.invoke(main, ["get", "--store", store, ids[0]])
    assert json.loads(res.output)["decision"]["reasons"] == [{"type": "empirical", "text": "it worked"}]
    png = tmp_path / "rel.png"
    res = runner.invoke(main, ["calibration", "--store", store, "--tag", "t", "--json", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["n_reviewed"] == 3
    assert report["brier"] == pytest.approx(((0.9 - 1) ** 2 + 0.8 ** 2 + (0.6 - 0.5) ** 2) / 3)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000
    res = runner.invoke(main, ["calibration", "--store", store])
    assert res.exit_code == 0 and "Brier score 0.2200" in res.output and "[0.80, 0.90)" in res.output
    res = runner.invoke(main, ["decide", "--store", store, "--confidence", "2", "x"])
    assert res.exit_code == 2 and "confidence" in res.output


def test_cli_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    store = str(tmp_path / "s")
    with engramdb.open(store, embedder="hashing") as m:
        m.review(m.decide("Pick A", confidence=0.5), "success")
    for name in [k for k in sys.modules if k == "matplotlib" or k.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # import matplotlib -> ImportError
    res = CliRunner().invoke(main, ["calibration", "--store", store, "--plot", str(tmp_path / "x.png")])
    assert res.exit_code == 2
    assert "BackendUnavailableError" in res.output and "engramdb[plot]" in res.output
    assert not (tmp_path / "x.png").exists()
