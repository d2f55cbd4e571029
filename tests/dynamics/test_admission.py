"""A-MAC admission control: factors, one kernel call per batch, reject / admit / reinforce, shadow mode."""
import numpy as np
import pytest

import engramdb
from engramdb import errors
from engramdb.config import AdmissionConfig
from engramdb.dynamics import admission as adm
from engramdb.dynamics.admission import heuristic_utility
from engramdb.kinds import is_phatic
from engramdb.kernels.reference import ADMISSION_FACTORS
from engramdb.testing import columns, store_digest

from .conftest import T0, basis, unit

W = np.array([0.25, 0.15, 0.20, 0.10, 0.30])


def test_default_weights_follow_amac_order():
    cfg = AdmissionConfig()
    assert cfg.weights.tolist() == pytest.approx(W.tolist())
    assert cfg.threshold == 0.55
    assert ADMISSION_FACTORS == ("future_utility", "factual_confidence", "semantic_novelty",
                                 "temporal_recency", "content_type_prior")


def test_heuristic_utility_ranks_specific_over_phatic():
    u = heuristic_utility(["User: lol ok", "thanks!", "I booked TAP flight TP 218 to Lisbon on May 14",
                           "Caroline: I am allergic to peanuts", "ok we talked"])
    assert u.dtype == np.float32
    assert max(u[0], u[1], u[4]) <= np.float32(0.1)
    assert u[2] == pytest.approx(1.0)              # 0.2 + 0.45 (3+ specifics) + 0.05*5 + 0.2 (booked)
    assert u[3] == pytest.approx(0.2 + 0.05 * 2 + 0.2)   # content "allergic", "peanuts"; cue "allergic"
    assert is_phatic("Melanie: Thanks, Mel!") and is_phatic("ok cool") and not is_phatic("Mel: see you at 5")


def test_factors_score_and_decisions(eng):
    eng.add("lol ok haha", id="old-phatic", embedding=basis(0), created_at=T0 - 100)
    eng.add("Ana's wedding is in Lisbon", id="wedding", embedding=basis(5), kind="semantic", created_at=T0 - 100)
    phatic_vec = unit(0.6 * basis(0) + 0.8 * basis(1))        # cosine 0.6 to old-phatic
    cands = [
        {"id": "c-phatic", "text": "lol ok", "embedding": phatic_vec, "created_at": T0},
        {"id": "c-fact", "text": "I booked TAP flight TP 218 to Lisbon on May 14", "embedding": basis(2),
         "created_at": T0 - 7 * 86400, "kind": "semantic"},
        {"id": "c-hedged", "text": "maybe the hotel has a pool", "embedding": basis(3),
         "confidence": 0.8, "kind": "working", "created_at": T0},
    ]
    out = eng.admit_batch(cands, now=T0)
    assert [d.id for d in out] == ["c-phatic", "c-fact", "c-hedged"]
    u = heuristic_utility([c["text"] for c in cands])
    expected = np.array([
        [u[0], 1.0, 1 - 0.6, 1.0, 0.2],              # phatic: type prior capped at 0.2
        [u[1], 1.0, 1.0, 0.5, 0.8],                  # a week old: half the recency
        [u[2], 0.8 * 0.7, 1.0, 1.0, 0.2],            # hedged: confidence x 0.7; working prior 0.2
    ])
    for d, row in zip(out, expected):
        assert [d.factors[f] for f in ADMISSION_FACTORS] == pytest.approx(row.tolist(), abs=1e-5)
        assert d.score == pytest.approx(float(row @ W), abs=1e-5)
        assert d.decision == ("admit" if row @ W >= 0.55 else "reject")
        assert d.stored == (d.decision == "admit")
    assert out[0].decision == "reject" and out[1].decision == "admit"
    assert out[0].nearest == "old-phatic" and out[0].nearest_cosine == pytest.approx(0.6, abs=1e-5)
    assert "threshold" in out[0].reason
    ids = {h.id for h in eng.recall(vector=basis(2), k=10, config=engramdb.RecallConfig(cosine_floor=-1)).hits}
    assert "c-fact" in ids and "c-phatic" not in ids
    with pytest.raises(errors.MemoryNotFoundError):
        eng.get("c-phatic")
    log = eng.dynamics_log(action="admission_reject")
    assert [e["id"] for e in log] == [d.id for d in out if d.decision == "reject"]
    assert log[0]["text"] == "lol ok" and log[0]["factors"]["semantic_novelty"] == pytest.approx(0.4, abs=1e-5)


