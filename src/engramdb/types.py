"""Value types of the public API: memory kinds, edge relations, memories, hits and results."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from .errors import UnknownKindError, UnknownRelationError

__all__ = ["MemoryKind", "Relation", "MemoryState", "Memory", "Edge", "PathStep", "Hit", "Gap", "RecallResult",
           "Contradiction", "CensorNote", "memory_from_record", "DecisionInfo", "OUTCOMES", "decision_outcome",
           "GENERATED_TAGS", "CONNECTOR_TAGS", "PIECE_TAG", "PROTECTED_TAG", "shown_tags", "format_path"]

#: Tags of the nodes that conversation ingest (engramdb.conversation) and consolidation
#: (engramdb.dynamics.consolidate) add beside the messages: sessions, entities, long-message
#: pieces, summaries and promoted facts. They are not turns of a conversation.
GENERATED_TAGS = frozenset({"session", "entity", "piece", "summary", "fact"})
#: The internal tag of the pieces of a memory stored in pieces (``<id>#<n>``, ``<id>#p<n>``:
#: :mod:`engramdb.batch_plan`): never shown (:func:`shown_tags`) nor matched by a tags filter.
PIECE_TAG = "piece"
#: The generated nodes that only connect (a session label, an entity name): they route
#: spreading activation between turns but answer nothing, so recall keeps them out of its hits
#: unless asked (RecallConfig.connector_hits, or a tags filter naming them).
CONNECTOR_TAGS = frozenset({"session", "entity"})
#: The tag of a memory the default rescoring job never archives or prunes (identity, health and
#: family facts: admission, ``add_conversation`` and consolidation tag them;
#: ``ForgettingConfig.keep_protected``).
PROTECTED_TAG = "protected"


class MemoryKind(str, enum.Enum):
    """Memory systems after Tulving (1972, 1985), plus working memory and decisions.

    Each kind has its own default half-life and admission prior (see ``config.DecayConfig``).
    """

    WORKING = "working"          # minutes
    EPISODIC = "episodic"        # events, conversation turns; days to weeks
    SEMANTIC = "semantic"        # facts, preferences; months to permanent
    PROCEDURAL = "procedural"    # skills, workflows; permanent until revised
    DECISION = "decision"        # choice + reasoning + confidence + outcome

    @classmethod
    def parse(cls, value: "MemoryKind | str") -> "MemoryKind":
        """Return the kind named by ``value``; raise :class:`UnknownKindError` otherwise."""
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            raise UnknownKindError(
                f"unknown memory kind {value!r}; expected one of {[k.value for k in cls]}"
            ) from None

    @property
    def code(self) -> int:
        return _KIND_CODES[self]


_KIND_CODES = {k: i for i, k in enumerate(MemoryKind)}
KIND_BY_CODE = tuple(MemoryKind)


class Relation(str, enum.Enum):
    """Typed edge relations; the integer ``code`` is what the CSR ``relation`` array (uint8) holds.

    ``same_session`` and ``same_speaker`` are the conversation-graph relations ingest adds.
    """

    RELATED_TO = "related_to"
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    SUPERSEDES = "supersedes"
    CAUSED_BY = "caused_by"
    INFORMED_BY = "informed_by"
    EVIDENCE_FOR = "evidence_for"
    DISCUSSED_IN = "discussed_in"
    EXTRACTED_FROM = "extracted_from"
    NEXT = "next"
    MENTIONS = "mentions"
    SAME_SESSION = "same_session"
    SAME_SPEAKER = "same_speaker"

    @classmethod
    def parse(cls, value: "Relation | str") -> "Relation":
        """Return the relation named by ``value``; raise :class:`UnknownRelationError` otherwise."""
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            raise UnknownRelationError(
                f"unknown relation {value!r}; expected one of {[r.value for r in cls]}"
            ) from None

    @property
    def code(self) -> int:
        return _REL_CODES[self]


_REL_CODES = {r: i for i, r in enumerate(Relation)}
RELATION_BY_CODE = tuple(Relation)


class MemoryState(str, enum.Enum):
    """Lifecycle flag of a memory. Superseded and archived memories are kept, not deleted."""

    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"


_STATE_CODES = {s: i for i, s in enumerate(MemoryState)}
STATE_BY_CODE = tuple(MemoryState)


@dataclass(frozen=True, slots=True)
class CensorNote:
    """A ``warn`` censor rule that matched a memory (:mod:`engramdb.censor`): the memory is shown,
    annotated with this note.

    Attributes
    ----------
    rule_id : str
        The rule's id (``Engram.censors()``).
    reason : str
        The rule's reason, as given when it was added.
    """

    rule_id: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule_id": self.rule_id, "reason": self.reason}


#: Outcomes of a reviewed decision (``Engram.review``); an unreviewed one is ``"pending"``.
OUTCOMES = ("success", "partial", "failure")


@dataclass(frozen=True, slots=True)
class DecisionInfo:
    """What a ``decision`` memory records besides its text (``Engram.decide`` / ``Engram.review``).

    The forecast is the memory's ``confidence``: the probability, in [0, 1], that the decision
    succeeds; ``Engram.calibration`` scores it against the outcomes (Brier 1950).

    Attributes
    ----------
    options : tuple of str
        The alternatives considered (may be empty).
    chosen : str or None
        The option taken (one of ``options`` when both are given).
    category : str or None
        A caller's grouping (e.g. ``"hiring"``, ``"infra"``).
    reasons : tuple of (str or None, str)
        ``(type, text)`` pairs; ``type`` one of ``engramdb.decisions.REASON_TYPES`` or None.
    outcome : {"pending", "success", "partial", "failure"}
        The latest review's outcome; ``"pending"`` until one is recorded.
    outcome_id : str or None
        Id of the current outcome memory (``caused_by`` the decision); None while pending.
    outcome_at : float or None
        Time of the latest outcome review, Unix seconds.
    note : str or None
        The latest review's note.
    reviews : int
        Outcome reviews recorded so far (each later one supersedes the earlier outcome).
    """

    options: tuple[str, ...] = ()
    chosen: str | None = None
    category: str | None = None
    reasons: tuple[tuple[str | None, str], ...] = ()
    outcome: str = "pending"
    outcome_id: str | None = None
    outcome_at: float | None = None
    note: str | None = None
    reviews: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"options": list(self.options), "chosen": self.chosen, "category": self.category,
                "reasons": [{"type": t, "text": x} for t, x in self.reasons], "outcome": self.outcome,
                "outcome_id": self.outcome_id, "outcome_at": self.outcome_at, "note": self.note,
                "reviews": self.reviews}


def decision_outcome(rec: dict) -> str | None:
    """The outcome of a stored decision record (``"pending"`` until reviewed); None for any
    other kind of memory."""
    if rec["kind"] != "decision":
        return None
    return rec.get("outcome") or "pending"


def _decision_info(rec: dict) -> DecisionInfo | None:
    if rec["kind"] != "decision":
        return None
    return DecisionInfo(options=tuple(rec.get("options") or ()), chosen=rec.get("chosen"),
                        category=rec.get("category"),
                        reasons=tuple((r.get("type"), r["text"]) for r in rec.get("reasons") or ()),
                        outcome=rec.get("outcome") or "pending", outcome_id=rec.get("outcome_id"),
                        outcome_at=rec.get("outcome_at"), note=rec.get("outcome_note"),
                        reviews=int(rec.get("reviews") or 0))


@dataclass(slots=True)
class Memory:
    """One stored memory.

    Attributes
    ----------
    id : str
        The caller's id (or a generated one); unique within the namespace.
    namespace : str
        Agent or user the memory belongs to; recall never crosses namespaces.
    kind : MemoryKind
    text : str
    created_at : float
        Event time, Unix seconds.
    recorded_at : float
        Record time, when the store learned it (the clock at ingest, or a backfilled
        ``recorded_at``), Unix seconds.
    confidence : float
        In [0, 1].
    salience : float
        Salience at ``salience_at`` (stored value s(t0)), in [0, 1]; see ``Engram.salience``.
    salience_at : float
        t0 of the stored salience, Unix seconds.
    access_count : int
    last_access : float or None
        Unix seconds of the last recall that returned it.
    source : str or None
        Session / turn id the memory came from (e.g. LoCoMo ``D1:3``).
    tags : tuple of str
    state : MemoryState
    superseded_by : str or None
        Id of the memory that replaced this one.
    embedding : ndarray of float32, shape (dim,), or None
        Unit-norm vector; filled only when asked for.
    valid_from, valid_to : float or None
        Valid time (when it was true in the world), Unix seconds UTC; ``valid_from`` defaults
        to ``created_at``, ``valid_to`` is None while open (set when a successor supersedes it).
    retired_at : float or None
        Record time at which the store retired it (superseded), Unix seconds UTC.
    subject, attribute, value : str or None
        The slot the memory fills, when it fills one: subject and attribute normalised, the
        value as written (compared normalised).
    version : int
        1 for the first wording; each :meth:`Engram.update` adds one.
    censor_notes : tuple of CensorNote
        The ``warn`` censor rules matching the memory (empty when none).
    decision : DecisionInfo or None
        Options, choice, reasons and outcome of a ``decision`` memory; None for other kinds.
    chunk_of, chunk : str or None, int or None
        For a piece of a memory stored as pieces (a text longer than ``StoreConfig.chunk_chars``):
        the memory's id and the piece's index (>= 1); None for a memory (``get`` of the memory
        itself returns its whole text).
    overlap_chars : int or None
        For such a piece: how many characters at the start of its text repeat the piece before
        (``StoreConfig.chunk_overlap`` sentences), so ``text[overlap_chars:]`` is what the
        piece adds; None for a memory, and for pieces stored before it was recorded.
    """

    id: str
    namespace: str
    kind: MemoryKind
    text: str
    created_at: float
    recorded_at: float
    confidence: float = 1.0
    salience: float = 0.5
    salience_at: float = 0.0
    access_count: int = 0
    last_access: float | None = None
    source: str | None = None
    tags: tuple[str, ...] = ()
    state: MemoryState = MemoryState.ACTIVE
    superseded_by: str | None = None
    embedding: Any = None
    valid_from: float | None = None
    valid_to: float | None = None
    retired_at: float | None = None
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    version: int = 1
    censor_notes: tuple[CensorNote, ...] = ()
    decision: DecisionInfo | None = None
    chunk_of: str | None = None
    chunk: int | None = None
    overlap_chars: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the memory without its embedding."""
        return {
            "id": self.id, "namespace": self.namespace, "kind": self.kind.value, "text": self.text,
            "created_at": self.created_at, "recorded_at": self.recorded_at,
            "confidence": self.confidence, "salience": self.salience, "salience_at": self.salience_at,
            "access_count": self.access_count, "last_access": self.last_access,
            "source": self.source, "tags": list(self.tags), "state": self.state.value,
            "superseded_by": self.superseded_by,
            "valid_from": self.valid_from, "valid_to": self.valid_to, "retired_at": self.retired_at,
            "subject": self.subject, "attribute": self.attribute, "value": self.value,
            "version": self.version, "censor_notes": [n.to_dict() for n in self.censor_notes],
            "decision": None if self.decision is None else self.decision.to_dict(),
            "chunk_of": self.chunk_of, "chunk": self.chunk, "overlap_chars": self.overlap_chars,
        }


