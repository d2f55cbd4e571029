"""LMDB storage: the source of truth for memories, embeddings, edges and the CSR snapshot."""
from .lmdb_store import LmdbStore

__all__ = ["LmdbStore"]
