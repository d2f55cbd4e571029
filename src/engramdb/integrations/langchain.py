"""LangGraph and LangChain over engramdb: a LangGraph ``BaseStore`` and a LangChain ``BaseRetriever``.

:class:`EngramStore` is LangGraph's long-term memory store (``graph.compile(store=...)``,
``create_react_agent(..., store=...)``) kept in an engramdb store; :class:`EngramRetriever`
returns engramdb recall hits as LangChain ``Document`` objects, for any LCEL chain.

How a LangGraph item maps to engramdb
-------------------------------------
- **Namespace.** The tuple ``("users", "42", "memories")`` is the engramdb namespace
  ``"users.42.memories"``: the labels joined by ``"."``. LangGraph forbids ``"."`` inside a label
  (``InvalidNamespaceError``), so the rule is one-to-one both ways, and it is the same join that
  LangGraph's own SQL stores use for their namespace prefixes. Every engramdb namespace of the
  store holding a memory is listed by ``list_namespaces`` (``"default"`` is ``("default",)``).
- **Item.** One memory per (namespace, key): its id is the key, its text the value as JSON
  (``json.dumps``, key order kept), its kind ``semantic`` unless the store is told otherwise.
  ``get`` decodes the text, so the value comes back equal to what was put. A value longer than
  ``StoreConfig.chunk_chars`` is refused (engramdb would split it into chunks).
- **Times.** ``created_at`` is the memory's event time (set by the first ``put``, kept by later
  ones); ``updated_at`` the record time of its current version (a ``put`` on an existing key is
  :meth:`Engram.update`, so earlier values stay in ``Engram.history``). Both are aware UTC datetimes.
- **Delete** is ``forget(hard=True)``: the record, its vector and edges are erased.
- **Search** with a ``query`` is engramdb's recall (keyword and vector seeds, spreading activation)
  in every namespace under the prefix, best score first (``SearchItem.score`` is the recall
  score; across namespaces hits are merged by it). Without a query the items are listed newest
  event time first. ``filter`` follows LangGraph's rules (exact match, nested objects and lists,
  ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``) on the value. What is embedded follows
  LangGraph's ``index`` rules: the whole value by default, or the text at the given field paths
  (``fields=`` of the store, or ``index=[...]`` of one ``put``; several texts are joined by
  newlines into the one vector a memory has); ``index=False`` leaves an item out of query search
  (it is listed after the ranked items, without a score, as LangGraph's in-memory store does),
  and so does an item with no text at its index fields that shows anything (a field missing,
  empty, or only whitespace and invisible characters such as U+200B: engramdb's
  ``validate.is_blank``). A query that shows nothing is no query. Searches do not reinforce (a
  store read has no side effect).
- **Independence.** Items never supersede each other: the store refuses an engine whose
  ``LinkConfig.detect_conflicts`` is on or whose ``SlotConfig`` has an extractor (both could
  retire one item because of another's text). :meth:`EngramStore.open` opens a store so.

:func:`langchain_tools` gives the six agent tools of :mod:`engramdb.integrations.tools` as LangChain
``StructuredTool`` objects (same names, descriptions and JSON schemas) for LangChain and LangGraph
agents; an engramdb error becomes LangChain's ``ToolException`` with engramdb's message, which the
tool returns to the model as its result.
- **Other memories.** A memory of the store that is not a JSON object (added through the engine,
  not the store) is not an item: reading it through the store raises ``InvalidInputError``, so
  keep LangGraph items in namespaces of their own.
- **Errors.** engramdb's :class:`NamespaceError` becomes LangGraph's ``InvalidNamespaceError``
  (message kept); other engramdb errors propagate (they derive from ``ValueError`` / ``KeyError``).
  Every op of a batch is checked before its first write, so a rejected batch writes nothing
  (what only a write can find: :meth:`EngramStore.batch`).

Needs the extra ``engramdb[langchain]`` (``langgraph``, ``langchain-core``).
"""
from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Sequence

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import StructuredTool, ToolException
    from langgraph.store.base import (
        BaseStore, GetOp, InvalidNamespaceError, Item, ListNamespacesOp, MatchCondition, Op, PutOp, Result,
        SearchItem, SearchOp, get_text_at_path, tokenize_path, validate_op_namespace,
    )
    from pydantic import ConfigDict, Field, field_validator, model_validator
