"""Embedders: shapes, unit norms, determinism, bad input, and the MiniLM backends."""
import importlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import engramdb
from engramdb.embed import (
    EMBEDDER_ENV, Embedder, EmbedderFallbackWarning, HashingEmbedder, MiniLMEmbedder,
    _minilm_tokenizer_path, default_embedder, get_embedder,
)
from engramdb.errors import BackendUnavailableError, ConfigError, EmptyTextError, InvalidInputError
from engramdb.index.keyword import tokenize

PAIRS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "paraphrase_pairs.jsonl"

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


def _without(monkeypatch, missing):
    """Make the named top-level packages fail to import inside engramdb.embed."""
    real = importlib.import_module

    def fake(name, *a, **k):
        if name.split(".")[0] in missing:
            raise ImportError(f"No module named {name!r}")
        return real(name, *a, **k)

    monkeypatch.setattr("engramdb.embed.importlib.import_module", fake)


def test_minilm_missing_packages_name_the_fix(monkeypatch):
    _without(monkeypatch, {"onnxruntime", "torch", "sentence_transformers"})
    monkeypatch.setattr("engramdb.embed._minilm_model_dir", lambda: Path("."))
    with pytest.raises(BackendUnavailableError, match="reinstall it"):
        MiniLMEmbedder(backend="onnx")
    with pytest.raises(BackendUnavailableError, match="make minilm"):
        MiniLMEmbedder(backend="torch")
    with pytest.raises(BackendUnavailableError, match="reinstall it.*make minilm"):
        MiniLMEmbedder(backend="auto")


def test_minilm_tokenizer_is_checked(monkeypatch):
    path = _minilm_tokenizer_path()
    assert path.name == "tokenizer.json"
    monkeypatch.setattr("engramdb.embed.TOKENIZER_SHA256", "0" * 64)
    with pytest.raises(BackendUnavailableError, match="sha256"):
        MiniLMEmbedder(backend="onnx")


def test_minilm_bad_params():
    with pytest.raises(InvalidInputError):
        MiniLMEmbedder(backend="cuda")
    with pytest.raises(InvalidInputError):
        MiniLMEmbedder(batch_size=0)


def _minilm(backend):
    if backend == "onnx":   # default dependencies: a missing one is a failure, not a skip
        return MiniLMEmbedder(backend="onnx")
    try:
        return MiniLMEmbedder(backend=backend)
    except BackendUnavailableError as exc:
        pytest.skip(f"MiniLM {backend} backend not installed (make minilm): {exc}")


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


# -- the default embedder ------------------------------------------------------------------
def test_default_embedder_follows_the_env_var(monkeypatch):
    monkeypatch.setenv(EMBEDDER_ENV, "hashing")
    assert isinstance(default_embedder(), HashingEmbedder)
    assert default_embedder(64).dim == 64
    monkeypatch.setenv(EMBEDDER_ENV, " MiniLM ")
    assert isinstance(default_embedder(), MiniLMEmbedder)
    with pytest.raises(InvalidInputError):
        default_embedder(64)
    monkeypatch.setenv(EMBEDDER_ENV, "word2vec")
    with pytest.raises(ConfigError, match="ENGRAMDB_EMBEDDER"):
        default_embedder()
    for unset in ("", "auto"):
        monkeypatch.setenv(EMBEDDER_ENV, unset)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            e = default_embedder()
        assert isinstance(e, MiniLMEmbedder) and e.backend == "onnx"
        assert isinstance(default_embedder(128), HashingEmbedder)   # a dim MiniLM cannot give


