"""What an ``add_batch`` writes: repeated texts are merged, very long texts are chunked.

Deduplication (exact text, per namespace)
    An item whose exact text is already stored in its namespace is not stored again when the
    caller gave no id (the stored memory must be active, or be the same event superseded since:
    see below) or gave the id of that very memory: its id is returned and the stored memory,
    when active, is reinforced (salience and access count, as a recall would); the repeat's
    ``links`` are added to the stored memory (their targets are checked before anything is
    written). Items with distinct explicit ids always stay distinct memories (LoCoMo turns
    may repeat a text). An episodic item given its own event time (``created_at``) repeats
    only the episodic memory of its text *at that time*: the same words at another time are
    another event ("Went for a run by the river" every Monday), stored anew; at the same time
    it is the same event even when a later memory has superseded it since (a chat or log
    imported again: "I take 10 mg" of March, superseded by "I take 20 mg" of June, is not stored
    a second time, active beside its successor; once the successor is forgotten, it is). The lookup is one LMDB read of the ``texts`` sub-database, keyed by the
    SHA-256 of the text; the stored text is compared before merging.

Chunking (texts longer than ``StoreConfig.chunk_chars``)
    The text is cut into pieces of at most ``chunk_chars`` characters at sentence boundaries,
    keeping fenced code blocks and list items whole where they fit, consecutive pieces
    overlapping by ``StoreConfig.chunk_overlap`` sentences so a fact on a boundary is whole in
    one of them, and at most ``StoreConfig.max_pieces`` pieces (past it the pieces grow):
    :mod:`engramdb.pieces`. The first piece keeps the caller's id (the head, with fields
    ``chunks`` = number of pieces and ``text_sha256`` of the whole text);
    piece ``i >= 1`` is the memory ``"<id>#<i>"`` (fields ``chunk_of``, ``chunk`` and
    ``overlap_chars``, the characters at its start that repeat piece ``i - 1``; tagged
    ``piece`` internally, a tag never shown: :func:`piece_tags`) with an
    ``extracted_from`` edge to the head and a ``next`` edge from piece ``i - 1``. Each piece is
    embedded on its own, so recall finds the piece that holds a fact, wherever it sits in the
    text; it returns the memory under the caller's id, once, at its best piece (``Hit.chunk``).
    ``Engram.get`` joins the pieces back into the whole text (:func:`join_pieces`, checked
    against ``text_sha256``). Memory and time grow linearly with the text length.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from .errors import InvalidInputError, MemoryNotFoundError, OversizeError
from .pieces import cut_pieces
from .store.lmdb_store import text_digest
from .types import PIECE_TAG, MemoryKind, MemoryState, Relation

__all__ = ["BatchPlan", "plan_batch", "split_text", "join_pieces", "piece_ids", "piece_tags", "is_block", "is_block_id", "whole_digest",
           "whole_record", "chunk_id", "block_id"]


def split_text(text: str, chunk_chars: int, *, overlap: int = 2, max_pieces: int | None = None) -> list[str]:
    """The pieces of ``text``, at most ``chunk_chars`` characters each, cut at sentence
    boundaries and overlapping by ``overlap`` sentences (:func:`engramdb.pieces.cut_pieces`
    without the overlap lengths).

    Parameters
    ----------
    text : str
    chunk_chars : int
        Longest piece, >= 16.
    overlap : int
        Sentences each piece repeats from the one before, >= 0.
    max_pieces : int, optional
        Most pieces; past it the pieces grow.

    Returns
    -------
    list of str
        ``[text]`` when it fits.
    """
    return [piece for piece, _ in cut_pieces(text, chunk_chars, overlap=overlap, max_pieces=max_pieces)]


def chunk_id(memory_id: str, i: int) -> str:
    """Id of chunk ``i`` (>= 1) of a long text stored under ``memory_id``."""
    return f"{memory_id}#{i}"


def block_id(memory_id: str, j: int) -> str:
    """Id of block ``j`` (>= 1) of a conversation message ``memory_id`` (:mod:`engramdb.conversation`)."""
    return f"{memory_id}#p{j}"


def is_block(rec: dict) -> bool:
    """Whether the record ``rec`` is a block of a conversation message split into blocks
    (:func:`block_id`; fields ``chunk_of`` and ``chunk``), not a chunk of a long text: its message
    is stored whole beside it, and the keyword index scores the block with the message's length
    (a block is a short document only because the message was split: scored as one, a block of
    a long answer outranked the short user message that answers, helper-242)."""
    of = rec.get("chunk_of")
    return of is not None and is_block_id(str(rec.get("id")), of)


def is_block_id(piece_id: str, memory_id: str) -> bool:
    """Whether ``piece_id`` is the id of a block of memory ``memory_id`` (:func:`block_id`)."""
    tail = piece_id[len(memory_id) + 2:] if piece_id.startswith(memory_id + "#p") else ""
    return tail.isdigit() and tail[0] != "0"


def piece_tags(tags) -> list[str]:
    """The stored tags of a piece of a memory tagged ``tags``: the internal ``"piece"`` first
    (:data:`engramdb.types.PIECE_TAG`, hidden from the caller by ``types.shown_tags``), then
    the memory's own."""
    return [PIECE_TAG, *(t for t in tags if t != PIECE_TAG)]


