"""BM25 keyword index of one namespace: the keyword leg of recall, beside hnswlib's vector leg.

Why our own and not tantivy: recall needs every add to be searchable at once. tantivy makes a
document visible only after ``commit()`` + ``reload()``, which took 66 ms per single add on disk
and 19 ms in RAM, against 12 µs for a posting append here (``python benchmarks/bench_keyword.py``,
results/keyword.json; tantivy answers a query faster, 82 µs against 123 µs, with recall@10 on
LoCoMo of 58.1 against our 59.4). The index is small and simple: postings per term as growable
NumPy arrays (node id, term frequency, document length), scored with Okapi BM25 at query time.

Durability follows the rest of the store: LMDB records are the source of truth. The engine
saves a snapshot of every namespace's postings in LMDB (sub-db ``kw``) tagged with the record
generation; on open a snapshot from another generation (a crash after writes) is ignored and
the postings are rebuilt by tokenizing the stored texts.

Tokenizing (:mod:`.tokens`): NFKC-normalised, case-folded words without accents, English stop
words dropped, Snowball stems, CJK bigrams; technical tokens (decimals, versions, addresses,
numbers with units, camelCase, codes like ``TP-218``, ``C++``, e-mail addresses, paths, URLs) are
kept whole and their parts are indexed too, so an exact code outranks a memory sharing only a
part of it ("12.5" finds "12.5", not "5.12"). A memory's length in BM25 counts its words, not
those extra terms (:func:`.tokens.index_terms`).

References
----------
Robertson & Zaragoza (2009), "The Probabilistic Relevance Framework: BM25 and Beyond",
Foundations and Trends in IR 3(4) (Okapi BM25 with k1 = 1.2, b = 0.75; idf with +1 inside the log
as in Lucene, so it is never negative).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .tokens import index_terms, tokenize

__all__ = ["KeywordIndex", "pack_indexes", "tokenize", "unpack_indexes"]


class _Postings:
    """Growable posting arrays of one term: node ids, term frequencies, document lengths."""

    __slots__ = ("nid", "tf", "dl", "n")

    def __init__(self, nid: np.ndarray, tf: np.ndarray, dl: np.ndarray) -> None:
        self.nid, self.tf, self.dl, self.n = nid, tf, dl, len(nid)

    def append(self, nid: int, tf: float, dl: float) -> None:
        if self.n == len(self.nid):
            cap = max(4, 2 * self.n)
            for name, dtype in (("nid", np.int32), ("tf", np.float32), ("dl", np.float32)):
                arr = np.empty(cap, dtype)
                arr[: self.n] = getattr(self, name)[: self.n]
                setattr(self, name, arr)
        self.nid[self.n], self.tf[self.n], self.dl[self.n] = nid, tf, dl
        self.n += 1

    def remove(self, nid: int) -> bool:
        hit = np.flatnonzero(self.nid[: self.n] == nid)
        if not len(hit):
            return False
        i, last = int(hit[0]), self.n - 1
        if i != last:   # the last posting moves into the gap (order does not matter)
            for arr in (self.nid, self.tf, self.dl):
                arr[i] = arr[last]
        self.n = last
        return True


#: Version of the tokenizer the postings were built with: a keyword snapshot saved with another
#: one is rebuilt from the records on open (2: technical tokens kept whole, parts indexed too).
TOKENIZER_VERSION = 2


class KeywordIndex:
    """Okapi BM25 over the memories of one namespace, updated in place.

    Parameters
    ----------
    k1 : float
        Term-frequency saturation (default 1.2).
    b : float
        Length normalisation in [0, 1] (default 0.75).

    Notes
    -----
    Not thread-safe by itself: the engine serialises writers and readers of an index.
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = float(k1), float(b)
        self._terms: dict[str, _Postings] = {}
        self.n_docs = 0
        self.total_len = 0.0

    def __len__(self) -> int:
        return self.n_docs

    def add(self, nid: int, text: str) -> None:
        """Index memory ``nid`` (a node id, int) with its ``text`` (str)."""
        toks, length = index_terms(text)
        dl = float(length)
        counts: dict[str, int] = {}
        for t in toks:
            counts[t] = counts.get(t, 0) + 1
        for t, c in counts.items():
            post = self._terms.get(t)
            if post is None:
                post = self._terms[t] = _Postings(np.empty(4, np.int32), np.empty(4, np.float32),
                                                  np.empty(4, np.float32))
                post.n = 0
            post.append(nid, float(c), dl)
        self.n_docs += 1
        self.total_len += dl

    def remove(self, nid: int, text: str) -> None:
        """Drop memory ``nid``, indexed earlier with exactly ``text`` (its terms locate it)."""
        toks, length = index_terms(text)
        removed = False
        for t in set(toks):
            post = self._terms.get(t)
            if post is not None and post.remove(nid):
                removed = True
                if post.n == 0:
                    del self._terms[t]
        if removed or not toks:
            self.n_docs = max(self.n_docs - 1, 0)
            self.total_len = max(self.total_len - length, 0.0)

    def search(self, text: str, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best memories for ``text`` by BM25.

        Parameters
        ----------
        text : str
            The query; tokenized as the memories are.
        k : int
            Number of results, >= 1.
        allowed : ndarray of int, optional
            Score only these memories (a selective filter's survivors).

        Returns
        -------
        nids : ndarray of int64, shape (<= k,)
            Best first; only memories sharing at least one term with the query.
        scores : ndarray of float32, same shape
            BM25 scores (> 0; unbounded above, so the engine rescales them per query).
        """
        return self.search_terms(dict.fromkeys(tokenize(text), 1.0), k, allowed)

    def idf(self, term: str) -> float:
        """BM25 inverse document frequency of an index term (0 for an unknown term)."""
        post = self._terms.get(term)
        if post is None or post.n == 0:
            return 0.0
        return float(np.log1p((self.n_docs - post.n + 0.5) / (post.n + 0.5)))

    def search_terms(self, terms: dict[str, float], k: int,
                     allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`search` for already tokenized terms, each with a query weight (float).

        The score of a memory is sum over terms of weight * BM25 term score; :meth:`search` uses
        weight 1 for every distinct term of the query. ``allowed`` (int array) restricts the
        memories scored; the statistics (idf, average length) stay those of the whole index.
        """
        if self.n_docs == 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        n, avgdl = self.n_docs, max(self.total_len / self.n_docs, 1e-9)
        k1, b = self.k1, self.b
        parts_nid, parts_score = [], []
        for t, qw in terms.items():
            post = self._terms.get(t)
            if post is None or post.n == 0 or qw <= 0:
                continue
            m = post.n
            idf = qw * np.log1p((n - m + 0.5) / (m + 0.5))
            nid, tf, dl = post.nid[:m], post.tf[:m], post.dl[:m]
            if allowed is not None:
                keep = np.isin(nid, allowed)
                nid, tf, dl = nid[keep], tf[keep], dl[keep]
                if not len(nid):
                    continue
            parts_nid.append(nid)
            parts_score.append(idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl)))
        if not parts_nid:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        if len(parts_nid) == 1:
            uniq, score = parts_nid[0], parts_score[0]
        else:
            allnid = np.concatenate(parts_nid)
            uniq, inv = np.unique(allnid, return_inverse=True)
            score = np.bincount(inv, weights=np.concatenate(parts_score), minlength=len(uniq))
        if len(uniq) > k:
            top = np.argpartition(-score, k - 1)[:k]
            top = top[np.lexsort((uniq[top], -score[top]))]
        else:
            top = np.lexsort((uniq, -score))
        return uniq[top].astype(np.int64), score[top].astype(np.float32)

    # ------------------------------------------------------------------ snapshots
    def arrays(self) -> dict[str, np.ndarray]:
        """The postings as flat arrays (for LMDB): terms NUL-joined, row pointers, postings."""
        terms = list(self._terms)
        ptr = np.zeros(len(terms) + 1, np.int64)
        ptr[1:] = np.cumsum([self._terms[t].n for t in terms])
        cat = (lambda name, dt: np.concatenate([getattr(self._terms[t], name)[: self._terms[t].n] for t in terms])
               if terms else np.empty(0, dt))
        return {"terms": np.frombuffer("\x00".join(terms).encode(), np.uint8), "ptr": ptr,
                "nid": cat("nid", np.int32), "tf": cat("tf", np.float32), "dl": cat("dl", np.float32),
                "stats": np.array([self.n_docs, self.total_len], np.float64)}

    ARRAY_DTYPES = {"terms": np.uint8, "ptr": np.int64, "nid": np.int32, "tf": np.float32,
                    "dl": np.float32, "stats": np.float64}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], k1: float = 1.2, b: float = 0.75) -> "KeywordIndex":
        """Rebuild an index from :meth:`arrays`.

        Raises
        ------
        ValueError
            The arrays do not fit together (the caller reports a corrupted store).
        """
        idx = cls(k1, b)
        raw = arrays["terms"].tobytes().decode()
        terms = raw.split("\x00") if raw else []
        ptr = arrays["ptr"]
        if len(ptr) != len(terms) + 1 or (len(ptr) and (ptr[0] != 0 or ptr[-1] != len(arrays["nid"])
                                                           or np.any(np.diff(ptr) <= 0))):
            raise ValueError("keyword snapshot: term pointers do not match the postings")
        if not (len(arrays["nid"]) == len(arrays["tf"]) == len(arrays["dl"])) or len(arrays["stats"]) != 2:
            raise ValueError("keyword snapshot: posting arrays differ in length")
        nid, tf, dl = arrays["nid"], arrays["tf"], arrays["dl"]
        for i, t in enumerate(terms):
            lo, hi = int(ptr[i]), int(ptr[i + 1])
            idx._terms[t] = _Postings(nid[lo:hi], tf[lo:hi], dl[lo:hi])
        idx.n_docs, idx.total_len = int(arrays["stats"][0]), float(arrays["stats"][1])
        return idx

    @classmethod
    def build(cls, docs: Iterable[tuple[int, str]], k1: float = 1.2, b: float = 0.75) -> "KeywordIndex":
        """An index of ``(nid, text)`` pairs (the rebuild from LMDB records)."""
        idx = cls(k1, b)
        for nid, text in docs:
            idx.add(nid, text)
        return idx


