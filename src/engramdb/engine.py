"""The engine facade: the public verbs, their docstrings and argument checks.

Each verb checks its arguments (:mod:`engramdb.validate`) and hands off (txtai's
``Embeddings``: ``search`` is one line):

- reads go to the state (:mod:`engramdb.state`), recall to its stages (:mod:`engramdb.recall`),
  structured queries to :mod:`engramdb.query`;
- every mutation is one :class:`~engramdb.write.WriteUnit` (:mod:`engramdb.write`): one LMDB
  transaction, one generation bump, caches changed only after the commit;
- memory dynamics and export/import live in :mod:`engramdb.dynamics` and :mod:`engramdb.export`,
  which work on the state, never on this class.
"""
from __future__ import annotations

import os
import time
import warnings
from dataclasses import replace
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from . import context as _context, query as _query, slots as _slots, temporal as _temporal
from .batch_plan import piece_ids, plan_batch, whole_record
from .concurrency import guarded, retries_map_growth
from .rwlock import RWLock
from .config import RELEVANCE_CALIBRATION, SESSION_GAP_S, AdmissionConfig, EngramConfig, RecallConfig, check_config
from .errors import (
    ConfigError, DimensionMismatchError, EmptyNamespaceWarning, EngramError, InvalidInputError, ReadOnlyError,
    StoreCorruptedError, StoreLockedError, StoreNotFoundError, warn_caller,
)
from .recall import Filters, RecallRequest, recall as _recall
from .state import EngineState
from .store import ledger as _ledger
from .store.lmdb_store import READABLE_SCHEMAS, SCHEMA_VERSION, LmdbStore, text_digest
from .types import RELATION_BY_CODE, STATE_BY_CODE, Edge, Memory, MemoryKind, MemoryState, RecallResult, Relation
from .types import PROTECTED_TAG
from .types import memory_from_record
from .contiguity import default_weight
from .validate import (
    as_list, check_id, check_int, check_iterable, check_namespace, check_user_id, check_user_relation, check_query,
    check_vector, check_weight, edge_fields, encodable, last_items, plain_str,
    now as clock_now, strict_flags, time_or_now, to_unix_seconds, until_seconds, utc_text,
)
from .write import write_unit
from .write.records import Prepared, embed_missing, name_item, no_embedder, prepare, retire_for, write_new
from .write.reinforce import boost_links, reinforce
from .progress import track
from .wording import count

if TYPE_CHECKING:
    from .censor import CensorRule
    from .namespace_handle import NamespaceHandle

__all__ = ["Engram", "open", "to_unix_seconds"]

DEFAULT_NAMESPACE = "default"


