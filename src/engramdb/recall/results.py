"""Recall stage 4, results: hits with their paths, gaps (negative recall) and warnings.

- hits: the ranked candidates' records, read in one transaction until ``k`` pass the tag
  filter (a summary or promoted fact worded exactly as a hit before it, or a message worded
  as a summary or fact before it, is left out: the same text twice; so is a summary whose
  every sentence a hit before it says, and a message whose every sentence a summary or fact
  before it says); each with the path seed -> ... -> hit from the kernel's parent links, each step
  naming the strongest edge that joins its two memories; a recall ``as_of`` a time shows each
  hit's wording and state at that time (:func:`engramdb.temporal.record_as_of`);
- relevance: each hit's calibrated chance of answering the query (:func:`relevance`), reported
  beside ``score`` and never used to rank; a current holder of the slot the question names
  ("where do I live?" -> home_city) has at least its slot match (1 when fully named), a
  memory in the span a mostly-time question names ("What happened on 7 July?"; of a question
  with a content word, one that holds it) relevance 1, and
  a memory tagged with a topic the question names at least the relevance threshold; a value of
  the kind a "how <adjective>" question asks for ("how far did I run?" and "Ran 5 km":
  :mod:`engramdb.answer_types`) counts as the adjective matched; every hit
  of a question that asks for a relation no memory states (an ``unstated`` gap: "where do I
  work?" and "I ran 5 km before work.") at most half the threshold;
- gaps: ``empty_namespace`` for an empty answer ``as_of`` a time before the namespace's first
  record; ``weak_evidence`` when the best hit's relevance is below
  ``RecallConfig.relevance_threshold`` (a query without text: when the best vector evidence is
  below ``RecallConfig.weak_evidence``), ``filtered_out`` when memories were reached but none
  passed the filters (a query with text then has no hit to judge: no ``weak_evidence``),
  ``empty_window`` when the question names a time from which no memory passing the filters is
  stored (:func:`engramdb.recall.seeds.window_holds_nothing`), ``unstated`` when it asks for
  where the user lives or works, or their name, and no memory states it (:func:`_unstated`);
- warnings: ``contradicts`` pairs touching the hits, at most ``slots.WARNINGS_PER_HIT`` per hit
  with a memory that is no hit (``slots.contradiction_warnings``).

Two caches keep repeated work off the hot path, neither changing an answer: the decoded record
of each hit, with what a hit takes from it (``EngineState.record_cache``, valid for one record
generation: the first read after a commit that changed a record empties it), and each path step
(the strongest edge between two memories, per thread, for one set of CSR edge arrays and
relation multipliers: a commit that changes edges or weights makes new arrays).
"""
from __future__ import annotations

import functools
import math
import re
from typing import NamedTuple

import numpy as np

from ..answer_types import answered_terms, asked_types, lacks_asked_value
from ..batch_plan import piece_ids
from ..chatter import asked_terms, question_terms
from ..entities import TITLE_WORDS as _ENTITY_TITLES, extract_entities
from ..graph.csr import CSRGraph
from ..index.keyword import KeywordIndex, term_counts as count_terms
from ..index.tokens import tokenize
from ..sentences import split_sentences
from ..slots import USER_SUBJECTS, contradiction_warnings
from ..speakers import (CHAT_ROLES, LABEL as SPEAKER_LABEL, anothers_doing, calls_not_names, kin_named, names_given,
                        not_the_owners, others_only, silent_on_the_owners, the_speakers_doing, works_otherwise)
from ..standing import MAY_STATE_BITS, asks_for_place
from ..temporal import record_as_of, text_as_of
from ..thirdperson import in_first_person
from ..timeref import CALENDAR_WORDS
from ..validate import utc_text
from ..wording import count
from ..types import (
    CONNECTOR_TAGS, GENERATED_TAGS, PROTECTED_TAG, RELATION_BY_CODE, Gap, Hit, MemoryKind, MemoryState, PathStep,
    Relation, decision_outcome, shown_tags, _STATE_CODES,
)
from .context import RecallContext
from .ranking import contradicts_nodes, hides_connectors, ranked, wanted
from .seeds import seedable, slot_changed_since, vector_tail, window_holds_nothing, without_windows

__all__ = ["run", "path_of", "piece_of", "relevance", "relevance_of_rows", "relevance_features", "text_as_of",
           "cosine_relevance"]

#: Tags that name no topic a question could ask about (see _tag_named).
_NOT_TOPICS = CHAT_ROLES | GENERATED_TAGS | {PROTECTED_TAG}
# stored value -> member, read per hit (a dict lookup; calling the Enum costs a microsecond each)
_KIND = {k.value: k for k in MemoryKind}
_STATE = {s.value: s for s in MemoryState}
_SHORT_ROW = 64   # CSR rows up to this length are scanned as Python lists in path_of
_MISSING = object()   # not in the record cache (None there is an erased nid)
_ARCHIVED = _STATE_CODES[MemoryState.ARCHIVED]
_CONSOLIDATED = frozenset({"summary", "fact"})   # tags of what consolidation writes


