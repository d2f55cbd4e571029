# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""C kernels (csrc/*.c) behind thin Cython wrappers.

Same names, signatures and results as :mod:`engramdb.kernels.reference`. Each wrapper takes
C-contiguous arrays of the documented dtypes (anything else raises ``ValueError`` from the
buffer protocol; kernels do not otherwise validate), releases the GIL around the C call and
returns NumPy arrays. Compiled ahead of time, so there is no JIT warm-up.

The spreading-activation wrappers on the recall path (``spread_activation``, ``spread_topk``)
take NumPy arrays rather than typed memoryviews: acquiring a memoryview costs a few hundred
nanoseconds per argument, more than the whole top-k selection, so they check each array's
type, dtype, byte order and contiguity with the NumPy C API instead (``ValueError`` otherwise).
"""
import threading

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

cnp.import_array()

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
    "bm25_search",
    "murmurhash3_32",
    "hashing_embed",
]


cdef extern from "engram_kernels.h" nogil:
    enum: ENGRAM_MAX_DEPTH
    ctypedef struct engram_spread_node:
        int32_t pos
        uint32_t gen
    ctypedef struct engram_spread_link:
        int32_t parent
        float best
    ctypedef struct engram_spread_scratch:
        int64_t n
        engram_spread_node *node
        uint32_t gen
        int32_t *order
        float *order_act
        engram_spread_link *link
        int64_t n_levels
        int64_t level_start[ENGRAM_MAX_DEPTH + 2]
    ctypedef uint64_t engram_spread_cand
    int64_t engram_spread_visit(
        const int64_t *indptr, const int32_t *indices, const float *weight,
        const uint8_t *relation,
        const int32_t *seeds, const float *seed_act, int64_t n_seeds,
        const float *rel_mult,
        int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
        int64_t combine, double sum_cap,
        engram_spread_scratch *sc)
    void engram_spread_collect(
        const engram_spread_scratch *sc, int64_t m,
        int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth)
    int64_t engram_spread_select(
        const engram_spread_scratch *sc, int64_t lo, int64_t m, int64_t k,
        engram_spread_cand *heap,
        int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth)
    void engram_spread_inflow(
        const int64_t *indptr, const int32_t *indices, const float *weight,
        const uint8_t *relation,
        const int32_t *nodes, const float *act, int64_t m,
        const float *rel_mult,
        double decay, double fan_exp, int64_t degree_cap,
        int32_t *mark, float *inflow, int32_t *source)
    int64_t engram_spread_activation_batch(
        const int64_t *indptr, int64_t n, const int32_t *indices, const float *weight,
        const uint8_t *relation,
        const int64_t *seed_indptr, int64_t q_begin, int64_t n_queries,
        const int32_t *seeds, const float *seed_act,
        const float *rel_mult,
        int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
        int64_t combine, double sum_cap,
        engram_spread_scratch *sc,
        int64_t *out_indptr, int64_t capacity,
        int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth)
    void engram_rescore_salience(
        const float *s0, const double *t0, const uint8_t *kind, int64_t n,
        const float *half_life_by_kind, int64_t n_kinds, double now, float *out)
    void engram_admission_score(
        const float *features, int64_t n, int64_t k, const float *weights, double threshold,
        float *score, uint8_t *admit)
    int64_t engram_topk(const float *scores, int64_t n, int64_t k, int64_t *out)
    int64_t engram_fuse_seeds(
        const int64_t *labels, const float *cos, int64_t v,
        const int64_t *kw_nids, const float *kw_score, const float *kw_cos, int64_t w,
        double w_vector, double w_keyword, double contrast,
        int32_t *seeds, float *base, float *seed_cos)
    ctypedef struct engram_postings:
        const int64_t *seg_ptr
        int64_t n_seg_terms
        int64_t seg_nnz
        const int32_t *seg_nid
        const float *seg_tf
        const float *seg_dl
        const int32_t *head
        const int32_t *d_next
        const int32_t *d_nid
        const float *d_tf
        const float *d_dl
        const int64_t *df
        int64_t n_terms
        const int64_t *term_off
        const uint8_t *term_bytes
        const int64_t *fwd_off
        const int32_t *fwd_len
        int64_t n_fwd
        const int32_t *fwd_tid
        const int64_t *fwd_pos
        int64_t n_docs
        double total_len
        double k1
        double b
    uint32_t engram_murmur3_32(const uint8_t *data, int64_t len, uint32_t seed)
    int64_t engram_hashing_embed(const uint32_t *cps, int64_t n_cps,
                                 const int64_t *word_spans, int64_t n_words,
                                 const int64_t *ws_spans, int64_t n_ws,
                                 int64_t n_features, const int32_t *proj_cols, const float *proj_vals,
                                 int64_t nnz, float word_scale, float char_scale, int64_t dim,
                                 const float *tf_table, int64_t n_table, float *out)
    int64_t engram_bm25_search(const engram_postings *p,
                               const int32_t *q_terms, const double *q_weight, int64_t n_q,
                               const uint8_t *allowed, int64_t n_allowed, int64_t k,
                               int64_t prf_docs, int64_t prf_terms, double prf_weight,
                               double *acc, int32_t *touched, uint8_t *mark, uint8_t stamp,
                               int64_t *out_nid, double *out_score, int64_t *all_nid, double *all_score,
                               int64_t *n_all)
    int64_t engram_sentence_lift(const float *keys, int64_t n_rows, int64_t dim,
                                 const int64_t *key_start, const int32_t *key_count, int64_t n_nodes,
                                 const int64_t *nids, const float *cos, int64_t n,
                                 const float *query, double weight, float *out)


_local = threading.local()

# Top-k heaps up to this size live on the C stack; larger ones are malloc'ed per call.
cdef enum:
    STACK_HEAP = 64


cdef class _SpreadScratch:
    """One thread's traversal state for a graph of n nodes (``engram_spread_scratch``): the
    8-byte node slots (zeroed once, then reused through the generation counter, never
    cleared) and the arrays parallel to the visit order (node ids, activations, parent and
    largest pass)."""
    cdef Py_ssize_t n
    cdef object node_a
    cdef object order_a
    cdef object order_act_a
    cdef object link_a
    cdef engram_spread_scratch sc

    def __cinit__(self, Py_ssize_t n):
        self.n = n
        self.node_a = np.zeros(n * sizeof(engram_spread_node), dtype=np.uint8)
        self.order_a = np.empty(n, dtype=np.int32)
        self.order_act_a = np.empty(n, dtype=np.float32)
        self.link_a = np.empty(n * sizeof(engram_spread_link), dtype=np.uint8)
        self.sc.n = n
        self.sc.node = <engram_spread_node *>cnp.PyArray_DATA(self.node_a)
        self.sc.gen = 0
        self.sc.order = <int32_t *>cnp.PyArray_DATA(self.order_a)
        self.sc.order_act = <float *>cnp.PyArray_DATA(self.order_act_a)
        self.sc.link = <engram_spread_link *>cnp.PyArray_DATA(self.link_a)
        self.sc.n_levels = 0


cdef _SpreadScratch _scratch(Py_ssize_t n):
    """Per-thread scratch for n nodes, reused across calls (a new one when n changes)."""
    cdef _SpreadScratch cached = getattr(_local, "spread", None)
    if cached is None or cached.n != n:
        cached = _SpreadScratch(n)
        _local.spread = cached
    return cached


cdef inline char *_data(object a, int typenum, str name) except? NULL:
    """Data pointer of a 1-d, C-contiguous, native-order ndarray of ``typenum``; else ValueError."""
    cdef cnp.ndarray arr
    if not cnp.PyArray_Check(a):
        raise ValueError(f"{name}: expected a NumPy array of {cnp.PyArray_DescrFromType(typenum)}, got {type(a).__name__}")
    arr = <cnp.ndarray>a
    if (cnp.PyArray_NDIM(arr) != 1 or not cnp.PyArray_EquivTypenums(cnp.PyArray_TYPE(arr), typenum)
            or not cnp.PyArray_ISNOTSWAPPED(arr) or not cnp.PyArray_IS_C_CONTIGUOUS(arr)):
        raise ValueError(f"{name}: expected a 1-d C-contiguous array of {cnp.PyArray_DescrFromType(typenum)}, "
                         f"got shape {a.shape} {a.dtype} (contiguous: {a.flags.c_contiguous})")
    return <char *>cnp.PyArray_DATA(arr)


cdef inline cnp.ndarray _empty(Py_ssize_t m, int typenum):
    cdef cnp.npy_intp dims = m
    return cnp.PyArray_EMPTY(1, &dims, typenum, 0)


def spread_activation(
    indptr,
    indices,
    weight,
    relation,
    seeds,
    seed_act,
    rel_mult,
    int64_t max_depth,
    double decay,
    double fan_exp,
    int64_t degree_cap,
    int64_t combine,
    double sum_cap,
):
    """Spreading activation (C, GIL released): the contract of :func:`reference.spread_activation`.

    The only per-node state is an 8-byte slot (position in the visit order, generation),
    cached per thread and never cleared (the generation counter marks the visited);
    activations, parents and largest passes sit in arrays parallel to the visit order, so
    the outputs are sequential copies; the traversal prefetches the frontier's rows and the
    slots they reach.
    Arrays must be NumPy arrays of the documented dtypes, 1-d and C-contiguous.
    """
    cdef const int64_t *p_indptr = <const int64_t *>_data(indptr, cnp.NPY_INT64, "indptr")
    cdef const int32_t *p_indices = <const int32_t *>_data(indices, cnp.NPY_INT32, "indices")
    cdef const float *p_weight = <const float *>_data(weight, cnp.NPY_FLOAT32, "weight")
    cdef const uint8_t *p_relation = <const uint8_t *>_data(relation, cnp.NPY_UINT8, "relation")
    cdef const int32_t *p_seeds = <const int32_t *>_data(seeds, cnp.NPY_INT32, "seeds")
    cdef const float *p_seed_act = <const float *>_data(seed_act, cnp.NPY_FLOAT32, "seed_act")
    cdef const float *p_rel_mult = <const float *>_data(rel_mult, cnp.NPY_FLOAT32, "rel_mult")
    cdef Py_ssize_t n = cnp.PyArray_DIM(<cnp.ndarray>indptr, 0) - 1
    cdef int64_t n_seeds = cnp.PyArray_DIM(<cnp.ndarray>seeds, 0)
    cdef int64_t m = 0
    if n <= 0 or n_seeds == 0:
        return (_empty(0, cnp.NPY_INT32), _empty(0, cnp.NPY_FLOAT32),
                _empty(0, cnp.NPY_INT32), _empty(0, cnp.NPY_INT8))
    cdef _SpreadScratch sc = _scratch(n)
    with nogil:
        m = engram_spread_visit(
            p_indptr, p_indices, p_weight, p_relation, p_seeds, p_seed_act, n_seeds, p_rel_mult,
            max_depth, decay, fan_exp, degree_cap, combine, sum_cap, &sc.sc,
        )
    nodes_a = _empty(m, cnp.NPY_INT32)
    act_a = _empty(m, cnp.NPY_FLOAT32)
    parent_a = _empty(m, cnp.NPY_INT32)
    depth_a = _empty(m, cnp.NPY_INT8)
    with nogil:
        engram_spread_collect(
            &sc.sc, m,
            <int32_t *>cnp.PyArray_DATA(nodes_a), <float *>cnp.PyArray_DATA(act_a),
            <int32_t *>cnp.PyArray_DATA(parent_a), <int8_t *>cnp.PyArray_DATA(depth_a),
        )
    return nodes_a, act_a, parent_a, depth_a


def spread_topk(
    indptr,
    indices,
    weight,
    relation,
    seeds,
    seed_act,
    rel_mult,
    int64_t max_depth,
    double decay,
    double fan_exp,
    int64_t degree_cap,
    int64_t combine,
    double sum_cap,
    int64_t min_depth,
    int64_t k,
):
    """Spreading activation fused with its top-k (C, GIL released): the contract of
    :func:`reference.spread_topk`.

    The selection is a k-heap over the touched nodes only, a sequential scan of the visit
    order and its activations from the first level >= min_depth; nothing of size m is
    allocated or copied. Same scratch and argument
    checks as :func:`spread_activation`.
    """
    cdef const int64_t *p_indptr = <const int64_t *>_data(indptr, cnp.NPY_INT64, "indptr")
    cdef const int32_t *p_indices = <const int32_t *>_data(indices, cnp.NPY_INT32, "indices")
    cdef const float *p_weight = <const float *>_data(weight, cnp.NPY_FLOAT32, "weight")
    cdef const uint8_t *p_relation = <const uint8_t *>_data(relation, cnp.NPY_UINT8, "relation")
    cdef const int32_t *p_seeds = <const int32_t *>_data(seeds, cnp.NPY_INT32, "seeds")
    cdef const float *p_seed_act = <const float *>_data(seed_act, cnp.NPY_FLOAT32, "seed_act")
    cdef const float *p_rel_mult = <const float *>_data(rel_mult, cnp.NPY_FLOAT32, "rel_mult")
    cdef Py_ssize_t n = cnp.PyArray_DIM(<cnp.ndarray>indptr, 0) - 1
    cdef int64_t n_seeds = cnp.PyArray_DIM(<cnp.ndarray>seeds, 0)
    cdef int64_t m = 0, got = 0, lo, top
    cdef engram_spread_cand stack_heap[STACK_HEAP]
    cdef engram_spread_cand *heap = stack_heap
    if k < 0:
        k = 0
    if n <= 0 or n_seeds == 0 or k == 0:
        return (_empty(0, cnp.NPY_INT32), _empty(0, cnp.NPY_FLOAT32),
                _empty(0, cnp.NPY_INT32), _empty(0, cnp.NPY_INT8))
    if k > n:
        k = n
    cdef _SpreadScratch sc = _scratch(n)
    cdef cnp.ndarray nodes_a = _empty(k, cnp.NPY_INT32)
    cdef cnp.ndarray act_a = _empty(k, cnp.NPY_FLOAT32)
    cdef cnp.ndarray parent_a = _empty(k, cnp.NPY_INT32)
    cdef cnp.ndarray depth_a = _empty(k, cnp.NPY_INT8)
    if k > STACK_HEAP:
        heap = <engram_spread_cand *>malloc(k * sizeof(engram_spread_cand))
        if heap == NULL:
            raise MemoryError()
    with nogil:
        m = engram_spread_visit(
            p_indptr, p_indices, p_weight, p_relation, p_seeds, p_seed_act, n_seeds, p_rel_mult,
            max_depth, decay, fan_exp, degree_cap, combine, sum_cap, &sc.sc,
        )
        # Levels are contiguous in the visit order: skip those shallower than min_depth.
        top = max_depth if max_depth < ENGRAM_MAX_DEPTH else ENGRAM_MAX_DEPTH
        if min_depth <= 0:
            lo = 0
        elif min_depth > top:
            lo = m
        else:
            lo = sc.sc.level_start[min_depth]
        got = engram_spread_select(
            &sc.sc, lo, m, k, heap,
            <int32_t *>cnp.PyArray_DATA(nodes_a), <float *>cnp.PyArray_DATA(act_a),
            <int32_t *>cnp.PyArray_DATA(parent_a), <int8_t *>cnp.PyArray_DATA(depth_a),
        )
    if heap != stack_heap:
        free(heap)
    if got < k:
        return nodes_a[:got], act_a[:got], parent_a[:got], depth_a[:got]
    return nodes_a, act_a, parent_a, depth_a


def _grown(a, Py_ssize_t used, Py_ssize_t capacity):
    """A new array of ``capacity`` entries starting with ``a[:used]``."""
    b = np.empty(capacity, dtype=a.dtype)
    b[:used] = a[:used]
    return b


def spread_activation_batch(
    const int64_t[::1] indptr,
    const int32_t[::1] indices,
    const float[::1] weight,
    const uint8_t[::1] relation,
    const int64_t[::1] seed_indptr,
    const int32_t[::1] seeds,
    const float[::1] seed_act,
    const float[::1] rel_mult,
    int64_t max_depth,
    double decay,
    double fan_exp,
    int64_t degree_cap,
    int64_t combine,
    double sum_cap,
):
    """Batched spreading activation (C, GIL released): the contract of :func:`reference.spread_activation_batch`.

    One C loop over the queries reuses the per-thread scratch of :func:`spread_activation`
    (single-threaded; each query bumps the generation). The outputs start at a size guess and double when a query's worst case
    may not fit; the C loop then returns and resumes, so C never allocates.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef int64_t q = seed_indptr.shape[0] - 1
    cdef int64_t s = seeds.shape[0]
    cdef int64_t nnz = indices.shape[0]
    cdef int64_t done = 0
    cdef int64_t cap, used, worst
    out_indptr_a = np.zeros(q + 1, dtype=np.int64)
    if q <= 0 or n <= 0 or s == 0:
        out_indptr_a[:] = 0
        return (
            out_indptr_a,
            np.empty(0, dtype=np.int32),
            np.empty(0, dtype=np.float32),
            np.empty(0, dtype=np.int32),
            np.empty(0, dtype=np.int8),
        )
    cdef int64_t[::1] out_indptr = out_indptr_a
    cdef _SpreadScratch sc = _scratch(n)
    cdef const int32_t *p_indices = &indices[0] if nnz > 0 else NULL
    cdef const float *p_weight = &weight[0] if weight.shape[0] > 0 else NULL
    cdef const uint8_t *p_relation = &relation[0] if relation.shape[0] > 0 else NULL
    cdef const float *p_rel_mult = &rel_mult[0] if rel_mult.shape[0] > 0 else NULL
    # Start with room for every seed plus one hop's worth per query, at least the worst
    # case of one query.
    cap = min(n, s + nnz) + 4 * s + 1024
    nodes_a = np.empty(cap, dtype=np.int32)
    out_act_a = np.empty(cap, dtype=np.float32)
    out_parent_a = np.empty(cap, dtype=np.int32)
    out_depth_a = np.empty(cap, dtype=np.int8)
    cdef int32_t[::1] nodes
    cdef float[::1] out_act
    cdef int32_t[::1] out_parent
    cdef int8_t[::1] out_depth
    while True:
        nodes = nodes_a
        out_act = out_act_a
        out_parent = out_parent_a
        out_depth = out_depth_a
        with nogil:
            done = engram_spread_activation_batch(
                &indptr[0], n, p_indices, p_weight, p_relation,
                &seed_indptr[0], done, q, &seeds[0], &seed_act[0], p_rel_mult,
                max_depth, decay, fan_exp, degree_cap, combine, sum_cap,
                &sc.sc,
                &out_indptr[0], cap,
                &nodes[0], &out_act[0], &out_parent[0], &out_depth[0],
            )
        if done == q:
            break
        used = out_indptr[done]
        worst = min(n, seed_indptr[done + 1] - seed_indptr[done] + nnz)
        cap = max(2 * cap, used + worst)
        nodes_a = _grown(nodes_a, used, cap)
        out_act_a = _grown(out_act_a, used, cap)
        out_parent_a = _grown(out_parent_a, used, cap)
        out_depth_a = _grown(out_depth_a, used, cap)
    used = out_indptr[q]
    return (
        out_indptr_a,
        nodes_a[:used].copy(),
        out_act_a[:used].copy(),
        out_parent_a[:used].copy(),
        out_depth_a[:used].copy(),
    )


