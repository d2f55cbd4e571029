"""Agent tools over an engramdb store: one set of definitions, its JSON schemas, and the dispatcher.

The six tools, ``remember``, ``recall``, ``context``, ``forget``, ``supersede`` and ``history``,
are defined once here (:data:`TOOLS`: name, description, JSON Schema of the arguments, whether
the tool only reads). Everything else is generated from these definitions:

- :func:`openai_tools`: the ``tools=`` list of OpenAI chat completions (function calling);
- :func:`anthropic_tools`: the ``tools=`` list of Anthropic's Messages API;
- the MCP server (:mod:`engramdb.integrations.mcp_server`) lists the same tools;
- :func:`call_tool` / :func:`dispatch` run a tool call against an open store, and
  :func:`run_openai_tool_call` / :func:`run_anthropic_tool_use` wrap them in each provider's
  result message.

A dispatcher is bound to one namespace: the model never names one (a namespace is a hard
partition; the caller picks it). Arguments are checked against the schema's names, required
fields and JSON types here (as JSON Schema Draft 2020-12 types them: ``5.0`` is an integer and
is passed on as ``5``); the values themselves (a memory kind, a frame, a time) are checked by
the engine, so a bad one fails with engramdb's own error message (``UnknownKindError: unknown
memory kind 'bogus'; expected one of [...]``). Errors come back as results marked as errors, never
as a bare "error executing tool". This module imports nothing beyond engramdb's error classes
until a tool runs.
"""
from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..errors import EngramError, InvalidInputError, MemoryNotFoundError, NamespaceError, ReadOnlyError
from ..types import Relation

if TYPE_CHECKING:
    from ..engine import Engram

__all__ = [
    "FRAMES",
    "KINDS",
    "TOOLS",
    "Tool",
    "ToolResult",
    "anthropic_tools",
    "call_tool",
    "check_recall_arguments",
    "check_recall_kwargs",
    "dispatch",
    "holds_memories",
    "openai_tools",
    "run_anthropic_tool_use",
    "outdated",
    "tool_hit",
    "run_openai_tool_call",
    "tools",
]

#: Memory kinds (``engramdb.MemoryKind`` values) and context frames (``engramdb.context.FRAMES``),
#: listed here so that building the schemas imports no engine module (a test pins both lists).
KINDS = ("working", "episodic", "semantic", "procedural", "decision")
FRAMES = ("conversation", "question", "task", "decision", "creative", "debug")

_TIME = {"type": "string", "description": "ISO-8601 date or date-time (naive = UTC), e.g. 2024-05-01; a date, "
                                          "month (2024-05), year or week (2024-W18) names that whole period"}