def test_auto_names_the_default_where_the_help_says_it_is_the_default(monkeypatch, tmp_path):
    # the CLI's help and ENGRAMDB_EMBEDDER name "auto" as the default; --embedder auto and
    # open(embedder="auto") refused it
    import engramdb
    from click.testing import CliRunner

    from engramdb.cli import main

    monkeypatch.setenv(EMBEDDER_ENV, "hashing")   # "auto" itself is the choice: not read
    with engramdb.open(tmp_path / "a", embedder=" Auto ") as eng:
        assert eng.stats()["embedder"] == MiniLMEmbedder().name
    out = CliRunner().invoke(main, ["add", "--store", str(tmp_path / "b"), "--embedder", "auto", "tea at dawn"])
    assert out.exit_code == 0, out.output
    with engramdb.open(tmp_path / "b") as eng:
        assert eng.stats()["embedder"] == MiniLMEmbedder().name
    with engramdb.open(tmp_path / "c", embedder="hashing"):
        pass
    with engramdb.open(tmp_path / "c", embedder="auto") as eng:   # an existing store keeps its own
        assert eng.stats()["embedder"].startswith("hashing")


def test_another_embedder_on_a_store_made_with_a_custom_one_says_what_to_pass(tmp_path):
    import engramdb

    class Custom:
        name, dim = "my-model-v3", 8

        def embed(self, texts):
            return np.ones((len(texts), 8), np.float32)

    with engramdb.open(tmp_path / "c", embedder=Custom()) as eng:
        eng.add("tea at dawn")
    # "open it without embedder=" cannot work for an embedder engramdb cannot rebuild
    with pytest.raises(ConfigError, match="with the embedder object it was made with .*'my-model-v3'"):
        engramdb.open(tmp_path / "c", embedder="hashing")
    with engramdb.open(tmp_path / "h", embedder="hashing"):
        pass
    with pytest.raises(ConfigError, match="Open it without naming an embedder .no embedder= in Python, no --embedder"):
        engramdb.open(tmp_path / "h", embedder=Custom())


def test_default_embedder_falls_back_to_hashing_out_loud(monkeypatch):
    monkeypatch.delenv(EMBEDDER_ENV)
    _without(monkeypatch, {"onnxruntime", "torch"})
    with pytest.warns(EmbedderFallbackWarning, match="cannot load.*hashing"):
        e = default_embedder()
    assert isinstance(e, HashingEmbedder)
    monkeypatch.setenv(EMBEDDER_ENV, "minilm")   # asked for by name: an error, no fallback
    with pytest.raises(BackendUnavailableError):
        default_embedder()


def test_open_without_dim_creates_a_minilm_store(tmp_store, monkeypatch):
    monkeypatch.delenv(EMBEDDER_ENV)
    with engramdb.open(tmp_store) as mem:
        assert mem.dim == 384 and mem.stats()["embedder"] == "all-MiniLM-L6-v2"
        mem.add("I moved to Porto in March.", id="porto")
        mem.add("My sister Ana just had twins.", id="twins")
        mem.add("I drive a red Toyota Corolla.", id="car")
        mem.add("We adopted a beagle puppy called Biscuit.", id="dog")
        assert mem.recall("where do I live?", k=3).hits[0].id == "porto"
    monkeypatch.setenv(EMBEDDER_ENV, "hashing")   # the store's own embedder wins on reopen
    with engramdb.open(tmp_store) as mem:
        assert mem.stats()["embedder"] == "all-MiniLM-L6-v2"
        assert mem.recall("what is my home town?", k=3).hits[0].id == "porto"


def test_an_existing_hashing_store_keeps_hashing(tmp_store, monkeypatch):
    with engramdb.open(tmp_store) as mem:   # tests default to hashing (conftest)
        mem.add("I moved to Porto in March.", id="porto")
        name = mem.stats()["embedder"]
    assert name.startswith("hashing")
    monkeypatch.delenv(EMBEDDER_ENV)
    with engramdb.open(tmp_store) as mem:
        assert mem.stats()["embedder"] == name
        assert mem.recall("Porto", k=1).hits[0].id == "porto"
        v = mem.get("porto", with_embedding=True).embedding
        np.testing.assert_allclose(v, HashingEmbedder().embed(["I moved to Porto in March."])[0],
                                   atol=1e-6)


