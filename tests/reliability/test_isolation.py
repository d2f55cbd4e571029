"""Namespaces are a hard partition of vector search and spreading activation, proven by tracing
every node each recall visits (``Engram.trace``)."""
import numpy as np
import pytest

import engramdb
from engramdb import errors
from engramdb.testing import columns

from .conftest import DIM, quiet_config, vec

FACTS = ["Trip to Lisbon in May", "Flight TP 218 to Lisbon", "Hotel near Lisbon castle",
         "Confirmation code QX7Z9M", "Lisbon weather is sunny", "Dinner at a Lisbon fado bar"]


@pytest.fixture
def two_tenants(store_path):
    e = engramdb.open(store_path, dim=64, config=quiet_config())
    for ns in ("alice", "bob"):     # the same ids, texts and entity in both namespaces
        e.add("Lisbon", id="ent:lisbon", kind="semantic", namespace=ns)
        e.add_batch([{"id": f"f{i}", "text": t, "links": [{"to": "ent:lisbon", "relation": "mentions"}]}
                     for i, t in enumerate(FACTS)], namespace=ns)
        e.link_batch([(f"f{i}", f"f{j}", "related_to", 0.9) for i in range(6) for j in range(6) if i < j],
                     namespace=ns)
    yield e
    e.close()


def test_recall_never_visits_another_namespace(two_tenants):
    e = two_tenants
    e.trace = []
    queries = ["Lisbon", "flight code", "where do we stay", "weather"]
    for ns in ("alice", "bob"):
        for q in queries:
            for gate in ("on", "off", "auto"):
                res = e.recall(q, namespace=ns, k=10, gate=gate)
                assert res.hits and {h.id for h in res.hits} <= {"ent:lisbon"} | {f"f{i}" for i in range(6)}
        res = e.recall(vector=e.get("f1", namespace=ns, with_embedding=True).embedding, namespace=ns, gate="on")
        assert res.hits[0].id == "f1"
    assert len(e.trace) == 2 * (3 * len(queries) + 1)
    spread_reached_beyond_seeds = 0
    names = columns(e)["namespace"]                 # namespace of each nid
    for ns, seeds, visited in e.trace:
        assert len(seeds) > 0 and len(visited) >= len(seeds)
        assert set(names[seeds]) == {ns}
        assert set(names[visited]) == {ns}
        spread_reached_beyond_seeds += len(set(visited.tolist()) - set(seeds.tolist())) > 0
    assert spread_reached_beyond_seeds > 0          # the trace does see graph expansion
    # the two copies of the shared entity are different nodes
    e.trace = []
    e.recall("Lisbon", namespace="alice", gate="on")
    e.recall("Lisbon", namespace="bob", gate="on")
    (_, _, va), (_, _, vb) = e.trace
    assert not set(va.tolist()) & set(vb.tolist())


def test_trace_is_off_by_default(two_tenants):
    assert two_tenants.trace is None
    two_tenants.recall("Lisbon", namespace="alice")
    assert two_tenants.trace is None


@pytest.mark.parametrize("ns", [None, "", 0, b"alice"])
def test_recall_without_a_namespace_is_an_error(two_tenants, ns):
    with pytest.raises(errors.NamespaceError):
        two_tenants.recall("Lisbon", namespace=ns)
    with pytest.raises(errors.NamespaceError):
        two_tenants.recall(vector=vec(1)[:1].repeat(64), namespace=ns)


def test_unknown_namespace_is_an_error_not_everything(two_tenants):
    # a name the store never held is a mistake, said so (it was an empty answer before issue 14)
    with pytest.raises(errors.NamespaceError, match="no namespace 'carol'"):
        two_tenants.recall("Lisbon", namespace="carol")
    with pytest.raises(errors.NamespaceError, match="did you mean 'alice'"):
        two_tenants.recall("Lisbon", namespace="alise")


def test_edges_cannot_cross_namespaces(two_tenants):
    e = two_tenants
    e.add("only alice knows", id="secret", namespace="alice")
    with pytest.raises(errors.MemoryNotFoundError):
        e.link("f0", "secret", namespace="bob")
    with pytest.raises(errors.MemoryNotFoundError):
        e.add("bob's note", namespace="bob", links=[{"to": "secret"}])
    assert "only alice knows" not in {h.text for h in e.recall("only alice knows", namespace="bob", k=20).hits}
