/*
 * topk.c - partial selection of the k best scores with a binary heap (see
 * engram_kernels.h). The heap root is the lowest-ranked index kept, so each of the n scores
 * costs one comparison, plus O(log k) when it enters: O(n log k) overall.
 *
 * Ranking: larger score first, ties by smaller index, NaN after every number.
 */
#include <math.h>

#include "engram_kernels.h"

/* Nonzero if index a ranks above index b. */
static int above(const float *scores, int64_t a, int64_t b)
{
    const float sa = scores[a];
    const float sb = scores[b];
    if (isnan(sa)) {
        return isnan(sb) && a < b;
    }
    if (isnan(sb)) {
        return 1;
    }
    return sa > sb || (sa == sb && a < b);
}

static void sift_down(int64_t *heap, int64_t size, int64_t pos, const float *scores)
{
    for (;;) {
        int64_t child = 2 * pos + 1;
        int64_t tmp;
        if (child >= size) {
            return;
        }
        if (child + 1 < size && above(scores, heap[child], heap[child + 1])) {
            ++child;
        }
        if (!above(scores, heap[pos], heap[child])) {
            return;
        }
        tmp = heap[pos];
        heap[pos] = heap[child];
        heap[child] = tmp;
        pos = child;
    }
}

int64_t engram_topk(const float *scores, int64_t n, int64_t k, int64_t *out)
{
    int64_t i, size;
    if (k > n) {
        k = n;
    }
    if (k <= 0) {
        return 0;
    }
    for (i = 0; i < k; ++i) {
        out[i] = i;
    }
    for (i = k / 2 - 1; i >= 0; --i) {
        sift_down(out, k, i, scores);
    }
    for (i = k; i < n; ++i) {
        if (above(scores, i, out[0])) {
            out[0] = i;
            sift_down(out, k, 0, scores);
        }
    }
    /* Heap sort in place: the lowest-ranked kept index goes to the back each round. */
    for (size = k - 1; size > 0; --size) {
        const int64_t tmp = out[0];
        out[0] = out[size];
        out[size] = tmp;
        sift_down(out, size, 0, scores);
    }
    return k;
}
