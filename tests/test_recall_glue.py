"""Recall's glue computed in batches must give what the plain per-item formulas give.

- relevance features of all hits at once equal a loop over the hits (BM25 share and coverage
  per memory, as DESIGN.md's relevance is defined), exactly, below and above 8 query terms;
- a path step over a hub row (longer than the list-scan cut) names the strongest edge;
- a whole recall on a seeded random store: the hits come best first, each hit's relevance is
  the calibrated features recomputed from scratch (BM25 statistics of the namespace's texts,
  stored vectors), each path step is the strongest edge joining its two memories, and the
  weak-evidence gap is there exactly when the best relevance is below the threshold.
"""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.config import RELEVANCE_CALIBRATION
from engramdb.graph.csr import build_symmetric_csr
from engramdb.index.keyword import KeywordIndex
from engramdb.index.tokens import index_terms, tokenize
from engramdb.recall.results import cosine_relevance, path_of, relevance, relevance_features, relevance_of_rows
from engramdb.testing import graph_edges, nid_of
from engramdb.types import RELATION_BY_CODE

WORDS = ["alpha", "beta", "gamma", "delta", "paris", "berlin", "painting", "sunrise", "hiking", "trip",
         "museum", "violin", "garden", "recipe", "camera", "novel", "2023", "may", "river", "tennis"]
text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)


def features_one_by_one(query, texts, cos, kw):
    """The relevance features memory by memory (tokenizing each text): the reference."""
    out = np.zeros((len(texts), 3))
    out[:, 0] = np.clip(np.asarray(cos, np.float64), 0.0, 1.0)
    terms = list(dict.fromkeys(tokenize(query))) if query else []
    if not terms or not texts:
        return out
    unseen = float(np.log1p((kw.n_docs + 0.5) / 0.5))
    idf = np.array([kw.idf(t) or unseen for t in terms])
    avgdl = max(kw.total_len / kw.n_docs, 1e-9) if kw.n_docs else 1.0
    for i, t in enumerate(texts):
        toks, length = index_terms(t)
        tf = np.array([toks.count(term) for term in terms], np.float64)
        norm = kw.k1 * (1.0 - kw.b + kw.b * float(length) / avgdl)
        out[i, 1] = float(np.sum(idf * tf * (kw.k1 + 1.0) / (tf + norm))) / (float(idf.sum()) * (kw.k1 + 1.0))
        out[i, 2] = float(np.sum(idf[tf > 0])) / float(idf.sum())
    return np.clip(out, 0.0, 1.0)


@settings(max_examples=80, deadline=None)
@given(docs=st.lists(text, min_size=1, max_size=25), hits=st.lists(st.integers(0, 24), min_size=1, max_size=12),
       query=st.lists(st.sampled_from(WORDS + ["unseen", "words"]), min_size=0, max_size=14).map(" ".join))
def test_relevance_features_of_all_hits_equal_a_loop_over_them(docs, hits, query):
    kw = KeywordIndex.build(list(enumerate(docs)))
    nids = [h % len(docs) for h in hits]
    texts = [docs[n] for n in nids]
    cos = np.linspace(-0.2, 1.1, len(nids)).astype(np.float32)
    want = features_one_by_one(query or None, texts, cos, kw)
    np.testing.assert_array_equal(relevance_features(query or None, texts, cos, kw, nids=nids), want)
    np.testing.assert_array_equal(relevance_features(query or None, texts, cos, kw), want)
    counted = []
    for t in texts:   # as recall's record cache keeps them: index terms counted, and the length
        toks, length = index_terms(t)
        counted.append(({w: toks.count(w) for w in toks}, length))
    np.testing.assert_array_equal(relevance_features(query or None, texts, cos, kw, term_counts=counted), want)


@pytest.mark.parametrize("hub_edges", [70, 200])
def test_path_step_over_a_hub_row_names_the_strongest_edge(rng, hub_edges):
    n = hub_edges + 3
    leaves = np.arange(1, hub_edges + 1, dtype=np.uint32)
    # nodes 0 and n-1: two hubs, each with a row beyond the list-scan cut (either row is long),
    # joined twice (two relations)
    src = np.concatenate([np.zeros(hub_edges), np.full(hub_edges, n - 1), [n - 1, 0, n - 1]]).astype(np.uint32)
    tgt = np.concatenate([leaves, leaves, [0, n - 1, 1]]).astype(np.uint32)
    rel = rng.integers(0, len(RELATION_BY_CODE), len(src)).astype(np.uint8)
    rel[-3], rel[-2] = 1, 2
    w = rng.choice(np.array([0.25, 0.5, 1.0], np.float32), len(src))
    w[-3], w[-2] = 0.5, 1.0
    csr = build_symmetric_csr(src, tgt, rel, w, n)
    mult = np.ones(len(RELATION_BY_CODE), np.float32)
    # the chain seed -> hit, in both directions
    for seed, hit in ((0, n - 1), (n - 1, 0)):
        nodes = np.array([seed, hit], np.int32)
        parent = np.array([-1, seed], np.int32)
        pos = np.zeros(n, np.int32)
        pos[nodes] = [0, 1]
        ids = [f"m{i}" for i in range(n)]
        steps = path_of(hit, parent, pos, csr, mult, ids)
        assert [s.id for s in steps] == [f"m{seed}", f"m{hit}"]
        # the strongest edge is (0 -> n-1, relation 2, weight 1.0): forward when the seed is 0
        assert steps[1].relation == RELATION_BY_CODE[2]
        assert steps[1].forward == (seed == 0)


