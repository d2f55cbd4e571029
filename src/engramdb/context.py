"""Context blocks for prompts: what an agent should see of its memory, within a token budget.

:meth:`engramdb.Engram.context` assembles a :class:`ContextBlock` in three tiers (DESIGN.md
"Context assembly"):

- **L0**, small and always in: the user's profile (the current value of every slot of the user,
  :meth:`Engram.profile` of the user, ``slots.USER_SUBJECT``), procedural memories, and
  open decisions (``decision`` memories whose outcome is not yet reviewed: their salience is still
  held, ``salience_at`` is +inf, see ``DecayConfig.hold_decisions_until_review``);
- **L1**, the recall hits for the query (:meth:`Engram.recall`, read-only: no reinforcement), each
  with the path that activated it (a memory stored as pieces, which recall gives at its best
  piece, whole where it fits, else that piece) and, for a pair recall warns contradict each other
  (``contradicts``), which of the two was valid later ("said otherwise later in `id`");
- **L2**, details an agent can fetch by id (:meth:`Engram.get`): further hits and graph neighbours
  of the L1 hits, listed by id with a one-line preview only.

When the query resembles past decisions (decision hits of the recall at or above its relevance
threshold), the block states their track record in a section of its own, e.g. "Track record: 3
of 4 similar decisions succeeded (1 failed)." (:func:`engramdb.decisions.track_record`), and each
recalled decision shows its outcome (``[outcome: success]``).

Budgets and frames
------------------
A *frame* names what the prompt is for and carries a default total budget and its section
split, after the reference system's frame budgets (tokens; ``decisions`` / ``facts`` /
``procedures`` / ``episodes``, plus its fixed ``user profile`` section of 200):

============  ======  =======  =========  ==========  =======================
frame         total   profile  decisions  procedures  recalled (facts+episodes)
============  ======  =======  =========  ==========  =======================
conversation   3000     200       500          0        1100  (500 + 600)
question       6000     200      1000        500        2000  (1500 + 500)
task           8000     200      2000       1500        2500  (1500 + 1000)
decision      12000     200      3000       2000        3000  (2000 + 1000)
creative       6000     200      1000        500        2000  (1500 + 500)
debug         10000     200      1500       2500        2000  (1000 + 1000)
============  ======  =======  =========  ==========  =======================

(:data:`FRAMES`.) ``budget_tokens`` (default: the frame's total) scales the shares that are
enforced, L1's, L2's and those of L0's decisions and procedures (section * budget / total; at
least a tenth of the budget each for the last two); the profile's is not. Assembly:

1. The profile is always in (only cut by the final fit, and last); L0's open decisions and
   procedures, those the query recalls first (by score), then by salience, take their share of
   the table (scaled, and at least a tenth of the budget each) and wait for the second pass
   beyond it (a team's 40 conventions and 18 open decisions once filled a whole block and left
   no recalled memory); the recalled section takes its hits, best first, while they
   fit its share (it keeps at least 3 hits, as the reference does, unless one scores below a
   tenth of the best, and cuts its list at the first score below half of the previous one, as
   the reference does; what it cuts goes to L2; a hit scored 0, the vector leg's fill of
   memories that matched nothing, is no evidence and is in neither tier); the best hit may use all
   the room the block has left, not only the share, so a larger budget never shows less of it,
   and enters as an excerpt (:func:`excerpt`) when even that room is too small;
2. what is left of the total, less the L2 share (total minus the sections, scaled; at most
   what the L2 previews need), then goes to the items that did not fit their section, in tier
   order (L0, then L1): whole when they fit, a recalled hit as its excerpt when only that fits;
   L1 hits still left out become L2 previews;
3. L2 previews take what remains;
4. the rendered text is checked with the caller's counter: while it is over budget, lines are
   dropped from the end of the block (L2, then L0's lines beyond their share, then L1 by score,
   then the track record and the gaps, then L0's procedures, decisions and profile within their
   share, least salient first), down to the empty text. A block therefore never exceeds its
   budget: ``count_tokens(block.text) <= block.budget_tokens``, whatever the counter (the empty
   text must count 0). When the best recalled hit is cut while other lines stay, a gap says so,
   in the text where its line fits.

Every candidate that the block does not show at all, whichever step cut it and whatever its
tier (L0 included), is named in ``ContextBlock.dropped``.

Counting tokens
---------------
``count_tokens`` is any callable ``str -> int`` (a real tokenizer's ``len(encode(text))``);
the default, :func:`estimate_tokens`, is ``ceil(len(text) / 4)``, the reference system's
estimate of characters / 4 (rounded up, so it never undercounts a short text to zero).

Not done here: the reference's deduplication against the last turns of the conversation and
its scaling of budgets for 200k / 1M-token context windows (give ``budget_tokens`` instead).
"""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from .decisions import TrackRecord, track_record
from .entities import entity_of_node
from .errors import InvalidInputError, MemoryBlockedError
from .slots import USER_SUBJECT, canonical_subject, said_later
from .sentences import quotes
from .speakers import LABEL as SPEAKER_LABEL
from .standing import changed_standing
from .types import CONNECTOR_TAGS, MemoryKind, Relation
from .wording import count as counted

__all__ = ["ContextBlock", "ContextItem", "Frame", "FRAMES", "TIERS", "estimate_tokens", "assemble", "quoted_changes"]

#: Tier names, most important first.
TIERS = ("L0", "L1", "L2")


@dataclass(frozen=True, slots=True)
class Frame:
    """Default budget of one frame, in tokens: the total and its sections (see the module table).

    ``recalled`` is the reference's facts + episodes; L2 previews get what the others leave.
    """

    name: str
    total: int
    profile: int
    decisions: int
    procedures: int
    recalled: int


