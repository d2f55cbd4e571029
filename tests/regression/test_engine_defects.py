"""Engine defects found while splitting the engine (issue 11), reproduced through the public API.

Each test states what a user must see; on the engine before the split each one fails:

1. erasing a memory by pruning (``rescore``) and by ``forget(hard=True)`` must leave the
   same single current value in a single-valued slot;
2. a hard forget whose transaction is retried after the map grew must not lock the store;
3. an imported memory keeps its slot: a later value supersedes it.
"""
import numpy as np
import pytest

import engramdb
from engramdb import EngramConfig, ForgettingConfig, LinkConfig, StoreConfig

DIM = 8
T = 1_700_000_000.0          # 2023-11-14T22:13:20Z, valid time of the first value
SLOT = ("user", "home_city")
KINDS = [k.value for k in engramdb.MemoryKind]


def vec(i):
    v = np.zeros(DIM, np.float32)
    v[i % DIM] = 1.0
    v[(3 * i + 1) % DIM] += 0.5
    return v


def slot_story(m, salience_b=0.5):
    """A (Lisbon) then B (Porto, later valid time) in one single-valued slot, then C (Faro), a
    late report: added last but valid between A and B, so it is stored superseded by B, and A's
    validity now ends where C's starts (A is superseded by C)."""
    m.add("I live in Lisbon", id="a", slot=(*SLOT, "Lisbon"), valid_from=T, embedding=vec(0), salience=0.9)
    m.add("I live in Porto", id="b", slot=(*SLOT, "Porto"), valid_from=T + 200, embedding=vec(1),
          salience=salience_b)
    m.add("I lived in Faro", id="c", slot=(*SLOT, "Faro"), valid_from=T + 100, embedding=vec(2), salience=0.9)
    states = {x: (m.get(x).state.value, m.get(x).superseded_by) for x in "abc"}
    assert states == {"a": ("superseded", "c"), "b": ("active", None), "c": ("superseded", "b")}
    assert m.get("a").valid_to == T + 100 and m.get("c").valid_to == T + 200


def current_in_slot(m):
    """Ids of the active memories filling (user, home_city)."""
    return sorted(x.id for x in m.query(limit=1000) if (x.subject, x.attribute) == SLOT)


# ---------------------------------------------------------------- 1. two erase paths
def test_pruning_and_hard_forget_leave_the_same_single_current_value(tmp_path):
    with engramdb.open(tmp_path / "forget", dim=DIM) as m:
        slot_story(m)
        m.forget("b", hard=True)
        by_forget = current_in_slot(m)
        assert by_forget == ["c"]                  # the latest valid value left
    floors = ForgettingConfig(archive_floor=dict.fromkeys(KINDS, 0.5), prune_floor=dict.fromkeys(KINDS, 0.5))
    with engramdb.open(tmp_path / "prune", dim=DIM, config=EngramConfig(forgetting=floors)) as m:
        slot_story(m, salience_b=0.01)
        m.forget("b")                              # archive B ...
        assert m.rescore()["pruned"] == 1          # ... and let the prune floor erase it
        with pytest.raises(engramdb.MemoryNotFoundError):
            m.get("b")
        assert current_in_slot(m) == by_forget, "a single-valued slot holds exactly one current value"
        assert m.get("a").superseded_by == "c"


# ---------------------------------------------------------------- 2. retried hard forget
def _filled_store(path, headroom):
    """The slot story plus 600 linked memories in a 1 MiB map, filled until ``headroom`` bytes
    are left: less than the CSR snapshot a hard forget rewrites (about 100 KB)."""
    cfg = EngramConfig(link=LinkConfig(auto_link=False), store=StoreConfig(map_size_bytes=1 << 20, sync=False))
    m = engramdb.open(path, dim=DIM, config=cfg)
    slot_story(m)
    n = 600
    m.add_batch([{"text": f"node {i}", "id": f"n{i}", "embedding": vec(i)} for i in range(n)])
    m.link_batch([(f"n{i}", f"n{(i + j) % n}", "related_to", 0.5) for i in range(n) for j in range(1, 5)])
    for k in range(10_000):
        s = m.stats()
        left = s["map_size_bytes"] - s["store_bytes"]
        if left <= headroom:
            return m, s
        m.add(f"padding {k} " + "y" * min(1500, left // 8), id=f"pad{k}", embedding=vec(k))
    raise AssertionError("could not fill the map")


def test_hard_forget_retried_after_map_growth_does_not_lock_the_store(tmp_path):
    grew = []
    for headroom in (60_000, 20_000, 5_000):
        path = tmp_path / f"s{headroom}"
        m, before = _filled_store(path, headroom)
        try:
            m.forget("b", hard=True)               # re-points A to C, rewrites the CSR snapshot
            grew.append(m.stats()["map_size_bytes"] > before["map_size_bytes"])
            assert current_in_slot(m) == ["c"] and m.get("a").superseded_by == "c"
            m.add("I live in Braga", id="later", embedding=vec(5))     # the next writes succeed
            m.link("later", "n1")
        finally:
            m.close()
        with engramdb.open(path) as m:
            assert m.get("later").text == "I live in Braga"
    assert any(grew), "no hard forget filled the map: shrink the headrooms or grow the graph"


# ---------------------------------------------------------------- 3. import keeps slots
def test_imported_slot_value_is_superseded_by_a_later_one(tmp_path):
    for fmt in ("parquet", "arrow"):
        with engramdb.open(tmp_path / f"src-{fmt}", dim=DIM) as m:
            m.add("I live in Lisbon", id="lisbon", slot=(*SLOT, "Lisbon"), valid_from=T, embedding=vec(0))
            m.export(tmp_path / f"out-{fmt}", format=fmt)
        with engramdb.open(tmp_path / f"dst-{fmt}", dim=DIM) as m:
            m.import_from(tmp_path / f"out-{fmt}")
            assert current_in_slot(m) == ["lisbon"]
            m.add("I live in Porto", id="porto", slot=(*SLOT, "Porto"), valid_from=T + 86400, embedding=vec(1))
            assert current_in_slot(m) == ["porto"], f"{fmt}: the imported value stayed current"
            assert m.get("lisbon").superseded_by == "porto"
