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


def test_an_updater_shares_with_readers_and_upgrades_when_they_leave():
    lock = RWLock()
    lock.acquire_update()
    assert in_thread(lambda: (lock.acquire_read(), lock.release_read(), True)[-1])   # readers go on
    other_updater = threading.Event()
    t = threading.Thread(target=lambda: (lock.acquire_update(), other_updater.set(), lock.release_update()))
    t.start()
    assert not other_updater.wait(0.2)   # one updater at a time
    reader_in, reader_go, late_reader_in = threading.Event(), threading.Event(), threading.Event()

    def reader():   # a reader in flight when the updater upgrades
        lock.acquire_read()
        reader_in.set()
        reader_go.wait(5)
        lock.release_read()

    def late_reader():   # comes while the upgrade waits: queued behind it
        lock.acquire_read()
        late_reader_in.set()
        lock.release_read()
    r = threading.Thread(target=reader)
    r.start()
    assert reader_in.wait(5)
    threading.Timer(0.1, late_reader).start()
    threading.Timer(0.4, reader_go.set).start()
    lock.acquire_write()                       # the upgrade: waits for the reader in flight
    assert reader_go.is_set() and not late_reader_in.is_set()
    lock.release_write()                       # back to update mode: readers go on
    assert late_reader_in.wait(5)
    assert not other_updater.is_set()
    lock.release_update()
    assert other_updater.wait(5)
    t.join(5)
    r.join(5)
    assert not lock.held()


def test_update_mode_is_reentrant_and_readers_cannot_update():
    lock = RWLock()
    with lock.update():
        with lock.read():
            with lock.update():
                with lock.write():
                    with lock.update():
                        assert lock.held()
                with lock.read():
                    pass
        assert lock.held()
    assert not lock.held()
    with lock.read():
        with pytest.raises(RuntimeError, match="reader cannot take the lock for updating"):
            lock.acquire_update()
    with lock.write():
        with lock.update():
            pass
    in_thread(lambda: (lock.acquire_write(), lock.release_write()))   # all released


def test_a_plain_writer_waits_for_the_updater():
    lock = RWLock()
    lock.acquire_update()
    entered = threading.Event()
    t = threading.Thread(target=lambda: (lock.acquire_write(), entered.set(), lock.release_write()))
    t.start()
    assert not entered.wait(0.2)
    lock.release_update()
    assert entered.wait(5)
    t.join(5)


class _GatedEmbedder:
    """Hashing embeddings; embedding a text that contains "SLOW" waits until ``go`` is set."""

    def __init__(self, dim):
        from engramdb.embed import HashingEmbedder

        self.inner = HashingEmbedder(dim=dim)
        self.dim = dim
        self.name = self.inner.name
        self.started, self.go = threading.Event(), threading.Event()

    def embed(self, texts):
        if any("SLOW" in t for t in texts):
            self.started.set()
            assert self.go.wait(10)
        return self.inner.embed(texts)


def test_a_writer_embedding_does_not_block_readers(tmp_path):
    """A write verb holds the lock beside readers while it embeds; only its commit excludes them.
    A recall runs to the end while an add_batch is stuck in its embedder, and the batch then
    commits whole."""
    emb = _GatedEmbedder(64)
    with engramdb.open(tmp_path / "s", dim=64, embedder=emb) as db:
        db.add("Ana lives in Faro by the sea.", id="faro")
        writer = threading.Thread(target=lambda: db.add_batch(
            [{"id": "slow", "text": "SLOW batch about Lisbon trams"}, {"id": "b", "text": "Porto bridges"}]))
        writer.start()
        assert emb.started.wait(10)
        hits = in_thread(lambda: [h.id for h in db.recall("Where does Ana live?", k=3).hits])
        assert hits and hits[0] == "faro"                      # answered while the writer embeds
        assert in_thread(lambda: db.get("faro").text) == "Ana lives in Faro by the sea."
        assert writer.is_alive()                                # the writer is still in its embedder
        emb.go.set()
        writer.join(10)
        assert not writer.is_alive()
        assert {h.id for h in db.recall("Lisbon trams", k=5).hits} >= {"slow"}
        assert db.get("b").text == "Porto bridges"


@pytest.mark.parametrize("mode", ["read", "update", "write"])
def test_abandon_drops_a_hold_no_release_will_come_for(mode):
    """A hold left by a call an asynchronous exception cut short (between an acquire and its
    try): abandon() drops it at any depth, and other threads get the lock again."""
    lock = RWLock()
    for _ in range(3):
        getattr(lock, f"acquire_{mode}")()
    assert lock.held()
    lock.abandon()
    assert not lock.held()
    assert in_thread(lambda: (lock.acquire_write(), lock.release_write(), True)[-1])
    lock.abandon()   # holding nothing: nothing to drop
    assert not lock.held()