except ImportError as exc:   # pragma: no cover - exercised only without the extra
    raise ImportError("engramdb.integrations.langchain needs LangGraph and LangChain: "
                      "pip install 'engramdb[langchain]'") from exc

from ..errors import (
    ConfigError, InvalidInputError, MemoryBlockedError, MemoryNotFoundError, NamespaceError, OversizeError,
)
from ..types import MemoryKind, MemoryState
from ..validate import check_id, check_namespace, check_query, check_text, check_user_id, check_vector, is_blank
from .tools import check_recall_arguments, check_recall_kwargs, holds_memories, outdated

if TYPE_CHECKING:
    from ..engine import Engram

__all__ = ["EngramRetriever", "EngramStore", "from_namespace", "hit_document", "langchain_tools", "to_namespace"]

_UNINDEXED = "langgraph:unindexed"   # tag of items put with index=False
_MAX_K = 10_000                      # recall's largest k


def to_namespace(namespace: tuple[str, ...]) -> str:
    """The engramdb namespace of a LangGraph namespace tuple: its labels joined by ``"."``.

    Raises
    ------
    InvalidNamespaceError
        An empty tuple, or a label that is empty, not a string, or holds ``"."`` or NUL.
    """
    validate_op_namespace(GetOp(tuple(namespace), ""))
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    return ".".join(namespace)


def from_namespace(name: str) -> tuple[str, ...]:
    """The LangGraph namespace tuple of an engramdb namespace name (the inverse of :func:`to_namespace`)."""
    return tuple(name.split("."))


def _utc(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def _matches(value: Any, cond: Any) -> bool:
    """LangGraph's filter rule for one field: operators, nested objects, lists, else equality."""
    if isinstance(cond, dict):
        if any(isinstance(k, str) and k.startswith("$") for k in cond):
            return all(_apply(value, op, arg) for op, arg in cond.items())
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in cond.items())
    if isinstance(cond, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(value) == len(cond)
                and all(_matches(v, c) for v, c in zip(value, cond)))
    return value == cond


_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def _unsupported(op: Any) -> InvalidInputError:
    return InvalidInputError(f"filter: unsupported operator {op!r}; expected one of {list(_OPERATORS)}")


def _check_filter(cond: Any) -> None:
    """Refuse an operator :func:`_matches` would not know, wherever it sits in one field's condition
    (checked before a batch writes, and whether or not an item reaches it).

    Raises
    ------
    InvalidInputError
        An unsupported operator, or a comparison (``$gt``, ``$gte``, ``$lt``, ``$lte``) with an
        argument that is no number (LangGraph's rule compares numbers: ``InMemoryStore`` raises
        ValueError for one; matching nothing instead would be a silent wrong answer).
    """
    if isinstance(cond, dict):
        if any(isinstance(k, str) and k.startswith("$") for k in cond):
            bad = [op for op in cond if op not in _OPERATORS]
            if bad:
                raise _unsupported(bad[0])
            for op, arg in cond.items():
                if op not in ("$eq", "$ne") and not _numeric(arg):
                    raise InvalidInputError(f"filter: {op} compares numbers, and {arg!r} is none "
                                            "(LangGraph's filter rules)")
            return   # an operator's argument is a value, not a condition
        for c in cond.values():
            _check_filter(c)
    elif isinstance(cond, (list, tuple)):
        for c in cond:
            _check_filter(c)


