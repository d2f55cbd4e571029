"""Hostile writes: bugs found by attacking the write verbs through the public API (and the CLI).

Each test asserts the documented behaviour (README / docstrings) that the engine broke.
"""
import time

import pytest

import engramdb
from engramdb import errors
from engramdb.testing import store_digest


def _next_second():
    time.sleep(1.0 - time.time() % 1.0 + 0.05)


def test_an_unlabeled_chat_sent_again_later_finds_its_own_session(tmp_path):
    # README (Chats): "a chat without a session label gets a fresh one (the same chat sent again
    # finds its own session by its first message)". The fresh label is chat-<int(now)> for
    # messages without created_at, so a re-send in a later second was stored again whole
    # (`engramdb ingest-chat chat.jsonl` run twice doubled the chat).
    chat = [{"role": "user", "content": f"chat turn {i} about sailing"} for i in range(3)]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        first = mem.add_conversation([dict(m) for m in chat])
        assert first["already_stored"] == 0
        n = mem.stats()["memories"]
        _next_second()
        again = mem.add_conversation([dict(m) for m in chat])
        assert again["already_stored"] == 3
        assert again["memories"] == 0 and again["sessions"] == []
        assert mem.stats()["memories"] == n


@pytest.mark.parametrize("verb", ["add_batch", "link_batch", "admit_batch"])
def test_a_batch_verb_refuses_a_non_iterable_with_an_engram_error(tmp_path, verb):
    # README: "every error derives from engramdb.EngramError"; add_batch({...}) and
    # add_conversation(5) say InvalidInputError, but add_batch(5) raised a bare TypeError.
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("a first memory", id="a")
        before = store_digest(mem)
        with pytest.raises(errors.EngramError):
            getattr(mem, verb)(5)
        assert store_digest(mem) == before


def test_a_summarizer_answer_of_invisible_characters_skips_the_session(tmp_path):
    # Engram.consolidate: "an empty answer skips the session"; README: a text of only
    # whitespace and invisible characters (U+200B ...) is empty. Such an answer aborted the
    # whole consolidation with EmptyTextError("text: ... store something to remember").
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        msgs = [{"role": "user", "content": f"We talked about the garden project and tomato plants number {i}.",
                 "created_at": 1700000000 + 60 * i} for i in range(4)]
        mem.add_conversation(msgs, session="g1")
        out = mem.consolidate(summarizer=lambda texts: "\u200b")
        assert out["summaries"] == 0
        assert mem.query(tags="summary") == []


@pytest.mark.parametrize("tag", ["session", "entity"])
def test_a_user_tag_named_like_a_connector_does_not_silently_hide_the_memory(tmp_path, tag):
    # README: "Tags are a list of strings"; only the engine's session and entity *nodes* are
    # kept out of recall hits. A user's own memory tagged "session" or "entity" was accepted
    # and then never returned by recall (nor listed in context()). Either refuse the tag with an
    # EngramError, or recall the memory.
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("The yak sings opera at dawn", id="y")
        try:
            mem.add("The walrus sings opera at noon", id="w", tags=[tag])
        except errors.EngramError:
            assert mem.query() and [m.id for m in mem.query()] == ["y"]
            return
        assert "w" in [h.id for h in mem.recall("walrus sings opera", k=5).hits]


# ---------------------------------------------------------------- the same kinds, more widely


@pytest.mark.parametrize("tag", ["session", "entity", "piece", "summary"])
def test_every_write_verb_refuses_a_reserved_tag_and_changes_nothing(tmp_path, tag):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("a first memory", id="a", tags=["fact", "Session"])   # 'fact' and other cases are a caller's tags
        before = store_digest(mem)
        for call in (lambda: mem.add("x", tags=[tag]), lambda: mem.add_batch([{"text": "y"}, {"text": "z", "tags": tag}]),
                     lambda: mem.update("a", tags=[tag]), lambda: mem.admit_batch([{"text": "w", "tags": [tag]}])):
            with pytest.raises(errors.InvalidInputError, match=repr(tag)):
                call()
        with pytest.raises(errors.InvalidInputError, match="name"):
            mem.add_conversation([{"role": "user", "name": tag, "content": "hello there"}])
        assert store_digest(mem) == before


def test_batch_verbs_still_take_generators(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        ids = mem.add_batch({"text": f"memory number {i}"} for i in range(3))
        assert len(ids) == 3
        assert len(mem.link_batch((a, b, "next") for a, b in zip(ids, ids[1:]))) == 2
        with pytest.raises(errors.InvalidInputError, match="wrap it in a list"):
            mem.add_batch({"text": "one mapping"})


def test_an_oversize_summarizer_answer_names_the_session_and_writes_nothing(tmp_path):
    config = engramdb.EngramConfig(store=engramdb.StoreConfig(max_text_chars=500))
    with engramdb.open(tmp_path / "s", embedder="hashing", config=config) as mem:
        msgs = [{"role": "user", "content": f"We planted tomatoes in row {i} of the garden.",
                 "created_at": 1700000000 + 60 * i} for i in range(4)]
        mem.add_conversation(msgs, session="g1")
        before = store_digest(mem)
        with pytest.raises(errors.OversizeError, match="summarizer"):
            mem.consolidate(summarizer=lambda texts: "long " * 200)
        assert store_digest(mem) == before


def test_a_batch_whose_repeated_text_carries_a_bad_link_writes_nothing(tmp_path):
    # add_batch is one transaction, all or none: its new memories were committed first, then
    # the links of an item repeating a stored text were checked and written on their own (here a
    # link of the stored memory to itself), and the call raised with half the batch stored
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("The wifi password is cornflower42.", id="wifi")
        before = store_digest(mem)
        with pytest.raises(errors.InvalidInputError, match="itself"):
            mem.add_batch([{"text": "A brand new memory.", "id": "new1"},
                           {"text": "The wifi password is cornflower42.", "links": [{"to": "wifi"}]}])
        assert store_digest(mem) == before


def test_a_batch_with_a_repeated_text_is_one_ledger_entry(tmp_path):
    # its new memories, the repeat's links and the repeat's reinforcement commit together
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("The wifi password is cornflower42.", id="wifi")
        mem.add("The router is in the hall.", id="router")
        n = len(mem.ledger())
        ids = mem.add_batch([{"text": "A brand new memory.", "id": "new1"},
                             {"text": "The wifi password is cornflower42.", "links": [{"to": "router"}]}])
        assert ids == ["new1", "wifi"]
        assert [e.verb for e in mem.ledger()][n:] == ["add_batch"]
        assert any(e.target == "router" for e in mem.edges("wifi"))
