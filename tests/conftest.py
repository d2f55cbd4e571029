"""Shared fixtures: a temporary store path and a seeded random generator.

New stores in the tests get the hashing embedder (fast, no model load) unless a test names
another: ``ENGRAMDB_EMBEDDER`` is set here, before any test runs, so the CLI and any
subprocess a test starts inherit it. The model's own tests (tests/test_embed.py) pass
``embedder=`` or change the variable with monkeypatch.
"""
import os

import numpy as np
import pytest

os.environ["ENGRAMDB_EMBEDDER"] = "hashing"


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


@pytest.fixture
def tmp_store(tmp_path):
    return tmp_path / "store"


def basis(i, dim=16):
    """The i-th standard basis vector (float32, shape (dim,)): a unit vector orthogonal to the others."""
    v = np.zeros(dim, np.float32)
    v[i] = 1.0
    return v


def unit_vectors(rng, n, dim):
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)
