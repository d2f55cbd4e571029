"""add_conversation: the conversation graph of any chat, bad messages, long answers split, CLI ingest-chat."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.conversation import split_blocks
from engramdb.errors import EmptyTextError, InvalidInputError, MemoryNotFoundError, NamespaceError
from engramdb.testing import store_digest
from engramdb.types import MemoryKind, MemoryState, Relation

LONG_ANSWER = (
    "Here is how to set up the backup job for your Postgres server.\n\n"
    "- Install pgbackrest from the distribution packages and check its version.\n"
    "- Create the stanza named nightly with the repository on the NAS volume.\n"
    "- Schedule the full backup on Sunday at 02:00 with a systemd timer unit.\n\n"
    "```bash\npgbackrest --stanza=nightly --type=full backup\npgbackrest --stanza=nightly check\n```\n\n"
    "Finally, test a restore into a scratch container every month so you know the archive works."
)

CHAT = [
    {"role": "user", "content": "I adopted a beagle called Biscuit in Portland last spring.",
     "created_at": "2024-05-01T10:00:00", "session": "s1"},
    {"role": "assistant", "content": "Congratulations on Biscuit! Beagles love long walks.",
     "created_at": "2024-05-01T10:00:05"},
    {"role": "user", "content": "How do I back up my Postgres server?", "created_at": "2024-06-02T09:00:00",
     "session": "s2"},
    {"role": "assistant", "content": LONG_ANSWER, "created_at": "2024-06-02T09:00:10"},
    {"role": "user", "content": "Biscuit chewed my Portland map today.", "created_at": "2024-06-02T09:05:00"},
]


def _rels(eng, mid, ns="u"):
    return {(e.target, e.relation) for e in eng.edges(mid, namespace=ns)}


def _blocks(eng, mid, ns="u"):
    """The blocks of message ``mid`` (the pieces ``extracted_from`` it), in order; query() lists
    a message once, whole, not its pieces."""
    ids = {e.source for e in eng.edges(mid, namespace=ns)
           if e.relation is Relation.EXTRACTED_FROM and e.target == mid and e.source.startswith(f"{mid}#p")}
    return sorted((eng.get(i, namespace=ns) for i in ids), key=lambda m: m.chunk)


def test_conversation_graph(tmp_store):
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation(CHAT, namespace="u", split_chars=300)
        assert out["message_ids"] == ["s1:1", "s1:2", "s2:1", "s2:2", "s2:3"]
        assert out["sessions"] == ["S:s1", "S:s2"]
        m = eng.get("s1:1", namespace="u")
        assert m.text == "user: " + CHAT[0]["content"]
        assert m.kind is MemoryKind.EPISODIC and set(m.tags) == {"user"}
        assert m.created_at == engramdb.to_unix_seconds("2024-05-01T10:00:00")
        assert set(eng.get("s1:2", namespace="u").tags) == {"assistant"}
        assert ("S:s1", Relation.DISCUSSED_IN) in _rels(eng, "s1:1")
        assert ("s1:2", Relation.NEXT) in _rels(eng, "s1:1")
        assert ("S:s2", Relation.NEXT) in _rels(eng, "S:s1")
        assert ("s2:1", Relation.NEXT) not in _rels(eng, "s1:2")    # sessions are not chained turn to turn
        session = eng.get("S:s2", namespace="u")
        assert "session" in session.tags and "user and assistant" in session.text
        # entities named by two messages become nodes with mentions edges
        assert eng.get("E:biscuit", namespace="u").kind is MemoryKind.SEMANTIC
        assert ("E:biscuit", Relation.MENTIONS) in _rels(eng, "s1:1")
        assert ("E:portland", Relation.MENTIONS) in _rels(eng, "s2:3")
        # the long answer is split into pieces linked to their message
        pieces = _blocks(eng, "s2:2")
        assert len(pieces) >= 3 and all(p.chunk_of == "s2:2" and "piece" not in p.tags for p in pieces)
        assert not eng.query(namespace="u", tags=["piece"])   # listed as their message, whole
        assert all(("s2:2", Relation.EXTRACTED_FROM) in _rels(eng, p.id) for p in pieces)
        assert any("stanza named nightly" in p.text and "systemd" not in p.text for p in pieces)


def test_piece_is_findable_and_reaches_its_message(tmp_store):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u", split_chars=300)
        hits = eng.recall("when is the full backup scheduled systemd timer", namespace="u", k=5).hits
        # the block is a piece of its message: the message answers once, at that block
        assert hits[0].id == "s2:2" and "systemd timer" in hits[0].text and "pgbackrest" not in hits[0].text
        assert eng.get(f"s2:2#p{hits[0].chunk}", namespace="u").text == hits[0].text
        assert [h.id for h in hits].count("s2:2") == 1 and not any("#" in h.id for h in hits)


def test_second_call_links_known_entities_and_rejects_repeated_ids(tmp_store):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u", split_chars=300)
        eng.add_conversation([{"role": "user", "content": "My dog Biscuit is sick today.", "session": "s3"}], namespace="u")
        assert ("E:biscuit", Relation.MENTIONS) in _rels(eng, "s3:1")
        before = store_digest(eng)
        with pytest.raises(InvalidInputError, match="already exists"):   # an id given again
            eng.add_conversation([{"role": "user", "content": "again", "session": "s3", "id": "s3:1"}],
                                 namespace="u")
        assert store_digest(eng) == before


@pytest.mark.parametrize("messages, error", [
    ([{"content": "no role"}], InvalidInputError),
    ([{"role": "user", "content": "   "}], EmptyTextError),
    ([{"role": "user", "content": "hi", "contents": "typo"}], InvalidInputError),
    ([{"role": "user", "content": "hi", "created_at": "not a time"}], InvalidInputError),
    ([{"role": "user", "content": "a", "id": "x"}, {"role": "user", "content": "b", "id": "x"}], InvalidInputError),
    ([{"role": "user", "content": 42}], InvalidInputError),
    ([{"role": "user", "content": "hi", "session": ""}], InvalidInputError),
    ([], InvalidInputError),
    ({"role": "user", "content": "a mapping, not a list"}, InvalidInputError),
    (["just a string"], InvalidInputError),
])
def test_bad_messages_leave_the_store_unchanged(tmp_store, messages, error):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT[:2], namespace="u")
        before = store_digest(eng)
        with pytest.raises(error):
            eng.add_conversation(messages, namespace="u")
        with pytest.raises(NamespaceError):
            eng.add_conversation(CHAT, namespace="")
        assert store_digest(eng) == before


def test_openai_content_parts_and_defaults(tmp_store):
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation([{"role": "user", "content": [{"type": "text", "text": "part one"}, "part two"]},
                                    {"role": "assistant", "content": "ok", "name": "Ada"}],
                                   namespace="u", session="chat")
        assert out["message_ids"] == ["chat:1", "chat:2"]
        assert eng.get("chat:1", namespace="u").text == "user: part one\npart two"
        a, b = (eng.get(i, namespace="u") for i in out["message_ids"])
        assert b.text == "Ada: ok" and set(b.tags) == {"Ada", "assistant"}
        assert b.created_at > a.created_at


def test_split_blocks():
    blocks = split_blocks(LONG_ANSWER)
    assert any(b.startswith("```bash") and b.rstrip().endswith("```") for b in blocks)
    assert sum(b.lstrip().startswith("- ") for b in blocks) >= 2
    assert "".join(blocks).replace("\n", "") .replace(" ", "") == LONG_ANSWER.replace("\n", "").replace(" ", "")
    assert split_blocks("short") == ["short"]


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_cli_ingest_chat(tmp_path, fmt):
    path = tmp_path / f"chat.{fmt}"
    if fmt == "jsonl":
        path.write_text("\n".join(json.dumps(m) for m in CHAT) + "\n")
    else:
        path.write_text(json.dumps(CHAT))
    store = tmp_path / "s"
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "--namespace", "u", str(path)])
    assert res.exit_code == 0, res.output
    assert "ingested 5 new messages in 2 sessions" in res.output
    with engramdb.open(store) as eng:
        assert eng.get("s2:1", namespace="u").text.startswith("user: How do I back up")


WEEKS = [  # an unlabelled chat of two sittings a week apart (helper-201: one session across five weeks)
    {"role": "user", "content": "I moved to Leeds last month.", "created_at": "2025-03-01T09:00:00Z"},
    {"role": "assistant", "content": "Nice! How are you finding it?", "created_at": "2025-03-01T09:00:05Z"},
    {"role": "user", "content": "I started at Northwind today.", "created_at": "2025-03-08T10:00:00Z"},
    {"role": "assistant", "content": "Congratulations on the new job!", "created_at": "2025-03-08T10:00:04Z"},
    {"role": "user", "content": "Ran 5 km after work, too.", "created_at": "2025-03-08T10:29:00Z"},
]


def test_a_pause_in_an_unlabelled_chat_opens_a_new_session(tmp_store):
    """Messages that name no session, in a call that names none, open a new session after a pause
    longer than ``session_gap`` (30 minutes): two sittings a week apart are two sessions, each
    with its date, linked ``next``; a pause within the gap stays in the session."""
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation(WEEKS, namespace="u")
        first, second = "S:chat-1740819600", "S:chat-1741428000"
        assert out["sessions"] == [first, second]
        assert out["message_ids"] == ["chat-1740819600:1", "chat-1740819600:2", "chat-1741428000:1",
                                      "chat-1741428000:2", "chat-1741428000:3"]
        assert eng.get(first, namespace="u").text == "Session of user and assistant, 1 March 2025"
        assert eng.get(second, namespace="u").text == "Session of user and assistant, 8 March 2025"
        assert (second, Relation.NEXT) in _rels(eng, first)
        assert (second, Relation.DISCUSSED_IN) in _rels(eng, "chat-1741428000:3")
        again = eng.add_conversation(WEEKS, namespace="u")   # the same chat sent again: nothing new
        assert again["already_stored"] == 5 and again["message_ids"] == [] and again["sessions"] == []
        later = eng.add_conversation(WEEKS + [{"role": "user", "content": "Back from Porto.",
                                               "created_at": "2025-03-20T18:00:00Z"}], namespace="u")
        assert later["already_stored"] == 5 and later["sessions"] == ["S:chat-1742493600"]
        assert (later["sessions"][0], Relation.NEXT) in _rels(eng, second)


def test_a_resent_chat_keeps_its_later_sittings_erased_and_edited(tmp_store):
    """helper-202: erasing a whole later sitting, then sending the chat again, stored that
    sitting again under a new session; and an edit of a later sitting's first message went to a
    new session beside the old wording instead of replacing it. An earlier sitting that lines up
    with the store says the chat is sent again: each later sitting is its stored session."""
    second = "chat-1741428000"
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(WEEKS, namespace="u")
        for i in (1, 2, 3):
            eng.forget(f"{second}:{i}", namespace="u", hard=True)
        again = eng.add_conversation(WEEKS, namespace="u")
        assert again["message_ids"] == [] and again["already_stored"] == 5
        assert sorted(m.id for m in eng.query(namespace="u") if "session" not in m.tags) == [
            "chat-1740819600:1", "chat-1740819600:2"]
    with engramdb.open(tmp_store.with_name("edited")) as eng:
        eng.add_conversation(WEEKS, namespace="u")
        edited = [dict(m) for m in WEEKS]
        edited[2]["content"] = "I started at Northwind Health today."
        out = eng.add_conversation(edited, namespace="u")
        assert out["sessions"] == [f"S:{second}"] and out["superseded"] == [f"{second}:1"]
        assert eng.get(f"{second}:1", namespace="u").state is MemoryState.SUPERSEDED


def test_an_edit_of_an_unlabelled_chats_first_message_replaces_it(tmp_store):
    """helper-203: editing the first message of a chat stored without a label made a second
    session "chat-<t>-2" holding the edit, both wordings active. The messages after it, the same
    words at the same times, say it is the same chat."""
    msgs = [{"role": "user", "content": "Hi, I'm Maya! I just set you up.", "created_at": "2025-03-03T19:00:00Z"},
            {"role": "assistant", "content": "Nice to meet you, Maya!", "created_at": "2025-03-03T19:00:05Z"},
            {"role": "user", "content": "I live in Chicago.", "created_at": "2025-03-03T19:01:00Z"}]
    with engramdb.open(tmp_store) as eng:
        (sid,) = eng.add_conversation(msgs, namespace="u")["sessions"]
        edited = [dict(msgs[0], content="Hi, I'm Maya! I just set you up as my assistant."), *msgs[1:]]
        out = eng.add_conversation(edited, namespace="u")
        assert out["sessions"] == [sid] and out["already_stored"] == 2 and out["superseded"] == [sid[2:] + ":1"]
        assert eng.get(sid[2:] + ":1", namespace="u").state is MemoryState.SUPERSEDED
        # another chat that opens at the same second is no edit of it
        other = [dict(m, content=f"Other chat: {m['content']}") for m in msgs]
        assert eng.add_conversation(other, namespace="u")["sessions"] == [sid + "-2"]


def test_a_message_dated_back_stays_in_its_sitting(tmp_store):
    """helper-202: with times out of order, a pause was measured from the message before, so a
    message 50 s after the newest one opened a session of its own."""
    msgs = [{"role": "user", "content": c, "created_at": t} for c, t in
            (("First sitting.", 1_000_000), ("Second sitting opens.", 1_010_000),
             ("A note dated back to the first.", 1_000_100), ("Second sitting goes on.", 1_010_050))]
    with engramdb.open(tmp_store) as eng:
        assert eng.add_conversation(msgs, namespace="u")["sessions"] == ["S:chat-1000000", "S:chat-1010000"]


@pytest.mark.parametrize("gap", [3600, 3600.0, "numpy", "timedelta"])
def test_a_session_gap_is_a_number_of_seconds_or_a_timedelta(tmp_store, gap):
    import datetime

    import numpy as np

    gap = {"numpy": np.int64(3600), "timedelta": datetime.timedelta(hours=1)}.get(gap, gap)
    with engramdb.open(tmp_store) as eng:
        assert len(eng.add_conversation(WEEKS, namespace="u", session_gap=gap)["sessions"]) == 2


@pytest.mark.parametrize("kwargs, labelled, sessions", [
    ({"session_gap": None}, False, 1),                 # never split
    ({"session_gap": 8 * 86400.0}, False, 1),          # a pause of a week is within 8 days
    ({"session_gap": 60.0}, False, 3),                 # 29 minutes is more than a minute
    ({"session": "mine"}, False, 1),                   # the caller's label holds every message
    ({}, True, 1),                                     # the messages' own label, then theirs
])
def test_a_labelled_chat_or_no_gap_keeps_its_sessions(tmp_store, kwargs, labelled, sessions):
    msgs = [dict(m, session="talk") if labelled and i == 0 else m for i, m in enumerate(WEEKS)]
    with engramdb.open(tmp_store) as eng:
        assert len(eng.add_conversation(msgs, namespace="u", **kwargs)["sessions"]) == sessions


def test_messages_without_times_are_one_session(tmp_store):
    msgs = [{"role": m["role"], "content": m["content"]} for m in WEEKS]
    with engramdb.open(tmp_store) as eng:
        assert len(eng.add_conversation(msgs, namespace="u")["sessions"]) == 1


@pytest.mark.parametrize("gap", [0, -5.0, float("inf"), float("nan"), True, "30m", 10**400])
def test_a_bad_session_gap_is_refused(tmp_store, gap):
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(InvalidInputError, match="session_gap"):
            eng.add_conversation(WEEKS, namespace="u", session_gap=gap)
        assert eng.stats()["memories"] == 0


@pytest.mark.parametrize("args, sessions", [([], 2), (["--session-gap", "0"], 1), (["--session-gap", "60"], 3),
                                            (["--session-gap", "nan"], None), (["--session-gap", "inf"], None)])
def test_cli_ingest_chat_session_gap(tmp_path, args, sessions):
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in WEEKS) + "\n")
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(tmp_path / "s"), *args, str(path)])
    if sessions is None:   # a usage error that names the option
        assert res.exit_code == 2 and "--session-gap" in res.output, res.output
        return
    assert res.exit_code == 0, res.output
    assert f"ingested 5 new messages in {sessions} session" in res.output


def test_cli_ingest_chat_bad_file(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text('[{"role": "user"}]')
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(tmp_path / "s"), str(path)])
    assert res.exit_code != 0 and "InvalidInputError" in res.output


def test_messages_join_a_stored_session_turn_by_turn(tmp_store):
    """An agent that stores a chat as it goes: each call adds the new turns to the session, numbered
    on, the first new one following the last stored one."""
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u")
        out = eng.add_conversation([{"role": "user", "content": "Biscuit learned to sit today.",
                                     "created_at": "2024-06-02T09:10:00", "session": "s2"},
                                    {"role": "assistant", "content": "Good dog, Biscuit!",
                                     "created_at": "2024-06-02T09:10:05", "session": "s2"}], namespace="u")
        assert out["message_ids"] == ["s2:4", "s2:5"]
        assert out["sessions"] == ["S:s2"]
        assert ("s2:4", Relation.NEXT) in _rels(eng, "s2:3")
        assert ("s2:5", Relation.NEXT) in _rels(eng, "s2:4")
        assert ("S:s2", Relation.DISCUSSED_IN) in _rels(eng, "s2:5")
        assert len(eng.query(namespace="u", tags=["session"])) == 2   # no second node for s2


def test_chats_without_a_label_never_share_a_session(tmp_store):
    with engramdb.open(tmp_store) as eng:
        a = eng.add_conversation([{"role": "user", "content": "first chat", "created_at": 1_700_000_000}],
                                 namespace="u")
        b = eng.add_conversation([{"role": "user", "content": "second chat", "created_at": 1_700_000_000}],
                                 namespace="u")
    assert a["sessions"] != b["sessions"] and a["message_ids"] != b["message_ids"]


def test_tool_call_turns_without_text_are_left_out(tmp_store):
    chat = [{"role": "user", "content": "What's the weather in Oslo?"},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Oslo: 3 degrees, snow"},
            {"role": "assistant", "content": "It is 3 degrees and snowing in Oslo."}]
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation(chat, namespace="u", session="w")
        assert out["message_ids"] == ["w:1", "w:2"]   # the tool result is left out too
        assert out["left_out"] == 2   # the call-only turn counted too (it was not; new-user pass)
        assert eng.get("w:2", namespace="u").text == "assistant: It is 3 degrees and snowing in Oslo."
        kept = eng.add_conversation(chat, namespace="u", session="w2", keep_roles=["tool"])
        assert kept["message_ids"] == ["w2:1", "w2:2", "w2:3"] and kept["left_out"] == 1


def test_the_recall_tools_results_are_no_memories_and_do_not_outlive_an_erasure(tmp_store):
    """The README's tool loop puts the recall tool's result (stored memories as JSON) in the
    history; sent again, it was stored as a memory, and after forget(hard=True) of the memory it
    quoted, recall still found the erased text in it (fresh-user pass)."""
    from engramdb.integrations.tools import call_tool

    with engramdb.open(tmp_store) as eng:
        msgs = [{"role": "user", "content": "I'm allergic to shellfish."}]
        eng.add_conversation(msgs, namespace="u", session="chat")
        result = call_tool(eng, "recall", {"query": "shellfish"}, namespace="u")
        msgs += [{"role": "assistant", "content": None, "tool_calls": [
                     {"id": "c1", "type": "function", "function": {"name": "recall", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": "c1", "content": result.text},
                 {"role": "assistant", "content": "Noted: no shellfish."}]
        eng.add_conversation(msgs, namespace="u", session="chat")
        eng.forget("chat:1", namespace="u", hard=True)
        assert not any("allergic" in h.text for h in eng.recall("shellfish allergy", namespace="u", k=10).hits)


@pytest.mark.parametrize("empty", ["", "  \n", [], None])
@pytest.mark.parametrize("call", ["tool_calls", "function_call"])
def test_a_tool_call_turn_with_empty_text_is_left_out_too(tmp_store, empty, call):
    # clients other than OpenAI's send "" (or blank text, or no parts) beside the calls; the
    # whole chat used to be refused (EmptyTextError) for one such turn
    calls = ([{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]
             if call == "tool_calls" else {"name": "w", "arguments": "{}"})
    chat = [{"role": "user", "content": "What's the weather in Oslo?"},
            {"role": "assistant", "content": empty, call: calls},
            {"role": "assistant", "content": "It is 3 degrees and snowing in Oslo."}]
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation(chat, namespace="u", session="w")
        assert out["message_ids"] == ["w:1", "w:2"]
        assert eng.get("w:2", namespace="u").text.endswith("It is 3 degrees and snowing in Oslo.")
        with pytest.raises(EmptyTextError, match=r"^messages\[1\]: content: is empty"):
            eng.add_conversation([chat[0], {"role": "assistant", "content": "  "}], namespace="u", session="x")


@pytest.mark.parametrize("bad", [5, 3.5, object()])
def test_a_non_list_is_a_clear_error(tmp_store, bad):
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(InvalidInputError, match="expected a list of message mappings"):
            eng.add_conversation(bad, namespace="u")


def test_errors_name_the_list_index_and_the_field(tmp_store):
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(EmptyTextError, match=r"^messages\[1\]: content: is empty") as err:
            eng.add_conversation([{"role": "user", "content": "hi"}, {"role": "user", "content": "  "}],
                                 namespace="u")
    assert (err.value.message_index, err.value.field) == (1, "content")


def test_roles_are_openai_roles_and_instructions_are_left_out(tmp_store):
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(InvalidInputError, match="role: must be one of"):
            eng.add_conversation([{"role": "wizard", "content": "abracadabra"}], namespace="u")
        out = eng.add_conversation([{"role": "system", "content": "You are a helpful assistant."},
                                    {"role": "user", "content": "Hi, I'm Dana."}], namespace="u", session="a")
        assert out["message_ids"] == ["a:1"]
        assert [m.text for m in eng.query(namespace="u", tags=["system"])] == []
        out = eng.add_conversation([{"role": "system", "content": "Answer in French."},
                                    {"role": "user", "content": "Bonjour."}], namespace="u", session="b",
                                   keep_roles=("system",))
        assert out["message_ids"] == ["b:1", "b:2"]
        # an agent's first call holds only its system prompt: nothing to store, no error
        before = eng.stats()["namespaces"]["u"]["memories"]
        out = eng.add_conversation([{"role": "system", "content": "Be brief."}], namespace="u")
        assert out["message_ids"] == [] and out["left_out"] == 1 and out["memories"] == 0
        assert eng.stats()["namespaces"]["u"]["memories"] == before


def test_ingest_chat_says_what_it_left_out_and_superseded(tmp_path):
    """``ingest-chat`` said "ingested 1 new message" of a file with a system prompt, silent about
    the message it left out (fresh-user pass); it names edited messages superseded too."""
    path = tmp_path / "chat.jsonl"
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "I need a hotel in Lisbon."},
            {"role": "assistant", "content": "Sure."}, {"role": "user", "content": "My budget is 150 euros."},
            {"role": "assistant", "content": "Noted."}]
    msgs = [{**m, "created_at": 1.7e9 + 60 * i} for i, m in enumerate(msgs)]
    path.write_text("\n".join(json.dumps(m) for m in msgs))
    store = str(tmp_path / "s")
    res = CliRunner().invoke(main, ["ingest-chat", "--store", store, "--session", "s", str(path)])
    assert res.exit_code == 0, res.output
    assert "ingested 4 new messages (1 instruction or tool message left out, --keep-role keeps them)" in res.output
    msgs[3]["content"] = "My budget is 120 euros."
    path.write_text("\n".join(json.dumps(m) for m in msgs))
    res = CliRunner().invoke(main, ["ingest-chat", "--store", store, "--session", "s", str(path)])
    assert res.exit_code == 0, res.output
    assert "1 edited message superseded: s:3" in res.output


@pytest.mark.parametrize("layout", ["object", "jsonl"])
def test_ingest_chat_reads_openai_messages_files(tmp_path, layout):
    convs = [[{"role": "user", "content": "My cat is called Miso."},
              {"role": "assistant", "content": "Miso is a lovely name."}],
             [{"role": "user", "content": "I moved to Lyon in March."}]]
    path = tmp_path / "chats.jsonl"
    if layout == "object":
        path.write_text(json.dumps({"messages": convs[0] + convs[1]}))
    else:
        path.write_text("\n".join(json.dumps({"messages": c}) for c in convs) + "\n")
    store = str(tmp_path / "store")
    res = CliRunner().invoke(main, ["ingest-chat", str(path), "--store", store, "-n", "u"])
    assert res.exit_code == 0, res.output
    with engramdb.open(store) as eng:
        sessions = sorted(m.id for m in eng.query(namespace="u", tags=["session"]))
        # each conversation named by its first message, as add_conversation names an unlabelled
        # chat: the same conversation sent through the API is recognised
        for c in (convs[:1] if layout == "object" else convs):
            assert eng.add_conversation(c, namespace="u")["message_ids"] == []
    assert len(sessions) == (1 if layout == "object" else 2)
    assert all(sid.startswith("S:chat-") for sid in sessions)


def test_a_chat_sent_again_adds_only_its_new_messages(tmp_store):
    """An agent re-sending its growing message list, or a sync re-reading an export, stores each
    message once."""
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u")
        before = len(eng.query(namespace="u", limit=1000))
        again = eng.add_conversation(CHAT, namespace="u")
        assert again["memories"] == 0 and len(eng.query(namespace="u", limit=1000)) == before
        assert again["already_stored"] == len(CHAT) and again["message_ids"] == []
        grown = CHAT + [{"role": "user", "content": "Biscuit found the map again.",
                         "created_at": "2024-06-02T09:20:00", "session": "s2"}]
        out = eng.add_conversation(grown, namespace="u")
        assert out["message_ids"] == ["s2:4"]
        assert ("s2:4", Relation.NEXT) in _rels(eng, "s2:3")


def test_a_chat_sent_again_is_reported_as_already_stored(tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT))
    store = tmp_path / "s"
    first = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", str(chat)])
    again = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", str(chat)])
    assert first.exit_code == 0 and again.exit_code == 0, again.output
    assert "already stored" not in first.output
    assert f"ingested 0 new messages ({len(CHAT)} already stored)" in again.output


def test_one_huge_list_message_is_capped_at_max_pieces(tmp_store):
    items = "\n".join(f"- item number {i} of the packing list for the long trip north" for i in range(500))
    msg = [{"role": "user", "content": "What should I pack?", "session": "p"},
           {"role": "assistant", "content": "Here is the list:\n\n" + items}]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(msg, namespace="u", entities=False, max_pieces=16)
        pieces = _blocks(eng, "p:2")
        assert len(pieces) == 16
        # every item is in exactly one piece, in order
        text = "\n".join(p.text for p in sorted(pieces, key=lambda p: int(p.id.rsplit("#p", 1)[1])))
        found = [int(line.split()[3]) for line in text.splitlines() if line.startswith("- item")]
        assert found == list(range(500))
        with pytest.raises(InvalidInputError):
            eng.add_conversation(msg, namespace="v", max_pieces=0)
        assert eng.namespaces() == ["u"]


def test_split_blocks_max_blocks_groups_consecutive_blocks():
    text = "\n\n".join(f"Paragraph {i} talks about one thing at enough length to stand alone." for i in range(10))
    blocks = split_blocks(text, max_blocks=3)
    assert len(blocks) == 3 and [b.count("Paragraph") for b in blocks] == [3, 3, 4]
    assert "\n".join(blocks).replace("\n", "") == text.replace("\n", "")
    assert split_blocks(text, max_blocks=20) == split_blocks(text)


def test_an_entity_named_once_in_each_of_two_calls_gets_its_node(tmp_store):
    """A chat stored turn by turn: each call names "Lake Tahoe" once; the second call finds the
    stored mention and builds the node with both mentions."""
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{"role": "user", "content": "We rented a cabin at Lake Tahoe in June.",
                               "session": "t"}], namespace="u")
        assert eng.query(namespace="u", tags=["entity"], limit=100) == []
        eng.add_conversation([{"role": "user", "content": "The water at Lake Tahoe was freezing cold.",
                               "session": "t"}], namespace="u")
        nodes = {m.text for m in eng.query(namespace="u", tags=["entity"], limit=100)}
        assert nodes == {"lake tahoe"}
        assert ("E:lake tahoe", Relation.MENTIONS) in _rels(eng, "t:1")
        assert ("E:lake tahoe", Relation.MENTIONS) in _rels(eng, "t:2")
        # a third mention links to the node that now exists, and no second node appears
        eng.add_conversation([{"role": "user", "content": "Next year Lake Tahoe again, maybe in July.",
                               "session": "t"}], namespace="u")
        assert ("E:lake tahoe", Relation.MENTIONS) in _rels(eng, "t:3")
        assert len(eng.query(namespace="u", tags=["entity"], limit=100)) == 1
        # namespaces stay apart: a mention in another namespace makes no node there
        eng.add_conversation([{"role": "user", "content": "Lake Tahoe is in the news.", "session": "t"}],
                             namespace="other")
        assert eng.query(namespace="other", tags=["entity"], limit=100) == []


def test_session_nodes_of_one_day_never_supersede_each_other(tmp_store):
    """ "Session week 1 of user, 16 November 2026" and "Session week 2 ..." differ in a number;
    conflict detection must not read that as a changed fact (found by a fresh-user pass)."""
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{"role": "user", "content": "Morning: the oven broke.",
                               "created_at": "2026-11-16T08:00:00Z"}], namespace="u", session="week 1")
        eng.add_conversation([{"role": "user", "content": "Evening: repair cost 350 euros.",
                               "created_at": "2026-11-16T19:00:00Z"}], namespace="u", session="week 2")
        eng.add_conversation([{"role": "user", "content": "The oven works again.",
                               "created_at": "2026-11-16T21:00:00Z"}], namespace="u", session="s7")
        eng.add_conversation([{"role": "user", "content": "Bought flour.",
                               "created_at": "2026-11-16T22:00:00Z"}], namespace="u")
        sessions = eng.query(namespace="u", tags=["session"], include_superseded=True, limit=100)
        assert len(sessions) == 4 and {m.state for m in sessions} == {MemoryState.ACTIVE}


def test_a_repeated_short_reply_is_a_new_message_when_the_chat_is_sent_again(tmp_store):
    """An agent re-sending its whole message list: the second "Yes." answers another question and
    is stored; what was stored already is not stored again (found by a fresh-user pass)."""
    turns = [("user", "Do you deliver on Sundays?"), ("assistant", "Yes."),
             ("user", "Can I pay by card at the door?"), ("assistant", "Yes.")]
    msgs = [{"role": r, "content": c, "session": "s"} for r, c in turns]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(msgs[:2], namespace="u")
        out = eng.add_conversation(msgs[:3], namespace="u")           # grown by one
        assert out["message_ids"] == ["s:3"] and out["already_stored"] == 2
        out = eng.add_conversation(msgs, namespace="u")               # grown again: "Yes." once more
        assert out["message_ids"] == ["s:4"] and eng.get("s:4", namespace="u").text == "assistant: Yes."
        assert ("s:4", Relation.NEXT) in _rels(eng, "s:3")
        out = eng.add_conversation(msgs[2:], namespace="u")           # a window over the tail
        assert out["message_ids"] == [] and out["already_stored"] == 2
        assert len(eng.query(namespace="u", tags=["user"], limit=100)) == 2


def test_an_unlabelled_chat_sent_again_joins_its_own_session(tmp_store):
    msgs = [{"role": "user", "content": "I moved to Ghent in May.", "created_at": "2026-05-02T10:00:00Z"},
            {"role": "assistant", "content": "Welcome to Ghent!", "created_at": "2026-05-02T10:00:05Z"}]
    other = [{"role": "user", "content": "A different chat that started the same second.",
              "created_at": "2026-05-02T10:00:00Z"}]
    with engramdb.open(tmp_store) as eng:
        first = eng.add_conversation(msgs, namespace="u")
        again = eng.add_conversation(msgs, namespace="u")
        assert again["memories"] == 0 and again["already_stored"] == 2
        grown = eng.add_conversation(msgs + [{"role": "user", "content": "Any tips for the tram?"}], namespace="u")
        assert grown["sessions"] == first["sessions"] and len(grown["message_ids"]) == 1
        apart = eng.add_conversation(other, namespace="u")            # same second, another chat
        assert apart["sessions"] != first["sessions"] and apart["memories"] >= 2


def test_session_and_entity_nodes_are_no_hits_unless_asked_for(tmp_store):
    """Connector nodes route activation; a question worded like a session label must get the
    turns (a fresh-user pass saw two session nodes and "E:2000" as the top hits)."""
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u")
        q = "Session s2 of user and assistant: Biscuit and Portland"
        hits = eng.recall(q, namespace="u", k=10).hits
        assert hits and not any({"session", "entity"} & set(h.tags) for h in hits)
        assert any(h.id.startswith("s2:") for h in hits)
        sessions = eng.recall(q, namespace="u", k=10, tags=["session"]).hits
        assert sessions and {h.id for h in sessions} <= {"S:s1", "S:s2"}
        cfg = engramdb.RecallConfig(connector_hits=True)
        shown = eng.recall(q, namespace="u", k=10, config=cfg).hits
        assert any({"session", "entity"} & set(h.tags) for h in shown)


def test_context_lists_no_connector_node_as_a_neighbour(tmp_store):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u")
        block = eng.context("Where did I adopt Biscuit?", namespace="u")
        items = [i for t in ("L1", "L2") for i in block.items[t]]
        assert items and not any(i.id.startswith(("S:", "E:")) for i in items)


# ---------------------------------------------------------------- issue 15: a fresh user's faults
def _long_chat(n_chars, session=None):
    """A question and an answer whose "assistant: ..." text is n_chars + 11 characters."""
    chat = [{"role": "user", "content": "Explain retries.", "created_at": 1_700_000_000},
            {"role": "assistant", "content": ("Retry with backoff. " * 400)[:n_chars], "created_at": 1_700_000_060}]
    if session is not None:
        chat[0]["session"] = session
    return chat


@pytest.mark.parametrize("n_chars", [3995, 4100, 7000])   # "assistant: " + content > chunk_chars = 4000
@pytest.mark.parametrize("session", ["s1", None])
def test_a_chat_with_a_message_longer_than_a_chunk_is_not_stored_twice(tmp_store, n_chars, session):
    chat = _long_chat(n_chars, session)
    with engramdb.open(tmp_store) as eng:
        first = eng.add_conversation(chat, namespace="u")
        head = eng.get(first["message_ids"][1], namespace="u")
        # stored as chunks, read back whole (without the space the cut left at its end: _tidy)
        assert head.text == "assistant: " + chat[1]["content"].rstrip()
        before = store_digest(eng)
        again = eng.add_conversation(chat, namespace="u")
        assert again["already_stored"] == 2 and again["message_ids"] == [] and again["memories"] == 0
        assert store_digest(eng) == before
        # a window over the tail: the long message and one new turn
        tail = [dict(chat[1], session=first["sessions"][0][2:]),
                {"role": "user", "content": "Thanks, and jitter?", "created_at": 1_700_000_120}]
        out = eng.add_conversation(tail, namespace="u")
        label = first["sessions"][0][2:]
        assert out["already_stored"] == 1 and out["message_ids"] == [f"{label}:3"]
        assert (f"{label}:3", Relation.NEXT) in _rels(eng, first["message_ids"][1])


def test_new_turns_after_messages_with_their_own_ids_are_numbered_on(tmp_store):
    """A history imported with the caller's ids, then a window over its tail with new turns
    without ids (the README's agent loop): the new turns follow the stored ones, and a turn
    sent again without its id is recognised."""
    hist = [{"id": f"x{i}", "role": "user" if i % 2 == 0 else "assistant",
             "content": f"Old message number {i} about topic {i}."} for i in range(6)]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(hist, namespace="u", session="s1")
        window = hist[-2:]
        got = []
        for text in ["My dog is Biscuit.", "Nice dog!", "My cat is Tofu.", "Cute cat!"]:
            window = (window + [{"role": "user", "content": text}])[-3:]
            out = eng.add_conversation(window, namespace="u", session="s1")
            got.append((out["message_ids"], out["already_stored"]))
        assert got == [(["s1:7"], 2), (["s1:8"], 2), (["s1:9"], 2), (["s1:10"], 2)]
        assert ("s1:7", Relation.NEXT) in _rels(eng, "x5")
        assert ("s1:10", Relation.NEXT) in _rels(eng, "s1:9")
        # an id that is taken (here by a memory outside the session) is skipped, never reused
        eng.add("a note stored by hand", id="s1:11", namespace="u")
        out = eng.add_conversation([{"role": "user", "content": "Biscuit ate a sock."}], namespace="u", session="s1")
        assert out["message_ids"] == ["s1:12"]
        assert eng.get("s1:11", namespace="u").text == "a note stored by hand"


def test_a_session_numbered_past_its_count_goes_on_after_its_highest_number(tmp_store):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{"role": "user", "content": "one", "id": "s1:1"},
                              {"role": "user", "content": "five", "id": "s1:5"}], namespace="u", session="s1")
        out = eng.add_conversation([{"role": "user", "content": "six"}], namespace="u", session="s1")
        assert out["message_ids"] == ["s1:6"]


def test_an_identical_chat_with_ids_sent_again_adds_nothing(tmp_path):
    """The fresh user's chat.jsonl (ids, no session, long answers) ingested twice: the second run
    stores nothing, and no entity node comes from a message counted as its own second mention."""
    long_answer = "\n\n".join(
        [f"- Set up step {i}: configure the retry policy with exponential backoff and jitter for the carrier API "
         "calls, then log each attempt." for i in range(40)] + ["1. Enjoy the Quellwerk dashboard when it is green."])
    chat = [{"id": "m0", "role": "user", "content": "I work at Fernhill Logistics in Porto.",
             "created_at": "2025-01-06T09:00:00Z"},
            {"id": "m1", "role": "assistant", "content": long_answer, "created_at": "2025-01-06T09:01:00Z"},
            {"id": "m2", "role": "user", "content": "Thanks, Fernhill Logistics will love it.",
             "created_at": "2025-01-06T09:02:00Z"}]
    assert len("assistant: " + long_answer) > 4000
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in chat) + "\n")
    store = tmp_path / "s"
    first = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", str(path)])
    assert first.exit_code == 0, first.output
    with engramdb.open(store) as eng:
        before = store_digest(eng)
        entities_before = sorted(m.id for m in eng.query(namespace="u", tags=["entity"]))
    again = CliRunner().invoke(main, ["ingest-chat", "--store", str(store), "-n", "u", str(path)])
    assert again.exit_code == 0, again.output
    assert ("ingested 0 new messages (3 already stored) in 0 sessions: 0 memories (0 messages, 0 new session nodes, "
            "0 new entities), "
            "0 edges") in again.output
    with engramdb.open(store) as eng:
        assert store_digest(eng) == before
        assert entities_before == ["E:fernhill logistics"]
        # the API says the same
        out = eng.add_conversation(chat, namespace="u")
        assert out["already_stored"] == 3 and out["memories"] == 0 and out["edges"] == 0


def test_a_message_is_never_its_own_second_mention(tmp_store):
    """An entity named once gets its node when another stored message names it, not when the
    namesake is this very message stored before (a piece of it, or a copy under another id)."""
    filler = " ".join(f"word{i}" for i in range(900))   # pushes the name into a later chunk
    text = f"{filler} We deploy with Quellwerk on Fridays."
    assert len(text) > 4000
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{"role": "user", "content": text}], namespace="u", session="a")
        eng.add_conversation([{"role": "user", "content": text}], namespace="u", session="b")   # a copy
        with pytest.raises(MemoryNotFoundError):
            eng.get("E:quellwerk", namespace="u")
        out = eng.add_conversation([{"role": "user", "content": "The cluster at Quellwerk went down."}], namespace="u",
                                   session="c")
        assert out["message_ids"] == ["c:1"]
        mentions = {e.source for e in eng.edges("E:quellwerk", namespace="u") if e.relation is Relation.MENTIONS}
        assert mentions == {"a:1", "b:1", "c:1"}   # messages by their ids, never a piece '#<i>'


def test_blocks_are_pieces_of_their_message(tmp_store):
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(CHAT, namespace="u", split_chars=300)
        blocks = _blocks(eng, "s2:2")
        assert len(blocks) >= 3
        assert [(b.id, b.chunk_of, b.chunk) for b in blocks] == [
            (f"s2:2#p{j}", "s2:2", j) for j in range(1, len(blocks) + 1)]
        q = "when is the full backup scheduled systemd timer"
        hit = eng.recall(q, namespace="u", k=5).hits[0]
        assert hit.id == "s2:2" and hit.chunk is not None and hit.chunk >= 1
        # forgetting the message forgets its blocks: none answers recall any more
        eng.forget("s2:2", namespace="u")
        assert all(eng.get(b.id, namespace="u").state is MemoryState.ARCHIVED for b in blocks)
        hits = eng.recall(q, namespace="u", k=10).hits
        assert not any(h.id.startswith("s2:2") for h in hits)
        eng.forget("s2:2", namespace="u", hard=True)   # erased: the blocks with it
        for b in blocks:
            with pytest.raises(MemoryNotFoundError):
                eng.get(b.id, namespace="u")


def test_a_message_longer_than_a_chunk_is_split_into_blocks_no_longer_than_a_chunk(tmp_store):
    para = "A very long paragraph about Postgres backups and restores without any break at all. " * 60
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation([{"role": "user", "content": "How?"},
                                    {"role": "assistant", "content": f"{para}\n\n{para}"}], namespace="u", session="s")
        blocks = _blocks(eng, out["message_ids"][1])
        assert all(len(b.text) <= 4000 and b.chunk_of == out["message_ids"][1] for b in blocks)
        assert len(blocks) >= 4
        assert eng.get(out["message_ids"][1], namespace="u").text == f"assistant: {para.rstrip()}\n\n{para.rstrip()}"


def test_a_bad_time_names_its_field_once(tmp_store):
    with engramdb.open(tmp_store) as eng:
        with pytest.raises(InvalidInputError) as err:
            eng.add_conversation([{"role": "user", "content": "hi"},
                                  {"role": "user", "content": "later", "created_at": "tomorrow-ish"}], namespace="u")
    assert str(err.value).startswith("messages[1]: created_at: 'tomorrow-ish' is not ISO-8601")


def test_cli_names_the_file_line_of_a_bad_message(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n\n'
                    '{"role": "user", "content": "later", "created_at": "tomorrow-ish"}\n')
    res = CliRunner().invoke(main, ["ingest-chat", "--store", str(tmp_path / "s"), str(path)])
    assert res.exit_code == 2
    assert f"{path}:3: created_at: 'tomorrow-ish' is not ISO-8601" in res.output
    assert "messages[1]" not in res.output


def test_a_chat_sent_again_with_a_message_edited_adds_only_the_changed_message(tmp_store):
    """A message edited (or a reply regenerated) and the chat sent again: the messages that
    still match their stored place are already stored; the changed one is new (found by a
    hostile-input pass: every message was stored a second time; a fresh-user pass: an edit of
    the first message stored the whole chat again)."""
    base = [{"role": "user", "content": c, "created_at": 1.7e9 + i, "session": "s"}
            for i, c in enumerate(["Hi, I'm Dana.", "I live in Oslo.", "Yes.", "Bye."])]
    edited = [dict(m) for m in base]
    edited[2]["content"] = "No."
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(base, namespace="u")
        out = eng.add_conversation(edited, namespace="u")
        assert out["already_stored"] == 3 and out["message_ids"] == ["s:5"]
        texts = [m.text for m in eng.query(namespace="u", tags=["user"], limit=100)]
        assert texts.count("user: Hi, I'm Dana.") == 1 and texts.count("user: No.") == 1
        assert texts.count("user: Bye.") == 1
        first = [dict(m) for m in base]
        first[0]["content"] = "Hello, I'm Dana."   # the first message edited
        out = eng.add_conversation(first, namespace="u")
        assert out["already_stored"] == 3 and out["message_ids"] == ["s:6"]
        assert ("s:5", Relation.NEXT) in _rels(eng, "s:4")


@pytest.mark.parametrize("where", ["first", "middle", "last", "last_then_new"])
def test_an_edited_message_supersedes_the_one_it_replaces(tmp_store, where):
    """A chat sent again with one message edited in place stored the edit as a new message and
    left the old wording active: recall ranked the stale "150 euros" above the edit (fresh-user
    pass). The edit now supersedes it: kept, hidden from recall unless asked for, with a
    ``supersedes`` edge; the result names it."""
    chat = [{"role": "user", "content": "I booked a flight to Lisbon on April 12.", "created_at": 1.7e9},
            {"role": "assistant", "content": "Great, do you need a hotel there?", "created_at": 1.7e9 + 60},
            {"role": "user", "content": "Yes, my budget for the hotel is 150 euros a night.", "created_at": 1.7e9 + 120},
            {"role": "assistant", "content": "Noted, I will look for hotels.", "created_at": 1.7e9 + 180}]
    at = {"first": 0, "middle": 2, "last": 3, "last_then_new": 3}[where]
    again = [dict(m) for m in chat]
    again[at]["content"] = chat[at]["content"].rstrip(".?") + ", or rather the next day."
    if where == "last_then_new":
        again.append({"role": "user", "content": "And I need a late check-in.", "created_at": 1.7e9 + 240})
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        out = eng.add_conversation(again, namespace="u", session="s")
        new_id = out["message_ids"][0]
        assert out["superseded"] == [f"s:{at + 1}"] and out["already_stored"] == 3
        old = eng.get(f"s:{at + 1}", namespace="u")
        assert old.state is MemoryState.SUPERSEDED and old.superseded_by == new_id
        assert (new_id, Relation.SUPERSEDES) in {(e.source, e.relation) for e in eng.edges(f"s:{at + 1}", namespace="u")}
        hits = eng.recall(chat[at]["content"], namespace="u", k=5).hits   # the old wording asked for
        assert f"s:{at + 1}" not in {h.id for h in hits}
        # first, or, when the edit is the assistant's and its wording says "I" (which names the
        # user, who asks: source attribution), first of the assistant's messages
        said_by = [h for h in hits if "assistant" in h.tags] if chat[at]["role"] == "assistant" else hits
        assert said_by[0].id == new_id
        # sent once more (the edit lines up in the place of what it replaced), or the history
        # as it was before the edit: nothing new, nothing superseded again
        for sent in (again, chat, again[:2] + [{"role": "user", "content": "Inserted: which area?",
                                                "created_at": 1.7e9 + 90}] + again[2:]):
            out = eng.add_conversation(sent, namespace="u", session="s")
            assert out["superseded"] == []
            assert len(out["message_ids"]) == (1 if "Inserted" in sent[2]["content"] else 0)


def _casa_lupo(edited):
    """A five-message chat, and the same with the messages at the indices ``edited`` reworded."""
    chat = ["Book a table at Casa Lupo.", "The set menu at Casa Lupo costs 150 euros.", "For two people, please.",
            "Done, a table for two at eight.", "Thanks, see you there."]
    again = list(chat)
    for i in edited:
        again[i] = chat[i].rstrip(".") + ", or rather tomorrow."
    return chat, again


def _next_chain(eng, first, ns="u"):
    """Ids from ``first`` along active ``next`` edges (the session as its order links read)."""
    out, cur = [first], first
    while True:
        nxt = [e.target for e in eng.edges(cur, namespace=ns) if e.source == cur and e.relation is Relation.NEXT
               and eng.get(e.target, namespace=ns).state is MemoryState.ACTIVE]
        if not nxt:
            return out
        assert len(nxt) == 1, (cur, nxt)
        cur = nxt[0]
        out.append(cur)


@pytest.mark.parametrize("edited", [(0,), (2,), (4,), (1, 2), (3, 4)])
def test_an_edit_is_linked_in_the_place_of_what_it_replaces(tmp_store, edited):
    """An edited message was linked ``next`` after the session's last message, so the order
    links read the session with the edit at its end (and a new message sent after an edited
    last reply followed the stale one). An edit now stands between the neighbours of what it
    replaces, and what is sent after the chat follows the chat as it reads now."""
    chat, again = _casa_lupo(edited)
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_timed(chat), namespace="u", session="s")
        out = eng.add_conversation(_timed(again + ["One more thing: a window seat."]), namespace="u", session="s")
        new = dict(zip((f"s:{i + 1}" for i in edited), out["message_ids"]))
        assert sorted(out["superseded"]) == sorted(new)
        view = [new.get(f"s:{i + 1}", f"s:{i + 1}") for i in range(5)] + [out["message_ids"][-1]]
        first = view[0]
        assert _next_chain(eng, first) == view
        assert [eng.get(m, namespace="u").text.split(": ", 1)[1] for m in view] == again + ["One more thing: a window seat."]


def test_an_edited_long_reply_is_split_into_blocks_as_any_other(tmp_store):
    """The edit's place in the order links was set apart from the rest of the message's plan, and
    an edited long reply lost its blocks (hostile pass)."""
    long = "\n\n".join(f"Paragraph {i}: the set menu at Casa Lupo includes dish {i} with truffle and a wine "
                        "pairing for the table." for i in range(12))
    def chat(reply):
        return _timed(["Book a table at Casa Lupo.", reply, "For two people, at eight.",
                       "Done, a table for two at eight."])
    with engramdb.open(tmp_store) as eng:
        first = eng.add_conversation(chat(long), namespace="u", session="s")["pieces"]
        out = eng.add_conversation(chat(long.replace("truffle", "mushroom")), namespace="u", session="s")
        assert out["superseded"] == ["s:2"] and first > 1 and out["pieces"] == first
        assert _next_chain(eng, "s:1") == ["s:1", out["message_ids"][0], "s:3", "s:4"]
        hits = eng.recall("mushroom dish 7", namespace="u", k=3).hits
        assert hits[0].id == out["message_ids"][0] and "dish 7" in hits[0].text and "dish 2" not in hits[0].text


@pytest.mark.parametrize("change", [lambda c: c + " ", lambda c: c + "\n", lambda c: "\n" + c,
                                    lambda c: c.replace("\n", "\r\n"), lambda c: c.replace("\n", "  \n")])
@pytest.mark.parametrize("timed", [True, False])
def test_a_message_sent_again_with_whitespace_changed_is_the_same_message(tmp_store, change, timed):
    """A chat client adds or drops a trailing newline or space, or sends Windows line breaks: the
    message was taken for an edit (it superseded the stored one) or stored again (new-user pass)."""
    texts = ["Hi, I'm Dana.", "Hello Dana!\nHow can I help?", "I live in Oslo.\nNear the harbour.",
             "Noted: Oslo."]
    chat = _timed(texts) if timed else _msgs(texts)
    with engramdb.open(tmp_store) as eng:
        first = eng.add_conversation(chat, namespace="u", session="s")
        again = [{**m, "content": change(m["content"])} for m in chat]
        out = eng.add_conversation(again, namespace="u", session="s")
        assert out["message_ids"] == [] and out["superseded"] == [] and out["already_stored"] == 4
        # unlabelled: the chat is recognised by its first message, whitespace apart
        eng.add_conversation(chat, namespace="v")
        out = eng.add_conversation(again, namespace="v")
        assert out["message_ids"] == [] and out["already_stored"] == 4
        assert len(eng.query(namespace="v", tags=["user"], limit=100)) == 2
        assert first["message_ids"] == ["s:1", "s:2", "s:3", "s:4"]


def test_query_lists_memories_not_the_session_and_entity_nodes(tmp_store):
    """query(kind="episodic") listed the session and entity nodes among the chat's messages,
    which recall leaves out of its hits (new-user pass); a tag filter naming them lists them."""
    chat = _timed(["I moved to Boston in June.", "Nice! Boston in June is lovely.", "My sister lives in Boston too.",
                   "Great to have family there."])
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation(chat, namespace="u", session="s")
        assert out["entities"] >= 1
        listed = [m.id for m in eng.query(namespace="u", kind="episodic", order="event_time_asc", limit=100)]
        assert listed == ["s:1", "s:2", "s:3", "s:4"]
        assert [m.id for m in eng.query(namespace="u", tags="session")] == ["S:s"]
        assert "E:boston" in {m.id for m in eng.query(namespace="u", tags="entity")}


def test_an_edit_is_no_contradiction_of_what_it_replaces(tmp_store):
    """An edit that changes a number ("150 euros" -> "120 euros", sent at the original's time)
    was also linked ``contradicts`` by the write's conflict check, and every recall about it
    warned "s:5 (active) contradicts s:3 (superseded)" (new-user pass)."""
    chat = ["Find me a hotel in Rome.", "What is your budget?", "My budget is 150 euros a night.",
            "Noted, I will look."]
    again = list(chat)
    again[2] = "My budget is 120 euros a night."
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_timed(chat), namespace="u", session="s")
        out = eng.add_conversation(_timed(again), namespace="u", session="s")
        assert out["superseded"] == ["s:3"]
        rels = {e.relation for e in eng.edges("s:3", namespace="u") if e.source == out["message_ids"][0]}
        assert Relation.SUPERSEDES in rels and Relation.CONTRADICTS not in rels
        res = eng.recall("what is my hotel budget per night?", namespace="u", k=5)
        assert res.hits[0].id == out["message_ids"][0] and res.warnings == []


@pytest.mark.parametrize("timed", [True, False])
def test_a_whitespace_change_is_matched_at_its_own_place(tmp_store, timed):
    """Every message re-sent with a newline added: the first ("Yes.") was matched by its exact
    text to another stored message ("Yes.\n", later in the chat) instead of its own place, and
    was taken for an edit (with times) or stored again (without) (hostile pass). Messages are now
    stored without the whitespace at their ends, and compared so."""
    texts = ["Yes.", "Shall I book Casa Lupo for eight?", "Yes.\n", "Booked."]
    chat = _timed(texts) if timed else _msgs(texts)
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        assert eng.get("s:3", namespace="u").text == "user: Yes."   # stored tidied
        again = [{**m, "content": m["content"].rstrip("\n") + "\n"} for m in chat]
        out = eng.add_conversation(again, namespace="u", session="s")
        assert out["message_ids"] == [] and out["superseded"] == [] and out["already_stored"] == 4


def test_a_long_message_sent_again_with_a_newline_is_the_same_message(tmp_store):
    """A message stored as pieces is recognised by the digest of its whole text only: sent again
    with whitespace changed at its end it was new (hostile pass); it is stored tidied now."""
    long = " ".join(f"Sentence number {i} about the booking at Casa Lupo." for i in range(150))
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_timed(["Hello there, I need help.", "Sure, what is it?", long + "\n",
                                     "Got it, thanks."]), namespace="u", session="s")
        out = eng.add_conversation(_timed(["Hello there, I need help.", "Sure, what is it?", long,
                                           "Got it, thanks.\r\n"]), namespace="u", session="s")
        assert out["message_ids"] == [] and out["superseded"] == [] and out["already_stored"] == 4


def test_chats_stamped_with_one_time_are_no_edits_of_each_other(tmp_store):
    """Two chats under one label, every message stamped with the same date, sharing two short
    replies ("Ok.", "Thanks!"): the shared replies' times told nothing apart, yet they lined the
    chats up and the other chat's messages superseded the first one's as edits (hostile pass)."""
    a = ["I want to book a table at Casa Lupo for Friday.", "Ok.", "Make it for two people at eight.",
         "Booked Casa Lupo for two at eight on Friday.", "Can you add a birthday cake?", "Thanks!"]
    b = ["I want to book a table at Casa Lupo for Saturday.", "Ok.", "Make it for four people at nine.",
         "Booked Casa Lupo for four at nine on Saturday.", "Can you add a window seat?", "Thanks!"]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{**m, "created_at": "2024-05-01"} for m in _msgs(a)], namespace="u", session="s")
        out = eng.add_conversation([{**m, "created_at": "2024-05-01"} for m in _msgs(b)], namespace="u", session="s")
        assert out["superseded"] == [] and _superseded(eng) == []


def test_a_message_with_its_id_sent_again_with_whitespace_changed_is_already_stored(tmp_store):
    """A message with an id of its own, sent again with a newline added (under another label):
    'already exists in this namespace with another text' (hostile pass)."""
    chat = [{**m, "id": f"m{i}"} for i, m in enumerate(_timed(["Hi, I'm Dana.", "Hello Dana!", "I live in Oslo."]))]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{**m, "session": "s"} for m in chat], namespace="u")
        out = eng.add_conversation([{**m, "session": "t", "content": m["content"] + "\n"} for m in chat],
                                   namespace="u")
        assert out["message_ids"] == [] and out["already_stored"] == 3


def test_a_history_sent_again_under_a_new_label_stores_only_the_new_messages(tmp_store):
    """One session per day, the whole history sent each time under that day's label: day 1's
    messages were stored again under day 2 (new-user pass). A message with its time that the
    namespace holds with the same words at that time is that message, whatever the label; a
    message repeated at another time is new."""
    d1 = _timed(["Hi, I'm Dana.", "Hello Dana!", "I live in Oslo.", "Noted."])
    d2 = _timed(["I moved to Bergen.", "Noted: Bergen.", "Hello Dana!"], t0=1.7e9 + 86400)
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(d1, namespace="u", session="day1")
        out = eng.add_conversation(d1 + d2, namespace="u", session="day2")
        assert out["already_stored"] == 4 and out["message_ids"] == ["day2:1", "day2:2", "day2:3"]
        assert [m.id for m in eng.query(namespace="u", order="event_time_asc", limit=100)] == [
            "day1:1", "day1:2", "day1:3", "day1:4", "day2:1", "day2:2", "day2:3"]
        # an unlabelled window over the tail of the history: nothing new either
        assert eng.add_conversation((d1 + d2)[3:], namespace="u")["message_ids"] == []
        # without times the words alone do not tell: a new chat under a new label is new
        out = eng.add_conversation(_msgs(["Hi, I'm Dana.", "Hello Dana!"]), namespace="u", session="other")
        assert len(out["message_ids"]) == 2


def _msgs(texts):
    return [{"role": ("user", "assistant")[i % 2], "content": c} for i, c in enumerate(texts)]


def _superseded(eng, ns="u"):
    return [m.text for m in eng.query(namespace=ns, state="superseded", limit=100)]


def test_exchanges_that_repeat_a_short_reply_supersede_nothing(tmp_store):
    """An agent storing one [question, reply] exchange per call under one label, without times,
    whose replies repeat ("Done."): each new question superseded the one before it, which recall
    then hid; so did the questions of two chats stored under one label with "Ok." / "Thanks!"
    replies, and of two unlabelled chats opening with the same greeting (hostile pass)."""
    with engramdb.open(tmp_store) as eng:
        for q in ["Remind me to call my mother on Sunday.", "Remind me to pay the rent on the 1st.",
                  "Remind me to renew my passport in May."]:
            assert eng.add_conversation(_msgs([q, "Done."]), namespace="u", session="s")["superseded"] == []
        eng.add_conversation(_msgs(["What's the capital of France?", "Ok.", "And of Spain?", "Thanks!"]),
                             namespace="u", session="t")
        eng.add_conversation(_msgs(["Recommend me a jazz album.", "Ok.", "Something from the 60s?", "Thanks!"]),
                             namespace="u", session="t")
        greeting = ["Hi!", "Hello! How can I help you today?"]
        eng.add_conversation(_msgs(greeting + ["My daughter's allergy is to peanuts, please remember it."]),
                             namespace="u")
        eng.add_conversation(_msgs(greeting + ["Find me a pasta recipe for tonight."]), namespace="u")
        assert _superseded(eng) == []
        assert "mother" in eng.recall("call my mother", namespace="u", k=1).hits[0].text


def test_a_fact_change_the_store_superseded_is_no_edit_of_the_chat(tmp_store):
    """A later message stating a changed fact supersedes the earlier one through the write's own
    check; the session's view took it for an edit and moved it into the earlier one's place, so
    the same history sent again stored it a second time (hostile pass)."""
    chat = ["Hi, can you help me find a flat?", "Sure. What is your budget?", "My budget is 900 euros a month.",
            "Good to know. Any area?", "Near the centre.", "Noted.", "My budget is 1200 euros a month.",
            "Updated, thanks."]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_msgs(chat[:6]), namespace="u", session="s")
        eng.add_conversation(_msgs(chat), namespace="u", session="s")
        assert eng.get("s:3", namespace="u").superseded_by == "s:7"
        out = eng.add_conversation(_msgs(chat), namespace="u", session="s")
        assert out["message_ids"] == [] and out["superseded"] == []


def _timed(texts, t0=1.7e9):
    return [{**m, "created_at": t0 + 60 * i} for i, m in enumerate(_msgs(texts))]


def test_without_times_a_changed_message_is_new_and_supersedes_nothing(tmp_store):
    """Without created_at a chat whose message changed cannot be told from another chat under
    the label that shares its other messages: the changed one is stored as new, nothing hidden."""
    chat = ["Find me a hotel in Rome.", "What is your budget?", "150 euros a night.", "Any preferred dates?"]
    other = list(chat)
    other[2] = "200 euros a night at most."
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_msgs(chat), namespace="u", session="s")
        out = eng.add_conversation(_msgs(other), namespace="u", session="s")
        assert out["superseded"] == [] and len(out["message_ids"]) == 1
        assert _superseded(eng) == []


@pytest.mark.parametrize("edited", [(1, 2), (0, 1), (3, 4)])
def test_messages_edited_next_to_each_other_supersede_what_they_replace(tmp_store, edited):
    """Two neighbouring messages edited (with their times) superseded nothing: the rule wanted
    both neighbours of an edit lined up, and recall ranked the stale "150 euros" first (new-user
    pass). A run of edits between lined-up messages (or at the chat's start or end) replaces the
    stored messages at its places."""
    chat, again = _casa_lupo(edited)
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_timed(chat), namespace="u", session="s")
        out = eng.add_conversation(_timed(again), namespace="u", session="s")
        assert sorted(out["superseded"]) == [f"s:{i + 1}" for i in edited] and out["already_stored"] == 3
        assert eng.add_conversation(_timed(again), namespace="u", session="s")["message_ids"] == []


@pytest.mark.parametrize("edited", [(1, 2, 3), (0, 1, 2), (2, 3, 4), (1, 3)])
def test_a_chat_sent_again_with_most_messages_edited_stores_the_unchanged_ones_once(tmp_store, edited):
    """Three of five messages edited, the chat sent again with its times: the two unchanged ones
    did not line up (a minority of the stretch they span) and were stored a second time, with
    the old chat and the new one after each other in the session (hostile pass). The same words
    at the same time are that message, however many around it changed."""
    chat, again = _casa_lupo(edited)
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_timed(chat), namespace="u", session="s")
        out = eng.add_conversation(_timed(again), namespace="u", session="s")
        assert out["already_stored"] == 5 - len(edited) and len(out["message_ids"]) == len(edited)
        texts = [m.text.split(": ", 1)[1] for m in eng.query(namespace="u", limit=100, include_superseded=True)]
        assert sorted(texts) == sorted(set(chat) | set(again))
        assert sorted(out["superseded"]) == [f"s:{i + 1}" for i in edited]
        new = dict(zip((f"s:{i + 1}" for i in edited), out["message_ids"]))
        assert _next_chain(eng, new.get("s:1", "s:1")) == [new.get(f"s:{i + 1}", f"s:{i + 1}") for i in range(5)]


@pytest.mark.parametrize("erase", ["edit", "original"])
def test_an_erased_edit_or_original_stays_erased_when_the_chat_is_sent_again(tmp_store, erase):
    """forget(hard=True) of an edit, then the edited history re-sent: the erased wording was
    stored again and superseded the original again; of the original (it held a PIN), then the
    history re-sent as it was: the PIN came back and superseded the edit, and with a new message
    appended the new message was taken for a regenerated last reply and superseded the edit
    (hostile passes)."""
    base = ["Hello, I need help with my bank app.", "Sure, what do you need?",
            "My PIN code is 4921 and the app rejects it.", "Please never share your PIN.",
            "Also the app crashes on login.", "Which phone do you use?"]
    edited = list(base)
    edited[2] = "My PIN code is 4921 and the app rejects it since Monday."
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_timed(base), namespace="u", session="s")
        assert eng.add_conversation(_timed(edited), namespace="u", session="s")["superseded"] == ["s:3"]
        eng.forget("s:7" if erase == "edit" else "s:3", namespace="u", hard=True)
        for sent in (edited, base, edited + ["A new question."]):
            out = eng.add_conversation(_timed(sent), namespace="u", session="s")
            assert out["superseded"] == []
            assert len(out["message_ids"]) == (1 if len(sent) == 7 else 0), (sent, out)
        if erase == "original":   # the edit nobody touched stays current (a new last message
            assert eng.get("s:7", namespace="u").state is MemoryState.ACTIVE   # was taken to replace it)
        texts = [m.text for m in eng.query(namespace="u", limit=100, include_superseded=True)]
        gone = "since Monday" if erase == "edit" else "rejects it."
        assert not any(gone in t for t in texts)


@pytest.mark.parametrize("change", ["inserted", "appended", "dropped"])
def test_messages_inserted_appended_or_dropped_supersede_nothing(tmp_store, change):
    """Only a message in the place of a stored one replaces it: one inserted between two stored
    messages, one appended after the last, or a message dropped supersedes nothing."""
    chat = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"Message {i} on topic {i * 7 % 11}."}
            for i in range(8)]
    again = [dict(m) for m in chat]
    if change == "inserted":
        again.insert(4, {"role": "user", "content": "A new question in the middle."})
    elif change == "appended":
        again.append({"role": "user", "content": "A new question at the end."})
    else:
        del again[4]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        out = eng.add_conversation(again, namespace="u", session="s")
        assert out["superseded"] == []
        assert len(out["message_ids"]) == (0 if change == "dropped" else 1)
        assert eng.stats()["namespaces"]["u"]["superseded"] == 0


def test_a_chat_sent_again_keeps_erased_and_reworded_messages_as_they_are(tmp_store):
    """An agent re-sends its whole history each turn (README): a message erased with
    forget(hard=True) was stored again (the PIN came back, and every message after it twice),
    and a message the store reworded (update) or superseded came back in its first wording
    (found by a fresh-user pass)."""
    hist = [{"role": "user", "content": c, "created_at": 1.7e9 + i}
            for i, c in enumerate(["Hi there.", "My bank PIN is 4921.", "My favourite band is Radiohead.",
                                   "I work as a nurse.", "See you."])]
    with engramdb.open(tmp_store) as eng:
        ids = eng.add_conversation(hist, namespace="u", session="s")["message_ids"]
        eng.forget(ids[1], namespace="u", hard=True)
        eng.update(ids[2], text="user: My favourite band is Portishead.", namespace="u")
        eng.supersede(ids[3], "user: I now work as a teacher.", namespace="u")
        out = eng.add_conversation(hist + [{"role": "user", "content": "Thanks!", "created_at": 1.7e9 + 9}],
                                   namespace="u", session="s")
        assert out["already_stored"] == 5 and out["message_ids"] == ["s:6"]
        texts = [m.text for m in eng.query(namespace="u", limit=100, include_superseded=True)]
        assert not any("4921" in t for t in texts)
        assert texts.count("user: My favourite band is Radiohead.") == 0
        assert texts.count("user: I work as a nurse.") == 1   # the superseded version, once
        assert [h.id for h in eng.recall("What is my bank PIN?", namespace="u", k=3).hits if "4921" in h.text] == []
        # the first message erased: the rest still line up, nothing comes back
        eng.forget(ids[0], namespace="u", hard=True)
        again = eng.add_conversation(hist, namespace="u", session="s")
        assert again["already_stored"] == 5 and again["message_ids"] == []


def test_messages_as_the_openai_sdk_dumps_them_are_accepted(tmp_store):
    """An assistant message from ``model_dump()`` (refusal, annotations, audio) and a user turn
    with an image part were refused whole (fresh-user pass); a typo'd field still is."""
    msgs = [{"role": "user", "content": [{"type": "text", "text": "What is in this photo of my cat?"},
                                         {"type": "image_url", "image_url": {"url": "https://x/cat.png"}}]},
            {"role": "assistant", "content": "A cat on a sofa.", "refusal": None, "annotations": [], "audio": None,
             "function_call": None, "tool_calls": None}]
    with engramdb.open(tmp_store) as eng:
        out = eng.add_conversation(msgs, namespace="u", session="s")
        assert out["message_ids"] == ["s:1", "s:2"]
        assert eng.get("s:1", namespace="u").text == "user: What is in this photo of my cat?"
        with pytest.raises(engramdb.InvalidInputError, match="contnet: unknown field"):
            eng.add_conversation([{"role": "user", "contnet": "hi"}], namespace="u")
        only_image = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]
        with pytest.raises(engramdb.InvalidInputError, match="content"):
            eng.add_conversation(only_image, namespace="u")


def test_a_chat_without_a_label_sent_again_after_its_first_message_was_erased(tmp_store):
    """The session of a chat without a label is found by its first message: with that message
    erased, the re-sent chat opened a new session and stored everything again, the erased
    message included (fresh-user pass)."""
    hist = [{"role": "user", "content": c, "created_at": 1.7e9 + i}
            for i, c in enumerate(["My wifi password is hunter2.", "I like tea.", "See you."])]
    with engramdb.open(tmp_store) as eng:
        ids = eng.add_conversation(hist, namespace="u")["message_ids"]
        eng.forget(ids[0], namespace="u", hard=True)
        again = eng.add_conversation(hist, namespace="u")
        assert again["already_stored"] == 3 and again["message_ids"] == []
        assert not any("hunter2" in m.text for m in eng.query(namespace="u", limit=50))


@pytest.mark.parametrize("label", ["s", None])
def test_erased_last_messages_stay_erased_when_the_chat_is_sent_again(tmp_store, tmp_path, label):
    """forget(hard=True) of a chat's last message(s), then the history sent again, stored them
    again (the session kept no record of its places after its last stored message, and the erased
    id was reused; hostile pass). A session node keeps the highest place it numbered
    (``last_position``)."""
    hist = [{"role": "user", "content": c, "created_at": 1.7e9 + i}
            for i, c in enumerate(["I live in Berlin.", "Berlin sounds lovely.", "My PIN is 4321.", "Ok."])]
    with engramdb.open(tmp_store) as eng:
        ids = eng.add_conversation(hist[:2], namespace="u", session=label)["message_ids"]
        ids += eng.add_conversation(hist[:4], namespace="u", session=label)["message_ids"]   # grown
        assert len(ids) == 4
        for mid in ids[2:]:   # the last two
            eng.forget(mid, namespace="u", hard=True)
        again = eng.add_conversation(hist, namespace="u", session=label)
        assert again["message_ids"] == [] and again["already_stored"] == 4
        assert not any("4321" in m.text for m in eng.query(namespace="u", limit=100))
        new = eng.add_conversation(hist + [{"role": "user", "content": "Bye.", "created_at": 1.7e9 + 9}],
                                   namespace="u", session=label)
        assert new["already_stored"] == 4 and len(new["message_ids"]) == 1
        assert new["message_ids"][0] not in ids   # an erased id is never given again
        eng.export(tmp_path / "x.parquet")
    with engramdb.open(tmp_path / "copy") as copy:   # the places survive an export
        copy.import_from(tmp_path / "x.parquet")
        copy.forget(new["message_ids"][0], namespace="u", hard=True)
        out = copy.add_conversation(hist + [{"role": "user", "content": "Bye.", "created_at": 1.7e9 + 9}],
                                    namespace="u", session=label)
        assert out["message_ids"] == [] and out["already_stored"] == 5


def test_a_session_erased_whole_stays_erased_when_its_chat_is_sent_again(tmp_store):
    """helper-235: every message of a ticket erased for a privacy request, then the agent sent
    the ticket's history again under its label: all of it was stored again, the phone number
    included (no message of the session was left to line the chat up by). A session whose every
    message was erased now takes the chat sent again with its times (no later than the newest
    it had numbered) into its holes; a message sent after them is new."""
    chat = [{"role": "user", "content": "I'm Dana, billing contact. My phone is +1 555 0142.",
             "created_at": "2025-01-22T10:00:00Z"},
            {"role": "assistant", "content": "Thanks Dana, noted your phone number.", "created_at": "2025-01-22T10:01:00Z"}]
    new = {"role": "user", "content": "Can you resend invoice 77?", "created_at": "2025-02-01T10:00:00Z"}
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        for mid in eng.add_conversation(chat, namespace="a", session="ticket-2")["message_ids"]:
            eng.forget(mid, namespace="a", hard=True)
        again = eng.add_conversation(chat, namespace="a", session="ticket-2")
        assert again["message_ids"] == [] and again["already_stored"] == 2
        assert not any("0142" in m.text for m in eng.query(namespace="a", limit=50))
        later = eng.add_conversation([*chat, new], namespace="a", session="ticket-2")
        assert later["already_stored"] == 2 and len(later["message_ids"]) == 1
        assert eng.get(later["message_ids"][0], namespace="a").text == "user: Can you resend invoice 77?"


def test_a_session_node_names_no_speaker_whose_every_message_was_erased(tmp_store):
    """helper-235: after every message of Dana's was erased (and compact), the session node still
    read "Session ticket-2 of Dana_Whitfield and assistant, ..." and her name stayed on disk. The
    node now names only the speakers who have a message left, its vector follows its text, and
    nothing else holds the name."""
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        out = eng.add_conversation([
            {"role": "user", "name": "Dana_Whitfield", "content": "Please send invoices to me, phone +1 555 0142.",
             "created_at": "2025-01-22T10:00:00Z"},
            {"role": "assistant", "content": "Done, invoices will go to you.", "created_at": "2025-01-22T10:01:00Z"},
            {"role": "user", "name": "Hank", "content": "I'm the admin here.", "created_at": "2025-01-22T10:02:00Z"}],
            namespace="acct", session="ticket-2")
        sessions = lambda: [m.text for m in eng.query(namespace="acct", tags="session")]   # noqa: E731
        assert sessions() == ["Session ticket-2 of Dana_Whitfield and assistant and Hank, 22 January 2025"]
        eng.forget(out["message_ids"][0], namespace="acct", hard=True)
        assert sessions() == ["Session ticket-2 of assistant and Hank, 22 January 2025"]
        for mid in out["message_ids"][1:]:
            eng.forget(mid, namespace="acct", hard=True)
        assert sessions() == ["Session ticket-2, 22 January 2025"]
        node = eng.query(namespace="acct", tags="session")[0]
        assert np.allclose(eng.get(node.id, namespace="acct", with_embedding=True).embedding,
                           eng.embedder.embed([node.text])[0], atol=1e-6)
        eng.compact()
    assert b"Whitfield" not in (tmp_store / "data.mdb").read_bytes()


def test_an_erased_message_sent_again_with_its_time_stays_erased_wherever_it_is_sent(tmp_store):
    """helper-236: the holes lined up only by position: a window over the tail that holds erased
    messages, an erased message sent alone, or a new message sent before the erased ones of a
    session erased whole stored the erased text again (and dropped the new one). A session node
    keeps its erased messages' times: one sent again with such a time is the erased one."""
    chat = [{"role": "user", "content": "Hi, I have a billing question", "created_at": "2025-01-22T09:00:00Z"},
            {"role": "assistant", "content": "Sure.", "created_at": "2025-01-22T09:00:05Z"},
            {"role": "user", "content": "My card is 4111 1111 1111 1111", "created_at": "2025-01-22T09:01:00Z"},
            {"role": "assistant", "content": "Thanks, card ending 1111 noted.", "created_at": "2025-01-22T09:01:05Z"}]
    new = {"role": "user", "content": "Is the refund done?", "created_at": "2025-01-23T09:00:00Z"}
    hello = {"role": "user", "content": "Hello again!", "created_at": "2025-01-21T08:00:00Z"}
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        ids = eng.add_conversation(chat, namespace="a", session="t")["message_ids"]
        for mid in ids[2:]:
            eng.forget(mid, namespace="a", hard=True)
        tail = eng.add_conversation([*chat[2:], new], namespace="a", session="t")   # a window over the tail
        assert tail["already_stored"] == 2 and len(tail["message_ids"]) == 1
        assert eng.add_conversation([chat[3]], namespace="a", session="t")["message_ids"] == []   # alone
        for mid in ids[:2] + tail["message_ids"]:
            eng.forget(mid, namespace="a", hard=True)
        again = eng.add_conversation([hello, *chat, new], namespace="a", session="t")   # erased whole
        assert [eng.get(m, namespace="a").text for m in again["message_ids"]] == ["user: Hello again!"]
        assert not any("4111" in m.text or "refund" in m.text for m in eng.query(namespace="a", limit=50))


def test_a_hard_forget_erases_the_entities_only_its_text_named_and_rewords_names_with_and(tmp_store):
    """helper-236: entity nodes made from an erased message's text ("E:dana whitfield") stayed,
    with no edge, after every message naming them was erased; a speaker named "Tom and Jerry"
    stayed in the session node (its text was split at " and ")."""
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        eng.add_conversation([
            {"role": "user", "name": "Tom and Jerry", "content": "My name is Dana Whitfield and my employer is Kestrel Analytics.",
             "created_at": "2025-01-22T09:00:00Z"},
            {"role": "assistant", "content": "Hello!", "created_at": "2025-01-22T09:00:05Z"},
            {"role": "user", "name": "Tom and Jerry", "content": "Dana Whitfield again: Kestrel Analytics pays me monthly.",
             "created_at": "2025-01-22T09:01:00Z"},
            {"role": "user", "name": "Bo", "content": "Kestrel Analytics is hiring, I hear.", "created_at": "2025-01-22T09:02:00Z"}],
            namespace="n", session="s")
        entities = lambda: sorted(m.id for m in eng.query(namespace="n", tags="entity"))   # noqa: E731
        assert "E:dana whitfield" in entities() and "E:kestrel analytics" in entities()
        eng.forget("s:1", namespace="n", hard=True)
        eng.forget("s:3", namespace="n", hard=True)
        assert "E:dana whitfield" not in entities() and "E:kestrel analytics" in entities()   # Bo names it still
        assert [m.text for m in eng.query(namespace="n", tags="session")] == ["Session s of assistant and Bo, 22 January 2025"]


def test_an_exchange_repeated_on_a_later_day_is_stored(tmp_store):
    """One add_conversation per exchange under one label (README): an exchange repeating an
    earlier one word for word, days later with its own created_at, was dropped as already
    stored (hostile pass); the same exchange sent again with its own times still is."""
    def exchange(day):
        return [{"role": "user", "content": "Did I take my pills?", "created_at": f"2024-03-0{day}T08:00:00Z"},
                {"role": "assistant", "content": "Yes, at 8am.", "created_at": f"2024-03-0{day}T08:00:05Z"}]
    with engramdb.open(tmp_store) as eng:
        assert len(eng.add_conversation(exchange(1), namespace="u", session="med")["message_ids"]) == 2
        later = eng.add_conversation(exchange(3), namespace="u", session="med")
        assert later["already_stored"] == 0 and later["message_ids"] == ["med:3", "med:4"]
        assert [m.text for m in eng.query(namespace="u", since="2024-03-03", until="2024-03-04", order="event_time_asc")] \
            == ["user: Did I take my pills?", "assistant: Yes, at 8am."]
        again = eng.add_conversation(exchange(1) + exchange(3), namespace="u", session="med")
        assert again["already_stored"] == 4 and again["message_ids"] == []


def test_a_new_message_after_an_erased_last_one_is_stored(tmp_store):
    """With the places of erased last messages kept, a new message sent where the erased one
    had been (its history re-sent without the erased turn, or a window over the tail) was taken
    for it and lost (hostile pass): a place after the last stored message takes only a message
    no later than the newest the session had numbered."""
    hist = [{"role": "user", "content": c, "created_at": 1.7e9 + i}
            for i, c in enumerate(["I live in Berlin.", "Berlin sounds lovely.", "My PIN is 4321."])]
    new = {"role": "user", "content": "Book a table for Friday.", "created_at": 1.7e9 + 7 * 86400}
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(hist, namespace="u", session="s")
        eng.forget("s:3", namespace="u", hard=True)
        assert eng.add_conversation(hist, namespace="u", session="s")["message_ids"] == []   # stays erased
        out = eng.add_conversation(hist[:2] + [new], namespace="u", session="s")
        assert out["message_ids"] == ["s:4"] and out["already_stored"] == 2
        eng.forget("s:4", namespace="u", hard=True)
        later = dict(new, content="Thanks!", created_at=1.7e9 + 8 * 86400)
        out = eng.add_conversation(hist[1:2] + [later], namespace="u", session="s")   # a window
        assert out["message_ids"] == ["s:5"] and out["already_stored"] == 1


@pytest.mark.parametrize("changed", [0, 1])
def test_a_single_exchange_with_one_message_changed_stores_only_that_one(tmp_store, changed):
    """[question, reply] sent again with the reply regenerated (or the question edited) stored
    both messages again: the fallback alignment needed two matches (hostile pass). One match
    is enough when it gives its time (without one, see the test below)."""
    chat = [{"role": "user", "content": "Where should I eat in Lisbon tonight?", "created_at": 1.7e9},
            {"role": "assistant", "content": "Try Cervejaria Ramiro for seafood.", "created_at": 1.7e9 + 5}]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        again = [dict(m) for m in chat]
        again[changed]["content"] = "Something else entirely, reworded."
        out = eng.add_conversation(again, namespace="u", session="s")
        assert out["message_ids"] == ["s:3"] and out["already_stored"] == 1


def test_exchanges_stored_one_by_one_without_times_keep_a_repeated_reply(tmp_store):
    """An agent storing [question, reply] per call without created_at: a reply that repeats the
    previous one ("4", "Done.") was taken for it sent again and lost (fresh-user pass): one
    match is enough only with its time."""
    with engramdb.open(tmp_store) as eng:
        for q in ["What is 2+2?", "And 3+1?", "And 1+3?"]:
            out = eng.add_conversation([{"role": "user", "content": q}, {"role": "assistant", "content": "4"}],
                                       namespace="u", session="math")
            assert len(out["message_ids"]) == 2, out
        assert sum(m.text == "assistant: 4" for m in eng.query(namespace="u", limit=100)) == 3


def test_one_message_sent_again_with_its_time_is_stored_once(tmp_store):
    """A window of one middle message, or a window whose first message was edited, sent again
    with created_at under the label: the unchanged message (same words, same time) was stored
    a second time (fresh-user pass)."""
    chat = [{"role": ("user", "assistant")[i % 2], "content": c, "created_at": 1.7e9 + 60 * i}
            for i, c in enumerate(["Plan a trip to Lisbon.", "What is your budget?",
                                   "About 150 euros per night for the hotel.", "Got it, 150 euros per night."])]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="trip")
        assert eng.add_conversation(chat[1:2], namespace="u", session="trip")["message_ids"] == []
        window = [dict(m) for m in chat[2:]]
        window[0]["content"] = "About 120 euros per night for the hotel."
        out = eng.add_conversation(window, namespace="u", session="trip")
        assert out["already_stored"] == 1 and len(out["message_ids"]) == 1
        texts = [m.text for m in eng.query(namespace="u", limit=100)]
        assert texts.count("assistant: Got it, 150 euros per night.") == 1


@pytest.mark.parametrize("erased", ["m2", "m3"])
def test_an_erased_message_with_its_own_id_stays_erased(tmp_store, erased):
    """Messages sent with their own ids left no place when erased: the history sent again
    stored the erased PIN again (hostile pass). Its session node lists the erased id."""
    chat = [{"role": "user", "content": c, "id": f"m{i + 1}"}
            for i, c in enumerate(["Hi.", "My PIN is 4321.", "Thanks."])]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        eng.forget(erased, namespace="u", hard=True)
        out = eng.add_conversation(chat, namespace="u", session="s")
        assert out["message_ids"] == [] and out["already_stored"] == 3
        assert erased not in {m.id for m in eng.query(namespace="u", limit=100)}


def test_an_import_that_keeps_a_session_node_keeps_the_exports_erased_places(tmp_path):
    """import_from(on_conflict="skip") kept the store's own session node, whose last place was
    smaller than the export's: a message the exporting store had erased came back on the next
    re-send (hostile pass)."""
    chat = [{"role": "user", "content": "My locker code is 4411."},
            {"role": "assistant", "content": "Noted, locker code saved."},
            {"role": "user", "content": "Also my badge PIN is 9090."}]
    with engramdb.open(tmp_path / "a") as src:
        src.add_conversation(chat, session="s")
        src.forget("s:3", hard=True)
        src.export(tmp_path / "x.parquet")
    with engramdb.open(tmp_path / "b") as dst:
        dst.add_conversation(chat[:1], session="s")
        dst.import_from(tmp_path / "x.parquet", on_conflict="skip")
        assert dst.add_conversation(chat, session="s")["message_ids"] == []
        assert not any("9090" in m.text for m in dst.query(limit=100))


@pytest.mark.parametrize("change", ["dropped", "inserted", "both"])
def test_a_chat_sent_again_with_a_message_dropped_or_inserted_stores_no_copies(tmp_store, change):
    """One message dropped from (or inserted into) the middle of a 20-message history sent again
    stored every message after it a second time: the fallback lined up one offset only
    (fresh-user pass). Offsets are now taken one after another."""
    chat = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"Message number {i} about topic {i * 7 % 11}."}
            for i in range(20)]
    new = {"role": "user", "content": "A brand new question in the middle."}
    again = [dict(m) for m in chat]
    if change in ("dropped", "both"):
        del again[10]
    if change in ("inserted", "both"):
        again.insert(5, new)
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        out = eng.add_conversation(again, namespace="u", session="s")
        texts = [m.text for m in eng.query(namespace="u", limit=100)]
    assert len(texts) == len(set(texts))   # no message twice
    assert out["already_stored"] == (19 if change != "inserted" else 20)
    assert len(out["message_ids"]) == (0 if change == "dropped" else 1)


