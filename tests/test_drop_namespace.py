"""drop_namespace: one write unit erases a namespace, then no file of the store holds its bytes."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import engramdb
from engramdb.cli import main
from engramdb.store.lmdb_store import LmdbStore
from engramdb.testing import entry_counts, index_file, indexed_ids, keyword_counts, store_digest

DIM = 32
GONE = "tenant-gone"
# every kind of place a namespace's text reaches: text, id, tag, source, slot, a rejected
# admission candidate (the dynamics log keeps its text), an earlier wording (history)
SECRETS = [b"QX7Z9M-SECRET", b"secret-id-17", b"tag-SECRET", b"source-SECRET", b"subject-SECRET",
           b"home_city_SECRET", b"Porto-SECRET", b"rejected-SECRET", b"old-wording-SECRET"]


def vec(i: int) -> np.ndarray:
    v = np.random.default_rng(i).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def fill(eng, ns: str, secret: bool) -> None:
    """Memories, edges, a slot, a superseded value, an update and log entries in ``ns``."""
    s = "SECRET" if secret else "KEPT"
    eng.add(f"My confirmation code is QX7Z9M-{s}.", id="secret-id-17" if secret else "kept-id-17",
            namespace=ns, tags=[f"tag-{s}"], source=f"source-{s}", embedding=vec(1))
    eng.add(f"I live in Lisbon {s}.", id="home1", namespace=ns, slot=(f"subject-{s}", f"home_city_{s}"),
            valid_from=1000.0, embedding=vec(2))
    eng.add(f"I live in Porto-{s}.", id="home2", namespace=ns, slot=(f"subject-{s}", f"home_city_{s}"),
            valid_from=2000.0, embedding=vec(3))
    eng.add_batch([{"id": f"m{i}", "text": f"note {i} of {ns} {'x' * (i * 40)}", "embedding": vec(10 + i)}
                   for i in range(40)], namespace=ns)
    eng.add(f"old-wording-{s}", id="upd", namespace=ns, embedding=vec(4))
    eng.update("upd", namespace=ns, text=f"new wording {s}")
    eng.link_batch([(f"m{i}", f"m{i + 1}", "next") for i in range(39)] + [("m0", "home2", "supports")],
                   namespace=ns)
    eng.admit_batch([{"text": f"rejected-{s} ok", "embedding": vec(5)}], namespace=ns)
    eng.forget("m3", namespace=ns)                 # archived (logged)
    eng.forget("m4", namespace=ns, hard=True)      # erased before the drop


def store_bytes(path) -> bytes:
    """Every file under the store directory, lower-cased (slots and postings store lower case)."""
    out = []
    for root, _dirs, files in os.walk(path):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out.append(fh.read())
    return b"\n".join(out).lower()


def found(path) -> list[bytes]:
    data = store_bytes(path)
    return [s for s in SECRETS if s.lower() in data]


def answers(eng, ns: str):
    return [[(h.id, round(h.score, 6)) for h in eng.recall(vector=vec(10 + i), namespace=ns, k=5).hits]
            for i in range(0, 40, 7)]


@pytest.fixture
def store(tmp_store):
    cfg = engramdb.EngramConfig(admission=engramdb.AdmissionConfig(threshold=0.99))   # rejects
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing", config=cfg) as eng:
        for ns in ("alpha", GONE, "omega"):       # the dropped one has a code between two others
            fill(eng, ns, secret=ns == GONE)
        assert any(e["action"] == "admission_reject" for e in eng.dynamics_log(namespace=GONE))
    assert found(tmp_store) == SECRETS   # the scan sees each of them before the drop
    return tmp_store


def test_drop_erases_every_trace_and_keeps_the_rest(store):
    with engramdb.open(store) as eng:
        before = {ns: answers(eng, ns) for ns in ("alpha", "omega")}
        edges_before = eng.edges("m0", namespace="omega")
        hist = [h.text for h in eng.history("home2", namespace="omega")]
        live = eng.stats()["namespaces"][GONE]["memories"]
        index_path = index_file(eng, GONE)
        assert os.path.exists(index_path)
        log_before = [e for e in eng.dynamics_log() if e["namespace"] != GONE]

        assert eng.drop_namespace(GONE) == {"memories": live, "pieces": 0} and live == 43   # 44 added, one erased

        assert eng.namespaces() == ["alpha", "omega"] and GONE not in eng.stats()["namespaces"]
        assert not any(os.path.exists(index_path + ext) for ext in ("", ".json", ".tmp", ".json.tmp"))
        assert set(keyword_counts(eng)) == {"alpha", "omega"}
        assert {ns: answers(eng, ns) for ns in ("alpha", "omega")} == before
        assert eng.edges("m0", namespace="omega") == edges_before
        assert [h.text for h in eng.history("home2", namespace="omega")] == hist
        (entry,) = eng.dynamics_log(namespace=GONE)
        assert entry["action"] == "drop_namespace" and entry["count"] == 43 and entry["id"] is None
        assert eng.dynamics_log(action="drop_namespace") == [entry]
        assert [e for e in eng.dynamics_log() if e["namespace"] != GONE] == log_before
        with pytest.raises(engramdb.NamespaceError, match=f"no namespace '{GONE}'"):
            eng.recall("code", namespace=GONE)
        with pytest.raises(engramdb.MemoryNotFoundError):
            eng.get("secret-id-17", namespace=GONE)
        counts = entry_counts(eng)
        assert counts["mem"] == counts["vec"] == counts["ids"] == 2 * 43
    assert found(store) == []
    assert b"qx7z9m-kept" in store_bytes(store)   # the kept namespaces' text is still there
    assert sorted(os.listdir(store)) == ["data.mdb", "index", "lock.mdb", "writer.lock"]
    with engramdb.open(store) as eng:   # reopens from the snapshots written after the drop
        assert eng.namespaces() == ["alpha", "omega"]
        assert {ns: answers(eng, ns) for ns in ("alpha", "omega")} == before
        assert indexed_ids(eng, "omega") == {m.id for m in eng.query(namespace="omega", include_archived=True,
                                                                     include_superseded=True, limit=1000)}


def test_a_dropped_name_starts_afresh(store):
    with engramdb.open(store) as eng:
        eng.drop_namespace(GONE)
        h = eng.namespace(GONE)
        h.add("I live in Faro.", id="home1", slot=("subject-SECRET", "home_city_SECRET"), embedding=vec(2))
        h.add("My confirmation code is QX7Z9M-SECRET.", embedding=vec(1))   # no stale dedupe key
        assert [m.state.value for m in h.query(limit=10)] == ["active", "active"]
        assert h.get("home1").text == "I live in Faro."
        assert [x.id for x in h.recall(vector=vec(2), k=1).hits] == ["home1"]
        assert h.edges("home1") == []
        assert eng.namespaces() == ["alpha", "omega", GONE]


def test_after_the_last_namespace_is_dropped(tmp_store):
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing") as eng:
        eng.add("only one", id="x", namespace="solo", embedding=vec(1))
        assert eng.drop_namespace("solo") == {"memories": 1, "pieces": 0}
        assert eng.namespaces() == [] and eng.stats()["memories"] == 0
        assert eng.recall("anything").gaps[0].reason == "empty_namespace"   # the default namespace
    with engramdb.open(tmp_store) as eng:
        assert eng.namespaces() == []
        eng.add("again", id="x", namespace="solo", embedding=vec(1))
        assert [h.id for h in eng.recall(vector=vec(1), namespace="solo").hits] == ["x"]


def test_an_emptied_namespace_is_dropped_with_count_zero(tmp_store):
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing") as eng:
        eng.add("x", id="x", namespace="n", embedding=vec(1))
        eng.forget("x", namespace="n", hard=True)
        assert eng.recall("x", namespace="n").gaps[0].reason == "empty_namespace"
        assert eng.drop_namespace("n") == {"memories": 0, "pieces": 0}
        with pytest.raises(engramdb.NamespaceError):
            eng.recall("x", namespace="n")


def test_unknown_name_changes_nothing(store):
    with engramdb.open(store) as eng:
        digest = store_digest(eng)
        with pytest.raises(engramdb.NamespaceError, match="did you mean 'tenant-gone'") as err:
            eng.drop_namespace("tenant_gone")
        assert err.value.suggestions == (GONE,) and err.value.namespace == "tenant_gone"
        for bad in ("", None, "a\x00b"):
            with pytest.raises(engramdb.NamespaceError):
                eng.drop_namespace(bad)
        assert store_digest(eng) == digest
    with engramdb.open(store, readonly=True) as ro:
        with pytest.raises(engramdb.ReadOnlyError):
            ro.drop_namespace(GONE)


HOLD = """
import sys, time, engramdb
eng = engramdb.open(sys.argv[1], readonly=True)
print("open", flush=True)
sys.stdin.readline()
"""


def test_refused_while_another_process_has_the_store_open(store):
    reader = subprocess.Popen([sys.executable, "-c", HOLD, str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "open"
        with engramdb.open(store) as eng:
            digest = store_digest(eng)
            with pytest.raises(engramdb.StoreLockedError, match="nothing was changed"):
                eng.drop_namespace(GONE)
            assert store_digest(eng) == digest and GONE in eng.namespaces()
            with pytest.raises(engramdb.StoreLockedError):
                eng.compact()
            assert eng.recall(vector=vec(1), namespace=GONE, k=1).hits[0].id == "secret-id-17"
    finally:
        reader.communicate("\n", timeout=60)
    with engramdb.open(store) as eng:
        assert eng.drop_namespace(GONE) == {"memories": 43, "pieces": 0}
    assert found(store) == []


def drop_cut_short(store, monkeypatch) -> None:
    """A drop whose process stops after the commit, before the file is rewritten."""
    def crash(self):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(LmdbStore, "compact", crash)
        eng = engramdb.open(store)
        with pytest.raises(KeyboardInterrupt):
            eng.drop_namespace(GONE)
        eng.close()


def test_a_drop_cut_short_before_compaction_is_finished_at_the_next_open(store, monkeypatch):
    drop_cut_short(store, monkeypatch)
    assert os.path.exists(os.path.join(store, "compact.pending"))
    assert found(store) != []   # LMDB keeps freed pages as they were
    with engramdb.open(store) as eng:
        assert eng.namespaces() == ["alpha", "omega"]
    assert found(store) == []
    assert not os.path.exists(os.path.join(store, "compact.pending"))


def test_a_pending_compaction_waits_while_a_reader_has_the_store_open(store, monkeypatch):
    drop_cut_short(store, monkeypatch)
    reader = subprocess.Popen([sys.executable, "-c", HOLD, str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "open"
        with pytest.warns(RuntimeWarning, match="waiting for the store file to be compacted"):
            with engramdb.open(store) as eng:
                assert eng.namespaces() == ["alpha", "omega"]
        assert os.path.exists(os.path.join(store, "compact.pending")) and found(store) != []
    finally:
        reader.communicate("\n", timeout=60)
    engramdb.open(store).close()
    assert found(store) == [] and not os.path.exists(os.path.join(store, "compact.pending"))


def test_compact_removes_what_a_hard_forget_left_in_free_pages(tmp_store):
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing") as eng:
        eng.add_batch([{"id": f"k{i}", "text": f"kept memory {i}", "embedding": vec(i)} for i in range(50)])
        eng.add("erase me PRIVATE-7731", id="p", embedding=vec(99))
        eng.flush()
        eng.forget("p", hard=True)
        eng.flush()
        assert b"private-7731" in store_bytes(tmp_store)
        out = eng.compact()
        assert out["bytes_after"] <= out["bytes_before"] and out["seconds"] >= 0
        assert [h.id for h in eng.recall(vector=vec(7), k=1).hits] == ["k7"]   # usable after the swap
        eng.add("after compaction", id="later", embedding=vec(200))
    assert b"private-7731" not in store_bytes(tmp_store)
    with engramdb.open(tmp_store) as eng:
        assert eng.get("later").text == "after compaction" and len(eng.query(limit=100)) == 51


def test_cli_drop_namespace(store):
    r = CliRunner().invoke(main, ["drop-namespace", "--store", str(store), GONE], input="n\n")
    assert r.exit_code == 1 and "43 memories" in r.output and "Aborted" in r.output
    r = CliRunner().invoke(main, ["drop-namespace", "--store", str(store), "tenant-gon", "--yes"])
    assert r.exit_code == 2 and "did you mean 'tenant-gone'" in r.output
    r = CliRunner().invoke(main, ["drop-namespace", "--store", str(store), GONE], input="y\n")
    assert r.exit_code == 0 and f"dropped namespace '{GONE}': 43 memories erased" in r.output
    r = CliRunner().invoke(main, ["recall", "--store", str(store), "--namespace", "omegaa", "code"])
    assert r.exit_code == 2 and "error: NamespaceError: no namespace 'omegaa'; did you mean 'omega'?" in r.output
    r = CliRunner().invoke(main, ["drop-namespace", "--store", str(store), "omega", "--yes"])
    assert r.exit_code == 0 and "43 memories erased" in r.output
    r = CliRunner().invoke(main, ["recall", "--store", str(store), "--namespace", "omega", "code"])
    assert r.exit_code == 2 and "no namespace 'omega'; the store holds 'alpha'" in r.output


LONG = " ".join(f"Sentence {i} of the long note says something about topic {i}." for i in range(40))


def test_drop_counts_memories_and_pieces_apart(tmp_store):
    """A memory stored as pieces is one memory, as stats() counts it: the count drop_namespace
    returns, logs and prints keeps its pieces apart (it returned memories + pieces)."""
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=300))
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing", config=cfg) as eng:
        eng.add(LONG, id="long", namespace="x")
        eng.add("a short one", id="short", namespace="x")
        eng.add(LONG.replace("long note", "other note"), id="long2", namespace="x")
        eng.forget("long2", namespace="x")   # archived: counted too, as any state is erased
        eng.add("kept elsewhere", id="k", namespace="y")
        row = eng.stats()["namespaces"]["x"]
        assert row["memories"] == 3 and row["pieces"] > 4
        assert eng.drop_namespace("x") == {"memories": 3, "pieces": row["pieces"]}
        entry = [e for e in eng.dynamics_log() if e["action"] == "drop_namespace"][0]
        assert (entry["count"], entry["pieces"]) == (3, row["pieces"])


def test_cli_drop_counts_and_plurals(tmp_store):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=300))
    with engramdb.open(tmp_store, dim=DIM, embedder="hashing", config=cfg) as eng:
        eng.add(LONG, id="long", namespace="x")
        eng.add("a short one", id="short", namespace="x")
        eng.add("only one", id="one", namespace="y")
        pieces = eng.stats()["namespaces"]["x"]["pieces"]
    r = CliRunner().invoke(main, ["drop-namespace", "--store", str(tmp_store), "x"], input="y\n")
    assert r.exit_code == 0, r.output
    assert f"erase namespace 'x' and its 2 memories ({pieces} more pieces of long ones) for good?" in r.output
    assert f"dropped namespace 'x': 2 memories ({pieces} more pieces of long ones) erased" in r.output
    r = CliRunner().invoke(main, ["drop-namespace", "--store", str(tmp_store), "y"], input="y\n")
    assert "its 1 memory for good?" in r.output and "dropped namespace 'y': 1 memory erased" in r.output


def test_drop_shreds_the_lists_consolidation_saved(tmp_store):
    """consolidate() saves each namespace's similar-pair lists beside its index; a dropped
    namespace's go with it, the others' stay."""
    said = ["I started learning the cello with my teacher Marta.", "My cousin lives in Porto.",
            "I started learning the cello with my teacher Marta last spring."]
    with engramdb.open(tmp_store) as eng:
        for ns in ("keep", "gone"):
            for i, text in enumerate(said):
                eng.add_conversation([{"role": "user", "content": text, "created_at": 1_700_000_000.0 + i * 86400},
                                      {"role": "assistant", "content": "Thanks, noted.",
                                       "created_at": 1_700_000_001.0 + i * 86400}], namespace=ns, session=f"s{i}")
            assert eng.consolidate(namespace=ns, now=1_700_000_000.0 + 30 * 86400)["facts"] == 1
        stems = {ns: os.path.basename(index_file(eng, ns)) for ns in ("keep", "gone")}
        saved = lambda ns: sorted(f for f in os.listdir(os.path.dirname(index_file(eng, ns)))  # noqa: E731
                                  if f.startswith(stems[ns] + ".pairs-"))
        assert saved("gone") == [stems["gone"] + ".pairs-facts"] and saved("keep")
        eng.drop_namespace("gone")
        assert saved("gone") == [] and saved("keep") == [stems["keep"] + ".pairs-facts"]
