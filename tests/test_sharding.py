"""Sharding without Ray: the namespace -> shard rule, the manifest, verbs routed by namespace,
fan-out verbs, the sequential job runner with its journal, and the Parquet dataset export."""
import hashlib
import json
import subprocess
import sys

import duckdb
import pytest

import engramdb
from engramdb import jobs
from engramdb.sharding import MANIFEST, RULE, read_manifest, shard_of

NAMESPACES = [f"user-{i}" for i in range(9)]


def _expected_shard(name, n):
    return int.from_bytes(hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest(), "big") % n


def fill(sh, namespaces=NAMESPACES, per_ns=6):
    """``per_ns`` memories in each namespace: half old (created 2001), half recent."""
    for i, ns in enumerate(namespaces):
        sh.add_batch([{"id": f"m{j}", "text": f"note {j} of {ns}: likes {j + i} green apples in town {j}",
                       "kind": "episodic" if j % 2 else "semantic", "created_at": 1e9 if j % 2 else 1.6e9} for j in range(per_ns)],
                     namespace=ns)


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "shards"
    with engramdb.open_sharded(path, n_shards=3, embedder="hashing") as sh:
        fill(sh)
    return path


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64])
def test_shard_rule_is_blake2b_64_big_endian_mod_n(n):
    for name in [*NAMESPACES, "ä-ü", "a b/c=d%", "x" * 256]:
        assert shard_of(name, n) == _expected_shard(name, n)


def test_shard_rule_is_the_same_in_another_process_with_another_hash_seed():
    names = NAMESPACES + ["conv-26", "tenant/42"]
    code = f"import json; from engramdb.sharding import shard_of; print(json.dumps([shard_of(n, 5) for n in {names!r}]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "12345", "PATH": ""})
    assert json.loads(out.stdout) == [shard_of(n, 5) for n in names]


def test_shard_rule_spreads_namespaces_evenly():
    counts = [0] * 8
    for i in range(4000):
        counts[shard_of(f"tenant-{i}", 8)] += 1
    assert min(counts) > 400 and max(counts) < 600   # 500 each expected; 4.5 sigma is about +-100


@pytest.mark.parametrize("bad", [0, -1, 65537, 2.0, True, None])
def test_bad_shard_count_is_refused(bad):
    with pytest.raises(engramdb.InvalidInputError):
        shard_of("a", bad)


def test_bad_namespace_is_refused():
    with pytest.raises(engramdb.NamespaceError):
        shard_of("", 3)


def test_manifest_records_rule_count_and_shards(root):
    doc = json.loads((root / MANIFEST).read_text())
    assert doc["rule"] == RULE and doc["rule_version"] == 1 and doc["n_shards"] == 3
    assert doc["shards"] == ["shard-0000", "shard-0001", "shard-0002"]
    assert doc["dim"] == 384
    for name in doc["shards"]:
        assert (root / name / "data.mdb").exists()
    assert read_manifest(root) == doc


def test_reopen_with_another_shard_count_is_an_error(root, tmp_path):
    with pytest.raises(engramdb.ConfigError, match="cannot change"):
        engramdb.open_sharded(root, n_shards=4)
    with pytest.raises(engramdb.StoreNotFoundError):
        engramdb.open_sharded(tmp_path / "none")   # no n_shards: nothing is created
    assert not (tmp_path / "none").exists()
    with engramdb.open_sharded(root) as sh:   # its own count
        assert sh.n_shards == 3


def test_each_namespace_lives_in_its_shard_only(root):
    with engramdb.open_sharded(root, readonly=True) as sh:
        assert sh.namespaces() == sorted(NAMESPACES)
        paths = [sh.shard_path(s) for s in range(3)]
    for s, path in enumerate(paths):
        with engramdb.open(path, readonly=True) as store:
            assert store.namespaces() == sorted(ns for ns in NAMESPACES if _expected_shard(ns, 3) == s)


