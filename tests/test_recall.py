"""Recall semantics: seeds, density gate, spreading, paths, filters, gaps, reinforcement."""
from dataclasses import replace

import numpy as np
import pytest

import engramdb
from engramdb import MemoryKind, RecallConfig, Relation
from engramdb.index import ExactIndex, HnswIndex

from .conftest import unit_vectors

DIM = 32


@pytest.fixture
def chain(tmp_store, rng):
    """q-like seed s, then s -supports-> a -caused_by-> b, s -contradicts-> c, plus noise."""
    vecs = unit_vectors(rng, 40, DIM)
    no_link = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))
    eng = engramdb.open(tmp_store, dim=DIM, config=no_link)
    items = [{"id": f"n{i}", "text": f"noise {i}", "embedding": v, "created_at": 1000.0 + i,
              "kind": "semantic" if i % 2 else "episodic", "tags": ["even"] if i % 2 == 0 else ["odd"],
              "confidence": 0.5 if i < 5 else 1.0} for i, v in enumerate(vecs)]
    eng.add_batch(items)
    eng.link("n0", "n1", Relation.SUPPORTS)
    eng.link("n1", "n2", Relation.CAUSED_BY)
    eng.link("n0", "n3", Relation.CONTRADICTS)
    yield eng, vecs
    eng.close()


def test_seed_is_nearest_and_paths_explain_hits(chain):
    eng, vecs = chain
    res = eng.recall(vector=vecs[0], k=40, gate="on", config=RecallConfig(cosine_floor=0.99))
    assert res.mode == "spread"
    assert res.hits[0].id == "n0" and res.hits[0].similarity == pytest.approx(1.0, abs=1e-5)
    by_id = {h.id: h for h in res.hits}
    assert [(s.id, s.relation, s.forward) for s in by_id["n2"].path] == [
        ("n0", None, True), ("n1", Relation.SUPPORTS, True), ("n2", Relation.CAUSED_BY, True)]
    assert by_id["n1"].similarity is None     # reached through the graph, not a seed


def test_contradicts_carries_nothing(chain):
    eng, vecs = chain
    cfg = RecallConfig(seed_k=1, cosine_floor=0.99)
    res = eng.recall(vector=vecs[0], k=10, gate="on", config=cfg)
    ids = [h.id for h in res.hits]
    assert ids[:2] == ["n0", "n1"] and "n2" in ids and "n3" not in ids


def test_density_gate_modes(chain):
    eng, vecs = chain
    cfg = RecallConfig(seed_k=1, cosine_floor=0.99)
    assert eng.stats()["namespaces"]["default"]["density"] == pytest.approx(3 / 4)
    auto = eng.recall(vector=vecs[0], config=cfg)
    assert auto.mode == "one_hop" and [h.id for h in auto.hits] == ["n0", "n1"]
    on = eng.recall(vector=vecs[0], config=replace(cfg, w_graph=1.0, inflow_fan_exp=0.5), gate="on")
    assert [h.id for h in on.hits] == ["n0", "n1", "n2"]
    # the activation numbers follow the formula: 1 * w * mult * decay * fan (w_graph = 1: a
    # memory reached only through the graph scores its strongest inflow)
    mult = RecallConfig().relation_multipliers
    a1 = 1.0 * 1.0 * mult[Relation.SUPPORTS] * 0.5 * 2 ** -0.5     # n0 has 2 edges
    a2 = a1 * mult[Relation.CAUSED_BY] * 0.5 * 2 ** -0.5              # n1 has 2 edges
    acts = {h.id: h.activation for h in on.hits}
    assert acts["n1"] == pytest.approx(a1, rel=1e-5) and acts["n2"] == pytest.approx(a2, rel=1e-5)
    three = eng.recall(vector=vecs[0], config=replace(cfg, w_graph=3.0, inflow_fan_exp=0.5), gate="on")
    assert {h.id: h.activation for h in three.hits}["n1"] == pytest.approx(3 * a1, rel=1e-5)
    # the default lateral pass has no fan: the same in both directions of an edge
    sym = eng.recall(vector=vecs[0], config=cfg, gate="on")
    assert {h.id: h.activation for h in sym.hits}["n1"] == pytest.approx(
        RecallConfig().w_graph * mult[Relation.SUPPORTS] * 0.5, rel=1e-5)
    low = eng.recall(vector=vecs[0], config=RecallConfig(seed_k=1, cosine_floor=0.99, density_threshold=0.5))
    assert low.mode == "spread"


def test_filters(chain):
    eng, vecs = chain
    q = vecs[0]
    assert all(h.kind is MemoryKind.SEMANTIC for h in eng.recall(vector=q, k=40, kinds=["semantic"]).hits)
    assert all("odd" in h.tags for h in eng.recall(vector=q, k=40, tags=["odd"]).hits)
    assert all(h.confidence >= 0.9 for h in eng.recall(vector=q, k=40, min_confidence=0.9).hits)
    res = eng.recall(vector=q, k=40, since=1010.0, until=1019.0, config=RecallConfig(seed_k=40, cosine_floor=-1.0))
    assert sorted(h.created_at for h in res.hits) == [1010.0 + i for i in range(10)]
    assert len(eng.recall(vector=q, k=3, config=RecallConfig(seed_k=40, cosine_floor=-1.0)).hits) == 3
    empty = eng.recall(vector=q, tags=["no-such-tag"])
    assert empty.hits == [] and [g.reason for g in empty.gaps] == ["filtered_out"]


def test_weak_evidence_gap(chain, rng):
    eng, vecs = chain
    strong = eng.recall(vector=vecs[0])
    assert strong.gaps == []
    far = -vecs.mean(axis=0)  # points away from everything stored
    weak = eng.recall(vector=far, config=RecallConfig(weak_evidence=0.5))
    assert weak.gaps and weak.gaps[0].reason == "weak_evidence"
    assert weak.gaps[0].best_similarity is None or weak.gaps[0].best_similarity < 0.5


def test_reinforce_raises_salience(chain):
    eng, vecs = chain
    now = 2_000_000_000.0
    before = eng.salience("n0", now=now)
    eng.recall(vector=vecs[0], k=1, reinforce=True, now=now)
    after = eng.salience("n0", now=now)
    assert after == pytest.approx(before + 0.1 * (1 - before), rel=1e-5)
    assert eng.get("n0").access_count == 1


def test_salience_halves_per_half_life(chain):
    eng, _ = chain
    m = eng.get("n0")   # episodic: 14 days
    h = eng.config.decay.half_life_s[MemoryKind.EPISODIC]
    assert eng.salience("n0", now=m.salience_at + h) == pytest.approx(m.salience / 2, rel=1e-5)


@pytest.mark.parametrize("n", [1, 7, 1024])
def test_hnsw_matches_exact(rng, n):
    dim = 32
    vecs = unit_vectors(rng, n, dim)
    hn, ex = HnswIndex(dim, capacity=4), ExactIndex(dim)
    labels = np.arange(n) * 3
    hn.add(vecs, labels)
    ex.add(vecs, labels)
    queries = unit_vectors(rng, 50, dim)
    k = min(10, n)
    found = sum(len(set(hn.knn(q, k)[0]) & set(ex.knn(q, k)[0])) for q in queries)
    assert found / (k * len(queries)) >= 0.95
    l_ex, s_ex = ex.knn(queries[0], k)
    assert np.all(np.diff(s_ex) <= 1e-7) and s_ex[0] == pytest.approx(float(np.max(vecs @ queries[0])), rel=1e-5)
