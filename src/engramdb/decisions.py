"""Decisions with outcomes, and how well their confidence is calibrated.

An agent that chooses on its user's behalf keeps three things about each choice (DESIGN.md
"Decisions, censors and the ledger"):

- **the decision** (:func:`prepare_decision`, ``Engram.decide``): a ``decision`` memory whose
  text says what was decided, with the options weighed, the one chosen, a category, typed
  reasons and a confidence, the forecast probability in [0, 1] that the choice works out. It is
  held from decay until reviewed (``DecayConfig.hold_decisions_until_review``);
- **its outcome** (:func:`review_outcome`, ``Engram.review``): ``success``, ``partial`` or
  ``failure``, with a note and the time it became known. The outcome is written on the decision
  record (so recall and ``get`` show it) and stored as an ``episodic`` outcome memory that is
  ``caused_by`` the decision (the outcome is a consequence of the choice; spreading activation
  carries a question about the outcome to the decision and back). A later review of the same
  decision stores a new outcome memory that supersedes the earlier one (kept, flagged
  superseded, never deleted); only the latest review counts;
- **the calibration of the forecasts** (:func:`calibration`, ``Engram.calibration``): the Brier
  score and a reliability diagram over the reviewed decisions.

Scoring
-------
Outcome values: success = 1, failure = 0, and partial = 0.5 (a documented choice: a partial
success is scored as half an event, so a forecast of 0.5 on it costs nothing and a forecast of
1 or 0 costs 0.25). With forecasts ``p_i`` (the decisions' confidence) and outcome values
``o_i`` over the ``n`` reviewed decisions:

- Brier score (Brier 1950): ``BS = (1/n) * sum_i (p_i - o_i)**2``, in [0, 1]; 0 is perfect,
  0.25 is what a constant forecast of 0.5 scores on any outcomes;
- accuracy: the mean outcome value ``(1/n) * sum_i o_i`` (the share of decisions that worked
  out, partial ones as half); ``overconfidence`` = mean confidence - accuracy (calibration in
  the large: > 0 is an over-confident agent);
- reliability bins (Murphy & Winkler 1977): ``bins`` equal-width confidence intervals
  ``[j/B, (j+1)/B)`` (the last one closed at 1); in each, the number of decisions, their mean
  forecast and the observed frequency (mean outcome value). A calibrated agent's points lie on
  the diagonal.

References
----------
Brier, G. W. (1950). Verification of forecasts expressed in terms of probability. Monthly
Weather Review 78(1), 1-3.
Murphy, A. H. & Winkler, R. L. (1977). Reliability of subjective probability forecasts of
precipitation and temperature. Journal of the Royal Statistical Society C (Applied
Statistics) 26(1), 41-47.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from . import slots as _slots
from .dynamics.salience import end_hold
from .errors import InvalidInputError, OversizeError
from .state import EngineState
from .types import OUTCOMES, Memory, MemoryKind, MemoryState, Relation, memory_from_record
from .validate import MAX_ID_CHARS, MAX_TAGS, check_fraction, encodable, utc_text as _iso
from .write.records import Prepared, embed_missing, prepare, write_new
from .wording import count as counted

__all__ = ["OUTCOMES", "OUTCOME_VALUE", "REASON_TYPES", "ReliabilityBin", "CalibrationReport", "TrackRecord",
           "decision_fields", "prepare_decision", "record_decision", "review_outcome", "select_decisions",
           "brier_score",
           "reliability_bins", "calibration", "track_record", "plot_reliability"]

#: The value an outcome is scored as (success 1, partial 0.5, failure 0; see the module docstring).
OUTCOME_VALUE: Mapping[str, float] = MappingProxyType({"success": 1.0, "partial": 0.5, "failure": 0.0})
#: Types of reasons, after the reference system (DESIGN.md "Decisions, censors and the ledger").
REASON_TYPES = ("analysis", "pattern", "empirical", "authority", "intuition", "analogy", "elimination",
                "constraint")
#: The verbs' names as the write unit records them (``what``).
DECIDE, REVIEW = "decide", "review"
#: A review may be dated at most this far after the engine's clock (seconds: clock skew between
#: the caller and the store); later is refused, so a mistyped year cannot lock the decision.
FUTURE_SLACK_S = 300.0


_MAX_ITEMS = MAX_TAGS            # options, reasons
_MAX_FIELD_CHARS = 4000          # an option, a reason, a category, a note
_SHOWN_DECISION_CHARS = 300      # of the decision's text, in its outcome memory's text


# ---------------------------------------------------------------------------------- values
@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """One bin of a reliability diagram.

    Attributes
    ----------
    lo, hi : float
        Confidence interval of the bin, ``[lo, hi)`` (the last bin includes 1).
    n : int
        Reviewed decisions whose confidence falls in it.
    mean_predicted : float or None
        Their mean confidence; None when ``n == 0``.
    observed : float or None
        Their mean outcome value (observed frequency of success; partial = 0.5); None when
        ``n == 0``.
    """

    lo: float
    hi: float
    n: int
    mean_predicted: float | None
    observed: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"lo": self.lo, "hi": self.hi, "n": self.n, "mean_predicted": self.mean_predicted,
                "observed": self.observed}


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """Answer of :meth:`Engram.calibration`: how well the decisions' confidence matched outcomes.

    Attributes
    ----------
    namespace : str
    brier : float or None
        Brier score, mean of (confidence - outcome value)**2 over reviewed decisions, in [0, 1]
        (lower is better); None when none is reviewed.
    n_reviewed : int
        Decisions with an outcome (only the latest review of each counts).
    n_pending : int
        Decisions of the selection not reviewed yet.
    accuracy : float or None
        Mean outcome value of the reviewed decisions (success 1, partial 0.5, failure 0).
    mean_confidence : float or None
        Mean confidence of the reviewed decisions.
    confidence_std : float or None
        Their population standard deviation of confidence (the spread of the forecasts).
    overconfidence : float or None
        ``mean_confidence - accuracy``: > 0 over-confident, < 0 under-confident.
    outcomes : mapping of str -> int
        Reviewed decisions per outcome (``success``, ``partial``, ``failure``).
    bins : tuple of ReliabilityBin
        The reliability diagram, every bin (empty ones with ``n == 0``), lowest first.
    tags : tuple of str or None
        The tag filter used (decisions carrying all of them).
    since, until : float or None
        The decision-time filter used (Unix seconds, inclusive).
    """

    namespace: str
    brier: float | None
    n_reviewed: int
    n_pending: int
    accuracy: float | None
    mean_confidence: float | None
    confidence_std: float | None
    overconfidence: float | None
    outcomes: Mapping[str, int]
    bins: tuple[ReliabilityBin, ...]
    tags: tuple[str, ...] | None = None
    since: float | None = None
    until: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field."""
        return {"namespace": self.namespace, "brier": self.brier, "n_reviewed": self.n_reviewed,
                "n_pending": self.n_pending, "accuracy": self.accuracy, "mean_confidence": self.mean_confidence,
                "confidence_std": self.confidence_std, "overconfidence": self.overconfidence,
                "outcomes": dict(self.outcomes), "bins": [b.to_dict() for b in self.bins],
                "tags": None if self.tags is None else list(self.tags), "since": self.since,
                "until": self.until}

    def summary(self) -> str:
        """The report in a few plain lines (what the CLI prints above its table)."""
        if self.n_reviewed == 0:
            return (f"namespace {self.namespace!r}: no reviewed decision ({self.n_pending} pending); "
                    "no Brier score yet")
        o = self.outcomes
        lean = "over-confident" if self.overconfidence > 0 else "under-confident" if self.overconfidence < 0 \
            else "calibrated in the large"
        return (f"namespace {self.namespace!r}: {counted(self.n_reviewed, 'reviewed decision')} ({o['success']} success, "
                f"{o['partial']} partial, {o['failure']} failure), {self.n_pending} pending\n"
                f"Brier score {self.brier:.4f} (0 is perfect; a constant 0.5 scores 0.25)\n"
                f"mean confidence {self.mean_confidence:.3f} (sd {self.confidence_std:.3f}), accuracy "
                f"{self.accuracy:.3f}: {lean} by {abs(self.overconfidence):.3f}")


