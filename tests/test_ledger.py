"""The audit ledger: one hash-chained entry per committed change, written with the change;
verify_ledger finds edits, deletions and reorderings; dynamics_log is a view of it."""
from __future__ import annotations

import json
import threading

import lmdb
import msgpack
import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.cli import main
from engramdb.store.ledger import MAX_IDS, entry_hash
from engramdb.testing import frozen_clock, meta, store_digest

DIM = 16


def vec(i: int) -> np.ndarray:
    v = np.random.default_rng(7919 + i).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def quiet() -> engramdb.EngramConfig:
    """No auto-links or conflict links: the ids each write touches are exactly the test's."""
    return engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False, detect_conflicts=False))


def open_store(path, **kw):
    return engramdb.open(path, dim=DIM, embedder="hashing", config=quiet(), **kw)


# ------------------------------------------------------------------ raw access (tamper tests)
def raw_env(path):
    """The store's LMDB environment opened with py-lmdb directly (the engine must be closed)."""
    return lmdb.open(str(path), max_dbs=32)


def raw_entries(path) -> dict[int, dict]:
    with raw_env(path) as env:
        db = env.open_db(b"ledger")
        with env.begin() as txn:
            return {int.from_bytes(k, "big"): msgpack.unpackb(v, raw=False) for k, v in txn.cursor(db=db)}


def raw_put(path, seq: int, entry: dict | None) -> None:
    """Overwrite (or delete, for None) ledger entry ``seq`` in the raw store."""
    with raw_env(path) as env:
        db = env.open_db(b"ledger")
        with env.begin(write=True) as txn:
            key = seq.to_bytes(8, "big")
            if entry is None:
                txn.delete(key, db=db)
            else:
                txn.put(key, msgpack.packb(entry, use_bin_type=True), db=db)


def raw_meta(path, name: str, value) -> None:
    with raw_env(path) as env:
        db = env.open_db(b"meta")
        with env.begin(write=True) as txn:
            if value is None:
                txn.delete(name.encode(), db=db)
            else:
                txn.put(name.encode(), msgpack.packb(value, use_bin_type=True), db=db)


# ------------------------------------------------------------------ what is recorded
def test_each_verb_appends_one_entry_naming_what_it_touched(tmp_store):
    with open_store(tmp_store, actor="alice") as eng:
        eng.add("the sky is blue", id="a", embedding=vec(1))
        eng.add_batch([{"id": "b", "text": "grass is green", "embedding": vec(2)},
                       {"id": "c", "text": "snow is white", "embedding": vec(3)}])
        eng.link("a", "b", "supports")
        new = eng.supersede("a", "the sky is grey today", id="a2", embedding=vec(4))
        eng.update("b", text="grass is very green")
        eng.forget("c")
        eng.forget("b", hard=True)
        eng.add("ship on Friday", id="d", kind="decision", embedding=vec(5))
        eng.review("d")
        eng.add("ops note", id="x", namespace="ops", embedding=vec(6))
        entries = eng.ledger()
        assert eng.verify_ledger().ok
    got = [(e.seq, e.verb, e.actor, sorted(e.ids), e.namespaces) for e in entries]
    assert got == [
        (1, "genesis", "alice", [], ()),
        (2, "add", "alice", ["a"], ("default",)),
        (3, "add_batch", "alice", ["b", "c"], ("default",)),
        (4, "link", "alice", ["a", "b"], ("default",)),
        (5, "supersede", "alice", sorted(["a", new]), ("default",)),
        (6, "update", "alice", ["b"], ("default",)),
        (7, "forget", "alice", ["c"], ("default",)),
        (8, "forget", "alice", ["b"], ("default",)),
        (9, "add", "alice", ["d"], ("default",)),
        (10, "review", "alice", ["d"], ("default",)),
        (11, "add", "alice", ["x"], ("ops",)),
    ]
    assert entries[0].note == "new store"
    assert [e.n_ids for e in entries] == [len(g[3]) for g in got]
    for prev, e in zip(entries, entries[1:]):   # the chain as read: each names the hash before it
        assert e.prev_hash == prev.hash and e.time >= prev.time
    assert entries[0].prev_hash == "0" * 64
    assert len({e.digest for e in entries}) == len(entries)   # every change hashes differently
    (archive,) = entries[6].details   # the soft forget's dynamics entry rides in its ledger entry
    assert archive["action"] == "archive" and archive["id"] == "c"


