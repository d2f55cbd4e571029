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
                assert "path" not in out["hits"][0]   # a seed: no other memory led to it
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


def test_a_new_users_namespace_answers_empty_and_names_no_other_namespace(tmp_path):
    """A dispatcher bound to a new user's namespace raised NamespaceError on its first recall
    or context, and that text (like the empty-namespace gap) named the store's other namespaces,
    other users' ids, to the model (fresh-user pass)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Alice's bank PIN hint is her cat's name.", namespace="tenant-alice@example.com")
        out = [T.call_tool(mem, tool, {"query": "hello"}, namespace=ns)
               for tool in ("recall", "context") for ns in ("tenant-carol@example.com", "default")]
        out.append(T.call_tool(mem, "history", {"id": "x"}, namespace="tenant-carol@example.com"))
        out.append(T.call_tool(mem, "forget", {"id": "x"}, namespace="tenant-carol@example.com"))
        for r in out:
            assert "alice" not in r.text
        assert [r.is_error for r in out] == [False] * 4 + [True, True]
        assert json.loads(out[0].text)["hits"] == [] and json.loads(out[0].text)["gaps"][0]["reason"] == "empty_namespace"
        assert json.loads(out[2].text)["text"] == "" and json.loads(out[2].text)["budget_tokens"] == 3000
        # the developer's own mistakes keep their message: an invalid namespace name, a bad frame
        bad = T.call_tool(mem, "recall", {"query": "hello"}, namespace="")
        assert bad.is_error and "namespace must be" in bad.text
        assert "frame" in T.call_tool(mem, "context", {"query": "hi", "frame": "x"}, namespace="new").text


def test_arguments_outside_the_schemas_bounds_are_refused(tmp_path):
    """The recall tool advertised k at most 100 and ran k = 500 (a 1.4 MB tool result); one
    string for tags was refused though the API takes one (fresh-user pass)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        for k in (500, 500.0, 0, -3):
            r = T.call_tool(mem, "recall", {"query": "x", "k": k})
            assert r.is_error and "recall.k: expected a JSON integer in [1, 100]" in r.text
        r = T.call_tool(mem, "remember", {"text": "I like tea.", "tags": "prefs", "confidence": 1.5})
        assert r.is_error and "remember.confidence" in r.text
        r = T.call_tool(mem, "remember", {"text": "I like tea.", "tags": "prefs"})
        assert not r.is_error and mem.get(json.loads(r.text)["id"]).tags == ("prefs",)
        # a model's comma-separated string is a list (helper-221: "travel, preferences" was one tag)
        r = T.call_tool(mem, "remember", {"text": "I fly TAP to Lisbon.", "tags": "travel, preferences,"})
        assert mem.get(json.loads(r.text)["id"]).tags == ("travel", "preferences")
        got = T.call_tool(mem, "recall", {"query": "Lisbon", "tags": "travel ,preferences"}).content["hits"]
        assert [h["text"] for h in got] == ["I fly TAP to Lisbon."]


def test_context_tool_takes_recalls_filters(tmp_path):
    """The context tool narrows its recalled memories as the recall tool does (the API's
    context() takes kinds, tags, since and until)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("I booked a flight to Lisbon for May.", id="lisbon", created_at="2024-03-10", namespace="me")
        mem.add("I booked a flight to Porto for June.", id="porto", created_at="2024-05-10", namespace="me",
                tags=["work"])
        args = {"query": "which flight did I book?", "since": "2024-05", "tags": ["work"], "kinds": ["episodic"]}
        jsonschema.validate(args, T.TOOLS["context"].parameters, cls=jsonschema.Draft202012Validator)
        out = T.dispatch(mem, "context", args, namespace="me")
        assert "Porto" in out["text"] and "Lisbon" not in out["text"]
        assert "Lisbon" in T.dispatch(mem, "context", {"query": "which flight did I book?"}, namespace="me")["text"]


@pytest.mark.parametrize("name", ["recall", "context"])
def test_a_blank_question_is_refused_with_a_hint_a_model_can_follow(tmp_path, name):
    """The engine's hint names vector=, which no tool takes; a new user's namespace checks the
    question too (it answered empty)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("I fly to Lisbon in May.", namespace="me")
        for ns in ("me", "new-user"):
            out = T.call_tool(mem, name, {"query": "  \u200b "}, namespace=ns)
            assert out.is_error and "pass the question as text" in out.text and "vector" not in out.text


@pytest.mark.parametrize("name", ["recall", "context"])
def test_a_new_users_call_checks_its_filters(tmp_path, name):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("I fly to Lisbon in May.", namespace="me")
        for ns in ("me", "new-user"):
            out = T.call_tool(mem, name, {"query": "flight", "since": "garbage"}, namespace=ns)
            assert out.is_error and "since" in out.text


