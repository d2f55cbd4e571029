/*
 * spread.c - spreading activation over a typed CSR graph (see engram_kernels.h).
 *
 * Floating-point contract shared with the reference: the pass along an edge is computed in
 * double, left to right, as act[u] * min(w, 1) * rel_mult[rel] * decay * fan, then rounded
 * to float; SUM accumulates in float.
 *
 * Memory layout: a traversal touches a few thousand nodes of a graph of up to millions. The
 * state of a touched node (id, activation, parent, largest single pass) lives in arrays
 * parallel to the visit order, written front to back and read sequentially by the next
 * frontier, the collection and the top-k selection. The only memory indexed by node is one
 * 8-byte slot (position in the visit order, generation), so a touched node costs one cache
 * line of an array half the size of a per-node record of the whole state, and the caches
 * hold twice the nodes. A slot counts only under the current generation, bumped by every
 * traversal, so nothing is cleared between calls; node[] is zeroed when the 32-bit
 * generation wraps. The depth of a node is the level whose range of the visit order holds
 * its position.
 *
 * The frontier rows and the node slots of the nodes they reach are prefetched a few rows
 * ahead.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "engram_kernels.h"
#include "prefetch.h"



/*
 * One edge e of frontier row u (activation au, fan factor fan) at the level that starts at
 * position level_lo. The pass is au * min(w, 1) * rel_mult[r] * decay * fan in double, left
 * to right; with fan_on == 0 (fan_exp 0, fan == 1.0) the last factor is left out, which
 * changes no bit (x * 1.0 == x). sum_mode, fan_on and check_rel are literal constants at
 * every call, so each combination compiles to its own loop. Returns the new length of the
 * visit order.
 */
static ALWAYS_INLINE int64_t visit_edge(
    const int32_t *indices, const float *weight, const uint8_t *relation, int64_t e,
    int32_t u, double au, double fan, const float *rel_mult, double decay,
    const int sum_mode, const int fan_on, const int check_rel, float cap,
    engram_spread_node *node, uint32_t gen, int64_t level_lo,
    int32_t *order, float *order_act, engram_spread_link *link, int64_t m)
{
    const int32_t v = indices[e];
    const uint8_t r = relation[e];
    engram_spread_node *x;
    int64_t at;
    double pd;
    float w, p;
    if (v == u || (check_rel && r == ENGRAM_REL_CONTRADICTS)) {
        return m;
    }
    w = weight[e];
    w = (1.0f < w) ? 1.0f : w; /* NaN stays NaN */
    pd = au * (double)w * (double)rel_mult[r] * decay;
    if (fan_on) {
        pd *= fan;
    }
    p = (float)pd;
    if (!(p > 0.0f)) {
        return m; /* also skips NaN */
    }
    x = &node[v];
    if (x->gen != gen) { /* v is reached for the first time */
        x->gen = gen;
        x->pos = (int32_t)m;
        order[m] = v;
        order_act[m] = (sum_mode && cap < p) ? cap : p;
        link[m].parent = u;
        if (sum_mode) {
            link[m].best = p;
        }
        return m + 1;
    }
    at = x->pos;
    if (at >= level_lo) { /* reached before at this level */
        float *av = &order_act[at];
        if (sum_mode) {
            const float total = (float)(*av + p);
            *av = (cap < total) ? cap : total;
            if (p > link[at].best) {
                link[at].best = p;
                link[at].parent = u;
            }
        } else if (p > *av) {
            *av = p;
            link[at].parent = u;
        }
    }
    return m; /* nodes visited at an earlier level never change */
}

/*
 * Levels 1..max_depth from the seeds already in order[0:m]. sum_mode, fan_on and check_rel
 * are literal constants at each call (see visit_edge). Returns m; *depth_reached is the
 * first level not expanded.
 */
