"""Salience dynamics: lazy per-kind decay, reinforcement, link boosts and decision holds.

Salience is stored as (s0, t0) per memory and read as s(now) = s0 * 2**(-(now - t0) / h[kind])
by the ``rescore_salience`` kernel (Settles & Meeder 2016, section 3.1; docs/design.md "Memory
dynamics"). Every change here writes a new (s0, t0) pair:

- reinforcement (a recall, a duplicate re-admitted): s <- s(now) + rate * (1 - s(now)), t0 = now;
- a link boost (an explicit link between two memories): the same with ``DecayConfig.link_boost``;
- a decision held until review has t0 = +inf (:data:`HELD`): the kernels count a t0 after now as
  age 0, so its salience stays s0 until :func:`review` sets t0 = now and decay starts.

Between two such writes salience only decays, so it stays in [0, 1] and never increases.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..types import MemoryKind, Relation

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Engram

__all__ = ["HELD", "STRUCTURAL_RELATIONS", "initial_t0", "boosted", "next_t0", "reinforce_in_txn",
           "boost_links_in_txn", "review"]

#: t0 of a decision held until its outcome is reviewed (no decay).
HELD = math.inf

#: Relations that record structure or provenance (order, session, speaker, containment, entity
#: mentions) rather than a relation of meaning: linking over them does not boost salience
#: (ingest adds several per conversation turn, which would push a session node to 1).
STRUCTURAL_RELATIONS = frozenset({Relation.NEXT.code, Relation.SAME_SESSION.code, Relation.SAME_SPEAKER.code,
                                  Relation.DISCUSSED_IN.code, Relation.EXTRACTED_FROM.code,
                                  Relation.MENTIONS.code})


def initial_t0(kind: MemoryKind, now: float, hold_decisions: bool) -> float:
    """t0 of a new memory: ``now``, or :data:`HELD` for a decision held until review."""
    return HELD if hold_decisions and kind is MemoryKind.DECISION else now


def next_t0(t0: float, now: float) -> float:
    """t0 after a write at ``now``: a held (or future) t0 is kept, so a hold survives recalls."""
    return t0 if t0 > now else now


def boosted(s: np.ndarray | float, rate: float):
    """s + rate * (1 - s): moves salience toward 1 by ``rate`` of the remaining gap; stays in [0, 1]."""
    return s + rate * (1.0 - s)


def reinforce_in_txn(eng: "Engram", txn, counts: dict[int, int], now: float, rate: float,
                     *, access: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reinforce stored memories ``counts`` (nid -> times) inside the write transaction ``txn``.

    Each time applies :func:`boosted` to the current salience; ``access`` also counts an access
    (``access_count`` and ``last_access``). Returns (nids int64, s0 float32, t0 float64) for the
    column cache, to apply after the commit.
    """
    if not counts:
        return np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.float64)
    nids = np.fromiter(counts, np.int64, len(counts))
    s = eng._salience_now(nids, now).astype(np.float64)
    t0s = np.empty(len(nids), np.float64)
    for i, nid in enumerate(nids.tolist()):
        for _ in range(counts[nid]):
            s[i] = boosted(s[i], rate)
        s[i] = min(max(s[i], 0.0), 1.0)
        rec = eng._store.get_record(txn, nid)
        rec["salience"] = float(np.float32(s[i]))
        rec["salience_at"] = t0s[i] = next_t0(float(eng._cols.t0[nid]), now)
        if access:
            rec["access_count"] += counts[nid]
            rec["last_access"] = now
        eng._store.put_record(txn, nid, rec)
    return nids, s.astype(np.float32), t0s


def boost_links_in_txn(eng: "Engram", txn, prepared: list, edges: Iterable[tuple], now: float) -> list:
    """Boost both ends of each explicit, non-structural link (DecayConfig.link_boost).

    ``prepared`` are the batch's new memories (their ``salience`` is raised before they are
    written); ``edges`` are (src nid, tgt nid, relation code, weight). Stored ends are updated
    in ``txn``. Returns (nid, s0, t0) of the stored ones for the column cache.
    """
    rate = eng.config.decay.link_boost
    if rate <= 0.0:
        return []
    new_by_nid = {p.nid: p for p in prepared}
    stored: dict[int, int] = {}
    for src, tgt, rel, _w in edges:
        if rel in STRUCTURAL_RELATIONS:
            continue
        for nid in (src, tgt):
            p = new_by_nid.get(nid)
            if p is not None:
                p.salience = float(np.float32(min(boosted(p.salience, rate), 1.0)))
            else:
                stored[nid] = stored.get(nid, 0) + 1
    nids, s, t = reinforce_in_txn(eng, txn, stored, now, rate, access=False)
    return list(zip(nids.tolist(), s.tolist(), t.tolist()))


def review(eng: "Engram", id: str, namespace: str, now: float) -> float:
    """Mark decision ``id`` reviewed: its held salience starts decaying from ``now``.

    Returns the salience at ``now``. Raises InvalidInputError for a memory that is not a
    decision; reviewing twice keeps the first review time.
    """
    from ..errors import InvalidInputError

    nid = eng._nid(namespace, id)
    with eng._store.write("reviewing a decision") as txn:
        rec = eng._store.get_record(txn, nid)
        if rec["kind"] != MemoryKind.DECISION.value:
            raise InvalidInputError(f"memory {id!r} is a {rec['kind']} memory; only decisions are reviewed")
        if rec.get("reviewed_at") is not None:
            return float(eng._salience_now(np.array([nid]), now)[0])
        rec["reviewed_at"] = now
        if rec["salience_at"] > now:
            rec["salience_at"] = now
        eng._store.put_record(txn, nid, rec)
        mem_gen = eng._bump_mem_gen(txn)
    eng._mem_gen = mem_gen
    eng._cols.t0[nid] = rec["salience_at"]
    return float(eng._salience_now(np.array([nid]), now)[0])