def test_remember_says_which_stored_memories_it_changes(tmp_path):
    """helper-221: remember returned only the id; add_conversation says "changed". A model that
    stores a new home now learns which memory it makes out of date (a repeat or a new fact: no key)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        first = T.call_tool(mem, "remember", {"text": "I live in Boston.", "id": "boston", "created_at": "2025-01-01"})
        assert first.content == {"id": "boston", "namespace": "default"}
        moved = T.call_tool(mem, "remember", {"text": "I moved to Cambridge.", "id": "cambridge",
                                              "created_at": "2025-03-01"})
        assert not moved.is_error and moved.content == {"id": "cambridge", "namespace": "default", "changed": ["boston"]}
        other = T.call_tool(mem, "remember", {"text": "My sister lives in Braga.", "created_at": "2025-03-02"})
        assert "changed" not in other.content


def test_the_users_slot_is_one_whatever_the_model_calls_the_user(tmp_path):
    """helper-221: a model wrote subject "user" one week and "the user" the next: two slots, two
    current homes (current("user"): Boston, current("the user"): Cambridge)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        for i, (subject, city) in enumerate([("user", "Boston"), ("the user", "Cambridge"), ("Me", "Somerville")]):
            out = T.call_tool(mem, "remember", {"text": f"I live in {city}.", "subject": subject,
                                                "attribute": "home_city", "value": city, "created_at": f"2025-0{i + 1}-01"})
            assert not out.is_error, out.text
        assert mem.current("user", "home_city").text == "I live in Somerville."
        # one slot in the engine too: every name of the user's is stored as "user"
        assert mem.current("the user", "home_city").text == "I live in Somerville."
        assert [m.text for m in mem.query(subject="me", attribute="home_city")] == ["I live in Somerville."]