def spread_inflow(
    const int64_t[::1] indptr,
    const int32_t[::1] indices,
    const float[::1] weight,
    const uint8_t[::1] relation,
    const int32_t[::1] nodes,
    const float[::1] act,
    const float[::1] rel_mult,
    double decay,
    double fan_exp,
    int64_t degree_cap,
    int32_t[::1] mark,
):
    """Lateral inflow (C, GIL released): the contract of :func:`reference.spread_inflow`.

    Uses the caller's ``mark`` (writable) for membership, so a call costs O(m + edges of the
    members' rows); ``mark`` is all -1 again on return.
    """
    cdef int64_t m = nodes.shape[0]
    inflow_a = np.empty(m, dtype=np.float32)
    source_a = np.empty(m, dtype=np.int32)
    if m == 0:
        return inflow_a, source_a
    cdef float[::1] inflow = inflow_a
    cdef int32_t[::1] source = source_a
    # Empty edge arrays: pass NULL, never read since every row is empty.
    cdef const int32_t *p_indices = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const float *p_weight = &weight[0] if weight.shape[0] > 0 else NULL
    cdef const uint8_t *p_relation = &relation[0] if relation.shape[0] > 0 else NULL
    cdef const float *p_rel_mult = &rel_mult[0] if rel_mult.shape[0] > 0 else NULL
    with nogil:
        engram_spread_inflow(
            &indptr[0], p_indices, p_weight, p_relation,
            &nodes[0], &act[0], m, p_rel_mult,
            decay, fan_exp, degree_cap,
            &mark[0], &inflow[0], &source[0],
        )
    return inflow_a, source_a


