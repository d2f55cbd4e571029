"""Batch jobs over a sharded deployment, with a durable per-shard journal and resume.

A job is one of :data:`KINDS` run over every shard of a deployment (:mod:`engramdb.sharding`):

``rescore``
    ``Engram.rescore(now)`` on each shard (one unit per shard).
``consolidate``
    ``Engram.consolidate(now=now)`` on each shard (one unit per shard).
``admit``
    A-MAC admission (``Engram.admit_batch``) over a stream of candidates, each naming its
    ``namespace``: the stream is split by shard and namespace into chunks of ``chunk_size``
    candidates, each chunk one ``admit_batch`` call (one transaction), in stream order within
    its namespace. A candidate without an ``id`` gets ``"<job_id>:<j>"`` (``j``: its position
    in its namespace's part of the stream), so that a resumed job can tell what committed (a job
    id that would make these ids a form the engine reserves, such as ``S`` or ``fact``, is
    refused before the job starts). Their
    record time is the job's start (``min(now, wall clock)``), fixed with the job's parameters.
``export``
    Every shard into one Parquet dataset at ``out``: ``out/memories`` and ``out/edges``,
    hive-partitioned ``shard=<i>/namespace=<name>/`` (the columns of
    :func:`engramdb.export.export_store`, less ``namespace``, which is in the path).
``locomo``
    LoCoMo evidence recall@k (Maharana et al., 2024): each question of a conversation stored
    in the deployment (namespace = ``sample_id``, as ``ingest_locomo`` stores it) is recalled
    read-only on its shard; the job returns recall@k and all@k overall and per category.

Job model. A job has an id (``job_id``; a new one when omitted) and parameters fixed when it
starts (``now`` included: the wall clock then, when not given), kept in
``<root>/jobs/<job_id>/job.json``. Work is cut into units (a shard, or an admission chunk);
each unit is marked started, then run, then recorded with its result in its shard's journal,
``<root>/jobs/<job_id>/shard-<i>.json`` (written atomically, one writer per shard: the shard's
writer). Running a job id again skips every recorded unit and redoes the rest. A unit started
but not recorded (the worker died between the commit and the journal write) is recovered from
the store itself: an admission chunk by its candidates' ids (stored, or in the dynamics log;
the chunk was one transaction, so all or none of it is there), a rescore by the summary the
store keeps of its last rescore at that ``now``. Export and LoCoMo only read the store and are
redone. Consolidation is idempotent at the same ``now``, so a redone shard leaves the store as
one pass would, but its counts are those of the second pass (zero when the first had
committed). The job's result is combined from the journals, so a resumed job returns what an
uninterrupted one would.

:func:`run` runs a job here, shard after shard (the baseline, and the reference for the
distributed runner in :mod:`engramdb.ray_jobs`, which executes the same units on Ray actors).
This module does not import Ray.
"""
from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .dataset import finish, write_shard
from .errors import ConfigError, EngramError, InvalidInputError, MemoryNotFoundError
from .sharding import ShardedEngram, combine_counts, open_sharded, read_manifest, shard_of, write_json_atomic
from .validate import check_iterable, strict_flags
from .wording import count

__all__ = ["KINDS", "READ_KINDS", "JobIncompleteError", "JobResult", "ShardJournal", "Tally", "Unit", "combine",
           "execute_unit", "job_units", "prepare_job", "run"]

KINDS = ("rescore", "consolidate", "admit", "export", "locomo")
#: kinds that only read the store: run by read-only workers, not the shard's writer
READ_KINDS = frozenset({"export", "locomo"})
LOCOMO_KS = (5, 10, 20)
DEFAULT_CHUNK = 1000
_JOB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_TIMING = ("seconds",)


