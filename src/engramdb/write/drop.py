"""Dropping a namespace: one write unit that erases it, then a compaction of the store file.

``Engram.drop_namespace`` hands off here. The erasure itself is
:meth:`~engramdb.write.unit.WriteUnit.erase_namespace` (one LMDB transaction); what it cannot do
inside a transaction follows it:

1. before the unit: refuse when another process has the store open (the file is rewritten at
   the end, which needs the store to itself), and leave the ``compact.pending`` marker, so that
   a crash after the commit is completed at the next writable open;
2. the unit: records, vectors, ids, keys, slots, edges, log entries, meta and the hnswlib
   files of the namespace;
3. a flush: the keyword and column snapshots are written again without the namespace;
4. :meth:`~engramdb.store.lmdb_store.LmdbStore.compact`: LMDB leaves freed pages as they were,
   so the erased bytes are still in ``data.mdb`` until a copy of its live keys and values
   into a new environment replaces it (LMDB's own compacting copy is not enough; see there).
"""
from __future__ import annotations

from ..concurrency import retries_map_growth
from ..errors import StoreLockedError
from ..state import EngineState
from ..wording import count as counted
from .unit import write_unit

__all__ = ["drop_namespace"]


def drop_namespace(state: EngineState, name: str, now: float) -> dict[str, int]:
    """Erase namespace ``name`` and every byte of it from the store's files.

    Parameters
    ----------
    state : EngineState
        A writable engine's state.
    name : str
        A checked namespace name.
    now : float
        Record time of the write, Unix seconds.

    Returns
    -------
    dict
        ``{"memories": m, "pieces": p}`` (int): memories erased, any state, a memory stored as
        pieces counted once, and the pieces after their first, apart (as ``Engram.stats``).

    Raises
    ------
    NamespaceError
        The store holds no namespace ``name``; nothing is written.
    StoreLockedError
        Another process has the store open: nothing is written. Or one opened it while the
        namespace was being erased: the namespace is gone but the file is not compacted yet
        (the message says so; the next writable open or ``compact()`` finishes it).
    StoreFullError, StoreError
    """
    if state.space(name) is None:
        raise state.unknown_namespace(name)
    store = state.store
    if store.attached_elsewhere():
        raise StoreLockedError(
            f"store {store.path!r} is open in another process (read-only): drop_namespace rewrites the "
            "store file to remove the erased bytes, which needs the store to itself; close the other "
            "processes and call it again (nothing was changed)")
    store.mark_compaction_pending()
    with write_unit(state, f"dropping namespace {name!r}", now, verb="drop_namespace") as unit:
        counts = unit.erase_namespace(name)
    retries_map_growth(state.flush)()
    try:
        store.compact()
    except StoreLockedError as exc:
        raise StoreLockedError(f"namespace {name!r} was dropped ({counted(counts['memories'], 'memory')} "
                               f"erased), but {exc}") from exc
    return counts
