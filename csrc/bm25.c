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
 *
 * The feedback pass adds only the feedback terms' parts to the first pass's sums (the same
 * float sums: query terms first, then feedback terms), and prunes exactly, MaxScore-style
 * (Turtle & Flood 1995): with theta the k-th best first-pass score, a memory whose bound stays
 * below theta is never scored, and a term whose bound alone does so only visits the memories
 * scored already (their marks filtered in blocks, without a branch per posting). The final
 * top k is taken over the memories whose sum reached theta. Results, ties included, are the
 * reference's; export_all (every scored memory) turns the pruning off.
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

/* Relative margin on the pruning bound: covers the rounding of every part and of every sum
 * (a few units in the last place each), so the bound holds for the float64 scores as computed. */
#define BOUND_MARGIN 1e-6

/* Room for memories lifted to theta by the feedback terms, past the k of the first pass; when
 * more are lifted, the final top k is taken over every scored memory instead. */
#define HOT_EXTRA 4096

/* The constants of one term's BM25 parts (the reference's expression, operation by operation). */
typedef struct {
    double idf;          /* query weight x idf, float64 */
    double k1p1;         /* k1 + 1, float64 */
    float k1f, one_minus_b, bf, avgdlf;   /* the length normalisation, float32 */
} part_consts;

static part_consts term_consts(const engram_postings *p, int32_t term, double qw, double avgdl)
{
    part_consts c;
    const double df = (double)p->df[term];
    c.idf = qw * log1p(((double)p->n_docs - df + 0.5) / (df + 0.5));
    c.k1p1 = p->k1 + 1.0;
    c.k1f = (float)p->k1;
    c.one_minus_b = (float)(1.0 - p->b);
    c.bf = (float)p->b;
    c.avgdlf = (float)avgdl;
    return c;
}

/* idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)), the denominator in float32. */
static inline double bm25_part(const part_consts *c, float tf, float dl)
{
    const float den = tf + c->k1f * (c->one_minus_b + (c->bf * dl) / c->avgdlf);
    return c->idf * (double)tf * c->k1p1 / (double)den;
}

/* Memories whose sum reached theta in the feedback pass (the only ones, with the first pass's
 * top k, that can be in the final top k): a list with a bit per node id against repeats. */
typedef struct {
    double theta;
    uint8_t *bits;
    int32_t *list;
    int64_t n, cap;      /* n > cap: the list overflowed and is not used */
} hot_set;

static inline void mark_hot(hot_set *h, int32_t nid, double score)
{
    if (h != NULL && score >= h->theta && !((h->bits[nid >> 3] >> (nid & 7)) & 1)) {
        h->bits[nid >> 3] |= (uint8_t)(1u << (nid & 7));
        if (h->n < h->cap) {
            h->list[h->n] = nid;
        }
        ++h->n;
    }
}

/* The memories scored in this call: mark[nid] == stamp (the caller changes the stamp from
 * call to call, so no clearing pass is needed; acc[nid] is meaningful only for them). */
typedef struct {
    uint8_t *mark;
    uint8_t stamp;
} scored_set;

/* Postings per block of the branch-free filter of the pruned feedback terms. */
#define FILTER_BLOCK 256

/* How accumulate() treats a memory not scored yet in the feedback pass. */
typedef struct {
    int grow;            /* 0: never score it (the term's bound alone rules it out) */
    double theta;        /* a lower bound of the k-th best final score; 0 turns pruning off */
    double rest;         /* bound of what the later terms can add to one memory */
    hot_set *hot;        /* NULL: none kept */
} new_rule;

/* Nonzero if node id nid is allowed by the mask (NULL allows every one). */
static inline int is_allowed(const uint8_t *allowed, int64_t n_allowed, int32_t nid)
{
    return allowed == NULL || (nid < n_allowed && allowed[nid]);
}

/* One posting (nid, tf, dl) of the term with constants c: add its part to a memory scored
 * already; score a new one (append it to touched) unless the rule rules it out. Returns the
 * new touched count. */
