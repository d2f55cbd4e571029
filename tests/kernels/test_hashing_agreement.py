"""hashing_embed and murmurhash3_32: the C kernel agrees with the reference, both agree with
scikit-learn (a test-only oracle), and HashingEmbedder gives the vectors that scikit-learn's
HashingVectorizer pipeline gave before the native kernel (stored vectors stay valid)."""
from __future__ import annotations

import re
import subprocess
import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from engramdb.embed import HashingEmbedder
from engramdb.kernels import reference
from engramdb.validate import is_blank
from tests.strategies import load_backend

sklearn_text = pytest.importorskip("sklearn.feature_extraction.text")
from scipy import sparse
from sklearn.preprocessing import normalize
from sklearn.utils import murmurhash3_32

# Texts with accents, combining marks, ligatures, CJK, digits, punctuation and odd whitespace.
_ALPHABET = st.one_of(
    st.sampled_from(list("aAbZ09 _-.,'\t\n\u00a0\u2003éÉçßİﬁǅ\u0301\u0308日本語한국\u200b!?@#")),
    st.characters(blacklist_categories=("Cs",)),
)
texts = st.text(_ALPHABET, min_size=1, max_size=60).filter(lambda s: not is_blank(s))   # '\xad' alone is empty


def sklearn_embed(e: HashingEmbedder, items: list[str], hash_bits: int) -> np.ndarray:
    """The embedder as it was computed before the native kernel, with scikit-learn."""
    common = {"n_features": 1 << hash_bits, "lowercase": True, "strip_accents": "unicode",
              "alternate_sign": False, "norm": None, "dtype": np.float32}
    words = sklearn_text.HashingVectorizer(analyzer="word", ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b",
                                           **common)
    chars = sklearn_text.HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), **common)
    cols, vals = e.projection
    rows, nnz = 1 << hash_bits, cols.shape[1]
    proj = sparse.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, rows * nnz + 1, nnz)),
                             shape=(rows, e.dim), dtype=np.float32)

    def sublinear_unit(x):
        x = x.tocsr()
        np.log(x.data, out=x.data)
        x.data += 1.0
        return normalize(x, norm="l2", copy=False)

    a, b = np.float32(np.sqrt(e.word_weight)), np.float32(np.sqrt(1.0 - e.word_weight))
    mixed = a * sublinear_unit(words.transform(items)) + b * sublinear_unit(chars.transform(items))
    out = np.asarray((mixed @ proj).todense(), dtype=np.float32)
    norms = np.linalg.norm(out, axis=1)
    vanished = ~(norms > 1e-6)   # no feature: the embedder's own fallback vector, checked apart
    norms[vanished] = 1.0
    out /= norms[:, None]
    out[vanished] = np.nan
    return out


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    vanished = np.isnan(want[:, 0])
    assert_array_equal(got[~vanished], want[~vanished])   # bit for bit: stored vectors stay valid
    assert_allclose(np.linalg.norm(got[vanished], axis=1), 1.0, rtol=1e-5)


_EMBEDDERS = {}


def _embedder(**kw) -> HashingEmbedder:
    key = tuple(sorted(kw.items()))
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = HashingEmbedder(**kw)
    return _EMBEDDERS[key]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_embed_equals_sklearn_pipeline(text):
    e = _embedder()
    assert_same(e.embed([text]), sklearn_embed(e, [text], 18))


@settings(max_examples=40, deadline=None)
@given(batch=st.lists(texts, min_size=1, max_size=6),
       word_weight=st.sampled_from([0.0, 0.1, 0.5, 1.0]), hash_bits=st.sampled_from([10, 18]))
def test_batch_and_settings_equal_sklearn(batch, word_weight, hash_bits):
    e = _embedder(dim=32, word_weight=word_weight, hash_bits=hash_bits, seed=3)
    got = e.embed(batch)
    assert_same(got, sklearn_embed(e, batch, hash_bits))
    # a batch equals its texts one by one
    assert_array_equal(got, np.concatenate([e.embed([t]) for t in batch]))


def test_locomo_like_texts_equal_sklearn():
    e = _embedder()
    batch = ["I booked TAP flight TP 218, Boston to Lisbon.", "Café crème brûlée, naïve façade",
             "Caroline: I went to the LGBTQ support group yesterday!", "x", "日本語のテキスト",
             "ǅemal İstanbul ß ﬁ", "12.5 v1.2.3 e-mail@x.com  \t tabs"]
    assert_same(e.embed(batch), sklearn_embed(e, batch, 18))


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=40), seed=st.integers(0, 2**32 - 1))
def test_murmurhash_matches_sklearn(data, seed):
    want = murmurhash3_32(data, seed=seed, positive=True)
    assert reference.murmurhash3_32(data, seed) == want
    assert load_backend("c").murmurhash3_32(np.frombuffer(data, np.uint8), seed) == want


def _kernel_args(text: str, e: HashingEmbedder):
    text = text.lower()
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    cps = np.frombuffer(text.encode("utf-32-le"), np.uint32)
    words = np.array([m.span() for m in re.finditer(r"(?u)\b\w+\b", text)], np.int64).reshape(-1, 2)
    pieces = np.array([m.span() for m in re.finditer(r"\S+", text)], np.int64).reshape(-1, 2)
    cols, vals = e.projection
    with np.errstate(divide="ignore"):
        table = np.log(np.arange(8, dtype=np.float32)) + np.float32(1.0)   # short: logf past it
    return (cps, words, pieces, 1 << e.hash_bits, cols, vals, np.float32(np.sqrt(e.word_weight)),
            np.float32(np.sqrt(1.0 - e.word_weight)), e.dim, table)


@settings(max_examples=150, deadline=None)
@given(text=texts, word_weight=st.sampled_from([0.0, 0.1, 1.0]))
def test_c_agrees_with_reference(text, word_weight):
    e = _embedder(dim=16, hash_bits=10, word_weight=word_weight)
    args = _kernel_args(text, e)
    want, n_want = reference.hashing_embed(*args)
    got, n_got = load_backend("c").hashing_embed(*args)
    assert n_got == n_want
    assert got.dtype == np.float32
    assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_no_sklearn_import_at_run_time():
    code = ("import sys, tempfile\nimport engramdb\nfrom engramdb.embed import HashingEmbedder\n"
            "e = HashingEmbedder()\n"
            "e.embed(['hello there'])\n"
            "with engramdb.open(tempfile.mkdtemp(), embedder='hashing') as m:\n"
            "    m.add('I moved to Porto in March.'); m.recall('where do I live?')\n"
            "print('sklearn' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
