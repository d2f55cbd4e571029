"""A write whose commit went through but whose cache changes were cut short (Ctrl-C, or a
``BaseException`` from a caller's callable, landing after the LMDB commit) loses nothing.

Before, the engine went on with caches that missed the commit: the next write persisted them
(the graph snapshot cleared the edge delta that held the committed edges, and the column and
index files missed the memories), so after a reopen committed memories were invisible to recall
and query, and committed edges were gone for good. Now the engine rebuilds its caches from the
store before its next call.

A censor rule's ``match`` callable runs while the write's caches are changed, after the commit,
so raising ``KeyboardInterrupt`` from it stands in for a Ctrl-C at that moment.
"""
from __future__ import annotations

import pytest

import engramdb


class _Interrupt:
    """A censor ``match`` that raises KeyboardInterrupt on memory ``at`` while armed."""

    def __init__(self, at: str):
        self.at, self.armed = at, False

    def __call__(self, mem) -> bool:
        if self.armed and mem.id == self.at:
            raise KeyboardInterrupt
        return False


def _supports(eng, ids) -> set[tuple[str, str]]:
    return {(e.source, e.target) for i in ids for e in eng.edges(i) if e.relation.value == "supports"}


def test_an_interrupted_add_batch_keeps_every_memory_and_link(tmp_path):
    path = str(tmp_path / "s")
    eng = engramdb.open(path, embedder="hashing")
    eng.add_batch([{"text": f"warm up memory {i} about topic {i % 7}", "id": f"w{i}"} for i in range(10)])
    stop = _Interrupt("b5")
    eng.censor(match=stop, id="stop")
    stop.armed = True
    with pytest.raises(KeyboardInterrupt):
        eng.add_batch([{"text": f"batch memory {i} quokka{i}", "id": f"b{i}",
                        "links": [{"to": f"w{i}", "relation": "supports"}]} for i in range(10)])
    stop.armed = False
    assert [e.verb for e in eng.ledger()][-1] == "add_batch"   # committed
    b_ids = [f"b{i}" for i in range(10)]
    expected = {(f"b{i}", f"w{i}") for i in range(10)}
    # the same engine sees the whole commit
    assert {m.id for m in eng.query(limit=100)} >= set(b_ids)
    assert eng.stats()["namespaces"]["default"]["memories"] == 20
    assert [h.id for h in eng.recall("quokka8", k=1).hits] == ["b8"]
    assert _supports(eng, b_ids) == expected
    eng.add("after the interrupt", id="after")   # later writes keep it too
    eng.link("w1", "w2", "caused_by")
    eng.close()
    for _ in range(2):   # reopened (twice: nothing stale was persisted at the first close)
        eng = engramdb.open(path)
        assert {m.id for m in eng.query(limit=100)} == set(b_ids) | {f"w{i}" for i in range(10)} | {"after"}
        assert [h.id for h in eng.recall("quokka8", k=1).hits] == ["b8"]
        assert _supports(eng, b_ids) == expected
        assert [e.relation.value for e in eng.edges("w1") if e.target == "w2"] == ["caused_by"]
        eng.close()


@pytest.mark.parametrize("then", ["supersede", "link", "add", "forget"])
def test_an_interrupted_link_keeps_its_edge_through_the_next_write(tmp_path, then):
    path = str(tmp_path / "s")
    eng = engramdb.open(path, embedder="hashing")
    eng.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight")
    eng.add("We leave on May 14 and come back on May 21.", id="dates")
    eng.add("The airline emailed confirmation code QX7Z9M.", id="code")
    stop = _Interrupt("dates")
    eng.censor(match=stop, id="stop")
    stop.armed = True
    with pytest.raises(KeyboardInterrupt):
        eng.link("flight", "dates", "supports")
    stop.armed = False
    assert [e.ids for e in eng.ledger(verb="link")] == [("flight", "dates")]   # committed
    if then == "supersede":
        eng.supersede("code", "The airline emailed confirmation code ZZ1111.", id="code2")
    elif then == "link":
        eng.link("code", "flight", "evidence_for")
    elif then == "add":
        eng.add("A new unrelated memory about the dentist.", id="dentist")
    else:
        eng.forget("code", hard=True)
    assert _supports(eng, ["flight"]) == {("flight", "dates")}
    eng.close()
    eng = engramdb.open(path)
    assert _supports(eng, ["flight"]) == {("flight", "dates")}
    eng.close()


def test_a_censor_rule_whose_callable_is_interrupted_is_not_installed(tmp_path):
    """censor(match=...) cut short while it judges the stored memories installs nothing (the rule
    stayed, and every later verb raised through it); the rules before it keep their verdicts."""
    eng = engramdb.open(str(tmp_path / "s"), embedder="hashing")
    eng.add("I booked TAP flight TP 218, Boston to Lisbon.", id="flight")
    eng.add("The door code is 4417.", id="code")
    eng.add("We leave on May 14 and come back on May 21.", id="dates")
    eng.censor(pattern="door code", action="block", id="secret")
    stop = _Interrupt("dates")
    stop.armed = True
    with pytest.raises(KeyboardInterrupt):
        eng.censor(match=stop, id="stop")
    assert [r.id for r in eng.censors()] == ["secret"]
    eng.link("flight", "dates", "supports")   # nothing raises through the dropped rule
    assert _supports(eng, ["flight"]) == {("flight", "dates")}
    assert {m.id for m in eng.query()} == {"flight", "dates"}   # 'code' still blocked
    eng.close()
