"""Hostile pass on the lifecycle of versions: a memory forgotten (archived) after it was
superseded stayed "superseded by" its successor in its record, but every check looked only at
the state, so the engine took it for a current memory again. Also consolidation's merges across
slots, and a backfilled correction of a reworded memory.

Each test asserts the documented behaviour (README, ``Engram.supersede`` / ``update`` /
``consolidate`` docstrings) that the engine broke.
"""
import pytest

import engramdb
from engramdb import errors
from engramdb.testing import store_digest

YEARS = (2020, 2021, 2022, 2023, 2024, 2025)


def _chain(mem):
    """a -> b -> c, one single-valued slot, backfilled a year apart; then b is forgotten."""
    for id_, city, year in (("a", "Paris", 2020), ("b", "Rome", 2021), ("c", "Oslo", 2022)):
        mem.add(f"Alice lives in {city}.", id=id_, slot=("alice", "home_city", city),
                created_at=f"{year}-01-01", recorded_at=f"{year}-01-01")
    mem.forget("b")


def test_a_forgotten_old_value_is_no_holder_when_a_new_value_comes(tmp_path):
    # slot resolution took the archived b for a current holder: it retired it again (b's
    # successor became d, its retirement 2024, the forget undone) and as_of 2023 showed b and c
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        _chain(mem)
        mem.add("Alice lives in Lima.", id="d", slot=("alice", "home_city", "Lima"), recorded_at="2024-01-01")
        b = mem.get("b")
        assert (b.state.value, b.superseded_by, b.retired_at) == ("archived", "c", 1640995200.0)
        assert {y: [m.id for m in mem.query(as_of=f"{y}-06-01")] for y in YEARS} == {
            2020: ["a"], 2021: ["b"], 2022: ["c"], 2023: ["c"], 2024: ["d"], 2025: ["d"]}
        assert [h.id for h in mem.recall("Alice lives in", k=5, as_of="2023-06-01").hits] == ["c"]
        assert mem.current("alice", "home_city").id == "d"


def test_a_forgotten_superseded_memory_is_still_superseded_for_every_verb(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        _chain(mem)
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="already superseded by 'c'"):
            mem.supersede("b", "Alice lives in Kyiv.")          # a fork: two current versions
        with pytest.raises(errors.InvalidInputError, match="superseded by 'c'"):
            mem.update("b", text="Alice lives in Roma.")
        with pytest.raises(errors.InvalidInputError, match="cycle"):
            mem.supersede("c", by="b")                          # b and c superseding each other
        assert store_digest(mem) == before
        assert [m.id for m in mem.query(subject="alice", attribute="home_city")] == ["c"]


def test_a_successor_given_by_id_is_a_current_memory(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Standup is in the blue room.", id="a")
        mem.add("Standup moved to the garden, weather permitting.", id="b")
        mem.forget("b")
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="'b' is archived"):
            mem.supersede("a", by="b")   # the fact vanished: a superseded by a forgotten memory
        assert store_digest(mem) == before and [m.id for m in mem.query()] == ["a"]


def test_consolidation_merges_within_one_slot_value_only(tmp_path):
    # a merge retires the others: two slots stating the same sentence lost one slot's holder,
    # and a slotted memory merged into an unslotted copy emptied the slot
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        text = "Alice and Bob both live in Paris."
        mem.add(text, id="alice_city", kind="semantic", slot=("alice", "home_city", "Paris"))
        mem.add(text, id="bob_city", kind="semantic", slot=("bob", "home_city", "Paris"))
        mem.add("Carol lives in Faro.", id="slotted", kind="semantic", slot=("carol", "home_city", "Faro"),
                created_at="2024-01-01", recorded_at="2024-01-01")
        mem.add("Carol lives in Faro.", id="plain", kind="semantic", created_at="2025-01-01",
                recorded_at="2025-01-01")
        mem.add("Dan keeps bees.", id="d1", kind="semantic")
        mem.add("Dan keeps bees.", id="d2", kind="semantic")   # an unslotted pair still merges
        mem.consolidate()
        assert mem.current("alice", "home_city").id == "alice_city"
        assert mem.current("bob", "home_city").id == "bob_city"
        assert mem.current("carol", "home_city").id == "slotted" and list(mem.profile("carol")) == ["home_city"]
        assert {mem.get("d1").state.value, mem.get("d2").state.value} == {"active", "superseded"}


