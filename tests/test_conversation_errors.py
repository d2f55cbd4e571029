"""A bad chat message is named by its place (list index; the file line of JSONL, the index of a
JSON list in the CLI) and the field at fault, and nothing is stored; the CLI's summary counts
messages, pieces and entities."""
import json

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.errors import EmptyTextError, InvalidInputError, NonFiniteError
from engramdb.testing import store_digest

GOOD = [{"role": "user", "name": "Caroline", "content": "I went to the Lisbon support group yesterday."},
        {"role": "assistant", "content": "That sounds great. How was Lisbon?"}]

BAD = [  # (message at index 2, error class, field, start of the problem)
    ({"content": "no role"}, InvalidInputError, "role", "missing"),
    ({"role": "wizard", "content": "hi"}, InvalidInputError, "role", "must be one of"),
    ({"role": "user"}, InvalidInputError, "content", "missing"),
    ({"role": "user", "content": 42}, InvalidInputError, "content", "must be a string or a list of text parts, got int"),
    ({"role": "user", "content": "   "}, EmptyTextError, "content", "is empty"),
    ({"role": "user", "content": [{"type": "image"}]}, EmptyTextError, "content", "holds no text part"),
    ({"role": "user", "content": [{"type": "hologram"}]}, InvalidInputError, "content", "part 0 must be"),
    ({"role": "user", "content": "hi", "created_at": "next tuesday-ish"}, InvalidInputError, "created_at", "'next"),
    ({"role": "user", "content": "hi", "created_at": float("nan")}, NonFiniteError, "created_at", "expected a finite"),
    ({"role": "user", "content": "hi", "session": ["a"]}, InvalidInputError, "session", "must be"),
    ({"role": "user", "content": "hi", "name": ""}, InvalidInputError, "name", "must be a non-empty string"),
    ({"role": "user", "content": "hi", "mood": "happy"}, InvalidInputError, "mood", "unknown field"),
    ({"role": "user", "content": "a\ud800"}, InvalidInputError, "content", "is not valid UTF-8"),
    ({"role": "user", "content": "hi", "name": "a\ud800"}, InvalidInputError, "name", "must be a non-empty string"),
    ({"role": "user", "content": "hi", "session": "s\ud800"}, InvalidInputError, "session", "is not valid UTF-8"),
    ({"role": "user", "content": "hi", "session": "E:bob"}, InvalidInputError, "session", "'E:bob' would make"),
    ({"role": "user", "content": "hi", "session": "x:outcome"}, InvalidInputError, "session", "'x:outcome' would"),
]


@pytest.mark.parametrize("bad,cls,field,problem", BAD, ids=[f"{b[2]}-{i}" for i, b in enumerate(BAD)])
def test_a_bad_message_names_its_index_and_field_and_stores_nothing(tmp_store, bad, cls, field, problem):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(GOOD, namespace="u", session="s0")
        before = store_digest(eng)
        with pytest.raises(cls) as err:
            eng.add_conversation(GOOD + [bad], namespace="u", session="s1")
        assert str(err.value).startswith(f"messages[2]: {field}: {problem}")
        assert (err.value.message_index, err.value.field) == (2, field)
        assert store_digest(eng) == before


def test_a_message_that_is_not_a_mapping_names_its_index(tmp_store):
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(InvalidInputError, match=r"^messages\[1\]: expected a mapping") as err:
            eng.add_conversation([GOOD[0], "hello"], namespace="u")
        assert (err.value.message_index, err.value.field) == (1, None)
        assert eng.stats()["memories"] == 0


def test_a_message_too_long_to_store_names_its_index(tmp_path):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(max_text_chars=200))
    with engramdb.open(tmp_path / "s", dim=64, config=cfg) as eng:
        with pytest.raises(engramdb.OversizeError) as err:
            eng.add_conversation(GOOD + [{"role": "user", "content": "word " * 100}], namespace="u")
        assert str(err.value).startswith("messages[2]: content: ")
        assert (err.value.message_index, err.value.field) == (2, "content")
        assert eng.stats()["memories"] == 0


def _ingest(store, path):
    return CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", str(path)])


def test_cli_names_the_line_of_a_jsonl_message_and_leaves_the_store_unchanged(tmp_path):
    store, good = tmp_path / "s", tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps(m) for m in GOOD) + "\n")
    assert _ingest(store, good).exit_code == 0
    with engramdb.open(store) as eng:
        before = store_digest(eng)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(GOOD[0]) + "\n\n" + json.dumps({"content": "who said this?"}) + "\n")
    res = _ingest(store, bad)
    assert res.exit_code == 2
    assert f"{bad}:3: role: missing" in res.output and "messages[1]" not in res.output
    with engramdb.open(store) as eng:
        assert store_digest(eng) == before


