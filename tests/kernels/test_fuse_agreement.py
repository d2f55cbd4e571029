"""fuse_seeds: every backend agrees with the reference; the reference is the formula of
docs/design.md (vector leg rescaled by its own median, keyword leg over its best score,
divided by the best base), checked by hand and against ``np.median``."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from engramdb.kernels import reference

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
_cos = st.one_of(st.floats(-1.0, 1.0, width=32), st.sampled_from([0.0, -0.0, 1.0, 0.5, 0.5]))


@st.composite
def fuse_cases(draw, max_vector: int = 12, max_keyword: int = 60) -> dict:
    """Keyword arguments of ``fuse_seeds``: two legs over a small id space (so they overlap
    often), each best first, repeated scores included; weights and contrast as configured."""
    ids = st.integers(0, 3 * (max_vector + max_keyword))
    labels = draw(st.lists(ids, max_size=max_vector, unique=True))
    kw_nids = draw(st.lists(ids, max_size=max_keyword, unique=True))
    cos = sorted(draw(st.lists(_cos, min_size=len(labels), max_size=len(labels))), reverse=True)
    kw_score = sorted(draw(st.lists(st.one_of(st.floats(0.0, 30.0, width=32), st.just(0.0)),
                                    min_size=len(kw_nids), max_size=len(kw_nids))), reverse=True)
    kw_cos = draw(st.lists(_cos, min_size=len(kw_nids), max_size=len(kw_nids)))
    return dict(labels=np.array(labels, np.int64), cos=np.array(cos, np.float32),
                kw_nids=np.array(kw_nids, np.int64), kw_score=np.array(kw_score, np.float32),
                kw_cos=np.array(kw_cos, np.float32),
                w_vector=draw(st.sampled_from([0.0, 0.35, 0.6, 1.0])),
                w_keyword=draw(st.sampled_from([0.0, 0.4, 0.65, 1.0])),
                contrast=draw(st.sampled_from([0.0, 0.5, 0.9, 1.0])))


def _same(got, want) -> None:
    assert [a.dtype for a in got] == [np.dtype(np.int32), np.dtype(np.float32), np.dtype(np.float32)]
    for a, b in zip(got, want):
        assert_array_equal(a, b)


@settings(max_examples=300, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=fuse_cases())
def test_fuse_seeds_agrees_with_reference(kernels, case):
    _same(kernels.fuse_seeds(**case), reference.fuse_seeds(**case))


@settings(max_examples=60, deadline=None, suppress_health_check=_SUPPRESS)
@given(case=fuse_cases(max_vector=150, max_keyword=150))
def test_fuse_seeds_agrees_on_long_legs(kernels, case):
    """A vector leg longer than the C kernel's linear-scan limit (64): looked up by binary search."""
    _same(kernels.fuse_seeds(**case), reference.fuse_seeds(**case))


@settings(max_examples=200, deadline=None)
@given(leg=st.lists(st.floats(-1.0, 1.0, width=32), min_size=1, max_size=40),
       extra=st.lists(st.floats(-1.0, 1.0, width=32), max_size=60), contrast=st.sampled_from([0.0, 0.5, 0.9]))
def test_the_vector_scale_uses_the_median_of_numpy(leg, extra, contrast):
    """The keyword leg's weight 0: base is the vector scale over its best, with the floor at
    ``contrast`` x ``np.median`` of the vector leg's (clipped) cosines."""
    leg_cos = np.sort(np.array(leg, np.float32))[::-1].copy()
    extra_cos = np.array(extra, np.float32)
    labels = np.arange(len(leg_cos), dtype=np.int64)
    kw_nids = np.arange(len(leg_cos), len(leg_cos) + len(extra_cos), dtype=np.int64)
    seeds, base, seed_cos = reference.fuse_seeds(labels, leg_cos, kw_nids, np.ones(len(kw_nids), np.float32),
                                                 extra_cos, 1.0, 0.0, contrast)
    cos = np.concatenate([leg_cos, extra_cos])
    assert_array_equal(seeds, np.concatenate([labels, kw_nids]))
    assert_array_equal(seed_cos, cos)
    pos = np.maximum(cos.astype(np.float64), 0.0)
    top = max(float(leg_cos[0]), 0.0)
    b = contrast * float(np.median(np.maximum(leg_cos.astype(np.float64), 0.0)))
    if top <= 0.0:
        v = np.zeros(len(cos))
    elif top - b <= 1e-12:
        v = np.ones(len(cos))
    else:
        rel = (pos - b) / (top - b)
        v = np.where(rel > 0.0, np.minimum(rel, 1.0), 1e-3 * pos / top)
    best = v.max()
    assert_array_equal(base, (v if best <= 0 else v / best).astype(np.float32))


def test_fuse_seeds_hand_computed(any_kernels):
    # vector leg: cosines 0.8, 0.6, 0.4 -> median 0.6, contrast 0.5 -> b = 0.3, scale (p - 0.3) / 0.5
    labels = np.array([7, 3, 9], np.int64)
    cos = np.array([0.8, 0.6, 0.4], np.float32)
    # keyword leg: 3 (also a vector hit), then 5 (new, cosine 0.2 < b: 1e-3 * 0.2 / 0.8)
    kw_nids = np.array([3, 5], np.int64)
    kw_score = np.array([4.0, 2.0], np.float32)
    kw_cos = np.array([-9.0, 0.2], np.float32)   # 3's is read from the vector leg, not here
    seeds, base, seed_cos = any_kernels.fuse_seeds(labels, cos, kw_nids, kw_score, kw_cos, 0.6, 0.4, 0.5)
    assert_array_equal(seeds, [7, 3, 9, 5])
    assert_array_equal(seed_cos, np.array([0.8, 0.6, 0.4, 0.2], np.float32))
    p = np.array([0.8, 0.6, 0.4, 0.2], np.float32).astype(np.float64)
    v = np.array([1.0, (p[1] - 0.3) / 0.5, (p[2] - 0.3) / 0.5, 1e-3 * p[3] / p[0]])
    raw = 0.6 * v + np.array([0.0, 0.4, 0.0, 0.4 * 2.0 / 4.0])
    np.testing.assert_allclose(base, raw / raw.max(), rtol=1e-6)
    assert base.argmax() == 1   # found by both legs: the best seed, at 1


@pytest.mark.parametrize("w_vector,w_keyword", [(1.0, 0.0), (0.0, 1.0), (0.0, 0.0)])
def test_fuse_seeds_one_leg_or_none(any_kernels, w_vector, w_keyword):
    labels, cos = np.array([1, 2], np.int64), np.array([-0.2, -0.5], np.float32)
    kw_nids, kw_score = np.array([4], np.int64), np.array([3.0], np.float32)
    seeds, base, _ = any_kernels.fuse_seeds(labels, cos, kw_nids, kw_score, np.array([0.1], np.float32),
                                            w_vector, w_keyword, 0.5)
    assert_array_equal(seeds, [1, 2, 4])
    # the vector leg's best cosine is negative: its scale is 0 for everyone; without a positive
    # base, the scale alone ranks (all 0)
    want = [0.0, 0.0, 1.0] if w_keyword > 0 else [0.0, 0.0, 0.0]
    assert_array_equal(base, np.array(want, np.float32))
    empty = any_kernels.fuse_seeds(np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64),
                                   np.zeros(0, np.float32), np.zeros(0, np.float32), w_vector, w_keyword, 0.5)
    assert [len(a) for a in empty] == [0, 0, 0]