def rescore_salience(
    const float[::1] s0,
    const double[::1] t0,
    const uint8_t[::1] kind,
    const float[::1] half_life_by_kind,
    double now,
):
    """Salience rescoring by kind (C, GIL released): the contract of :func:`reference.rescore_salience`.

    The exponent is computed in double and rounded to float; ``2**x`` is ``exp2f``.
    """
    cdef int64_t n = s0.shape[0]
    cdef int64_t k = half_life_by_kind.shape[0]
    out_a = np.empty(n, dtype=np.float32)
    if n == 0:
        return out_a
    cdef float[::1] out = out_a
    with nogil:
        engram_rescore_salience(&s0[0], &t0[0], &kind[0], n, &half_life_by_kind[0], k, now, &out[0])
    return out_a


def admission_score(const float[:, ::1] features, const float[::1] weights, double threshold):
    """A-MAC admission scoring (C, GIL released): the contract of :func:`reference.admission_score`."""
    cdef int64_t n = features.shape[0]
    cdef int64_t k = features.shape[1]
    score_a = np.empty(n, dtype=np.float32)
    admit_a = np.empty(n, dtype=np.bool_)
    if n == 0:
        return score_a, admit_a
    cdef float[::1] score = score_a
    cdef uint8_t[::1] admit = admit_a.view(np.uint8)
    cdef const float *p_weights = &weights[0] if weights.shape[0] > 0 else NULL
    with nogil:
        engram_admission_score(&features[0, 0], n, k, p_weights, threshold, &score[0], &admit[0])
    return score_a, admit_a


