"""EngramStore.batch is all or nothing for what can be checked: a rejected batch (a bad value,
key, namespace or operation anywhere in it) leaves the store byte-for-byte unchanged, however
many puts and deletes come before the bad op."""
from datetime import datetime

import pytest

import engramdb
from engramdb.testing import store_digest

from .conftest import need

need("langgraph")
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from engramdb.integrations.langchain import EngramStore

NS = ("users", "42")


@pytest.fixture
def store(tmp_path):
    s = EngramStore.open(tmp_path / "lg", embedder="hashing")
    s.put(NS, "a", {"city": "Lisbon"})
    s.put(NS, "b", {"x": 1})
    yield s
    s.engram.close()


def _writes():
    """An update of an existing key, a delete, a new item: what a bad op must not let through."""
    return [PutOp(NS, "a", {"city": "Porto"}), PutOp(NS, "b", None), PutOp(NS, "new1", {"v": 1})]


BAD_OPS = [
    (PutOp(NS, "bad", {"t": "x" * 5000}), engramdb.OversizeError, "chunk_chars"),
    (PutOp(NS, "bad", {"when": datetime(2024, 5, 1)}), engramdb.InvalidInputError, "JSON-serializable"),
    (PutOp(NS, "bad", {"x": float("nan")}), engramdb.InvalidInputError, "JSON-serializable"),
    (PutOp(NS, "bad", {"t": "lone \ud800 surrogate"}), engramdb.InvalidInputError, "lone surrogate"),
    (PutOp(NS, "bad", ["not", "a", "dict"]), engramdb.InvalidInputError, "must be a dict"),
    (PutOp(NS, "E:bad", {"v": 1}), engramdb.InvalidInputError, "reserves"),
    (PutOp(NS, "bad#1", {"v": 1}), engramdb.InvalidInputError, "reserves"),
    (PutOp(NS, "", {"v": 1}), engramdb.InvalidInputError, "non-empty"),
    (PutOp(("x" * 300,), "k", {"v": 1}), InvalidNamespaceError, "at most 256 characters"),
    (PutOp(("a.b",), "k", {"v": 1}), InvalidNamespaceError, "periods"),
    (SearchOp(NS, filter={"v": {"$in": [1]}}), engramdb.InvalidInputError, "unsupported operator"),
    (SearchOp(NS, filter={"meta": {"n": [{"$regex": "x"}]}}), engramdb.InvalidInputError, "unsupported operator"),
    (SearchOp(NS, query="x" * 4_000_001), engramdb.OversizeError, "max_text_chars"),
    (GetOp(("a.b",), "k"), InvalidNamespaceError, "periods"),
    (ListNamespacesOp(match_conditions=(MatchCondition("middle", ("a",)),)), engramdb.InvalidInputError,
     "'prefix' or 'suffix'"),
    ("not an op", engramdb.InvalidInputError, "unknown LangGraph store operation"),
]


@pytest.mark.parametrize("bad, error, fragment", BAD_OPS, ids=[f"{i}" for i in range(len(BAD_OPS))])
@pytest.mark.parametrize("where", ["last", "after a read"])
def test_a_rejected_batch_leaves_the_store_unchanged(store, bad, error, fragment, where):
    before, entries = store_digest(store.engram), store.engram.verify_ledger().entries
    ops = _writes() + ([GetOp(NS, "a"), PutOp(NS, "new2", {"v": 2})] if where == "after a read" else []) + [bad]
    with pytest.raises(error, match=fragment):
        store.batch(ops)
    assert store_digest(store.engram) == before
    assert store.engram.verify_ledger().entries == entries
    assert store.get(NS, "a").value == {"city": "Lisbon"}
    assert store.get(NS, "b").value == {"x": 1}
    assert store.get(NS, "new1") is None and store.get(NS, "new2") is None
    assert len(store.engram.history("a", namespace="users.42")) == 1


