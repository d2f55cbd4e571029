"""Numba kernels: same names, signatures and results as :mod:`engramdb.kernels.reference`.

Compiled with ``@njit(cache=True, nogil=True)`` and no ``fastmath``, so results follow IEEE
rules like the reference. Importing this module imports numba; the registry only does so
when the Numba backend is selected. Runs unchanged (and slowly) with ``NUMBA_DISABLE_JIT=1``,
which the test suite uses to measure coverage of the kernel bodies.
"""
from __future__ import annotations

import threading

import numpy as np
from numba import njit

from engramdb.kernels.reference import COMBINE_SUM, CONTRADICTS

__all__ = ["spread_activation", "decay_salience", "topk"]


@njit(cache=True, nogil=True)
def _spread_core(
    indptr,
    indices,
    weight,
    relation,
    seeds,
    seed_act,
    rel_mult,
    max_depth,
    decay,
    fan_exp,
    degree_cap,
    combine,
    sum_cap,
    act,
    best,
    parent,
    depth,
    order,
):
    """Spread over scratch arrays of length n; return the touched nodes and reset scratch.

    ``depth`` must be -1 everywhere on entry and is -1 everywhere again on return; ``act``,
    ``best``, ``parent`` and ``order`` are read only where ``depth >= 0``.
    """
    sum_mode = combine == COMBINE_SUM
    cap = np.float32(sum_cap)
    decay64 = np.float64(decay)
    fan_exp64 = np.float64(fan_exp)
    one = np.float32(1.0)
    m = 0
    for i in range(seeds.shape[0]):
        s = seeds[i]
        a = seed_act[i]
        if depth[s] < 0:
            depth[s] = 0
            act[s] = a
            best[s] = a
            parent[s] = -1
            order[m] = s
            m += 1
        elif a > act[s]:
            act[s] = a

    lo = 0
    hi = m
    d = 1
    while d <= max_depth and lo < hi:
        for f in range(lo, hi):
            u = order[f]
            start = indptr[u]
            end = indptr[u + 1]
            deg = end - start
            if deg == 0 or deg > degree_cap:
                continue
            if fan_exp64 == 0.0:
                fan = np.float64(1.0)
            else:
                fan = np.float64(deg) ** (-fan_exp64)
            au = np.float64(act[u])
            for e in range(start, end):
                v = indices[e]
                r = relation[e]
                if v == u or r == CONTRADICTS:
                    continue
                w = weight[e]
                if one < w:
                    w = one
                p = np.float32(au * np.float64(w) * np.float64(rel_mult[r]) * decay64 * fan)
                if not p > 0.0:
                    continue
                if depth[v] < 0:
                    depth[v] = d
                    parent[v] = u
                    best[v] = p
                    if sum_mode and p > cap:
                        act[v] = cap
                    else:
                        act[v] = p
                    order[m] = v
                    m += 1
                elif depth[v] == d:
                    if sum_mode:
                        total = np.float32(act[v] + p)
                        act[v] = cap if total > cap else total
                        if p > best[v]:
                            best[v] = p
                            parent[v] = u
                    elif p > act[v]:
                        act[v] = p
                        parent[v] = u
        lo = hi
        hi = m
        d += 1

    out_nodes = np.empty(m, dtype=np.int32)
    out_act = np.empty(m, dtype=np.float32)
    out_parent = np.empty(m, dtype=np.int32)
    out_depth = np.empty(m, dtype=np.int8)
    for i in range(m):
        v = order[i]
        out_nodes[i] = v
        out_act[i] = act[v]
        out_parent[i] = parent[v]
        out_depth[i] = depth[v]
        depth[v] = -1
    return out_nodes, out_act, out_parent, out_depth


_local = threading.local()


def _scratch(n):
    """Per-thread scratch arrays of length ``n`` (depth all -1), reused across calls."""
    cached = getattr(_local, "scratch", None)
    if cached is None or cached[0] != n:
        cached = (
            n,
            np.empty(n, dtype=np.float32),  # act
            np.empty(n, dtype=np.float32),  # best single pass
            np.empty(n, dtype=np.int32),  # parent
            np.full(n, -1, dtype=np.int8),  # depth, -1 = unvisited
            np.empty(n, dtype=np.int32),  # visit order
        )
        _local.scratch = cached
    return cached[1:]


def spread_activation(
    indptr,
    indices,
    weight,
    relation,
    seeds,
    seed_act,
    rel_mult,
    max_depth,
    decay,
    fan_exp,
    degree_cap,
    combine,
    sum_cap,
):
    """Spreading activation (Numba): the contract of :func:`reference.spread_activation`.

    Scratch arrays of length n are cached per thread and only the touched entries are
    reset, so a call costs O(edges touched) after the first one for a given n.
    """
    n = indptr.shape[0] - 1
    act, best, parent, depth, order = _scratch(n)
    try:
        return _spread_core(
            indptr,
            indices,
            weight,
            relation,
            seeds,
            seed_act,
            rel_mult,
            np.int64(max_depth),
            np.float64(decay),
            np.float64(fan_exp),
            np.int64(degree_cap),
            np.int64(combine),
            np.float64(sum_cap),
            act,
            best,
            parent,
            depth,
            order,
        )
    except BaseException:
        _local.scratch = None  # scratch may be dirty; rebuild on the next call
        raise


@njit(cache=True, nogil=True)
def decay_salience(s0, t0, now, half_life_s):
    """Salience decay (Numba): the contract of :func:`reference.decay_salience`."""
    n = s0.shape[0]
    out = np.empty(n, dtype=np.float32)
    now64 = np.float64(now)
    for i in range(n):
        x = -(now64 - np.float64(t0[i])) / np.float64(half_life_s[i])
        out[i] = np.float32(np.float64(s0[i]) * np.exp2(x))
    return out


@njit(cache=True, nogil=True)
def _above(scores, a, b):
    """True if index ``a`` ranks above index ``b``: larger score, then smaller index; NaN last."""
    sa = scores[a]
    sb = scores[b]
    if np.isnan(sa):
        return np.isnan(sb) and a < b
    if np.isnan(sb):
        return True
    return sa > sb or (sa == sb and a < b)


@njit(cache=True, nogil=True)
def _sift_down(heap, size, pos, scores):
    """Restore the heap (root = lowest-ranked index kept) below ``pos``."""
    while True:
        child = 2 * pos + 1
        if child >= size:
            return
        if child + 1 < size and _above(scores, heap[child], heap[child + 1]):
            child += 1
        if _above(scores, heap[pos], heap[child]):
            heap[pos], heap[child] = heap[child], heap[pos]
            pos = child
        else:
            return


@njit(cache=True, nogil=True)
def _topk_core(scores, k):
    n = scores.shape[0]
    if k > n:
        k = n
    if k < 0:
        k = 0
    heap = np.empty(k, dtype=np.int64)
    if k == 0:
        return heap
    for i in range(k):
        heap[i] = i
    for pos in range(k // 2 - 1, -1, -1):
        _sift_down(heap, k, pos, scores)
    for i in range(k, n):
        if _above(scores, i, heap[0]):
            heap[0] = i
            _sift_down(heap, k, 0, scores)
    # Heap sort: move the lowest-ranked kept index to the back, repeatedly.
    for size in range(k - 1, 0, -1):
        heap[0], heap[size] = heap[size], heap[0]
        _sift_down(heap, size, 0, scores)
    return heap


def topk(scores, k):
    """Top-k selection (Numba): the contract of :func:`reference.topk`; a heap, O(n log k)."""
    return _topk_core(scores, np.int64(k))