@strict_flags
@guarded
class Engram:
    """An open engramdb store. Create it with :func:`engramdb.open`; use it as a context manager.

    One process writes at a time (LMDB's single writer). Threads may share the object: the
    reading verbs (:attr:`READ_VERBS`) share its lock and run side by side, every other public
    method holds it alone (see :mod:`engramdb.concurrency`, which also covers ``fork()``,
    read-only reader processes and growth of a full LMDB map).

    Attributes
    ----------
    dim : int
        Embedding dimension of the store.
    embedder : object or None
        The embedder (``embed(texts) -> float32 (n, dim)``).
    config : EngramConfig
    readonly : bool
    trace : list or None
        Debug hook, off (None) by default. Set it to a list and each recall appends
        ``(namespace, seed nids, visited nids)`` (int64 / int32 arrays): every node the vector
        search returned and the spreading activation reached.
    """

    #: The verbs that only read, run by threads side by side; a verb mapped to an argument name
    #: writes after all when that argument is true (or None with ``reinforce_on_recall`` on).
    READ_VERBS = {"get": None, "edges": None, "namespaces": None, "namespace": None, "salience": None,
                  "history": None, "query": None, "current": None, "profile": None, "context": None,
                  "stats": None, "dynamics_log": None, "export": None, "calibration": None,
                  "ledger": None, "verify_ledger": None, "export_ledger": None, "acting_as": None,
                  "recall": "reinforce", "recall_batch": "reinforce", "censors": None}
    #: The writing verbs that hold the engine's lock alone from start to end (they change caches
    #: outside a write unit); every other writing verb shares it with readers until its commits.
    #: An instance may add verbs (benchmarks/bench_writer_blocking.py does, for its baseline).
    #: ``censor`` / ``remove_censor`` re-evaluate every memory's verdict after their commit.
    EXCLUSIVE_VERBS = frozenset({"flush", "close", "compact", "drop_namespace", "import_from", "censor",
                                 "remove_censor"})

    def __init__(self, store: LmdbStore, *, dim: int, embedder: Any, config: EngramConfig,
                 readonly: bool = False, actor: str = _ledger.DEFAULT_ACTOR):
        self.dim = int(dim)
        self.embedder = embedder
        self.config = config
        self.readonly = readonly
        self.trace: list | None = None
        self._closed = False
        self._lock = RWLock()                # see concurrency.guarded (shared with the state)
        self._pid = os.getpid()
        self._state = EngineState(store, dim=self.dim, config=config, readonly=readonly)
        self._state.default_actor = actor

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _existing_namespace(self, namespace: Any) -> str:
        """``namespace`` checked, for a verb that reads one: a name the store never held raises
        (a typo, not an empty answer); the default namespace always exists.

        Raises
        ------
        NamespaceError
            An invalid name, or one the store does not hold ("did you mean ...?").
        """
        ns = check_namespace(namespace)
        if ns != DEFAULT_NAMESPACE and self._state.space(ns) is None:
            raise self._state.unknown_namespace(ns)
        return ns

    def _warn_if_default_is_empty(self, namespace: str, verb: str) -> None:
        """Warn (:class:`EmptyNamespaceWarning`) when ``verb`` reads the default namespace, which
        holds no memories, while others hold some: a read that forgot ``namespace=``. The
        warning names the namespaces holding memories; a verb's answer never does (it can reach a
        prompt)."""
        if namespace != DEFAULT_NAMESPACE:
            return
        space = self._state.space(namespace)
        if (space is None or space.count == 0) and self._state.names():
            warn_caller(EmptyNamespaceWarning(f"{verb}: namespace {namespace!r} holds no memories; "
                                              f"{self._state.held_text()}"))

    def _check_open(self, write: bool = False) -> None:
        if self._closed:
            raise EngramError("this engramdb store is closed; open it again with engramdb.open(path)")
        if write and self.readonly:
            if getattr(self, "_forked_from", None):   # set by concurrency._after_fork
                raise StoreLockedError(
                    f"this engine came through fork() from process {self._forked_from}, which holds "
                    "the store's writer lock: the child may read only (to write, open the store in the "
                    "child after the parent closed it)")
            raise ReadOnlyError("this store was opened with readonly=True: it cannot be written; "
                                "open it without readonly (one writer per store) to write")

    def flush(self) -> None:
        """Fold the edge delta into the persisted CSR snapshot and save changed vector indexes."""
        self._check_open()
        self._state.flush()

    def close(self) -> None:
        """Flush and close; the object is unusable afterwards. Closing twice is a no-op."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._state.settle_loads()   # no background index load may outlive the LMDB handle
            self._state.store.close()
            self._closed = True

    def _embed(self, texts: list[str], progress: bool = False) -> np.ndarray:
        if self.embedder is None:
            raise no_embedder(self._state, "pass vector=/embedding= explicitly")
        return _embed(self.embedder, texts, progress)

    # ------------------------------------------------------------------ writes
    def add(self, text: str, *, namespace: str = DEFAULT_NAMESPACE, kind: MemoryKind | str = "episodic",
            id: str | None = None, embedding: Any = None, created_at: Any = None,
            confidence: float = 1.0, salience: float | None = None, source: str | None = None,
            tags: Sequence[str] | str = (), links: Sequence[Any] = (), valid_from: Any = None,
            valid_to: Any = None, slot: Sequence[str] | None = None, subject: str | None = None,
            attribute: str | None = None, value: str | None = None,
            single_valued: bool | None = None, recorded_at: Any = None) -> str:
        """Store one memory and return its id.

        A text that ``namespace`` already holds, given with no ``id`` (or with that memory's
        id), is not stored again: the stored memory's id is returned and it is reinforced; an
        episodic memory given its own ``created_at`` repeats only the episode of its text at
        that time (the same words at another time are another event: a run every Monday). A
        text longer than ``StoreConfig.chunk_chars`` is stored as overlapping pieces ``id``,
        ``id#1``, ``id#2``, ... joined by ``next`` edges (:mod:`engramdb.batch_plan`).

        Parameters
        ----------
        text : str
            What to remember, at most ``StoreConfig.max_text_chars`` characters; a text of only
            whitespace and invisible characters (zero-width space, BOM, soft hyphen: Unicode
            category Cf) is empty, and refused.
        namespace : str
            Agent or user the memory belongs to.
        kind : MemoryKind or str
            ``working``, ``episodic``, ``semantic``, ``procedural`` or ``decision``.
        id : str, optional
            The caller's id, unique in the namespace; a random hex id when omitted. The forms
            of the engine's own nodes are refused: ``E:...``, ``S:...``, ``sum:...``,
            ``fact:...``, ``<id>#<n>``, ``<id>#p<n>`` and ``<id>:outcome:<n>``
            (``validate.RESERVED_IDS``).
        embedding : array-like of float, shape (dim,), optional
            The caller's vector (normalised here); the engine's embedder is used when omitted.
        created_at : float, datetime or ISO-8601 str, optional
            Event time (Unix seconds); now when omitted.
        confidence : float
            In [0, 1].
        salience : float, optional
            Initial salience in [0, 1]; ``DecayConfig.initial_salience`` when omitted.
        source : str, optional
            Where it came from (session / turn id).
        tags : str or sequence of str
            Free-text labels (non-empty, no NUL, at most 256); a single string is one tag
            (``tags="work"`` is ``tags=["work"]``), as in the ``tags`` filters of
            :meth:`recall` and :meth:`query`.
        links : sequence of {"to": id, "relation": str, "weight": float}
            Edges from this memory to existing ones (or ones earlier in the same batch).
        valid_from, valid_to : float, datetime or ISO-8601 str, optional
            Valid time, when the fact was true in the world (naive = UTC); ``valid_from``
            defaults to ``created_at``, ``valid_to`` to open. See ``engramdb.temporal``.
        slot : (subject, attribute) or (subject, attribute, value), optional
            The slot this memory fills; or give ``subject``/``attribute``/``value``. The value
            defaults to the text. A different value in a single-valued slot supersedes the
            current memory there (``engramdb.slots``); multi-valued slots accumulate.
        subject, attribute, value : str, optional
        single_valued : bool, optional
            The slot's cardinality for this memory; ``SlotConfig`` decides when omitted.
        recorded_at : float, datetime or ISO-8601 str, optional
            Record time, when the store learned the memory: now when omitted. Give it to
            backfill history (an import of old notes), so that ``as_of`` answers as the store
            would have then; a memory this one retires is retired at this time too. Never
            after now. The same field in ``add_batch`` and ``admit_batch`` items.

        Returns
        -------
        str
            The memory's id.

        Raises
        ------
        EmptyTextError, OversizeError, UnknownKindError, UnknownRelationError, NonFiniteError,
        DimensionMismatchError, InvalidInputError
            Bad input (an embedding must be ``dim`` finite real numbers, not all zero); an id or
            link target of a reserved form; nothing is written.
        NamespaceError
            Invalid namespace name.
        MemoryNotFoundError
            A link points at a memory that does not exist in the namespace.
        StoreFullError, StoreError
            LMDB failed; nothing is written.
        """
        item = {"text": text, "namespace": namespace, "kind": kind, "id": id, "embedding": embedding,
                "created_at": created_at, "confidence": confidence, "salience": salience,
                "source": source, "tags": tags, "links": links, "valid_from": valid_from,
                "valid_to": valid_to, "slot": slot, "subject": subject, "attribute": attribute,
                "value": value, "single_valued": single_valued, "recorded_at": recorded_at}
        return self._add_batch([item], namespace=namespace, verb="add")[0]

    def add_batch(self, items: Iterable[Mapping[str, Any]], *, namespace: str = DEFAULT_NAMESPACE,
                  progress: bool = False, recorded_at: Any = None) -> list[str]:
        """Store many memories in one transaction; all or none are written.

        Parameters
        ----------
        items : iterable of mapping
            Each with the keyword arguments of :meth:`add` (``text`` required); a missing
            ``namespace`` means the ``namespace`` argument.
        namespace : str
            Default namespace of the items.
        progress : bool
            Show a progress bar while embedding.
        recorded_at : float, datetime or ISO-8601 str, optional
            Record time of the items that give none (see :meth:`add`); now when omitted.

        Returns
        -------
        list of str
            The ids, in input order.

        Raises
        ------
        The errors of :meth:`add`, their text starting ``"items[<i>]: "`` and their attribute
        ``item_index`` giving the item at fault (its position in ``items``, from 0); also
        InvalidInputError for an id given twice or already stored (named the same way). A batch
        equals the same items added one by one, except that auto-linking also sees the earlier
        items of the batch.
        """
        return self._add_batch(items, namespace=namespace, progress=progress, recorded_at=recorded_at)

    def _add_batch(self, items: Iterable[Mapping[str, Any]], *, namespace: str, progress: bool = False,
                   recorded_at: Any = None, verb: str = "add_batch") -> list[str]:
        """:meth:`add_batch`, its write recorded in the audit ledger as ``verb``."""
        self._check_open(write=True)
        now = clock_now()
        check_iterable(items, "items", "memory mappings")
        state = self._state
        prepared = []
        for i, item in enumerate(items):
            position = None if verb == "add" else i   # (add's one item is the call itself)
            try:
                prepared.append(prepare(state, item, namespace, now, recorded_at=recorded_at))
            except EngramError as exc:   # name the item, as add_conversation names the message
                raise name_item(exc, position)
            prepared[-1].position = position   # the write's own checks (an id taken, ...) name it too
        if not prepared:
            return []
        plan = plan_batch(state, prepared, has_embedder=self.embedder is not None)
        # links given with repeated texts (their targets checked by plan_batch), checked whole
        links = {ns: _edge_specs(edges, check_id, False) for ns, edges in plan.links.items()}

        def rest(unit) -> list[tuple[int, int, int, float]]:
            """In the batch's one transaction: the repeats' links and their reinforcement."""
            for ns, specs in links.items():
                self._link_rows(unit, ns, specs)
            if plan.reinforce:
                reinforce(unit, dict.fromkeys(plan.reinforce, 1), self.config.decay.reinforce_rate)
            return plan.chunk_edges(unit) if plan.fresh else []

        if plan.fresh:   # repeated texts -> reinforce; long texts -> chunks
            embed_missing(state, self._embed_progress(progress), plan.fresh)
            write_new(state, plan.fresh, now, verb=verb, extra=rest)
        elif links or plan.reinforce:   # only repeats: their links and reinforcement, one unit
            with write_unit(state, "reinforcing memories", now, verb=verb) as unit:
                rest(unit)
        self._after_working_added(plan.fresh, now)
        return plan.ids

    def add_conversation(self, messages: Iterable[Mapping[str, Any]], *, namespace: str = DEFAULT_NAMESPACE,
                         session: str | None = None, session_gap: float | None = SESSION_GAP_S,
                         entities: bool = True, split_roles: Sequence[str] = ("assistant",), split_chars: int = 800,
                         session_titles: Mapping[str, str] | None = None, progress: bool = False,
                         recorded_at: Any = None, keep_roles: Sequence[str] = (),
                         max_pieces: int | None = None, protect_roles: Sequence[str] = ("user",),
                         dry_run: bool = False) -> dict[str, Any]:
        """Store a chat (OpenAI-style messages) as a conversation graph, in one transaction.

        Each message becomes an episodic memory ``"<name or role>: <content>"`` tagged with its
        speaker and role; each session a ``session`` memory that its messages are
        ``discussed_in``; consecutive messages and sessions are joined by ``next``; entities
        named by two or more messages (stored ones included, so a chat stored turn by turn gets
        them too) become ``E:<entity>`` nodes with ``mentions`` edges; long messages of
        ``split_roles`` are also stored block by block (code, list items, paragraphs:
        ``<id>#p<j>``, ``extracted_from`` the message), as pieces of the message (recall returns
        the message once, ``Hit.chunk`` = j; forget / supersede / tags reach the blocks); the
        write adds auto-links. Messages the namespace already holds (an ``id`` stored with the
        same text, or messages lining up with their stored session's, compared by whole text)
        are left out. See :mod:`engramdb.conversation`.

        Parameters
        ----------
        messages : iterable of mapping
            ``{"role": str, "content": str | list of text parts, "created_at"?: Unix seconds or
            ISO-8601, "session"?: str | int, "name"?: str, "id"?: str}``; ``role`` is one of
            OpenAI's (user, assistant, system, developer, tool, function; a speaker's name goes
            in ``name``); OpenAI's tool fields are ignored, and so is a tool-call turn without
            text; an assistant's refusal (``content`` null, the text in ``refusal``) is stored
            as what it said. Without an ``id`` a message is ``"<session>:<position>"``. A ``session`` the
            namespace already holds takes the new messages, numbered on after its stored ones
            (after the larger of their count and their highest ``<session>:<n>``; a stored id
            is never reused).
        namespace : str
        session : str, optional
            Session label of messages that name none (default ``"chat-<first Unix second>"``, or
            ``"chat-<digest of the first message>"`` when it has no time).
        session_gap : float or None
            Seconds. Without ``session``, a message that names no session and was sent more than
            this long after the one before (by ``created_at``) opens a new session
            ``"chat-<its Unix second>"``: a chat of several sittings is several sessions, each
            with its node and date, linked ``next``. Default 1800 (30 minutes,
            ``config.SESSION_GAP_S``); None keeps every unlabelled message of the call in one
            session.
        entities : bool
            Add the entity co-mention layer.
        split_roles : sequence of str
            Roles whose long messages are split into findable blocks.
        split_chars : int
            Minimum length (characters) of a message to split, >= 1.
        session_titles : mapping of session label -> str, optional
            Text of session nodes instead of ``"Session <label> of <speakers>, <date>"``.
        progress : bool
            Show a progress bar while embedding.
        recorded_at : float, datetime or ISO-8601, optional
            Record time (backfilled history), as for :meth:`add_batch`.
        keep_roles : sequence of str
            ``system`` / ``developer`` messages (instructions, not events) and ``tool`` /
            ``function`` results (a program's output: the recall tool's holds stored memories,
            whose copies would outlive their ``forget(hard=True)``) are left out unless named here.
        max_pieces : int, optional
            Most blocks (>= 1) one long message is split into; beyond it, consecutive blocks
            are grouped. Default ``StoreConfig.max_pieces`` (64).
        protect_roles : sequence of str
            A message of these roles that states an identity, health or family fact
            (:func:`engramdb.kinds.protected_category`: "I'm allergic to peanuts",
            "my sister lives in Oslo", "I work at Acme") is also tagged ``protected``, as
            :meth:`admit_batch` tags such candidates: the default :meth:`rescore` never archives
            or prunes it (a chat message never recalled is archived about 47 days after it was
            stored). Default: the user's messages; ``()`` tags none.
        dry_run : bool
            Check the chat as a write would, against the store too (an ``id`` stored with
            another text, an ``absolute`` censor rule), and write nothing: a caller storing
            several chats one call each (``engramdb ingest-chat`` on a file of several) refuses
            a bad one before the first is written. Returns what the write would store
            (``message_ids``, ``sessions``, ``memories``, ``pieces``, ``entities``,
            ``already_stored``, ``left_out``); ``edges`` is 0 and ``superseded``, ``corrected``
            and ``changed`` are empty (the write finds those).

        Returns
        -------
        dict
            ``message_ids`` (input order, new messages only), ``sessions`` (node ids),
            ``memories`` (new memories: messages, session and entity nodes), ``pieces`` (the new
            pieces of long messages, counted apart as :meth:`stats` does: blocks ``<id>#p<j>`` and
            chunks ``<id>#<i>``), ``entities`` (of the memories, new entity nodes), ``edges``
            (edges added, auto-links included), ``already_stored`` (messages left out because the
            namespace holds them already: a chat sent again), ``superseded`` (ids of stored
            messages that edited ones replace: a chat sent again with a message edited in place,
            or its last reply regenerated; each is kept, superseded by its new version, and
            hidden from recall unless ``include_superseded=True``), ``corrected`` (ids of memories
            a new message superseded because it changes a number they state or negates them:
            "I take metformin 500 mg" by "I started taking 1000 mg of metformin"; kept, hidden from
            recall as superseded ones are), ``changed`` (``[later id, earlier id]`` pairs the
            write linked ``contradicts``: a report of a changed value or a move, "My doctor raised
            my metformin to 1000 mg" after "I take 500 mg", in either storing order; both kept,
            recall puts the later first and warns), ``left_out`` (messages left
            out by their role: instructions and tool results unless ``keep_roles`` names them; a
            chat of only those stores nothing).

        Raises
        ------
        InvalidInputError, EmptyTextError, OversizeError, NonFiniteError
            A bad message, or an id already stored with another text; nothing is written. The
            text names the message and its field (``"messages[3]: content: is empty; ..."``),
            and so do the attributes ``message_index`` (position in ``messages``, from 0) and
            ``field`` (``"role"``, ``"content"``, ``"created_at"``, ...).
        NamespaceError
            Invalid namespace name.
        """
        from . import conversation as _conversation

        self._check_open(write=True)
        ns = check_namespace(namespace)
        split_chars = check_int(split_chars, "split_chars", 1, 2**62)
        state = self._state
        max_pieces = (state.config.store.max_pieces if max_pieces is None
                      else check_int(max_pieces, "max_pieces", 1, 2**62))
        now = clock_now()
        backfill = _temporal.recorded_time({}, recorded_at, now)   # checked before the plan

        plan = _conversation.plan_conversation(   # messages without a time happened when recorded
            messages, session=session, now=now if backfill is None else backfill, session_gap=session_gap,
            entities=entities,
            split_roles=_conversation.check_roles(split_roles, "split_roles"),
            split_chars=split_chars, session_titles=session_titles,
            stored_digests=lambda ext_id: _conversation.stored_digests(state, ns, ext_id),
            stored_time=lambda digest: _conversation.stored_time(state, ns, digest),
            stored_session=lambda sid: _conversation.stored_session(state, ns, sid),
            stored_mentions=lambda ent: _conversation.stored_mentions(state, ns, ent),
            stored_sessions=lambda: _conversation.stored_session_nodes(state, ns),
            keep_roles=_conversation.check_roles(keep_roles, "keep_roles"), max_pieces=max_pieces,
            max_block_chars=state.config.store.chunk_chars,
            extra_tags=_protected_tag(_conversation.check_roles(protect_roles, "protect_roles")))
        if not plan.items:   # every message is stored already (or left out by its role)
            return _conversation_summary(plan, [], 0, [], [], [])
        prepared = []
        for item in plan.items:
            try:
                prepared.append(prepare(state, item, ns, now, recorded_at=recorded_at, engine_ids=True))
            except InvalidInputError as exc:   # name the message, as the plan's own checks do
                k = plan.positions.get(item["id"])
                if k is None:
                    raise
                exc.args = (f"messages[{k}]: content: {exc}",)
                exc.message_index, exc.field = k, "content"
                raise
        batch = plan_batch(state, prepared, has_embedder=self.embedder is not None)
        if dry_run:
            return _conversation_summary(plan, batch.fresh, 0, [], [], [])
        for p in batch.fresh:   # a split message and its blocks: one memory in pieces (after chunking)
            if p.ext_id in plan.fields:
                p.extra = {**(p.extra or {}), **plan.fields[p.ext_id]}
        edges_before = self.n_edges
        superseded: list[str] = []

        def conversation_edges(unit) -> list[tuple[int, int, int, float]]:
            """In the conversation's one transaction: its edges, the repeats' reinforcement, and
            the stored messages that edited ones replace, superseded."""
            superseded.clear()   # (a write retried after the map grew runs this again)
            rows = batch.chunk_edges(unit)
            new = {p.ext_id: p.nid for p in batch.fresh}
            for s, t, rel, w in plan.edges:
                a = new[s] if s in new else unit.lookup(ns, s)
                b = new[t] if t in new else unit.lookup(ns, t)
                if a is None or b is None:
                    raise InvalidInputError(f"conversation edge {s!r} -> {t!r}: an end is missing")
                rows.append((a, b, rel.code, w))
            if batch.reinforce:
                reinforce(unit, dict.fromkeys(batch.reinforce, 1), self.config.decay.reinforce_rate)
            fresh = {p.ext_id: p for p in batch.fresh}
            edits = {mid: f["edit_of"] for mid, f in plan.fields.items() if "edit_of" in f}
            for mid, old_id in edits.items():   # an edited message supersedes the one it replaces
                old_nid = unit.lookup(ns, old_id)
                rec = None if old_nid is None or mid not in fresh else unit.record(old_nid)
                if rec is not None and rec.get("superseded_by") == mid:   # the write's conflict check did it
                    superseded.append(old_id)
                if rec is None or rec["state"] != MemoryState.ACTIVE.value:
                    continue
                rows.append(retire_for(unit, old_nid, rec, fresh[mid]))
                superseded.append(old_id)
            for sid, (last, last_at) in plan.last_positions.items():   # a stored session numbered on: its new end
                nid = None if sid in new else unit.lookup(ns, sid)
                rec = None if nid is None else unit.record(nid)
                if rec is not None and last > (rec.get("last_position") or 0):
                    unit.put_record(nid, {**rec, "last_position": last, "last_position_at": last_at})
            return rows

        if batch.fresh:
            embed_missing(state, self._embed_progress(progress), batch.fresh)
            write_new(state, batch.fresh, now, what="adding a conversation", verb="add_conversation",
                      extra=conversation_edges)
        elif plan.edges or batch.reinforce:   # every message was already stored with this very id and text
            specs = _edge_specs(plan.edges, check_id, False)
            with write_unit(state, "adding a conversation", now, verb="add_conversation") as unit:
                self._link_rows(unit, ns, specs)
                if batch.reinforce:
                    reinforce(unit, dict.fromkeys(batch.reinforce, 1), self.config.decay.reinforce_rate)
        return _conversation_summary(plan, batch.fresh, self.n_edges - edges_before, superseded,
                                     self._corrected(batch.fresh, superseded), self._changed(batch.fresh))

    def _corrected(self, fresh: list[Prepared], edited: list[str]) -> list[str]:
        """Ids of the memories that ``fresh`` (just written) superseded by conflict detection (a
        changed number or a negation: the ``supersedes`` edges the write added), not counting the
        ``edited`` messages an edit replaced, in the order of the new memories."""
        state, skip = self._state, set(edited)
        out = [state.cols.ext_ids[old] for p in fresh for old in state.supersedes_edges(p.nid)[0]]
        return [x for x in dict.fromkeys(out) if x not in skip]

    def _changed(self, fresh: list[Prepared]) -> list[list[str]]:
        """``[later id, earlier id]`` of each ``contradicts`` edge the write of ``fresh`` added
        (a value said to have changed, "My doctor raised my metformin to 1000 mg" after "I take
        500 mg", in either storing order; the later by :func:`engramdb.temporal.said_after`), in
        the order of the new memories."""
        state = self._state
        csr, vf, ids = state.csr(), state.cols.valid_from, state.cols.ext_ids
        out: dict[tuple[str, str], None] = {}
        for p in fresh:
            x = p.nid
            for y in csr.related(x, Relation.CONTRADICTS.code).tolist():
                later, earlier = (x, y) if _temporal.said_after(vf[x], x, vf[y], y) else (y, x)
                out[(ids[later], ids[earlier])] = None
        return [list(pair) for pair in out]

    def _embed_progress(self, progress: bool):
        if self.embedder is None:
            return None
        return lambda texts: _embed(self.embedder, texts, progress)

    def _after_working_added(self, prepared: list[Prepared], now: float) -> None:
        """The working tier is bounded: promote its overflow (``ForgettingConfig.working_capacity``)."""
        working = {p.namespace for p in prepared if p.kind is MemoryKind.WORKING}
        if working:
            from .dynamics.forgetting import enforce_working_capacity

            enforce_working_capacity(self._state, working, now)

    @retries_map_growth
    def _reinforce(self, counts: dict[int, int], now: float) -> None:
        """Reinforce stored memories after a verb's main write (its own write unit): at ``now``
        (the verb's time, e.g. ``recall(now=)``), recorded at the clock."""
        with write_unit(self._state, "reinforcing memories", clock_now(), verb="reinforce", at=now) as unit:
            reinforce(unit, counts, self.config.decay.reinforce_rate)

    def link(self, source: str, target: str, relation: Relation | str = Relation.RELATED_TO,
             weight: float | None = None, *, namespace: str = DEFAULT_NAMESPACE, now: Any = None) -> Edge:
        """Add the typed edge ``source -> target`` (or set its weight if it exists).

        Parameters
        ----------
        source, target : str
            Memory ids in ``namespace``; different from each other.
        relation : Relation or str
            One of :class:`Relation`.
        weight : float, optional
            In (0, 1]. None: 1, except for ``next``, which weighs by the two memories' lengths
            (:func:`engramdb.contiguity.default_weight`, ``LinkConfig.contiguity_words``).
        now : float, datetime or ISO-8601, optional
            When the link is made, for the salience boost of its ends (each end's salience
            decayed to then, boosted by ``DecayConfig.link_boost``, dated then, as
            ``recall(now=)`` reinforces): a store driven in simulated time passes its time. The
            clock when omitted; the edge's own time is the clock in any case.

        Returns
        -------
        Edge

        Raises
        ------
        MemoryNotFoundError
            Either end does not exist in the namespace (:class:`MemoryBlockedError`: a censor
            rule hides it, as for :meth:`get`).
        UnknownRelationError, InvalidInputError, NonFiniteError
            Bad relation (``supersedes`` included: :meth:`supersede` makes that edge, with the
            old memory's state), weight, or a self-link; an end id of a form the engine reserves for
            its own nodes (``E:``, ``S:``, ``sum:``, ``fact:``, pieces ``<id>#<n>``: see
            ``validate.RESERVED_IDS``); nothing is written.
        """
        return self.link_batch([(source, target, relation, weight)], namespace=namespace, now=now)[0]

    def link_batch(self, edges: Iterable[Any], *, namespace: str = DEFAULT_NAMESPACE, now: Any = None) -> list[Edge]:
        """Add many edges in one transaction; all or none are written.

        Parameters
        ----------
        edges : iterable of (source, target[, relation[, weight]]) or mapping
            Mappings use the keys ``source``, ``target``, ``relation``, ``weight``.
            Defaults: relation ``related_to``, weight as in :meth:`link`.
        namespace : str
            Both ends of every edge live here; edges never cross namespaces.
        now : float, datetime or ISO-8601, optional
            As for :meth:`link`.

        Returns
        -------
        list of Edge

        Raises
        ------
        The errors of :meth:`link`.
        """
        return self._link_batch(edges, namespace, check_user_id, user=True, now=now)

    def _link_batch(self, edges: Iterable[Any], namespace: str, check_end: Callable[[Any, str], str],
                    user: bool = False, now: Any = None) -> list[Edge]:
        """:meth:`link_batch`, its ends checked by ``check_end`` (``check_id`` for the engine's
        own edges, which may name its nodes); a caller's edges (``user``) may not be
        ``supersedes`` (:func:`engramdb.validate.check_user_relation`)."""
        self._check_open(write=True)
        ns = check_namespace(namespace)
        at = None if now is None else to_unix_seconds(now, field="now")
        specs = _edge_specs(edges, check_end, user)
        if not specs:
            return []
        if user and self._state.censor.active:   # a hidden memory is refused as update() refuses it
            for s, t, _r, _w in specs:
                self._check_visible(ns, s)
                self._check_visible(ns, t)
        with write_unit(self._state, "linking memories", clock_now(), verb="link", at=at) as unit:
            rows = self._link_rows(unit, ns, specs)
        return [Edge(s, t, r, w) for (s, t, r, _w), (_a, _b, _c, w) in zip(specs, rows)]

    def _link_rows(self, unit: Any, ns: str, specs: list[tuple]) -> list[tuple[int, int, int, float]]:
        """Add the checked edges ``specs`` (:func:`_edge_specs`) of namespace ``ns`` in ``unit``
        (ends looked up in its transaction, so memories it wrote count), with the link boost of
        the ends of each edge written (an edge set again to the weight it has is no new link);
        returns the rows (src nid, tgt nid, relation code, weight)."""
        state, scale = self._state, self.config.link.contiguity_words
        rows = []
        for s, t, r, w in specs:
            a, b = state.memory_lookup(ns, s, "link", unit.txn), state.memory_lookup(ns, t, "link", unit.txn)
            if w is None:
                w = default_weight(r, unit.record(a)["text"], unit.record(b)["text"], scale)
            rows.append((a, b, r.code, w))
        boost_links(unit, [], unit.add_edges(rows), self.config.decay.link_boost)
        return rows

    def supersede(self, old_id: str, text: str | None = None, *, namespace: str = DEFAULT_NAMESPACE,
                  by: str | None = None, **fields: Any) -> str:
        """Replace ``old_id`` by a new memory (``text``) or by an existing one (``by``); the old
        one is kept, flagged superseded.

        The successor gets a ``supersedes`` edge to the old one; the old one's ``superseded_by``
        names it, its ``valid_to`` becomes the successor's ``valid_from`` (when it stopped being
        true; never before its own ``valid_from``) and its ``retired_at`` the record time (now, or
        a new successor's ``recorded_at``).
        Recall hides it unless ``include_superseded=True`` or an ``as_of`` before now.
        A new memory's ``kind``, ``tags``, ``source`` and slot (subject, attribute) default to
        the old memory's; the other keyword fields are those of :meth:`add` with its defaults
        (a new version states its own confidence).

        Parameters
        ----------
        old_id : str
            The current memory to retire.
        text : str, optional
            Text of a new successor memory. Give ``text`` or ``by``, not both.
        namespace : str
        by : str, optional
            Id of an existing, current memory that supersedes ``old_id`` (no new memory).
        **fields
            Keyword fields of :meth:`add` for the new memory (``id``, ``embedding``,
            ``valid_from``, ``value``, ...); not allowed with ``by``.

        Returns
        -------
        str
            The successor's id.

        Raises
        ------
        MemoryNotFoundError
            No ``old_id`` (or ``by``) in the namespace.
        InvalidInputError
            ``old_id`` is already superseded (also when forgotten since); ``by`` is ``old_id``,
            is superseded, is archived, or precedes ``old_id`` in its supersession chain (a
            cycle); both or neither of ``text``/``by``;
            the new memory's ``id`` is ``old_id`` or another stored id (the successor is a new
            memory; the old one keeps its id); its ``recorded_at`` is before ``old_id``'s (a
            correction is recorded after what it corrects); or the new memory is invalid (see
            :meth:`add`);
            ``old_id`` or ``by`` has a form the engine reserves for its own nodes (``E:``,
            ``S:``, ``sum:``, ``fact:``, pieces: a session or entity node never answers a recall,
            so a fact superseded by one would drop out of it), as for :meth:`link` and
            :meth:`update`. Nothing is written.
        """
        self._check_open(write=True)
        ns = check_namespace(namespace)
        old_id = check_user_id(old_id, "old_id")
        old = self.get(old_id, namespace=ns)
        if old.superseded_by is not None:   # forgotten (archived) after it was superseded, too
            raise InvalidInputError(f"memory {old_id!r} is already superseded by {old.superseded_by!r}")
        if (text is None) == (by is None):
            raise InvalidInputError("supersede needs exactly one of text (a new memory) or by= (an existing one)")
        state = self._state
        old_nid = state.memory_lookup(ns, old_id, "supersede")
        now = clock_now()
        if by is not None:
            return self._supersede_by(old, old_nid, check_user_id(by, "by"), ns, now, fields)
        if isinstance(fields.get("id"), str) and plain_str(fields["id"]) == old_id:
            raise InvalidInputError(
                f"supersede({old_id!r}, text, id={old_id!r}): the successor needs an id of its own, since "
                f"superseding keeps the old memory under {old_id!r}; leave id out (a random one), give another, "
                f"or reword {old_id!r} in place with update({old_id!r}, text=...)")
        item = {"kind": old.kind, "tags": old.tags, "source": old.source, **fields,
                "text": text, "namespace": ns}
        if old.subject is not None and not {"slot", "subject", "attribute"} & set(fields):
            item["subject"], item["attribute"] = old.subject, old.attribute
        p = prepare(state, item, ns, now)
        # backfilled: never before the store learned the wording it corrects (of a reworded
        # memory, its latest version)
        known = old.recorded_at
        if old.version > 1 and p.recorded_at < now:
            known = max(v.recorded_at for v in self.history(old_id, namespace=ns) if v.id == old_id)
        if p.recorded_at < known:
            what = "its latest wording was" if known > old.recorded_at else "it was"
            raise InvalidInputError(
                f"supersede({old_id!r}): the successor's recorded_at ({utc_text(p.recorded_at)}) is before "
                f"{what} recorded ({utc_text(known)}); a correction is recorded after what it corrects "
                "(leave recorded_at out for now)")
        if old.subject is not None and (p.subject, p.attribute) != (_slots.canonical_subject(old.subject), old.attribute):
            raise InvalidInputError(
                f"{old_id!r} fills the slot ({old.subject!r}, {old.attribute!r}); its successor must fill "
                f"the same slot, got ({p.subject!r}, {p.attribute!r})"
            )
        embed_missing(state, self._embed_progress(False), [p])
        if p.subject is not None:
            p.slot_mode = "append"      # this call decides the slot: no automatic resolution

        def retire_old(unit):
            return [retire_for(unit, old_nid, unit.record(old_nid), p)]

        return write_new(state, [p], now, what="superseding a memory", verb="supersede", extra=retire_old)[0]

    def _supersede_by(self, old: Memory, old_nid: int, by: str, ns: str, now: float, fields) -> str:
        """:meth:`supersede` with an existing successor ``by`` (validated here; one write unit)."""
        if fields:
            raise InvalidInputError(f"supersede(by=...) takes no new-memory fields, got {sorted(fields)}")
        if by == old.id:
            raise InvalidInputError(f"memory {by!r} cannot supersede itself")
        state = self._state
        new = self.get(by, namespace=ns)
        new_nid = state.memory_lookup(ns, by, "supersede by")
        if new.superseded_by is not None:   # forgotten (archived) after it was superseded, too
            chain = state.supersession_chain(old_nid)
            why = (f"{by!r} precedes {old.id!r} in its supersession chain: superseding into it would "
                   "make a cycle" if new_nid in chain else f"{by!r} is itself superseded by {new.superseded_by!r}")
            raise InvalidInputError(f"cannot supersede {old.id!r} by {by!r}: {why}")
        if new.state is MemoryState.ARCHIVED:   # the fact would vanish from recall
            raise InvalidInputError(f"cannot supersede {old.id!r} by {by!r}: {by!r} is archived (forgotten); "
                                    "a successor is a current memory")
        if new.subject is not None and (old.subject is None or (_slots.canonical_subject(new.subject), new.attribute)
                                        != (_slots.canonical_subject(old.subject), old.attribute)):
            raise InvalidInputError(
                f"cannot supersede {old.id!r} by {by!r}: {by!r} fills another slot "
                f"({new.subject!r}, {new.attribute!r}) than ({old.subject!r}, {old.attribute!r})"
            )
        with write_unit(state, "superseding a memory", now, verb="supersede") as unit:
            rec = _slots.retire_record(unit.record(old_nid), by, new.valid_from, now)
            unit.put_record(old_nid, rec)
            if old.subject is not None and new.subject is None:   # the successor takes over the slot
                _slots.join_slot(unit, new_nid, ns, _slots.canonical_subject(old.subject), old.attribute,
                                 bool(rec.get("multi")))
            unit.add_edges([(new_nid, old_nid, Relation.SUPERSEDES.code, 1.0)])
        return by

    def update(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, text: str | None = None,
               embedding: Any = None, tags: Sequence[str] | str | None = None, confidence: float | None = None,
               source: str | None = None) -> Memory:
        """Revise a memory in place (same id): new wording, vector, tags, confidence or source.

        The earlier version is kept in the record's history (see :meth:`history`). A new
        ``text`` is re-embedded (unless ``embedding`` is given) and re-indexed, so the old
        wording no longer recalls the memory. The hnswlib index replaces the vector under the
        same label (hnswlib updates an existing label in place), so the nid, its edges and the
        column arrays stay put. Slot and valid time do not change: to record a new value of
        a fact, use :meth:`supersede` (or add it with its slot).

        Parameters
        ----------
        id : str
        namespace : str
        text : str, optional
            New wording.
        embedding : array-like of float, shape (dim,), optional
            New vector (normalised here); with ``text`` omitted only the vector changes.
        tags : str or sequence of str, optional
            Replaces the tags; a single string is one tag.
        confidence : float, optional
            In [0, 1].
        source : str, optional

        Returns
        -------
        Memory
            The memory after the update; an update that changes nothing (the same text, tags,
            source, confidence and vector) writes nothing and returns the memory as it is.

        Raises
        ------
        MemoryNotFoundError
            No such memory.
        InvalidInputError, EmptyTextError, OversizeError, DimensionMismatchError, NonFiniteError
            Bad fields, nothing to update, the memory is superseded (update its successor), or
            ``id`` has a form the engine reserves for its own nodes (``validate.RESERVED_IDS``);
            nothing is written.
        """
        self._check_open(write=True)
        ns = check_namespace(namespace)
        old = self.get(check_user_id(id), namespace=ns)
        if all(x is None for x in (text, embedding, tags, confidence, source)):
            raise InvalidInputError("update needs at least one of text, embedding, tags, confidence, source")
        if old.superseded_by is not None:   # forgotten (archived) after it was superseded, too
            raise InvalidInputError(f"memory {id!r} is superseded by {old.superseded_by!r}: "
                                    "update the current version, or supersede it")
        now = clock_now()
        state = self._state
        # validate through prepare (the rules of add), then keep only what changes
        item = {"text": old.text if text is None else text, "kind": old.kind,
                "tags": old.tags if tags is None else tags, "source": old.source if source is None else source,
                "confidence": old.confidence if confidence is None else confidence, "embedding": embedding}
        p = prepare(state, item, ns, now)
        nid = state.memory_lookup(ns, id, "update")
        with state.store.read("reading a memory") as txn:
            pieces = piece_ids(state.store.get_record(txn, nid))
        if pieces and (p.text != old.text or embedding is not None):   # chunks of a long text, blocks of a message
            raise InvalidInputError(
                f"memory {id!r} is stored with {count(len(pieces), 'more piece')} (a text longer than "
                "StoreConfig.chunk_chars, or a long message split into blocks): its wording or vector "
                "cannot change in place, its pieces would keep the old text; supersede it with the new "
                "text (tags, confidence and source can be updated)")
        if (p.text == old.text and tuple(p.tags) == tuple(old.tags) and p.source == old.source
                and p.confidence == old.confidence
                and (embedding is None or np.array_equal(p.vector, state.vectors(np.array([nid]), state.space(ns))[0]))):
            return old   # nothing changes: no new version, no write (and no ledger entry)
        if embedding is not None or p.text != old.text:   # the same wording keeps its vector and keys
            embed_missing(state, self._embed_progress(False), [p])
        with write_unit(state, "updating a memory", now, verb="update") as unit:
            store, txn = unit.store, unit.txn
            rec = unit.record(nid)
            if rec.get("chunks"):   # the wording stays (checked above): its first piece's
                p.text = rec["text"]
            rec.setdefault("versions", []).append(
                {"text": rec["text"], "confidence": rec["confidence"], "tags": rec["tags"], "source": rec["source"],
                 "recorded_at": rec.get("version_at", rec["recorded_at"]), "replaced_at": now})
            if p.text != rec["text"]:   # the deduplication key follows the wording (never
                # taking over the key of another memory that holds the same text)
                unit.hand_on_text(ns, text_digest(rec["text"]), nid)
                if store.lookup_text(txn, ns, text_digest(p.text)) is None:
                    store.put_text(txn, ns, text_digest(p.text), nid)
            unit.reindex_text(ns, nid, rec["text"], p.text)
            rec.update(text=p.text, confidence=p.confidence, tags=list(p.tags), source=p.source, version_at=now)
            unit.put_record(nid, rec)
            if p.vector is not None:   # (and the sentence keys of the new wording: none of the old)
                unit.replace_vector(ns, nid, p.vector, p.keys)
        return memory_from_record(rec, None)

    def forget(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, hard: bool = False) -> None:
        """Forget a memory: archive it (default; kept, hidden from recall) or erase it (``hard``).

        A hard forget deletes the record, its embedding and every edge touching it (for
        privacy requests); it rewrites the CSR snapshot in the same transaction. A memory that
        the erased one had superseded becomes active again (it is the latest version left).
        What the engine wrote from its text is erased with it: the session summaries that
        extracted from it, the facts it was evidence for (``consolidate`` makes both again from
        what is left) and, for a decision, its outcome memories, which quote it. A chat
        message's session node keeps its erased id (so the chat sent again does not store it
        again) and stops naming its speaker when no message of theirs is left in the session
        (its text and vector rewritten in the same transaction).

        Raises
        ------
        MemoryNotFoundError
            No such memory in the namespace.
        """
        self._check_open(write=True)
        ns = check_namespace(namespace)
        check_id(id)
        state = self._state
        nid = state.memory_lookup(ns, id, "forget")
        now = clock_now()
        with write_unit(state, "erasing a memory" if hard else "archiving a memory", now, verb="forget") as unit:
            if hard:
                unit.erase(nid)
                self._embed_reworded(unit)
                return
            rec = unit.record(nid)
            if rec["state"] == MemoryState.ARCHIVED.value:
                return
            from .dynamics.forgetting import archive

            s_now = float(state.salience_now(np.array([nid]), now)[0])
            archive(unit, rec, nid, s_now, "forget() called")

    def _embed_reworded(self, unit: Any) -> None:
        """The session nodes an erase reworded (:attr:`WriteUnit.reworded`: no longer naming a
        speaker none of whose messages is left) get the vector of their new text, in the same
        transaction; without an embedder they keep their vector."""
        if not unit.reworded or self.embedder is None:
            return
        nids = list(unit.reworded)
        texts = [unit.record(n)["text"] for n in nids]
        for n, v in zip(nids, self._embed(texts)):
            unit.replace_vector(unit.reworded[n], n, check_vector(v, self.dim, field="embedder output"))

    # ------------------------------------------------------------------ reads
    def get(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, with_embedding: bool = False) -> Memory:
        """The memory ``id`` of ``namespace``.

        Raises
        ------
        MemoryNotFoundError
            No such memory.
        MemoryBlockedError
            A ``block`` / ``absolute`` censor rule hides it (a ``MemoryNotFoundError`` too).
        """
        self._check_open()
        ns = check_namespace(namespace)
        check_id(id)
        state = self._state
        with state.store.read("reading a memory") as txn:
            nid = state.lookup(ns, id, txn)
            rec = state.store.get_record(txn, nid)
            if rec is None or rec["id"] != id or rec["namespace"] != ns:
                raise StoreCorruptedError(f"id {id!r} maps to nid {nid}, which holds no record of it")
            vec = state.store.get_vector(txn, nid, self.dim) if with_embedding else None
            rec = whole_record(rec, state.piece_reader(txn, ns), state.config.store.chunk_chars // 10)
        self._check_visible(ns, id)   # a piece's memory hidden by a rule on another of its pieces
        return self._censored(memory_from_record(rec, vec))

    def _censored(self, memory: Memory) -> Memory:
        """``memory`` as a read verb may return it: refused when a censor rule hides it, with its
        ``warn`` notes otherwise (:mod:`engramdb.censor`)."""
        censor = self._state.censor
        if censor.active:
            censor.check_read(memory.namespace, memory.id)
            censor.annotate(memory, memory.namespace)
            if memory.superseded_by is not None and censor.hidden_key(memory.namespace, memory.superseded_by):
                memory.superseded_by = None   # a pointer to a hidden memory reads None
        return memory

    def _check_visible(self, ns: str, id: str) -> None:
        """Raise :class:`MemoryBlockedError` when a censor rule hides memory ``id`` of ``ns``: the
        memory whole, so for a memory stored as pieces (``id`` the memory or any of its pieces)
        when a rule hides any of its pieces, as recall and ``get`` hide it."""
        censor = self._state.censor
        if not censor.active:
            return
        censor.check_read(ns, id)
        state = self._state
        head = int(state.cols.head[state.lookup(ns, id)])
        rec = state.records([head], "reading a memory's pieces")[0]
        if rec is not None:
            for other in [rec["id"], *piece_ids(rec)]:
                if other != id:
                    censor.check_read(ns, other)

    def edges(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> list[Edge]:
        """Every stored edge touching ``id`` (both directions); edges to a memory a censor rule
        hides are left out.

        Raises
        ------
        MemoryNotFoundError
        MemoryBlockedError
            A censor rule hides ``id``.
        """
        self._check_open()
        state = self._state
        ns = check_namespace(namespace)
        nid = state.lookup(ns, check_id(id))
        self._check_visible(ns, id)
        ext = state.cols.ext_ids
        blocked = state.cols.blocked if state.censor.active else None
        out = []
        for other, rel, w, forward in state.graph.neighbours(nid):
            if blocked is not None and blocked[other]:
                state.censor.kept_out([other])
                continue
            src, tgt = (ext[nid], ext[other]) if forward else (ext[other], ext[nid])
            out.append(Edge(src, tgt, RELATION_BY_CODE[rel], float(f"{w:.7g}")))  # stored as float32
        return out

    @property
    def n_edges(self) -> int:
        """Number of stored edges (typed links and auto-links), all namespaces."""
        return len(self._state.graph)

    def namespaces(self) -> list[str]:
        """Names of the namespaces holding at least one memory."""
        self._check_open()
        return self._state.names()

    def namespace(self, name: str) -> "NamespaceHandle":
        """A handle bound to namespace ``name``: every verb of this engine that takes
        ``namespace=`` (``add``, ``recall``, ``get``, ``forget``, ...), with it filled in.

        ``db.namespace("user-42").recall("where do I live?")`` is
        ``db.recall("where do I live?", namespace="user-42")``. Passing another namespace to a
        handle's verb, or a batch item naming one, raises :class:`NamespaceError`. The namespace
        need not exist yet (its first ``add`` creates it); the handle is valid while this engine
        is open.

        Parameters
        ----------
        name : str
            The namespace.

        Returns
        -------
        NamespaceHandle
            With ``name``, ``engram`` and the verbs (their docstrings are the engine's).

        Raises
        ------
        NamespaceError
            Invalid name.
        """
        from .namespace_handle import handle_class

        self._check_open()
        return handle_class(type(self))(self, check_namespace(name))

    def drop_namespace(self, name: str) -> dict[str, int]:
        """Erase namespace ``name`` and every trace of it, for good.

        In one write unit: every memory of it in any state (records, vectors, ids,
        deduplication keys), its slot table entries, edges, keyword postings, counters, its
        dynamics log entries (the log keeps one ``drop_namespace`` entry with the counts, not the
        texts) and its hnswlib index files under ``DIR/index/`` (overwritten with zeros, then
        removed). Then the store file is compacted (:meth:`compact`): LMDB does not overwrite
        the pages it frees, so without it the erased texts would still be in ``data.mdb``.
        Afterwards no file under the store directory holds them. The cost follows the size of
        the whole store, not of the namespace: the file and the keyword snapshot are rewritten
        (0.6 to 1.0 s for a store of 50,000 memories; README, "Namespaces").

        Parameters
        ----------
        name : str
            An existing namespace (one that ever held a memory).

        Returns
        -------
        dict
            ``{"memories": m, "pieces": p}`` (int), counted as :meth:`stats` counts them:
            ``memories`` erased (in any state; a text stored as pieces is one memory), and
            ``pieces`` the pieces of the long ones after their first.

        Raises
        ------
        NamespaceError
            Invalid name, or the store holds no such namespace (the message names the closest
            ones); nothing is written.
        StoreLockedError
            Another process has the store open (read-only): nothing is written. Or another
            process opened it during the call: the namespace is erased, the file not yet
            compacted; the next writable open or :meth:`compact` does it.
        ReadOnlyError
        StoreFullError, StoreError
        """
        from .write.drop import drop_namespace

        self._check_open(write=True)
        return drop_namespace(self._state, check_namespace(name), clock_now())

    def compact(self) -> dict[str, Any]:
        """Rewrite the store file without its free pages, so that nothing erased is left in it.

        LMDB keeps what a hard :meth:`forget`, a prune or an :meth:`update` removed in the
        pages it freed (:meth:`drop_namespace` compacts on its own). This flushes the caches,
        copies every key and value into a new LMDB environment (whose pages hold nothing
        else; LMDB's own compacting copy can carry stale bytes in overflow pages), renames its
        file over ``data.mdb`` while no other process has the store open, and overwrites the
        old file with zeros. Afterwards no file under the store directory holds an erased
        byte; copy-on-write file systems and SSDs may still keep old blocks, whatever a
        program writes. Cost: one copy of the live data (README, "Namespaces").

        Returns
        -------
        dict
            ``bytes_before``, ``bytes_after`` (size of ``data.mdb``) and ``seconds``.

        Raises
        ------
        StoreLockedError
            Another process has the store open (read-only); nothing changed.
        ReadOnlyError
        StoreError
        """
        self._check_open(write=True)
        retries_map_growth(self._state.flush)()
        return self._state.store.compact()

    def salience(self, id: str, *, namespace: str = DEFAULT_NAMESPACE, now: float | None = None) -> float:
        """Current salience s(now) = s0 * 2**(-(now - t0) / half_life(kind)), in [0, 1]."""
        self._check_open()
        ns = check_namespace(namespace)
        nid = self._state.lookup(ns, check_id(id))
        self._check_visible(ns, id)
        return float(self._state.salience_now(np.array([nid]), time_or_now(now))[0])

    def history(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> list[_temporal.HistoryEntry]:
        """Versions and supersessions of ``id``'s fact, in record-time order.

        Covers every memory in ``id``'s supersession chain (what it superseded and what
        superseded it, transitively), with each memory's earlier wordings (:meth:`update`).

        Parameters
        ----------
        id : str
        namespace : str

        Returns
        -------
        list of HistoryEntry
            One per version (see ``engramdb.temporal.HistoryEntry``), oldest record first.

        Raises
        ------
        MemoryNotFoundError
        MemoryBlockedError
            A censor rule hides ``id``; other memories of the chain that a rule hides are left out.
        """
        self._check_open()
        state = self._state
        ns = check_namespace(namespace)
        nid = state.lookup(ns, check_id(id))
        self._check_visible(ns, id)
        chain = state.supersession_chain(nid) | {nid}
        if state.censor.active:
            hidden = [n for n in chain if state.cols.blocked[n]]
            state.censor.kept_out(hidden)
            chain -= set(hidden)
        ext = state.cols.ext_ids
        shown = (lambda n: not state.cols.blocked[n]) if state.censor.active else (lambda n: True)
        supersedes = {ext[n]: tuple(sorted(ext[o] for o in state.supersedes_edges(n)[0] if shown(o)))
                      for n in chain}
        records = [r for r in state.records(sorted(chain), "reading a history") if r is not None]
        if any(r.get("chunks") for r in records):   # long texts: their whole text, not the first piece
            with state.store.read("reading a history") as txn:
                records = [whole_record(r, state.piece_reader(txn, ns), state.config.store.chunk_chars // 10)
                           for r in records]
        if state.censor.active:   # a pointer to a hidden memory reads None
            records = [_scrubbed(r, state.censor, "superseded_by") for r in records]
        return _temporal.history_entries(records, supersedes)

    def query(self, *, namespace: str = DEFAULT_NAMESPACE, kind: MemoryKind | str | Sequence[Any] | None = None,
              tags: Sequence[str] | str | None = None, min_confidence: float | None = None,
              since: Any = None, until: Any = None, as_of: Any = None,
              state: MemoryState | str | Sequence[Any] | None = None, include_archived: bool = False,
              include_superseded: bool = False, order: str = "event_time_desc", limit: int = 100,
              now: Any = None, valid_at: Any = None, subject: str | None = None,
              attribute: str | None = None, kinds: MemoryKind | str | Sequence[Any] | None = None) -> list[Memory]:
        """Memories matching structured filters, in a given order, without a query vector.

        Answers e.g. "what decisions have we made about pricing, newest first":
        ``query(kind="decision", tags=["pricing"])``. See ``engramdb.query`` for the method.
        The session and entity nodes of :meth:`add_conversation` are left out, as recall leaves
        them out of its hits, unless ``tags`` names them (``tags="session"`` lists the sessions).

        Parameters
        ----------
        namespace : str
        kind, kinds : MemoryKind, str or sequence of them, optional
            Keep these kinds (``kinds`` as :meth:`recall` names it; give one of the two).
        tags : str or sequence of str, optional
            Keep memories carrying every one of these tags.
        min_confidence : float, optional
            In [0, 1].
        since, until : float, datetime or ISO-8601, optional
            Event time (``created_at``) range, inclusive (naive = UTC); a period at reduced
            precision ("2025", "2025-05", "2025-05-31") spans the whole period: ``until="2025-05"``
            keeps all of May.
        as_of : float, datetime or ISO-8601, optional
            What the store believed valid at that time (``engramdb.temporal``), each memory in
            its wording then (a memory reworded by ``update`` since shows its earlier text).
        valid_at : float, datetime or ISO-8601, optional
            What held in the world at that time, as the store knows it now: ``valid_from <= T <
            valid_to`` (superseded memories included when they held then). With ``as_of``:
            what the store believed at ``as_of`` about ``valid_at``.
        subject, attribute : str, optional
            Keep memories filling a slot of this subject and/or attribute (normalised as
            slots are: ``"Home City"`` is ``home_city``).
        state : MemoryState, str or sequence, optional
            Keep exactly these states (overrides the include flags; CLI ``--state``, repeatable).
        include_archived, include_superseded : bool
            By default only active memories (and, with ``as_of``, superseded ones valid then).
        order : {"event_time_desc", "event_time_asc", "salience_desc", "confidence_desc"}
        limit : int
            1..100000.
        now : float, datetime or ISO-8601, optional
            Time for ``salience_desc`` (current salience decays); the wall clock when omitted.

        Returns
        -------
        list of Memory
            At most ``limit``, in ``order`` (exact ties in insertion order, the last tie-break of
            :meth:`recall`, which has a query vector to break ties by first);
            never a memory a censor rule hides (see :meth:`censor`).

        Raises
        ------
        InvalidInputError, UnknownKindError, NamespaceError, NonFiniteError
        """
        self._check_open()
        ns = self._existing_namespace(namespace)
        filters = Filters.parse(kinds=kinds, kind=kind, tags=tags, min_confidence=min_confidence,
                                since=since, until=until, as_of=as_of, include_archived=include_archived,
                                include_superseded=include_superseded, state=state, valid_at=valid_at,
                                subject=subject, attribute=attribute)
        out = _query.run_query(self._state, namespace=ns, filters=filters, order=order, limit=limit,
                               now=time_or_now(now))
        return [self._censored(m) for m in out]

    def current(self, subject: str, attribute: str, *, namespace: str = DEFAULT_NAMESPACE, as_of: Any = None,
                valid_at: Any = None) -> Memory | list[Memory] | None:
        """The current value of slot (``subject``, ``attribute``): what the slot holds now.

        Parameters
        ----------
        subject, attribute : str
            The slot, normalised as on ``add`` (``"User"``, ``"Home City"`` is ``user``,
            ``home_city``).
        namespace : str
        as_of : float, datetime or ISO-8601, optional
            The value the store held current at that record time, worded as then (as
            ``recall(as_of=)``): "what plan did we have on file in January?".
        valid_at : float, datetime or ISO-8601, optional
            The value that held in the world at that valid time, as the store knows it now
            ("where did I live in 2020?"); with ``as_of``, as the store believed it then.

        Returns
        -------
        Memory, list of Memory or None
            A single-valued slot: its current memory (with a time: the one of latest
            ``valid_from`` then). A multi-valued one: its current memories, oldest ``valid_from``
            first. None when the slot holds no current memory (superseded and archived memories
            are not current; with a time, none held then).

        Raises
        ------
        InvalidInputError
            An empty or non-string subject or attribute.
        NamespaceError
            An invalid namespace, or one the store never held.

        Warns
        -----
        EmptyNamespaceWarning
            No answer from the default namespace, which holds no memories, while others do.
        """
        self._check_open()
        ns = self._existing_namespace(namespace)
        filters = Filters.parse(subject=subject, attribute=attribute, as_of=as_of, valid_at=valid_at)
        if filters.subject is None or filters.attribute is None:
            raise InvalidInputError(f"current needs a subject and an attribute, got {subject!r}, {attribute!r}")
        value = _query.current_value(self._state, ns, filters.subject, filters.attribute, _at_a_time(filters))
        if value is None or value == []:
            self._warn_if_default_is_empty(ns, "current")
        if isinstance(value, list):
            return [self._censored(m) for m in value]
        return value if value is None else self._censored(value)

    def profile(self, subject: str, *, namespace: str = DEFAULT_NAMESPACE, as_of: Any = None,
                valid_at: Any = None) -> dict[str, Memory | list[Memory]]:
        """Every slot of ``subject`` with its current value: attribute -> :meth:`current`'s answer.

        Parameters
        ----------
        subject : str
        namespace : str
        as_of, valid_at : float, datetime or ISO-8601, optional
            Each slot's value at that time, as for :meth:`current`.

        Returns
        -------
        dict of str -> Memory or list of Memory
            Sorted by attribute; slots without a current memory (or none then) are left out
            (empty for an unknown subject).

        Raises
        ------
        InvalidInputError
        NamespaceError
            An invalid namespace, or one the store never held.

        Warns
        -----
        EmptyNamespaceWarning
            No answer from the default namespace, which holds no memories, while others do.
        """
        self._check_open()
        ns = self._existing_namespace(namespace)
        filters = Filters.parse(subject=subject, as_of=as_of, valid_at=valid_at)
        if filters.subject is None:
            raise InvalidInputError("profile needs a subject, got None")
        out = _query.profile(self._state, ns, filters.subject, _at_a_time(filters))
        if not out:
            self._warn_if_default_is_empty(ns, "profile")
        return {attr: [self._censored(m) for m in v] if isinstance(v, list) else self._censored(v)
                for attr, v in out.items()}

    def context(self, query: str, *, namespace: str = DEFAULT_NAMESPACE, budget_tokens: int | None = None,
                frame: str = "conversation", count_tokens: Callable[[str], int] | None = None,
                now: Any = None, kinds: Sequence[MemoryKind | str] | None = None,
                tags: Sequence[str] | None = None, since: Any = None, until: Any = None,
                kind: MemoryKind | str | Sequence[Any] | None = None,
                subjects: Sequence[str] | None = None) -> _context.ContextBlock:
        """A Markdown block of what the agent should see for ``query``, never over its token budget.

        Three tiers (``engramdb.context``): L0, always in when it fits: the user's profile
        (current slot values), procedural memories and open (not yet reviewed) decisions; L1:
        the recall hits, each with its date and why it is there; L2: further hits and graph
        neighbours by id with a one-line preview, for :meth:`get`. The budget is not split
        evenly: L0 goes in whole; L1 gets the frame's recalled share of the budget (conversation
        1100 / 3000); L2 keeps in reserve the smaller of its share (the frame's total less its
        sections) and what its previews need; L1 hits that did not fit their share take what is
        left outside that reserve. Lines still over budget are dropped from the end of the block
        (L2, then L1 by score, then the track record and gaps, then L0). Reads only: the recall
        does not reinforce.

        Parameters
        ----------
        query : str
            What the prompt is about; recalled as by :meth:`recall`.
        namespace : str
        budget_tokens : int, optional
            Total budget in tokens, 0..10000000; the frame's default when omitted
            (``engramdb.context.FRAMES``: conversation 3000, question 6000, task 8000,
            decision 12000, creative 6000, debug 10000). L1 and L2 get their frame shares of it,
            scaled (section x budget / frame total); L0 is not capped.
        frame : {"conversation", "question", "task", "decision", "creative", "debug"}
            What the prompt is for: sets the default budget and its section split.
        count_tokens : callable str -> int, optional
            The caller's token counter (e.g. a tokenizer's ``len(encode(text))``); it must count
            the empty text as 0. Default ``engramdb.context.estimate_tokens``: characters / 4,
            rounded up.
        now : float, datetime or ISO-8601, optional
            Time for salience and recency; the wall clock when omitted.
        kinds, kind, tags, since, until : optional
            Filters of the recalled tiers, as :meth:`recall` takes them ("what did we decide
            about pricing this month": ``kind="decision", since="2025-05"``). L0 stays whole
            (the profile, procedures and open decisions are always in), and L2 then lists
            further hits only: graph neighbours of the hits could fall outside the filters.
        subjects : sequence of str, optional
            Whose current slot values L0's profile shows (``["acme"]`` for a namespace per
            customer whose slots have the customer as subject; a subject other than the user's
            is named on its lines, "acme plan: Enterprise"). Default: the user's (``user``,
            ``me``, ``i``, ...).

        Returns
        -------
        ContextBlock
            Not a string: ``text`` (the Markdown; ``str(block)`` is the same), ``items`` by tier
            (``{"L0": (ContextItem, ...), "L1": ..., "L2": ...}``, exactly those rendered),
            ``tokens_used``, ``budget_tokens``, the recall ``gaps`` in plain words, ``frame``,
            ``query``, ``dropped`` (ids of candidates that did not fit) and ``track_record``
            (None when no similar decision); ``count_tokens(text) <= budget_tokens`` always.

        Raises
        ------
        InvalidInputError
            Unknown frame (the message lists the frames), bad budget, a counter that is not
            callable or does not return an int >= 0, a counter that counts "" above the budget.
        EmptyTextError, NamespaceError
            As for :meth:`recall`.

        Warns
        -----
        EmptyNamespaceWarning
            As for :meth:`recall`: the block names no other namespace (it goes into a prompt).

        References
        ----------
        DESIGN.md "Context assembly" (the reference system's tiers and frame budgets).
        """
        self._check_open()
        filters = {"kinds": kinds, "kind": kind, "tags": tags, "since": since, "until": until}
        if subjects is not None:
            listed = as_list(subjects, "subjects")
            if not all(isinstance(x, str) and x.strip() for x in listed):
                raise InvalidInputError(f"subjects: expected a list of non-empty str, got {subjects!r}")
            subjects = tuple(dict.fromkeys(listed))
        return _context.assemble(self, query, namespace=namespace, budget_tokens=budget_tokens, frame=frame,
                                 count_tokens=count_tokens, now=None if now is None else time_or_now(now),
                                 filters={k: v for k, v in filters.items() if v is not None}, subjects=subjects)

    def stats(self) -> dict[str, Any]:
        """Counts per namespace and state, edges, graph density, backend and sizes.

        ``memories`` counts memories: a text stored as pieces (longer than
        ``StoreConfig.chunk_chars``) is one memory, and ``pieces`` counts its pieces after the
        first (each is a node of the graph and a row of the vector index)."""
        from .kernels import registry

        self._check_open()
        state = self._state
        c = state.cols
        n = c.n
        first = c.head[:n] == np.arange(n, dtype=c.head.dtype)   # a memory, or the first piece of one
        per_ns = {}
        for name in sorted(state.spaces):
            sp = state.spaces[name]
            mask = c.in_namespace(sp.code)
            memories = mask & first
            states = np.bincount(c.state[:n][memories], minlength=len(STATE_BY_CODE))
            per_ns[name] = {"memories": int(memories.sum()), "pieces": int((mask & ~first).sum()),
                            **{s.value: int(states[i]) for i, s in enumerate(STATE_BY_CODE)},
                            "density": round(state.density(name), 4)}
        info = state.store.env.info()
        stat = state.store.env.stat()
        return {"path": state.store.path, "dim": self.dim,
                "embedder": getattr(self.embedder, "name", None),
                "kernel_backend": registry.active_backend(),
                "memories": int((c.alive[:n] & first).sum()), "pieces": int((c.alive[:n] & ~first).sum()),
                "edges": len(state.graph),
                "delta_edges": state.delta_size, "namespaces": per_ns,
                "store_bytes": int(stat["psize"] * (info["last_pgno"] + 1)),
                "map_size_bytes": int(info["map_size"])}

    # ------------------------------------------------------------------ memory dynamics
    def admit_batch(self, candidates: Iterable[Mapping[str, Any]], *, namespace: str = DEFAULT_NAMESPACE,
                    now: Any = None, shadow: bool | None = None, utility: Any = None,
                    config: AdmissionConfig | None = None, recorded_at: Any = None) -> list:
        """Score candidate memories with A-MAC admission control; store those worth keeping.

        Every candidate gets five factors (future utility, factual confidence, semantic novelty,
        temporal recency, content-type prior; see :mod:`engramdb.dynamics.admission`), scored
        for the whole batch in one ``admission_score`` kernel call. A near-duplicate of a stored
        active memory or of an earlier candidate (cosine >= ``duplicate_cosine``) reinforces
        that memory instead, unless it changes a number, date, name or negation. Admitted
        candidates, reinforcements and log entries are written in one transaction.

        A candidate without a ``kind`` gets the kind its text states
        (:func:`engramdb.kinds.infer_kind`, rule-based): a fact or preference is
        ``semantic``, an event or appointment ``episodic``; chatter (greetings, thanks,
        laughter, acknowledgements, weather small talk) is rejected whatever its score, with a
        reason starting ``"phatic"``. A candidate that gives a kind keeps it and is scored as
        given. A stored candidate stating an identity, health or family fact is tagged
        ``"protected"``, which the default :meth:`rescore` never archives or prunes; so is the
        memory a reinforcing one restates. ``config`` (``infer_kind``, ``reject_phatic``,
        ``protect``) turns each rule off.

        Links: every candidate's are checked (the errors of :meth:`add_batch`), whatever the
        decision. A reinforcing candidate's links start from the memory it restates (as
        :meth:`add` of a text already stored links the stored memory); a link to a candidate
        that reinforces goes to the memory that one restates, and a link to a rejected candidate
        is left out (its decision's ``reason`` says so).

        Parameters
        ----------
        candidates : iterable of mapping
            Memories as for :meth:`add_batch` (``text`` required; ``confidence`` is factor C;
            ``kind`` optional, inferred when omitted).
        namespace : str
            The namespace the candidates are scored against and stored in.
        now : float, datetime or ISO-8601, optional
            Unix seconds for recency and reinforcement; the wall clock when omitted. It is not
            the record time (as in :meth:`add`, that is the engine's clock).
        shadow : bool, optional
            Score and log every decision but store every candidate; ``config.shadow`` when omitted.
        utility : callable list[str] -> array-like of n floats in [0, 1], optional
            Future-utility judge (e.g. an LLM); :func:`~engramdb.dynamics.heuristic_utility` when omitted.
        config : AdmissionConfig, optional
            Overrides ``self.config.admission`` for this call.
        recorded_at : float, datetime or ISO-8601, optional
            Record time of the candidates that give none (backfilled history, see :meth:`add`);
            the engine's clock when omitted.

        Returns
        -------
        list of AdmissionDecision
            One per candidate, in input order: ``decision`` (admit / reject / reinforce), the
            five ``factors``, ``score``, ``stored``, ``target``, ``reason``, ``kind`` (given or
            inferred; ``"phatic"`` for rejected chatter), ``kind_given``, ``inferred_kind``,
            ``kind_reason``, ``protected`` (health / family / identity or None).

        Raises
        ------
        The errors of :meth:`add_batch`, their text starting ``"candidates[<i>]: "`` and their
        attribute ``item_index`` giving the candidate at fault; InvalidInputError when a
        candidate names another namespace or ``utility`` returns anything but n numbers in [0,
        1]. Nothing is written.

        References
        ----------
        A-MAC, arXiv:2603.04549, section 3 (five-factor admission score, threshold 0.55).
        """
        from .dynamics.admission import admit_batch

        self._check_open(write=True)
        ns = check_namespace(namespace)
        record_now = clock_now()
        now = record_now if now is None else to_unix_seconds(now, field="now")
        config = check_config(config, AdmissionConfig)
        check_iterable(candidates, "candidates", "memory mappings")
        state = self._state
        items = list(candidates)
        prepared = []
        for i, item in enumerate(items):
            try:
                prepared.append(prepare(state, item, ns, now, record_now=record_now, recorded_at=recorded_at))
            except EngramError as exc:   # name the candidate, as add_batch names its item
                raise name_item(exc, i, "candidates")
        embed_missing(state, self._embed_progress(False), prepared)
        decisions = admit_batch(state, prepared, namespace=ns, now=now, record_now=record_now, shadow=shadow,
                                utility=utility, config=config,
                                kind_given=[isinstance(item, Mapping) and item.get("kind") is not None
                                            for item in items])
        self._after_working_added([p for p, d in zip(prepared, decisions) if d.stored], now)
        return decisions

    def decide(self, text: str, *, confidence: float, namespace: str = DEFAULT_NAMESPACE,
               options: Sequence[str] | None = None, chosen: str | None = None, tags: Sequence[str] | str = (),
               category: str | None = None, reasons: Sequence[Any] | None = None, id: str | None = None,
               embedding: Any = None, now: Any = None, recorded_at: Any = None) -> str:
        """Record a decision: a ``decision`` memory with its options, choice, reasons and confidence.

        The decision is held from decay until its outcome is reviewed (:meth:`review`;
        ``DecayConfig.hold_decisions_until_review``); :meth:`calibration` scores its confidence
        against the outcome. Two decisions with the same text are two forecasts: a text already
        stored is stored again (no deduplication, unlike :meth:`add`). See
        :mod:`engramdb.decisions`.

        Parameters
        ----------
        text : str
            What was decided (and why, in words); as for :meth:`add`.
        confidence : float
            The forecast probability, in [0, 1], that the decision works out. Required.
        namespace : str
        options : sequence of str, optional
            The alternatives weighed: distinct non-empty strings.
        chosen : str, optional
            The option taken; one of ``options`` when both are given.
        tags : str or sequence of str
            A single string is one tag.
        category : str, optional
            A grouping of the caller's (``"hiring"``, ``"infra"``).
        reasons : sequence of str or {"type": str, "text": str}, optional
            Why; a reason's ``type`` is one of ``engramdb.decisions.REASON_TYPES`` (analysis,
            pattern, empirical, authority, intuition, analogy, elimination, constraint).
        id : str, optional
            The caller's id, unique in the namespace; random when omitted.
        embedding : array-like of float, shape (dim,), optional
            The caller's vector; the engine's embedder when omitted.
        now : float, datetime or ISO-8601, optional
            When the decision was made (its event time, ``created_at``); the wall clock when
            omitted.
        recorded_at : float, datetime or ISO-8601, optional
            Record time, when the store learned of it: now when omitted. Give it to backfill
            decisions made before the store kept them, so that ``as_of`` sees them from then
            (as for :meth:`add`). Never after now.

        Returns
        -------
        str
            The decision's id (read it back with :meth:`get`: ``Memory.decision``).

        Raises
        ------
        InvalidInputError
            ``confidence`` missing or not a number in [0, 1]; ``options`` not a list of distinct
            non-empty strings; ``chosen`` not among ``options``; an unknown reason type; an id
            already stored; ``now`` in the future (more than 5 minutes past the clock: a
            decision to come could never be reviewed); or bad input as for :meth:`add`.
            Nothing is written.
        NonFiniteError
            ``confidence`` is NaN or infinite.
        OversizeError, EmptyTextError, DimensionMismatchError, NamespaceError
            As for :meth:`add`.

        References
        ----------
        DESIGN.md "Decisions, censors and the ledger"; Brier (1950).
        """
        from .decisions import prepare_decision, record_decision

        self._check_open(write=True)
        ns = check_namespace(namespace)
        record_now = clock_now()
        at = record_now if now is None else to_unix_seconds(now, field="now")
        p = prepare_decision(self._state, text, namespace=ns, confidence=confidence, now=at, record_now=record_now,
                             options=options, chosen=chosen, category=category, reasons=reasons, tags=tags,
                             id=id, embedding=embedding, recorded_at=recorded_at)
        return record_decision(self._state, p, self._embed_progress(False), record_now)

    def review(self, id: str, outcome: str | None = None, *, note: str | None = None, at: Any = None,
               namespace: str = DEFAULT_NAMESPACE, now: Any = None) -> float:
        """Review decision ``id``: record its outcome, and end its hold on salience.

        Without ``outcome`` (the earlier form of this verb) the decision is only marked
        reviewed: its salience, held since it was stored
        (``DecayConfig.hold_decisions_until_review``), decays from the review time on; a second
        review keeps the first review time.

        With ``outcome``, also (one write unit, :func:`engramdb.decisions.review_outcome`): the
        decision's ``Memory.decision`` gets the outcome, note and time, and an ``episodic``
        outcome memory ``<id>:outcome:<n>`` ("Outcome: success. Decision: ...", event time
        ``at``, the decision's tags) is stored with a ``caused_by`` edge to the decision. A later
        review of the same decision supersedes the earlier outcome memory (kept, flagged
        superseded); only the latest outcome counts in :meth:`calibration`.

        Parameters
        ----------
        id : str
            A ``decision`` memory (any state).
        outcome : {"success", "partial", "failure"}, optional
            How it turned out (scored 1, 0.5, 0 by :meth:`calibration`).
        note : str, optional
            What happened, in words; only with ``outcome``.
        at : float, datetime or ISO-8601, optional
            When the outcome became known (the review time); the wall clock when omitted. An
            outcome review may not precede the decision (its ``created_at``) nor its latest
            review.
        namespace : str
        now : float, datetime or ISO-8601, optional
            The earlier name of ``at``, kept as an alias (give one of them).

        Returns
        -------
        float
            The decision's salience at the review time ``at`` (with an outcome, after the link
            boost of its ``caused_by`` edge, which is computed at ``at`` too: a second review
            dated 10 days after the first reads the salience decayed over those 10 days, not
            up to the clock). What the review writes is recorded at the engine's clock.

        Raises
        ------
        MemoryNotFoundError
            No such memory.
        InvalidInputError
            The memory is not a decision; an unknown outcome; a note without outcome or not a
            non-empty string; ``at`` and ``now`` both given and different; an outcome review
            before the decision or its latest review. Nothing is written.
        """
        from .decisions import review_outcome
        from .dynamics.salience import review

        self._check_open(write=True)
        ns = check_namespace(namespace)
        nid = self._state.lookup(ns, check_id(id))
        if at is not None and now is not None and to_unix_seconds(at, field="at") != to_unix_seconds(now):
            raise InvalidInputError(f"review: at={at!r} and its alias now={now!r} disagree; give one of them")
        when = time_or_now(at if at is not None else now, field="at")
        if outcome is None:
            if note is not None:
                raise InvalidInputError("review: a note needs an outcome (success, partial or failure)")
            return review(self._state, nid, when)
        review_outcome(self._state, nid, outcome=outcome, note=note, at=when, record_now=clock_now(),
                       embed=self._embed_progress(False))
        return float(self._state.salience_now(np.array([nid]), when)[0])

    def calibration(self, *, namespace: str = DEFAULT_NAMESPACE, tags: Sequence[str] | str | None = None,
                    since: Any = None, until: Any = None, bins: int = 10):
        """How well the confidence of the namespace's decisions matched their outcomes.

        Reads every ``decision`` memory of the namespace (active, archived or superseded: each
        was a forecast) that passes the filters; each counts with its latest reviewed outcome
        (success 1, partial 0.5, failure 0), unreviewed ones as pending. See
        :mod:`engramdb.decisions` for the scores.

        Parameters
        ----------
        namespace : str
        tags : str or sequence of str, optional
            Keep decisions carrying every one of these tags.
        since, until : float, datetime or ISO-8601, optional
            Decision time (``created_at``) range, inclusive.
        bins : int
            Number of equal-width reliability bins, 1..100.

        Returns
        -------
        CalibrationReport
            ``brier`` (mean (confidence - outcome)^2), ``n_reviewed``, ``n_pending``,
            ``accuracy``, ``mean_confidence``, ``confidence_std``, ``overconfidence``,
            ``outcomes`` and ``bins`` (``lo``, ``hi``, ``n``, ``mean_predicted``, ``observed``).
            No reviewed decision: ``n_reviewed`` 0 and ``brier`` None.

        Raises
        ------
        NamespaceError
            A namespace the store never held (the message names close ones).
        InvalidInputError, NonFiniteError
            Bad tags, times or bins.

        References
        ----------
        Brier (1950), Monthly Weather Review 78(1):1-3; Murphy & Winkler (1977), Applied
        Statistics 26(1):41-47 (reliability diagrams).
        """
        from .decisions import calibration

        self._check_open()
        ns = self._existing_namespace(namespace)
        bins = check_int(bins, "bins", 1, 100)
        filters = Filters.parse(kind=MemoryKind.DECISION, tags=tags, since=since, until=until,
                                state=list(MemoryState))
        from .decisions import select_decisions

        decisions = select_decisions(self._state, ns, filters)
        return calibration(decisions, namespace=ns, bins=bins, tags=None if filters.tags is None else
                           tuple(sorted(filters.tags)), since=filters.since, until=filters.until)

    def rescore(self, now: Any = None, *, namespace: str | None = None, progress: bool = False,
                materialize: bool = False) -> dict[str, Any]:
        """Batch rescoring: current salience of every memory, then promotion, archive and prune floors.

        Runs the native ``rescore_salience`` kernel over the column arrays; promotes working
        memories below their floor or over ``ForgettingConfig.working_capacity`` to episodic,
        archives active memories below their kind's archive floor and erases archived ones
        below their kind's prune floor, all in one transaction, each action in
        :meth:`dynamics_log`. Memories tagged ``"protected"`` (admission and
        ``add_conversation`` tag identity, health and family facts) are never archived or
        pruned while ``ForgettingConfig.keep_protected``
        is on, nor is a slot's current value (what :meth:`current` answers) archived while
        ``ForgettingConfig.keep_current_slots`` is on. Idempotent: a second pass at the same
        ``now`` changes no record.

        ``now`` is the time salience is computed at, never a record time: what the pass writes
        is recorded at the engine's clock, as every write is (``archived_at``, ``promoted_at``,
        the :meth:`dynamics_log` entries' ``at``), while a changed memory's salience t0 becomes
        ``now`` (or stays, when later). So a pass with a ``now`` ahead of the clock (a
        simulation) archives as of the clock, and ``as_of`` the present shows it.

        A ``now`` before memories were recorded is allowed and leaves their salience as
        stored: a new memory's t0 is its record time, and the decay kernel counts a t0 after
        ``now`` as age 0 (salience never grows), so such a memory is scanned at its stored
        salience (counted in ``scanned`` and ``by_kind``) and never archived (a t0 after
        ``now`` holds it, as it holds a decision until review); it is written only as a pass
        at the clock would write it too (pruned when archived below its prune floor, promoted
        when working below its floor; the working tier's capacity counts it). Salience only
        decays, so a pass at an earlier ``now`` does a part of what a pass at the clock does;
        ``meta["rescore_last"]`` keeps the ``now`` it was computed at.

        Parameters
        ----------
        now : float, datetime or ISO-8601, optional
            Unix seconds at which salience is computed; the wall clock when omitted.
        namespace : str, optional
            Rescore one namespace; every namespace when omitted.
        progress : bool
            Show a rich progress bar.
        materialize : bool
            Also write s0 = s(now), t0 = now into every record (not only the changed ones).

        Returns
        -------
        dict
            ``scanned``, ``promoted``, ``archived``, ``pruned``, ``protected_kept``,
            ``slots_kept``, ``changes_kept`` (the later of a ``contradicts`` pair whose earlier
            memory stays: kept with ``keep_current_slots``), ``recorded_after_now`` (recorded after ``now``: they keep their
            stored salience, nothing of theirs is judged) (memories: a text stored as pieces
            counts once), ``records_written`` (records, pieces included), ``by_kind`` (per kind counts and mean salience), ``now``,
            ``seconds``, ``kernel_backend``; also
            stored in the store's meta as ``rescore_last``.

        Raises
        ------
        NamespaceError, InvalidInputError, NonFiniteError
            Bad namespace (or one the store never held, the default apart) or ``now``.

        References
        ----------
        Settles & Meeder (2016), section 3.1 (half-life decay); docs/design.md "Memory dynamics".
        """
        from .dynamics.rescore import rescore

        self._check_open(write=True)
        if namespace is not None:
            namespace = self._existing_namespace(namespace)   # a typo, not "0 scanned"
        return rescore(self._state, time_or_now(now), namespace=namespace, progress=progress,
                       materialize=materialize)

    def consolidate(self, *, namespace: str | None = None, now: Any = None,
                    summarizer: Callable[[list[str]], str] | None = None, progress: bool = False,
                    config: Any = None) -> dict[str, Any]:
        """Consolidation ("sleep"): merge near-duplicates, summarise old sessions, promote
        facts restated across sessions (:mod:`engramdb.dynamics.consolidate`).

        Near-duplicate facts and procedures (cosine >= ``duplicate_cosine``) are superseded by
        their best-worded member; each session older than ``summary_age_s`` gets an extractive
        summary (MMR over its sentences) ``sum:<session id>`` linked ``extracted_from`` to its
        turns; turns restating one thing in several sessions are promoted to a semantic memory
        ``fact:<digest>`` with ``evidence_for`` edges from them (semantic half-life). Recall
        reaches the turns through these nodes. One write per namespace; each action in
        :meth:`dynamics_log`. Idempotent: a second pass at the same ``now`` changes nothing.
        The first pass compares every pair of candidates (O(n^2)); later ones, in this process
        or another (the lists are saved beside the index), what is new or changed since
        (:mod:`engramdb.dynamics.pairs`).

        Parameters
        ----------
        namespace : str, optional
            One namespace; every namespace when omitted.
        now : float, datetime or ISO-8601, optional
            Unix seconds deciding which sessions are old; the wall clock when omitted. Never a
            record time: the summaries and facts a pass adds, and the ``retired_at`` of what it
            supersedes, are recorded at the engine's clock, as every write is, so ``as_of`` the
            present shows them whatever ``now`` was.
        summarizer : callable list of str -> str, optional
            Replaces the extractive summary: gets a session's turn texts in order, returns
            the summary text (e.g. a language model's); an answer that is not a string, or is
            empty or only whitespace and invisible characters, skips the session; one longer
            than ``StoreConfig.max_text_chars`` raises OversizeError naming the session,
            before anything is written (every namespace is planned before the first is written).
        progress : bool
            Show a rich progress bar over namespaces.
        config : ConsolidationConfig, optional
            Thresholds; the defaults of :class:`engramdb.config.ConsolidationConfig` when omitted.

        Returns
        -------
        dict
            ``merged``, ``summaries``, ``facts``, ``outdated`` (live facts a later statement
            changed, superseded by it), ``edges`` (added), ``sessions_recent``
            (sessions of two or more turns and no summary, left so because a turn's event time
            is later than ``now - summary_age_s``: a history stored without ``created_at`` is dated when
            it was stored, so a ``now`` before that finds no old session), ``namespaces``,
            ``now``, ``seconds``.

        Raises
        ------
        NamespaceError, InvalidInputError, NonFiniteError, ConfigError, OversizeError
            Bad namespace, ``now``, summarizer (or its answer) or config.

        References
        ----------
        Carbonell & Goldstein (1998), SIGIR (MMR); DESIGN.md "Memory dynamics" (consolidation).
        """
        from .config import ConsolidationConfig
        from .dynamics.consolidate import consolidate

        self._check_open(write=True)
        config = check_config(config, ConsolidationConfig) or ConsolidationConfig()
        if summarizer is not None and not callable(summarizer):
            raise InvalidInputError(f"summarizer must be callable (texts -> str), got {type(summarizer).__name__}")
        if namespace is not None:
            namespace = check_namespace(namespace)
            if self._state.space(namespace) is None:
                raise self._state.unknown_namespace(namespace)
        names = [namespace] if namespace is not None else self._state.names()
        return consolidate(self._state, time_or_now(now), namespaces=names, embed=self._embed_progress(False),
                           config=config, summarizer=summarizer, progress=progress)

    def dynamics_log(self, *, namespace: str | None = None, action: str | None = None,
                     limit: int | None = None) -> list[dict[str, Any]]:
        """Entries of the dynamics log (archive, prune, promote, admission decisions), oldest first.

        A view of the audit ledger (:meth:`ledger`): each entry rides in the ledger entry of the
        write that made it (its ``details``), so the two never disagree. Each entry has
        ``seq``, ``at`` (Unix seconds), ``action``, ``namespace``, ``id`` and details
        (``salience``, ``reason``, ``kind``; admission entries add ``score``, ``factors``,
        ``text``; prune entries keep the erased ``text``).

        Parameters
        ----------
        namespace, action : str, optional
            Keep only these; ``action`` is one of ``dynamics.forgetting.ACTIONS``.
        limit : int, optional
            Only the last ``limit`` entries.

        Raises
        ------
        InvalidInputError
            Unknown action or a negative limit.
        NamespaceError
            An invalid namespace, or one the store never held that no entry names.
        """
        from .dynamics.consolidate import ACTIONS as CONSOLIDATION
        from .dynamics.forgetting import ACTIONS, read_log
        from .write import DROP_NAMESPACE

        self._check_open()
        actions = (*ACTIONS, *CONSOLIDATION, DROP_NAMESPACE)
        if action is not None and action not in actions:
            raise InvalidInputError(f"action: expected one of {actions}, got {action!r}")
        if limit is not None:
            check_int(limit, "limit", 0, 2**62)
        if namespace is not None:
            namespace = check_namespace(namespace)
        censor = self._state.censor
        if not censor.active:
            entries = read_log(self._state, namespace=namespace, action=action, limit=limit)
        else:   # no entry naming, or keeping the text of, a memory a censor rule hides
            entries = [e for e in read_log(self._state, namespace=namespace, action=action)
                       if not censor.entry_hidden(e)]
            entries = last_items(entries, limit)
        if not entries and namespace is not None:
            self._existing_namespace(namespace)   # a typo, not an empty log (a dropped one keeps its entries)
        return entries

    # ------------------------------------------------------------------ audit ledger
    @contextmanager
    def acting_as(self, actor: str) -> Iterator["Engram"]:
        """Record the writes this thread makes inside the ``with`` block as made by ``actor``
        (the audit ledger's actor); other threads keep theirs, blocks nest.

        Parameters
        ----------
        actor : str
            1 to 256 characters, e.g. ``"planner"`` or ``"user:42"``.

        Yields
        ------
        Engram
            This engine.

        Raises
        ------
        InvalidInputError
            ``actor`` is not such a string.
        """
        state = self._state
        state.push_actor(_check_actor(actor))
        try:
            yield self
        finally:
            state.pop_actor()

    def ledger(self, *, namespace: str | None = None, verb: str | None = None, since: Any = None,
               until: Any = None, limit: int | None = None) -> list[_ledger.LedgerEntry]:
        """Entries of the audit ledger, oldest first: one per committed change (add, link,
        supersede, update, forget, rescore, consolidate, import, drop_namespace, ...), each with
        its time, actor, verb, ids, digest and hash chain (see :mod:`engramdb.store.ledger`).

        Parameters
        ----------
        namespace : str, optional
            Only entries that touched this namespace.
        verb : str, optional
            Only entries of this verb (``"add"``, ``"forget"``, ``"genesis"``, ...: one of
            :data:`engramdb.store.ledger.VERBS`).
        since, until : float, datetime or ISO-8601 str, optional
            Only entries with ``since <= time < until`` (Unix seconds); a period named at
            reduced precision ("2025-05", "2025-05-31") is its first instant for ``since`` and
            the first instant after it for ``until``, which so keeps the whole period.
        limit : int, optional
            Only the last ``limit`` of those.

        Returns
        -------
        list of LedgerEntry
            Ids of memories a censor rule hides, and dynamics details naming them or keeping
            their text, are left out of the entries shown (the stored entries and their hashes
            are untouched; :meth:`verify_ledger` checks those).

        Raises
        ------
        InvalidInputError, NamespaceError, NonFiniteError
            Bad filter values (a verb no entry can carry included); a namespace neither held
            now nor named by any entry (a dropped one keeps its entries), with the closest names.
        StoreCorruptedError
            An entry cannot be decoded (:meth:`verify_ledger` says which).
        """
        self._check_open()
        if namespace is not None:
            namespace = check_namespace(namespace)
        if verb is not None and not (isinstance(verb, str) and verb):
            raise InvalidInputError(f"verb: expected a verb name (str), got {verb!r}")
        if verb is not None and verb not in _ledger.VERBS:
            raise InvalidInputError(f"verb: {verb!r} is no ledger verb; one of: {', '.join(sorted(_ledger.VERBS))}")
        lo = None if since is None else to_unix_seconds(since, field="since")
        hi = None if until is None else until_seconds(until, field="until", inclusive=False)
        if lo is not None and hi is not None and lo > hi:
            raise InvalidInputError(f"since ({since!r}) is after until ({until!r}): the range holds no time; "
                                    "swap them")
        if limit is not None:
            check_int(limit, "limit", 0, 2**62)
        store = self._state.store
        with store.read("reading the audit ledger") as txn:
            out = list(_ledger.read(store, txn, namespace=namespace, verb=verb, since=lo, until=hi))
            if (not out and namespace is not None and self._state.space(namespace) is None
                    and next(_ledger.read(store, txn, namespace=namespace), None) is None):
                raise self._state.unknown_namespace(namespace)   # a typo, not a namespace without changes
        censor = self._state.censor
        if censor.active:   # what is shown, not what is stored: verify_ledger checks the stored entries
            out = [censor.redact_entry(e) for e in out]
        return last_items(out, limit)

    def verify_ledger(self) -> _ledger.LedgerReport:
        """Recompute the audit ledger's hash chain and compare it with its recorded head.

        Finds an edited entry, a deleted one (in the middle or cut off the tail), one inserted
        or moved, and a namespace's part erased other than by ``drop_namespace``. A store
        written before the ledger existed, opened read-only, has none: ``ok`` with 0 entries.

        Returns
        -------
        LedgerReport
            ``ok``, ``entries`` checked, ``first_bad_seq``, ``reason``, ``head_hash`` (keep a
            copy elsewhere to anchor the chain: a rewrite of every entry after the edited one
            and of the head is only caught against such a copy), ``seconds``.

        References
        ----------
        Haber & Stornetta (1991), J. Cryptology 3(2), section 5.1 (linked time-stamps).
        """
        self._check_open()
        store = self._state.store
        with store.read("verifying the audit ledger") as txn:
            return _ledger.verify(store, txn)

    def export_ledger(self, path: str | os.PathLike) -> str:
        """Write the audit ledger to a Parquet file (pyarrow), one row per entry.

        Columns: ``seq`` int64, ``time`` float64 (Unix seconds), ``actor``, ``verb``,
        ``namespaces`` list<string>, ``ids`` list<string>, ``n_ids`` int64, ``digest``,
        ``prev_hash``, ``hash`` (hex strings), ``note``, ``details`` (JSON text of the dynamics
        details), ``redacted`` list<string>. Created owner-only (0600), like the store's files.

        Parameters
        ----------
        path : str or os.PathLike
            A new file to write.

        Returns
        -------
        str
            The path written.

        Raises
        ------
        InvalidInputError
            ``path`` exists.
        OSError
            The file cannot be written.
        """
        from .export import write_ledger_parquet

        self._check_open()
        return write_ledger_parquet(self.ledger(), path)

    def export(self, path: str | os.PathLike, *, format: str = "parquet", now: Any = None) -> dict[str, str]:
        """Write every memory (with its embedding and current salience) and every edge with pyarrow.

        See :func:`engramdb.export.export_store`: ``path`` becomes a directory holding
        ``memories.<ext>`` and ``edges.<ext>`` (``parquet``, or ``arrow`` IPC files). Slot and
        time fields are real columns (``subject``, ``attribute``, ``value``, ``valid_from``,
        ``valid_to``, ``recorded_at``, ``retired_at``, ``version``) that DuckDB, pandas or
        ``pyarrow.compute`` can filter. The files are created owner-only (0600; a directory
        this call creates, 0700), like the store's own.

        Parameters
        ----------
        path : str or os.PathLike
            Directory to create (or an existing empty one).
        format : {"parquet", "arrow"}
            Parquet files, or Arrow IPC files (``.arrow``).
        now : float, datetime or ISO-8601, optional
            Time of the exported ``salience_now`` column; the wall clock when omitted.

        Returns
        -------
        dict
            ``{"memories": file path, "edges": file path}`` (str).

        Raises
        ------
        InvalidInputError
            Unknown format, or ``path`` exists and is not an empty directory.
        OSError
            The directory or a file cannot be created.
        """
        from .export import export_store

        self._check_open()
        return export_store(self._state, path, format=format, now=time_or_now(now),
                            embedder_name=getattr(self.embedder, "name", None))

    def import_from(self, path: str | os.PathLike, *, on_conflict: str = "error") -> dict[str, int]:
        """Read memories and edges written by :meth:`export` into this store, losslessly.

        See :func:`engramdb.export.import_store`. All or nothing: one write unit; on any error
        the store is unchanged. Exports of the previous format (slot and time fields in
        ``extra``) are read too.

        Parameters
        ----------
        path : str or os.PathLike
            Directory written by :meth:`export` (either format).
        on_conflict : {"error", "skip", "replace"}
            An export id the store already holds in the same namespace: ``"error"`` (default)
            raises; ``"skip"`` keeps the stored memory and attaches the export's edges that name
            it to the stored one (a kept memory that the export has superseded, current in the
            store, is retired by the export's successor as :meth:`supersede` retires it, at the
            successor's record time, so a slot keeps one current value; superseded in the
            store by another memory, it is refused); ``"replace"`` erases the stored memory (as
            ``forget(hard=True)`` does: its edges go, and what it superseded is handed on) and
            inserts the export's. An edge the store already holds between two stored memories
            keeps its stored weight. In every mode a single-valued slot keeps one current value:
            the export's and the store's meet as a new memory meets the slot's holder (the later
            ``valid_from`` wins and supersedes the other).

        Returns
        -------
        dict
            ``{"memories": n, "pieces": p, "edges": m, "skipped": s, "replaced": r}`` (int):
            memories written from the export (replacements included), the pieces of the long
            ones among them (counted apart, as :meth:`stats` does), edges written, stored
            memories kept (``"skip"``) or replaced (``"replace"``), each with its pieces.

        Raises
        ------
        InvalidInputError
            The export names another embedder than the store's (their vectors cannot be
            compared); unknown ``on_conflict``; missing or malformed tables; an id already stored (with
            ``on_conflict="error"``); a supersession pointer or edge naming a memory in neither
            the export nor the store; with ``"skip"``, a kept memory that the export and the
            store have superseded by different memories (a memory has one successor), or whose
            retirement would close a supersession cycle. Nothing is written.
        DimensionMismatchError
            The export's dimension differs from the store's.
        NonFiniteError
            A NaN or infinite number, or an all-zero embedding, in the export.
        ReadOnlyError
            The engine was opened ``readonly=True``.
        """
        from .export import import_store

        self._check_open(write=True)
        return import_store(self._state, path, now=clock_now(), on_conflict=on_conflict,
                            embedder_name=getattr(self.embedder, "name", None))

    # ------------------------------------------------------------------ censors
    def censor(self, *, pattern: str | None = None, tag: str | None = None,
               kind: MemoryKind | str | None = None, namespace: str | Sequence[str] | None = None,
               match: Callable[[Memory], bool] | None = None, action: str = "block", reason: str = "",
               ignore_case: bool = True, provenance: str = "human", id: str | None = None) -> "CensorRule":
        """Add a censor rule: memories it matches are annotated (``warn``), kept out of every read
        verb (``block``), or also refused on every write (``absolute``). See :mod:`engramdb.censor`.

        The rule applies at once to the memories already stored. A rule without ``match`` is
        stored in the store (one write, verb ``censor_add``) and survives reopening; a rule with
        a callable ``match`` lives on this open engine only (callables cannot be stored), so it
        is not seen by other processes and is gone after :meth:`close`; it may be added to a
        read-only engine.

        Parameters
        ----------
        pattern : str, optional
            Regular expression (Python ``re``) searched in the text and in earlier wordings.
        tag : str, optional
            Match memories carrying this tag.
        kind : MemoryKind or str, optional
            Match memories of this kind.
        namespace : str or sequence of str, optional
            Match only in these namespaces; alone, match every memory there. Every namespace
            when omitted.
        match : callable Memory -> bool, optional
            In-process rule; an exception it raises counts as a match (fail closed) and is
            logged.
        action : {"warn", "block", "absolute"}
        reason : str
            Why; shown in warnings and refusals (never the matched text).
        ignore_case : bool
            Case-insensitive ``pattern`` (default).
        provenance : {"human", "agent", "auto"}
            Who made the rule (the reference system's provenance).
        id : str, optional
            The rule's id; a random one when omitted.

        Returns
        -------
        CensorRule

        Raises
        ------
        InvalidInputError
            No match criterion, a pattern that does not compile, a bad action, provenance or
            callable, or an id already in use; nothing is written.
        UnknownKindError, NamespaceError
        ReadOnlyError
            A persistent rule on a store opened ``readonly=True``.

        References
        ----------
        DESIGN.md "Decisions, censors and the ledger" (the reference system's censors).
        """
        from .censor import make_rule
        from .write.censor_rules import add_rule

        self._check_open(write=match is None)
        now = clock_now()
        rule = make_rule(id=id, action=action, reason=reason, pattern=pattern, ignore_case=ignore_case, tag=tag,
                         kind=kind, namespaces=namespace, match=match, provenance=provenance, created_at=now)
        state = self._state
        if rule.id in state.censor.rules:
            raise InvalidInputError(f"a censor rule {rule.id!r} exists already; remove it first or pick another id")
        if match is None:
            add_rule(state, rule, now)
        else:
            state.censor.install(rule)
            try:
                state.recensor(added=rule)
            except BaseException:   # the callable raised past fail-closed (KeyboardInterrupt): no rule
                state.censor.uninstall(rule.id)   # (the verdicts so far are rebuilt without it)
                raise
        return rule

    def censors(self, *, namespace: str | None = None) -> list["CensorRule"]:
        """The censor rules, oldest first, each with ``hits``: its censor hits (blocked memories
        kept out of an answer, warned memories returned, writes refused) in this process since
        the store was opened (not persisted: a read would otherwise write).

        Parameters
        ----------
        namespace : str, optional
            Only the rules applying there (global ones and ones scoped to it).

        Returns
        -------
        list of CensorRule

        Raises
        ------
        NamespaceError
        """
        self._check_open()
        ns = None if namespace is None else check_namespace(namespace)
        return self._state.censor.listing(ns)

    def remove_censor(self, id: str) -> None:
        """Remove censor rule ``id``; what it hid becomes visible again. A stored rule's removal
        is one write (verb ``censor_remove``); an in-process (callable) rule is dropped from
        this engine.

        Raises
        ------
        InvalidInputError
            No such rule; nothing is written.
        ReadOnlyError
            A stored rule on a store opened ``readonly=True``.
        """
        from .write.censor_rules import remove_rule

        check_id(id, "censor id")
        state = self._state
        rule = state.censor.rules.get(id)
        if rule is None:
            self._check_open()
            raise InvalidInputError(f"no censor rule {id!r} (see censors())")
        self._check_open(write=rule.persistent)
        if rule.persistent:
            remove_rule(state, id, clock_now())
        else:
            state.censor.uninstall(id)
            state.recensor()

    # ------------------------------------------------------------------ recall
    def recall(self, query: str | None = None, *, vector: Any = None, namespace: str = DEFAULT_NAMESPACE,
               k: int = 10, kinds: Sequence[MemoryKind | str] | None = None,
               tags: Sequence[str] | None = None, min_confidence: float | None = None,
               since: Any = None, until: Any = None, include_superseded: bool = False,
               include_archived: bool = False, gate: str | None = None, reinforce: bool | None = None,
               now: Any = None, config: RecallConfig | None = None,
               as_of: Any = None, valid_at: Any = None, subject: str | None = None,
               attribute: str | None = None, kind: MemoryKind | str | Sequence[Any] | None = None) -> RecallResult:
        """Memories related to the query: vector seeds, then spreading activation over the graph.

        Parameters
        ----------
        query : str, optional
            The question as text: embedded with the store's embedder (unless ``vector`` is
            given), searched by the BM25 keyword leg, and read for time cues ("in May 2023").
            A text of only whitespace and invisible characters is empty: EmptyTextError, as
            for ``""``.
        vector : array-like of float, shape (dim,), optional
            The caller's query vector (cosine space). Give ``query``, ``vector`` or both; with
            a vector alone there is no keyword leg and no time cue.
        namespace : str
            A namespace of the store. One that exists but holds no live memory (all erased, or
            the default namespace of a new store) answers with an ``empty_namespace`` gap; a
            name the store never held raises :class:`NamespaceError`.
        k : int
            Number of hits, 1..10000.
        kinds, kind : MemoryKind, str or a sequence of them, optional
            Keep only these kinds (an empty sequence is an error: it would match nothing);
            ``kind`` as :meth:`query` names it (give one of the two).
        tags : str or sequence of str, optional
            Keep only memories carrying every one of these tags.
        min_confidence : float, optional
            Keep only memories with confidence >= this.
        since, until : float, datetime or ISO-8601, optional
            Keep only memories whose event time (``created_at``) lies in [since, until]; a
            period at reduced precision ("2025", "2025-05", "2025-05-31", UTC) is its first
            instant for ``since`` and its last for ``until``.
            Filters apply to the recalled candidates (vector seeds and what they activate),
            not to a scan of the namespace.
        include_superseded, include_archived : bool
            Superseded and archived memories are hidden unless asked for.
        gate : {"auto", "on", "off"}, optional
            Density gate mode; ``config.gate`` when omitted.
        reinforce : bool, optional
            Raise the salience and access count of the returned memories (one write);
            ``DecayConfig.reinforce_on_recall`` when omitted. A store opened ``readonly=True``
            is never written: there recall answers but reinforces nothing, whatever this says
            (a reader process shares the writer's code).
        now : float, datetime or ISO-8601, optional
            The recall's time (salience decay, recency, relative time cues), as Unix seconds or a
            time (naive = UTC); the wall clock when omitted. Omitted, the relative time cues of a
            conversation stored after the fact count from its newest message; given, from it.
        config : RecallConfig, optional
            Overrides the engine's recall settings for this call.
        as_of : float, datetime or ISO-8601, optional
            Answer with what the store believed, at that record time, to be valid then
            (``engramdb.temporal``): never a memory recorded later; a superseded memory counts
            as valid up to its supersession. Naive times are UTC.
        valid_at : float, datetime or ISO-8601, optional
            Answer with what held in the world at that time, as the store knows it now
            (``valid_from <= T < valid_to``, any record time): "where did I live in 2020?" is
            ``valid_at="2020-06-01"``. With ``as_of``: what the store believed at ``as_of``
            about ``valid_at``.
        subject, attribute : str, optional
            Keep only memories filling a slot of this subject and/or attribute.

        Returns
        -------
        RecallResult
            ``hits`` best first (an exact score tie: the higher cosine to the query first, then
            the earlier-recorded memory; :mod:`engramdb.recall.ranking`), each with the path that
            activated it; ``gaps`` says when the best evidence is weak (negative recall) or everything was filtered out;
            ``warnings`` lists ``contradicts`` pairs touching the hits (every pair of two hits, at
            most ``slots.WARNINGS_PER_HIT`` per hit with a memory that is no hit). A memory a censor rule
            hides is never a seed, a node activation passes through, a hit or a path step;
            a ``warn`` rule's notes are on the hit (``Hit.censor_notes``; see ``censor``).

        Raises
        ------
        NamespaceError
            Invalid name, or no such namespace: "no namespace 'conv26'; did you mean
            'conv-26'?" (``suggestions`` holds the close names).
        InvalidInputError, EmptyTextError, DimensionMismatchError, NonFiniteError,
        UnknownKindError, ConfigError

        Warns
        -----
        EmptyNamespaceWarning
            The default namespace holds no memories while others do (a forgotten
            ``namespace=``); the warning names them, the ``empty_namespace`` gap does not.

        References
        ----------
        Collins & Loftus (1975) spreading activation; Anderson (1974) fan effect; SYNAPSE
        (arXiv:2601.02744) density gating; docs/design.md "Recall".
        """
        t_start = time.perf_counter()
        self._check_open()
        if query is None and vector is None:
            raise InvalidInputError("recall needs a query (text), a vector=, or both")
        request = self._recall_request(
            [query], None if vector is None else [vector], namespace=namespace, k=k, kinds=kinds, kind=kind, tags=tags,
            min_confidence=min_confidence, since=since, until=until, include_superseded=include_superseded,
            include_archived=include_archived, gate=gate, now=now, config=config, as_of=as_of,
            valid_at=valid_at, subject=subject, attribute=attribute)[0]
        result, hit_nids = _recall(self._state, request, trace=self.trace, t_start=t_start)
        self._reinforce_hits(hit_nids, reinforce, request.now)
        if not result.hits:
            self._warn_if_default_is_empty(request.namespace, "recall")
        return result

    def recall_batch(self, queries: Sequence[str] | None = None, *, vectors: Any = None,
                     namespace: str = DEFAULT_NAMESPACE, k: int = 10,
                     kinds: Sequence[MemoryKind | str] | None = None, tags: Sequence[str] | None = None,
                     min_confidence: float | None = None, since: Any = None, until: Any = None,
                     include_superseded: bool = False, include_archived: bool = False, gate: str | None = None,
                     reinforce: bool | None = None, now: Any = None,
                     config: RecallConfig | None = None, as_of: Any = None, valid_at: Any = None,
                     subject: str | None = None, attribute: str | None = None,
                     kind: MemoryKind | str | Sequence[Any] | None = None) -> list[RecallResult]:
        """Many recalls in one namespace at once: one embedding call and one batched spreading
        activation kernel call (``spread_activation_batch``) for all of them.

        Each result equals ``recall`` of that query alone with the same arguments (reinforcement,
        when on, is written once for the whole batch, after every query is answered).

        Parameters
        ----------
        queries : sequence of str, optional
            The questions; give ``queries``, ``vectors`` or both (of equal length).
        vectors : array-like of float, shape (q, dim), optional
            The caller's query vectors (cosine space).
        namespace, k, kinds, kind, tags, min_confidence, since, until, include_superseded,
        include_archived, gate, reinforce, now, config, as_of, valid_at, subject, attribute
            As for :meth:`recall`, applied to every query.

        Returns
        -------
        list of RecallResult
            In query order; ``latency_s`` is the batch's time over the number of queries.

        Raises
        ------
        The errors of :meth:`recall`; InvalidInputError when ``queries`` and ``vectors`` differ
        in length or neither is given.

        Warns
        -----
        EmptyNamespaceWarning
            As for :meth:`recall`.

        References
        ----------
        As :meth:`recall`; the batch kernel's contract is ``kernels.reference.spread_activation_batch``.
        """
        from .recall import recall_batch

        self._check_open()
        if queries is None and vectors is None:
            raise InvalidInputError("recall_batch needs queries (texts), vectors=, or both")
        texts = None if queries is None else as_list(queries, "queries", ordered=True)
        vecs = None
        if vectors is not None:
            vecs = list(vectors) if isinstance(vectors, np.ndarray) else as_list(vectors, "vectors", ordered=True)
        if texts is not None and vecs is not None and len(texts) != len(vecs):
            raise InvalidInputError(f"queries ({len(texts)}) and vectors ({len(vecs)}) differ in length")
        n = len(texts if texts is not None else vecs)
        requests = self._recall_request(   # checked even for no query: the errors of recall
            texts or [None] * n, [] if n == 0 else vecs, namespace=namespace, k=k, kinds=kinds, kind=kind, tags=tags,
            min_confidence=min_confidence, since=since, until=until, include_superseded=include_superseded,
            include_archived=include_archived, gate=gate, now=now, config=config, as_of=as_of,
            valid_at=valid_at, subject=subject, attribute=attribute)
        if n == 0:
            return []
        self._warn_if_default_is_empty(requests[0].namespace, "recall_batch")
        answers = recall_batch(self._state, requests, trace=self.trace)
        hit_nids = [nid for _result, nids in answers for nid in nids]
        if hit_nids:
            counts: dict[int, int] = {}
            for nid in hit_nids:
                counts[nid] = counts.get(nid, 0) + 1
            self._reinforce_hits(counts, reinforce, requests[0].now)
        return [result for result, _nids in answers]

    def _recall_request(self, queries: list, vectors: list | None, *, namespace: Any, k: Any, kinds: Any,
                        tags: Any, min_confidence: Any, since: Any, until: Any, include_superseded: bool,
                        include_archived: bool, gate: Any, now: Any, config: Any, as_of: Any, valid_at: Any = None,
                        subject: Any = None, attribute: Any = None, kind: Any = None) -> list[RecallRequest]:
        """Check recall's arguments (shared by :meth:`recall` and :meth:`recall_batch`); embeds the
        texts that come without a vector in one call."""
        config = check_config(config, RecallConfig)
        cfg = config or self.config.recall
        if gate is not None:
            cfg = replace(cfg, gate=gate)
        ns = self._existing_namespace(namespace)   # a typo, not an empty answer
        k = check_int(k, "k", 1, 10_000)
        filters = Filters.parse(kinds=kinds, kind=kind, tags=tags, min_confidence=min_confidence, since=since, until=until,
                                as_of=as_of, include_archived=include_archived,
                                include_superseded=include_superseded, valid_at=valid_at, subject=subject,
                                attribute=attribute)
        now_given, now = now is not None, time_or_now(now)
        limit = self.config.store.max_text_chars
        texts = [None if q is None else check_query(q, limit) for q in queries]
        if vectors is not None:
            qvecs = [check_vector(v, self.dim, field="vector") for v in vectors]
        elif any(t is None for t in texts):
            raise InvalidInputError("a query without text needs its vector (vectors=)")
        else:
            qvecs = [check_vector(v, self.dim, field="embedder output") for v in self._embed(texts)]
        calibration = RELEVANCE_CALIBRATION.get(_family(self.embedder), RELEVANCE_CALIBRATION["minilm"])
        relevance = (cfg.relevance_coef or calibration[0],
                     calibration[1] if cfg.relevance_threshold is None else cfg.relevance_threshold)
        return [RecallRequest(ns, t, v, k, filters, cfg, now, relevance, now_given) for t, v in zip(texts, qvecs)]

    def _reinforce_hits(self, hit_nids, reinforce: bool | None, now: float) -> None:
        """Reinforce what a recall returned (``DecayConfig.reinforce_on_recall`` by default; never
        on a read-only store)."""
        if reinforce is None:
            reinforce = self.config.decay.reinforce_on_recall
        if reinforce and len(hit_nids) and not self.readonly:
            counts = hit_nids if isinstance(hit_nids, dict) else dict.fromkeys(hit_nids, 1)
            self._reinforce(counts, now)


def _conversation_summary(plan, fresh: list[Prepared], edges: int, superseded: list[str],
                          corrected: list[str], changed: list[list[str]]) -> dict[str, Any]:
    """What :meth:`Engram.add_conversation` returns (its docstring), for a conversation ``plan``
    (:func:`engramdb.conversation.plan_conversation`) whose new memories ``fresh`` were written
    with ``edges`` new edges (none of either when every message was stored already); one shape
    for every outcome."""
    pieces = sum((p.extra or {}).get("chunk_of") is not None for p in fresh)
    return {"message_ids": plan.message_ids if plan.items else [], "sessions": plan.sessions if plan.items else [],
            "memories": len(fresh) - pieces, "pieces": pieces, "entities": sum(1 for p in fresh if "entity" in p.tags),
            "edges": edges, "already_stored": plan.already_stored, "superseded": superseded,
            "corrected": corrected, "changed": changed, "left_out": plan.left_out}


def _edge_specs(edges: Iterable[Any], check_end: Callable[[Any, str], str],
                user: bool) -> list[tuple[str, str, Relation, float | None]]:
    """Edges checked before any write: (source, target, relation, weight or None) each; ends
    by ``check_end``, no self-link, a known relation (not ``supersedes`` for a caller's own
    edges, ``user``), a weight in (0, 1] or None.

    Raises
    ------
    InvalidInputError, UnknownRelationError, NonFiniteError
    """
    check_iterable(edges, "edges", "edges")
    specs = []
    for e in edges:
        src, tgt, rel, w = edge_fields(e, ("source", "target", "relation", "weight"), 2, "an edge")
        src, tgt = check_end(src, "source"), check_end(tgt, "target")
        if src == tgt:
            raise InvalidInputError(f"cannot link memory {src!r} to itself")
        rel = Relation.parse(rel)
        if user:
            check_user_relation(rel, "link")
        specs.append((src, tgt, rel, check_weight(w)))
    return specs


def _protected_tag(roles: tuple[str, ...]) -> Callable[[str, str], tuple[str, ...]] | None:
    """``add_conversation``'s tagger: ``("protected",)`` for a message of ``roles`` that states
    an identity, health or family fact (``kinds.protected_category``), else ``()``;
    None when no role is protected."""
    if not roles:
        return None
    from .kinds import protected_category

    def tags(role: str, content: str) -> tuple[str, ...]:
        return (PROTECTED_TAG,) if role in roles and protected_category(content)[0] is not None else ()
    return tags


def _scrubbed(rec: dict, censor: Any, field: str) -> dict:
    """``rec`` with ``field`` (an id in its namespace) set to None when a censor rule hides that
    memory (a copy; the stored record is untouched)."""
    other = rec.get(field)
    if other is not None and censor.hidden_key(rec["namespace"], other):
        rec = {**rec, field: None}
    return rec


def _embed(embedder: Any, texts: list[str], progress: bool) -> np.ndarray:
    """Embed ``texts`` in chunks, with a progress bar when asked: float32, one row per text (the
    callers check each row's dimension and values).

    Raises
    ------
    InvalidInputError
        No embedder, or its output is no numeric matrix with a row per text.
    """
    if embedder is None:
        raise InvalidInputError("this store has no embedder: pass vector=/embedding= explicitly")
    chunk = 256
    if not progress or len(texts) <= chunk:
        return _rows(embedder.embed(texts), len(texts))
    parts = [_rows(embedder.embed(texts[i:i + chunk]), len(texts[i:i + chunk]))
             for i in track(range(0, len(texts), chunk), "embedding")]
    return np.concatenate(parts)


def _rows(out: Any, n: int) -> np.ndarray:
    """An embedder's answer for ``n`` texts as a float32 matrix of ``n`` rows."""
    try:
        raw = np.asarray(out)
        if raw.dtype.kind not in "biuf":   # complex, text, objects: no real matrix
            raise TypeError(f"its values are of dtype {raw.dtype}")
        vecs = np.asarray(raw, np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"embedder output: no numeric matrix ({exc})") from None
    if vecs.ndim != 2 or len(vecs) != n:
        raise InvalidInputError(f"embedder output: shape {vecs.shape} for {count(n, 'text')}; an embedder "
                                "returns one row (vector) per text")
    return vecs


class _StoredEmbedder:
    """The store's own embedder, built on first use: opening a store and recalling by vector
    never imports the embedding stack (scikit-learn or a sentence model)."""

    def __init__(self, family: str, dim: int, name: str):
        self.family, self.dim, self.name = family, dim, name
        self._embedder = None

    def embed(self, texts):
        if self._embedder is None:
            from .embed import get_embedder

            built = get_embedder(self.family, self.dim)
            if built.name != self.name:
                raise ConfigError(
                    f"the store was written with embedder {self.name!r}, the default {self.family!r} "
                    f"embedder is now {built.name!r}; open the store with embedder= explicitly"
                )
            self._embedder = built
        return self._embedder.embed(texts)


def _check_same_embedder(embedder: Any, stored: str, path: str) -> None:
    """Refuse to open a store with another embedder than the one that wrote its vectors: the
    index would hold vectors of two models, which no cosine compares meaningfully (recall would
    silently miss what the other model wrote).

    Raises
    ------
    ConfigError
        ``embedder.name`` differs from the name the store recorded.
    """
    from .embed import family_of

    given = getattr(embedder, "name", None)
    if given != stored:
        how = ("Open it without naming an embedder (no embedder= in Python, no --embedder on the command "
               "line: it uses the one it recorded)" if family_of(str(stored)) is not None
               else f"Open it with the embedder object it was made with (its name is {stored!r}: engramdb "
                    "cannot rebuild it)")
        raise ConfigError(
            f"store {path!r} was written with embedder {stored!r}, and this open asks for "
            f"{given!r}: their vectors cannot share one index. {how}; to move to another model, add "
            f"the texts to a new store opened with that embedder")


def _at_a_time(filters: Filters) -> Filters | None:
    """``filters`` when they name a time (``as_of`` / ``valid_at``: a slot read then), else None
    (the current value)."""
    return filters if filters.as_of is not None or filters.valid_at is not None else None


def _finish_compaction(store: LmdbStore) -> None:
    """Compact a store whose last namespace drop did not get to (a crash, or a reader that held
    the store open); when another process still has it open, warn and leave it pending."""
    try:
        store.compact()
    except StoreLockedError as exc:
        warnings.warn(f"erased data is waiting for the store file to be compacted: {exc}", RuntimeWarning,
                      stacklevel=3)


def _start_ledger(store: LmdbStore, actor: str) -> None:
    """Write the genesis entry of a store written before the audit ledger (once)."""
    with store.read("reading the audit ledger") as txn:
        if _ledger.has_ledger(store, txn):
            return
    with store.write("starting the audit ledger") as txn:
        _ledger.start(store, txn, time=clock_now(), actor=actor, new_store=False)
        store.put_meta(txn, "schema", SCHEMA_VERSION)


def _check_actor(actor: Any) -> str:
    if not isinstance(actor, str) or not 1 <= len(actor) <= 256 or not encodable(actor):
        raise InvalidInputError(f"actor: expected a str of 1 to 256 characters of valid Unicode (who writes), "
                                f"got {actor!r}")
    return actor


def _family(embedder: Any) -> str | None:
    """The built-in family of an engine's embedder (a reopened store's too), else None."""
    return getattr(embedder, "family", None) or (_embedder_family(embedder) if embedder is not None else None)


def _embedder_family(embedder: Any) -> str | None:
    """"hashing" or "minilm" for the built-in embedders (so a reopen can rebuild them), else None."""
    from .embed import HashingEmbedder, MiniLMEmbedder

    if isinstance(embedder, HashingEmbedder):
        return "hashing"
    if isinstance(embedder, MiniLMEmbedder):
        return "minilm"
    return None


@strict_flags
def open(path: str | os.PathLike, *, dim: int | None = None, embedder: Any = None,
         config: EngramConfig | None = None, create: bool = True, readonly: bool = False,
         lock_timeout_s: float = 0.0, actor: str = _ledger.DEFAULT_ACTOR) -> Engram:
    """Open (or create) the engramdb store in directory ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        Store directory: an LMDB environment plus ``index/`` with one hnswlib file per namespace.
    dim : int, optional
        Embedding dimension of a new store (default: the embedder's, 384); must match an
        existing store.
    embedder : Embedder, str or None
        Object with ``dim``, ``name`` and ``embed(texts) -> float32 (n, dim)``, or a name
        ("hashing", "minilm", "auto"). When omitted, an existing store uses the embedder it
        recorded, and a new one gets ``embed.default_embedder(dim)``: all-MiniLM-L6-v2 (int8
        ONNX, on CPU, no network) when it loads, else the hashing embedder with a warning;
        ``ENGRAMDB_EMBEDDER=hashing|minilm|auto`` changes that choice. ``"auto"`` is that
        default named (the variable is then not read). ``stats()["embedder"]``
        names the one in use.
    config : EngramConfig, optional
        All settings (``EngramConfig(recall=RecallConfig(seed_k=20))``); the defaults when omitted.
        A dict or any other object raises ``ConfigError``.
    create : bool
        Create the store when missing.
    readonly : bool
        Open for reading only: several processes may read while one writes; write verbs raise
        ``ReadOnlyError``.
    lock_timeout_s : float
        Seconds to wait while another process holds the store's writer lock (like SQLite's
        ``busy_timeout``); 0 (the default) raises ``StoreLockedError`` at once.
    actor : str
        Who this engine's writes are made by, in the audit ledger (``Engram.ledger``); 1 to 256
        characters; default ``"unspecified"`` (nobody said). ``Engram.acting_as`` changes it for
        a block of one thread. A writable open of a store without a ledger (new, or written by
        an earlier engramdb) starts it with a genesis entry.

    Returns
    -------
    Engram
        Use it as a context manager, or call ``close()``.

    Raises
    ------
    StoreNotFoundError
        No store at ``path`` and ``create`` is false (or ``readonly``).
    DimensionMismatchError
        ``dim`` or the embedder's dimension differs from the store's.
    InvalidInputError
        ``dim`` not a positive integer, or one the embedder cannot produce; or ``path`` is a
        directory holding other files and no store, and neither ``dim`` nor ``embedder`` says
        to create one there.
    ConfigError, BackendUnavailableError
        ``config`` is not an ``EngramConfig``; ``ENGRAMDB_EMBEDDER`` is not a choice, or names a model that cannot load; or
        ``embedder`` is not the one an existing store was written with (its ``name`` differs
        from the recorded one: the vectors of two models cannot share an index).
    StoreLockedError, StoreCorruptedError, StoreError
    """
    from .embed import default_embedder, get_embedder

    config = check_config(config, EngramConfig) or EngramConfig()
    actor = _check_actor(actor)
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path: expected a directory path, got {type(path).__name__}")
    auto = isinstance(embedder, str) and embedder.strip().lower() == "auto"
    if auto:   # the default choice, named: as no embedder=, but ENGRAMDB_EMBEDDER is not read
        embedder = None
    if (dim is None and getattr(embedder, "dim", None) is None and not isinstance(embedder, str)
            and not os.path.exists(os.path.join(os.fspath(path), "data.mdb"))):
        if not create or readonly or not os.path.isdir(os.fspath(path)) and os.path.exists(os.fspath(path)):
            raise StoreNotFoundError(f"no engramdb store at {os.fspath(path)!r}")
        if os.path.isdir(os.fspath(path)) and os.listdir(os.fspath(path)):
            raise InvalidInputError(
                f"{os.fspath(path)!r} holds other files and no engramdb store: open a new or empty "
                "directory, or pass dim= (or embedder=) to create the store in this one anyway"
            )
    if dim is not None:
        check_int(dim, "dim", 1, 65536)
    if isinstance(embedder, str):
        embedder = get_embedder(embedder, dim)
    if isinstance(lock_timeout_s, bool) or not isinstance(lock_timeout_s, (int, float)) \
            or not 0.0 <= float(lock_timeout_s) < float("inf"):
        raise InvalidInputError(f"lock_timeout_s: expected a finite number of seconds >= 0, got {lock_timeout_s!r}")
    store = LmdbStore(path, map_size_bytes=config.store.map_size_bytes, sync=config.store.sync,
                      create=create, readonly=readonly, lock_timeout_s=float(lock_timeout_s))
    try:
        with store.read("reading store metadata") as txn:
            schema = store.get_meta(txn, "schema")
            stored_dim = store.get_meta(txn, "dim")
            stored_embedder = store.get_meta(txn, "embedder")
            stored_family = store.get_meta(txn, "embedder_family")
        if schema is not None and schema not in READABLE_SCHEMAS:
            raise StoreCorruptedError(f"store schema {schema} is not supported (this engramdb reads "
                                      f"{', '.join(map(str, READABLE_SCHEMAS))})")
        emb_dim = getattr(embedder, "dim", None)
        if stored_dim is None:
            if readonly:
                raise StoreCorruptedError(f"{store.path!r} is not an initialised engramdb store")
            if embedder is None:
                embedder = default_embedder(dim, "auto" if auto else None)
                emb_dim = embedder.dim
            dim = dim or emb_dim
            if dim is None:
                raise InvalidInputError("a new store needs dim= (or an embedder that has a dim)")
            with store.write("initialising the store") as txn:
                store.put_meta(txn, "schema", SCHEMA_VERSION)
                store.put_meta(txn, "dim", int(dim))
                store.put_meta(txn, "embedder", getattr(embedder, "name", None))
                store.put_meta(txn, "embedder_family", _embedder_family(embedder))
                store.put_meta(txn, "created_at", clock_now())
                _ledger.start(store, txn, time=clock_now(), actor=actor, new_store=True)
        else:
            if isinstance(stored_dim, bool) or not isinstance(stored_dim, int) or not 1 <= stored_dim <= 65536:
                raise StoreCorruptedError(f"store {store.path!r} is damaged: its recorded dimension is {stored_dim!r}")
            if dim is not None and dim != stored_dim:
                raise DimensionMismatchError(
                    expected=stored_dim, got=dim, field="dim",
                    hint=f"this store holds {stored_dim}-dim vectors and its dimension cannot change: open it "
                         f"with dim={stored_dim} or without dim= (a {dim}-dim store needs another path)")
            dim = stored_dim
            if stored_family is not None and stored_family not in ("hashing", "minilm"):
                raise StoreCorruptedError(f"store {store.path!r} is damaged: its recorded embedder family is "
                                          f"{stored_family!r}")
            if embedder is None and stored_family:
                embedder = _StoredEmbedder(stored_family, dim, stored_embedder)
            elif embedder is not None and stored_embedder is not None:
                _check_same_embedder(embedder, stored_embedder, store.path)
        if embedder is not None and getattr(embedder, "dim", dim) != dim:
            raise DimensionMismatchError(expected=dim, got=embedder.dim, field="embedder.dim")
        if not readonly and store.compaction_pending():
            _finish_compaction(store)
        if not readonly:
            retries_map_growth(_start_ledger)(store, actor)
        return Engram(store, dim=int(dim), embedder=embedder, config=config, readonly=readonly, actor=actor)
    except EngramError:
        store.close()
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
        store.close()   # a value in the store is not what engramdb wrote
        raise StoreCorruptedError(f"store {store.path!r} is damaged: {type(exc).__name__}: {exc}") from exc
    except BaseException:
        store.close()
        raise
