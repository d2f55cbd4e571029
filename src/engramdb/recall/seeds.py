"""Recall stage 1, seeds: the vector leg, the keyword leg with feedback, and their fusion.

The legs run side by side where a core is spare: everything the question's text gives (keyword
leg, time windows, slot cues: :func:`_text_leg`) on a worker thread while hnswlib searches
(:mod:`.legs`; ``RecallConfig.parallel_legs``).

- vector leg: the ``seed_k`` nearest memories in the namespace's hnswlib index (cosine >=
  ``cosine_floor``);
- keyword leg: the best ``keyword_k`` memories by BM25 over the namespace's postings, run a
  second time with the query plus the ``prf_terms`` most telling terms of its first
  ``prf_docs`` hits (pseudo-relevance feedback: Rocchio 1971; RM3, Lavrenko & Croft 2001);
- fusion: base = w_vector * v + w_keyword * kw on one scale (:func:`fuse`), the best seed at 1;
- cue seeds, from what the question names rather than the words it shares with a memory:

  * time windows ("last week", "on 14 October": :func:`time_windows`, kept in ``ctx.windows``
    for ranking); when the question is mostly a time expression (:func:`content_words` at most
    ``time_question_words``), the memories whose event time falls in a window join the seeds
    (:func:`window_seeds`), so "What happened last week?" answers from that week even when no
    memory shares its words;
  * slots: a question that names a slot's attribute and subject ("what is my job?") adds the
    slot's current memories, with a boost (:func:`slot_seeds`); one that also names a past time
    the current value does not cover ("where did I live in February?") adds the superseded
    memories that held the slot then, which recall shows although superseded
    (:func:`slot_held_then`);
  * statements of a relation asked for: a question for the speaker's current home or employer
    in any words ("what city am I in these days?") adds the namespace's statements of it
    (:func:`standing_seeds`);
  * later statements: a question for the speaker's current home or employer ("where do I
    live?") adds the later statements of that relation a seed's chain of ``contradicts`` edges
    reaches ("I moved to Seattle last month." beside "I live in Boston."), at that seed's base
    (:func:`later_standing`).

  Cue seeds merge with the fused ones (a window seed's base is at least its window base; a
  slot boost is added) and the bases are rescaled so the best is 1 again.
"""
from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any, Collection

import numpy as np

from ..batch_plan import is_block_id
from ..config import RecallConfig
from ..index.keyword import KeywordIndex, tokenize
from ..slots import slot_cues, subject_weights
from ..standing import STANDING_BITS, STANDING_WORDS, asked_standing, asks_for_place, asks_only_standing, standings
from ..timeref import past_end, resolve_time_refs
from ..types import _STATE_CODES, MemoryState, Relation
from ..kernels import registry
from . import legs, router
from .context import RecallContext
from .filters import seedable as filters_seedable
from .ranking import (asks_before, contradicts_nodes, earlier_contradicting, later_contradicting, namespace_in_windows,
                      valid_spans)

_SUPERSEDED = _STATE_CODES[MemoryState.SUPERSEDED]
_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]
_SUPERSEDES = Relation.SUPERSEDES.code
_PLACES = frozenset({"home", "employer"})   # (the relations asks_for_place reads)
_FLOAT32_0 = np.zeros(0, np.float32)
_KERNELS: dict = {}   # the registry's kernels of this module, each looked up on first use


def _kernel(name: str):
    """The registry's kernel ``name``, looked up once (the registry takes its lock each time)."""
    kernel = _KERNELS.get(name)
    if kernel is None:
        kernel = _KERNELS[name] = registry.get(name)
    return kernel

__all__ = ["run", "seedable", "vector_tail", "current_versions", "later_standing", "later_values", "now_only", "keyword_leg", "fuse", "time_windows", "content_words", "window_seeds", "window_holds_nothing", "slot_seeds", "slot_held_then", "slot_changed_since",
           "TIME_FILLER"]

#: Words that carry no content in a question about a time ("what did I do", "what happened",
#: "anything new", a weekday beside a date): left out when counting its content words
#: (:func:`content_words`).
TIME_FILLER = ("did do does doing done happen happened happening went go goes going got get gets thing things "
               "new tell remind event events activity activities anything something everything "
               "monday tuesday wednesday thursday friday saturday sunday morning afternoon evening night "
               "day days week weeks weekend month months year years time")


def run(ctx: RecallContext) -> None:
    """Fill ``ctx.vec_*``, ``ctx.kw_*``, ``ctx.windows``, ``ctx.seeds``, ``ctx.base`` and
    ``ctx.seed_cos``."""
    req, cfg = ctx.request, ctx.request.config
    # what the question's text gives (keyword leg, time windows, slot cues) on the worker thread
    # while this one searches hnswlib: hnswlib releases the GIL, so even the Python parts overlap
    pending = legs.start(_text_leg, ctx) if req.query is not None and cfg.parallel_legs else None
    try:
        _vector_leg(ctx)
    except BaseException:
        if pending is not None:
            pending.discard()
        raise
    kw_cos = None
    floor: dict[int, float] = {}
    boost: dict[int, float] = {}
    if req.query is not None:
        ctx.kw_nids, ctx.kw_score, kw_cos, ctx.windows, floor, boost = (
            pending.result() if pending is not None else _text_leg(ctx))
    if kw_cos is None and len(ctx.kw_nids):
        kw_cos = _keyword_cosines(ctx)
    ctx.extra["value_cue"] = value_cue(ctx, ctx.windows)   # (for ranking's time cues)
    ctx.seeds, ctx.base, ctx.seed_cos = fuse(ctx.vec_nids, ctx.vec_cos, ctx.kw_nids, ctx.kw_score,
                                             _FLOAT32_0 if kw_cos is None else kw_cos, cfg)
    current = current_versions(ctx)
    gives = standing_seeds(ctx)
    later = later_standing(ctx, ctx.windows, gives)
    later = {**later_values(ctx, ctx.windows, later), **later}
    replaced = replaced_values(ctx, ctx.windows)
    held = {nid: 1.0 for _slot, _w, _now, nids in slot_held_then(ctx) for nid in nids}
    if current or later or replaced or held:
        floor = dict(floor)
        for nid, base in [*current.items(), *later.items(), *replaced.items(), *held.items()]:
            floor[nid] = max(floor.get(nid, 0.0), base)
    if gives:   # with the later statements reached from them (a chain steps through one relation)
        for nid, chain in ctx.extra.get("later_of", {}).items():
            if chain[0] in gives and nid not in gives:
                gives[nid] = gives[chain[0]]
        asked = standing_boosts(ctx, gives)
        boost = {**boost, **{nid: max(b, boost.get(nid, 0.0)) for nid, b in asked.items()}}
    if floor or boost:
        _merge_cue_seeds(ctx, floor, boost)
    lift_pieces(ctx)


def replaced_values(ctx: RecallContext, windows: list) -> dict[int, float]:
    """For a question for the value a change replaced, naming no past time ("where did I work
    before Leeds General Infirmary?", "what did we use before uv?":
    :func:`engramdb.recall.ranking.asks_before`): the memories a seed's ``contradicts`` edge joins
    to it that were said before it, nid -> the best base of such seeds. The earlier statement
    often shares no word or likeness with the question, which names the new value ("I'm an RN at
    St. Mary's" below "I accepted an offer from Leeds General Infirmary!"); ranking then puts it
    above the later one (:func:`engramdb.recall.ranking.run`, step 6). A memory that may not seed
    (forgotten, filtered, hidden by a censor rule) is left out."""
    req = ctx.request
    if req.query is None or not len(ctx.seeds) or not _asks_now(ctx, windows) or not asks_before(req.query):
        return {}
    state = ctx.state
    csr = state.recall_csr()
    touched = contradicts_nodes(state, csr)[0]
    vf = state.cols.valid_from
    out: dict[int, float] = {}
    for x, base in zip(ctx.seeds.tolist(), ctx.base.tolist()):
        if x not in touched:
            continue
        ys = earlier_contradicting(csr, vf, x)
        for y in ys[_may_seed(ctx, ys)].tolist() if len(ys) else ():
            out[y] = max(out.get(y, 0.0), float(base))
    return out


