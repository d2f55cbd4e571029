"""Recall stage 3, ranking: filters, time cues and the salience / recency / confidence blend.

1. Filters (shared with ``query``, :mod:`engramdb.recall.filters`) over the reached memories.
2. Time cues: "in May 2023", "last week", "two weeks ago" in the question become windows
   (:func:`engramdb.timeref.resolve_time_refs`, found by the seeds stage), resolved against the
   recall's ``now``, or a conversation's own clock when it was stored after the fact (its newest
   event time), never after ``now``, or the ``now`` the caller gave
   (:meth:`engramdb.recall.context.RecallContext.cue_now`); memories whose event time
   falls inside a window's core (the span the expression names) gain ``w_time`` x the best
   score, those in its slack only ``time_slack_weight`` of that ("yesterday" names one day:
   today, in its slack, gains a quarter). A memory whose text names a time ("last Friday I
   went to ...", resolved against its own event time: ``Columns.mentioned_start``) is
   weighed by that span as well, and a value that a later one ``contradicts`` by the time it
   held (:func:`valid_spans`: "I live in Boston" from January until "we moved to Denver" in
   March answers "where did I live in February?"), the best of them counting
   (:func:`in_windows`).
3. Source attribution: when the question names exactly one speaker
   (:func:`engramdb.speakers.named_speaker`), the memories that speaker said score
   (1 + ``w_speaker``) x as much.
4. Speech act: a memory that only asks (:func:`engramdb.chatter.speech_act`: "How is the leg
   feeling?") or only greets or thanks ("Long time no talk!", "Thanks so much!"; unless the
   question does too) scores ``question_weight`` x as much: it states no fact.
5. Blend: score x (1 - ws - wr - wc + ws * salience(now) + wr * recency + wc * confidence).
6. Current statement first: of two candidates joined by a ``contradicts`` edge, the one valid
   later (``valid_from``, by ``now``; of two valid from the same time, the one stored later:
   "My doctor raised my lisinopril to 20 mg" after "I take 10 mg of lisinopril") scores at
   least just above the other, so it takes the earlier one's place (at ``k=1`` too) and the
   earlier one follows it; only when it shares a word with the
   question itself (an index term: a correction of one claim of a memory that says
   several is no answer to a question about another), or the question's words are in the
   clause of the earlier one that gives the value the later one lacks ("what dose do I take?",
   "I take 10 mg ...": :func:`engramdb.changes.changed_clauses`), or when the two give the speaker's
   home or employer (:mod:`engramdb.standing`: "I moved to Seattle last month." after "I live
   in Boston.") and the question asks for it ("where do I live?":
   :func:`engramdb.standing.asked_standing`; the seeds stage brought the later one in:
   :func:`engramdb.recall.seeds.later_standing`, or the seeds stage's statements of the
   relation asked for, :func:`engramdb.recall.seeds.standing_seeds`); for a question that
   names a past time, the statement valid then comes first (:func:`_current_first`).

Order: score, highest first; an exact tie (the same float64 ``Hit.score``) goes to the memory
whose vector has the higher cosine to the query vector (for a memory stored as pieces, the piece
it shows), and a tie in that too to insertion order (the earlier-recorded memory first, the
rule of ``query``). Equal scores are common at the top: the best seeds of both legs are rescaled
to 1 and blended alike (several hits at 0.95), and every memory of a time question's window
starts with the same base. :func:`ranked` applies the rule; ``recall``, ``recall_batch`` and
the filtered second pass all rank through it, and ``context`` keeps recall's order.
"""
from __future__ import annotations

import re
from typing import Iterator

import numpy as np

from ..changes import asked_measures, asked_sorts, changed_clauses, only_value_changed, shares_value
from ..chatter import CONTENT_FREE, QUESTION, content_free
from ..kernels import registry
from ..speakers import named_speaker
from ..standing import asks_only_standing, standings
from ..renames import renames
from ..swaps import replaced_sentences
from ..temporal import said_after
from ..sentences import quotes
from ..timeref import past_end, window_masks
from ..graph.csr import CSRGraph, contradicts_nodes
from ..index.tokens import tokenize
from ..types import CONNECTOR_TAGS, Relation
from .context import RecallContext
from .filters import seedable
from .router import keyword_query

__all__ = ["run", "wanted", "hides_connectors", "ranked", "tie_cosines", "contradicts_nodes", "touched_rows",
           "later_contradicting", "valid_spans", "in_windows", "namespace_in_windows", "quoting_nodes"]


def wanted(request) -> int:
    """How many ranked candidates the results stage reads before it has ``k`` hits in the
    common case: ``k``, four times that with a tag filter (read per record), and 4 more when
    connector nodes (sessions, entities) are hidden. :func:`run` scores exactly the best this
    many need (see there); :func:`ranked` scores the rest if a caller reads past them."""
    return (request.k if request.filters.tags is None else 4 * request.k) + (4 if hides_connectors(request) else 0)


def hides_connectors(request) -> bool:
    """Whether connector nodes (sessions, entities: they route activation but answer nothing)
    are left out of the hits: unless ``RecallConfig.connector_hits`` or a tag filter names them."""
    tags = request.filters.tags
    return not request.config.connector_hits and not (tags and tags & CONNECTOR_TAGS)