def topk(const float[::1] scores, int64_t k):
    """Top-k selection (C, GIL released): the contract of :func:`reference.topk`; a heap, O(n log k)."""
    cdef int64_t n = scores.shape[0]
    cdef int64_t kk = k if k < n else n
    if kk <= 0:
        return np.empty(0, dtype=np.int64)
    out_a = np.empty(kk, dtype=np.int64)
    cdef int64_t[::1] out = out_a
    with nogil:
        engram_topk(&scores[0], n, kk, &out[0])
    return out_a


def fuse_seeds(labels, cos, kw_nids, kw_score, kw_cos, double w_vector, double w_keyword, double contrast):
    """The seeds of a recall from its two legs (C, GIL released): the contract of
    :func:`reference.fuse_seeds`. Takes NumPy arrays (checked with the NumPy C API, like the
    spreading wrappers: this runs once per recall on a few dozen memories)."""
    cdef const int64_t *p_labels = <const int64_t *>_data(labels, cnp.NPY_INT64, "labels")
    cdef const float *p_cos = <const float *>_data(cos, cnp.NPY_FLOAT32, "cos")
    cdef const int64_t *p_kw = <const int64_t *>_data(kw_nids, cnp.NPY_INT64, "kw_nids")
    cdef const float *p_kw_score = <const float *>_data(kw_score, cnp.NPY_FLOAT32, "kw_score")
    cdef const float *p_kw_cos = <const float *>_data(kw_cos, cnp.NPY_FLOAT32, "kw_cos")
    cdef int64_t v = cnp.PyArray_DIM(<cnp.ndarray>labels, 0)
    cdef int64_t w = cnp.PyArray_DIM(<cnp.ndarray>kw_nids, 0)
    cdef int64_t s
    if cnp.PyArray_DIM(<cnp.ndarray>cos, 0) != v:
        raise ValueError(f"cos: expected {v} cosines, got {cnp.PyArray_DIM(<cnp.ndarray>cos, 0)}")
    if cnp.PyArray_DIM(<cnp.ndarray>kw_score, 0) != w or cnp.PyArray_DIM(<cnp.ndarray>kw_cos, 0) != w:
        raise ValueError(f"kw_score, kw_cos: expected {w} values each")
    cdef cnp.ndarray seeds_a = _empty(v + w, cnp.NPY_INT32)
    cdef cnp.ndarray base_a = _empty(v + w, cnp.NPY_FLOAT32)
    cdef cnp.ndarray cos_a = _empty(v + w, cnp.NPY_FLOAT32)
    with nogil:
        s = engram_fuse_seeds(p_labels, p_cos, v, p_kw, p_kw_score, p_kw_cos, w, w_vector, w_keyword, contrast,
                              <int32_t *>cnp.PyArray_DATA(seeds_a), <float *>cnp.PyArray_DATA(base_a),
                              <float *>cnp.PyArray_DATA(cos_a))
    if s < 0:
        raise MemoryError()
    if s == v + w:
        return seeds_a, base_a, cos_a
    return seeds_a[:s], base_a[:s], cos_a[:s]


