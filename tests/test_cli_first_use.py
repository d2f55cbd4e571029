"""First use of the CLI: ``python -m engramdb``, ``-k``, the recall table's date column,
``latency_s`` in the JSON, and clean one-line errors (never a traceback)."""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.demo import sample_path

QUESTION = "What is the status of my TAP flight to Lisbon?"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def python_m(*args, module="engramdb"):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True)


@pytest.fixture
def demo_store(tmp_path):
    store = tmp_path / "s"
    assert run("ingest", "--store", store, sample_path()).exit_code == 0
    return store


def _iso_utc(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_python_m_engramdb_is_the_engramdb_command(demo_store):
    help_m = python_m("--help")
    assert help_m.returncode == 0, help_m.stderr
    assert help_m.stdout.startswith("Usage: python -m engramdb ")
    # the same commands as the installed script's group
    commands = [line.split()[0] for line in help_m.stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert commands == sorted(main.commands) and "recall" in commands
    out = python_m("recall", "--store", demo_store, "-n", "demo", "-k", "2", "--json", QUESTION)
    assert out.returncode == 0, out.stderr
    assert [h["id"] for h in json.loads(out.stdout)["hits"]][0] == "s1-2"
    # commands defined late in cli.py (query, history, update) exist under python -m too
    q = python_m("query", "--store", demo_store, "-n", "demo", "--tag", "work", "--json")
    assert q.returncode == 0, q.stderr
    assert {m["id"] for m in json.loads(q.stdout)} == {"s2-1", "s2-2", "s2-3"}


def test_python_m_engramdb_cli_has_every_command():
    out = python_m("--help", module="engramdb.cli")
    assert out.returncode == 0, out.stderr
    for command in ("history", "update", "query", "recall", "admit"):
        assert f"  {command} " in out.stdout


def test_short_k_equals_long_k(demo_store):
    long_ = run("recall", "--store", demo_store, "-n", "demo", "--k", "3", "--json", QUESTION)
    short = run("recall", "--store", demo_store, "-n", "demo", "-k", "3", "--json", QUESTION)
    assert long_.exit_code == 0 and short.exit_code == 0, short.output
    ids = [h["id"] for h in json.loads(short.output)["hits"]]
    assert len(ids) == 3
    assert ids == [h["id"] for h in json.loads(long_.output)["hits"]]
    assert "-k, --k INTEGER" in run("recall", "--help").output
    assert "-k, --k INTEGER" in run("demo", "--help").output


def test_recall_table_shows_each_hits_creation_date_in_utc(demo_store):
    as_json = json.loads(run("recall", "--store", demo_store, "-n", "demo", "-k", "3", "--json", QUESTION).output)
    table = run("recall", "--store", demo_store, "-n", "demo", "-k", "3", QUESTION)
    assert table.exit_code == 0, table.output
    assert "created (UTC)" in table.output
    dates = [_iso_utc(h["created_at"]) for h in as_json["hits"]]
    assert dates[0] == "2026-03-02T18:01:00Z"          # s1-2 as written in the sample file
    lines = table.output.splitlines()
    for hit, date in zip(as_json["hits"], dates):   # "2026-03-02 18:01:00Z"; narrow, the time wraps whole
        at = next(i for i, line in enumerate(lines) if f" {hit['id']} " in line)
        assert date[:10] in lines[at] and date[11:] in lines[at] + lines[at + 1]


def test_recall_result_to_dict_reports_latency_in_seconds(tmp_path):
    with engramdb.open(tmp_path / "s", dim=384) as mem:
        mem.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight")
        res = mem.recall("my TAP flight", k=1)
    d = res.to_dict()
    assert "latency_ms" not in d
    assert d["latency_s"] == round(res.latency_s, 7)
    assert isinstance(d["latency_s"], float) and d["latency_s"] >= 0.0
    assert [h["id"] for h in d["hits"]] == ["flight"]


def test_recall_json_carries_latency_s(demo_store):
    out = json.loads(run("recall", "--store", demo_store, "-n", "demo", "--json", QUESTION).output)
    assert "latency_ms" not in out and isinstance(out["latency_s"], float)


@pytest.mark.parametrize("args, message", [
    (("recall", "--store", "{store}"), "Error: Missing argument 'QUERY'."),
    (("recall", "--store", "{store}", "-k", "many", "q"), "Error: Invalid value for '-k' / '--k'"),
    (("recal",), "Error: No such command 'recal'."),
    (("recall", "--store", "{store}", "--gate", "sideways", "q"), "Error: Invalid value for '--gate'"),
])
def test_usage_errors_print_one_clean_message(tmp_path, args, message):
    out = python_m(*(a.format(store=tmp_path / "s") for a in args))
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_engramdb_errors_print_one_line(tmp_path):
    out = python_m("recall", "--store", tmp_path / "none", "where is my passport?")
    assert out.returncode == 2
    assert out.stderr.startswith("error: StoreNotFoundError: ")
    assert len(out.stderr.strip().splitlines()) == 1


def test_os_errors_print_one_line(demo_store, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a directory")
    out = run("export", "--store", demo_store, "--out", afile / "sub")
    assert out.exit_code in (1, 2)
    assert out.output.startswith("error: ")
    assert "afile" in out.output     # names the path it could not use
    assert len(out.output.strip().splitlines()) == 1


def test_damaged_export_is_a_clean_error_before_a_store_is_made(tmp_path):
    bad = tmp_path / "export"
    bad.mkdir()
    (bad / "memories.parquet").write_bytes(b"junk")
    (bad / "edges.parquet").write_bytes(b"junk")
    out = run("import", "--store", tmp_path / "new", bad)
    assert out.exit_code == 2
    assert out.output.startswith("error: InvalidInputError: export at ")
    assert "cannot be read" in out.output
    assert not (tmp_path / "new").exists()


def test_a_refused_first_command_leaves_no_store_behind(tmp_path):
    # an empty store left by a refused command had its embedder fixed: the next command, with
    # another --embedder, was refused for a store nothing had ever been written to
    bad, good = tmp_path / "bad.jsonl", tmp_path / "ok.jsonl"
    bad.write_text('{"role": "user", "content": "  "}\n')
    good.write_text('{"role": "user", "content": "hello there"}\n')
    new = tmp_path / "new"
    for args in (["ingest-chat", bad, "--embedder", "hashing"], ["add", "--embedder", "hashing", "   "],
                 ["ingest", bad], ["admit", bad], ["decide", "--confidence", "0.5", "--chosen", "nope", "--option", "a", "pick one"]):
        out = run(args[0], "--store", new, *args[1:])
        assert out.exit_code == 2 and out.output.startswith("error: "), (args, out.output)
        assert not new.exists(), args
    assert run("ingest-chat", "--store", new, "--embedder", "minilm", good).exit_code == 0
    with engramdb.open(new) as eng:
        assert eng.stats()["memories"] == 2 and "MiniLM" in eng.stats()["embedder"]
    # a store that holds memories stays, whatever the command that failed
    assert run("add", "--store", new, "  ").exit_code == 2
    with engramdb.open(new) as eng:
        assert eng.stats()["memories"] == 2


def test_update_takes_the_new_text_as_add_does(tmp_path):
    store = tmp_path / "s"
    assert run("add", "--store", store, "--id", "m1", "I live in Lisbon").exit_code == 0
    out = run("update", "--store", store, "m1", "I live in Porto")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["text"] == "I live in Porto"
    out = run("update", "--store", store, "--text", "I live in Faro", "m1")   # the option still works
    assert json.loads(out.output)["text"] == "I live in Faro"
    both = CliRunner().invoke(main, ["update", "--store", str(store), "--text", "A", "m1", "B"])
    assert both.exit_code == 2 and "give the new text once" in both.output
    with engramdb.open(store, readonly=True) as eng:
        assert eng.get("m1").text == "I live in Faro"


def test_ingest_of_a_chat_file_points_to_ingest_chat(tmp_path):
    """`engramdb ingest chat.jsonl` said only "unknown field(s) ['content', 'role']" (new-user pass)."""
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"role": "user", "content": "I live in Oslo."}) + "\n")
    res = CliRunner().invoke(main, ["ingest", "--store", str(tmp_path / "s"), str(chat)])
    assert res.exit_code != 0
    assert "unknown field(s) ['content', 'role']" in res.output and "engramdb ingest-chat" in res.output