static inline int64_t add_posting(const part_consts *c, int32_t nid, float tf, float dl, double *acc,
                                  int32_t *touched, int64_t m, scored_set sc, double theta, double rest,
                                  int skip_tf1, hot_set *hot)
{
    double part;
    if (sc.mark[nid] == sc.stamp) {
        const double v = acc[nid] + bm25_part(c, tf, dl);
        acc[nid] = v;
        mark_hot(hot, nid, v);
        return m;
    }
    if (skip_tf1 && tf == 1.0f) {
        return m;
    }
    part = bm25_part(c, tf, dl);
    if (theta > 0.0 && (part + rest) * (1.0 + BOUND_MARGIN) < theta) {
        return m;
    }
    sc.mark[nid] = sc.stamp;
    touched[m] = nid;
    acc[nid] = part;   /* 0 + part, the first part of its sum */
    mark_hot(hot, nid, part);
    return m + 1;
}

/* Offsets (from j) of the segment postings j..end-1 of marked memories, and with tf_not_1 also
 * of those whose tf is not 1, into block; returns their count. Branch-free: every offset is
 * written and the count advances only for the kept ones, so the mark tests run ahead. */
static inline int64_t gather_block(const int32_t *seg_nid, const float *seg_tf, int64_t j, int64_t end,
                                   scored_set sc, int tf_not_1, int32_t *block)
{
    int64_t q, n_hit = 0;
    for (q = j; q < end; ++q) {
        block[n_hit] = (int32_t)(q - j);
        n_hit += (sc.mark[seg_nid[q]] == sc.stamp) | (tf_not_1 & (seg_tf[q] != 1.0f));
    }
    return n_hit;
}

/* Add weight * BM25 part of every live, allowed posting of `term` to the memories in acc,
 * memories new to it marked and appended to touched, unless `rule` (NULL: none) shows they
 * cannot reach the top k: without grow no new memory is scored (the mark, from the node id
 * alone, skips the others before tf, dl or acc are read); with theta > 0 a new memory is left
 * out when its part plus rest stays below theta (one with tf 1 when the bound of such a part
 * does, without a division). A memory left out ends below theta whatever it gains later, so
 * it cannot be in the top k; the memories kept get every part, in term order. Returns the
 * new touched count. */