def sentence_lift(keys, key_start, key_count, nids, cos, query, double weight):
    """Cosines lifted toward each memory's best sentence key (C, GIL released): the contract of
    :func:`reference.sentence_lift`. Takes NumPy arrays, checked with the NumPy C API (runs
    twice a recall on a few dozen memories); ``ValueError`` for a nid or row range out of bounds."""
    cdef cnp.ndarray k_arr
    if (not cnp.PyArray_Check(keys) or cnp.PyArray_NDIM(<cnp.ndarray>keys) != 2
            or not cnp.PyArray_EquivTypenums(cnp.PyArray_TYPE(<cnp.ndarray>keys), cnp.NPY_FLOAT32)
            or not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>keys) or not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>keys)):
        raise ValueError("keys: expected a 2-d C-contiguous float32 array")
    k_arr = <cnp.ndarray>keys
    cdef int64_t n_rows = cnp.PyArray_DIM(k_arr, 0)
    cdef int64_t dim = cnp.PyArray_DIM(k_arr, 1)
    cdef const float *p_keys = <const float *>cnp.PyArray_DATA(k_arr)
    cdef const int64_t *p_start = <const int64_t *>_data(key_start, cnp.NPY_INT64, "key_start")
    cdef const int32_t *p_count = <const int32_t *>_data(key_count, cnp.NPY_INT32, "key_count")
    cdef const int64_t *p_nids = <const int64_t *>_data(nids, cnp.NPY_INT64, "nids")
    cdef const float *p_cos = <const float *>_data(cos, cnp.NPY_FLOAT32, "cos")
    cdef const float *p_query = <const float *>_data(query, cnp.NPY_FLOAT32, "query")
    cdef int64_t n_nodes = cnp.PyArray_DIM(<cnp.ndarray>key_start, 0)
    cdef int64_t n = cnp.PyArray_DIM(<cnp.ndarray>nids, 0)
    cdef int64_t bad
    if cnp.PyArray_DIM(<cnp.ndarray>key_count, 0) != n_nodes:
        raise ValueError(f"key_count: expected {n_nodes} counts, got {cnp.PyArray_DIM(<cnp.ndarray>key_count, 0)}")
    if cnp.PyArray_DIM(<cnp.ndarray>cos, 0) != n:
        raise ValueError(f"cos: expected {n} cosines, got {cnp.PyArray_DIM(<cnp.ndarray>cos, 0)}")
    if cnp.PyArray_DIM(<cnp.ndarray>query, 0) != dim:
        raise ValueError(f"query: expected {dim} components, got {cnp.PyArray_DIM(<cnp.ndarray>query, 0)}")
    cdef cnp.ndarray out_a = _empty(n, cnp.NPY_FLOAT32)
    with nogil:
        bad = engram_sentence_lift(p_keys, n_rows, dim, p_start, p_count, n_nodes, p_nids, p_cos, n, p_query,
                                   weight, <float *>cnp.PyArray_DATA(out_a))
    if bad < 0:
        raise ValueError(f"nids[{-1 - bad}] = {nids[-1 - bad]}: no such node, or its key rows are outside keys")
    return out_a


