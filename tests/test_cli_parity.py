"""The CLI takes what the API takes: supersede's new-memory fields (--kind, --tag, --source,
--confidence, --subject/--attribute, --single/--multi, --valid-to), add_conversation's
parameters in ingest-chat (--recorded-at, --keep-role, --split-role, --split-chars,
--session-title), and the --now of recall, context and export."""
import json

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.errors import MemoryNotFoundError
from engramdb.types import MemoryKind

LONG_ANSWER = "\n\n".join(f"Paragraph {i}: the {w} part of the itinerary goes through {w} station, "
                          f"with a stop of about {i} hours before going on." for i, w in
                          enumerate(["Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Evora", "Sintra"], 1))


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_line_error(res, *words):
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    for w in words:
        assert w in lines[0], res.output


def write_chat(tmp_path, messages):
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------- supersede
def test_supersede_sets_the_new_memorys_fields_as_the_api_does(tmp_path):
    store = tmp_path / "s"
    assert run("add", "--store", store, "--id", "a", "--kind", "episodic", "--tag", "old", "--source", "s1",
               "--confidence", "0.9", "--created-at", "2024-01-01", "I fly TAP on Monday.").exit_code == 0
    r = run("supersede", "--store", store, "--id", "b", "--kind", "semantic", "--tag", "travel", "--tag", "tap",
            "--source", "email-7", "--confidence", "0.4", "--valid-from", "2024-03-01",
            "--valid-to", "2024-03-05T12:00:00Z", "a", "I fly TAP on Tuesday.")
    assert r.exit_code == 0 and r.output.strip() == "b", r.output
    with engramdb.open(store) as eng:
        new, old = eng.get("b"), eng.get("a")
        assert new.kind is MemoryKind.SEMANTIC
        assert set(new.tags) == {"travel", "tap"}
        assert new.source == "email-7" and new.confidence == 0.4
        assert new.valid_from == 1709251200.0 and new.valid_to == 1709640000.0
        assert old.superseded_by == "b" and old.valid_to == 1709251200.0
        assert old.kind is MemoryKind.EPISODIC and old.tags == ("old",) and old.confidence == 0.9
    # the JSON of get shows the same values
    got = json.loads(run("get", "--store", store, "b").output)
    assert got["kind"] == "semantic" and got["source"] == "email-7" and got["confidence"] == 0.4


def test_supersede_without_the_options_keeps_the_old_memorys_kind_tags_source(tmp_path):
    store = tmp_path / "s"
    run("add", "--store", store, "--id", "a", "--kind", "semantic", "--tag", "home", "--source", "chat-1",
        "--confidence", "0.7", "I live in Lisbon.")
    r = run("supersede", "--store", store, "--id", "b", "a", "I live in Porto.")
    assert r.exit_code == 0, r.output
    with engramdb.open(store) as eng:
        new = eng.get("b")
        assert new.kind is MemoryKind.SEMANTIC and new.tags == ("home",) and new.source == "chat-1"
        assert new.confidence == 1.0   # a new version states its own confidence (add's default)
        assert new.valid_to is None


def test_supersede_slot_options(tmp_path):
    store = tmp_path / "s"
    run("add", "--store", store, "--id", "a", "I like tea.")
    r = run("supersede", "--store", store, "--id", "b", "--subject", "user", "--attribute", "drink",
            "--value", "coffee", "--single", "a", "I like coffee now.")
    assert r.exit_code == 0, r.output
    with engramdb.open(store) as eng:
        new = eng.get("b")
        assert (new.subject, new.attribute, new.value) == ("user", "drink", "coffee")
    # a slotted memory's successor inherits the slot; another slot is refused, on one line
    r = run("supersede", "--store", store, "--id", "c", "--value", "water", "b", "I drink water.")
    assert r.exit_code == 0, r.output
    with engramdb.open(store) as eng:
        assert (eng.get("c").subject, eng.get("c").attribute, eng.get("c").value) == ("user", "drink", "water")
    bad = run("supersede", "--store", store, "--subject", "user", "--attribute", "food", "c", "I eat bread.")
    one_line_error(bad, "InvalidInputError", "same slot")


def test_supersede_bad_values_are_one_line_errors(tmp_path):
    store = tmp_path / "s"
    run("add", "--store", store, "--id", "a", "Sky is blue.")
    run("add", "--store", store, "--id", "c", "Sky is grey.")
    one_line_error(run("supersede", "--store", store, "--confidence", "1.5", "a", "Sky is grey."), "confidence")
    one_line_error(run("supersede", "--store", store, "--kind", "dream", "a", "Sky is grey."), "dream")
    one_line_error(run("supersede", "--store", store, "--valid-to", "not a time", "a", "Sky is grey."),
                   "valid_to")
    one_line_error(run("supersede", "--store", store, "--by", "c", "--tag", "x", "a"),
                   "takes no new-memory fields", "tags")
    usage = run("supersede", "--store", store, "--confidence", "high", "a", "Sky is grey.")
    assert usage.exit_code == 2 and "Invalid value for '--confidence'" in usage.output
    with engramdb.open(store) as eng:   # nothing was written
        assert eng.get("a").superseded_by is None


