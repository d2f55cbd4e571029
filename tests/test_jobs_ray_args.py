"""The Ray runner checks a job's id and arguments as the sequential one does, before anything
is created on disk (and before any writer actor starts): a reserved admission job id, a
missing candidate stream, a worker count out of range (0 used to loop for ever)."""
import importlib
import os

import pytest

import engramdb

if os.environ.get("ENGRAMDB_REQUIRE_INTEGRATIONS") == "1":
    ray = importlib.import_module("ray")
else:
    ray = pytest.importorskip("ray")

from engramdb.ray_jobs import RayShards

CANDIDATES = [{"namespace": "alice", "text": "My sister Ana moved to Rome in 2023."}]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A 2-shard deployment served by a local Ray (started here unless one is running, and then
    shut down, so that another module can start its own)."""
    root = tmp_path_factory.mktemp("ray-args") / "deploy"
    engramdb.open_sharded(root, n_shards=2, embedder="hashing").close()
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    with RayShards(root, workers=1) as shards:
        yield root, shards
    if started:
        ray.shutdown()


@pytest.mark.parametrize("call", [
    {"kind": "admit", "job_id": "S", "candidates": CANDIDATES},
    {"kind": "admit", "job_id": "fact", "candidates": CANDIDATES},
    {"kind": "admit", "job_id": "adm"},                                # no stream
    {"kind": "rescore", "job_id": "r", "candidates": CANDIDATES},      # a stream for a job that takes none
    {"kind": "rescore", "job_id": "r", "workers": 0},
    {"kind": "rescore", "job_id": "r", "workers": "2"},
    {"kind": "rescore", "job_id": "r", "materialize": "no"},
])
def test_a_refused_ray_job_creates_nothing(cluster, call):
    root, shards = cluster
    with pytest.raises(engramdb.InvalidInputError):
        shards.run(**call)
    assert not (root / "jobs").exists()
