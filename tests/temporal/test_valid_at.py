"""valid_at (what was true in the world at T, as known now) beside as_of (what the store knew at
T), and recorded_at for backfilled history: the same in add, add_batch and admit_batch, and in
the CLI (the README's ``--as-of`` example, run as written)."""
import json
import re
import shlex
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main

from .conftest import T0, onehot

DAY = 86400.0
README = Path(__file__).resolve().parents[2] / "README.md"


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc).timestamp()


Q = "where does the user live? Porto Lisbon"


@pytest.fixture
def moved(mem, clock):
    """Porto from 2019, Lisbon from March 2023, both learned today (T0, November 2023)."""
    mem.add("The user lives in Porto.", id="porto", slot=("user", "home_city", "Porto"),
            created_at=utc(2019, 5, 1))
    clock.advance(60)
    mem.add("The user moved to Lisbon.", id="lisbon", slot=("user", "home_city", "Lisbon"),
            created_at=utc(2023, 3, 20))
    return mem


# ---------------------------------------------------------------- valid_at vs as_of
def test_valid_at_is_world_time_as_known_now(moved):
    assert [h.id for h in moved.recall(Q, k=5, valid_at="2020-01-01").hits] == ["porto"]
    assert [h.id for h in moved.recall(Q, k=5, valid_at="2023-06-01").hits] == ["lisbon"]
    assert moved.recall(Q, k=5, valid_at="2018-01-01").hits == []
    # as_of is record time: in 2020 the store knew nothing (both were learned in November 2023)
    assert moved.recall(Q, k=5, as_of="2020-01-01").hits == []
    assert [m.id for m in moved.query(valid_at="2020-01-01")] == ["porto"]
    assert [m.id for m in moved.query(valid_at=utc(2023, 3, 20))] == ["lisbon"]   # valid_from is inclusive
    assert moved.query(as_of="2020-01-01") == []


def test_valid_at_and_as_of_together(moved, clock):
    # after Porto was recorded and before Lisbon was: the store then thought Porto still held
    before_lisbon = moved.get("porto").recorded_at + 1
    assert [m.id for m in moved.query(as_of=before_lisbon, valid_at="2023-06-01")] == ["porto"]
    assert [m.id for m in moved.query(as_of=T0 + 3600, valid_at="2023-06-01")] == ["lisbon"]
    assert [m.id for m in moved.query(as_of=T0 + 3600, valid_at="2020-06-01")] == ["porto"]


def test_valid_at_honours_a_stated_end(mem):
    mem.add("Conference in Berlin.", id="conf", valid_from="2023-05-01", valid_to="2023-05-05",
            created_at="2023-04-01")
    assert [m.id for m in mem.query(valid_at="2023-05-04T23:59:59Z")] == ["conf"]
    assert mem.query(valid_at="2023-05-05") == []                         # valid_to is exclusive


def test_valid_at_shows_a_superseded_value_true_then_but_not_a_retraction(mem, clock):
    mem.add("The plan costs $10.", id="p10", slot=("plan", "price", "$10"), created_at=utc(2023, 1, 1))
    clock.advance(10)
    # same valid time, same confidence: a correction, not a change in the world
    mem.add("The plan costs $12.", id="p12", slot=("plan", "price", "$12"), created_at=utc(2023, 1, 1))
    assert [m.id for m in mem.query(valid_at=utc(2023, 2, 1))] == ["p12"]


def test_valid_at_checks_its_argument(moved):
    with pytest.raises(engramdb.InvalidInputError):
        moved.recall(Q, valid_at="not a time")
    with pytest.raises(engramdb.NonFiniteError):
        moved.query(valid_at=float("nan"))


