"""BM25 keyword index of one namespace: the keyword leg of recall, beside hnswlib's vector leg.

Why our own and not tantivy: recall needs every add to be searchable at once. tantivy makes a
document visible only after ``commit()`` + ``reload()``, which took 66 ms per single add on disk
and 19 ms in RAM, against microseconds for an add here (``python benchmarks/bench_keyword.py``,
results/keyword.json, which also times queries at 100k memories against tantivy and the Python
postings this replaced).

Layout (:class:`KeywordIndex`): an immutable CSR segment of postings (term id -> node ids, term
frequencies, memory lengths), a small delta of newer postings chained per term, tombstones
(tf = 0) for removals, merged into a new segment when the delta outgrows
:data:`MERGE_MIN_POSTINGS` or half the segment and on every snapshot; and a forward index (node
id -> its terms) so that pseudo-relevance feedback runs inside the kernel. Scoring is the native
kernel ``bm25_search`` (csrc/bm25.c, GIL released; NumPy reference in
:mod:`engramdb.kernels.reference`): term at a time into a float64 accumulator, top k by a heap,
then the feedback round, which adds only the feedback terms' parts to the first pass's sums and
skips, exactly (MaxScore-style, Turtle & Flood 1995), the memories that cannot reach the first
pass's k-th score. Results equal the Python postings it replaced: same ids, same order, same
scores (float arithmetic reproduced), and a tie across rank k cut the same way.

Durability follows the rest of the store: LMDB records are the source of truth. The engine
saves a snapshot of every namespace's postings and forward index in LMDB (sub-db ``kw``) tagged
with the record generation; on open a snapshot from another generation (a crash after writes) is
ignored and the postings are rebuilt by tokenizing the stored texts. A current snapshot is
installed as it was read, without a sort or a copy (:meth:`KeywordIndex.from_arrays`); one
without the forward index (an earlier engramdb's) rebuilds it by a sort of the postings.

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

import re
from typing import Iterable, Mapping, Sequence

import numpy as np

from ..chatter import without_greetings
from ..kernels import registry
from ..kernels.reference import BM25Postings
from .tokens import index_terms, tokenize

__all__ = ["KeywordIndex", "pack_indexes", "tokenize", "unpack_indexes", "term_counts"]


class _Column:
    """A growable 1-d NumPy array: ``a[:n]`` is in use, capacity doubles when full."""

    __slots__ = ("a", "n", "fill")

    def __init__(self, dtype, fill=0) -> None:
        self.a, self.n, self.fill = np.full(16, fill, dtype), 0, fill

    def reserve(self, size: int) -> None:
        """Room for ``size`` entries in an array this column owns (an adopted read-only array is
        copied here, before the first write)."""
        if size > len(self.a) or not self.a.flags.writeable:
            grown = np.full(max(size, 2 * len(self.a)) if size > len(self.a) else len(self.a), self.fill,
                            self.a.dtype)
            grown[: self.n] = self.a[: self.n]
            self.a = grown

    def extend(self, values) -> int:
        """Append ``values`` (array-like); returns the position of the first."""
        values = np.asarray(values, self.a.dtype)
        at = self.n
        self.reserve(at + len(values))
        self.a[at: at + len(values)] = values
        self.n = at + len(values)
        return at

    def resize(self, size: int) -> None:
        """Use the first ``size`` entries; new ones hold ``fill``."""
        self.reserve(size)
        if size > self.n:
            self.a[self.n: size] = self.fill
        self.n = size

    def set(self, values: np.ndarray) -> None:
        self.a, self.n = np.array(values, self.a.dtype), len(values)

    def adopt(self, values: np.ndarray) -> None:
        """Use ``values`` (1-d, of this column's dtype) as the column without copying it. It may
        be read-only (a view of a loaded snapshot): :meth:`extend` and :meth:`resize` copy it
        first; write into ``a`` directly only after :meth:`reserve`."""
        self.a, self.n = np.asarray(values, self.a.dtype), len(values)

    def view(self) -> np.ndarray:
        return self.a[: self.n]


#: Version of the tokenizer the postings were built with: a keyword snapshot saved with another
#: one is rebuilt from the records on open (2: technical tokens kept whole, parts indexed too;
#: 3: auxiliary verb forms are stop words; 4: so are the clitics an apostrophe leaves, "s", "t";
#: 5: the content words of scikit-learn's list, "name", "move", "call", ..., are terms; 6: a
#: leading role label, "user: ", is no term; 7: nor a greeting such as "Long time no talk"; 8:
#: the past forms of irregular verbs are the verb, "ran" is "run"; 9: nor praise, "Great job!"; 10:
#: a few nouns of an act are the verb, "decision" is "decide"; 11: nor a farewell, "Talk next
#: week!"; 12: a block of a split conversation message has its message's length,
#: :func:`engramdb.batch_plan.is_block`).
TOKENIZER_VERSION = 12

#: A chat role before a message's text ("user: ", "assistant: ", as ``add_conversation`` writes
#: it): no term. Every message of the role holds it, so a question that says "the user's dose"
#: matched each of the user's messages on it, the shortest first ("user: Thanks, bye!"). A
#: speaker's name is indexed: questions name people ("What did Caroline paint?"), and on
#: LoCoMo leaving names out cost R@10 (75.0 -> 74.3, hashed n-grams).
ROLE_LABEL = re.compile(r"(?:user|assistant|system|developer|tool|function)\s*:\s", re.IGNORECASE)

#: The delta is merged into the segment when it holds more postings than this or than half
#: the segment (geometric growth keeps the merge cost amortised O(log n) per posting).
MERGE_MIN_POSTINGS = 1 << 15


class KeywordIndex:
    """Okapi BM25 over the memories of one namespace, updated in place.

    Layout (scored by the native kernel ``bm25_search``, :mod:`engramdb.kernels`):

    - an immutable CSR segment: term id -> postings (node id int32, term frequency and
      memory length float32), in insertion order within a term;
    - a delta of postings added since, chained per term (``head[t]`` -> ``next``), appended
      with a few vectorised writes per memory, so an add is cheap and searchable at once;
      merged into a new segment when it outgrows :data:`MERGE_MIN_POSTINGS` or half the
      segment, and on every snapshot (:meth:`arrays`);
    - removals are tombstones (the posting's tf set to 0), dropped at the next merge;
    - a forward index node id -> (term id, posting) serves removals and pseudo-relevance
      feedback inside the kernel (no LMDB read, no Python per posting).

    Parameters
    ----------
    k1 : float
        Term-frequency saturation (default 1.2).
    b : float
        Length normalisation in [0, 1] (default 0.75).

    Notes
    -----
    Not thread-safe for writers: the engine serialises writes. A search reads an immutable
    set of array views taken after the last write, so readers may run concurrently (the
    kernel releases the GIL and keeps a per-thread accumulator).
    """

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = float(k1), float(b)
        self._vocab: dict[str, int] = {}
        self._term_list: list[str] = []
        self._term_bytes = _Column(np.uint8)
        self._term_off = _Column(np.int64)
        self._term_off.extend([0])
        self._df = _Column(np.int64)
        self._head = _Column(np.int32, -1)
        self._seg_ptr = np.zeros(1, np.int64)
        self._seg_nid = np.empty(0, np.int32)
        self._seg_tf = np.empty(0, np.float32)
        self._seg_dl = np.empty(0, np.float32)
        self._d_nid, self._d_tf, self._d_dl = _Column(np.int32), _Column(np.float32), _Column(np.float32)
        self._d_next, self._d_term = _Column(np.int32, -1), _Column(np.int32)
        self._fwd_off, self._fwd_len = _Column(np.int64), _Column(np.int32)
        self._fwd_tid, self._fwd_pos = _Column(np.int32), _Column(np.int64)
        self._view: BM25Postings | None = None
        self.n_docs = 0
        self.total_len = 0.0

    def __len__(self) -> int:
        return self.n_docs

    # ------------------------------------------------------------------ writes
    def _term_ids(self, terms) -> np.ndarray:
        """Term ids of ``terms`` (str), adding the new ones to the vocabulary."""
        out = []
        for t in terms:
            tid = self._vocab.get(t)
            if tid is None:
                tid = self._vocab[t] = len(self._term_list)
                self._term_list.append(t)
                raw = t.encode() + b"\x00"   # NUL-terminated: byte order of the texts is kept
                self._term_off.extend([self._term_bytes.extend(np.frombuffer(raw, np.uint8)) + len(raw)])
                self._df.extend([0])
                self._head.extend([-1])
            out.append(tid)
        return np.array(out, np.int32)

    def _set_vocabulary(self, terms: list[str]) -> None:
        """Install distinct ``terms`` as the whole vocabulary of an empty index (ids 0..m-1), one
        array operation per column: what :meth:`_term_ids` would build term by term."""
        encoded = [t.encode() + b"\x00" for t in terms]   # NUL-terminated, as in _term_ids
        self._term_bytes.set(np.frombuffer(b"".join(encoded), np.uint8))
        ends = np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)))
        self._term_off.set(np.concatenate([np.zeros(1, np.int64), ends]))   # starts at 0, as __init__
        self._df.set(np.zeros(len(terms), self._df.a.dtype))
        self._head.set(np.full(len(terms), -1, self._head.a.dtype))
        self._term_list = list(terms)
        self._vocab = {t: i for i, t in enumerate(self._term_list)}

    def add(self, nid: int, text: str, length: int | None = None) -> None:
        """Index memory ``nid`` (a node id, int >= 0) with its ``text`` (str); ``length``, when
        given, is its length for BM25 (terms) instead of the text's (a block's: its message's,
        :func:`engramdb.batch_plan.is_block`)."""
        counts, own = term_counts(text)
        dl = float(_bm25_length(counts, own, length))
        tids = self._term_ids(counts)
        n = len(tids)
        if nid >= self._fwd_off.n:
            self._fwd_off.resize(nid + 1)
            self._fwd_len.resize(nid + 1)
        if n:
            at = self._d_nid.extend(np.full(n, nid, np.int32))
            self._d_tf.extend(np.fromiter(counts.values(), np.float32, n))
            self._d_dl.extend(np.full(n, dl, np.float32))
            self._d_term.extend(tids)
            head = self._head.a
            self._d_next.extend(head[tids])
            head[tids] = np.arange(at, at + n, dtype=np.int32)
            self._df.a[tids] += 1
            self._fwd_off.a[nid] = self._fwd_tid.extend(tids)
            self._fwd_pos.extend(np.arange(at, at + n, dtype=np.int64) + len(self._seg_nid))
        self._fwd_len.a[nid] = n
        self.n_docs += 1
        self.total_len += dl
        self._view = None
        if self._d_nid.n > max(MERGE_MIN_POSTINGS, len(self._seg_nid) // 2):
            self.compact()

    def add_many(self, docs: Iterable[tuple[int, str]],
                 counts: Sequence[tuple[dict[str, int], int] | None] | None = None,
                 lengths: Mapping[int, int] | None = None) -> None:
        """Index many new memories at once: ``(nid, text)`` pairs, nid an int >= 0 not indexed yet.

        Equals :meth:`add` of each pair in order (same vocabulary ids, postings, per-term delta
        chains, forward index, document count and float total length), with one vectorised
        append per array instead of a few per memory; the only difference is that the delta is
        merged into the segment (when over the threshold) once at the end, not in the middle,
        which changes neither a score nor the snapshot (:meth:`arrays` compacts first).

        ``counts``, when given, holds for each doc its :func:`term_counts` computed beforehand
        (the write path tokenizes while hnswlib inserts), or None to tokenize it here; each must
        be ``term_counts`` of that doc's text. ``lengths``: nid -> its length for BM25 where not
        its text's (as :meth:`add` takes it).
        """
        term_list = self._term_list
        first_new = len(term_list)
        tids, tfs, nids, lens, dls = _tokenized(docs, self._vocab, term_list, counts, lengths)
        if not nids:
            return
        if len(term_list) > first_new:   # the new terms, NUL-terminated as in _term_ids
            raw = [t.encode() + b"\x00" for t in term_list[first_new:]]
            start = self._term_bytes.extend(np.frombuffer(b"".join(raw), np.uint8))
            self._term_off.extend(start + np.cumsum(np.fromiter(map(len, raw), np.int64, len(raw))))
            self._df.extend(np.zeros(len(raw), np.int64))
            self._head.extend(np.full(len(raw), -1, np.int32))
        nid_a = np.asarray(nids, np.int64)
        len_a = np.asarray(lens, np.int64)
        top = int(nid_a.max())
        if top >= self._fwd_off.n:
            self._fwd_off.resize(top + 1)
            self._fwd_len.resize(top + 1)
        p = len(tids)
        if p:
            t = np.asarray(tids, np.int32)
            at = self._d_nid.n
            pos = np.arange(at, at + p, dtype=np.int32)
            self._d_nid.extend(np.repeat(nid_a, len_a))
            self._d_tf.extend(np.asarray(tfs, np.float32))
            self._d_dl.extend(np.repeat(np.asarray(dls, np.float32), len_a))
            self._d_term.extend(t)
            # per-term chains, newest first: each posting points at the term's previous posting
            # (earlier in this batch, else the term's head before it), as add() links them one by one
            order = np.argsort(t, kind="stable")
            ts, ps = t[order], pos[order]
            first = np.ones(p, bool)
            first[1:] = ts[1:] != ts[:-1]
            last = np.ones(p, bool)
            last[:-1] = first[1:]
            head = self._head.a
            nxt = np.empty(p, np.int32)
            nxt[first] = head[ts[first]]
            nxt[1:][~first[1:]] = ps[:-1][~first[1:]]
            chained = np.empty(p, np.int32)
            chained[order] = nxt
            self._d_next.extend(chained)
            head[ts[last]] = ps[last]
            self._df.a[: len(term_list)] += np.bincount(t, minlength=len(term_list)).astype(self._df.a.dtype)
            has = len_a > 0
            fwd_at = self._fwd_tid.extend(t)
            self._fwd_off.a[nid_a[has]] = fwd_at + (np.cumsum(len_a) - len_a)[has]
            self._fwd_pos.extend(pos.astype(np.int64) + len(self._seg_nid))
        self._fwd_len.a[nid_a] = len_a
        self.n_docs += len(nids)
        total = self.total_len
        for dl in dls:   # summed in order, as add() does: the same float
            total += dl
        self.total_len = total
        self._view = None
        if self._d_nid.n > max(MERGE_MIN_POSTINGS, len(self._seg_nid) // 2):
            self.compact()

    def remove(self, nid: int, text: str) -> None:
        """Drop memory ``nid``, indexed earlier with ``text`` (its length as indexed is
        subtracted: the one its postings hold, else the text's); its postings become tombstones."""
        _toks, length = index_terms(text)
        removed = False
        if 0 <= nid < self._fwd_len.n and self._fwd_len.a[nid] > 0:
            lo = int(self._fwd_off.a[nid])
            hi = lo + int(self._fwd_len.a[nid])
            pos, tids = self._fwd_pos.a[lo:hi], self._fwd_tid.a[lo:hi]
            in_seg = pos < len(self._seg_nid)
            first = int(pos[0])   # (every posting of a memory holds its length)
            length = float(self._seg_dl[first] if first < len(self._seg_nid) else self._d_dl.a[first - len(self._seg_nid)])
            if not self._seg_tf.flags.writeable:   # a view of the loaded snapshot: copy on first write
                self._seg_tf = self._seg_tf.copy()
            self._seg_tf[pos[in_seg]] = 0.0
            self._d_tf.a[pos[~in_seg] - len(self._seg_nid)] = 0.0
            self._df.a[tids] -= 1
            self._fwd_len.a[nid] = 0
            removed = True
        if removed or not _toks:
            self.n_docs = max(self.n_docs - 1, 0)
            self.total_len = max(self.total_len - length, 0.0)
        self._view = None

    def compact(self) -> None:
        """Merge the delta into a new segment and drop tombstones (a stable sort by term: the
        segment's postings are one sorted run, the delta's are sorted, then merged)."""
        n_terms = len(self._term_list)
        seg_term = np.repeat(np.arange(len(self._seg_ptr) - 1, dtype=np.int32), np.diff(self._seg_ptr))
        dn = self._d_nid.n
        term = np.concatenate([seg_term, self._d_term.a[:dn]])
        nid = np.concatenate([self._seg_nid, self._d_nid.a[:dn]])
        tf = np.concatenate([self._seg_tf, self._d_tf.a[:dn]])
        dl = np.concatenate([self._seg_dl, self._d_dl.a[:dn]])
        live = tf > 0
        term, nid, tf, dl = term[live], nid[live], tf[live], dl[live]
        # stable by term: the segment part is one sorted run, so this is O(n + d log d)
        order = np.argsort(term, kind="stable")
        self._set_segment(term[order], nid[order], tf[order], dl[order], n_terms)
        self._d_nid.n = self._d_tf.n = self._d_dl.n = self._d_next.n = self._d_term.n = 0
        self._head.a[:] = -1

    def _set_segment(self, term: np.ndarray, nid: np.ndarray, tf: np.ndarray, dl: np.ndarray,
                     n_terms: int) -> None:
        """Install postings sorted by term (in insertion order within a term) as the segment;
        rebuild the forward index (a transpose by a stable counting sort on the memory, O(postings):
        each memory's postings in term order)."""
        ptr = np.zeros(n_terms + 1, np.int64)
        np.cumsum(np.bincount(term, minlength=n_terms), out=ptr[1:])
        self._seg_ptr, self._seg_nid = ptr, np.ascontiguousarray(nid, np.int32)
        self._seg_tf, self._seg_dl = np.array(tf, np.float32), np.array(dl, np.float32)
        n_nodes = max(self._fwd_off.n, int(nid.max()) + 1 if len(nid) else 0)
        counts = np.bincount(self._seg_nid, minlength=n_nodes) if len(nid) else np.zeros(n_nodes, np.int64)
        off = np.zeros(n_nodes + 1, np.int64)
        np.cumsum(counts, out=off[1:])
        order = np.argsort(self._seg_nid, kind="stable")   # within a memory: term order
        self._fwd_off.set(off[:-1])
        self._fwd_len.set(counts)
        self._fwd_tid.set(np.asarray(term, np.int32)[order])
        self._fwd_pos.set(order.astype(np.int64))
        self._df.a[:n_terms] = ptr[1:] - ptr[:-1]
        self._view = None

    def _install_segment(self, ptr: np.ndarray, nid: np.ndarray, tf: np.ndarray, dl: np.ndarray,
                         fwd: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]) -> None:
        """Install a saved segment (``ptr`` int64 row pointers, postings ``nid`` int32, ``tf`` and
        ``dl`` float32) with its saved forward index ``fwd`` = (term ids int32 and segment
        positions int64 of each memory's postings, in memory order; the memories with postings,
        int32, ascending; their posting counts, int32; the forward index's length): what
        :meth:`_set_segment` builds, without its sort. The arrays may be read-only views of the
        snapshot; none is copied (``remove`` copies ``tf`` before its first tombstone)."""
        fwd_tid, fwd_pos, docs, lens, n_fwd = fwd
        self._seg_ptr, self._seg_nid, self._seg_tf, self._seg_dl = ptr, nid, tf, dl
        counts = np.zeros(n_fwd, np.int32)
        counts[docs] = lens
        off = np.zeros(n_fwd + 1, np.int64)
        np.cumsum(counts, out=off[1:])
        self._fwd_off.set(off[:-1])
        self._fwd_len.adopt(counts)
        self._fwd_tid.adopt(fwd_tid)
        self._fwd_pos.adopt(fwd_pos)
        self._df.a[: len(ptr) - 1] = ptr[1:] - ptr[:-1]
        self._view = None

    # ------------------------------------------------------------------ reads
    def postings(self) -> BM25Postings:
        """The arrays the BM25 kernel reads (views, valid until the next write)."""
        view = self._view
        if view is None:
            dn = self._d_nid.n
            view = self._view = BM25Postings(
                self._seg_ptr, self._seg_nid, self._seg_tf, self._seg_dl,
                self._head.view(), self._d_next.a[:dn], self._d_nid.a[:dn], self._d_tf.a[:dn],
                self._d_dl.a[:dn], self._df.view(), self._term_off.view(), self._term_bytes.view(),
                self._fwd_off.view(), self._fwd_len.view(), self._fwd_tid.view(), self._fwd_pos.view(),
                self.n_docs, self.total_len, self.k1, self.b)
        return view

    def query_terms(self, terms: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's query: term ids (int32) and weights (float64) of the terms of
        ``terms`` (index term -> weight) that the vocabulary knows, in its order."""
        vocab = self._vocab
        known = [(vocab[t], w) for t, w in terms.items() if t in vocab]
        return (np.fromiter((t for t, _ in known), np.int32, len(known)),
                np.fromiter((w for _, w in known), np.float64, len(known)))

    def _mask(self, allowed: np.ndarray | None) -> np.ndarray | None:
        if allowed is None:
            return None
        mask = np.zeros(self._fwd_off.n, np.uint8)
        a = np.asarray(allowed, np.int64)
        mask[a[(a >= 0) & (a < len(mask))]] = 1
        return mask

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
            Best first (ties: smaller node id first); only memories sharing at least one term
            with the query.
        scores : ndarray of float32, same shape
            BM25 scores (> 0; unbounded above, so the engine rescales them per query).
        """
        return self.search_terms(dict.fromkeys(tokenize(text), 1.0), k, allowed)

    def search_prf(self, text: str, k: int, allowed: np.ndarray | None = None, *, prf_docs: int,
                   prf_terms: int, prf_weight: float) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`search`, then once more with pseudo-relevance feedback, in one kernel call.

        The query gains the ``prf_terms`` most telling terms (r x idf, r the number of the
        first ``prf_docs`` hits holding the term; ties: the later term text first), which
        together weigh ``prf_weight`` x the query's weight, shared by r x idf (RM3); when none
        has a positive weight, or there is no hit, the first search is the answer.
        ``prf_terms = 0`` is :meth:`search` (:func:`engramdb.kernels.reference.bm25_search`).

        Parameters
        ----------
        text, k, allowed
            As for :meth:`search`.
        prf_docs : int
            Feedback memories, >= 1.
        prf_terms : int
            Feedback terms, >= 0.
        prf_weight : float
            Total weight of the feedback terms as a share of the query's, in [0, 1].

        Returns
        -------
        nids : ndarray of int64, shape (<= k,)
        scores : ndarray of float32, same shape

        References
        ----------
        Rocchio (1971), "Relevance feedback in information retrieval"; Lavrenko & Croft (2001),
        "Relevance-based language models", SIGIR (RM3).
        """
        vocab = self._vocab   # the query terms of dict.fromkeys(tokenize(text), 1.0), as query_terms gives them
        ids = [vocab[t] for t in dict.fromkeys(tokenize(text)) if t in vocab]
        q_terms, q_weight = np.array(ids, np.int32), np.ones(len(ids), np.float64)
        return self._run(q_terms, q_weight, allowed, int(k), min(int(prf_docs), int(k)), int(prf_terms),
                         float(prf_weight))

    def _run(self, q_terms, q_weight, allowed, k, prf_docs, prf_terms, prf_weight):
        """One kernel call; memories tied at rank k are kept smaller node id first (the kernel's
        top-k rule), so no second pass over every scored memory is needed."""
        kernel, post, mask = _kernel(), self.postings(), self._mask(allowed)
        return kernel(post, q_terms, q_weight, mask, k, prf_docs, prf_terms, prf_weight)

    def term_stats(self, nids, terms: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """How often each of ``terms`` occurs in each memory, read off the forward index (no
        tokenizing): what BM25 would count for them.

        Parameters
        ----------
        nids : sequence of int, length n
        terms : list of str, length m
            Index terms (as :func:`tokenize` gives them).

        Returns
        -------
        tf : ndarray of float64, shape (n, m)
        dl : ndarray of float64, shape (n,)
            The memory's length in index terms.
        known : ndarray of bool, shape (n,)
            False for a memory the index holds no term of (never added, removed, or empty):
            its row says nothing and the caller tokenizes its text instead.
        """
        n, m = len(nids), len(terms)
        tf, dl, known = np.zeros((n, m)), np.zeros(n), np.zeros(n, bool)
        col = {}
        for j, t in enumerate(terms):
            tid = self._vocab.get(t)
            if tid is not None:
                col[tid] = j
        seg_n = len(self._seg_nid)
        off, length = self._fwd_off.a, self._fwd_len.a
        for i, nid in enumerate(nids):
            nid = int(nid)
            if nid >= self._fwd_len.n or length[nid] <= 0:
                continue
            lo = int(off[nid])
            hi = lo + int(length[nid])
            pos = self._fwd_pos.a[lo:hi]
            first = int(pos[0])
            dl[i] = float(self._seg_dl[first] if first < seg_n else self._d_dl.a[first - seg_n])
            known[i] = True
            for tid, p in zip(self._fwd_tid.a[lo:hi].tolist(), pos.tolist()):
                j = col.get(tid)
                if j is not None:
                    tf[i, j] = float(self._seg_tf[p] if p < seg_n else self._d_tf.a[p - seg_n])
        return tf, dl, known

    def term_ids(self, nid: int) -> np.ndarray:
        """The ids of the terms memory ``nid`` holds (int32, its row of the forward index; empty
        for a memory the index holds no term of)."""
        nid = int(nid)
        if nid < 0 or nid >= self._fwd_len.n or self._fwd_len.a[nid] <= 0:
            return np.zeros(0, np.int32)
        lo = int(self._fwd_off.a[nid])
        return self._fwd_tid.a[lo: lo + int(self._fwd_len.a[nid])]

    def idf(self, term: str) -> float:
        """BM25 inverse document frequency of an index term (0 for an unknown term)."""
        tid = self._vocab.get(term)
        m = 0 if tid is None else int(self._df.a[tid])
        if m == 0:
            return 0.0
        return float(np.log1p((self.n_docs - m + 0.5) / (m + 0.5)))

    def search_terms(self, terms: dict[str, float], k: int,
                     allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`search` for already tokenized terms, each with a query weight (float).

        The score of a memory is sum over terms of weight * BM25 term score; :meth:`search` uses
        weight 1 for every distinct term of the query. ``allowed`` (int array) restricts the
        memories scored; the statistics (idf, average length) stay those of the whole index.
        """
        q_terms, q_weight = self.query_terms(terms)
        return self._run(q_terms, q_weight, allowed, int(k), 1, 0, 0.0)

    # ------------------------------------------------------------------ snapshots
    def arrays(self) -> dict[str, np.ndarray]:
        """The postings as flat arrays (for LMDB): terms NUL-joined, row pointers, postings, and
        the forward index (``fwd_*``, :data:`FORWARD_DTYPES`), so that loading needs no sort.

        Compacts first; terms without postings are left out (the format of snapshots before the
        native kernel, so that both load each other's) and the forward index's term ids follow
        that numbering. ``fwd_tid`` / ``fwd_pos``: term id and segment position of each posting,
        memory by memory (ascending node id), in term order within a memory; ``fwd_docs``: the
        node ids holding postings, ascending; ``fwd_lens``: their posting counts; ``fwd_n``: the
        forward index's length (one past the largest node id it covers).
        """
        if self._d_nid.n or np.any(self._seg_tf == 0):
            self.compact()
        counts = np.diff(self._seg_ptr)
        keep = np.flatnonzero(counts > 0)
        ptr = np.zeros(len(keep) + 1, np.int64)
        np.cumsum(counts[keep], out=ptr[1:])
        terms = [self._term_list[i] for i in keep.tolist()]
        fwd_tid = self._fwd_tid.view()
        if len(keep) < len(counts):   # renumber the term ids as the terms left out shift them
            renumber = np.full(len(counts), -1, np.int32)
            renumber[keep] = np.arange(len(keep), dtype=np.int32)
            fwd_tid = renumber[fwd_tid]
        fwd_len = self._fwd_len.view()
        docs = np.flatnonzero(fwd_len > 0)
        return {"terms": np.frombuffer("\x00".join(terms).encode(), np.uint8), "ptr": ptr,
                "nid": self._seg_nid.copy(), "tf": self._seg_tf.copy(), "dl": self._seg_dl.copy(),
                "stats": np.array([self.n_docs, self.total_len], np.float64),
                "fwd_tid": np.array(fwd_tid, np.int32), "fwd_pos": np.array(self._fwd_pos.view(), np.int64),
                "fwd_docs": docs.astype(np.int32), "fwd_lens": fwd_len[docs].astype(np.int32),
                "fwd_n": np.array([len(fwd_len)], np.int64)}

    ARRAY_DTYPES = {"terms": np.uint8, "ptr": np.int64, "nid": np.int32, "tf": np.float32,
                    "dl": np.float32, "stats": np.float64}
    #: The forward index in :meth:`arrays` (absent from snapshots written before it was saved).
    FORWARD_DTYPES = {"fwd_tid": np.int32, "fwd_pos": np.int64, "fwd_docs": np.int32, "fwd_lens": np.int32,
                      "fwd_n": np.int64}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], k1: float = 1.2, b: float = 0.75) -> "KeywordIndex":
        """Rebuild an index from :meth:`arrays` (also those saved before the native kernel, and
        those without the forward index, which is then rebuilt by a sort of the postings).

        The arrays are used as they are, without a copy, when their dtypes match (they may be
        read-only views of a snapshot): the index copies one before its first write into it.

        Raises
        ------
        ValueError
            The arrays do not fit together (the caller reports a corrupted store).
        """
        idx = cls(k1, b)
        raw = arrays["terms"].tobytes().decode()
        terms = raw.split("\x00") if raw else []
        ptr = np.asarray(arrays["ptr"], np.int64)
        if len(ptr) != len(terms) + 1 or (len(ptr) and (ptr[0] != 0 or ptr[-1] != len(arrays["nid"])
                                                           or np.any(np.diff(ptr) <= 0))):
            raise ValueError("keyword snapshot: term pointers do not match the postings")
        if not (len(arrays["nid"]) == len(arrays["tf"]) == len(arrays["dl"])) or len(arrays["stats"]) != 2:
            raise ValueError("keyword snapshot: posting arrays differ in length")
        nid = np.asarray(arrays["nid"], np.int32)
        tf, dl = np.asarray(arrays["tf"], np.float32), np.asarray(arrays["dl"], np.float32)
        fwd = _forward_arrays(arrays, len(terms), nid) if "fwd_tid" in arrays else None
        if fwd is None and len(nid) and int(nid.min()) < 0:
            raise ValueError("keyword snapshot: negative node id")
        idx._set_vocabulary(terms)
        if len(idx._vocab) != len(terms):
            raise ValueError("keyword snapshot: a term is listed twice")
        if fwd is None:   # a snapshot without the forward index: rebuild it (a sort of the postings)
            term = np.repeat(np.arange(len(terms), dtype=np.int32), np.diff(ptr))
            idx._set_segment(term, nid, tf, dl, len(terms))
        else:
            idx._install_segment(ptr, nid, tf, dl, fwd)
        n_docs, total_len = float(arrays["stats"][0]), float(arrays["stats"][1])
        if not (np.isfinite(n_docs) and 0 <= n_docs == int(n_docs) and np.isfinite(total_len) and total_len >= 0):
            raise ValueError("keyword snapshot: the document count or total length is no count")
        idx.n_docs, idx.total_len = int(n_docs), total_len
        return idx

    @classmethod
    def build(cls, docs: Iterable[tuple[int, str]], k1: float = 1.2, b: float = 0.75,
              lengths: Mapping[int, int] | None = None) -> "KeywordIndex":
        """An index of ``(nid, text)`` pairs (the rebuild from LMDB records), compacted;
        ``lengths``: nid -> its length for BM25 where not its text's (as :meth:`add` takes it).

        Built in bulk: every text is tokenized once, then the vocabulary, the segment and the
        forward index are installed with one array operation each. The result equals adding
        the pairs one by one with :meth:`add` and calling :meth:`compact` (tests check it).
        """
        idx = cls(k1, b)
        terms: list[str] = []
        term, tfs, doc_nids, lens, doc_dls = _tokenized(docs, {}, terms, lengths=lengths)
        idx.n_docs = len(doc_nids)
        for length in doc_dls:   # summed in insertion order, as add() does
            idx.total_len += length
        idx._set_vocabulary(terms)
        if doc_nids:   # every indexed memory has a forward entry, as add() gives it
            top = max(doc_nids)
            idx._fwd_off.resize(top + 1)
            idx._fwd_len.resize(top + 1)
        nids = np.repeat(np.array(doc_nids, np.int64), lens).astype(np.int32)
        dls = np.repeat(np.array(doc_dls, np.float32), lens)
        t = np.array(term, np.int32)
        order = np.argsort(t, kind="stable")   # within a term: insertion order, as compact() keeps it
        idx._set_segment(t[order], nids[order], np.array(tfs, np.float32)[order], dls[order], len(terms))
        return idx


