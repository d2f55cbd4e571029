"""db.namespace(name): the engine's verbs bound to one namespace, generated from their signatures."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import engramdb
from engramdb.namespace_handle import NamespaceHandle

DIM = 32


def vec(i: int) -> np.ndarray:
    v = np.random.default_rng(i).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def db(tmp_store):
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing") as eng:
        yield eng


def _verbs_taking_namespace() -> list[str]:
    """Every public method of Engram with a namespace parameter, found independently of the handle."""
    return sorted(name for name, fn in inspect.getmembers(engramdb.Engram, inspect.isfunction)
                  if not name.startswith("_") and "namespace" in inspect.signature(fn).parameters)


def test_every_verb_that_takes_a_namespace_is_on_the_handle(db):
    verbs = _verbs_taking_namespace()
    assert {"add", "add_batch", "get", "link", "link_batch", "recall", "recall_batch", "supersede",
            "update", "history", "query", "forget", "edges", "salience", "admit_batch", "review",
            "dynamics_log", "rescore"} <= set(verbs)
    h = db.namespace("user-42")
    assert isinstance(h, NamespaceHandle) and h.name == "user-42" and h.engram is db
    for verb in verbs:
        method = getattr(h, verb)
        engine_verb = getattr(engramdb.Engram, verb)
        assert method.__name__ == verb
        assert method.__doc__.startswith(engine_verb.__doc__.rstrip())   # the engine's docstring
        params = inspect.signature(method).parameters
        assert "namespace" not in params
        assert list(params) == [p for p in inspect.signature(engine_verb).parameters
                                if p not in ("self", "namespace")]
    assert not hasattr(h, "stats") and not hasattr(h, "drop_namespace")   # verbs without a namespace


def test_handle_verbs_equal_the_engine_verbs_with_namespace(db):
    h = db.namespace("a")
    assert h.add("I moved to Porto in March.", id="home", embedding=vec(1)) == "home"
    h.add_batch([{"id": "job", "text": "I work at the bakery.", "embedding": vec(2)},
                 {"id": "dog", "text": "The dog is called Rex.", "embedding": vec(3)}])
    e = h.link("job", "home", "related_to", 0.5)
    assert e.source == "job" and h.link_batch([("dog", "home")])[0].target == "home"
    assert db.get("home", namespace="a") == h.get("home")
    assert db.namespaces() == ["a"]
    q = "moved to Porto"
    assert [x.id for x in h.recall(q, k=3).hits] == [x.id for x in db.recall(q, namespace="a", k=3).hits]
    assert [[x.id for x in r.hits] for r in h.recall_batch([q, "bakery"], k=2)] == \
        [[x.id for x in r.hits] for r in db.recall_batch([q, "bakery"], namespace="a", k=2)]
    new = h.supersede("home", "I moved to Braga in May.", embedding=vec(4))
    assert [x.id for x in h.history(new)] == [x.id for x in db.history(new, namespace="a")]
    assert h.update("job", text="I work at the library.").text == "I work at the library."
    assert {m.id for m in h.query()} == {m.id for m in db.query(namespace="a")}
    assert h.edges("home") == db.edges("home", namespace="a")
    assert h.salience("dog", now=1e10) == db.salience("dog", namespace="a", now=1e10)
    h.forget("dog")
    assert db.get("dog", namespace="a").state.value == "archived"
    assert h.dynamics_log() == db.dynamics_log(namespace="a") != []
    with pytest.raises(engramdb.MemoryNotFoundError):
        db.get("job")   # nothing went to the default namespace


def test_explicit_same_namespace_is_accepted(db):
    h = db.namespace("a")
    assert h.add("x", id="x", namespace="a", embedding=vec(1)) == "x"
    assert h.get("x", namespace="a").id == "x"


@pytest.mark.parametrize("other", ["b", "default", None])
def test_another_namespace_is_an_error(db, other):
    h = db.namespace("a")
    h.add("x", id="x", embedding=vec(1))
    with pytest.raises(engramdb.NamespaceError, match="bound to namespace 'a'"):
        h.get("x", namespace=other)
    with pytest.raises(engramdb.NamespaceError):
        h.recall("x", namespace=other)
    assert db.namespaces() == ["a"]


def test_a_batch_item_naming_another_namespace_is_an_error(db):
    h = db.namespace("a")
    items = ({"text": t, "embedding": vec(i), **({"namespace": ns} if ns else {})}
             for i, (t, ns) in enumerate([("one", "a"), ("two", None), ("three", "b")]))
    with pytest.raises(engramdb.NamespaceError, match="got namespace='b'"):
        h.add_batch(items)   # a generator: checked without losing items
    with pytest.raises(engramdb.NamespaceError):
        h.admit_batch([{"text": "a fact", "namespace": "b", "embedding": vec(9)}])
    assert db.namespaces() == []   # nothing written
    ids = h.add_batch(iter([{"text": "one", "namespace": "a", "embedding": vec(1)},
                            {"text": "two", "embedding": vec(2)}]))
    assert [db.get(i, namespace="a").text for i in ids] == ["one", "two"]


def test_invalid_name_and_closed_engine(tmp_store):
    eng = engramdb.open(tmp_store, dim=DIM, embedder="hashing")
    for bad in ("", None, 3, "a\x00b"):
        with pytest.raises(engramdb.NamespaceError):
            eng.namespace(bad)
    h = eng.namespace("a")
    eng.close()
    with pytest.raises(engramdb.EngramError, match="closed"):
        h.add("x")
    with pytest.raises(engramdb.EngramError, match="closed"):
        eng.namespace("a")
