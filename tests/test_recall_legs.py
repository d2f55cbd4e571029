"""The keyword leg on a worker thread beside hnswlib (engramdb.recall.legs): same answers, errors
raised on the caller's thread, one leg in flight at a time, and a recall never waits for a worker
that has not started its leg."""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

import engramdb
from engramdb.recall import legs

_SPARE_CORE = legs.spare_core   # the real policy, before the fixture below replaces it


@pytest.fixture(autouse=True)
def _spare_core(monkeypatch):
    """Every leg may go to the worker, whatever the machine's load (these tests are about the
    hand-off, not the policy that decides it)."""
    monkeypatch.setattr(legs, "spare_core", lambda: True)


WORDS = ("paris violin harbour ledger orchard comet lantern meadow quarry saddle thistle walnut "
         "falcon glacier hammock juniper kettle mosaic nectar oyster pepper quill").split()


def test_recall_answers_the_same_with_the_legs_side_by_side_or_one_after_the_other(tmp_store):
    rng = np.random.default_rng(3)
    with engramdb.open(tmp_store, embedder="hashing") as db:
        db.add_batch([{"id": f"m{i}", "text": " ".join(rng.choice(WORDS, int(rng.integers(4, 12))))}
                      for i in range(400)])
        on = db.config.recall
        assert on.parallel_legs is True
        off = replace(on, parallel_legs=False)
        for q in range(40):
            query = " ".join(rng.choice(WORDS, int(rng.integers(1, 6))))
            a = db.recall(query, k=15, config=on)
            b = db.recall(query, k=15, config=off)
            assert [(h.id, h.score, h.relevance) for h in a.hits] == [(h.id, h.score, h.relevance) for h in b.hits]
            assert [g.reason for g in a.gaps] == [g.reason for g in b.gaps]


def test_threads_recalling_at_once_get_their_own_answers(tmp_store):
    rng = np.random.default_rng(4)
    with engramdb.open(tmp_store, embedder="hashing") as db:
        db.add_batch([{"id": f"m{i}", "text": " ".join(rng.choice(WORDS, 6))} for i in range(300)])
        queries = [" ".join(rng.choice(WORDS, 3)) for _ in range(30)]
        want = {q: [h.id for h in db.recall(q, k=10).hits] for q in queries}

        def work(seed: int) -> int:
            order = np.random.default_rng(seed).permutation(len(queries))
            for _ in range(5):
                for i in order:
                    assert [h.id for h in db.recall(queries[i], k=10).hits] == want[queries[i]]
            return seed

        with ThreadPoolExecutor(3) as pool:   # result() raises what a thread raised
            assert sorted(f.result() for f in [pool.submit(work, s) for s in range(3)]) == [0, 1, 2]


@pytest.mark.skipif(not legs.available(), reason="one core: legs always run inline")
def test_an_error_of_the_leg_is_raised_on_the_callers_thread_and_frees_the_worker():
    def boom(x):
        raise ValueError(f"bad {x}")

    job = legs.start(boom, 7)
    assert job is not None   # no leg in flight: every earlier one was collected
    with pytest.raises(ValueError, match="bad 7"):
        job.result()
    again = legs.start(lambda a, b: a + b, 2, 3)
    assert again is not None and again.result() == 5


@pytest.mark.skipif(not legs.available(), reason="one core: legs always run inline")
def test_one_leg_at_a_time_and_a_discarded_leg_frees_the_worker():
    gate = threading.Event()
    ran: list[int] = []

    def slow(i):
        gate.wait(5)
        ran.append(i)
        return i

    first = legs.start(slow, 1)
    assert first is not None
    assert legs.start(slow, 2) is None   # busy: the caller runs its leg inline
    gate.set()
    assert first.result() == 1
    second = legs.start(slow, 3)
    assert second is not None
    second.discard()
    assert ran[0] == 1 and set(ran) <= {1, 3}
    third = legs.start(lambda: 4)   # free again
    assert third is not None and third.result() == 4


def test_a_leg_the_worker_has_not_started_runs_on_the_callers_thread():
    busy = threading.Lock()
    busy.acquire()   # as start() holds it for a queued leg
    job = legs.Pending(threading.get_ident, (), busy)   # queued, never reached by the worker
    assert job.result() == threading.get_ident()   # ran here, on the caller's thread
    assert busy.acquire(blocking=False)   # and the worker is free for the next leg
    skipped = legs.Pending(lambda: pytest.fail("a discarded leg ran"), (), busy)
    skipped.discard()
    assert busy.acquire(blocking=False)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_recalls_with_a_worker_of_its_own(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as db:
        db.add_batch([{"id": f"m{i}", "text": f"{WORDS[i % len(WORDS)]} {WORDS[(3 * i) % len(WORDS)]}"}
                      for i in range(50)])
        want = [h.id for h in db.recall("paris violin", k=5).hits]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:   # child
            try:
                got = [h.id for h in db.recall("paris violin", k=5).hits]
                os.write(w, b"ok" if got == want else b"differ")
            except BaseException as exc:   # pragma: no cover - reported to the parent
                os.write(w, repr(exc).encode()[:200])
            finally:
                os._exit(0)
        os.close(w)
        out = os.read(r, 300)
        os.waitpid(pid, 0)
        assert out == b"ok"


def test_no_spare_core_runs_the_leg_inline(monkeypatch):
    monkeypatch.setattr(legs, "spare_core", lambda: False)
    assert legs.start(lambda: 1) is None


def test_spare_core_compares_the_load_average_with_the_cores(monkeypatch):
    monkeypatch.setattr(legs, "LOAD_TTL_S", -1.0)   # read the load on every call
    monkeypatch.setattr(os, "getloadavg", lambda: (1000.0, 0.0, 0.0))
    assert _SPARE_CORE() is False   # every core busy: no hand-off
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert _SPARE_CORE() is True


@pytest.mark.skipif(not legs.available(), reason="one core: legs always run inline")
def test_no_hand_off_while_another_recall_of_the_process_is_in_flight():
    with legs.recalling():
        with legs.recalling():   # a second thread's recall: the cores are busy already
            assert legs.start(lambda: 1) is None
        job = legs.start(lambda: 2)   # alone again
        assert job is not None and job.result() == 2
