"""Issue 13, finding 5 ("Admission lets chit-chat in and files facts as events"), each as a
test through the public API only: chatter is rejected as phatic, a fact given without a kind
is stored as semantic, an identity / health / family fact survives the default rescoring."""
import pytest

import engramdb

from .conftest import T0

YEAR = 365 * 86400.0


@pytest.fixture
def eng384(tmp_store):
    """A store with the default hashing embedder at dim 384: the setting of the issue's report."""
    e = engramdb.open(tmp_store, dim=384)
    yield e
    e.close()


def test_chatter_is_rejected_as_phatic_whatever_its_score(eng384):
    chatter = ["haha thanks, you're the best", "The weather is nice today."]
    out = eng384.admit_batch([{"text": t} for t in chatter], now=T0)
    for d in out:
        assert d.decision == "reject" and not d.stored
        assert d.reason.startswith("phatic")
        assert d.kind == d.inferred_kind == "phatic" and not d.kind_given
        assert d.score >= 0.55            # the score alone would have admitted it
    assert eng384.stats()["memories"] == 0
    log = eng384.dynamics_log(action="admission_reject")
    assert [e["kind"] for e in log] == ["phatic"] * 2 and log[1]["kind_reason"] == "weather small talk"


def test_rejected_chatter_is_not_a_hit_for_unrelated_questions(eng384):
    eng384.admit_batch([{"text": "haha thanks, you're the best"}, {"text": "My wife is allergic to peanuts"},
                        {"text": "I booked the Alfama flat for June"}], now=T0)
    for q in ("what is my wife allergic to?", "who is the best?", "where are we staying?"):
        texts = [h.text for h in eng384.recall(q, k=10, now=T0).hits]
        assert "haha thanks, you're the best" not in texts


def test_facts_are_semantic_and_events_episodic_when_no_kind_is_given(eng384):
    cands = [{"id": "fact", "text": "My wife is allergic to peanuts"},
             {"id": "pref", "text": "I prefer aisle seats on long flights"},
             {"id": "event", "text": "Yesterday we went to the farmers market and bought figs"},
             {"id": "plan", "text": "The dentist appointment is on Thursday at 2:30pm"}]
    out = eng384.admit_batch(cands, now=T0)
    assert [d.decision for d in out] == ["admit"] * 4
    kinds = {d.id: eng384.get(d.id).kind.value for d in out}
    assert kinds == {"fact": "semantic", "pref": "semantic", "event": "episodic", "plan": "episodic"}
    assert [d.kind for d in out] == [kinds[c["id"]] for c in cands]
    assert out[0].kind_reason and out[2].kind_reason == "past event 'went'"
    assert out[0].factors["content_type_prior"] == pytest.approx(0.8)   # the semantic prior, not 0.5


def test_protected_fact_survives_rescore_far_in_the_future(eng384):
    (d,) = eng384.admit_batch([{"id": "wife", "text": "My wife is allergic to peanuts"}], now=T0)
    first = eng384.rescore(now=T0 + 10 * YEAR)
    assert eng384.get("wife").state.value == "active"
    assert first["archived"] == 0 and first["protected_kept"] == 1
    assert d.protected == "health" and "protected" in eng384.get("wife").tags
    assert eng384.dynamics_log(action="archive") == []
    again = eng384.rescore(now=T0 + 10 * YEAR)             # idempotent: nothing to write
    assert again["records_written"] == 0 and eng384.get("wife").state.value == "active"
