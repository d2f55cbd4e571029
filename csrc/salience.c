/*
 * salience.c - exponential salience decay (see engram_kernels.h).
 * Settles & Meeder (2016), ACL, section 3.1: p = 2^(-delta / h).
 */
#include <string.h>

#include "engram_kernels.h"

/*
 * 2^x for x in [-200, 0], vectorisable without fast-math (libm's exp2f is a scalar call):
 * split y = x + 127 into its integer part i (clamped to >= 1) and fraction f; 2^(i - 127) is
 * the float with exponent field i, and 2^f a degree-7 Taylor polynomial in Horner form
 * (relative error < 2e-6, inside the 1e-5 the kernels agree to). Below -126 (a salience
 * under 1.2e-38 of its start) the result is 0. No branches, so the loop vectorises.
 */
static float exp2_nonpositive(float x)
{
    const float y = x + 127.0f;
    int32_t i = (int32_t)y;
    const float keep = (float)(x >= -126.0f);
    float f, p, scale;
    uint32_t bits;
    i = (i < 1) ? 1 : i;
    f = y - (float)i;
    p = 1.52527338e-5f;
    p = p * f + 1.54035304e-4f;
    p = p * f + 1.33335581e-3f;
    p = p * f + 9.61812911e-3f;
    p = p * f + 5.55041087e-2f;
    p = p * f + 2.40226507e-1f;
    p = p * f + 6.93147181e-1f;
    p = p * f + 1.0f;
    bits = (uint32_t)i << 23;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale * keep;
}

/*
 * Blocked so that the arithmetic loops vectorise (plain SSE2 at the x86-64 baseline): ages
 * (double, as Unix seconds need) for a block, the exponent via the per-kind table (a scalar
 * gather), then 2^x and the products. The block stays in L1.
 */
#define RESCORE_BLOCK 512

void engram_rescore_salience(
    const float *s0, const double *t0, const uint8_t *kind, int64_t n,
    const float *half_life_by_kind, int64_t n_kinds, double now, float *out)
{
    float neg_inv_h[256];
    float x[RESCORE_BLOCK];
    int64_t j, b;
    for (j = 0; j < 256; ++j) {
        neg_inv_h[j] = (j < n_kinds) ? (float)(-1.0 / (double)half_life_by_kind[j]) : 0.0f;
    }
    for (b = 0; b < n; b += RESCORE_BLOCK) {
        const int64_t len = (n - b < RESCORE_BLOCK) ? n - b : RESCORE_BLOCK;
        const double *tb = t0 + b;
        const uint8_t *kb = kind + b;
        const float *sb = s0 + b;
        float *ob = out + b;
        for (j = 0; j < len; ++j) {
            x[j] = (float)(now - tb[j]);          /* age; negative (t0 after now) clamps below */
        }
        for (j = 0; j < len; ++j) {
            const float e = x[j] * neg_inv_h[kb[j]];
            x[j] = (e > 0.0f) ? 0.0f : ((e < -200.0f) ? -200.0f : e);
        }
        for (j = 0; j < len; ++j) {
            ob[j] = sb[j] * exp2_nonpositive(x[j]);
        }
    }
}
