"""Forgetting: per-kind floors, archive vs prune, the log, the bounded working tier, rescoring."""
import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb import errors
from engramdb.cli import main
from engramdb.config import EngramConfig, ForgettingConfig
from engramdb.testing import columns, meta, nid_of, store_digest

from .conftest import DIM, basis, unit

DAY = 86400.0
SKIP = ("rescore_last",)
K = engramdb.MemoryKind
EPISODE_PRUNING = {K.WORKING: 0.0, K.EPISODIC: 0.001, K.SEMANTIC: 0.0, K.PROCEDURAL: 0.0, K.DECISION: 0.0}


@pytest.fixture
def pruning(tmp_path):
    """A store whose policy erases archived episodes below salience 0.001."""
    e = engramdb.open(tmp_path / "pruning", dim=DIM,
                      config=EngramConfig(forgetting=ForgettingConfig(prune_floor=EPISODE_PRUNING)))
    yield e
    e.close()


def _story(e):
    """One memory of each kind, stored now; returns the time they were stored."""
    e.add("We talked about the weather in Boston", id="ep", kind="episodic", embedding=basis(0))
    e.add("Ana is allergic to shellfish", id="sem", kind="semantic", embedding=basis(1))
    e.add("To book TAP, use the miles account", id="proc", kind="procedural", embedding=basis(2))
    e.add("We chose the Alfama hotel", id="dec", kind="decision", embedding=basis(3))
    return e.get("ep").recorded_at


def test_archive_keeps_memory_reachable(eng):
    t = _story(eng)
    s = eng.rescore(t + 50 * DAY)            # episodic: 0.5 * 2**(-50/14) = 0.042 < 0.05
    assert s["archived"] == 1 and s["pruned"] == 0 and s["promoted"] == 0
    assert s["by_kind"]["episodic"]["archived"] == 1 and s["by_kind"]["semantic"]["archived"] == 0
    assert eng.get("ep").state is engramdb.MemoryState.ARCHIVED
    assert eng.get("ep").salience == pytest.approx(0.5 * 2 ** (-50 / 14), rel=1e-5)
    assert {m: eng.get(m).state.value for m in ("sem", "proc", "dec")} == dict.fromkeys(("sem", "proc", "dec"), "active")
    floor = engramdb.RecallConfig(cosine_floor=-1.0)
    assert "ep" not in {h.id for h in eng.recall(vector=basis(0), k=10, config=floor, now=t + 50 * DAY).hits}
    hits = eng.recall(vector=basis(0), k=10, config=floor, include_archived=True, now=t + 50 * DAY).hits
    assert hits[0].id == "ep" and hits[0].state is engramdb.MemoryState.ARCHIVED
    (entry,) = eng.dynamics_log(action="archive")
    assert entry["id"] == "ep" and entry["kind"] == "episodic" and "archive floor 0.05" in entry["reason"]
    assert meta(eng, "rescore_last")["archived"] == 1


def test_default_policy_never_erases(eng):
    t = _story(eng)
    s = eng.rescore(t + 1e5 * DAY)
    assert s["pruned"] == 0 and s["archived"] == 3 and eng.stats()["memories"] == 4
    assert eng.get("ep").state.value == "archived" and eng.get("dec").state.value == "active"


def test_prune_only_where_policy_allows(pruning):
    eng = pruning
    t = _story(eng)
    s = eng.rescore(t + 2000 * DAY)
    # episodic: archived and erased in the same pass; semantic (0.5 * 2**(-2000/180)) archived, never
    # erased; procedural (half-life 10 years) stays; the decision is held until review
    assert (s["archived"], s["pruned"]) == (2, 1)
    with pytest.raises(errors.MemoryNotFoundError):
        eng.get("ep")
    assert eng.get("sem").state.value == "archived" and eng.get("proc").state.value == "active"
    assert eng.get("dec").state.value == "active"
    (p,) = eng.dynamics_log(action="prune")
    assert p["id"] == "ep" and p["text"] == "We talked about the weather in Boston"
    assert sorted(e["id"] for e in eng.dynamics_log(action="archive")) == ["ep", "sem"]
    assert eng.stats()["memories"] == 3
    s2 = eng.rescore(t + 1e5 * DAY)                          # semantic can fall to ~0: still kept
    assert s2["pruned"] == 0 and eng.salience("sem", now=t + 1e5 * DAY) < 1e-30 and eng.get("sem").text


