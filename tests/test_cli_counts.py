"""CLI summaries state counts in the singular for one ("1 memory", "1 session", "1 edge"), never
"1 memories" (engramdb.wording.count, the one helper every message uses)."""
import json

from click.testing import CliRunner

from engramdb.cli import main


def run(*args, input=None):
    res = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert res.exit_code == 0, res.output
    return res.output


def test_one_of_each_is_singular(tmp_path):
    store = tmp_path / "s"
    lines = tmp_path / "one.jsonl"
    lines.write_text(json.dumps({"id": "a", "text": "I moved to Porto in March."}) + "\n")
    assert "ingested 1 memory and 0 edges into" in run("ingest", lines, "--store", store)
    out = run("stats", "--store", store)
    assert "1 memory (0 more pieces of long ones), 0 edges," in " ".join(out.split())
    assert "query (event_time_desc, 1 memory)" in run("query", "--store", store)
    exp = tmp_path / "exp"
    run("export", "--store", store, "--out", exp)
    assert "imported 1 memory and 0 edges into" in run("import", "--store", tmp_path / "t", exp)
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"role": "user", "content": "Hello there, I live in Porto."}) + "\n")
    out = run("ingest-chat", chat, "--store", store, "-n", "c", "--no-entities")
    assert "ingested 1 new message in 1 session: 2 memories (1 message, 1 new session node, 0 new entities)" in out
    assert "ledger ok: " in run("ledger", "--store", store, "--verify")


def test_two_are_plural(tmp_path):
    store = tmp_path / "s"
    lines = tmp_path / "two.jsonl"
    lines.write_text("".join(json.dumps({"id": i, "text": t}) + "\n"
                             for i, t in (("a", "I moved to Porto."), ("b", "I work at Acme."))))
    assert "ingested 2 memories and 0 edges into" in run("ingest", lines, "--store", store)


def test_long_jobs_print_no_blank_line_before_their_output(tmp_path):
    """rich's transient bars drew on stdout when it was no terminal: consolidate and rescore
    printed a blank line before their summary (fresh-user pass). Bars go to stderr, only on a
    terminal."""
    from click.testing import CliRunner
    from engramdb.cli import main
    store = str(tmp_path / "s")
    assert CliRunner().invoke(main, ["add", "--store", store, "--embedder", "hashing", "hello there"]).exit_code == 0
    res = CliRunner().invoke(main, ["consolidate", "--store", store])
    assert res.exit_code == 0 and res.output.startswith("consolidated 1 namespace"), repr(res.output[:40])
    res = CliRunner().invoke(main, ["rescore", "--store", store])
    assert res.exit_code == 0 and res.output.lstrip(" ").startswith("rescore at"), repr(res.output[:40])


def test_what_a_fresh_cli_user_could_not_read(tmp_path):
    """A fresh CLI user: `context --budget 0` printed a blank line and nothing else (the gap that
    says why was in --json only); `rescore` titled its table with Unix seconds; an empty recall
    question was refused with a hint to pass vector=, which only the Python API has."""
    store = tmp_path / "s"
    run("add", "--store", store, "--embedder", "hashing", "--created-at", "2025-01-01", "My rent is 900 euros.")
    res = CliRunner().invoke(main, ["context", "--store", str(store), "--budget", "0", "rent"])
    # (on stderr; click before 8.2 mixes it into the output, as the runner's output does now)
    assert res.exit_code == 0 and res.output.strip().startswith("gap: The budget of 0 tokens left no room for "
                                                                "the one memory found")
    assert "rescore at 2026-01-01T00:00:00Z" in run("rescore", "--store", store, "--now", "2026-01-01")
    empty = CliRunner().invoke(main, ["recall", "--store", str(store), "  "])
    assert empty.exit_code == 2 and "QUERY" in empty.output and "vector=" not in empty.output
