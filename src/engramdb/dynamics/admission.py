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
                          any earlier candidate of the batch), clipped to [0, 1]; 1 for a
                          near-duplicate that changes a number, date, name or negation of
                          it (:func:`fact_change`): the change is what is new.
temporal recency R        2**(-(now - created_at) / ``recency_half_life_s``).
content-type prior T      ``AdmissionConfig.type_prior[kind]``, capped at 0.2 (A-MAC's prior
                          for temporary states) when :func:`engramdb.kinds.is_phatic` finds
                          the text to be only a greeting, thanks or filler.
========================  ===================================================================

Kinds: a candidate that gives a ``kind`` keeps it. One that does not gets the kind its text
states, by rules (:func:`engramdb.kinds.infer_kind`, ``AdmissionConfig.infer_kind``): a fact
or preference is ``semantic``, an event or appointment ``episodic``, and greetings, thanks,
laughter, acknowledgements, weather small talk and bare questions are ``phatic`` chatter. The
type prior T follows the kind (a fact filed as ``semantic`` gets 0.8, not the episodic 0.5),
and is capped as above for chatter that ``infer_kind`` finds (but not for a text in which it
finds a fact, such as "I'm diabetic", which ``is_phatic`` counts as one content word).

score = w . [U, C, N, R, T], computed for the whole batch in one ``admission_score`` kernel
call. Decision per candidate, in batch order:

0. *reject, phatic*: no kind given and ``infer_kind`` says ``phatic``
   (``AdmissionConfig.reject_phatic``): rejected whatever its score, before the duplicate
   check (chatter never reinforces stored chatter either). Giving a kind lets the score decide;
1. *reinforce*: its cosine to a stored active memory (or to an earlier candidate) is at least
   ``duplicate_cosine`` and :func:`fact_change` finds no changed number, date, name or
   negation: the existing memory is reinforced (salience and access count) instead of adding
   a copy; a twin of a rejected earlier candidate is rejected with it;
2. *admit*: score >= threshold;
3. *reject*: otherwise.

Protected facts: a stored candidate whose text states an identity, health or family fact
(:func:`engramdb.kinds.protected_category`, ``AdmissionConfig.protect``) is tagged
``"protected"`` (``forgetting.PROTECTED_TAG``), and the rescoring job never archives or prunes
it (``ForgettingConfig.keep_protected``).

