"""The engine: public verbs over the LMDB store, the per-namespace vector indexes and the graph.

Write path: validate everything, then one LMDB write transaction, then update the in-memory
caches (columns, graph, hnswlib). An error before the commit leaves the store and the caches
unchanged; a crash after it loses nothing, because the caches are rebuilt from LMDB.

Recall path (docs/design.md "Recall"): vector seeds from hnswlib -> density gate -> spreading
activation kernel -> vectorised ranking over column arrays -> record fetch for the hits only.
"""
from __future__ import annotations

import hashlib
import math
import os
import threading
import time
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .batch_plan import plan_batch
from .concurrency import guarded, retries_map_growth
from .config import AdmissionConfig, EngramConfig, RecallConfig
from .dynamics import salience as _dyn_salience
from .errors import (
    ConfigError, DimensionMismatchError, EmptyTextError, EngramError, IndexStaleError, InvalidInputError,
    MemoryNotFoundError, NamespaceError, NonFiniteError, OversizeError, StoreCorruptedError,
    StoreLockedError, StoreNotFoundError,
)
from .graph.csr import SNAPSHOT_DTYPES, CSRGraph, MemoryGraph
from .index.hnsw import HnswIndex
from .index.keyword import PACKED_DTYPES, KeywordIndex, pack_indexes, tokenize, unpack_indexes
from .kernels import registry
from .store.checks import columns_snapshot_ok
from .store.lmdb_store import SCHEMA_VERSION, LmdbStore, text_digest
from .timeref import resolve_time_refs
from . import query as _query, slots as _slots, temporal as _temporal
from .types import (
    RELATION_BY_CODE, STATE_BY_CODE, Edge, Gap, Hit, Memory, MemoryKind, MemoryState,
    PathStep, RecallResult, Relation, _STATE_CODES,
)

__all__ = ["Engram", "open", "to_unix_seconds"]

DEFAULT_NAMESPACE = "default"
_MAX_NAMESPACE_CHARS = 256
_MAX_ID_CHARS = 512
_MAX_TAGS = 256
_MIN_NORM = 1e-12   # shorter vectors have no reliable direction in float32
_MAX_ABS_SECONDS = 253_402_300_799.0  # 9999-12-31T23:59:59Z; also bounds year 1 from below


def to_unix_seconds(value: Any, *, field: str = "created_at") -> float:
    """Unix seconds (float) from a number, a numeric string, a ``datetime`` or an ISO-8601 string.

    Naive datetimes and ISO strings without an offset are taken as UTC.

    Raises
    ------
    InvalidInputError
        The value is none of these, or an unparseable string.
    NonFiniteError
        A number that is NaN or infinite.
    """
    if isinstance(value, bool):
        raise InvalidInputError(f"{field}: expected Unix seconds or ISO-8601, got a bool")
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            raise NonFiniteError(f"{field}: expected a finite number of Unix seconds, got {value!r}")
        if not -_MAX_ABS_SECONDS <= v <= _MAX_ABS_SECONDS:
            raise InvalidInputError(f"{field}: {value!r} Unix seconds is outside the years 1 to 9999")
        return v
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None  # not a number: try ISO-8601
        if number is not None:
            return to_unix_seconds(number, field=field)
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidInputError(
                f"{field}: {value!r} is not ISO-8601 (e.g. 2023-05-08T13:56:00Z) nor Unix seconds"
            ) from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.timestamp()
    raise InvalidInputError(f"{field}: expected Unix seconds or ISO-8601, got {type(value).__name__}")


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_namespace(ns: Any) -> str:
    if (not isinstance(ns, str) or not ns or "\x00" in ns or len(ns) > _MAX_NAMESPACE_CHARS
            or not _encodable(ns)):
        raise NamespaceError(
            f"namespace must be a non-empty string of at most {_MAX_NAMESPACE_CHARS} characters "
            f"without NUL, got {ns!r}"
        )
    return ns


def _as_list(value: Any, field: str) -> list:
    """``value`` (any iterable but a string or mapping) as a list; InvalidInputError otherwise."""
    if isinstance(value, (str, bytes, Mapping)):
        raise InvalidInputError(f"{field}: expected a list, got {type(value).__name__}")
    try:
        return list(value)
    except TypeError:
        raise InvalidInputError(f"{field}: expected a list, got {type(value).__name__}") from None


def _kind_table(kinds: Any, field: str) -> np.ndarray | None:
    """Lookup table (bool, by ``MemoryKind.code``) of the kinds a filter keeps; None keeps all.

    Raises
    ------
    InvalidInputError, UnknownKindError
        Not a kind or a list of kinds, or an empty list (it would match nothing).
    """
    if kinds is None:
        return None
    kinds = [kinds] if isinstance(kinds, (str, MemoryKind)) else _as_list(kinds, field)
    if not kinds:
        raise InvalidInputError(f"{field}=[] matches nothing; pass None for every kind")
    table = np.zeros(len(MemoryKind), bool)
    table[[MemoryKind.parse(x).code for x in kinds]] = True
    return table


def _tag_set(tags: Any) -> set[str] | None:
    """The tags a filter requires (every one of them); None or an empty list requires none.

    Raises
    ------
    InvalidInputError
        Not a string or a list of non-empty strings.
    """
    if tags is None:
        return None
    tags = [tags] if isinstance(tags, str) else _as_list(tags, "tags")
    if not all(isinstance(t, str) and t for t in tags):
        raise InvalidInputError(f"tags: expected non-empty strings, got {tags!r}")
    return set(tags) or None


def _check_id(value: Any, field: str = "id") -> str:
    if (not isinstance(value, str) or not value or "\x00" in value or len(value) > _MAX_ID_CHARS
            or not _encodable(value)):
        raise InvalidInputError(
            f"{field} must be a non-empty UTF-8 string of at most {_MAX_ID_CHARS} characters "
            f"without NUL, got {value!r}"
        )
    return value


def _check_fraction(value: Any, field: str, *, open_zero: bool = False) -> float:
    """A real number in [0, 1] (or (0, 1] with ``open_zero``); bools and strings are refused."""
    expected = f"{field}: expected a number in {'(' if open_zero else '['}0, 1]"
    if isinstance(value, (bool, str, bytes)):
        raise InvalidInputError(f"{expected}, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{expected}, got {value!r}") from None
    if not math.isfinite(v):
        raise NonFiniteError(f"{expected}, got {value!r}")
    if not (0.0 < v if open_zero else 0.0 <= v) or v > 1.0:
        raise InvalidInputError(f"{expected}, got {value!r}")
    return v


def _edge_fields(spec: Any, names: tuple[str, ...], required: int, what: str) -> list[Any]:
    """Fields of an edge given as a mapping or a tuple; missing relation/weight get defaults."""
    defaults = {"relation": Relation.RELATED_TO, "weight": 1.0}
    if isinstance(spec, Mapping):
        unknown = set(spec) - set(names)
        if unknown:
            raise InvalidInputError(f"{what}: unknown key(s) {sorted(unknown)}; the keys are {list(names)}")
        return [spec.get(n, defaults.get(n)) for n in names]
    if isinstance(spec, (tuple, list)) and required <= len(spec) <= len(names):
        return list(spec) + [defaults[n] for n in names[len(spec):]]
    raise InvalidInputError(f"{what} is {names} (the first {required} required), got {spec!r}")


def _by_namespace(prepared: list["_Prepared"]) -> dict[str, list["_Prepared"]]:
    groups: dict[str, list[_Prepared]] = {}
    for p in prepared:
        groups.setdefault(p.namespace, []).append(p)
    return groups


@dataclass(slots=True)
class _Prepared:
    """A validated memory waiting for its write transaction."""

    ext_id: str
    namespace: str
    kind: MemoryKind
    text: str
    created_at: float
    confidence: float
    salience: float
    source: str | None
    tags: tuple[str, ...]
    vector: np.ndarray | None
    links: list[tuple[str, Relation, float]]
    nid: int = -1
    valid_from: float = 0.0                 # bi-temporal fields (temporal.py) and slot (slots.py)
    valid_to: float | None = None
    stated_valid_to: float | None = None
    retired_at: float | None = None
    state: MemoryState = MemoryState.ACTIVE
    superseded_by: str | None = None
    subject: str | None = None
    attribute: str | None = None
    slot_value: str | None = None
    single: bool = True
    slot_mode: str = "auto"                 # "auto": resolve the slot; "append": supersede() decided
    auto_id: bool = False              # the caller gave no id (deduplication by text applies)
    extra: dict | None = None          # extra record fields (chunked long texts)


class _Columns:
    """Per-memory state as column arrays indexed by nid: what ranking and filters read."""

    FIELDS = {"ns": np.int32, "kind": np.uint8, "state": np.uint8, "alive": np.bool_,
              "created_at": np.float64, "confidence": np.float32, "s0": np.float32,
              "t0": np.float64,
              "recorded_at": np.float64, "retired_at": np.float64, "valid_from": np.float64,
              "valid_to": np.float64}   # record time and valid time (temporal.py; +inf = open)

    def __init__(self) -> None:
        self.n = 0
        for name, dtype in self.FIELDS.items():
            setattr(self, name, np.zeros(1024, dtype))
        self.ext_ids: list[str | None] = []

    def ensure(self, n: int) -> None:
        cap = len(self.ns)
        if n > cap:
            new = max(n, 2 * cap)
            for name, dtype in self.FIELDS.items():
                arr = np.zeros(new, dtype)
                arr[:cap] = getattr(self, name)
                setattr(self, name, arr)
        if n > self.n:
            self.ext_ids.extend([None] * (n - self.n))
            self.n = n

    def set_record(self, nid: int, rec: dict, ns_code: int) -> None:
        self.ensure(nid + 1)
        self.ns[nid] = ns_code
        self.kind[nid] = MemoryKind(rec["kind"]).code
        self.state[nid] = _STATE_CODES[MemoryState(rec["state"])]
        self.alive[nid] = True
        self.created_at[nid] = rec["created_at"]
        self.confidence[nid] = rec["confidence"]
        self.s0[nid] = rec["salience"]
        self.t0[nid] = rec["salience_at"]
        self.ext_ids[nid] = rec["id"]
        (self.recorded_at[nid], self.retired_at[nid], self.valid_from[nid],
         self.valid_to[nid]) = _temporal.column_values(rec)

    def snapshot(self, ns_names: list[str]) -> dict[str, np.ndarray]:
        """The columns as arrays for LMDB: one array per field, ids NUL-joined, namespace names."""
        out = {name: getattr(self, name)[: self.n] for name in self.FIELDS}
        out["ext_ids"] = np.frombuffer("\x00".join(x or "" for x in self.ext_ids).encode(), np.uint8)
        out["ns_names"] = np.frombuffer("\x00".join(ns_names).encode(), np.uint8)
        return out

    @classmethod
    def snapshot_dtypes(cls) -> dict[str, Any]:
        return {**cls.FIELDS, "ext_ids": np.uint8, "ns_names": np.uint8}

    def load_snapshot(self, arrays: dict[str, np.ndarray]) -> list[str]:
        """Install columns saved by :meth:`snapshot`; returns the namespace names by code."""
        n = len(arrays["ns"])
        self.n = 0
        self.ensure(n)
        for name in self.FIELDS:
            getattr(self, name)[:n] = arrays[name]
        ids = arrays["ext_ids"].tobytes().decode().split("\x00") if n else []
        if len(ids) != n:
            raise StoreCorruptedError(f"column snapshot holds {len(ids)} ids for {n} memories")
        self.ext_ids = [x if alive else None for x, alive in zip(ids, self.alive[:n].tolist())]
        raw = arrays["ns_names"].tobytes().decode()
        return raw.split("\x00") if raw else []


