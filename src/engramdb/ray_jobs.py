"""Batch jobs fanned out across shards on Ray: a writer actor per shard, read-only readers.

Install with ``pip install engramdb[ray]``; this module imports Ray, and nothing else in
engramdb imports this module (``import engramdb`` never loads Ray).

Model (Moritz et al., 2018, "Ray: A Distributed Framework for Emerging AI Applications", OSDI,
section 3: actors hold state, tasks are stateless):

- Each shard has one writer, a :class:`ShardWriter` actor that opens the shard's store
  writable and owns it (the store's writer lock is held by the actor's process, so the
  one-writer-per-store rule holds across the cluster). Write jobs (``rescore``,
  ``consolidate``, ``admit``) run their units as calls on the shard's actor; calls to one actor
  run in the order they were sent, so a namespace's admission chunks commit in stream order.
  Actors reserve no CPU (``num_cpus=0``): they idle between jobs, and the driver bounds how many
  units run at once (``workers``).
- Read jobs (``export``, ``locomo``) run as Ray tasks that open the shard read-only, in any
  worker, after the live writers have flushed their indexes.
- Each unit is executed by :func:`engramdb.jobs.execute_unit`, the function the sequential
  runner uses, so both record the same journal and return the same result. A worker that dies
  mid-job loses only its unfinished unit: the others finish, the job raises
  :class:`~engramdb.jobs.JobIncompleteError`, and running the same ``job_id`` again (a new actor
  replaces the dead one) does the rest.

Progress: a rich progress bar over units (``progress=True``) and/or a callback per finished unit.
"""
from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .errors import BackendUnavailableError

try:
    import ray
except ModuleNotFoundError as exc:   # the optional extra: say which one, as the MCP server does
    raise BackendUnavailableError(f"engramdb.ray_jobs needs Ray ({exc}); install the extra: "
                                  "pip install 'engramdb[ray]'") from exc

from . import jobs
from .sharding import ShardedEngram, read_manifest

__all__ = ["RayShards", "ShardWriter", "run"]


class ShardWriter:
    """The writer of one shard: opens its store writable and runs job units on it.

    Made as a Ray actor by :class:`RayShards` (``ray.remote(num_cpus=0)(ShardWriter)``).

    Parameters
    ----------
    root : str
        The sharded deployment.
    shard : int
        The shard this actor owns.
    lock_timeout_s : float
        Seconds to wait for the store's writer lock (a writer that just died may still hold it
        for a moment).
    """

    def __init__(self, root: str, shard: int, lock_timeout_s: float = 30.0):
        from .engine import open as open_store

        self.root = root
        self.shard = shard
        manifest = read_manifest(root)
        self.engine = open_store(os.path.join(root, manifest["shards"][shard]), create=False,
                                 lock_timeout_s=lock_timeout_s)
        self._journals: dict[str, jobs.ShardJournal] = {}
        self._units_done = 0

    def pid(self) -> int:
        """The actor's process id."""
        return os.getpid()

    def run_unit(self, job_id: str, kind: str, params: dict, unit: jobs.Unit,
                 crash: Mapping[str, Any] | None = None) -> dict:
        """Execute ``unit`` of job ``job_id`` (see :func:`engramdb.jobs.execute_unit`).

        ``crash`` is a testing hook: ``{"after_units": n, "point": "after_commit"|"after_record"}``
        ends this process (``os._exit(1)``, as a killed worker would) at that point of its
        ``n``-th unit of this job (1-based).
        """
        journal = self._journals.get(job_id)
        if journal is None:
            journal = self._journals[job_id] = jobs.ShardJournal(self.root, job_id, self.shard)
        hook = None
        self._units_done += 1
        if crash is not None and self._units_done == int(crash["after_units"]):
            def hook(point: str) -> None:
                if point == crash["point"]:
                    os._exit(1)
        return jobs.execute_unit(self.engine, self.root, job_id, kind, params, unit, journal, crash=hook)

    def flush(self) -> None:
        """Save the shard's indexes, so that read-only readers load them instead of rebuilding."""
        self.engine.flush()

    def close(self) -> None:
        """Close the store (releasing its writer lock)."""
        self.engine.close()