@dataclass(frozen=True, slots=True)
class TrackRecord:
    """How similar past decisions turned out (``Engram.context`` states it).

    Attributes
    ----------
    ids : tuple of str
        The similar decisions, best recall match first.
    success, partial, failure, pending : int
        How many of them have each outcome.
    """

    ids: tuple[str, ...]
    success: int
    partial: int
    failure: int
    pending: int

    @property
    def reviewed(self) -> int:
        """Decisions with an outcome."""
        return self.success + self.partial + self.failure

    def sentence(self) -> str:
        """E.g. ``"Track record: 3 of 4 similar decisions succeeded (1 failed)."``."""
        n = self.reviewed
        if n == 0:
            noun = "decision" if self.pending == 1 else "decisions"
            return f"Track record: {self.pending} similar {noun}, none reviewed yet."
        noun = "decision" if n == 1 else "decisions"
        verb = "succeeded"
        rest = [f"{self.partial} partly" if self.partial else "", f"{self.failure} failed" if self.failure else ""]
        rest = [r for r in rest if r]
        out = f"Track record: {self.success} of {n} similar {noun} {verb}"
        if rest:
            out += f" ({', '.join(rest)})"
        if self.pending:
            out += f"; {self.pending} still pending"
        return out + "."

    def to_dict(self) -> dict[str, Any]:
        return {"ids": list(self.ids), "success": self.success, "partial": self.partial,
                "failure": self.failure, "pending": self.pending, "sentence": self.sentence()}


