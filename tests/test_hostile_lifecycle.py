"""Hostile probes of the memory lifecycle (supersede chains, forget, erase).

Each test asserts the behaviour the README / the engine's docstrings promise.
"""
from __future__ import annotations

import time

import pytest

import engramdb
from engramdb.types import MemoryState


def _open(path):
    return engramdb.open(str(path), embedder="hashing")


def test_erasing_successor_of_archived_memory_keeps_it_archived(tmp_path):
    """README: ``forget`` archives ("the memory is no longer a hit ... unless
    include_archived=True"), and "erasing the memory that superseded another makes that one
    current again, as if the correction was never made". Without the correction, the memory
    was archived: erasing its successor must not bring a forgotten memory back into recall."""
    with _open(tmp_path / "s") as mem:
        mem.add("Lunch is at noon.", id="A")
        mem.forget("A")                                   # the user forgets A
        mem.supersede("A", "Lunch is at one.", id="B")
        mem.forget("B", hard=True)                        # the correction never happened
        assert mem.get("A").state is MemoryState.ARCHIVED
        assert "A" not in [h.id for h in mem.recall("lunch noon", k=5).hits]


def test_erasing_slot_successor_of_archived_value_keeps_it_archived(tmp_path):
    """Same promise through a single-valued slot: an archived value that a new value retired
    must not come back as the slot's current value when that new value is erased."""
    with _open(tmp_path / "s") as mem:
        mem.add("I moved to Porto.", id="P", slot=("user", "home_city", "Porto"))
        mem.forget("P")
        assert mem.current("user", "home_city") is None
        mem.add("I moved to Braga.", id="B", slot=("user", "home_city", "Braga"))
        mem.forget("B", hard=True)
        assert mem.get("P").state is MemoryState.ARCHIVED
        assert mem.current("user", "home_city") is None


def test_question_worded_like_first_version_reaches_current_of_chain(tmp_path):
    """README (supersede): "a question worded like it still reaches the new one over the
    ``supersedes`` edge"; recall/seeds.py: "a question worded like the old version reaches
    the current one". After two supersessions (A -> B -> C, each reworded), a question worded
    like A must still find the current version C, not come back empty of the fact."""
    with _open(tmp_path / "s") as mem:
        mem.add("The meeting room code is 4411.", id="A")
        mem.supersede("A", "Door keypad changed: use 9032 now.", id="B")
        mem.supersede("B", "Keypad entry is now 7750 for everyone.", id="C")
        hits = [h.id for h in mem.recall("meeting room code 4411", k=3).hits]
        assert "C" in hits


def test_a_slot_question_worded_like_an_old_value_reaches_the_current_one(tmp_path):
    """The same through a single-valued slot: each new value supersedes the last, and a
    question naming the first value finds the current holder."""
    with _open(tmp_path / "s") as mem:
        for i, (city, cid) in enumerate((("Porto", "p"), ("Braga", "b"), ("Lisbon", "l"))):
            mem.add(f"I moved to {city}.", id=cid, slot=("user", "home_city", city), created_at=1_700_000_000 + i)
        for i in range(30):
            mem.add(f"Unrelated note number {i} about the garden and the weather.")
        assert mem.current("user", "home_city").id == "l"
        res = mem.recall("I moved to Porto", k=5, reinforce=False)
        hits = [h.id for h in res.hits]
        assert "l" in hits and "p" not in hits and "b" not in hits
        path = next(h for h in res.hits if h.id == "l").path   # explained by the corrections
        assert [s.id for s in path] == ["p", "b", "l"] and path[1].relation is engramdb.Relation.SUPERSEDES


def test_a_forgotten_current_version_is_not_brought_in_by_its_old_versions(tmp_path):
    with _open(tmp_path / "s") as mem:
        mem.add("The meeting room code is 4411.", id="A")
        mem.supersede("A", "Keypad entry is now 7750 for everyone.", id="C")
        mem.forget("C")
        assert "C" not in [h.id for h in mem.recall("meeting room code 4411", k=3, reinforce=False).hits]
        shown = mem.recall("meeting room code 4411", k=3, reinforce=False, include_archived=True)
        assert "C" in [h.id for h in shown.hits]


def test_a_bare_supersedes_link_is_refused_and_supersede_makes_it(tmp_path):
    """link(new, old, "supersedes") would leave the old memory current while history names a
    successor: the edge is made by supersede(), which also retires the old memory."""
    import pytest
    from engramdb.testing import store_digest
    with _open(tmp_path / "s") as mem:
        mem.add("Lunch is at noon.", id="A")
        mem.add("Lunch is at one.", id="B")
        before = store_digest(mem)
        for call in (lambda: mem.link("B", "A", "supersedes"),
                     lambda: mem.link_batch([("B", "A", "related_to"), ("B", "A", "supersedes")]),
                     lambda: mem.add("Lunch moved.", id="C", links=[{"to": "A", "relation": "supersedes"}])):
            with pytest.raises(engramdb.errors.InvalidInputError, match="supersede"):
                call()
        assert store_digest(mem) == before
        mem.supersede("A", by="B")
        assert mem.get("A").state is MemoryState.SUPERSEDED and mem.get("A").superseded_by == "B"


