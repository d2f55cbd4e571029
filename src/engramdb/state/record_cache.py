"""Decoded records of recently recalled memories, valid for one record generation.

Recall reads the records of its hits from LMDB (a B-tree lookup, a msgpack decode and the
record check, about 10 µs each); the hits of the queries an agent asks repeat often. This cache
keeps the decoded, checked record of each nid it has served, tagged with the record generation
(``EngineState.mem_gen``) it was read under: a committed write unit that changes any record
bumps the generation, and the next lookup then finds the cache stale and empties it, so a cached
record is never older than the store (the write path changes the cache only after a commit, by
bumping the generation). Bounded: past ``capacity`` entries the oldest is dropped (FIFO; readers
adding at the same moment may each leave one more).

Readers share it (recall holds the engine's read lock; dict operations are atomic in CPython).
A reader stores a record only when the generation it captured before opening its LMDB read
transaction is still the current one, so a record read from a snapshot older than the last
commit is never kept under the newer generation.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..store.lmdb_store import LmdbStore

__all__ = ["RecordCache"]


class RecordCache:
    """nid -> decoded record for one record generation (see the module docstring).

    Parameters
    ----------
    capacity : int
        Most records kept, >= 1 (a record is a few hundred bytes to a few KB).
    """

    __slots__ = ("_gen", "_recs", "capacity")

    def __init__(self, capacity: int = 65_536):
        self.capacity = int(capacity)
        self._gen = -1
        self._recs: dict[int, dict | None] = {}

    def __len__(self) -> int:
        return len(self._recs)

    def valid_for(self, gen: int) -> dict[int, dict | None]:
        """The cached records when they belong to record generation ``gen``; else empties the
        cache, adopts ``gen`` and returns the (empty) table; for a generation older than the
        cache's (a reader that started before the last commit) a throwaway empty table. Never
        write into the table."""
        if gen != self._gen:
            if gen < self._gen:
                return {}
            self._recs = {}
            self._gen = gen
        return self._recs

    def get(self, store: LmdbStore, txn: Any, nid: int, gen: int, table: dict | None = None,
            derive: Callable[[dict], Any] | None = None) -> Any:
        """The record of ``nid`` (None for an erased nid), from the cache or read with ``txn``;
        with ``derive``, what ``derive(record)`` makes of it (computed once per record and
        generation: one cache serves one ``derive``, recall's hit rows).

        Parameters
        ----------
        store : LmdbStore
        txn : lmdb.Transaction
            A read transaction opened after ``gen`` was read.
        nid : int
        gen : int
            ``EngineState.mem_gen`` read before ``txn`` was opened.
        table : dict, optional
            :meth:`valid_for` of ``gen``, when the caller already has it (saves the check per nid).
        derive : callable dict -> object, optional
            Applied to a record that exists; must not change it.

        Returns
        -------
        dict, object or None
            The checked record (or what ``derive`` made of it); callers must not change it (it
            is shared).

        Raises
        ------
        StoreCorruptedError
            The stored record is damaged (:func:`engramdb.store.checks.check_record`).
        """
        recs = self.valid_for(gen) if table is None else table
        try:
            return recs[nid]
        except KeyError:
            pass
        rec = store.get_record(txn, nid)
        if rec is not None and derive is not None:
            rec = derive(rec)
        if self._gen == gen and recs is self._recs:   # no commit since gen was read
            if len(recs) >= self.capacity:
                try:   # the oldest entry; another reader may be evicting at the same moment
                    del recs[next(iter(recs))]
                except (KeyError, RuntimeError, StopIteration):
                    pass
            recs[nid] = rec
        return rec