def run(ctx: RecallContext) -> tuple[list[Hit], list[int], list[Gap], list]:
    """The hits (best first, at most k), their nids, the gaps and the warnings."""
    state, req = ctx.state, ctx.request
    k = req.k
    csr = ctx.csr
    pos = None   # node -> its row of the kernel output: filled on the first hit that has a parent
    parent, ext_ids = ctx.parent, state.cols.ext_ids
    sim_of = dict(zip(ctx.seeds.tolist(), ctx.seed_cos.tolist()))
    hits: list[Hit] = []
    hit_nids: list[int] = []
    hit_rows: list[_HitRow] = []
    filters = req.filters
    store = state.store
    # connector nodes (sessions, entities) route activation but are no answer: skipped unless
    # asked for (RecallConfig.connector_hits, or a tags filter naming them)
    hide = hides_connectors(req)
    # a memory stored as pieces (batch_plan) is one hit, at its best piece (MaxP)
    shown: set[str] = set()
    said: set[str] = set()             # texts of the hits so far
    said_generated: set[str] = set()   # of those that are summaries or facts
    # which piece a memory with matching pieces shows: its best direct match (seeds.lift_pieces)
    shown_piece = ctx.extra.get("shown_piece")
    current_of = ctx.extra.get("current_of")   # seeds.current_versions: chains of corrections
    later_of = ctx.extra.get("later_of")   # seeds.later_standing: later statement -> its chain
    heads = state.cols.head if shown_piece else None
    cache, gen = state.record_cache, state.mem_gen   # the generation before the read transaction
    steps = None   # (u, v) -> the strongest edge joining them: filled on the first hit with a parent
    check_tags = filters.tags is not None
    reader = _LazyRead(store)   # a read transaction only when a hit is not in the record cache

    def shown_row(nid: int) -> _HitRow | None:
        """The cached row of ``nid`` when it is a new hit (exists, passes the tag filter, is no
        hidden connector, its memory not shown yet, no piece of it censored), else None."""
        hr = table.get(nid, _MISSING)   # one lookup: another reader may evict between two
        if hr is _MISSING:
            hr = cache.get(store, reader.txn(), nid, gen, table, _hit_row)
        if hr is None or (check_tags and not filters.tags_ok(hr.rec)) or (hide and hr.connector):
            return None
        if hr.memory_id in shown:
            return None
        # a summary or promoted fact worded exactly as a message (or the other way round) is the
        # same text twice in one answer: the first of them stands; so does a summary whose every
        # sentence a hit before it says (a session of two short messages), and a message whose
        # every sentence a summary before it says
        before = said if hr.generated else said_generated
        if hr.text in before or (before and _covered(hr.text, before)):
            return None
        shown.add(hr.memory_id)
        said.add(hr.text)
        if hr.generated:
            said_generated.add(hr.text)
        if hr.chunk is not None and state.censor.active and _piece_hidden(state, reader.txn(), hr.rec, hr.memory_id):
            return None   # a censor rule hides one of its pieces: the memory is hidden whole
        return hr

    as_of = filters.as_of

    def add_hit(hr: _HitRow, nid: int, score: float, activation: float, similarity, path) -> None:
        text, state_then = hr.text, hr.state
        if as_of is not None:   # as the store held it then: its wording and state
            then = record_as_of(hr.rec, as_of)
            text, state_then = then["text"], MemoryState(then["state"])
        hits.append(Hit(hr.memory_id, hr.kind, text, score, activation, similarity, path, hr.source, hr.tags,
                        hr.created_at, hr.confidence, state_then, outcome=hr.outcome, chunk=hr.chunk))
        hit_nids.append(nid)
        hit_rows.append(hr)

    try:
        table = cache.valid_for(gen)
        for o in ranked(ctx, wanted(req)):
            row = int(ctx.cand[o])   # (ranked may append to ctx.cand as it goes: read it per hit)
            nid = int(ctx.nodes[row])
            if heads is not None:
                nid, row = shown_piece.get(int(heads[nid]), (nid, row))
            hr = shown_row(nid)
            if hr is None:
                continue
            via = None
            if parent[row] < 0 and current_of and nid in current_of:   # placed by its old wording
                path = [PathStep(ext_ids[n], Relation.SUPERSEDES, False) if i else PathStep(ext_ids[n])
                        for i, n in enumerate(current_of[nid])]
            elif parent[row] < 0 and later_of and nid in later_of and (
                    ctx.base[row] <= _base_of(ctx, later_of[nid][0]) or nid in ctx.extra.get("standing_match", ())):
                # brought in by the earlier statements it changes (or by the relation asked for,
                # seeds.standing_seeds: no match of its own either): the seed, then each later one
                path = [PathStep(ext_ids[n], Relation.CONTRADICTS, False) if i else PathStep(ext_ids[n])
                        for i, n in enumerate(later_of[nid])]
            elif parent[row] < 0 and (via := _lifted_by(ctx, row)) is None:
                path = [hr.step]   # a seed its own match explains: its path is itself
            else:
                if pos is None:
                    pos = _node_rows(state, ctx.nodes, csr.n_nodes)
                    steps = _step_cache(state, csr, req.config.rel_mult)
                path = path_of(nid, parent, pos, csr, req.config.rel_mult, ext_ids, steps, via=via)
            add_hit(hr, nid, float(ctx.score[o]), float(ctx.total[ctx.cand[o]]), sim_of.get(nid), path)
            if len(hits) >= k:
                break
        ctx.extra["scored_hits"] = len(hits)   # the rest are fill (recall/__init__._widened reads it)
        if len(hits) < k:   # fewer reached than asked for: the vector leg's next nearest, unscored
            for nid, cos in _vector_tail(ctx, k - len(hits)):
                hr = shown_row(nid)
                if hr is not None:
                    add_hit(hr, nid, 0.0, 0.0, cos, [hr.step])
                    if len(hits) >= k:
                        break
        best = None   # the best cosine of a vector seed that may be a hit (not a hidden connector)
        for nid, cos in zip(ctx.vec_nids.tolist(), ctx.vec_cos.tolist()):
            hr = table.get(nid, _MISSING)
            if hr is _MISSING:
                hr = cache.get(store, reader.txn(), nid, gen, table, _hit_row)
            if hr is not None and not (hide and hr.connector):
                best = cos
                break
    except BaseException as exc:
        reader.close(exc)   # an LMDB error is translated as ``store.read`` does
        raise
    reader.close()
    if state.censor.active:   # warn rules: the hit carries their notes
        for h in hits:
            state.censor.annotate(h, req.namespace)
    cfg = req.config
    if hits:
        cos = np.array(ctx.cosines(hit_nids), np.float32)   # the seeds', and any the tie-break read
        if req.query is None:   # no keyword features: the cosine alone, without NumPy's per-call cost
            rel_list = cosine_relevance(cos.tolist(), req.relevance[0])   # (rel is read only with a query)
        else:
            counts = [_term_counts(hr) for hr in hit_rows]
            # what the question asks for as the speaker's, a hit names only as another's ("when is
            # my birthday?" and "her birthday is on March 29"), or as a named person's, a hit names
            # only as the speaker's ("What's Kenji's phone number?" and "my phone number changed"):
            # that word matches nothing of theirs
            # and a word the hit says only in a question it asks ("Want some tips for managing the
            # workload?" for "who is my manager?") states nothing of it, nor a "called" that phones
            # for a name asked by it ("what is my cat called?" and "My sister Priya called.")
            # (the user in the third person is the speaker, in a question and in a note: "where does
            # the user live?" asks "where do I live?", and "User's sister Maya lives in Oslo." is
            # "My sister Maya lives in Oslo.", no home of the user's; helper-228)
            query = in_first_person(req.query)
            texts = [in_first_person(hr.text) for hr in hit_rows]
            q_terms = question_terms(query)
            others = [others_only(query, text) | not_the_owners(query, text)
                      | calls_not_names(query, text) | the_speakers_doing(query, text)
                      | anothers_doing(query, text) | works_otherwise(query, text)
                      | q_terms.intersection(_asked_terms(hr)) for hr, text in zip(hit_rows, texts)]
            counts = [_without(c, o) for c, o in zip(counts, others)]
            typed = asked_types(query)
            if typed:   # "how far did I run?": a distance is the word "far" answered, in a hit that
                # holds another word of the question ("Ran 5 km", not "The house is 12 miles from
                # the office" for "how far is the gym?")
                rest = q_terms.difference(term for term, _types in typed)
                counts = [_with(c, answered_terms(query, text)) if not rest or not rest.isdisjoint(c[0]) else c
                          for c, text in zip(counts, texts)]
            # ... and a name given is "name" answered ("what's my sister's first name?", "My sister Priya"),
            # a kin or pet word by one that may name the same ("my dog" and "a golden retriever puppy")
            counts = [_with(c, names_given(query, text) | kin_named(query, text)) for c, text in zip(counts, texts)]
            # (the question's time expressions are its windows, no words to match: "what did I do
            # yesterday?" is no match of a message of weeks ago that says "yesterday")
            asked = without_windows(query, ctx.windows)
            query_terms = _query_terms(asked, ctx.space.keyword)
            if 0 < len(query_terms[0]) < 8:   # the common case, in plain floats
                rel_list = relevance_of_rows(_rows_of_counts(*query_terms, cos.tolist(), counts), req.relevance[0])
            else:
                feats = relevance_features(asked, [h.text for h in hits], cos, ctx.space.keyword,
                                           term_counts=counts)
                rel_list = relevance(feats, req.relevance[0]).tolist()
            # ... and a hit that shares nothing else with the question is weak evidence
            theirs = [bool(o) and set(query_terms[0]).isdisjoint(c[0]) for o, c in zip(others, counts)]
            if any(theirs):
                rel_list = [min(r, 0.5 * req.relevance[1]) if t else r for r, t in zip(rel_list, theirs)]
            # a hit that names the person whose birthday (phone number, email, address) is asked for
            # but gives none ("Daniel is an ER nurse" for "When is Daniel's birthday?") is weak evidence
            # ... and so is one that gives no amount for a question of money ("how much do I earn
            # at Abbott?" and "I work at Abbott as a nurse.")
            rel_list = [min(r, 0.5 * req.relevance[1])
                        if silent_on_the_owners(query, text) or lacks_asked_value(query, text) else r
                        for r, text in zip(rel_list, texts)]
            rel_list = _cue_matched(ctx, rel_list, hit_nids, theirs)
            if later_of and any(n in later_of for n in hit_nids):
                rel_list = _lent_relevance(ctx, hits, hit_nids, rel_list, later_of)
            if any(h.tags for h in hits):
                # a memory labelled with a topic the question names ("what did we decide about
                # pricing?" and a decision tagged pricing that never says the word) is no weak match
                named = set(query_terms[0])
                rel_list = [max(r, req.relevance[1]) if h.tags and _tag_named(h, named) else r
                            for r, h in zip(rel_list, hits)]
        for h, r in zip(hits, rel_list):
            h.relevance = r
    # a relation asked for alone that no memory states ("where do I work?" and only "I ran 5 km
    # before work."): every hit only mentions its words, weak evidence however well they match
    unstated = _unstated(ctx, hits, best)
    if unstated:
        for h in hits:
            h.relevance = min(h.relevance, 0.5 * req.relevance[1])
    gaps = []
    filtered_out = not hits and len(ctx.nodes) > 0   # reached, none passed: said below, not "no match"
    held_nothing = None if hits else _held_nothing_then(ctx)
    if held_nothing is not None:   # recall as_of a time before the namespace's first record
        gaps.append(Gap(req.query, "empty_namespace", best, held_nothing))
    elif req.query is not None:
        top = max(h.relevance for h in hits) if hits else None
        threshold = req.relevance[1]
        if (top is None and not filtered_out) or (top is not None and top < threshold):
            said = ("no memory matched" if top is None else
                    f"best relevance {top:.3f} < relevance_threshold {threshold}")
            hint = "" if hits else _archived_hint(ctx) + _recorded_later_hint(ctx)
            gaps.append(Gap(req.query, "weak_evidence", best, f"{said}; the store may not hold what this asks{hint}"))
    elif best is None or best < cfg.weak_evidence:
        said = "none above the cosine floor" if best is None else f"{best:.3f}"
        gaps.append(Gap(req.query, "weak_evidence", best,
                        f"best vector evidence {said} < weak_evidence {cfg.weak_evidence}; "
                        "the store may not hold what this asks"))
    changed = slot_changed_since(ctx, {h.id for h in hits}) if req.query is not None else []
    if req.query is not None and not changed and window_holds_nothing(ctx):
        gaps.append(Gap(req.query, "empty_window", best,
                        f"no memory is dated {_window_text(ctx.windows)}"))
    # (a slot's holder then answers a time no memory is dated in: "who owned billing in October?")
    gaps += [Gap(req.query, "changed_since", best, said) for said in changed]
    gaps += unstated
    if held_nothing is None:
        gaps += unmentioned(ctx, hits, best)
    if filtered_out:
        why = ("none passed the filters" if filters.narrows else
               "none is active (superseded and archived memories are hidden: include_superseded=True or "
               "include_archived=True shows them)")
        gaps.append(Gap(req.query, "filtered_out", best, f"related memories exist but {why}"))
    c = state.cols
    # as of a time, a memory recorded after it is not named (the store did not know it then)
    known = c.alive if filters.as_of is None else c.alive & (c.recorded_at <= filters.as_of)
    if filters.as_of is None and not filters.states[_ARCHIVED] and c.any_archived():
        known = known & (c.state[: len(known)] != _ARCHIVED)   # a forgotten memory is named by no warning
    # (a supersession resolves a contradiction from the time it was recorded: as of a time, every
    # pair is named, as before it)
    resolving = Relation.SUPERSEDES.code if filters.as_of is None else None
    warnings = contradiction_warnings(csr, hit_nids, c.state, known, c.ext_ids, Relation.CONTRADICTS.code,
                                      valid_from=c.valid_from, supersedes_code=resolving,
                                      ) if not contradicts_nodes(state, csr)[0].isdisjoint(hit_nids) else []
    return hits, hit_nids, gaps, warnings


