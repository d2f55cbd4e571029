"""Export a store to Apache Arrow tables (Parquet or Arrow IPC files) and import it back.

Layout: ``export_store(engine, path)`` makes ``path`` a directory with two tables, one file each:

``memories.parquet`` (or ``memories.arrow``), one row per memory, ordered by internal id:

=================  ============================  =============================================
column             type                          meaning
=================  ============================  =============================================
id, namespace      string                        the caller's id, unique per namespace
kind, state        string                        ``MemoryKind`` / ``MemoryState`` values
text               string                        the current wording
subject            string, nullable              slot (subject, attribute, value), normalised;
attribute          string, nullable              null when the memory fills no slot
value              string, nullable
embedding          fixed_size_list<float32>[d]   the stored unit vector, bit for bit
sentence_keys      binary, nullable              the memory's sentence keys (format 3): s x d
                                                 float16, row-major, little-endian, as stored
                                                 (``StoreConfig.sentence_keys``); null: none
created_at         float64                       event time, Unix seconds
recorded_at        float64                       record time: when the store learned it
retired_at         float64, nullable             record time it was superseded; null: current
valid_from         float64                       valid time start (``created_at`` unless stated)
valid_to           float64, nullable             valid time end; null: open
version            int64                         number of wordings (1 + earlier ones kept by
                                                 ``update``; analysis only, not read back)
confidence         float64                       in [0, 1]
salience           float64                       stored s0
salience_at        float64                       its t0 (+inf: a decision held until review)
salience_now       float32                       s(now) at export time (analysis only; not read back)
access_count       int64
last_access        float64, nullable
source             string, nullable
tags               list<string>
superseded_by      string, nullable
extra              binary (msgpack), nullable    any other record field (``versions``,
                                                 ``stated_valid_to``, ``reviewed_at``,
                                                 ``promoted_from``, ...), restored as stored
=================  ============================  =============================================

Times are UTC Unix seconds, so DuckDB, pandas or ``pyarrow.compute`` filter them directly
(``valid_from <= T AND (valid_to IS NULL OR T < valid_to)``). Records leave defaults out
(:func:`engramdb.temporal.record_fields`): a row's slot and time columns stand for the record
fields "null is absent, ``valid_from`` equal to ``created_at`` is absent"; the rare stored
value that rule would not give back exactly (a field kept with the value None after a
supersession was undone, an explicit ``valid_from`` equal to ``created_at``) is also kept in
``extra``, whose value wins on import. ``extra`` is packed with its keys sorted, so an export
of an imported store is byte-identical.

``edges.parquet`` (or ``edges.arrow``): namespace, source, target (ids), relation (string),
weight (float32), created_at (float64). The schema metadata carries ``engramdb.dim``,
``engramdb.embedder`` and ``engramdb.format_version`` (``FORMAT_VERSION``, "3"). Exports of
format "2" (no ``sentence_keys``: imported memories have none) and "1" (no slot and time columns
either; those fields in ``extra``) are still read.

Files are created owner-only (0600; a directory the export creates is 0700), as the store's
own files are: each is opened with ``O_CREAT | O_EXCL`` and that mode before pyarrow writes it.

``import_store(engine, path)`` reads both back into an open store (empty or not) in one
transaction: ids, namespaces, kinds, texts, embeddings, timestamps, tags, sources,
confidences, salience (s0, t0), access counts, states, supersession pointers, slots, valid and
record times, extra fields and edges with their relation, weight and time come back exactly;
only internal ids are new. An id the store already holds is an error, or is skipped or
replaced (``on_conflict``); a skipped (kept) memory that the export has superseded is retired
by the export's successor, so the export's supersessions hold in the store too.

Sentence keys (``StoreConfig.sentence_keys``) come back bit for bit, so recall scores an imported
memory as it scored the exported one; they are the export's embedder's, which the store's must
be (the import refuses another). A store with ``sentence_keys`` 0 takes none.
"""
from __future__ import annotations

import math
import os
import struct
from typing import Any

import numpy as np

from .errors import DimensionMismatchError, EngramError, InvalidInputError, NonFiniteError, StoreCorruptedError
from .slots import canonical_subject, retire_record, slot_members
from .state import EngineState
from .store.checks import check_record
from .store.lmdb_store import DIR_MODE, FILE_MODE, edge_key, pack, unpack
from .types import MemoryKind, MemoryState, Relation, RELATION_BY_CODE
from .validate import check_fraction, check_id, check_namespace, check_text, encodable, to_unix_seconds
from .write import write_unit

__all__ = ["export_store", "import_store", "write_ledger_parquet", "LEDGER_COLUMNS",
           "FORMATS", "MEMORY_COLUMNS", "EDGE_COLUMNS", "FIELD_COLUMNS",
           "FORMAT_VERSION", "ON_CONFLICT"]

FORMATS = {"parquet": "parquet", "arrow": "arrow"}
FORMAT_VERSION = "3"
#: How far from 1 the length of an imported embedding may be (stored vectors are unit float32).
UNIT_SLACK = 1e-3
#: The same for a sentence key (unit, then rounded to float16: about 1e-3 per component).
KEY_UNIT_SLACK = 1e-2
#: what :func:`import_store` does with an id the store already holds
ON_CONFLICT = ("error", "skip", "replace")
#: record fields with a column of their own, read back as they are
_KNOWN = ("id", "namespace", "kind", "text", "created_at", "recorded_at", "confidence", "salience",
          "salience_at", "access_count", "last_access", "source", "tags", "state", "superseded_by")