def test_routed_verbs_answer_as_the_shard_store_does(root):
    got = {}
    with engramdb.open_sharded(root, readonly=True) as sh:
        for ns in NAMESPACES[:4]:
            res = sh.recall("green apples", namespace=ns, k=3, reinforce=False)
            got[ns] = [(h.id, h.score) for h in res.hits]
            assert all(sh.get(h.id, namespace=ns).namespace == ns for h in res.hits)
        assert sh.get("m2", namespace="user-5").text.startswith("note 2 of user-5")
        with pytest.raises(engramdb.MemoryNotFoundError):
            sh.get("m2", namespace="user-absent")
    for ns, hits in got.items():
        with engramdb.open(root / f"shard-000{shard_of(ns, 3)}", readonly=True) as store:
            want = store.recall("green apples", namespace=ns, k=3, reinforce=False)
        assert len(hits) == 3 and hits == [(h.id, h.score) for h in want.hits]


def test_writes_are_routed_and_a_handle_is_bound(root):
    with engramdb.open_sharded(root) as sh:
        sh.namespace("new-user").add("I moved to Porto in March.", id="home")
        sh.link("m0", "m1", "supports", namespace="user-1")
        assert [e.target for e in sh.edges("m0", namespace="user-1") if e.relation.value == "supports"] == ["m1"]
        stats = sh.stats()
        assert stats["memories"] == len(NAMESPACES) * 6 + 1
        assert stats["namespaces"]["new-user"]["shard"] == shard_of("new-user", 3)
    with engramdb.open(root / read_manifest(root)["shards"][shard_of("new-user", 3)], readonly=True) as store:
        assert store.get("home", namespace="new-user").text == "I moved to Porto in March."


def test_fan_out_rescore_sums_the_shards(root, tmp_path):
    with engramdb.open_sharded(root) as sh:
        out = sh.rescore(now=2.0e9)
        assert out["scanned"] == len(NAMESPACES) * 6
        assert out["archived"] == sum(p["archived"] for p in out["shards"]) > 0
        assert len(out["shards"]) == 3
        one = sh.rescore(now=2.0e9, namespace="user-1")   # routed: one shard, one namespace
        assert one["scanned"] == 6
        log = sh.dynamics_log(action="archive")
        assert len(log) == out["archived"] and {e["shard"] for e in log} <= {0, 1, 2}


def test_sequential_job_resumes_from_its_journal(root):
    first = jobs.run(root, "rescore", job_id="nightly-1", now=2.0e9)
    assert first.units_run == 3 and first.units_resumed == 0
    assert first.result["scanned"] == len(NAMESPACES) * 6 and first.result["archived"] > 0
    again = jobs.run(root, "rescore", job_id="nightly-1")   # parameters come from the journal
    assert again.units_run == 0 and again.units_resumed == 3
    assert again.result == first.result and again.params["now"] == 2.0e9
    with pytest.raises(engramdb.ConfigError, match="started with now"):
        jobs.run(root, "rescore", job_id="nightly-1", now=2.1e9)
    with pytest.raises(engramdb.ConfigError, match="is a rescore job"):
        jobs.run(root, "consolidate", job_id="nightly-1")
    with pytest.raises(engramdb.InvalidInputError):
        jobs.run(root, "rescore", job_id="../escape")


def candidates(n=40):
    """A stream over five namespaces: new facts, chatter (rejected) and restatements of
    stored notes (reinforce)."""
    out = []
    for i in range(n):
        ns = NAMESPACES[i % 5]
        if i % 7 == 3:
            out.append({"namespace": ns, "text": "thanks, bye!"})
        elif i % 7 == 5:
            out.append({"namespace": ns, "text": f"note 0 of {ns}: likes {NAMESPACES.index(ns)} green apples in town 0"})
        else:
            out.append({"namespace": ns, "text": f"My colleague number {i} works at company {i} in Lisbon."})
    return out


