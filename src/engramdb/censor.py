"""Censors: rules that keep memories out of every answer, or out of the store.

A :class:`CensorRule` has a *match* and an *action*.

Match (every criterion given must hold; at least one is required):

- ``pattern``: a regular expression (Python :mod:`re`, searched, case-insensitive unless
  ``ignore_case=False``) found in the memory's text or in any earlier wording of it
  (``Engram.update`` keeps those in its history, so they could otherwise come back out);
- ``tag``: the memory carries this tag;
- ``kind``: the memory is of this :class:`~engramdb.types.MemoryKind`;
- ``namespaces``: the memory lives in one of these namespaces. Alone, it matches every memory
  there; with other criteria, it limits the rule's scope;
- ``match``: a Python callable ``Memory -> bool``. Callables cannot be stored in LMDB: such a
  rule lives on the open engine only (``persistent`` is False), is gone after ``close()``, and
  is neither seen by other processes nor recorded in the store.

Action (:class:`CensorAction`):

- ``warn``: the memory is returned as usual, annotated: ``Memory.censor_notes`` /
  ``Hit.censor_notes`` carry a :class:`~engramdb.types.CensorNote` (rule id, reason), and
  ``Engram.context`` marks its line;
- ``block``: the memory never leaves the engine through a read verb (nor does the outcome memory
  of a hidden decision, which quotes it: ``Engram.review``). It is treated as an
  erased memory on the read side: no recall seed (nor a source of pseudo-relevance feedback
  terms: the keyword leg scores the visible memories only), no node of spreading activation (its edges are
  cut in the recall graph, so activation does not pass *through* it either, and it never
  appears inside another hit's path), no hit, no query / slot / profile answer, no context
  line, no edge of another memory, no export row, no dynamics log entry naming it; ``get``,
  ``edges``, ``salience`` and ``history`` of its id raise
  :class:`~engramdb.errors.MemoryBlockedError` (a ``MemoryNotFoundError``). It stays stored:
  removing the rule makes it visible again. ``update`` and ``supersede`` of it, and a link to
  or from it (``link``, or the ``links`` of ``add``, ``add_batch``, ``admit_batch``,
  ``supersede``), are refused the same way; ``forget`` works (erasing is always allowed);
- ``absolute``: ``block``, and a write whose memory matches is refused with
  :class:`~engramdb.errors.CensoredError` before anything is written: ``add``, ``add_batch``,
  ``add_conversation``, ``admit_batch`` (the whole batch), ``supersede``, ``update`` (checked
  on the new wording), ``import_from`` and the memories ``consolidate`` would write.

A rule added after memories exist applies to them at once: the engine keeps, beside its column
arrays, a per-memory ``blocked`` flag and the ``warn`` notes, evaluated for each record a
committed write changes; adding a rule evaluates that rule on every record, removing one and
opening a store that has rules evaluate all of them on every record (evaluation needs the
records' text and tags, so each of these reads every record once).

Every censor hit is logged on the :mod:`logging` logger ``engramdb.censor`` (INFO; the rule id,
its action, the verb and the memory's namespace and id, never its text) and counted per rule:
a blocked memory kept out of a verb's answer (once per memory per call), a warned memory
returned, a write refused. The counts (``CensorRule.hits``, shown by ``Engram.censors()``) are
in-process, since the store was opened: persisting them would turn every read into a write.
Adding and removing persistent rules are writes of the one write path (``write_unit`` verbs
``censor_add`` / ``censor_remove``), so they are recorded like any other mutation.

References
----------
DESIGN.md "Decisions, censors and the ledger" (the reference system's censors: trigger, action,
provenance, reason, activation counts).
"""
from __future__ import annotations

import enum
import logging
import re
import threading
import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .errors import CensoredError, InvalidInputError, MemoryBlockedError
from .types import CensorNote, Memory, MemoryKind, memory_from_record
from .validate import as_list, check_id, check_namespace, encodable

