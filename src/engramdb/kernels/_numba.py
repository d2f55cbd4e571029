"""Numba kernels: same names, signatures and results as :mod:`engramdb.kernels.reference`.

Compiled with ``@njit(cache=True, nogil=True)`` and no ``fastmath``, so results follow IEEE
rules like the reference. ``spread_activation_batch`` and ``rescore_salience`` run their loops
in parallel (``parallel=True``, ``prange``) over Numba's thread pool
(``numba.set_num_threads``). Importing this module imports numba; the registry only does so
when the Numba backend is selected. Runs unchanged (and slowly) with ``NUMBA_DISABLE_JIT=1``,
which the test suite uses to measure coverage of the kernel bodies.
"""
from __future__ import annotations

import threading

import numba
import numpy as np
from numba import njit, prange

from engramdb.kernels.reference import COMBINE_SUM, CONTRADICTS, LIFT_LANES, lift_shapes

assert LIFT_LANES == 8   # _lane_dot keeps its eight partial sums in scalars
from engramdb.kernels._numba_cache import ensure_numba_cache

ensure_numba_cache(__file__)   # a read-only install must not fail at decoration time

__all__ = [
    "spread_activation",
    "spread_activation_batch",
    "spread_topk",
    "spread_inflow",
    "rescore_salience",
    "admission_score",
    "topk",
    "fuse_seeds",
    "sentence_lift",
]


