"""EngramStore against LangGraph's documented BaseStore behaviours, with LangGraph's own
InMemoryStore run beside it on the same operations where the two must agree."""
import asyncio
from datetime import datetime, timezone

import pytest

import engramdb

from .conftest import need

need("langgraph")
from langgraph.store.base import InvalidNamespaceError, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from engramdb.integrations.langchain import EngramStore, from_namespace, to_namespace

ITEMS = [
    (("users", "1", "prefs"), "food", {"text": "I like pizza with olives", "score": 3, "tags": ["food"],
                                       "meta": {"lang": "en", "n": 1}}),
    (("users", "1", "prefs"), "drink", {"text": "I drink green tea every morning", "score": 5, "tags": ["drink"],
                                        "meta": {"lang": "en", "n": 2}}),
    (("users", "1", "notes"), "trip", {"text": "Flight TP 218 to Lisbon on May 14", "score": 4.5,
                                       "meta": {"lang": "pt", "n": 3}}),
    (("users", "2", "prefs"), "food", {"text": "Vegetarian, no mushrooms", "score": 1, "tags": []}),
    (("docs", "v1"), "readme", {"text": "engramdb recalls related memories", "score": 2, "status": "draft"}),
    (("docs", "v2", "draft"), "spec", {"text": "spreading activation spec", "status": "final", "score": 0}),
    (("cache", "emb", "v1"), "k", {"text": "x", "status": None, "score": 7}),
]


@pytest.fixture
def store(tmp_path):
    s = EngramStore.open(tmp_path / "lg", embedder="hashing")
    yield s
    s.engram.close()


def _fill(*stores):
    for s in stores:
        for ns, key, value in ITEMS:
            s.put(ns, key, value)


def test_namespace_rule_is_one_to_one():
    assert to_namespace(("users", "42", "memories")) == "users.42.memories"
    assert from_namespace("users.42.memories") == ("users", "42", "memories")
    for bad in [("a.b",), ("",), (), ("a", 3)]:
        with pytest.raises(InvalidNamespaceError):
            to_namespace(bad)


def test_put_get_keeps_values_and_timestamps(store):
    before = datetime.now(timezone.utc)
    _fill(store)
    for ns, key, value in ITEMS:
        item = store.get(ns, key)
        assert (item.namespace, item.key, item.value) == (ns, key, value)
        assert list(item.value) == list(value)   # key order kept
        assert item.created_at.tzinfo is not None and before <= item.created_at == item.updated_at
    assert store.get(("users", "1", "prefs"), "nope") is None
    assert store.get(("nobody",), "food") is None
    # the items are engramdb memories of the joined namespace, id = key
    assert store.engram.get("food", namespace="users.2.prefs").kind is engramdb.MemoryKind.SEMANTIC

    first = store.get(("users", "1", "prefs"), "food")
    store.put(("users", "1", "prefs"), "food", {"text": "I like sushi now", "score": 4})
    again = store.get(("users", "1", "prefs"), "food")
    assert again.value == {"text": "I like sushi now", "score": 4}
    assert again.created_at == first.created_at and again.updated_at > first.updated_at
    # the earlier value is kept in engramdb's history of the memory
    versions = store.engram.history("food", namespace="users.1.prefs")
    assert [v.text for v in versions] == [
        '{"text": "I like pizza with olives", "score": 3, "tags": ["food"], "meta": {"lang": "en", "n": 1}}',
        '{"text": "I like sushi now", "score": 4}']
    assert versions[-1].recorded_at == pytest.approx(again.updated_at.timestamp(), abs=1e-5)  # datetime: microseconds


def test_items_are_independent_even_when_their_texts_conflict(store):
    store.put(("u",), "a", {"text": "Bob has 2 cats"})
    store.put(("u",), "b", {"text": "Bob has 3 cats"})
    assert store.engram.get("a", namespace="u").state is engramdb.MemoryState.ACTIVE
    assert {i.key for i in store.search(("u",), query="Bob cats")} == {"a", "b"}


def test_delete(store):
    _fill(store)
    store.delete(("users", "2", "prefs"), "food")
    assert store.get(("users", "2", "prefs"), "food") is None
    store.delete(("users", "2", "prefs"), "food")   # deleting what is gone is a no-op
    with pytest.raises(engramdb.MemoryNotFoundError):
        store.engram.get("food", namespace="users.2.prefs")   # erased, not archived
    assert ("users", "2", "prefs") not in store.list_namespaces()
    assert store.get(("users", "1", "prefs"), "food") is not None


