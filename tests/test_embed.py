"""Embedders: shapes, unit norms, determinism, bad input, and the MiniLM backends."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

from engramdb.embed import Embedder, HashingEmbedder, MiniLMEmbedder, get_embedder
from engramdb.errors import BackendUnavailableError, EmptyTextError, InvalidInputError

TEXTS = [
    "My flight to Lisbon is TP1234, confirmation code QX7K2P.",
    "The trip to Lisbon starts on 12 June and ends on 19 June.",
    "I adopted a puppy named Oscar last week.",
    "Café crème at the airport",
    "cafe creme at the airport",
    "?!",
    "a",
]


@pytest.fixture(scope="module")
def hashing():
    return HashingEmbedder()


@pytest.mark.parametrize("n", [0, 1, 7, 1024])
def test_hashing_shape_dtype_unit_rows(hashing, n):
    texts = [f"memory number {i} about topic {i % 13}" for i in range(n)]
    v = hashing.embed(texts)
    assert v.shape == (n, 384)
    assert v.dtype == np.float32
    if n:
        np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
        assert np.isfinite(v).all()


def test_hashing_is_an_embedder(hashing):
    assert isinstance(hashing, Embedder)
    assert hashing.dim == 384 and isinstance(hashing.name, str) and hashing.name


def test_hashing_batch_equals_one_by_one(hashing):
    batch = hashing.embed(TEXTS)
    single = np.vstack([hashing.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(batch, single, atol=1e-6)


def test_hashing_lowercase_and_accents(hashing):
    v = hashing.embed(["Café Crème", "cafe creme", "CAFE CREME"])
    np.testing.assert_allclose(v[0], v[1], atol=1e-6)
    np.testing.assert_allclose(v[1], v[2], atol=1e-6)


def test_hashing_related_texts_are_closer(hashing):
    v = hashing.embed(TEXTS[:3])
    assert v[0] @ v[1] > v[0] @ v[2]


def test_hashing_dim_and_seed(rng):
    a = HashingEmbedder(dim=64, seed=1)
    b = HashingEmbedder(dim=64, seed=2)
    assert a.embed(TEXTS).shape == (len(TEXTS), 64)
    assert a.name != b.name
    assert not np.allclose(a.embed(TEXTS[:1]), b.embed(TEXTS[:1]))
    np.testing.assert_array_equal(a.embed(TEXTS), HashingEmbedder(dim=64, seed=1).embed(TEXTS))


@pytest.mark.parametrize("text", ["?!", "...", "\u0301", "\u0301\u0300 \u0302", "a"])
def test_hashing_never_returns_zero_vectors(hashing, text):
    v = hashing.embed([text, text])
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(v[0], v[1])


def test_hashing_fallback_differs_between_texts(hashing):
    v = hashing.embed(["\u0301", "\u0300"])  # both vanish after accent stripping
    assert abs(float(v[0] @ v[1])) < 0.99


def test_hashing_same_in_another_process(hashing):
    code = (
        "import sys, numpy as np; from engramdb.embed import HashingEmbedder; "
        "np.save(sys.stdout.buffer, HashingEmbedder().embed(sys.argv[1:]))"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run(
        [sys.executable, "-c", code, *TEXTS], capture_output=True, check=True, env=env
    ).stdout
    import io

    other = np.load(io.BytesIO(out))
    np.testing.assert_array_equal(other, hashing.embed(TEXTS))


@pytest.mark.parametrize(
    "bad, err",
    [
        ("a single string", InvalidInputError),
        ([b"bytes"], InvalidInputError),
        ([None], InvalidInputError),
        (["ok", 3], InvalidInputError),
        ([""], EmptyTextError),
        (["ok", "   \n\t"], EmptyTextError),
        (42, InvalidInputError),
    ],
)
def test_hashing_bad_input(hashing, bad, err):
    with pytest.raises(err):
        hashing.embed(bad)


@pytest.mark.parametrize(
    "kwargs",
    [{"dim": 0}, {"dim": 4}, {"dim": 3.5}, {"seed": -1}, {"word_weight": 1.5},
     {"hash_bits": 30}, {"sketch_nnz": 0}],
)
def test_hashing_bad_params(kwargs):
    with pytest.raises(InvalidInputError):
        HashingEmbedder(**kwargs)


def test_get_embedder():
    e = get_embedder("hashing", None)
    assert isinstance(e, HashingEmbedder) and e.dim == 384
    assert get_embedder("hashing", 128).dim == 128
    with pytest.raises(InvalidInputError):
        get_embedder("word2vec", None)
    with pytest.raises(InvalidInputError):
        get_embedder("minilm", 768)


def test_minilm_missing_packages_say_make_minilm(monkeypatch):
    real = importlib.import_module

    def fake(name, *a, **k):
        if name.split(".")[0] in {"onnxruntime", "torch", "sentence_transformers"}:
            raise ImportError(f"No module named {name!r}")
        return real(name, *a, **k)

    monkeypatch.setattr("engramdb.embed.importlib.import_module", fake)
    monkeypatch.setattr(
        "engramdb.embed._minilm_model_dir", lambda: __import__("pathlib").Path(".")
    )
    for backend in ("onnx", "torch", "auto"):
        with pytest.raises(BackendUnavailableError, match="make minilm"):
            MiniLMEmbedder(backend=backend)


def test_minilm_bad_params():
    with pytest.raises(InvalidInputError):
        MiniLMEmbedder(backend="cuda")
    with pytest.raises(InvalidInputError):
        MiniLMEmbedder(batch_size=0)


def _minilm(backend):
    try:
        return MiniLMEmbedder(backend=backend)
    except BackendUnavailableError as exc:
        pytest.skip(f"MiniLM {backend} backend not installed: {exc}")


@pytest.fixture(scope="module", params=["onnx", "torch"])
def minilm(request):
    return _minilm(request.param)


def test_minilm_shapes_and_norms(minilm):
    v = minilm.embed(TEXTS)
    assert v.shape == (len(TEXTS), 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)
    assert v[0] @ v[1] > v[0] @ v[2]


def test_minilm_batch_equals_one_by_one(minilm):
    batch = minilm.embed(TEXTS)
    single = np.vstack([minilm.embed([t]) for t in TEXTS])
    np.testing.assert_allclose((batch * single).sum(axis=1), 1.0, atol=1e-4)


def test_minilm_backends_agree():
    a, b = _minilm("onnx"), _minilm("torch")
    cos = (a.embed(TEXTS) * b.embed(TEXTS)).sum(axis=1)
    assert cos.min() >= 0.99