def test_prune_erases_edges_and_revives_what_it_superseded(pruning):
    eng = pruning
    eng.add("old plan", id="a", embedding=basis(0), kind="semantic")
    eng.supersede("a", "new plan", embedding=basis(1), kind="episodic")
    new_id = eng.get("a").superseded_by
    eng.add("other", id="o", embedding=basis(2), links=[{"to": new_id, "relation": "supports"}])
    t = eng.get("o").recorded_at
    eng.rescore(t + 400 * DAY)
    with pytest.raises(errors.MemoryNotFoundError):
        eng.get(new_id)
    assert eng.get("a").state.value in ("active", "archived") and eng.get("a").superseded_by is None
    assert all(new_id not in (e.source, e.target) for e in eng.edges("a"))
    assert eng.n_edges == 0


def test_rescore_is_idempotent_story(eng):
    t = _story(eng)
    eng.add("scratch note", id="w", kind="working", embedding=basis(4))
    first = eng.rescore(t + 50 * DAY)
    assert first["promoted"] == 1 and eng.get("w").kind.value == "episodic"
    d1 = store_digest(eng, SKIP)
    second = eng.rescore(t + 50 * DAY)
    assert store_digest(eng, SKIP) == d1
    assert (second["promoted"], second["archived"], second["pruned"], second["records_written"]) == (0, 0, 0, 0)


def test_materialize_writes_current_salience(eng):
    t = _story(eng)
    s = eng.rescore(t + 14 * DAY, materialize=True)
    assert s["records_written"] == 3                         # the held decision keeps its t0
    m = eng.get("ep")
    assert m.salience_at == t + 14 * DAY and m.salience == pytest.approx(0.25, rel=1e-5)
    assert eng.rescore(t + 14 * DAY, materialize=True)["records_written"] == 0


def test_rescore_one_namespace(eng):
    eng.add("x", id="x", embedding=basis(0), namespace="a")
    eng.add("y", id="y", embedding=basis(1), namespace="b")
    t = eng.get("x", namespace="a").recorded_at
    s = eng.rescore(t + 60 * DAY, namespace="a")
    assert s["scanned"] == 1 and s["archived"] == 1
    assert eng.get("y", namespace="b").state.value == "active"


@pytest.mark.parametrize("call,exc", [
    (lambda e: e.rescore("yesterday"), errors.InvalidInputError),
    (lambda e: e.rescore(float("nan")), errors.NonFiniteError),
    (lambda e: e.rescore(namespace=""), errors.NamespaceError),
    (lambda e: e.dynamics_log(action="explode"), errors.InvalidInputError),
    (lambda e: e.dynamics_log(limit=-1), errors.InvalidInputError),
])
def test_rescore_bad_input_leaves_store_unchanged(eng, call, exc):
    _story(eng)
    before = store_digest(eng)
    with pytest.raises(exc):
        call(eng)
    assert store_digest(eng) == before


def test_forgetting_config_bounds():
    with pytest.raises(errors.ConfigError):
        ForgettingConfig(working_capacity=0)
    with pytest.raises(errors.ConfigError):      # prune floor above archive floor
        ForgettingConfig(prune_floor={k: 0.5 for k in engramdb.MemoryKind})
    with pytest.raises(errors.ConfigError):
        ForgettingConfig(archive_floor={"episodic": 0.1})


# ---------------------------------------------------------------- working tier
def _small_tier(path, cap):
    cfg = ForgettingConfig(working_capacity=cap, prune_floor=EPISODE_PRUNING)
    return engramdb.open(path, dim=DIM, config=EngramConfig(forgetting=cfg))


def test_working_overflow_promotes_least_salient(tmp_store):
    with _small_tier(tmp_store, 3) as e:
        for i, s in enumerate([0.9, 0.2, 0.8, 0.1, 0.7]):
            e.add(f"note {i}", id=f"w{i}", kind="working", salience=s, embedding=basis(i))
        kinds = {f"w{i}": e.get(f"w{i}").kind.value for i in range(5)}
        assert kinds == {"w0": "working", "w1": "episodic", "w2": "working", "w3": "episodic", "w4": "working"}
        assert e.get("w3").salience == pytest.approx(0.25)    # raised to promote_salience
        # the 4th add overflows: w3 (0.1) is the least salient; the 5th: w1 (0.2)
        assert [x["id"] for x in e.dynamics_log(action="promote")] == ["w3", "w1"]
        assert e.stats()["memories"] == 5


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cap=st.integers(1, 4), batches=st.lists(st.lists(st.tuples(st.sampled_from(["working", "episodic"]),
                                                                   st.floats(0, 1)), min_size=1, max_size=5),
                                                min_size=1, max_size=5), later=st.floats(0, 3 * DAY))
