"""Batch jobs on a local Ray (2 CPUs): each equals the shards run one after another, and a
writer killed mid-job loses nothing committed; the same job id resumes the rest.

Ray is the optional extra ``engramdb[ray]``; the ``test`` extra installs it, so with
``ENGRAMDB_REQUIRE_INTEGRATIONS=1`` (``make test``, CI) a missing Ray fails instead of skipping.
"""
import importlib
import os
import shutil

import duckdb
import pytest

import engramdb
from engramdb import jobs
from engramdb.ingest import ingest_locomo
from engramdb.locomo import default_locomo_path

if os.environ.get("ENGRAMDB_REQUIRE_INTEGRATIONS") == "1":
    ray = importlib.import_module("ray")
else:
    ray = pytest.importorskip("ray")

from engramdb.ray_jobs import RayShards

NAMESPACES = [f"user-{i}" for i in range(8)]
NOW = 1.7e9       # admission and export time (before the wall clock: record times are never in the future)
LATER = 2.0e9     # rescore / consolidation time: old episodes have decayed by then


@pytest.fixture(scope="session")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _candidates(n=60):
    out = []
    for i in range(n):
        ns = NAMESPACES[i % 4]
        if i % 7 == 3:
            out.append({"namespace": ns, "text": "haha thanks, bye!"})
        elif i % 7 == 5:
            out.append({"namespace": ns, "text": f"{ns} keeps a blue bicycle in the garage number 0"})
        else:
            out.append({"namespace": ns, "text": f"My colleague number {i} works at company {i} in Lisbon."})
    return out


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A 3-shard deployment: 8 namespaces of old episodes and recent facts, near-duplicate facts."""
    root = tmp_path_factory.mktemp("ray") / "template"
    with engramdb.open_sharded(root, n_shards=3, embedder="hashing") as sh:
        for i, ns in enumerate(NAMESPACES):
            sh.add_batch([{"id": f"m{j}", "text": f"{ns} keeps a blue bicycle in the garage number {j}",
                           "kind": "episodic" if j % 2 else "semantic", "created_at": 1e9 if j % 2 else 1.6e9}
                          for j in range(8)], namespace=ns)
    return root


def _copy(template, tmp_path, name):
    dst = tmp_path / name
    shutil.copytree(template, dst)
    return dst


def _rows(path):
    return duckdb.sql(
        f"SELECT shard, namespace, id, kind, state, text, round(salience_now, 6), access_count, confidence "
        f"FROM read_parquet('{path}/memories/**/*.parquet', hive_partitioning = true, "
        "hive_types = {'shard': INTEGER, 'namespace': VARCHAR}) ORDER BY namespace, id").fetchall()


def _same(a, b):
    """Job results equal, less the dataset's own path."""
    strip = (lambda r: {k: v for k, v in r.items() if k != "path"})
    assert strip(a.result) == strip(b.result)
    assert a.shards == b.shards


def test_every_job_on_ray_equals_the_shards_one_after_another(local_ray, template, tmp_path):
    seq_root, ray_root = _copy(template, tmp_path, "seq"), _copy(template, tmp_path, "ray")
    seq = [jobs.run(seq_root, "admit", job_id="a", candidates=_candidates(), now=NOW, chunk_size=4),
           jobs.run(seq_root, "consolidate", job_id="c", now=LATER),
           jobs.run(seq_root, "rescore", job_id="r", now=LATER),
           jobs.run(seq_root, "export", job_id="e", now=NOW, out=tmp_path / "seq-ds")]
    events = []
    with RayShards(ray_root, workers=2) as cluster:
        par = [cluster.run("admit", job_id="a", candidates=iter(_candidates()), now=NOW, chunk_size=4,
                           on_progress=events.append),
               cluster.run("consolidate", job_id="c", now=LATER),
               cluster.run("rescore", job_id="r", now=LATER),
               cluster.run("export", job_id="e", now=NOW, out=tmp_path / "ray-ds")]
    for a, b in zip(seq, par):
        assert b.runner == "ray" and a.runner == "sequential"
        _same(a, b)
    adm, cons, resc = par[0].result, par[1].result, par[2].result
    assert adm["candidates"] == 60 and adm["reject"] > 0 and adm["reinforce"] > 0 and adm["admit"] > 0
    assert resc["scanned"] == 8 * 8 + adm["admit"] and resc["archived"] > 0
    assert cons["merged"] > 0 and cons["namespaces"] == 8   # near-duplicate facts superseded
    # progress: one event per admission chunk as it finished (15 per namespace / 4 -> 4 chunks x 4 namespaces)
    assert len(events) == par[0].units_run == 16 and [e["units_done"] for e in events] == list(range(1, 17))
    rows = _rows(tmp_path / "ray-ds")
    assert rows == _rows(tmp_path / "seq-ds") and len(rows) == par[3].result["memories"]


