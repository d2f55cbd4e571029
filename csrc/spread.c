/*
 * spread.c - spreading activation over a typed CSR graph (see engram_kernels.h).
 *
 * Floating-point contract shared with the reference: the pass along an edge is computed in
 * double, left to right, as act[u] * min(w, 1) * rel_mult[rel] * decay * fan, then rounded
 * to float; SUM accumulates in float.
 */
#include <math.h>

#include "engram_kernels.h"

int64_t engram_spread_activation(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int32_t *seeds, const float *seed_act, int64_t n_seeds,
    const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    int64_t combine, double sum_cap,
    float *act, float *best, int32_t *parent, int8_t *depth, int32_t *order)
{
    const int sum_mode = (combine == ENGRAM_COMBINE_SUM);
    const float cap = (float)sum_cap;
    int64_t m = 0;
    int64_t lo, hi, d, i;

    /* Level 0: seeds; a duplicate keeps its first position and the largest activation. */
    for (i = 0; i < n_seeds; ++i) {
        const int32_t s = seeds[i];
        const float a = seed_act[i];
        if (depth[s] < 0) {
            depth[s] = 0;
            act[s] = a;
            best[s] = a;
            parent[s] = -1;
            order[m++] = s;
        } else if (a > act[s]) {
            act[s] = a;
        }
    }

    lo = 0;
    hi = m;
    for (d = 1; d <= max_depth && lo < hi; ++d) {
        int64_t f;
        for (f = lo; f < hi; ++f) {
            const int32_t u = order[f];
            const int64_t start = indptr[u];
            const int64_t end = indptr[u + 1];
            const int64_t deg = end - start;
            double fan, au;
            int64_t e;
            if (deg == 0 || deg > degree_cap) {
                continue; /* nothing to pass, or a hub that is reached but not expanded */
            }
            fan = (fan_exp == 0.0) ? 1.0 : pow((double)deg, -fan_exp);
            au = (double)act[u];
            for (e = start; e < end; ++e) {
                const int32_t v = indices[e];
                const uint8_t r = relation[e];
                float w, p;
                if (v == u || r == ENGRAM_REL_CONTRADICTS) {
                    continue;
                }
                w = weight[e];
                if (1.0f < w) {
                    w = 1.0f;
                }
                p = (float)(au * (double)w * (double)rel_mult[r] * decay * fan);
                if (!(p > 0.0f)) {
                    continue; /* also skips NaN */
                }
                if (depth[v] < 0) {
                    depth[v] = (int8_t)d;
                    parent[v] = u;
                    best[v] = p;
                    act[v] = (sum_mode && p > cap) ? cap : p;
                    order[m++] = v;
                } else if (depth[v] == d) {
                    if (sum_mode) {
                        const float total = (float)(act[v] + p);
                        act[v] = (total > cap) ? cap : total;
                        if (p > best[v]) {
                            best[v] = p;
                            parent[v] = u;
                        }
                    } else if (p > act[v]) {
                        act[v] = p;
                        parent[v] = u;
                    }
                }
                /* nodes visited at an earlier level never change */
            }
        }
        lo = hi;
        hi = m;
    }
    return m;
}

void engram_spread_collect(
    const int32_t *order, int64_t m,
    const float *act, const int32_t *parent, int8_t *depth,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth)
{
    int64_t i;
    for (i = 0; i < m; ++i) {
        const int32_t v = order[i];
        out_nodes[i] = v;
        out_act[i] = act[v];
        out_parent[i] = parent[v];
        out_depth[i] = depth[v];
        depth[v] = -1;
    }
}

int64_t engram_spread_activation_batch(
    const int64_t *indptr, int64_t n, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int64_t *seed_indptr, int64_t q_begin, int64_t n_queries,
    const int32_t *seeds, const float *seed_act,
    const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    int64_t combine, double sum_cap,
    float *act, float *best, int32_t *parent, int8_t *depth, int32_t *order,
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
            m = engram_spread_activation(
                indptr, indices, weight, relation, seeds + lo, seed_act + lo, n_seeds,
                rel_mult, max_depth, decay, fan_exp, degree_cap, combine, sum_cap,
                act, best, parent, depth, order);
            engram_spread_collect(
                order, m, act, parent, depth,
                out_nodes + at, out_act + at, out_parent + at, out_depth + at);
        }
        out_indptr[i + 1] = at + m;
    }
    return n_queries;
}
