"""Consolidation ("sleep"): merge near-duplicates, summarise old sessions, promote repeated facts.

One pass over a namespace (DESIGN.md "Memory dynamics", consolidation), written in one write unit
per namespace with one dynamics-log entry per action:

1. **Merge** (``consolidate_merge``): active non-episodic memories (facts, procedures, promoted
   facts; not entity, session or summary nodes, nor a long memory stored in pieces or any of
   its pieces) whose cosine is at least
   ``ConsolidationConfig.duplicate_cosine`` form clusters (union-find over k-NN pairs); the
   best-worded member (most distinct content words, then confidence, then the newest) is kept
   and each other member is superseded by it (``supersedes`` edge, kept for the audit trail).
   The kept member takes on the tags of the members it replaces (after its own, up to
   ``validate.MAX_TAGS``): a merged ``protected`` fact stays protected from forgetting, and a
   tag filter that found a member finds the kept one. Only prose merges: a memory whose text is
   structured data (a JSON object or array, as a LangGraph store's items are) is a record
   addressed by its id, and two records near in cosine may differ in the one value that
   matters (``{"timeout": 30}``, ``{"timeout": 60}``), so none is merged.
   Episodes are not merged: two turns worded alike are two events.
2. **Summaries** (``consolidate_summary``): each session node (a memory tagged ``session``, as
   :meth:`Engram.add_conversation` makes them) that holds two turns or more, whose newest turn
   is older than ``now - summary_age_s`` and that has no summary yet gets a semantic memory
   ``sum:<session id>`` tagged ``summary``. A session that has grown since its summary (a turn
   newer than the summary's event time; messages join stored sessions) gets a new summary
   ``sum:<session id>@<turns>`` that supersedes the old one, as does a session one of whose
   summarised turns was superseded since by another of its turns (an edited message:
   ``@<turns>-<n>`` when that id is taken; a turn superseded from outside the session, by a
   later statement or a promoted fact, leaves the summary as it is) (none when the summary would be a
   copy of one of its turns: a short session's one picked sentence may be a whole message). The text: its most central prose
   sentences (:func:`engramdb.sentences.prose_sentences`: no code, nor an assistant's list items,
   headings and quotes) picked by maximal marginal
   relevance (Carbonell & Goldstein 1998) against the session's centroid, in
   conversation order, or the text of a ``summarizer(texts) -> str`` callable. It has an
   ``extracted_from`` edge to every turn of the session and to the session node, so activation
   spreads from the summary to its turns.
3. **Facts** (``consolidate_fact``): turns of different sessions whose cosine is at least
   ``fact_cosine``, sharing content words, and not giving one quantity two values (a number
   before the same word: "lisinopril 5 mg" and "lisinopril 10 mg" are two things, and the dose
   that holds is the conflict check's to settle) restate one thing; a cluster spanning
   ``fact_min_sessions`` sessions is promoted to a semantic memory ``fact:<digest of its
   members>`` tagged ``fact`` (text: the sentence of its newest turn nearest the cluster's
   centroid, with the turn's speaker: one statement, not a whole answer; the newest, as last
   said; only a sentence that states something counts, as
   :func:`engramdb.kinds.states_a_fact` judges it: a question, a hedge or a piece
   of advice asked or given in every session is no fact, and a cluster of nothing else is not
   promoted; nor is the layout of an assistant's reply, its list items, headings and quotes,
   nor a cluster of an assistant's turns only: a plan or an option it repeats is no fact), with
   an ``evidence_for`` edge from each member; tagged ``protected`` too when a
   member is (a health fact said in a chat, :meth:`Engram.add_conversation`). A new fact whose
   turns were evidence for live facts made of fewer restatements (restated again in a later
   session) supersedes them: a fact is one memory; a cluster whose every turn already supports
   one live fact (one of its turns forgotten or archived since) makes none, nor does one holding two
   turns the write path linked ``contradicts`` (a value and its change). Being semantic, it decays
   with the semantic half-life (``DecayConfig.half_life_s``) instead of the episodic one. Its
   write never reads it as changing one of its own turns (``Prepared.made_from``): its words are
   theirs. Summaries and facts fill no slot: a slot extractor would give them their turns' slot
   (``prepare(derived=True)``), and they would compete with those very turns.
4. **Outdated facts** (``consolidate_outdated``): a live fact one of whose turns a later user
   turn is linked to as a change (``contradicts``, or ``supersedes``: a slot's new value, an
   edit), that turn changing what the fact itself says (another employer or home, a negation,
   another number: :func:`_bears_on`), is superseded by the first such turn (or by what
   superseded that turn since), its ``valid_to`` when the change was said
   (:func:`_changed_by`); its turns stay as they were said. A cluster so changed already when
   the pass runs is not promoted.

Pairs: both clusterings compare by exact cosine over their candidates only (an approximate
search over the namespace would see what a pass adds). The first pass compares every pair,
O(n^2); later passes, in this process or another (the lists are saved beside the index), compare
what is new or changed since (:mod:`engramdb.dynamics.pairs`, ``benchmarks/bench_consolidate.py``).

Idempotent: the summary and fact ids are functions of their sources, and what exists already is
skipped; merged and superseded memories are no longer active. A second pass at the same ``now`` writes nothing.

Times: ``now`` decides which sessions are old (the dynamics); what a pass writes is recorded at
the engine's clock, as every write is: the summaries' and facts' ``recorded_at``, the
``retired_at`` of the memories a merge or a new summary supersedes, edge and log times. So a
pass with a ``now`` ahead of the clock (a simulation) leaves nothing dated in the future, and
``as_of`` the present shows what it wrote.

References
----------
Carbonell & Goldstein (1998), "The use of MMR, diversity-based reranking for reordering
documents and producing summaries", SIGIR, section 2 (MMR) and 4 (summaries); McClelland,
McNaughton & O'Reilly (1995), complementary learning systems (episodic -> semantic);
Park et al. (2023), Generative Agents, arXiv:2304.03442, section 4.2 (reflection over memories).
"""
from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Callable

