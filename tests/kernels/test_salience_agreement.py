"""decay_salience: every backend agrees with the reference and with the closed form."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.kernels import reference
from tests.strategies import load_backend

SIZES = [0, 1, 7, 1024]
DAY_S = 86_400.0


@pytest.fixture(params=["numba", "c"])
def kernels(request):
    return load_backend(request.param)


@pytest.fixture(params=["reference", "numba", "c"])
def any_kernels(request):
    return load_backend(request.param)


@st.composite
def decay_inputs(draw, n):
    s0 = draw(arrays(np.float32, n, elements=st.floats(0.0, 1.0, width=32)))
    now = draw(st.floats(1.6e9, 1.8e9))
    age_s = draw(arrays(np.float64, n, elements=st.floats(0.0, 400 * DAY_S)))
    half_life_s = draw(
        arrays(np.float32, n, elements=st.floats(60.0, 3.2e7, width=32))  # a minute .. a year
    )
    return s0, now - age_s, now, half_life_s


@pytest.mark.parametrize("n", SIZES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_decay_agrees_with_reference(kernels, n, data):
    s0, t0, now, half_life_s = data.draw(decay_inputs(n))
    want = reference.decay_salience(s0, t0, now, half_life_s)
    got = kernels.decay_salience(s0, t0, now, half_life_s)
    assert got.dtype == np.float32 and got.shape == (n,)
    assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("n", [1, 7, 1024])
def test_decay_batch_equals_one_by_one(any_kernels, n, ):
    rng = np.random.default_rng(n)
    s0 = rng.uniform(0, 1, n).astype(np.float32)
    now = 1.7e9
    t0 = now - rng.uniform(0, 30 * DAY_S, n)
    h = rng.uniform(DAY_S, 60 * DAY_S, n).astype(np.float32)
    batch = any_kernels.decay_salience(s0, t0, now, h)
    single = [any_kernels.decay_salience(s0[i : i + 1], t0[i : i + 1], now, h[i : i + 1])[0]
              for i in range(n)]
    assert_array_equal(batch, np.array(single, dtype=np.float32))


def test_decay_hand_computed(any_kernels):
    # at t0: unchanged; one half-life: halved; two: quartered; 1.5 half-lives: 2**-1.5.
    h = np.full(4, 7 * DAY_S, dtype=np.float32)
    now = 1.7e9
    t0 = now - np.array([0.0, 7 * DAY_S, 14 * DAY_S, 10.5 * DAY_S])
    s0 = np.array([0.8, 0.8, 1.0, 1.0], dtype=np.float32)
    got = any_kernels.decay_salience(s0, t0, now, h)
    assert_allclose(got, [0.8, 0.4, 0.25, 2**-1.5], rtol=1e-6)
