"""The LangChain retriever inside an LCEL chain, with langchain_core's fake chat model."""
import asyncio

import pytest

import engramdb

from .conftest import need

need("langchain_core")
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableParallel, RunnablePassthrough

from engramdb.integrations.langchain import EngramRetriever


class Prompts(BaseCallbackHandler):
    """Records what each chat model call was sent (LangChain's own callback mechanism)."""

    def __init__(self):
        self.sent = []

    def on_chat_model_start(self, serialized, messages, **kwargs):
        self.sent.extend(m.content for batch in messages for m in batch)


def _chain(retriever, answers):
    prompt = ChatPromptTemplate.from_messages([
        ("system", "Answer from these memories:\n{context}"), ("human", "{question}")])
    llm = FakeListChatModel(responses=answers)
    fmt = (lambda docs: "\n".join(f"[{d.metadata['date']}] {d.page_content}" for d in docs))
    return RunnableParallel(docs=retriever, question=RunnablePassthrough()).assign(
        answer=(lambda x: {"context": fmt(x["docs"]), "question": x["question"]}) | prompt | llm | StrOutputParser())


def test_retriever_in_an_lcel_chain(trip):
    retriever = EngramRetriever(engram=trip, namespace="u", k=3)
    seen = Prompts()
    out = _chain(retriever, ["Your code is QX7Z9M."]).invoke("status of my TAP flight to Lisbon?",
                                                               config={"callbacks": [seen]})
    assert out["answer"] == "Your code is QX7Z9M."
    docs = out["docs"]
    assert all(isinstance(d, Document) for d in docs)
    # the same hits, in the same order, as engramdb's recall
    res = trip.recall("status of my TAP flight to Lisbon?", namespace="u", k=3, reinforce=False)
    assert [d.metadata["id"] for d in docs] == [h.id for h in res.hits] == [d.id for d in docs]
    assert docs[0].metadata["id"] == "flight"
    by_id = {d.metadata["id"]: d for d in docs}
    code = by_id["code"]
    assert code.page_content == "The airline emailed confirmation code QX7Z9M."
    assert code.metadata["path"] == [{"id": "flight", "relation": None, "forward": True},
                                     {"id": "code", "relation": "evidence_for", "forward": False}]
    assert code.metadata["date"] == "2024-04-02T10:05:00Z"
    assert code.metadata["created_at"] == pytest.approx(1712052300.0)
    assert code.metadata["namespace"] == "u" and code.metadata["kind"] == "episodic"
    assert [d.metadata["score"] for d in docs] == sorted((d.metadata["score"] for d in docs), reverse=True)
    assert 0.0 <= code.metadata["relevance"] <= 1.0
    # the chain's prompt carried the recalled memories to the model
    system = seen.sent[0]
    assert "[2024-04-02T10:05:00Z] The airline emailed confirmation code QX7Z9M." in system
    assert seen.sent[1] == "status of my TAP flight to Lisbon?"


def test_retriever_async_and_recall_arguments(trip):
    retriever = EngramRetriever(engram=trip, namespace="u", k=5, recall_kwargs={"until": "2024-04-02T23:00:00Z"})
    docs = asyncio.run(retriever.ainvoke("flight dates code"))
    assert {d.metadata["id"] for d in docs} == {"flight", "code"}   # "dates" is after `until`


def test_engramdb_errors_reach_the_caller_with_their_message(trip):
    chain = _chain(EngramRetriever(engram=trip, namespace="u", recall_kwargs={"since": "someday"}), ["unused"])
    with pytest.raises(engramdb.InvalidInputError, match="since"):
        chain.invoke("anything")
    with pytest.raises(engramdb.EmptyTextError):
        EngramRetriever(engram=trip, namespace="u").invoke("   ")


def test_retriever_of_a_new_user_answers_empty_naming_no_other(trip):
    """As the agent tools: a namespace that holds nothing yet answers no documents (it raised
    NamespaceError, whose message named the other users' namespaces)."""
    assert EngramRetriever(engram=trip, namespace="user-carol").invoke("what is my PIN?") == []
    with pytest.raises(engramdb.EmptyTextError):   # the question is still checked
        EngramRetriever(engram=trip, namespace="user-carol").invoke("  ")


def test_langchain_tools_share_the_definitions_and_return_engramdb_errors(trip):
    import json

    from engramdb.integrations.langchain import langchain_tools
    from engramdb.integrations.tools import TOOLS

    tools = {t.name: t for t in langchain_tools(trip, namespace="u")}
    assert list(tools) == list(TOOLS)
    for name, tool in tools.items():
        assert tool.args_schema == TOOLS[name].parameters and tool.description == TOOLS[name].description
    out = json.loads(tools["recall"].invoke({"query": "confirmation code", "k": 1}))
    assert [h["id"] for h in out["hits"]] == ["code"]
    assert json.loads(tools["remember"].invoke({"text": "The hotel is in Alfama.", "id": "hotel"}))["id"] == "hotel"
    assert trip.get("hotel", namespace="u").text == "The hotel is in Alfama."
    # an engramdb error is the tool's output (ToolException, handled), with engramdb's message
    bad = tools["remember"].invoke({"text": "x", "kind": "bogus"})
    assert bad.startswith("UnknownKindError: unknown memory kind 'bogus'")
    assert [t.name for t in langchain_tools(trip, read_only=True)] == ["recall", "context", "history"]