@pytest.mark.parametrize("drop", [1, 2])
def test_a_short_chat_sent_again_with_one_message_dropped_stores_nothing(tmp_store, drop):
    """A three-message chat sent again without its middle message stored the other two again:
    each side of the drop held one match, and an offset needed two (hostile pass)."""
    chat = _msgs(["I need a gift idea for my sister.", "What does she like?", "She loves gardening and old maps."])
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        out = eng.add_conversation(chat[:drop] + chat[drop + 1:], namespace="u", session="s")
        assert out["message_ids"] == [] and out["already_stored"] == 2


def test_another_chat_under_the_label_sharing_two_short_replies_is_stored_whole(tmp_store):
    """The common-subsequence fallback takes more than half of the messages sent: another chat
    under the label whose "Sure." and "Thanks!" line up with the stored ones (two of four) lost
    them as already stored when half was enough (hostile pass)."""
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(_msgs(["Plan my week.", "Sure.", "Add the dentist on Monday.", "Thanks!"]),
                             namespace="u", session="s")
        sent = [{"role": "user", "content": "Where is my passport?"}, {"role": "user", "content": "Any idea?"},
                {"role": "assistant", "content": "Sure."}, {"role": "assistant", "content": "Thanks!"}]
        out = eng.add_conversation(sent, namespace="u", session="s")
        assert len(out["message_ids"]) == 4 and out["already_stored"] == 0