class JobIncompleteError(EngramError):
    """Some units of a job failed (a worker died, or a unit raised); the others are recorded.

    Run the same ``job_id`` again to do the rest.

    Attributes
    ----------
    job_id : str
    failed : dict
        Shard number -> what failed there (str).
    """

    def __init__(self, job_id: str, failed: dict[int, str]):
        self.job_id = job_id
        self.failed = dict(failed)
        detail = "; ".join(f"shard {s}: {m}" for s, m in sorted(failed.items()))
        super().__init__(f"job {job_id!r} is incomplete ({count(len(failed), 'shard')} failed: {detail}); "
                         f"completed units are kept, run job_id={job_id!r} again to do the rest")


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of a job: a shard's whole work (``key == "all"``), or one admission chunk
    (``key`` = JSON ``[namespace, chunk number]``, ``payload`` its candidate mappings)."""
    shard: int
    key: str
    payload: Any = None


@dataclass(slots=True)
class JobResult:
    """What a job did.

    Attributes
    ----------
    job_id : str
    kind : str
    params : dict
        The job's fixed parameters (``now`` in Unix seconds, ...).
    result : dict
        Combined over shards (see :func:`combine`); the same however the job ran or resumed.
    shards : list of dict or None
        Each shard's combined result (None for a shard with no unit).
    units_run, units_resumed : int
        Units executed by this call, and units found recorded (skipped).
    wall_s : float
        Seconds of this call, end to end.
    work_s : float
        Sum over the units this call executed of the seconds inside the engine call (the
        shard work); ``wall_s * workers - work_s`` is coordination and idle time.
    workers : int
    runner : str
        ``"sequential"`` or ``"ray"``.
    """
    job_id: str
    kind: str
    params: dict
    result: dict
    shards: list
    units_run: int = 0
    units_resumed: int = 0
    wall_s: float = 0.0
    work_s: float = 0.0
    workers: int = 1
    runner: str = "sequential"
    unit_work_s: list = field(default_factory=list)


# ---------------------------------------------------------------------------- job parameters
def _jobs_dir(root: str, job_id: str) -> str:
    return os.path.join(root, "jobs", job_id)


def prepare_job(root: str, kind: str, job_id: str | None, params: Mapping[str, Any], *,
                candidates: Iterable[Mapping[str, Any]] | None = None) -> tuple[str, dict]:
    """Validate a job's parameters and record them, or read back those of an existing job id.

    Every argument is checked before anything is created on disk: a refused job leaves no
    ``jobs/<job_id>`` directory.

    Parameters
    ----------
    root : str
        The sharded deployment.
    kind : str
        One of :data:`KINDS`.
    job_id : str, optional
        Letters, digits, ``.``, ``_``, ``-`` (at most 128, the first a letter or digit); a new
        ``<kind>-<12 hex>`` when omitted. An ``admit`` job's id may not make its candidates' ids
        ``<job_id>:<j>`` an id form the engine reserves (:func:`engramdb.validate.reserved_form`:
        ``S``, ``E``, ``sum``, ``fact``).
    params : mapping
        The kind's parameters (see :func:`run`); ``None`` values take the recorded or default value.
    candidates : iterable of mapping, optional
        (``admit``, required) The candidate stream; only checked to be one here, not read.
        Other kinds take none.

    Returns
    -------
    (str, dict)
        The job id and its fixed parameters.

    Raises
    ------
    InvalidInputError
        Unknown kind; a bad job id (or, for ``admit``, one that makes reserved candidate ids);
        a bad parameter: ``now``, ``chunk_size``, ``materialize`` not a bool, an ``export``
        ``out`` that is a file or inside the deployment's shards or jobs, a ``locomo`` ``data``
        that is not a file or ``conversations`` that are not a list of ids; ``admit`` without
        a candidate stream, or candidates for another kind.
    ConfigError
        The job id exists with another kind, or a parameter given now differs from the recorded one.
    """
    from .sharding import check_dataset_out
    from .validate import reserved_form, time_or_now, to_unix_seconds

    if kind not in KINDS:
        raise InvalidInputError(f"kind: expected one of {KINDS}, got {kind!r}")
    if job_id is None:
        job_id = f"{kind}-{uuid.uuid4().hex[:12]}"
    if not isinstance(job_id, str) or not _JOB_ID.match(job_id):
        raise InvalidInputError(f"job_id: expected 1-128 letters, digits, '.', '_' or '-' (the first a letter or "
                                f"digit), got {job_id!r}")
    allowed = {"rescore": {"now", "materialize"}, "consolidate": {"now"}, "admit": {"now", "chunk_size"},
               "export": {"now", "out"}, "locomo": {"data", "conversations"}}[kind]
    if kind == "admit":
        form = reserved_form(f"{job_id}:0")
        if form is not None:
            raise InvalidInputError(f"job_id {job_id!r}: an admission job gives each candidate without an id the id "
                                    f"'<job_id>:<j>', and '{job_id}:0' has the form {form}; pick another job id")
        check_iterable(candidates, "admit job: candidates", "memory mappings, each with a 'namespace'")
    elif candidates is not None:
        raise InvalidInputError(f"candidates= is for admit jobs; a {kind} job takes {sorted(allowed)}")
    given = {k: v for k, v in params.items() if v is not None}
    unknown = set(given) - allowed
    if unknown:
        raise InvalidInputError(f"{kind} job: unknown parameter(s) {sorted(unknown)}; it takes {sorted(allowed)}")
    if "now" in given:
        given["now"] = float(to_unix_seconds(given["now"], field="now"))
    size = given.get("chunk_size", 1)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 1_000_000:
        raise InvalidInputError(f"chunk_size: expected an integer in [1, 1000000], got {size!r}")
    if "materialize" in given:
        if not isinstance(given["materialize"], (bool, np.bool_)):
            raise InvalidInputError(f"materialize must be True or False, got {given['materialize']!r} "
                                    f"({type(given['materialize']).__name__})")
        given["materialize"] = bool(given["materialize"])
    if "out" in given:
        given["out"] = check_dataset_out(root, given["out"], "export job: out")
    if "data" in given:
        given["data"] = _locomo_file(given["data"])
    if kind == "locomo":
        conv = given.get("conversations")
        if conv is not None:
            if isinstance(conv, (str, bytes, Mapping)) or not isinstance(conv, Iterable):
                raise InvalidInputError("locomo job: conversations: expected a list of conversation ids "
                                        f"(sample_id strings), got {type(conv).__name__}")
            conv = list(conv)
            if not all(isinstance(c, str) and c for c in conv):
                raise InvalidInputError("locomo job: conversations: expected a list of conversation ids "
                                        f"(sample_id strings), got {conv!r:.120}")
            given["conversations"] = sorted(conv)
    path = os.path.join(_jobs_dir(root, job_id), "job.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if doc["kind"] != kind:
            raise ConfigError(f"job {job_id!r} is a {doc['kind']} job, not {kind}")
        for k, v in given.items():
            if doc["params"].get(k) != (list(v) if isinstance(v, tuple) else v):
                raise ConfigError(f"job {job_id!r} was started with {k}={doc['params'].get(k)!r}, got {v!r}: a job "
                                  "resumes with its own parameters (omit it, or use a new job id)")
        return job_id, doc["params"]
    fixed: dict[str, Any] = {}
    if kind in ("rescore", "consolidate", "admit", "export"):
        fixed["now"] = given.get("now", float(time_or_now(None)))
    if kind == "rescore":
        fixed["materialize"] = bool(given.get("materialize", False))
    if kind == "admit":
        fixed["chunk_size"] = int(given.get("chunk_size", DEFAULT_CHUNK))
        # record time of the admitted candidates: the job's start (never in the future), fixed
        # here so that a resumed chunk records what an uninterrupted one would
        fixed["recorded_at"] = min(fixed["now"], float(time_or_now(None)))
    if kind == "export":
        if "out" not in given:
            raise InvalidInputError("export job: out= (the dataset directory) is required")
        fixed["out"] = given["out"]
    if kind == "locomo":
        from .locomo import default_locomo_path

        fixed["data"] = given["data"] if "data" in given else _locomo_file(default_locomo_path())
        fixed["conversations"] = given.get("conversations")
    os.makedirs(_jobs_dir(root, job_id), mode=0o700, exist_ok=True)
    write_json_atomic(path, {"job_id": job_id, "kind": kind, "params": fixed, "created_at": time.time()})
    return job_id, fixed


def _locomo_file(path: Any) -> str:
    """The absolute path of a LoCoMo data file.

    Raises
    ------
    InvalidInputError
        Not a path, or no file there.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"locomo job: data: expected the path of locomo10.json, got {type(path).__name__}")
    data = os.path.abspath(os.fspath(path))
    if not os.path.isfile(data):
        raise InvalidInputError(f"locomo job: data={data!r} is not a file; give the path of locomo10.json "
                                "(or set ENGRAMDB_LOCOMO)")
    return data


