/*
 * sentence.c - cosines lifted toward each memory's best sentence key (see engram_kernels.h
 * and reference.sentence_lift).
 *
 * Floating-point contract shared with the reference: a key's cosine to the query is summed in
 * float over ENGRAM_LIFT_LANES interleaved partial sums (component j goes to partial j mod
 * ENGRAM_LIFT_LANES, each from j = 0 upward), each product and each partial sum its own
 * statement rounded to float (no fused multiply-add: -std=c99 turns contraction off), then the
 * partials are added pairwise in a fixed tree. The partials are independent, so the loop runs
 * at the adder's throughput rather than its latency, and the result is the same bit for bit in
 * every backend.
 */
#include "engram_kernels.h"
#include "prefetch.h"

/* Most bytes of the next memory's keys prefetched while one memory is scored. */
#define LIFT_PREFETCH_BYTES 4096
/* How many memories ahead their keys are prefetched. */
#define LIFT_AHEAD 1

static float lane_dot(const float *row, const float *q, int64_t dim)
{
    float acc[ENGRAM_LIFT_LANES] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    int64_t j = 0;
    int l;
    for (; j + ENGRAM_LIFT_LANES <= dim; j += ENGRAM_LIFT_LANES) {
        for (l = 0; l < ENGRAM_LIFT_LANES; ++l) {
            const float p = row[j + l] * q[j + l];
            acc[l] = acc[l] + p;
        }
    }
    for (l = 0; j < dim; ++j, ++l) {
        const float p = row[j] * q[j];
        acc[l] = acc[l] + p;
    }
    {
        const float a = acc[0] + acc[1], b = acc[2] + acc[3];
        const float c = acc[4] + acc[5], d = acc[6] + acc[7];
        const float ab = a + b, cd = c + d;
        return ab + cd;
    }
}

/* Prefetch the first LIFT_PREFETCH_BYTES of memory nid's keys (nothing for a bad nid). */
static void prefetch_keys(const float *keys, int64_t n_rows, int64_t dim, const int64_t *key_start,
                          const int32_t *key_count, int64_t n_nodes, int64_t nid)
{
    const char *p;
    int64_t bytes, b;
    if (nid < 0 || nid >= n_nodes || key_count[nid] <= 0 || key_start[nid] < 0
            || key_start[nid] > n_rows - key_count[nid]) {
        return;
    }
    p = (const char *)(keys + key_start[nid] * dim);
    bytes = (int64_t)key_count[nid] * dim * (int64_t)sizeof(float);
    if (bytes > LIFT_PREFETCH_BYTES) {
        bytes = LIFT_PREFETCH_BYTES;
    }
    for (b = 0; b < bytes; b += 64) {
        PREFETCH_R(p + b);
    }
}

int64_t engram_sentence_lift(
    const float *keys, int64_t n_rows, int64_t dim,
    const int64_t *key_start, const int32_t *key_count, int64_t n_nodes,
    const int64_t *nids, const float *cos, int64_t n,
    const float *query, double weight, float *out)
{
    const float w = (float)weight;
    int64_t i, r;
    for (i = 0; i < LIFT_AHEAD && i < n; ++i) {
        prefetch_keys(keys, n_rows, dim, key_start, key_count, n_nodes, nids[i]);
    }
    for (i = 0; i < n; ++i) {
        const int64_t nid = nids[i];
        int64_t first, m;
        float best, lift;
        if (i + LIFT_AHEAD < n) {   /* a later memory's rows, while this one's are scored */
            prefetch_keys(keys, n_rows, dim, key_start, key_count, n_nodes, nids[i + LIFT_AHEAD]);
        }
        if (nid < 0 || nid >= n_nodes) {
            return -1 - i;
        }
        m = key_count[nid];
        out[i] = cos[i];
        if (m <= 0) {
            continue;
        }
        first = key_start[nid];
        if (first < 0 || first > n_rows - m) {
            return -1 - i;
        }
        best = lane_dot(keys + first * dim, query, dim);
        for (r = 1; r < m; ++r) {
            const float s = lane_dot(keys + (first + r) * dim, query, dim);
            if (s > best || s != s) {   /* a NaN is the best for good, as in np.max */
                best = s;
            }
        }
        lift = best - cos[i];
        if (lift > 0.0f) {
            const float up = w * lift;
            out[i] = cos[i] + up;
        }
    }
    return 0;
}
