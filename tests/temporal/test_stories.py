"""Small hand-written stories: a user moves city twice, a price changes, two reports contradict,
an entity shared by unrelated facts, late reports, explicit supersession and its invariants."""
from datetime import datetime, timezone

import pytest

import engramdb
from engramdb import Relation, SlotConfig
from engramdb.slots import rule_based_extractor
from engramdb.testing import cache_status, damage_snapshot

from .conftest import T0, state_of

DAY = 86400.0


def iso(t):
    return datetime.fromtimestamp(t, timezone.utc).isoformat()


def test_user_moves_city_twice(mem, clock):
    mem.add("The user lives in Paris.", id="paris", slot=("user", "home_city", "Paris"),
            created_at="2019-03-01T00:00:00Z")
    r_paris = clock.t
    clock.advance(DAY)
    mem.add("The user moved to Berlin.", id="berlin", subject="User", attribute="Home City", value="berlin",
            created_at="2021-06-01T00:00:00Z")
    r_berlin = clock.t
    clock.advance(DAY)
    mem.add("The user now lives in Lisbon.", id="lisbon", slot=("user", "home_city", "Lisbon"),
            created_at="2023-09-15T00:00:00Z")
    r_lisbon = clock.t

    paris, berlin, lisbon = (mem.get(x) for x in ("paris", "berlin", "lisbon"))
    assert (paris.state.value, berlin.state.value, lisbon.state.value) == ("superseded", "superseded", "active")
    assert (paris.superseded_by, berlin.superseded_by, lisbon.superseded_by) == ("berlin", "lisbon", None)
    # valid_to = when it stopped being true = the successor's valid_from; retired_at = record time
    assert paris.valid_to == berlin.valid_from == datetime(2021, 6, 1, tzinfo=timezone.utc).timestamp()
    assert berlin.valid_to == lisbon.valid_from == datetime(2023, 9, 15, tzinfo=timezone.utc).timestamp()
    assert (paris.retired_at, berlin.retired_at, lisbon.retired_at) == (r_berlin, r_lisbon, None)
    assert (paris.subject, paris.attribute, berlin.attribute) == ("user", "home_city", "home_city")
    sup = {(e.source, e.target) for x in ("paris", "berlin", "lisbon") for e in mem.edges(x)
           if e.relation is Relation.SUPERSEDES}
    assert sup == {("berlin", "paris"), ("lisbon", "berlin")}

    # default recall: the current value only; with superseded ones: current first is not promised,
    # but every version is there
    q = "where does the user live? Paris, Berlin or Lisbon"
    assert [h.id for h in mem.recall(q, k=5).hits] == ["lisbon"]
    assert {h.id for h in mem.recall(q, k=5, include_superseded=True).hits} == {"paris", "berlin", "lisbon"}
    # as-of each record time: what the store believed then
    assert [h.id for h in mem.recall(q, k=5, as_of=r_paris).hits] == ["paris"]
    assert [h.id for h in mem.recall(q, k=5, as_of=r_berlin - 1).hits] == ["paris"]
    assert [h.id for h in mem.recall(q, k=5, as_of=iso(r_berlin)).hits] == ["berlin"]
    assert [h.id for h in mem.recall(q, k=5, as_of=r_lisbon + 10).hits] == ["lisbon"]
    assert mem.recall(q, k=5, as_of=r_paris - 1).hits == []

    hist = mem.history("berlin")
    assert [(e.id, e.ended_by) for e in hist] == [("paris", "superseded"), ("berlin", "superseded"),
                                                   ("lisbon", None)]
    assert [e.recorded_at for e in hist] == [r_paris, r_berlin, r_lisbon]
    assert [e.replaced_at for e in hist] == [r_berlin, r_lisbon, None]
    assert hist[2].supersedes == ("berlin",) and hist[1].supersedes == ("paris",)
    assert mem.history("paris") == hist == mem.history("lisbon")