def _tokenized(docs: Iterable[tuple[int, str]], vocab: dict[str, int], terms: list[str],
               known: Sequence[tuple[dict[str, int], int] | None] | None = None,
               lengths: Mapping[int, int] | None = None) -> tuple[list, ...]:
    """The postings of ``(nid, text)`` pairs: (term ids, term frequencies) per posting, in order,
    and (nids, distinct terms, lengths) per memory. New terms get the next ids, added to
    ``vocab`` (term -> id) and ``terms`` (id -> term). ``known``: each doc's :func:`term_counts`
    if already computed, else None; ``lengths``: nid -> its length for BM25 where not its text's
    (see :meth:`KeywordIndex.add_many`)."""
    tids: list[int] = []
    tfs: list[int] = []
    nids: list[int] = []
    lens: list[int] = []
    dls: list[float] = []
    for i, (nid, text) in enumerate(docs):
        pre = None if known is None else known[i]
        counts, length = term_counts(text) if pre is None else pre
        if lengths:
            length = _bm25_length(counts, length, lengths.get(nid))
        for t, c in counts.items():
            tid = vocab.get(t)
            if tid is None:
                tid = vocab[t] = len(terms)
                terms.append(t)
            tids.append(tid)
            tfs.append(c)
        nids.append(nid)
        lens.append(len(counts))
        dls.append(float(length))
    return tids, tfs, nids, lens, dls