def test_one_kernel_call_per_batch(eng, monkeypatch):
    calls = []
    real_get = adm.registry.get

    def spy(name):
        fn = real_get(name)
        if name != "admission_score":
            return fn

        def wrapped(features, weights, threshold):
            calls.append(features.shape)
            return fn(features, weights, threshold)
        return wrapped

    monkeypatch.setattr(adm.registry, "get", spy)
    cands = [{"text": f"fact number {i} about Lisbon", "embedding": basis(i)} for i in range(7)]
    eng.admit_batch(cands, now=T0)
    assert calls == [(7, 5)]


def test_near_duplicate_reinforces_instead_of_adding(eng):
    eng.add("We fly to Lisbon on TAP flight TP 218", id="flight", embedding=basis(0), created_at=T0)
    s_before = eng.salience("flight", now=T0 + 3600)
    dup = unit(basis(0) + 0.1 * basis(1))                     # cosine 0.995
    out = eng.admit_batch([{"id": "again", "text": "we fly to Lisbon on TAP flight TP 218",
                            "embedding": dup}], now=T0 + 3600)
    d = out[0]
    assert d.decision == "reinforce" and d.target == "flight" and not d.stored
    assert eng.stats()["memories"] == 1
    m = eng.get("flight")
    assert m.access_count == 1 and m.last_access == T0 + 3600
    assert eng.salience("flight", now=T0 + 3600) == pytest.approx(s_before + 0.1 * (1 - s_before), rel=1e-5)
    assert eng.dynamics_log(action="admission_reinforce")[0]["target"] == "flight"


@pytest.mark.parametrize("text,change", [
    ("We fly to Lisbon on TAP flight TP 219", "number"),
    ("We fly to Porto on TAP flight TP 218", "name"),
    ("We don't fly to Lisbon on TAP flight TP 218", "negation"),
    ("We fly to Lisbon on TAP flight TP 218 in June", "date"),
])
def test_changed_fact_is_never_a_duplicate(eng, text, change):
    eng.add("We fly to Lisbon on TAP flight TP 218", id="flight", embedding=basis(0), created_at=T0)
    out = eng.admit_batch([{"id": "new", "text": text, "embedding": unit(basis(0) + 0.1 * basis(1)),
                            "kind": "semantic"}], now=T0)
    d = out[0]
    assert d.decision != "reinforce" and d.fact_change == change
    assert d.nearest == "flight" and d.nearest_cosine > 0.99
    assert eng.get("flight").access_count == 0
    assert d.decision == "admit" and eng.get("new").text == text
    assert d.factors["semantic_novelty"] == 1.0   # the change is new, however near its wording


@pytest.mark.parametrize("in_batch", [False, True])
def test_a_changed_date_is_admitted_not_rejected_as_redundant(eng, in_batch):
    """"The car goes in for service on the 15th" after "... on the 14th" was kept apart (it changes
    a number) and then rejected, its novelty 0.04 from the near wording (score 0.546 < 0.55): the
    correction was lost and the outdated date stayed (admission_quality test-072)."""
    old = {"id": "old", "text": "The car goes in for service on the 14th", "embedding": basis(0), "created_at": T0}
    new = {"id": "new", "text": "The car goes in for service on the 15th",
           "embedding": unit(basis(0) + 0.2 * basis(1)), "created_at": T0}
    if in_batch:
        out = eng.admit_batch([old, new], now=T0)[1]
    else:
        eng.add(**{k: v for k, v in old.items()})
        out = eng.admit_batch([new], now=T0)[0]
    assert out.fact_change == "number" and out.decision == "admit" and out.stored
    assert out.factors["semantic_novelty"] == 1.0


def test_in_batch_duplicate_reinforces_the_earlier_candidate(eng):
    v = basis(4)
    out = eng.admit_batch([
        {"id": "a", "text": "Remember: Ana's gift is the blue vase", "embedding": v, "kind": "semantic"},
        {"id": "b", "text": "remember: Ana's gift is the blue vase!", "embedding": v, "kind": "semantic"},
    ], now=T0)
    assert [d.decision for d in out] == ["admit", "reinforce"]
    assert out[1].target == "a" and out[1].nearest == "a"
    assert eng.stats()["memories"] == 1
    assert eng.get("a").salience == pytest.approx(0.5 + 0.1 * 0.5)


def test_shadow_mode_stores_everything_and_logs_decisions(eng):
    eng.add("We booked the Alfama flat for June", id="old", embedding=basis(0), created_at=T0)
    cands = [{"id": "p", "text": "lol ok", "embedding": unit(basis(0) + basis(1))},
             {"id": "d", "text": "We booked the Alfama flat for June", "embedding": basis(0)},
             {"id": "f", "text": "The Lisbon hotel code is 4471", "embedding": basis(2), "kind": "semantic"}]
    out = eng.admit_batch(cands, now=T0, shadow=True)
    assert [d.decision for d in out] == ["reject", "reinforce", "admit"]
    assert all(d.stored and d.shadow for d in out)
    assert {m for m in ("old", "p", "d", "f") if eng.get(m)} == {"old", "p", "d", "f"}
    assert eng.get("old").access_count == 0                  # shadow: nothing reinforced
    log = eng.dynamics_log(action="admission_shadow")
    assert [(e["id"], e["decision"]) for e in log] == [("p", "reject"), ("d", "reinforce"), ("f", "admit")]


