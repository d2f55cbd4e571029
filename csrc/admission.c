/*
 * admission.c - A-MAC admission scoring (arXiv:2603.04549; see engram_kernels.h).
 *
 * Each product and each partial sum is its own statement, rounded to float, so that no
 * compiler contracts them into a fused multiply-add: the result equals the reference's
 * float32 NumPy accumulation bit for bit.
 */
#include "engram_kernels.h"

void engram_admission_score(
    const float *features, int64_t n, int64_t k, const float *weights, double threshold,
    float *score, uint8_t *admit)
{
    const float thr = (float)threshold;
    int64_t i, j;
    for (i = 0; i < n; ++i) {
        const float *row = features + i * k;
        float s = 0.0f;
        for (j = 0; j < k; ++j) {
            const float term = row[j] * weights[j];
            s = (j == 0) ? term : s + term;
        }
        score[i] = s;
        admit[i] = (uint8_t)(s >= thr);
    }
}
