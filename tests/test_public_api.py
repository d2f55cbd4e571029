"""The public surface is pinned: a change to it must change this test."""
import engramdb
from engramdb.kernels import reference
from engramdb.types import Relation


def test_all_is_pinned():
    assert engramdb.__all__ == sorted([
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
        "CalibrationReport", "DecisionInfo", "LedgerEntry", "LedgerReport",
        "ShardedEngram", "open_sharded", "StaleSnapshotWarning",
    ])
    for name in engramdb.__all__:
        assert hasattr(engramdb, name)


def test_engine_verbs():
    for verb in ("add", "add_batch", "get", "link", "link_batch", "recall", "supersede", "forget",
                 "stats", "close", "flush", "edges", "namespaces", "salience",
                 "update", "history", "query",
                 "admit_batch", "review", "rescore", "dynamics_log", "export", "import_from",
                 "namespace", "drop_namespace", "compact", "decide", "calibration", "censor", "censors",
                 "remove_censor", "ledger", "verify_ledger", "export_ledger", "acting_as"):
        assert callable(getattr(engramdb.Engram, verb)), verb
        assert getattr(engramdb.Engram, verb).__doc__


def test_relation_codes_match_kernels():
    assert tuple(r.value for r in Relation) == tuple(reference.RELATION_NAMES)
    assert Relation.CONTRADICTS.code == reference.CONTRADICTS