Admitted candidates are written in one transaction with the reinforcements and the log
entries (``Engram.add_batch``'s write path). In shadow mode every candidate is stored and the
decision is only reported and logged.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from ..chatter import PHATIC
from ..contiguity import default_weight
from ..errors import InvalidInputError, MemoryNotFoundError, NonFiniteError
from ..index import exact_cosines
from ..kernels import registry
from ..kernels.reference import ADMISSION_FACTORS
from ..facts import FUNCTION_WORDS, fact_change, fact_signature, tokens as _tokens
from ..kinds import PHATIC_KIND, hedged, infer_kind, is_phatic, protected_category, strip_speaker
from ..state import EngineState
from ..types import PROTECTED_TAG, MemoryKind, MemoryState, _STATE_CODES
from ..validate import MAX_TAGS
from ..write import write_unit
from ..write.records import Prepared, write_new
from ..wording import count
from ..write.reinforce import boosted, reinforce

if TYPE_CHECKING:  # pragma: no cover
    from ..config import AdmissionConfig

__all__ = ["AdmissionDecision", "fact_change", "fact_signature", "heuristic_utility", "admit_batch", "nearest_earlier",
           "HEDGE_PENALTY", "PHATIC_PRIOR"]

HEDGE_PENALTY = 0.7
PHATIC_PRIOR = 0.2   # A-MAC's type prior of temporary states
NEAREST_BLOCK = 2048   # tile side of nearest_earlier's blocked products (16 MiB of float32)
CUES = frozenset(
    "prefer prefers preferred like likes love loves hate hates favorite favourite allergic always "
    "never plan plans planning decided decide decision will must need needs remember birthday "
    "deadline booked booking appointment meeting password code address phone email goal goals".split())

def heuristic_utility(texts: Iterable[str]) -> np.ndarray:
    """Future-utility stand-in without an LLM: specific, actionable text scores high.

    For each text, after a leading "Speaker: " label, with its word tokens: ``content`` = tokens of 3+ letters that are not
    function words; ``specific`` = fact-bearing tokens of :func:`fact_signature` (numbers,
    dates, names); ``cue`` = 1 when a token signals a lasting preference, plan or commitment
    (prefer, love, allergic, plan, decided, deadline, booked, password, ...).

        U = clip(0.2 + 0.15 * min(specific, 3) + 0.05 * min(content, 6) + 0.2 * cue, 0, 1)

    and U <= 0.1 for phatic text (:func:`engramdb.kinds.is_phatic`). A caller with an LLM judge
    passes it as ``utility=`` to :meth:`Engram.admit_batch` instead (A-MAC's U is an LLM rating).

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
        One line saying why; a chatter candidate rejected by the phatic rule has a reason
        starting with ``"phatic"``.
    shadow : bool
        The batch ran in shadow mode (the decision was only reported and logged).
    kind : str
        The kind the candidate is (or would be) stored with: the caller's kind when given,
        otherwise the inferred kind; ``"phatic"`` for chatter rejected by the phatic rule.
    kind_given : bool
        The caller gave the kind (it is kept, and the phatic rule does not apply).
    inferred_kind : str
        :func:`engramdb.kinds.infer_kind`'s answer for the text: ``"semantic"``, ``"episodic"`` or ``"phatic"``
        (computed also when the caller gave a kind, for explanation).
    kind_reason : str
        Why :func:`engramdb.kinds.infer_kind` chose it (the rule and the word that fired).
    protected : str or None
        ``"health"``, ``"family"`` or ``"identity"`` when the text states such a fact
        (:func:`engramdb.kinds.protected_category`); a stored candidate is then tagged ``"protected"``.
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
    kind: str = MemoryKind.EPISODIC.value
    kind_given: bool = False
    inferred_kind: str = MemoryKind.EPISODIC.value
    kind_reason: str = ""
    protected: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "decision": self.decision, "score": round(self.score, 6),
                "factors": {k: round(v, 6) for k, v in self.factors.items()}, "stored": self.stored,
                "target": self.target, "nearest_cosine": None if self.nearest_cosine is None else round(self.nearest_cosine, 6),
                "nearest": self.nearest, "fact_change": self.fact_change, "reason": self.reason,
                "shadow": self.shadow, "kind": self.kind, "kind_given": self.kind_given,
                "inferred_kind": self.inferred_kind, "kind_reason": self.kind_reason, "protected": self.protected}


def _check_utility(values: Any, n: int) -> np.ndarray:
    """The caller's utilities as float32, shape (n,): real numbers in [0, 1] (no strings or bools,
    which NumPy would convert)."""
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None:
        try:
            items = list(values)
        except TypeError:
            raise InvalidInputError("utility(texts) must return n numbers in [0, 1]") from None
        if not all(isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) for x in items):
            raise InvalidInputError("utility(texts) must return n numbers in [0, 1], not strings or bools")
        values = items
    elif arr.dtype.kind not in "fiu":
        raise InvalidInputError(f"utility(texts) must return n numbers in [0, 1], got an array of {arr.dtype}")
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


def nearest_earlier(vecs: np.ndarray, block: int = NEAREST_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's most similar earlier candidate of the batch, by exact blocked products.

    Row ``i`` is compared with rows ``0 .. i-1`` only (the lower triangle of the Gram matrix
    ``V V^T``), in tiles of ``block`` x ``block``, so memory stays O(block^2) rather than
    O(n^2) and the upper triangle is never computed.

    Parameters
    ----------
    vecs : ndarray of float32, shape (n, dim)
        Unit vectors, so an inner product is a cosine.
    block : int
        Tile side, > 0.

    Returns
    -------
    j : ndarray of int64, shape (n,)
        Index of the earlier candidate with the largest cosine (the first such on ties, as
        ``np.argmax``); 0 for row 0, which has none.
    cos : ndarray of float32, shape (n,)
        That cosine; -1 for row 0.

    References
    ----------
    A-MAC (arXiv:2603.04549), semantic novelty; this module's docstring.
    """
    vecs = np.ascontiguousarray(vecs, np.float32)
    n = len(vecs)
    best_j = np.zeros(n, np.int64)
    best = np.full(n, -np.inf, np.float32)
    for i0 in range(0, n, block):
        i1 = min(i0 + block, n)
        rows = vecs[i0:i1]
        for j0 in range(0, i1 - 1, block):   # column tiles left to right: ties keep the first j
            j1 = min(j0 + block, i1 - 1)
            s = rows @ vecs[j0:j1].T
            if j1 > i0:   # a tile on the diagonal: only j < i counts
                s[np.arange(i0, i1)[:, None] <= np.arange(j0, j1)[None, :]] = -np.inf
            arg = s.argmax(axis=1)
            top = s[np.arange(i1 - i0), arg]
            better = top > best[i0:i1]
            best[i0:i1][better] = top[better]
            best_j[i0:i1][better] = arg[better] + j0
    return best_j, np.where(np.isfinite(best), best, np.float32(-1.0)).astype(np.float32)


