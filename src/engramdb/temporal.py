"""Bi-temporal bookkeeping: valid time, record time, as-of masks and version history.

Every memory carries two time axes (Snodgrass & Ahn 1985, "A taxonomy of time in databases";
the bitemporal model of SQL:2011):

* **valid time** ``[valid_from, valid_to)``: when the fact was true in the world.
  ``valid_from`` defaults to the memory's event time (``created_at``); ``valid_to`` is open
  (None) unless the caller states it, or a successor supersedes the memory (then it becomes
  the successor's ``valid_from``).
* **record time** ``[recorded_at, retired_at)``: when the store learned the memory and when it
  retired it (superseded it). ``retired_at`` is None while the memory is current.

Two questions read these axes (SQL:2011's ``FOR SYSTEM_TIME AS OF`` and ``FOR PERIOD AS OF``):

* ``valid_at=V``: what was true in the world at V, *as the store knows it now* (any record
  time up to now): ``valid_from <= V < valid_to``, with ``valid_to`` as now known (closed by a
  supersession). A value superseded since is shown when it held at V; a correction (a
  successor with the same ``valid_from``) leaves the corrected memory an empty interval, so
  it never shows.
* ``as_of=T``: what the store knew at record time T (below).

Both together, ``as_of=T, valid_at=V``: what the store believed at T about the world at V
(:func:`bitemporal_mask`).

``recall(..., as_of=T)`` and ``query(..., as_of=T)`` answer with what the store *believed at
record time T to be valid at T*: ``recorded_at <= T < retired_at`` and
``valid_from <= T < stated valid_to``. The valid end that counts is the one stated when the
memory was recorded (``stated_valid_to``), not the one a later supersession wrote: at T the
store did not yet know it. So a superseded memory counts as valid up to its supersession
time, and a memory recorded after T never appears. ``as_of`` selects memories, and shows each as
the store held it at T (:func:`record_as_of`): its wording then (an earlier wording from
:meth:`Engram.update`), and active when it was superseded or archived after T.
Archived memories stay hidden unless ``include_archived`` (archiving is a retrieval tier, not a
change of belief, and its time is not recorded here).

Record time is the engine's clock when a memory is written, unless the caller backfills
history with ``recorded_at`` (``add``, ``add_batch`` and ``admit_batch`` alike; never in the
future): then a memory it retires is retired at that record time too (never before the
retired memory's own record time), so ``as_of`` over imported history answers as the store
would have then.

Time inputs (Unix seconds, ISO-8601 strings, ``datetime``) follow one rule: naive datetimes and
ISO strings without an offset are UTC; everything is stored as UTC Unix seconds (float64)
by :func:`engramdb.to_unix_seconds`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .errors import InvalidInputError
from .types import MemoryState, shown_tags
from .validate import to_unix_seconds, utc_text

__all__ = ["said_after", "HistoryEntry", "record_as_of", "text_as_of", "as_of_mask", "valid_at_mask", "bitemporal_mask", "valid_interval", "history_entries",
           "record_fields", "column_values", "recorded_time", "TIME_RULE"]

TIME_RULE = "naive datetimes and ISO-8601 strings without an offset are UTC; stored as UTC Unix seconds"


def _seconds(value: Any, field: str) -> float:
    return to_unix_seconds(value, field=field)


def valid_interval(item: Mapping[str, Any], created_at: float) -> tuple[float, float | None]:
    """The valid-time interval of a memory being added.

    Parameters
    ----------
    item : mapping
        May hold ``valid_from`` and ``valid_to`` (Unix seconds, ISO-8601 or datetime; naive = UTC).
    created_at : float
        Event time, Unix seconds: the default ``valid_from``.

    Returns
    -------
    (float, float or None)
        ``valid_from`` and ``valid_to`` (None = open), Unix seconds UTC.

    Raises
    ------
    InvalidInputError, NonFiniteError
        Unparseable times, or ``valid_to <= valid_from``.
    """
    vf = item.get("valid_from")
    valid_from = created_at if vf is None else _seconds(vf, "valid_from")
    vt = item.get("valid_to")
    valid_to = None if vt is None else _seconds(vt, "valid_to")
    if valid_to is not None and valid_to <= valid_from:
        raise InvalidInputError(f"valid_to ({valid_to}) must be after valid_from ({valid_from}), Unix seconds")
    return valid_from, valid_to


def record_fields(p: Any) -> dict[str, Any]:
    """The bi-temporal and slot fields of a new record, leaving out defaults (``valid_from`` equal
    to ``created_at``, open ends, no slot) so records stay small; readers use ``rec.get``.

    Parameters
    ----------
    p : engramdb.write.records.Prepared
        A validated memory.
    """
    out: dict[str, Any] = {}
    if p.valid_from != p.created_at:
        out["valid_from"] = p.valid_from
    if p.subject is not None and not p.single:
        out["multi"] = True
    for key, value in (("valid_to", p.valid_to), ("stated_valid_to", p.stated_valid_to),
                       ("retired_at", p.retired_at), ("subject", p.subject), ("attribute", p.attribute),
                       ("value", p.slot_value)):
        if value is not None:
            out[key] = value
    return out


def recorded_time(item: Mapping[str, Any], default: Any, now: float) -> float | None:
    """The record time a caller gives a new memory (backfilled history), checked; None when
    neither the item nor the call gives one (the write's own time applies).

    Parameters
    ----------
    item : mapping
        May hold ``recorded_at`` (Unix seconds, ISO-8601 or datetime; naive = UTC).
    default : float, datetime, str or None
        The call's ``recorded_at``, for items without their own.
    now : float
        The engine's clock, Unix seconds: a record time may not be later.

    Raises
    ------
    InvalidInputError, NonFiniteError
        Unparseable, or after ``now`` (the store cannot have learned it in the future).
    """
    value = item.get("recorded_at")
    if value is None:
        value = default
    if value is None:
        return None
    t = _seconds(value, "recorded_at")
    if t > now:
        raise InvalidInputError(
            f"recorded_at ({utc_text(t)}) is after now ({utc_text(now)}): a record time is when the store "
            "learned the memory, so it cannot be in the future; leave it out to record now")
    return t


def column_values(rec: Mapping[str, Any]) -> tuple[float, float, float, float, float]:
    """(recorded_at, retired_at, valid_from, stated valid_to, valid_to as now known) of a record
    for the column arrays; open ends are +inf. Records written before bi-temporal fields
    existed get their defaults."""
    retired = rec.get("retired_at")
    vf = rec.get("valid_from")
    vt = rec.get("stated_valid_to")
    known = rec.get("valid_to")
    return (float(rec["recorded_at"]), np.inf if retired is None else float(retired),
            float(rec["created_at"]) if vf is None else float(vf), np.inf if vt is None else float(vt),
            np.inf if known is None else float(known))


def as_of_mask(recorded_at: np.ndarray, retired_at: np.ndarray, valid_from: np.ndarray,
               valid_to: np.ndarray, t: float) -> np.ndarray:
    """Which memories the store believed, at record time ``t``, to be valid at ``t``.

    mask = (recorded_at <= t) & (t < retired_at) & (valid_from <= t) & (t < valid_to)

    Parameters
    ----------
    recorded_at, retired_at, valid_from, valid_to : ndarray of float64, shape (n,)
        Unix seconds UTC; open ends are +inf. ``valid_to`` is the end stated at record time.
    t : float
        Unix seconds UTC.

    Returns
    -------
    ndarray of bool, shape (n,)

    References
    ----------
    Snodgrass & Ahn (1985); SQL:2011 system-versioned + application-time period tables
    ("FOR SYSTEM_TIME AS OF" combined with "FOR PERIOD AS OF").
    """
    return (recorded_at <= t) & (t < retired_at) & (valid_from <= t) & (t < valid_to)


def valid_at_mask(valid_from: np.ndarray, known_valid_to: np.ndarray, v: float) -> np.ndarray:
    """Which memories held in the world at valid time ``v``, as the store knows it now.

    mask = (valid_from <= v) & (v < known_valid_to)

    Parameters
    ----------
    valid_from, known_valid_to : ndarray of float64, shape (n,)
        Unix seconds UTC; ``known_valid_to`` is the end as now known (a supersession closes
        it), +inf when open.
    v : float
        Unix seconds UTC.

    Returns
    -------
    ndarray of bool, shape (n,)

    References
    ----------
    SQL:2011 application-time period tables ("FOR PERIOD AS OF"); Snodgrass & Ahn (1985).
    """
    return (valid_from <= v) & (v < known_valid_to)


def bitemporal_mask(recorded_at: np.ndarray, retired_at: np.ndarray, valid_from: np.ndarray,
                    stated_valid_to: np.ndarray, known_valid_to: np.ndarray, t: float, v: float) -> np.ndarray:
    """Which memories the store believed, at record time ``t``, to hold at valid time ``v``.

    A memory counts when the store had recorded it by ``t``; its valid end as believed at ``t``
    is the end written by its retirement when that retirement came by ``t``, else the end
    stated when it was recorded (a later supersession was not yet known):

    mask = (recorded_at <= t) & (valid_from <= v) & (v < where(retired_at <= t, known_valid_to,
    stated_valid_to))

    Parameters
    ----------
    recorded_at, retired_at, valid_from, stated_valid_to, known_valid_to : ndarray of float64, shape (n,)
        Unix seconds UTC; open ends are +inf.
    t, v : float
        Record time and valid time, Unix seconds UTC.

    Returns
    -------
    ndarray of bool, shape (n,)

    References
    ----------
    Snodgrass & Ahn (1985); SQL:2011 "FOR SYSTEM_TIME AS OF t" combined with "FOR PERIOD AS OF v".
    """
    end = np.where(retired_at <= t, known_valid_to, stated_valid_to)
    return (recorded_at <= t) & (valid_from <= v) & (v < end)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One version of one memory in a supersession chain (see :meth:`Engram.history`).

    Attributes
    ----------
    id : str
        The memory.
    version : int
        1 for the first wording; :meth:`Engram.update` adds one.
    text : str
        The wording of this version.
    recorded_at : float
        Record time this version was written, Unix seconds UTC.
    replaced_at : float or None
        Record time this version stopped being current (updated or superseded); None if current.
    ended_by : str or None
        ``"updated"``, ``"superseded"`` or None (still current).
    valid_from, valid_to : float or None
        The memory's valid-time interval (as now known), Unix seconds UTC.
    state : MemoryState
        The memory's state now.
    supersedes : tuple of str
        Ids this memory superseded (set on every version of the memory).
    superseded_by : str or None
    confidence : float
    tags : tuple of str
    archived_at : float or None
        Record time the memory was archived (``forget`` or a rescoring pass), Unix seconds UTC;
        None while it is not archived.
    """

    id: str
    version: int
    text: str
    recorded_at: float
    replaced_at: float | None
    ended_by: str | None
    valid_from: float | None
    valid_to: float | None
    state: MemoryState
    supersedes: tuple[str, ...]
    superseded_by: str | None
    confidence: float
    tags: tuple[str, ...]
    archived_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "version": self.version, "text": self.text,
                "recorded_at": self.recorded_at, "replaced_at": self.replaced_at,
                "ended_by": self.ended_by, "valid_from": self.valid_from, "valid_to": self.valid_to,
                "state": self.state.value, "supersedes": list(self.supersedes),
                "superseded_by": self.superseded_by, "confidence": self.confidence, "tags": list(self.tags),
                "archived_at": self.archived_at}


