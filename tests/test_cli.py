"""CLI mirrors the API: ingest, recall --json, stats, add/get/link/supersede/forget, demo."""
import json

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.demo import sample_path


def run(*args):
    res = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return res


def test_ingest_recall_json_and_stats(tmp_path):
    store = tmp_path / "s"
    r = run("ingest", "--store", store, sample_path())
    assert r.exit_code == 0 and "ingested 12 memories" in r.output
    r = run("recall", "--store", store, "--namespace", "demo", "--k", "4", "--json",
            "What is the status of my TAP flight to Lisbon?")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    ids = [h["id"] for h in out["hits"]]
    assert ids[0] == "s1-2" and {"s3-1", "s3-2"} <= set(ids)
    hit = next(h for h in out["hits"] if h["id"] == "s3-1")   # reached over evidence_for
    assert set(hit) >= {"id", "kind", "text", "score", "path", "source"}
    assert hit["path"][0]["id"] == "s1-2" and hit["path"][-1]["id"] == hit["id"]
    assert "gaps" in out
    r = run("stats", "--store", store, "--json")
    assert json.loads(r.output)["namespaces"]["demo"]["memories"] == 12
    again = run("ingest", "--store", store, sample_path())   # said "ingested 12 memories" again
    assert again.exit_code == 0 and "ingested 12 memories (0 new, 12 already stored) and 10 edges (0 new)" in again.output


def test_verbs_and_errors(tmp_path):
    store = tmp_path / "s"
    assert run("add", "--store", store, "--id", "a", "--kind", "semantic", "The sky is blue").output.strip() == "a"
    assert run("add", "--store", store, "--id", "b", "Grass is green").exit_code == 0
    assert "supports" in run("link", "--store", store, "-r", "supports", "a", "b").output
    new = run("supersede", "--store", store, "a", "The sky is grey today").output.strip()
    got = json.loads(run("get", "--store", store, "a").output)
    assert got["state"] == "superseded" and got["superseded_by"] == new
    assert run("forget", "--store", store, "b").exit_code == 0
    bad = run("link", "--store", store, "-r", "loves", "a", "b")
    assert bad.exit_code == 2 and "UnknownRelationError" in bad.output
    missing = run("recall", "--store", tmp_path / "none", "query")
    assert missing.exit_code == 2 and "StoreNotFoundError" in missing.output


def test_supersede_backfills_history_as_the_api_does(tmp_path):
    store = tmp_path / "s"
    run("add", "--store", store, "--id", "a", "--created-at", "2020-01-01", "--recorded-at", "2020-01-01",
        "I live in Lisbon.")
    r = run("supersede", "--store", store, "--id", "b", "--created-at", "2021-03-01", "--recorded-at",
            "2021-03-02", "a", "I live in Porto.")
    assert r.exit_code == 0 and r.output.strip() == "b", r.output
    old, new = (json.loads(run("get", "--store", store, x).output) for x in ("a", "b"))
    with engramdb.open(store) as eng:   # the same fields the API gives
        assert eng.get("a").retired_at == eng.get("b").recorded_at == 1614643200.0
        assert eng.get("a").valid_to == 1614556800.0
    assert old["superseded_by"] == "b" and new["state"] == "active"
    early = run("supersede", "--store", store, "--recorded-at", "2020-06-01", "b", "I live in Braga.")
    assert early.exit_code == 2 and len(early.output.strip().splitlines()) == 1, early.output
    assert "supersede('b'): the successor's recorded_at (2020-06-01T00:00:00Z) is before it was recorded (2021-03-02T00:00:00Z)" in early.output
    future = run("add", "--store", store, "--recorded-at", "2099-01-01", "I will live on Mars.")
    assert future.exit_code == 2 and "recorded_at (2099-01-01T00:00:00Z) is after now (" in future.output
    run("add", "--store", store, "--id", "c", "I live in Faro.")
    bad = run("supersede", "--store", store, "--by", "c", "--recorded-at", "2021-01-01", "b")
    assert bad.exit_code == 2 and "takes no new-memory fields" in bad.output and "recorded_at" in bad.output


def test_demo_graph_finds_what_flat_misses():
    r = run("demo")
    assert r.exit_code == 0, r.output
    assert "trip facts found: flat 1/3, engramdb 3/3" in r.output


