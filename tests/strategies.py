"""Hypothesis strategies shared by the test suite.

``csr_graphs()`` draws typed, weighted CSR graphs in the kernels' dtypes, deliberately
including the awkward cases: the empty graph, isolated nodes, self-loops, duplicate edges,
hubs whose degree exceeds any degree cap drawn by ``spread_cases()``, and ``contradicts``
edges. ``spread_cases()`` draws a graph together with every other argument of
``spread_activation``; ``spread_batch_cases()`` draws the same with several queries.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import strategies as st

from engramdb.errors import BackendUnavailableError
from engramdb.kernels import registry
from engramdb.kernels.reference import CONTRADICTS, N_RELATIONS

__all__ = [
    "CSRGraph",
    "HUB_MIN_DEGREE",
    "MAX_DEGREE_CAP",
    "csr_graphs",
    "spread_cases",
    "spread_batch_cases",
    "load_backend",
    "from_edges",
]

# Degree caps drawn by spread_cases() stay at or below MAX_DEGREE_CAP (except for an
# "unbounded" cap), and hubs get at least HUB_MIN_DEGREE edges, so hubs exceed the cap.
MAX_DEGREE_CAP = 8
HUB_MIN_DEGREE = MAX_DEGREE_CAP + 1


@dataclass(frozen=True)
class CSRGraph:
    """A graph in the kernels' CSR layout."""

    indptr: np.ndarray  # int64, (n + 1,)
    indices: np.ndarray  # int32, (nnz,)
    weight: np.ndarray  # float32, (nnz,)
    relation: np.ndarray  # uint8, (nnz,)

    @property
    def n(self) -> int:
        return self.indptr.shape[0] - 1

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.indptr, self.indices, self.weight, self.relation


def from_edges(n: int, edges) -> CSRGraph:
    """CSR from ``(source, target, weight, relation)`` tuples; row order = list order."""
    edges = sorted(edges, key=lambda e: e[0])  # stable: keeps the order within a row
    counts = np.zeros(n + 1, dtype=np.int64)
    for e in edges:
        counts[e[0] + 1] += 1
    return CSRGraph(
        indptr=np.cumsum(counts, dtype=np.int64),
        indices=np.array([e[1] for e in edges], dtype=np.int32),
        weight=np.array([e[2] for e in edges], dtype=np.float32),
        relation=np.array([e[3] for e in edges], dtype=np.uint8),
    )


# Exact repeats (0.5, 1.0) make tied passes, which exercise the tie-breaking rules; values
# above 1 exercise min(weight, 1); 0 exercises "skip pass <= 0".
_weights = st.one_of(
    st.floats(0.015625, 1.5, width=32),
    st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]),
)
# About one edge in four is `contradicts`.
_relations = st.one_of(
    st.just(CONTRADICTS), st.integers(0, N_RELATIONS - 1), st.integers(0, N_RELATIONS - 1)
)


@st.composite
def csr_graphs(draw, max_nodes: int = 24, max_edges: int = 80, max_hubs: int = 2) -> CSRGraph:
    """Random CSR graphs, including empty graphs, isolated nodes, self-loops, duplicate
    edges, hubs of degree >= HUB_MIN_DEGREE and ``contradicts`` edges."""
    n = draw(st.integers(0, max_nodes))
    if n == 0:
        return from_edges(0, [])
    # Only the first n_linked nodes get edges; the rest are isolated. A permutation then
    # scatters the isolated nodes among the ids.
    n_linked = draw(st.integers(1, n))
    node = st.integers(0, n_linked - 1)
    edges = draw(st.lists(st.tuples(node, node, _weights, _relations), max_size=max_edges))
    if edges and draw(st.booleans()):  # duplicate edges, possibly with another weight/relation
        for i in draw(st.lists(st.integers(0, len(edges) - 1), max_size=4)):
            u, v, _, _ = edges[i]
            edges.append((u, v, draw(_weights), draw(_relations)))
    for u in draw(st.lists(node, max_size=3)):  # explicit self-loops
        edges.append((u, u, draw(_weights), draw(_relations)))
    for hub in draw(st.lists(node, max_size=max_hubs, unique=True)):
        degree = draw(st.integers(HUB_MIN_DEGREE, HUB_MIN_DEGREE + 8))
        targets = draw(st.lists(node, min_size=degree, max_size=degree))
        edges.extend((hub, v, draw(_weights), draw(_relations)) for v in targets)
    edges = draw(st.permutations(edges))
    perm = draw(st.permutations(range(n)))
    edges = [(perm[u], perm[v], w, r) for u, v, w, r in edges]
    return from_edges(n, edges)


