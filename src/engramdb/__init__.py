"""engramdb: an embedded recall engine for the long-term memory of AI agents.

``engramdb.open(path)`` returns an :class:`Engram` with the verbs ``add``,
``add_batch``, ``get``, ``link``, ``recall``, ``supersede``, ``update``, ``history``, ``query``,
``forget``, ``stats`` and ``close``.
Recall seeds from a per-namespace hnswlib index and spreads activation over a typed memory graph
stored as CSR arrays in LMDB.

Importing the package is light: only the error classes load at once. Every other public name
(``open``, ``Engram``, the config and result types) is imported from its module on first use
(PEP 562 module ``__getattr__``), so ``import engramdb`` and ``engramdb --help`` do not pay for
numpy, hnswlib, LMDB and the engine (``python benchmarks/bench_import.py``).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    BackendUnavailableError, CensoredError, ConfigError, DimensionMismatchError, EmptyNamespaceWarning,
    EmptyTextError, EngramError,
    IndexStaleError, InvalidInputError, MemoryBlockedError, MemoryNotFoundError, NamespaceError, NonFiniteError,
    OversizeError, ReadOnlyError, StoreCorruptedError, StoreError, StoreFullError, StoreLockedError,
    StaleSnapshotWarning, StoreNotFoundError, UnknownKindError, UnknownRelationError,
)

if TYPE_CHECKING:   # what the lazy names resolve to, for type checkers and IDEs
    from .config import (
        AdmissionConfig, ConsolidationConfig, DecayConfig, EngramConfig, ForgettingConfig, IndexConfig,
        LinkConfig, RecallConfig, SlotConfig, StoreConfig,
    )
    from .decisions import CalibrationReport
    from .dynamics import AdmissionDecision
    from .engine import Engram, open, to_unix_seconds
    from .censor import CensorRule
    from .store.ledger import LedgerEntry, LedgerReport
    from .sharding import ShardedEngram, open_sharded
    from .temporal import HistoryEntry
    from .types import (
        Contradiction, DecisionInfo, Edge, Gap, Hit, Memory, MemoryKind, MemoryState, PathStep, RecallResult,
        Relation,
    )

__version__ = "0.1.0"

# public name -> the submodule that defines it, imported on first access
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Engram", "open", "to_unix_seconds"), "engine"),
    **dict.fromkeys(("AdmissionConfig", "ConsolidationConfig", "DecayConfig", "EngramConfig", "ForgettingConfig",
                     "IndexConfig", "LinkConfig", "RecallConfig", "SlotConfig", "StoreConfig"),
                    "config"),
    **dict.fromkeys(("Contradiction", "Edge", "Gap", "Hit", "Memory", "MemoryKind", "MemoryState",
                     "PathStep", "RecallResult", "Relation"), "types"),
    "AdmissionDecision": "dynamics",
    "HistoryEntry": "temporal",
    "CensorRule": "censor",
    "CalibrationReport": "decisions",
    "DecisionInfo": "types",
    **dict.fromkeys(("LedgerEntry", "LedgerReport"), "store.ledger"),
    **dict.fromkeys(("ShardedEngram", "open_sharded"), "sharding"),
}


def __getattr__(name: str) -> Any:
    """Import the module behind a lazy public name and cache the name in the package."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted([
    "BackendUnavailableError", "ConfigError", "ConsolidationConfig", "DecayConfig", "DimensionMismatchError", "Edge",
    "EmptyTextError", "EngramConfig", "Engram", "EngramError", "Gap", "Hit", "IndexConfig",
    "IndexStaleError", "InvalidInputError", "LinkConfig", "Memory", "MemoryKind",
    "MemoryNotFoundError", "MemoryState", "NamespaceError", "NonFiniteError", "OversizeError",
    "PathStep", "ReadOnlyError", "RecallConfig", "RecallResult", "Relation", "StoreConfig", "StoreCorruptedError",
    "StoreError", "StoreFullError", "StoreLockedError", "StoreNotFoundError", "UnknownKindError",
    "UnknownRelationError", "open", "to_unix_seconds", "__version__",
    "Contradiction", "HistoryEntry", "SlotConfig",
    "AdmissionConfig", "AdmissionDecision", "ForgettingConfig",
    "CensoredError", "MemoryBlockedError", "CensorRule",
    "CalibrationReport", "DecisionInfo",
    "LedgerEntry", "LedgerReport",
    "ShardedEngram", "open_sharded", "StaleSnapshotWarning",
])
