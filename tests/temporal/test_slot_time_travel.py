"""current() and profile() at a time: as_of (what the store held current then, worded as then)
and valid_at (what held in the world then, as known now), in the API and the CLI. Time travel
stopped at recall and query: "what plan was Acme on in January?" could not be read from the slot."""
import json

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s"
    with engramdb.open(path, embedder="hashing") as m:
        m.add("Acme is on the Starter plan.", id="p1", namespace="acme", slot=("acme", "plan", "Starter"),
              recorded_at="2025-01-02", valid_from="2025-01-01")
        m.add("Acme is on the Pro plan.", id="p2", namespace="acme", slot=("acme", "plan", "Pro"),
              recorded_at="2025-02-02", valid_from="2025-02-01")
        m.update("p2", text="Acme is on the Pro plan (annual).", namespace="acme")
        m.add("Acme's admin is Raj.", id="a1", namespace="acme", slot=("acme", "admin", "Raj"),
              recorded_at="2025-02-10", valid_from="2025-02-10")
    return path


def test_current_and_profile_at_a_time(store):
    with engramdb.open(store) as m:
        now = m.current("acme", "plan", namespace="acme")
        assert (now.id, now.text) == ("p2", "Acme is on the Pro plan (annual).")
        then = m.current("acme", "plan", namespace="acme", as_of="2025-01-15")
        assert (then.id, then.state.value, then.superseded_by) == ("p1", "active", None)   # as held then
        feb = m.current("acme", "plan", namespace="acme", as_of="2025-02-15")
        assert (feb.id, feb.text) == ("p2", "Acme is on the Pro plan.")                   # worded as then
        assert m.current("acme", "plan", namespace="acme", valid_at="2025-01-15").id == "p1"
        assert m.current("acme", "plan", namespace="acme", as_of="2024-12-01") is None
        assert {a: v.id for a, v in m.profile("acme", namespace="acme", as_of="2025-01-15").items()} == {"plan": "p1"}
        assert {a: v.id for a, v in m.profile("acme", namespace="acme", valid_at="2025-02-20").items()} == \
            {"admin": "a1", "plan": "p2"}
        with pytest.raises(engramdb.InvalidInputError):
            m.current("acme", "plan", namespace="acme", as_of="not a time")


def test_the_cli_reads_a_slot_at_a_time(store):
    run = CliRunner().invoke
    out = run(main, ["current", "--store", str(store), "-n", "acme", "--as-of", "2025-01-15", "--json", "acme", "plan"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["id"] == "p1"
    out = run(main, ["profile", "--store", str(store), "-n", "acme", "--valid-at", "2025-01-15", "--json", "acme"])
    assert out.exit_code == 0 and {a: v["id"] for a, v in json.loads(out.output).items()} == {"plan": "p1"}
