"""Salience updates of a write: reinforcement, link boosts and the decision hold.

Salience is stored as (s0, t0) per memory and read as s(now) = s0 * 2**(-(now - t0) / h[kind])
(Settles & Meeder 2016, section 3.1; docs/design.md "Memory dynamics"). Every change here
writes a new (s0, t0) pair, through the write unit:

- reinforcement (a recall, a repeated text, a duplicate re-admitted):
  s <- s(now) + rate * (1 - s(now)) per time, t0 = now;
- a link boost (an explicit, non-structural link): the same with ``DecayConfig.link_boost``;
- a decision held until review has t0 = +inf (:data:`HELD`): the kernels count a t0 after now as
  age 0, so its salience stays s0 until ``review`` sets t0 = now and decay starts.

Between two such writes salience only decays, so it stays in [0, 1] and never increases.
This module is the only place that reinforces; recall, add, link and admission call it.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from ..types import MemoryKind, Relation
from .unit import WriteUnit

__all__ = ["HELD", "STRUCTURAL_RELATIONS", "initial_t0", "boosted", "next_t0", "reinforce", "boost_links"]

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


def reinforce(unit: WriteUnit, counts: dict[int, int], rate: float, *, access: bool = True,
              at: float | None = None) -> None:
    """Reinforce stored memories ``counts`` (nid -> times) in ``unit``.

    Each time applies :func:`boosted` to the salience at ``at`` (default: the unit's dynamics
    time ``unit.at``; float64, clipped to [0, 1], stored as float32; t0 becomes ``at``, or stays
    when later: :func:`next_t0`); ``access`` also counts the accesses (``access_count`` and
    ``last_access``, at ``at``).

    Parameters
    ----------
    unit : WriteUnit
    counts : dict of int -> int
        How many times each nid is reinforced.
    rate : float
        In [0, 1]: ``DecayConfig.reinforce_rate`` or ``link_boost``.
    access : bool
    at : float, optional
        Unix seconds: the dynamics time of these reinforcements (a backfilled memory's link
        boosts its stored end at that memory's record time).
    """
    if not counts:
        return
    counts = _memories(unit, counts)
    now = unit.at if at is None else at   # the write's dynamics time (WriteUnit.at), not its record time
    nids = np.fromiter(counts, np.int64, len(counts))
    s = unit.state.salience_now(nids, now).astype(np.float64)
    for i, nid in enumerate(nids.tolist()):
        for _ in range(counts[nid]):
            s[i] = boosted(s[i], rate)
        rec = unit.record(nid)
        rec["salience"] = float(np.float32(min(max(s[i], 0.0), 1.0)))
        rec["salience_at"] = next_t0(float(rec["salience_at"]), now)
        if access:
            rec["access_count"] += counts[nid]
            rec["last_access"] = now
        unit.put_record(nid, rec)


def _memories(unit: WriteUnit, counts: dict[int, int]) -> dict[int, int]:
    """``counts`` with each piece of a long text counted for its memory (the first piece):
    salience belongs to the memory, and :meth:`WriteUnit.put_record` hands it to every piece."""
    out: dict[int, int] = {}
    for nid, n in counts.items():
        rec = unit.record(nid)
        head = None if rec is None or rec.get("chunk_of") is None else unit.lookup(rec["namespace"], rec["chunk_of"])
        key = nid if head is None else head
        out[key] = out.get(key, 0) + n
    return out


def boost_links(unit: WriteUnit, prepared: list, edges: Iterable[tuple], rate: float) -> None:
    """Boost both ends of each explicit, non-structural link by ``rate`` (``DecayConfig.link_boost``).

    ``prepared`` are the write's new memories (their ``salience`` is raised before they are
    written); ``edges`` are (src nid, tgt nid, relation code, weight). Stored ends are
    reinforced in ``unit`` without counting an access, at the unit's dynamics time, or at the
    record time of the edge's new end when that is earlier (a backfilled memory linked to another
    is linked when it was recorded: boosting the other at the clock would first decay it over
    the whole time between, to the floor, and date it now).
    """
    if rate <= 0.0:
        return
    new_by_nid = {p.nid: p for p in prepared}
    stored: dict[int, int] = {}       # nid -> boosts
    stored_at: dict[int, float] = {}  # nid -> the time of its latest link in this write
    for src, tgt, rel, _w in edges:
        if rel in STRUCTURAL_RELATIONS:
            continue
        new_ends = [new_by_nid[n] for n in (src, tgt) if n in new_by_nid]
        at = min([unit.at, *(p.recorded_at for p in new_ends)])
        for nid in (src, tgt):
            p = new_by_nid.get(nid)
            if p is not None:
                p.salience = float(np.float32(min(boosted(p.salience, rate), 1.0)))
            else:
                stored[nid] = stored.get(nid, 0) + 1
                stored_at[nid] = max(stored_at.get(nid, at), at)
    # one reinforcement per stored memory (its boosts together, at its latest link's time): the
    # salience it reads is the committed one, so two at different times would not add up
    by_time: dict[float, dict[int, int]] = {}
    for nid, n in stored.items():
        by_time.setdefault(stored_at[nid], {})[nid] = n
    for at, counts in by_time.items():
        reinforce(unit, counts, rate, access=False, at=at)
