"""Vector indexes: one hnswlib index per namespace, and ExactIndex, its brute-force twin."""
from .hnsw import ExactIndex, HnswIndex, exact_cosines

__all__ = ["ExactIndex", "HnswIndex", "exact_cosines"]
