"""Structured filters shared by recall and query: one parser, one mask, one tag check.

A :class:`Filters` is built from a verb's keyword arguments (checked here once), then applied
as a vectorised mask over the column arrays (:meth:`Filters.mask`) and, for tags, per record
(:meth:`Filters.tags_ok`; tags are free text, not a column). ``Engram.recall`` applies it to
the memories spreading activation reached; ``Engram.query`` to the whole namespace.

Boundaries (each pinned by a test): ``min_confidence`` keeps a memory exactly at the threshold;
``since``/``until`` are inclusive; ``tags`` keeps memories carrying every listed tag; ``as_of``
is ``temporal.as_of_mask``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from ..state import Columns
from ..temporal import as_of_mask
from ..types import STATE_BY_CODE, MemoryState, _STATE_CODES
from ..validate import as_list, check_fraction, kind_table, tag_set, to_unix_seconds

__all__ = ["Filters"]


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
    """

    kinds: np.ndarray | None
    tags: frozenset[str] | None
    min_confidence: float | None
    since: float | None
    until: float | None
    as_of: float | None
    states: np.ndarray

    @classmethod
    def parse(cls, *, kinds: Any = None, kinds_field: str = "kinds", tags: Any = None,
              min_confidence: Any = None, since: Any = None, until: Any = None, as_of: Any = None,
              include_archived: bool = False, include_superseded: bool = False, state: Any = None) -> "Filters":
        """Check a verb's filter arguments.

        Parameters
        ----------
        kinds : MemoryKind, str or a sequence of them, optional
        kinds_field : str
            The argument's name in the verb, for messages (``kinds`` or ``kind``).
        tags : str or sequence of str, optional
        min_confidence : float, optional
            In [0, 1].
        since, until, as_of : float, datetime or ISO-8601, optional
        include_archived, include_superseded : bool
            Show these states besides active (superseded ones are shown for ``as_of`` anyway,
            since they were current then).
        state : MemoryState, str or sequence, optional
            Exactly these states (overrides the include flags).

        Raises
        ------
        InvalidInputError, UnknownKindError, NonFiniteError
        """
        t_as_of = None if as_of is None else to_unix_seconds(as_of, field="as_of")
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
        else:
            shown[_STATE_CODES[MemoryState.ACTIVE]] = True
            shown[_STATE_CODES[MemoryState.ARCHIVED]] = bool(include_archived)
            shown[_STATE_CODES[MemoryState.SUPERSEDED]] = bool(include_superseded) or t_as_of is not None
        return cls(
            kinds=kind_table(kinds, kinds_field),
            tags=tag_set(tags),
            min_confidence=None if min_confidence is None else check_fraction(min_confidence, "min_confidence"),
            since=None if since is None else to_unix_seconds(since, field="since"),
            until=None if until is None else to_unix_seconds(until, field="until"),
            as_of=t_as_of,
            states=shown,
        )

    def mask(self, cols: Columns, nids: np.ndarray, ns_code: int) -> np.ndarray:
        """Which of ``nids`` (int array) pass every column filter, live and in namespace ``ns_code``.

        Returns
        -------
        ndarray of bool, shape (len(nids),)
        """
        c = cols
        mask = (c.ns[nids] == ns_code) & c.alive[nids] & self.states[c.state[nids]]
        if self.as_of is not None:
            mask &= as_of_mask(c.recorded_at[nids], c.retired_at[nids], c.valid_from[nids], c.valid_to[nids],
                               self.as_of)
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
        """Whether a filter beyond the default states is set (kinds, tags, confidence, time, as_of)."""
        return (self.kinds is not None or self.tags is not None or self.min_confidence is not None
                or self.since is not None or self.until is not None or self.as_of is not None)

    def tags_ok(self, rec: dict) -> bool:
        """Whether the record carries every required tag."""
        return self.tags is None or self.tags.issubset(rec["tags"])
