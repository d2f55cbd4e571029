"""The batch rescoring job: current salience for every memory, then the forgetting floors.

One pass at time ``now`` (docs/design.md "Memory dynamics": a batch job materialises the lazily
decayed salience and archives/prunes below floors):

1. s(now) for every live memory with the native ``rescore_salience`` kernel (per-kind
   half-lives; the registry's C, Numba or NumPy backend), in chunks for the progress bar;
2. working tier: active ``working`` memories below their archive floor, and the overflow above
   ``working_capacity`` (least salient, then oldest), are promoted to ``episodic`` with
   salience max(s(now), ``promote_salience``): promotion happens before any eviction;
3. archive: active memories (after promotion, with their new kind) below their kind's archive
   floor; decisions held until review and superseded memories are never archived;
4. prune: archived memories (including those archived in step 3) below their kind's prune
   floor are erased, as ``forget(hard=True)`` does; a superseded memory that such an erase
   makes current again goes through steps 3 and 4 in the same pass;
   protected memories (tagged ``forgetting.PROTECTED_TAG``: identity, health and family facts)
   are neither archived nor pruned while ``ForgettingConfig.keep_protected`` is set; they are
   counted in the summary's ``protected_kept``; nor is a slot's current value (an active
   memory filling a subject's attribute) while ``ForgettingConfig.keep_current_slots`` is set
   (``slots_kept``), nor, with it, a change of a value that stays: the later of a
   ``contradicts`` pair whose earlier memory stays active (``changes_kept``: archiving the
   change alone would leave the value it replaced in charge, unwarned);
5. every change is written in one LMDB transaction with one log entry per action; changed
   records get s0 = s(now) and t0 = max(t0, now) (``materialize=True`` does this for every
   record). A summary is returned and stored in ``meta["rescore_last"]``.

Times: ``now`` is the time salience is computed at; the write is recorded at the engine's clock
(``archived_at``, ``promoted_at``, the log entries' ``at``: the write unit's ``now``, while its
``at`` is this ``now``), so a pass at a ``now`` ahead of the clock dates nothing in the future. A
``now`` before a memory's t0 (one recorded after ``now``: a new memory's t0 is its record time)
reads its stored salience (the kernel's age is never negative) and holds it from archiving,
like a decision held until review: a pass at an earlier ``now`` does a part of what a pass at
the clock would do, and never raises a salience.

Idempotent: at the same ``now`` a second pass finds every memory at s0 with t0 >= now, and
nothing left above or below a floor to act on, so it changes no record, edge or log entry
(only the stored summary is rewritten).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..graph.csr import contradicts_nodes
from ..kernels import registry
from ..progress import track
from ..state import EngineState
from ..temporal import said_after
from ..types import KIND_BY_CODE, MemoryKind, MemoryState, Relation, _STATE_CODES
from ..validate import now as clock_now
from ..write import write_unit
from ..write.reinforce import next_t0
from . import forgetting

__all__ = ["rescore", "CHUNK"]

CHUNK = 1 << 20   # memories per kernel call (one progress-bar step)
_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]
_ARCHIVED = _STATE_CODES[MemoryState.ARCHIVED]
_WORKING = MemoryKind.WORKING.code
_EPISODIC = MemoryKind.EPISODIC.code


def _prune(unit, rec: dict, nid: int, salience: float, reason: str) -> None:
    """Log the prune of ``rec`` (nid ``nid``) with its text, then erase it: the one prune path.
    What consolidation made of it (summaries, facts) stays: durable memory with its own half-life."""
    unit.log([{"action": "prune", "namespace": rec["namespace"], "id": rec["id"], "kind": rec["kind"],
               "salience": float(salience), "text": rec["text"], "reason": reason}])
    unit.erase(nid, derived=False)


def _kept(state: EngineState, nids: np.ndarray, cfg) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``nids`` the floors leave alone (bool, shape (len(nids),)), and which of those
    for holding a slot's current value and not for a ``protected`` tag: ``ForgettingConfig``'s
    ``keep_protected`` and ``keep_current_slots`` (:func:`forgetting.kept_apart`)."""
    none = np.zeros(len(nids), np.bool_)
    if not len(nids) or not (cfg.keep_protected or cfg.keep_current_slots):
        return none, none
    tagged, holds = forgetting.kept_apart(state, nids)
    tagged = tagged if cfg.keep_protected else none
    holds = holds & ~tagged if cfg.keep_current_slots else none
    return tagged | holds, holds


