"""spread_activation's visited-set rule, pinned by hand-computed values for every backend.

A node is scored at the level where it is first reached: a later, stronger path to it (or
back to a seed) changes neither its activation, its parent nor its depth, and it expands
with the activation it got first. Paths of the same level combine by MAX or SUM. The
agreement tests compare the backends with each other; this one holds all three to numbers
worked out by hand, so a bug shared by every backend fails too.

Graph (rows listed in CSR order; all multipliers 1, decay 0.5, no fan effect):

    s (seed, 1.0):  -> a (w 1),  -> b (w 0.125),  -> c (w 0.375)
    t (seed, 0.5):  -> c (w 1)
    a:              -> b (w 1),  -> s (w 1),  -> c (w 1)
    b:              -> e (w 1)

Level 1: a = 0.5 (from s); b = 0.0625 (from s); c gets 0.1875 from s and 0.25 from t.
Level 2: a passes 0.25 to b, s and c, all reached earlier: ignored. b passes 0.03125 to e.
"""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from engramdb import BackendUnavailableError, kernels

S, T, A, B, C, E = range(6)
N_NODES = 6
ROWS = {
    S: [(A, 1.0), (B, 0.125), (C, 0.375)],
    T: [(C, 1.0)],
    A: [(B, 1.0), (S, 1.0), (C, 1.0)],
    B: [(E, 1.0)],
}


def _csr():
    indptr = [0]
    indices, weight = [], []
    for u in range(N_NODES):
        for v, w in ROWS.get(u, []):
            indices.append(v)
            weight.append(w)
        indptr.append(len(indices))
    nnz = len(indices)
    return (np.array(indptr, np.int64), np.array(indices, np.int32), np.array(weight, np.float32),
            np.zeros(nnz, np.uint8))   # relation 0 (related_to) everywhere


def _spread(backend, combine, sum_cap=10.0):
    indptr, indices, weight, relation = _csr()
    rel_mult = np.ones(kernels.N_RELATIONS, np.float32)
    seeds = np.array([S, T], np.int32)
    seed_act = np.array([1.0, 0.5], np.float32)
    return kernels.backend(backend).spread_activation(
        indptr, indices, weight, relation, seeds, seed_act, rel_mult,
        2, 0.5, 0.0, 256, combine, sum_cap)


BACKENDS = ["reference", "numba", "c"]


def _backend_or_skip(name):
    """``name``, after checking it loads; only the C backend may be missing (ENGRAMDB_NO_C=1)."""
    try:
        kernels.backend(name)
    except BackendUnavailableError as exc:
        if name != "c":
            raise
        pytest.skip(f"C kernels not built: {exc}")
    return name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("combine,c_act", [(kernels.COMBINE_MAX, 0.25), (kernels.COMBINE_SUM, 0.4375)])
def test_first_level_reached_fixes_the_score(backend, combine, c_act):
    nodes, act, parent, depth = _spread(_backend_or_skip(backend), combine)
    got = {int(v): (float(x), int(p), int(d)) for v, x, p, d in zip(nodes, act, parent, depth)}
    assert_array_equal(nodes, [S, T, A, B, C, E])          # seeds first, then first-visit order
    assert got[S] == (1.0, -1, 0)          # a is one level below s: its pass back changes nothing
    assert got[T] == (0.5, -1, 0)
    assert got[A] == (0.5, S, 1)
    assert got[B] == (0.0625, S, 1)        # not a's stronger 0.25 at level 2
    assert got[C] == (c_act, T, 1)         # same level combines (MAX / SUM; parent = larger pass)
    assert got[E] == (0.03125, B, 2)       # b expands with its first-level activation


@pytest.mark.parametrize("backend", BACKENDS)
def test_sum_cap_bounds_a_same_level_combination(backend):
    nodes, act, _parent, _depth = _spread(_backend_or_skip(backend), kernels.COMBINE_SUM, sum_cap=0.375)
    got = dict(zip(nodes.tolist(), act.tolist()))
    assert got[C] == 0.375                 # 0.1875 + 0.25 capped
    assert got[A] == 0.375 and got[S] == 1.0   # a single pass is capped too; seeds keep theirs


@pytest.mark.parametrize("backend", BACKENDS)
def test_depth_limit_stops_before_the_third_level(backend):
    indptr, indices, weight, relation = _csr()
    nodes, _act, _parent, depth = kernels.backend(_backend_or_skip(backend)).spread_activation(
        indptr, indices, weight, relation, np.array([S], np.int32), np.array([1.0], np.float32),
        np.ones(kernels.N_RELATIONS, np.float32), 1, 0.5, 0.0, 256, kernels.COMBINE_MAX, 1.0)
    assert_array_equal(nodes, [S, A, B, C]) and depth.max() == 1
