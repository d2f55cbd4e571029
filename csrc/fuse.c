/*
 * fuse.c - the seeds of a recall from its vector and keyword legs (see engram_kernels.h and
 * reference.fuse_seeds).
 *
 * Floating-point contract shared with the reference: every step in double, left to right as
 * the reference writes it, rounded to float at the end. The legs are short (tens of memories),
 * so each keyword memory is looked up among the vector leg's by a linear scan, or by binary
 * search over a sorted copy when that leg is longer than FUSE_SCAN.
 */
#include <stdlib.h>
#include <string.h>

#include "engram_kernels.h"

/* Vector legs up to this length are scanned linearly for each keyword memory. */
#define FUSE_SCAN 64

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_label(const void *a, const void *b)
{
    const int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/* The row of label x in labels[0:v] (scanned, or searched in sorted: (label, row) pairs in
 * label order, when not NULL), or -1. */
static int64_t leg_row(const int64_t *labels, int64_t v, const int64_t *sorted, int64_t x)
{
    int64_t i, lo = 0, hi = v;
    if (sorted == NULL) {
        for (i = 0; i < v; ++i) {
            if (labels[i] == x) {
                return i;
            }
        }
        return -1;
    }
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (sorted[2 * mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < v && sorted[2 * lo] == x) ? sorted[2 * lo + 1] : -1;
}

int64_t engram_fuse_seeds(
    const int64_t *labels, const float *cos, int64_t v,
    const int64_t *kw_nids, const float *kw_score, const float *kw_cos, int64_t w,
    double w_vector, double w_keyword, double contrast,
    int32_t *seeds, float *base, float *seed_cos)
{
    int64_t i, j, s = v;
    int64_t *sorted = NULL;
    int64_t *kw_row = NULL;
    double *vs = NULL, *b64 = NULL;
    double top = 0.0, floor_b = 0.0, best;
    int mode = 0; /* 0: scale, 1: all zero, 2: all one, 3: empty vector leg */

    if (v > FUSE_SCAN) {
        sorted = (int64_t *)malloc((size_t)(2 * v) * sizeof(int64_t));
        if (sorted == NULL) {
            return -1;
        }
        for (i = 0; i < v; ++i) {
            sorted[2 * i] = labels[i];
            sorted[2 * i + 1] = i;
        }
        qsort(sorted, (size_t)v, 2 * sizeof(int64_t), cmp_label);
    }
    kw_row = (int64_t *)malloc((size_t)(w + 1) * sizeof(int64_t));
    if (kw_row == NULL) {
        free(sorted);
        return -1;
    }
    for (i = 0; i < v; ++i) {
        seeds[i] = (int32_t)labels[i];
        seed_cos[i] = cos[i];
    }
    for (j = 0; j < w; ++j) { /* the keyword leg's others follow, in its order */
        kw_row[j] = leg_row(labels, v, sorted, kw_nids[j]);
        if (kw_row[j] < 0) {
            kw_row[j] = s;
            seeds[s] = (int32_t)kw_nids[j];
            seed_cos[s] = kw_cos[j];
            ++s;
        }
    }
    vs = (double *)malloc((size_t)(2 * s + 1) * sizeof(double));
    if (vs == NULL) {
        free(sorted);
        free(kw_row);
        return -1;
    }
    b64 = vs + s;

    /* v: the cosine on the vector leg's scale */
    if (v == 0) {
        mode = 3;
    } else {
        double *m = b64; /* scratch for the median, overwritten by base below */
        top = (double)cos[0] > 0.0 ? (double)cos[0] : 0.0;
        for (i = 0; i < v; ++i) {
            m[i] = (double)cos[i] > 0.0 ? (double)cos[i] : 0.0;
        }
        qsort(m, (size_t)v, sizeof(double), cmp_double);
        floor_b = contrast * ((v % 2) ? m[v / 2] : (m[v / 2 - 1] + m[v / 2]) / 2.0);
        if (top <= 0.0) {
            mode = 1;
        } else if (top - floor_b <= 1e-12) {
            mode = 2;
        }
    }
    for (i = 0; i < s; ++i) {
        const double c = (double)seed_cos[i];
        const double p = c > 0.0 ? c : 0.0;
        double x;
        if (mode == 3) {
            x = p < 1.0 ? p : 1.0;
        } else if (mode == 1) {
            x = 0.0;
        } else if (mode == 2) {
            x = 1.0;
        } else {
            const double rel = (p - floor_b) / (top - floor_b);
            x = (rel > 0.0) ? (rel < 1.0 ? rel : 1.0) : 1e-3 * p / top;
        }
        vs[i] = x;
        b64[i] = w_vector * x;
    }

    /* plus the keyword leg's score over its best */
    if (w > 0 && w_keyword > 0.0) {
        const double top_kw = kw_score[0] > 0.0f ? (double)kw_score[0] : 1.0;
        for (j = 0; j < w; ++j) {
            b64[kw_row[j]] = b64[kw_row[j]] + w_keyword * (double)kw_score[j] / top_kw;
        }
    }

    /* over the best base (the scale alone when no base is positive) */
    if (s > 0) {
        best = b64[0];
        for (i = 1; i < s; ++i) {
            if (b64[i] > best) {
                best = b64[i];
            }
        }
        if (best <= 0.0) {
            for (i = 0; i < s; ++i) {
                base[i] = (float)vs[i];
            }
        } else {
            for (i = 0; i < s; ++i) {
                base[i] = (float)(b64[i] / best);
            }
        }
    }
    free(sorted);
    free(vs);
    free(kw_row);
    return s;
}