def _bm25_length(counts: dict[str, int], own: int, length: int | None) -> int:
    """The length a text of term ``counts`` and length ``own`` is indexed with: ``length`` when
    given (a block's: its message's, :func:`engramdb.batch_plan.is_block`), unless the text has no
    term (no posting holds its length, so removing it subtracts the text's own)."""
    return own if length is None or not counts else length


def term_counts(text: str) -> tuple[dict[str, int], int]:
    """The indexed terms of ``text`` with their counts (first-seen order) and the text's length
    in terms (:func:`engramdb.index.tokens.index_terms`); a leading role label
    (:data:`ROLE_LABEL`) is no term, but counts in the length, as before (the length of every
    message of a chat would otherwise change, and with it every BM25 score); so is a greeting
    or praise made of words that say something elsewhere (:data:`engramdb.chatter.GREETING_PHRASES`:
    "Long time no talk! Busy summer." is no answer to "how long is my commute?" nor to "what time
    is standup?", "Great job! How did it feel?" none to "what is my job?")."""
    toks, length = index_terms(text)
    plain = without_greetings(text)
    if plain is not None:
        toks = index_terms(plain)[0]   # (the length stays the text's)
    if (m := ROLE_LABEL.match(text)) is not None:
        toks = toks[len(index_terms(m.group(0))[0]):]   # its terms come first
    counts: dict[str, int] = {}
    for t in toks:
        counts[t] = counts.get(t, 0) + 1
    return counts, length