FILTERS = [
    None, {"score": 3}, {"score": {"$gt": 2}}, {"score": {"$gte": 3, "$lt": 5}}, {"score": {"$lte": 2}},
    {"score": {"$ne": 5}}, {"score": {"$eq": 4.5}}, {"meta": {"lang": "en"}}, {"meta": {"lang": "en", "n": 2}},
    {"tags": ["food"]}, {"tags": []}, {"status": "draft"}, {"status": None},
    {"meta": {"lang": "pt"}, "score": {"$gt": 4}},
]
PREFIXES = [(), ("users",), ("users", "1"), ("users", "1", "prefs"), ("docs",), ("nobody",)]


@pytest.mark.parametrize("flt", FILTERS)
def test_filter_search_matches_langgraphs_in_memory_store(store, flt):
    ref = InMemoryStore()
    _fill(store, ref)
    for prefix in PREFIXES:
        got = store.search(prefix, filter=flt, limit=100)
        want = ref.search(prefix, filter=flt, limit=100)
        assert sorted((i.namespace, i.key) for i in got) == sorted((i.namespace, i.key) for i in want), (prefix, flt)
        assert all(i.score is None for i in got)
        assert {(i.namespace, i.key): i.value for i in got} == {(i.namespace, i.key): i.value for i in want}


def test_a_comparison_on_a_missing_or_non_numeric_field_matches_nothing(store):
    # (LangGraph's in-memory store raises TypeError here; its SQL stores match nothing, as here)
    _fill(store)
    assert store.search((), filter={"missing": {"$gt": 0}}) == []
    assert store.search((), filter={"text": {"$lt": 10}}) == []
    assert len(store.search((), filter={"missing": {"$ne": 0}}, limit=100)) == len(ITEMS)


def test_filter_search_limit_offset_newest_first(store):
    for i in range(7):
        store.put(("log",), f"e{i}", {"text": f"event {i}", "i": i, "even": i % 2 == 0})
    keys = [i.key for i in store.search(("log",), limit=100)]
    assert keys == [f"e{i}" for i in range(6, -1, -1)]
    assert [i.key for i in store.search(("log",), limit=2, offset=1)] == ["e5", "e4"]
    assert [i.key for i in store.search(("log",), filter={"even": True}, limit=2, offset=1)] == ["e4", "e2"]
    assert store.search(("log",), limit=0) == [] and store.search(("log",), offset=7) == []


def test_query_search_ranks_by_recall_and_respects_prefix_filter_limit_offset(store):
    _fill(store)
    hits = store.search(("users",), query="green tea in the morning", limit=3)
    assert hits[0].key == "drink" and hits[0].namespace == ("users", "1", "prefs")
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:])) and hits[0].score > 0
    assert {h.namespace[0] for h in hits} == {"users"}
    assert store.search(("users",), query="green tea in the morning", limit=1, offset=1)[0].key == hits[1].key
    trip = store.search(("users",), query="flight to Lisbon", filter={"meta": {"lang": "pt"}})
    assert [h.key for h in trip] == ["trip"]
    assert store.search(("users",), query="flight to Lisbon", filter={"score": {"$gt": 100}}) == []
    assert store.search(("nobody",), query="anything") == []
    got = store.search(("docs",), query="spreading activation")
    assert got[0].key == "spec" and got[0].value == ITEMS[5][2]


