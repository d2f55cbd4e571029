"""A read (slot, recall, context) of the default namespace, empty while other namespaces hold memories, warns
(EmptyNamespaceWarning naming them): an empty answer that is most likely a forgotten namespace=."""
import warnings

import pytest
from click.testing import CliRunner

import engramdb
from engramdb import EmptyNamespaceWarning
from engramdb.cli import main


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("I live in Lisbon.", namespace="ana", slot=("user", "home_city", "Lisbon"))
        yield m


def test_current_and_profile_of_the_empty_default_name_the_namespaces(mem):
    with pytest.warns(EmptyNamespaceWarning, match="namespace 'default' holds no memories; the store's namespaces: 'ana'"):
        assert mem.current("user", "home_city") is None
    with pytest.warns(EmptyNamespaceWarning, match="'ana'") as caught:
        assert mem.profile("user") == {}
    assert caught[0].filename == __file__   # points at the caller's line, not at engramdb


def test_recall_of_the_empty_default_warns_and_its_gap_names_no_other_namespace(mem):
    """The gap is an answer (an agent may show it to a model): another tenant's namespace name
    is not in it; the warning tells the developer."""
    for verb in (lambda: [mem.recall("where do I live?")], lambda: mem.recall_batch(["where do I live?"])):
        with pytest.warns(EmptyNamespaceWarning, match="the store's namespaces: 'ana'") as caught:
            results = verb()
        assert caught[0].filename == __file__
        assert [g.detail for g in results[0].gaps] == ["namespace 'default' holds no memories"]
        assert results[0].hits == []


def test_no_warning_where_the_answer_is_not_a_forgotten_namespace(mem, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mem.current("user", "home_city", namespace="ana").value == "Lisbon"
        assert mem.current("user", "job", namespace="ana") is None          # a namespace named
        mem.add("Default holds this.")
        assert mem.current("user", "home_city") is None                      # default holds memories
        assert mem.recall("where do I live?", namespace="ana").hits              # a namespace named
        with engramdb.open(tmp_path / "fresh", embedder="hashing") as fresh:
            assert fresh.profile("user") == {}                               # nothing anywhere


def test_the_cli_prints_the_hint_on_stderr(tmp_path):
    s = str(tmp_path / "s")
    try:
        run = CliRunner(mix_stderr=False).invoke   # click 8.1 mixes stderr into output by default
    except TypeError:
        run = CliRunner().invoke                   # click >= 8.2 keeps them apart
    assert run(main, ["add", "--store", s, "--embedder", "hashing", "-n", "ana", "--subject", "user",
                      "--attribute", "home_city", "--value", "Lisbon", "I live in Lisbon."]).exit_code == 0
    for args in (["current", "--store", s, "user", "home_city"], ["profile", "--store", s, "user"],
                 ["recall", "--store", s, "where do I live?"], ["context", "--store", s, "where do I live?"]):
        out = run(main, args)
        assert out.exit_code == 0
        assert "hint: " in out.stderr and "the store's namespaces: 'ana'" in out.stderr and "--namespace" in out.stderr
    out = run(main, ["context", "--store", s, "where do I live?"])
    assert "'ana'" not in out.stdout                     # the block itself names no namespace
    out = run(main, ["current", "--store", s, "-n", "ana", "user", "home_city"])
    assert "Lisbon" in out.stdout and "hint" not in out.stderr
