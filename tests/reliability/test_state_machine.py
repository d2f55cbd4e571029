"""Model-based test: a hypothesis RuleBasedStateMachine drives the engine and a plain in-memory
model of what it should hold, and checks after every step that they agree.

Rules: add (explicit id, no id, a repeated text), add_batch, link, supersede, forget (archive
and erase), update (only when ``Engram.update`` exists), recall, close/reopen, and a simulated
crash (the LMDB handle is closed without the flush of indexes and snapshots that ``close`` does).
"""
import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import engramdb
from engramdb import errors
from engramdb.testing import crash, indexed_counts

from .conftest import DIM, quiet_config, vec

NAMESPACES = ("a", "b")
TEXTS = [f"fact number {i}" for i in range(8)]   # a small pool: repeats happen
PURE = engramdb.RecallConfig(cosine_floor=-1.0, w_salience=0.0, w_confidence=0.0, w_graph=0.0)  # vector order only
ACTIVE, ARCHIVED, SUPERSEDED = "active", "archived", "superseded"
HEIR = object()   # a deduplication key handed on to a holder the model cannot tell (_drop_key_of)


class EngineVersusModel(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="engramdb-sm-")
        self.path = os.path.join(self.dir, "store")
        self.cfg = quiet_config(snapshot_every=3)
        self.eng = engramdb.open(self.path, dim=DIM, config=self.cfg)
        self.mem = {}        # (ns, id) -> {"text", "vec", "state", "superseded_by"}
        self.edges = set()   # (ns, src, tgt, relation)
        self.text_key = {}   # (ns, text) -> id: the memory the texts sub-database points at
        self.seq = 0

    def teardown(self):
        try:
            self.eng.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    # ---------------------------------------------------------------- helpers
    def _vec(self):
        self.seq += 1
        return vec(10_000 + self.seq)

    def _ids(self, ns, states=(ACTIVE, ARCHIVED, SUPERSEDED)):
        # insertion order, not sorted: auto ids are random uuids, and hypothesis needs the same
        # choices to pick the same memories when it replays a case
        return [i for (n, i), m in self.mem.items() if n == ns and m["state"] in states]

    def _new(self, ns, mid, text, v, write_text_key=True):
        self.mem[(ns, mid)] = {"text": text, "vec": v, "state": ACTIVE, "superseded_by": None}
        if write_text_key:
            self.text_key[(ns, text)] = mid

    def _drop_key_of(self, ns, mid):
        """Memory ``mid`` no longer holds its text's deduplication key (erased or reworded): the
        engine hands the key on to another memory of ``ns`` with that text, the one stored last
        among those it finds by vector, or drops it. Which one it finds depends on the vectors
        (the model's are random), so the model records the key as HEIR: an add of that text
        then either stores a new memory or returns an active memory with the text."""
        for key, holder in list(self.text_key.items()):
            if key[0] == ns and holder == mid:
                others = [i for (n, i), m in self.mem.items() if n == ns and i != mid and m["text"] == key[1]]
                if others:
                    self.text_key[key] = HEIR
                else:
                    del self.text_key[key]

    def _expected_add(self, ns, mid, text):
        """What add(text, id=mid) should return (an id, HEIR for an id the model cannot tell:
        see :meth:`_drop_key_of`), or an exception class."""
        if mid is None:
            k = self.text_key.get((ns, text))
            if k is HEIR:
                return HEIR
            if k is not None and self.mem[(ns, k)]["state"] == ACTIVE and self.mem[(ns, k)]["text"] == text:
                return k
            return None   # a new memory with a fresh id
        if (ns, mid) in self.mem:
            return mid if self.mem[(ns, mid)]["text"] == text else errors.InvalidInputError
        return mid

    # ---------------------------------------------------------------- rules
    @rule(ns=st.sampled_from(NAMESPACES), text=st.sampled_from(TEXTS), explicit=st.booleans(),
          n=st.integers(0, 30))
    def add(self, ns, text, explicit, n):
        mid = f"x{n}" if explicit else None
        v = self._vec()
        expect = self._expected_add(ns, mid, text)
        if expect is errors.InvalidInputError:
            with pytest.raises(errors.InvalidInputError):
                self.eng.add(text, id=mid, namespace=ns, embedding=v)
            return
        got = self.eng.add(text, id=mid, namespace=ns, embedding=v)
        if expect is HEIR:   # a new memory, or an active one holding the text (the key's heir)
            if (ns, got) in self.mem:
                assert self.mem[(ns, got)]["state"] == ACTIVE and self.mem[(ns, got)]["text"] == text
                self.text_key[(ns, text)] = got
            else:
                self._new(ns, got, text, v)
        elif expect is None:
            assert (ns, got) not in self.mem
            self._new(ns, got, text, v)
        elif (ns, expect) in self.mem:
            assert got == expect            # merged into the stored memory, which is reinforced
        else:
            assert got == expect
            self._new(ns, got, text, v)

    @rule(ns=st.sampled_from(NAMESPACES), rows=st.lists(st.tuples(st.integers(0, 30), st.sampled_from(TEXTS)),
                                                        min_size=1, max_size=5, unique_by=lambda r: r[0]))
    def add_batch(self, ns, rows):
        items = [{"id": f"x{n}", "text": t, "embedding": self._vec()} for n, t in rows]
        expects = [self._expected_add(ns, it["id"], it["text"]) for it in items]
        if errors.InvalidInputError in expects:
            with pytest.raises(errors.InvalidInputError):
                self.eng.add_batch(items, namespace=ns)
            return
        assert self.eng.add_batch(items, namespace=ns) == [it["id"] for it in items]
        for it in items:
            if (ns, it["id"]) not in self.mem:
                self._new(ns, it["id"], it["text"], it["embedding"])

    @precondition(lambda self: any(len(self._ids(ns)) >= 2 for ns in NAMESPACES))
    @rule(data=st.data(), rel=st.sampled_from(["supports", "related_to", "caused_by"]))
    def link(self, data, rel):
        ns = data.draw(st.sampled_from([n for n in NAMESPACES if len(self._ids(n)) >= 2]))
        a, b = data.draw(st.lists(st.sampled_from(self._ids(ns)), min_size=2, max_size=2, unique=True))
        self.eng.link(a, b, rel, 0.7, namespace=ns)
        self.edges.add((ns, a, b, rel))

    def _unsuperseded(self, ns):
        """Active or archived memories of ``ns`` that nothing supersedes (one forgotten after it
        was superseded is still superseded: supersede refuses it)."""
        return [i for i in self._ids(ns, (ACTIVE, ARCHIVED)) if self.mem[(ns, i)]["superseded_by"] is None]

    @precondition(lambda self: any(self._unsuperseded(ns) for ns in NAMESPACES))
    @rule(data=st.data(), text=st.sampled_from(TEXTS))
    def supersede(self, data, text):
        ns = data.draw(st.sampled_from([n for n in NAMESPACES if self._unsuperseded(n)]))
        old = data.draw(st.sampled_from(self._unsuperseded(ns)))
        v = self._vec()
        new = self.eng.supersede(old, text + " (revised)", namespace=ns, embedding=v)
        assert (ns, new) not in self.mem
        self._new(ns, new, text + " (revised)", v, write_text_key=False)
        self.mem[(ns, old)].update(state=SUPERSEDED, superseded_by=new)
        self.edges.add((ns, new, old, "supersedes"))

    @precondition(lambda self: bool(self.mem))
    @rule(data=st.data(), hard=st.booleans())
    def forget(self, data, hard):
        ns, mid = data.draw(st.sampled_from(list(self.mem)))
        self.eng.forget(mid, namespace=ns, hard=hard)
        if not hard:
            self.mem[(ns, mid)].update(state=ARCHIVED, forgotten=True)
            return
        successor = self.mem[(ns, mid)]["superseded_by"]
        del self.mem[(ns, mid)]
        self.edges = {e for e in self.edges if not (e[0] == ns and mid in (e[1], e[2]))}
        for (n, other), m in self.mem.items():
            if n == ns and m["superseded_by"] == mid:
                if successor is None:     # what it superseded is current again (archived again if forgotten before)
                    m.update(state=ARCHIVED if m.get("forgotten") else ACTIVE, superseded_by=None)
                else:                     # the chain closes over the gap: one current version
                    m["superseded_by"] = successor
                    self.edges.add((ns, successor, other, "supersedes"))
        self._drop_key_of(ns, mid)

    @precondition(lambda self: bool(self.mem) and hasattr(engramdb.Engram, "update"))
    @rule(data=st.data(), text=st.sampled_from(TEXTS))
    def update(self, data, text):
        ns, mid = data.draw(st.sampled_from(list(self.mem)))
        try:
            self.eng.update(mid, text=text + " (updated)", namespace=ns)
        except errors.InvalidInputError:
            return   # e.g. updating a superseded memory, if the engine refuses that
        m = self.mem[(ns, mid)]
        m["text"] = text + " (updated)"
        m["vec"] = self.eng.get(mid, namespace=ns, with_embedding=True).embedding
        self._drop_key_of(ns, mid)   # the old text's key; the new text is never added again

    @precondition(lambda self: bool(self.mem))
    @rule(data=st.data())
    def recall_own_vector(self, data):
        ns, mid = data.draw(st.sampled_from(list(self.mem)))
        hits = self.eng.recall(vector=self.mem[(ns, mid)]["vec"], namespace=ns, k=5, config=PURE, gate="off",
                               include_archived=True, include_superseded=True).hits
        ids = [h.id for h in hits]
        twins = {m for (n, m), rec in self.mem.items()   # memories updated to the same wording
                 if n == ns and np.allclose(rec["vec"], self.mem[(ns, mid)]["vec"], atol=1e-6)}
        assert ids[0] in twins | {mid} and len(ids) == len(set(ids))
        assert set(ids) <= set(self._ids(ns))
        shown = {h.id for h in self.eng.recall(vector=self.mem[(ns, mid)]["vec"], namespace=ns, k=50,
                                               config=PURE).hits}
        assert shown <= set(self._ids(ns, (ACTIVE,)))   # hidden states stay hidden

    @rule()
    def close_and_reopen(self):
        self.eng.close()
        self.eng = engramdb.open(self.path, config=self.cfg)

    @rule()
    def crash_and_reopen(self):
        """Lose everything not committed to LMDB: no index save, no snapshots, no flush."""
        crash(self.eng)
        self.eng = engramdb.open(self.path, config=self.cfg)

    # ---------------------------------------------------------------- agreement
    @invariant()
    def agrees_with_the_model(self):
        e = self.eng
        assert e.stats()["memories"] == len(self.mem)
        for ns in NAMESPACES:
            assert indexed_counts(e).get(ns, 0) == len(self._ids(ns))
        for (ns, mid), m in self.mem.items():
            got = e.get(mid, namespace=ns)
            assert (got.text, got.state.value, got.superseded_by) == (m["text"], m["state"], m["superseded_by"])
        stored = {(ns, x.source, x.target, x.relation.value) for (ns, mid) in self.mem
                  for x in e.edges(mid, namespace=ns)}
        assert stored == self.edges and e.n_edges == len(self.edges)


TestEngineVersusModel = EngineVersusModel.TestCase
TestEngineVersusModel.settings = settings(max_examples=int(os.environ.get("ENGRAMDB_SM_EXAMPLES", "12")),
                                          stateful_step_count=25, deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
def test_state_machine_long_run():
    from hypothesis.stateful import run_state_machine_as_test
    run_state_machine_as_test(EngineVersusModel, settings=settings(max_examples=150, stateful_step_count=50,
                                                                   deadline=None,
                                                                   suppress_health_check=[HealthCheck.too_slow]))
