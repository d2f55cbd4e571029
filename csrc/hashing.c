/*
 * hashing.c - the hashing embedder's features (see engram_kernels.h and
 * reference.hashing_embed, the specification): word 1-2-grams and char_wb 3-5-grams of a
 * preprocessed text, hashed with MurmurHash3_x86_32 into n_features buckets as
 * scikit-learn's HashingVectorizer does, sublinear tf, per-part L2 normalisation, the
 * weighted sum of the parts and the sparse projection to dim.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engram_kernels.h"

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

/* MurmurHash3_x86_32 (Appleby 2011, public domain algorithm): 4-byte little-endian blocks,
 * then the tail, then the finalisation mix. */
uint32_t engram_murmur3_32(const uint8_t *data, int64_t len, uint32_t seed)
{
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h = seed, k;
    int64_t i, nblocks = len / 4;
    const uint8_t *tail;
    for (i = 0; i < nblocks; ++i) {
        const uint8_t *p = data + 4 * i;
        k = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5u + 0xe6546b64u;
    }
    tail = data + 4 * nblocks;
    k = 0;
    switch (len & 3) {
    case 3:
        k ^= (uint32_t)tail[2] << 16;
        /* fall through */
    case 2:
        k ^= (uint32_t)tail[1] << 8;
        /* fall through */
    case 1:
        k ^= (uint32_t)tail[0];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        break;
    default:
        break;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Bucket of a feature: |h| mod n_features of the signed hash, as scikit-learn's
 * FeatureHasher (INT32_MIN, whose absolute value overflows, maps as it does there). */
static int32_t bucket(const uint8_t *bytes, int64_t len, int64_t n_features)
{
    const int32_t h = (int32_t)engram_murmur3_32(bytes, len, 0u);
    if (h == INT32_MIN) {
        return (int32_t)((2147483647 - (n_features - 1)) % n_features);
    }
    return (int32_t)((h < 0 ? -(int64_t)h : (int64_t)h) % n_features);
}

/* UTF-8 of one code point into out; returns the bytes written (surrogates as 3 bytes). */
static int utf8(uint32_t c, uint8_t *out)
{
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xc0 | (c >> 6));
        out[1] = (uint8_t)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xe0 | (c >> 12));
        out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (uint8_t)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | (c >> 18));
    out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (uint8_t)(0x80 | (c & 0x3f));
    return 4;
}