def _forward_arrays(arrays: dict[str, np.ndarray], n_terms: int, nid: np.ndarray):
    """The saved forward index of :meth:`KeywordIndex.arrays`, checked against the postings
    ``nid`` (int32) of ``n_terms`` terms, as the tuple ``KeywordIndex._install_segment`` takes.

    The checks keep the kernel inside its arrays (it indexes by these values without bounds
    checks): every node id below the forward index's length, every term id and position in
    range, the memories' posting counts adding up to the postings. Three passes over the
    postings (unsigned maxima, so a negative value fails too), no sort.

    Raises
    ------
    ValueError
        The arrays do not fit together.
    """
    fwd_tid = np.asarray(arrays["fwd_tid"], np.int32)
    fwd_pos = np.asarray(arrays["fwd_pos"], np.int64)
    docs = np.asarray(arrays["fwd_docs"], np.int32)
    lens = np.asarray(arrays["fwd_lens"], np.int32)
    n_post = len(nid)
    if len(arrays["fwd_n"]) != 1 or len(fwd_tid) != n_post or len(fwd_pos) != n_post or len(docs) != len(lens):
        raise ValueError("keyword snapshot: the forward index differs in length from the postings")
    n_fwd = int(arrays["fwd_n"][0])
    if len(docs) and (int(docs[0]) < 0 or int(docs[-1]) >= n_fwd or np.any(np.diff(docs) <= 0)
                      or int(lens.min()) <= 0):
        raise ValueError("keyword snapshot: the forward index lists its memories out of order")
    if int(lens.sum(dtype=np.int64)) != n_post or n_fwd < 0:
        raise ValueError("keyword snapshot: the forward index does not cover the postings")
    if n_post and (int(nid.view(np.uint32).max()) >= n_fwd or int(fwd_pos.view(np.uint64).max()) >= n_post
                   or int(fwd_tid.view(np.uint32).max()) >= n_terms):
        raise ValueError("keyword snapshot: a node id, term id or position of the forward index is out of range")
    return fwd_tid, fwd_pos, docs, lens, n_fwd


