"""Generic conversation ingest: OpenAI-style chat messages -> memories and typed edges.

:func:`plan_conversation` turns a list of ``{"role", "content", "created_at"?, "session"?,
"name"?, "id"?}`` messages into the items and edges that :meth:`engramdb.Engram.add_conversation`
writes in one write unit. Nothing here writes: the plan only validates, and
:func:`stored_mentions` reads what the namespace already holds.

What a conversation becomes (the conversation graph of LoCoMo's ingest, for any chat):

- each message: an episodic memory ``"<speaker>: <content>"`` (speaker = ``name`` or ``role``),
  tagged with its role and speaker, id = the message's ``id`` or ``"<session>:<position>"``;
- each session: an episodic memory tagged ``session`` (text ``"Session <label> of <speakers>,
  <date>"`` unless a title is given), with a ``discussed_in`` edge (weight 0.5) from each of its
  messages, ``next`` edges between consecutive messages of the session and between consecutive
  sessions of the call; messages that name no session, in a call that gives none, open a new
  one after a pause longer than ``session_gap`` (:data:`engramdb.config.SESSION_GAP_S`, 30 minutes: the
  inactivity timeout by which web analytics tells visits apart, after Catledge & Pitkow 1995),
  so a chat of several weeks is several sittings, not one session;
- entities named by two or more messages (:func:`engramdb.entities.co_mentions`; hubs skipped),
  or by one message when the namespace already holds that entity's node or a message naming it
  (so a chat stored turn by turn builds the same layer): a semantic memory ``E:<entity>`` tagged
  ``entity`` with a ``mentions`` edge from each message, stored ones included;
- long messages of the splitting roles (assistant answers with code blocks, lists, several
  paragraphs): each block a piece of its message, as the chunks of a long text are
  (:mod:`engramdb.batch_plan`): a record ``"<id>#p<j>"`` tagged ``piece`` with fields
  ``chunk_of`` = the message id and ``chunk`` = j, an ``extracted_from`` edge to its message and
  ``next`` from the block before; the message record has ``blocks`` = their number. A fact in the
  middle of a long answer has its own vector and BM25 document, and recall returns the message
  once, at its best block (``Hit.chunk`` = j); forgetting, superseding, tagging or reinforcing
  the message does the same to its blocks. A block longer than ``max_block_chars`` is cut at
  sentence boundaries (:mod:`engramdb.pieces`; blocks do not overlap: they end at paragraphs,
  items and code blocks), and at most ``max_pieces`` blocks a message (consecutive blocks are
  grouped beyond that); a message whose groups would be longer than ``max_block_chars`` gets
  no blocks: its own pieces (``max_pieces`` at most) index it;
- a message sent again is not stored again: one with an ``id`` the namespace holds with the same
  text, and the messages of a stored session that line up with its stored messages (compared by
  the SHA-256 of the whole text, so a message stored as chunks is recognised too);
- a message sent in the place of a stored one with other text (an edit, a regenerated reply:
  :func:`_edits`) supersedes it, and the session then lines up as it reads now, each edit in
  the place of what it replaced (:func:`_current_view`): linked ``next`` from the message before
  that one and to the message after it, and what is sent after the chat follows the chat as it
  reads now;
- the engine's auto-links (``LinkConfig``) are added by the write itself.

References
----------
Maharana et al. (2024), LoCoMo, ACL (the session / turn structure); Rasmussen et al. (2025), Zep,
arXiv:2501.13956 (episode, entity and community subgraphs); Catledge & Pitkow (1995),
"Characterizing browsing strategies in the World-Wide Web", Computer Networks and ISDN Systems
27(6) (the 30-minute session timeout); DESIGN.md "Memory model" (edges).
"""
from __future__ import annotations

import bisect
import numbers
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from .batch_plan import block_id, piece_tags, split_text, whole_digest, whole_record
from .config import SESSION_GAP_S
from .entities import co_mentions, entity_node_id, extract_entities
from .errors import EmptyTextError, InvalidInputError
from .index.tokens import tokenize
from .speakers import CHAT_ROLES, LABEL as _SPEAKER
from .store.lmdb_store import text_digest
from .types import GENERATED_TAGS, PROTECTED_TAG, MemoryKind, Relation
from .validate import RESERVED_TAGS, as_list, check_user_id, encodable, is_blank, plain_str, reserved_form, to_unix_seconds

__all__ = ["ConversationPlan", "plan_conversation", "session_text_without", "check_messages", "check_session_gap", "split_blocks",
           "stored_mentions", "MESSAGE_FIELDS",
           "ROLES", "INSTRUCTION_ROLES", "TOOL_ROLES", "StoredSession", "stored_session"]

#: Roles a message may have (OpenAI's chat roles); ``system`` and ``developer`` instructions and
#: ``tool`` / ``function`` results are not memories of the conversation and are left out unless
#: ``keep_roles`` names them (a tool result is a program's output; engramdb's own recall tool
#: returns stored memories, whose copies would outlive a ``forget(hard=True)`` of them).
ROLES = CHAT_ROLES
INSTRUCTION_ROLES = frozenset({"system", "developer"})
TOOL_ROLES = frozenset({"tool", "function"})
_LEFT_OUT_ROLES = INSTRUCTION_ROLES | TOOL_ROLES
#: Tags with a meaning to the engine, which a speaker's name (a tag of its messages) cannot be:
#: a message of a speaker "protected" was never archived, one of "fact" was taken for a fact
_ENGINE_TAGS = {**RESERVED_TAGS, "fact": "facts promoted by consolidate",
                PROTECTED_TAG: "memories the rescoring job never archives"}

#: Fields a message may carry; the other fields of OpenAI's chat messages (tool calls, an
#: assistant message's refusal, annotations and audio, as the SDK dumps them) are accepted and
#: ignored. Any other field is refused (a typo such as "contnet" would lose the text).
MESSAGE_FIELDS = frozenset({"role", "content", "created_at", "session", "name", "id",
                            "tool_calls", "tool_call_id", "function_call", "refusal", "annotations", "audio",
                            "weight"})   # (fine-tuning files mark assistant messages with a weight)
#: Content parts that carry no text (images, audio, files): left out of a message's text.
_MEDIA_PARTS = frozenset({"image_url", "input_image", "image", "input_audio", "audio", "file", "input_file"})

#: An entity named by more stored messages than max(HUB_MIN, HUB_SHARE x namespace size) is a hub.
HUB_MIN, HUB_SHARE = 8, 0.02

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")


@dataclass
class ConversationPlan:
    """What :func:`plan_conversation` returns.

    Attributes
    ----------
    items : list of dict
        ``add_batch`` items in write order (sessions, messages, pieces, entities).
    edges : list of (source id, target id, Relation, weight)
        Typed edges between the items (or entity nodes already stored).
    message_ids : list of str
        The messages' ids, in input order.
    sessions : list of str
        Session node ids, in order.
    already_stored : int
        Messages left out because the namespace already holds them (their id with the same
        text, or their stored session lined up with them).
    fields : dict of id -> dict
        Record fields an item gets beyond ``add_batch``'s (``blocks`` of a split message,
        ``chunk_of`` / ``chunk`` of its blocks, and ``edit_of`` of a new message that replaces a
        stored one in place: a chat sent again with that message edited, :func:`_edits`; it
        supersedes the message it names).
    positions : dict of id -> int
        Each message item's (and block's) message position in the input, from 0, so an error
        raised while writing it names the message.
    last_positions : dict of session node id -> (int, float)
        The highest ``<session>:<n>`` numbered in each session this call adds messages to, and
        the newest event time numbered there (a session node keeps them as its record fields
        ``last_position`` and ``last_position_at``, so the places of erased messages at a
        session's end stay known, and what happened after them is not taken for them).
    left_out : int
        Messages left out by their role (instructions and tool results: ``keep_roles``), and
        assistant turns that only call tools (no text).
    """

    items: list[dict] = field(default_factory=list)
    edges: list[tuple[str, str, Relation, float]] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    already_stored: int = 0
    fields: dict[str, dict] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)
    last_positions: dict[str, tuple[int, float]] = field(default_factory=dict)
    left_out: int = 0


def _bad(where: str, field: str | None, problem: str, cls: type = InvalidInputError) -> InvalidInputError:
    """The error for a bad message: text ``"<where>: <field>: <problem>"``, attribute ``field``
    (the message's field at fault, or None when the message itself is)."""
    exc = cls(f"{where}: {field}: {problem}" if field else f"{where}: {problem}")
    exc.field = field
    return exc


def _content(raw: Any, where: str) -> str:
    """Message content as text: a string, or OpenAI's list of ``{"type": "text", "text"}`` parts
    (parts without text, such as ``{"type": "image_url", ...}``, are left out)."""
    if raw is None:
        raise _bad(where, "content", "missing; give the message's text (a string)")
    if isinstance(raw, list):
        parts = []
        for j, part in enumerate(raw):
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") in _MEDIA_PARTS:
                continue
            else:
                raise _bad(where, "content", f"part {j} must be a string or {{'type': 'text', 'text': str}}, "
                                             f"got {type(part).__name__}")
        if raw and not parts:
            raise _bad(where, "content", "holds no text part (image, audio and file parts are left out); give "
                                         "the message text or drop it", EmptyTextError)
        raw = "\n".join(parts)
    if not isinstance(raw, str):
        raise _bad(where, "content", f"must be a string or a list of text parts, got {type(raw).__name__}")
    raw = plain_str(raw)
    if is_blank(raw):
        raise _bad(where, "content", "is empty (or only whitespace and invisible characters); drop the message "
                                     "or give it text", EmptyTextError)
    if not encodable(raw):
        raise _bad(where, "content", "is not valid UTF-8 text (a lone surrogate such as '\\ud800')")
    return raw


