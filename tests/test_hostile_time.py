"""Hostile pass on times: the record time of what a verb writes, the time its dynamics are
computed at, and the supersessions an import carries.

Each test asserts the documented behaviour (README / docstrings) that the engine broke, through
the public API and the CLI.
"""
import json
import re

import pytest
from click.testing import CliRunner

import engramdb
from engramdb import errors
from engramdb.cli import main
from engramdb.config import DecayConfig, EngramConfig
from engramdb.testing import frozen_clock, meta, store_digest

DAY = 86400.0
YEAR = 365 * DAY
T0 = 1_700_000_000.0
HOME = ("user", "home_city")


def _current_ids(mem, ns="default"):
    """The ids ``query`` lists as current in slot HOME."""
    return sorted(m.id for m in mem.query(namespace=ns, subject=HOME[0], attribute=HOME[1]))


# ------------------------------------------------------------------ 1. import_from(on_conflict="skip")
def _moved_to_porto(tmp_path):
    """An export whose "por" supersedes "lis" in slot HOME (both there), and a store that holds
    the same "lis" as its own current value; returns (store, export directory)."""
    with frozen_clock(T0 + 10 * DAY):
        theirs = engramdb.open(tmp_path / "theirs", embedder="hashing")
        theirs.add("I live in Lisbon.", id="lis", slot=(*HOME, "Lisbon"), recorded_at=T0, created_at=T0)
        theirs.add("I moved to Porto.", id="por", slot=(*HOME, "Porto"))
        assert theirs.get("lis").superseded_by == "por"
        theirs.export(tmp_path / "exp")
        theirs.close()
        mine = engramdb.open(tmp_path / "mine", embedder="hashing")
        mine.add("I live in Lisbon.", id="lis", slot=(*HOME, "Lisbon"), recorded_at=T0, created_at=T0)
    return mine, tmp_path / "exp"


def test_import_skip_applies_the_exports_supersession_to_the_kept_memory(tmp_path):
    # the kept "lis" stayed active beside the imported "por" that the export says supersedes it:
    # two current values in a single-valued slot, recall returned both, history said "por"
    # supersedes a "lis" still current
    mine, exp = _moved_to_porto(tmp_path)
    with mine, frozen_clock(T0 + 20 * DAY):
        out = mine.import_from(exp, on_conflict="skip")
        assert (out["memories"], out["skipped"]) == (1, 1)
        lis = mine.get("lis")
        assert lis.text == "I live in Lisbon." and lis.state is engramdb.MemoryState.SUPERSEDED
        assert lis.superseded_by == "por"
        assert lis.retired_at == T0 + 10 * DAY           # retired when its successor was recorded
        assert lis.valid_to == T0 + 10 * DAY             # the successor's valid_from
        assert mine.current(*HOME).id == "por"
        assert _current_ids(mine) == ["por"]
        hits = [h.id for h in mine.recall("where do I live? Lisbon or Porto", k=5).hits]
        assert "por" in hits and "lis" not in hits
        history = {h.id: h for h in mine.history("lis")}
        assert history["lis"].superseded_by == "por" and history["lis"].state is engramdb.MemoryState.SUPERSEDED
        assert history["por"].supersedes == ("lis",) and history["por"].superseded_by is None
        # as_of agrees with history: one current value before and after the correction
        early = [h.id for h in mine.recall("Lisbon Porto live", k=5, as_of=T0 + 5 * DAY).hits]
        late = [h.id for h in mine.recall("Lisbon Porto live", k=5, as_of=T0 + 15 * DAY).hits]
        assert early == ["lis"] and late == ["por"]
        assert mine.verify_ledger().ok
        again = store_digest(mine)
        assert mine.import_from(exp, on_conflict="skip")["memories"] == 0   # idempotent
        assert store_digest(mine) == again


