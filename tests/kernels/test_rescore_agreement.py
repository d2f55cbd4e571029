"""rescore_salience: every backend agrees with the reference (rtol 1e-5) and with the closed
form s0 * 2**(-max(now - t0, 0) / h) computed here, h the half-life of each memory's kind."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.kernels import reference

SIZES = [0, 1, 7, 1024]
DAY_S = 86_400.0
# Below the float32 normal range the float32 exp2 of the fast backends loses relative
# precision; absolute differences there are far below this.
ATOL = 1e-37


def closed_form(s0, t0, kind, half_life, now):
    """s0 * 2**(-max(now - t0, 0) / h[kind]) in float64 (Settles & Meeder 2016, section 3.1)."""
    age = np.maximum(now - np.asarray(t0, dtype=np.float64), 0.0)
    h = np.asarray(half_life, dtype=np.float64)[kind]
    return np.asarray(s0, dtype=np.float64) * 2.0 ** (-age / h)


@st.composite
def rescore_inputs(draw, n):
    n_kinds = draw(st.integers(1, 8))
    s0 = draw(arrays(np.float32, n, elements=st.floats(0.0, 1.0, width=32)))
    now = draw(st.floats(1.6e9, 1.8e9))
    # Mostly past ages; some t0 in the future (age clamps to 0) and exact repeats of now.
    age_s = draw(arrays(np.float64, n, elements=st.one_of(
        st.floats(0.0, 400 * DAY_S), st.floats(-DAY_S, 0.0), st.just(0.0))))
    kind = draw(arrays(np.uint8, n, elements=st.integers(0, n_kinds - 1)))
    half_life = draw(arrays(np.float32, n_kinds, elements=st.one_of(
        st.floats(60.0, 3.2e7, width=32), st.just(1e30))))  # a minute .. a year; "permanent"
    return s0, now - age_s, kind, half_life, now


@pytest.mark.parametrize("n", SIZES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_rescore_agrees_with_reference(kernels, n, data):
    s0, t0, kind, half_life, now = data.draw(rescore_inputs(n))
    want = reference.rescore_salience(s0, t0, kind, half_life, now)
    got = kernels.rescore_salience(s0, t0, kind, half_life, now)
    assert got.dtype == np.float32 and got.shape == (n,)
    assert_allclose(got, want, rtol=1e-5, atol=ATOL)
    assert_allclose(got, closed_form(s0, t0, kind, half_life, now), rtol=1e-5, atol=ATOL)


@pytest.mark.parametrize("n", SIZES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_reference_rescore_is_the_closed_form(n, data):
    # float64 throughout, then one rounding to float32: within half a float32 ulp (plus one
    # float64 ulp of 2**x) of the closed form.
    s0, t0, kind, half_life, now = data.draw(rescore_inputs(n))
    got = reference.rescore_salience(s0, t0, kind, half_life, now)
    assert got.dtype == np.float32 and got.shape == (n,)
    assert_allclose(got, closed_form(s0, t0, kind, half_life, now), rtol=1e-7, atol=1e-45)


@pytest.mark.parametrize("n", SIZES)
def test_rescore_agrees_on_the_normal_range(kernels, n):
    # Exponents spread over [-126, 0]: the whole float32 normal range of 2**x.
    rng = np.random.default_rng(n)
    half_life = np.array([3600.0, 7 * DAY_S, 365 * DAY_S], dtype=np.float32)
    kind = rng.integers(0, 3, n).astype(np.uint8)
    now = 1.7e9
    t0 = now - rng.uniform(0, 126, n) * half_life[kind].astype(np.float64)
    s0 = rng.uniform(0.5, 1, n).astype(np.float32)
    want = reference.rescore_salience(s0, t0, kind, half_life, now)
    assert_allclose(kernels.rescore_salience(s0, t0, kind, half_life, now), want, rtol=1e-5, atol=0)


@pytest.mark.parametrize("n", SIZES)
def test_rescore_matches_the_closed_form(any_kernels, n):
    # Ages from -1 day (future t0: no growth) to 100 days over five half-lives.
    rng = np.random.default_rng(n)
    half_life = rng.uniform(60, 3e7, 5).astype(np.float32)
    kind = rng.integers(0, 5, n).astype(np.uint8)
    now = 1.7e9
    t0 = now - rng.uniform(-DAY_S, 100 * DAY_S, n)
    s0 = rng.uniform(0, 1, n).astype(np.float32)
    got = any_kernels.rescore_salience(s0, t0, kind, half_life, now)
    assert got.dtype == np.float32 and got.shape == (n,)
    assert_allclose(got, closed_form(s0, t0, kind, half_life, now), rtol=1e-5, atol=ATOL)
    assert np.all(got <= s0)


@pytest.mark.parametrize("n", [1, 7, 256])
def test_rescore_one_kind_per_memory(any_kernels, n):
    # Every memory its own half-life (kind i -> half_life[i]), a minute .. a year.
    rng = np.random.default_rng(n)
    half_life = rng.uniform(60, 3.2e7, n).astype(np.float32)
    kind = np.arange(n).astype(np.uint8)
    now = 1.7e9
    t0 = now - rng.uniform(0, 30 * DAY_S, n)
    s0 = rng.uniform(0, 1, n).astype(np.float32)
    got = any_kernels.rescore_salience(s0, t0, kind, half_life, now)
    assert_allclose(got, closed_form(s0, t0, kind, half_life, now), rtol=1e-5, atol=ATOL)


def test_rescore_hand_computed(any_kernels):
    # kinds: 0 = a day, 1 = a week. At t0: unchanged; one half-life: halved; two: quartered;
    # t0 after now: unchanged (no growth); 1.5 half-lives: 2**-1.5.
    half_life = np.array([DAY_S, 7 * DAY_S], dtype=np.float32)
    now = 1.7e9
    t0 = now - np.array([0.0, DAY_S, 14 * DAY_S, -DAY_S, 10.5 * DAY_S])
    kind = np.array([0, 0, 1, 1, 1], dtype=np.uint8)
    s0 = np.array([0.8, 0.8, 1.0, 0.6, 1.0], dtype=np.float32)
    got = any_kernels.rescore_salience(s0, t0, kind, half_life, now)
    assert got.dtype == np.float32
    assert_allclose(got, [0.8, 0.4, 0.25, 0.6, 2**-1.5], rtol=1e-6)


@pytest.mark.parametrize("n", [1, 7, 1024])
def test_rescore_batch_equals_one_by_one(any_kernels, n):
    rng = np.random.default_rng(n)
    half_life = np.array([DAY_S, 30 * DAY_S], dtype=np.float32)
    kind = rng.integers(0, 2, n).astype(np.uint8)
    now = 1.7e9
    t0 = now - rng.uniform(0, 30 * DAY_S, n)
    s0 = rng.uniform(0, 1, n).astype(np.float32)
    batch = any_kernels.rescore_salience(s0, t0, kind, half_life, now)
    single = [any_kernels.rescore_salience(s0[i:i + 1], t0[i:i + 1], kind[i:i + 1], half_life, now)[0]
              for i in range(n)]
    assert_array_equal(batch, np.array(single, dtype=np.float32))