import numpy as np

from ..batch_plan import piece_ids, whole_record
from ..config import ConsolidationConfig
from ..entities import _COMMON as _FILLERS
from ..facts import conflict, fact_signature, quantity_clash, tokens, without_reminder
from ..speakers import LABEL as _SPEAKER, labelled
from ..changes import changes_value
from ..standing import changes_standing
from ..timeref import resolve_time_refs
from ..index.stopwords import ENGLISH_STOP_WORDS
from ..index.tokens import tokenize
from ..sentences import prose_sentences, several_sentences
from ..progress import track
from ..state import EngineState
from ..types import GENERATED_TAGS, KIND_BY_CODE, PROTECTED_TAG, MemoryKind, MemoryState, Relation, _STATE_CODES
from ..write.records import embed_missing, prepare, write_new
from ..kinds import past_event_verb, states_a_fact
from .pairs import pairs_for
from ..validate import MAX_TAGS, check_text, is_blank, now as clock_now
from ..wording import count
from .. import slots as _slots

__all__ = ["ACTIONS", "consolidate", "mmr_select"]

#: Dynamics-log actions of consolidation.
ACTIONS = ("consolidate_merge", "consolidate_summary", "consolidate_fact", "consolidate_outdated")

_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]
_SUPERSEDED = _STATE_CODES[MemoryState.SUPERSEDED]
_EPISODIC = MemoryKind.EPISODIC.code
_STOP = frozenset(ENGLISH_STOP_WORDS) | _FILLERS


def _subject(subject: str | None) -> str | None:
    """A slot subject as stored now (:func:`engramdb.slots.canonical_subject`), None kept."""
    return None if subject is None else _slots.canonical_subject(subject)


def mmr_select(vectors: np.ndarray, m: int, lam: float, prior: np.ndarray | None = None) -> list[int]:
    """Pick ``m`` rows by maximal marginal relevance against the centroid.

    score_i = lam * (cos(v_i, centroid) + prior_i) - (1 - lam) * max_{j picked} cos(v_i, v_j).

    Parameters
    ----------
    vectors : ndarray of float32, shape (n, dim)
        Unit vectors (cosine space).
    m : int
        How many to pick (at most n).
    lam : float
        In [0, 1]; 1 = centrality only.
    prior : ndarray of float, shape (n,), optional
        Added to each row's centrality (default 0): what a row is worth besides being typical.

    Returns
    -------
    list of int
        Picked row indices, in pick order.

    References
    ----------
    Carbonell & Goldstein (1998), SIGIR, section 2, equation 1 (the query is the centroid here).
    """
    n = len(vectors)
    if n == 0 or m <= 0:
        return []
    centroid = vectors.mean(axis=0)
    norm = float(np.linalg.norm(centroid))
    rel = vectors @ (centroid / norm) if norm > 0 else np.zeros(n, np.float32)
    if prior is not None:
        rel = rel + prior
    sim = vectors @ vectors.T
    picked: list[int] = []
    red = np.full(n, -np.inf)
    for _ in range(min(m, n)):
        score = lam * rel - (1.0 - lam) * np.where(np.isfinite(red), red, 0.0)
        score[picked] = -np.inf
        i = int(np.argmax(score))
        picked.append(i)
        red = np.maximum(red, sim[i])
    return picked


def _quotes_an_edit(csr, c, summary: int, turns: list[int]) -> bool:
    """Whether summary node ``summary`` was made from a turn (its ``extracted_from`` targets)
    that is superseded now by one of the session's ``turns`` (nids): an edit of a message
    replaced what the summary may quote, and the session reads otherwise. A turn superseded from
    outside the session (a later statement that changed its value, a fact a pass promoted) is
    no reason, as an archived one (faded, or forgotten) is not: the session said it, and
    outliving its turns is what a summary is for."""
    a, b = int(csr.indptr[summary]), int(csr.indptr[summary + 1])
    rel, nb, fwd = csr.relation[a:b], csr.indices[a:b], csr.forward[a:b]
    targets = nb[(rel == Relation.EXTRACTED_FROM.code) & (fwd == 1)]
    targets = targets[c.state[targets] == _SUPERSEDED]
    if not len(targets):
        return False
    inside, sup = set(turns), Relation.SUPERSEDES.code
    for t in targets.tolist():
        a, b = int(csr.indptr[t]), int(csr.indptr[t + 1])
        by = csr.indices[a:b][(csr.relation[a:b] == sup) & (csr.forward[a:b] == 0)]
        if any(int(x) in inside for x in by):
            return True
    return False


def _content_set(text: str) -> set[str]:
    """Content words of ``text`` (its tokens without a "Speaker: " prefix, stop words, fillers
    and tokens shorter than 3 characters)."""
    m = _SPEAKER.match(text)
    body = text[m.end():] if m else text
    return {w for w in tokenize(body) if len(w) >= 3 and w not in _STOP}


