"""engramdb's exception hierarchy (one base, one class per failure, with fields).

Every error raised by the public API derives from :class:`EngramError`. Input errors also
derive from :class:`ValueError` and lookups from :class:`KeyError`, so generic handlers work.
Errors from LMDB and hnswlib are translated at the boundary into :class:`StoreError` and
:class:`IndexStaleError` subclasses.
"""
from __future__ import annotations

import sys
import warnings

__all__ = [
    "EngramError",
    "InvalidInputError",
    "DimensionMismatchError",
    "NonFiniteError",
    "EmptyTextError",
    "UnknownKindError",
    "UnknownRelationError",
    "OversizeError",
    "ReadOnlyError",
    "ConfigError",
    "MemoryNotFoundError",
    "NamespaceError",
    "StoreError",
    "StoreFullError",
    "StoreCorruptedError",
    "StoreLockedError",
    "StoreNotFoundError",
    "IndexStaleError",
    "BackendUnavailableError",
    "CensoredError",
    "MemoryBlockedError",
    "EmptyNamespaceWarning",
    "StaleSnapshotWarning",
]


class EngramError(Exception):
    """Base class of every error engramdb raises on purpose."""


class InvalidInputError(EngramError, ValueError):
    """An argument is malformed; nothing was written."""


class DimensionMismatchError(InvalidInputError):
    """A vector has the wrong length.

    Attributes
    ----------
    expected, got : int
        The store's dimension and the length that arrived.
    field : str
        Which argument carried the vector.
    """

    def __init__(self, *, expected: int, got: object, field: str = "embedding", hint: str | None = None):
        self.expected, self.got, self.field = expected, got, field
        super().__init__(
            f"{field}: expected dimension {expected}, got {got}; "
            + (hint or f"embed with a model of dimension {expected} (a store's dimension is fixed when it is "
                       f"created; vectors of dimension {got} need a store of their own, at another path)")
        )


class NonFiniteError(InvalidInputError):
    """A vector or number is NaN, infinite, or (for vectors) all zeros."""


class EmptyTextError(InvalidInputError):
    """A text is empty: nothing but whitespace and invisible (format) characters."""


class UnknownKindError(InvalidInputError):
    """A memory kind is not one of :class:`engramdb.MemoryKind`."""


class UnknownRelationError(InvalidInputError):
    """An edge relation is not one of :class:`engramdb.Relation`."""


class OversizeError(InvalidInputError):
    """A text, tag list or batch is larger than the store accepts."""


class ConfigError(EngramError, ValueError):
    """A configuration value is outside its documented bounds."""


class MemoryNotFoundError(EngramError, KeyError):
    """No memory with this id exists in the namespace.

    Attributes
    ----------
    namespace_hint : str
        When the namespace itself holds nothing (a typo, most likely): what the message adds
        about it, naming the store's close namespaces ("no namespace 'wrok'; did you mean
        'work'?"); empty otherwise. A caller that must not show other namespaces' names (a tool
        answering a model for one user) shows ``args[0]``, the message without it.
    """

    def __init__(self, *args: object, namespace_hint: str = "") -> None:
        super().__init__(*args)
        self.namespace_hint = namespace_hint

    def __str__(self) -> str:  # KeyError would repr() the message
        message = str(self.args[0]) if self.args else "memory not found"
        return f"{message}; {self.namespace_hint}" if self.namespace_hint else message


class CensoredError(EngramError):
    """A censor rule refused this: an ``absolute`` rule matched a memory being written (added,
    admitted, imported, superseded or updated), or a read asked for a blocked memory by id.
    Nothing was written. The message names the rule and its reason, never the refused text.

    Attributes
    ----------
    rule_id : str
        The id of the censor rule that matched.
    action : str
        Its action (``"block"`` or ``"absolute"``).
    """

    def __init__(self, message: str, *, rule_id: str, action: str):
        super().__init__(message)
        self.rule_id = rule_id
        self.action = action


class MemoryBlockedError(CensoredError, MemoryNotFoundError):
    """A read verb asked by id for a memory that a ``block`` or ``absolute`` censor rule keeps
    out of every answer (``get``, ``edges``, ``salience``, ``history``; ``update`` and
    ``supersede`` of it too). It is a :class:`MemoryNotFoundError`, so a caller that treats a
    missing memory as absent treats a blocked one the same way."""


class NamespaceError(EngramError):
    """A namespace name is invalid, names no namespace of the store, or an operation would cross
    namespaces.

    Attributes
    ----------
    namespace : str or None
        The name given, when it is a string.
    suggestions : tuple of str
        Existing namespaces close to ``namespace`` (``difflib.get_close_matches``), best first.
    """

    def __init__(self, message: str, *, namespace: str | None = None, suggestions: tuple[str, ...] = ()):
        super().__init__(message)
        self.namespace = namespace
        self.suggestions = tuple(suggestions)


class StoreError(EngramError):
    """The LMDB store failed; the message carries the LMDB error."""


class StoreFullError(StoreError):
    """The LMDB map is full; reopen with a larger ``map_size_bytes``."""


class StoreCorruptedError(StoreError):
    """A record in the store cannot be decoded, or the store's schema is unknown."""


class StoreLockedError(StoreError):
    """Another process holds the store's lock."""


class ReadOnlyError(StoreError):
    """A write verb was called on a store opened with ``readonly=True``."""


class StoreNotFoundError(StoreError):
    """The store directory does not exist (and ``create=False``) or is not readable."""


class IndexStaleError(EngramError):
    """A vector index does not match the store and could not be rebuilt."""


class BackendUnavailableError(EngramError, ImportError):
    """A kernel backend forced by ``ENGRAMDB_KERNELS`` cannot be loaded."""


def warn_caller(warning: Warning) -> None:
    """Issue ``warning`` (a :class:`Warning` instance) at the first frame outside engramdb: the
    line of the caller's code that called the verb, whatever depth of engramdb lies between."""
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("engramdb."):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)


class StaleSnapshotWarning(UserWarning):
    """A read-only open rebuilt the column or keyword snapshot from the records (an older engramdb
    wrote it, or it is damaged) and cannot save it: every such open pays the rebuild again until
    the store is opened writable once. (A snapshot that a writer still open has yet to save is
    rebuilt too, without a warning: the writer saves it when it flushes or closes.)"""


class EmptyNamespaceWarning(UserWarning):
    """A read of the default namespace, which holds no memories, in a store whose memories are in
    other namespaces: the empty answer is most likely a missing ``namespace=``."""