# ---------------------------------------------------------------- recorded_at
def test_recorded_at_backfills_history_for_as_of(mem, clock):
    mem.add("The user lives in Porto.", id="porto", slot=("user", "home_city", "Porto"),
            created_at="2019-05-01", recorded_at="2019-05-01")
    mem.add("The user moved to Lisbon.", id="lisbon", slot=("user", "home_city", "Lisbon"),
            created_at="2023-03-20", recorded_at="2023-03-21")
    porto = mem.get("porto")
    assert porto.recorded_at == utc(2019, 5, 1)
    assert porto.retired_at == utc(2023, 3, 21)          # retired when its successor was recorded
    assert [h.id for h in mem.recall(Q, k=5, as_of="2020-01-01").hits] == ["porto"]
    assert [h.id for h in mem.recall(Q, k=5, as_of="2023-03-20T12:00:00Z").hits] == ["porto"]
    assert [h.id for h in mem.recall(Q, k=5, as_of="2023-06-01").hits] == ["lisbon"]
    assert [e.recorded_at for e in mem.history("lisbon")] == [utc(2019, 5, 1), utc(2023, 3, 21)]


def test_recorded_at_is_the_same_in_add_add_batch_and_admit_batch(tmp_path, clock):
    when = utc(2022, 2, 2)
    got = []
    for how in ("add", "add_batch_item", "add_batch_call", "admit_item", "admit_call"):
        with engramdb.open(tmp_path / how, dim=64) as m:
            item = {"id": "x", "text": "I booked TAP flight TP 218 to Lisbon on May 14", "kind": "semantic",
                    "created_at": when}
            if how == "add":
                m.add(**item, recorded_at=when)
            elif how == "add_batch_item":
                m.add_batch([{**item, "recorded_at": when}])
            elif how == "add_batch_call":
                m.add_batch([item], recorded_at=when)
            elif how == "admit_item":
                assert m.admit_batch([{**item, "recorded_at": when}])[0].stored
            else:
                assert m.admit_batch([item], recorded_at=when)[0].stored
            got.append(m.get("x").recorded_at)
            assert [h.id for h in m.recall("TAP flight", as_of=when + 1).hits] == ["x"]
    assert got == [when] * 5


def test_record_time_defaults_to_the_clock_everywhere(tmp_path, clock):
    """Without recorded_at, add and admit_batch both record the engine's clock, whatever the
    event time or admission's ``now``."""
    item = {"id": "x", "text": "I booked TAP flight TP 218 to Lisbon on May 14", "kind": "semantic",
            "created_at": utc(2022, 2, 2)}
    with engramdb.open(tmp_path / "a", dim=64) as a, engramdb.open(tmp_path / "b", dim=64) as b:
        a.add(**item)
        b.admit_batch([item], now=utc(2022, 2, 3))
        assert a.get("x").recorded_at == b.get("x").recorded_at == clock.t


def test_recorded_at_rejects_the_future_and_bad_values(mem, clock):
    with pytest.raises(engramdb.InvalidInputError, match="recorded_at"):
        mem.add("later", recorded_at=clock.t + 3600)
    with pytest.raises(engramdb.InvalidInputError, match="recorded_at"):
        mem.add("bad", recorded_at="yesterday-ish")
    with pytest.raises(engramdb.InvalidInputError, match="recorded_at"):
        mem.add_batch([{"text": "a"}], recorded_at=clock.t + 1)
    assert mem.query() == []


def test_a_backfilled_successor_never_retires_before_its_predecessor_was_recorded(mem, clock):
    mem.add("The user lives in Porto.", id="porto", slot=("user", "home_city", "Porto"),
            created_at="2019-05-01", recorded_at="2023-01-01")
    # an older recording of a newer fact (e.g. two imports in the wrong order)
    mem.add("The user moved to Lisbon.", id="lisbon", slot=("user", "home_city", "Lisbon"),
            created_at="2022-03-20", recorded_at="2022-06-01")
    porto = mem.get("porto")
    assert porto.retired_at >= porto.recorded_at
    assert [h.id for h in mem.recall(Q, k=5, as_of="2023-06-01").hits] == ["lisbon"]


# ---------------------------------------------------------------- CLI
def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _readme_commands():
    """The README's slot and --as-of commands, as written (``DIR`` is the store)."""
    lines = [ln.split("  #")[0].strip() for ln in README.read_text().splitlines()]
    adds = [ln for ln in lines if ln.startswith("engramdb add --store DIR --subject user")]
    recalls = [ln for ln in lines if re.match(r"engramdb recall --store DIR --(as-of|valid-at) ", ln)]
    return adds, recalls