def _kernel():
    """``bm25_search`` of the active kernel backend: C, or the NumPy reference when the
    registry runs Numba or the reference (this kernel has no Numba version)."""
    return registry.get_native("bm25_search")


def pack_indexes(indexes: dict[str, KeywordIndex]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Every namespace's postings and forward index as one set of flat arrays (one LMDB
    snapshot), and the namespace names in the order the arrays hold them. Per namespace,
    ``n_terms`` counts its terms, ``fwd_ndocs`` the memories its forward index lists and
    ``fwd_n`` its length; positions in ``fwd_pos`` count from the namespace's first posting."""
    names = sorted(indexes)
    per = [indexes[ns].arrays() for ns in names]
    n_terms = np.array([len(p["ptr"]) - 1 for p in per], np.int64)
    forward = {"fwd_ndocs": np.array([len(p["fwd_docs"]) for p in per], np.int64),
               "fwd_n": np.array([int(p["fwd_n"][0]) for p in per], np.int64)}
    if not per:
        return {"terms": np.empty(0, np.uint8), "ptr": np.zeros(1, np.int64), "nid": np.empty(0, np.int32),
                "tf": np.empty(0, np.float32), "dl": np.empty(0, np.float32),
                "stats": np.empty(0, np.float64), "n_terms": n_terms,
                "fwd_tid": np.empty(0, np.int32), "fwd_pos": np.empty(0, np.int64),
                "fwd_docs": np.empty(0, np.int32), "fwd_lens": np.empty(0, np.int32), **forward}, names
    ptrs, base = [np.zeros(1, np.int64)], 0
    for p in per:
        ptrs.append(p["ptr"][1:] + base)
        base += int(p["ptr"][-1])
    term_bytes = [p["terms"].tobytes() for p in per if len(p["ptr"]) > 1]
    return {"terms": np.frombuffer(b"\x00".join(term_bytes), np.uint8),
            "ptr": np.concatenate(ptrs), "nid": np.concatenate([p["nid"] for p in per]),
            "tf": np.concatenate([p["tf"] for p in per]), "dl": np.concatenate([p["dl"] for p in per]),
            "stats": np.concatenate([p["stats"] for p in per]), "n_terms": n_terms,
            **{k: np.concatenate([p[k] for p in per]) for k in ("fwd_tid", "fwd_pos", "fwd_docs", "fwd_lens")},
            **forward}, names