def test_cli_names_the_index_of_a_json_list_message(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([GOOD[0], {"role": "user", "content": {"text": "not a string"}}]))
    res = _ingest(tmp_path / "s", path)
    assert res.exit_code == 2
    assert f"{path}[1]: content: must be a string or a list of text parts, got dict" in res.output
    path.write_text(json.dumps([GOOD[0], ["not", "an", "object"]]))
    res = _ingest(tmp_path / "s", path)
    assert res.exit_code == 2 and f"{path}[1]: expected a message object, got list" in res.output


def test_cli_names_the_message_of_an_openai_messages_file(tmp_path):
    path = tmp_path / "ft.jsonl"
    path.write_text(json.dumps({"messages": GOOD}) + "\n"
                    + json.dumps({"messages": [GOOD[0], {"role": "user", "content": "x", "created_at": "soon"}]}) + "\n")
    res = _ingest(tmp_path / "s", path)
    assert res.exit_code == 2 and f"{path}:2: messages[1]: created_at: 'soon'" in res.output


def test_cli_summary_counts_messages_pieces_and_entities(tmp_path):
    answer = "\n\n".join(f"- Step {i}: configure the Quellwerk retry policy with backoff for the Porto carrier API, "
                         "then log each attempt and check the dashboard." for i in range(12))
    chat = [{"role": "user", "content": "How do I set up retries for Quellwerk in Porto?"},
            {"role": "assistant", "content": answer},
            {"role": "user", "content": "Thanks, Quellwerk works in Porto now."}]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in chat) + "\n")
    res = _ingest(tmp_path / "s", path)
    assert res.exit_code == 0, res.output
    with engramdb.open(tmp_path / "s") as eng:
        pieces = eng.stats()["pieces"]
        entities = len(eng.query(namespace="u", tags=["entity"], limit=100))
        memories = eng.stats()["memories"]
    assert pieces == 12 and entities >= 2
    assert (f"ingested 3 new messages in 1 session: {memories} memories (3 messages, 1 new session node, "
            f"{entities} new entities) and {pieces} "
            "pieces of long messages,") in res.output


@pytest.mark.parametrize("kwargs,problem", [
    ({"session": ""}, "add_conversation: session: must be a non-empty string"),
    ({"session": ["a"]}, "add_conversation: session: must be a non-empty string"),
    ({"session": True}, "add_conversation: session: must be a non-empty string"),
    ({"session": "S:chat"}, "add_conversation: session: 'S:chat' would make message ids"),
    ({"split_roles": "assistant"}, "split_roles: expected a list"),
    ({"session": "s9", "session_titles": {"s9": "\u200b"}}, "session_titles['s9']: expected a non-empty"),
    ({"keep_roles": ["bob"]}, "keep_roles: 'bob' is not a role"),
])
def test_bad_arguments_of_add_conversation_are_refused(tmp_store, kwargs, problem):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(GOOD, namespace="u", session="s0")
        before = store_digest(eng)
        with pytest.raises(InvalidInputError) as err:
            eng.add_conversation(GOOD, namespace="u", **kwargs)
        assert str(err.value).startswith(problem)
        assert store_digest(eng) == before


def test_a_given_id_the_namespace_holds_with_another_text_names_its_message(tmp_store):
    with engramdb.open(tmp_store) as eng:
        eng.add("A memo about the Lisbon group.", id="p", namespace="u")
        before = store_digest(eng)
        with pytest.raises(InvalidInputError) as err:
            eng.add_conversation([{"role": "user", "content": "a"}, {"role": "user", "content": "b", "id": "p"}],
                                 namespace="u")
        assert str(err.value).startswith("messages[1]: id: 'p' already exists")
        assert (err.value.message_index, err.value.field) == (1, "id")
        assert store_digest(eng) == before


@pytest.mark.parametrize("suffix", ["jsonl", "json"])
def test_cli_reads_a_chat_file_that_opens_with_a_byte_order_mark(tmp_path, suffix):
    path = tmp_path / f"chat.{suffix}"
    body = "\n".join(json.dumps(m) for m in GOOD) if suffix == "jsonl" else json.dumps(GOOD)
    path.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))   # as Windows editors save UTF-8
    res = _ingest(tmp_path / "s", path)
    assert res.exit_code == 0, res.output
    assert "ingested 2 new messages in 1 session" in res.output
    with engramdb.open(tmp_path / "s") as eng:
        assert eng.get(eng.query(namespace="u", tags=["user"], limit=5)[0].id, namespace="u").text.startswith(
            "Caroline: I went to the Lisbon")


