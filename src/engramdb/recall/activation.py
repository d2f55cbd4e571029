"""Recall stage 2, activation: the density gate, spreading activation and lateral inflow.

1. Density gate (SYNAPSE, arXiv:2601.02744): with the namespace's density (edges per linked
   node) at or above ``density_threshold``, spreading runs to ``max_depth``; below it, one hop
   (modes ``auto`` / ``on`` / ``off``). No graph, or ``w_graph`` 0: the seeds alone.
2. Spreading activation (Collins & Loftus 1975) from the fused seeds, by the registry's
   ``spread_activation`` kernel: activation x weight x relation multiplier x decay x fan(u).
3. Lateral inflow (ACT-R's base level plus spreading input): total = base + w_graph x the
   strongest single pass a memory receives from another activated memory
   (``spread_inflow``); seeds keep their base, the rest start at 0. A content-free memory
   (thanks, greetings, laughter: :func:`engramdb.chatter.content_free`) takes none.
"""
from __future__ import annotations

import numpy as np

from ..chatter import CONTENT_FREE
from ..kernels import registry
from ..types import _STATE_CODES, MemoryState, Relation
from .context import RecallContext

_ARCHIVED = _STATE_CODES[MemoryState.ARCHIVED]
_CONTRADICTS = Relation.CONTRADICTS.code

__all__ = ["run", "run_batch", "gate"]


def gate(mode: str, density: float, threshold: float, max_depth: int) -> tuple[str, int]:
    """The density gate: (mode, depth) for a gate ``mode`` in {auto, on, off} at ``density``.

    ``auto`` spreads at or above ``threshold`` (a density exactly at it spreads), else one hop.
    """
    if mode == "on" or (mode == "auto" and density >= threshold):
        return "spread", max_depth
    return "one_hop", min(1, max_depth)


def _kernels(state) -> tuple:
    kernels = state.scratch.get("kernels")
    if kernels is None:   # resolved once per engine, off the recall path
        kernels = state.scratch["kernels"] = tuple(
            registry.get(name) for name in ("spread_activation", "spread_inflow", "spread_activation_batch"))
    return kernels


def _depth(ctx: RecallContext) -> int:
    """Run the density gate: set ``ctx.density``, ``ctx.mode``, ``ctx.csr``; return the depth."""
    state, cfg = ctx.state, ctx.request.config
    ctx.density = state.density(ctx.space.name)
    ctx.mode, depth = gate(cfg.gate, ctx.density, cfg.density_threshold, cfg.max_depth)
    if depth == 0 or len(state.graph) == 0 or cfg.w_graph == 0:
        ctx.mode, depth = "vector", 0
    ctx.csr = state.recall_csr()   # without the edges of memories a censor rule hides
    return depth


def _spread_args(cfg) -> tuple:
    return cfg.rel_mult, float(cfg.decay), float(cfg.fan_exp), int(cfg.degree_cap)


def run(ctx: RecallContext) -> None:
    """Fill ``ctx.mode``, ``ctx.density``, ``ctx.csr``, ``ctx.nodes``, ``ctx.parent``, ``ctx.total``.

    A recall that does not show archived memories spreads as if their edges were gone (a
    forgotten memory is no step of a path): when the spread reached one, it runs again over
    ``EngineState.recall_csr(hide_archived=True)``. Likewise a recall ``as_of`` a time spreads
    as if the memories recorded after it were not there (the store held neither them nor their
    edges then). A spread that reached none is the same on both graphs, so most recalls run
    once and no graph is filtered for them."""
    depth = _depth(ctx)
    nodes, act, parent, hops = _spread(ctx, depth)
    if _reached_hidden(ctx, nodes):
        _respread_csr(ctx)
        nodes, act, parent, hops = _spread(ctx, depth)
    _finish(ctx, depth, nodes, act, parent, hops)


def _respread_csr(ctx: RecallContext) -> None:
    """Set ``ctx.csr`` to the graph without the memories this recall must not walk through
    (archived ones it does not show, those recorded after its ``as_of``)."""
    filters = ctx.request.filters
    ctx.csr = ctx.state.recall_csr(hide_archived=not filters.states[_ARCHIVED], recorded_by=filters.as_of)


def _spread(ctx: RecallContext, depth: int) -> tuple:
    """The ``spread_activation`` kernel from ``ctx.seeds`` over ``ctx.csr`` to ``depth``."""
    cfg, csr = ctx.request.config, ctx.csr
    rel_mult, decay, fan_exp, degree_cap = _spread_args(cfg)
    return _kernels(ctx.state)[0](
        csr.indptr, csr.indices, csr.weight, csr.relation, ctx.seeds, ctx.base, rel_mult,
        int(depth), decay, fan_exp, degree_cap, 1 if cfg.combine == "sum" else 0, float(cfg.sum_cap))


