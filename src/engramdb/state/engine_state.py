"""The engine's in-memory state: columns, graph, namespaces and counters over one LMDB store.

:class:`EngineState` loads itself from LMDB (fast paths: the column snapshot, the CSR snapshot
plus the edge delta, the keyword snapshot, the hnswlib files; each rebuilt from the records when
missing, damaged or older than the store), flushes what changed, and answers the read-side
questions every part of the engine asks (a nid by id, current salience, density, a namespace's
newest event time, supersession chains). It is the narrow protocol that recall, query,
dynamics and export work on. Only a committed :class:`~engramdb.write.WriteUnit` changes it.
"""
from __future__ import annotations

import difflib
import hashlib
import os
import threading
import time
from typing import Any, Callable, Iterable

import numpy as np

from ..batch_plan import head_nid, is_block
from ..censor import GEN_KEY as _CENSOR_GEN, RULE_PREFIX as _CENSOR_PREFIX, CensorState
from ..config import EngramConfig
from ..errors import (IndexStaleError, InvalidInputError, MemoryNotFoundError, NamespaceError, StaleSnapshotWarning,
                      StoreCorruptedError, StoreLockedError, warn_caller)
from ..graph.csr import SNAPSHOT_DTYPES, CSRGraph, MemoryGraph
from ..index.hnsw import HnswIndex
from ..index.keyword import (PACKED_DTYPES, PACKED_FORWARD_DTYPES, TOKENIZER_VERSION, KeywordIndex, pack_indexes,
                             term_counts,
                             unpack_indexes)
from ..kernels import registry
from ..store.checks import columns_snapshot_ok
from ..store.ledger import DEFAULT_ACTOR, erased_with
from ..store.lmdb_store import SCHEMA_VERSION, LmdbStore, shred
from ..slots import SLOT_PREFIX, canonical_subject
from ..types import _STATE_CODES, MemoryState, Relation
from ..validate import utc_text
from .columns import TEXT_RULES, Columns
from .namespace import Namespace
from .key_cache import KeyCache
from .record_cache import RecordCache
from .subject_hints import SubjectHints

__all__ = ["EngineState"]

_SUPERSEDES = Relation.SUPERSEDES.code
#: Tag of a keyword snapshot that holds the forward index too (meta ``forward``): written with
#: the postings in one transaction, so a snapshot written since by an engramdb that does not save
#: it (whose meta lacks the tag) never pairs its postings with a stale forward index.
KEYWORD_FORWARD_VERSION = 1
#: What consolidation keeps similar-pair lists for, one file each (:meth:`EngineState.pairs_path`).
PAIRS_PURPOSES = ("merge", "facts")


#: A memory whose event time is more than this after its record time (seconds) is an event
#: to come (a planned trip): it does not set the clock of relative time cues (``cue_clock``);
#: one recorded within this of its event time was written as it happened.
FUTURE_EVENT_S = 86400.0