# ---------------------------------------------------------------------------------- checks
def _short_text(value: Any, field: str) -> str:
    if not (isinstance(value, str) and value.strip() and "\x00" not in value and encodable(value)):
        raise InvalidInputError(f"{field}: expected a non-empty string without NUL, got {value!r}")
    if len(value) > _MAX_FIELD_CHARS:
        raise OversizeError(f"{field}: {len(value)} characters, more than {_MAX_FIELD_CHARS}")
    return value


def _sequence(value: Any, field: str) -> list:
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise InvalidInputError(f"{field}: expected a list, got {value!r}")
    items = list(value)
    if len(items) > _MAX_ITEMS:
        raise OversizeError(f"{field}: {len(items)} items, more than {_MAX_ITEMS}")
    return items


def decision_fields(*, options: Any = None, chosen: Any = None, category: Any = None,
                    reasons: Any = None) -> dict[str, Any]:
    """The validated decision fields of a record (only those given).

    Parameters
    ----------
    options : sequence of str, optional
        Non-empty, distinct strings.
    chosen : str, optional
        One of ``options`` when both are given.
    category : str, optional
    reasons : sequence of str or {"type": str, "text": str}, optional
        A reason's ``type`` is one of :data:`REASON_TYPES` (or None).

    Returns
    -------
    dict
        ``options`` (list of str), ``chosen``, ``category``, ``reasons`` (list of
        ``{"type", "text"}``), each only when given.

    Raises
    ------
    InvalidInputError
        A field of the wrong type, an empty string, a repeated option, ``chosen`` not among
        ``options``, an unknown reason type.
    OversizeError
        More than 256 options or reasons, or a string over 4000 characters.
    """
    out: dict[str, Any] = {}
    if options is not None:
        opts = [_short_text(o, f"options[{i}]") for i, o in enumerate(_sequence(options, "options"))]
        if len(set(opts)) != len(opts):
            raise InvalidInputError(f"options: each option once, got {opts!r}")
        out["options"] = opts
    if chosen is not None:
        chosen = _short_text(chosen, "chosen")
        if "options" in out and out["options"] and chosen not in out["options"]:
            raise InvalidInputError(f"chosen: expected one of the options {out['options']!r}, got {chosen!r}")
        out["chosen"] = chosen
    if category is not None:
        out["category"] = _short_text(category, "category")
    if reasons is not None:
        rs = []
        for i, r in enumerate(_sequence(reasons, "reasons")):
            if isinstance(r, Mapping):
                unknown = set(r) - {"type", "text"}
                if unknown:
                    raise InvalidInputError(f"reasons[{i}]: unknown field(s) {sorted(unknown)}; expected type, text")
                kind = r.get("type")
                if kind is not None and kind not in REASON_TYPES:
                    raise InvalidInputError(f"reasons[{i}].type: expected one of {REASON_TYPES} or None, "
                                            f"got {kind!r}")
                rs.append({"type": kind, "text": _short_text(r.get("text"), f"reasons[{i}].text")})
            else:
                rs.append({"type": None, "text": _short_text(r, f"reasons[{i}]")})
        out["reasons"] = rs
    return out