# ---------------------------------------------------------------------------- journal
class ShardJournal:
    """The record of one shard's units of one job: ``<root>/jobs/<job_id>/shard-<i>.json``.

    ``{"started": [unit keys], "units": {key: {"result": dict, "work_s": float}}}``, rewritten
    atomically (:func:`engramdb.sharding.write_json_atomic`) by the shard's one writer.
    """

    def __init__(self, root: str, job_id: str, shard: int):
        self.path = os.path.join(_jobs_dir(root, job_id), f"shard-{shard:04d}.json")
        self.doc = {"started": [], "units": {}}
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as f:
                self.doc = json.load(f)

    def done(self, key: str) -> bool:
        """Whether unit ``key`` is recorded."""
        return key in self.doc["units"]

    def started(self, key: str) -> bool:
        """Whether unit ``key`` was started and not recorded (its worker died)."""
        return key in self.doc["started"]

    def start(self, key: str) -> None:
        """Mark unit ``key`` started (written before its work begins)."""
        if key not in self.doc["started"]:
            self.doc["started"].append(key)
            write_json_atomic(self.path, self.doc)

    def record(self, key: str, result: dict, work_s: float) -> None:
        """Record unit ``key``'s result (a JSON-able dict) and its work seconds, after its commit."""
        self.doc["units"][key] = {"result": result, "work_s": work_s}
        if key in self.doc["started"]:
            self.doc["started"].remove(key)
        write_json_atomic(self.path, self.doc)

    def results(self) -> dict[str, dict]:
        """Unit key -> recorded result."""
        return {k: v["result"] for k, v in self.doc["units"].items()}