def piece_ids(rec: dict) -> list[str]:
    """Ids of the other pieces of the memory whose record is ``rec``: :func:`chunk_id` for the
    chunks of a long text (field ``chunks``), :func:`block_id` for the blocks a conversation
    message was split into (field ``blocks``); [] for neither. A piece's own record names its
    memory in ``chunk_of``."""
    mid = rec["id"]
    return ([chunk_id(mid, i) for i in range(1, int(rec.get("chunks") or 0))]
            + [block_id(mid, j) for j in range(1, int(rec.get("blocks") or 0) + 1)])


def head_nid(rec: dict, nid: int, lookup: Callable[[str, str], int | None]) -> int:
    """The nid of the memory ``rec`` (node ``nid``) belongs to: its first piece's, found by
    ``lookup(namespace, id)``, for a later piece (``chunk_of``); ``nid`` itself otherwise, or
    when the first piece is not found (what ``Columns.head`` holds)."""
    first = rec.get("chunk_of")
    head = None if first is None else lookup(rec["namespace"], first)
    return nid if head is None else head


def whole_record(rec: dict, read_piece: Callable[[str], dict | None], default_overlap: int) -> dict:
    """``rec`` as the caller stored it: for the first piece of a long text, a copy with the whole
    text (joined from the pieces ``read_piece(id)`` returns, checked against ``text_sha256``;
    earlier versions that held the first piece's text hold the whole text too). ``rec`` itself
    when it is not such a first piece, or a piece is missing, or the join does not check out.
    Each piece's ``overlap_chars`` says how much of it repeats the piece before; records
    written before that was recorded overlap by the head's ``chunk_overlap`` characters, or
    ``default_overlap`` when even that is missing."""
    if not rec.get("chunks"):
        return rec
    pieces, overlaps = [rec["text"]], [0]
    for i in range(1, int(rec["chunks"])):
        piece = read_piece(chunk_id(rec["id"], i))
        if piece is None or piece.get("chunk_of") != rec["id"]:
            return rec
        pieces.append(piece["text"])
        overlaps.append(int(piece.get("overlap_chars", rec.get("chunk_overlap", default_overlap))))
    text = join_pieces(pieces, overlaps, bytes.fromhex(rec.get("text_sha256", "")))
    if text is None:
        return rec
    out = {**rec, "text": text}
    if rec.get("versions"):
        out["versions"] = [{**v, "text": text} if v.get("text") == rec["text"] else v for v in rec["versions"]]
    return out


def join_pieces(pieces: list[str], overlaps: list[int], digest: bytes) -> str | None:
    """The text cut into ``pieces``: each piece after the first drops the ``overlaps[i]``
    characters it repeats. None unless the result's SHA-256 is ``digest`` (a piece was
    dropped, or the pieces are not those of one text)."""
    text = pieces[0] + "".join(p[k:] for p, k in zip(pieces[1:], overlaps[1:]))
    return text if text_digest(text) == digest else None


