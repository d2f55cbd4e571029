"""Resolve the time expressions in a question to UTC windows, against the conversation's time.

Time-aware recall needs "what did Caroline do last week?" turned into a span of Unix seconds.
"Last week" means the week before the *conversation's* "now", not the wall clock, so every
relative expression is resolved against an ``anchor`` supplied by the caller, typically the
event time of the newest memory. All dates are read as UTC (LoCoMo's session dates carry no
time zone; :func:`engramdb.locomo.parse_session_time` reads them the same way).

What is recognised (case-insensitive unless noted):

* Calendar days: ``May 3, 2023``, ``October 13th, 2023``, ``3 May 2023``, ``on 31 October,
  2022``, ``4th October, 2023``, ``31st of October 2022``, ``2023-05-03``; without a year
  (``May 3``, ``3 May``) the latest such day at or before the reference day. Numeric slashed
  dates (``05/03/2023``) are skipped on purpose: May 3 in the US, 5 March elsewhere.
* Months: ``May 2023``, ``in May 2023``, ``early|mid|late May 2023`` (days 1-10, 10-20,
  20-end), ``the beginning|middle|end of May 2023``, ``the first|second half of May 2023``,
  ``the second week of November``, ``the first weekend of August 2023``. A month without a
  year needs ``in``, ``during``, ``throughout``, ``over``, ``as of``, ``last``, ``this``,
  ``past``, ``previous`` or one of those qualifiers before it and resolves to the latest such month at
  or before the reference day (``last May``: strictly before the reference month). The verb
  "may" is protected: a lowercase ``may`` (and a lowercase abbreviation such as ``mar``) is a
  month only with a year after it (``may 2023``, ``may 3, 2023``).
* Seasons (northern meteorological): ``summer 2021``, ``the summer of 2021``, ``last
  summer``, ``this winter``, ``in the fall``. Spring is March-May, summer June-August,
  autumn/fall September-November, and winter *Y* is December *Y* to February *Y+1*.
* Years: ``in 2021``, ``during 2022``, ``throughout 2022``, ``the year 2021``, ``in early
  2022``, ``mid-2022``, ``as of 2023``, ``last year``, ``this year``. A bare number is not a
  year: it needs one of those words before it and must lie in 1900-2099 (``in 2000 words``
  is still read as a year).
* Shifts from a day: ``the week|weekend|day before|after X``, ``the Sunday before X``,
  ``two weeks before X``, ``last weekend before X`` (``prior to`` = before, ``following`` =
  after). X itself is also reported as its own window, since in a dialog the event is usually
  *mentioned* on X.
* Relative: ``yesterday``, ``last night``, ``today``, ``tonight``, ``this morning``, ``last
  week``, ``this week``, ``last weekend``, ``this weekend`` (only when the reference day is a
  Saturday or Sunday), ``last month``, ``this month``, ``last Friday``, ``N days|weeks|months|
  years ago`` (or ``back``; N is digits, one..twelve, ``a``/``an`` = 1, ``a couple (of)`` = 2,
  ``a few``/``several`` = 3), ``the past|last N days|weeks|months|years`` (a rolling span
  ending with the reference day), ``recently``/``recent``/``lately`` (the 14 days before the
  reference day, plus that day).
* Not recognised: future references (``tomorrow``, ``next month``: recall is over memories at
  or before the anchor), bare weekdays (``on Sunday``), holidays, ``since``/``until`` ranges,
  numeric slashed dates.

The *reference day* is the anchor's UTC day, except when the text names a calendar day with a
year: then relative expressions are resolved against the first such day ("What did Joanna
finish last Friday on 23 January, 2022?" -> Friday 21 January 2022; "a few years back, as
mentioned on June 26, 2023" -> 2020). Windows resolved against the reference day never end
after the end of that day, so with the anchor as reference they end at most one day after the
anchor. ``recently`` is dropped when the text also has an explicit month, season or year (and
no day): "the cake she made recently in May 2022" is placed by "May 2022".

Windows built from particular days (a date, a weekday, a weekend, a week before or after a
date, "N days|weeks ago", "yesterday", "last week") are widened by ``day_slack_s`` on each
side (default :data:`DAY_SLACK_S`, one day) and then clipped as above; calendar spans (a part
of a month, a month, a season, a year, a rolling "past N units") are not widened. Each window
keeps the span its expression names as its *core* (``TimeWindow.core_start``/``core_end``):
"yesterday" and "today" have windows that overlap (both cover both days) but cores that name
one day each, so recall can weigh the named day above the slack around it. Weeks start
on Monday (ISO 8601).

Cost: the text is lowercased once and split into words; a question with no core word (a
month, weekday, season, unit such as "week", "yesterday", "recently" ...) and no digit stops
there. Otherwise precompiled patterns are tried only at the few word starts just before each
core word (see ``_scan``), and dates are computed with integer civil-calendar arithmetic
(Hinnant's ``days_from_civil``), so no ``datetime`` is built and no year can overflow. Measured
2026-11-30 on the shared 2-core dev box under load (load average ~5), Python 3.11.7: 14-32 µs
for a 15-word question with a date and 5-10 µs for one without a time expression, with ::

    python -m timeit -s "from engramdb.timeref import resolve_time_refs as r" "r(Q, 1.7e9)"

where Q is 'What did Melanie paint and show to Caroline on October 13, 2023 at the art fair?'
(or 'Where did Caroline and Melanie go to have their long talk about the new job offer?'),
and 9-13 µs per question on average over the 1,982 LoCoMo questions with evidence (83% have
no time expression). Scanning the whole grammar at every position instead cost ~300 µs.

References
----------
Maharana et al. (2024), "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL,
§4.1 (question answering task): temporal questions are dated relative to the session dates.
H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"
(howardhinnant.github.io/date_algorithms.html): ``days_from_civil``, ``civil_from_days``.
"""
from __future__ import annotations

