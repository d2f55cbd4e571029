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
import re
import time
import unicodedata
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from .errors import (
    DimensionMismatchError, EmptyTextError, InvalidInputError, NamespaceError, NonFiniteError, OversizeError,
)
from .types import MemoryKind, Relation

__all__ = [
    "now", "use_clock", "time_or_now", "to_unix_seconds", "until_seconds", "utc_text", "check_namespace", "check_id", "check_fraction", "check_int",
    "as_list", "kind_table", "tag_set", "edge_fields", "check_link_spec", "check_user_relation", "check_weight", "check_vector", "check_text",
    "check_query", "is_blank", "plain_str", "check_user_id", "reserved_form", "RESERVED_IDS", "RESERVED_TAGS", "check_user_tags", "check_iterable", "encodable", "strict_flags",
    "MAX_NAMESPACE_CHARS", "MAX_ID_CHARS", "MAX_TAGS", "MIN_NORM",
]

MAX_NAMESPACE_CHARS = 256
MAX_ID_CHARS = 512
MAX_TAGS = 256
MIN_NORM = 1e-12   # shorter vectors have no reliable direction in float32
_FLOAT32_MAX = float(np.finfo(np.float32).max)

#: The id forms of the nodes the engine makes itself, as (pattern, form, what it names). A
#: caller's new memory or link may not take one (:func:`check_user_id`): the engine would later
#: make the same id (a long text's pieces, the next entity node) or read the caller's memory as
#: its own node. Import still takes them (an export holds the engine's nodes). Made by
#: ``conversation`` (entities, sessions), ``dynamics.consolidate`` (summaries, facts),
#: ``batch_plan`` (pieces: ``chunk_id``, ``block_id``) and ``decisions`` (outcomes).
RESERVED_IDS = (
    (re.compile(r"E:.*", re.S), "'E:<entity>'", "entity nodes (add_conversation)"),
    (re.compile(r"S:.*", re.S), "'S:<session>'", "session nodes (add_conversation)"),
    (re.compile(r"sum:.*", re.S), "'sum:<session>'", "session summaries (sleep / consolidate)"),
    (re.compile(r"fact:.*", re.S), "'fact:...'", "promoted facts (sleep / consolidate)"),
    (re.compile(r"(.+)#p?[0-9]+", re.S), "'<id>#<n>' / '<id>#p<n>'",
     "the pieces of a long memory (it would be a piece of memory {base!r})"),
    (re.compile(r".+:outcome:[0-9]+|outcome:[0-9a-f]{32}", re.S), "'<id>:outcome:<n>'",
     "the outcomes of a decision (review)"),
)
_END_SECONDS = 253_402_300_800.0   # 10000-01-01T00:00:00Z: the first instant past year 9999
_MIN_SECONDS = -62_135_596_800.0   # 0001-01-01T00:00:00Z

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


