"""Hostile pass on memory dynamics over time: what an erase takes with it, what a prune keeps,
and a second consolidation pass at the same ``now``.

Each test asserts the documented behaviour (README: "`fact` and any other tag are yours";
rescore's log names every memory it archives or prunes; ``consolidate`` is idempotent) that the
engine broke.
"""
import engramdb
from engramdb.config import EngramConfig, ForgettingConfig, MemoryKind
from engramdb.testing import frozen_clock, store_digest

DAY = 86400.0
YEAR = 365 * DAY
T0 = 1_700_000_000.0
LINE = "Emma starts school in September at Lincoln Elementary."


def _chats(mem, sessions):
    for i in range(sessions):
        with frozen_clock(T0 + i * DAY):
            mem.add_conversation([{"role": "user", "content": LINE, "created_at": T0 + i * DAY},
                                  {"role": "assistant", "content": f"Noted number {i}, thanks for the school plans.",
                                   "created_at": T0 + i * DAY + 60}], session=f"s{i}")


def test_a_callers_memory_tagged_fact_is_not_erased_with_its_evidence(tmp_path):
    # derived() took any memory tagged "fact" for one the engine promoted: erasing a memory
    # that was evidence_for it erased the caller's own memory too
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add("Paris is the capital of France.", id="F", kind="semantic", tags=["fact", "protected"])
        mem.add("I read in the atlas that Paris is where the French government sits.", id="E",
                links=[{"to": "F", "relation": "evidence_for"}])
        mem.forget("E", hard=True)
        assert mem.get("F").text == "Paris is the capital of France."
        assert mem.ledger()[-1].ids == ("E",)


def test_a_prune_keeps_what_consolidation_made_of_the_episodes(tmp_path):
    # pruning the faded episodes erased the session summaries and promoted facts built from
    # them, unlogged: consolidation's durable memories died with their evidence
    floors = {k: 0.0 for k in MemoryKind}
    floors[MemoryKind.EPISODIC] = 0.001
    cfg = EngramConfig(forgetting=ForgettingConfig(prune_floor=floors))
    with engramdb.open(tmp_path / "s", embedder="hashing", config=cfg) as mem:
        _chats(mem, 2)
        mem.consolidate(now=T0 + 5 * DAY)
        made = sorted(m.id for m in mem.query() if m.id.startswith(("sum:", "fact:")))
        assert len(made) == 3   # two summaries and the user's fact (the assistant's thanks is none)
        out = mem.rescore(now=T0 + YEAR)
        pruned = sorted(e["id"] for e in mem.dynamics_log(action="prune"))
        assert out["pruned"] == len(pruned) == 6 and not any(p.startswith(("sum:", "fact:")) for p in pruned)
        assert sorted(m.id for m in mem.query() if m.id.startswith(("sum:", "fact:"))) == made
        assert mem.stats()["memories"] == 3
        assert mem.verify_ledger().ok


def test_a_second_consolidation_at_the_same_time_changes_nothing(tmp_path):
    # a fact promoted by the first pass became a merge candidate of the second, which merged it
    # with the caller's memory of the same wording
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add(f"user: {LINE}", id="k-emma", kind="semantic")
        _chats(mem, 2)
        first = mem.consolidate(now=T0 + 2 * DAY)
        assert first["facts"] >= 1
        digest, entries = store_digest(mem), len(mem.ledger())
        second = mem.consolidate(now=T0 + 2 * DAY)
        assert (second["merged"], second["summaries"], second["facts"]) == (0, 0, 0)
        assert store_digest(mem) == digest and len(mem.ledger()) == entries
        assert mem.get("k-emma").state.value == "active"


def test_erasing_a_decisions_latest_outcome_takes_the_review_back(tmp_path):
    # the decision kept the erased outcome (calibration counted it) and the next review left
    # two current outcome memories
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        with frozen_clock(T0 + 100 * DAY):
            mem.decide("We pick Postgres for the billing service", confidence=0.9, id="dA", now=T0)
            mem.review("dA", "success", at=T0 + 10 * DAY)
            mem.review("dA", "failure", at=T0 + 20 * DAY)
            mem.forget("dA:outcome:2", hard=True)
            dec = mem.get("dA").decision
            assert (dec.outcome, dec.outcome_id) == ("success", "dA:outcome:1")
            assert dict(mem.calibration().outcomes) == {"success": 1, "partial": 0, "failure": 0}
            mem.review("dA", "partial", at=T0 + 30 * DAY)
            assert [(m.id, m.state.value) for m in mem.query(kind="episodic")] == [("dA:outcome:3", "active")]
            mem.forget("dA:outcome:3", hard=True)
            mem.forget("dA:outcome:1", hard=True)   # the first outcome: no review left
            dec = mem.get("dA").decision
            assert (dec.outcome, dec.outcome_id) == ("pending", None)   # as before any review
            assert dict(mem.calibration().outcomes) == {"success": 0, "partial": 0, "failure": 0}
            mem.review("dA", "success", at=T0 + 40 * DAY)
            assert mem.get("dA").decision.outcome == "success"
            assert mem.verify_ledger().ok