@st.composite
def spread_cases(draw, graphs=None) -> dict:
    """Keyword arguments for ``spread_activation``: a graph plus seeds and parameters.

    Seeds may repeat (with different activations); the degree cap is usually below the hub
    degree; ``rel_mult`` includes zeros and values above 1.
    """
    g = draw(graphs if graphs is not None else csr_graphs())
    if g.n == 0:
        seeds = []
    else:
        # no seeds in about one case in five
        min_seeds = draw(st.sampled_from([1, 1, 1, 1, 0]))
        seeds = draw(st.lists(st.integers(0, g.n - 1), min_size=min_seeds, max_size=6))
    acts = st.one_of(st.floats(0.0625, 1.0, width=32), st.sampled_from([1.0, 0.5, 0.0]))
    seed_act = [draw(acts) for _ in seeds]
    mult = st.one_of(
        st.floats(0.0625, 1.5, width=32), st.sampled_from([0.0, 0.7, 0.8, 1.0])
    )
    rel_mult = [draw(mult) for _ in range(N_RELATIONS)]
    return dict(
        indptr=g.indptr,
        indices=g.indices,
        weight=g.weight,
        relation=g.relation,
        seeds=np.array(seeds, dtype=np.int32),
        seed_act=np.array(seed_act, dtype=np.float32),
        rel_mult=np.array(rel_mult, dtype=np.float32),
        max_depth=draw(st.sampled_from([2, 1, 3, 4, 0])),
        decay=draw(st.one_of(st.floats(0.05, 1.0), st.sampled_from([0.5, 1.0]))),
        fan_exp=draw(st.one_of(st.just(0.0), st.floats(0.0, 2.0), st.just(1.0))),
        degree_cap=draw(st.one_of(st.integers(1, MAX_DEGREE_CAP), st.just(1_000_000))),
        combine=draw(st.sampled_from([0, 1])),
        sum_cap=draw(st.one_of(st.sampled_from([0.1, 0.3, 1.0]), st.floats(0.05, 4.0))),
    )


@st.composite
def spread_batch_cases(draw, graphs=None, max_queries: int = 7) -> dict:
    """Keyword arguments for ``spread_activation_batch``: a ``spread_cases()`` draw whose
    seeds are split into 0 .. ``max_queries`` queries (some of them empty).

    The queries are drawn separately so that they may overlap, repeat a seed or be empty.
    """
    case = draw(spread_cases(graphs))
    n = case["indptr"].shape[0] - 1
    q = draw(st.integers(0, max_queries))
    acts = st.one_of(st.floats(0.0625, 1.0, width=32), st.sampled_from([1.0, 0.5, 0.0]))
    queries = []
    for _ in range(q):
        k = 0 if n == 0 else draw(st.integers(0, 5))
        queries.append([(draw(st.integers(0, n - 1)), draw(acts)) for _ in range(k)])
    seed_indptr = np.zeros(q + 1, dtype=np.int64)
    seed_indptr[1:] = np.cumsum([len(x) for x in queries], dtype=np.int64)
    flat = [pair for query in queries for pair in query]
    case.pop("seeds")
    case.pop("seed_act")
    return dict(
        indptr=case.pop("indptr"),
        indices=case.pop("indices"),
        weight=case.pop("weight"),
        relation=case.pop("relation"),
        seed_indptr=seed_indptr,
        seeds=np.array([s for s, _ in flat], dtype=np.int32),
        seed_act=np.array([a for _, a in flat], dtype=np.float32),
        **case,  # rel_mult .. sum_cap, in signature order
    )


def load_backend(name: str):
    """The kernel module of backend ``name``; skip the test if the C extension is not built.

    Numba must always load. ``tests/kernels/test_topk_agreement.py`` separately fails the run
    if the C backend is missing without ``ENGRAMDB_NO_C=1``, so a broken build is not hidden
    behind skips.
    """
    try:
        return registry.backend(name)
    except BackendUnavailableError as exc:
        if name == "c":
            pytest.skip(f"C kernels not built: {exc}")
        raise