def _shows_text(value: Any) -> bool:
    """Whether ``value`` is a string that shows something and encodes as UTF-8 (a speaker's name,
    a session title)."""
    return isinstance(value, str) and not is_blank(value) and encodable(value)


def check_roles(value: Any, field: str) -> tuple[str, ...]:
    """``split_roles`` / ``keep_roles`` of :meth:`engramdb.Engram.add_conversation`: a list of
    OpenAI roles (a bare string is an error: ``tuple("assistant")`` would be its letters).

    Raises
    ------
    InvalidInputError
    """
    roles = tuple(as_list(value, field))
    bad = [r for r in roles if not isinstance(r, str) or r not in ROLES]
    if bad:
        raise InvalidInputError(f"{field}: {bad[0]!r} is not a role; expected a list of {sorted(ROLES)}")
    return roles


def session_label(value: Any, where: str) -> str:
    """A session label (a message's ``session``, or ``add_conversation``'s ``session=``): a
    non-empty string or an integer, valid UTF-8, that makes no id of a form the engine reserves
    (``<label>:<n>`` message ids; a label such as "E:bob" or "x:outcome" would make ids of its
    entity nodes or decision outcomes: :func:`engramdb.validate.reserved_form`).

    Raises
    ------
    InvalidInputError
        Its text ``"<where>: session: ..."``, its ``field`` "session".
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise _bad(where, "session", f"must be a non-empty string or an integer, got {value!r}")
    label = str(value)
    if not encodable(label):
        raise _bad(where, "session", "is not valid UTF-8 text (a lone surrogate)")
    form = reserved_form(f"{label}:1")
    if form is not None:
        raise _bad(where, "session", f"{label!r} would make message ids such as '{label}:1', {form}; "
                                     "pick another label")
    return label


def split_blocks(text: str, *, min_chars: int = 40, max_blocks: int | None = None) -> list[str]:
    """Split a long message into blocks that each hold one thing: fenced code blocks, list items,
    paragraphs.

    Parameters
    ----------
    text : str
    min_chars : int
        Blocks shorter than this are merged into the following block (a list's lead-in line
        stays with its first item; a heading with its paragraph).
    max_blocks : int, optional
        At most this many blocks (>= 1): beyond it, runs of consecutive blocks are joined into
        ``max_blocks`` groups of near-equal block counts, so one message with 20,000 list items
        cannot become 20,000 memories.

    Returns
    -------
    list of str
        Non-blank blocks in text order; ``[text]`` when there is nothing to split.
    """
    raw: list[str] = []
    pos = 0
    for m in _FENCE.finditer(text):
        raw.extend(_prose_blocks(text[pos:m.start()]))
        raw.append(m.group(0))
        pos = m.end()
    raw.extend(_prose_blocks(text[pos:]))
    blocks: list[str] = []
    carry = ""
    for b in raw:
        b = (carry + "\n" + b).strip() if carry else b.strip()
        if len(b) < min_chars:
            carry = b
            continue
        carry = ""
        blocks.append(b)
    if carry:
        if blocks:
            blocks[-1] = blocks[-1] + "\n" + carry
        else:
            blocks.append(carry)
    blocks = [b for b in blocks if b.strip()] or [text]
    return _group(blocks, max_blocks)


def _group(blocks: list[str], max_blocks: int | None) -> list[str]:
    """At most ``max_blocks`` blocks: runs of consecutive blocks joined by a line break into
    ``max_blocks`` groups of near-equal block counts."""
    if max_blocks is not None and len(blocks) > max_blocks:
        n, m = len(blocks), max(1, max_blocks)
        bounds = [n * g // m for g in range(m + 1)]   # m runs of n // m or n // m + 1 blocks
        blocks = ["\n".join(blocks[a:b]) for a, b in zip(bounds, bounds[1:])]
    return blocks


def _prose_blocks(text: str) -> list[str]:
    """Paragraphs (split at blank lines), with each list item its own block."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        if not para.strip():
            continue
        cur: list[str] = []
        for line in para.splitlines():
            if _LIST_ITEM.match(line) and cur:
                out.append("\n".join(cur))
                cur = []
            cur.append(line)
        if cur:
            out.append("\n".join(cur))
    return out


def stored_time(state: Any, namespace: str, digest: str) -> float | None:
    """The event time (``created_at``, Unix seconds) of the memory of ``namespace`` last stored
    with the text of ``digest`` (hex SHA-256 of its whole text), or None."""
    with state.store.read("looking up a stored message") as txn:
        nid = state.store.lookup_text(txn, namespace, bytes.fromhex(digest))
        rec = None if nid is None else state.store.get_record(txn, nid)
    return None if rec is None else float(rec["created_at"])


def stored_digests(state: Any, namespace: str, ext_id: str) -> frozenset | None:
    """The digests (hex SHA-256) stored memory ``ext_id`` of ``namespace`` is recognised by when
    sent again (:func:`_digests`: a message stored as pieces compares whole), or None."""
    with state.store.read("looking up a stored message") as txn:
        nid = state.store.lookup_id(txn, namespace, ext_id)
        rec = None if nid is None else state.store.get_record(txn, nid)
    return None if rec is None else _digests(rec)


class StoredSession(NamedTuple):
    """What a namespace holds of a chat session (:func:`stored_session`).

    Attributes
    ----------
    messages : list of (str, frozenset of str, float)
        Its messages in write order: id, the digests of the whole text now and of its first
        wording (the text as sent, when ``update`` has reworded it since), event time (Unix
        seconds).
    node : bool
        Whether its session node is stored (when it was erased, ``messages`` are its numbered
        messages ``<label>:<n>`` still stored, and the fields below are unknown).
    last_position : int
        The highest ``<label>:<n>`` it ever numbered (record field ``last_position``; 0: unknown).
    last_position_at : float or None
        The newest event time among the messages it numbered (``last_position_at``).
    erased_ids : frozenset of str
        Ids of its messages erased with ``forget(hard=True)`` (``erased_ids``).
    successors : dict of str -> str
        Message id -> id of the message of the same session sent in its place with other text,
        that superseded it (an edit: :func:`_edits`; its record field ``edit_of``); also for
        an erased message, whose place its edit takes. A message superseded otherwise (a
        later one stating a changed fact) keeps its place.
    texts : dict of str -> str
        Message id -> its text now (what an edit sent in its place is compared with).
    erased_edits : frozenset of str
        Ids of messages whose edit was erased with ``forget(hard=True)`` (``erased_edits``).
    erased_times : tuple of float
        Event times (Unix seconds) of its erased messages (``erased_times``; the times alone,
        never the text): a message sent again with one of them is the erased one.
    """

    messages: list
    node: bool
    last_position: int = 0
    last_position_at: float | None = None
    erased_ids: frozenset = frozenset()
    successors: dict = {}
    texts: dict = {}
    erased_edits: frozenset = frozenset()
    erased_times: tuple = ()


def stored_session(state: Any, namespace: str, sid: str) -> StoredSession | None:
    """The stored session of node id ``sid``: its messages (``discussed_in`` edges) and the marks
    its node keeps of erased messages (:class:`StoredSession`); its numbered messages when the
    node itself was erased; None when there is neither."""
    with state.store.read("looking up a stored session") as txn:
        nid = state.store.lookup_id(txn, namespace, sid)
        rec = None if nid is None else state.store.get_record(txn, nid)
        if nid is None:   # the node erased, its messages kept: found by their numbered ids
            into = _numbered_messages(state, txn, namespace, sid)
        else:
            into = sorted({o for o, rel, _w, forward in state.graph.neighbours(nid)
                           if rel == Relation.DISCUSSED_IN.code and not forward})
    if rec is None and not into:
        return None
    recs = [m for m in state.records(into, "reading a stored session")
            if m is not None and m.get("chunk_of") is None and GENERATED_TAGS.isdisjoint(m.get("tags") or ())]
    messages = [(m["id"], _digests(m), float(m["created_at"])) for m in recs]
    # edits (a message with ``edit_of``) of messages they superseded, or of erased ones (holes)
    by_id = {m["id"]: m for m in recs}
    successors = {m["edit_of"]: m["id"] for m in recs if isinstance(m.get("edit_of"), str)
                  and (m["edit_of"] not in by_id or by_id[m["edit_of"]].get("superseded_by") == m["id"])}
    texts = {m["id"]: m["text"] for m in recs}
    if rec is None:
        return StoredSession(messages, False, successors=successors, texts=texts)
    last, at = rec.get("last_position"), rec.get("last_position_at")
    known = isinstance(last, int) and not isinstance(last, bool) and last > 0
    return StoredSession(messages, True, last if known else 0,
                         float(at) if known and isinstance(at, (int, float)) and not isinstance(at, bool) else None,
                         frozenset(i for i in rec.get("erased_ids") or () if isinstance(i, str)), successors, texts,
                         frozenset(i for i in rec.get("erased_edits") or () if isinstance(i, str)),
                         tuple(float(t) for t in rec.get("erased_times") or ()
                               if isinstance(t, (int, float)) and not isinstance(t, bool)))