import functools
import math
import numbers
import re
from collections import deque
from dataclasses import dataclass

from engramdb.errors import InvalidInputError, NonFiniteError
from engramdb.patterns import DIGIT

__all__ = ["DAY_SLACK_S", "PRECISIONS", "TimeWindow", "resolve_time_refs", "mentioned_span", "window_masks",
           "past_end", "CALENDAR_WORDS"]

#: Default widening, in seconds, on each side of windows built from particular days. LoCoMo's
#: session date is the day an event was *mentioned*, often a day after it happened, and the
#: anchor's own day boundary is arbitrary in UTC, so an exact day would miss near neighbours.
DAY_SLACK_S: float = 86_400.0

#: Every value :attr:`TimeWindow.precision` can take, finest first.
PRECISIONS: tuple[str, ...] = (
    "day", "weekend", "week", "recent", "part_month", "month", "season", "part_year", "year",
)

_DAY_S = 86_400


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """A half-open span of time named by an expression in the text.

    Attributes
    ----------
    start, end : float
        Unix seconds, UTC, ``start < end``; the window is ``[start, end)``.
    text : str
        The expression as it appears in the text (original case), e.g. ``"last week"``.
    precision : str
        One of :data:`PRECISIONS`: the grain of the expression, not the width of the window
        (a ``"day"`` window is three days wide with the default slack).
    core_start, core_end : float
        The span the expression names before widening by the slack, ``[core_start, core_end)``
        within ``[start, end)``: "yesterday" is three days wide but its core is that one day.
        Equal to ``start``/``end`` for calendar spans (not widened). Recall gives a memory in
        the core the full time weight and one in the slack only a part of it.
    """

    start: float
    end: float
    text: str
    precision: str
    core_start: float | None = None
    core_end: float | None = None

    def __post_init__(self) -> None:
        if self.core_start is None:
            object.__setattr__(self, "core_start", self.start)
        if self.core_end is None:
            object.__setattr__(self, "core_end", self.end)


# ---------------------------------------------------------------------------------------------
# Civil calendar on integer day numbers (days since 1970-01-01), valid for any year.

def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def _month_len(y: int, m: int) -> int:
    if m == 2:
        return 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28
    return 30 if m in (4, 6, 9, 11) else 31


def _month_first(y: int, m: int) -> int:
    """Day number of the first of month ``m`` of year ``y``; ``m`` may be out of 1..12."""
    y += (m - 1) // 12
    return _days_from_civil(y, (m - 1) % 12 + 1, 1)


def _weekday(z: int) -> int:
    return (z + 3) % 7  # Monday = 0; 1970-01-01 was a Thursday


# Representable range: 0001-01-01 to 10000-01-01 (what datetime can show), in seconds.
_MIN_S = _days_from_civil(1, 1, 1) * _DAY_S
_MAX_S = _days_from_civil(10000, 1, 1) * _DAY_S

# ---------------------------------------------------------------------------------------------
# Vocabulary.

_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august",
                "september", "october", "november", "december"]
_MONTHS = {name: i for i, name in enumerate(_MONTH_NAMES, start=1)}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_FULL_NAMES = frozenset(_MONTH_NAMES)
_WEEKDAYS = {d: i for i, d in enumerate(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])}
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}  # first month
#: Month, weekday and season names in lower case: words that name a time, never a person, in a
#: question ("in May", "on Friday"; :mod:`engramdb.speakers`).
CALENDAR_WORDS = frozenset(_MONTH_NAMES) | frozenset(_WEEKDAYS) | frozenset(_SEASONS)
#: Spans of time that "last" before them names ("last week", "last Monday", "last spring"):
#: a time said, no "last time" or "last resort" (:func:`engramdb.facts.not_done`,
#: :func:`engramdb.starts.past_lead_read`).
LAST_SPANS = CALENDAR_WORDS | frozenset("week weekend month year night quarter semester term season".split())
_NUMBERS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "eleven", "twelve"])}
_NUMBERS.update({"a": 1, "an": 1, "a couple": 2, "a couple of": 2, "a few": 3, "few": 3,
                 "several": 3})
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4, "last": -1}

# ---------------------------------------------------------------------------------------------
# The grammar: branches of one alternation, tried in order at a word start (see _scan). The
# patterns are lowercase and run on lowercased text. Sub-patterns that appear in several
# branches take a prefix so their group names stay unique.

