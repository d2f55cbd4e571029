"""A full LMDB map during the writes that follow a verb's main commit.

Reinforcement after a recall and the CSR snapshot after a link each write in a transaction
of their own. When that transaction finds the map full, the map doubles and the write must
run again: it may not be dropped silently. Each test fills a store with a 1 MiB map until
less room is left than the write needs, then checks that the write happened, and that the map
grew during the call in at least one case (so the case was exercised).
"""
import numpy as np

import engramdb

DIM = 8
TINY = 1 << 20          # the smallest map StoreConfig accepts
HEADROOMS = (60_000, 30_000, 16_000)   # bytes left in the map before the call under test


def vec(i, sign=1.0):
    v = np.zeros(DIM, np.float32)
    v[0] = sign
    v[1 + i % (DIM - 1)] = 0.01 * (i + 1)
    return v


def _open(path, **store):
    cfg = engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False),
                                store=engramdb.StoreConfig(map_size_bytes=TINY, sync=False, **store))
    return engramdb.open(path, dim=DIM, config=cfg)


def fill_until(m, headroom):
    """Add padding memories (far from ``vec``'s direction) until at most ``headroom`` bytes of
    the map are left above the store's high-water mark; returns stats() at that point."""
    for k in range(10_000):
        s = m.stats()
        left = s["map_size_bytes"] - s["store_bytes"]
        if left <= headroom:
            return s
        m.add(f"padding {k} " + "y" * min(1500, left // 8), id=f"pad{k}", embedding=vec(k, sign=-1.0))
    raise AssertionError("could not fill the map")


def test_reinforcement_after_a_recall_survives_a_full_map(tmp_path):
    grew = []
    for h in HEADROOMS:
        with _open(tmp_path / f"r{h}") as m:
            m.add_batch([{"id": f"m{i}", "text": f"memory {i} " + "z" * 3000, "embedding": vec(i)} for i in range(40)])
            before = fill_until(m, h)
            res = m.recall(vector=vec(0), k=30, reinforce=True, now=2e9,
                           config=engramdb.RecallConfig(seed_k=30))
            grew.append(m.stats()["map_size_bytes"] > before["map_size_bytes"])
            assert len(res.hits) == 30
            assert {m.get(hit.id).access_count for hit in res.hits} == {1}
        with engramdb.open(tmp_path / f"r{h}") as m:       # durable: it was committed
            assert {m.get(hit.id).access_count for hit in res.hits} == {1}
    assert any(grew), "no reinforcement filled the map: shrink the headrooms"


def test_csr_snapshot_after_a_link_survives_a_full_map(tmp_path):
    n, every = 1000, 5000
    grew = []
    for h in HEADROOMS:
        with _open(tmp_path / f"s{h}", snapshot_every=every) as m:
            m.add_batch([{"id": f"n{i}", "text": f"node {i}", "embedding": vec(i)} for i in range(n)])
            m.link_batch([(f"n{i}", f"n{(i + j) % n}", "related_to", 0.5)
                          for i in range(n) for j in range(1, 6)][: every - 1])
            assert m.stats()["delta_edges"] == every - 1
            before = fill_until(m, h)
            m.link("n0", "n500", "supports")               # the delta reaches snapshot_every
            after = m.stats()
            grew.append(after["map_size_bytes"] > before["map_size_bytes"])
            assert after["delta_edges"] == 0 and after["edges"] == every
        with engramdb.open(tmp_path / f"s{h}") as m:
            assert m.stats()["edges"] == every
            assert any(e.target == "n500" and e.relation is engramdb.Relation.SUPPORTS for e in m.edges("n0"))
    assert any(grew), "no snapshot filled the map: shrink the headrooms or grow the graph"