def test_price_changes_batch_equals_one_by_one(tmp_path, clock):
    items = [
        {"id": "p1", "text": "The Pro plan costs $10 a month.", "slot": ("pro plan", "price", "$10"),
         "created_at": T0 - 300 * DAY, "tags": ["pricing"]},
        {"id": "p2", "text": "The Pro plan now costs $12 a month.", "slot": ("pro plan", "price", "$12"),
         "created_at": T0 - 100 * DAY, "tags": ["pricing"]},
        {"id": "team", "text": "The Team plan costs $30.", "slot": ("team plan", "price", "$30"),
         "created_at": T0 - 90 * DAY, "tags": ["pricing"]},
        {"id": "p3", "text": "Pro is $15 from today.", "slot": ("Pro Plan", "price", "$15"),
         "created_at": T0 - 10 * DAY, "tags": ["pricing"]},
    ]
    outcomes = []
    for batch in (True, False):
        with engramdb.open(tmp_path / f"s{batch}", dim=128) as m:
            if batch:
                m.add_batch(items)
            else:
                for it in items:
                    m.add(**it)
            outcomes.append({x["id"]: (state_of(m, x["id"]), m.get(x["id"]).superseded_by,
                                       m.get(x["id"]).valid_to) for x in items})
            assert [x.id for x in m.query(tags=["pricing"])] == ["p3", "team"]
            assert [x.id for x in m.query(tags="pricing", include_superseded=True)] == ["p3", "team", "p2", "p1"]
    assert outcomes[0] == outcomes[1]
    assert outcomes[0]["p1"] == ("superseded", "p2", T0 - 100 * DAY)
    assert outcomes[0]["p2"] == ("superseded", "p3", T0 - 10 * DAY)
    assert outcomes[0]["p3"] == ("active", None, None)
    assert outcomes[0]["team"] == ("active", None, None)


def test_two_contradicting_reports_kept_both_with_warning(mem, clock):
    t = "2024-02-01T09:00:00Z"
    mem.add("Witness A: the car was red.", id="a", slot=("car", "colour", "red"), created_at=t, confidence=0.7)
    clock.advance(60)
    mem.add("Witness B: the car was blue.", id="b", slot=("car", "colour", "blue"), created_at=t, confidence=0.7)
    # same valid time, same confidence: the newer record holds the slot, both are kept, and linked
    assert (state_of(mem, "a"), state_of(mem, "b")) == ("superseded", "active")
    rels = {(e.source, e.target, e.relation.value) for e in mem.edges("a")}
    assert rels == {("b", "a", "supersedes"), ("b", "a", "contradicts")}
    res = mem.recall("what colour was the car? red or blue", k=5)
    assert [h.id for h in res.hits] == ["b"]
    assert [(w.source, w.target, w.source_in_hits, w.target_in_hits, w.target_state.value)
            for w in res.warnings] == [("b", "a", True, False, "superseded")]
    both = mem.recall("what colour was the car? red or blue", k=5, include_superseded=True)
    assert {h.id for h in both.hits} == {"a", "b"}
    assert [(w.source, w.target, w.source_in_hits, w.target_in_hits) for w in both.warnings] == [("b", "a", True, True)]
    assert both.to_dict()["warnings"][0]["source"] == "b"


def test_contradiction_surfaced_for_manual_contradicts_links(mem):
    mem.add("The meeting is on Monday.", id="m1")
    mem.add("The meeting is on Tuesday.", id="m2")
    assert mem.recall("when is the meeting", k=5).warnings == []
    mem.link("m2", "m1", "contradicts")
    res = mem.recall("when is the meeting", k=5)
    assert {h.id for h in res.hits} == {"m1", "m2"}
    assert [(w.source, w.target, w.source_in_hits, w.target_in_hits) for w in res.warnings] == [("m2", "m1", True, True)]


def test_tie_broken_by_confidence_is_not_a_contradiction(mem, clock):
    t = T0 - DAY
    mem.add("Rumour: the launch is in May.", id="rumour", slot=("launch", "date", "May"), created_at=t, confidence=0.3)
    mem.add("Official: the launch is in June.", id="official", slot=("launch", "date", "June"), created_at=t,
            confidence=0.9)
    mem.add("Another rumour: July.", id="rumour2", slot=("launch", "date", "July"), created_at=t, confidence=0.2)
    assert [state_of(mem, x) for x in ("rumour", "official", "rumour2")] == ["superseded", "active", "superseded"]
    assert mem.get("rumour2").superseded_by == "official"
    assert all(e.relation is not Relation.CONTRADICTS for x in ("rumour", "official") for e in mem.edges(x))


def test_late_report_of_an_older_state_is_history(mem, clock):
    mem.add("Dana works at Initech.", id="now", slot=("dana", "employer", "Initech"), created_at=T0 - 10 * DAY)
    clock.advance(5)
    mem.add("Back in 2015 Dana worked at Globex.", id="old", slot=("dana", "employer", "Globex"),
            created_at="2015-01-01")
    old = mem.get("old")
    assert state_of(mem, "now") == "active"
    assert (old.state.value, old.superseded_by, old.valid_to, old.retired_at) == (
        "superseded", "now", T0 - 10 * DAY, clock.t)
    assert [h.id for h in mem.recall("where does Dana work", k=5)] == ["now"]
    # never believed current: no as-of instant shows it
    assert "old" not in {h.id for h in mem.recall("Dana worked at Globex", k=5, as_of=clock.t)}


