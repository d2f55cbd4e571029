"""Typed, weighted memory graph in CSR form for the spreading-activation kernels.

Edges are stored directed and unique on (source, target, relation). Spreading activation walks
them in both directions (a fact reaches what supports it and what it supports; an old memory
reaches the one that superseded it), so the recall CSR holds every edge twice, with a
``forward`` flag telling which way the stored edge points (for explaining paths).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..types import Relation

_CONTRADICTS = Relation.CONTRADICTS.code

__all__ = ["CSRGraph", "MemoryGraph", "SNAPSHOT_DTYPES", "contradicts_nodes"]

SNAPSHOT_DTYPES = {"indptr": np.int64, "indices": np.int32, "weight": np.float32,
                   "relation": np.uint8, "forward": np.uint8}


@dataclass(frozen=True, slots=True)
class CSRGraph:
    """Symmetric CSR of the memory graph; row ``u`` lists the edges touching node ``u``.

    Attributes
    ----------
    indptr : ndarray of int64, shape (n + 1,)
    indices : ndarray of int32, shape (nnz,)
        Neighbour node ids (internal nids).
    weight : ndarray of float32, shape (nnz,)
        Edge weights in (0, 1].
    relation : ndarray of uint8, shape (nnz,)
        ``Relation.code`` of each edge.
    forward : ndarray of uint8, shape (nnz,)
        1 when the stored edge points row -> neighbour, 0 when it points back.
    """

    indptr: np.ndarray
    indices: np.ndarray
    weight: np.ndarray
    relation: np.ndarray
    forward: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.indptr) - 1

    @classmethod
    def empty(cls, n_nodes: int) -> "CSRGraph":
        return cls(np.zeros(n_nodes + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32),
                   np.zeros(0, np.uint8), np.zeros(0, np.uint8))

    def related(self, nid: int, code: int) -> np.ndarray:
        """The nodes joined to ``nid`` by edges of relation ``code`` (either direction), int64;
        empty for a node past the graph."""
        if nid >= self.n_nodes:
            return np.zeros(0, np.int64)
        lo, hi = int(self.indptr[nid]), int(self.indptr[nid + 1])
        return self.indices[lo:hi][self.relation[lo:hi] == code].astype(np.int64)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"indptr": self.indptr, "indices": self.indices, "weight": self.weight,
                "relation": self.relation, "forward": self.forward}

    def directed_edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The stored (directed) edges as (src, tgt, relation, weight) arrays."""
        rows = np.repeat(np.arange(self.n_nodes, dtype=np.uint32), np.diff(self.indptr))
        f = self.forward.astype(bool)
        return rows[f], self.indices[f].astype(np.uint32), self.relation[f], self.weight[f]


