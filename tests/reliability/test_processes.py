"""LMDB map growth, readers in other processes, competing writer processes, fork()."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import engramdb
from engramdb import errors
from engramdb.testing import entry_counts, indexed_counts

from .conftest import DIM, REPO_SRC, quiet_config, run_python, vec

TINY = 1 << 20   # the smallest map StoreConfig accepts


def _counts(eng) -> tuple[int, int, int]:
    counts = entry_counts(eng)
    return tuple(counts[name] for name in ("mem", "vec", "ids"))


def _items(lo, hi, pad=200):
    return [{"id": f"m{i}", "text": f"memory {i} " + "x" * pad, "embedding": vec(i)} for i in range(lo, hi)]


# ---------------------------------------------------------------- map growth
def test_tiny_map_grows_transparently(store_path):
    with engramdb.open(store_path, dim=DIM, config=quiet_config(map_size_bytes=TINY)) as e:
        ids = e.add_batch(_items(0, 1500, pad=1500))            # one call, ~2.7 MB in one transaction
        assert ids == [f"m{i}" for i in range(1500)]
        for i in range(1500, 1700):                             # many small calls
            e.add(f"memory {i} " + "x" * 200, id=f"m{i}", embedding=vec(i))
        e.add_batch(_items(1700, 3300))
        e.link_batch([(f"m{i}", f"m{i + 1}", "next") for i in range(0, 3299)])
        stats = e.stats()
        assert stats["map_size_bytes"] >= 4 * TINY and stats["store_bytes"] > TINY
        assert _counts(e) == (3300, 3300, 3300) and stats["memories"] == 3300 and e.n_edges == 3299
    with engramdb.open(store_path, config=quiet_config(map_size_bytes=TINY)) as e:
        assert _counts(e) == (3300, 3300, 3300) and e.n_edges == 3299
        for i in (0, 1234, 3299):
            assert e.recall(vector=vec(i), k=1).hits[0].id == f"m{i}"
        e.forget("m7", hard=True)                               # rewrites the snapshot: grows again if needed
        assert _counts(e) == (3299, 3299, 3299)


def test_retried_transaction_writes_no_duplicates(store_path, monkeypatch):
    """The first attempt of every write fails with MapFullError after putting its data; the
    retry must leave exactly one copy (the aborted transaction wrote nothing)."""
    import lmdb

    from engramdb.store import lmdb_store

    calls = {"n": 0}
    real_put = lmdb_store.LmdbStore.put_id

    def put_id_then_fail(self, txn, ns, ext_id, nid):
        real_put(self, txn, ns, ext_id, nid)
        calls["n"] += 1
        if calls["n"] % 2 == 1:
            raise lmdb.MapFullError("simulated")
        return True

    with engramdb.open(store_path, dim=DIM, config=quiet_config(map_size_bytes=TINY)) as e:
        monkeypatch.setattr(lmdb_store.LmdbStore, "put_id", put_id_then_fail)
        assert e.add("one", id="a", embedding=vec(1)) == "a"
        assert e.add_batch(_items(10, 11)) == ["m10"]
        monkeypatch.undo()
        assert _counts(e) == (2, 2, 2) and e.stats()["map_size_bytes"] == 4 * TINY
        assert sorted(h.id for h in e.recall(vector=vec(1), k=5, config=engramdb.RecallConfig(cosine_floor=-1)).hits) == ["a", "m10"]


READER = r"""
import sys, numpy as np, engramdb
sys.path.insert(0, sys.argv[2])
from tests.reliability.crash_worker import vec
e = engramdb.open(sys.argv[1], readonly=True,   # a tiny map too: the writer's growth must be adopted
                  config=engramdb.EngramConfig(store=engramdb.StoreConfig(map_size_bytes=1 << 20)))
print("READY", e.stats()["map_size_bytes"], flush=True)
seen, rounds, last = 0, 0, -1
while True:
    n = e.stats()["memories"]
    assert n >= last, (n, last)              # never goes back
    assert n % 100 == 0, n                   # whole batches only
    last = n
    if n:
        i = int(np.random.default_rng(rounds).integers(0, n))
        assert e.get(f"m{i}").text.startswith(f"memory {i} ")
        assert e.recall(vector=vec(i), k=1, gate="off").hits[0].id == f"m{i}"
    rounds += 1
    if n == 2000:
        break
