"""A forgotten (archived) memory steers no recall; superseded ones still lead to their successor;
a hit lifted by a neighbour's pass is explained by that neighbour (fresh-user pass)."""
from __future__ import annotations

import engramdb
from engramdb.types import Relation


def _ids(path):
    return [step.id for step in path]


def test_a_forgotten_memory_is_no_seed_path_step_or_gap_evidence(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as mem:
        mem.add("The wifi password is hunter2.", id="w")
        mem.add("The router is in the hallway closet.", id="r", links=[{"to": "w", "relation": "related_to"}])
        before = mem.recall("wifi password")
        assert [h.id for h in before.hits][:2] == ["w", "r"] and _ids(before.hits[1].path) == ["w", "r"]
        mem.forget("w")
        after = mem.recall("wifi password")
        assert all("w" not in _ids(h.path) for h in after.hits)
        assert "r" not in [h.id for h in after.hits]   # it was only reached through the forgotten one
        assert all(g.best_similarity is None or g.best_similarity < before.hits[0].similarity for g in after.gaps)
        shown = mem.recall("wifi password", include_archived=True)   # asked for: seeds again
        assert [h.id for h in shown.hits][:2] == ["w", "r"] and _ids(shown.hits[1].path) == ["w", "r"]


def test_a_forgotten_keyword_match_opens_no_path_to_its_neighbours(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as mem:
        mem.add("Confirmation code QX7Z9M from the airline.", id="code")
        mem.add("Flight to Lisbon on Friday at nine.", id="flight",
                links=[{"to": "code", "relation": "evidence_for"}])
        assert "flight" in [h.id for h in mem.recall("confirmation code QX7Z9M").hits]
        mem.forget("code")
        res = mem.recall("confirmation code QX7Z9M")
        assert [h.id for h in res.hits] == [] or all("code" not in _ids(h.path) for h in res.hits)
        assert "flight" not in [h.id for h in res.hits]


def test_a_superseded_memory_still_leads_to_the_current_one(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as mem:
        mem.add("I live in Lisbon near the old harbour.", id="old")
        mem.supersede("old", "Moved house: my home is now Porto.", id="new")
        res = mem.recall("live in Lisbon near the old harbour")
        assert "old" not in [h.id for h in res.hits]   # hidden, yet it seeds
        hit = next(h for h in res.hits if h.id == "new")
        assert _ids(hit.path) == ["old", "new"] and hit.path[1].relation is Relation.SUPERSEDES


def test_a_weak_match_lifted_by_its_neighbour_is_explained_by_it(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as mem:
        mem.add("We adopted a puppy named Rex.", id="x")
        mem.add("He chews shoes.", id="y1", links=[{"to": "x", "relation": "next"}])
        hits = {h.id: h for h in mem.recall("puppy Rex").hits}
        assert [(s.id, s.relation) for s in hits["x"].path] == [("x", None)]   # its own match
        assert [(s.id, s.relation) for s in hits["y1"].path] == [("x", None), ("y1", Relation.NEXT)]
        assert hits["y1"].similarity < 0.2 < hits["y1"].score   # the score came over the edge


def test_filtered_out_without_filters_says_what_hides_the_memories(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as mem:
        mem.add("alpha beta gamma delta", id="a")
        mem.supersede("a", "epsilon zeta eta theta", id="b")
        mem.forget("b")
        res = mem.recall("alpha beta gamma delta")
        gaps = [g for g in res.gaps if g.reason == "filtered_out"]
        assert res.hits == [] and len(gaps) == 1 and "include_superseded=True" in gaps[0].detail
        narrowed = mem.recall("alpha beta gamma delta", kinds=["semantic"], include_superseded=True)
        assert all("none passed the filters" in g.detail for g in narrowed.gaps if g.reason == "filtered_out")
