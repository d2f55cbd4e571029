"""Valid time at its ends, through the public API only (no clock fixture: record time is the
wall clock, so the valid times below lie in the future of it).

A memory is valid on [valid_from, valid_to): ``as_of`` exactly at ``valid_to`` no longer
sees it. Superseding never sets ``valid_to`` before the old memory's own ``valid_from``.
"""
import math
import time

import pytest

import engramdb
from ..conftest import basis

DIM = 16
T = 1_700_000_000.0




@pytest.fixture
def mem(tmp_path):
    with engramdb.open(tmp_path / "store", dim=DIM) as m:
        yield m


def test_as_of_excludes_a_memory_exactly_at_its_valid_to(mem):
    end = float(math.ceil(time.time())) + 1000.0       # after its record time
    mem.add("the office is closed for works", id="closed", embedding=basis(0), valid_to=end)
    mem.add("the office exists", id="always", embedding=basis(0))
    assert {x.id for x in mem.query(as_of=end - 0.5)} == {"closed", "always"}
    assert {x.id for x in mem.query(as_of=end)} == {"always"}
    assert {h.id for h in mem.recall(vector=basis(0), as_of=end - 0.5).hits} == {"closed", "always"}
    assert {h.id for h in mem.recall(vector=basis(0), as_of=end).hits} == {"always"}


def test_as_of_includes_a_memory_exactly_at_its_valid_from(mem):
    start = float(math.ceil(time.time())) + 1000.0
    mem.add("the new office opens", id="new", embedding=basis(0), valid_from=start)
    assert {x.id for x in mem.query(as_of=start)} == {"new"}
    assert {x.id for x in mem.query(as_of=start - 0.5)} == set()


def test_superseding_with_an_earlier_valid_time_never_ends_before_the_start(mem):
    mem.add("rent is 900", id="old", embedding=basis(0), valid_from=T + 100)
    mem.supersede("old", "rent was 950 all along", id="new", embedding=basis(0), valid_from=T)
    old = mem.get("old")
    assert old.state.value == "superseded" and old.valid_from == T + 100
    assert old.valid_to == T + 100                    # an empty interval, not a reversed one


def test_superseding_ends_the_old_validity_at_the_successors_start(mem):
    mem.add("rent is 900", id="old", embedding=basis(0), valid_from=T)
    mem.supersede("old", "rent is 950", id="new", embedding=basis(0), valid_from=T + 100)
    assert mem.get("old").valid_to == T + 100 and mem.get("new").valid_to is None


def test_superseding_by_an_existing_memory_with_an_earlier_start(mem):
    mem.add("rent is 900", id="old", embedding=basis(0), valid_from=T + 100)
    mem.add("rent is 950", id="new", embedding=basis(1), valid_from=T)
    mem.supersede("old", by="new")
    assert mem.get("old").valid_to == T + 100