@njit(cache=True, nogil=True)
def _spread_visit(
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
    """Spread over scratch arrays of length n; return m, the number of touched nodes.

    ``depth`` must be -1 everywhere on entry. On return ``order[:m]`` lists the touched nodes
    and ``act``/``parent``/``depth`` hold their results; :func:`_spread_collect` copies them
    out and restores ``depth`` to -1.
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
    return m


@njit(cache=True, nogil=True)
def _spread_collect(order, m, act, parent, depth, out_nodes, out_act, out_parent, out_depth, at):
    """Copy the m touched nodes into ``out_*[at:at + m]`` and reset their ``depth`` to -1."""
    for i in range(m):
        v = order[i]
        out_nodes[at + i] = v
        out_act[at + i] = act[v]
        out_parent[at + i] = parent[v]
        out_depth[at + i] = depth[v]
        depth[v] = -1


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
    m = _spread_visit(
        indptr, indices, weight, relation, seeds, seed_act, rel_mult, max_depth, decay,
        fan_exp, degree_cap, combine, sum_cap, act, best, parent, depth, order,
    )
    out_nodes = np.empty(m, dtype=np.int32)
    out_act = np.empty(m, dtype=np.float32)
    out_parent = np.empty(m, dtype=np.int32)
    out_depth = np.empty(m, dtype=np.int8)
    _spread_collect(order, m, act, parent, depth, out_nodes, out_act, out_parent, out_depth, 0)
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
def _cand_above(a, v, b, w):
    """True if candidate (activation a, node v) ranks above (b, w): larger, then smaller id; NaN last."""
    if np.isnan(a):
        return np.isnan(b) and v < w
    if np.isnan(b):
        return True
    return a > b or (a == b and v < w)


@njit(cache=True, nogil=True)
def _cand_sift_down(ha, hv, size, pos):
    """Restore the candidate heap (root = lowest-ranked kept) below ``pos``."""
    while True:
        child = 2 * pos + 1
        if child >= size:
            return
        if child + 1 < size and _cand_above(ha[child], hv[child], ha[child + 1], hv[child + 1]):
            child += 1
        if _cand_above(ha[pos], hv[pos], ha[child], hv[child]):
            ha[pos], ha[child] = ha[child], ha[pos]
            hv[pos], hv[child] = hv[child], hv[pos]
            pos = child
        else:
            return


@njit(cache=True, nogil=True)
def _spread_topk_core(
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
    min_depth,
    k,
    act,
    best,
    parent,
    depth,
    order,
):
    """Spread, keep the k best touched nodes with depth >= min_depth in a heap, reset scratch."""
    m = _spread_visit(
        indptr, indices, weight, relation, seeds, seed_act, rel_mult, max_depth, decay,
        fan_exp, degree_cap, combine, sum_cap, act, best, parent, depth, order,
    )
    if k < 0:
        k = 0
    ha = np.empty(k, dtype=np.float32)
    hv = np.empty(k, dtype=np.int32)
    size = 0
    for i in range(m if k > 0 else 0):
        v = order[i]
        if depth[v] < min_depth:
            continue
        if size < k:
            ha[size] = act[v]
            hv[size] = v
            size += 1
            if size == k:
                for pos in range(k // 2 - 1, -1, -1):
                    _cand_sift_down(ha, hv, k, pos)
        elif _cand_above(act[v], v, ha[0], hv[0]):
            ha[0] = act[v]
            hv[0] = v
            _cand_sift_down(ha, hv, k, 0)
    if size < k:
        for pos in range(size // 2 - 1, -1, -1):
            _cand_sift_down(ha, hv, size, pos)
    for end in range(size - 1, 0, -1):
        ha[0], ha[end] = ha[end], ha[0]
        hv[0], hv[end] = hv[end], hv[0]
        _cand_sift_down(ha, hv, end, 0)
    out_parent = np.empty(size, dtype=np.int32)
    out_depth = np.empty(size, dtype=np.int8)
    for i in range(size):
        out_parent[i] = parent[hv[i]]
        out_depth[i] = depth[hv[i]]
    for i in range(m):
        depth[order[i]] = -1
    return hv[:size].copy(), ha[:size].copy(), out_parent, out_depth


def spread_topk(
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
    min_depth,
    k,
):
    """Spreading activation fused with its top-k (Numba): the contract of :func:`reference.spread_topk`.

    The k-heap runs over the touched nodes in the same compiled call, on the per-thread
    scratch of :func:`spread_activation`.
    """
    n = indptr.shape[0] - 1
    act, best, parent, depth, order = _scratch(n)
    try:
        return _spread_topk_core(
            indptr, indices, weight, relation, seeds, seed_act, rel_mult,
            np.int64(max_depth), np.float64(decay), np.float64(fan_exp), np.int64(degree_cap),
            np.int64(combine), np.float64(sum_cap), np.int64(min_depth), np.int64(k),
            act, best, parent, depth, order,
        )
    except BaseException:
        _local.scratch = None  # scratch may be dirty; rebuild on the next call
        raise


@njit(cache=True, nogil=True, parallel=True)
def _spread_batch_parallel(
    indptr,
    indices,
    weight,
    relation,
    seed_indptr,
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
    """All queries in parallel; scratch rows are per thread (row = ``numba.get_thread_id()``).

    Two passes so that threads write disjoint slices of preallocated outputs: the first
    counts each query's touched nodes, the second runs it again and writes its slice.
    """
    q = seed_indptr.shape[0] - 1
    counts = np.zeros(q, dtype=np.int64)
    for i in prange(q):
        t = numba.get_thread_id()
        lo = seed_indptr[i]
        hi = seed_indptr[i + 1]
        m = _spread_visit(
            indptr, indices, weight, relation, seeds[lo:hi], seed_act[lo:hi], rel_mult,
            max_depth, decay, fan_exp, degree_cap, combine, sum_cap,
            act[t], best[t], parent[t], depth[t], order[t],
        )
        counts[i] = m
        for j in range(m):
            depth[t, order[t, j]] = -1
    out_indptr = np.zeros(q + 1, dtype=np.int64)
    for i in range(q):
        out_indptr[i + 1] = out_indptr[i] + counts[i]
    total = out_indptr[q]
    out_nodes = np.empty(total, dtype=np.int32)
    out_act = np.empty(total, dtype=np.float32)
    out_parent = np.empty(total, dtype=np.int32)
    out_depth = np.empty(total, dtype=np.int8)
    for i in prange(q):
        t = numba.get_thread_id()
        lo = seed_indptr[i]
        hi = seed_indptr[i + 1]
        m = _spread_visit(
            indptr, indices, weight, relation, seeds[lo:hi], seed_act[lo:hi], rel_mult,
            max_depth, decay, fan_exp, degree_cap, combine, sum_cap,
            act[t], best[t], parent[t], depth[t], order[t],
        )
        _spread_collect(
            order[t], m, act[t], parent[t], depth[t],
            out_nodes, out_act, out_parent, out_depth, out_indptr[i],
        )
    return out_indptr, out_nodes, out_act, out_parent, out_depth


def _batch_scratch(n, n_threads):
    """Per-Python-thread scratch of shape (n_threads, n) (depth all -1), reused across calls."""
    cached = getattr(_local, "batch_scratch", None)
    if cached is None or cached[0] != (n, n_threads):
        cached = (
            (n, n_threads),
            np.empty((n_threads, n), dtype=np.float32),  # act
            np.empty((n_threads, n), dtype=np.float32),  # best single pass
            np.empty((n_threads, n), dtype=np.int32),  # parent
            np.full((n_threads, n), -1, dtype=np.int8),  # depth, -1 = unvisited
            np.empty((n_threads, n), dtype=np.int32),  # visit order
        )
        _local.batch_scratch = cached
    return cached[1:]


def spread_activation_batch(
    indptr,
    indices,
    weight,
    relation,
    seed_indptr,
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
    """Batched spreading activation (Numba): the contract of :func:`reference.spread_activation_batch`.

    Queries run in parallel (``prange``) with one scratch set per Numba thread, cached per
    calling thread; each query is traversed twice (count, then write) so that threads fill
    disjoint slices of the outputs without locks.
    """
    n = indptr.shape[0] - 1
    scratch = _batch_scratch(n, numba.get_num_threads())
    try:
        return _spread_batch_parallel(
            indptr,
            indices,
            weight,
            relation,
            seed_indptr,
            seeds,
            seed_act,
            rel_mult,
            np.int64(max_depth),
            np.float64(decay),
            np.float64(fan_exp),
            np.int64(degree_cap),
            np.int64(combine),
            np.float64(sum_cap),
            *scratch,
        )
    except BaseException:
        _local.batch_scratch = None  # scratch may be dirty; rebuild on the next call
        raise


@njit(cache=True, nogil=True)
def _inflow_core(
    indptr,
    indices,
    weight,
    relation,
    nodes,
    act,
    rel_mult,
    decay,
    fan_exp,
    degree_cap,
    mark,
):
    """Lateral inflow with ``mark[nodes[i]] = i`` as the membership test; resets ``mark``."""
    m = nodes.shape[0]
    inflow = np.zeros(m, dtype=np.float32)
    source = np.full(m, -1, dtype=np.int32)
    one = np.float32(1.0)
    for i in range(m):
        mark[nodes[i]] = i
    for j in range(m):
        u = nodes[j]
        start = indptr[u]
        end = indptr[u + 1]
        deg = end - start
        if deg == 0 or deg > degree_cap or not act[j] > 0.0:
            continue
        if fan_exp == 0.0:
            fan = np.float64(1.0)
        else:
            fan = np.float64(deg) ** (-fan_exp)
        au = np.float64(act[j])
        for e in range(start, end):
            v = indices[e]
            r = relation[e]
            if v == u or r == CONTRADICTS:
                continue
            at = mark[v]
            if at < 0:
                continue  # not a member
            w = weight[e]
            if one < w:
                w = one
            p = np.float32(au * np.float64(w) * np.float64(rel_mult[r]) * decay * fan)
            if p > inflow[at]:
                inflow[at] = p
                source[at] = u
    for i in range(m):
        mark[nodes[i]] = -1
    return inflow, source


def spread_inflow(
    indptr,
    indices,
    weight,
    relation,
    nodes,
    act,
    rel_mult,
    decay,
    fan_exp,
    degree_cap,
    mark,
):
    """Lateral inflow (Numba): the contract of :func:`reference.spread_inflow`.

    Uses the caller's ``mark`` for membership, so a call costs O(m + edges of the members'
    rows); ``mark`` is all -1 again on return.
    """
    return _inflow_core(
        indptr,
        indices,
        weight,
        relation,
        nodes,
        act,
        rel_mult,
        np.float64(decay),
        np.float64(fan_exp),
        np.int64(degree_cap),
        mark,
    )


@njit(cache=True, nogil=True, parallel=True)
def rescore_salience(s0, t0, kind, half_life_by_kind, now):
    """Salience rescoring by kind (Numba, parallel): the contract of :func:`reference.rescore_salience`.

    The exponent is computed in double (age times the negated reciprocal half-life of the
    kind) and rounded to float32; ``2**x`` is taken in float32.
    """
    n = s0.shape[0]
    k = half_life_by_kind.shape[0]
    neg_inv_h = np.empty(k, dtype=np.float64)
    for j in range(k):
        neg_inv_h[j] = -1.0 / np.float64(half_life_by_kind[j])
    now64 = np.float64(now)
    out = np.empty(n, dtype=np.float32)
    for i in prange(n):
        age = now64 - t0[i]
        if age < 0.0:
            age = 0.0
        x = np.float32(age * neg_inv_h[kind[i]])
        out[i] = s0[i] * np.exp2(x)
    return out


@njit(cache=True, nogil=True)
def _admission_core(features, weights, threshold):
    n = features.shape[0]
    k = weights.shape[0]
    thr = np.float32(threshold)
    score = np.empty(n, dtype=np.float32)
    admit = np.empty(n, dtype=np.bool_)
    for i in range(n):
        s = np.float32(0.0)
        for j in range(k):
            term = np.float32(features[i, j] * weights[j])
            s = term if j == 0 else np.float32(s + term)
        score[i] = s
        admit[i] = s >= thr
    return score, admit


def admission_score(features, weights, threshold):
    """A-MAC admission scoring (Numba): the contract of :func:`reference.admission_score`."""
    return _admission_core(features, weights, np.float64(threshold))


@njit(cache=True, nogil=True)
def _above(scores, a, b):
    """True if index ``a`` ranks above index ``b``: larger score, then smaller index; NaN last
    (the rule of :func:`_cand_above`)."""
    return _cand_above(scores[a], a, scores[b], b)


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


@njit(cache=True, nogil=True)
def _fuse_core(labels, cos, kw_nids, kw_score, kw_cos, w_vector, w_keyword, contrast):
    v, w = labels.shape[0], kw_nids.shape[0]
    seeds = np.empty(v + w, np.int32)
    all_cos = np.empty(v + w, np.float32)
    kw_row = np.empty(w, np.int64)
    for i in range(v):
        seeds[i] = labels[i]
        all_cos[i] = cos[i]
    s = v
    for j in range(w):   # the keyword leg's others follow, in its order
        row = -1
        for i in range(v):
            if labels[i] == kw_nids[j]:
                row = i
                break
        if row < 0:
            row = s
            seeds[s] = kw_nids[j]
            all_cos[s] = kw_cos[j]
            s += 1
        kw_row[j] = row
    vs = np.empty(s, np.float64)
    top = 0.0
    b = 0.0
    mode = 3 if v == 0 else 0   # 0: scale, 1: all zero, 2: all one, 3: empty vector leg
    if v > 0:
        top = max(np.float64(cos[0]), 0.0)
        m = np.empty(v, np.float64)
        for i in range(v):
            m[i] = max(np.float64(cos[i]), 0.0)
        m.sort()
        half = v // 2
        b = contrast * (m[half] if v % 2 else (m[half - 1] + m[half]) / 2.0)
        if top <= 0.0:
            mode = 1
        elif top - b <= 1e-12:
            mode = 2
    for i in range(s):
        p = max(np.float64(all_cos[i]), 0.0)
        if mode == 3:
            x = min(p, 1.0)
        elif mode == 1:
            x = 0.0
        elif mode == 2:
            x = 1.0
        else:
            rel = (p - b) / (top - b)
            x = min(rel, 1.0) if rel > 0.0 else 1e-3 * p / top
        vs[i] = x
    base = w_vector * vs
    if w > 0 and w_keyword > 0.0:
        top_kw = np.float64(kw_score[0]) if kw_score[0] > 0 else 1.0
        for j in range(w):
            base[kw_row[j]] = base[kw_row[j]] + w_keyword * np.float64(kw_score[j]) / top_kw
    out = np.empty(s, np.float32)
    if s > 0:
        best = base.max()
        if best <= 0.0:
            for i in range(s):
                out[i] = vs[i]
        else:
            for i in range(s):
                out[i] = base[i] / best
    return seeds[:s].copy(), out, all_cos[:s].copy()


def fuse_seeds(labels, cos, kw_nids, kw_score, kw_cos, w_vector, w_keyword, contrast):
    """The seeds of a recall from its two legs (Numba): the contract of
    :func:`reference.fuse_seeds`."""
    return _fuse_core(labels, cos, kw_nids, kw_score, kw_cos, np.float64(w_vector), np.float64(w_keyword),
                      np.float64(contrast))


@njit(cache=True, nogil=True)
def _lane_dot(keys, row, query):
    # the eight partial sums of reference.lane_dots as scalars (LIFT_LANES == 8)
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.float32(0.0)
    dim = query.shape[0]
    full = dim - dim % 8
    for j in range(0, full, 8):
        a0 += keys[row, j] * query[j]
        a1 += keys[row, j + 1] * query[j + 1]
        a2 += keys[row, j + 2] * query[j + 2]
        a3 += keys[row, j + 3] * query[j + 3]
        a4 += keys[row, j + 4] * query[j + 4]
        a5 += keys[row, j + 5] * query[j + 5]
        a6 += keys[row, j + 6] * query[j + 6]
        a7 += keys[row, j + 7] * query[j + 7]
    if full < dim:   # a partial sum plus 0.0 is itself (no partial is ever -0.0)
        tail = np.zeros(8, np.float32)
        for j in range(full, dim):
            tail[j - full] = keys[row, j] * query[j]
        a0 += tail[0]
        a1 += tail[1]
        a2 += tail[2]
        a3 += tail[3]
        a4 += tail[4]
        a5 += tail[5]
        a6 += tail[6]
        a7 += tail[7]
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


@njit(cache=True, nogil=True)
def _lift_core(keys, key_start, key_count, nids, cos, query, w):
    n = nids.shape[0]
    out = cos.copy()
    for i in range(n):
        nid = nids[i]
        if nid < 0 or nid >= key_start.shape[0]:
            return out, i
        m = key_count[nid]
        if m <= 0:
            continue
        first = key_start[nid]
        if first < 0 or first > keys.shape[0] - m:
            return out, i
        best = _lane_dot(keys, first, query)
        for r in range(1, m):
            s = _lane_dot(keys, first + r, query)
            if s > best or s != s:   # a NaN is the best for good, as in np.max
                best = s
        lift = best - cos[i]
        if lift > np.float32(0.0):
            up = w * lift
            out[i] = cos[i] + up
    return out, -1


def _typed(name: str, a, dtype, ndim: int = 1):
    """``a`` itself when it is a native-order C-contiguous ndarray of ``dtype`` and ``ndim``
    dimensions, as the C wrapper takes; else ValueError (the compiled loop checks no bounds)."""
    if (not isinstance(a, np.ndarray) or a.dtype != dtype or not a.dtype.isnative or a.ndim != ndim
            or not a.flags.c_contiguous):
        raise ValueError(f"{name}: expected a {ndim}-d C-contiguous array of {np.dtype(dtype)}, "
                         f"got {type(a).__name__} {getattr(a, 'dtype', '')} {getattr(a, 'shape', '')}")
    return a


def sentence_lift(keys, key_start, key_count, nids, cos, query, weight):
    """Cosines lifted toward each memory's best sentence key (Numba): the contract of
    :func:`reference.sentence_lift`; the arrays' types as the C wrapper takes them (ValueError
    otherwise)."""
    keys = _typed("keys", keys, np.float32, 2)
    key_start, key_count = _typed("key_start", key_start, np.int64), _typed("key_count", key_count, np.int32)
    nids, cos, query = _typed("nids", nids, np.int64), _typed("cos", cos, np.float32), _typed("query", query, np.float32)
    lift_shapes(keys, key_start, key_count, nids, cos, query)
    out, bad = _lift_core(keys, key_start, key_count, nids, cos, query, np.float32(weight))
    if bad >= 0:
        raise ValueError(f"nids[{bad}] = {nids[bad]}: no such node, or its key rows are outside keys")
    return out
