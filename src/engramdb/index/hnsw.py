"""Per-namespace k-NN over unit vectors: hnswlib (HNSW, Malkov & Yashunin 2018), the namespace's
contiguous vector matrix, and an exact twin.

Vectors are unit-norm float32, so inner product equals cosine; both indexes use hnswlib's
``"ip"`` space and report cosine similarity (1 - distance). Labels are the store's nids.

A :class:`HnswIndex` holds two views of one namespace's vectors, both caches of LMDB:

- the hnswlib graph, for approximate search;
- the **vector matrix**: every vector of the namespace in one contiguous float32 array, rows in
  ascending nid order (a row of an erased memory is dead until the next save compacts it).
  Recall reads the vectors of its seeds and hits from it (one fancy-index, no LMDB get), and
  exact scans (:meth:`HnswIndex.exact_knn`) run over it at memory bandwidth.

Both are saved beside the LMDB environment (``NAME.hnsw``, ``NAME.hnsw.vectors.f32``,
``NAME.hnsw.nids.i64``) with a JSON sidecar that records the namespace's vector generation,
the live count, and each file's size and CRC-32; all are rebuilt from LMDB when missing or
stale.

**Cold open.** A saved index of at most ``background_bytes`` (``IndexConfig.background_load_bytes``) is checked (CRC-32) and loaded
before :meth:`HnswIndex.load` returns. A larger one is opened in two steps: the vector matrix is
memory-mapped at once (its header, shape, size and labels checked), and a background thread
checks both files' CRC-32 and loads the hnswlib graph. That thread starts after the first
search has been answered (or at the first write), not at open: hnswlib's ``load_index`` holds
the GIL, and started at open it slowed the rest of the open and the first recall (100k: open +
first recall 320-460 ms with it, about 200 ms without). Until the thread is done, :meth:`knn`
answers with an exact scan of the matrix (same answers as hnswlib's or better: exact), so the
first recall does not wait for hnswlib's ``load_index`` (165 ms at 100k vectors, about 2 s at
1M). A write waits for the thread; an index closed before any search never loads hnswlib. If the background check finds a damaged file, the index
is rebuilt from LMDB in that thread (``fetch``) and swapped in; until then answers come from
the unverified matrix (a window of one CRC pass). hnswlib's ``load_index`` holds the GIL: other
Python threads of the process pause while it runs.

Safety: hnswlib is not safe for an insertion concurrent with a search (or a resize), nor for
a change of *ef* during a search: searches at the current *ef* share the index's lock, and
insertions, removals and *ef* changes take it alone. Files are written to a temporary name
(mode 0600) and renamed into place, the sidecar last; the sidecar's sizes and CRC-32s are
checked before hnswlib parses a byte, so a truncated or corrupted file is rebuilt instead of
crashing the process or answering wrongly.
"""
from __future__ import annotations

import json
import os
import threading
import warnings
import zlib
from typing import Callable

import hnswlib
import numpy as np

from ..errors import IndexStaleError
from ..rwlock import RWLock

__all__ = ["HnswIndex", "ExactIndex", "exact_cosines"]

#: Rows of queries per block in :meth:`HnswIndex._cosines` (its float64 temporaries: block x k x
#: dim x 8 bytes, 9 MB at k = 11 and dim 384).
_COSINE_BLOCK = 256

#: Up to this many labels, :meth:`HnswIndex.vectors` checks the rows one by one as Python ints
#: (a recall's hits): fewer NumPy calls than the vectorised check, each of which costs more than
#: the work on a handful of labels.
_FEW_LABELS = 32


