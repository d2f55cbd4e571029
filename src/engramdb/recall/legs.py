"""The keyword leg beside the vector leg: one worker thread runs it while hnswlib searches.

A recall from text has two independent searches before fusion: hnswlib's nearest neighbours
(the vector leg) and BM25 with pseudo-relevance feedback (the keyword leg). Both are native
calls that release the GIL (hnswlib's search; the ``bm25_search`` kernel), so on a machine
with two or more cores they can overlap: :func:`start` hands the keyword leg to a worker
thread, the recall's own thread searches hnswlib meanwhile, and :meth:`Pending.result`
collects the keyword leg's answer (or re-raises its exception). The answer is the one the
same call would give on the recall's own thread: the worker only runs it earlier.

One worker per process, started on first use (a daemon thread named ``engramdb-legs``), runs
one leg at a time. A second recall that finds it busy (another thread's recall), a process
allowed only one core, or ``RecallConfig.parallel_legs = False`` run the leg inline, as
before. The recall's thread holds the engine's read lock until it has collected the result,
so no write commits while the leg reads the keyword index. After ``fork()`` the child starts
a worker of its own on first use (the parent's thread does not exist there).
"""
from __future__ import annotations

import os
import queue
import threading
from typing import Any, Callable

__all__ = ["start", "Pending", "available"]


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

    __slots__ = ("fn", "args", "_claim", "_done", "_value", "_error", "_busy")

    def __init__(self, fn: Callable[..., Any], args: tuple, busy: threading.Lock) -> None:
        self.fn, self.args = fn, args
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
            self._value = self.fn(*self.args)
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


def start(fn: Callable[..., Any], *args: Any) -> Pending | None:
    """Run ``fn(*args)`` on the worker thread; None when the worker is busy with another
    recall's leg or the process has a single core (the caller then runs it inline)."""
    global _worker
    if _CORES < 2:
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
    global _worker, _start_lock
    _worker = None
    _start_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker)