def test_sequential_admission_job_equals_admit_batch_per_chunk(root, tmp_path):
    events = []
    res = jobs.run(root, "admit", job_id="adm", candidates=iter(candidates()), now=1.7e9, chunk_size=3,
                   on_progress=events.append)
    r = res.result
    assert r["candidates"] == 40 and r["admit"] + r["reject"] + r["reinforce"] == 40
    assert r["reject"] >= 5 and r["reinforce"] >= 5 and r["admit"] >= 20
    assert len(events) == res.units_run == sum(-(-8 // 3) for _ in range(5))   # 8 per namespace, chunks of 3
    with engramdb.open_sharded(root, readonly=True) as sh:
        # candidates without an id get "<job_id>:<position in their namespace's stream>"
        assert sh.get("adm:0", namespace="user-0").text == "My colleague number 0 works at company 0 in Lisbon."
        assert sh.get("adm:0", namespace="user-0").recorded_at == 1.7e9
    again = jobs.run(root, "admit", job_id="adm", candidates=iter(candidates()))
    assert again.units_run == 0 and again.result == r


def test_export_is_one_parquet_dataset_duckdb_reads(root, tmp_path):
    with engramdb.open_sharded(root) as sh:
        sh.add("special namespace name", id="s", namespace="a b/c=d%")
        out = sh.export(tmp_path / "ds", now=2.0e9)
        stats = sh.stats()
    assert out["memories"] == stats["memories"] and out["edges"] == stats["edges"]
    rows = duckdb.sql(
        f"SELECT shard, namespace, id, text FROM read_parquet('{tmp_path}/ds/memories/**/*.parquet', "
        "hive_partitioning = true, hive_types = {'shard': INTEGER, 'namespace': VARCHAR}) ORDER BY namespace, id"
    ).fetchall()
    assert len(rows) == stats["memories"]
    for shard, ns, id_, text in rows:
        assert shard == shard_of(ns, 3)
    assert ("a b/c=d%", "s", "special namespace name") in [(ns, i, t) for _, ns, i, t in rows]
    # every row equals the shard store's own export of it
    want = []
    for s in range(3):
        with engramdb.open(root / f"shard-000{s}", readonly=True) as store:
            exp = store.export(tmp_path / f"single-{s}", now=2.0e9)
        want += duckdb.sql(f"SELECT {s}, namespace, id, text FROM read_parquet('{exp['memories']}')").fetchall()
    assert rows == sorted(want, key=lambda r: (r[1], r[2]))
    # pyarrow's dataset reader (what pandas.read_parquet and ray.data read through) sees the same rows
    import pyarrow as pa
    import pyarrow.dataset as ds

    part = ds.partitioning(pa.schema([("shard", pa.int32()), ("namespace", pa.string())]), flavor="hive")
    table = ds.dataset(tmp_path / "ds" / "memories", format="parquet", partitioning=part).to_table(
        columns=["shard", "namespace", "id", "text"])
    assert sorted(table.to_pylist(), key=lambda r: (r["namespace"], r["id"])) == [
        {"shard": a, "namespace": b, "id": c, "text": d} for a, b, c, d in rows]
    n_edges = duckdb.sql(f"SELECT count(*) FROM read_parquet('{tmp_path}/ds/edges/**/*.parquet', "
                         "hive_partitioning = true)").fetchall()[0][0]
    assert n_edges == stats["edges"]


def test_every_engine_verb_with_a_namespace_is_on_the_sharded_object():
    import inspect

    verbs = [name for name, fn in inspect.getmembers(engramdb.Engram, inspect.isfunction)
             if not name.startswith("_") and "namespace" in inspect.signature(fn).parameters
             and inspect.signature(fn).parameters["namespace"].kind is inspect.Parameter.KEYWORD_ONLY]
    assert {"add", "add_batch", "recall", "recall_batch", "admit_batch", "rescore", "consolidate", "get"} <= set(verbs)
    for verb in verbs:
        method = getattr(engramdb.ShardedEngram, verb)
        assert inspect.signature(method) == inspect.signature(getattr(engramdb.Engram, verb)), verb
        assert method.__doc__ and getattr(engramdb.Engram, verb).__doc__ in method.__doc__


def test_the_ledger_of_a_deployment_is_every_shard_s_ledger(root):
    with engramdb.open_sharded(root, readonly=True) as sh:
        entries = sh.ledger()
        first = sh.ledger(namespace=NAMESPACES[0])
        reports = sh.verify_ledger()
        paths = [sh.shard_path(s) for s in range(3)]
    per_shard = []
    for path in paths:
        with engramdb.open(path, readonly=True) as store:
            per_shard.append(store.ledger())
    assert len(entries) == sum(len(p) for p in per_shard)
    adds = [e for e in entries if e.verb == "add_batch"]
    assert sorted(ns for e in adds for ns in e.namespaces) == sorted(NAMESPACES)
    home = per_shard[_expected_shard(NAMESPACES[0], 3)]
    assert [e.ids for e in first] == [e.ids for e in home if NAMESPACES[0] in e.namespaces]
    assert len(reports) == 3 and all(r.ok for r in reports)