_MON = (r"(?P<{}>january|february|march|april|may|june|july|august|september|october|"
        r"november|december|sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)\b\.?")
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?\b(?![:.]\d)"
_YEAR = r"(?P<{}>\d{{4}})(?!\d|-\d)"
_SEP = r"(?:\s*,\s*|\s+)"
_WD = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_NUM = (r"\d{1,4}|a\s+few|a\s+couple(?:\s+of)?|several|few|an?|one|two|three|four|five|six|"
        r"seven|eight|nine|ten|eleven|twelve")
_UNIT = r"(?:day|week|month|year)"


def _date(p: str) -> str:
    """A calendar day; groups ``{p}am {p}ad {p}ay`` (Month D, Y), ``{p}bd {p}bm {p}by``
    (D Month, Y), ``{p}iy {p}im {p}id`` (ISO), ``{p}cm {p}cd`` (Month D), ``{p}ed {p}em``
    (D Month)."""
    return (
        rf"(?:\b{_MON.format(p + 'am')}\s+{_DAY.format(p + 'ad')}{_SEP}{_YEAR.format(p + 'ay')}"
        rf"|(?<![\w.:/]){_DAY.format(p + 'bd')}\s+(?:of\s+)?{_MON.format(p + 'bm')}{_SEP}"
        rf"{_YEAR.format(p + 'by')}"
        rf"|(?<![\w./-])(?P<{p}iy>\d{{4}})-(?P<{p}im>[01]\d)-(?P<{p}id>[0-3]\d)"
        rf"(?![\w/-])"
        rf"|\b{_MON.format(p + 'cm')}\s+{_DAY.format(p + 'cd')}"
        rf"|(?<![\w.:/]){_DAY.format(p + 'ed')}\s+(?:of\s+)?{_MON.format(p + 'em')})"
    )


_MONTH_QUAL = (r"early|mid|late|the\s+(?:very\s+)?(?:beginning|start|middle|end)\s+of|"
               r"(?:the\s+)?(?:first|second)\s+half\s+of|"
               rf"(?:the\s+)?(?:first|last)\s+(?:{_NUM})\s+(?:days|weeks)\s+of|"
               r"(?:the\s+)?(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week(?:end)?"
               r"\s+of")
_YEAR_QUAL = (r"early|mid|late|the\s+(?:very\s+)?(?:beginning|start|middle|end)\s+of|"
              r"(?:the\s+)?(?:first|second)\s+half\s+of")

_NUM_FIRST = {"a", "an", "few", "several"} | {w for w in _NUMBERS if " " not in w}
_PREP = {"in", "during", "throughout", "over", "last", "this", "past", "previous"}
# (name, pattern, the words it can start with; "#" = a word starting with a digit), in the
# order they are tried at one position.
_BRANCHES: list[tuple[str, str, set[str]]] = [
    # X shifted by a unit, "the weekend before 4th October, 2023"; before plain dates so the
    # whole phrase is taken.
    ("shift",
     rf"\b(?:(?:the|last|over\s+the)\s+)?"
     rf"(?:(?P<sn>{_NUM})\s+(?P<su>{_UNIT})s?|(?P<sw>day|week|weekend|month|year|{_WD}))"
     rf"\s+(?P<sd>before|after|prior\s+to|following)\s+(?:(?:on|the)\s+)?(?P<sx>{_date('s')})",
     {"the", "last", "over", "#", "day", "week", "weekend", "month", "year"}
     | _NUM_FIRST | set(_WEEKDAYS)),
    ("date", _date(""), {"#"} | set(_MONTHS)),
    # Month, optionally qualified and with a year; not when a day number follows.
    ("month",
     rf"\b(?:(?P<mp>in|during|throughout|over|last|this|past|previous|as\s+of)\s+)?"
     rf"(?:the\s+month\s+of\s+)?(?:(?P<mq>{_MONTH_QUAL})(?:\s*-\s*|\s+))?{_MON.format('mm')}"
     rf"(?!\s+[0-3]?\d(?:st|nd|rd|th)?\b(?![:.]\d))(?:{_SEP}(?:of\s+)?{_YEAR.format('my')})?",
     _PREP | {"as", "the", "early", "mid", "late", "first", "second", "third", "fourth", "#"}
     | set(_MONTHS)),
    ("season",
     rf"\b(?:(?P<sp>in|during|throughout|over|last|this|past|previous)\s+)?"
     rf"(?:the\s+)?(?:(?P<sq>early|mid|late|the\s+(?:very\s+)?(?:beginning|start|middle|end)"
     rf"\s+of)(?:\s*-\s*|\s+)(?:the\s+)?)?(?P<ss>spring|summer|autumn|fall|winter)"
     rf"\b(?:\s+(?:of\s+)?{_YEAR.format('sy')})?",
     _PREP | {"the", "early", "mid", "late"} | set(_SEASONS)),
    ("year",
     rf"\b(?:(?P<yp>in|during|throughout|as\s+of)\s+)?(?P<yt>the\s+year\s+)?"
     rf"(?:(?P<yq>{_YEAR_QUAL})(?:\s*-\s*|\s+))?(?P<yy>(?:19|20)\d\d)(?![\w/-]|[.,]\d)",
     {"in", "during", "throughout", "as", "the", "early", "mid", "late", "#"}),
    ("ago", rf"\b(?P<an>{_NUM})\s+(?P<au>{_UNIT})s?\s+(?:ago|back)\b", _NUM_FIRST | {"#"}),
    ("rolling",
     rf"\b(?:(?:in|over|during|within|for)\s+)?the\s+(?:last|past)\s+"
     rf"(?:(?P<rn>{_NUM})\s+)?(?P<ru>{_UNIT})s?\b(?!\s+of\b)",
     {"in", "over", "during", "within", "for", "the"}),
    ("rel",
     rf"\b(?:(?:this\s+)?(?P<rl>last|past|previous)|(?P<rt>this))\s+"
     rf"(?P<ru2>week|weekend|month|year|{_WD})\b(?!\s+of\b)",
     {"this", "last", "past", "previous"}),
    ("yesterday", r"\b(?:yesterday|last\s+night)\b", {"yesterday", "last"}),
    ("today", r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b",
     {"today", "tonight", "this"}),
    ("recent", r"(?<!more\s)\b(?:recent(?:ly)?|lately)\b", {"recent", "recently", "lately"}),
]