def _session_text(name: str, speakers: Sequence[str], start: float) -> str:
    """A session node's text: "Session <name> of <speakers joined by " and ">, <date>" (``name``
    with its leading space, empty for a generated label; ``start``, Unix seconds).
    :func:`session_text_without` reads it back."""
    return f"Session{name} of {' and '.join(speakers)}, {_fmt_date(start)}"


#: The date that ends a session node's text (:func:`_session_text`).
_SESSION_DATE = re.compile(r", \d{1,2} [A-Z][a-z]+ -?\d+\Z")


def session_text_without(text: str, node_id: str, speaker: str, others: set[str]) -> str | None:
    """A session node's text as :func:`_session_text` wrote it (node id ``node_id``, ``S:<label>``)
    without ``speaker`` among
    its speakers, the rest being ``others`` ("Session 3 of Ana and Bo, 8 May 2023" without
    "Ana": "Session 3 of Bo, 8 May 2023"; the last one gone: "Session 3, 8 May 2023"); the
    label and the speakers are read as they were written, so " and " or " of " inside a name or
    label is read as theirs ("Tom and Jerry"). None for a text that is no generated one (a
    caller's ``session_titles``) or does not name the speaker."""
    m = _SESSION_DATE.search(text)
    at = node_id.find("S:")
    if m is None or at < 0:
        return None
    body = text[: m.start()]
    prefix = next((p for p in (f"Session {node_id[at + 2:]} of ", "Session of ") if body.startswith(p)), None)
    if prefix is None:
        return None
    names = _split_speakers(body[len(prefix):], others | {speaker})
    if names is None or speaker not in names:
        return None
    rest = [n for n in names if n != speaker]
    return (prefix + " and ".join(rest) if rest else prefix[: -len(" of ")]) + text[m.start():]


def _split_speakers(joined: str, known: set[str]) -> list[str] | None:
    """``joined`` ("Ana and Bo") as the names of ``known`` joined by " and ", in order, or None."""
    if joined in known:
        return [joined]
    for name in sorted(known, key=len, reverse=True):
        if joined.startswith(name + " and "):
            rest = _split_speakers(joined[len(name) + 5:], known)
            if rest is not None:
                return [name, *rest]
    return None


_PROBE_GAP = 16   # numbered ids tried past the last one found (a run of erased messages)


def _numbered_messages(state: Any, txn: Any, namespace: str, sid: str) -> list[int]:
    """The nids of the messages ``<label>:1``, ``<label>:2``, ... of session node id ``sid``
    (``S:<label>``, after an id prefix) that the namespace holds, up to :data:`_PROBE_GAP`
    numbers past the last one found."""
    prefix, _, label = sid.rpartition("S:")
    out, n, misses = [], 1, 0
    while misses < _PROBE_GAP:
        nid = state.store.lookup_id(txn, namespace, f"{prefix}{label}:{n}")
        if nid is None:
            misses += 1
        else:
            out.append(nid)
            misses = 0
        n += 1
    return out


def _digests(rec: dict) -> frozenset:
    """The digests a stored message is recognised by when sent again: its whole text now, and
    its first wording (``versions[0]``, kept whole for a message stored as pieces); each also
    without the whitespace a chat client adds or drops (:func:`_loose_digest`), except the
    whole text of a message stored as pieces (only its digest is kept)."""
    out = {whole_digest(rec)}
    if not rec.get("chunks"):
        out.add(_loose_digest(rec["text"]))
    versions = rec.get("versions") or ()
    if versions and isinstance(versions[0].get("text"), str):
        out.add(text_digest(versions[0]["text"]).hex())   # (a version holds the whole text)
        out.add(_loose_digest(versions[0]["text"]))
    return frozenset(out)


def _tidy(content: str) -> str:
    """A message's content as stored: its line breaks as ``"\n"``, without whitespace at its
    ends or at the ends of its lines (what chat clients add or drop, and no part of what was
    said)."""
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def _loose_digest(text: str) -> str:
    """The digest (hex) of a message's ``"speaker: content"`` text with its content tidied
    (:func:`_tidy`): a message sent again with a newline or space added or dropped, or with
    Windows line breaks, is the same message, not an edit. (Messages are stored tidied; this
    recognises the ones a store holds from before, stored as they were sent.)"""
    speaker, sep, content = text.partition(": ")
    if not sep:
        speaker, content = "", text
    return text_digest(f"{speaker}{sep}{_tidy(content)}").hex()


def stored_mentions(state: Any, namespace: str, entity: str) -> list[str] | None:
    """Ids of the stored messages of ``namespace`` that name ``entity``, or None for a hub.

    Candidates come from the namespace's BM25 postings (a query of the entity's words); a
    piece (a chunk of a long message, or one of its blocks: field ``chunk_of``) stands for its
    message. Each message is checked with :func:`engramdb.entities.extract_entities` on its
    whole text (a chunked one joined from its pieces) without the ``"Speaker: "`` prefix;
    session, entity, summary, fact and piece nodes are not messages.

    Parameters
    ----------
    state : EngineState
    namespace : str
    entity : str
        Lower-cased, as :func:`extract_entities` gives it.

    Returns
    -------
    list of str
        External ids, oldest node first; ``[]`` when none; None when more messages name it than
        ``max(HUB_MIN, HUB_SHARE * memories in the namespace)`` (linking a hub reaches everything).
    """
    space = state.space(namespace)
    keyword = None if space is None else space.keyword
    if keyword is None or len(keyword) == 0:
        return []
    limit = max(HUB_MIN, int(HUB_SHARE * len(keyword)))
    nids, _ = keyword.search(entity, 4 * (limit + 1))
    if not len(nids):
        return []
    store, overlap = state.store, state.config.store.chunk_chars // 10
    found: dict[str, int] = {}   # message id -> its node
    with store.read("looking up entity mentions") as txn:
        for nid in nids.tolist():
            rec = store.get_record(txn, nid)
            if rec is not None and rec.get("chunk_of") is not None:   # a piece: its message
                nid = store.lookup_id(txn, namespace, rec["chunk_of"])
                rec = None if nid is None else store.get_record(txn, nid)
            if rec is None or rec["id"] in found or not GENERATED_TAGS.isdisjoint(rec.get("tags") or ()):
                continue
            text = whole_record(rec, state.piece_reader(txn, namespace), overlap)["text"]
            m = _SPEAKER.match(text)
            if entity in extract_entities(text[m.end():] if m else text):
                found[rec["id"]] = nid
    if len(found) > limit:
        return None
    return sorted(found, key=found.__getitem__)


def _with_holes(stored: list[tuple[str, frozenset, float]], numbered: re.Pattern, last: int = 0,
                last_at: float | None = None) -> tuple[list[tuple[str | None, frozenset | None, float | None]], int]:
    """A stored session's messages in order with a hole ``(None, None)`` at each position of its
    ``<session>:<n>`` numbering that no stored message holds any more (an erased message), up to
    ``last``, the highest position ever numbered in it (so erased last messages leave holes
    too, each with ``last_at``, the newest event time the session had numbered): a chat sent
    again lines up around them, and no message at a hole is stored again (:func:`_overlap`).
    Also returns where the places after the last stored message begin."""
    out: list[tuple[str | None, frozenset | None, float | None]] = []
    for mid, digests, t in stored:
        m = numbered.fullmatch(mid)
        if m is not None and int(m.group(1)) > len(out) + 1:   # (a message with its own id holds a place too)
            out.extend([(None, None, None)] * (int(m.group(1)) - len(out) - 1))
        out.append((mid, digests, t))
    tail_from = len(out)
    if last > len(out):
        out.extend([(None, None, last_at)] * (last - len(out)))
    return out, tail_from


def _goes_on_as(got: StoredSession, sent: list[tuple[str, float | None]]) -> bool:
    """Whether the messages ``sent`` after a chat's first one ((digest, given time) each) are the
    stored session ``got``'s second, third ... messages: one at least with the same words at the
    same time (:func:`_same_time`), and none that gives another time at its place."""
    matched = False
    for (digest, t), (_mid, digests, at) in zip(sent, got.messages[1:]):
        if t is None or at is None:
            continue
        if digest in digests and _same_time(at, t):
            matched = True
        elif not _same_time(at, t):
            return False
    return matched


def _first_wordings(got: StoredSession) -> frozenset:
    """The digests a stored session's first message is recognised by, its edits' included
    (:attr:`StoredSession.successors`)."""
    digests = {mid: d for mid, d, _t in got.messages}
    mid = got.messages[0][0]
    out, seen = set(got.messages[0][1]), {mid}
    while (mid := got.successors.get(mid)) is not None and mid not in seen and mid in digests:
        seen.add(mid)
        out |= digests[mid]
    return frozenset(out)


