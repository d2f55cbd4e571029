"""Slot and time fields are real columns of an export (format 2) that pyarrow can filter; the
round trip stays exact, and exports of format 1 (those fields in ``extra``) still import."""
import os

import msgpack
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import engramdb
from engramdb import errors
from engramdb.export import FIELD_COLUMNS, FORMAT_VERSION, MEMORY_COLUMNS
from engramdb.testing import frozen_clock, nid_of, raw_records

from .conftest import DIM, basis
from .test_export import _assert_same_store, _read_table, _tables

T = 1_700_000_000.0    # 2023-11-14T22:13:20Z, the record clock of the story
DAY = 86400.0
#: the known columns of format 1; every other record field went into ``extra``
V1_KNOWN = ("id", "namespace", "kind", "text", "created_at", "recorded_at", "confidence", "salience",
            "salience_at", "access_count", "last_access", "source", "tags", "state", "superseded_by")
NEW_COLUMNS = ("subject", "attribute", "value", "valid_from", "valid_to", "retired_at", "version")


def _slot_story(e, clock):
    """A home city that changes, a multi-valued slot, an updated wording and a revived memory."""
    e.add("I live in Porto", id="h1", slot=("user", "home_city", "Porto"), embedding=basis(0),
          created_at=T - 400 * DAY)
    clock.advance(100)
    e.add("I moved to Lisbon", id="h2", slot=("user", "home_city", "Lisbon"), embedding=basis(1),
          valid_from=T - 100 * DAY, valid_to=T + 300 * DAY)
    e.add("likes tea", id="t1", subject="user", attribute="likes", value="tea", single_valued=False,
          embedding=basis(2))
    e.add("plain", id="p", embedding=basis(3))
    e.update("p", text="plain again", embedding=basis(4))
    e.add("z", id="z", embedding=basis(5))
    e.supersede("z", "z2", id="z2", embedding=basis(6))
    e.forget("z2", hard=True)          # z is current again, its valid_to and retired_at kept as None


def _rows(path, fmt):
    ext = {"parquet": "parquet", "arrow": "arrow"}[fmt]
    return {r["id"]: r for r in _read_table(os.path.join(path, f"memories.{ext}"), fmt).to_pylist()}


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_slot_and_time_columns(tmp_path, fmt):
    with frozen_clock(T) as clock, engramdb.open(tmp_path / "a", dim=DIM) as a:
        _slot_story(a, clock)
        a.export(tmp_path / "x", format=fmt, now=T)
        raw_z = raw_records(a)[nid_of(a, "z")]
        assert raw_z["valid_to"] is None and raw_z["retired_at"] is None   # stored, with value None
        with engramdb.open(tmp_path / "b", dim=DIM) as b:
            b.import_from(tmp_path / "x")
            _assert_same_store(a, b)
            b.export(tmp_path / "y", format=fmt, now=T)
    assert _tables(tmp_path / "y") == _tables(tmp_path / "x")
    table = _read_table(os.path.join(tmp_path / "x", f"memories.{fmt}"), fmt)
    assert table.column_names == list(MEMORY_COLUMNS)
    assert table.schema.metadata[b"engramdb.format_version"] == FORMAT_VERSION.encode() == b"3"
    types = {f.name: str(f.type) for f in table.schema}
    assert {k: types[k] for k in NEW_COLUMNS} == {
        "subject": "string", "attribute": "string", "value": "string", "valid_from": "double",
        "valid_to": "double", "retired_at": "double", "version": "int64"}
    rows = _rows(tmp_path / "x", fmt)
    h1, h2, t1, p, z = (rows[k] for k in ("h1", "h2", "t1", "p", "z"))
    assert (h1["subject"], h1["attribute"], h1["value"]) == ("user", "home_city", "Porto")
    assert (h1["created_at"], h1["valid_from"], h1["valid_to"]) == (T - 400 * DAY, T - 400 * DAY, T - 100 * DAY)
    assert (h1["recorded_at"], h1["retired_at"], h1["state"]) == (T, T + 100, "superseded")
    assert (h2["valid_from"], h2["valid_to"], h2["retired_at"], h2["value"]) == (T - 100 * DAY, T + 300 * DAY,
                                                                                  None, "Lisbon")
    assert (t1["attribute"], t1["value"], t1["valid_to"]) == ("likes", "tea", None)
    assert (p["version"], p["text"], p["subject"], h1["version"]) == (2, "plain again", None, 1)
    assert (z["valid_from"], z["valid_to"], z["retired_at"]) == (z["created_at"], None, None)
    # only what the columns cannot give back exactly is in extra: z's fields kept as None,
    # p's earlier wording, t1's multi-valued flag; h1's slot and times are columns only
    assert msgpack.unpackb(z["extra"]) == {"retired_at": None, "valid_to": None}
    assert [v["text"] for v in msgpack.unpackb(p["extra"])["versions"]] == ["plain"]
    assert msgpack.unpackb(t1["extra"]) == {"multi": True}
    assert h1["extra"] is None


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_pyarrow_filters_an_export_by_attribute_and_valid_time(tmp_path, fmt):
    with frozen_clock(T) as clock, engramdb.open(tmp_path / "a", dim=DIM) as a:
        _slot_story(a, clock)
        a.export(tmp_path / "x", format=fmt, now=T)
    table = _read_table(os.path.join(tmp_path / "x", f"memories.{fmt}"), fmt)
    cities = table.filter(pc.and_(pc.equal(table["attribute"], "home_city"),
                                  pc.greater_equal(table["valid_from"], T - 200 * DAY)))
    assert cities["id"].to_pylist() == ["h2"]
    # where did the user live 200 days before T?  valid_from <= t < valid_to (null: open)
    t = T - 200 * DAY
    where = ((ds.field("attribute") == "home_city") & (ds.field("valid_from") <= t)
             & (ds.field("valid_to").is_null() | (ds.field("valid_to") > t)))
    lived = ds.dataset(str(tmp_path / "x" / f"memories.{fmt}"), format="parquet" if fmt == "parquet" else "ipc")
    assert lived.to_table(filter=where, columns=["id", "value"]).to_pylist() == [{"id": "h1", "value": "Porto"}]
    now_valid = ds.dataset(str(tmp_path / "x" / f"memories.{fmt}"),
                           format="parquet" if fmt == "parquet" else "ipc").to_table(
        filter=(ds.field("attribute") == "home_city") & ds.field("retired_at").is_null(), columns=["value"])
    assert now_valid.to_pylist() == [{"value": "Lisbon"}]


