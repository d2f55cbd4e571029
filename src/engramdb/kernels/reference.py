"""Reference kernels: the executable specification, in short NumPy/Python.

Every other backend (``_numba``, ``_ckernels``) must return the same arrays, with the same
dtypes, for the same inputs; ``tests/kernels/test_*_agreement.py`` checks this. This module is
also the last-resort fallback of :mod:`engramdb.kernels.registry`.

Kernels never validate their input: the engine checks shapes, dtypes, ranges and finiteness
before calling them. Passing anything outside the documented contract is undefined behaviour
(the C backend may read out of bounds).

Floating-point contract, shared by all backends so that they agree bit for bit up to ``pow``
and ``exp2`` rounding: the activation passed along an edge is computed in float64 as
``act[u] * min(weight, 1) * rel_mult[rel] * decay * fan`` (left to right) and then rounded to
float32; SUM accumulates in float32.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "RELATED_TO",
    "SUPPORTS",
    "CONTRADICTS",
    "SUPERSEDES",
    "CAUSED_BY",
    "INFORMED_BY",
    "EVIDENCE_FOR",
    "DISCUSSED_IN",
    "EXTRACTED_FROM",
    "NEXT",
    "MENTIONS",
    "SAME_SESSION",
    "SAME_SPEAKER",
    "RELATION_NAMES",
    "N_RELATIONS",
    "COMBINE_MAX",
    "COMBINE_SUM",
    "ADMISSION_FACTORS",
    "spread_activation",
    "spread_activation_batch",
    "spread_topk",
    "spread_inflow",
    "rescore_salience",
    "admission_score",
    "topk",
    "fuse_seeds",
    "sentence_lift",
    "lane_dots",
    "lift_shapes",
    "LIFT_LANES",
    "BM25Postings",
    "bm25_search",
    "murmurhash3_32",
    "hashing_embed",
]

# Relation codes stored in the CSR ``relation`` array (uint8). The order is part of the
# on-disk format: append new relations at the end, never renumber.
RELATED_TO = 0
SUPPORTS = 1
CONTRADICTS = 2
SUPERSEDES = 3
CAUSED_BY = 4
INFORMED_BY = 5
EVIDENCE_FOR = 6
DISCUSSED_IN = 7
EXTRACTED_FROM = 8
NEXT = 9
MENTIONS = 10
SAME_SESSION = 11
SAME_SPEAKER = 12

RELATION_NAMES = (
    "related_to",
    "supports",
    "contradicts",
    "supersedes",
    "caused_by",
    "informed_by",
    "evidence_for",
    "discussed_in",
    "extracted_from",
    "next",
    "mentions",
    "same_session",
    "same_speaker",
)
N_RELATIONS = len(RELATION_NAMES)

# Columns of the ``features`` argument of :func:`admission_score`, in order (A-MAC).
ADMISSION_FACTORS = (
    "future_utility",
    "factual_confidence",
    "semantic_novelty",
    "temporal_recency",
    "content_type_prior",
)

# Values of the ``combine`` argument of :func:`spread_activation`.
COMBINE_MAX = 0
COMBINE_SUM = 1


def _f32(x: float) -> float:
    """Round a Python float to the nearest float32 value (kept as a Python float)."""
    return float(np.float32(x))


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
    """Spreading activation from seed nodes over a typed, weighted CSR graph.

    Breadth-first by levels with a visited set. Level 0 is the seeds. At level
    ``d = 1 .. max_depth`` every node ``u`` of level ``d - 1`` (in first-visit order) whose
    row length is at most ``degree_cap`` passes, along each edge ``u -> v`` in CSR order
    (self-loops and ``contradicts`` edges skipped),

        pass = act[u] * min(weight, 1) * rel_mult[relation] * decay * deg(u) ** -fan_exp

    and edges with ``pass <= 0`` are skipped. An unvisited ``v`` is visited at depth ``d``
    with ``act = pass`` and ``parent = u``. A ``v`` already visited at the same depth ``d``
    combines: MAX keeps the larger pass (and its ``u``); SUM adds, capped at ``sum_cap``, and
    its parent is the ``u`` of the largest single pass. Ties keep the first. Nodes visited at
    an earlier level never change, which keeps the cost linear in the edges touched.

    Parameters
    ----------
    indptr : ndarray of int64, shape (n + 1,)
        CSR row pointers; row ``u`` is ``indptr[u]:indptr[u + 1]``.
    indices : ndarray of int32, shape (nnz,)
        Edge targets, each in ``[0, n)``.
    weight : ndarray of float32, shape (nnz,)
        Edge weights; values above 1 count as 1.
    relation : ndarray of uint8, shape (nnz,)
        Relation code per edge (see :data:`RELATION_NAMES`); ``CONTRADICTS`` (2) carries
        no activation.
    seeds : ndarray of int32, shape (s,)
        Seed nodes. Duplicates are allowed: the first occurrence fixes the position, the
        largest ``seed_act`` wins.
    seed_act : ndarray of float32, shape (s,)
        Initial activation of each seed (usually its cosine similarity to the query).
    rel_mult : ndarray of float32, shape (n_rel,)
        Multiplier per relation code; ``n_rel`` must exceed every code in ``relation``.
    max_depth : int
        Number of hops, in ``[0, 127]`` (depths are returned as int8); 0 returns the seeds.
    decay : float
        Attenuation per hop, in (0, 1]. docs/design.md default 0.5.
    fan_exp : float
        Fan-effect exponent, >= 0: a node's outflow is divided by ``deg(u) ** fan_exp``,
        where ``deg`` counts every edge of the row (all relations). 0 turns the fan off.
    degree_cap : int
        Hubs whose row length exceeds this, > 0, are reached but never expanded (seeds
        included).
    combine : int
        ``COMBINE_MAX`` (0) or ``COMBINE_SUM`` (1): how paths of equal length combine.
    sum_cap : float
        Upper bound of every activation computed under SUM (a single pass included);
        ignored under MAX.

    Returns
    -------
    nodes : ndarray of int32, shape (m,)
        Every node touched, seeds first, in order of first visit.
    act : ndarray of float32, shape (m,)
        Activation of each node.
    parent : ndarray of int32, shape (m,)
        Node that passed the (largest) activation; -1 for seeds. Following parents gives the
        path that explains a recall.
    depth : ndarray of int8, shape (m,)
        Hops from the nearest seed (0 for seeds).

    Raises
    ------
    None
        Kernels do not validate; out-of-range input is undefined behaviour.

    References
    ----------
    Collins & Loftus (1975), Psychological Review 82(6), section "Spreading activation";
    Anderson (1974), Cognitive Psychology 6, "Retrieval of propositional information from
    long-term memory" (the fan effect); SYNAPSE, arXiv:2601.02744, section 3 (spreading
    activation with a visited set); docs/design.md "Recall", step 4.
    """
    sum_mode = int(combine) == COMBINE_SUM
    cap = _f32(sum_cap)
    decay = float(decay)
    fan_exp = float(fan_exp)
    mult = [float(x) for x in np.asarray(rel_mult, dtype=np.float32)]
    ptr = np.asarray(indptr, dtype=np.int64).tolist()

    act: dict[int, float] = {}  # float32-representable values held as Python floats
    best: dict[int, float] = {}  # largest single pass into a node (SUM parent choice)
    parent: dict[int, int] = {}
    depth: dict[int, int] = {}
    order: list[int] = []

    for s, a in zip(np.asarray(seeds).tolist(), np.asarray(seed_act, np.float32).tolist()):
        if s not in depth:
            depth[s], act[s], parent[s] = 0, a, -1
            order.append(s)
        elif a > act[s]:
            act[s] = a

    lo, hi = 0, len(order)
    for d in range(1, int(max_depth) + 1):
        if lo == hi:
            break
        for u in order[lo:hi]:
            start, end = ptr[u], ptr[u + 1]
            deg = end - start
            if deg == 0 or deg > degree_cap:
                continue
            fan = 1.0 if fan_exp == 0.0 else float(deg) ** (-fan_exp)
            rows = zip(
                indices[start:end].tolist(),
                weight[start:end].tolist(),
                relation[start:end].tolist(),
            )
            for v, w, r in rows:
                if v == u or r == CONTRADICTS:
                    continue
                w = 1.0 if 1.0 < w else w
                p = _f32(act[u] * w * mult[r] * decay * fan)
                if not p > 0.0:
                    continue
                if v not in depth:
                    depth[v], parent[v], best[v] = d, u, p
                    act[v] = (cap if p > cap else p) if sum_mode else p
                    order.append(v)
                elif depth[v] == d:
                    if sum_mode:
                        total = _f32(act[v] + p)
                        act[v] = cap if total > cap else total
                        if p > best[v]:
                            best[v], parent[v] = p, u
                    elif p > act[v]:
                        act[v], parent[v] = p, u
        lo, hi = hi, len(order)

    return (
        np.array(order, dtype=np.int32),
        np.array([act[v] for v in order], dtype=np.float32),
        np.array([parent[v] for v in order], dtype=np.int32),
        np.array([depth[v] for v in order], dtype=np.int8),
    )


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
    """Spreading activation for ``q`` independent queries over one CSR graph.

    Query ``i`` spreads from ``seeds[seed_indptr[i]:seed_indptr[i + 1]]`` (with the matching
    ``seed_act``) exactly as :func:`spread_activation` does for that query alone; its result
    is the slice ``out_indptr[i]:out_indptr[i + 1]`` of the four concatenated output arrays.

    Parameters
    ----------
    indptr : ndarray of int64, shape (n + 1,)
        CSR row pointers.
    indices : ndarray of int32, shape (nnz,)
        Edge targets, each in ``[0, n)``.
    weight : ndarray of float32, shape (nnz,)
        Edge weights; values above 1 count as 1.
    relation : ndarray of uint8, shape (nnz,)
        Relation code per edge.
    seed_indptr : ndarray of int64, shape (q + 1,)
        Query pointers into ``seeds``: nondecreasing, ``seed_indptr[0] == 0`` and
        ``seed_indptr[q] == s``. ``q`` may be 0 (``seed_indptr == [0]``).
    seeds : ndarray of int32, shape (s,)
        Seed nodes of all queries, concatenated.
    seed_act : ndarray of float32, shape (s,)
        Initial activation of each seed.
    rel_mult : ndarray of float32, shape (n_rel,)
        Multiplier per relation code.
    max_depth : int
        Hops, in ``[0, 127]``.
    decay : float
        Attenuation per hop, in (0, 1].
    fan_exp : float
        Fan-effect exponent, >= 0.
    degree_cap : int
        Rows longer than this, > 0, are not expanded.
    combine : int
        ``COMBINE_MAX`` (0) or ``COMBINE_SUM`` (1).
    sum_cap : float
        Upper bound of activations under SUM.

    Returns
    -------
    out_indptr : ndarray of int64, shape (q + 1,)
        Query pointers into the four arrays below; ``out_indptr[0] == 0``.
    nodes : ndarray of int32, shape (m,)
        Touched nodes of every query, query by query, each in first-visit order.
    act : ndarray of float32, shape (m,)
        Activation of each node.
    parent : ndarray of int32, shape (m,)
        Parent node within the same query; -1 for seeds.
    depth : ndarray of int8, shape (m,)
        Hops from the query's nearest seed.

    Raises
    ------
    None
        Kernels do not validate; out-of-range input is undefined behaviour.

    References
    ----------
    As :func:`spread_activation`; docs/design.md "Recall", step 4.
    """
    ptr = np.asarray(seed_indptr, dtype=np.int64).tolist()
    q = len(ptr) - 1
    parts = [
        spread_activation(
            indptr, indices, weight, relation,
            seeds[ptr[i]:ptr[i + 1]], seed_act[ptr[i]:ptr[i + 1]],
            rel_mult, max_depth, decay, fan_exp, degree_cap, combine, sum_cap,
        )
        for i in range(q)
    ]
    out_indptr = np.zeros(q + 1, dtype=np.int64)
    out_indptr[1:] = np.cumsum([p[0].shape[0] for p in parts], dtype=np.int64)
    dtypes = (np.int32, np.float32, np.int32, np.int8)
    return (out_indptr,) + tuple(
        np.concatenate([p[j] for p in parts]).astype(dt, copy=False) if parts
        else np.empty(0, dtype=dt)
        for j, dt in enumerate(dtypes)
    )


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
    """Spreading activation followed by the ``k`` most activated nodes: the fused recall step.

    Runs :func:`spread_activation` with the same arguments, keeps the touched nodes with
    ``depth >= min_depth`` (``min_depth=1`` drops the seeds) and returns the ``k`` of largest
    activation, best first, ties broken by the smaller node id and NaN ranked last (the rule
    of :func:`topk`, applied to node ids). The native backends select with a k-heap over the
    touched nodes only, inside the traversal's call, instead of copying them all out.

    Parameters
    ----------
    indptr, indices, weight, relation, seeds, seed_act, rel_mult, max_depth, decay, fan_exp,
    degree_cap, combine, sum_cap
        As for :func:`spread_activation` (CSR int64/int32/float32/uint8, seeds int32,
        seed_act and rel_mult float32).
    min_depth : int
        Smallest hop count a returned node may have, >= 0; 0 lets seeds compete, 1 ranks only
        what spreading reached.
    k : int
        How many nodes to return; ``k <= 0`` gives empty arrays.

    Returns
    -------
    nodes : ndarray of int32, shape (min(max(k, 0), m'),)
        The selected nodes, best first (``m'`` = touched nodes with ``depth >= min_depth``).
    act : ndarray of float32, shape (same,)
        Their activation.
    parent : ndarray of int32, shape (same,)
        The node that passed the (largest) activation; -1 for seeds.
    depth : ndarray of int8, shape (same,)
        Hops from the nearest seed.

    Raises
    ------
    None
        Kernels do not validate; out-of-range input is undefined behaviour.

    References
    ----------
    As :func:`spread_activation`; docs/design.md "Recall", steps 4 and 5.
    """
    nodes, act, parent, depth = spread_activation(
        indptr, indices, weight, relation, seeds, seed_act, rel_mult,
        max_depth, decay, fan_exp, degree_cap, combine, sum_cap)
    keep = depth >= int(min_depth)
    nodes, act, parent, depth = nodes[keep], act[keep], parent[keep], depth[keep]
    values = act.tolist()
    ids = nodes.tolist()
    ranked = sorted(
        range(len(values)),
        key=lambda i: (math.isnan(values[i]), -values[i] if not math.isnan(values[i]) else 0.0, ids[i]),
    )
    take = np.array(ranked[: max(0, min(int(k), len(values)))], dtype=np.int64)
    return nodes[take], act[take], parent[take], depth[take]


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
    """Lateral inflow: the strongest single pass each activated node receives from another.

    For an activated set ``nodes`` (e.g. the output of :func:`spread_activation`) with
    activations ``act``, every ``u = nodes[j]`` (``j = 0 .. m - 1``) with ``act[j] > 0`` and
    ``1 <= deg(u) <= degree_cap`` passes, along each edge ``u -> v`` in CSR order whose target
    ``v`` is another member of ``nodes`` (self-loops and ``contradicts`` edges skipped),

        pass = act[j] * min(weight, 1) * rel_mult[relation] * decay * deg(u) ** -fan_exp

    with the floating-point contract of the module docstring (float64, left to right, rounded
    to float32), as :func:`spread_activation` computes it. Each member keeps the largest pass
    it receives and its sender:

        if pass > inflow[pos(v)]: inflow[pos(v)], source[pos(v)] = pass, u

    strictly greater, so ties keep the first (by ``j``, then CSR order) and passes ``<= 0``
    (or NaN) change nothing. This is the lateral, spreading part of a node's activation, on
    top of its own (base) activation, that ACT* adds from the other active nodes; where ACT-R
    sums the sources (``sum_j W_j S_ji``, Anderson & Lebiere 1998) this keeps the single
    strongest one, which also names the node that explains it.

    Parameters
    ----------
    indptr : ndarray of int64, shape (n + 1,)
        CSR row pointers; row ``u`` is ``indptr[u]:indptr[u + 1]``.
    indices : ndarray of int32, shape (nnz,)
        Edge targets, each in ``[0, n)``.
    weight : ndarray of float32, shape (nnz,)
        Edge weights; values above 1 count as 1.
    relation : ndarray of uint8, shape (nnz,)
        Relation code per edge (see :data:`RELATION_NAMES`); ``CONTRADICTS`` (2) carries
        no activation.
    nodes : ndarray of int32, shape (m,)
        The activated set: distinct node ids, each in ``[0, n)``. ``m`` may be 0.
    act : ndarray of float32, shape (m,)
        Activation of each member; members with ``act <= 0`` (or NaN) pass nothing.
    rel_mult : ndarray of float32, shape (n_rel,)
        Multiplier per relation code; ``n_rel`` must exceed every code in ``relation``.
    decay : float
        Attenuation of one hop, in (0, 1]. docs/design.md default 0.5.
    fan_exp : float
        Fan-effect exponent, >= 0: a node's outflow is divided by ``deg(u) ** fan_exp``,
        where ``deg`` counts every edge of the row (all relations, self-loops included).
        0 turns the fan off (factor 1).
    degree_cap : int
        Members whose row length exceeds this, > 0, pass nothing (hubs), as in
        :func:`spread_activation`; they can still receive.
    mark : ndarray of int32, shape (n,)
        Caller-owned scratch, -1 everywhere on entry and again on return. The Numba and C
        backends write ``mark[nodes[i]] = i`` and then reset only those m entries, so a call
        costs O(m + edges of the members' rows), never O(n). This reference uses a dict and
        leaves ``mark`` untouched. Danger: a ``mark`` that is not all -1 on entry gives
        wrong results, and sharing one between concurrent calls is a data race.

    Returns
    -------
    inflow : ndarray of float32, shape (m,)
        Largest single pass into ``nodes[i]`` from another member; 0 if none.
    source : ndarray of int32, shape (m,)
        Node that sent it; -1 if none.

    Raises
    ------
    None
        Kernels do not validate; out-of-range input is undefined behaviour.

    References
    ----------
    Anderson (1983), "The Architecture of Cognition", Harvard University Press, chapter 3,
    "Spread of Activation" (spreading activation in ACT*: every active node sends activation
    to its associates, divided among them, the fan effect); Collins & Loftus (1975), Psychological
    Review 82(6), section "Spreading activation"; docs/design.md "Recall", step 4.
    """
    m = len(nodes)
    inflow = np.zeros(m, dtype=np.float32)
    source = np.full(m, -1, dtype=np.int32)
    if m == 0:
        return inflow, source
    decay = float(decay)
    fan_exp = float(fan_exp)
    mult = [float(x) for x in np.asarray(rel_mult, dtype=np.float32)]
    ptr = np.asarray(indptr, dtype=np.int64).tolist()
    members = np.asarray(nodes).tolist()
    pos = {v: i for i, v in enumerate(members)}
    best = [0.0] * m  # float32-representable values held as Python floats
    sent = [-1] * m
    for u, a in zip(members, np.asarray(act, dtype=np.float32).tolist()):
        start, end = ptr[u], ptr[u + 1]
        deg = end - start
        if deg == 0 or deg > degree_cap or not a > 0.0:
            continue
        fan = 1.0 if fan_exp == 0.0 else float(deg) ** (-fan_exp)
        rows = zip(
            indices[start:end].tolist(),
            weight[start:end].tolist(),
            relation[start:end].tolist(),
        )
        for v, w, r in rows:
            if v == u or r == CONTRADICTS:
                continue
            i = pos.get(v)
            if i is None:
                continue
            w = 1.0 if 1.0 < w else w
            p = _f32(a * w * mult[r] * decay * fan)
            if p > best[i]:
                best[i], sent[i] = p, u
    inflow[:] = best
    source[:] = sent
    return inflow, source


def rescore_salience(s0, t0, kind, half_life_by_kind, now):
    """Salience after decay with the half-life looked up by kind code, for column arrays.

        out[i] = s0[i] * 2 ** (-max(now - t0[i], 0) / half_life_by_kind[kind[i]])

    Computed in float64, returned rounded to float32. A ``t0`` later than ``now`` counts as
    age 0 (salience never grows). One byte of ``kind`` per memory replaces a float32 half-life
    column, so a rescoring pass over n memories reads 13 n bytes and writes 4 n. The Numba and
    C backends compute the exponent in double and ``2**x`` in float32, and agree with this
    reference to rtol 1e-5 over the float32 normal range.

    Parameters
    ----------
    s0 : ndarray of float32, shape (n,)
        Salience at ``t0``, in [0, 1].
    t0 : ndarray of float64, shape (n,)
        Time of the last update, Unix seconds.
    kind : ndarray of uint8, shape (n,)
        Kind code of each memory, each < ``K``.
    half_life_by_kind : ndarray of float32, shape (K,)
        Half-life in seconds per kind code, > 0 (docs/design.md: one per memory kind).
    now : float
        Current time, Unix seconds.

    Returns
    -------
    ndarray of float32, shape (n,)
        Decayed salience, ``<= s0``.

    Raises
    ------
    None
        Kernels do not validate; the engine checks shapes, codes and finiteness.

    References
    ----------
    Settles & Meeder (2016), ACL, section 3.1 (p = 2**(-delta / h)); docs/design.md "Memory
    dynamics" (a batch rescoring job materialises the lazily decayed salience).
    """
    s0 = np.asarray(s0, dtype=np.float64)
    age = np.maximum(float(now) - np.asarray(t0, dtype=np.float64), 0.0)
    h = np.asarray(half_life_by_kind, dtype=np.float64)[np.asarray(kind, dtype=np.intp)]
    return (s0 * np.exp2(-age / h)).astype(np.float32)


def admission_score(features, weights, threshold):
    """A-MAC admission: weighted sum of a candidate's factors, and whether it is admitted.

        score[i] = sum_j features[i, j] * weights[j],    admit[i] = score[i] >= threshold

    Accumulated in float32, column by column from j = 0 (each product and each partial sum
    rounded to float32, no fused multiply-add), so that the backends agree; ``threshold`` is
    rounded to float32 before the comparison. A NaN score is never admitted.

    Parameters
    ----------
    features : ndarray of float32, shape (n, k), C-contiguous
        One row per candidate; with ``k = 5`` the columns are :data:`ADMISSION_FACTORS`:
        future utility, factual confidence, semantic novelty (1 - max cosine to what is
        stored), temporal recency and content-type prior, each in [0, 1].
    weights : ndarray of float32, shape (k,)
        Weight per factor. A-MAC's reference system uses 0.25, 0.15, 0.20, 0.10, 0.30.
    threshold : float
        Minimum score to admit; A-MAC's reference system uses 0.55.

    Returns
    -------
    score : ndarray of float32, shape (n,)
        Admission score of each candidate.
    admit : ndarray of bool, shape (n,)
        ``score >= threshold``.

    Raises
    ------
    None
        Kernels do not validate; the engine checks shapes, ranges and finiteness.

    References
    ----------
    A-MAC, arXiv:2603.04549, section 3 (admission score as a weighted sum of five factors);
    docs/design.md "Memory dynamics" (admission, scored in batches).
    """
    f = np.asarray(features, dtype=np.float32)
    w = np.asarray(weights, dtype=np.float32)
    score = np.zeros(f.shape[0], dtype=np.float32)
    for j in range(w.shape[0]):
        term = f[:, j] * w[j]  # float32 product
        score = term if j == 0 else score + term
    return score, score >= np.float32(threshold)


def topk(scores, k):
    """Indices of the ``k`` largest scores, best first, ties broken by the smaller index.

    NaN ranks below every number (and NaNs among themselves by index); -0.0 equals 0.0.

    Parameters
    ----------
    scores : ndarray of float32, shape (n,)
        Scores to rank.
    k : int
        How many indices to return; ``k <= 0`` gives an empty array.

    Returns
    -------
    ndarray of int64, shape (min(max(k, 0), n),)
        Indices into ``scores``, sorted by descending score.

    Raises
    ------
    None
        Kernels do not validate.

    References
    ----------
    docs/design.md "Recall", steps 2 and 5 (seed selection and ranking).
    """
    values = np.asarray(scores, dtype=np.float32).tolist()
    k = max(0, min(int(k), len(values)))
    ranked = sorted(
        range(len(values)),
        key=lambda i: (math.isnan(values[i]), -values[i] if not math.isnan(values[i]) else 0.0, i),
    )
    return np.array(ranked[:k], dtype=np.int64)


def fuse_seeds(labels, cos, kw_nids, kw_score, kw_cos, w_vector, w_keyword, contrast):
    """The seeds of a recall from its two legs on one scale (recall's fusion step).

    The seeds are the vector leg's memories, then the keyword leg's not among them, in the
    keyword leg's order. Each gets base = w_vector * v + w_keyword * kw, then divided by the
    best base (when that is > 0; else base = v):

    - v is the cosine on the vector leg's scale: with top the best cosine of the vector leg
      (clipped at 0) and b = contrast * the median of its cosines (each clipped at 0),
      v = min((p - b) / (top - b), 1) for p = max(cosine, 0) above b, else 1e-3 * p / top
      (a tiny score that keeps the order below b); all 0 when top <= 0, all 1 when
      top - b <= 1e-12; min(p, 1) when the vector leg is empty;
    - kw is the keyword leg's score over its best score (over 1 when the best is <= 0), 0 for
      a memory the keyword leg did not find.

    Computed in float64 (left to right as written), returned rounded to float32.

    Parameters
    ----------
    labels : ndarray of int64, shape (v,)
        The vector leg, best first; distinct.
    cos : ndarray of float32, shape (v,)
        Their cosines to the query, descending; finite.
    kw_nids : ndarray of int64, shape (w,)
        The keyword leg, best first; distinct.
    kw_score : ndarray of float32, shape (w,)
        Their BM25 scores, descending; finite.
    kw_cos : ndarray of float32, shape (w,)
        Their cosines to the query; read only for the memories not in ``labels``; finite there.
    w_vector, w_keyword : float
        Weights of the two legs, >= 0.
    contrast : float
        The share of the vector leg's median cosine taken as its floor b, in [0, 1].

    Returns
    -------
    seeds : ndarray of int32, shape (s,)
        ``labels``, then the keyword leg's others (s = v + their number).
    base : ndarray of float32, shape (s,)
    seed_cos : ndarray of float32, shape (s,)
        ``cos``, then the others' ``kw_cos``.

    References
    ----------
    docs/design.md "Recall", step 1 (fusion of the vector and keyword legs); Bruch, Gai &
    Ingber (2023), "An analysis of fusion functions for hybrid retrieval", ACM TOIS (convex
    combination of normalised scores).
    """
    labels = np.asarray(labels, np.int64)
    cos = np.asarray(cos, np.float32)
    kw_nids = np.asarray(kw_nids, np.int64)
    at = {x: i for i, x in enumerate(labels.tolist())}
    extra = [j for j, x in enumerate(kw_nids.tolist()) if x not in at]
    for j in extra:
        at[int(kw_nids[j])] = len(at)
    nids = np.concatenate([labels, kw_nids[extra]])
    all_cos = np.concatenate([cos, np.asarray(kw_cos, np.float32)[extra]])
    pos = np.maximum(all_cos.astype(np.float64), 0.0)
    if len(cos) == 0:
        v = np.minimum(pos, 1.0)
    else:
        top = max(float(cos[0]), 0.0)
        b = contrast * float(np.median(np.maximum(cos.astype(np.float64), 0.0)))
        if top <= 0.0:
            v = np.zeros(len(pos))
        elif top - b <= 1e-12:
            v = np.ones(len(pos))
        else:
            rel = (pos - b) / (top - b)
            v = np.where(rel > 0.0, np.minimum(rel, 1.0), 1e-3 * pos / top)
    base = w_vector * v
    if len(kw_nids) and w_keyword > 0:
        top_kw = float(kw_score[0]) if kw_score[0] > 0 else 1.0
        rows = [at[x] for x in kw_nids.tolist()]
        base[rows] += w_keyword * np.asarray(kw_score, np.float32).astype(np.float64) / top_kw
    if len(base):
        best = float(base.max())
        if best <= 0:
            base, best = v, 1.0
        base = base / best
    return nids.astype(np.int32), base.astype(np.float32), all_cos


#: Partial sums of a sentence key's cosine in :func:`sentence_lift` (ENGRAM_LIFT_LANES in C).
LIFT_LANES = 8


def lane_dots(rows, query):
    """Cosines of unit rows to a unit query (float32, shape (m,)) in the summation order every
    backend of :func:`sentence_lift` follows: component j of a row goes to partial sum j mod
    :data:`LIFT_LANES`, each partial summed in float32 from j = 0 upward (each product and each
    sum rounded to float32), then the partials added pairwise: ((p0 + p1) + (p2 + p3)) + ((p4 +
    p5) + (p6 + p7)). Independent partials let a compiled loop run at the adder's throughput;
    the fixed order makes the backends agree bit for bit.

    Parameters
    ----------
    rows : ndarray of float32, shape (m, dim)
    query : ndarray of float32, shape (dim,)
    """
    rows = np.asarray(rows, np.float32)
    query = np.asarray(query, np.float32)
    m, dim = rows.shape
    acc = np.zeros((m, LIFT_LANES), np.float32)
    full = dim - dim % LIFT_LANES
    for j in range(0, full, LIFT_LANES):
        acc += rows[:, j:j + LIFT_LANES] * query[j:j + LIFT_LANES]   # float32 product, then sum
    for j in range(full, dim):
        acc[:, j - full] += rows[:, j] * query[j]
    a, b = acc[:, 0] + acc[:, 1], acc[:, 2] + acc[:, 3]
    c, d = acc[:, 4] + acc[:, 5], acc[:, 6] + acc[:, 7]
    return (a + b) + (c + d)


def lift_shapes(keys, key_start, key_count, nids, cos, query) -> None:
    """Check that the arrays of :func:`sentence_lift` agree in shape: ``keys`` 2-d, the others
    1-d, ``key_count`` as long as ``key_start``, ``cos`` as ``nids``, ``query`` as a key.

    Raises
    ------
    ValueError
        One of them does not.
    """
    if np.ndim(keys) != 2:
        raise ValueError(f"keys: expected a 2-d array, got shape {np.shape(keys)}")
    for name, a in (("key_start", key_start), ("key_count", key_count), ("nids", nids), ("cos", cos),
                    ("query", query)):
        if np.ndim(a) != 1:
            raise ValueError(f"{name}: expected a 1-d array, got shape {np.shape(a)}")
    if len(key_count) != len(key_start):
        raise ValueError(f"key_count: expected {len(key_start)} counts, got {len(key_count)}")
    if len(cos) != len(nids):
        raise ValueError(f"cos: expected {len(nids)} cosines, got {len(cos)}")
    if len(query) != np.shape(keys)[1]:
        raise ValueError(f"query: expected {np.shape(keys)[1]} components, got {len(query)}")


def sentence_lift(keys, key_start, key_count, nids, cos, query, weight):
    """Cosines of memories to a query, each lifted toward its best sentence key's.

        out[i] = c + w * (s - c)  when s > c,  else c

    with c = ``cos[i]``, s the best cosine of the sentence keys of memory ``nids[i]`` to
    ``query`` (:func:`lane_dots`, float32; NaN when any of them is NaN, which lifts nothing) and
    w = ``weight`` rounded to float32; the difference, the product and the sum each rounded to
    float32. A memory without keys keeps c.

    Parameters
    ----------
    keys : ndarray of float32, shape (r, dim), C-contiguous
        Sentence keys, unit rows (an arena: the keys of many memories, each memory's rows
        consecutive).
    key_start : ndarray of int64, shape (N,)
        First row in ``keys`` of each node's keys (read only where ``key_count`` > 0).
    key_count : ndarray of int32, shape (N,)
        How many keys each node has; <= 0: none.
    nids : ndarray of int64, shape (n,)
        The memories, node ids in [0, N); repeats allowed.
    cos : ndarray of float32, shape (n,)
        Their cosines to the query (the whole memory's vector).
    query : ndarray of float32, shape (dim,)
        The query vector, unit length.
    weight : float
        How far toward the best key's cosine, in [0, 1] (``RecallConfig.sentence_weight``).

    Returns
    -------
    ndarray of float32, shape (n,)

    Raises
    ------
    ValueError
        A nid is outside [0, N), or its rows are outside ``keys``; the arrays' lengths disagree
        (``key_count`` and ``key_start``, ``cos`` and ``nids``, ``query`` and the keys' width).

    References
    ----------
    Callan (1994), "Passage-level evidence in document retrieval", SIGIR (a document's score
    combined with its best passage's); docs/design.md "Recall", sentence keys.
    """
    keys = np.asarray(keys, np.float32)
    key_start = np.asarray(key_start, np.int64)
    key_count = np.asarray(key_count, np.int32)
    cos = np.asarray(cos, np.float32)
    query = np.asarray(query, np.float32)
    nids = np.asarray(nids, np.int64)
    lift_shapes(keys, key_start, key_count, nids, cos, query)
    w = np.float32(weight)
    out = cos.copy()
    for i, nid in enumerate(nids.tolist()):
        if not 0 <= nid < len(key_start):
            raise ValueError(f"nids[{i}] = {nid}: no such node, or its key rows are outside keys")
        m = int(key_count[nid])
        if m <= 0:
            continue
        first = int(key_start[nid])
        if first < 0 or first > len(keys) - m:
            raise ValueError(f"nids[{i}] = {nid}: no such node, or its key rows are outside keys")
        best = lane_dots(keys[first:first + m], query).max()
        lift = best - cos[i]
        if lift > np.float32(0.0):
            out[i] = cos[i] + w * lift
    return out


class BM25Postings(NamedTuple):
    """Keyword postings of one namespace, as the BM25 kernels read them (index/keyword.py).

    An immutable CSR segment plus a delta of postings added since, chained per term; a
    posting with tf 0 is a tombstone (a removed memory). A forward index (node id -> its
    terms and their postings) serves pseudo-relevance feedback.

    Fields
    ------
    seg_ptr : int64 (n_seg_terms + 1,)
        Row pointers of the segment; terms >= n_seg_terms have no segment postings.
    seg_nid : int32 (seg_nnz,)
        Node ids, in any order within a term.
    seg_tf, seg_dl : float32 (seg_nnz,)
        Term frequency (0 = tombstone) and memory length in words.
    head : int32 (n_terms,)
        First delta posting of each term, -1 for none.
    d_next, d_nid : int32 (n_delta,)
        Next delta posting of the same term (-1 ends the chain); node id.
    d_tf, d_dl : float32 (n_delta,)
    df : int64 (n_terms,)
        Live postings of each term (document frequency).
    term_off : int64 (n_terms + 1,), term_bytes : uint8
        UTF-8 text of term t is term_bytes[term_off[t]:term_off[t + 1]].
    fwd_off : int64 (n_fwd,), fwd_len : int32 (n_fwd,)
        Forward index by node id: entries fwd_off[nid] .. + fwd_len[nid]. Every node id in
        the postings is < n_fwd (the C kernel sizes its accumulator by it).
    fwd_tid : int32, fwd_pos : int64
        Term id and posting of each forward entry: a position < seg_nnz is in the segment,
        seg_nnz + i is delta posting i.
    n_docs : int
        Memories indexed (with or without terms).
    total_len : float
        Sum of their lengths, words.
    k1, b : float
        BM25 parameters.
    """

    seg_ptr: np.ndarray
    seg_nid: np.ndarray
    seg_tf: np.ndarray
    seg_dl: np.ndarray
    head: np.ndarray
    d_next: np.ndarray
    d_nid: np.ndarray
    d_tf: np.ndarray
    d_dl: np.ndarray
    df: np.ndarray
    term_off: np.ndarray
    term_bytes: np.ndarray
    fwd_off: np.ndarray
    fwd_len: np.ndarray
    fwd_tid: np.ndarray
    fwd_pos: np.ndarray
    n_docs: int
    total_len: float
    k1: float
    b: float


def _term_postings(p: BM25Postings, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Live postings (nid, tf, dl) of term ``t``: its segment row, then its delta chain."""
    nid, tf, dl = [], [], []
    if t < len(p.seg_ptr) - 1:
        lo, hi = int(p.seg_ptr[t]), int(p.seg_ptr[t + 1])
        nid, tf, dl = p.seg_nid[lo:hi].tolist(), p.seg_tf[lo:hi].tolist(), p.seg_dl[lo:hi].tolist()
    d = int(p.head[t])
    while d >= 0:
        nid.append(int(p.d_nid[d]))
        tf.append(float(p.d_tf[d]))
        dl.append(float(p.d_dl[d]))
        d = int(p.d_next[d])
    nid, tf, dl = np.array(nid, np.int32), np.array(tf, np.float32), np.array(dl, np.float32)
    live = tf > 0
    return nid[live], tf[live], dl[live]


def _bm25_pass(p: BM25Postings, q_terms, q_weight, allowed, k: int):
    """One BM25 pass: node ids (int64) and float64 scores of the k best, best first; then
    every scored memory (node ids ascending) and its float64 score."""
    empty = np.empty(0, np.int64), np.empty(0, np.float64)
    if p.n_docs == 0:
        return (*empty, *empty)
    n, avgdl = p.n_docs, max(p.total_len / p.n_docs, 1e-9)
    k1, b = float(p.k1), float(p.b)
    parts_nid, parts_score = [], []
    for t, qw in zip(np.asarray(q_terms).tolist(), np.asarray(q_weight).tolist()):
        if t < 0 or t >= len(p.df) or p.df[t] <= 0 or not qw > 0:
            continue
        m = int(p.df[t])
        # libm's log1p, as the C kernel (NumPy's differs in the last bit for some arguments);
        # a float64 scalar, so that the parts below are float64 (a Python float would make them float32)
        idf = np.float64(qw) * np.float64(math.log1p((n - m + 0.5) / (m + 0.5)))
        nid, tf, dl = _term_postings(p, t)
        if allowed is not None:
            keep = np.zeros(len(nid), bool)
            inside = nid < len(allowed)
            keep[inside] = allowed[nid[inside]] != 0
            nid, tf, dl = nid[keep], tf[keep], dl[keep]
        if not len(nid):
            continue
        parts_nid.append(nid)
        # the length normalisation in float32, the rest in float64 (NumPy's promotion rules)
        parts_score.append(idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)))
    if not parts_nid:
        return (*empty, *empty)
    uniq, inv = np.unique(np.concatenate(parts_nid), return_inverse=True)
    score = np.bincount(inv, weights=np.concatenate(parts_score), minlength=len(uniq))
    top = np.lexsort((uniq, -score))[:k]
    return uniq[top].astype(np.int64), score[top], uniq.astype(np.int64), score


def bm25_search(p: BM25Postings, q_terms, q_weight, allowed, k, prf_docs, prf_terms, prf_weight, export_all=False):
    """Okapi BM25 over keyword postings, with one round of pseudo-relevance feedback.

    score(d) = sum over query terms t of w_t * idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)),
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)) (the C library's log1p: NumPy's differs from it in
    the last bit for some arguments); the length normalisation is computed in float32, the rest
    in float64, parts summed in query-term order. When ``prf_terms > 0`` and there is a hit,
    the ``prf_terms`` terms of the first ``prf_docs`` hits that are not query terms with the
    best r x idf, r the number of those hits holding the term (Robertson's offer weight, 1990;
    ties: the later term text first), join the query; together they weigh ``prf_weight`` x the
    query's weight (the sum of the weights of its terms that some memory holds), shared in
    proportion to r x idf (RM3's interpolation, Abdul-Jaleel et al. 2004), and BM25 runs
    again; if no such term has a positive weight, the first pass stands. Counting each feedback
    memory once, and bounding the feedback terms' total, keeps one long memory that repeats
    many terms from drawing the query towards itself.

    Parameters
    ----------
    p : BM25Postings
    q_terms : ndarray of int32, shape (q,)
        Distinct term ids of the query, in query order (ids outside the vocabulary are skipped).
    q_weight : ndarray of float64, shape (q,)
        Weight of each query term (> 0; others are skipped).
    allowed : ndarray of uint8 or None
        Mask over node ids: only memories with a nonzero byte are scored (ids past its end are
        not); None scores every memory.
    k : int
        Results wanted, >= 1.
    prf_docs, prf_terms : int
        Feedback memories and terms; ``prf_terms = 0`` turns feedback off.
    prf_weight : float
        Total weight of the feedback terms, as a share of the query's weight.
    export_all : bool
        Also return every memory the answering pass scored and its float64 score (for a
        caller that breaks ties at rank k its own way).

    Returns
    -------
    nids : ndarray of int64, shape (<= k,)
        Best first: score descending, then node id ascending.
    scores : ndarray of float32, same shape
    all_nids, all_scores : ndarray of int64 / float64, shape (m,)
        Only with ``export_all``; in no particular order (the C kernel's order differs).

    Raises
    ------
    None
        Kernels do not validate.

    References
    ----------
    Robertson & Zaragoza (2009), "The Probabilistic Relevance Framework: BM25 and Beyond", §3
    (k1 = 1.2, b = 0.75; the Lucene idf). Rocchio (1971) and Lavrenko & Croft (2001), RM3
    (pseudo-relevance feedback).
    """
    def answer(nids, score, all_nids, all_score):
        return (nids, score.astype(np.float32), all_nids, all_score) if export_all else (nids, score.astype(np.float32))

    first = _bm25_pass(p, q_terms, q_weight, allowed, k)
    nids = first[0]
    if not len(nids) or prf_terms <= 0:
        return answer(*first)
    query = set(np.asarray(q_terms).tolist())
    counts: dict[int, int] = {}
    seg_nnz = len(p.seg_nid)
    for nid in nids[:prf_docs].tolist():
        if nid >= len(p.fwd_off):
            continue
        lo = int(p.fwd_off[nid])
        for j in range(lo, lo + int(p.fwd_len[nid])):
            t, pos = int(p.fwd_tid[j]), int(p.fwd_pos[j])
            if t not in query:
                tf = p.seg_tf[pos] if pos < seg_nnz else p.d_tf[pos - seg_nnz]
                counts[t] = counts.get(t, 0) + (1 if tf > 0 else 0)   # memories holding it

    def idf(t: int) -> float:
        m = int(p.df[t])
        return math.log1p((p.n_docs - m + 0.5) / (m + 0.5)) if m > 0 else 0.0   # libm, as above

    def text(t: int) -> str:
        return p.term_bytes[p.term_off[t]:p.term_off[t + 1]].tobytes().decode()

    weighted = sorted(((c * idf(t), text(t), t) for t, c in counts.items()), reverse=True)[:prf_terms]
    if not weighted or weighted[0][0] <= 0:
        return answer(*first)
    qmass = 0.0   # in query order, as the C kernel sums it
    for t, w in zip(np.asarray(q_terms).tolist(), np.asarray(q_weight, np.float64).tolist()):
        if w > 0 and 0 <= t < len(p.df) and p.df[t] > 0:
            qmass += w
    total = 0.0   # in rank order
    for w, _, _ in weighted:
        total += w
    terms = np.concatenate([np.asarray(q_terms, np.int32), np.array([t for _, _, t in weighted], np.int32)])
    weights = np.concatenate([np.asarray(q_weight, np.float64),
                              np.array([prf_weight * qmass * w / total for w, _, _ in weighted], np.float64)])
    return answer(*_bm25_pass(p, terms, weights, allowed, k))


def murmurhash3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3_x86_32 of ``data`` (bytes) as an unsigned 32-bit int.

    References
    ----------
    Appleby (2011), MurmurHash3 (public domain): 4-byte little-endian blocks mixed with
    c1 = 0xcc9e2d51, c2 = 0x1b873593, rotations 15 and 13, then the tail and ``fmix32``.
    """
    mask = 0xFFFFFFFF
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & mask
    n = len(data)

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & mask

    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = rotl((k * c1) & mask, 15) * c2 & mask
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & mask
    tail = data[n - n % 4:]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= rotl((k * c1) & mask, 15) * c2 & mask
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    return h ^ (h >> 16)


def _bucket(feature: str, n_features: int) -> int:
    """|h| mod n_features of the signed MurmurHash3 of the feature's UTF-8 (FeatureHasher)."""
    h = murmurhash3_32(feature.encode("utf-8", "surrogatepass"))
    h = h - (1 << 32) if h >= 1 << 31 else h
    if h == -(1 << 31):
        return (2147483647 - (n_features - 1)) % n_features
    return abs(h) % n_features


def hashing_embed(cps, word_spans, ws_spans, n_features, proj_cols, proj_vals, word_scale, char_scale, dim,
                  tf_table):
    """Hashed word and character n-grams of one preprocessed text, projected to ``dim``.

    The features of scikit-learn's ``HashingVectorizer`` (no sign, no norm): words are the
    ``\\w+`` tokens (``word_spans``) and their adjacent pairs joined by one space; characters are
    the ``char_wb`` 3- to 5-grams of each whitespace-separated word padded with one space each
    side (``ws_spans``), a padded word shorter than n giving one n-gram (itself) and no longer
    ones. Each feature's UTF-8 is hashed (MurmurHash3_x86_32, seed 0) to |h| mod n_features.
    Per part (words, characters): counts c -> tf_table[c] = 1 + ln c (float32), then unit L2 norm (float32
    squares summed in float64). mixed = word_scale * words + char_scale * chars (float32), and
    out = mixed @ P, P's row b holding proj_vals[b] at columns proj_cols[b], accumulated in
    float32 by increasing bucket.

    Parameters
    ----------
    cps : ndarray of uint32, shape (n,)
        Code points of the text (already lowercased and accent-stripped).
    word_spans, ws_spans : ndarray of int64, shape (w, 2) / (s, 2)
        [start, end) of each word token / whitespace-separated word, in code points.
    n_features : int
        Hash buckets, 2**hash_bits.
    proj_cols : ndarray of int32, shape (n_features, nnz)
    proj_vals : ndarray of float32, shape (n_features, nnz)
    word_scale, char_scale : float32
        Weights of the two parts (square roots of their shares of the squared norm).
    dim : int
        Output dimension.
    tf_table : ndarray of float32, shape (t,), t >= 2
        ``np.log(np.arange(t, dtype=np.float32)) + 1`` (NumPy's float32 log, as scikit-learn's
        path used; C's logf differs in the last bit for some counts); counts >= t use
        ``log(c) + 1`` in float32.

    Returns
    -------
    out : ndarray of float32, shape (dim,)
        Not normalised; all zero when the text has no feature.
    n_features_hit : int
        Distinct buckets of the word part plus those of the character part.

    Raises
    ------
    None
        Kernels do not validate.

    References
    ----------
    Weinberger et al. (2009), ICML, §2 (feature hashing); scikit-learn's HashingVectorizer and
    FeatureHasher (the features reproduced); Charikar, Chen & Farach-Colton (2002) (the count
    sketch projection).
    """
    text = np.asarray(cps, np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    words = [text[s:e] for s, e in np.asarray(word_spans).reshape(-1, 2).tolist()]
    feats_w = words + [a + " " + b for a, b in zip(words, words[1:])]
    feats_c = []
    for s, e in np.asarray(ws_spans).reshape(-1, 2).tolist():
        w = " " + text[s:e] + " "
        for n in range(3, 6):
            offset = 0
            feats_c.append(w[:n])
            while offset + n < len(w):
                offset += 1
                feats_c.append(w[offset:offset + n])
            if offset == 0:
                break

    def part(feats):
        idx, cnt = np.unique(np.array([_bucket(f, n_features) for f in feats], np.int64), return_counts=True)
        val = np.array([tf_table[c] if c < len(tf_table) else np.log(np.float32(c)) + np.float32(1.0)
                        for c in cnt.tolist()], np.float32)
        sq = 0.0
        for v in (val * val).tolist():   # float32 squares summed in float64, in bucket order
            sq += v
        if sq > 0:
            val = (val.astype(np.float64) / math.sqrt(sq)).astype(np.float32)
        return idx.tolist(), val

    mixed: dict[int, np.float32] = {}
    parts = [part(feats_w), part(feats_c)]
    for (idx, val), scale in zip(parts, (np.float32(word_scale), np.float32(char_scale))):
        for b, v in zip(idx, val):
            mixed[b] = mixed[b] + scale * v if b in mixed else scale * v
    out = np.zeros(dim, np.float32)
    for b in sorted(mixed):
        for col, pv in zip(proj_cols[b].tolist(), proj_vals[b]):
            out[col] += mixed[b] * pv
    return out, len(parts[0][0]) + len(parts[1][0])