def test_cli_creates_a_minilm_store(tmp_store, monkeypatch):
    from click.testing import CliRunner

    from engramdb.cli import main

    monkeypatch.delenv(EMBEDDER_ENV)
    res = CliRunner().invoke(main, ["add", "--store", str(tmp_store), "--id", "porto",
                                    "I moved to Porto in March."])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["recall", "--store", str(tmp_store), "--json", "where do I live?"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["hits"][0]["id"] == "porto"
    with engramdb.open(tmp_store) as mem:
        assert mem.stats()["embedder"] == "all-MiniLM-L6-v2"


# -- the paraphrase set of benchmarks/bench_embedders.py --------------------------------------
def _pairs():
    return [json.loads(line) for line in PAIRS.read_text().splitlines() if line.strip()]


def test_paraphrase_pairs_share_no_content_word():
    pairs = _pairs()
    assert len(pairs) >= 50 and len({p["id"] for p in pairs}) == len(pairs)
    for p in pairs:
        fact, question = set(tokenize(p["fact"])), set(tokenize(p["question"]))
        assert fact and question, p["id"]
        assert not fact & question, (p["id"], fact & question)


def test_minilm_finds_paraphrases():
    pairs = _pairs()
    e = MiniLMEmbedder(backend="onnx")
    sims = e.embed([p["question"] for p in pairs]) @ e.embed([p["fact"] for p in pairs]).T
    rank = (sims > np.diag(sims)[:, None]).sum(axis=1)   # facts scoring above the right one
    assert (rank < 5).mean() >= 0.85   # 0.97 when written


def test_a_store_of_a_custom_embedder_reopened_without_it_names_it(tmp_path):
    class Toy:
        name, dim = "toy-8", 8

        def embed(self, texts):
            out = np.zeros((len(texts), 8), np.float32)
            out[:, 0] = 1.0
            return out

    with engramdb.open(tmp_path / "s", embedder=Toy()) as eng:
        eng.add("hello there", id="a")
    with engramdb.open(tmp_path / "s") as eng:
        for call in (lambda: eng.recall("hello"), lambda: eng.add("another text")):
            with pytest.raises(engramdb.InvalidInputError, match="made with the embedder 'toy-8'"):
                call()
        before = eng.stats()["memories"]
        v = np.zeros(8, np.float32)
        v[0] = 1.0
        assert eng.add("with its vector", embedding=v) and eng.stats()["memories"] == before + 1
        assert len(eng.recall(vector=v, k=2).hits) == 2   # a recall by vector needs no embedder


@pytest.mark.parametrize("answer, message", [
    (lambda texts: np.ones((max(len(texts) - 1, 0), 8)), r"shape \(1, 8\) for 2 texts"),   # one short
    (lambda texts: np.ones(8), r"shape \(8,\) for 2 texts"),
    (lambda texts: [["x"] * 8 for _ in texts], "no numeric matrix"),
    (lambda texts: np.ones((len(texts), 8), np.complex64), "dtype complex64"),
])
def test_an_embedder_answer_without_a_row_per_text_is_named(tmp_path, answer, message):
    """The error says what is wrong with the embedder's answer (it said "expected dimension 384,
    got 384" for one vector too few, and raised NumPy's ValueError for strings); nothing is stored."""
    import engramdb

    class Odd:
        name, dim = "odd-8", 8

        def embed(self, texts):
            return answer(texts)

    with engramdb.open(tmp_path / "s", embedder=Odd()) as eng:
        with pytest.raises(engramdb.InvalidInputError, match=message):
            eng.add_batch([{"text": "one thing"}, {"text": "two things"}])
        with pytest.raises(engramdb.InvalidInputError, match="embedder output"):
            eng.recall_batch(["one", "two"])
        assert eng.stats()["memories"] == 0
