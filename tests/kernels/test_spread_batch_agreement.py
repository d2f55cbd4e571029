"""spread_activation_batch: each query's slice equals spread_activation on that query alone,
in every backend, and every backend agrees with the reference."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from numpy.testing import assert_array_equal

from engramdb.kernels import reference
from engramdb.kernels.reference import COMBINE_MAX, COMBINE_SUM, N_RELATIONS
from tests.kernels.test_spread_agreement import assert_spread_agrees
from tests.strategies import csr_graphs, spread_batch_cases

SIZES = [0, 1, 7, 1024]
DTYPES = [np.int64, np.int32, np.float32, np.int32, np.int8]


def _query(case, i):
    """Keyword arguments of spread_activation for query i of a batch case."""
    lo, hi = int(case["seed_indptr"][i]), int(case["seed_indptr"][i + 1])
    single = {k: v for k, v in case.items() if k != "seed_indptr"}
    single["seeds"] = case["seeds"][lo:hi]
    single["seed_act"] = case["seed_act"][lo:hi]
    return single


def assert_batch_is_one_by_one(k, case, got):
    """``got`` (k's batch result) holds, slice by slice, k's single-query results exactly."""
    out_indptr = got[0]
    q = case["seed_indptr"].shape[0] - 1
    assert [a.dtype for a in got] == DTYPES
    assert out_indptr.shape == (q + 1,) and out_indptr[0] == 0
    assert np.all(np.diff(out_indptr) >= 0)
    assert all(a.shape == (out_indptr[-1],) for a in got[1:])
    for i in range(q):
        single = k.spread_activation(**_query(case, i))
        lo, hi = out_indptr[i], out_indptr[i + 1]
        for a, b in zip(got[1:], single):
            assert_array_equal(a[lo:hi], b)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=spread_batch_cases())
def test_batch_equals_one_by_one(any_kernels, case):
    assert_batch_is_one_by_one(any_kernels, case, any_kernels.spread_activation_batch(**case))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=spread_batch_cases(graphs=csr_graphs(max_nodes=60, max_edges=300, max_hubs=4)))
def test_batch_agrees_with_reference(kernels, case):
    want = reference.spread_activation_batch(**case)
    got = kernels.spread_activation_batch(*case.values())  # positional, in signature order
    assert_array_equal(got[0], want[0])
    for i in range(case["seed_indptr"].shape[0] - 1):
        lo, hi = want[0][i], want[0][i + 1]
        assert_spread_agrees(_query(case, i), [a[lo:hi] for a in got[1:]],
                             [a[lo:hi] for a in want[1:]])


def _random_batch(q, seed, combine):
    rng = np.random.default_rng(seed)
    n, nnz = 1024, 8192
    src = np.sort(rng.integers(0, n, nnz))
    counts = np.zeros(n + 1, dtype=np.int64)
    np.add.at(counts, src + 1, 1)
    n_seeds = rng.integers(0, 6, q)  # some queries without seeds
    seed_indptr = np.zeros(q + 1, dtype=np.int64)
    seed_indptr[1:] = np.cumsum(n_seeds)
    s = int(seed_indptr[-1])
    return dict(
        indptr=np.cumsum(counts),
        indices=rng.integers(0, n, nnz).astype(np.int32),
        weight=rng.uniform(0.05, 1.2, nnz).astype(np.float32),
        relation=rng.integers(0, N_RELATIONS, nnz).astype(np.uint8),
        seed_indptr=seed_indptr,
        seeds=rng.integers(0, n, s).astype(np.int32),
        seed_act=rng.uniform(0.2, 1.0, s).astype(np.float32),
        rel_mult=rng.uniform(0.5, 1.0, N_RELATIONS).astype(np.float32),
        max_depth=3,
        decay=0.5,
        fan_exp=0.5,
        degree_cap=12,
        combine=combine,
        sum_cap=1.0,
    )


@pytest.mark.parametrize("q", SIZES)
@pytest.mark.parametrize("combine", [COMBINE_MAX, COMBINE_SUM])
def test_batch_sizes(kernels, q, combine):
    case = _random_batch(q, seed=q + combine, combine=combine)
    got = kernels.spread_activation_batch(**case)
    assert_batch_is_one_by_one(kernels, case, got)
    want = reference.spread_activation_batch(**case)
    assert_array_equal(got[0], want[0])
    if q:
        assert want[0][-1] > q  # the traversals really go somewhere
    for i in range(q):
        lo, hi = want[0][i], want[0][i + 1]
        assert_spread_agrees(_query(case, i), [a[lo:hi] for a in got[1:]],
                             [a[lo:hi] for a in want[1:]])
    # The cached scratch must be clean: a second call gives the same answer.
    for a, b in zip(got, kernels.spread_activation_batch(**case)):
        assert_array_equal(a, b)


def test_batch_grows_its_outputs(kernels):
    # 64 queries that each touch the whole 300-node chain: far beyond any first size guess.
    n, q = 300, 64
    indptr = np.concatenate([np.arange(n, dtype=np.int64), [n - 1]])
    case = dict(
        indptr=indptr,
        indices=np.arange(1, n, dtype=np.int32),
        weight=np.ones(n - 1, dtype=np.float32),
        relation=np.ones(n - 1, dtype=np.uint8),
        seed_indptr=np.arange(q + 1, dtype=np.int64),
        seeds=np.zeros(q, dtype=np.int32),
        seed_act=np.ones(q, dtype=np.float32),
        rel_mult=np.ones(N_RELATIONS, dtype=np.float32),
        max_depth=127,
        decay=1.0,
        fan_exp=0.0,
        degree_cap=10,
        combine=COMBINE_MAX,
        sum_cap=1.0,
    )
    got = kernels.spread_activation_batch(**case)
    assert_array_equal(got[0], np.arange(q + 1) * 128)  # seed + 127 hops each
    assert_batch_is_one_by_one(kernels, case, got)


def test_empty_batches(any_kernels):
    empty = np.zeros(1, dtype=np.int64)
    graph = dict(indptr=np.zeros(4, dtype=np.int64), indices=np.zeros(0, np.int32),
                 weight=np.zeros(0, np.float32), relation=np.zeros(0, np.uint8))
    params = dict(rel_mult=np.ones(N_RELATIONS, np.float32), max_depth=2, decay=0.5,
                  fan_exp=0.0, degree_cap=4, combine=COMBINE_MAX, sum_cap=1.0)
    for seed_indptr, seeds in ((empty, []), (np.zeros(3, np.int64), []),
                               (np.array([0, 0, 2], np.int64), [2, 1])):
        got = any_kernels.spread_activation_batch(
            **graph, seed_indptr=seed_indptr, seeds=np.array(seeds, np.int32),
            seed_act=np.ones(len(seeds), np.float32), **params)
        assert [a.dtype for a in got] == DTYPES
        assert_array_equal(got[0], np.concatenate([[0], np.cumsum(np.diff(seed_indptr))]))
        assert_array_equal(got[1], seeds)
