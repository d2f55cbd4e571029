"""Argument checks and time parsing, in one place, and the one clock.

Every public verb checks its arguments here before it reads or writes anything, so one bad
value gets the same error class and message whichever verb received it (scikit-learn keeps its
parameter validation in one module for the same reason). Nothing here touches the store.

The clock: every "now" of the engine comes from :func:`now`. Tests replace it with
:func:`engramdb.testing.frozen_clock` instead of patching ``time.time`` in several modules.
"""
from __future__ import annotations

import functools
import inspect
import math
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from .errors import (
    DimensionMismatchError, EmptyTextError, InvalidInputError, NamespaceError, NonFiniteError, OversizeError,
)
from .types import MemoryKind, Relation

__all__ = [
    "now", "use_clock", "time_or_now", "to_unix_seconds", "check_namespace", "check_id", "check_fraction", "check_int",
    "as_list", "kind_table", "tag_set", "edge_fields", "check_link_spec", "check_weight", "check_vector", "check_text",
    "encodable", "strict_flags", "MAX_NAMESPACE_CHARS", "MAX_ID_CHARS", "MAX_TAGS", "MIN_NORM",
]

MAX_NAMESPACE_CHARS = 256
MAX_ID_CHARS = 512
MAX_TAGS = 256
MIN_NORM = 1e-12   # shorter vectors have no reliable direction in float32
_MAX_ABS_SECONDS = 253_402_300_799.0  # 9999-12-31T23:59:59Z; also bounds year 1 from below

_clock: Callable[[], float] = time.time


def now() -> float:
    """The engine's current time, Unix seconds (float64): the wall clock unless replaced by
    :func:`use_clock`."""
    return _clock()


@contextmanager
def use_clock(clock: Callable[[], float]) -> Iterator[None]:
    """Replace the engine's clock with ``clock`` (a callable returning Unix seconds) inside the
    ``with`` block; every module reads the time through :func:`now`. Not thread-safe: meant
    for tests and simulations (see :func:`engramdb.testing.frozen_clock`)."""
    global _clock
    before = _clock
    _clock = clock
    try:
        yield
    finally:
        _clock = before


def to_unix_seconds(value: Any, *, field: str = "created_at") -> float:
    """Unix seconds (float) from a number, a numeric string, a ``datetime`` or an ISO-8601 string.

    Naive datetimes and ISO strings without an offset are taken as UTC.

    Parameters
    ----------
    value : int, float, str or datetime
    field : str
        Name used in error messages.

    Returns
    -------
    float
        Unix seconds, within the years 1 to 9999.

    Raises
    ------
    InvalidInputError
        The value is none of these, or an unparseable string.
    NonFiniteError
        A number that is NaN or infinite.
    """
    if isinstance(value, bool):
        raise InvalidInputError(f"{field}: expected Unix seconds or ISO-8601, got a bool")
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            raise NonFiniteError(f"{field}: expected a finite number of Unix seconds, got {value!r}")
        if not -_MAX_ABS_SECONDS <= v <= _MAX_ABS_SECONDS:
            raise InvalidInputError(f"{field}: {value!r} Unix seconds is outside the years 1 to 9999")
        return v
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None  # not a number: try ISO-8601
        if number is not None:
            return to_unix_seconds(number, field=field)
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidInputError(
                f"{field}: {value!r} is not ISO-8601 (e.g. 2023-05-08T13:56:00Z) nor Unix seconds"
            ) from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.timestamp()
    raise InvalidInputError(f"{field}: expected Unix seconds or ISO-8601, got {type(value).__name__}")


def time_or_now(value: Any, field: str = "now") -> float:
    """:func:`to_unix_seconds` of ``value``, or :func:`now` when it is None."""
    return now() if value is None else to_unix_seconds(value, field=field)