#: What an ``unstated`` gap says the store does not hold, per relation of :mod:`engramdb.standing`.
_UNSTATED = {"home": "where the user lives", "employer": "where the user works", "name": "the user's name"}
#: The slot attributes that hold each relation (a caller's ``slot=("user", "employer", "Acme")``).
_SLOT_ATTRIBUTES = {"home": frozenset({"home_city", "home", "city", "address", "hometown"}),
                    "employer": frozenset({"employer", "company", "workplace", "job", "work"}),
                    "name": frozenset({"name", "first_name", "full_name", "nickname"})}


def _unstated(ctx: RecallContext, hits: list[Hit], best: float | None) -> list[Gap]:
    """An ``unstated`` gap for each relation a question asks for alone, as a place ("where do I
    work?": :func:`engramdb.standing.asks_only_standing`, :func:`~engramdb.standing.asks_for_place`),
    that no memory the recall may show states, nor may state read loosely
    (``Columns.standing``: :func:`engramdb.standing.standing_bits`; the statements' reader knows
    few wordings, "I work full-time at Acme" is none of them), and no slot of the user's holds:
    the hits only mention the relation's words ("My commute to work is 30 minutes."), however
    well they match them. None without hits (the ``weak_evidence`` or ``empty_namespace`` gap
    says the store may not hold the answer)."""
    missing = ctx.extra.get("standing_unstated")
    if not missing or not hits:
        return []
    query = ctx.request.query or ""
    missing = {rel for rel in missing if asks_for_place(query, rel)}
    if missing:   # a slot of the user's that holds it ("employer" = "Acme", given by the caller)
        table = ctx.state.slot_table(ctx.space.name)
        missing = {rel for rel in missing
                   if not any(s in USER_SUBJECTS and a in _SLOT_ATTRIBUTES[rel] for s, a in table)}
    if missing:   # a memory of the namespace that may state it, and that the recall may show
        cols, filters = ctx.state.cols, ctx.request.filters
        column = cols.standing[: cols.n]
        slots = ctx.state.slot_table(ctx.space.name) if filters.slotted else None
        for rel in sorted(missing):
            nids = np.flatnonzero(column & MAY_STATE_BITS[rel])   # (a statement has its may-state bit too)
            nids = nids[cols.ns[nids] == ctx.space.code]
            if ctx.allowed is not None:
                nids = nids[np.isin(nids, ctx.allowed)]
            if len(nids) and (seedable(ctx, nids) & filters.mask(cols, nids, ctx.space.code, slots)).any():
                missing.discard(rel)
    which = "no memory that passes the filters" if ctx.request.filters.narrows else "no memory"
    return [Gap(ctx.request.query, "unstated", best, f"{which} says {_UNSTATED[rel]}") for rel in sorted(missing)]


