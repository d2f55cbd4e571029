"""Forgetting: the dynamics log, the bounded working tier, archiving and policy pruning.

Nothing is dropped silently. Every policy action (archive, prune, promote, admission reject /
reinforce / shadow decision) is appended to the *dynamics log*: the details carried by the
audit ledger entry of the write that made it (:mod:`engramdb.store.ledger`; so it commits in the
same transaction as the action it records, and is not a second record of the event), read back
with ``Engram.dynamics_log``.

Tiers: ``working`` memories form a bounded hot tier (``ForgettingConfig.working_capacity``
active working memories per namespace). On overflow the least salient, then oldest, are
*promoted* to ``episodic`` (their kind changes, their salience is raised to at least
``promote_salience``); nothing is evicted, so overflow never loses a memory.

Protected memories: a memory tagged :data:`PROTECTED_TAG` (admission tags identity, health and
family facts, see ``kinds.protected_category``; a caller may tag any memory) is
never archived or pruned by the rescoring job while ``ForgettingConfig.keep_protected`` is set
(the default). Its salience decays as usual; ``forget`` still archives or erases it on request.
Likewise the current value of a slot (an active memory filling a subject's attribute: what
``current`` and ``profile`` answer) is never archived while ``ForgettingConfig.keep_current_slots``
is set: a fact nothing superseded is still the store's belief, however long since it was said.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..state import EngineState
from ..store import ledger as _ledger
from ..types import PROTECTED_TAG, MemoryKind, MemoryState, _STATE_CODES
from ..validate import last_items, now as clock_now
from ..write import LOG_PREFIX, WriteUnit, write_unit
from ..write.reinforce import next_t0

__all__ = ["LOG_PREFIX", "ACTIONS", "PROTECTED_TAG", "read_log", "promotion_order", "overflow", "promote",
           "archive", "protected", "kept_apart", "enforce_working_capacity"]


ACTIONS = ("archive", "prune", "promote", "admission_reject", "admission_reinforce", "admission_shadow")
_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]
_WORKING = MemoryKind.WORKING.code


def read_log(state: EngineState, *, namespace: str | None = None, action: str | None = None,
             limit: int | None = None) -> list[dict[str, Any]]:
    """Log entries in the order they were written, optionally filtered; the last ``limit``.

    A view of the audit ledger (the details its entries carry, :func:`ledger.read_details`);
    a store written before the ledger and opened read-only shows its old log (``meta`` keys
    ``dynlog/...``), which the first writable open moves into the ledger's genesis entry.
    """
    out = []
    store = state.store
    with store.read("reading the dynamics log") as txn:
        if _ledger.has_ledger(store, txn):
            entries = _ledger.read_details(store, txn)
        else:
            entries = (e for _k, e in store.iter_meta(txn, LOG_PREFIX))
        for e in entries:
            if (namespace is None or e.get("namespace") == namespace) and (action is None or e.get("action") == action):
                out.append(e)
    return last_items(out, limit)


def protected(state: EngineState, nids: np.ndarray) -> np.ndarray:
    """Which of ``nids`` carry the tag :data:`PROTECTED_TAG`: bool ndarray, shape (len(nids),).

    Tags are free text kept in the records, not a column, so this reads the records of
    ``nids`` (one read transaction); the rescoring job calls it only for the memories it is
    about to archive or prune.
    """
    return kept_apart(state, nids)[0]


def kept_apart(state: EngineState, nids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the memories ``nids`` the rescoring job is about to archive or prune: which carry
    the tag :data:`PROTECTED_TAG`, and which are active holders of a slot (a current value of
    :meth:`Engram.current` / :meth:`Engram.profile`: nothing superseded it, so it is still what
    the store knows of its subject). Two bool ndarrays of shape (len(nids),); one read
    transaction (tags and slots live in the records)."""
    nids = np.asarray(nids, np.int64)
    if not len(nids):
        return np.zeros(0, np.bool_), np.zeros(0, np.bool_)
    recs = state.records(nids.tolist(), "reading tags of memories to archive")
    tagged = [rec is not None and PROTECTED_TAG in (rec.get("tags") or ()) for rec in recs]
    holds = [rec is not None and rec.get("subject") is not None and rec["state"] == MemoryState.ACTIVE.value
             for rec in recs]
    return np.array(tagged, np.bool_), np.array(holds, np.bool_)


