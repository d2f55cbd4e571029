"""spread_inflow: every backend agrees with the reference, plus hand-computed cases."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.kernels import reference
from engramdb.kernels.reference import (
    CAUSED_BY,
    COMBINE_MAX,
    CONTRADICTS,
    N_RELATIONS,
    RELATED_TO,
    SUPPORTS,
)
from tests.strategies import csr_graphs, from_edges, spread_cases

ALL_ONES = np.ones(N_RELATIONS, dtype=np.float32)
SIZES = [0, 1, 7, 1024]
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


# Activations of an arbitrary activated set: exact repeats make tied passes; 0, negative
# and NaN activations pass nothing.
_acts = st.one_of(
    st.floats(0.0625, 1.0, width=32),
    st.sampled_from([1.0, 0.5, 0.5, 0.0, -0.25, float("nan")]),
)


@st.composite
def inflow_cases(draw, graphs=None) -> dict:
    """Keyword arguments for ``spread_inflow``, in signature order.

    The graph and parameters come from ``spread_cases()``. The activated set is either the
    output of ``reference.spread_activation`` on that case (what the engine passes) or any
    distinct nodes in any order with any activations. ``mark`` is a fresh all -1 array.
    """
    case = draw(spread_cases(graphs))
    n = case["indptr"].shape[0] - 1
    if n > 0 and draw(st.booleans()):
        nodes, act, _, _ = reference.spread_activation(**case)
    else:
        picked = draw(st.lists(st.integers(0, n - 1), unique=True)) if n > 0 else []
        nodes = np.array(picked, dtype=np.int32)
        act = np.array([draw(_acts) for _ in picked], dtype=np.float32)
    return dict(
        indptr=case["indptr"],
        indices=case["indices"],
        weight=case["weight"],
        relation=case["relation"],
        nodes=nodes,
        act=act,
        rel_mult=case["rel_mult"],
        decay=case["decay"],
        fan_exp=case["fan_exp"],
        degree_cap=case["degree_cap"],
        mark=np.full(n, -1, dtype=np.int32),
    )


def _passes_into(case):
    """For each position i: {u: largest pass u -> nodes[i]} over the members u, in float64."""
    indptr, indices = case["indptr"], case["indices"]
    weight, relation = case["weight"], case["relation"]
    pos = {v: i for i, v in enumerate(case["nodes"].tolist())}
    passes: list[dict[int, float]] = [{} for _ in pos]
    for u, a in zip(case["nodes"].tolist(), case["act"].tolist()):
        start, end = int(indptr[u]), int(indptr[u + 1])
        deg = end - start
        if deg == 0 or deg > case["degree_cap"] or not a > 0:
            continue
        fan = 1.0 if case["fan_exp"] == 0 else deg ** -case["fan_exp"]
        for e in range(start, end):
            v, r = int(indices[e]), int(relation[e])
            if v == u or r == CONTRADICTS or v not in pos:
                continue
            p = a * min(float(weight[e]), 1.0) * float(case["rel_mult"][r])
            p *= case["decay"] * fan
            if p > 0:
                into = passes[pos[v]]
                into[u] = max(p, into.get(u, 0.0))
    return passes


def assert_inflow_agrees(case, got, want):
    """Same dtypes and shapes, close inflows, equivalent sources, ``mark`` all -1 again.

    A source may differ from the reference only where two senders give passes equal within
    float rounding (then both must be among the best), so the check cannot flake on ties.
    """
    inflow, source = got
    r_inflow, r_source = want
    m = case["nodes"].shape[0]
    assert inflow.dtype == np.float32 and source.dtype == np.int32
    assert inflow.shape == (m,) and source.shape == (m,)
    assert_allclose(inflow, r_inflow, rtol=1e-5, atol=1e-7)
    assert_array_equal(source == -1, r_source == -1)
    assert_array_equal(inflow[source == -1], 0.0)
    mismatch = np.flatnonzero(source != r_source)
    if mismatch.size:
        passes = _passes_into(case)
        for i in mismatch.tolist():
            cand = passes[i]
            best = max(cand.values())
            near = {u for u, p in cand.items() if p >= best * (1 - 1e-5) - 1e-7}
            assert len(near) > 1, f"position {i}: source {source[i]} != {r_source[i]}"
            assert int(source[i]) in near and int(r_source[i]) in near
    assert_array_equal(case["mark"], -1)


def _brute_force(case):
    """The contract computed target by target (O(m * edges)), with the float32 rounding of
    the module docstring; independent of the loop structure of the backends."""
    indptr, indices = case["indptr"], case["indices"]
    weight, relation = case["weight"], case["relation"]
    nodes, act = case["nodes"].tolist(), case["act"].tolist()
    rel_mult = case["rel_mult"].tolist()
    m = len(nodes)
    inflow = np.zeros(m, dtype=np.float32)
    source = np.full(m, -1, dtype=np.int32)
    for i, v in enumerate(nodes):
        for u, a in zip(nodes, act):
            deg = int(indptr[u + 1] - indptr[u])
            if u == v or deg < 1 or deg > case["degree_cap"] or not a > 0:
                continue
            fan = 1.0 if float(case["fan_exp"]) == 0.0 else float(deg) ** -float(case["fan_exp"])
            for e in range(int(indptr[u]), int(indptr[u + 1])):
                r = int(relation[e])
                if int(indices[e]) != v or r == CONTRADICTS:
                    continue
                w = min(float(weight[e]), 1.0)
                p = np.float32(a * w * rel_mult[r] * float(case["decay"]) * fan)
                if p > inflow[i]:
                    inflow[i], source[i] = p, u
    return inflow, source


@settings(max_examples=300, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=inflow_cases())
def test_inflow_agrees_with_reference(kernels, case):
    want = reference.spread_inflow(**case)
    assert_array_equal(case["mark"], -1)  # the reference never touches mark
    got = kernels.spread_inflow(*case.values())  # positional, in signature order
    assert_inflow_agrees(case, got, want)
    # The same mark serves the next call: a second call gives the same answer.
    again = kernels.spread_inflow(*case.values())
    for a, b in zip(got, again):
        assert_array_equal(a, b)
    assert_array_equal(case["mark"], -1)


@settings(max_examples=60, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=inflow_cases(graphs=csr_graphs(max_nodes=60, max_edges=300, max_hubs=4)))
def test_inflow_agrees_on_denser_graphs(kernels, case):
    assert_inflow_agrees(case, kernels.spread_inflow(**case), reference.spread_inflow(**case))


@settings(max_examples=200, deadline=None)
@given(case=inflow_cases())
def test_reference_matches_brute_force(case):
    inflow, source = reference.spread_inflow(**case)
    b_inflow, b_source = _brute_force(case)
    assert_array_equal(inflow, b_inflow)
    assert_array_equal(source, b_source)
    assert_array_equal(case["mark"], -1)


@settings(max_examples=100, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=spread_cases())
def test_inflow_covers_the_spread_parent(any_kernels, case):
    # Under MAX, a node reached by spreading got act = the pass from its parent, which is
    # another member: its inflow is at least that, computed with the same arithmetic.
    case["combine"] = COMBINE_MAX
    nodes, act, _, depth = reference.spread_activation(**case)
    n = case["indptr"].shape[0] - 1
    mark = np.full(n, -1, dtype=np.int32)
    inflow, source = any_kernels.spread_inflow(
        case["indptr"], case["indices"], case["weight"], case["relation"], nodes, act,
        case["rel_mult"], case["decay"], case["fan_exp"], case["degree_cap"], mark,
    )
    reached = depth > 0
    assert np.all(inflow[reached] >= act[reached])
    assert np.all(source[reached] >= 0)
    assert_array_equal(mark, -1)


def _large_graph(seed, n=1024, nnz=8192):
    rng = np.random.default_rng(seed)
    src = np.sort(rng.integers(0, n, nnz))
    counts = np.zeros(n + 1, dtype=np.int64)
    np.add.at(counts, src + 1, 1)
    return rng, dict(
        indptr=np.cumsum(counts),
        indices=rng.integers(0, n, nnz).astype(np.int32),
        weight=rng.uniform(0.05, 1.2, nnz).astype(np.float32),
        relation=rng.integers(0, N_RELATIONS, nnz).astype(np.uint8),
    )


@pytest.mark.parametrize("fan_exp", [0.0, 0.5])
@pytest.mark.parametrize("seed", [0, 1])
def test_inflow_agrees_on_large_random_graph(kernels, fan_exp, seed):
    rng, graph = _large_graph(seed)
    rel_mult = rng.uniform(0.5, 1.0, N_RELATIONS).astype(np.float32)
    nodes, act, _, _ = reference.spread_activation(
        **graph, seeds=rng.integers(0, 1024, 8).astype(np.int32),
        seed_act=rng.uniform(0.2, 1.0, 8).astype(np.float32), rel_mult=rel_mult,
        max_depth=3, decay=0.5, fan_exp=fan_exp, degree_cap=12, combine=COMBINE_MAX,
        sum_cap=1.0,
    )
    assert nodes.size > 100  # the activated set is sizeable
    case = dict(**graph, nodes=nodes, act=act, rel_mult=rel_mult, decay=0.5,
                fan_exp=fan_exp, degree_cap=12, mark=np.full(1024, -1, dtype=np.int32))
    want = reference.spread_inflow(**case)
    assert np.count_nonzero(want[1] >= 0) > 100  # many members receive inflow
    assert_inflow_agrees(case, kernels.spread_inflow(**case), want)


@pytest.mark.parametrize("m", SIZES)
def test_inflow_sizes(any_kernels, m):
    # m members drawn from the large graph (m = 1024: every node), with a brute-force check.
    rng, graph = _large_graph(m)
    nodes = rng.permutation(1024)[:m].astype(np.int32)
    act = rng.uniform(0.0, 1.0, m).astype(np.float32)
    case = dict(**graph, nodes=nodes, act=act, rel_mult=ALL_ONES, decay=0.5, fan_exp=1.0,
                degree_cap=12, mark=np.full(1024, -1, dtype=np.int32))
    inflow, source = any_kernels.spread_inflow(**case)
    assert inflow.shape == (m,) and source.shape == (m,)
    assert_array_equal(case["mark"], -1)
    if m <= 7:
        want = _brute_force(case)
    else:
        want = reference.spread_inflow(**case)
        assert np.count_nonzero(want[1] >= 0) > m // 2
    assert_inflow_agrees(case, (inflow, source), want)
    if m == 1:
        assert_array_equal(source, [-1])  # a single member has no other to receive from


# ---------------------------------------------------------------- hand-computed cases


def _run(k, g, nodes, act, *, rel_mult=ALL_ONES, decay=0.5, fan_exp=0.0, degree_cap=100):
    mark = np.full(g.n, -1, dtype=np.int32)
    inflow, source = k.spread_inflow(
        *g.arrays,
        np.array(nodes, dtype=np.int32),
        np.array(act, dtype=np.float32),
        np.asarray(rel_mult, dtype=np.float32),
        decay, fan_exp, degree_cap, mark,
    )
    assert_array_equal(mark, -1)
    return inflow, source


def _expect(result, inflow, source):
    assert result[0].dtype == np.float32 and result[1].dtype == np.int32
    assert_array_equal(result[0], np.array(inflow, dtype=np.float32))
    assert_array_equal(result[1], source)


# 0 -> 1 (w 2.0 counts as 1, supports), 0 -> 2 (w 0.5, related_to x0.8), 0 -> 4 (4 is not a
# member), 1 -> 1 (self-loop), 1 -> 2 (w 1, supports), 2 -> 0 (contradicts),
# 2 -> 1 (w 0.25, caused_by). Members [0, 1, 2] with act [1, 0.5, 0.25]; deg 3, 2, 2.
TRIANGLE = from_edges(5, [(0, 1, 2.0, SUPPORTS), (0, 2, 0.5, RELATED_TO), (0, 4, 1.0, SUPPORTS),
                          (1, 1, 1.0, SUPPORTS), (1, 2, 1.0, SUPPORTS), (2, 0, 1.0, CONTRADICTS),
                          (2, 1, 0.25, CAUSED_BY)])
MULT = ALL_ONES.copy()
MULT[RELATED_TO] = 0.8


def test_triangle_hand_computed(any_kernels):
    # fan_exp 1, decay 0.5:
    #   0 -> 1: 1 * 1 * 1 * 0.5 / 3          = 1/6
    #   0 -> 2: 1 * 0.5 * 0.8 * 0.5 / 3      = 1/15
    #   1 -> 2: 0.5 * 1 * 1 * 0.5 / 2        = 0.125 (beats 1/15: source 1)
    #   2 -> 1: 0.25 * 0.25 * 1 * 0.5 / 2    = 0.015625 (below 1/6)
    #   nothing reaches 0: its only in-edge is contradicts.
    r = _run(any_kernels, TRIANGLE, [0, 1, 2], [1.0, 0.5, 0.25], rel_mult=MULT, fan_exp=1.0)
    _expect(r, [0.0, np.float32(1 / 6), 0.125], [-1, 0, 1])
    # fan off: 0 -> 1 0.5, 0 -> 2 0.2, 1 -> 2 0.25 (wins), 2 -> 1 0.03125
    r = _run(any_kernels, TRIANGLE, [0, 1, 2], [1.0, 0.5, 0.25], rel_mult=MULT, fan_exp=0.0)
    _expect(r, [0.0, 0.5, 0.25], [-1, 0, 1])
    # degree_cap 2: node 0 (deg 3) passes nothing; 1 then gets 2's pass 0.015625
    r = _run(any_kernels, TRIANGLE, [0, 1, 2], [1.0, 0.5, 0.25], rel_mult=MULT, fan_exp=1.0,
             degree_cap=2)
    _expect(r, [0.0, 0.015625, 0.125], [-1, 2, 1])
    # the member order only changes the positions
    r = _run(any_kernels, TRIANGLE, [2, 0, 1], [0.25, 1.0, 0.5], rel_mult=MULT, fan_exp=1.0)
    _expect(r, [0.125, 0.0, np.float32(1 / 6)], [1, -1, 0])
    # without 1, node 2 keeps 0's pass: 1 * 0.5 * 0.8 * 0.5 = 0.2 rounded to float32
    r = _run(any_kernels, TRIANGLE, [2, 0], [0.25, 1.0], rel_mult=MULT, fan_exp=0.0)
    _expect(r, [np.float32(0.2), 0.0], [0, -1])


def test_zero_activation_and_isolated_members(any_kernels):
    # a member with act 0 (or below) passes nothing; 3 has no edges; 4 is not a member
    r = _run(any_kernels, TRIANGLE, [0, 1, 2, 3], [0.0, 0.5, -1.0, 0.75], rel_mult=MULT)
    _expect(r, [0.0, 0.0, 0.25, 0.0], [-1, -1, 1, -1])
    # the act > 0 test is not only "pass <= 0 changes nothing": a negative activation along
    # a negative weight would give a positive product, and still passes nothing.
    g = from_edges(2, [(0, 1, -0.5, SUPPORTS), (1, 0, -0.5, SUPPORTS)])
    _expect(_run(any_kernels, g, [0, 1], [-1.0, 1.0]), [0.0, 0.0], [-1, -1])


def test_ties_keep_the_first(any_kernels):
    # 1 and 2 both pass 0.5 into 0: the first member in `nodes` order keeps it.
    g = from_edges(3, [(1, 0, 1.0, SUPPORTS), (2, 0, 1.0, SUPPORTS)])
    _expect(_run(any_kernels, g, [0, 1, 2], [0.1, 1.0, 1.0]), [0.5, 0.0, 0.0], [1, -1, -1])
    _expect(_run(any_kernels, g, [0, 2, 1], [0.1, 1.0, 1.0]), [0.5, 0.0, 0.0], [2, -1, -1])
    # strictly greater wins regardless of order
    _expect(_run(any_kernels, g, [0, 1, 2], [0.1, 0.5, 1.0]), [0.5, 0.0, 0.0], [2, -1, -1])


def test_duplicate_edges_keep_the_largest(any_kernels):
    # 0 -> 1 twice (w 0.25, then w 0.75) and a contradicts 0 -> 1 that counts only in deg.
    g = from_edges(2, [(0, 1, 0.25, SUPPORTS), (0, 1, 1.0, CONTRADICTS), (0, 1, 0.75, SUPPORTS)])
    # fan_exp 1, deg 3: 1 * 0.75 * 0.5 / 3 = 0.125
    _expect(_run(any_kernels, g, [1, 0], [1.0, 1.0], fan_exp=1.0), [0.125, 0.0], [0, -1])
    # a zero multiplier makes every pass 0, which is not > 0
    mult = ALL_ONES.copy()
    mult[SUPPORTS] = 0.0
    _expect(_run(any_kernels, g, [1, 0], [1.0, 1.0], rel_mult=mult), [0.0, 0.0], [-1, -1])


def test_empty_inputs(any_kernels):
    for g, nodes in ((from_edges(0, []), []), (from_edges(3, []), []), (from_edges(3, []), [1]),
                     (TRIANGLE, [])):
        r = _run(any_kernels, g, nodes, [1.0] * len(nodes))
        assert [a.dtype for a in r] == [np.float32, np.int32]
        assert_array_equal(r[0], np.zeros(len(nodes), dtype=np.float32))
        assert_array_equal(r[1], np.full(len(nodes), -1, dtype=np.int32))
