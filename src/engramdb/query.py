"""Structured queries beside similarity: filter and order memories without a query vector.

``Engram.query(kind="decision", tags=["pricing"])`` answers "what decisions have we made
about pricing, newest first" straight from the engine's column arrays (one entry per nid):

1. vectorised NumPy masks over the columns: namespace, alive, state, kind (a lookup table
   indexed by kind code), confidence, event time range, and the bi-temporal ``as_of`` mask
   (``temporal.as_of_mask``);
2. one sort of the survivors by the order key (``np.lexsort``; ties: newer nid first);
3. a walk down that order that fetches records from LMDB and keeps those carrying every
   requested tag, until ``limit`` are found.

Tags are not a column: a memory has any number of free-text tags, so a fixed-width column or
a bitmap per tag would have to grow with the vocabulary. The per-record check in step 3
reads records only in answer order and stops at ``limit``, so its cost is the number of
records inspected, not the store size; it degrades towards a scan of the masked candidates
only when the tag is rare among them.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from .errors import InvalidInputError
from .types import Memory, MemoryState, STATE_BY_CODE, _STATE_CODES

__all__ = ["ORDERS", "run_query"]

#: Supported orders and what they sort by.
ORDERS = ("event_time_desc", "event_time_asc", "salience_desc", "confidence_desc")
_MAX_LIMIT = 100_000


def run_query(eng, *, namespace: str, kind: Any = None, tags: Any = None, min_confidence: Any = None,
              since: Any = None, until: Any = None, as_of: Any = None, state: Any = None,
              include_archived: bool = False, include_superseded: bool = False,
              order: str = "event_time_desc", limit: int = 100, now: Any = None) -> list[Memory]:
    """The body of :meth:`engramdb.Engram.query` (see there for the parameters).

    Raises
    ------
    InvalidInputError, UnknownKindError, NamespaceError, NonFiniteError
        Bad filters, order or limit.
    """
    from .engine import (_as_list, _check_fraction, _check_namespace, _kind_table, _memory_from_record, _tag_set,
                         to_unix_seconds)
    from .temporal import as_of_mask

    ns = _check_namespace(namespace)
    if order not in ORDERS:
        raise InvalidInputError(f"order: expected one of {list(ORDERS)}, got {order!r}")
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or not 1 <= limit <= _MAX_LIMIT:
        raise InvalidInputError(f"limit: expected an integer in [1, {_MAX_LIMIT}], got {limit!r}")
    kind_allowed = _kind_table(kind, "kind")
    tag_set = _tag_set(tags)
    if min_confidence is not None:
        min_confidence = _check_fraction(min_confidence, "min_confidence")
    t_lo = -np.inf if since is None else to_unix_seconds(since, field="since")
    t_hi = np.inf if until is None else to_unix_seconds(until, field="until")
    t_as_of = None if as_of is None else to_unix_seconds(as_of, field="as_of")
    t_now = time.time() if now is None else to_unix_seconds(now, field="now")
    shown = np.zeros(len(STATE_BY_CODE), bool)
    if state is not None:
        states = [state] if isinstance(state, (str, MemoryState)) else _as_list(state, "state")
        if not states:
            raise InvalidInputError("state=[] matches nothing; pass None for the default")
        for st in states:
            try:
                shown[_STATE_CODES[MemoryState(st)]] = True
            except ValueError:
                raise InvalidInputError(f"state: expected one of {[s.value for s in MemoryState]}, got {st!r}") from None
    else:
        shown[_STATE_CODES[MemoryState.ACTIVE]] = True
        shown[_STATE_CODES[MemoryState.ARCHIVED]] = include_archived
        shown[_STATE_CODES[MemoryState.SUPERSEDED]] = include_superseded or t_as_of is not None

    code = eng._ns_codes.get(ns)
    c = eng._cols
    n = c.n
    if code is None or n == 0:
        return []
    mask = (c.ns[:n] == code) & c.alive[:n] & shown[c.state[:n]]
    if kind_allowed is not None:
        mask &= kind_allowed[c.kind[:n]]
    if min_confidence is not None:
        mask &= c.confidence[:n] >= min_confidence
    if since is not None or until is not None:
        mask &= (c.created_at[:n] >= t_lo) & (c.created_at[:n] <= t_hi)
    if t_as_of is not None:
        mask &= as_of_mask(c.recorded_at[:n], c.retired_at[:n], c.valid_from[:n], c.valid_to[:n], t_as_of)
    nids = np.flatnonzero(mask)
    if len(nids) == 0:
        return []
    if order == "event_time_desc":
        key = -c.created_at[nids]
    elif order == "event_time_asc":
        key = c.created_at[nids]
    elif order == "salience_desc":
        key = -eng._salience_now(nids, t_now).astype(np.float64)
    else:
        key = -c.confidence[nids].astype(np.float64)
    ranked = nids[np.lexsort((-nids, key))]   # last key is primary; ties: newer nid first
    out: list[Memory] = []
    with eng._store.read("running a query") as txn:
        for nid in ranked.tolist():
            rec = eng._store.get_record(txn, nid)
            if rec is None or (tag_set is not None and not tag_set.issubset(rec["tags"])):
                continue
            out.append(_memory_from_record(rec, None))
            if len(out) >= limit:
                break
    return out