@functools.lru_cache(maxsize=None)
def _compile(names: tuple[str, ...]) -> re.Pattern:
    # Each branch sits in a named group so ``m.lastgroup`` names it. The patterns are
    # lowercase and run on lowercased text (faster than re.IGNORECASE).
    return re.compile("|".join(f"(?P<{n}>{p})" for n, p, _ in _BRANCHES if n in names))


# The branches each start word can begin. Their patterns are compiled on first use of the
# word (compiling all of them took ~35 ms at import, and most questions hold no time cue).
_FIRST_WORD_BRANCHES: dict[str, tuple[str, ...]] = {
    word: tuple(n for n, _, first in _BRANCHES if word in first)
    for word in set().union(*(first for _, _, first in _BRANCHES))
}
_BY_FIRST_WORD: dict[str, re.Pattern] = {}


def _pattern_for(key: str) -> re.Pattern | None:
    """The pattern of the branches that can start with word ``key`` ("#": a number), or None."""
    pattern = _BY_FIRST_WORD.get(key)
    if pattern is None:
        names = _FIRST_WORD_BRANCHES.get(key)
        if names is None:
            return None
        pattern = _BY_FIRST_WORD[key] = _compile(names)   # same branches, same pattern object
    return pattern


def __getattr__(name: str):
    # ``_PATTERN``: the whole grammar (for reference and tests); the scanner uses the per-word
    # patterns above.
    if name == "_PATTERN":
        return _compile(tuple(n for n, _, _ in _BRANCHES))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_WORD = re.compile(r"\w+")
_LOOKBACK_WORDS = 6  # the longest prefix before a core word: "during the first weekend of"
# Every expression contains one of these words (or a word starting with a digit).
_CORE = frozenset(
    list(_MONTHS) + list(_WEEKDAYS) + list(_SEASONS)
    + [u + s for u in ("day", "week", "weekend", "month", "year") for s in ("", "s")]
    + ["yesterday", "today", "tonight", "night", "morning", "afternoon", "evening", "recent",
       "recently", "lately"]
)