def current_versions(ctx: RecallContext) -> dict[int, float]:
    """The current version of each superseded seed: nid -> the best base of the seeds it
    supersedes (over a chain A <- B <- C, C takes A's base). A question worded like an old
    version (a superseded memory seeds, it leads to its successor) so reaches the current one
    however many corrections lie between them, not only the next one over the ``supersedes``
    edge. A current version that may not seed (forgotten, hidden by a censor rule) is left out.
    Sets ``ctx.extra["current_of"]``: current version -> its chain of nids (the old seed first)
    for those whose inherited base beats their own match: results shows that chain as the
    hit's path.
    """
    cols = ctx.state.cols
    rows = np.flatnonzero(cols.state[ctx.seeds] == _SUPERSEDED)
    if not len(rows):
        return {}
    csr = ctx.state.recall_csr()
    out: dict[int, float] = {}
    chains: dict[int, list[int]] = {}
    for i in rows.tolist():
        chain = [int(ctx.seeds[i])]
        while cols.state[chain[-1]] == _SUPERSEDED and len(chain) <= 64:
            node = chain[-1]
            lo, hi = int(csr.indptr[node]), int(csr.indptr[node + 1])
            succ = [int(v) for v, r, f in zip(csr.indices[lo:hi].tolist(), csr.relation[lo:hi].tolist(),
                                              csr.forward[lo:hi].tolist()) if r == _SUPERSEDES and not f]
            if not succ or max(succ) in chain:
                break
            chain.append(max(succ))   # the latest successor
        head, base = chain[-1], float(ctx.base[i])
        if len(chain) > 1 and cols.state[head] != _SUPERSEDED and base > out.get(head, 0.0):
            out[head], chains[head] = base, chain
    if out:
        nids = np.fromiter(out, np.int64, len(out))
        keep = _may_seed(ctx, nids)
        out = {n: out[n] for n, k in zip(nids.tolist(), keep.tolist()) if k}
        own = dict(zip(ctx.seeds.tolist(), ctx.base.tolist()))
        # the path of a current version that its old wording placed: the chain of corrections
        ctx.extra["current_of"] = {n: chains[n] for n in out if out[n] > own.get(n, 0.0)}
    return out


#: How many statements of the relation a question asks for (the latest stored of the namespace)
#: :func:`standing_seeds` reads.
STANDING_SEED_CANDIDATES = 64


def standing_seeds(ctx: RecallContext) -> dict[int, set[str]]:
    """For a question that asks for the speaker's home or employer now
    (:func:`engramdb.standing.asked_standing`; a time it names must hold the recall's ``now``):
    the namespace's statements of that relation, nid -> the relations asked for that it gives;
    they join the seeds with a boost (:func:`standing_boosts`), as a slot's current memories do
    for a question naming the slot (the relation is a slot the write path reads without an
    extractor). They are found by the column the write path fills (``Columns.standing``, the
    latest :data:`STANDING_SEED_CANDIDATES` of the namespace: "I'm a nurse at Mass General."
    holds none of the relation's words) and kept when
    :func:`engramdb.standing.standings` reads the relation in them, so a question in other words
    ("what city am I in these days?", "which company employs me?") reaches "I live in Boston" and
    "we're now living in Portland" although it shares no word with them; ranking then puts the
    latest first (step 6; :func:`later_standing` starts from them too, so a later statement the
    search missed is reached over the ``contradicts`` edges). Only memories that may seed and
    pass the filters. Sets ``ctx.extra["standing_unstated"]``: the relations asked for that none
    of them gives (:func:`engramdb.recall.results.run` reports an ``unstated`` gap for those no
    memory may state either, read loosely: "where do I work?" in a store that never says)."""
    req = ctx.request
    if req.query is None or req.config.w_slot <= 0 or ctx.space.keyword is None:
        return {}
    times, then = tuple(w.text for w in ctx.windows), _past_end(ctx)
    if _asks_now(ctx, ctx.windows):
        asked = asks_only_standing(req.query, times=times)
    elif then is not None:
        asked = asks_only_standing(req.query, past=True, times=times)   # "where did I work in February?"
    else:
        return {}
    if not asked:
        return {}
    cols = ctx.state.cols
    bits = sum(STANDING_BITS[rel] for rel in asked)
    nids = np.flatnonzero(cols.standing[: cols.n] & bits)
    nids = nids[cols.ns[nids] == ctx.space.code][-STANDING_SEED_CANDIDATES:]   # the latest stored
    gives = _giving(ctx, nids.astype(np.int64), asked)
    # the relations asked for that no statement found gives (results says so when no hit does)
    ctx.extra["standing_unstated"] = asked - set().union(*gives.values())
    if gives and then is not None:
        # the statements they changed, or that changed them, without the relation's words ("I'm a
        # backend engineer at Finlytics" before "I accepted an offer from Northwind"): at a past
        # time the one valid then is often the earlier one (the present reaches later ones:
        # later_standing)
        csr = ctx.state.recall_csr()
        code = Relation.CONTRADICTS.code
        more = {int(y) for x in gives for y in csr.related(x, code).tolist()} - set(gives)
        if more:
            gives.update(_giving(ctx, np.fromiter(sorted(more), np.int64, len(more)), asked))
    return gives


def _giving(ctx: RecallContext, nids: np.ndarray, asked: frozenset[str]) -> dict[int, set[str]]:
    """Those of ``nids`` (int64) that may seed, pass the filters and state one of the relations
    ``asked`` (:func:`engramdb.standing.standings` of their text): nid -> the relations. A session
    summary (tagged ``summary``) states none of its own: it quotes its turns, which do, and is
    dated by its session's newest turn, so "I live in Boston" quoted in it read as the latest
    statement of a home the session changed ("we moved to Denver"); ranking pairs it with the
    change as the turn it quotes (:func:`engramdb.recall.ranking.quoting_nodes`)."""
    nids = _passing(ctx, nids)
    nids = nids[_may_seed(ctx, nids)]
    if not len(nids):
        return {}
    recs = ctx.state.records(nids.tolist(), "reading statements of the relation asked for")
    return {n: rels for n, rec in zip(nids.tolist(), recs)
            if rec and "summary" not in rec["tags"] and (rels := asked & {s.relation for s in standings(rec["text"])})}