def _current_view(lined: list[tuple], tail_from: int, successors: dict[str, str],
                  numbered: re.Pattern | None = None,
                  erased_edits: frozenset = frozenset()) -> tuple[list[tuple], int]:
    """A stored session's messages (:func:`_with_holes`) as its chat reads now: a message that
    an edit of it superseded (``successors``: id -> the id of the session's message sent in its
    place) gives its place to its latest version, which is recognised there by every wording
    of the chain, the first one included, and leaves the place where it was stored (after the
    session's messages). An erased message's place (a hole) whose numbered id (``numbered``:
    ``<session>:<n>``) an edit names stays a hole, and its edits leave their later places; so
    does the place of a message whose edit was erased (``erased_edits``) become one: either
    wording sent there lines up, and none is stored again (an erased text stays erased). So the
    history sent again after an edit lines up by position, as it did before the edit. Also
    returns ``tail_from`` moved down by the places left."""
    if erased_edits:
        lined = [(None, None, e[2]) if e[0] in erased_edits and e[0] not in successors else e for e in lined]
    if not successors:
        return lined, tail_from
    where = {e[0]: p for p, e in enumerate(lined) if e[0] is not None}
    out, moved = list(lined), set()
    for old in successors:
        m = None if numbered is None or old in where else numbered.fullmatch(old)
        p = None if m is None else int(m.group(1)) - 1
        if p is not None and p < tail_from and lined[p][0] is None:
            where[old] = p   # an erased message: its edit takes its place as it would have
    for p, (mid, digests, _t) in enumerate(lined):
        hole = mid is None
        if hole:
            mid = next((o for o, q in where.items() if q == p and o in successors), None)
        if mid is None or p in moved or mid not in successors:
            continue
        chain, nxt = [], successors[mid]
        while nxt is not None and nxt not in chain and where.get(nxt, -1) > p:
            chain.append(nxt)
            nxt = successors.get(nxt)
        if not chain:
            continue
        moved.update(where[c] for c in chain)
        if hole:
            continue   # the original erased: its place stays a hole (any wording lines up there)
        latest = lined[where[chain[-1]]]
        out[p] = (latest[0], digests.union(*(lined[where[c]][1] for c in chain)), latest[2])
    if not moved:
        return lined, tail_from
    return ([e for p, e in enumerate(out) if p not in moved],
            tail_from - sum(1 for p in moved if p < tail_from))


_SAME_TIME_S = 1e-3   # a sent message's created_at and a stored one's: the same event time


def _same_time(a: float, b: float) -> bool:
    """Whether two event times (Unix seconds) are one message's: within a millisecond, or within
    a second when one of them is a whole second (a chat store that keeps times to the second:
    "09:00:05.456" stored, "09:00:05" sent again; helper104: 3 of 4 messages stored twice)."""
    d = abs(a - b)
    return d <= _SAME_TIME_S or (d < 1.0 and (float(a).is_integer() or float(b).is_integer()))


def _in_order(paired: list[tuple[int, int]], k: int, i: int) -> bool:
    """Whether pairing sent message ``k`` with stored message ``i`` keeps the order of the pairs
    ``paired`` (sorted by sent index): an earlier sent message is never an earlier stored one's
    successor, so a dropped or inserted message shifts what follows it, and a few short
    messages ("Ok.", "Thanks!") repeated elsewhere in the session do not pair across it."""
    at = bisect.bisect_left(paired, (k, -1))
    return (at == 0 or paired[at - 1][1] < i) and (at == len(paired) or paired[at][1] > i)


def _overlap(stored: list[frozenset | None], sent: list[str], stored_times: list[float | None] | None = None,
             sent_times: list[float | None] | None = None, tail_from: int | None = None,
             same_chat: bool = False, erased_whole: bool = False) -> list[tuple[int, int]]:
    """Which of ``sent``'s messages a session holds already: pairs (index in ``sent``, index in
    ``stored``); [] when nothing lines up.

    ``stored`` holds, per stored message in order, the digests it is recognised by (its text
    now and as first sent), or None at a hole (an erased message: any message lines up there
    and none is stored again in its place). ``sent`` lines up with ``stored`` at position j when
    its first n = min(len(sent), len(stored) - j) messages match ``stored[j:j + n]``, with at
    least one real match, and the run either reaches the end of ``stored`` (the whole chat sent
    again, a growing message list, a window over its tail) or holds two messages or more (a
    stretch sent again). The first j that lines up pairs sent[0 .. n-1] with it. Messages are matched
    by position, so a reply repeated word for word ("Yes.") later in a chat is a new message;
    one sent alone that repeats the session's last message is taken as sent again.

    Failing that, the j where most of ``sent``'s messages match position by position, two at
    least (one that gives its time and matches a stored one's: the same words at the same
    time, in a window, alone, or in a single exchange sent again) and no fewer than those
    that differ (unless every match gives a time that only its stored message has: the same words
    at that time are that message however many around it changed): a chat sent again with a message edited (the first one
    included) or a reply regenerated holds the others already; the changed ones are new.
    Offsets are taken one after another for the messages still unmatched (one match, in
    order with those found, is enough after the first), so a chat sent again with a message
    dropped or inserted lines up before and after it (when no offset holds two matches, as in a
    three-message chat with its middle one dropped: the longest common subsequence, if it
    holds two messages or more and more than half of those sent); and an edited message that an earlier
    re-send stored after the session's messages is that message when sent again in its place.

    With ``sent_times`` and ``stored_times`` (Unix seconds; None where a sent message gave no
    ``created_at``), a sent message that gives its time is a stored one only if that one
    happened at the same time (within a millisecond, or a second when one of the two is a whole
    second: :func:`_same_time`): an exchange repeated word for word on a later day is new, not
    the earlier one sent again.

    ``stored[tail_from:]`` are the places after the session's last stored message (its erased
    last messages): such a hole takes a sent message only if it gives no time or one no later
    than ``stored_times`` there (the newest time the session had numbered); a later one is new,
    and a run of sent messages that gets there has reached the session's end.

    ``same_chat``: ``sent`` is known to be this session's chat sent again (an earlier sitting of it
    lined up with the store), so a run needs no real match: a sitting whose every message was
    erased lines up with its holes, which stay erased. So does, with ``erased_whole``, a session
    whose every message was erased before their times were kept (no ``erased_times``), when each
    message sent gives its time (no later than the newest the session had numbered, as any hole
    at its end asks): under its label it is the erased chat sent again (helper-235: a ticket
    erased whole for a GDPR request was stored again, phone number included, when the agent
    re-sent its history). A session that keeps its erased messages' times has those messages
    told apart by time before this (:func:`plan_conversation`).
    """
    end = len(stored) if tail_from is None else tail_from
    erased = (erased_whole and bool(stored) and all(s is None for s in stored) and sent_times is not None
              and all(t is not None for t in sent_times))

    def same(k: int, i: int) -> bool:
        if stored[i] is None:   # a hole; at the end of the session, only for what happened by then
            bound = None if stored_times is None else stored_times[i]
            t = None if sent_times is None else sent_times[k]
            return i < end or bound is None or t is None or t <= bound + _SAME_TIME_S
        if sent[k] not in stored[i]:
            return False
        t = None if sent_times is None else sent_times[k]
        return t is None or stored_times is None or _same_time(stored_times[i], t)

    for j in range(len(stored)):
        full = min(len(sent), len(stored) - j)
        n = 0   # how many of sent's first messages stored holds from j on
        while n < full and same(n, j + n):
            n += 1
        real = sum(stored[j + k] is not None for k in range(n))
        if (real or ((same_chat or erased) and n)) and (n == full or j + n >= end) and (
                j + n >= end or n >= 2 or same_chat or erased):
            return [(k, j + k) for k in range(n)]
    # the fallback: each message that a stored one equals votes for the offset j that puts them
    # side by side, so only offsets with two votes or more are compared whole (not every j)
    places: dict[str, list[int]] = {}
    for i, digests in enumerate(stored):
        for d in digests or ():
            places.setdefault(d, []).append(i)
    # one match is enough when it gives its time (the same words at the same millisecond: that
    # message, in a window, alone, or in a single exchange sent again with its reply
    # regenerated); without times a new exchange whose short reply repeats the stored one
    # ("Done.") would lose that reply

    def timed(k: int) -> bool:
        return sent_times is not None and stored_times is not None and sent_times[k] is not None

    # a stored message's time tells it apart when no other stored message has it (messages
    # stamped with a date alone, or all with one second, share theirs)
    stamps = sorted(t for t in stored_times or () if t is not None)
    shared = {a for a, b in zip(stamps, stamps[1:]) if b - a <= _SAME_TIME_S} | {
        b for a, b in zip(stamps, stamps[1:]) if b - a <= _SAME_TIME_S}

    def told_apart(k: int, i: int) -> bool:
        """Whether the match of sent ``k`` with stored ``i`` gives a time only that one has."""
        return timed(k) and stored_times[i] is not None and stored_times[i] not in shared

    pairs: list[tuple[int, int]] = []
    left, taken = set(range(len(sent))), set()
    while True:   # offset by offset: a message dropped or inserted shifts the rest by one
        votes: dict[int, int] = {}
        timed_votes: set[int] = set()
        for k in left:
            for i in places.get(sent[k], ()):
                if i not in taken:
                    votes[i - k] = votes.get(i - k, 0) + 1
                    if timed(k):
                        timed_votes.add(i - k)
        first, order = not pairs, sorted(left)
        paired = sorted(pairs)   # a later offset keeps the order of the pairs found before it
        # one match is enough after the first offset (in order with it: a message left alone
        # by a drop next to it), or with its time
        enough = 2 if first else 1
        best: tuple[int, list[int]] = (0, [])
        for j in sorted(j for j, v in votes.items() if v >= enough or j in timed_votes):
            facing = [k for k in order if 0 <= k + j < len(stored) and k + j not in taken
                      and _in_order(paired, k, k + j)]
            held = [k for k in facing if same(k, j + k)]
            matched = sum(stored[j + k] is not None for k in held)
            if not held:
                continue
            real = [k for k in held if stored[j + k] is not None]
            by_time = any(timed(k) for k in real)
            # no fewer matches than differences over the stretch the matches span (an edit
            # before a drop leaves two shifted stretches, each a minority of the whole chat),
            # unless every match gives a time only its stored message has: the same words at
            # that time are that message however many around it were edited
            span = sum(1 for k in facing if held[0] <= k <= held[-1])
            if (matched >= enough or by_time) \
                    and (matched >= span - len(held) or (real and all(told_apart(k, j + k) for k in real))) \
                    and len(held) > len(best[1]):
                best = (j, held)
        if not best[1]:
            break
        pairs += [(k, best[0] + k) for k in best[1]]
        left.difference_update(best[1])
        taken.update(best[0] + k for k in best[1])
    if not pairs and len(sent) >= 2 and len(sent) * end <= _SUBSEQUENCE_CELLS:
        # no offset held two matches (a short chat with its middle message dropped: one match on
        # each side): the longest common subsequence, if it holds two messages or more and more
        # than half of those sent (another chat under the label sharing "Ok." and "Thanks!" is
        # not lined up by them)
        common = _common_subsequence(len(sent), end, lambda k, i: stored[i] is not None and same(k, i))
        if len(common) >= 2 and 2 * len(common) > len(sent):
            pairs = common
    # an edit sent in an earlier re-send was stored after the session's messages: the same
    # edit sent again in its place (between messages already lined up) is that stored one
    if pairs:
        lo, hi, after = min(k for k, _ in pairs), max(k for k, _ in pairs), max(i for _, i in pairs)
        for k in sorted(left):
            if lo < k < hi:
                i = next((i for i in places.get(sent[k], ()) if i > after and i not in taken and same(k, i)), None)
                if i is not None:
                    pairs.append((k, i))
                    taken.add(i)
    return pairs


