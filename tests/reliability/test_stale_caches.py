"""Caches that fall behind the records: after a crash, and behind a second writer's back.

1. A process that changed records without adding any (archive, confidence) and died before
   closing leaves a column snapshot of the same length as the records but older than them:
   the next open must rebuild from the records, not trust it.
2. When a second process wrote to the store behind a writer's back (here: someone deleted
   ``writer.lock`` while the first writer had the store open), the first writer must refuse
   its next write with StoreLockedError instead of writing from stale caches.
"""
import os
import subprocess
import sys

import pytest

import engramdb

from ..conftest import basis

DIM = 16


def _python(code, *args):
    res = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res


def _store(path):
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False))
    m = engramdb.open(path, dim=DIM, config=cfg)
    m.add("the boarding pass is in the blue folder", id="a", embedding=basis(0), confidence=1.0)
    m.add("the passports are in the safe", id="b", embedding=basis(0), confidence=1.0)
    return m


CRASH_AFTER_CHANGES = """
import os, sys, engramdb
m = engramdb.open(sys.argv[1])
m.forget("a")                        # archive: no new memory, only changed records
m.update("b", confidence=0.25)
os._exit(0)                          # dies without closing: no snapshot is refreshed
"""


def test_reopen_after_a_crash_rebuilds_columns_older_than_the_records(tmp_path):
    path = tmp_path / "s"
    _store(path).close()                                    # a clean close saves the column snapshot
    _python(CRASH_AFTER_CHANGES, path)
    with engramdb.open(path) as m:
        assert m.get("a").state.value == "archived" and m.get("b").confidence == 0.25
        assert [x.id for x in m.query()] == ["b"]
        assert [h.id for h in m.recall(vector=basis(0), k=5).hits] == ["b"]
        assert m.query(min_confidence=0.5) == []
        assert m.stats()["namespaces"]["default"]["archived"] == 1


SECOND_WRITER = """
import sys, engramdb
with engramdb.open(sys.argv[1]) as m:
    m.forget("a")
"""


def test_writer_refuses_to_write_over_changes_made_behind_its_back(tmp_path):
    path = tmp_path / "s"
    first = _store(path)
    try:
        os.remove(path / "writer.lock")                     # the single-writer lock is gone
        _python(SECOND_WRITER, path)                        # so a second writer gets in
        for write in (lambda: first.add("the tickets are printed", id="c", embedding=basis(1)),
                      lambda: first.link("a", "b"),
                      lambda: first.update("b", confidence=0.5)):
            with pytest.raises(engramdb.StoreLockedError):
                write()
    finally:
        first.close()
    with engramdb.open(path) as m:
        assert m.get("a").state.value == "archived" and m.get("b").confidence == 1.0
        with pytest.raises(engramdb.MemoryNotFoundError):
            m.get("c")
        assert m.edges("a") == []
