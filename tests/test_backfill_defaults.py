"""A memory backfilled with ``recorded_at`` happened when it was recorded, unless told otherwise:
its event time (``created_at``) and ``valid_from`` default to the record time, not the wall clock,
so ``recall(as_of=...)`` after the record time finds it (before the fix it was "recorded before
it was valid" and no ``as_of`` before now found it)."""
import engramdb
import pytest
from engramdb.validate import to_unix_seconds

T = to_unix_seconds("2024-01-01")
LATER = "2025-01-01"


@pytest.fixture
def mem(tmp_store):
    with engramdb.open(tmp_store) as m:
        yield m


def _times(mem, id):
    m = mem.get(id)
    return m.created_at, m.valid_from, m.recorded_at


def test_add_with_recorded_at_is_valid_from_then(mem):
    mem.add("The wifi password is hunter2.", id="w", recorded_at="2024-01-01")
    assert _times(mem, "w") == (T, T, T)
    assert [h.id for h in mem.recall("wifi password", as_of=LATER).hits] == ["w"]
    assert mem.recall("wifi password", as_of="2023-12-31").hits == []


def test_add_batch_per_call_and_per_item(mem):
    mem.add_batch([{"text": "The door code is 4411.", "id": "d"},
                   {"text": "The gate code is 9902.", "id": "g", "recorded_at": "2023-06-01"}],
                  recorded_at="2024-01-01")
    assert _times(mem, "d") == (T, T, T)
    t_g = to_unix_seconds("2023-06-01")
    assert _times(mem, "g") == (t_g, t_g, t_g)
    assert [h.id for h in mem.recall("door code", as_of=LATER).hits][:1] == ["d"]


def test_given_times_still_win(mem):
    mem.add("I moved to Porto.", id="p", recorded_at="2024-01-01", created_at="2023-03-01")
    assert _times(mem, "p") == (to_unix_seconds("2023-03-01"),) * 2 + (T,)
    mem.add("I started a new job.", id="j", recorded_at="2024-01-01", valid_from="2023-09-01")
    assert _times(mem, "j") == (T, to_unix_seconds("2023-09-01"), T)


def test_supersede_and_admit_batch_backfill(mem):
    mem.add("The router is a Fritzbox.", id="r", recorded_at="2023-01-01")
    new = mem.supersede("r", "The router is a TP-Link.", id="r2", recorded_at="2024-01-01")
    assert _times(mem, new) == (T, T, T)
    assert mem.get("r").valid_to == T
    assert [h.id for h in mem.recall("router", as_of=LATER).hits][:1] == ["r2"]
    mem.admit_batch([{"text": "My passport number is X1234567.", "id": "pp"}], recorded_at="2024-01-01")
    assert _times(mem, "pp") == (T, T, T)


def test_add_conversation_backfill(mem):
    out = mem.add_conversation([{"role": "user", "content": "The boiler was serviced by Ana."}],
                               recorded_at="2024-01-01", entities=False)
    (mid,) = out["message_ids"]
    assert _times(mem, mid) == (T, T, T)
    assert mid in [h.id for h in mem.recall("boiler serviced", as_of=LATER).hits]


def test_a_backfilled_memory_decays_from_its_record_time(mem):
    """Its salience's t0 is its record time, as the rescore docstring says (it was the wall
    clock: a year of imported notes arrived fresh and never faded relative to its own history)."""
    day = 86400.0
    mem.add("Went for a run by the river.", id="run", recorded_at="2024-01-01")   # episodic: 14 days
    mem.add("Booked the dentist for March.", id="dentist")   # recorded now
    half = mem.config.decay.initial_salience / 2
    assert mem.salience("run", now=T + 14 * day) == pytest.approx(half, rel=1e-6)
    assert mem.salience("run", now=T + 365 * day) < 1e-6
    out = mem.rescore()   # the wall clock: the backfilled run has faded, the new memory has not
    assert out["archived"] == 1
    assert mem.get("run").state.value == "archived" and mem.get("dentist").state.value == "active"


def test_rescore_says_how_many_memories_were_recorded_after_its_now(tmp_path):
    """A fresh user rescored a store at a past `now` after storing its history without
    `recorded_at`: nothing was archived and the summary gave no hint why (every memory was
    recorded after `now`, and keeps its stored salience)."""
    from click.testing import CliRunner

    from engramdb.cli import main

    store = tmp_path / "s"
    with engramdb.open(store, embedder="hashing") as eng:
        eng.add("I had a checkup with Dr Silva.", id="a", created_at="2025-03-01")
        eng.add("I moved to Lisbon.", id="b", created_at="2025-03-02", recorded_at="2025-03-02")
        out = eng.rescore("2025-09-01")
        assert out["recorded_after_now"] == 1 and out["scanned"] == 2
        assert eng.rescore()["recorded_after_now"] == 0
    res = CliRunner().invoke(main, ["rescore", "--store", str(store), "--now", "2025-09-01"])
    assert res.exit_code == 0 and "1 memory recorded after --now, judged at their stored salience" in res.output


def test_the_cli_rescore_says_what_protection_kept(tmp_path):
    """The CLI printed archived and pruned counts but not the memories kept only because they
    are protected (a fresh user could not tell the allergy from a forgotten aside)."""
    from click.testing import CliRunner

    from engramdb.cli import main

    store = tmp_path / "s"
    with engramdb.open(store, embedder="hashing") as eng:
        for i, text in enumerate(["I'm allergic to peanuts.", "We talked about the weather."]):
            eng.add(text, id=f"m{i}", created_at="2024-01-01", recorded_at="2024-01-01",
                    tags=["protected"] if i == 0 else [])
    res = CliRunner().invoke(main, ["rescore", "--store", str(store), "--now", "2026-01-01"])
    assert res.exit_code == 0, res.output
    assert "archived 1" in res.output and "kept from archiving: 1 protected" in res.output
    with engramdb.open(store) as eng:
        assert eng.get("m0").state is engramdb.MemoryState.ACTIVE
        assert eng.get("m1").state is engramdb.MemoryState.ARCHIVED