static ALWAYS_INLINE int64_t visit_levels(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation, const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    const int sum_mode, const int fan_on, const int check_rel, float cap,
    engram_spread_scratch *sc, int64_t m, int64_t *depth_reached)
{
    engram_spread_node *node = sc->node;
    const uint32_t gen = sc->gen;
    int32_t *order = sc->order;
    float *order_act = sc->order_act;
    engram_spread_link *link = sc->link;
    int64_t lo = 0, hi = m, d;
    for (d = 1; d <= max_depth && lo < hi; ++d) {
        int64_t f;
        sc->level_start[d] = hi;
        for (f = lo; f < hi; ++f) {
            const int32_t u = order[f];
            const int64_t start = indptr[u];
            const int64_t end = indptr[u + 1];
            const int64_t deg = end - start;
            double fan = 1.0, au;
            int64_t e, pf_end;
            /* Software pipeline over the frontier: row pointers three rows ahead, edge
             * arrays two rows ahead, and the node slots of the next row's targets. */
            if (f + 3 < hi) {
                PREFETCH_R(&indptr[order[f + 3]]);
            }
            if (f + 2 < hi) {
                engram_prefetch_row(indptr, indices, weight, relation, order[f + 2]);
            }
            if (deg == 0 || deg > degree_cap) {
                continue; /* nothing to pass, or a hub that is reached but not expanded */
            }
            if (f + 1 < hi) {
                engram_prefetch_targets(indptr, indices, order[f + 1], degree_cap, node, sizeof(*node), 1);
            }
            if (fan_on) {
                fan = pow((double)deg, -fan_exp);
            }
            au = (double)order_act[f];
            /* A long row prefetches the node slots EDGE_PREFETCH edges ahead; its last
             * EDGE_PREFETCH edges, and every short row, were prefetched already. */
            pf_end = end - EDGE_PREFETCH;
            for (e = start; e < pf_end; ++e) {
                PREFETCH_W(&node[indices[e + EDGE_PREFETCH]]);
                m = visit_edge(indices, weight, relation, e, u, au, fan, rel_mult, decay,
                               sum_mode, fan_on, check_rel, cap, node, gen, hi,
                               order, order_act, link, m);
            }
            for (e = (start > pf_end) ? start : pf_end; e < end; ++e) {
                m = visit_edge(indices, weight, relation, e, u, au, fan, rel_mult, decay,
                               sum_mode, fan_on, check_rel, cap, node, gen, hi,
                               order, order_act, link, m);
            }
        }
        lo = hi;
        hi = m;
    }
    *depth_reached = d;
    return m;
}

int64_t engram_spread_visit(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int32_t *seeds, const float *seed_act, int64_t n_seeds,
    const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    int64_t combine, double sum_cap,
    engram_spread_scratch *sc)
{
    const float cap = (float)sum_cap;
    int64_t m = 0;
    int64_t d, i;
    uint32_t gen;

    if (max_depth > ENGRAM_MAX_DEPTH) {
        max_depth = ENGRAM_MAX_DEPTH;
    }
    if (max_depth < 0) {
        max_depth = 0;
    }

    /* A new generation: every node slot reads as untouched. */
    gen = sc->gen + 1u;
    if (gen == 0u) {
        memset(sc->node, 0, (size_t)sc->n * sizeof(engram_spread_node));
        gen = 1u;
    }
    sc->gen = gen;

    /* Level 0: seeds; a duplicate keeps its first position and the largest activation. */
    for (i = 0; i < n_seeds; ++i) {
        const int32_t s = seeds[i];
        const float a = seed_act[i];
        engram_spread_node *x = &sc->node[s];
        if (x->gen == gen) {
            if (a > sc->order_act[x->pos]) {
                sc->order_act[x->pos] = a;
            }
            continue;
        }
        x->gen = gen;
        x->pos = (int32_t)m;
        sc->order[m] = s;
        sc->order_act[m] = a;
        sc->link[m].parent = -1;
        sc->link[m].best = a;
        ++m;
    }
    sc->level_start[0] = 0;

    /* One specialised loop per (combine, fan on/off, contradicts check). A `contradicts`
     * edge needs no test of its own when its multiplier is 0: its pass is then 0 or NaN
     * and fails the p > 0 test like any other pass that carries nothing. */
#define VISIT(SUM, FAN, REL)                                                                 \
    visit_levels(indptr, indices, weight, relation, rel_mult, max_depth, decay, fan_exp,      \
                 degree_cap, SUM, FAN, REL, cap, sc, m, &d)
    {
        const int sum = (combine == ENGRAM_COMBINE_SUM);
        const int fan = (fan_exp != 0.0);
        const int rel = (rel_mult[ENGRAM_REL_CONTRADICTS] != 0.0f);
        switch (sum * 4 + fan * 2 + rel) {
        case 0: m = VISIT(0, 0, 0); break;
        case 1: m = VISIT(0, 0, 1); break;
        case 2: m = VISIT(0, 1, 0); break;
        case 3: m = VISIT(0, 1, 1); break;
        case 4: m = VISIT(1, 0, 0); break;
        case 5: m = VISIT(1, 0, 1); break;
        case 6: m = VISIT(1, 1, 0); break;
        default: m = VISIT(1, 1, 1); break;
        }
    }
#undef VISIT
    /* Levels never reached start (empty) at m. */
    for (; d <= max_depth + 1; ++d) {
        sc->level_start[d] = m;
    }
    sc->n_levels = max_depth + 1;
    return m;
}

