"""What engramdb reads from disk: no code-executing format, damaged files give a clear
EngramError (or are rebuilt from LMDB) and never a crash or a wrong answer; owner-only modes."""
import json
import os
import pickle
import re
import stat

import lmdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb import errors
from engramdb.ingest import ingest_jsonl, read_jsonl
from engramdb.locomo import load_locomo
from engramdb.testing import indexed_counts

from .conftest import DIM, REPO_SRC, quiet_config, vec

SRC = os.path.join(REPO_SRC, "engramdb")
FUZZ = settings(max_examples=int(os.environ.get("ENGRAMDB_FUZZ_EXAMPLES", "25")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
N = 30


# ---------------------------------------------------------------- no code-executing formats
CODE_EXECUTING = re.compile(r"\bimport (c?pickle|marshal|shelve|dill|joblib)\b|\bfrom (c?pickle|marshal|shelve) import"
                            r"|allow_pickle\s*=\s*True|\bnp\.load\(|\byaml\.load\(|(?<![.\w])eval\(|(?<![.\w])exec\(|torch\.load\(")


def test_no_code_executing_format_in_the_sources():
    offenders = []
    for root, _dirs, files in os.walk(SRC):
        for name in files:
            if name.endswith((".py", ".pyx")):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as fh:
                    for lineno, line in enumerate(fh, 1):
                        if CODE_EXECUTING.search(line):
                            offenders.append(f"{path}:{lineno}: {line.strip()}")
    assert offenders == []


def test_open_and_recall_never_unpickle(store_path, monkeypatch):
    with engramdb.open(store_path, dim=DIM, config=quiet_config()) as e:
        e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(20)])
        e.link("m1", "m2", "supports")

    def refuse(*_a, **_k):
        raise AssertionError("something unpickled data")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    with engramdb.open(store_path) as e:
        assert e.recall(vector=vec(3), k=1, gate="on").hits[0].id == "m3"
        assert e.get("m1").text == "t1"


# ---------------------------------------------------------------- file modes
def test_store_files_are_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "store"
        with engramdb.open(path, dim=DIM, config=quiet_config()) as e:
            e.add("x", embedding=vec(1))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path / "index").st_mode) == 0o700
    files = [p for p in path.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"data.mdb", "lock.mdb", "writer.lock"}
    assert any(p.suffix == ".hnsw" for p in files) and any(p.name.endswith(".hnsw.json") for p in files)
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {p.name: "0o600" for p in files}


# ---------------------------------------------------------------- the hnswlib file and its sidecar
@pytest.fixture
def saved_store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("saved") / "store")
    with engramdb.open(path, dim=DIM, config=quiet_config()) as e:
        e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(N)])
        e.forget("m4", hard=True)
        e.link_batch([(f"m{i}", f"m{i + 1}", "next") for i in range(5, N - 1)])
    index = [os.path.join(path, "index", f) for f in os.listdir(os.path.join(path, "index")) if f.endswith(".hnsw")]
    assert len(index) == 1
    return path, index[0]


def _check_answers(path):
    """The store answers exactly as before the damage (index rebuilt from LMDB if needed)."""
    with engramdb.open(path, config=quiet_config()) as e:
        assert indexed_counts(e)["default"] == N - 1
        for i in range(N):
            ids = [h.id for h in e.recall(vector=vec(i), k=3, gate="off").hits]
            assert (ids[0] == f"m{i}") if i != 4 else ("m4" not in ids)
        assert e.n_edges == N - 6


def _restore(path, name, data):
    with open(os.path.join(path, name), "wb") as fh:
        fh.write(data)


@FUZZ
@given(data=st.data())
def test_damaged_index_file_is_rebuilt(saved_store, data):
    path, index = saved_store
    with open(index, "rb") as fh:
        original = fh.read()
    damaged = bytearray(original)
    how = data.draw(st.sampled_from(["truncate", "flip", "garbage", "empty", "append"]))
    if how == "truncate":
        damaged = damaged[: data.draw(st.integers(0, len(damaged) - 1))]
    elif how == "flip":
        for pos in data.draw(st.lists(st.integers(0, len(damaged) - 1), min_size=1, max_size=8)):
            damaged[pos] ^= data.draw(st.integers(1, 255))
    elif how == "garbage":
        damaged = bytearray(data.draw(st.binary(min_size=1, max_size=4096)))
    elif how == "empty":
        damaged = bytearray()
    else:
        damaged += data.draw(st.binary(min_size=1, max_size=64))
    try:
        _restore(path, index, bytes(damaged))
        _check_answers(path)
    finally:
        _restore(path, index, original)