#: The frames and their default budgets (DESIGN.md "Context assembly").
FRAMES: Mapping[str, Frame] = MappingProxyType({f.name: f for f in (
    Frame("conversation", 3000, 200, 500, 0, 1100),
    Frame("question", 6000, 200, 1000, 500, 2000),
    Frame("task", 8000, 200, 2000, 1500, 2500),
    Frame("decision", 12000, 200, 3000, 2000, 3000),
    Frame("creative", 6000, 200, 1000, 500, 2000),
    Frame("debug", 10000, 200, 1500, 2500, 2000),
)})

_MAX_BUDGET = 10_000_000
_L1_K = 12          # recall hits asked for L1 (before the section cut)
_L2_K = 12          # further hits asked for L2
_NEIGHBOURS = 8     # at most this many graph neighbours of the top L1 hits go to L2
_NEIGHBOUR_OF = 3   # ... taken from this many top L1 hits
_MIN_RECALLED = 3   # the reference keeps at least 3 facts
_L1_RELEVANCE = 0.05   # beyond those, a hit of lower relevance (and no warning) is an L2 preview
_MIN_SHARE = 0.1    # ... of a tenth of the best hit's score or more
_L0_LIMIT = 50      # at most this many procedures and open decisions are read
#: The least room L0's procedures and open decisions each have in the first pass, as a share of
#: the budget, when the frame's own share is smaller (the conversation frame gives procedures 0).
_L0_FLOOR = 0.1
_PREVIEW_CHARS = 80


