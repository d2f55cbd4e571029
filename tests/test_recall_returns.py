"""What recall returns at its limits: a large k among near-duplicates, selective filters, ties."""
from __future__ import annotations

import numpy as np
import pytest

import engramdb


@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "s", dim=384, embedder="hashing") as m:
        yield m


@pytest.mark.parametrize("n,k", [(162, 162), (300, 250), (40, 500)])
def test_a_large_k_among_near_duplicates_returns_what_exists(mem, n, k):
    mem.add_batch([{"text": f"apple {i}"} for i in range(n)])
    hits = mem.recall("apple", k=k, reinforce=False).hits
    assert len(hits) == min(n, k)
    assert len({h.id for h in hits}) == len(hits)


def test_a_large_k_by_vector_and_in_a_batch(mem):
    ids = mem.add_batch([{"text": f"apple {i}"} for i in range(162)])
    v = mem.get(ids[0], with_embedding=True).embedding
    assert len(mem.recall(vector=v, k=162, reinforce=False).hits) == 162
    assert [len(r.hits) for r in mem.recall_batch(["apple", "apple 7"], k=162, reinforce=False)] == [162, 162]


FILLER = [{"text": f"Bought apples at the market on day {i}", "kind": "episodic", "tags": ["shop"],
           "confidence": 0.5, "created_at": 1_700_000_000 + i} for i in range(50)]
FACT = {"text": "Apples are a kind of fruit", "kind": "semantic", "tags": ["fact"], "confidence": 0.9,
        "created_at": 1_600_000_000, "id": "fact"}


@pytest.mark.parametrize("filters", [
    {"kinds": ["semantic"]},
    {"tags": ["fact"]},
    {"min_confidence": 0.9},
    {"until": 1_650_000_000},
    {"kinds": "semantic", "tags": ["fact"], "min_confidence": 0.8},
])
def test_a_selective_filter_finds_the_memory_that_qualifies(mem, filters):
    mem.add_batch(FILLER + [FACT])
    r = mem.recall("apples market", k=5, reinforce=False, **filters)
    assert [h.id for h in r.hits] == ["fact"]
    assert [g.reason for g in r.gaps if g.reason == "filtered_out"] == []


def test_a_filter_nothing_passes_still_says_filtered_out(mem):
    mem.add_batch(FILLER)
    r = mem.recall("apples market", k=5, kinds=["procedural"], reinforce=False)
    # filtered_out alone: "no memory matched" (weak_evidence) would contradict it
    assert r.hits == [] and [g.reason for g in r.gaps] == ["filtered_out"]
    then = mem.recall("apples market", k=5, as_of="2000-01-01", reinforce=False)   # before every record
    assert then.hits == [] and [g.reason for g in then.gaps] == ["empty_namespace"]   # it held nothing then


def test_a_filter_keeps_k_when_enough_qualify(mem):
    mem.add_batch(FILLER + [FACT])
    r = mem.recall("apples market", k=5, tags=["shop"], reinforce=False)
    assert len(r.hits) == 5 and all("shop" in h.tags for h in r.hits)


def test_exact_ties_keep_insertion_order_in_recall_and_query(mem):
    v = np.zeros(384, np.float32)
    v[0] = 1.0
    for i in range(4):
        mem.add(f"twin number {i}", id=f"t{i}", embedding=v, created_at=1_700_000_000)
    recalled = [h.id for h in mem.recall(vector=v, k=4, reinforce=False).hits]
    queried = [m.id for m in mem.query(limit=4)]
    assert recalled == queried == ["t0", "t1", "t2", "t3"]


# ---------------------------------------------------------------- the first hits do not depend on k
TRIP = ["Booked the train to Porto for the conference.", "The Porto hotel is near the river.",
        "Conference talk is on Thursday afternoon.", "Need to print the boarding pass.",
        "Marta recommended a restaurant in Porto.", "The slides for the talk are almost done.",
        "Train leaves Lisbon at 8:05.", "Bought a new suitcase for the trip.", "Porto weather: rain all week.",
        "Reminder: pack the laptop charger.", "The conference dinner is at the wine cellar.",
        "Asked Rui to water the plants.", "Hotel check-in is after 3 pm.", "Flight back is cancelled; train instead.",
        "Lunch with the organisers on Friday."]


