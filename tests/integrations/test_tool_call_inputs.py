"""What a model or client may send the dispatcher: numbers as JSON Schema (Draft 2020-12) types
them, and malformed tool-call objects, which get engramdb's clean error, never a bare KeyError."""
import json
import math
from types import SimpleNamespace

import pytest

import engramdb
from engramdb.integrations import tools as T

from .conftest import need

jsonschema = need("jsonschema")


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        for i, text in enumerate(["I live in Lisbon", "I work in Porto", "My cat is Tom", "I drink tea",
                                  "I play the cello", "I run on Sundays", "My sister is Ana"]):
            m.add(text, id=f"m{i}", namespace="me")
        yield m


def _valid(name, args):
    return jsonschema.Draft202012Validator(T.TOOLS[name].parameters).is_valid(args)


@pytest.mark.parametrize("k", [1.0, 2.0, 5.0, "2.0 as JSON"])
def test_an_integer_valued_number_is_an_integer(mem, k):
    args = '{"query": "where do I live", "k": 2.0}' if k == "2.0 as JSON" else {"query": "where do I live", "k": k}
    assert _valid("recall", json.loads(args) if isinstance(args, str) else args)   # the schema accepts it
    out = T.call_tool(mem, "recall", args, namespace="me")
    assert not out.is_error, out.text
    n = 2 if isinstance(args, str) else int(k)
    ref = T.dispatch(mem, "recall", {"query": "where do I live", "k": n}, namespace="me")   # the int itself
    assert [h["id"] for h in out.content["hits"]] == [h["id"] for h in ref["hits"]]
    assert out.content["hits"][0]["id"] == "m0" and len(out.content["hits"]) == min(n, 3)


def test_an_integer_valued_budget_reaches_the_engine_as_an_int(mem):
    out = T.call_tool(mem, "context", {"query": "where do I live", "budget_tokens": 1000.0}, namespace="me")
    assert not out.is_error, out.text
    assert out.content["budget_tokens"] == 1000 and type(out.content["budget_tokens"]) is int
    assert out.content["tokens_used"] <= 1000 and "Lisbon" in out.content["text"]


@pytest.mark.parametrize("k", [5.5, 1e-9 + 5, math.nan, math.inf, -math.inf, True, False, "5", [5]])
def test_what_is_not_an_integer_is_refused(mem, k):
    out = T.call_tool(mem, "recall", {"query": "q", "k": k}, namespace="me")
    assert out.is_error and out.content["error"]["type"] == "InvalidInputError"
    assert out.text == f"InvalidInputError: recall.k: expected a JSON integer, got {k!r}"


@pytest.mark.parametrize("text", ['{"query": "q", "k": NaN}', '{"query": "q", "k": Infinity}'])
def test_non_json_constants_are_refused(mem, text):
    out = T.call_tool(mem, "recall", text, namespace="me")
    assert out.is_error and out.content["error"]["type"] == "InvalidInputError"
    assert "recall.k: expected a JSON integer" in out.text


def test_integer_valued_numbers_inside_arrays_are_not_touched_elsewhere(mem):
    # a number-typed argument keeps its float; a string array still refuses a number
    out = T.call_tool(mem, "remember", {"text": "I like green tea.", "id": "tea", "confidence": 1.0}, namespace="me")
    assert not out.is_error and mem.get("tea", namespace="me").confidence == 1.0
    bad = T.call_tool(mem, "recall", {"query": "q", "tags": ["a", 3.0]}, namespace="me")
    assert bad.is_error and "recall.tags[1]: expected a JSON string, got 3.0" in bad.text


# ---------------------------------------------------------------------------- malformed call objects
MALFORMED_OPENAI = [
    ({"id": "call_1", "type": "function"}, "no 'function'"),
    ({"id": "call_1", "function": "remember"}, "'function' must be an object"),
    ({"id": "call_1", "function": None}, "'function' must be an object"),
    ({"id": "call_1", "function": {"arguments": "{}"}}, "no 'name'"),
    (SimpleNamespace(id="call_1", type="function"), "no 'function'"),
    (SimpleNamespace(id="call_1", function=SimpleNamespace(arguments="{}")), "no 'name'"),
]


@pytest.mark.parametrize("call, fragment", MALFORMED_OPENAI, ids=[str(i) for i in range(len(MALFORMED_OPENAI))])
def test_a_malformed_openai_tool_call_gets_an_error_result(mem, call, fragment):
    out = T.run_openai_tool_call(mem, call, namespace="me")
    assert out["role"] == "tool" and out["tool_call_id"] == "call_1"
    assert out["content"].startswith("InvalidInputError: tool call 'call_1': ") and fragment in out["content"]
    assert mem.stats()["memories"] == 7


def test_missing_arguments_are_no_arguments(mem):
    out = T.run_openai_tool_call(mem, {"id": "call_2", "function": {"name": "history"}}, namespace="me")
    assert out == {"role": "tool", "tool_call_id": "call_2",
                   "content": "InvalidInputError: history: missing required argument(s) ['id']"}


@pytest.mark.parametrize("call", [None, "call_1", 42, {"function": {"name": "recall", "arguments": "{}"}},
                                  {"id": None, "function": {"name": "recall"}}, {"id": 7, "function": {}},
                                  SimpleNamespace(function=SimpleNamespace(name="recall", arguments="{}"))])
def test_a_tool_call_that_cannot_be_answered_raises_engramdbs_error(mem, call):
    with pytest.raises(engramdb.InvalidInputError, match="tool call"):
        T.run_openai_tool_call(mem, call, namespace="me")


MALFORMED_ANTHROPIC = [
    ({"type": "tool_use", "id": "toolu_1", "input": {"query": "q"}}, "no 'name'"),
    (SimpleNamespace(type="tool_use", id="toolu_1", input={"query": "q"}), "no 'name'"),
]


@pytest.mark.parametrize("block, fragment", MALFORMED_ANTHROPIC)
def test_a_malformed_anthropic_tool_use_gets_an_error_result(mem, block, fragment):
    out = T.run_anthropic_tool_use(mem, block, namespace="me")
    assert out["type"] == "tool_result" and out["tool_use_id"] == "toolu_1" and out["is_error"] is True
    assert out["content"].startswith("InvalidInputError: tool use 'toolu_1': ") and fragment in out["content"]


def test_anthropic_missing_input_is_no_arguments(mem):
    out = T.run_anthropic_tool_use(mem, {"type": "tool_use", "id": "toolu_2", "name": "history"}, namespace="me")
    assert out == {"type": "tool_result", "tool_use_id": "toolu_2",
                   "content": "InvalidInputError: history: missing required argument(s) ['id']", "is_error": True}


@pytest.mark.parametrize("block", [None, [], {"name": "recall", "input": {"query": "q"}},
                                   SimpleNamespace(name="recall", input={"query": "q"})])
def test_a_tool_use_that_cannot_be_answered_raises_engramdbs_error(mem, block):
    with pytest.raises(engramdb.InvalidInputError, match="tool use"):
        T.run_anthropic_tool_use(mem, block, namespace="me")
