"""Recall stage 1, seeds: the vector leg, the keyword leg with feedback, and their fusion.

- vector leg: the ``seed_k`` nearest memories in the namespace's hnswlib index (cosine >=
  ``cosine_floor``);
- keyword leg: the best ``keyword_k`` memories by BM25 over the namespace's postings, run a
  second time with the query plus the ``prf_terms`` most telling terms of its first
  ``prf_docs`` hits (pseudo-relevance feedback: Rocchio 1971; RM3, Lavrenko & Croft 2001);
- fusion: base = w_vector * v + w_keyword * kw on one scale (:func:`fuse`), the best seed at 1.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..config import RecallConfig
from ..index.keyword import KeywordIndex, tokenize
from .context import RecallContext

__all__ = ["run", "vector_scale", "fuse"]


def run(ctx: RecallContext) -> None:
    """Fill ``ctx.vec_*``, ``ctx.kw_*``, ``ctx.seeds``, ``ctx.base`` and ``ctx.seed_cos``."""
    req, cfg = ctx.request, ctx.request.config
    allowed = ctx.allowed
    if allowed is None:
        labels, cos = ctx.space.index.knn(req.vector, max(cfg.seed_k, req.k))
    else:   # a selective filter: the exact nearest among the memories that pass it
        labels, cos = ctx.space.index.exact_knn(req.vector, max(cfg.seed_k, req.k), labels=allowed)
    keep = cos >= cfg.cosine_floor
    ctx.vec_nids, ctx.vec_cos = labels[keep], cos[keep]
    if req.query is not None and cfg.w_keyword > 0:
        kw = ctx.space.keyword
        nids, score = kw.search(req.query, cfg.keyword_k, allowed)
        if len(nids) and cfg.prf_terms > 0:
            nids, score = _expanded_search(ctx, kw, nids, cfg)
        ctx.kw_nids, ctx.kw_score = nids, score
    ctx.seeds, ctx.base, ctx.seed_cos = fuse(ctx.vec_nids, ctx.vec_cos, ctx.kw_nids, ctx.kw_score,
                                             lambda nids: ctx.state.vectors(nids) @ req.vector, cfg)


def _expanded_search(ctx: RecallContext, kw: KeywordIndex, first: np.ndarray,
                     cfg: RecallConfig) -> tuple[np.ndarray, np.ndarray]:
    """BM25 again with the query plus the ``prf_terms`` most telling terms (tf x idf) of the
    first ``prf_docs`` keyword hits, each weighted ``prf_weight`` x its share of the best one's."""
    query = dict.fromkeys(tokenize(ctx.request.query), 1.0)
    texts = [rec["text"] for rec in ctx.state.records(first[: cfg.prf_docs].tolist(), "reading keyword hits")]
    tf: dict[str, int] = {}
    for text in texts:
        for t in tokenize(text):
            if t not in query:
                tf[t] = tf.get(t, 0) + 1
    weighted = sorted(((c * kw.idf(t), t) for t, c in tf.items()), reverse=True)[: cfg.prf_terms]
    if not weighted or weighted[0][0] <= 0:
        return first, kw.search_terms(query, cfg.keyword_k, ctx.allowed)[1][: len(first)]
    top = weighted[0][0]
    query.update({t: cfg.prf_weight * w / top for w, t in weighted})
    return kw.search_terms(query, cfg.keyword_k, ctx.allowed)


def vector_scale(cos: np.ndarray, leg_cos: np.ndarray, contrast: float) -> np.ndarray:
    """The vector leg on the fusion scale [0, 1] (float64): (cos - b) / (top - b).

    ``top`` is the best cosine of the vector leg's seeds ``leg_cos`` (best first) and b =
    ``contrast`` * their median. Memories below b keep a tiny score proportional to their
    cosine, so their order survives; ``cos`` may hold more memories than the seeds (the
    keyword leg's).
    """
    pos = np.maximum(np.asarray(cos, np.float64), 0.0)
    if len(leg_cos) == 0:
        return np.minimum(pos, 1.0)
    top = max(float(leg_cos[0]), 0.0)
    if top <= 0.0:
        return np.zeros(len(pos))
    b = contrast * float(np.median(np.maximum(leg_cos.astype(np.float64), 0.0)))
    if top - b <= 1e-12:
        return np.ones(len(pos))
    rel = (pos - b) / (top - b)
    return np.where(rel > 0.0, np.minimum(rel, 1.0), 1e-3 * pos / top)


def fuse(labels: np.ndarray, cos: np.ndarray, kw_nids: np.ndarray, kw_score: np.ndarray,
         similarity: Callable[[np.ndarray], np.ndarray], cfg: RecallConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeds of recall from both legs on one scale.

    base = w_vector * v + w_keyword * kw, where v is the cosine rescaled by the vector leg's own
    seeds (:func:`vector_scale`) and kw the BM25 score over the best BM25 score of the query
    (both in [0, 1]); base is then divided by its maximum. Memories found by only one leg get
    their other score too (the cosine of a keyword hit comes from its stored vector).

    Parameters
    ----------
    labels, cos : ndarray of int64 / float32, shape (v,)
        The vector leg, best first.
    kw_nids, kw_score : ndarray of int64 / float32, shape (w,)
        The keyword leg, best first.
    similarity : callable nids -> cosines (float32)
        Cosine of the query to stored memories.
    cfg : RecallConfig

    Returns
    -------
    seeds : ndarray of int32, shape (s,)
    base : ndarray of float32, shape (s,)
        In [0, 1]; the best seed is 1.
    seed_cos : ndarray of float32, shape (s,)
        Cosine of each seed to the query.
    """
    if len(kw_nids):
        extra = kw_nids[~np.isin(kw_nids, labels)]
        nids = np.concatenate([labels, extra])
        all_cos = np.concatenate([cos, similarity(extra)]) if len(extra) else cos
    else:
        nids, all_cos = labels, cos
    if len(nids) == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.float32), np.zeros(0, np.float32)
    v = vector_scale(all_cos, cos, cfg.seed_contrast)
    base = cfg.w_vector * v
    if len(kw_nids) and cfg.w_keyword > 0:
        at = {int(x): i for i, x in enumerate(nids.tolist())}
        top = float(kw_score[0]) if kw_score[0] > 0 else 1.0
        base[[at[int(x)] for x in kw_nids.tolist()]] += cfg.w_keyword * kw_score.astype(np.float64) / top
    best = float(base.max())
    if best <= 0:   # e.g. w_vector = 0 and no keyword hit: rank by the vector leg alone
        base, best = v, 1.0
    base /= best
    return nids.astype(np.int32), base.astype(np.float32), all_cos.astype(np.float32)