def test_short_replies_repeated_after_an_edit_are_new_messages(tmp_store):
    """With offsets taken one after another, a few short messages that repeat earlier ones ("Ok.",
    "Thanks!") must not pair with those across the rest of the chat (before what was already
    lined up): they are new. Without the order check, they were taken as stored and lost."""
    stored = ["Plan the trip to Rome.", "Ok.", "Thanks!", "Book the hotel near Termini.", "Which dates?",
              "The 3rd to the 9th of May.", "Done, booked."]
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation([{"role": "user", "content": c} for c in stored], namespace="u", session="s")
        # a window over the tail with one message edited, then two short replies said again
        sent = [stored[3], "Which dates, exactly?", stored[5], stored[6], "Ok.", "Thanks!"]
        out = eng.add_conversation([{"role": "user", "content": c} for c in sent], namespace="u", session="s")
        assert out["already_stored"] == 3
        assert [eng.get(i, namespace="u").text for i in out["message_ids"]] == [
            "user: Which dates, exactly?", "user: Ok.", "user: Thanks!"]


def test_resending_an_edited_history_again_and_again_stores_the_edit_once(tmp_store):
    """An edited message is stored after the session's messages; the same history sent again
    stored the edit again on every re-send, an edit followed by a dropped message stored the
    whole chat again, and dropping the second (or second-to-last) message stored its neighbour
    again (last fresh-user pass)."""
    chat = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"Turn {i}: about the {w} plan.",
             "created_at": 1.7e9 + 60 * i} for i, w in enumerate("ab cd ef gh ij kl mn op qr st uv wx".split() * 2)]
    edited = [dict(m) for m in chat]
    edited[6]["content"] = "Turn 6: about something else entirely."
    with engramdb.open(tmp_store) as eng:
        eng.add_conversation(chat, namespace="u", session="s")
        assert len(eng.add_conversation(edited, namespace="u", session="s")["message_ids"]) == 1
        for _ in range(3):
            assert eng.add_conversation(edited, namespace="u", session="s")["message_ids"] == []
        for drop in (1, 12, 22):
            out = eng.add_conversation(edited[:drop] + edited[drop + 1:], namespace="u", session="s")
            assert out["message_ids"] == [] and out["already_stored"] == 23, drop
        assert eng.stats()["namespaces"]["u"]["memories"] == 24 + 1 + 1   # messages, the edit, the session node