def _statements(turn: str) -> tuple[str | None, list[str]]:
    """The speaker of ``turn`` (its ``"Speaker: "``, or None) and its prose sentences that state
    something (:func:`engramdb.kinds.states_a_fact`: no question, hedge, suggestion
    or chatter)."""
    m = _SPEAKER.match(turn)
    who, body = (m.group(1), turn[m.end():]) if m else (None, turn)
    return who, [x for x in _prose(who, body) if states_a_fact(x)]


def _said_by_assistant(turn: str) -> bool:
    """Whether ``turn`` opens with the chat label ``"assistant: "``."""
    m = _SPEAKER.match(turn)
    return m is not None and m.group(1).lower() == "assistant"


def _prose(who: str | None, body: str) -> list[str]:
    """The prose sentences of a turn's ``body`` (:func:`engramdb.sentences.prose_sentences`); of
    an assistant's, without its layout (list items, headings, quotes): its options ("1. Another
    restaurant in Salem with a private room"), plan steps and list titles are no statement of
    what holds, nor what a session said."""
    return prose_sentences(body, lists=who is None or who.lower() != "assistant")


def _fact_text(turn: str, member_vecs: np.ndarray, embed: Callable) -> str | None:
    """The statement a fact keeps: of the sentences of ``turn`` that state something
    (:func:`_statements`), the one nearest the centroid of its cluster's turn vectors
    (``member_vecs``, unit float32 rows), with the turn's ``"Speaker: "``; None when the turn
    states nothing (a question or a piece of advice repeated is no fact), or only what happened
    on a day or in a week it names (:func:`_one_off`)."""
    who, sents = _statements(turn)
    sents = [x for x in sents if not _one_off(x)]
    if not sents:
        return None
    if len(sents) == 1:
        best = sents[0]
    else:
        svec = np.asarray(embed(sents), np.float32)
        best = sents[int(np.argmax(svec @ member_vecs.mean(axis=0)))]
    best = without_reminder(best)   # "Remember, I take 5 mg ..." states "I take 5 mg ..."
    return f"{who}: {best}" if who else best


#: The grains of a time expression that date one occasion ("yesterday", "last weekend", "on
#: March 3", "two weeks ago"): a statement naming one tells an episode, not what holds.
_OCCASION = frozenset({"day", "weekend", "week"})
#: Verbs of a change of state that holds after it ("I stopped eating gluten last week", "I
#: quit smoking", "we relocated to Austin"): no episode, whatever day it names.
_STATE_CHANGES = frozenset(
    "started start began begun stopped quit moved relocated adopted married engaged divorced separated retired "
    "graduated joined switched became hired promoted diagnosed".split())
#: Of those, the ones that change a state only before these words ("I started a new job", "I
#: started taking 10 mg", "we moved to Austin"; not "the meeting started late", "we moved the
#: couch"); a word ending in "ing" counts too.
_ONSET_BEFORE = {"started": "a an my our new to working", "start": "a an my our new to working",
                 "began": "a an my our new to working", "begun": "a an my our new to working",
                 "moved": "to into in back here there away out abroad home", "relocated": "to back here there"}
_ONSET_BEFORE = {k: frozenset(v.split()) for k, v in _ONSET_BEFORE.items()}
#: Words after "got" / "was" / "were" that make a change of state ("I got engaged yesterday").
_STATE_AFTER = frozenset("engaged married divorced hired promoted diagnosed pregnant fired laid adopted".split())


def _state_change(sentence: str) -> str | None:
    """The verb of the past event ``sentence`` reports (:func:`engramdb.kinds.past_event_verb`)
    when it changes a state that holds after it (:data:`_STATE_CHANGES`, :data:`_ONSET_BEFORE`,
    :data:`_STATE_AFTER`), else None."""
    verb = past_event_verb(sentence)
    if verb is None:
        return None
    words = [w.lower() for w in tokens(sentence)]
    at = words.index(verb) if verb in words else -1
    nxt = words[at + 1] if 0 <= at < len(words) - 1 else ""
    if verb in _ONSET_BEFORE:
        return verb if nxt in _ONSET_BEFORE[verb] or (len(nxt) > 4 and nxt.endswith("ing")) else None
    if verb in _STATE_CHANGES or nxt in _STATE_AFTER:
        return verb
    return None


def _one_off(sentence: str) -> bool:
    """Whether ``sentence`` reports what happened (:func:`engramdb.kinds.past_event_verb`)
    on a day or in a week it names (:func:`engramdb.timeref.resolve_time_refs`, :data:`_OCCASION`),
    and no change of state (:func:`_state_change`): "Pixel chewed my running shoes yesterday"
    and "The meeting started late yesterday" are episodes, no fact that holds. "I stopped eating
    gluten last week", "My appointment is on October 14", "I graduated in 2015" and "I go
    climbing every Monday" are facts."""
    return (past_event_verb(sentence) is not None and _state_change(sentence) is None
            and any(w.precision in _OCCASION for w in resolve_time_refs(sentence, 0.0)))