print("OK", rounds, last, e.stats()["map_size_bytes"], flush=True)
"""


def test_reader_process_stays_consistent_while_the_map_grows(store_path):
    repo = os.path.abspath(os.path.join(REPO_SRC, ".."))
    with engramdb.open(store_path, dim=DIM, config=quiet_config(map_size_bytes=TINY)) as e:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(REPO_SRC)}
        reader = subprocess.Popen([sys.executable, "-c", READER, store_path, repo], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env)
        assert reader.stdout.readline().startswith("READY"), reader.stderr.read()
        for lo in range(0, 2000, 100):
            e.add_batch(_items(lo, lo + 100))
            time.sleep(0.01)
        out, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, err
        _, rounds, last, map_size = out.split()
        assert int(last) == 2000 and int(rounds) >= 1 and int(map_size) > TINY


# ---------------------------------------------------------------- several processes
ADD_ONE = r"""
import sys, engramdb
from engramdb import errors
try:
    e = engramdb.open(sys.argv[1])
except errors.StoreLockedError as exc:
    print("LOCKED", type(exc).__name__, flush=True)
    raise SystemExit(0)
e.add("from the second writer", embedding=[1.0] * 16)
print("WROTE", flush=True)
"""


def test_second_writer_process_gets_store_locked(store_path):
    with engramdb.open(store_path, dim=DIM, config=quiet_config()) as e:
        e.add("first", id="a", embedding=vec(1))
        res = run_python(ADD_ONE, store_path)
        assert res.returncode == 0, res.stderr
        assert res.stdout.split() == ["LOCKED", "StoreLockedError"]
        assert e.stats()["memories"] == 1
        e.add("second", id="b", embedding=vec(2))          # the first writer is unaffected
    res = run_python(ADD_ONE, store_path)                  # once closed, another may write
    assert res.stdout.split() == ["WROTE"], res.stderr


WRITER_LOOP = r"""
import sys, time, engramdb
from engramdb import errors
path, me, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
done = 0
while done < n:
    try:
        e = engramdb.open(path, config=engramdb.EngramConfig(store=engramdb.StoreConfig(sync=False)))
    except errors.StoreLockedError:
        time.sleep(0.005)
        continue
    with e:
        e.add_batch([{"id": f"{me}-{done + j}", "text": f"{me} {done + j}", "embedding": [1.0 + j] + [0.5] * 15}
                     for j in range(5)])
    done += 5
print("DONE", done, flush=True)
"""


@pytest.mark.parametrize("writers,per_writer", [(3, 20), pytest.param(6, 100, marks=pytest.mark.slow)])
def test_competing_writer_processes_are_serialised(store_path, writers, per_writer):
    engramdb.open(store_path, dim=DIM, config=quiet_config()).close()
    env = {**os.environ, "PYTHONPATH": os.path.abspath(REPO_SRC)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER_LOOP, store_path, f"w{k}", str(per_writer)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for k in range(writers)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and out.split() == ["DONE", str(per_writer)], err
    with engramdb.open(store_path) as e:
        assert _counts(e) == (writers * per_writer,) * 3
        expect = {f"w{k}-{i}" for k in range(writers) for i in range(per_writer)}
        assert {e.get(x).id for x in expect} == expect
        assert indexed_counts(e)["default"] == writers * per_writer


VISIBLE = r"""
import sys, engramdb
e = engramdb.open(sys.argv[1], readonly=True)
print("READY", e.stats()["memories"], flush=True)
for line in sys.stdin:                      # the writer says which id it just committed
    mid = line.strip()
    i = int(mid[1:])
    hits = e.recall(vector=[float(i == j) for j in range(16)], k=1, gate="off").hits
    print("SEEN" if hits and hits[0].id == mid else "MISSING", e.stats()["memories"], flush=True)