def encodable(value: str) -> bool:
    """Whether ``value`` encodes as UTF-8 (no lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _name_ok(value: Any, max_chars: int) -> bool:
    return (isinstance(value, str) and bool(value) and "\x00" not in value and len(value) <= max_chars
            and encodable(value))


def check_namespace(ns: Any) -> str:
    """A namespace name: a non-empty UTF-8 string of at most 256 characters without NUL.

    Raises
    ------
    NamespaceError
    """
    if not _name_ok(ns, MAX_NAMESPACE_CHARS):
        raise NamespaceError(f"namespace must be a non-empty string of at most {MAX_NAMESPACE_CHARS} "
                             f"characters without NUL, got {ns!r}")
    return ns


def check_id(value: Any, field: str = "id") -> str:
    """A memory id: a non-empty UTF-8 string of at most 512 characters without NUL.

    Raises
    ------
    InvalidInputError
    """
    if not _name_ok(value, MAX_ID_CHARS):
        raise InvalidInputError(f"{field} must be a non-empty UTF-8 string of at most {MAX_ID_CHARS} "
                                f"characters without NUL, got {value!r}")
    return value


def check_fraction(value: Any, field: str, *, open_zero: bool = False) -> float:
    """A real number in [0, 1] (or (0, 1] with ``open_zero``); bools and strings are refused.

    Raises
    ------
    InvalidInputError, NonFiniteError
    """
    expected = f"{field}: expected a number in {'(' if open_zero else '['}0, 1]"
    if isinstance(value, (bool, str, bytes)):
        raise InvalidInputError(f"{expected}, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{expected}, got {value!r}") from None
    if not math.isfinite(v):
        raise NonFiniteError(f"{expected}, got {value!r}")
    if not (0.0 < v if open_zero else 0.0 <= v) or v > 1.0:
        raise InvalidInputError(f"{expected}, got {value!r}")
    return v


def check_int(value: Any, field: str, low: int, high: int) -> int:
    """An integer (not a bool) in [low, high].

    Raises
    ------
    InvalidInputError
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidInputError(f"{field}: expected an integer in [{low}, {high}], got {value!r}")
    return int(value)


def as_list(value: Any, field: str) -> list:
    """``value`` (any iterable but a string or mapping) as a list.

    Raises
    ------
    InvalidInputError
    """
    if isinstance(value, (str, bytes, Mapping)):
        raise InvalidInputError(f"{field}: expected a list, got {type(value).__name__}")
    try:
        return list(value)
    except TypeError:
        raise InvalidInputError(f"{field}: expected a list, got {type(value).__name__}") from None


def kind_table(kinds: Any, field: str) -> np.ndarray | None:
    """Lookup table (bool, by ``MemoryKind.code``) of the kinds a filter keeps; None keeps all.

    Raises
    ------
    InvalidInputError, UnknownKindError
        Not a kind or a list of kinds, or an empty list (it would match nothing).
    """
    if kinds is None:
        return None
    kinds = [kinds] if isinstance(kinds, (str, MemoryKind)) else as_list(kinds, field)
    if not kinds:
        raise InvalidInputError(f"{field}=[] matches nothing; pass None for every kind")
    table = np.zeros(len(MemoryKind), bool)
    table[[MemoryKind.parse(x).code for x in kinds]] = True
    return table


def tag_set(tags: Any) -> frozenset[str] | None:
    """The tags a filter requires (every one of them); None or an empty list requires none.

    Raises
    ------
    InvalidInputError
        Not a string or a list of non-empty strings.
    """
    if tags is None:
        return None
    tags = [tags] if isinstance(tags, str) else as_list(tags, "tags")
    if not all(isinstance(t, str) and t for t in tags):
        raise InvalidInputError(f"tags: expected non-empty strings, got {tags!r}")
    return frozenset(tags) or None


def edge_fields(spec: Any, names: tuple[str, ...], required: int, what: str) -> list[Any]:
    """Fields of an edge given as a mapping or a tuple; a missing relation is ``related_to``, a
    missing (or None) weight None: the write path picks it (:func:`engramdb.contiguity.default_weight`).

    Raises
    ------
    InvalidInputError
    """
    defaults = {"relation": Relation.RELATED_TO, "weight": None}
    if isinstance(spec, Mapping):
        unknown = set(spec) - set(names)
        if unknown:
            raise InvalidInputError(f"{what}: unknown key(s) {sorted(unknown)}; the keys are {list(names)}")
        return [spec.get(n, defaults.get(n)) for n in names]
    if isinstance(spec, (tuple, list)) and required <= len(spec) <= len(names):
        return list(spec) + [defaults[n] for n in names[len(spec):]]
    raise InvalidInputError(f"{what} is {names} (the first {required} required), got {spec!r}")


def check_link_spec(spec: Any) -> tuple[str, Relation, float | None]:
    """A link of a new memory, ``{"to", "relation", "weight"}`` or a tuple, as (id, Relation, weight).

    A link without a weight gives None: the write path picks it
    (:func:`engramdb.contiguity.default_weight`).

    Raises
    ------
    InvalidInputError, UnknownRelationError, NonFiniteError
    """
    to, rel, w = edge_fields(spec, ("to", "relation", "weight"), 1, "a link")
    return check_id(to, "link target"), Relation.parse(rel), check_weight(w)


