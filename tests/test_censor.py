"""Censor rules (engramdb.censor): matching, actions, persistence, refusals, logging, CLI."""
import json
import logging
import subprocess
import sys

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.testing import store_digest

from .conftest import basis

CODE = "The airline emailed confirmation code QX7Z9M."


@pytest.fixture
def mem(tmp_store):
    m = engramdb.open(tmp_store, embedder="hashing", dim=64)
    m.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight", kind="episodic", tags=["travel"])
    m.add(CODE, id="code", tags=["travel", "secret"], links=[{"to": "flight", "relation": "evidence_for"}])
    m.add("We leave on May 14 and come back on May 21.", id="dates",
          links=[{"to": "code", "relation": "supports"}])
    m.add("Pack the blue suitcase for Lisbon.", id="pack", kind="procedural")
    yield m
    m.close()


def ids(result):
    return [h.id for h in result.hits]


def test_block_keeps_a_memory_out_of_recall_context_get_edges_query_and_export(mem, tmp_path):
    assert "code" in ids(mem.recall("confirmation code of my flight", k=10))
    assert any("code" in (e.source, e.target) for e in mem.edges("flight"))
    rule = mem.censor(pattern=r"confirmation\s+code", reason="credentials")
    assert rule.action.value == "block" and rule.persistent
    res = mem.recall("confirmation code of my flight", k=10, gate="on")
    assert "code" not in ids(res) and "flight" in ids(res)
    assert all(step.id != "code" for h in res.hits for step in h.path)
    block = mem.context("What is the confirmation code of my flight?")
    assert "QX7Z9M" not in block.text and "`code`" not in block.text
    with pytest.raises(engramdb.MemoryBlockedError) as info:
        mem.get("code")
    assert isinstance(info.value, engramdb.MemoryNotFoundError) and info.value.rule_id == rule.id
    assert "QX7Z9M" not in str(info.value)
    assert all("code" not in (e.source, e.target) for e in mem.edges("flight"))
    assert "code" not in {m.id for m in mem.query(limit=100)}
    import pyarrow.parquet as pq
    files = mem.export(tmp_path / "out")
    rows = pq.read_table(files["memories"]).to_pylist()
    assert {r["id"] for r in rows} == {"flight", "dates", "pack"}
    edges = pq.read_table(files["edges"]).to_pylist()
    assert all("code" not in (e["source"], e["target"]) for e in edges)


def test_activation_does_not_pass_through_a_blocked_memory(tmp_store):
    e = basis(0)
    with engramdb.open(tmp_store, dim=16, embedder="hashing") as m:
        m.add("seed", id="a", embedding=e)
        m.add("middle", id="b", embedding=basis(1), links=[{"to": "a", "relation": "supports"}])
        m.add("far", id="c", embedding=basis(2), links=[{"to": "b", "relation": "supports"}])
        before = m.recall(vector=e, k=3, gate="on")
        far = [h for h in before.hits if h.id == "c"]
        assert far and [s.id for s in far[0].path] == ["a", "b", "c"]   # reached through b
        m.censor(tag=None, pattern="^middle$")
        after = m.recall(vector=e, k=3, gate="on")
        assert ids(after) == ["a"]          # c is reachable only through b: not reached
        m.remove_censor(m.censors()[0].id)
        assert ids(m.recall(vector=e, k=3, gate="on")) == ids(before)


