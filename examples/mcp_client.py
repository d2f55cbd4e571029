"""The engramdb MCP server driven by the MCP SDK's own client, as an MCP host would.

Starts ``engramdb mcp --store DIR --namespace NS`` over stdio, lists its tools, remembers a fact,
recalls it and shows what a bad argument returns. For a desktop host (Claude Desktop, an IDE),
the server entry is the same command: ``{"command": "engramdb", "args": ["mcp", "--store", DIR]}``.

    python examples/mcp_client.py
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters, stdio_client


async def main() -> None:
    with tempfile.TemporaryDirectory() as store:   # (removed at the end)
        env = {k: v for k, v in os.environ.items() if k == "ENGRAMDB_EMBEDDER"}
        server = StdioServerParameters(command=sys.executable, env=env,
                                       args=["-m", "engramdb", "mcp", "--store", store, "--namespace", "user-42"])
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            print("tools:", [t.name for t in (await session.list_tools()).tools])
            done = await session.call_tool("remember", {"text": "The user's sister Rita lives in Braga.",
                                                        "kind": "semantic"})
            print("remember:", done.content[0].text)
            found = await session.call_tool("recall", {"query": "where does Rita live?", "k": 3})
            print("recall:", [h["text"] for h in json.loads(found.content[0].text)["hits"]])
            bad = await session.call_tool("remember", {"text": "x", "kind": "fact"})
            print("isError:", bad.is_error, "-", bad.content[0].text)


asyncio.run(main())