def exact_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Inner products over the last axis of float32 unit vectors ``a`` and ``b`` (shapes
    (..., dim) that broadcast), as float32 cosines, the same on every machine.

    Each product of two float32 values is exact in float64, and the float64 sum of a few
    hundred of them rounds to one float32 whatever order a CPU adds in; a float32 dot product
    (BLAS, hnswlib's SIMD distances) differs in the last bits with the CPU (AVX2 and AVX-512
    sum in different orders). Use it for values that are stored or logged."""
    return np.einsum("...d,...d->...", a, b, dtype=np.float64).astype(np.float32)


class HnswIndex:
    """hnswlib index of one namespace, with its contiguous vector matrix.

    A namespace of at most :attr:`EXHAUSTIVE_MAX` (512) vectors is searched with *ef* equal to its
    size (every reachable node is examined): HNSW's neighbour pruning can leave a vector with
    few in-links among hundreds of near-duplicates (e.g. the pieces of one long, repetitive
    text), and a beam of ``ef_search`` then misses it although it is the nearest.

    Parameters
    ----------
    dim : int
        Vector dimension.
    m, ef_construction, ef_search : int
        HNSW's *M*, *efConstruction* and query-time *ef* (Malkov & Yashunin 2018, Alg. 1-5).
    capacity : int
        Initial max elements; the index doubles when full.
    """

    #: namespaces up to this many stored vectors are searched exhaustively by :meth:`knn`
    EXHAUSTIVE_MAX = 512

    def __init__(self, dim: int, *, m: int = 16, ef_construction: int = 100, ef_search: int = 100,
                 capacity: int = 1024):
        self.dim, self.m, self.ef_construction, self.ef_search = dim, m, ef_construction, ef_search
        self._index = self._new_hnsw(max(capacity, 16))
        self._ef = ef_search
        self._rw = RWLock()
        self._loader: threading.Thread | None = None
        self._load_started = True   # a loader made by load() starts on the first search
        self._start_lock = threading.Lock()
        self._deleted: set[int] = set()   # labels hnswlib keeps, marked deleted
        cap = max(capacity, 16)
        self._vecs = np.zeros((cap, dim), np.float32)
        self._nids = np.zeros(cap, np.int64)
        self._alive = np.zeros(cap, bool)
        self._n = 0          # rows used
        self._count = 0      # live rows

    def _new_hnsw(self, capacity: int):
        index = hnswlib.Index(space="ip", dim=self.dim)
        index.init_index(max_elements=capacity, ef_construction=self.ef_construction, M=self.m,
                         allow_replace_deleted=False)
        index.set_ef(self.ef_search)
        index.set_num_threads(1)
        return index

    def __len__(self) -> int:
        return self._count

    # ------------------------------------------------------------------ the vector matrix
    def _rows(self, labels: np.ndarray) -> np.ndarray:
        """Rows of ``labels`` in the matrix (int64), -1 where a label has no live row."""
        if self._n == 0:
            return np.full(len(labels), -1, np.int64)
        nids = self._nids[: self._n]
        pos = np.minimum(np.searchsorted(nids, labels), self._n - 1)
        ok = (nids[pos] == labels) & self._alive[pos]
        return np.where(ok, pos, -1)

    def _writable(self, extra: int) -> None:
        """Make the matrix an owned, writable array with room for ``extra`` more rows."""
        need = self._n + extra
        cap = len(self._nids)
        if need > cap or not self._vecs.flags.writeable:
            cap = max(need, 2 * cap if need > cap else cap, 16)
            vecs = np.zeros((cap, self.dim), np.float32)
            vecs[: self._n] = self._vecs[: self._n]
            nids = np.zeros(cap, np.int64)
            nids[: self._n] = self._nids[: self._n]
            alive = np.zeros(cap, bool)
            alive[: self._n] = self._alive[: self._n]
            self._vecs, self._nids, self._alive = vecs, nids, alive

    def _matrix_put(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        labels = np.asarray(labels, np.int64)
        self._writable(len(labels))
        n = self._n
        nids = self._nids[:n]
        m = len(labels)
        if self._appends(labels):
            # the usual case, new nids in increasing order above every stored one: one copy
            self._vecs[n: n + m] = vectors
            self._nids[n: n + m] = labels
            self._alive[n: n + m] = True
            self._n += m
            self._count += m
            return
        pos = np.searchsorted(nids, labels)
        known = (pos < n) & (nids[np.minimum(pos, max(n - 1, 0))] == labels) if n else np.zeros(len(labels), bool)
        for i in np.flatnonzero(known):   # replace in place (a label added again)
            p = int(pos[i])
            self._vecs[p] = vectors[i]
            if not self._alive[p]:
                self._alive[p] = True
                self._count += 1
        new = ~known
        if not new.any():
            return
        lab, vec = labels[new], np.asarray(vectors, np.float32)[new]
        order = np.argsort(lab, kind="stable")
        lab, vec = lab[order], vec[order]
        if n == 0 or lab[0] > self._nids[n - 1]:   # the usual case: new nids are the largest
            self._vecs[n: n + len(lab)] = vec
            self._nids[n: n + len(lab)] = lab
            self._alive[n: n + len(lab)] = True
        else:   # an older nid: keep the rows sorted
            at = np.searchsorted(nids, lab)
            m = n + len(lab)
            self._vecs[:m] = np.insert(self._vecs[:n], at, vec, axis=0)
            self._nids[:m] = np.insert(nids, at, lab)
            self._alive[:m] = np.insert(self._alive[:n], at, True)
        self._n += len(lab)
        self._count += len(lab)

    def _appends(self, labels: np.ndarray) -> bool:
        """Whether ``labels`` (int64) are increasing and above every row's: the matrix takes them
        as new rows at its end (the write path's case: new nids)."""
        m, n = len(labels), self._n
        return bool(m and (n == 0 or labels[0] > self._nids[n - 1])
                    and (m == 1 or (labels[1:] > labels[:-1]).all()))

    def vectors(self, labels: np.ndarray) -> np.ndarray:
        """Vectors of ``labels`` (int64, shape (n,)) from the vector matrix: float32, shape
        (n, dim), in the order given.

        Raises
        ------
        KeyError
            A label that is not a live vector of this index.
        """
        labels = np.asarray(labels, np.int64).reshape(-1)
        self._rw.acquire_read()   # not ``with self._rw.read()``: its generator costs more than the rest
        try:
            if len(labels) <= _FEW_LABELS and self._n:   # a recall's hits: checked as Python ints
                nids, alive, n = self._nids, self._alive, self._n
                rows = np.searchsorted(nids[:n], labels).tolist()
                for label, row in zip(labels.tolist(), rows):
                    if row >= n or nids.item(row) != label or not alive.item(row):
                        raise KeyError(label)
                return self._vecs[rows]
            rows = self._rows(labels)
            if rows.min(initial=0) < 0:
                raise KeyError(int(labels[np.argmax(rows < 0)]))
            return self._vecs[rows]
        finally:
            self._rw.release_read()

    def knn_batch_exact(self, queries: np.ndarray, k: int, *, ef: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`knn_batch`, with each row's cosines computed again from the vector matrix
        (:func:`exact_cosines`) and the row sorted by them, best first (ties: smaller label
        first): labels int64 and cosines float32, shape (n, min(k, len(self))).

        For what is stored or logged from a search (an auto-link's weight, admission's novelty):
        hnswlib's distances differ in the last bits with the machine (its build targets the CPU:
        AVX, AVX2 or AVX-512 sum in different orders); these do not."""
        queries = np.ascontiguousarray(queries, np.float32)
        labels, _ = self.knn_batch(queries, k, ef=ef)
        cos = self._cosines(queries, labels)
        order = np.lexsort((labels, -cos))
        return np.take_along_axis(labels, order, 1), np.take_along_axis(cos, order, 1)

    def _cosines(self, queries: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """:func:`exact_cosines` of ``queries`` (float32, shape (n, dim)) to their rows of
        ``labels`` (int64, shape (n, k)): float32, shape (n, k); -inf where a label is not a live
        vector of this index."""
        n, k = labels.shape
        out = np.full((n, k), -np.inf, np.float32)
        with self._rw.read():
            rows = self._rows(labels.reshape(-1)).reshape(n, k)
            for lo in range(0, n, _COSINE_BLOCK):   # bounded float64 temporaries
                r = rows[lo: lo + _COSINE_BLOCK]
                ok = r >= 0
                got = exact_cosines(self._vecs[np.maximum(r, 0)], queries[lo: lo + _COSINE_BLOCK, None, :])
                out[lo: lo + _COSINE_BLOCK][ok] = got[ok]
        return out

    # ------------------------------------------------------------------ writing
    def _start_loading(self) -> None:
        """Start the background load made by :meth:`load`, once."""
        with self._start_lock:
            if self._loader is not None and not self._load_started:
                self._load_started = True
                self._loader.start()

    def _wait_loaded(self) -> None:
        loader = self._loader
        if loader is not None:
            self._start_loading()
            loader.join()

    def add(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        """Insert ``vectors`` (float32, shape (n, dim), unit norm) under ``labels`` (nids); a label
        already present gets the new vector (hnswlib updates it in place)."""
        if len(labels) == 0:
            return
        self._wait_loaded()
        vectors = np.ascontiguousarray(vectors, np.float32).reshape(len(labels), self.dim)
        labels = np.asarray(labels, np.int64)
        with self._rw.write():
            need = self._index.get_current_count() + len(labels)
            cap = self._index.get_max_elements()
            if need > cap:
                self._index.resize_index(max(need, 2 * cap))
            threads = 1 if len(labels) < 256 else (os.cpu_count() or 1)
            if threads > 1 and self._appends(labels):
                # hnswlib inserts (GIL released) while this thread appends the rows to the
                # matrix; the rows are taken back if hnswlib fails
                failed: list[RuntimeError] = []

                def insert() -> None:
                    try:
                        self._index.add_items(vectors, labels, num_threads=threads)
                    except RuntimeError as exc:
                        failed.append(exc)
                worker = threading.Thread(target=insert, name="engramdb-hnswlib-add", daemon=True)
                worker.start()
                n0, count0 = self._n, self._count
                try:
                    self._matrix_put(vectors, labels)
                finally:
                    worker.join()
                if failed:
                    self._alive[n0: self._n] = False
                    self._n, self._count = n0, count0
                    raise IndexStaleError(f"hnswlib could not add {len(labels)} vectors: {failed[0]}") from failed[0]
            else:
                try:
                    self._index.add_items(vectors, labels, num_threads=threads)
                except RuntimeError as exc:   # hnswlib's own errors never leave the engine raw
                    raise IndexStaleError(f"hnswlib could not add {len(labels)} vectors: {exc}") from exc
                self._matrix_put(vectors, labels)
            if self._deleted:   # hnswlib un-marks a deleted label that is added again
                self._deleted.difference_update(int(x) for x in labels)

    def remove(self, label: int) -> None:
        """Hide ``label`` from searches (hnswlib ``mark_deleted``; its matrix row dies)."""
        self._wait_loaded()
        with self._rw.write():
            row = int(self._rows(np.array([label], np.int64))[0])
            if row >= 0:
                self._index.mark_deleted(int(label))
                self._alive[row] = False
                self._count -= 1
                self._deleted.add(int(label))

    # ------------------------------------------------------------------ searching
    def _set_ef(self, ef: int) -> None:
        """Make hnswlib's *ef* ``ef`` (under the lock alone: a search may be running)."""
        with self._rw.write():
            if self._ef != ef:
                self._index.set_ef(ef)
                self._ef = ef

    def knn(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest labels (int64) and their cosines (float32), best first.

        At most ``min(k, len(self))`` come back. While hnswlib is still loading (see the module
        docstring), and when hnswlib cannot return ``k`` (its graph leaves some nodes
        unreachable, as it does among hundreds of near-duplicates: it raises "Cannot return the
        results in a contiguous 2D array"), the answer comes from an exact scan of the vector
        matrix instead (:meth:`exact_knn`)."""
        query = np.ascontiguousarray(query, np.float32).reshape(1, -1)
        k = min(k, self._count)
        if k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        if self._loader is not None:   # hnswlib not loaded yet: exact, then start loading it
            out = self.exact_knn(query[0], k)
            self._start_loading()
            return out
        stored = self._count + len(self._deleted)
        ef = max(self.ef_search, k, stored if stored <= self.EXHAUSTIVE_MAX else 0)
        if ef != self._ef:
            self._set_ef(ef)
        with self._rw.read():
            if ef == self._ef:
                try:
                    labels, dist = self._index.knn_query(query, k=k)
                except RuntimeError:   # fewer than k reachable: exact scan
                    labels = None
            else:   # another thread moved ef meanwhile: exact
                labels = None
        if labels is None:
            return self.exact_knn(query[0], k)
        return labels[0].astype(np.int64), (1.0 - dist[0]).astype(np.float32)

    def exact_knn(self, query: np.ndarray, k: int, labels: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest live labels by an exact scan of the vector matrix (inner product of
        unit vectors = cosine): labels int64 and cosines float32, best first (ties: smaller
        label first). O(n dim). ``labels`` restricts the scan to those (live ones only)."""
        q = np.asarray(query, np.float32).reshape(-1)
        with self._rw.read():
            n = self._n
            if labels is not None:
                rows = self._rows(np.unique(np.asarray(labels, np.int64)))
                rows = rows[rows >= 0]
                cand, sims = self._nids[rows], self._vecs[rows] @ q
            else:
                cand, sims = self._nids[:n], self._vecs[:n] @ q
                if self._count < n:
                    alive = self._alive[:n]
                    cand, sims = cand[alive], sims[alive]
        k = min(k, len(cand))
        if k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        if k < len(cand):   # the k best (and every tie at the k-th value)
            kth = np.partition(sims, len(sims) - k)[len(sims) - k]
            keep = sims >= kth
            cand, sims = cand[keep], sims[keep]
        order = np.lexsort((cand, -sims))[:k]
        return cand[order].copy(), sims[order].astype(np.float32)

    def knn_batch(self, queries: np.ndarray, k: int, *, ef: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """k-NN of many queries at once (hnswlib's threads): labels int64 and cosines float32,
        shape (n, min(k, len(self))), best first per row. ``ef`` overrides ``ef_search``."""
        queries = np.ascontiguousarray(queries, np.float32)
        n = len(queries)
        self._wait_loaded()
        k = min(k, self._count)
        if k <= 0 or n == 0:
            return np.zeros((n, 0), np.int64), np.zeros((n, 0), np.float32)
        with self._rw.write():   # its own ef, restored after
            self._index.set_ef(max(self.ef_search if ef is None else ef, k))
            try:
                labels, dist = self._index.knn_query(queries, k=k,
                                                     num_threads=1 if n < 64 else (os.cpu_count() or 1))
            except RuntimeError:   # a row with fewer than k reachable: exact scan of every row
                labels = None
            finally:
                self._index.set_ef(self._ef)
        if labels is None:
            rows = [self.exact_knn(q, k) for q in queries]
            return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])
        return labels.astype(np.int64), (1.0 - dist).astype(np.float32)

    # ------------------------------------------------------------------ files
    def save(self, path: str, generation: int) -> None:
        """Write the hnswlib file, the vector matrix (live rows) with its labels, and the JSON
        sidecar, each via a temporary file and a rename.

        The sidecar (written last) holds ``generation``, the live count, the labels hnswlib
        keeps as marked-deleted, and each file's byte size and CRC-32. A crash at any point
        leaves either the previous set, or new files whose sidecar does not match them:
        :meth:`load` then raises :class:`IndexStaleError` and the engine rebuilds.
        """
        self._wait_loaded()
        with self._rw.write():
            tmp = path + ".tmp"
            self._index.save_index(tmp)
            os.chmod(tmp, 0o600)
            size, crc = _file_crc(tmp)
            os.replace(tmp, path)
            vecs, nids = self._vecs[: self._n], self._nids[: self._n]
            if self._count < self._n:   # dead rows are left out (every row live: no copy)
                alive = self._alive[: self._n]
                vecs, nids = vecs[alive], nids[alive]
            files = {}
            for suffix, arr in ((".vectors.f32", vecs), (".nids.i64", nids)):
                part = path + suffix + ".tmp"
                raw = np.ascontiguousarray(arr, arr.dtype.newbyteorder("<"))   # raw little-endian rows
                fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with open(fd, "wb") as fh:   # shape in the sidecar
                    raw.tofile(fh)
                # the CRC of the bytes just written, from memory (zlib releases the GIL)
                files[suffix] = (raw.nbytes, zlib.crc32(raw.reshape(-1).view(np.uint8)) if raw.nbytes else 0)
                os.replace(part, path + suffix)
            meta = {"generation": generation, "count": self._count, "dim": self.dim,
                    "m": self.m, "ef_construction": self.ef_construction, "deleted": sorted(self._deleted),
                    "bytes": size, "crc32": crc,
                    "vectors_bytes": files[".vectors.f32"][0], "vectors_crc32": files[".vectors.f32"][1],
                    "nids_bytes": files[".nids.i64"][0], "nids_crc32": files[".nids.i64"][1]}
        side_tmp = path + ".json.tmp"
        fd = os.open(side_tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as fh:
            json.dump(meta, fh)
        os.replace(side_tmp, path + ".json")

    #: every file of a saved index, as suffixes of its path (for removal)
    FILE_SUFFIXES = ("", ".json", ".tmp", ".json.tmp", ".vectors.f32", ".vectors.f32.tmp", ".nids.i64",
                     ".nids.i64.tmp")

    @classmethod
    def load(cls, path: str, *, dim: int, generation: int, count: int, ef_search: int,
             labels: np.ndarray | None = None,
             fetch: Callable[[np.ndarray], np.ndarray] | None = None,
             new: Callable[[], "HnswIndex"] | None = None, background_bytes: int = 16 << 20) -> "HnswIndex":
        """Load a saved index; raise :class:`IndexStaleError` if it does not match the store.

        Parameters
        ----------
        path : str
            The hnswlib file; its sidecar is ``path + ".json"``, the vector matrix
            ``path + ".vectors.f32"`` and its labels ``path + ".nids.i64"``.
        dim, generation, count : int
            What the store expects: vector dimension, the namespace's vector generation and
            its number of live vectors.
        ef_search : int
        labels : ndarray of int, optional
            The live nids the store holds for this namespace; when given, the index must hold
            exactly these.
        fetch, new : callable, optional
            ``fetch(labels) -> vectors`` reads vectors from LMDB and ``new()`` makes an empty
            index: given both, an index larger than ``background_bytes`` finishes loading in a
            background thread, which rebuilds it with them if a file turns out damaged (module
            docstring). Without them everything is checked before returning.
        background_bytes : int
            Size (hnswlib file plus vector matrix, bytes) above which loading goes on in the
            background.

        Raises
        ------
        IndexStaleError
            Missing, stale, truncated or corrupted files (size or CRC-32 differs from the
            sidecar, unparsable sidecar, labels that differ from the store's).
        """
        side = path + ".json"
        if not (os.path.exists(path) and os.path.exists(side)):
            raise IndexStaleError(f"no saved index at {path!r}")
        try:
            with open(side, encoding="utf-8") as fh:
                meta = json.load(fh)
        except (OSError, ValueError) as exc:
            raise IndexStaleError(f"unreadable index sidecar {side!r}: {exc}") from exc
        ints = ("generation", "count", "dim", "m", "ef_construction", "bytes", "crc32", "vectors_bytes",
                "vectors_crc32", "nids_bytes", "nids_crc32")
        if (not isinstance(meta, dict) or any(type(meta.get(f)) is not int for f in ints)
                or not isinstance(meta.get("deleted"), list)
                or not all(type(x) is int for x in meta["deleted"])):
            raise IndexStaleError(f"index sidecar {side!r} is not one this version of engramdb wrote")
        if meta["generation"] != generation or meta["dim"] != dim or meta["count"] != count:
            raise IndexStaleError(f"index {path!r} is older than the store")
        files = {path: ("bytes", "crc32"), path + ".vectors.f32": ("vectors_bytes", "vectors_crc32"),
                 path + ".nids.i64": ("nids_bytes", "nids_crc32")}
        try:
            sizes = {p: os.path.getsize(p) for p in files}
        except OSError as exc:
            raise IndexStaleError(f"cannot read index {path!r}: {exc}") from exc
        if any(sizes[p] != meta[f[0]] for p, f in files.items()):
            raise IndexStaleError(f"index {path!r} is truncated or corrupted (a file's size differs)")
        background = fetch is not None and new is not None and sum(sizes.values()) > background_bytes
        if not background:
            _check_crcs(files, meta)
        self = cls.__new__(cls)
        self.dim, self.m, self.ef_construction, self.ef_search = dim, meta["m"], meta["ef_construction"], ef_search
        self._ef = ef_search
        self._rw = RWLock()
        self._loader = None
        self._load_started = True
        self._start_lock = threading.Lock()
        self._deleted = set(meta["deleted"])
        try:
            nids = np.fromfile(path + ".nids.i64", dtype="<i8").astype(np.int64, copy=False)
            # a plain ndarray over the mapping (np.memmap's subclass hooks cost per indexing)
            vecs = (np.memmap(path + ".vectors.f32", dtype="<f4", mode="r", shape=(count, dim)).view(np.ndarray)
                    if count else np.zeros((0, dim), np.float32))
        except (OSError, ValueError) as exc:
            raise IndexStaleError(f"cannot read the vector matrix of {path!r}: {exc}") from exc
        if nids.shape != (count,) or vecs.shape != (count, dim) or (count > 1 and not (np.diff(nids) > 0).all()):
            raise IndexStaleError(f"the vector matrix of {path!r} does not match its sidecar")
        if labels is not None:
            labels = np.asarray(labels, np.int64)
            if len(labels) > 1 and not (labels[1:] > labels[:-1]).all():   # the store's are sorted: no sort
                labels = np.sort(labels)
        if labels is not None and not np.array_equal(nids, labels):
            raise IndexStaleError(f"index {path!r} holds other labels than the store")
        self._vecs, self._nids = vecs, nids
        self._alive = np.ones(count, bool)
        self._n = self._count = count
        if not background:
            self._index = self._load_hnsw(path, count)
            return self

        def finish() -> None:
            try:
                _check_crcs(files, meta)
                index = self._load_hnsw(path, count)
            except IndexStaleError as exc:   # rebuild from LMDB, then swap in
                warnings.warn(f"rebuilding the vector index from the store: {exc}", RuntimeWarning, stacklevel=2)
                fresh = new()
                fresh.add(fetch(nids), nids)
                with self._rw.write():
                    self._vecs, self._nids, self._alive = fresh._vecs, fresh._nids, fresh._alive
                    self._n, self._count, self._deleted = fresh._n, fresh._count, set()
                index = fresh._index
            self._index = index
            self._loader = None
        self._index = None
        self._loader = threading.Thread(target=finish, name="engramdb-index-load", daemon=True)
        self._load_started = False   # started by the first search or write (module docstring)
        return self

    def _load_hnsw(self, path: str, count: int):
        index = hnswlib.Index(space="ip", dim=self.dim)
        try:
            index.load_index(path)
        except (RuntimeError, MemoryError, ValueError) as exc:
            raise IndexStaleError(f"cannot load index {path!r}: {exc}") from exc
        index.set_ef(self.ef_search)
        index.set_num_threads(1)
        stored = np.asarray(index.get_ids_list(), np.int64)
        # hnswlib keeps marked-deleted labels in get_ids_list; the sidecar lists them
        live = np.setdiff1d(stored, np.fromiter(self._deleted, np.int64, len(self._deleted)))
        if len(live) != count or not np.array_equal(live, self._nids[: self._n]):
            raise IndexStaleError(f"index {path!r} holds other labels than its vector matrix")
        return index

    @property
    def loading(self) -> bool:
        """Whether the hnswlib graph is not loaded yet: its background load is pending (until the
        first search or write) or running. Searches are exact meanwhile."""
        return self._loader is not None

    def wait_loaded(self) -> None:
        """Block until the background load (module docstring) is done, starting it if pending."""
        self._wait_loaded()

    def settle(self) -> None:
        """Before the store closes: a running background load is waited for, a pending one is
        dropped (hnswlib is never loaded for an index that was not searched)."""
        with self._start_lock:
            if self._loader is not None and not self._load_started:
                self._loader = None   # never started: nothing to wait for
                return
        loader = self._loader
        if loader is not None:
            loader.join()


def _check_crcs(files: dict[str, tuple[str, str]], meta: dict) -> None:
    for p, (size_key, crc_key) in files.items():
        try:
            size, crc = _file_crc(p)
        except OSError as exc:
            raise IndexStaleError(f"cannot read index file {p!r}: {exc}") from exc
        if (size, crc) != (meta[size_key], meta[crc_key]):
            raise IndexStaleError(f"index file {p!r} is truncated or corrupted (size or CRC-32 differs)")


def _file_crc(path: str) -> tuple[int, int]:
    """(size in bytes, CRC-32) of a file, read in 16 MiB blocks (zlib releases the GIL)."""
    crc, size = 0, 0
    with open(path, "rb") as fh:
        while block := fh.read(16 << 20):
            crc = zlib.crc32(block, crc)
            size += len(block)
    return size, crc


class ExactIndex:
    """Brute-force cosine k-NN over the same vectors: the baseline and the test oracle."""

    def __init__(self, dim: int):
        self.dim = dim
        self._vecs = np.zeros((0, dim), np.float32)
        self._labels = np.zeros(0, np.int64)

    def __len__(self) -> int:
        return len(self._labels)

    def add(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        self._vecs = np.vstack([self._vecs, np.asarray(vectors, np.float32)])
        self._labels = np.concatenate([self._labels, np.asarray(labels, np.int64)])

    def remove(self, label: int) -> None:
        keep = self._labels != label
        self._vecs, self._labels = self._vecs[keep], self._labels[keep]

    def knn(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        k = min(k, len(self._labels))
        if k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        sims = self._vecs @ np.asarray(query, np.float32)
        part = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
        order = part[np.lexsort((self._labels[part], -sims[part]))]
        return self._labels[order], sims[order].astype(np.float32)
