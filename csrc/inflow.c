/*
 * inflow.c - lateral inflow within an activated set (see engram_kernels.h).
 *
 * Floating-point contract shared with the reference and spread.c: the pass along an edge is
 * computed in double, left to right, as act[j] * min(w, 1) * rel_mult[rel] * decay * fan,
 * then rounded to float; a member keeps a pass only if it is strictly greater.
 */
#include <math.h>

#include "engram_kernels.h"

void engram_spread_inflow(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int32_t *nodes, const float *act, int64_t m,
    const float *rel_mult,
    double decay, double fan_exp, int64_t degree_cap,
    int32_t *mark, float *inflow, int32_t *source)
{
    int64_t i, j;

    for (i = 0; i < m; ++i) {
        inflow[i] = 0.0f;
        source[i] = -1;
        mark[nodes[i]] = (int32_t)i;
    }

    for (j = 0; j < m; ++j) {
        const int32_t u = nodes[j];
        const int64_t start = indptr[u];
        const int64_t end = indptr[u + 1];
        const int64_t deg = end - start;
        double fan, au;
        int64_t e;
        if (deg == 0 || deg > degree_cap || !(act[j] > 0.0f)) {
            continue; /* nothing to pass, a hub, or no activation (NaN included) */
        }
        fan = (fan_exp == 0.0) ? 1.0 : pow((double)deg, -fan_exp);
        au = (double)act[j];
        for (e = start; e < end; ++e) {
            const int32_t v = indices[e];
            const uint8_t r = relation[e];
            int32_t at;
            float w, p;
            if (v == u || r == ENGRAM_REL_CONTRADICTS) {
                continue;
            }
            at = mark[v];
            if (at < 0) {
                continue; /* not a member */
            }
            w = weight[e];
            if (1.0f < w) {
                w = 1.0f;
            }
            p = (float)(au * (double)w * (double)rel_mult[r] * decay * fan);
            if (p > inflow[at]) { /* strictly greater: ties keep the first; skips NaN */
                inflow[at] = p;
                source[at] = u;
            }
        }
    }

    for (i = 0; i < m; ++i) {
        mark[nodes[i]] = -1;
    }
}
