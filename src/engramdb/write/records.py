"""New memories: validation of an item, its record, and the one path that writes them.

:func:`prepare` turns a caller's mapping into a validated :class:`Prepared` (nothing written).
:func:`write_new` stores a batch of them in one :class:`~engramdb.write.unit.WriteUnit`: nids,
vectors into the namespace index, explicit links, link boosts, auto-links, the caller's extra
step, slot resolution, then the records through :meth:`WriteUnit.insert_many`. hnswlib inserts
the batch in a worker thread while this one checks ids and links and analyses the texts
(keyword terms, conflict subjects); the neighbour search waits for it. ``add``,
``add_batch``, ``supersede`` (with a new text) and admission all come here; import writes its
ready-made records through the same :meth:`WriteUnit.insert`.
"""
from __future__ import annotations

import heapq
import re
import threading
import uuid
from functools import lru_cache
from dataclasses import dataclass
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import slots as _slots, temporal as _temporal
from ..batch_plan import whole_record
from ..contiguity import default_weight
from ..timeref import resolve_time_refs
from ..changes import change_report, changes_value, gives_value, named_stems, word_stems
from ..handovers import handover_report
from ..swaps import LEFT_JOB, swap_report
from ..standing import STANDING_BITS, STANDING_WORDS, refines_standing, standings
from ..starts import change_start
from ..chatter import filler_sentence
from ..facts import (SPEAKER_LABEL, STORED_TEXT_MEMO, bare_change, conflict_many, fact_signature, frames_a_value, plain_statement,
                     restates, subject_key, subject_of, subject_text)
from ..index.keyword import term_counts
from ..sentences import key_sentences, several_claims, several_sentences
from ..speakers import labelled, speaker_of
from ..errors import DimensionMismatchError, InvalidInputError, MemoryNotFoundError, OversizeError
from ..state import EngineState
from ..state.subject_hints import subject_code
from ..types import GENERATED_TAGS, MemoryKind, MemoryState, Relation
from ..store.lmdb_store import id_key
from ..validate import (
    MAX_TAGS, as_list, check_fraction, check_id, check_link_spec, check_namespace, check_text, check_user_id,
    check_user_tags, check_vector, encodable, plain_str, to_unix_seconds,
)
from .reinforce import boost_links, initial_t0
from .unit import WriteUnit, write_unit
from ..wording import count

__all__ = ["Prepared", "ITEM_FIELDS", "prepare", "record_of", "embed_missing", "write_new", "by_namespace",
           "retire_for"]

#: The fields a memory mapping may carry (the keyword arguments of ``Engram.add``).
ITEM_FIELDS = frozenset({"id", "namespace", "kind", "text", "embedding", "created_at", "confidence", "salience",
                         "source", "tags", "links", "valid_from", "valid_to", "slot", "subject", "attribute",
                         "value", "single_valued", "recorded_at"})


@dataclass(slots=True)
class Prepared:
    """A validated memory waiting for its write transaction."""

    ext_id: str
    namespace: str
    kind: MemoryKind
    text: str
    created_at: float
    confidence: float
    salience: float
    source: str | None
    tags: tuple[str, ...]
    vector: np.ndarray | None
    links: list[tuple[str, Relation, float]]
    nid: int = -1
    keys: np.ndarray | None = None          # sentence keys (s, dim) when the embedder made the vector
    recorded_at: float = 0.0                # record time (the write's, or the caller's backfill)
    valid_from: float = 0.0                 # bi-temporal fields (temporal.py) and slot (slots.py)
    valid_to: float | None = None
    stated_valid_to: float | None = None
    retired_at: float | None = None
    state: MemoryState = MemoryState.ACTIVE
    superseded_by: str | None = None
    subject: str | None = None
    attribute: str | None = None
    slot_value: str | None = None
    single: bool = True
    slot_mode: str = "auto"                 # "auto": resolve the slot; "append": supersede() decided
    auto_id: bool = False              # the caller gave no id (deduplication by text applies)
    created_given: bool = False        # the caller gave the event time (created_at)
    extra: dict | None = None          # extra record fields (chunked long texts)
    digest: bytes | None = None        # deduplication key when not the text's own (chunk heads)
    position: int | None = None        # the item's place in the caller's batch (add_batch: errors name it)
    made_from: frozenset = frozenset()  # nids of the stored memories it is made of (a promoted fact's
    # evidence): conflict detection never retires nor contradicts them by it


def name_item(exc: Exception, position: int | None, what: str = "items") -> Exception:
    """``exc`` naming the batch item at ``position`` ("items[3]: ...", or ``what``'s name:
    "candidates[3]: ..."; attribute ``item_index``); unchanged when ``position`` is None (no
    caller's batch: ``add``)."""
    if position is not None:
        exc.args = (f"{what}[{position}]: {exc}", *exc.args[1:])
        exc.item_index = position
    return exc


def _named(p: Prepared, exc: Exception) -> Exception:
    return name_item(exc, p.position)


def by_namespace(prepared: list[Prepared]) -> dict[str, list[Prepared]]:
    """The batch grouped by namespace, in batch order."""
    groups: dict[str, list[Prepared]] = {}
    for p in prepared:
        groups.setdefault(p.namespace, []).append(p)
    return groups


# what to do about an id already stored, by the verb that was given it
_TAKEN_ID_HINT = "a new memory needs an id not yet stored in its namespace (or none, for a random one)"
_TAKEN_ID_HINTS = {
    "add": "to replace that memory use supersede(), to reword it in place update()",
    "add_batch": "to replace that memory use supersede(), to reword it in place update()",
    "supersede": ("the successor is a new memory and needs an id not yet stored (or none, for a random one); "
                  "to make that stored memory the successor, pass by= instead of text"),
}


def prepare(state: EngineState, item: Mapping[str, Any], default_ns: str, now: float, *,
            record_now: float | None = None, recorded_at: Any = None, engine_ids: bool = False,
            derived: bool = False) -> Prepared:
    """Validate one memory mapping (the keyword arguments of ``Engram.add``); nothing is written.

    Parameters
    ----------
    state : EngineState
    item : mapping
    default_ns : str
        Namespace of an item that names none.
    now : float
        The verb's time, Unix seconds: the default event time of an item recorded now (a
        backfilled item, with ``recorded_at``, defaults to its record time).
    record_now : float, optional
        The engine's clock, Unix seconds: the default record time and the latest allowed
        (``now`` when omitted).
    recorded_at : float, datetime or ISO-8601, optional
        The call's record time for items without their own ``recorded_at`` (backfilled history).
    engine_ids : bool
        The item is one of the engine's own nodes (a session, entity, piece, summary, fact or
        outcome), whose id may take a reserved form; a caller's id may not
        (:func:`engramdb.validate.check_user_id`).
    derived : bool
        The memory is one the engine derives from others (a consolidation summary or fact). The
        slot extractor is not asked: the slot its text states is its evidence's, and a derived
        memory filling it would compete with (and could supersede) the very turns it was made of.

    Raises
    ------
    InvalidInputError, EmptyTextError, OversizeError, UnknownKindError, UnknownRelationError,
    NonFiniteError, DimensionMismatchError, NamespaceError
    CensoredError
        An ``absolute`` censor rule matches the memory (:mod:`engramdb.censor`).
    """
    if not isinstance(item, Mapping):
        raise InvalidInputError(f"a memory must be a mapping of fields, got {type(item).__name__}")
    unknown = set(item) - ITEM_FIELDS
    if unknown:
        raise InvalidInputError(f"unknown memory field(s) {sorted(unknown)}")
    ns = check_namespace(default_ns if item.get("namespace") is None else item["namespace"])
    ext_id = item.get("id")
    auto_id = ext_id is None
    ext_id = uuid.uuid4().hex if auto_id else (check_id if engine_ids else check_user_id)(ext_id)
    id_key(ns, ext_id)   # one that LMDB can hold with its namespace (InvalidInputError if not)
    text = check_text(item.get("text"), state.config.store.max_text_chars)
    kind = MemoryKind.parse(item.get("kind", MemoryKind.EPISODIC))
    record_now = now if record_now is None else record_now
    backfill = _temporal.recorded_time(item, recorded_at, record_now)
    created = item.get("created_at")   # a backfilled memory happened when it was recorded, unless told
    created_at = (now if backfill is None else backfill) if created is None else to_unix_seconds(created)
    confidence = check_fraction(item.get("confidence", 1.0), "confidence")
    sal = item.get("salience")
    salience = state.config.decay.initial_salience if sal is None else check_fraction(sal, "salience")
    source = item.get("source")
    if source is not None and not (isinstance(source, str) and encodable(source)):
        raise InvalidInputError(f"source must be a string or None, got {source!r}")
    tags = item.get("tags")
    if tags is None:
        tags = ()
    elif isinstance(tags, str):   # one tag, as the filters of recall and query take it
        tags = [tags]
    elif not isinstance(tags, bytes):
        tags = as_list(tags, "tags")
    if isinstance(tags, bytes) or not all(
            isinstance(t, str) and t and "\x00" not in t and encodable(t) for t in tags):
        raise InvalidInputError(f"tags must be a string (one tag) or a list of non-empty strings without NUL, "
                                f"got {item.get('tags')!r}")
    if len(tags) > MAX_TAGS:
        raise OversizeError(f"{count(len(tags), 'tag')}, more than {MAX_TAGS}")
    tags = [plain_str(t) for t in tags]
    if source is not None:
        source = plain_str(source)
    if not engine_ids:
        check_user_tags(tags)
    vec = item.get("embedding")
    vector = None if vec is None else check_vector(vec, state.dim)
    links = item.get("links") or ()
    if isinstance(links, (str, bytes, Mapping)) or not hasattr(links, "__iter__"):
        raise InvalidInputError(f"links must be a list of links ({{'to': id, 'relation', 'weight'}}), got {links!r}")
    links = [check_link_spec(spec, engine_ids) for spec in links]
    if not engine_ids and state.censor.active:   # a hidden memory is refused as link() refuses it
        for to, _rel, _w in links:
            state.censor.check_read(ns, to)
    p = Prepared(ext_id, ns, kind, text, created_at, confidence, salience, source,
                 tuple(dict.fromkeys(tags)), vector, links, auto_id=auto_id, created_given=created is not None)
    if state.censor.active:   # an absolute censor rule refuses the memory (CensoredError)
        state.censor.check_write({"id": ext_id, "namespace": ns, "kind": kind.value, "text": text,
                                  "tags": list(p.tags), "created_at": created_at, "confidence": confidence,
                                  "source": source})
    p.recorded_at = record_now if backfill is None else backfill
    p.valid_from, p.valid_to = _temporal.valid_interval(item, created_at)
    if item.get("valid_from") is None and item.get("valid_to") is None:
        start = change_start(text, created_at, reads=change_report)   # a change said to start on a
        if start is not None:   # day to come ("... starting next week"): valid from then (recall puts
            p.valid_from = start   # it first from then on)
    p.stated_valid_to = p.valid_to
    sc = state.config.slots
    slot = _slots.slot_from_item(item, text, None if derived else sc.extractor, sc.is_single)
    if slot is not None:
        p.subject, p.attribute, p.slot_value, p.single = slot
    return p