def test_absolute_refuses_every_write_and_leaves_the_store_unchanged(mem, tmp_path):
    mem.export(tmp_path / "before")                   # holds CODE, exported while allowed
    rule = mem.censor(pattern="QX7Z9M", action="absolute", reason="no codes")
    digest = store_digest(mem)
    writes = {
        "add": lambda: mem.add("new code qx7z9m again"),
        "add_batch": lambda: mem.add_batch([{"text": "fine"}, {"text": "QX7Z9M"}]),
        "add_conversation": lambda: mem.add_conversation([{"role": "user", "content": "my code is QX7Z9M"}]),
        "admit_batch": lambda: mem.admit_batch([{"text": "The code is QX7Z9M, remember it."}]),
        "supersede": lambda: mem.supersede("dates", "We leave May 15, code QX7Z9M."),
        "update": lambda: mem.update("dates", text="code QX7Z9M"),
    }
    for name, write in writes.items():
        with pytest.raises(engramdb.CensoredError) as info:
            write()
        assert info.value.rule_id == rule.id and "QX7Z9M" not in str(info.value), name
        assert store_digest(mem) == digest, name
    # an import carrying a matching memory is refused whole
    with engramdb.open(tmp_path / "other", embedder="hashing", dim=64) as other:
        other.censor(pattern="QX7Z9M", action="absolute")
        d2 = store_digest(other)
        with pytest.raises(engramdb.CensoredError):
            other.import_from(tmp_path / "before")
        assert store_digest(other) == d2
    # the existing match is hidden like a blocked one; update / supersede of it are refused
    with pytest.raises(engramdb.MemoryBlockedError):
        mem.update("code", tags=["x"])
    with pytest.raises(engramdb.MemoryBlockedError):
        mem.supersede("code", "new wording")
    to_code = [{"to": "code", "relation": "supports"}]
    for call in (lambda: mem.link("flight", "code", "supports"), lambda: mem.link("code", "dates"),
                 lambda: mem.link_batch([("pack", "flight"), ("pack", "code")]),
                 lambda: mem.add("A note on the code.", links=to_code),   # every verb that takes links
                 lambda: mem.add_batch([{"text": "Another note.", "links": to_code}]),
                 lambda: mem.add("Pack the blue suitcase for Lisbon.", links=to_code),   # a repeated text
                 lambda: mem.admit_batch([{"text": "I moved to Porto in 2020.", "links": to_code}]),
                 lambda: mem.supersede("pack", "Pack the red suitcase.", links=to_code)):
        with pytest.raises(engramdb.MemoryBlockedError):   # an Edge naming it would say it exists
            call()
    assert store_digest(mem) == digest
    mem.forget("code", hard=True)                    # erasing is always allowed
    with pytest.raises(engramdb.MemoryNotFoundError):
        mem.get("code")


def test_removing_a_rule_makes_memories_visible_again(mem):
    rule = mem.censor(tag="secret")
    assert "code" not in {m.id for m in mem.query()}
    mem.remove_censor(rule.id)
    assert "code" in {m.id for m in mem.query()}
    assert mem.get("code").text == CODE
    assert mem.censors() == []
    with pytest.raises(engramdb.InvalidInputError):
        mem.remove_censor(rule.id)


