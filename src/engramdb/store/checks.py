"""Structural checks of what the engine reads back from LMDB.

LMDB guarantees atomic, durable transactions, not that a value still holds what engramdb wrote
(a damaged disk, another program writing into the file). Arrays that reach the C and Numba
kernels are checked here first: an index out of range there would read outside an array
(a crash, or a silently wrong answer) instead of raising. A cache that fails a check (the
column or CSR snapshot) is rebuilt from the records and edges; a record or edge that fails
raises :class:`~engramdb.errors.StoreCorruptedError`.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import StoreCorruptedError
from ..types import STATE_BY_CODE, MemoryKind, MemoryState, RELATION_BY_CODE

__all__ = ["csr_snapshot_ok", "columns_snapshot_ok", "check_record", "check_edges"]

_KINDS = frozenset(k.value for k in MemoryKind)
_STATES = frozenset(s.value for s in MemoryState)
_NUMBER = (int, float)


def csr_snapshot_ok(a: dict[str, np.ndarray], n_max: int) -> bool:
    """True when CSR arrays (``indptr`` int64 (n + 1,), ``indices`` int32, ``weight`` float32,
    ``relation`` uint8, ``forward`` uint8, each (nnz,)) are a well-formed graph on
    ``n <= n_max`` nodes: indptr starts at 0, never decreases and ends at nnz; indices in
    [0, n); weights finite in (0, 1]; relation codes known; forward 0 or 1."""
    indptr, indices = a["indptr"], a["indices"]
    n, nnz = len(indptr) - 1, len(indices)
    if n < 0 or n > n_max or any(len(a[k]) != nnz for k in ("weight", "relation", "forward")):
        return False
    if indptr[0] != 0 or indptr[-1] != nnz or np.any(np.diff(indptr) < 0):
        return False
    if nnz and (indices.min() < 0 or indices.max() >= n):
        return False
    if nnz == 0:
        return True
    w = a["weight"]   # min / max propagate NaN (then both tests fail): one pass each, no temporary
    return bool(w.min() > 0 and w.max() <= 1 and int(a["relation"].max()) < len(RELATION_BY_CODE)
                and int(a["forward"].max()) <= 1)


def columns_snapshot_ok(a: dict[str, np.ndarray], n: int) -> bool:
    """True when the engine's column snapshot describes ``n`` memories with valid codes and
    finite numbers (``t0`` may be +inf, as a record's ``salience_at`` may: a decision's
    salience held until its outcome is reviewed)."""
    fields = ("ns", "kind", "state", "alive", "created_at", "confidence", "s0", "t0", "head", "speaker",
              "mentioned_start", "mentioned_end", "speech_act", "standing")
    if any(len(a[f]) != n for f in fields):
        return False
    names = a["ns_names"].tobytes()
    try:
        n_names = len(names.decode().split("\x00")) if names else 0
        str(memoryview(a["ext_ids"]), "utf-8")   # valid UTF-8 (decoded in place, not copied first)
        n_speakers = len(a["speaker_names"].tobytes().decode().split("\x00"))
    except UnicodeDecodeError:
        return False
    if n == 0:
        return True

    def finite(x: np.ndarray) -> bool:   # min / max propagate NaN: one pass each, no temporary
        return bool(np.isfinite(x.min()) and np.isfinite(x.max()))

    return bool(a["ns"].min() >= 0 and a["ns"].max() < n_names
                and a["kind"].max() < len(MemoryKind) and a["state"].max() < len(STATE_BY_CODE)
                and a["alive"].view(np.uint8).max() <= 1 and a["speech_act"].max() <= 2
                and a["standing"].max() <= 63
                and a["head"].min() >= 0 and a["head"].max() < n
                and a["speaker"].min() >= 0 and a["speaker"].max() < n_speakers
                and finite(a["s0"]) and a["t0"].min() > -np.inf
                and finite(a["created_at"]) and finite(a["confidence"]))


_REAL = (int, float)       # exact types: a bool is not a number here
_OPT_STR = (str, type(None))


def check_record(nid: int, rec: Any) -> dict:
    """Return ``rec`` if it is a memory record as the engine writes it (about 1 µs).

    Raises
    ------
    StoreCorruptedError
        A field is missing or has the wrong type, or a number is not finite.
    """
    try:
        ok = (type(rec) is dict and rec["kind"] in _KINDS and rec["state"] in _STATES
              and type(rec["id"]) is str and type(rec["namespace"]) is str and type(rec["text"]) is str
              and type(rec["created_at"]) in _REAL and type(rec["recorded_at"]) in _REAL
              and type(rec["confidence"]) in _REAL and type(rec["salience"]) in _REAL
              and type(rec["salience_at"]) in _REAL and type(rec["access_count"]) in _REAL
              and math.isfinite(rec["created_at"] + rec["recorded_at"] + rec["confidence"] + rec["salience"]
                                + rec["access_count"])
              # +inf: a decision's salience held until its outcome is reviewed (dynamics.salience)
              and (math.isfinite(rec["salience_at"]) or rec["salience_at"] == math.inf)
              and (rec["last_access"] is None or (type(rec["last_access"]) in _REAL and math.isfinite(rec["last_access"])))
              and type(rec["source"]) in _OPT_STR and type(rec["superseded_by"]) in _OPT_STR
              and type(rec["tags"]) is list and (not rec["tags"] or all(type(t) is str for t in rec["tags"])))
    except (KeyError, TypeError, OverflowError):
        ok = False
    if not ok:
        raise StoreCorruptedError(f"the record of nid {nid} is damaged (a field is missing or of the wrong type)")
    return rec


def check_edges(src: np.ndarray, tgt: np.ndarray, rel: np.ndarray, weight: np.ndarray, n_nodes: int) -> None:
    """Raise :class:`StoreCorruptedError` unless every edge joins nodes below ``n_nodes`` with a
    known relation and a finite weight in (0, 1]."""
    if len(src) and (src.max() >= n_nodes or tgt.max() >= n_nodes or rel.max() >= len(RELATION_BY_CODE)
                     or not np.all(np.isfinite(weight)) or weight.min() <= 0 or weight.max() > 1):
        raise StoreCorruptedError("an edge in the store is damaged (unknown node or relation, or a bad weight)")
