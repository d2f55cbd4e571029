"""When a change a text reports takes effect, when it names a time to come: "Dana is taking over
the standup notes from me starting next week.", "Marcus Bell is taking over as my line manager
from October 1st.", "Spanish class is moving to Wednesdays starting next week."

The change readers (:mod:`engramdb.changes`, :mod:`engramdb.handovers`, :mod:`engramdb.swaps`)
read a change said to start later as no change: before that time the old value still holds.
:func:`change_start` finds such a start and resolves it forward from the time the text was said;
:func:`without_start` is the text without it, which the readers then read as a change in effect.
The write path stores such a report valid from its start (``valid_from``), so recall puts it
above the value it replaces only from then on (:func:`engramdb.recall.ranking.run` orders two
memories linked ``contradicts`` by which is valid at the recall's ``now``).

A start is a marker and a time to come: "starting", "from", "as of", "beginning", "effective"
(also "starting on") before "next week" / "next month" / "next year", "tomorrow", a weekday
("next Monday", "Monday"), a date ("October 1st", "1 October", "the 20th") or a month
("November"). A bare "next week" or "next Monday" counts too. Resolved in UTC, forward: a weekday
is the first one after the day said, a date without a year the first such date after it, "the
20th" the 20th of this month or the next, a month its first day, "next week" its Monday.
Vague times ("soon", "someday", "in a while") and conditions are no start.

>>> from datetime import datetime, timezone
>>> said = datetime(2025, 9, 10, 12, tzinfo=timezone.utc).timestamp()   # a Wednesday
>>> day = lambda t: datetime.fromtimestamp(t, timezone.utc).date().isoformat()
>>> day(change_start("Dana is taking over the notes starting next week.", said))
'2025-09-15'
>>> day(change_start("Marcus is taking over as my line manager from October 1st.", said))
'2025-10-01'
>>> without_start("Marcus is taking over as my line manager from October 1st.")
'Marcus is taking over as my line manager.'
>>> change_start("Dana is taking over the notes.", said) is None
True
"""
from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta, timezone