def estimate_tokens(text: str) -> int:
    """The default token count: ``ceil(len(text) / 4)`` (the reference system's characters / 4).

    Parameters
    ----------
    text : str

    Returns
    -------
    int
        0 for the empty text.
    """
    return -(-len(text) // 4)


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One memory in a context block.

    Attributes
    ----------
    id : str
        The memory's id (fetch it with :meth:`Engram.get`).
    tier : {"L0", "L1", "L2"}
    kind : MemoryKind
    text : str
        The memory's text on one line (L0, L1), or a one-line preview (L2).
    date : str
        Event time (``created_at``) as an ISO date in UTC, ``YYYY-MM-DD``.
    reason : str
        Why it is there: ``"profile: home_city"``, ``"procedure"``, ``"open decision"``,
        ``"recalled: direct match"``, ``"recalled: weak match (relevance 0.31)"`` (below the
        recall's relevance threshold), ``"recalled: via `a` (supports)"`` (reached from the
        seed ``a``; the relations of the path, ``"both mention <entity>"`` for a step through an
        entity node; ``"recalled: via entity <entity>"`` from an entity the query matched),
        ``"neighbour of a (supports)"``; a relation followed against its stored direction reads
        ``"supports reversed"`` (the edge points from the later step to the earlier). A hit
        brought in by an earlier statement that it changes ("I moved to Seattle" for "where do I
        live?" beside "I live in Boston.") reads ``"recalled: changes `a`, which matched"``. A hit
        placed by a memory it superseded (an earlier wording, or a value it changed) reads
        ``"recalled: supersedes a memory that matched"``, one reached from its session ``"recalled: via its session"``
        (neither a superseded memory nor a session node is a line of the block).
    score : float or None
        Recall score (L1 and recalled L2 items), else None.
    """

    id: str
    tier: str
    kind: MemoryKind
    text: str
    date: str
    reason: str
    score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "tier": self.tier, "kind": self.kind.value, "text": self.text,
                "date": self.date, "reason": self.reason,
                "score": None if self.score is None else round(self.score, 6)}


@dataclass(frozen=True, slots=True)
class ContextBlock:
    """Answer of :meth:`Engram.context`: a Markdown block for a prompt, within its budget.

    Attributes
    ----------
    text : str
        The rendered Markdown (empty when nothing fits).
    items : mapping of str -> tuple of ContextItem
        ``{"L0": ..., "L1": ..., "L2": ...}``: exactly the items rendered in ``text``, in order.
    tokens_used : int
        ``count_tokens(text)``.
    budget_tokens : int
        The budget; ``tokens_used <= budget_tokens`` always.
    gaps : tuple of str
        The recall gaps stated plainly ("No memory strongly matches ..."); rendered in ``text``
        when they fit.
    frame : str
    query : str
    dropped : tuple of str
        Ids of the memories that were candidates for the block, of any tier (profile,
        open decisions, procedures, recall hits, graph neighbours), and that it does not show
        at all, neither in full nor as a preview (the budget cut them), in tier order.
    track_record : TrackRecord or None
        How the similar past decisions among the recall hits turned out (None when there are
        none); its sentence is rendered in ``text`` when it fits.
    """

    text: str
    items: Mapping[str, tuple[ContextItem, ...]]
    tokens_used: int
    budget_tokens: int
    gaps: tuple[str, ...]
    frame: str
    query: str
    dropped: tuple[str, ...] = field(default=())
    track_record: TrackRecord | None = None

    def __str__(self) -> str:
        """The block's Markdown (``print(block)`` shows what goes into the prompt)."""
        return self.text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field."""
        return {"text": self.text, "items": {t: [i.to_dict() for i in self.items[t]] for t in TIERS},
                "tokens_used": self.tokens_used, "budget_tokens": self.budget_tokens,
                "gaps": list(self.gaps), "frame": self.frame, "query": self.query,
                "dropped": list(self.dropped),
                "track_record": None if self.track_record is None else self.track_record.to_dict()}


# ---------------------------------------------------------------------------------- checks
def check_frame(frame: Any) -> Frame:
    """The :class:`Frame` named ``frame``; InvalidInputError listing the frames otherwise."""
    if not isinstance(frame, str) or frame not in FRAMES:
        raise InvalidInputError(f"frame: expected one of {list(FRAMES)}, got {frame!r}")
    return FRAMES[frame]


def check_budget(budget_tokens: Any, frame: Frame) -> int:
    """``budget_tokens`` as an int in [0, 10_000_000], or the frame's total when None."""
    if budget_tokens is None:
        return frame.total
    if (isinstance(budget_tokens, bool) or not isinstance(budget_tokens, numbers.Integral)
            or not 0 <= budget_tokens <= _MAX_BUDGET):
        raise InvalidInputError(f"budget_tokens: expected an integer in [0, {_MAX_BUDGET}] or None, "
                                f"got {budget_tokens!r}")
    return int(budget_tokens)


def check_counter(count_tokens: Any) -> Callable[[str], int]:
    """The token counter: ``count_tokens`` when callable, :func:`estimate_tokens` when None."""
    if count_tokens is None:
        return estimate_tokens
    if not callable(count_tokens):
        raise InvalidInputError(f"count_tokens: expected a callable str -> int or None, got {count_tokens!r}")

    def counted(text: str) -> int:
        n = count_tokens(text)
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise InvalidInputError(f"count_tokens must return an int >= 0, returned {n!r} for a text of "
                                    f"{len(text)} characters")
        return int(n)
    return counted


# ---------------------------------------------------------------------------------- rendering
_HEADINGS = {"profile": "## Profile (L0)", "procedure": "## Procedures (L0)",
             "decision": "## Open decisions (L0)", "track": "## Similar past decisions",
             "recalled": "## Recalled (L1)", "gap": "## Gaps", "more": "## More, fetch by id (L2)"}
_ORDER = ("profile", "procedure", "decision", "track", "recalled", "gap", "more")


@dataclass(slots=True)
class _Entry:
    """A candidate line: its section, priority key (lower is kept longer) and item (None: gap)."""

    section: str
    item: ContextItem | None
    line: str


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _date(t: float) -> str:
    return datetime.fromtimestamp(t, tz=timezone.utc).date().isoformat()


def _line(section: str, item: ContextItem) -> str:
    if section == "more":
        return f"- {_code(item.id)} [{item.date}] {item.text} ({item.reason})"
    why = f"{item.reason}; id {_code(item.id)}" if section == "recalled" else item.reason
    if "\n" in item.text:   # code: its lines indented under the list item, the reason on a line after it
        first, _, rest = item.text.partition("\n")
        body = "\n".join(f"  {line}" if line else "" for line in rest.split("\n"))
        return f"- [{item.date}] {first}\n{body}\n  ({why})"
    return f"- [{item.date}] {item.text} ({why})"


def render(entries: list[_Entry]) -> str:
    """The Markdown of ``entries``: one heading per non-empty section, in :data:`_ORDER`."""
    by_section: dict[str, list[str]] = {}
    for e in entries:
        by_section.setdefault(e.section, []).append(e.line)
    parts = []
    for sec in _ORDER:
        if sec in by_section:
            parts.append(_HEADINGS[sec] + "\n" + "\n".join(by_section[sec]))
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------- gathering
def _code(text: str) -> str:
    """``text`` as a Markdown code span: in single backticks, or, when it holds backticks, fenced
    by one more than its longest run of them and padded with a space (CommonMark)."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    if not runs:
        return f"`{text}`"
    fence = "`" * (max(runs) + 1)
    return f"{fence} {text} {fence}"


def _figure(x: float) -> str:
    """A score or relevance for a reader: two decimals, "<0.01" for a positive one that rounds to
    0 (a hit scored 0 is shown nowhere, so "0.00" would say what is not so)."""
    return f"{x:.2f}" if x >= 0.005 or x <= 0 else "<0.01"


def _reason_of_path(hit: Any, threshold: float | None = None, later: Sequence[str] = ()) -> str:
    """Why a recalled hit is shown: the seed it was reached from and the relations of the way
    there (an entity node in between reads "both mention <entity>", an entity seed "via entity
    <entity>"; other ids in between are left out, the hit's ``path`` has them), or a direct
    match; either called weak when its relevance is below the recall's ``relevance_threshold``
    (so a prompt does not present a guess, or a neighbour of the answer, as a match)."""
    if len(hit.path) <= 1:
        if threshold is not None and hit.relevance < threshold:
            return f"recalled: weak match (relevance {_figure(hit.relevance)})"
        return "recalled: direct match"
    steps, ways, i = hit.path[1:], [], 0
    weak = f"; weak match (relevance {_figure(hit.relevance)})" if threshold is not None and hit.relevance < threshold else ""
    if all(s.relation is Relation.SUPERSEDES and not s.forward for s in steps):
        # placed by a memory it superseded (an earlier wording, or a value it changed), which
        # the block does not show
        return "recalled: supersedes a memory that matched" + weak
    if all(s.relation is Relation.CONTRADICTS and not s.forward for s in steps):
        if hit.path[0].id in later:   # the value before a change, asked for ("where did I live before
            return f"recalled: the earlier value of `{hit.path[0].id}`, which matched" + weak   # Denver?")
        # brought in by the earlier statements it changes (recall.seeds.later_standing)
        if len(steps) == 1:
            return f"recalled: changes `{hit.path[0].id}`, which matched" + weak
        return f"recalled: changes `{hit.path[-2].id}`, which changed `{hit.path[0].id}`, which matched" + weak
    origin = _code(hit.path[0].id)
    if steps[0].relation is Relation.DISCUSSED_IN and not steps[0].forward:
        origin, i = "its session", 1   # a session node is no line of the block
    seed_entity = entity_of_node(hit.path[0].id)
    if seed_entity is not None and steps[0].relation is Relation.MENTIONS:
        origin, i = f"entity {seed_entity}", 1   # the query matched the entity: the hit mentions it
    while i < len(steps):
        s = steps[i]
        entity = entity_of_node(s.id) if i + 1 < len(steps) else None
        if entity is not None and s.relation is Relation.MENTIONS and steps[i + 1].relation is Relation.MENTIONS:
            ways.append(f"both mention {entity}")
            i += 2
            continue
        if s.relation is not None:
            ways.append(s.relation.value if s.forward else f"{s.relation.value} reversed")
        i += 1
    return f"recalled: via {origin}" + (f" ({', '.join(ways)})" if ways else "") + weak


def _hit_text(hit: Any, text: str | None = None) -> str:
    """A hit's text (or ``text``) on one line, or its lines when it holds a fenced code block
    (flattened, code loses the line breaks and indentation it needs); a decision's with its
    outcome."""
    text = hit.text if text is None else text
    text = _as_shown(text)
    return text if hit.outcome is None else f"{text} [outcome: {hit.outcome}]"


def _whole_text(engram: Any, hit: Any, namespace: str) -> str | None:
    """The whole text of a hit's memory stored as pieces, None for one stored whole (or with a
    piece hidden by a censor rule). Recall gives such a memory at its best piece (``Hit.chunk``);
    an L1 line gives it whole where that fits: the steps and the code of a long answer, not
    only the lead-in that matched ("Here is what is going on and how to work around it:")."""
    if hit.chunk is None:
        return None
    try:
        return engram.get(hit.id, namespace=namespace).text
    except MemoryBlockedError:
        return None


#: A line indented as code is (four spaces or a tab before its first character; or two, beside
#: lines that end as code does: YAML, JavaScript).
_INDENTED = re.compile(r"^(?: {4,}|\t)\S", re.MULTILINE)
_INDENTED_2 = re.compile(r"^(?: {2,}|\t)\S", re.MULTILINE)
_CODE_END = re.compile(r"[:{};(),\[\]=]\s*$|^\s*[\w.-]+:\s+\S", re.MULTILINE)   # (or a YAML key: value)


def _as_shown(text: str) -> str:
    """``text`` as a block line shows it: code keeps its line breaks (a fence; two lines indented
    by four spaces or a tab, as a piece cut from inside a long code block is, which has no fence
    and on one line lost its indentation and newlines; or two lines indented by two beside two
    that end as code or YAML does), prose is one line."""
    code = ("```" in text or len(_INDENTED.findall(text)) >= 2   # (one indented line is a wrapped sentence)
            or (len(_INDENTED_2.findall(text)) >= 2 and len(_CODE_END.findall(text)) >= 2))
    return _code_lines(text) if code else _one_line(text)


def _code_lines(text: str) -> str:
    """``text`` with its line breaks, trailing spaces and runs of blank lines cut."""
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.strip().splitlines()))


_MIN_EXCERPT_TOKENS = 16   # a recalled memory is cut to an excerpt only when this much room is left
_EXCERPT_LEAD_WORDS = 2    # words kept before the first query word of a sentence cut short


def excerpt(text: str, query: str, max_tokens: int, count: Callable[[str], int]) -> str | None:
    """The part of ``text`` that best answers ``query`` within ``max_tokens`` (by ``count``): the
    sentence sharing most keyword terms with the query (the first of equals), widened by its
    neighbours while it fits, with "…" where text was cut; a sentence too long alone keeps its
    words from two before the first query word on; None when not even a few words fit.

    A query-biased summary (Tombros & Sanderson, SIGIR 1998): a long recalled memory that
    does not fit a small budget enters the prompt as its most relevant sentences instead of
    yielding its place to weaker memories.
    """
    from .index.tokens import tokenize
    from .sentences import split_sentences

    sentences = split_sentences(text)
    if not sentences:
        return None
    terms = set(tokenize(query))
    overlap = [len(terms & set(tokenize(x))) for x in sentences]
    best = overlap.index(max(overlap))

    def render(lo: int, hi: int) -> str:
        body = " ".join(sentences[lo:hi])
        return ("… " if lo > 0 else "") + body + (" …" if hi < len(sentences) else "")

    lo, hi = best, best + 1
    if count(render(lo, hi)) > max_tokens:
        # the sentence alone is too long: its words from just before the first one the query
        # shares (the answer tends to follow the question's words: "I now live in ..."), as
        # many as fit
        words = sentences[best].split()
        first = next((i for i, w in enumerate(words) if terms & set(tokenize(w))), 0)
        start = max(0, first - _EXCERPT_LEAD_WORDS)
        words = words[start:]
        lead = "… " if best > 0 or start > 0 else ""
        whole = len(words)

        def cut_text(ws: list[str]) -> str:   # "…" where text was left out, not after the text's end
            more = len(ws) < whole or best + 1 < len(sentences)
            return lead + " ".join(ws) + (" …" if more else "")

        while words and count(cut_text(words)) > max_tokens:   # by quarters, the last few one by one
            words = words[: len(words) * 3 // 4] if len(words) > 8 else words[:-1]
        label = 1 if start == 0 and words and SPEAKER_LABEL.match(words[0] + " ") else 0   # "user:" says nothing
        return cut_text(words) if len(words) >= 3 + label else None
    grown = True
    while grown:   # one sentence after, then one before, while either fits
        grown = False
        if hi < len(sentences) and count(render(lo, hi + 1)) <= max_tokens:
            hi, grown = hi + 1, True
        if lo > 0 and count(render(lo - 1, hi)) <= max_tokens:
            lo, grown = lo - 1, True
    return render(lo, hi)


def _gap_text(gap: Any, query: str) -> str:
    if gap.reason == "empty_namespace":   # ("Namespace 'default' holds no memories.")
        return f"{gap.detail[:1].upper()}{gap.detail[1:]}."
    if gap.reason == "filtered_out":
        return f'Memories relate to "{query}" but none passed the filters.'
    if gap.reason in ("changed_since", "unstated", "unmentioned"):   # ("No memory says where the user works.")
        return f"{gap.detail[:1].upper()}{gap.detail[1:]}."
    if gap.reason == "empty_window":
        return f"{gap.detail[:1].upper()}{gap.detail[1:]}: the memories here are from other times."
    best = "" if gap.best_similarity is None else f" (best similarity {gap.best_similarity:.2f})"
    return f'No memory strongly matches "{query}"{best}; the store may not hold the answer.'


def _profile_items(engram: Any, namespace: str, subjects: tuple[str, ...] | None = None) -> list[ContextItem]:
    """L0's profile lines: every current slot value of ``subjects`` (default the user's,
    ``slots.USER_SUBJECT``: every name of theirs is stored as it); a subject other than the
    user's is named on its lines ("acme plan: Enterprise")."""
    items: list[ContextItem] = []
    seen: set[str] = set()
    for subject in ((USER_SUBJECT,) if subjects is None else subjects):
        named = "" if subjects is None or canonical_subject(subject) == USER_SUBJECT else f"{subject} "
        for attr, value in engram.profile(subject, namespace=namespace).items():
            for m in value if isinstance(value, list) else [value]:
                if m.id in seen:
                    continue
                seen.add(m.id)
                shown = _one_line(m.value if m.value else m.text)
                items.append(ContextItem(m.id, "L0", m.kind, f"{named}{attr}: {shown}", _date(m.created_at),
                                         _flagged(f"profile: {named}{attr}", m)))
    return items


def _l0_kind_items(engram: Any, namespace: str, kind: str, reason: str, now: float | None,
                   keep: Callable[[Any], bool] = lambda m: True) -> list[ContextItem]:
    mems = engram.query(namespace=namespace, kind=kind, order="salience_desc", limit=_L0_LIMIT, now=now)
    return [ContextItem(m.id, "L0", m.kind, _as_shown(m.text), _date(m.created_at), _flagged(reason, m))
            for m in mems if keep(m)]


def _contradiction_notes(engram: Any, warnings: list, namespace: str) -> dict[str, str]:
    """memory id -> what its line says of the ``contradicts`` pairs recall warned about: "; said
    otherwise later in `b:1`" for the one valid earlier, "; contradicts `a:2`, said earlier" for
    the other (an agent reading the block sees which value is current). When the earlier one
    says more than the home, employer or name the later one changed, that is named: "; home said
    otherwise later in `b:1`" (:func:`engramdb.standing.changed_standing`)."""
    later: dict[str, list[str]] = {}     # id -> the ids that say otherwise later
    earlier: dict[str, list[str]] = {}   # id -> the ids it contradicts, said earlier
    what: dict[str, set[str]] = {}       # id -> what of it the later ones changed, when it says more
    valid: dict[str, float] = {}
    texts: dict[str, str] = {}

    def valid_from(mid: str) -> float:
        if mid not in valid:
            m = engram.get(mid, namespace=namespace)
            valid[mid] = m.created_at if m.valid_from is None else m.valid_from
            texts[mid] = m.text
        return valid[mid]

    for w in warnings:
        try:
            older, newer = sorted((w.source, w.target), key=valid_from)
        except MemoryBlockedError:   # a censor rule hides one of them: nothing to say of it
            continue
        later.setdefault(older, []).append(newer)
        earlier.setdefault(newer, []).append(older)
        what.setdefault(older, set()).update(changed_standing(texts[older], texts[newer]))
    notes: dict[str, str] = {}
    for mid in later.keys() | earlier.keys():
        said = []
        if mid in later:
            # a message that says more than the value changed ("Hi! I'm Maya. I live in Denver
            # with my partner Sam.") names it: the rest still holds (helper-224)
            changed = " and ".join(sorted(what.get(mid, ())))
            said.append(f"{changed + ' ' if changed else ''}said otherwise later in "
                        + ", ".join(_code(i) for i in later[mid]))
        if mid in earlier:
            said.append("contradicts " + ", ".join(_code(i) for i in earlier[mid]) + ", said earlier")
        notes[mid] = "; " + "; ".join(said)
    return notes


def quoted_changes(engram: Any, hits: list, namespace: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Of recall ``hits`` (of ``namespace``, read through the open ``engram``): memory id -> the
    changed memories it quotes, each with the ids that say otherwise later: a session summary of
    ``consolidate`` holding a turn's sentence word for word
    (:func:`engramdb.sentences.quotes`) that a memory valid later contradicts or supersedes, one
    the summary does not quote. Its line says "; quotes `s1:1`, said otherwise later in
    `s2:3`": recall ranks such a summary as the turn it quotes, below the change, and its line
    says why, as the turn's own line would (it showed "I live in Boston" unflagged beside "we
    moved to Denver")."""
    notes: dict[str, list[tuple[str, list[str]]]] = {}
    for h in hits:
        if "summary" not in h.tags:
            continue
        sources = [e.target for e in engram.edges(h.id, namespace=namespace)
                   if e.relation is Relation.EXTRACTED_FROM and e.source == h.id]
        said: list[tuple[str, list[str]]] = []
        for t in sources:
            try:
                turn = engram.get(t, namespace=namespace)
                if not quotes(h.text, turn.text):
                    continue
                since = turn.created_at if turn.valid_from is None else turn.valid_from
                later = []
                for e in engram.edges(t, namespace=namespace):
                    other = e.source if e.target == t else e.target
                    if other in sources or other in later or not (
                            e.relation is Relation.CONTRADICTS
                            or (e.relation is Relation.SUPERSEDES and e.target == t)):
                        continue
                    m = engram.get(other, namespace=namespace)
                    if (m.created_at if m.valid_from is None else m.valid_from) > since:
                        later.append(other)
            except MemoryBlockedError:   # a censor rule hides one of them: nothing to say of it
                continue
            if later:
                said.append((t, later))
        if said:
            notes[h.id] = said
    return notes


def _flagged(reason: str, memory: Any) -> str:
    """``reason`` with the memory's ``warn`` censor notes (:mod:`engramdb.censor`) appended:
    "...; censor warning: <reason> (rule <id>)"."""
    for note in getattr(memory, "censor_notes", ()):
        reason += f"; censor warning: {note.reason or 'no reason given'} (rule {note.rule_id})"
    return reason


def _preview(text: str) -> str:
    text = _one_line(text)
    return text if len(text) <= _PREVIEW_CHARS else text[: _PREVIEW_CHARS - 1].rstrip() + "…"


def _recalled_cut(hits: list[Any]) -> int:
    """How many hits the recalled section keeps at most: up to the first score below half of
    the previous one, and at least 3 unless a score falls below a tenth of the best one's
    (hits of a thousandth of the best hit's score are no recalled fact; they used to fill the
    3 and, tied with each other, never met the half rule after them)."""
    n = min(len(hits), 1)
    while n < len(hits) and (hits[n].score >= 0.5 * hits[n - 1].score
                             or (n < _MIN_RECALLED and hits[n].score >= _MIN_SHARE * hits[0].score)):
        n += 1
    return n


# ---------------------------------------------------------------------------------- assembly
def assemble(engram: Any, query: str, *, namespace: str, budget_tokens: int | None = None,
             frame: str = "conversation", count_tokens: Callable[[str], int] | None = None,
             now: float | None = None, filters: dict[str, Any] | None = None,
             subjects: tuple[str, ...] | None = None) -> ContextBlock:
    """The body of :meth:`engramdb.Engram.context` (see there and the module docstring).

    Uses only the engine's public read verbs (``recall`` with ``reinforce=False``, ``profile``,
    ``query``, ``edges``, ``get``, ``namespaces``), so a read-only store can assemble context.

    Parameters
    ----------
    engram : Engram
    query : str
    namespace : str
    budget_tokens : int, optional
    frame : str
    count_tokens : callable str -> int, optional
    now : float, optional
        Unix seconds for salience and recency; the wall clock when omitted.
    filters : dict, optional
        ``recall``'s filters (``kinds``, ``kind``, ``tags``, ``since``, ``until``) for the
        recalled tiers; with any, L2 lists no graph neighbours (they could fall outside them).
    subjects : tuple of str, optional
        Whose slots L0's profile shows; the user's when omitted.

    Returns
    -------
    ContextBlock

    Raises
    ------
    InvalidInputError
        Unknown frame, bad budget, a counter that is not callable or returns no int >= 0, or a
        counter that counts the empty text above the budget.
    """
    fr = check_frame(frame)
    budget = check_budget(budget_tokens, fr)
    count = check_counter(count_tokens)
    if not isinstance(query, str):
        raise InvalidInputError(f"query: expected a non-empty str, got {query!r}")
    empty = count("")
    if empty > budget:
        raise InvalidInputError(f"count_tokens counts the empty text as {empty} tokens, above the budget "
                                f"of {budget}: no block can fit")
    scale = budget / fr.total

    # L0 (an empty namespace has no profile: recall's gap names where the memories are)
    profile = _profile_items(engram, namespace, subjects) if namespace in engram.namespaces() else []
    in_l0 = {i.id for i in profile}
    procedures = [i for i in _l0_kind_items(engram, namespace, "procedural", "procedure", now)
                  if i.id not in in_l0]
    in_l0 |= {i.id for i in procedures}
    decisions = [i for i in _l0_kind_items(engram, namespace, "decision", "open decision", now,
                                           keep=lambda m: math.isinf(m.salience_at))
                 if i.id not in in_l0]
    in_l0 |= {i.id for i in decisions}

    # L1 and L2 from one recall (read-only)
    res = engram.recall(query, namespace=namespace, k=_L1_K + _L2_K, reinforce=False, now=now, **(filters or {}))
    # a hit scored 0 is the vector leg's fill (the nearest of what matched nothing): no evidence,
    # no line (a hit of a tiny share of the best one's score can still be the one that matters:
    # "I'm allergic to penicillin" for "can I take the antibiotic Dr Silva prescribed?")
    # L0's procedures and open decisions that the question recalls come first, by score; then
    # the rest by salience (a team's 40 conventions must not push out the one asked about)
    score_of = {h.id: h.score for h in res.hits if h.id in in_l0 and h.score > 0}
    decisions, procedures = _recalled_first(decisions, score_of), _recalled_first(procedures, score_of)
    hits = [h for h in res.hits if h.id not in in_l0 and h.score > 0]
    gaps = tuple(_gap_text(g, query) for g in res.gaps)
    weak = res.stats.get("relevance_threshold")
    record = track_record(res.hits, weak)
    cut = min(_recalled_cut(hits), _L1_K)
    disputed = _contradiction_notes(engram, res.warnings, namespace)
    # a profile value the recall found said otherwise later says so too (helper-227: "job: data
    # analyst at Fidelity" stood unflagged above the new job at Moderna)
    profile = [replace(i, reason=i.reason + disputed[i.id]) if i.id in disputed else i for i in profile]
    outdated = said_later(res.warnings)   # (a hit said otherwise later: the ids that say so)
    for mid, quoted in quoted_changes(engram, hits, namespace).items():
        disputed[mid] = disputed.get(mid, "") + "".join(
            f"; quotes {_code(t)}, said otherwise later in " + ", ".join(map(_code, later)) for t, later in quoted)
        outdated[mid] = outdated.get(mid, []) + [x for _t, later in quoted for x in later]
    # beyond the first _MIN_RECALLED, a hit that shares next to nothing with the question (relevance
    # below _L1_RELEVANCE) and no warning names is an L2 preview, not a line (helper-232: 12 L1
    # lines, 7 of them "weak match (relevance <0.01)", in a block for a 56-message chat)
    warned = set(disputed) | set(outdated)
    in_l1 = [h for n, h in enumerate(hits[:cut])
             if n < _MIN_RECALLED or h.relevance >= _L1_RELEVANCE or h.id in warned]
    kept = {h.id for h in in_l1}
    recalled = [ContextItem(h.id, "L1", h.kind, _hit_text(h), _date(h.created_at),
                            _flagged(_reason_of_path(h, weak, outdated.get(h.id, ())) + disputed.get(h.id, ""), h),
                            float(h.score))
                for h in in_l1]
    # a memory stored as pieces is recalled at its best piece; its line gives it whole where that fits
    whole = {h.id: _hit_text(h, text) for h in in_l1 if (text := _whole_text(engram, h, namespace)) is not None}
    further = [ContextItem(h.id, "L2", h.kind, _preview(_hit_text(h)), _date(h.created_at),
                           _flagged(_reason_of_path(h, weak, outdated.get(h.id, ())).replace("recalled: ", "recalled, ")
                                    + f", score {_figure(h.score)}" + disputed.get(h.id, ""), h), float(h.score))
               for h in hits if h.id not in kept]
    shown = in_l0 | {h.id for h in hits}
    neighbours: list[ContextItem] = []
    for h in hits[:0 if filters else _NEIGHBOUR_OF]:
        for e in engram.edges(h.id, namespace=namespace):
            other = e.target if e.source == h.id else e.source
            if other in shown or len(neighbours) >= _NEIGHBOURS:
                continue
            try:
                m = engram.get(other, namespace=namespace)
            except MemoryBlockedError:   # one of its pieces is hidden by a censor rule
                continue
            if m.state.value != "active" or not CONNECTOR_TAGS.isdisjoint(m.tags) or m.chunk_of is not None:
                continue   # as recall's hits: no connector node, and a piece is its memory, not a neighbour
            shown.add(other)
            neighbours.append(ContextItem(m.id, "L2", m.kind, _preview(m.text), _date(m.created_at),
                                          _flagged(f"neighbour of {h.id} ({e.relation.value})", m)))

    # sections: first pass within shares, second pass with what is left, in tier order
    def entry(section: str, item: ContextItem) -> _Entry:
        return _Entry(section, item, _line(section, item))

    sections = [("profile", profile, fr.profile), ("decision", decisions, fr.decisions),
                ("procedure", procedures, fr.procedures), ("recalled", recalled, fr.recalled)]
    chosen: dict[str, list[_Entry]] = {s: [] for s in _ORDER}
    chosen["gap"] = [_Entry("gap", None, "- " + g) for g in gaps]
    chosen["track"] = [] if record is None else [_Entry("track", None, "- " + record.sentence())]
    stated = sum(count(e.line) for e in chosen["gap"] + chosen["track"])   # kept before L1 by the final fit
    left_out: list[tuple[str, ContextItem]] = []
    used = 0
    for sec, items, share in sections:
        # the profile is always in (then fitted); procedures and open decisions have their share
        # (at least _L0_FLOOR of the budget) and wait for the second pass beyond it, as the
        # recalled hits do: 38 conventions and 18 open decisions had filled a whole block and
        # left no recalled memory
        room = (budget if sec == "profile" else int(share * scale) if sec == "recalled"
                else max(int(share * scale), int(_L0_FLOOR * budget)))
        for n, it in enumerate(items):
            e = entry(sec, it)
            cost = count(e.line)
            share_room = room
            if sec == "recalled" and n == 0:
                # the best hit may use all the block has left, not only its section's share: a
                # larger budget then never shows less of it (a small share cut it to an excerpt
                # that the room left over would have held whole); the hits after it have what
                # it leaves of the share
                before = [x for s in ("profile", "decision", "procedure", "gap", "track") for x in chosen[s]]
                rendered = count(render(before)) + count("\n\n" + _HEADINGS[sec] + "\n")
                room = max(room, budget - rendered)
            if it.id in whole and sec == "recalled":
                e, cost = _whole_if_it_fits(e, cost, whole[it.id], room, count)
            if cost > room and sec == "recalled" and n == 0 and room >= _MIN_EXCERPT_TOKENS:
                # the best hit, too long for all the room left: its best sentences, not its place
                # to a weaker memory (a later hit waits for the second pass, which may hold it whole)
                e = _excerpted(sec, it, query, room, count) or e
                cost = count(e.line)
            if cost <= room:
                chosen[sec].append(e)
                room = share_room - cost
                used += cost
            else:
                room = share_room
                left_out.append((sec, it))
    used += stated
    # L2 keeps what the sections leave of the frame (as a share), up to what its previews need
    l2_share = int((fr.total - fr.profile - fr.decisions - fr.procedures - fr.recalled) * scale)
    l2_need = sum(count(_line("more", it)) for it in further + neighbours) + sum(
        count(_line("more", it)) // 2 for sec, it in left_out if sec == "recalled")   # previews are short
    open_room = budget - min(l2_share, l2_need)
    # the recalled hits left out come first, then L0's procedures and decisions beyond their share
    # (these also go after L1 in the final fit: 40 conventions once took the room of the answer)
    late: list[_Entry] = []
    for sec, it in sorted(left_out, key=lambda x: x[0] != "recalled"):   # (stable: tier order within)
        e = entry(sec, it)
        cost = count(e.line)
        if it.id in whole and sec == "recalled":
            e, cost = _whole_if_it_fits(e, cost, whole[it.id], open_room - used, count)
        if (used + cost > open_room and (sec == "recalled" or it.id in score_of)
                and open_room - used >= _MIN_EXCERPT_TOKENS):   # (a procedure the query recalls too)
            # too long whole: its best part (an L0 line's section may need its heading still)
            margin = 0 if sec == "recalled" else count("\n\n" + _HEADINGS[sec] + "\n") + 2
            e = _excerpted(sec, it, query, open_room - used - margin, count) or e
            cost = count(e.line)
        if used + cost <= open_room:
            (chosen[sec] if sec == "recalled" else late).append(e)
            used += cost
        elif sec == "recalled":
            further.insert(0, ContextItem(it.id, "L2", it.kind, _preview(it.text), it.date,
                                          it.reason.replace("recalled: ", "recalled, "), it.score))
    # a hit given as its best piece within its section's share is given whole when the room left
    # holds it, best first (helper-232: an answer's code block was left out of a block a third full)
    for i, e in enumerate(chosen["recalled"]):
        if e.item.id in whole:
            piece = count(e.line)
            got, cost = _whole_if_it_fits(e, piece, whole[e.item.id], open_room - used + piece, count)
            if got is not e:
                chosen["recalled"][i] = got
                used += cost - piece
    for sec, items, _ in sections:      # each section back in its own order (best first)
        rank = {it.id: r for r, it in enumerate(items)}
        chosen[sec].sort(key=lambda e: rank[e.item.id])
    further.sort(key=lambda i: -(i.score or 0.0))
    for it in further + neighbours:
        chosen["more"].append(entry("more", it))

    # keep order = priority: L0 (profile, decisions, procedures within their share; best first),
    # gaps, track record, L1, L0 beyond its share, L2
    order = (chosen["profile"] + chosen["decision"] + chosen["procedure"] + chosen["gap"] + chosen["track"]
             + chosen["recalled"] + late + chosen["more"])
    text, kept = _fit(order, budget, count)
    kept_ids = {e.item.id for e in kept if e.item is not None}
    best = recalled[0].id if recalled else None
    if best is not None and kept_ids and best not in kept_ids:   # the budget cut the best match: say so
        said = (f"The budget of {counted(budget, 'token')} left no room for the best match {_code(best)}; "
                "give a larger budget_tokens.")
        gaps = gaps + (said,)
        at = len(chosen["profile"] + chosen["decision"] + chosen["procedure"] + chosen["gap"])
        line = _Entry("gap", None, "- " + said)
        text2, kept2 = _fit(order[:at] + [line] + order[at:], budget, count)
        if line in kept2:   # (in the text when it fits there; else the block stays as it was)
            text, kept = text2, kept2
            kept_ids = {e.item.id for e in kept if e.item is not None}
    # every memory this block considered, whatever its tier (an L0 line cut in either pass
    # included); an L1 hit moved to the L2 previews is one candidate, shown if its preview is
    candidates = list(dict.fromkeys([it.id for _, items, _ in sections for it in items]
                                    + [it.id for it in further + neighbours]))
    if candidates and not kept_ids:   # an empty block would otherwise look like an empty memory
        found = counted(len(candidates), "memory")
        gaps = gaps + (f"The budget of {counted(budget, 'token')} left no room for "
                       f"{'the one memory' if len(candidates) == 1 else f'any of the {found}'} found; "
                       "give a larger budget_tokens.",)
    # each section in its own order (the recalled procedure first, not after those that fit its share)
    rank = {it.id: r for _, items, _ in sections for r, it in enumerate(items)}
    laid = sorted(kept, key=lambda e: (_ORDER.index(e.section), rank.get(e.item.id, 0) if e.item else 0))
    if laid != kept and count(render(laid)) <= budget:
        text, kept = render(laid), laid
    shown = sorted(kept, key=lambda e: _ORDER.index(e.section))   # as render lays them out (stable)
    items = {t: tuple(e.item for e in shown if e.item is not None and e.item.tier == t) for t in TIERS}
    return ContextBlock(text=text, items=MappingProxyType(items), tokens_used=count(text), budget_tokens=budget,
                        gaps=gaps, frame=fr.name, query=query,
                        dropped=tuple(i for i in candidates if i not in kept_ids), track_record=record)


def _recalled_first(items: list[ContextItem], score_of: dict[str, float]) -> list[ContextItem]:
    """``items`` with those the recall scored (``score_of``: id -> score) first, best first; the
    others after them in their own order (salience)."""
    return sorted(items, key=lambda it: -score_of.get(it.id, -1.0))   # (stable: the rest keep their order)


def _whole_if_it_fits(e: _Entry, cost: int, text: str, room: int,
                      count: Callable[[str], int]) -> tuple[_Entry, int]:
    """The line of ``e``'s memory given whole (``text``: :func:`_hit_text` of :func:`_whole_text`)
    and its cost in tokens when it fits ``room``, else ``e`` (its best piece) and ``cost`` as
    they were."""
    it = replace(e.item, text=text)
    line = _line(e.section, it)
    whole_cost = count(line)
    return (_Entry(e.section, it, line), whole_cost) if whole_cost <= room else (e, cost)


def _excerpted(sec: str, it: ContextItem, query: str, room: int, count: Callable[[str], int]) -> _Entry | None:
    """The line of ``it`` with its text cut to its :func:`excerpt` for ``query`` within ``room``
    tokens (the line's frame included), or None when no excerpt fits."""
    cut = excerpt(it.text, query, room - count(_line(sec, replace(it, text=""))), count)
    return None if cut is None else _Entry(sec, replace(it, text=cut), _line(sec, replace(it, text=cut)))


def _fit(order: list[_Entry], budget: int, count: Callable[[str], int]) -> tuple[str, list[_Entry]]:
    """The longest prefix of ``order`` whose rendering fits ``budget`` (dropping from the end:
    lowest tier and score first), found by bisection over prefix lengths and verified, so the
    answer always fits whatever the counter (the empty prefix renders as the empty text)."""
    full = render(order)
    if count(full) <= budget:
        return full, order
    lo, hi = 0, len(order) - 1       # prefix lo fits (the empty text was checked); prefix hi+1 does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(render(order[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return render(order[:lo]), order[:lo]
