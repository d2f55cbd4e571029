"""The LlamaIndex retriever in a RetrieverQueryEngine and the memory block in Memory and a chat
engine, with llama_index's MockLLM (no network: its tokenizer ships inside llama-index-core)."""
import asyncio

import pytest

import engramdb

from .conftest import need

need("llama_index.core")
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from engramdb.integrations.llamaindex import EngramMemoryBlock, EngramRetriever


def test_retriever_in_a_query_engine(trip):
    retriever = EngramRetriever(trip, namespace="u", k=3)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())   # MockLLM answers with its prompt
    response = engine.query("status of my TAP flight to Lisbon?")
    nodes = response.source_nodes
    assert all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    res = trip.recall("status of my TAP flight to Lisbon?", namespace="u", k=3, reinforce=False)
    assert [n.node.node_id for n in nodes] == [h.id for h in res.hits]
    assert [n.score for n in nodes] == pytest.approx([h.score for h in res.hits])
    code = next(n.node for n in nodes if n.node.node_id == "code")
    assert code.text == "The airline emailed confirmation code QX7Z9M."
    assert code.metadata["path"] == ["flight", "evidence_for:code"]
    assert code.metadata["date"] == "2024-04-02T10:05:00Z" and code.metadata["namespace"] == "u"
    # the prompt the LLM got holds each memory with its date, and none of the bookkeeping metadata
    prompt = str(response)
    assert "date: 2024-04-02T10:05:00Z\n\nThe airline emailed confirmation code QX7Z9M." in prompt
    assert "status of my TAP flight to Lisbon?" in prompt
    assert "relevance:" not in prompt and "path:" not in prompt


def test_retriever_async_and_errors(trip):
    nodes = asyncio.run(EngramRetriever(trip, namespace="u", k=1).aretrieve("confirmation code"))
    assert [n.node.node_id for n in nodes] == ["code"]
    with pytest.raises(engramdb.EmptyTextError):
        EngramRetriever(trip, namespace="u").retrieve("   ")


def test_retriever_of_a_new_user_answers_empty_naming_no_other(trip):
    """As the agent tools: a namespace that holds nothing yet answers no nodes (it raised
    NamespaceError, whose message named the other users' namespaces)."""
    assert EngramRetriever(trip, namespace="user-carol").retrieve("what is my PIN?") == []
    with pytest.raises(engramdb.EmptyTextError):   # the question is still checked
        EngramRetriever(trip, namespace="user-carol").retrieve("  ")


def test_memory_block_puts_engramdbs_context_in_the_system_message(trip):
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=4)
    block = EngramMemoryBlock(engram=trip, namespace="u", budget_tokens=300)
    memory = Memory.from_defaults(session_id="chat-1", token_limit=4000, memory_blocks=[block])
    chat = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
    reply = chat.chat("What is the confirmation code of my Lisbon flight?")
    assert str(reply) == "text text text text"
    system = llm.last_chat_messages[0]
    assert system.role.value == "system"
    want = trip.context("What is the confirmation code of my Lisbon flight?", namespace="u", budget_tokens=300).text
    assert want in system.content and "QX7Z9M" in want
    assert llm.last_chat_messages[-1].content == "What is the confirmation code of my Lisbon flight?"


def test_memory_block_stores_the_messages_memory_flushes(tmp_path):
    with engramdb.open(tmp_path / "m", embedder="hashing") as mem:
        block = EngramMemoryBlock(engram=mem, namespace="ana", budget_tokens=200)
        # before the namespace holds anything the block is empty, and Memory leaves it out
        assert asyncio.run(block.aget([ChatMessage(role="user", content="hello")])) == ""
        memory = Memory.from_defaults(session_id="s-1", token_limit=60, token_flush_size=20,
                                      chat_history_token_ratio=0.5, memory_blocks=[block])
        turns = ["My cat is called Tom and he likes fish.", "I work as a nurse in Porto.",
                 "My sister lives in Braga.", "I play the cello on Sundays."]
        for t in turns:
            memory.put(ChatMessage(role="user", content=t))
            memory.put(ChatMessage(role="assistant", content="Noted."))
        stored = mem.query(namespace="ana", order="event_time_asc")
        assert stored, "Memory flushed nothing into the block"
        assert [m.text for m in stored if "user" in m.tags] == turns[:len([m for m in stored if "user" in m.tags])]
        assert all(m.source == "s-1" and m.kind is engramdb.MemoryKind.EPISODIC for m in stored)
        # a later question gets the flushed fact back through the block
        messages = memory.get(input="what is my cat called?")
        assert messages[0].role.value == "system" and "My cat is called Tom" in messages[0].content