def _changes_of_kept_values(state: EngineState, idx: np.ndarray, stays: np.ndarray, at_risk: np.ndarray) -> np.ndarray:
    """Which of the memories ``idx[at_risk]`` change a value that stays: the later of a
    ``contradicts`` pair (:func:`engramdb.temporal.said_after`) whose earlier memory stays
    active (``stays``, bool over ``idx``), directly or through a change kept so (a chain of
    corrections). bool ndarray over ``idx``. Archiving "Dr. Lee moved our check-ins to Fridays at
    10am" while the protected "... Thursdays at 3pm" it changed stayed put the stale value back in
    charge, first at relevance 1.0 with no warning (helper-224)."""
    keep = np.zeros(len(idx), np.bool_)
    risky = np.flatnonzero(at_risk)
    if not len(risky):
        return keep
    csr = state.csr()
    code = Relation.CONTRADICTS.code
    touched = contradicts_nodes(state, csr)[1]   # (most memories touch no such edge)
    risky = risky[touched[np.minimum(idx[risky], len(touched) - 1)]]
    vf = state.cols.valid_from
    stays = stays.copy()
    grew = True
    while grew:   # (a kept change keeps the change of it in turn)
        grew = False
        for i in risky[~keep[risky]].tolist():
            x = int(idx[i])
            ys = csr.related(x, code)
            if not len(ys):
                continue
            pos = np.searchsorted(idx, ys)   # (idx is sorted: flatnonzero)
            mine = (pos < len(idx)) & (idx[np.minimum(pos, len(idx) - 1)] == ys)
            earlier = ys[mine][said_after(vf[x], x, vf[ys[mine]], ys[mine])]
            if len(earlier) and stays[np.searchsorted(idx, earlier)].any():
                keep[i] = stays[i] = grew = True
    return keep


def _judge_revived(state: EngineState, unit, idx: np.ndarray, s_new: np.ndarray, kind: np.ndarray,
                   held: np.ndarray, summary: dict[str, Any]) -> None:
    """Steps 3 and 4 for the memories that a prune of this pass made current again (erasing a
    memory revives what it superseded: ``WriteUnit.revived``), until no prune revives another,
    so that a second pass at the same ``now`` finds nothing to do. Counts go into ``summary``."""
    cfg = state.config.forgetting
    done = 0
    while done < len(unit.revived):
        nids = np.array(unit.revived[done:], np.int64)
        done = len(unit.revived)
        pos = np.minimum(np.searchsorted(idx, nids), len(idx) - 1)   # idx is sorted (flatnonzero)
        mine = idx[pos] == nids   # of this pass's memories (its namespace)
        nids, pos = nids[mine], pos[mine]
        kept = _kept(state, nids, cfg)[0]
        for nid, i, keep in zip(nids.tolist(), pos.tolist(), kept.tolist()):
            rec = unit.record(nid)
            if rec is None or keep or held[i]:
                continue
            floor_a, floor_p = float(cfg.archive_by_code[kind[i]]), float(cfg.prune_by_code[kind[i]])
            if rec["state"] == MemoryState.ACTIVE.value and s_new[i] < floor_a:
                forgetting.archive(unit, rec, nid, float(s_new[i]),
                                   f"revived by a prune, salience {float(s_new[i]):.4g} < archive floor {floor_a:.4g}")
                summary["archived"] += 1
                summary["records_written"] += 1
            if rec["state"] == MemoryState.ARCHIVED.value and s_new[i] < floor_p:
                _prune(unit, rec, nid, float(s_new[i]), f"revived by a prune, archived, salience "
                                                        f"{float(s_new[i]):.4g} < prune floor {floor_p:.4g}")
                summary["pruned"] += 1


