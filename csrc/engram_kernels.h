/*
 * engram_kernels.h - plain C99 kernels of engramdb (no Python.h).
 *
 * Each function mirrors the kernel of the same name in src/engramdb/kernels/reference.py,
 * which is the specification; src/engramdb/kernels/_ckernels.pyx wraps them and releases the
 * GIL around every call. Kernels never validate their input.
 *
 * CSR graph: indptr int64[n + 1], indices int32[nnz], weight float32[nnz],
 * relation uint8[nnz].
 */
#ifndef ENGRAM_KERNELS_H
#define ENGRAM_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Relation code that carries no activation (reference.CONTRADICTS). */
#define ENGRAM_REL_CONTRADICTS 2
/* Values of the `combine` argument of engram_spread_activation. */
#define ENGRAM_COMBINE_MAX 0
#define ENGRAM_COMBINE_SUM 1

/*
 * Spreading activation by levels with a visited set (Collins & Loftus 1975; Anderson 1974
 * fan effect; SYNAPSE arXiv:2601.02744 section 3). See reference.spread_activation.
 *
 * Scratch, each of length n: act, best, parent, order, and depth, which must be -1
 * everywhere on entry. On return, order[0:m] lists the m touched nodes in first-visit order
 * and act/parent/depth hold their results; call engram_spread_collect to copy them out and
 * restore depth to -1 (cost O(m), not O(n)).
 *
 * Returns m, the number of touched nodes (seeds included).
 */
int64_t engram_spread_activation(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int32_t *seeds, const float *seed_act, int64_t n_seeds,
    const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    int64_t combine, double sum_cap,
    float *act, float *best, int32_t *parent, int8_t *depth, int32_t *order);

/*
 * Copy the results of the m nodes in order[0:m] into the out_* arrays (length m) and reset
 * depth of those nodes to -1, leaving the scratch ready for the next call.
 */
void engram_spread_collect(
    const int32_t *order, int64_t m,
    const float *act, const int32_t *parent, int8_t *depth,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth);

/*
 * out[i] = s0[i] * 2^(-(now - t0[i]) / half_life_s[i]), in double, rounded to float
 * (Settles & Meeder 2016, section 3.1). Times in Unix seconds.
 */
void engram_decay_salience(
    const float *s0, const double *t0, double now, const float *half_life_s, int64_t n,
    float *out);

/*
 * Indices of the k largest scores into out (capacity min(k, n)), best first, ties broken
 * by the smaller index, NaN ranked last. Heap selection, O(n log k).
 * Returns the number written, min(max(k, 0), n).
 */
int64_t engram_topk(const float *scores, int64_t n, int64_t k, int64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* ENGRAM_KERNELS_H */