def test_a_messages_file_renamed_or_grown_is_recognised_when_ingested_again(tmp_path):
    """An OpenAI {"messages"} file's conversations were labelled <file stem>-<line>: a
    conversation added at the top stored every chat again and filed the new one under an old
    session, and a renamed copy stored everything again (new-user pass). A conversation with
    times is labelled by its first created_at, as add_conversation labels an unlabelled chat."""
    def conv(topic, day, n):
        return {"messages": [{"role": ("user", "assistant")[i % 2], "content": f"{topic} message {i}.",
                              "created_at": f"2025-05-{day:02d}T10:{i:02d}:00Z"} for i in range(n)]}
    wedding, later, garden = conv("Wedding plans", 10, 4), conv("Flat hunt", 12, 5), conv("Tomato garden", 20, 1)
    path = tmp_path / "oa.jsonl"
    store = str(tmp_path / "s")
    path.write_text("\n".join(json.dumps(c) for c in (wedding, later)) + "\n")
    assert CliRunner().invoke(main, ["ingest-chat", "--store", store, "-n", "u", str(path)]).exit_code == 0
    path.write_text("\n".join(json.dumps(c) for c in (garden, wedding, later)) + "\n")
    res = CliRunner().invoke(main, ["ingest-chat", "--store", store, "-n", "u", str(path)])
    assert res.exit_code == 0 and "ingested 1 new message (9 already stored)" in res.output, res.output
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text(path.read_text())
    res = CliRunner().invoke(main, ["ingest-chat", "--store", store, "-n", "u", str(renamed)])
    assert res.exit_code == 0 and "ingested 0 new messages (10 already stored)" in res.output, res.output
    with engramdb.open(store) as eng:
        sessions = sorted(m.id for m in eng.query(namespace="u", tags="session"))
        garden_id = [m.id for m in eng.query(namespace="u", limit=100) if "Tomato" in m.text]
    assert len(sessions) == 3 and len(garden_id) == 1
    assert garden_id[0].split(":")[0] == sessions[-1].split(":", 1)[1] == "chat-1747735200"   # 20 May, 10:00


