"""Sentence keys: a memory of several sentences is also embedded sentence by sentence, and recall
lifts its cosine toward its best sentence's (``StoreConfig.sentence_keys``,
``RecallConfig.sentence_weight``): a fact said in passing inside a request is found as a
sentence, not only as a message about something else."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import engramdb
from engramdb.embed import get_embedder
from engramdb.sentences import KEY_MIN_WORDS, key_sentences, split_sentences

DIM = 64
FACT = "I finally bought a Fujifilm camera yesterday."
REQUEST = ("What are the best settings for shooting indoor portraits in low light with soft window "
           "shadows and warm lamps around the living room sofa?")
QUESTION = "Which Fujifilm camera did I buy?"


def _open(path, *, keys=16, weight=0.5):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(sentence_keys=keys),
                                recall=engramdb.RecallConfig(sentence_weight=weight),
                                link=engramdb.LinkConfig(auto_link=False))
    return engramdb.open(path, dim=DIM, embedder="hashing", config=cfg)


def _unit(v):
    v = np.asarray(v, np.float64)
    return v / np.linalg.norm(v)


def _expected(whole_text, sentences, question, weight):
    """whole + weight * max(0, best sentence - whole), from the embedder itself."""
    emb = get_embedder("hashing", DIM)
    q = _unit(emb.embed([question])[0])
    whole = float(_unit(emb.embed([whole_text])[0]) @ q)
    best = max(float(_unit(v) @ q) for v in emb.embed(sentences)) if sentences else whole
    return whole + weight * max(0.0, best - whole), whole


def _similarity(m, question, mid):
    hit = {h.id: h for h in m.recall(question, k=5).hits}[mid]
    assert hit.similarity is not None
    return hit.similarity


def test_key_sentences_keeps_sentences_of_three_words_or_more():
    assert key_sentences(f"{FACT} {REQUEST}", 16) == [FACT, REQUEST]
    assert key_sentences("Hey Mel! Good to see you again today.", 16) == []   # one qualifies
    assert key_sentences("Just one sentence here, with no second one", 16) == []
    assert key_sentences(f"{FACT} {REQUEST}", 0) == []
    assert key_sentences("First line of three\nsecond line of three", 16) == ["First line of three",
                                                                              "second line of three"]


def test_key_sentences_past_the_cap_joins_runs_of_sentences():
    sents = [f"Sentence number {i} is here." for i in range(10)]
    keys = key_sentences(" ".join(sents), 4)
    assert len(keys) == 4
    assert keys == [" ".join(sents[0:2]), " ".join(sents[2:5]), " ".join(sents[5:7]), " ".join(sents[7:10])]


_WORD = st.sampled_from("alpha beta gamma delta camera lens river market blue tall".split())
_SENTENCE = st.lists(_WORD, min_size=1, max_size=6).map(lambda ws: " ".join(ws).capitalize() + ".")


@settings(max_examples=60, deadline=None)
@given(st.lists(_SENTENCE, min_size=0, max_size=12), st.integers(0, 6))
def test_key_sentences_hold_every_qualifying_sentence_in_order(sentences, most):
    text = " ".join(sentences)
    keys = key_sentences(text, most)
    qualifying = [s for s in split_sentences(text) if len(s.split()) >= KEY_MIN_WORDS] if text else []
    if most < 2 or len(qualifying) < 2:
        assert keys == []
    else:
        assert len(keys) == min(most, len(qualifying))
        assert " ".join(keys) == " ".join(qualifying)


def test_recall_lifts_a_memory_toward_its_best_sentence(tmp_path):
    text = f"user: {FACT} {REQUEST}"
    want, whole = _expected(text, key_sentences(text, 16), QUESTION, 0.5)
    assert want > whole + 0.05   # the fact's sentence is much nearer than the message
    with _open(tmp_path / "keys") as m, _open(tmp_path / "none", keys=0) as n, \
            _open(tmp_path / "off", weight=0.0) as o:
        for e in (m, n, o):
            e.add_batch([{"id": "camera", "text": text},
                         {"id": "other", "text": "user: The river market sells blue lamps on Sundays."}])
        assert _similarity(m, QUESTION, "camera") == pytest.approx(want, abs=2e-3)   # keys: float16
        assert _similarity(n, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)   # none stored
        assert _similarity(o, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)   # none read
    full, _ = _expected(text, key_sentences(text, 16), QUESTION, 1.0)
    with _open(tmp_path / "keys", weight=1.0) as m:   # scored by the best sentence alone (MaxP)
        assert _similarity(m, QUESTION, "camera") == pytest.approx(full, abs=2e-3)


def test_a_memory_given_its_own_vector_has_no_sentence_keys(tmp_path):
    text = f"user: {FACT} {REQUEST}"
    vec = get_embedder("hashing", DIM).embed([text])[0]
    _want, whole = _expected(text, [], QUESTION, 0.5)
    with _open(tmp_path / "s") as m:
        m.add(text, id="camera", embedding=vec)
        assert _similarity(m, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)


def test_update_replaces_the_sentence_keys_with_the_new_wording_s(tmp_path):
    text = f"user: {FACT} {REQUEST}"
    new = "user: I sold the Fujifilm camera and bought a bicycle instead."   # one sentence: no keys
    _w, new_whole = _expected(new, [], QUESTION, 0.5)
    with _open(tmp_path / "s") as m:
        m.add(text, id="camera")
        m.update("camera", text=new)
        assert _similarity(m, QUESTION, "camera") == pytest.approx(new_whole, abs=1e-5)
        m.update("camera", text=text)   # back to two sentences: keys again
        want, _ = _expected(text, key_sentences(text, 16), QUESTION, 0.5)
        assert _similarity(m, QUESTION, "camera") == pytest.approx(want, abs=2e-3)   # keys: float16
        own = f"{text} Shutter."
        vec = get_embedder("hashing", DIM).embed([own])[0]
        m.update("camera", embedding=vec)   # the caller's own vector: its keys dropped
        _w, whole = _expected(own, [], QUESTION, 0.5)
        assert _similarity(m, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)


def test_sentence_keys_survive_reopen_and_go_with_an_erased_memory(tmp_path):
    text = f"user: {FACT} {REQUEST}"
    want, whole = _expected(text, key_sentences(text, 16), QUESTION, 0.5)
    with _open(tmp_path / "s") as m:
        m.add(text, id="camera")
        m.add(text.replace("Fujifilm", "Fujifilm X-T5"), id="twin")
    with _open(tmp_path / "s") as m:
        assert _similarity(m, QUESTION, "camera") == pytest.approx(want, abs=2e-3)   # keys: float16
        m.forget("camera", hard=True)
        m.forget("twin", hard=True)
        assert m.recall(QUESTION, k=5).hits == []
    import lmdb   # nothing of the erased memories' sentences stays in the store
    env = lmdb.open(str(tmp_path / "s"), readonly=True, lock=False, max_dbs=32)
    try:
        keys = env.open_db(b"keys", create=False)
        with env.begin() as txn:
            assert txn.stat(keys)["entries"] == 0
    finally:
        env.close()


def test_an_update_with_the_same_wording_keeps_the_vector_and_keys(tmp_path):
    """helper-247: ``update(text=<the same text>, tags=...)`` re-embedded the memory, replacing a
    caller's own vector by the embedder's and giving it sentence keys; a memory stored as pieces
    got its first piece's vector and keys from the whole text."""
    text = f"user: {FACT} {REQUEST}"
    own = get_embedder("hashing", DIM).embed([f"{text} Shutter."])[0]
    _w, whole = _expected(f"{text} Shutter.", [], QUESTION, 0.5)
    with _open(tmp_path / "s") as m:
        m.add(text, id="camera", embedding=own)
        m.update("camera", text=text, tags=["photo"])
        assert tuple(m.get("camera").tags) == ("photo",)
        assert _similarity(m, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)
        stored = m.get("camera", with_embedding=True).embedding
        assert float(np.dot(stored, _unit(own))) == pytest.approx(1.0, abs=1e-6)