def test_a_rejected_or_empty_write_appends_nothing(tmp_store):
    with open_store(tmp_store) as eng:
        eng.add("one", id="one", embedding=vec(1))
        n = len(eng.ledger())
        with pytest.raises(engramdb.EmptyTextError):
            eng.add("   ", embedding=vec(2))
        with pytest.raises(engramdb.MemoryNotFoundError):
            eng.link("one", "missing")
        with pytest.raises(engramdb.InvalidInputError):   # id taken: the transaction aborts
            eng.add("another", id="one", embedding=vec(3))
        assert eng.link_batch([]) == []
        eng.rescore()   # nothing to archive, prune or promote: no record changes
        assert len(eng.ledger()) == n
        eng.rescore(materialize=True)   # writes every record: one entry
        assert [e.verb for e in eng.ledger()][n:] == ["rescore"]


def test_recall_reinforcement_is_a_change_and_is_ledgered(tmp_store):
    with open_store(tmp_store) as eng:
        eng.add("alpha fact", id="p", embedding=vec(1))
        n = len(eng.ledger())
        eng.recall(vector=vec(1), k=1, reinforce=False)
        assert len(eng.ledger()) == n
        eng.recall(vector=vec(1), k=1, reinforce=True)
        (e,) = eng.ledger()[n:]
        assert e.verb == "reinforce" and e.ids == ("p",)


