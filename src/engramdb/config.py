"""Frozen, keyword-only configuration dataclasses with their bounds as data.

``EngramConfig`` aggregates the groups; make variants with :func:`dataclasses.replace`.
Every out-of-bounds value raises :class:`engramdb.errors.ConfigError` at construction.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, fields

import numpy as np
from types import MappingProxyType
from typing import ClassVar, Mapping

from .errors import ConfigError
from .types import MemoryKind, Relation

__all__ = [
    "Interval", "Choice", "RecallConfig", "DecayConfig", "IndexConfig", "StoreConfig", "LinkConfig",
    "EngramConfig", "default_half_lives", "default_relation_multipliers", "SlotConfig",
    "AdmissionConfig", "ForgettingConfig", "default_type_priors", "default_archive_floors",
    "default_prune_floors", "RELEVANCE_CALIBRATION", "ConsolidationConfig", "check_config", "SESSION_GAP_S",
]

_DAY = 86400.0
#: Seconds of pause after which an unlabelled chat message opens a new session
#: (:meth:`engramdb.Engram.add_conversation`'s ``session_gap``): 30 minutes, the inactivity
#: timeout by which web analytics tells visits apart (after Catledge & Pitkow 1995).
SESSION_GAP_S = 1800.0


@dataclass(frozen=True, slots=True)
class Interval:
    """Numeric bound ``low (<|<=) value (<|<=) high``; ``closed`` is "both", "left", "right" or "neither"."""

    low: float | None
    high: float | None
    closed: str = "both"

    def contains(self, x: float) -> bool:
        if not isinstance(x, numbers.Real) or isinstance(x, bool) or not math.isfinite(x):
            return False
        lo_ok = self.low is None or (x >= self.low if self.closed in ("both", "left") else x > self.low)
        hi_ok = self.high is None or (x <= self.high if self.closed in ("both", "right") else x < self.high)
        return lo_ok and hi_ok

    def __str__(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.low is None else self.low
        hi = "inf" if self.high is None else self.high
        return f"{left}{lo}, {hi}{right}"


@dataclass(frozen=True, slots=True)
class Choice:
    """The value must be one of ``options``."""

    options: tuple

    def contains(self, x: object) -> bool:
        return x in self.options

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)


def check_bounds(obj: object) -> None:
    """Raise :class:`ConfigError` naming the first field of ``obj`` outside its ``BOUNDS``, or
    the first field annotated ``int`` given a value that is not an integer (2.5 seeds, a
    float ef: hnswlib and the kernels take whole numbers)."""
    annotations = {f.name: f.type for f in fields(obj)}
    for name, bound in type(obj).BOUNDS.items():
        value = getattr(obj, name)
        if annotations.get(name) in ("int", int) and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
            raise ConfigError(f"{type(obj).__name__}.{name} = {value!r} is not an integer; pass a whole number in {bound}")
        if not bound.contains(value):
            raise ConfigError(
                f"{type(obj).__name__}.{name} = {value!r} is outside {bound}; "
                f"pass a value in {bound}"
            )


def default_half_lives() -> Mapping[MemoryKind, float]:
    """Default salience half-life per memory kind, seconds (docs/design.md "Memory model")."""
    return MappingProxyType({
        MemoryKind.WORKING: 30 * 60.0,
        MemoryKind.EPISODIC: 14 * _DAY,
        MemoryKind.SEMANTIC: 180 * _DAY,
        MemoryKind.PROCEDURAL: 3650 * _DAY,
        MemoryKind.DECISION: 90 * _DAY,
    })


def default_relation_multipliers() -> Mapping[Relation, float]:
    """Activation multiplier per relation; Nous' values, plus ours for conversation edges.

    ``related_to`` is 0.5, not Nous' 0.8: an auto-link is the embedder's own cosine (>= 0.8),
    the similarity the vector leg has already scored, so spreading over it counts one signal
    twice. Measured on the tuning half only (MiniLM; hashing forms almost no auto-links, its
    figures do not move): R@10 76.2 -> 76.4 on LoCoMo, R@5 83.7 -> 84.8 and 77.7 -> 78.2 on
    ``bench_long_chats`` (merge 16 and 4); the held-out half moved by at most 0.4.
    """
    return MappingProxyType({
        Relation.RELATED_TO: 0.5, Relation.SUPPORTS: 1.0, Relation.CONTRADICTS: 1.0,
        Relation.SUPERSEDES: 0.9, Relation.CAUSED_BY: 1.0, Relation.INFORMED_BY: 0.9,
        Relation.EVIDENCE_FOR: 1.0, Relation.DISCUSSED_IN: 0.7, Relation.EXTRACTED_FROM: 0.7,
        Relation.NEXT: 0.9, Relation.MENTIONS: 0.7, Relation.SAME_SESSION: 0.5,
        Relation.SAME_SPEAKER: 0.3,
    })


#: Relevance calibration per embedder family: (coefficients, threshold) of the logistic model of
#: ``Hit.relevance``, fitted on the LoCoMo tuning conversations by benchmarks/bench_relevance.py
#: (results/relevance.json); an embedder of another family uses the sentence model's.
RELEVANCE_CALIBRATION = MappingProxyType({
    "minilm": ((-8.6545, 16.1034, -15.8183, 16.5518), 0.635),
    "hashing": ((-5.8905, 16.2684, -9.8606, 15.9867), 0.653),
})


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallConfig:
    """How :meth:`Engram.recall` finds and ranks memories (docs/design.md "Recall").

    Attributes
    ----------
    seed_k : int
        Vector seeds taken from the namespace's index (its seed_k nearest), whatever ``k`` the
        recall asks for: the first hits of ``recall(q, k=5)`` are those of ``recall(q, k=20)``.
        A recall that reaches fewer than ``k`` memories is filled with the next nearest, after
        every scored hit, with score 0.
    cosine_floor : float
        Seeds below this cosine are dropped.
    seed_contrast : float
        Seed activation a_i = (cos_i - b) / (cos_max - b) with b = seed_contrast * median seed
        cosine (seeds below b keep a tiny activation that preserves their order): 0 scales by
        the best seed only, 1 stretches the upper half of the seeds over [0, 1] (lateral
        inhibition, as in SYNAPSE), so a strong typed neighbour of the best match can outrank a
        weak seed. Embedder-independent: the best seed always starts at 1.
    gate : str
        Density gate mode: "auto" (spread when density >= ``density_threshold``, else 1 hop),
        "on" (always spread to ``max_depth``), "off" (1-hop expansion only).
    density_threshold : float
        Edges per node with at least one edge (default 3.0, as in SYNAPSE / Nous).
    max_depth : int
        Hops of spreading activation (default 2).
    decay : float
        Activation kept per hop, (0, 1] (default 0.5).
    fan_exp : float
        Fan effect exponent (Anderson 1974): outflow of node u is divided by deg(u)**fan_exp;
        0 turns it off.
    degree_cap : int
        Nodes with more edges than this (hubs) are not expanded.
    combine : str
        How converging paths combine: "max" (Nous' choice: cycles cannot push past 1) or "sum".
    sum_cap : float
        Cap on summed activation when ``combine="sum"``.
    relation_multipliers : mapping Relation -> float
        Activation multiplier per edge relation; ``contradicts`` never carries activation.
    w_salience, w_recency, w_confidence : float
        Shares of the final score given to current salience, recency and confidence; the rest
        (1 - their sum) is activation alone. score = act * (1 - sum(w) + w_s*s + w_r*r + w_c*c).
    recency_half_life_s : float
        Half-life of the recency factor r = 2**(-(now - created_at) / h), seconds.
    weak_evidence : float
        If the best seed cosine is below this, the result carries a ``weak_evidence`` gap.
        The right value depends on the embedder (hashed n-grams give lower cosines than MiniLM).
        Used only when the recall has no query text; with text the gap comes from
        ``relevance_threshold``.
    relevance_coef : tuple of 4 float, optional
        (intercept, cosine, BM25 share, term coverage): the logistic model of each hit's
        ``relevance`` (:func:`engramdb.recall.results.relevance`). None (the default) takes the
        calibration of the store's embedder from :data:`RELEVANCE_CALIBRATION`, fitted on the
        LoCoMo tuning conversations (answerable questions against
        benchmarks/data/locomo_unanswerable.jsonl; ``python benchmarks/bench_relevance.py``).
    relevance_threshold : float, optional
        With query text, a recall whose best hit's ``relevance`` is below this carries a
        ``weak_evidence`` gap; None takes the embedder's from :data:`RELEVANCE_CALIBRATION`.
    keyword_k : int
        Candidates taken from the namespace's BM25 keyword index (the keyword leg); used when
        the query has text and ``w_keyword > 0``.
    w_vector, w_keyword : float
        Fusion weights of the two seed legs: base = w_vector * v + w_keyword * b, with v the
        cosine rescaled by the vector leg's seeds (see ``seed_contrast``) and b the BM25 score
        over the query's best BM25 score, both in [0, 1]; base is divided by its maximum.
    sentence_weight : float
        How much a memory's best sentence key lifts its cosine (``StoreConfig.sentence_keys``):
        cos = whole + sentence_weight * max(0, best sentence - whole), for the memories the
        vector leg's search returns and those of the keyword leg, before fusion (default 0.5,
        the mean of the two when the sentence is nearer; 1 scores by the best sentence alone,
        MaxP; 0 reads no sentence key). The interpolation of a document's and its best
        passage's scores is Callan (1994), "Passage-level evidence in document retrieval",
        SIGIR; chosen on the LoCoMo tuning conversations.
    w_graph : float
        Weight of the graph leg: score = base + w_graph * inflow, where inflow is the strongest
        single pass a memory receives from another activated memory (ACT-R's base level plus
        spreading input; Anderson 1983). 0 turns graph expansion off.
    inflow_fan_exp : float
        Fan exponent of the lateral inflow (``fan_exp`` stays that of spreading). The default 0
        makes the pass along an edge the same in both directions, so with
        ``w_graph * decay * relation multiplier < 1`` a seed never falls behind a weaker seed
        through their shared edge: the best match of a query stays first among its neighbours.
    prf_terms, prf_docs, prf_weight : int, int, float
        Pseudo-relevance feedback of the keyword leg: BM25 runs again with the query plus the
        ``prf_terms`` best r x idf terms of its first ``prf_docs`` hits (r: how many of them hold
        the term; Robertson's offer weight), which together weigh ``prf_weight`` x the query's
        terms (RM3's interpolation; Rocchio 1971). ``prf_terms = 0`` is off. Counting a hit once
        per term and bounding the total keeps one long memory full of repeated terms (code, a
        long assistant reply) from pulling the query towards itself: on the long-chat benchmark
        (benchmarks/bench_long_chats.py) R@5 +1.0 and R@10 +0.9 on the tuning half, LoCoMo
        R@10 unchanged (73.5-73.6).
    w_time : float
        Time cues: when the query names a time ("in May 2023", "last week"; resolved against the
        namespace's newest event time, never after the recall's ``now``), memories whose event time lies in that window gain
        w_time * the best candidate score (in the window's core, the span the expression names;
        ``time_slack_weight`` of that in the slack around it). 0 turns it off.
    time_slack_weight : float
        Share of the time gain for a memory in a window's slack rather than its core: "yesterday"
        is widened by a day on each side (an event is often mentioned a day later), but the day
        it names weighs most, so "yesterday" and "today" rank differently. The default 0.25
        leaves the named day w_time x 0.75 of the best score ahead of its neighbours, enough
        to outweigh a typical keyword-score difference between two memories on the same topic
        (0.5 was not, on a small test store); on LoCoMo it changes R@10 by under 0.1 point
        (temporal R@20 -1.0 against weighing the slack fully). 1 weighs the slack as the core.
    time_question_words : int
        A question with at most this many content words besides its time expressions (and
        fillers such as "what did I do", "happened") is mostly a time question: the memories
        of its window join the seeds (``time_seed_k``), not only re-ranked after text search.
    time_seed_k : int
        At most this many window memories join the seeds of a time question (core first, then
        the newest); 0 turns window seeds off. Their base is 1 / (1 + content words), times
        ``time_slack_weight`` in the slack.
    w_slot : float
        Slot cues: a question that names a slot's attribute ("what is my job?" -> ``job``;
        ``slots.slot_cues``) and subject (``slots.subject_weights``) adds that slot's current
        memories to the seeds with w_slot x match (in [0, 1]) added to their base, before the
        bases are rescaled so the best is 1. The default 1.5 puts a fully named slot's memory
        above the best text match (base 1) even when it shares no word with the question,
        and a half-named one (match 0.5: 0.75) below it. 0 turns it off.
    w_speaker : float
        Source attribution (:mod:`engramdb.speakers`): when the question names exactly one
        speaker of the namespace's live memories ("Which cars does Dave like?"; "I" / "my" name
        the ``user``, "you" the ``assistant``), the memories that speaker said score
        (1 + w_speaker) x as much, before the top k are cut. Of the LoCoMo evidence for
        questions naming one speaker, 95-98 % is that speaker's own turns, while half of the
        first ten hits were the other speaker's turns addressing them. 0.2 was best on the
        tuning half averaged over both embedders (R@10 77.00 at 0.3 against 77.00 at 0.2, a
        tie: the smaller weight kept; ``tune_locomo_fusion.py --stage speaker``). 0 turns it
        off. Memories without a speaker (no ``"Name: "`` prefix, no role tag) are never
        boosted, so a store of plain notes ranks as before.
    question_weight : float
        A memory that only asks (:func:`engramdb.chatter.speech_act`: every sentence a question
        or filler, no "I" / "my": "How did the leg feel?") scores this times as much, after the
        time and speaker cues: a question shares the words of the question asked of recall but
        states nothing, and ranked above the answer it got. So does one that only greets or
        thanks ("Long time no talk!": "how long is my commute?" got it first by "long"; not
        tuned for it). Of LoCoMo's turns 1.8 % are such
        questions and 0.2 % of its evidence. Tuned on the tuning half (grid 1.0 / 0.8 / 0.6 /
        0.4 / 0.2, ``tune_locomo_fusion.py --stage question``): R@10 76.67 -> 77.24 hashing,
        77.37 -> 77.98 MiniLM at 0.6; 0.4 tied it on average (77.615 against 77.61), the
        milder kept. 1 turns it off.
    route : bool
        Multi-view recall: the intent router (:mod:`engramdb.recall.router`) reads the
        question's form and boosts the relation multipliers of its views (temporal, causal,
        entity) and widens enumerations.
    route_boost : float
        Multiplier of a routed view's relation multipliers, >= 1.
    route_fanout : float
        For enumerations: ``seed_k`` and ``keyword_k`` times this, ``fan_exp`` divided by it.
    connector_hits : bool
        Whether the connector nodes of a conversation (memories tagged ``session`` or
        ``entity``: "Session 3 of Ana and Bo, 8 May 2023", "lake tahoe") may be hits. Off by
        default: they route activation between the turns but answer nothing, and a question
        worded like a session label took hit slots from the turns (LoCoMo R@10 +0.2 hashing,
        +0.25 MiniLM with them out). A ``tags=`` filter naming one of the two tags shows them.
    parallel_legs : bool
        Run a recall's keyword leg on a worker thread while hnswlib searches
        (:mod:`engramdb.recall.legs`; both release the GIL): the same answer, sooner on two or
        more cores. Off, or on a single core, the legs run one after the other.
    """

    seed_k: int = 10
    cosine_floor: float = 0.05
    seed_contrast: float = 1.0
    gate: str = "auto"
    density_threshold: float = 3.0
    max_depth: int = 2
    decay: float = 0.5
    fan_exp: float = 0.5
    degree_cap: int = 256
    combine: str = "max"
    sum_cap: float = 1.0
    relation_multipliers: Mapping[Relation, float] = field(default_factory=default_relation_multipliers)
    w_salience: float = 0.1
    w_recency: float = 0.0
    w_confidence: float = 0.05
    recency_half_life_s: float = 30 * _DAY
    weak_evidence: float = 0.25
    relevance_coef: tuple[float, float, float, float] | None = None
    relevance_threshold: float | None = None
    keyword_k: int = 50
    w_vector: float = 0.2       # fusion weights tuned on half of LoCoMo
    w_keyword: float = 0.8      # (benchmarks/tune_locomo_fusion.py, results/locomo_tuning.json)
    w_graph: float = 2.0
    sentence_weight: float = 0.5
    inflow_fan_exp: float = 0.0
    prf_terms: int = 8
    prf_docs: int = 8
    prf_weight: float = 0.2
    w_time: float = 0.5
    time_slack_weight: float = 0.25
    time_question_words: int = 1
    time_seed_k: int = 50
    w_slot: float = 1.5
    w_speaker: float = 0.2
    question_weight: float = 0.6
    route: bool = False
    route_boost: float = 1.5
    route_fanout: float = 2.0
    connector_hits: bool = False
    parallel_legs: bool = True
    #: ``relation_multipliers`` as float32 indexed by ``Relation.code`` (what the kernel takes).
    rel_mult: np.ndarray = field(init=False, repr=False, compare=False)

    BOUNDS: ClassVar = {
        "seed_k": Interval(1, 10_000), "cosine_floor": Interval(-1.0, 1.0),
        "seed_contrast": Interval(0.0, 1.0),
        "gate": Choice(("auto", "on", "off")), "density_threshold": Interval(0.0, None),
        "max_depth": Interval(0, 16), "decay": Interval(0.0, 1.0, "right"),
        "fan_exp": Interval(0.0, 4.0), "degree_cap": Interval(1, None),
        "combine": Choice(("max", "sum")), "sum_cap": Interval(0.0, None, "neither"),
        "w_salience": Interval(0.0, 1.0), "w_recency": Interval(0.0, 1.0),
        "w_confidence": Interval(0.0, 1.0), "recency_half_life_s": Interval(0.0, None, "neither"),
        "weak_evidence": Interval(-1.0, 1.0),
        "keyword_k": Interval(1, 10_000),
        "question_weight": Interval(0.0, 1.0), "w_vector": Interval(0.0, 1.0), "w_keyword": Interval(0.0, 1.0), "w_graph": Interval(0.0, 4.0),
        "sentence_weight": Interval(0.0, 1.0),
        "w_time": Interval(0.0, 4.0), "inflow_fan_exp": Interval(0.0, 4.0),
        "prf_terms": Interval(0, 100), "prf_docs": Interval(1, 100), "prf_weight": Interval(0.0, 1.0),
        "time_slack_weight": Interval(0.0, 1.0), "time_question_words": Interval(0, 100),
        "time_seed_k": Interval(0, 10_000), "w_slot": Interval(0.0, 4.0), "w_speaker": Interval(0.0, 4.0),
        "route": Choice((True, False)), "route_boost": Interval(1.0, 10.0),
        "connector_hits": Choice((True, False)), "parallel_legs": Choice((True, False)),
        "route_fanout": Interval(1.0, 10.0),
    }

    def __post_init__(self) -> None:
        check_bounds(self)
        if self.relevance_threshold is not None and not Interval(0.0, 1.0).contains(self.relevance_threshold):
            raise ConfigError(f"RecallConfig.relevance_threshold = {self.relevance_threshold!r} is outside "
                              "[0.0, 1.0]; pass a value in [0.0, 1.0] or None")
        if self.relevance_coef is not None and (len(self.relevance_coef) != 4 or not all(
                Interval(-1e6, 1e6).contains(float(c)) for c in self.relevance_coef)):
            raise ConfigError(f"RecallConfig.relevance_coef = {self.relevance_coef!r}: expected 4 finite numbers "
                              "(intercept, cosine, BM25 share, coverage) or None")
        if self.w_salience + self.w_recency + self.w_confidence > 1.0:
            raise ConfigError("RecallConfig: w_salience + w_recency + w_confidence must be <= 1")
        by_rel = {}
        for rel, mult in self.relation_multipliers.items():
            if not Interval(0.0, 10.0).contains(mult):
                raise ConfigError(f"RecallConfig.relation_multipliers[{rel}] = {mult!r} is outside [0, 10]")
            by_rel[Relation.parse(rel)] = mult
        object.__setattr__(self, "rel_mult", np.array([by_rel.get(r, 0.0) for r in Relation], np.float32))


@dataclass(frozen=True, slots=True, kw_only=True)
class DecayConfig:
    """Salience dynamics: half-life per kind, initial salience, reinforcement on recall.

    Attributes
    ----------
    half_life_s : mapping MemoryKind -> float
        Half-life of salience per kind, seconds (Settles & Meeder 2016 half-life form).
    initial_salience : float
        s(t0) of a new memory, in [0, 1].
    reinforce_rate : float
        On recall, s <- s + rate * (1 - s).
    archive_floor : float
        Salience below which a rescoring pass may archive a memory (kept for compatibility;
        the rescoring job reads the per-kind floors of :class:`ForgettingConfig`).
    reinforce_on_recall : bool
        What ``recall(reinforce=None)`` does. Off by default: a reinforcing recall is a durable
        write (one LMDB commit, an fsync with ``StoreConfig.sync``) on the hot path.
    link_boost : float
        An explicit link from a new memory to an old one (``add(links=...)``, ``link``) raises
        the salience of both ends: s <- s + link_boost * (1 - s). 0 turns it off. Links of
        structure or provenance (next, same_session, same_speaker, discussed_in,
        extracted_from, mentions) and auto-links do not boost.
    hold_decisions_until_review : bool
        A new ``decision`` memory keeps its salience (no decay) until ``Engram.review`` marks
        its outcome reviewed; stored as ``salience_at = +inf`` (the decay kernels count a t0
        after now as age 0).
    """

    half_life_s: Mapping[MemoryKind, float] = field(default_factory=default_half_lives)
    initial_salience: float = 0.5
    reinforce_rate: float = 0.1
    archive_floor: float = 0.05
    reinforce_on_recall: bool = False
    link_boost: float = 0.05
    hold_decisions_until_review: bool = True
    #: ``half_life_s`` as float32 indexed by ``MemoryKind.code`` (what the decay kernel takes).
    half_life_by_code: np.ndarray = field(init=False, repr=False, compare=False)

    BOUNDS: ClassVar = {
        "initial_salience": Interval(0.0, 1.0), "reinforce_rate": Interval(0.0, 1.0),
        "archive_floor": Interval(0.0, 1.0, "left"),
        "reinforce_on_recall": Choice((True, False)), "link_boost": Interval(0.0, 1.0),
        "hold_decisions_until_review": Choice((True, False)),
    }

    def __post_init__(self) -> None:
        check_bounds(self)
        if not isinstance(self.half_life_s, Mapping):
            raise ConfigError(f"DecayConfig.half_life_s must map each memory kind to seconds, "
                              f"got {type(self.half_life_s).__name__}")
        for kind in MemoryKind:
            h = self.half_life_s.get(kind)
            if (h is None or not Interval(0.0, None, "neither").contains(h)
                    or not np.isfinite(np.float32(min(float(h), 3.5e38)))):   # kept as float32
                raise ConfigError(f"DecayConfig.half_life_s[{kind.value}] = {h!r} must be a number > 0 (seconds) "
                                  f"that float32 holds (below {float(np.finfo(np.float32).max):.3g})")
        object.__setattr__(self, "half_life_by_code",
                           np.array([self.half_life_s[k] for k in MemoryKind], np.float32))


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexConfig:
    """hnswlib parameters (Malkov & Yashunin 2018): ``m`` is *M*, ``ef_construction`` is
    *efConstruction*, ``ef_search`` is *ef* at query time (>= 100 for good recall).

    ``ef_construction`` defaults to 100 (200 before): at 100,000 clustered vectors of dim 384
    the insertion, the larger part of ``add_batch``, ran 1.4-2.3x faster, and the index's
    recall@10 at ef 100 against an exact scan moved by -0.1 points (near-stored queries) and
    0.0 (fresh queries); M 12 lost 0.5 points and is not the default
    (``python benchmarks/bench_index_params.py``, results/index_params.json). An index keeps
    the parameters it was built with (its sidecar), so existing stores are unchanged.

    ``background_load_bytes``: a saved namespace index larger than this (bytes: hnswlib file
    plus vector matrix) finishes loading in a background thread after ``open`` returns, and
    recall meanwhile scans the vector matrix exactly (``engramdb.index.hnsw``); 0 loads every
    index in the background, a huge value none."""

    m: int = 16
    ef_construction: int = 100
    ef_search: int = 100
    initial_capacity: int = 1024
    background_load_bytes: int = 16 << 20

    BOUNDS: ClassVar = {
        "m": Interval(2, 128), "ef_construction": Interval(8, 10_000), "ef_search": Interval(1, 10_000),
        "initial_capacity": Interval(1, None), "background_load_bytes": Interval(0, None),
    }

    def __post_init__(self) -> None:
        check_bounds(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkConfig:
    """Auto-linking of new memories (A-MEM, arXiv:2502.12110).

    Attributes
    ----------
    auto_link : bool
        Link each new memory to its nearest neighbours above ``cosine_threshold``.
    cosine_threshold : float
        Default 0.80 (docs/design.md); hashed n-gram embeddings need a lower value.
    max_links : int
        At most this many auto-links per new memory.
    detect_conflicts : bool
        Compare each new memory that fills no slot with its near neighbours (cosine >=
        ``conflict_cosine``): one that negates or changes a number of what an earlier one says
        about the same subject (``facts.conflict``) supersedes it when its valid time is later,
        else the two are linked ``contradicts`` (recall warns).
    conflict_cosine : float
        Neighbours at least this similar are checked by the (strict) rules of ``facts.conflict``.
        Default 0.0: every one of a new memory's nearest neighbours (the auto-link search's
        k) is, whatever its cosine: a value said in other words lowers the cosine of two
        statements that differ in nothing else ("I live in Boston." / "I live in Seattle.":
        0.39 with hashed n-grams, and the change went unseen), and the rules alone tell a
        change (on every labelled pair, LoCoMo and the long-chat benchmarks the links and
        rankings are the same as at the former 0.5).
    duplicate_cosine : float
        Neighbours at least this similar are near-copies of the new memory and get no
        auto-link (the same content: a link would count its evidence twice in recall).
    conflict_max_words : int
        Conflict detection compares statements only: texts of at most this many words (its
        rules read one claim; a chat reply holds many). 0 turns it off for every text.
    contiguity_words : float
        A ``next`` link given without a weight weighs exp(-d / contiguity_words), d the mean
        length of its two memories in words (temporal context drift; :mod:`engramdb.contiguity`).
        0 gives such links weight 1.
    search_ef : int
        hnswlib's *ef* (the beam) of the auto-link search, which asks for the k = 2
        max(max_links, 5) + 1 = 11 nearest neighbours (an ef below k searches at k). Default 22:
        near neighbours above ``cosine_threshold`` are easy to find; on 100,000 LoCoMo-grown
        memories (hashing embedder) ef 22 finds 99.9 % of the exact search's auto-links and ef
        44 99.95 %, for 1.75x the search time (``benchmarks/bench_autolink_beam.py``).
    """

    auto_link: bool = True
    cosine_threshold: float = 0.80
    max_links: int = 5
    detect_conflicts: bool = True
    conflict_cosine: float = 0.0
    duplicate_cosine: float = 0.98
    conflict_max_words: int = 50
    contiguity_words: float = 250.0
    search_ef: int = 22

    BOUNDS: ClassVar = {"cosine_threshold": Interval(-1.0, 1.0), "max_links": Interval(0, 1000),
                        "search_ef": Interval(1, 10_000),
                        "auto_link": Choice((True, False)), "detect_conflicts": Choice((True, False)),
                        "conflict_cosine": Interval(-1.0, 1.0), "contiguity_words": Interval(0.0, 1e9),
                        "conflict_max_words": Interval(0, 1_000_000), "duplicate_cosine": Interval(-1.0, 1.01)}

    def __post_init__(self) -> None:
        check_bounds(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreConfig:
    """LMDB environment settings.

    Attributes
    ----------
    map_size_bytes : int
        Initial size of the LMDB map (virtual address space, not disk: files grow as needed).
        Default 64 GiB. A full map doubles transparently (up to 1 TiB), then raises
        :class:`StoreFullError`.
    sync : bool
        fsync on commit. Turning it off risks losing the last commits on power loss (not on a
        process crash).
    max_text_chars : int
        Longest accepted text; longer raises :class:`OversizeError`.
    chunk_chars : int
        ``add`` / ``add_batch`` split a longer text into overlapping pieces of at most this
        many characters, one memory each, linked to the first by ``extracted_from`` and to
        each other by ``next`` (see :mod:`engramdb.batch_plan`). Cuts fall at sentence
        boundaries, with code blocks and list items whole where they fit
        (:mod:`engramdb.pieces`).
    chunk_overlap : int
        Sentences (or list items, code blocks) each piece repeats from the piece before, so a
        fact on a boundary is whole in one piece; default 2, 0 for none. At most a third of a
        piece is overlap. Each piece records the characters it repeats
        (:attr:`engramdb.Memory.overlap_chars`).
    max_pieces : int
        Most pieces one text is stored as (default 64): past it the text is cut again with
        larger pieces, so one 4 MB text cannot become a thousand memories. Also the default
        cap on the blocks of one conversation message (:meth:`Engram.add_conversation`).
    snapshot_every : int
        Fold the edge delta into the persisted CSR snapshot after this many new edges.
    sentence_keys : int
        Most sentence keys of one memory (default 16; 0 or 1 stores none). A memory the engine embeds
        whose text holds two or more sentences of three words or more is also embedded sentence
        by sentence (runs of sentences past this many), and recall scores it by its best
        sentence as well as by the whole text (``RecallConfig.sentence_weight``): a fact said in
        passing is near its question as a sentence, not as a message about something else
        (:func:`engramdb.sentences.key_sentences`). A memory given its own vector
        (``embedding=``) has none: the embedder's space may not be the caller's. Costs an
        embedding per key at write time and ``2 * dim`` bytes per key in the store (float16).
    """

    map_size_bytes: int = 64 << 30
    sync: bool = True
    max_text_chars: int = 4_000_000
    snapshot_every: int = 50_000
    chunk_chars: int = 4_000
    chunk_overlap: int = 2
    max_pieces: int = 64
    sentence_keys: int = 16

    BOUNDS: ClassVar = {
        "map_size_bytes": Interval(1 << 20, None), "max_text_chars": Interval(1, None),
        "snapshot_every": Interval(1, None), "sync": Choice((True, False)),
        "chunk_chars": Interval(64, None), "chunk_overlap": Interval(0, 100),
        "max_pieces": Interval(1, 1_000_000), "sentence_keys": Interval(0, 1_000),
    }

    def __post_init__(self) -> None:
        check_bounds(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class EngramConfig:
    """All settings of an engine; each group is its own frozen dataclass."""

    recall: RecallConfig = field(default_factory=RecallConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
    index: IndexConfig = field(default_factory=IndexConfig)
    link: LinkConfig = field(default_factory=LinkConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    slots: "SlotConfig" = field(default_factory=lambda: SlotConfig(), metadata={"type": "SlotConfig"})
    admission: "AdmissionConfig" = field(default_factory=lambda: AdmissionConfig())
    forgetting: "ForgettingConfig" = field(default_factory=lambda: ForgettingConfig())

    BOUNDS: ClassVar = {}

    def __post_init__(self) -> None:
        for f in fields(self):
            expected = f.default_factory  # type: ignore[misc]
            expected = globals()[f.metadata["type"]] if "type" in f.metadata else expected  # defined later
            if f.name in _LATE_GROUPS:
                expected = _LATE_GROUPS[f.name]
            value = getattr(self, f.name)
            if not isinstance(value, expected):  # type: ignore[arg-type]
                raise ConfigError(f"EngramConfig.{f.name} must be a {expected.__name__}, got {type(value).__name__}")


def default_single_valued() -> frozenset[str]:
    """Attributes that hold one value at a time (a new value supersedes the old one)."""
    return frozenset({"home_city", "lives_in", "employer", "job_title", "price", "status", "age",
                      "email", "phone", "address", "name", "owner", "deadline", "version"})


def default_multi_valued() -> frozenset[str]:
    """Attributes whose values accumulate (a new value never retires an old one)."""
    return frozenset({"likes", "dislikes", "visited", "knows", "speaks", "hobby", "skill", "allergy",
                      "tag", "friend", "child", "pet"})


@dataclass(frozen=True, slots=True, kw_only=True)
class SlotConfig:
    """Automatic supersession by slot: (subject, attribute) filled by a memory's value.

    Attributes
    ----------
    single_valued : frozenset of str
        Attributes holding one current value; a new memory with a different value in the same
        (subject, attribute) slot supersedes the current one.
    multi_valued : frozenset of str
        Attributes whose values accumulate (never superseded automatically).
    default_single : bool
        Cardinality of an attribute in neither set (True: single-valued, the usual reason to
        name a slot). A call can override it per memory with ``single_valued=``.
    extractor : callable or None
        ``extractor(text) -> (subject, attribute, value) | None``, used for memories added
        without a slot; ``None`` (default) extracts nothing. ``engramdb.slots.rule_based_extractor``
        is a small pattern-based one ("X's Y is Z", "X lives in Z", and "I work at Z" / "I live
        in Z" as the fact of the speaker a chat message opens with, ``"Caroline: ..."``); an
        LLM-backed callable fits the same interface (it sees the same ``"<speaker>: "`` text).
    """

    single_valued: frozenset = field(default_factory=default_single_valued)
    multi_valued: frozenset = field(default_factory=default_multi_valued)
    default_single: bool = True
    extractor: object = None

    BOUNDS: ClassVar = {"default_single": Choice((True, False))}

    def __post_init__(self) -> None:
        from .slots import normalise_attribute

        check_bounds(self)
        for name in ("single_valued", "multi_valued"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not all(isinstance(a, str) and a for a in value):
                raise ConfigError(f"SlotConfig.{name} must be a set of non-empty attribute names, got {value!r}")
            object.__setattr__(self, name, frozenset(normalise_attribute(a) for a in value))
        both = self.single_valued & self.multi_valued
        if both:
            raise ConfigError(f"SlotConfig: attribute(s) {sorted(both)} are both single- and multi-valued")
        if self.extractor is not None and not callable(self.extractor):
            raise ConfigError(f"SlotConfig.extractor must be callable or None, got {self.extractor!r}")

    def is_single(self, attribute: str) -> bool:
        """Whether ``attribute`` (normalised, see ``slots.normalise_attribute``) is single-valued."""
        if attribute in self.single_valued:
            return True
        if attribute in self.multi_valued:
            return False
        return self.default_single
def default_type_priors() -> Mapping[MemoryKind, float]:
    """A-MAC content-type prior per memory kind, in [0, 1].

    A-MAC's reference system scores preferences 0.9, facts 0.7, plans 0.5 and temporary states
    0.2 (arXiv:2603.04549, type prior T). Our kinds map onto those classes: ``semantic`` (facts
    and preferences) 0.8, ``decision`` 0.8, ``procedural`` 0.7, ``episodic`` 0.5 and
    ``working`` (temporary state) 0.2. Admission caps the prior at 0.2 for phatic text
    (``kinds.is_phatic``) whatever its kind; with ``AdmissionConfig.infer_kind``
    also for chatter that ``infer_kind`` finds, and not for a text in which it finds a fact.
    """
    return MappingProxyType({
        MemoryKind.WORKING: 0.2, MemoryKind.EPISODIC: 0.5, MemoryKind.SEMANTIC: 0.8,
        MemoryKind.PROCEDURAL: 0.7, MemoryKind.DECISION: 0.8,
    })


def default_archive_floors() -> Mapping[MemoryKind, float]:
    """Salience below which the rescoring job archives a memory, per kind (0 never archives)."""
    return MappingProxyType({
        MemoryKind.WORKING: 0.05, MemoryKind.EPISODIC: 0.05, MemoryKind.SEMANTIC: 0.02,
        MemoryKind.PROCEDURAL: 0.01, MemoryKind.DECISION: 0.01,
    })


def default_prune_floors() -> Mapping[MemoryKind, float]:
    """Salience below which an *archived* memory is erased, per kind; 0 never prunes.

    Pruning is a hard erase, so it is opt-in: every default is 0 (archive, never erase). A
    policy that erases stale episodes sets e.g. ``{..., MemoryKind.EPISODIC: 0.001}`` (about
    nine half-lives after the default initial salience 0.5); ``working`` memories are promoted
    to ``episodic`` rather than pruned.
    """
    return MappingProxyType({
        MemoryKind.WORKING: 0.0, MemoryKind.EPISODIC: 0.0, MemoryKind.SEMANTIC: 0.0,
        MemoryKind.PROCEDURAL: 0.0, MemoryKind.DECISION: 0.0,
    })


def _kind_table(name: str, owner: str, mapping: Mapping, bound: Interval) -> np.ndarray:
    """``mapping`` (kind -> value) as float32 indexed by kind code; raises ConfigError."""
    out = np.zeros(len(MemoryKind), np.float32)
    for kind in MemoryKind:
        v = mapping.get(kind, mapping.get(kind.value)) if hasattr(mapping, "get") else None
        if v is None or not bound.contains(v):
            raise ConfigError(f"{owner}.{name}[{kind.value}] = {v!r} is outside {bound}; "
                              f"give every kind a value in {bound}")
        out[kind.code] = v
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class AdmissionConfig:
    """A-MAC admission control (arXiv:2603.04549): which candidates ``Engram.admit_batch`` stores.

    score = w_utility U + w_confidence C + w_novelty N + w_recency R + w_type_prior T, admitted
    when score >= ``threshold``. The weights follow the factor order of A-MAC's reference
    scorer, ``[w_U, w_C, w_N, w_R, w_T]``; the defaults 0.25 / 0.15 / 0.20 / 0.10 / 0.30 with
    threshold 0.55 give the type prior the largest share, as the paper's ablation (type prior
    the most influential factor) and its released learned weights (0.1 / 0.1 / 0.1 / 0.1 / 0.6,
    threshold 0.55) do.

    Attributes
    ----------
    w_utility, w_confidence, w_novelty, w_recency, w_type_prior : float
        Factor weights, each in [0, 1], summing to a positive number.
    threshold : float
        Minimum score to admit, in [0, 1].
    duplicate_cosine : float
        A candidate whose cosine to a stored active memory (or an earlier candidate of the
        batch) is at least this is a near-duplicate: it reinforces that memory instead of adding
        one, unless it changes a number, date, name or negation (``dynamics.admission.fact_change``).
        The right value depends on the embedder (hashed n-grams: ~0.9).
    novelty_ef : int
        hnswlib's ef (search breadth) of the novelty search, which finds each candidate's 8
        nearest stored memories (at least 8 is used). Novelty needs the nearest one only, and a
        near-duplicate is the easiest neighbour for HNSW to find: at 100k LoCoMo memories,
        ef 50 returns the exact maximum cosine for 98.7 % of candidates (p99 error 0.002,
        largest 0.037) at 2.8x the candidates per second of ef 100 (``python
        benchmarks/bench_admission.py`` reports both rates and the accuracy against an exact scan).
    recency_half_life_s : float
        Half-life of the recency factor R = 2**(-(now - created_at) / h), seconds.
    type_prior : mapping MemoryKind -> float
        Content-type prior T per kind, in [0, 1] (:func:`default_type_priors`).
    shadow : bool
        Shadow mode: score, log and report every decision, but store every candidate.
    infer_kind : bool
        A candidate that gives no ``kind`` gets the kind its text states
        (``kinds.infer_kind``: a fact or preference is ``semantic``, an event
        ``episodic``); its type prior follows. Off: it is ``episodic``, as ``add`` defaults.
    reject_phatic : bool
        A candidate that gives no ``kind`` and is chatter (``infer_kind`` says ``phatic``:
        greetings, thanks, laughter, acknowledgements, weather small talk) is rejected whatever
        its score. A caller who gives a kind forces the ordinary score to decide.
    protect : bool
        Tag a stored candidate ``"protected"`` when it states an identity, health or family fact
        (``kinds.protected_category``); the rescoring job never archives or prunes
        protected memories (``ForgettingConfig.keep_protected``).
    """

    w_utility: float = 0.25
    w_confidence: float = 0.15
    w_novelty: float = 0.20
    w_recency: float = 0.10
    w_type_prior: float = 0.30
    threshold: float = 0.55
    duplicate_cosine: float = 0.92
    novelty_ef: int = 50
    recency_half_life_s: float = 7 * _DAY
    type_prior: Mapping[MemoryKind, float] = field(default_factory=default_type_priors)
    shadow: bool = False
    infer_kind: bool = True
    reject_phatic: bool = True
    protect: bool = True
    #: the five weights as float32 in A-MAC's factor order (what the admission kernel takes).
    weights: np.ndarray = field(init=False, repr=False, compare=False)
    #: ``type_prior`` as float32 indexed by ``MemoryKind.code``.
    type_prior_by_code: np.ndarray = field(init=False, repr=False, compare=False)

    BOUNDS: ClassVar = {
        "w_utility": Interval(0.0, 1.0), "w_confidence": Interval(0.0, 1.0),
        "w_novelty": Interval(0.0, 1.0), "w_recency": Interval(0.0, 1.0),
        "w_type_prior": Interval(0.0, 1.0), "threshold": Interval(0.0, 1.0),
        "duplicate_cosine": Interval(-1.0, 1.0), "recency_half_life_s": Interval(0.0, None, "neither"),
        "novelty_ef": Interval(1, 100_000),
        "shadow": Choice((True, False)), "infer_kind": Choice((True, False)),
        "reject_phatic": Choice((True, False)), "protect": Choice((True, False)),
    }

    def __post_init__(self) -> None:
        check_bounds(self)
        w = np.array([self.w_utility, self.w_confidence, self.w_novelty, self.w_recency,
                      self.w_type_prior], np.float32)
        if float(w.sum()) <= 0.0:
            raise ConfigError("AdmissionConfig: the five weights sum to 0; give at least one a weight > 0")
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "type_prior_by_code",
                           _kind_table("type_prior", "AdmissionConfig", self.type_prior, Interval(0.0, 1.0)))


@dataclass(frozen=True, slots=True, kw_only=True)
class ForgettingConfig:
    """Forgetting and tiers: what the rescoring job archives, prunes and promotes.

    Attributes
    ----------
    archive_floor : mapping MemoryKind -> float
        An active memory whose current salience is below its kind's floor is archived (kept,
        hidden from default recall, still readable by id). 0 never archives.
    prune_floor : mapping MemoryKind -> float
        An archived memory below its kind's prune floor is erased (record, vector, edges). 0
        never prunes; by default nothing is pruned (:func:`default_prune_floors`).
        Must not exceed the kind's archive floor.
    working_capacity : int
        Active ``working`` memories kept per namespace (the hot tier). Above it, the least
        salient (then oldest) are promoted to ``episodic``; nothing is evicted.
    promote_salience : float
        Salience a promoted working memory gets at least: s <- max(s(now), promote_salience).
    keep_protected : bool
        The rescoring job never archives or prunes a memory tagged ``"protected"``
        (``dynamics.forgetting.PROTECTED_TAG``: identity, health and family facts, tagged by
        admission or by the caller); its salience still decays. ``forget`` still archives and
        erases it on request. False: protected memories follow the floors like any other.
    keep_current_slots : bool
        The rescoring job never archives the current value of a slot (an active memory filling
        a subject's attribute: what ``current`` and ``profile`` answer): nothing superseded it,
        so it is still what the store knows of that subject, however long ago it was said ("I
        work as a nurse" must not leave the profile after a few quiet months). Nor a change of a
        value that stays: the later of a ``contradicts`` pair whose earlier memory stays active
        (archiving "Dr. Lee moved our check-ins to Fridays" alone left the protected "Thursdays
        at 3pm" in charge, unwarned). Its salience still decays. False: slot values and changes
        follow the floors like any other memory.
    """

    archive_floor: Mapping[MemoryKind, float] = field(default_factory=default_archive_floors)
    prune_floor: Mapping[MemoryKind, float] = field(default_factory=default_prune_floors)
    working_capacity: int = 256
    promote_salience: float = 0.25
    keep_protected: bool = True
    keep_current_slots: bool = True
    #: floors as float32 indexed by ``MemoryKind.code``.
    archive_by_code: np.ndarray = field(init=False, repr=False, compare=False)
    prune_by_code: np.ndarray = field(init=False, repr=False, compare=False)

    BOUNDS: ClassVar = {"working_capacity": Interval(1, None), "promote_salience": Interval(0.0, 1.0),
                        "keep_protected": Choice((True, False)), "keep_current_slots": Choice((True, False))}

    def __post_init__(self) -> None:
        check_bounds(self)
        a = _kind_table("archive_floor", "ForgettingConfig", self.archive_floor, Interval(0.0, 1.0))
        p = _kind_table("prune_floor", "ForgettingConfig", self.prune_floor, Interval(0.0, 1.0))
        for kind in MemoryKind:
            if p[kind.code] > a[kind.code]:
                raise ConfigError(f"ForgettingConfig.prune_floor[{kind.value}] = {p[kind.code]:g} exceeds "
                                  f"archive_floor[{kind.value}] = {a[kind.code]:g}; only archived memories are pruned")
        object.__setattr__(self, "archive_by_code", a)
        object.__setattr__(self, "prune_by_code", p)


_LATE_GROUPS = {"admission": AdmissionConfig, "forgetting": ForgettingConfig}


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsolidationConfig:
    """Consolidation ("sleep", :meth:`Engram.consolidate`): merges, session summaries, promoted facts.

    Attributes
    ----------
    duplicate_cosine : float
        Two active non-episodic memories (facts, procedures, promoted facts) at or above this
        cosine are near-duplicates: the best-worded one is kept, the others are superseded by it.
        Episodes are never merged: two turns worded alike are still two events.
    summary_age_s : float
        A session whose newest turn is older than ``now - summary_age_s`` (seconds) is old and
        gets a summary.
    summary_sentences : int
        At most this many sentences per summary (fewer for short sessions: one per
        ``sentences_per_summary_line`` sentences, at least 2, or the session's one sentence;
        a summary that would be a copy of one turn is not stored).
    sentences_per_summary_line : int
    mmr_lambda : float
        MMR trade-off (Carbonell & Goldstein 1998): lambda x centrality - (1 - lambda) x
        redundancy with the sentences already picked; 1 picks by centrality alone.
    summary_min_words : int
        Sentences with fewer content words (stop words and fillers left out) are not summary
        candidates: greetings and thanks are central in a chat but say nothing.
    summary_specific_weight : float
        Added to a sentence's centrality in the MMR pick, times how much it names (numbers,
        dates, names past its first word; two or more count 1): a session's "We adopted a beagle
        named Pixel" over its typical "Chew toys help a lot". 0 picks by centrality alone.
    fact_cosine : float
        Turns of different sessions at or above this cosine, sharing ``fact_shared_words``
        content words, restate one fact.
    fact_shared_words : int
    fact_min_sessions : int
        A restated fact is promoted when its turns span at least this many sessions.
    fact_neighbours : int
        k of the k-NN search for restatements of each turn.
    merge, summaries, facts : bool
        Run that step (all on by default).
    summary_links : str
        "all": a summary links ``extracted_from`` to every turn of its session; "picked": to the
        turns its sentences come from (and to the session node, which its turns are
        ``discussed_in``), so it spreads to the session's gist rather than its small talk.
    """

    duplicate_cosine: float = 0.95
    summary_age_s: float = 6 * 3600.0
    summary_sentences: int = 5
    sentences_per_summary_line: int = 4
    mmr_lambda: float = 0.7
    summary_min_words: int = 4
    summary_specific_weight: float = 0.1
    fact_cosine: float = 0.55
    fact_shared_words: int = 3
    fact_min_sessions: int = 2
    fact_neighbours: int = 8
    merge: bool = True
    summaries: bool = True
    facts: bool = True
    summary_links: str = "all"

    BOUNDS: ClassVar = {
        "duplicate_cosine": Interval(0.0, 1.0, "right"), "summary_age_s": Interval(0.0, None),
        "summary_sentences": Interval(1, 100), "sentences_per_summary_line": Interval(1, 1000),
        "mmr_lambda": Interval(0.0, 1.0), "fact_cosine": Interval(0.0, 1.0, "right"),
        "fact_min_sessions": Interval(2, 1000), "fact_neighbours": Interval(1, 1000),
        "summary_min_words": Interval(0, 1000), "summary_specific_weight": Interval(0.0, 10.0),
        "fact_shared_words": Interval(0, 1000),
        "merge": Choice((True, False)), "summaries": Choice((True, False)), "facts": Choice((True, False)),
        "summary_links": Choice(("all", "picked")),
    }

    def __post_init__(self) -> None:
        check_bounds(self)


_CONFIG_EXAMPLES = {"EngramConfig": "EngramConfig(recall=RecallConfig(seed_k=20))",
                    "RecallConfig": "RecallConfig(seed_k=20)"}


def check_config(value: object, cls: type, *, field: str = "config") -> object:
    """``value`` when it is a ``cls`` instance (or None, for the default); else ConfigError.

    Settings are frozen dataclasses, never dicts: a dict (or anything else) passed where a
    config is expected is refused at the call, with what arrived and how to build the right one,
    instead of failing later on a missing attribute.

    Parameters
    ----------
    value : object
        What the caller passed.
    cls : type
        The config dataclass expected (``EngramConfig``, ``RecallConfig``, ...).
    field : str
        The parameter's name, for the message.

    Returns
    -------
    object
        ``value`` unchanged (None stays None: the caller's default applies).

    Raises
    ------
    ConfigError
        ``value`` is neither None nor a ``cls``.
    """
    if value is None or isinstance(value, cls):
        return value
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    example = _CONFIG_EXAMPLES.get(cls.__name__, f"{cls.__name__}(name=value, ...)")
    hint = (f"a {type(value).__name__} is not a config; build one with its keywords, e.g. engramdb.config.{example}"
            if isinstance(value, Mapping) else f"pass one, e.g. engramdb.config.{example}")
    article = "an" if cls.__name__[0] in "AEIOU" else "a"
    raise ConfigError(f"{field}: expected {article} {cls.__name__} or None, got {type(value).__name__} {shown}; {hint}")