# ---------------------------------------------------------------------------- units
def job_units(kind: str, n_shards: int, job_id: str, params: Mapping[str, Any],
              candidates: Iterable[Mapping[str, Any]] | None = None) -> Iterator[Unit]:
    """The units of a job, in the order a sequential run executes them.

    For ``admit``, ``candidates`` is read lazily: a chunk is yielded when its namespace has
    ``chunk_size`` candidates, the rest at the end (in order of first appearance).

    Raises
    ------
    InvalidInputError
        (admit) ``candidates`` is missing, or a candidate is not a mapping with a namespace.
    """
    if kind != "admit":
        for s in range(n_shards):
            yield Unit(s, "all")
        return
    check_iterable(candidates, "admit job: candidates", "memory mappings, each with a 'namespace'")
    size = int(params["chunk_size"])
    buffers: dict[str, list] = {}
    seen: dict[str, int] = {}
    chunks: dict[str, int] = {}
    for cand in candidates:
        if not isinstance(cand, Mapping) or not isinstance(cand.get("namespace"), str):
            raise InvalidInputError(f"admit job: each candidate must be a mapping with a 'namespace' string, got {cand!r:.120}")
        ns = cand["namespace"]
        j = seen.get(ns, 0)
        seen[ns] = j + 1
        item = dict(cand)
        if item.get("id") is None:
            item["id"] = f"{job_id}:{j}"
        buf = buffers.setdefault(ns, [])
        buf.append(item)
        if len(buf) == size:
            c = chunks.get(ns, 0)
            chunks[ns] = c + 1
            yield Unit(shard_of(ns, n_shards), json.dumps([ns, c]), buffers.pop(ns))
    for ns, buf in buffers.items():
        yield Unit(shard_of(ns, n_shards), json.dumps([ns, chunks.get(ns, 0)]), buf)