@FUZZ
@given(data=st.data())
def test_damaged_sidecar_is_rebuilt(saved_store, data):
    path, index = saved_store
    side = index + ".json"
    with open(side, "rb") as fh:
        original = fh.read()
    meta = json.loads(original)
    how = data.draw(st.sampled_from(["bytes", "field", "drop", "json"]))
    if how == "bytes":
        damaged = data.draw(st.binary(max_size=300))
    elif how == "json":
        damaged = json.dumps(data.draw(st.recursive(st.none() | st.integers() | st.text(max_size=5),
                                                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                                                    max_leaves=10))).encode()
    else:
        key = data.draw(st.sampled_from(sorted(meta)))
        if how == "drop":
            meta.pop(key)
        else:
            meta[key] = data.draw(st.one_of(st.integers(-5, 10**12), st.text(max_size=4), st.none(),
                                            st.lists(st.integers(-3, 100), max_size=4), st.floats()))
        damaged = json.dumps(meta).encode()
    try:
        _restore(path, side, damaged)
        _check_answers(path)
    finally:
        _restore(path, side, original)


# ---------------------------------------------------------------- LMDB values
def _lmdb_items(path):
    env = lmdb.open(path, max_dbs=16, readonly=True, lock=False)
    try:
        out = []
        with env.begin() as txn:
            for name in ("meta", "mem", "vec", "ids", "edges", "delta", "graph", "cols", "texts"):
                db = env.open_db(name.encode(), txn=txn, create=False)
                out += [(name, k) for k, _ in txn.cursor(db=db)]
        return out
    finally:
        env.close()


def _damage_lmdb(path, name, key, value):
    env = lmdb.open(path, max_dbs=16)
    try:
        db = env.open_db(name.encode())
        with env.begin(write=True) as txn:
            if value is None:
                txn.delete(key, db=db)
            else:
                txn.put(key, value, db=db)
    finally:
        env.close()


@pytest.mark.parametrize("next_nid", [2**32, 2**40, 2**28 + 1])
def test_a_node_counter_beyond_any_store_is_damage_not_an_allocation(tmp_path, next_nid):
    """The fuzz below drew next_nid = 2**32: the open sized its column arrays for it (32 GiB each)
    and, in a full test run, the process was killed. A counter above MAX_NODES is damage."""
    import msgpack
    path = str(tmp_path / "store")
    with engramdb.open(path, dim=DIM, config=quiet_config()) as e:
        e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(3)])
    _damage_lmdb(path, "meta", b"next_nid", msgpack.packb(next_nid))
    with pytest.raises(errors.StoreCorruptedError, match="next_nid"):
        engramdb.open(path, config=quiet_config())


@FUZZ
@given(data=st.data())
def test_damaged_lmdb_values_give_a_clear_error_or_a_repair(tmp_path_factory, data):
    path = str(tmp_path_factory.mktemp("lmdb") / "store")
    with engramdb.open(path, dim=DIM, config=quiet_config(snapshot_every=4)) as e:
        e.add_batch([{"id": f"m{i}", "text": f"t{i}", "embedding": vec(i)} for i in range(12)])
        e.link_batch([(f"m{i}", f"m{i + 1}", "next") for i in range(11)])
    name, key = data.draw(st.sampled_from(_lmdb_items(path)))
    how = data.draw(st.sampled_from(["garbage", "truncate", "delete", "msgpack"]))
    with lmdb.open(path, max_dbs=16, readonly=True, lock=False) as env, env.begin() as txn:
        old = txn.get(key, db=env.open_db(name.encode(), txn=txn, create=False))
    if how == "garbage":
        value = data.draw(st.binary(max_size=200))
    elif how == "truncate":
        value = old[: data.draw(st.integers(0, max(len(old) - 1, 0)))]
    elif how == "delete":
        value = None
    else:
        import msgpack
        value = msgpack.packb(data.draw(st.recursive(
            st.none() | st.integers(-2**40, 2**40) | st.text(max_size=6) | st.floats(),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=4), max_leaves=12)))
    _damage_lmdb(path, name, key, value)
    try:
        with engramdb.open(path, config=quiet_config()) as e:
            for i in range(12):
                try:
                    res = e.recall(vector=vec(i), k=3, gate="on")
                    assert all(np.isfinite(h.score) for h in res.hits)
                    e.get(f"m{i}", with_embedding=True)
                except errors.EngramError:
                    pass
            e.stats()
    except errors.EngramError as exc:
        assert str(exc)


