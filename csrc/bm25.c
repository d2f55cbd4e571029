/*
 * bm25.c - Okapi BM25 over the keyword postings of one namespace, term at a time, with one
 * round of pseudo-relevance feedback (see engram_kernels.h and reference.bm25_search, the
 * specification).
 *
 * Postings: an immutable CSR segment (term -> postings) plus a delta of
 * postings added since, chained per term (head[t] -> next -> ... -> -1). A posting with
 * tf == 0 is a tombstone (a removed memory) and is skipped.
 *
 * Floating point, as the NumPy reference computes it: the length normalisation
 *     den = tf + k1 * ((1 - b) + b * dl / avgdl)
 * in float (each operation rounded to float), the part score
 *     idf * tf * (k1 + 1) / den,   idf = qw * log1p((n - df + 0.5) / (df + 0.5))
 * in double, and a memory's score the sum of its parts in query-term order, in double.
 * No fused multiply-add: the build has no -ffast-math and -std=c99 turns contraction off.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engram_kernels.h"

/* Nonzero if (sa, a) ranks above (sb, b): higher score first, then smaller node id. */
static int doc_above(double sa, int64_t a, double sb, int64_t b)
{
    return sa > sb || (sa == sb && a < b);
}

static void doc_sift_down(int32_t *heap, int64_t size, int64_t pos, const double *acc)
{
    for (;;) {
        int64_t child = 2 * pos + 1;
        int32_t tmp;
        if (child >= size) {
            return;
        }
        if (child + 1 < size && doc_above(acc[heap[child]], heap[child], acc[heap[child + 1]], heap[child + 1])) {
            ++child;
        }
        if (!doc_above(acc[heap[pos]], heap[pos], acc[heap[child]], heap[child])) {
            return;
        }
        tmp = heap[pos];
        heap[pos] = heap[child];
        heap[child] = tmp;
        pos = child;
    }
}

/* Add weight * BM25 part of every live, allowed posting of `term` into acc; new memories
 * are appended to touched. Returns the new touched count. */
static int64_t accumulate(const engram_postings *p, int32_t term, double qw, double avgdl,
                          const uint8_t *allowed, int64_t n_allowed,
                          double *acc, int32_t *touched, int64_t m)
{
    const double df = (double)p->df[term];
    const double idf = qw * log1p(((double)p->n_docs - df + 0.5) / (df + 0.5));
    const float k1f = (float)p->k1;
    const float one_minus_b = (float)(1.0 - p->b);
    const float bf = (float)p->b;
    const float avgdlf = (float)avgdl;
    const double k1p1 = p->k1 + 1.0;
    int64_t j;
    int32_t d;
    if (term < p->n_seg_terms) {
        for (j = p->seg_ptr[term]; j < p->seg_ptr[term + 1]; ++j) {
            const float tf = p->seg_tf[j];
            const int32_t nid = p->seg_nid[j];
            float den;
            if (tf == 0.0f || (allowed != NULL && (nid >= n_allowed || !allowed[nid]))) {
                continue;
            }
            den = tf + k1f * (one_minus_b + (bf * p->seg_dl[j]) / avgdlf);
            if (acc[nid] == 0.0) {
                touched[m++] = nid;
            }
            acc[nid] += idf * (double)tf * k1p1 / (double)den;
        }
    }
    for (d = p->head[term]; d >= 0; d = p->d_next[d]) {
        const float tf = p->d_tf[d];
        const int32_t nid = p->d_nid[d];
        float den;
        if (tf == 0.0f || (allowed != NULL && (nid >= n_allowed || !allowed[nid]))) {
            continue;
        }
        den = tf + k1f * (one_minus_b + (bf * p->d_dl[d]) / avgdlf);
        if (acc[nid] == 0.0) {
            touched[m++] = nid;
        }
        acc[nid] += idf * (double)tf * k1p1 / (double)den;
    }
    return m;
}

static double avg_len(const engram_postings *p)
{
    return p->n_docs > 0 ? fmax(p->total_len / (double)p->n_docs, 1e-9) : 1e-9;
}

/* Accumulate the weighted BM25 parts of terms[0:n] (in that order) into acc, continuing
 * the touched list at m; returns the new touched count. */
static int64_t accumulate_terms(const engram_postings *p, const int32_t *terms, const double *weight,
                                int64_t n, const uint8_t *allowed, int64_t n_allowed,
                                double *acc, int32_t *touched, int64_t m)
{
    const double avgdl = avg_len(p);
    int64_t i;
    for (i = 0; i < n; ++i) {
        const int32_t t = terms[i];
        if (t < 0 || t >= p->n_terms || p->df[t] <= 0 || !(weight[i] > 0.0)) {
            continue;
        }
        m = accumulate(p, t, weight[i], avgdl, allowed, n_allowed, acc, touched, m);
    }
    return m;
}