def test_index_fields_and_index_false(tmp_path):
    s = EngramStore.open(tmp_path / "f", embedder="hashing", fields=["memory.text"])
    try:
        s.put(("m",), "a", {"memory": {"text": "the user's cat is called Tom"}, "note": "zebra"})
        s.put(("m",), "b", {"memory": {"text": "the user works as a nurse"}, "note": "zebra"})
        s.put(("m",), "c", {"memory": {"text": "the user's cat is called Tom"}}, index=False)
        s.put(("m",), "d", {"other": "no memory.text field: nothing to embed"})
        hits = s.search(("m",), query="what is the cat called", limit=10)
        assert hits[0].key == "a" and hits[0].score is not None
        # index=False (and an item with no text at the fields) come after the ranked items, unscored
        assert {h.key for h in hits[-2:]} == {"c", "d"} and all(h.score is None for h in hits[-2:])
        assert all(h.score is not None for h in hits[:-2])
        # the vector is the field's text: the same as embedding that text alone
        import numpy as np
        vec = s.engram.get("a", namespace="m", with_embedding=True).embedding
        ref = s.engram.embedder.embed(["the user's cat is called Tom"])[0]
        np.testing.assert_allclose(vec, ref / np.linalg.norm(ref), rtol=1e-5, atol=1e-6)
        s.put(("m",), "c", {"memory": {"text": "the user's cat is called Tom"}})   # indexed now
        assert next(h for h in s.search(("m",), query="cat called Tom") if h.key == "c").score is not None
    finally:
        s.engram.close()


LIST_CASES = [
    {}, {"prefix": ("users",)}, {"prefix": ("users", "*", "prefs")}, {"suffix": ("prefs",)},
    {"suffix": ("*", "v1")}, {"suffix": ("v1",)}, {"prefix": ("docs",), "suffix": ("draft",)},
    {"max_depth": 1}, {"max_depth": 2}, {"prefix": ("users",), "max_depth": 2}, {"limit": 2},
    {"limit": 2, "offset": 2}, {"offset": 100}, {"prefix": ("nobody",)}, {"prefix": ("users", "1", "prefs", "x")},
]


@pytest.mark.parametrize("case", LIST_CASES, ids=str)
def test_list_namespaces_matches_langgraphs_in_memory_store(store, case):
    ref = InMemoryStore()
    _fill(store, ref)
    assert store.list_namespaces(**case) == ref.list_namespaces(**case)


def test_list_namespaces_values(store):
    _fill(store)
    assert store.list_namespaces(prefix=("users",), max_depth=2) == [("users", "1"), ("users", "2")]
    assert store.list_namespaces(suffix=("v1",)) == [("cache", "emb", "v1"), ("docs", "v1")]
    assert store.list_namespaces(limit=3, offset=1) == [("docs", "v1"), ("docs", "v2", "draft"),
                                                         ("users", "1", "notes")]


def test_async_variants(store):
    async def run():
        await store.aput(("a", "b"), "k1", {"text": "alpha beta", "n": 1})
        await store.aput(("a", "c"), "k2", {"text": "gamma delta", "n": 2})
        got = await store.aget(("a", "b"), "k1")
        found = await store.asearch(("a",), query="gamma delta")
        filtered = await store.asearch(("a",), filter={"n": {"$gte": 2}})
        spaces = await store.alist_namespaces(prefix=("a",))
        await store.adelete(("a", "b"), "k1")
        gone = await store.aget(("a", "b"), "k1")
        many = await store.abatch([PutOp(("a", "d"), "k3", {"text": "eps"}), SearchOp(("a",), limit=10)])
        return got, found, filtered, spaces, gone, many

    got, found, filtered, spaces, gone, many = asyncio.run(run())
    assert got.value == {"text": "alpha beta", "n": 1} and got.namespace == ("a", "b")
    assert found[0].key == "k2"
    assert [i.key for i in filtered] == ["k2"]
    assert spaces == [("a", "b"), ("a", "c")]
    assert gone is None
    assert many[0] is None and [i.key for i in many[1]] == ["k3", "k2"]   # a put is seen by a later op


def test_batch_last_put_of_a_key_wins(store):
    store.batch([PutOp(("n",), "k", {"v": 1}), PutOp(("n",), "k", {"v": 2}), PutOp(("n",), "j", {"v": 3}),
                 PutOp(("n",), "j", None)])
    assert store.get(("n",), "k").value == {"v": 2} and store.get(("n",), "j") is None
    assert len(store.engram.history("k", namespace="n")) == 1   # one write of k, not two


