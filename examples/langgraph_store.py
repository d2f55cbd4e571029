"""engramdb as LangGraph's long-term memory store, and as a LangChain retriever in a chain.

1. A two-node LangGraph graph compiled with ``store=EngramStore``: one node stores what the user
   said under ("memories", user), the next searches it.
2. An LCEL chain that answers from ``EngramRetriever`` documents (a fake chat model from
   langchain_core stands in for the LLM, so this runs offline).

    python examples/langgraph_store.py
"""
from __future__ import annotations

import tempfile
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph

from engramdb.integrations.langchain import EngramRetriever, EngramStore


class State(TypedDict):
    user: str
    message: str
    recalled: list


def remember(state: State) -> dict:
    get_store().put(("memories", state["user"]), "home", {"text": state["message"], "topic": "home"})
    return {}


def recall(state: State) -> dict:
    items = get_store().search(("memories", state["user"]), query="which city does the user live in",
                               filter={"topic": "home"})
    return {"recalled": [(i.value["text"], round(i.score, 3)) for i in items]}


tmp = tempfile.TemporaryDirectory()   # (removed at the end)
store = EngramStore.open(tmp.name)
graph = StateGraph(State)
graph.add_node("remember", remember)
graph.add_node("recall", recall)
graph.add_edge(START, "remember")
graph.add_edge("remember", "recall")
graph.add_edge("recall", END)
out = graph.compile(store=store).invoke({"user": "ana", "message": "Ana lives in the city of Porto.", "recalled": []})
print("graph recalled:", out["recalled"])
item = store.get(("memories", "ana"), "home")
print("item:", item.value, item.created_at.isoformat())
print("namespaces:", store.list_namespaces(prefix=("memories",)), "-> engramdb:", store.engram.namespaces())

mem = store.engram
mem.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight", namespace="trips")
mem.add("The airline emailed confirmation code QX7Z9M.", id="code", namespace="trips",
        links=[{"to": "flight", "relation": "evidence_for"}])
retriever = EngramRetriever(engram=mem, namespace="trips", k=2)
prompt = ChatPromptTemplate.from_messages([("system", "Memories:\n{context}"), ("human", "{question}")])
chain = ({"context": retriever | (lambda docs: "\n".join(f"[{d.metadata['date']}] {d.page_content}" for d in docs)),
          "question": lambda q: q}
         | prompt | FakeListChatModel(responses=["Your confirmation code is QX7Z9M."]) | StrOutputParser())
print("chain answer:", chain.invoke("what is the code of my TAP flight to Lisbon?"))
for d in retriever.invoke("what is the code of my TAP flight to Lisbon?"):
    print("  doc:", d.metadata["id"], round(d.metadata["score"], 3), [s["id"] for s in d.metadata["path"]])
mem.close()
tmp.cleanup()
