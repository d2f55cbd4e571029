"""Export files are owner-only from the moment they exist (0600 files, 0700 directory), like the
store's own files; a failed export leaves nothing behind."""
import os
import stat

import pyarrow.ipc
import pyarrow.parquet
import pytest

import engramdb
from engramdb.store.lmdb_store import DIR_MODE, FILE_MODE

from .conftest import DIM, T0, basis


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask():
    """Run with umask 0, so any mode narrower than 0666/0777 comes from the export itself."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def story(tmp_path):
    with engramdb.open(tmp_path / "store", dim=DIM) as e:
        e.add("We fly TAP TP 218 to Lisbon", id="flight", embedding=basis(0))
        e.add("Confirmation code QX7Z9M", id="code", embedding=basis(1),
              links=[{"to": "flight", "relation": "evidence_for", "weight": 0.75}])
        yield e


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_export_files_are_created_owner_only(tmp_path, story, open_umask, monkeypatch, fmt):
    seen = []

    def spy(real):
        def call(table_or_sink, *args, **kwargs):
            sink = args[0] if fmt == "parquet" else table_or_sink
            seen.append(_mode(sink.fileno()))       # the file pyarrow writes into, before any byte
            return real(table_or_sink, *args, **kwargs)
        return call

    if fmt == "parquet":
        monkeypatch.setattr(pyarrow.parquet, "write_table", spy(pyarrow.parquet.write_table))
    else:
        monkeypatch.setattr(pyarrow.ipc, "new_file", spy(pyarrow.ipc.new_file))
    out = story.export(tmp_path / "deep" / "x", format=fmt, now=T0)
    assert seen == [0o600, 0o600]
    assert (_mode(out["memories"]), _mode(out["edges"])) == (0o600, 0o600) == (FILE_MODE, FILE_MODE)
    assert _mode(tmp_path / "deep" / "x") == 0o700 == DIR_MODE
    assert sorted(os.listdir(tmp_path / "deep" / "x")) == [f"edges.{fmt}", f"memories.{fmt}"]


def test_existing_empty_directory_keeps_its_mode(tmp_path, story, open_umask):
    os.mkdir(tmp_path / "shared", 0o750)
    out = story.export(tmp_path / "shared", now=T0)
    assert _mode(tmp_path / "shared") == 0o750
    assert (_mode(out["memories"]), _mode(out["edges"])) == (0o600, 0o600)


def test_failed_export_leaves_nothing(tmp_path, story, monkeypatch):
    real = pyarrow.parquet.write_table
    calls = []

    def fail_on_edges(table, where, *args, **kwargs):
        calls.append(table.column_names)
        if "relation" in table.column_names:
            raise OSError(28, "No space left on device")
        return real(table, where, *args, **kwargs)

    monkeypatch.setattr(pyarrow.parquet, "write_table", fail_on_edges)
    with pytest.raises(OSError, match="No space left"):
        story.export(tmp_path / "x", now=T0)
    assert len(calls) == 2 and not os.path.exists(tmp_path / "x")
    os.mkdir(tmp_path / "kept")
    with pytest.raises(OSError):
        story.export(tmp_path / "kept", now=T0)
    assert os.listdir(tmp_path / "kept") == []             # the caller's directory stays, empty
    monkeypatch.setattr(pyarrow.parquet, "write_table", real)
    out = story.export(tmp_path / "x", now=T0)             # and a retry succeeds
    assert os.path.getsize(out["edges"]) > 0