#: Largest sent x stored table the common-subsequence fallback of :func:`_overlap` fills.
_SUBSEQUENCE_CELLS = 40_000


def _common_subsequence(n: int, m: int, same: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """A longest common subsequence of sequences of lengths ``n`` (sent) and ``m`` (stored)
    under ``same(k, i)``, as pairs (k, i) in order (dynamic programming, O(n m))."""
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for k in range(n - 1, -1, -1):
        row, below = table[k], table[k + 1]
        for i in range(m - 1, -1, -1):
            row[i] = below[i + 1] + 1 if same(k, i) else max(below[i], row[i + 1])
    out, k, i = [], 0, 0
    while k < n and i < m:
        if same(k, i) and table[k][i] == table[k + 1][i + 1] + 1:
            out.append((k, i))
            k, i = k + 1, i + 1
        elif table[k + 1][i] >= table[k][i + 1]:
            k += 1
        else:
            i += 1
    return out


def _edits(pairs: list[tuple[int, int]], n_sent: int, stored: list[frozenset | None],
           end: int) -> list[tuple[int, int]]:
    """Sent messages that replace stored ones in place, given the pairs :func:`_overlap` lined
    up: pairs (index in sent, index in stored). A run of sent messages that lined up with none
    replaces the stored messages at their places when those places are clear: the messages
    before and after the run lined up with stored ones as many places apart as the run is long
    (one edited message, or several next to each other); or the run starts the chat and the
    message after it lined up with the stored one as many places from the session's start; or
    the run follows the last lined-up message and is at least as long as what the session
    holds after it (its last messages edited or its last reply regenerated, then new
    messages). A message inserted between two lined-up ones has no place of its own and
    replaces nothing; nor does one at a hole (an erased message stays erased). With fewer than
    two messages lined up nothing is replaced: [question, reply] sent after [question, reply]
    with the same short reply is as likely a new exchange as an edit of the stored question."""
    if len(pairs) < 2:   # one message lined up (a single exchange): an edit or a new exchange
        return []            # whose reply repeats the last one ("Done."): nothing is superseded
    at = dict(pairs)
    taken = {i for _, i in pairs}
    out: list[tuple[int, int]] = []
    k = 0
    while k < n_sent:
        if k in at:
            k += 1
            continue
        stop = k   # the run of unmatched messages k .. stop - 1
        while stop < n_sent and stop not in at:
            stop += 1
        before, after, run = at.get(k - 1), at.get(stop), stop - k
        if before is not None and after is not None:
            places = range(before + 1, after) if after - before - 1 == run else range(0)
        elif before is not None:
            places = range(before + 1, end) if end - before - 1 <= run else range(0)
        elif after is not None and k == 0:
            places = range(0, after) if after == run else range(0)
        else:
            places = range(0)
        for t, i in enumerate(places):
            if stored[i] is not None and i not in taken:
                out.append((k + t, i))
                taken.add(i)
        k = stop
    return out


#: Share of the content terms of the shorter of two messages that the other must hold for the
#: one sent in the other's place to be an edit of it (:func:`_rewords`).
REWORDING_OVERLAP = 0.5


def _rewords(new: str, old: str) -> bool:
    """Whether message text ``new`` (``"<speaker>: <content>"``) rewords ``old``: the same
    speaker, and at least :data:`REWORDING_OVERLAP` of the content terms (the keyword index's
    terms: stop words out, stemmed) of the shorter one in the other. An edit changes a
    detail ("150 euros" -> "120 euros"); a message about something else sent where a short
    reply repeated by chance lined the chats up is no edit, and superseding it would hide it."""
    a, b = _SPEAKER.match(new), _SPEAKER.match(old)
    if a is None or b is None or a.group(1) != b.group(1):
        return False
    ta, tb = set(tokenize(new[a.end():])), set(tokenize(old[b.end():]))
    if not ta or not tb:
        return False
    return len(ta & tb) >= REWORDING_OVERLAP * min(len(ta), len(tb))


def _fmt_date(t: float) -> str:
    # the day only: "..., 14 November 2023, 22:13" in two session texts reads to the fact-change
    # checker (engramdb.facts.conflict) as a changed number, and the later session would supersede
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%-d %B %Y")



def _tool_call_only(m: Any) -> bool:
    """Whether message ``m`` only calls tools: ``tool_calls`` (or the older ``function_call``)
    set and no text (OpenAI sends ``null``; other clients send ``""``, blank text or ``[]``)."""
    if not isinstance(m, Mapping) or not (m.get("tool_calls") or m.get("function_call")):
        return False
    content = m.get("content")
    if content is None or (isinstance(content, list) and not content):
        return True
    return isinstance(content, str) and is_blank(content)

def check_session_gap(value: Any) -> float | None:
    """``session_gap`` as float seconds > 0, or None (never split): a real number (NumPy's too) or
    a :class:`datetime.timedelta`.

    Raises
    ------
    InvalidInputError
        Not None, a timedelta nor a finite real number > 0 (a bool is no number).
    """
    if value is None:
        return None
    seconds = value.total_seconds() if isinstance(value, timedelta) else value
    if not isinstance(seconds, bool) and isinstance(seconds, numbers.Real):
        try:
            seconds = float(seconds)
        except OverflowError:
            seconds = float("inf")
        if 0 < seconds < float("inf"):
            return seconds
    raise InvalidInputError(f"session_gap: expected seconds > 0 (a number or a timedelta) or None, got {value!r}")


def plan_conversation(messages: Iterable[Mapping[str, Any]], *, session: str | None = None,
                      now: float, session_gap: float | None = SESSION_GAP_S, entities: bool = True,
                      split_roles: tuple[str, ...] = ("assistant",),
                      split_chars: int = 800, session_titles: Mapping[str, str] | None = None,
                      entity_exists: Callable[[str], bool] | None = None,
                      stored_digests: Callable[[str], frozenset | None] | None = None,
                      stored_time: Callable[[str], float | None] | None = None,
                      stored_session: Callable[[str], StoredSession | None] | None = None,
                      stored_mentions: Callable[[str], list[str] | None] | None = None,
                      stored_sessions: Callable[[], list[tuple[str, float]]] | None = None,
                      keep_roles: tuple[str, ...] = (),
                      id_prefix: str = "", max_pieces: int = 64,
                      max_block_chars: int | None = None,
                      extra_tags: Callable[[str, str], Sequence[str]] | None = None) -> ConversationPlan:
    """Validate chat messages and plan their memories and edges (see the module docstring).

    Parameters
    ----------
    messages : iterable of mapping
        OpenAI-style ``{"role": str, "content": str | list of text parts, "created_at"?: Unix
        seconds | ISO-8601 | datetime, "session"?: str | int, "name"?: str, "id"?: str}``.
        A message without ``created_at`` takes the previous one's time plus 1 ms (the first:
        ``now``); without ``session`` it belongs to ``session`` (or the previous message's).
    session : str, optional
        Session label of messages that name none; default ``"chat-<first time, integer
        seconds>"``, or ``"chat-<12 hex digits of the first message's digest>"`` when the first
        message has no ``created_at`` (so the same chat sent again later finds its session; the
        digest of its text as stored, without whitespace at the ends of its lines: :func:`_tidy`).
    now : float
        Unix seconds; the time of a first message without ``created_at``.
    session_gap : float or None
        Without ``session``, a message that names no session and whose ``created_at`` is more
        than this many seconds after the previous message's opens a new session
        ``"chat-<its time>"`` (default :data:`engramdb.config.SESSION_GAP_S`, 1800); None keeps one session
        a call. A message after one that named a session stays in that session.
    entities : bool
        Plan the entity co-mention layer.
    split_roles : tuple of str
        Roles whose long messages are split into blocks (:func:`split_blocks`).
    split_chars : int
        Messages at least this long (characters) are split.
    session_titles : mapping of session label -> str, optional
        Text of a session's node instead of the generated one.
    entity_exists : callable str -> bool, optional
        Whether the namespace already holds a memory with this id: an entity node (entities named
        once in this call are then linked to it), a session node (the messages of that session
        are added to it, and its last stored message leads ``next`` to the first new one), a
        generated session label (a chat without a label gets a fresh one) or a generated
        message id (skipped: a new message never takes a stored id). Default: ``stored_digests``
        is not None.
    stored_digests : callable str -> frozenset of str or None, optional
        The digests (hex SHA-256) the memory the namespace holds under this id is recognised
        by (:func:`stored_digests`), or None. A message with an ``id`` the namespace holds with
        the same text is already stored: left out.
    stored_time : callable str -> float or None, optional
        The event time of the memory the namespace last stored with the text of this digest
        (:func:`stored_time`), or None. A message with its ``created_at`` that the namespace
        holds with the same words at that time (within a millisecond), under any session, is
        already stored: left out.
    stored_session : callable str -> StoredSession or None, optional
        What the namespace holds of a session, by its node id (:func:`stored_session`): its
        messages in the order they were stored (a sent message with a ``created_at`` lines up
        only with a stored one of the same time), and its node's marks of erased messages; None
        when there is no such session. A position of the session's ``<session>:<n>`` numbering
        that no stored message holds (an erased message) lines up with any message sent there,
        which is not stored again; so do its places after its last stored message up to
        ``last_position``, for messages sent without a time or no later than
        ``last_position_at``; new messages are numbered after it, never taking an erased id;
        a message sent with the id of an erased one (``erased_ids``) is not stored again; a
        session whose node was erased gets it again.
        With it, the messages of a stored session that line up with its stored messages
        (``"<speaker>: <content>"``, in order: :func:`_overlap`) are not stored again, whatever
        their ids, so a chat sent again whole, a growing message list or a window over its tail
        adds only its new messages; a chat without a session label whose first message opens a
        stored ``chat-<second>`` (or ``chat-<digest>``) session is that session. New messages of a stored session are
        numbered after the larger of its message count and its highest ``<session>:<n>``.
    stored_mentions : callable str -> list of str or None, optional
        Ids of the stored messages of the namespace that name this entity, or None when it is a
        hub there (named too often to link). An entity without a node that this call names once
        gets its node when another stored message names it too (not the message itself, nor a
        stored copy of its text), and every new entity node is also linked from the stored
        messages naming it.
    stored_sessions : callable () -> list of (str, float), optional
        The namespace's stored session nodes (:func:`stored_session_nodes`): id and start time
        (Unix seconds). The first new session of the call is linked ``next`` from the stored one
        that started last before it, and the last new one to the stored one that starts first
        after it (a chat stored one session a call, as a chat agent stores it, is one chain of
        sessions, as one call with the whole chat makes it).
    keep_roles : tuple of str
        ``system`` / ``developer`` / ``tool`` / ``function`` messages are left out unless named here.
    id_prefix : str
        Prefix of generated message ids (``"<prefix><session>:<position>"``).
    max_pieces : int
        Most blocks one split message becomes (``StoreConfig.max_pieces`` through
        :meth:`engramdb.Engram.add_conversation`): consecutive blocks are grouped beyond it.
    max_block_chars : int, optional
        A block longer than this (characters; ``StoreConfig.chunk_chars``) is cut further at
        sentence boundaries (:func:`engramdb.batch_plan.split_text`, without overlap), so a
        block is never itself stored as chunks.
    extra_tags : callable (role, content) -> sequence of str, optional
        Tags a message gets after its speaker and role (the engine's ``protected``: an identity,
        health or family fact said by a ``protect_roles`` role).

    Returns
    -------
    ConversationPlan

    Raises
    ------
    InvalidInputError
        ``messages`` is not a list of mappings, a message has an unknown field, no or a
        non-string role, content that is missing or not text, an id given twice or not a
        valid id, or a bad ``created_at`` / ``session`` / ``name``. When one message is at
        fault the text starts ``"messages[<i>]: <field>: "`` and the error has the attributes
        ``message_index`` (i, its position in ``messages`` from 0) and ``field`` (the field at
        fault: ``"role"``, ``"content"``, ``"created_at"``, ...; None when the message is not a
        mapping).
    EmptyTextError
        A message's content is empty (attributes as above, ``field`` = ``"content"``).
    """
    checked, calls_only = _checked(messages, keep_roles)
    # each kept message's digest and given time, in order (a chat's first message edited is told by
    # the messages after it: _goes_on_as)
    ahead = [(text_digest(f"{row[1] or row[0]}: {row[2]}").hex(), row[3]) for _k, row in checked if row is not None]
    if stored_digests is not None and entity_exists is None:
        def entity_exists(ext_id: str) -> bool:
            return stored_digests(ext_id) is not None
    plan = ConversationPlan()
    plan.left_out = calls_only   # an assistant turn that only calls tools has no text: left out
    rows = []
    prev_t: float | None = None
    label = None if session is None else session_label(session, "add_conversation")
    session_gap = check_session_gap(session_gap)
    auto_label = None   # the generated label of the unlabelled messages so far
    auto_labels: set[str] = set()
    latest: float | None = None   # the newest time so far (a pause is measured from it)
    resent = False   # a sitting of this call lined up with a stored session: the chat is sent again
    sitting_of_resent: set[str] = set()   # the later sittings' sessions that took it for that
    for k, row in checked:
        if row is None:
            plan.left_out += 1
            continue   # a system prompt is an instruction, not something that happened
        role, name, content, raw_t, sess, given = row
        if given is not None and any(r[5] == given for r in rows):
            raise _at(_bad(f"messages[{k}]", "id", f"{given!r} given twice in the conversation"), k)
        if raw_t is None:
            t = now if prev_t is None else prev_t + 1e-3
        else:
            t = raw_t
        if (sess is None and label is not None and label == auto_label and session_gap is not None
                and raw_t is not None and latest is not None and t - latest > session_gap):
            label = None   # a pause: an unlabelled chat's next sitting opens a session of its own
        prev_t = t
        latest = t if latest is None else max(latest, t)   # (a message dated back joins its sitting)
        # (content tidied, _tidy: its digest is also the loose one a stored message is found by)
        digest = ahead[len(rows)][0]
        if sess is not None:
            label = sess
        elif label is None:   # a new chat: a label no stored session has, unless it is this chat
            # named by its first message's time, or without one by its first message's text (a
            # chat sent again later has a later "now" but the same first message)
            base = f"chat-{int(t)}" if raw_t is not None else f"chat-{digest[:12]}"
            label = base
            n = 1
            while entity_exists is not None and entity_exists(f"{id_prefix}S:{label}"):
                got = stored_session(f"{id_prefix}S:{label}") if stored_session is not None else None
                held_msgs = None if got is None else got.messages
                if held_msgs and (digest in _first_wordings(got) or held_msgs[0][0] != f"{id_prefix}{label}:1"):
                    # the same chat sent again: its stored session takes it; also when that
                    # session's first message was erased (its label came from the same first
                    # message's time or text, and the erased place must stay erased)
                    resent = True
                    break
                if held_msgs and raw_t is not None and _goes_on_as(got, ahead[len(rows) + 1:len(rows) + 4]):
                    # the chat's first message edited: the messages after it are the session's, by
                    # their words and times (its edit then replaces the old wording)
                    resent = True
                    break
                if resent and got is not None:
                    # a later sitting of a chat whose earlier sitting is stored: its session, whatever
                    # became of its first message (edited, or every message erased: they stay so)
                    sitting_of_resent.add(label)
                    break
                n += 1
                label = f"{base}-{n}"
            auto_label = label
            auto_labels.add(label)
        rows.append((role, name, content, t, label, given, digest, k, raw_t))

    if not rows:   # only instructions and tool results (an agent's first call: its system prompt)
        return plan
    # sessions the namespace already holds: label -> (their stored messages with holes: id, digests
    # and time; next position; where the places after the last stored message begin; newest time)
    held: dict[str, tuple[list[tuple], int, int, float | None]] = {}
    erased_ids: dict[str, frozenset] = {}   # label -> ids of its erased messages
    erased_at: dict[str, tuple] = {}   # label -> event times of its erased messages
    stored_texts: dict[str, dict] = {}      # label -> its stored messages' texts by id
    no_node: set[str] = set()   # held sessions whose node was erased
    for lab in dict.fromkeys(r[4] for r in rows):
        sid = f"{id_prefix}S:{lab}"
        got = stored_session(sid) if stored_session is not None else None
        if got is None:
            if entity_exists is None or not entity_exists(sid):
                continue
            got = StoredSession([], True)
        if not got.node:
            no_node.add(lab)   # its messages are stored, its node was erased: made again
        stored_msgs, last, last_at, erased = got.messages, got.last_position, got.last_position_at, got.erased_ids
        numbered = re.compile(re.escape(f"{id_prefix}{lab}:") + r"([0-9]+)")
        top = max([len(stored_msgs), last]
                  + [int(m.group(1)) for mid, *_ in stored_msgs if (m := numbered.fullmatch(mid))])
        lined, tail_from = _current_view(*_with_holes(stored_msgs, numbered, last, last_at), got.successors,
                                         numbered, got.erased_edits)
        held[lab] = (lined, top + 1, tail_from, last_at)
        erased_ids[lab] = erased
        # (a time tells an erased message apart only when no other message of the session, kept
        # or erased, has it: messages stamped with a date alone share theirs)
        times = [t for *_, t in stored_msgs if t is not None] + list(got.erased_times)
        erased_at[lab] = tuple(t for t in got.erased_times if sum(_same_time(t, u) for u in times) == 1)
        stored_texts[lab] = got.texts
    n_rows = len(rows)
    skip: set[int] = set()   # rows the namespace holds already
    replaced: dict[int, str] = {}   # message position -> id of the stored message it replaces
    if stored_digests is not None:   # an id given again with the same text
        skip.update(i for i, r in enumerate(rows) if r[5] is not None and r[6] in (stored_digests(r[5]) or ()))
    # an id of a message its session erased: it stays erased
    skip.update(i for i, r in enumerate(rows) if r[5] is not None and r[5] in erased_ids.get(r[4], ()))
    rows_of: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        rows_of.setdefault(r[4], []).append(i)
    for lab, (stored_msgs, _pos, tail_from, _last_at) in held.items():
        mine = rows_of[lab]
        if erased_at[lab]:
            # a message sent with the time of one its session erased is that one: it stays erased,
            # wherever it is sent (a window over the tail, a page, alone, shuffled; helper-236:
            # those lined up with no stored message and were stored again), and the rest line
            # up without it (a new message sent before it is no hole's)
            gone = {i for i in mine if rows[i][8] is not None
                    and any(_same_time(t, rows[i][8]) for t in erased_at[lab])}
            skip.update(gone)
            mine = [i for i in mine if i not in gone]
        lined = _overlap([d for _, d, _t in stored_msgs], [rows[i][6] for i in mine],
                         [t for *_, t in stored_msgs], [rows[i][8] for i in mine], tail_from,
                         same_chat=lab in sitting_of_resent, erased_whole=not erased_at[lab])
        # a message lined up with a stored one is that one, unless its own id says otherwise (at
        # a hole, an erased message, only a message without an id of its own lines up)
        skip.update(mine[o] for o, at in lined if rows[mine[o]][5] in (None, stored_msgs[at][0]))
        # an edit only where times say the messages are the same chat's: the edit and two
        # messages lined up around it or elsewhere give their created_at (lined up, they have
        # their stored time); without times, a new exchange whose reply repeats a stored one
        # ("Ok.") or another chat under the label lines up as well as an edited chat does
        timed = sum(rows[mine[o]][8] is not None for o, _ in lined)
        for o, at in (_edits(lined, len(mine), [d for _, d, _t in stored_msgs], tail_from) if timed >= 2 else ()):
            r, old_text = rows[mine[o]], stored_texts[lab].get(stored_msgs[at][0])
            if r[8] is not None and old_text is not None and _rewords(f"{r[1] or r[0]}: {r[2]}", old_text):
                replaced[r[7]] = stored_msgs[at][0]   # by message position in the input
    if stored_time is not None:
        # a message with its time that the namespace holds with the same words at that time,
        # under any session label (a history sent again under a new label, a window without
        # one): that message, not a new one
        skip.update(i for i, r in enumerate(rows) if i not in skip and r[5] is None and r[8] is not None
                    and (at := stored_time(r[6])) is not None and _same_time(at, r[3]))
    stored_ids = {rows[i][5] for i in skip if rows[i][5] is not None}
    rows = [r for i, r in enumerate(rows) if i not in skip]
    if stored_digests is not None:   # a given id the namespace holds with another text: name the message
        for r in rows:
            if r[5] is not None and stored_digests(r[5]) is not None:
                exc = _bad(f"messages[{r[7]}]", "id", f"{r[5]!r} already exists in this namespace with another "
                                                      "text; give another id, or supersede() / update() it")
                exc.message_index = r[7]
                raise exc
    plan.already_stored = n_rows - len(rows)
    if not rows:
        return plan   # every message is stored already

    by_session: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_session.setdefault(row[4], []).append(i)
    given_ids = {r[5] for r in rows if r[5] is not None}
    seen: set[str] = set()
    ids: list[str] = [""] * len(rows)
    for lab, members in by_session.items():
        pos = 1
        last_at = None
        if lab in held:   # messages added to a stored session: numbered on after its last one
            _view, pos, _tail_from, last_at = held[lab]
        for i in members:
            mid = rows[i][5]
            if mid is None:   # "<session>:<position>", never an id stored or given in this call
                mid = f"{id_prefix}{lab}:{pos}"
                while mid in seen or mid in given_ids or (entity_exists is not None and entity_exists(mid)):
                    pos += 1
                    mid = f"{id_prefix}{lab}:{pos}"
            if mid in seen:
                raise _at(_bad(f"messages[{rows[i][7]}]", "id", f"{mid!r} given twice in the conversation"),
                          rows[i][7])
            seen.add(mid)
            ids[i] = mid
            pos += 1
            if rows[i][7] in replaced:   # its record names what it replaces (StoredSession.successors)
                plan.fields[mid] = {"edit_of": replaced[rows[i][7]]}
        times = [rows[i][3] for i in members] + ([] if last_at is None else [last_at])
        plan.last_positions[f"{id_prefix}S:{lab}"] = (pos - 1, max(times))
    plan.message_ids = ids

    if session_titles is not None and not isinstance(session_titles, Mapping):
        raise InvalidInputError(f"session_titles: expected a mapping of session label -> title, "
                                f"got {type(session_titles).__name__}")
    titles = dict(session_titles or {})
    for lab, title in titles.items():   # the session node's text: checked here, so the error names it
        if not _shows_text(title):
            raise InvalidInputError(f"session_titles[{lab!r}]: expected a non-empty UTF-8 string, got {title!r}")
    prev_session = None
    new_sessions: list[tuple[str, float]] = []   # (node id, start) of the call's new sessions
    for lab, members in by_session.items():
        sid = f"{id_prefix}S:{lab}"
        if sid in seen:
            raise InvalidInputError(f"session node id {sid!r} collides with a message id")
        seen.add(sid)
        if lab not in held or lab in no_node:
            speakers = list(dict.fromkeys(rows[i][1] or rows[i][0] for i in members))
            t0 = min(rows[i][3] for i in members)
            name = "" if lab in auto_labels else f" {lab}"   # a generated label is a number: left out
            text = titles.get(lab) or _session_text(name, speakers, t0)
            plan.items.append({"id": sid, "kind": MemoryKind.EPISODIC, "created_at": t0, "text": text,
                               "source": sid, "tags": ["session"]})
            new_sessions.append((sid, t0))
            last, last_at = plan.last_positions[sid]
            plan.fields[sid] = {"last_position": last, "last_position_at": last_at}
        plan.sessions.append(sid)
        if prev_session is not None:
            plan.edges.append((prev_session, sid, Relation.NEXT, 1.0))
        prev_session = sid
        # the session as it reads now: an edit takes the place of what it replaces, between that
        # one's neighbours; the stored session's last message leads on to the new ones
        view = [e[0] for e in held[lab][0]] if lab in held else []
        edit_at: dict[int, int] = {}   # member -> its place in the view
        if replaced:
            place = {mid: p for p, mid in enumerate(view) if mid is not None}
            for i in members:
                if rows[i][7] in replaced and replaced[rows[i][7]] in place:
                    edit_at[i] = place[replaced[rows[i][7]]]
                    view[edit_at[i]] = ids[i]
        edit_mids = {ids[i] for i in edit_at}
        prev_mid = next((mid for mid in reversed(view) if mid is not None), None)
        for i in members:
            role, name, content, t = rows[i][:4]
            mid = ids[i]
            tags = [name or role, role, *(extra_tags(role, content) if extra_tags is not None else ())]
            plan.items.append({"id": mid, "kind": MemoryKind.EPISODIC, "text": f"{name or role}: {content}",
                               "created_at": t, "source": mid, "tags": list(dict.fromkeys(tags))})
            plan.positions[mid] = rows[i][7]
            plan.edges.append((mid, sid, Relation.DISCUSSED_IN, 0.5))
            if i in edit_at:   # in its place: from the message before it, to the stored one after it
                p = edit_at[i]
                before = next((m for m in reversed(view[:p]) if m is not None), None)
                after = next((m for m in view[p + 1:] if m is not None), None)
                if before is not None:
                    plan.edges.append((before, mid, Relation.NEXT, 1.0))
                if after is not None and after not in edit_mids:
                    plan.edges.append((mid, after, Relation.NEXT, 1.0))   # (a next edit links from it itself)
            else:
                if prev_mid is not None:
                    plan.edges.append((prev_mid, mid, Relation.NEXT, 1.0))
                prev_mid = mid
            if role in split_roles and len(content) >= split_chars:
                blocks = split_blocks(content)
                if max_block_chars is not None:   # cut at sentences, without overlap: blocks join by "\n"
                    blocks = [part.strip() for b in blocks for part in split_text(b, max_block_chars, overlap=0)]
                blocks = _group(blocks, max_pieces)
                if max_block_chars is not None and any(len(b) > max_block_chars for b in blocks):
                    # more blocks than max_pieces holds at max_block_chars each: no block layer
                    # (a group would be split again, into pieces of a piece); the message's own
                    # pieces, max_pieces at most (batch_plan), index it alone
                    blocks = []
                if len(blocks) > 1:
                    plan.fields[mid] = {**plan.fields.get(mid, {}), "blocks": len(blocks)}
                    prev_piece = None
                    for j, block in enumerate(blocks, start=1):
                        pid = block_id(mid, j)
                        if pid in seen:
                            raise InvalidInputError(f"piece id {pid!r} collides with a message id")
                        seen.add(pid)
                        plan.items.append({"id": pid, "kind": MemoryKind.EPISODIC, "text": block,
                                           "created_at": t, "source": mid,
                                           "tags": piece_tags(dict.fromkeys([name or role, role]))})
                        plan.fields[pid] = {"chunk_of": mid, "chunk": j}
                        plan.positions[pid] = rows[i][7]
                        plan.edges.append((pid, mid, Relation.EXTRACTED_FROM, 1.0))
                        if prev_piece is not None:
                            plan.edges.append((prev_piece, pid, Relation.NEXT, 1.0))
                        prev_piece = pid

    if entities:
        docs = [(ids[i], rows[i][2]) for i in range(len(rows))]
        when = {ids[i]: rows[i][3] for i in range(len(rows))}
        sent = {r[6] for r in rows}
        own = seen | stored_ids

        def others(ent: str) -> list[str]:
            """Stored messages naming ``ent``: not one of this call's, nor a stored copy of one."""
            found = [i for i in stored_mentions(ent) or () if i not in own]
            if stored_digests is not None:
                found = [i for i in found if sent.isdisjoint(stored_digests(i) or ())]
            return found

        shared = co_mentions(docs)
        earlier: dict[str, list[str]] = {}   # new entity node -> stored messages naming it
        if entity_exists is not None:   # named once here, but the namespace already knows it
            once: dict[str, list[str]] = {}
            for doc_id, text in docs:
                for ent in extract_entities(text):
                    once.setdefault(ent, []).append(doc_id)
            for ent, where_ids in once.items():
                if ent in shared or len(where_ids) != 1:
                    continue
                if entity_exists(entity_node_id(ent)):
                    plan.edges.append((where_ids[0], entity_node_id(ent), Relation.MENTIONS, 1.0))
                elif stored_mentions is not None:
                    found = others(ent)
                    if found:
                        shared[ent], earlier[ent] = where_ids, found
        for ent, where_ids in shared.items():
            eid = entity_node_id(ent)
            if entity_exists is None or not entity_exists(eid):
                plan.items.append({"id": eid, "kind": MemoryKind.SEMANTIC, "text": ent, "tags": ["entity"],
                                   "created_at": when[where_ids[0]], "source": eid})
                if ent not in earlier and stored_mentions is not None:
                    earlier[ent] = others(ent)
                plan.edges.extend((sid_, eid, Relation.MENTIONS, 1.0) for sid_ in earlier.get(ent, ()))
            plan.edges.extend((tid, eid, Relation.MENTIONS, 1.0) for tid in where_ids)
    if stored_sessions is not None and new_sessions:
        _chain_to_stored(plan, new_sessions, stored_sessions())
    return plan


def _chain_to_stored(plan: ConversationPlan, new: list[tuple[str, float]], stored: list[tuple[str, float]]) -> None:
    """Link the call's new sessions (``new``: node id, start) into the namespace's chain of
    stored ones (``stored``): ``next`` from the stored session that started last before the
    earliest new one, and from the latest new one to the stored session that starts first after
    it; none where that session is one of the call's (the call links its own)."""
    first, last = min(new, key=lambda x: (x[1], x[0])), max(new, key=lambda x: (x[1], x[0]))
    mine = set(plan.sessions)
    before = [x for x in stored if x[0] != first[0] and (x[1], x[0]) < (first[1], first[0])]
    after = [x for x in stored if x[0] != last[0] and (x[1], x[0]) > (last[1], last[0])]
    if before and (pred := max(before, key=lambda x: (x[1], x[0])))[0] not in mine:
        plan.edges.append((pred[0], first[0], Relation.NEXT, 1.0))
    if after and (succ := min(after, key=lambda x: (x[1], x[0])))[0] not in mine:
        plan.edges.append((last[0], succ[0], Relation.NEXT, 1.0))


def stored_session_nodes(state: Any, namespace: str, id_prefix: str = "") -> list[tuple[str, float]]:
    """The namespace's live session nodes (ids ``<prefix>S:<label>``): id and start time (Unix
    seconds), from one range of the id table."""
    with state.store.read("listing the stored sessions") as txn:
        found = state.store.ids_starting(txn, namespace, f"{id_prefix}S:")
    c = state.cols
    return [(sid, float(c.created_at[nid])) for sid, nid in found if nid < c.n and c.alive[nid]]


def check_messages(messages: Iterable[Mapping[str, Any]], keep_roles: Sequence[str] = ()) -> None:
    """Check each message as :meth:`engramdb.Engram.add_conversation` does before it writes
    anything (its fields, role, content, created_at, session, name, id), without a store: a
    caller that stores a file's conversations one ``add_conversation`` each (``engramdb
    ingest-chat``) refuses a bad file before the first is written.

    Parameters
    ----------
    messages : iterable of mapping
    keep_roles : sequence of str
        As for ``add_conversation``.

    Raises
    ------
    InvalidInputError, EmptyTextError
        As ``add_conversation``: ``"messages[<i>]: <field>: <problem>"``, with the attributes
        ``message_index`` and ``field``.
    """
    _checked(messages, check_roles(keep_roles, "keep_roles"))


def _checked(messages: Any, keep_roles: tuple[str, ...]) -> tuple[list[tuple[int, tuple | None]], int]:
    """Each message that is no tool-call-only turn, checked (:func:`_check_message`): (its
    position, its row or None for an instruction left out), and how many tool-call-only turns
    were left out.

    Raises
    ------
    InvalidInputError, EmptyTextError
        Not a list of messages, none with text, or a bad message (``message_index`` set).
    """
    if messages is None or isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise InvalidInputError(f"messages: expected a list of message mappings, got {type(messages).__name__}")
    messages = list(messages)
    msgs = [(k, m) for k, m in enumerate(messages) if not _tool_call_only(m)]
    if not msgs:
        raise InvalidInputError("messages: the conversation is empty")
    out = []
    for k, m in msgs:
        try:
            out.append((k, _check_message(m, f"messages[{k}]", keep_roles)))
        except InvalidInputError as exc:
            raise _at(exc, k) from None
    return out, len(messages) - len(msgs)


def _at(exc: InvalidInputError, index: int) -> InvalidInputError:
    """``exc`` with ``message_index`` = the position (from 0) of the message at fault."""
    exc.message_index = index
    if not hasattr(exc, "field"):
        exc.field = None
    return exc


def _check_message(m: Any, where: str, keep_roles: tuple[str, ...]) -> tuple | None:
    """One message checked: (role, name or None, content, Unix seconds or None, session label
    or None, id or None); None for an instruction (system / developer) not kept.

    Raises
    ------
    InvalidInputError, EmptyTextError
        The message is bad; the text is ``"<where>: <field>: <problem>"`` and the attribute
        ``field`` names the field at fault (None when the message is not a mapping).
    """
    if not isinstance(m, Mapping):
        raise _bad(where, None, f"expected a mapping with role and content, got {type(m).__name__}")
    unknown = sorted(str(f) for f in set(m) - MESSAGE_FIELDS)
    if unknown:
        raise _bad(where, unknown[0], f"unknown field (all unknown: {unknown}); a message has role, content and "
                                      "optionally created_at, session, name, id")
    role = m.get("role")
    if role is None:
        raise _bad(where, "role", f"missing; give one of {sorted(ROLES)}")
    if not isinstance(role, str) or role.strip() not in ROLES:
        raise _bad(where, "role", f"must be one of {sorted(ROLES)} (a speaker's name goes in 'name'), got {role!r}")
    role = role.strip()
    if role in _LEFT_OUT_ROLES and role not in keep_roles:
        return None
    raw = m.get("content")
    refusal = m.get("refusal")
    if (raw is None or (isinstance(raw, str) and not raw)) and isinstance(refusal, str) and _shows_text(refusal):
        raw = refusal   # an assistant's refusal (OpenAI: content null, the text in "refusal") is what it said
    content = _tidy(_content(raw, where))
    name = m.get("name")
    if name is not None and not _shows_text(name):
        raise _bad(where, "name", f"must be a non-empty string of valid UTF-8, got {name!r}")
    if name is not None and name.strip() in _ENGINE_TAGS:   # a speaker's name becomes a tag of the message
        raise _bad(where, "name", f"{name.strip()!r} is a tag the engine gives "
                                  f"{_ENGINE_TAGS[name.strip()]}; give the speaker another name")
    raw_t = m.get("created_at")
    try:
        t = None if raw_t is None else to_unix_seconds(raw_t, field=f"{where}: created_at")
    except InvalidInputError as exc:
        exc.field = "created_at"
        raise
    sess = m.get("session")
    if sess is not None:
        sess = session_label(sess, where)
    given = m.get("id")
    if given is not None:
        try:
            given = check_user_id(given, f"{where}: id")
        except InvalidInputError as exc:
            exc.field = "id"
            raise
    return role, (name or "").strip() or None, content, t, sess, given