def test_rules_survive_reopen_and_bind_a_readonly_engine(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        m.add(CODE, id="code")
        m.add("Lisbon is sunny in May.", id="weather")
        rule = m.censor(pattern="qx7z9m", reason="codes", provenance="agent", id="codes")
    with engramdb.open(tmp_store) as m:
        (back,) = m.censors()
        assert (back.id, back.pattern, back.reason, back.provenance, back.action.value) == \
            ("codes", "qx7z9m", "codes", "agent", "block")
        assert back.created_at == rule.created_at
        with pytest.raises(engramdb.MemoryBlockedError):
            m.get("code")
    with engramdb.open(tmp_store, readonly=True) as r:
        with pytest.raises(engramdb.MemoryBlockedError):
            r.get("code")
        assert "code" not in ids(r.recall("confirmation code QX7Z9M", k=5))
        with pytest.raises(engramdb.ReadOnlyError):
            r.censor(pattern="sunny")
        with pytest.raises(engramdb.ReadOnlyError):
            r.remove_censor("codes")
        r.censor(match=lambda m: "sunny" in m.text, id="local")   # in-process rules work read-only
        assert [m.id for m in r.query()] == []


def test_a_reader_sees_a_rule_added_after_it_opened(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        m.add(CODE, id="code")
    r = engramdb.open(tmp_store, readonly=True)
    try:
        assert r.get("code").text == CODE
        script = "import engramdb, sys\nwith engramdb.open(sys.argv[1]) as w:\n    w.censor(pattern='QX7Z9M')\n"
        subprocess.run([sys.executable, "-c", script, str(tmp_store)], check=True)   # another process writes
        with pytest.raises(engramdb.MemoryBlockedError):
            r.get("code")
    finally:
        r.close()


def test_callable_rules_live_on_the_engine_only(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        m.add("alpha note", id="a", confidence=0.2)
        m.add("beta note", id="b", confidence=0.9)
        rule = m.censor(match=lambda memory: memory.confidence < 0.5, reason="low confidence")
        assert not rule.persistent
        assert [x.id for x in m.query()] == ["b"]
        m.add("gamma note", id="c", confidence=0.1)       # new memories are judged as they come
        assert [x.id for x in m.query()] == ["b"]
        m.censor(match=lambda memory: 1 / 0, id="broken")  # a failing callable fails closed
        assert m.query() == []
    with engramdb.open(tmp_store) as m:                   # not stored
        assert m.censors() == []
        assert sorted(x.id for x in m.query()) == ["a", "b", "c"]


def test_match_kinds_and_scopes(mem):
    mem.add("Lisbon hotel booking reference 5521", id="hotel", namespace="work", tags=["travel"])
    mem.censor(kind="procedural", action="warn", reason="procedures are drafts", id="w")
    mem.censor(tag="travel", namespace="work", id="scoped")
    assert "hotel" not in {m.id for m in mem.query(namespace="work")}
    assert "flight" in {m.id for m in mem.query()}                # scope: other namespace untouched
    assert [r.id for r in mem.censors(namespace="default")] == ["w"]
    assert [r.id for r in mem.censors(namespace="work")] == ["w", "scoped"]
    mem.censor(namespace="work", id="whole")                      # a namespace alone: all of it
    assert mem.query(namespace="work") == []
    with pytest.raises(engramdb.InvalidInputError):
        mem.censor(action="block")                                # no match criterion
    with pytest.raises(engramdb.InvalidInputError):
        mem.censor(pattern="(unclosed")
    with pytest.raises(engramdb.InvalidInputError):
        mem.censor(pattern="x", action="steer")
    with pytest.raises(engramdb.InvalidInputError):
        mem.censor(pattern="x", id="w")                           # id in use
    with pytest.raises(engramdb.UnknownKindError):
        mem.censor(kind="fact")


def test_warn_annotates_and_context_marks_it(mem):
    rule = mem.censor(pattern="suitcase", action="warn", reason="check luggage rules")
    note = engramdb.types.CensorNote(rule.id, "check luggage rules")
    assert mem.get("pack").censor_notes == (note,)
    assert mem.get("flight").censor_notes == ()
    hit = [h for h in mem.recall("blue suitcase Lisbon", k=5).hits if h.id == "pack"][0]
    assert hit.censor_notes == (note,) and hit.to_dict()["censor_notes"] == [note.to_dict()]
    block = mem.context("What should I pack for Lisbon?")
    line = [ln for ln in block.text.splitlines() if "suitcase" in ln][0]
    assert f"censor warning: check luggage rules (rule {rule.id})" in line


def test_every_hit_is_logged_without_text_and_counted(mem, caplog):
    rule = mem.censor(pattern="QX7Z9M", id="codes")
    warn = mem.censor(pattern="suitcase", action="warn", id="bags")
    caplog.set_level(logging.INFO, logger="engramdb.censor")
    mem.recall("confirmation code QX7Z9M", k=5)
    with pytest.raises(engramdb.MemoryBlockedError):
        mem.get("code")
    mem.get("pack")
    records = [r for r in caplog.records if r.name == "engramdb.censor"]
    msgs = [r.getMessage() for r in records]
    assert any("rule=codes" in s and "verb=recall" in s and "id=code" in s for s in msgs)
    assert any("rule=codes" in s and "verb=get" in s and "refused_read" in s for s in msgs)
    assert any("rule=bags" in s and "verb=get" in s and "warned" in s for s in msgs)
    assert not any("QX7Z9M" in s or "suitcase" in s.split("rule=")[1] for s in msgs)
    counts = {r.id: r.hits for r in mem.censors()}
    assert counts["codes"] >= 2 and counts["bags"] >= 1
    mem.censor(pattern="forbidden", action="absolute", id="abs")
    with pytest.raises(engramdb.CensoredError):
        mem.add("a forbidden thing")
    assert any("rule=abs" in r.getMessage() and "verb=add" in r.getMessage() and "refused_write" in r.getMessage()
               for r in caplog.records)
    assert {r.id: r.hits for r in mem.censors()}["abs"] == 1
    assert rule.hits == 0 and warn.hits == 0     # returned rules are snapshots


def test_a_blocked_memory_stays_blocked_when_reworded_elsewhere(mem):
    """A pattern matching an earlier wording (kept in history) hides the memory too."""
    mem.update("dates", text="We leave on May 15 instead.")
    mem.censor(pattern="May 14")
    with pytest.raises(engramdb.MemoryBlockedError):
        mem.history("dates")
    assert "dates" not in {m.id for m in mem.query()}


def test_cli_censor_add_list_remove(tmp_path):
    store = str(tmp_path / "s")
    runner = CliRunner()

    def run(*args):
        res = runner.invoke(main, list(args), catch_exceptions=False)
        return res

    assert run("add", "--store", store, "--embedder", "hashing", "--id", "code", CODE).exit_code == 0
    out = run("censor", "add", "--store", store, "--pattern", "QX7Z9M", "--reason", "codes", "--id", "r1")
    assert out.exit_code == 0 and "r1" in out.output
    listed = json.loads(run("censor", "list", "--store", store, "--json").output)
    assert [(r["id"], r["pattern"], r["action"], r["reason"]) for r in listed] == [("r1", "QX7Z9M", "block", "codes")]
    got = run("get", "--store", store, "code")
    assert got.exit_code == 2 and "MemoryBlockedError" in got.output and "QX7Z9M" not in got.output
    assert run("censor", "remove", "--store", store, "r1").exit_code == 0
    assert "QX7Z9M" in run("get", "--store", store, "code").output
    bad = run("censor", "remove", "--store", store, "r1")
    assert bad.exit_code == 2 and "no censor rule" in bad.output


def test_consolidation_takes_no_hidden_memory_as_input(tmp_store):
    """A summary or fact made from a blocked turn would carry its text out: blocked turns are no
    input of consolidate (a callable rule here, which a summary's text would not match)."""
    secret = "My knee hurts after the long run on cobblestones near the river path."
    turns = [("user", "I started training for the Berlin marathon with a running club on Tuesdays."),
             ("assistant", "Great goal. Build the weekly long run slowly and keep most runs easy."),
             ("user", secret),
             ("assistant", "Rest two days, then try softer surfaces and shorter strides for a week.")]
    t0, day = 1_700_000_000.0, 86400.0
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        m.add_conversation([{"role": r, "content": c, "created_at": t0 + i, "session": "a"}
                            for i, (r, c) in enumerate(turns)], namespace="u")
        m.censor(match=lambda memory: "cobblestones" in memory.text, id="knee")
        out = m.consolidate(namespace="u", now=t0 + 10 * day, summarizer=lambda texts: " ".join(texts))
        assert out["summaries"] == 1
        summary = m.get("sum:S:a", namespace="u")
        assert "cobblestones" not in summary.text
        assert "a:3" not in {e.target for e in m.edges("sum:S:a", namespace="u")}


def test_example_script_shows_block_warn_and_refusal():
    import os

    script = os.path.join(os.path.dirname(__file__), "..", "examples", "censor_demo.py")
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for line in ("[before] recall: ['flight', 'code', 'dates']", "[blocked] recall: ['flight', 'dates']",
                 "[blocked] context mentions the code: False", "[blocked] export ids: ['dates', 'flight']",
                 "get('code') -> MemoryBlockedError", "add refused -> CensoredError",
                 "[rule removed] export ids: ['code', 'dates', 'flight']"):
        assert line in out.stdout, (line, out.stdout)
    assert "QX7Z9M" not in out.stdout and "X1234567" not in out.stdout


def test_admission_never_names_or_reinforces_a_hidden_memory(mem):
    mem.censor(pattern="QX7Z9M", id="codes")
    (d,) = mem.admit_batch([{"text": "The airline emailed confirmation code QX7Z9M!", "kind": "semantic"}])
    assert d.target != "code" and d.nearest != "code"
    assert "code" not in json.dumps([d.reason, d.target, d.nearest])
    assert mem.censors()[0].hits >= 1


def test_the_outcome_memory_of_a_hidden_decision_is_hidden_with_it(mem):
    mem.add("We chose the Lisbon apartment near Alfama for the trip.", id="choice", kind="decision",
            confidence=0.7)
    out_id = mem.review("choice", outcome="success", note="great stay")
    assert isinstance(out_id, float)   # review returns the salience; the outcome memory is stored
    assert any(m.id.startswith("choice:outcome") for m in mem.query())
    mem.censor(kind="decision", id="decisions")
    shown = mem.query(limit=1000)
    assert not any("Alfama" in m.text or m.id.startswith("choice") for m in shown)
    assert "Alfama" not in mem.context("Where did we stay in Lisbon?").text
    assert mem.calibration().n_reviewed == 0


def test_rules_added_one_by_one_give_the_verdicts_of_a_fresh_evaluation(tmp_store):
    """Adding a rule evaluates only that rule per record; reopening evaluates them all: equal."""
    words = ["river", "lamp", "orbit", "pepper", "violin"]
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        for i in range(40):
            m.add(f"note {i} " + " ".join(words[j] for j in range(5) if (i >> j) & 1), id=f"n{i}",
                  tags=["odd"] if i % 2 else [], kind="semantic" if i % 3 else "episodic")
        m.censor(pattern="river", action="warn", reason="w1", id="w1")
        m.censor(tag="odd", action="block", id="b1")
        m.censor(pattern="lamp", action="absolute", id="a1")
        m.censor(kind="episodic", action="warn", reason="w2", id="w2")
        m.censor(pattern="orbit|violin", action="block", id="b2")

        def view(e):
            out = {}
            for i in range(40):
                try:
                    out[i] = ("shown", e.get(f"n{i}").censor_notes)
                except engramdb.MemoryBlockedError as exc:
                    out[i] = ("hidden", exc.rule_id)
            return out
        incremental = view(m)
    with engramdb.open(tmp_store) as m:
        assert view(m) == incremental
    assert incremental[1] == ("hidden", "b1") and incremental[2] == ("hidden", "a1")   # absolute ranks first
    assert incremental[3] == ("hidden", "a1") and incremental[4] == ("hidden", "b2")
    assert incremental[0] == ("shown", (engramdb.types.CensorNote("w2", "w2"),))


def test_a_hidden_memory_feeds_no_keyword_feedback(tmp_store):
    """Pseudo-relevance feedback takes terms from the first keyword hits; a hidden memory's terms
    must not pull in memories that only they lead to ("quokka" below)."""
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        m.add("alpha quokka quokka quokka quokka", id="hidden")
        m.add("quokka", id="only-through-feedback")
        m.add("alpha beta gamma", id="direct")
        for i in range(20):
            m.add(f"filler note number {i} delta", id=f"f{i}")
        assert "only-through-feedback" in ids(m.recall("alpha", k=5, reinforce=False))
        m.censor(pattern="^alpha quokka")
        assert ids(m.recall("alpha", k=5, reinforce=False)) == ["direct"]


def test_rule_changes_are_ledgered_and_hidden_ids_are_not_shown(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing", dim=64) as m:
        m.add(CODE, id="code")
        m.add("Lisbon is sunny in May.", id="weather")
        with m.acting_as("privacy-officer"):
            m.censor(pattern="QX7Z9M", id="r1", reason="codes")
            m.remove_censor("r1")
            m.censor(pattern="QX7Z9M", id="r2")
        entries = m.ledger()
        changes = [(e.verb, e.actor) for e in entries if e.verb.startswith("censor")]
        assert changes == [("censor_add", "privacy-officer"), ("censor_remove", "privacy-officer"),
                           ("censor_add", "privacy-officer")]
        adds = [e for e in entries if e.verb == "add"]
        assert [e.ids for e in adds] == [(), ("weather",)]          # the hidden id is not shown
        assert len({e.digest for e in entries if e.verb.startswith("censor")}) == 3
        assert m.verify_ledger().ok                                 # what is stored is untouched
        m.remove_censor("r2")
        assert [e.ids for e in m.ledger(verb="add")] == [("code",), ("weather",)]
