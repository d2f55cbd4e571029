"""`engramdb shards ...`: the CLI over the sharded API (sequential runner; Ray's is tests/test_ray_jobs.py)."""
import json

import duckdb
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.sharding import shard_of


def _run(*args):
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def test_init_admit_rescore_export_and_resume(tmp_path):
    root = str(tmp_path / "r")
    _run("shards", "init", root, "--shards", "3", "--embedder", "hashing")
    info = json.loads(_run("shards", "info", root, "-n", "alice"))
    assert info["n_shards"] == 3 and info["namespaces"] == {"alice": shard_of("alice", 3)}
    lines = [{"namespace": ns, "text": f"{ns} works at company {i} in Porto."} for i in range(5)
             for ns in ("alice", "bob", "carol")] + [{"namespace": "bob", "text": "thanks, bye!"}]
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = json.loads(_run("shards", "admit", root, str(tmp_path / "c.jsonl"), "--now", "1.7e9", "--job-id", "day1",
                          "--chunk-size", "2", "--json"))
    assert out["result"]["candidates"] == 16 and out["result"]["reject"] == 1 and out["units_run"] == 9
    again = json.loads(_run("shards", "admit", root, str(tmp_path / "c.jsonl"), "--job-id", "day1", "--json"))
    assert again["units_run"] == 0 and again["units_resumed"] == 9 and again["result"] == out["result"]
    resc = json.loads(_run("shards", "rescore", root, "--now", "2e9", "--json"))
    assert resc["result"]["scanned"] == out["result"]["stored"]
    exp = json.loads(_run("shards", "export", root, "--out", str(tmp_path / "ds"), "--json"))
    n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{tmp_path}/ds/memories/**/*.parquet', hive_partitioning=true)"
                   ).fetchall()[0][0]
    assert n == exp["result"]["memories"] == out["result"]["stored"]
    with engramdb.open_sharded(root, readonly=True) as sh:
        assert sh.namespaces() == ["alice", "bob", "carol"]


def test_unknown_deployment_is_a_one_line_error(tmp_path):
    res = CliRunner().invoke(main, ["shards", "rescore", str(tmp_path / "none")])
    assert res.exit_code == 2 and "StoreNotFoundError" in res.output