def shown_tags(rec: dict) -> tuple[str, ...]:
    """The tags of a stored record as the caller sees them: a piece's (``chunk_of`` set) without
    the internal :data:`PIECE_TAG`, so a hit at a piece shows its memory's tags."""
    tags = rec["tags"]
    if rec.get("chunk_of") is None:
        return tuple(tags)
    return tuple(t for t in tags if t != PIECE_TAG)


def memory_from_record(rec: dict, vec: Any) -> Memory:
    """The :class:`Memory` of a stored record (and its embedding, when read)."""
    return Memory(id=rec["id"], namespace=rec["namespace"], kind=MemoryKind(rec["kind"]), text=rec["text"],
                  created_at=rec["created_at"], recorded_at=rec["recorded_at"],
                  confidence=rec["confidence"], salience=rec["salience"], salience_at=rec["salience_at"],
                  access_count=rec["access_count"], last_access=rec["last_access"], source=rec["source"],
                  tags=shown_tags(rec), state=MemoryState(rec["state"]),
                  superseded_by=rec["superseded_by"], embedding=vec,
                  valid_from=rec.get("valid_from", rec["created_at"]), valid_to=rec.get("valid_to"),
                  retired_at=rec.get("retired_at"), subject=rec.get("subject"),
                  attribute=rec.get("attribute"), value=rec.get("value"),
                  version=len(rec.get("versions") or ()) + 1, decision=_decision_info(rec),
                  chunk_of=rec.get("chunk_of"), chunk=rec.get("chunk"), overlap_chars=rec.get("overlap_chars"))


