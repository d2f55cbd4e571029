"""Shared fixtures: a temporary store path and a seeded random generator."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


@pytest.fixture
def tmp_store(tmp_path):
    return tmp_path / "store"


def unit_vectors(rng, n, dim):
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)
