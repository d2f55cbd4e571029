"""Bulk ingest: engramdb's JSONL format and LoCoMo conversations, with progress bars."""
from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

from rich.progress import Progress

from .engine import Engram
from .errors import EngramError, InvalidInputError, MemoryNotFoundError, NamespaceError
from .locomo import Conversation, load_locomo
from .validate import check_link_spec, check_namespace

__all__ = ["ingest_jsonl", "ingest_locomo", "locomo_messages", "read_chat", "read_chat_where", "read_conversations",
           "read_jsonl"]

_MEMORY_FIELDS = ("id", "namespace", "kind", "text", "created_at", "confidence", "tags", "source",
                  "salience", "embedding", "valid_from", "valid_to", "slot", "subject", "attribute",
                  "value", "single_valued", "recorded_at")


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Parse a JSONL file of memories; one JSON object per non-blank line.

    Raises
    ------
    InvalidInputError
        A line is not a JSON object (the message names the line), or the file is unreadable.
    """
    return [obj for _, obj in _jsonl_lines(path)]


def _jsonl_lines(path: str | os.PathLike) -> list[tuple[int, dict[str, Any]]]:
    """(line number from 1, object) of each non-blank line of a JSONL file (see :func:`read_jsonl`)."""
    rows = []
    try:
        with open(path, encoding="utf-8-sig") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InvalidInputError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
                if not isinstance(obj, dict):
                    raise InvalidInputError(f"{path}:{lineno}: expected a JSON object per line")
                rows.append((lineno, obj))
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise InvalidInputError(f"{path}: a JSON value is nested too deeply") from None
    return rows


def read_chat(path: str | os.PathLike, session: str | None = None) -> list[dict[str, Any]]:
    """Read chat messages for :meth:`Engram.add_conversation`: a JSON list of message objects,
    JSONL with one message object per line, or OpenAI's ``{"messages": [...]}`` layout (one
    object, or one conversation per JSONL line; each its own session: ``session``, or
    ``"<session>-<line>"`` for several, when given, else ``"<file stem>-<line>"``).

    Returns
    -------
    list of dict
        The messages in file order (not yet validated: ``add_conversation`` checks them).

    Raises
    ------
    InvalidInputError
        Not a JSON list, not JSONL of objects, not UTF-8 or unreadable (the message names the line).
    """
    return read_chat_where(path, session)[0]


def read_chat_where(path: str | os.PathLike, session: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """:func:`read_chat`, with where in the file each message is, so an error about message i
    can name it: ``"<path>:<line>"`` (from 1) for JSONL of messages (blank lines are skipped, so
    line and position differ), ``"<path>[<index>]"`` (from 0) for a JSON list, and
    ``"<path>: messages[<index>]"`` or ``"<path>:<line>: messages[<index>]"`` for OpenAI's
    ``{"messages": [...]}`` layout.

    Returns
    -------
    (list of dict, list of str)
        The messages and their places, in file order.

    Raises
    ------
    InvalidInputError
        As :func:`read_chat`.
    """
    try:
        with open(path, encoding="utf-8-sig") as fh:
            head = fh.read(4096).lstrip()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not head.startswith("["):
        if head.startswith("{") and _openai_layout(path):
            groups = _conversations(path, session)
            return [m for msgs, _ in groups for m in msgs], [w for _, where in groups for w in where]
        rows = _jsonl_lines(path)
        return [obj for _, obj in rows], [f"{path}:{lineno}" for lineno, _ in rows]
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 JSON ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise InvalidInputError(f"{path}: JSON nested too deeply to be a list of messages") from None
    for i, m in enumerate(data):
        if not isinstance(m, dict):
            raise InvalidInputError(f"{path}[{i}]: expected a message object, got {type(m).__name__}")
    return data, [f"{path}[{i}]" for i in range(len(data))]


def _is_openai_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds OpenAI's ``{"messages": [...]}`` layout (:func:`_openai_layout`);
    False for a file that cannot be read (:func:`read_chat_where` says why)."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            head = fh.read(4096).lstrip()
    except (OSError, UnicodeDecodeError):
        return False
    return head.startswith("{") and _openai_layout(path)


def _openai_layout(path: str | os.PathLike) -> bool:
    """Whether a file that opens with ``{`` is OpenAI's ``{"messages": [...]}`` layout: its first
    object (the first non-blank line, or the whole file when that line is no JSON of its own)
    has a ``messages`` list and no ``role`` / ``content`` of a message. (A chat whose first
    message merely says "messages" is JSONL of messages.)"""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            first = next((line for line in fh if line.strip()), "")
            try:
                obj = json.loads(first)
            except json.JSONDecodeError:   # one object over several lines
                fh.seek(0)
                obj = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False   # not this layout: the JSONL reader reports what is wrong
    return (isinstance(obj, dict) and isinstance(obj.get("messages"), list)
            and "role" not in obj and "content" not in obj)


def _conversations(path: str | os.PathLike, session: str | None = None,
                   label: bool = True) -> list[tuple[list[dict[str, Any]], list[str]]]:
    """OpenAI's ``{"messages": [...]}`` layout (one object, or one per JSONL line, as in
    fine-tuning files): each conversation's messages and their places. A conversation is its
    own session unless its messages name one: ``session`` for a file of one conversation,
    ``"<session>-<line>"`` for several; without ``session``, ``"<file stem>-<line>"`` for
    several (``label``), or no label (``label=False``: one ``add_conversation`` per
    conversation then names each by its first message, as it names any unlabelled chat)."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            whole = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read {path}: {exc}") from None
    try:
        docs = [(1, json.loads(whole))]
    except json.JSONDecodeError:
        docs = []
        # lines end at "\n" only: U+2028, U+2029 or U+0085 inside a JSON string (json.dumps with
        # ensure_ascii=False writes them raw) end no line, as str.splitlines would take them to
        for lineno, line in enumerate(whole.split("\n"), 1):
            if line.strip():
                try:
                    docs.append((lineno, json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise InvalidInputError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InvalidInputError(f"{path}: not valid JSON (nested too deep)") from None
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    out: list[tuple[list[dict[str, Any]], list[str]]] = []
    for lineno, doc in docs:
        msgs = doc.get("messages") if isinstance(doc, dict) else None
        if not isinstance(msgs, list) or not all(isinstance(m, dict) for m in msgs):
            raise InvalidInputError(f"{path}:{lineno}: expected {{\"messages\": [message objects]}}")
        if session is not None:
            name = session if len(docs) == 1 else f"{session}-{lineno}"
        else:
            name = f"{stem}-{lineno}" if label and len(docs) > 1 else None
        at = f"{path}:{lineno}" if len(docs) > 1 or lineno > 1 else f"{path}"
        out.append(([m if "session" in m or name is None else {**m, "session": name} for m in msgs],
                    [f"{at}: messages[{j}]" for j in range(len(msgs))]))
    return out


def read_conversations(path: str | os.PathLike,
                       session: str | None = None) -> list[tuple[list[dict[str, Any]], list[str]]]:
    """The conversations of a chat file, each as :func:`read_chat_where` gives a file's
    messages: ``(messages, places)``. OpenAI's ``{"messages": [...]}`` layout gives one per
    object (JSONL line), labelled only with ``session`` (``session``, or ``"<session>-<line>"``
    for several): store each with its own :meth:`Engram.add_conversation`, which names an
    unlabelled one by its first message (its first ``created_at``, or its text), so the file
    renamed, reordered or grown is recognised when stored again. Any other layout is one
    conversation: the whole file.

    Raises
    ------
    InvalidInputError
        As :func:`read_chat`.
    """
    if _is_openai_file(path):
        return _conversations(path, session, label=False)
    return [read_chat_where(path, session)]


def ingest_jsonl(engine: Engram, path: str | os.PathLike, *, namespace: str = "default",
                 progress: bool = True, recorded_at: Any = None) -> dict[str, int]:
    """Ingest memories from JSONL: ``{"id", "namespace", "kind", "text", "created_at", "confidence",
    "tags", "source", "links": [{"to", "relation", "weight"}]}`` per line (also the slot and
    time fields of :meth:`Engram.add`, ``recorded_at`` included).

    ``recorded_at`` (Unix seconds or ISO-8601) is the record time of the lines that give none:
    backfilled history, so that ``recall(as_of=...)`` answers as the store would have then.

    Memories are added first (one transaction per namespace), then every ``links`` entry
    becomes an edge from the line's memory to ``to``, so links may point forward in the file.
    ``id`` is the caller's and is what recall returns. A line without ``id`` is added as
    :meth:`Engram.add_batch` adds an item without one: it gets a random hex id (uuid4, 32
    characters), unless its namespace already holds its text, in which case it is that stored
    memory (its id, reinforced, not stored again). So ingesting the same file again stores no
    copy of an id-less line: it reinforces the memory the first ingest stored. Its ``links``
    start at the id it gets; no other line can link to it (it has no id to name).

    Returns
    -------
    dict
        ``{"memories": n, "edges": m, "new_memories": n', "new_edges": m'}``: the lines and
        links read, and how many of them the store did not hold yet (a line already stored
        reinforces its memory; a link already there is not new, whatever its weight).

    Raises
    ------
    InvalidInputError (and its subclasses), MemoryNotFoundError, NamespaceError
        A bad line: the message names its line; nothing of that namespace is written.
    """
    rows = read_jsonl(path)
    by_ns: dict[str, list[dict]] = defaultdict(list)
    # per namespace: (position of the line's item in by_ns[ns], link spec without its source);
    # the source is the id add_batch gives the item (a line without "id" gets one there)
    links: dict[str, list[tuple[int, Any]]] = defaultdict(list)
    line_of: dict[str, list[int]] = defaultdict(list)   # per namespace: each item's record number
    targets: dict[str, list[tuple[int, str]]] = defaultdict(list)   # per namespace: (record number, link target)
    for lineno, row in enumerate(rows, 1):
        unknown = set(row) - set(_MEMORY_FIELDS) - {"links"}
        if unknown:
            hint = ("; it looks like a chat (role and content): `engramdb ingest-chat` / add_conversation() "
                    "stores chats" if {"role", "content"} <= set(row) or "messages" in row else "")
            raise InvalidInputError(f"{path}: record {lineno}: unknown field(s) {sorted(unknown)}{hint}")
        try:
            ns = check_namespace(namespace if row.get("namespace") is None else row["namespace"])
        except NamespaceError as exc:
            raise NamespaceError(f"{path}: record {lineno}: {exc}") from None
        item = {k: row[k] for k in _MEMORY_FIELDS if k in row}
        item["namespace"] = ns
        at = len(by_ns[ns])
        by_ns[ns].append(item)
        line_of[ns].append(lineno)
        specs = row.get("links") or []
        if not isinstance(specs, list):
            raise InvalidInputError(f"{path}: record {lineno}: \"links\" must be a list")
        for spec in specs:
            try:   # checked before anything is written (the links are made after the memories)
                to, _rel, _w = check_link_spec(spec)
            except EngramError as exc:
                exc.args = (f"{path}: record {lineno}: {exc}", *exc.args[1:])
                raise
            if to == row.get("id"):
                raise InvalidInputError(f"{path}: record {lineno}: cannot link memory {to!r} to itself")
            targets[ns].append((lineno, to))
            if isinstance(spec, dict):
                links[ns].append((at, {("target" if k == "to" else k): v for k, v in spec.items()}))
            else:     # [to, relation, weight], as add(links=...) takes (check_link_spec refused the rest)
                links[ns].append((at, list(spec)))
    for ns, wanted in targets.items():   # a link names a memory of the file or a stored one
        in_file = {item["id"] for item in by_ns[ns] if isinstance(item.get("id"), str)}
        known: dict[str, bool] = {}
        for lineno, to in wanted:
            if to not in in_file and not known.setdefault(to, _stored(engine, ns, to)):
                raise MemoryNotFoundError(f"{path}: record {lineno}: link to {to!r}: no memory {to!r} in namespace "
                                          f"{ns!r} (a link names a memory of the file or one stored already); "
                                          "nothing was written")
    n_mem = n_edge = 0
    stored = engine.stats()["namespaces"]
    before = sum(stored[ns]["memories"] for ns in by_ns if ns in stored)
    new_edges = 0
    for ns, items in by_ns.items():
        try:
            ids = engine.add_batch(items, namespace=ns, progress=progress, recorded_at=recorded_at)
        except EngramError as exc:   # "items[i]: ..." of this namespace's batch: the record's number
            i = getattr(exc, "item_index", None)
            if i is None:
                raise
            message = str(exc).removeprefix(f"items[{i}]: ")
            exc.args = (f"{path}: record {line_of[ns][i]}: {message}", *exc.args[1:])
            raise
        n_mem += len(ids)
        edges = [{"source": ids[at], **spec} if isinstance(spec, dict) else (ids[at], *spec)
                 for at, spec in links[ns]]
        edges_before = engine.n_edges   # the links' own: auto-links of new memories apart
        n_edge += len(engine.link_batch(edges, namespace=ns))
        new_edges += engine.n_edges - edges_before
    stored = engine.stats()["namespaces"]
    new = sum(stored[ns]["memories"] for ns in by_ns if ns in stored) - before
    return {"memories": n_mem, "edges": n_edge, "new_memories": new, "new_edges": new_edges}


def _stored(engine: Engram, namespace: str, ext_id: str) -> bool:
    """Whether ``namespace`` holds memory ``ext_id``."""
    try:
        engine.get(ext_id, namespace=namespace)
    except (MemoryNotFoundError, NamespaceError):
        return False
    return True


def locomo_messages(conv: Conversation) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """A LoCoMo conversation as chat messages for :meth:`Engram.add_conversation`.

    Each turn is ``{"role": "user", "name": speaker, "content": text (plus "[shares a photo of
    <caption>]"), "created_at", "session": "<n>", "id": dia_id}``.

    Returns
    -------
    (list of dict, dict)
        The messages in order, and each session label's title ``"Session <n> of <a> and <b>,
        <date text>"``.
    """
    messages, titles = [], {}
    for sess in conv.sessions:
        label = str(sess.number)
        titles[label] = f"Session {sess.number} of {conv.speakers[0]} and {conv.speakers[1]}, {sess.date_text}"
        for turn in sess.turns:
            text = turn.text
            if turn.blip_caption:
                text += f" [shares a photo of {turn.blip_caption}]"
            messages.append({"role": "user", "name": turn.speaker, "content": text,
                             "created_at": turn.created_at, "session": label, "id": turn.dia_id})
    return messages, titles


def ingest_locomo(engine: Engram, path: str | os.PathLike | None = None, *, progress: bool = True,
                  conversations: list[str] | None = None, entities: bool = True) -> dict[str, int]:
    """Ingest LoCoMo conversations: one namespace per ``sample_id``, each one
    :meth:`Engram.add_conversation` call (its messages: :func:`locomo_messages`).

    Each dialog turn becomes an episodic memory with id and source = its ``dia_id``
    (``D1:3``), text ``"<speaker>: <text>"`` (plus the shared image's caption), event time from
    its session's date, and its speaker (and role ``user``) as tags. Each session becomes an
    episodic memory ``S:<n>`` tagged ``session``. Edges: ``next`` from each turn to the following one,
    ``discussed_in`` from each turn to its session, ``next`` between consecutive sessions, and
    the engine's auto-links above ``LinkConfig.cosine_threshold``. With ``entities``, each
    entity that two or more turns of a conversation name (names, places, dates; see
    :mod:`engramdb.entities`, hubs skipped) becomes a semantic memory ``E:<entity>`` tagged
    ``entity``, with a ``mentions`` edge from each turn naming it. Speakers stay tags, not edges:
    each speaks about half the turns, a hub that the hub rule would skip anyway.

    Parameters
    ----------
    engine : Engram
    path : str or os.PathLike, optional
        ``locomo10.json``; default :func:`engramdb.locomo.default_locomo_path`.
    progress : bool
        Show a progress bar over conversations.
    conversations : list of str, optional
        Only these ``sample_id`` values.
    entities : bool
        Add the entity co-mention layer (default True).

    Returns
    -------
    dict
        ``{"conversations": c, "memories": n, "pieces": p, "edges": m}`` (pieces: the later pieces
        of long turns, counted apart as :meth:`Engram.stats` does).
    """
    convs = load_locomo(path)
    if conversations is not None:
        wanted = set(conversations)
        unknown = wanted - {c.sample_id for c in convs}
        if unknown:
            raise InvalidInputError(f"no conversation {sorted(unknown)} in {path or 'the LoCoMo file'}; "
                                    f"it holds {[c.sample_id for c in convs]}")
        convs = [c for c in convs if c.sample_id in wanted]
    totals = {"conversations": 0, "memories": 0, "pieces": 0, "edges": 0}
    with Progress(disable=not progress, transient=False) as bar:
        task = bar.add_task("ingesting LoCoMo", total=sum(len(s.turns) for c in convs for s in c.sessions))
        for conv in convs:
            messages, titles = locomo_messages(conv)
            edges_before = engine.n_edges
            out = engine.add_conversation(messages, namespace=conv.sample_id, entities=entities,
                                          session_titles=titles, split_roles=())
            totals["conversations"] += 1
            totals["memories"] += out["memories"]
            totals["pieces"] += out["pieces"]
            totals["edges"] += engine.n_edges - edges_before  # typed edges + auto-links
            bar.advance(task, sum(len(s.turns) for s in conv.sessions))
    return totals
