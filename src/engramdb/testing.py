"""The documented test hook: a clock to freeze or advance, and read-only views of an engine.

Tests (the project's and a user's) go through the public API; what they cannot reach there
comes from here, so no test depends on private attributes that the next refactor renames.

- :class:`FakeClock` / :func:`frozen_clock`: every "now" of the engine (record times, salience
  decay, recency) comes from :func:`engramdb.validate.now`; inside ``with frozen_clock(t) as
  clock`` it is ``clock.t``, moved with ``clock.advance(seconds)``.
- :func:`store_path`, :func:`index_file`, :func:`generation`: where an engine keeps its files
  and its record generation, for crash and file-format tests.
- :func:`indexed_ids`: the ids a namespace's vector index holds (checks that erasing and
  rebuilding keep the index in step with LMDB).
- the LMDB store, the source of truth: :func:`store_digest` (a rejected write leaves it
  unchanged), :func:`entry_counts`, :func:`meta`, :func:`raw_records`;
- the in-memory state: :func:`nid_of`, :func:`columns`, :func:`graph_edges`,
  :func:`namespace_meta`, :func:`indexed_counts`, :func:`keyword_counts`,
  :func:`keyword_search` (the keyword leg of recall, with or without feedback);
- the caches of LMDB and their failures: :func:`cache_status` (which are saved, stale or were
  rebuilt at open), :func:`crash` (abandon an engine as a killed process would, optionally
  part-way through a flush), :func:`damage_snapshot`, :func:`snapshot_arrays` (what a saved
  snapshot holds).

The engine functions take an open :class:`engramdb.Engram` and only read it, except
:func:`crash` and :func:`damage_snapshot`, which act out failures.
"""
from __future__ import annotations

import hashlib
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

import msgpack
import numpy as np

from .config import RecallConfig
from .validate import use_clock

__all__ = ["FakeClock", "frozen_clock", "use_clock", "store_path", "index_file", "generation", "indexed_ids",
           "vector_index",
           "store_digest", "entry_counts", "meta", "raw_records", "nid_of", "columns", "graph_edges",
           "namespace_meta", "indexed_counts", "keyword_counts", "keyword_search", "cache_status", "CACHES",
           "crash", "damage_snapshot", "snapshot_arrays"]


class FakeClock:
    """A settable clock: ``t`` is the current time, Unix seconds."""

    def __init__(self, t: float):
        self.t = float(t)

    def __call__(self) -> float:
        return self.t

    def time(self) -> float:
        return self.t

    def advance(self, seconds: float) -> float:
        """Move the clock forward by ``seconds``; returns the new time."""
        self.t += float(seconds)
        return self.t


@contextmanager
def frozen_clock(t: float) -> Iterator[FakeClock]:
    """Run the block with the engine's clock at ``t`` (Unix seconds); yields the clock."""
    clock = FakeClock(t)
    with use_clock(clock):
        yield clock


def store_path(engine) -> str:
    """The LMDB environment directory of an open engine."""
    return engine._state.store.path


def index_file(engine, namespace: str) -> str:
    """The hnswlib index file of ``namespace`` (it may not exist before ``flush``)."""
    return engine._state.index_path(namespace)


def generation(engine) -> int:
    """The record generation (bumped once by every write that changed a record)."""
    return engine._state.mem_gen


def indexed_ids(engine, namespace: str) -> set[str]:
    """Ids of the memories the vector index of ``namespace`` can return."""
    state = engine._state
    sp = state.space(namespace)
    if sp is None or sp.index is None:
        return set()
    probe = np.ones(state.dim, np.float32) / np.sqrt(state.dim)
    labels, _ = sp.index.knn(probe, len(sp.index))
    return {state.cols.ext_ids[int(n)] for n in labels.tolist()}