def record_of(p: Prepared, hold_decisions: bool) -> dict:
    """The stored record of a new memory (after slot resolution and link boosts); its record
    time is the item's (``now`` unless backfilled), and so is the start of its salience decay
    (t0): a memory backfilled a year ago has decayed for a year."""
    return {"id": p.ext_id, "namespace": p.namespace, "kind": p.kind.value, "text": p.text,
            "created_at": p.created_at, "recorded_at": p.recorded_at, "confidence": p.confidence,
            "salience": p.salience, "salience_at": initial_t0(p.kind, p.recorded_at, hold_decisions),
            "access_count": 0, "last_access": None,
            "source": p.source, "tags": list(p.tags), "state": p.state.value,
            "superseded_by": p.superseded_by, **_temporal.record_fields(p), **(p.extra or {})}


def no_embedder(state: EngineState, hint: str) -> InvalidInputError:
    """The error of a text to embed in a store opened without an embedder: it names the embedder
    the store was made with (a custom one engramdb cannot rebuild), so the caller knows what to
    pass again; ``hint`` says what else will do."""
    with state.store.read("reading the store's embedder") as txn:
        made_with = state.store.get_meta(txn, "embedder")
    if made_with:
        return InvalidInputError(
            f"this store was made with the embedder {made_with!r}, which engramdb cannot rebuild by itself: "
            f"open it with that embedder again (engramdb.open(path, embedder=...)), or {hint}")
    return InvalidInputError(f"this store has no embedder: {hint}")


def retire_for(unit: WriteUnit, old_nid: int, rec: dict, successor: Prepared) -> tuple[int, int, int, float]:
    """In ``unit``: stored record ``rec`` (nid ``old_nid``) superseded by the new memory
    ``successor`` (written in the same unit: its nid is set), as :func:`engramdb.slots.retire_record`
    marks it; returns the ``supersedes`` edge row (successor -> old) for the unit's edges."""
    unit.put_record(old_nid, _slots.retire_record(rec, successor.ext_id, successor.valid_from, successor.recorded_at))
    return (successor.nid, old_nid, Relation.SUPERSEDES.code, 1.0)


def embed_missing(state: EngineState, embed: Callable[[list[str]], np.ndarray] | None, prepared: list[Prepared]) -> None:
    """Give every item without a vector its embedding (``embed(texts) -> (n, dim)``), checked.

    Raises
    ------
    InvalidInputError
        No embedder and an item without a vector.
    DimensionMismatchError, NonFiniteError
        The embedder's output is unusable.
    """
    todo = [p for p in prepared if p.vector is None]
    if not todo:
        return
    if embed is None:
        raise no_embedder(state, "pass embedding= for every memory")
    most = state.config.store.sentence_keys
    keys = [key_sentences(p.text, most) for p in todo]
    texts = [p.text for p in todo] + [k for ks in keys for k in ks]   # one embedder call
    vecs = embed(texts)
    if vecs.shape != (len(texts), state.dim):
        raise DimensionMismatchError(expected=state.dim, got=vecs.shape[-1], field="embedder output")
    at = len(todo)
    for p, v, ks in zip(todo, vecs, keys):
        p.vector = check_vector(v, state.dim, field="embedder output")
        if ks:
            p.keys = _unit_rows(vecs[at:at + len(ks)])
            at += len(ks)


def _unit_rows(vecs: np.ndarray) -> np.ndarray | None:
    """The finite rows of ``vecs`` with a direction (norm >= 1e-12), normalised (float32), or None
    when none is: a sentence key the embedder gives no direction (a sentence of stop words to
    the hashing embedder) is left out, never an error of the write."""
    m = np.asarray(vecs, np.float64)
    finite = np.isfinite(m).all(axis=1)
    m = np.where(finite[:, None], m, 0.0)
    norm = np.linalg.norm(m, axis=1)
    ok = norm >= 1e-12
    return (m[ok] / norm[ok, None]).astype(np.float32) if ok.any() else None


def write_new(state: EngineState, prepared: list[Prepared], now: float, *, what: str = "adding memories",
              verb: str, extra: Callable[[WriteUnit], list] | None = None, at: float | None = None) -> list[str]:
    """Write validated, embedded memories (their links, auto-links and slots) in one write unit.

    Parameters
    ----------
    state : EngineState
    prepared : list of Prepared
        Each with its vector; in batch order (a batch equals the same items added one by one,
        except that auto-linking also sees the earlier items of the batch).
    now : float
        Record time, Unix seconds.
    what : str
        For error messages.
    verb : str
        The engine verb, for the audit ledger (``add``, ``add_batch``, ``supersede``, ...).
    extra : callable WriteUnit -> list of (src nid, tgt nid, relation code, weight), optional
        A step of the caller inside the same transaction, after nids are assigned (chunk edges,
        the retired memory of a supersession, admission's reinforcements and log).
    at : float, optional
        Time the write's dynamics are computed at (the link boosts of stored memories; the
        unit's ``at``), Unix seconds; ``now`` when omitted (:class:`engramdb.write.WriteUnit`).

    Returns
    -------
    list of str
        The ids, in batch order.

    Raises
    ------
    InvalidInputError
        An id given twice or already stored, or a self-link; nothing is written.
    MemoryNotFoundError
        A link target that neither the store nor the batch holds; nothing is written.
    """
    with write_unit(state, what, now, verb=verb, at=at) as unit:
        first = unit.allocate(len(prepared))
        seen: dict[tuple[str, str], int] = {}
        for i, p in enumerate(prepared):
            p.nid = first + i
            key = (p.namespace, p.ext_id)
            if key in seen:
                raise _named(p, InvalidInputError(f"id {p.ext_id!r} appears twice in the batch"))
            seen[key] = p.nid
        for ns, group in by_namespace(prepared).items():   # hnswlib inserts in a worker thread ...
            unit.index_add(ns, np.stack([p.vector for p in group]), np.array([p.nid for p in group]),
                           background=True)
        # ... while this thread checks the batch and analyses its texts (pure functions of the
        # text: keyword terms, conflict subjects); nothing here searches the index
        unit.pretokenize([(p.nid, p.text, p.created_at) for p in prepared])
        subjects = _new_subjects(state, prepared)
        edges: list[tuple[int, int, int, float]] = []
        by_nid = {p.nid: p for p in prepared}
        scale = state.config.link.contiguity_words
        pieces_of: dict[str, list[str]] | None = None   # built on the first link given without a weight
        for p in prepared:   # resolve every reference before the first put
            if unit.lookup(p.namespace, p.ext_id) is not None:
                raise _named(p, InvalidInputError(
                    f"id {p.ext_id!r} already exists in namespace {p.namespace!r}; {_TAKEN_ID_HINTS.get(verb, _TAKEN_ID_HINT)}"
                ))
            for to, rel, w in p.links:
                if to == p.ext_id:
                    raise _named(p, InvalidInputError(f"cannot link memory {to!r} to itself"))
                tgt = seen.get((p.namespace, to))   # any item of the batch, earlier or later
                if tgt is None:
                    tgt = unit.lookup(p.namespace, to)
                if tgt is None:
                    raise _named(p, MemoryNotFoundError(
                        f"link from {p.ext_id!r} to {to!r}: no memory {to!r} in namespace {p.namespace!r} "
                        "(a link names a stored memory or an item of the same batch)"
                    ))
                if w is None:   # not given: contiguity for `next` (of whole texts), else 1
                    if pieces_of is None:
                        pieces_of = _pieces_in_batch(prepared)
                    w = default_weight(rel, _whole_text(unit, p.nid, by_nid, pieces_of),
                                       _whole_text(unit, tgt, by_nid, pieces_of), scale)
                edges.append((p.nid, tgt, rel.code, w))
        boost_links(unit, prepared, edges, state.config.decay.link_boost)
        unit.index_join()   # the batch is in the index: auto-link search
        near = _neighbours(unit, prepared)
        edges.extend(_autolinks(unit, prepared, near))
        found = _conflicts(unit, prepared, near, subjects)
        given = extra(unit) if extra is not None else []
        edges.extend(_not_where_superseded(found, given))
        edges.extend(given)
        if any(p.subject is not None for p in prepared):
            edges.extend(_slots.plan_slots(unit, prepared))
        hold = state.config.decay.hold_decisions_until_review
        rows = [(p.nid, record_of(p, hold), p.vector, p.digest) for p in prepared]
        unit.insert_many(rows)
        for p in prepared:
            unit.put_keys(p.nid, p.keys)
        if subjects:   # the subjects of the new statements, for the next writes' conflict checks
            # (a text of several sentences has one per sentence: no hint, it is always read)
            hinted = [(nid, subject_code(subj)) for nid, rec, _v, _d in rows
                      if (subj := subjects.get(rec["text"])) is not None and not _several(rec["text"])]
            hints = state.subject_hints
            unit.after(lambda: hints.set_many([h[0] for h in hinted], [h[1] for h in hinted]))
        unit.add_edges(edges)
    return [p.ext_id for p in prepared]