def test_overflow_never_loses_a_memory(tmp_path_factory, cap, batches, later):
    rng = np.random.default_rng(len(batches))
    with _small_tier(tmp_path_factory.mktemp("tier"), cap) as e:
        ids = []
        for b in batches:
            items = [{"id": f"m{len(ids) + j}", "text": f"note {len(ids) + j}", "kind": k, "salience": s,
                      "embedding": unit(rng.standard_normal(DIM))} for j, (k, s) in enumerate(b)]
            ids += e.add_batch(items)
            c = columns(e)
            working_active = int(((c["kind"] == 0) & (c["state"] == 0) & c["alive"]).sum())
            assert working_active <= cap
        assert e.stats()["memories"] == len(ids)
        assert all(e.get(i).id == i for i in ids)               # adds promote, never evict
        working = {i for b_ids, b in zip(_split(ids, batches), batches) for i, (k, _) in zip(b_ids, b)
                   if k == "working"}
        t = e.get(ids[0]).recorded_at
        e.rescore(t + later)
        pruned = {x["id"] for x in e.dynamics_log(action="prune")}
        kept = {i for i in ids if i not in pruned and e.get(i).id == i}
        assert kept | pruned == set(ids)                        # nothing dropped without a log entry
        assert not (pruned & working)                            # working memories are promoted, not pruned
        assert e.stats()["memories"] == len(kept)


def _split(ids, batches):
    out, i = [], 0
    for b in batches:
        out.append(ids[i:i + len(b)])
        i += len(b)
    return out


# ---------------------------------------------------------------- idempotence property
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mems=st.lists(st.tuples(st.sampled_from(["working", "episodic", "semantic", "procedural", "decision"]),
                               st.floats(0, 1), st.booleans()), min_size=1, max_size=12),
       age_days=st.floats(0, 3000), cap=st.integers(1, 5))
def test_rescoring_twice_equals_rescoring_once(tmp_path_factory, mems, age_days, cap):
    rng = np.random.default_rng(len(mems))
    with _small_tier(tmp_path_factory.mktemp("idem"), cap) as e:
        for i, (kind, s, archived) in enumerate(mems):
            e.add(f"m {i}", id=f"m{i}", kind=kind, salience=s, embedding=unit(rng.standard_normal(DIM)))
            if archived:
                e.forget(f"m{i}")
        now = e.get("m0").recorded_at + age_days * DAY
        e.rescore(now)
        d1, log1 = store_digest(e, SKIP), e.dynamics_log()
        second = e.rescore(now)
        assert store_digest(e, SKIP) == d1 and e.dynamics_log() == log1
        assert second["records_written"] == second["archived"] == second["pruned"] == second["promoted"] == 0