# ---------------------------------------------------------------------------- the LMDB store
def vector_index(engine, namespace: str):
    """The namespace's :class:`~engramdb.index.hnsw.HnswIndex` (``knn(query, k)``), or None:
    the baseline "hnswlib alone" of the benchmarks. Read-only use."""
    sp = engine._state.space(namespace)
    return None if sp is None else sp.index


def store_digest(engine, skip_meta: Iterable[str] = ()) -> str:
    """SHA-256 (hex str) over every key and value of every LMDB sub-database, in key order.

    Equal digests before and after a call prove the call wrote nothing (a rejected write leaves
    the store byte-for-byte unchanged). Keys of the ``meta`` sub-database named in
    ``skip_meta`` (e.g. ``"rescore_last"``) are left out.
    """
    store, skip = engine._state.store, set(skip_meta)
    h = hashlib.sha256()
    with store.read("hashing the store") as txn:
        for name, db in sorted(store.dbs.items()):
            if db is None:   # an optional sub-db an older (read-only) store lacks
                continue
            for k, v in txn.cursor(db=db):
                if name == "meta" and k.decode() in skip:
                    continue
                h.update(name.encode() + b"\0" + k + b"\0" + v)
    return h.hexdigest()


def entry_counts(engine) -> dict[str, int]:
    """Entries in each LMDB sub-database, by name (``mem``, ``vec``, ``ids``, ``edges``, ...)."""
    store = engine._state.store
    with store.read("counting entries") as txn:
        return {name: int(txn.stat(db)["entries"]) for name, db in sorted(store.dbs.items()) if db is not None}


def meta(engine, name: str, default: Any = None) -> Any:
    """The value stored under ``name`` in the LMDB ``meta`` sub-database (``next_nid``,
    ``namespaces``, ``rescore_last``, ...), or ``default`` when absent."""
    store = engine._state.store
    with store.read("reading store metadata") as txn:
        return store.get_meta(txn, name, default)


def raw_records(engine) -> dict[int, dict]:
    """Every record stored in LMDB (the source of truth), as a dict nid (int) -> record (dict)."""
    store = engine._state.store
    with store.read("reading records") as txn:
        return dict(store.iter_records(txn))


# ---------------------------------------------------------------------------- in-memory state
def nid_of(engine, id: str, namespace: str = "default") -> int:
    """The internal id (nid, int) of memory ``id``: its row in :func:`columns`, its key in
    :func:`raw_records`, its label in the vector index and in ``Engram.trace``.

    Raises
    ------
    MemoryNotFoundError
    """
    return engine._state.lookup(namespace, id)


def columns(engine) -> dict[str, np.ndarray]:
    """Copies of the column arrays that ranking and filters read, one row per nid ``0..n-1``
    (erased nids included, with ``alive`` False).

    Keys: every field of :class:`~engramdb.state.columns.Columns` (``ns``, ``kind``,
    ``state``, ``alive``, ``created_at``, ``confidence``, ``s0``, ``t0``, ``recorded_at``,
    ``retired_at``, ``valid_from``, ``valid_to``; numeric arrays), plus ``namespace`` (object
    array of str: the name of ``ns``) and ``id`` (object array: the memory's id, None once
    erased).
    """
    state = engine._state
    c, n = state.cols, state.cols.n
    out = {name: getattr(c, name)[:n].copy() for name in c.FIELDS}
    names = {code: name for name, code in state.codes.items()}
    namespace = np.empty(n, dtype=object)
    namespace[:] = [names.get(int(code)) for code in c.ns[:n].tolist()]
    ids = np.empty(n, dtype=object)
    ids[:] = list(c.ext_ids[:n])
    out["namespace"], out["id"] = namespace, ids
    return out