def check_outcome(outcome: Any) -> str:
    """``outcome`` if it is one of :data:`~engramdb.types.OUTCOMES`; InvalidInputError otherwise."""
    if not isinstance(outcome, str) or outcome not in OUTCOMES:
        raise InvalidInputError(f"outcome: expected one of {list(OUTCOMES)}, got {outcome!r}")
    return outcome


# ---------------------------------------------------------------------------------- writes
def prepare_decision(state: EngineState, text: Any, *, namespace: str, confidence: Any, now: float,
                     record_now: float, options: Any = None, chosen: Any = None, category: Any = None,
                     reasons: Any = None, tags: Any = (), id: Any = None, embedding: Any = None,
                     recorded_at: Any = None) -> Prepared:
    """Validate a decision (nothing is written); see :meth:`Engram.decide`.

    Parameters
    ----------
    state : EngineState
    text : str
    namespace : str
    confidence : float
        Forecast probability that the decision succeeds, in [0, 1].
    now : float
        Decision time (its event time, ``created_at``), Unix seconds.
    record_now : float
        The engine's clock, Unix seconds.
    options, chosen, category, reasons
        See :func:`decision_fields`.
    tags : str or sequence of str
        A single string is one tag.
    id : str, optional
    embedding : array-like of float, shape (dim,), optional
    recorded_at : float, datetime or ISO-8601, optional
        Record time of a backfilled decision (:func:`engramdb.write.records.prepare`).

    Returns
    -------
    Prepared

    Raises
    ------
    InvalidInputError
        As :meth:`Engram.decide`, and ``now`` more than :data:`FUTURE_SLACK_S` after
        ``record_now`` (a decision in the future could never be reviewed).
    NonFiniteError, OversizeError, EmptyTextError, DimensionMismatchError, NamespaceError
    """
    if confidence is None:
        raise InvalidInputError("confidence: a decision needs its confidence, a number in [0, 1] "
                                "(the probability that it works out)")
    confidence = check_fraction(confidence, "confidence")
    if now > record_now + FUTURE_SLACK_S:   # review() refuses a time after now: it could never follow
        raise InvalidInputError(f"decision at {_iso(now)}: later than now ({_iso(record_now)}); now= records "
                                "a decision made earlier, never one still to come")
    fields = decision_fields(options=options, chosen=chosen, category=category, reasons=reasons)
    item = {"text": text, "namespace": namespace, "kind": MemoryKind.DECISION, "id": id,
            "confidence": confidence, "tags": tags, "embedding": embedding, "created_at": now}
    p = prepare(state, item, namespace, now, record_now=record_now, recorded_at=recorded_at)
    p.extra = fields or None
    return p


def record_decision(state: EngineState, p: Prepared, embed: Callable | None, record_now: float) -> str:
    """Store a prepared decision in one write unit (the one write path); returns its id.

    Two decisions with the same text are two forecasts: no deduplication by text.

    Raises
    ------
    InvalidInputError
        The id is already stored.
    """
    embed_missing(state, embed, [p])
    return write_new(state, [p], record_now, what="recording a decision", verb=DECIDE)[0]


def _outcome_id(dec_id: str, n: int) -> str:
    out = f"{dec_id}:outcome:{n}"
    return out if len(out) <= MAX_ID_CHARS else f"outcome:{uuid.uuid4().hex}"