def _tells_other_events(text: str, members: list[int], recs: dict[int, dict]) -> bool:
    """Whether a fact worded ``text``, of cluster ``members`` (nids; ``recs`` their records),
    would join different events, or an episode told again: ``text`` reports a past event (its
    verb, :func:`engramdb.kinds.past_event_verb`) that a member tells in none of its
    statements, by that verb or, for a change of state, by any verb of one (:func:`_state_change`:
    "I quit smoking" / "I stopped smoking"): "We adopted a beagle named Pixel last weekend" and
    "Pixel chewed my running shoes yesterday"; or that one of its tellings dates to a day or a
    week (:func:`_one_off`: "As I said, my car broke down ..." after "Yesterday my car broke
    down ...")."""
    verb = past_event_verb(text)
    if verb is None:
        return False
    change = _state_change(text) is not None
    for m in members:
        tellings = [x for x in _statements(recs[m]["text"])[1]
                    if verb in (words := {w.lower() for w in tokens(x)})
                    or (change and (_state_change(x) is not None or not _STATE_CHANGES.isdisjoint(words)))]
        if not tellings or any(_one_off(x) for x in tellings):
            return True
    return False


def _disputed(csr, members: list[int]) -> bool:
    """Whether two of ``members`` (turn nids) are joined by a ``contradicts`` edge: the write path
    read one as changing what the other says ("My rent is $1,450" and "The rent goes up to $1,600
    from April 1st."), so together they restate nothing."""
    inside = set(members)
    code = Relation.CONTRADICTS.code
    for m in members:
        if m >= csr.n_nodes:
            continue
        a, b = int(csr.indptr[m]), int(csr.indptr[m + 1])
        if any(int(t) in inside for t, r in zip(csr.indices[a:b], csr.relation[a:b]) if r == code):
            return True
    return False


def _facts_of(csr, turn: int, tagged: dict[int, set[str]]) -> set[int]:
    """The live facts ``turn`` is evidence for (``turn -[evidence_for]-> fact``; ``tagged``
    holds the namespace's active memories' tags)."""
    a, b = int(csr.indptr[turn]), int(csr.indptr[turn + 1])
    rel, nb, fwd = csr.relation[a:b], csr.indices[a:b], csr.forward[a:b]
    return {int(t) for t, r, f in zip(nb, rel, fwd)
            if r == Relation.EVIDENCE_FOR.code and f and "fact" in tagged.get(int(t), ())}


def _outdated_facts(csr, c, recs: dict[int, dict], tagged: dict[int, set[str]],
                    retired: set[int]) -> list[tuple[int, float, int, int]]:
    """Live facts that a later statement changed (:func:`_changed_by`), each with the first such
    statement: (fact nid, when the change was said, its nid, the live memory that says it now). A
    fact a new fact of this pass supersedes (``retired``) is left to that."""
    code = Relation.EVIDENCE_FOR.code
    found = []
    for fact in sorted(nid for nid, tags in tagged.items() if "fact" in tags and nid not in retired):
        if fact >= csr.n_nodes:
            continue
        a, b = int(csr.indptr[fact]), int(csr.indptr[fact + 1])
        turns = [int(t) for t, r, f in zip(csr.indices[a:b].tolist(), csr.relation[a:b].tolist(),
                                           csr.forward[a:b].tolist()) if r == code and not f]
        by = _changed_by(csr, c, recs, tagged, turns, recs[fact]["text"]) if turns else None
        if by is not None:
            found.append((fact, *by))
    return found


def _changed_by(csr, c, recs: dict[int, dict], tagged: dict[int, set[str]], turns: list[int],
                text: str) -> tuple[float, int, int] | None:
    """The first statement that changes what ``turns`` (a fact's evidence, worded ``text``) say:
    (when it was said, Unix seconds; its nid; the live memory that says it now: itself, or what
    superseded it since), or None.

    A fact is what its turns say. A turn said after the newest of them, by the user (not an
    assistant's echo, a summary or a fact), that the write path linked to one of them as a change
    (``contradicts``, or ``supersedes``: a slot's new value, an edit), and that changes what the
    fact itself says (:func:`_bears_on`: the turn may have said other things too), means the fact
    no longer holds: "I work as a data engineer at Initech", restated in two sessions, after "I
    started a new job as a senior analyst at Globex". Such a cluster is no fact to promote, and
    a promoted fact is superseded by the change, from when it was said; the turns stay as they
    are (they are what was said then)."""
    contradicts, supersedes = Relation.CONTRADICTS.code, Relation.SUPERSEDES.code
    said = max(float(c.valid_from[t]) for t in turns)
    inside = set(turns)
    changes = []
    for t in turns:
        if t >= csr.n_nodes:
            continue
        lo, hi = int(csr.indptr[t]), int(csr.indptr[t + 1])
        for x, r, f in zip(csr.indices[lo:hi].tolist(), csr.relation[lo:hi].tolist(), csr.forward[lo:hi].tolist()):
            if (r != contradicts and (r != supersedes or f)) or x in inside or float(c.valid_from[x]) <= said:
                continue
            # the change as it stands now: itself, or what superseded it since (the same value
            # said again, with a slot; an edit, which may take the change back)
            head = x if x in tagged else _live_successor(csr, tagged, x)
            if (head is None or tagged[head] & GENERATED_TAGS or _said_by_assistant(recs[head]["text"])
                    or not _bears_on(recs[head]["text"], text)):
                continue
            changes.append((float(c.valid_from[x]), x, head))
    return min(changes) if changes else None


def _live_successor(csr, tagged: dict[int, set[str]], nid: int) -> int | None:
    """The live memory that superseded ``nid`` (over a chain of ``supersedes``, the latest
    successor at each step), or None."""
    code = Relation.SUPERSEDES.code
    seen = {nid}
    while nid not in tagged:
        if nid >= csr.n_nodes or len(seen) > 64:
            return None
        lo, hi = int(csr.indptr[nid]), int(csr.indptr[nid + 1])
        succ = [int(v) for v, r, f in zip(csr.indices[lo:hi].tolist(), csr.relation[lo:hi].tolist(),
                                          csr.forward[lo:hi].tolist()) if r == code and not f]
        if not succ or max(succ) in seen:
            return None
        nid = max(succ)
        seen.add(nid)
    return nid