static int64_t accumulate(const engram_postings *p, int32_t term, double qw, double avgdl,
                          const uint8_t *allowed, int64_t n_allowed, double *acc, int32_t *touched,
                          int64_t m, scored_set sc, const new_rule *rule)
{
    const part_consts c = term_consts(p, term, qw, avgdl);
    const int grow = rule == NULL || rule->grow;
    const double theta = rule != NULL ? rule->theta : 0.0;
    const double rest = rule != NULL ? rule->rest : 0.0;
    hot_set *const hot = rule != NULL ? rule->hot : NULL;
    const int32_t *const seg_nid = p->seg_nid;
    const float *const seg_tf = p->seg_tf;
    const float *const seg_dl = p->seg_dl;
    const int64_t lo = term < p->n_seg_terms ? p->seg_ptr[term] : 0;
    const int64_t hi = term < p->n_seg_terms ? p->seg_ptr[term + 1] : 0;
    /* the bound of a part with tf 1: ((idf * 1) * (k1 + 1)) / (1 + k1 (1 - b)), its denominator
     * at dl = 0, the smallest (lengths are word counts, >= 0) */
    const float den1 = 1.0f + c.k1f * c.one_minus_b;
    const int skip_tf1 = theta > 0.0 && c.k1f >= 0.0f && c.one_minus_b >= 0.0f && c.bf >= 0.0f
        && c.avgdlf > 0.0f && (c.idf * 1.0 * c.k1p1 / (double)den1 + rest) * (1.0 + BOUND_MARGIN) < theta;
    int64_t j;
    int32_t d;
    if (!grow) {
        /* blocks of postings: the positions of marked memories are gathered without a branch
         * (the mark tests run ahead independently), then only those are scored */
        int32_t block[FILTER_BLOCK];
        for (j = lo; j < hi; j += FILTER_BLOCK) {
            const int64_t end = hi - j < FILTER_BLOCK ? hi : j + FILTER_BLOCK;
            const int64_t n_hit = gather_block(seg_nid, seg_tf, j, end, sc, 0, block);
            int64_t q;
            for (q = 0; q < n_hit; ++q) {
                const int64_t at = j + block[q];
                const int32_t nid = seg_nid[at];
                const float tf = seg_tf[at];
                if (tf != 0.0f && is_allowed(allowed, n_allowed, nid)) {
                    const double v = acc[nid] + bm25_part(&c, tf, seg_dl[at]);
                    acc[nid] = v;
                    mark_hot(hot, nid, v);
                }
            }
        }
        for (d = p->head[term]; d >= 0; d = p->d_next[d]) {
            const int32_t nid = p->d_nid[d];
            if (sc.mark[nid] == sc.stamp) {
                const float tf = p->d_tf[d];
                if (tf != 0.0f && is_allowed(allowed, n_allowed, nid)) {
                    const double v = acc[nid] + bm25_part(&c, tf, p->d_dl[d]);
                    acc[nid] = v;
                    mark_hot(hot, nid, v);
                }
            }
        }
        return m;
    }
    if (skip_tf1) {
        /* as above, in blocks: the postings of marked memories and those with tf != 1 */
        int32_t block[FILTER_BLOCK];
        for (j = lo; j < hi; j += FILTER_BLOCK) {
            const int64_t end = hi - j < FILTER_BLOCK ? hi : j + FILTER_BLOCK;
            const int64_t n_hit = gather_block(seg_nid, seg_tf, j, end, sc, 1, block);
            int64_t q;
            for (q = 0; q < n_hit; ++q) {
                const int64_t at = j + block[q];
                const float tf = seg_tf[at];
                const int32_t nid = seg_nid[at];
                if (tf != 0.0f && is_allowed(allowed, n_allowed, nid)) {
                    m = add_posting(&c, nid, tf, seg_dl[at], acc, touched, m, sc, theta, rest, skip_tf1, hot);
                }
            }
        }
    } else {
        for (j = lo; j < hi; ++j) {
            const float tf = seg_tf[j];
            const int32_t nid = seg_nid[j];
            if (tf != 0.0f && is_allowed(allowed, n_allowed, nid)) {
                m = add_posting(&c, nid, tf, seg_dl[j], acc, touched, m, sc, theta, rest, skip_tf1, hot);
            }
        }
    }
    for (d = p->head[term]; d >= 0; d = p->d_next[d]) {
        const float tf = p->d_tf[d];
        const int32_t nid = p->d_nid[d];
        if (tf != 0.0f && is_allowed(allowed, n_allowed, nid)) {
            m = add_posting(&c, nid, tf, p->d_dl[d], acc, touched, m, sc, theta, rest, skip_tf1, hot);
        }
    }
    return m;
}

static double avg_len(const engram_postings *p)
{
    return p->n_docs > 0 ? fmax(p->total_len / (double)p->n_docs, 1e-9) : 1e-9;
}

/* Accumulate the weighted BM25 parts of terms[0:n] (in that order) into acc, continuing
 * the touched list at m (every memory scored, and marked); returns the new touched count. */
static int64_t accumulate_terms(const engram_postings *p, const int32_t *terms, const double *weight,
                                int64_t n, const uint8_t *allowed, int64_t n_allowed,
                                double *acc, int32_t *touched, int64_t m, scored_set sc)
{
    const double avgdl = avg_len(p);
    int64_t i;
    for (i = 0; i < n; ++i) {
        const int32_t t = terms[i];
        if (t < 0 || t >= p->n_terms || p->df[t] <= 0 || !(weight[i] > 0.0)) {
            continue;
        }
        m = accumulate(p, t, weight[i], avgdl, allowed, n_allowed, acc, touched, m, sc, NULL);
    }
    return m;
}

