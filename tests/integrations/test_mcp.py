"""The MCP server: a real ``mcp.ClientSession`` over stdio against ``python -m engramdb mcp``."""
import asyncio
import json
import sys

import engramdb

from .conftest import need

mcp = need("mcp")


def _params(store, *extra):
    # stdio_client passes only a few variables to the server; name the embedder (tests use hashing)
    return mcp.StdioServerParameters(command=sys.executable, args=["-m", "engramdb", "mcp", "--store", str(store), *extra],
                                     env={"ENGRAMDB_EMBEDDER": "hashing"})


async def _session(params, work):
    async with mcp.stdio_client(params) as (read, write):
        async with mcp.ClientSession(read, write) as session:
            await session.initialize()
            return await work(session)


def test_list_remember_recall_and_an_engramdb_error(tmp_path):
    store = tmp_path / "s"

    async def work(s):
        listed = await s.list_tools()
        out = {"tools": {t.name: t for t in listed.tools}}
        out["remember"] = await s.call_tool("remember", {"text": "I moved to Porto in March.", "kind": "semantic",
                                                         "id": "home"})
        out["recall"] = await s.call_tool("recall", {"query": "where did I move?", "k": 3})
        out["bad_kind"] = await s.call_tool("remember", {"text": "x", "kind": "bogus"})
        out["missing"] = await s.call_tool("forget", {"id": "nope"})
        return out

    out = asyncio.run(_session(_params(store, "--namespace", "user-1"), work))
    from engramdb.integrations.tools import TOOLS

    assert list(out["tools"]) == list(TOOLS)
    for name, tool in out["tools"].items():
        assert tool.input_schema == TOOLS[name].parameters   # the one definition, as listed
        assert tool.annotations.read_only_hint is TOOLS[name].read_only
    rem = out["remember"]
    assert not rem.is_error and rem.structured_content == {"id": "home", "namespace": "user-1"}
    assert json.loads(rem.content[0].text) == {"id": "home", "namespace": "user-1"}
    rec = out["recall"]
    assert not rec.is_error
    hits = json.loads(rec.content[0].text)["hits"]
    assert [h["id"] for h in hits] == ["home"] and hits[0]["text"] == "I moved to Porto in March."
    bad = out["bad_kind"]
    assert bad.is_error
    try:
        engramdb.MemoryKind.parse("bogus")
    except engramdb.UnknownKindError as exc:
        assert bad.content[0].text == f"UnknownKindError: {exc}"   # engramdb's own message, whole
    assert "expected one of ['working', 'episodic', 'semantic', 'procedural', 'decision']" in bad.content[0].text
    assert out["missing"].is_error and out["missing"].content[0].text.startswith("MemoryNotFoundError: ")
    # the server wrote to its namespace only, and the rejected call wrote nothing
    with engramdb.open(store, readonly=True) as mem:
        assert mem.namespaces() == ["user-1"] and mem.stats()["memories"] == 1


def test_read_only_serves_only_the_reading_tools(tmp_path):
    store = tmp_path / "s"
    with engramdb.open(store, embedder="hashing") as mem:
        mem.add("Our deploys go out on Tuesdays.", id="deploy", namespace="team", kind="procedural")

    async def work(s):
        listed = await s.list_tools()
        return ([t.name for t in listed.tools], await s.call_tool("remember", {"text": "sneaky write"}),
                await s.call_tool("history", {"id": "deploy"}))

    names, write, hist = asyncio.run(_session(_params(store, "-n", "team", "--read-only"), work))
    assert names == ["recall", "context", "history"]
    assert write.is_error and write.content[0].text.startswith("ReadOnlyError: ")
    assert not hist.is_error and json.loads(hist.content[0].text)["versions"][0]["text"] == "Our deploys go out on Tuesdays."
    with engramdb.open(store, readonly=True) as mem:
        assert mem.stats()["memories"] == 1


def test_the_root_options_reach_the_server(tmp_path):
    """helper-221: ``engramdb --slot-extractor rules --actor NAME mcp`` served a store without the
    slot extractor (no current home after "I live in Boston.") and wrote as the default actor."""
    store = tmp_path / "s"
    params = mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "engramdb", "--slot-extractor", "rules", "--actor", "claude-desktop", "mcp",
                                      "--store", str(store)], env={"ENGRAMDB_EMBEDDER": "hashing"})

    async def work(s):
        return await s.call_tool("remember", {"text": "I live in Boston.", "id": "home"})

    assert not asyncio.run(_session(params, work)).is_error
    with engramdb.open(store, readonly=True) as mem:
        assert mem.current("user", "home_city").id == "home"
        assert [e.actor for e in mem.ledger(verb="add")] == ["claude-desktop"]


def test_cli_documents_the_command():
    from click.testing import CliRunner

    from engramdb.cli import main

    assert "mcp" in CliRunner().invoke(main, ["--help"]).output
    out = CliRunner().invoke(main, ["mcp", "--help"]).output
    for option in ("--store", "--namespace", "--read-only", "--embedder"):
        assert option in out