def graph_edges(engine) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The in-memory graph's edges as copies of (source nids uint32, target nids uint32,
    relation codes uint8, weights float32), one entry per stored edge."""
    return tuple(a.copy() for a in engine._state.graph.edges())


def namespace_meta(engine, namespace: str) -> dict | None:
    """The engine's counters of ``namespace``: ``{"vgen": int, "count": int}`` (vector
    generation, which tags the index file; live memories), or None for a namespace it has never
    seen."""
    sp = engine._state.space(namespace)
    return None if sp is None else dict(sp.meta)


def indexed_counts(engine) -> dict[str, int]:
    """Vectors each namespace's hnswlib index holds (live labels), by namespace name; a
    namespace without a vector index is absent."""
    return {name: len(sp.index) for name, sp in sorted(engine._state.spaces.items()) if sp.index is not None}


def keyword_counts(engine) -> dict[str, int]:
    """Documents in each namespace's BM25 postings (the keyword leg), by namespace name."""
    return {name: len(sp.keyword) for name, sp in sorted(engine._state.spaces.items()) if sp.keyword is not None}


def keyword_search(engine, namespace: str, query: str, *, k: int = 10,
                   feedback: RecallConfig | None = None) -> list[str]:
    """Ids (list of str, best first) that the keyword leg of recall finds for ``query``.

    Without ``feedback``: the ``k`` best memories by BM25. With a :class:`RecallConfig`:
    those ``k`` are the first hits of pseudo-relevance feedback, and the result is the second
    search (query plus the ``feedback.prf_terms`` most telling terms of the first
    ``feedback.prf_docs`` hits; up to ``feedback.keyword_k`` ids), as recall runs it.
    """
    state = engine._state
    sp = state.space(namespace)
    if sp is None or sp.keyword is None:
        return []
    if feedback is None:
        nids, _ = sp.keyword.search(query, k)
    else:   # the first k hits feed back: the same prefix of the keyword_k best
        nids, _ = sp.keyword.search_prf(query, feedback.keyword_k, prf_docs=min(feedback.prf_docs, k),
                                        prf_terms=feedback.prf_terms, prf_weight=feedback.prf_weight)
    return [state.cols.ext_ids[int(n)] for n in nids.tolist()]


def cache_status(engine) -> dict[str, Any]:
    """Whether each cache of LMDB that the engine saves matches what it holds in memory.

    Returns
    -------
    dict
        ``{"columns": s, "keyword": s, "indexes": {namespace: s}}``. For the column snapshot
        and the keyword snapshot, ``s`` is ``"current"`` (the saved snapshot matches: ``flush``
        has nothing to write), ``"rebuilt"`` (built from the records at open, because the
        snapshot was missing, damaged or older than the records; until the next ``flush``) or
        ``"stale"`` (changed since it was saved). For each namespace that has a vector index,
        ``s`` is ``"current"`` (its file matches) or ``"stale"`` (rebuilt at open or changed
        since; ``flush`` saves it).
    """
    state = engine._state

    def status(gen: int, dirty: bool = False) -> str:
        if gen < 0:
            return "rebuilt"
        return "current" if gen == state.mem_gen and not dirty else "stale"

    spaces = state.spaces
    return {"columns": status(state.cols_gen),
            "keyword": status(state.kw_gen, any(sp.keyword_dirty for sp in spaces.values())),
            "indexes": {name: "stale" if sp.index_dirty else "current"
                        for name, sp in sorted(spaces.items()) if sp.index is not None}}


# ---------------------------------------------------------------------------- crashes and damage
#: The caches :meth:`Engram.flush` saves, as :func:`crash` names them.
CACHES = ("graph", "columns", "indexes", "keyword")