def test_actor_is_per_engine_and_per_thread_block(tmp_store):
    barrier = threading.Barrier(2)

    def work(eng, name):
        with eng.acting_as(name):
            barrier.wait()   # both blocks are open at once
            for i in range(3):
                eng.add(f"{name} note {i}", id=f"{name}-{i}", embedding=vec(hash((name, i)) % 1000))
            barrier.wait()

    with open_store(tmp_store, actor="service") as eng:
        threads = [threading.Thread(target=work, args=(eng, n)) for n in ("t1", "t2")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        eng.add("main thread", id="main", embedding=vec(9))
        with eng.acting_as("outer"):
            with eng.acting_as("inner"):
                eng.add("nested", id="nested", embedding=vec(10))
            eng.add("after nested", id="after", embedding=vec(11))
        adds = {e.ids[0]: e.actor for e in eng.ledger(verb="add")}
    assert adds == {**{f"t{k}-{i}": f"t{k}" for k in (1, 2) for i in range(3)},
                    "main": "service", "nested": "inner", "after": "outer"}
    with pytest.raises(engramdb.InvalidInputError, match="actor"):
        open_store(tmp_store, actor="")


def test_filters_and_limit(tmp_store):
    with frozen_clock(500.0):
        eng = open_store(tmp_store)
    with eng:
        with frozen_clock(1000.0):
            eng.add("early", id="e1", embedding=vec(1))
        with frozen_clock(2000.0):
            eng.add("later", id="e2", namespace="other", embedding=vec(2))
            eng.forget("e2", namespace="other")
        assert [e.ids for e in eng.ledger(namespace="other")] == [("e2",), ("e2",)]
        assert [e.verb for e in eng.ledger(since=1500)] == ["add", "forget"]
        assert [e.ids for e in eng.ledger(until=1500, verb="add")] == [("e1",)]
        assert [e.verb for e in eng.ledger(limit=1)] == ["forget"]
        # a limit above the count gives every entry (helper180: limit=7 of 6 entries gave the last
        # one, limit=10 the last four: a negative start)
        every = [e.seq for e in eng.ledger()]
        assert len(every) == 4
        assert [[e.seq for e in eng.ledger(limit=n)] for n in (3, 4, 5, 7, 100)] == [
            every[1:], every, every, every, every]
        log = [(e["id"], e["action"]) for e in eng.dynamics_log()]
        assert log == [("e2", "archive")]
        # a period named as a date covers the whole period: every entry fell on 1970-01-01
        assert [e.verb for e in eng.ledger(since="1970-01-01", until="1970-01-01")] == [
            "genesis", "add", "add", "forget"]
        assert eng.ledger(until="1969") == []
        # 500 s is 00:08:20, 1000 s 00:16:40: the minute 00:16 holds the first add
        assert [e.ids for e in eng.ledger(since="1970-01-01T00:09", until="1970-01-01T00:16")] == [("e1",)]
        with pytest.raises(engramdb.InvalidInputError, match="after until"):
            eng.ledger(since="1972", until="1970")
        assert eng.ledger(limit=0) == []
        with pytest.raises(engramdb.InvalidInputError):
            eng.ledger(limit=-1)
        # a verb no entry can carry is a typo, not an empty answer; the message lists the verbs
        with pytest.raises(engramdb.InvalidInputError, match="'adds' is no ledger verb.*add_batch"):
            eng.ledger(verb="adds")
        assert [e.verb for e in eng.ledger(verb="forget")] == ["forget"]
        with frozen_clock(2500.0):
            eng.forget("e1")
        assert [[e["id"] for e in eng.dynamics_log(limit=n)] for n in (1, 2, 3)] == [["e1"], ["e2", "e1"], ["e2", "e1"]]


def test_every_verb_a_write_records_is_a_known_ledger_verb(tmp_store):
    """The writes of many verbs land in the ledger under names ``ledger(verb=)`` accepts."""
    with open_store(tmp_store) as eng:
        eng.add("the flight is on Monday", id="a", embedding=vec(1))
        eng.add_batch([{"id": "b", "text": "the hotel is booked", "embedding": vec(2)}])
        eng.link("a", "b", "supports")
        eng.supersede("a", "the flight moved to Tuesday", id="a2", embedding=vec(3))
        eng.forget("b")
        verbs = [e.verb for e in eng.ledger()]
    assert verbs == ["genesis", "add", "add_batch", "link", "supersede", "forget"]
    for verb in verbs:
        assert verb in engramdb.store.ledger.VERBS


def test_a_huge_batch_names_its_first_ids_and_counts_all(tmp_store):
    n = MAX_IDS + 5
    with open_store(tmp_store) as eng:
        eng.add_batch([{"id": f"m{i}", "text": f"memory {i}", "embedding": vec(i)} for i in range(n)])
        e = eng.ledger()[-1]
    assert e.n_ids == n and e.ids == tuple(f"m{i}" for i in range(MAX_IDS))


def test_the_digest_is_a_function_of_the_change(tmp_path):
    def run(path, text):
        with frozen_clock(5000.0), open_store(path, actor="same") as eng:
            eng.add("fixed first", id="f", embedding=vec(1))
            eng.add(text, id="g", embedding=vec(2))
            return eng.ledger()

    a, b, c = run(tmp_path / "a", "same text"), run(tmp_path / "b", "same text"), run(tmp_path / "c", "other text")
    assert [e.digest for e in a] == [e.digest for e in b]
    assert [e.hash for e in a] == [e.hash for e in b]   # same changes, time, actor: same chain
    assert a[1].digest == c[1].digest and a[2].digest != c[2].digest
    assert a[2].hash != c[2].hash


# ------------------------------------------------------------------ dynamics_log is a view
def test_dynamics_log_is_carried_by_ledger_entries(tmp_store):
    cfg = engramdb.EngramConfig(admission=engramdb.AdmissionConfig(threshold=0.99),
                                link=engramdb.LinkConfig(auto_link=False))
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing", config=cfg) as eng:
        eng.add("keep me", id="k", embedding=vec(1))
        eng.admit_batch([{"text": "a weak candidate", "embedding": vec(2)}])
        eng.forget("k")
        log = eng.dynamics_log()
        from_ledger = [d for e in eng.ledger() for d in e.details]
        assert [d["action"] for d in log] == ["admission_reject", "archive"]
        assert log == from_ledger
        assert meta(eng, "dynlog/0000000000000001") is None   # no second record of the events
        assert [d["action"] for d in eng.ledger(verb="admit_batch")[0].details] == ["admission_reject"]


def test_drop_namespace_erases_its_parts_and_the_chain_still_verifies(tmp_store):
    with open_store(tmp_store) as eng:
        eng.add_batch([{"id": "keep-1", "text": "kept one", "namespace": "keep", "embedding": vec(1)},
                       {"id": "gone-1", "text": "gone one", "namespace": "gone", "embedding": vec(2)}])
        eng.add("gone two", id="gone-2", namespace="gone", embedding=vec(3))
        eng.forget("gone-2", namespace="gone")   # a dynamics entry of the dropped namespace
        assert eng.drop_namespace("gone") == {"memories": 2, "pieces": 0}
        entries = eng.ledger()
        report = eng.verify_ledger()
    assert report.ok and report.entries == len(entries) == 5
    mixed, only_gone, forget, drop = entries[1:]
    assert mixed.ids == ("keep-1",) and mixed.redacted == ("gone",) and mixed.namespaces == ("gone", "keep")
    assert only_gone.ids == () and forget.details == () and only_gone.redacted == ("gone",)
    assert drop.verb == "drop_namespace" and drop.redacted == () and drop.n_ids == 2
    assert [d["action"] for d in drop.details] == ["drop_namespace"]
    assert not any("gone-" in i for e in entries for i in e.ids)


# ------------------------------------------------------------------ tamper evidence
def _filled(path) -> str:
    with open_store(path) as eng:
        for i in range(5):
            eng.add(f"memory {i}", id=f"m{i}", embedding=vec(i))
        eng.forget("m1")
        assert eng.verify_ledger().ok
        return eng.verify_ledger().head_hash


def _verify(path):
    with engramdb.open(path, readonly=True) as eng:
        return eng.verify_ledger()


def test_verify_ok_on_an_untouched_store(tmp_store):
    head = _filled(tmp_store)
    r = _verify(tmp_store)
    assert (r.ok, r.entries, r.first_bad_seq, r.reason, r.head_hash) == (True, 7, None, "", head)


def test_an_edited_entry_is_found(tmp_store):
    _filled(tmp_store)
    e = raw_entries(tmp_store)[3]
    e["h"]["actor"] = "mallory"
    raw_put(tmp_store, 3, e)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 3 and "edited" in r.reason and r.entries == 2


def test_an_edited_entry_with_its_hash_recomputed_breaks_the_next_link(tmp_store):
    _filled(tmp_store)
    e = raw_entries(tmp_store)[3]
    e["h"]["actor"] = "mallory"
    e["hash"] = entry_hash(e["h"])
    raw_put(tmp_store, 3, e)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 4 and "prev hash" in r.reason


def test_an_edited_id_list_is_found(tmp_store):
    _filled(tmp_store)
    e = raw_entries(tmp_store)[2]
    e["parts"]["default"]["ids"] = ["someone-else"]
    raw_put(tmp_store, 2, e)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 2 and "part of namespace 'default' was edited" in r.reason


def test_a_deleted_middle_entry_is_found(tmp_store):
    _filled(tmp_store)
    raw_put(tmp_store, 4, None)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 4 and "missing" in r.reason


def test_a_deleted_middle_entry_with_later_ones_renumbered_is_found(tmp_store):
    _filled(tmp_store)
    entries = raw_entries(tmp_store)
    for seq in range(4, 7):   # shift 5.. down one, with their own seq fields and hashes redone
        e = entries[seq + 1]
        e["h"]["seq"] = seq
        e["hash"] = entry_hash(e["h"])
        raw_put(tmp_store, seq, e)
    raw_put(tmp_store, 7, None)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 4 and "prev hash" in r.reason


def test_a_cut_off_tail_is_found(tmp_store):
    _filled(tmp_store)
    raw_put(tmp_store, 7, None)
    raw_put(tmp_store, 6, None)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 6 and "tail cut off" in r.reason


def test_a_cut_off_tail_with_the_head_moved_back_is_caught_only_by_an_anchor(tmp_store):
    head = _filled(tmp_store)
    entries = raw_entries(tmp_store)
    raw_put(tmp_store, 7, None)
    raw_meta(tmp_store, "ledger_head", {"seq": 6, "hash": entries[6]["hash"]})
    r = _verify(tmp_store)
    assert r.ok and r.entries == 6      # the chain alone cannot tell (documented)
    assert r.head_hash != head          # a head hash kept elsewhere can


def test_reordered_entries_are_found(tmp_store):
    _filled(tmp_store)
    entries = raw_entries(tmp_store)
    raw_put(tmp_store, 3, entries[4])
    raw_put(tmp_store, 4, entries[3])
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 3 and "says seq 4" in r.reason


def test_a_part_erased_without_a_drop_is_found(tmp_store):
    _filled(tmp_store)
    e = raw_entries(tmp_store)[2]
    e["parts"]["default"] = None
    e["redacted_by"]["default"] = 5   # claims a drop that entry 5 is not
    raw_put(tmp_store, 2, e)
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 2 and "no later drop_namespace" in r.reason


def test_a_deleted_head_and_a_hidden_dynamics_entry_are_found(tmp_store):
    _filled(tmp_store)
    with raw_env(tmp_store) as env:
        db = env.open_db(b"ledger_dyn")
        with env.begin(write=True) as txn:
            assert txn.delete((7).to_bytes(8, "big"), db=db)   # the soft forget's archive entry
    r = _verify(tmp_store)
    assert not r.ok and r.first_bad_seq == 7 and "ledger_dyn" in r.reason
    raw_meta(tmp_store, "ledger_head", None)
    r = _verify(tmp_store)
    assert not r.ok and "without a head" in r.reason


# ------------------------------------------------------------------ stores without a ledger
def _make_old_store(path) -> list[dict]:
    """A store as an engramdb without the ledger left it: schema 1, no ledger sub-databases, no
    head, its dynamics log under ``meta`` keys ``dynlog/...``."""
    with open_store(path) as eng:
        eng.add("old memory", id="old", embedding=vec(1))
        eng.forget("old")
        old_log = eng.dynamics_log()
    with raw_env(path) as env:
        meta_db = env.open_db(b"meta")
        with env.begin(write=True) as txn:
            for name in (b"ledger", b"ledger_dyn"):
                txn.drop(env.open_db(name, txn=txn), delete=True)
            txn.delete(b"ledger_head", db=meta_db)
            txn.put(b"schema", msgpack.packb(1), db=meta_db)
            for e in old_log:
                txn.put(f"dynlog/{e['seq']:016x}".encode(), msgpack.packb(e, use_bin_type=True), db=meta_db)
    return old_log


def test_a_store_without_a_ledger_reads_and_then_gets_a_genesis_entry(tmp_store):
    old_log = _make_old_store(tmp_store)
    assert [e["action"] for e in old_log] == ["archive"]
    with engramdb.open(tmp_store, readonly=True) as eng:
        assert eng.ledger() == []
        r = eng.verify_ledger()
        assert r.ok and r.entries == 0
        assert eng.dynamics_log() == old_log   # the old log, as it is
        assert eng.get("old").id == "old"
        assert meta(eng, "schema") == 1
    with engramdb.open(tmp_store, actor="migrator") as eng:
        assert meta(eng, "schema") == 2   # an engramdb without the ledger now refuses it
        (genesis,) = eng.ledger()
        assert genesis.verb == "genesis" and genesis.actor == "migrator" and "not ledgered" in genesis.note
        assert list(genesis.details) == old_log
        assert eng.dynamics_log() == old_log   # moved, not copied
        assert meta(eng, f"dynlog/{old_log[0]['seq']:016x}") is None
        eng.add("new memory", id="new", embedding=vec(2))
        eng.forget("new")
        assert [e["id"] for e in eng.dynamics_log()] == ["old", "new"]
        assert [e.verb for e in eng.ledger()] == ["genesis", "add", "forget"]
        assert eng.verify_ledger().ok
    with open_store(tmp_store) as eng:   # a second open writes no second genesis
        assert len(eng.ledger(verb="genesis")) == 1


# ------------------------------------------------------------------ export and CLI
def test_a_store_of_an_unknown_schema_is_refused(tmp_store):
    _filled(tmp_store)
    raw_meta(tmp_store, "schema", 3)
    with pytest.raises(engramdb.StoreCorruptedError, match="schema 3 is not supported"):
        engramdb.open(tmp_store)


def test_export_ledger_to_parquet(tmp_store, tmp_path):
    _filled(tmp_store)
    out = tmp_path / "ledger.parquet"
    with engramdb.open(tmp_store, readonly=True) as eng:
        assert eng.export_ledger(out) == str(out)
        entries = eng.ledger()
        with pytest.raises(engramdb.InvalidInputError, match="exists"):
            eng.export_ledger(out)
    rows = pq.read_table(out).to_pylist()
    assert [r["seq"] for r in rows] == list(range(1, 8))
    for r, e in zip(rows, entries):
        assert r == {**e.to_dict(), "details": json.dumps(list(e.details))}
    assert (out.stat().st_mode & 0o777) == 0o600


def test_cli_ledger(tmp_store, tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["--actor", "bob", "add", "--store", str(tmp_store), "--embedder", "hashing",
                               "a note from the command line"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["ledger", "--store", str(tmp_store), "--verify", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [(e["verb"], e["actor"]) for e in out["entries"]] == [("genesis", "bob"), ("add", "bob")]
    assert out["verify"]["ok"] and out["verify"]["entries"] == 2
    res = runner.invoke(main, ["ledger", "--store", str(tmp_store), "--verb", "add", "--parquet",
                               str(tmp_path / "l.parquet")])
    assert res.exit_code == 0 and "bob" in res.output and "ledger ok" not in res.output
    assert pq.read_table(tmp_path / "l.parquet").num_rows == 2
    e = raw_entries(tmp_store)[2]
    e["h"]["verb"] = "link"
    raw_put(tmp_store, 2, e)
    res = runner.invoke(main, ["ledger", "--store", str(tmp_store), "--verify"])
    assert res.exit_code == 1 and "BROKEN at entry 2" in res.output
    assert "audit ledger" not in res.output   # --verify alone checks, it does not list
    res = runner.invoke(main, ["ledger", "--store", str(tmp_store), "--verify", "--limit", "5"])
    assert "audit ledger" in res.output and "bob" in res.output


# ------------------------------------------------------------------ property: any sequence of writes
OPS = st.lists(st.tuples(st.sampled_from(["add", "batch", "link", "supersede", "update", "archive", "erase",
                                          "bad", "drop"]),
                         st.integers(0, 10_000), st.sampled_from(["n1", "n2"])), min_size=1, max_size=25)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_any_sequence_of_writes_keeps_one_entry_per_change_and_a_whole_chain(tmp_path_factory, ops):
    path = tmp_path_factory.mktemp("prop") / "store"
    live: dict[str, list[str]] = {"n1": [], "n2": []}
    linked: set[tuple[str, str, str]] = set()   # (namespace, source, target) of the links made
    expected = ["genesis"]
    k = 0
    with open_store(path) as eng:
        for op, r, ns in ops:
            ids = live[ns]
            k += 1
            if op == "add" or (op in ("link", "supersede", "update", "archive", "erase") and len(ids) < 2):
                eng.add(f"note {k} {r}", id=f"i{k}", namespace=ns, embedding=vec(k))
                ids.append(f"i{k}")
                expected.append("add")
            elif op == "batch":
                new = [f"i{k}-{j}" for j in range(1 + r % 3)]
                eng.add_batch([{"id": m, "text": f"batch {m}", "embedding": vec(k * 7 + j)}
                               for j, m in enumerate(new)], namespace=ns)
                ids.extend(new)
                expected.append("add_batch")
            elif op == "link":
                a, b = ids[r % len(ids)], ids[(r + 1) % len(ids)]
                eng.link(a, b, "related_to", namespace=ns)
                if (ns, a, b) not in linked:   # set again to the weight it has: no change, no entry
                    linked.add((ns, a, b))
                    expected.append("link")
            elif op == "supersede":
                old = ids.pop(r % len(ids))
                ids.append(eng.supersede(old, f"revised {k}", id=f"i{k}", namespace=ns, embedding=vec(k)))
                expected.append("supersede")
            elif op == "update":
                eng.update(ids[r % len(ids)], namespace=ns, text=f"reworded {k}")
                expected.append("update")
            elif op in ("archive", "erase"):
                gone = ids.pop(r % len(ids))
                eng.forget(gone, namespace=ns, hard=op == "erase")
                if op == "erase":
                    linked = {e for e in linked if not (e[0] == ns and gone in e[1:])}
                expected.append("forget")
            elif op == "bad":   # rejected: nothing written, no entry
                with pytest.raises(engramdb.EngramError):
                    eng.link("no-such", "other", namespace=ns)
            elif op == "drop" and ns in eng.namespaces():
                eng.drop_namespace(ns)
                live[ns] = []
                linked = {e for e in linked if e[0] != ns}
                expected.append("drop_namespace")
        entries = eng.ledger()
        report = eng.verify_ledger()
        log = eng.dynamics_log()
        stored = {(m.namespace, m.id) for n in eng.namespaces()
                  for m in eng.query(namespace=n, include_archived=True, include_superseded=True, limit=1000)}
    assert report.ok and report.entries == len(entries), report
    assert [e.verb for e in entries] == expected
    assert log == [d for e in entries for d in e.details]
    named = {(ns, i) for e in entries for ns in e.namespaces for i in e.ids}
    assert all(any(i in e.ids for e in entries if ns in e.namespaces and e.verb in ("add", "add_batch", "supersede"))
               for ns, i in stored), stored - named


def test_decisions_and_their_reviews_are_ledgered(tmp_path):
    with open_store(tmp_path / "s", actor="planner") as db:
        d = db.decide("We pick Postgres for the queue", confidence=0.7, options=["Postgres", "Redis"],
                      chosen="Postgres", embedding=vec(1))
        db.review(d, outcome="failure", note="too slow at peak")
        db.review(d, outcome="success")
        entries = db.ledger()
        assert [e.verb for e in entries[-3:]] == ["decide", "review", "review"]
        assert entries[-3].ids == (d,) and all(e.actor == "planner" for e in entries[-3:])
        assert set(entries[-2].ids) == {d, f"{d}:outcome:1"}
        assert set(entries[-1].ids) >= {d, f"{d}:outcome:2"}
        assert db.verify_ledger().ok


def test_an_update_that_changes_nothing_writes_nothing(tmp_path):
    with open_store(tmp_path / "s") as db:
        db.add("Ana lives in Faro", id="a", tags=["home"], embedding=vec(2))
        before = len(db.ledger())
        same = db.update("a", text="Ana lives in Faro")
        assert same.text == "Ana lives in Faro" and len(db.history("a")) == 1
        db.update("a", tags=["home"])
        db.update("a", embedding=vec(2))
        assert len(db.ledger()) == before
        db.update("a", tags=["home", "city"])
        assert len(db.ledger()) == before + 1 and len(db.history("a")) == 2


def test_a_link_set_again_to_its_weight_writes_nothing(tmp_path):
    # a second link() with the same weight wrote the edge again (a new time), boosted both
    # ends' salience again and appended a ledger entry for it
    with open_store(tmp_path / "s") as db:
        db.add("Ana lives in Faro", id="a", embedding=vec(2))
        db.add("Ana works at the port", id="b", embedding=vec(3))
        db.link("a", "b", "supports", 0.7)
        before, sal = len(db.ledger()), (db.get("a").salience, db.get("b").salience)
        digest = store_digest(db)
        assert db.link("a", "b", "supports", 0.7).weight == pytest.approx(0.7)
        db.link_batch([("a", "b", "supports", 0.7)])
        assert len(db.ledger()) == before and store_digest(db) == digest
        assert (db.get("a").salience, db.get("b").salience) == sal
        db.link("a", "b", "supports", 0.9)   # a new weight is a change
        assert len(db.ledger()) == before + 1
        assert [e.weight for e in db.edges("a") if e.relation.value == "supports"] == [pytest.approx(0.9)]


def test_cli_empty_actor_is_refused_as_in_python(tmp_path):
    res = CliRunner().invoke(main, ["--actor", "", "add", "--store", str(tmp_path / "s"), "--embedder", "hashing",
                                    "a note"])
    assert res.exit_code == 2 and "actor" in res.output
    with pytest.raises(engramdb.InvalidInputError):
        engramdb.open(tmp_path / "t", dim=DIM, embedder="hashing", actor="")