def test_recall_table_cuts_long_texts_unless_full(tmp_path):
    """A long message used to fill the terminal: the table shows its first 240 characters, on
    one line, and names the piece that matched; --full prints it whole."""
    store = str(tmp_path / "s")
    body = " ".join(f"word{i}" for i in range(2000)) + " the zebra code is 4711"
    with engramdb.open(store, embedder="hashing") as m:
        m.add(body, id="long")
    runner = CliRunner()
    short = runner.invoke(main, ["recall", "--store", store, "zebra code"], terminal_width=400)
    assert short.exit_code == 0 and "long (piece" in short.output and "word1999" not in short.output
    full = runner.invoke(main, ["recall", "--store", store, "--full", "zebra code"], terminal_width=400)
    assert full.exit_code == 0 and "4711" in full.output


def test_link_takes_the_relation_as_the_api_does(tmp_path):
    """``engramdb link SOURCE TARGET RELATION`` mirrors ``link(source, target, relation)``; ``-r``
    still works; the relation given twice, differently, is a usage error and links nothing."""
    store = tmp_path / "s"
    for mid, text in (("a", "The sky is blue"), ("b", "Grass is green"), ("c", "Snow is white")):
        assert run("add", "--store", store, "--id", mid, text).exit_code == 0
    assert run("link", "--store", store, "a", "b", "supports").output.strip() == "a -[supports 1]-> b"
    assert run("link", "--store", store, "a", "c").output.strip() == "a -[related_to 1]-> c"
    bad = run("link", "--store", store, "-r", "supports", "b", "c", "contradicts")
    assert bad.exit_code != 0 and "given twice" in bad.output
    with engramdb.open(store, readonly=True) as eng:
        assert {(e.target, e.relation.value) for e in eng.edges("a")} == {("b", "supports"), ("c", "related_to")}
        assert [(e.source, e.relation.value) for e in eng.edges("c")] == [("a", "related_to")]