def history_entries(records: list[dict], supersedes: Mapping[str, tuple[str, ...]]) -> list[HistoryEntry]:
    """Every version of every record, in record-time order (ties: by id, then version).

    Parameters
    ----------
    records : list of dict
        Stored records (with their ``versions`` list of earlier wordings).
    supersedes : mapping id -> tuple of ids
        The ids each memory superseded (its outgoing ``supersedes`` edges).

    Returns
    -------
    list of HistoryEntry
    """
    out = []
    for rec in records:
        state = MemoryState(rec["state"])
        retired = rec.get("retired_at")
        vf = rec.get("valid_from", rec["created_at"])
        common = {"id": rec["id"], "valid_from": vf, "valid_to": rec.get("valid_to"), "state": state,
                  "supersedes": tuple(supersedes.get(rec["id"], ())), "superseded_by": rec["superseded_by"],
                  "archived_at": rec.get("archived_at") if state is MemoryState.ARCHIVED else None}
        versions = rec.get("versions") or []
        for i, v in enumerate(versions, 1):
            out.append(HistoryEntry(version=i, text=v["text"], recorded_at=v["recorded_at"],
                                    replaced_at=v["replaced_at"], ended_by="updated",
                                    confidence=v["confidence"], tags=tuple(v["tags"]), **common))
        out.append(HistoryEntry(version=len(versions) + 1, text=rec["text"],
                                recorded_at=rec.get("version_at", rec["recorded_at"]), replaced_at=retired,
                                ended_by=None if retired is None else "superseded",
                                confidence=rec["confidence"], tags=shown_tags(rec), **common))
    out.sort(key=lambda e: (e.recorded_at, e.id, e.version))
    return out