def _rewrite_memories(src, dst, change):
    """Copy the export ``src`` to ``dst`` with its memories table passed through ``change``."""
    import os
    import pyarrow.parquet as pq
    os.makedirs(dst)
    pq.write_table(change(pq.read_table(os.path.join(src, "memories.parquet"))), os.path.join(dst, "memories.parquet"))
    os.link(os.path.join(src, "edges.parquet"), os.path.join(dst, "edges.parquet"))


def test_export_and_import_carry_the_sentence_keys(tmp_path):
    """An imported memory scores as the exported one did (its keys come back bit for bit); an
    export of format 2 (no keys column) imports as before, by the whole vector; a store keeping no
    keys takes none; damaged keys are refused with the store unchanged."""
    import pyarrow as pa
    text = f"user: {FACT} {REQUEST}"
    want, whole = _expected(text, key_sentences(text, 16), QUESTION, 0.5)
    with _open(tmp_path / "a") as a:
        a.add_batch([{"id": "camera", "text": text},
                     {"id": "other", "text": "user: The river market sells blue lamps on Sundays."}])
        before = _similarity(a, QUESTION, "camera")
        a.export(tmp_path / "x")
    assert before == pytest.approx(want, abs=2e-3)
    with _open(tmp_path / "b") as b:
        assert b.import_from(tmp_path / "x")["memories"] == 2
        assert _similarity(b, QUESTION, "camera") == before
    with _open(tmp_path / "b") as b:   # reopened: read back from the store
        assert _similarity(b, QUESTION, "camera") == before
    with _open(tmp_path / "nokeys", keys=0) as n:
        n.import_from(tmp_path / "x")
        assert _similarity(n, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)

    def as_format_2(t):
        return t.drop(["sentence_keys"]).replace_schema_metadata(
            {**t.schema.metadata, b"engramdb.format_version": b"2"})
    _rewrite_memories(tmp_path / "x", tmp_path / "v2", as_format_2)
    with _open(tmp_path / "c") as c:
        c.import_from(tmp_path / "v2")
        assert _similarity(c, QUESTION, "camera") == pytest.approx(whole, abs=1e-5)

    def damaged(bad):
        def change(t):
            col = t.column("sentence_keys").to_pylist()
            col = [bad if k is not None else None for k in col]
            i = t.column_names.index("sentence_keys")
            return t.set_column(i, "sentence_keys", pa.array(col, pa.binary()))
        return change
    nan = np.full((2, DIM), np.nan, np.float16).tobytes()
    long = np.full((1, DIM), 1.0, np.float16).tobytes()   # length 8, not 1 (helper-249: similarity 29.5)
    for name, bad, error in (("odd", b"\x00" * 5, engramdb.errors.InvalidInputError),
                             ("nan", nan, engramdb.errors.NonFiniteError),
                             ("zero", bytes(4 * DIM), engramdb.errors.NonFiniteError),
                             ("long", long, engramdb.errors.InvalidInputError)):
        _rewrite_memories(tmp_path / "x", tmp_path / name, damaged(bad))
        with _open(tmp_path / f"into-{name}") as d:
            d.add("user: something already here to keep.", id="kept")
            with pytest.raises(error, match="sentence_keys|sentence key"):
                d.import_from(tmp_path / name)
            assert [h.id for h in d.recall(QUESTION, k=5).hits] == ["kept"]


