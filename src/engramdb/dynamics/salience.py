"""Salience dynamics: lazy per-kind decay, reinforcement, link boosts and decision holds.

Salience is stored as (s0, t0) per memory and read as s(now) = s0 * 2**(-(now - t0) / h[kind])
by the ``rescore_salience`` kernel (Settles & Meeder 2016, section 3.1; docs/design.md "Memory
dynamics"). The writes that change it (reinforcement, link boosts, the decision hold) live in
:mod:`engramdb.write.reinforce`, the one place that reinforces; this module adds the review of
a held decision and re-exports the salience rules.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidInputError
from ..state import EngineState
from ..types import MemoryKind
from ..validate import now as clock_now
from ..write import write_unit
from ..write.reinforce import HELD, STRUCTURAL_RELATIONS, boosted, initial_t0, next_t0

__all__ = ["HELD", "STRUCTURAL_RELATIONS", "initial_t0", "boosted", "next_t0", "review", "end_hold"]


def end_hold(rec: dict, now: float) -> None:
    """End a held decision's hold in its record (in place): ``reviewed_at`` becomes ``now`` and its
    salience decays from ``now`` on. A record already reviewed keeps its first review time.

    Parameters
    ----------
    rec : dict
        A stored decision record.
    now : float
        Review time, Unix seconds.
    """
    if rec.get("reviewed_at") is None:
        rec["reviewed_at"] = now
        if rec["salience_at"] > now:
            rec["salience_at"] = now


def review(state: EngineState, nid: int, now: float) -> float:
    """Mark decision ``nid`` reviewed: its held salience starts decaying from ``now``.

    Reviewing twice keeps the first review time. A review with an outcome is
    :func:`engramdb.decisions.review_outcome`, which ends the hold the same way.

    Parameters
    ----------
    state : EngineState
    nid : int
    now : float
        Unix seconds.

    Returns
    -------
    float
        Salience at ``now``.

    Raises
    ------
    InvalidInputError
        The memory is not a decision.
    """
    # recorded at the clock; the hold ends at now (the review time, which may be simulated)
    with write_unit(state, "reviewing a decision", clock_now(), verb="review", at=now) as unit:
        rec = unit.record(nid)
        if rec["kind"] != MemoryKind.DECISION.value:
            raise InvalidInputError(f"memory {rec['id']!r} is a {rec['kind']} memory; only decisions are reviewed")
        if rec.get("reviewed_at") is None:
            end_hold(rec, now)
            unit.put_record(nid, rec)
    return float(state.salience_now(np.array([nid]), now)[0])