__all__ = ["CensorAction", "CensorRule", "CensorState", "PROVENANCES", "RULE_PREFIX", "GEN_KEY", "LOGGER",
           "make_rule", "enter_verb", "leave_verb", "verb_call"]

#: The logger every censor hit goes to (never with the memory's text).
LOGGER = logging.getLogger("engramdb.censor")
#: LMDB meta keys of the persistent rules: ``censor/<rule id>``.
RULE_PREFIX = "censor/"
#: LMDB meta key counting rule changes; a reader process reloads when it moves.
GEN_KEY = "censor_gen"
#: Where a rule came from (the reference system's provenance).
PROVENANCES = ("human", "agent", "auto")

_MAX_PATTERN_CHARS = 4096
_MAX_REASON_CHARS = 4096


class CensorAction(str, enum.Enum):
    """What a matching rule does: ``warn`` annotates, ``block`` keeps the memory out of every read
    verb, ``absolute`` also refuses every write of a matching memory."""

    WARN = "warn"
    BLOCK = "block"
    ABSOLUTE = "absolute"

    @classmethod
    def parse(cls, value: Any) -> "CensorAction":
        """The action named by ``value``.

        Raises
        ------
        InvalidInputError
            Not one of warn, block, absolute.
        """
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            raise InvalidInputError(f"censor action: expected one of {[a.value for a in cls]}, got {value!r}") from None