def test_a_users_health_family_and_identity_facts_outlive_a_quiet_year(tmp_path):
    """add_conversation tagged nothing protected, so "I'm allergic to peanuts" said once in a chat
    and never recalled was archived by the default rescore about 47 days later. The user's
    messages that state an identity, health or family fact are tagged protected, as admit_batch
    tags them; the assistant's, and other messages, are not and still fade."""
    t0 = 1_700_000_000.0
    msgs = [{"role": "user", "content": "I'm allergic to peanuts and shellfish.", "created_at": t0},
            {"role": "assistant", "content": "Peanut allergies can be serious, carry your epinephrine pen.",
             "created_at": t0 + 1},
            {"role": "user", "content": "My sister Ingrid lives in Oslo.", "created_at": t0 + 2},
            {"role": "user", "content": "I work at Acme as a nurse on the night shift.", "created_at": t0 + 3},
            {"role": "user", "content": "We watched a documentary about whales yesterday.", "created_at": t0 + 4}]
    store = tmp_path / "s"
    with engramdb.open(store, embedder="hashing") as eng:
        eng.add_conversation(msgs, namespace="u", session="s", recorded_at=t0 + 5)
        protected = {m.text for m in eng.query(namespace="u", tags=["protected"])}
        assert protected == {"user: I'm allergic to peanuts and shellfish.", "user: My sister Ingrid lives in Oslo.",
                             "user: I work at Acme as a nurse on the night shift."}
        eng.rescore(t0 + 365 * 86400)
        active = {m.text for m in eng.query(namespace="u", limit=50)}
        assert protected <= active
        assert "user: We watched a documentary about whales yesterday." not in active   # archived
        assert not [t for t in active if t.startswith("assistant:")]
    # protect_roles=() (the CLI's --no-protect) tags none; another role can be named
    with engramdb.open(tmp_path / "t", embedder="hashing") as eng:
        eng.add_conversation(msgs, namespace="u", session="s", protect_roles=())
        assert eng.query(namespace="u", tags=["protected"]) == []
    with engramdb.open(tmp_path / "v", embedder="hashing") as eng:
        eng.add_conversation(msgs, namespace="u", session="s", protect_roles=["assistant"])
        assert [m.text for m in eng.query(namespace="u", tags=["protected"])] == [
            "assistant: Peanut allergies can be serious, carry your epinephrine pen."]
        with pytest.raises(InvalidInputError, match="protect_roles"):
            eng.add_conversation(msgs, namespace="u", protect_roles="user")
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in msgs))
    for flags, want in (([], 3), (["--no-protect"], 0), (["--protect-role", "assistant"], 1)):
        where = tmp_path / f"cli{len(flags)}{want}"
        res = CliRunner().invoke(main, ["ingest-chat", "--store", str(where), "--embedder", "hashing", *flags, str(path)])
        assert res.exit_code == 0, res.output
        with engramdb.open(where, embedder="hashing") as eng:
            assert len(eng.query(namespace="default", tags=["protected"])) == want, flags