cdef const int64_t *_p64(const int64_t[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef const int32_t *_p32(const int32_t[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef const float *_pf(const float[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef class _BM25Scratch:
    """One thread's BM25 state, reused across calls: the accumulator (float64), the touched
    list (int32) and the marks (uint8), each >= n long, with the stamp of the next call (the
    memories a call scores get its stamp; 1..255 in turn, the marks zeroed when it wraps, so
    no call clears what it touched); and the postings bound to C last (rebound when another
    BM25Postings object comes)."""
    cdef Py_ssize_t n
    cdef object acc_a
    cdef object touched_a
    cdef object marks_a
    cdef double *acc
    cdef int32_t *touched
    cdef uint8_t *marks
    cdef uint8_t stamp
    cdef object bound

    def __cinit__(self):
        self.n = 0
        self.stamp = 0
        self.bound = None

    cdef uint8_t next_stamp(self):
        if self.stamp == 255:
            self.marks_a.fill(0)
            self.stamp = 0
        self.stamp += 1
        return self.stamp

    cdef reserve(self, Py_ssize_t n):
        if n <= self.n and self.n > 0:   # allocated once even for an index of no memory
            return
        n = max(n, 2 * self.n, 1024)
        self.acc_a = np.empty(n, dtype=np.float64)
        self.touched_a = np.empty(n, dtype=np.int32)
        self.marks_a = np.zeros(n, dtype=np.uint8)
        self.stamp = 0
        self.acc = <double *>cnp.PyArray_DATA(self.acc_a)
        self.touched = <int32_t *>cnp.PyArray_DATA(self.touched_a)
        self.marks = <uint8_t *>cnp.PyArray_DATA(self.marks_a)
        self.n = n


cdef class _BoundPostings:
    """A BM25Postings bound to C: its buffers held as memoryviews, the struct filled once."""
    cdef object source
    cdef engram_postings c
    cdef const int64_t[::1] seg_ptr, df, term_off, fwd_off, fwd_pos
    cdef const int32_t[::1] seg_nid, head, d_next, d_nid, fwd_len, fwd_tid
    cdef const float[::1] seg_tf, seg_dl, d_tf, d_dl
    cdef const uint8_t[::1] term_bytes

    def __init__(self, p):
        self.source = p
        self.seg_ptr = p.seg_ptr
        self.seg_nid = p.seg_nid
        self.seg_tf = p.seg_tf
        self.seg_dl = p.seg_dl
        self.head = p.head
        self.d_next = p.d_next
        self.d_nid = p.d_nid
        self.d_tf = p.d_tf
        self.d_dl = p.d_dl
        self.df = p.df
        self.term_off = p.term_off
        self.term_bytes = p.term_bytes
        self.fwd_off = p.fwd_off
        self.fwd_len = p.fwd_len
        self.fwd_tid = p.fwd_tid
        self.fwd_pos = p.fwd_pos
        self.c.seg_ptr = _p64(self.seg_ptr)
        self.c.n_seg_terms = self.seg_ptr.shape[0] - 1 if self.seg_ptr.shape[0] else 0
        self.c.seg_nnz = self.seg_nid.shape[0]
        self.c.seg_nid = _p32(self.seg_nid)
        self.c.seg_tf = _pf(self.seg_tf)
        self.c.seg_dl = _pf(self.seg_dl)
        self.c.head = _p32(self.head)
        self.c.d_next = _p32(self.d_next)
        self.c.d_nid = _p32(self.d_nid)
        self.c.d_tf = _pf(self.d_tf)
        self.c.d_dl = _pf(self.d_dl)
        self.c.df = _p64(self.df)
        self.c.n_terms = self.df.shape[0]
        self.c.term_off = _p64(self.term_off)
        self.c.term_bytes = &self.term_bytes[0] if self.term_bytes.shape[0] else NULL
        self.c.fwd_off = _p64(self.fwd_off)
        self.c.fwd_len = _p32(self.fwd_len)
        self.c.n_fwd = self.fwd_off.shape[0]
        self.c.fwd_tid = _p32(self.fwd_tid)
        self.c.fwd_pos = _p64(self.fwd_pos)
        self.c.n_docs = int(p.n_docs)
        self.c.total_len = float(p.total_len)
        self.c.k1 = float(p.k1)
        self.c.b = float(p.b)


def bm25_search(p, q_terms, q_weight, allowed, int64_t k, int64_t prf_docs, int64_t prf_terms,
                double prf_weight, bint export_all=False):
    """BM25 with pseudo-relevance feedback (C, GIL released): the contract of
    :func:`reference.bm25_search`. ``p`` is a :class:`reference.BM25Postings` of C-contiguous
    arrays (bound to C once and reused while the same object comes back, per thread);
    ``q_terms`` int32, ``q_weight`` float64 and ``allowed`` uint8 are 1-d C-contiguous arrays
    (ValueError otherwise). The accumulator is a per-thread scratch sized by the forward index."""
    cdef _BM25Scratch scratch = getattr(_local, "bm25", None)
    if scratch is None:
        scratch = _BM25Scratch()
        _local.bm25 = scratch
    cdef _BoundPostings bound = scratch.bound
    if bound is None or bound.source is not p:
        bound = _BoundPostings(p)
        scratch.bound = bound
    cdef const int32_t *p_q = <const int32_t *>_data(q_terms, cnp.NPY_INT32, "q_terms")
    cdef const double *p_w = <const double *>_data(q_weight, cnp.NPY_FLOAT64, "q_weight")
    cdef int64_t n_q = len(q_terms), got = 0, n_all = 0
    cdef const uint8_t *p_mask = NULL
    cdef int64_t n_mask = 0
    cdef uint8_t nothing = 0
    cdef int64_t *p_all_nid = NULL
    cdef double *p_all_score = NULL
    cdef int64_t kk = k if k > 0 else 0
    if len(q_weight) != n_q:
        raise ValueError("q_terms and q_weight differ in length")
    if allowed is not None:
        p_mask = <const uint8_t *>_data(allowed, cnp.NPY_UINT8, "allowed")
        n_mask = len(allowed)
        if n_mask == 0:
            p_mask = &nothing   # an empty mask allows nothing
    scratch.reserve(bound.c.n_fwd)   # every node id in the postings is < n_fwd
    cdef uint8_t stamp = scratch.next_stamp()
    out_nid_a = _empty(max(kk, 1), cnp.NPY_INT64)
    out_score_a = _empty(max(kk, 1), cnp.NPY_FLOAT64)
    cdef int64_t *p_out_nid = <int64_t *>cnp.PyArray_DATA(out_nid_a)
    cdef double *p_out_score = <double *>cnp.PyArray_DATA(out_score_a)
    if export_all:
        all_nid_a = _empty(bound.c.n_fwd + 1, cnp.NPY_INT64)
        all_score_a = _empty(bound.c.n_fwd + 1, cnp.NPY_FLOAT64)
        p_all_nid = <int64_t *>cnp.PyArray_DATA(all_nid_a)
        p_all_score = <double *>cnp.PyArray_DATA(all_score_a)
    if kk > 0:
        with nogil:
            got = engram_bm25_search(&bound.c, p_q, p_w, n_q, p_mask, n_mask,
                                     kk, prf_docs, prf_terms, prf_weight,
                                     scratch.acc, scratch.touched, scratch.marks, stamp, p_out_nid, p_out_score,
                                     p_all_nid, p_all_score, &n_all)
    if got < 0:
        raise MemoryError("bm25_search: out of memory")
    if export_all:
        return out_nid_a[:got], out_score_a[:got].astype(np.float32), all_nid_a[:n_all], all_score_a[:n_all]
    return out_nid_a[:got], out_score_a[:got].astype(np.float32)


def murmurhash3_32(const uint8_t[::1] data, uint32_t seed=0):
    """MurmurHash3_x86_32 (C): the contract of :func:`reference.murmurhash3_32` (bytes-like in)."""
    cdef uint32_t h
    cdef const uint8_t *p = &data[0] if data.shape[0] else <const uint8_t *>&seed
    with nogil:
        h = engram_murmur3_32(p, data.shape[0], seed)
    return h


def hashing_embed(const uint32_t[::1] cps, const int64_t[:, ::1] word_spans, const int64_t[:, ::1] ws_spans,
                  int64_t n_features, const int32_t[:, ::1] proj_cols, const float[:, ::1] proj_vals,
                  float word_scale, float char_scale, int64_t dim, const float[::1] tf_table):
    """Hashing embedder features of one text (C, GIL released): the contract of
    :func:`reference.hashing_embed`."""
    out_a = np.zeros(dim, dtype=np.float32)
    cdef float[::1] out = out_a
    cdef int64_t got
    cdef uint32_t empty = 0
    cdef int64_t no_span = 0
    cdef const uint32_t *p_cps = &cps[0] if cps.shape[0] else &empty
    cdef const int64_t *p_w = &word_spans[0, 0] if word_spans.shape[0] else &no_span
    cdef const int64_t *p_s = &ws_spans[0, 0] if ws_spans.shape[0] else &no_span
    with nogil:
        got = engram_hashing_embed(p_cps, cps.shape[0], p_w, word_spans.shape[0], p_s, ws_spans.shape[0],
                                   n_features, &proj_cols[0, 0], &proj_vals[0, 0], proj_cols.shape[1],
                                   word_scale, char_scale, dim, &tf_table[0], tf_table.shape[0], &out[0])
    if got < 0:
        raise MemoryError("hashing_embed: out of memory")
    return out_a, got
