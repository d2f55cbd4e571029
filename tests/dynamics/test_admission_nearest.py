"""Admission's in-batch novelty: the blocked lower-triangle search equals the dense Gram matrix."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.dynamics.admission import nearest_earlier

from .conftest import T0


def dense_nearest_earlier(vecs):
    """The whole Gram matrix with its upper triangle and diagonal masked (the oracle)."""
    n = len(vecs)
    gram = vecs.astype(np.float64) @ vecs.T.astype(np.float64)
    gram[np.triu_indices(n)] = -np.inf
    j = np.argmax(gram, axis=1) if n > 1 else np.zeros(n, np.int64)
    cos = gram[np.arange(n), j] if n else np.zeros(0)
    return j, np.where(np.isfinite(cos), cos, -1.0)


@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from([0, 1, 2, 7, 33, 130]), block=st.sampled_from([1, 2, 5, 64, 2048]),
       twins=st.integers(0, 4), seed=st.integers(0, 2**31 - 1))
def test_blocked_equals_dense(n, block, twins, seed):
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((n, 12)).astype(np.float32)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    for _ in range(twins if n > 2 else 0):   # exact copies: ties must go to the first one
        a, b = sorted(rng.choice(n, 2, replace=False).tolist())
        vecs[b] = vecs[a]
    j, cos = nearest_earlier(vecs, block)
    _dj, dcos = dense_nearest_earlier(vecs)
    assert j.dtype == np.int64 and cos.dtype == np.float32 and j.shape == cos.shape == (n,)
    np.testing.assert_allclose(cos, dcos, atol=1e-5)
    if n:
        assert cos[0] == -1.0 and j[0] == 0
    # the chosen earlier row reaches the maximum (ties may differ only within rounding)
    for i in range(1, n):
        assert j[i] < i
        assert abs(float(vecs[i] @ vecs[j[i]]) - dcos[i]) <= 1e-5


def test_twin_points_at_the_first_copy():
    v = np.eye(4, dtype=np.float32)
    vecs = np.stack([v[0], v[1], v[0], v[0], v[2]])
    j, cos = nearest_earlier(vecs, block=2)
    assert j.tolist()[2:4] == [0, 0]
    assert cos.tolist() == [-1.0, 0.0, 1.0, 1.0, 0.0]


def test_admit_batch_reinforces_the_first_in_batch_twin(tmp_store):
    """A batch of 3,000 (larger than one tile) with a late exact copy of candidate 5: the copy
    reinforces candidate 5, found across tiles."""
    rng = np.random.default_rng(7)
    vecs = rng.standard_normal((3000, 16)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[2999] = vecs[5]
    cands = [{"text": f"I booked flight number {i} to Lisbon", "embedding": vecs[i], "kind": "semantic",
              "created_at": T0} for i in range(3000)]
    cands[2999]["text"] = cands[5]["text"]
    with engramdb.open(tmp_store, dim=16) as eng:
        decisions = eng.admit_batch(cands, now=T0)
    last = decisions[2999]
    assert last.decision == "reinforce"
    assert last.target == decisions[5].id
    assert last.nearest_cosine == 1.0 or abs(last.nearest_cosine - 1.0) < 1e-6