class _Keys:
    """A store stand-in for :class:`KeyCache`: nid n has n keys of value n (nid 0 none); counts reads."""

    def __init__(self):
        self.reads = 0
        self.txns = 0

    def read(self, what):
        import contextlib
        self.txns += 1
        return contextlib.nullcontext(None)

    def get_keys(self, txn, nid, dim):
        self.reads += 1
        return None if nid == 0 else np.full((nid, dim), nid, np.float16)


def _kept(arena, nid):
    first, m = int(arena.start[nid]), int(arena.count[nid])
    assert first >= 0
    return arena.keys[first:first + m]


def test_the_key_cache_reads_each_memory_once_and_holds_at_most_its_capacity():
    from engramdb.state.key_cache import KeyCache
    store, cache = _Keys(), KeyCache(capacity=4 * 4 * 4)   # four keys of four float32s
    arena = cache.arena(store, np.array([2, 0, 2]), 4)
    assert arena.keys.dtype == np.float32 and (_kept(arena, 2) == 2).all() and _kept(arena, 2).shape == (2, 4)
    assert len(_kept(arena, 0)) == 0 and len(cache) == 2
    assert store.reads == 2 and store.txns == 1   # one transaction, each missing memory read once
    assert cache.arena(store, np.array([2, 0]), 4) is arena
    assert store.reads == 2 and store.txns == 1   # kept: no read, no transaction
    arena = cache.arena(store, np.array([3, 0]), 4)   # 2 + 3 keys pass four: anew, with this recall's
    assert store.reads == 3 and len(cache) == 2 and (_kept(arena, 3) == 3).all() and arena.start[2] == -1
    cache.arena(store, np.array([2]), 4)   # 3 + 2 keys: anew again
    assert store.reads == 4 and len(cache) == 1
    arena = cache.arena(store, np.array([9]), 4)   # one memory past the bound is still held whole
    assert store.reads == 5 and _kept(arena, 9).shape == (9, 4)
    cache.forget(9)
    assert (_kept(cache.arena(store, np.array([9]), 4), 9) == 9).all()
    assert store.reads == 6
    cache.clear()
    assert len(cache) == 0


def test_an_arena_handed_out_never_gains_a_memory_whose_rows_it_lacks():
    """helper-249: a reader's arena, its matrix replaced by a grown one while another reader
    filled it, held nids whose rows were only in the new matrix (recall raised ValueError)."""
    from engramdb.state.key_cache import KeyCache
    store, cache = _Keys(), KeyCache()
    first = cache.arena(store, np.array([1000]), 4)   # the columns already reach nid 1000
    later = cache.arena(store, np.arange(1, 900), 4)   # more rows than the matrix has: it grows
    assert len(later.keys) > len(first.keys)
    assert (first.start[1:900] == -1).all() and (first.count[1:900] == 0).all()
    assert (_kept(later, 500) == 500).all() and (_kept(later, 1000) == 1000).all()
    assert (_kept(first, 1000) == 1000).all()


def test_the_arena_grows_no_further_than_its_bound():
    from engramdb.state.key_cache import KeyCache
    store, cache = _Keys(), KeyCache(capacity=4 * 4 * 3000)   # 3,000 keys of four float32s
    for lo in range(1, 100, 10):   # ten memories of up to 99 keys a recall
        arena = cache.arena(store, np.arange(lo, lo + 10), 4)
        assert len(arena.keys) <= 3000
    assert len(cache.arena(store, np.array([2999]), 4).keys) >= 2999   # one recall's memories: held whole
