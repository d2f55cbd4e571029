"""Structured queries beside similarity: filter and order memories without a query vector.

``Engram.query(kind="decision", tags=["pricing"])`` answers "what decisions have we made
about pricing, newest first" straight from the engine's column arrays (one entry per nid):

1. vectorised NumPy masks over the columns: namespace, alive, state, kind (a lookup table
   indexed by kind code), confidence, event time range, and the bi-temporal ``as_of`` mask
   (``temporal.as_of_mask``);
2. one sort of the survivors by the order key (``np.lexsort``; exact ties keep insertion order:
   the earlier-recorded memory first, the last tie-break of ``recall`` too, which first breaks a
   tie by cosine to the query, :mod:`engramdb.recall.ranking`);
3. a walk down that order that fetches records from LMDB and keeps those carrying every
   requested tag, until ``limit`` are found; connector nodes (the session and entity nodes of
   ``add_conversation``) are left out unless the tag filter names them, as recall leaves them
   out of its hits.

Slot filters (``subject=``, ``attribute=``) and the slot readers :func:`current_value` and
:func:`profile` go through the namespace's slot table (``EngineState.slot_table``:
(subject, attribute) -> member nids), so they touch only the slots' members, never the whole
namespace.

Tags are not a column: a memory has any number of free-text tags, so a fixed-width column or
a bitmap per tag would have to grow with the vocabulary. The per-record check in step 3
reads records only in answer order and stops at ``limit``, so its cost is the number of
records inspected, not the store size; it degrades towards a scan of the masked candidates
only when the tag is rare among them.
"""
from __future__ import annotations

import numpy as np

from .errors import InvalidInputError, MemoryBlockedError
from .recall.filters import Filters
from .state import EngineState
from .batch_plan import whole_record
from .temporal import record_as_of
from .types import _STATE_CODES, CONNECTOR_TAGS, Memory, MemoryState, memory_from_record
from .validate import check_int, check_namespace

__all__ = ["ORDERS", "run_query", "current_value", "profile"]

_ACTIVE = _STATE_CODES[MemoryState.ACTIVE]

#: Supported orders and what they sort by.
ORDERS = ("event_time_desc", "event_time_asc", "salience_desc", "confidence_desc")
_MAX_LIMIT = 100_000


