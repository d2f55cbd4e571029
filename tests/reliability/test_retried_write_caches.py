"""A write whose transaction hits a full map is retried: the caches change once, after the commit.

The map is tiny, so the batch's own transaction overflows; the engine grows the map and runs
the verb again. Had any cache changed before the commit (columns, keyword postings, counters),
the retry would apply it twice.
"""
from __future__ import annotations

import engramdb
from engramdb.testing import keyword_counts, namespace_meta


def test_an_add_retried_after_map_growth_changes_the_caches_once(tmp_path):
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(map_size_bytes=1 << 20))
    texts = [f"note {i}: " + ("the harbour lights and the long pier at dusk " * 40) for i in range(600)]
    with engramdb.open(tmp_path / "s", dim=64, embedder="hashing", config=cfg) as m:
        m.add("the namespace exists before the big write", id="first")   # its caches are live
        start = m.stats()["map_size_bytes"]
        ids = m.add_batch([{"text": t, "id": f"n{i}"} for i, t in enumerate(texts)])
        assert m.stats()["map_size_bytes"] > start            # the write did overflow and was retried
        assert m.stats()["memories"] == len(ids) + 1 == 601
        assert keyword_counts(m)["default"] == 601            # postings added once, not twice
        assert namespace_meta(m, "default")["count"] == 601
        assert [h.id for h in m.recall("note 7 harbour", k=1, reinforce=False).hits] == ["n7"]
    with engramdb.open(tmp_path / "s", config=cfg) as m:      # and the store agrees after a reopen
        assert m.stats()["memories"] == 601 and keyword_counts(m)["default"] == 601