def test_import_skip_applies_a_supersession_between_two_kept_memories(tmp_path):
    # both ends stored already: the export's supersedes edge was attached, the target left current
    with frozen_clock(T0):
        a = engramdb.open(tmp_path / "a", embedder="hashing")
        b = engramdb.open(tmp_path / "b", embedder="hashing")
        for e in (a, b):
            e.add("The team standup is at nine.", id="x", kind="semantic")
            e.add("The planning meeting moved to Thursday afternoons.", id="y", kind="semantic")
    with frozen_clock(T0 + DAY):
        b.supersede("x", by="y")
        b.export(tmp_path / "exp")
        b.close()
    with a, frozen_clock(T0 + 2 * DAY):
        out = a.import_from(tmp_path / "exp", on_conflict="skip")
        assert (out["memories"], out["skipped"]) == (0, 2)
        x = a.get("x")
        assert (x.state, x.superseded_by) == (engramdb.MemoryState.SUPERSEDED, "y")
        assert [h.id for h in a.history("x")] == ["x", "y"]
        assert "x" not in [h.id for h in a.recall("standup meeting", k=5).hits]


def test_import_skip_refuses_a_kept_memory_the_store_superseded_otherwise(tmp_path):
    # the store's "lis" is superseded by "bra"; the export says "por" supersedes it: one memory
    # cannot have two successors (supersede refuses it too), so nothing is written
    mine, exp = _moved_to_porto(tmp_path)
    with mine, frozen_clock(T0 + 20 * DAY):
        mine.add("I moved to Braga.", id="bra", slot=(*HOME, "Braga"))
        assert mine.get("lis").superseded_by == "bra"
        before = store_digest(mine)
        with pytest.raises(errors.InvalidInputError, match=r"'lis'.*'por'.*'bra'"):
            mine.import_from(exp, on_conflict="skip")
        assert store_digest(mine) == before
        assert _current_ids(mine) == ["bra"]


# ------------------------------------------------------------------ 2. consolidate / rescore record time
def _sleepy_store(tmp_path):
    with frozen_clock(T0):
        mem = engramdb.open(tmp_path / "s", embedder="hashing")
        mem.add_conversation([
            {"role": "user", "content": "We planned the Lisbon trip budget with the hotel options.", "created_at": T0},
            {"role": "assistant", "content": "The Lisbon hotel budget is 900 euros for the trip.",
             "created_at": T0 + 60}], session="s1")
        mem.add("I like green tea with honey in the morning.", id="k1", kind="semantic")
        mem.add("I like green tea with honey in the morning!", id="k2", kind="semantic")
    return mem


def test_consolidate_records_its_writes_at_the_clock_not_at_now(tmp_path):
    # a summary and a merge of consolidate(now=T0 + 400 d), run at T0 + 30 d, were recorded at
    # T0 + 400 d: as_of the present neither the summary nor the merge was there
    mem = _sleepy_store(tmp_path)
    wall = T0 + 30 * DAY
    with mem, frozen_clock(wall):
        out = mem.consolidate(now=T0 + 400 * DAY)
        assert (out["summaries"], out["merged"], out["now"]) == (1, 1, T0 + 400 * DAY)
        summary = mem.get("sum:S:s1")
        assert summary.recorded_at == wall
        merged = [m for m in ("k1", "k2") if mem.get(m).state is engramdb.MemoryState.SUPERSEDED]
        assert len(merged) == 1 and mem.get(merged[0]).retired_at == wall
        assert all(e["at"] == wall for e in mem.dynamics_log() if e["action"].startswith("consolidate"))
        now_hits = [h.id for h in mem.recall("green tea honey morning", k=5, as_of=wall).hits]
        assert merged[0] not in now_hits and len(now_hits) == 1
        assert "sum:S:s1" in [m.id for m in mem.query(as_of=wall)]
        assert "sum:S:s1" not in [m.id for m in mem.query(as_of=wall - 1)]
        assert mem.consolidate(now=T0 + 400 * DAY)["summaries"] == 0   # still idempotent


def test_rescore_records_its_archive_at_the_clock_not_at_now(tmp_path):
    # rescore(now=wall + 3 years) archived with archived_at = wall + 3 years (and logged it
    # then): a recall as_of the day after still had the memory active
    wall = T0 + 30 * DAY
    with frozen_clock(T0) as clock, engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("A passing episode at the market", id="ep", kind="episodic")
        clock.advance(30 * DAY)
        out = mem.rescore(now=wall + 3 * YEAR)
        assert out["archived"] == 1 and out["now"] == wall + 3 * YEAR
        assert mem.history("ep")[0].archived_at == wall
        (entry,) = mem.dynamics_log(action="archive")
        assert entry["at"] == wall
        assert mem.get("ep").salience_at == wall + 3 * YEAR   # the dynamics stay at now
        floor = engramdb.RecallConfig(cosine_floor=-1.0)
        assert [h.id for h in mem.recall("passing episode market", k=5, as_of=wall - 1, config=floor).hits] == ["ep"]
        assert mem.recall("passing episode market", k=5, as_of=wall + DAY, config=floor).hits == []