def _outcome_text(dec: dict, outcome: str, note: str | None) -> str:
    shown = " ".join(dec["text"].split())
    if len(shown) > _SHOWN_DECISION_CHARS:
        shown = shown[: _SHOWN_DECISION_CHARS - 1].rstrip() + "…"
    text = f"Outcome: {outcome}. Decision: {shown.rstrip('.')}."
    return text if note is None else f"{text} Note: {note}"


def review_outcome(state: EngineState, nid: int, *, outcome: str, note: str | None, at: float,
                   record_now: float, embed: Callable | None) -> str:
    """Record ``outcome`` of decision ``nid`` (see the module docstring) in one write unit.

    The decision record gets ``outcome``, ``outcome_at`` (``at``), ``outcome_note``,
    ``outcome_id`` and ``reviews``; its hold ends (as :func:`engramdb.dynamics.salience.review`).
    A new episodic outcome memory ``<decision id>:outcome:<n>`` (event time ``at``, the
    decision's tags) is ``caused_by`` the decision; it supersedes the previous outcome memory.
    Salience is computed at ``at``: the link boost that edge gives the decision
    (``DecayConfig.link_boost``) applies to its salience at ``at`` and sets its t0 to ``at``
    (unless its t0 is later: :func:`engramdb.write.reinforce.next_t0`), so a review dated in the
    past reads and stores the salience of that time. What it writes is recorded at ``record_now``.

    Parameters
    ----------
    state : EngineState
    nid : int
        The decision's node id.
    outcome : {"success", "partial", "failure"}
    note : str or None
    at : float
        When the outcome became known, Unix seconds; not before the decision (its
        ``created_at``) nor its latest review, nor more than :data:`FUTURE_SLACK_S` after
        ``record_now``.
    record_now : float
        The engine's clock, Unix seconds.
    embed : callable list[str] -> ndarray, or None

    Returns
    -------
    str
        The outcome memory's id.

    Raises
    ------
    InvalidInputError
        Not a decision; a bad outcome or note; ``at`` before the decision or its latest review,
        or in the future.
    """
    outcome = check_outcome(outcome)
    if note is not None:
        note = _short_text(note, "note")
    dec = state.records([nid], "reading a decision")[0]
    if dec["kind"] != MemoryKind.DECISION.value:
        raise InvalidInputError(f"memory {dec['id']!r} is a {dec['kind']} memory; only decisions are reviewed")
    if at > record_now + FUTURE_SLACK_S:
        raise InvalidInputError(f"review of {dec['id']!r} at {_iso(at)}: later than now ({_iso(record_now)}); "
                                "an outcome is reviewed once it is known")
    if at < dec["created_at"]:
        raise InvalidInputError(f"review of {dec['id']!r} at {_iso(at)}: before the decision was made "
                                f"({_iso(dec['created_at'])}); an outcome follows its decision")
    last = dec.get("outcome_at")
    if last is not None and at < last:
        raise InvalidInputError(f"review of {dec['id']!r} at {_iso(at)}: before its latest review at {_iso(last)}; "
                                "a later review supersedes an earlier one, so give the reviews in time order")
    ns = dec["namespace"]
    n = int(dec.get("reviews") or 0) + 1
    item = {"id": _outcome_id(dec["id"], n), "namespace": ns, "kind": MemoryKind.EPISODIC,
            "text": _outcome_text(dec, outcome, note), "created_at": at, "tags": dec["tags"],
            "links": [{"to": dec["id"], "relation": Relation.CAUSED_BY.value, "weight": 1.0}]}
    p = prepare(state, item, ns, at, record_now=record_now, engine_ids=True)
    p.extra = {"outcome_of": dec["id"], "outcome": outcome, **({} if note is None else {"outcome_note": note})}
    embed_missing(state, embed, [p])

    def settle(unit) -> list[tuple[int, int, int, float]]:
        rec = unit.record(nid)
        edges = []
        prev = rec.get("outcome_id")
        prev_nid = None if prev is None else unit.lookup(ns, prev)
        if prev_nid is not None:
            prec = unit.record(prev_nid)
            if prec["state"] != MemoryState.SUPERSEDED.value:
                unit.put_record(prev_nid, _slots.retire_record(prec, p.ext_id, p.valid_from, p.recorded_at))
                edges.append((p.nid, prev_nid, Relation.SUPERSEDES.code, 1.0))
        rec.update(outcome=outcome, outcome_at=at, outcome_id=p.ext_id, reviews=n)
        if note is None:
            rec.pop("outcome_note", None)
        else:
            rec["outcome_note"] = note
        end_hold(rec, at)
        unit.put_record(nid, rec)
        return edges

    # recorded at the clock; the decision's link boost (the outcome's caused_by edge) is computed at
    # the review time, as its hold ends there: a second review at a past time reads s(at), not s(clock)
    return write_new(state, [p], record_now, what="reviewing a decision", verb=REVIEW, extra=settle, at=at)[0]