def test_shared_entity_does_not_retire_unrelated_facts(mem):
    mem.add("Alice lives in Paris.", id="home", slot=("alice", "home_city", "Paris"), created_at=T0 - 9 * DAY)
    mem.add("Alice's employer is Acme.", id="job", slot=("alice", "employer", "Acme"), created_at=T0 - 8 * DAY)
    mem.add("Alice likes tea.", id="tea", slot=("alice", "likes", "tea"), created_at=T0 - 7 * DAY)
    mem.add("Alice likes jazz.", id="jazz", slot=("alice", "likes", "jazz"), created_at=T0 - 6 * DAY)
    mem.add("Alice met Bob in Rome.", id="met", created_at=T0 - 5 * DAY)   # no slot at all
    mem.add("Bob lives in Rome.", id="bob", slot=("bob", "home_city", "Rome"), created_at=T0 - 4 * DAY)
    mem.add("Alice moved to Rome.", id="rome", slot=("alice", "home_city", "Rome"), created_at=T0 - 3 * DAY)
    states = {x: state_of(mem, x) for x in ("home", "job", "tea", "jazz", "met", "bob", "rome")}
    assert states == {"home": "superseded", "job": "active", "tea": "active", "jazz": "active",
                      "met": "active", "bob": "active", "rome": "active"}
    assert mem.get("home").superseded_by == "rome"
    # per-call cardinality: a single-valued attribute declared multi for this memory accumulates
    mem.add("Alice also has a flat in Nice.", id="nice", slot=("alice", "home_city", "Nice"), single_valued=False,
            created_at=T0 - 2 * DAY)
    assert (state_of(mem, "rome"), state_of(mem, "nice")) == ("active", "active")


def test_same_value_restated_keeps_one_current(mem):
    mem.add("Sam's email is sam@x.org", id="e1", slot=("sam", "email", "sam@x.org"), created_at=T0 - 5 * DAY)
    mem.add("Sam's email is still sam@x.org", id="e2", slot=("sam", "email", "sam@x.org"), created_at=T0 - DAY)
    assert (state_of(mem, "e1"), state_of(mem, "e2")) == ("superseded", "active")
    assert all(e.relation is not Relation.CONTRADICTS for e in mem.edges("e1"))


def test_rule_based_extractor_patterns():
    assert rule_based_extractor("Ana's employer is Acme.") == ("Ana", "employer", "Acme")
    assert rule_based_extractor("The user's home city is Porto") == ("The user", "home city", "Porto")
    assert rule_based_extractor("Bob lives in New York.") == ("Bob", "home_city", "New York")
    assert rule_based_extractor("Bob moved to Boston!") == ("Bob", "home_city", "Boston")
    assert rule_based_extractor("We went hiking in the Alps.") is None
    # a new job: what it names is the speaker's job now (a fresh user's job change filled no slot)
    assert rule_based_extractor("I started a new job as a product manager at Globex today!") == (
        "user", "job", "product manager at Globex")
    assert rule_based_extractor("Dana: I got a job as a nurse.") == ("Dana", "job", "nurse")
    assert rule_based_extractor("I just started working as a designer.") == ("user", "job", "designer")
    assert rule_based_extractor("I started a new job.") is None
    assert rule_based_extractor("If I got a job as a pilot, I would travel.") is None
    assert rule_based_extractor("I never got a job as a pilot.") is None
    # several sentences: read clause by clause (the first that states a slot gives it)
    assert rule_based_extractor("Bob lives in Boston. He likes it.") == ("Bob", "home_city", "Boston")


def test_a_new_job_supersedes_the_old_one_in_the_profile(tmp_path):
    cfg = engramdb.EngramConfig(slots=SlotConfig(extractor=rule_based_extractor))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as m:
        m.add_conversation([{"role": "user", "content": "I work as a data analyst at Fintrack.", "created_at": T0 - DAY},
                            {"role": "user", "content": "I started a new job as a product manager at Globex today!",
                             "created_at": T0}], session="s")
        assert m.current("user", "job").id == "s:2" and m.get("s:1").superseded_by == "s:2"
        assert m.profile("user")["job"].value == "product manager at Globex"