#: Words a sentence capitalises only in Title Case (two of them capitalised after their sentence's
#: first word: "What Did I Say About The Budget?"; one may open a name, "The Four Seasons").
_TITLE_CASE_WORDS = frozenset("the a an of to in on at for and or but is are was were did do does have has had "
                              "about with from by my your our what when where who how why which that this it".split())
#: A capitalised word after a greeting that opens the question, or after a comma that ends it: the
#: one addressed ("Hey Assistant, ...", "Can you help, Claude?"), no name asked about.
_ADDRESSED = re.compile(r"^\W*(?:hi|hey|hello|ok|okay|thanks|thank\s+you|so|well|yo|dear)\s+([A-Z][\w'’-]*)\s*[,!:]"
                        r"|,\s*([A-Z][\w'’-]*)\W*$")
#: How many unmentioned names a gap lists by name.
_UNMENTIONED_LISTED = 3


def _title_case(question: str) -> bool:
    """Whether ``question`` is written in capitals or Title Case, where no capitalised word stands
    out as a name: every word after its sentence's first capitalised (three at least), or two
    function words capitalised after their sentences' first words."""
    later = []
    for sentence in split_sentences(question):
        words = [w for w in re.findall(r"[^\W\d_][\w'’]*", sentence)[1:] if w.lower() not in ("i", "i'm", "i’m")]
        later += words
    if len(later) >= 3 and all(w[:1].isupper() for w in later):
        return True
    return sum(w[:1].isupper() and w.lower() in _TITLE_CASE_WORDS for w in later) >= 2


def unmentioned(ctx: RecallContext, hits: list[Hit], best: float | None) -> list[Gap]:
    """An ``unmentioned`` gap when a question names something no memory of the namespace
    mentions ("What did you suggest for my Japan itinerary?" of a chat that never spoke of Japan:
    the hits can only match the rest of the question, however well; helper-250 found a confident
    wrong answer there). The names are the question's entities (:func:`engramdb.entities.extract_entities`:
    capitalised runs, not a sentence's first word alone; no date, year, month or day name, nor
    the question's time expressions, nor one it addresses, "Hey Assistant, ...", "..., Claude?").
    A name is unmentioned when none of its words (titles and common words apart) is in any
    memory's text (an index term of the word, as written or without its hyphens, dots and
    apostrophes, or, for a short one, dotted: "UK" as "U.K."; with document frequency 0 in the
    namespace's keyword index: "GitHub" is mentioned by "github", "Wi-Fi" by "wifi", "Dr. Patel"
    by "Patel", "New York City" by "New York") nor a tag of a hit. One gap names up to :data:`_UNMENTIONED_LISTED` of them. None for a
    question in capitals or Title Case (:func:`_title_case`), nor with ``as_of`` (the index is
    today's). Not read: a name said in other words ("NYC"), another language's inflections."""
    req = ctx.request
    query = req.query
    kw = ctx.space.keyword if ctx.space is not None else None
    if not query or kw is None or not len(kw) or req.filters.as_of is not None:
        return []
    text = without_windows(query, ctx.windows or [])   # ("at Christmas": a time)
    names = extract_entities(text)
    if not names or _title_case(query):   # (most questions name nothing: the sentences are not read)
        return []
    addressed = {g.lower() for m in _ADDRESSED.finditer(text) for g in m.groups() if g}
    tags = {t.lower() for h in hits for t in (h.tags or ())}
    missing = []
    for name in sorted(names, key=lambda e: text.lower().find(e)):
        words = [w for w in name.split() if w not in _ENTITY_TITLES and w not in CALENDAR_WORDS
                 and not any(c.isdigit() for c in w) and w not in addressed]
        checked = []
        for w in words:
            bare = re.sub(r"[-.'’]", "", w)
            spellings = [w, bare] + ([".".join(bare) + "."] if 2 <= len(bare) <= 5 and bare.isalpha() else [])
            terms = [t for t in dict.fromkeys(t for x in spellings for t in tokenize(x)) if len(t) > 1]
            if terms:
                checked.append(w in tags or bare in tags or any(kw.idf(t) > 0.0 for t in terms))
        if checked and not any(checked):
            found = re.search(r"[^\w]+".join(map(re.escape, name.split())), query, re.IGNORECASE)
            missing.append(found.group(0) if found else name)
    if not missing:
        return []
    listed, more = missing[:_UNMENTIONED_LISTED], len(missing) - _UNMENTIONED_LISTED
    if more > 0:
        listed.append(f"{more} more name{'s' if more > 1 else ''} the question writes")
    said = ", ".join(listed[:-1]) + " or " + listed[-1] if len(listed) > 1 else listed[0]
    return [Gap(query, "unmentioned", best, f"no memory mentions {said}")]