# -------------------------------------------------------------------------------- ingest-chat
def test_ingest_chat_recorded_at_backfills_history(tmp_path):
    store = tmp_path / "s"
    chat = write_chat(tmp_path, [
        {"role": "user", "content": "Book me a flight to Lisbon.", "session": "trip"},
        {"role": "assistant", "content": "Booked TAP 123 for Monday.", "session": "trip",
         "created_at": "2023-05-01T10:00:00Z"},
    ])
    r = run("ingest-chat", chat, "--store", store, "--recorded-at", "2023-05-02T00:00:00Z")
    assert r.exit_code == 0, r.output
    t = 1682985600.0
    with engramdb.open(store) as eng:
        first, second = eng.get("trip:1"), eng.get("trip:2")
        assert first.recorded_at == second.recorded_at == t
        assert first.created_at == t   # a message without a time happened when recorded
        assert second.created_at == 1682935200.0
    future = run("ingest-chat", chat, "--store", tmp_path / "s2", "--recorded-at", "2099-01-01")
    one_line_error(future, "recorded_at", "after now")
    one_line_error(run("ingest-chat", chat, "--store", tmp_path / "s3", "--recorded-at", "someday"),
                   "recorded_at")


def test_ingest_chat_keep_role_keeps_system_messages(tmp_path):
    msgs = [{"role": "system", "content": "You are a travel agent.", "session": "t"},
            {"role": "user", "content": "Find me a hotel in Porto.", "session": "t"}]
    chat = write_chat(tmp_path, msgs)
    plain, kept = tmp_path / "plain", tmp_path / "kept"
    assert run("ingest-chat", chat, "--store", plain, "--no-entities").exit_code == 0
    r = run("ingest-chat", chat, "--store", kept, "--no-entities", "--keep-role", "system")
    assert r.exit_code == 0 and "ingested 2 new messages" in r.output, r.output
    with engramdb.open(plain) as eng:
        assert [m.text for m in eng.query()
                if "session" not in m.tags] == ["user: Find me a hotel in Porto."]
    with engramdb.open(kept) as eng:
        texts = {m.text for m in eng.query() if "session" not in m.tags}
        assert texts == {"system: You are a travel agent.", "user: Find me a hotel in Porto."}
    one_line_error(run("ingest-chat", chat, "--store", tmp_path / "x", "--keep-role", "boss"),
                   "keep_roles", "'boss' is not a role")


def test_ingest_chat_split_role_and_split_chars(tmp_path):
    chat = write_chat(tmp_path, [{"role": "user", "content": LONG_ANSWER, "session": "t"},
                                 {"role": "assistant", "content": LONG_ANSWER.upper(), "session": "t"}])
    default, users, short = tmp_path / "d", tmp_path / "u", tmp_path / "n"
    assert run("ingest-chat", chat, "--store", default, "--no-entities").exit_code == 0
    assert run("ingest-chat", chat, "--store", users, "--no-entities", "--split-role", "user").exit_code == 0
    r = run("ingest-chat", chat, "--store", short, "--no-entities", "--split-chars", "100000")
    assert r.exit_code == 0 and "pieces" not in r.output, r.output

    def split(store):   # the messages stored with blocks <id>#p<j> (query lists no pieces)
        found = set()
        with engramdb.open(store) as eng:
            for mid in ("t:1", "t:2"):
                try:
                    found.add(eng.get(f"{mid}#p1").chunk_of)
                except MemoryNotFoundError:
                    pass
        return found

    assert len(LONG_ANSWER) >= 800
    assert split(default) == {"t:2"} and split(users) == {"t:1"} and split(short) == set()
    usage = run("ingest-chat", chat, "--store", tmp_path / "x", "--split-chars", "0")
    assert usage.exit_code == 2 and "Invalid value for '--split-chars'" in usage.output
    one_line_error(run("ingest-chat", chat, "--store", tmp_path / "y", "--split-role", "bot"),
                   "split_roles", "'bot' is not a role")


def test_ingest_chat_session_title(tmp_path):
    store = tmp_path / "s"
    chat = write_chat(tmp_path, [{"role": "user", "content": "Plan the Lisbon trip.", "session": "trip"}])
    r = run("ingest-chat", chat, "--store", store, "--session-title", "trip", "Planning the Lisbon trip")
    assert r.exit_code == 0, r.output
    with engramdb.open(store) as eng:
        assert eng.get("S:trip").text == "Planning the Lisbon trip"
    one_line_error(run("ingest-chat", chat, "--store", tmp_path / "x", "--session-title", "trip", " "),
                   "session_titles['trip']")


