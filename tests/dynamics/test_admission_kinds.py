"""Kind inference and protected facts in admission: the rules (``infer_kind``,
``protected_category``), the caller's kind, the switches of AdmissionConfig / ForgettingConfig,
the decision's fields and the labelled set. The findings of issue 13 are in
test_admission_findings.py."""
import json
from pathlib import Path

import pytest

import engramdb
from engramdb import errors
from engramdb.config import AdmissionConfig, EngramConfig, ForgettingConfig
from engramdb.kinds import PHATIC_KIND, infer_kind, protected_category

from .conftest import T0

YEAR = 365 * 86400.0
LABELLED = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "admission_labelled.jsonl"


@pytest.fixture
def eng384(tmp_store):
    """A store with the default hashing embedder at dim 384: the setting of the issue's report."""
    e = engramdb.open(tmp_store, dim=384)
    yield e
    e.close()


# --- the caller's kind, the switches ----------------------------------------------------------

def test_a_given_kind_is_kept_and_lets_the_score_decide_chatter(eng384):
    out = eng384.admit_batch([{"id": "p", "text": "I love the smell of rain", "kind": "decision"},
                              {"id": "c", "text": "Thanks, that's great!", "kind": "semantic"}], now=T0)
    assert out[0].decision == "admit" and eng384.get("p").kind.value == "decision"
    assert out[0].kind_given and out[0].kind == "decision" and out[0].inferred_kind == "semantic"
    assert out[1].kind_given and out[1].kind == "semantic" and out[1].inferred_kind == PHATIC_KIND
    assert not out[1].reason.startswith("phatic")         # scored, not rejected by the phatic rule
    assert out[1].factors["content_type_prior"] == pytest.approx(0.2)


def test_an_explicit_episodic_kind_is_kept(eng384):
    (d,) = eng384.admit_batch([{"id": "x", "text": "My sister lives in Oslo", "kind": "episodic"}], now=T0)
    assert d.kind_given and eng384.get("x").kind.value == "episodic"


def test_switches_restore_the_previous_policy(eng384):
    cfg = AdmissionConfig(infer_kind=False, reject_phatic=False, protect=False)
    out = eng384.admit_batch([{"id": "chat", "text": "haha thanks, you're the best"},
                              {"id": "wife", "text": "My wife is allergic to peanuts"}], now=T0, config=cfg)
    assert [d.decision for d in out] == ["admit", "admit"]
    assert eng384.get("wife").kind.value == "episodic" and eng384.get("wife").tags == ()
    assert out[1].inferred_kind == "semantic" and out[1].protected is None


def test_keep_protected_off_lets_rescore_archive(tmp_store):
    cfg = EngramConfig(forgetting=ForgettingConfig(keep_protected=False))
    with engramdb.open(tmp_store, dim=384, config=cfg) as e:
        e.admit_batch([{"id": "wife", "text": "My wife is allergic to peanuts"}], now=T0)
        summary = e.rescore(now=T0 + 10 * YEAR)
        assert summary["archived"] == 1 and summary["protected_kept"] == 0
        assert e.get("wife").state.value == "archived"


def test_only_protected_memories_are_kept(eng384):
    eng384.add("I keep the spare key under the blue pot", id="tagged", kind="semantic", tags=["protected"],
               created_at=T0)
    eng384.admit_batch([{"id": "goal", "text": "My son scored a goal at practice yesterday"},
                        {"id": "bike", "text": "The bike shop closes at 6pm"}], now=T0)
    assert eng384.get("goal").tags == () and eng384.get("bike").tags == ()   # a family episode is not protected
    s = eng384.rescore(now=T0 + 10 * YEAR)
    assert s["archived"] == 2 and s["protected_kept"] == 1
    assert {m: eng384.get(m).state.value for m in ("tagged", "goal", "bike")} == {
        "tagged": "active", "goal": "archived", "bike": "archived"}
    eng384.forget("tagged")                                  # forgetting on request still works
    assert eng384.get("tagged").state.value == "archived"


def test_protected_memory_is_pruned_neither(tmp_store):
    from engramdb.types import MemoryKind

    floors = {k: 0.01 for k in MemoryKind}
    cfg = EngramConfig(forgetting=ForgettingConfig(prune_floor=floors, archive_floor={k: 0.05 for k in MemoryKind}))
    with engramdb.open(tmp_store, dim=384, config=cfg) as e:
        e.admit_batch([{"id": "bday", "text": "My birthday is on the 9th of November"},
                       {"id": "lunch", "text": "We had lunch at the new ramen place on Friday"}], now=T0)
        s = e.rescore(now=T0 + 10 * YEAR)
        assert s["pruned"] == 1 and e.get("bday").state.value == "active"
        with pytest.raises(errors.MemoryNotFoundError):
            e.get("lunch")