@dataclass(frozen=True)
class Tool:
    """One agent tool: its name, description, argument schema and what it runs.

    Attributes
    ----------
    name : str
    description : str
        What the model reads to decide when to call the tool.
    parameters : mapping
        JSON Schema (Draft 2020-12) of the arguments: an object schema.
    read_only : bool
        True when the tool never writes the store; a read-only server exposes only these.
    run : callable (Engram, namespace str, arguments dict, now float or None) -> dict
        Runs the tool; returns a JSON-ready dict; raises :class:`engramdb.EngramError`. ``now``
        (Unix seconds) is the time of the call when the caller gives one (:func:`dispatch`).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool
    run: Callable[[Engram, str, dict, "float | None"], dict] = field(repr=False)


@dataclass(frozen=True)
class ToolResult:
    """Outcome of one tool call.

    Attributes
    ----------
    name : str
        The tool called.
    is_error : bool
        True when the call failed; ``content`` is then ``{"error": {"type", "message"}}``.
    content : dict
        The tool's JSON-ready result, or the error.
    """

    name: str
    is_error: bool
    content: dict

    @property
    def text(self) -> str:
        """The result as JSON; an error as ``"<ErrorClass>: <engramdb's message>"``."""
        if self.is_error:
            err = self.content["error"]
            return f"{err['type']}: {err['message']}"
        return json.dumps(self.content, ensure_ascii=False)


# ----------------------------------------------------------------------------- the tools
def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    try:
        return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _some(args: dict, *names: str) -> dict:
    return {n: args[n] for n in names if args.get(n) is not None}


def _recorded(eng: Engram, ns: str, now: float | None, after: str | None = None) -> dict:
    """``{"recorded_at": now}`` for a write at the call's time ``now`` (a replayed conversation's):
    the store learns the memory then, so ``as_of`` a replayed time reads what the replay had
    stored by it (recorded at the clock, every note of a replay was after any time of it); empty
    without ``now``, for a ``now`` the clock has not reached (a record time is never later), or one
    before the record of ``after`` (the memory a new version supersedes: a successor is never
    recorded before it)."""
    from ..validate import now as clock_now

    if now is None or now > clock_now():
        return {}
    if after is not None and eng.get(after, namespace=ns).recorded_at > now:
        return {}
    return {"recorded_at": now}


def _remember(eng: Engram, ns: str, args: dict, now: float | None) -> dict:
    fields = _some(args, "kind", "id", "tags", "created_at", "confidence", "source", "subject", "attribute",
                   "value")
    if now is not None:   # a note made at the call's time (a replayed conversation's), and recorded then
        fields.setdefault("created_at", now)
        fields.update(_recorded(eng, ns, now))
    from ..kinds import protected_category   # (here: the schemas alone load nothing heavy)
    from ..thirdperson import in_first_person

    # a note a model chose to keep is a fact (the tool's default kind), and one of the user's
    # identity, health or family is protected, as add_conversation protects the user's messages:
    # episodic and untagged, "User's levothyroxine dose is 75 mcg daily." was archived after a
    # few quiet weeks (helper-224)
    fields.setdefault("kind", "semantic")
    if protected_category(in_first_person(args["text"]), fields["kind"])[0] is not None:
        fields["tags"] = list(dict.fromkeys([*([fields["tags"]] if isinstance(fields.get("tags"), str)
                                               else fields.get("tags", [])), "protected"]))
    mid = eng.add(args["text"], namespace=ns, **fields)
    out = {"id": mid, "namespace": ns}
    stored = eng.get(mid, namespace=ns)
    if stored.superseded_by is not None:   # a value dated before the slot's current one: history
        out["superseded_by"] = stored.superseded_by
    # the stored memories it says otherwise than (a home, dose or time that changed), as
    # add_conversation's "changed" says: the model learns the old value is out of date (helper-221)
    changed = sorted({e.target for e in eng.edges(mid, namespace=ns)
                      if e.source == mid and e.relation in (Relation.CONTRADICTS, Relation.SUPERSEDES)})
    if changed:
        out["changed"] = changed
    return out


#: What a tool says of a namespace that holds no memory (a new user): never the other namespaces'
#: names, which the engine's messages list for a developer (they are other users' to a model).
_NOTHING_STORED = "no memories are stored here yet"


_FILTERS = ("kinds", "kind", "tags", "min_confidence", "since", "until", "as_of", "include_archived",
            "include_superseded", "valid_at", "subject", "attribute")


#: the hint of a blank question to a tool (the engine's names ``vector=``, which no tool takes)
_ASK_IN_WORDS = "pass the question as text"


def check_recall_arguments(eng: Engram, query: Any, *, k: Any = None, hint: str | None = None,
                           **recall_kwargs: Any) -> None:
    """What ``recall`` checks of its arguments besides the namespace (the question, ``k``, the
    filters), for an integration that answers a namespace holding nothing without recalling:
    a bad argument then fails for a new user as for any other. ``hint`` replaces the engine's
    hint for a blank question (which names ``vector=``, which an agent tool does not take).

    Raises
    ------
    InvalidInputError, EmptyTextError, UnknownKindError, NonFiniteError
    """
    from ..recall.filters import Filters
    from ..validate import check_int, check_query, check_text

    if hint is None:
        check_query(query, eng.config.store.max_text_chars)
    else:
        check_text(query, eng.config.store.max_text_chars, "query", hint)
    if k is not None:
        check_int(k, "k", 1, 10_000)
    Filters.parse(**{name: v for name, v in recall_kwargs.items() if name in _FILTERS})


def check_recall_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The further arguments a retriever passes to :meth:`engramdb.Engram.recall` (its filters,
    ``now``, ``reinforce``, ...), checked by name when the retriever is made: an unknown one
    (``recall_kwargs=`` given to a retriever that takes them as keywords) raised a bare
    ``TypeError`` at its first query (helper106).

    Raises
    ------
    InvalidInputError
        A name that is no argument of ``recall``, or one the retriever sets itself (``query``,
        ``vector``, ``namespace``, ``k``).
    """
    import inspect

    from ..engine import Engram
    from ..errors import InvalidInputError

    known = set(inspect.signature(Engram.recall).parameters) - {"self", "query", "vector", "namespace", "k"}
    bad = sorted(set(kwargs) - known)
    if bad:
        raise InvalidInputError(f"unknown recall argument(s) {bad}; the retriever passes these to recall(): "
                                f"{sorted(known)} (namespace and k are its own)")
    return dict(kwargs)