def test_a_new_users_retriever_checks_its_arguments_as_recall_does(trip):
    for ns in ("u", "user-carol"):
        with pytest.raises(engramdb.InvalidInputError, match="k: expected"):
            EngramRetriever(trip, namespace=ns, k=0).retrieve("flight")
        with pytest.raises(engramdb.UnknownKindError):
            EngramRetriever(trip, namespace=ns, kinds=["bogus"]).retrieve("flight")


def test_a_value_said_otherwise_later_is_flagged_to_the_llm(tmp_path):
    """helper103: the retrievers showed 75, 100 and 50 mg side by side with only their dates; the
    recall's warnings were dropped. A hit said otherwise later carries the ids that say so, and
    the LLM sees it."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("I take 50 mg of sertraline every morning.", id="old", namespace="u", created_at="2025-01-06")
        eng.add("My doctor raised my sertraline to 100 mg.", id="new", namespace="u", created_at="2025-02-01")
        retriever = EngramRetriever(eng, namespace="u", k=2)
        response = RetrieverQueryEngine.from_args(retriever, llm=MockLLM()).query("what dose of sertraline do I take?")
        meta = {n.node.node_id: n.node.metadata for n in response.source_nodes}
        assert meta["old"]["said_otherwise_later_in"] == "new" and "said_otherwise_later_in" not in meta["new"]
        assert "said_otherwise_later_in: new" in str(response)


def test_an_unknown_recall_argument_is_refused_when_the_retriever_is_made(trip):
    """helper106: recall_kwargs={...} (the LangChain retriever's form) was taken as one keyword,
    then the first query raised a bare TypeError from recall()."""
    with pytest.raises(engramdb.InvalidInputError, match=r"unknown recall argument\(s\) \['recall_kwargs'\]"):
        EngramRetriever(trip, namespace="u", recall_kwargs={"now": "2025-01-01"})
    assert EngramRetriever(trip, namespace="u", k=1, reinforce=False).retrieve("confirmation code")


def test_end_session_stores_what_memory_never_flushed(tmp_path):
    """helper-221: with Memory's default token limit a short session is never flushed, and the
    block stored nothing (0 memories after five sessions); the next session's prompt had no word
    of them. ``end_session`` stores what Memory still holds, once."""
    with engramdb.open(tmp_path / "m", embedder="hashing") as mem:
        block = EngramMemoryBlock(engram=mem, namespace="ana")
        memory = Memory.from_defaults(session_id="w1", memory_blocks=[block])
        for t in ("I live in Boston.", "My cat is called Tom."):
            memory.put(ChatMessage(role="user", content=t))
            memory.put(ChatMessage(role="assistant", content="Noted."))
        assert mem.stats()["memories"] == 0   # (Memory flushed nothing: the block never saw a message)
        assert block.end_session(memory) == 4
        stored = mem.query(namespace="ana", order="event_time_asc")
        assert [m.text for m in stored if "user" in m.tags] == ["I live in Boston.", "My cat is called Tom."]
        assert all(m.source == "w1" for m in stored)
        assert block.end_session(memory) == 0 and mem.stats()["memories"] == len(stored)   # stored once
        # the next session's prompt holds them
        memory2 = Memory.from_defaults(session_id="w2", memory_blocks=[block])
        messages = memory2.get(input="what is my cat called?")
        assert messages[0].role.value == "system" and "My cat is called Tom." in messages[0].content


def test_the_memory_block_runs_at_a_replayed_conversations_times(tmp_path):
    """helper-221: the block took no time, so a replayed conversation's messages were dated
    today and "last week" was the machine's."""
    clock = ["2025-03-04T08:00:00"]
    with engramdb.open(tmp_path / "m", embedder="hashing") as mem:
        block = EngramMemoryBlock(engram=mem, namespace="ana", now=lambda: clock[0])
        asyncio.run(block.aput([ChatMessage(role="user", content="I ran 5 km in the park this morning.")]))
        assert [m.created_at for m in mem.query(namespace="ana")] == [1741075200.0]   # 2025-03-04T08:00Z
        ask = [ChatMessage(role="user", content="what did I do last week?")]
        clock[0] = "2025-03-10"
        got = asyncio.run(block.aget(ask))
        assert "I ran 5 km" in got and "direct match" in got and "Gaps" not in got
        clock[0] = "2025-06-10"
        assert "No memory is dated \"last week\" (2025-06-02 to 2025-06-08)" in asyncio.run(block.aget(ask))
        fixed = EngramMemoryBlock(engram=mem, namespace="ana", now="2025-03-10")   # a value, not a clock
        assert "direct match" in asyncio.run(fixed.aget(ask))
