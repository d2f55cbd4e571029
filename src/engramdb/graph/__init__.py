"""The memory graph as CSR arrays: a snapshot persisted in LMDB plus a delta of newer edges."""
from .csr import CSRGraph, MemoryGraph

__all__ = ["CSRGraph", "MemoryGraph"]
