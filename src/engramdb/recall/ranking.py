"""Recall stage 3, ranking: filters, time cues and the salience / recency / confidence blend.

1. Filters (shared with ``query``, :mod:`engramdb.recall.filters`) over the reached memories.
2. Time cues: "in May 2023", "last week", "two weeks ago" in the question become windows
   (:func:`engramdb.timeref.resolve_time_refs`), resolved against the namespace's newest event
   time (the conversation's own clock); memories whose event time falls inside [start, end)
   gain ``w_time`` x the best score.
3. Blend: score x (1 - ws - wr - wc + ws * salience(now) + wr * recency + wc * confidence).

Exact ties keep insertion order (the earlier-recorded memory first), as in ``query``.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ..kernels import registry
from ..timeref import resolve_time_refs
from .context import RecallContext

__all__ = ["run", "time_windows", "ranked"]


def time_windows(ctx: RecallContext) -> list:
    """Time windows named in the question, resolved against the namespace's newest event time."""
    req = ctx.request
    if req.query is None or req.config.w_time <= 0:
        return []
    return resolve_time_refs(req.query, ctx.state.latest(ctx.space.name))


def run(ctx: RecallContext) -> None:
    """Fill ``ctx.cand`` (node rows passing the filters) and ``ctx.score`` (by candidate)."""
    state, req, cfg = ctx.state, ctx.request, ctx.request.config
    c = state.cols
    nodes = ctx.nodes
    cand = np.flatnonzero(req.filters.mask(c, nodes, ctx.space.code))
    # exact ties keep insertion order (the earlier-recorded memory first), the rule of query too:
    # the top-k kernel breaks ties by position, so the candidates go in nid order
    cand = cand[np.argsort(nodes[cand], kind="stable")]
    cnodes = nodes[cand]
    score = ctx.total[cand]
    windows = time_windows(ctx)
    if windows and len(cnodes):
        t = c.created_at[cnodes]
        inside = np.zeros(len(cnodes), bool)
        for w in windows:
            inside |= (t >= w.start) & (t < w.end)
        score = score + cfg.w_time * inside * score.max()
    ws, wr, wc = cfg.w_salience, cfg.w_recency, cfg.w_confidence
    if len(cnodes) and (ws or wr or wc):
        blend = 1.0 - ws - wr - wc + wc * c.confidence[cnodes]
        if ws:
            blend = blend + ws * state.salience_now(cnodes, req.now)
        if wr:
            age = np.maximum(req.now - c.created_at[cnodes], 0.0)
            blend = blend + wr * np.exp2(-age / cfg.recency_half_life_s)
        score = score * blend
    ctx.cand, ctx.score = cand, score


def ranked(ctx: RecallContext, first: int) -> Iterator[int]:
    """Candidate positions best first: the best ``first`` by the ``topk`` kernel, then (only if
    the caller reads past them, e.g. a tag filter dropped some) all the rest in order."""
    topk = ctx.state.scratch.get("topk")
    if topk is None:
        topk = ctx.state.scratch["topk"] = registry.get("topk")
    score32 = ctx.score.astype(np.float32)
    head = topk(score32, first)
    yield from head.tolist()
    if len(head) < len(score32):
        yield from topk(score32, len(score32))[len(head):].tolist()