def _not_where_superseded(found: list[tuple[int, int, int, float]],
                          given: list[tuple[int, int, int, float]]) -> list[tuple[int, int, int, float]]:
    """The conflict rules' edges ``found`` without those between two memories that the caller's
    own step ``given`` links ``supersedes`` (``supersede(old, text)`` retires the old memory on
    purpose; the rules reading the two texts as another value would link them ``contradicts``
    too, and every answer would warn about the retired memory). Slot resolution's deliberate
    pair of both (two reports of one valid time) is not touched."""
    sup = Relation.SUPERSEDES.code
    pairs = {frozenset((a, b)) for a, b, r, _w in given if r == sup}
    return [e for e in found if frozenset(e[:2]) not in pairs] if pairs else found


class Near:
    """Each new memory's nearest earlier memories, from one batched k-NN query per namespace:
    rows in batch order, columns best first.

    Attributes
    ----------
    nids : ndarray of int64, shape (n,)
        The batch's nids.
    labels : ndarray of int64, shape (n, k)
        Neighbour nids; -1 pads a namespace with fewer than k vectors.
    cos : ndarray of float64, shape (n, k)
        Their exact cosines (:meth:`HnswIndex.knn_batch_exact`: the same on every machine, as
        the order of the columns, best first, ties by smaller nid), widened exactly.
    keep : ndarray of bool, shape (n, k)
        The neighbours that are earlier memories (stored, or earlier in the batch).
    """

    __slots__ = ("nids", "labels", "cos", "keep")

    def __init__(self, nids: np.ndarray, labels: np.ndarray, cos: np.ndarray):
        self.nids, self.labels, self.cos = nids, labels, cos
        self.keep = (labels >= 0) & (labels < nids[:, None])


def _neighbours(unit: WriteUnit, prepared: list[Prepared]) -> Near | None:
    """Each new memory's nearest earlier memories (:class:`Near`); None when neither
    auto-linking nor conflict detection needs them.

    The batch is already in the namespace's hnswlib index, so one batched k-NN query finds
    neighbours among stored memories and earlier items of the batch alike (approximate, as
    all of engramdb's vector search); later items see earlier ones, not the reverse.
    """
    lc = unit.state.config.link
    if not (lc.auto_link and lc.max_links) and not lc.detect_conflicts:
        return None
    # near-duplicates and restatements are close: a small beam finds them (ef 22 = 2 k by default)
    k = 2 * max(lc.max_links, 5) + 1
    n = len(prepared)
    labels = np.full((n, k), -1, np.int64)
    cos = np.full((n, k), -np.inf, np.float64)
    rows: dict[str, list[int]] = {}
    for i, p in enumerate(prepared):
        rows.setdefault(p.namespace, []).append(i)
    for ns, idx in rows.items():
        lab, c = unit.space(ns).index.knn_batch_exact(np.stack([prepared[i].vector for i in idx]), k,
                                                      ef=max(lc.search_ef, k))   # (stored: the same on any machine)
        r = np.asarray(idx, np.int64)[:, None]
        labels[r, np.arange(lab.shape[1])] = lab
        cos[r, np.arange(lab.shape[1])] = c
    return Near(np.fromiter((p.nid for p in prepared), np.int64, n), labels, cos)


def _autolinks(unit: WriteUnit, prepared: list[Prepared], near: Near | None) -> list[tuple[int, int, int, float]]:
    """``related_to`` edges (new nid -> earlier nid, weight = cosine) above the auto-link threshold
    (A-MEM, arXiv:2502.12110). A near-copy (cosine >= ``LinkConfig.duplicate_cosine``: the same
    question asked again, a repeated reply) is not linked: it is the same content, and a link
    between copies let each lift the others in recall, the same evidence counted again (four
    copies of an unrelated question outranked the one message that answered).

    Each new memory's first ``max_links`` such neighbours, best first, in batch order (the
    selection runs over the whole batch's neighbour arrays at once)."""
    lc = unit.state.config.link
    if not lc.auto_link or lc.max_links == 0 or near is None:
        return []
    pick = near.keep & (near.cos >= lc.cosine_threshold) & (near.cos < lc.duplicate_cosine)
    pick &= np.cumsum(pick, axis=1) <= lc.max_links
    r, j = np.nonzero(pick)   # row-major: batch order, best first
    w = np.clip(near.cos[r, j], 1e-6, 1.0)
    code = Relation.RELATED_TO.code
    return [(s, t, code, x) for s, t, x in zip(near.nids[r].tolist(), near.labels[r, j].tolist(), w.tolist())]


class _SubjectMemo:
    """text -> :func:`engramdb.facts.subject_of` (a pure function of the text) for the write
    path's conflict detection, kept across write units: a new memory's neighbours are mostly
    memories stored by earlier batches, whose subjects were found when they were new (at 100k
    memories, some 300,000 stored texts would otherwise be analysed again). Bounded: past
    ``capacity`` texts it starts empty again (a text costs its string, already held by the
    caller while it is new, and a short tuple)."""

    __slots__ = ("capacity", "_memo", "_lock")

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._memo: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def __call__(self, text: str) -> tuple[str, ...]:
        subj = self._memo.get(text)
        if subj is None:
            subj = subject_of.__wrapped__(subject_text(text))   # ("I live at 12 Oak St." as "My address is ...")
            with self._lock:   # writers of two engines in one process may share it
                if len(self._memo) >= self.capacity:
                    self._memo = {}
                self._memo[text] = subj
        return subj


#: the process's subject memo (:class:`_SubjectMemo`), 2**17 texts
_subject = _SubjectMemo(1 << 17)


def _new_subjects(state: EngineState, prepared: list[Prepared]) -> dict[str, tuple[str, ...]]:
    """:func:`engramdb.facts.subject_of` of the batch's texts that conflict detection may compare
    (statements: :func:`_statement`), computed before the neighbours are known (the write path
    runs it while hnswlib inserts); empty when conflict detection is off."""
    lc = state.config.link
    if not lc.detect_conflicts:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for p in prepared:
        if p.text not in out and _statement(p.text, lc.conflict_max_words, p.extra):
            out[p.text] = _subject(p.text)
    return out


def _pieces_in_batch(prepared: list[Prepared]) -> dict[str, list[str]]:
    """First piece's id -> the texts of its later pieces in the batch, in order, without the
    text each repeats from the one before (``overlap_chars``)."""
    out: dict[str, list[str]] = {}
    for p in prepared:
        if p.extra and p.extra.get("chunk_of") is not None:
            out.setdefault(p.extra["chunk_of"], []).append(p.text[p.extra.get("overlap_chars") or 0:])
    return out


