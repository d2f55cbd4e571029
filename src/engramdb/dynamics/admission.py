"""A-MAC admission control (arXiv:2603.04549): score candidate memories before storing them.

Each candidate gets five factors in [0, 1], in A-MAC's order (``kernels.reference.ADMISSION_FACTORS``):

========================  ===================================================================
future utility U          ``utility(texts)`` if the caller passes a callable (e.g. an LLM
                          judge); otherwise :func:`heuristic_utility`, a rule-based stand-in.
factual confidence C      the candidate's ``confidence`` (default 1), times 0.7 when the text
                          hedges ("maybe", "I think", "not sure", ...). A-MAC grounds it with
                          ROUGE-L against the transcript; a caller who has a transcript can
                          pass that score as ``confidence``.
semantic novelty N        1 - max(cosine to the namespace's nearest stored memory, cosine to
                          any earlier candidate of the batch), clipped to [0, 1].
temporal recency R        2**(-(now - created_at) / ``recency_half_life_s``).
content-type prior T      ``AdmissionConfig.type_prior[kind]``, capped at 0.2 (A-MAC's prior
                          for temporary states) when :func:`is_phatic` finds the text to be
                          only a greeting, thanks or filler.
========================  ===================================================================

score = w . [U, C, N, R, T], computed for the whole batch in one ``admission_score`` kernel
call. Decision per candidate, in batch order:

1. *reinforce*: its cosine to a stored active memory (or to an earlier candidate) is at least
   ``duplicate_cosine`` and :func:`fact_change` finds no changed number, date, name or
   negation: the existing memory is reinforced (salience and access count) instead of adding
   a copy; a twin of a rejected earlier candidate is rejected with it;
2. *admit*: score >= threshold;
3. *reject*: otherwise.

Admitted candidates are written in one transaction with the reinforcements and the log
entries (``Engram.add_batch``'s write path). In shadow mode every candidate is stored and the
decision is only reported and logged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from ..errors import InvalidInputError, NonFiniteError
from ..kernels import registry
from ..kernels.reference import ADMISSION_FACTORS
from ..facts import (
    FUNCTION_WORDS, fact_change, fact_signature, tokens as _tokens,
)
from ..state import EngineState
from ..types import MemoryState, _STATE_CODES
from ..write import write_unit
from ..write.records import Prepared, write_new
from ..write.reinforce import boosted, reinforce

if TYPE_CHECKING:  # pragma: no cover
    from ..config import AdmissionConfig

__all__ = ["AdmissionDecision", "fact_change", "fact_signature", "heuristic_utility", "is_phatic",
           "strip_speaker", "admit_batch", "HEDGE_PENALTY", "PHATIC_PRIOR"]

HEDGE_PENALTY = 0.7
PHATIC_PRIOR = 0.2   # A-MAC's type prior of temporary states
HEDGES = ("maybe", "perhaps", "probably", "possibly", "might", "i think", "i guess", "not sure",
          "unsure", "i believe", "rumor", "apparently", "supposedly")
CUES = frozenset(
    "prefer prefers preferred like likes love loves hate hates favorite favourite allergic always "
    "never plan plans planning decided decide decision will must need needs remember birthday "
    "deadline booked booking appointment meeting password code address phone email goal goals".split())
PHATIC = frozenset("hi hello hey thanks thank ok okay lol haha bye cool nice great sure yeah yep "
                   "wow hmm oh good morning night welcome glad awesome amazing congrats "
                   "congratulations sounds see soon later care cheers yay appreciate".split())


_SPEAKER = re.compile(r"^\s*[A-Z][\w .'-]{0,30}:\s+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def strip_speaker(text: str) -> str:
    """``text`` without a leading "Speaker: " label (as conversation turns carry)."""
    return _SPEAKER.sub("", text, count=1)


def _asks_the_listener(sentence: str) -> bool:
    """A question to the other speaker ("What got you into running?"): it states no fact."""
    return sentence.rstrip().endswith("?") and any(t.lower() in ("you", "your", "you're", "you've", "yours")
                                                   for t in _tokens(sentence))


def is_phatic(text: str) -> bool:
    """True when ``text`` holds no fact. Its questions to the listener (sentences ending in "?"
    that say "you" / "your") and a leading speaker label are set aside; then the rest is phatic
    when every word is a greeting,
    thanks or filler / function word; or its only content words are names ("Thanks, Mel!") and
    it has no number or date; or it has fewer than two content words (3+ letters, not function
    words) and no number, date or name."""
    body = " ".join(x for x in _SENTENCE.findall(strip_speaker(text)) if not _asks_the_listener(x))
    toks = _tokens(body)
    low = [t.lower() for t in toks]
    if not toks or all(t in PHATIC or t in FUNCTION_WORDS for t in low):
        return True
    sig = fact_signature(body)
    specific = len(sig["number"]) + len(sig["date"]) + len(sig["name"])
    content = [t for t in low if len(t) >= 3 and t not in FUNCTION_WORDS and t not in PHATIC]
    if not sig["number"] and not sig["date"] and all(t in sig["name"] for t in content):
        return True   # greeting someone by name: "Thanks, Mel!"
    return len(content) < 2 and specific == 0


def heuristic_utility(texts: Iterable[str]) -> np.ndarray:
    """Future-utility stand-in without an LLM: specific, actionable text scores high.

    For each text, after a leading "Speaker: " label, with its word tokens: ``content`` = tokens of 3+ letters that are not
    function words; ``specific`` = fact-bearing tokens of :func:`fact_signature` (numbers,
    dates, names); ``cue`` = 1 when a token signals a lasting preference, plan or commitment
    (prefer, love, allergic, plan, decided, deadline, booked, password, ...).

        U = clip(0.2 + 0.15 * min(specific, 3) + 0.05 * min(content, 6) + 0.2 * cue, 0, 1)

    and U <= 0.1 for phatic text (:func:`is_phatic`). A caller with an LLM judge passes it as ``utility=``
    to :meth:`Engram.admit_batch` instead (A-MAC's U is an LLM rating).

    Parameters
    ----------
    texts : iterable of str

    Returns
    -------
    ndarray of float32, shape (n,), in [0, 1]
    """
    out = []
    for text in texts:
        body = strip_speaker(text)
        low = [t.lower() for t in _tokens(body)]
        sig = fact_signature(body)
        specific = len(sig["number"]) + len(sig["date"]) + len(sig["name"])
        content = sum(1 for t in low if len(t) >= 3 and t not in FUNCTION_WORDS and t not in PHATIC)
        cue = 1.0 if any(t in CUES for t in low) else 0.0
        u = 0.2 + 0.15 * min(specific, 3) + 0.05 * min(content, 6) + 0.2 * cue
        if is_phatic(text):
            u = min(u, 0.1)
        out.append(min(max(u, 0.0), 1.0))
    return np.array(out, np.float32)


def _hedged(text: str) -> bool:
    low = " " + " ".join(t.lower() for t in _tokens(text)) + " "
    return any(f" {h} " in low for h in HEDGES)


@dataclass(slots=True)
class AdmissionDecision:
    """Why a candidate was admitted, rejected or merged.

    Attributes
    ----------
    index : int
        Position of the candidate in the batch.
    id : str
        The candidate's id (given or generated); the stored id when it was written.
    decision : str
        ``"admit"``, ``"reject"`` or ``"reinforce"`` (the policy's decision, also in shadow mode).
    score : float
        Weighted sum of the factors (A-MAC S(m)).
    factors : dict str -> float
        ``future_utility``, ``factual_confidence``, ``semantic_novelty``, ``temporal_recency``,
        ``content_type_prior``, each in [0, 1].
    stored : bool
        The candidate was written as a new memory (admitted, or anything in shadow mode).
    target : str or None
        For ``reinforce``: the id of the memory reinforced (stored, or admitted earlier in the batch).
    nearest_cosine : float or None
        Cosine to the closest stored memory or earlier candidate (None in an empty namespace).
    nearest : str or None
        Id of that closest memory or candidate.
    fact_change : str or None
        Set when a near-duplicate was kept apart because it changes a fact
        (``"number"``, ``"date"``, ``"name"`` or ``"negation"``).
    reason : str
        One line saying why.
    shadow : bool
        The batch ran in shadow mode (the decision was only reported and logged).
    """

    index: int
    id: str
    decision: str
    score: float
    factors: dict[str, float]
    stored: bool
    target: str | None = None
    nearest_cosine: float | None = None
    nearest: str | None = None
    fact_change: str | None = None
    reason: str = ""
    shadow: bool = field(default=False)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "decision": self.decision, "score": round(self.score, 6),
                "factors": {k: round(v, 6) for k, v in self.factors.items()}, "stored": self.stored,
                "target": self.target, "nearest_cosine": None if self.nearest_cosine is None else round(self.nearest_cosine, 6),
                "nearest": self.nearest, "fact_change": self.fact_change, "reason": self.reason,
                "shadow": self.shadow}


def _check_utility(values: Any, n: int) -> np.ndarray:
    try:
        u = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError("utility(texts) must return n numbers in [0, 1]") from None
    if u.shape != (n,):
        raise InvalidInputError(f"utility(texts) returned shape {u.shape}, expected ({n},)")
    if not np.all(np.isfinite(u)):
        raise NonFiniteError("utility(texts) returned NaN or infinite values")
    if np.any((u < 0) | (u > 1)):
        raise InvalidInputError("utility(texts) returned values outside [0, 1]")
    return u.astype(np.float32)


def admit_batch(state: EngineState, prepared: list[Prepared], *, namespace: str, now: float,
                shadow: bool | None = None, utility: Callable[[list[str]], Any] | None = None,
                config: "AdmissionConfig | None" = None) -> list[AdmissionDecision]:
    """See :meth:`Engram.admit_batch`. ``prepared`` are the candidates, validated and embedded
    by the engine (each with its vector); nothing is written before the decisions are made,
    then admissions, reinforcements and log entries commit in one write unit.

    Raises
    ------
    InvalidInputError
        A candidate in another namespace, an id twice or already stored, a bad ``utility``.
    """
    cfg = config or state.config.admission
    shadow = cfg.shadow if shadow is None else bool(shadow)
    if utility is not None and not callable(utility):
        raise InvalidInputError(f"utility must be a callable texts -> scores or None, got {type(utility).__name__}")
    for p in prepared:
        if p.namespace != namespace:
            raise InvalidInputError(f"candidate {p.ext_id!r} names namespace {p.namespace!r}; admit_batch "
                                    f"scores one namespace ({namespace!r}) at a time")
    n = len(prepared)
    if n == 0:
        return []
    seen = set()
    for p in prepared:
        if p.ext_id in seen:
            raise InvalidInputError(f"id {p.ext_id!r} appears twice in the batch")
        seen.add(p.ext_id)
    with state.store.read("checking candidate ids") as txn:
        for p in prepared:
            if state.store.lookup_id(txn, namespace, p.ext_id) is not None:
                raise InvalidInputError(f"id {p.ext_id!r} already exists in namespace {namespace!r}; "
                                        "a candidate needs a new id (or none)")
    texts = [p.text for p in prepared]
    u = heuristic_utility(texts) if utility is None else _check_utility(utility(texts), n)
    vecs = np.ascontiguousarray(np.stack([p.vector for p in prepared]), dtype=np.float32)

    # nearest stored memories (any state, for novelty) and the nearest *active* one (duplicates)
    c = state.cols
    cos_store = np.full(n, -1.0, np.float32)
    dup_nid = np.full(n, -1, np.int64)
    dup_cos = np.full(n, -1.0, np.float32)
    near_nid = np.full(n, -1, np.int64)
    sp = state.space(namespace)
    index = None if sp is None else sp.index
    if index is not None and len(index):
        k = 8
        labels, cos = index.knn_batch(vecs, k, ef=max(100, 4 * k))
        cos_store = cos[:, 0].astype(np.float32)
        near_nid = labels[:, 0].astype(np.int64)
        active = (c.state[labels] == _STATE_CODES[MemoryState.ACTIVE]) & c.alive[labels]
        for i in range(n):
            j = np.flatnonzero(active[i])
            if len(j):
                dup_nid[i], dup_cos[i] = labels[i, j[0]], cos[i, j[0]]
    # earlier candidates of the batch
    gram = vecs @ vecs.T
    gram[np.triu_indices(n)] = -np.inf
    batch_j = np.argmax(gram, axis=1) if n > 1 else np.zeros(n, np.int64)
    cos_batch = gram[np.arange(n), batch_j] if n > 1 else np.full(n, -np.inf, np.float32)
    cos_batch = np.where(np.isfinite(cos_batch), cos_batch, -1.0).astype(np.float32)

    conf = np.array([p.confidence * (HEDGE_PENALTY if _hedged(p.text) else 1.0) for p in prepared], np.float32)
    novelty = np.clip(1.0 - np.maximum(cos_store, cos_batch), 0.0, 1.0).astype(np.float32)
    age = np.maximum(now - np.array([p.created_at for p in prepared], np.float64), 0.0)
    recency = np.exp2(-age / cfg.recency_half_life_s).astype(np.float32)
    prior = cfg.type_prior_by_code[np.array([p.kind.code for p in prepared], np.intp)].copy()
    phatic = np.array([is_phatic(t) for t in texts])
    prior[phatic] = np.minimum(prior[phatic], np.float32(PHATIC_PRIOR))
    features = np.ascontiguousarray(np.stack([u, conf, novelty, recency, prior], axis=1), dtype=np.float32)
    score, admit = registry.get("admission_score")(features, cfg.weights, float(cfg.threshold))

    stored_text: dict[int, str] = {}
    dups = sorted(set(dup_nid[(dup_nid >= 0) & (dup_cos >= cfg.duplicate_cosine)].tolist()))
    for nid, rec in zip(dups, state.records(dups, "reading near-duplicates")):
        stored_text[nid] = rec["text"]

    decisions: list[AdmissionDecision] = []
    resolved: list[tuple[str, int | None]] = []   # per candidate: (decision, batch index it reinforces)
    stored_counts: dict[int, int] = {}
    batch_counts: dict[int, int] = {}
    for i, p in enumerate(prepared):
        factors = {name: float(features[i, j]) for j, name in enumerate(ADMISSION_FACTORS)}
        near_c, near = None, None
        if cos_store[i] > -1.0 or cos_batch[i] > -1.0:
            if cos_batch[i] > cos_store[i]:
                near_c, near = float(cos_batch[i]), prepared[int(batch_j[i])].ext_id
            else:
                near_c, near = float(cos_store[i]), c.ext_ids[int(near_nid[i])]
        d = AdmissionDecision(i, p.ext_id, "reject", float(score[i]), factors, False, nearest_cosine=near_c,
                              nearest=near, shadow=shadow)
        change = None
        batch_dup = n > 1 and i > 0 and cos_batch[i] >= cfg.duplicate_cosine
        store_dup = dup_nid[i] >= 0 and dup_cos[i] >= cfg.duplicate_cosine
        if store_dup and (not batch_dup or dup_cos[i] >= cos_batch[i]):
            nid = int(dup_nid[i])
            change = fact_change(p.text, stored_text[nid])
            if change is None:
                d.decision, d.target = "reinforce", c.ext_ids[nid]
                d.reason = f"near-duplicate (cosine {float(dup_cos[i]):.3f}) of stored memory {d.target!r}"
                stored_counts[nid] = stored_counts.get(nid, 0) + 1
        elif batch_dup:
            j = int(batch_j[i])
            change = fact_change(p.text, prepared[j].text)
            if change is None:
                dj, tj = resolved[j]
                if dj == "admit":
                    d.decision, d.target = "reinforce", prepared[j].ext_id
                    batch_counts[j] = batch_counts.get(j, 0) + 1
                elif dj == "reinforce":
                    d.decision, d.target = "reinforce", decisions[j].target
                    if tj is not None:
                        batch_counts[tj] = batch_counts.get(tj, 0) + 1
                    else:
                        nid = state.lookup(namespace, decisions[j].target)
                        stored_counts[nid] = stored_counts.get(nid, 0) + 1
                else:
                    d.reason = f"near-duplicate (cosine {float(cos_batch[i]):.3f}) of rejected candidate #{j}"
                if d.decision == "reinforce":
                    d.reason = f"near-duplicate (cosine {float(cos_batch[i]):.3f}) of candidate #{j}"
        if d.decision == "reject" and not d.reason:
            if admit[i]:
                d.decision = "admit"
                d.reason = f"score {float(score[i]):.3f} >= threshold {cfg.threshold:g}"
            else:
                weakest = min(factors, key=lambda f: factors[f] * float(cfg.weights[ADMISSION_FACTORS.index(f)])
                              - float(cfg.weights[ADMISSION_FACTORS.index(f)]))
                d.reason = (f"score {float(score[i]):.3f} < threshold {cfg.threshold:g} "
                            f"(largest shortfall: {weakest} = {factors[weakest]:.2f})")
                if phatic[i]:
                    d.reason += "; phatic: greetings, thanks or questions, no fact"
            if change is not None:
                d.fact_change = change
                d.reason += f"; near-duplicate kept apart: it changes a {change}"
        tgt_batch = None
        if d.decision == "reinforce" and d.target in {q.ext_id for q in prepared[:i]}:
            tgt_batch = next(j for j in range(i) if prepared[j].ext_id == d.target)
        resolved.append((d.decision, tgt_batch))
        decisions.append(d)

    rate = state.config.decay.reinforce_rate
    if shadow:
        to_add = list(prepared)
        stored_counts, batch_counts = {}, {}
    else:
        to_add = [p for p, d in zip(prepared, decisions) if d.decision == "admit"]
        for j, times in batch_counts.items():
            s = prepared[j].salience
            for _ in range(times):
                s = boosted(s, rate)
            prepared[j].salience = float(np.float32(min(s, 1.0)))
    added = {id(q) for q in to_add}
    for p, d in zip(prepared, decisions):
        d.stored = id(p) in added
    logs = [{"action": "admission_shadow" if shadow else f"admission_{d.decision}", "namespace": namespace,
             "id": d.id, "decision": d.decision, "score": d.score, "factors": d.factors, "target": d.target,
             "fact_change": d.fact_change, "reason": d.reason, "text": prepared[d.index].text}
            for d in decisions if shadow or d.decision != "admit"]

    def in_unit(unit):
        reinforce(unit, stored_counts, rate)
        unit.log(logs)
        return []

    if to_add:   # the add path: slots resolve as in add_batch (a new single value supersedes)
        write_new(state, to_add, now, what="admitting memories", extra=in_unit)
    elif stored_counts or logs:
        with write_unit(state, "admission: reinforcing duplicates", now) as unit:
            in_unit(unit)
    return decisions