def test_extractor_is_off_by_default_and_pluggable(tmp_path):
    with engramdb.open(tmp_path / "plain", dim=64) as m:
        m.add("Ana lives in Porto.", id="a", created_at=T0 - DAY)
        m.add("Ana moved to Faro.", id="b", created_at=T0)
        assert (state_of(m, "a"), state_of(m, "b")) == ("active", "active")
        assert m.get("a").subject is None
    cfg = engramdb.EngramConfig(slots=SlotConfig(extractor=rule_based_extractor))
    with engramdb.open(tmp_path / "rules", dim=64, config=cfg) as m:
        m.add("Ana lives in Porto.", id="a", created_at=T0 - DAY)
        m.add("Ana's employer is Acme.", id="job", created_at=T0 - DAY)
        m.add("We had lunch.", id="lunch", created_at=T0 - DAY)
        m.add("Ana moved to Faro.", id="b", created_at=T0)
        assert [state_of(m, x) for x in ("a", "job", "lunch", "b")] == ["superseded", "active", "active", "active"]
        assert (m.get("b").subject, m.get("b").attribute, m.get("b").value) == ("ana", "home_city", "Faro")
        # a caller's slot wins over the extractor
        m.add("Ana moved to Lagos (the town).", id="c", slot=("ana", "home_city", "lagos"), created_at=T0 + 1)
        assert m.get("c").value == "lagos" and state_of(m, "b") == "superseded"

    def bad(text):
        return ["not", "a", "tuple"]

    with engramdb.open(tmp_path / "bad", dim=64, config=engramdb.EngramConfig(slots=SlotConfig(extractor=bad))) as m:
        with pytest.raises(engramdb.InvalidInputError, match="extractor"):
            m.add("anything")
        assert m.stats()["memories"] == 0


def test_slot_config_bounds():
    with pytest.raises(engramdb.ConfigError):
        SlotConfig(single_valued={"price"}, multi_valued={"price"})
    with pytest.raises(engramdb.ConfigError):
        SlotConfig(extractor="not callable")
    with pytest.raises(engramdb.ConfigError):
        SlotConfig(single_valued="price")
    cfg = SlotConfig(single_valued={"Home City"}, multi_valued={"likes"}, default_single=False)
    assert cfg.is_single("home_city") and not cfg.is_single("likes") and not cfg.is_single("other")


def test_explicit_supersede_by_existing_and_cycles(mem, clock):
    mem.add("v1 of the plan", id="v1", created_at=T0 - 3 * DAY)
    mem.add("v2 of the plan", id="v2", created_at=T0 - 2 * DAY)
    mem.add("v3 of the plan", id="v3", created_at=T0 - DAY)
    assert mem.supersede("v1", by="v2") == "v2"
    assert mem.get("v1").superseded_by == "v2" and mem.get("v1").valid_to == T0 - 2 * DAY
    assert mem.supersede("v2", by="v3") == "v3"
    with pytest.raises(engramdb.InvalidInputError, match="cycle"):
        mem.supersede("v3", by="v1")          # v1 precedes v3: superseding into it closes a loop
    with pytest.raises(engramdb.InvalidInputError, match="already superseded"):
        mem.supersede("v1", by="v3")          # v1 into its own successor
    with pytest.raises(engramdb.InvalidInputError, match="itself"):
        mem.supersede("v3", by="v3")
    with pytest.raises(engramdb.InvalidInputError, match="exactly one"):
        mem.supersede("v3", "text", by="v2")
    assert [state_of(mem, x) for x in ("v1", "v2", "v3")] == ["superseded", "superseded", "active"]
    assert [e.id for e in mem.history("v1")] == ["v1", "v2", "v3"]


def test_supersede_with_text_keeps_the_slot(mem, clock):
    mem.add("The office is in Leeds.", id="o1", slot=("office", "city", "Leeds"), created_at=T0 - 2 * DAY)
    new = mem.supersede("o1", "The office is in York.", id="o2", value="York", created_at=T0 - DAY)
    assert new == "o2" and (mem.get("o2").subject, mem.get("o2").attribute) == ("office", "city")
    assert mem.get("o1").valid_to == T0 - DAY and mem.get("o1").retired_at == clock.t
    mem.add("The office moved to Hull.", id="o3", slot=("office", "city", "Hull"), created_at=T0)
    assert [state_of(mem, x) for x in ("o1", "o2", "o3")] == ["superseded", "superseded", "active"]