def test_recall_output_equals_a_recomputation_from_scratch(tmp_store, rng):
    n, dim = 300, 32
    docs = [" ".join(rng.choice(WORDS, rng.integers(3, 12))) for _ in range(n)]
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    items = []
    for i in range(n):
        item = {"id": f"m{i}", "text": docs[i], "embedding": vecs[i], "created_at": 1.6e9 + 3600.0 * i}
        links = [{"to": f"m{j}", "relation": str(rng.choice(["related_to", "supports", "caused_by", "next"])),
                  "weight": float(rng.choice([0.4, 0.7, 1.0]))}
                 for j in set(rng.integers(0, i, 3).tolist())] if i else []
        if links:
            item["links"] = links
        items.append(item)
    with engramdb.open(tmp_store, dim=dim) as db:
        db.add_batch(items, namespace="ns")
        db.add_batch([{"id": "mx", "text": "paris violin paris", "embedding": vecs[0]}], namespace="other")
        nid = {f"m{i}": nid_of(db, f"m{i}", "ns") for i in range(n)}
        by_nid = {v: k for k, v in nid.items()}
        kw = KeywordIndex.build([(nid[f"m{i}"], docs[i]) for i in range(n)])
        src, tgt, rel, w = graph_edges(db)
        mult = db.config.recall.rel_mult
        edges: dict[frozenset, list] = {}
        for s, t, r, x in zip(src.tolist(), tgt.tolist(), rel.tolist(), w.tolist()):
            edges.setdefault(frozenset((by_nid[s], by_nid[t])), []).append((s, r, x))
        for q in range(25):
            words = rng.choice(WORDS + ["unseen"], rng.integers(1, 10))
            query = " ".join(words)
            qv = rng.standard_normal(dim).astype(np.float32)
            qv /= np.linalg.norm(qv)
            for k in (1, 10, 40):
                res = db.recall(query, vector=qv, namespace="ns", k=k, now=1.7e9)
                assert 0 < len(res.hits) <= k
                scores = [h.score for h in res.hits]
                assert scores == sorted(scores, reverse=True)
                assert all(h.id.startswith("m") for h in res.hits)
                idx = [int(h.id[1:]) for h in res.hits]
                qn = qv.astype(np.float64)
                qn = (qn / np.linalg.norm(qn)).astype(np.float32)
                feats = features_one_by_one(query, [docs[i] for i in idx], vecs[idx] @ qn, kw)
                want = relevance(feats, RELEVANCE_CALIBRATION["hashing"][0])   # the hashing embedder's
                np.testing.assert_allclose([h.relevance for h in res.hits], want, rtol=0, atol=1e-6)
                weak = any(g.reason == "weak_evidence" for g in res.gaps)
                assert weak == (max(h.relevance for h in res.hits) < res.stats["relevance_threshold"])
                for h in res.hits:
                    assert h.path[-1].id == h.id and h.path[0].relation is None
                    for a, b in zip(h.path, h.path[1:]):
                        joined = edges[frozenset((a.id, b.id))]
                        best = max((float(np.float32(x)) * float(mult[r]), (s == nid[a.id]), -r) for s, r, x in joined)
                        assert (b.relation, b.forward) == (RELATION_BY_CODE[-best[2]], best[1])


def test_a_contradicts_edge_linked_after_a_recall_is_warned_about(tmp_store, rng):
    vecs = rng.standard_normal((6, 16)).astype(np.float32)
    q = vecs[0] + 0.1 * vecs[1]
    with engramdb.open(tmp_store, dim=16) as db:
        db.add_batch([{"id": f"m{i}", "text": f"fact number {i}", "embedding": vecs[i]} for i in range(6)])
        db.link("m0", "m2", "supports")
        first = db.recall("fact", vector=q, k=6)   # the graph has no contradicts edge yet
        assert first.warnings == []
        db.link("m1", "m0", "contradicts")
        again = db.recall("fact", vector=q, k=6)
        assert [(w.source, w.target) for w in again.warnings] == [("m1", "m0")]
        db.link("m3", "m4", "related_to")   # a new graph again: the pair is still found
        assert [(w.source, w.target) for w in db.recall("fact", vector=q, k=6).warnings] == [("m1", "m0")]


