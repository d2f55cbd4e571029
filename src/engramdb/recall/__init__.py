"""Recall, the hot path, as a list of stages over a typed context (:mod:`.context`):

1. :mod:`.seeds` — the vector leg, the keyword leg with feedback, fusion;
2. :mod:`.activation` — the density gate, spreading activation, lateral inflow;
3. :mod:`.ranking` — filters (:mod:`.filters`, shared with ``query``), time cues, the
   salience / recency / confidence blend;
4. :mod:`.results` — hits with paths, gaps, warnings.

:func:`recall` runs them; reinforcement of the hits is a write, done by the engine afterwards.
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..state import EngineState
from ..types import Gap, RecallResult
from . import activation, legs, ranking, results, router, seeds
from .context import RecallContext, RecallRequest
from .filters import Filters

__all__ = ["recall", "recall_batch", "STAGES", "RecallRequest", "RecallContext", "Filters"]

#: The stages in order; each fills its part of the context.
STAGES = (seeds.run, activation.run, ranking.run)
#: Their names in ``RecallResult.stats["stage_s"]``, which also holds ``prepare`` (argument
#: checks and query embedding, from the verb's start), ``results`` and ``widen``.
STAGE_NAMES = ("seeds", "activation", "ranking")


def recall(state: EngineState, request: RecallRequest, *, trace: list | None = None,
           t_start: float | None = None) -> tuple[RecallResult, list[int]]:
    """Run the stages for ``request``; returns the result and the hits' nids (for reinforcement).

    Parameters
    ----------
    state : EngineState
    request : RecallRequest
        Checked arguments.
    trace : list, optional
        Debug hook: receives ``(namespace, seed nids, reached nids)``.
    t_start : float, optional
        ``time.perf_counter()`` when the verb started (for ``latency_s``).
    """
    with legs.recalling():
        return _recall(state, request, trace, time.perf_counter() if t_start is None else t_start)


def _recall(state: EngineState, request: RecallRequest, trace: list | None,
            t_start: float) -> tuple[RecallResult, list[int]]:
    request = _route(request)
    space = state.space(request.namespace)
    if space is None or space.index is None or len(space.index) == 0:
        # the other namespaces' names are for the developer (EmptyNamespaceWarning), never in the
        # answer: a gap can reach another tenant's prompt
        anywhere = "" if state.names() else "; the store holds no memories yet"
        gap = Gap(request.query, "empty_namespace", None,
                  f"namespace {request.namespace!r} holds no memories{anywhere}")
        return RecallResult([], [gap], "vector", 0.0, time.perf_counter() - t_start), []
    ctx = RecallContext(state, request, space, trace)
    t = time.perf_counter()
    stage_s = {"prepare": t - t_start}
    for stage, name in zip(STAGES, STAGE_NAMES):
        stage(ctx)
        t, t0 = time.perf_counter(), t
        stage_s[name] = t - t0
    answer = _result(ctx, t_start)
    t, t0 = time.perf_counter(), t
    stage_s["results"] = t - t0
    answer = _widened(ctx, answer, t_start)
    t, t0 = time.perf_counter(), t
    stage_s["widen"] = t - t0
    answer[0].stats["stage_s"] = stage_s
    answer[0].latency_s = t - t_start   # the stages' sum, up to rounding
    return answer


def _route(request: RecallRequest) -> RecallRequest:
    """The request with the intent router's configuration (:mod:`.router`; itself when routing is off)."""
    cfg = router.routed_config(request.config, request.query)
    return request if cfg is request.config else replace(request, config=cfg)


