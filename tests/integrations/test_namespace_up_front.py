"""An invalid namespace name is refused when an integration is set up (engramdb's own check,
``NamespaceError``), not by every later call of a server or agent that already started."""
import pytest

import engramdb

from .conftest import need

BAD = ["", "x" * 300, "a\x00b", "\ud800", None, 42]


def _message(bad):
    """The engine's own message for ``bad`` (``engramdb.validate.check_namespace``)."""
    from engramdb.validate import check_namespace

    try:
        check_namespace(bad)
    except engramdb.NamespaceError as exc:
        return str(exc)
    raise AssertionError(f"{bad!r} passed the engine's namespace check")


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_mcp_server_refuses_an_invalid_namespace(tmp_path, bad):
    need("mcp")
    from engramdb.integrations.mcp_server import build_server, serve_stdio

    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        with pytest.raises(engramdb.NamespaceError) as err:
            build_server(mem, namespace=bad)
        assert str(err.value) == _message(bad)
    # serve_stdio refuses before it opens (or creates) the store
    with pytest.raises(engramdb.NamespaceError):
        serve_stdio(str(tmp_path / "new"), namespace=bad, embedder="hashing")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("bad", ["", "x" * 300])
def test_cli_mcp_exits_2_with_one_line(tmp_path, bad):
    need("mcp")
    from click.testing import CliRunner

    from engramdb.cli import main

    res = CliRunner().invoke(main, ["mcp", "--store", str(tmp_path / "s"), "-n", bad], input="")
    assert res.exit_code == 2
    assert res.output == f"error: NamespaceError: {_message(bad)}\n"
    assert not (tmp_path / "s").exists()
    # the same line as recall's
    with engramdb.open(tmp_path / "r", embedder="hashing") as mem:
        mem.add("hello")
    rec = CliRunner().invoke(main, ["recall", "--store", str(tmp_path / "r"), "-n", bad, "hello"])
    assert rec.exit_code == 2 and rec.output == res.output


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_framework_objects_refuse_an_invalid_namespace(trip, bad):
    need("langgraph")
    need("llama_index.core")
    from engramdb.integrations import langchain as LC, llamaindex as LI

    makers = [lambda: LI.EngramRetriever(trip, namespace=bad),
              lambda: LI.EngramMemoryBlock(engram=trip, namespace=bad),
              lambda: LC.EngramRetriever(engram=trip, namespace=bad),
              lambda: LC.langchain_tools(trip, namespace=bad)]
    for make in makers:
        with pytest.raises(engramdb.NamespaceError) as err:
            make()
        assert str(err.value) == _message(bad)


def test_valid_namespaces_still_work(trip):
    need("langgraph")
    need("llama_index.core")
    from engramdb.integrations import langchain as LC, llamaindex as LI

    assert [n.node.node_id for n in LI.EngramRetriever(trip, namespace="u", k=1).retrieve("confirmation code")] == [
        "code"]
    assert [d.id for d in LC.EngramRetriever(engram=trip, namespace="u", k=1).invoke("confirmation code")] == ["code"]
    assert LI.EngramMemoryBlock(engram=trip, namespace="u").namespace == "u"
    assert [t.name for t in LC.langchain_tools(trip, namespace="u", read_only=True)] == ["recall", "context", "history"]
