"""engramdb in LlamaIndex: a retriever in a query engine, and a memory block in a chat engine.

``MockLLM`` from llama-index-core stands in for the LLM (it answers with the prompt it got, which
shows what engramdb put in it), so this runs offline.

    python examples/llamaindex_memory.py
"""
from __future__ import annotations

import tempfile

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM
from llama_index.core.memory import Memory
from llama_index.core.query_engine import RetrieverQueryEngine

import engramdb
from engramdb.integrations.llamaindex import EngramMemoryBlock, EngramRetriever

with tempfile.TemporaryDirectory() as tmp, engramdb.open(tmp) as mem:   # (removed at the end)
    mem.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight", namespace="ana")
    mem.add("The airline emailed confirmation code QX7Z9M.", id="code", namespace="ana",
            links=[{"to": "flight", "relation": "evidence_for"}])

    engine = RetrieverQueryEngine.from_args(EngramRetriever(mem, namespace="ana", k=2), llm=MockLLM())
    response = engine.query("what is the code of my TAP flight?")
    print("nodes:", [(n.node.node_id, round(n.score, 3), n.node.metadata["path"]) for n in response.source_nodes])

    block = EngramMemoryBlock(engram=mem, namespace="ana", budget_tokens=300)
    memory = Memory.from_defaults(session_id="chat-1", token_limit=4000, memory_blocks=[block])
    chat = SimpleChatEngine.from_defaults(llm=MockLLM(), memory=memory)
    print("the prompt the LLM got:\n" + str(chat.chat("What is the confirmation code of my flight?")))
    # Memory hands the block only what it flushes past its token limit: at the end of a session,
    # store what it still holds (here the question and the reply)
    print("stored at the session's end:", block.end_session(memory), "messages")