def record_as_of(rec: dict, t: float) -> dict:
    """Record ``rec`` as the store held it at record time ``t`` (Unix seconds): its wording then
    (:func:`text_as_of`) and, when it was superseded or archived after ``t``, active, with no
    successor and no retirement yet. What ``recall`` and ``query`` with ``as_of`` show (a fresh
    user's ``as_of`` recall showed "Globex has 5 seats." as superseded on a date it was current)."""
    out = {**rec, "text": text_as_of(rec, t)}
    retired, archived = rec.get("retired_at"), rec.get("archived_at")
    if rec["state"] == MemoryState.SUPERSEDED.value and retired is not None and retired > t:
        out.update(state=MemoryState.ACTIVE.value, superseded_by=None, retired_at=None)
    elif rec["state"] == MemoryState.ARCHIVED.value and archived is not None and archived > t:
        out.update(state=MemoryState.ACTIVE.value, archived_at=None)
    return out


def text_as_of(rec: dict, t: float) -> str:
    """The text record ``rec`` had at record time ``t`` (Unix seconds): the first of its earlier
    wordings (``versions``, kept by :meth:`Engram.update`) replaced after ``t``, else its text
    now. What ``recall`` and ``query`` with ``as_of`` show."""
    for version in rec.get("versions") or ():
        if version.get("replaced_at", -math.inf) > t and isinstance(version.get("text"), str):
            return version["text"]
    return rec["text"]


def said_after(valid_from: float, nid: int, other_from: float, other: int) -> bool:
    """Whether a memory (valid from ``valid_from``, Unix seconds; node id ``nid``) was said after
    another (``other_from``, ``other``): valid from a later time, or from the same time and
    stored later (a larger nid: two messages of one ``add_batch`` without times). The order of
    a ``contradicts`` pair for the write path and for recall's later-first rule. Elementwise on
    NumPy arrays of the four (bool array)."""
    return (other_from < valid_from) | ((other_from == valid_from) & (other < nid))
