"""engramdb as tools for OpenAI or Anthropic tool calling: the schemas and the dispatcher.

Prints the tool schemas to send (``tools=`` of either API), then answers the tool calls a model
would make, as the provider's result messages. No model is called here: the calls are written
out as the APIs return them, so the script runs offline.

    python examples/tool_calling.py
"""
from __future__ import annotations

import json
import tempfile

import engramdb
from engramdb.integrations.tools import (
    anthropic_tools,
    openai_tools,
    run_anthropic_tool_use,
    run_openai_tool_call,
)

print("OpenAI tools=:", [t["function"]["name"] for t in openai_tools()])
print("Anthropic tools=:", [t["name"] for t in anthropic_tools()])
print(json.dumps(anthropic_tools()[1], indent=2)[:400], "...")

with tempfile.TemporaryDirectory() as tmp, engramdb.open(tmp) as mem:   # (removed at the end)
    # as in an OpenAI chat completion: message.tool_calls[i] (arguments are a JSON string)
    call = {"id": "call_1", "type": "function",
            "function": {"name": "remember",
                         "arguments": json.dumps({"text": "The user is allergic to peanuts.", "kind": "semantic"})}}
    print(run_openai_tool_call(mem, call, namespace="user-42"))
    # as in an Anthropic message: a tool_use content block
    use = {"type": "tool_use", "id": "toolu_1", "name": "recall", "input": {"query": "is the user allergic to peanuts?"}}
    result = run_anthropic_tool_use(mem, use, namespace="user-42")
    print("recalled:", [h["text"] for h in json.loads(result["content"])["hits"]])
    # a bad argument comes back as an error result carrying engramdb's message
    bad = {"type": "tool_use", "id": "toolu_2", "name": "remember", "input": {"text": "x", "kind": "fact"}}
    print(run_anthropic_tool_use(mem, bad, namespace="user-42"))