def test_the_first_hits_are_the_same_for_every_k(mem):
    rng = np.random.default_rng(3)
    words = " ".join(TRIP).lower().replace(".", "").replace(":", "").replace(";", "").split()
    texts = TRIP + [" ".join(rng.choice(words, 8)) for _ in range(120)]
    ids = mem.add_batch([{"text": t} for t in texts])
    mem.link_batch([(a, b, "next") for a, b in zip(ids, ids[1:])])
    for q in ("train to Porto", "when is my talk?", "hotel near the river", "what should I pack?",
              "conference dinner", "who waters the plants?"):
        full = [h.id for h in mem.recall(q, k=40, reinforce=False).hits]
        for k in (1, 3, 5, 10, 20):
            assert [h.id for h in mem.recall(q, k=k, reinforce=False).hits] == full[:k], (q, k)


def test_a_recall_that_reaches_fewer_than_k_is_filled_by_the_next_nearest(mem):
    ids = mem.add_batch([{"text": t} for t in TRIP])
    v = mem.get(ids[0], with_embedding=True).embedding
    cfg = engramdb.RecallConfig(cosine_floor=-1.0, w_graph=0.0)   # no floor; the seeds alone are reached
    hits = mem.recall(vector=v, k=15, reinforce=False, config=cfg).hits
    assert len(hits) == 15 and len({h.id for h in hits}) == 15
    scored = [h for h in hits if h.score > 0]
    tail = hits[len(scored):]
    assert len(scored) == cfg.seed_k and tail
    assert all(h.score == 0.0 and [s.id for s in h.path] == [h.id] for h in tail)
    sims = [h.similarity for h in tail]
    assert sims == sorted(sims, reverse=True)                          # nearest first
    assert max(sims) <= min(h.similarity for h in scored) + 1e-6      # after every seed


def test_stage_times_account_for_the_recall(mem):
    ids = mem.add_batch([{"text": f"Bought apples at the market on day {i}"} for i in range(30)])
    for kwargs in ({}, {"kinds": ["semantic"]}, {"vector": mem.get(ids[0], with_embedding=True).embedding}):
        res = mem.recall("apples at the market", k=5, reinforce=False, **kwargs)
        stage_s = res.stats["stage_s"]
        assert list(stage_s) == ["prepare", "seeds", "activation", "ranking", "results", "widen"]
        assert all(t >= 0.0 for t in stage_s.values())
        assert stage_s["prepare"] > 0.0 and stage_s["seeds"] > 0.0 and stage_s["results"] > 0.0
        assert sum(stage_s.values()) == pytest.approx(res.latency_s, rel=1e-9, abs=1e-9)


def test_a_tag_filter_reads_the_unfiltered_order(mem):
    """Ranking blends only the candidates that can reach the first places (ranking.wanted); a
    tag filter that drops most of them reads further down the same order: its hits are the
    unfiltered ranking's tagged memories, in that order, with the same scores."""
    rng = np.random.default_rng(5)
    words = " ".join(TRIP).lower().replace(".", "").replace(":", "").replace(";", "").split()
    texts = TRIP + [" ".join(rng.choice(words, 8)) for _ in range(150)]
    items = [{"text": t, "salience": float(rng.uniform(0.05, 1.0)), "confidence": float(rng.uniform(0.1, 1.0)),
              "tags": ["rare"] if i % 11 == 5 else []} for i, t in enumerate(texts)]
    ids = mem.add_batch(items)
    mem.link_batch([(a, b, "next") for a, b in zip(ids, ids[1:])])
    tagged = {ids[i] for i in range(len(ids)) if i % 11 == 5}
    for q in ("train to Porto", "hotel near the river", "what should I pack?", "conference dinner"):
        full = mem.recall(q, k=len(ids), reinforce=False, now=1.8e9).hits
        want = [(h.id, h.score) for h in full if h.id in tagged]
        for k in (1, 3, 6):
            got = mem.recall(q, k=k, tags=["rare"], reinforce=False, now=1.8e9).hits
            assert len(got) == k
            assert [(h.id, h.score) for h in got] == want[:k], (q, k)


def test_an_empty_answer_says_when_archived_memories_were_not_searched(mem):
    # a rescore archived a whole chat; recall then said only "no memory matched" (fresh-user pass)
    mem.add("My daughter Mia is allergic to peanuts.", id="mia")
    mem.add("I work as a nurse.", id="job")
    mem.forget("mia")
    mem.forget("job")
    r = mem.recall("Is Mia allergic to anything?", reinforce=False)
    assert r.hits == [] and [g.reason for g in r.gaps] == ["weak_evidence"]
    assert "holds 2 archived memories, which recall does not search: include_archived=True does" in r.gaps[0].detail
    shown = mem.recall("Is Mia allergic to anything?", include_archived=True, reinforce=False)
    assert shown.hits[0].id == "mia" and "archived" not in " ".join(g.detail for g in shown.gaps)
