"""The write unit: every mutation of a store is one of these.

A :class:`WriteUnit` (py-lmdb's rule: the transaction is the unit of work) does four things:

1. checks for conflicts: another process must not have written behind this engine's caches;
2. runs one LMDB write transaction, in which the caller's step reads and writes through the
   unit (records, vectors, edges, erasures, the dynamics log);
3. bumps the generation counters once, and appends one audit ledger entry (verb, actor, the
   ids touched, a digest of everything written, the dynamics details; :mod:`engramdb.store.ledger`)
   when anything changed, in that transaction;
4. applies the cache changes (columns, graph, namespaces, indexes) **only after the commit**,
   and undoes the hnswlib insertions it made when the transaction aborts.

A batch's hnswlib insertion may run in a worker thread (:meth:`WriteUnit.index_add` with
``background=True``; hnswlib releases the GIL) while the writer's thread goes on with the
transaction's Python work that needs no search; :meth:`WriteUnit.index_join` waits for it, and
so do the commit and an abort, so an insertion never outlives its unit.

So a write that fails, or whose transaction hits a full map and is retried, leaves the engine
exactly as it was, and a committed change always has its ledger entry. Use it as
``with write_unit(state, "adding memories", now, verb="add_batch") as unit: ...``.
"""
from __future__ import annotations

import struct
import threading
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..concurrency import retries_map_growth
from ..batch_plan import head_nid, is_block, piece_ids, piece_tags
from ..conversation import session_text_without
from ..entities import entity_of_node
from ..graph.csr import MemoryGraph
from ..store import ledger as _ledger
from ..store.lmdb_store import record_text_digest, text_digest
from ..state import EngineState, Namespace
from ..state.columns import TextColumns, text_columns
from ..store.lmdb_store import SCHEMA_VERSION
from ..types import MemoryState, Relation
from ..validate import now as clock_now

__all__ = ["WriteUnit", "write_unit", "LOG_PREFIX", "DROP_NAMESPACE", "SHARED_FIELDS"]

#: Record fields a memory stored as pieces shares across its pieces (:meth:`WriteUnit.put_record`):
#: its lifecycle, and what recall's filters read.
SHARED_FIELDS = ("state", "archived_at", "superseded_by", "valid_to", "retired_at", "kind", "tags",
                 "confidence", "source", "salience", "salience_at", "access_count", "last_access")

#: meta keys of the dynamics log of stores written before the audit ledger (now a view of it)
LOG_PREFIX = _ledger.OLD_LOG_PREFIX
#: the dynamics log action of :meth:`WriteUnit.erase_namespace` (one entry with the count)
DROP_NAMESPACE = "drop_namespace"


