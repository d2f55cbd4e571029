"""Each integration's example under examples/ runs to the end and shows what it says it shows."""
import os
import subprocess
import sys

import pytest

from .conftest import need

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")

CASES = [
    ("tool_calling.py", None, ["recalled: ['The user is allergic to peanuts.']", "UnknownKindError: unknown memory kind 'fact'"]),
    ("mcp_client.py", "mcp", ["recall: [\"The user's sister Rita lives in Braga.\"]",
                              "isError: True - UnknownKindError: unknown memory kind 'fact'"]),
    ("langgraph_store.py", "langgraph", ["graph recalled: [('Ana lives in the city of Porto.'",
                                         "namespaces: [('memories', 'ana')] -> engramdb: ['memories.ana']",
                                         "chain answer: Your confirmation code is QX7Z9M."]),
    ("llamaindex_memory.py", "llama_index.core", ["The airline emailed confirmation code QX7Z9M.",
                                                  "user: What is the confirmation code of my flight?",
                                                  "stored at the session's end: 2 messages"]),
]


@pytest.mark.parametrize("script,framework,expected", CASES, ids=[c[0] for c in CASES])
def test_example_runs(script, framework, expected):
    if framework:
        need(framework)
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    for line in expected:
        assert line in out.stdout, (line, out.stdout)