def _with_protected(tags: tuple[str, ...]) -> tuple[str, ...]:
    """``tags`` with :data:`PROTECTED_TAG` after them (unchanged when there or full)."""
    return tags if PROTECTED_TAG in tags or len(tags) >= MAX_TAGS else (*tags, PROTECTED_TAG)


def admit_batch(state: EngineState, prepared: list[Prepared], *, namespace: str, now: float,
                record_now: float | None = None, shadow: bool | None = None, utility: Callable[[list[str]], Any] | None = None,
                config: "AdmissionConfig | None" = None,
                kind_given: Sequence[bool] | None = None) -> list[AdmissionDecision]:
    """See :meth:`Engram.admit_batch`. ``prepared`` are the candidates, validated and embedded
    by the engine (each with its vector); nothing is written before the decisions are made,
    then admissions, reinforcements and log entries commit in one write unit.

    Parameters
    ----------
    now : float
        Time admission's factors (recency) and the reinforcements' salience are computed at,
        Unix seconds.
    record_now : float, optional
        Record time of the write (the dynamics log's ``at``, edge times), Unix seconds: the
        clock, which ``now`` never replaces; ``now`` when omitted.
    kind_given : sequence of bool, optional
        Per candidate, whether its mapping named a ``kind`` (``prepare`` fills in ``episodic``
        otherwise, so the prepared kind alone cannot tell). When omitted, a prepared kind other
        than ``episodic`` counts as given and ``episodic`` as the default (so a caller's explicit
        ``"episodic"`` is then re-inferred).

    Raises
    ------
    InvalidInputError
        A candidate in another namespace, an id twice or already stored, a link to itself, a
        bad ``utility``, ``kind_given`` of the wrong length.
    MemoryNotFoundError
        A link to a memory that neither the store nor the batch holds (checked for every
        candidate, whatever admission decides).
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
    if kind_given is None:
        given = [p.kind is not MemoryKind.EPISODIC for p in prepared]
    else:
        given = [bool(g) for g in kind_given]
        if len(given) != n:
            raise InvalidInputError(f"kind_given holds {count(len(given), 'flag')} for {count(n, 'candidate')}")
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
        # every candidate's links, whatever admission decides (as add_batch checks them)
        for p in prepared:
            for to, _rel, _w in p.links:
                if to == p.ext_id:
                    raise InvalidInputError(f"candidate {p.ext_id!r}: cannot link memory {to!r} to itself")
                if to not in seen and state.store.lookup_id(txn, namespace, to) is None:
                    raise MemoryNotFoundError(
                        f"link from {p.ext_id!r} to {to!r}: no memory {to!r} in namespace {namespace!r} "
                        "(a link names a stored memory or a candidate of the same batch)")
    texts = [p.text for p in prepared]
    # kinds: the caller's when given, else the one the text states; chatter is "phatic"
    inferred = [infer_kind(t) for t in texts]
    chatter = np.array([k == PHATIC_KIND for k, _ in inferred])
    kinds = []
    for p, g, (k, _) in zip(prepared, given, inferred):
        if not g and cfg.infer_kind and k != PHATIC_KIND:
            p.kind = MemoryKind(k)
        kinds.append(p.kind.value if g or k != PHATIC_KIND or not cfg.reject_phatic else PHATIC_KIND)
    phatic_rule = chatter & ~np.array(given, np.bool_) if cfg.reject_phatic else np.zeros(n, np.bool_)
    protect = [protected_category(t, k) if cfg.protect else (None, "") for t, (k, _) in zip(texts, inferred)]
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
        labels, cos = index.knn_batch_exact(vecs, k, ef=max(cfg.novelty_ef, k))   # (logged: the same on any machine)
        if c.censor is not None and c.blocked[labels].any():   # a hidden memory is not there for
            hid = c.blocked[labels]                             # admission (never named, never a target)
            c.censor.kept_out(np.unique(labels[hid]))
            order = np.argsort(-np.where(hid, -2.0, cos), axis=1, kind="stable")
            labels, cos = np.take_along_axis(labels, order, 1), np.take_along_axis(cos, order, 1)
            cos = np.where(c.blocked[labels], np.float32(-1.0), cos)
        cos_store = cos[:, 0].astype(np.float32)
        near_nid = labels[:, 0].astype(np.int64)
        active = (c.state[labels] == _STATE_CODES[MemoryState.ACTIVE]) & c.alive[labels] & ~c.blocked[labels]
        rows = np.flatnonzero(active.any(axis=1))
        first = active[rows].argmax(axis=1)   # the nearest active one of each row
        dup_nid[rows], dup_cos[rows] = labels[rows, first], cos[rows, first]
    # earlier candidates of the batch
    batch_j, cos_batch = nearest_earlier(vecs)
    cos_batch[1:] = exact_cosines(vecs[1:], vecs[batch_j[1:]])   # logged: the same on any machine

    stored_text: dict[int, str] = {}
    dups = sorted(set(dup_nid[(dup_nid >= 0) & (dup_cos >= cfg.duplicate_cosine)].tolist()))
    for nid, rec in zip(dups, state.records(dups, "reading near-duplicates")):
        stored_text[nid] = rec["text"]
    # a near-duplicate that changes a number, date, name or negation of the memory it is near to
    # (stored, or an earlier candidate) is kept apart from it: what it says is new, and its
    # novelty is 1 (its cosine to the memory it corrects made it look redundant, and the
    # correction was rejected while the outdated value stayed)
    # each candidate's nearest near-duplicate: "store" (a stored memory), "batch" (an earlier
    # candidate) or None; chatter is rejected before any duplicate check
    dup_of: list[str | None] = [None] * n
    change_of: list[str | None] = [None] * n
    for i, p in enumerate(prepared):
        batch_dup = n > 1 and i > 0 and cos_batch[i] >= cfg.duplicate_cosine
        store_dup = dup_nid[i] >= 0 and dup_cos[i] >= cfg.duplicate_cosine
        if phatic_rule[i]:
            continue
        if store_dup and (not batch_dup or dup_cos[i] >= cos_batch[i]):
            dup_of[i] = "store"
            change_of[i] = fact_change(p.text, stored_text[int(dup_nid[i])])
        elif batch_dup:
            dup_of[i] = "batch"
            change_of[i] = fact_change(p.text, prepared[int(batch_j[i])].text)

    conf = np.array([p.confidence * (HEDGE_PENALTY if hedged(p.text) else 1.0) for p in prepared], np.float32)
    novelty = np.clip(1.0 - np.maximum(cos_store, cos_batch), 0.0, 1.0).astype(np.float32)
    novelty[[i for i, ch in enumerate(change_of) if ch is not None]] = 1.0
    age = np.maximum(now - np.array([p.created_at for p in prepared], np.float64), 0.0)
    recency = np.exp2(-age / cfg.recency_half_life_s).astype(np.float32)
    prior = cfg.type_prior_by_code[np.array([p.kind.code for p in prepared], np.intp)].copy()
    phatic = np.array([is_phatic(t) for t in texts])
    if cfg.infer_kind:   # infer_kind's finer rules: chatter it finds, no cap where it finds a fact
        phatic = chatter | (phatic & np.array([k != MemoryKind.SEMANTIC.value for k, _ in inferred]))
    prior[phatic] = np.minimum(prior[phatic], np.float32(PHATIC_PRIOR))
    features = np.ascontiguousarray(np.stack([u, conf, novelty, recency, prior], axis=1), dtype=np.float32)
    score, admit = registry.get("admission_score")(features, cfg.weights, float(cfg.threshold))

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
                              nearest=near, shadow=shadow, kind=kinds[i], kind_given=given[i],
                              inferred_kind=inferred[i][0], kind_reason=inferred[i][1], protected=protect[i][0])
        change = change_of[i]
        if phatic_rule[i]:   # chatter: rejected whatever its score, before any duplicate check
            d.reason = (f"phatic: {inferred[i][1]}; no fact to keep (score {float(score[i]):.3f}, "
                        f"threshold {cfg.threshold:g}, not used)")
        elif dup_of[i] == "store":
            nid = int(dup_nid[i])
            if change is None:
                d.decision, d.target = "reinforce", c.ext_ids[nid]
                d.reason = f"near-duplicate (cosine {float(dup_cos[i]):.3f}) of stored memory {d.target!r}"
                stored_counts[nid] = stored_counts.get(nid, 0) + 1
        elif dup_of[i] == "batch":
            j = int(batch_j[i])
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
    # a reinforced candidate's fact is its target's: a protected one protects the target (a
    # candidate of the batch, or a stored memory), and its links start there (as add() of a
    # text already stored links the stored memory)
    protect = set() if shadow else {d.target for d in decisions if d.decision == "reinforce" and d.protected}
    for p, d in zip(prepared, decisions):
        d.stored = id(p) in added
        if d.stored and (d.protected or p.ext_id in protect):
            p.tags = _with_protected(p.tags)
    protect_stored = protect - {p.ext_id for p in to_add}
    carried: list[tuple[str, str, Any, float | None]] = []
    if not shadow:
        holder = {p.ext_id: p.ext_id if d.decision == "admit" else d.target
                  for p, d in zip(prepared, decisions) if d.decision in ("admit", "reinforce")}
        for p, d in zip(prepared, decisions):
            if d.decision not in ("admit", "reinforce") or not p.links:
                continue
            src = holder[p.ext_id]
            kept, left_out = [], []
            for to, rel, w in p.links:
                dest = holder.get(to) if to in seen else to   # a candidate: the memory holding its text
                if dest is None or dest == src:   # a rejected candidate, or its own text
                    left_out.append(to)
                elif d.decision == "admit":
                    kept.append((dest, rel, w))
                else:
                    carried.append((src, dest, rel, w))
            if d.decision == "admit":
                p.links = kept
            if left_out:
                d.reason += (f"; its {count(len(left_out), 'link')} to {', '.join(map(repr, left_out))} "
                             "left out (not admitted)")
    logs = [{"action": "admission_shadow" if shadow else f"admission_{d.decision}", "namespace": namespace,
             "id": d.id, "decision": d.decision, "score": d.score, "factors": d.factors, "target": d.target,
             "fact_change": d.fact_change, "reason": d.reason, "text": prepared[d.index].text,
             "tags": list(prepared[d.index].tags),
             "kind": d.kind, "kind_reason": d.kind_reason, "protected": d.protected}
            for d in decisions]   # every decision, admits included (README: dynamics_log)

    new_nid = {p.ext_id: p for p in to_add}   # their nids are set when the unit allocates them

    def nid_of(unit, ext_id: str) -> int:
        q = new_nid.get(ext_id)
        return q.nid if q is not None else unit.lookup(namespace, ext_id)

    def in_unit(unit):
        reinforce(unit, stored_counts, rate)
        for ext_id in sorted(protect_stored):
            nid = unit.lookup(namespace, ext_id)
            rec = unit.record(nid)
            tags = tuple(rec.get("tags") or ())
            if _with_protected(tags) != tags:
                unit.put_record(nid, {**rec, "tags": list(_with_protected(tags))})
        rows = []
        scale = state.config.link.contiguity_words
        text = {q.nid: q.text for q in to_add}
        for src, dest, rel, w in carried:
            a, b = nid_of(unit, src), nid_of(unit, dest)
            if w is None:   # as for a new memory's link: contiguity for `next`, else 1
                w = default_weight(rel, text.get(a) or unit.record(a)["text"], text.get(b) or unit.record(b)["text"],
                                   scale)
            rows.append((a, b, rel.code, w))
        unit.log(logs)
        return rows

    record_now = now if record_now is None else record_now
    if to_add:   # the add path: slots resolve as in add_batch (a new single value supersedes)
        write_new(state, to_add, record_now, what="admitting memories", verb="admit_batch", extra=in_unit, at=now)
    elif stored_counts or logs:
        with write_unit(state, "admission: reinforcing duplicates", record_now, verb="admit_batch", at=now) as unit:
            unit.add_edges(in_unit(unit))
    return decisions