def standing_boosts(ctx: RecallContext, gives: dict[int, set[str]]) -> dict[int, float]:
    """The boosts of the statements of the relations asked for (:func:`standing_seeds`, with the
    later ones :func:`later_standing` reached from them): nid -> ``w_slot`` for the current
    statement of each relation (valid at the time asked, ``valid_at`` or ``now``, and changed by
    no later one the recall may see; of several, the latest), half of it for the others. Sets
    ``ctx.extra["standing_match"]`` (the current ones: results reports them as relevant, and
    ranking puts them above every other candidate) and, for a question that asks for the place
    itself (:func:`engramdb.standing.asks_for_place`), ``ctx.extra["standing_others"]`` (the
    rest, which ranking puts next)."""
    req = ctx.request
    nids = np.fromiter(gives, np.int64, len(gives))
    then = _past_end(ctx)
    at = req.filters.valid_at if req.filters.valid_at is not None else then
    at = req.now if at is None else at
    relations = set().union(*gives.values())
    words = tuple(w for rel in sorted(relations) for w in STANDING_WORDS[rel])   # (a later rent is no move)
    start, end = valid_spans(ctx.state, ctx.state.recall_csr(), nids, req.filters, at, ctx.space.keyword, words)
    vf = ctx.state.cols.valid_from[nids]
    holds = (vf <= at) & (~np.isfinite(start) | (end >= at))
    current = set()
    for rel in relations:
        of_rel = [i for i, n in enumerate(nids.tolist()) if rel in gives[n] and holds[i]]
        if of_rel:
            current.add(int(nids[max(of_rel, key=lambda i: (vf[i], nids[i]))]))
    if then is not None and req.filters.valid_at is None and not current:
        return {}   # (a past time no statement holds, "where did I live in 2023?": none of them answers)
    employer = [n for n in current if "employer" in gives[n]]
    if not employer and "employer" in relations:   # (its span ended by the leaving: "I quit my job.")
        was = [i for i, n in enumerate(nids.tolist()) if "employer" in gives[n] and vf[i] <= at]
        employer = [int(nids[max(was, key=lambda i: (vf[i], nids[i]))])] if was else []
    ended = _employer_ended(ctx, employer, at)
    if ended:   # the memory that ended it answers now ("I got laid off from Hooli last week.")
        current = (current - set(ended)) | set(ended.values())
        gives = {**gives, **{n: {"employer"} for n in ended.values()}}
    ctx.extra["standing_match"] = dict.fromkeys(current, 1.0)
    if any(asks_for_place(req.query, rel) for rel in relations if rel in _PLACES):
        # (the place itself: "where do I live?"; not "what's my address?", which a statement of
        # no relation may answer best, "My address is 1420 Elm St")
        ctx.extra["standing_others"] = [n for n in gives if n not in current]
    return {n: req.config.w_slot * (1.0 if n in current else 0.5) for n in gives}


def _employer_ended(ctx: RecallContext, statements: list[int], at: float) -> dict[int, int]:
    """Of the current statements of the speaker's employer (nids), those a later memory linked
    ``contradicts`` says the speaker left ("I quit Hooli", "I got laid off from Hooli":
    :func:`engramdb.swaps.swap_report`, a drop of the employer's name or "my job"), valid by ``at`` and
    one the recall may see: statement nid -> that memory's nid (the latest). It names no new
    employer, so no statement of the relation changes the one it ends."""
    if not statements:
        return {}
    from ..swaps import LEFT_JOB, swap_report

    state, csr = ctx.state, ctx.state.recall_csr()
    vf = state.cols.valid_from
    out: dict[int, int] = {}
    for x in statements:
        ys = later_contradicting(csr, vf, x)
        ys = ys[vf[ys] <= at]
        ys = ys[_may_seed(ctx, ys)] if len(ys) else ys
        if not len(ys):
            continue
        recs = state.records([x, *ys.tolist()], "reading an employer's end")
        if recs[0] is None:
            continue
        names = {got.value for got in standings(recs[0]["text"]) if got.relation == "employer"}
        for y, rec in sorted(zip(ys.tolist(), recs[1:]), key=lambda p: -vf[p[0]]):
            report = swap_report(rec["text"]) if rec else None
            if report is not None and not report.new and (not names.isdisjoint(report.old) or report.thing == LEFT_JOB):
                out[x] = y
                break
    return out


def later_standing(ctx: RecallContext, windows: list, more: dict[int, float] | None = None) -> dict[int, float]:
    """For a question that asks for the speaker's home or employer now ("where do I live?":
    :func:`engramdb.standing.asked_standing`; a time it names must hold the recall's ``now``,
    "where do I live today?"): the statements of that relation valid later (by ``now``;
    :func:`engramdb.temporal.said_after`) that a
    seed's chain of ``contradicts`` edges reaches, each step to a later one of the same relation
    ("I live in Boston." -> "I moved to Seattle last month." -> "I moved back to Boston."), nid
    -> the best base of such seeds. The later statements often share no word or likeness with
    the question; ``contradicts`` carries no activation, so they would not be reached. Ranking
    then puts each above the one before it (:func:`engramdb.recall.ranking.run`, step 6). A
    memory that may not seed (forgotten, filtered, hidden by a censor rule) ends its chain. Sets
    ``ctx.extra["later_of"]``: later statement -> its chain of nids, the seed first (results
    shows the chain as its path and gives it at least the seed's relevance). ``more``: memories
    to start from besides the seeds (:func:`standing_seeds`; one not a seed at a base of 1e-6,
    so a chain from a seed is preferred)."""
    req = ctx.request
    if req.query is None or not (len(ctx.seeds) or more) or not _asks_now(ctx, windows):
        return {}
    state = ctx.state
    csr = state.recall_csr()
    touched = contradicts_nodes(state, csr)[0]
    listed = ctx.seeds.tolist()
    bases = ctx.base.tolist()
    for nid in (more or {}):   # (a chain from a seed, its base, wins over one from these)
        if nid not in listed:
            listed.append(nid)
            bases.append(1e-6)
    if touched.isdisjoint(listed):   # (most recalls: no question is read)
        return {}
    asked = asked_standing(req.query)
    if not asked:
        return {}
    vf, now = state.cols.valid_from, req.now
    rel_of: dict[int, set[str]] = {}   # nid -> the relations asked for that it gives (read once)

    def relations(nids: list[int]) -> list[set[str]]:
        missing = list(dict.fromkeys(n for n in nids if n not in rel_of))
        if missing:
            for n, rec in zip(missing, state.records(missing, "reading contradicting memories")):
                rel_of[n] = {s.relation for s in standings(rec["text"])} & asked if rec else set()
        return [rel_of[n] for n in nids]

    out: dict[int, float] = {}
    chains: dict[int, list[int]] = {}
    frontier = [([x], float(bases[i])) for i, x in enumerate(listed) if x in touched and vf[x] <= now]
    frontier = [(c, b) for (c, b), rel in zip(frontier, relations([c[-1] for c, _b in frontier])) if rel]
    for _depth in range(8):   # each step one later statement (a few moves at most)
        steps = []
        for chain, base in frontier:
            ys = later_contradicting(csr, vf, chain[-1])
            ys = ys[vf[ys] <= now]
            steps += [(chain, base, y) for y in ys.tolist() if y not in chain and base > out.get(y, 0.0)]
        if not steps:
            break
        ys = np.array([y for _c, _b, y in steps], np.int64)
        ok = _may_seed(ctx, ys)
        rels = relations([y for _c, _b, y in steps])
        frontier = []
        for (chain, base, y), fine, rel in zip(steps, ok.tolist(), rels):
            if fine and rel & relations([chain[-1]])[0] and base > out.get(y, 0.0):
                out[y], chains[y] = base, chain + [y]
                frontier.append((chain + [y], base))
    if out:
        ctx.extra["later_of"] = chains
    return out


#: How many of the best seeds :func:`later_values` follows.
LATER_VALUE_SEEDS = 5


