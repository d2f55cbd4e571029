"""The BM25 keyword leg: tokenizer, scores against a brute-force oracle, updates, snapshots, engine."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.index.keyword import KeywordIndex, pack_indexes, term_counts, tokenize, unpack_indexes
from engramdb.index.tokens import index_terms
from engramdb.testing import crash, keyword_counts, keyword_search


def test_tokenize_keeps_codes_numbers_and_stems_words():
    assert tokenize("Booked flight TP-218 with code QX7Z9M on 2023-05-14!") == \
        ["book", "flight", "tp-218", "tp", "218", "code", "qx7z9m", "2023-05-14", "2023", "05", "14"]
    assert tokenize("the and of") == []          # stop words only
    assert tokenize("Running runs") == ["run", "run"]


def _oracle(docs: dict[int, str], query: str, k1=1.2, b=0.75) -> dict[int, float]:
    """BM25 straight from the formula (Robertson & Zaragoza 2009, Lucene's idf); a document's
    length counts its words, not the parts split from them (index_terms)."""
    toks = {nid: tokenize(t) for nid, t in docs.items()}
    dls = {nid: index_terms(t)[1] for nid, t in docs.items()}
    n = len(docs)
    avgdl = max(sum(dls.values()) / n, 1e-9)
    out: dict[int, float] = {}
    for term in set(tokenize(query)):
        df = sum(term in t for t in toks.values())
        if df == 0:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for nid, t in toks.items():
            tf = t.count(term)
            if tf:
                norm = 1 - b + b * dls[nid] / avgdl
                out[nid] = out.get(nid, 0.0) + idf * tf * (k1 + 1) / (tf + k1 * norm)
    return out


def test_scores_match_hand_computed_bm25():
    docs = {0: "flight to Lisbon", 1: "flight flight delayed", 2: "hotel in Lisbon near the river"}
    idx = KeywordIndex.build(docs.items())
    nids, scores = idx.search("Lisbon flight", 10)
    # tokens: [flight, lisbon], [flight, flight, delay], [hotel, lisbon, near, river]
    # n=3, avgdl=(2+3+4)/3; "flight" df=2, "lisbon" df=2 -> idf = ln(1 + 1.5/2.5)
    idf = math.log(1.6)
    avgdl = 3.0

    def part(tf, dl):
        return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))

    want = {0: part(1, 2) + part(1, 2), 1: part(2, 3), 2: part(1, 4)}
    assert nids.tolist() == [0, 1, 2]
    assert scores.tolist() == pytest.approx([want[0], want[1], want[2]], rel=1e-5)


words = st.sampled_from("apple banana cherry lisbon flight code qx7z9m 2023 river hotel run running "
                        "TP-218 getUserById 12.5% the".split())
texts = st.lists(words, min_size=0, max_size=8).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(texts, min_size=1, max_size=12), texts, st.lists(st.integers(0, 11), max_size=4))
def test_search_agrees_with_oracle_after_adds_and_removes(doc_texts, query, removed):
    docs = dict(enumerate(doc_texts))
    idx = KeywordIndex.build(docs.items())
    for nid in set(removed):
        if nid in docs:
            idx.remove(nid, docs.pop(nid))
    assert len(idx) == len(docs)
    nids, scores = idx.search(query, 20)
    want = _oracle(docs, query) if docs else {}
    assert dict(zip(nids.tolist(), scores.tolist())) == pytest.approx(want, rel=1e-4)
    assert np.all(np.diff(scores) <= 1e-6)   # best first
    # a snapshot round trip answers the same
    arrays, names = pack_indexes({"a": idx, "b": KeywordIndex.build([(99, "banana river")])})
    back = unpack_indexes(arrays, names)
    n2, s2 = back["a"].search(query, 20)
    assert n2.tolist() == nids.tolist() and np.allclose(s2, scores)
    # and keeps working incrementally
    back["a"].add(1000, query + " zebra")
    assert 1000 in back["a"].search("zebra", 5)[0].tolist()


def test_unpack_rejects_mismatched_arrays():
    arrays, names = pack_indexes({"a": KeywordIndex.build([(1, "apple pie"), (2, "apple tart")])})
    arrays["ptr"] = arrays["ptr"][:-1]
    with pytest.raises(ValueError):
        unpack_indexes(arrays, names)


def _store(tmp_path):
    return engramdb.open(tmp_path / "s", dim=64)


FACTS = ["We talked about the weather in spring.", "The team prefers tea over coffee.",
         "Lunch was at the Italian place downtown.", "The airline emailed confirmation code QX7Z9M.",
         "We watched a documentary about whales.", "Remember to water the plants on Friday."]


def test_recall_finds_an_exact_code_through_the_keyword_leg(tmp_path):
    with _store(tmp_path) as eng:
        for i, t in enumerate(FACTS):
            eng.add(t, id=f"m{i}")
        hits = eng.recall("what was the code QX7Z9M", k=1).hits
        assert hits[0].id == "m3"
        # the keyword leg alone ranks it first by the exact token
        kw_only = engramdb.RecallConfig(w_keyword=1.0, w_vector=0.0, w_graph=0.0, prf_terms=0)
        assert eng.recall("QX7Z9M", k=1, config=kw_only).hits[0].id == "m3"
        assert eng.recall("QX7Z9M", k=1, vector=np.roll(eng.get("m0", with_embedding=True).embedding, 1),
                          config=kw_only).hits[0].id == "m3"       # whatever the vector says


def test_keyword_leg_survives_reopen_crash_and_hard_forget(tmp_path):
    eng = _store(tmp_path)
    for i, t in enumerate(FACTS):
        eng.add(t, id=f"m{i}")
    eng.close()
    eng = _store(tmp_path)                   # from the snapshot
    assert eng.recall("QX7Z9M", k=1).hits[0].id == "m3"
    eng.add("Gate B42 for the return flight ZZ9PLURAL.", id="gate")
    crash(eng)                               # no flush: the keyword snapshot is stale
    eng = _store(tmp_path)                   # rebuilt from the LMDB records
    assert eng.recall("ZZ9PLURAL", k=1).hits[0].id == "gate"
    assert keyword_counts(eng)["default"] == len(FACTS) + 1
    eng.forget("m3", hard=True)
    assert "m3" not in [h.id for h in eng.recall("confirmation code QX7Z9M", k=7).hits]
    eng.close()
    eng = _store(tmp_path)
    assert keyword_counts(eng)["default"] == len(FACTS)
    assert "m3" not in [h.id for h in eng.recall("confirmation code QX7Z9M", k=7).hits]
    eng.close()


def test_keyword_leg_is_per_namespace(tmp_path):
    with _store(tmp_path) as eng:
        eng.add("Secret project codename BLUEHERON.", id="a", namespace="alice")
        eng.add("Groceries: milk and eggs.", id="b", namespace="bob")
        res = eng.recall("BLUEHERON", namespace="bob", k=5)
        assert [h.id for h in res.hits] == ["b"] or not res.hits
        assert eng.recall("BLUEHERON", namespace="alice", k=1).hits[0].id == "a"


def test_search_terms_weights_and_idf():
    idx = KeywordIndex.build([(0, "apple pie"), (1, "apple tart"), (2, "cherry tart")])
    assert idx.idf("appl") == pytest.approx(math.log(1 + 1.5 / 2.5))   # terms are stems
    assert idx.idf("durian") == 0.0
    plain = dict(zip(*[a.tolist() for a in idx.search("apple tart", 5)]))
    half = dict(zip(*[a.tolist() for a in idx.search_terms({"appl": 1.0, "tart": 0.5}, 5)]))
    tart_only = dict(zip(*[a.tolist() for a in idx.search_terms({"tart": 1.0}, 5)]))
    assert half[1] == pytest.approx(plain[1] - 0.5 * tart_only[1], rel=1e-5)
    assert half[2] == pytest.approx(0.5 * tart_only[2], rel=1e-5)


def test_keyword_feedback_finds_a_memory_that_shares_no_query_word(tmp_path):
    facts = ["Caroline adopted a puppy last spring.", "Max the puppy loves the beach.",
             "The budget review is on Monday.", "Melanie painted a sunset over the lake."]
    with _store(tmp_path) as eng:
        for i, t in enumerate(facts):
            eng.add(t, id=f"f{i}")
        first = keyword_search(eng, "default", "What did Caroline adopt?", k=10)
        assert "f1" not in first                                         # no shared term
        cfg = engramdb.RecallConfig(prf_terms=5, prf_docs=1, prf_weight=0.3)
        ids = keyword_search(eng, "default", "What did Caroline adopt?", k=10, feedback=cfg)
        assert ids[:2] == ["f0", "f1"]


def test_a_snapshot_round_trip_answers_alike_and_grows_alike():
    """A loaded vocabulary (hundreds of terms, read in one piece) searches, feeds back and takes
    new terms exactly as the index it was saved from."""
    rng = np.random.default_rng(0)
    words = [f"w{i}x" for i in range(300)]
    docs = [(i, " ".join(rng.choice(words, 8))) for i in range(500)]
    a = KeywordIndex.build(docs)
    b = KeywordIndex.from_arrays(a.arrays())
    for q in ["w1x w2x w3x", "w250x w77x", "w5x"]:
        ra, rb = a.search(q, 10), b.search(q, 10)
        assert np.array_equal(ra[0], rb[0]) and np.allclose(ra[1], rb[1])
        pa = a.search_prf(q, 10, None, prf_docs=4, prf_terms=4, prf_weight=0.2)
        pb = b.search_prf(q, 10, None, prf_docs=4, prf_terms=4, prf_weight=0.2)
        assert np.array_equal(pa[0], pb[0]) and np.allclose(pa[1], pb[1])
    for idx in (a, b):
        idx.add(999, "w1x brandnewterm")
    assert np.array_equal(a.search("brandnewterm w1x", 5)[0], b.search("brandnewterm w1x", 5)[0])
    assert a.arrays()["terms"].tobytes() == b.arrays()["terms"].tobytes()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.lists(st.sampled_from(
    ["apple", "pie", "the", "tp-218", "river", "Running", "x", "2023-05-14", "東京タワー", "café"]), max_size=8)),
    max_size=40, unique_by=lambda d: d[0]))
def test_bulk_build_equals_adding_one_by_one(raw):
    """The rebuild from records (KeywordIndex.build, in bulk) gives the arrays that add() + compact() give."""
    docs = [(nid, " ".join(words)) for nid, words in raw]
    one = KeywordIndex()
    for nid, text in docs:
        one.add(nid, text)
    one.compact()
    bulk = KeywordIndex.build(docs)
    a, b = one.arrays(), bulk.arrays()
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert len(one) == len(bulk)
    for q in ["apple pie", "river tp", "café 東京"]:
        ra, rb = one.search(q, 5), bulk.search(q, 5)
        assert np.array_equal(ra[0], rb[0]) and np.array_equal(ra[1], rb[1])
    # the forward index too: per-memory term statistics, and removing a memory through it
    nids = np.array([nid for nid, _ in docs], np.int64)
    terms = ["appl", "pie", "river", "tp-218", "cafe"]
    for x, y in zip(one.term_stats(nids, terms), bulk.term_stats(nids, terms)):
        assert np.array_equal(x, y)
    for nid, text in docs[:3]:
        one.remove(nid, text)
        bulk.remove(nid, text)
    a, b = one.arrays(), bulk.arrays()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.lists(st.sampled_from(
    ["apple", "pie", "the", "river", "Running", "café"]), max_size=8), st.one_of(st.none(), st.integers(0, 400))),
    max_size=30, unique_by=lambda d: d[0]))
def test_a_length_given_for_bm25_is_held_as_the_texts_own(raw):
    """A block of a split message is indexed with its message's length (WriteUnit._block_length):
    the rebuild (build with ``lengths``) gives what add() with the length gives, the scores use
    it, and removing a memory subtracts the length it was indexed with."""
    docs = [(nid, " ".join(words)) for nid, words, _ in raw]
    lengths = {nid: n for nid, _, n in raw if n is not None}
    one = KeywordIndex()
    for nid, text in docs:
        one.add(nid, text, lengths.get(nid))
    one.compact()
    bulk = KeywordIndex.build(docs, lengths=lengths)
    many = KeywordIndex()
    many.add_many(docs, lengths=lengths)   # (the write path's)
    many.compact()
    a, b, c = one.arrays(), bulk.arrays(), many.arrays()
    for key in a:
        assert np.array_equal(a[key], b[key]) and np.array_equal(a[key], c[key]), key
    plain = KeywordIndex.build(docs)
    want = plain.total_len + sum(n - term_counts(t)[1] for nid, t in docs
                                 if (n := lengths.get(nid)) is not None and term_counts(t)[0])   # (no term: its own)
    assert bulk.total_len == pytest.approx(want)
    for nid, text in docs:
        bulk.remove(nid, text)
    assert bulk.total_len == pytest.approx(0.0, abs=1e-6) and len(bulk) == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from(
    ["apple", "pie", "the", "tp-218", "river", "Running", "x", "2023-05-14", "東京タワー", "café", "new1", "new2"]),
    max_size=8), max_size=40), st.integers(0, 3), st.booleans())
def test_add_many_equals_adding_one_by_one(texts, gap, merge_often):
    """KeywordIndex.add_many (the write path's batch) leaves the postings, delta chains, forward
    index and statistics that add() of each memory in order leaves, on top of a stored segment
    and a delta; with a tiny merge threshold (a merge in the middle of the one-by-one adds) the
    snapshot arrays and the answers still agree."""
    import engramdb.index.keyword as kw

    base = [(0, "apple pie river"), (2, "river tp-218 x"), (5, "café")]
    docs = [(10 + i * (1 + gap), " ".join(words)) for i, words in enumerate(texts)]
    one, bulk = KeywordIndex.build(base), KeywordIndex.build(base)
    for idx in (one, bulk):
        idx.add(7, "apple river running")
        idx.remove(2, "river tp-218 x")
    old = kw.MERGE_MIN_POSTINGS
    kw.MERGE_MIN_POSTINGS = 4 if merge_often else old
    try:
        for nid, text in docs:
            one.add(nid, text)
        bulk.add_many(docs)
    finally:
        kw.MERGE_MIN_POSTINGS = old
    assert len(one) == len(bulk) and one.total_len == bulk.total_len
    if not merge_often:
        for name, x, y in zip(one.postings()._fields, one.postings(), bulk.postings()):
            assert np.array_equal(np.asarray(x), np.asarray(y)), name
    for q in ["apple pie", "river tp", "café 東京", "new1 running"]:
        ra, rb = one.search(q, 5), bulk.search(q, 5)
        assert np.array_equal(ra[0], rb[0]) and np.array_equal(ra[1], rb[1])
    a, b = one.arrays(), bulk.arrays()
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


def test_a_role_label_is_no_keyword_term(tmp_path):
    """A fresh user asked "What is the user's current dose?" of a chat: every user message
    holds the label "user: ", so the keyword leg matched them all on it, the shortest first,
    and "user: Thanks, bye for now." led. The label is no term (a speaker's name stays one), and
    it still counts in the message's length, so BM25 scores no other query differently."""
    from engramdb.index.keyword import term_counts

    assert term_counts("user: I take metformin 1000 mg") == ({"take": 1, "metformin": 1, "1000": 1, "mg": 1}, 5)
    assert term_counts("Assistant: the user table")[0] == {"user": 1, "tabl": 1}
    assert "carolin" in term_counts("Caroline: I paint")[0]   # (stemmed)
    with engramdb.open(tmp_path / "s", embedder="hashing") as eng:
        eng.add_conversation([
            {"role": "user", "content": "I take metformin 1000 mg every morning.", "created_at": 1.7e9},
            {"role": "user", "content": "Thanks, bye for now.", "created_at": 1.7e9 + 60},
            {"role": "assistant", "content": "Add the user to the admins group.", "created_at": 1.7e9 + 90},
        ], namespace="u", session="a")
        ids = keyword_search(eng, "u", "What is the user's current dose?")   # "user" in a text, not a label
        assert ids[0] == "a:3" and "a:1" not in ids and "a:2" not in ids
        assert keyword_search(eng, "u", "the user's metformin dose")[0] == "a:1"
