/*
 * salience.c - exponential salience decay (see engram_kernels.h).
 * Settles & Meeder (2016), ACL, section 3.1: p = 2^(-delta / h).
 */
#include <math.h>

#include "engram_kernels.h"

void engram_decay_salience(
    const float *s0, const double *t0, double now, const float *half_life_s, int64_t n,
    float *out)
{
    int64_t i;
    for (i = 0; i < n; ++i) {
        const double x = -(now - t0[i]) / (double)half_life_s[i];
        out[i] = (float)((double)s0[i] * exp2(x));
    }
}
