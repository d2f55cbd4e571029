"""Hostile and odd input: each case has a documented result, and errors leave the store unchanged."""
import math
import tracemalloc
import zlib

import numpy as np
import pytest

import engramdb
from engramdb.batch_plan import split_text
from engramdb import errors
from engramdb.testing import cache_status, indexed_counts, store_digest

from .conftest import DIM, live_ids, quiet_config, vec


@pytest.fixture
def eng(store_path):
    e = engramdb.open(store_path, dim=DIM, config=quiet_config())
    yield e
    e.close()


# ---------------------------------------------------------------- the same text twice
def test_same_text_without_id_is_one_memory_reinforced(eng, store_path):
    first = eng.add("Alice prefers window seats.", embedding=vec(1))
    before = eng.get(first)
    second = eng.add("Alice prefers window seats.", embedding=vec(2))
    assert second == first
    after = eng.get(first)
    assert eng.stats()["memories"] == 1
    assert after.access_count == before.access_count + 1
    assert after.salience > before.salience
    # the key survives a reopen
    eng.close()
    with engramdb.open(store_path, config=quiet_config()) as again:
        assert again.add("Alice prefers window seats.", embedding=vec(3)) == first
        assert again.stats()["memories"] == 1
        assert again.get(first).access_count == before.access_count + 2


def test_same_text_same_id_is_one_memory(eng):
    assert eng.add("the code is QX7Z9M", id="code", embedding=vec(1)) == "code"
    assert eng.add("the code is QX7Z9M", id="code", embedding=vec(1)) == "code"
    assert eng.stats()["memories"] == 1 and eng.get("code").access_count == 1
    with pytest.raises(errors.InvalidInputError):          # same id, another text: refused
        eng.add("the code is ABC", id="code", embedding=vec(2))


def test_repeat_adds_its_links_to_the_stored_memory(eng):
    eng.add("the hotel", id="hotel", embedding=vec(1))
    eng.add("the trip", id="trip", embedding=vec(2))
    first = eng.add("booked room 12", embedding=vec(3))
    before = store_digest(eng)
    with pytest.raises(errors.MemoryNotFoundError):      # a bad target: nothing written
        eng.add("booked room 12", embedding=vec(3), links=[{"to": "hotel"}, {"to": "ghost"}])
    assert store_digest(eng) == before
    again = eng.add("booked room 12", embedding=vec(3), links=[{"to": "hotel", "relation": "supports"}])
    assert again == first and eng.stats()["memories"] == 3
    assert [(x.source, x.target, x.relation.value) for x in eng.edges(first)] == [(first, "hotel", "supports")]


def test_distinct_explicit_ids_stay_distinct(eng):
    # LoCoMo turns may repeat a text ("ok!") under different dia_ids
    ids = eng.add_batch([{"id": "D1:1", "text": "ok!", "embedding": vec(1)},
                         {"id": "D1:2", "text": "ok!", "embedding": vec(2)}])
    assert ids == ["D1:1", "D1:2"]
    assert eng.add("ok!", id="D2:7", embedding=vec(3)) == "D2:7"
    assert live_ids(eng) == {"D1:1", "D1:2", "D2:7"}
    # no id given: merged with a stored memory holding that exact text
    assert eng.add("ok!", embedding=vec(4)) in {"D1:1", "D1:2", "D2:7"}
    assert eng.stats()["memories"] == 3


def test_repeats_inside_one_batch(eng):
    ids = eng.add_batch([{"text": "a fact", "embedding": vec(1)}, {"text": "another", "embedding": vec(2)},
                         {"text": "a fact", "embedding": vec(3)}])
    assert ids[0] == ids[2] != ids[1]
    assert eng.stats()["memories"] == 2


def test_repeat_of_an_archived_or_erased_text_is_a_new_memory(eng):
    a = eng.add("old news", embedding=vec(1))
    eng.forget(a)                                          # archived: hidden, kept
    b = eng.add("old news", embedding=vec(1))
    assert b != a and eng.get(a).state is engramdb.MemoryState.ARCHIVED
    eng.forget(b, hard=True)
    c = eng.add("old news", embedding=vec(1))
    assert c not in (a, b)
    assert live_ids(eng) == {a, c}


# ---------------------------------------------------------------- delete
def _index_count(e, ns="default"):
    return indexed_counts(e).get(ns, 0)