def _strip(result: Mapping[str, Any]) -> dict:
    return {k: v for k, v in result.items() if k not in _TIMING}


def _last_rescore(engine: Any) -> dict | None:
    """The summary the store keeps of its last rescore (``meta["rescore_last"]``)."""
    state = engine._state   # the engine's own state, read inside the package
    with state.store.read("reading the last rescore") as txn:
        return state.store.get_meta(txn, "rescore_last")


def _recover_admission(engine: Any, ns: str, cands: list[dict]) -> dict | None:
    """The counts of an admission chunk that committed before its journal record, from the
    store (admitted ids are stored; rejected and reinforcing ones are in the dynamics log), or
    None when none of it is there (it did not commit)."""
    ids = [c["id"] for c in cands]
    wanted = set(ids)
    logged = {e["id"]: e["decision"] for e in engine.dynamics_log(namespace=ns)
              if e["action"].startswith("admission_") and e.get("id") in wanted}
    stored = set()
    for i in ids:
        if i in logged:
            continue
        try:
            engine.get(i, namespace=ns)
            stored.add(i)
        except MemoryNotFoundError:
            pass
    if not logged and not stored:
        return None
    decisions = [logged.get(i, "admit" if i in stored else "missing") for i in ids]
    return _admission_counts(decisions, [d == "admit" for d in decisions])


def _admission_counts(decisions: list[str], stored: list[bool]) -> dict:
    out = {"candidates": len(decisions), "admit": 0, "reject": 0, "reinforce": 0, "stored": int(sum(stored))}
    for d in decisions:
        out[d] = out.get(d, 0) + 1
    return out


def execute_unit(engine: Any, root: str, job_id: str, kind: str, params: Mapping[str, Any], unit: Unit,
                 journal: ShardJournal, *, crash: Callable[[str], None] | None = None) -> dict:
    """Run one unit on ``engine`` (the shard's open store) unless its journal records it.

    Marks the unit started, does the work (or recovers a committed-but-unrecorded unit, see
    the module docstring), records the result. ``crash`` is a testing hook called with
    ``"after_commit"`` (work committed, not yet recorded) and ``"after_record"``.

    Returns
    -------
    dict
        ``{"result": dict, "work_s": float, "resumed": bool}``.
    """
    if journal.done(unit.key):
        return {**journal.doc["units"][unit.key], "resumed": True}
    recovered = None
    if journal.started(unit.key):
        if kind == "admit":
            ns = json.loads(unit.key)[0]
            recovered = _recover_admission(engine, ns, unit.payload)
        elif kind == "rescore":
            last = _last_rescore(engine)
            if last and last.get("now") == params["now"] and last.get("namespace") is None:
                recovered = _strip(last)
    else:
        journal.start(unit.key)
    t0 = time.perf_counter()
    if recovered is not None:
        result = recovered
    elif kind == "rescore":
        result = _strip(engine.rescore(params["now"], materialize=params["materialize"]))
    elif kind == "consolidate":
        result = _strip(engine.consolidate(now=params["now"]))
    elif kind == "admit":
        ns = json.loads(unit.key)[0]
        dec = engine.admit_batch(unit.payload, namespace=ns, now=params["now"], recorded_at=params["recorded_at"])
        result = _admission_counts([d.decision for d in dec], [d.stored for d in dec])
    elif kind == "export":
        result = write_shard(engine, params["out"], unit.shard, now=params["now"])
    else:
        result = _locomo_shard(engine, root, unit.shard, params)
    work_s = time.perf_counter() - t0
    if crash is not None:
        crash("after_commit")
    journal.record(unit.key, result, work_s)
    if crash is not None:
        crash("after_record")
    return {"result": result, "work_s": work_s, "resumed": False}