# ------------------------------------------------------------------ 3. review at a past time
def test_a_second_review_at_a_past_time_computes_salience_at_that_time(tmp_path):
    # the second review reinforced (link boost) at the wall clock, 400 days on: it returned and
    # stored 0.0789 instead of 0.5118
    cfg = EngramConfig(decay=DecayConfig(initial_salience=0.5, link_boost=0.05))   # decision half-life 90 d
    with frozen_clock(T0 + 400 * DAY), engramdb.open(tmp_path / "s", embedder="hashing", config=cfg) as mem:
        mem.decide("We pick Postgres for the billing service", confidence=0.9, id="d", now=T0)
        first = mem.review("d", "success", at=T0 + 30 * DAY)
        assert first == pytest.approx(0.525, rel=1e-6)                     # 0.5 held, boosted once
        second = mem.review("d", "failure", at=T0 + 40 * DAY)
        expected = 0.525 * 2 ** (-10 / 90)                                 # 0.48608 at T0 + 40 d
        expected += 0.05 * (1 - expected)                                  # boosted: 0.51178
        assert second == pytest.approx(0.51178, abs=1e-5) and second == pytest.approx(expected, rel=1e-5)
        assert mem.get("d").salience_at == T0 + 40 * DAY
        assert mem.salience("d", now=T0 + 130 * DAY) == pytest.approx(expected / 2, rel=1e-5)
        assert mem.get("d:outcome:2").recorded_at == T0 + 400 * DAY        # record time: the clock


