"""spread_activation: every backend agrees with the reference, plus hand-computed cases."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.kernels import reference
from engramdb.kernels.reference import (
    CAUSED_BY,
    COMBINE_MAX,
    COMBINE_SUM,
    CONTRADICTS,
    N_RELATIONS,
    RELATED_TO,
    SUPPORTS,
)
from tests.strategies import csr_graphs, from_edges, spread_cases

ALL_ONES = np.ones(N_RELATIONS, dtype=np.float32)


def _incoming_passes(case, nodes, act, depth):
    """For each non-seed node v: {u: largest pass u -> v} over u one level above v."""
    indptr, indices = case["indptr"], case["indices"]
    weight, relation = case["weight"], case["relation"]
    level = dict(zip(nodes.tolist(), depth.tolist()))
    activation = dict(zip(nodes.tolist(), act.tolist()))
    passes: dict[int, dict[int, float]] = {}
    for u in nodes.tolist():
        start, end = int(indptr[u]), int(indptr[u + 1])
        deg = end - start
        if deg == 0 or deg > case["degree_cap"]:
            continue
        fan = 1.0 if case["fan_exp"] == 0 else deg ** -case["fan_exp"]
        for e in range(start, end):
            v, r = int(indices[e]), int(relation[e])
            if v == u or r == CONTRADICTS or level.get(v) != level[u] + 1:
                continue
            p = activation[u] * min(float(weight[e]), 1.0) * float(case["rel_mult"][r])
            p *= case["decay"] * fan
            if p > 0:
                passes.setdefault(v, {})
                passes[v][u] = max(p, passes[v].get(u, 0.0))
    return passes


def assert_spread_agrees(case, got, want):
    """Same nodes in the same order, same depths, close activations, equivalent parents.

    A parent may differ from the reference only where two parents give passes equal within
    float rounding (then both must be among the best), so the check cannot flake on ties.
    """
    nodes, act, parent, depth = got
    r_nodes, r_act, r_parent, r_depth = want
    assert nodes.dtype == np.int32 and act.dtype == np.float32
    assert parent.dtype == np.int32 and depth.dtype == np.int8
    assert_array_equal(nodes, r_nodes)
    assert_array_equal(depth, r_depth)
    assert_allclose(act, r_act, rtol=1e-5, atol=1e-7)
    assert_array_equal(parent[depth == 0], -1)
    mismatch = np.flatnonzero(parent != r_parent)
    if mismatch.size:
        passes = _incoming_passes(case, r_nodes, r_act, r_depth)
        for i in mismatch.tolist():
            cand = passes[int(r_nodes[i])]
            best = max(cand.values())
            near = {u for u, p in cand.items() if p >= best * (1 - 1e-5) - 1e-7}
            assert len(near) > 1, f"node {r_nodes[i]}: parent {parent[i]} != {r_parent[i]}"
            assert int(parent[i]) in near and int(r_parent[i]) in near


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=spread_cases())
def test_spread_agrees_with_reference(kernels, case):
    want = reference.spread_activation(**case)
    got = kernels.spread_activation(*case.values())  # positional, in signature order
    assert_spread_agrees(case, got, want)
    # The cached scratch must be clean: a second call gives the same answer.
    again = kernels.spread_activation(*case.values())
    for a, b in zip(got, again):
        assert_array_equal(a, b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=spread_cases(graphs=csr_graphs(max_nodes=60, max_edges=300, max_hubs=4)))
def test_spread_agrees_on_denser_graphs(kernels, case):
    assert_spread_agrees(case, kernels.spread_activation(**case), reference.spread_activation(**case))


@pytest.mark.parametrize("combine", [COMBINE_MAX, COMBINE_SUM])
@pytest.mark.parametrize("seed", [0, 1])
def test_spread_agrees_on_large_random_graph(kernels, combine, seed):
    rng = np.random.default_rng(seed)
    n, nnz = 1024, 8192
    src = np.sort(rng.integers(0, n, nnz))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    case = dict(
        indptr=np.cumsum(indptr),
        indices=rng.integers(0, n, nnz).astype(np.int32),
        weight=rng.uniform(0.05, 1.2, nnz).astype(np.float32),
        relation=rng.integers(0, N_RELATIONS, nnz).astype(np.uint8),
        seeds=rng.integers(0, n, 8).astype(np.int32),
        seed_act=rng.uniform(0.2, 1.0, 8).astype(np.float32),
        rel_mult=rng.uniform(0.5, 1.0, N_RELATIONS).astype(np.float32),
        max_depth=3,
        decay=0.5,
        fan_exp=0.5,
        degree_cap=12,
        combine=combine,
        sum_cap=1.0,
    )
    want = reference.spread_activation(**case)
    assert want[0].size > 100  # the traversal really goes somewhere
    assert_spread_agrees(case, kernels.spread_activation(**case), want)


# ---------------------------------------------------------------- hand-computed cases


def _run(k, g, seeds, seed_act, *, rel_mult=ALL_ONES, max_depth=3, decay=0.5, fan_exp=0.0,
         degree_cap=100, combine=COMBINE_MAX, sum_cap=1.0):
    return k.spread_activation(
        *g.arrays,
        np.array(seeds, dtype=np.int32),
        np.array(seed_act, dtype=np.float32),
        np.asarray(rel_mult, dtype=np.float32),
        max_depth, decay, fan_exp, degree_cap, combine, sum_cap,
    )


def _expect(result, nodes, act, parent, depth):
    assert_array_equal(result[0], nodes)
    assert_allclose(result[1], act, rtol=1e-6, atol=0)
    assert_array_equal(result[2], parent)
    assert_array_equal(result[3], depth)


def test_chain_hand_computed(any_kernels):
    # 0 -> 1 (w 2.0 counts as 1, supports), 1 -> 0 (back edge: seed already visited),
    # 1 -> 2 (w 0.5, related_to x0.8), 2 -> 3 (w 0.25, caused_by). decay 0.5, fan_exp 1.
    g = from_edges(4, [(0, 1, 2.0, SUPPORTS), (1, 2, 0.5, RELATED_TO), (1, 0, 1.0, SUPPORTS),
                       (2, 3, 0.25, CAUSED_BY)])
    mult = ALL_ONES.copy()
    mult[RELATED_TO] = 0.8
    # act1 = 1 * 1 * 1 * 0.5 * 1/1             = 0.5
    # act2 = 0.5 * 0.5 * 0.8 * 0.5 * 1/2 (deg 2) = 0.05
    # act3 = 0.05 * 0.25 * 1 * 0.5 * 1/1        = 0.00625
    r = _run(any_kernels, g, [0], [1.0], rel_mult=mult, fan_exp=1.0)
    _expect(r, [0, 1, 2, 3], [1.0, 0.5, 0.05, 0.00625], [-1, 0, 1, 2], [0, 1, 2, 3])
    r = _run(any_kernels, g, [0], [1.0], rel_mult=mult, fan_exp=1.0, max_depth=2)
    _expect(r, [0, 1, 2], [1.0, 0.5, 0.05], [-1, 0, 1], [0, 1, 2])
    r = _run(any_kernels, g, [0], [1.0], rel_mult=mult, fan_exp=1.0, max_depth=0)
    _expect(r, [0], [1.0], [-1], [0])
    # fan off: act2 = 0.5 * 0.5 * 0.8 * 0.5 = 0.1, act3 = 0.1 * 0.25 * 0.5 = 0.0125
    r = _run(any_kernels, g, [0], [1.0], rel_mult=mult, fan_exp=0.0)
    _expect(r, [0, 1, 2, 3], [1.0, 0.5, 0.1, 0.0125], [-1, 0, 1, 2], [0, 1, 2, 3])


# Diamond 0 -> {2, 1} -> 3; node 2 comes first in CSR order but passes less.
# act2 = 0.5 * 0.5 = 0.25, act1 = 1 * 0.5 = 0.5; into 3: from 2 0.125, from 1 0.25.
DIAMOND = from_edges(4, [(0, 2, 0.5, SUPPORTS), (0, 1, 1.0, SUPPORTS), (1, 3, 1.0, SUPPORTS),
                         (2, 3, 1.0, SUPPORTS)])


def test_diamond_max(any_kernels):
    r = _run(any_kernels, DIAMOND, [0], [1.0], combine=COMBINE_MAX)
    _expect(r, [0, 2, 1, 3], [1.0, 0.25, 0.5, 0.25], [-1, 0, 0, 1], [0, 1, 1, 2])


def test_diamond_sum(any_kernels):
    # 0.125 + 0.25 = 0.375; parent = the larger single pass (node 1), not the first (node 2)
    r = _run(any_kernels, DIAMOND, [0], [1.0], combine=COMBINE_SUM, sum_cap=1.0)
    _expect(r, [0, 2, 1, 3], [1.0, 0.25, 0.5, 0.375], [-1, 0, 0, 1], [0, 1, 1, 2])
    # the cap applies to a single pass too: act1 = min(0.5, 0.3) = 0.3, then into 3:
    # 0.25 * 0.5 + 0.3 * 0.5 = 0.275 (below the cap)
    r = _run(any_kernels, DIAMOND, [0], [1.0], combine=COMBINE_SUM, sum_cap=0.3)
    _expect(r, [0, 2, 1, 3], [1.0, 0.25, 0.3, 0.275], [-1, 0, 0, 1], [0, 1, 1, 2])


def test_sum_cap_and_tie(any_kernels):
    # seeds 1 and 2 both pass 0.5 into 0: the sum 1.0 is capped at 0.8; the tie keeps the
    # first parent (seed 1). MAX would give 0.5.
    g = from_edges(3, [(1, 0, 1.0, SUPPORTS), (2, 0, 1.0, SUPPORTS)])
    r = _run(any_kernels, g, [1, 2], [1.0, 1.0], combine=COMBINE_SUM, sum_cap=0.8)
    _expect(r, [1, 2, 0], [1.0, 1.0, 0.8], [-1, -1, 1], [0, 0, 1])
    r = _run(any_kernels, g, [1, 2], [1.0, 1.0], combine=COMBINE_MAX)
    _expect(r, [1, 2, 0], [1.0, 1.0, 0.5], [-1, -1, 1], [0, 0, 1])


def test_contradicts_carries_nothing(any_kernels):
    # 0 -contradicts-> 1 carries nothing but counts in deg(0) = 2 for the fan:
    # act2 = 1 * 1 * 1 * 0.5 * 1/2 = 0.25; 1 is then reached from 2 at depth 2:
    # act1 = 0.25 * 1 * 1 * 0.5 * 1/1 = 0.125.
    g = from_edges(3, [(0, 1, 1.0, CONTRADICTS), (0, 2, 1.0, SUPPORTS), (2, 1, 1.0, SUPPORTS)])
    r = _run(any_kernels, g, [0], [1.0], fan_exp=1.0)
    _expect(r, [0, 2, 1], [1.0, 0.25, 0.125], [-1, 0, 2], [0, 1, 2])
    r = _run(any_kernels, g, [0], [1.0], fan_exp=1.0, max_depth=1)
    _expect(r, [0, 2], [1.0, 0.25], [-1, 0], [0, 1])


def test_hub_reached_but_not_expanded(any_kernels):
    # 0 -> 1, and 1 is a hub with 3 edges > degree_cap 2.
    g = from_edges(5, [(0, 1, 1.0, SUPPORTS), (1, 2, 1.0, SUPPORTS), (1, 3, 1.0, SUPPORTS),
                       (1, 4, 1.0, SUPPORTS)])
    r = _run(any_kernels, g, [0], [1.0], degree_cap=2)
    _expect(r, [0, 1], [1.0, 0.5], [-1, 0], [0, 1])
    # degree_cap 3 lets the hub through: 0.5 * 0.5 = 0.25 each
    r = _run(any_kernels, g, [0], [1.0], degree_cap=3)
    _expect(r, [0, 1, 2, 3, 4], [1.0, 0.5, 0.25, 0.25, 0.25], [-1, 0, 1, 1, 1], [0, 1, 2, 2, 2])
    # a seed that is a hub is not expanded either
    r = _run(any_kernels, g, [1], [0.8], degree_cap=2)
    _expect(r, [1], [0.8], [-1], [0])


def test_duplicate_seeds_self_loops_and_earlier_levels(any_kernels):
    # seeds [3, 1, 3]: 3 keeps its first position and the larger activation 0.9.
    # 1 -> 1 self-loop is skipped; 1 -> 3 does not touch seed 3; 1 -> 2 gives 0.25;
    # 3 -> 2 gives 0.45 (MAX wins, parent 3); 2 -> 1 at depth 2 leaves seed 1 unchanged.
    g = from_edges(4, [(1, 1, 1.0, SUPPORTS), (1, 3, 1.0, SUPPORTS), (1, 2, 1.0, SUPPORTS),
                       (3, 2, 1.0, SUPPORTS), (2, 1, 1.0, SUPPORTS), (2, 0, 1.0, SUPPORTS)])
    r = _run(any_kernels, g, [3, 1, 3], [0.2, 0.5, 0.9])
    _expect(r, [3, 1, 2, 0], [0.9, 0.5, 0.45, 0.225], [-1, -1, 3, 2], [0, 0, 1, 2])


def test_empty_inputs(any_kernels):
    empty = from_edges(0, [])
    for g, seeds in ((empty, []), (from_edges(3, []), []), (from_edges(3, []), [1])):
        r = _run(any_kernels, g, seeds, [1.0] * len(seeds))
        assert [a.dtype for a in r] == [np.int32, np.float32, np.int32, np.int8]
        assert_array_equal(r[0], seeds)