def run(ctx: RecallContext) -> None:
    """Fill ``ctx.cand`` (node rows passing the filters, in reach order) and ``ctx.score`` (by
    candidate).

    The blend multiplies a candidate's score by a factor in ``[1 - ws - wr - wc, 1]``
    (salience, recency and confidence are each in [0, 1]), so a candidate whose unblended score
    is below that floor times the :func:`wanted`-th best unblended score cannot reach the
    first :func:`wanted` places: it is set aside unblended (``ctx.extra["unblended"]``) and
    blended only if a caller reads past them (:func:`ranked`). At 100k memories about 900
    memories are reached and a few dozen are blended."""
    state, req, cfg = ctx.state, ctx.request, ctx.request.config
    c = state.cols
    nodes = ctx.nodes
    slots = state.slot_table(ctx.space.name) if req.filters.slotted else None
    passing = req.filters.mask(c, nodes, ctx.space.code, slots)
    shown = ctx.extra.get("shown_superseded")
    if shown is not None:   # values that held a slot at the past time the question names (seeds.slot_held_then)
        passing |= np.isin(nodes, shown)
    cand = np.flatnonzero(passing)
    score = ctx.total[cand]   # (a copy: fancy indexing)
    cn = nodes[cand]
    held = None if shown is None else np.isin(cn, shown)
    if ctx.windows and len(cand):
        # (the graph with the edges of forgotten memories: valid_spans reads which the recall may see)
        core, inside = in_windows(state, state.recall_csr(), cn, ctx.windows, req.filters, req.now,
                                  ctx.space.keyword, ctx.extra.get("value_cue"))
        if held is not None:   # (they held the slot in a window's core: slot_held_then's test)
            core, inside = core | held, inside | held
        ctx.extra["in_window"] = bool(inside.any())   # (then no empty_window gap: seeds.window_holds_nothing)
        weight = np.where(core, 1.0, np.where(inside, cfg.time_slack_weight, 0.0))
        score = score + cfg.w_time * weight * score.max()
    if cfg.w_speaker and req.query is not None and len(cand):
        said_by = named_speaker(req.query, *c.speaker_words(ctx.space.code))
        if said_by is not None:   # (a piece is said by its memory's speaker: read through its head)
            score[c.speaker[c.head[cn]] == said_by] *= 1.0 + cfg.w_speaker
    if cfg.question_weight != 1.0 and len(cand):   # a memory that only asks, or only greets or
        act = c.speech_act[cn]                      # thanks, states no fact (but a question of
        asks = act == QUESTION                      # thanks alone asks for thanks: "thanks so much")
        if (free := act == CONTENT_FREE).any() and not (req.query is not None and content_free(req.query)):
            asks |= free
        if asks.any():
            score[asks] *= cfg.question_weight
    ws, wr, wc = cfg.w_salience, cfg.w_recency, cfg.w_confidence
    if ws or wr or wc:
        want = wanted(req)
        floor = 1.0 - ws - wr - wc
        if len(cand) > want and floor > 0 and score.min() >= 0:
            # the want-th best unblended score; the margin keeps a set-aside candidate below
            # every kept one even after rounding to float32 (the top-k kernel's precision)
            bar = np.partition(score, len(score) - want)[len(score) - want] * floor * (1.0 - 1e-6)
            keep = score >= bar
            if not keep.all():
                ctx.extra["unblended"] = (cand[~keep], score[~keep], want)
                cand, score = cand[keep], score[keep]
        score = _blended(ctx, cand, score)
    ctx.cand, ctx.score = cand, score
    if len(cand) > 1 and (len(touched_rows(ctx.state, ctx.csr, nodes[cand]))
                          or _quotes_a_change(ctx.state, ctx.csr, nodes[cand])):
        _current_first(ctx)   # (a candidate that a `contradicts` edge touches, or a summary of a changed turn)
    if len(ctx.cand) > 1 and ctx.extra.get("standing_match"):
        _standing_first(ctx)
    if shown is not None and len(ctx.cand) > 1:
        _held_first(ctx, shown)


def _held_first(ctx: RecallContext, shown: np.ndarray) -> None:
    """The superseded values that held a slot the question names at the past time it names
    (``shown``, nids: :func:`engramdb.recall.seeds.slot_held_then`; "where did I live in
    February?" with "I live in Boston." superseded in March by "I moved to Denver.") get at least
    the next float64 above every other candidate: they answer for then, and the slot's current
    value, cued by the question's words, does not."""
    _unblended_joined(ctx)
    mine = np.isin(ctx.nodes[ctx.cand], shown)
    _above(ctx.score, mine, ~mine)


def _standing_first(ctx: RecallContext) -> None:
    """The current statement of the speaker's home, employer or name asked for
    (:func:`engramdb.recall.seeds.standing_seeds`: ``ctx.extra["standing_match"]``; the
    question asks for nothing else) gets at least the next float64 above every other candidate:
    above the relation's other statements, as step 6 puts a later statement above the one it
    changes (for two that no ``contradicts`` edge joins, "I live in Boston." and a long message
    ending "we moved to Denver last month.", too), and above memories that share the question's
    words but state no value of the relation ("My cat's name is Whiskers." for "what is my
    name?", "My commute to work is 30 minutes." for "where do I work?"). For a question about a
    past time ("where did I work in February?") the statement valid then: the messages dated
    then ("Work stuff: our standup is at 9:15am") take the time cue's weight, and none of them
    says where the speaker worked. The relation's other statements (``ctx.extra["standing_others"]``:
    the earlier homes, or the later ones of a past time) come next, above every memory that
    states none of it: they are the answer's history ("where do I live?": "I moved to Austin!",
    then "I live in Boston.", then the assistant's "Congrats on the move to Austin!", which a
    ``next`` edge had lifted above Boston; helper-228)."""
    current = ctx.extra.get("standing_match") or {}
    others = ctx.extra.get("standing_others") or ()
    _unblended_joined(ctx)
    cn = ctx.nodes[ctx.cand]
    mine = np.isin(cn, np.fromiter(current, np.int64, len(current)))
    history = np.isin(cn, np.fromiter(others, np.int64, len(others))) & ~mine
    _above(ctx.score, history, ~mine & ~history)
    _above(ctx.score, mine, ~mine)


def _above(score: np.ndarray, rows: np.ndarray, rest: np.ndarray) -> None:
    """:func:`_put_above` of the candidates ``rows`` (bool, by candidate) over the best of ``rest``
    (bool, same shape), when both hold one."""
    if rows.any() and rest.any():
        _put_above(score, np.flatnonzero(rows).tolist(), score[rest].max())


def _put_above(score: np.ndarray, rows: list[int], top: float) -> None:
    """Raise ``score`` (float64, by candidate) at ``rows`` to at least the next float64 above
    ``top``: those candidates rank above every one scored ``top`` or less, and keep their order
    among themselves (several put first: two relations' statements, or values valid then)."""
    rows = np.asarray(rows, np.int64)
    below = score[rows].copy()
    for value in np.unique(below):   # ascending: each at least the next float64 above the one before
        top = max(float(value), float(np.nextafter(top, np.inf)))
        score[rows[below == value]] = top