@dataclass(frozen=True, slots=True)
class CensorRule:
    """One censor rule (see the module docstring for matching and actions).

    Attributes
    ----------
    id : str
        Unique among the store's rules.
    action : CensorAction
    reason : str
        Why the rule exists; shown in ``warn`` notes and refusals.
    pattern : str or None
        Regular expression searched in the text and earlier wordings.
    ignore_case : bool
        Compile ``pattern`` with :data:`re.IGNORECASE`.
    tag : str or None
    kind : MemoryKind or None
    namespaces : tuple of str
        Scope; empty means every namespace.
    provenance : {"human", "agent", "auto"}
    created_at : float
        Unix seconds.
    match : callable Memory -> bool, or None
        In-process rule (not stored).
    hits : int
        Censor hits of this rule since the store was opened, in this process.
    """

    id: str
    action: CensorAction
    reason: str = ""
    pattern: str | None = None
    ignore_case: bool = True
    tag: str | None = None
    kind: MemoryKind | None = None
    namespaces: tuple[str, ...] = ()
    provenance: str = "human"
    created_at: float = 0.0
    match: Callable[[Memory], bool] | None = None
    hits: int = 0

    @property
    def persistent(self) -> bool:
        """Whether the rule is stored in the store (False for a callable rule)."""
        return self.match is None

    @property
    def hides(self) -> bool:
        """Whether the rule keeps what it matches out of the answers (``block`` or ``absolute``)."""
        return self.action is not CensorAction.WARN

    def to_record(self) -> dict[str, Any]:
        """The stored form (msgpack-able dict) of a persistent rule."""
        return {"id": self.id, "action": self.action.value, "reason": self.reason, "pattern": self.pattern,
                "ignore_case": self.ignore_case, "tag": self.tag,
                "kind": None if self.kind is None else self.kind.value, "namespaces": list(self.namespaces),
                "provenance": self.provenance, "created_at": self.created_at}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> "CensorRule":
        """A rule read back from :meth:`to_record`."""
        return cls(id=rec["id"], action=CensorAction(rec["action"]), reason=rec.get("reason") or "",
                   pattern=rec.get("pattern"), ignore_case=bool(rec.get("ignore_case", True)), tag=rec.get("tag"),
                   kind=None if rec.get("kind") is None else MemoryKind(rec["kind"]),
                   namespaces=tuple(rec.get("namespaces") or ()), provenance=rec.get("provenance") or "human",
                   created_at=float(rec.get("created_at") or 0.0))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the stored fields, ``persistent``, ``hits`` and, for a callable rule,
        ``match`` (the callable's name)."""
        out = self.to_record()
        out.update(persistent=self.persistent, hits=self.hits,
                   match=None if self.match is None else getattr(self.match, "__name__", repr(self.match)))
        return out


def make_rule(*, id: Any = None, action: Any = "block", reason: Any = "", pattern: Any = None,
              ignore_case: Any = True, tag: Any = None, kind: Any = None, namespaces: Any = None,
              match: Any = None, provenance: Any = "human", created_at: float = 0.0) -> CensorRule:
    """Check a rule's fields (the arguments of ``Engram.censor``) and build it.

    Raises
    ------
    InvalidInputError
        No criterion, a pattern that does not compile, a bad action, provenance, reason, tag,
        id or callable.
    UnknownKindError
        ``kind`` is not a memory kind.
    NamespaceError
        An invalid namespace name.
    """
    rule_id = uuid.uuid4().hex[:12] if id is None else check_id(id, "censor id")
    act = CensorAction.parse(action)
    for name, value in (("reason", reason), ("pattern", pattern), ("tag", tag)):
        if isinstance(value, str) and not encodable(value):   # stored as UTF-8 with the rule
            raise InvalidInputError(f"censor {name}: not valid Unicode text (a lone surrogate), got {value!r:.80}")
    if not isinstance(reason, str) or len(reason) > _MAX_REASON_CHARS:
        raise InvalidInputError(f"censor reason: expected a string of at most {_MAX_REASON_CHARS} characters, "
                                f"got {reason!r:.80}")
    if not isinstance(ignore_case, bool):
        raise InvalidInputError(f"ignore_case: expected a bool, got {ignore_case!r}")
    if pattern is not None:
        if not isinstance(pattern, str) or not pattern or len(pattern) > _MAX_PATTERN_CHARS:
            raise InvalidInputError(f"censor pattern: expected a non-empty regular expression of at most "
                                    f"{_MAX_PATTERN_CHARS} characters, got {pattern!r:.80}")
        try:
            re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise InvalidInputError(f"censor pattern {pattern!r:.80} is not a regular expression: {exc}") from None
    if tag is not None and (not isinstance(tag, str) or not tag or "\x00" in tag):
        raise InvalidInputError(f"censor tag: expected a non-empty string without NUL, got {tag!r}")
    kind_v = None if kind is None else MemoryKind.parse(kind)
    if namespaces is None:
        scope: tuple[str, ...] = ()
    else:
        names = [namespaces] if isinstance(namespaces, str) else as_list(namespaces, "namespace")
        scope = tuple(dict.fromkeys(check_namespace(n) for n in names))
    if match is not None and not callable(match):
        raise InvalidInputError(f"censor match: expected a callable Memory -> bool, got {type(match).__name__}")
    if provenance not in PROVENANCES:
        raise InvalidInputError(f"censor provenance: expected one of {list(PROVENANCES)}, got {provenance!r}")
    if pattern is None and tag is None and kind_v is None and not scope and match is None:
        raise InvalidInputError("a censor rule needs a match: pattern=, tag=, kind=, namespace= or match= "
                                "(a callable Memory -> bool)")
    return CensorRule(id=rule_id, action=act, reason=reason, pattern=pattern, ignore_case=ignore_case, tag=tag,
                      kind=kind_v, namespaces=scope, provenance=provenance, created_at=float(created_at),
                      match=match)


# ---------------------------------------------------------------------- the verb being served
@dataclass(slots=True)
class _Call:
    verb: str
    seen: set


_CALL: ContextVar[_Call | None] = ContextVar("engramdb_censor_call", default=None)


def enter_verb(verb: str) -> Any:
    """Name the public verb being served (the engine's guard calls this around every verb):
    censor hits are logged with it, once per memory and rule per call. A verb called by another
    (``context`` calling ``recall``) keeps the outer verb's name. Returns the token for
    :func:`leave_verb` (None when an outer verb is being served)."""
    if _CALL.get() is not None:
        return None
    return _CALL.set(_Call(verb, set()))


def leave_verb(token: Any) -> None:
    """End what :func:`enter_verb` started."""
    if token is not None:
        _CALL.reset(token)


@contextmanager
def verb_call(verb: str) -> Iterator[None]:
    """:func:`enter_verb` / :func:`leave_verb` as a context manager."""
    token = enter_verb(verb)
    try:
        yield
    finally:
        leave_verb(token)


# ---------------------------------------------------------------------- the engine's censor state
class CensorState:
    """The rules of one open store and their verdict on each memory (see the module docstring).

    Attributes
    ----------
    rules : dict of str -> CensorRule
        Persistent rules (loaded from the store) and in-process callable rules, by id.
    gen : int
        The store's rule generation (``censor_gen`` meta) these rules were loaded at.
    version : int
        Bumped whenever the verdicts change (cache key of the censored recall graph).
    """

    def __init__(self) -> None:
        self.rules: dict[str, CensorRule] = {}
        self.gen = 0
        self.version = 0
        self._regex: dict[str, re.Pattern] = {}
        self._hits: dict[str, int] = {}
        self._blocked_by: dict[tuple[str, str], str] = {}        # (namespace, id) -> blocking rule
        self._notes: dict[tuple[str, str], tuple[CensorNote, ...]] = {}
        self._by_nid: dict[int, tuple[str, str, str]] = {}       # nid -> (rule, namespace, id)
        self._lock = threading.Lock()   # counters: concurrent readers
        self._cols: Any = None
        self._order: list[CensorRule] | None = None   # rules in verdict order (cached)
        self._visible: dict[int, tuple] = {}               # namespace code -> (key, visible nids)

    # -- rules ---------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether any rule exists."""
        return bool(self.rules)

    def load(self, entries: Iterable[tuple[str, dict]], gen: int) -> None:
        """Install the persistent rules read from the store (``RULE_PREFIX`` meta entries) at
        generation ``gen``; in-process callable rules stay."""
        kept = {rid: r for rid, r in self.rules.items() if not r.persistent}
        loaded = {}
        for _key, rec in entries:
            rule = CensorRule.from_record(rec)
            loaded[rule.id] = rule
        self.rules = {**loaded, **kept}
        self._regex = {}
        self._order = None
        self.gen = int(gen)

    def install(self, rule: CensorRule) -> None:
        """Add (or replace) ``rule`` in memory; the caller re-evaluates the memories."""
        self.rules[rule.id] = rule
        self._regex.pop(rule.id, None)
        self._order = None

    def uninstall(self, rule_id: str) -> None:
        """Drop rule ``rule_id`` from memory; the caller re-evaluates the memories."""
        self.rules.pop(rule_id, None)
        self._regex.pop(rule_id, None)
        self._order = None

    def listing(self, namespace: str | None = None) -> list[CensorRule]:
        """The rules (with their hit counts), oldest first; with ``namespace``, those applying there
        (global rules and rules scoped to it)."""
        out = [replace(r, hits=self._hits.get(r.id, 0)) for r in self.rules.values()
               if namespace is None or not r.namespaces or namespace in r.namespaces]
        return sorted(out, key=lambda r: (r.created_at, r.id))

    def _compiled(self, rule: CensorRule) -> re.Pattern:
        rx = self._regex.get(rule.id)
        if rx is None:
            rx = self._regex[rule.id] = re.compile(rule.pattern, re.IGNORECASE if rule.ignore_case else 0)
        return rx

    # -- matching ------------------------------------------------------------------------
    def _matches(self, rule: CensorRule, rec: dict, memory: Callable[[], Memory]) -> bool:
        if rule.namespaces and rec["namespace"] not in rule.namespaces:
            return False
        if rule.kind is not None and rec["kind"] != rule.kind.value:
            return False
        if rule.tag is not None and rule.tag not in (rec.get("tags") or ()):
            return False
        if rule.pattern is not None:
            rx = self._compiled(rule)
            if rx.search(rec["text"]) is None and not any(
                    rx.search(v.get("text") or "") for v in rec.get("versions") or ()):
                return False
        if rule.match is not None:
            try:
                return bool(rule.match(memory()))
            except Exception as exc:   # noqa: BLE001 - a caller's callable: fail closed, say so
                LOGGER.warning("censor rule %s: its callable raised %s; the memory %s/%s is treated as matching",
                               rule.id, type(exc).__name__, rec["namespace"], rec["id"])
                return True
        return True

    def verdict(self, rec: dict) -> tuple[CensorRule | None, tuple[CensorRule, ...]]:
        """(The first rule hiding the record, or None; the ``warn`` rules matching it).

        ``rec`` is a stored record (``text``, ``namespace``, ``kind``, ``tags``, ``id``;
        ``versions`` optional). Absolute rules are tried first, then block, then warn."""
        cached: list[Memory] = []

        def memory() -> Memory:
            if not cached:
                cached.append(_memory_of(rec))
            return cached[0]
        order = self._order
        if order is None:
            order = self._order = sorted(self.rules.values(), key=_verdict_order)
        hider = None
        warns = []
        for rule in order:
            if rule.hides and hider is not None:
                continue
            if self._matches(rule, rec, memory):
                if rule.hides:
                    hider = rule
                else:
                    warns.append(rule)
        return hider, tuple(warns)

    # -- verdicts over the columns -------------------------------------------------------
    def attach(self, cols: Any) -> None:
        """Keep ``cols.blocked`` (and the notes) for the engine's column arrays: ``cols`` calls
        :meth:`on_record` for each record it is given while a rule exists."""
        self._cols = cols
        cols.censor = self if self.active else None

    def rebuild(self, cols: Any, records: Iterable[tuple[int, dict]]) -> None:
        """Evaluate every record (``(nid, record)`` pairs) anew, e.g. after a rule changed."""
        self.attach(cols)
        self._blocked_by.clear()
        self._notes.clear()
        self._by_nid.clear()
        cols.blocked[:] = False
        if self.active:
            for nid, rec in records:
                self.on_record(nid, rec)
        self.version += 1

    def add_verdicts(self, cols: Any, rule: CensorRule, records: Iterable[tuple[int, dict]]) -> None:
        """Apply the newly installed ``rule`` to every record (``(nid, record)`` pairs, in nid
        order): one rule evaluated per record instead of all of them (:meth:`rebuild`), with the
        same result."""
        self.attach(cols)
        note = CensorNote(rule.id, rule.reason)
        for nid, rec in records:
            key = (rec["namespace"], rec["id"])
            cached: list[Memory] = []

            def memory(rec=rec, cached=cached) -> Memory:
                if not cached:
                    cached.append(_memory_of(rec))
                return cached[0]
            if self._matches(rule, rec, memory):
                if not rule.hides:
                    self._notes[key] = (*self._notes.get(key, ()), note)
                    continue
                cur = self._blocked_by.get(key)
                if cur is None or _verdict_order(rule) < _verdict_order(self.rules[cur]):
                    self._hide(nid, key, rule.id, cols)
                continue
            parent = rec.get("outcome_of")
            if key not in self._blocked_by and parent is not None and (key[0], parent) in self._blocked_by:
                self._hide(nid, key, self._blocked_by[(key[0], parent)], cols)
        self.version += 1

    def _hide(self, nid: int, key: tuple[str, str], rule_id: str, cols: Any) -> None:
        self._blocked_by[key] = rule_id
        self._by_nid[nid] = (rule_id, key[0], key[1])
        if nid < len(cols.blocked):
            cols.blocked[nid] = True

    def on_record(self, nid: int, rec: dict) -> None:
        """The verdict on one (new or changed) record, into ``blocked`` and the notes."""
        key = (rec["namespace"], rec["id"])
        hider, warns = self.verdict(rec)
        parent = rec.get("outcome_of")   # a decision's outcome memory quotes it: hidden with it
        if hider is None and parent is not None and (rec["namespace"], parent) in self._blocked_by:
            hider = self.rules.get(self._blocked_by[(rec["namespace"], parent)])
        was = self._blocked_by.pop(key, None)
        self._notes.pop(key, None)
        self._by_nid.pop(nid, None)
        if hider is not None:
            self._blocked_by[key] = hider.id
            self._by_nid[nid] = (hider.id, key[0], key[1])
        if warns:
            self._notes[key] = tuple(CensorNote(r.id, r.reason) for r in warns)
        cols = self._cols
        if cols is not None and nid < len(cols.blocked):
            cols.blocked[nid] = hider is not None
        if was != (None if hider is None else hider.id):
            self.version += 1

    def visible(self, cols: Any, ns_code: int, mem_gen: int) -> np.ndarray | None:
        """The live nids (int64, sorted) of namespace ``ns_code`` that no rule hides, or None when
        none is hidden there; cached until the verdicts or the records change (``mem_gen``)."""
        key = (ns_code, self.version, mem_gen, cols.n)
        cache = self._visible
        hit = cache.get(ns_code)
        if hit is not None and hit[0] == key:
            return hit[1]
        live = cols.in_namespace(ns_code)
        hidden = live & cols.blocked[: cols.n]
        out = np.flatnonzero(live & ~hidden) if hidden.any() else None
        if len(cache) > 64:
            cache.clear()
        cache[ns_code] = (key, out)
        return out

    @property
    def any_blocked(self) -> bool:
        """Whether some memory is hidden now."""
        return bool(self._blocked_by)

    def blocking_rule(self, namespace: str, ext_id: str) -> str | None:
        """The id of the rule hiding memory ``ext_id`` of ``namespace``, or None."""
        return self._blocked_by.get((namespace, ext_id))

    def notes(self, namespace: str, ext_id: str) -> tuple[CensorNote, ...]:
        """The ``warn`` notes of memory ``ext_id`` (empty when none)."""
        return self._notes.get((namespace, ext_id), ())

    # -- hits ----------------------------------------------------------------------------
    def _hit(self, rule_id: str, namespace: str, ext_id: str | None, what: str) -> None:
        call = _CALL.get()
        verb = call.verb if call is not None else "internal"
        if call is not None:
            key = (rule_id, namespace, ext_id, what)
            if key in call.seen:
                return
            call.seen.add(key)
        with self._lock:
            self._hits[rule_id] = self._hits.get(rule_id, 0) + 1
        rule = self.rules.get(rule_id)
        action = rule.action.value if rule is not None else "?"
        LOGGER.info("censor hit: rule=%s action=%s verb=%s %s namespace=%s id=%s", rule_id, action, verb, what,
                    namespace, ext_id)

    def kept_out(self, nids: np.ndarray) -> None:
        """Log and count the hidden memories ``nids`` that a verb left out of its answer."""
        for nid in np.asarray(nids).tolist():
            entry = self._by_nid.get(int(nid))
            if entry is not None:
                self._hit(entry[0], entry[1], entry[2], "kept_out")

    def hidden_key(self, namespace: str, ext_id: str) -> bool:
        """Whether memory ``ext_id`` of ``namespace`` is hidden; logs a hit when it is."""
        rid = self._blocked_by.get((namespace, ext_id))
        if rid is None:
            return False
        self._hit(rid, namespace, ext_id, "kept_out")
        return True

    def entry_hidden(self, entry: dict) -> bool:
        """Whether a dynamics log entry names a hidden memory (its ``id`` or ``target``, or an id
        quoted in its ``reason``) or keeps the text of a memory(-to-be) a hiding rule matches
        (judged from the entry's text, kind, tags and namespace: an erased memory's callable
        verdict is taken on that view); logs a hit."""
        ns = entry.get("namespace")
        for field in ("id", "target"):
            ext = entry.get(field)
            if isinstance(ext, str) and self.hidden_key(ns, ext):
                return True
        reason = entry.get("reason")
        if isinstance(reason, str) and self._blocked_by:
            for (bns, bid), rid in self._blocked_by.items():
                if bns == ns and repr(bid) in reason:
                    self._hit(rid, bns, bid, "kept_out")
                    return True
        text = entry.get("text")
        if not isinstance(text, str):
            return False
        kind = entry.get("kind")   # the logged memory-to-be, judged as a memory would be
        rec = {"id": entry.get("id") or "", "namespace": ns or "", "text": text, "tags": entry.get("tags") or [],
               "kind": kind if kind in _KINDS else MemoryKind.EPISODIC.value}
        hider, _warns = self.verdict(rec)
        if hider is not None:
            self._hit(hider.id, rec["namespace"], entry.get("id"), "kept_out")
            return True
        return False

    def redact_entry(self, entry: Any) -> Any:
        """An audit ledger entry (``LedgerEntry``) as a read verb may show it: without the ids of
        hidden memories and without the dynamics details :meth:`entry_hidden` flags (a copy;
        the stored entry and its hash are untouched)."""
        ids = tuple(i for i in entry.ids if not any(self.hidden_key(ns, i) for ns in entry.namespaces))
        details = tuple(d for d in entry.details if not self.entry_hidden(d))
        if ids == tuple(entry.ids) and details == tuple(entry.details):
            return entry
        return replace(entry, ids=ids, details=details)

    def check_read(self, namespace: str, ext_id: str) -> None:
        """Refuse a read of a hidden memory by its id.

        Raises
        ------
        MemoryBlockedError
        """
        rid = self._blocked_by.get((namespace, ext_id))
        if rid is None:
            return
        self._hit(rid, namespace, ext_id, "refused_read")
        rule = self.rules.get(rid)
        raise MemoryBlockedError(
            f"memory {ext_id!r} in namespace {namespace!r} is blocked by censor rule {rid!r}"
            + (f" ({rule.reason})" if rule is not None and rule.reason else "")
            + "; remove the rule (remove_censor) to see it, or forget it",
            rule_id=rid, action=rule.action.value if rule is not None else "block")

    def annotate(self, item: Any, namespace: str) -> Any:
        """``item`` (a Memory or a Hit) with its ``warn`` notes set; logs a hit per note."""
        notes = self._notes.get((namespace, item.id))
        if notes:
            item.censor_notes = notes
            for n in notes:
                self._hit(n.rule_id, namespace, item.id, "warned")
        return item

    def check_write(self, rec: dict) -> None:
        """Refuse a write of a memory matching an ``absolute`` rule (``rec``: the record-to-be, with
        ``id``, ``namespace``, ``kind``, ``text``, ``tags``).

        Raises
        ------
        CensoredError
        """
        if not any(r.action is CensorAction.ABSOLUTE for r in self.rules.values()):
            return
        hider, _warns = self.verdict(rec)
        if hider is not None and hider.action is CensorAction.ABSOLUTE:
            self._hit(hider.id, rec["namespace"], rec.get("id"), "refused_write")
            raise CensoredError(
                f"censor rule {hider.id!r} (absolute) refuses this memory"
                + (f": {hider.reason}" if hider.reason else "")
                + "; nothing was written", rule_id=hider.id, action=hider.action.value)


_RANK = {CensorAction.ABSOLUTE: 0, CensorAction.BLOCK: 1, CensorAction.WARN: 2}


def _verdict_order(rule: CensorRule) -> tuple:
    """Absolute rules first, then block, then warn; older rules first."""
    return (_RANK[rule.action], rule.created_at, rule.id)
_KINDS = frozenset(k.value for k in MemoryKind)


def _memory_of(rec: dict) -> Memory:
    """A :class:`Memory` for a callable rule, from a stored record or a record-to-be."""
    if "salience" in rec:
        return memory_from_record(rec, None)
    return Memory(id=rec["id"], namespace=rec["namespace"], kind=MemoryKind(rec["kind"]), text=rec["text"],
                  created_at=float(rec.get("created_at") or 0.0), recorded_at=float(rec.get("recorded_at") or 0.0),
                  confidence=float(rec.get("confidence", 1.0)), source=rec.get("source"),
                  tags=tuple(rec.get("tags") or ()))