def _archived_hint(ctx: RecallContext) -> str:
    """For an empty answer: how many memories of the namespace are archived and were not searched
    (a rescore archives faded ones; ``include_archived=True`` searches them), or ""."""
    c, filters = ctx.state.cols, ctx.request.filters
    if filters.states[_ARCHIVED] or not c.any_archived():
        return ""
    n = int(np.count_nonzero((c.state[: c.n] == _ARCHIVED) & c.in_namespace(ctx.space.code)))
    held = count(n, "archived memory", "archived memories")
    return f" (the namespace holds {held}, which recall does not search: include_archived=True does)" if n else ""


def _recorded_by(ctx: RecallContext) -> tuple[int, int, float]:
    """(live memories of the namespace recorded by the recall's ``as_of``, those recorded after
    it, the first record time); only for a recall ``as_of`` a time."""
    c = ctx.state.cols
    mine = c.in_namespace(ctx.space.code) & (c.head[: c.n] == np.arange(c.n, dtype=c.head.dtype))   # as stats() counts
    recorded = c.recorded_at[: c.n][mine]
    later = int(np.count_nonzero(recorded > ctx.request.filters.as_of))
    return len(recorded) - later, later, float(recorded.min()) if len(recorded) else math.inf


def _held_nothing_then(ctx: RecallContext) -> str | None:
    """For an empty answer ``as_of`` a time before anything of the namespace was recorded: what
    to say (the namespace was empty then; its first record's date), else None."""
    as_of = ctx.request.filters.as_of
    if as_of is None:
        return None
    then, later, first = _recorded_by(ctx)
    if then or not later:
        return None
    return (f"namespace {ctx.space.name!r} held no memories as of {utc_text(as_of)} "
            f"(its first was recorded {utc_text(first)})")


def _recorded_later_hint(ctx: RecallContext) -> str:
    """For an empty answer ``as_of`` a time: how many memories of the namespace were recorded after
    it (a recall as of then does not know them), or ""."""
    if ctx.request.filters.as_of is None:
        return ""
    _, later, _ = _recorded_by(ctx)
    if not later:
        return ""
    return (f" (as of {utc_text(ctx.request.filters.as_of)}; {count(later, 'memory', 'memories')} of the "
            f"namespace {'was' if later == 1 else 'were'} recorded after it)")


def _base_of(ctx: RecallContext, nid: int) -> float:
    """The seed base of ``nid`` (0 for a node that is no seed)."""
    at = np.flatnonzero(ctx.seeds == nid)
    return float(ctx.base[at[0]]) if len(at) else 0.0


def _cue_matched(ctx: RecallContext, rel: list[float], nids: list[int],
                 theirs: list[bool] | None = None) -> list[float]:
    """``rel`` (by memory ``nids``) raised to 1 for the memories a cue seed matched: a current
    holder of the slot the question names answers it, as a memory of the time a mostly-time
    question names (holding its content word, if any) and the current statement of the
    speaker's home or employer asked for (:func:`.seeds.standing_seeds`) do; a memory of that
    time whose words shared with the question are all another's (``theirs``, bool by memory:
    "User's sister Maya lives in Oslo." for "where did I live in February?") is not raised."""
    slot, time, standing = ctx.extra.get("slot_match"), ctx.extra.get("time_match"), ctx.extra.get("standing_match")
    if time and theirs is not None and any(theirs):
        time = {n: m for n, m in time.items() if n not in {x for x, t in zip(nids, theirs) if t}}
    for match in (slot, time, standing):
        if match:
            rel = [max(r, match.get(n, 0.0)) for r, n in zip(rel, nids)]
    return rel


def _lent_relevance(ctx: RecallContext, hits: list, hit_nids: list[int], rel: list[float],
                    later_of: dict[int, list[int]]) -> list[float]:
    """``rel`` with each later statement that a seed brought in (:func:`.seeds.later_standing`;
    ``later_of``: its chain, the seed first) at least as relevant as that seed: it answers what
    the seed answered (the seed's relevance as a hit, or read off its record when it is none)."""
    seed_of = {n: chain[0] for n, chain in later_of.items()}
    of_hit = dict(zip(hit_nids, rel))
    want = sorted({seed_of[n] for n in hit_nids if n in seed_of and seed_of[n] not in of_hit})
    if want:
        texts = [rec["text"] if rec else "" for rec in ctx.state.records(want, "reading recalled memories")]
        cos = np.array(ctx.cosines(want), np.float32)
        feats = relevance_features(ctx.request.query, texts, cos, ctx.space.keyword, nids=want)
        of_hit.update(zip(want, _cue_matched(ctx, relevance(feats, ctx.request.relevance[0]).tolist(), want)))
    return [max(r, of_hit[seed_of[n]]) if n in seed_of else r for r, n in zip(rel, hit_nids)]


def _lifted_by(ctx: RecallContext, row: int) -> int | None:
    """For the seed at node row ``row``: the memory whose pass (lateral inflow, ``w_graph`` x the
    strongest single pass) gave it more of its score than its own match did, or None. Its path
    then runs through that memory: a weak match lifted by a strong neighbour is explained by
    the neighbour, not shown as a match of its own."""
    src = ctx.inflow_src
    if src is None or row >= len(ctx.seeds):
        return None
    via = int(src[row])
    if via < 0:
        return None
    base = float(ctx.base[row])
    return via if float(ctx.total[row]) - base > base else None