#: slot and time fields with a nullable column of their own (format 2; in ``extra`` in format 1)
FIELD_COLUMNS = ("subject", "attribute", "value", "valid_from", "valid_to", "retired_at")
_SLOT_FIELDS = ("subject", "attribute", "value")
_TIME_FIELDS = ("valid_from", "valid_to", "retired_at", "stated_valid_to")
MEMORY_COLUMNS = ("id", "namespace", "kind", "state", "text", "subject", "attribute", "value", "embedding",
                  "sentence_keys", "created_at", "recorded_at", "retired_at", "valid_from", "valid_to", "version",
                  "confidence", "salience", "salience_at", "salience_now", "access_count", "last_access",
                  "source", "tags", "superseded_by", "extra")
#: the memories columns of format 2 and of format 1
_COLUMNS_V2 = tuple(c for c in MEMORY_COLUMNS if c != "sentence_keys")
_COLUMNS_V1 = tuple(c for c in _COLUMNS_V2 if c not in FIELD_COLUMNS and c != "version")
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


_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _write_table(table, path: str, format: str) -> None:
    """Write ``table`` to the new file ``path``, created owner-only (``FILE_MODE``) before any
    byte is written; ``O_EXCL`` refuses an existing file or a symlink planted in its place."""
    pa = _pa()
    fd = os.open(path, _CREATE_FLAGS, FILE_MODE)
    with os.fdopen(fd, "wb") as f:
        if format == "parquet":
            pa.parquet.write_table(table, f)
        else:
            with pa.ipc.new_file(f, table.schema) as writer:
                writer.write_table(table)


def _read_table(path: str, format: str):
    pa = _pa()
    if format == "parquet":
        return pa.parquet.read_table(path)
    with pa.memory_map(path, "r") as src:
        return pa.ipc.open_file(src).read_all()


def _field_columns(rec: dict) -> dict[str, Any]:
    """The slot and time column values of a record: ``valid_from`` is the effective one (the
    event time unless stated, as in :func:`engramdb.temporal.column_values`), open ends null."""
    out: dict[str, Any] = {}
    for k in _SLOT_FIELDS:
        v = rec.get(k)
        out[k] = v if type(v) is str else None
    for k in ("valid_to", "retired_at"):
        v = rec.get(k)
        out[k] = float(v) if type(v) in (int, float) else None
    vf = rec.get("valid_from")
    out["valid_from"] = float(vf) if type(vf) in (int, float) else float(rec["created_at"])
    return out


def _implied(columns: dict[str, Any], created_at: float) -> dict[str, Any]:
    """The record fields slot and time columns stand for: null is absent, and ``valid_from``
    equal to ``created_at`` is absent (records leave defaults out, ``temporal.record_fields``)."""
    return {k: v for k, v in columns.items()
            if v is not None and not (k == "valid_from" and v == created_at)}


def _identical(a: Any, b: Any) -> bool:
    """Same type and value (and sign of zero): a stored field the columns give back exactly."""
    if type(a) is not type(b) or a != b:
        return False
    return type(a) is not float or math.copysign(1.0, a) == math.copysign(1.0, b)


def _extra_of(rec: dict, columns: dict[str, Any]) -> bytes | None:
    """msgpack of the record fields no column gives back exactly, keys sorted (or None)."""
    implied = _implied(columns, float(rec["created_at"]))
    extra = {k: v for k, v in rec.items() if k not in _KNOWN and k not in FIELD_COLUMNS}
    for k in FIELD_COLUMNS:
        # a field absent from the record is never implied: its column is null, or it is
        # valid_from, whose column then holds created_at
        if k in rec and not (k in implied and _identical(rec[k], implied[k])):
            extra[k] = rec[k]
    return pack({k: extra[k] for k in sorted(extra)}) if extra else None