def test_import_into_a_new_store_takes_the_exports_embedder(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    with engramdb.open(src, embedder="hashing") as eng:
        eng.add("I moved to Porto in March.", id="move")
    assert run("export", "--store", src, "--format", "parquet", "--out", out).exit_code == 0
    r = run("import", "--store", tmp_path / "new", out)   # no --embedder: the export's (hashing)
    assert r.exit_code == 0, r.output
    with engramdb.open(tmp_path / "new") as eng:
        assert eng.stats()["embedder"].startswith("hashing-v1-") and eng.get("move").text.startswith("I moved")
    # an existing store of another embedder refuses it, naming the option that fits, and stays empty
    with engramdb.open(tmp_path / "other", embedder="minilm"):
        pass
    res = CliRunner().invoke(main, ["import", "--store", str(tmp_path / "other"), str(out)])
    assert res.exit_code != 0 and "embedder='hashing'" in res.output and "--embedder hashing" in res.output
    with engramdb.open(tmp_path / "other") as eng:
        assert eng.stats()["memories"] == 0
    # into a new directory with another --embedder: refused before any store is made there
    res = CliRunner().invoke(main, ["import", "--store", str(tmp_path / "new2"), "--embedder", "minilm", str(out)])
    assert res.exit_code == 2 and "--embedder hashing" in res.output and not (tmp_path / "new2").exists()


def test_recall_table_paths_show_which_way_each_edge_points(tmp_path):
    """A path step over an edge stored the other way round reads backwards: a question worded
    like an old fact reaches the correction as ``old <-[supersedes]- new`` (the correction
    supersedes the old fact), not as if the old fact superseded it."""
    store = str(tmp_path / "s")
    with engramdb.open(store, embedder="hashing") as m:
        m.add("My favourite colour is teal", id="old")
        new = m.supersede("old", "My favourite colour is now orange")
    res = CliRunner().invoke(main, ["recall", "--store", store, "--k", "1", "favourite colour teal"],
                             env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    assert f"old <-[supersedes]- {new}" in res.output
    assert engramdb.types.format_path([engramdb.PathStep("a"), engramdb.PathStep("b", engramdb.Relation.NEXT)]) \
        == "a -[next]-> b"


def test_recall_table_shows_brackets_in_texts_and_ids_as_they_are(tmp_path):
    """Table cells are data, not rich markup: "[shares a photo of a dog]" and an id like
    "[red]x" used to vanish from the table (rich read them as styles)."""
    store = str(tmp_path / "s")
    with engramdb.open(store, embedder="hashing") as m:
        m.add("Caroline [shares a photo of a dog] at the [bold]park[/bold]", id="[red]x")
    res = CliRunner().invoke(main, ["recall", "--store", store, "--full", "park dog photo"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    assert "Caroline [shares a photo of a dog] at the [bold]park[/bold]" in res.output
    assert "│ [red]x " in res.output
    assert "recall [" in res.output   # the title's mode and timing, which rich used to swallow


@pytest.mark.parametrize("columns", ["80", "200"])
def test_recall_shows_whole_ids_and_texts_at_any_terminal_width(tmp_path, columns):
    """helper-211: at 80 columns the table folded a chat's ids ("chat-1738609200:" over "1") and
    cut texts to 16 characters a line; a narrow terminal shows a list, a wide one the table with
    each id on one line. A text with brackets stays as it is in both (no rich markup)."""
    store = str(tmp_path / "s")
    text = "user: Big news: I started as a UX designer at Shopify [bold]today[/bold]."
    with engramdb.open(store, embedder="hashing") as m:
        m.add(text, id="chat-1747038600:1")
        m.add("assistant: Congratulations on the new role!", id="chat-1747038600:2",
              links=[{"to": "chat-1747038600:1", "relation": "next"}])
    res = CliRunner().invoke(main, ["recall", "--store", store, "--full", "where do I work now?"],
                             env={"COLUMNS": columns})
    assert res.exit_code == 0, res.output
    lines = [line.rstrip() for line in res.output.splitlines()]
    assert any("chat-1747038600:1" in line for line in lines) and any("chat-1747038600:2" in line for line in lines)
    if columns == "80":
        at = next(i for i, line in enumerate(lines) if "chat-1747038600:1" in line and "relevance" not in line)
        assert lines[at + 1].strip() == text   # the whole text on one line of its own, under its hit's line
        assert lines[at + 1].startswith(" ") and all(len(line) <= 80 for line in lines)
        assert any(line.strip() == "via chat-1747038600:1 <-[next]- chat-1747038600:2" for line in lines)
    else:
        assert "│ chat-1747038600:1 " in res.output
    assert "[bold]today[/bold]" in res.output and "created (UTC)" in res.output


def test_a_warning_that_wraps_is_indented_under_its_label(tmp_path):
    """helper-217: at 80 columns a contradiction warning wrapped to the first column, where it
    read as a line of its own."""
    store = str(tmp_path / "s")
    with engramdb.open(store, embedder="hashing") as m:
        m.add("I live in Boston with my husband and our two dogs.", id="chat-1740823200:1")
        m.add("I moved to Denver last month with the dogs.", id="chat-1740823200:2")
        m.link("chat-1740823200:2", "chat-1740823200:1", "contradicts")
    res = CliRunner().invoke(main, ["recall", "--store", store, "where do I live?"], env={"COLUMNS": "50"})
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("contradiction: "))
    warning = [lines[at]] + [line for line in lines[at + 1:] if line.startswith(" " * len("contradiction: "))]
    assert len(warning) > 1 and all(len(line) <= 50 for line in warning)
    said = " ".join(line.strip() for line in warning)
    assert said.startswith("contradiction: chat-1740823200:2 (active) contradicts chat-1740823200:1 (active)")


@pytest.mark.parametrize("columns", ["60", "200"])
def test_recall_writes_control_characters_as_escapes_and_tabs_as_spaces(tmp_path, columns):
    """helper-213: an ANSI sequence in a memory ("\\x1b[2J" clears the screen) or a newline in an
    id reached the terminal as it was; a tab in a text shown in full broke its line in the list.
    helper-214: so did the ids of a contradiction warning, and a bidirectional override; the
    table turned ":thumbs_up:" into an emoji."""
    store = str(tmp_path / "s")
    with engramdb.open(store, embedder="hashing") as m:
        m.add("evil \x1b[2J coffee", id="weird\nid")
        m.add("code:\n\tdef brew(): coffee", id="c")
        m.add(":thumbs_up: coffee \u202eright to left", id="bidi\u202eid")
        m.link("weird\nid", "c", "contradicts")
    res = CliRunner().invoke(main, ["recall", "--store", store, "--full", "coffee"], env={"COLUMNS": columns})
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output and "evil \\x1b[2J coffee" in res.output and "weird\\nid" in res.output
    assert "contradiction: weird\\nid" in res.output or "contradiction: c" in res.output
    assert "\u202e" not in res.output and "bidi\\u202eid" in res.output and ":thumbs_up: coffee" in res.output
    assert "\t" not in res.output and any(line.strip(" │") .startswith("def brew(): coffee")
                                          for line in res.output.splitlines())


def test_supersede_without_text_or_by_names_the_commands_arguments(tmp_path):
    store = tmp_path / "s"
    run("add", "--store", store, "--id", "a", "I live in Lisbon.")
    run("add", "--store", store, "--id", "b", "I live in Porto.")
    for args in (["a"], ["--by", "b", "a", "I live in Faro."]):
        r = run("supersede", "--store", store, *args)
        assert r.exit_code == 2 and "exactly one of TEXT" in r.output and "--by ID" in r.output, r.output
        assert "by=" not in r.output   # the API's wording, not the command's
    with engramdb.open(store) as eng:
        assert eng.get("a").state.value == "active" and eng.stats()["memories"] == 2


def test_current_names_the_slot_as_profile_does(tmp_path):
    store = tmp_path / "s"
    run("add", "--store", store, "--subject", "Globex", "--attribute", "billing email", "--value",
        "finance@globex.com", "Globex's billing email is finance@globex.com.")
    current = run("current", "--store", store, "Globex", "billing email").output
    profile = run("profile", "--store", store, "Globex").output
    assert "billing_email" in profile and "billing_email" in current and "billing email" not in current, current


def test_a_chat_ingested_with_the_rule_extractor_fills_the_profile(tmp_path):
    """A fresh user: a chat ingested by the CLI could never fill a profile (no option for the
    slot extractor the Python API takes as SlotConfig(extractor=...))."""
    store, chat = tmp_path / "s", tmp_path / "chat.jsonl"
    chat.write_text("\n".join(json.dumps(m) for m in [
        {"role": "user", "content": "I live in Boston and I work at Google.", "created_at": "2025-01-10T09:00:00Z"},
        {"role": "user", "content": "We moved to Denver.", "created_at": "2025-07-01T09:00:00Z"}]) + "\n")
    r = run("--slot-extractor", "rules", "ingest-chat", "--store", store, "--namespace", "me", chat)
    assert r.exit_code == 0, r.output
    r = run("current", "--store", store, "--namespace", "me", "--json", "user", "home_city")
    assert r.exit_code == 0 and "Denver" in r.output, r.output
    other = tmp_path / "t"   # without it, nothing is read
    run("ingest-chat", "--store", other, "--namespace", "me", chat)
    assert "Denver" not in run("current", "--store", other, "--namespace", "me", "user", "home_city").output


def test_a_readonly_verb_on_a_store_with_an_old_snapshot_prints_a_hint(tmp_path):
    """A store whose keyword snapshot is out of date (an older engramdb wrote it) is rebuilt at
    every read-only verb; the CLI says so as a hint on stderr, and a writing verb saves it."""
    from engramdb.testing import damage_snapshot

    store = tmp_path / "s"
    assert run("ingest", "--store", store, sample_path()).exit_code == 0
    with engramdb.open(store) as m:
        damage_snapshot(m, "keyword", array="tf")   # (as an older engramdb's lacks an array)
    r = run("stats", "--store", store)
    assert r.exit_code == 0 and "hint: engramdb: this read-only open rebuilt the keyword snapshot" in r.stderr
    assert "open the store writable once" in r.stderr
    engramdb.open(store).close()
    r = run("stats", "--store", store)
    assert r.exit_code == 0 and "hint:" not in r.stderr


@pytest.mark.parametrize("args,message", [
    (["--subject", "my dog", "--value", "Mochi"], "--subject needs --attribute"),
    (["--attribute", "name"], "--attribute needs --subject"),
    (["--value", "Mochi"], "--value needs --subject and --attribute"),
])
def test_add_names_the_option_a_half_given_slot_lacks(tmp_path, args, message):
    """helper-227: `add --subject "my dog"` without --attribute failed with the API's "a slot
    needs both subject= and attribute=", naming no option; nothing is stored."""
    store = tmp_path / "s"
    res = CliRunner().invoke(main, ["add", "--store", str(store), "--embedder", "hashing", *args, "My dog is Mochi."])
    assert res.exit_code == 2 and message in res.output
    assert not store.exists()
