/*
 * prefetch.h - software prefetch shared by the graph kernels (spread.c, inflow.c).
 *
 * A traversal reads rows of the CSR in visit order, so each row start is a cache miss, and
 * each of its targets a random read of a per-node array. The kernels prefetch a few rows
 * ahead: the row pointers, the row's edge arrays, and the per-node slots of its first targets.
 */
#ifndef ENGRAM_PREFETCH_H
#define ENGRAM_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_R(p) __builtin_prefetch((p), 0, 3)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PREFETCH_R(p) ((void)(p))
#define PREFETCH_W(p) ((void)(p))
#define ALWAYS_INLINE inline
#endif

/* Targets of a row whose per-node slots are prefetched one row ahead, and edges ahead within
 * a long row. */
#define ROW_PREFETCH 16
#define EDGE_PREFETCH 16

/* The edge arrays of row u from its first edge. */
static ALWAYS_INLINE void engram_prefetch_row(const int64_t *indptr, const int32_t *indices, const float *weight,
                                              const uint8_t *relation, int32_t u)
{
    const int64_t ns = indptr[u];
    PREFETCH_R(&indices[ns]);
    PREFETCH_R(&weight[ns]);
    PREFETCH_R(&relation[ns]);
}

/* The slots (slots + stride * v bytes) of the first ROW_PREFETCH targets v of row u, unless
 * the row is longer than degree_cap (a hub that is not expanded); for writing when write != 0
 * (a literal at every call). */
static ALWAYS_INLINE void engram_prefetch_targets(const int64_t *indptr, const int32_t *indices, int32_t u,
                                                  int64_t degree_cap, const void *slots, size_t stride,
                                                  const int write)
{
    const int64_t ns = indptr[u];
    int64_t ne = indptr[u + 1], e;
    if (ne - ns > degree_cap) {
        return;
    }
    if (ne - ns > ROW_PREFETCH) {
        ne = ns + ROW_PREFETCH;
    }
    for (e = ns; e < ne; ++e) {
        const char *p = (const char *)slots + stride * (size_t)indices[e];
        if (write) {
            PREFETCH_W(p);
        } else {
            PREFETCH_R(p);
        }
    }
}

#endif /* ENGRAM_PREFETCH_H */
