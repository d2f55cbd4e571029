"""A random sequence of add / delete / re-add / update / link operations checked against a
brute-force oracle (exact cosine over the live vectors), also across save and reload."""
import numpy as np
import pytest

import engramdb
from engramdb import errors
from engramdb.index.hnsw import ExactIndex
from engramdb.testing import indexed_counts

from .conftest import DIM, quiet_config

PURE = engramdb.RecallConfig(cosine_floor=-1.0, w_salience=0.0, w_confidence=0.0)


def _unit(rng):
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _check(eng, oracle, rng, n_queries=5):
    live = set(oracle)
    assert eng.stats()["memories"] == len(oracle)
    assert indexed_counts(eng).get("default", 0) == len(oracle)
    if not oracle:
        assert eng.recall(vector=_unit(rng), k=5, config=PURE).hits == []
        return
    exact = ExactIndex(DIM)
    ids = sorted(oracle)
    exact.add(np.stack([oracle[i] for i in ids]), np.arange(len(ids)))
    for _ in range(n_queries):
        q = oracle[ids[int(rng.integers(len(ids)))]] if rng.random() < 0.7 else _unit(rng)
        k = int(rng.integers(1, 30))
        got = [h.id for h in eng.recall(vector=q, k=k, config=PURE, gate="off").hits]
        assert len(got) == len(set(got)), got                  # no duplicated id
        assert set(got) <= live, set(got) - live               # no deleted id
        assert len(got) == min(k, len(oracle))
        labels, cos = exact.knn(q, 1)
        assert got[0] == ids[int(labels[0])] or cos[0] < 0.999  # its own vector comes first


@pytest.mark.parametrize("seed,n_ops", [(1, 2000), pytest.param(2, 6000, marks=pytest.mark.slow),
                                        pytest.param(3, 6000, marks=pytest.mark.slow)])
def test_random_operations_against_a_brute_force_oracle(store_path, seed, n_ops):
    rng = np.random.default_rng(seed)
    cfg = quiet_config()
    eng = engramdb.open(store_path, dim=DIM, config=cfg)
    oracle: dict[str, np.ndarray] = {}
    deleted: set[str] = set()
    fresh = 0
    counts = dict.fromkeys(["add", "delete", "readd", "update", "link", "reload"], 0)
    try:
        for step in range(n_ops):
            r = rng.random()
            if r < 0.35 or len(oracle) < 5:
                mid, fresh = f"m{fresh}", fresh + 1
                v = _unit(rng)
                assert eng.add(f"text of {mid} at {step}", id=mid, embedding=v) == mid
                oracle[mid] = v
                counts["add"] += 1
            elif r < 0.55:
                mid = sorted(oracle)[int(rng.integers(len(oracle)))]
                eng.forget(mid, hard=True)
                del oracle[mid]
                deleted.add(mid)
                counts["delete"] += 1
                with pytest.raises(errors.MemoryNotFoundError):
                    eng.get(mid)
            elif r < 0.70 and deleted:
                mid = sorted(deleted)[int(rng.integers(len(deleted)))]
                v = _unit(rng)
                assert eng.add(f"text of {mid} again at {step}", id=mid, embedding=v) == mid
                deleted.discard(mid)
                oracle[mid] = v
                counts["readd"] += 1
            elif r < 0.78 and hasattr(engramdb.Engram, "update"):
                mid = sorted(oracle)[int(rng.integers(len(oracle)))]
                eng.update(mid, text=f"updated text of {mid} at {step}")
                oracle[mid] = eng.get(mid, with_embedding=True).embedding
                counts["update"] += 1
            elif r < 0.85:
                a, b = rng.choice(sorted(oracle), 2, replace=False)
                eng.link(str(a), str(b), "related_to", float(rng.uniform(0.1, 1.0)))
                counts["link"] += 1
            elif r < 0.86:
                eng.close()
                eng = engramdb.open(store_path, config=cfg)
                counts["reload"] += 1
            else:
                _check(eng, oracle, rng, n_queries=1)
            if step % 250 == 0:
                _check(eng, oracle, rng)
        _check(eng, oracle, rng, n_queries=50)
        eng.close()
        eng = engramdb.open(store_path, config=cfg)              # after save and reload
        _check(eng, oracle, rng, n_queries=50)
        for mid, v in oracle.items():
            np.testing.assert_allclose(eng.get(mid, with_embedding=True).embedding, v, atol=1e-6)
        for mid in deleted:
            with pytest.raises(errors.MemoryNotFoundError):
                eng.get(mid)
    finally:
        eng.close()
    assert counts["delete"] > 100 and counts["readd"] > 50 and counts["reload"] >= 5
