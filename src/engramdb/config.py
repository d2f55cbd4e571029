"""Frozen, keyword-only configuration dataclasses with their bounds as data.

``EngramConfig`` aggregates the groups; make variants with :func:`dataclasses.replace`.
Every out-of-bounds value raises :class:`engramdb.errors.ConfigError` at construction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np
from types import MappingProxyType
from typing import ClassVar, Mapping

from .errors import ConfigError
from .types import MemoryKind, Relation

__all__ = [
    "Interval", "Choice", "RecallConfig", "DecayConfig", "IndexConfig", "StoreConfig", "LinkConfig",
    "EngramConfig", "default_half_lives", "default_relation_multipliers",
]

_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class Interval:
    """Numeric bound ``low (<|<=) value (<|<=) high``; ``closed`` is "both", "left", "right" or "neither"."""

    low: float | None
    high: float | None
    closed: str = "both"

    def contains(self, x: float) -> bool:
        if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x):
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
    """Raise :class:`ConfigError` naming the first field of ``obj`` outside its ``BOUNDS``."""
    for name, bound in type(obj).BOUNDS.items():
        value = getattr(obj, name)
        if not bound.contains(value):
            raise ConfigError(
                f"{type(obj).__name__}.{name} = {value!r} is outside {bound}; "
                f"pass a value in {bound}"
            )


def default_half_lives() -> Mapping[MemoryKind, float]:
    """Default salience half-life per memory kind, seconds (DESIGN.md "Memory model")."""
    return MappingProxyType({
        MemoryKind.WORKING: 30 * 60.0,
        MemoryKind.EPISODIC: 14 * _DAY,
        MemoryKind.SEMANTIC: 180 * _DAY,
        MemoryKind.PROCEDURAL: 3650 * _DAY,
        MemoryKind.DECISION: 90 * _DAY,
    })


def default_relation_multipliers() -> Mapping[Relation, float]:
    """Activation multiplier per relation; Nous' values, plus ours for conversation edges."""
    return MappingProxyType({
        Relation.RELATED_TO: 0.8, Relation.SUPPORTS: 1.0, Relation.CONTRADICTS: 1.0,
        Relation.SUPERSEDES: 0.9, Relation.CAUSED_BY: 1.0, Relation.INFORMED_BY: 0.9,
        Relation.EVIDENCE_FOR: 1.0, Relation.DISCUSSED_IN: 0.7, Relation.EXTRACTED_FROM: 0.7,
        Relation.NEXT: 0.9, Relation.MENTIONS: 0.7, Relation.SAME_SESSION: 0.5,
        Relation.SAME_SPEAKER: 0.3,
    })


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallConfig:
    """How :meth:`Engram.recall` finds and ranks memories (DESIGN.md "Recall").

    Attributes
    ----------
    seed_k : int
        Vector seeds taken from the namespace's index (k of the k-NN search).
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
    }

    def __post_init__(self) -> None:
        check_bounds(self)
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
        Salience below which a rescoring pass may archive a memory.
    """

    half_life_s: Mapping[MemoryKind, float] = field(default_factory=default_half_lives)
    initial_salience: float = 0.5
    reinforce_rate: float = 0.1
    archive_floor: float = 0.05
    #: ``half_life_s`` as float32 indexed by ``MemoryKind.code`` (what the decay kernel takes).
    half_life_by_code: np.ndarray = field(init=False, repr=False, compare=False)

    BOUNDS: ClassVar = {
        "initial_salience": Interval(0.0, 1.0), "reinforce_rate": Interval(0.0, 1.0),
        "archive_floor": Interval(0.0, 1.0, "left"),
    }

    def __post_init__(self) -> None:
        check_bounds(self)
        for kind in MemoryKind:
            h = self.half_life_s.get(kind)
            if h is None or not Interval(0.0, None, "neither").contains(h):
                raise ConfigError(f"DecayConfig.half_life_s[{kind.value}] = {h!r} must be a number > 0 (seconds)")
        object.__setattr__(self, "half_life_by_code",
                           np.array([self.half_life_s[k] for k in MemoryKind], np.float32))


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexConfig:
    """hnswlib parameters (Malkov & Yashunin 2018): ``m`` is *M*, ``ef_construction`` is
    *efConstruction*, ``ef_search`` is *ef* at query time (>= 100 for good recall)."""

    m: int = 16
    ef_construction: int = 200
    ef_search: int = 100
    initial_capacity: int = 1024

    BOUNDS: ClassVar = {
        "m": Interval(2, 128), "ef_construction": Interval(8, 10_000), "ef_search": Interval(1, 10_000),
        "initial_capacity": Interval(1, None),
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
        Default 0.80 (DESIGN.md); hashed n-gram embeddings need a lower value.
    max_links : int
        At most this many auto-links per new memory.
    """

    auto_link: bool = True
    cosine_threshold: float = 0.80
    max_links: int = 5

    BOUNDS: ClassVar = {"cosine_threshold": Interval(-1.0, 1.0), "max_links": Interval(0, 1000),
                        "auto_link": Choice((True, False))}

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
        each other by ``next`` (see :mod:`engramdb.batch_plan`).
    snapshot_every : int
        Fold the edge delta into the persisted CSR snapshot after this many new edges.
    """

    map_size_bytes: int = 64 << 30
    sync: bool = True
    max_text_chars: int = 4_000_000
    snapshot_every: int = 50_000
    chunk_chars: int = 4_000

    BOUNDS: ClassVar = {
        "map_size_bytes": Interval(1 << 20, None), "max_text_chars": Interval(1, None),
        "snapshot_every": Interval(1, None), "sync": Choice((True, False)),
        "chunk_chars": Interval(64, None),
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

    BOUNDS: ClassVar = {}

    def __post_init__(self) -> None:
        for f in fields(self):
            expected = f.default_factory  # type: ignore[misc]
            value = getattr(self, f.name)
            if not isinstance(value, expected):  # type: ignore[arg-type]
                raise ConfigError(f"EngramConfig.{f.name} must be a {expected.__name__}, got {type(value).__name__}")