def _vector_tail(ctx: RecallContext, missing: int) -> list[tuple[int, float]]:
    """(nid, cosine) of the vector leg's next nearest memories past the seeds
    (:func:`engramdb.recall.seeds.vector_tail`, nearest first) that spreading did not reach and
    that pass the filters: what fills a recall asked for ``missing`` more hits than it reached.
    They follow every scored hit, with score 0."""
    nids, cos = vector_tail(ctx, ctx.request.k + missing)
    if not len(nids):
        return []
    state, req = ctx.state, ctx.request
    slots = state.slot_table(ctx.space.name) if req.filters.slotted else None
    keep = req.filters.mask(state.cols, nids, ctx.space.code, slots) & ~np.isin(nids, ctx.nodes)
    return list(zip(nids[keep].tolist(), cos[keep].tolist()))


class _LazyRead:
    """A read transaction of ``store`` opened on first use (:meth:`txn`), closed by :meth:`close`:
    a recall whose hits are all in the record cache opens none. Recall holds the engine's read
    lock, so no commit falls between the record generation it read and this transaction."""

    __slots__ = ("_store", "_cm", "_txn")

    def __init__(self, store):
        self._store, self._cm, self._txn = store, None, None

    def txn(self):
        if self._txn is None:
            self._cm = self._store.read("fetching recalled memories")
            self._txn = self._cm.__enter__()
        return self._txn

    def close(self, exc: BaseException | None = None) -> None:
        """End the transaction, if one was opened; with ``exc`` (the exception that ended the
        reads) the store's context translates it as it would inside ``with store.read()``."""
        if self._cm is not None:
            cm, self._cm, self._txn = self._cm, None, None
            if exc is None:
                cm.__exit__(None, None, None)
            else:
                cm.__exit__(type(exc), exc, exc.__traceback__)


def _window_text(windows: list) -> str:
    """The question's time windows in words: '"last weekend" (2026-09-12 to 2026-09-13)'."""
    def day(t: float) -> str:
        return utc_text(t)[:10]
    return " or ".join(f'"{w.text}" ({day(w.core_start)} to {day(w.core_end - 1)})' for w in windows)


def _covered(text: str, said: set[str]) -> bool:
    """Whether every sentence of ``text`` (its speaker labels aside, whitespace collapsed) is
    found in one of the texts ``said``: a summary "user: We were charged twice. assistant: I've
    issued a refund." of a session whose two messages are hits already says nothing new."""
    if len(text) > _COVER_MAX_CHARS:
        return False
    parts = [" ".join(SPEAKER_LABEL.sub("", x, count=1).split()) for x in split_sentences(text)]
    if not parts:
        return False
    pool = [" ".join(SPEAKER_LABEL.sub("", t, count=1).split()) for t in said]
    return all(any(x in t for t in pool) for x in parts)


_COVER_MAX_CHARS = 4000   # longer texts are not compared sentence by sentence


class _HitRow(NamedTuple):
    """What a hit takes from its stored record, derived once per record (``state.record_cache``)."""

    rec: dict
    memory_id: str
    chunk: int | None
    kind: MemoryKind
    text: str
    source: str | None
    tags: tuple
    created_at: float
    confidence: float
    state: MemoryState
    outcome: str | None
    connector: bool      # tagged as a connector node (session, entity)
    generated: bool      # made by consolidation (a summary or a promoted fact)
    step: PathStep       # the path of the memory as a seed: itself
    terms: list          # [counts, asked]: (index term -> count, length) and chatter.asked_terms, each
    #                      None until a query with text needed it


def _without(counts: tuple[dict[str, int], int], terms: frozenset[str]) -> tuple[dict[str, int], int]:
    """A hit's term counts (:func:`_term_counts`) without ``terms``, its length unchanged."""
    if not terms:
        return counts
    return {t: c for t, c in counts[0].items() if t not in terms}, counts[1]


def _with(counts: tuple[dict[str, int], int], terms: frozenset[str]) -> tuple[dict[str, int], int]:
    """A hit's term counts (:func:`_term_counts`) with each of ``terms`` held at least once, its
    length unchanged."""
    if not terms or terms.issubset(counts[0]):
        return counts
    return {**dict.fromkeys(terms, 1), **counts[0]}, counts[1]


def _term_counts(hr: _HitRow) -> tuple[dict[str, int], int]:
    """The hit's index terms counted, and its BM25 length (:func:`index_terms` of its text),
    computed on first need and kept in its cached row."""
    got = hr.terms[0]
    if got is None:
        got = hr.terms[0] = count_terms(hr.text)
    return got


def _asked_terms(hr: _HitRow) -> frozenset[str]:
    """The terms the hit says only in a question it asks (:func:`engramdb.chatter.asked_terms`),
    computed on first need and kept in its cached row."""
    got = hr.terms[1]
    if got is None:
        got = hr.terms[1] = asked_terms(hr.text)
    return got


def _hit_row(rec: dict) -> _HitRow:
    kind, mstate = rec["kind"], rec["state"]
    memory_id, chunk = piece_of(rec)
    return _HitRow(rec, memory_id, chunk, _KIND.get(kind) or MemoryKind(kind), rec["text"], rec["source"],
                   shown_tags(rec), rec["created_at"], rec["confidence"],
                   _STATE.get(mstate) or MemoryState(mstate), decision_outcome(rec),
                   not CONNECTOR_TAGS.isdisjoint(rec["tags"]), not _CONSOLIDATED.isdisjoint(rec["tags"]),
                   PathStep(rec["id"]), [None, None])


def _node_rows(state, nodes: np.ndarray, n_nodes: int) -> np.ndarray:
    """The thread's scratch array node -> row of ``nodes`` (int32, length >= n_nodes); only the
    entries of ``nodes`` are meaningful."""
    pos = state.scratch.get("pos")
    if pos is None or len(pos) < n_nodes:
        pos = state.scratch["pos"] = np.zeros(n_nodes, np.int32)
    pos[nodes] = np.arange(len(nodes), dtype=np.int32)
    return pos


_STEP_CACHE_SIZE = 65_536


def _step_cache(state, csr: CSRGraph, rel_mult: np.ndarray) -> dict:
    """The thread's table of path steps (:func:`path_of`): (u, v) -> the step from u to v over
    the strongest edge joining them, u -> the first step of a path from u; for this CSR's edge
    arrays and these relation multipliers (an erased memory's edges are dropped). A commit
    that changes edges or weights makes new arrays (``MemoryGraph.csr`` never writes into
    one), which starts a new table; past ``_STEP_CACHE_SIZE`` entries it starts over."""
    cached = state.scratch.get("path_steps")
    mult = rel_mult.tobytes()
    if (cached is None or cached[0] is not csr.indices or cached[1] is not csr.weight
            or cached[2] is not csr.relation or cached[3] is not csr.forward or cached[4] != mult
            or len(cached[5]) >= _STEP_CACHE_SIZE):
        cached = state.scratch["path_steps"] = (csr.indices, csr.weight, csr.relation, csr.forward, mult, {})
    return cached[5]