def pack_indexes(indexes: dict[str, KeywordIndex]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Every namespace's postings as one set of flat arrays (one LMDB snapshot), and the
    namespace names in the order the arrays hold them."""
    names = sorted(indexes)
    per = [indexes[ns].arrays() for ns in names]
    n_terms = np.array([len(p["ptr"]) - 1 for p in per], np.int64)
    if not per:
        return {"terms": np.empty(0, np.uint8), "ptr": np.zeros(1, np.int64), "nid": np.empty(0, np.int32),
                "tf": np.empty(0, np.float32), "dl": np.empty(0, np.float32),
                "stats": np.empty(0, np.float64), "n_terms": n_terms}, names
    ptrs, base = [np.zeros(1, np.int64)], 0
    for p in per:
        ptrs.append(p["ptr"][1:] + base)
        base += int(p["ptr"][-1])
    term_bytes = [p["terms"].tobytes() for p in per if len(p["ptr"]) > 1]
    return {"terms": np.frombuffer(b"\x00".join(term_bytes), np.uint8),
            "ptr": np.concatenate(ptrs), "nid": np.concatenate([p["nid"] for p in per]),
            "tf": np.concatenate([p["tf"] for p in per]), "dl": np.concatenate([p["dl"] for p in per]),
            "stats": np.concatenate([p["stats"] for p in per]), "n_terms": n_terms}, names


PACKED_DTYPES = {**KeywordIndex.ARRAY_DTYPES, "n_terms": np.int64}


def unpack_indexes(arrays: dict[str, np.ndarray], names: list[str], k1: float = 1.2,
                   b: float = 0.75) -> dict[str, KeywordIndex]:
    """Inverse of :func:`pack_indexes`.

    Raises
    ------
    ValueError
        The arrays do not fit together.
    """
    n_terms, ptr = arrays["n_terms"], arrays["ptr"]
    raw = arrays["terms"].tobytes().decode()
    terms = raw.split("\x00") if raw else []
    if len(n_terms) != len(names) or len(arrays["stats"]) != 2 * len(names) or int(n_terms.sum()) != len(terms) \
            or len(ptr) != len(terms) + 1:
        raise ValueError("keyword snapshot: namespace, term and pointer counts do not match")
    out, t0 = {}, 0
    for i, ns in enumerate(names):
        t1 = t0 + int(n_terms[i])
        lo, hi = int(ptr[t0]), int(ptr[t1])
        out[ns] = KeywordIndex.from_arrays(
            {"terms": np.frombuffer("\x00".join(terms[t0:t1]).encode(), np.uint8), "ptr": ptr[t0:t1 + 1] - lo,
             "nid": arrays["nid"][lo:hi], "tf": arrays["tf"][lo:hi], "dl": arrays["dl"][lo:hi],
             "stats": arrays["stats"][2 * i:2 * i + 2]}, k1, b)
        t0 = t1
    return out
