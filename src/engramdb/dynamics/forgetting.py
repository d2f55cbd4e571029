"""Forgetting: the dynamics log, the bounded working tier, archiving and policy pruning.

Nothing is dropped silently. Every policy action (archive, prune, promote, admission reject /
reinforce / shadow decision) is appended to the *dynamics log*, kept in the LMDB ``meta``
sub-database under keys ``dynlog/<seq as 16 hex digits>`` (so it commits in the same
transaction as the action it records), and read back with ``Engram.dynamics_log``.

Tiers: ``working`` memories form a bounded hot tier (``ForgettingConfig.working_capacity``
active working memories per namespace). On overflow the least salient, then oldest, are
*promoted* to ``episodic`` (their kind changes, their salience is raised to at least
``promote_salience``); nothing is evicted, so overflow never loses a memory.
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from ..graph.csr import MemoryGraph
from ..types import MemoryKind, MemoryState, Relation, _STATE_CODES
from .salience import next_t0

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Engram

__all__ = ["LOG_PREFIX", "ACTIONS", "append_log", "read_log", "promotion_order", "enforce_working_capacity",
           "erase_in_txn"]

LOG_PREFIX = "dynlog/"
ACTIONS = ("archive", "prune", "promote", "admission_reject", "admission_reinforce", "admission_shadow")
_EDGE_KEY = struct.Struct(">IIB")
_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]
_WORKING = MemoryKind.WORKING.code


def append_log(eng: "Engram", txn, entries: Iterable[dict[str, Any]], now: float) -> int:
    """Append ``entries`` (each with at least ``action``, ``namespace``, ``id``) to the log in
    ``txn``; each gets ``seq`` and ``at`` (Unix seconds). Returns how many were written."""
    store = eng._store
    seq = store.get_meta(txn, "dynlog_seq", 0)
    n = 0
    for e in entries:
        seq += 1
        n += 1
        store.put_meta(txn, f"{LOG_PREFIX}{seq:016x}", {"seq": seq, "at": now, **e})
    if n:
        store.put_meta(txn, "dynlog_seq", seq)
    return n


def read_log(eng: "Engram", *, namespace: str | None = None, action: str | None = None,
             limit: int | None = None) -> list[dict[str, Any]]:
    """Log entries in the order they were written, optionally filtered; the last ``limit``."""
    from ..store.lmdb_store import unpack

    out = []
    prefix = LOG_PREFIX.encode()
    with eng._store.read("reading the dynamics log") as txn:
        cur = txn.cursor(db=eng._store.dbs["meta"])
        if cur.set_range(prefix):
            for k, v in cur:
                if not k.startswith(prefix):
                    break
                e = unpack(v)
                if (namespace is None or e.get("namespace") == namespace) and (action is None or e.get("action") == action):
                    out.append(e)
    return out if limit is None else out[len(out) - limit:] if limit else []


def promotion_order(s_now: np.ndarray, created_at: np.ndarray) -> np.ndarray:
    """Order in which working memories leave the hot tier: least salient first, then oldest
    (smallest ``created_at``); returns indices into the inputs."""
    return np.lexsort((created_at, s_now))


def overflow(eng: "Engram", nids_sel: np.ndarray, s_now: np.ndarray, capacity: int) -> np.ndarray:
    """Indices (into ``nids_sel``, the active working memories of one namespace) to promote
    so that ``capacity`` remain."""
    extra = len(nids_sel) - capacity
    if extra <= 0:
        return np.zeros(0, np.int64)
    order = promotion_order(s_now, eng._cols.created_at[nids_sel])
    return order[:extra]


def promote_records(eng: "Engram", txn, nids: np.ndarray, s_new: np.ndarray, now: float,
                    reason: str) -> tuple[np.ndarray, list[dict]]:
    """Rewrite working memories ``nids`` as episodic with salience ``s_new`` in ``txn``.
    Returns the new t0s and the log entries."""
    t0s = np.empty(len(nids), np.float64)
    logs = []
    for i, nid in enumerate(nids.tolist()):
        rec = eng._store.get_record(txn, nid)
        rec["kind"] = MemoryKind.EPISODIC.value
        rec["promoted_from"] = MemoryKind.WORKING.value
        rec["promoted_at"] = now
        rec["salience"] = float(s_new[i])
        rec["salience_at"] = t0s[i] = next_t0(float(eng._cols.t0[nid]), now)
        eng._store.put_record(txn, nid, rec)
        logs.append({"action": "promote", "namespace": rec["namespace"], "id": rec["id"],
                     "kind": MemoryKind.WORKING.value, "to_kind": MemoryKind.EPISODIC.value,
                     "salience": float(s_new[i]), "reason": reason})
    return t0s, logs


def enforce_working_capacity(eng: "Engram", namespaces: Iterable[str], now: float) -> int:
    """Promote the overflow of each namespace's working tier to episodic (one transaction).

    Returns the number promoted. Called by the engine after a batch that added working
    memories, and by the rescoring job.
    """
    cfg = eng.config.forgetting
    c = eng._cols
    n = c.n
    todo = []
    for ns in namespaces:
        code = eng._ns_codes.get(ns)
        if code is None:
            continue
        sel = np.flatnonzero((c.ns[:n] == code) & c.alive[:n] & (c.state[:n] == _ACTIVE) & (c.kind[:n] == _WORKING))
        if len(sel) <= cfg.working_capacity:
            continue
        s_now = eng._salience_now(sel, now)
        pick = overflow(eng, sel, s_now, cfg.working_capacity)
        todo.append((sel[pick], np.maximum(s_now[pick], np.float32(cfg.promote_salience)).astype(np.float32)))
    if not todo:
        return 0
    nids = np.concatenate([t[0] for t in todo])
    s_new = np.concatenate([t[1] for t in todo])
    with eng._store.write("promoting working memories") as txn:
        t0s, logs = promote_records(eng, txn, nids, s_new, now, "working tier over capacity")
        append_log(eng, txn, logs, now)
        mem_gen = eng._bump_mem_gen(txn)
    eng._mem_gen = mem_gen
    c.kind[nids] = MemoryKind.EPISODIC.code
    c.s0[nids] = s_new
    c.t0[nids] = t0s
    return len(nids)


def erase_in_txn(eng: "Engram", txn, nids: list[int]) -> tuple[MemoryGraph, list[int], dict, list]:
    """Erase memories ``nids`` (record, vector, id, every edge) in ``txn``, as ``forget(hard=True)``
    does for one, in one edge scan and one CSR snapshot rewrite.

    A memory that an erased one had superseded becomes active again. Returns the graph
    without the erased nodes, the revived nids, the new namespace meta and
    (nid, namespace, id, text) of the erased, for :func:`apply_erase` after the commit.
    """
    store = eng._store
    doomed = set(nids)
    graph_after = MemoryGraph()
    graph_after.upsert_many(*eng._graph.edges())
    ns_meta = {k: dict(v) for k, v in eng._ns_meta.items()}
    revived, erased = [], []
    for nid in nids:
        rec = store.get_record(txn, nid)
        for other, rel, _w, forward in eng._graph.neighbours(nid):
            if rel == Relation.SUPERSEDES.code and forward and other not in doomed:
                orec = store.get_record(txn, other)
                if orec is not None and orec["superseded_by"] == rec["id"]:
                    orec["state"], orec["superseded_by"] = MemoryState.ACTIVE.value, None
                    # current again: valid from now on as when it was recorded (as forget(hard))
                    orec["retired_at"], orec["valid_to"] = None, orec.get("stated_valid_to")
                    store.put_record(txn, other, orec)
                    revived.append(other)
        graph_after.remove_node(nid)
        store.delete_record(txn, nid, rec["namespace"], rec["id"])
        m = ns_meta[rec["namespace"]]
        m["vgen"] += 1
        m["count"] -= 1
        erased.append((nid, rec["namespace"], rec["id"], rec["text"]))
    edges_db = store.dbs["edges"]
    dead = [k for k in txn.cursor(db=edges_db).iternext(keys=True, values=False)
            if _EDGE_KEY.unpack(k)[0] in doomed or _EDGE_KEY.unpack(k)[1] in doomed]
    for k in dead:
        txn.delete(k, db=edges_db)
    store.put_meta(txn, "namespaces", ns_meta)
    eng._write_snapshot(txn, graph_after)
    return graph_after, revived, ns_meta, erased


def apply_erase(eng: "Engram", graph_after: MemoryGraph, revived: list[int], ns_meta: dict, erased: list) -> None:
    """Update the engine's caches after :func:`erase_in_txn` committed."""
    c = eng._cols
    if revived:   # state, retired_at and valid_to as erase_in_txn rewrote them
        with eng._store.read("reviving superseded memories") as txn:
            for nid in revived:
                c.set_record(nid, eng._store.get_record(txn, nid), c.ns[nid])
    eng._graph = graph_after
    eng._delta_size = 0
    eng._density.clear()
    eng._ns_meta = ns_meta
    for nid, ns, _id, text in erased:
        c.alive[nid] = False
        c.ext_ids[nid] = None
        eng._indexes[ns].remove(nid)
        eng._dirty_indexes.add(ns)
        if ns in eng._kw:   # the keyword leg forgets it too
            eng._kw[ns].remove(nid, text)
            eng._kw_dirty = True
        eng._ns_latest.pop(ns, None)