def later_values(ctx: RecallContext, windows: list, found: Collection[int] = ()) -> dict[int, float]:
    """For a question that names no past time (or one that holds the recall's ``now``) and asks
    for no value a change replaced (:func:`engramdb.recall.ranking.asks_before`): the statements
    valid later (by ``now``) that a chain of ``contradicts`` edges reaches from one of the
    :data:`LATER_VALUE_SEEDS` best seeds, nid -> the best base of such seeds; the write path
    links a statement to the one whose value it changed so ("My doctor increased my sertraline to
    100 mg." after "I take 50 mg of sertraline every morning."). ``contradicts`` carries no
    activation and the later statement often shares no word with the question ("what medication
    am I on?"): it was not reached, and the answer was the old value, with a warning naming a
    memory the hits did not hold (helper-239). Ranking then puts the two in order (step 6 of
    :func:`engramdb.recall.ranking.run`). :func:`later_standing` does the same for a question
    for the speaker's home or employer, with the chain as the path (``found``: its memories,
    left to it). A memory that may not seed ends its chain, and so does one that holds no
    keyword term of the memory before it: a ``contradicts`` link made by hand may join notes of
    two things ("Unrelated entry on pottery glazes." and "The gate code is 1111."), and a message
    of several claims changed in one of them may be changed in another by a later message that
    says nothing of the first ("I'm pescatarian now." after "I take 50 mg of sertraline every
    morning, and I'm vegetarian": not for "what dose of sertraline do I take?")."""
    req = ctx.request
    if req.query is None or not len(ctx.seeds):
        return {}
    state = ctx.state
    csr = state.recall_csr()
    touched = contradicts_nodes(state, csr)[0]
    best = np.argsort(-ctx.base, kind="stable")[:LATER_VALUE_SEEDS]
    frontier = [(x, b) for x, b in zip(ctx.seeds[best].tolist(), ctx.base[best].tolist()) if x in touched]
    if not frontier or not _asks_now(ctx, windows) or asks_before(req.query):   # (most recalls: no edge)
        return {}
    vf, now = state.cols.valid_from, req.now
    seen = {x for x, _b in frontier}
    out: dict[int, float] = {}
    for _depth in range(8):   # each step one later statement (a few changes at most)
        steps = []   # (later, base, the memory before it)
        for x, base in frontier:
            ys = later_contradicting(csr, vf, x)
            steps += [(y, base, x) for y in ys[vf[ys] <= now].tolist() if y not in seen and y not in found]
        if not steps:
            break
        ok = _may_seed(ctx, np.array([y for y, _b, _x in steps], np.int64)).tolist()
        frontier = []
        for (y, base, x), fine in zip(steps, ok):
            if fine and base > out.get(y, 0.0) and _share_a_term(ctx, x, y):
                out[y] = base
                frontier.append((y, base))
        seen.update(y for y, _b in frontier)
    return out


def _share_a_term(ctx: RecallContext, x: int, y: int) -> bool:
    """Whether memories ``x`` and ``y`` hold a keyword term in common (the forward index)."""
    kw = ctx.space.keyword
    a, b = kw.term_ids(x), kw.term_ids(y)
    return bool(len(a) and len(b) and np.intersect1d(a, b).size)


def _past_end(ctx: RecallContext) -> float | None:
    """For a question that names a past time only ("where did I work in February?": every
    window ends by the question's now, :meth:`RecallContext.cue_now`), the last moment of it (just before
    the latest window's core ends), Unix seconds; else None."""
    return past_end(ctx.windows, ctx.cue_now())


def _asks_now(ctx: RecallContext, windows: list) -> bool:
    """Whether every time the question names holds its ``now`` (:func:`now_only` against the
    question's clock, :meth:`RecallContext.cue_now`); True when it names none."""
    return not windows or now_only(windows, ctx.cue_now())


def now_only(windows: list, now: float) -> bool:
    """Whether every time window a question names holds ``now`` (the question's own now,
    :meth:`RecallContext.cue_now`: "today", "this year"; none named: True): it asks for what holds now."""
    return all(w.start <= now < w.end for w in windows)


def _text_leg(ctx: RecallContext) -> tuple:
    """What the question's text gives, apart from the vector leg: the keyword leg with its
    memories' cosines (:func:`_keyword_job`; empty when ``w_keyword`` is 0), the time windows
    (:func:`time_windows`), the window seeds and the slot boosts. Reads the request, the state
    and ``ctx.allowed`` only, so it may run beside :func:`_vector_leg` (:mod:`.legs`); the caller
    stores the windows (``ctx.windows``) and the keyword leg (``ctx.kw_*``)."""
    kw = _keyword_job(ctx) if ctx.request.config.w_keyword > 0 else (ctx.kw_nids, ctx.kw_score, None)
    windows = time_windows(ctx)
    return (*kw, windows, window_seeds(ctx, windows), slot_seeds(ctx))


def _vector_leg(ctx: RecallContext) -> None:
    """Fill ``ctx.vec_nids`` and ``ctx.vec_cos``: the ``seed_k`` nearest memories that may seed
    (:func:`seedable`, not hidden by a censor rule, cosine >= ``cosine_floor``), best first,
    equal cosines in insertion order. They depend on ``seed_k`` alone, never on k, so a
    recall's first hits do not depend on how many were asked for: the search asks for up to 4 x
    ``seed_k`` (what one search at hnswlib's ef costs anyway) and asks again for twice as many
    while memories that may not seed (a forgotten one among the nearest) leave fewer, or while
    equal cosines straddle the cut and the answer holds no memory past them (duplicates:
    hnswlib orders equal distances arbitrarily), up to 8 x (``seed_k`` + 1) memories: beyond
    that a tie keeps hnswlib's members of it, in insertion order, and the seeds may be fewer.
    What fills a recall that reached fewer than k hits is searched for only then
    (:func:`vector_tail`)."""
    cfg = ctx.request.config
    want = cfg.seed_k
    # hnswlib's cost follows its ef (ef_search, or n when larger), not n: asking for up to 4 x
    # seed_k at once costs what seed_k + 1 does and settles most ties and forgotten neighbours
    n = max(want + 1, min(4 * want + 1, ctx.space.index.ef_search))
    most = max(n, 8 * (want + 1))
    while True:
        labels, cos, keep = _nearest(ctx, n)
        if len(labels) < n or (len(cos) and cos[-1] < cfg.cosine_floor) or n >= most:
            break   # every memory searched, the rest is below the floor, or the widening's bound
        kept = cos[keep]
        if len(kept) > want and (kept[want - 1] != kept[want] or cos[-1] < kept[want - 1]):
            break   # enough may seed, and every memory tied at the cut is among them
        n = min(2 * n, most)
    cols = ctx.state.cols
    if cols.censor is not None:   # a memory a censor rule hides is never a seed (logged as a hit)
        keep = _uncensored(cols, labels, keep)
    ctx.vec_nids, ctx.vec_cos = labels[keep][:want], cos[keep][:want]