def _as_format_1(engine, src, dst, metadata=True):
    """Rewrite the export ``src`` as format 1 would have written it: no slot and time columns,
    every record field outside ``V1_KNOWN`` in ``extra`` (built from the stored records)."""
    mem = pq.read_table(os.path.join(src, "memories.parquet"))
    edg = pq.read_table(os.path.join(src, "edges.parquet"))
    raw = raw_records(engine)
    extras = []
    for r in mem.to_pylist():
        rec = raw[nid_of(engine, r["id"], r["namespace"])]
        extra = {k: v for k, v in rec.items() if k not in V1_KNOWN}
        extras.append(msgpack.packb(extra, use_bin_type=True) if extra else None)
    keep = [c for c in mem.column_names if c not in NEW_COLUMNS and c not in ("extra", "sentence_keys")]
    v1 = mem.select(keep).append_column("extra", pa.array(extras, pa.binary()))
    meta = dict(mem.schema.metadata)
    meta[b"engramdb.format_version"] = b"1"
    os.makedirs(dst)
    pq.write_table(v1.replace_schema_metadata(meta if metadata else None), os.path.join(dst, "memories.parquet"))
    pq.write_table(edg.replace_schema_metadata(meta if metadata else None), os.path.join(dst, "edges.parquet"))
    return v1


@pytest.mark.parametrize("metadata", [True, False], ids=["format_version-1", "no-metadata"])
def test_format_1_export_still_imports(tmp_path, metadata):
    with frozen_clock(T) as clock, engramdb.open(tmp_path / "a", dim=DIM) as a:
        _slot_story(a, clock)
        a.export(tmp_path / "x", now=T)
        v1 = _as_format_1(a, tmp_path / "x", tmp_path / "v1", metadata=metadata)
        assert not set(NEW_COLUMNS) & set(v1.column_names)
        assert msgpack.unpackb(v1.to_pylist()[0]["extra"])["attribute"] == "home_city"
        with engramdb.open(tmp_path / "b", dim=DIM) as b:
            assert b.import_from(tmp_path / "v1")["memories"] == 5    # h1, h2, t1, p, z (z2 erased)
            _assert_same_store(a, b)
            b.export(tmp_path / "y", now=T)
    assert _tables(tmp_path / "y") == _tables(tmp_path / "x")    # and written back in the current format