def utc_text(t: float) -> str:
    """Unix seconds as ISO-8601 UTC to the second (``2024-05-01T12:00:00Z``), for messages."""
    return datetime.fromtimestamp(float(t), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def to_unix_seconds(value: Any, *, field: str = "created_at") -> float:
    """Unix seconds (float) from a number, a numeric string, a ``datetime``, a ``date`` (its first
    instant) or an ISO-8601 string (a period, "2025", "2025-05" or "2025-W22", is its first
    instant: :func:`until_seconds`).

    Naive datetimes and ISO strings without an offset are taken as UTC.

    Parameters
    ----------
    value : int, float, str, datetime or date
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
        if not _MIN_SECONDS <= v < _END_SECONDS:
            hint = ("; it looks like milliseconds: divide by 1000" if _MIN_SECONDS <= v / 1000 < _END_SECONDS
                    and abs(v) >= 1e11 else "")
            raise InvalidInputError(f"{field}: {value!r} Unix seconds is outside the years 1 to 9999 (UTC){hint}")
        return v
    span = _period(value, field)
    if span is not None:   # "2025", "2025-05", "2025-05-08", a date: the period's first instant
        return span[0]
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
        v = value.timestamp()
        if not _MIN_SECONDS <= v < _END_SECONDS:   # an offset can move a time past year 1 or 9999
            raise InvalidInputError(f"{field}: {value.isoformat()} is outside the years 1 to 9999 in UTC")
        return v
    raise InvalidInputError(f"{field}: expected Unix seconds or ISO-8601, got {type(value).__name__}")


def until_seconds(value: Any, *, field: str = "until", inclusive: bool = True) -> float:
    """The inclusive upper bound of a time range in Unix seconds: :func:`to_unix_seconds`, except
    that a period (``"2025"``, ``"2025-05"``, ``"2025-05-31"``, ``"20250531"``, ``"2025-W22"``,
    ``"2025-05-31T13"``, ``"2025-05-31T13:56+02:00"``, ``"2025-05-31T13:56:30"``: a time without a
    fraction of a second is the whole second, minute or hour it names, UTC unless it gives an
    offset; a ``date``) stands for its last instant, so ``until="2025-05-31"`` keeps the whole of
    31 May (its first instant would drop the day).

    Parameters
    ----------
    value : int, float, str, datetime or date
        As for :func:`to_unix_seconds`.
    field : str
        Name used in error messages.
    inclusive : bool
        The bound is compared with ``<=`` (recall's and query's ``until``); False: with ``<``
        (the ledger's), and a period's bound is the next period's first instant.

    Returns
    -------
    float
        Unix seconds; for an inclusive period bound, the largest float64 before the next
        period's first instant (``created_at <= bound`` then holds exactly for the instants of
        the period and before).

    Raises
    ------
    InvalidInputError, NonFiniteError
        As :func:`to_unix_seconds`.
    """
    span = _period(value, field)
    if span is not None:
        return math.nextafter(span[1], -math.inf) if inclusive else span[1]
    return to_unix_seconds(value, field=field)


#: ISO 8601 dates and times short of a fraction of a second: year, month, day, hour, minute,
#: second, in the extended (2025-05-31T13:56) or basic (20250531T1356) form, with an optional
#: offset (Z, +02:00; none is UTC); and ISO weeks (2025-W22, a day of one: 2025-W22-6). ASCII
#: digits only.
_PERIOD_RE = re.compile(
    r"\s*(?P<y>[0-9]{4})(?:(?P<dash>-?)(?P<mo>[0-9]{2})(?:(?P=dash)(?P<d>[0-9]{2})"
    r"(?:[Tt ](?P<h>[0-9]{2})(?::?(?P<mi>[0-9]{2})(?::?(?P<s>[0-9]{2}))?)?"
    r"(?P<tz>[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?)?)?)?\s*")
_WEEK_RE = re.compile(r"\s*(?P<y>[0-9]{4})-?W(?P<w>[0-9]{2})(?:-?(?P<wd>[0-9]))?\s*")


def _period(value: Any, field: str) -> tuple[float, float] | None:
    """:func:`_period_span` of a string (a ``date``: its day), checked to start within the years
    1 to 9999 (UTC); None for any other value."""
    if isinstance(value, date) and not isinstance(value, datetime):
        value = value.isoformat()
    if not isinstance(value, str):
        return None
    text = value
    span = _period_span(text, field)
    if span is not None and not _MIN_SECONDS <= span[0] < _END_SECONDS:   # an offset can move it out
        raise InvalidInputError(f"{field}: {text!r} is outside the years 1 to 9999 in UTC")
    return span


def _period_span(text: str, field: str) -> tuple[float, float] | None:
    """(first instant, first instant of the next period) in Unix seconds of the period that
    ``text`` names (:func:`until_seconds`): a year, month, day, hour, minute or second, or an ISO
    week or day of one; None when it names none (a number of seconds, an instant with a fraction
    of a second, or no time at all). A string of 4 digits is a year and one of 8 digits that is a
    date a basic-form date, not seconds (2025 seconds is 33 minutes into 1970, which nobody
    writes as a string to mean it); "2025-5", "202505" and "12345678" (no date) name no period.

    Raises
    ------
    InvalidInputError
        The form of a period with a field out of range ("2025-02-30", "2025-W54").
    """
    w = _WEEK_RE.fullmatch(text)
    if w is not None:
        try:
            day = date.fromisocalendar(int(w["y"]), int(w["w"]), int(w["wd"] or 1))
        except ValueError as exc:
            raise InvalidInputError(f"{field}: {text!r} is no ISO week ({exc})") from None
        first = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        return _span(first, "d" if w["wd"] else "w")
    m = _PERIOD_RE.fullmatch(text)
    if m is None:
        return None
    if m["mo"] is not None and not m["dash"] and m["d"] is None:
        return None   # six digits: "202505" is no ISO form
    try:
        tz = timezone.utc
        if m["tz"] and m["tz"] not in "Zz":
            sign = -1 if m["tz"][0] == "-" else 1
            digits = m["tz"][1:].replace(":", "")
            tz = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0)))
        first = datetime(int(m["y"]), int(m["mo"] or 1), int(m["d"] or 1), int(m["h"] or 0), int(m["mi"] or 0),
                         int(m["s"] or 0), tzinfo=tz)
    except ValueError as exc:
        if not m["dash"] and m["h"] is None and m["mo"] is not None:
            return None   # eight digits that are no date: seconds
        raise InvalidInputError(f"{field}: {text!r} is no date ({exc})") from None
    unit = next(u for u in ("s", "mi", "h", "d", "mo", "y") if m[u] is not None)
    return _span(first, unit)


#: The length of a period, by its finest field (months and years are no fixed length).
_STEPS = {"s": timedelta(seconds=1), "mi": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1),
          "w": timedelta(days=7)}


def _span(first: datetime, unit: str) -> tuple[float, float]:
    """(first, the first instant of the next period) in Unix seconds, for a period of ``unit``
    (a key of :data:`_STEPS`, ``"mo"`` or ``"y"``); a period past the end of year 9999 ends with
    the calendar."""
    try:
        if unit == "mo":
            nxt = first.replace(year=first.year + (first.month == 12), month=first.month % 12 + 1)
        elif unit == "y":
            nxt = first.replace(year=first.year + 1)
        else:
            nxt = first + _STEPS[unit]
        last = nxt.timestamp()
    except (OverflowError, ValueError):
        last = _END_SECONDS
    return first.timestamp(), last


def time_or_now(value: Any, field: str = "now") -> float:
    """:func:`to_unix_seconds` of ``value``, or :func:`now` when it is None."""
    return now() if value is None else to_unix_seconds(value, field=field)


def plain_str(value: str) -> str:
    """``value`` as an exact ``str``: a subclass's copy (its own ``__eq__``, ``__hash__`` or
    methods could raise, or answer differently, when the engine compares, hashes or stores it
    later, after a commit)."""
    return value if type(value) is str else str.__str__(value)


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
    return plain_str(ns)


def check_id(value: Any, field: str = "id") -> str:
    """A memory id: a non-empty UTF-8 string of at most 512 characters without NUL.

    Raises
    ------
    InvalidInputError
    """
    if not _name_ok(value, MAX_ID_CHARS):
        raise InvalidInputError(f"{field} must be a non-empty UTF-8 string of at most {MAX_ID_CHARS} "
                                f"characters without NUL, got {value!r}")
    return plain_str(value)


def reserved_form(value: str) -> str | None:
    """The reserved id form ``value`` takes and what the engine makes with it
    (:data:`RESERVED_IDS`), or None for an id a caller may give."""
    for pattern, form, what in RESERVED_IDS:
        m = pattern.fullmatch(value)
        if m:
            return f"{form}, which the engine reserves for " + what.format(base=m.group(1) if m.groups() else None)
    return None


#: Tags the engine puts on the nodes it makes, which change how a memory carrying one is
#: treated: recall keeps session and entity nodes out of its hits (``types.CONNECTOR_TAGS``), a
#: piece is shown as its memory (``types.PIECE_TAG``), consolidation reads summaries back. A
#: caller's memory may not carry them: it would be hidden or misread. (``fact``, the tag of
#: consolidation's promoted facts, is a caller's tag like any other.)
RESERVED_TAGS = {"session": "session nodes (add_conversation)", "entity": "entity nodes (add_conversation)",
                 "piece": "the pieces of a long memory", "summary": "session summaries (consolidate)"}


def check_user_tags(tags, field: str = "tags") -> None:
    """Refuse a caller's tag the engine reserves for its own nodes (:data:`RESERVED_TAGS`).

    Raises
    ------
    InvalidInputError
        Naming the tag, what the engine marks with it, and the fix.
    """
    for t in tags:
        what = RESERVED_TAGS.get(t)
        if what is not None:
            raise InvalidInputError(f"{field}: {t!r} is a tag the engine reserves for {what} (recall and "
                                    f"consolidation treat a memory carrying it as one of them); use another "
                                    f"tag, e.g. {t + '-note'!r}")


def check_user_id(value: Any, field: str = "id") -> str:
    """A caller's id of a memory it adds, links or updates: :func:`check_id`, and not of a form the
    engine reserves for the nodes it makes (:data:`RESERVED_IDS`).

    Raises
    ------
    InvalidInputError
    """
    value = check_id(value, field)
    form = reserved_form(value)
    if form is not None:
        raise InvalidInputError(f"{field} {value!r} has the form {form}; give an id of another form "
                                "(these nodes come only from the engine, or an import of its export)")
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


def check_iterable(value: Any, field: str, what: str) -> Any:
    """``value`` itself when it is an iterable of items (a list, tuple, generator ...), not
    None, a string or a single mapping; a generator is not consumed.

    Parameters
    ----------
    value : any
    field : str
        The argument's name, for the message.
    what : str
        What its items are ("memory mappings", "edges"), for the message.

    Raises
    ------
    InvalidInputError
    """
    if value is not None and not isinstance(value, (str, bytes, Mapping)):
        try:
            iter(value)
            return value
        except TypeError:
            pass
    one = " (one item: wrap it in a list)" if isinstance(value, Mapping) else ""
    raise InvalidInputError(f"{field}: expected an iterable of {what}, got {type(value).__name__}{one}")


def as_list(value: Any, field: str, *, ordered: bool = False) -> list:
    """``value`` (any iterable but a string or mapping) as a list. With ``ordered`` (the answer
    comes back item by item in this order, as recall_batch's results), a set is refused too:
    its order is arbitrary, so the answers could not be matched to the items.

    Raises
    ------
    InvalidInputError
    """
    if isinstance(value, (str, bytes, Mapping)) or (ordered and isinstance(value, (set, frozenset))):
        raise InvalidInputError(f"{field}: expected a list, got {type(value).__name__}"
                                + (" (unordered: the answers come back in the order given)"
                                   if isinstance(value, (set, frozenset)) else ""))
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
    return frozenset(plain_str(t) for t in tags) or None


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


def check_link_spec(spec: Any, engine_ids: bool = False) -> tuple[str, Relation, float | None]:
    """A link of a new memory, ``{"to", "relation", "weight"}`` or a tuple, as (id, Relation, weight).

    A link without a weight gives None: the write path picks it
    (:func:`engramdb.contiguity.default_weight`).

    Raises
    ------
    InvalidInputError, UnknownRelationError, NonFiniteError
        A bad field, or a target id of a reserved form (:func:`check_user_id`) unless
        ``engine_ids`` (a link the engine makes).
    """
    to, rel, w = edge_fields(spec, ("to", "relation", "weight"), 1, "a link")
    rel = Relation.parse(rel)
    if not engine_ids:
        check_user_relation(rel, "link")
    return (check_id if engine_ids else check_user_id)(to, "link target"), rel, check_weight(w)


def check_user_relation(rel: Relation, field: str) -> Relation:
    """A relation a caller may link with: any but ``supersedes``, whose edge only
    ``Engram.supersede`` makes (it also marks the old memory superseded and closes its
    validity; a bare edge would leave the old memory current while ``history`` names a
    successor).

    Raises
    ------
    InvalidInputError
    """
    if rel is Relation.SUPERSEDES:
        raise InvalidInputError(f"{field}: a 'supersedes' edge is made by supersede(old_id, text) or "
                                "supersede(old_id, by=new_id), which also marks the old memory superseded "
                                "and closes its validity; a bare edge would leave it current")
    return rel


def check_weight(w: Any) -> float | None:
    """An edge weight in (0, 1], or None (not given).

    Raises
    ------
    InvalidInputError, NonFiniteError
    """
    return None if w is None else check_fraction(w, "weight", open_zero=True)


def check_vector(vec: Any, dim: int, field: str = "embedding") -> np.ndarray:
    """One finite vector of ``dim`` real numbers, normalised to unit length (float32, shape (dim,)).

    Integers and floats of any width are accepted (cast to float32); strings, bytes, bools,
    complex numbers, None and other objects are not, even where NumPy would convert them
    (``"1.5"`` is text, not a number).

    Raises
    ------
    InvalidInputError
        Not a 1-d sequence of real numbers.
    DimensionMismatchError
        Wrong length.
    NonFiniteError
        NaN, inf, a value beyond float32 (|x| > 3.4e38), or a norm below 1e-12 (no reliable
        direction: all zeros).
    """
    expected = f"one vector of {dim} real numbers (ints or floats)"
    try:
        arr = np.asarray(vec)
        if arr.dtype == object and arr.ndim == 1 and all(_real(x) for x in arr.tolist()):
            arr = arr.astype(np.float64)   # e.g. a Python int beyond int64 among the numbers
    except (TypeError, ValueError, OverflowError):
        raise InvalidInputError(f"{field}: expected {expected}, got {type(vec).__name__}") from None
    if arr.dtype.kind == "c":
        raise InvalidInputError(f"{field}: expected real numbers, got a complex vector")
    if arr.dtype.kind not in "iuf":
        what = {"b": "bools", "U": "strings", "S": "bytes", "O": "objects (None, strings, lists, ...)"}
        raise InvalidInputError(f"{field}: expected {expected}, got {what.get(arr.dtype.kind, arr.dtype)}; "
                                "pass a list or array of numbers")
    if arr.ndim != 1:
        raise InvalidInputError(f"{field}: expected one vector of shape ({dim},), got shape {arr.shape}")
    if arr.shape[0] != dim:
        raise DimensionMismatchError(expected=dim, got=arr.shape[0], field=field)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise NonFiniteError(f"{field}: the vector contains NaN or infinite values")
    # a float wider than float32 may hold values float32 cannot (integers up to 64 bits fit)
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 4 and float(np.abs(arr).max()) > _FLOAT32_MAX:
        raise NonFiniteError(f"{field}: a value is beyond float32 range (|x| > {_FLOAT32_MAX:.3g}); "
                             "scale the vector down (only its direction counts)")
    # float64 of the float32 values: huge or tiny float32 entries neither overflow nor vanish
    wide = arr.astype(np.float32, copy=False).astype(np.float64)
    norm = math.sqrt(wide.dot(wide))   # what np.linalg.norm computes for a real vector, without its wrapper
    if norm < MIN_NORM or not math.isfinite(norm):
        raise NonFiniteError(f"{field}: the vector is all zeros or has a norm below {MIN_NORM:g}; "
                             "it has no reliable direction")
    return (wide / norm).astype(np.float32)


def _real(x: Any) -> bool:
    """Whether ``x`` is a real number (not a bool, a string or a complex)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


#: Unicode's Default_Ignorable_Code_Point ranges outside category Cf (PropList.txt): the
#: combining grapheme joiner, Hangul fillers, Mongolian and variation selectors, and the
#: reserved ignorables; no font draws them.
_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
              (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))