def whole_digest(rec: dict) -> str:
    """SHA-256 (hex) of the whole text of the memory whose first record is ``rec``: its
    ``text_sha256`` when it is stored as chunks, else the digest of its own text."""
    if rec.get("chunks"):
        return rec["text_sha256"]
    return text_digest(rec["text"]).hex()


@dataclass
class BatchPlan:
    """Result of :func:`plan_batch`.

    Attributes
    ----------
    ids : list of str
        The id to return for each input item, in input order.
    fresh : list
        ``_Prepared`` memories to write (chunks included).
    reinforce : list of int
        nids of stored memories that input items repeated.
    edges : list of (prepared, prepared, Relation)
        Chunk edges, resolved to nids inside the write transaction.
    links : dict of namespace -> list of (source id, target id, Relation, weight)
        The links of repeated items, added to the stored memories after the write.
    """

    ids: list[str] = field(default_factory=list)
    fresh: list[Any] = field(default_factory=list)
    reinforce: list[int] = field(default_factory=list)
    edges: list[tuple[Any, Any, Relation]] = field(default_factory=list)
    links: dict[str, list[tuple[str, str, Relation, float]]] = field(default_factory=dict)

    def chunk_edges(self, unit=None) -> list[tuple[int, int, int, float]]:
        """The chunk edges as (src nid, tgt nid, relation code, weight), once nids are assigned
        (the ``extra`` step of :func:`engramdb.write.records.write_new`)."""
        return [(a.nid, b.nid, rel.code, 1.0) for a, b, rel in self.edges]


def _matches(rec: dict | None, text: str, digest: bytes) -> bool:
    if rec is None:
        return False
    if rec.get("chunks"):
        return rec.get("text_sha256") == digest.hex()
    return rec["text"] == text


def _episodes_at(state: Any, txn, namespace: str, t: float) -> dict[bytes, int]:
    """The live episodic memories of ``namespace`` with event time ``t``: digest of the whole
    text -> nid (the text index keys the newest memory of a text only). One record read per
    such memory; :func:`plan_batch` reads each (namespace, time) once per batch."""
    c, sp = state.cols, state.spaces.get(namespace)
    if sp is None:
        return {}
    n = c.n
    at = (c.created_at[:n] == t) & (c.kind[:n] == MemoryKind.EPISODIC.code) & c.in_namespace(sp.code)
    out: dict[bytes, int] = {}
    for nid in np.flatnonzero(at).tolist():
        rec = state.store.get_record(txn, nid)
        if rec is not None and rec.get("chunk_of") is None:
            sha = rec.get("text_sha256")
            digest = bytes.fromhex(sha) if rec.get("chunks") and sha else text_digest(rec["text"])
            if digest not in out or rec["state"] == MemoryState.ACTIVE.value:
                out[digest] = nid   # a live one of its text at that time before an archived one
    return out


def _successor_active(store: Any, txn, namespace: str, rec: dict) -> bool:
    """Whether the memory that superseded ``rec`` is active (one forgotten since leaves no
    active statement of the fact: a repeat of ``rec`` is then stored anew)."""
    by = rec.get("superseded_by")
    nid = None if by is None else store.lookup_id(txn, namespace, by)
    succ = None if nid is None else store.get_record(txn, nid)
    return succ is not None and succ["state"] == MemoryState.ACTIVE.value


