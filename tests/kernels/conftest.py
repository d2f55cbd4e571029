"""Fixtures of the kernel agreement tests: each compiled backend, and every backend."""
import pytest

from tests.strategies import load_backend


@pytest.fixture(params=["numba", "c"])
def kernels(request):
    """A compiled backend (Numba, C), checked against the NumPy reference."""
    return load_backend(request.param)


@pytest.fixture(params=["reference", "numba", "c"])
def any_kernels(request):
    """Every backend, the reference included."""
    return load_backend(request.param)
