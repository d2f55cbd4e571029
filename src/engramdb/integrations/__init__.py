"""Integrations of engramdb with agent frameworks, each a thin layer over the public API.

Each module is imported only when used (``import engramdb`` loads none of them), and each needs
its framework, installed through an extra:

- :mod:`engramdb.integrations.tools`: the tool definitions (``remember``, ``recall``,
  ``context``, ``forget``, ``supersede``, ``history``), their JSON schemas for OpenAI and
  Anthropic tool calling, and the dispatcher that runs a tool call against a store. No extra:
  it needs nothing beyond engramdb.
- :mod:`engramdb.integrations.mcp_server`: a Model Context Protocol server over stdio serving
  those tools (``engramdb mcp --store DIR``); extra ``engramdb[mcp]``.
- :mod:`engramdb.integrations.langchain`: a LangGraph ``BaseStore`` and a LangChain
  ``BaseRetriever``; extra ``engramdb[langchain]``.
- :mod:`engramdb.integrations.llamaindex`: a LlamaIndex ``BaseRetriever`` and a memory block
  for LlamaIndex agents; extra ``engramdb[llamaindex]``.
"""
