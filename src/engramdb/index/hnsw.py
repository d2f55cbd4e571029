"""Per-namespace k-NN over unit vectors: hnswlib (HNSW, Malkov & Yashunin 2018) and an exact twin.

Vectors are unit-norm float32, so inner product equals cosine; both indexes use hnswlib's
``"ip"`` space and report cosine similarity (1 - distance). Labels are the store's nids.
The hnswlib file is a cache: it is saved beside the LMDB environment with a sidecar that
records the namespace's vector generation, and rebuilt from LMDB when missing or stale.

Safety: hnswlib is not safe for an insertion concurrent with a search (or a resize), so every
call into it holds the index's lock. Both files are written to a temporary name (mode 0600)
and renamed into place, the sidecar last; the sidecar records the index file's size and CRC-32,
which :meth:`HnswIndex.load` checks before hnswlib parses a byte, so a truncated or corrupted
file is rebuilt instead of crashing the process or answering wrongly.
"""
from __future__ import annotations

import json
import os
import threading
import zlib

import hnswlib
import numpy as np

from ..errors import IndexStaleError

__all__ = ["HnswIndex", "ExactIndex"]


class HnswIndex:
    """hnswlib index of one namespace.

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

    def __init__(self, dim: int, *, m: int = 16, ef_construction: int = 200, ef_search: int = 100,
                 capacity: int = 1024):
        self.dim, self.m, self.ef_construction, self.ef_search = dim, m, ef_construction, ef_search
        self._index = hnswlib.Index(space="ip", dim=dim)
        self._index.init_index(max_elements=max(capacity, 16), ef_construction=ef_construction, M=m,
                               allow_replace_deleted=False)
        self._index.set_ef(ef_search)
        self._index.set_num_threads(1)
        self._live: set[int] = set()
        self._deleted: set[int] = set()   # labels hnswlib keeps, marked deleted
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._live)

    def add(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        """Insert ``vectors`` (float32, shape (n, dim), unit norm) under ``labels`` (nids)."""
        if len(labels) == 0:
            return
        with self._lock:
            self._add(vectors, labels)

    def _add(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        need = self._index.get_current_count() + len(labels)
        cap = self._index.get_max_elements()
        if need > cap:
            self._index.resize_index(max(need, 2 * cap))
        threads = 1 if len(labels) < 256 else (os.cpu_count() or 1)
        try:
            self._index.add_items(np.ascontiguousarray(vectors, np.float32), np.asarray(labels, np.int64),
                                  num_threads=threads)
        except RuntimeError as exc:   # hnswlib's own errors never leave the engine raw
            raise IndexStaleError(f"hnswlib could not add {len(labels)} vectors: {exc}") from exc
        self._live.update(int(x) for x in labels)
        if self._deleted:   # hnswlib un-marks a deleted label that is added again
            self._deleted.difference_update(int(x) for x in labels)

    def remove(self, label: int) -> None:
        """Hide ``label`` from searches (hnswlib ``mark_deleted``)."""
        with self._lock:
            if label in self._live:
                self._index.mark_deleted(int(label))
                self._live.discard(label)
                self._deleted.add(int(label))

    def knn(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest labels (int64) and their cosines (float32), best first.

        At most ``min(k, len(self))`` come back. When hnswlib cannot return ``k`` (its graph
        leaves some nodes unreachable, as it does among hundreds of near-duplicates: it raises
        "Cannot return the results in a contiguous 2D array"), the answer comes from an exact
        scan of the live vectors instead (:meth:`exact_knn`)."""
        query = np.ascontiguousarray(query, np.float32).reshape(1, -1)
        with self._lock:
            k = min(k, len(self._live))
            if k <= 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32)
            stored = len(self._live) + len(self._deleted)
            self._index.set_ef(max(self.ef_search, k, stored if stored <= self.EXHAUSTIVE_MAX else 0))
            try:
                labels, dist = self._index.knn_query(query, k=k)
            except RuntimeError:   # fewer than k reachable: exact scan
                return self.exact_knn(query[0], k)
        return labels[0].astype(np.int64), (1.0 - dist[0]).astype(np.float32)

    def exact_knn(self, query: np.ndarray, k: int, labels: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest live labels by an exact scan (inner product of unit vectors = cosine):
        labels int64 and cosines float32, best first (ties: smaller label first). O(n dim).
        ``labels`` restricts the scan to those (live ones only)."""
        with self._lock:
            live = np.fromiter(sorted(self._live), np.int64, len(self._live))
            if labels is not None:
                live = live[np.isin(live, labels)]
            if len(live) == 0 or k <= 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32)
            vecs = np.asarray(self._index.get_items(live, return_type="numpy"), np.float32)
        sims = vecs @ np.asarray(query, np.float32).reshape(-1)
        order = np.lexsort((live, -sims))[: min(k, len(live))]
        return live[order], sims[order].astype(np.float32)

    def knn_batch(self, queries: np.ndarray, k: int, *, ef: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """k-NN of many queries at once (hnswlib's threads): labels int64 and cosines float32,
        shape (n, min(k, len(self))), best first per row. ``ef`` overrides ``ef_search``."""
        queries = np.ascontiguousarray(queries, np.float32)
        n = len(queries)
        with self._lock:
            k = min(k, len(self._live))
            if k <= 0 or n == 0:
                return np.zeros((n, 0), np.int64), np.zeros((n, 0), np.float32)
            self._index.set_ef(max(self.ef_search if ef is None else ef, k))
            try:
                labels, dist = self._index.knn_query(queries, k=k,
                                                     num_threads=1 if n < 64 else (os.cpu_count() or 1))
            except RuntimeError:   # a row with fewer than k reachable: exact scan of every row
                rows = [self.exact_knn(q, k) for q in queries]
                return np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])
        return labels.astype(np.int64), (1.0 - dist).astype(np.float32)

    def save(self, path: str, generation: int) -> None:
        """Write the index file and its JSON sidecar, each via a temporary file and a rename.

        The sidecar (written last) holds ``generation``, the live count, the labels hnswlib
        keeps as marked-deleted, and the index file's byte size and CRC-32. A crash at any
        point leaves either the previous pair, or a new index file whose sidecar does not
        match it: :meth:`load` then raises :class:`IndexStaleError` and the engine rebuilds.
        """
        with self._lock:
            tmp = path + ".tmp"
            self._index.save_index(tmp)
            os.chmod(tmp, 0o600)
            deleted = sorted(self._deleted)
            size, crc = _file_crc(tmp)
            os.replace(tmp, path)
            meta = {"generation": generation, "count": len(self._live), "dim": self.dim,
                    "m": self.m, "ef_construction": self.ef_construction, "deleted": deleted,
                    "bytes": size, "crc32": crc}
        side_tmp = path + ".json.tmp"
        fd = os.open(side_tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as fh:
            json.dump(meta, fh)
        os.replace(side_tmp, path + ".json")

    @classmethod
    def load(cls, path: str, *, dim: int, generation: int, count: int, ef_search: int,
             labels: np.ndarray | None = None) -> "HnswIndex":
        """Load a saved index; raise :class:`IndexStaleError` if it does not match the store.

        Parameters
        ----------
        path : str
            The index file; its sidecar is ``path + ".json"``.
        dim, generation, count : int
            What the store expects: vector dimension, the namespace's vector generation and
            its number of live vectors.
        ef_search : int
        labels : ndarray of int, optional
            The live nids the store holds for this namespace; when given, the index must hold
            exactly these.

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
        ints = ("generation", "count", "dim", "m", "ef_construction", "bytes", "crc32")
        if (not isinstance(meta, dict) or any(type(meta.get(f)) is not int for f in ints)
                or not isinstance(meta.get("deleted"), list)
                or not all(type(x) is int for x in meta["deleted"])):
            raise IndexStaleError(f"index sidecar {side!r} is not one engramdb wrote")
        if meta["generation"] != generation or meta["dim"] != dim or meta["count"] != count:
            raise IndexStaleError(f"index {path!r} is older than the store")
        try:
            size, crc = _file_crc(path)
        except OSError as exc:
            raise IndexStaleError(f"cannot read index {path!r}: {exc}") from exc
        if (size, crc) != (meta["bytes"], meta["crc32"]):
            raise IndexStaleError(f"index {path!r} is truncated or corrupted (size or CRC-32 differs)")
        self = cls.__new__(cls)
        self.dim, self.m, self.ef_construction, self.ef_search = dim, meta["m"], meta["ef_construction"], ef_search
        self._lock = threading.RLock()
        self._index = hnswlib.Index(space="ip", dim=dim)
        try:
            self._index.load_index(path)
        except (RuntimeError, MemoryError, ValueError) as exc:
            raise IndexStaleError(f"cannot load index {path!r}: {exc}") from exc
        self._index.set_ef(ef_search)
        self._index.set_num_threads(1)
        stored = np.asarray(self._index.get_ids_list(), np.int64)
        # hnswlib keeps marked-deleted labels in get_ids_list; the sidecar lists them
        self._deleted = set(meta["deleted"])
        self._live = {int(x) for x in stored} - self._deleted
        if len(self._live) != count:
            raise IndexStaleError(f"index {path!r} holds {len(self._live)} labels, store has {count}")
        if labels is not None and self._live != {int(x) for x in labels}:
            raise IndexStaleError(f"index {path!r} holds other labels than the store")
        return self


def _file_crc(path: str) -> tuple[int, int]:
    """(size in bytes, CRC-32) of a file, read in 16 MiB blocks."""
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