def _bears_on(change: str, fact: str) -> bool:
    """Whether ``change`` changes what ``fact`` says: another home or employer
    (:func:`engramdb.standing.changes_standing`), a report that its value changed ("My doctor
    raised my lisinopril to 20 mg": :func:`engramdb.changes.changes_value`), or a negation or
    another number of it
    (:func:`engramdb.facts.conflict`, over the whole turn and over each of its sentences, each
    with the turn's speaker label). A second value in the same words ("value": a second email
    address?) or another report of a past event is no change of a fact; nor is what the turn
    says of something else ("I moved to Denver" against a fact of the dog's name, though the
    write path linked the turns, which said both)."""
    if changes_standing(change, fact) or changes_value(change, fact):
        return True   # (another home or employer; a report of a changed value, "My doctor raised my lisinopril to 20 mg")
    split = several_sentences(change)
    for x in (change, *(labelled(change, split) if split else ())):
        if conflict(x, fact) in ("negation", "number"):
            return True
    return False


def _in_pieces(rec: dict) -> bool:
    """Whether ``rec`` is a piece (``chunk_of``) or the first piece of a memory stored in pieces
    (``chunks``, a split message's ``blocks``): :mod:`engramdb.batch_plan`."""
    return rec.get("chunk_of") is not None or bool(piece_ids(rec))


def _content_words(text: str) -> int:
    return len(_content_set(text))


class _UnionFind:
    def __init__(self, n: int):
        self.p = list(range(n))

    def find(self, a: int) -> int:
        while self.p[a] != a:
            self.p[a] = self.p[self.p[a]]
            a = self.p[a]
        return a

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[max(ra, rb)] = min(ra, rb)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(self.p)):
            out.setdefault(self.find(i), []).append(i)
        return [g for g in out.values() if len(g) > 1]


def consolidate(state: EngineState, now: float, *, namespaces: list[str], embed: Callable | None,
                config: ConsolidationConfig, summarizer: Callable[[list[str]], str] | None = None,
                progress: bool = False) -> dict[str, Any]:
    """Run one consolidation pass over ``namespaces``; see the module docstring.

    Parameters
    ----------
    state : EngineState
    now : float
        Unix seconds deciding which sessions are old; never a record time (what the pass writes
        is recorded at the engine's clock, see the module docstring).
    namespaces : list of str
    embed : callable list of str -> ndarray of float32 (n, dim), or None
        Embeds summary sentences and new memories; None uses the turns' stored vectors for
        sentences (and new memories then need an embedder: summaries and facts are skipped).
    config : ConsolidationConfig
    summarizer : callable list of str -> str, optional
        Replaces the extractive summary: gets the session's turn texts in order.
    progress : bool
        A rich progress bar over namespaces.

    Returns
    -------
    dict
        ``merged``, ``summaries``, ``facts``, ``outdated``, ``edges`` (added), ``sessions_recent`` (sessions of
        two or more turns and no summary, left so because a turn's event time is later than
        ``now - summary_age_s``), ``namespaces``, ``now``, ``seconds``.
    """
    t_start = time.perf_counter()
    record_now = clock_now()   # the record time of what the pass writes; now is its dynamics time
    total = {"merged": 0, "summaries": 0, "facts": 0, "outdated": 0, "edges": 0, "sessions_recent": 0}
    steps = namespaces
    if progress:
        steps = track(namespaces, "consolidating", len(namespaces))
    # every namespace is planned (read, summarized, embedded, checked) before the first is
    # written: a summarizer answer refused in the last one leaves the first ones unchanged too
    writes = [_plan_namespace(state, ns, now, record_now, embed, config, summarizer) for ns in steps]
    for write in writes:
        out = write()
        for key in total:
            total[key] += out[key]
    return {**total, "namespaces": len(namespaces), "now": float(now),
            "seconds": round(time.perf_counter() - t_start, 6)}


def _specific(sentence: str) -> float:
    """How much ``sentence`` names, in [0, 1]: its numbers, dates and names (capitalised words
    past its first, :func:`engramdb.facts.fact_signature`), two or more counting 1. "We adopted a
    beagle mix named Pixel!" names Pixel; "Chew toys help a lot." and "Good morning by the way"
    name nothing, however typical of their session they are."""
    body = _SPEAKER.sub("", sentence, count=1)
    words = body.split(None, 1)
    sig = fact_signature(words[1] if len(words) > 1 else "")
    return min(len(sig["number"]) + len(sig["date"]) + len(sig["name"]), 2) / 2.0


def _structured(text: str) -> bool:
    """Whether ``text`` is structured data, a JSON object or array (a record, not prose)."""
    t = text.strip()
    if not t or t[0] not in "{[" or t[-1] not in "}]":
        return False
    try:
        return isinstance(json.loads(t), (dict, list))
    except RecursionError:   # nested deeper than the parser goes: structured all the same
        return True
    except ValueError:
        return False