class WriteUnit:
    """One mutation's transaction and its pending cache changes (see the module docstring).

    Attributes
    ----------
    state : EngineState
    txn : lmdb.Transaction
        The open write transaction (valid inside the ``with`` block).
    now : float
        Record time of this write, Unix seconds: what the record-time fields it sets carry
        (``archived_at``, ``promoted_at``, the ``retired_at`` of an erase, edge times, the
        dynamics log's ``at``).
    at : float
        Time the write's dynamics are computed at, Unix seconds: the salience a reinforcement
        or promotion reads and the ``t0`` it writes (:mod:`engramdb.write.reinforce`).
        ``now`` unless the verb was given a time of its own (``rescore(now=)``,
        ``consolidate(now=)``, ``review(at=)``), which never becomes a record time.
    verb : str
        The engine verb this write does, recorded in its ledger entry.
    """

    def __init__(self, state: EngineState, now: float, verb: str, at: float | None = None):
        self.state = state
        self.store = state.store
        self.now = now
        self.at = now if at is None else at
        self.verb = verb
        self.digest = _ledger.Digest()
        self._touched: dict[int, tuple[str, str]] = {}   # nid -> (namespace, id), in order
        self._erased_spaces: dict[str, int] = {}          # namespace -> memories erased with it
        self.txn: Any = None
        self._after: list[Callable[[], None]] = []
        self._undo: list[Callable[[], None]] = []
        self._records_changed = False
        self._next_nid = state.next_nid
        self._first_new = state.next_nid   # nids from here on are this unit's: no stored edge yet
        self._delta_seq = state.delta_seq
        self._new_edges: list[tuple[int, int, int, float]] = []
        self._graph_after: MemoryGraph | None = None   # set when nodes are erased
        self._meta: dict[str, dict] | None = None      # namespace counters, copied on first change
        self._new_spaces: dict[str, Namespace] = {}
        self._log: list[dict] = []
        self._kw_run: tuple[Namespace, list[tuple[int, str]]] | None = None   # see _keyword_add
        self._inserting: list[_Insertion] = []   # background index insertions (index_add)
        self._terms: dict[int, tuple[dict[str, int], int]] = {}   # see pretokenize
        self._derived: dict[int, tuple[str, float, TextColumns]] = {}   # see pretokenize
        self.revived: list[int] = []   # memories an erase made current (or archived) again, in order
        self.reworded: dict[int, str] = {}   # session nodes whose text an erase reworded: nid -> namespace

    # ------------------------------------------------------------------ reading
    def record(self, nid: int) -> dict | None:
        """The stored record of ``nid`` as this transaction sees it (its own writes included)."""
        return self.store.get_record(self.txn, nid)

    def lookup(self, ns: str, ext_id: str) -> int | None:
        """The nid of ``ext_id`` in ``ns`` as this transaction sees it, or None."""
        return self.store.lookup_id(self.txn, ns, ext_id)

    def space(self, name: str) -> Namespace:
        """Namespace ``name``, created (installed after the commit) when it is new."""
        sp = self.state.space(name) or self._new_spaces.get(name)
        if sp is None:
            sp = self._new_spaces[name] = self.state.new_space(name)
        return sp

    def graph(self) -> MemoryGraph:
        """The graph this write leaves behind (the live one unless nodes are being erased)."""
        return self._graph_after if self._graph_after is not None else self.state.graph

    def allocate(self, n: int) -> int:
        """Reserve ``n`` new nids; returns the first."""
        first = self._next_nid
        self._next_nid += n
        return first

    def after(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` after the commit (cache changes), in registration order."""
        self._after.append(fn)

    # ------------------------------------------------------------------ writing
    def pieces(self, rec: dict) -> list[int]:
        """Node ids of the other pieces of a memory stored as pieces (``rec`` its first piece,
        with ``chunks``, or a conversation message with ``blocks``:
        :func:`engramdb.batch_plan.piece_ids`), in order; [] for a memory stored whole."""
        found = (self.lookup(rec["namespace"], pid) for pid in piece_ids(rec))
        return [nid for nid in found if nid is not None]

    def put_record(self, nid: int, rec: dict) -> None:
        """Write ``rec`` for the existing memory ``nid``; its columns follow after the commit.

        A memory stored as pieces lives and dies as one: the first piece's :data:`SHARED_FIELDS`
        (state, archive time, successor, validity end, retirement, kind, tags, confidence,
        source, salience and accesses) are written to every other piece too (its tags after the
        internal ``piece`` tag, :func:`engramdb.batch_plan.piece_tags`), so an archived,
        superseded, revived, retagged or reinforced memory is so in all its pieces (a recall of
        any piece reinforces the memory: :func:`engramdb.write.reinforce.reinforce`)."""
        self._put_record(nid, rec)
        pieces = self.pieces(rec)
        shared = {f: rec.get(f) for f in SHARED_FIELDS}
        if pieces:   # a piece keeps its internal tag (batch_plan.piece_tags)
            shared["tags"] = piece_tags(rec.get("tags") or ())
        for piece in pieces:
            prec = self.record(piece)
            if prec is not None and any(prec.get(f) != v for f, v in shared.items()):
                self._put_record(piece, {**prec, **shared})

    def _put_record(self, nid: int, rec: dict) -> None:
        buf = self.store.put_record(self.txn, nid, rec)
        self.digest.fold(b"R", _U32.pack(nid), buf)
        self._touched[nid] = (rec["namespace"], rec["id"])
        self._records_changed = True
        code = self.state.code(rec["namespace"])
        self.after(lambda: self.state.cols.set_record(nid, rec, code))
        if rec.get("subject") is not None:   # e.g. a memory that took over a slot (slots.join_slot)
            sp = self.space(rec["namespace"])
            self.after(lambda: sp.slot_member(rec["subject"], rec["attribute"], nid, True))

    def insert(self, nid: int, rec: dict, vector: np.ndarray, *, digest: bytes | None = None,
               replace_digest: bool = True) -> None:
        """Write a new memory: record, vector, id, deduplication key, slot membership, counters.

        After the commit: its columns, its namespace's keyword postings and dirty flags. Its
        vector must already be in the index (:meth:`index_add`) so auto-links can find it.

        Parameters
        ----------
        nid : int
            From :meth:`allocate`.
        rec : dict
            The full record.
        vector : ndarray of float32, shape (dim,)
            Unit vector.
        digest : bytes, optional
            Deduplication key of the text (a chunk head passes its whole text's); None: the
            record's own text, except for the pieces of a chunked text, which have none.
        replace_digest : bool
            Point an existing key at this memory (a new add); False keeps the existing one.
        """
        self.insert_many([(nid, rec, vector, digest)], replace_digest=replace_digest)

    def insert_many(self, items: list[tuple[int, dict, np.ndarray, bytes | None]], *,
                    replace_digest: bool = True) -> None:
        """:meth:`insert` of each item in order: the same writes, ledger digest items and cache
        changes after the commit, with one cache-change step per keyword run instead of one per
        memory (a batch of new memories).

        Parameters
        ----------
        items : list of (int, dict, ndarray of float32 shape (dim,), bytes or None)
            ``(nid, record, unit vector, deduplication key)``, as :meth:`insert` takes them.
        replace_digest : bool
            As for :meth:`insert`.
        """
        store, txn, fold, touched = self.store, self.txn, self.digest.fold, self._touched
        pack_nid = _U32.pack
        applied: list[tuple[int, dict, Namespace, int]] = []
        spaces: dict[str, Namespace] = {}
        for nid, rec, vector, digest in items:
            ns = rec["namespace"]
            buf = store.put_record(txn, nid, rec)
            store.put_vector(txn, nid, vector)
            key = pack_nid(nid)
            fold(b"R", key, buf)
            fold(b"V", key, np.ascontiguousarray(vector, np.float32).tobytes())
            touched[nid] = (ns, rec["id"])
            store.put_id(txn, ns, rec["id"], nid)
            if digest is None and rec.get("chunk_of") is None:
                digest = text_digest(rec["text"])
            if digest is not None and (replace_digest or store.lookup_text(txn, ns, digest) is None):
                store.put_text(txn, ns, digest, nid)
            if rec.get("subject") is not None:   # slot membership is part of every new record
                from ..slots import join_slot_table

                join_slot_table(store, txn, nid, ns, rec["subject"], rec["attribute"])
            m = self._namespace_meta(ns)
            m["vgen"] += 1
            m["count"] += 1
            self._records_changed = True
            sp = spaces.get(ns)
            if sp is None:
                sp = spaces[ns] = self.space(ns)
            head = head_nid(rec, nid, self.lookup)   # a later piece's first piece is written before it
            if not applied or self._kw_run is None or self._kw_run[0] is not sp:
                # a new keyword run registers its own step first: the columns step of the
                # memories so far must come before it, as one step per memory did
                self._after_inserted(applied)
                applied = []
            self._keyword_add(sp, nid, rec["text"], self._block_length(rec, head))
            applied.append((nid, rec, sp, head))
        self._after_inserted(applied)

    def _after_inserted(self, applied: list[tuple[int, dict, Namespace, int]]) -> None:
        """Register the after-commit step of new memories ``(nid, rec, namespace, head nid)``:
        their columns, the namespace's latest-memory cache and slot members, in order."""
        if not applied:
            return
        def apply() -> None:
            cols, derived = self.state.cols, self._derived
            for nid, rec, sp, head in applied:
                pre = derived.get(nid)   # computed while hnswlib inserted, if the text is still that
                known = pre[2] if pre is not None and pre[0] == rec["text"] and pre[1] == rec["created_at"] else None
                cols.set_record(nid, rec, sp.code, head, known)
                sp.latest = None
                if rec.get("subject") is not None:
                    sp.slot_member(rec["subject"], rec["attribute"], nid, True)
        self.after(apply)

    def _block_length(self, rec: dict, head: int) -> int | None:
        """For a block of a split conversation message (:func:`engramdb.batch_plan.is_block`), its
        length for BM25: its message's, in terms (the message is indexed whole beside it; scored
        as a short document of its own, a block of a long answer outranked the short message that
        answers, helper-242); None for any other memory (its text's own)."""
        if not is_block(rec):
            return None
        from ..index.keyword import term_counts
        message = self.record(head) if head != -1 else None
        return None if message is None else term_counts(message["text"])[1]

    def _keyword_add(self, sp: Namespace, nid: int, text: str, length: int | None = None) -> None:
        """Index a new memory's text in ``sp``'s keyword postings after the commit (``length``:
        its BM25 length where not its text's, :meth:`_block_length`). Consecutive new memories
        of a namespace are indexed in one :meth:`KeywordIndex.add_many` (the same postings as
        one add each); a change of the postings registered between them (:meth:`reindex_text`,
        :meth:`erase`) ends the run, so the order of changes is kept."""
        run = self._kw_run
        if run is None or run[0] is not sp:
            run = self._kw_run = (sp, [], {})
            docs, lengths = run[1], run[2]

            def apply() -> None:
                terms = self._terms
                known = None
                if terms:   # pretokenized: the same term counts, computed while hnswlib inserted
                    known = [pre[1] if (pre := terms.get(d_nid)) is not None and pre[0] == d_text else None
                             for d_nid, d_text in docs]
                sp.keyword.add_many(docs, known, lengths)
                sp.keyword_dirty = True
            self.after(apply)
        run[1].append((nid, text))
        if length is not None:
            run[2][nid] = length

    def pretokenize(self, docs: list[tuple[int, str, float]]) -> None:
        """Compute now the keyword terms (:func:`engramdb.index.keyword.term_counts`) and the
        text's columns (:func:`engramdb.state.columns.text_columns`: the time it names, its
        speech act), pure functions of the text and event time, of new memories that :meth:`insert` will index and put in the
        columns after the commit; the write path calls it while hnswlib inserts in the
        background. A text inserted under another nid, or changed meanwhile, is analysed
        again after the commit.

        Parameters
        ----------
        docs : list of (int, str, float)
            ``(nid, text, created_at)`` of each new memory (event time in Unix seconds).
        """
        from ..index.keyword import term_counts

        terms, derived = self._terms, self._derived
        for nid, text, at in docs:
            terms[nid] = (text, term_counts(text))
            derived[nid] = (text, at, text_columns(text, at))

    def index_add(self, ns: str, vectors: np.ndarray, nids: np.ndarray, *, background: bool = False) -> None:
        """Put vectors in namespace ``ns``'s hnswlib index now (so this write's auto-link search
        sees them); removed again if the transaction aborts.

        Parameters
        ----------
        ns : str
            Namespace.
        vectors : ndarray of float32, shape (n, dim)
            Unit vectors.
        nids : ndarray of int64, shape (n,)
            Their node ids.
        background : bool
            Insert in a worker thread and return at once (hnswlib releases the GIL while it
            inserts, so the caller's Python work in the transaction runs beside it); the caller
            must not search the index before :meth:`index_join`. The commit and an abort
            wait for the worker, so an abort still finds every insertion to undo.

        Raises
        ------
        IndexStaleError
            hnswlib refused the vectors (raised here, or by :meth:`index_join` in the background).
        """
        sp = self.space(ns)
        if sp.index is None:
            index = self.state.new_index()
            created = True
        else:
            index, created = sp.index, False
        vectors, nids = np.asarray(vectors, np.float32), np.asarray(nids, np.int64)
        if background:
            self._inserting.append(_Insertion(index, vectors, nids))
        else:
            index.add(vectors, nids)
        if created:
            sp.index = index

            def undo() -> None:
                sp.index = None
        else:
            def undo() -> None:
                for nid in np.asarray(nids).tolist():
                    index.remove(int(nid))
        self._undo.append(undo)
        self.after(lambda: setattr(sp, "index_dirty", True))

    def index_join(self) -> None:
        """Wait for the insertions started by :meth:`index_add` with ``background=True``.

        Raises
        ------
        IndexStaleError, or whatever the insertion raised
            A failed insertion (its vectors are undone with the rest when the unit aborts).
        """
        inserting, self._inserting = self._inserting, []
        failed = None
        for job in inserting:   # every one joined, even after a failure
            exc = job.join()
            failed = failed or exc
        if failed is not None:
            raise failed

    def index_replace(self, ns: str, nid: int, vector: np.ndarray, old_vector: np.ndarray) -> None:
        """Replace ``nid``'s vector in the index (hnswlib updates a label in place); the old
        vector goes back if the transaction aborts."""
        sp = self.space(ns)
        self.digest.fold(b"V", _U32.pack(nid), np.ascontiguousarray(vector, np.float32).tobytes())
        sp.index.add(vector.reshape(1, -1), np.array([nid]))
        self._undo.append(lambda: sp.index.add(old_vector.reshape(1, -1), np.array([nid])))
        self._namespace_meta(ns)["vgen"] += 1
        self.after(lambda: setattr(sp, "index_dirty", True))

    def reindex_text(self, ns: str, nid: int, old_text: str, new_text: str) -> None:
        """Swap ``old_text`` for ``new_text`` in the keyword postings, after the commit."""
        if old_text == new_text:
            return
        sp = self.space(ns)
        self._kw_run = None

        rec = self.record(nid)
        length = self._block_length(rec, head_nid(rec, nid, self.lookup)) if rec is not None else None

        def apply() -> None:
            sp.keyword.remove(nid, old_text)
            sp.keyword.add(nid, new_text, length)
            sp.keyword_dirty = True
            self.state.subject_hints.forget(nid)
        self.after(apply)

    def add_edges(self, rows: list[tuple[int, int, int, float]],
                  created_at: float | None = None) -> list[tuple[int, int, int, float]]:
        """Write edges (src nid, tgt nid, relation code, weight), or new weights of existing ones;
        they join the graph after the commit. An edge between stored memories that already has
        that weight is left as it is (its time kept): a write that changes nothing leaves no
        ledger entry. Returns the rows written (as ints and floats)."""
        if not rows:
            return []
        first_new, store, txn = self._first_new, self.store, self.txn
        rows = [r for r in rows if int(r[0]) >= first_new or int(r[1]) >= first_new
                or not store.has_edge_weight(txn, int(r[0]), int(r[1]), int(r[2]), float(r[3]))]
        if not rows:
            return []
        at = self.now if created_at is None else created_at
        seq = self._delta_seq
        for src, tgt, rel, w in rows:
            seq += 1
            self.store.put_edge(self.txn, int(src), int(tgt), int(rel), float(w), at, seq)
            self.digest.fold(b"E", _EDGE.pack(int(src), int(tgt), int(rel), float(w), at))
        self._delta_seq = seq
        rows = [(int(s), int(t), int(r), float(w)) for s, t, r, w in rows]
        self._new_edges.extend(rows)
        if self._graph_after is not None:
            self._graph_after.upsert_many(*_columns(rows))
        return rows

    def erase(self, nid: int, *, derived: bool = True) -> dict:
        """Erase memory ``nid``: record, vector, id, deduplication key and every edge touching it.

        The one erase path (``forget(hard=True)`` and policy pruning both come here). What the
        erased memory superseded is handed on: to its own successor when it was itself
        superseded; otherwise, within a single-valued slot, only the strongest of them (later
        ``valid_from``, then higher confidence, then the later record) becomes current again and
        the rest are re-pointed at it (``slots.choose_revived``); without a slot, all of them
        become current again. So a single-valued slot never ends up with two current values. A
        revived memory that had been forgotten (archived) before it was superseded is archived
        again: erasing a correction does not bring back what was forgotten.

        What the engine wrote from the memory's text goes with it (:meth:`derived`): the session
        summaries that extracted from it, the promoted facts it was evidence for and, for a
        decision, its outcome memories (which quote it). A later ``consolidate`` summarizes
        and promotes again from what is left. ``derived=False`` keeps them: a policy prune
        (``rescore``) forgets a faded episode, while what consolidation made of it is durable
        semantic memory with a half-life of its own.

        Returns
        -------
        dict
            The erased record.
        """
        from ..slots import choose_revived, leave_slot_table, retire_record

        store, txn = self.store, self.txn
        rec = self.record(nid)
        for piece in self.pieces(rec):   # a memory stored as pieces is erased whole
            self.erase(piece, derived=derived)
        ns, ext_id = rec["namespace"], rec["id"]
        if self._graph_after is None:
            self._graph_after = MemoryGraph()
            self._graph_after.upsert_many(*self.state.graph.edges())
        graph = self._graph_after
        reword = derived   # (a policy prune keeps the session node's speakers: no privacy request)
        derived = self.derived(nid, rec) if derived else []
        older = [other for other, rel, _w, forward in graph.neighbours(nid)
                 if rel == _SUPERSEDES and forward]
        recs = {o: r for o in older if (r := self.record(o)) is not None and r["superseded_by"] == ext_id}
        if rec.get("outcome_of") is not None:   # a review's outcome: its decision goes back one review
            self._unreview(ns, rec, recs)
        succ = rec["superseded_by"]
        succ_nid = None if succ is None else self.lookup(ns, succ)
        if succ_nid is not None:
            repoint = dict.fromkeys(recs, succ_nid)
        else:
            repoint = choose_revived(recs)
        new_edges = []
        for other, orec in recs.items():
            if other in repoint:   # stays superseded, now by the successor or the revived one
                keep = repoint[other]
                if keep == succ_nid:   # as if the erased correction was never made: valid until the
                    # successor's valid_from (the end it stated kept), retired when the successor came
                    srec = self.record(succ_nid)
                    s_from = srec.get("valid_from")
                    orec["valid_to"] = orec.get("stated_valid_to")
                    state = orec["state"]
                    retire_record(orec, succ, float(srec["created_at"] if s_from is None else s_from),
                                  float(rec.get("retired_at") or self.now))
                    if state == MemoryState.ARCHIVED.value:   # a forgotten version stays forgotten
                        orec["state"] = state
                else:
                    orec["superseded_by"] = recs[keep]["id"]
                new_edges.append((keep, other, _SUPERSEDES, 1.0))
            else:   # current again: valid from now on as stated when it was recorded; a memory
                # forgotten (archived) before it was superseded is archived again, not active
                revived = MemoryState.ACTIVE if orec.get("archived_at") is None else MemoryState.ARCHIVED
                orec["state"], orec["superseded_by"] = revived.value, None
                orec["retired_at"], orec["valid_to"] = None, orec.get("stated_valid_to")
                self.revived.append(other)
                self._retire_no_earlier(other, orec, graph)
            self.put_record(other, orec)
        self._note_erased_message(nid, ext_id, graph, rec.get("edit_of"), rec.get("tags") or () if reword else (),
                                  rec.get("created_at"))
        orphans = self._orphaned_entities(nid, graph) if reword else []
        graph.remove_node(nid)
        store.delete_edges_of(txn, nid)
        self.add_edges(new_edges)
        if rec.get("subject") is not None:
            leave_slot_table(store, txn, nid, ns, rec["subject"], rec["attribute"])
        self.hand_on_text(ns, record_text_digest(rec), nid)
        store.delete_record(txn, nid, ns, ext_id)
        self.digest.fold(b"X", _U32.pack(nid))
        for other in derived + orphans:
            if self.record(other) is not None:   # not erased already (by another's chain)
                self.erase(other)
        self._touched[nid] = (ns, ext_id)
        m = self._namespace_meta(ns)
        m["vgen"] += 1
        m["count"] -= 1
        self._records_changed = True
        sp = self.space(ns)
        self._kw_run = None

        def apply() -> None:
            self.state.cols.kill(nid)
            self.state.subject_hints.forget(nid)
            if sp.index is not None:
                sp.index.remove(nid)
            self.state.key_cache.forget(nid)
            sp.index_dirty = True
            sp.keyword.remove(nid, rec["text"])
            sp.keyword_dirty = True
            sp.latest = None
            if rec.get("subject") is not None:
                sp.slot_member(rec["subject"], rec["attribute"], nid, False)
        self.after(apply)
        return rec

    def _note_erased_message(self, nid: int, ext_id: str, graph: MemoryGraph, edit_of: Any = None,
                             tags: Sequence[str] = (), at: Any = None) -> None:
        """A chat message erased: its session node (``discussed_in``) lists its id in the record
        field ``erased_ids``, so a chat sent again that gives the message's id does not store it
        again (:func:`engramdb.conversation.plan_conversation`), and its event time ``at`` in
        ``erased_times``, so one sent again with that time does not either; an erased edit (``edit_of``: the
        id of the message it replaced) also lists that id in ``erased_edits``, so its place
        takes the edit's wording sent again without storing it. Ids only, never the text. When
        no message of the session is left from its speaker (``tags[0]``, the speaker's name or
        role), the node's generated text no longer names them ("Session ticket-2 of
        Dana_Whitfield and assistant, 22 January 2025" -> "... of assistant, ..."; helper-235:
        the name stayed after every message of Dana's was erased): the record and its keyword
        postings now, its vector by the caller (:attr:`reworded`, :meth:`replace_vector`)."""
        speaker = tags[0] if tags else None
        for other, rel, _w, forward in graph.neighbours(nid):
            if rel != _DISCUSSED_IN or not forward:
                continue
            srec = self.record(other)
            if srec is not None and "session" in (srec.get("tags") or ()):
                ids = list(srec.get("erased_ids") or ())
                edits = list(srec.get("erased_edits") or ())
                new = {**srec}
                if ext_id not in ids:
                    new["erased_ids"] = ids + [ext_id]
                    if isinstance(at, (int, float)) and not isinstance(at, bool):
                        new["erased_times"] = [*(srec.get("erased_times") or ()), float(at)]
                if isinstance(edit_of, str) and edit_of not in edits:
                    new["erased_edits"] = edits + [edit_of]
                text = None
                if speaker and speaker not in (left := self._speakers_left(graph, other, nid)):
                    text = session_text_without(srec["text"], srec["id"], speaker, left)
                if text is not None:
                    self.reindex_text(srec["namespace"], other, srec["text"], text)
                    new["text"] = text
                    self.reworded[other] = srec["namespace"]
                if new != srec:
                    self.put_record(other, new)

    def _orphaned_entities(self, nid: int, graph: MemoryGraph) -> list[int]:
        """The entity nodes (ids ``E:<name>``, :mod:`engramdb.entities`) that memory ``nid``
        ``mentions`` and no other memory does: their names came from its text, and they go with
        it (helper-236: "E:dana whitfield" stayed, with no edge, after every message naming her
        was erased)."""
        out = []
        for other, rel, _w, forward in graph.neighbours(nid):
            if rel != _MENTIONS or not forward:
                continue
            orec = self.record(other)
            if orec is None or entity_of_node(orec["id"]) is None:
                continue
            if not any(r == _MENTIONS and not f and o != nid for o, r, _w2, f in graph.neighbours(other)):
                out.append(other)
        return out

    def _speakers_left(self, graph: MemoryGraph, session: int, erased: int) -> set[str]:
        """The speakers (first tag: name or role) of ``session``'s messages other than ``erased``."""
        out = set()
        for msg, rel, _w, forward in graph.neighbours(session):
            if rel == _DISCUSSED_IN and not forward and msg != erased:
                mrec = self.record(msg)
                if mrec is not None and mrec.get("tags"):
                    out.add(mrec["tags"][0])
        return out

    def replace_vector(self, ns: str, nid: int, vector: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Memory ``nid``'s stored vector and its index entry replaced by ``vector`` (float32,
        shape (dim,)), its sentence keys by ``keys`` (float32, shape (s, dim); None: none, so
        no key of a former wording outlives it): an updated memory, or a session node whose
        text an erase reworded (:attr:`reworded`)."""
        old = self.state.vectors(np.array([nid], np.int64), self.space(ns))[0]
        self.store.put_vector(self.txn, nid, vector)
        self.index_replace(ns, nid, vector, old)
        self.put_keys(nid, keys, replace=True)

    def put_keys(self, nid: int, keys: np.ndarray | None, *, replace: bool = False) -> None:
        """The sentence keys of memory ``nid`` (float32, shape (s, dim), unit rows; None: none),
        in the store. With ``replace``, instead of those it had (None deletes them), and after the
        commit the engine's kept keys of ``nid`` are dropped, so recall reads them again
        (:mod:`engramdb.state.key_cache`). A new memory's need no such step: no reader runs while
        a unit holds the engine's lock, so none has kept anything of a nid before its commit."""
        if keys is not None or replace:
            self.store.put_keys(self.txn, nid, keys)
        if replace:
            cache = self.state.key_cache
            self.after(lambda: cache.forget(nid))

    def hand_on_text(self, ns: str, digest: bytes, nid: int) -> None:
        """The deduplication key of a text (``digest``) that memory ``nid`` no longer holds (it is
        erased, or reworded by ``update``), when the key names it: handed on to the memory of
        ``ns`` stored last that holds the same text, so ``add`` of that text still finds it
        rather than storing it again; dropped when none does. The other holders are found among
        ``nid``'s nearest vectors (a text embeds the same each time; a caller's own vectors for
        equal texts may differ, and such a holder is then not found)."""
        store, txn = self.store, self.txn
        if store.lookup_text(txn, ns, digest) != nid:
            return
        heir = None
        sp = self.state.space(ns)
        if sp is not None and sp.index is not None and len(sp.index) > 1:
            vec = self.state.vectors(np.array([nid], np.int64), sp)[0]
            labels, _cos = sp.index.knn(vec, _HEIR_NEIGHBOURS)
            for other in labels.tolist():
                orec = None if other == nid else self.record(other)
                if (orec is not None and orec.get("chunk_of") is None and record_text_digest(orec) == digest
                        and (heir is None or other > heir)):
                    heir = other
        if heir is None:
            store.drop_text(txn, ns, digest, nid)
        else:
            store.put_text(txn, ns, digest, heir)

    def _unreview(self, ns: str, rec: dict, older: dict[int, dict]) -> None:
        """Outcome memory ``rec`` is erased: when it is its decision's latest outcome, the
        decision takes the outcome it superseded (among ``older``, the records it supersedes)
        back, or none when it was the first; calibration then counts that one."""
        dec_nid = self.lookup(ns, rec["outcome_of"])
        drec = None if dec_nid is None else self.record(dec_nid)
        if drec is None or drec.get("outcome_id") != rec["id"]:
            return
        prev = next((r for r in older.values() if r.get("outcome_of") == rec["outcome_of"]), None)
        for key in ("outcome", "outcome_at", "outcome_id", "outcome_note"):
            drec.pop(key, None)
        if prev is not None:
            drec.update(outcome=prev["outcome"], outcome_at=prev["created_at"], outcome_id=prev["id"])
            if prev.get("outcome_note") is not None:
                drec["outcome_note"] = prev["outcome_note"]
        self.put_record(dec_nid, drec)

    def _retire_no_earlier(self, nid: int, rec: dict, graph: MemoryGraph) -> None:
        """The memories that memory ``nid`` (``rec``, current again after an erase) supersedes
        were retired no earlier than it was recorded: a late report re-pointed to it kept the
        retirement the erased memory gave (the store believed the erased one meanwhile), which
        would leave ``as_of`` nothing to answer between the two times."""
        at = float(rec["recorded_at"])
        for other, rel, _w, forward in graph.neighbours(nid):
            if rel != _SUPERSEDES or not forward:
                continue
            orec = self.record(other)
            if (orec is not None and orec.get("superseded_by") == rec["id"]
                    and orec.get("retired_at") is not None and float(orec["retired_at"]) < at):
                orec["retired_at"] = at
                self.put_record(other, orec)

    def derived(self, nid: int, rec: dict) -> list[int]:
        """The memories the engine wrote from memory ``nid``'s text (``rec`` its record): session
        summaries ``extracted_from`` it (ids ``sum:...``), promoted facts it is ``evidence_for``
        (ids ``fact:...``: a caller's own memory may carry the tag ``fact``, never the id form),
        and a decision's outcome memories (``caused_by`` it,
        ``outcome_of`` its id). :meth:`erase` erases them with it."""
        out = []
        for other, rel, _w, forward in self._graph_after.neighbours(nid):
            rule = _DERIVED.get(rel)   # (edge points from nid, id form of the derived node or None)
            if rule is None or forward != rule[0] or (orec := self.record(other)) is None:
                continue
            prefix = rule[1]
            if orec["id"].startswith(prefix) if prefix else orec.get("outcome_of") == rec["id"]:
                out.append(other)
        return out

    def erase_namespace(self, name: str) -> dict[str, int]:
        """Erase namespace ``name`` whole: every record (any state), vector, id, deduplication key,
        slot table entry and edge of it, its counters in the ``namespaces`` meta, its part of
        every audit ledger entry (ids and dynamics details; the entries and their hashes stay,
        see :func:`engramdb.store.ledger.redact_namespace`; its dynamics log is replaced by one
        ``drop_namespace`` entry with the counts) and its hnswlib index files. Nothing is handed
        on (edges never cross namespaces). The keyword and column snapshots, which also cache other namespaces, are cleared in this transaction
        (rebuilt from the records if the process dies before the next flush) and written anew
        by the next flush; the CSR snapshot is rewritten in it. After the commit the namespace
        is gone from the engine: its :class:`Namespace`, postings, index and column code.

        The freed LMDB pages still hold the erased bytes until the file is compacted
        (``LmdbStore.compact``, which ``Engram.drop_namespace`` runs after this unit).

        Returns
        -------
        dict
            ``{"memories": m, "pieces": p}`` (int), counted apart as :meth:`Engram.stats` does:
            a memory stored as pieces (a long text, a split message) is one memory, and
            ``pieces`` counts its pieces after the first; records in any state.
        """
        from ..slots import drop_slot_table

        store, txn, state = self.store, self.txn, self.state
        sp = state.space(name)
        nids = set(store.delete_namespace_rows(txn, name))
        if sp is not None:   # live in the columns without an id mapping: erased all the same
            stray = set(np.flatnonzero(state.cols.in_namespace(sp.code)).tolist()) - nids
            store.delete_nids(txn, sorted(stray))
            nids |= stray
        c = state.cols   # a later piece's head is its memory's first piece (Columns.head)
        pieces = sum(1 for nid in nids if nid < c.n and int(c.head[nid]) != nid)
        counts = {"memories": len(nids) - pieces, "pieces": pieces}
        if nids:
            store.delete_edges_touching(txn, nids)
            src, tgt, rel, w = self.graph().edges()
            gone = np.isin(src, list(nids)) | np.isin(tgt, list(nids))
            self._graph_after = MemoryGraph()   # the CSR snapshot is rewritten without them
            self._graph_after.upsert_many(src[~gone], tgt[~gone], rel[~gone], w[~gone])
        drop_slot_table(store, txn, name)
        for key, entry in store.meta_items(txn, LOG_PREFIX):   # left by a store without a ledger
            if isinstance(entry, dict) and entry.get("namespace") == name:
                store.delete_meta(txn, key)
        self.digest.fold(b"N", name.encode(), _U32.pack(len(nids)))
        self._erased_spaces[name] = len(nids)   # its ledger parts are erased at the append
        last = store.get_meta(txn, "rescore_last")
        if isinstance(last, dict) and last.get("namespace") == name:
            store.delete_meta(txn, "rescore_last")
        store.clear_arrays(txn, "kw")
        store.clear_arrays(txn, "cols")
        self._namespace_meta(name)
        self._meta.pop(name, None)
        self._records_changed = True
        self.log([{"action": DROP_NAMESPACE, "namespace": name, "id": None, "count": counts["memories"],
                   "pieces": counts["pieces"]}])
        state.remove_index_files(name)   # caches: rebuilt from LMDB if this unit aborts
        if sp is not None:
            self._undo.append(lambda: setattr(sp, "index_dirty", True))

        def apply() -> None:
            c = state.cols
            for nid in nids:
                if nid < c.n:
                    c.kill(nid)
                state.subject_hints.forget(nid)
            state.remove_space(name)
            state.kw_gen = state.cols_gen = -1   # both snapshots were cleared: flush writes them
        self.after(apply)
        return counts

    def put_setting(self, name: str, value: Any) -> None:
        """Write the meta entry ``name`` as part of this change (a censor rule): folded into the
        ledger digest (tag ``M``), so the change gets its entry."""
        self.store.put_meta(self.txn, name, value)
        self.digest.fold(b"M", name.encode(), _ledger.canonical(value))

    def delete_setting(self, name: str) -> None:
        """Delete the meta entry ``name`` as part of this change (tag ``M`` with no value)."""
        self.store.delete_meta(self.txn, name)
        self.digest.fold(b"M", name.encode())

    def log(self, entries: list[dict[str, Any]]) -> None:
        """Append entries (each with at least ``action``, ``namespace``, ``id``) to the dynamics
        log in this transaction; each gets ``seq`` and ``at`` (this write's time)."""
        self._log.extend(entries)

    # ------------------------------------------------------------------ commit
    def _namespace_meta(self, ns: str) -> dict:
        if self._meta is None:
            self._meta = {name: dict(sp.meta) for name, sp in self.state.spaces.items()}
        return self._meta.setdefault(ns, {"vgen": 0, "count": 0})

    def _finish_in_txn(self) -> None:
        """The last writes of the transaction: ledger entry, counters, generation (once), snapshot."""
        store, txn, state = self.store, self.txn, self.state
        self._append_ledger()
        if self._delta_seq != state.delta_seq:
            store.put_meta(txn, "delta_seq", self._delta_seq)
        if self._next_nid != state.next_nid:
            store.put_meta(txn, "next_nid", self._next_nid)
        if self._meta is not None:
            store.put_meta(txn, "namespaces", self._meta)
        if self._records_changed:
            store.put_meta(txn, "mem_gen", state.mem_gen + 1)
        if self._graph_after is not None:   # erased nodes: the snapshot is rewritten without them
            csr = self._graph_after.csr(self._next_nid)
            store.save_snapshot(txn, csr.arrays(), {"n_nodes": csr.n_nodes, "n_edges": len(self._graph_after),
                                                    "schema": SCHEMA_VERSION})

    def _append_ledger(self) -> None:
        """The ledger entry of this unit, when it changed anything (see :mod:`engramdb.store.ledger`):
        the ids it touched and its dynamics details grouped by namespace, the digest, the actor."""
        store, txn, state = self.store, self.txn, self.state
        if not (self.digest.n or self._log or self._erased_spaces):
            return
        parts: dict[str, tuple[list[str], int, list[dict]]] = {}

        def part(ns: str | None) -> tuple[list[str], int, list[dict]]:
            key = ns if isinstance(ns, str) else ""
            if key not in parts:
                parts[key] = ([], 0, [])
            return parts[key]

        ends = self._edge_ends()
        if ends:
            names = {code: name for name, code in state.codes.items()}
            for nid in ends:
                self._touched[nid] = self._who(nid, names)
        counts: dict[str, int] = {}
        for ns, ext_id in self._touched.values():
            ids = part(ns)[0]
            counts[ns] = counts.get(ns, 0) + 1
            if len(ids) < _ledger.MAX_IDS:
                ids.append(ext_id)
        for ns, n in self._erased_spaces.items():
            counts[ns] = counts.get(ns, 0) + n
            part(ns)
        if self._log:
            seq = store.get_meta(txn, "dynlog_seq", 0)
            for e in self._log:
                seq += 1
                part(e.get("namespace"))[2].append({"seq": seq, "at": self.now, **e})
            store.put_meta(txn, "dynlog_seq", seq)
            self.digest.fold(b"L", _ledger.canonical([d for p in parts.values() for d in p[2]]))
        parts = {ns: (ids, counts.get(ns, 0), details) for ns, (ids, _n, details) in parts.items()}
        for ns in self._erased_spaces:   # the entries before this one lose their part of it
            _ledger.redact_namespace(store, txn, ns, _ledger.next_seq(store, txn))
        _ledger.append(store, txn, time=clock_now(), actor=state.actor, verb=self.verb,
                       digest=self.digest.hexdigest(), parts=parts)

    def _edge_ends(self) -> list[int]:
        ends: dict[int, None] = {}
        for src, tgt, _rel, _w in self._new_edges:
            ends[src] = ends[tgt] = None
        return [nid for nid in ends if nid not in self._touched]

    def _who(self, nid: int, names: dict[int, str]) -> tuple[str, str]:
        """(namespace, id) of a stored memory at an end of a new edge (columns, else its record);
        ``names`` maps column codes to namespace names."""
        cols = self.state.cols
        if nid < cols.n and cols.ext_ids[nid] is not None:
            name = names.get(int(cols.ns[nid]))
            if name is not None:
                return name, cols.ext_ids[nid]
        rec = self.record(nid)
        return (rec["namespace"], rec["id"]) if rec is not None else ("", f"nid:{nid}")

    def _apply(self) -> None:
        """Install the committed changes in the caches."""
        state = self.state
        if self._records_changed:
            state.mem_gen += 1
        state.next_nid = self._next_nid
        state.cols.ensure(self._next_nid)
        state.delta_seq = self._delta_seq
        state.spaces.update(self._new_spaces)
        if self._meta is not None:
            for name, m in self._meta.items():
                self.space(name).meta = m
        for fn in self._after:
            fn()
        if self._graph_after is not None:
            state.graph = self._graph_after
            state.delta_size = 0
        elif self._new_edges:
            state.graph.upsert_many(*_columns(self._new_edges))
            state.delta_size += len(self._new_edges)
        if self._graph_after is not None or self._new_edges:
            for sp in state.spaces.values():
                sp.density = None

    def _rollback(self) -> None:
        for job in self._inserting:   # an insertion still running finishes before it is undone
            job.join()
        self._inserting = []
        for fn in reversed(self._undo):
            fn()


@contextmanager
def write_unit(state: EngineState, what: str, now: float, *, verb: str,
               at: float | None = None) -> Iterator[WriteUnit]:
    """Open a :class:`WriteUnit` for one mutation (see the module docstring), holding the engine's
    lock (``state.lock``) for writing from the transaction to the cache changes.

    Parameters
    ----------
    state : EngineState
    what : str
        What the write does, for error messages ("adding memories").
    now : float
        Record time of the write, Unix seconds (:attr:`WriteUnit.now`).
    verb : str
        The engine verb, for the audit ledger entry ("add", "forget", "rescore", ...); required,
        so that no mutation goes unledgered.
    at : float, optional
        Time the write's dynamics are computed at, Unix seconds (:attr:`WriteUnit.at`); ``now``
        when omitted.

    Raises
    ------
    StoreLockedError
        Another process wrote to the store behind this engine's caches.
    MapGrownError
        The map was full and has grown: nothing was written, the caches are unchanged; the
        engine's guard runs the verb again.
    StoreFullError, StoreError
    ValueError
        ``verb`` is not in :data:`engramdb.store.ledger.VERBS`.
    """
    if verb not in _ledger.VERBS:   # a programming error: ledger(verb=...) could never find it
        raise ValueError(f"write_unit: {verb!r} is no ledger verb (store.ledger.VERBS)")
    lock = getattr(state, "lock", None)   # the engine's: readers wait only for this block
    with lock.write() if lock is not None else nullcontext():
        state.reload_if_stale()   # never write from caches that miss a commit (the guard reloads first,
        unit = WriteUnit(state, now, verb, at)   # unless an interrupt left this thread holding the lock)
        try:
            with state.store.write(what) as txn:
                unit.txn = txn
                state.check_not_changed_elsewhere(txn)
                yield unit
                unit.index_join()
                unit._finish_in_txn()
        except BaseException as exc:
            unit._rollback()
            if not isinstance(exc, Exception):   # an interrupt may land after the commit itself
                state.stale = True
            raise
        unit.txn = None
        try:
            unit._apply()
            if state.delta_size >= state.config.store.snapshot_every:
                retries_map_growth(state.save_graph_snapshot)()
        except BaseException:
            # the commit stands, the caches missed part of it: rebuilt from the store before the
            # engine's next call reads or saves them (EngineState.reload_if_stale)
            state.stale = True
            raise


class _Insertion:
    """One :meth:`HnswIndex.add` running in a worker thread (hnswlib releases the GIL)."""

    __slots__ = ("_thread", "_error")

    def __init__(self, index, vectors: np.ndarray, nids: np.ndarray):
        self._error: BaseException | None = None

        def run() -> None:
            try:
                index.add(vectors, nids)
            except BaseException as exc:   # handed to join(), in the writer's thread
                self._error = exc
        self._thread = threading.Thread(target=run, name="engramdb-index-add", daemon=True)
        self._thread.start()

    def join(self) -> BaseException | None:
        """Wait for the insertion; the exception it raised, or None."""
        self._thread.join()
        return self._error


_SUPERSEDES = Relation.SUPERSEDES.code
_DISCUSSED_IN = Relation.DISCUSSED_IN.code
_MENTIONS = Relation.MENTIONS.code
#: Nearest vectors searched for another holder of an erased or reworded memory's text.
_HEIR_NEIGHBOURS = 16
#: Edges to what the engine wrote from a memory's text (WriteUnit.derived): relation -> (the
#: edge points from the memory, the derived node's id form (validate.RESERVED_IDS: no caller's
#: memory takes it, whatever its tags); None: a decision's outcome memory)
_DERIVED = {Relation.EXTRACTED_FROM.code: (False, "sum:"), Relation.EVIDENCE_FOR.code: (True, "fact:"),
            Relation.CAUSED_BY.code: (False, None)}
_U32 = struct.Struct(">I")
_EDGE = struct.Struct(">IIBfd")


def _columns(rows: list[tuple[int, int, int, float]]):
    arr = np.array(rows, dtype=np.float64).reshape(-1, 4)
    return (arr[:, 0].astype(np.uint32), arr[:, 1].astype(np.uint32), arr[:, 2].astype(np.uint8),
            arr[:, 3].astype(np.float32))