def plan_batch(state: Any, prepared: list, *, has_embedder: bool) -> BatchPlan:
    """Deduplicate and chunk validated items (see the module docstring).

    Raises
    ------
    OversizeError
        A text needs chunking but the store has no embedder for the pieces.
    MemoryNotFoundError, InvalidInputError
        A repeated item links to a memory that neither the store nor the batch holds, or to
        itself.
    """
    store, scfg = state.store, state.config.store
    chunk_chars = scfg.chunk_chars
    plan = BatchPlan()
    in_batch: dict[tuple[str, bytes, float | None], str] = {}
    episodes: dict[tuple[str, float], dict[bytes, int]] = {}   # (namespace, event time) -> _episodes_at
    with store.read("checking for repeated memories") as txn:
        for p in prepared:
            digest = text_digest(p.text)
            event = p.created_given and p.kind is MemoryKind.EPISODIC   # an event at a time of its own
            key = (p.namespace, digest, p.created_at if event else None)
            if p.auto_id and key in in_batch:
                plan.ids.append(in_batch[key])
                continue
            if p.auto_id:
                nid = store.lookup_text(txn, p.namespace, digest)
            else:
                nid = store.lookup_id(txn, p.namespace, p.ext_id)
            rec = None if nid is None else store.get_record(txn, nid)
            if event and p.auto_id and rec is not None and (rec["kind"] != MemoryKind.EPISODIC.value
                                                            or rec["created_at"] != p.created_at):
                # the same words at another time, or as a fact: the episode of this time, if any
                at = episodes.get((p.namespace, p.created_at))
                if at is None:
                    at = episodes[(p.namespace, p.created_at)] = _episodes_at(state, txn, p.namespace, p.created_at)
                nid = at.get(digest)
                rec = None if nid is None else store.get_record(txn, nid)
            active = rec is not None and rec["state"] == MemoryState.ACTIVE.value
            # the same event again (its words, kind and time: a chat or log imported twice) is the
            # stored one whatever became of it: a superseded one is not stored again beside its successor
            # (a repeat given its time got the episode of that time above)
            same_event = (event and rec is not None and rec["state"] == MemoryState.SUPERSEDED.value
                          and _successor_active(store, txn, p.namespace, rec))
            if _matches(rec, p.text, digest) and (not p.auto_id or active or same_event):
                plan.ids.append(rec["id"])
                if active and nid not in plan.reinforce:
                    plan.reinforce.append(nid)
                for to, rel, w in p.links:   # a weight not given is picked by link_batch
                    plan.links.setdefault(p.namespace, []).append((rec["id"], to, rel, w))
                continue
            in_batch.setdefault(key, p.ext_id)
            if p.auto_id:   # an untimed repeat later in the batch repeats the newest of its text, as the
                in_batch[(p.namespace, digest, None)] = p.ext_id   # text index makes it for calls one by one
            plan.ids.append(p.ext_id)
            pieces = cut_pieces(p.text, chunk_chars, overlap=scfg.chunk_overlap, max_pieces=scfg.max_pieces)
            if len(pieces) == 1:
                plan.fresh.append(p)
                continue
            if not has_embedder:
                raise OversizeError(
                    f"text of {len(p.text)} characters is longer than chunk_chars={chunk_chars}: its "
                    "pieces need an embedder; open the store with one, or raise StoreConfig.chunk_chars")
            head = replace(p, text=pieces[0][0], extra={"chunks": len(pieces), "text_sha256": digest.hex()},
                           digest=digest)
            plan.fresh.append(head)
            prev = head
            for i, (piece, overlap) in enumerate(pieces[1:], 1):
                part = replace(p, ext_id=chunk_id(p.ext_id, i), text=piece, vector=None, links=[], auto_id=False,
                               tags=tuple(piece_tags(p.tags)),
                               extra={"chunk_of": p.ext_id, "chunk": i, "overlap_chars": overlap})
                plan.fresh.append(part)
                plan.edges.append((part, head, Relation.EXTRACTED_FROM))
                plan.edges.append((prev, part, Relation.NEXT))
                prev = part
        for ns, links in plan.links.items():   # check the repeats' link targets before any write
            batch_ids = {p.ext_id for p in plan.fresh if p.namespace == ns}
            for src, to, _rel, _w in links:
                if to == src:
                    raise InvalidInputError(f"cannot link memory {to!r} to itself")
                if to not in batch_ids and store.lookup_id(txn, ns, to) is None:
                    raise MemoryNotFoundError(f"link from {src!r} to {to!r}: no memory {to!r} in namespace {ns!r}")
    return plan
