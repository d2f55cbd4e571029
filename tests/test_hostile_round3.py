"""Hostile input found by the third hostile pass: ids too long for LMDB's keys, tool arguments
nested past the JSON parser's depth, a wrongly typed ``session_titles``, and the ``weight`` of
OpenAI fine-tuning files. Each is refused with a clear error (or accepted), the store unchanged."""
import json

import pytest

import engramdb
from engramdb.errors import InvalidInputError
from engramdb.integrations.tools import call_tool
from engramdb.testing import store_digest


@pytest.fixture
def eng(tmp_store):
    e = engramdb.open(tmp_store, embedder="hashing")
    e.add("kept as it is", id="k")
    yield e
    e.close()


@pytest.mark.parametrize("call", [
    lambda e: e.add("x", id="a" * 505),                                  # 512 bytes with "default"
    lambda e: e.add("x", id="字" * 200),                                 # 200 characters, 600 bytes
    lambda e: e.add("x", id="b" * 300, namespace="n" * 256),
    lambda e: e.add_batch([{"text": "fine"}, {"text": "x", "id": "c" * 511}]),
    lambda e: e.add_conversation([{"role": "user", "content": "hi"}], session="s" * 508),
    lambda e: e.get("a" * 505),
])
def test_ids_too_long_for_an_lmdb_key_are_refused_clearly(eng, call):
    """Ids and namespaces are limited in characters, LMDB keys to 511 bytes: an id that passed
    the checks failed inside LMDB with MDB_BAD_VALSIZE (a StoreError)."""
    before = store_digest(eng)
    with pytest.raises(InvalidInputError, match="too long for namespace"):
        call(eng)
    assert store_digest(eng) == before


def test_add_batch_names_the_item_whose_id_is_too_long(eng):
    with pytest.raises(InvalidInputError, match=r"^items\[1\]: id .* too long") as err:
        eng.add_batch([{"text": "fine"}, {"text": "x", "id": "c" * 511}])
    assert err.value.item_index == 1


def test_an_id_at_the_key_limit_is_stored_and_found(eng):
    mid = "d" * (510 - len("default".encode()) - 1)
    eng.add("at the limit", id=mid)
    assert eng.get(mid).text == "at the limit"


@pytest.mark.parametrize("arguments", ["[" * 100_000, '{"query": ' + "[" * 100_000 + "]" * 100_000 + "}"])
def test_tool_arguments_nested_too_deeply_are_an_error_result(eng, arguments):
    """json.loads raised RecursionError, which went through the tool dispatcher to the agent loop."""
    result = call_tool(eng, "recall", arguments)
    assert result.is_error and "not valid JSON" in result.content["error"]["message"]


@pytest.mark.parametrize("titles", [["t"], "title", 5, [("a", "b", "c")]])
def test_session_titles_of_the_wrong_type_are_a_clear_error(eng, titles):
    before = store_digest(eng)
    with pytest.raises(InvalidInputError, match="session_titles: expected a mapping"):
        eng.add_conversation([{"role": "user", "content": "hi"}], session="s", session_titles=titles)
    assert store_digest(eng) == before


def test_fine_tuning_files_with_message_weights_are_read(eng, tmp_path):
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "My cat is Miso."},
            {"role": "assistant", "content": "Nice name.", "weight": 1}]
    out = eng.add_conversation(msgs, namespace="u", session="s")
    assert out["message_ids"] == ["s:1", "s:2"]
    path = tmp_path / "ft.jsonl"
    path.write_text(json.dumps({"messages": msgs}) + "\n")
    from click.testing import CliRunner
    from engramdb.cli import main
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(tmp_path / "st"), str(path)])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("docs", [1, 2])
def test_ingest_chat_session_applies_to_openai_messages_files(tmp_path, docs):
    """``ingest-chat --session S`` of a ``{"messages": [...]}`` file stored the chat under
    ``<file stem>-<line>``: the option was silently ignored (hostile pass)."""
    from click.testing import CliRunner
    from engramdb.cli import main
    path = tmp_path / "oa.jsonl"
    path.write_text("\n".join(json.dumps({"messages": [{"role": "user", "content": f"Chat {i}: my cat is Miso."}]})
                              for i in range(docs)) + "\n")
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(tmp_path / "st"), "--session", "trip", str(path)])
    assert res.exit_code == 0, res.output
    with engramdb.open(tmp_path / "st") as e:
        ids = sorted(m.id for m in e.query(limit=100))   # (session and entity nodes: listed when asked for)
        sessions = sorted(m.id for m in e.query(tags="session", limit=100))
    assert ids == (["trip:1"] if docs == 1 else ["trip-1:1", "trip-2:1"])
    assert sessions == (["S:trip"] if docs == 1 else ["S:trip-1", "S:trip-2"])


def test_query_as_of_shows_the_wording_then_as_recall_does(tmp_store):
    """recall(as_of=T) gave the wording at T, query(as_of=T) (and ``query --as-of``) today's."""
    import time
    with engramdb.open(tmp_store, embedder="hashing") as e:
        e.add("The wifi password is hunter2.", id="w")
        t = time.time()
        time.sleep(0.01)
        e.update("w", text="The wifi password is swordfish.")
        then = e.query(as_of=t)
        assert [m.text for m in then] == ["The wifi password is hunter2."]
        assert [m.text for m in e.query()] == ["The wifi password is swordfish."]
        assert e.recall("wifi password", as_of=t, k=1).hits[0].text == then[0].text


def test_rescore_of_a_namespace_the_store_never_held_is_an_error(tmp_store):
    """rescore(namespace="user-24") for "user-42" reported "scanned 0" and succeeded: a typo in a
    maintenance job looked like success (consolidate and recall already refused it)."""
    from engramdb.errors import NamespaceError
    with engramdb.open(tmp_store, embedder="hashing") as e:
        e.add("a memory", namespace="user-42")
        with pytest.raises(NamespaceError, match="user-24"):
            e.rescore(namespace="user-24")
        assert e.rescore(namespace="user-42")["scanned"] == 1
        assert e.rescore(namespace="default")["scanned"] == 0   # the default namespace is always there


def test_an_assistant_refusal_is_stored_as_what_it_said(eng):
    """OpenAI's SDK dumps a refusal as ``content: null`` with the text in ``refusal``: the whole
    chat was refused as "content: missing" (hostile pass)."""
    msgs = [{"role": "user", "content": "How do I pick a lock?"},
            {"role": "assistant", "content": None, "refusal": "I can't help with that."},
            {"role": "user", "content": "Fine, how do I call a locksmith?"}]
    out = eng.add_conversation(msgs, namespace="u", session="s")
    assert out["message_ids"] == ["s:1", "s:2", "s:3"]
    assert eng.get("s:2", namespace="u").text == "assistant: I can't help with that."