def outdated(eng: Engram, res: Any, ns: str) -> dict[str, list[str]]:
    """Each hit of the recall answer ``res`` (in namespace ``ns`` of ``eng``) said otherwise later
    -> the ids of the memories that say so: the recall's warnings
    (:func:`engramdb.slots.said_later`) and, for a session summary quoting a changed turn, that
    turn's (:func:`engramdb.context.quoted_changes`). What the retrievers put in a hit's
    metadata, as ``context()`` writes "said otherwise later in `id`"."""
    from ..context import quoted_changes
    from ..slots import said_later

    out = said_later(res.warnings)
    for mid, quoted in quoted_changes(eng, res.hits, ns).items():
        out[mid] = list(dict.fromkeys(out.get(mid, []) + [x for _t, later in quoted for x in later]))
    return out


def holds_memories(eng: Engram, ns: str) -> bool:
    """Whether namespace ``ns`` holds a live memory (NamespaceError for an invalid name): the
    integrations answer a namespace that holds none (a new user's) empty, naming no other."""
    from ..validate import check_namespace

    return check_namespace(ns) in eng.namespaces()


def _recall(eng: Engram, ns: str, args: dict, now: float | None) -> dict:
    # every argument checked as recall checks them, a new user's too (a hint a model can follow)
    check_recall_arguments(eng, args["query"], hint=_ASK_IN_WORDS,
                           **_some(args, "kinds", "tags", "since", "until", "as_of", "valid_at"))
    if not holds_memories(eng, ns):   # a new user's first question: an empty answer, not an error
        return {"hits": [], "gaps": [{"query": args["query"], "reason": "empty_namespace",
                                      "best_similarity": None, "detail": _NOTHING_STORED}]}
    res = eng.recall(args["query"], namespace=ns, k=args.get("k", 5),
                     **_some(args, "kinds", "tags", "since", "until", "as_of", "valid_at"),
                     include_superseded=bool(args.get("include_superseded", False)), now=now)
    later = outdated(eng, res, ns)
    return {"hits": [tool_hit(h, later.get(h.id, ())) for h in res.hits], "gaps": [g.to_dict() for g in res.gaps]}


def tool_hit(hit: Any, said_later: Any = ()) -> dict:
    """A recall hit as a model reads it: ``id``, ``text``, ``date`` (ISO-8601 UTC), ``kind`` and
    ``relevance`` (in [0, 1], two decimals), and only the fields that say something of this hit:
    ``path`` (:func:`engramdb.types.format_path`, "a -[contradicts]-> b") when another memory led
    to it, ``tags``, ``said_otherwise_later_in`` (the ids of the memories that say otherwise later:
    :func:`outdated`), ``state`` when not active, ``confidence`` below 1, a decision's
    ``outcome``, the piece (``chunk``) of a memory stored as pieces, ``source`` and the warn
    rules' ``censor_notes``. Every field of a hit (score, activation, cosine, the path's steps)
    made five hits 2,463 characters, 260 of them the memories' text (helper-221); the Python API
    keeps them all (:meth:`engramdb.types.Hit.to_dict`).

    Parameters
    ----------
    hit : engramdb.types.Hit
    said_later : sequence of str
        The ids of the memories that say otherwise later than ``hit``.

    Returns
    -------
    dict
        JSON-ready.
    """
    from ..types import MemoryState, format_path

    out: dict[str, Any] = {"id": hit.id, "text": hit.text, "date": _iso(hit.created_at), "kind": hit.kind.value,
                           "relevance": round(float(hit.relevance), 2)}
    if len(hit.path) > 1:
        out["path"] = format_path(hit.path)
    if hit.tags:
        out["tags"] = list(hit.tags)
    if said_later:
        out["said_otherwise_later_in"] = list(said_later)
    if hit.state is not MemoryState.ACTIVE:
        out["state"] = hit.state.value
    if hit.confidence < 1.0:
        out["confidence"] = hit.confidence
    for name in ("outcome", "chunk", "source"):
        if getattr(hit, name) is not None:
            out[name] = getattr(hit, name)
    if hit.censor_notes:
        out["censor_notes"] = [n.to_dict() for n in hit.censor_notes]
    return out


