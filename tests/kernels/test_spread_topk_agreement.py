"""spread_topk: every backend agrees with the reference; the reference agrees with
spread_activation plus a lexsort; hand-computed ties; scratch reuse and threads (C, Numba)."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.kernels import reference
from engramdb.kernels.reference import COMBINE_MAX, COMBINE_SUM, N_RELATIONS, SUPPORTS
from tests.strategies import csr_graphs, from_edges, load_backend, spread_cases

ALL_ONES = np.ones(N_RELATIONS, dtype=np.float32)


def _lexsort_topk(case, min_depth, k):
    """Independent spec: spread_activation, drop depth < min_depth, sort by (-act, node)."""
    nodes, act, parent, depth = reference.spread_activation(**case)
    keep = depth >= min_depth
    nodes, act, parent, depth = nodes[keep], act[keep], parent[keep], depth[keep]
    order = np.lexsort((nodes, -act.astype(np.float64)))[: max(0, k)]
    return nodes[order], act[order], parent[order], depth[order]


def _assert_same(got, want):
    nodes, act, parent, depth = got
    assert nodes.dtype == np.int32 and act.dtype == np.float32
    assert parent.dtype == np.int32 and depth.dtype == np.int8
    assert_array_equal(nodes, want[0])
    assert_allclose(act, want[1], rtol=1e-5, atol=1e-7)
    assert_array_equal(depth, want[3])


topk_args = st.tuples(st.sampled_from([0, 1, 2]), st.sampled_from([0, 1, 3, 20, 100]) | st.integers(-1, 8))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=spread_cases(), args=topk_args)
def test_spread_topk_agrees_with_reference(kernels, case, args):
    min_depth, k = args
    want = reference.spread_topk(**case, min_depth=min_depth, k=k)
    got = kernels.spread_topk(*case.values(), min_depth, k)
    _assert_same(got, want)
    # Parents as spread_activation reports them for the same nodes (same backend).
    nodes, _act, parent, _depth = kernels.spread_activation(*case.values())
    where = dict(zip(nodes.tolist(), parent.tolist()))
    assert got[2].tolist() == [where[v] for v in got[0].tolist()]
    # The scratch is clean afterwards: the same call again gives the same answer.
    for a, b in zip(got, kernels.spread_topk(*case.values(), min_depth, k)):
        assert_array_equal(a, b)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=spread_cases(graphs=csr_graphs(max_nodes=60, max_edges=300, max_hubs=4)), args=topk_args)
def test_spread_topk_agrees_on_denser_graphs(kernels, case, args):
    min_depth, k = args
    _assert_same(kernels.spread_topk(*case.values(), min_depth, k),
                 reference.spread_topk(**case, min_depth=min_depth, k=k))


@settings(max_examples=100, deadline=None)
@given(case=spread_cases(), args=topk_args)
def test_reference_spread_topk_is_spread_then_lexsort(case, args):
    min_depth, k = args
    got = reference.spread_topk(**case, min_depth=min_depth, k=k)
    want = _lexsort_topk(case, min_depth, k)
    for a, b in zip(got, want):
        assert_array_equal(a, b)


def _power_law_case(seed, n=4000, nnz=24000, combine=COMBINE_SUM):
    rng = np.random.default_rng(seed)
    # mostly uniform rows plus a tenth of the edges on a few power-law hubs
    src = np.sort(np.concatenate([rng.integers(0, n, nnz - nnz // 10), rng.zipf(1.6, nnz // 10) % 50]))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    return dict(
        indptr=np.cumsum(indptr),
        indices=rng.integers(0, n, nnz).astype(np.int32),
        weight=rng.choice(np.float32([0.25, 0.5, 1.0]), nnz),  # few values: many ties
        relation=rng.integers(0, N_RELATIONS, nnz).astype(np.uint8),
        seeds=rng.choice(n, 10, replace=False).astype(np.int32),
        seed_act=np.ones(10, np.float32),
        rel_mult=ALL_ONES,
        max_depth=2,
        decay=0.5,
        fan_exp=0.0,
        degree_cap=10_000,
        combine=combine,
        sum_cap=1e9,
    )


@pytest.mark.parametrize("combine", [COMBINE_MAX, COMBINE_SUM])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spread_topk_on_power_law_graph_with_ties(kernels, combine, seed):
    case = _power_law_case(seed, combine=combine)
    want = _lexsort_topk(case, 1, 20)
    assert want[0].size == 20 and np.unique(want[1]).size < 20  # ties really occur
    got = kernels.spread_topk(*case.values(), 1, 20)
    for a, b in zip(got, want):
        assert_array_equal(a, b)


def test_scratch_shared_with_spread_activation_and_other_sizes(kernels):
    # Interleave graphs of different sizes and both kernels: every answer stays exact.
    big, small = _power_law_case(3), _power_law_case(4, n=500, nnz=3000)
    for _ in range(3):
        for case in (big, small):
            want = _lexsort_topk(case, 1, 7)
            for a, b in zip(kernels.spread_topk(*case.values(), 1, 7), want):
                assert_array_equal(a, b)
            got = kernels.spread_activation(*case.values())
            assert_array_equal(got[0], reference.spread_activation(**case)[0])


def test_threads_get_their_own_scratch(kernels):
    case = _power_law_case(5)
    rng = np.random.default_rng(5)
    n = case["indptr"].size - 1
    queries = [rng.choice(n, 10, replace=False).astype(np.int32) for _ in range(40)]
    want = [_lexsort_topk({**case, "seeds": s}, 1, 20)[0] for s in queries]
    kernels.spread_topk(*case.values(), 1, 20)  # compile (Numba) before the threads start
    errors = []

    def worker(offset):
        for i in range(len(queries)):
            j = (i + offset) % len(queries)
            got = kernels.spread_topk(*{**case, "seeds": queries[j]}.values(), 1, 20)[0]
            if not np.array_equal(got, want[j]):
                errors.append(j)

    threads = [threading.Thread(target=worker, args=(t * 7,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# Seeds 0 and 1; 0 -> 2, 0 -> 3 and 1 -> 4 all pass 0.5 (a three-way tie), 1 -> 5 passes
# 0.25, and 2 -> 6 passes 0.25 at depth 2 (a tie with node 5 across depths).
TIES = from_edges(7, [(0, 3, 1.0, SUPPORTS), (0, 2, 1.0, SUPPORTS), (1, 5, 0.5, SUPPORTS),
                      (1, 4, 1.0, SUPPORTS), (2, 6, 1.0, SUPPORTS)])


def _topk(k_mod, seeds, seed_act, min_depth, k):
    return k_mod.spread_topk(
        *TIES.arrays, np.array(seeds, np.int32), np.array(seed_act, np.float32), ALL_ONES,
        2, 0.5, 0.0, 100, COMBINE_SUM, 1e9, min_depth, k)


def test_spread_topk_hand_computed(any_kernels):
    nodes, act, parent, depth = _topk(any_kernels, [0, 1], [1.0, 1.0], 1, 10)
    assert_array_equal(nodes, [2, 3, 4, 5, 6])  # 0.5 x3 by id, then 0.25 x2 by id
    assert_allclose(act, [0.5, 0.5, 0.5, 0.25, 0.25])
    assert_array_equal(parent, [0, 0, 1, 1, 2])
    assert_array_equal(depth, [1, 1, 1, 1, 2])
    nodes, _, _, _ = _topk(any_kernels, [0, 1], [1.0, 1.0], 1, 2)
    assert_array_equal(nodes, [2, 3])
    # min_depth 0: the seeds compete (seed 1 has the larger activation, then seed 0).
    nodes, act, parent, depth = _topk(any_kernels, [0, 1], [0.9, 1.0], 0, 3)
    assert_array_equal(nodes, [1, 0, 4])
    assert_array_equal(parent, [-1, -1, 1])
    assert_array_equal(depth, [0, 0, 1])
    # min_depth 2: only node 6; k 0 or no seeds: nothing.
    assert_array_equal(_topk(any_kernels, [0, 1], [1.0, 1.0], 2, 5)[0], [6])
    assert _topk(any_kernels, [0, 1], [1.0, 1.0], 1, 0)[0].size == 0
    assert _topk(any_kernels, [], [], 0, 5)[0].size == 0


# Seed activations that stress the ranking rule (min_depth 0 lets the seeds compete): NaN
# ranks after every number and among NaNs by id, -0.0 ties +0.0 (so the smaller id first),
# negatives and infinities order as numbers. Seeds 7.. have no edges.
ODD_SEEDS = [7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
ODD_ACTS = [np.nan, 0.0, -0.0, -1.5, np.inf, -np.inf, np.nan, 0.25, -0.0, 3.0]
ODD = from_edges(17, [(0, 3, 1.0, SUPPORTS)])


@pytest.mark.parametrize("k", [1, 3, 6, 10, 20])
def test_spread_topk_ranks_nan_zeros_and_infinities_like_the_reference(any_kernels, k):
    seeds = np.array(ODD_SEEDS, np.int32)
    acts = np.array(ODD_ACTS, np.float32)
    nodes, act, parent, depth = any_kernels.spread_topk(
        *ODD.arrays, seeds, acts, ALL_ONES, 2, 0.5, 0.0, 100, COMBINE_SUM, 1e9, 0, k)
    # by hand: inf (11), 3.0 (16), 0.25 (14), +0.0 (8) and -0.0 (9, 15) by id, -1.5 (10),
    # -inf (12), then NaN (7, 13) by id
    want = [11, 16, 14, 8, 9, 15, 10, 12, 7, 13][:k]
    assert nodes.tolist() == want
    assert np.array_equal(act, acts[[ODD_SEEDS.index(v) for v in want]], equal_nan=True)
    assert np.array_equal(np.signbit(act), np.signbit(acts[[ODD_SEEDS.index(v) for v in want]]))
    assert parent.tolist() == [-1] * len(want) and depth.tolist() == [0] * len(want)
    ref = reference.spread_topk(*ODD.arrays, seeds, acts, ALL_ONES, 2, 0.5, 0.0, 100,
                                COMBINE_SUM, 1e9, 0, k)
    assert ref[0].tolist() == want


def test_c_rejects_wrong_arrays():
    c = load_backend("c")
    case = _power_law_case(6)
    args = list(case.values())
    ok = c.spread_topk(*args, 1, 5)[0]
    assert ok.size == 5
    bad = {
        1: case["indices"].astype(np.int64),          # wrong dtype
        2: np.repeat(case["weight"], 2)[::2],         # not contiguous
        4: case["seeds"].tolist(),                    # not an array
        5: case["seed_act"].reshape(2, 5),            # not 1-d
        0: case["indptr"].astype(">i8"),              # byte-swapped
    }
    for pos, value in bad.items():
        wrong = list(args)
        wrong[pos] = value
        with pytest.raises(ValueError):
            c.spread_topk(*wrong, 1, 5)
        with pytest.raises(ValueError):
            c.spread_activation(*wrong)