def test_a_remembered_note_is_a_lasting_fact(tmp_path):
    """helper-224: notes a model wrote through remember were episodic and untagged, and a
    rescore a few quiet months on archived all three ("User moved to Boulder", the new job, the
    new dose). A note is semantic unless the model says otherwise, and an identity, health or
    family fact is protected."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        for i, text in enumerate(["User's levothyroxine dose is 75 mcg daily.", "User moved to Boulder.",
                                  "The user likes window seats."]):
            assert not T.call_tool(mem, "remember", {"text": text, "id": f"n{i}", "created_at": "2025-04-01"}).is_error
        T.call_tool(mem, "remember", {"text": "Had a great hike today.", "id": "hike", "kind": "episodic",
                                      "created_at": "2025-04-01"})
        assert [mem.get(f"n{i}").kind.value for i in range(3)] == ["semantic"] * 3
        assert [("protected" in mem.get(f"n{i}").tags) for i in range(3)] == [True, True, False]
        mem.rescore(now="2028-01-01")
        assert [mem.get(i).state.value for i in ("n0", "n1", "hike")] == ["active", "active", "archived"]


def test_a_recall_tool_hit_carries_what_a_model_reads():
    """helper-221: a tool hit carried every field of the Python hit (score, activation, cosine,
    the path's steps as objects, nulls): five hits were 2,463 characters, 260 of them text."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, engramdb.open(tmp, embedder="hashing") as mem:
        mem.add("I live in Boston.", id="boston", created_at="2025-01-05", tags=["home"])
        mem.add("I moved to Cambridge in May.", id="cambridge", created_at="2025-05-20")
        mem.add("My dog Pixel loves the park.", id="pixel", created_at="2025-02-01", confidence=0.8)
        out = T.call_tool(mem, "recall", {"query": "where do I live?", "k": 3})
        assert not out.is_error, out.text
        rel = [h["relevance"] for h in out.content["hits"]]
        assert all(0.0 <= r <= 1.0 and round(r, 2) == r for r in rel)
        assert out.content == {"gaps": [], "hits": [
            {"id": "cambridge", "text": "I moved to Cambridge in May.", "date": "2025-05-20T00:00:00Z",
             "kind": "episodic", "relevance": rel[0], "path": "boston <-[contradicts]- cambridge"},
            {"id": "boston", "text": "I live in Boston.", "date": "2025-01-05T00:00:00Z", "kind": "episodic",
             "relevance": rel[1], "tags": ["home"], "said_otherwise_later_in": ["cambridge"]}]}
        dog = T.call_tool(mem, "recall", {"query": "what does my dog Pixel love?", "k": 1}).content["hits"]
        assert dog == [{"id": "pixel", "text": "My dog Pixel loves the park.", "date": "2025-02-01T00:00:00Z",
                        "kind": "episodic", "relevance": dog[0]["relevance"], "confidence": 0.8}]


def test_a_replayed_conversation_runs_the_tools_at_its_own_times(tmp_path):
    """helper-221: the dispatcher took no time, so a conversation replayed for evaluation was
    answered at the machine's clock ("last week" of today, notes dated today)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        assert not T.call_tool(mem, "remember", {"text": "I ran 5 km in the park this morning.", "id": "run"},
                               now="2025-03-04T08:00:00").is_error
        assert not T.call_tool(mem, "remember", {"text": "I bought a new bike.", "id": "bike",
                                                 "created_at": "2025-03-20"}, now="2025-03-21").is_error
        assert mem.get("run").created_at == 1741075200.0   # 2025-03-04T08:00Z: the call's time
        assert mem.get("bike").created_at == 1742428800.0  # 2025-03-20: the model's own date wins
        week = {"query": "what did I do last week?", "k": 2}
        assert [h["id"] for h in T.call_tool(mem, "recall", week, now="2025-03-10").content["hits"]] == ["run"]
        assert [h["id"] for h in T.call_tool(mem, "recall", week, now=1742774400.0).content["hits"]][0] == "bike"
        today = T.call_tool(mem, "recall", week).content   # the clock: nothing of its last week
        assert "empty_window" in [g["reason"] for g in today["gaps"]]
        block = T.call_tool(mem, "context", {"query": "what did I do last week?", "budget_tokens": 100},
                            now="2025-03-10").content["text"]
        assert "I ran 5 km" in block and "bike" not in block
        msg = T.run_openai_tool_call(mem, {"id": "c1", "function": {"name": "recall", "arguments": json.dumps(week)}},
                                     now="2025-03-10")
        assert [h["id"] for h in json.loads(msg["content"])["hits"]] == ["run"]
        bad = T.call_tool(mem, "recall", week, now="yesterday")
        assert bad.is_error and bad.text.startswith("InvalidInputError: now:")


def test_a_replayed_supersede_is_dated_at_the_call_and_a_note_said_too_late_says_so(tmp_path):
    """helper-226: the supersede tool dated its new version today, so every later note of the
    replay was older than it and stored already superseded, and remember said nothing of that."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        slot = {"subject": "user", "attribute": "employer"}
        a = json.loads(T.call_tool(mem, "remember", {"text": "I work at Acme.", **slot}, now="2024-06-01").text)["id"]
        b = json.loads(T.call_tool(mem, "supersede", {"old_id": a, "text": "I work at Initech."},
                                   now="2024-07-01").text)["id"]
        assert mem.get(b).created_at == 1719792000.0   # 2024-07-01
        c = json.loads(T.call_tool(mem, "remember", {"text": "I work at Globex.", **slot}, now="2024-08-01").text)
        assert "superseded_by" not in c and mem.current("user", "employer").id == c["id"]
        late = json.loads(T.call_tool(mem, "remember", {"text": "I work at Hooli.", **slot}, now="2023-01-01").text)
        assert late["superseded_by"] == c["id"] and mem.current("user", "employer").id == c["id"]


def test_a_replayed_note_is_recorded_at_the_call_so_as_of_reads_the_replay(tmp_path):
    """helper-228: a replay's notes were dated at their calls but recorded at the machine's
    clock, so recall as_of a replayed time found nothing, where the README says as_of asks a
    finished store what it held then. remember and supersede now record at the call's time (not
    one the clock has not reached, nor a new version before its old one's record)."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        def call(name, args, now=None):
            return json.loads(T.call_tool(mem, name, args, now=now).text)
        boston = call("remember", {"text": "I live in Boston."}, now="2026-01-05T10:00:00Z")["id"]
        cambridge = call("supersede", {"old_id": boston, "text": "I live in Cambridge, not Boston."},
                         now="2026-02-01T10:00:00Z")["id"]
        denver = call("remember", {"text": "I moved to Denver."}, now="2026-03-10T10:00:00Z")["id"]
        assert mem.get(denver).recorded_at == mem.get(denver).created_at == 1773136800.0
        assert mem.get(cambridge).recorded_at == 1769940000.0   # 2026-02-01T10:00Z
        ask = {"query": "where do I live?", "k": 3}
        assert [h["id"] for h in call("recall", {**ask, "as_of": "2026-01-20"})["hits"]] == [boston]
        assert [h["id"] for h in call("recall", {**ask, "as_of": "2026-02-15"})["hits"]] == [cambridge]
        assert [h["id"] for h in call("recall", {**ask, "as_of": "2026-04-01"})["hits"]][0] == denver
        # a time the clock has not reached is recorded at the clock; so is a version said
        # before its old one was recorded
        later = call("remember", {"text": "Dentist on 2 January 2099."}, now="2098-12-01")["id"]
        assert mem.get(later).recorded_at < mem.get(later).created_at
        now_note = call("remember", {"text": "My favourite tea is sencha."})["id"]
        early = call("supersede", {"old_id": now_note, "text": "My favourite tea is genmaicha."}, now="2026-01-01")["id"]
        assert mem.get(early).recorded_at >= mem.get(now_note).recorded_at
