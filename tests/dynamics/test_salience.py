"""Salience: per-kind lazy decay, bounds and monotonicity, reinforcement, link boosts, decision holds."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb import errors
from engramdb.config import DecayConfig, EngramConfig

from .conftest import DIM, T0, basis

H = DecayConfig().half_life_s
KINDS = ["working", "episodic", "semantic", "procedural"]


def test_default_half_lives_per_kind():
    k = engramdb.MemoryKind
    assert H[k.WORKING] == 30 * 60                       # minutes
    assert 1 * 86400 <= H[k.EPISODIC] <= 30 * 86400      # days to weeks
    assert H[k.SEMANTIC] >= 90 * 86400 and H[k.PROCEDURAL] >= 90 * 86400   # months or more


@pytest.mark.parametrize("kind", KINDS)
def test_lazy_decay_follows_the_half_life(eng, kind):
    eng.add("x", id="m", kind=kind, embedding=basis(0), salience=0.8)
    t0 = eng.get("m").salience_at
    h = H[engramdb.MemoryKind(kind)]
    for age in (0.0, h / 2, h, 3 * h):
        assert eng.salience("m", now=t0 + age) == pytest.approx(0.8 * 2 ** (-age / h), rel=1e-5)
    assert eng.get("m").salience == pytest.approx(0.8)       # nothing written by reading


def test_decision_held_until_reviewed(eng):
    eng.add("We chose Postgres over Mongo", id="d", kind="decision", embedding=basis(0), salience=0.6)
    assert math.isinf(eng.get("d").salience_at)
    far = T0 + 10 * 365 * 86400
    assert eng.salience("d", now=far) == pytest.approx(0.6)
    eng.recall(vector=basis(0), k=1, reinforce=True, now=T0)         # a recall keeps the hold
    s1 = eng.salience("d", now=T0)
    assert s1 == pytest.approx(0.6 + 0.1 * 0.4) and eng.salience("d", now=far) == pytest.approx(s1)
    assert eng.review("d", now=T0) == pytest.approx(s1)
    h = H[engramdb.MemoryKind.DECISION]
    assert eng.salience("d", now=T0 + h) == pytest.approx(s1 / 2, rel=1e-5)
    assert eng.get("d").salience_at == T0
    assert eng.review("d", now=T0 + h) == pytest.approx(s1 / 2, rel=1e-5)   # second review: no restart
    eng.add("an episode", id="e", embedding=basis(1))
    with pytest.raises(errors.InvalidInputError):
        eng.review("e")
    with pytest.raises(errors.MemoryNotFoundError):
        eng.review("ghost")


def test_hold_can_be_turned_off(tmp_store):
    cfg = EngramConfig(decay=DecayConfig(hold_decisions_until_review=False))
    with engramdb.open(tmp_store, dim=DIM, config=cfg) as e:
        e.add("choice", id="d", kind="decision", embedding=basis(0))
        t0 = e.get("d").salience_at
        assert math.isfinite(t0)
        assert e.salience("d", now=t0 + H[engramdb.MemoryKind.DECISION]) == pytest.approx(0.25, rel=1e-5)


def test_recall_reinforces_when_configured(tmp_store):
    for switch, expected in ((True, 1), (False, 0)):
        cfg = EngramConfig(decay=DecayConfig(reinforce_on_recall=switch))
        path = tmp_store.parent / f"s{switch}"
        with engramdb.open(path, dim=DIM, config=cfg) as e:
            e.add("x", id="m", embedding=basis(0), created_at=T0)
            t0 = e.get("m").salience_at
            e.recall(vector=basis(0), k=1, now=t0 + 60)
            m = e.get("m")
            assert m.access_count == expected
            assert (m.last_access == t0 + 60) if switch else m.last_access is None
            e.recall(vector=basis(0), k=1, now=t0 + 120, reinforce=False)    # explicit off wins
            assert e.get("m").access_count == expected


def test_linking_new_to_old_boosts_both(eng):
    eng.add("the flight", id="old", embedding=basis(0))
    s_old = eng.get("old").salience
    eng.add("its confirmation code", id="new", embedding=basis(1), links=[{"to": "old", "relation": "evidence_for"}])
    assert eng.get("new").salience == pytest.approx(0.5 + 0.05 * 0.5)
    now = eng.get("new").salience_at
    assert eng.get("old").salience == pytest.approx(s_old * 2 ** (-(now - eng.get("new").recorded_at) / H[engramdb.MemoryKind.EPISODIC]) * 0.95 + 0.05, rel=1e-4)
    assert eng.get("old").access_count == 0                 # a link is not an access
    before = eng.get("old").salience
    eng.link("old", "new", "supports")
    assert eng.get("old").salience > before and eng.get("new").salience > 0.525
    b_old, b_new = eng.get("old").salience, eng.get("new").salience
    eng.add("next turn", id="t", embedding=basis(2), links=[{"to": "new", "relation": "next"}])
    assert eng.get("new").salience == pytest.approx(b_new)    # structural relation: no boost
    assert eng.get("old").salience == pytest.approx(b_old)
    eng.link("t", "old", "discussed_in")                         # provenance: no boost either
    assert eng.get("old").salience == pytest.approx(b_old)


def test_a_backfilled_link_boosts_its_stored_end_when_it_was_recorded(eng):
    """A memory backfilled with recorded_at and linked to an earlier one boosts that one as of its
    own record time: not decayed over the time up to the clock (to the floor) and dated now, which
    let a simulated rescore archive the resolution of a ticket and keep the ticket."""
    day = 86400.0
    t = T0 - 400 * day   # long before the clock
    eng.add("Ticket 103: the invoice shows the wrong VAT number.", id="ticket", embedding=basis(0), recorded_at=t)
    eng.add("Ticket 103 resolved: invoice reissued.", id="fix", embedding=basis(1), recorded_at=t + 2 * day,
            links=[{"to": "ticket", "relation": "caused_by"}])
    ticket, fix = eng.get("ticket"), eng.get("fix")
    h = H[engramdb.MemoryKind.EPISODIC]
    assert ticket.salience_at == fix.salience_at == t + 2 * day
    assert ticket.salience == pytest.approx(0.5 * 2 ** (-2 * day / h) * 0.95 + 0.05, rel=1e-4)
    # both fade alike from then: a rescore at any later time keeps or archives them together
    later = t + 30 * day
    assert eng.salience("ticket", now=later) == pytest.approx(eng.salience("fix", now=later) * ticket.salience
                                                              / fix.salience, rel=1e-5)


def test_two_backfilled_links_to_one_memory_both_count(eng):
    day = 86400.0
    t = T0 - 400 * day
    eng.add("the ticket", id="ticket", embedding=basis(0), recorded_at=t)
    eng.add_batch([{"text": "first reply", "id": "r1", "embedding": basis(1), "recorded_at": t + day,
                    "links": [{"to": "ticket", "relation": "supports"}]},
                   {"text": "second reply", "id": "r2", "embedding": basis(2), "recorded_at": t + 3 * day,
                    "links": [{"to": "ticket", "relation": "supports"}]}])
    h = H[engramdb.MemoryKind.EPISODIC]
    s = 0.5 * 2 ** (-3 * day / h)
    for _ in range(2):
        s = s + 0.05 * (1 - s)
    ticket = eng.get("ticket")
    assert ticket.salience_at == t + 3 * day and ticket.salience == pytest.approx(s, rel=1e-4)


def test_link_now_boosts_at_the_time_given(eng):
    day = 86400.0
    eng.add("a", id="a", embedding=basis(0), recorded_at=T0 - 100 * day)
    eng.add("b", id="b", embedding=basis(1), recorded_at=T0 - 100 * day)
    edge = eng.link("a", "b", "supports", now=T0 - 99 * day)
    assert edge.relation.value == "supports"
    h = H[engramdb.MemoryKind.EPISODIC]
    for m in (eng.get("a"), eng.get("b")):
        assert m.salience_at == T0 - 99 * day
        assert m.salience == pytest.approx(0.5 * 2 ** (-day / h) * 0.95 + 0.05, rel=1e-4)
    with pytest.raises(errors.InvalidInputError):
        eng.link("a", "b", "supports", now="not a time")


def test_boosted_columns_match_records_after_reopen(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as e:
        e.add("a", id="a", embedding=basis(0))
        e.add("b", id="b", embedding=basis(1), links=[{"to": "a", "relation": "supports"}])
        e.link("b", "a", "caused_by")
        live = (e.salience("a", now=T0 * 2), e.salience("b", now=T0 * 2))
    with engramdb.open(tmp_store) as e:
        assert (e.salience("a", now=T0 * 2), e.salience("b", now=T0 * 2)) == pytest.approx(live)


events = st.lists(st.tuples(st.sampled_from(["wait", "recall", "link"]),
                            st.floats(0, 30 * 86400, allow_nan=False)), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS + ["decision"]), s0=st.floats(0, 1), evs=events)
def test_salience_bounded_and_non_increasing_between_accesses(tmp_path_factory, kind, s0, evs):
    path = tmp_path_factory.mktemp("sal")
    with engramdb.open(path, dim=DIM) as e:
        e.add("m", id="m", kind=kind, embedding=basis(0), salience=s0)
        e.add("o", id="o", kind="episodic", embedding=basis(1))
        now = e.get("m").recorded_at
        last = e.salience("m", now=now)
        for what, dt in evs:
            grid = now + np.linspace(0, dt, 5)
            vals = [e.salience("m", now=t) for t in grid]
            assert all(0.0 <= v <= 1.0 for v in vals)
            assert all(b <= a for a, b in zip(vals, vals[1:]))           # decays between accesses
            assert vals[0] <= last + 1e-7
            now = float(grid[-1])
            before = vals[-1]
            if what == "recall":
                e.recall(vector=basis(0), k=1, reinforce=True, now=now)
                after = e.salience("m", now=now)
                assert before - 1e-6 <= after <= 1.0
            elif what == "link":
                e.link("o", "m", "supports")
                now = max(now, e.get("m").salience_at if math.isfinite(e.get("m").salience_at) else now)
            last = e.salience("m", now=now)


def test_cli_link_now_as_the_api(tmp_path):
    from click.testing import CliRunner
    from engramdb.cli import main

    s = str(tmp_path / "s")
    run = CliRunner().invoke
    for i in ("a", "b"):
        assert run(main, ["add", "--store", s, "--embedder", "hashing", "--id", i, "--recorded-at", "2025-01-01",
                          f"memory {i}"]).exit_code == 0
    out = run(main, ["link", "--store", s, "--now", "2025-01-02", "a", "b", "supports"])
    assert out.exit_code == 0, out.output
    with engramdb.open(s) as e:
        assert e.get("a").salience_at == e.get("b").salience_at == engramdb.to_unix_seconds("2025-01-02")