def test_a_dry_run_checks_against_the_store_and_writes_nothing(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("Some stored note about the garden.", id="taken", namespace="u")
        before = store_digest(eng)
        got = eng.add_conversation(GOOD, namespace="u", dry_run=True)
        assert len(got["message_ids"]) == len(GOOD) and got["edges"] == 0 and got["memories"] >= len(GOOD)
        assert store_digest(eng) == before
        with pytest.raises(InvalidInputError, match=r"messages\[0\]: id: 'taken' already exists"):
            eng.add_conversation([{"role": "user", "content": "other words", "id": "taken"}], namespace="u",
                                 dry_run=True)
        with pytest.raises(InvalidInputError, match="dry_run must be True or False"):
            eng.add_conversation(GOOD, namespace="u", dry_run="no")
        assert store_digest(eng) == before
        assert eng.add_conversation(GOOD, namespace="u")["message_ids"] == got["message_ids"]


def _conversation_lines(*conversations) -> str:
    return "".join(json.dumps({"messages": c}) + "\n" for c in conversations)


@pytest.mark.parametrize("case", ["stored_id", "censored", "one_id_two_messages"])
def test_cli_a_file_of_several_conversations_that_the_store_refuses_stores_nothing(tmp_path, case):
    """helper104: a file of OpenAI {"messages": [...]} lines was checked message by message, then
    stored one conversation at a time, so a refusal only the write finds (an id stored with
    another text, an absolute censor rule, one id for two messages of the file) came after the
    first conversation was written. Every conversation is now checked against the store first."""
    store, path = tmp_path / "s", tmp_path / "ft.jsonl"
    first = [{"role": "user", "content": "conv A first message about cats"}]
    second = {"stored_id": [{"role": "user", "content": "conv B other words", "id": "taken"}],
              "censored": [{"role": "user", "content": "conv B has secretword inside"}],
              "one_id_two_messages": [{"role": "user", "content": "conv B other words", "id": "mine"}]}[case]
    if case == "one_id_two_messages":
        first = [{**first[0], "id": "mine"}]
    with engramdb.open(store, embedder="hashing") as eng:
        eng.add("Some stored note about the garden.", id="taken", namespace="u")
        if case == "censored":
            eng.censor(pattern="secretword", action="absolute", reason="test")
    with engramdb.open(store, embedder="hashing") as eng:
        before = store_digest(eng)
    path.write_text(_conversation_lines(first, second))
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", "--embedder", "hashing", str(path)])
    assert res.exit_code == 2, res.output
    assert f"{path}:2" in res.output
    if case == "one_id_two_messages":
        assert f"names another message at {path}:1: messages[0]" in res.output
    with engramdb.open(store, embedder="hashing") as eng:
        assert store_digest(eng) == before


def test_cli_dry_run_stores_nothing_and_says_what_it_would_store(tmp_path):
    store, path = tmp_path / "s", tmp_path / "ft.jsonl"
    path.write_text(_conversation_lines(GOOD, [{"role": "user", "content": "conv B about the garden"}]))
    with engramdb.open(store, embedder="hashing") as eng:
        eng.add("Some stored note.", namespace="u")
    with engramdb.open(store, embedder="hashing") as eng:
        before = store_digest(eng)
    args = ["ingest-chat", "--store", str(store), "-n", "u", "--embedder", "hashing", str(path)]
    res = CliRunner().invoke(main, args + ["--dry-run"])
    assert res.exit_code == 0, res.output
    assert f"checked: would ingest {len(GOOD) + 1} new messages" in res.output and "nothing stored" in res.output
    with engramdb.open(store, embedder="hashing") as eng:
        assert store_digest(eng) == before
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0 and f"ingested {len(GOOD) + 1} new messages" in res.output, res.output


def test_cli_dry_run_on_a_new_path_leaves_no_store(tmp_path):
    """helper108: --dry-run on a new directory made a store there, its embedder fixed, so a real
    run with another embedder was refused."""
    store, path = tmp_path / "nope" / "s", tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in GOOD))
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", str(path), "--dry-run"])
    assert res.exit_code == 0 and "nothing stored" in res.output, res.output
    assert not store.exists()
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", "--embedder", "hashing", str(path)])
    assert res.exit_code == 0 and f"ingested {len(GOOD)} new messages" in res.output, res.output