def test_readme_as_of_example_works_through_the_cli(tmp_path):
    adds, recalls = _readme_commands()
    assert adds and recalls
    store = str(tmp_path / "s")
    for cmd in adds:
        argv = [store if a == "DIR" else a for a in shlex.split(cmd)[1:]]
        out = run(*argv)
        assert out.exit_code == 0, out.output
    for cmd in recalls:
        argv = [store if a == "DIR" else a for a in shlex.split(cmd)[1:]]
        out = run(*argv)
        assert out.exit_code == 0 and "Lisbon" in out.output, (cmd, out.output)
        js = json.loads(run(*argv[:-1], "--json", argv[-1]).output)
        assert js["hits"] and "Lisbon" in js["hits"][0]["text"]
    now = json.loads(run("recall", "--store", store, "--json", "where do I live?").output)
    assert "Porto" in now["hits"][0]["text"]
    assert json.loads(run("current", "--store", store, "--json", "user", "home_city").output)["value"] == "Porto"
    assert "Porto" in run("current", "--store", store, "User", "Home City").output
    prof = json.loads(run("profile", "--store", store, "--json", "user").output)
    assert {a: m["value"] for a, m in prof.items()} == {"home_city": "Porto"}
    assert "no current value" in run("current", "--store", store, "user", "job").output


def test_cli_recorded_at_on_add_and_ingest(tmp_path, clock):
    s = tmp_path / "s"
    assert run("add", "--store", s, "--id", "a", "--recorded-at", "2020-01-01", "--created-at", "2020-01-01",
               "first note").exit_code == 0
    assert json.loads(run("get", "--store", s, "a").output)["recorded_at"] == utc(2020, 1, 1)
    f = tmp_path / "m.jsonl"
    f.write_text(json.dumps({"id": "b", "text": "second note", "created_at": "2020-02-01"}) + "\n"
                 + json.dumps({"id": "c", "text": "third note", "recorded_at": "2020-03-05"}) + "\n")
    assert run("ingest", "--store", s, "--recorded-at", "2020-02-02", f).exit_code == 0
    got = {i: json.loads(run("get", "--store", s, i).output)["recorded_at"] for i in ("b", "c")}
    assert got == {"b": utc(2020, 2, 2), "c": utc(2020, 3, 5)}
    q = json.loads(run("query", "--store", s, "--as-of", "2020-02-15", "--json").output)
    assert [m["id"] for m in q] == ["b", "a"]
    q = json.loads(run("query", "--store", s, "--valid-at", "2020-01-15", "--json").output)
    assert [m["id"] for m in q] == ["a"]
    bad = run("add", "--store", s, "--recorded-at", "2999-01-01", "future note")
    assert bad.exit_code == 2 and "recorded_at" in bad.output


@pytest.mark.parametrize("batch", [False, True])
def test_a_backfilled_value_ends_the_one_valid_when_it_starts(tmp_path, batch):
    """Lisbon (2020), Porto (2023), then Braga backfilled at 2022: at any time one value holds,
    Lisbon's validity ends when Braga's starts (found by a fresh-user pass: valid_at 2022-06
    gave Braga and Lisbon)."""
    items = [{"text": "I live in Lisbon.", "id": "l", "slot": ("user", "home_city", "Lisbon"), "created_at": "2020-01-01"},
             {"text": "I live in Porto now.", "id": "p", "slot": ("user", "home_city", "Porto"), "created_at": "2023-01-01"},
             {"text": "Actually I moved to Braga.", "id": "b", "slot": ("user", "home_city", "Braga"),
              "created_at": "2022-01-01"}]
    with engramdb.open(tmp_path / "s", embedder="hashing") as m:
        if batch:
            m.add_batch(items)
        else:
            for it in items:
                m.add(it["text"], id=it["id"], slot=it["slot"], created_at=it["created_at"])
        for when, want in (("2021-06-01", ["Lisbon"]), ("2022-06-01", ["Braga"]), ("2023-06-01", ["Porto"])):
            assert [x.value for x in m.query(subject="user", attribute="home_city", valid_at=when)] == want
        assert m.get("l").valid_to == utc(2022, 1, 1) and m.get("l").superseded_by == "b"
        assert m.get("b").valid_to == utc(2023, 1, 1) and m.get("p").state is engramdb.MemoryState.ACTIVE