def test_a_backfilled_correction_of_a_reworded_memory_comes_after_its_latest_wording(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Alice lives in Paris.", id="a", recorded_at="2020-01-01")
        mem.update("a", text="Alice lives in Paris, France.")   # version 2, recorded now
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="before its latest wording was recorded"):
            mem.supersede("a", "Alice lives in Rome.", recorded_at="2021-01-01")
        assert store_digest(mem) == before
        mem.supersede("a", "Alice lives in Rome.", id="b")   # recorded now: after both wordings
        assert mem.get("a").superseded_by == "b"


def test_erasing_the_value_a_late_report_fell_before_leaves_no_hole_in_as_of(tmp_path):
    # Paris, then Oslo; Rome is reported late (valid from 2021): Paris is re-pointed to Rome and
    # Rome to Oslo. Erasing Oslo left Paris retired at Oslo's record time, so nothing was
    # believed between then and Rome's record time
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Alice lives in Paris.", id="a", slot=("alice", "home_city", "Paris"), recorded_at="2020-01-01")
        mem.add("Alice lives in Oslo.", id="b", slot=("alice", "home_city", "Oslo"), recorded_at="2022-01-01")
        mem.add("Alice lives in Rome.", id="c", slot=("alice", "home_city", "Rome"), recorded_at="2023-01-01",
                valid_from="2021-01-01", created_at="2021-01-01")
        assert {y: [m.id for m in mem.query(as_of=f"{y}-06-01")] for y in YEARS} == {
            2020: ["a"], 2021: ["a"], 2022: ["b"], 2023: ["b"], 2024: ["b"], 2025: ["b"]}
        mem.forget("b", hard=True)
        assert {y: [m.id for m in mem.query(as_of=f"{y}-06-01")] for y in YEARS} == {
            2020: ["a"], 2021: ["a"], 2022: ["a"], 2023: ["c"], 2024: ["c"], 2025: ["c"]}
        a = mem.get("a")
        assert (a.superseded_by, a.retired_at) == ("c", 1672531200.0)   # Rome's record time
        assert [m.id for m in mem.query(valid_at="2021-06-01")] == ["c"]


def test_an_as_of_recall_is_not_steered_by_a_memory_recorded_after_it(tmp_path):
    # the later value seeded the recall and named itself in the path of the earlier one
    # ("a3 -[supersedes]-> a2"): the as_of answer showed what the store did not hold then
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("I moved to Lisbon.", id="a2", slot=("user", "home_city", "Lisbon"), recorded_at="2024-03-02")
        mem.add("I moved to Porto.", id="a3", slot=("user", "home_city", "Porto"), recorded_at="2024-09-02")
        for q in ("Porto", "I moved to Porto.", "where do I live?"):
            res = mem.recall(q, as_of="2024-06-01", k=5)
            assert [(h.id, [s.id for s in h.path]) for h in res.hits] == [("a2", ["a2"])], q
        now = mem.recall("I moved to Porto.", k=5)   # without as_of the later value leads
        assert now.hits[0].id == "a3"


def test_an_as_of_recall_spreads_only_through_memories_recorded_by_then(tmp_path):
    # a bridge recorded after as_of joined an old question to an old answer: activation passed
    # through it, so the answer was reached (its path naming the bridge) though the store held
    # no link between them then
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Zebra crossing near the harbour.", id="q", recorded_at="2024-01-01")
        mem.add("Violet lanterns glow softly.", id="ans", recorded_at="2024-01-02")
        mem.add("Unrelated bridge note.", id="bridge", recorded_at="2024-09-01",
                links=[{"to": "q", "relation": "supports"}, {"to": "ans", "relation": "supports"}])
        cfg = engramdb.RecallConfig(gate="on")
        now = mem.recall("Zebra crossing near the harbour", k=5, config=cfg)
        via = {h.id: [s.id for s in h.path] for h in now.hits}
        assert "bridge" in via["ans"]   # today the bridge joins them
        then = mem.recall("Zebra crossing near the harbour", k=5, config=cfg, as_of="2024-06-01")
        paths = {h.id: [s.id for s in h.path] for h in then.hits}
        assert paths.pop("q") == ["q"]
        assert paths in ({}, {"ans": ["ans"]})   # by its own (weak) match at most, not through the bridge