/* The k best of the m touched memories into out_nid/out_score, best first (the touched list
 * is reordered, acc left as it is). Returns the number written. */
static int64_t select_top(const double *acc, int32_t *touched, int64_t m, int64_t k,
                          int64_t *out_nid, double *out_score)
{
    int64_t i, size;
    const int64_t kk = k < m ? k : m;
    if (kk <= 0) {
        return 0;
    }
    /* touched[0:kk] becomes a heap whose root ranks lowest; the rest compete for it. */
    for (i = kk / 2 - 1; i >= 0; --i) {
        doc_sift_down(touched, kk, i, acc);
    }
    for (i = kk; i < m; ++i) {
        const int32_t c = touched[i];
        if (doc_above(acc[c], c, acc[touched[0]], touched[0])) {
            touched[i] = touched[0];
            touched[0] = c;
            doc_sift_down(touched, kk, 0, acc);
        }
    }
    for (size = kk - 1; size > 0; --size) {
        const int32_t tmp = touched[0];
        touched[0] = touched[size];
        touched[size] = tmp;
        doc_sift_down(touched, size, 0, acc);
    }
    for (i = 0; i < kk; ++i) {
        out_nid[i] = touched[i];
        out_score[i] = acc[touched[i]];
    }
    return kk;
}

static void reset(double *acc, const int32_t *touched, int64_t m)
{
    int64_t i;
    for (i = 0; i < m; ++i) {
        acc[touched[i]] = 0.0;
    }
}

/* Export the m scored memories (any order) when all_nid is not NULL, then zero acc. */
static void finish(double *acc, const int32_t *touched, int64_t m, int64_t *all_nid, double *all_score,
                   int64_t *n_all)
{
    int64_t i;
    if (all_nid != NULL) {
        for (i = 0; i < m; ++i) {
            all_nid[i] = touched[i];
            all_score[i] = acc[touched[i]];
        }
        *n_all = m;
    }
    reset(acc, touched, m);
}

typedef struct {
    double weight;
    int32_t term;
    int32_t count;
} prf_cand;

/* Feedback terms in the reference's order: weight descending, then term text descending
 * (Python's sorted(..., reverse=True) over (weight, term) tuples; UTF-8 byte order is code
 * point order). */