def quoting_nodes(state, csr: CSRGraph) -> dict[int, tuple[int, ...]]:
    """The memories made from a memory that another changed (an ``extracted_from`` edge to a
    memory a ``contradicts`` edge touches, or one a ``supersedes`` edge replaced: a session
    summary of consolidation quoting its turns, a piece of a long memory), each with those
    memories, ``{nid: (nids of the changed memories it was made from, ascending)}``. One
    O(edges) pass, cached as :func:`contradicts_nodes` is, keyed by the CSR's relation array."""
    cached = state.scratch.get("quoting_nodes")
    if cached is None or cached[0] is not csr.relation:
        rel, fwd = csr.relation, csr.forward
        out: dict[int, list[int]] = {}
        at = np.flatnonzero((rel == Relation.EXTRACTED_FROM.code) & (fwd == 0))
        if len(at):   # (none in a store never consolidated, nor holding long memories)
            rows = np.searchsorted(csr.indptr, at, side="right") - 1
            changed = np.zeros(csr.n_nodes + 1, bool)
            at_changed = np.flatnonzero((rel == Relation.CONTRADICTS.code) | ((rel == Relation.SUPERSEDES.code) & (fwd == 0)))
            changed[np.searchsorted(csr.indptr, at_changed, side="right") - 1] = True   # (the row, node, of each)
            keep = changed[rows]
            for made, x in zip(csr.indices[at[keep]].tolist(), rows[keep].tolist()):
                out.setdefault(made, []).append(x)
        cached = state.scratch["quoting_nodes"] = (rel, {n: tuple(sorted(xs)) for n, xs in out.items()})
    return cached[1]


def _quotes_a_change(state, csr: CSRGraph, nodes: np.ndarray) -> bool:
    """Whether one of ``nodes`` (int64 nids) was made from a memory another changed
    (:func:`quoting_nodes`)."""
    quoting = quoting_nodes(state, csr)
    return bool(quoting) and not quoting.keys().isdisjoint(nodes.tolist())


def touched_rows(state, csr: CSRGraph, nodes: np.ndarray) -> np.ndarray:
    """The positions in ``nodes`` (int64 nids, shape (n,)) of those a ``contradicts`` edge
    touches (:func:`contradicts_nodes`), ascending: one gather from the cached mask, O(n)."""
    mark = contradicts_nodes(state, csr)[1]
    if len(mark) == 1 or not len(nodes):
        return np.zeros(0, np.int64)
    return np.flatnonzero(mark[np.minimum(nodes, len(mark) - 1)])


