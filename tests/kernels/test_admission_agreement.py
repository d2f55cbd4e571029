"""admission_score: every backend agrees with the reference; hand-computed A-MAC scores."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.kernels import reference

SIZES = [0, 1, 7, 1024]
# A-MAC (arXiv:2603.04549) reference system: utility, confidence, novelty, recency, prior.
AMAC_WEIGHTS = np.array([0.25, 0.15, 0.20, 0.10, 0.30], dtype=np.float32)
AMAC_THRESHOLD = 0.55


# Exact repeats make scores land on the threshold.
_factor = st.one_of(st.floats(0.0, 1.0, width=32), st.sampled_from([0.0, 0.5, 0.55, 1.0]))


@pytest.mark.parametrize("n", SIZES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_admission_agrees_with_reference(kernels, n, data):
    features = data.draw(arrays(np.float32, (n, 5), elements=_factor))
    weights = data.draw(st.one_of(
        st.just(AMAC_WEIGHTS), arrays(np.float32, 5, elements=st.floats(0.0, 1.0, width=32))))
    threshold = data.draw(st.one_of(st.just(AMAC_THRESHOLD), st.floats(0.0, 1.0)))
    want_score, want_admit = reference.admission_score(features, weights, threshold)
    score, admit = kernels.admission_score(features, weights, threshold)
    assert score.dtype == np.float32 and score.shape == (n,)
    assert admit.dtype == np.bool_ and admit.shape == (n,)
    assert_allclose(score, want_score, rtol=1e-6, atol=1e-7)
    # Admission may only differ for a score within rounding of the threshold.
    clear = np.abs(want_score - np.float32(threshold)) > 1e-6 * max(threshold, 1e-6)
    assert_array_equal(admit[clear], want_admit[clear])


@pytest.mark.parametrize("n", SIZES)
def test_reference_admission_is_the_weighted_sum(n):
    rng = np.random.default_rng(n)
    features = rng.uniform(0, 1, (n, 5)).astype(np.float32)
    score, admit = reference.admission_score(features, AMAC_WEIGHTS, AMAC_THRESHOLD)
    exact = features.astype(np.float64) @ AMAC_WEIGHTS.astype(np.float64)
    assert_allclose(score, exact, rtol=1e-6, atol=1e-7)
    assert_array_equal(admit, score >= np.float32(AMAC_THRESHOLD))


def test_admission_hand_computed(any_kernels):
    features = np.array([
        [1.0, 1.0, 1.0, 1.0, 1.0],  # 1.0: admitted
        [0.0, 0.0, 0.0, 0.0, 0.0],  # 0.0: rejected
        [1.0, 0.0, 1.0, 0.0, 0.0],  # 0.25 + 0.20 = 0.45: rejected
        [1.0, 0.0, 0.0, 0.0, 1.0],  # 0.25 + 0.30 = 0.55: on the threshold, admitted
        [0.8, 0.9, 0.1, 0.5, 1.0],  # 0.2 + 0.135 + 0.02 + 0.05 + 0.3 = 0.705: admitted
    ], dtype=np.float32)
    score, admit = any_kernels.admission_score(features, AMAC_WEIGHTS, AMAC_THRESHOLD)
    assert_allclose(score, [1.0, 0.0, 0.45, 0.55, 0.705], rtol=1e-6)
    assert_array_equal(admit, [True, False, False, True, True])


@pytest.mark.parametrize("n", [1, 7, 1024])
def test_admission_batch_equals_one_by_one(any_kernels, n):
    rng = np.random.default_rng(n)
    features = rng.uniform(0, 1, (n, 5)).astype(np.float32)
    score, admit = any_kernels.admission_score(features, AMAC_WEIGHTS, AMAC_THRESHOLD)
    for i in range(n):
        s, a = any_kernels.admission_score(features[i:i + 1], AMAC_WEIGHTS, AMAC_THRESHOLD)
        assert s[0] == score[i] and a[0] == admit[i]