def _recall_rows(res):
    return [(h.id, h.chunk, h.kind, h.text, h.score, h.activation, h.similarity, tuple(h.path), h.source, h.tags,
             h.created_at, h.confidence, h.state, h.relevance, h.outcome) for h in res.hits], res.gaps


def test_a_repeated_recall_answers_as_the_first_and_a_commit_shows_at_once(tmp_store, rng):
    """Recall keeps the decoded records of its hits and its path steps between calls
    (``state.record_cache``, the thread's step table): the second answer equals the first, and
    an update, a re-link with another weight and an erase committed in between show in the next
    answer exactly as in a fresh engine's."""
    n, dim = 40, 16
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    # a chain m0 - m1 - ... - m39 (related_to, 0.5); the query is m0's vector: hits reach m0 over the chain
    items = [{"id": f"m{i}", "text": f"note {i}", "embedding": vecs[i], "tags": [f"t{i % 3}"],
              "created_at": 1.6e9 + 60.0 * i,
              **({"links": [{"to": f"m{i - 1}", "relation": "related_to", "weight": 0.5}]} if i else {})}
             for i in range(n)]

    def ask(db):
        cfg = replace(db.config.recall, seed_k=1, keyword_k=1)   # one seed: the other hits come through the graph
        return _recall_rows(db.recall(vector=vecs[0], namespace="ns", k=3, gate="on", now=1.7e9, config=cfg))

    def ask_text(db):   # the keyword features of relevance read the cached rows' term counts
        return _recall_rows(db.recall("note one rewritten", vector=vecs[0], namespace="ns", k=5, now=1.7e9))

    with engramdb.open(tmp_store, dim=dim) as db:
        db.add_batch(items, namespace="ns")
        before = ask_text(db)
        first = ask(db)
        assert [row[0] for row in first[0]] == ["m0", "m1", "m2"]
        assert [s.relation.value for s in first[0][1][7][1:]] == ["related_to"]
        assert ask(db) == first
        db.update("m1", namespace="ns", text="note one rewritten", tags=["changed"])
        db.link("m1", "m0", "supports", weight=1.0, namespace="ns")      # a stronger edge on the step m0 -> m1
        db.link("m2", "m1", "related_to", weight=1.0, namespace="ns")    # a link repeated with another weight
        after = ask(db)
        by_id = {row[0]: row for row in after[0]}
        assert by_id["m1"][3] == "note one rewritten" and by_id["m1"][9] == ("changed",)
        assert [s.relation.value for s in by_id["m1"][7][1:]] == ["supports"]
        assert ask(db) == after
        db.link("m1", "m0", "supports", weight=0.1, namespace="ns")   # weights alone change: related_to is stronger
        by_id = {row[0]: row for row in ask(db)[0]}
        assert [s.relation.value for s in by_id["m1"][7][1:]] == ["related_to"]
        db.forget("m2", namespace="ns", hard=True)
        gone = ask(db)
        assert "m2" not in {row[0] for row in gone[0]}
        text_after = ask_text(db)
        assert "m1" in {row[0] for row in text_after[0]} and text_after != before
    with engramdb.open(tmp_store, dim=dim) as fresh:   # nothing cached: read from LMDB
        assert ask(fresh) == gone
        assert ask_text(fresh) == text_after


@settings(max_examples=200, deadline=None)
@given(cos=st.lists(st.floats(-1.5, 1.5, width=32), min_size=0, max_size=30),
       coef=st.tuples(*[st.floats(-20.0, 20.0)] * 4))
def test_relevance_from_the_cosine_alone_equals_the_feature_formula(cos, coef):
    """A recall without text rates its hits by ``cosine_relevance``: ``relevance`` of the features
    (cosine, 0, 0) in plain floats."""
    feats = np.zeros((len(cos), 3))
    feats[:, 0] = np.clip(np.array(cos, np.float32).astype(np.float64), 0.0, 1.0)
    want = relevance(feats, coef)
    got = cosine_relevance([float(np.float32(x)) for x in cos], coef)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-300)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(*[st.floats(0.0, 1.0)] * 3), min_size=0, max_size=30),
       coef=st.tuples(*[st.floats(-20.0, 20.0)] * 4))
def test_relevance_of_plain_rows_equals_the_array_formula(rows, coef):
    """Recall rates its hits' feature rows in plain floats (``relevance_of_rows``): the same
    logistic as ``relevance`` of the array, up to the last bit of ``exp``."""
    want = relevance(np.array(rows, np.float64).reshape(-1, 3), coef)
    got = relevance_of_rows(rows, coef)
    assert len(got) == len(rows)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-300)
