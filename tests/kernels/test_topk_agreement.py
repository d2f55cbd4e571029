"""topk: every backend agrees with the reference; plus the kernel registry's contract."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_array_equal

from engramdb.errors import BackendUnavailableError
from engramdb.kernels import reference, registry
from tests.strategies import load_backend

SIZES = [0, 1, 7, 1024]


# Few distinct values so that ties are common; NaN, infinities and -0.0 included.
_score = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 1.0, -1.0]),
    st.floats(width=32, allow_nan=True, allow_infinity=True),
)


@pytest.mark.parametrize("n", SIZES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_topk_agrees_with_reference(kernels, n, data):
    scores = data.draw(arrays(np.float32, n, elements=_score))
    k = data.draw(st.integers(-1, n + 2))
    want = reference.topk(scores, k)
    got = kernels.topk(scores, k)
    assert got.dtype == np.int64
    assert_array_equal(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_reference_topk_matches_lexsort(n):
    rng = np.random.default_rng(n)
    scores = rng.integers(0, 5, n).astype(np.float32)  # many ties
    order = np.lexsort((np.arange(n), -scores))
    for k in (0, 1, 3, n, n + 1):
        assert_array_equal(reference.topk(scores, k), order[: max(0, min(k, n))])


def test_topk_hand_computed(any_kernels):
    scores = np.array([0.5, np.nan, 0.9, 0.5, -np.inf, 0.9, 0.1], dtype=np.float32)
    assert_array_equal(any_kernels.topk(scores, 3), [2, 5, 0])
    assert_array_equal(any_kernels.topk(scores, 10), [2, 5, 0, 3, 6, 4, 1])
    assert any_kernels.topk(scores, 0).shape == (0,)


# ---------------------------------------------------------------- registry


@pytest.fixture
def fresh_registry(monkeypatch):
    """A registry that re-reads ENGRAMDB_KERNELS, restored afterwards."""
    monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    registry._reset()
    yield monkeypatch
    registry._reset()


def test_c_backend_is_built():
    """The normal run must exercise C: only ENGRAMDB_NO_C=1 excuses a missing extension."""
    if os.environ.get("ENGRAMDB_NO_C") == "1":
        pytest.skip("ENGRAMDB_NO_C=1")
    assert registry.backend("c").topk is not None


@pytest.mark.parametrize("name", ["reference", "numba", "c"])
def test_forced_backend(fresh_registry, name):
    if name == "c":
        load_backend("c")
    fresh_registry.setenv(registry.ENV_VAR, name)
    assert registry.active_backend() == name
    for kernel in registry.KERNEL_NAMES:
        assert registry.get(kernel) is getattr(registry.backend(name), kernel)


def test_forced_backend_never_falls_back(fresh_registry):
    fresh_registry.setitem(registry._MODULES, "c", "engramdb.kernels._not_built")
    registry._loaded.pop("c", None)
    fresh_registry.setenv(registry.ENV_VAR, "c")
    with pytest.raises(BackendUnavailableError):
        registry.active_backend()
    fresh_registry.setenv(registry.ENV_VAR, "fortran")
    with pytest.raises(BackendUnavailableError):
        registry.active_backend()


def test_auto_fallback_is_reported(fresh_registry):
    fresh_registry.setitem(registry._MODULES, "c", "engramdb.kernels._not_built")
    registry._loaded.pop("c", None)
    fresh_registry.delenv(registry.ENV_VAR, raising=False)
    with pytest.warns(registry.KernelFallbackWarning, match="numba"):
        assert registry.active_backend() == "numba"
    with pytest.raises(KeyError):
        registry.get("no_such_kernel")


def test_import_is_light():
    code = (
        "import sys, engramdb.kernels as k; "
        "assert 'numba' not in sys.modules, 'numba imported'; "
        "assert 'engramdb.kernels._ckernels' not in sys.modules"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