@dataclass(frozen=True, slots=True)
class Edge:
    """A typed, weighted, directed edge ``source -> target``; unique on (source, target, relation)."""

    source: str
    target: str
    relation: Relation
    weight: float


@dataclass(frozen=True, slots=True)
class PathStep:
    """One step of an activation path: reached ``id`` over ``relation`` (``None`` for the seed).

    ``forward`` is True when the stored edge points from the previous step to this one.
    """

    id: str
    relation: Relation | None = None
    forward: bool = True


def format_path(path: list[PathStep]) -> str:
    """A path on one line, seed first, each step with the direction of its stored edge:
    ``a -[next]-> b`` when the edge points from ``a`` to ``b``, ``b <-[supersedes]- c`` when
    it points back (``c`` supersedes ``b``): the notation of ``engramdb edges``.

    >>> format_path([PathStep("m1"), PathStep("m2", Relation.NEXT), PathStep("m3", Relation.SUPERSEDES, False)])
    'm1 -[next]-> m2 <-[supersedes]- m3'
    """
    out = [path[0].id] if path else []
    for s in path[1:]:
        rel = "?" if s.relation is None else s.relation.value
        out.append(f"-[{rel}]-> {s.id}" if s.forward else f"<-[{rel}]- {s.id}")
    return " ".join(out)