def _whole_text(unit: WriteUnit, nid: int, by_nid: dict[int, Prepared], pieces_of: dict[str, list[str]]) -> str:
    """The text of memory ``nid`` whole: a memory stored as pieces holds only its first piece's
    text in its first piece's record, and a ``next`` link weighed by that length weighed two long
    messages split into pieces as two short turns (``engramdb.contiguity``)."""
    q = by_nid.get(nid)
    if q is not None:
        if not (q.extra and q.extra.get("chunks")):
            return q.text
        return " ".join([q.text, *pieces_of.get(q.ext_id, ())])
    rec = unit.record(nid) or {}
    if rec.get("chunks"):   # joined from its stored pieces, as a reader gets it back
        def read_piece(ext_id: str) -> dict | None:
            n = unit.lookup(rec["namespace"], ext_id)
            return None if n is None else unit.record(n)
        rec = whole_record(rec, read_piece, unit.state.config.store.chunk_chars // 10)
    return rec.get("text", "")


def _conflicts(unit: WriteUnit, prepared: list[Prepared], near: Near | None,
               subjects: dict[str, tuple[str, ...]] | None = None) -> list[tuple[int, int, int, float]]:
    """A new memory (outside slots) that negates or changes a number of an earlier one about the
    same subject (:func:`engramdb.facts.conflict`): with a later valid time it supersedes the
    earlier one (kept, flagged superseded: ``history`` shows both); otherwise the two are linked
    ``contradicts`` and recall reports the pair, as it does for one that gives an attribute another
    value in the same words (kind ``"value"``: "Our billing email is finance@acme.io" after
    "... jane@acme.io", whatever their times). Two memories in slots are left to slot
    resolution (:func:`engramdb.slots.plan_slots`: one slot), or are two things (two slots: Alice's
    phone and Bob's), and a memory in a slot is only ever retired by it: a conflict with one is
    linked ``contradicts``. A memory in a single-valued slot of a statement's speaker and that
    statement are compared like any two statements (helper-205: "I work at Initech as a data
    analyst." said with a name fills no slot, and "I started a new job at Globex" filled the
    user's employer slot; neither path compared the two); a slot of anyone else ("guest_network"'s
    wifi password, Alice's phone) or a multi-valued one (a child of several) is not.

    Only statements are compared: texts of at most ``LinkConfig.conflict_max_words`` words (the
    rules read one claim; a chat reply or a document holds many, and two replies that share a
    topic and differ in a number are not a correction). And a statement that names a time
    ("this morning", "on 3 May") reports an event at that time, resolved against its own event
    time (:func:`engramdb.timeref.resolve_time_refs`): it conflicts only with a statement naming
    an overlapping time ("I ran 5 km this morning" said on two days are two runs), never with
    one that names none.

    A change report (:mod:`engramdb.changes`: "My doctor raised my lisinopril to 20 mg", "Standup
    moved to 10am") is compared with every neighbour, whatever its subject and cosine: when it
    replaces the one value of what it names that a statement gives (:func:`engramdb.changes.changes_value`,
    kind ``"change"``) the two are linked ``contradicts``, whatever times they name, never
    superseded (the rules cannot be sure the report is of the same thing: recall puts the later
    first and warns). The earlier memories that restate the value it changed (an assistant's "Got
    it: 500 mg") are linked from it too (:func:`_echoes`). The links do not depend on the order of
    storing: a new statement that gives a value, or one said before the namespace's newest stored
    memory, is also compared with its neighbours that are change reports (a chat's sessions
    backfilled out of date order), linked from the report."""
    lc = unit.state.config.link
    if not lc.detect_conflicts:
        return []
    if near is None:
        return []
    by_nid = {p.nid: p for p in prepared}
    # 1. the candidates: each new memory's neighbours at conflict_cosine (default 0: all) or closer that are
    # statements outside slots (what cannot change during the loop below), with their texts;
    # each neighbour is judged once (a stored one's record read once), whatever the pairs
    stored: dict[int, dict | None] = {}
    text_of: dict[int, str | None] = {}   # nid -> its text if it can be a candidate, else None
    active, active_v, floor = MemoryState.ACTIVE, MemoryState.ACTIVE.value, lc.conflict_cosine
    max_words = lc.conflict_max_words
    ok_row = np.fromiter((p.state is active and not _not_a_fact(p.kind.value, p.extra, p.tags)
                          and _statement(p.text, max_words, p.extra) for p in prepared), bool, len(prepared))
    multi_row = np.fromiter((ok and _several(p.text) for p, ok in zip(prepared, ok_row.tolist())),
                            bool, len(prepared))
    # (a text of several sentences is compared with all its neighbours: its likeness to a memory
    # that restates one of its sentences is diluted by the others)
    # a change report ("My doctor raised my lisinopril to 20 mg") names what changed in other
    # words and often with another subject: compared with all its neighbours whatever their
    # subjects and likeness (changes.changes_value asks for the thing named and one value of its sort)
    report_row = np.fromiter((ok and change_report(p.text) is not None for p, ok in zip(prepared, ok_row.tolist())),
                             bool, len(prepared))
    hints = unit.state.subject_hints
    known = np.flatnonzero(ok_row)   # (a text that is no statement here is never read as a report)
    unit.after(lambda: hints.set_reports(near.nids[known].tolist(), report_row[known].tolist()))
    r, j = np.nonzero(near.keep & ((near.cos >= floor) | (multi_row | report_row)[:, None])
                      & ok_row[:, None])   # batch order, best first
    labs = near.labels[r, j]
    subjects = {} if subjects is None else subjects
    if len(labs) and len(unit.state.subject_hints.length):
        # stored neighbours whose subject hint rules the pair out are not read (state.subject_hints)
        row_hint = np.array([subject_code(subjects[p.text] if p.text in subjects else _subject(p.text)) if ok
                             else (-1, 0, 0) for p, ok in zip(prepared, ok_row.tolist())], np.int64).reshape(-1, 3)[r]
        # (a new text of several sentences is compared sentence by sentence: no hint rules it out)
        stored_lab = ~np.isin(labs, near.nids) & ~multi_row[r] & ~report_row[r]
        out = np.zeros(len(labs), bool)
        out[stored_lab] = unit.state.subject_hints.ruled_out(labs[stored_lab], row_hint[stored_lab, 0],
                                                             row_hint[stored_lab, 1], row_hint[stored_lab, 2])
        r, labs = r[~out], labs[~out]
    uniq, at = np.unique(labs, return_inverse=True)
    for lab in uniq.tolist():
        q = by_nid.get(lab)
        if q is not None:
            ok = not _not_a_fact(q.kind.value, q.extra, q.tags) and _statement(q.text, max_words, q.extra)
            text_of[lab] = q.text if ok else None
        else:
            rec = stored[lab] = unit.record(lab)
            ok = (rec is not None and rec["state"] == active_v
                  and not _not_a_fact(rec["kind"], rec, rec.get("tags") or ())
                  and _statement(rec["text"], max_words, rec))
            text_of[lab] = rec["text"] if ok else None
    # conflict_many answers None unless the two subjects are equal or one is a prefix of the
    # other: the pairs that cannot pass (unequal subjects of equal length, an empty one, or
    # different first words) are dropped here over arrays, the rest compared as before
    analyse = _subject
    sid: dict[tuple[str, ...], int] = {}
    first: dict[str, int] = {}

    def code(text: str | None) -> tuple[int, int, int]:
        if text is None:
            return -1, -1, -1
        subj = subjects.get(text)
        if subj is None:
            subj = subjects[text] = analyse(text)
        subj = subject_key(subj)   # ("user", "i") is ("i",): a chat message and a note of the user
        return (sid.setdefault(subj, len(sid)), len(subj),
                first.setdefault(subj[0], len(first)) if subj else -1)
    row_code = np.array([code(p.text) if ok else (-1, -1, -1) for p, ok in zip(prepared, ok_row.tolist())],
                        np.int64).reshape(-1, 3)[r]
    lab_code = np.array([code(text_of[lab]) for lab in uniq.tolist()], np.int64).reshape(-1, 3)[at.reshape(-1)]
    same = (lab_code[:, 0] >= 0) & ((row_code[:, 0] == lab_code[:, 0])
                                    | ((row_code[:, 1] != lab_code[:, 1]) & (row_code[:, 1] > 0)
                                       & (lab_code[:, 1] > 0) & (row_code[:, 2] == lab_code[:, 2])))
    # texts of several sentences are also compared sentence by sentence, whatever their subjects
    lab_multi = np.array([text_of[lab] is not None and _several(text_of[lab])
                          for lab in uniq.tolist()], bool)[at.reshape(-1)]
    same |= (lab_code[:, 0] >= 0) & (multi_row[r] | lab_multi | report_row[r])
    cand: list[tuple[Prepared, int, Prepared | None]] = []
    pairs: list[tuple[str, str]] = []
    reports: list[bool] = []   # whether the pair's new memory is a change report
    changed_by: set[int] = set()   # pairs whose earlier memory is a change report of the new one's value
    for row, lab in zip(r[same].tolist(), labs[same].tolist()):
        p = prepared[row]
        cand.append((p, lab, by_nid.get(lab)))
        pairs.append((p.text, text_of[lab]))
        reports.append(bool(report_row[row]))
    # a statement of the speaker's home or employer is compared with the namespace's earlier
    # statements of it too, not only with its nearest neighbours: "I moved to Seattle last month."
    # is like nothing "I live in Boston." says (a store of ten other first-person memories kept
    # it out of the k nearest: hostile pass)
    # and a report of a time, date or amount with the stored memories that share its words most
    # (fifteen other memories about doses kept "I take 10 mg of lisinopril" out of the k nearest
    # of "My doctor raised my lisinopril to 20 mg.": hostile pass)
    seen = {(p.nid, lab) for p, lab, _q in cand}
    for row in np.flatnonzero(report_row).tolist():
        p = prepared[row]
        sort = change_report(p.text).value[0]
        if sort == "name":
            found = _earlier_standing(unit, p, stored, max_words)
        elif sort == "swap" and getattr(swap_report(p.text), "thing", None) == LEFT_JOB:   # ("I quit my job.")
            found = _earlier_standing(unit, p, stored, max_words, {"employer"})
        else:
            found = [] if sort == "swap" else [
                (lab, got[0]) for lab in _keyword_neighbours(unit, p) if (p.nid, lab) not in seen
                and (got := _earlier_statement(unit, lab, by_nid, stored, max_words)) is not None]
        replaced = _replaced_names(p.text)   # (a thing replaced, "We moved from Django to FastAPI" too:
        if replaced:   # the memories that name it, "We use Django for the backend."; a duty passed on)
            words = " ".join(w for name in replaced for w in name)
            found += [(lab, got[0]) for lab in _keyword_neighbours(unit, p, words) if (p.nid, lab) not in seen
                      and (got := _earlier_statement(unit, lab, by_nid, stored, max_words)) is not None]
        for lab, text in found:
            if (p.nid, lab) not in seen:
                seen.add((p.nid, lab))
                cand.append((p, lab, None))
                pairs.append((p.text, text))
                reports.append(True)
    # a statement stored after a change report that changed it (sessions backfilled out of date
    # order: "My doctor raised my lisinopril to 20 mg." of March stored before "I take 10 mg of
    # lisinopril every morning." of January) is compared with its neighbours that report a change;
    # so is one said before the namespace's newest stored memory, which a stored report of a thing
    # replaced or a duty passed on may have changed ("Raj handles the release process." of January
    # stored after "Priya is taking over the release process from Raj." of March)
    value_row = np.fromiter((ok and gives_value(p.text) for p, ok in zip(prepared, ok_row.tolist())), bool, len(prepared))
    backward = _backward_reports(unit, prepared, near, value_row, by_nid, stored, max_words)
    backward += _backward_replacements(unit, prepared, ok_row & ~value_row & _said_before_stored(unit, prepared),
                                       by_nid, stored, max_words)
    at_pair = {(p.nid, lab): i for i, (p, lab, _q) in enumerate(cand)}
    for p, lab, text in backward:
        i = at_pair.get((p.nid, lab))
        if i is None:
            at_pair[p.nid, lab] = i = len(cand)
            cand.append((p, lab, by_nid.get(lab)))
            pairs.append((p.text, text))
            reports.append(False)
        changed_by.add(i)
    # the batch's own reports and the statements of it that name what they changed, whatever their
    # likeness (a chat imported whole: the keyword index holds none of it yet)
    for a, b in (_batch_changes(prepared, value_row, report_row) + _batch_swaps(prepared, ok_row, report_row)
                 + _batch_standings(prepared, ok_row, report_row)):
        p, q = prepared[b], prepared[a]
        i = at_pair.get((p.nid, q.nid))
        if i is None:
            at_pair[p.nid, q.nid] = i = len(cand)
            cand.append((p, q.nid, q))
            pairs.append((p.text, q.text))
            reports.append(bool(report_row[b]))
        if report_row[a]:
            changed_by.add(i)
    # 2. the texts compared in one batch (facts.conflict_many), then applied in batch order:
    # an earlier item superseded by this batch is no longer a candidate, a stored memory
    # already retired by it is read again (its record changed in this transaction)
    edges = []
    # (report or later statement nid, its text, its valid start, the earlier statement's nid, its text)
    changed: list[tuple[int, str, float, int, str]] = []
    kinds = conflict_many(pairs, subjects=subjects)
    # a pair of texts of which one or both hold several sentences, no conflict found whole: its
    # sentences, pair by pair (the first conflict counts); such a conflict only supersedes a
    # memory of one sentence (one of several sentences holds other facts: it is contradicted)
    part = _sentence_conflicts(pairs, kinds, max_words, subjects)
    # a change report that replaces the value a statement gives (facts.conflict found no conflict,
    # other words or another subject, or read a past event, "I upped my donation to $75"):
    # "change", whatever times the two name (changes.changes_value asks more of a statement said
    # after the report); the report is the new memory, or the stored one (``backward``)
    backward_report: set[int] = set()   # "change" pairs whose report is the earlier stored one
    report_said_later: set[int] = set()   # "change" pairs whose report was said after the statement

    def valid_start(lab: int) -> float:
        q = by_nid.get(lab)
        if q is not None:
            return q.valid_from
        rec = stored[lab]
        return rec.get("valid_from", rec["created_at"]) if rec is not None else float("inf")

    for i, (report, (new, old)) in enumerate(zip(reports, pairs)):
        p, lab, _q = cand[i]
        if report and kinds[i] == "value" and refines_standing(new, old):
            kinds[i] = None   # "I live in Boston's Back Bay neighborhood." after "I live in Boston."
        elif kinds[i] not in (None, "event_number"):
            continue
        else:   # the new memory reports a change of the other's value, or the other of its own
            p_later = _temporal.said_after(p.valid_from, p.nid, valid_start(lab), lab)
            ways = ([(p_later, False)] if report else []) + ([(not p_later, True)] if i in changed_by else [])
            for report_later, backward_way in sorted(ways, reverse=True):   # the report said later first
                if (changes_value(old, new, old_said_after=not report_later) if backward_way
                        else changes_value(new, old, old_said_after=not report_later)):
                    kinds[i] = "change"
                    if backward_way:
                        backward_report.add(i)
                    if report_later:
                        report_said_later.add(i)
                    break
    for i, ((p, lab, q), kind) in enumerate(zip(cand, kinds)):
        if kind is None or lab in p.made_from:   # (a fact restating its evidence in other words)
            continue
        edit_of = (p.extra or {}).get("edit_of")
        if edit_of is not None and edit_of == (q.ext_id if q is not None else (stored[lab] or {}).get("id")):
            continue   # a chat's edit of this message: it supersedes it (add_conversation), no contradiction
        if q is not None:
            if q.state is not MemoryState.ACTIVE:
                continue
            valid_from, other, other_at, other_slot = q.valid_from, q.text, q.created_at, (q.subject, q.attribute)
            other_rec = {"text": q.text, "tags": q.tags, "multi": not q.single}
        else:
            rec = stored[lab]
            if rec is None or rec["state"] != MemoryState.ACTIVE.value:
                continue
            valid_from, other, other_at = rec.get("valid_from", rec["created_at"]), rec["text"], rec["created_at"]
            other_slot, other_rec = (rec.get("subject"), rec.get("attribute")), rec
        if p.subject is not None or other_slot[0] is not None:
            # one slot: slot resolution decides; two of one subject (a job "data analyst at
            # Fidelity", then an employer "Moderna": helper-227 found the rule extractor's slots
            # hid the change) are read as statements are; a slot is compared only as its
            # speaker's single value (_speakers_slot)
            if p.subject is not None and other_slot[0] is not None and (
                    p.subject != _slots.canonical_subject(other_slot[0]) or p.attribute == other_slot[1]):
                continue
            if not (_speakers_slot(p.subject, not p.single, other_rec) if p.subject is not None
                    else _speakers_slot(other_slot[0], bool(other_rec.get("multi")), {"text": p.text, "tags": p.tags})):
                continue
        if kind != "change" and not _same_time(plain_statement(p.text), p.created_at, plain_statement(other), other_at,
                                               named=kind == "event_number"):
            continue   # events at different times (or an event and a general statement)
        if kind == "change":
            # a change reported in other words may be of another thing: contradicted, never
            # superseded (recall puts the later first and warns); linked from the report
            # (an echo of the statement's value is outdated by a report said after it only)
            if i in backward_report:
                if i in report_said_later:
                    changed.append((lab, other, valid_from, p.nid, p.text))
                edges.append((lab, p.nid, Relation.CONTRADICTS.code, 1.0))
            else:
                if i in report_said_later:
                    changed.append((p.nid, p.text, p.valid_from, lab, other))
                edges.append((p.nid, lab, Relation.CONTRADICTS.code, 1.0))
            continue
        # a changed value in the same frame ("value": "My email is a@x.io" / "... b@x.io") may be
        # a second value the rules cannot tell apart: contradicted, never superseded
        later = p.valid_from > valid_from and kind != "value"
        if later:
            changed.append((p.nid, p.text, p.valid_from, lab, other))
        if later and not (i in part and _several(other)) and other_slot[0] is None:
            if q is not None:
                q.state, q.superseded_by = MemoryState.SUPERSEDED, p.ext_id
                q.retired_at = max(p.recorded_at, q.recorded_at)
                q.valid_to = p.valid_from if q.valid_to is None else min(q.valid_to, p.valid_from)
            else:
                retired = _slots.retire_record(rec, p.ext_id, p.valid_from, p.recorded_at)
                unit.put_record(lab, retired)   # its pieces retire with it: read them again too
                for nid in [lab, *unit.pieces(retired)]:
                    if nid in stored:
                        stored[nid] = unit.record(nid)
            edges.append((p.nid, lab, Relation.SUPERSEDES.code, 1.0))
        else:   # (a new memory valid before the stored one it conflicts with, or one in a slot that
            # only slot resolution retires: contradicted, not superseded)
            edges.append((p.nid, lab, Relation.CONTRADICTS.code, 1.0))
    if changed:
        edges.extend(_echoes(unit, near, changed, by_nid, stored, max_words, {(a, b) for a, b, _r, _w in edges}))
    return edges


def _speakers_slot(subject: str, multi: bool, other: Mapping) -> bool:
    """Whether a slot of ``subject`` (single-valued unless ``multi``) is one the speaker of the
    record ``other`` (``text``, ``tags``; :func:`engramdb.speakers.speaker_of`) states as their own:
    the user's (:data:`engramdb.slots.USER_SUBJECTS`) for a user's message or a note with no
    speaker, the named speaker's for theirs."""
    if multi:
        return False
    who = speaker_of(other)
    subject = _slots.normalise(subject)
    if who is None or who == "user":
        return subject in _slots.USER_SUBJECTS
    return subject == _slots.normalise(who)


#: How many of the namespace's memories that hold a word of a standing relation (by BM25 on
#: those words: short statements first) are read for a new statement of it.
STANDING_CANDIDATES = 32


def _earlier_standing(unit: WriteUnit, p: Prepared, stored: dict[int, dict | None],
                      max_words: int, relations: set[str] | None = None) -> list[tuple[int, str]]:
    """Stored active statements of the namespace of ``p`` that give the speaker's home, employer
    or name, as ``p`` does (:func:`engramdb.standing.standings`; or of ``relations``), found by those relations'
    words in the keyword index (the best :data:`STANDING_CANDIDATES` by BM25) and by the column
    of the statements the write path read (``Columns.standing``, the latest
    :data:`STANDING_CANDIDATES` of the namespace: "I'm Dana." and "I'm a nurse at Mass General."
    hold none of the relation's words), newest first: (nid, text); a read record is kept in
    ``stored``."""
    relations = {s.relation for s in standings(p.text)} if relations is None else relations
    sp = unit.state.space(p.namespace)
    if not relations or sp is None or sp.keyword is None:
        return []
    words = {w: 1.0 for rel in relations for w in STANDING_WORDS[rel]}
    nids, _scores = sp.keyword.search_terms(words, STANDING_CANDIDATES)
    cols = unit.state.cols
    stated = np.flatnonzero(cols.standing[: cols.n] & sum(STANDING_BITS[rel] for rel in relations))
    stated = stated[cols.ns[stated] == sp.code][-STANDING_CANDIDATES:]
    out = []
    for lab in sorted(set(nids.tolist()) | set(stated.tolist()), reverse=True):
        got = _earlier_statement(unit, lab, {}, stored, max_words)
        if got is not None and relations & {s.relation for s in standings(got[0])}:
            out.append((lab, got[0]))
    return out


def _backward_reports(unit: WriteUnit, prepared: list[Prepared], near: Near, rows: np.ndarray,
                      by_nid: dict[int, Prepared], stored: dict[int, dict | None],
                      max_words: int) -> list[tuple[Prepared, int, str]]:
    """The earlier neighbours (stored, or earlier in the batch) that are change reports
    (:func:`engramdb.changes.change_report`) of each new statement of ``rows`` (bool, shape
    (n,), batch order: the statements that give a value, :func:`engramdb.changes.gives_value`):
    (new memory, neighbour nid, its text). A stored neighbour the subject hints know to report no change is
    not read; a read record is kept in ``stored``."""
    out: list[tuple[Prepared, int, str]] = []
    hints = unit.state.subject_hints
    for row in np.flatnonzero(rows).tolist():
        p = prepared[row]
        labs = np.union1d(near.labels[row][near.keep[row]], _keyword_neighbours(unit, p))
        for lab in labs[~hints.no_report(labs)].tolist():
            got = _earlier_statement(unit, lab, by_nid, stored, max_words)
            if got is not None and change_report(got[0]) is not None:
                out.append((p, lab, got[0]))
    return out


def _backward_replacements(unit: WriteUnit, prepared: list[Prepared], rows: np.ndarray,
                           by_nid: dict[int, Prepared], stored: dict[int, dict | None],
                           max_words: int) -> list[tuple[Prepared, int, str]]:
    """The stored memories that share the words of each new statement of ``rows`` (bool, shape
    (n,), batch order: statements said before the namespace's newest memory) the most (BM25 by
    its :data:`_RARE_WORDS` rarest words, the :data:`CHANGE_CANDIDATES` best) and report a thing in
    use replaced or a duty passed on whose every word of an old name, of the duty or of the thing
    switched the statement holds (:func:`_replaced_terms`, as :func:`_batch_swaps` pairs them; a
    statement of the speaker's employer holds "job", which "I quit my job." gave up):
    (new memory, report nid, its text). A stored neighbour the subject hints know to report no
    change is not read; a read record is kept in ``stored``."""
    out: list[tuple[Prepared, int, str]] = []
    hints = unit.state.subject_hints
    names_of: dict[int, tuple[str, list[set[str]]]] = {}   # report nid -> its text, replaced names' words
    sp = None
    for row in np.flatnonzero(rows).tolist():
        p = prepared[row]
        if sp is None or sp.name != p.namespace:
            sp = unit.state.space(p.namespace)
        if sp is None or sp.keyword is None:
            continue
        # (its rarest words: a replaced name or a duty is rare beside "use" or "handles"; the
        # common words' postings cost most of a search)
        rare = sorted(term_counts(p.text)[0], key=lambda t: (-sp.keyword.idf(t), t))[:_RARE_WORDS]
        # a statement of the speaker's employer holds their job ("I quit my job." names no employer)
        job = set(LEFT_JOB) if any(s.relation == "employer" for s in standings(p.text)) else set()
        labs = np.asarray(sp.keyword.search_terms(dict.fromkeys([*rare, *job], 1.0), CHANGE_CANDIDATES)[0], np.int64)
        words = None
        for lab in labs[~hints.no_report(labs)].tolist():
            if lab not in names_of:   # (each read once)
                got = _earlier_statement(unit, lab, by_nid, stored, max_words)
                names_of[lab] = ("", []) if got is None else (got[0], _replaced_terms(got[0]))
            report, names = names_of[lab]
            if not names:
                continue
            if words is None:
                words = set(term_counts(p.text)[0]) | job
            if any(terms <= words for terms in names):
                out.append((p, lab, report))
    return out


#: How many of a statement's rarest words find the stored reports that may have replaced what it
#: says (:func:`_backward_replacements`).
_RARE_WORDS = 4


def _replaced_terms(text: str) -> list[set[str]]:
    """The index terms of each name :func:`_replaced_names` reads in ``text``; of a thing switched
    with its old name unsaid ("I switched my editor to Helix."), the thing's ("editor")."""
    names = _replaced_names(text)
    if not names:
        swap = swap_report(text)
        names = (tuple(sorted(swap.thing)),) if swap is not None and swap.thing else ()
    return [terms for name in names if (terms := set(term_counts(" ".join(name))[0]))]


def _said_before_stored(unit: WriteUnit, prepared: list[Prepared]) -> np.ndarray:
    """Whether each new memory (batch order) is valid from before the newest stored memory of its
    namespace (:meth:`engramdb.state.columns.Columns.newest_valid`): bool, shape (n,). Only such a
    memory can be what a stored report said later replaced; a chat stored as it goes has none."""
    newest: dict[str, float] = {}
    for p in prepared:
        if p.namespace not in newest:
            sp = unit.state.space(p.namespace)
            newest[p.namespace] = -np.inf if sp is None else unit.state.cols.newest_valid(sp.code)
    return np.fromiter((p.valid_from < newest[p.namespace] for p in prepared), bool, len(prepared))


def _batch_changes(prepared: list[Prepared], value_row: np.ndarray, report_row: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of batch rows (a < b) of which one is a change report of a time, date or amount and
    the other a statement that gives a value (``value_row``, bool shape (n,)) and holds every word
    the report names (:func:`engramdb.changes.named_stems`), found through an index of the
    statements' word stems: for each report the :data:`CHANGE_CANDIDATES` such statements
    nearest to it in the batch (4,000 reports of a few doses made 8 million pairs)."""
    reports = [(row, named) for row in np.flatnonzero(report_row).tolist()
               if (named := named_stems(prepared[row].text))]
    if not reports:
        return []
    holding: dict[str, set[int]] = {}
    for row in np.flatnonzero(value_row).tolist():
        for stem in word_stems(prepared[row].text):
            holding.setdefault(stem, set()).add(row)
    out = []
    for row, named in reports:   # the statements nearest in the batch (a chat of many reports: bounded)
        rows = heapq.nsmallest(CHANGE_CANDIDATES, set.intersection(*(holding.get(stem, set()) for stem in named)) - {row},
                               key=lambda other: (abs(other - row), other))
        out.extend((min(row, other), max(row, other)) for other in rows)
    return out


def _batch_standings(prepared: list[Prepared], ok_row: np.ndarray, report_row: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of batch rows (a < b) of which one reports a change of the speaker's home or employer
    (a change report of sort "name": "We moved to Evanston last weekend!") and the other, a
    statement (``ok_row``, bool shape (n,)), states that relation (:func:`engramdb.standing.standings`:
    "I live in Chicago with my husband Tom."): for each report the :data:`CHANGE_CANDIDATES` such
    statements nearest to it in the batch. A chat imported whole holds both, and the keyword index
    none of them yet; its nearest neighbours by vector need not (a move is like nothing a statement
    of the old home says: helper-203 saw the link come and go with unrelated messages)."""
    reports = [row for row in np.flatnonzero(report_row).tolist()
               if change_report(prepared[row].text).value[0] == "name"]
    if not reports:
        return []
    stating: dict[str, set[int]] = {}
    for row in np.flatnonzero(ok_row).tolist():
        for got in standings(prepared[row].text):
            stating.setdefault(got.relation, set()).add(row)
    out = []
    for row in reports:
        relations = {got.relation for got in standings(prepared[row].text)}
        rows = set().union(*(stating.get(rel, set()) for rel in relations)) - {row}
        out.extend((min(row, other), max(row, other))
                   for other in heapq.nsmallest(CHANGE_CANDIDATES, rows, key=lambda other: (abs(other - row), other)))
    return out


def _replaced_names(text: str) -> tuple[tuple[str, ...], ...]:
    """What a change report ``text`` says was replaced, each as lower-case words: the old names of
    a thing in use replaced (:mod:`engramdb.swaps`), or the duty passed to a new holder
    (:mod:`engramdb.handovers`); empty for any other text."""
    swap = swap_report(text)
    if swap is not None and swap.old:
        return swap.old
    handover = handover_report(text)
    return (handover.duty,) if handover is not None else ()


def _batch_swaps(prepared: list[Prepared], ok_row: np.ndarray, report_row: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of batch rows (a < b) of which one reports a thing in use replaced or a duty passed on
    (:func:`_replaced_names`) and the other, a statement (``ok_row``, bool shape (n,)), holds
    every word of a name it replaced or of the duty ("We use Poetry for dependencies." and "we
    moved from Poetry to uv"; "Raj handles billing." and "Aisha is taking over billing."), found
    through an index of the statements' lower-case words: for each report the
    :data:`CHANGE_CANDIDATES` such statements nearest to it in the batch."""
    reports = []
    for row in np.flatnonzero(report_row).tolist():
        replaced = _replaced_names(prepared[row].text)
        if replaced:
            reports.append((row, [set(term_counts(" ".join(name))[0]) for name in replaced]))
    if not reports:
        return []
    holding: dict[str, set[int]] = {}
    for row in np.flatnonzero(ok_row).tolist():
        for term in term_counts(prepared[row].text)[0]:
            holding.setdefault(term, set()).add(row)
    out = []
    for row, names in reports:
        rows = set().union(*(set.intersection(*(holding.get(t, set()) for t in terms)) for terms in names if terms))
        rows = heapq.nsmallest(CHANGE_CANDIDATES, rows - {row}, key=lambda other: (abs(other - row), other))
        out.extend((min(row, other), max(row, other)) for other in rows)
    return out


#: How many stored memories that share the words of a change report, or of a statement that
#: gives a value, the most (BM25) are compared with it besides its nearest vectors.
CHANGE_CANDIDATES = 16


def _keyword_neighbours(unit: WriteUnit, p: Prepared, words: str | None = None) -> np.ndarray:
    """Node ids (int64) of the :data:`CHANGE_CANDIDATES` stored memories of the namespace of
    ``p`` that share its words (or ``words``: a replaced thing's names) the most, by BM25 (the
    keyword index holds the stored ones)."""
    sp = unit.state.space(p.namespace)
    if sp is None or sp.keyword is None:
        return np.zeros(0, np.int64)
    counts, _length = term_counts(words or p.text)
    nids, _scores = sp.keyword.search_terms(dict.fromkeys(counts, 1.0), CHANGE_CANDIDATES)
    return np.asarray(nids, np.int64)


def _earlier_statement(unit: WriteUnit, lab: int, by_nid: dict[int, Prepared], stored: dict[int, dict | None],
                       max_words: int) -> tuple[str, float] | None:
    """The text and valid start (Unix seconds) of memory ``lab`` (an item of the batch in
    ``by_nid``, else stored: its record read once into ``stored``) when it is an active statement
    that conflict detection reads, else None."""
    q = by_nid.get(lab)
    if q is not None:
        if (q.state is not MemoryState.ACTIVE
                or _not_a_fact(q.kind.value, q.extra, q.tags) or not _statement(q.text, max_words, q.extra)):
            return None
        return q.text, q.valid_from
    rec = stored[lab] if lab in stored else stored.setdefault(lab, unit.record(lab))
    if (rec is None or rec["state"] != MemoryState.ACTIVE.value
            or _not_a_fact(rec["kind"], rec, rec.get("tags") or ()) or not _statement(rec["text"], max_words, rec)):
        return None
    return rec["text"], rec.get("valid_from", rec["created_at"])


def _echoes(unit: WriteUnit, near: Near, changed: list[tuple[int, str, float, int, str]],
            by_nid: dict[int, Prepared], stored: dict[int, dict | None], max_words: int,
            linked: set[tuple[int, int]]) -> list[tuple[int, int, int, float]]:
    """Restatements of a value that a later memory changed (:func:`engramdb.facts.restates`: an
    assistant's "Got it: metformin 500 mg each morning." after "I take metformin 500 mg every
    morning.", once "I started taking 1000 mg of metformin." changed it), said before the later
    memory: linked ``contradicts`` from it, never superseded (an echo may hold what the rules
    cannot read; recall puts the later memory first, with a warning). The echoes looked at are
    the near neighbours of the two memories that are new, and the new memories that have one of
    the two among their near neighbours (whichever of them was stored first); of the changes of
    one statement, the last one's. When the earlier statement is itself a change report, an echo
    may repeat the words of what that report changed too ("Got it: metformin 1000 mg each
    morning." after "I take metformin 500 mg every morning." and "My doctor raised my metformin
    to 1000 mg.", once "... lowered my metformin to 750 mg"): those statements are read, from
    this write and from the ``contradicts`` and ``supersedes`` edges stored.

    Parameters
    ----------
    changed : list of (int, str, float, int, str)
        (later memory's nid, its text, its valid start in Unix seconds, the nid of the earlier
        statement it changed, that statement's text).
    linked : set of (int, int)
        (source, target) pairs that have a conflict edge already (either way: no second one).
    """
    edges = []
    row_of = {nid: i for i, nid in enumerate(near.nids.tolist())}
    near_by: dict[int, list[int]] = {}   # memory -> the new memories that have it among their neighbours
    for nid, labs in zip(near.nids.tolist(), near.labels.tolist()):
        for lab in labs:
            near_by.setdefault(lab, []).append(nid)
    latest: dict[int, tuple[int, str, float, int, str]] = {}   # each earlier statement: its last change
    for entry in changed:
        if entry[3] not in latest or entry[2] > latest[entry[3]][2]:
            latest[entry[3]] = entry
    before_of: dict[int, list[str]] = {}   # a statement changed in this write -> what it changed
    for entry in changed:
        before_of.setdefault(entry[0], []).append(entry[4])
    for later, later_text, later_from, old_lab, old_text in latest.values():
        also = tuple(before_of.get(old_lab, ())) + _changed_before(unit, old_lab, stored)
        near_to = set(near_by.get(later, ())) | set(near_by.get(old_lab, ()))   # new memories near either
        for nid in (later, old_lab):
            row = row_of.get(nid)
            if row is not None:   # a new memory: its earlier neighbours
                near_to.update(near.labels[row][near.keep[row]].tolist())
        near_to -= {later, old_lab, -1}
        for lab in sorted(near_to):
            if (later, lab) in linked or (lab, later) in linked:
                continue
            got = _earlier_statement(unit, lab, by_nid, stored, max_words)
            if got is None:
                continue
            text, valid_from = got
            if valid_from < later_from and restates(text, old_text, later_text, also):
                linked.add((later, lab))
                edges.append((later, lab, Relation.CONTRADICTS.code, 1.0))
    return edges


def _changed_before(unit: WriteUnit, lab: int, stored: dict[int, dict | None]) -> tuple[str, ...]:
    """The texts of the stored memories that memory ``lab`` changed: joined to it by a stored
    ``contradicts`` or ``supersedes`` edge and valid before it (a report's earlier statement);
    a read record is kept in ``stored``."""
    csr = unit.state.csr()
    if lab >= csr.n_nodes:
        return ()
    vf = unit.state.cols.valid_from
    out = []
    for code in (Relation.CONTRADICTS.code, Relation.SUPERSEDES.code):
        for y in csr.related(lab, code).tolist():
            if y != lab and y < len(vf) and _temporal.said_after(vf[lab], lab, vf[y], y):
                rec = stored[y] if y in stored else stored.setdefault(y, unit.record(y))
                if rec is not None:
                    out.append(rec["text"])
    return tuple(out)


#: The sentences of a text (:func:`engramdb.sentences.several_sentences`), None for one; cached.
_sentences = lru_cache(maxsize=STORED_TEXT_MEMO)(several_sentences)
#: The claims of a text (:func:`engramdb.sentences.several_claims`), None for one; cached.
_claims = lru_cache(maxsize=1 << 14)(several_claims)


#: Subjects that say nothing of what a clause is about ("... and she is 72", "... and I take it
#: twice a day"): such a clause of a longer sentence is not compared on its own.
_PRONOUN_SUBJECTS = frozenset("i we you he she it they".split())


#: A sentence that opens news without saying whose ("Big news.", "Quick update:", "Guess what?").
_NEWS_LEAD = re.compile(r"^(?:(?:big|good|great|some|exciting|quick|small)\s+)?(?:news|update)\b|^(?:guess\s+what|fyi|"
                        r"heads\s+up|btw|by\s+the\s+way|so|well|ok|okay)\b", re.I)


def _speakers_lead(sentence: str) -> bool:
    """Whether a sentence before a contact detail said without "my" (:func:`engramdb.facts.bare_change`)
    leaves it the speaker's: greetings or chatter, news opened ("Big news."), or the speaker's own
    words ("We moved!", "I finally found a flat."); not another's ("My sister just moved.")."""
    label = SPEAKER_LABEL.match(sentence)
    body = sentence[label.end():] if label is not None else sentence
    return (filler_sentence(body) or _NEWS_LEAD.match(body.strip()) is not None
            or subject_key(subject_of(sentence)) in (("i",), ("we",)))


def _several(text: str) -> bool:
    """Whether ``text`` is compared part by part (:func:`_sentence_conflicts`): it holds several
    sentences, or several claims and may give a value (:func:`engramdb.facts.frames_a_value`)."""
    return _sentences(text) is not None or (frames_a_value(text) and _claims(text) is not None)


@lru_cache(maxsize=STORED_TEXT_MEMO)   # (a stored text is compared with the new ones of many writes)
def _signal(text: str) -> tuple[bool, bool, bool]:
    """What :func:`_sentence_conflicts` asks of each text of a pair: (holds a number, holds a
    negation, may give an attribute a value)."""
    sig = fact_signature(text)
    return bool(sig["number"]), sig["negation"] > 0, frames_a_value(text)


def _sentence_conflicts(pairs: list[tuple[str, str]], kinds: list[str | None], max_words: int,
                        subjects: dict[str, tuple[str, ...]]) -> set[int]:
    """Conflicts between the parts of text pairs that hold several (:func:`_several`), found for
    the pairs ``kinds`` has no conflict for; written into ``kinds``; returns their indices.

    - A number or a negation: sentence by sentence (a chat message: "My doctor changed my
      prescription. I started taking 1000 mg of metformin." against "Remind me to take my pills.
      I take metformin 500 mg every morning.").
    - Another value of an attribute, when both texts may give one: claim by claim
      (:func:`engramdb.sentences.several_claims`: "My email is priya@gmail.com, use that for
      reminders." against "My new email is priya@dell.com."; "My phone number is 555-0101, text
      me there."); a clause whose subject is a pronoun alone ("... and I take it twice a day",
      "... and she is 72") is not compared: what it speaks of is in the other clause.

    A part of at most ``max_words`` words is compared with those of the other text whose
    subject can match (equal, or one a prefix of the other: :func:`engramdb.facts.conflict_many`,
    read as it reads them: "my new email" is "my email"); a speaker label ("user: ...") goes
    before each part of its text, so the parts keep their speaker."""
    parts: dict[tuple[str, bool], list[tuple[str, tuple[str, ...]]]] = {}

    def parts_of(text: str, claims: bool) -> list[tuple[str, tuple[str, ...]]]:
        got = parts.get((text, claims))
        if got is None:
            split = _claims(text) if claims else _sentences(text)
            got = parts[text, claims] = []
            said = []   # (the parts before: whose a contact detail said without "my" is, they may tell)
            for x in (labelled(text, split) if split is not None else (text,)):
                if said and bare_change(x) and not all(_speakers_lead(y) for y in said):
                    continue   # "My sister just moved. New address is 40 Pine Road." (not "We moved! New address is ...")
                said.append(x)
                if len(x.split()) <= max_words:
                    subj = subjects.get(x)
                    if subj is None:
                        subj = subjects[x] = _subject(x)
                    got.append((x, subject_key(subj)))
        return got

    todo: list[tuple[int, bool]] = []   # (pair, by claims: only a "value" counts)
    flat: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    for i, ((new, old), kind) in enumerate(zip(pairs, kinds)):
        if kind is not None or not (_several(new) or _several(old)):
            continue
        a, b = _signal(new), _signal(old)
        ways = ([False] if (a[0] and b[0]) or a[1] or b[1] else []) + ([True] if a[2] and b[2] else [])
        for claims in ways:   # (no two parts of theirs can differ in a number, a negation or a value otherwise)
            start = len(flat)
            whole = {x for x, _s in parts_of(new, False)} if claims else set()
            for x, sx in parts_of(new, claims):
                if claims and 0 < len(sx) <= 2 and sx[-1] in _PRONOUN_SUBJECTS and x not in whole:
                    continue   # ("... and I take it twice a day": of what, the other clause says; a
                    # sentence of its own says it: "Big news. We upgraded to the Enterprise plan.")
                for y, sy in parts_of(old, claims):
                    if sx == sy or (sx and sy and (sx[: len(sy)] == sy or sy[: len(sx)] == sx)):
                        flat.append((x, y))
            if len(flat) > start:
                todo.append((i, claims))
                spans.append((start, len(flat)))
    if not flat:
        return set()
    judged = conflict_many(flat, subjects=subjects)
    found = set()
    for (i, claims), (lo, hi) in zip(todo, spans):
        if i in found:
            continue
        kind = next((k for k in judged[lo:hi] if k is not None and (k != "event_number" or not claims)), None)
        if kind is not None:
            kinds[i] = kind
            found.add(i)
    return found


def _statement(text: str, max_words: int, fields: dict | None) -> bool:
    """Whether ``text`` is short enough to be one statement for conflict detection; a text
    stored as pieces (``fields`` with ``chunks`` or ``chunk_of``) is never one, whatever its
    words (a long text without spaces is one "word")."""
    if fields is not None and (fields.get("chunks") or fields.get("chunk_of") is not None):
        return False
    return len(text.split()) <= max_words


def _same_time(a: str, a_at: float, b: str, b_at: float, *, named: bool = False) -> bool:
    """Whether statements ``a`` and ``b`` (event times ``a_at``, ``b_at``, Unix seconds) speak of
    the same time: neither names one (with ``named``, for two reports of a past event, that is
    not enough: "I ran 5 km" and "I ran 8 km" are two runs), or the spans they name (each
    resolved against its own event time) overlap."""
    wa, wb = resolve_time_refs(a, a_at), resolve_time_refs(b, b_at)
    if not wa and not wb:
        return not named
    return any(x.core_start < y.core_end and y.core_start < x.core_end for x in wa for y in wb)


#: Generated nodes whose texts are labels ("Session week 1 of ...") or parts and digests of
#: other memories, not statements: two of them never supersede one another. A promoted fact
#: is a statement, so conflict detection still applies to it.
_NOT_STATEMENTS = GENERATED_TAGS - {"fact"}


def _not_a_fact(kind: str, fields: dict | None, tags=()) -> bool:
    """Decisions and their outcomes (``engramdb.decisions``) are choices and events, not
    statements of fact: two decisions that differ in a number are two forecasts, both scored by
    calibration, so conflict detection neither supersedes nor contradicts them. Nor does it
    touch the generated nodes other than facts (``types.GENERATED_TAGS``): session nodes of two sessions
    ("Session week 1 ..." / "Session week 2 ...") differ in a number but are two sessions."""
    return (kind == MemoryKind.DECISION.value or (fields is not None and "outcome_of" in fields)
            or not _NOT_STATEMENTS.isdisjoint(tags))
