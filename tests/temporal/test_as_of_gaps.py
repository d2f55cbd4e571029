"""What an empty answer ``as_of`` a time says: a namespace that held nothing then is said to be
empty then (with its first record's date), not "the store may not hold what this asks"; an empty
answer at a later time says how many memories were recorded after it."""
import json

import engramdb
import pytest
from click.testing import CliRunner

from engramdb.cli import main


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("The wifi password is hunter2.", id="wifi", recorded_at="2026-10-01")
        m.add("I live in Lisbon.", id="home", recorded_at="2026-10-02")
        m.add("Someone else's notes.", namespace="other", recorded_at="2020-01-01")
        yield m


@pytest.mark.parametrize("filters", [{}, {"kinds": ["semantic"]}, {"tags": ["x"]}])
def test_before_the_first_record_the_namespace_was_empty(mem, filters):
    res = mem.recall("wifi password", as_of="2025-01-01", **filters)
    assert res.hits == []
    assert [g.reason for g in res.gaps] == ["empty_namespace"]
    assert "held no memories as of 2025-01-01" in res.gaps[0].detail
    assert "first was recorded 2026-10-01" in res.gaps[0].detail
    # another namespace's older memory does not count
    assert mem.recall("notes", namespace="other", as_of="2025-01-01").hits


def test_an_empty_answer_later_counts_what_was_recorded_after(mem):
    res = mem.recall("where do I live", as_of="2026-10-01T12:00")
    assert res.hits == []
    assert [g.reason for g in res.gaps] == ["weak_evidence"]
    assert "1 memory of the namespace was recorded after it" in res.gaps[0].detail
    # the answer at a time both were recorded has no such words
    res = mem.recall("where do I live", as_of="2026-10-03")
    assert [h.id for h in res.hits][:1] == ["home"]
    assert all("recorded after" not in g.detail for g in res.gaps)


def test_without_as_of_nothing_changes(mem):
    res = mem.recall("quantum chromodynamics lecture")
    assert all(g.reason != "empty_namespace" and "recorded after" not in g.detail for g in res.gaps)


def test_the_cli_says_it_too(tmp_path):
    def run(*args):
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    s = tmp_path / "s"
    assert run("add", "--store", s, "--recorded-at", "2026-10-01", "The wifi password is hunter2.").exit_code == 0
    out = json.loads(run("recall", "--store", s, "--json", "--as-of", "2025-01-01", "wifi password").output)
    assert out["hits"] == [] and [g["reason"] for g in out["gaps"]] == ["empty_namespace"]
    assert "held no memories as of 2025-01-01" in out["gaps"][0]["detail"]


def test_as_of_warnings_name_no_memory_recorded_after(tmp_store):
    """A recall as of a time named a contradicting memory recorded after it (the store did not
    know it then), in its warnings (a fresh user's CLI run: --as-of 2025-03-10 printed "s2
    contradicts s1", s2 recorded on 2025-03-19)."""
    with engramdb.open(tmp_store, embedder="hashing") as m:
        m.add("Standup is at 9:30am.", id="s1", recorded_at="2025-03-04T09:00:00Z")
        m.add("Standup moved to 10am.", id="s2", recorded_at="2025-03-19T09:00:00Z")
        now = m.recall("what time is standup?", k=3)
        then = m.recall("what time is standup?", k=3, as_of="2025-03-10")
    assert {(w.source, w.target) for w in now.warnings} == {("s2", "s1")}
    assert [h.id for h in then.hits] == ["s1"] and then.warnings == []