def _oa_line(msgs):
    return json.dumps({"messages": msgs})


def test_messages_file_conversations_are_named_as_add_conversation_names_them(tmp_path):
    """ingest-chat labelled a {"messages"} file's conversations itself and passed the labels on:
    a chat starting half a second after a stored one was filed into its session, and a file of
    two chats starting in the same second, reordered, stored both again (hostile pass). Each
    conversation is now its own add_conversation, named by its first message with the
    collision check an unlabelled chat gets; a bad file stores nothing."""
    def chat(who, t0):
        return [{"role": "system", "content": "Be brief.", "created_at": t0 - 1000},
                {"role": "user", "content": f"{who}: plan my trip.", "created_at": t0},
                {"role": "assistant", "content": f"Sure, {who}.", "created_at": t0 + 1}]
    a, b = chat("Ana", 1_700_000_000), chat("Ben", 1_700_000_000.5)
    store = str(tmp_path / "s")
    run = lambda path: CliRunner().invoke(main, ["ingest-chat", "--store", store, "-n", "u", str(path)])
    (tmp_path / "a.jsonl").write_text(_oa_line(a) + "\n")
    (tmp_path / "b.jsonl").write_text(_oa_line(b) + "\n")
    (tmp_path / "ab.jsonl").write_text(_oa_line(a) + "\n" + _oa_line(b) + "\n")
    (tmp_path / "ba.jsonl").write_text(_oa_line(b) + "\n" + _oa_line(a) + "\n")
    assert run(tmp_path / "a.jsonl").exit_code == 0
    res = run(tmp_path / "b.jsonl")
    assert res.exit_code == 0 and "ingested 2 new messages" in res.output, res.output
    for path in ("ab.jsonl", "ba.jsonl"):
        res = run(tmp_path / path)
        assert res.exit_code == 0 and "ingested 0 new messages (4 already stored" in res.output, res.output
    with engramdb.open(store) as eng:
        assert sorted(m.id for m in eng.query(namespace="u", tags="session")) == [
            "S:chat-1700000000", "S:chat-1700000000-2"]   # as add_conversation names them (system message apart)
        out = eng.add_conversation(a[1:], namespace="u")
        assert out["message_ids"] == [] and out["already_stored"] == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_oa_line(chat("Cy", 1_800_000_000)) + "\n" + _oa_line([{"role": "user", "content": "x",
                                                                           "created_at": "soon"}]) + "\n")
    res = CliRunner().invoke(main, ["ingest-chat", "--store", store, "-n", "u", str(bad)])
    assert res.exit_code != 0 and f"{bad}:2: messages[0]: created_at: 'soon'" in res.output, res.output
    with engramdb.open(store) as eng:
        assert not any("Cy" in m.text for m in eng.query(namespace="u", limit=100))


def test_ingest_with_a_bad_link_writes_nothing_and_names_the_record(tmp_path):
    """`engramdb ingest` added the memories, then failed on a link to a missing memory: exit 2
    with the memories stored and no record named (new-user pass). Links are checked first."""
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"id": "a", "text": "Alpha fact one."}) + "\n"
                    + json.dumps({"id": "b", "text": "Beta fact two.", "links": [{"to": "a", "relation": "supports"},
                                                                                  {"to": "missing", "relation": "caused_by"}]}) + "\n"
                    + json.dumps({"id": "c", "text": "Gamma.", "links": [["c", "supports"]]}) + "\n")
    store = str(tmp_path / "s")
    with engramdb.open(store, embedder="hashing") as eng:
        eng.add("Stored before.", id="old", namespace="ops")
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")
    res = CliRunner().invoke(main, ["ingest", str(path), "--store", store, "-n", "ops"])
    assert res.exit_code == 2 and f"{path}: record 2: link to 'missing'" in res.output, res.output
    with engramdb.open(store) as eng:
        assert [m.id for m in eng.query(namespace="ops")] == ["old"]
    path.write_text("\n".join([lines[0], lines[1].replace('"missing"', '"old"'), lines[2]]) + "\n")
    res = CliRunner().invoke(main, ["ingest", str(path), "--store", store, "-n", "ops"])
    assert res.exit_code == 2 and "record 3: cannot link memory 'c' to itself" in res.output, res.output
    path.write_text("\n".join([lines[0], lines[1].replace('"missing"', '"old"')]) + "\n")
    res = CliRunner().invoke(main, ["ingest", str(path), "--store", store, "-n", "ops"])
    assert res.exit_code == 0, res.output
    with engramdb.open(store) as eng:
        assert sorted(m.id for m in eng.query(namespace="ops")) == ["a", "b", "old"]
        assert {(e.target, e.relation.value) for e in eng.edges("b", namespace="ops") if e.source == "b"} >= {
            ("a", "supports"), ("old", "caused_by")}
