"""A readers-writer lock with an update mode: many readers and at most one updater at once, or
one writer.

Used around the engine's verbs (:mod:`engramdb.concurrency`) and inside each vector index
(:mod:`engramdb.index.hnsw`). Writer-preferring: once a writer waits, new readers queue behind
it, so a stream of recalls cannot starve a write (Courtois, Heymans & Parnas, "Concurrent
control with readers and writers", CACM 1971, second problem).

The update mode (the U lock of database lock managers: Gray & Reuter, "Transaction
Processing", 1993, section 7.8) is for a writer that first prepares (validates, embeds, plans)
and then commits: it shares the lock with readers while it prepares, and only its commit takes
the lock for writing, an upgrade that waits for the readers in flight and holds back new ones.
Only one thread holds the update mode at a time, so two upgrades never wait for each other.

Every mode is re-entrant for its thread: a writer may take the lock again in any mode; an
updater may read, update again or write (the upgrade); a reader may read again. A reader that
asks to update or write would wait for itself forever, so it gets a :class:`RuntimeError`.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["RWLock"]


class RWLock:
    """Many readers or one writer; see the module docstring."""

    def __init__(self) -> None:
        # ``with self._mutex:`` enters the C lock directly: ``Condition.__enter__`` is a Python
        # frame, on whose return an asynchronous exception (Ctrl-C) could land after the lock
        # was taken and before the ``with`` holds it, leaving it locked for good (every later call
        # of the engine hung)
        self._mutex = threading.Lock()
        self._cond = threading.Condition(self._mutex)
        self._readers: dict[int, int] = {}   # thread id -> depth
        self._writer: int | None = None
        self._depth = 0
        self._waiting = 0
        self._updater: int | None = None
        self._udepth = 0   # the updater's own update and read depth

    def acquire_read(self) -> None:
        me = threading.get_ident()
        with self._mutex:
            if self._writer == me:
                self._depth += 1
                return
            if self._updater == me:   # an updater reads what it holds
                self._udepth += 1
                return
            if me in self._readers:   # re-entrant: never queue behind a waiting writer
                self._readers[me] += 1
                return
            while self._writer is not None or self._waiting:
                self._cond.wait()
            self._readers[me] = 1

    def release_read(self) -> None:
        me = threading.get_ident()
        with self._mutex:
            if self._writer == me:
                self._depth -= 1
                return
            if self._updater == me:
                self._udepth -= 1
                return
            depth = self._readers[me] - 1
            if depth:
                self._readers[me] = depth
            else:
                del self._readers[me]
                if not self._readers:
                    self._cond.notify_all()

    def acquire_write(self) -> None:
        """Raises RuntimeError when this thread holds the lock for reading. From the update mode
        this is the upgrade: it waits only for the readers."""
        me = threading.get_ident()
        with self._mutex:
            if self._writer == me:
                self._depth += 1
                return
            if me in self._readers:
                raise RuntimeError("a reader cannot take the lock for writing (it would wait for itself)")
            upgrade = self._updater == me
            self._waiting += 1
            try:
                while self._writer is not None or self._readers or (not upgrade and self._updater is not None):
                    self._cond.wait()
            finally:
                self._waiting -= 1
            self._writer, self._depth = me, 1

    def release_write(self) -> None:
        with self._mutex:
            self._depth -= 1
            if not self._depth:
                self._writer = None
                self._cond.notify_all()

    def acquire_update(self) -> None:
        """Share the lock with readers, alone among updaters and writers; see the module docstring.

        Raises RuntimeError when this thread holds the lock for reading."""
        me = threading.get_ident()
        with self._mutex:
            if self._writer == me:
                self._depth += 1
                return
            if self._updater == me:
                self._udepth += 1
                return
            if me in self._readers:
                raise RuntimeError("a reader cannot take the lock for updating (it would wait for itself)")
            while self._writer is not None or self._updater is not None or self._waiting:
                self._cond.wait()
            self._updater, self._udepth = me, 1

    def release_update(self) -> None:
        me = threading.get_ident()
        with self._mutex:
            if self._writer == me:
                self._depth -= 1
                return
            self._udepth -= 1
            if not self._udepth:
                self._updater = None
                self._cond.notify_all()

    def abandon(self) -> None:
        """Drop whatever this thread holds, at any depth: for a hold that an asynchronous
        exception (Ctrl-C landing between an acquire and its ``try``) left behind, which no
        release will ever come for (:mod:`engramdb.concurrency` calls it when a thread starts a
        verb while still holding the lock)."""
        me = threading.get_ident()
        with self._mutex:
            if self._writer == me:
                self._writer, self._depth = None, 0
            if self._updater == me:
                self._updater, self._udepth = None, 0
            self._readers.pop(me, None)
            self._cond.notify_all()

    def held(self) -> bool:
        """Whether this thread holds the lock (any mode)."""
        me = threading.get_ident()
        return self._writer == me or self._updater == me or me in self._readers

    # a plain lock's interface, as the writer side (fork hooks take it like a Lock)
    acquire = acquire_write
    release = release_write

    @contextmanager
    def read(self) -> Iterator[None]:
        """``with lock.read():`` shared."""
        self.acquire_read()
        try:
            yield
        finally:
            self.release_read()

    @contextmanager
    def update(self) -> Iterator[None]:
        """``with lock.update():`` beside readers; ``lock.write()`` inside it upgrades."""
        self.acquire_update()
        try:
            yield
        finally:
            self.release_update()

    @contextmanager
    def write(self) -> Iterator[None]:
        """``with lock.write():`` alone."""
        self.acquire_write()
        try:
            yield
        finally:
            self.release_write()

    def __enter__(self) -> "RWLock":
        self.acquire_write()
        return self

    def __exit__(self, *exc) -> None:
        self.release_write()
