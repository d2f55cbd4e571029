"""One writer thread and many reader threads on one engine; concurrent use of one HnswIndex."""
import threading

import numpy as np
import pytest

import engramdb
from engramdb.index.hnsw import HnswIndex
from engramdb.testing import indexed_counts

from .conftest import DIM, quiet_config, vec


def _run(threads):
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
        assert not t.is_alive()


@pytest.mark.parametrize("n_mem,n_readers", [(400, 3), pytest.param(4000, 6, marks=pytest.mark.slow)])
def test_one_writer_many_readers(store_path, n_mem, n_readers):
    eng = engramdb.open(store_path, dim=DIM, config=quiet_config(snapshot_every=50))
    failures, stop = [], threading.Event()
    recalls = [0] * n_readers

    def writer():
        try:
            for lo in range(0, n_mem, 20):
                eng.add_batch([{"id": f"m{i}", "text": f"memory {i}", "embedding": vec(i)} for i in range(lo, lo + 20)])
                eng.link_batch([(f"m{i}", f"m{i - 1}", "next") for i in range(max(lo, 1), lo + 20)])
                if lo % 100 == 0:
                    eng.flush()                         # index save + CSR snapshot while readers search
                if lo % 140 == 0 and lo:
                    eng.forget(f"m{lo - 3}")            # archive: hidden unless include_archived
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            failures.append(exc)
        finally:
            stop.set()

    def reader(k):
        rng = np.random.default_rng(k)
        try:
            while not stop.is_set() or recalls[k] < 5:
                n = eng.stats()["memories"]
                q = vec(int(rng.integers(0, max(n, 1))))
                res = eng.recall(vector=q, k=10, gate=("on", "off", "auto")[recalls[k] % 3])
                ids = [h.id for h in res.hits]
                assert len(ids) == len(set(ids)), ids
                assert all(np.isfinite(h.score) for h in res.hits)
                if ids:
                    assert eng.get(ids[0]).id == ids[0]
                recalls[k] += 1
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    _run([threading.Thread(target=writer)] + [threading.Thread(target=reader, args=(k,)) for k in range(n_readers)])
    assert not failures, failures[0]
    assert min(recalls) >= 5
    assert eng.stats()["memories"] == n_mem and indexed_counts(eng)["default"] == n_mem
    for i in range(n_mem):   # every memory findable by its own vector
        hit = eng.recall(vector=vec(i), k=1, gate="off", include_archived=True).hits[0]
        assert hit.id == f"m{i}"
    eng.close()
    with engramdb.open(store_path) as again:
        assert again.stats()["memories"] == n_mem and again.n_edges == n_mem - 1


def test_hnsw_index_guards_concurrent_add_and_search():
    """Inserts (with resizes) in one thread, searches in three: the index lock keeps hnswlib
    from searching a graph while it is being resized or linked."""
    n, dim = 3000, 32
    rng = np.random.default_rng(7)
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index = HnswIndex(dim, capacity=16)
    failures, done = [], threading.Event()

    def add():
        try:
            for lo in range(0, n, 50):
                index.add(vecs[lo:lo + 50], np.arange(lo, lo + 50))
                if lo % 500 == 0 and lo:
                    index.remove(lo - 1)
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)
        finally:
            done.set()

    def search(seed):
        r = np.random.default_rng(seed)
        try:
            while not done.is_set():
                labels, cos = index.knn(vecs[int(r.integers(0, n))], 10)
                assert len(set(labels.tolist())) == len(labels) and np.all(np.isfinite(cos))
                index.knn_batch(vecs[:8], 5)
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    _run([threading.Thread(target=add)] + [threading.Thread(target=search, args=(s,)) for s in range(3)])
    assert not failures, failures[0]
    removed = {lo - 1 for lo in range(500, n, 500)}
    assert len(index) == n - len(removed)
    for i in range(0, n, 37):
        labels, _ = index.knn(vecs[i], 1)
        assert (labels[0] == i) != (i in removed)