def test_delete_then_exact_text_no_longer_recalls_it(store_path):
    texts = [f"memory number {i} about topic {i % 7}" for i in range(40)]
    with engramdb.open(store_path, dim=64, config=quiet_config()) as e:
        e.add_batch([{"id": f"m{i}", "text": t} for i, t in enumerate(texts)])
        assert e.recall(texts[5], k=1).hits[0].id == "m5"
        for i in range(0, 40, 4):
            e.forget(f"m{i}", hard=True)
        for i in range(0, 40, 4):
            assert f"m{i}" not in {h.id for h in e.recall(texts[i], k=40).hits}
        assert _index_count(e) == len(live_ids(e)) == 30
    with engramdb.open(store_path) as e:
        assert _index_count(e) == len(live_ids(e)) == 30
        assert "stale" not in cache_status(e)["indexes"].values()   # loaded from disk, deletions and all
        for i in range(0, 40, 4):
            assert f"m{i}" not in {h.id for h in e.recall(texts[i], k=40).hits}
        assert e.recall(texts[5], k=1).hits[0].id == "m5"


def test_deleting_one_namespace_leaves_the_others(eng):
    for ns in ("alice", "bob"):
        eng.add_batch([{"id": f"x{i}", "text": f"shared fact {i}", "embedding": vec(i)} for i in range(10)],
                      namespace=ns)
        eng.link("x0", "x1", "supports", namespace=ns)
    for i in range(10):
        eng.forget(f"x{i}", namespace="alice", hard=True)
    assert live_ids(eng, "alice") == set()
    assert live_ids(eng, "bob") == {f"x{i}" for i in range(10)}
    assert [(e.source, e.target) for e in eng.edges("x0", namespace="bob")] == [("x0", "x1")]
    for i in range(10):   # the same text in "bob" is a separate memory and survives
        assert eng.recall(vector=vec(i), namespace="bob", k=1).hits[0].id == f"x{i}"
        assert eng.recall(vector=vec(i), namespace="alice", k=5).hits == []
    assert _index_count(eng, "bob") == 10 and _index_count(eng, "alice") == 0


def test_delete_then_readd_same_id_with_new_vector(eng):
    eng.add("v1 of a fact", id="f", embedding=vec(1))
    eng.add_batch([{"text": f"other {i}", "embedding": vec(100 + i)} for i in range(20)])
    eng.forget("f", hard=True)
    eng.add("v2 of a fact", id="f", embedding=vec(2))
    for q in (vec(1), vec(2)):
        ids = [h.id for h in eng.recall(vector=q, k=21).hits]
        assert ids.count("f") == 1 and len(ids) == len(set(ids))
    hit = eng.recall(vector=vec(2), k=1).hits[0]
    assert hit.id == "f" and hit.text == "v2 of a fact" and hit.similarity == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(eng.get("f", with_embedding=True).embedding, vec(2), atol=1e-6)


# ---------------------------------------------------------------- k and sizes
def test_empty_store_and_k_larger_than_live(eng):
    res = eng.recall(vector=vec(0), k=50)
    assert res.hits == [] and [g.reason for g in res.gaps] == ["empty_namespace"]
    eng.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(3)])
    cfg = engramdb.RecallConfig(cosine_floor=-1.0)
    assert {h.id for h in eng.recall(vector=vec(0), k=50, config=cfg).hits} == {"m0", "m1", "m2"}


def test_990_of_1000_deleted(store_path):
    with engramdb.open(store_path, dim=DIM, config=quiet_config()) as e:
        e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(1000)])
        for i in range(990):
            e.forget(f"m{i}", hard=True)
        cfg = engramdb.RecallConfig(cosine_floor=-1.0)
        expect = {f"m{i}" for i in range(990, 1000)}
        for q in range(0, 1000, 97):
            assert {h.id for h in e.recall(vector=vec(q), k=20, config=cfg).hits} == expect


# ---------------------------------------------------------------- queries and vectors
class CountingEmbedder:
    dim, name = DIM, "counting-test"

    def __init__(self):
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return np.stack([vec(len(t)) for t in texts])