"""


def test_reader_process_sees_each_commit_at_its_next_call(store_path):
    with engramdb.open(store_path, dim=DIM, config=quiet_config()) as e:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(REPO_SRC)}
        e.add("m0", id="m0", embedding=np.eye(DIM)[0])
        reader = subprocess.Popen([sys.executable, "-c", VISIBLE, store_path], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        assert reader.stdout.readline().split() == ["READY", "1"]
        for i in range(1, 8):
            e.add(f"m{i}", id=f"m{i}", embedding=np.eye(DIM)[i])   # committed when add returns
            reader.stdin.write(f"m{i}\n")
            reader.stdin.flush()
            assert reader.stdout.readline().split() == ["SEEN", str(i + 1)]
        reader.stdin.close()
        assert reader.wait(timeout=60) == 0, reader.stderr.read()


# ---------------------------------------------------------------- fork()
@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_fork_child_recalls_and_parent_keeps_working(store_path):
    e = engramdb.open(store_path, dim=DIM, config=quiet_config())
    e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(20)])
    go_r, go_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:   # child: never return into pytest
        code = 1
        try:
            ok = [e.recall(vector=vec(i), k=1).hits[0].id == f"m{i}" for i in range(20)]
            try:
                e.add("child write", embedding=vec(99))
                refused = False
            except errors.StoreLockedError:
                refused = True
            os.read(go_r, 1)                                  # the parent has added m20
            sees_new = e.recall(vector=vec(20), k=1).hits[0].id == "m20"
            os.write(res_w, f"{all(ok)} {refused} {sees_new} {e.readonly}".encode())
            e.close()
            code = 0
        finally:
            os._exit(code)
    e.add("t20", id="m20", embedding=vec(20))               # the parent writes while the child lives
    os.write(go_w, b"x")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert os.read(res_r, 100).decode().split() == ["True", "True", "True", "True"]
    # the parent keeps working after the child exited
    e.add("t21", id="m21", embedding=vec(21))
    assert e.recall(vector=vec(21), k=1).hits[0].id == "m21"
    with pytest.raises(errors.StoreLockedError):          # and still holds the writer lock
        engramdb.open(store_path)
    e.close()
    with engramdb.open(store_path) as again:
        assert again.stats()["memories"] == 22


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_many_forked_children_read_while_the_parent_writes(store_path):
    e = engramdb.open(store_path, dim=DIM, config=quiet_config())
    e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(200)])
    pids = []
    for c in range(8):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                rng = np.random.default_rng(c)
                for _ in range(100):
                    i = int(rng.integers(0, 200))
                    if e.recall(vector=vec(i), k=1, gate="off").hits[0].id != f"m{i}":
                        break
                else:
                    code = 0
            finally:
                os._exit(code)
        pids.append(pid)
        e.add_batch([{"id": f"p{c}-{j}", "text": f"parent {c} {j}", "embedding": vec(1000 + 10 * c + j)}
                     for j in range(10)])
    assert [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids] == [0] * 8
    for i in range(0, 200, 7):
        assert e.recall(vector=vec(i), k=1).hits[0].id == f"m{i}"
    e.add("after the children", id="last", embedding=vec(5000))
    e.close()
    with engramdb.open(store_path) as again:
        assert again.stats()["memories"] == 200 + 80 + 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_a_forked_child_that_never_uses_the_engine_does_not_keep_the_writer_lock(store_path):
    """A flock belongs to the open file parent and child share: a pool worker that never called
    the engine kept the store locked after the parent closed it ("open for writing
    elsewhere"), until the child exited."""
    e = engramdb.open(store_path, dim=DIM, config=quiet_config())
    e.add("t0", id="m0", embedding=vec(0))
    go_r, go_w = os.pipe()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:   # unrelated work: waits for the parent, never touches the engine
        try:
            os.write(ready_w, b"r")   # the fork hooks have run (they run before fork() returns)
            os.read(go_r, 1)
        finally:
            os._exit(0)
    try:
        # the child's copy of the lock is closed by its fork hook, which needs the child to be
        # scheduled: on a busy machine the parent could otherwise close and reopen first
        assert os.read(ready_r, 1) == b"r"
        e.close()
        again = engramdb.open(store_path, dim=DIM, config=quiet_config())   # the child still lives
        again.add("t1", id="m1", embedding=vec(1))
        assert again.get("m1").text == "t1"
        again.close()
    finally:
        os.write(go_w, b"x")
        os.waitpid(pid, 0)


_ERASING_WRITER = """
import sys, time, engramdb
e = engramdb.open(sys.argv[1], embedder="hashing")
t0, r = time.time(), 0
while time.time() - t0 < float(sys.argv[2]):
    e.add_batch([{"text": f"race {r} item {i} parcel {i * 7} city {i % 13}", "id": f"r{r}_{i}"} for i in range(60)])
    for i in range(0, 60, 2):
        e.forget(f"r{r}_{i}", hard=True)
    r += 1
e.close()
"""


def test_a_reader_process_loads_while_the_writer_erases(store_path):
    """A read-only process (re)loads its caches whenever the writer committed; its vector index,
    rebuilt from the store, was read in a transaction of its own, so a memory erased between
    the two reads was reported as a damaged store (StoreCorruptedError "the embedding of nid N
    is missing") on most calls while the writer added and erased."""
    with engramdb.open(store_path, embedder="hashing") as e:
        e.add_batch([{"text": f"seed {i} parcel", "id": f"s{i}"} for i in range(50)])
    env = {**os.environ, "PYTHONPATH": os.path.abspath(REPO_SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    writer = subprocess.Popen([sys.executable, "-c", _ERASING_WRITER, str(store_path), "4"], env=env)
    try:
        time.sleep(0.5)
        calls = 0
        t0 = time.time()
        while time.time() - t0 < 3.0:
            with engramdb.open(store_path, readonly=True) as reader:
                for _ in range(5):
                    reader.recall("race item parcel city 3", k=5)
                    calls += 1
        assert calls > 10
    finally:
        writer.wait(timeout=60)
    assert writer.returncode == 0
