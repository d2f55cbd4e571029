"""First use: what opening a store says, read-only handles, and waiting for the writer lock."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.embed import HashingEmbedder
from engramdb.errors import ConfigError

HOLD = """
import sys, time, engramdb
with engramdb.open(sys.argv[1], dim=16, embedder="hashing") as e:
    e.add("held", id="held")
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold_lock(path, seconds):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_wrong_dim_names_the_stores_own_dimension(tmp_path):
    engramdb.open(tmp_path / "s", dim=384, embedder="hashing").close()
    with pytest.raises(engramdb.DimensionMismatchError) as err:
        engramdb.open(tmp_path / "s", dim=768)
    assert "dim=384" in str(err.value) and "cannot change" in str(err.value)
    assert "with dim=768" not in str(err.value)


def test_writes_on_a_read_only_handle_raise_read_only_error(tmp_path):
    with engramdb.open(tmp_path / "s", dim=16, embedder="hashing") as w:
        w.add("first", id="a")
    with engramdb.open(tmp_path / "s", readonly=True) as r:
        for call in (lambda: r.add("x"), lambda: r.link("a", "a"), lambda: r.forget("a"),
                     lambda: r.update("a", text="y"), lambda: r.supersede("a", "z"),
                     lambda: r.rescore(), lambda: r.import_from(tmp_path)):
            with pytest.raises(engramdb.ReadOnlyError):
                call()
        assert isinstance(engramdb.ReadOnlyError("x"), engramdb.StoreError)
        assert r.get("a").text == "first"


def test_a_busy_store_fails_at_once_by_default(tmp_path):
    proc = _hold_lock(tmp_path / "s", 3)
    try:
        t = time.perf_counter()
        with pytest.raises(engramdb.StoreLockedError, match="--wait"):
            engramdb.open(tmp_path / "s")
        assert time.perf_counter() - t < 2.5
    finally:
        proc.kill()
        proc.wait()


def test_lock_timeout_waits_for_the_other_writer(tmp_path):
    proc = _hold_lock(tmp_path / "s", 0.5)
    try:
        with engramdb.open(tmp_path / "s", lock_timeout_s=30) as e:
            e.add("mine", id="mine")
            assert {e.get("held").text, e.get("mine").text} == {"held", "mine"}
    finally:
        proc.wait()


def test_lock_timeout_gives_up_with_store_locked(tmp_path):
    proc = _hold_lock(tmp_path / "s", 30)
    try:
        with pytest.raises(engramdb.StoreLockedError, match="waited 0.3 s"):
            engramdb.open(tmp_path / "s", lock_timeout_s=0.3)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "1", True])
def test_lock_timeout_is_checked(tmp_path, bad):
    with pytest.raises(engramdb.InvalidInputError):
        engramdb.open(tmp_path / "s", dim=8, lock_timeout_s=bad)


def test_cli_wait_option(tmp_path):
    proc = _hold_lock(tmp_path / "s", 0.5)
    try:
        runner = CliRunner()
        busy = runner.invoke(main, ["add", "--store", str(tmp_path / "s"), "--id", "x", "no wait"])
        assert busy.exit_code == 2 and "StoreLockedError" in busy.output
        ok = runner.invoke(main, ["--wait", "30", "add", "--store", str(tmp_path / "s"), "--id", "y", "waited"])
        assert ok.exit_code == 0, ok.output
    finally:
        proc.wait()
    with engramdb.open(tmp_path / "s", readonly=True) as r:
        assert r.get("y").text == "waited"
        with pytest.raises(engramdb.MemoryNotFoundError):
            r.get("x")


def test_opening_a_store_with_another_embedder_is_refused(tmp_path):
    path = str(tmp_path / "s")
    with engramdb.open(path, embedder=HashingEmbedder(dim=64)) as m:
        m.add("Tofu likes tuna.", id="tofu")
    # another model (here: the same family with another seed) would put vectors of two spaces
    # in one index: refused, and the store still opens with its own embedder
    with pytest.raises(ConfigError, match="was written with embedder"):
        engramdb.open(path, embedder=HashingEmbedder(dim=64, seed=1))
    with engramdb.open(path) as m:
        assert m.recall("what does Tofu like?", k=1).hits[0].id == "tofu"
    with engramdb.open(path, embedder=HashingEmbedder(dim=64)) as m:   # the same one: fine
        assert m.stats()["memories"] == 1


def test_a_readonly_open_beside_a_writer_in_one_process_says_what_to_do(tmp_path):
    with engramdb.open(tmp_path / "s", embedder="hashing") as writer:
        writer.add("hello there")
        with pytest.raises(engramdb.StoreError, match="already open in this process.*share that Engram"):
            engramdb.open(tmp_path / "s", readonly=True)
        assert writer.stats()["memories"] == 1   # the writer is unharmed