def valid_spans(state, csr: CSRGraph, nodes: np.ndarray, filters, now: float, keyword=None,
                words: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """The time each of ``nodes`` (int64 nids, shape (n,)) held as a value, for those a
    ``contradicts`` edge touches: from its ``valid_from`` to the ``valid_from`` of the first
    memory of those edges valid after it (:func:`engramdb.temporal.said_after`) that the recall may see
    (:func:`engramdb.recall.filters.seedable` of ``filters``: not forgotten, recorded by an
    ``as_of``) and, given ``words`` (index terms) and the namespace's ``keyword`` index, that
    holds one of them (a message of a home and a rent, "I live in Oakland. My rent is $1,400.",
    still gives the home after the rent was raised), at most ``now`` (what holds now is no
    answer for a time to come), Unix seconds; ``(+inf, -inf)`` for the rest (a value never
    changed has no known end).

    Returns
    -------
    (ndarray of float64, ndarray of float64), shape (n,) each
    """
    start = np.full(len(nodes), np.inf)
    end = np.full(len(nodes), -np.inf)
    rows = touched_rows(state, csr, nodes).tolist()
    if not rows:
        return start, end
    cols = state.cols
    vf = cols.valid_from
    later: dict[int, np.ndarray] = {}
    for r in rows:
        ys = later_contradicting(csr, vf, int(nodes[r]))
        later[r] = ys[seedable(filters, cols, ys)]
    held = None
    if words and keyword is not None and later:   # (one search over all the later ones)
        every = np.unique(np.concatenate(list(later.values())))
        held = np.zeros(csr.n_nodes, bool)
        if len(every):
            held[keyword.search_terms(dict.fromkeys(words, 1.0), len(every), every)[0]] = True
    for r in rows:
        x, ys = int(nodes[r]), later[r]
        if held is not None:
            ys = ys[held[ys]]
        start[r] = vf[x]
        end[r] = min(float(vf[ys].min()) if len(ys) else np.inf, now)
    return start, end


def later_contradicting(csr: CSRGraph, valid_from: np.ndarray, x: int) -> np.ndarray:
    """The memories a ``contradicts`` edge joins to ``x`` that were said after it
    (:func:`engramdb.temporal.said_after` by ``valid_from``, seconds by nid), int64."""
    ys = csr.related(x, Relation.CONTRADICTS.code)
    return ys[said_after(valid_from[ys], ys, valid_from[x], x)]


def in_windows(state, csr: CSRGraph, nodes: np.ndarray, windows: list, filters, now: float,
               keyword, cue: tuple[str | None, tuple[str, ...]] | None) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``nodes`` (int64 nids, shape (n,)) a question's time ``windows`` hold:
    :func:`engramdb.timeref.window_masks` of their event times and the times their texts name,
    or, for a question asking for a value at that time, of the time they held it
    (:func:`valid_spans`): "I live in Boston" said in January, with "we moved to Denver" in
    March, is what held in February, although February's small talk is what is dated then.
    ``cue`` (:func:`engramdb.recall.seeds.value_cue`): what such a memory holds, the question's
    rarest content word or a word of the speaker's relation it asks for; None for a question of
    events ("what did I do yesterday?"), which reads no spans. ``keyword``: the namespace's
    :class:`engramdb.index.keyword.KeywordIndex`. ``(core, inside)``, bool arrays of shape
    (n,); the seeds of a mostly-time question, the time cues of step 2 and the
    ``empty_window`` gap read it."""
    c = state.cols
    core, inside = window_masks(c.created_at[nodes], windows, (c.mentioned_start[nodes], c.mentioned_end[nodes]))
    _held_in_windows(state, csr, nodes, windows, filters, now, keyword, cue, core, inside)
    return core, inside


def namespace_in_windows(state, csr: CSRGraph, ns_code: int, windows: list, filters, now: float,
                         keyword, cue: tuple[str | None, tuple[str, ...]] | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`in_windows` of every live memory of namespace ``ns_code``: the nids a window holds
    (int64, ascending, slack included) and which of them lie in a window's core (bool, same
    shape). The masks are taken over the whole columns (no gather of the namespace's rows) and
    the values' spans are read for the memories a ``contradicts`` edge touches only: O(n) in a
    few array passes (at 100k memories some 0.3 ms, where :func:`in_windows` of all their nids
    took 1.1 ms)."""
    c = state.cols
    n = c.n
    core, inside = window_masks(c.created_at[:n], windows, (c.mentioned_start[:n], c.mentioned_end[:n]))
    mine = c.in_namespace(ns_code)
    touched = contradicts_nodes(state, csr)[1]
    m = min(n, len(touched))
    rows = np.flatnonzero(touched[:m] & mine[:m])   # (a nid is its position in the columns)
    if len(rows):
        vcore, vinside = np.zeros(len(rows), bool), np.zeros(len(rows), bool)
        _held_in_windows(state, csr, rows, windows, filters, now, keyword, cue, vcore, vinside)
        core[rows] |= vcore
        inside[rows] |= vinside
    nids = np.flatnonzero(inside & mine)
    return nids, core[nids]


def _held_in_windows(state, csr: CSRGraph, nodes: np.ndarray, windows: list, filters, now: float, keyword,
                     cue: tuple[str | None, tuple[str, ...]] | None, core: np.ndarray, inside: np.ndarray) -> None:
    """Mark in ``core`` and ``inside`` (bool, by position in ``nodes``) those of ``nodes`` whose
    time held as a value (:func:`valid_spans`) meets a window, for a question asking for a
    value (``cue``, see :func:`in_windows`)."""
    if cue is None or keyword is None or not len(nodes):
        return
    rows = touched_rows(state, csr, nodes)
    if not len(rows):
        return
    key, words = cue
    terms = ([key] if key is not None else []) + list(words)
    # those holding one of the cue's words: one keyword search restricted to them (the postings)
    rows = rows[np.isin(nodes[rows], keyword.search_terms(dict.fromkeys(terms, 1.0), len(rows), nodes[rows])[0])]
    if len(rows):   # (its time ends with a later statement of what it is asked for)
        spans = valid_spans(state, csr, nodes[rows], filters, now, keyword, tuple(terms))
        vcore, vinside = window_masks(np.full(len(rows), np.inf), windows, spans)
        core[rows] |= vcore
        inside[rows] |= vinside


#: A question for the value a change replaced ("when was standup before it moved?", "what was my
#: old address?", "where did I live previously?", "where did I work before Stripe?", "what did we
#: use before uv?", "what dose did I start on?"; not "what do I take before breakfast?": "before" a
#: routine's moment is a time of day; nor "When do I start at Globex?": a start where a name
#: follows is the new value's; nor "How old is Maya?": an age, whose later value answers).
_ASKS_BEFORE = re.compile(
    r"\b(?:before(?=\W*$|\s+(?:(?-i:[A-Z])|(?:it|the|that|this|my|our|your|his|her|their|its|i|we|you|he|she|they|"
    r"then|now|moving|switching|changing|starting|getting|going)\b)|\s+(?!(?:breakfast|lunch|dinner|supper|brunch|"
    r"bed|bedtime|sleep|sleeping|work|school|class|meals?|eating|food|running|exercise|workouts?|training|meetings?|"
    r"noon|midnight|dawn|sunrise|sunset|church|shifts?|practice)\b)[a-z][\w.+-]*\W*$)|previously|formerly|"
    r"originally|used\s+to|at\s+first|(?<!\bhow\s)(?<!\bhow\s\s)old(?!\s+(?:is|are|was|were|am|will|would|does|do)\b)|"
    r"earlier|prior|initial(?:ly)?|to\s+begin\s+with|"
    r"(?:did|do)\s+(?:i|we)\s+start(?:\s+out)?\s+(?:on|with|at)(?=\W*$|\s*,))\b", re.I)




#: What follows "before" in a question: the new value or the change it names ("where did I work
#: before Leeds General Infirmary?"), no word of what it asks for.
_AFTER_BEFORE = re.compile(r"\bbefore\s+(.*)$", re.I)


def asks_before(query: str) -> bool:
    """Whether ``query`` (str) asks for the value a change replaced (:data:`_ASKS_BEFORE`)."""
    return _ASKS_BEFORE.search(query) is not None


def earlier_contradicting(csr: CSRGraph, valid_from: np.ndarray, x: int) -> np.ndarray:
    """The memories a ``contradicts`` edge joins to ``x`` that were said before it (int64)."""
    ys = csr.related(x, Relation.CONTRADICTS.code)
    return ys[said_after(valid_from[x], x, valid_from[ys], ys)]


def _current_first(ctx: RecallContext) -> None:
    """Step 6 of the module: of two candidates joined by a ``contradicts`` edge, the one valid
    later (:func:`engramdb.temporal.said_after`, by the recall's ``now``) gets at least the next float64 above the
    other's score, if it holds a term of the question (the keyword index's forward index), the
    question asks for the value the two disagree on (:func:`_asks_changed_value`), or
    the seeds stage brought it in as a later statement of the speaker's home or employer asked
    for (``ctx.extra["later_of"]``), and the question names no time (but one that holds now,
    for such a statement: "where do I live today?"). A question about a past time (its windows
    end before ``now``: "what dose was I taking in May?") asks for the statement valid then: of
    a pair, the later if valid before the windows' end, else the earlier; a time that reaches
    ``now`` ("today") is the present. A question for the value a change replaced naming no past
    time (:data:`_ASKS_BEFORE`: "when was standup before it moved?") puts the earlier of each
    pair first.
    Pairs are taken earliest-valid first, so a chain of corrections ends with the latest on
    top. One put first because the question's form or measure asks for the value the two
    disagree on, or for the speaker's home or employer, is explained by the other and as
    relevant as it (``ctx.extra["later_of"]``, read by :mod:`.results`): it answers what the
    other answered ("My doctor raised my lisinopril to 20 mg." had relevance 0.008 for "what dose
    do I take?", the 10 mg it replaced 0.26); one put first for a word of the question keeps its
    own. A question for a person, a place or a name (:func:`engramdb.changes.asked_sorts`: none
    of the sorts) puts the earlier of two that disagree on a time, date or amount first.
    Candidates set aside unblended (:func:`run`) join first, so a correction whose own score was
    far below still takes its place."""
    terms = list(dict.fromkeys(tokenize(keyword_query(ctx.request.query)))) if ctx.request.query else []
    now, past = ctx.request.now, False
    # a question about a past time ("what dose was I taking in May?"): the statement valid then,
    # the later of a pair valid before the time's end, or the earlier of a pair whose later one
    # was said after it, comes first (a time that reaches now, "today", is the present)
    then = None if ctx.extra.get("later_of") else past_end(ctx.windows, ctx.cue_now())
    if then is not None:
        now, past = then, True
    if not terms:
        return
    state, csr = ctx.state, ctx.csr
    aside = ctx.extra.get("unblended")
    if aside is not None:   # (those a `contradicts` edge touches: the rest cannot pair)
        _unblended_joined(ctx, touched_rows(state, csr, ctx.nodes[aside[0]]))
    cn = ctx.nodes[ctx.cand].tolist()
    row_of = {n: i for i, n in enumerate(cn)}
    touched = contradicts_nodes(state, csr)[0]
    vf, score = state.cols.valid_from, ctx.score
    pairs = set()   # (row of the one not valid then, row of the one valid then)
    is_cand = np.zeros(csr.n_nodes, bool)
    is_cand[[n for n in cn if n < csr.n_nodes]] = True
    for i, x in enumerate(cn):
        if x not in touched or vf[x] > now:
            continue
        ys = later_contradicting(csr, vf, x)
        for y in ys[is_cand[ys]].tolist():   # (the candidates among them)
            j = row_of[y]
            if vf[y] <= now:
                pairs.add((i, j))   # (earlier, later)
            elif past:
                pairs.add((j, i))   # (said after the time asked about, valid then)
    stand_in = _quoted_pairs(ctx, row_of, is_cand, now, past, pairs)
    if not pairs:
        return
    query = ctx.request.query
    sorts = asked_sorts(query)
    texts = _PairTexts(ctx, pairs, stand_in)   # (one read of the pairs' records, for every rule below)
    kept = set()   # earlier ones put first for a question asking for a person, place or thing
    before = not past and asks_before(query)
    if before:
        pairs = {(j, i) for i, j in pairs}   # "when was standup before it moved?": the earlier
        # (a time named, "before May", already says which: the statement valid then)
    elif not past and sorts == frozenset():
        # "who teaches my yoga class?": of two that disagree on a time, date or amount, the
        # earlier holds the rest of what was said ("Yoga class is at 6pm at the Riverside
        # studio with Karen." above "Yoga class moved to 7pm."; not when the question names the
        # new value: "where should I be at 8pm?")
        valued = {b for b, old, new in texts(pairs) if only_value_changed(old, new) and not shares_value(query, new)}
        kept = {cn[i] for i, j in pairs if cn[j] in valued}
        pairs = {(j, i) if cn[j] in valued else (i, j) for i, j in pairs}
    later = sorted({cn[j] for _i, j in pairs})
    # (a candidate standing for a memory it quotes in a pair, a summary, shares a word as that memory
    # does: "where did I work before Globex?" lifted a summary quoting a raised dose, for its
    # other sentences' "Globex", above every answer)
    voices: dict[int, set[int]] = {}
    for p in pairs:
        voices.setdefault(int(cn[p[1]]), set()).add(texts.voice(p))
    spoken = sorted(set().union(*voices.values()))
    tf, _dl, known = ctx.space.keyword.term_stats(spoken, [t for t in terms if t not in _USE_TERMS] or terms)
    shares = {n for n, row, ok in zip(spoken, tf.tolist(), known.tolist()) if ok and any(row)}
    said = {n for n in later if voices[int(n)] & shares}   # shares a word
    # (other than one of using a thing, "use", "now": "What do I use for invoicing?" and "I've started
    # using Linear instead of Notion")
    if said and sorts:   # ... but not a change of another sort of value than the question asks for
        # ("when do I take levothyroxine?" and a raised dose; "how often do I take metformin?")
        said -= {b for b, old, new in texts(p for p in pairs if cn[p[1]] in said)
                 if changed_clauses(old, new) and not changed_clauses(old, new, sorts)}
    said |= kept
    if before:   # the earlier of a pair whose later one holds a word of the question: "what did we use
        # before uv?" names the later one's value, and asks for the one it replaced
        news = sorted({cn[i] for i, _j in pairs})
        tf, _dl, known = ctx.space.keyword.term_stats(news, terms)
        named_new = {n for n, row, ok in zip(news, tf.tolist(), known.tolist()) if ok and any(row)}
        replaced = {cn[j] for i, j in pairs if cn[i] in named_new}
        said |= replaced
    lent = set(ctx.extra.get("later_of", {}).keys())   # the speaker's home or employer, asked for
    if before:
        lent |= replaced   # (as relevant as the later one, which the question named)
    said |= lent
    # ... or the value the two disagree on, asked for in other words; one put first whose value
    # the question's form or measure asks for is as relevant as the other ("what time is the
    # swim lesson?", sharing words with "Swim lesson got moved to 5:30pm." too)
    lifted, confirmed = _asks_changed_value(query, terms, sorts, texts(p for p in pairs if cn[p[1]] not in kept))
    said |= lifted
    lent |= confirmed
    after = _AFTER_BEFORE.search(query) if before else None
    cut = tuple(w.text for w in ctx.windows) + ((after.group(1),) if after else ())
    if not said.issuperset(later) and (asked := asks_only_standing(   # (before a change: a past one,
            query, past=past or before, times=cut)):   # "my old address?"; the new value named, "before Stripe")
        rest = [n for n in later if n not in said]   # ... or asked for (then, at a past time named)
        named = {n for n in rest if any(asked & {s.relation for s in standings(texts.of[v])} for v in voices[int(n)])}
        said |= named   # ("we moved to Denver", no word of the question)
        lent |= named
        if past or before:   # the statement of then answers as the current one does now (results):
            ctx.extra.setdefault("standing_match", {}).update(dict.fromkeys(named, 1.0))   # "where did I work before?"
    chains = ctx.extra.setdefault("later_of", {})
    for i, j in sorted((p for p in pairs if cn[p[1]] in said), key=lambda p: (min(vf[cn[p[0]]], vf[cn[p[1]]]), p)):
        _put_above(score, [j], score[i])
        if cn[j] in lent and cn[j] not in chains:   # first for what the other one answers: explained
            # by it and as relevant as it (results), as seeds.later_standing's are for the present
            chains[cn[j]] = [cn[i], cn[j]]
    if past:
        _valid_then_first(ctx, sorted({j for _i, j in pairs if cn[j] in lent}), terms)
    elif before:   # ... above what only names the new value or using ("assistant: uv is very fast")
        new_terms = set(tokenize(after.group(1))) if after else set()
        _valid_then_first(ctx, sorted({j for _i, j in pairs if cn[j] in said}),
                          [t for t in terms if t not in new_terms and t not in _USE_TERMS])
        _above_new_echoes(ctx, [(i, j) for i, j in pairs if cn[j] in said], texts)


def _quoted_pairs(ctx: RecallContext, row_of: dict[int, int], is_cand: np.ndarray, now: float, past: bool,
                  pairs: set[tuple[int, int]]) -> dict[tuple[int, int], tuple[int, int]]:
    """Step 6 for a candidate that quotes a memory a later one changed (:func:`quoting_nodes`: a
    session summary made from "I live in Boston." whose session, or a later one, said "we moved
    to Denver", linked ``contradicts``; or from "I take 10 mg of lisinopril ..." that "I take
    20 mg ..." superseded since): it holds the earlier statement and stands for it, so it is
    paired, as the earlier one, with each later candidate (a ``contradicts`` partner said later,
    or a successor) of each memory it quotes a sentence of (:func:`_quotes`), unless it quotes
    one of the later one's too (a summary quoting both says what changed). Adds the pairs to
    ``pairs`` (rows of ``ctx.cand``, as :func:`_current_first`'s) and returns, for each, the
    candidate and the memory it stands for in that pair, ``{pair: (candidate nid, memory
    nid)}``: the pair rules read that memory's text and valid time. A helper's summary ranked
    above the move, with the outdated "I live in Boston" in it, for "where do I live?" after
    consolidation; another, quoting a home and a dose that both changed, above the new dose."""
    quoting = quoting_nodes(ctx.state, ctx.csr)
    if not quoting:
        return {}
    vf, csr = ctx.state.cols.valid_from, ctx.csr
    found = []   # (candidate, the memory it may stand for, the later candidates)
    for n in quoting.keys() & row_of.keys():
        for x in quoting[n]:
            if vf[x] > now:
                continue
            later = sorted(ctx.state.supersession_chain(x, side=1, csr=csr))   # (its successors)
            ys = np.concatenate([later_contradicting(csr, vf, x), np.array(later, np.int64)])
            ys = [y for y in dict.fromkeys(ys[is_cand[ys]].tolist()) if y != n]
            if ys:
                found.append((n, x, ys))
    if not found:
        return {}
    nodes = sorted({m for n, x, ys in found for m in (n, x, *ys)})
    text = {m: rec["text"] if rec else "" for m, rec in
            zip(nodes, ctx.state.records(nodes, "reading memories a summary quotes"))}
    stand_in: dict[tuple[int, int], tuple[int, int]] = {}
    for n, x, ys in sorted(found):
        if not quotes(text[n], text[x]):
            continue
        for y in ys:
            if quotes(text[n], text[y]):
                continue
            i, j = row_of[n], row_of[y]
            if vf[y] <= now:
                pair = (i, j)
            elif past:
                pair = (j, i)
            else:
                continue
            if pair not in stand_in:   # (of two memories it quotes that one later one changed, the first)
                pairs.add(pair)
                stand_in[pair] = (n, x)
    return stand_in


def _valid_then_first(ctx: RecallContext, rows: list[int], terms: list[str]) -> None:
    """For a question about a past time, the statements valid then whose value it asks for (rows
    of ``ctx.cand``) go above every candidate that holds no term of the question: a message dated
    then takes the time cue's weight and the pass of its neighbours ("I'm reading The Overstory
    right now" above "Standup is at 9:30 in room 4B." for "what time was standup in
    February?"), as :func:`_standing_first` does for the home or employer."""
    if not rows:
        return
    score, cn = ctx.score, ctx.nodes[ctx.cand]
    above = [r for r in np.flatnonzero(score > min(score[j] for j in rows)).tolist() if r not in rows]
    if not above:
        return
    tf, _dl, known = ctx.space.keyword.term_stats([int(cn[r]) for r in above], terms)
    bare = [r for r, row, ok in zip(above, tf.tolist(), known.tolist()) if not (ok and any(row))]
    if bare:
        _put_above(score, rows, max(score[r] for r in bare))


def _above_new_echoes(ctx: RecallContext, pairs: list[tuple[int, int]], texts: _PairTexts) -> None:
    """For a question for the value before a change: each earlier memory ``j`` of ``pairs`` (rows
    of ``ctx.cand``, ``(later, earlier)``) goes above the candidates that restate the later one's
    value and not its own (:func:`engramdb.changes.shares_value`): an assistant's "Updated: Ellie's
    swimming is Sundays at 11am." came first for "When was Ellie's swimming before it moved to
    Sundays?" (helper165), above "Ellie has swimming lessons on Saturdays at 9am."."""
    score, cn = ctx.score, ctx.nodes[ctx.cand]
    for i, j in pairs:
        above = [r for r in np.flatnonzero(score > score[j]).tolist() if r not in (i, j)]
        if not above:
            continue
        later, earlier = texts.of[int(cn[i])], texts.of[int(cn[j])]
        nids = [int(cn[r]) for r in above]
        recs = ctx.state.records(nids, "reading memories ranked above an earlier value")
        echoes = [r for r, rec in zip(above, recs) if rec and shares_value(rec["text"], later)
                  and not shares_value(rec["text"], earlier)]
        if echoes:
            _put_above(score, [j], max(score[r] for r in echoes))


def _asks_changed_value(query: str, terms: list[str], sorts: frozenset[str] | None,
                        pairs) -> tuple[set[int], set[int]]:
    """The nodes ``b`` of ``pairs`` (:class:`_PairTexts`: ``b`` to go first, the earlier and the
    later text of the two) whose pair disagrees on a value the question asks for: a term of the
    question is in a clause of the earlier-valid one of the two that gives a value the other gives anew
    (:func:`engramdb.changes.changed_clauses`), of the sort the question asks for when its form
    says (:func:`engramdb.changes.asked_sorts`: "when do I take my vitamins?" asks for no dose,
    "what street is my apartment on?" for no rent); or the question names a measure of the sort
    and unit of such a value ("what was my dose before it went up?", "what was my thyroid dose
    before?": :func:`engramdb.changes.asked_measures`).
    Returns those nodes, and of them those whose value the question's form or measure asks for
    (a time, date or amount: it answers what the earlier one answered): "what do I have for
    breakfast?" holds a word of "I take 10 mg of lisinopril every morning with breakfast", which
    "My doctor raised my lisinopril to 20 mg." changes, but asks for no dose.
    A question whose words are in a sentence of the earlier one that names a thing the later one
    replaced (:func:`engramdb.swaps.replaced_sentences`: "What do we use for formatting?" and
    "Formatting: black with line length 100, flake8 for linting.", replaced by "We replaced black,
    flake8 and isort with ruff.") asks for what the later one says now, as relevant.
    "How many milligrams of my antidepressant do I take?" asks for the dose of "I take 50 mg of
    sertraline every morning. Can you remind me to refill it?", which "I'm on 75 mg of sertraline
    now" changes though it shares no word with the question; "where do I live?" asks for nothing
    "The landlord raised my rent to $1,550" changes in "I live in Oakland. My rent is $1,400 a
    month." """
    asked, out, confirmed = set(terms), set(), set()
    measures = [(frozenset({sort}), units) for sort, units in asked_measures(query)
                if sorts is None or sort in sorts]
    for b, earlier, later in pairs:
        if any(changed_clauses(earlier, later, sort, units) for sort, units in measures):
            out.add(b)
            confirmed.add(b)
        elif any(asked.intersection(tokenize(c)) for c in changed_clauses(earlier, later, sorts)):
            out.add(b)
            if sorts is not None:
                confirmed.add(b)
        elif any(asked.intersection(tokenize(c)) - _USE_TERMS for c in replaced_sentences(earlier, later)):
            out.add(b)   # a thing in use the later one replaced, asked for ("What do we use for formatting?")
            confirmed.add(b)
        elif asked.intersection(tokenize(earlier)) and renames(later, earlier):
            out.add(b)   # the name of a thing renamed since, asked for ("What is my cat's name?" and "We
            confirmed.add(b)   # renamed Whiskers to Mochi.", which holds no word of the question)
    return out, confirmed


#: Terms of using a thing, which every sentence that says one is in use may hold: no word of what
#: a question asks for ("What do I use for invoicing?" asks nothing of "I'm using Notion now").
_USE_TERMS = frozenset(tokenize("use uses used using run runs running now currently"))


class _PairTexts:
    """The texts of the candidates in ``pairs`` (sets of ``(a, b)`` rows of ``ctx.cand`` joined by
    ``contradicts``), read once: ``of[nid]`` is a node's text; calling it with some of the pairs
    gives, for each, the node id of ``b``, the text of the one of the two said earlier and that
    of the one said later (:func:`engramdb.temporal.said_after`). A candidate that stands for a
    memory it quotes in a pair (``stand_in``, :func:`_quoted_pairs`: a summary) takes that
    memory's text and valid time in it."""

    def __init__(self, ctx: RecallContext, pairs: set[tuple[int, int]],
                 stand_in: dict[tuple[int, int], tuple[int, int]]) -> None:
        # (either way round: step 6 turns pairs round for a question about the value before)
        self.cn, self.vf = ctx.nodes[ctx.cand], ctx.state.cols.valid_from
        self.stand_in = {**{(j, i): v for (i, j), v in stand_in.items()}, **stand_in}
        nodes = sorted({int(self.cn[x]) for p in pairs for x in p} | {x for _n, x in stand_in.values()})
        self.of = {n: rec["text"] if rec else ""
                   for n, rec in zip(nodes, ctx.state.records(nodes, "reading contradicting memories"))}

    def voice(self, pair: tuple[int, int]) -> int:
        """The node whose words ``pair``'s second candidate says in it: the memory it quotes, for
        a candidate standing for one (a summary), else itself."""
        n, x = self.stand_in.get(pair, (None, None))
        b = int(self.cn[pair[1]])
        return x if b == n else b

    def __call__(self, pairs) -> list[tuple[int, str, str]]:
        out = []
        for i, j in pairs:
            a, b = int(self.cn[i]), int(self.cn[j])
            n, x = self.stand_in.get((i, j), (None, None))   # (a summary: the memory it quotes)
            sa, sb = (x if a == n else a), (x if b == n else b)
            e, l = (sb, sa) if said_after(self.vf[sa], sa, self.vf[sb], sb) else (sa, sb)
            out.append((b, self.of[e], self.of[l]))
        return out


def _blended(ctx: RecallContext, rows: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``score`` (float64, by candidate) times the salience / recency / confidence blend of the
    candidates at node rows ``rows`` (positions in ``ctx.nodes``).

    A memory that is no match of its own (no seed: its score is the pass it took from another
    memory) is blended at most as its sender is (``ctx.inflow_src``, followed back to a seed;
    shown or not, as a superseded wording): the blend, which weighs no match, never lifts it
    above the match it came from. Unbounded, a later message beside the answer ranked above it
    by recency alone ("we meet at 2pm on Fridays" above "My doctor raised my lisinopril to
    20 mg." for "what dose of lisinopril do I take?")."""
    if not len(rows):
        return score
    nodes = ctx.nodes
    cnodes = nodes[rows]
    src = ctx.inflow_src
    if src is None:
        return score * _blend_factor(ctx, cnodes)
    # (a recall blends about k rows: plain Python over them costs less than NumPy's calls)
    n_seeds = len(ctx.seeds)
    passed = [(i, s) for i, (r, s) in enumerate(zip(rows.tolist(), src[rows].tolist())) if r >= n_seeds and s >= 0]
    if not passed:
        return score * _blend_factor(ctx, cnodes)
    # each one's chain of senders back to a seed (a seed's row is below n_seeds; a sender that
    # is no seed is found by its row, read off the reached nodes only then)
    seeds = set(ctx.seeds.tolist())
    chains = [[s] for _i, s in passed]
    open_ = [c for c in chains if c[-1] not in seeds]
    if open_:
        order = np.argsort(nodes, kind="stable")
        sorted_nodes = nodes[order]
        for _ in range(7):   # one level of every open chain at a time (a few hops at most)
            last = np.array([c[-1] for c in open_], np.int64)
            at = np.minimum(np.searchsorted(sorted_nodes, last), len(nodes) - 1)
            up = np.where(sorted_nodes[at] == last, src[order[at]], -1).tolist()   # -1: not reached
            nxt = []
            for c, u in zip(open_, up):
                if u >= 0:
                    c.append(u)
                    if u not in seeds:
                        nxt.append(c)
            open_ = nxt
            if not open_:
                break
    flat = [s for chain in chains for s in chain]
    both = _blend_factor(ctx, np.array(cnodes.tolist() + flat, np.int64)).tolist()   # one pass
    factor, at = both[: len(cnodes)], len(cnodes)
    for (i, _s), chain in zip(passed, chains):
        factor[i] = min([factor[i]] + both[at: at + len(chain)])
        at += len(chain)
    return score * np.array(factor)


def _blend_factor(ctx: RecallContext, cnodes: np.ndarray) -> np.ndarray:
    """The salience / recency / confidence blend of nodes ``cnodes`` (ndarray of node ids):
    1 - ws - wr - wc + ws * salience(now) + wr * recency + wc * confidence (float64)."""
    state, req, cfg = ctx.state, ctx.request, ctx.request.config
    c = state.cols
    ws, wr, wc = cfg.w_salience, cfg.w_recency, cfg.w_confidence
    blend = 1.0 - ws - wr - wc + wc * c.confidence[cnodes]
    if ws:
        blend = blend + ws * state.salience_now(cnodes, req.now)
    if wr:
        age = np.maximum(req.now - c.created_at[cnodes], 0.0)
        blend = blend + wr * np.exp2(-age / cfg.recency_half_life_s)
    return blend


def _unblended_joined(ctx: RecallContext, only: np.ndarray | None = None) -> None:
    """Blend the candidates :func:`run` set aside and append them to ``ctx.cand`` and
    ``ctx.score`` (positions already handed out keep their meaning); with ``only`` (positions
    in the set-aside arrays, int), just those, the rest staying aside."""
    rest = ctx.extra.pop("unblended", None)
    if rest is None:
        return
    cand, score, want = rest
    if only is not None:
        keep = np.ones(len(cand), bool)
        keep[only] = False
        if keep.any():
            ctx.extra["unblended"] = (cand[keep], score[keep], want)
        cand, score = cand[only], score[only]
    if len(cand):
        ctx.cand = np.concatenate([ctx.cand, cand])
        ctx.score = np.concatenate([ctx.score, _blended(ctx, cand, score)])


def ranked(ctx: RecallContext, first: int) -> Iterator[int]:
    """Candidate positions (rows of ``ctx.cand``) best first: by score, an exact tie by cosine to
    the query (:func:`tie_cosines`), then by node id (insertion order). The best ``first`` come
    from the ``topk`` kernel; all the rest follow, in the same order, only if the caller reads
    past them (e.g. a tag filter dropped some).

    The kernel ranks float32 scores, breaking ties by position; every candidate whose float32
    score equals that of the kernel's last pick joins the pool that :func:`_order` sorts by the
    float64 score, so a tie straddling the cut is settled by the rule, not by the kernel.
    """
    topk = ctx.state.scratch.get("topk")
    if topk is None:
        topk = ctx.state.scratch["topk"] = registry.get("topk")
    if first > ctx.extra.get("unblended", (0, 0, first))[2]:   # more than run kept the best of
        _unblended_joined(ctx)
    score32 = ctx.score.astype(np.float32)
    head = topk(score32, first)
    if not len(head):
        return
    s32 = score32[head]
    edge = s32[-1]
    full = len(head) < len(score32)
    if (s32[1:] != s32[:-1]).all() and not (full and int(np.count_nonzero(score32 == edge)) > 1):
        yield from head.tolist()   # no two equal scores among them, none tied at the cut: as picked
    else:
        if full:
            head = np.union1d(head, np.flatnonzero(score32 == edge))
        head = _order(ctx, head)[:first]
        yield from head.tolist()
    if "unblended" in ctx.extra:   # a caller reads past them: blend the candidates run set aside
        _unblended_joined(ctx)
    if len(head) < len(ctx.score):
        rest = np.ones(len(ctx.score), bool)
        rest[head] = False
        yield from _order(ctx, np.flatnonzero(rest)).tolist()


def _order(ctx: RecallContext, pos: np.ndarray) -> np.ndarray:
    """Candidate positions ``pos`` (ndarray of int, shape (n,)) sorted by the rule of
    :func:`ranked`: score (float64) highest first, then cosine to the query (computed for the
    tied ones only), then node id. Returns the sorted positions (same dtype and shape)."""
    score, nid = ctx.score[pos], ctx.nodes[ctx.cand[pos]]
    o = np.lexsort((nid, -score))
    pos, score, nid = pos[o], score[o], nid[o]
    same = score[1:] == score[:-1]
    if not same.any():
        return pos
    tied = np.zeros(len(pos), bool)
    tied[1:] |= same
    tied[:-1] |= same
    cos = np.zeros(len(pos), np.float64)
    cos[tied] = tie_cosines(ctx, pos[tied])
    return pos[np.lexsort((nid, -cos, -score))]


def tie_cosines(ctx: RecallContext, pos: np.ndarray) -> np.ndarray:
    """Cosine of the query vector to each candidate at ``pos`` (rows of ``ctx.cand``), the
    memory's hit as results shows it: a memory stored as pieces is shown at its best matching
    piece (``ctx.extra["shown_piece"]``, :func:`engramdb.recall.seeds.lift_pieces`), whose
    cosine counts.

    Parameters
    ----------
    ctx : RecallContext
        After the ranking stage (``ctx.cand``, ``ctx.nodes``, the request's query vector).
    pos : ndarray of int, shape (n,)
        Candidate positions.

    Returns
    -------
    ndarray of float64, shape (n,)
        Dot products of unit float32 vectors, in [-1, 1] (:meth:`RecallContext.cosines`: a
        seed's as the seeds stage found it, read once per recall).
    """
    nids = ctx.nodes[ctx.cand[pos]].astype(np.int64)
    shown = ctx.extra.get("shown_piece")
    if shown:
        heads = ctx.state.cols.head[nids].tolist()
        nids = np.array([shown.get(h, (n,))[0] for h, n in zip(heads, nids.tolist())], np.int64)
    return np.array(ctx.cosines(nids.tolist()), np.float64)
