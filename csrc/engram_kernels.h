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

/* Largest max_depth the spreading kernels honour (depths are int8). */
#define ENGRAM_MAX_DEPTH 127

/*
 * Per-node slot of the spreading-activation scratch: the node's position in the visit
 * order, valid iff gen equals the scratch's current generation. 8 bytes.
 */
typedef struct {
    int32_t pos;
    uint32_t gen;
} engram_spread_node;

/*
 * Parent of a touched node (-1 for seeds) and the largest single pass it received (the SUM
 * parent choice), kept side by side: both are written when the node is reached.
 */
typedef struct {
    int32_t parent;
    float best;
} engram_spread_link;

/*
 * Scratch of one spreading-activation traversal over a graph of n nodes, owned by one
 * thread and reused across traversals (zero-initialised memory is a valid start).
 *
 * The state of the m touched nodes lives in arrays parallel to the visit order (node id,
 * activation, parent, largest single pass for the SUM parent choice), written front to
 * back and read sequentially. The only per-node memory is an 8-byte slot giving the
 * position in the visit order under the current generation: the generation is bumped by
 * every traversal, so nothing is cleared between calls (node[] is zeroed when the 32-bit
 * generation wraps).
 */
typedef struct {
    int64_t n;                 /* nodes of the graph */
    engram_spread_node *node;  /* n slots */
    uint32_t gen;              /* generation of the last traversal */
    int32_t *order;            /* n: node ids in first-visit order */
    float *order_act;          /* n: activation */
    engram_spread_link *link;  /* n: parent and largest single pass */
    int64_t n_levels;          /* levels 0 .. n_levels - 1 of the last traversal */
    int64_t level_start[ENGRAM_MAX_DEPTH + 2];
} engram_spread_scratch;

/* A candidate of the top-k selection: its rank key (activation, then node id; see spread.c). */
typedef uint64_t engram_spread_cand;

/*
 * Spreading activation by levels with a visited set (Collins & Loftus 1975; Anderson 1974
 * fan effect; SYNAPSE arXiv:2601.02744 section 3). See reference.spread_activation.
 *
 * On return, sc->order[0:m] lists the m touched nodes in first-visit order with their
 * activations, parents and (SUM) largest passes in the parallel arrays of sc; level d
 * occupies positions sc->level_start[d] .. sc->level_start[d + 1] - 1 (seeds are level 0;
 * levels not reached are empty at m; min(max_depth, ENGRAM_MAX_DEPTH) + 2 entries are set).
 * Rows of the frontier and the node slots of the next row's targets are prefetched.
 *
 * Returns m, the number of touched nodes (seeds included).
 */
int64_t engram_spread_visit(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int32_t *seeds, const float *seed_act, int64_t n_seeds,
    const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    int64_t combine, double sum_cap,
    engram_spread_scratch *sc);

/*
 * Copy the results of the last traversal's m nodes into the out_* arrays (length m).
 * Sequential reads only.
 */
void engram_spread_collect(
    const engram_spread_scratch *sc, int64_t m,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth);

/*
 * Top-k selection over positions lo .. m - 1 of the last traversal (see
 * reference.spread_topk; lo = sc->level_start[min_depth] drops the shallower levels): the k
 * of largest activation, ties by the smaller node id, NaN last; written best first to out_*
 * (capacity k), with their parent and depth. heap is scratch of k candidates. Cost
 * O((m - lo) log k) over the sequential order/order_act arrays, whose blocks below the
 * k-th best so far are skipped with SSE2 compares. Returns the number written, <= k.
 */
int64_t engram_spread_select(
    const engram_spread_scratch *sc, int64_t lo, int64_t m, int64_t k,
    engram_spread_cand *heap,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth);

/*
 * Spreading activation for queries q_begin .. n_queries - 1 of a batch (see
 * reference.spread_activation_batch), one after another, reusing one scratch (as for
 * engram_spread_visit).
 *
 * Query i spreads from seeds[seed_indptr[i]:seed_indptr[i + 1]]; its m_i touched nodes are
 * written to out_*[out_indptr[i] : out_indptr[i] + m_i] and out_indptr[i + 1] is set.
 * out_indptr[q_begin] must hold the write position on entry (0 at the start). The out_*
 * arrays hold `capacity` entries; before each query the kernel checks that the worst case,
 * min(n, n_seeds_i + nnz) entries, still fits, and otherwise returns early so that the
 * caller can grow the outputs and call again from the returned query.
 *
 * Returns the first query not done: n_queries when the batch is complete.
 */
int64_t engram_spread_activation_batch(
    const int64_t *indptr, int64_t n, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int64_t *seed_indptr, int64_t q_begin, int64_t n_queries,
    const int32_t *seeds, const float *seed_act,
    const float *rel_mult,
    int64_t max_depth, double decay, double fan_exp, int64_t degree_cap,
    int64_t combine, double sum_cap,
    engram_spread_scratch *sc,
    int64_t *out_indptr, int64_t capacity,
    int32_t *out_nodes, float *out_act, int32_t *out_parent, int8_t *out_depth);