def _locomo_shard(engine: Any, root: str, shard: int, params: Mapping[str, Any]) -> dict:
    """Evidence hits@k of every LoCoMo question whose conversation is stored on this shard."""
    from .locomo import load_locomo

    n_shards = read_manifest(root)["n_shards"]
    wanted = params.get("conversations")
    stored = set(engine.namespaces())
    rows = []
    for conv in load_locomo(params["data"]):
        ns = conv.sample_id
        if shard_of(ns, n_shards) != shard or ns not in stored or (wanted is not None and ns not in wanted):
            continue
        turn_set = {t.dia_id for s in conv.sessions for t in s.turns}
        for q in conv.qa:
            if not q.evidence:
                continue
            res = engine.recall(q.question, namespace=ns, k=max(LOCOMO_KS) + 10, reinforce=False)
            ranked = [h.id for h in res.hits if h.id in turn_set][: max(LOCOMO_KS)]
            ev = set(q.evidence)
            rows.append([ns, int(q.category), len(ev), *[len(ev & set(ranked[:k])) for k in LOCOMO_KS]])
    return {"rows": rows}


# ---------------------------------------------------------------------------- combining
def combine(kind: str, units: list[dict]) -> dict:
    """Combine unit results (one shard's, or every shard's) into one result of the kind.

    ``rescore``, ``consolidate``, ``admit``: counts summed (:func:`engramdb.sharding.combine_counts`).
    ``export``: row counts summed. ``locomo``: ``questions``, ``recall@k`` (mean share of a
    question's evidence turns in the top k, percent), ``all@k`` (share of questions with all of
    it, percent), ``per_category``, ``per_conversation``.
    """
    if not units:
        return {}
    if kind != "locomo":
        return combine_counts(units)
    from .locomo import CATEGORY_NAMES

    rows = sorted(r for u in units for r in u["rows"])

    def summary(rs: list) -> dict:
        out: dict[str, Any] = {"questions": len(rs)}
        for i, k in enumerate(LOCOMO_KS):
            out[f"recall@{k}"] = round(100.0 * sum(r[3 + i] / r[2] for r in rs) / max(len(rs), 1), 4)
            out[f"all@{k}"] = round(100.0 * sum(r[3 + i] == r[2] for r in rs) / max(len(rs), 1), 4)
        return out

    cats = sorted({r[1] for r in rows})
    convs = sorted({r[0] for r in rows})
    return {**summary(rows),
            "per_category": {f"{c} {CATEGORY_NAMES.get(c, '?')}": summary([r for r in rows if r[1] == c]) for c in cats},
            "per_conversation": {c: summary([r for r in rows if r[0] == c]) for c in convs},
            "rows": rows}


class Tally:
    """What one call of a job runner did, unit by unit: counts, shard-work seconds, the progress
    bar and the caller's callback (the sequential and the Ray runner share it).

    Parameters
    ----------
    bar : rich.progress.Progress
    task : rich task id
    on_progress : callable dict -> None, optional
        Gets ``{shard, key, units_done, resumed, result}`` as each unit finishes.
    """

    def __init__(self, bar: Any, task: Any, on_progress: Callable[[dict], None] | None) -> None:
        self.bar, self.task, self.on_progress = bar, task, on_progress
        self.ran = self.resumed = 0
        self.work: list[float] = []
        self.t0 = time.perf_counter()

    def skipped(self) -> None:
        """A unit recorded by an earlier run."""
        self.resumed += 1
        self.bar.advance(self.task)

    def finished(self, unit: Unit, out: dict) -> None:
        """A unit that :func:`execute_unit` ran (or found committed: ``out["resumed"]``)."""
        if out["resumed"]:
            self.resumed += 1
        else:
            self.ran += 1
            self.work.append(out["work_s"])
        self.bar.advance(self.task)
        if self.on_progress is not None:
            self.on_progress({"shard": unit.shard, "key": unit.key, "units_done": self.ran + self.resumed,
                              "resumed": out["resumed"], "result": out["result"]})

    def result(self, root: str, job_id: str, kind: str, fixed: dict, n_shards: int, *, workers: int,
               runner: str) -> JobResult:
        """The job's :class:`JobResult`, combined from every shard's journal."""
        result, shards = collect(root, job_id, kind, fixed, n_shards)
        return JobResult(job_id=job_id, kind=kind, params=fixed, result=result, shards=shards,
                         units_run=self.ran, units_resumed=self.resumed, wall_s=time.perf_counter() - self.t0,
                         work_s=sum(self.work), workers=workers, runner=runner, unit_work_s=self.work)