# ------------------------------------------------------------------ 4. engramdb ingest without ids
def _run(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res.output


def test_ingest_takes_lines_without_an_id_as_add_batch_takes_items_without_one(tmp_path):
    # every line needed an "id" ("links and recall use it"), which the README never said
    lines = [{"id": "a", "text": "I booked TAP flight TP 218 to Lisbon."},
             {"text": "The airline emailed confirmation code QX7Z9M.",
              "links": [{"to": "a", "relation": "evidence_for", "weight": 0.8}]},
             {"text": "We leave on May 14 and come back on May 21.", "namespace": "trip"}]
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    store = tmp_path / "s"
    assert "ingested 3 memories and 1 edge into" in _run("ingest", "--store", store, path)
    with engramdb.open(store, readonly=True) as mem:
        by_text = {m.text: m.id for ns in ("default", "trip") for m in mem.query(namespace=ns)}
        code = by_text["The airline emailed confirmation code QX7Z9M."]
        assert re.fullmatch(r"[0-9a-f]{32}", code)                       # a random hex id, as add_batch gives
        assert re.fullmatch(r"[0-9a-f]{32}", by_text["We leave on May 14 and come back on May 21."])
        assert [(e.source, e.target, e.relation.value) for e in mem.edges(code)
                if e.relation.value == "evidence_for"] == [(code, "a", "evidence_for")]
        ids_before = sorted(by_text.values())
    # again: the texts are stored, so they reinforce their memories (add_batch's rule), no copies
    again = _run("ingest", "--store", store, path)
    assert "ingested 3 memories (0 new, 3 already stored) and 1 edge (0 new)" in again
    with engramdb.open(store, readonly=True) as mem:
        assert sorted(m.id for ns in ("default", "trip") for m in mem.query(namespace=ns)) == ids_before
        assert mem.get(code).access_count == 1
    # the same items through add_batch: the same texts, ids of the same form
    with engramdb.open(tmp_path / "b", embedder="hashing") as mem:
        ids = mem.add_batch([{k: v for k, v in x.items() if k not in ("links", "namespace")} for x in lines[:2]])
        assert ids[0] == "a" and re.fullmatch(r"[0-9a-f]{32}", ids[1])


def test_ingest_help_says_what_a_line_without_an_id_gets():
    out = _run("ingest", "--help")
    assert "without" in out and "id" in out and "random" in out


# ------------------------------------------------------------------ 5. rescore at a time before the records
def test_rescore_before_the_memories_were_recorded_leaves_them_as_stored(tmp_path):
    # the decay kernel counts a t0 after now as age 0: a memory recorded after now keeps its
    # stored salience (never above it), is neither archived nor pruned, and no record of the
    # pass is dated before the clock; what a rescore at an earlier now does is what a rescore at
    # the clock would do to the memories that existed then
    with frozen_clock(T0) as clock, engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("An old episode at the market", id="old", kind="episodic")
        clock.advance(200 * DAY)
        mem.add("A new episode at the beach", id="new", kind="episodic")
        mem.add("A new fact: the beach opens at eight", id="fact", kind="semantic")
        before = {i: (mem.get(i).salience, mem.get(i).salience_at) for i in ("new", "fact")}
        digest = store_digest(mem, skip_meta=("rescore_last",))
        out = mem.rescore(now=T0 - YEAR)                 # before every record: nothing to do
        assert (out["archived"], out["pruned"], out["promoted"], out["records_written"]) == (0, 0, 0, 0)
        assert store_digest(mem, skip_meta=("rescore_last",)) == digest
        assert meta(mem, "rescore_last")["now"] == T0 - YEAR
        assert mem.salience("new", now=T0 - YEAR) == mem.get("new").salience == 0.5
        out = mem.rescore(now=T0 + 100 * DAY)            # "old" existed then; "new" and "fact" did not
        assert out["archived"] == 1 and mem.get("old").state is engramdb.MemoryState.ARCHIVED
        assert {i: (mem.get(i).salience, mem.get(i).salience_at) for i in ("new", "fact")} == before
        assert mem.history("old")[0].archived_at == T0 + 200 * DAY   # the clock, not now
        assert mem.salience("new", now=T0 + 100 * DAY) <= 0.5


def test_cli_rescore_at_a_time_before_the_store_leaves_its_memories_as_stored(tmp_path):
    store = tmp_path / "s"
    with frozen_clock(T0), engramdb.open(store, embedder="hashing") as mem:
        mem.add("An episode at the market", id="ep", kind="episodic")
        mem.add("Keep this note for the build", id="w", kind="working")
    with engramdb.open(store, readonly=True) as mem:   # as closed (its caches saved)
        digest = store_digest(mem, skip_meta=("rescore_last",))
    out = json.loads(_run("rescore", "--store", store, "--now", "2001-01-01T00:00:00Z", "--json"))
    assert (out["scanned"], out["archived"], out["promoted"], out["records_written"]) == (2, 0, 0, 0)
    assert out["by_kind"]["episodic"]["mean_salience"] == 0.5          # stored, never above it
    with engramdb.open(store, readonly=True) as mem:
        assert store_digest(mem, skip_meta=("rescore_last",)) == digest


# ------------------------------------------------------------------ 6. admit_batch(now=)
def test_admission_records_its_writes_at_the_clock_not_at_now(tmp_path):
    # admit_batch(now=a year ahead) logged its decisions a year ahead: the record time is the
    # clock's, now only the time admission's factors and reinforcements are computed at
    later = T0 + YEAR
    with frozen_clock(T0), engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("My sister Ana lives in Lisbon and works as a nurse.", id="ana")
        out = mem.admit_batch([{"text": "My sister Ana works as a nurse in Lisbon's main hospital.", "id": "c1",
                                "created_at": later, "kind": "semantic"},
                               {"text": "My sister Ana lives in Lisbon and works as a nurse.", "id": "c2"}],
                              now=later)
        assert [d.decision for d in out] == ["admit", "reinforce"]
        assert {e["at"] for e in mem.dynamics_log()} == {T0}
        assert mem.get("c1").recorded_at == T0
        assert mem.get("ana").salience_at == later   # the reinforcement's dynamics stay at now


def test_a_memory_dated_in_the_future_does_not_move_yesterday(tmp_path):
    """One memory of a planned trip (created_at 2030) moved the anchor of "yesterday" from the
    chat's last day to the recall's now, and yesterday's dinner fell out (hostile pass): the
    anchor is the newest event time up to now, as_of recalls included (``now`` left to the wall
    clock: a ``now`` the caller gives is the anchor itself)."""
    from datetime import datetime, timezone

    def at(*a):
        return datetime(*a, tzinfo=timezone.utc).timestamp()

    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("We hiked up the ridge trail.", id="hike", created_at=at(2024, 6, 12))
        mem.add("I had sushi for dinner with Ana.", id="sushi", created_at=at(2024, 6, 19))
        mem.add("Dentist appointment went fine.", id="dentist", created_at=at(2024, 6, 20))
        before = [h.id for h in mem.recall("What did I do yesterday?", k=3).hits]
        mem.add("Planned trip to Japan with the whole family.", id="trip", created_at=at(2030, 5, 1))
        after = [h.id for h in mem.recall("What did I do yesterday?", k=3).hits]
        assert before[0] == after[0] == "sushi"
        past = mem.recall("What did I do yesterday?", k=3, as_of=at(2099, 1, 1)).hits
        assert past[0].id == "sushi"
        # a now the caller gives is the cues' anchor: nothing was said on 31 December 2025
        res = mem.recall("What did I do yesterday?", k=3, now=at(2026, 1, 1))
        assert res.hits == [] and "empty_window" in [g.reason for g in res.gaps]
        assert mem.recall("What did I do yesterday?", k=3, now=at(2024, 6, 20, 12)).hits[0].id == "sushi"


def test_an_as_of_recall_shows_the_wording_of_then(tmp_path):
    """recall(as_of=T) showed a memory's text as update() reworded it after T: the door code of
    April for a question about February (hostile pass)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        with frozen_clock(1.7e9) as clk:
            mem.add("The door code is 1234.", id="code")
            clk.advance(100 * DAY)
            mem.update("code", text="The door code is 9876.")
            clk.advance(100 * DAY)
            mem.update("code", text="The door code is 5555.")
            then = [mem.recall("door code", k=1, as_of=1.7e9 + t * DAY).hits[0].text for t in (1, 150, 250)]
            assert then == ["The door code is 1234.", "The door code is 9876.", "The door code is 5555."]
            assert mem.recall("door code", k=1).hits[0].text == "The door code is 5555."


def test_a_now_given_anchors_yesterday_in_an_imported_chat(tmp_path):
    """helper-205: "how far did I run yesterday?" with ``now`` the morning after an imported
    chat's last message read "yesterday" as the day before that message, and ranked the older
    run (5 km, two days before) first with no gap."""
    chat = [("2025-04-01T20:00:00Z", "I went for a run this evening, 5 km along the river."),
            ("2025-04-03T08:32:00Z", "I also ran 12 km this morning before work, a new personal best."),
            ("2025-04-03T08:35:00Z", "Our cat needs a vet appointment next week.")]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": at} for at, t in chat], namespace="me")
        res = mem.recall("how far did I run yesterday?", namespace="me", k=2, now="2025-04-04T09:00:00Z")
        assert "12 km" in res.hits[0].text and "5 km" not in " ".join(h.text for h in res.hits)
        # without now, the chat's own clock (its newest message): today is 3 April
        res = mem.recall("how far did I run today?", namespace="me", k=1)
        assert "12 km" in res.hits[0].text


def test_a_past_question_of_an_imported_chat_reads_its_time_from_the_chats_clock(tmp_path):
    """helper-206: "what time was standup earlier this month?" of a chat imported today put the
    later value first: the current statement rule read the question's past end against the wall
    clock, the time windows against the chat's own clock. Every stage reads one anchor."""
    msgs = [("2025-03-03T18:00:00Z", "I ran 5 km this evening."), ("2025-03-20T09:00:00Z", "Standup is at 9am."),
            ("2025-03-28T09:00:00Z", "Standup moved to 10:30.")]
    with engramdb.open(tmp_path / "s") as mem:
        mem.add_conversation([{"role": "user", "content": t, "created_at": at} for at, t in msgs], namespace="me",
                             session="s")
        q = "what time was standup earlier this month?"
        for now in (None, "2025-03-28T12:00:00Z"):
            assert [h.text for h in mem.recall(q, namespace="me", k=2, now=now).hits] == [
                "user: Standup is at 9am.", "user: Standup moved to 10:30."], now
