"""Job ids and job parameters are checked before anything is created on disk: an admission job
id whose candidate ids ``<job_id>:<j>`` take a form the engine reserves ("S", "E", "fact",
"sum") is refused up front, and so are a missing candidate stream and bad paths or flags."""
import os

import pytest

import engramdb
from engramdb import jobs

CANDIDATES = [{"namespace": "alice", "text": "My sister Ana moved to Rome in 2023."},
              {"namespace": "bob", "text": "I work at the harbour in Porto."}]


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "deploy"
    engramdb.open_sharded(path, n_shards=2, embedder="hashing").close()
    return path


def on_disk(root):
    """Every path under the deployment's root except the shard stores' own files."""
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, dirs, files in os.walk(root)
                  for f in files + dirs if not os.path.relpath(d, root).startswith("shard-"))


@pytest.mark.parametrize("job_id", ["S", "E", "fact", "sum"])
def test_an_admission_job_id_that_makes_reserved_ids_is_refused_up_front(root, job_id):
    before = on_disk(root)
    with pytest.raises(engramdb.InvalidInputError, match=f"'{job_id}:0'.*reserves"):
        jobs.run(root, "admit", job_id=job_id, candidates=CANDIDATES)
    assert on_disk(root) == before and not (root / "jobs").exists()


@pytest.mark.parametrize("job_id", ["Sx", "s", "facts", "summer", "E1", "nightly-1"])
def test_admission_job_ids_near_the_reserved_forms_admit(root, job_id):
    res = jobs.run(root, "admit", job_id=job_id, candidates=CANDIDATES, now=1.7e9)
    assert res.result["admit"] == 2 and res.result["candidates"] == 2
    with engramdb.open_sharded(root, readonly=True) as sh:
        assert sh.get(f"{job_id}:0", namespace="alice").text == CANDIDATES[0]["text"]


def test_a_reserved_job_id_is_fine_for_a_job_that_names_no_memory(root):
    assert jobs.run(root, "rescore", job_id="S", now=1.7e9).result["scanned"] == 0


@pytest.mark.parametrize("job_id", ["../escape", "", ".hidden", "a/b", "x" * 129, 5, "a:b"])
def test_a_bad_job_id_creates_nothing(root, job_id):
    before = on_disk(root)
    with pytest.raises(engramdb.InvalidInputError):
        jobs.run(root, "rescore", job_id=job_id)
    assert on_disk(root) == before


@pytest.mark.parametrize("candidates", [None, "not a stream", {"namespace": "alice", "text": "one"}, 5])
def test_an_admission_job_without_a_candidate_stream_creates_nothing(root, candidates):
    before = on_disk(root)
    with pytest.raises(engramdb.InvalidInputError, match="candidates"):
        jobs.run(root, "admit", job_id="adm", candidates=candidates)
    assert on_disk(root) == before


def test_candidates_for_a_job_that_takes_none_are_refused(root):
    before = on_disk(root)
    with pytest.raises(engramdb.InvalidInputError, match="candidates"):
        jobs.run(root, "rescore", job_id="r", candidates=CANDIDATES)
    assert on_disk(root) == before


@pytest.mark.parametrize("params", [
    {"materialize": "false"},          # a string is not a flag
    {"materialize": 1},
])
def test_a_bad_rescore_flag_creates_nothing(root, params):
    before = on_disk(root)
    with pytest.raises(engramdb.InvalidInputError, match="materialize"):
        jobs.run(root, "rescore", job_id="r", **params)
    assert on_disk(root) == before


def test_an_export_job_into_a_file_or_the_deployment_creates_nothing(root, tmp_path):
    before = on_disk(root)
    (tmp_path / "a-file").write_text("x")
    for out in (tmp_path / "a-file", root, root / "shard-0000", root / "jobs", root / "shard-0001" / "ds"):
        with pytest.raises(engramdb.InvalidInputError, match="out"):
            jobs.run(root, "export", job_id="exp", out=out)
        assert on_disk(root) == before
    assert (tmp_path / "a-file").read_text() == "x"


def test_a_locomo_job_without_its_data_file_creates_nothing(root, tmp_path):
    before = on_disk(root)
    with pytest.raises(engramdb.InvalidInputError, match="data"):
        jobs.run(root, "locomo", job_id="loc", data=tmp_path / "missing.json")
    (tmp_path / "locomo.json").write_text("[]")
    for conversations in ("conv-26", ["conv-26", 26], 26):
        with pytest.raises(engramdb.InvalidInputError, match="conversations"):
            jobs.run(root, "locomo", job_id="loc", data=tmp_path / "locomo.json", conversations=conversations)
    assert on_disk(root) == before