def _widened(ctx: RecallContext, answer: tuple[RecallResult, list[int]],
             t_start: float) -> tuple[RecallResult, list[int]]:
    """A selective filter that left fewer than k hits: recall again over exactly the memories that
    pass it (exact vector scan and BM25 restricted to them), so a qualifying memory is found
    even when the unfiltered candidates never reached it. The first answer's scored hits stay,
    first and in their order (they were reached over the whole graph, through memories the
    filter drops); the second answer's others follow, then the first answer's unscored fill (the
    vector leg's next nearest, score 0), up to k. So a larger k keeps the hits of a smaller one,
    and no fill stands above a scored hit."""
    request = ctx.request
    first, first_nids = answer
    scored = ctx.extra.get("scored_hits", len(first.hits))   # the rest: unscored vector-leg fill
    if scored >= request.k or not request.filters.narrows:
        return answer
    allowed = allowed_nids(ctx.state, request, ctx.space)
    if len(allowed) <= scored:
        return answer
    ctx = RecallContext(ctx.state, request, ctx.space, ctx.trace, allowed=allowed)
    for stage in STAGES:
        stage(ctx)
    second, second_nids = _result(ctx, t_start)
    if not first.hits:   # nothing reached passed: the second answer, with its own gaps
        return second, second_nids
    # the first answer's scored hits first, then the second's, then the fill (score 0) of either
    first_pairs = list(zip(first.hits, first_nids))
    ranked = first_pairs[:scored] + list(zip(second.hits, second_nids)) + first_pairs[scored:]
    seen: set[str] = set()
    merged = [(h, nid) for h, nid in ranked if not (h.id in seen or seen.add(h.id))][: request.k]
    if [h.id for h, _ in merged] == [h.id for h in first.hits]:
        return answer
    hits = [h for h, _ in merged]
    gaps = first.gaps
    if request.query is not None and max(h.relevance for h in hits) >= request.relevance[1]:
        gaps = [g for g in gaps if g.reason != "weak_evidence"]   # judged on the best hit given
    warned = {(w.source, w.target) for w in first.warnings}
    warnings = first.warnings + [w for w in second.warnings if (w.source, w.target) not in warned]
    return replace(first, hits=hits, gaps=gaps, warnings=warnings), [nid for _, nid in merged]


def allowed_nids(state: EngineState, request: RecallRequest, space) -> np.ndarray:
    """Live nids of the namespace that pass every filter of ``request`` (tags read per record)."""
    c = state.cols
    filters = request.filters
    slots = state.slot_table(space.name) if filters.slotted else None
    nids = filters.slot_members(slots) if filters.slotted else np.flatnonzero(c.in_namespace(space.code))
    nids = nids[filters.mask(c, nids, space.code, slots)]
    if request.filters.tags is not None and len(nids):
        recs = state.records(nids.tolist(), "reading tags for a filter")
        nids = nids[[rec is not None and request.filters.tags_ok(rec) for rec in recs]]
    return nids.astype(np.int64)


def _result(ctx: RecallContext, t_start: float) -> tuple[RecallResult, list[int]]:
    hits, nids, gaps, warnings = results.run(ctx)
    return RecallResult(hits, gaps, ctx.mode, ctx.density, time.perf_counter() - t_start,
                        {"seeds": int(len(ctx.vec_nids)), "activated": int(len(ctx.nodes)),
                         "relevance_threshold": float(ctx.request.relevance[1])}, warnings), nids


def recall_batch(state: EngineState, requests: list[RecallRequest], *,
                 trace: list | None = None) -> list[tuple[RecallResult, list[int]]]:
    """:func:`recall` for many requests of one namespace and one configuration: the seeds stage
    per request, then one ``spread_activation_batch`` kernel call for all of them, then ranking
    and results per request. Each answer equals :func:`recall` of that request alone; its
    ``latency_s`` is the whole batch's time divided by the number of requests."""
    t_start = time.perf_counter()
    if requests and requests[0].config.route:   # routed configurations differ per query
        out = [recall(state, request, trace=trace, t_start=t_start) for request in requests]
        share = (time.perf_counter() - t_start) / len(requests)
        for result, _nids in out:
            result.latency_s = share
        return out
    out: list = [None] * len(requests)
    ctxs = []
    for i, request in enumerate(requests):
        space = state.space(request.namespace)
        if space is None or space.index is None or len(space.index) == 0:
            out[i] = recall(state, request, t_start=t_start)
            continue
        ctx = RecallContext(state, request, space, trace)
        seeds.run(ctx)
        ctxs.append((i, ctx))
    activation.run_batch([ctx for _, ctx in ctxs])
    for i, ctx in ctxs:
        ranking.run(ctx)
        out[i] = _widened(ctx, _result(ctx, t_start), t_start)
    share = (time.perf_counter() - t_start) / max(len(requests), 1)
    for result, _nids in out:
        result.latency_s = share
    return out