@dataclass(slots=True)
class Hit:
    """A recalled memory with its score and the path (seed -> ... -> hit) that activated it.

    Attributes
    ----------
    id, kind, text, source, tags, created_at, confidence : see :class:`Memory`
    score : float
        Final ranking score (activation blended with salience, recency and confidence).
    activation : float
        The memory's score before the salience / recency / confidence blend and time cues: for
        a seed, its fused match (vector and keyword legs, the best seed at 1) plus ``w_graph``
        x the strongest single pass of activation it received from another memory (lateral
        inflow); for a memory reached by spreading alone, that term alone. 0 for a hit that
        fills a recall reaching fewer than ``k`` (the vector leg's next nearest, unscored).
    similarity : float or None
        Cosine to the query, when the memory was a vector seed: lifted toward its best
        sentence key's when it has sentence keys (``RecallConfig.sentence_weight``).
    path : list of PathStep
        ``path[0]`` is the seed; the last step is this memory.
    relevance : float
        In [0, 1]: how likely the memory answers the query, calibrated so that one threshold
        (``RecallConfig.relevance_threshold``) separates answerable questions from unanswerable
        ones. Reported only; ``score`` ranks. A current holder of the slot the question names
        ("where do I live?" -> ``home_city``) has at least its slot match: 1 when the question
        names the slot fully.
    censor_notes : tuple of CensorNote
        The ``warn`` censor rules matching the memory (empty when none).
    outcome : str or None
        For a ``decision`` hit, its track record: ``"pending"``, ``"success"``, ``"partial"`` or
        ``"failure"`` (the latest review, see :meth:`Engram.review`); None for other kinds.
    chunk : int or None
        For a memory stored as pieces (a text longer than ``StoreConfig.chunk_chars``,
        :mod:`engramdb.batch_plan`): which piece matched best, 0 for the first. ``id`` is then
        the memory's own id, ``text`` that piece (``Engram.get`` returns the whole text), and
        ``path`` ends at the piece (``<id>#<chunk>`` for chunk >= 1). A memory is one hit
        however many of its pieces match, scored by its best piece (MaxP, Dai & Callan 2019).
        None for a memory stored whole.
    """

    id: str
    kind: MemoryKind
    text: str
    score: float
    activation: float
    similarity: float | None
    path: list[PathStep]
    source: str | None
    tags: tuple[str, ...]
    created_at: float
    confidence: float
    state: MemoryState = MemoryState.ACTIVE
    relevance: float = 0.0
    censor_notes: tuple[CensorNote, ...] = ()
    outcome: str | None = None
    chunk: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind.value, "text": self.text, "score": round(self.score, 6),
            "activation": round(self.activation, 6),
            "similarity": None if self.similarity is None else round(self.similarity, 6),
            "path": [
                {"id": s.id, "relation": None if s.relation is None else s.relation.value, "forward": s.forward}
                for s in self.path
            ],
            "source": self.source, "tags": list(self.tags), "created_at": self.created_at,
            "confidence": self.confidence, "state": self.state.value, "relevance": round(self.relevance, 6),
            "censor_notes": [n.to_dict() for n in self.censor_notes],
            "outcome": self.outcome, "chunk": self.chunk,
        }