@pytest.mark.parametrize("query", ["", " ", "\n\t  "])
def test_empty_query_is_an_error_without_embedding(store_path, query):
    emb = CountingEmbedder()
    with engramdb.open(store_path, embedder=emb, config=quiet_config()) as e:
        e.add("something", embedding=vec(1))
        before = store_digest(e)
        with pytest.raises(errors.EmptyTextError):
            e.recall(query)
        assert emb.calls == 0 and store_digest(e) == before


BAD_VECTORS = {
    "zero": np.zeros(DIM), "nan": np.r_[np.full(DIM - 1, 0.1), np.nan], "inf": np.r_[np.ones(DIM - 1), np.inf],
    "-inf": np.r_[np.ones(DIM - 1), -np.inf], "tiny": np.full(DIM, 1e-30), "denormal": np.full(DIM, 1e-42),
}


def test_huge_finite_vectors_are_normalised(eng):
    eng.add("big", id="big", embedding=np.full(DIM, 3e38, np.float32))
    got = eng.get("big", with_embedding=True).embedding
    np.testing.assert_allclose(got, np.full(DIM, 1 / np.sqrt(DIM)), rtol=1e-6)
    assert eng.recall(vector=np.full(DIM, 3e38), k=1).hits[0].id == "big"


@pytest.mark.parametrize("name", sorted(BAD_VECTORS))
def test_degenerate_vectors_are_rejected(eng, name):
    eng.add("kept", id="k", embedding=vec(1))
    before = store_digest(eng)
    with pytest.raises(errors.NonFiniteError):
        eng.add("x", embedding=BAD_VECTORS[name])
    with pytest.raises(errors.NonFiniteError):
        eng.recall(vector=BAD_VECTORS[name])
    assert store_digest(eng) == before and eng.stats()["memories"] == 1


def test_every_returned_score_is_finite(eng, rng):
    eng.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(50)])
    eng.link_batch([(f"m{i}", f"m{i + 1}", "supports", 1.0) for i in range(49)])
    queries = [vec(3), -vec(3), np.full(DIM, 1e-3), np.r_[1e6, np.zeros(DIM - 1)], rng.standard_normal(DIM) * 1e20]
    for q in queries:
        for gate in ("on", "off"):
            res = eng.recall(vector=q, k=50, gate=gate, config=engramdb.RecallConfig(cosine_floor=-1.0))
            assert res.hits
            for h in res.hits:
                assert math.isfinite(h.score) and math.isfinite(h.activation)
                assert h.similarity is None or math.isfinite(h.similarity)


# ---------------------------------------------------------------- very long text
LATIN_SENTENCES = ["the weather report mentions clouds over the harbour this morning. ",
                   "merchants argue about prices near the old stone market. ",
                   "ships unload grain and timber at the northern pier. ",
                   "children fly kites in the park on windy afternoons. ",
                   "the library stays open until eight on weekends. ",
                   "a teacher writes new words on the blackboard. ",
                   "the cafe in front of the station is always busy. ",
                   "rain is expected later in the afternoon. "]


class BigramEmbedder:
    """Character bigrams hashed (CRC-32) into 4096 buckets, sublinear tf, L2-normalised."""

    dim, name = 4096, "bigram-test"

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), np.float32)
        for row, t in enumerate(texts):
            idx = [zlib.crc32(t[i:i + 2].encode()) % self.dim for i in range(len(t) - 1)]
            counts = np.bincount(idx, minlength=self.dim).astype(np.float32)
            out[row] = np.where(counts > 0, 1 + np.log(np.maximum(counts, 1)), 0)
            out[row] /= np.linalg.norm(out[row])
        return out


CJK_SENTENCES = ["今天早上港口上空有云。", "商人们在旧石头市场附近讨论价格。", "船只正在卸下粮食和木材。",
                 "天气预报说下午可能会下雨。", "孩子们在公园里放风筝。", "图书馆周末开放到晚上八点。",
                 "火车站前的咖啡馆总是很热闹。", "老师在黑板上写下了新的单词。"]