/* Add the weighted parts of the feedback terms[0:n] (in that order) to the first pass's sums
 * in acc, continuing the touched list at m (sc marks touched[0:m]); returns the
 * new touched count. rest (room for n + 1) is scratch.
 *
 * Exact MaxScore-style pruning (Turtle & Flood 1995; the "continue" strategy of Moffat &
 * Zobel 1996): theta, the k-th best first-pass score, is a lower bound of the k-th best final
 * score, as parts are positive and adding one never lowers a float sum. A part is at most
 * w * idf * (k1 + 1), as tf / (tf + k1 (1 - b + b dl / avgdl)) <= 1 for tf > 0, dl >= 0,
 * k1 >= 0 and 0 <= b <= 1. A memory not scored before term i whose part of term i plus the
 * bounds of the terms after it stays (with BOUND_MARGIN) below theta ends strictly below
 * theta, so it cannot be in the top k (not even by a tie) and is not scored; from the term
 * where the bounds alone stay below theta, no new memory is looked at. The memories scored
 * get every part in term order, so their sums are exactly the reference's. theta <= 0 turns
 * the pruning off (every memory scored, for all_nid). */
static int64_t accumulate_feedback(const engram_postings *p, const int32_t *terms, const double *weight,
                                   int64_t n, const uint8_t *allowed, int64_t n_allowed,
                                   double *acc, int32_t *touched, int64_t m, double theta,
                                   scored_set sc, hot_set *hot, double *rest)
{
    const double avgdl = avg_len(p);
    int can_prune = theta > 0.0;   /* the caller checked k1 and b */
    double sum = 0.0;
    new_rule rule;
    int64_t i;
    rest[n] = 0.0;
    for (i = n - 1; i >= 0; --i) {   /* rest[i]: bound of what terms i.. can add to one memory */
        const int32_t t = terms[i];
        if (!(t < 0 || t >= p->n_terms || p->df[t] <= 0 || !(weight[i] > 0.0))) {
            const double idf = term_consts(p, t, weight[i], avgdl).idf;
            if (!(idf > 0.0) || !isfinite(idf)) {
                can_prune = 0;   /* parts not positive (df > n_docs): no bound holds */
            }
            sum += idf * (p->k1 + 1.0);
        }
        rest[i] = sum;
    }
    rule.hot = can_prune ? hot : NULL;
    rule.theta = can_prune ? theta : 0.0;
    for (i = 0; i < n; ++i) {
        const int32_t t = terms[i];
        if (t < 0 || t >= p->n_terms || p->df[t] <= 0 || !(weight[i] > 0.0)) {
            continue;
        }
        rule.grow = !(can_prune && rest[i] * (1.0 + BOUND_MARGIN) < theta);
        rule.rest = rest[i + 1];
        m = accumulate(p, t, weight[i], avgdl, allowed, n_allowed, acc, touched, m, sc, &rule);
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
    {
        int32_t root = touched[0];
        double root_score = acc[root];
        for (i = kk; i < m; ++i) {
            const int32_t c = touched[i];
            const double sc = acc[c];
            if (doc_above(sc, c, root_score, root)) {
                touched[i] = root;
                touched[0] = c;
                doc_sift_down(touched, kk, 0, acc);
                root = touched[0];
                root_score = acc[root];
            }
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

/* Export the m scored memories (any order) when all_nid is not NULL. */
static void finish(const double *acc, const int32_t *touched, int64_t m, int64_t *all_nid, double *all_score,
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

static int cand_rank(const engram_postings *p, const prf_cand *x, const prf_cand *y)
{
    if (x->weight != y->weight) {
        return x->weight > y->weight ? -1 : 1;
    }
    return -term_text_cmp(p, x->term, y->term);
}

/* The first min(want, n) candidates by rank into c[0:want], in order (selection: O(n want);
 * the candidate lists are small, the terms of a few memories, and a comparator with context
 * keeps the kernel reentrant, no global state under threads). Returns min(want, n). */
static int64_t select_by_rank(const engram_postings *p, prf_cand *c, int64_t n, int64_t want)
{
    int64_t i, j;
    if (want > n) {
        want = n;
    }
    for (i = 0; i < want; ++i) {
        int64_t best = i;
        prf_cand tmp;
        for (j = i + 1; j < n; ++j) {
            if (cand_rank(p, &c[j], &c[best]) < 0) {
                best = j;
            }
        }
        tmp = c[i];
        c[i] = c[best];
        c[best] = tmp;
    }
    return want;
}

int64_t engram_bm25_search(const engram_postings *p,
                           const int32_t *q_terms, const double *q_weight, int64_t n_q,
                           const uint8_t *allowed, int64_t n_allowed, int64_t k,
                           int64_t prf_docs, int64_t prf_terms, double prf_weight,
                           double *acc, int32_t *touched, uint8_t *mark, uint8_t stamp,
                           int64_t *out_nid, double *out_score,
                           int64_t *all_nid, double *all_score, int64_t *n_all)
{
    int64_t n1, i, j, n_fb, n_cand = 0, n_uniq = 0, n2, m = 0, cap;
    int bits;
    int32_t *slot;
    prf_cand *cand;
    int32_t *fb_terms;
    double *fb_weight, qmass, total, theta;
    hot_set hot;
    scored_set sc;

    sc.mark = mark;
    sc.stamp = stamp;
    if (p->n_docs > 0) {
        m = accumulate_terms(p, q_terms, q_weight, n_q, allowed, n_allowed, acc, touched, 0, sc);
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
    /* Sum the counts of each term over the feedback memories, through a small open-addressing
     * table term -> candidate (multiplicative hashing, linear probing, at most half full); the
     * query's own terms go in first, marked -1, and are dropped. */
    for (bits = 4; ((int64_t)1 << bits) < 2 * (n_cand + n_q); ++bits) {
    }
    cap = (int64_t)1 << bits;
    cand = (prf_cand *)malloc((size_t)(n_cand > 0 ? n_cand : 1) * sizeof(prf_cand));
    slot = (int32_t *)malloc((size_t)(2 * cap) * sizeof(int32_t));   /* pairs (term, candidate) */
    if (cand == NULL || slot == NULL) {
        free(cand);
        free(slot);
        return -1;
    }
    for (i = 0; i < cap; ++i) {
        slot[2 * i + 1] = -2;   /* empty */
    }
    for (i = 0; i < n_q; ++i) {
        int64_t h = (int64_t)(((uint32_t)q_terms[i] * 2654435761u) >> (32 - bits));
        while (slot[2 * h + 1] != -2 && slot[2 * h] != q_terms[i]) {
            h = (h + 1) & (cap - 1);
        }
        slot[2 * h] = q_terms[i];
        slot[2 * h + 1] = -1;
    }
    for (i = 0; i < n_fb; ++i) {
        const int32_t nid = (int32_t)out_nid[i];
        int64_t lo, hi;
        if (nid >= p->n_fwd) {
            continue;
        }
        lo = p->fwd_off[nid];
        hi = lo + p->fwd_len[nid];
        for (j = lo; j < hi; ++j) {
            const int32_t t = p->fwd_tid[j];
            const int64_t pos = p->fwd_pos[j];
            const float tf = pos < p->seg_nnz ? p->seg_tf[pos] : p->d_tf[pos - p->seg_nnz];
            int64_t h = (int64_t)(((uint32_t)t * 2654435761u) >> (32 - bits));
            while (slot[2 * h + 1] != -2 && slot[2 * h] != t) {
                h = (h + 1) & (cap - 1);
            }
            if (slot[2 * h + 1] == -2) {
                slot[2 * h] = t;
                slot[2 * h + 1] = (int32_t)n_uniq;
                cand[n_uniq].term = t;
                cand[n_uniq].count = 0;
                ++n_uniq;
            }
            if (slot[2 * h + 1] >= 0 && tf > 0.0f) {
                cand[slot[2 * h + 1]].count += 1;   /* feedback memories holding the term */
            }
        }
    }
    free(slot);
    for (i = 0; i < n_uniq; ++i) {
        const double df = (double)p->df[cand[i].term];
        const double idf = df > 0 ? log1p(((double)p->n_docs - df + 0.5) / (df + 0.5)) : 0.0;
        cand[i].weight = (double)cand[i].count * idf;
    }
    n_uniq = select_by_rank(p, cand, n_uniq, prf_terms);
    if (n_uniq == 0 || !(cand[0].weight > 0.0)) {
        free(cand);
        finish(acc, touched, m, all_nid, all_score, n_all);
        return n1;   /* nothing telling: the first pass stands */
    }
    /* The second pass scores query + feedback terms in that order: its sums start with the
     * first pass's, still in acc, so only the feedback terms are added (same result). */
    /* the feedback terms weigh prf_weight x the query's weight together (RM3), shared in
     * proportion to r x idf; both sums in the reference's order */
    qmass = 0.0;
    for (i = 0; i < n_q; ++i) {
        const int32_t t = q_terms[i];
        if (q_weight[i] > 0.0 && t >= 0 && t < p->n_terms && p->df[t] > 0) {
            qmass += q_weight[i];
        }
    }
    total = 0.0;
    for (i = 0; i < n_uniq; ++i) {
        total += cand[i].weight;
    }
    fb_terms = (int32_t *)malloc((size_t)n_uniq * sizeof(int32_t));
    fb_weight = (double *)malloc((size_t)(2 * n_uniq + 1) * sizeof(double));   /* weights, then bounds */
    if (fb_terms == NULL || fb_weight == NULL) {
        free(cand);
        free(fb_terms);
        free(fb_weight);
        return -1;
    }
    for (i = 0; i < n_uniq; ++i) {
        fb_terms[i] = cand[i].term;
        fb_weight[i] = prf_weight * qmass * cand[i].weight / total;
    }
    /* theta: the k-th best first-pass score when there are k hits (else any memory may enter);
     * 0 (no pruning) when every scored memory is exported or the bound does not hold */
    theta = 0.0;
    hot.n = 0;
    hot.cap = 0;
    hot.bits = NULL;
    hot.list = NULL;
    if (n1 == k && all_nid == NULL && p->k1 >= 0.0 && p->b >= 0.0 && p->b <= 1.0 && out_score[k - 1] > 0.0) {
        hot.cap = k + HOT_EXTRA;
        hot.bits = (uint8_t *)calloc((size_t)((p->n_fwd + 7) / 8), 1);
        hot.list = (int32_t *)malloc((size_t)hot.cap * sizeof(int32_t));
        if (hot.bits == NULL || hot.list == NULL) {
            free(hot.bits);
            free(hot.list);
            free(cand);
            free(fb_terms);
            free(fb_weight);
            return -1;
        }
        theta = hot.theta = out_score[k - 1];
        for (i = 0; i < n1; ++i) {   /* the first pass's top k: every one has reached theta */
            mark_hot(&hot, (int32_t)out_nid[i], out_score[i]);
        }
    }
    m = accumulate_feedback(p, fb_terms, fb_weight, n_uniq, allowed, n_allowed, acc, touched, m, theta,
                            sc, theta > 0.0 ? &hot : NULL, fb_weight + n_uniq);
    if (theta > 0.0 && hot.n <= hot.cap) {
        /* the final top k is among the memories whose sum reached theta: those in the first
         * pass's top k and those the feedback terms lifted to theta or above (a memory tied
         * at theta outside the first top k that gained nothing ranks below all of these) */
        n2 = select_top(acc, hot.list, hot.n, k, out_nid, out_score);
    } else {
        n2 = select_top(acc, touched, m, k, out_nid, out_score);
    }
    free(hot.bits);
    free(hot.list);
    finish(acc, touched, m, all_nid, all_score, n_all);
    free(cand);
    free(fb_terms);
    free(fb_weight);
    return n2;
}
