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
  writes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..slots import canonical_subject

__all__ = ["Namespace"]


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
