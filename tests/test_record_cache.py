"""The record cache of recall's hits (engramdb.state.record_cache): valid for one record
generation, bounded (oldest out first), and safe for readers that share it."""
import threading

import engramdb
from engramdb.state.record_cache import RecordCache
from engramdb.testing import nid_of


class _Counting:
    """A store stand-in that counts reads: the records are {"nid": n}; nid 99 is erased."""

    def __init__(self):
        self.reads = 0

    def get_record(self, txn, nid):
        self.reads += 1
        return None if nid == 99 else {"nid": nid}


def test_one_read_per_record_and_generation():
    store, cache = _Counting(), RecordCache(capacity=8)
    assert cache.get(store, None, 3, 0) == {"nid": 3}
    assert cache.get(store, None, 3, 0) == {"nid": 3} and store.reads == 1
    assert cache.get(store, None, 99, 0) is None and cache.get(store, None, 99, 0) is None and store.reads == 2
    assert cache.get(store, None, 3, 1) == {"nid": 3} and store.reads == 3   # a commit: read again
    assert len(cache) == 1
    # a reader that captured the older generation neither sees nor leaves anything
    assert cache.get(store, None, 5, 0) == {"nid": 5} and store.reads == 4
    assert len(cache) == 1 and cache.valid_for(0) == {}
    assert cache.get(store, None, 3, 1, derive=lambda r: ("row", r["nid"])) == {"nid": 3}   # cached as read
    assert cache.get(store, None, 4, 1, derive=lambda r: ("row", r["nid"])) == ("row", 4)


def test_the_oldest_record_goes_first():
    store, cache = _Counting(), RecordCache(capacity=3)
    for nid in (1, 2, 3, 4):
        cache.get(store, None, nid, 0)
    assert sorted(cache.valid_for(0)) == [2, 3, 4]
    assert store.reads == 4
    cache.get(store, None, 1, 0)
    assert sorted(cache.valid_for(0)) == [1, 3, 4] and store.reads == 5


def test_readers_sharing_a_small_cache():
    store, cache = _Counting(), RecordCache(capacity=4)
    errors = []

    def reader(seed):
        try:
            for i in range(20_000):
                nid = (seed * 7 + i * 13) % 50
                assert cache.get(store, None, nid, 0) == (None if nid == 99 else {"nid": nid})
        except Exception as exc:   # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) <= 4 + len(threads)   # readers adding at once may each leave one more


def test_recall_sees_an_update_made_after_it_cached_the_record(tmp_store, rng):
    vecs = rng.standard_normal((3, 8)).astype("float32")
    with engramdb.open(tmp_store, dim=8) as db:
        db.add_batch([{"id": f"m{i}", "text": f"note {i}", "embedding": vecs[i], "tags": ["old"]} for i in range(3)])
        assert nid_of(db, "m0") is not None
        assert [h.tags for h in db.recall(vector=vecs[0], k=1).hits] == [("old",)]
        db.update("m0", tags=["new"], text="note zero")
        hit = db.recall(vector=vecs[0], k=1).hits[0]
        assert (hit.id, hit.tags, hit.text) == ("m0", ("new",), "note zero")


def test_threads_recalling_at_once_answer_as_one_alone(tmp_store, rng):
    """Two threads share the engine's record cache (and each has its own path-step table): every
    answer equals the single-threaded one."""
    n, dim = 80, 12
    vecs = rng.standard_normal((n, dim)).astype("float32")
    items = [{"id": f"m{i}", "text": f"note {i} about topic {i % 5}", "embedding": vecs[i],
              **({"links": [{"to": f"m{i - 1}", "relation": "related_to"}]} if i else {})} for i in range(n)]
    queries = rng.standard_normal((30, dim)).astype("float32")

    def answer(db, q):
        res = db.recall("topic note", vector=q, k=6, gate="on", now=1.8e9)
        return [(h.id, h.score, tuple(h.path), h.relevance) for h in res.hits]

    with engramdb.open(tmp_store, dim=dim) as db:
        db.add_batch(items)
        want = [answer(db, q) for q in queries]
        got: dict[int, list] = {}

        def reader(t):
            got[t] = [answer(db, q) for _ in range(5) for q in queries]

        threads = [threading.Thread(target=reader, args=(t,)) for t in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got[0] == want * 5 and got[1] == want * 5
