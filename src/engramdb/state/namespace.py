"""One namespace's in-memory state: its vector index, keyword postings and cached figures.

An agent or user's memories live in one namespace. Its :class:`Namespace` owns everything the
engine keeps for it between calls (as a Chroma segment owns its collection's data):

- ``index``: the hnswlib index of its vectors (a cache of LMDB, saved under ``DIR/index/``);
- ``keyword``: the BM25 postings (a cache of LMDB, saved as one snapshot with the others);
- ``meta``: the persisted counters, ``vgen`` (vector generation, tags the index file) and
  ``count`` (live memories);
- ``density`` and ``latest``: the density gate's input and the clock of its time cues
  (:meth:`EngineState.cue_clock`), computed on first use and dropped when a committed write
  changes them;
- ``index_dirty`` / ``keyword_dirty``: what :meth:`EngineState.flush` must save;
- ``slots``: its slot table, (subject, attribute) -> the nids that ever filled that slot (a
  cache of LMDB's ``slot:`` meta entries, read on first use and kept in step by committed
  writes);
- ``keys``: the sentence keys recall has read (:meth:`Namespace.sentence_keys`), nid -> float32
  (s, dim) or None (a memory without keys); a committed write that gives a memory keys, changes
  or erases them drops its entry.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..slots import canonical_subject

__all__ = ["Namespace", "KEYS_CACHED"]

#: Most memories whose sentence keys a namespace keeps in memory (FIFO past it): a few KB each.
KEYS_CACHED = 1 << 15
_UNREAD = object()


@dataclass(eq=False)
class Namespace:
    """In-memory state of one namespace (see the module docstring).

    Attributes
    ----------
    name : str
    code : int
        The namespace's code in the column arrays (``Columns.ns``).
    meta : dict
        ``{"vgen": int, "count": int}`` as persisted in the store's ``namespaces`` meta.
    index : HnswIndex or None
        None until the namespace holds a vector.
    keyword : KeywordIndex
    density : float or None
        Edges per linked node (None: not computed since the last change).
    latest : float or None
        The clock of its relative time cues (:meth:`EngineState.cue_clock`: its newest event
        time when stored after the fact, else +inf), Unix seconds (None: not computed).
    index_dirty, keyword_dirty : bool
    slots : dict of (str, str) -> ndarray of int64, or None
        The slot table (None: not read yet); see :meth:`EngineState.slot_table`.
    keys : dict of int -> ndarray of float32 (s, dim) or None
        Sentence keys read so far (:meth:`sentence_keys`).
    """

    name: str
    code: int
    meta: dict = field(default_factory=lambda: {"vgen": 0, "count": 0})
    index: Any = None
    keyword: Any = None
    density: float | None = None
    latest: float | None = None
    index_dirty: bool = False
    keyword_dirty: bool = False
    slots: dict | None = None
    keys: dict = field(default_factory=dict)

    def sentence_keys(self, store: Any, nids: list[int], dim: int) -> list[np.ndarray | None]:
        """The sentence keys of each of ``nids`` (float32, shape (s, dim), or None for a memory
        without keys), from :attr:`keys` or read in one LMDB read transaction for those not
        there yet (and kept, at most :data:`KEYS_CACHED` memories). Callers hold the engine's
        read lock, so no write commits between the read and the keeping.

        Raises
        ------
        StoreCorruptedError
            A stored value is damaged.
        """
        cache = self.keys
        got = [cache.get(nid, _UNREAD) for nid in nids]
        missing = [nid for nid, k in zip(nids, got) if k is _UNREAD]
        if not missing:
            return got
        with store.read("reading sentence keys") as txn:
            read = {nid: store.get_keys(txn, nid, dim) for nid in missing}
        for nid, k in read.items():
            read[nid] = None if k is None else k.astype(np.float32)
            if len(cache) >= KEYS_CACHED:
                try:   # the oldest entry; another reader may be evicting at the same moment
                    del cache[next(iter(cache))]
                except (KeyError, RuntimeError, StopIteration):
                    pass
            cache[nid] = read[nid]
        return [read[nid] if k is _UNREAD else k for nid, k in zip(nids, got)]

    def forget_keys(self, nid: int) -> None:
        """Drop ``nid``'s kept sentence keys (a committed write gave it keys, changed or erased
        them): the next recall reads them again."""
        self.keys.pop(nid, None)

    def slot_member(self, subject: str, attribute: str, nid: int, joined: bool) -> None:
        """Keep a loaded slot table in step with a committed write: ``nid`` joined (or left)
        slot (subject, attribute) (the stored subject: the table's is canonical). An unloaded table
        is left to be read on first use."""
        if self.slots is None:
            return
        key = (canonical_subject(subject), attribute)
        nids = self.slots.get(key, np.zeros(0, np.int64))
        if joined and nid not in nids:
            self.slots[key] = np.append(nids, np.int64(nid))
        elif not joined and nid in nids:
            rest = nids[nids != nid]
            if len(rest):
                self.slots[key] = rest
            else:
                del self.slots[key]

    @property
    def count(self) -> int:
        """Live memories, as persisted."""
        return int(self.meta["count"])