__all__ = ["change_start", "without_start"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_ALT = "|".join(_WEEKDAYS)
_S = r"[^\S\n]+"
_ORD = r"(?:st|nd|rd|th)?"
#: A time to come, each alternative in a named group.
_WHEN = (rf"(?:(?P<next>next|this{_S}coming){_S}(?P<unit>week|month|year|{_DAY_ALT})"
         rf"|(?P<tomorrow>tomorrow)"
         rf"|(?P<md_month>{_MONTH_ALT})\.?{_S}(?P<md_day>\d{{1,2}}){_ORD}\b"
         rf"|(?P<dm_day>\d{{1,2}}){_ORD}{_S}(?:of{_S})?(?P<dm_month>{_MONTH_ALT})\b"
         rf"|the{_S}(?P<nth>\d{{1,2}}){_ORD}\b"
         rf"|(?P<weekday>{_DAY_ALT})\b"
         rf"|(?P<month>{_MONTH_ALT})\b)")
#: A start: a marker and a time to come, or a bare "next week" / "next Monday" (the marker, and
#: the comma before it, are part of what :func:`without_start` removes).
_START = re.compile(rf"(?:^|,?{_S})(?:(?P<marker>starting|from|as{_S}of|beginning|effective|commencing)(?:{_S}on)?{_S})?"
                    rf"{_WHEN}(?:,?{_S}(?P<year>(?:19|20)\d\d)\b)?", re.I)


#: Words of a text that may hold a start (a cheap test before the pattern).
_CUES = ("start", "from", "as of", "begin", "effective", "commenc", "next")
#: A span, not a start: "from Monday to Friday".
_RANGE = re.compile(rf"{_S}(?:to|until|till|through|thru|-|–)\b", re.I)


def _found(text: str) -> re.Match | None:
    """The first start of ``text``: a time to come after a marker, or a bare "next <unit>"."""
    low = (text or "").lower()
    if not any(cue in low for cue in _CUES):
        return None
    for m in _START.finditer(text):
        if (m.group("marker") or m.group("next")) and not _RANGE.match(text, m.end()):
            return m
    return None


def change_start(text: str, said_at: float) -> float | None:
    """The time to come (Unix seconds, UTC midnight of its first day) at which the change
    ``text`` (str) reports starts, resolved forward from ``said_at`` (Unix seconds); None when it
    names no such start, or one not after the day it was said.

    Parameters
    ----------
    text : str
    said_at : float
        When the text was said (its event time), Unix seconds.

    Returns
    -------
    float or None
        None also for a start past the calendar's end (after the year 9999).
    """
    m = _found(text)
    if m is None:
        return None
    try:
        return _resolved(m, float(said_at))
    except (ValueError, OverflowError, OSError):   # past the calendar's end (year 9999) or before its start
        return None


def _resolved(m: re.Match, said_at: float) -> float | None:
    """:func:`change_start` of the start ``m`` said at ``said_at``."""
    said = datetime.fromtimestamp(said_at, timezone.utc)
    day = datetime(said.year, said.month, said.day, tzinfo=timezone.utc)
    g = {k: (v.lower() if v else v) for k, v in m.groupdict().items()}
    start = None
    if g["next"]:
        unit = g["unit"]
        if unit == "week":
            start = day + timedelta(days=7 - day.weekday())
        elif unit == "month":
            start = _month_start(day.year, day.month + 1)
        elif unit == "year":
            start = datetime(day.year + 1, 1, 1, tzinfo=timezone.utc)
        else:
            start = _next_weekday(day, _WEEKDAYS[unit])
    elif g["tomorrow"]:
        start = day + timedelta(days=1)
    elif g["year"] and (g["md_month"] or g["dm_month"] or g["month"]):   # ("from May 2021": that one)
        month = _MONTHS[g["md_month"] or g["dm_month"] or g["month"]]
        n = int(g["md_day"] or g["dm_day"] or 1)
        if n <= calendar.monthrange(int(g["year"]), month)[1]:
            start = datetime(int(g["year"]), month, n, tzinfo=timezone.utc)
    elif g["md_month"] or g["dm_month"]:
        month = _MONTHS[g["md_month"] or g["dm_month"]]
        start = _next_date(day, month, int(g["md_day"] or g["dm_day"]))
    elif g["nth"]:
        n = int(g["nth"])
        if 1 <= n <= 31:
            start = _next_date(day, day.month, n, months=True)
    elif g["weekday"]:
        start = _next_weekday(day, _WEEKDAYS[g["weekday"]])
    elif g["month"]:
        month = _MONTHS[g["month"]]
        start = _month_start(day.year + (month <= day.month), month)
    if start is None or start <= day:
        return None
    return start.timestamp()


def without_start(text: str) -> str:
    """``text`` (str) without the start :func:`change_start` reads in it ("..., starting next
    week"), so a reader takes the change as in effect; ``text`` itself when it names none."""
    m = _found(text)
    if m is None:
        return text
    rest = text[m.end():]
    return text[: m.start()] + (rest.lstrip(", ") if m.start() == 0 else rest)


def _month_start(year: int, month: int) -> datetime:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=timezone.utc)


def _next_weekday(day: datetime, weekday: int) -> datetime:
    """The first ``weekday`` (0 Monday) after ``day``."""
    return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)


def _next_date(day: datetime, month: int, n: int, *, months: bool = False) -> datetime | None:
    """The first date ``n`` of ``month`` after ``day`` (of this or a later year; with ``months``,
    of this month or a later one), or None for a day no such month has."""
    for step in range(13 if months else 2):
        if months:
            year, mon = day.year + (month - 1 + step) // 12, (month - 1 + step) % 12 + 1
        else:
            year, mon = day.year + step, month
        if n <= calendar.monthrange(year, mon)[1]:
            got = datetime(year, mon, n, tzinfo=timezone.utc)
            if got > day:
                return got
    return None
