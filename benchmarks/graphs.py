"""Synthetic typed graphs for the benchmarks: power-law degrees, engramdb's CSR layout.

:func:`power_law_graph` draws a Chung-Lu random graph (each undirected edge picks both
endpoints with probability proportional to a power-law expected degree), removes self-loops
and duplicate pairs, and returns it twice: as the CSR arrays engramdb's recall kernels read
(every edge stored in both directions, rows sorted by target) and as the undirected edge list
that PostgreSQL and networkx load. Vectorised NumPy: 1M nodes / 3M edges builds in seconds.

Weights are multiples of 1/256 in (0, 1]. With decay 0.5 and relation multipliers 1.0, every
activation of a depth-2 spread is then a multiple of 2**-18 that float32 and float64 hold
exactly, and sums stay exact below 64, so C, Numba, the NumPy reference, scipy (float64),
networkx and PostgreSQL (double precision) compute identical scores and the top-20 comparison
is not at the mercy of summation order (ties are frequent, and broken by node id).

Chung & Lu (2002), PNAS 99(25), "The average distances in random graphs with given expected
degrees", section 2 (the model).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from engramdb.kernels.reference import CONTRADICTS, N_RELATIONS

__all__ = ["Graph", "power_law_graph"]

WEIGHT_LEVELS = 256  # weights are k / WEIGHT_LEVELS, k in 1..WEIGHT_LEVELS


class Graph(NamedTuple):
    """A synthetic graph as recall CSR plus its undirected edge list.

    CSR (both directions): ``indptr`` int64 (n + 1,), ``indices`` int32 (2m,), ``weight``
    float32 (2m,), ``relation`` uint8 (2m,). Edge list (one row per undirected edge,
    ``src < dst``): ``src``, ``dst`` int32 (m,), ``edge_weight`` float32 (m,),
    ``edge_relation`` uint8 (m,).
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    weight: np.ndarray
    relation: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    edge_weight: np.ndarray
    edge_relation: np.ndarray

    @property
    def degree(self) -> np.ndarray:
        """Row length of every node (int64, shape (n,))."""
        return np.diff(self.indptr)


def _sorted_unique(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort and a diff; faster than np.unique's hash path here)."""
    a = np.sort(a)
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if a.size else a


def power_law_graph(n, mean_degree=6.0, contradicts_share=0.05, seed=0, gamma=2.7):
    """Undirected Chung-Lu graph with power-law degrees, as CSR and as an edge list.

    Parameters
    ----------
    n : int
        Number of nodes, >= 2.
    mean_degree : float
        Target mean undirected degree (2 * edges / n); the result is within a fraction of a
        percent of it (duplicate pairs are redrawn once, then the surplus is trimmed).
    contradicts_share : float
        Share of edges with relation code ``CONTRADICTS`` (2); the others get a uniform
        random code among the remaining relations.
    seed : int
        Seed of ``np.random.default_rng``; the same arguments give the same graph.
    gamma : float
        Power-law exponent of the degree distribution, > 2. The default 2.7 gives a largest
        degree of a few hundred at 10k nodes and several thousand at 1M.

    Returns
    -------
    Graph
        CSR arrays (both directions) and the undirected edge list, see :class:`Graph`.
        Node ids are shuffled, so hubs are not the small ids.

    Raises
    ------
    ValueError
        ``n < 2`` or ``gamma <= 2``.
    """
    n = int(n)
    if n < 2 or gamma <= 2:
        raise ValueError("need n >= 2 and gamma > 2")
    rng = np.random.default_rng(seed)
    m = int(round(n * float(mean_degree) / 2))
    # Expected degree of rank i proportional to (i + 1) ** (-1 / (gamma - 1)).
    w = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (gamma - 1.0))
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    perm = rng.permutation(n).astype(np.int64)  # rank -> node id

    def draw(k: int) -> np.ndarray:
        a = perm[np.searchsorted(cdf, rng.random(k), side="right").clip(0, n - 1)]
        b = perm[np.searchsorted(cdf, rng.random(k), side="right").clip(0, n - 1)]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keys = lo[lo != hi] * n + hi[lo != hi]
        return keys

    keys = _sorted_unique(draw(m))
    if keys.size < m:  # duplicates among hubs: top up once with fresh pairs
        keys = _sorted_unique(np.concatenate([keys, draw(2 * (m - keys.size) + 1000)]))
    if keys.size > m:
        keys = np.sort(keys[rng.permutation(keys.size)[:m]])
    m = keys.size
    src = (keys // n).astype(np.int32)
    dst = (keys % n).astype(np.int32)
    edge_weight = (rng.integers(1, WEIGHT_LEVELS + 1, size=m) / WEIGHT_LEVELS).astype(np.float32)
    others = np.array([r for r in range(N_RELATIONS) if r != CONTRADICTS], dtype=np.uint8)
    edge_relation = others[rng.integers(0, others.size, size=m)]
    edge_relation[rng.random(m) < float(contradicts_share)] = CONTRADICTS

    # Both directions, rows sorted by target (stable CSR order).
    s2 = np.concatenate([src, dst]).astype(np.int64)
    d2 = np.concatenate([dst, src]).astype(np.int64)
    order = np.argsort(s2 * n + d2, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(s2, minlength=n), out=indptr[1:])
    return Graph(
        n=n,
        indptr=indptr,
        indices=np.ascontiguousarray(d2[order].astype(np.int32)),
        weight=np.ascontiguousarray(np.concatenate([edge_weight, edge_weight])[order]),
        relation=np.ascontiguousarray(np.concatenate([edge_relation, edge_relation])[order]),
        src=src,
        dst=dst,
        edge_weight=edge_weight,
        edge_relation=edge_relation,
    )
