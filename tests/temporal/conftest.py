"""Fixtures of the temporal tests: a store with a controllable record-time clock."""
import time as _time

import numpy as np
import pytest

import engramdb
from engramdb import engine as engine_mod

T0 = 1_700_000_000.0   # 2023-11-14T22:13:20Z


class FakeClock:
    """Stands in for the ``time`` module inside engramdb.engine: ``time()`` is record time."""

    def __init__(self, t: float = T0):
        self.t = float(t)

    def time(self) -> float:
        return self.t

    def advance(self, dt: float) -> float:
        self.t += dt
        return self.t

    perf_counter = staticmethod(_time.perf_counter)


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(engine_mod, "time", c)
    return c


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