def _reached_hidden(ctx: RecallContext, nodes: np.ndarray) -> bool:
    """Whether the spread reached an archived memory that this recall does not show, or a
    memory recorded after its ``as_of``."""
    cols, filters = ctx.state.cols, ctx.request.filters
    if not len(nodes):
        return False
    if filters.as_of is not None and bool(np.any(cols.recorded_at[nodes] > filters.as_of)):
        return True
    if filters.states[_ARCHIVED] or not cols.any_archived():
        return False
    return bool(np.any(cols.state[nodes] == _ARCHIVED))


def run_batch(ctxs: list[RecallContext]) -> None:
    """:func:`run` for many queries of one namespace and one configuration, with one call of the
    ``spread_activation_batch`` kernel (each query's slice equals its own ``spread_activation``)."""
    if not ctxs:
        return
    cfg = ctxs[0].request.config
    depth = 0
    for ctx in ctxs:
        depth = _depth(ctx)
    csr = ctxs[0].csr
    seed_indptr = np.zeros(len(ctxs) + 1, np.int64)
    seed_indptr[1:] = np.cumsum([len(ctx.seeds) for ctx in ctxs])
    seeds = np.concatenate([ctx.seeds for ctx in ctxs]).astype(np.int32)
    base = np.concatenate([ctx.base for ctx in ctxs]).astype(np.float32)
    rel_mult, decay, fan_exp, degree_cap = _spread_args(cfg)
    out_indptr, nodes, act, parent, hops = _kernels(ctxs[0].state)[2](
        csr.indptr, csr.indices, csr.weight, csr.relation, seed_indptr, seeds, base, rel_mult,
        int(depth), decay, fan_exp, degree_cap, 1 if cfg.combine == "sum" else 0, float(cfg.sum_cap))
    for i, ctx in enumerate(ctxs):
        a, b = int(out_indptr[i]), int(out_indptr[i + 1])
        if _reached_hidden(ctx, nodes[a:b]):   # as run(): again without the hidden memories' edges
            _respread_csr(ctx)
            _finish(ctx, depth, *_spread(ctx, depth))
        else:
            _finish(ctx, depth, nodes[a:b], act[a:b], parent[a:b], hops[a:b])


def _memory_of(ctx: RecallContext):
    """nids -> the memory each stands for, as one match: the first piece of a memory stored as
    pieces (:func:`.seeds.lift_pieces`), and the current version for the superseded wordings whose
    base it took (:func:`.seeds.current_versions`)."""
    heads = ctx.state.cols.head
    chains = ctx.extra.get("current_of") or {}
    if not chains:
        return lambda x: heads[x]
    keys = np.fromiter((n for chain in chains.values() for n in chain), np.int64)
    vals = np.fromiter((heads[chain[-1]] for chain in chains.values() for _n in chain), np.int64)
    order = np.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]

    def memory(x: np.ndarray) -> np.ndarray:
        out = heads[x].astype(np.int64)
        at = np.minimum(np.searchsorted(keys, x), len(keys) - 1)
        found = keys[at] == x
        out[found] = vals[at[found]]
        return out
    return memory