def _nearest(ctx: RecallContext, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``n`` nearest memories of the query vector (hnswlib; an exact scan among
    ``ctx.allowed`` when a selective filter set it), labels int64 and cosines float32 lifted
    toward their sentence keys' (:func:`sentence_cosines`), best first by those, equal cosines
    in insertion order; and which of them may seed (bool), a censor rule apart."""
    req, cfg = ctx.request, ctx.request.config
    if ctx.allowed is None:
        labels, cos = ctx.space.index.knn(req.vector, n)
    else:   # a selective filter: the exact nearest among the memories that pass it
        labels, cos = ctx.space.index.exact_knn(req.vector, n, labels=ctx.allowed)
    lifted = sentence_cosines(ctx, labels, cos)
    if lifted is not cos or (len(cos) > 1 and (cos[1:] == cos[:-1]).any()):   # equal: the earlier-recorded first
        order = np.lexsort((labels, -lifted))
        labels, cos = labels[order], lifted[order]
    return labels, cos, (cos >= cfg.cosine_floor) & seedable(ctx, labels)


def vector_tail(ctx: RecallContext, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The nearest memories past the seeds that may seed, best first (labels int64, cosines
    float32; a censor rule's hidden ones left out, unlogged): from a search for ``n`` plus the
    seeds. What fills a recall that reached fewer hits than it was asked for."""
    labels, cos, keep = _nearest(ctx, n + len(ctx.vec_nids))
    cols = ctx.state.cols
    if cols.censor is not None:
        keep = keep & ~cols.blocked[labels]
    keep &= ~np.isin(labels, ctx.vec_nids)
    return labels[keep], cos[keep]


def lift_pieces(ctx: RecallContext) -> None:
    """A memory stored as pieces is one node of the graph walk: the first piece of each memory
    with a matching piece among the seeds takes the best base of its pieces (MaxP, Dai & Callan
    2019), joining the seeds if it was not one, so spreading reaches the memory's neighbours
    (the message before and after it, its links, all held by the first piece) in one hop from
    whichever piece matched, as from a memory stored whole. Before, a piece reached them only
    through its ``extracted_from`` edge to the first piece, one hop and one decay further.

    Sets ``ctx.extra["shown_piece"]``: first-piece nid -> (nid, seed row) of the memory's seed
    with the best base of its own (the piece that matched best), which results shows as the
    memory's hit (:func:`engramdb.recall.results.run`); a memory with no later piece among the
    seeds has no entry. A block of a conversation message split into blocks is scored by the
    keyword leg with its message's length (:func:`engramdb.batch_plan.is_block`), so the
    message's own match may be the best: it is still shown at its best block among the seeds
    (``Hit.chunk``), the part of the answer that matched.
    A memory a censor rule hides is not lifted (none of its pieces is a seed: :func:`_uncensored`).
    """
    seeds = ctx.seeds
    if not len(seeds):
        return
    head = ctx.state.cols.head[seeds]
    moved = np.flatnonzero(head != seeds)
    if not len(moved):
        return
    seed_list, base_list = seeds.tolist(), ctx.base.tolist()
    row_of = {n: i for i, n in enumerate(seed_list)}
    best: dict[int, int] = {}   # first piece -> seed row of its best direct match
    later: dict[int, int] = {}   # first piece -> seed row of its best later piece
    for i in moved.tolist():
        h = int(head[i])
        j = best.get(h, row_of.get(h, i))
        best[h] = i if base_list[i] > base_list[j] else j
        k = later.get(h, i)
        later[h] = i if base_list[i] > base_list[k] else k
    new = [h for h in best if h not in row_of]
    base = ctx.base.copy()
    for h, j in best.items():
        if h in row_of:
            base[row_of[h]] = base_list[j]
    if new:
        rows = [best[h] for h in new]
        seeds = np.concatenate([seeds, np.asarray(new, np.int32)])
        base = np.concatenate([base, base[rows]])
        ctx.seed_cos = np.concatenate([ctx.seed_cos, ctx.seed_cos[rows]])   # the memory's best piece's
    ctx.seeds, ctx.base = seeds, base
    ids = ctx.state.cols.ext_ids
    for h, j in best.items():   # (a split message matched whole: shown at its best block)
        k = later[h]
        if j == row_of.get(h) and is_block_id(ids[seed_list[k]], ids[h]):
            best[h] = k
    ctx.extra["shown_piece"] = {h: (seed_list[j], j) for h, j in best.items()}


def _keyword_job(ctx: RecallContext) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The keyword leg (:func:`keyword_leg`) less the memories that may not seed
    (:func:`seedable`), then their cosines to the query vector (float32, in their order) from
    their rows of the vector matrix: what fusion needs of the ones the vector leg did not find.
    The cosines are None when a memory has no row in the matrix (the caller then reads the
    vectors from the store). A namespace with hidden memories: the leg scores its visible ones
    only, so a hidden memory's terms feed no pseudo-relevance feedback either."""
    req, cols, allowed = ctx.request, ctx.state.cols, ctx.allowed
    if allowed is None and cols.censor is not None:
        allowed = cols.censor.visible(cols, ctx.space.code, ctx.state.mem_gen)
    nids, scores = keyword_leg(ctx.space.keyword, router.keyword_query(req.query), req.config, allowed)
    if not len(nids):
        return nids, scores, None
    keep = seedable(ctx, nids)
    if not keep.all():
        nids, scores = nids[keep], scores[keep]
    try:
        vecs = ctx.space.index.vectors(nids)
    except KeyError:
        return nids, scores, None
    return nids, scores, sentence_cosines(ctx, nids, vecs @ req.vector)


def seedable(ctx: RecallContext, nids: np.ndarray) -> np.ndarray:
    """Which of ``nids`` (int array) may seed this recall (bool, same shape):
    :func:`engramdb.recall.filters.seedable` of the request's filters."""
    return filters_seedable(ctx.request.filters, ctx.state.cols, nids)


def _may_seed(ctx: RecallContext, nids: np.ndarray) -> np.ndarray:
    """:func:`seedable`, and not hidden by a censor rule (bool, the shape of ``nids``): a memory a
    cue brings in besides the two legs (unlogged: it was no hit)."""
    keep = seedable(ctx, nids)
    return keep if ctx.state.cols.censor is None else keep & ~ctx.state.cols.blocked[nids]


def _keyword_cosines(ctx: RecallContext) -> np.ndarray:
    """Cosines to the query of the keyword leg's memories (float32, in its order) when
    :func:`_keyword_job` could not read them off the vector matrix: the vector leg's from it,
    the others' from their stored vectors (0 for those fusion does not read)."""
    out = np.zeros(len(ctx.kw_nids), np.float32)
    found = dict(zip(ctx.vec_nids.tolist(), ctx.vec_cos.tolist()))
    extra = [j for j, n in enumerate(ctx.kw_nids.tolist()) if n not in found]
    if extra:
        nids = ctx.kw_nids[extra].astype(np.int64)
        out[extra] = sentence_cosines(ctx, nids, ctx.state.vectors(nids, ctx.space) @ ctx.request.vector)
    return out


def sentence_cosines(ctx: RecallContext, nids: np.ndarray, cos: np.ndarray) -> np.ndarray:
    """The cosines ``cos`` (float32, shape (n,)) of memories ``nids`` (int, shape (n,)) to the
    query, each lifted toward its best sentence key's (``StoreConfig.sentence_keys``): c + w *
    max(0, s - c), with s the best cosine of its keys and w ``RecallConfig.sentence_weight``
    (Callan 1994: a document's score interpolated with its best passage's; the kernel
    ``sentence_lift``, :func:`engramdb.kernels.reference.sentence_lift`). ``cos`` itself when
    none of them has keys or w is 0. The keys come from the engine's arena of them, read from
    the store on first use (:mod:`engramdb.state.key_cache`). The
    vector leg's pool (4 x ``seed_k`` from hnswlib) and the keyword leg's memories are rescored,
    not searched for by their sentences, so a memory neither leg finds stays unfound."""
    w = ctx.request.config.sentence_weight
    if w <= 0 or not len(nids):
        return cos
    nids = np.asarray(nids, np.int64)
    arena = ctx.state.key_cache.arena(ctx.state.store, nids, ctx.state.dim)
    if not arena.count[nids].any():
        return cos
    return _kernel("sentence_lift")(arena.keys, arena.start, arena.count, nids,
                                    np.asarray(cos, np.float32), ctx.request.vector, w)


def _uncensored(cols, nids: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``keep`` without the memories a censor rule hides (each logged as a censor hit)."""
    hidden = cols.blocked[nids] & keep
    if hidden.any():
        cols.censor.kept_out(nids[hidden])
        keep = keep & ~hidden
    return keep


def time_windows(ctx: RecallContext) -> list:
    """Time windows named in the question, resolved against :meth:`RecallContext.cue_now`. A recall
    ``as_of`` a time reads the cues as the store would have then: against the clock of the
    memories recorded by then, never after ``as_of``. Events to come (a memory dated more
    than a day after it was recorded: :meth:`EngineState.cue_clock`) set no clock."""
    req = ctx.request
    if req.query is None or req.config.w_time <= 0:
        return []
    return resolve_time_refs(req.query, ctx.cue_now())


@functools.lru_cache(maxsize=1)
def _filler() -> frozenset[str]:
    return frozenset(tokenize(TIME_FILLER))   # the keyword leg's own terms, whatever its stemmer


#: Words of a question that asks what a span of time holds ("what did we decide?", "what did we
#: talk about?" with ``since=``, "which decisions did we make in September?"): no content of
#: their own (:func:`window_seeds`).
SPAN_FILLER = ("decide decided decision decisions discuss discussed talk talked say said agree agreed update updates "
               "make made")


#: A word of :data:`SPAN_FILLER` used as a noun of its own ("what did we say about the talk in
#: September?" asks about a talk, not about what was said).
_SPAN_NOUN = re.compile(r"\b(?:the|a|an|this|that|my|our|your|their|his|her)\s+(?:" + "|".join(SPAN_FILLER.split())
                        + r")\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1)
def _span_filler() -> frozenset[str]:
    return _filler() | frozenset(tokenize(SPAN_FILLER))


def content_words(query: str, windows: list, filler: frozenset[str] | None = None) -> int:
    """Content words of a question once its time expressions are cut out: the keyword leg's
    terms (stop words dropped) less ``filler`` (default :data:`TIME_FILLER`). "What happened
    last week?" has 0, "What did I have for dinner yesterday?" 1 ("dinner")."""
    return len(_content_terms(query, windows, filler))


def _content_terms(query: str, windows: list, filler: frozenset[str] | None = None) -> list[str]:
    """The terms :func:`content_words` counts, in order."""
    filler = _filler() if filler is None else filler
    return [t for t in tokenize(without_windows(query, windows)) if t not in filler]


def without_windows(query: str, windows: list) -> str:
    """``query`` (str) without the text of each of its time windows (:func:`time_windows`): what
    it asks besides when ("what did I do yesterday?" is "what did I do ?")."""
    for w in windows:
        query = query.replace(w.text, " ")
    return query


def _passing(ctx: RecallContext, nids: np.ndarray) -> np.ndarray:
    """The ones of ``nids`` that pass the request's filters (and a selective filter's allowed set)."""
    req = ctx.request
    filters = req.filters
    slots = ctx.state.slot_table(ctx.space.name) if filters.slotted else None
    nids = nids[filters.mask(ctx.state.cols, nids, ctx.space.code, slots)]
    if ctx.allowed is not None:
        nids = nids[np.isin(nids, ctx.allowed)]
    return nids


def window_seeds(ctx: RecallContext, windows: list | None = None) -> dict[int, float]:
    """Seeds from the time windows of a mostly-time question: nid -> base.

    Up to ``time_seed_k`` memories of the namespace whose event time, or the time their text
    names (``Columns.mentioned_start``), falls in a window (those in a core first, then the
    newest), each with base (1 + the content words it holds) / (1 + content words), times
    ``time_slack_weight`` outside every core. A question without a time expression and without a
    content word (:data:`SPAN_FILLER` aside) whose recall gives ``since`` / ``until`` takes that
    span as its window: "what did we decide?" with ``kind="decision", since="2025-04"`` is
    answered by the memories that pass the filters, the newest first (base 1 down to 0.5; it
    had no word in common with them, and its answer came with a ``weak_evidence`` gap); one
    content word ("where's my passport?") keeps the question's words in charge. Empty when the
    question has neither, or more than ``time_question_words`` content words.
    ``windows``: the question's time windows (:func:`time_windows`; ``ctx.windows`` when omitted).
    """
    req, cfg = ctx.request, ctx.request.config
    windows = ctx.windows if windows is None else windows
    spanned = req.filters.since is not None or req.filters.until is not None
    if not (windows or spanned) or cfg.time_seed_k == 0 or req.query is None:
        return {}
    if windows:   # a question of nothing but its time and what a span holds is all time
        n_words = content_words(req.query, windows)   # ("which decisions did we make in September?")
        if (n_words > cfg.time_question_words and content_words(req.query, windows, _span_filler()) == 0
                and not _SPAN_NOUN.search(req.query)):
            n_words = 0
    else:
        n_words = content_words(req.query, [], _span_filler())
    if n_words > (cfg.time_question_words if windows else 0):
        return {}
    c = ctx.state.cols
    # (the span a filter gives, "what did we decide?" with since="2025-04": what passes answers it)
    nids, core = _window_members(ctx, windows)
    # the content words each holds, a word of the speaker's home or employer asked for counting
    # as the question's ("where did I live in April?": "we moved to Denver")
    terms = list(dict.fromkeys(_content_terms(req.query, windows, _span_filler()))) if windows and n_words else []
    held = np.zeros(len(nids))
    if terms and len(nids):
        for t in terms:
            held += _holding(ctx, nids, (t,))
        relation = _relation_words(req.query, windows)
        if relation:
            held = np.maximum(held, _holding(ctx, nids, relation))
        held = np.minimum(held, n_words)
    # core first, then those holding the question's words, then the newest: the statement valid
    # then is often older than the window's small talk
    order = np.lexsort((-c.created_at[nids], -held, ~core))[: cfg.time_seed_k]
    nids, core, held = nids[order], core[order], held[order]
    # a memory of the span a mostly-time question names answers it: results.py reports it as
    # relevant whatever words it shares with the question ("What happened on 7 July?"); when the
    # question has a content word (not a word of what a span holds, "what did we decide in
    # September?"), only one that holds it ("where did I live in early March?"
    # gave "I'm vegetarian." of early March relevance 1: a fresh user)
    matched = nids[core & (held > 0)] if terms else nids[core]
    ctx.extra["time_match"] = dict.fromkeys(matched.tolist(), 1.0)
    if windows:   # the share of the question a memory answers: its time, and the words it holds
        base = (1.0 + held) / (1.0 + n_words)   # ("where did I live in February?": 'live' too)
        base = np.where(core, base, base * cfg.time_slack_weight)
    else:   # nothing but the filter's span to go by: the newest first
        base = 1.0 - 0.5 * np.arange(len(nids)) / max(1, len(nids) - 1)
    return dict(zip(nids.tolist(), base.tolist()))


def _holding(ctx: RecallContext, nids: np.ndarray, terms) -> np.ndarray:
    """Which of ``nids`` (int64, the namespace's) hold any of the index ``terms`` (float 0/1,
    shape (n,)): one keyword search restricted to them (the postings, no per-memory read)."""
    got, _scores = ctx.space.keyword.search_terms(dict.fromkeys(terms, 1.0), len(nids), nids)
    return np.isin(nids, got).astype(float)


def _relation_words(query: str, windows: list) -> tuple[str, ...]:
    """The index terms of the speaker's relations (home, employer) ``query`` asks for and nothing
    else, at any time (:func:`engramdb.standing.asks_only_standing` with ``past=True``, its time
    expressions ``windows`` cut out; :data:`engramdb.standing.STANDING_WORDS`); empty for none."""
    asked = asks_only_standing(query, past=True, times=tuple(w.text for w in windows))
    return tuple(w for rel in sorted(asked) for w in STANDING_WORDS[rel])


#: A question of what happened ("What happened with my rent in July?", "what did I do at work
#: last week?"): it asks for events, not the value that held then (:func:`value_cue`).
_EVENT_QUESTION = re.compile(r"\bwhat\s+(?:(?:has|had)\s+)?(?:happened|happens|went\s+on|was\s+going\s+on)\b"
                             r"|\bwhat\s+(?:did|do|does|have|has)\s+\w+\s+(?:\w+\s+)?(?:do|done|doing)\b"
                             r"|\bhow\s+did\b", re.I)


def value_cue(ctx: RecallContext, windows: list) -> tuple[str | None, tuple[str, ...]] | None:
    """What a memory must hold to lie in a question's time by the time it held as a value
    (:func:`engramdb.recall.ranking.in_windows`): the question's rarest content word
    (:func:`content_words`, by the keyword index's idf), or a word of the speaker's home or
    employer the question asks for ("where did I live in March?": "we moved to Denver"). None
    for a question without a time, or of events (:data:`_EVENT_QUESTION`, "what happened with my
    rent in July?", or no content word, "what did I do yesterday?": every value holds then, none
    answers it)."""
    query = ctx.request.query
    if not windows or query is None or ctx.space.keyword is None or _EVENT_QUESTION.search(query):
        return None
    of = _windows_key(windows)
    cached = ctx.extra.get("value_cue_of")
    if cached is not None and cached[0] == of:   # (the seeds', the window members' and ranking's)
        return cached[1]
    kw = ctx.space.keyword
    terms = [t for t in dict.fromkeys(_content_terms(query, windows)) if kw.idf(t) > 0]
    key = max(terms, key=kw.idf) if terms else None
    words = _relation_words(query, windows)
    cue = None if key is None and not words else (key, words)
    ctx.extra["value_cue_of"] = (of, cue)
    return cue


def _windows_key(windows: list) -> tuple:
    """A question's time windows as a key for what a recall reads of them once."""
    return tuple((w.start, w.end, w.core_start, w.core_end) for w in windows)


def _window_members(ctx: RecallContext, windows: list) -> tuple[np.ndarray, np.ndarray]:
    """The namespace's memories that pass the recall's filters and lie in ``windows`` (by event
    time, the time their text names or the time they held as a value:
    :func:`engramdb.recall.ranking.in_windows`; slack included; all that pass when ``windows``
    is empty),
    and which of them lie in a window's core (nids, bool mask)."""
    key = _windows_key(windows)
    cached = ctx.extra.get("window_members")
    if cached is not None and cached[0] == key:   # (the window seeds' and the empty_window gap's)
        return cached[1], cached[2]
    c = ctx.state.cols
    if not windows:
        nids = _passing(ctx, np.flatnonzero(c.in_namespace(ctx.space.code)))
        core = np.ones(len(nids), bool)
    else:
        req = ctx.request   # (the graph with the edges of forgotten memories: valid_spans reads which may count)
        nids, core = namespace_in_windows(ctx.state, ctx.state.recall_csr(), ctx.space.code, windows, req.filters,
                                          req.now, ctx.space.keyword, value_cue(ctx, windows))
        keep = np.isin(nids, _passing(ctx, nids))
        nids, core = nids[keep], core[keep]
    ctx.extra["window_members"] = (key, nids, core)
    return nids, core


def window_holds_nothing(ctx: RecallContext) -> bool:
    """Whether the question names a time (``ctx.windows``) in which no memory of the namespace
    that passes the recall's filters lies (by its event time, or the time its text names, slack
    included): "what did I do last weekend?" when nothing is stored from that weekend. Recall
    then adds an ``empty_window`` gap: its hits come from other times (a May message that said
    "last weekend" answered a September question with relevance 0.99, and no gap)."""
    if not ctx.windows or ctx.extra.get("in_window"):   # (a candidate ranked inside one: not empty)
        return False
    return not len(_window_members(ctx, ctx.windows)[0])


def slot_seeds(ctx: RecallContext) -> dict[int, float]:
    """Slot memories the question names: nid -> boost (``w_slot`` x attribute match x subject
    weight, :func:`engramdb.slots.slot_cues` and :func:`engramdb.slots.subject_weights`); only
    those that pass the filters (by default: the slots' current memories)."""
    req, cfg = ctx.request, ctx.request.config
    if req.query is None or cfg.w_slot <= 0:
        return {}
    table = ctx.state.slot_table(ctx.space.name)
    if not table:
        return {}
    cues = slot_cues(req.query, {attr for _subj, attr in table})
    if not cues:
        return {}
    subj_w = subject_weights(req.query, {subj for subj, _attr in table}, cues)
    weight: dict[int, float] = {}
    cued = []
    for (subj, attr), members in table.items():
        w = cues.get(attr, 0.0) * subj_w.get(subj, 0.0)
        if w > 0:
            cued.append((subj, attr, members, subj_w.get(subj, 0.0)))
            for nid in members.tolist():
                weight[nid] = max(weight.get(nid, 0.0), w)
    ctx.extra["slots_cued"] = cued   # (for slot_changed_since)
    if not weight:
        return {}
    nids = _passing(ctx, np.fromiter(weight, np.int64, len(weight)))
    # how fully the question names each holder's slot, in [0, 1]: results.py reports it as
    # relevance (a current value of the slot asked about answers the question)
    ctx.extra["slot_match"] = {nid: min(weight[nid], 1.0) for nid in nids.tolist()}
    return {nid: cfg.w_slot * weight[nid] for nid in nids.tolist()}


#: Words that ask about now: "who owns billing now? Priya left in October" names a past time
#: only to tell what happened then.
_NOW_WORDS = frozenset("now currently current today nowadays presently".split())


def slot_held_then(ctx: RecallContext) -> list[tuple[tuple[str, str], Any, int, list[int]]]:
    """For a question that names a past time and a slot of a subject it names ("who owned
    billing in October?", "where did I live in February?"): each such slot whose current holders
    all became valid after that time while superseded memories of another value held it then;
    for one that asks for the value a change replaced, naming no time ("where did I live before
    I moved?", "who owned billing before Marco?": :func:`engramdb.recall.ranking.asks_before`),
    the superseded value held last before the current one. The current value is no answer for
    then; those superseded memories are, so recall adds them to the seeds at the best base and
    shows them although superseded (their nids are ``ctx.extra["shown_superseded"]``, which
    ranking lets pass the filters and puts first), and ranking finds them inside the time (they
    held the slot then); they are relevant as the slot's holders are (``ctx.extra["slot_match"]``).
    Empty with ``valid_at`` or ``as_of`` (the caller asked for a time already: the filters read
    it), for a question that asks about now ("now", "currently"), for a time not over yet, a
    subject the question does not name, a slot a current memory already held then (a
    multi-valued one), an old holder archived, erased or kept out by the other filters, or the
    same value restated. An old value held until its retirement wrote its end
    (``Columns.known_valid_to``). Computed once a recall (``ctx.extra["held_then"]``).

    Returns
    -------
    list of ((subject, attribute), window or None, current nid, held nids)
        One per slot, for the first window of the question that the current value does not
        cover (None for a question of before); held nids (superseded memories that held the slot
        in it, the latest to start first) are never empty.
    """
    got = ctx.extra.get("held_then")
    if got is not None:
        return got
    req = ctx.request
    cued = ctx.extra.get("slots_cued")
    out: list = []
    ctx.extra["held_then"] = out
    if req.query is None or not cued or req.filters.valid_at is not None or req.filters.as_of is not None:
        return out
    before = not ctx.windows and asks_before(req.query)
    if not ctx.windows and not before:
        return out
    from ..slots import normalise

    if {w.strip("?!.,;:'\"") for w in req.query.lower().split()} & _NOW_WORDS:
        return out
    c, filters = ctx.state.cols, req.filters
    states = filters.states.copy()
    states[_SUPERSEDED] = True
    shown = replace(filters, states=states)   # (the request's other filters still apply to them)
    table = ctx.state.slot_table(ctx.space.name) if filters.slotted else None
    for subj, attr, members, named in cued:
        if named < 1.0 or not len(members):   # (slots.subject_weights: 1 when the question names it)
            continue
        members = members[c.alive[members]]
        current = members[(c.state[members] == _ACTIVE) & np.isinf(c.valid_to[members])]
        old = members[c.state[members] == _SUPERSEDED]
        old = old[shown.mask(c, old, ctx.space.code, table)]
        if ctx.allowed is not None:
            old = old[np.isin(old, ctx.allowed)]
        if not len(current) or not len(old):
            continue
        # (the end of each old value as the store knows it: its retirement wrote it, temporal.bitemporal_mask)
        held_to = np.where(np.isfinite(c.retired_at[old]), c.known_valid_to[old], c.valid_to[old])
        first = float(c.valid_from[current].min())
        if before:   # the value held last before the current one
            prior = held_to <= first
            spans = [(None, old[prior][np.argsort(-held_to[prior], kind="stable")][:1])]
        else:
            spans = [(w, old[(c.valid_from[old] < w.core_end) & (held_to > w.core_start)]) for w in ctx.windows
                     if w.core_end <= req.now and first >= w.core_end]   # (over, and no current value held then)
        for w, then in spans:
            if not len(then):
                continue
            then = then[np.argsort(-c.valid_from[then], kind="stable")]   # the latest to start first
            now_nid = int(current[np.argmin(c.valid_from[current])])
            recs = ctx.state.records([now_nid, *then.tolist()], "reading a slot's values")
            if recs[0] is None:
                continue
            value = normalise(str(recs[0].get("value", "")))
            held = [int(n) for n, r in zip(then.tolist(), recs[1:])
                    if r is not None and normalise(str(r.get("value", ""))) != value]
            if held:   # (else the same value restated)
                out.append(((subj, attr), w, now_nid, held))
                break
    if out:
        nids = [n for *_x, held in out for n in held]
        ctx.extra["shown_superseded"] = np.asarray(nids, np.int64)
        ctx.extra["slot_match"] = {**ctx.extra.get("slot_match", {}), **dict.fromkeys(nids, 1.0)}
    return out


def slot_changed_since(ctx: RecallContext, hit_ids: Collection[str] = ()) -> list[str]:
    """What :func:`slot_held_then` found, in words: the slot, the time, the current memory and
    since when it holds, and the superseded one that held the slot then, for each such memory
    among the recall's hits (``hit_ids``, by id; one the tag filter kept out is not named).

    Returns
    -------
    list of str
        E.g. "billing's owner changed after \"in October\": `own_2`, current, holds since
        2026-11-02; `own_1` held it then (a hit, superseded)".
    """
    from ..validate import utc_text

    c = ctx.state.cols
    out = []
    for (subj, attr), w, now_nid, held in slot_held_then(ctx):
        if w is None or c.ext_ids[held[0]] not in hit_ids:   # (a question of before names no time)
            continue
        day = utc_text(float(c.valid_from[now_nid]))[:10]
        out.append(f"{subj}'s {attr.replace('_', ' ')} changed after \"{w.text}\": `{c.ext_ids[now_nid]}`, "
                   f"current, holds since {day}; `{c.ext_ids[held[0]]}` held it then (a hit, superseded)")
    return out


def _merge_cue_seeds(ctx: RecallContext, floor: dict[int, float], boost: dict[int, float]) -> None:
    """Window seeds raise a seed's base to their base, slot boosts add to it; memories not yet
    seeds join (with their cosine to the query); then the best base is 1 again."""
    at = {int(n): i for i, n in enumerate(ctx.seeds.tolist())}
    new = [n for n in dict.fromkeys([*floor, *boost]) if n not in at]
    seeds = np.concatenate([ctx.seeds, np.asarray(new, np.int32)]).astype(np.int32)
    base = np.concatenate([ctx.base, np.zeros(len(new), np.float32)]).astype(np.float64)
    cos = ctx.seed_cos
    if new:
        cos = np.concatenate([cos, (ctx.state.vectors(np.asarray(new, np.int64), ctx.space) @ ctx.request.vector)
                              .astype(np.float32)])
    at.update({n: len(ctx.seeds) + i for i, n in enumerate(new)})
    for n, b in floor.items():
        base[at[n]] = max(base[at[n]], b)
    for n, b in boost.items():
        base[at[n]] += b
    best = float(base.max())
    if best > 0:
        base /= best
    ctx.seeds, ctx.base, ctx.seed_cos = seeds, base.astype(np.float32), cos.astype(np.float32)


def keyword_leg(kw: KeywordIndex, query: str, cfg: RecallConfig,
                allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The keyword leg: the best ``keyword_k`` memories by BM25, run a second time with the
    query plus the ``prf_terms`` most telling terms (r x idf, r the hits holding the term) of
    the first ``prf_docs`` hits, together weighing ``prf_weight`` x the query (RM3; one native
    kernel call: :meth:`KeywordIndex.search_prf`).

    Returns
    -------
    nids : ndarray of int64, shape (<= keyword_k,)
    scores : ndarray of float32, same shape
    """
    return kw.search_prf(query, cfg.keyword_k, allowed, prf_docs=cfg.prf_docs, prf_terms=cfg.prf_terms,
                         prf_weight=cfg.prf_weight)


def fuse(labels: np.ndarray, cos: np.ndarray, kw_nids: np.ndarray, kw_score: np.ndarray,
         kw_cos: np.ndarray, cfg: RecallConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeds of recall from both legs on one scale: the ``fuse_seeds`` kernel (the rule and
    its reference: :func:`engramdb.kernels.reference.fuse_seeds`).

    base = w_vector * v + w_keyword * kw, where v is the cosine rescaled by the vector leg's own
    seeds and kw the BM25 score over the best BM25 score of the query (both in [0, 1]); base
    is then divided by its maximum. Memories found by only one leg get their other score too
    (the cosine of a keyword hit comes from its stored vector).

    Parameters
    ----------
    labels, cos : ndarray of int64 / float32, shape (v,)
        The vector leg, best first.
    kw_nids, kw_score : ndarray of int64 / float32, shape (w,)
        The keyword leg, best first.
    kw_cos : ndarray of float32, shape (w,)
        Cosine of the query to each keyword memory (read for those not in ``labels``).
    cfg : RecallConfig

    Returns
    -------
    seeds : ndarray of int32, shape (s,)
    base : ndarray of float32, shape (s,)
        In [0, 1]; the best seed is 1.
    seed_cos : ndarray of float32, shape (s,)
        Cosine of each seed to the query.
    """
    return _kernel("fuse_seeds")(labels, cos, kw_nids, kw_score, kw_cos, float(cfg.w_vector),
                                 float(cfg.w_keyword), float(cfg.seed_contrast))
