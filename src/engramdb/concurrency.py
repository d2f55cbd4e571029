"""Threads, processes and ``fork()``: the guard around every public verb of :class:`Engram`.

:func:`guarded` wraps each public method of the engine class so that every call

1. notices a ``fork()`` (the process id changed since the store was opened) and gives the
   child its own LMDB handle: LMDB forbids using an environment across ``fork()``
   ("Use an MDB_env* in the process which opened it, not after fork()", lmdb.h). The child
   closes its copy of the inherited handle (py-lmdb refuses a second handle on the same
   files) and opens the store read-only: writes raise :class:`StoreLockedError`, since the
   parent still holds the store's single-writer lock. The parent keeps working. A fork hook
   (``os.register_at_fork``) takes every open engine's lock just before ``fork()``, so no
   transaction of any thread is in flight in the copied memory.
2. holds the engine's readers-writer lock (:class:`~engramdb.rwlock.RWLock`): the reading verbs
   (the class's ``READ_VERBS``) share it, so readers never wait for readers. A writing verb
   holds it in update mode: beside the readers while it validates, embeds and plans, alone
   among writers; each of its write units (:func:`engramdb.write.write_unit`: the LMDB
   transaction, the index insertions and the cache changes after the commit) upgrades it to
   write, so a writer blocks readers only for its commits, and a reader never sees a cache
   half changed. The verbs in ``EXCLUSIVE_VERBS`` (which change caches outside a write unit:
   flush, close, ...) hold it alone from start to end, and so does every verb of a read-only
   engine that must reload its caches first. A reading verb that would write after all (a
   recall asked to reinforce its hits: ``READ_VERBS[name]`` names that argument) is a writing
   verb for that call. Work arrays are per thread, and the native stages (hnswlib, the
   kernels) release the GIL, so two threads recall in parallel where they leave Python.
3. for a read-only engine, reloads the caches (alone) when another process committed since
   the last call (three meta reads per call): a reader process sees every commit made before
   its call started.
4. runs the call again when the LMDB map was full and has just been grown
   (:class:`~engramdb.store.lmdb_store.MapGrownError`): the verbs validate before writing and
   touch the caches only after a commit, so a retry cannot duplicate a record.
"""
from __future__ import annotations

import functools
import inspect
import os
import threading
import weakref
from typing import Any, Callable

from .censor import enter_verb, leave_verb
from .errors import StoreError, StoreFullError
from .rwlock import RWLock
from .store.lmdb_store import LmdbStore, MapGrownError

__all__ = ["guarded", "retries_map_growth", "MAX_MAP_RETRIES"]

#: one call grows the map at most this many times (each doubles it) before giving up
MAX_MAP_RETRIES = 40

_ENGINES: "weakref.WeakSet[Any]" = weakref.WeakSet()   # open engines, for the fork hook
_HELD: list[Any] = []


def _before_fork() -> None:
    for eng in list(_ENGINES):
        lock = getattr(eng, "_lock", None)
        if lock is not None:
            lock.acquire()
            _HELD.append(lock)


def _after_fork_in_parent() -> None:
    while _HELD:
        _HELD.pop().release()


def _after_fork_in_child() -> None:
    _HELD.clear()
    for eng in list(_ENGINES):
        new_lock(eng)
        # the child's copy of the writer lock's descriptor, closed now: a flock belongs to the
        # open file that parent and child share, so a child that never calls the engine (a pool
        # worker) would otherwise keep the store locked after the parent closes it
        store = getattr(getattr(eng, "_state", None), "store", None)
        if store is not None:
            store._release_writer_lock()


def new_lock(eng: Any) -> None:
    """Give ``eng`` a fresh lock, shared with its state (whose write units upgrade it)."""
    eng._lock = RWLock()
    state = getattr(eng, "_state", None)
    if state is not None:
        state.lock = eng._lock


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)


def guarded(cls: type) -> type:
    """Class decorator: wrap every public method of ``cls`` with :func:`_guard` (see module doc)
    and register each new instance for the fork hook. ``cls.READ_VERBS`` maps each reading
    verb to None, or to the name of its argument that makes it write (``reinforce``: true, or
    None with ``DecayConfig.reinforce_on_recall`` on); ``EXCLUSIVE_VERBS`` (read off the
    instance at each call) names the writing verbs that hold the lock alone for their whole run."""
    reads = getattr(cls, "READ_VERBS", {})
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(fn):
            setattr(cls, name, _guard(fn, name in reads, reads.get(name), name))
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        new_lock(self)
        _ENGINES.add(self)
    cls.__init__ = __init__
    return cls