def test_unknown_format_version_and_missing_column(tmp_path):
    with frozen_clock(T) as clock, engramdb.open(tmp_path / "a", dim=DIM) as a:
        _slot_story(a, clock)
        a.export(tmp_path / "x", now=T)
    mem = pq.read_table(tmp_path / "x" / "memories.parquet")
    meta = dict(mem.schema.metadata)
    for name, table in (("v4", mem.replace_schema_metadata({**meta, b"engramdb.format_version": b"4"})),
                        ("novalid", mem.drop(["valid_to"]))):
        os.makedirs(tmp_path / name)
        pq.write_table(table, tmp_path / name / "memories.parquet")
        os.link(tmp_path / "x" / "edges.parquet", tmp_path / name / "edges.parquet")
    with engramdb.open(tmp_path / "b", dim=DIM) as b:
        with pytest.raises(errors.InvalidInputError, match="format_version '4'"):
            b.import_from(tmp_path / "v4")
        with pytest.raises(errors.InvalidInputError, match="valid_to"):
            b.import_from(tmp_path / "novalid")
        assert b.stats()["memories"] == 0


def test_bad_slot_and_time_columns_are_rejected(tmp_path):
    with frozen_clock(T) as clock, engramdb.open(tmp_path / "a", dim=DIM) as a:
        _slot_story(a, clock)
        a.export(tmp_path / "x", now=T)
    mem = pq.read_table(tmp_path / "x" / "memories.parquet")
    h1 = mem["id"].to_pylist().index("h1")

    def with_column(name, values, type_):
        return mem.set_column(mem.column_names.index(name), name, pa.array(values, type_))

    attrs = mem["attribute"].to_pylist()
    attrs[h1] = None                                     # a subject without an attribute
    vt = mem["valid_to"].to_pylist()
    vt[h1] = float("nan")
    subj = mem["subject"].to_pylist()
    subj[h1] = "us\x00er"
    cases = {"noattr": (with_column("attribute", attrs, pa.string()), errors.InvalidInputError, "subject and attribute"),
             "nan": (with_column("valid_to", vt, pa.float64()), errors.NonFiniteError, "valid_to"),
             "nul": (with_column("subject", subj, pa.string()), errors.InvalidInputError, "subject")}
    with engramdb.open(tmp_path / "b", dim=DIM) as b:
        for name, (table, exc, msg) in cases.items():
            os.makedirs(tmp_path / name)
            pq.write_table(table, tmp_path / name / "memories.parquet")
            os.link(tmp_path / "x" / "edges.parquet", tmp_path / name / "edges.parquet")
            with pytest.raises(exc, match=msg):
                b.import_from(tmp_path / name)
        assert b.stats()["memories"] == 0


def test_field_columns_are_the_slot_and_time_fields():
    assert FIELD_COLUMNS == ("subject", "attribute", "value", "valid_from", "valid_to", "retired_at")
    assert set(NEW_COLUMNS) | {"recorded_at"} <= set(MEMORY_COLUMNS)


def test_an_embedding_not_of_unit_length_is_refused(tmp_path):
    """helper-249 (sentence keys; the same for embeddings): the store keeps unit vectors and reads
    their dot products as cosines, so an export whose vector was scaled gave similarities past 1."""
    with frozen_clock(T) as clock, engramdb.open(tmp_path / "a", dim=DIM) as a:
        _slot_story(a, clock)
        a.export(tmp_path / "x", now=T)
    mem = pq.read_table(tmp_path / "x" / "memories.parquet")
    emb = mem.column("embedding").combine_chunks()
    flat = emb.flatten().to_numpy(zero_copy_only=False).copy()
    flat[:DIM] *= 2.0
    scaled = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), DIM)
    os.makedirs(tmp_path / "scaled")
    pq.write_table(mem.set_column(mem.column_names.index("embedding"), "embedding", scaled),
                   tmp_path / "scaled" / "memories.parquet")
    os.link(tmp_path / "x" / "edges.parquet", tmp_path / "scaled" / "edges.parquet")
    with engramdb.open(tmp_path / "b", dim=DIM) as b:
        with pytest.raises(errors.InvalidInputError, match="memories row 0: the embedding has length 2"):
            b.import_from(tmp_path / "scaled")
        assert b.stats()["memories"] == 0
        assert b.import_from(tmp_path / "x")["memories"] == 5   # the export as written imports