@dataclass(frozen=True, slots=True)
class Gap:
    """Negative recall: the store lacks strong evidence for the query.

    ``reason`` is one of ``"weak_evidence"``, ``"empty_namespace"`` (the namespace holds no
    memories, or held none at the recall's ``as_of``), ``"filtered_out"``,
    ``"empty_window"`` (the question names a time from which nothing is stored),
    ``"changed_since"`` (the question names a past time and a slot whose current value holds only
    since after it: another memory, superseded, held it then, and is a hit; the detail names both),
    ``"unstated"`` (the question asks where the user lives or works, "where do I work?", and no
    memory the recall may show states it, nor may state it read loosely, nor does a slot of the
    user's hold it: the hits only mention its words), ``"unmentioned"`` (the question names
    something no memory of the namespace mentions: "What did you suggest for my Japan
    itinerary?" of a store that never spoke of Japan; the detail names up to three such names;
    :func:`engramdb.recall.results.unmentioned`).
    ``best_similarity`` is the best cosine the vector search found (whichever memory has it: the
    first hit may be another, or one that spreading reached, whose ``similarity`` is None; never a
    connector node, a session or entity, that the hits leave out), None without a vector search.
    """

    query: str | None
    reason: str
    best_similarity: float | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "reason": self.reason, "best_similarity": self.best_similarity,
                "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Contradiction:
    """Two memories joined by a ``contradicts`` edge, at least one of them among the hits.

    ``source -> target`` is the stored edge, whose direction says which memory the write path
    read as changing the other, not which is newer (a report may be linked to a statement said
    after it); ``later`` is the id of the one valid later (later ``valid_from``; of two valid
    from the same time, the one stored later), the value that holds; ``*_state`` are the
    memories' states and ``*_in_hits`` say which of them the recall returned (the other may be
    hidden, e.g. superseded).
    """

    source: str
    target: str
    source_state: MemoryState
    target_state: MemoryState
    source_in_hits: bool
    target_in_hits: bool
    later: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "source_state": self.source_state.value,
                "target_state": self.target_state.value, "source_in_hits": self.source_in_hits,
                "target_in_hits": self.target_in_hits, "later": self.later}


@dataclass(slots=True)
class RecallResult:
    """Answer of :meth:`Engram.recall`: ranked hits, gaps, and how the recall ran.

    ``warnings`` lists the :class:`Contradiction` pairs touching the hits (unresolved
    conflicts the caller should see). ``stats`` holds ``seeds`` and ``activated`` (node
    counts) and ``relevance_threshold``: the hit ``relevance`` below which the answer is weak
    evidence (the embedder's calibration, or ``RecallConfig.relevance_threshold``). A single
    :meth:`Engram.recall` also has ``stage_s``: seconds per stage, ``prepare`` (argument checks
    and query embedding), ``seeds`` (vector and keyword legs, fusion, time cues), ``activation``
    (spreading activation and lateral inflow), ``ranking``, ``results`` (hits, paths, relevance,
    gaps) and ``widen`` (the exact re-run of a selective filter; 0 when none ran).
    """

    hits: list[Hit]
    gaps: list[Gap]
    mode: str                 # "spread" or "one_hop" or "vector" (density gate outcome)
    density: float            # edges per linked node in the namespace's graph
    latency_s: float          # wall time of the recall, seconds
    stats: dict[str, Any] = field(default_factory=dict)
    warnings: list[Contradiction] = field(default_factory=list)

    def __iter__(self):
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``hits``, ``gaps``, ``mode``, ``density``, ``latency_s`` (seconds, as the
        attribute) and ``warnings``."""
        return {"hits": [h.to_dict() for h in self.hits], "gaps": [g.to_dict() for g in self.gaps],
                "mode": self.mode, "density": round(self.density, 4),
                "latency_s": round(self.latency_s, 7),
                "warnings": [w.to_dict() for w in self.warnings]}