def retries_map_growth(fn: Callable) -> Callable:
    """Decorator for a private step that writes in its own transaction after a verb's main
    commit (CSR snapshot, reinforcement): run it again when the map was grown, so the verb
    itself is not retried after its commit."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        for _ in range(MAX_MAP_RETRIES):
            try:
                return fn(*args, **kwargs)
            except MapGrownError:
                continue
        raise StoreFullError(f"{fn.__name__}: the LMDB map grew {MAX_MAP_RETRIES} times "
                             "and the write still did not fit")
    return call


def _guard(fn: Callable, reads: bool = False, writes_if: str | None = None, name: str = "") -> Callable:
    verb = fn.__name__

    @functools.wraps(fn)
    def call(self, *args, **kwargs):
        depth = getattr(_in_verb, "depth", 0)
        if not depth and self._lock.held():   # left held by a call an interrupt cut short
            self._lock.abandon()
        token = None
        try:   # the depth is restored however the call ends, an interrupt in enter_verb included
            _in_verb.depth = depth + 1
            token = enter_verb(verb)   # censor hits are logged with the verb served
            return guarded_call(self, args, kwargs)
        finally:
            if token is not None:
                leave_verb(token)
            _in_verb.depth = depth

    def guarded_call(self, args, kwargs):
        if self._pid != os.getpid():
            _after_fork(self)
        lock = self._lock
        if self._state.stale and not self._closed and not lock.held():
            with lock.write():   # a write committed but its cache changes were cut short
                self._state.reload_if_stale()
        if reads and not (writes_if is not None and _asks_to_write(self, kwargs.get(writes_if))):
            if self.readonly and not self._closed and not lock.held():
                with lock.read():
                    changed = _changed_elsewhere(self)
                if changed:
                    with lock.write():
                        _refresh_if_changed(self)
            with lock.read():
                return _retrying(fn, self, args, kwargs)
        if self.readonly or name in self.EXCLUSIVE_VERBS:
            with lock.write():
                if self.readonly and not self._closed:
                    _refresh_if_changed(self)
                return _retrying(fn, self, args, kwargs)
        with lock.update():   # beside readers; each write unit upgrades to write for its commit
            return _retrying(fn, self, args, kwargs)
    return call


#: this thread's depth of guarded verbs: at depth 0 the thread holds no engine's lock, unless an
#: asynchronous exception cut a call short between an acquire and its release
_in_verb = threading.local()


def _asks_to_write(eng: Any, flag: Any) -> bool:
    return bool(flag) or (flag is None and eng.config.decay.reinforce_on_recall and not eng.readonly)


def _retrying(fn: Callable, eng: Any, args: tuple, kwargs: dict) -> Any:
    for _ in range(MAX_MAP_RETRIES):
        try:
            return fn(eng, *args, **kwargs)
        except MapGrownError:
            continue
    raise StoreFullError(f"{fn.__name__}: the LMDB map grew {MAX_MAP_RETRIES} times "
                         "and the call still did not fit")


def _changed_elsewhere(eng: Any) -> bool:
    if eng._closed:
        return False
    state = eng._state
    with state.store.read("checking the store for new commits") as txn:
        return state.changed_elsewhere(txn)


def _after_fork(eng: Any) -> None:
    """In a forked child: a fresh lock and a read-only LMDB handle of its own."""
    new_lock(eng)   # the parent's may have been held by a thread that is gone
    eng._forked_from, eng._pid = eng._pid, os.getpid()
    if eng._closed:
        return
    state = eng._state
    old = state.store
    try:
        old.env.close()             # the child's copy; no transaction was in flight at fork()
    except Exception:   # noqa: BLE001 - a handle LMDB cannot close is abandoned, not fatal
        pass
    old._release_writer_lock()      # the child's copy only: the parent keeps its flock
    cfg = eng.config.store
    try:
        state.store = LmdbStore(old.path, map_size_bytes=cfg.map_size_bytes, sync=cfg.sync,
                                create=False, readonly=True)
    except StoreError:
        eng._closed = True
        raise
    eng.readonly = state.readonly = True


def _refresh_if_changed(eng: Any) -> None:
    """Reload a read-only engine's caches when the store changed since they were built."""
    if _changed_elsewhere(eng):
        eng._state.load()