void engram_spread_collect(
    const engram_spread_scratch *sc, int64_t m,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth)
{
    int64_t d, i;
    memcpy(out_nodes, sc->order, (size_t)m * sizeof(int32_t));
    memcpy(out_act, sc->order_act, (size_t)m * sizeof(float));
    for (i = 0; i < m; ++i) {
        out_parent[i] = sc->link[i].parent;
    }
    for (d = 0; d < sc->n_levels; ++d) {
        const int64_t end = (sc->level_start[d + 1] < m) ? sc->level_start[d + 1] : m;
        for (i = sc->level_start[d]; i < end; ++i) {
            out_depth[i] = (int8_t)d;
        }
    }
}

/* Depth of the node at position pos of the last traversal's visit order. */
static int8_t depth_at(const engram_spread_scratch *sc, int64_t pos)
{
    int64_t d = 0;
    while (d + 1 < sc->n_levels && sc->level_start[d + 1] <= pos) {
        ++d;
    }
    return (int8_t)d;
}

/*
 * Rank key of a candidate: a larger key ranks higher. The high word orders the activation
 * (IEEE 754 bits made monotone: the sign bit flipped for numbers >= 0, all bits for
 * negatives; -0.0 taken as +0.0; every NaN 0, below every number), the low word is
 * INT32_MAX - v, so equal activations rank the smaller id higher. Comparing keys is then
 * one integer comparison, with no branch on NaN.
 */