def _invisible(ch: str) -> bool:
    if ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc"):
        return True
    o = ord(ch)
    return any(a <= o <= b for a, b in _IGNORABLE)


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: only whitespace, control characters (Unicode category
    Cc), invisible format characters (Cf: zero-width space U+200B, joiners U+200C/U+200D, BOM
    U+FEFF, soft hyphen U+00AD, bidi marks, ...) and the other default-ignorable code points
    (variation selectors, the combining grapheme joiner, Hangul fillers). Stops at the first
    visible character."""
    if text and "!" <= text[0] <= "~":   # a printable ASCII character is visible
        return False
    return all(_invisible(ch) for ch in text)


def check_text(text: Any, max_chars: int, field: str = "text",
               hint: str = "store something to remember") -> str:
    """A valid Unicode string of at most ``max_chars`` characters that shows something.

    A text of only whitespace and invisible format characters (:func:`is_blank`) is empty.

    Raises
    ------
    InvalidInputError, EmptyTextError, OversizeError
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{field}: expected a string, got {type(text).__name__}")
    text = plain_str(text)
    if is_blank(text):
        raise EmptyTextError(f"{field}: the text is empty (nothing but whitespace and invisible characters "
                             f"such as U+200B or U+FEFF counts as empty); {hint}")
    if not encodable(text):
        raise InvalidInputError(f"{field}: the text is not valid Unicode (lone surrogate)")
    if len(text) > max_chars:
        raise OversizeError(f"{field}: {len(text)} characters, more than max_text_chars={max_chars}; "
                            "split it or raise StoreConfig.max_text_chars")
    return text


def check_query(query: Any, max_chars: int) -> str:
    """A recall query: :func:`check_text` with the query's message.

    Raises
    ------
    InvalidInputError, EmptyTextError, OversizeError
    """
    return check_text(query, max_chars, "query",
                      "pass the question as text (or only vector=, the query's embedding, with no text)")


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


def last_items(items: list, limit: int | None) -> list:
    """The last ``limit`` of ``items`` (all when None, none when 0): a verb's ``limit=`` of the
    newest entries. (``items[len(items) - limit:]`` gave the wrong ones when ``limit`` was more
    than the count but less than twice it: a negative start.)"""
    return items if limit is None else items[-limit:] if limit else []
