"""Pairs of similar memories for consolidation, kept up to date between passes.

Consolidation (:mod:`engramdb.dynamics.consolidate`) clusters memories by exact cosine: row
``i`` pairs with row ``j`` when ``j`` is among the ``k`` rows most similar to ``i`` and their
cosine is at least a floor. Exact, and over the candidates only, on purpose: an approximate
search over the whole namespace would see what a pass adds, and a second pass could find other
pairs. From scratch that is an all-pairs product, O(n^2 dim): most of the 11.8 s a whole pass
takes over 32,000 turns on two cores (``benchmarks/bench_consolidate.py``).

A pass after a session changes few rows, so :class:`SimilarPairs` keeps each row's list (its
``k`` most similar rows at or above the floor) from the last pass, per namespace and purpose,
and updates it: a new row (or one whose vector changed, told by a checksum of its bits) is
compared with every row, every kept row with the new ones only; a kept row is compared with
every row again only when it had more than ``k`` rows at the floor and lost one of its ``k``
(the one after them is not kept). That is O(n m dim) for m new rows, and the pairs are those of
a computation from scratch: a float32 product finds the pairs near the floor, and each of
those cosines is summed again in float64 and rounded to float32, so a pair's cosine does not
depend on what else was computed with it (a float32 product rounds the last bit by its shape
and a column's place in it: exact duplicates did not tie). Ties are broken by the smaller nid,
so the lists do not depend on the order the rows came in. When more than half the rows are new,
the lists are computed whole.

The lists are a cache, like the hnswlib index: kept in memory and saved beside the index
(``DIR/index/<namespace>.pairs-<purpose>``, msgpack, written whole after a pass that changed them,
replaced atomically, with a SHA-256 of its arrays; shredded with the namespace by
``drop_namespace``), so the first pass of a new process (``engramdb consolidate`` run after each
session) starts from them too. A missing, damaged or foreign file is computed again: every row it
holds is checked against the candidate's nid and vector checksum before it is used.
"""
from __future__ import annotations

import hashlib
import os
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import msgpack
import numpy as np

__all__ = ["SimilarPairs", "pairs_for"]

_BLOCK = 512
_ODD: dict[int, np.ndarray] = {}