/*
 * Lateral inflow within an activated set (Anderson 1983, ACT* spreading activation; Collins &
 * Loftus 1975). See reference.spread_inflow.
 *
 * For the m distinct members nodes[0:m] with activations act[0:m]: every member u = nodes[j]
 * with act[j] > 0 and 1 <= deg(u) <= degree_cap passes, along each edge u -> v to another
 * member (self-loops and contradicts edges skipped),
 *     act[j] * min(w, 1) * rel_mult[rel] * decay * deg(u)^-fan_exp
 * (in double, rounded to float; fan_exp 0 gives factor 1), and inflow[i]/source[i] keep the
 * strictly largest pass into nodes[i] and its sender (0 and -1 if none). The outputs have
 * length m and need no initialisation.
 *
 * mark (length n) must be -1 everywhere on entry; the kernel sets mark[nodes[i]] = i and
 * resets those m entries to -1 before returning, so the cost is O(m + edges of the members'
 * rows), not O(n).
 */
void engram_spread_inflow(
    const int64_t *indptr, const int32_t *indices, const float *weight,
    const uint8_t *relation,
    const int32_t *nodes, const float *act, int64_t m,
    const float *rel_mult,
    double decay, double fan_exp, int64_t degree_cap,
    int32_t *mark, float *inflow, int32_t *source);

/*
 * out[i] = s0[i] * 2^(-max(now - t0[i], 0) / half_life_by_kind[kind[i]]) (see
 * reference.rescore_salience): the exponent in double, rounded to float, then exp2f and a
 * float product. Every kind[i] must be < n_kinds. Memory-bound: reads 13 bytes and writes 4
 * per memory.
 */
void engram_rescore_salience(
    const float *s0, const double *t0, const uint8_t *kind, int64_t n,
    const float *half_life_by_kind, int64_t n_kinds, double now, float *out);

/*
 * A-MAC admission (arXiv:2603.04549; see reference.admission_score): for each of the n
 * rows of features (row-major, k columns), score = sum_j features[j] * weights[j]
 * accumulated in float from j = 0, each product and partial sum rounded to float (no fused
 * multiply-add); admit = (score >= (float)threshold) as 0/1.
 */
void engram_admission_score(
    const float *features, int64_t n, int64_t k, const float *weights, double threshold,
    float *score, uint8_t *admit);

/*
 * Indices of the k largest scores into out (capacity min(k, n)), best first, ties broken
 * by the smaller index, NaN ranked last. Heap selection, O(n log k).
 * Returns the number written, min(max(k, 0), n).
 */
int64_t engram_topk(const float *scores, int64_t n, int64_t k, int64_t *out);

/*
 * Keyword postings of one namespace for engram_bm25_search (see index/keyword.py):
 *   segment: seg_ptr int64[n_seg_terms + 1] -> seg_nid int32 (any order within a term),
 *            seg_tf float32 (term frequency; 0 = tombstone), seg_dl float32 (memory length);
 *            seg_nnz postings in all;
 *   delta:   head int32[n_terms] (-1 = none) -> d_next int32 (-1 ends), d_nid, d_tf, d_dl;
 *   df int64[n_terms]: live postings per term; term_off int64[n_terms + 1] into term_bytes
 *            (UTF-8 term texts, for the feedback tie order);
 *   forward: fwd_off int64[n_fwd], fwd_len int32[n_fwd] per node id -> fwd_tid int32 (term)
 *            and fwd_pos int64 (posting: < seg_nnz in the segment, else seg_nnz + delta index).
 */
typedef struct {
    const int64_t *seg_ptr;
    int64_t n_seg_terms;
    int64_t seg_nnz;
    const int32_t *seg_nid;
    const float *seg_tf;
    const float *seg_dl;
    const int32_t *head;
    const int32_t *d_next;
    const int32_t *d_nid;
    const float *d_tf;
    const float *d_dl;
    const int64_t *df;
    int64_t n_terms;
    const int64_t *term_off;
    const uint8_t *term_bytes;
    const int64_t *fwd_off;
    const int32_t *fwd_len;
    int64_t n_fwd;
    const int32_t *fwd_tid;
    const int64_t *fwd_pos;
    int64_t n_docs;
    double total_len;
    double k1;
    double b;
} engram_postings;