def export_store(state: EngineState, path: str | os.PathLike, *, format: str = "parquet",
                 now: float, embedder_name: str | None = None) -> dict[str, str]:
    """Write the store's memories and edges to the directory ``path`` (see the module docstring).

    Memories a ``block`` / ``absolute`` censor rule hides (:mod:`engramdb.censor`), and the edges
    touching them, are left out: remove the rule to export them.

    The files are created owner-only (mode 0600) and a directory this call creates is 0700
    (like the store's own files: the export holds every text and embedding); an existing empty
    directory keeps its mode.

    Parameters
    ----------
    state : EngineState
    path : str or os.PathLike
        Directory to create (or an existing empty one).
    format : {"parquet", "arrow"}
        Parquet files, or Arrow IPC files (``.arrow``, memory-mappable).
    now : float
        Unix seconds at which ``salience_now`` is computed.
    embedder_name : str, optional
        Recorded in the schema metadata.

    Returns
    -------
    dict
        ``{"memories": file path, "edges": file path}`` (str).

    Raises
    ------
    InvalidInputError
        Unknown format, or ``path`` is a file or a non-empty directory.
    OSError
        The directory or a file cannot be created (the files written so far are removed).
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
    hidden = state.cols.blocked if state.censor.active else None   # censor rules: left out
    with store.read("exporting memories") as txn:
        for nid, rec in store.iter_records(txn):
            if hidden is not None and hidden[nid]:
                state.censor.kept_out([nid])
                continue
            if hidden is not None and rec["superseded_by"] is not None and \
                    state.censor.hidden_key(rec["namespace"], rec["superseded_by"]):
                rec = {**rec, "superseded_by": None}   # a pointer to a hidden memory reads None
            nids.append(nid)
            vecs.append(store.get_vector(txn, nid, state.dim))
            keys = store.get_keys(txn, nid, state.dim)
            cols["sentence_keys"].append(None if keys is None else keys.astype("<f2").tobytes())
            for k in _KNOWN:
                cols[k].append(rec[k])
            fields = _field_columns(rec)
            for k in FIELD_COLUMNS:
                cols[k].append(fields[k])
            cols["version"].append(len(rec.get("versions") or ()) + 1)
            cols["extra"].append(_extra_of(rec, fields))
        edge_rows = _read_edges(state, txn)
    nid_arr = np.array(nids, np.int64)
    cols["salience_now"] = (state.salience_now(nid_arr, now) if len(nid_arr) else np.zeros(0, np.float32)).tolist()
    dim = state.dim
    flat = np.concatenate(vecs).astype(np.float32) if vecs else np.zeros(0, np.float32)
    types = {"id": pa.string(), "namespace": pa.string(), "kind": pa.string(), "state": pa.string(),
             "text": pa.string(), "subject": pa.string(), "attribute": pa.string(), "value": pa.string(),
             "created_at": pa.float64(), "recorded_at": pa.float64(), "retired_at": pa.float64(),
             "valid_from": pa.float64(), "valid_to": pa.float64(), "version": pa.int64(),
             "confidence": pa.float64(), "salience": pa.float64(), "salience_at": pa.float64(),
             "salience_now": pa.float32(), "access_count": pa.int64(), "last_access": pa.float64(),
             "source": pa.string(), "tags": pa.list_(pa.string()), "superseded_by": pa.string(),
             "extra": pa.binary(), "sentence_keys": pa.binary()}
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
    made_dir = not os.path.isdir(path)
    if made_dir:
        os.makedirs(path, mode=DIR_MODE)    # the mode applies to the last component
    ext = FORMATS[format]
    out = {"memories": os.path.join(path, f"memories.{ext}"), "edges": os.path.join(path, f"edges.{ext}")}
    written = []
    try:
        for name, table in (("memories", memories), ("edges", edges)):
            written.append(out[name])
            _write_table(table, out[name], format)
    except BaseException:
        for f in written:
            try:
                os.unlink(f)
            except OSError:
                pass
        if made_dir:
            try:
                os.rmdir(path)
            except OSError:
                pass
        raise
    return out


def _read_edges(state: EngineState, txn) -> list[tuple]:
    """(namespace, source id, target id, relation, weight, created_at) of every stored edge."""
    key, val = struct.Struct(">IIB"), struct.Struct("<fd")
    ext = state.cols.ext_ids
    names = list(state.codes)
    rows = []
    hidden = state.cols.blocked if state.censor.active else None
    for k, v in txn.cursor(db=state.store.dbs["edges"]):
        s, t, r = key.unpack(k)
        if hidden is not None and (hidden[s] or hidden[t]):   # an end hidden by a censor rule
            continue
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


def _check_fields(rec: dict, where: str) -> None:
    """Slot and time fields of an imported record, whichever column or ``extra`` they came from:
    slot parts are strings without NUL (subject and attribute together), times finite numbers."""
    for k in _SLOT_FIELDS:
        v = rec.get(k)
        if v is not None and not (type(v) is str and v and "\x00" not in v and encodable(v)):
            raise InvalidInputError(f"{where}: {k} must be a non-empty string without NUL or null, got {v!r}")
    if (rec.get("subject") is None) != (rec.get("attribute") is None):
        raise InvalidInputError(f"{where}: subject and attribute must both be set or both be null, got "
                                f"{rec.get('subject')!r} and {rec.get('attribute')!r}")
    for k in _TIME_FIELDS:
        v = rec.get(k)
        if v is not None and (type(v) not in (int, float) or not math.isfinite(v)):
            raise InvalidInputError(f"{where}: {k} must be a finite number of Unix seconds or null, got {v!r}")


def _format_version(table, path: str) -> int:
    """The export format of a memories table: its ``engramdb.format_version`` metadata, or, when a
    tool dropped the metadata, 3 if it has a ``sentence_keys`` column, else 2 if it has every slot
    and time column and 1 otherwise."""
    meta = table.schema.metadata or {}
    raw = meta.get(b"engramdb.format_version")
    if raw is None:
        if "sentence_keys" in table.column_names:
            return 3
        return 2 if all(c in table.column_names for c in FIELD_COLUMNS) else 1
    if raw not in (b"1", b"2", b"3"):
        raise InvalidInputError(f"export at {path!r} has format_version {raw.decode(errors='replace')!r}; "
                                f"this engramdb reads 1 to 3 (upgrade engramdb to read it)")
    return int(raw)


def import_store(state: EngineState, path: str | os.PathLike, *, now: float,
                 on_conflict: str = "error", embedder_name: str | None = None) -> dict[str, int]:
    """Read an export of :func:`export_store` into the store in one write unit (all or nothing).

    Records are written through :meth:`WriteUnit.insert`, the path of every new memory, so the
    slot table, deduplication keys, keyword postings and counters are rebuilt as for ``add``.
    Exports of format 1 (slot and time fields in ``extra``) and 2 are read.

    Parameters
    ----------
    state : EngineState
        Open for writing; its dimension must match the export's.
    path : str or os.PathLike
        Directory written by :func:`export_store` (format detected from the file names).
    now : float
        Unix seconds of the import (the write's record time; imported records keep theirs).
    on_conflict : {"error", "skip", "replace"}
        What to do when a (namespace, id) of the export is already stored. ``"error"`` (the
        default): raise, write nothing. ``"skip"``: keep the stored memory (text, vector,
        fields, and its supersession pointer when it has one); the export's edges naming that
        id attach to it. When the export has it superseded and the store holds it current, it
        is retired by the export's successor as ``Engram.supersede`` retires a memory (state
        superseded, ``superseded_by`` the successor, ``valid_to`` the successor's
        ``valid_from``, ``retired_at`` the successor's ``recorded_at``, a ``supersedes``
        edge), so a single-valued slot keeps one current value and ``history``, ``recall``
        and ``as_of`` agree; when the store has it superseded by another memory, the import
        is refused (a memory has one successor).
        ``"replace"``: erase the stored memory through :meth:`WriteUnit.erase`, the one erase
        path (record, embedding, every edge touching it; what it had superseded in the store is
        handed on as by ``forget(hard=True)``), then insert the export's. In every mode an edge
        between two memories already stored that the store already holds (same source, target
        and relation) keeps its stored weight and time, and a single-valued slot keeps one
        current value: where the export's current value meets another of the store, the later
        ``valid_from`` (then the higher confidence, then the later recorded) supersedes the
        other, as a new memory filling the slot would.

    Returns
    -------
    dict
        ``{"memories": inserted, "pieces": p, "edges": written, "skipped": n, "replaced": m}``
        (int): memories written from the export (replacements included), the later pieces of
        the long ones among them (``<id>#<n>`` / ``<id>#p<n>``, counted apart as in
        ``Engram.stats``), edges written, stored memories kept instead of the export's,
        stored memories replaced. A memory stored as pieces is replaced or kept whole: its
        stored pieces go with it, and a kept memory's pieces are not taken from the export.

    Raises
    ------
    InvalidInputError
        The export names another embedder than ``embedder_name`` (the store's): vectors of two
        embedders are not comparable, so a recall would rank them by noise.
        Unknown ``on_conflict``; no export at ``path``, an unknown format version, a missing
        column, a bad field value, an id given twice, an id already stored (``on_conflict=
        "error"``), a supersession pointer or an edge whose end is in neither the export nor
        the store; with ``on_conflict="skip"``, a kept memory that the export and the store
        have superseded by different memories, or whose retirement would close a supersession
        cycle; an embedding or a sentence key not of unit length, or sentence keys that are not
        whole rows.
    DimensionMismatchError
        The embeddings' dimension differs from the store's.
    NonFiniteError
        A NaN or infinite number (only ``salience_at`` may be +inf), a zero embedding or a zero,
        NaN or infinite sentence key.
    CensoredError
        An ``absolute`` censor rule matches a memory of the export; nothing is written.
    """
    if on_conflict not in ON_CONFLICT:
        raise InvalidInputError(f"on_conflict: expected one of {list(ON_CONFLICT)}, got {on_conflict!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a directory path, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise InvalidInputError(f"{path!r} is not a directory written by engramdb export")
    fmt = _detect(path)
    try:
        return _import_tables(state, path, fmt, now, on_conflict, embedder_name)
    except (EngramError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:   # pyarrow / numpy on a damaged or mistyped export
        raise InvalidInputError(f"export at {path!r} cannot be read: {type(exc).__name__}: {exc}") from exc


def _columns(version: int) -> tuple[str, ...]:
    """The memories columns of export format ``version``."""
    return MEMORY_COLUMNS if version >= 3 else _COLUMNS_V2 if version == 2 else _COLUMNS_V1


def _keys_of(state: EngineState, mem, version: int) -> list[np.ndarray | None]:
    """The sentence keys of each memories row (float16, shape (s, dim), or None): None for all
    before format 3 and when the store keeps none (``StoreConfig.sentence_keys`` 0).

    Raises
    ------
    InvalidInputError
        A value is not a whole number of ``dim`` float16s, or a key is not of unit length
        (within :data:`KEY_UNIT_SLACK`).
    NonFiniteError
        A key holds NaN or infinite values or is all zeros.
    """
    if version < 3 or not state.config.store.sentence_keys:
        return [None] * mem.num_rows
    dim = state.dim
    out: list[np.ndarray | None] = []
    for i, raw in enumerate(mem.column("sentence_keys").to_pylist()):
        if raw is None:
            out.append(None)
            continue
        if not len(raw) or len(raw) % (2 * dim):
            raise InvalidInputError(f"memories row {i}: sentence_keys has {len(raw)} bytes, not a whole "
                                    f"number of {dim} float16s")
        k = np.frombuffer(raw, "<f2").reshape(-1, dim)
        if not np.isfinite(k).all() or not np.abs(k).max(axis=1).all():
            raise NonFiniteError(f"memories row {i}: a sentence key holds NaN or infinite values or is all zeros")
        norms = np.linalg.norm(k.astype(np.float64), axis=1)
        if np.any(np.abs(norms - 1.0) > KEY_UNIT_SLACK):
            raise InvalidInputError(f"memories row {i}: a sentence key has length {norms.min():.4g}-{norms.max():.4g}, "
                                    "not 1 (keys are unit vectors, stored as float16)")
        out.append(k)
    return out


def _records_of(state: EngineState, mem, version: int) -> tuple[list[dict], np.ndarray]:
    """Validated records and their embeddings (float32, shape (n, dim)) from a memories table."""
    n = mem.num_rows
    emb = mem.column("embedding").combine_chunks()
    dim = emb.type.list_size if hasattr(emb.type, "list_size") else None
    if n and dim != state.dim:
        raise DimensionMismatchError(expected=state.dim, got=dim, field="embedding (export)")
    vecs = np.asarray(emb.flatten().to_numpy(zero_copy_only=False), np.float32).reshape(n, state.dim) if n else \
        np.zeros((0, state.dim), np.float32)
    if not np.all(np.isfinite(vecs)):
        raise NonFiniteError("export: an embedding holds NaN or infinite values")
    norms = np.linalg.norm(vecs.astype(np.float64), axis=1)
    if n and np.any(norms == 0):
        raise NonFiniteError("export: an embedding is all zeros")
    if n and np.any(np.abs(norms - 1.0) > UNIT_SLACK):   # a store's vectors are unit: this one was changed
        i = int(np.argmax(np.abs(norms - 1.0)))
        raise InvalidInputError(f"memories row {i}: the embedding has length {norms[i]:.6g}, not 1 (the store "
                                "keeps unit vectors; recall would read its dot products as cosines)")
    wanted = [c for c in _columns(version) if c not in ("embedding", "sentence_keys", "salience_now", "version")]
    rows = mem.select(wanted).to_pylist()
    records = []
    seen = set()
    states = {s.value for s in MemoryState}
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
        if r["state"] not in states:
            raise InvalidInputError(f"{where}: state {r['state']!r} is not one of {sorted(states)}")
        rec = {"id": ext_id, "namespace": ns, "kind": MemoryKind.parse(r["kind"]).value, "text": r["text"],
               "created_at": to_unix_seconds(_finite(r["created_at"], f"{where}: created_at"), field=f"{where}: created_at"),
               "recorded_at": to_unix_seconds(_finite(r["recorded_at"], f"{where}: recorded_at"), field=f"{where}: recorded_at"),
               "confidence": check_fraction(r["confidence"], f"{where}: confidence"),
               "salience": check_fraction(r["salience"], f"{where}: salience"),
               "salience_at": _finite(r["salience_at"], f"{where}: salience_at", allow_inf=True),
               "access_count": int(r["access_count"]),
               "last_access": None if r["last_access"] is None else _finite(r["last_access"], f"{where}: last_access"),
               "source": r["source"], "tags": list(r["tags"] or []),
               "state": r["state"], "superseded_by": r["superseded_by"]}
        if rec["access_count"] < 0:
            raise InvalidInputError(f"{where}: access_count {rec['access_count']} < 0")
        if version >= 2:
            for k in FIELD_COLUMNS:
                v = r[k]
                if v is not None and k not in _SLOT_FIELDS:
                    r[k] = _finite(v, f"{where}: {k}")
            rec.update(_implied({k: r[k] for k in FIELD_COLUMNS}, rec["created_at"]))
        if r["extra"] is not None:
            try:
                extra = unpack(r["extra"])
            except StoreCorruptedError as exc:
                raise InvalidInputError(f"{where}: extra is not msgpack ({exc})") from exc
            if not isinstance(extra, dict):
                raise InvalidInputError(f"{where}: extra must decode to a mapping")
            # a slot or time field in extra is the exact stored value the columns cannot give
            rec.update({k: v for k, v in extra.items() if k not in rec or k in FIELD_COLUMNS})
        _check_fields(rec, where)
        if rec.get("subject") is not None:   # stored as the write path stores it ("Me" is "user")
            rec["subject"] = canonical_subject(rec["subject"])
        try:   # exactly the check the store applies when it reads a record back
            check_record(i, rec)
        except StoreCorruptedError as exc:
            raise InvalidInputError(f"{where}: a field is missing or of the wrong type") from exc
        records.append(rec)
    return records, vecs


def _merge_session_marks(unit, nid: int, exported: dict) -> None:
    """A session node kept by ``on_conflict="skip"`` takes the larger ``last_position`` and
    ``last_position_at`` and the union of the ``erased_ids``, ``erased_edits`` and ``erased_times`` of its exported copy
    (:func:`engramdb.conversation.stored_session`): a message the exporting store erased stays
    erased when the chat is sent again here."""
    kept = unit.record(nid)
    if kept is None or "session" not in (kept.get("tags") or ()):
        return
    merged = dict(kept)
    for key in ("last_position", "last_position_at"):
        theirs = exported.get(key)
        if isinstance(theirs, (int, float)) and not isinstance(theirs, bool) and theirs > (kept.get(key) or 0):
            merged[key] = theirs
    for key in ("erased_ids", "erased_edits"):
        erased = [i for i in exported.get(key) or () if isinstance(i, str)]
        if erased:
            merged[key] = list(dict.fromkeys([*(kept.get(key) or ()), *erased]))
    times = [t for t in exported.get("erased_times") or () if isinstance(t, (int, float)) and not isinstance(t, bool)]
    if times:
        merged["erased_times"] = list(dict.fromkeys([*(kept.get("erased_times") or ()), *times]))
    if merged != kept:
        unit.put_record(nid, merged)


def _kept_supersessions(unit, records: list[dict], stored: dict[int, int],
                        new_nid: dict[tuple[str, str], int]) -> list[tuple[int, int, dict]]:
    """The kept memories (``on_conflict="skip"``) that the export has superseded and the store
    holds current: each is to be retired by the export's successor, as ``supersede`` retires a
    memory, so that a slot keeps one current value and ``history`` / ``as_of`` agree with it.

    Parameters
    ----------
    unit : WriteUnit
        The import's write unit.
    records : list of dict
        The export's validated records.
    stored : dict int -> int
        Index in ``records`` -> nid of the stored memory with that (namespace, id).
    new_nid : dict (namespace, id) -> int
        The nids of the records the import writes.

    Returns
    -------
    list of (int, int, dict)
        (kept memory's nid, successor's nid, successor's record: the export's when imported,
        the stored one when kept), in export order.

    Raises
    ------
    InvalidInputError
        The store has the kept memory superseded by another memory than the export's (a memory
        has one successor), its successor is in neither the export nor the store, or retiring
        it would close a supersession cycle.
    """
    theirs = {(r["namespace"], r["id"]): r for r in records}
    planned: dict[tuple[str, str], str] = {}   # (namespace, kept id) -> its successor's id

    def successor_of(ns: str, ext_id: str) -> str | None:
        """The successor of ``ext_id`` once the import is written."""
        key = (ns, ext_id)
        if key in planned:
            return planned[key]
        if key in new_nid:
            return theirs[key]["superseded_by"]
        nid = unit.lookup(ns, ext_id)
        rec = None if nid is None else unit.record(nid)
        return None if rec is None else rec["superseded_by"]

    out = []
    for i, nid in stored.items():
        rec = records[i]
        succ, ns, ext_id = rec["superseded_by"], rec["namespace"], rec["id"]
        if succ is None or rec.get("chunk_of") is not None:   # current in the export, or a piece
            continue
        ours = unit.record(nid)
        if ours is None or ours.get("chunk_of") is not None or ours["superseded_by"] == succ:
            continue
        if ours["superseded_by"] is not None:
            raise InvalidInputError(
                f"memory {ext_id!r} (namespace {ns!r}) is superseded by {succ!r} in the export and by "
                f"{ours['superseded_by']!r} in the store: a memory has one successor, so on_conflict='skip' "
                f"cannot keep both; erase one of the two successors first (forget(hard=True) of "
                f"{ours['superseded_by']!r} makes the store's {ext_id!r} current, and the import then "
                f"applies the export's supersession)")
        if (ns, succ) in new_nid:
            snid, srec = new_nid[(ns, succ)], theirs[(ns, succ)]
        else:
            snid = unit.lookup(ns, succ)
            srec = None if snid is None else unit.record(snid)
            if srec is None:
                raise InvalidInputError(f"memory {ext_id!r} is superseded by {succ!r}, which is in neither "
                                        "the export nor the store")
        seen, walk = {ext_id}, succ
        while walk is not None and walk not in seen:   # the successor's chain must not reach it
            seen.add(walk)
            walk = successor_of(ns, walk)
        if walk == ext_id:
            raise InvalidInputError(
                f"memory {ext_id!r} (namespace {ns!r}) is superseded by {succ!r} in the export, but the "
                f"store's {succ!r} is superseded (directly or through others) by {ext_id!r}: retiring it "
                "would close a cycle, leaving no current version")
        planned[(ns, ext_id)] = succ
        out.append((nid, snid, srec))
    return out


def _import_tables(state: EngineState, path: str, fmt: str, now: float, on_conflict: str,
                   embedder_name: str | None) -> dict[str, int]:
    """The body of :func:`import_store`, once the format is known."""
    mem = _read_table(os.path.join(path, f"memories.{FORMATS[fmt]}"), fmt)
    edg = _read_table(os.path.join(path, f"edges.{FORMATS[fmt]}"), fmt)
    version = _format_version(mem, path)
    required = _columns(version)
    missing = [c for c in required if c not in mem.column_names and c not in ("salience_now", "version")] + \
              [c for c in EDGE_COLUMNS if c not in edg.column_names]
    if missing:
        raise InvalidInputError(f"export at {path!r} (format {version}) lacks column(s) {missing}")
    records, vecs = _records_of(state, mem, version)
    keys = _keys_of(state, mem, version)
    theirs = (mem.schema.metadata or {}).get(b"engramdb.embedder", b"").decode(errors="replace")
    if embedder_name and theirs and theirs != embedder_name:
        from .embed import family_of

        family = family_of(theirs)
        how = (f"embedder={family!r} (CLI: engramdb import --embedder {family}, into a new store)" if family
               else f"the embedder named {theirs!r}")
        raise InvalidInputError(
            f"export at {path!r} was embedded with {theirs!r} and this store embeds with {embedder_name!r}: "
            f"vectors of two embedders cannot be compared; import it into a store opened with {how}, or "
            "add its texts again (add_batch) to embed them with this store's")
    if state.censor.active:   # an absolute censor rule refuses the import whole (CensoredError)
        for rec in records:
            state.censor.check_write(rec)
    edge_rows = edg.select(list(EDGE_COLUMNS)).to_pylist()
    edges_db = state.store.dbs["edges"]
    n_edges = 0
    with write_unit(state, "importing an export", now, verb="import") as unit:
        stored = {}
        for i, rec in enumerate(records):
            nid = unit.lookup(rec["namespace"], rec["id"])
            if nid is not None:
                stored[i] = nid
        if stored and on_conflict == "error":
            rec = records[next(iter(stored))]
            raise InvalidInputError(f"id {rec['id']!r} already exists in namespace {rec['namespace']!r} "
                                    f"({len(stored)} of the export's ids are stored); pass on_conflict='skip' "
                                    "to keep the stored memories or 'replace' to replace them (CLI: "
                                    "--on-conflict skip|replace)")
        if on_conflict == "replace":
            for nid in stored.values():
                if unit.record(nid) is not None:   # a piece is erased with its memory, first or not
                    unit.erase(nid)
        kept_ids = set()
        if on_conflict == "skip":   # a kept memory keeps its own pieces: the export's are left out
            kept_ids = {(records[i]["namespace"], records[i]["id"]) for i in stored}
        todo = [i for i in range(len(records)) if not (on_conflict == "skip" and i in stored)
                and (records[i]["namespace"], records[i].get("chunk_of")) not in kept_ids]
        left_out = {(records[i]["namespace"], records[i]["id"]) for i in set(range(len(records))) - set(todo)
                    if i not in stored}   # pieces of kept memories: their edges are the kept ones' business
        base = unit.allocate(len(todo))
        new_nid = {(records[i]["namespace"], records[i]["id"]): base + j for j, i in enumerate(todo)}
        for i in todo:
            rec = records[i]
            sup = rec["superseded_by"]
            if sup is not None and (rec["namespace"], sup) not in new_nid and \
                    unit.lookup(rec["namespace"], sup) is None:
                raise InvalidInputError(f"memory {rec['id']!r} is superseded by {sup!r}, which is in neither "
                                        "the export nor the store")
        # a kept memory that the export has superseded is retired by its successor (skip)
        retiring = _kept_supersessions(unit, records, stored, new_nid) if on_conflict == "skip" else []
        if on_conflict == "skip":   # a kept session node learns what the export's knew of erased messages
            for i, nid in stored.items():
                _merge_session_marks(unit, nid, records[i])
        edges = []
        for i, e in enumerate(edge_rows):
            if left_out and ((e["namespace"], e["source"]) in left_out or (e["namespace"], e["target"]) in left_out):
                continue
            if e["source"] == e["target"]:   # as link() refuses it
                raise InvalidInputError(f"edges row {i}: memory {e['source']!r} linked to itself")
            ends, kept = [], 0
            for end in ("source", "target"):
                key = (e["namespace"], e[end])
                nid = new_nid.get(key)
                if nid is None:
                    nid = unit.lookup(*key)
                    kept += 1
                if nid is None:
                    raise InvalidInputError(f"edges row {i}: no memory {e[end]!r} in namespace {e['namespace']!r}")
                ends.append(nid)
            w = check_fraction(e["weight"], f"edges row {i}: weight", open_zero=True)
            rel = Relation.parse(e["relation"]).code
            created = _finite(e["created_at"], f"edges row {i}: created_at")
            if kept == 2 and unit.txn.get(edge_key(ends[0], ends[1], rel), db=edges_db) is not None:
                continue   # both ends kept from the store, which holds this edge already
            edges.append((ends[0], ends[1], rel, w, created))
        by_ns: dict[str, list[int]] = {}
        for j, i in enumerate(todo):
            by_ns.setdefault(records[i]["namespace"], []).append(j)
        for ns, js in by_ns.items():
            unit.index_add(ns, vecs[[todo[j] for j in js]], np.array([base + j for j in js], np.int64))
        # first pieces before later ones, so each later piece finds its memory's nid (Columns.head)
        for j, i in sorted(enumerate(todo), key=lambda ji: records[ji[1]].get("chunk_of") is not None):
            rec = records[i]
            sha = rec.get("text_sha256")
            digest = bytes.fromhex(sha) if isinstance(sha, str) else None
            unit.insert(base + j, rec, vecs[i], digest=digest, replace_digest=False)
            if keys[i] is not None:
                unit.put_keys(base + j, keys[i])
        sup_code = Relation.SUPERSEDES.code
        for nid, snid, srec in retiring:
            kept = unit.record(nid)
            valid_from = srec.get("valid_from", srec["created_at"])
            unit.put_record(nid, retire_record(kept, srec["id"], valid_from, srec["recorded_at"]))
            if not any(e[:3] == (snid, nid, sup_code) for e in edges) and \
                    unit.txn.get(edge_key(snid, nid, sup_code), db=edges_db) is None:
                edges.append((snid, nid, sup_code, 1.0, float(srec["recorded_at"])))   # not in the export
        imported = [base + j for j, i in enumerate(todo) if records[i].get("subject") is not None]
        for winner, loser, recorded in _settle_slots(state, unit, imported):
            if not any(e[:3] == (winner, loser, sup_code) for e in edges):
                edges.append((winner, loser, sup_code, 1.0, recorded))
        for s, t, r, w, created in edges:
            unit.add_edges([(s, t, r, w)], created_at=created)
        n_edges = len(edges)
    pieces = sum(records[i].get("chunk_of") is not None for i in todo)
    conflicts = sum(records[i].get("chunk_of") is None for i in stored)   # memories, not their pieces
    return {"memories": len(todo) - pieces, "pieces": pieces, "edges": n_edges,
            "skipped": conflicts if on_conflict == "skip" else 0,
            "replaced": conflicts if on_conflict == "replace" else 0}


def _settle_slots(state: EngineState, unit, imported: list[int]) -> list[tuple[int, int, float]]:
    """One current value per single-valued slot that the imported memories ``imported`` (nids,
    holding a slot) join: where the export's current value meets another current one of the
    store, the slot's rule decides as for a new memory (the later ``valid_from`` wins, then the
    higher confidence, then the later recorded) and the others are retired by the winner
    (:func:`retire_record`, at the winner's record time). Returns (winner nid, retired nid,
    record time) for the ``supersedes`` edges."""
    out = []
    done = set()
    for nid in imported:
        rec = unit.record(nid)
        if rec is None:
            continue
        key = (rec["namespace"], rec["subject"], rec["attribute"])
        single = rec.get("single_valued")
        if key in done or not (state.config.slots.is_single(rec["attribute"]) if single is None else single):
            continue
        done.add(key)
        current = [(m, r) for m in slot_members(unit.store, unit.txn, *key) if (r := unit.record(m)) is not None
                   and r["state"] != MemoryState.SUPERSEDED.value and r.get("superseded_by") is None]
        if len(current) < 2:
            continue
        win, wrec = max(current, key=lambda mr: (mr[1].get("valid_from", mr[1]["created_at"]), mr[1]["confidence"],
                                                  mr[1]["recorded_at"], mr[0]))
        for m, r in current:
            if m != win:
                unit.put_record(m, retire_record(r, wrec["id"], wrec.get("valid_from", wrec["created_at"]),
                                                 wrec["recorded_at"]))
                out.append((win, m, float(wrec["recorded_at"])))
    return out


#: columns of the audit ledger's Parquet export (``Engram.export_ledger``), in order
LEDGER_COLUMNS = ("seq", "time", "actor", "verb", "namespaces", "ids", "n_ids", "digest", "prev_hash", "hash",
                  "note", "details", "redacted")


def write_ledger_parquet(entries: list, path: str | os.PathLike) -> str:
    """Write audit ledger entries (``LedgerEntry``) to the new Parquet file ``path``, one row
    each (columns :data:`LEDGER_COLUMNS`; ``details`` as JSON text), created owner-only.

    Raises
    ------
    InvalidInputError
        ``path`` exists.
    OSError
        The file cannot be created.
    """
    import json

    pa = _pa()
    path = os.fspath(path)
    if os.path.lexists(path):
        raise InvalidInputError(f"{path!r} exists; give a new file name for the ledger export")
    strings = pa.list_(pa.string())
    table = pa.table({
        "seq": pa.array([e.seq for e in entries], pa.int64()),
        "time": pa.array([e.time for e in entries], pa.float64()),
        "actor": pa.array([e.actor for e in entries], pa.string()),
        "verb": pa.array([e.verb for e in entries], pa.string()),
        "namespaces": pa.array([list(e.namespaces) for e in entries], strings),
        "ids": pa.array([list(e.ids) for e in entries], strings),
        "n_ids": pa.array([e.n_ids for e in entries], pa.int64()),
        "digest": pa.array([e.digest for e in entries], pa.string()),
        "prev_hash": pa.array([e.prev_hash for e in entries], pa.string()),
        "hash": pa.array([e.hash for e in entries], pa.string()),
        "note": pa.array([e.note for e in entries], pa.string()),
        "details": pa.array([json.dumps(list(e.details), ensure_ascii=False, default=str) for e in entries],
                            pa.string()),
        "redacted": pa.array([list(e.redacted) for e in entries], strings),
    })
    _write_table(table, path, "parquet")
    return path
