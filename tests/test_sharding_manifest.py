"""A damaged manifest is refused when it is read (StoreCorruptedError), before any shard opens:
wrong types (a bool is not a count), counts out of range, a shard directory listed twice, a
shard list that disagrees with ``n_shards``, a shard name that is not one directory name."""
import json

import pytest

import engramdb
from engramdb.sharding import MANIFEST, read_manifest


@pytest.fixture
def root(tmp_path):
    path = tmp_path / "deploy"
    with engramdb.open_sharded(path, n_shards=2, embedder="hashing") as sh:
        sh.add("dave's note", namespace="dave", id="n1")
    return path


def damage(root, **changes):
    doc = json.loads((root / MANIFEST).read_text())
    doc.update(changes)
    (root / MANIFEST).write_text(json.dumps(doc))


def test_the_manifest_written_is_read_back(root):
    doc = read_manifest(root)
    assert (doc["n_shards"], doc["shards"], doc["dim"]) == (2, ["shard-0000", "shard-0001"], 384)


@pytest.mark.parametrize("changes", [
    {"shards": ["shard-0001", "shard-0001"]},                 # one directory listed twice
    {"n_shards": 0, "shards": []},                            # no shard
    {"n_shards": True, "shards": ["shard-0000"]},             # a bool is not a count
    {"n_shards": 2.0},                                        # nor a float
    {"n_shards": "2"},
    {"n_shards": -1, "shards": []},
    {"n_shards": 65537},
    {"n_shards": 3},                                          # disagrees with the list
    {"shards": ["shard-0000"]},
    {"shards": "shard-0000shard-0001"},
    {"shards": ["shard-0000", 1]},
    {"shards": ["shard-0000", ""]},
    {"shards": ["shard-0000", ".."]},
    {"shards": ["shard-0000", "a/b"]},
    {"shards": ["shard-0000", "sub\x00"]},
    {"dim": 0},
    {"dim": True},
    {"dim": "384"},
    {"embedder": 5},
    {"rule_version": True},                                   # True == 1, but not the version
])
def test_a_damaged_manifest_is_refused(root, changes):
    damage(root, **changes)
    with pytest.raises(engramdb.StoreCorruptedError):
        read_manifest(root)
    for readonly in (False, True):
        with pytest.raises(engramdb.StoreCorruptedError):
            engramdb.open_sharded(root, readonly=readonly)


def test_the_error_names_the_duplicate_shard(root):
    damage(root, shards=["shard-0001", "shard-0001"])
    with pytest.raises(engramdb.StoreCorruptedError, match="'shard-0001' twice"):
        read_manifest(root)


def test_a_manifest_that_is_not_an_object_is_refused(root):
    (root / MANIFEST).write_text("[1, 2]")
    with pytest.raises(engramdb.StoreCorruptedError):
        read_manifest(root)
