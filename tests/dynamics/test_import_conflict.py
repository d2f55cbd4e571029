"""Importing into a non-empty store: ids already stored are an error (default), skipped or
replaced; all or nothing in one write unit."""
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import engramdb
from engramdb import errors
from engramdb.testing import nid_of, raw_records, store_digest

from .conftest import DIM, T0, basis
from .test_export import _assert_same_store, _story

OWN_FLIGHT = "Flight booked with Iberia, IB 3117"


def _edges(e, id):
    return sorted((x.source, x.target, x.relation.value, x.weight) for x in e.edges(id))


@pytest.fixture
def export(tmp_path):
    """The story's store ``a`` (kept open) and its export directory."""
    with engramdb.open(tmp_path / "a", dim=DIM) as a:
        _story(a)
        a.export(tmp_path / "x", now=T0)
        yield a, tmp_path / "x"


@pytest.fixture
def own(tmp_path):
    """A store of its own that already holds a different memory ``flight`` (and ``note``)."""
    with engramdb.open(tmp_path / "c", dim=DIM) as c:
        c.add(OWN_FLIGHT, id="flight", embedding=basis(9))
        c.add("Ask for a window seat", id="note", embedding=basis(10),
              links=[{"to": "flight", "relation": "related_to", "weight": 0.4}])
        yield c


def test_error_is_the_default_and_writes_nothing(export, own):
    a, x = export
    before = store_digest(own)
    with pytest.raises(errors.InvalidInputError, match=r"'flight' already exists.*on_conflict='skip'"):
        own.import_from(x)
    with pytest.raises(errors.InvalidInputError, match=r"'flight' already exists"):
        own.import_from(x, on_conflict="error")
    for bad in ("merge", None, "SKIP", 1):
        with pytest.raises(errors.InvalidInputError, match="on_conflict"):
            own.import_from(x, on_conflict=bad)
    assert store_digest(own) == before and own.get("flight").text == OWN_FLIGHT


def test_skip_keeps_the_stored_memory_and_attaches_edges(export, own):
    a, x = export
    res = own.import_from(x, on_conflict="skip")
    assert res == {"memories": 5, "pieces": 0, "edges": a.n_edges, "skipped": 1, "replaced": 0}
    flight = own.get("flight", with_embedding=True)
    assert flight.text == OWN_FLIGHT and flight.embedding.tolist() == basis(9).tolist()
    assert _edges(own, "flight") == [("code", "flight", "evidence_for", 0.75),
                                     ("hotel", "flight", "informed_by", 0.5),
                                     ("note", "flight", "related_to", 0.4)]
    recs_a, recs_c = raw_records(a), raw_records(own)
    for id in ("code", "hotel", "pref", "pref2"):
        assert own.get(id).to_dict() == a.get(id).to_dict()
        assert recs_c[nid_of(own, id)] == recs_a[nid_of(a, id)]
    assert own.get("w", namespace="other").to_dict() == a.get("w", namespace="other").to_dict()
    assert own.recall(vector=basis(9), k=1).hits[0].id == "flight"


def test_skip_into_the_same_store_writes_nothing(export):
    a, x = export
    a.link("hotel", "flight", "informed_by", 0.25)      # the stored edge differs from the export's
    before = store_digest(a)
    assert a.import_from(x, on_conflict="skip") == {"memories": 0, "pieces": 0, "edges": 0, "skipped": 6,
                                                      "replaced": 0}
    assert store_digest(a) == before
    assert ("hotel", "flight", "informed_by", 0.25) in _edges(a, "flight")


def test_replace_erases_the_stored_memory_then_inserts(export, own):
    a, x = export
    res = own.import_from(x, on_conflict="replace")
    assert res == {"memories": 6, "pieces": 0, "edges": a.n_edges, "skipped": 0, "replaced": 1}
    flight = own.get("flight", with_embedding=True)
    assert flight.to_dict() == a.get("flight").to_dict()
    assert flight.embedding.tolist() == basis(0).tolist()
    assert raw_records(own)[nid_of(own, "flight")] == raw_records(a)[nid_of(a, "flight")]
    assert _edges(own, "flight") == _edges(a, "flight")          # note -> flight went with the erase
    assert _edges(own, "note") == [] and own.get("note").text == "Ask for a window seat"
    assert own.stats()["memories"] == 7
    assert own.recall(vector=basis(0), k=1).hits[0].id == "flight"
    assert "flight" not in [h.id for h in own.recall(vector=basis(9), k=3).hits]   # old vector gone


