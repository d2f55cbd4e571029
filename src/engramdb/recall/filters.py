"""Structured filters shared by recall and query: one parser, one mask, one tag check.

A :class:`Filters` is built from a verb's keyword arguments (checked here once), then applied
as a vectorised mask over the column arrays (:meth:`Filters.mask`) and, for tags, per record
(:meth:`Filters.tags_ok`; tags are free text, not a column). ``Engram.recall`` applies it to
the memories spreading activation reached; ``Engram.query`` to the whole namespace.

Boundaries (each pinned by a test): ``min_confidence`` keeps a memory exactly at the threshold;
``since``/``until`` are inclusive; ``tags`` keeps memories carrying every listed tag; ``as_of``
is ``temporal.as_of_mask``, ``valid_at`` is ``temporal.valid_at_mask`` (valid_from inclusive,
valid_to exclusive) and both together ``temporal.bitemporal_mask``.

``subject`` / ``attribute`` keep the memories that fill a slot of that subject and/or attribute
(normalised as slots are: ``"Home City"`` is ``home_city``). They are record fields, not
columns: the mask reads them from the namespace's slot table (``EngineState.slot_table``,
(subject, attribute) -> member nids), which the caller passes in.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import InvalidInputError
from ..state import Columns
from ..slots import canonical_subject, normalise_attribute
from ..temporal import as_of_mask, bitemporal_mask, valid_at_mask
from ..types import STATE_BY_CODE, MemoryState, _STATE_CODES, shown_tags
from ..validate import as_list, check_fraction, kind_table, tag_set, to_unix_seconds, until_seconds

__all__ = ["Filters", "seedable"]

_ARCHIVED = _STATE_CODES[MemoryState.ARCHIVED]
_SUPERSEDED = _STATE_CODES[MemoryState.SUPERSEDED]


def seedable(filters: "Filters", cols: Columns, nids: np.ndarray) -> np.ndarray:
    """Which of ``nids`` (int array) may seed a recall with ``filters`` (bool, same shape): live
    memories whose state the request shows, and superseded ones whatever it shows (a question
    worded like the old version reaches the current one over the ``supersedes`` edge, the point
    of superseding instead of deleting). An archived memory (``forget``, or faded by decay)
    seeds nothing unless the request shows archived memories (``include_archived``, or an
    ``as_of`` before the archiving): a forgotten memory no longer steers what recall returns,
    nor opens the path of another hit. With an ``as_of``, a memory recorded after it seeds
    nothing: the store did not hold it then."""
    state = cols.state[nids]
    keep = cols.alive[nids] & (filters.states[state] | (state == _SUPERSEDED))
    return keep if filters.as_of is None else keep & (cols.recorded_at[nids] <= filters.as_of)


@dataclass(frozen=True, slots=True)
class Filters:
    """Validated structured filters (see the module docstring).

    Attributes
    ----------
    kinds : ndarray of bool, shape (n_kinds,), or None
        Kept kinds, by ``MemoryKind.code``.
    tags : frozenset of str or None
        Required tags (all of them).
    min_confidence : float or None
        Keep confidence >= this.
    since, until : float or None
        Event-time range, inclusive, Unix seconds.
    as_of : float or None
        Record time for the bi-temporal view, Unix seconds.
    states : ndarray of bool, shape (n_states,)
        Shown states, by state code.
    valid_at : float or None
        Valid time: what held in the world then, Unix seconds.
    subject, attribute : str or None
        Slot subject / attribute, normalised (the subject canonical:
        :func:`engramdb.slots.canonical_subject`, "me" is "user").
    archived_before : bool
        With ``as_of``: archived memories pass only for a time before they were archived
        (``Columns.archived_at``), when the store still held them active.
    """

    kinds: np.ndarray | None
    tags: frozenset[str] | None
    min_confidence: float | None
    since: float | None
    until: float | None
    as_of: float | None
    states: np.ndarray
    valid_at: float | None = None
    subject: str | None = None
    attribute: str | None = None
    archived_before: bool = False

    @classmethod
    def parse(cls, *, kinds: Any = None, kind: Any = None, tags: Any = None,
              min_confidence: Any = None, since: Any = None, until: Any = None, as_of: Any = None,
              include_archived: bool = False, include_superseded: bool = False, state: Any = None,
              valid_at: Any = None, subject: Any = None, attribute: Any = None) -> "Filters":
        """Check a verb's filter arguments.

        Parameters
        ----------
        kinds, kind : MemoryKind, str or a sequence of them, optional
            The same filter under either name (``query`` calls it ``kind``, ``recall`` takes
            both); messages name the one given.
        tags : str or sequence of str, optional
        min_confidence : float, optional
            In [0, 1].
        since, until, as_of, valid_at : float, datetime or ISO-8601, optional
            Unix seconds or a time; a period named at reduced precision ("2025", "2025-05",
            "2025-05-31") is its first instant, except for ``until``, where it is its last:
            ``since="2025-05", until="2025-05"`` keeps all of May (``validate.until_seconds``).
        include_archived, include_superseded : bool
            Show these states besides active (superseded ones are shown for ``as_of`` and
            ``valid_at`` anyway, since they held then; archived ones for an ``as_of`` before
            they were archived, when they were still active).
        state : MemoryState, str or sequence, optional
            Exactly these states (overrides the include flags).
        subject, attribute : str, optional
            Keep memories filling a slot of this subject / attribute.

        Raises
        ------
        InvalidInputError, UnknownKindError, NonFiniteError
            Bad values, ``since`` after ``until``, or both ``kinds`` and ``kind``.
        """
        kinds_field = "kinds"
        if kind is not None:
            if kinds is not None:
                raise InvalidInputError("give kinds= or kind= (the same filter), not both")
            kinds, kinds_field = kind, "kind"
        if (kinds is None and tags is None and min_confidence is None and since is None and until is None
                and as_of is None and not include_archived and not include_superseded and state is None
                and valid_at is None and subject is None and attribute is None):
            return _default()   # the filters of nearly every recall: built once
        t_as_of = None if as_of is None else to_unix_seconds(as_of, field="as_of")
        t_valid = None if valid_at is None else to_unix_seconds(valid_at, field="valid_at")
        subject = None if subject is None else canonical_subject(_slot_part(subject, "subject"))
        attribute = None if attribute is None else normalise_attribute(_slot_part(attribute, "attribute"))
        shown = np.zeros(len(STATE_BY_CODE), bool)
        if state is not None:
            states = [state] if isinstance(state, (str, MemoryState)) else as_list(state, "state")
            if not states:
                raise InvalidInputError("state=[] matches nothing; pass None for the default")
            for st in states:
                try:
                    shown[_STATE_CODES[MemoryState(st)]] = True
                except ValueError:
                    raise InvalidInputError(
                        f"state: expected one of {[s.value for s in MemoryState]}, got {st!r}") from None
        archived_before = state is None and not include_archived and t_as_of is not None
        if state is None:
            shown[_STATE_CODES[MemoryState.ACTIVE]] = True
            shown[_STATE_CODES[MemoryState.ARCHIVED]] = bool(include_archived) or archived_before
            shown[_STATE_CODES[MemoryState.SUPERSEDED]] = (bool(include_superseded) or t_as_of is not None
                                                           or t_valid is not None)
        t_since = None if since is None else to_unix_seconds(since, field="since")
        t_until = None if until is None else until_seconds(until, field="until")
        if t_since is not None and t_until is not None and t_since > t_until:
            raise InvalidInputError(f"since ({since!r}) is after until ({until!r}): the range holds no time; "
                                    "swap them")
        return cls(
            kinds=kind_table(kinds, kinds_field),
            tags=tag_set(tags),
            min_confidence=None if min_confidence is None else check_fraction(min_confidence, "min_confidence"),
            since=t_since,
            until=t_until,
            as_of=t_as_of,
            states=shown,
            valid_at=t_valid,
            subject=subject,
            attribute=attribute,
            archived_before=archived_before,
        )

    @property
    def slotted(self) -> bool:
        """Whether a slot filter (``subject`` or ``attribute``) is set."""
        return self.subject is not None or self.attribute is not None

    def slot_members(self, slots: Mapping[tuple[str, str], np.ndarray] | None) -> np.ndarray:
        """Nids (int64, sorted) of the slots this filter keeps, from a namespace's slot table."""
        if not slots:
            return np.zeros(0, np.int64)
        parts = [nids for (subj, attr), nids in slots.items()
                 if (self.subject is None or subj == self.subject)
                 and (self.attribute is None or attr == self.attribute)]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)

    def mask(self, cols: Columns, nids: np.ndarray, ns_code: int,
             slots: Mapping[tuple[str, str], np.ndarray] | None = None) -> np.ndarray:
        """Which of ``nids`` (int array) pass every column filter, live, in namespace ``ns_code`` and
        not hidden by a censor rule (``Columns.blocked``).

        Parameters
        ----------
        cols : Columns
        nids : ndarray of int
        ns_code : int
        slots : mapping (subject, attribute) -> ndarray of int64, optional
            The namespace's slot table (``EngineState.slot_table``); read only when a slot
            filter is set, and then required (without it nothing passes).

        Returns
        -------
        ndarray of bool, shape (len(nids),)
        """
        c = cols
        mask = (c.ns[nids] == ns_code) & c.alive[nids] & self.states[c.state[nids]]
        if c.censor is not None:   # hidden by a censor rule: as if erased (logged as a hit)
            hidden = mask & c.blocked[nids]
            if hidden.any():
                c.censor.kept_out(nids[hidden])
                mask &= ~hidden
        if self.as_of is not None and self.valid_at is not None:
            mask &= bitemporal_mask(c.recorded_at[nids], c.retired_at[nids], c.valid_from[nids], c.valid_to[nids],
                                    c.known_valid_to[nids], self.as_of, self.valid_at)
        elif self.as_of is not None:
            mask &= as_of_mask(c.recorded_at[nids], c.retired_at[nids], c.valid_from[nids], c.valid_to[nids],
                               self.as_of)
        if self.archived_before:   # archived later than as_of: it was active then
            mask &= (c.state[nids] != _ARCHIVED) | (self.as_of < c.archived_at[nids])
        elif self.valid_at is not None:
            mask &= valid_at_mask(c.valid_from[nids], c.known_valid_to[nids], self.valid_at)
        if self.slotted:
            mask &= np.isin(nids, self.slot_members(slots))
        if self.kinds is not None:
            mask &= self.kinds[c.kind[nids]]
        if self.min_confidence is not None:
            mask &= c.confidence[nids] >= self.min_confidence
        if self.since is not None:
            mask &= c.created_at[nids] >= self.since
        if self.until is not None:
            mask &= c.created_at[nids] <= self.until
        return mask

    @property
    def narrows(self) -> bool:
        """Whether a filter beyond the default states is set (kinds, tags, confidence, time, as_of,
        valid_at, slot)."""
        return (self.kinds is not None or self.tags is not None or self.min_confidence is not None
                or self.since is not None or self.until is not None or self.as_of is not None
                or self.valid_at is not None or self.slotted)

    def tags_ok(self, rec: dict) -> bool:
        """Whether the record carries every required tag (as shown: not a piece's internal one)."""
        return self.tags is None or self.tags.issubset(shown_tags(rec))


@functools.lru_cache(maxsize=1)
def _default() -> Filters:
    """The filters of a verb called without any: active memories of every kind (shared, so
    its table is read-only)."""
    shown = np.zeros(len(STATE_BY_CODE), bool)
    shown[_STATE_CODES[MemoryState.ACTIVE]] = True
    shown.flags.writeable = False
    return Filters(kinds=None, tags=None, min_confidence=None, since=None, until=None, as_of=None, states=shown)


def _slot_part(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        raise InvalidInputError(f"{field}: expected a non-empty slot {field} (a string without NUL), got {value!r}")
    return value