def test_questions_naming_a_category_are_not_protected(tmp_path):
    """protect_roles tagged "What's my name?" and "How do I convert 50mg to grams?" protected (never
    archived): a question names a category without stating it (hostile pass). Notes without a
    subject and hedged statements stay protected: keeping errs on the safe side."""
    msgs = [{"role": "user", "content": c} for c in (
        "What's my name?", "Where do I live?", "How do I convert 50mg to grams?", "Am I allergic to penicillin?!",
        "Please remember that I take 50 mg of sertraline daily.", "I think I'm allergic to penicillin.",
        "Never give me peanuts, I'm allergic.", "Take 20 mg of omeprazole before breakfast.")]
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add_conversation(msgs, namespace="u", session="s")
        assert sorted(m.text for m in eng.query(namespace="u", tags=["protected"])) == [
            "user: I think I'm allergic to penicillin.", "user: Never give me peanuts, I'm allergic.",
            "user: Please remember that I take 50 mg of sertraline daily.",
            "user: Take 20 mg of omeprazole before breakfast."]


@pytest.mark.parametrize("name", ["protected", "fact", "summary"])
def test_a_speaker_named_as_an_engine_tag_is_refused(tmp_path, name):
    """A speaker's name is a tag of its messages: a speaker "protected" made every message of it
    protected, with protect_roles=() too; one "fact" was taken for a promoted fact."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        with pytest.raises(InvalidInputError, match=f"messages\\[1\\]: name: '{name}' is a tag the engine gives"):
            eng.add_conversation([{"role": "user", "content": "hello there"},
                                  {"role": "user", "name": name, "content": "I like the colour blue."}],
                                 namespace="u", protect_roles=())
        assert eng.stats()["memories"] == 0


@pytest.mark.parametrize("said,protected", [
    ("I'm also allergic to penicillin, should I worry about that?", True),   # a statement, then a question
    ("My dad had a heart attack in 2019, what should he eat now?", True),
    ("I take metformin twice a day.", True),
    ("I use a wheelchair.", True),
    ("I took the bus every morning.", False),
    ("We take a walk daily.", False),
    ("Am I allergic to penicillin?", False),
])
def test_protection_reads_each_clause(tmp_path, said, protected):
    """A fresh-user pass: "I'm also allergic to penicillin, should I worry about that?" was not
    protected (the whole sentence was taken for a question) and was archived five months later,
    as were a medication regimen without a dose and a wheelchair."""
    from engramdb.kinds import protected_category

    assert (protected_category(said)[0] is not None) == protected
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add_conversation([{"role": "user", "content": said}], namespace="u", session="s")
        assert len(eng.query(namespace="u", tags=["protected"])) == int(protected)


@pytest.mark.parametrize("said,category", [
    # contact details and documents
    ("My phone number is 912 345 678.", "identity"), ("you can text me at +44 7700 900123", "identity"),
    ("Priya's email is priya.n@example.org", "identity"), ("Email me the slides at bob@acme.com", "identity"),
    ("My passport number is X1234567.", "identity"),
    # injuries and lasting conditions
    ("I sprained my ankle last week.", "health"), ("I broke my leg skiing in January.", "health"),
    ("tore my ACL playing football", "health"), ("I'm recovering from a concussion.", "health"),
    ("I have PTSD from the accident.", "health"), ("I'm 8 months sober.", "health"),
    ("My therapist is Dr Lee.", "health"), ("My bad back is acting up again.", "health"),
    # family events, in an episode too, and the speaker's marital state
    ("My dad passed away last year.", "family"), ("My mom died in 2019.", "family"),
    ("My sister got married in June.", "family"), ("I got divorced last year.", "family"),
    ("We just got engaged!", "family"),
    # diet, faith and languages as the speaker's state
    ("I'm vegetarian.", "identity"), ("I keep kosher.", "identity"), ("I don't eat pork.", "identity"),
    ("We've been vegan for years.", "identity"), ("I speak Portuguese and English.", "identity"),
    ("Portuguese is my native language.", "identity"),
    # near misses: the same words, no such fact
    ("I broke my phone.", None), ("My phone died.", None), ("We went to a vegan restaurant.", None),
    ("Break a leg tonight!", None), ("I emailed the report to Tom.", None), ("I speak to my manager on Mondays.", None),
    ("The code is broken.", None), ("I hurt my feelings.", None), ("Call the bank at 10.", None),
    ("The order 123-4567 shipped.", None), ("That was a sobering thought.", None), ("I had lunch with my mom.", None),
    ("My son scored a goal yesterday.", None), ("I ate halal food yesterday.", None),
    ("What's my phone number?", None), ("Did I tell you my email?", None),
    # hostile pass on the widened rules: whose fact it is, and the words' other senses
    ("Please contact support@acme.com.", None), ("git config user.email dev@example.com", None),
    ("Ticket number 1234567 is still open.", None), ("Call the restaurant at (555) 123-4567 to book.", None),
    ("My mom's phone died.", None), ("The child process died.", None), ("My son passed his driving test!", None),
    ("My son adopted a puppy.", None), ("I separated the concerns into two modules.", None),
    ("I'm engaged in a lawsuit.", None), ("I married the two spreadsheets into one file.", None),
    ("I speak Python fluently.", None), ("I'm a Christian Bale fan.", None), ("LeBron sprained his ankle.", None),
    ("She twisted my arm into going.", None), ("The chair has a broken leg.", None), ("I'm 5 minutes away.", None),
    ("I'm divorced.", "family"), ("my grandma passed last week", "family"), ("We lost my mom in March.", "family"),
    ("I'm 34, if that matters.", "identity"), ("Im vegan", "identity"), ("native Spanish speaker here", "identity"),
])
def test_contact_details_injuries_family_events_and_diet_are_protected(said, category):
    """A companion-app user's phone number, sprained ankle and a parent's death were archived by
    the default rescore: protection knew allergies, conditions, family facts and jobs, but no
    contact details, injuries, family events (in an episode), diet, faith or languages."""
    from engramdb.kinds import protected_category

    assert protected_category(said)[0] == category, protected_category(said)


def test_a_companion_users_phone_injury_and_loss_outlive_a_quiet_year(tmp_path):
    """The user story behind the widened rules, end to end: add_conversation tags the user's
    messages, and a default rescore a year later keeps them while the chatter beside them fades."""
    t0 = 1_700_000_000.0
    said = ["My number is 912 345 678, text me if anything changes.", "I sprained my ankle on the stairs yesterday.",
            "My dad passed away last spring.", "I'm vegetarian, so no meat in the recipes please.",
            "We watched a documentary about whales yesterday."]
    msgs = [{"role": "user", "content": c, "created_at": t0 + i} for i, c in enumerate(said)]
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add_conversation(msgs, namespace="u", session="s", recorded_at=t0 + 10)
        protected = {m.text for m in eng.query(namespace="u", tags=["protected"])}
        assert protected == {f"user: {c}" for c in said[:4]}
        eng.rescore(t0 + 365 * 86400)
        active = {m.text for m in eng.query(namespace="u", limit=50)}
    assert protected <= active
    assert "user: We watched a documentary about whales yesterday." not in active


@pytest.mark.parametrize("said", [
    "I'm allergic to penicillin\nis amoxicillin ok?", "I'm allergic to penicillin - should I worry?",
    "I'm allergic to penicillin,should I worry?", "I have type 2 diabetes so what can I eat for breakfast?",
    "My wife is pregnant can you suggest names?", "I'm allergic to penicillin right?",
    "I'm allergic to peanuts (is that common?)", "My son, who has epilepsy, starts school on Monday.",
    "Did you know I'm allergic to peanuts?", "Remember, I'm allergic to penicillin?", "Allergies: penicillin",
])
def test_a_fact_beside_a_question_is_protected(said):
    """Hostile pass: a statement sharing a clause, a line or a dash with a question, a relative
    clause taken for a question, a note-style label: each was missed and archived later."""
    from engramdb.kinds import protected_category

    assert protected_category(said)[0] is not None



def test_a_chat_sent_again_returns_the_same_keys(tmp_path):
    """A fresh user's agent read out["corrected"] after sending a stored session again: KeyError
    (the summary of a call that stored nothing lacked it)."""
    chat = [{"role": "user", "content": "I take 500 mg of metformin.", "created_at": "2025-01-05T10:00:00Z"},
            {"role": "assistant", "content": "Noted.", "created_at": "2025-01-05T10:00:05Z"}]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        first = mem.add_conversation(chat, session="a")
        again = mem.add_conversation(chat, session="a")
    assert set(again) == set(first)
    assert again["already_stored"] == 2 and again["corrected"] == [] and again["message_ids"] == []


@pytest.mark.parametrize("first,again", [(".123Z", "Z"), ("Z", ".456Z")])
@pytest.mark.parametrize("labelled", [True, False])
def test_a_chat_sent_again_with_its_times_to_the_second_is_already_stored(tmp_store, first, again, labelled):
    """helper104: a chat first sent with milliseconds and sent again with its times cut to the
    second (a chat store that keeps seconds) stored 3 of its 4 messages again: a message's time
    was compared within a millisecond only."""
    msgs = [("user", "I adopted a cat named Miso.", "2025-03-01T09:00:00"),
            ("assistant", "Cute! How old is she?", "2025-03-01T09:00:05"),
            ("user", "She is three years old.", "2025-03-01T09:01:00"),
            ("assistant", "Lovely age.", "2025-03-01T09:01:05")]
    session = {"session": "cat"} if labelled else {}
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        eng.add_conversation([{"role": r, "content": c, "created_at": t + first} for r, c, t in msgs], namespace="u",
                             **session)
        out = eng.add_conversation([{"role": r, "content": c, "created_at": t + again} for r, c, t in msgs],
                                   namespace="u", **session)
        assert out["already_stored"] == 4 and out["message_ids"] == []
        # the same words a second later or more are another message (a repeated exchange)
        later = eng.add_conversation([{"role": "user", "content": msgs[0][1], "created_at": "2025-03-01T09:00:01.500Z"}],
                                     namespace="u", **session)
        assert later["already_stored"] == 0 and len(later["message_ids"]) == 1


def _session_chain(eng, ns="u"):
    return sorted((e.source, e.target) for s in eng.query(namespace=ns, tags=["session"], limit=100)
                  for e in eng.edges(s.id, namespace=ns)
                  if e.relation is Relation.NEXT and e.source == s.id and e.target.startswith("S:"))


def test_sessions_stored_one_call_each_are_one_chain(tmp_store):
    """helper103: a chat stored one session a call (the README's chat agent) linked no session to
    the next; one call with the whole chat did. Each new session is linked from the stored one
    that started last before it, and to the one that starts first after it (a session backfilled
    between two)."""
    def session(label, day):
        return [{"role": "user", "content": f"Note {label}: something happened on day {day}.",
                 "created_at": f"2025-03-{day:02d}T09:00:00Z"},
                {"role": "assistant", "content": f"Noted for day {day}.", "created_at": f"2025-03-{day:02d}T09:00:05Z"}]
    with engramdb.open(tmp_store, embedder="hashing") as eng:
        for label, day in (("a", 1), ("b", 5), ("d", 20)):
            eng.add_conversation(session(label, day), namespace="u", session=label)
        assert _session_chain(eng) == [("S:a", "S:b"), ("S:b", "S:d")]
        eng.add_conversation(session("c", 12), namespace="u", session="c")   # backfilled between b and d
        assert _session_chain(eng) == [("S:a", "S:b"), ("S:b", "S:c"), ("S:b", "S:d"), ("S:c", "S:d")]
        eng.add_conversation(session("d", 21)[:1], namespace="u", session="d")   # a stored session goes on
        assert _session_chain(eng) == [("S:a", "S:b"), ("S:b", "S:c"), ("S:b", "S:d"), ("S:c", "S:d")]
    with engramdb.open(tmp_store.parent / "whole", embedder="hashing") as eng:
        eng.add_conversation([{**m, "session": label} for label, day in (("a", 1), ("b", 5), ("d", 20))
                              for m in session(label, day)], namespace="u")
        assert _session_chain(eng) == [("S:a", "S:b"), ("S:b", "S:d")]