def _context(eng: Engram, ns: str, args: dict, now: float | None) -> dict:
    check_recall_arguments(eng, args["query"], hint=_ASK_IN_WORDS, **_some(args, "kinds", "tags", "since", "until"))
    if not holds_memories(eng, ns):
        from ..context import check_budget, check_frame   # the arguments checked as context() does
        frame = check_frame(args.get("frame", "conversation"))
        return {"text": "", "tokens_used": 0, "budget_tokens": check_budget(args.get("budget_tokens"), frame),
                "frame": frame.name, "gaps": [_NOTHING_STORED[0].upper() + _NOTHING_STORED[1:] + "."]}
    block = eng.context(args["query"], namespace=ns, now=now,
                        **_some(args, "budget_tokens", "frame", "kinds", "tags", "since", "until"))
    return {"text": block.text, "tokens_used": block.tokens_used, "budget_tokens": block.budget_tokens,
            "frame": block.frame, "gaps": list(block.gaps)}


def _forget(eng: Engram, ns: str, args: dict, now: float | None) -> dict:
    hard = bool(args.get("hard", False))
    eng.forget(args["id"], namespace=ns, hard=hard)
    return {"id": args["id"], "forgotten": "erased" if hard else "archived"}


def _supersede(eng: Engram, ns: str, args: dict, now: float | None) -> dict:
    fields = _some(args, "by", "id")
    if now is not None and "by" not in fields:   # the new version said at the call's time, and recorded then
        fields["created_at"] = now
        fields.update(_recorded(eng, ns, now, after=args["old_id"]))
    new_id = eng.supersede(args["old_id"], args.get("text"), namespace=ns, **fields)
    return {"id": new_id, "superseded": args["old_id"]}


def _history(eng: Engram, ns: str, args: dict, now: float | None) -> dict:
    return {"id": args["id"], "versions": [e.to_dict() for e in eng.history(args["id"], namespace=ns)]}