def run_query(state: EngineState, *, namespace: str, filters: Filters, order: str = "event_time_desc",
              limit: int = 100, now: float) -> list[Memory]:
    """The body of :meth:`engramdb.Engram.query` (see there for the parameters).

    Parameters
    ----------
    state : EngineState
    namespace : str
    filters : Filters
        Checked by ``Filters.parse``.
    order : str
        One of :data:`ORDERS`.
    limit : int
        1..100000.
    now : float
        Unix seconds, for ``salience_desc``.

    Raises
    ------
    InvalidInputError, NamespaceError
        Bad order, limit or namespace.
    """
    ns = check_namespace(namespace)
    if order not in ORDERS:
        raise InvalidInputError(f"order: expected one of {list(ORDERS)}, got {order!r}")
    check_int(limit, "limit", 1, _MAX_LIMIT)
    sp = state.space(ns)
    c = state.cols
    n = c.n
    if sp is None or n == 0:
        return []
    slots = state.slot_table(ns) if filters.slotted else None
    nids = filters.slot_members(slots) if filters.slotted else np.arange(n)
    nids = nids[filters.mask(c, nids, sp.code, slots)]
    if len(nids) == 0:
        return []
    if order == "event_time_desc":
        key = -c.created_at[nids]
    elif order == "event_time_asc":
        key = c.created_at[nids]
    elif order == "salience_desc":
        key = -state.salience_now(nids, now).astype(np.float64)
    else:
        key = -c.confidence[nids].astype(np.float64)
    ranked = nids[np.lexsort((nids, key))]   # last key is primary; ties: insertion order
    # connector nodes (sessions, entities) route recall's activation and are no memory of their
    # own: left out, as recall leaves them out of its hits, unless a tag filter names them
    hide = not (filters.tags and filters.tags & CONNECTOR_TAGS)
    out: list[Memory] = []
    with state.store.read("running a query") as txn:
        read_piece = state.piece_reader(txn, ns)
        for nid in ranked.tolist():
            rec = state.store.get_record(txn, nid)
            if rec is None or not filters.tags_ok(rec) or rec.get("chunk_of") is not None:
                continue   # a piece of a long text is part of its memory, listed once, whole
            if hide and not CONNECTOR_TAGS.isdisjoint(rec.get("tags") or ()):
                continue
            try:
                rec = whole_record(rec, read_piece, state.config.store.chunk_chars // 10)
            except MemoryBlockedError:   # a censor rule hides one of its pieces: all of it
                continue
            if filters.as_of is not None:   # as the store held it then: its wording and state
                rec = record_as_of(rec, filters.as_of)
            out.append(memory_from_record(rec, None))
            if len(out) >= limit:
                break
    return out


def _current_nids(state: EngineState, nids: np.ndarray) -> np.ndarray:
    """The current ones of a slot's members: live, active (not superseded, not archived)."""
    c = state.cols
    nids = nids[nids < c.n]
    nids = nids[c.alive[nids] & (c.state[nids] == _ACTIVE)]
    if c.censor is not None:   # hidden by a censor rule (logged as a hit)
        hidden = c.blocked[nids]
        if hidden.any():
            c.censor.kept_out(nids[hidden])
            nids = nids[~hidden]
    return nids


def _value_of(records: list[dict], multi: bool) -> Memory | list[Memory]:
    """A slot's current records as :meth:`Engram.current` answers: the one memory of a
    single-valued slot (the latest valid, should there be several), else a list, oldest valid
    first (ties: the earlier record)."""
    records = sorted(records, key=lambda r: (r.get("valid_from", r["created_at"]), r["recorded_at"]))
    if multi:
        return [memory_from_record(r, None) for r in records]
    return memory_from_record(records[-1], None)


def current_value(state: EngineState, namespace: str, subject: str, attribute: str,
                  then: Filters | None = None) -> Memory | list[Memory] | None:
    """The body of :meth:`engramdb.Engram.current` (subject and attribute normalised).

    A slot is multi-valued when its current memories were recorded so (``multi`` on the
    record, from ``single_valued=False`` or ``SlotConfig``). ``then``: filters with ``as_of``
    and / or ``valid_at`` (:meth:`Filters.parse`): the slot's members that pass them instead of
    the current ones, each as the store held it at ``as_of``.
    """
    table = state.slot_table(namespace)
    nids = table.get((subject, attribute))
    if nids is None:
        return None
    if then is None:
        nids = _current_nids(state, nids)
    else:
        space = state.space(namespace)
        nids = nids[nids < state.cols.n]
        nids = nids[then.mask(state.cols, nids, space.code, table)] if space is not None else nids[:0]
    recs = [r for r in state.records(nids.tolist(), "reading a slot") if r is not None]
    if not recs:
        return None
    if then is not None and then.as_of is not None:
        recs = [record_as_of(r, then.as_of) for r in recs]
    return _value_of(recs, any(r.get("multi") for r in recs))


def profile(state: EngineState, namespace: str, subject: str,
            then: Filters | None = None) -> dict[str, Memory | list[Memory]]:
    """The body of :meth:`engramdb.Engram.profile`: attribute -> current value (or its value
    ``then``, as :func:`current_value`), sorted by attribute."""
    table = state.slot_table(namespace)
    out: dict[str, Memory | list[Memory]] = {}
    for (subj, attr) in sorted(k for k in table if k[0] == subject):
        value = current_value(state, namespace, subj, attr, then)
        if value is not None:
            out[attr] = value
    return out