def test_config_shadow_and_threshold(eng):
    cfg = AdmissionConfig(threshold=1.0, shadow=False)
    out = eng.admit_batch([{"text": "TAP flight TP 218", "embedding": basis(1)}], now=T0, config=cfg)
    assert out[0].decision == "reject" and eng.stats()["memories"] == 0
    cfg = AdmissionConfig(threshold=1.0, shadow=True)
    out = eng.admit_batch([{"text": "TAP flight TP 218", "embedding": basis(1)}], now=T0, config=cfg)
    assert out[0].decision == "reject" and out[0].stored and eng.stats()["memories"] == 1


def test_pluggable_utility(eng):
    seen = []

    def judge(texts):
        seen.append(list(texts))
        return [0.0 if "lol" in t else 1.0 for t in texts]

    out = eng.admit_batch([{"text": "lol", "embedding": basis(0)},
                           {"text": "x", "embedding": basis(1)}], now=T0, utility=judge)
    assert seen == [["lol", "x"]]
    assert [d.factors["future_utility"] for d in out] == [0.0, 1.0]


@pytest.mark.parametrize("bad,exc", [
    (lambda texts: [0.5], errors.InvalidInputError),                       # wrong length
    (lambda texts: [float("nan")] * len(texts), errors.NonFiniteError),
    (lambda texts: [1.5] * len(texts), errors.InvalidInputError),
    ("not callable", errors.InvalidInputError),
])
def test_bad_utility_leaves_store_unchanged(eng, bad, exc):
    eng.add("stored", id="s", embedding=basis(0))
    before = store_digest(eng)
    with pytest.raises(exc):
        eng.admit_batch([{"text": "a", "embedding": basis(1)}, {"text": "b", "embedding": basis(2)}],
                        now=T0, utility=bad)
    assert store_digest(eng) == before and eng.stats()["memories"] == 1


def test_empty_batch_and_other_namespace(eng):
    assert eng.admit_batch([], now=T0) == []
    with pytest.raises(errors.InvalidInputError):
        eng.admit_batch([{"text": "x", "namespace": "other", "embedding": basis(0)}], namespace="main")
    with pytest.raises(errors.InvalidInputError):
        eng.admit_batch({"text": "x"})


def test_batch_equals_one_by_one_without_in_batch_neighbours(tmp_path):
    texts = ["lol ok", "I booked TAP flight TP 218", "Ana is allergic to shellfish", "thanks!",
             "The hotel code is 4471"]
    cands = [{"id": f"c{i}", "text": t, "embedding": basis(i), "created_at": T0 - i * 86400,
              "kind": ["episodic", "semantic"][i % 2]} for i, t in enumerate(texts)]
    with engramdb.open(tmp_path / "batch", dim=16) as a, engramdb.open(tmp_path / "single", dim=16) as b:
        batch = a.admit_batch(cands, now=T0)
        single = [b.admit_batch([c], now=T0)[0] for c in cands]
        assert [(d.id, d.decision, d.score, d.factors) for d in batch] == \
               [(d.id, d.decision, d.score, d.factors) for d in single]
        assert sorted(columns(a)["id"].tolist()) == sorted(columns(b)["id"].tolist())


def test_cli_admit_review_log(tmp_path):
    import json

    from click.testing import CliRunner

    from engramdb.cli import main

    f = tmp_path / "cands.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in [
        {"id": "a", "text": "User: ok thanks!"},
        {"id": "b", "text": "We decided to book the Alfama hotel for May 14", "kind": "decision"},
    ]))
    store = str(tmp_path / "s")
    runner = CliRunner()
    res = runner.invoke(main, ["admit", "--store", store, "-n", "trip", str(f), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [(d["id"], d["decision"]) for d in out] == [("a", "reject"), ("b", "admit")]
    assert set(out[0]["factors"]) == set(ADMISSION_FACTORS)
    res = runner.invoke(main, ["review", "--store", store, "-n", "trip", "b"])
    assert res.exit_code == 0 and "reviewed b: salience 0.5000" in res.output
    res = runner.invoke(main, ["log", "--store", store, "--json"])
    assert [(e["action"], e["id"]) for e in json.loads(res.output)] == [("admission_reject", "a"),
                                                                         ("admission_admit", "b")]
    res = runner.invoke(main, ["review", "--store", store, "-n", "trip", "a"])
    assert res.exit_code == 2 and "MemoryNotFoundError" in res.output