def _schema(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_STR_LIST = {"type": "array", "items": {"type": "string"}}

TOOLS: Mapping[str, Tool] = MappingProxyType({t.name: t for t in (
    Tool("remember",
         "Store one memory (a fact, preference, event, procedure or decision) for later recall. "
         "Returns its id, and under 'changed' the ids of stored memories it says otherwise than (an "
         "address, job, dose or time that changed: recall puts the new one first and warns), and under "
         "'superseded_by' the stored memory that holds later than it (a value dated before the current one "
         "is stored as history). Repeating a text already stored reinforces it instead of storing it twice.",
         _schema({
             "text": {"type": "string", "description": "What to remember, in one self-contained sentence."},
             "kind": {"type": "string", "enum": list(KINDS),
                      "description": "semantic (the default): facts and preferences; episodic: events, which "
                                     "fade within weeks unless recalled; procedural: how-tos; decision: a choice "
                                     "with its reasons; working: short-lived."},
             "id": {"type": "string", "description": "Optional id (random when omitted)."},
             "tags": {**_STR_LIST, "description": "Optional labels to filter by later."},
             "created_at": {**_TIME, "description": "When it happened (default: now). " + _TIME["description"]},
             "confidence": {"type": "number", "minimum": 0, "maximum": 1},
             "source": {"type": "string", "description": "Where it came from (session or turn id)."},
             "subject": {"type": "string", "description": "Slot subject, e.g. user (with attribute); "
                                                          "'the user', 'me' and 'I' are 'user'."},
             "attribute": {"type": "string", "description": "Slot attribute, e.g. home_city: a new value "
                                                            "of a single-valued slot replaces the current one."},
             "value": {"type": "string", "description": "Slot value (default: the text)."},
         }, ["text"]), False, _remember),
    Tool("recall",
         "Recall the memories related to a question: keyword and vector search, then spreading "
         "activation over the memory graph. Each hit has its id, text, date, kind and a relevance in "
         "[0, 1], best first; 'path' when other memories led to it, 'said_otherwise_later_in' when a later "
         "memory says otherwise (the later one holds now); 'gaps' says when the best evidence is weak.",
         _schema({
             "query": {"type": "string", "description": "The question, in words."},
             "k": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5,
                   "description": "Number of hits."},
             "kinds": {"type": "array", "items": {"type": "string", "enum": list(KINDS)},
                       "description": "Keep only these kinds."},
             "tags": {**_STR_LIST, "description": "Keep only memories carrying every one of these tags."},
             "since": {**_TIME, "description": "Event time lower bound. " + _TIME["description"]},
             "until": {**_TIME, "description": "Event time upper bound, inclusive: a date keeps that whole day "
                                               "(a month, 2024-05, that whole month). " + _TIME["description"]},
             "as_of": {**_TIME, "description": "Answer as the store believed at this time."},
             "valid_at": {**_TIME, "description": "Answer with what held in the world at this time."},
             "include_superseded": {"type": "boolean", "default": False},
         }, ["query"]), True, _recall),
    Tool("context",
         "A Markdown block of what to know for a query (the user's profile, procedures, open "
         "decisions, recalled memories with dates), never over its token budget.",
         _schema({
             "query": {"type": "string", "description": "What the prompt is about."},
             "budget_tokens": {"type": "integer", "minimum": 0,
                               "description": "Token budget (default: the frame's, e.g. 3000)."},
             "frame": {"type": "string", "enum": list(FRAMES), "default": "conversation",
                       "description": "What the prompt is for."},
             "kinds": {"type": "array", "items": {"type": "string", "enum": list(KINDS)},
                       "description": "Recall only these kinds (the profile and procedures stay)."},
             "tags": {**_STR_LIST, "description": "Recall only memories carrying every one of these tags."},
             "since": {**_TIME, "description": "Recall only memories of this event time or later. "
                                               + _TIME["description"]},
             "until": {**_TIME, "description": "Recall only memories up to this event time, inclusive: a date "
                                               "keeps that whole day. " + _TIME["description"]},
         }, ["query"]), True, _context),
    Tool("forget",
         "Forget a memory by id: archive it (hidden from recall, kept), or erase it for good with hard=true.",
         _schema({
             "id": {"type": "string"},
             "hard": {"type": "boolean", "default": False, "description": "Erase instead of archiving."},
         }, ["id"]), False, _forget),
    Tool("supersede",
         "Replace a memory by a new version: give the new text (or 'by', the id of an existing memory). "
         "The old one is kept, marked superseded, in the history, and recall no longer shows it: the new text "
         "must say everything of the old one that still holds (superseding 'I live in Boston and work at Mass "
         "General.' by 'I work at Boston Children's.' loses the home). To record one fact that changed, "
         "'remember' the new fact instead: recall puts it first and warns of the old one.",
         _schema({
             "old_id": {"type": "string", "description": "The memory that is no longer current."},
             "text": {"type": "string", "description": "The new version's text."},
             "by": {"type": "string", "description": "Instead of text: an existing memory that replaces it."},
             "id": {"type": "string", "description": "Optional id of the new version."},
         }, ["old_id"]), False, _supersede),
    Tool("history",
         "Every version of a memory's fact (earlier wordings and what superseded what), oldest first.",
         _schema({"id": {"type": "string"}}, ["id"]), True, _history),
)})


