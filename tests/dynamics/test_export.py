"""Export to Parquet / Arrow and import back: every field of every memory and edge round-trips."""
import math
import os

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb import errors
from engramdb.cli import main
from engramdb.export import FORMATS
from engramdb.testing import columns, nid_of, raw_records, store_digest
from engramdb.validate import is_blank

from .conftest import DIM, T0, basis, unit

DAY = 86400.0


def _read_table(path, fmt):
    """An exported table, read with pyarrow as a user would."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if fmt == "parquet":
        return pq.read_table(path)
    with pa.memory_map(path, "r") as src:
        return pa.ipc.open_file(src).read_all()


def _tables(path):
    fmt = next(f for f, ext in FORMATS.items() if os.path.exists(os.path.join(path, f"memories.{ext}")))
    mem = _read_table(os.path.join(path, f"memories.{FORMATS[fmt]}"), fmt).to_pylist()
    edg = _read_table(os.path.join(path, f"edges.{FORMATS[fmt]}"), fmt).to_pylist()
    return (sorted(mem, key=lambda r: (r["namespace"], r["id"])),
            sorted(edg, key=lambda r: (r["namespace"], r["source"], r["target"], r["relation"])))


def _all_ids(e):
    c = columns(e)
    return [(ns, x) for ns, x in zip(c["namespace"].tolist(), c["id"].tolist()) if x is not None]


def _assert_same_store(a, b):
    ids_a, ids_b = sorted(_all_ids(a)), sorted(_all_ids(b))
    assert ids_a == ids_b
    recs_a, recs_b = raw_records(a), raw_records(b)
    for ns, x in ids_a:
        ma, mb = a.get(x, namespace=ns, with_embedding=True), b.get(x, namespace=ns, with_embedding=True)
        assert ma.to_dict() == mb.to_dict()
        assert ma.embedding.tobytes() == mb.embedding.tobytes()
        assert sorted(map(repr, a.edges(x, namespace=ns))) == sorted(map(repr, b.edges(x, namespace=ns)))
        assert a.salience(x, namespace=ns, now=T0) == b.salience(x, namespace=ns, now=T0)
        assert recs_a.get(nid_of(a, x, ns)) == recs_b.get(nid_of(b, x, ns))


def _story(e):
    e.add("We fly TAP TP 218 to Lisbon", id="flight", kind="episodic", embedding=basis(0), tags=["trip"],
          source="s1:1", confidence=0.9, created_at="2026-03-02T18:00:00Z")
    e.add("Confirmation code QX7Z9M", id="code", embedding=basis(1), salience=0.7, source="s1:2",
          links=[{"to": "flight", "relation": "evidence_for", "weight": 0.75}])
    e.add("We chose the Alfama hotel", id="hotel", kind="decision", embedding=basis(2))
    e.add("scratch: call Rui", id="w", kind="working", embedding=basis(3), namespace="other")
    e.add("Ana likes tiles", id="pref", kind="semantic", embedding=basis(4), tags=["ana", "gift"])
    e.supersede("pref", "Ana likes blue tiles", id="pref2", embedding=basis(5))
    e.link("hotel", "flight", "informed_by", 0.5)
    e.recall(vector=basis(0), k=2, reinforce=True, now=T0)
    e.review("hotel", now=T0)
    e.forget("code")
    e.rescore(e.get("w", namespace="other").recorded_at + DAY)     # promotes "w" (extra fields)


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_story_round_trip(tmp_path, fmt):
    with engramdb.open(tmp_path / "a", dim=DIM) as a:
        _story(a)
        out = a.export(tmp_path / "x", format=fmt, now=T0)
        assert out == {"memories": str(tmp_path / "x" / f"memories.{fmt}"),
                       "edges": str(tmp_path / "x" / f"edges.{fmt}")}
        mem, edg = _tables(tmp_path / "x")
        assert len(mem) == 6 and {r["state"] for r in mem} == {"active", "archived", "superseded"}
        w = next(r for r in mem if r["id"] == "w")
        assert w["kind"] == "episodic" and w["extra"] is not None
        code = next(r for r in mem if r["id"] == "code")
        assert code["salience_now"] == pytest.approx(a.salience("code", now=T0))
        assert ("code", "flight", "evidence_for", 0.75) in {(r["source"], r["target"], r["relation"], r["weight"]) for r in edg}
        with engramdb.open(tmp_path / "b", dim=DIM) as b:
            assert b.import_from(tmp_path / "x") == {"memories": 6, "pieces": 0, "edges": len(edg), "skipped": 0,
                                                  "replaced": 0}
            _assert_same_store(a, b)
            b.export(tmp_path / "y", format=fmt, now=T0)
            assert _tables(tmp_path / "y") == _tables(tmp_path / "x")
            assert b.recall(vector=basis(0), k=1).hits[0].id == "flight"     # index rebuilt from import
    with engramdb.open(tmp_path / "b") as b:                                   # and persisted
        assert b.get("pref").superseded_by == "pref2" and math.isfinite(b.get("hotel").salience_at)


texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                min_size=1, max_size=30).filter(lambda s: not is_blank(s))   # empty: refused
memories = st.lists(st.fixed_dictionaries({
    "text": texts,
    "kind": st.sampled_from(["working", "episodic", "semantic", "procedural", "decision"]),
    "confidence": st.floats(0, 1), "salience": st.floats(0, 1),
    "created_at": st.floats(-1e9, 4e9, allow_nan=False),
    "tags": st.lists(st.text("abcxyz", min_size=1, max_size=4), max_size=3),
    "source": st.one_of(st.none(), texts),
    "namespace": st.sampled_from(["a", "b"]),
}, optional={
    # slot and time fields: single-valued slots supersede each other (retired_at, valid_to closed)
    "valid_from": st.floats(-1e9, 4e9, allow_nan=False),
    "valid_days": st.floats(0.5, 1e4),
    "slot": st.tuples(st.sampled_from(["user", "ana"]), st.sampled_from(["home_city", "likes"]),
                      st.sampled_from(["porto", "lisbon", "tea"])),
}), min_size=1, max_size=8)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mems=memories, edges=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7),
                                               # supersedes edges come from supersede() and slots only
                                               st.sampled_from([r.value for r in engramdb.Relation
                                                                if r is not engramdb.Relation.SUPERSEDES]),
                                               st.floats(0.01, 1.0)), max_size=10),
       forget=st.sets(st.integers(0, 7), max_size=3), erase=st.sets(st.integers(0, 7), max_size=2),
       fmt=st.sampled_from(["parquet", "arrow"]))
def test_round_trip_property(tmp_path_factory, mems, edges, forget, erase, fmt):
    root = tmp_path_factory.mktemp("rt")
    rng = np.random.default_rng(len(mems))
    with engramdb.open(root / "a", dim=DIM) as a:
        for i, m in enumerate(mems):
            m = dict(m)
            days = m.pop("valid_days", None)
            if days is not None:
                m["valid_to"] = m.get("valid_from", m["created_at"]) + days * DAY
            a.add(id=f"m{i}", embedding=unit(rng.standard_normal(DIM)), **m)
        for s, t, rel, w in edges:
            if s < len(mems) and t < len(mems) and s != t and mems[s]["namespace"] == mems[t]["namespace"]:
                a.link(f"m{s}", f"m{t}", rel, w, namespace=mems[s]["namespace"])
        for i in forget:
            if i < len(mems):
                a.forget(f"m{i}", namespace=mems[i]["namespace"])
        for i in erase:    # a hard forget revives what it superseded (fields kept as None)
            if i < len(mems):
                a.forget(f"m{i}", namespace=mems[i]["namespace"], hard=True)
        a.export(root / "x", format=fmt, now=T0)
        with engramdb.open(root / "b", dim=DIM) as b:
            b.import_from(root / "x")
            _assert_same_store(a, b)
            b.export(root / "y", format=fmt, now=T0)
    assert _tables(root / "y") == _tables(root / "x")


def test_import_conflict_and_bad_input_leave_store_unchanged(tmp_path):
    with engramdb.open(tmp_path / "a", dim=DIM) as a:
        _story(a)
        a.export(tmp_path / "x", now=T0)
        with pytest.raises(errors.InvalidInputError):
            a.export(tmp_path / "x")                       # not an empty directory
        with pytest.raises(errors.InvalidInputError):
            a.export(tmp_path / "z", format="csv")
        before = store_digest(a)
        with pytest.raises(errors.InvalidInputError):      # every id already exists
            a.import_from(tmp_path / "x")
        with pytest.raises(errors.InvalidInputError):
            a.import_from(tmp_path / "nothing-here")
        assert store_digest(a) == before
    with engramdb.open(tmp_path / "c", dim=DIM * 2) as c:
        before = store_digest(c)
        with pytest.raises(errors.DimensionMismatchError):
            c.import_from(tmp_path / "x")
        assert store_digest(c) == before and c.stats()["memories"] == 0


def test_cli_export_import(tmp_path):
    with engramdb.open(tmp_path / "a", dim=DIM) as a:
        _story(a)
    runner = CliRunner()
    res = runner.invoke(main, ["export", "--store", str(tmp_path / "a"), "--format", "arrow", "--out", str(tmp_path / "x")])
    assert res.exit_code == 0, res.output
    assert os.path.exists(tmp_path / "x" / "memories.arrow") and os.path.exists(tmp_path / "x" / "edges.arrow")
    res = runner.invoke(main, ["import", "--store", str(tmp_path / "b"), str(tmp_path / "x")])
    assert res.exit_code == 0, res.output
    assert "imported 6 memories" in res.output
    res = runner.invoke(main, ["import", "--store", str(tmp_path / "b"), "--on-conflict", "skip", str(tmp_path / "x")])
    assert res.exit_code == 0, res.output
    assert "imported 0 memories and 0 edges" in res.output and "6 already stored kept, 0 replaced" in res.output
    res = runner.invoke(main, ["import", "--store", str(tmp_path / "b"), "--on-conflict", "merge", str(tmp_path / "x")])
    assert res.exit_code == 2 and "merge" in res.output
    res = runner.invoke(main, ["import", "--store", str(tmp_path / "b"), str(tmp_path / "x")])
    assert res.exit_code != 0 and "on_conflict" in res.output and "Traceback" not in res.output
    with engramdb.open(tmp_path / "a", readonly=True) as a, engramdb.open(tmp_path / "b") as b:
        assert b.dim == DIM
        _assert_same_store(a, b)


def test_import_refuses_an_export_of_another_embedder(tmp_path):
    """Vectors of two embedders cannot be compared: the import is refused, the store unchanged."""
    class Other:
        dim, name = 384, "another-embedder-v1"

        def embed(self, texts):
            import numpy as np
            out = np.zeros((len(texts), 384), np.float32)
            out[:, 0] = 1.0
            return out

    with engramdb.open(tmp_path / "a", dim=384, embedder=Other()) as a:
        a.add("the spare key is under the mat", id="key")
        a.export(tmp_path / "dump")
    with engramdb.open(tmp_path / "b", dim=384, embedder="hashing") as b:
        b.add("a memory of its own", id="own")
        with pytest.raises(engramdb.InvalidInputError, match="another-embedder-v1"):
            b.import_from(tmp_path / "dump")
        assert b.stats()["memories"] == 1
    with engramdb.open(tmp_path / "c", dim=384, embedder=Other()) as c:   # the same embedder: accepted
        assert c.import_from(tmp_path / "dump")["memories"] == 1