def test_decision_fields_in_to_dict_and_shadow_log(eng384):
    out = eng384.admit_batch([{"id": "a", "text": "lol ok"}, {"id": "b", "text": "I'm diabetic"}],
                             now=T0, shadow=True)
    d = out[1].to_dict()
    assert (d["kind"], d["kind_given"], d["inferred_kind"], d["protected"]) == ("semantic", False, "semantic", "health")
    assert d["decision"] == "admit" and out[0].to_dict()["kind"] == PHATIC_KIND
    log = eng384.dynamics_log(action="admission_shadow")
    assert [(e["id"], e["kind"], e["protected"]) for e in log] == [("a", PHATIC_KIND, None), ("b", "semantic", "health")]


def test_batch_equals_one_by_one(tmp_path):
    texts = ["Good morning!", "My mother speaks Greek", "We watched a film last night", "ok cool",
             "I usually cycle to work", "I'm 41 years old", "Maybe later"]
    with engramdb.open(tmp_path / "batch", dim=384) as e:
        batch = [(d.decision, d.kind, d.protected) for d in e.admit_batch([{"text": t} for t in texts], now=T0)]
    single = []
    for i, t in enumerate(texts):
        with engramdb.open(tmp_path / f"one{i}", dim=384) as e:
            (d,) = e.admit_batch([{"text": t}], now=T0)
            single.append((d.decision, d.kind, d.protected))
    assert batch == single


# --- the rules --------------------------------------------------------------------------------

@pytest.mark.parametrize("text,kind", [
    # chatter: greetings, thanks, laughter, acknowledgements, weather, vague hedges, questions
    ("hello hello!", PHATIC_KIND), ("Thanks a ton, Priya!", PHATIC_KIND), ("hehehe", PHATIC_KIND),
    ("Sounds great, see you then", PHATIC_KIND), ("Fair enough.", PHATIC_KIND),
    ("Quite chilly outside this evening", PHATIC_KIND), ("What are you up to?", PHATIC_KIND),
    ("I hope so", PHATIC_KIND), ("Sam: lol yeah", PHATIC_KIND), ("", PHATIC_KIND),
    # facts and preferences
    ("Our cat is called Miso", "semantic"), ("I'm allergic to latex", "semantic"),
    ("Lena works as an architect", "semantic"), ("I enjoy long walks on the beach", "semantic"),
    ("Priya can't stand cilantro", "semantic"), ("We go climbing on Thursdays", "semantic"),
    ("My dad was born in 1961", "semantic"), ("The museum opens at 9", "semantic"),
    # events and plans
    ("I bought a new laptop", "episodic"), ("The kids painted the fence", "episodic"),
    ("We were cooking when the power went out", "episodic"), ("Next month we fly to Oslo", "episodic"),
    ("Our check-up is on the 3rd", "episodic"), ("Three days ago my phone broke", "episodic"),
    # a fact inside chatter is a fact; a question that says "I" / "my" may carry one
    ("Haha sure. I'm a vegan, by the way", "semantic"),
    ("I can bring the cake tomorrow, does that work for you?", "episodic"),
])
def test_infer_kind(text, kind):
    got, reason = infer_kind(text)
    assert got == kind, reason
    assert isinstance(reason, str) and reason


@pytest.mark.parametrize("text,category", [
    ("I'm allergic to latex", "health"), ("I take 20 mg of citalopram daily", "health"),
    ("My father has type 2 diabetes", "health"), ("My blood type is A positive", "health"),
    ("My brother Tom lives in Leeds", "family"), ("Our daughter is in second grade", "family"),
    ("My name is Ruth Okafor", "identity"), ("I'm from Nairobi", "identity"),
    ("Lena works as an architect", "identity"), ("My birthday is March 2", "identity"),
    ("I'm a pharmacist", "identity"),
    ("My daughter won the chess match yesterday", None),      # a family episode, not a family fact
    # a clause that states a family fact, in a message about an episode (a fresh user's "Also my
    # son Leo is 7, ..." was archived with the episode, "My son Leo is 7." kept)
    ("Also my son Leo is 7, he has a school play on Friday.", "family"),
    ("My sister lives in Oslo; we visited her last week.", "family"),
    ("My daughter won the chess match yesterday, it was great", None),
    ("We went hiking, my wife loved it.", None),
    # a change of job, as a fresh user's chat said it (the old job stayed protected, the new one
    # was archived months later)
    ("Big news: I accepted an offer from Globex! My last day at Acme is February 21.", "identity"),
    ("I'll be a senior product manager at Globex, starting February 24.", "identity"),
    ("The meeting will be at noon", None), ("First week at Globex went great.", "identity"),
    ("The movie starting at 8 was sold out", None), ("I got a discount offer from Amazon", None),
    ("My last day at the beach was great", None),
    ("The bike shop closes at 6pm", None), ("Good job on the report!", None),
    ("The meeting got moved to 4pm", None), ("Thanks, mom!", None),
])
def test_protected_category(text, category):
    got, reason = protected_category(text)
    assert got == category, reason
    assert bool(reason) == (category is not None)


