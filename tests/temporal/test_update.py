"""update(): re-embed and re-index, keep the earlier version in history; the old wording no
longer recalls the memory, the new one does, also after a reopen and an index rebuild."""
import os

import numpy as np
import pytest

import engramdb
from engramdb.testing import index_file, namespace_meta

from .conftest import T0

OLD = "Quarterly board meeting at the harbour office on Tuesday"
NEW = "Dentist appointment moved to Friday morning, bring the insurance card"
STRICT = engramdb.RecallConfig(cosine_floor=0.9, weak_evidence=0.0, max_depth=0)   # vector seeds only


def _ids(m, text):
    return [h.id for h in m.recall(text, k=5, config=STRICT).hits]


def test_old_wording_no_longer_recalls(mem, clock):
    mem.add(OLD, id="ev", tags=["work"], confidence=0.8, created_at=T0 - 86400)
    mem.add("Buy oat milk and coffee beans", id="other")
    mem.link("ev", "other", "related_to", 0.5)
    assert _ids(mem, OLD) == ["ev"] and _ids(mem, NEW) == []
    r0 = clock.t
    clock.advance(30)
    after = mem.update("ev", text=NEW, tags=["health"], confidence=0.95)
    assert (after.text, after.tags, after.confidence, after.version) == (NEW, ("health",), 0.95, 2)
    assert _ids(mem, OLD) == []
    assert _ids(mem, NEW) == ["ev"]
    hit = mem.recall(NEW, k=1).hits[0]
    assert hit.similarity == pytest.approx(1.0, abs=1e-5)
    # same id, same edges, same event time; the stored vector is the new text's embedding
    got = mem.get("ev", with_embedding=True)
    assert got.created_at == T0 - 86400 and {(e.source, e.target) for e in mem.edges("ev")} == {("ev", "other")}
    np.testing.assert_allclose(got.embedding, mem.embedder.embed([NEW])[0] / np.linalg.norm(mem.embedder.embed([NEW])[0]),
                               atol=1e-6)
    hist = mem.history("ev")
    assert [(e.version, e.text, e.recorded_at, e.replaced_at, e.ended_by) for e in hist] == [
        (1, OLD, r0, clock.t, "updated"), (2, NEW, clock.t, None, None)]
    assert hist[0].tags == ("work",) and hist[0].confidence == pytest.approx(0.8)
    # a structured query sees the new confidence (column updated)
    assert {x.id for x in mem.query(min_confidence=0.9)} == {"ev", "other"}   # 0.8 before the update
    assert [x.id for x in mem.query(tags=["health"])] == ["ev"] and mem.query(tags=["work"]) == []


def test_update_survives_reopen_and_index_rebuild(tmp_store, clock):
    with engramdb.open(tmp_store, dim=256) as m:
        m.add(OLD, id="ev")
        m.add("Buy oat milk and coffee beans", id="other")
        m.update("ev", text=NEW)
    with engramdb.open(tmp_store) as m:          # saved index, new generation
        assert _ids(m, OLD) == [] and _ids(m, NEW) == ["ev"]
        path = index_file(m, "default")
    os.remove(path)                        # index rebuilt from LMDB's vectors
    with engramdb.open(tmp_store) as m:
        assert _ids(m, OLD) == [] and _ids(m, NEW) == ["ev"]
        assert m.get("ev").version == 2


def test_update_vector_only_and_fields_only(mem, rng):
    v = rng.standard_normal(256)
    mem.add("a fact with a caller vector", id="f", embedding=v)
    w = rng.standard_normal(256)
    mem.update("f", embedding=w)
    assert mem.get("f").text == "a fact with a caller vector" and mem.get("f").version == 2
    hit = mem.recall(vector=w, k=1).hits[0]
    assert hit.id == "f" and hit.similarity == pytest.approx(1.0, abs=1e-5)
    gen = namespace_meta(mem, "default")["vgen"]
    mem.update("f", tags=["x"], source="s1")
    assert namespace_meta(mem, "default")["vgen"] == gen    # no vector change: the index is left alone
    assert (mem.get("f").tags, mem.get("f").source, mem.get("f").version) == (("x",), "s1", 3)


def test_update_refuses_superseded_and_empty(mem):
    mem.add("Lea lives in Graz.", id="l1", slot=("lea", "home_city", "Graz"), created_at=T0 - 10)
    mem.add("Lea lives in Linz.", id="l2", slot=("lea", "home_city", "Linz"), created_at=T0)
    with pytest.raises(engramdb.InvalidInputError, match="superseded"):
        mem.update("l1", text="Lea lives in Wien.")
    with pytest.raises(engramdb.InvalidInputError, match="at least one"):
        mem.update("l2")
    with pytest.raises(engramdb.EmptyTextError):
        mem.update("l2", text="  ")
    with pytest.raises(engramdb.MemoryNotFoundError):
        mem.update("nope", text="x")
    assert mem.get("l2").version == 1 and mem.get("l1").text == "Lea lives in Graz."
