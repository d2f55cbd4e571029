"""An id already stored is refused with a message that fits the verb that was given it."""
import engramdb
import pytest
from engramdb import InvalidInputError


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store) as m:
        m.add("The office is on floor 3.", id="s")
        m.add("The car is blue.", id="c")
        yield m


def test_supersede_with_the_old_id(mem):
    with pytest.raises(InvalidInputError) as err:
        mem.supersede("s", "The office is on floor 5.", id="s")
    msg = str(err.value)
    assert "use supersede()" not in msg and "needs an id of its own" in msg and "update('s'" in msg
    assert mem.get("s").state.value == "active"


def test_supersede_with_another_stored_id(mem):
    with pytest.raises(InvalidInputError, match="id 'c' already exists") as err:
        mem.supersede("s", "The office is on floor 5.", id="c")
    assert "use supersede()" not in str(err.value) and "by=" in str(err.value)


def test_add_with_a_stored_id_points_at_supersede(mem):
    with pytest.raises(InvalidInputError, match=r"use supersede\(\).*update\(\)"):
        mem.add("The office is on floor 7.", id="s")
