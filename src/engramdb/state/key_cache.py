"""The sentence keys recall has read, for the whole engine (:func:`engramdb.recall.seeds.sentence_cosines`).

A memory of several sentences has sentence keys in the store (``StoreConfig.sentence_keys``,
LMDB sub-database ``keys``, float16). Recall rescores about a hundred memories a query by them;
read from LMDB each time, that cost 830 µs a call at 100k memories. This cache keeps the keys of
each nid it has read in one arena, a float32 matrix with each memory's keys in consecutive rows,
and two columns by nid: the first row and the number of keys (0: a memory without keys, its
first row -1 while unread). The rescoring kernel reads the arena in place
(:func:`engramdb.kernels.reference.sentence_lift`): no per-query gathering.

Bound: :data:`KEY_BYTES_CACHED` of keys for the whole engine (the matrix grows by doubling up to
it; a copy while it grows), so an engine serving many namespaces holds no more than one would.
When a read would pass it, the arena starts anew with the asking recall's memories only (one
query's worth may exceed it; nothing else stays).

The write path changes it only after a commit: a memory whose keys are replaced, or which is
erased, is marked unread (:meth:`KeyCache.forget`), a dropped namespace empties it
(:meth:`KeyCache.clear`), so no key of a former wording or of an erased memory is served; the
rows it held stay until the arena starts anew. nids are never reused.

Concurrency: readers hold the engine's read lock, so no write commits while they read; readers
filling it take the cache's own lock. A reader's :class:`KeyArena` stays valid while others
fill: in place they only write rows past the ones in use, then mark the nids that were unread
as held there; growing any of the three arrays, or starting anew, makes three new ones.
"""
from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

__all__ = ["KeyArena", "KeyCache", "KEY_BYTES_CACHED"]

#: Most bytes of sentence keys the engine keeps in memory (float32 rows): at 384 dimensions,
#: about 87,000 keys, some 29,000 memories of three sentences.
KEY_BYTES_CACHED = 128 << 20
_FIRST_ROWS = 1024


class KeyArena(NamedTuple):
    """The kept sentence keys, as :func:`engramdb.kernels.reference.sentence_lift` reads them.

    Fields
    ------
    keys : ndarray of float32, shape (r, dim)
        Rows of keys (unit length); rows past the ones in use are unset.
    start : ndarray of int64, shape (N,)
        First row of each nid's keys; -1: not read (or forgotten).
    count : ndarray of int32, shape (N,)
        How many keys each nid has (0: none, or not read).
    """

    keys: np.ndarray
    start: np.ndarray
    count: np.ndarray


def _empty(dim: int, rows: int, nodes: int) -> KeyArena:
    return KeyArena(np.empty((rows, dim), np.float32), np.full(nodes, -1, np.int64), np.zeros(nodes, np.int32))


class KeyCache:
    """The arena of sentence keys recall has read (see the module docstring).

    Parameters
    ----------
    capacity : int
        Bytes of keys kept at most, >= 1 (soft: one recall's memories are always held).
    """

    __slots__ = ("_view", "_used", "_lock", "capacity")

    def __init__(self, capacity: int = KEY_BYTES_CACHED):
        self.capacity = int(capacity)
        self._view: KeyArena | None = None
        self._used = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many memories are kept (with keys or known to have none)."""
        view = self._view
        return 0 if view is None else int(np.count_nonzero(view.start >= 0))

    def arena(self, store: Any, nids: np.ndarray, dim: int) -> KeyArena:
        """The arena, holding the keys of every one of ``nids`` (int64, shape (n,), >= 0): kept
        ones as they are, the others read in one LMDB read transaction and appended.

        Raises
        ------
        StoreCorruptedError
            A stored value is damaged (:meth:`engramdb.store.lmdb_store.LmdbStore.get_keys`).
        """
        view = self._view
        if view is not None and self._holds(view, nids, dim):
            return view
        with self._lock:
            view = self._view
            if view is None or view.keys.shape[1] != dim:
                view, self._used = _empty(dim, _FIRST_ROWS, 0), 0
            unique = np.unique(nids)
            inside = unique[unique < len(view.start)]
            missing = np.setdiff1d(unique, inside[view.start[inside] >= 0], assume_unique=True).tolist()
            if not missing:
                return view
            with store.read("reading sentence keys") as txn:
                read = [store.get_keys(txn, nid, dim) for nid in missing]
            need = sum(len(k) for k in read if k is not None)
            if (self._used + need) * dim * 4 > self.capacity and self._used:
                missing, read, need = self._start_anew(view, unique, missing, read)
                view, self._used = _empty(dim, max(need, _FIRST_ROWS), 0), 0
            view = self._append(view, missing, read, need, dim)
            self._view = view
            return view

    @staticmethod
    def _holds(view: KeyArena, nids: np.ndarray, dim: int) -> bool:
        if view.keys.shape[1] != dim:
            return False
        if not len(nids):
            return True
        return int(nids.max()) < len(view.start) and bool((view.start[nids] >= 0).all())

    @staticmethod
    def _start_anew(view: KeyArena, unique: np.ndarray, missing: list, read: list) -> tuple[list, list, int]:
        """The asking recall's memories (``unique``) with their keys, kept ones copied out of
        ``view``, for an arena started anew."""
        got = dict(zip(missing, read))
        keys, start, count = view
        nids, rows = [], []
        for nid in unique.tolist():
            if nid in got:
                k = got[nid]
            else:
                m = int(count[nid])
                k = keys[start[nid]:start[nid] + m].copy() if m else None
            nids.append(nid)
            rows.append(k)
        return nids, rows, sum(len(k) for k in rows if k is not None)

    def _append(self, view: KeyArena, nids: list, read: list, need: int, dim: int) -> KeyArena:
        """``view`` with the keys of ``nids`` (``read``: float16/float32 (s, dim) or None) added
        past the rows in use: in place when every array has room, else in new arrays, all three
        (a view handed out never gains a nid whose rows it lacks: helper-249 found a reader's
        view, its matrix replaced by a grown one, holding nids whose rows were only in the new)."""
        keys, start, count = view
        used = self._used
        top = max(nids) + 1
        if used + need > len(keys) or top > len(start):
            if used + need > len(keys):   # doubled, up to the bound (or this recall's need)
                rows = max(used + need, min(2 * len(keys), self.capacity // (4 * dim)))
                grown = np.empty((rows, dim), np.float32)
                grown[:used] = keys[:used]
                keys = grown
            size = max(top, 2 * len(start)) if top > len(start) else len(start)
            start = np.concatenate([start, np.full(size - len(start), -1, np.int64)])
            count = np.concatenate([count, np.zeros(size - len(count), np.int32)])
        for nid, k in zip(nids, read):   # rows first, then the columns that point at them
            m = 0 if k is None else len(k)
            if m:
                keys[used:used + m] = k
            count[nid] = m
            start[nid] = used
            used += m
        self._used = used
        return KeyArena(keys, start, count)

    def forget(self, nid: int) -> None:
        """Mark ``nid``'s keys unread (a committed write replaced or erased them)."""
        view = self._view
        if view is not None and nid < len(view.start):
            view.start[nid] = -1
            view.count[nid] = 0

    def clear(self) -> None:
        """Drop every kept key (a namespace was dropped)."""
        with self._lock:
            self._view, self._used = None, 0