PACKED_DTYPES = {**KeywordIndex.ARRAY_DTYPES, "n_terms": np.int64}
#: The forward index in :func:`pack_indexes` (absent from snapshots written before it was saved).
PACKED_FORWARD_DTYPES = {**KeywordIndex.FORWARD_DTYPES, "fwd_ndocs": np.int64}


def unpack_indexes(arrays: dict[str, np.ndarray], names: list[str], k1: float = 1.2,
                   b: float = 0.75) -> dict[str, KeywordIndex]:
    """Inverse of :func:`pack_indexes`; ``arrays`` may lack the forward index (``fwd_*``, a
    snapshot of an earlier version), which is then rebuilt. The indexes use slices of
    ``arrays`` without copying them.

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
    forward = "fwd_tid" in arrays
    if forward:
        ndocs = arrays["fwd_ndocs"]
        if len(ndocs) != len(names) or len(arrays["fwd_n"]) != len(names) \
                or int(ndocs.sum()) != len(arrays["fwd_docs"]) or (len(ndocs) and int(ndocs.min()) < 0):
            raise ValueError("keyword snapshot: the forward index's namespace counts do not match")
    out, t0, d0 = {}, 0, 0
    for i, ns in enumerate(names):
        t1 = t0 + int(n_terms[i])
        lo, hi = int(ptr[t0]), int(ptr[t1])
        part = {"terms": np.frombuffer("\x00".join(terms[t0:t1]).encode(), np.uint8), "ptr": ptr[t0:t1 + 1] - lo,
                "nid": arrays["nid"][lo:hi], "tf": arrays["tf"][lo:hi], "dl": arrays["dl"][lo:hi],
                "stats": arrays["stats"][2 * i:2 * i + 2]}
        if forward:
            d1 = d0 + int(ndocs[i])
            part.update(fwd_tid=arrays["fwd_tid"][lo:hi], fwd_pos=arrays["fwd_pos"][lo:hi],
                        fwd_docs=arrays["fwd_docs"][d0:d1], fwd_lens=arrays["fwd_lens"][d0:d1],
                        fwd_n=arrays["fwd_n"][i:i + 1])
            d0 = d1
        out[ns] = KeywordIndex.from_arrays(part, k1, b)
        t0 = t1
    return out