def _plan_namespace(state: EngineState, ns: str, now: float, record_now: float, embed,
                    cfg: ConsolidationConfig, summarizer) -> Callable[[], dict[str, int]]:
    """Plan one namespace's consolidation (nothing is written; every new memory prepared and
    embedded, so a bad summarizer answer raises here); returns the call that writes it (one
    write unit) and gives its counts. ``now`` is the pass's dynamics time, ``record_now`` the
    record time of what it writes (Unix seconds)."""
    out = {"merged": 0, "summaries": 0, "facts": 0, "outdated": 0, "edges": 0, "sessions_recent": 0}
    space = state.space(ns)
    if space is None or space.index is None or len(space.index) == 0:
        return lambda: out
    c = state.cols
    n = c.n
    # a memory a censor rule hides is no input: its text must not reach a summary or a fact
    live = np.flatnonzero(c.alive[:n] & (c.ns[:n] == space.code) & (c.state[:n] == _ACTIVE) & ~c.blocked[:n])
    if not len(live):   # every memory forgotten, faded or hidden: nothing to consolidate
        return lambda: out
    recs = dict(zip(live.tolist(), state.records(live.tolist(), "reading memories to consolidate")))
    long = [nid for nid, rec in recs.items() if rec is not None and rec.get("chunks")]
    if long:   # a message stored in pieces is read whole: a fact or summary may come from any part
        with state.store.read("reading long memories to consolidate") as txn:
            read_piece = state.piece_reader(txn, ns)
            for nid in long:
                recs[nid] = whole_record(recs[nid], read_piece, state.config.store.chunk_chars // 10)
    tagged = {nid: set(rec.get("tags") or ()) for nid, rec in recs.items() if rec is not None}
    csr = state.recall_csr()   # without the edges of hidden memories

    # sessions and their turns (turn -[discussed_in]-> session)
    sessions: dict[int, list[int]] = {}
    for nid, tags in tagged.items():
        if "session" in tags:
            a, b = int(csr.indptr[nid]), int(csr.indptr[nid + 1])
            rel, nb, fwd = csr.relation[a:b], csr.indices[a:b], csr.forward[a:b]
            turns = [int(t) for t, r, f in zip(nb, rel, fwd)
                     if r == Relation.DISCUSSED_IN.code and not f and int(t) in tagged
                     and not (tagged[int(t)] & GENERATED_TAGS)]
            if turns:
                sessions[nid] = sorted(turns, key=lambda t: (float(c.created_at[t]), t))
    session_of = {t: s for s, turns in sessions.items() for t in turns}

    items: list[dict] = []
    edges: list[tuple[str, str, Relation, float]] = []
    merges: list[tuple[int, int]] = []   # (kept nid, merged nid)
    log: list[dict] = []
    made_of: dict[str, frozenset[int]] = {}   # new fact ext id -> its evidence's nids

    def exists(ext_id: str) -> bool:
        with state.store.read("looking up a consolidated memory") as txn:
            return state.store.lookup_id(txn, ns, ext_id) is not None

    # 1. merge near-duplicate non-episodic memories, within one slot value only (a merge retires
    # the others: a slot would lose its holder, as supersede(by=) of another slot is refused).
    # Not candidates: a memory stored in pieces (its vector is its first piece's, not the whole
    # text's), and the facts an earlier pass promoted (merging them in a later pass made a
    # second pass at the same now change the store)
    cand = np.array([nid for nid, tags in tagged.items()
                     if c.kind[nid] != _EPISODIC and not (tags & GENERATED_TAGS) - {"fact"}
                     and not recs[nid]["id"].startswith("fact:") and not _in_pieces(recs[nid])
                     and not _structured(recs[nid]["text"])], np.int64)
    if cfg.merge and len(cand) > 1:
        vecs = state.vectors(cand, space)
        uf = _UnionFind(len(cand))
        # (a store written before subjects were canonical holds the user's under "me", "the user")
        slot = [(_subject(recs[int(x)].get("subject")), recs[int(x)].get("attribute"), recs[int(x)].get("value"))
                for x in cand]
        for i, j in pairs_for(state).pairs((ns, "merge"), cand, vecs, 8, cfg.duplicate_cosine,
                                        path=state.pairs_path(ns, "merge")):
            if slot[i] == slot[j]:
                uf.union(i, j)
        for group in uf.groups():
            nids = [int(cand[i]) for i in group]
            best = max(nids, key=lambda x: (_content_words(recs[x]["text"]), float(c.confidence[x]),
                                            float(c.created_at[x]), -x))
            for other in nids:
                if other != best:
                    merges.append((best, other))

    # 2. summaries of old sessions (a grown session's summary is superseded by a new one)
    summary_of: dict[str, int] = {}   # session ext id -> its active summary's nid
    for nid, tags in tagged.items():
        if "summary" in tags and recs[nid].get("source"):
            summary_of[recs[nid]["source"]] = nid
    refresh: list[tuple[str, int, float]] = []   # (new summary or fact ext id, old one's nid, its event time)
    retired: set[int] = set()   # old facts a new fact supersedes (by the first new fact only)
    if embed is not None and cfg.summaries:
        for sid, turns in sessions.items():
            sid_ext = c.ext_ids[sid]
            newest = max(float(c.created_at[t]) for t in turns)
            if len(turns) < 2:   # one turn is its own summary
                continue
            if newest > now - cfg.summary_age_s:
                out["sessions_recent"] += sid_ext not in summary_of
                continue
            old = summary_of.get(sid_ext)
            if old is None:
                ext = f"sum:{sid_ext}"
            elif float(c.created_at[old]) < newest or _quotes_an_edit(csr, c, old, turns):
                # grown, or a turn it was made from was superseded since by an edit of it
                ext = f"sum:{sid_ext}@{len(turns)}"
                n_try = 1
                while exists(ext) and n_try < 64:   # (a session edited again at the same length)
                    n_try += 1
                    ext = f"sum:{sid_ext}@{len(turns)}-{n_try}"
            else:
                continue
            if exists(ext):
                continue
            texts = [recs[t]["text"] for t in turns]
            sources = turns
            if summarizer is not None:
                text = summarizer(list(texts))
                if not isinstance(text, str) or is_blank(text):
                    continue   # no answer (or only whitespace and invisible characters): skipped
                text = check_text(text, state.config.store.max_text_chars,
                                  f"the summarizer's answer for session {sid_ext!r}", "return a shorter summary")
            else:
                sents, owner = [], []
                for t, t_text in zip(turns, texts):
                    m = _SPEAKER.match(t_text)
                    who, body = (m.group(1), t_text[m.end():]) if m else (None, t_text)
                    for s in _prose(who, body):
                        if len(_content_set(s)) >= cfg.summary_min_words:
                            sents.append(f"{who}: {s}" if who else s)
                            owner.append(t)
                if not sents:
                    continue
                # two sentences at least (a short session's single pick was often one whole
                # message, repeated beside it), one per sentences_per_summary_line beyond that
                m_pick = min(cfg.summary_sentences, len(sents), max(2, len(sents) // cfg.sentences_per_summary_line))
                svec = np.asarray(embed(sents), np.float32)
                prior = (cfg.summary_specific_weight * np.array([_specific(x) for x in sents])
                         if cfg.summary_specific_weight else None)
                picked = sorted(mmr_select(svec, m_pick, cfg.mmr_lambda, prior))
                text = " ".join(sents[i] for i in picked)
                if cfg.summary_links == "picked":
                    sources = sorted({owner[i] for i in picked}, key=turns.index)
            if " ".join(text.split()) in {" ".join(t.split()) for t in texts}:
                continue   # a copy of one turn: recall and context() would show that turn twice
            if old is not None:
                refresh.append((ext, old, newest))
            items.append({"id": ext, "kind": MemoryKind.SEMANTIC, "text": text, "tags": ["summary"],
                          "created_at": newest, "source": sid_ext})
            edges.append((ext, sid_ext, Relation.EXTRACTED_FROM, 1.0))
            edges.extend((ext, c.ext_ids[t], Relation.EXTRACTED_FROM, 1.0) for t in sources)
            log.append({"action": "consolidate_summary", "namespace": ns, "id": ext,
                        "reason": f"session {sid_ext}: {count(len(turns), 'turn')}"
                                  + (f"; supersedes {c.ext_ids[old]!r}" if old is not None else "")})

    # 3. facts restated across sessions
    if embed is not None and cfg.facts and len(session_of) > 1:
        tnids = np.array(sorted(session_of), np.int64)
        word_cache: dict[int, set[str]] = {}

        def words(nid: int) -> set[str]:
            if nid not in word_cache:
                word_cache[nid] = _content_set(recs[nid]["text"])
            return word_cache[nid]

        tvecs = state.vectors(tnids, space)
        uf = _UnionFind(len(tnids))

        def restate(i: int, j: int) -> bool:   # of two sessions, sharing words, no quantity given two values
            a, b = int(tnids[i]), int(tnids[j])
            return (session_of[a] != session_of[b] and len(words(a) & words(b)) >= cfg.fact_shared_words
                    and not quantity_clash(recs[a]["text"], recs[b]["text"]))   # "5 mg" / "10 mg": two things

        keys = [(recs[t]["text"], session_of[t], cfg.fact_shared_words) for t in tnids.tolist()]
        for i, j in pairs_for(state).pairs((ns, "facts"), tnids, tvecs, cfg.fact_neighbours, cfg.fact_cosine,
                                        path=state.pairs_path(ns, "facts"), accept=restate, accept_keys=keys):
            uf.union(i, j)
        for group in uf.groups():
            members = [int(tnids[i]) for i in group]
            if len({session_of[m] for m in members}) < cfg.fact_min_sessions:
                continue
            if all(_said_by_assistant(recs[m]["text"]) for m in members):
                continue   # an assistant repeating its own plan or advice: no one stated it as holding
            if _disputed(csr, members):
                continue   # a value and the change of it (linked contradicts): no one thing restated
            ids = sorted(c.ext_ids[m] for m in members)
            ext = "fact:" + hashlib.sha256("\x00".join(ids).encode()).hexdigest()[:16]
            if exists(ext):
                continue
            if set.intersection(*(_facts_of(csr, m, tagged) for m in members)) - retired:
                continue   # every turn supports one live fact already (a turn of it archived or
                # forgotten since: the rest restate nothing new, and the fact of more stays)
            gv = tvecs[group]
            # the newest restatement's wording; a turn that only asks, hedges or advises states no
            # fact: the newest that states one, a user's before an assistant's (its "Got it: pottery
            # is now on Thursdays" echoes what the user said)
            text, centre = None, None
            for m in sorted(members, key=lambda m: (not _said_by_assistant(recs[m]["text"]), float(c.created_at[m]), m),
                            reverse=True):
                text = _fact_text(recs[m]["text"], gv, embed)
                if text is not None:
                    centre = m
                    break
            if text is None or _changed_by(csr, c, recs, tagged, members, text) is not None:
                continue   # (no statement; or changed since by a later one)
            if _tells_other_events(text, members, recs):
                continue   # two events ("adopted" / "chewed"), or an episode told again, dated when first told
            # a fact restating a protected turn ("I'm allergic to peanuts") is protected as well
            protected = any(PROTECTED_TAG in (recs[m].get("tags") or ()) for m in members)
            newest = max(float(c.created_at[m]) for m in members)
            items.append({"id": ext, "kind": MemoryKind.SEMANTIC, "text": text,
                          "tags": ["fact", PROTECTED_TAG] if protected else ["fact"],
                          "created_at": newest, "source": c.ext_ids[centre],
                          "confidence": min(1.0, 0.5 + 0.1 * len({session_of[m] for m in members}))})
            edges.extend((c.ext_ids[m], ext, Relation.EVIDENCE_FOR, 1.0) for m in members)
            made_of[ext] = frozenset(members)
            # the live facts its turns were evidence for, made of fewer restatements: this one
            # supersedes them (a fact restated in a fourth session is one fact)
            # (only a fact it restates: sharing its content words; two facts whose turns one
            # message said together are chained into one cluster, and keep their own facts)
            olds = sorted(o for o in set().union(*(_facts_of(csr, m, tagged) for m in members)) - retired
                          if len(_content_set(recs[o]["text"]) & _content_set(text)) >= cfg.fact_shared_words)
            retired.update(olds)
            refresh.extend((ext, old, newest) for old in olds)
            log.append({"action": "consolidate_fact", "namespace": ns, "id": ext,
                        "reason": f"restated in {count(len({session_of[m] for m in members}), 'session')} by "
                                  f"{count(len(members), 'turn')}"
                                  + (f"; supersedes {', '.join(repr(c.ext_ids[o]) for o in olds)}" if olds else "")})

    # 4. facts a later statement changed (linked by the write path to one of their turns as a change)
    outdated = _outdated_facts(csr, c, recs, tagged, retired) if cfg.facts else []
    for fact, _when, said, by in outdated:
        log.append({"action": "consolidate_outdated", "namespace": ns, "id": recs[fact]["id"],
                    "reason": f"{c.ext_ids[said]!r}, said later, changes what its turns say"
                              + (f" (superseded since by {c.ext_ids[by]!r})" if by != said else "")})

    if not items and not merges and not outdated:
        return lambda: out
    prepared = [prepare(state, item, ns, now, record_now=record_now, engine_ids=True, derived=True) for item in items]
    for p in prepared:   # a fact is never read as changing its own evidence (its wording is one of theirs)
        p.made_from = made_of.get(p.ext_id, frozenset())
    if prepared:
        embed_missing(state, embed, prepared)
    new_by_ext = {p.ext_id: p for p in prepared}

    def extra(unit) -> list[tuple[int, int, int, float]]:
        rows = []
        for s, t, rel, w in edges:
            a = new_by_ext[s].nid if s in new_by_ext else unit.lookup(ns, s)
            b = new_by_ext[t].nid if t in new_by_ext else unit.lookup(ns, t)
            rows.append((a, b, rel.code, w))
        for ext, old, valid_from in refresh:   # a grown session's new summary supersedes the old, a fact its older form
            unit.put_record(old, _slots.retire_record(unit.record(old), ext, valid_from, record_now))
            rows.append((new_by_ext[ext].nid, old, Relation.SUPERSEDES.code, 1.0))
        gained: dict[int, list[str]] = {}   # kept nid -> the tags of the members it replaces
        for best, other in merges:
            gained.setdefault(best, []).extend(recs[other].get("tags") or ())
        for best, extra_tags in gained.items():
            rec = unit.record(best)
            tags = list(dict.fromkeys([*(rec.get("tags") or ()), *extra_tags]))[:MAX_TAGS]
            if tags != list(rec.get("tags") or ()):
                unit.put_record(best, {**rec, "tags": tags})
        for fact, when, _said, by in outdated:   # superseded by the change, as of when it was said
            unit.put_record(fact, _slots.retire_record(unit.record(fact), c.ext_ids[by], when, record_now))
            rows.append((by, fact, Relation.SUPERSEDES.code, 1.0))
        for best, other in merges:
            rec = unit.record(other)
            unit.put_record(other, _slots.retire_record(rec, c.ext_ids[best], float(c.valid_from[best]),
                                                        record_now))
            rows.append((best, other, Relation.SUPERSEDES.code, 1.0))
            unit.log([{"action": "consolidate_merge", "namespace": ns, "id": rec["id"],
                       "kind": KIND_BY_CODE[int(c.kind[other])].value,
                       "reason": f"near-duplicate of {c.ext_ids[best]!r} (cosine >= {cfg.duplicate_cosine})"}])
        unit.log(log)
        return rows

    def write() -> dict[str, int]:
        edges_before = len(state.graph)
        if prepared:
            write_new(state, prepared, record_now, what="consolidating memories", verb="consolidate", extra=extra,
                      at=now)
        else:
            from ..write import write_unit

            with write_unit(state, "consolidating memories", record_now, verb="consolidate", at=now) as unit:
                unit.add_edges(extra(unit))
        out["merged"] = len(merges)
        out["summaries"] = sum(1 for e in log if e["action"] == "consolidate_summary")
        out["facts"] = sum(1 for e in log if e["action"] == "consolidate_fact")
        out["outdated"] = len(outdated)
        out["edges"] = len(state.graph) - edges_before
        return out

    return write
