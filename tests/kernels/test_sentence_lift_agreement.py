"""sentence_lift: every compiled backend agrees with the reference bit for bit on random arenas;
the reference is the formula (c + w * max(0, s - c), s the best key's cosine), checked against
NumPy's own product in float64."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from engramdb.kernels import reference

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@st.composite
def lift_cases(draw, max_nodes: int = 30, dims=st.integers(1, 40)) -> dict:
    """Keyword arguments of ``sentence_lift``: an arena of unit keys in any order with unused
    rows between memories, nodes with 0-6 keys (some marked unread: start -1, count 0), the
    memories asked for drawn with repeats, cosines in [-1, 1] (ties with a key's included)."""
    dim = draw(dims)
    n_nodes = draw(st.integers(1, max_nodes))
    counts = draw(st.lists(st.integers(0, 6), min_size=n_nodes, max_size=n_nodes))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    gaps = draw(st.lists(st.integers(0, 3), min_size=n_nodes, max_size=n_nodes))
    order = rng.permutation(n_nodes)
    start = np.full(n_nodes, -1, np.int64)
    row = 0
    for node in order.tolist():
        row += gaps[node]
        if counts[node]:
            start[node] = row
            row += counts[node]
        elif draw(st.booleans()):
            start[node] = row   # read, no keys
    keys = rng.standard_normal((row + draw(st.integers(0, 3)), dim)).astype(np.float32)
    keys /= np.maximum(np.linalg.norm(keys, axis=1, keepdims=True), np.float32(1e-6))
    query = rng.standard_normal(dim).astype(np.float32)
    query /= max(np.linalg.norm(query), np.float32(1e-6))
    nids = np.array(draw(st.lists(st.integers(0, n_nodes - 1), max_size=60)), np.int64)
    cos = rng.uniform(-1.0, 1.0, len(nids)).astype(np.float32)
    if len(keys) and draw(st.integers(0, 4)) == 0:   # a NaN key (the engine stores none): no lift for its memory
        keys[draw(st.integers(0, len(keys) - 1)), draw(st.integers(0, dim - 1))] = np.nan
    if len(nids) and counts[int(nids[0])]:   # a cosine equal to one of its keys': no lift
        node = int(nids[0])
        cos[0] = reference.lane_dots(keys[start[node]:start[node] + 1], query)[0]
    return dict(keys=keys, key_start=start, key_count=np.array(counts, np.int32), nids=nids, cos=cos,
                query=query, weight=draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])))


@settings(max_examples=300, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=lift_cases())
def test_sentence_lift_agrees_with_reference(kernels, case):
    got = kernels.sentence_lift(**case)
    assert got.dtype == np.float32 and got.shape == case["nids"].shape
    assert_array_equal(got, reference.sentence_lift(**case))


@settings(max_examples=40, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=lift_cases(max_nodes=8, dims=st.sampled_from([384, 768, 1024, 385, 767])))
def test_sentence_lift_agrees_at_embedding_sizes(kernels, case):
    """The embedders' sizes (384, 768, 1024) and two with a remainder past the eight partial sums."""
    assert_array_equal(kernels.sentence_lift(**case), reference.sentence_lift(**case))


@settings(max_examples=200, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=lift_cases())
def test_the_reference_lifts_toward_the_best_key(case):
    """Against NumPy's product in float64: out = c + w * max(0, s - c), a memory without keys
    (count 0) unchanged; never below c, never past max(c, s)."""
    out = reference.sentence_lift(**case)
    keys, start, count, q = case["keys"], case["key_start"], case["key_count"], case["query"]
    w = case["weight"]
    for i, nid in enumerate(case["nids"].tolist()):
        c = float(case["cos"][i])
        if count[nid] == 0:
            assert out[i] == case["cos"][i]
            continue
        s = float((keys[start[nid]:start[nid] + count[nid]].astype(np.float64) @ q.astype(np.float64)).max())
        if np.isnan(s):   # a NaN among its keys lifts nothing
            assert np.array_equal(out[i], case["cos"][i], equal_nan=True)
            continue
        assert float(out[i]) == pytest.approx(c + w * max(0.0, s - c), abs=1e-5)
        assert out[i] >= case["cos"][i]


@pytest.mark.parametrize("bad", [-1, 5])
def test_a_node_outside_the_columns_is_refused(any_kernels, bad):
    keys = np.ones((2, 3), np.float32) / np.sqrt(np.float32(3.0))
    with pytest.raises(ValueError, match="no such node"):
        any_kernels.sentence_lift(keys, np.zeros(5, np.int64), np.ones(5, np.int32), np.array([0, bad], np.int64),
                                  np.zeros(2, np.float32), keys[0], 0.5)


def test_rows_outside_the_arena_are_refused(any_kernels):
    keys = np.ones((2, 3), np.float32) / np.sqrt(np.float32(3.0))
    with pytest.raises(ValueError, match="outside keys"):
        any_kernels.sentence_lift(keys, np.array([1], np.int64), np.array([2], np.int32), np.array([0], np.int64),
                                  np.zeros(1, np.float32), keys[0], 0.5)


def _small():
    keys = np.ones((2, 3), np.float32) / np.sqrt(np.float32(3.0))
    return dict(keys=keys, key_start=np.array([0, 1], np.int64), key_count=np.array([1, 1], np.int32),
                nids=np.array([0, 1], np.int64), cos=np.zeros(2, np.float32), query=keys[0].copy(), weight=0.5)


@pytest.mark.parametrize("change", [
    {"cos": np.zeros(1, np.float32)},                     # shorter than nids: written past its end before
    {"query": np.ones(4, np.float32)},                    # not the keys' width
    {"key_count": np.ones(1, np.int32)},                  # shorter than key_start: read past its end
])
def test_arrays_of_disagreeing_lengths_are_refused(any_kernels, change):
    """helper-249: the Numba kernel checked none of these (a heap overwrite, exit 139)."""
    with pytest.raises(ValueError):
        any_kernels.sentence_lift(**{**_small(), **change})


@pytest.mark.parametrize("change", [
    {"keys": np.ones((2, 3), np.float64)},
    {"nids": np.array([0, 1], np.int32)},
    {"cos": np.zeros(4, np.float32)[::2]},
    {"query": [1.0, 0.0, 0.0]},
])
def test_compiled_kernels_take_only_the_documented_types(kernels, change):
    """The C and Numba versions take C-contiguous arrays of the documented dtypes, else ValueError."""
    with pytest.raises(ValueError):
        kernels.sentence_lift(**{**_small(), **change})
