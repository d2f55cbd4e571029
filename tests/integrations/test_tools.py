"""Tool schemas (OpenAI, Anthropic, MCP from one definition) and the dispatcher, on a real store."""
import json

import pytest

import engramdb
from engramdb.integrations import tools as T

from .conftest import need

jsonschema = need("jsonschema")


def test_every_schema_is_valid_json_schema_2020_12():
    for tool in T.TOOLS.values():
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        assert tool.parameters["type"] == "object"
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"])
    # a schema that is not one is caught by the same check (the check can fail)
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema({"type": "object", "required": "text"})


def test_openai_and_anthropic_schemas_come_from_the_same_definitions():
    oa, an = T.openai_tools(), T.anthropic_tools()
    assert [t["function"]["name"] for t in oa] == [t["name"] for t in an] == list(T.TOOLS) == [
        "remember", "recall", "context", "forget", "supersede", "history"]
    for o, a in zip(oa, an):
        assert o["type"] == "function"
        assert o["function"]["parameters"] == a["input_schema"] == T.TOOLS[a["name"]].parameters
        assert o["function"]["description"] == a["description"] and a["description"]
        json.dumps(o), json.dumps(a)   # JSON-ready as sent to the APIs
    assert [t["name"] for t in T.anthropic_tools(read_only=True)] == ["recall", "context", "history"]
    assert [t["function"]["name"] for t in T.openai_tools(read_only=True)] == ["recall", "context", "history"]


def test_listed_kinds_and_frames_are_the_engines():
    from engramdb.context import FRAMES

    assert T.KINDS == tuple(k.value for k in engramdb.MemoryKind)
    assert T.FRAMES == tuple(FRAMES)


# one valid call per tool, run in order against one store; each result must validate
CALLS = [
    ("remember", {"text": "I moved to Porto in March.", "kind": "semantic", "id": "home", "tags": ["home"],
                  "created_at": "2024-03-10", "confidence": 0.9, "source": "chat-1"}),
    ("remember", {"text": "My flight to Lisbon leaves on May 14.", "id": "flight"}),
    ("recall", {"query": "where did I move?", "k": 2, "kinds": ["semantic"], "tags": ["home"],
                "since": "2024-01-01", "include_superseded": False}),
    ("context", {"query": "where did I move?", "budget_tokens": 200, "frame": "question"}),
    ("supersede", {"old_id": "home", "text": "I moved to Braga in October.", "id": "home2"}),
    ("history", {"id": "home2"}),
    ("forget", {"id": "flight"}),
    ("forget", {"id": "home2", "hard": True}),
]


def test_dispatcher_round_trips_every_tool(tmp_path):
    called = set()
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        for name, args in CALLS:
            # the call validates against the tool's own schema, as a model's call would
            jsonschema.validate(args, T.TOOLS[name].parameters, cls=jsonschema.Draft202012Validator)
            out = T.dispatch(mem, name, json.dumps(args), namespace="me")
            json.dumps(out)
            called.add(name)
            if name == "remember":
                assert out == {"id": args["id"], "namespace": "me"}
                got = mem.get(args["id"], namespace="me")
                assert got.text == args["text"]
            elif name == "recall":
                assert [h["id"] for h in out["hits"]] == ["home"]
                assert out["hits"][0]["date"] == "2024-03-10T00:00:00Z"
                assert out["hits"][0]["path"] == [{"id": "home", "relation": None, "forward": True}]
            elif name == "context":
                assert "Porto" in out["text"] and out["tokens_used"] <= 200 == out["budget_tokens"]
            elif name == "supersede":
                assert out == {"id": "home2", "superseded": "home"}
                assert mem.get("home", namespace="me").state is engramdb.MemoryState.SUPERSEDED
            elif name == "history":
                assert [v["id"] for v in out["versions"]] == ["home", "home2"]
            elif name == "forget" and not args.get("hard"):
                assert out == {"id": "flight", "forgotten": "archived"}
                assert mem.get("flight", namespace="me").state is engramdb.MemoryState.ARCHIVED
            else:
                assert out == {"id": "home2", "forgotten": "erased"}
                with pytest.raises(engramdb.MemoryNotFoundError):
                    mem.get("home2", namespace="me")
        assert mem.namespaces() == ["me"]   # the dispatcher stayed in its namespace
    assert called == set(T.TOOLS)


def test_errors_keep_engramdbs_message(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        bad = T.call_tool(mem, "remember", {"text": "x", "kind": "bogus"})
        assert bad.is_error
        try:
            mem.add("x", kind="bogus")
        except engramdb.UnknownKindError as exc:
            message = str(exc)
        assert bad.text == f"UnknownKindError: {message}"
        assert "bogus" in message and "semantic" in message
        assert mem.stats()["memories"] == 0   # nothing written

        missing = T.call_tool(mem, "history", {"id": "nope"})
        assert missing.is_error and missing.content["error"]["type"] == "MemoryNotFoundError"

        for name, args, fragment in [
            ("remember", {"txt": "x"}, "unknown argument(s) ['txt']"),
            ("remember", {}, "missing required argument(s) ['text']"),
            ("forget", {"id": "a", "hard": "false"}, "forget.hard: expected a JSON boolean"),
            ("recall", {"query": "q", "k": True}, "recall.k: expected a JSON integer"),
            ("recall", {"query": "q", "tags": ["a", 3]}, "recall.tags[1]: expected a JSON string"),
            ("recall", "{not json", "arguments are not valid JSON"),
            ("teleport", {}, "unknown tool 'teleport'"),
        ]:
            out = T.call_tool(mem, name, args)
            assert out.is_error and out.content["error"]["type"] == "InvalidInputError", (name, out)
            assert fragment in out.text

        ro = T.call_tool(mem, "remember", {"text": "x"}, read_only=True)
        assert ro.is_error and ro.content["error"]["type"] == "ReadOnlyError"
        assert mem.stats()["memories"] == 0


def test_openai_and_anthropic_result_messages(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        ok = T.run_openai_tool_call(mem, {"id": "call_1", "type": "function", "function": {
            "name": "remember", "arguments": json.dumps({"text": "I like green tea.", "id": "tea"})}})
        assert ok == {"role": "tool", "tool_call_id": "call_1", "content": json.dumps({"id": "tea", "namespace": "default"})}
        res = T.run_anthropic_tool_use(mem, {"type": "tool_use", "id": "toolu_1", "name": "recall",
                                             "input": {"query": "what tea do I like?", "k": 1}})
        assert res["type"] == "tool_result" and res["tool_use_id"] == "toolu_1" and res["is_error"] is False
        assert json.loads(res["content"])["hits"][0]["id"] == "tea"
        err = T.run_anthropic_tool_use(mem, {"type": "tool_use", "id": "toolu_2", "name": "forget",
                                             "input": {"id": "coffee"}})
        assert err["is_error"] is True and err["content"].startswith("MemoryNotFoundError: ")
        assert "coffee" in err["content"]