def relevance_features(query: str | None, texts: list[str], cos: np.ndarray,
                       keyword: KeywordIndex, nids=None, term_counts=None) -> np.ndarray:
    """Evidence that a memory answers ``query``, none of it scaled by the query's other results.

    - cosine: the raw cosine of the query to the memory, clipped to [0, 1];
    - BM25 share: the memory's BM25 for the query's terms over the most any memory could score,
      sum over terms of idf * (k1 + 1) ("how much of the question the memory covers");
    - coverage: the idf-weighted share of the query's terms that the memory holds.

    A term the namespace has never seen gets the idf of a term in no memory, so a question on a
    topic the store lacks ("What is the capital of Australia?") keeps its weight unmatched.

    Parameters
    ----------
    query : str or None
        The question's text; without it both keyword features are 0.
    texts : list of str, length n
        The memories' texts.
    cos : ndarray of float32, shape (n,)
        Their cosines to the query vector.
    keyword : KeywordIndex
        The namespace's BM25 index (idf, k1, b and the average length).
    nids : sequence of int, length n, optional
        The memories' node ids: their term counts are read off the index's forward index
        (:meth:`KeywordIndex.term_stats`) instead of tokenizing their texts; a memory the index
        holds no term of is tokenized.
    term_counts : sequence of (dict of str -> int, int), length n, optional
        Each memory's index terms counted and its length (what :func:`index_terms` of its
        text gives, e.g. kept by recall's record cache): used instead of ``nids`` and the texts.

    Returns
    -------
    ndarray of float64, shape (n, 3)
        Columns cosine, BM25 share, coverage; each in [0, 1].
    """
    terms, idf_list, k1, b, avgdl = _query_terms(query, keyword)
    if term_counts is not None and texts and 0 < len(terms) < 8:   # recall's case: plain floats
        return np.array(_rows_of_counts(terms, idf_list, k1, b, avgdl, np.asarray(cos, np.float64).tolist(),
                                        term_counts), np.float64)
    out = np.zeros((len(texts), 3))
    out[:, 0] = np.clip(np.asarray(cos, np.float64), 0.0, 1.0)
    if not terms or not texts:
        return out
    idf = np.array(idf_list)
    max_bm25, total_idf = float(idf.sum()) * (k1 + 1.0), float(idf.sum())
    if term_counts is not None:
        tfs = np.array([[counts.get(t, 0) for t in terms] for counts, _length in term_counts], np.float64)
        lengths = np.array([length for _counts, length in term_counts], np.float64)
        known = np.ones(len(texts), bool)
    elif nids is not None:
        tfs, lengths, known = keyword.term_stats(nids, terms)
    else:
        tfs, lengths, known = np.zeros((len(texts), len(terms))), np.zeros(len(texts)), np.zeros(len(texts), bool)
    for i in np.flatnonzero(~known).tolist():   # a memory the index holds no term of: tokenize it
        counts, length = count_terms(texts[i])
        tfs[i] = [counts.get(t, 0) for t in terms]
        lengths[i] = length
    # all memories at once; each row is reduced over its terms as a 1-d sum of that row would be
    norm = k1 * (1.0 - b + b * np.asarray(lengths, np.float64) / avgdl)
    out[:, 1] = np.sum(idf * tfs * (k1 + 1.0) / (tfs + norm[:, None]), axis=1) / max_bm25
    if len(terms) < 8:   # below NumPy's 8-way unrolled sum, adding a 0 per absent term is exact
        out[:, 2] = np.sum(np.where(tfs > 0, idf, 0.0), axis=1) / total_idf
    else:
        out[:, 2] = [float(np.sum(idf[row > 0])) / total_idf for row in tfs]
    np.clip(out, 0.0, 1.0, out=out)
    return out


def _tag_named(hit: Hit, terms: set[str]) -> bool:
    """Whether a topic tag of ``hit`` is named by the question's index ``terms`` (each term of the
    tag, as the keyword index reads it: "tickets" names the tag ``ticket``, "pricing"
    ``pricing``). The tags the engine gives are no topic: a chat message's speaker and role (its
    text's "Speaker: " label), ``protected`` and the generated nodes' tags."""
    for tag in hit.tags:
        if tag in _NOT_TOPICS or hit.text.startswith(f"{tag}: "):
            continue
        parts = tokenize(tag)
        if parts and all(t in terms for t in parts):
            return True
    return False


def _query_terms(query: str | None, keyword: KeywordIndex) -> tuple[list[str], list[float], float, float, float]:
    """The distinct index terms of ``query`` (none without a query), their idf (a term the
    namespace has never seen gets the idf of a term in no memory), and the index's k1, b and
    average length: what :func:`relevance_features` scores with."""
    terms = list(dict.fromkeys(tokenize(query))) if query else []
    unseen = float(np.log1p((keyword.n_docs + 0.5) / 0.5))
    avgdl = max(keyword.total_len / keyword.n_docs, 1e-9) if keyword.n_docs else 1.0
    return terms, [keyword.idf(t) or unseen for t in terms], keyword.k1, keyword.b, avgdl


def _rows_of_counts(terms: list[str], idf: list[float], k1: float, b: float, avgdl: float, cos: list[float],
                    term_counts) -> list[tuple[float, float, float]]:
    """:func:`relevance_features` of memories given their term counts, for 1 to 7 query terms
    (:func:`_query_terms`), one (cosine, BM25 share, coverage) tuple each in plain floats: the
    same operations in the same order as the NumPy path (below NumPy's 8-way unrolled sum a
    row's sum adds its terms one by one from 0, and a term a memory lacks adds an exact 0), so
    the same values, without NumPy's per-call cost on a recall's hits."""
    k1p1 = k1 + 1.0
    total_idf = 0.0
    for w in idf:
        total_idf += w
    max_bm25 = total_idf * k1p1
    rows = []
    for (counts, length), c in zip(term_counts, cos):
        norm = k1 * (1.0 - b + b * float(length) / avgdl)
        bm25 = covered = 0.0
        for t, w in zip(terms, idf):
            tf = counts.get(t, 0)
            if tf:
                tf = float(tf)
                bm25 += w * tf * k1p1 / (tf + norm)
                covered += w
        rows.append((min(max(c, 0.0), 1.0), min(max(bm25 / max_bm25, 0.0), 1.0),
                     min(max(covered / total_idf, 0.0), 1.0)))
    return rows


