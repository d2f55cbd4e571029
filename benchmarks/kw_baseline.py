"""Baseline of benchmarks/bench_keyword.py: the keyword leg as it was before the native kernel
(engramdb up to issue 12): per-term Python posting lists scored with NumPy, and the
pseudo-relevance feedback step in Python over the hits' texts. Kept here, beside the method,
so that the benchmark measures both in the same run."""
from __future__ import annotations

import numpy as np

from engramdb.index.tokens import index_terms, tokenize

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


class PythonKeywordIndex:
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

    @classmethod
    def build(cls, docs) -> PythonKeywordIndex:
        idx = cls()
        for nid, text in docs:
            idx.add(nid, text)
        return idx


def search_prf(kw: PythonKeywordIndex, texts, query: str, k: int, prf_docs: int, prf_terms: int,
               prf_weight: float) -> tuple[np.ndarray, np.ndarray]:
    """The keyword leg of recall as it was: BM25, then the feedback round in Python over the
    first hits' texts (``texts[nid]``; recall read them from LMDB)."""
    first, score = kw.search(query, k)
    if not len(first) or prf_terms <= 0:
        return first, score
    terms = dict.fromkeys(tokenize(query), 1.0)
    held: dict[str, int] = {}   # feedback memories holding each term
    for nid in first[:prf_docs].tolist():
        for t in set(tokenize(texts[nid])):
            if t not in terms:
                held[t] = held.get(t, 0) + 1
    weighted = sorted(((c * kw.idf(t), t) for t, c in held.items()), reverse=True)[:prf_terms]
    if not weighted or weighted[0][0] <= 0:
        return first, score
    qmass = float(sum(1.0 for t in terms if (post := kw._terms.get(t)) is not None and post.n > 0))
    total = sum(w for w, _ in weighted)
    terms.update({t: prf_weight * qmass * w / total for w, t in weighted})
    return kw.search_terms(terms, k)