static int term_text_cmp(const engram_postings *p, int32_t a, int32_t b)
{
    const int64_t la = p->term_off[a + 1] - p->term_off[a];
    const int64_t lb = p->term_off[b + 1] - p->term_off[b];
    const int c = memcmp(p->term_bytes + p->term_off[a], p->term_bytes + p->term_off[b],
                         (size_t)(la < lb ? la : lb));
    if (c != 0) {
        return c;
    }
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

static int cand_cmp_term(const void *x, const void *y)
{
    const int32_t a = ((const prf_cand *)x)->term, b = ((const prf_cand *)y)->term;
    return (a > b) - (a < b);
}

static int cand_rank(const engram_postings *p, const prf_cand *x, const prf_cand *y)
{
    if (x->weight != y->weight) {
        return x->weight > y->weight ? -1 : 1;
    }
    return -term_text_cmp(p, x->term, y->term);
}

/* Insertion sort by rank: the candidate lists are small (the terms of a few memories), and a
 * comparator with context keeps the kernel reentrant (no global state under threads). */
static void sort_by_rank(const engram_postings *p, prf_cand *c, int64_t n)
{
    int64_t i, j;
    for (i = 1; i < n; ++i) {
        const prf_cand x = c[i];
        for (j = i; j > 0 && cand_rank(p, &x, &c[j - 1]) < 0; --j) {
            c[j] = c[j - 1];
        }
        c[j] = x;
    }
}

int64_t engram_bm25_search(const engram_postings *p,
                           const int32_t *q_terms, const double *q_weight, int64_t n_q,
                           const uint8_t *allowed, int64_t n_allowed, int64_t k,
                           int64_t prf_docs, int64_t prf_terms, double prf_weight,
                           double *acc, int32_t *touched, int64_t *out_nid, double *out_score,
                           int64_t *all_nid, double *all_score, int64_t *n_all)
{
    int64_t n1, i, j, n_fb, n_cand = 0, n_uniq = 0, n2, m = 0;
    prf_cand *cand;
    int32_t *fb_terms;
    double *fb_weight, top;

    if (p->n_docs > 0) {
        m = accumulate_terms(p, q_terms, q_weight, n_q, allowed, n_allowed, acc, touched, 0);
    }
    n1 = select_top(acc, touched, m, k, out_nid, out_score);
    if (n1 == 0 || prf_terms <= 0) {
        finish(acc, touched, m, all_nid, all_score, n_all);
        return n1;
    }
    n_fb = prf_docs < n1 ? prf_docs : n1;
    for (i = 0; i < n_fb; ++i) {
        const int32_t nid = (int32_t)out_nid[i];
        if (nid < p->n_fwd) {
            n_cand += p->fwd_len[nid];
        }
    }
    cand = (prf_cand *)malloc((size_t)(n_cand > 0 ? n_cand : 1) * sizeof(prf_cand));
    if (cand == NULL) {
        reset(acc, touched, m);
        return -1;
    }
    n_cand = 0;
    for (i = 0; i < n_fb; ++i) {
        const int32_t nid = (int32_t)out_nid[i];
        int64_t lo, hi;
        if (nid >= p->n_fwd) {
            continue;
        }
        lo = p->fwd_off[nid];
        hi = lo + p->fwd_len[nid];
        for (j = lo; j < hi; ++j) {
            const int64_t pos = p->fwd_pos[j];
            const float tf = pos < p->seg_nnz ? p->seg_tf[pos] : p->d_tf[pos - p->seg_nnz];
            cand[n_cand].term = p->fwd_tid[j];
            cand[n_cand].count = (int32_t)tf;
            cand[n_cand].weight = 0.0;
            ++n_cand;
        }
    }
    /* Sum the counts of each term over the feedback memories; drop the query's own terms. */
    qsort(cand, (size_t)n_cand, sizeof(prf_cand), cand_cmp_term);
    for (i = 0; i < n_cand; ++i) {
        const int32_t t = cand[i].term;
        int in_query = 0;
        if (n_uniq > 0 && cand[n_uniq - 1].term == t) {
            if (cand[n_uniq - 1].count >= 0) {
                cand[n_uniq - 1].count += cand[i].count;
            }
            continue;
        }
        for (j = 0; j < n_q; ++j) {
            if (q_terms[j] == t) {
                in_query = 1;
                break;
            }
        }
        if (in_query) {
            /* count -1 marks a query term: its duplicates fold into it, then it is dropped */
            cand[n_uniq].term = t;
            cand[n_uniq].count = -1;
            ++n_uniq;
            continue;
        }
        cand[n_uniq++] = cand[i];
    }
    j = 0;
    for (i = 0; i < n_uniq; ++i) {
        if (cand[i].count < 0) {
            continue;
        }
        {
            const double df = (double)p->df[cand[i].term];
            const double idf = df > 0 ? log1p(((double)p->n_docs - df + 0.5) / (df + 0.5)) : 0.0;
            cand[j] = cand[i];
            cand[j].weight = (double)cand[i].count * idf;
            ++j;
        }
    }
    n_uniq = j;
    sort_by_rank(p, cand, n_uniq);
    if (n_uniq > prf_terms) {
        n_uniq = prf_terms;
    }
    if (n_uniq == 0 || !(cand[0].weight > 0.0)) {
        free(cand);
        finish(acc, touched, m, all_nid, all_score, n_all);
        return n1;   /* nothing telling: the first pass stands */
    }
    /* The second pass scores query + feedback terms in that order: its sums start with the
     * first pass's, still in acc, so only the feedback terms are added (same result). */
    top = cand[0].weight;
    fb_terms = (int32_t *)malloc((size_t)n_uniq * sizeof(int32_t));
    fb_weight = (double *)malloc((size_t)n_uniq * sizeof(double));
    if (fb_terms == NULL || fb_weight == NULL) {
        free(cand);
        free(fb_terms);
        free(fb_weight);
        reset(acc, touched, m);
        return -1;
    }
    for (i = 0; i < n_uniq; ++i) {
        fb_terms[i] = cand[i].term;
        fb_weight[i] = prf_weight * cand[i].weight / top;
    }
    m = accumulate_terms(p, fb_terms, fb_weight, n_uniq, allowed, n_allowed, acc, touched, m);
    n2 = select_top(acc, touched, m, k, out_nid, out_score);
    finish(acc, touched, m, all_nid, all_score, n_all);
    free(cand);
    free(fb_terms);
    free(fb_weight);
    return n2;
}