def test_cli_rescore_and_log(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as e:
        t = _story(e)
    runner = CliRunner()
    res = runner.invoke(main, ["rescore", "--store", str(tmp_store), "--now", str(t + 50 * DAY), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["archived"] == 1 and summary["scanned"] == 4
    res = runner.invoke(main, ["rescore", "--store", str(tmp_store), "--now", str(t + 50 * DAY)])
    assert res.exit_code == 0 and "episodic" in res.output and "archived 0" in res.output
    res = runner.invoke(main, ["log", "--store", str(tmp_store), "--json"])
    assert [e["action"] for e in json.loads(res.output)] == ["archive"]
    res = runner.invoke(main, ["rescore", "--store", str(tmp_store), "--now", "someday"])
    assert res.exit_code == 2 and "InvalidInputError" in res.output


def test_columns_match_records_after_reopen(tmp_path):
    path = tmp_path / "reopen"
    with _small_tier(path, 2) as e:
        t = _story(e)
        for i in range(4):
            e.add(f"w {i}", id=f"w{i}", kind="working", salience=0.1 * (i + 1), embedding=basis(5 + i))
        e.rescore(t + 50 * DAY)
        live = {m: (e.get(m).state, e.get(m).kind, e.salience(m, now=t + 60 * DAY))
                for m in ("ep", "sem", "proc", "dec", "w0", "w1", "w2", "w3")}
    with engramdb.open(path) as e:
        assert {m: (e.get(m).state, e.get(m).kind, e.salience(m, now=t + 60 * DAY)) for m in live} == live
        c = columns(e)
        for m in live:
            nid = nid_of(e, m)
            rec = e.get(m)
            assert (c["s0"][nid], c["t0"][nid]) == (np.float32(rec.salience), rec.salience_at)
            assert engramdb.MemoryKind(rec.kind).code == c["kind"][nid]


@pytest.mark.parametrize("keep", [True, False])
def test_a_current_slot_value_is_not_archived_however_quiet(tmp_path, keep):
    """What current() and profile() answer stays (a job said once, then months of silence, used
    to leave the profile on its own); a value a new one superseded, and memories holding no
    slot, follow the floors as before. ``keep_current_slots=False`` lets the values fade too."""
    cfg = EngramConfig(forgetting=ForgettingConfig(keep_current_slots=keep))
    t0 = 1_780_000_000.0
    with engramdb.open(tmp_path / "s", dim=DIM, config=cfg) as eng:
        eng.add("I work as a nurse.", id="job", slot=("user", "job", "nurse"), embedding=basis(0),
                created_at=t0, recorded_at=t0)
        eng.add("I live in Lisbon.", id="lisbon", slot=("user", "home_city", "Lisbon"), embedding=basis(1),
                kind="semantic", created_at=t0, recorded_at=t0)
        eng.add("I live in Porto.", id="porto", slot=("user", "home_city", "Porto"), embedding=basis(2),
                kind="semantic", created_at=t0 + DAY, recorded_at=t0 + DAY)
        eng.add("Lunch was a tuna sandwich.", id="lunch", embedding=basis(3), created_at=t0, recorded_at=t0)
        out = eng.rescore(now=t0 + 5 * 365 * DAY)
        states = {i: eng.get(i).state.value for i in ("job", "lisbon", "porto", "lunch")}
        if keep:
            assert (out["archived"], out["slots_kept"]) == (1, 2)
            assert states == {"job": "active", "lisbon": "superseded", "porto": "active", "lunch": "archived"}
            assert eng.current("user", "job").id == "job"
            assert sorted(eng.profile("user")) == ["home_city", "job"]
            assert eng.rescore(now=t0 + 5 * 365 * DAY)["archived"] == 0   # idempotent
        else:
            assert (out["archived"], out["slots_kept"]) == (3, 0)
            assert eng.current("user", "job") is None and eng.profile("user") == {}


@pytest.mark.parametrize("keep", [True, False])
def test_a_change_is_not_archived_while_the_value_it_changed_stays(tmp_path, keep):
    """helper-224: a rescore archived "Dr. Lee moved our check-ins to Fridays at 10am." and kept
    the protected "... Thursdays at 3pm." it changed: the stale time then answered first, at
    relevance 1.0, with no warning. A change (the later of a ``contradicts`` pair) stays while
    the value it changed does, a change of it too; both fade together when nothing keeps the old."""
    cfg = EngramConfig(forgetting=ForgettingConfig(keep_current_slots=keep))
    t0 = 1_780_000_000.0
    with engramdb.open(tmp_path / "s", dim=DIM, config=cfg) as eng:
        eng.add("My weekly check-in with my therapist is Thursdays at 3pm.", id="thu", embedding=basis(0),
                tags=["protected"], created_at=t0, recorded_at=t0)
        eng.add("Dr. Lee moved our check-ins to Fridays at 10am.", id="fri", embedding=basis(1),
                created_at=t0 + DAY, recorded_at=t0 + DAY, links=[{"to": "thu", "relation": "contradicts"}])
        eng.add("Dr. Lee moved them again, to Mondays at 9am.", id="mon", embedding=basis(2),
                created_at=t0 + 2 * DAY, recorded_at=t0 + 2 * DAY, links=[{"to": "fri", "relation": "contradicts"}])
        eng.add("My old gym was on Elm Street.", id="gym", embedding=basis(3), created_at=t0, recorded_at=t0)
        eng.add("The gym moved to Oak Street.", id="oak", embedding=basis(4), created_at=t0 + DAY,
                recorded_at=t0 + DAY, links=[{"to": "gym", "relation": "contradicts"}])
        out = eng.rescore(now=t0 + 365 * DAY)
        states = {i: eng.get(i).state.value for i in ("thu", "fri", "mon", "gym", "oak")}
        if keep:
            assert out["changes_kept"] == 2 and out["protected_kept"] == 1
            assert states == {"thu": "active", "fri": "active", "mon": "active", "gym": "archived", "oak": "archived"}
            assert eng.rescore(now=t0 + 365 * DAY)["archived"] == 0   # idempotent
        else:
            assert out["changes_kept"] == 0
            assert states == {"thu": "active", "fri": "archived", "mon": "archived", "gym": "archived", "oak": "archived"}
