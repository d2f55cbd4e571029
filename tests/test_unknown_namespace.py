"""A reading verb asked about a namespace the store never held raises NamespaceError naming the
close ones, as recall does: a typo is not an empty answer (query, current, profile and the
dynamics log returned nothing, so "user42" for "user-42" looked like a user with no memories)."""
import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.errors import NamespaceError


@pytest.fixture
def store(tmp_path):
    path = str(tmp_path / "s")
    with engramdb.open(path, embedder="hashing") as eng:
        eng.add("I live in Porto.", namespace="user-42", slot=("user", "home_city", "Porto"), kind="semantic")
        eng.rescore(namespace="user-42")
    return path


@pytest.mark.parametrize("call", [
    lambda e: e.query(namespace="user42"),
    lambda e: e.current("user", "home_city", namespace="user42"),
    lambda e: e.profile("user", namespace="user42"),
    lambda e: e.dynamics_log(namespace="user42"),
    lambda e: e.dynamics_log(namespace="user42", limit=0),
    lambda e: e.recall("where do I live?", namespace="user42"),
    lambda e: e.ledger(namespace="user42"),
    lambda e: e.ledger(namespace="user42", verb="add"),
])
def test_a_namespace_the_store_never_held_raises(store, call):
    with engramdb.open(store) as eng:
        with pytest.raises(NamespaceError, match="did you mean 'user-42'"):
            call(eng)
        # the right name answers, and the default namespace always exists
        assert [m.text for m in eng.query(namespace="user-42")] == ["I live in Porto."]
        assert eng.current("user", "home_city", namespace="user-42").text == "I live in Porto."
        assert eng.query() == []
        with pytest.warns(engramdb.EmptyNamespaceWarning, match="'user-42'"):   # a forgotten namespace=?
            assert eng.profile("user") == {}


def test_a_dropped_namespace_keeps_its_log(store):
    with engramdb.open(store) as eng:
        eng.drop_namespace("user-42")
        assert [e["action"] for e in eng.dynamics_log(namespace="user-42")] == ["drop_namespace"]
        assert [e.verb for e in eng.ledger(namespace="user-42")][-1] == "drop_namespace"
        with pytest.raises(NamespaceError):
            eng.query(namespace="user-42")


def test_cli_query_of_an_unknown_namespace(store):
    res = CliRunner().invoke(main, ["query", "--store", store, "-n", "user42"])
    assert res.exit_code == 2 and "did you mean 'user-42'" in res.output, res.output


@pytest.mark.parametrize("call", [
    lambda e, i: e.get(i, namespace="user42"),
    lambda e, i: e.history(i, namespace="user42"),
    lambda e, i: e.forget(i, namespace="user42"),
])
def test_a_memory_looked_up_in_a_mistyped_namespace_names_the_close_ones(store, call):
    with engramdb.open(store) as eng:
        (mid,) = [m.id for m in eng.query(namespace="user-42")]
        with pytest.raises(engramdb.MemoryNotFoundError, match="no namespace 'user42'; did you mean 'user-42'"):
            call(eng, mid)
        with pytest.raises(engramdb.MemoryNotFoundError) as err:   # a namespace held: no hint
            eng.get("nope", namespace="user-42")
        assert "did you mean" not in str(err.value)
        assert eng.get(mid, namespace="user-42").text == "I live in Porto."


def test_cli_get_and_ledger_of_an_unknown_namespace(store):
    with engramdb.open(store) as eng:
        (mid,) = [m.id for m in eng.query(namespace="user-42")]
    for args in (["get", "--store", store, "-n", "user42", mid], ["ledger", "--store", store, "-n", "user42"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2 and "did you mean 'user-42'" in res.output, res.output