# --- the labelled set (benchmarks/bench_admission_quality.py reports the full figures) ----------

@pytest.mark.parametrize("half", ["tune", "test"])
def test_labelled_set_quality(tmp_path, half):
    rows = [r for r in map(json.loads, LABELLED.read_text(encoding="utf-8").splitlines()) if r["half"] == half]
    assert len(rows) >= 50
    cands = [{"id": r["id"], "text": r["text"], **({"kind": r["kind"]} if "kind" in r else {})} for r in rows]
    with engramdb.open(tmp_path / half, dim=384) as e:
        out = e.admit_batch(cands, now=T0)
    decision_ok = sum(d.decision == r["expected"] for d, r in zip(out, rows)) / len(rows)
    kind_ok = sum(d.kind == r["expected_kind"] for d, r in zip(out, rows)) / len(rows)
    chatter = [d for d, r in zip(out, rows) if r["expected_kind"] == PHATIC_KIND]
    assert decision_ok >= 0.95 and kind_ok >= 0.95
    assert sum(d.decision == "reject" for d in chatter) >= 0.9 * len(chatter)
    assert all(d.protected == r["expected_protected"] for d, r in zip(out, rows) if r["expected_protected"])


# --- procedures and decisions (a support agent's runbooks and choices were stored as episodes) ----

@pytest.mark.parametrize("text", [
    "How to rotate an API key: 1. Open Settings. 2. Click API. 3. Rotate the key.",
    "To fix SSO login loops, check the IdP clock skew and clear the session cookies.",
    "Steps to reset the router: unplug it, wait 30 seconds, plug it back in.",
    "user: how to make sourdough: 1) feed the starter 2) mix the flour",
    "Runbook for a failed deploy: roll back, then page the on-call engineer.",
    "1. Open the admin panel. 2. Select the customer. 3. Issue the refund.",
])
def test_instructions_are_procedural(text):
    assert infer_kind(text)[0] == "procedural"


@pytest.mark.parametrize("text", [
    "We decided to give Globex a one-month credit for the outage.",
    "The team chose Postgres over Mongo for the ledger.",
    "Decision: we ship on Fridays only after the QA sign-off.",
    "The board decided that we ship on Fridays.",
    "Ana: we agreed to move the launch to the spring.",
])
def test_a_teams_choice_is_a_decision(text):
    assert infer_kind(text)[0] == "decision"


@pytest.mark.parametrize("text,kind", [
    ("I decided to go to bed early.", "episodic"),              # a person's choice is an episode
    ("To be honest, the trip was great.", "episodic"),
    ("To celebrate, we went to dinner at Oleana.", "episodic"),
    ("My top 3 films: 1. Alien 2. Heat 3. Ran", "episodic"),    # a numbered list of no steps
    ("Weekend plans: 1. call mom 2. book dentist", "episodic"),
    ("Remind me to renew my passport before August", "episodic"),   # a request, no step
    ("To celebrate, grabbed pizza with the team.", "episodic"),
    ("Runbook is outdated, nobody reads it.", "semantic"),     # a remark about a runbook
    ("We agreed to disagree.", "episodic"),                      # no decision held until review
    ("Decision: pending.", "episodic"),
    ("We decided to order pizza tonight.", "episodic"),
    ("Reminder: 1. Call mom 2. Buy milk", "episodic"),          # a to-do list
])
def test_what_is_neither(text, kind):
    assert infer_kind(text)[0] == kind


def test_admitted_runbooks_and_decisions_outlive_episodes(eng384):
    out = eng384.admit_batch([
        {"id": "rb", "text": "How to rotate an API key: 1. Open Settings. 2. Click API. 3. Rotate the key."},
        {"id": "d", "text": "We decided to give Globex a one-month credit for the outage."},
        {"id": "e", "text": "Globex called about the outage yesterday."}], now=T0)
    assert [d.kind for d in out] == ["procedural", "decision", "episodic"]
    eng384.rescore(now=eng384.get("e").salience_at + 60 * 86400.0)
    assert [eng384.get(i).state.value for i in ("rb", "d", "e")] == ["active", "active", "archived"]
