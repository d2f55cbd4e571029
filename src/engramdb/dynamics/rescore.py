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
   floor are erased, as ``forget(hard=True)`` does;
5. every change is written in one LMDB transaction with one log entry per action; changed
   records get s0 = s(now) and t0 = max(t0, now) (``materialize=True`` does this for every
   record). A summary is returned and stored in ``meta["rescore_last"]``.

Idempotent: at the same ``now`` a second pass finds every memory at s0 with t0 >= now, and
nothing left above or below a floor to act on, so it changes no record, edge or log entry
(only the stored summary is rewritten).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ..kernels import registry
from ..types import KIND_BY_CODE, MemoryKind, MemoryState, _STATE_CODES
from . import forgetting
from .salience import next_t0

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Engram

__all__ = ["rescore", "CHUNK"]

CHUNK = 1 << 20   # memories per kernel call (one progress-bar step)
_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]
_ARCHIVED = _STATE_CODES[MemoryState.ARCHIVED]
_WORKING = MemoryKind.WORKING.code
_EPISODIC = MemoryKind.EPISODIC.code


def rescore(eng: "Engram", now: float, *, namespace: str | None = None, progress: bool = False,
            materialize: bool = False) -> dict[str, Any]:
    """Run one rescoring pass; see the module docstring. Returns the summary dict."""
    t_start = time.perf_counter()
    cfg = eng.config.forgetting
    c = eng._cols
    n = c.n
    sel = c.alive[:n].copy()
    if namespace is not None:
        sel &= c.ns[:n] == eng._ns_codes.get(namespace, -1)
    idx = np.flatnonzero(sel)
    kernel = registry.get("rescore_salience")
    hl = eng.config.decay.half_life_by_code
    s_now = np.empty(len(idx), np.float32)
    steps = range(0, len(idx), CHUNK)
    if progress:
        from rich.progress import track

        steps = track(steps, description="rescoring salience", total=len(steps), transient=True)
    for a in steps:
        b = min(a + CHUNK, len(idx))
        part = idx[a:b]
        s_now[a:b] = kernel(c.s0[part], c.t0[part], c.kind[part], hl, float(now))
    kind = c.kind[idx].copy()
    kind_before = kind.copy()
    state = c.state[idx]
    t0 = c.t0[idx]
    held = t0 > now
    s_new = s_now.copy()

    # 2. working tier: below its floor, or over capacity -> promoted to episodic
    work = (state == _ACTIVE) & (kind == _WORKING)
    promote = work & (s_now < cfg.archive_by_code[_WORKING])
    for code in np.unique(c.ns[idx[work & ~promote]]).tolist():
        rest = np.flatnonzero(work & ~promote & (c.ns[idx] == code))
        pick = forgetting.overflow(eng, idx[rest], s_now[rest], cfg.working_capacity)
        promote[rest[pick]] = True
    s_new[promote] = np.maximum(s_new[promote], np.float32(cfg.promote_salience))
    kind[promote] = _EPISODIC

    # 3. archive, 4. prune
    floor_a = cfg.archive_by_code[kind]
    archive = (state == _ACTIVE) & ~held & (s_new < floor_a)
    archived_after = (state == _ARCHIVED) | archive
    prune = archived_after & (s_new < cfg.prune_by_code[kind])
    changed = promote | archive
    if materialize:
        changed |= (t0 < now)
    changed &= ~prune

    summary: dict[str, Any] = {"now": float(now), "namespace": namespace, "scanned": int(len(idx)),
                               "promoted": int(promote.sum()), "archived": int(archive.sum()),
                               "pruned": int(prune.sum()), "records_written": int(changed.sum()),
                               "kernel_backend": registry.active_backend(), "by_kind": {}}
    for kc, kname in enumerate(KIND_BY_CODE):
        m = kind_before == kc
        after = kind == kc
        summary["by_kind"][kname.value] = {
            "memories": int(m.sum()),
            "active_after": int((after & (state == _ACTIVE) & ~archive & ~prune).sum()),
            "promoted": int((promote & m).sum()), "archived": int((archive & (kind == kc)).sum()),
            "pruned": int((prune & (kind == kc)).sum()),
            "mean_salience": round(float(s_now[m].mean()), 6) if m.any() else None,
        }

    w_idx = np.flatnonzero(changed)
    p_idx = np.flatnonzero(prune)
    t0_new = np.array([next_t0(float(x), now) for x in t0[w_idx].tolist()], np.float64)
    store = eng._store
    erase = None
    logs = []
    if len(w_idx) or len(p_idx):
        with store.write("rescoring salience") as txn:
            eng._check_not_changed_elsewhere(txn)
            for j, i in enumerate(w_idx.tolist()):
                nid = int(idx[i])
                rec = store.get_record(txn, nid)
                rec["salience"] = float(s_new[i])
                rec["salience_at"] = float(t0_new[j])
                if promote[i]:
                    rec["kind"] = MemoryKind.EPISODIC.value
                    rec["promoted_from"] = MemoryKind.WORKING.value
                    rec["promoted_at"] = float(now)
                    logs.append({"action": "promote", "namespace": rec["namespace"], "id": rec["id"],
                                 "kind": MemoryKind.WORKING.value, "to_kind": MemoryKind.EPISODIC.value,
                                 "salience": float(s_new[i]),
                                 "reason": "below the working floor" if s_now[i] < cfg.archive_by_code[_WORKING]
                                 else "working tier over capacity"})
                if archive[i]:
                    rec["state"] = MemoryState.ARCHIVED.value
                    logs.append({"action": "archive", "namespace": rec["namespace"], "id": rec["id"],
                                 "kind": rec["kind"], "salience": float(s_new[i]),
                                 "reason": f"salience {float(s_new[i]):.4g} < archive floor "
                                           f"{float(floor_a[i]):.4g}"})
                store.put_record(txn, nid, rec)
            if len(p_idx):
                for i in p_idx.tolist():
                    rec = store.get_record(txn, int(idx[i]))
                    if archive[i]:   # archived and pruned in this pass: both steps are logged
                        logs.append({"action": "archive", "namespace": rec["namespace"], "id": rec["id"],
                                     "kind": rec["kind"], "salience": float(s_new[i]),
                                     "reason": f"salience {float(s_new[i]):.4g} < archive floor "
                                               f"{float(floor_a[i]):.4g}"})
                    logs.append({"action": "prune", "namespace": rec["namespace"], "id": rec["id"],
                                 "kind": rec["kind"], "salience": float(s_new[i]), "text": rec["text"],
                                 "reason": f"archived, salience {float(s_new[i]):.4g} < prune floor "
                                           f"{float(cfg.prune_by_code[kind[i]]):.4g}"})
                erase = forgetting.erase_in_txn(eng, txn, [int(idx[i]) for i in p_idx.tolist()])
            forgetting.append_log(eng, txn, logs, float(now))
            mem_gen = eng._bump_mem_gen(txn)
            summary["seconds"] = round(time.perf_counter() - t_start, 6)
            store.put_meta(txn, "rescore_last", summary)
        eng._mem_gen = mem_gen
        nids = idx[w_idx]
        c.s0[nids] = s_new[w_idx]
        c.t0[nids] = t0_new
        c.kind[nids] = kind[w_idx]
        c.state[idx[w_idx[archive[w_idx]]]] = _ARCHIVED
        if erase is not None:
            forgetting.apply_erase(eng, *erase)
    else:
        summary["seconds"] = round(time.perf_counter() - t_start, 6)
        if not eng.readonly:
            with store.write("storing the rescoring summary") as txn:
                store.put_meta(txn, "rescore_last", summary)
    return summary