# ---------------------------------------------------------------------------------- scoring
def select_decisions(state: EngineState, namespace: str, filters: Any) -> list[Memory]:
    """Every decision of ``namespace`` that passes ``filters`` (a ``recall.Filters`` with kind
    ``decision``, the states wanted, tags and decision-time range), oldest first, as
    :class:`Memory` (with ``Memory.decision``). No limit: a calibration reads them all."""
    sp = state.space(namespace)
    c = state.cols
    if sp is None or c.n == 0:
        return []
    nids = np.arange(c.n)
    nids = nids[filters.mask(c, nids, sp.code)]
    nids = nids[np.lexsort((nids, c.created_at[nids]))]
    recs = state.records(nids.tolist(), "reading decisions")
    return [memory_from_record(r, None) for r in recs if r is not None and filters.tags_ok(r)]


def brier_score(confidence: np.ndarray, outcome: np.ndarray) -> float | None:
    """Mean squared difference of forecasts and outcomes (Brier 1950).

    Parameters
    ----------
    confidence : ndarray of float64, shape (n,)
        Forecast probabilities in [0, 1].
    outcome : ndarray of float64, shape (n,)
        Outcome values in [0, 1] (:data:`OUTCOME_VALUE`).

    Returns
    -------
    float or None
        In [0, 1]; None when ``n == 0``.
    """
    p = np.asarray(confidence, np.float64)
    o = np.asarray(outcome, np.float64)
    if len(p) == 0:
        return None
    return float(np.mean((p - o) ** 2))


def reliability_bins(confidence: np.ndarray, outcome: np.ndarray, bins: int = 10) -> tuple[ReliabilityBin, ...]:
    """Reliability diagram data (Murphy & Winkler 1977): equal-width confidence bins.

    Parameters
    ----------
    confidence : ndarray of float64, shape (n,)
        In [0, 1].
    outcome : ndarray of float64, shape (n,)
        Outcome values in [0, 1].
    bins : int
        Number of bins B >= 1: ``[j/B, (j+1)/B)`` for j < B - 1, the last ``[(B-1)/B, 1]``
        (bounds as float64 ``j / B``, compared exactly: a confidence equal to a bound goes up).

    Returns
    -------
    tuple of ReliabilityBin, length B
    """
    p = np.asarray(confidence, np.float64)
    o = np.asarray(outcome, np.float64)
    edges = np.arange(bins + 1) / bins        # bin j is [edges[j], edges[j+1]): lo <= p < hi exactly
    j = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
    n = np.bincount(j, minlength=bins)
    sp = np.bincount(j, weights=p, minlength=bins)
    so = np.bincount(j, weights=o, minlength=bins)
    out = []
    for b in range(bins):
        k = int(n[b])
        out.append(ReliabilityBin(b / bins, (b + 1) / bins, k, float(sp[b] / k) if k else None,
                                  float(so[b] / k) if k else None))
    return tuple(out)


