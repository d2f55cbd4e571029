"""Recall stage 2, activation: the density gate, spreading activation and lateral inflow.

1. Density gate (SYNAPSE, arXiv:2601.02744): with the namespace's density (edges per linked
   node) at or above ``density_threshold``, spreading runs to ``max_depth``; below it, one hop
   (modes ``auto`` / ``on`` / ``off``). No graph, or ``w_graph`` 0: the seeds alone.
2. Spreading activation (Collins & Loftus 1975) from the fused seeds, by the registry's
   ``spread_activation`` kernel: activation x weight x relation multiplier x decay x fan(u).
3. Lateral inflow (ACT-R's base level plus spreading input): total = base + w_graph x the
   strongest single pass a memory receives from another activated memory
   (``spread_inflow``); seeds keep their base, the rest start at 0.
"""
from __future__ import annotations

import numpy as np

from ..kernels import registry
from .context import RecallContext

__all__ = ["run", "gate"]


def gate(mode: str, density: float, threshold: float, max_depth: int) -> tuple[str, int]:
    """The density gate: (mode, depth) for a gate ``mode`` in {auto, on, off} at ``density``.

    ``auto`` spreads at or above ``threshold`` (a density exactly at it spreads), else one hop.
    """
    if mode == "on" or (mode == "auto" and density >= threshold):
        return "spread", max_depth
    return "one_hop", min(1, max_depth)


def run(ctx: RecallContext) -> None:
    """Fill ``ctx.mode``, ``ctx.density``, ``ctx.csr``, ``ctx.nodes``, ``ctx.parent``, ``ctx.total``."""
    state, cfg = ctx.state, ctx.request.config
    kernels = state.scratch.get("kernels")
    if kernels is None:   # resolved once per engine, off the recall path
        kernels = state.scratch["kernels"] = (registry.get("spread_activation"), registry.get("spread_inflow"))
    spread, inflow = kernels
    ctx.density = state.density(ctx.space.name)
    ctx.mode, depth = gate(cfg.gate, ctx.density, cfg.density_threshold, cfg.max_depth)
    if depth == 0 or len(state.graph) == 0 or cfg.w_graph == 0:
        ctx.mode, depth = "vector", 0
    csr = ctx.csr = state.csr()
    rel_mult = cfg.rel_mult
    nodes, act, parent, _hops = spread(
        csr.indptr, csr.indices, csr.weight, csr.relation, ctx.seeds, ctx.base, rel_mult,
        int(depth), float(cfg.decay), float(cfg.fan_exp), int(cfg.degree_cap),
        1 if cfg.combine == "sum" else 0, float(cfg.sum_cap))
    total = np.zeros(len(nodes), np.float64)
    total[: len(ctx.seeds)] = ctx.base
    if depth > 0 and len(nodes):
        mark = state.scratch.get("mark")
        if mark is None or len(mark) < csr.n_nodes:   # inflow's scratch: all -1 between calls
            mark = state.scratch["mark"] = np.full(csr.n_nodes, -1, np.int32)
        lateral, _src = inflow(csr.indptr, csr.indices, csr.weight, csr.relation, nodes, act, rel_mult,
                               float(cfg.decay), float(cfg.inflow_fan_exp), int(cfg.degree_cap), mark)
        total += cfg.w_graph * lateral
    ctx.nodes, ctx.parent, ctx.total = nodes, parent, total
    if ctx.trace is not None:   # debug hook (namespace isolation tests): seeds, then every node reached
        ctx.trace.append((ctx.space.name, ctx.seeds.copy(), nodes.copy()))
