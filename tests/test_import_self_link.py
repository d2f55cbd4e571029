"""import_from refuses an edge from a memory to itself, as link() does (it was imported, and
edges() listed it twice); nothing of the export is written."""
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import engramdb
from engramdb.errors import InvalidInputError


def test_an_exported_self_link_is_refused(tmp_path):
    src, dump, dst = str(tmp_path / "a"), str(tmp_path / "x"), str(tmp_path / "b")
    with engramdb.open(src, embedder="hashing") as eng:
        eng.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight")
        eng.add("The airline emailed confirmation code QX7Z9M.", id="code",
                links=[{"to": "flight", "relation": "evidence_for"}])
        eng.export(dump)
    table = pq.read_table(os.path.join(dump, "edges.parquet"))
    rows = table.to_pylist()
    assert [(r["source"], r["target"]) for r in rows] == [("code", "flight")]
    rows[0]["target"] = rows[0]["source"]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), os.path.join(dump, "edges.parquet"))
    with engramdb.open(dst, embedder="hashing") as eng:
        with pytest.raises(InvalidInputError, match="edges row 0: memory 'code' linked to itself"):
            eng.import_from(dump)
        assert eng.query() == [] and eng.stats()["edges"] == 0
