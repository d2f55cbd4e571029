"""Per-memory state as column arrays indexed by nid: what ranking, filters and dynamics read."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import StoreCorruptedError
from ..temporal import column_values
from ..types import MemoryKind, MemoryState, _STATE_CODES

__all__ = ["Columns"]


class Columns:
    """Growable column arrays, one entry per nid (erased nids stay, with ``alive`` False).

    Attributes
    ----------
    n : int
        Number of nids covered.
    ns : ndarray of int32
        Namespace code.
    kind, state : ndarray of uint8
        ``MemoryKind.code`` and state code (``types.STATE_BY_CODE``).
    alive : ndarray of bool
        False once erased.
    created_at, recorded_at, retired_at, valid_from, valid_to : ndarray of float64
        Event time, record time and valid time, Unix seconds; open ends are +inf. ``valid_to``
        is the end stated when the memory was recorded (what ``as_of`` reads).
    known_valid_to : ndarray of float64
        The valid end as now known (a supersession closes it; what ``valid_at`` reads), +inf
        when open.
    confidence, s0 : ndarray of float32
        Confidence and salience at t0, in [0, 1].
    t0 : ndarray of float64
        Time of the last salience update, Unix seconds (+inf: held until review).
    ext_ids : list of str or None
        The caller's id of each nid (None once erased).
    """

    FIELDS = {"ns": np.int32, "kind": np.uint8, "state": np.uint8, "alive": np.bool_,
              "created_at": np.float64, "confidence": np.float32, "s0": np.float32,
              "t0": np.float64,
              "recorded_at": np.float64, "retired_at": np.float64, "valid_from": np.float64,
              "valid_to": np.float64, "known_valid_to": np.float64}   # record and valid time (temporal.py; +inf = open)

    def __init__(self) -> None:
        self.n = 0
        for name, dtype in self.FIELDS.items():
            setattr(self, name, np.zeros(1024, dtype))
        self.ext_ids: list[str | None] = []

    def ensure(self, n: int) -> None:
        """Grow the arrays to hold nids below ``n``."""
        cap = len(self.ns)
        if n > cap:
            new = max(n, 2 * cap)
            for name, dtype in self.FIELDS.items():
                arr = np.zeros(new, dtype)
                arr[:cap] = getattr(self, name)
                setattr(self, name, arr)
        if n > self.n:
            self.ext_ids.extend([None] * (n - self.n))
            self.n = n

    def set_record(self, nid: int, rec: dict, ns_code: int) -> None:
        """Columns of ``nid`` from its stored record."""
        self.ensure(nid + 1)
        self.ns[nid] = ns_code
        self.kind[nid] = MemoryKind(rec["kind"]).code
        self.state[nid] = _STATE_CODES[MemoryState(rec["state"])]
        self.alive[nid] = True
        self.created_at[nid] = rec["created_at"]
        self.confidence[nid] = rec["confidence"]
        self.s0[nid] = rec["salience"]
        self.t0[nid] = rec["salience_at"]
        self.ext_ids[nid] = rec["id"]
        (self.recorded_at[nid], self.retired_at[nid], self.valid_from[nid],
         self.valid_to[nid], self.known_valid_to[nid]) = column_values(rec)

    def kill(self, nid: int) -> None:
        """Mark an erased nid."""
        self.alive[nid] = False
        self.ext_ids[nid] = None

    def in_namespace(self, code: int) -> np.ndarray:
        """Bool mask (shape (n,)) of the live nids of namespace ``code``."""
        n = self.n
        return (self.ns[:n] == code) & self.alive[:n]

    def snapshot(self, ns_names: list[str]) -> dict[str, np.ndarray]:
        """The columns as arrays for LMDB: one array per field, ids NUL-joined, namespace names."""
        out = {name: getattr(self, name)[: self.n] for name in self.FIELDS}
        out["ext_ids"] = np.frombuffer("\x00".join(x or "" for x in self.ext_ids).encode(), np.uint8)
        out["ns_names"] = np.frombuffer("\x00".join(ns_names).encode(), np.uint8)
        return out

    @classmethod
    def snapshot_dtypes(cls) -> dict[str, Any]:
        return {**cls.FIELDS, "ext_ids": np.uint8, "ns_names": np.uint8}

    def load_snapshot(self, arrays: dict[str, np.ndarray]) -> list[str]:
        """Install columns saved by :meth:`snapshot`; returns the namespace names by code.

        Raises
        ------
        StoreCorruptedError
            The ids do not match the arrays.
        """
        n = len(arrays["ns"])
        self.n = 0
        self.ensure(n)
        for name in self.FIELDS:
            getattr(self, name)[:n] = arrays[name]
        ids = arrays["ext_ids"].tobytes().decode().split("\x00") if n else []
        if len(ids) != n:
            raise StoreCorruptedError(f"column snapshot holds {len(ids)} ids for {n} memories")
        self.ext_ids = [x if alive else None for x, alive in zip(ids, self.alive[:n].tolist())]
        raw = arrays["ns_names"].tobytes().decode()
        return raw.split("\x00") if raw else []