def tools(*, read_only: bool = False) -> list[Tool]:
    """The tool definitions, in :data:`TOOLS` order; only the reading ones with ``read_only``."""
    return [t for t in TOOLS.values() if t.read_only or not read_only]


def openai_tools(*, read_only: bool = False) -> list[dict]:
    """The ``tools=`` argument of OpenAI chat completions: ``[{"type": "function", "function":
    {"name", "description", "parameters"}}]``, parameters as JSON Schema."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": json.loads(json.dumps(t.parameters))}}
            for t in tools(read_only=read_only)]


def anthropic_tools(*, read_only: bool = False) -> list[dict]:
    """The ``tools=`` argument of Anthropic's Messages API: ``[{"name", "description", "input_schema"}]``."""
    return [{"name": t.name, "description": t.description, "input_schema": json.loads(json.dumps(t.parameters))}
            for t in tools(read_only=read_only)]


# ----------------------------------------------------------------------------- dispatching
_JSON_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
               "array": (list, tuple), "object": (dict,)}


def _check_type(value: Any, schema: Mapping[str, Any], where: str) -> Any:
    """``value`` checked against the schema's JSON ``type`` (and an array's ``items``), as JSON
    Schema (Draft 2020-12) types it: an integer is any number with a zero fractional part, so an
    integer-valued finite float (``5.0``) is an integer and comes back as an ``int``; a bool is
    never a number.

    Raises
    ------
    InvalidInputError
        A value of another JSON type (``5.5``, NaN, infinity, ``True`` for an integer), or a
        number outside the schema's ``minimum`` / ``maximum`` (``k`` = 500 where 100 is the most).
    """
    kind = schema.get("type")
    if kind is None:
        return value
    if kind == "integer" and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if kind == "array" and isinstance(value, str) and schema.get("items", {}).get("type") == "string":
        # one string for a list of strings, as the Python API takes tags; a model's "travel,
        # preferences" is two (helper-221: it was one tag, "travel, preferences")
        return [v.strip() for v in value.split(",") if v.strip()] or [value]
    ok = isinstance(value, _JSON_TYPES[kind]) and not (kind in ("integer", "number") and isinstance(value, bool))
    if not ok:
        raise InvalidInputError(f"{where}: expected a JSON {kind}, got {value!r}")
    if kind in ("integer", "number"):   # the schema's bounds, as the model was told them
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if (lo is not None and not value >= lo) or (hi is not None and not value <= hi):
            bounds = f"at least {lo}" if hi is None else f"at most {hi}" if lo is None else f"in [{lo}, {hi}]"
            raise InvalidInputError(f"{where}: expected a JSON {kind} {bounds}, got {value!r}")
    if kind == "array" and "items" in schema:
        return [_check_type(item, schema["items"], f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def _arguments(tool: Tool, arguments: Any) -> dict:
    """The call's arguments as a dict, checked against the tool's schema (names, required, types;
    integer-valued numbers of integer arguments as ``int``).

    Raises
    ------
    InvalidInputError
        Arguments that are not a JSON object, an unknown or missing argument, a wrong type.
    """
    if arguments is None or arguments == "":
        arguments = {}
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:   # (nested past the parser's depth: the latter)
            raise InvalidInputError(f"{tool.name}: arguments are not valid JSON: "
                                    f"{exc if isinstance(exc, ValueError) else 'nested too deeply'}") from None
    if not isinstance(arguments, Mapping):
        raise InvalidInputError(f"{tool.name}: arguments must be a JSON object, got {type(arguments).__name__}")
    props = tool.parameters["properties"]
    unknown = sorted(set(arguments) - set(props))
    if unknown:
        raise InvalidInputError(f"{tool.name}: unknown argument(s) {unknown}; expected some of {list(props)}")
    missing = [n for n in tool.parameters["required"] if arguments.get(n) is None]
    if missing:
        raise InvalidInputError(f"{tool.name}: missing required argument(s) {missing}")
    return {name: value if value is None else _check_type(value, props[name], f"{tool.name}.{name}")
            for name, value in arguments.items()}


def dispatch(engram: Engram, name: str, arguments: Any = None, *, namespace: str = "default",
             read_only: bool = False, now: Any = None) -> dict:
    """Run the tool ``name`` with ``arguments`` against ``engram`` in ``namespace``.

    Parameters
    ----------
    engram : Engram
        An open store (``engramdb.open``).
    name : str
        One of :data:`TOOLS`.
    arguments : mapping, JSON str or None
        The call's arguments (OpenAI passes them as a JSON string).
    namespace : str
        The namespace every call works in; the model cannot choose another.
    read_only : bool
        Refuse the tools that write (``remember``, ``forget``, ``supersede``).
    now : float, str, datetime or None
        The time of the call (Unix seconds, ISO-8601 or a datetime; default the clock), for a
        conversation replayed at its own times: ``recall`` and ``context`` read time words ("last
        week") and salience against it (their ``now=``; memories dated after it are not hidden:
        that is ``as_of``), ``remember`` and ``supersede`` date the new memory it (their default
        ``created_at``) and record it then (``recorded_at``, when the clock has reached it and,
        for a new version, the old one was recorded by then), so ``as_of`` a replayed time reads
        the store as the replay had filled it. ``forget`` and ``history`` act at the store's clock.

    Returns
    -------
    dict
        The tool's JSON-ready result.

    Raises
    ------
    InvalidInputError
        Unknown tool, arguments that are not a JSON object, an unknown or missing argument, a
        value of the wrong JSON type (an integer-valued number such as ``5.0`` is an integer and
        runs as ``5``; ``5.5``, NaN, infinity and booleans are not).
    ReadOnlyError
        A writing tool with ``read_only``.
    EngramError
        Whatever the engine raises for the call (e.g. ``UnknownKindError``, ``MemoryNotFoundError``).
    """
    tool = TOOLS.get(name) if isinstance(name, str) else None
    if tool is None:
        raise InvalidInputError(f"unknown tool {name!r}; expected one of {list(TOOLS)}")
    if read_only and not tool.read_only:
        raise ReadOnlyError(f"tool {name!r} writes to the store, and this dispatcher is read-only; "
                            f"its tools are {[t.name for t in tools(read_only=True)]}")
    if now is not None:
        from ..validate import to_unix_seconds

        now = to_unix_seconds(now, field="now")
    return tool.run(engram, namespace, _arguments(tool, arguments), now)


def call_tool(engram: Engram, name: str, arguments: Any = None, *, namespace: str = "default",
              read_only: bool = False, now: Any = None) -> ToolResult:
    """:func:`dispatch`, with every :class:`engramdb.EngramError` turned into an error result that
    keeps the error's class name and message (other exceptions, i.e. bugs, propagate).

    Parameters
    ----------
    engram, name, arguments, namespace, read_only, now
        As for :func:`dispatch`.

    Returns
    -------
    ToolResult
    """
    try:
        return ToolResult(str(name), False, dispatch(engram, name, arguments, namespace=namespace,
                                                     read_only=read_only, now=now))
    except EngramError as exc:
        return _failed(name, exc)


def _failed(name: Any, exc: EngramError) -> ToolResult:
    """The error result of a call of ``name`` that raised ``exc``; a :class:`NamespaceError` for
    a namespace the store does not hold says only that nothing is stored here (its own message
    names the store's other namespaces, which are other users' to the model), and a
    :class:`MemoryNotFoundError` there leaves out its ``namespace_hint`` for the same reason."""
    unknown = isinstance(exc, NamespaceError) and str(exc).startswith(f"no namespace {exc.namespace!r}")
    if isinstance(exc, MemoryNotFoundError) and exc.namespace_hint:
        message = str(exc.args[0])   # without the store's other namespaces
    else:
        message = _NOTHING_STORED if unknown else str(exc)
    return ToolResult(str(name), True, {"error": {"type": type(exc).__name__, "message": message}})


_MISSING = object()
_SCALARS = (str, bytes, int, float, list, tuple)   # what no call object or function object can be


def _field(obj: Any, name: str) -> Any:
    """Field ``name`` of a mapping or an SDK object; :data:`_MISSING` when it has none."""
    if isinstance(obj, Mapping):
        return obj.get(name, _MISSING)
    return getattr(obj, name, _MISSING)


def _call_id(obj: Any, what: str, shape: str) -> str:
    """The id a result must name: a non-empty string.

    Raises
    ------
    InvalidInputError
        ``obj`` has none, so no result can answer it.
    """
    call_id = None if obj is None or isinstance(obj, _SCALARS) else _field(obj, "id")
    if not isinstance(call_id, str) or not call_id:
        raise InvalidInputError(f"{what}: expected {shape} with a non-empty string 'id' (its result names it), "
                                f"got {reprlib.repr(obj)}")
    return call_id


_OPENAI_CALL = "an item of message.tool_calls, {'id', 'function': {'name', 'arguments'}}"
_ANTHROPIC_USE = "a tool_use content block, {'type': 'tool_use', 'id', 'name', 'input'}"


def run_openai_tool_call(engram: Engram, tool_call: Any, *, namespace: str = "default",
                         read_only: bool = False, now: Any = None) -> dict:
    """Run one OpenAI tool call; return the ``{"role": "tool", ...}`` message that answers it.

    Parameters
    ----------
    engram : Engram
    tool_call : mapping or SDK object
        An item of ``message.tool_calls``: ``{"id", "function": {"name", "arguments"}}``
        (``arguments`` a JSON string; a missing one is no arguments).
    namespace, read_only, now
        As for :func:`dispatch`.

    Returns
    -------
    dict
        ``{"role": "tool", "tool_call_id", "content"}``: the result as JSON, or
        ``"<ErrorClass>: <message>"`` when the call failed, including a call object without
        its ``function`` or the function's ``name`` (``InvalidInputError``).

    Raises
    ------
    InvalidInputError
        ``tool_call`` has no string ``id``, so no message can answer it.
    """
    call_id = _call_id(tool_call, "tool call", _OPENAI_CALL)
    fn = _field(tool_call, "function")
    if fn is _MISSING:
        problem = "no 'function'"
    elif fn is None or isinstance(fn, _SCALARS):
        problem = f"'function' must be an object {{'name', 'arguments'}}, got {reprlib.repr(fn)}"
    elif _field(fn, "name") is _MISSING:
        problem = "no 'name' in 'function'"
    else:
        problem = None
    if problem is not None:
        out = _failed("", InvalidInputError(f"tool call {call_id!r}: {problem}; expected {_OPENAI_CALL}"))
    else:
        arguments = _field(fn, "arguments")
        out = call_tool(engram, _field(fn, "name"), None if arguments is _MISSING else arguments,
                        namespace=namespace, read_only=read_only, now=now)
    return {"role": "tool", "tool_call_id": call_id, "content": out.text}


def run_anthropic_tool_use(engram: Engram, block: Any, *, namespace: str = "default",
                           read_only: bool = False, now: Any = None) -> dict:
    """Run one Anthropic ``tool_use`` content block; return the ``tool_result`` block that answers it.

    Parameters
    ----------
    engram : Engram
    block : mapping or SDK object
        ``{"type": "tool_use", "id", "name", "input"}`` (``input`` a JSON object; a missing one
        is no arguments).
    namespace, read_only, now
        As for :func:`dispatch`.

    Returns
    -------
    dict
        ``{"type": "tool_result", "tool_use_id", "content", "is_error"}``; an error's content is
        ``"<ErrorClass>: <message>"``, including a block without a ``name`` (``InvalidInputError``).

    Raises
    ------
    InvalidInputError
        ``block`` has no string ``id``, so no result can answer it.
    """
    use_id = _call_id(block, "tool use", _ANTHROPIC_USE)
    name = _field(block, "name")
    if name is _MISSING:
        out = _failed("", InvalidInputError(f"tool use {use_id!r}: no 'name'; expected {_ANTHROPIC_USE}"))
    else:
        arguments = _field(block, "input")
        out = call_tool(engram, name, None if arguments is _MISSING else arguments, namespace=namespace,
                        read_only=read_only, now=now)
    return {"type": "tool_result", "tool_use_id": use_id, "content": out.text, "is_error": out.is_error}