def _lower(text: str) -> str:
    """``text.lower()`` with every character kept at its index (a few, such as "İ", would
    otherwise lower to two characters and shift every later span)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _scan(low: str) -> list[re.Match]:
    """Matches of the grammar in lowercased text, left to right, not overlapping.

    Trying the whole alternation at every position costs ~0.3 ms for a question. Here a
    pattern is tried only at the start of words that can begin an expression (each word has
    its own pattern holding only the branches that can start with it), at most
    :data:`_LOOKBACK_WORDS` words before a core word, earliest first; the first match that
    reaches the core word is kept. Each word start is tried at most once, so the cost is
    linear in the length of the text.
    """
    if DIGIT.search(low) is None and _CORE.isdisjoint(_WORD.findall(low)):
        return []  # most questions: no core word at all
    matches: list[re.Match] = []
    covered = 0  # text before this index belongs to an earlier match
    # (word number, position, pattern) of the latest start words; older ones are out of reach
    starts: deque[tuple[int, int, re.Pattern]] = deque(maxlen=_LOOKBACK_WORDS + 1)
    for n, wm in enumerate(_WORD.finditer(low)):
        pos = wm.start()
        if pos < covered:
            continue
        word = wm[0]
        key = "#" if word[0].isdigit() else word
        pattern = _BY_FIRST_WORD.get(key)
        if pattern is None and key in _FIRST_WORD_BRANCHES:
            pattern = _pattern_for(key)   # first use of this start word: compile
        if key == "#" or word in _CORE:
            if pattern is not None:
                starts.append((n, pos, pattern))
            for k, start, pat in starts:
                if k < n - _LOOKBACK_WORDS:
                    continue
                m = pat.match(low, start)
                if m is not None and m.end() > pos:
                    matches.append(m)
                    covered = m.end()
                    break
            # A match depends only on its start, so a start tried once is never retried.
            starts.clear()
        elif pattern is not None:
            starts.append((n, pos, pattern))
    return matches


def _month_of(token: str, *, need_case: bool) -> int | None:
    """Month number of a month token as written; None for a protected lowercase token."""
    key = token.rstrip(".").lower()
    if need_case and token.islower() and (key == "may" or key not in _FULL_NAMES):
        return None  # "may" the verb, "mar" the verb: such a month needs a year
    return _MONTHS[key]


def _number(token: str) -> int:
    token = " ".join(token.lower().split())
    return int(token) if token.isdigit() else _NUMBERS[token]


def _full_date(m: re.Match, p: str) -> int | None:
    """Day number of a date with a year in branch ``p``, or None (yearless or impossible)."""
    if m[p + "ay"] is not None:
        y, mo, d = int(m[p + "ay"]), _MONTHS[m[p + "am"].rstrip(".").lower()], int(m[p + "ad"])
    elif m[p + "by"] is not None:
        y, mo, d = int(m[p + "by"]), _MONTHS[m[p + "bm"].rstrip(".").lower()], int(m[p + "bd"])
    elif m[p + "iy"] is not None:
        y, mo, d = int(m[p + "iy"]), int(m[p + "im"]), int(m[p + "id"])
    else:
        return None
    if not (1 <= y <= 9999 and 1 <= mo <= 12 and 1 <= d <= _month_len(y, mo)):
        return None
    return _days_from_civil(y, mo, d)


def _yearless_date(m: re.Match, p: str, ref_day: int, text: str) -> int | None:
    """Latest ``Month D`` / ``D Month`` at or before ``ref_day``, or None; ``text`` is the
    original (not lowercased) text, to tell "May" from "may"."""
    if m[p + "cm"] is not None:
        mo = _month_of(text[m.start(p + "cm"):m.end(p + "cm")], need_case=True)
        d = int(m[p + "cd"])
    elif m[p + "em"] is not None:
        mo = _month_of(text[m.start(p + "em"):m.end(p + "em")], need_case=True)
        d = int(m[p + "ed"])
    else:
        return None
    if mo is None or not 1 <= d <= 31:
        return None
    y = _civil_from_days(ref_day)[0]
    for year in (y, y - 1, y - 2, y - 3, y - 4):  # Feb 29 may need a leap year
        if d <= _month_len(year, mo):
            z = _days_from_civil(year, mo, d)
            if z <= ref_day:
                return z
    return None


def _weekend_before(z: int) -> int:
    """Saturday of the latest weekend whose Sunday is before day ``z``."""
    return z - ((_weekday(z) + 1) % 7 or 7) - 1


def _month_part(y: int, mo: int, qual: str | None) -> tuple[int, int, str, bool]:
    """(first day, end day, precision, widen) of a month or a qualified part of it."""
    f, n = _month_first(y, mo), _month_len(y, mo)
    if qual is None:
        return f, f + n, "month", False
    q = " ".join(qual.lower().split())
    if q == "early" or "beginning" in q or "start" in q:
        return f, f + 10, "part_month", False
    if q == "mid" or "middle" in q:
        return f + 9, f + 20, "part_month", False
    if q == "late" or " end " in f" {q} ":
        return f + 19, f + n, "part_month", False
    if "half" in q:
        return (f, f + 15, "part_month", False) if "first" in q else (f + 15, f + n,
                                                                       "part_month", False)
    words = q.split()
    if words[-2] in ("days", "weeks"):  # "the last two weeks of"
        k = _number(" ".join(words[words.index("first" if "first" in words else "last") + 1:-2]))
        length = min(n, k * (7 if words[-2] == "weeks" else 1))
        if length <= 0:
            return f, f + n, "month", False
        precision = "day" if length == 1 else "week" if length == 7 else "part_month"
        return (f, f + length, precision, False) if "first" in words else (
            f + n - length, f + n, precision, False)
    k = _ORDINALS[words[-3]]
    if words[-2] == "weekend":
        if k > 0:
            sat = f + (5 - _weekday(f)) % 7 + 7 * (k - 1)
        else:
            last = f + n - 1
            sat = last - (_weekday(last) - 5) % 7
        return sat, sat + 2, "weekend", True
    if k > 0:
        return f + 7 * (k - 1), f + 7 * k, "week", False
    return f + n - 7, f + n, "week", False


def _year_part(y: int, qual: str | None) -> tuple[int, int, str]:
    if qual is None:
        return _month_first(y, 1), _month_first(y + 1, 1), "year"
    q = qual.lower()
    if "half" in q:
        lo = 1 if "first" in q else 7
        return _month_first(y, lo), _month_first(y, lo + 6), "part_year"
    if q == "early" or "beginning" in q or "start" in q:
        lo = 1
    elif q == "mid" or "middle" in q:
        lo = 5
    else:
        lo = 9
    return _month_first(y, lo), _month_first(y, lo + 4), "part_year"


def _season(y: int, first_month: int, qual: str | None) -> tuple[int, int, str]:
    """Season starting in year ``y``; a qualifier picks its first, middle or last month."""
    if qual is None:
        return _month_first(y, first_month), _month_first(y, first_month + 3), "season"
    q = qual.lower()
    third = 0 if q == "early" or "beginning" in q or "start" in q else 1 if (
        q == "mid" or "middle" in q) else 2
    return _month_first(y, first_month + third), _month_first(y, first_month + third + 1), "month"


def _check_args(text: object, anchor: object, day_slack_s: object) -> tuple[float, float]:
    if not isinstance(text, str):
        raise InvalidInputError(f"text: expected a str, got {type(text).__name__}")
    values = []
    for name, value in (("anchor", anchor), ("day_slack_s", day_slack_s)):
        if type(value) is not float and (
                isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise InvalidInputError(
                f"{name}: expected a real number of seconds, got {type(value).__name__}"
            )
        try:
            value = float(value)
        except OverflowError:  # an int beyond the float range
            raise InvalidInputError(f"{name}: {value!r} seconds is out of range") from None
        if not math.isfinite(value):
            raise NonFiniteError(f"{name}: expected a finite number of seconds, got {value!r}")
        values.append(value)
    anchor_s, slack = values
    if not _MIN_S <= anchor_s < _MAX_S:
        raise InvalidInputError(
            f"anchor: {anchor!r} Unix seconds is outside the years 1 to 9999; pass the "
            "conversation's time as Unix seconds (see engramdb.engine.to_unix_seconds)"
        )
    if not 0.0 <= slack <= 366 * _DAY_S:
        raise InvalidInputError(f"day_slack_s: expected 0 to 366 days in seconds, got {slack!r}")
    return anchor_s, slack


def resolve_time_refs(
    text: str, anchor: float, *, day_slack_s: float = DAY_SLACK_S
) -> list[TimeWindow]:
    """Time windows for the time expressions in ``text``, resolved against ``anchor``.

    Parameters
    ----------
    text : str
        A question or any other text, e.g. ``"What did Melanie paint last week?"``. Any str is
        accepted; the grammar is in the module docstring.
    anchor : float
        "Now" in the conversation, Unix seconds (UTC), e.g. the event time of the newest
        memory; any real number (int, float, NumPy scalar) within the years 1 to 9999.
        Relative expressions ("last week") and dates without a year are resolved against its
        UTC day unless the text names a calendar day with a year (see the module docstring).
    day_slack_s : float, default DAY_SLACK_S
        Seconds added on each side of windows built from particular days (a date, a weekday,
        a weekend, "last week", "3 days ago"), 0 to 366 days. The default of one day covers
        events mentioned a day after they happened.

    Returns
    -------
    list of TimeWindow
        One window per recognised expression, in order of appearance, each ``[start, end)``
        in Unix seconds with ``start < end``, both finite and within the years 1 to 10000.
        A date used as the reference of a shift ("the week before May 3, 2023") yields the
        shifted window and then the date's own window. Identical spans are reported once.
        Empty when the text has no time expression ("When did Caroline go to the LGBTQ
        support group?") or only unsupported ones; never raises for any str.

    Raises
    ------
    InvalidInputError
        ``text`` is not a str; ``anchor`` or ``day_slack_s`` is not a real number (bools
        are refused), ``anchor`` is outside the years 1 to 9999 or ``day_slack_s`` outside
        0 to 366 days.
    NonFiniteError
        ``anchor`` or ``day_slack_s`` is NaN or infinite (a subclass of InvalidInputError).

    Notes
    -----
    Both error classes derive from :class:`ValueError` (engramdb's input errors), not
    :class:`TypeError`, so one ``except InvalidInputError`` covers every bad argument, as in
    :func:`engramdb.engine.to_unix_seconds`.

    Examples
    --------
    >>> from datetime import datetime, timezone
    >>> anchor = datetime(2023, 10, 20, 15, 0, tzinfo=timezone.utc).timestamp()
    >>> [(w.text, w.precision) for w in resolve_time_refs("What did he do last week?", anchor)]
    [('last week', 'week')]
    >>> resolve_time_refs("What may Caroline do next?", anchor)
    []
    """
    anchor_s, slack = _check_args(text, anchor, day_slack_s)
    matches = _scan(_lower(text))
    if not matches:
        return []

    # Reference day: the first calendar day with a year in the text, else the anchor's day.
    ref_day = None
    for m in matches:
        kind = m.lastgroup
        if kind == "date" or kind == "shift":
            ref_day = _full_date(m, "" if kind == "date" else "s")
            if ref_day is not None:
                break
    explicit_day = ref_day is not None
    if ref_day is None:
        ref_day = int(anchor_s // _DAY_S)
    ref_y, ref_m, _ = _civil_from_days(ref_day)
    clip_s = float((ref_day + 1) * _DAY_S)  # windows resolved against the reference end here

    found: list[tuple[int, TimeWindow]] = []  # (position in the text, window)
    seen: set[tuple[float, float]] = set()
    coarse_absolute = False  # an explicit month/season/year: "recently" adds nothing then

    def emit(z0: int, z1: int, m: re.Match, precision: str, widen: bool, clip: bool,
             group: int | str = 0) -> None:
        """Window of days [z0, z1), widened by the slack and/or clipped to the reference."""
        core_start, core_end = float(z0 * _DAY_S), float(z1 * _DAY_S)
        start, end = core_start, core_end
        if widen:
            start, end = start - slack, end + slack
        if clip:
            end, core_end = min(end, clip_s), min(core_end, clip_s)
        start, end = max(start, _MIN_S), min(end, _MAX_S)
        core_start, core_end = max(core_start, start), min(core_end, end)
        if start >= end or (start, end) in seen:
            return
        if core_start >= core_end:   # the named span lies wholly past the reference day
            core_start, core_end = start, end
        seen.add((start, end))
        found.append((m.start(group), TimeWindow(
            start, end, text[m.start(group):m.end(group)].strip(), precision, core_start, core_end)))

    pending_recent: list[re.Match] = []
    for m in matches:
        kind = m.lastgroup
        if kind == "date":
            z = _full_date(m, "")
            if z is not None:
                emit(z, z + 1, m, "day", True, False)
            else:  # resolved against the reference day, so clipped like "yesterday"
                z = _yearless_date(m, "", ref_day, text)
                if z is not None:
                    emit(z, z + 1, m, "day", True, True)
        elif kind == "shift":
            z = _full_date(m, "s")
            yearless = z is None
            if yearless:
                z = _yearless_date(m, "s", ref_day, text)
                if z is None:
                    continue
            after = m["sd"] in ("after", "following")
            sign = 1 if after else -1
            unit = m["su"] or m["sw"]
            n = _number(m["sn"]) if m["sn"] is not None else None
            if n is not None or unit in ("month", "year"):
                k = sign * (1 if n is None else n)
                y, mo, _ = _civil_from_days(z)
                if unit == "day":
                    emit(z + k, z + k + 1, m, "day", True, False)
                elif unit == "week":
                    c = z + 7 * k
                    emit(c - 3, c + 4, m, "week", True, False)
                elif unit == "month":
                    emit(_month_first(y, mo + k), _month_first(y, mo + k + 1), m, "month",
                         False, False)
                else:
                    emit(_month_first(y + k, 1), _month_first(y + k + 1, 1), m, "year",
                         False, False)
            elif unit == "day":
                emit(z + sign, z + sign + 1, m, "day", True, False)
            elif unit == "week":
                if after:
                    emit(z + 1, z + 8, m, "week", True, False)
                else:
                    emit(z - 7, z, m, "week", True, False)
            elif unit == "weekend":
                sat = z + ((5 - _weekday(z)) % 7 or 7) if after else _weekend_before(z)
                emit(sat, sat + 2, m, "weekend", True, False)
            else:
                t = _WEEKDAYS[unit]
                w = z + ((t - _weekday(z)) % 7 or 7) if after else z - ((_weekday(z) - t) % 7
                                                                          or 7)
                emit(w, w + 1, m, "day", True, False)
            emit(z, z + 1, m, "day", True, yearless, group="sx")  # X itself
        elif kind == "month":
            year_tok = m["my"]
            mo = _month_of(text[m.start("mm"):m.end("mm")], need_case=year_tok is None)
            if mo is None:
                continue
            qual = m["mq"]
            if year_tok is not None:
                y = int(year_tok)
                if not 1 <= y <= 9999:
                    continue
                z0, z1, prec, widen = _month_part(y, mo, qual)
                emit(z0, z1, m, prec, widen, False)
                coarse_absolute = True
                continue
            prep = m["mp"] or ""
            if not prep and qual is None:
                continue  # a bare month name without a year: too ambiguous
            if prep in ("last", "past", "previous"):
                y = ref_y if mo < ref_m else ref_y - 1
            elif prep == "this":
                y = ref_y
            else:
                y = ref_y if mo <= ref_m else ref_y - 1
            z0, z1, prec, widen = _month_part(y, mo, qual)
            if z0 * _DAY_S - (slack if widen else 0) >= clip_s:
                if prep == "this":
                    continue
                z0, z1, prec, widen = _month_part(y - 1, mo, qual)
            emit(z0, z1, m, prec, widen, True)
        elif kind == "season":
            first = _SEASONS[m["ss"]]
            qual = m["sq"]
            if m["sy"] is not None:
                y = int(m["sy"])
                if 1 <= y <= 9999:
                    z0, z1, prec = _season(y, first, qual)
                    emit(z0, z1, m, prec, False, False)
                    coarse_absolute = True
                continue
            prep = m["sp"] or ""
            if not prep and qual is None:
                continue  # "summer camp", "cold winter days"
            y = ref_y if _month_first(ref_y, first) <= ref_day else ref_y - 1
            if prep in ("last", "past", "previous"):
                # The latest such season that ended before the reference day.
                while _month_first(y, first + 3) > ref_day:
                    y -= 1
            z0, z1, prec = _season(y, first, qual)
            if z0 * _DAY_S >= clip_s:
                if prep == "this":
                    continue
                z0, z1, prec = _season(y - 1, first, qual)
            emit(z0, z1, m, prec, False, True)
        elif kind == "year":
            if m["yp"] is None and m["yt"] is None and m["yq"] is None:
                continue  # a bare number
            y = int(m["yy"])
            z0, z1, prec = _year_part(y, m["yq"])
            emit(z0, z1, m, prec, False, False)
            coarse_absolute = True
        elif kind == "ago":
            n, unit = _number(m["an"]), m["au"]
            if unit == "day":
                emit(ref_day - n, ref_day - n + 1, m, "day", True, True)
            elif unit == "week":
                c = ref_day - 7 * n
                emit(c - 3, c + 4, m, "week", True, True)
            elif unit == "month":
                emit(_month_first(ref_y, ref_m - n), _month_first(ref_y, ref_m - n + 1), m,
                     "month", False, True)
            else:
                emit(_month_first(ref_y - n, 1), _month_first(ref_y - n + 1, 1), m, "year",
                     False, True)
        elif kind == "rolling":
            n = _number(m["rn"]) if m["rn"] is not None else 1
            unit = m["ru"].lower()
            emit(ref_day + 1 - n * _UNIT_DAYS[unit], ref_day + 1, m, unit, False, True)
        elif kind == "rel":
            unit = m["ru2"].lower()
            last = m["rl"] is not None
            if unit == "week":
                monday = ref_day - _weekday(ref_day)
                if last:
                    emit(monday - 7, monday, m, "week", True, True)
                else:
                    emit(monday, monday + 7, m, "week", True, True)
            elif unit == "weekend":
                if last:
                    sat = _weekend_before(ref_day)
                elif _weekday(ref_day) >= 5:
                    sat = ref_day - (_weekday(ref_day) - 5)
                else:
                    continue  # "this weekend" on a weekday is in the future
                emit(sat, sat + 2, m, "weekend", True, True)
            elif unit == "month":
                k = -1 if last else 0
                emit(_month_first(ref_y, ref_m + k), _month_first(ref_y, ref_m + k + 1), m,
                     "month", False, True)
            elif unit == "year":
                y = ref_y - 1 if last else ref_y
                emit(_month_first(y, 1), _month_first(y + 1, 1), m, "year", False, True)
            elif last:
                t = _WEEKDAYS[unit]
                w = ref_day - ((_weekday(ref_day) - t) % 7 or 7)
                emit(w, w + 1, m, "day", True, True)
        elif kind == "yesterday":
            emit(ref_day - 1, ref_day, m, "day", True, True)
        elif kind == "today":
            emit(ref_day, ref_day + 1, m, "day", True, True)
        else:  # recent
            pending_recent.append(m)
    if pending_recent and (explicit_day or not coarse_absolute):
        emit(ref_day - 14, ref_day + 1, pending_recent[0], "recent", False, True)
        found.sort(key=lambda pw: pw[0])  # stable: a shift stays before its own date
    return [w for _, w in found]


def mentioned_span(text: str, at: float) -> tuple[float, float] | None:
    """The time a memory's text names, resolved against its own event time ``at``: the core of
    the first time expression (:func:`resolve_time_refs`), or None when it names none.

    "Last Friday I went to a council meeting", said on Monday 10 July 2023, names Friday
    7 July: a question about "the meeting on July 7" finds it by that day, not only by the
    day it was said (temporal expression normalisation of the memory itself, as TimeML
    normalises a document's expressions against its creation time).

    Parameters
    ----------
    text : str
        The memory's text.
    at : float
        Its event time (``created_at``), Unix seconds.

    Returns
    -------
    (float, float) or None
        ``[start, end)`` in Unix seconds; None for no expression, or an ``at`` the resolver
        cannot anchor on (outside the years 1 to 9999).
    """
    try:
        windows = resolve_time_refs(text, at)
    except ValueError:   # an anchor outside the calendar the resolver covers: no span
        return None
    if not windows:
        return None
    return windows[0].core_start, windows[0].core_end


def past_end(windows: list, now: float) -> float | None:
    """For a question whose time windows have all ended by ``now`` ("where did I work in
    February?" asked in July), the last moment of them: just before the latest window's core
    ends, Unix seconds. None when it names no time or one that reaches ``now`` ("today": the
    present).

    Parameters
    ----------
    windows : list of TimeWindow
    now : float
        Unix seconds.
    """
    if not windows:
        return None
    end = max(w.core_end for w in windows)
    return math.nextafter(end, -math.inf) if end <= now else None


def window_masks(t, windows: list, mentioned=None) -> tuple:
    """Which memories a question's time windows hold: ``(core, inside)``, bool arrays of the
    shape of ``t``.

    Parameters
    ----------
    t : ndarray of float64, shape (n,)
        The memories' event times, Unix seconds.
    windows : list of TimeWindow
        From :func:`resolve_time_refs`.
    mentioned : (ndarray, ndarray) of float64, shape (n,) each, optional
        The span each memory's text names (:func:`mentioned_span`; ``(+inf, -inf)`` for none).

    Returns
    -------
    (ndarray of bool, ndarray of bool)
        ``core``: the event time lies in a window's core, or the mentioned span overlaps it;
        ``inside``: the same for a whole window (slack included). Recall's time cues weigh a
        core memory fully and one only inside by ``RecallConfig.time_slack_weight``; a mostly
        time question seeds them (:mod:`engramdb.recall`).
    """
    import numpy as np   # (here: the time grammar above needs no NumPy, and importing it alone stays cheap)

    core = np.zeros(len(t), bool)
    inside = np.zeros(len(t), bool)
    for w in windows:
        inside |= (t >= w.start) & (t < w.end)
        core |= (t >= w.core_start) & (t < w.core_end)
        if mentioned is not None:
            ms, me = mentioned
            inside |= (ms < w.end) & (me > w.start)
            core |= (ms < w.core_end) & (me > w.core_start)
    return core, inside