def test_a_hard_forget_erases_what_the_engine_wrote_from_the_text(tmp_path):
    # forget(hard=True) is the privacy erase, yet the erased turn's sentence lived on word for
    # word in its session's summary (recalled first), and an erased decision in its outcome
    # memory ("Outcome: failure. Decision: ...")
    t = time.time() - 3 * 86400
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add_conversation([
            {"role": "user", "content": "I adopted a dog named Rex last week. Rex is a golden retriever who "
                                        "loves swimming in the lake.", "created_at": t},
            {"role": "assistant", "content": "Golden retrievers like Rex are great swimmers and love the lake.",
             "created_at": t + 10},
            {"role": "user", "content": "Rex also chews my shoes every morning, and my neighbour Tom likes him.",
             "created_at": t + 20}], session="s1")
        mem.add("Rex is a golden retriever who loves swimming.", id="mine-1", created_at=t)
        mem.add_conversation([{"role": "user", "content": "Rex is a golden retriever who loves swimming in lakes.",
                               "created_at": t + 86400}, {"role": "assistant", "content": "Noted about Rex.",
                                                          "created_at": t + 86410}], session="s2")
        done = mem.consolidate(now=time.time())
        assert done["summaries"] >= 1
        derived = [m.id for m in mem.query() if m.id.startswith(("sum:", "fact:"))]
        assert "sum:S:s1" in derived
        mem.forget("s1:1", hard=True)
        left = {m.id: m.text for m in mem.query()}
        assert not any("golden retriever who loves swimming in the lake" in text for text in left.values())
        assert "sum:S:s1" not in left
        assert "mine-1" in left and "s1:2" in left   # the caller's own memories stay
        again = mem.consolidate(now=time.time())   # the session is summarized again from what is left
        assert again["summaries"] >= 1 and "sum:S:s1" in {m.id for m in mem.query()}

        mem.decide("We fire Alice for the leaked salary spreadsheet.", confidence=0.6, id="d1")
        mem.review("d1", "failure")
        assert any("Alice" in m.text for m in mem.query() if m.id != "d1")
        mem.forget("d1", hard=True)
        assert not any("Alice" in m.text for m in mem.query())
        assert mem.verify_ledger().ok


def test_rescore_judges_what_its_prunes_revive_in_the_same_pass(tmp_path):
    # rescore promises that a second pass at the same now changes nothing; pruning a correction
    # made the memory it superseded current again (as far below the floors), and only the next
    # pass at the same now archived and pruned it (a second ledger entry)
    from engramdb.config import EngramConfig, ForgettingConfig
    from engramdb.types import MemoryKind

    cfg = EngramConfig(forgetting=ForgettingConfig(archive_floor={k: 0.2 for k in MemoryKind},
                                                   prune_floor={k: 0.1 for k in MemoryKind}))
    with engramdb.open(tmp_path / "s", embedder="hashing", config=cfg) as mem:
        mem.add("An old episode about a picnic.", id="e1")
        mem.supersede("e1", "An old episode about a picnic in May.", id="e2")
        mem.supersede("e2", "An old episode about a picnic in May 2021.", id="e3")
        mem.add("I always keep my passport in the blue drawer.", id="kept", tags=["protected"])
        later = time.time() + 60 * 86400
        first = mem.rescore(now=later)
        assert (first["archived"], first["pruned"]) == (3, 3)
        entries = len(mem.ledger())
        second = mem.rescore(now=later)
        assert (second["archived"], second["pruned"], second["records_written"]) == (0, 0, 0)
        assert len(mem.ledger()) == entries
        assert [m.id for m in mem.query(include_archived=True, include_superseded=True)] == ["kept"]


@pytest.mark.parametrize("how", ["erase", "update"])
def test_add_still_finds_a_text_after_its_other_holder_is_erased_or_reworded(tmp_path, how):
    # README: adding a text the namespace already holds returns the stored memory. With two
    # holders of one text (an explicit id stores it again), the lookup named the newer one;
    # erasing (or rewording) that one dropped the lookup, and add(T) stored a third copy
    text = "I keep the spare key under the blue flower pot."
    with engramdb.open(tmp_path / "s", embedder="hashing") as mem:
        mem.add(text, id="a")
        mem.add("The car is parked on level 3.", id="car")
        assert mem.add(text, id="b") == "b"
        if how == "erase":
            mem.forget("b", hard=True)
        else:
            mem.update("b", text="I keep the spare key in the kitchen drawer now.")
        assert mem.add(text) == "a"
        holders = [m.id for m in mem.query() if m.text == text]
        assert holders == ["a"]
        mem.forget("a", hard=True)   # the last holder: the text is new again
        fresh = mem.add(text)
        assert fresh not in ("a", "b") and [m.id for m in mem.query() if m.text == text] == [fresh]


def test_a_current_version_counts_its_old_wordings_match_once(tmp_path):
    """A fresh user: "who is our CEO?" (nothing stored says) ranked the correction of the best
    weak match at 1.76, nearly twice a direct match: its old wording's match was its base and
    passed to it again over the supersedes edge. The base given once, it scores as that match."""
    with _open(tmp_path / "s") as mem:
        mem.add("Priya leads the mobile team.", id="old")
        mem.add("The payment service went down on March 3 because of an expired TLS certificate.", id="incident")
        mem.supersede("old", "Priya moved to the platform team; Marcus leads the mobile team now.", id="new")
        for question in ("who is our CEO?", "Who leads the mobile team?"):
            res = mem.recall(question, k=3, reinforce=False)
            top = res.hits[0]
            assert top.id == "new" and [s.id for s in top.path] == ["old", "new"]
            assert top.activation == pytest.approx(1.0)
        direct = mem.recall("When did the payment service go down?", k=1, reinforce=False).hits[0]
        assert direct.id == "incident" and direct.score == pytest.approx(top.score)