@pytest.mark.parametrize("point", ["after_commit", "after_record"])
def test_writer_killed_mid_admission_keeps_its_commits_and_the_job_resumes(local_ray, template, tmp_path, point):
    seq_root, ray_root = _copy(template, tmp_path, "seq"), _copy(template, tmp_path, "ray")
    want = jobs.run(seq_root, "admit", job_id="adm", candidates=_candidates(), now=NOW, chunk_size=4)
    victim = engramdb.sharding.shard_of("user-0", 3)
    victim_ns = [ns for ns in NAMESPACES[:4] if engramdb.sharding.shard_of(ns, 3) == victim]
    with RayShards(ray_root, workers=2) as cluster:
        with pytest.raises(jobs.JobIncompleteError) as err:
            cluster.run("admit", job_id="adm", candidates=_candidates(), now=NOW, chunk_size=4,
                        crash={"shard": victim, "after_units": 2, "point": point})
        assert set(err.value.failed) == {victim}
        # the victim's first two chunks committed before it died; the shards that survived finished
        with engramdb.open(ray_root / f"shard-000{victim}", readonly=True) as store:
            kept = {m.id for ns in victim_ns for m in store.query(namespace=ns) if m.id.startswith("adm:")}
        assert kept and all(int(i.split(":")[1]) < 8 for i in kept)   # ids of chunks 0 and 1 only
        resumed = cluster.run("admit", job_id="adm", candidates=_candidates())
    assert resumed.units_resumed > 0 and resumed.units_run == 16 - resumed.units_resumed
    _same(want, resumed)
    seq_out, ray_out = tmp_path / "seq-ds", tmp_path / "ray-ds"
    jobs.run(seq_root, "export", now=NOW, out=seq_out)
    jobs.run(ray_root, "export", now=NOW, out=ray_out)
    assert _rows(ray_out) == _rows(seq_out)


def test_killed_rescore_resumes_to_the_uninterrupted_result(local_ray, template, tmp_path):
    seq_root, ray_root = _copy(template, tmp_path, "seq"), _copy(template, tmp_path, "ray")
    want = jobs.run(seq_root, "rescore", job_id="nightly", now=LATER)
    with RayShards(ray_root, workers=2) as cluster:
        with pytest.raises(jobs.JobIncompleteError):
            cluster.run("rescore", job_id="nightly", now=LATER, crash={"shard": 1, "after_units": 1,
                                                                        "point": "after_commit"})
        got = cluster.run("rescore", job_id="nightly")
    assert got.units_run == 1 and got.units_resumed == 2   # only the killed shard ran again
    _same(want, got)
    assert got.result["archived"] > 0


def test_locomo_evaluation_fans_out_and_equals_the_sequential_run(local_ray, tmp_path):
    data = default_locomo_path()
    if not data.exists():
        pytest.skip(f"LoCoMo data not at {data}")
    root = tmp_path / "locomo"
    convs = ["conv-26", "conv-30", "conv-41"]   # shards 1, 0 and 0 of 2
    with engramdb.open_sharded(root, n_shards=2, embedder="hashing") as sh:
        ingest_locomo(sh, data, conversations=convs, progress=False, entities=False)
    want = jobs.run(root, "locomo", data=data)
    got = RayShards(root, workers=2).run("locomo", data=data)
    _same(want, got)
    assert sorted(got.result["per_conversation"]) == convs
    assert got.result["questions"] == sum(v["questions"] for v in got.result["per_conversation"].values()) > 300
    assert 10 < got.result["recall@10"] < 100
