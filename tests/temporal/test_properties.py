"""Invariants under hypothesis-generated sequences of operations:

* no cycles in supersession chains (whatever add / supersede(by=) / supersede(text) sequence);
* exactly one current memory per single-valued slot after any sequence of adds (single or
  batched, with ties in valid time and confidence, late reports, restated values), explicit
  supersessions and hard forgets;
  multi-valued slots keep every value;
* as-of answers (recall and query) never include a memory recorded after T, and equal the
  bitemporal rule evaluated from the stored records.
"""
import os
import tempfile
from collections import defaultdict

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engramdb
from engramdb.testing import FakeClock, use_clock

from .conftest import T0

DIM = 16
# ENGRAMDB_TEMPORAL_EXAMPLES=500 for a longer search (default 30 keeps make test quick)
SETTINGS = settings(max_examples=int(os.environ.get("ENGRAMDB_TEMPORAL_EXAMPLES", "30")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SUBJECTS = ["ana", "bo"]
ATTRS = ["home_city", "price", "likes"]           # likes is multi-valued in the default config
VALUES = ["x", "y", "z"]


def _vec(i):
    v = np.random.default_rng(i).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


add_op = st.tuples(st.just("add"), st.sampled_from(SUBJECTS), st.sampled_from(ATTRS), st.sampled_from(VALUES),
                   st.integers(0, 4), st.sampled_from([0.5, 0.9]), st.integers(0, 3))
batch_op = st.tuples(st.just("batch"), st.lists(add_op, min_size=1, max_size=4))
sup_op = st.tuples(st.just("supersede_by"), st.integers(0, 30), st.integers(0, 30))
text_op = st.tuples(st.just("supersede_text"), st.integers(0, 30), st.integers(0, 4))
erase_op = st.tuples(st.just("erase"), st.integers(0, 30))
ops = st.lists(st.one_of(add_op, batch_op, sup_op, text_op, erase_op), min_size=1, max_size=14)


def _item(op, i):
    _, subj, attr, value, day, conf, _adv = op
    return {"id": f"m{i}", "text": f"{subj} {attr} {value} #{i}", "slot": (subj, attr, value),
            "created_at": T0 - 10 * 86400 + day * 86400, "confidence": conf, "embedding": _vec(i)}


def _run(ops_list, m, clock):
    """Apply the operations; invalid supersessions must raise InvalidInputError and change nothing.
    Returns {id: record time}."""
    ids, recorded = [], {}
    count = 0                       # ids are never reused, even after a hard forget
    for op in ops_list:
        clock.advance(1 + (op[6] if op[0] == "add" else 0))
        if op[0] == "add":
            it = _item(op, count)
            count += 1
            m.add(**it)
            ids.append(it["id"])
            recorded[it["id"]] = clock.t
        elif op[0] == "batch":
            items = [_item(o, count + j) for j, o in enumerate(op[1])]
            count += len(items)
            m.add_batch(items)
            for it in items:
                ids.append(it["id"])
                recorded[it["id"]] = clock.t
        elif op[0] == "erase" and ids:
            gone = ids.pop(op[1] % len(ids))   # hard forget: what it superseded may become current again
            m.forget(gone, hard=True)
            del recorded[gone]
        elif ids:
            old = ids[op[1] % len(ids)]
            try:
                if op[0] == "supersede_by":
                    m.supersede(old, by=ids[op[2] % len(ids)])
                else:
                    new_id = f"m{count}"
                    count += 1
                    m.supersede(old, f"new version {new_id}", id=new_id, embedding=_vec(count),
                                created_at=T0 - 10 * 86400 + op[2] * 86400)
                    ids.append(new_id)
                    recorded[new_id] = clock.t
            except engramdb.InvalidInputError:
                pass
    return ids, recorded


def _open_with_clock():
    clock = FakeClock(T0)
    tmp = tempfile.TemporaryDirectory()
    return clock, use_clock(clock), tmp


@SETTINGS
@given(ops)
def test_no_cycles_and_one_current_per_single_valued_slot(ops_list):
    clock, patch, tmp = _open_with_clock()
    with tmp, patch, engramdb.open(tmp.name + "/s", dim=DIM) as m:
        ids, _ = _run(ops_list, m, clock)
        mems = {i: m.get(i) for i in ids}
        # supersession graph: successor -> predecessor edges; must be acyclic
        succ = defaultdict(set)
        for i in ids:
            for e in m.edges(i):
                if e.relation is engramdb.Relation.SUPERSEDES:
                    succ[e.target].add(e.source)
        state = {}

        def visit(u):   # DFS colouring: 1 = on the stack, 2 = done
            state[u] = 1
            for v in succ[u]:
                assert state.get(v) != 1, f"cycle through {u} -> {v}"
                if v not in state:
                    visit(v)
            state[u] = 2

        for i in ids:
            if i not in state:
                visit(i)
        # following superseded_by always ends at a current memory, within len(ids) steps
        for i in ids:
            cur, steps = i, 0
            while mems[cur].superseded_by is not None:
                cur = mems[cur].superseded_by
                steps += 1
                assert steps <= len(ids)
            assert mems[cur].state is engramdb.MemoryState.ACTIVE
            assert (mems[i].state is engramdb.MemoryState.SUPERSEDED) == (mems[i].superseded_by is not None)
        # slots: exactly one current memory per single-valued slot; multi-valued keep all
        by_slot = defaultdict(list)
        for i in ids:
            if mems[i].subject is not None:
                by_slot[(mems[i].subject, mems[i].attribute)].append(mems[i])
        for (subj, attr), members in by_slot.items():
            current = [x for x in members if x.state is engramdb.MemoryState.ACTIVE]
            if attr == "likes":
                if not any(op[0] in ("supersede_by", "supersede_text", "erase") for op in ops_list):
                    assert len(current) == len(members)   # multi-valued: every value stays current
            else:
                assert len(current) == 1, (subj, attr, [(x.id, x.state, x.valid_from) for x in members])
                if not any(op[0] in ("supersede_by", "supersede_text", "erase") for op in ops_list):
                    # automatic resolution only: the current one is the latest in valid time
                    assert current[0].valid_from == max(x.valid_from for x in members)


@SETTINGS
@given(ops, st.integers(0, 40))
def test_as_of_never_returns_a_memory_recorded_after_t(ops_list, t_offset):
    clock, patch, tmp = _open_with_clock()
    with tmp, patch, engramdb.open(tmp.name + "/s", dim=DIM) as m:
        ids, recorded = _run(ops_list, m, clock)
        t = T0 + t_offset
        cfg = engramdb.RecallConfig(cosine_floor=-1.0, seed_k=64)
        hits = m.recall(vector=_vec(0), k=64, as_of=t, config=cfg).hits
        got_q = m.query(as_of=t, limit=1000)
        for h in hits:
            assert m.get(h.id).recorded_at <= t
        assert all(x.recorded_at <= t for x in got_q)
        # the query answer is exactly the bitemporal rule applied to the stored records
        expected = set()
        for i in ids:
            x = m.get(i)
            retired = np.inf if x.retired_at is None else x.retired_at
            if x.recorded_at <= t < retired and x.valid_from <= t:
                expected.add(i)
        assert {x.id for x in got_q} == expected
        # recall over every memory (seed_k covers the namespace, no graph filtering) agrees too
        assert {h.id for h in hits} == expected
