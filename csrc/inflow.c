/*
 * inflow.c - lateral inflow within an activated set (see engram_kernels.h).
 *
 * Floating-point contract shared with the reference and spread.c: the pass along an edge is
 * computed in double, left to right, as act[j] * min(w, 1) * rel_mult[rel] * decay * fan,
 * then rounded to float; a member keeps a pass only if it is strictly greater.
 *
 * The members are in visit order, so their rows lie anywhere in the edge arrays: each row
 * start costs cache misses, and each edge a random read of mark[]. Both are prefetched ahead
 * (row pointers PF_INDPTR members ahead, edge arrays PF_ROW ahead, the mark[] slots of the
 * targets of the member PF_MARK ahead, and within a long row the slots EDGE_PREFETCH edges
 * ahead), as in spread.c; the arithmetic and its order are unchanged. Measured on the
 * inflow calls of LoCoMo questions against 1M memories (4,300 members, 60,000 edges each):
 * 1,090 -> 650 us from cold caches; at 100k, whose graph stays in the L3 cache between
 * recalls, 259 -> 200 us cold and 63 -> 68 us warm (benchmarks/bench_recall_scale.py has
 * the whole-recall figures).
 */
#include <math.h>

#include "engram_kernels.h"
#include "prefetch.h"

/* Prefetch distances in members: row pointers, edge arrays, the mark[] slots of a row's first
 * targets (prefetch.h). */
#define PF_INDPTR 6
#define PF_ROW 4
#define PF_MARK 2

/* The pass of member j (activation au, fan factor fan) along edge e into a member, kept if it
 * is the strongest so far. */
static inline void inflow_edge(
    const int32_t *indices, const float *weight, const uint8_t *relation, int64_t e,
    int32_t u, double au, double fan, const float *rel_mult, double decay,
    const int32_t *mark, float *inflow, int32_t *source)
{
    const int32_t v = indices[e];
    const uint8_t r = relation[e];
    int32_t at;
    float w, p;
    if (v == u || r == ENGRAM_REL_CONTRADICTS) {
        return;
    }
    at = mark[v];
    if (at < 0) {
        return; /* not a member */
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
        int64_t e, pf_end;
        if (j + PF_INDPTR < m) {
            PREFETCH_R(&indptr[nodes[j + PF_INDPTR]]);
        }
        if (j + PF_ROW < m) {
            engram_prefetch_row(indptr, indices, weight, relation, nodes[j + PF_ROW]);
        }
        if (j + PF_MARK < m) {
            engram_prefetch_targets(indptr, indices, nodes[j + PF_MARK], degree_cap, mark, sizeof(*mark), 0);
        }
        if (deg == 0 || deg > degree_cap || !(act[j] > 0.0f)) {
            continue; /* nothing to pass, a hub, or no activation (NaN included) */
        }
        fan = (fan_exp == 0.0) ? 1.0 : pow((double)deg, -fan_exp);
        au = (double)act[j];
        pf_end = end - EDGE_PREFETCH;
        for (e = start; e < pf_end; ++e) {
            PREFETCH_R(&mark[indices[e + EDGE_PREFETCH]]);
            inflow_edge(indices, weight, relation, e, u, au, fan, rel_mult, decay, mark, inflow, source);
        }
        for (e = (start > pf_end) ? start : pf_end; e < end; ++e) {
            inflow_edge(indices, weight, relation, e, u, au, fan, rel_mult, decay, mark, inflow, source);
        }
    }

    for (i = 0; i < m; ++i) {
        mark[nodes[i]] = -1;
    }
}
