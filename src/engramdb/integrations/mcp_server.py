"""A Model Context Protocol server over stdio, serving engramdb's tools (``engramdb mcp``).

The tools are those of :mod:`engramdb.integrations.tools` (one definition: the same names,
descriptions and JSON schemas as the OpenAI and Anthropic schemas), bound to one store and one
namespace. A call that fails with an :class:`engramdb.EngramError` answers with a tool result
marked ``isError`` whose text is the error's class and engramdb's own message (MCP's rule: tool
errors are results the model can read and correct, not protocol errors). In read-only mode the
store is opened ``readonly=True`` (other processes may write meanwhile) and only the reading
tools, ``recall``, ``context`` and ``history``, are listed or callable.

Built on the low-level server of the ``mcp`` package (2.x): the schemas are given, not
derived from Python signatures. Engine calls run in a worker thread (the engine holds its own
lock), so the event loop keeps serving.

Needs the extra ``engramdb[mcp]``.

References
----------
Model Context Protocol specification, "Tools" (tool results and ``isError``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    import anyio
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
except ImportError as exc:   # pragma: no cover - exercised only without the extra
    raise ImportError("engramdb.integrations.mcp_server needs the MCP SDK: pip install 'engramdb[mcp]'") from exc

from .. import __version__
from ..validate import check_namespace
from .tools import call_tool, tools

if TYPE_CHECKING:
    from ..config import EngramConfig
    from ..engine import Engram

__all__ = ["build_server", "serve_stdio"]


def build_server(engram: Engram, *, namespace: str = "default", read_only: bool = False) -> Server:
    """An MCP server whose tools act on ``engram`` in ``namespace``.

    Parameters
    ----------
    engram : Engram
        An open store; the caller closes it after the server stops.
    namespace : str
        The namespace every tool works in.
    read_only : bool
        List and accept only the reading tools (``recall``, ``context``, ``history``).

    Returns
    -------
    mcp.server.lowlevel.Server
        Run it with ``server.run(read, write, server.create_initialization_options())``.

    Raises
    ------
    NamespaceError
        ``namespace`` is not a valid name (engramdb's own check): refused here rather than by
        every tool call of a server that started.
    """
    namespace = check_namespace(namespace)
    listed = tools(read_only=read_only)
    mcp_tools = [types.Tool(name=t.name, description=t.description, input_schema=dict(t.parameters),
                            annotations=types.ToolAnnotations(read_only_hint=t.read_only,
                                                              destructive_hint=t.name == "forget"))
                 for t in listed]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=mcp_tools)

    async def run_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        out = await anyio.to_thread.run_sync(
            lambda: call_tool(engram, params.name, params.arguments, namespace=namespace, read_only=read_only))
        return types.CallToolResult(content=[types.TextContent(text=out.text)],
                                    structured_content=None if out.is_error else out.content,
                                    is_error=out.is_error)

    return Server("engramdb", version=__version__,
                  instructions=f"Long-term memory of this agent (engramdb store, namespace {namespace!r}). "
                               "Call recall or context before answering from memory; remember what is worth "
                               "keeping.",
                  get_tool_input_schema=lambda name: next((dict(t.parameters) for t in listed if t.name == name),
                                                          None),
                  on_list_tools=list_tools, on_call_tool=run_tool)


def serve_stdio(store: str, *, namespace: str = "default", read_only: bool = False, embedder: str | None = None,
                dim: int | None = None, lock_timeout_s: float = 0.0, config: EngramConfig | None = None,
                actor: str | None = None) -> None:
    """Open ``store`` and serve MCP over stdin/stdout until the client closes the connection.

    Parameters
    ----------
    store : str
        Store directory; created (as by ``engramdb add``) unless ``read_only``.
    namespace : str
    read_only : bool
        Open the store read-only and serve only the reading tools.
    embedder : {"hashing", "minilm"} or None
        Embedder of a new store (an existing store keeps its own).
    dim : int, optional
        Dimension of a new store.
    lock_timeout_s : float
        Seconds to wait for another writer's lock (not with ``read_only``).
    config : EngramConfig, optional
        The engine's configuration (``engramdb --slot-extractor rules mcp`` gives one with the
        rule-based slot extractor), as :func:`engramdb.open` takes it.
    actor : str, optional
        Who the audit ledger names for the server's writes (``engramdb --actor NAME mcp``); the
        ledger's default when None.

    Raises
    ------
    NamespaceError
        ``namespace`` is not a valid name; checked before the store is opened (or created).
    StoreNotFoundError
        ``read_only`` and no store at ``store``.
    StoreLockedError
        Another process writes to the store.
    """
    import os

    from .. import engine

    check_namespace(namespace)
    if not read_only and dim is None and embedder is None and not os.path.exists(os.path.join(store, "data.mdb")):
        dim = 384
    from ..store.ledger import DEFAULT_ACTOR

    with engine.open(store, dim=dim, embedder=embedder, config=config, create=not read_only, readonly=read_only,
                     lock_timeout_s=0.0 if read_only else lock_timeout_s,
                     actor=DEFAULT_ACTOR if actor is None else actor) as eng:
        server = build_server(eng, namespace=namespace, read_only=read_only)

        async def main() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(main)