# ---------------------------------------------------------------- JSONL and LoCoMo inputs
@FUZZ
@given(raw=st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_jsonl_reader_fuzz(tmp_path_factory, raw):
    path = tmp_path_factory.mktemp("jsonl") / "in.jsonl"
    path.write_bytes(raw)
    try:
        rows = read_jsonl(path)
    except errors.EngramError as exc:
        assert str(exc)
        return
    assert all(isinstance(r, dict) for r in rows)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats() | st.text(max_size=8),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(
                        ["id", "text", "kind", "links", "to", "relation", "weight", "namespace", "tags",
                         "created_at", "confidence", "embedding", "x"]), c, max_size=6), max_leaves=20)


@FUZZ
@given(rows=st.lists(JSON, max_size=5))
def test_jsonl_ingest_fuzz(tmp_path_factory, rows):
    d = tmp_path_factory.mktemp("ingest")
    (d / "in.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with engramdb.open(d / "store", dim=DIM, config=quiet_config()) as e:
        try:
            ingest_jsonl(e, d / "in.jsonl", progress=False)
        except errors.EngramError as exc:
            assert str(exc) and e.stats()["memories"] == 0   # all or nothing


LOCOMO_KEYS = ["sample_id", "conversation", "qa", "speaker_a", "speaker_b", "session_1", "session_1_date_time",
               "speaker", "dia_id", "text", "question", "answer", "evidence", "category"]
LOCOMO = st.recursive(st.none() | st.integers(-3, 30) | st.text(max_size=12) | st.sampled_from(["D1:1", "1:56 pm on 8 May, 2023"]),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(LOCOMO_KEYS), c, max_size=6),
                      max_leaves=25)


@FUZZ
@given(doc=LOCOMO | st.lists(LOCOMO, max_size=3), raw=st.none() | st.binary(max_size=100))
def test_locomo_reader_fuzz(tmp_path_factory, doc, raw):
    path = tmp_path_factory.mktemp("locomo") / "locomo10.json"
    path.write_bytes(raw if raw is not None else json.dumps(doc).encode())
    try:
        convs = load_locomo(path)
    except errors.EngramError as exc:
        assert str(exc)
        return
    assert isinstance(convs, list)


def _answers(path):
    """What a caller sees of a store: recall by text and by vector, edges, counts."""
    with engramdb.open(path, embedder="hashing") as e:
        texts = [[h.id for h in e.recall(f"parcel {i * 3} shipped to city {i % 7}", k=5).hits] for i in range(0, 60, 7)]
        st_ = e.stats()
        return texts, st_["memories"], st_["edges"], sorted(e.namespaces())


@pytest.fixture(scope="module")
def snapshot_store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("snap") / "store")
    with engramdb.open(path, embedder="hashing") as e:
        e.add_batch([{"text": f"note {i}: parcel {i * 3} shipped to city {i % 7}", "id": f"n{i}"} for i in range(60)])
        e.add_batch([{"text": f"other {i}: parcel {i}", "id": f"o{i}"} for i in range(20)], namespace="other")
        e.link_batch([(f"n{i}", f"n{i + 1}", "supports") for i in range(30)])
    with lmdb.open(path, max_dbs=16, readonly=True, lock=False) as env, env.begin() as txn:
        keys = [(db, k) for db in ("cols", "kw", "graph")
                for k, _ in txn.cursor(db=env.open_db(db.encode(), txn=txn, create=False))]
    return path, keys, _answers(path)


@pytest.mark.parametrize("how", ["delete", "truncate"])
def test_a_damaged_snapshot_is_rebuilt_from_the_records(snapshot_store, tmp_path, how):
    """The column, keyword and graph snapshots inside LMDB are caches of the records: a store
    whose snapshot array (or its meta) is missing or cut short opens and answers as before.
    (A damaged keyword or column snapshot made the store impossible to open; a lost graph meta
    left it without edges; a cut namespace-name list hid every memory from recall.)"""
    import shutil

    path, keys, want = snapshot_store
    for db, key in keys:
        copy = str(tmp_path / f"{db}-{key.decode()}-{how}")
        shutil.copytree(path, copy)
        with lmdb.open(copy, max_dbs=16, readonly=True, lock=False) as env, env.begin() as txn:
            old = txn.get(key, db=env.open_db(db.encode(), txn=txn, create=False))
        _damage_lmdb(copy, db, key, None if how == "delete" else old[: len(old) // 2 + 1])
        assert _answers(copy) == want, (db, key)