def promotion_order(s_now: np.ndarray, created_at: np.ndarray) -> np.ndarray:
    """Order in which working memories leave the hot tier: least salient first, then oldest
    (smallest ``created_at``); returns indices into the inputs."""
    return np.lexsort((created_at, s_now))


def overflow(state: EngineState, nids_sel: np.ndarray, s_now: np.ndarray, capacity: int) -> np.ndarray:
    """Indices (into ``nids_sel``, the active working memories of one namespace) to promote
    so that ``capacity`` remain."""
    extra = len(nids_sel) - capacity
    if extra <= 0:
        return np.zeros(0, np.int64)
    order = promotion_order(s_now, state.cols.created_at[nids_sel])
    return order[:extra]


def promote(unit: WriteUnit, rec: dict, nid: int, salience: float, reason: str) -> dict:
    """Rewrite the working memory ``rec`` (nid ``nid``) as episodic with ``salience`` (its value
    at the unit's dynamics time ``unit.at``, which becomes its t0 unless that is later) in
    ``unit`` and log it; ``promoted_at`` is the unit's record time ``unit.now``. The one
    promotion path (working tier overflow and the rescoring job).
    Returns the record (not yet written when the caller changes more; :meth:`WriteUnit.put_record`
    is called here)."""
    rec["kind"] = MemoryKind.EPISODIC.value
    rec["promoted_from"] = MemoryKind.WORKING.value
    rec["promoted_at"] = unit.now   # record time; the salience is the one at the dynamics time
    rec["salience"] = float(salience)
    rec["salience_at"] = next_t0(float(rec["salience_at"]), unit.at)
    unit.put_record(nid, rec)
    unit.log([{"action": "promote", "namespace": rec["namespace"], "id": rec["id"],
               "kind": MemoryKind.WORKING.value, "to_kind": MemoryKind.EPISODIC.value,
               "salience": float(salience), "reason": reason}])
    return rec


def archive(unit: WriteUnit, rec: dict, nid: int, salience: float, reason: str) -> dict:
    """Archive the active memory ``rec`` (nid ``nid``) in ``unit`` and log it, with its salience
    and the reason; the one archive path (``forget`` and the rescoring job). ``archived_at`` is
    the unit's record time ``unit.now`` (the clock), whatever time the salience was computed at."""
    rec["state"] = MemoryState.ARCHIVED.value
    rec["archived_at"] = unit.now
    unit.put_record(nid, rec)
    unit.log([{"action": "archive", "namespace": rec["namespace"], "id": rec["id"], "kind": rec["kind"],
               "salience": float(salience), "reason": reason}])
    return rec


def enforce_working_capacity(state: EngineState, namespaces: Iterable[str], now: float) -> int:
    """Promote the overflow of each namespace's working tier to episodic (one write unit).

    Returns the number promoted. Called by the engine after a batch that added working
    memories; the rescoring job applies the same capacity. ``now`` (Unix seconds) is the time
    salience is computed at (the verb's, e.g. ``admit_batch(now=)``); the promotion is recorded
    at the engine's clock.
    """
    cfg = state.config.forgetting
    c = state.cols
    n = c.n
    todo = []
    for ns in namespaces:
        sp = state.space(ns)
        if sp is None:
            continue
        sel = np.flatnonzero((c.ns[:n] == sp.code) & c.alive[:n] & (c.state[:n] == _ACTIVE) & (c.kind[:n] == _WORKING))
        if len(sel) <= cfg.working_capacity:
            continue
        s_now = state.salience_now(sel, now)
        pick = overflow(state, sel, s_now, cfg.working_capacity)
        todo.append((sel[pick], np.maximum(s_now[pick], np.float32(cfg.promote_salience)).astype(np.float32)))
    if not todo:
        return 0
    nids = np.concatenate([t[0] for t in todo])
    s_new = np.concatenate([t[1] for t in todo])
    with write_unit(state, "promoting working memories", clock_now(), verb="promote", at=now) as unit:
        for nid, s in zip(nids.tolist(), s_new.tolist()):
            promote(unit, unit.record(nid), nid, s, "working tier over capacity")
    return len(nids)
