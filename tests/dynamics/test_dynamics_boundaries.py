"""Forgetting and admission at their boundaries, through the public API only.

A salience exactly on an archive floor is kept; a decision held until its review is never
archived, whatever its salience; superseded memories are history, not forgotten; a recall's
reinforcement keeps a decision's hold on disk; a candidate exactly at ``duplicate_cosine`` is
a duplicate. Salience at age 0 is s0 exactly in every kernel backend (2**0 = 1), so the
floors are compared with exact values.
"""
import math

import numpy as np
import pytest

import engramdb
from engramdb import AdmissionConfig, EngramConfig, ForgettingConfig
from ..conftest import basis

DIM = 16
DAY = 86400.0
KINDS = [k.value for k in engramdb.MemoryKind]




@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "store", dim=DIM) as m:
        yield m


def _floors(archive, prune=0.0):
    return EngramConfig(forgetting=ForgettingConfig(archive_floor=dict.fromkeys(KINDS, archive),
                                                    prune_floor=dict.fromkeys(KINDS, prune)))


# ---------------------------------------------------------------- archive floor
@pytest.mark.parametrize("floor", [0.25, 0.05])
def test_salience_exactly_on_the_archive_floor_is_kept(tmp_path, floor):
    with engramdb.open(tmp_path / "s", dim=DIM, config=_floors(floor)) as m:
        m.add("on the floor", id="on", embedding=basis(0), salience=floor)
        m.add("just below it", id="below", embedding=basis(1), salience=float(np.nextafter(np.float32(floor), 0)))
        now = max(m.get("on").salience_at, m.get("below").salience_at)   # age 0 for both
        summary = m.rescore(now)
        assert summary["archived"] == 1
        assert m.get("on").state.value == "active" and m.get("below").state.value == "archived"


def test_default_episodic_floor_is_a_strict_bound(mem):
    floor = ForgettingConfig().archive_floor[engramdb.MemoryKind.EPISODIC]
    mem.add("an episode on the floor", id="e", embedding=basis(0), salience=floor)
    assert mem.rescore(mem.get("e").salience_at)["archived"] == 0
    assert mem.get("e").state.value == "active"


# ---------------------------------------------------------------- held decisions
def test_a_held_decision_is_not_archived_until_reviewed(mem):
    mem.add("We chose the Alfama hotel", id="dec", kind="decision", embedding=basis(0), salience=0.005)
    assert 0.005 < ForgettingConfig().archive_floor[engramdb.MemoryKind.DECISION]      # already below
    assert math.isinf(mem.get("dec").salience_at)
    now = mem.get("dec").recorded_at + 1000 * DAY
    assert mem.rescore(now)["archived"] == 0 and mem.get("dec").state.value == "active"
    mem.review("dec", now=now)
    assert mem.rescore(now + DAY)["archived"] == 1 and mem.get("dec").state.value == "archived"


def test_a_reinforcing_recall_keeps_the_hold_on_disk(tmp_path):
    path = tmp_path / "s"
    with engramdb.open(path, dim=DIM) as m:
        m.add("We chose Postgres", id="dec", kind="decision", embedding=basis(0), salience=0.6)
        now = m.get("dec").recorded_at + 10.0
        m.recall(vector=basis(0), k=1, reinforce=True, now=now)
        rec = m.get("dec")
        assert rec.access_count == 1 and math.isinf(rec.salience_at)
        s = m.salience("dec", now=now)
    with engramdb.open(path) as m:
        assert math.isinf(m.get("dec").salience_at)
        assert m.salience("dec", now=now + 3650 * DAY) == pytest.approx(s)


def test_linking_to_a_held_decision_keeps_its_hold(mem):
    mem.add("We chose Postgres", id="dec", kind="decision", embedding=basis(0), salience=0.6)
    mem.add("Postgres has JSONB", id="fact", kind="semantic", embedding=basis(1))
    mem.link("fact", "dec", "informed_by")                       # boosts both ends
    assert math.isinf(mem.get("dec").salience_at) and mem.get("dec").salience > 0.6


# ---------------------------------------------------------------- superseded memories
def test_rescore_leaves_superseded_memories_alone(mem):
    mem.add("rent is 900", id="old", embedding=basis(0), salience=0.01)
    mem.supersede("old", "rent is 950", id="new", embedding=basis(0), salience=0.9)
    now = mem.get("new").recorded_at + 10 * DAY
    summary = mem.rescore(now)
    assert summary["archived"] == 0
    assert mem.get("old").state.value == "superseded" and mem.get("old").superseded_by == "new"
    assert {x.id for x in mem.query(include_superseded=True)} == {"new", "old"}
    assert [x.id for x in mem.query(include_archived=True)] == ["new"]


def test_pruning_a_successor_revives_its_predecessor_as_current(tmp_path):
    with engramdb.open(tmp_path / "s", dim=DIM, config=_floors(0.5, 0.5)) as m:
        m.add("rent is 900", id="a", embedding=basis(0), salience=0.9)
        m.supersede("a", "rent is 950", id="b", embedding=basis(0), salience=0.01)
        now = m.get("b").recorded_at + 1.0
        assert m.rescore(now)["pruned"] == 1
        a = m.get("a")
        assert (a.state.value, a.superseded_by, a.valid_to, a.retired_at) == ("active", None, None, None)
        assert [h.id for h in m.recall(vector=basis(0), k=2, as_of=now + 1.0).hits] == ["a"]


# ---------------------------------------------------------------- admission
def test_candidate_exactly_at_duplicate_cosine_reinforces(mem):
    mem.add("we like green tea", id="tea", embedding=basis(0))
    cfg = AdmissionConfig(duplicate_cosine=1.0)               # basis vectors: the cosine is exactly 1
    (d,) = mem.admit_batch([{"text": "we really like green tea", "embedding": basis(0)}], config=cfg)
    assert (d.decision, d.target, d.stored, d.nearest_cosine) == ("reinforce", "tea", False, 1.0)
    assert mem.get("tea").access_count == 1
    (far,) = mem.admit_batch([{"text": "we like black coffee", "embedding": basis(1)}], config=cfg)
    assert far.decision != "reinforce" and far.nearest_cosine == 0.0


def test_candidates_in_one_batch_exactly_at_duplicate_cosine(mem):
    cfg = AdmissionConfig(duplicate_cosine=1.0, threshold=0.0)
    first, second = mem.admit_batch([{"text": "we like green tea", "embedding": basis(0)},
                                     {"text": "we really like green tea", "embedding": basis(0)}], config=cfg)
    assert first.decision == "admit" and first.stored
    assert second.decision == "reinforce" and second.target == first.id and not second.stored