def rescore(state: EngineState, now: float, *, namespace: str | None = None, progress: bool = False,
            materialize: bool = False) -> dict[str, Any]:
    """Run one rescoring pass; see the module docstring.

    Parameters
    ----------
    state : EngineState
    now : float
        Unix seconds.
    namespace : str, optional
        One namespace; every namespace when omitted.
    progress : bool
        A rich progress bar over the kernel chunks.
    materialize : bool
        Write s0 = s(now), t0 = now into every record, not only the changed ones.

    Returns
    -------
    dict
        The summary (see ``Engram.rescore``).
    """
    t_start = time.perf_counter()
    cfg = state.config.forgetting
    c = state.cols
    n = c.n
    sel = c.alive[:n].copy()
    if namespace is not None:
        sp = state.space(namespace)
        sel &= c.ns[:n] == (-1 if sp is None else sp.code)
    idx = np.flatnonzero(sel)
    kernel = registry.get("rescore_salience")
    hl = state.config.decay.half_life_by_code
    s_now = np.empty(len(idx), np.float32)
    steps = range(0, len(idx), CHUNK)
    if progress:
        steps = track(steps, "rescoring salience", len(steps))
    for a in steps:
        b = min(a + CHUNK, len(idx))
        part = idx[a:b]
        s_now[a:b] = kernel(c.s0[part], c.t0[part], c.kind[part], hl, float(now))
    kind = c.kind[idx].copy()
    kind_before = kind.copy()
    st = c.state[idx]
    t0 = c.t0[idx]
    held = t0 > now
    s_new = s_now.copy()

    # 2. working tier: below its floor, or over capacity -> promoted to episodic
    work = (st == _ACTIVE) & (kind == _WORKING)
    promote = work & (s_now < cfg.archive_by_code[_WORKING])
    for code in np.unique(c.ns[idx[work & ~promote]]).tolist():
        rest = np.flatnonzero(work & ~promote & (c.ns[idx] == code))
        pick = forgetting.overflow(state, idx[rest], s_now[rest], cfg.working_capacity)
        promote[rest[pick]] = True
    s_new[promote] = np.maximum(s_new[promote], np.float32(cfg.promote_salience))
    kind[promote] = _EPISODIC

    # 3. archive, 4. prune
    floor_a = cfg.archive_by_code[kind]
    archive = (st == _ACTIVE) & ~held & (s_new < floor_a)
    archived_after = (st == _ARCHIVED) | archive
    prune = archived_after & (s_new < cfg.prune_by_code[kind])
    kept = np.zeros(len(idx), np.bool_)
    slot_kept = np.zeros(len(idx), np.bool_)
    if archive.any() or prune.any():
        at_risk = np.flatnonzero(archive | prune)
        keep, slot = _kept(state, idx[at_risk], cfg)
        kept[at_risk[keep]] = True
        slot_kept[at_risk[slot]] = True
        archive &= ~kept
        prune &= ~kept
    change_kept = np.zeros(len(idx), np.bool_)
    if (archive.any() or prune.any()) and cfg.keep_current_slots:
        change_kept = _changes_of_kept_values(state, idx, (st == _ACTIVE) & ~archive, archive | prune)
        kept |= change_kept
        archive &= ~change_kept
        prune &= ~change_kept
    changed = promote | archive
    if materialize:
        changed |= (t0 < now)
    changed &= ~prune

    # counts of memories: a text stored as pieces counts once (its pieces share its fate)
    one = c.head[idx] == idx
    summary: dict[str, Any] = {"now": float(now), "namespace": namespace, "scanned": int(one.sum()),
                               "promoted": int((promote & one).sum()), "archived": int((archive & one).sum()),
                               "pruned": int((prune & one).sum()), "records_written": int(changed.sum()),
                               "protected_kept": int((kept & ~slot_kept & ~change_kept & one).sum()),
                               "slots_kept": int((slot_kept & one).sum()),
                               "changes_kept": int((change_kept & one).sum()),
                               # recorded after ``now``: the kernel counts no negative age, so these
                               # keep their stored salience (a backfill rescored at a past ``now``)
                               "recorded_after_now": int((held & np.isfinite(t0) & one).sum()),
                               "kernel_backend": registry.active_backend(), "by_kind": {}}
    for kc, kname in enumerate(KIND_BY_CODE):
        m = kind_before == kc
        after = (kind == kc) & one
        summary["by_kind"][kname.value] = {
            "memories": int((m & one).sum()),
            "active_after": int((after & (st == _ACTIVE) & ~archive & ~prune).sum()),
            "promoted": int((promote & m & one).sum()), "archived": int((archive & after).sum()),
            "pruned": int((prune & after).sum()),
            "mean_salience": round(float(s_now[m].mean()), 6) if m.any() else None,
        }

    w_idx = np.flatnonzero(changed)
    p_idx = np.flatnonzero(prune)
    store = state.store
    if len(w_idx) or len(p_idx):
        def archive_reason(i: int) -> str:
            return f"salience {float(s_new[i]):.4g} < archive floor {float(floor_a[i]):.4g}"

        # recorded at the clock (archive times, log entries, edges), computed at now
        with write_unit(state, "rescoring salience", clock_now(), verb="rescore", at=float(now)) as unit:
            for i in w_idx.tolist():
                nid = int(idx[i])
                rec = unit.record(nid)
                if archive[i] and rec["state"] == MemoryState.ARCHIVED.value:
                    archive[i] = False   # a piece archived with the memory it belongs to
                if promote[i]:
                    reason = ("below the working floor" if s_now[i] < cfg.archive_by_code[_WORKING]
                              else "working tier over capacity")
                    forgetting.promote(unit, rec, nid, float(s_new[i]), reason)
                rec["salience"] = float(s_new[i])
                rec["salience_at"] = next_t0(float(t0[i]), now)
                if archive[i]:
                    forgetting.archive(unit, rec, nid, float(s_new[i]), archive_reason(i))
                else:
                    unit.put_record(nid, rec)
            for i in p_idx.tolist():
                nid = int(idx[i])
                rec = unit.record(nid)
                if rec is None:   # a piece, erased with the memory it belongs to
                    continue
                if archive[i]:   # archived and pruned in this pass: both steps are logged
                    unit.log([{"action": "archive", "namespace": rec["namespace"], "id": rec["id"],
                               "kind": rec["kind"], "salience": float(s_new[i]), "reason": archive_reason(i)}])
                _prune(unit, rec, nid, float(s_new[i]), f"archived, salience {float(s_new[i]):.4g} < prune floor "
                                                        f"{float(cfg.prune_by_code[kind[i]]):.4g}")
            if unit.revived:
                _judge_revived(state, unit, idx, s_new, kind, held, summary)
            summary["seconds"] = round(time.perf_counter() - t_start, 6)
            store.put_meta(unit.txn, "rescore_last", summary)
    else:
        summary["seconds"] = round(time.perf_counter() - t_start, 6)
        if not state.readonly:
            with store.write("storing the rescoring summary") as txn:
                store.put_meta(txn, "rescore_last", summary)
    return summary