class EngineState:
    """Everything an open store keeps in memory (see the module docstring).

    Parameters
    ----------
    store : LmdbStore
        The open LMDB environment (source of truth).
    dim : int
        Embedding dimension of the store.
    config : EngramConfig
    readonly : bool
        Opened read-only: :meth:`flush` writes nothing.

    Attributes
    ----------
    cols : Columns
    graph : MemoryGraph
    spaces : dict of str -> Namespace
        Every namespace that ever held a memory (or has keyword postings).
    next_nid : int
        The nid of the next new memory.
    mem_gen : int
        Record generation: bumped once by every write unit that changed a record.
    delta_seq : int
        Sequence number of the last edge written to the delta.
    delta_size : int
        Edges in the delta since the last CSR snapshot.
    scratch : dict
        Reusable work arrays of the recall stages (keyed by their module), one dict per
        thread: concurrent readers never share a work array.
    subject_hints : SubjectHints
        What conflict detection knows of stored memories' subjects without reading their records
        (:mod:`engramdb.state.subject_hints`); set and dropped only after commits.
    record_cache : RecordCache
        Decoded records of recalled memories for the current ``mem_gen``
        (:mod:`engramdb.state.record_cache`); emptied by the first read after a commit.
    key_cache : KeyCache
        The sentence keys recall has read (:mod:`engramdb.state.key_cache`), engine-wide; an
        entry is dropped after a commit that changes it.
    censor : CensorState
        The censor rules and their verdict on each memory (:mod:`engramdb.censor`).
    lock : RWLock or None
        The engine's lock (:mod:`engramdb.concurrency`), set by the engine; each write unit
        holds it for writing, so readers wait only for commits.
    """

    def __init__(self, store: LmdbStore, *, dim: int, config: EngramConfig, readonly: bool = False):
        self.store = store
        self.dim = int(dim)
        self.config = config
        self.readonly = readonly
        self.index_dir = os.path.join(store.path, "index")
        self.cols = Columns()
        self.subject_hints = SubjectHints()
        self.graph = MemoryGraph()
        self.spaces: dict[str, Namespace] = {}
        self.codes: dict[str, int] = {}
        self.next_nid = 0
        self.mem_gen = 0
        self.delta_seq = 0
        self.delta_size = 0
        self.cols_gen = -1
        self.kw_gen = -1
        self.kw_upgrade = False   # the keyword snapshot lacks the forward index: save it whole at flush
        self._local = threading.local()
        self.lock = None
        self.default_actor = DEFAULT_ACTOR
        self._rescore = registry.get("rescore_salience")
        self.censor = CensorState()
        self._recall_csrs: dict[tuple, tuple] = {}   # (hide_archived, as_of given) -> (key, csr, filtered csr): recall_csr
        # True when a write committed but its cache changes did not all run (an interrupt, or an
        # exception from a caller's callable, after the commit): the caches no longer match the
        # store, and are rebuilt from it before anything reads or persists them (reload_if_stale)
        self.stale = False
        started = time.perf_counter()
        self.load()
        if readonly and self.next_nid and self.outdated:
            warn_caller(StaleSnapshotWarning(
                f"engramdb: this read-only open rebuilt the {' and '.join(dict.fromkeys(self.outdated))} snapshot from "
                f"{self.next_nid} records in {time.perf_counter() - started:.1f} s and cannot save it (an older "
                "engramdb wrote it, or it is damaged); open the store writable once (engramdb.open(path)) so that "
                "later read-only opens skip this"))

    @property
    def scratch(self) -> dict[str, Any]:
        """This thread's work arrays of the recall stages (see the class docstring)."""
        try:
            return self._local.scratch
        except AttributeError:
            self._local.scratch = {}
            return self._local.scratch

    @property
    def actor(self) -> str:
        """Who this thread's writes are made by, for the audit ledger: the innermost
        ``Engram.acting_as`` block of this thread, else :attr:`default_actor`."""
        stack = getattr(self._local, "actors", None)
        return stack[-1] if stack else self.default_actor

    def push_actor(self, actor: str) -> None:
        """Make ``actor`` this thread's actor until :meth:`pop_actor`."""
        if getattr(self._local, "actors", None) is None:
            self._local.actors = []
        self._local.actors.append(actor)

    def pop_actor(self) -> None:
        self._local.actors.pop()

    # ------------------------------------------------------------------ namespaces
    def code(self, name: str) -> int:
        """The column code of namespace ``name`` (assigned on first use)."""
        return self.codes.setdefault(name, len(self.codes))

    def space(self, name: str) -> Namespace | None:
        """The :class:`Namespace` called ``name``, or None when it never held a memory."""
        return self.spaces.get(name)

    def new_space(self, name: str) -> Namespace:
        """A fresh, empty :class:`Namespace` (not yet registered; a write unit installs it)."""
        return Namespace(name, self.code(name), keyword=KeywordIndex())

    def names(self) -> list[str]:
        """Namespaces holding at least one live memory, sorted."""
        return sorted(name for name, sp in self.spaces.items() if sp.count > 0)

    def held_text(self) -> str:
        """The namespaces holding memories, for a message about an empty one: "the store's
        namespaces: 'a', 'b'" (the first 20), or "the store holds no memories yet"."""
        held = self.names()
        if not held:
            return "the store holds no memories yet"
        return f"the store's namespaces: {', '.join(map(repr, held[:20]))}{' ...' if len(held) > 20 else ''}"

    def unknown_namespace(self, name: str) -> NamespaceError:
        """The error for ``name`` when the store holds no such namespace: it names the closest
        existing ones (``difflib.get_close_matches``), or all of them when there are few."""
        known = sorted(self.spaces)
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        if close:
            hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
        elif not known:
            hint = "the store holds no namespace yet"
        elif len(known) <= 5:
            hint = "the store holds " + ", ".join(repr(k) for k in known)
        else:
            hint = f"the store holds {len(known)} namespaces (see namespaces())"
        return NamespaceError(f"no namespace {name!r}; {hint}", namespace=name, suggestions=tuple(close))

    def remove_space(self, name: str) -> None:
        """Forget namespace ``name`` entirely (after its memories were erased): its
        :class:`Namespace` and its code. The remaining codes are renumbered densely (the column
        arrays follow), so the name is not kept in the column snapshot either."""
        self.spaces.pop(name, None)
        self.key_cache.clear()   # (its memories' sentence keys among the kept ones)
        if name not in self.codes:
            return
        dropped = self.codes[name]
        self.cols.ensure(self.cols.n)   # writable columns
        remap = np.zeros(len(self.codes), np.int32)
        codes: dict[str, int] = {}
        for other, old in sorted(self.codes.items(), key=lambda kv: kv[1]):
            if other != name:
                remap[old] = codes[other] = len(codes)
        remap[dropped] = 0   # only erased nids carry it; alive is False for every one of them
        n = self.cols.n
        self.cols.ns[:n] = remap[self.cols.ns[:n]]
        self.codes = codes
        for other, sp in self.spaces.items():
            sp.code = codes[other]

    def new_index(self) -> HnswIndex:
        c = self.config.index
        return HnswIndex(self.dim, m=c.m, ef_construction=c.ef_construction, ef_search=c.ef_search,
                         capacity=c.initial_capacity)

    def index_path(self, name: str) -> str:
        """File of namespace ``name``'s hnswlib index under ``DIR/index/``."""
        stem = name.encode().hex()
        if len(stem) > 128:   # file names stop at 255 bytes: long namespaces go by their hash
            stem = "h" + hashlib.sha256(name.encode()).hexdigest()
        return os.path.join(self.index_dir, stem + ".hnsw")

    def pairs_path(self, name: str, purpose: str) -> str:
        """File of namespace ``name``'s similar-pair lists for consolidation's ``purpose``
        (one of :data:`PAIRS_PURPOSES`; :mod:`engramdb.dynamics.pairs`), beside its index."""
        if purpose not in PAIRS_PURPOSES:
            raise ValueError(f"purpose: expected one of {PAIRS_PURPOSES}, got {purpose!r}")
        return f"{self.index_path(name)}.pairs-{purpose}"

    def remove_index_files(self, name: str) -> None:
        """Overwrite with zeros and remove namespace ``name``'s hnswlib index file, its sidecar and
        any temporary file a save left behind (``HnswIndex.save``), and its similar-pair lists."""
        path = self.index_path(name)
        for suffix in HnswIndex.FILE_SUFFIXES:
            shred(path + suffix)
        for purpose in PAIRS_PURPOSES:
            shred(self.pairs_path(name, purpose))
            shred(self.pairs_path(name, purpose) + ".tmp")

    # ------------------------------------------------------------------ loading
    def reload_if_stale(self) -> None:
        """Rebuild every cache from LMDB when :attr:`stale` (a committed write whose cache
        changes were cut short): what was committed is what the engine then holds, and no stale
        cache is persisted over it (the graph snapshot would drop committed edges from the
        delta, the index files committed vectors). The caller holds the engine's lock alone."""
        if not self.stale:
            return
        self.settle_loads()
        self.load()
        self.stale = False

    def load(self) -> None:
        """(Re)build every cache from LMDB, using the snapshots that match the records."""
        store = self.store
        self.cols = Columns()
        self.subject_hints = SubjectHints()
        self.graph = MemoryGraph()
        self.spaces, self.codes = {}, {}
        self.record_cache = RecordCache()
        self.key_cache = KeyCache()
        #: The snapshots this load rebuilt because an older engramdb wrote them, or they are
        #: damaged ("column", "keyword"; not one a writer has yet to save: a writable open fixes these)
        self.outdated: list[str] = []
        with store.read("loading the store") as txn:
            self.next_nid = _counter(store.get_meta(txn, "next_nid", 0), "next_nid", MAX_NODES)
            self.delta_seq = _counter(store.get_meta(txn, "delta_seq", 0), "delta_seq")
            self.mem_gen = _counter(store.get_meta(txn, "mem_gen", 0), "mem_gen")
            ns_meta = store.get_meta(txn, "namespaces", {})
            try:
                cols = store.load_arrays(txn, "cols", Columns.snapshot_dtypes(), copy=False)
            except StoreCorruptedError:   # damaged, or from before a column was added: decode records
                cols = None
                self.outdated.append("column")
            from_snapshot = False
            rules = TEXT_RULES if cols is None else cols[1].get("text_rules", 1)
            if not isinstance(rules, int) or isinstance(rules, bool) or not 1 <= rules <= TEXT_RULES:
                cols, rules = None, TEXT_RULES   # (rules of a newer engramdb, or damaged: decode the records)
                self.outdated.append("column")
            if (cols is not None and cols[1].get("mem_gen") == self.mem_gen and len(cols[0]["ns"]) == self.next_nid
                    and columns_snapshot_ok(cols[0], self.next_nid)):
                try:
                    names = self.cols.load_snapshot(cols[0])   # fast path: no record decoding
                    for name in names:
                        self.code(name)
                    # each namespace holding live memories must be one the store knows (a
                    # damaged name list would put them in a namespace no recall asks for)
                    live = np.unique(self.cols.ns[: self.next_nid][self.cols.alive[: self.next_nid]])
                    from_snapshot = all(names[int(c)] in ns_meta for c in live.tolist())
                except StoreCorruptedError:   # a damaged array: the records below instead
                    pass
                if not from_snapshot:
                    self.outdated.append("column")
                    self.cols, self.codes = Columns(), {}
            if from_snapshot and rules < TEXT_RULES:   # saved under older text rules: their steps
                self.cols.upgrade_text_columns(rules, store.iter_records(txn))
                self.outdated.append("column")
                self.cols_gen = -1   # (saved under the current rules at the next flush)
            elif from_snapshot:
                self.cols_gen = self.mem_gen
            else:   # no snapshot, a damaged one, or records changed after it (a crash before close)
                self.cols.ensure(self.next_nid)
                for nid, rec in store.iter_records(txn):
                    head = head_nid(rec, nid, lambda ns, ext_id: store.lookup_id(txn, ns, ext_id))
                    self.cols.set_record(nid, rec, self.code(rec["namespace"]), head)
                self.cols_gen = -1
            try:
                snap = store.load_snapshot(txn, SNAPSHOT_DTYPES)
            except StoreCorruptedError:   # a damaged snapshot: rebuild the graph from the edges
                snap = None
            if snap is not None:
                self.graph.set_csr(CSRGraph(**snap[0]))
            else:   # none (a new store, or its meta lost) or a damaged one: every stored edge
                self.graph.upsert_many(*store.read_edges(txn))
            delta = store.read_delta(txn)
            if len(delta[0]):
                self.graph.upsert_many(*delta)
            self.delta_size = store.delta_size(txn)
            keyword = self._load_keyword(txn)
            self.censor.load(store.iter_meta(txn, _CENSOR_PREFIX), store.get_meta(txn, _CENSOR_GEN, 0))
            self.censor.rebuild(self.cols, store.iter_records(txn) if self.censor.active else ())
            # the indexes in the same transaction: a vector rebuilt from the store belongs to a
            # memory of this view (a writer process may erase it meanwhile; this view keeps it)
            for name in list(ns_meta) + [n for n in keyword if n not in ns_meta]:
                sp = Namespace(name, self.code(name), keyword=keyword.get(name) or KeywordIndex())
                sp.keyword_dirty = self.kw_gen != self.mem_gen
                if name in ns_meta:
                    sp.meta = dict(ns_meta[name])
                    sp.index = self._load_or_rebuild_index(sp, txn)
                self.spaces[name] = sp

    def _load_keyword(self, txn) -> dict[str, KeywordIndex]:
        """The keyword snapshot when it matches the records, else postings rebuilt from them.

        The snapshot's arrays are used without a copy (read-only views; an index copies one
        before writing into it). A snapshot without the forward index (written by an earlier
        engramdb, or one whose forward arrays are missing) rebuilds it by a sort of the postings
        and is saved whole at the next flush (:attr:`kw_upgrade`), so that later opens skip it.
        """
        store = self.store
        try:
            saved = store.load_arrays(txn, "kw", PACKED_DTYPES, copy=False)
        except StoreCorruptedError:   # a damaged snapshot is a cache: rebuilt from the records below
            saved = None
            self.outdated.append("keyword")
        if saved is not None and saved[1].get("tokenizer", 1) != TOKENIZER_VERSION:
            self.outdated.append("keyword")   # (an older engramdb's words)
        if (saved is not None and saved[1].get("mem_gen") == self.mem_gen
                and saved[1].get("tokenizer", 1) == TOKENIZER_VERSION):
            arrays = saved[0]
            forward = None
            if saved[1].get("forward") == KEYWORD_FORWARD_VERSION:
                try:
                    forward = store.load_arrays(txn, "kw", PACKED_FORWARD_DTYPES, copy=False)
                except StoreCorruptedError:   # an array of it is missing: rebuild it
                    forward = None
            if forward is not None:
                arrays = {**arrays, **forward[0]}
            try:
                out = unpack_indexes(arrays, list(saved[1].get("namespaces", [])))
            except (ValueError, StoreCorruptedError):   # arrays that do not fit together: rebuilt
                out = None
                self.outdated.append("keyword")
            if out is not None:
                self.kw_gen = self.mem_gen
                self.kw_upgrade = forward is None and bool(out)
                return out
        docs: dict[str, list[tuple[int, str]]] = {}   # a crash after writes, or a new tokenizer: rebuild
        whole: dict[tuple[str, str], str] = {}   # (namespace, id) -> text of a message split into blocks
        blocks: list[tuple[int, str, str]] = []   # (nid, namespace, its message's id)
        for nid, rec in self.store.iter_records(txn):
            docs.setdefault(rec["namespace"], []).append((nid, rec["text"]))
            if rec.get("blocks"):
                whole[rec["namespace"], rec["id"]] = rec["text"]
            elif is_block(rec):
                blocks.append((nid, rec["namespace"], rec["chunk_of"]))
        # a block's length for BM25 is its message's (WriteUnit._block_length)
        lengths: dict[str, dict[int, int]] = {}
        for nid, ns, of in blocks:
            if (ns, of) in whole:
                lengths.setdefault(ns, {})[nid] = term_counts(whole[ns, of])[1]
        self.kw_gen = -1
        return {name: KeywordIndex.build(pairs, lengths=lengths.get(name)) for name, pairs in docs.items()}

    def _load_or_rebuild_index(self, sp: Namespace, txn) -> HnswIndex:
        """Namespace ``sp``'s saved index when it matches the records, else one rebuilt from the
        vectors that ``txn`` (the loading read transaction) sees."""
        nids = np.flatnonzero(self.cols.in_namespace(sp.code))
        try:
            return HnswIndex.load(self.index_path(sp.name), dim=self.dim, generation=sp.meta["vgen"],
                                  count=sp.meta["count"], ef_search=self.config.index.ef_search, labels=nids,
                                  fetch=self.stored_vectors, new=self.new_index,
                                  background_bytes=self.config.index.background_load_bytes)
        except IndexStaleError:
            pass
        index = self.new_index()
        if len(nids):
            index.add(self.stored_vectors(nids, txn), nids)
        sp.index_dirty = True
        return index

    def wait_loaded(self) -> None:
        """Block until every background index load is done (``HnswIndex.load``)."""
        for sp in list(self.spaces.values()):
            if sp.index is not None:
                sp.index.wait_loaded()

    def settle_loads(self) -> None:
        """Before the store closes: wait for the background index loads that run; drop the ones
        never started (``HnswIndex.settle``)."""
        for sp in list(self.spaces.values()):
            if sp.index is not None:
                sp.index.settle()

    # ------------------------------------------------------------------ persistence
    def flush(self) -> None:
        """Save what changed since the last flush: the CSR snapshot (folding the edge delta), the
        column snapshot, the vector index files and the keyword snapshot. Each is a cache of
        LMDB; a crash before this loses none of the data."""
        if self.readonly:
            return
        self.reload_if_stale()   # never persist caches that miss a commit
        if self.delta_size:
            self.save_graph_snapshot()
        store = self.store
        if self.cols_gen != self.mem_gen:
            with store.write("saving the column snapshot") as txn:
                store.save_arrays(txn, "cols", self.cols.snapshot(list(self.codes)),
                                  {"mem_gen": self.mem_gen, "text_rules": TEXT_RULES})
            self.cols_gen = self.mem_gen
        os.makedirs(self.index_dir, mode=0o700, exist_ok=True)
        for name in sorted(self.spaces):
            sp = self.spaces[name]
            if sp.index_dirty and sp.index is not None:
                sp.index.save(self.index_path(name), sp.meta["vgen"])
            sp.index_dirty = False
        kw_dirty = any(sp.keyword_dirty for sp in self.spaces.values())
        if self.kw_gen != self.mem_gen or kw_dirty or self.kw_upgrade:
            meta = {"mem_gen": self.mem_gen, "tokenizer": TOKENIZER_VERSION, "forward": KEYWORD_FORWARD_VERSION}
            with store.write("saving the keyword index") as txn:
                if kw_dirty or self.kw_gen < 0 or self.kw_upgrade:
                    arrays, names = pack_indexes({n: sp.keyword for n, sp in self.spaces.items()})
                    store.save_arrays(txn, "kw", arrays, {**meta, "namespaces": names})
                else:   # postings unchanged (e.g. only salience moved): re-tag the snapshot
                    store.save_arrays(txn, "kw", {}, {**meta, "namespaces": sorted(self.spaces)})
            self.kw_gen = self.mem_gen
            self.kw_upgrade = False
            for sp in self.spaces.values():
                sp.keyword_dirty = False

    def save_graph_snapshot(self) -> None:
        """Persist the graph as the CSR snapshot and clear the edge delta (own transaction).
        Callers wrap it in :func:`~engramdb.concurrency.retries_map_growth`."""
        with self.store.write("saving the CSR snapshot") as txn:
            self.write_graph_snapshot(txn, self.graph)
        self.delta_size = 0

    def write_graph_snapshot(self, txn, graph: MemoryGraph) -> None:
        """Persist ``graph`` as the CSR snapshot (clearing the delta) in ``txn``."""
        csr = graph.csr(self.next_nid)
        self.store.save_snapshot(txn, csr.arrays(),
                                 {"n_nodes": csr.n_nodes, "n_edges": len(graph), "schema": SCHEMA_VERSION})

    def changed_elsewhere(self, txn) -> bool:
        """Whether another process committed since these caches were built (three meta reads)."""
        get = self.store.get_meta
        return (get(txn, "next_nid", 0) != self.next_nid or get(txn, "delta_seq", 0) != self.delta_seq
                or get(txn, "mem_gen", 0) != self.mem_gen or get(txn, _CENSOR_GEN, 0) != self.censor.gen)

    def recensor(self, added: Any = None) -> None:
        """Evaluate the censor rules on every record anew (after a rule was removed), or only the
        rule just ``added`` (a ``CensorRule`` already installed). Cut short (an interrupt, or a
        rule's callable raising past fail-closed), the verdicts are half made: the caches are
        marked :attr:`stale`, rebuilt before the engine's next call."""
        try:
            with self.store.read("evaluating censor rules") as txn:
                if added is not None:
                    self.censor.add_verdicts(self.cols, added, self.store.iter_records(txn))
                else:
                    self.censor.rebuild(self.cols, self.store.iter_records(txn) if self.censor.active else ())
        except BaseException:
            self.stale = True
            raise

    def check_not_changed_elsewhere(self, txn) -> None:
        """Refuse to write over changes another process made behind these caches.

        Raises
        ------
        StoreLockedError
        """
        if self.changed_elsewhere(txn):
            raise StoreLockedError(
                "the store was changed by another process since it was opened; engramdb allows one "
                "writer per store: close the other writer and reopen"
            )

    # ------------------------------------------------------------------ reads
    def lookup(self, ns: str, ext_id: str, txn=None) -> int:
        """The nid of memory ``ext_id`` in namespace ``ns``.

        Raises
        ------
        MemoryNotFoundError
        """
        if txn is None:
            with self.store.read() as t:
                nid = self.store.lookup_id(t, ns, ext_id)
        else:
            nid = self.store.lookup_id(txn, ns, ext_id)
        if nid is None:   # a namespace that holds nothing: say so, with the closest names (a typo)
            hint = str(self.unknown_namespace(ns)) if self.space(ns) is None else ""
            raise MemoryNotFoundError(f"no memory {ext_id!r} in namespace {ns!r}{self._erased(ns, ext_id, txn)}",
                                      namespace_hint=hint)
        return nid

    def _erased(self, ns: str, ext_id: str, txn=None) -> str:
        """What the ledger says of an erased id, for a lookup's error: "; it was erased at ... with
        's1:1'" (a hard forget erases the summaries made from a turn with it: a loop erasing every
        hit of one recall met them gone), else "". Read in ``txn`` when given."""
        if txn is None:
            with self.store.read() as t:
                got = erased_with(self.store, t, ns, ext_id)
        else:
            got = erased_with(self.store, txn, ns, ext_id)
        if got is None:
            return ""
        at, seq, others = got
        with_ = f" with {', '.join(repr(i) for i in others[:5])}{' ...' if len(others) > 5 else ''}" if others else ""
        return f"; it was erased at {utc_text(at)} (ledger entry {seq}){with_}"

    def memory_lookup(self, ns: str, ext_id: str, verb: str, txn=None) -> int:
        """:meth:`lookup` for a verb that changes a memory: a later piece of a text stored as
        pieces (``Columns.head``) is refused, since the memory lives and dies whole.

        Raises
        ------
        MemoryNotFoundError
        InvalidInputError
            ``ext_id`` names a later piece.
        """
        nid = self.lookup(ns, ext_id, txn)
        head = int(self.cols.head[nid]) if nid < self.cols.n else nid
        if head != nid:
            memory = self.cols.ext_ids[head]
            raise InvalidInputError(f"{ext_id!r} is a piece of memory {memory!r} (a text stored as pieces is "
                                    f"one memory); {verb} {memory!r} instead")
        return nid

    def piece_reader(self, txn, ns: str) -> Callable[[str], dict | None]:
        """``read(id)``: the record of memory ``id`` of namespace ``ns`` in the open read
        transaction ``txn``, or None (how a long text's pieces are read back,
        :func:`engramdb.batch_plan.whole_record`). A piece that a censor rule hides raises
        :class:`MemoryBlockedError`: a memory with a hidden piece is hidden whole."""
        def read(ext_id: str) -> dict | None:
            if self.censor.active:
                self.censor.check_read(ns, ext_id)
            nid = self.store.lookup_id(txn, ns, ext_id)
            return None if nid is None else self.store.get_record(txn, nid)
        return read

    def records(self, nids: Iterable[int], what: str = "reading memories") -> list[dict | None]:
        """Stored records of ``nids`` (None for an erased nid), in one read transaction."""
        with self.store.read(what) as txn:
            return [self.store.get_record(txn, int(n)) for n in nids]

    def vectors(self, nids: np.ndarray, space: Namespace | None = None) -> np.ndarray:
        """Unit vectors of ``nids`` (float32, shape (len(nids), dim)): from the vector matrix of
        ``space`` (their namespace) when given and it holds them all, else from LMDB."""
        if space is not None and space.index is not None and len(nids):
            try:
                return space.index.vectors(nids)
            except KeyError:   # e.g. an archived memory's vector asked for by a filter
                pass
        return self.stored_vectors(nids)

    def stored_vectors(self, nids: np.ndarray, txn=None) -> np.ndarray:
        """Unit vectors of ``nids`` (float32, shape (len(nids), dim)) read from LMDB, in ``txn``
        when given (else a read transaction of its own).

        Raises
        ------
        StoreCorruptedError
            A vector missing from the store.
        """
        if txn is None:
            with self.store.read("reading embeddings") as own:
                return self.stored_vectors(nids, own)
        vecs = [self.store.get_vector(txn, int(n), self.dim) for n in np.asarray(nids).tolist()]
        for n, v in zip(np.asarray(nids).tolist(), vecs):
            if v is None:
                raise StoreCorruptedError(f"the embedding of nid {n} is missing from the store")
        return np.stack(vecs) if vecs else np.zeros((0, self.dim), np.float32)

    def salience_now(self, nids: np.ndarray, now: float) -> np.ndarray:
        """Current salience s(now) = s0 * 2**(-(now - t0) / half_life(kind)) of ``nids`` (float32)."""
        c = self.cols
        return self._rescore(c.s0[nids], c.t0[nids], c.kind[nids], self.config.decay.half_life_by_code, float(now))

    def csr(self) -> CSRGraph:
        """The symmetric CSR of the whole graph over every nid."""
        return self.graph.csr(self.next_nid)

    def recall_csr(self, hide_archived: bool = False, recorded_by: float | None = None) -> CSRGraph:
        """The CSR recall walks: :meth:`csr` without the edges touching a memory a censor rule
        hides (as if it were erased), so activation neither reaches nor passes through it; with
        ``hide_archived``, without those touching an archived memory too (a recall that does not
        show archived ones: a forgotten memory is no step of a path); with ``recorded_by``
        (Unix seconds, a recall's ``as_of``), without those touching a memory recorded after it
        (the store did not hold it then, so no path runs through it). Each variant is cached
        until the graph, the verdicts or the archived set change (one O(edges) pass per change;
        a ``recorded_by`` variant is kept for the last time asked).
        """
        csr = self.csr()
        cols, censor = self.cols, self.censor
        hide_archived = hide_archived and cols.any_archived()
        if not censor.any_blocked and not hide_archived and recorded_by is None:
            return csr
        key = (id(csr), censor.version, cols.archived_version if hide_archived else None, recorded_by,
               cols.n if recorded_by is not None else None)
        cached = self._recall_csrs.get((hide_archived, recorded_by is not None))
        if cached is not None and cached[0] == key and cached[1] is csr:
            return cached[2]
        n = csr.n_nodes
        hidden = np.zeros(n, bool)
        m = min(n, cols.n)
        hidden[:m] = cols.blocked[:m]
        if hide_archived:
            hidden[:m] |= (cols.state[:m] == _STATE_CODES[MemoryState.ARCHIVED]) & cols.alive[:m]
        if recorded_by is not None:
            hidden[:m] |= cols.recorded_at[:m] > recorded_by
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(csr.indptr))
        keep = ~hidden[rows] & ~hidden[csr.indices]
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows[keep], minlength=n), out=indptr[1:])
        out = CSRGraph(indptr, csr.indices[keep], csr.weight[keep], csr.relation[keep], csr.forward[keep])
        self._recall_csrs[(hide_archived, recorded_by is not None)] = (key, csr, out)
        return out

    def density(self, name: str) -> float:
        """Edges per linked node in namespace ``name`` (the density gate's input); cached."""
        sp = self.spaces.get(name)
        if sp is None:
            return 0.0
        if sp.density is None:
            sp.density = self.graph.density(self.cols.ns[: self.next_nid], sp.code) if self.next_nid else 0.0
        return sp.density

    def cue_clock(self, name: str, recorded_by: float | None = None) -> float:
        """The clock of namespace ``name``'s relative time cues ("last week"), Unix seconds:
        the newest event time of its live memories when that memory was recorded over a day
        after it happened (a conversation stored after the fact: a chat of 2023 imported
        today reads "last week" in 2023), else +inf (a namespace written as things happen, or
        an empty one: the recall's own ``now`` is the clock; :func:`recall.context.time_anchor`).
        A memory dated more than a day after it was recorded (a planned trip, a passport's
        expiry) is an event to come, not the conversation's clock, and is left out. Cached.
        With ``recorded_by``, among the memories recorded by then only (an ``as_of`` recall;
        not cached)."""
        sp = self.spaces.get(name)
        if sp is None:
            return np.inf
        if sp.latest is not None and recorded_by is None:
            return sp.latest
        c = self.cols
        t, recorded = c.created_at[: c.n], c.recorded_at[: c.n]
        mask = c.in_namespace(sp.code) & (t <= recorded + FUTURE_EVENT_S)
        if recorded_by is not None:
            mask &= recorded <= recorded_by
        clock = np.inf
        if mask.any():
            newest = int(np.argmax(np.where(mask, t, -np.inf)))
            if recorded[newest] - t[newest] > FUTURE_EVENT_S:   # stored after the fact: its own clock
                clock = float(t[newest])
        if recorded_by is None:
            sp.latest = clock
        return clock

    def slot_table(self, name: str) -> dict[tuple[str, str], np.ndarray]:
        """Namespace ``name``'s slots: (subject, attribute) -> the nids (int64) that ever filled
        each, in the order they joined (any state; erased ones leave; subjects canonical,
        :func:`engramdb.slots.canonical_subject`). Read from LMDB's slot
        entries on first use, then kept in step by every committed write; cached."""
        sp = self.spaces.get(name)
        if sp is None:
            return {}
        if sp.slots is None:
            table = {}
            with self.store.read("reading the slot table") as txn:
                for _key, entry in self.store.iter_meta(txn, SLOT_PREFIX):
                    if entry.get("namespace") == name and entry.get("nids"):
                        # (the user's slots of a store written before subjects were canonical
                        # are under each name it was given: one slot here)
                        key = (canonical_subject(entry["subject"]), entry["attribute"])
                        nids = np.asarray(entry["nids"], np.int64)
                        table[key] = np.union1d(table[key], nids) if key in table else nids
            sp.slots = table
        return sp.slots

    def supersedes_edges(self, nid: int, csr=None) -> tuple[list[int], list[int]]:
        """(memories ``nid`` superseded, memories that superseded ``nid``) from the graph, or from
        ``csr`` (a recall's view of it, :meth:`recall_csr`)."""
        if csr is None:
            csr = self.csr()     # O(degree) per memory, not O(edges)
        if nid >= csr.n_nodes:
            return [], []
        lo, hi = int(csr.indptr[nid]), int(csr.indptr[nid + 1])
        rows = lo + np.flatnonzero(csr.relation[lo:hi] == _SUPERSEDES)
        fwd = csr.forward[rows].astype(bool)
        return csr.indices[rows[fwd]].tolist(), csr.indices[rows[~fwd]].tolist()

    def supersession_chain(self, nid: int, side: int | None = None, csr=None) -> set[int]:
        """Memories linked to ``nid`` by ``supersedes`` edges, transitively: ``side`` 0 the ones
        it superseded, 1 the ones that superseded it, None both ways (``nid`` excluded); of the
        graph, or of ``csr`` (a recall's view of it)."""
        seen, todo = set(), [nid]
        while todo:
            older, newer = self.supersedes_edges(todo.pop(), csr)
            for other in (older + newer if side is None else (older, newer)[side]):
                if other not in seen and other != nid:
                    seen.add(other)
                    todo.append(other)
        return seen


#: The most nodes (memories ever numbered, erased ones included) one store holds: a ``next_nid``
#: above it is damage (a fuzzed 2**32 asked the column arrays for 32 GiB each and the process was
#: killed), not a store to size arrays for.
MAX_NODES = 1 << 28


def _counter(value: Any, name: str, limit: int | None = None) -> int:
    """A counter read from the store's metadata: an int >= 0 (and at most ``limit``), else
    :class:`StoreCorruptedError`."""
    if type(value) is not int or value < 0 or (limit is not None and value > limit):
        raise StoreCorruptedError(f"the store's {name!r} counter is damaged (read {value!r}, expected an int >= 0"
                                  + (f" and at most {limit:,}" if limit is not None else "") + ")")
    return value