def test_replace_into_the_same_store_restores_it(export, tmp_path):
    a, x = export
    assert a.import_from(x, on_conflict="replace") == {"memories": 6, "pieces": 0, "edges": a.n_edges, "skipped": 0,
                                                         "replaced": 6}
    with engramdb.open(tmp_path / "b", dim=DIM) as b:
        b.import_from(x)
        _assert_same_store(a, b)


def test_replace_hands_on_what_the_stored_memory_superseded(tmp_path, export):
    a, x = export
    with engramdb.open(tmp_path / "c", dim=DIM) as c:
        c.add("Ana likes tiles", id="tiles", embedding=basis(11))
        c.supersede("tiles", "Ana likes green tiles", id="pref2", embedding=basis(12))
        assert c.get("tiles").superseded_by == "pref2"
        res = c.import_from(x, on_conflict="replace")
        assert res["replaced"] == 1
        # as with forget(hard=True): the erased memory's predecessor is current again
        tiles = c.get("tiles")
        assert (tiles.state.value, tiles.superseded_by) == ("active", None)
        assert c.get("pref2").text == "Ana likes blue tiles"
        assert c.get("pref").superseded_by == "pref2"


def test_a_late_error_leaves_the_store_unchanged(export, own, tmp_path):
    a, x = export
    edg = pq.read_table(x / "edges.parquet")
    ghost = pa.table({"namespace": ["default"], "source": ["code"], "target": ["ghost"],
                      "relation": ["supports"], "weight": pa.array([0.5], pa.float32()),
                      "created_at": [T0]}).replace_schema_metadata(edg.schema.metadata)
    os.makedirs(tmp_path / "bad")
    os.link(x / "memories.parquet", tmp_path / "bad" / "memories.parquet")
    pq.write_table(pa.concat_tables([edg, ghost]), tmp_path / "bad" / "edges.parquet")
    before, n_edges = store_digest(own), own.n_edges
    for mode in ("skip", "replace"):   # the edge is checked after the stored flight was erased
        with pytest.raises(errors.InvalidInputError, match="no memory 'ghost'"):
            own.import_from(tmp_path / "bad", on_conflict=mode)
        assert store_digest(own) == before and own.n_edges == n_edges
    assert own.get("flight").text == OWN_FLIGHT
    assert _edges(own, "flight") == [("note", "flight", "related_to", 0.4)]
    assert own.recall(vector=basis(9), k=1).hits[0].id == "flight"
    with pytest.raises(errors.MemoryNotFoundError):
        own.get("code")
    assert own.import_from(x, on_conflict="replace")["replaced"] == 1   # the store still works


@pytest.mark.parametrize("on_conflict", ["replace", "skip", "error"])
def test_a_single_valued_slot_keeps_one_current_value_after_an_import(tmp_path, on_conflict):
    """A backup restored over a store that has moved on (Lisbon, then Porto; the backup holds
    Lisbon current) left both current, with no link and no warning: the later value holds, as
    when a new memory fills the slot; an export whose value is later wins over the store's."""
    with engramdb.open(tmp_path / "s", dim=DIM) as eng:
        eng.add("I live in Lisbon.", id="home", kind="semantic", slot=("user", "home_city", "Lisbon"),
                embedding=basis(0), created_at=T0)
        eng.export(tmp_path / "backup")
        eng.add("I moved to Porto.", id="home2", kind="semantic", slot=("user", "home_city", "Porto"),
                embedding=basis(1), created_at=T0 + 86400)
        if on_conflict == "error":   # the export's ids are stored: nothing to restore
            with pytest.raises(errors.InvalidInputError, match="already exists"):
                eng.import_from(tmp_path / "backup", on_conflict=on_conflict)
        else:
            eng.import_from(tmp_path / "backup", on_conflict=on_conflict)
        assert eng.current("user", "home_city").id == "home2"
        assert [m.id for m in eng.query(subject="user", attribute="home_city")] == ["home2"]
        old = eng.get("home")
        assert (old.state.value, old.superseded_by) == ("superseded", "home2")
        assert [(e.source, e.target) for e in eng.edges("home2") if e.relation.value == "supersedes"] == \
            [("home2", "home")]
    with engramdb.open(tmp_path / "t", dim=DIM) as other:   # the export's value is the later one
        other.add("I lived in Braga.", id="braga", kind="semantic", slot=("user", "home_city", "Braga"),
                  embedding=basis(2), created_at=T0 - 86400)
        other.import_from(tmp_path / "backup")
        assert other.current("user", "home_city").id == "home"
        assert other.get("braga").superseded_by == "home"