def test_a_put_over_a_blocked_or_foreign_memory_is_refused_before_any_write(store):
    store.put(NS, "s", {"text": "my bank PIN is 1234"})
    store.engram.add("a plain memory, not a LangGraph item", id="plain", namespace="users.42")
    store.engram.censor(pattern=r"\bPIN\b", action="block", reason="credentials")
    before = store_digest(store.engram)
    # the blocked key comes in a later run of puts than the writes (a read in between)
    with pytest.raises(engramdb.MemoryBlockedError):
        store.batch(_writes() + [SearchOp(NS), PutOp(NS, "s", {"text": "a new value"})])
    with pytest.raises(engramdb.InvalidInputError, match="not a LangGraph item"):
        store.batch(_writes() + [PutOp(NS, "plain", {"v": 1})])
    assert store_digest(store.engram) == before
    assert store.get(NS, "a").value == {"city": "Lisbon"} and store.get(NS, "new1") is None


def test_deleting_a_blocked_item_erases_it(store):
    store.put(NS, "s", {"text": "my bank PIN is 1234"})
    rule = store.engram.censor(pattern=r"\bPIN\b", action="block")
    store.delete(NS, "s")   # forget works on a blocked memory; the item must not stay behind
    store.engram.remove_censor(rule.id)
    assert store.get(NS, "s") is None
    with pytest.raises(engramdb.MemoryNotFoundError):
        store.engram.get("s", namespace="users.42")


def test_a_get_of_a_key_no_item_can_have_is_none(store):
    # LangGraph's rule for a missing key; such a key is never stored (a put refuses it)
    assert store.batch([GetOp(NS, ""), GetOp(NS, "x" * 600)]) == [None, None]


def test_an_accepted_batch_equals_the_same_ops_one_by_one(tmp_path, store):
    ops = _writes() + [PutOp(NS, "new1", {"v": 2}), GetOp(NS, "new1"), PutOp(NS, "b", {"x": 2}),
                       PutOp(NS, "a", {"city": "Braga"}), PutOp(("other",), "k", {"text": ""}, index=["text"])]
    one = EngramStore.open(tmp_path / "one", embedder="hashing")
    try:
        one.put(NS, "a", {"city": "Lisbon"})
        one.put(NS, "b", {"x": 1})
        for op in ops:
            if isinstance(op, PutOp):
                one.batch([op])
        results = store.batch(ops)
        assert results[4].value == {"v": 2}   # the get sees the run of puts before it
        for s in (store, one):
            assert s.get(NS, "a").value == {"city": "Braga"}
            assert s.get(NS, "b").value == {"x": 2} and s.get(NS, "new1").value == {"v": 2}
            assert s.get(("other",), "k").value == {"text": ""}
            assert [v.text for v in s.engram.history("a", namespace="users.42")] == [
                '{"city": "Lisbon"}', '{"city": "Porto"}', '{"city": "Braga"}']
            assert len(s.engram.history("b", namespace="users.42")) == 1   # erased, then added again
        assert store.list_namespaces() == one.list_namespaces() == [("other",), NS]
        assert (sorted(i.key for i in store.search(NS, limit=10))
                == sorted(i.key for i in one.search(NS, limit=10)) == ["a", "b", "new1"])
    finally:
        one.engram.close()


class _PoisonEmbedder:
    """A deterministic embedder whose output for a text holding "poison" is not finite."""

    dim, name = 8, "poison-test"

    def embed(self, texts):
        import numpy as np

        out = np.array([[len(t) % 7 + 1.0, 1.0, *range(6)] for t in texts], np.float32)
        out[[i for i, t in enumerate(texts) if "poison" in t]] = np.nan
        return out


def test_an_embedder_failure_is_found_before_any_write(tmp_path):
    s = EngramStore.open(tmp_path / "p", embedder=_PoisonEmbedder())
    try:
        s.put(NS, "a", {"city": "Lisbon"})
        s.put(NS, "b", {"x": 1})
        before = store_digest(s.engram)
        with pytest.raises(engramdb.NonFiniteError):
            s.batch(_writes() + [PutOp(NS, "p", {"text": "poison"})])
        assert store_digest(s.engram) == before
        assert s.get(NS, "a").value == {"city": "Lisbon"} and s.get(NS, "b").value == {"x": 1}
    finally:
        s.engram.close()


def test_an_unknown_kind_is_refused_when_the_store_is_made(tmp_path):
    with engramdb.open(tmp_path / "k", embedder="hashing",
                       config=engramdb.EngramConfig(link=engramdb.LinkConfig(detect_conflicts=False))) as eng:
        with pytest.raises(engramdb.UnknownKindError, match="'fact'"):
            EngramStore(eng, kind="fact")
        assert EngramStore(eng, kind="procedural").kind == "procedural"
