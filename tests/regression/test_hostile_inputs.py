"""Pinned reproductions of bugs a hostile-input review found (see the commit that added them)."""
import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import engramdb
from engramdb import errors
from engramdb.cli import main
from engramdb.testing import indexed_counts

DIM = 8
V = np.ones(DIM)


def test_second_writer_is_refused(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("from A", id="a", embedding=V)
        code = ("import engramdb, sys\n"
                "try:\n    engramdb.open(sys.argv[1])\nexcept engramdb.StoreLockedError:\n    sys.exit(3)\n")
        proc = subprocess.run([sys.executable, "-c", code, str(tmp_store)], capture_output=True)
        assert proc.returncode == 3, proc.stderr.decode()
        reader = ("import engramdb, sys\n"
                  "with engramdb.open(sys.argv[1], readonly=True) as r:\n    print(r.get('a').text)\n")
        proc = subprocess.run([sys.executable, "-c", reader, str(tmp_store)], capture_output=True, text=True)
        assert proc.stdout.strip() == "from A", proc.stderr   # readers are fine
    with engramdb.open(tmp_store) as eng:   # the lock goes with close()
        assert eng.get("a").text == "from A"


def test_cli_uses_the_store_dim(tmp_store):
    engramdb.open(tmp_store, dim=DIM).close()
    res = CliRunner().invoke(main, ["add", "--store", str(tmp_store), "--id", "x", "hello"])
    assert res.exit_code == 0, res.output
    with engramdb.open(tmp_store) as eng:
        assert eng.get("x").text == "hello" and eng.dim == DIM


def test_opening_a_plain_directory_writes_nothing(tmp_path):
    d = tmp_path / "notstore"
    d.mkdir()
    (d / "notes.txt").write_text("mine")
    with pytest.raises(errors.InvalidInputError):
        engramdb.open(d)
    assert sorted(os.listdir(d)) == ["notes.txt"]


@pytest.mark.parametrize("call", [
    lambda e: e.add("x", id="\ud800", embedding=V),
    lambda e: e.add("bad \ud800 text", embedding=V),
    lambda e: e.add("x", embedding=V, tags=["a\x00b"]),
    lambda e: e.add("x", embedding=V, source=5),
    lambda e: e.add("x", embedding=V, created_at=1e20),
    lambda e: e.add("x", embedding=V.astype(complex)),
    lambda e: e.add("x", embedding=np.ones((2, DIM))),
    lambda e: e.add("x", id="selfy", embedding=V, links=[{"to": "selfy"}]),
    lambda e: e.link("a", "b", "supports", "0.5"),
    lambda e: e.link("a", "b", "supports", True),
    lambda e: e.link_batch(None),
    lambda e: e.add("x", embedding=V, confidence=True),
    lambda e: e.add("x", embedding=V, confidence="0.5"),
    lambda e: e.recall(),
])
def test_more_bad_input_is_an_engram_error(tmp_store, call):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("a", id="a", embedding=V)
        eng.add("b", id="b", embedding=-V)
        with pytest.raises(errors.InvalidInputError):
            call(eng)
        assert eng.stats()["memories"] == 2 and eng.stats()["edges"] == 0


def test_open_none_is_an_engram_error():
    with pytest.raises(errors.InvalidInputError):
        engramdb.open(None)


def test_numeric_strings_are_unix_seconds(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("old", id="old", embedding=V, created_at="1683554163")
        eng.add("new", id="new", embedding=V, created_at="2024-01-01T00:00:00Z")
        assert eng.get("old").created_at == 1683554163.0
        assert [h.id for h in eng.recall(vector=V, since="1700000000")] == ["new"]


def test_hard_forget_of_a_newer_version_revives_the_older(tmp_store, rng):
    vecs = rng.standard_normal((3, DIM))
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("grey cat", id="b", embedding=vecs[0], tags=["pets"], kind="semantic")
        eng.supersede("b", "orange cat", id="b2", embedding=vecs[1])
        assert eng.get("b2").tags == ("pets",) and eng.get("b2").kind is engramdb.MemoryKind.SEMANTIC
        eng.forget("b2", hard=True)
        assert eng.get("b").state is engramdb.MemoryState.ACTIVE and eng.get("b").superseded_by is None
    with engramdb.open(tmp_store) as eng:
        assert [h.id for h in eng.recall(vector=vecs[0], k=1).hits] == ["b"]
        eng.supersede("b", "black cat", id="b3", embedding=vecs[2])
        assert eng.get("b").superseded_by == "b3"


def test_filters_take_a_single_string_and_refuse_empty_kinds(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("x", id="x", embedding=V, tags=["pets"], kind="semantic")
        assert [h.id for h in eng.recall(vector=V, tags="pets").hits] == ["x"]
        assert [h.id for h in eng.recall(vector=V, kinds="semantic").hits] == ["x"]
        with pytest.raises(errors.InvalidInputError):
            eng.recall(vector=V, kinds=[])


def test_link_specs_are_checked(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        eng.add("a", id="a", embedding=V)
        with pytest.raises(errors.InvalidInputError):
            eng.add("b", id="b", embedding=V, links={"to": "a"})
        with pytest.raises(errors.InvalidInputError):
            eng.add("b", id="b", embedding=V, links=[{"to": "a", "foo": 1}])
        eng.add("b", id="b", embedding=V, links=[("a", "supports", 0.3)])
        assert [(e.source, e.target, e.weight) for e in eng.edges("b") if e.relation.value == "supports"] == [("b", "a", 0.3)]


def test_out_of_range_numeric_string_says_so():
    with pytest.raises(errors.InvalidInputError, match="years 1 to 9999"):
        engramdb.to_unix_seconds("1e20")


def test_jsonl_links_as_lists_and_mappings(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text('{"id": "x", "text": "first", "links": [["y", "supports", 0.5]]}\n'
                 '{"id": "y", "text": "second", "links": [{"to": "x", "relation": "caused_by"}]}\n')
    res = CliRunner().invoke(main, ["ingest", "--store", str(tmp_path / "s"), str(f)])
    assert res.exit_code == 0, res.output
    with engramdb.open(tmp_path / "s") as eng:
        rels = {(e.source, e.target, e.relation.value) for e in eng.edges("x")}
        assert {("x", "y", "supports"), ("y", "x", "caused_by")} <= rels


def test_failed_add_in_a_new_namespace_leaves_no_index(tmp_store):
    with engramdb.open(tmp_store, dim=DIM) as eng:
        with pytest.raises(errors.MemoryNotFoundError):
            eng.add("x", id="x", namespace="fresh", embedding=V, links=[{"to": "ghost"}])
        assert "fresh" not in indexed_counts(eng) and eng.namespaces() == []
        with pytest.raises(errors.NamespaceError, match="no namespace 'fresh'"):   # never created
            eng.recall(vector=V, namespace="fresh")
        eng.add("x", id="x", namespace="fresh", embedding=V)      # the same nid is reused cleanly
        assert [h.id for h in eng.recall(vector=V, namespace="fresh").hits] == ["x"]
