"""The sentence keys recall has read, for the whole engine (:func:`engramdb.recall.seeds.sentence_cosines`).

A memory of several sentences has sentence keys in the store (``StoreConfig.sentence_keys``,
LMDB sub-database ``keys``, float16). Recall rescores about a hundred memories a query by them;
read from LMDB each time, that cost 830 µs a call at 100k memories, from memory 110 µs. This
cache keeps the keys of each nid it has read (float32, or None for a memory without keys), at
most :data:`KEYS_CACHED` memories for the whole engine, dropping the oldest past it (FIFO), so
an engine serving many namespaces holds no more than one namespace would.

The write path changes it only after a commit: a memory given keys, whose keys are replaced or
which is erased has its entry dropped (:meth:`KeyCache.forget`), a dropped namespace empties it
(:meth:`KeyCache.clear`), so no key of a former wording or of an erased memory is served or kept.
nids are never reused. Readers hold the engine's read lock while they fill it, so no write
commits between their LMDB read and the keeping; dict operations are atomic in CPython.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["KeyCache", "KEYS_CACHED"]

#: Most memories whose sentence keys the engine keeps in memory: a few KB each (about 4.6 KB for
#: three keys of 384 dimensions), so at most about 150 MB.
KEYS_CACHED = 1 << 15
_UNREAD = object()


class KeyCache:
    """nid -> sentence keys (float32, shape (s, dim)) or None (see the module docstring).

    Parameters
    ----------
    capacity : int
        Most memories kept, >= 1.
    """

    __slots__ = ("_keys", "capacity")

    def __init__(self, capacity: int = KEYS_CACHED):
        self.capacity = int(capacity)
        self._keys: dict[int, np.ndarray | None] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def get_many(self, store: Any, nids: list[int], dim: int) -> list[np.ndarray | None]:
        """The sentence keys of each of ``nids`` (float32, shape (s, dim), or None for a memory
        without keys): kept ones, the others read in one LMDB read transaction and kept.

        Raises
        ------
        StoreCorruptedError
            A stored value is damaged (:meth:`engramdb.store.lmdb_store.LmdbStore.get_keys`).
        """
        cache = self._keys
        got = [cache.get(nid, _UNREAD) for nid in nids]
        missing = list(dict.fromkeys(nid for nid, k in zip(nids, got) if k is _UNREAD))
        if not missing:
            return got
        with store.read("reading sentence keys") as txn:
            read = {nid: store.get_keys(txn, nid, dim) for nid in missing}
        for nid, k in read.items():
            read[nid] = None if k is None else k.astype(np.float32)
            if len(cache) >= self.capacity:
                try:   # the oldest entry; another reader may be evicting at the same moment
                    del cache[next(iter(cache))]
                except (KeyError, RuntimeError, StopIteration):
                    pass
            cache[nid] = read[nid]
        return [read[nid] if k is _UNREAD else k for nid, k in zip(nids, got)]

    def forget(self, nid: int) -> None:
        """Drop ``nid``'s kept keys (a committed write gave it keys, replaced or erased them)."""
        self._keys.pop(nid, None)

    def clear(self) -> None:
        """Drop every kept key (a namespace was dropped)."""
        self._keys = {}
