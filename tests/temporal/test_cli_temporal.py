"""CLI mirrors the temporal API: add with a slot, supersede --by, history, update, query, recall --as-of."""
import json

from click.testing import CliRunner

from engramdb.cli import main


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_temporal_commands(tmp_path, clock):
    s = tmp_path / "s"
    assert run("add", "--store", s, "--id", "paris", "--subject", "user", "--attribute", "home_city",
               "--value", "Paris", "--created-at", "2019-01-01", "The user lives in Paris").exit_code == 0
    t_paris = clock.t
    clock.advance(100)
    assert run("add", "--store", s, "--id", "berlin", "--subject", "user", "--attribute", "home_city",
               "--value", "Berlin", "--valid-from", "2021-06-01T00:00:00Z", "The user moved to Berlin").exit_code == 0
    got = json.loads(run("get", "--store", s, "paris").output)
    assert (got["state"], got["superseded_by"], got["valid_to"]) == ("superseded", "berlin", 1622505600.0)

    hist = json.loads(run("history", "--store", s, "--json", "paris").output)
    assert [(h["id"], h["ended_by"]) for h in hist] == [("paris", "superseded"), ("berlin", None)]
    assert "history of paris" in run("history", "--store", s, "paris").output

    now = json.loads(run("recall", "--store", s, "--json", "where does the user live").output)
    assert [h["id"] for h in now["hits"]] == ["berlin"] and now["warnings"] == []
    then = json.loads(run("recall", "--store", s, "--json", "--as-of", t_paris + 50, "where does the user live").output)
    assert [h["id"] for h in then["hits"]] == ["paris"]

    upd = json.loads(run("update", "--store", s, "--text", "The user moved to Berlin-Mitte", "berlin").output)
    assert (upd["text"], upd["version"]) == ("The user moved to Berlin-Mitte", 2)

    assert run("add", "--store", s, "--id", "d1", "--kind", "decision", "--tag", "pricing",
               "--created-at", "2024-01-01", "We chose flat pricing").exit_code == 0
    assert run("add", "--store", s, "--id", "d2", "--kind", "decision", "--tag", "pricing",
               "--created-at", "2024-03-01", "We moved to usage pricing").exit_code == 0
    q = json.loads(run("query", "--store", s, "--kind", "decision", "--tag", "pricing", "--json").output)
    assert [m["id"] for m in q] == ["d2", "d1"]
    assert "query (event_time_desc, 2 memories)" in run("query", "--store", s, "--kind", "decision").output

    assert run("supersede", "--store", s, "--by", "d2", "d1").output.strip() == "d2"
    bad = run("supersede", "--store", s, "--by", "d1", "d2")
    assert bad.exit_code == 2 and "cycle" in bad.output
    assert run("supersede", "--store", s, "--id", "d3", "d2", "We went back to flat pricing").output.strip() == "d3"
    assert json.loads(run("get", "--store", s, "d2").output)["superseded_by"] == "d3"