def _read_unit(root: str, job_id: str, kind: str, params: dict, unit: jobs.Unit) -> dict:
    """A read job's unit in a Ray task: open the shard read-only, execute, close."""
    from .engine import open as open_store

    path = os.path.join(root, read_manifest(root)["shards"][unit.shard])
    with open_store(path, readonly=True) as eng:
        return jobs.execute_unit(eng, root, job_id, kind, params, unit, jobs.ShardJournal(root, job_id, unit.shard))


class RayShards:
    """A sharded deployment served by Ray: one :class:`ShardWriter` actor per shard, made on
    first use and kept until :meth:`close`. Use it as a context manager.

    Parameters
    ----------
    root : str, os.PathLike or ShardedEngram
        The deployment (a ShardedEngram is only read for its root: close it first if it has
        written, since the actors need each shard's writer lock).
    workers : int
        Units running at once (default 2).
    init : dict, optional
        Arguments for ``ray.init`` when Ray is not running yet (default: ``num_cpus=workers``,
        no dashboard, worker logs not sent to the driver). A running Ray (``ray.init`` called
        before, or ``address=`` of a cluster in ``init``) is used as it is.

    Raises
    ------
    StoreNotFoundError, StoreCorruptedError
        ``root`` is not a sharded deployment.
    """

    def __init__(self, root: str | os.PathLike | ShardedEngram, *, workers: int = 2,
                 init: Mapping[str, Any] | None = None):
        from .validate import check_int

        self.root = os.path.abspath(root.root if isinstance(root, ShardedEngram) else os.fspath(root))
        self.manifest = read_manifest(self.root)
        self.n_shards = int(self.manifest["n_shards"])
        self.workers = check_int(workers, "workers", 1, 4096)
        if not ray.is_initialized():
            ray.init(**{"num_cpus": self.workers, "include_dashboard": False, "log_to_driver": False,
                        **dict(init or {})})
        self._actor = ray.remote(num_cpus=0, max_restarts=0)(ShardWriter)
        self._reader = ray.remote(num_cpus=1, max_retries=0)(_read_unit)
        self._writers: dict[int, Any] = {}

    def __enter__(self) -> RayShards:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def writer(self, shard: int):
        """The actor handle of shard ``shard``'s writer (started on first use)."""
        actor = self._writers.get(shard)
        if actor is None:
            actor = self._writers[shard] = self._actor.remote(self.root, shard)
        return actor

    def start(self, shards: Iterable[int] | None = None) -> float:
        """Start the writers of ``shards`` (all by default) now; returns the seconds it took."""
        t0 = time.perf_counter()
        ray.get([self.writer(s).pid.remote() for s in (range(self.n_shards) if shards is None else shards)])
        return time.perf_counter() - t0

    def run(self, kind: str, *, job_id: str | None = None, candidates: Iterable[Mapping[str, Any]] | None = None,
            workers: int | None = None, progress: bool = False, on_progress: Callable[[dict], None] | None = None,
            crash: Mapping[str, Any] | None = None, **params: Any) -> jobs.JobResult:
        """Run (or resume) a job across the shards; the result equals :func:`engramdb.jobs.run`'s.

        Parameters
        ----------
        kind : str
            One of :data:`engramdb.jobs.KINDS`.
        job_id : str, optional
            Resume this job; a new id when omitted.
        candidates : iterable of mapping, optional
            (``admit``) The candidate stream, read lazily by this process.
        workers : int, optional
            Units running at once (default: this object's ``workers``).
        progress : bool
            A rich progress bar over units, advanced as each finishes.
        on_progress : callable dict -> None, optional
            Called as each unit finishes with ``shard``, ``key``, ``units_done``, ``resumed``, ``result``.
        crash : mapping, optional
            Testing hook: ``{"shard": s, "after_units": n, "point": "after_commit"|"after_record"}``
            ends shard ``s``'s writer process at that point of its ``n``-th unit.
        **params :
            As for :func:`engramdb.jobs.run`.

        Returns
        -------
        JobResult
            ``runner == "ray"``.

        Raises
        ------
        JobIncompleteError
            A worker died or a unit raised; every other unit ran and is recorded.
        InvalidInputError, ConfigError
            See :func:`engramdb.jobs.prepare_job`; ``workers`` not an integer in [1, 4096]. Both
            before anything is created on disk.
        """
        from rich.progress import Progress

        from .validate import check_int

        width = self.workers if workers is None else check_int(workers, "workers", 1, 4096)
        job_id, fixed = jobs.prepare_job(self.root, kind, job_id, params, candidates=candidates)
        t0 = time.perf_counter()
        journals = {s: jobs.ShardJournal(self.root, job_id, s) for s in range(self.n_shards)}
        if kind in jobs.READ_KINDS and self._writers:
            ray.get([a.flush.remote() for a in self._writers.values()])
        source = iter(jobs.job_units(kind, self.n_shards, job_id, fixed, candidates))
        queues: dict[int, deque] = {}
        in_flight: dict[Any, jobs.Unit] = {}
        busy: set[int] = set()
        failed: dict[int, str] = {}
        exhausted = False
        buffer = 4 * width

        def submit(unit: jobs.Unit) -> None:
            if kind in jobs.READ_KINDS:
                ref = self._reader.remote(self.root, job_id, kind, fixed, unit)
            else:
                hook = crash if crash is not None and crash.get("shard") == unit.shard else None
                ref = self.writer(unit.shard).run_unit.remote(job_id, kind, fixed, unit, hook)
            in_flight[ref] = unit
            busy.add(unit.shard)

        with Progress(disable=not progress, transient=False) as bar:
            tally = jobs.Tally(bar, bar.add_task(f"{kind} job {job_id} (ray, {width} workers)",
                                                 total=self.n_shards if kind != "admit" else None), on_progress)
            tally.t0 = t0   # wall time counts the flush of the writers before a read job
            while True:
                while not exhausted and sum(map(len, queues.values())) < buffer:
                    try:
                        unit = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    if journals[unit.shard].done(unit.key):   # recorded by an earlier run: skip
                        tally.skipped()
                        continue
                    if unit.shard not in failed:
                        queues.setdefault(unit.shard, deque()).append(unit)
                for shard, q in queues.items():
                    if len(in_flight) >= width:
                        break
                    if q and shard not in busy:
                        submit(q.popleft())
                if not in_flight:
                    if exhausted and not any(queues.values()):
                        break
                    continue
                ready, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in ready:
                    unit = in_flight.pop(ref)
                    busy.discard(unit.shard)
                    try:
                        out = ray.get(ref)
                    except ray.exceptions.RayActorError as exc:
                        failed[unit.shard] = f"writer actor died ({type(exc).__name__})"
                        self._writers.pop(unit.shard, None)   # a new actor replaces it on the next run
                        queues.pop(unit.shard, None)
                        continue
                    except ray.exceptions.RayError as exc:
                        failed[unit.shard] = f"{type(exc).__name__}: {exc}"[:500]
                        queues.pop(unit.shard, None)
                        continue
                    tally.finished(unit, out)
        if failed:
            raise jobs.JobIncompleteError(job_id, failed)
        return tally.result(self.root, job_id, kind, fixed, self.n_shards, workers=width, runner="ray")

    def close(self) -> None:
        """Close every writer's store and end its actor."""
        actors, self._writers = self._writers, {}
        for actor in actors.values():
            try:
                ray.get(actor.close.remote())
            except ray.exceptions.RayError:
                pass   # already dead: its process released the store's lock when it ended
            ray.kill(actor)


def run(root: str | os.PathLike | ShardedEngram, kind: str, *, workers: int = 2, **kwargs: Any) -> jobs.JobResult:
    """Run one job on Ray with writers started for it and ended after it
    (:meth:`RayShards.run`; keep a :class:`RayShards` open to reuse the writers across jobs)."""
    with RayShards(root, workers=workers) as cluster:
        return cluster.run(kind, **kwargs)