def test_langchain_tools_run_at_a_replayed_conversations_times(tmp_path):
    import json

    from engramdb.integrations.langchain import langchain_tools

    clock = ["2025-03-04T08:00:00"]
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        tools = {t.name: t for t in langchain_tools(mem, namespace="u", now=lambda: clock[0])}
        tools["remember"].invoke({"text": "I ran 5 km in the park this morning.", "id": "run"})
        assert mem.get("run", namespace="u").created_at == 1741075200.0
        clock[0] = "2025-03-10"
        out = json.loads(tools["recall"].invoke({"query": "what did I do last week?", "k": 1}))
        assert [h["id"] for h in out["hits"]] == ["run"] and out["gaps"] == []
        clock[0] = "2025-06-10"
        out = json.loads(tools["recall"].invoke({"query": "what did I do last week?", "k": 1}))
        assert "empty_window" in [g["reason"] for g in out["gaps"]]


def test_a_new_users_retriever_checks_its_arguments_as_recall_does(trip):
    """A bad kind, k or range fails for a new user as for a user with memories (the empty
    answer came without a check)."""
    for ns in ("u", "user-carol"):
        with pytest.raises(engramdb.UnknownKindError):
            EngramRetriever(engram=trip, namespace=ns, recall_kwargs={"kinds": ["bogus"]}).invoke("flight")
        with pytest.raises(engramdb.InvalidInputError, match="swap them"):
            EngramRetriever(engram=trip, namespace=ns, recall_kwargs={"since": "2026", "until": "2020"}).invoke("x")


def test_a_value_said_otherwise_later_is_in_the_metadata(tmp_path):
    """helper103: the retriever dropped the recall's warnings; a hit said otherwise later carries
    the ids of the memories that say so."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("I take 50 mg of sertraline every morning.", id="old", namespace="u", created_at="2025-01-06")
        eng.add("My doctor raised my sertraline to 100 mg.", id="new", namespace="u", created_at="2025-02-01")
        docs = EngramRetriever(engram=eng, namespace="u", k=2).invoke("what dose of sertraline do I take?")
        meta = {d.id: d.metadata for d in docs}
        assert meta["old"]["said_otherwise_later_in"] == ["new"] and meta["new"]["said_otherwise_later_in"] == []


def test_a_summary_quoting_a_value_said_otherwise_later_is_flagged(tmp_path):
    """helper106: after consolidate, the session summary quoting "I live in Chicago ..." came back
    with said_otherwise_later_in=[], though context() flagged it: the retrievers read the recall's
    warnings only, which name turns."""
    turns = [("user", "I live in Chicago and I work at Initech as a data analyst."),
             ("assistant", "Nice to meet you! How can I help?"),
             ("user", "Chicago winters are long and the rent keeps going up."),
             ("assistant", "Long winters can be tough."),
             ("user", "My cat's name is Miso and I'm allergic to peanuts."),
             ("assistant", "Got it, no peanuts.")]
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add_conversation([{"role": r, "content": t, "created_at": f"2025-02-01T10:0{i}:00Z"}
                              for i, (r, t) in enumerate(turns)], namespace="u", session="s1")
        eng.add_conversation([{"role": "user", "content": "Big news: we moved to Denver last week.",
                               "created_at": "2025-05-03T18:00:00Z"}], namespace="u", session="s2")
        assert eng.consolidate(namespace="u", now="2025-06-01T00:00:00Z")["summaries"] == 1
        docs = EngramRetriever(engram=eng, namespace="u", k=5, recall_kwargs={"now": "2025-06-01"}).invoke(
            "Where do I live?")
        meta = {d.id: d.metadata["said_otherwise_later_in"] for d in docs}
        assert meta["sum:S:s1"] == ["s2:1"] and meta["s1:1"] == ["s2:1"] and meta["s2:1"] == []


def test_an_unknown_recall_argument_is_refused_when_the_retriever_is_made(trip):
    with pytest.raises(ValueError, match=r"unknown recall argument\(s\) \['bogus'\]"):
        EngramRetriever(engram=trip, namespace="u", recall_kwargs={"bogus": 1})


def test_recall_arguments_as_keywords_and_per_call(tmp_path):
    """helper-221: ``EngramRetriever(engram=mem, valid_at=...)`` (the LlamaIndex retriever's way)
    was dropped by pydantic without a word and answered with the current home; so was
    ``invoke(q, now=...)``. Both now reach recall; an unknown name, or one given twice, is refused."""
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add("I live in Boston.", id="boston", namespace="u", created_at="2025-01-01")
        eng.add("I moved to Cambridge.", id="cambridge", namespace="u", created_at="2025-04-01")
        q = "where do I live?"
        assert [d.id for d in EngramRetriever(engram=eng, namespace="u", valid_at="2025-03-15").invoke(q)] == ["boston"]
        assert [d.id for d in EngramRetriever(engram=eng, namespace="u").invoke(q, valid_at="2025-03-15")] == ["boston"]
        assert "cambridge" in [d.id for d in EngramRetriever(engram=eng, namespace="u").invoke(q)]
        with pytest.raises(ValueError, match=r"unknown recall argument\(s\) \['bogus'\]"):
            EngramRetriever(engram=eng, namespace="u", bogus=1)
        with pytest.raises(ValueError, match=r"\['valid_at'\] given twice"):
            EngramRetriever(engram=eng, namespace="u", valid_at="2025-03-15", recall_kwargs={"valid_at": "2025-01-02"})
        with pytest.raises(engramdb.InvalidInputError, match=r"\['bogus'\]"):
            EngramRetriever(engram=eng, namespace="u").invoke(q, bogus=2)
