"""engramdb: an embedded recall engine for the long-term memory of AI agents.

``engramdb.open(path)`` returns an :class:`Engram` with the verbs ``add``,
``add_batch``, ``get``, ``link``, ``recall``, ``supersede``, ``update``, ``history``, ``query``,
``forget``, ``stats`` and ``close``.
Recall seeds from a per-namespace hnswlib index and spreads activation over a typed memory graph
stored as CSR arrays in LMDB.
"""
from .config import (
    DecayConfig, EngramConfig, IndexConfig, LinkConfig, RecallConfig, StoreConfig,
)
from .config import SlotConfig
from .config import AdmissionConfig, ForgettingConfig
from .dynamics import AdmissionDecision
from .engine import Engram, open, to_unix_seconds
from .errors import (
    BackendUnavailableError, ConfigError, DimensionMismatchError, EmptyTextError, EngramError,
    IndexStaleError, InvalidInputError, MemoryNotFoundError, NamespaceError, NonFiniteError,
    OversizeError, StoreCorruptedError, StoreError, StoreFullError, StoreLockedError,
    StoreNotFoundError, UnknownKindError, UnknownRelationError,
)
from .types import Edge, Gap, Hit, Memory, MemoryKind, MemoryState, PathStep, RecallResult, Relation
from .temporal import HistoryEntry
from .types import Contradiction

__version__ = "0.1.0"

__all__ = sorted([
    "BackendUnavailableError", "ConfigError", "DecayConfig", "DimensionMismatchError", "Edge",
    "EmptyTextError", "EngramConfig", "Engram", "EngramError", "Gap", "Hit", "IndexConfig",
    "IndexStaleError", "InvalidInputError", "LinkConfig", "Memory", "MemoryKind",
    "MemoryNotFoundError", "MemoryState", "NamespaceError", "NonFiniteError", "OversizeError",
    "PathStep", "RecallConfig", "RecallResult", "Relation", "StoreConfig", "StoreCorruptedError",
    "StoreError", "StoreFullError", "StoreLockedError", "StoreNotFoundError", "UnknownKindError",
    "UnknownRelationError", "open", "to_unix_seconds", "__version__",
    "Contradiction", "HistoryEntry", "SlotConfig",
    "AdmissionConfig", "AdmissionDecision", "ForgettingConfig",
])
