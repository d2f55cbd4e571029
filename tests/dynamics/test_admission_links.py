"""admit_batch and the links of its candidates, whatever admission decides about each: every
link is checked (a bad one refuses the batch, nothing written, as add_batch does), a
reinforced candidate's links and protection go to the memory that holds its text (as add() of a
repeated text links the stored memory), and a link to a candidate that was not admitted is left
out and said so (it failed the whole batch with "no memory")."""
import pytest

import engramdb
from engramdb.errors import InvalidInputError, MemoryNotFoundError
from engramdb.testing import store_digest


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store, dim=384) as m:   # the hashing embedder
        m.add("My blood type is O negative.", id="blood", kind="semantic")
        m.add("I donate blood twice a year at the clinic.", id="donate", kind="semantic")
        yield m


def _links(mem, id):
    return sorted((e.source, e.target, e.relation.value) for e in mem.edges(id) if e.relation.value == "supports")


@pytest.mark.parametrize("text", ["My blood type is O negative.", "My favourite colour is teal."])
def test_a_bad_link_refuses_the_batch_whether_or_not_it_would_be_admitted(mem, tmp_store, text):
    before = store_digest(mem)
    with pytest.raises(MemoryNotFoundError, match="no memory 'nope'"):
        mem.admit_batch([{"text": text, "links": [{"to": "nope", "relation": "supports"}]}])
    with pytest.raises(InvalidInputError, match="cannot link memory 'x' to itself"):
        mem.admit_batch([{"text": text, "id": "x", "links": [{"to": "x", "relation": "supports"}]}])
    assert store_digest(mem) == before


def test_a_reinforced_candidate_links_and_protects_the_memory_holding_its_text(mem):
    d, = mem.admit_batch([{"text": "My blood type is O negative.",
                           "links": [{"to": "donate", "relation": "supports"}]}])
    assert (d.decision, d.target, d.stored) == ("reinforce", "blood", False)
    assert _links(mem, "blood") == [("blood", "donate", "supports")]
    d, = mem.admit_batch([{"text": "My sister Ana lives in Lisbon."}])
    assert d.decision == "admit" and d.protected == "family"
    d, = mem.admit_batch([{"text": "My sister Ana lives in Lisbon."}])
    assert d.decision == "reinforce" and d.protected == "family"
    mem.add("I like green tea in the morning.", id="tea")
    mem.admit_batch([{"text": "I like green tea in the morning."}])   # no protected category: no tag
    assert "protected" not in mem.get("tea").tags
    mem.add("My brother Rui lives in Porto.", id="rui")   # stored untagged, then restated
    d, = mem.admit_batch([{"text": "My brother Rui lives in Porto."}])
    assert (d.decision, d.target, d.protected) == ("reinforce", "rui", "family")
    assert "protected" in mem.get("rui").tags


def test_a_link_to_a_candidate_not_admitted_is_left_out_or_follows_its_text(mem):
    out = mem.admit_batch([
        {"text": "hi, thanks!", "id": "ph"},                                  # chatter: rejected
        {"text": "My blood type is O negative.", "id": "again"},              # reinforces 'blood'
        {"text": "My dog is named Rex and he is five years old.", "id": "dog",
         "links": [{"to": "ph", "relation": "supports"}, {"to": "again", "relation": "supports"}]},
    ])
    assert [(d.id, d.decision) for d in out] == [("ph", "reject"), ("again", "reinforce"), ("dog", "admit")]
    assert "link to 'ph' left out (not admitted)" in out[2].reason
    assert _links(mem, "dog") == [("dog", "blood", "supports")]
    assert {m.id for m in mem.query()} == {"blood", "donate", "dog"}