static int cmp_i32(const void *x, const void *y)
{
    const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* Sort the buckets, fold repeats into counts, apply 1 + ln(count) (float, from tf_table when
 * count < n_table: NumPy's float32 log, which differs from logf in the last bit for some
 * counts) and unit L2 norm
 * (sum of float squares in double, each value divided in double). idx/val get the m distinct
 * buckets in increasing order; returns m. */
static int64_t sublinear_unit(int32_t *b, int64_t n, int32_t *idx, float *val,
                              const float *tf_table, int64_t n_table)
{
    int64_t i, m = 0;
    double sum = 0.0;
    qsort(b, (size_t)n, sizeof(int32_t), cmp_i32);
    for (i = 0; i < n; ++i) {
        if (m > 0 && idx[m - 1] == b[i]) {
            val[m - 1] += 1.0f;
        } else {
            idx[m] = b[i];
            val[m] = 1.0f;
            ++m;
        }
    }
    for (i = 0; i < m; ++i) {
        const int64_t count = (int64_t)val[i];
        val[i] = count < n_table ? tf_table[count] : logf(val[i]) + 1.0f;
        sum += (double)(val[i] * val[i]);
    }
    if (sum > 0.0) {
        sum = sqrt(sum);
        for (i = 0; i < m; ++i) {
            val[i] = (float)((double)val[i] / sum);
        }
    }
    return m;
}

int64_t engram_hashing_embed(const uint32_t *cps, int64_t n_cps,
                             const int64_t *word_spans, int64_t n_words,
                             const int64_t *ws_spans, int64_t n_ws,
                             int64_t n_features, const int32_t *proj_cols, const float *proj_vals,
                             int64_t nnz, float word_scale, float char_scale, int64_t dim,
                             const float *tf_table, int64_t n_table, float *out)
{
    uint8_t *text8, *buf;
    int64_t *off8, *pad;
    int32_t *wb, *cb, *widx, *cidx;
    float *wval, *cval;
    int64_t i, j, n_wb = 0, n_cb = 0, max_char, mw, mc, a, c, total;
    /* UTF-8 of the text with the byte offset of every code point (off8[n_cps] = end). */
    text8 = (uint8_t *)malloc((size_t)(4 * n_cps + 16));
    off8 = (int64_t *)malloc((size_t)(n_cps + 1) * sizeof(int64_t));
    buf = (uint8_t *)malloc((size_t)(4 * n_cps + 16));
    pad = (int64_t *)malloc((size_t)(n_cps + 3) * sizeof(int64_t));
    max_char = 0;
    for (i = 0; i < n_ws; ++i) {
        const int64_t len = ws_spans[2 * i + 1] - ws_spans[2 * i] + 2;
        max_char += 3 * (len > 0 ? len : 0);
    }
    wb = (int32_t *)malloc((size_t)(2 * n_words + 1) * sizeof(int32_t));
    cb = (int32_t *)malloc((size_t)(max_char + 1) * sizeof(int32_t));
    widx = (int32_t *)malloc((size_t)(2 * n_words + 1) * sizeof(int32_t));
    wval = (float *)malloc((size_t)(2 * n_words + 1) * sizeof(float));
    cidx = (int32_t *)malloc((size_t)(max_char + 1) * sizeof(int32_t));
    cval = (float *)malloc((size_t)(max_char + 1) * sizeof(float));
    if (!text8 || !off8 || !buf || !pad || !wb || !cb || !widx || !wval || !cidx || !cval) {
        total = -1;
        goto done;
    }
    off8[0] = 0;
    for (i = 0; i < n_cps; ++i) {
        off8[i + 1] = off8[i] + utf8(cps[i], text8 + off8[i]);
    }
    /* words: unigrams, then bigrams "a b" */
    for (i = 0; i < n_words; ++i) {
        const int64_t s = off8[word_spans[2 * i]], e = off8[word_spans[2 * i + 1]];
        wb[n_wb++] = bucket(text8 + s, e - s, n_features);
    }
    for (i = 0; i + 1 < n_words; ++i) {
        const int64_t s1 = off8[word_spans[2 * i]], e1 = off8[word_spans[2 * i + 1]];
        const int64_t s2 = off8[word_spans[2 * i + 2]], e2 = off8[word_spans[2 * i + 3]];
        memcpy(buf, text8 + s1, (size_t)(e1 - s1));
        buf[e1 - s1] = ' ';
        memcpy(buf + (e1 - s1) + 1, text8 + s2, (size_t)(e2 - s2));
        wb[n_wb++] = bucket(buf, (e1 - s1) + 1 + (e2 - s2), n_features);
    }
    /* char_wb: 3- to 5-grams of " word " for each whitespace-separated word; a padded word
     * shorter than n gives one n-gram (itself) and ends the word */
    for (i = 0; i < n_ws; ++i) {
        const int64_t s = ws_spans[2 * i], e = ws_spans[2 * i + 1];
        const int64_t len = e - s + 2;   /* code points of the padded word */
        int64_t n, offset;
        /* pad[k]: byte offset of padded code point k in buf (pad[len] = end) */
        buf[0] = ' ';
        memcpy(buf + 1, text8 + off8[s], (size_t)(off8[e] - off8[s]));
        buf[1 + off8[e] - off8[s]] = ' ';
        pad[0] = 0;
        for (j = 0; j < e - s; ++j) {
            pad[j + 1] = 1 + off8[s + j] - off8[s];
        }
        pad[len - 1] = 1 + off8[e] - off8[s];
        pad[len] = pad[len - 1] + 1;
        for (n = 3; n <= 5; ++n) {
            const int64_t end0 = n < len ? n : len;
            offset = 0;
            cb[n_cb++] = bucket(buf, pad[end0], n_features);
            while (offset + n < len) {
                ++offset;
                cb[n_cb++] = bucket(buf + pad[offset], pad[offset + n] - pad[offset], n_features);
            }
            if (offset == 0) {
                break;
            }
        }
    }
    mw = sublinear_unit(wb, n_wb, widx, wval, tf_table, n_table);
    mc = sublinear_unit(cb, n_cb, cidx, cval, tf_table, n_table);
    /* mixed = word_scale * words + char_scale * chars (float), merged by bucket; then each
     * bucket's row of the projection is added in (float), buckets in increasing order */
    for (i = 0; i < dim; ++i) {
        out[i] = 0.0f;
    }
    a = 0;
    c = 0;
    while (a < mw || c < mc) {
        int32_t col;
        float v;
        if (c >= mc || (a < mw && widx[a] < cidx[c])) {
            col = widx[a];
            v = word_scale * wval[a++];
        } else if (a >= mw || cidx[c] < widx[a]) {
            col = cidx[c];
            v = char_scale * cval[c++];
        } else {
            col = widx[a];
            v = word_scale * wval[a++] + char_scale * cval[c++];
        }
        for (j = 0; j < nnz; ++j) {
            out[proj_cols[(int64_t)col * nnz + j]] += v * proj_vals[(int64_t)col * nnz + j];
        }
    }
    total = mw + mc;
done:
    free(text8);
    free(off8);
    free(buf);
    free(pad);
    free(wb);
    free(cb);
    free(widx);
    free(wval);
    free(cidx);
    free(cval);
    return total;
}
