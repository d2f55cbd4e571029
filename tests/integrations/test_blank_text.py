"""Text that shows nothing (empty, whitespace, or only invisible characters such as U+200B) is
what engramdb's own blank test (``engramdb.validate.is_blank``) says it is, in every integration:
a blank indexed field of a LangGraph item is a missing one, a blank query is no query, a blank
chat message is skipped, never an ``EmptyTextError`` that sinks the whole call."""
import asyncio

import numpy as np
import pytest

import engramdb

from .conftest import need

BLANKS = ["", "   \n", "\u200b", "\ufeff\u00ad", "\u200b \u2060"]


# ---------------------------------------------------------------------------- LangGraph store
def _langgraph():
    need("langgraph")
    from engramdb.integrations.langchain import EngramStore

    return EngramStore


@pytest.mark.parametrize("blank", BLANKS)
@pytest.mark.parametrize("how", ["index", "fields"])
def test_a_blank_indexed_field_is_stored_unindexed_like_a_missing_one(tmp_path, blank, how):
    store = _langgraph().open(tmp_path / "lg", embedder="hashing", fields=["text"] if how == "fields" else None)
    index = ["text"] if how == "index" else None
    try:
        ns = ("users", "42")
        store.put(ns, "real", {"text": "the user's cat is called Tom"}, index=index)
        store.put(ns, "blank", {"text": blank, "tags": ["todo"]}, index=index)
        store.put(ns, "missing", {"note": "no text field"}, index=index)
        assert store.get(ns, "blank").value == {"text": blank, "tags": ["todo"]}
        hits = store.search(ns, query="what is the cat called", limit=10)
        assert hits[0].key == "real" and hits[0].score is not None
        # both unscored, after the ranked item, as LangGraph lists unindexed items
        assert {h.key for h in hits[1:]} == {"blank", "missing"} and all(h.score is None for h in hits[1:])
        # an existing key updated to a blank field: the same
        store.put(ns, "real", {"text": blank}, index=index)
        assert store.get(ns, "real").value == {"text": blank}
        assert all(h.score is None for h in store.search(ns, query="cat called Tom", limit=10))
    finally:
        store.engram.close()


def test_blank_texts_among_the_fields_are_left_out_of_the_vector(tmp_path):
    store = _langgraph().open(tmp_path / "lg", embedder="hashing", fields=["a", "b", "c"])
    try:
        store.put(("m",), "k", {"a": "\u200b", "b": "the user works as a nurse", "c": ""})
        vec = store.engram.get("k", namespace="m", with_embedding=True).embedding
        ref = store.engram.embedder.embed(["the user works as a nurse"])[0]
        np.testing.assert_allclose(vec, ref / np.linalg.norm(ref), rtol=1e-5, atol=1e-6)
    finally:
        store.engram.close()


@pytest.mark.parametrize("blank", BLANKS)
def test_a_blank_search_query_is_no_query(tmp_path, blank):
    store = _langgraph().open(tmp_path / "lg", embedder="hashing")
    try:
        for i in range(3):
            store.put(("log",), f"e{i}", {"text": f"event {i}", "i": i})
        listed = store.search(("log",), query=None, filter={"i": {"$gte": 1}}, limit=10)
        got = store.search(("log",), query=blank, filter={"i": {"$gte": 1}}, limit=10)
        assert [(i.key, i.score) for i in got] == [(i.key, i.score) for i in listed] == [("e2", None), ("e1", None)]
    finally:
        store.engram.close()


# ---------------------------------------------------------------------------- LlamaIndex memory block
def _llamaindex():
    need("llama_index.core")
    from llama_index.core.base.llms.types import ChatMessage

    from engramdb.integrations.llamaindex import EngramMemoryBlock

    return ChatMessage, EngramMemoryBlock


@pytest.mark.parametrize("blank", BLANKS)
def test_a_flush_with_a_blank_message_stores_the_others(tmp_path, blank):
    ChatMessage, EngramMemoryBlock = _llamaindex()
    with engramdb.open(tmp_path / "m", embedder="hashing") as mem:
        block = EngramMemoryBlock(engram=mem, namespace="chat")
        msgs = [ChatMessage(role="user", content="My sister Ana plays the cello in the Porto orchestra."),
                ChatMessage(role="assistant", content=blank),
                ChatMessage(role="user", content="I also booked flight TP 218 to Lisbon for May 14.")]
        asyncio.run(block.aput(msgs, session_id="s1"))
        stored = mem.query(namespace="chat", order="event_time_asc")
        assert sorted(m.text for m in stored) == sorted([msgs[0].content, msgs[2].content])
        assert all(m.tags == ("user",) and m.source == "s1" for m in stored)
        # a flush of blank messages only writes nothing (and no namespace)
        asyncio.run(EngramMemoryBlock(engram=mem, namespace="other").aput([ChatMessage(role="user", content=blank)]))
        assert mem.namespaces() == ["chat"]


def test_memory_flushing_an_invisible_message_keeps_the_conversation(tmp_path):
    """The hostile tester's case: ``Memory`` flushes a reply of only a zero-width space."""
    ChatMessage, EngramMemoryBlock = _llamaindex()
    from llama_index.core.memory import Memory

    with engramdb.open(tmp_path / "m", embedder="hashing") as mem:
        block = EngramMemoryBlock(engram=mem, namespace="chat")
        memory = Memory.from_defaults(session_id="s1", token_limit=40, chat_history_token_ratio=0.5,
                                      token_flush_size=10, memory_blocks=[block])
        texts = ["My sister Ana plays the cello in the Porto orchestra.", "\u200b",
                 "I also booked flight TP 218 to Lisbon for May 14.",
                 "Noted, that sounds lovely and I will remember it.",
                 "What else should I pack for the trip next week then?"]
        for i, t in enumerate(texts):
            memory.put(ChatMessage(role="user" if i % 2 == 0 else "assistant", content=t))
        memory.get()
        stored = [m.text for m in mem.query(namespace="chat", order="event_time_asc")]
        # what Memory flushed (the first four turns), the invisible reply left out
        assert sorted(stored) == sorted([texts[0], texts[2], texts[3]])


@pytest.mark.parametrize("blank", BLANKS)
def test_a_blank_latest_message_is_not_the_context_query(trip, blank):
    ChatMessage, EngramMemoryBlock = _llamaindex()
    block = EngramMemoryBlock(engram=trip, namespace="u", budget_tokens=300)
    question = "What is the confirmation code of my Lisbon flight?"
    got = asyncio.run(block.aget([ChatMessage(role="user", content=question),
                                  ChatMessage(role="user", content=blank)]))
    assert got == trip.context(question, namespace="u", budget_tokens=300).text and "QX7Z9M" in got
    # no message that shows anything: an empty block
    assert asyncio.run(block.aget([ChatMessage(role="user", content=blank)])) == ""