def test_errors(store, tmp_path):
    with pytest.raises(InvalidNamespaceError, match="periods"):
        store.put(("a.b",), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError, match="periods"):
        store.batch([SearchOp(("a.b",))])
    # engramdb's own NamespaceError (a name over 256 characters) comes back as LangGraph's, message kept
    with pytest.raises(InvalidNamespaceError, match="at most 256 characters"):
        store.put(("x" * 300,), "k", {"v": 1})
    with pytest.raises(engramdb.InvalidInputError, match="JSON-serializable"):
        store.put(("a",), "k", {"when": datetime.now()})
    with pytest.raises(engramdb.InvalidInputError, match="JSON-serializable"):
        store.put(("a",), "k", {"x": float("nan")})
    with pytest.raises(engramdb.OversizeError, match="chunk_chars"):
        store.put(("a",), "k", {"text": "y" * 5000})
    store.put(("a",), "k", {"v": 1})
    with pytest.raises(engramdb.InvalidInputError, match="unsupported operator"):
        store.search(("a",), filter={"v": {"$in": [1]}})
    assert store.engram.stats()["memories"] == 1
    store.engram.add("a plain memory, not a LangGraph item", id="plain", namespace="a")
    with pytest.raises(engramdb.InvalidInputError, match="not a LangGraph item"):
        store.get(("a",), "plain")
    with engramdb.open(tmp_path / "plain", embedder="hashing") as plain:
        with pytest.raises(engramdb.ConfigError, match="detect_conflicts=False"):
            EngramStore(plain)


def test_inside_a_langgraph_graph(store):
    from typing import TypedDict

    from langgraph.config import get_store
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        user: str
        message: str
        recalled: list

    def remember(state: State) -> dict:
        get_store().put(("memories", state["user"]), "fact-1", {"text": state["message"]})
        return {}

    def recall(state: State) -> dict:
        items = get_store().search(("memories", state["user"]), query="which city does the user live in")
        return {"recalled": [i.value["text"] for i in items]}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    app = graph.compile(store=store)
    out = app.invoke({"user": "ana", "message": "Ana lives in the city of Porto", "recalled": []})
    assert out["recalled"] == ["Ana lives in the city of Porto"]
    assert store.list_namespaces() == [("memories", "ana")]


def test_consolidation_leaves_items_independent(store):
    """Items never supersede each other, consolidation included: two near-duplicate items stay
    two keys, each of which can be put again (a merged key was refused by put)."""
    ns = ("users", "42", "memories")
    store.put(ns, "pref-1", {"text": "The user likes green tea."})
    store.put(ns, "pref-2", {"text": "The user likes green tea."})   # the same value under another key
    assert store.engram.consolidate(namespace=to_namespace(ns))["merged"] == 0
    store.put(ns, "pref-1", {"text": "The user now prefers coffee."})
    assert store.get(ns, "pref-1").value == {"text": "The user now prefers coffee."}
    assert store.get(ns, "pref-2").value == {"text": "The user likes green tea."}


def test_a_comparison_with_no_number_is_refused(store):
    """LangGraph's $gt/$gte/$lt/$lte compare numbers: InMemoryStore raises ValueError for a
    date string, and an empty answer instead would be a silent wrong one."""
    ns = ("u",)
    store.put(ns, "a", {"date": "2024-01-02", "n": 3})
    store.put(ns, "b", {"n": 5})
    for flt in ({"date": {"$gt": "2024-01-01"}}, {"n": {"$lte": None}}, {"n": {"$gt": [1]}}):
        with pytest.raises(engramdb.InvalidInputError, match="compares numbers"):
            store.search(ns, filter=flt)
    assert [i.key for i in store.search(ns, filter={"n": {"$gt": 4}})] == ["b"]
    assert [i.key for i in store.search(ns, filter={"n": {"$gt": "4"}})] == ["b"]   # as float("4")
    assert store.search(ns, filter={"date": {"$gt": 1}}) == []   # an item's field that is no number


def test_filters_beyond_floats_and_non_string_keys(store):
    """A number no float holds, as argument or as an item's field, and a non-string key in a
    condition: engramdb's errors or no match, never OverflowError or AttributeError."""
    ns = ("u",)
    store.put(ns, "a", {"n": 3})
    store.put(ns, "big", {"n": 10 ** 400})
    with pytest.raises(engramdb.InvalidInputError, match="compares numbers"):
        store.search(ns, filter={"n": {"$gt": 10 ** 400}})
    assert [i.key for i in store.search(ns, filter={"n": {"$gt": 2}})] == ["a"]
    assert store.search(ns, filter={"n": {1: 2}}) == []
