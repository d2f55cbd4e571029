"""The typed context that recall's stages read and fill, one stage after another.

:class:`RecallRequest` holds the checked arguments of one ``Engram.recall`` call;
:class:`RecallContext` adds what each stage produces: the seeds (vector leg, keyword leg,
fusion), the activation (density gate, spreading, lateral inflow), the ranking (candidates and
scores) and finally the result. A stage reads only fields set by the stages before it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import RELEVANCE_CALIBRATION, RecallConfig
from ..graph.csr import CSRGraph
from ..state import EngineState, Namespace
from .filters import Filters

__all__ = ["RecallRequest", "RecallContext", "time_anchor"]


def _empty(dtype) -> np.ndarray:
    """One shared, read-only empty array per dtype: the context's defaults cost no allocation
    per recall (a stage replaces a field, never writes into it)."""
    out = np.zeros(0, dtype)
    out.flags.writeable = False
    return out


_INT8, _INT32, _INT64 = _empty(np.int8), _empty(np.int32), _empty(np.int64)
_FLOAT32, _FLOAT64 = _empty(np.float32), _empty(np.float64)


@dataclass(frozen=True, slots=True)
class RecallRequest:
    """Checked arguments of one recall.

    Attributes
    ----------
    namespace : str
    query : str or None
        The question's text (keyword leg, time cues).
    vector : ndarray of float32, shape (dim,)
        Unit query vector.
    k : int
        Hits wanted, >= 1.
    filters : Filters
    config : RecallConfig
        The engine's, with the call's overrides.
    now : float
        Unix seconds, for salience decay and recency.
    relevance : (tuple of 4 float, float)
        Coefficients and threshold of ``Hit.relevance`` (the config's, or the calibration of
        the store's embedder: ``config.RELEVANCE_CALIBRATION``).
    now_given : bool
        Whether the caller gave ``now``: then the question's relative time cues ("yesterday")
        are read against it, not against an imported conversation's own clock
        (:meth:`RecallContext.cue_now`).
    """

    namespace: str
    query: str | None
    vector: np.ndarray
    k: int
    filters: Filters
    config: RecallConfig
    now: float
    relevance: tuple = RELEVANCE_CALIBRATION["minilm"]
    now_given: bool = False


@dataclass(slots=True)
class RecallContext:
    """What the stages share (see the module docstring). Arrays are indexed as noted."""

    state: EngineState
    request: RecallRequest
    space: Namespace
    trace: list | None = None
    allowed: np.ndarray | None = None    # nids a selective filter keeps (None: no restriction)
    # seeds
    vec_nids: np.ndarray = field(default_factory=lambda: _INT64)    # vector leg, best first
    vec_cos: np.ndarray = field(default_factory=lambda: _FLOAT32)
    kw_nids: np.ndarray = field(default_factory=lambda: _INT64)     # keyword leg, best first
    kw_score: np.ndarray = field(default_factory=lambda: _FLOAT32)
    seeds: np.ndarray = field(default_factory=lambda: _INT32)
    base: np.ndarray = field(default_factory=lambda: _FLOAT32)      # by seed, best is 1
    seed_cos: np.ndarray = field(default_factory=lambda: _FLOAT32)  # by seed
    windows: list = field(default_factory=list)     # TimeWindow's named in the question
    # activation
    mode: str = "vector"
    density: float = 0.0
    csr: CSRGraph | None = None
    nodes: np.ndarray = field(default_factory=lambda: _INT32)       # reached, seeds first
    parent: np.ndarray = field(default_factory=lambda: _INT32)      # by node row
    act: np.ndarray = field(default_factory=lambda: _FLOAT32)       # by node row
    hops: np.ndarray = field(default_factory=lambda: _INT8)         # by node row
    total: np.ndarray = field(default_factory=lambda: _FLOAT64)     # by node row
    inflow_src: np.ndarray | None = None   # by node row: the nid whose pass is the lateral inflow, or -1
    # ranking
    cand: np.ndarray = field(default_factory=lambda: _INT64)        # node rows passing filters
    score: np.ndarray = field(default_factory=lambda: _FLOAT64)     # by candidate
    extra: dict[str, Any] = field(default_factory=dict)
    cos_of: dict[int, float] | None = None   # nid -> cosine to the query (:meth:`cosines`)

    def cue_now(self) -> float:
        """The "now" of the question's relative time cues, Unix seconds: the ``now`` the caller
        gave (``recall(now=T)``: "yesterday" is the day before T, whatever the stored
        conversation's clock; helper-205 asked "how far did I run yesterday?" with ``now`` the
        day after an imported chat's last message and got the day before that message), else
        :func:`time_anchor` of the namespace's clock (:meth:`EngineState.cue_clock`) and the
        recall's now. A recall ``as_of`` a time reads the cues no later than it, against the
        clock of the memories recorded by then. Every stage reads this one (time windows, a
        past-only question's end, a question for what holds now, the current statement first);
        computed once a recall (``extra["cue_now"]``)."""
        got = self.extra.get("cue_now")
        if got is None:
            req = self.request
            as_of = req.filters.as_of
            got = req.now if as_of is None else min(req.now, as_of)
            if not req.now_given:
                got = time_anchor(self.state.cue_clock(self.space.name, recorded_by=as_of), got)
            self.extra["cue_now"] = got
        return got

    def cosines(self, nids: list[int]) -> list[float]:
        """Cosine of the query vector to each memory of ``nids`` (node ids), as Python floats of
        float32 values: a seed's as the seeds stage found it (``seed_cos``: hnswlib's for the
        vector leg's, the vector matrix's for the keyword leg's), any other's from the vector
        matrix, each read once per recall and kept (ranking's tie-break and the hits'
        relevance ask for the same memories). Call after the seeds stage."""
        known = self.cos_of
        if known is None:
            known = self.cos_of = dict(zip(self.seeds.tolist(), self.seed_cos.tolist()))
        miss = [n for n in dict.fromkeys(nids) if n not in known]
        if miss:
            vecs = self.state.vectors(np.asarray(miss, np.int64), self.space)
            known.update(zip(miss, (vecs @ self.request.vector).tolist()))
        return [known[n] for n in nids]


def time_anchor(clock: float, now: float) -> float:
    """The "now" of a question's relative time cues ("last week"), Unix seconds: the recall's
    ``now`` for a namespace written as things happen (its newest memory recorded within a day
    of its event: "what did I do yesterday?" asked before anything was stored today means the
    day before today, not the day before the newest memory), and for a conversation stored
    after the fact its own clock, the newest event time ``clock`` (a chat that ended in 2023
    and was imported today reads "last week" in 2023; :meth:`EngineState.cue_clock`), never
    after ``now``: a memory dated in the future (a passport that expires in 2036, a planned
    trip) does not move "last week" there. A ``now`` the caller gives is the anchor itself
    (:meth:`RecallContext.cue_now`)."""
    return min(clock, now)