static inline uint64_t cand_key(float a, int32_t v)
{
    uint32_t u;
    if (a == 0.0f) {
        a = 0.0f;
    }
    memcpy(&u, &a, sizeof u);
    if (isnan(a)) {
        u = 0u;
    } else {
        u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
    return ((uint64_t)u << 32) | (uint32_t)(INT32_MAX - v);
}

static inline int32_t key_node(uint64_t key)
{
    return (int32_t)(INT32_MAX - (int64_t)(uint32_t)key);
}

/* The activation a key encodes (NaN for a NaN key, +0.0 for either zero). */
static inline float key_act(uint64_t key)
{
    uint32_t u = (uint32_t)(key >> 32);
    float a;
    if (u == 0u) {
        return NAN;
    }
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    memcpy(&a, &u, sizeof a);
    return a;
}

/* Restore the min-heap below pos; the root is the lowest-ranked candidate kept. */
static void key_sift_down(uint64_t *heap, int64_t size, int64_t pos)
{
    const uint64_t x = heap[pos];
    for (;;) {
        int64_t child = 2 * pos + 1;
        if (child >= size) {
            break;
        }
        if (child + 1 < size && heap[child + 1] < heap[child]) {
            ++child;
        }
        if (x <= heap[child]) {
            break;
        }
        heap[pos] = heap[child];
        pos = child;
    }
    heap[pos] = x;
}

int64_t engram_spread_select(
    const engram_spread_scratch *sc, int64_t lo, int64_t m, int64_t k,
    engram_spread_cand *heap,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth)
{
    const int32_t *order = sc->order;
    const float *order_act = sc->order_act;
    uint64_t *h = heap;
    int64_t size = 0, i;
    float root;
    if (k <= 0 || lo >= m) {
        return 0;
    }
    /* Fill with the first k candidates, then keep the k best: one comparison per node
     * against the root, O(log k) more when it enters. Sequential reads only. */
    for (i = lo; i < m && size < k; ++i) {
        h[size++] = cand_key(order_act[i], order[i]);
    }
    for (i = size / 2 - 1; i >= 0; --i) {
        key_sift_down(h, size, i);
    }
    root = key_act(h[0]);
    i = lo + size;
    while (i < m) {
#ifdef __SSE2__
        /* Skip blocks of 8 that hold nothing at or above the root (the common case once the
         * heap is full): !(a < root) is also true for a NaN, as in the scalar test below,
         * and for everything when the root is NaN. */
        {
            const __m128 r4 = _mm_set1_ps(root);
            while (i + 8 <= m) {
                const __m128 lo4 = _mm_cmpnlt_ps(_mm_loadu_ps(order_act + i), r4);
                const __m128 hi4 = _mm_cmpnlt_ps(_mm_loadu_ps(order_act + i + 4), r4);
                if (_mm_movemask_ps(_mm_or_ps(lo4, hi4)) != 0) {
                    break;
                }
                i += 8;
            }
            if (i >= m) {
                break;
            }
        }
#endif
        if (!(order_act[i] < root)) { /* strictly below the k-th best cannot enter */
            const uint64_t c = cand_key(order_act[i], order[i]);
            if (c > h[0]) {
                h[0] = c;
                key_sift_down(h, size, 0);
                root = key_act(h[0]);
            }
        }
        ++i;
    }
    /* Heap sort in place: the lowest-ranked kept candidate goes to the back each round. */
    for (i = size - 1; i > 0; --i) {
        const uint64_t tmp = h[0];
        h[0] = h[i];
        h[i] = tmp;
        key_sift_down(h, i, 0);
    }
    for (i = 0; i < size; ++i) {
        const int32_t v = key_node(h[i]);
        const int64_t pos = sc->node[v].pos;
        out_nodes[i] = v;
        out_act[i] = order_act[pos]; /* the value itself: a key keeps no sign of zero */
        out_parent[i] = sc->link[pos].parent;
        out_depth[i] = depth_at(sc, pos);
    }
    return size;
}

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
{
    const int64_t nnz = indptr[n];
    int64_t i;
    for (i = q_begin; i < n_queries; ++i) {
        const int64_t lo = seed_indptr[i];
        const int64_t n_seeds = seed_indptr[i + 1] - lo;
        const int64_t at = out_indptr[i];
        int64_t worst = (n_seeds > 0) ? n_seeds + nnz : 0;
        int64_t m = 0;
        if (worst > n) {
            worst = n;
        }
        if (capacity - at < worst) {
            return i; /* the caller grows the outputs and resumes here */
        }
        if (n_seeds > 0) {
            m = engram_spread_visit(
                indptr, indices, weight, relation, seeds + lo, seed_act + lo, n_seeds,
                rel_mult, max_depth, decay, fan_exp, degree_cap, combine, sum_cap, sc);
            engram_spread_collect(sc, m, out_nodes + at, out_act + at, out_parent + at,
                                  out_depth + at);
        }
        out_indptr[i + 1] = at + m;
    }
    return n_queries;
}