def build_symmetric_csr(src, tgt, rel, weight, n_nodes: int) -> CSRGraph:
    """CSR holding each directed edge at its source row (forward) and its target row (back)."""
    rows = np.concatenate([src, tgt]).astype(np.int64)
    cols = np.concatenate([tgt, src]).astype(np.int32)
    order = np.argsort(rows, kind="stable")
    counts = np.bincount(rows, minlength=n_nodes) if len(rows) else np.zeros(n_nodes, np.int64)
    indptr = np.zeros(n_nodes + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    fwd = np.concatenate([np.ones(len(src), np.uint8), np.zeros(len(src), np.uint8)])
    return CSRGraph(indptr, cols[order], np.concatenate([weight, weight]).astype(np.float32)[order],
                    np.concatenate([rel, rel]).astype(np.uint8)[order], fwd[order])


class MemoryGraph:
    """The in-memory edge set: directed edges, unique on (source, target, relation).

    Recall reads :meth:`csr`. New edges are merged into the existing CSR (one pass that inserts
    them at the ends of their rows, O(nnz + d log d)) instead of re-sorting every edge; a full
    build happens only on first use or after a node is removed. The (source, target, relation)
    -> position map that dedups writes is built on the first write, and the edge arrays of a
    CSR loaded from the snapshot (:meth:`set_csr`) are unpacked on first need, so opening a
    store and recalling pay for neither.
    """

    def __init__(self) -> None:
        self._n = 0
        self._src = np.zeros(1024, np.uint32)
        self._tgt = np.zeros(1024, np.uint32)
        self._rel = np.zeros(1024, np.uint8)
        self._w = np.zeros(1024, np.float32)
        self._pos: dict[tuple[int, int, int], int] | None = {}
        self._csr: CSRGraph | None = None
        self._new: list[int] = []        # edge positions added since the CSR was built
        self._reweighted: list[int] = []  # existing edges whose weight changed since then
        self._csr_lock = threading.RLock()  # readers may ask for the CSR at once (csr())
        self._packed: CSRGraph | None = None   # set_csr's CSR whose edge arrays are not unpacked yet

    def __len__(self) -> int:
        return self._n

    def _unpack(self) -> None:
        """Fill the edge arrays from the CSR given to :meth:`set_csr`, once."""
        if self._packed is None:
            return
        with self._csr_lock:
            csr = self._packed
            if csr is None:
                return
            src, tgt, rel, w = csr.directed_edges()
            n = len(src)
            cap = max(n, 1024)
            arrays = []
            for a, dtype in ((src, np.uint32), (tgt, np.uint32), (rel, np.uint8), (w, np.float32)):
                out = np.zeros(cap, dtype)
                out[:n] = a
                arrays.append(out)
            self._src, self._tgt, self._rel, self._w = arrays
            self._packed = None

    def _grow(self, need: int) -> None:
        self._unpack()
        cap = len(self._src)
        if need <= cap:
            return
        new = max(need, 2 * cap)
        for name in ("_src", "_tgt", "_rel", "_w"):
            old = getattr(self, name)
            arr = np.zeros(new, old.dtype)
            arr[: self._n] = old[: self._n]
            setattr(self, name, arr)

    def _positions(self) -> dict[tuple[int, int, int], int]:
        self._unpack()
        if self._pos is None:
            n = self._n
            keys = zip(self._src[:n].tolist(), self._tgt[:n].tolist(), self._rel[:n].tolist())
            self._pos = dict(zip(keys, range(n)))
        return self._pos

    def upsert_many(self, src, tgt, rel, weight) -> None:
        """Add edges, or set the weight of ones that exist (same source, target, relation)."""
        pos = self._positions()
        self._grow(self._n + len(src))
        for s, t, r, w in zip(np.asarray(src).tolist(), np.asarray(tgt).tolist(),
                              np.asarray(rel).tolist(), np.asarray(weight, np.float32).tolist()):
            key = (s, t, r)
            i = pos.get(key)
            if i is None:
                i = self._n
                self._n += 1
                pos[key] = i
                self._src[i], self._tgt[i], self._rel[i] = s, t, r
                self._new.append(i)
            elif self._w[i] != w:
                self._reweighted.append(i)
            self._w[i] = w

    def has(self, src: int, tgt: int, rel: int) -> bool:
        return (src, tgt, rel) in self._positions()

    def remove_node(self, nid: int) -> None:
        """Drop every edge touching ``nid`` (the next :meth:`csr` is a full build)."""
        self._unpack()
        keep = (self._src[: self._n] != nid) & (self._tgt[: self._n] != nid)
        s, t, r, w = (a[: self._n][keep].copy() for a in (self._src, self._tgt, self._rel, self._w))
        self.__init__()
        self.upsert_many(s, t, r, w)
        self._csr, self._new = None, []

    def set_csr(self, csr: CSRGraph) -> None:
        """Install a CSR loaded from the snapshot and take its edges as the edge set (their
        arrays are unpacked from it on first need)."""
        self.__init__()
        self._n = int(np.count_nonzero(csr.forward))
        self._packed = csr
        self._pos = None
        self._csr = csr

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        self._unpack()
        n = self._n
        return self._src[:n], self._tgt[:n], self._rel[:n], self._w[:n]

    def csr(self, n_nodes: int) -> CSRGraph:
        """The symmetric CSR over ``n_nodes`` nodes (at least as many as it had before).

        Built, or brought up to date with the edges added since, on first use; concurrent
        readers take turns (one folds the new edges in, the others get its result)."""
        csr = self._csr
        if csr is not None and not self._new and not self._reweighted and csr.n_nodes == n_nodes:
            return csr
        with self._csr_lock:
            if self._csr is None:
                merged = build_symmetric_csr(*self.edges(), n_nodes)
            elif self._new or self._reweighted or self._csr.n_nodes != n_nodes:
                merged = self._merge(self._csr, n_nodes)
            else:
                merged = self._csr
            # one statement, no call inside: an interrupt (Ctrl-C) lands before it or after it,
            # never between the new CSR and the cleared lists of what it took in
            self._csr, self._new, self._reweighted = merged, [], []
            return merged

    def _merge(self, old: CSRGraph, n_nodes: int) -> CSRGraph:
        """``old`` plus the new edges (at the ends of their rows) and the changed weights."""
        weight = old.weight.copy() if self._reweighted else old.weight
        added = set(self._new)
        for i in self._reweighted:   # rare: a link repeated with another weight
            if i in added:   # not in ``old`` yet: inserted below with its latest weight
                continue
            s, t, r, w = int(self._src[i]), int(self._tgt[i]), int(self._rel[i]), self._w[i]
            for row, col, fwd in ((s, t, 1), (t, s, 0)):
                lo, hi = old.indptr[row], old.indptr[row + 1]
                hit = lo + np.flatnonzero((old.indices[lo:hi] == col) & (old.relation[lo:hi] == r)
                                          & (old.forward[lo:hi] == fwd))
                weight[hit] = w
        indptr = old.indptr
        if n_nodes > old.n_nodes:
            indptr = np.concatenate([indptr, np.full(n_nodes - old.n_nodes, indptr[-1], np.int64)])
        if not self._new:
            return CSRGraph(indptr, old.indices, weight, old.relation, old.forward)
        idx = np.asarray(self._new, np.int64)
        rows = np.concatenate([self._src[idx], self._tgt[idx]]).astype(np.int64)
        order = np.argsort(rows, kind="stable")
        rows = rows[order]
        at = indptr[rows + 1]          # insert at the end of each row, in edge order
        def ins(arr, values):
            return np.insert(arr, at, values[order])
        new_indptr = indptr.copy()
        new_indptr[1:] += np.cumsum(np.bincount(rows, minlength=n_nodes))
        fwd = np.concatenate([np.ones(len(idx), np.uint8), np.zeros(len(idx), np.uint8)])
        return CSRGraph(new_indptr,
                        ins(old.indices, np.concatenate([self._tgt[idx], self._src[idx]]).astype(np.int32)),
                        ins(weight, np.concatenate([self._w[idx], self._w[idx]])),
                        ins(old.relation, np.concatenate([self._rel[idx], self._rel[idx]])),
                        ins(old.forward, fwd))

    def neighbours(self, nid: int) -> list[tuple[int, int, float, bool]]:
        """(neighbour, relation code, weight, forward) of every edge touching ``nid``."""
        self._unpack()
        out = []
        n = self._n
        for i in np.flatnonzero(self._src[:n] == nid).tolist():
            out.append((int(self._tgt[i]), int(self._rel[i]), float(self._w[i]), True))
        for i in np.flatnonzero(self._tgt[:n] == nid).tolist():
            out.append((int(self._src[i]), int(self._rel[i]), float(self._w[i]), False))
        return out

    def density(self, node_ns: np.ndarray, ns_code: int) -> float:
        """Edges per node with at least one edge, within one namespace (the density gate's input).

        Read off the CSR degrees in O(nodes): every edge sits in two rows, and edges never
        cross namespaces.

        Parameters
        ----------
        node_ns : ndarray of int32, shape (n_nodes,)
            Namespace code of each node.
        ns_code : int
        """
        deg = np.diff(self.csr(len(node_ns)).indptr)
        mine = node_ns == ns_code   # sums over the mask: no copy of the selected degrees
        linked = int(np.count_nonzero((deg != 0) & mine))
        return 0.0 if linked == 0 else float(deg.sum(where=mine)) / 2.0 / linked


def contradicts_nodes(state, csr: CSRGraph) -> tuple[frozenset, np.ndarray]:
    """The nodes a ``contradicts`` edge touches: as a set, and as a bool mask by node id (one
    entry past the largest node, False: :func:`touched_rows` clips larger ids to it). Found by
    one O(edges) pass over the CSR's relation array (a commit that adds or drops edges makes a
    new one; one that only reweights or adds nodes keeps it, and the rows of its entries) and
    cached in ``state.scratch``, keyed by that array (one byte per entry), not the whole CSR, so
    a replaced graph is not kept alive. Read by recall (:mod:`engramdb.recall.ranking`) and by the
    rescoring job (:mod:`engramdb.dynamics.rescore`)."""
    cached = state.scratch.get("contradicts_nodes")
    if cached is None or cached[0] is not csr.relation:
        at = np.flatnonzero(csr.relation == _CONTRADICTS)
        rows = np.unique(np.searchsorted(csr.indptr, at, side="right") - 1)   # the row (node) of each entry
        mark = np.zeros((int(rows[-1]) + 2) if len(rows) else 1, bool)
        mark[rows] = True
        cached = state.scratch["contradicts_nodes"] = (csr.relation, frozenset(rows.tolist()), mark)
    return cached[1], cached[2]
