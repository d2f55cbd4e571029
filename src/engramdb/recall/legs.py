"""The text's leg beside the vector leg: one worker thread runs it while hnswlib searches.

A recall from text has two independent parts before fusion: hnswlib's nearest neighbours
(the vector leg) and what the question's text gives (BM25 with pseudo-relevance feedback, its
memories' cosines, time windows, slot cues: :func:`engramdb.recall.seeds._text_leg`). hnswlib
releases the GIL and so does the BM25 kernel, so on a machine with two or more cores they can
overlap: :func:`start` hands the text's leg to a worker thread, the recall's own thread
searches hnswlib meanwhile, and :meth:`Pending.result` collects the answer (or re-raises its
exception). The answer is the one the same call would give on the recall's own thread: the
worker only runs it earlier, in a copy of the caller's context (``contextvars``: the verb being
served, which censor hits name).

One worker per process, started on first use (a daemon thread named ``engramdb-legs``), runs
one leg at a time. A second recall that finds it busy, a process allowed only one core, a
machine with no spare core (:func:`spare_core`: its load average), another recall of the
process in flight (:class:`recalling`: threads sharing engines keep the cores busy
themselves) or ``RecallConfig.parallel_legs = False`` run the leg inline, as before. The
recall's thread holds the engine's read lock until it has collected the result, so no write
commits while the leg reads the indexes. After ``fork()`` the child starts a worker of its own
on first use (the parent's thread does not exist there).
"""
from __future__ import annotations

import contextvars
import os
import queue
import threading
import time
from typing import Any, Callable

__all__ = ["start", "recalling", "Pending", "available", "spare_core", "LOAD_TTL_S"]


def _cores() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Pending:
    """A leg handed to the worker. Whoever claims it first runs it: the worker when it gets to
    it, or the recall's own thread in :meth:`result` when the worker has not started it yet (a
    busy machine that has not scheduled the worker), so a recall never waits for a thread that
    is not running. :meth:`result` returns (or raises) what the call returned (or raised)."""

    __slots__ = ("fn", "args", "_context", "_claim", "_done", "_value", "_error", "_busy")

    def __init__(self, fn: Callable[..., Any], args: tuple, busy: threading.Lock) -> None:
        self.fn, self.args = fn, args
        # the caller's context variables (the verb being served, for censor hits) go with it
        self._context = contextvars.copy_context()
        self._claim = threading.Lock()   # taken by whichever thread runs the call
        self._done = threading.Lock()
        self._done.acquire()   # released by the worker when the call returned
        self._value: Any = None
        self._error: BaseException | None = None
        self._busy = busy

    def _run_on_worker(self) -> None:
        if not self._claim.acquire(blocking=False):
            return   # the recall's thread took it back
        try:
            self._value = self._context.run(self.fn, *self.args)
        except BaseException as exc:   # handed to the caller, raised on its thread
            self._error = exc
        finally:
            self._done.release()

    def result(self) -> Any:
        """The call's return value; its exception is raised here. Runs the call on this thread
        when the worker has not started it."""
        if self._claim.acquire(blocking=False):   # not started: run it here
            self._busy.release()
            return self.fn(*self.args)
        self._done.acquire()
        self._busy.release()   # the worker is free for the next leg
        error, value, self._error, self._value = self._error, self._value, None, None
        if error is not None:
            raise error
        return value

    def discard(self) -> None:
        """Drop the call (the recall failed before it needed it): run by nobody if not started,
        else waited for; the worker is free again and nothing of the call outlives the recall."""
        if not self._claim.acquire(blocking=False):
            self._done.acquire()
        self._busy.release()
        self._value = self._error = None


class _Worker:
    """The process's worker thread and its job queue."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.busy = threading.Lock()   # held from start() until result(): one leg at a time
        self.thread = threading.Thread(target=self._loop, name="engramdb-legs", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.jobs.get()._run_on_worker()


_worker: _Worker | None = None
_start_lock = threading.Lock()
_CORES = _cores()


def available() -> bool:
    """Whether legs can run side by side here (two or more cores for this process)."""
    return _CORES >= 2


#: Seconds a reading of the load average is reused (:func:`spare_core`).
LOAD_TTL_S = 1.0
_load = [-1.0, 0.0]   # [time read (monotonic), 1-minute load average]


def spare_core() -> bool:
    """Whether a core is likely free for the worker: the 1-minute load average (re-read at most
    once per :data:`LOAD_TTL_S` seconds) is below the process's cores minus a half. On a machine
    whose cores are all busy (other processes, or several threads of this one recalling), a
    handed-off leg waits for the scheduler to run the worker, and the recall waits with it:
    measured at load 3.5 on 2 cores, recall from text took 250 µs longer with the legs side by
    side. Always True where the load average cannot be read."""
    now = time.monotonic()
    if now - _load[0] > LOAD_TTL_S:
        try:
            _load[1] = os.getloadavg()[0]
        except (AttributeError, OSError):
            _load[1] = 0.0
        _load[0] = now
    return _load[1] < _CORES - 0.5


_active = [0]   # recalls of this process in flight (:func:`recalling`)
_active_lock = threading.Lock()


class recalling:
    """Context manager around one recall: while more than one recall of this process is in
    flight (threads sharing engines), :func:`start` hands off nothing, since their threads
    already keep the cores busy and a third thread would only add switches (measured: 2 threads
    recalling at 100k fell from 1.00x to 0.79x the throughput of one when both handed off)."""

    __slots__ = ()

    def __enter__(self) -> None:
        with _active_lock:
            _active[0] += 1

    def __exit__(self, *exc: Any) -> None:
        with _active_lock:
            _active[0] -= 1


def start(fn: Callable[..., Any], *args: Any) -> Pending | None:
    """Run ``fn(*args)`` on the worker thread; None when the worker is busy with another
    recall's leg, another recall of this process is in flight (:class:`recalling`), the process
    has a single core or no core is spare (:func:`spare_core`): the caller then runs it inline."""
    global _worker
    if _CORES < 2 or _active[0] > 1 or not spare_core():
        return None
    worker = _worker
    if worker is None:
        with _start_lock:
            if _worker is None:
                _worker = _Worker()
            worker = _worker
    if not worker.busy.acquire(blocking=False):
        return None
    job = Pending(fn, args, worker.busy)
    worker.jobs.put(job)
    return job


def _forget_worker() -> None:
    """In a forked child: the parent's worker thread does not exist here."""
    global _worker, _start_lock, _active_lock
    _worker = None
    _start_lock = threading.Lock()
    _active_lock = threading.Lock()   # no recall is in flight in a new child
    _active[0] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker)
