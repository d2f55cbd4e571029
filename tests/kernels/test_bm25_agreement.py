"""bm25_search: the C kernel agrees with the NumPy reference on random postings (segment,
delta, tombstones), queries, allowed masks and feedback settings; the reference agrees with a
plain dictionary oracle of BM25 + feedback written from the formulas."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.index.keyword import KeywordIndex, tokenize
from engramdb.index.tokens import index_terms
from engramdb.kernels import reference
from tests.strategies import load_backend

# A small vocabulary of words the tokenizer keeps as they are (no stop words, stable stems),
# so that documents share terms, term frequencies repeat and scores tie often.
WORDS = ["kiwi", "mango", "plum", "fig", "lime", "pear", "date", "yuzu", "zq", "xv", "qb", "wt"]


@st.composite
def corpora(draw):
    """A KeywordIndex grown by adds, removals and compactions, and the texts it holds."""
    n = draw(st.integers(0, 40))
    docs = {}
    idx = KeywordIndex()
    for nid in draw(st.lists(st.integers(0, 60), min_size=n, max_size=n, unique=True)):
        text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=8)))
        text = text or "the"   # only a stop word: a memory with no terms
        idx.add(nid, text)
        docs[nid] = text
        if draw(st.integers(0, 9)) == 0:
            idx.compact()
    for nid in draw(st.lists(st.sampled_from(sorted(docs)), max_size=6, unique=True)) if docs else []:
        idx.remove(nid, docs.pop(nid))
    if draw(st.booleans()):
        idx.compact()
    for nid in draw(st.lists(st.integers(61, 70), max_size=4, unique=True)):   # more delta after
        docs[nid] = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5)))
        idx.add(nid, docs[nid])
    return idx, docs


@st.composite
def cases(draw):
    idx, docs = draw(corpora())
    terms = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=5, unique=True))
    weights = draw(st.lists(st.sampled_from([1.0, 0.5, 0.25, 0.0]), min_size=len(terms), max_size=len(terms)))
    allowed = None
    if draw(st.booleans()):
        allowed = np.array(draw(st.lists(st.integers(0, 80), max_size=30, unique=True)), np.int64)
    return {"idx": idx, "docs": docs, "terms": dict(zip(terms, weights)), "allowed": allowed,
            "k": draw(st.integers(1, 12)), "prf_docs": draw(st.integers(1, 6)),
            "prf_terms": draw(st.integers(0, 5)), "prf_weight": draw(st.sampled_from([0.0, 0.2, 1.0]))}


def _call(kernels, case):
    idx = case["idx"]
    q_terms, q_weight = idx.query_terms(case["terms"])
    mask = None
    if case["allowed"] is not None:
        mask = np.zeros(len(idx.postings().fwd_off), np.uint8)
        a = case["allowed"]
        mask[a[a < len(mask)]] = 1
    return kernels.bm25_search(idx.postings(), q_terms, q_weight, mask, case["k"], case["prf_docs"],
                               case["prf_terms"], case["prf_weight"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_c_agrees_with_reference(case):
    c = load_backend("c")
    want_n, want_s = _call(reference, case)
    got_n, got_s = _call(c, case)
    assert got_n.dtype == np.int64 and got_s.dtype == np.float32
    assert_array_equal(got_n, want_n)
    assert_allclose(got_s, want_s, rtol=1e-6)


def _oracle(docs, terms, allowed, k, prf_docs, prf_terms, prf_weight, k1=1.2, b=0.75):
    """BM25 + one round of feedback from the formulas, over a dict of texts, in float64; None
    when the feedback memories are not defined by the formula (a tie at rank ``prf_docs``)."""
    stats = {nid: index_terms(text) for nid, text in docs.items()}
    n = len(docs)
    avgdl = max(sum(length for _, length in stats.values()) / n, 1e-9) if n else 1.0
    df = {}
    for toks, _ in stats.values():
        for t in set(toks):
            df[t] = df.get(t, 0) + 1

    def idf(t):
        return math.log1p((n - df[t] + 0.5) / (df[t] + 0.5)) if df.get(t) else 0.0

    def bm25(query):
        score = {}
        for nid, (toks, length) in stats.items():
            if allowed is not None and nid not in allowed:
                continue
            for t, w in query.items():
                tf = toks.count(t)
                if tf and w > 0:
                    score[nid] = score.get(nid, 0.0) + w * idf(t) * tf * (k1 + 1) / (
                        tf + k1 * (1 - b + b * length / avgdl))
        return sorted(score.items(), key=lambda x: (-x[1], x[0]))   # every match (cut at k below)

    first = bm25(terms)
    if not first or prf_terms == 0:
        return first[:k]
    # the feedback memories are the first pass's first min(k, prf_docs) (its answer has k); a
    # tie at that cut is read from the match after it, beyond k too (k=3 with 3 feedback
    # memories and a tie at ranks 3 and 4 let float32 rounding pick the third)
    cut = min(k, prf_docs)
    if len(first) > cut and math.isclose(first[cut - 1][1], first[cut][1], rel_tol=1e-5):
        # two memories tie at the feedback cut: float32 rounding in the kernel, not the
        # formula, decides which one feeds back, so the case says nothing about the formula
        return None
    held = {}   # feedback memories holding each term (Robertson's r)
    for nid, _ in first[:cut]:
        for t in set(stats[nid][0]):
            if t not in terms:
                held[t] = held.get(t, 0) + 1
    weighted = sorted(((c * idf(t), t) for t, c in held.items()), reverse=True)[:prf_terms]
    if not weighted or weighted[0][0] <= 0:
        return first[:k]
    qmass = sum(w for t, w in terms.items() if w > 0 and df.get(t))   # RM3: feedback weighs
    total = sum(w for w, _ in weighted)                                 # prf_weight x the query
    return bm25({**terms, **{t: prf_weight * qmass * w / total for w, t in weighted}})[:k]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_reference_matches_formula_oracle(case):
    want = _oracle(case["docs"], case["terms"], None if case["allowed"] is None else set(case["allowed"].tolist()),
                   case["k"], case["prf_docs"], case["prf_terms"], case["prf_weight"])
    assume(want is not None)
    nids, scores = _call(reference, case)
    # ids may differ only where the oracle's float64 sums tie differently from float32 rounding
    assert len(nids) == len(want)
    assert_allclose(scores, [s for _, s in want], rtol=1e-5)
    got = dict(zip(nids.tolist(), scores.tolist()))
    for nid, s in want:
        if nid not in got:   # a tie at the cut
            assert s == pytest.approx(float(scores[-1]), rel=1e-5)


def test_search_prf_hand_computed():
    """Two memories share "kiwi"; feedback from the first hit adds "mango" and finds a third."""
    idx = KeywordIndex.build([(0, "kiwi mango"), (1, "kiwi"), (2, "mango plum"), (3, "plum")])
    nids, _ = idx.search("kiwi", 10)
    assert nids.tolist() == [1, 0]   # the shorter memory first
    nids, scores = idx.search_prf("kiwi", 10, prf_docs=2, prf_terms=1, prf_weight=0.5)
    assert nids.tolist() == [0, 1, 2]
    mango_alone = idx.search_terms({tokenize("mango")[0]: 1.0}, 10)
    assert scores[2] == pytest.approx(0.5 * float(mango_alone[1][mango_alone[0].tolist().index(2)]))
    # allowed restricts what is scored but not the statistics
    only = idx.search_prf("kiwi", 10, np.array([1, 2]), prf_docs=2, prf_terms=1, prf_weight=0.5)
    assert only[0].tolist() == [1]   # feedback from memory 1 alone: "kiwi" is the query itself


@pytest.mark.parametrize("compacted", [True, False])
def test_c_agrees_with_reference_on_a_larger_skewed_corpus(rng, compacted):
    """Thousands of memories over a Zipf vocabulary (long posting lists, many ties), all in
    the segment or mostly in the delta: the C kernel equals the reference."""
    vocab = [f"w{i}x" for i in range(400)]
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    idx = KeywordIndex()
    for nid in range(3000):
        idx.add(nid, " ".join(rng.choice(vocab, size=int(rng.integers(1, 30)), p=p)))
    if compacted:
        idx.compact()
    c = load_backend("c")
    for _ in range(60):
        terms = dict.fromkeys(rng.choice(vocab, size=int(rng.integers(1, 8))).tolist(), 1.0)
        q_terms, q_weight = idx.query_terms({tokenize(t)[0]: w for t, w in terms.items()})
        for k in (1, 5, 50):
            args = (idx.postings(), q_terms, q_weight, None, k, 8, 8, 0.2)
            want, got = reference.bm25_search(*args), c.bm25_search(*args)
            assert_array_equal(got[0], want[0])
            assert_allclose(got[1], want[1], rtol=1e-6)


def test_tie_across_rank_k_keeps_the_smaller_node_ids():
    """Memories tied at rank k: KeywordIndex keeps the best scores, and among equal scores the
    smaller node ids (one kernel call, no cut over every scored memory)."""
    docs = [(nid, "kiwi mango" if nid % 3 else "kiwi") for nid in range(40)]
    idx = KeywordIndex.build(docs)
    q_terms, q_weight = idx.query_terms({"kiwi": 1.0, tokenize("mango")[0]: 1.0})
    _n, _s, all_nids, all_scores = reference.bm25_search(idx.postings(), q_terms, q_weight, None, 1, 1, 0,
                                                         0.0, True)
    best = np.lexsort((all_nids, -all_scores))   # score descending, node id ascending
    for k in (1, 5, 13, 26, 27, 39):
        nids, scores = idx.search("kiwi mango", k)
        assert nids.tolist() == all_nids[best[:k]].tolist()
        assert_allclose(scores, all_scores[best[:k]], rtol=1e-6)
        assert scores[-1] == scores[0] or k > 26   # the first 26 (the "kiwi mango" memories) tie


def _zipf_index(rng, n_docs, compacted, removals=0):
    """A KeywordIndex of ``n_docs`` memories over a Zipf vocabulary (long posting lists for the
    common terms), optionally compacted, with ``removals`` memories removed (tombstones)."""
    vocab = [f"w{i}x" for i in range(400)]
    p = 1.0 / np.arange(1, len(vocab) + 1)
    p /= p.sum()
    idx, texts = KeywordIndex(), {}
    for nid in range(n_docs):
        texts[nid] = " ".join(rng.choice(vocab, size=int(rng.integers(1, 30)), p=p))
        idx.add(nid, texts[nid])
    for nid in rng.choice(n_docs, size=removals, replace=False).tolist():
        idx.remove(nid, texts.pop(nid))
    if compacted:
        idx.compact()
    return idx, vocab


def _first_pass_kth(post, q_terms, q_weight, mask, k):
    """The k-th best first-pass score (the pruning threshold theta), or None with fewer hits."""
    _n, scores = reference.bm25_search(post, q_terms, q_weight, mask, k, 1, 0, 0.0)
    return float(scores[-1]) if len(scores) == k else None


@pytest.mark.parametrize("compacted", [True, False])
def test_c_equals_reference_bit_for_bit_where_the_feedback_pass_is_pruned(rng, compacted):
    """The pruned feedback pass (theta = k-th first-pass score; memories that cannot reach it are
    not scored) returns the reference's ids and float32 scores exactly: long feedback postings,
    delta and tombstones, allowed masks, k past the number of hits, and feedback weights that
    prune every feedback term (small) or only memory by memory (large). The cases where the
    bound alone rules out every new memory are counted, so the pruned path is known to run."""
    idx, vocab = _zipf_index(rng, 3000, compacted, removals=150)
    post = idx.postings()
    c = load_backend("c")
    n_docs = len(post.fwd_off)
    k1 = 1.2
    max_idf = float(np.log1p((post.n_docs - 0.5) / 1.5))   # idf of a term in one memory
    bound_prunes_all = 0
    for _ in range(40):
        terms = dict.fromkeys(rng.choice(vocab, size=int(rng.integers(1, 8))).tolist(), 1.0)
        q_terms, q_weight = idx.query_terms({tokenize(t)[0]: w for t, w in terms.items()})
        for masked in (False, True):
            mask = (rng.random(n_docs) < 0.5).astype(np.uint8) if masked else None
            for k in (1, 5, 50, 5000):
                for prf_terms, prf_weight in ((3, 0.02), (8, 0.2), (30, 1.0)):
                    args = (post, q_terms, q_weight, mask, k, 8, prf_terms, prf_weight)
                    want, got = reference.bm25_search(*args), c.bm25_search(*args)
                    assert_array_equal(got[0], want[0])
                    assert_array_equal(got[1], want[1])   # float32, bit for bit
                    theta = _first_pass_kth(post, q_terms, q_weight, mask, k)
                    # every feedback weight <= prf_weight, every idf <= max_idf, a part <= w idf (k1 + 1)
                    if theta is not None and prf_terms * prf_weight * max_idf * (k1 + 1) < theta:
                        bound_prunes_all += 1
    assert bound_prunes_all >= 20


def test_export_all_scores_every_memory_as_the_reference():
    """With every scored memory exported the feedback pass is not pruned: the same memories
    and float64 scores as the reference (in any order)."""
    rng = np.random.default_rng(7)
    idx, vocab = _zipf_index(rng, 800, compacted=False, removals=20)
    post = idx.postings()
    c = load_backend("c")
    for _ in range(20):
        terms = dict.fromkeys(rng.choice(vocab, size=3).tolist(), 1.0)
        q_terms, q_weight = idx.query_terms({tokenize(t)[0]: w for t, w in terms.items()})
        args = (post, q_terms, q_weight, None, 5, 4, 8, 0.2, True)
        want, got = reference.bm25_search(*args), c.bm25_search(*args)
        assert_array_equal(got[0], want[0])
        assert_array_equal(got[1], want[1])
        w_order, g_order = np.argsort(want[2]), np.argsort(got[2])
        assert_array_equal(got[2][g_order], want[2][w_order])
        assert_array_equal(got[3][g_order], want[3][w_order])


def test_feedback_ties_at_the_threshold_keep_the_smaller_node_ids():
    """Many memories tie at the k-th first-pass score; the feedback terms lift some of those
    outside the first top k: the C kernel cuts the ties as the reference does."""
    docs = [(nid, "kiwi " + ("mango" if nid % 4 == 0 else "plum" if nid % 4 == 1 else "fig")) for nid in range(60)]
    idx = KeywordIndex.build(docs)
    c = load_backend("c")
    q_terms, q_weight = idx.query_terms({"kiwi": 1.0})
    for k in (1, 3, 10, 14, 15, 16, 30, 59, 60, 61):
        for prf_docs, prf_terms, prf_weight in ((1, 1, 0.2), (3, 2, 1.0), (8, 3, 0.01)):
            args = (idx.postings(), q_terms, q_weight, None, k, prf_docs, prf_terms, prf_weight)
            want, got = reference.bm25_search(*args), c.bm25_search(*args)
            assert_array_equal(got[0], want[0])
            assert_array_equal(got[1], want[1])


def test_c_kernel_rejects_query_arrays_of_the_wrong_dtype():
    """The C wrapper reads the query arrays in place: another dtype is a ValueError, not a
    silent reinterpretation."""
    idx = KeywordIndex.build([(0, "kiwi mango"), (1, "kiwi")])
    c = load_backend("c")
    q_terms, q_weight = idx.query_terms({"kiwi": 1.0})
    with pytest.raises(ValueError, match="q_terms"):
        c.bm25_search(idx.postings(), q_terms.astype(np.int64), q_weight, None, 5, 1, 0, 0.0)
    with pytest.raises(ValueError, match="q_weight"):
        c.bm25_search(idx.postings(), q_terms, q_weight.astype(np.float32), None, 5, 1, 0, 0.0)
    with pytest.raises(ValueError, match="allowed"):
        c.bm25_search(idx.postings(), q_terms, q_weight, np.ones(2, np.int64), 5, 1, 0, 0.0)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_feedback_gain_is_bounded_by_a_share_of_the_query(case):
    """RM3's interpolation: the feedback terms together weigh prf_weight x the query's weight,
    so no memory gains more than prf_weight x query weight x the largest BM25 term part
    (idf (k1 + 1)), however many feedback terms it repeats (weighting each term by the best
    one's share let a long memory gain up to prf_terms times that)."""
    idx = case["idx"]
    p = idx.postings()
    q_terms, q_weight = idx.query_terms(case["terms"])
    args = (p, q_terms, q_weight, None, case["k"], case["prf_docs"])
    _n, _s, nid0, s0 = reference.bm25_search(*args, 0, 0.0, True)
    _n, _s, nid1, s1 = reference.bm25_search(*args, case["prf_terms"], case["prf_weight"], True)
    before = dict(zip(nid0.tolist(), s0.tolist()))
    df = np.asarray(p.df)
    if p.n_docs == 0 or not (df > 0).any():
        return
    max_part = max(math.log1p((p.n_docs - m + 0.5) / (m + 0.5)) for m in df[df > 0].tolist()) * (float(p.k1) + 1)
    qmass = sum(w for t, w in zip(np.asarray(q_terms).tolist(), np.asarray(q_weight).tolist())
                if w > 0 and 0 <= t < len(df) and df[t] > 0)
    bound = case["prf_weight"] * qmass * max_part * (1 + 1e-9) + 1e-12
    for nid, s in zip(nid1.tolist(), s1.tolist()):
        assert s - before.get(nid, 0.0) <= bound
