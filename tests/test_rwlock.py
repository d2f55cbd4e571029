"""The readers-writer lock around the engine's verbs: readers share, a writer is alone."""
import threading

import numpy as np
import pytest

import engramdb
from engramdb.rwlock import RWLock

from .conftest import unit_vectors


def in_thread(fn):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("v", fn()))
    t.start()
    t.join(5)
    assert not t.is_alive()
    return out.get("v")


def test_readers_share_and_a_writer_waits_for_them():
    lock = RWLock()
    lock.acquire_read()
    got_read = in_thread(lambda: (lock.acquire_read(), lock.release_read(), True)[-1])
    assert got_read   # a second reader did not wait for the first
    entered = threading.Event()
    writer = threading.Thread(target=lambda: (lock.acquire_write(), entered.set(), lock.release_write()))
    writer.start()
    assert not entered.wait(0.2)   # the writer waits while a reader holds the lock
    lock.release_read()
    assert entered.wait(5)
    writer.join()


def test_a_waiting_writer_holds_back_new_readers():
    lock = RWLock()
    lock.acquire_read()
    writer_in, reader_in = threading.Event(), threading.Event()
    threading.Thread(target=lambda: (lock.acquire_write(), writer_in.set(), lock.release_write())).start()
    assert not writer_in.wait(0.2)   # the writer is queued behind the reader
    threading.Thread(target=lambda: (lock.acquire_read(), reader_in.set(), lock.release_read())).start()
    assert not reader_in.wait(0.2)
    lock.release_read()
    assert writer_in.wait(5) and reader_in.wait(5)


def test_reentrant_and_no_upgrade():
    lock = RWLock()
    with lock.write():
        with lock.write():
            with lock.read():
                assert lock.held()
    assert not lock.held()
    with lock.read():
        with lock.read():
            with pytest.raises(RuntimeError, match="reader cannot"):
                lock.acquire_write()
    in_thread(lambda: (lock.acquire_write(), lock.release_write()))   # released: a writer gets in


def test_threads_recall_while_another_writes(tmp_path, rng):
    """Readers in parallel with a writer: every recall answers from a consistent store (each
    hit is a stored memory; the first hit of its own vector is itself once written)."""
    dim = 16
    vecs = unit_vectors(rng, 400, dim)
    errors = []
    with engramdb.open(tmp_path / "s", dim=dim) as db:
        db.add_batch([{"id": f"m{i}", "text": f"memory {i}", "embedding": vecs[i]} for i in range(200)])

        def reader(seed):
            r = np.random.default_rng(seed)
            try:
                for _ in range(150):
                    i = int(r.integers(0, 200))
                    hits = db.recall(vector=vecs[i], k=3, gate="off").hits
                    if hits[0].id != f"m{i}":
                        errors.append((i, hits[0].id))
            except Exception as exc:   # noqa: BLE001 - reported below
                errors.append(exc)

        def writer():
            try:
                for i in range(200, 400, 20):
                    db.add_batch([{"id": f"m{j}", "text": f"memory {j}", "embedding": vecs[j]}
                                  for j in range(i, i + 20)])
            except Exception as exc:   # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=reader, args=(s,)) for s in range(3)] + [threading.Thread(target=writer)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert [h.id for h in db.recall(vector=vecs[399], k=1, gate="off").hits] == ["m399"]