def calibration(decisions: Sequence[Memory], *, namespace: str, bins: int = 10, tags: tuple[str, ...] | None = None,
                since: float | None = None, until: float | None = None) -> CalibrationReport:
    """The :class:`CalibrationReport` of ``decisions`` (already selected by the caller).

    Parameters
    ----------
    decisions : sequence of Memory
        ``decision`` memories; each one's latest outcome is in ``Memory.decision``.
    namespace : str
    bins : int
        Reliability bins, >= 1.
    tags, since, until
        The filters used, recorded in the report.

    Returns
    -------
    CalibrationReport
        ``brier`` None and ``n_reviewed`` 0 when no decision is reviewed.
    """
    reviewed = [m for m in decisions if m.decision is not None and m.decision.outcome in OUTCOME_VALUE]
    p = np.array([m.confidence for m in reviewed], np.float64)
    o = np.array([OUTCOME_VALUE[m.decision.outcome] for m in reviewed], np.float64)
    counts = {k: sum(m.decision.outcome == k for m in reviewed) for k in OUTCOMES}
    some = len(reviewed) > 0
    mean_p = float(p.mean()) if some else None
    acc = float(o.mean()) if some else None
    return CalibrationReport(
        namespace=namespace, brier=brier_score(p, o), n_reviewed=len(reviewed),
        n_pending=len(decisions) - len(reviewed), accuracy=acc, mean_confidence=mean_p,
        confidence_std=float(p.std()) if some else None,
        overconfidence=mean_p - acc if some else None, outcomes=MappingProxyType(counts),
        bins=reliability_bins(p, o, bins), tags=tags, since=since, until=until)


def track_record(hits: Sequence[Any], threshold: float | None) -> TrackRecord | None:
    """The track record of the decision hits of a recall at or above the relevance cut.

    Parameters
    ----------
    hits : sequence of Hit
        A recall's hits, best first.
    threshold : float or None
        The recall's relevance threshold (``RecallResult.stats["relevance_threshold"]``); None
        counts every decision hit.

    Returns
    -------
    TrackRecord or None
        None when no decision hit passes.
    """
    similar = [h for h in hits if h.outcome is not None and (threshold is None or h.relevance >= threshold)]
    if not similar:
        return None
    count = {k: sum(h.outcome == k for h in similar) for k in (*OUTCOMES, "pending")}
    return TrackRecord(tuple(h.id for h in similar), count["success"], count["partial"], count["failure"],
                       count["pending"])


# ---------------------------------------------------------------------------------- plot
def plot_reliability(report: CalibrationReport, path: str) -> str:
    """Draw ``report``'s reliability diagram to ``path`` (PNG) with matplotlib (rendered by Agg,
    through a ``Figure`` of its own: pyplot and the process's backend are not touched).

    Top: observed frequency against mean forecast per non-empty bin, with the diagonal of
    perfect calibration; bottom: the number of decisions per bin.

    Parameters
    ----------
    report : CalibrationReport
    path : str
        The PNG file to write.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    BackendUnavailableError
        matplotlib is not installed (``pip install 'engramdb[plot]'``).
    InvalidInputError
        The report has no reviewed decision.
    """
    from .errors import BackendUnavailableError

    if report.n_reviewed == 0:
        raise InvalidInputError("no reviewed decision to plot: review some decisions first")
    try:
        from matplotlib.figure import Figure    # no pyplot: the caller's backend is left as it is
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:
        raise BackendUnavailableError(f"plotting needs matplotlib ({exc}); install the extra: "
                                      "pip install 'engramdb[plot]'") from exc
    fig = Figure(figsize=(5.0, 6.0), dpi=100)
    ax, hist = fig.subplots(2, 1, gridspec_kw={"height_ratios": [3, 1]}, sharex=True)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    full = [b for b in report.bins if b.n]
    ax.plot([b.mean_predicted for b in full], [b.observed for b in full], marker="o", color="tab:blue",
            label="observed")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("observed frequency of success")
    ax.set_title(f"Reliability diagram ({report.n_reviewed} decisions, Brier {report.brier:.3f})")
    ax.legend(loc="upper left")
    width = report.bins[0].hi - report.bins[0].lo
    hist.bar([b.lo for b in report.bins], [b.n for b in report.bins], width=width, align="edge",
             color="tab:blue", edgecolor="white")
    hist.set_xlabel("confidence (forecast probability)")
    hist.set_ylabel("decisions")
    hist.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path