def _checksums(vecs: np.ndarray) -> np.ndarray:
    """A 64-bit checksum of each row's bits (uint64, shape (n,)): each 32-bit word times an odd
    constant of its column, XORed. A row whose vector changed in any one word changes its sum
    (multiplication by an odd number is a bijection mod 2^64)."""
    words = np.ascontiguousarray(vecs, np.float32).view(np.uint32).astype(np.uint64)
    dim = words.shape[1]
    odd = _ODD.get(dim)
    if odd is None:
        odd = _ODD[dim] = np.random.default_rng(dim).integers(1, 2**63, dim, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    return np.bitwise_xor.reduce(words * odd, axis=1) if dim else np.zeros(len(words), np.uint64)


@dataclass
class _Lists:
    """The lists of one candidate set, rows in ascending nid order."""
    k: int
    floor: float
    dim: int
    nids: np.ndarray       # int64 (n,), ascending
    sums: np.ndarray       # uint64 (n,), checksums of their vectors
    top: np.ndarray        # int64 (n, k): each row's most similar nids at the floor, best first, -1 pads
    sim: np.ndarray        # float32 (n, k): their cosines
    crowded: np.ndarray    # bool (n,): the row had more than k rows at the floor


#: How far below the floor a float32 product's cosine may be and still be one at the floor: its
#: rounding error over 384 dimensions stays below 1e-5.
_SLACK = 1e-4


def _exact(vecs: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The cosines of the row pairs ``(rows[i], cols[i])`` summed in float64, then rounded to
    float32 (shape (len(rows),)): the same for a pair whatever else is computed with it. (A
    float32 matrix product rounds a cosine's last bit by the product's shape and the column's
    place in it, so exact duplicates did not tie.)"""
    out = np.empty(len(rows), np.float32)
    for a in range(0, len(rows), 1 << 16):
        x = vecs[rows[a:a + (1 << 16)]].astype(np.float64)
        y = vecs[cols[a:a + (1 << 16)]].astype(np.float64)
        out[a:a + len(x)] = np.einsum("ij,ij->i", x, y)
    return out


def _at_floor(vecs: np.ndarray, rows: np.ndarray, cols_of: np.ndarray | None, floor: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of ``rows`` (positions) with the rows ``cols_of`` (positions; every row when
    None) at cosine ``floor`` or above, self pairs left out: (row index into ``rows``, column
    position, exact cosine), row-major. A float32 product finds the candidates, :func:`_exact`
    decides."""
    sims = vecs[rows] @ (vecs if cols_of is None else vecs[cols_of]).T
    ri, cj = np.nonzero(sims >= floor - _SLACK)
    if cols_of is not None:
        cj = cols_of[cj]
    other = rows[ri] != cj
    ri, cj = ri[other], cj[other]
    vals = _exact(vecs, rows[ri], cj)
    keep = vals >= floor
    return ri[keep], cj[keep], vals[keep]


def _full_rows(vecs: np.ndarray, nids: np.ndarray, rows: np.ndarray, k: int, floor: float,
               block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lists of ``rows`` (positions into ``vecs``/``nids``) against every row: (top, sim,
    crowded) for those rows, in their order."""
    top = np.full((len(rows), k), -1, np.int64)
    sim = np.zeros((len(rows), k), np.float32)
    crowded = np.zeros(len(rows), bool)
    for a in range(0, len(rows), block):
        r = rows[a:a + block]
        ri, cj, vals = _at_floor(vecs, r, None, floor)
        if not len(ri):
            continue
        order = np.lexsort((nids[cj], -vals, ri))   # by row, then cosine down, then nid up
        ri, cj, vals = ri[order], cj[order], vals[order]
        starts = np.searchsorted(ri, np.arange(len(r) + 1))
        rank = np.arange(len(ri)) - starts[ri]
        keep = rank < k
        top[a + ri[keep], rank[keep]] = nids[cj[keep]]
        sim[a + ri[keep], rank[keep]] = vals[keep]
        crowded[a:a + len(r)] = np.diff(starts) > k
    return top, sim, crowded


def _compute(vecs: np.ndarray, nids: np.ndarray, k: int, floor: float, block: int) -> _Lists:
    top, sim, crowded = _full_rows(vecs, nids, np.arange(len(nids)), k, floor, block)
    return _Lists(k, floor, vecs.shape[1], nids.copy(), _checksums(vecs), top, sim, crowded)


def _put_row(top: np.ndarray, sim: np.ndarray, i: int, entries: list[tuple[float, int]]) -> None:
    """Row ``i`` of the lists set to ``entries`` ((cosine, nid), best first, at most k), -1 padded."""
    top[i], sim[i] = -1, 0.0
    if entries:
        sim[i, :len(entries)], top[i, :len(entries)] = zip(*entries)


def _update(old: _Lists, vecs: np.ndarray, nids: np.ndarray, sums: np.ndarray,
            block: int) -> _Lists | None:
    """``old`` brought up to the rows ``nids`` (ascending) with vectors ``vecs``; None when
    nothing changed (``old`` holds exactly these rows)."""
    k, floor = old.k, old.floor
    at = np.minimum(np.searchsorted(old.nids, nids), len(old.nids) - 1)   # (old holds two rows or more)
    kept = (old.nids[at] == nids) & (old.sums[at] == sums)
    fresh = np.flatnonzero(~kept)
    keep_rows = at[kept]
    if not len(fresh) and len(nids) == len(old.nids):
        return None
    if 2 * len(fresh) > len(nids):   # mostly new: whole is no dearer
        return _compute(vecs, nids, k, floor, block)
    top = np.full((len(nids), k), -1, np.int64)
    sim = np.zeros((len(nids), k), np.float32)
    crowded = np.zeros(len(nids), bool)
    top[kept], sim[kept], crowded[kept] = old.top[keep_rows], old.sim[keep_rows], old.crowded[keep_rows]
    # a listed nid that is gone (or whose vector changed) leaves its rows' lists
    kept_nids = nids[kept]
    gone = (top >= 0) & ~np.isin(top, kept_nids)
    lost = gone.any(axis=1) & kept
    redo = np.flatnonzero(lost & crowded)   # the row after its k is not kept: compared again whole
    merge = np.flatnonzero(lost & ~crowded)
    for i in merge.tolist():   # its list held every row at the floor: drop the gone ones
        _put_row(top, sim, i, [(s, n) for s, n, g in zip(sim[i].tolist(), top[i].tolist(), gone[i].tolist())
                               if n >= 0 and not g])
    whole = np.union1d(fresh, redo)
    if len(whole):
        t, s, c = _full_rows(vecs, nids, whole, k, floor, block)
        top[whole], sim[whole], crowded[whole] = t, s, c
    if len(fresh):   # every other kept row against the new rows
        others = np.flatnonzero(kept)
        others = others[~np.isin(others, redo)]
        for a in range(0, len(others), block):
            r = others[a:a + block]
            ri, cj, vals = _at_floor(vecs, r, fresh, floor)   # (row-major: ri ascending)
            starts = np.searchsorted(ri, np.arange(len(r) + 1))
            for x in np.flatnonzero(np.diff(starts)).tolist():
                i = int(r[x])
                new = [(float(v), int(nids[j])) for v, j in zip(vals[starts[x]:starts[x + 1]].tolist(),
                                                                 cj[starts[x]:starts[x + 1]].tolist())]
                cur = [(s, n) for s, n in zip(sim[i].tolist(), top[i].tolist()) if n >= 0]
                allr = sorted(cur + new, key=lambda e: (-e[0], e[1]))
                crowded[i] = crowded[i] or len(allr) > k
                _put_row(top, sim, i, allr[:k])
    return _Lists(k, floor, old.dim, nids.copy(), sums, top, sim, crowded)


class SimilarPairs:
    """Each candidate's ``k`` most similar candidates at or above a floor (exact cosine, ties by
    the smaller nid), kept per key between calls and brought up to date incrementally (module
    docstring). One per engine state (:func:`pairs_for`); used by the single writer."""

    def __init__(self) -> None:
        self._lists: dict[Any, _Lists] = {}
        self._verdicts: dict[Any, dict[tuple[int, int], tuple[Any, bool]]] = {}

    def pairs(self, key: Any, nids: np.ndarray, vecs: np.ndarray, k: int, floor: float,
              block: int = _BLOCK, path: str | None = None, accept: Callable[[int, int], bool] | None = None,
              accept_keys: Sequence[Any] | None = None) -> list[tuple[int, int]]:
        """Position pairs ``(i, j)``, ``i != j``, sorted, with ``nids[j]`` among the ``k`` rows
        most similar to row ``i`` and cosine at least ``floor``.

        Parameters
        ----------
        key : hashable
            Which list set (e.g. ``(namespace, "facts")``).
        nids : ndarray of int64, shape (n,)
            The candidates' nids, distinct.
        vecs : ndarray of float32, shape (n, dim)
            Their unit vectors.
        k : int
            At least 1.
        floor : float
            Cosine floor.
        path : str, optional
            File the lists of ``key`` are read from when not in memory, and saved to when a call
            changed them (a cache: a file that cannot be read or written is skipped).
        accept : callable (i, j) -> bool, optional
            A further test of a pair (positions); only the pairs it accepts are returned. It
            must be a function of what ``accept_keys[i]`` and ``accept_keys[j]`` hold (e.g. the
            two texts): its answers are kept (in memory) and it is asked again only of a pair
            that is new, or one of whose keys changed.
        accept_keys : sequence, shape (n,)
            Each row's key for ``accept``; compared by equality.

        Returns
        -------
        list of (int, int)
            Positions into ``nids``.
        """
        nids = np.asarray(nids, np.int64)
        vecs = np.ascontiguousarray(vecs, np.float32)
        if len(nids) < 2:
            self._lists.pop(key, None)
            return []
        order = np.argsort(nids, kind="stable")
        s_nids, s_vecs = nids[order], vecs[order]
        old = self._lists.get(key)
        if old is None and path is not None:
            old = _read(path)
        if old is None or old.k != k or old.floor != floor or old.dim != vecs.shape[1]:
            lists = _compute(s_vecs, s_nids, k, floor, block)
        else:
            lists = _update(old, s_vecs, s_nids, _checksums(s_vecs), block)
        if lists is None:   # nothing changed
            lists = old
        elif path is not None:
            _write(path, lists)
        self._lists[key] = lists
        ri, rj = np.nonzero(lists.top >= 0)
        cols = np.searchsorted(s_nids, lists.top[ri, rj])
        out = list(zip(order[ri].tolist(), order[cols].tolist()))
        out.sort()
        if accept is None:
            return out
        if accept_keys is None or len(accept_keys) != len(nids):
            raise ValueError("accept_keys: one key per row is needed with accept")
        before, after = self._verdicts.get(key, {}), {}
        at = nids.tolist()
        kept = []
        for i, j in out:
            pair, tag = (at[i], at[j]), (accept_keys[i], accept_keys[j])
            got = before.get(pair)
            if got is None or got[0] != tag:
                got = (tag, bool(accept(i, j)))
            after[pair] = got
            if got[1]:
                kept.append((i, j))
        self._verdicts[key] = after   # (the pairs of this call only)
        return kept


_ARRAYS = ("nids", "sums", "top", "sim", "crowded")
_FORMAT = "engramdb-pairs-1"
_DTYPES = {"nids": np.int64, "sums": np.uint64, "top": np.int64, "sim": np.float32, "crowded": np.bool_}


def _digest(lists: _Lists) -> bytes:
    h = hashlib.sha256(np.array([lists.k, lists.dim], np.int64).tobytes() + np.float64(lists.floor).tobytes())
    for name in _ARRAYS:
        h.update(np.ascontiguousarray(getattr(lists, name)).tobytes())
    return h.digest()


def _write(path: str, lists: _Lists) -> None:
    """Save ``lists`` at ``path`` (msgpack of the arrays' bytes; atomically: a temporary file,
    then a rename); skipped when the folder cannot take it (a cache)."""
    doc = {"format": _FORMAT, "k": lists.k, "floor": lists.floor, "dim": lists.dim, "digest": _digest(lists),
           **{name: np.ascontiguousarray(getattr(lists, name)).tobytes() for name in _ARRAYS}}
    tmp = path + ".tmp"
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(msgpack.packb(doc, use_bin_type=True))
        os.replace(tmp, path)
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass


def _read(path: str) -> _Lists | None:
    """The lists saved at ``path``; None when there are none, or they are damaged."""
    try:
        with open(path, "rb") as f:
            doc = msgpack.unpackb(f.read(), raw=False)
    except (OSError, ValueError, msgpack.UnpackException):
        return None
    try:
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
            return None
        k, n = int(doc["k"]), len(doc["nids"]) // 8
        arrays = {name: np.frombuffer(doc[name], _DTYPES[name]) for name in _ARRAYS}
        arrays["top"], arrays["sim"] = arrays["top"].reshape(n, k), arrays["sim"].reshape(n, k)
        if n < 2 or k < 1 or any(len(arrays[name]) != n for name in ("sums", "crowded")):
            return None   # (never written: a pass of fewer rows keeps none)
        lists = _Lists(k, float(doc["floor"]), int(doc["dim"]), *(arrays[name] for name in _ARRAYS))
    except (KeyError, TypeError, ValueError):
        return None
    return lists if doc.get("digest") == _digest(lists) else None


_BY_STATE: "weakref.WeakKeyDictionary[Any, SimilarPairs]" = weakref.WeakKeyDictionary()


def pairs_for(state: Any) -> SimilarPairs:
    """The :class:`SimilarPairs` of an engine state (made on first use; dropped with it)."""
    got = _BY_STATE.get(state)
    if got is None:
        got = _BY_STATE[state] = SimilarPairs()
    return got