def collect(root: str, job_id: str, kind: str, params: dict, n_shards: int) -> tuple[dict, list]:
    """The job's combined result and per-shard results, read from its journals."""
    shards = []
    for s in range(n_shards):
        units = ShardJournal(root, job_id, s).results()
        ordered = [units[k] for k in sorted(units)]
        shards.append(combine(kind, ordered) if ordered else None)
    result = combine(kind, [s for s in shards if s is not None])
    if kind == "export":
        result = {"path": params["out"], "memories": result.get("memories", 0), "edges": result.get("edges", 0),
                  "partitions": sum(len(s["memories_by_namespace"]) for s in shards if s)}
        finish(params["out"])
    result["n_shards"] = n_shards
    return result, shards


# ---------------------------------------------------------------------------- the sequential runner
@strict_flags
def run(target: ShardedEngram | str | os.PathLike, kind: str, *, job_id: str | None = None,
        candidates: Iterable[Mapping[str, Any]] | None = None, progress: bool = False,
        on_progress: Callable[[dict], None] | None = None, **params: Any) -> JobResult:
    """Run (or resume) a job here, shard after shard: the baseline the Ray runner must equal.

    Parameters
    ----------
    target : ShardedEngram, str or os.PathLike
        An open sharded deployment, or its root (opened here and closed at the end).
    kind : str
        One of :data:`KINDS`.
    job_id : str, optional
        Resume this job (recorded units are skipped); a new id when omitted. See
        :func:`prepare_job` for the ids taken.
    candidates : iterable of mapping, optional
        (``admit``, required; other kinds take none) The candidate stream, each with
        ``namespace`` and ``text`` (as for ``Engram.admit_batch``). A resumed job needs the
        same stream.
    progress : bool
        Show a rich progress bar over units.
    on_progress : callable dict -> None, optional
        Called after each unit with ``shard``, ``key``, ``units_done``, ``resumed``, ``result``.
    **params :
        ``now`` (Unix seconds, ISO-8601 or datetime; rescore, consolidate, admit, export),
        ``materialize`` (rescore), ``chunk_size`` (admit, default 1000), ``out`` (export,
        required), ``data`` and ``conversations`` (locomo).

    Returns
    -------
    JobResult

    Raises
    ------
    InvalidInputError, ConfigError
        See :func:`prepare_job` (raised before anything is created on disk); the errors of the
        engine verb a unit calls propagate.
    StoreNotFoundError, StoreCorruptedError
        ``target`` is not a sharded deployment.
    """
    from rich.progress import Progress

    own = not isinstance(target, ShardedEngram)
    sharded = open_sharded(target, create=False) if own else target
    try:
        job_id, fixed = prepare_job(sharded.root, kind, job_id, params, candidates=candidates)
        journals = {s: ShardJournal(sharded.root, job_id, s) for s in range(sharded.n_shards)}
        with Progress(disable=not progress, transient=False) as bar:
            tally = Tally(bar, bar.add_task(f"{kind} job {job_id}", total=sharded.n_shards if kind != "admit" else None),
                          on_progress)
            for unit in job_units(kind, sharded.n_shards, job_id, fixed, candidates):
                eng = sharded.engine(unit.shard)
                tally.finished(unit, execute_unit(eng, sharded.root, job_id, kind, fixed, unit, journals[unit.shard]))
        return tally.result(sharded.root, job_id, kind, fixed, sharded.n_shards, workers=1, runner="sequential")
    finally:
        if own:
            sharded.close()
