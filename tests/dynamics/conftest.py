"""Fixtures of the memory-dynamics tests: small stores with hand-made vectors."""
import numpy as np
import pytest

import engramdb

DIM = 16
T0 = 1_780_000_000.0   # a fixed "now" (2026-05-28), Unix seconds


def unit(v):
    v = np.asarray(v, np.float32)
    return v / np.linalg.norm(v)


def basis(i, dim=DIM):
    v = np.zeros(dim, np.float32)
    v[i] = 1.0
    return v


@pytest.fixture
def eng(tmp_store):
    e = engramdb.open(tmp_store, dim=DIM)
    yield e
    e.close()
