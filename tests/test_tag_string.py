"""Every verb taking tags accepts a single string as one tag, as the recall and query filters do."""
import engramdb
import pytest
from engramdb import InvalidInputError


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store) as m:
        yield m


def test_write_verbs_take_one_tag_as_a_string(mem):
    assert mem.get(mem.add("Standup moved to 10am.", id="s", tags="work")).tags == ("work",)
    mem.add_batch([{"text": "Quarterly review on Friday.", "id": "q", "tags": "work"}])
    assert mem.get("q").tags == ("work",)
    assert mem.update("s", tags="meetings").tags == ("meetings",)
    new = mem.supersede("q", "Quarterly review moved to Monday.", tags="review")
    assert mem.get(new).tags == ("review",)
    d = mem.decide("We hire a second nurse.", confidence=0.7, tags="hiring")
    assert mem.get(d).tags == ("hiring",)
    (dec,) = mem.admit_batch([{"text": "My sister's birthday is on 3 June.", "tags": "family"}])
    assert dec.stored and mem.get(dec.target or mem.query(tags="family")[0].id).tags[0] == "family"
    assert [m.id for m in mem.query(tags="meetings")] == ["s"]
    assert [h.id for h in mem.recall("standup", tags="meetings").hits] == ["s"]


@pytest.mark.parametrize("bad", ["", b"work", ["ok", ""], [3]])
def test_bad_tags_still_refused(mem, bad):
    with pytest.raises(InvalidInputError, match="tags"):
        mem.add("x y z", tags=bad)
