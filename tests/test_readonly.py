"""A store opened with ``readonly=True``: every write verb is refused up front, reads work.

The engine itself refuses (an EngramError that says the store is read-only), before it
touches LMDB: the error does not come from an LMDB write transaction, and nothing changes.
A recall asked to reinforce on a read-only store answers without reinforcing.
"""

import lmdb
import pytest

import engramdb
from .conftest import basis

DIM = 16
T = 1_700_000_000.0




def public_state(m):
    """Everything a caller can read about the store, as plain values."""
    mems = m.query(state=["active", "archived", "superseded"], limit=1000)
    rows = sorted((x.id, x.kind.value, x.text, x.state.value, x.salience, x.salience_at, x.access_count,
                   x.superseded_by, x.confidence, x.tags) for x in mems)
    edges = sorted((e.source, e.target, e.relation.value, e.weight) for x in mems for e in m.edges(x.id))
    stats = {k: v for k, v in m.stats().items() if k not in ("map_size_bytes", "store_bytes")}
    return rows, edges, stats, m.dynamics_log()


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    with engramdb.open(path, dim=DIM) as m:
        m.add("We chose the Alfama hotel", id="dec", kind="decision", embedding=basis(0), created_at=T)
        m.add("Ana is allergic to shellfish", id="fact", kind="semantic", embedding=basis(1), created_at=T)
        m.add("We talked about the weather", id="ep", embedding=basis(2), created_at=T)
        m.link("fact", "dec", "informed_by")
        m.export(tmp_path / "export")
    return path


WRITES = {
    "add": lambda m, _: m.add("a new memory", embedding=basis(3)),
    "add_batch": lambda m, _: m.add_batch([{"text": "a new memory", "embedding": basis(3)}]),
    "link": lambda m, _: m.link("ep", "fact"),
    "link_batch": lambda m, _: m.link_batch([("ep", "fact", "supports")]),
    "supersede": lambda m, _: m.supersede("fact", "Ana is no longer allergic", embedding=basis(1)),
    "supersede_by": lambda m, _: m.supersede("ep", by="fact"),
    "update": lambda m, _: m.update("fact", text="Ana is allergic to shrimp"),
    "update_confidence": lambda m, _: m.update("fact", confidence=0.5),
    "forget": lambda m, _: m.forget("ep"),
    "forget_hard": lambda m, _: m.forget("ep", hard=True),
    "rescore": lambda m, _: m.rescore(T),                   # nothing to archive at T
    "rescore_later": lambda m, _: m.rescore(T + 1e9),       # everything below its floor
    "review": lambda m, _: m.review("dec"),
    "review_outcome": lambda m, _: m.review("dec", "success", note="it went well"),
    "decide": lambda m, _: m.decide("We pick the Baixa hotel", confidence=0.6, embedding=basis(3)),
    "admit_batch": lambda m, _: m.admit_batch([{"text": "a brand new fact", "embedding": basis(4)}]),
    "import_from": lambda m, tmp: m.import_from(tmp / "export"),
    "censor": lambda m, _: m.censor(pattern="fact"),
}


@pytest.mark.parametrize("verb", sorted(WRITES))
def test_write_verbs_refuse_a_readonly_store(store, tmp_path, verb):
    with engramdb.open(store, readonly=True) as r:
        before = public_state(r)
        with pytest.raises(engramdb.EngramError, match=r"(?i)read-?only") as info:
            WRITES[verb](r, tmp_path)
        exc = info.value
        assert not isinstance(exc.__cause__, lmdb.Error) and not isinstance(exc.__context__, lmdb.Error), \
            "the engine must refuse before it starts an LMDB write transaction"
        assert public_state(r) == before
        assert r.recall(vector=basis(1), k=1).hits[0].id == "fact"     # still readable
    with engramdb.open(store) as w:                                     # and writable by a writer
        assert public_state(w) == before
        w.add("written after the refusal", id="later", embedding=basis(5))


def test_flush_and_close_of_a_readonly_store_write_nothing(store):
    with engramdb.open(store) as w:
        before = public_state(w)
    r = engramdb.open(store, readonly=True)
    r.flush()
    r.close()
    r.close()
    with engramdb.open(store) as w:
        assert public_state(w) == before


@pytest.mark.parametrize("how", ["argument", "config"])
def test_recall_on_a_readonly_store_does_not_reinforce(store, how):
    if how == "argument":
        r, kwargs = engramdb.open(store, readonly=True), {"reinforce": True}
    else:
        cfg = engramdb.EngramConfig(decay=engramdb.DecayConfig(reinforce_on_recall=True))
        r, kwargs = engramdb.open(store, readonly=True, config=cfg), {}
    with r:
        before = public_state(r)
        res = r.recall(vector=basis(1), k=2, now=T + 10, **kwargs)
        assert res.hits[0].id == "fact"
        assert public_state(r) == before
        assert r.get("fact").access_count == 0


def test_a_writer_reinforces_what_a_reader_may_not(store):
    with engramdb.open(store) as w:
        s = w.salience("fact", now=T + 10)
        w.recall(vector=basis(1), k=1, reinforce=True, now=T + 10)
        m = w.get("fact")
        rate = engramdb.DecayConfig().reinforce_rate
        assert m.access_count == 1 and m.last_access == T + 10
        assert w.salience("fact", now=T + 10) == pytest.approx(s + rate * (1 - s), rel=1e-6)