def relevance_of_rows(rows, coef) -> list[float]:
    """:func:`relevance` of feature rows given as plain floats, one (cosine, BM25 share,
    coverage) tuple each: a list of floats in [0, 1], equal to ``relevance`` up to the last bit
    of ``exp`` (the same sum in the same order)."""
    c0, c1, c2, c3 = (float(x) for x in coef)
    out = []
    for f0, f1, f2 in rows:
        z = c0 + f0 * c1 + f1 * c2 + f2 * c3
        out.append(1.0 / (1.0 + math.exp(-min(max(z, -50.0), 50.0))))
    return out


def relevance(features: np.ndarray, coef) -> np.ndarray:
    """Calibrated relevance, 1 / (1 + exp(-(c0 + c1 * cosine + c2 * bm25_share + c3 * coverage))).

    Parameters
    ----------
    features : ndarray of float64, shape (n, 3)
        From :func:`relevance_features`.
    coef : sequence of 4 float
        ``RecallConfig.relevance_coef``: intercept, then one weight per feature (a logistic
        regression fitted by ``benchmarks/bench_relevance.py``).

    Returns
    -------
    ndarray of float64, shape (n,)
        In [0, 1].
    """
    c = _coef_array(tuple(coef))
    f = np.asarray(features, np.float64)
    z = c[0] + f[..., 0] * c[1] + f[..., 1] * c[2] + f[..., 2] * c[3]   # in this order (no BLAS dot)
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


def cosine_relevance(cos: list[float], coef) -> list[float]:
    """:func:`relevance` of memories known by their cosine alone (a query without text: both
    keyword features 0), in plain floats: 1 / (1 + exp(-(c0 + c1 * clip(cosine, 0, 1)))).

    Parameters
    ----------
    cos : list of float, length n
        Cosines of the memories to the query vector.
    coef : sequence of 4 float
        As for :func:`relevance`.

    Returns
    -------
    list of float, length n
        In [0, 1]; equal to ``relevance`` of the features (cosine, 0, 0) up to the last bit of
        ``exp`` (the other terms of its dot product are exact zeros).
    """
    return relevance_of_rows([(min(max(x, 0.0), 1.0), 0.0, 0.0) for x in cos], coef)


@functools.lru_cache(maxsize=8)
def _coef_array(coef: tuple) -> np.ndarray:
    """``coef`` as a read-only float64 array, built once per calibration."""
    c = np.asarray(coef, np.float64)
    c.flags.writeable = False
    return c


def _piece_hidden(state, txn, rec: dict, memory_id: str) -> bool:
    """Whether a censor rule hides memory ``memory_id`` (``rec`` one of its pieces) or any of
    its pieces (each hidden one logged as kept out)."""
    ns = rec["namespace"]
    head = rec
    if rec["id"] != memory_id:
        nid = state.store.lookup_id(txn, ns, memory_id)
        head = None if nid is None else state.store.get_record(txn, nid)
    ids = [memory_id] + ([] if head is None else piece_ids(head))
    return any(state.censor.hidden_key(ns, pid) for pid in ids)


def piece_of(rec: dict) -> tuple[str, int | None]:
    """(id of the memory, piece index) of a record: a piece ``<id>#<i>`` of a long text belongs
    to memory ``<id>`` (piece i), the first piece is the memory itself (piece 0); a memory
    stored whole is (its id, None)."""
    head = rec.get("chunk_of")
    if head is not None:
        return head, int(rec["chunk"])
    return rec["id"], (0 if rec.get("chunks") else None)


def path_of(nid: int, parent: np.ndarray, pos: np.ndarray, csr: CSRGraph, rel_mult: np.ndarray,
            ext_ids: list, steps: dict | None = None, via: int | None = None) -> list[PathStep]:
    """Seed -> ... -> ``nid`` from the kernel's parent links (``pos`` maps a node to its row of
    the kernel output); each step names the strongest edge that joins its two memories (the
    one the activation most likely crossed; among equally strong ones, one that points from the
    previous step, then the smaller relation code). Each edge sits in both rows of the CSR, so
    the shorter of the two rows is scanned: a hub's row can hold thousands of edges.

    ``steps``, when given, is a table of the steps built before on the same CSR arrays and
    ``rel_mult`` (:func:`_step_cache`): (u, v) -> the step from u to v, and u -> the first step
    of a path from u; read first, filled after a scan.

    ``via``, when given, is a memory whose pass lifted ``nid`` (lateral inflow,
    :func:`_lifted_by`): the path is ``via``'s own path, then ``nid``; when ``via``'s path runs
    through ``nid`` itself (its activation came from ``nid``), the path is ``nid`` alone."""
    chain = [nid if via is None else via]
    while (p := parent.item(pos.item(chain[-1]))) >= 0 and len(chain) <= 127:   # .item(): a Python int
        chain.append(p)
    chain.reverse()
    if via is not None:
        chain = [nid] if nid in chain else chain + [nid]
    first = None if steps is None else steps.get(chain[0])
    if first is None:
        first = PathStep(ext_ids[chain[0]])
        if steps is not None:
            steps[chain[0]] = first
    steps_out = [first]
    indptr, indices = csr.indptr, csr.indices
    for u, v in zip(chain, chain[1:]):
        if steps is not None:
            known = steps.get((u, v))
            if known is not None:
                steps_out.append(known)
                continue
        # scan the shorter row; an entry in v's row points the other way round
        lo, hi = indptr[u:u + 2].tolist()
        vlo, vhi = indptr[v:v + 2].tolist()
        flip = vhi - vlo < hi - lo
        if flip:
            lo, hi, other = vlo, vhi, u
        else:
            other = v
        best_key, rel, forward = None, None, True
        if hi - lo <= _SHORT_ROW:   # a short row: a list scan beats NumPy's per-call cost
            at = [lo + i for i, x in enumerate(indices[lo:hi].tolist()) if x == other]
        else:
            at = (lo + np.flatnonzero(indices[lo:hi] == other)).tolist()
        for j in at:
            r = csr.relation.item(j)
            fwd = bool(csr.forward.item(j)) != flip
            key = (csr.weight.item(j) * rel_mult.item(r), fwd, -r)
            if best_key is None or key > best_key:
                best_key, rel, forward = key, RELATION_BY_CODE[r], fwd
        step = PathStep(ext_ids[v], rel, forward)
        if steps is not None:
            steps[(u, v)] = step
        steps_out.append(step)
    return steps_out
