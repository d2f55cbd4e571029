"""Regressions for what a hostile review of the keyword leg, import, rescore and update found."""
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import engramdb
from engramdb import EngramConfig, ForgettingConfig, errors
from engramdb.index.keyword import tokenize

KINDS = ["working", "episodic", "semantic", "procedural", "decision"]


def _open(path, **kw):
    return engramdb.open(path, dim=64, **kw)


def test_import_rejects_records_the_store_would_not_read_back(tmp_path):
    with _open(tmp_path / "a") as a:
        a.add("imported memory", id="m1")
        a.export(tmp_path / "x")
    f = tmp_path / "x" / "memories.parquet"
    t = pq.read_table(f)
    bad = t.set_column(t.schema.get_field_index("salience_at"), "salience_at", pa.array([float("-inf")]))
    pq.write_table(bad, f)
    with _open(tmp_path / "b") as b:
        b.add("precious existing memory", id="keep")
        with pytest.raises(errors.InvalidInputError):
            b.import_from(tmp_path / "x")
        assert b.recall("precious", k=1).hits[0].id == "keep"
    with _open(tmp_path / "b") as b:                    # and the store still opens
        assert b.stats()["memories"] == 1
    pq.write_table(t.set_column(t.schema.get_field_index("tags"), "tags", pa.array([["ok", None]])), f)
    with _open(tmp_path / "b") as b, pytest.raises(errors.InvalidInputError):
        b.import_from(tmp_path / "x")
    f.write_bytes(b"PAR1 not really parquet")
    with _open(tmp_path / "b") as b, pytest.raises(errors.InvalidInputError):
        b.import_from(tmp_path / "x")


def test_imported_memories_get_keyword_postings_and_dedupe_keys(tmp_path):
    with _open(tmp_path / "a") as a:
        a.add("The airline emailed confirmation code QX7Z9M.", id="code", namespace="trip")
        a.export(tmp_path / "x")
    with _open(tmp_path / "b") as b:
        b.import_from(tmp_path / "x")
        assert b.recall("QX7Z9M", namespace="trip", k=1).hits[0].id == "code"
        assert b.add("The airline emailed confirmation code QX7Z9M.", namespace="trip") == "code"
        b.forget("code", namespace="trip", hard=True)   # no KeyError after an import
        assert b.stats()["memories"] == 0


def test_rescore_pruning_forgets_keyword_postings_and_revives_validly(tmp_path):
    cfg = EngramConfig(forgetting=ForgettingConfig(archive_floor={k: .5 for k in KINDS},
                                                   prune_floor={k: .5 for k in KINDS}))
    v = np.ones(64, np.float32)
    with _open(tmp_path / "s", config=cfg) as e:
        e.add("the zebra named Ziggy ate cabbage", id="z", salience=0.01)
        e.add("unrelated note about taxes", id="t", salience=0.9)
        e.add("rent is 900", id="a", embedding=v, salience=0.9)
        e.supersede("a", "rent is 950", id="b", embedding=v, salience=0.01)
        out = e.rescore()
        assert out["pruned"] >= 2
        assert "z" not in [h.id for h in e.recall("zebra cabbage", k=5).hits]
        assert [h.id for h in e.recall(vector=v, k=1, as_of=time.time()).hits] == ["a"]
    with _open(tmp_path / "s", config=cfg) as e:
        assert "z" not in [h.id for h in e.recall("zebra cabbage", k=5).hits]


def test_update_does_not_take_over_another_memorys_dedupe_key(tmp_path):
    with _open(tmp_path / "s") as e:
        e.add("gamma note", id="g1")
        e.add("delta note", id="g2")
        e.update("g1", text="delta note")
        e.update("g1", text="epsilon note")
        assert e.add("delta note") == "g2"


def test_long_namespace_names_flush_and_reopen(tmp_path):
    ns = "n" * 200
    with _open(tmp_path / "s") as e:
        e.add("hello there", id="h", namespace=ns)
    with _open(tmp_path / "s") as e:
        assert e.recall("hello", namespace=ns, k=1).hits[0].id == "h"


@pytest.mark.parametrize("call", [
    lambda e: e.recall("q", tags=5),
    lambda e: e.recall("q", kinds=5),
    lambda e: e.recall("q", tags=[5]),
    lambda e: e.recall("q", config={"w_graph": 1.0}),
    lambda e: e.query(kind=5),
    lambda e: e.query(state=5),
    lambda e: e.add("x", tags=5),
    lambda e: e.add("x", links=5),
    lambda e: e.export(None),
    lambda e: e.import_from(None),
])
def test_type_confusion_is_an_engram_error(tmp_path, call):
    with _open(tmp_path / "s") as e:
        e.add("a memory", id="a")
        with pytest.raises(errors.EngramError):
            call(e)
        assert e.stats()["memories"] == 1


def test_generator_tags_are_accepted(tmp_path):
    with _open(tmp_path / "s") as e:
        e.add("tagged", id="t", tags=(t for t in ["x", "y"]))
        assert e.get("t").tags == ("x", "y")


def test_tokenizer_normalises_unicode_and_splits_cjk():
    assert tokenize("İstanbul") == tokenize("Istanbul") == ["istanbul"]
    assert tokenize("ＴＡＰ") == ["tap"] and tokenize("straße") == tokenize("STRASSE")
    assert tokenize("café") == tokenize("cafe")
    assert "東京" in tokenize("東京で寿司を食べた") and tokenize("東京") == ["東京"]


def test_admit_batch_resolves_slots_like_add_batch(tmp_path):
    with _open(tmp_path / "s") as m:
        m.add("I live in Lisbon", id="lis", slot=("user", "home_city", "Lisbon"))
        d = m.admit_batch([{"id": "ber", "text": "I moved to Berlin this week, new flat in Kreuzberg 42",
                            "subject": "user", "attribute": "home_city", "value": "Berlin"}],
                          shadow=True)
        assert d[0].stored
        assert m.get("lis").state is engramdb.MemoryState.SUPERSEDED and m.get("lis").superseded_by == "ber"
        assert m.add("I moved to Berlin this week, new flat in Kreuzberg 42") == "ber"   # dedupe key kept


def test_unknown_locomo_conversation_is_an_error(tmp_path):
    import json

    from engramdb.ingest import ingest_locomo
    path = tmp_path / "l.json"
    path.write_text(json.dumps([{"sample_id": "c1", "conversation": {
        "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}, "qa": []}]))
    with _open(tmp_path / "s") as e, pytest.raises(errors.InvalidInputError, match="conv-999"):
        ingest_locomo(e, path, conversations=["conv-999"], progress=False)


def test_jsonl_ingest_takes_slot_and_valid_time_fields(tmp_path):
    import json

    from engramdb.ingest import ingest_jsonl
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "text": "I live in Lisbon", "subject": "user", "attribute": "home_city", "value": "Lisbon",
         "valid_from": "2020-01-01"},
        {"id": "b", "text": "I live in Porto", "subject": "user", "attribute": "home_city", "value": "Porto",
         "valid_from": "2022-01-01"}]))
    with _open(tmp_path / "s") as e:
        ingest_jsonl(e, path, progress=False)
        assert e.get("a").state is engramdb.MemoryState.SUPERSEDED and e.get("b").state is engramdb.MemoryState.ACTIVE