def test_hard_forget_of_the_current_revives_its_predecessor(mem, clock):
    mem.add("Tom is 30.", id="t30", slot=("tom", "age", "30"), created_at=T0 - 400 * DAY)
    clock.advance(10)
    mem.add("Tom is 31.", id="t31", slot=("tom", "age", "31"), created_at=T0 - 30 * DAY)
    clock.advance(10)
    mem.forget("t31", hard=True)
    t30 = mem.get("t30")
    assert (t30.state.value, t30.superseded_by, t30.retired_at, t30.valid_to) == ("active", None, None, None)
    assert [h.id for h in mem.recall("how old is Tom", k=3, as_of=clock.t)] == ["t30"]
    clock.advance(10)
    mem.add("Tom is 32.", id="t32", slot=("tom", "age", "32"), created_at=T0)
    assert (state_of(mem, "t30"), state_of(mem, "t32")) == ("superseded", "active")


def test_temporal_fields_survive_reopen(tmp_store, clock):
    with engramdb.open(tmp_store, dim=64) as m:
        m.add("Kim lives in Oslo.", id="k1", slot=("kim", "home_city", "Oslo"), created_at=T0 - 9 * DAY)
        clock.advance(100)
        m.add("Kim lives in Bergen.", id="k2", slot=("kim", "home_city", "Bergen"), created_at=T0 - DAY)
        before = [m.get(x).to_dict() for x in ("k1", "k2")]
        as_of = [h.id for h in m.recall("Kim lives", k=5, as_of=T0 + 50)]
    assert as_of == ["k1"]
    with engramdb.open(tmp_store) as m:      # column snapshot path
        assert [m.get(x).to_dict() for x in ("k1", "k2")] == before
        assert [h.id for h in m.recall("Kim lives", k=5, as_of=T0 + 50)] == ["k1"]
        clock.advance(100)
        m.add("Kim lives in Tromso.", id="k3", slot=("kim", "home_city", "Tromso"), created_at=T0)
        assert [state_of(m, x) for x in ("k1", "k2", "k3")] == ["superseded", "superseded", "active"]
        damage_snapshot(m, "columns")        # drop the column snapshot: columns come from the records
    with engramdb.open(tmp_store) as m:
        assert cache_status(m)["columns"] == "rebuilt"
        assert [h.id for h in m.recall("Kim lives", k=5, as_of=T0 + 50)] == ["k1"]
        assert [h.id for h in m.recall("Kim lives", k=5, as_of=T0 + 150)] == ["k2"]
    with engramdb.open(tmp_store) as m:      # a snapshot written before a column existed
        assert cache_status(m)["columns"] == "current"
        damage_snapshot(m, "columns", array="valid_to")
    with engramdb.open(tmp_store) as m:
        assert cache_status(m)["columns"] == "rebuilt"
        assert [h.id for h in m.recall("Kim lives", k=5, as_of=T0 + 150)] == ["k2"]


def test_hard_forget_keeps_one_current_per_slot(mem, clock):
    mem.add("Uma lives in Rome.", id="a", slot=("uma", "home_city", "Rome"), created_at="2019-01-01")
    mem.add("Uma moved to Milan.", id="b", slot=("uma", "home_city", "Milan"), created_at="2021-01-01")
    mem.add("In 2015 Uma lived in Bari.", id="c", slot=("uma", "home_city", "Bari"), created_at="2015-01-01")
    assert (mem.get("a").superseded_by, mem.get("c").superseded_by) == ("b", "b")
    mem.forget("b", hard=True)
    # the later of the two comes back; the late report now hangs off it
    assert (state_of(mem, "a"), state_of(mem, "c"), mem.get("c").superseded_by) == ("active", "superseded", "a")
    assert ("a", "c") in {(e.source, e.target) for e in mem.edges("c") if e.relation is Relation.SUPERSEDES}
    # erasing a middle version hands its predecessor on to its successor
    mem.add("Uma moved to Turin.", id="d", slot=("uma", "home_city", "Turin"), created_at="2022-01-01")
    mem.add("Uma moved to Genoa.", id="e", slot=("uma", "home_city", "Genoa"), created_at="2023-01-01")
    mem.forget("d", hard=True)
    assert (state_of(mem, "a"), mem.get("a").superseded_by, state_of(mem, "e")) == ("superseded", "e", "active")
    assert [e.id for e in mem.history("e")] == ["a", "c", "e"]


def test_engram_config_checks_the_slot_group():
    with pytest.raises(engramdb.ConfigError, match="slots"):
        engramdb.EngramConfig(slots={"single_valued": ["price"]})
    assert isinstance(engramdb.EngramConfig().slots, SlotConfig)