/*
 * Okapi BM25 (Robertson & Zaragoza 2009) of the query terms q_terms[0:n_q] with weights
 * q_weight, term at a time into acc, the k best kept by a heap (score descending, then node
 * id ascending); then, when prf_terms > 0 and there is a hit, pseudo-relevance feedback
 * (Rocchio 1971; RM3): the prf_terms terms of the first prf_docs hits that are not query
 * terms with the best r x idf (r: how many of those hits hold the term) join the query,
 * together weighing prf_weight x the query's weight, shared by r x idf, and BM25 runs again.
 * See reference.bm25_search, the specification.
 *
 * allowed (NULL for none): a byte mask over node ids of length n_allowed; only memories with
 * a nonzero byte are scored. Scratch, n_fwd entries each: acc (float64, any content),
 * touched (int32) and mark (uint8): no entry of mark may equal stamp on entry; on return the
 * memories scored hold stamp (so a caller that changes the stamp from call to call, and zeroes
 * mark before reusing one, never clears anything). Outputs hold k entries. Returns the number
 * written (<= k), or -1 when memory ran out.
 *
 * all_nid / all_score (NULL for none; room for n_fwd entries): every memory the answering
 * pass scored, in no particular order, with its float64 score; *n_all gets their number.
 */
int64_t engram_bm25_search(const engram_postings *p,
                           const int32_t *q_terms, const double *q_weight, int64_t n_q,
                           const uint8_t *allowed, int64_t n_allowed, int64_t k,
                           int64_t prf_docs, int64_t prf_terms, double prf_weight,
                           double *acc, int32_t *touched, uint8_t *mark, uint8_t stamp,
                           int64_t *out_nid, double *out_score, int64_t *all_nid, double *all_score,
                           int64_t *n_all);

/*
 * MurmurHash3_x86_32 (Appleby 2011) of len bytes with the given seed, as an unsigned value
 * (scikit-learn's murmurhash3_32 with positive=True).
 */
uint32_t engram_murmur3_32(const uint8_t *data, int64_t len, uint32_t seed);

/*
 * The hashing embedder of one preprocessed (lowercased, accent-stripped) text, as
 * scikit-learn's HashingVectorizer computes its features (see reference.hashing_embed):
 * cps[0:n_cps] are the text's code points; word_spans (n_words pairs [start, end) in code
 * points) its \w+ tokens, giving unigrams and "a b" bigrams; ws_spans (n_ws pairs) its
 * whitespace-separated words, giving char_wb 3- to 5-grams of " word ". Each feature's UTF-8
 * bytes are hashed (MurmurHash3_x86_32, seed 0) to |h| mod n_features; counts c get
 * tf_table[c] = 1 + ln(c) (float; logf(c) + 1 for c >= n_table) and unit L2 norm per part; the parts are weighted word_scale / char_scale and summed (float);
 * row b of the projection is proj_cols/proj_vals[b * nnz : (b + 1) * nnz]. out (dim floats)
 * receives the projected, unnormalised vector.
 *
 * Returns the number of distinct hashed features (0: out is all zero), or -1 when memory ran
 * out.
 */
int64_t engram_hashing_embed(const uint32_t *cps, int64_t n_cps,
                             const int64_t *word_spans, int64_t n_words,
                             const int64_t *ws_spans, int64_t n_ws,
                             int64_t n_features, const int32_t *proj_cols, const float *proj_vals,
                             int64_t nnz, float word_scale, float char_scale, int64_t dim,
                             const float *tf_table, int64_t n_table, float *out);


/*
 * The seeds of a recall from its vector leg (labels, cos: v memories, best first, distinct)
 * and keyword leg (kw_nids, kw_score, kw_cos: w memories, best first, distinct; kw_cos read
 * only for those not among labels): the contract of reference.fuse_seeds. seeds, base and
 * seed_cos have room for v + w entries. Returns s, the number of seeds written, or -1 when
 * memory ran out.
 */
int64_t engram_fuse_seeds(
    const int64_t *labels, const float *cos, int64_t v,
    const int64_t *kw_nids, const float *kw_score, const float *kw_cos, int64_t w,
    double w_vector, double w_keyword, double contrast,
    int32_t *seeds, float *base, float *seed_cos);

/*
 * Partial sums of a sentence key's cosine in engram_sentence_lift (component j of the key goes
 * to partial j mod ENGRAM_LIFT_LANES); the reference uses the same number.
 */
#define ENGRAM_LIFT_LANES 8

/*
 * Cosines lifted toward each memory's best sentence key: the contract of
 * reference.sentence_lift. keys (n_rows x dim floats, row-major) holds the keys of memory nid
 * in rows key_start[nid] .. key_start[nid] + key_count[nid] (key_count <= 0: none);
 * for i < n, out[i] = cos[i] + (float)weight * (best - cos[i]) when the best key's cosine to
 * query (dim floats) exceeds cos[i], else cos[i]. Returns 0, or -1 - i for the first i whose
 * nid is outside [0, n_nodes) or whose rows are outside keys (out then holds only rows < i).
 */
int64_t engram_sentence_lift(
    const float *keys, int64_t n_rows, int64_t dim,
    const int64_t *key_start, const int32_t *key_count, int64_t n_nodes,
    const int64_t *nids, const float *cos, int64_t n,
    const float *query, double weight, float *out);

#ifdef __cplusplus
}
#endif

#endif /* ENGRAM_KERNELS_H */