@guarded
class Engram:
    """An open engramdb store. Create it with :func:`engramdb.open`; use it as a context manager.

    One process writes at a time (LMDB's single writer). Threads may share the object: every
    public method holds its lock (see :mod:`engramdb.concurrency`, which also covers ``fork()``,
    read-only reader processes and growth of a full LMDB map).

    Attributes
    ----------
    trace : list or None
        Debug hook, off (None) by default. Set it to a list and each recall appends
        ``(namespace, seed nids, visited nids)`` (int64 / int32 arrays): every node the vector
        search returned and the spreading activation reached.
    """

    def __init__(self, store: LmdbStore, *, dim: int, embedder: Any, config: EngramConfig,
                 readonly: bool = False):
        self._store = store
        self.dim = dim
        self.embedder = embedder
        self.config = config
        self.readonly = readonly
        self._closed = False
        self._cols = _Columns()
        self._graph = MemoryGraph()
        self._ns_codes: dict[str, int] = {}
        self._ns_meta: dict[str, dict] = {}
        self._indexes: dict[str, HnswIndex] = {}
        self._dirty_indexes: set[str] = set()
        self._density: dict[str, float] = {}
        self._index_dir = os.path.join(store.path, "index")
        self._spread = registry.get("spread_activation")   # resolved once, off the recall path
        self._rescore = registry.get("rescore_salience")
        self._topk = registry.get("topk")
        self._inflow = registry.get("spread_inflow")
        self._pos = np.zeros(0, np.int32)   # node -> position in the last spread's output
        self._mark = np.full(0, -1, np.int32)   # spread_inflow's scratch: all -1 between calls
        self._kw: dict[str, KeywordIndex] = {}   # BM25 keyword leg, one per namespace
        self._kw_gen = -1        # record generation of the saved keyword snapshot
        self._kw_dirty = False   # postings changed since that snapshot
        self._ns_latest: dict[str, float] = {}   # newest event time per namespace (time cues)
        self._lock = threading.RLock()       # see concurrency.guarded
        self._pid = os.getpid()
        self.trace: list | None = None
        self._load()

    # ------------------------------------------------------------------ loading
    def _ns_code(self, ns: str) -> int:
        return self._ns_codes.setdefault(ns, len(self._ns_codes))

    def _load(self) -> None:
        with self._store.read("loading the store") as txn:
            self._next_nid = self._store.get_meta(txn, "next_nid", 0)
            self._delta_seq = self._store.get_meta(txn, "delta_seq", 0)
            self._mem_gen = self._store.get_meta(txn, "mem_gen", 0)
            self._ns_meta = self._store.get_meta(txn, "namespaces", {})
            try:
                cols = self._store.load_arrays(txn, "cols", _Columns.snapshot_dtypes())
            except StoreCorruptedError:   # damaged, or from before a column was added: decode records
                cols = None
            if (cols is not None and cols[1].get("mem_gen") == self._mem_gen and len(cols[0]["ns"]) == self._next_nid
                    and columns_snapshot_ok(cols[0], self._next_nid)):
                for name in self._cols.load_snapshot(cols[0]):   # fast path: no record decoding
                    self._ns_code(name)
                self._cols_gen = self._mem_gen
            else:   # no snapshot, or records changed after it (e.g. a crash before close)
                self._cols.ensure(self._next_nid)
                for nid, rec in self._store.iter_records(txn):
                    self._cols.set_record(nid, rec, self._ns_code(rec["namespace"]))
                self._cols_gen = -1
            try:
                snap = self._store.load_snapshot(txn, SNAPSHOT_DTYPES)
            except StoreCorruptedError:   # a damaged snapshot: rebuild the graph from the edges
                snap = None
                self._graph.upsert_many(*self._store.read_edges(txn))
            if snap is not None:
                arrays, _meta = snap
                self._graph.set_csr(CSRGraph(**arrays))
            delta = self._store.read_delta(txn)
            if len(delta[0]):
                self._graph.upsert_many(*delta)
            self._delta_size = self._store.delta_size(txn)
            self._load_keyword_indexes(txn)
        for ns in self._ns_meta:
            self._ns_code(ns)
            self._indexes[ns] = self._load_or_rebuild_index(ns)

    def _load_keyword_indexes(self, txn) -> None:
        """The keyword snapshot when it matches the records, else postings rebuilt from them."""
        self._ns_latest = {}
        saved = self._store.load_arrays(txn, "kw", PACKED_DTYPES)
        if saved is not None and saved[1].get("mem_gen") == self._mem_gen:
            try:
                self._kw = unpack_indexes(saved[0], list(saved[1].get("namespaces", [])))
            except ValueError as exc:
                raise StoreCorruptedError(f"keyword index snapshot: {exc}") from exc
            self._kw_gen = self._mem_gen
            return
        self._kw = {}
        for nid, rec in self._store.iter_records(txn):   # a crash after writes: rebuild
            self._kw.setdefault(rec["namespace"], KeywordIndex()).add(nid, rec["text"])
        self._kw_dirty = True

    def _index_path(self, ns: str) -> str:
        name = ns.encode().hex()
        if len(name) > 128:   # file names stop at 255 bytes: long namespaces go by their hash
            name = "h" + hashlib.sha256(ns.encode()).hexdigest()
        return os.path.join(self._index_dir, name + ".hnsw")

    def _new_index(self) -> HnswIndex:
        c = self.config.index
        return HnswIndex(self.dim, m=c.m, ef_construction=c.ef_construction, ef_search=c.ef_search,
                         capacity=c.initial_capacity)

    def _load_or_rebuild_index(self, ns: str) -> HnswIndex:
        meta = self._ns_meta[ns]
        code = self._ns_codes[ns]
        nids = np.flatnonzero((self._cols.ns[: self._cols.n] == code) & self._cols.alive[: self._cols.n])
        try:
            return HnswIndex.load(self._index_path(ns), dim=self.dim, generation=meta["vgen"],
                                  count=meta["count"], ef_search=self.config.index.ef_search, labels=nids)
        except IndexStaleError:
            pass
        index = self._new_index()
        if len(nids):
            with self._store.read("rebuilding the vector index") as txn:
                vecs = np.stack([self._store.get_vector(txn, int(n), self.dim) for n in nids])
            index.add(vecs, nids)
        self._dirty_indexes.add(ns)
        return index

    # ------------------------------------------------------------------ context management
    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _check_open(self, write: bool = False) -> None:
        if self._closed:
            raise EngramError("this engramdb store is closed; open it again with engramdb.open(path)")
        if write and self.readonly:
            if getattr(self, "_forked_from", None):   # set by concurrency._after_fork
                raise StoreLockedError(
                    f"this engine came through fork() from process {self._forked_from}, which holds "
                    "the store's writer lock: the child may read only (to write, open the store in the "
                    "child after the parent closed it)")
            raise EngramError("this store was opened read-only")

    def flush(self) -> None:
        """Fold the edge delta into the persisted CSR snapshot and save changed vector indexes."""
        self._check_open()
        if self.readonly:
            return
        if self._delta_size:
            self._save_snapshot()
        if self._cols_gen != self._mem_gen:
            with self._store.write("saving the column snapshot") as txn:
                self._store.save_arrays(txn, "cols", self._cols.snapshot(list(self._ns_codes)),
                                        {"mem_gen": self._mem_gen})
            self._cols_gen = self._mem_gen
        os.makedirs(self._index_dir, mode=0o700, exist_ok=True)
        for ns in sorted(self._dirty_indexes):
            self._indexes[ns].save(self._index_path(ns), self._ns_meta[ns]["vgen"])
        self._dirty_indexes.clear()
        if self._kw_gen != self._mem_gen or self._kw_dirty:
            with self._store.write("saving the keyword index") as txn:
                if self._kw_dirty:
                    arrays, names = pack_indexes(self._kw)
                    self._store.save_arrays(txn, "kw", arrays, {"mem_gen": self._mem_gen, "namespaces": names})
                else:   # postings unchanged (e.g. only salience moved): re-tag the snapshot
                    self._store.save_arrays(txn, "kw", {}, {"mem_gen": self._mem_gen, "namespaces": sorted(self._kw)})
            self._kw_gen, self._kw_dirty = self._mem_gen, False

    def close(self) -> None:
        """Flush and close; the object is unusable afterwards. Closing twice is a no-op."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._store.close()
            self._closed = True

    @retries_map_growth
    def _save_snapshot(self) -> None:
        with self._store.write("saving the CSR snapshot") as txn:
            self._write_snapshot(txn, self._graph)
        self._delta_size = 0

    def _write_snapshot(self, txn, graph: MemoryGraph) -> None:
        """Persist ``graph`` as the CSR snapshot (clearing the delta) in ``txn``."""
        csr = graph.csr(self._next_nid)
        self._store.save_snapshot(txn, csr.arrays(),
                                  {"n_nodes": csr.n_nodes, "n_edges": len(graph), "schema": SCHEMA_VERSION})

    # ------------------------------------------------------------------ validation
    def _check_vector(self, vec: Any, field: str = "embedding") -> np.ndarray:
        if np.iscomplexobj(vec):
            raise InvalidInputError(f"{field}: expected real numbers, got a complex vector")
        try:
            arr = np.asarray(vec, dtype=np.float32)
        except (TypeError, ValueError):
            raise InvalidInputError(f"{field}: expected a sequence of {self.dim} floats") from None
        if arr.ndim != 1:
            raise InvalidInputError(f"{field}: expected one vector of shape ({self.dim},), got shape {arr.shape}")
        if arr.shape[0] != self.dim:
            raise DimensionMismatchError(expected=self.dim, got=arr.shape[0], field=field)
        if not np.all(np.isfinite(arr)):
            raise NonFiniteError(f"{field}: the vector contains NaN or infinite values")
        wide = arr.astype(np.float64)   # float64: huge or tiny float32 entries neither overflow nor vanish
        norm = float(np.linalg.norm(wide))
        if norm < _MIN_NORM or not math.isfinite(norm):
            raise NonFiniteError(f"{field}: the vector is all zeros or has a norm below {_MIN_NORM:g}; "
                                 "it has no reliable direction")
        return (wide / norm).astype(np.float32)

    def _check_text(self, text: Any, field: str = "text") -> str:
        if not isinstance(text, str):
            raise InvalidInputError(f"{field}: expected a string, got {type(text).__name__}")
        if not text.strip():
            raise EmptyTextError(f"{field}: the text is empty; store something to remember")
        if not _encodable(text):
            raise InvalidInputError(f"{field}: the text is not valid Unicode (lone surrogate)")
        limit = self.config.store.max_text_chars
        if len(text) > limit:
            raise OversizeError(f"{field}: {len(text)} characters, more than max_text_chars={limit}; "
                                "split it or raise StoreConfig.max_text_chars")
        return text

    def _prepare(self, item: Mapping[str, Any], default_ns: str, now: float) -> _Prepared:
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"a memory must be a mapping of fields, got {type(item).__name__}")
        unknown = set(item) - {"id", "namespace", "kind", "text", "embedding", "created_at",
                               "confidence", "salience", "source", "tags", "links",
                               "valid_from", "valid_to", "slot", "subject", "attribute", "value",
                               "single_valued"}
        if unknown:
            raise InvalidInputError(f"unknown memory field(s) {sorted(unknown)}")
        ns = _check_namespace(item.get("namespace") or default_ns)
        ext_id = item.get("id")
        auto_id = ext_id is None
        ext_id = uuid.uuid4().hex if auto_id else _check_id(ext_id)
        text = self._check_text(item.get("text"))
        kind = MemoryKind.parse(item.get("kind", MemoryKind.EPISODIC))
        created = item.get("created_at")
        created_at = now if created is None else to_unix_seconds(created)
        confidence = _check_fraction(item.get("confidence", 1.0), "confidence")
        sal = item.get("salience")
        salience = self.config.decay.initial_salience if sal is None else _check_fraction(sal, "salience")
        source = item.get("source")
        if source is not None and not (isinstance(source, str) and _encodable(source)):
            raise InvalidInputError(f"source must be a string or None, got {source!r}")
        tags = item.get("tags") or ()
        if not isinstance(tags, (str, bytes)):
            tags = _as_list(tags, "tags")
        if isinstance(tags, (str, bytes)) or not all(
                isinstance(t, str) and t and "\x00" not in t and _encodable(t) for t in tags):
            raise InvalidInputError(f"tags must be a list of non-empty strings without NUL, got {tags!r}")
        if len(tags) > _MAX_TAGS:
            raise OversizeError(f"{len(tags)} tags, more than {_MAX_TAGS}")
        vec = item.get("embedding")
        vector = None if vec is None else self._check_vector(vec)
        links = item.get("links") or ()
        if isinstance(links, (str, bytes, Mapping)) or not hasattr(links, "__iter__"):
            raise InvalidInputError(f"links must be a list of links ({{'to': id, 'relation', 'weight'}}), got {links!r}")
        links = [self._check_link_spec(spec) for spec in links]
        p = _Prepared(ext_id, ns, kind, text, created_at, confidence, salience, source,
                      tuple(dict.fromkeys(tags)), vector, links, auto_id=auto_id)
        p.valid_from, p.valid_to = _temporal.valid_interval(item, created_at)
        p.stated_valid_to = p.valid_to
        sc = self.config.slots
        slot = _slots.slot_from_item(item, text, sc.extractor, sc.is_single)
        if slot is not None:
            p.subject, p.attribute, p.slot_value, p.single = slot
        return p

    @staticmethod
    def _check_link_spec(spec: Any) -> tuple[str, Relation, float]:
        to, rel, w = _edge_fields(spec, ("to", "relation", "weight"), 1, "a link")
        return _check_id(to, "link target"), Relation.parse(rel), _check_fraction(w, "weight", open_zero=True)

    def _nid(self, ns: str, ext_id: str, txn=None) -> int:
        if txn is None:
            with self._store.read() as t:
                nid = self._store.lookup_id(t, ns, ext_id)
        else:
            nid = self._store.lookup_id(txn, ns, ext_id)
        if nid is None:
            raise MemoryNotFoundError(f"no memory {ext_id!r} in namespace {ns!r}")
        return nid

    # ------------------------------------------------------------------ writes
    def add(self, text: str, *, namespace: str = DEFAULT_NAMESPACE, kind: MemoryKind | str = "episodic",
            id: str | None = None, embedding: Any = None, created_at: Any = None,
            confidence: float = 1.0, salience: float | None = None, source: str | None = None,
            tags: Sequence[str] = (), links: Sequence[Any] = (), valid_from: Any = None,
            valid_to: Any = None, slot: Sequence[str] | None = None, subject: str | None = None,
            attribute: str | None = None, value: str | None = None,
            single_valued: bool | None = None) -> str:
        """Store one memory and return its id.

        A text that ``namespace`` already holds, given with no ``id`` (or with that memory's
        id), is not stored again: the stored memory's id is returned and it is reinforced. A
        text longer than ``StoreConfig.chunk_chars`` is stored as overlapping pieces ``id``,
        ``id#1``, ``id#2``, ... joined by ``next`` edges (:mod:`engramdb.batch_plan`).

        Parameters
        ----------
        text : str
            What to remember; non-empty, at most ``StoreConfig.max_text_chars`` characters.
        namespace : str
            Agent or user the memory belongs to.
        kind : MemoryKind or str
            ``working``, ``episodic``, ``semantic``, ``procedural`` or ``decision``.
        id : str, optional
            The caller's id, unique in the namespace; a random hex id when omitted.
        embedding : array-like of float, shape (dim,), optional
            The caller's vector (normalised here); the engine's embedder is used when omitted.
        created_at : float, datetime or ISO-8601 str, optional
            Event time (Unix seconds); now when omitted. ``recorded_at`` is always now.
        confidence : float
            In [0, 1].
        salience : float, optional
            Initial salience in [0, 1]; ``DecayConfig.initial_salience`` when omitted.
        source : str, optional
            Where it came from (session / turn id).
        tags : sequence of str
        links : sequence of {"to": id, "relation": str, "weight": float}
            Edges from this memory to existing ones (or ones earlier in the same batch).
        valid_from, valid_to : float, datetime or ISO-8601 str, optional
            Valid time, when the fact was true in the world (naive = UTC); ``valid_from``
            defaults to ``created_at``, ``valid_to`` to open. See ``engramdb.temporal``.
        slot : (subject, attribute) or (subject, attribute, value), optional
            The slot this memory fills; or give ``subject``/``attribute``/``value``. The value
            defaults to the text. A different value in a single-valued slot supersedes the
            current memory there (``engramdb.slots``); multi-valued slots accumulate.
        subject, attribute, value : str, optional
        single_valued : bool, optional
            The slot's cardinality for this memory; ``SlotConfig`` decides when omitted.

        Returns
        -------
        str
            The memory's id.

        Raises
        ------
        EmptyTextError, OversizeError, UnknownKindError, UnknownRelationError, NonFiniteError,
        DimensionMismatchError, InvalidInputError
            Bad input; nothing is written.
        NamespaceError
            Invalid namespace name.
        MemoryNotFoundError
            A link points at a memory that does not exist in the namespace.
        StoreFullError, StoreError
            LMDB failed; nothing is written.
        """
        item = {"text": text, "namespace": namespace, "kind": kind, "id": id, "embedding": embedding,
                "created_at": created_at, "confidence": confidence, "salience": salience,
                "source": source, "tags": tags, "links": links, "valid_from": valid_from,
                "valid_to": valid_to, "slot": slot, "subject": subject, "attribute": attribute,
                "value": value, "single_valued": single_valued}
        return self.add_batch([item], namespace=namespace)[0]

    def add_batch(self, items: Iterable[Mapping[str, Any]], *, namespace: str = DEFAULT_NAMESPACE,
                  progress: bool = False) -> list[str]:
        """Store many memories in one transaction; all or none are written.

        Parameters
        ----------
        items : iterable of mapping
            Each with the keyword arguments of :meth:`add` (``text`` required); a missing
            ``namespace`` means the ``namespace`` argument.
        namespace : str
            Default namespace of the items.
        progress : bool
            Show a progress bar while embedding.

        Returns
        -------
        list of str
            The ids, in input order.

        Raises
        ------
        The errors of :meth:`add`; also InvalidInputError for an id given twice or already
        stored. A batch equals the same items added one by one, except that auto-linking
        also sees the earlier items of the batch.
        """
        self._check_open(write=True)
        now = time.time()
        prepared = [self._prepare(item, namespace, now) for item in items]
        if not prepared:
            return []
        plan = plan_batch(self, prepared)   # repeated texts -> reinforce; long texts -> chunks
        if plan.fresh:
            self._embed_missing(plan.fresh, progress)
            self._commit_with_slots(plan.fresh, now, extra=plan.extra(self._store))
        for ns, links in plan.links.items():   # links given with repeated texts (targets checked)
            self.link_batch(links, namespace=ns)
        if plan.reinforce:
            self._reinforce(plan.reinforce, now)
        return plan.ids

    def _commit_with_slots(self, prepared: list[_Prepared], now: float, extra=None) -> list[str]:
        """:meth:`_commit_new` plus slot resolution (``slots.plan_slots``) in the same transaction."""
        retired: dict[int, dict] = {}

        def hook(txn):
            edges = extra(txn) if extra is not None else []
            if any(p.subject is not None for p in prepared):
                slot_edges, done = _slots.plan_slots(self, txn, prepared, now)
                edges = edges + slot_edges
                retired.update(done)
            return edges

        ids = self._commit_new(prepared, now, extra=hook)
        for nid, rec in retired.items():
            self._cols.set_record(nid, rec, self._ns_code(rec["namespace"]))
        return ids

    def _embed_missing(self, prepared: list[_Prepared], progress: bool) -> None:
        todo = [p for p in prepared if p.vector is None]
        if not todo:
            return
        if self.embedder is None:
            raise InvalidInputError("this store has no embedder: pass embedding= for every memory")
        vecs = _embed(self.embedder, [p.text for p in todo], progress)
        if vecs.shape != (len(todo), self.dim):
            raise DimensionMismatchError(expected=self.dim, got=vecs.shape[-1], field="embedder output")
        for p, v in zip(todo, vecs):
            p.vector = self._check_vector(v, field="embedder output")

    def _autolinks(self, prepared: list[_Prepared]) -> list[tuple[int, int, float]]:
        """(new nid, earlier nid, cosine) pairs above the auto-link threshold.

        The batch is already in the namespace's hnswlib index, so one batched k-NN query finds
        neighbours among stored memories and earlier items of the batch alike (approximate, as
        all of engramdb's vector search); later items link back to earlier ones, not forward.
        """
        lc = self.config.link
        if not lc.auto_link or lc.max_links == 0:
            return []
        out = []
        for ns, group in _by_namespace(prepared).items():
            # only near-duplicates pass the threshold: a small beam finds them (ef = 4 k)
            k = 2 * lc.max_links + 1
            labels, cos = self._indexes[ns].knn_batch(np.stack([p.vector for p in group]), k, ef=4 * k)
            for p, row_l, row_c in zip(group, labels.tolist(), cos.tolist()):
                picked = [(c, lab) for lab, c in zip(row_l, row_c) if lab < p.nid and c >= lc.cosine_threshold]
                out.extend((p.nid, lab, c) for c, lab in picked[: lc.max_links])
        return out

    def _record(self, p: _Prepared, now: float) -> dict:
        return {"id": p.ext_id, "namespace": p.namespace, "kind": p.kind.value, "text": p.text,
                "created_at": p.created_at, "recorded_at": now, "confidence": p.confidence,
                "salience": p.salience,
                "salience_at": _dyn_salience.initial_t0(p.kind, now, self.config.decay.hold_decisions_until_review),
                "access_count": 0, "last_access": None,
                "source": p.source, "tags": list(p.tags), "state": p.state.value,
                "superseded_by": p.superseded_by, **_temporal.record_fields(p), **(p.extra or {})}

    def _commit_new(self, prepared: list[_Prepared], now: float, extra=None) -> list[str]:
        """Write validated memories (+ their links and auto-links) in one transaction."""
        seen: dict[tuple[str, str], int] = {}
        for i, p in enumerate(prepared):
            p.nid = self._next_nid + i
            key = (p.namespace, p.ext_id)
            if key in seen:
                raise InvalidInputError(f"id {p.ext_id!r} appears twice in the batch")
            seen[key] = p.nid
        edges: list[tuple[int, int, int, float]] = []
        created = self._index_add(prepared)
        try:
            mem_gen, delta_seq, ns_meta = self._write_new(prepared, seen, edges, now, extra)
        except BaseException:
            self._index_rollback(prepared, created)
            raise
        # committed: update the caches
        self._mem_gen = mem_gen
        self._next_nid += len(prepared)
        self._delta_seq = delta_seq
        self._ns_meta = ns_meta
        for p in prepared:
            self._cols.set_record(p.nid, self._record(p, now), self._ns_code(p.namespace))
            self._kw.setdefault(p.namespace, KeywordIndex()).add(p.nid, p.text)
            self._ns_latest.pop(p.namespace, None)
        self._kw_dirty = True
        for nid, s0, t0 in self._link_boosts:   # stored ends of explicit links (DecayConfig.link_boost)
            self._cols.s0[nid], self._cols.t0[nid] = s0, t0
        self._apply_edges(edges)
        self._dirty_indexes.update(p.namespace for p in prepared)
        if self._delta_size >= self.config.store.snapshot_every:
            self._save_snapshot()
        if any(p.kind is MemoryKind.WORKING for p in prepared):   # bounded hot tier: promote overflow
            from .dynamics.forgetting import enforce_working_capacity
            enforce_working_capacity(self, {p.namespace for p in prepared if p.kind is MemoryKind.WORKING}, now)
        return [p.ext_id for p in prepared]

    def _index_add(self, prepared: list[_Prepared]) -> set[str]:
        """Put the batch's vectors in their namespaces' indexes (before the LMDB commit, so
        auto-linking can search them); returns the namespaces whose index this created."""
        created = set()
        for ns, group in _by_namespace(prepared).items():
            if ns not in self._indexes:
                self._indexes[ns] = self._new_index()
                created.add(ns)
            self._indexes[ns].add(np.stack([p.vector for p in group]), np.array([p.nid for p in group]))
        return created

    def _index_rollback(self, prepared: list[_Prepared], created: set[str]) -> None:
        """Undo :meth:`_index_add` after a failed commit (the store itself is unchanged)."""
        for p in prepared:
            if p.namespace in self._indexes and p.namespace not in created:
                self._indexes[p.namespace].remove(p.nid)
        for ns in created:
            del self._indexes[ns]

    def _write_new(self, prepared: list[_Prepared], seen: dict[tuple[str, str], int], edges: list,
                   now: float, extra) -> tuple[int, int, dict]:
        """The write transaction of :meth:`_commit_new`; fills ``edges``."""
        store = self._store
        with store.write("adding memories") as txn:
            # resolve every reference before the first put, so errors leave the store unchanged
            for p in prepared:
                if store.lookup_id(txn, p.namespace, p.ext_id) is not None:
                    raise InvalidInputError(
                        f"id {p.ext_id!r} already exists in namespace {p.namespace!r}; "
                        "use supersede() to replace a memory"
                    )
                for to, rel, w in p.links:
                    if to == p.ext_id:
                        raise InvalidInputError(f"cannot link memory {to!r} to itself")
                    tgt = seen.get((p.namespace, to))
                    if tgt is None or tgt >= p.nid:
                        tgt = store.lookup_id(txn, p.namespace, to)
                    if tgt is None:
                        raise MemoryNotFoundError(
                            f"link from {p.ext_id!r} to {to!r}: no memory {to!r} in namespace {p.namespace!r}"
                        )
                    edges.append((p.nid, tgt, rel.code, w))
            self._link_boosts = _dyn_salience.boost_links_in_txn(self, txn, prepared, edges, now)
            for src, tgt, cos in self._autolinks(prepared):
                edges.append((src, tgt, Relation.RELATED_TO.code, float(min(max(cos, 1e-6), 1.0))))
            extra_edges = extra(txn) if extra is not None else []
            edges.extend(extra_edges)
            ns_meta = {k: dict(v) for k, v in self._ns_meta.items()}
            for p in prepared:
                store.put_record(txn, p.nid, self._record(p, now))
                store.put_vector(txn, p.nid, p.vector)
                store.put_id(txn, p.namespace, p.ext_id, p.nid)
                m = ns_meta.setdefault(p.namespace, {"vgen": 0, "count": 0})
                m["vgen"] += 1
                m["count"] += 1
            delta_seq = self._write_edges(txn, edges, now)
            store.put_meta(txn, "next_nid", self._next_nid + len(prepared))
            store.put_meta(txn, "namespaces", ns_meta)
            mem_gen = self._bump_mem_gen(txn)
        return mem_gen, delta_seq, ns_meta

    def _bump_mem_gen(self, txn) -> int:
        """Count a change to the records in ``txn`` (it makes the column snapshot stale)."""
        self._store.put_meta(txn, "mem_gen", self._mem_gen + 1)
        return self._mem_gen + 1

    def _check_not_changed_elsewhere(self, txn) -> None:
        """Refuse to write over changes another process made behind this engine's caches."""
        if (self._store.get_meta(txn, "next_nid", 0) != self._next_nid
                or self._store.get_meta(txn, "delta_seq", 0) != self._delta_seq
                or self._store.get_meta(txn, "mem_gen", 0) != self._mem_gen):
            raise StoreLockedError(
                "the store was changed by another process since it was opened; engramdb allows one "
                "writer per store: close the other writer and reopen"
            )

    def _write_edges(self, txn, edges, now: float) -> int:
        self._check_not_changed_elsewhere(txn)
        seq = self._delta_seq
        for src, tgt, rel, w in edges:
            seq += 1
            self._store.put_edge(txn, src, tgt, rel, w, now, seq)
        self._store.put_meta(txn, "delta_seq", seq)
        return seq

    def _apply_edges(self, edges) -> None:
        if not edges:
            return
        arr = np.array(edges, dtype=np.float64).reshape(-1, 4)
        self._graph.upsert_many(arr[:, 0].astype(np.uint32), arr[:, 1].astype(np.uint32),
                                arr[:, 2].astype(np.uint8), arr[:, 3].astype(np.float32))
        self._delta_size += len(edges)
        self._density.clear()

    def link(self, source: str, target: str, relation: Relation | str = Relation.RELATED_TO,
             weight: float = 1.0, *, namespace: str = DEFAULT_NAMESPACE) -> Edge:
        """Add the typed edge ``source -> target`` (or set its weight if it exists).

        Parameters
        ----------
        source, target : str
            Memory ids in ``namespace``; different from each other.
        relation : Relation or str
            One of :class:`Relation`.
        weight : float
            In (0, 1].

        Returns
        -------
        Edge

        Raises
        ------
        MemoryNotFoundError
            Either end does not exist in the namespace.
        UnknownRelationError, InvalidInputError, NonFiniteError
            Bad relation, weight, or a self-link; nothing is written.
        """
        return self.link_batch([(source, target, relation, weight)], namespace=namespace)[0]

    def link_batch(self, edges: Iterable[Any], *, namespace: str = DEFAULT_NAMESPACE) -> list[Edge]:
        """Add many edges in one transaction; all or none are written.

        Parameters
        ----------
        edges : iterable of (source, target[, relation[, weight]]) or mapping
            Mappings use the keys ``source``, ``target``, ``relation``, ``weight``.
            Defaults: relation ``related_to``, weight 1.0.
        namespace : str
            Both ends of every edge live here; edges never cross namespaces.

        Returns
        -------
        list of Edge

        Raises
        ------
        The errors of :meth:`link`.
        """
        self._check_open(write=True)
        ns = _check_namespace(namespace)
        if edges is None or isinstance(edges, (str, bytes, Mapping)):
            raise InvalidInputError(f"edges: expected an iterable of edges, got {type(edges).__name__}")
        specs = []
        for e in edges:
            src, tgt, rel, w = _edge_fields(e, ("source", "target", "relation", "weight"), 2, "an edge")
            _check_id(src, "source")
            _check_id(tgt, "target")
            if src == tgt:
                raise InvalidInputError(f"cannot link memory {src!r} to itself")
            specs.append((src, tgt, Relation.parse(rel), _check_fraction(w, "weight", open_zero=True)))
        if not specs:
            return []
        now = time.time()
        with self._store.write("linking memories") as txn:
            rows = [(self._nid(ns, s, txn), self._nid(ns, t, txn), r.code, w) for s, t, r, w in specs]
            seq = self._write_edges(txn, rows, now)
            boosts = _dyn_salience.boost_links_in_txn(self, txn, [], rows, now)
            mem_gen = self._bump_mem_gen(txn) if boosts else self._mem_gen
        self._delta_seq = seq
        self._mem_gen = mem_gen
        for nid, s0, t0 in boosts:
            self._cols.s0[nid], self._cols.t0[nid] = s0, t0
        self._apply_edges(rows)
        if self._delta_size >= self.config.store.snapshot_every:
            self._save_snapshot()
        return [Edge(s, t, r, w) for s, t, r, w in specs]

    def supersede(self, old_id: str, text: str | None = None, *, namespace: str = DEFAULT_NAMESPACE,
                  by: str | None = None, **fields: Any) -> str:
        """Replace ``old_id`` by a new memory (``text``) or by an existing one (``by``); the old
        one is kept, flagged superseded.

        The successor gets a ``supersedes`` edge to the old one; the old one's ``superseded_by``
        names it, its ``valid_to`` becomes the successor's ``valid_from`` (when it stopped being
        true; never before its own ``valid_from``) and its ``retired_at`` the record time (now).
        Recall hides it unless ``include_superseded=True`` or an ``as_of`` before now.
        A new memory's ``kind``, ``tags``, ``source`` and slot (subject, attribute) default to
        the old memory's; the other keyword fields are those of :meth:`add` with its defaults
        (a new version states its own confidence).

        Parameters
        ----------
        old_id : str
            The current memory to retire.
        text : str, optional
            Text of a new successor memory. Give ``text`` or ``by``, not both.
        namespace : str
        by : str, optional
            Id of an existing, current memory that supersedes ``old_id`` (no new memory).
        **fields
            Keyword fields of :meth:`add` for the new memory (``id``, ``embedding``,
            ``valid_from``, ``value``, ...); not allowed with ``by``.

        Returns
        -------
        str
            The successor's id.

        Raises
        ------
        MemoryNotFoundError
            No ``old_id`` (or ``by``) in the namespace.
        InvalidInputError
            ``old_id`` is already superseded; ``by`` is ``old_id``, is superseded, or precedes
            ``old_id`` in its supersession chain (a cycle); both or neither of ``text``/``by``;
            or the new memory is invalid (see :meth:`add`). Nothing is written.
        """
        self._check_open(write=True)
        ns = _check_namespace(namespace)
        old = self.get(old_id, namespace=ns)
        if old.state is MemoryState.SUPERSEDED:
            raise InvalidInputError(f"memory {old_id!r} is already superseded by {old.superseded_by!r}")
        if (text is None) == (by is None):
            raise InvalidInputError("supersede needs exactly one of text (a new memory) or by= (an existing one)")
        old_nid = self._nid(ns, old_id)
        now = time.time()
        if by is not None:
            return self._supersede_by(old, old_nid, _check_id(by, "by"), ns, now, fields)
        item = {"kind": old.kind, "tags": old.tags, "source": old.source, **fields,
                "text": text, "namespace": ns}
        if old.subject is not None and not {"slot", "subject", "attribute"} & set(fields):
            item["subject"], item["attribute"] = old.subject, old.attribute
        p = self._prepare(item, ns, now)
        if old.subject is not None and (p.subject, p.attribute) != (old.subject, old.attribute):
            raise InvalidInputError(
                f"{old_id!r} fills the slot ({old.subject!r}, {old.attribute!r}); its successor must fill "
                f"the same slot, got ({p.subject!r}, {p.attribute!r})"
            )
        self._embed_missing([p], False)
        if p.subject is not None:
            p.slot_mode = "append"      # this call decides the slot: no automatic resolution
        pending: dict[str, dict] = {}

        def mark_old(txn):
            rec = _slots.retire_record(self._store.get_record(txn, old_nid), p.ext_id, p.valid_from, now)
            self._store.put_record(txn, old_nid, rec)
            pending["old"] = rec
            return [(p.nid, old_nid, Relation.SUPERSEDES.code, 1.0)]

        new_id = self._commit_with_slots([p], now, extra=mark_old)[0]
        self._cols.set_record(old_nid, pending["old"], self._ns_code(ns))
        return new_id

    def _supersede_by(self, old: Memory, old_nid: int, by: str, ns: str, now: float, fields) -> str:
        """:meth:`supersede` with an existing successor ``by`` (validated here; one transaction)."""
        if fields:
            raise InvalidInputError(f"supersede(by=...) takes no new-memory fields, got {sorted(fields)}")
        if by == old.id:
            raise InvalidInputError(f"memory {by!r} cannot supersede itself")
        new = self.get(by, namespace=ns)
        new_nid = self._nid(ns, by)
        if new.state is MemoryState.SUPERSEDED:
            chain = self._successors(old_nid) | self._predecessors(old_nid)
            why = (f"{by!r} precedes {old.id!r} in its supersession chain: superseding into it would "
                   "make a cycle" if new_nid in chain else f"{by!r} is itself superseded by {new.superseded_by!r}")
            raise InvalidInputError(f"cannot supersede {old.id!r} by {by!r}: {why}")
        if new.subject is not None and (new.subject, new.attribute) != (old.subject, old.attribute):
            raise InvalidInputError(
                f"cannot supersede {old.id!r} by {by!r}: {by!r} fills another slot "
                f"({new.subject!r}, {new.attribute!r}) than ({old.subject!r}, {old.attribute!r})"
            )
        with self._store.write("superseding a memory") as txn:
            rec = _slots.retire_record(self._store.get_record(txn, old_nid), by, new.valid_from, now)
            self._store.put_record(txn, old_nid, rec)
            if old.subject is not None and new.subject is None:   # the successor takes over the slot
                _slots.join_slot(self._store, txn, new_nid, ns, old.subject, old.attribute, bool(rec.get("multi")))
            edge = [(new_nid, old_nid, Relation.SUPERSEDES.code, 1.0)]
            seq = self._write_edges(txn, edge, now)
            mem_gen = self._bump_mem_gen(txn)
        self._mem_gen, self._delta_seq = mem_gen, seq
        self._cols.set_record(old_nid, rec, self._ns_code(ns))
        self._apply_edges(edge)
        return by

    def _supersedes_edges(self, nid: int) -> tuple[list[int], list[int]]:
        """(memories ``nid`` superseded, memories that superseded ``nid``) from the graph."""
        csr = self._graph.csr(self._next_nid)     # O(degree) per memory, not O(edges)
        if nid >= csr.n_nodes:
            return [], []
        lo, hi = int(csr.indptr[nid]), int(csr.indptr[nid + 1])
        rows = lo + np.flatnonzero(csr.relation[lo:hi] == Relation.SUPERSEDES.code)
        fwd = csr.forward[rows].astype(bool)
        return csr.indices[rows[fwd]].tolist(), csr.indices[rows[~fwd]].tolist()

    def _predecessors(self, nid: int) -> set[int]:
        return self._walk(nid, 0)

    def _successors(self, nid: int) -> set[int]:
        return self._walk(nid, 1)

    def _walk(self, nid: int, side: int) -> set[int]:
        seen, todo = set(), [nid]
        while todo:
            for other in self._supersedes_edges(todo.pop())[side]:
                if other not in seen and other != nid:
                    seen.add(other)
                    todo.append(other)
        return seen

    def update(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, text: str | None = None,
               embedding: Any = None, tags: Sequence[str] | None = None, confidence: float | None = None,
               source: str | None = None) -> Memory:
        """Revise a memory in place (same id): new wording, vector, tags, confidence or source.

        The earlier version is kept in the record's history (see :meth:`history`). A new
        ``text`` is re-embedded (unless ``embedding`` is given) and re-indexed, so the old
        wording no longer recalls the memory. The hnswlib index replaces the vector under the
        same label (hnswlib updates an existing label in place), so the nid, its edges and the
        column arrays stay put. Slot and valid time do not change: to record a new value of
        a fact, use :meth:`supersede` (or add it with its slot).

        Parameters
        ----------
        id : str
        namespace : str
        text : str, optional
            New wording.
        embedding : array-like of float, shape (dim,), optional
            New vector (normalised here); with ``text`` omitted only the vector changes.
        tags : sequence of str, optional
            Replaces the tags.
        confidence : float, optional
            In [0, 1].
        source : str, optional

        Returns
        -------
        Memory
            The memory after the update.

        Raises
        ------
        MemoryNotFoundError
            No such memory.
        InvalidInputError, EmptyTextError, OversizeError, DimensionMismatchError, NonFiniteError
            Bad fields, nothing to update, or the memory is superseded (update its successor);
            nothing is written.
        """
        self._check_open(write=True)
        ns = _check_namespace(namespace)
        old = self.get(id, namespace=ns)
        if all(x is None for x in (text, embedding, tags, confidence, source)):
            raise InvalidInputError("update needs at least one of text, embedding, tags, confidence, source")
        if old.state is MemoryState.SUPERSEDED:
            raise InvalidInputError(f"memory {id!r} is superseded by {old.superseded_by!r}: "
                                    "update the current version, or supersede it")
        now = time.time()
        # validate through _prepare (the rules of add), then keep only what changes
        item = {"text": old.text if text is None else text, "kind": old.kind,
                "tags": old.tags if tags is None else tags, "source": old.source if source is None else source,
                "confidence": old.confidence if confidence is None else confidence, "embedding": embedding}
        p = self._prepare(item, ns, now)
        if text is not None or embedding is not None:
            self._embed_missing([p], False)
        nid = self._nid(ns, id)
        ns_meta = {k: dict(v) for k, v in self._ns_meta.items()}
        if p.vector is not None:
            ns_meta[ns]["vgen"] += 1
        with self._store.write("updating a memory") as txn:
            self._check_not_changed_elsewhere(txn)
            rec = self._store.get_record(txn, nid)
            rec.setdefault("versions", []).append(
                {"text": rec["text"], "confidence": rec["confidence"], "tags": rec["tags"], "source": rec["source"],
                 "recorded_at": rec.get("version_at", rec["recorded_at"]), "replaced_at": now})
            if p.text != rec["text"]:   # the deduplication key follows the wording (never
                # taking over the key of another memory that holds the same text)
                self._store.drop_text(txn, ns, text_digest(rec["text"]), nid)
                if self._store.lookup_text(txn, ns, text_digest(p.text)) is None:
                    self._store.put_text(txn, ns, text_digest(p.text), nid)
            rec.update(text=p.text, confidence=p.confidence, tags=list(p.tags), source=p.source, version_at=now)
            self._store.put_record(txn, nid, rec)
            if p.vector is not None:
                self._store.put_vector(txn, nid, p.vector)
                self._store.put_meta(txn, "namespaces", ns_meta)
            mem_gen = self._bump_mem_gen(txn)
        self._mem_gen, self._ns_meta = mem_gen, ns_meta
        self._cols.confidence[nid] = p.confidence
        if p.vector is not None:
            self._reindex(ns, nid, old.text, p.text, p.vector)
        return _memory_from_record(rec, None)

    def _reindex(self, ns: str, nid: int, old_text: str, new_text: str, vector: np.ndarray) -> None:
        """Re-index an updated memory: replace its vector under the same hnswlib label and swap
        ``old_text`` for ``new_text`` in the namespace's keyword index."""
        self._indexes[ns].add(vector.reshape(1, -1), np.array([nid]))
        self._dirty_indexes.add(ns)
        if old_text != new_text:
            kw = self._kw.setdefault(ns, KeywordIndex())
            kw.remove(nid, old_text)
            kw.add(nid, new_text)
            self._kw_dirty = True

    def history(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> list[_temporal.HistoryEntry]:
        """Versions and supersessions of ``id``'s fact, in record-time order.

        Covers every memory in ``id``'s supersession chain (what it superseded and what
        superseded it, transitively), with each memory's earlier wordings (:meth:`update`).

        Parameters
        ----------
        id : str
        namespace : str

        Returns
        -------
        list of HistoryEntry
            One per version (see ``engramdb.temporal.HistoryEntry``), oldest record first.

        Raises
        ------
        MemoryNotFoundError
        """
        self._check_open()
        ns = _check_namespace(namespace)
        nid = self._nid(ns, _check_id(id))
        chain = {nid}
        todo = [nid]
        while todo:
            older, newer = self._supersedes_edges(todo.pop())
            for other in older + newer:
                if other not in chain:
                    chain.add(other)
                    todo.append(other)
        ext = self._cols.ext_ids
        supersedes = {ext[n]: tuple(sorted(ext[o] for o in self._supersedes_edges(n)[0])) for n in chain}
        with self._store.read("reading a history") as txn:
            records = [self._store.get_record(txn, n) for n in sorted(chain)]
        return _temporal.history_entries([r for r in records if r is not None], supersedes)

    def query(self, *, namespace: str = DEFAULT_NAMESPACE, kind: MemoryKind | str | Sequence[Any] | None = None,
              tags: Sequence[str] | str | None = None, min_confidence: float | None = None,
              since: Any = None, until: Any = None, as_of: Any = None,
              state: MemoryState | str | Sequence[Any] | None = None, include_archived: bool = False,
              include_superseded: bool = False, order: str = "event_time_desc", limit: int = 100,
              now: Any = None) -> list[Memory]:
        """Memories matching structured filters, in a given order, without a query vector.

        Answers e.g. "what decisions have we made about pricing, newest first":
        ``query(kind="decision", tags=["pricing"])``. See ``engramdb.query`` for the method.

        Parameters
        ----------
        namespace : str
        kind : MemoryKind, str or sequence of them, optional
        tags : str or sequence of str, optional
            Keep memories carrying every one of these tags.
        min_confidence : float, optional
            In [0, 1].
        since, until : float, datetime or ISO-8601, optional
            Event time (``created_at``) range, inclusive (naive = UTC).
        as_of : float, datetime or ISO-8601, optional
            What the store believed valid at that time (``engramdb.temporal``).
        state : MemoryState, str or sequence, optional
            Keep exactly these states (overrides the include flags).
        include_archived, include_superseded : bool
            By default only active memories (and, with ``as_of``, superseded ones valid then).
        order : {"event_time_desc", "event_time_asc", "salience_desc", "confidence_desc"}
        limit : int
            1..100000.
        now : float, datetime or ISO-8601, optional
            Time for ``salience_desc`` (current salience decays); the wall clock when omitted.

        Returns
        -------
        list of Memory
            At most ``limit``, in ``order`` (ties: newer nid first).

        Raises
        ------
        InvalidInputError, UnknownKindError, NamespaceError, NonFiniteError
        """
        self._check_open()
        return _query.run_query(self, namespace=namespace, kind=kind, tags=tags,
                                min_confidence=min_confidence, since=since, until=until, as_of=as_of,
                                state=state, include_archived=include_archived,
                                include_superseded=include_superseded, order=order, limit=limit, now=now)

    def forget(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, hard: bool = False) -> None:
        """Forget a memory: archive it (default; kept, hidden from recall) or erase it (``hard``).

        A hard forget deletes the record, its embedding and every edge touching it (for
        privacy requests); it rewrites the CSR snapshot in the same transaction. A memory that
        the erased one had superseded becomes active again (it is the latest version left).

        Raises
        ------
        MemoryNotFoundError
            No such memory in the namespace.
        """
        self._check_open(write=True)
        ns = _check_namespace(namespace)
        _check_id(id)
        nid = self._nid(ns, id)
        if not hard:
            with self._store.write("archiving a memory") as txn:
                rec = self._store.get_record(txn, nid)
                rec["state"] = MemoryState.ARCHIVED.value
                self._store.put_record(txn, nid, rec)
                mem_gen = self._bump_mem_gen(txn)
            self._mem_gen = mem_gen
            self._cols.state[nid] = _STATE_CODES[MemoryState.ARCHIVED]
            return
        # what this memory superseded becomes current again: no pointer to an erased id remains
        revived = [other for other, rel, _, forward in self._graph.neighbours(nid)
                   if rel == Relation.SUPERSEDES.code and forward]
        graph_after = MemoryGraph()
        graph_after.upsert_many(*self._graph.edges())
        graph_after.remove_node(nid)
        ns_meta = {k: dict(v) for k, v in self._ns_meta.items()}
        ns_meta[ns]["vgen"] += 1
        ns_meta[ns]["count"] -= 1
        restored = []
        with self._store.write("erasing a memory") as txn:
            recs = {o: self._store.get_record(txn, o) for o in revived}
            recs = {o: r for o, r in recs.items() if r is not None and r["superseded_by"] == id}
            # one current per single-valued slot stays true; an erased memory that was itself
            # superseded hands what it superseded on to its own successor
            succ = self._store.get_record(txn, nid)["superseded_by"]
            succ_nid = None if succ is None else self._store.lookup_id(txn, ns, succ)
            repoint = _slots.choose_revived(recs) if succ_nid is None else dict.fromkeys(recs, succ_nid)
            for other, rec in recs.items():
                if other in repoint:
                    rec["superseded_by"] = succ if succ_nid is not None else recs[repoint[other]]["id"]
                else:
                    rec["state"], rec["superseded_by"] = MemoryState.ACTIVE.value, None
                    rec["retired_at"], rec["valid_to"] = None, rec.get("stated_valid_to")
                    restored.append(other)
                self._store.put_record(txn, other, rec)
            new_edges = [(keep, other, Relation.SUPERSEDES.code, 1.0) for other, keep in repoint.items()]
            if new_edges:
                graph_after.upsert_many(*(np.array(col, dt) for col, dt in zip(
                    zip(*new_edges), (np.uint32, np.uint32, np.uint8, np.float32))))
                self._delta_seq = self._write_edges(txn, new_edges, time.time())
            erased_text = self._store.get_record(txn, nid)["text"]
            self._store.delete_edges_of(txn, nid)
            self._store.delete_record(txn, nid, ns, id)
            self._store.put_meta(txn, "namespaces", ns_meta)
            self._write_snapshot(txn, graph_after)
            mem_gen = self._bump_mem_gen(txn)
        self._mem_gen = mem_gen
        self._cols.state[restored] = _STATE_CODES[MemoryState.ACTIVE]
        self._cols.retired_at[restored] = np.inf
        self._graph = graph_after
        self._delta_size = 0
        self._density.clear()
        self._ns_meta = ns_meta
        self._cols.alive[nid] = False
        self._cols.ext_ids[nid] = None
        self._indexes[ns].remove(nid)
        self._dirty_indexes.add(ns)
        self._kw.setdefault(ns, KeywordIndex()).remove(nid, erased_text)
        self._kw_dirty = True
        self._ns_latest.pop(ns, None)

    # ------------------------------------------------------------------ reads
    def get(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, with_embedding: bool = False) -> Memory:
        """The memory ``id`` of ``namespace``.

        Raises
        ------
        MemoryNotFoundError
            No such memory.
        """
        self._check_open()
        ns = _check_namespace(namespace)
        _check_id(id)
        with self._store.read("reading a memory") as txn:
            nid = self._nid(ns, id, txn)
            rec = self._store.get_record(txn, nid)
            if rec is None or rec["id"] != id or rec["namespace"] != ns:
                raise StoreCorruptedError(f"id {id!r} maps to nid {nid}, which holds no record of it")
            vec = self._store.get_vector(txn, nid, self.dim) if with_embedding else None
        return _memory_from_record(rec, vec)

    def edges(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> list[Edge]:
        """Every stored edge touching ``id`` (both directions).

        Raises
        ------
        MemoryNotFoundError
        """
        self._check_open()
        nid = self._nid(_check_namespace(namespace), _check_id(id))
        ext = self._cols.ext_ids
        out = []
        for other, rel, w, forward in self._graph.neighbours(nid):
            src, tgt = (ext[nid], ext[other]) if forward else (ext[other], ext[nid])
            out.append(Edge(src, tgt, RELATION_BY_CODE[rel], float(f"{w:.7g}")))  # stored as float32
        return out

    @property
    def n_edges(self) -> int:
        """Number of stored edges (typed links and auto-links), all namespaces."""
        return len(self._graph)

    def namespaces(self) -> list[str]:
        """Names of the namespaces holding at least one memory."""
        self._check_open()
        return sorted(ns for ns, m in self._ns_meta.items() if m["count"] > 0)

    def salience(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, now: float | None = None) -> float:
        """Current salience s(now) = s0 * 2**(-(now - t0) / half_life(kind)), in [0, 1]."""
        self._check_open()
        nid = self._nid(_check_namespace(namespace), _check_id(id))
        now = time.time() if now is None else to_unix_seconds(now, field="now")
        return float(self._salience_now(np.array([nid]), now)[0])

    # ------------------------------------------------------------------ memory dynamics
    def admit_batch(self, candidates: Iterable[Mapping[str, Any]], *, namespace: str = DEFAULT_NAMESPACE,
                    now: Any = None, shadow: bool | None = None, utility: Any = None,
                    config: AdmissionConfig | None = None) -> list:
        """Score candidate memories with A-MAC admission control; store those worth keeping.

        Every candidate gets five factors (future utility, factual confidence, semantic novelty,
        temporal recency, content-type prior; see :mod:`engramdb.dynamics.admission`), scored
        for the whole batch in one ``admission_score`` kernel call. A near-duplicate of a stored
        active memory or of an earlier candidate (cosine >= ``duplicate_cosine``) reinforces
        that memory instead, unless it changes a number, date, name or negation. Admitted
        candidates, reinforcements and log entries are written in one transaction.

        Parameters
        ----------
        candidates : iterable of mapping
            Memories as for :meth:`add_batch` (``text`` required; ``confidence`` is factor C).
        namespace : str
            The namespace the candidates are scored against and stored in.
        now : float, datetime or ISO-8601, optional
            Unix seconds for recency and reinforcement; the wall clock when omitted.
        shadow : bool, optional
            Score and log every decision but store every candidate; ``config.shadow`` when omitted.
        utility : callable list[str] -> array-like of n floats in [0, 1], optional
            Future-utility judge (e.g. an LLM); :func:`~engramdb.dynamics.heuristic_utility` when omitted.
        config : AdmissionConfig, optional
            Overrides ``self.config.admission`` for this call.

        Returns
        -------
        list of AdmissionDecision
            One per candidate, in input order: ``decision`` (admit / reject / reinforce), the
            five ``factors``, ``score``, ``stored``, ``target``, ``reason``.

        Raises
        ------
        The errors of :meth:`add_batch`; InvalidInputError when a candidate names another
        namespace or ``utility`` returns anything but n numbers in [0, 1]. Nothing is written.

        References
        ----------
        A-MAC, arXiv:2603.04549, section 3 (five-factor admission score, threshold 0.55).
        """
        from .dynamics.admission import admit_batch

        self._check_open(write=True)
        ns = _check_namespace(namespace)
        now = time.time() if now is None else to_unix_seconds(now, field="now")
        if config is not None and not isinstance(config, AdmissionConfig):
            raise ConfigError(f"config must be an AdmissionConfig, got {type(config).__name__}")
        return admit_batch(self, candidates, namespace=ns, now=now, shadow=shadow, utility=utility, config=config)

    def review(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, now: Any = None) -> float:
        """Mark the outcome of decision ``id`` reviewed: its salience, held since it was stored
        (``DecayConfig.hold_decisions_until_review``), decays from ``now`` on.

        Returns
        -------
        float
            Salience at ``now``.

        Raises
        ------
        MemoryNotFoundError
            No such memory.
        InvalidInputError
            The memory is not a decision.
        """
        self._check_open(write=True)
        ns = _check_namespace(namespace)
        _check_id(id)
        now = time.time() if now is None else to_unix_seconds(now, field="now")
        return _dyn_salience.review(self, id, ns, now)

    def rescore(self, now: Any = None, *, namespace: str | None = None, progress: bool = False,
                materialize: bool = False) -> dict[str, Any]:
        """Batch rescoring: current salience of every memory, then promotion, archive and prune floors.

        Runs the native ``rescore_salience`` kernel over the column arrays; promotes working
        memories below their floor or over ``ForgettingConfig.working_capacity`` to episodic,
        archives active memories below their kind's archive floor and erases archived ones
        below their kind's prune floor, all in one transaction, each action in
        :meth:`dynamics_log`. Idempotent: a second pass at the same ``now`` changes no record.

        Parameters
        ----------
        now : float, datetime or ISO-8601, optional
            Unix seconds; the wall clock when omitted.
        namespace : str, optional
            Rescore one namespace; every namespace when omitted.
        progress : bool
            Show a rich progress bar.
        materialize : bool
            Also write s0 = s(now), t0 = now into every record (not only the changed ones).

        Returns
        -------
        dict
            ``scanned``, ``promoted``, ``archived``, ``pruned``, ``records_written``, ``by_kind``
            (per kind counts and mean salience), ``now``, ``seconds``, ``kernel_backend``; also
            stored in the store's meta as ``rescore_last``.

        Raises
        ------
        NamespaceError, InvalidInputError, NonFiniteError
            Bad namespace or ``now``.

        References
        ----------
        Settles & Meeder (2016), section 3.1 (half-life decay); docs/design.md "Memory dynamics".
        """
        from .dynamics.rescore import rescore

        self._check_open(write=True)
        if namespace is not None:
            namespace = _check_namespace(namespace)
        now = time.time() if now is None else to_unix_seconds(now, field="now")
        return rescore(self, now, namespace=namespace, progress=progress, materialize=materialize)

    def dynamics_log(self, *, namespace: str | None = None, action: str | None = None,
                     limit: int | None = None) -> list[dict[str, Any]]:
        """Entries of the dynamics log (archive, prune, promote, admission decisions), oldest first.

        Each entry has ``seq``, ``at`` (Unix seconds), ``action``, ``namespace``, ``id`` and
        details (``salience``, ``reason``, ``kind``; admission entries add ``score``,
        ``factors``, ``text``; prune entries keep the erased ``text``).

        Parameters
        ----------
        namespace, action : str, optional
            Keep only these; ``action`` is one of ``dynamics.forgetting.ACTIONS``.
        limit : int, optional
            Only the last ``limit`` entries.

        Raises
        ------
        InvalidInputError
            Unknown action or a negative limit.
        """
        from .dynamics.forgetting import ACTIONS, read_log

        self._check_open()
        if action is not None and action not in ACTIONS:
            raise InvalidInputError(f"action: expected one of {ACTIONS}, got {action!r}")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise InvalidInputError(f"limit: expected an integer >= 0, got {limit!r}")
        return read_log(self, namespace=namespace, action=action, limit=limit)

    def export(self, path: str | os.PathLike, *, format: str = "parquet", now: Any = None) -> dict[str, str]:
        """Write every memory (with its embedding and current salience) and every edge with pyarrow.

        See :func:`engramdb.export.export_store`: ``path`` becomes a directory holding
        ``memories.<ext>`` and ``edges.<ext>`` (``parquet``, or ``arrow`` IPC files).

        Parameters
        ----------
        path : str or os.PathLike
            Directory to create (or an existing empty one).
        format : {"parquet", "arrow"}
        now : float, datetime or ISO-8601, optional
            Time of the exported ``salience_now`` column; the wall clock when omitted.

        Returns
        -------
        dict
            ``{"memories": file path, "edges": file path}``.

        Raises
        ------
        InvalidInputError
            Unknown format, or ``path`` exists and is not an empty directory.
        """
        from .export import export_store

        self._check_open()
        now = time.time() if now is None else to_unix_seconds(now, field="now")
        return export_store(self, path, format=format, now=now)

    def import_from(self, path: str | os.PathLike) -> dict[str, int]:
        """Read memories and edges written by :meth:`export` into this store, losslessly.

        See :func:`engramdb.export.import_store`. All or nothing: one transaction.

        Parameters
        ----------
        path : str or os.PathLike
            Directory written by :meth:`export` (either format).

        Returns
        -------
        dict
            ``{"memories": n, "edges": m}`` read.

        Raises
        ------
        InvalidInputError, DimensionMismatchError
            Missing or malformed tables, an id already stored, a dimension that differs.
        """
        from .export import import_store

        self._check_open(write=True)
        return import_store(self, path)

    def _salience_now(self, nids: np.ndarray, now: float) -> np.ndarray:
        c = self._cols
        return self._rescore(c.s0[nids], c.t0[nids], c.kind[nids], self.config.decay.half_life_by_code, float(now))

    def stats(self) -> dict[str, Any]:
        """Counts per namespace and state, edges, graph density, backend and sizes."""
        self._check_open()
        c = self._cols
        n = c.n
        per_ns = {}
        for ns in sorted(self._ns_meta):
            code = self._ns_codes[ns]
            mask = (c.ns[:n] == code) & c.alive[:n]
            states = np.bincount(c.state[:n][mask], minlength=len(STATE_BY_CODE))
            per_ns[ns] = {"memories": int(mask.sum()),
                          **{s.value: int(states[i]) for i, s in enumerate(STATE_BY_CODE)},
                          "density": round(self._ns_density(ns), 4)}
        info = self._store.env.info()
        stat = self._store.env.stat()
        return {"path": self._store.path, "dim": self.dim,
                "embedder": getattr(self.embedder, "name", None),
                "kernel_backend": registry.active_backend(),
                "memories": int(c.alive[:n].sum()), "edges": len(self._graph),
                "delta_edges": self._delta_size, "namespaces": per_ns,
                "store_bytes": int(stat["psize"] * (info["last_pgno"] + 1)),
                "map_size_bytes": int(info["map_size"])}

    def _ns_density(self, ns: str) -> float:
        d = self._density.get(ns)
        if d is None:
            code = self._ns_codes.get(ns, -1)
            d = self._graph.density(self._cols.ns[: self._next_nid], code) if self._next_nid else 0.0
            self._density[ns] = d
        return d

    # ------------------------------------------------------------------ recall
    def recall(self, query: str | None = None, *, vector: Any = None, namespace: str = DEFAULT_NAMESPACE,
               k: int = 10, kinds: Sequence[MemoryKind | str] | None = None,
               tags: Sequence[str] | None = None, min_confidence: float | None = None,
               since: Any = None, until: Any = None, include_superseded: bool = False,
               include_archived: bool = False, gate: str | None = None, reinforce: bool | None = None,
               now: float | None = None, config: RecallConfig | None = None,
               as_of: Any = None) -> RecallResult:
        """Memories related to the query: vector seeds, then spreading activation over the graph.

        Parameters
        ----------
        query : str, optional
            The question as text: embedded with the store's embedder (unless ``vector`` is
            given), searched by the BM25 keyword leg, and read for time cues ("in May 2023").
        vector : array-like of float, shape (dim,), optional
            The caller's query vector (cosine space). Give ``query``, ``vector`` or both; with
            a vector alone there is no keyword leg and no time cue.
        namespace : str
        k : int
            Number of hits, 1..10000.
        kinds : MemoryKind, str or a sequence of them, optional
            Keep only these kinds (an empty sequence is an error: it would match nothing).
        tags : str or sequence of str, optional
            Keep only memories carrying every one of these tags.
        min_confidence : float, optional
            Keep only memories with confidence >= this.
        since, until : float, datetime or ISO-8601, optional
            Keep only memories whose event time (``created_at``) lies in [since, until].
            Filters apply to the recalled candidates (vector seeds and what they activate),
            not to a scan of the namespace.
        include_superseded, include_archived : bool
            Superseded and archived memories are hidden unless asked for.
        gate : {"auto", "on", "off"}, optional
            Density gate mode; ``config.gate`` when omitted.
        reinforce : bool, optional
            Raise the salience and access count of the returned memories (one write);
            ``DecayConfig.reinforce_on_recall`` when omitted.
        now : float, optional
            Unix seconds used for salience decay and recency; the wall clock when omitted.
        config : RecallConfig, optional
            Overrides the engine's recall settings for this call.
        as_of : float, datetime or ISO-8601, optional
            Answer with what the store believed, at that record time, to be valid then
            (``engramdb.temporal``): never a memory recorded later; a superseded memory counts
            as valid up to its supersession. Naive times are UTC.

        Returns
        -------
        RecallResult
            ``hits`` best first, each with the path that activated it; ``gaps`` says when the
            best evidence is weak (negative recall) or everything was filtered out;
            ``warnings`` lists ``contradicts`` pairs touching the hits.

        Raises
        ------
        InvalidInputError, EmptyTextError, DimensionMismatchError, NonFiniteError,
        UnknownKindError, NamespaceError, ConfigError

        References
        ----------
        Collins & Loftus (1975) spreading activation; Anderson (1974) fan effect; SYNAPSE
        (arXiv:2601.02744) density gating; docs/design.md "Recall".
        """
        t_start = time.perf_counter()
        self._check_open()
        if config is not None and not isinstance(config, RecallConfig):
            raise ConfigError(f"config must be a RecallConfig, got {type(config).__name__}")
        cfg = config or self.config.recall
        if gate is not None:
            cfg = replace(cfg, gate=gate)
        ns = _check_namespace(namespace)
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 10_000:
            raise InvalidInputError(f"k: expected an integer in [1, 10000], got {k!r}")
        kind_allowed = _kind_table(kinds, "kinds")
        tag_set = _tag_set(tags)
        if min_confidence is not None:
            min_confidence = _check_fraction(min_confidence, "min_confidence")
        t_lo = -np.inf if since is None else to_unix_seconds(since, field="since")
        t_hi = np.inf if until is None else to_unix_seconds(until, field="until")
        now = time.time() if now is None else to_unix_seconds(now, field="now")
        t_as_of = None if as_of is None else to_unix_seconds(as_of, field="as_of")
        if query is None and vector is None:
            raise InvalidInputError("recall needs a query (text), a vector=, or both")
        qtext = None if query is None else self._check_text(query, field="query")
        if vector is not None:
            qvec = self._check_vector(vector, field="vector")
        else:
            qvec = self._check_vector(_embed(self.embedder, [qtext], False)[0], field="embedder output")

        index = self._indexes.get(ns)
        if index is None or len(index) == 0:
            gap = Gap(query, "empty_namespace", None, f"namespace {ns!r} holds no memories")
            return RecallResult([], [gap], "vector", 0.0, time.perf_counter() - t_start)

        # 1. seeds: the vector leg (hnswlib) and the keyword leg (BM25) fused on one scale
        labels, cos = index.knn(qvec, max(cfg.seed_k, k))
        keep = cos >= cfg.cosine_floor
        labels, cos = labels[keep], cos[keep]
        kw = self._kw.get(ns) if qtext is not None and cfg.w_keyword > 0 else None
        kw_nids, kw_score = kw.search(qtext, cfg.keyword_k) if kw is not None else (labels[:0], cos[:0])
        if len(kw_nids) and cfg.prf_terms > 0:
            kw_nids, kw_score = self._expanded_keyword_search(kw, qtext, kw_nids, cfg)
        seeds, base, seed_cos = _fuse_seeds(labels, cos, kw_nids, kw_score,
                                            lambda nids: self._similarity(qvec, nids), cfg)
        windows = self._time_windows(ns, qtext) if qtext is not None and cfg.w_time > 0 else []

        # 2. density gate, then spreading activation from the fused seeds
        density = self._ns_density(ns)
        if cfg.gate == "on" or (cfg.gate == "auto" and density >= cfg.density_threshold):
            mode, depth = "spread", cfg.max_depth
        else:
            mode, depth = "one_hop", min(1, cfg.max_depth)
        if depth == 0 or len(self._graph) == 0 or cfg.w_graph == 0:
            mode, depth = "vector", 0
        csr = self._graph.csr(self._next_nid)
        rel_mult = cfg.rel_mult
        nodes, act, parent, _hops = self._spread(
            csr.indptr, csr.indices, csr.weight, csr.relation, seeds, base, rel_mult,
            int(depth), float(cfg.decay), float(cfg.fan_exp), int(cfg.degree_cap),
            1 if cfg.combine == "sum" else 0, float(cfg.sum_cap))
        # 3. score = base + w_graph * strongest lateral pass from another activated memory
        #    (ACT-R: base-level plus spreading input); seeds keep their base, the rest start at 0
        total = np.zeros(len(nodes), np.float64)
        total[: len(seeds)] = base
        if depth > 0 and len(nodes):
            if len(self._mark) < csr.n_nodes:
                self._mark = np.full(csr.n_nodes, -1, np.int32)
            inflow, _src = self._inflow(csr.indptr, csr.indices, csr.weight, csr.relation, nodes, act,
                                        rel_mult, float(cfg.decay), float(cfg.inflow_fan_exp),
                                        int(cfg.degree_cap), self._mark)
            total += cfg.w_graph * inflow
        if self.trace is not None:   # debug hook (namespace isolation tests): off by default;
            # seeds of both legs, then every node spreading activation touched
            self.trace.append((ns, seeds.copy(), nodes.copy()))

        # filters over the column arrays
        c = self._cols
        shown = np.ones(len(STATE_BY_CODE), bool)   # lookup tables: cheaper than np.isin
        shown[_STATE_CODES[MemoryState.SUPERSEDED]] = include_superseded or t_as_of is not None
        shown[_STATE_CODES[MemoryState.ARCHIVED]] = include_archived
        mask = (c.ns[nodes] == self._ns_codes[ns]) & c.alive[nodes] & shown[c.state[nodes]]
        if t_as_of is not None:
            mask &= _temporal.as_of_mask(c.recorded_at[nodes], c.retired_at[nodes], c.valid_from[nodes],
                                         c.valid_to[nodes], t_as_of)
        if kind_allowed is not None:
            mask &= kind_allowed[c.kind[nodes]]
        if min_confidence is not None:
            mask &= c.confidence[nodes] >= min_confidence
        if since is not None or until is not None:
            mask &= (c.created_at[nodes] >= t_lo) & (c.created_at[nodes] <= t_hi)
        cand = np.flatnonzero(mask)
        cnodes = nodes[cand]
        score = total[cand]
        if windows and len(cnodes):   # 4. time cues: memories inside a named window move up
            t = c.created_at[cnodes]
            inside = np.zeros(len(cnodes), bool)
            for w in windows:
                inside |= (t >= w.start) & (t < w.end)
            score = score + cfg.w_time * inside * (score.max() if len(score) else 0.0)
        ws, wr, wc = cfg.w_salience, cfg.w_recency, cfg.w_confidence
        if len(cnodes) and (ws or wr or wc):
            blend = 1.0 - ws - wr - wc + wc * c.confidence[cnodes]
            if ws:
                blend = blend + ws * self._salience_now(cnodes, now)
            if wr:
                age = np.maximum(now - c.created_at[cnodes], 0.0)
                blend = blend + wr * np.exp2(-age / cfg.recency_half_life_s)
            score = score * blend
        score32 = score.astype(np.float32)
        # the best k (4 k when a tag filter may drop some), all of them only if that runs short
        first = self._topk(score32, k if tag_set is None else 4 * k)

        def ranked():
            yield from first.tolist()
            if len(first) < len(score32):
                yield from self._topk(score32, len(score32))[len(first):].tolist()

        sim_of = dict(zip(seeds.tolist(), seed_cos.tolist()))
        if len(self._pos) < csr.n_nodes:
            self._pos = np.zeros(csr.n_nodes, np.int32)
        self._pos[nodes] = np.arange(len(nodes), dtype=np.int32)
        hits: list[Hit] = []
        hit_nids: list[int] = []
        with self._store.read("fetching recalled memories") as txn:
            for o in ranked():
                nid = int(cnodes[o])
                rec = self._store.get_record(txn, nid)
                if rec is None:
                    continue
                if tag_set is not None and not tag_set.issubset(rec["tags"]):
                    continue
                path = self._path(nid, parent, csr, rel_mult)
                hits.append(Hit(id=rec["id"], kind=MemoryKind(rec["kind"]), text=rec["text"],
                                score=float(score[o]), activation=float(total[cand[o]]),
                                similarity=sim_of.get(nid), path=path, source=rec["source"],
                                tags=tuple(rec["tags"]), created_at=rec["created_at"],
                                confidence=rec["confidence"], state=MemoryState(rec["state"])))
                hit_nids.append(nid)
                if len(hits) >= k:
                    break

        gaps = []
        best = float(cos[0]) if len(cos) else None
        if best is None or best < cfg.weak_evidence:
            shown = "none above the cosine floor" if best is None else f"{best:.3f}"
            gaps.append(Gap(query, "weak_evidence", best,
                            f"best vector evidence {shown} < weak_evidence {cfg.weak_evidence}; "
                            "the store may not hold what this asks"))
        if not hits and len(nodes):
            gaps.append(Gap(query, "filtered_out", best, "related memories exist but none passed the filters"))
        warnings = _slots.contradiction_warnings(csr, hit_nids, c.state, c.alive, c.ext_ids,
                                                 Relation.CONTRADICTS.code) if hits else []
        if reinforce is None:
            reinforce = self.config.decay.reinforce_on_recall
        if reinforce and hits and not self.readonly:
            self._reinforce([self._nid(ns, h.id) for h in hits], now)
        return RecallResult(hits, gaps, mode, density, time.perf_counter() - t_start,
                            {"seeds": int(len(labels)), "activated": int(len(nodes))}, warnings)

    def _expanded_keyword_search(self, kw: KeywordIndex, qtext: str, first: np.ndarray,
                                 cfg: RecallConfig) -> tuple[np.ndarray, np.ndarray]:
        """BM25 again with the query plus the ``prf_terms`` most telling terms (tf x idf) of the
        first ``prf_docs`` keyword hits, each weighted ``prf_weight`` x its share of the best
        one's (pseudo-relevance feedback: Rocchio 1971; RM3, Lavrenko & Croft 2001)."""
        query = dict.fromkeys(tokenize(qtext), 1.0)
        with self._store.read("reading keyword hits") as txn:
            texts = [self._store.get_record(txn, int(n))["text"] for n in first[: cfg.prf_docs].tolist()]
        tf: dict[str, int] = {}
        for text in texts:
            for t in tokenize(text):
                if t not in query:
                    tf[t] = tf.get(t, 0) + 1
        weighted = sorted(((c * kw.idf(t), t) for t, c in tf.items()), reverse=True)[: cfg.prf_terms]
        if not weighted or weighted[0][0] <= 0:
            return first, kw.search_terms(query, cfg.keyword_k)[1][: len(first)]
        top = weighted[0][0]
        query.update({t: cfg.prf_weight * w / top for w, t in weighted})
        return kw.search_terms(query, cfg.keyword_k)

    def _similarity(self, qvec: np.ndarray, nids: np.ndarray) -> np.ndarray:
        """Cosine (float32) of ``qvec`` to the stored embeddings of ``nids`` (read from LMDB:
        faster than hnswlib's get_items for a few dozen rows)."""
        with self._store.read("reading embeddings") as txn:
            vecs = np.stack([self._store.get_vector(txn, int(n), self.dim) for n in nids.tolist()])
        return vecs @ qvec.astype(np.float32)

    def _time_windows(self, ns: str, text: str) -> list:
        """Time windows named in ``text`` ("in May 2023", "last week"), resolved against the
        newest event time of the namespace (the conversation's own clock, not the wall clock)."""
        anchor = self._ns_latest.get(ns)
        if anchor is None:
            c, n = self._cols, self._next_nid
            mask = (c.ns[:n] == self._ns_codes[ns]) & c.alive[:n]
            anchor = float(c.created_at[:n][mask].max()) if mask.any() else time.time()
            self._ns_latest[ns] = anchor
        return resolve_time_refs(text, anchor)

    def _path(self, nid: int, parent: np.ndarray, csr: CSRGraph, rel_mult: np.ndarray) -> list[PathStep]:
        """Seed -> ... -> ``nid`` from the kernel's parent links (``self._pos`` maps a node to its
        row of the kernel output); each step names the strongest edge that joins its two
        memories (the one the activation most likely crossed)."""
        pos = self._pos
        chain = [nid]
        while (p := int(parent[pos[chain[-1]]])) >= 0 and len(chain) <= 127:
            chain.append(p)
        chain.reverse()
        ext = self._cols.ext_ids
        steps = [PathStep(ext[chain[0]])]
        for u, v in zip(chain, chain[1:]):
            lo = int(csr.indptr[u])
            best_j, best = -1, -1.0
            for j in (lo + np.flatnonzero(csr.indices[lo:int(csr.indptr[u + 1])] == v)).tolist():
                strength = float(csr.weight[j]) * float(rel_mult[csr.relation[j]])
                if strength > best:
                    best_j, best = j, strength
            rel = RELATION_BY_CODE[int(csr.relation[best_j])] if best_j >= 0 else None
            steps.append(PathStep(ext[v], rel, bool(csr.forward[best_j]) if best_j >= 0 else True))
        return steps

    @retries_map_growth
    def _reinforce(self, nids: list[int], now: float) -> None:
        rate = self.config.decay.reinforce_rate
        arr = np.array(nids, np.int64)
        s_now = self._salience_now(arr, now)
        s_new = s_now + rate * (1.0 - s_now)
        with self._store.write("reinforcing recalled memories") as txn:
            for nid, s in zip(nids, s_new.tolist()):
                rec = self._store.get_record(txn, nid)
                rec["salience"], rec["salience_at"] = s, _dyn_salience.next_t0(rec["salience_at"], now)
                rec["access_count"] += 1
                rec["last_access"] = now
                self._store.put_record(txn, nid, rec)
            mem_gen = self._bump_mem_gen(txn)
        self._mem_gen = mem_gen
        self._cols.s0[arr] = s_new
        self._cols.t0[arr] = np.maximum(self._cols.t0[arr], now)   # a decision held until review stays held


def _vector_scale(cos: np.ndarray, leg_cos: np.ndarray, contrast: float) -> np.ndarray:
    """The vector leg on the fusion scale [0, 1] (float64): (cos - b) / (top - b), with top the
    best cosine of the vector leg's seeds ``leg_cos`` (best first) and b = contrast * their
    median. Memories below b keep a tiny score proportional to their cosine, so their order
    survives; ``cos`` may hold more memories than the seeds (the keyword leg's)."""
    pos = np.maximum(np.asarray(cos, np.float64), 0.0)
    if len(leg_cos) == 0:
        return np.minimum(pos, 1.0)
    top = max(float(leg_cos[0]), 0.0)
    if top <= 0.0:
        return np.zeros(len(pos))
    b = contrast * float(np.median(np.maximum(leg_cos.astype(np.float64), 0.0)))
    if top - b <= 1e-12:
        return np.ones(len(pos))
    rel = (pos - b) / (top - b)
    return np.where(rel > 0.0, np.minimum(rel, 1.0), 1e-3 * pos / top)


def _fuse_seeds(labels: np.ndarray, cos: np.ndarray, kw_nids: np.ndarray, kw_score: np.ndarray,
                similarity: Any, cfg: RecallConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeds of recall from both legs on one scale.

    base = w_vector * v + w_keyword * kw, where v is the cosine rescaled by the vector leg's own
    seeds (:func:`_vector_scale`) and kw the BM25 score over the best BM25 score of the query
    (both in [0, 1]); base is then divided by its maximum. Memories found by only one leg get
    their other score too (the cosine of a keyword hit comes from its stored vector).

    Returns
    -------
    seeds : ndarray of int32, shape (s,)
    base : ndarray of float32, shape (s,)
        In [0, 1]; the best seed is 1.
    seed_cos : ndarray of float32, shape (s,)
        Cosine of each seed to the query.
    """
    if len(kw_nids):
        extra = kw_nids[~np.isin(kw_nids, labels)]
        nids = np.concatenate([labels, extra])
        all_cos = np.concatenate([cos, similarity(extra)]) if len(extra) else cos
    else:
        nids, all_cos = labels, cos
    if len(nids) == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.float32), np.zeros(0, np.float32)
    v = _vector_scale(all_cos, cos, cfg.seed_contrast)
    base = cfg.w_vector * v
    if len(kw_nids) and cfg.w_keyword > 0:
        at = {int(x): i for i, x in enumerate(nids.tolist())}
        top = float(kw_score[0]) if kw_score[0] > 0 else 1.0
        base[[at[int(x)] for x in kw_nids.tolist()]] += cfg.w_keyword * kw_score.astype(np.float64) / top
    best = float(base.max())
    if best <= 0:   # e.g. w_vector = 0 and no keyword hit: rank by the vector leg alone
        base, best = v, 1.0
    base /= best
    return nids.astype(np.int32), base.astype(np.float32), all_cos.astype(np.float32)


def _memory_from_record(rec: dict, vec: np.ndarray | None) -> Memory:
    return Memory(id=rec["id"], namespace=rec["namespace"], kind=MemoryKind(rec["kind"]), text=rec["text"],
                  created_at=rec["created_at"], recorded_at=rec["recorded_at"],
                  confidence=rec["confidence"], salience=rec["salience"], salience_at=rec["salience_at"],
                  access_count=rec["access_count"], last_access=rec["last_access"], source=rec["source"],
                  tags=tuple(rec["tags"]), state=MemoryState(rec["state"]),
                  superseded_by=rec["superseded_by"], embedding=vec,
                  valid_from=rec.get("valid_from", rec["created_at"]), valid_to=rec.get("valid_to"),
                  retired_at=rec.get("retired_at"), subject=rec.get("subject"),
                  attribute=rec.get("attribute"), value=rec.get("value"),
                  version=len(rec.get("versions") or ()) + 1)


def _embed(embedder: Any, texts: list[str], progress: bool) -> np.ndarray:
    """Embed ``texts`` in chunks, with a progress bar when asked."""
    if embedder is None:
        raise InvalidInputError("this store has no embedder: pass vector=/embedding= explicitly")
    chunk = 256
    if not progress or len(texts) <= chunk:
        return np.asarray(embedder.embed(texts), np.float32)
    from rich.progress import track

    parts = [np.asarray(embedder.embed(texts[i:i + chunk]), np.float32)
             for i in track(range(0, len(texts), chunk), description="embedding", transient=True)]
    return np.concatenate(parts)


class _StoredEmbedder:
    """The store's own embedder, built on first use: opening a store and recalling by vector
    never imports the embedding stack (scikit-learn or a sentence model)."""

    def __init__(self, family: str, dim: int, name: str):
        self.family, self.dim, self.name = family, dim, name
        self._embedder = None

    def embed(self, texts):
        if self._embedder is None:
            from .embed import get_embedder

            built = get_embedder(self.family, self.dim)
            if built.name != self.name:
                raise ConfigError(
                    f"the store was written with embedder {self.name!r}, the default {self.family!r} "
                    f"embedder is now {built.name!r}; open the store with embedder= explicitly"
                )
            self._embedder = built
        return self._embedder.embed(texts)


def _embedder_family(embedder: Any) -> str | None:
    """"hashing" or "minilm" for the built-in embedders (so a reopen can rebuild them), else None."""
    from .embed import HashingEmbedder, MiniLMEmbedder

    if isinstance(embedder, HashingEmbedder):
        return "hashing"
    if isinstance(embedder, MiniLMEmbedder):
        return "minilm"
    return None


def open(path: str | os.PathLike, *, dim: int | None = None, embedder: Any = None,
         config: EngramConfig | None = None, create: bool = True, readonly: bool = False) -> Engram:
    """Open (or create) the engramdb store in directory ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        Store directory: an LMDB environment plus ``index/`` with one hnswlib file per namespace.
    dim : int, optional
        Embedding dimension of a new store (default: the embedder's, 384); must match an
        existing store.
    embedder : Embedder, str or None
        Object with ``dim``, ``name`` and ``embed(texts) -> float32 (n, dim)``, or a name
        ("hashing", "minilm"). When omitted, an existing store uses the embedder it recorded,
        and a new one gets ``embed.default_embedder(dim)``: all-MiniLM-L6-v2 (int8 ONNX, on
        CPU, no network) when it loads, else the hashing embedder with a warning;
        ``ENGRAMDB_EMBEDDER=hashing|minilm|auto`` changes that choice. ``stats()["embedder"]``
        names the one in use.
    config : EngramConfig, optional
    create : bool
        Create the store when missing.
    readonly : bool

    Returns
    -------
    Engram
        Use it as a context manager, or call ``close()``.

    Raises
    ------
    StoreNotFoundError
        No store at ``path`` and ``create`` is false (or ``readonly``).
    DimensionMismatchError
        ``dim`` or the embedder's dimension differs from the store's.
    InvalidInputError
        ``dim`` not a positive integer, or one the embedder cannot produce; or ``path`` is a
        directory holding other files and no store, and neither ``dim`` nor ``embedder`` says
        to create one there.
    ConfigError, BackendUnavailableError
        ``ENGRAMDB_EMBEDDER`` is not a choice, or names a model that cannot load.
    StoreLockedError, StoreCorruptedError, StoreError
    """
    from .embed import default_embedder, get_embedder

    config = config or EngramConfig()
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path: expected a directory path, got {type(path).__name__}")
    if (dim is None and getattr(embedder, "dim", None) is None and not isinstance(embedder, str)
            and not os.path.exists(os.path.join(os.fspath(path), "data.mdb"))):
        if not create or readonly or not os.path.isdir(os.fspath(path)) and os.path.exists(os.fspath(path)):
            raise StoreNotFoundError(f"no engramdb store at {os.fspath(path)!r}")
        if os.path.isdir(os.fspath(path)) and os.listdir(os.fspath(path)):
            raise InvalidInputError(
                f"{os.fspath(path)!r} holds other files and no engramdb store: open a new or empty "
                "directory, or pass dim= (or embedder=) to create the store in this one anyway"
            )
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not 1 <= dim <= 65536):
        raise InvalidInputError(f"dim: expected an integer in [1, 65536], got {dim!r}")
    if isinstance(embedder, str):
        embedder = get_embedder(embedder, dim)
    store = LmdbStore(path, map_size_bytes=config.store.map_size_bytes, sync=config.store.sync,
                      create=create, readonly=readonly)
    try:
        with store.read("reading store metadata") as txn:
            schema = store.get_meta(txn, "schema")
            stored_dim = store.get_meta(txn, "dim")
            stored_embedder = store.get_meta(txn, "embedder")
            stored_family = store.get_meta(txn, "embedder_family")
        if schema is not None and schema != SCHEMA_VERSION:
            raise StoreCorruptedError(f"store schema {schema} is not supported (this engramdb reads {SCHEMA_VERSION})")
        emb_dim = getattr(embedder, "dim", None)
        if stored_dim is None:
            if readonly:
                raise StoreCorruptedError(f"{store.path!r} is not an initialised engramdb store")
            if embedder is None:
                embedder = default_embedder(dim)
                emb_dim = embedder.dim
            dim = dim or emb_dim
            if dim is None:
                raise InvalidInputError("a new store needs dim= (or an embedder that has a dim)")
            with store.write("initialising the store") as txn:
                store.put_meta(txn, "schema", SCHEMA_VERSION)
                store.put_meta(txn, "dim", int(dim))
                store.put_meta(txn, "embedder", getattr(embedder, "name", None))
                store.put_meta(txn, "embedder_family", _embedder_family(embedder))
                store.put_meta(txn, "created_at", time.time())
        else:
            if dim is not None and dim != stored_dim:
                raise DimensionMismatchError(expected=stored_dim, got=dim, field="dim (the store's dimension)")
            dim = stored_dim
            if embedder is None and stored_family:
                embedder = _StoredEmbedder(stored_family, dim, stored_embedder)
        if embedder is not None and getattr(embedder, "dim", dim) != dim:
            raise DimensionMismatchError(expected=dim, got=embedder.dim, field="embedder.dim")
        return Engram(store, dim=int(dim), embedder=embedder, config=config, readonly=readonly)
    except EngramError:
        store.close()
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
        store.close()   # a value in the store is not what engramdb wrote
        raise StoreCorruptedError(f"store {store.path!r} is damaged: {type(exc).__name__}: {exc}") from exc
    except BaseException:
        store.close()
        raise