# ------------------------------------------------------------------ --now of recall, context, export
def test_recall_context_and_export_take_now_as_the_api_does(tmp_path):
    store = tmp_path / "s"
    with engramdb.open(store, embedder="hashing") as mem:
        mem.add("Last week I adopted a puppy called Biscuit.", id="dog", created_at="2024-03-10")
        mem.add("We painted the kitchen yellow.", id="paint", created_at="2024-06-20")
        api = mem.recall("What did I do last week?", now="2024-03-12", reinforce=False)
        api_block = mem.context("What did I do last week?", now="2024-03-12")
    res = run("recall", "--store", store, "--json", "--now", "2024-03-12", "What did I do last week?")
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert [h["id"] for h in got["hits"]] == [h.id for h in api.hits]
    assert [h["score"] for h in got["hits"]] == pytest.approx([h.score for h in api.hits], abs=1e-6)
    assert got["hits"][0]["id"] == "dog"   # "last week" of 12 March, not of today
    res = run("context", "--store", store, "--json", "--now", "2024-03-12", "What did I do last week?")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["text"] == api_block.text
    later = "2031-01-01"   # salience decays from the record time (the clock) on
    res = run("export", "--store", store, "--out", tmp_path / "x", "--now", later)
    assert res.exit_code == 0, res.output
    import pyarrow.parquet as pq
    from engramdb.validate import to_unix_seconds
    with engramdb.open(store, embedder="hashing") as mem:
        then = mem.salience("dog", now=to_unix_seconds(later))
        today = mem.salience("dog")
    table = pq.read_table(tmp_path / "x" / "memories.parquet").to_pydict()
    row = table["id"].index("dog")
    assert abs(table["salience_now"][row] - then) < 1e-6 and abs(then - today) > 1e-3
    one_line_error(run("recall", "--store", store, "--now", "someday", "dog"), "now")


# ---------------------------------------------------------------------------------- query
def test_query_takes_the_filters_recall_names_and_the_cli_its_state_and_default_limit(tmp_path):
    """The CLI listed 20 memories by default where query() gives 100, had no --state, and
    query() refused kinds= although recall takes it (the README: recall has the same filters
    as query) (fresh-user pass)."""
    store = tmp_path / "s"
    with engramdb.open(store, embedder="hashing") as eng:
        eng.add_batch([{"text": f"note number {i}", "id": f"n{i}", "kind": "semantic", "created_at": 1.7e9 + i}
                       for i in range(30)])
        eng.supersede("n0", "note number zero, corrected")
        assert len(eng.query(kinds="semantic")) == len(eng.query(kind="semantic")) == 30
        with pytest.raises(engramdb.errors.InvalidInputError, match="not both"):
            eng.query(kind="semantic", kinds="semantic")
    res = run("query", "--store", store, "--json")
    assert res.exit_code == 0 and len(json.loads(res.output)) == 30   # all of them, as query() lists
    res = run("query", "--store", store, "--state", "superseded", "--json")
    assert [m["id"] for m in json.loads(res.output)] == ["n0"]


# ------------------------------------------------------------------------- every verb's options
#: API parameter -> the CLI's name for it, where they differ
_CLI_NAMES = {"id": {"id_", "memory_id"}, "kind": {"kinds"}, "state": {"states"}, "budget_tokens": {"budget"},
              "path": {"out"}, "format": {"fmt"}, "now": {"at"}}
#: API parameters no command line can carry: vectors, callables, config objects, progress bars,
#: and what other commands do (a memory's links: ``engramdb link``)
_NOT_ON_THE_CLI = {"embedding", "vector", "summarizer", "count_tokens", "config", "progress", "links", "slot",
                   "fields"}


def test_every_api_parameter_of_a_command_has_its_option():
    """Each command named after an Engram verb takes every parameter the verb takes (recall had
    no --reinforce, query no --now, add no --salience, get no --with-embedding)."""
    import inspect

    import click

    missing = {}
    for name, cmd in main.commands.items():
        verb = getattr(engramdb.Engram, name.replace("-", "_"), None)
        if isinstance(cmd, click.Group) or verb is None:
            continue
        options = {p.name for p in cmd.params}
        gaps = [p for p in inspect.signature(verb).parameters if p != "self" and p not in _NOT_ON_THE_CLI
                and p not in options and not (_CLI_NAMES.get(p, set()) & options)]
        if gaps:
            missing[name] = gaps
    assert missing == {}


def test_recall_reinforce_query_now_add_salience_get_embedding(tmp_path):
    store = tmp_path / "s"
    assert run("add", "--store", store, "--id", "a", "--salience", "0.2", "--created-at", "2024-01-01",
               "I fly TAP on Monday.").exit_code == 0
    assert run("add", "--store", store, "--id", "b", "--salience", "0.9", "I like green tea.").exit_code == 0
    with engramdb.open(store) as eng:
        assert (eng.get("a").salience, eng.get("b").salience) == (pytest.approx(0.2), pytest.approx(0.9))
    out = run("query", "--store", store, "--order", "salience_desc", "--now", "2030-01-01", "--json")
    assert [m["id"] for m in json.loads(out.output)] == ["b", "a"]
    assert run("recall", "--store", store, "--reinforce", "--json", "TAP flight").exit_code == 0
    assert run("recall", "--store", store, "--json", "TAP flight").exit_code == 0   # no write
    with engramdb.open(store) as eng:
        assert eng.get("a").access_count == 1
    got = json.loads(run("get", "--store", store, "--with-embedding", "a").output)
    assert len(got["embedding"]) == 384
    assert "embedding" not in json.loads(run("get", "--store", store, "a").output)

