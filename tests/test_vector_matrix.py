"""The namespace's vector matrix and the background load of a large saved index.

Recall reads vectors from the contiguous matrix kept beside hnswlib; a saved index above
``IndexConfig.background_load_bytes`` opens with the matrix alone and loads hnswlib in a
background thread, answering exactly meanwhile. Every answer must equal the answer of an index
loaded the old way, and a damaged matrix file must be rebuilt from LMDB either way.
"""
import os
import threading

import numpy as np
import pytest

import engramdb
from engramdb.testing import vector_index

from .conftest import unit_vectors

DIM, N = 24, 400


def config(background: bool) -> engramdb.EngramConfig:
    return engramdb.EngramConfig(
        link=engramdb.LinkConfig(auto_link=False), store=engramdb.StoreConfig(sync=False),
        index=engramdb.IndexConfig(background_load_bytes=0 if background else 1 << 40))


@pytest.fixture
def saved(tmp_path, rng):
    path = str(tmp_path / "store")
    vecs = unit_vectors(rng, N, DIM)
    with engramdb.open(path, dim=DIM, config=config(False)) as db:
        db.add_batch([{"id": f"m{i}", "text": f"memory number {i}", "embedding": vecs[i]} for i in range(N)])
        db.forget("m7", hard=True)   # an erased row: not in the matrix after the save
    queries = unit_vectors(rng, 30, DIM)
    return path, vecs, queries


def answers(db, queries, k=5):
    return [[h.id for h in db.recall(vector=q, k=k, gate="off").hits] for q in queries]


def exact_answers(vecs, queries, k=5):
    ids = np.array([i for i in range(N) if i != 7])
    out = []
    for q in queries:
        sims = vecs[ids] @ q
        order = np.lexsort((ids, -sims))[:k]
        out.append([f"m{i}" for i in ids[order]])
    return out


def matrix_file(path):
    index_dir = os.path.join(path, "index")
    return [os.path.join(index_dir, f) for f in os.listdir(index_dir) if f.endswith(".vectors.f32")][0]


def test_the_matrix_holds_each_live_vector(saved):
    path, vecs, _ = saved
    with engramdb.open(path, config=config(False)) as db:
        index = vector_index(db, "default")
        assert len(index) == N - 1
        got = index.vectors(np.arange(N, dtype=np.int64)[np.arange(N) != 7])
        np.testing.assert_allclose(got, vecs[np.arange(N) != 7], atol=1e-6)
        with pytest.raises(KeyError):
            index.vectors(np.array([7]))   # erased


@pytest.mark.parametrize("size", [0, 1, 7, 32, 33])
def test_a_few_vectors_are_read_like_many(saved, rng, size):
    """Up to 32 labels are checked one by one (a recall's hits), more at once: the same rows,
    and the same KeyError for a label with no live row (erased before the save, erased in this
    session, or past the largest)."""
    path, vecs, _ = saved
    with engramdb.open(path, config=config(False)) as db:
        db.forget("m9", hard=True)   # its row stays in the matrix, not alive
        index = vector_index(db, "default")
        live = np.array([i for i in range(N) if i not in (7, 9)], np.int64)
        at = rng.choice(len(live), size, replace=False)
        labels = live[at]
        every = index.vectors(live)   # all at once
        np.testing.assert_allclose(every, vecs[live], atol=1e-6)
        np.testing.assert_array_equal(index.vectors(labels), every[at])
        for bad in (7, 9, N + 5):
            with pytest.raises(KeyError) as err:
                index.vectors(np.concatenate([labels, [bad]]).astype(np.int64))
            assert err.value.args == (bad,)


def test_background_load_answers_like_a_loaded_index(saved):
    path, vecs, queries = saved
    with engramdb.open(path, config=config(False)) as db:
        before = answers(db, queries)
    with engramdb.open(path, config=config(True)) as db:
        during = answers(db, queries)           # exact scans while hnswlib may still load
        vector_index(db, "default").wait_loaded()
        assert not vector_index(db, "default").loading
        after = answers(db, queries)
    assert during == before == after == exact_answers(vecs, queries)


def test_a_write_during_the_background_load_waits_and_lands(saved, rng):
    path, _vecs, _ = saved
    v = unit_vectors(rng, 1, DIM)[0]
    with engramdb.open(path, config=config(True)) as db:
        db.add("a new one", id="new", embedding=v)
        assert db.recall(vector=v, k=1, gate="off").hits[0].id == "new"
    with engramdb.open(path, config=config(True)) as db:
        assert db.recall(vector=v, k=1, gate="off").hits[0].id == "new"
        assert len(vector_index(db, "default")) == N


@pytest.mark.parametrize("background", [False, True])
@pytest.mark.parametrize("how", ["flip", "truncate", "missing"])
def test_a_damaged_matrix_file_is_rebuilt(saved, background, how):
    path, vecs, queries = saved
    f = matrix_file(path)
    data = bytearray(open(f, "rb").read())
    if how == "flip":
        for pos in range(0, len(data), 97):
            data[pos] ^= 0x5A
        open(f, "wb").write(bytes(data))
    elif how == "truncate":
        open(f, "wb").write(bytes(data[: len(data) // 2]))
    else:
        os.remove(f)
    with pytest.warns(RuntimeWarning) if (background and how == "flip") else _nothing():
        with engramdb.open(path, config=config(background)) as db:
            vector_index(db, "default").wait_loaded()
            assert answers(db, queries) == exact_answers(vecs, queries)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_the_background_load_starts_after_the_first_search(saved):
    """hnswlib's load_index holds the GIL: it must not run during the open and the first recall.
    It is pending until a search has been answered; an index closed before any search never
    loads hnswlib (and close does not wait for it)."""
    path, vecs, queries = saved
    with engramdb.open(path, config=config(True)) as db:
        index = vector_index(db, "default")
        assert index.loading
        threads = {t.name for t in threading.enumerate()}
        assert "engramdb-index-load" not in threads           # pending, not running
        first = answers(db, queries[:1])                        # exact scan, then the load starts
        index.wait_loaded()
        assert not index.loading
        assert first == exact_answers(vecs, queries[:1])
    with engramdb.open(path, config=config(True)) as db:       # closed before any search
        assert vector_index(db, "default").loading
    assert "engramdb-index-load" not in {t.name for t in threading.enumerate()}
