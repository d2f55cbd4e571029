"""Fixtures of the temporal tests: a store with a controllable record-time clock."""
import numpy as np
import pytest

import engramdb
from engramdb.testing import frozen_clock

T0 = 1_700_000_000.0   # 2023-11-14T22:13:20Z


@pytest.fixture
def clock():
    """The engine's clock, frozen at T0 (advance it with ``clock.advance(seconds)``)."""
    with frozen_clock(T0) as c:
        yield c


@pytest.fixture
def mem(tmp_store, clock):
    with engramdb.open(tmp_store, dim=256) as m:
        yield m


def state_of(m, id_, namespace="default"):
    return m.get(id_, namespace=namespace).state.value


def onehot(dim, i):
    v = np.full(dim, 0.01, np.float32)
    v[i % dim] = 1.0
    return v
