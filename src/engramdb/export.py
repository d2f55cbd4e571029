"""Export a store to Apache Arrow tables (Parquet or Arrow IPC files) and import it back.

Layout: ``export_store(engine, path)`` makes ``path`` a directory with two tables, one file each:

``memories.parquet`` (or ``memories.arrow``), one row per memory, ordered by internal id:

=================  ============================  =============================================
column             type                          meaning
=================  ============================  =============================================
id, namespace      string                        the caller's id, unique per namespace
kind, state        string                        ``MemoryKind`` / ``MemoryState`` values
text               string
embedding          fixed_size_list<float32>[d]   the stored unit vector, bit for bit
created_at         float64                       event time, Unix seconds
recorded_at        float64                       ingest time, Unix seconds
confidence         float64                       in [0, 1]
salience           float64                       stored s0
salience_at        float64                       its t0 (+inf: a decision held until review)
salience_now       float32                       s(now) at export time (analysis only; not read back)
access_count       int64
last_access        float64, nullable
source             string, nullable
tags               list<string>
superseded_by      string, nullable
extra              binary (msgpack), nullable    any other record field (``reviewed_at``,
                                                 ``promoted_from``, ...), restored as stored
=================  ============================  =============================================

``edges.parquet`` (or ``edges.arrow``): namespace, source, target (ids), relation (string),
weight (float32), created_at (float64). The schema metadata carries ``engramdb.dim``,
``engramdb.embedder`` and ``engramdb.format_version``.

``import_store(engine, path)`` reads both back into an open store (empty or not) in one
transaction: ids, namespaces, kinds, texts, embeddings, timestamps, tags, sources,
confidences, salience (s0, t0), access counts, states, supersession pointers, extra fields and
edges with their relation, weight and time come back exactly; only internal ids are new.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from .errors import DimensionMismatchError, EngramError, InvalidInputError, NonFiniteError, StoreCorruptedError
from .state import EngineState
from .store.checks import check_record
from .store.lmdb_store import pack, unpack
from .types import MemoryKind, MemoryState, Relation, RELATION_BY_CODE
from .validate import check_fraction, check_id, check_namespace, check_text, to_unix_seconds
from .write import write_unit

__all__ = ["export_store", "import_store", "FORMATS", "MEMORY_COLUMNS", "EDGE_COLUMNS", "FORMAT_VERSION"]

FORMATS = {"parquet": "parquet", "arrow": "arrow"}
FORMAT_VERSION = "1"
_KNOWN = ("id", "namespace", "kind", "text", "created_at", "recorded_at", "confidence", "salience",
          "salience_at", "access_count", "last_access", "source", "tags", "state", "superseded_by")
MEMORY_COLUMNS = ("id", "namespace", "kind", "state", "text", "embedding", "created_at", "recorded_at",
                  "confidence", "salience", "salience_at", "salience_now", "access_count", "last_access",
                  "source", "tags", "superseded_by", "extra")
EDGE_COLUMNS = ("namespace", "source", "target", "relation", "weight", "created_at")


def _pa():
    try:
        import pyarrow as pa
        import pyarrow.ipc  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise InvalidInputError(f"export needs pyarrow ({exc}); pip install 'pyarrow>=14'") from exc
    return pa


def _check_format(format: Any) -> str:
    if format not in FORMATS:
        raise InvalidInputError(f"format: expected one of {sorted(FORMATS)}, got {format!r}")
    return format


def _write_table(table, path: str, format: str) -> None:
    pa = _pa()
    if format == "parquet":
        pa.parquet.write_table(table, path)
    else:
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)


def _read_table(path: str, format: str):
    pa = _pa()
    if format == "parquet":
        return pa.parquet.read_table(path)
    with pa.memory_map(path, "r") as src:
        return pa.ipc.open_file(src).read_all()


def export_store(state: EngineState, path: str | os.PathLike, *, format: str = "parquet",
                 now: float, embedder_name: str | None = None) -> dict[str, str]:
    """Write the store's memories and edges to the directory ``path`` (see the module docstring).

    Parameters
    ----------
    state : EngineState
    path : str or os.PathLike
        Directory to create (or an existing empty one).
    format : {"parquet", "arrow"}
    now : float
        Unix seconds at which ``salience_now`` is computed.
    embedder_name : str, optional
        Recorded in the schema metadata.

    Returns
    -------
    dict
        ``{"memories": file path, "edges": file path}``.

    Raises
    ------
    InvalidInputError
        Unknown format, or ``path`` is a file or a non-empty directory.
    """
    pa = _pa()
    format = _check_format(format)
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a directory path, got {type(path).__name__}")
    path = os.fspath(path)
    if os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
        raise InvalidInputError(f"export path {path!r} exists and is not an empty directory")
    store = state.store
    cols: dict[str, list] = {k: [] for k in MEMORY_COLUMNS if k != "embedding"}
    vecs, nids = [], []
    with store.read("exporting memories") as txn:
        for nid, rec in store.iter_records(txn):
            nids.append(nid)
            vecs.append(store.get_vector(txn, nid, state.dim))
            for k in _KNOWN:
                cols[k].append(rec[k])
            extra = {k: v for k, v in rec.items() if k not in _KNOWN}
            cols["extra"].append(pack(extra) if extra else None)
        edge_rows = _read_edges(state, txn)
    nid_arr = np.array(nids, np.int64)
    cols["salience_now"] = (state.salience_now(nid_arr, now) if len(nid_arr) else np.zeros(0, np.float32)).tolist()
    dim = state.dim
    flat = np.concatenate(vecs).astype(np.float32) if vecs else np.zeros(0, np.float32)
    types = {"id": pa.string(), "namespace": pa.string(), "kind": pa.string(), "state": pa.string(),
             "text": pa.string(), "created_at": pa.float64(), "recorded_at": pa.float64(),
             "confidence": pa.float64(), "salience": pa.float64(), "salience_at": pa.float64(),
             "salience_now": pa.float32(), "access_count": pa.int64(), "last_access": pa.float64(),
             "source": pa.string(), "tags": pa.list_(pa.string()), "superseded_by": pa.string(),
             "extra": pa.binary()}
    arrays = {}
    for name in MEMORY_COLUMNS:
        if name == "embedding":
            arrays[name] = pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dim)
        else:
            arrays[name] = pa.array(cols[name], types[name])
    meta = {b"engramdb.dim": str(dim).encode(), b"engramdb.embedder": str(embedder_name or "").encode(),
            b"engramdb.format_version": FORMAT_VERSION.encode()}
    memories = pa.table(arrays).replace_schema_metadata(meta)
    edges = pa.table({
        "namespace": pa.array([r[0] for r in edge_rows], pa.string()),
        "source": pa.array([r[1] for r in edge_rows], pa.string()),
        "target": pa.array([r[2] for r in edge_rows], pa.string()),
        "relation": pa.array([r[3] for r in edge_rows], pa.string()),
        "weight": pa.array([r[4] for r in edge_rows], pa.float32()),
        "created_at": pa.array([r[5] for r in edge_rows], pa.float64()),
    }).replace_schema_metadata(meta)
    os.makedirs(path, exist_ok=True)
    ext = FORMATS[format]
    out = {"memories": os.path.join(path, f"memories.{ext}"), "edges": os.path.join(path, f"edges.{ext}")}
    _write_table(memories, out["memories"], format)
    _write_table(edges, out["edges"], format)
    return out


def _read_edges(state: EngineState, txn) -> list[tuple]:
    """(namespace, source id, target id, relation, weight, created_at) of every stored edge."""
    import struct

    key, val = struct.Struct(">IIB"), struct.Struct("<fd")
    ext = state.cols.ext_ids
    names = list(state.codes)
    rows = []
    for k, v in txn.cursor(db=state.store.dbs["edges"]):
        s, t, r = key.unpack(k)
        w, created = val.unpack(v)
        rows.append((names[int(state.cols.ns[s])], ext[s], ext[t], RELATION_BY_CODE[r].value, w, created))
    return rows


def _detect(path: str) -> str:
    for fmt, ext in FORMATS.items():
        if os.path.isfile(os.path.join(path, f"memories.{ext}")) and os.path.isfile(os.path.join(path, f"edges.{ext}")):
            return fmt
    raise InvalidInputError(f"{path!r} holds no engramdb export (memories.parquet + edges.parquet, "
                            "or memories.arrow + edges.arrow)")


def _finite(x: Any, field: str, allow_inf: bool = False) -> float:
    if x is None or isinstance(x, bool):
        raise InvalidInputError(f"{field}: expected a number, got {x!r}")
    v = float(x)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise NonFiniteError(f"{field}: expected a finite number, got {x!r}")
    return v


def import_store(state: EngineState, path: str | os.PathLike, *, now: float) -> dict[str, int]:
    """Read an export of :func:`export_store` into the store in one write unit (all or nothing).

    Records are written through :meth:`WriteUnit.insert`, the path of every new memory, so the
    slot table, deduplication keys, keyword postings and counters are rebuilt as for ``add``.

    Parameters
    ----------
    state : EngineState
        Open for writing; its dimension must match the export's.
    path : str or os.PathLike
        Directory written by :func:`export_store` (format detected from the file names).
    now : float
        Unix seconds of the import (the write's record time; imported records keep theirs).

    Returns
    -------
    dict
        ``{"memories": n, "edges": m}``.

    Raises
    ------
    InvalidInputError
        No export at ``path``, a missing column, a bad field value, an id given twice or
        already stored, an edge whose end is missing.
    DimensionMismatchError
        The embeddings' dimension differs from the store's.
    NonFiniteError
        A NaN or infinite number (only ``salience_at`` may be +inf) or a zero embedding.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a directory path, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise InvalidInputError(f"{path!r} is not a directory written by engramdb export")
    fmt = _detect(path)
    try:
        return _import_tables(state, path, fmt, now)
    except (EngramError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:   # pyarrow / numpy on a damaged or mistyped export
        raise InvalidInputError(f"export at {path!r} cannot be read: {type(exc).__name__}: {exc}") from exc


def _import_tables(state: EngineState, path: str, fmt: str, now: float) -> dict[str, int]:
    """The body of :func:`import_store`, once the format is known."""
    mem = _read_table(os.path.join(path, f"memories.{FORMATS[fmt]}"), fmt)
    edg = _read_table(os.path.join(path, f"edges.{FORMATS[fmt]}"), fmt)
    missing = [c for c in MEMORY_COLUMNS if c not in mem.column_names] + \
              [c for c in EDGE_COLUMNS if c not in edg.column_names]
    if missing:
        raise InvalidInputError(f"export at {path!r} lacks column(s) {missing}")
    n = mem.num_rows
    emb = mem.column("embedding").combine_chunks()
    dim = emb.type.list_size if hasattr(emb.type, "list_size") else None
    if n and dim != state.dim:
        raise DimensionMismatchError(expected=state.dim, got=dim, field="embedding (export)")
    vecs = np.asarray(emb.flatten().to_numpy(zero_copy_only=False), np.float32).reshape(n, state.dim) if n else \
        np.zeros((0, state.dim), np.float32)
    if not np.all(np.isfinite(vecs)):
        raise NonFiniteError("export: an embedding holds NaN or infinite values")
    if n and np.any(np.linalg.norm(vecs, axis=1) == 0):
        raise NonFiniteError("export: an embedding is all zeros")
    rows = mem.drop(["embedding"]).to_pylist()
    records = []
    seen = set()
    for i, r in enumerate(rows):
        where = f"memories row {i}"
        ns = check_namespace(r["namespace"])
        ext_id = check_id(r["id"], f"{where}: id")
        if (ns, ext_id) in seen:
            raise InvalidInputError(f"{where}: id {ext_id!r} appears twice in namespace {ns!r}")
        seen.add((ns, ext_id))
        check_text(r["text"], state.config.store.max_text_chars, field=f"{where}: text")
        if isinstance(r["tags"], (str, bytes)) or not (r["source"] is None or isinstance(r["source"], str)):
            raise InvalidInputError(f"{where}: tags must be a list of strings and source a string or null")
        rec = {"id": ext_id, "namespace": ns, "kind": MemoryKind.parse(r["kind"]).value, "text": r["text"],
               "created_at": to_unix_seconds(_finite(r["created_at"], f"{where}: created_at"), field=f"{where}: created_at"),
               "recorded_at": to_unix_seconds(_finite(r["recorded_at"], f"{where}: recorded_at"), field=f"{where}: recorded_at"),
               "confidence": check_fraction(r["confidence"], f"{where}: confidence"),
               "salience": check_fraction(r["salience"], f"{where}: salience"),
               "salience_at": _finite(r["salience_at"], f"{where}: salience_at", allow_inf=True),
               "access_count": int(r["access_count"]),
               "last_access": None if r["last_access"] is None else _finite(r["last_access"], f"{where}: last_access"),
               "source": r["source"], "tags": list(r["tags"] or []),
               "state": MemoryState(r["state"]).value if r["state"] in {s.value for s in MemoryState} else None,
               "superseded_by": r["superseded_by"]}
        if rec["state"] is None:
            raise InvalidInputError(f"{where}: state {r['state']!r} is not one of {[s.value for s in MemoryState]}")
        if rec["access_count"] < 0:
            raise InvalidInputError(f"{where}: access_count {rec['access_count']} < 0")
        if r["extra"] is not None:
            extra = unpack(r["extra"])
            if not isinstance(extra, dict):
                raise InvalidInputError(f"{where}: extra must decode to a mapping")
            rec.update({k: v for k, v in extra.items() if k not in rec})
        try:   # exactly the check the store applies when it reads a record back
            check_record(i, rec)
        except StoreCorruptedError as exc:
            raise InvalidInputError(f"{where}: a field is missing or of the wrong type") from exc
        records.append(rec)
    edge_rows = edg.to_pylist()
    edges = []
    with write_unit(state, "importing an export", now) as unit:
        base = unit.allocate(len(records))
        new_nid = {(rec["namespace"], rec["id"]): base + i for i, rec in enumerate(records)}
        for rec in records:
            if unit.lookup(rec["namespace"], rec["id"]) is not None:
                raise InvalidInputError(f"id {rec['id']!r} already exists in namespace {rec['namespace']!r}")
            sup = rec["superseded_by"]
            if sup is not None and (rec["namespace"], sup) not in new_nid and \
                    unit.lookup(rec["namespace"], sup) is None:
                raise InvalidInputError(f"memory {rec['id']!r} is superseded by {sup!r}, which is in neither "
                                        "the export nor the store")
        for i, e in enumerate(edge_rows):
            ends = []
            for end in ("source", "target"):
                key = (e["namespace"], e[end])
                nid = new_nid.get(key)
                if nid is None:
                    nid = unit.lookup(*key)
                if nid is None:
                    raise InvalidInputError(f"edges row {i}: no memory {e[end]!r} in namespace {e['namespace']!r}")
                ends.append(nid)
            w = check_fraction(e["weight"], f"edges row {i}: weight", open_zero=True)
            edges.append((ends[0], ends[1], Relation.parse(e["relation"]).code, w,
                          _finite(e["created_at"], f"edges row {i}: created_at")))
        by_ns: dict[str, list[int]] = {}
        for i, rec in enumerate(records):
            by_ns.setdefault(rec["namespace"], []).append(i)
        for ns, rows_i in by_ns.items():
            unit.index_add(ns, vecs[rows_i], np.array([base + i for i in rows_i], np.int64))
        for i, rec in enumerate(records):
            sha = rec.get("text_sha256")
            digest = bytes.fromhex(sha) if isinstance(sha, str) else None
            unit.insert(base + i, rec, vecs[i], digest=digest, replace_digest=False)
        for s, t, r, w, created in edges:
            unit.add_edges([(s, t, r, w)], created_at=created)
    return {"memories": len(records), "edges": len(edges)}