def crash(engine, saved: Iterable[str] = ()) -> None:
    """Abandon ``engine`` as a killed process would: close its LMDB handle without a flush and
    mark it closed (``close()`` is then a no-op). Every committed write stays in LMDB; what
    the caches held beyond their last save is lost.

    ``saved`` names the caches (of :data:`CACHES`: ``"graph"`` the CSR snapshot folding the
    edge delta, ``"columns"``, ``"indexes"`` the hnswlib files, ``"keyword"``) that the flush
    had saved when the process died; the others keep their previous saved state. Returns None.
    """
    saved = set(saved)
    if saved - set(CACHES):
        raise ValueError(f"saved: unknown caches {sorted(saved - set(CACHES))}; expected some of {CACHES}")
    state = engine._state
    if saved:
        if "graph" not in saved:
            state.delta_size = 0
        if "columns" not in saved:
            state.cols_gen = state.mem_gen
        for sp in state.spaces.values():
            if "indexes" not in saved:
                sp.index_dirty = False
            if "keyword" not in saved:
                sp.keyword_dirty = False
        if "keyword" not in saved:
            state.kw_gen = state.mem_gen
            state.kw_upgrade = False
        state.flush()
    state.store.close()
    engine._closed = True


#: Snapshot name -> LMDB sub-database, for :func:`damage_snapshot`.
_SNAPSHOTS = {"columns": "cols", "keyword": "kw"}


def damage_snapshot(engine, name: str, *, array: str | None = None, meta_key: str | None = None,
                    zero: str | None = None) -> None:
    """Damage the saved ``name`` snapshot (``"columns"`` or ``"keyword"``) in LMDB: drop it
    whole (``array``, ``meta_key`` and ``zero`` None), delete its array ``array`` (as a snapshot
    written before that column existed lacks it), delete the key ``meta_key`` of its meta (as one
    written before that key existed: the columns' ``"text_rules"``), or set every value of its
    array ``zero`` to 0 (as rules that filled none of it wrote it). The engine will not save that
    snapshot again before it closes, so the next open must detect the damage and rebuild from
    the records. Returns None.
    """
    if name not in _SNAPSHOTS:
        raise ValueError(f"name: expected one of {sorted(_SNAPSHOTS)}, got {name!r}")
    state = engine._state
    store = state.store
    with store.write(f"damaging the {name} snapshot") as txn:
        db = store.dbs[_SNAPSHOTS[name]]
        if meta_key is not None:
            meta = msgpack.unpackb(txn.get(b"meta", db=db) or msgpack.packb({}), raw=False)
            if meta.pop(meta_key, None) is None:
                raise ValueError(f"the {name} snapshot's meta holds no key {meta_key!r}")
            txn.put(b"meta", msgpack.packb(meta, use_bin_type=True), db=db)
        if zero is not None:
            buf = txn.get(zero.encode(), db=db)
            if buf is None:
                raise ValueError(f"the {name} snapshot holds no array {zero!r}")
            txn.put(zero.encode(), bytes(len(buf)), db=db)
        if array is None and meta_key is None and zero is None:
            txn.drop(db, delete=False)
        elif array is not None and not txn.delete(array.encode(), db=db):
            raise ValueError(f"the {name} snapshot holds no array {array!r}")
    if name == "columns":
        state.cols_gen = state.mem_gen
    else:
        state.kw_gen = state.mem_gen
        state.kw_upgrade = False
        for sp in state.spaces.values():
            sp.keyword_dirty = False


def snapshot_arrays(engine, name: str) -> tuple[list[str], dict]:
    """What the saved ``name`` snapshot (``"columns"`` or ``"keyword"``) holds in LMDB: the
    sorted names of its arrays and its meta (a dict; empty when nothing is saved)."""
    if name not in _SNAPSHOTS:
        raise ValueError(f"name: expected one of {sorted(_SNAPSHOTS)}, got {name!r}")
    store = engine._state.store
    with store.read(f"reading the {name} snapshot") as txn:
        db = store.dbs[_SNAPSHOTS[name]]
        if db is None:
            return [], {}
        keys = [bytes(k).decode() for k in txn.cursor(db=db).iternext(keys=True, values=False)]
        raw = txn.get(b"meta", db=db)
    return sorted(k for k in keys if k != "meta"), ({} if raw is None else msgpack.unpackb(raw, raw=False))
