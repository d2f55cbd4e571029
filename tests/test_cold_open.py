"""Cold open: a store reopened from its snapshots answers exactly as before it was closed.

The keyword snapshot keeps the forward index of every namespace (no sort of the postings at
open); a snapshot without it (written by an earlier engramdb, or with its arrays missing) opens
by rebuilding it, answers the same, and is saved whole at the next flush. Column and keyword
arrays are installed as read-only views of the loaded snapshot and copied before the first write.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import engramdb
from engramdb.index.keyword import KeywordIndex
from engramdb.testing import (
    cache_status,
    damage_snapshot,
    frozen_clock,
    keyword_search,
    raw_records,
    snapshot_arrays,
)

T0 = 1_760_000_000.0
WORDS = ("flight lisbon code qx7z9m hotel river tea coffee puppy beach budget monday sunset lake "
         "caroline melanie painting camping guitar tp-218 2023-05-14 12.5% paris tokyo snake deborah "
         "adopted moved job nurse teacher garden bakery marathon violin").split()
QUESTIONS = ["What is the code of the Lisbon flight?", "Who adopted a puppy?", "When is the budget review?",
             "what did Deborah paint at the lake", "TP-218", "nurse job in Paris", "marathon violin garden"]
FEEDBACK = engramdb.RecallConfig(prf_docs=4, prf_terms=6, prf_weight=0.3)
FWD = ["fwd_docs", "fwd_lens", "fwd_n", "fwd_ndocs", "fwd_pos", "fwd_tid"]


def _texts(rng, n):
    return [" ".join(rng.choice(WORDS, int(rng.integers(3, 12)))) for _ in range(n)]


def _build(path, rng, n=3000):
    """A store of ``n`` memories in two namespaces with edges, an update, a soft and a hard forget."""
    with frozen_clock(T0), engramdb.open(path, embedder="hashing", dim=64) as m:
        for ns in ("a", "b"):
            texts = _texts(rng, n // 2)
            items = [{"id": f"{ns}{i}", "text": t, "created_at": T0 - 86400 * (len(texts) - i)}
                     for i, t in enumerate(texts)]
            for j in range(1, len(items), 3):
                items[j]["links"] = [{"to": items[j - 1]["id"], "relation": "next"}]
            m.add_batch(items, namespace=ns)
        m.update("a5", text="Deborah moved her snake to the bakery in Tokyo", namespace="a")
        m.forget("a7", namespace="a")
        m.forget("b9", namespace="b", hard=True)


def _answers(m):
    """Every recall answer (hits with scores, paths, relevance; gaps, mode) and keyword hit list
    (plain and with feedback) of the questions in both namespaces, at a frozen clock."""
    out = []
    with frozen_clock(T0 + 3600):
        for ns in ("a", "b"):
            for q in QUESTIONS:
                r = m.recall(q, namespace=ns, k=8)
                out.append(([dataclasses.asdict(h) for h in r.hits], [dataclasses.asdict(g) for g in r.gaps],
                            r.mode, r.density))
                out.append(keyword_search(m, ns, q, k=10))
                out.append(keyword_search(m, ns, q, k=10, feedback=FEEDBACK))
    return out


def test_reopen_answers_exactly_as_before_close(tmp_path, rng):
    path = tmp_path / "s"
    _build(path, rng)
    with engramdb.open(path) as m:              # answers from the state the writes built
        before = _answers(m)
    names, meta = snapshot_arrays(engramdb.open(path, readonly=True), "keyword")
    assert set(FWD) <= set(names) and meta["forward"] == 1
    with engramdb.open(path) as m:              # answers from the snapshots
        assert cache_status(m)["keyword"] == "current" and cache_status(m)["columns"] == "current"
        assert _answers(m) == before
    with engramdb.open(path, readonly=True) as m:
        assert _answers(m) == before


def test_snapshot_without_forward_index_opens_alike_and_is_upgraded(tmp_path, rng):
    path = tmp_path / "s"
    _build(path, rng)
    with engramdb.open(path) as m:
        before = _answers(m)
        damage_snapshot(m, "keyword", array="fwd_pos")   # as an older snapshot lacks it
    with engramdb.open(path, readonly=True) as m:       # a reader cannot upgrade it
        assert "fwd_pos" not in snapshot_arrays(m, "keyword")[0]
        assert _answers(m) == before
    with engramdb.open(path) as m:                      # rebuilt at open, saved at close
        assert cache_status(m)["keyword"] == "current"
        assert _answers(m) == before
    with engramdb.open(path) as m:
        assert set(FWD) <= set(snapshot_arrays(m, "keyword")[0])
        assert _answers(m) == before


def test_writes_after_a_cold_open_equal_a_rebuild_from_the_records(tmp_path, rng):
    """The loaded arrays are read-only views: writes copy them first. After adds, updates and
    forgets on a cold-opened store, answers equal those of postings rebuilt from the records."""
    path = tmp_path / "s"
    _build(path, rng)
    with frozen_clock(T0 + 60), engramdb.open(path) as m:
        m.add("Caroline's new puppy is called QX7Z9M", id="new1", namespace="a")
        m.update("a3", text="The budget review moved to Friday", namespace="a")
        m.update("b4", text="Melanie painted the lake at sunset", namespace="b")
        m.forget("a11", namespace="a", hard=True)
        m.forget("b12", namespace="b")
        m.add_batch([{"id": f"x{i}", "text": t} for i, t in enumerate(_texts(rng, 40))], namespace="b")
        after_writes = _answers(m)
        damage_snapshot(m, "keyword")          # the next open tokenizes every stored text again
        damage_snapshot(m, "columns")
    with engramdb.open(path) as m:
        assert cache_status(m)["keyword"] == "rebuilt" and cache_status(m)["columns"] == "rebuilt"
        assert _answers(m) == after_writes
    with engramdb.open(path) as m:
        assert _answers(m) == after_writes


def test_drop_namespace_after_a_cold_open(tmp_path, rng):
    path = tmp_path / "s"
    _build(path, rng, n=400)
    with engramdb.open(path) as m:
        before_b = _answers_b(m)
    with engramdb.open(path) as m:
        m.drop_namespace("a")
        assert m.namespaces() == ["b"]
        after = _answers_b(m)
    assert after == before_b
    with engramdb.open(path) as m:
        assert _answers_b(m) == before_b


def _answers_b(m):
    out = []
    with frozen_clock(T0 + 3600):
        for q in QUESTIONS:
            r = m.recall(q, namespace="b", k=8)
            out.append(([dataclasses.asdict(h) for h in r.hits], [dataclasses.asdict(g) for g in r.gaps],
                        r.mode, r.density))
            out.append(keyword_search(m, "b", q, k=10))
            out.append(keyword_search(m, "b", q, k=10, feedback=FEEDBACK))
    return out


def test_held_decision_keeps_the_column_snapshot(tmp_path):
    """A decision's salience is held (t0 = +inf) until review: the column snapshot holding it is
    still valid, so the next open reads it instead of decoding every record."""
    path = tmp_path / "s"
    with engramdb.open(path, embedder="hashing", dim=64) as m:
        m.add("We use Postgres for the ledger.", id="fact")
        m.decide("Move the ledger to Postgres", confidence=0.7, id="d1")
        held = m.salience("d1")
    with engramdb.open(path) as m:
        assert cache_status(m)["columns"] == "current"
        assert m.salience("d1") == held


@pytest.mark.parametrize("n_docs", [0, 1, 7, 500])
def test_forward_index_round_trip_equals_the_rebuilt_one(n_docs):
    """KeywordIndex.from_arrays with the saved forward index and without it (rebuilt by a sort)
    search, feed back, count terms and take new writes identically."""
    rng = np.random.default_rng(n_docs)
    docs = [(int(i) * 3, " ".join(rng.choice(WORDS, int(rng.integers(0, 9))))) for i in range(n_docs)]
    idx = KeywordIndex.build(docs)
    if n_docs > 2:
        idx.remove(docs[1][0], docs[1][1])          # a tombstone: the terms it alone held drop out
    arrays = idx.arrays()
    saved = KeywordIndex.from_arrays(arrays)
    rebuilt = KeywordIndex.from_arrays({k: v for k, v in arrays.items() if not k.startswith("fwd_")})
    for q in QUESTIONS:
        for x, y in ((saved.search(q, 10), rebuilt.search(q, 10)),
                     (saved.search_prf(q, 10, prf_docs=4, prf_terms=6, prf_weight=0.3),
                      rebuilt.search_prf(q, 10, prf_docs=4, prf_terms=6, prf_weight=0.3))):
            assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1])
    nids = [d[0] for d in docs] + [10_000]
    terms = ["flight", "lisbon", "qx7z9m", "tp-218", "nope"]
    for x, y in zip(saved.term_stats(nids, terms), rebuilt.term_stats(nids, terms)):
        assert np.array_equal(x, y)
    for a in (saved, rebuilt):                      # writes into the (read-only) loaded arrays
        if n_docs:
            a.remove(docs[0][0], docs[0][1])
            a.add(docs[0][0], "brand new words for an old memory")
        a.add(10_001, "flight to Lisbon with code QX7Z9M")
    for q in QUESTIONS + ["brand new words"]:
        assert np.array_equal(saved.search(q, 10)[0], rebuilt.search(q, 10)[0])
    x, y = saved.arrays(), rebuilt.arrays()
    assert x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)


def test_damaged_forward_index_is_refused():
    idx = KeywordIndex.build([(0, "apple pie"), (5, "apple tart"), (9, "cherry tart")])
    for key, bad in (("fwd_pos", lambda a: a + 100), ("fwd_tid", lambda a: a - 7), ("fwd_n", lambda a: a - 5),
                     ("fwd_lens", lambda a: a + 1), ("fwd_docs", lambda a: a[::-1].copy())):
        arrays = idx.arrays()
        arrays[key] = bad(arrays[key])
        with pytest.raises(ValueError):
            KeywordIndex.from_arrays(arrays)


def _csr_arrays(rng):
    from engramdb.graph.csr import build_symmetric_csr

    src, tgt = rng.integers(0, 20, 30), rng.integers(0, 20, 30)
    return build_symmetric_csr(src, tgt, rng.integers(0, 5, 30), rng.uniform(0.1, 1.0, 30).astype(np.float32),
                               20).arrays()


@pytest.mark.parametrize("field,value,ok", [
    ("weight", np.nan, False), ("weight", np.inf, False), ("weight", 0.0, False), ("weight", 1.5, False),
    ("weight", 1.0, True), ("relation", 250, False), ("forward", 2, False), ("indices", 25, False),
])
def test_csr_snapshot_check_rejects_each_damage(rng, field, value, ok):
    from engramdb.store.checks import csr_snapshot_ok

    a = {k: v.copy() for k, v in _csr_arrays(rng).items()}
    assert csr_snapshot_ok(a, 20)
    a[field][3] = value
    assert csr_snapshot_ok(a, 20) is ok


@pytest.mark.parametrize("field,value,ok", [
    ("s0", np.nan, False), ("created_at", np.inf, False), ("confidence", -np.inf, False),
    ("t0", np.inf, True), ("t0", -np.inf, False), ("t0", np.nan, False), ("alive", 2, False), ("kind", 200, False),
])
def test_column_snapshot_check_rejects_each_damage(tmp_path, field, value, ok):
    from engramdb.state.columns import Columns
    from engramdb.store.checks import columns_snapshot_ok

    with engramdb.open(tmp_path / "s", embedder="hashing", dim=64) as m:
        for i in range(5):
            m.add(f"memory number {i} about tea", id=f"m{i}")
        records = raw_records(m)
    cols = Columns()
    for nid, rec in records.items():
        cols.set_record(nid, rec, 0)
    a = {k: np.array(v) for k, v in cols.snapshot(["default"]).items()}
    assert columns_snapshot_ok(a, 5)
    a[field] = a[field].copy()
    a[field].view(np.uint8 if a[field].dtype == np.bool_ else a[field].dtype)[2] = value
    assert columns_snapshot_ok(a, 5) is ok
    a["ext_ids"] = np.frombuffer(b"\xff\xfe" + a["ext_ids"].tobytes()[2:], np.uint8)   # not UTF-8
    assert not columns_snapshot_ok(a, 5)


@pytest.mark.parametrize("name, array", [("columns", "standing"), ("keyword", "tf")])
def test_a_readonly_open_that_rebuilds_a_snapshot_warns_until_a_writable_open_saves_it(tmp_path, rng, name, array):
    """A store an older engramdb wrote (here: its snapshot lacks an array, as one written before
    that column was added) is rebuilt from the records at every read-only open (about 7 s at 100k
    memories), which cannot save it: each such open warns and says how to stop it; a writable open
    saves it, and read-only opens are quiet again."""
    path = tmp_path / "s"
    _build(path, rng, n=600)
    with engramdb.open(path) as m:
        before = _answers(m)
        damage_snapshot(m, name, array=array)
    for _ in range(2):
        with pytest.warns(engramdb.StaleSnapshotWarning, match=r"from \d+ records .* open the store writable once"):
            with engramdb.open(path, readonly=True) as m:
                assert _answers(m) == before
    engramdb.open(path).close()
    with warnings.catch_warnings():
        warnings.simplefilter("error", engramdb.StaleSnapshotWarning)
        with engramdb.open(path, readonly=True) as m:
            assert _answers(m) == before


def test_a_readonly_open_while_a_writer_has_yet_to_save_warns_not(tmp_path, rng):
    """A snapshot behind the records, or none, because a writer has not flushed yet (another
    process writing all day; tests/reliability/test_processes.py opens readers beside one) is
    rebuilt by a read-only open, quietly: the writer saves it itself."""
    path = tmp_path / "s"
    _build(path, rng, n=300)
    with engramdb.open(path) as m:
        damage_snapshot(m, "keyword")   # (none saved yet)
        damage_snapshot(m, "columns")
    with warnings.catch_warnings():
        warnings.simplefilter("error", engramdb.StaleSnapshotWarning)
        engramdb.open(path, readonly=True).close()