def _inflow_from_other_memories(ctx: RecallContext, nodes: np.ndarray, act: np.ndarray, src: np.ndarray,
                                total: np.ndarray) -> None:
    """A node's lateral inflow comes from another memory, never from a node that carries its
    own match: a piece of its own memory (a memory stored as pieces is one memory, whose first
    piece took its best piece's base) or the superseded wording whose base its current version
    took. A node whose strongest pass came from such a node takes, instead, the strongest pass
    from another memory (0 if none), as a memory stored whole would. Counted twice, the one
    match ranked a long answer split into pieces about 1.6 times its match ("3. Request the
    certificate for the payment service" above "The payment service went down on March 3",
    cosine 0.44 against 0.76, for "when did the payment service go down?": every message long
    enough to be split outranked short ones that match as well), and the correction of the best
    weak match at 1.76 for "who is our CEO?" (nothing stored says). Sets ``ctx.inflow_src`` of
    those nodes to the new sender (or -1). Passes as
    :func:`engramdb.kernels.reference.spread_inflow` computes them (the graph stores each edge in
    both directions, so a node's row lists its senders), in float64 rounded to float32."""
    memory = _memory_of(ctx)
    sent = src >= 0
    own = np.zeros(len(nodes), bool)
    own[sent] = memory(src[sent].astype(np.int64)) == memory(nodes[sent].astype(np.int64))
    rows = np.flatnonzero(own)
    if not len(rows):
        return
    cfg, csr = ctx.request.config, ctx.csr
    rel_mult, decay, _fan, degree_cap = _spread_args(cfg)
    targets = nodes[rows].astype(np.int64)
    lo, hi = csr.indptr[targets], csr.indptr[targets + 1]
    row_of_edge = np.repeat(np.arange(len(rows)), hi - lo)
    edge = np.concatenate([np.arange(a, b) for a, b in zip(lo.tolist(), hi.tolist())])
    u = csr.indices[edge].astype(np.int64)
    order = np.argsort(nodes, kind="stable")
    k = order[np.minimum(np.searchsorted(nodes[order], u), len(nodes) - 1)]   # u's row, where u is activated
    deg = csr.indptr[u + 1] - csr.indptr[u]
    to = targets[row_of_edge]
    ok = ((nodes[k] == u) & (u != to) & (memory(u) != memory(to)) & (csr.relation[edge] != _CONTRADICTS)
          & (act[k] > 0) & (deg >= 1) & (deg <= degree_cap))
    fan_exp = float(cfg.inflow_fan_exp)
    fan = 1.0 if fan_exp == 0.0 else np.power(np.maximum(deg, 1).astype(np.float64), -fan_exp)
    passes = (act[k].astype(np.float64) * np.minimum(csr.weight[edge], 1.0) * rel_mult[csr.relation[edge]]
              * float(decay) * fan).astype(np.float32).astype(np.float64)
    passes[~ok] = 0.0
    best = np.zeros(len(rows), np.float64)
    np.maximum.at(best, row_of_edge, passes)
    by = np.full(len(rows), -1, np.int64)
    top = np.flatnonzero(ok & (passes > 0) & (passes == best[row_of_edge]))
    by[row_of_edge[top][::-1]] = u[top][::-1]   # the first sender of the best pass, in row order
    base = np.zeros(len(rows), np.float64)
    seeded = rows < len(ctx.seeds)
    base[seeded] = ctx.base[rows[seeded]]
    total[rows] = (cfg.w_graph * best.astype(np.float32)).astype(np.float64) + base
    src[rows] = by


def _no_inflow_to_chatter(ctx: RecallContext, nodes: np.ndarray, src: np.ndarray, total: np.ndarray) -> None:
    """A content-free memory (thanks, greetings, laughter: ``Columns.speech_act``) keeps its
    own match and takes no lateral inflow: it answers nothing, however close it stands to what
    does. Spreading still passes through it. Lifted by its ``next`` link, "Amazing, thank you!"
    ranked fourth for "how old is my son?" (after the answer, the assistant's echo and the
    question before them), "You're welcome!" third for "what medication do I take?"."""
    free = ctx.state.cols.speech_act[nodes] == CONTENT_FREE
    if not free.any():
        return
    rows = np.flatnonzero(free)
    seeded = rows < len(ctx.seeds)
    total[rows] = 0.0
    total[rows[seeded]] = ctx.base[rows[seeded]]
    src[rows] = -1


def _finish(ctx: RecallContext, depth: int, nodes: np.ndarray, act: np.ndarray, parent: np.ndarray,
            hops: np.ndarray) -> None:
    """Lateral inflow on top of the spread: total = base + w_graph x strongest single pass."""
    state, cfg, csr = ctx.state, ctx.request.config, ctx.csr
    if depth > 0 and len(nodes):
        mark = state.scratch.get("mark")
        if mark is None or len(mark) < csr.n_nodes:   # inflow's scratch: all -1 between calls
            mark = state.scratch["mark"] = np.full(csr.n_nodes, -1, np.int32)
        rel_mult, decay, _fan, degree_cap = _spread_args(cfg)
        lateral, src = _kernels(state)[1](csr.indptr, csr.indices, csr.weight, csr.relation, nodes, act,
                                          rel_mult, decay, float(cfg.inflow_fan_exp), degree_cap, mark)
        ctx.inflow_src = src
        # the inflow term (as the kernel's dtype computes it), then the seeds' base on top:
        # base + x and x + base are the same float
        total = (cfg.w_graph * lateral).astype(np.float64, copy=False)   # a new array either way
        total[: len(ctx.seeds)] += ctx.base
        if ctx.extra.get("shown_piece") or ctx.extra.get("current_of"):
            _inflow_from_other_memories(ctx, nodes, act, src, total)
        _no_inflow_to_chatter(ctx, nodes, src, total)
    else:
        total = np.zeros(len(nodes), np.float64)
        total[: len(ctx.seeds)] = ctx.base
    ctx.nodes, ctx.parent, ctx.total, ctx.act, ctx.hops = nodes, parent, total, act, hops
    if ctx.trace is not None:   # debug hook (namespace isolation tests): seeds, then every node reached
        ctx.trace.append((ctx.space.name, ctx.seeds.copy(), nodes.copy()))