@pytest.mark.parametrize("script", ["latin", "cjk"])
def test_very_long_text_is_chunked_and_its_end_is_recallable(store_path, script, rng):
    if script == "latin":
        body = ""   # shuffled sentences: no two pieces are the same text
        while len(body) < 200_000:                            # ~200,000 characters
            body += "".join(rng.choice(np.array(LATIN_SENTENCES), 50))
        fact = " The vault code for the Lisbon office is 7419-KESTREL."
        query = "what is the vault code for the Lisbon office?"
    else:
        sentences = np.array(CJK_SENTENCES)
        body = ""
        while len(body) < 200_000:                            # ~200,000 CJK characters, no spaces
            body += "".join(rng.choice(sentences, 50))
        fact = "保险库的密码是七四一九红隼"
        query = "保险库的密码是多少"
    text = body + fact + "."
    # the hashing embedder's char n-grams stop at whitespace, so a CJK piece is one long "word"
    # and a 12-character fact moves its vector little; a character-bigram embedder shows the
    # chunking policy itself (each piece embedded on its own) without that weakness
    embedder = "hashing" if script == "latin" else BigramEmbedder()
    with engramdb.open(store_path, dim=getattr(embedder, "dim", 256), embedder=embedder, config=quiet_config()) as e:
        if script == "cjk":   # tracemalloc doubles the run time: measure one of the two
            tracemalloc.start()
        head = e.add(text, id="doc")
        peak = tracemalloc.get_traced_memory()[1] if script == "cjk" else 0
        tracemalloc.stop()
        chunk = e.config.store.chunk_chars
        assert head == "doc" and e.get("doc").text == text   # get joins the pieces back
        n_chunks = 1 + e.stats()["pieces"]   # one memory, stored as pieces
        assert e.stats()["memories"] == 1
        assert len(text) / chunk <= n_chunks <= 1.3 * len(text) / chunk + 1
        assert peak < 100 * len(text) * 4                    # bounded: linear in the text
        hits = e.recall(query, k=3).hits
        # one hit for the memory, under its own id, at the piece that holds the fact
        assert fact.strip(" .") in hits[0].text and hits[0].id == "doc" and hits[0].chunk >= n_chunks - 2
        assert len(hits[0].text) <= chunk and [h.id for h in hits] == ["doc"]
        # the pieces cover the text in order: next edges from the head, extracted_from back to it
        parts, cur = [split_text(text, chunk)[0]], "doc"   # the first piece (get joins them all)
        overlaps = [0]
        while nxt := [x.target for x in e.edges(cur) if x.relation is engramdb.Relation.NEXT and x.source == cur]:
            cur = nxt[0]
            parts.append(e.get(cur).text)
            overlaps.append(e.get(cur).overlap_chars)
        assert len(parts) == n_chunks
        assert {x.source for x in e.edges("doc") if x.relation is engramdb.Relation.EXTRACTED_FROM} == {
            f"doc#{i}" for i in range(1, n_chunks)}
        # each piece says how much of it repeats the piece before: two sentences here
        assert all(0 < k <= chunk // 3 and parts[i - 1].endswith(parts[i][:k]) for i, k in enumerate(overlaps) if i)
        rebuilt = parts[0] + "".join(p[k:] for p, k in zip(parts[1:], overlaps[1:]))
        assert rebuilt == text
        # adding the same long text again without an id is merged into the same memory
        assert e.add(text) == "doc" and (e.stats()["memories"], 1 + e.stats()["pieces"]) == (1, n_chunks)


def test_end_of_a_million_character_repetitive_text_is_recallable(store_path, rng):
    """279 pieces drawn from 8 sentences are near-duplicates (mean cosine 0.99); the piece with
    the fact has few HNSW in-links, and a beam of ef_search=100 missed it (the index searches
    namespaces of up to 512 vectors exhaustively since)."""
    body = ""
    while len(body) < 1_000_000:
        body += "".join(rng.choice(np.array(LATIN_SENTENCES), 50))
    with engramdb.open(store_path, dim=384) as e:
        e.add(body + " The vault code for the Lisbon office is 7419-KESTREL.", id="doc")
        hit = e.recall("what is the vault code for the Lisbon office?", k=1).hits[0]
        assert "7419-KESTREL" in hit.text


def test_long_text_without_an_embedder_is_refused_unchanged(store_path):
    engramdb.open(store_path, embedder=CountingEmbedder(), config=quiet_config()).close()
    with engramdb.open(store_path, config=quiet_config(chunk_chars=100)) as e:   # custom embedder not given
        assert e.embedder is None
        e.add("short", id="s", embedding=vec(1))
        before = store_digest(e)
        with pytest.raises(errors.OversizeError, match="chunk_chars"):
            e.add("word " * 100, embedding=vec(2))
        assert store_digest(e) == before and e.stats()["memories"] == 1