def check_weight(w: Any) -> float | None:
    """An edge weight in (0, 1], or None (not given).

    Raises
    ------
    InvalidInputError, NonFiniteError
    """
    return None if w is None else check_fraction(w, "weight", open_zero=True)


def check_vector(vec: Any, dim: int, field: str = "embedding") -> np.ndarray:
    """One finite vector of ``dim`` floats, normalised to unit length (float32, shape (dim,)).

    Raises
    ------
    InvalidInputError
        Not a 1-d sequence of real numbers.
    DimensionMismatchError
        Wrong length.
    NonFiniteError
        NaN, inf, or a norm below 1e-12 (no reliable direction).
    """
    if np.iscomplexobj(vec):
        raise InvalidInputError(f"{field}: expected real numbers, got a complex vector")
    try:
        arr = np.asarray(vec, dtype=np.float32)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{field}: expected a sequence of {dim} floats") from None
    if arr.ndim != 1:
        raise InvalidInputError(f"{field}: expected one vector of shape ({dim},), got shape {arr.shape}")
    if arr.shape[0] != dim:
        raise DimensionMismatchError(expected=dim, got=arr.shape[0], field=field)
    if not np.isfinite(arr).all():
        raise NonFiniteError(f"{field}: the vector contains NaN or infinite values")
    wide = arr.astype(np.float64)   # float64: huge or tiny float32 entries neither overflow nor vanish
    norm = math.sqrt(wide.dot(wide))   # what np.linalg.norm computes for a real vector, without its wrapper
    if norm < MIN_NORM or not math.isfinite(norm):
        raise NonFiniteError(f"{field}: the vector is all zeros or has a norm below {MIN_NORM:g}; "
                             "it has no reliable direction")
    return (wide / norm).astype(np.float32)


def check_text(text: Any, max_chars: int, field: str = "text") -> str:
    """A non-empty, valid Unicode string of at most ``max_chars`` characters.

    Raises
    ------
    InvalidInputError, EmptyTextError, OversizeError
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{field}: expected a string, got {type(text).__name__}")
    if not text.strip():
        raise EmptyTextError(f"{field}: the text is empty; store something to remember")
    if not encodable(text):
        raise InvalidInputError(f"{field}: the text is not valid Unicode (lone surrogate)")
    if len(text) > max_chars:
        raise OversizeError(f"{field}: {len(text)} characters, more than max_text_chars={max_chars}; "
                            "split it or raise StoreConfig.max_text_chars")
    return text


def _flags(fn: Callable) -> dict[str, bool]:
    """Keyword-only parameters of ``fn`` annotated ``bool`` -> whether None is allowed too."""
    out = {}
    for p in inspect.signature(fn).parameters.values():
        ann = str(p.annotation).replace(" ", "")
        if p.kind is p.KEYWORD_ONLY and ann in ("bool", "bool|None", "None|bool"):
            out[p.name] = ann != "bool"
    return out


def _checked(fn: Callable, flags: dict[str, bool]) -> Callable:
    @functools.wraps(fn)
    def call(*args, **kwargs):
        for name, optional in flags.items():
            if name in kwargs:
                value = kwargs[name]
                if not (value is True or value is False or isinstance(value, np.bool_)
                        or (optional and value is None)):
                    hint = "; the string is not read as a flag" if isinstance(value, str) else ""
                    raise InvalidInputError(f"{name} must be True or False{' (or None)' if optional else ''}, "
                                            f"got {value!r} ({type(value).__name__}){hint}")
        return fn(*args, **kwargs)
    return call


def strict_flags(obj):
    """Decorator of a class (each public method) or a function: a keyword-only parameter
    annotated ``bool`` (or ``bool | None``) takes True, False (or None) only; anything else
    raises :class:`InvalidInputError` before the call runs. Python's truthiness would read
    ``forget(id, hard="false")`` as an erase."""
    if inspect.isclass(obj):
        for name, fn in list(vars(obj).items()):
            if not name.startswith("_") and inspect.isfunction(fn) and (flags := _flags(fn)):
                setattr(obj, name, _checked(fn, flags))
        return obj
    flags = _flags(obj)
    return _checked(obj, flags) if flags else obj