def _numeric(x: Any) -> bool:
    """Whether ``float(x)`` reads ``x`` (a number, or a string of one), as LangGraph compares."""
    if isinstance(x, bool):
        return True
    try:
        float(x)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _apply(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return value == arg
    if op == "$ne":
        return value != arg
    if op not in _OPERATORS:
        raise _unsupported(op)
    try:
        a, b = float(value), float(arg)
    except (TypeError, ValueError, OverflowError):
        return False   # an item whose field is missing or no number does not match a comparison
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _passes(value: dict, flt: Mapping[str, Any] | None) -> bool:
    return not flt or all(_matches(value.get(k), c) for k, c in flt.items())


def _query(query: Any) -> Any:
    """A search's query, or None for none: a query that shows nothing (empty, whitespace, only
    invisible characters, :func:`engramdb.validate.is_blank`) is no query, as ``""`` is."""
    return None if query is None or (isinstance(query, str) and is_blank(query)) else query


def _json_object(text: str) -> dict | None:
    """The JSON object ``text`` holds (a LangGraph item's value), or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _is_id(key: Any) -> bool:
    """Whether ``key`` is an id engramdb can hold (a key it refuses can name no item)."""
    try:
        check_id(key)
    except InvalidInputError:
        return False
    return True


@dataclass(slots=True)
class _Put:
    """One checked put of a batch: a delete when ``text`` is None.

    Attributes
    ----------
    ns : str
        engramdb namespace.
    key : str
        The item's key, the memory's id.
    text : str or None
        The value as JSON, the memory's text.
    indexed : bool
        Found by query search (else tagged ``langgraph:unindexed``).
    embed_text : str or None
        What the vector embeds: the index fields' text, or the JSON.
    vector : ndarray of float32, shape (dim,), or None
        The embedder's output for ``embed_text``.
    """

    ns: str
    key: str
    text: str | None = None
    indexed: bool = True
    embed_text: str | None = None
    vector: Any = None

    @property
    def tags(self) -> list[str]:
        return [] if self.indexed else [_UNINDEXED]


class EngramStore(BaseStore):
    """LangGraph's ``BaseStore`` kept in an engramdb store (mapping: module docstring).

    Parameters
    ----------
    engram : Engram
        An open store, with ``LinkConfig(detect_conflicts=False)`` and no slot extractor (items
        are independent); :meth:`open` opens one so. The caller closes it.
    kind : str
        Memory kind of the items (default ``semantic``: facts and preferences, which decay slowest).
    fields : list of str, optional
        LangGraph ``IndexConfig["fields"]``: JSON paths of the text to embed (``"text"``,
        ``"a.b[*].c"``); the whole value when omitted (LangGraph's ``["$"]``).

    Raises
    ------
    ConfigError
        The engine could supersede one item because of another (conflict detection or a slot
        extractor is on).
    UnknownKindError
        ``kind`` is not a memory kind.

    References
    ----------
    LangGraph ``langgraph.store.base.BaseStore`` (``batch`` / ``abatch`` over ``GetOp``,
    ``PutOp``, ``SearchOp``, ``ListNamespacesOp``).
    """

    __slots__ = ("engram", "fields", "kind")

    def __init__(self, engram: Engram, *, kind: str = "semantic", fields: list[str] | None = None):
        cfg = engram.config
        if cfg.link.detect_conflicts or cfg.slots.extractor is not None:
            raise ConfigError(
                "EngramStore needs items that never supersede each other: open the store with "
                "EngramConfig(link=LinkConfig(detect_conflicts=False)) and no SlotConfig extractor "
                "(EngramStore.open(path) does)")
        MemoryKind.parse(kind)
        self.engram = engram
        self.kind = kind
        self.fields = None if fields is None or fields == ["$"] else [(f, tokenize_path(f)) for f in fields]

    @classmethod
    def open(cls, path: str | os.PathLike, *, kind: str = "semantic", fields: list[str] | None = None,
             **open_kwargs: Any) -> EngramStore:
        """Open (or create) the engramdb store at ``path`` for LangGraph items and wrap it.

        Parameters
        ----------
        path : str or os.PathLike
        kind, fields
            As for the constructor.
        **open_kwargs
            Further arguments of :func:`engramdb.open` (``embedder``, ``dim``, ``config``, ...);
            the config's conflict detection is turned off.

        Returns
        -------
        EngramStore
            Close its ``engram`` when done.
        """
        from .. import engine
        from ..config import EngramConfig

        config = open_kwargs.pop("config", None) or EngramConfig()
        config = replace(config, link=replace(config.link, detect_conflicts=False))
        return cls(engine.open(path, config=config, **open_kwargs), kind=kind, fields=fields)

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; results in the same order (None for puts and deletes).

        Consecutive puts are applied together, the last put of a (namespace, key) winning, as
        in LangGraph's stores; a later op sees them.

        A rejected batch writes nothing. Before the first write every op is checked: namespaces,
        keys (an id engramdb accepts from a caller), values (a dict, JSON-serializable, at most
        ``StoreConfig.chunk_chars`` characters as JSON, valid Unicode), the texts to embed (all
        embedded here, in one call), search queries and filter operators, namespace match
        types, and the keys the puts overwrite (not hidden by a ``block`` censor rule, not
        superseded, a LangGraph item and not stored in pieces), following the batch's own
        earlier puts and deletes. Then each run of puts is written: its new items in one
        transaction (:meth:`Engram.add_batch`, all or none), then each update
        (:meth:`Engram.update`) and each delete (``forget(hard=True)``) in a transaction of its
        own. What can still fail once writing has begun, leaving the writes before it in place,
        is what only the write itself finds: an ``absolute`` censor rule matching an updated
        value (``CensoredError``; one matching a new item rejects its run's new items, written
        first, and nothing else of the run), a ``block`` rule that hides an item the batch wrote
        before a later run updates it (``MemoryBlockedError``), LMDB failing (``StoreFullError``,
        ``StoreError``), and another thread or process changing the same keys between the checks
        and the writes.

        Raises
        ------
        InvalidNamespaceError
            A bad namespace label, or an engramdb :class:`NamespaceError` (e.g. a name over 256
            characters).
        InvalidInputError, OversizeError
            A value that is not a JSON-serializable dict, or longer than
            ``StoreConfig.chunk_chars`` as JSON; a key engramdb refuses (empty, over 512
            characters, or of a form it reserves, e.g. ``"a#1"``); an unsupported filter operator
            or namespace match type; a query over ``StoreConfig.max_text_chars``; a put over a
            memory that is not a LangGraph item or is superseded; no embedder; an unknown op.
        MemoryBlockedError
            A put over an item that a ``block`` censor rule hides (a delete erases it).
        CensoredError, StoreError
            At write time, as above.
        """
        ops = list(ops)
        try:
            steps = self._plan(ops)
            results: list[Result] = [None] * len(ops)
            for i, step in steps:
                if isinstance(step, list):
                    self._write(step)
                elif isinstance(step, GetOp):
                    results[i] = self._get(step)
                elif isinstance(step, SearchOp):
                    results[i] = self._search(step)
                else:
                    results[i] = self._list_namespaces(step)
        except NamespaceError as exc:
            raise InvalidNamespaceError(str(exc)) from exc
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (the engine is thread-safe; the event loop keeps running)."""
        ops = list(ops)
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, ops)

    # ------------------------------------------------------------------ checks before any write
    def _plan(self, ops: list[Op]) -> list[tuple[int, Any]]:
        """The batch as steps: ``(op index, op)`` for a read, ``(index of its first put, [(_Put,
        exists)])`` for a run of puts; everything that can be checked without writing checked.

        Raises
        ------
        The errors of :meth:`batch`, except those only a write finds.
        """
        steps: list[tuple[int, Any]] = []   # a read op, or the number of a run of puts
        runs: list[dict[tuple[str, str], _Put]] = []
        for i, op in enumerate(ops):
            validate_op_namespace(op)
            if isinstance(op, PutOp):
                put = self._checked_put(op)
                if not steps or not isinstance(steps[-1][1], int):
                    steps.append((i, len(runs)))
                    runs.append({})
                runs[-1][(put.ns, put.key)] = put   # the last put of a key wins
                continue
            if isinstance(op, SearchOp):
                self._check_search(op)
            elif isinstance(op, ListNamespacesOp):
                for cond in op.match_conditions or ():
                    _check_match_type(cond)
            elif not isinstance(op, GetOp):
                raise InvalidInputError(f"unknown LangGraph store operation {type(op).__name__}")
            steps.append((i, op))
        puts = [list(run.values()) for run in runs]
        self._embed_all([p for run in puts for p in run])
        rows = self._existence(puts)
        return [(i, rows[step] if isinstance(step, int) else step) for i, step in steps]

    def _checked_put(self, op: PutOp) -> _Put:
        """A put's namespace, key and value checked, its JSON text made; a delete when ``value`` is None."""
        ns = check_namespace(to_namespace(op.namespace))
        if op.value is None:
            return _Put(ns, op.key)
        check_user_id(op.key, "key")
        if not isinstance(op.value, Mapping):
            raise InvalidInputError(f"value of {op.key!r}: a LangGraph value must be a dict, "
                                    f"got {type(op.value).__name__}")
        try:
            text = json.dumps(dict(op.value), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"value of {op.key!r}: a LangGraph value must be JSON-serializable: "
                                    f"{exc}") from exc
        limit = self.engram.config.store.chunk_chars
        if len(text) > limit:
            raise OversizeError(f"value of {op.key!r} is {len(text)} characters as JSON, more than "
                                f"StoreConfig.chunk_chars ({limit}) that one memory holds unsplit; "
                                "open the store with a larger chunk_chars")
        check_text(text, self.engram.config.store.max_text_chars, f"value of {op.key!r}")
        found = self._index_text(op.value, op.index, text)
        return _Put(ns, op.key, text, indexed=found is not None, embed_text=text if found is None else found)

    def _index_text(self, value: Mapping[str, Any], index: Any, whole: str) -> str | None:
        """The text an item is found by in query search: ``whole`` (the value as JSON), or the
        texts at the index fields joined by newlines; None when it is left out of query search
        (``index=False``, or no text that shows anything at its fields: missing, empty or only
        whitespace and invisible characters, :func:`engramdb.validate.is_blank`; the memory's
        vector then embeds the JSON)."""
        if index is False:
            return None
        paths = self.fields if index is None else [(f, tokenize_path(f)) for f in index]
        if paths is None or index == ["$"]:
            return whole
        texts = [t for _, path in paths for t in get_text_at_path(value, path)
                 if isinstance(t, str) and not is_blank(t)]
        return "\n".join(texts) if texts else None

    def _embed_all(self, puts: list[_Put]) -> None:
        """Every put's vector, in one embedder call, checked (the engine normalises it).

        Raises
        ------
        InvalidInputError
            The store has no embedder.
        DimensionMismatchError, NonFiniteError
            The embedder's output is unusable.
        """
        todo = [p for p in puts if p.text is not None]
        if not todo:
            return
        eng = self.engram
        if eng.embedder is None:
            raise InvalidInputError("this store has no embedder: LangGraph values cannot be embedded; "
                                    "open it with embedder=")
        vectors = eng.embedder.embed([p.embed_text for p in todo])
        if len(vectors) != len(todo):
            raise InvalidInputError(f"embedder output: {len(vectors)} vectors for {len(todo)} texts")
        for p, v in zip(todo, vectors):
            check_vector(v, eng.dim, field="embedder output")
            p.vector = v   # as the embedder gave it: the engine normalises it as its own embedding

    def _existence(self, runs: list[list[_Put]]) -> list[list[tuple[_Put, bool]]]:
        """Each run's puts with whether the key holds an item when the run is written (following
        the batch's earlier runs), the keys a put overwrites checked.

        Raises
        ------
        MemoryBlockedError
            A put over an item a censor rule hides.
        InvalidInputError
            A put over a memory that is superseded, not a LangGraph item, or stored in pieces.
        """
        spaces = set(self.engram.namespaces())
        after: dict[tuple[str, str], bool] = {}   # (namespace, key) -> holds an item after the runs so far
        planned = []
        for run in runs:
            rows = []
            for put in run:
                key = (put.ns, put.key)
                rows.append((put, after[key] if key in after else self._stored(put, spaces)))
                after[key] = put.text is not None
            planned.append(rows)
        return planned

    def _stored(self, put: _Put, spaces: set[str]) -> bool:
        """Whether ``put``'s key holds a memory now (``spaces``: the store's namespaces); a put
        over it checked (see :meth:`_existence`)."""
        eng = self.engram
        if put.ns not in spaces or not _is_id(put.key):
            return False
        try:
            mem = eng.get(put.key, namespace=put.ns)
        except MemoryBlockedError:
            if put.text is None:
                return True   # forget erases a hidden memory
            raise
        except MemoryNotFoundError:
            return False
        if put.text is None:
            return True
        where = f"memory {put.key!r} in namespace {put.ns!r}"
        if mem.state is MemoryState.SUPERSEDED:
            raise InvalidInputError(f"{where} is superseded by {mem.superseded_by!r}: not a LangGraph item this "
                                    "store can update")
        if _json_object(mem.text) is None:
            raise InvalidInputError(f"{where} is not a LangGraph item (its text is not a JSON object), and a put "
                                    "would overwrite it: keep LangGraph items in namespaces of their own")
        pieces = [i for i in (f"{put.key}#1", f"{put.key}#p1") if _is_id(i)]   # the ids of a long memory's pieces
        if any(self._holds(put.ns, i) for i in pieces):
            raise InvalidInputError(f"{where} is stored in pieces (added through the engine, longer than "
                                    "StoreConfig.chunk_chars): a put cannot update it; delete it first")
        return True

    def _holds(self, ns: str, id: str) -> bool:
        try:
            self.engram.get(id, namespace=ns)
        except MemoryNotFoundError:
            return False
        return True

    def _check_search(self, op: SearchOp) -> None:
        """A search's query (unless blank: no query) and filter operators.

        Raises
        ------
        InvalidInputError, OversizeError
        """
        if _query(op.query) is not None:
            check_query(op.query, self.engram.config.store.max_text_chars)
        for cond in (op.filter or {}).values():
            _check_filter(cond)

    # ------------------------------------------------------------------ the operations
    def _item(self, mem: Any, namespace: tuple[str, ...], score: float | None = None,
              search: bool = False) -> Item:
        updated = mem.recorded_at
        if mem.version > 1:   # the record time of the current version
            updated = self.engram.history(mem.id, namespace=mem.namespace)[-1].recorded_at
        value = _json_object(mem.text)
        if value is None:
            raise InvalidInputError(f"memory {mem.id!r} in namespace {mem.namespace!r} is not a LangGraph item "
                                    "(its text is not a JSON object): keep LangGraph items in namespaces of their own")
        fields = dict(value=value, key=mem.id, namespace=namespace, created_at=_utc(mem.created_at),
                      updated_at=_utc(updated))
        return SearchItem(score=score, **fields) if search else Item(**fields)

    def _get(self, op: GetOp) -> Item | None:
        ns = to_namespace(op.namespace)
        if ns not in self.engram.namespaces() or not _is_id(op.key):   # a key no put accepts: no item
            return None
        try:
            mem = self.engram.get(op.key, namespace=ns)
        except MemoryNotFoundError:
            return None
        return self._item(mem, tuple(op.namespace))

    def _write(self, run: list[tuple[_Put, bool]]) -> None:
        """Write one run of checked puts: new items in one transaction, then updates, then deletes."""
        eng = self.engram
        new = [{"text": p.text, "id": p.key, "namespace": p.ns, "kind": self.kind, "embedding": p.vector,
                "tags": p.tags} for p, exists in run if p.text is not None and not exists]
        if new:
            eng.add_batch(new)
        for p, exists in run:
            if p.text is not None and exists:
                eng.update(p.key, namespace=p.ns, text=p.text, embedding=p.vector, tags=p.tags)
        for p, exists in run:
            if p.text is None and exists:
                eng.forget(p.key, namespace=p.ns, hard=True)

    def _spaces(self, prefix: tuple[str, ...]) -> list[str]:
        n = len(prefix)
        return [ns for ns in self.engram.namespaces() if from_namespace(ns)[:n] == tuple(prefix)]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        spaces = self._spaces(op.namespace_prefix)
        want = max(op.offset, 0) + max(op.limit, 0)
        if not spaces or want == 0:
            return []
        if _query(op.query) is not None:
            return self._ranked(op, spaces, want)[op.offset:op.offset + op.limit]
        rows = []
        for ns in spaces:
            mems = self.engram.query(namespace=ns, include_archived=True, include_superseded=True,
                                     order="event_time_desc", limit=100_000 if op.filter else want)
            rows.extend((m, ns) for m in mems)
        rows.sort(key=lambda r: -r[0].created_at)
        out = []
        for mem, ns in rows:
            item = self._item(mem, from_namespace(ns), search=True)
            if _passes(item.value, op.filter):
                out.append(item)
                if len(out) >= want:
                    break
        return out[op.offset:op.offset + op.limit]

    def _ranked(self, op: SearchOp, spaces: list[str], want: int) -> list[SearchItem]:
        """Recall in each namespace, widening k until ``want`` items pass the filter or the
        namespaces are exhausted; then the unindexed items, without a score."""
        k = min(max(want, 10) * (4 if op.filter else 1), _MAX_K)
        while True:
            scored, full = [], False
            for ns in spaces:
                res = self.engram.recall(op.query, namespace=ns, k=k, include_archived=True,
                                         include_superseded=True, reinforce=False)
                full |= len(res.hits) == k
                for hit in res.hits:
                    if _UNINDEXED in hit.tags:
                        continue
                    item = self._item(self.engram.get(hit.id, namespace=ns), from_namespace(ns), hit.score, True)
                    if _passes(item.value, op.filter):
                        scored.append(item)
            if len(scored) >= want or not full or k >= _MAX_K:
                break
            k = min(k * 4, _MAX_K)
        scored.sort(key=lambda it: -it.score)
        if len(scored) < want:
            for ns in spaces:
                for mem in self.engram.query(namespace=ns, tags=[_UNINDEXED], include_archived=True,
                                             include_superseded=True, limit=100_000):
                    item = self._item(mem, from_namespace(ns), None, True)
                    if _passes(item.value, op.filter):
                        scored.append(item)
        return scored

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        names = [from_namespace(ns) for ns in self.engram.namespaces()]
        for cond in op.match_conditions or ():
            names = [ns for ns in names if _namespace_matches(cond, ns)]
        if op.max_depth is not None:
            names = {ns[:op.max_depth] for ns in names}
        return sorted(names)[op.offset:op.offset + op.limit]


def _namespace_matches(cond: MatchCondition, ns: tuple[str, ...]) -> bool:
    """A LangGraph namespace condition: ``prefix`` or ``suffix`` path, ``"*"`` matching any one label."""
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    _check_match_type(cond)
    pairs = zip(ns, path) if cond.match_type == "prefix" else zip(reversed(ns), reversed(path))
    return all(p == "*" or a == p for a, p in pairs)


def _check_match_type(cond: MatchCondition) -> None:
    """Raises InvalidInputError unless the condition's match type is ``prefix`` or ``suffix``."""
    if cond.match_type not in ("prefix", "suffix"):
        raise InvalidInputError(f"namespace match type must be 'prefix' or 'suffix', got {cond.match_type!r}")


# ---------------------------------------------------------------------------- retriever
def hit_document(hit: Any, namespace: str, later: Sequence[str] = ()) -> Document:
    """A LangChain ``Document`` of one recall hit: its text, and metadata ``id``, ``namespace``,
    ``kind``, ``score``, ``relevance`` (in [0, 1]), ``path`` (``[{"id", "relation", "forward"}]``,
    seed first), ``created_at`` (Unix seconds), ``date`` (ISO-8601 UTC), ``tags``, ``source``,
    ``confidence``, ``state`` and ``said_otherwise_later_in``: ``later``, the ids of the memories
    the recall warned say otherwise later (:func:`engramdb.integrations.tools.outdated`; empty
    for a value that holds)."""
    d = hit.to_dict()
    return Document(page_content=hit.text, id=hit.id, metadata={
        "id": hit.id, "namespace": namespace, "kind": d["kind"], "score": d["score"], "relevance": d["relevance"],
        "path": d["path"], "created_at": hit.created_at,
        "date": _utc(hit.created_at).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "tags": d["tags"], "source": hit.source, "confidence": hit.confidence, "state": d["state"],
        "said_otherwise_later_in": list(later)})


class EngramRetriever(BaseRetriever):
    """A LangChain retriever over engramdb recall: ``Document`` objects, best first.

    Attributes
    ----------
    engram : Engram
        An open store.
    namespace : str
        Where to recall.
    k : int
        Number of documents, 1..10000.
    recall_kwargs : dict
        Further arguments of :meth:`Engram.recall` (``kinds``, ``tags``, ``since``, ``as_of``,
        ``valid_at``, ``now``, ``reinforce``, ...). They may also be given as keywords, as the
        LlamaIndex retriever takes them (``EngramRetriever(engram=mem, valid_at=...)``), but
        ``tags`` and ``metadata``, which are ``BaseRetriever``'s own (LangChain's callback tags):
        recall's ``tags`` filter goes in ``recall_kwargs``. A call may give them too, for that
        call only: ``retriever.invoke(question, now=...)``.

    A namespace that holds no memory yet (a new user's) answers no documents, as the agent
    tools do (:mod:`engramdb.integrations.tools`), and no message names another namespace.

    Raises
    ------
    NamespaceError
        On construction, for a namespace name that is not valid (engramdb's own check).
    InvalidInputError
        On construction (a ``pydantic.ValidationError``, a ``ValueError``) or at a call, for a
        keyword that is neither the retriever's nor recall's (pydantic dropped such a keyword
        without a word: helper-221), or a recall argument given twice.
    EngramError
        From the recall, with engramdb's message; LangChain passes it to the chain's caller.

    References
    ----------
    ``langchain_core.retrievers.BaseRetriever``; metadata: :func:`hit_document`.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engram: Any
    namespace: str = "default"
    k: int = 4
    recall_kwargs: dict = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _recall_arguments_as_keywords(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        given = {name: value for name, value in data.items() if name not in cls.model_fields}
        if not given:
            return data
        out = {name: value for name, value in data.items() if name in cls.model_fields}
        out["recall_kwargs"] = _joined(out.get("recall_kwargs"), check_recall_kwargs(given))
        return out

    @field_validator("namespace", mode="before")
    @classmethod
    def _valid_namespace(cls, value: Any) -> str:
        return check_namespace(value)

    @field_validator("recall_kwargs", mode="before")
    @classmethod
    def _known_recall_kwargs(cls, value: Any) -> dict:
        return check_recall_kwargs(value) if isinstance(value, Mapping) else value

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        args = _joined(self.recall_kwargs, check_recall_kwargs(kwargs)) if kwargs else self.recall_kwargs
        if not holds_memories(self.engram, self.namespace):   # a new user: nothing to recall yet
            check_recall_arguments(self.engram, query, k=self.k, **args)
            return []
        res = self.engram.recall(query, namespace=self.namespace, k=self.k, **args)
        later = outdated(self.engram, res, self.namespace)
        return [hit_document(h, self.namespace, later.get(h.id, ())) for h in res.hits]



def _joined(kwargs: Mapping[str, Any] | None, more: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` (recall arguments, or None) with ``more`` added; a name in both is refused
    (:class:`InvalidInputError`): which one counts would be a guess."""
    base = dict(kwargs or {})
    both = sorted(set(base) & set(more))
    if both:
        raise InvalidInputError(f"recall argument(s) {both} given twice: once in recall_kwargs, once as a keyword")
    base.update(more)
    return base


# ---------------------------------------------------------------------------- agent tools
def langchain_tools(engram: Engram, *, namespace: str = "default", read_only: bool = False,
                    now: Any = None) -> list[StructuredTool]:
    """The agent tools of :mod:`engramdb.integrations.tools` as LangChain ``StructuredTool`` objects.

    Parameters
    ----------
    engram : Engram
        An open store.
    namespace : str
        The namespace every call works in.
    read_only : bool
        Only the reading tools (``recall``, ``context``, ``history``).
    now : time, zero-argument callable or None
        The time of each call (:func:`engramdb.integrations.tools.dispatch`), or a callable read
        at each call (the clock of a replayed conversation); default the store's clock.

    Returns
    -------
    list of StructuredTool
        ``args_schema`` is the tool's JSON Schema; a call returns the result as JSON. An
        :class:`engramdb.EngramError` is raised as ``ToolException("<ErrorClass>: <message>")``
        and, with ``handle_tool_error=True`` (set here), returned to the model as the tool's output.

    Raises
    ------
    NamespaceError
        ``namespace`` is not a valid name (engramdb's own check).
    """
    from .tools import call_tool, tools

    check_namespace(namespace)

    def make(name: str):
        def run(**arguments: Any) -> str:
            out = call_tool(engram, name, arguments, namespace=namespace, read_only=read_only,
                            now=now() if callable(now) else now)
            if out.is_error:
                raise ToolException(out.text)
            return out.text
        return run

    return [StructuredTool.from_function(make(t.name), name=t.name, description=t.description,
                                         args_schema=dict(t.parameters), infer_schema=False,
                                         handle_tool_error=True)
            for t in tools(read_only=read_only)]
