"""LlamaIndex over engramdb: a retriever of ``NodeWithScore`` and a memory block for agents.

- :class:`EngramRetriever` is a ``llama_index.core.retrievers.BaseRetriever``: engramdb recall
  hits become ``TextNode`` objects (node id = memory id) scored by the recall score, for a
  ``RetrieverQueryEngine`` or any other LlamaIndex pipeline.
- :class:`EngramMemoryBlock` is a ``llama_index.core.memory.BaseMemoryBlock[str]`` for
  ``llama_index.core.memory.Memory`` (and so for LlamaIndex agents and chat engines): on each turn
  it returns :meth:`Engram.context` for the latest user message, a Markdown block within its token
  budget that ``Memory`` places in the system message; messages that ``Memory`` flushes out of its
  short-term queue are stored as episodic memories (one per message, its role as a tag and the
  chat session as its source).

Errors are engramdb's own (:class:`engramdb.EngramError`, message kept); LlamaIndex passes them to
the caller. Needs the extra ``engramdb[llamaindex]`` (``llama-index-core``).
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Sequence

try:
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.bridge.pydantic import Field, field_validator
    from llama_index.core.memory import BaseMemoryBlock
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
    from llama_index.core.storage.chat_store.sql import MessageStatus
except ImportError as exc:   # pragma: no cover - exercised only without the extra
    raise ImportError("engramdb.integrations.llamaindex needs LlamaIndex: pip install 'engramdb[llamaindex]'") from exc

from ..validate import check_namespace, is_blank
from .tools import check_recall_arguments, check_recall_kwargs, holds_memories, outdated

if TYPE_CHECKING:
    from ..engine import Engram

__all__ = ["EngramMemoryBlock", "EngramRetriever", "hit_node"]


def hit_node(hit: Any, namespace: str, later: Sequence[str] = ()) -> NodeWithScore:
    """A ``NodeWithScore`` of one recall hit: a ``TextNode`` (id = memory id, text) with metadata
    ``namespace``, ``kind``, ``relevance`` (in [0, 1]), ``path`` (ids seed first, as
    ``"relation:id"`` past the seed), ``created_at`` (Unix seconds), ``date`` (ISO-8601 UTC),
    ``tags``, ``source`` and, for a value said otherwise later (``later``: the ids of the
    memories the recall warned say so, :func:`engramdb.integrations.tools.outdated`),
    ``said_otherwise_later_in``; the LLM is shown ``date`` and that; score = the recall score."""
    path = [s.id if s.relation is None else f"{s.relation.value}:{s.id}" for s in hit.path]
    date = datetime.fromtimestamp(hit.created_at, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    node = TextNode(id_=hit.id, text=hit.text, metadata={
        "namespace": namespace, "kind": hit.kind.value, "relevance": round(float(hit.relevance), 6),
        "path": path, "created_at": hit.created_at, "date": date, "tags": list(hit.tags), "source": hit.source,
        **({"said_otherwise_later_in": ", ".join(later)} if later else {})})
    # what the LLM and the embedding see of the metadata: the date and whether a later memory
    # says otherwise (the rest is for the caller)
    node.excluded_llm_metadata_keys = [k for k in node.metadata if k not in ("date", "said_otherwise_later_in")]
    node.excluded_embed_metadata_keys = [k for k in node.metadata if k != "date"]
    return NodeWithScore(node=node, score=float(hit.score))


class EngramRetriever(BaseRetriever):
    """A LlamaIndex retriever over engramdb recall.

    Parameters
    ----------
    engram : Engram
        An open store.
    namespace : str
        Where to recall.
    k : int
        Number of nodes, 1..10000.
    **recall_kwargs
        Further arguments of :meth:`Engram.recall` (``kinds``, ``tags``, ``since``, ``as_of``,
        ``valid_at``, ``reinforce``, ...).

    A namespace that holds no memory yet (a new user's) answers no nodes, as the agent tools
    do (:mod:`engramdb.integrations.tools`), and no message names another namespace.

    Raises
    ------
    NamespaceError
        Here, for a namespace name that is not valid (engramdb's own check).
    EngramError
        From the recall, with engramdb's message.

    References
    ----------
    ``llama_index.core.base.base_retriever.BaseRetriever``; node contents: :func:`hit_node`.
    """

    def __init__(self, engram: Engram, *, namespace: str = "default", k: int = 4, **recall_kwargs: Any):
        check_namespace(namespace)
        recall_kwargs = check_recall_kwargs(recall_kwargs)
        super().__init__()
        self.engram, self.namespace, self.k, self.recall_kwargs = engram, namespace, k, recall_kwargs

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if not holds_memories(self.engram, self.namespace):   # a new user: nothing to recall yet
            check_recall_arguments(self.engram, query_bundle.query_str, k=self.k, **self.recall_kwargs)
            return []
        res = self.engram.recall(query_bundle.query_str, namespace=self.namespace, k=self.k, **self.recall_kwargs)
        later = outdated(self.engram, res, self.namespace)
        return [hit_node(h, self.namespace, later.get(h.id, ())) for h in res.hits]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await asyncio.to_thread(self._retrieve, query_bundle)


def _text(message: ChatMessage) -> str:
    """The message's text blocks joined; ``""`` when they show nothing (engramdb's own blank test,
    :func:`engramdb.validate.is_blank`: whitespace and invisible characters such as U+200B), so a
    blank message is skipped like an empty one, as a query and when stored."""
    text = "\n".join(b.text for b in message.blocks if getattr(b, "block_type", None) == "text"
                      and getattr(b, "text", None)).strip()
    return "" if is_blank(text) else text


class EngramMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory for LlamaIndex's ``Memory``: engramdb's context block for each turn.

    Attributes
    ----------
    engram : Engram
        An open store.
    namespace : str
        The agent's or user's namespace.
    budget_tokens : int or None
        Token budget of the block (:meth:`Engram.context`; the frame's default when None).
    frame : str
        Context frame (``conversation``, ``question``, ``task``, ...).
    kind : str
        Memory kind of the stored messages (default ``episodic``).
    count_tokens : callable str -> int, optional
        Token counter for the budget (default: characters / 4).
    now : time, zero-argument callable or None
        The time of each call (Unix seconds, ISO-8601 or a datetime), or a callable read at each
        call (the clock of a replayed conversation): the block answers as of it
        (:meth:`Engram.context`'s ``now``) and dates the messages it stores it. Default the
        store's clock.
    name, description, priority, accept_short_term_memory
        As for ``BaseMemoryBlock`` (priority 0: ``Memory`` never truncates the block; it keeps
        its own budget).

    Raises
    ------
    NamespaceError
        On construction, for a namespace name that is not valid (engramdb's own check).

    Notes
    -----
    ``Memory`` hands a block only the messages it flushes, once its chat history passes
    ``token_limit`` x ``chat_history_token_ratio`` (30,000 x 0.7 tokens by default): a short
    session is never flushed, and what it said is lost when it ends. Call :meth:`end_session`
    (or ``await`` :meth:`aend_session`) at the end of each session to store what ``Memory`` still
    holds (helper-221).
    Before the namespace holds any memory the block is empty (``Memory`` then leaves it out).
    A message that shows nothing (empty, whitespace, only invisible characters such as U+200B)
    is never the query and is not stored. Engine calls run in a worker thread.

    References
    ----------
    ``llama_index.core.memory.memory.BaseMemoryBlock`` (``_aget`` / ``_aput``); engramdb
    :meth:`Engram.context` (DESIGN.md "Context assembly").
    """

    name: str = Field(default="engramdb", description="The name of the memory block.")
    engram: Any = Field(description="An open engramdb store (engramdb.open).")
    namespace: str = Field(default="default", description="The engramdb namespace.")
    budget_tokens: int | None = Field(default=None, description="Token budget of the context block.")
    frame: str = Field(default="conversation", description="engramdb context frame.")
    kind: str = Field(default="episodic", description="Memory kind of stored messages.")
    count_tokens: Callable[[str], int] | None = Field(default=None, description="Token counter.")
    now: Any = Field(default=None, description="The time of each call, or a zero-argument callable read at "
                                               "each call; default the store's clock.")

    @field_validator("namespace", mode="before")
    @classmethod
    def _valid_namespace(cls, value: Any) -> str:
        return check_namespace(value)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        messages = messages or []
        query = next((t for m in reversed(messages) if str(m.role.value) == "user" and (t := _text(m))), "")
        if not query:
            query = next((t for m in reversed(messages) if (t := _text(m))), "")
        if not query:
            return ""

        def run() -> str:
            if not holds_memories(self.engram, self.namespace):
                return ""
            return self.engram.context(query, namespace=self.namespace, budget_tokens=self.budget_tokens,
                                       frame=self.frame, count_tokens=self.count_tokens, now=self._now()).text

        return await asyncio.to_thread(run)

    def _now(self) -> Any:
        """The time of this call: ``now``, or what it returns when it is a callable."""
        return self.now() if callable(self.now) else self.now

    async def aend_session(self, memory: Any) -> int:
        """Store the messages ``memory`` (a LlamaIndex ``Memory`` that holds this block) has not
        flushed yet, and archive them there as its own flush does: the end of a session. They
        are stored once (a later flush of ``memory`` no longer holds them); ``memory``'s chat
        history then starts empty, its archived messages kept in its store.

        Returns
        -------
        int
            Messages handed to the block (those that show nothing are skipped, as in a flush).

        Raises
        ------
        EngramError
            Those of :meth:`Engram.add_batch`; nothing is stored then, and ``memory`` keeps its
            messages.
        """
        active = await memory.aget_all(status=MessageStatus.ACTIVE)
        if active:
            await self.aput(active, from_short_term_memory=True, session_id=memory.session_id)
            await memory.sql_store.archive_oldest_messages(memory.session_id, n=len(active))
        return len(active)

    def end_session(self, memory: Any) -> int:
        """:meth:`aend_session`, for code that runs no event loop (``Memory.put`` and
        ``SimpleChatEngine.chat`` callers)."""
        return asyncio.run(self.aend_session(memory))

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Store ``messages`` as memories of ``kind`` in one :meth:`Engram.add_batch` (all or none),
        tagged with their role; a message that shows nothing is skipped.

        Raises
        ------
        EngramError
            Those of :meth:`Engram.add_batch` (e.g. ``OversizeError`` for a message over
            ``StoreConfig.max_text_chars``); nothing of the flush is then stored.
        """
        items = []
        now = self._now()
        for m in messages:
            text = _text(m)
            if text:
                session = m.additional_kwargs.get("session_id")
                items.append({"text": text, "kind": self.kind, "tags": [str(m.role.value)],
                              "source": None if session is None else str(session),
                              **({} if now is None else {"created_at": now})})
        if items:
            await asyncio.to_thread(self.engram.add_batch, items, namespace=self.namespace)
