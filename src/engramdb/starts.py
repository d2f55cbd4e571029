"""When a change a text reports takes effect, when it names a time to come: "Dana is taking over
the standup notes from me starting next week.", "Marcus Bell is taking over as my line manager
from October 1st.", "The rent goes up to $1,600 from October 1st."

The change readers (:mod:`engramdb.changes`, :mod:`engramdb.handovers`, :mod:`engramdb.swaps`)
read a change said to start later as no change: before that time the old value still holds.
:func:`change_start` finds such a start and resolves it forward from the time the text was said;
:func:`without_start` is the text without it, which the readers then read as a change in effect.
The write path stores such a report valid from its start (``valid_from``), so recall puts it
above the value it replaces only from then on (:func:`engramdb.recall.ranking.run` orders two
memories linked ``contradicts`` by which is valid at the recall's ``now``).

A start ends the sentence of the change it times ("... from October 1st."), or opens it before a
comma ("Starting next week, the daily standup moves to 9:30am."), and the clause it times is read
in the simple present ("Spanish class is moving to Wednesdays starting next week." as "moves
to": the readers know that form). A start elsewhere in
the text ("I'm on vacation from next week." beside "The landlord raised my rent to $1,600.", or
"Per the email from Monday, standup moved to 10am.") times nothing. It is a
marker, "starting", "from", "as of", "beginning", "effective" (also "starting on"), before a time
to come: "next week" / "next month" / "next year", "tomorrow", a weekday ("next Monday", "this
Monday", "Monday"), a date ("October 1st", "1 October", "the 1st of October", "the 20th"), or a
month (but not April, May, June or August after "from": "taking over from April" names a person);
a bare "next week" or "next Monday" counts too. A change told in the past tense ("The rent went
up to $1,600 from September 1st.") takes only an explicit "next ..." or "tomorrow": its weekday,
date or month is of the past. A start with a year, a range ("from Monday to Friday") and a day
no month has are none. Resolved in UTC, forward: a weekday is the first one after the day said,
a date without a year the first such date after it (within eight years: February 29), "the
20th" the 20th of this month or a later one, a month its first day, "next week" its Monday.

A start that is now ("Standup moved to 10am starting this week.", "from today", "from now on",
"as of this month", "effective immediately", after a marker) is no time to come: it is read as
"now" at the end of the clause it times ("Standup is at 10am from now on." as "Standup is at 10am
now."), a change that holds from when it was said (:func:`change_start` gives None for it). "2
hours from now" or "a fortnight from today" is a time, no start.

A past time that opens a sentence ("Last month my doctor raised my dose to 75 mcg.", "Two weeks
ago my doctor ...") is read as the readers read it after the verb, by :func:`past_lead_read`.

>>> from datetime import datetime, timezone
>>> said = datetime(2025, 9, 10, 12, tzinfo=timezone.utc).timestamp()   # a Wednesday
>>> day = lambda t: datetime.fromtimestamp(t, timezone.utc).date().isoformat()
>>> day(change_start("Dana is taking over the notes starting next week.", said))
'2025-09-15'
>>> day(change_start("Marcus is taking over as my line manager from October 1st.", said))
'2025-10-01'
>>> without_start("Marcus is taking over as my line manager from October 1st.")
'Marcus is taking over as my line manager.'
>>> change_start("Dana is taking over the notes. I'm away from next week.", said) is None
False
>>> change_start("Dana is taking over the notes. I'm away from next week.", said,
...              reads=lambda sentence: "taking over" in sentence or None) is None
True
"""
from __future__ import annotations

import calendar
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from .facts import SUBJECT_STARTS
from .sentences import sentence_starts
from .speakers import LABEL
from .timeref import CALENDAR_WORDS, LAST_SPANS

__all__ = ["change_start", "past_lead_read", "without_start"]

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name[:3]: i for name, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_ALT = "|".join(_WEEKDAYS)
_S = r"[^\S\n]+"
_ORD = r"(?:st|nd|rd|th)?"
#: A time to come, each alternative in a named group; and a start that is now (group ``now``:
#: "this week", "today", "now on", "immediately"), which a marker must lead (:func:`_starts`).
_WHEN = (rf"(?:(?P<next>next|this{_S}coming){_S}(?P<unit>week|month|year|{_DAY_ALT})"
         rf"|this{_S}(?P<this_day>{_DAY_ALT})"
         rf"|(?P<now>this{_S}(?:week|month|year)|today|now(?:{_S}on)?|immediately)"
         rf"|(?P<tomorrow>tomorrow)"
         rf"|(?P<md_month>{_MONTH_ALT})\.?{_S}(?P<md_day>\d{{1,2}}){_ORD}"
         rf"|(?:the{_S})?(?P<dm_day>\d{{1,2}}){_ORD}{_S}(?:of{_S})?(?P<dm_month>{_MONTH_ALT})"
         rf"|the{_S}(?P<nth>\d{{1,2}}){_ORD}"
         rf"|(?P<weekday>{_DAY_ALT})"
         rf"|(?P<month>{_MONTH_ALT}))")
#: A start that ends its sentence, or its clause before a semicolon ("Standup moved to 10:00
#: starting this week; Dana wants a focus block first."): a marker (and the comma before it) and
#: a time to come, then only closing punctuation (what :func:`without_start` removes is the
#: match up to them).
_START = re.compile(rf"(?:,?{_S}|^)(?:(?P<marker>starting|from|as{_S}of|beginning|effective|commencing)"
                    rf"(?:{_S}on)?{_S})?{_WHEN}\b(?:,?{_S}(?P<year>\d{{4}})\b)?(?=[\s.!?;:)\"'”’]*$|;)", re.I)
#: A start that opens its sentence, before a comma ("Starting next week, the daily standup moves
#: to 9:30am."): a marker is needed, and it times the rest of the sentence.
_LEAD = re.compile(rf"(?P<marker>starting|from|as{_S}of|beginning|effective|commencing)(?:{_S}on)?{_S}{_WHEN}\b"
                   rf"(?:,?{_S}(?P<year>\d{{4}})\b)?,{_S}", re.I)
#: A change verb in the progressive, of a change said to start later ("Spanish class is moving to
#: Wednesdays starting next week"): read as the simple present, third person after "is", base form
#: after "are" ("moves", "move"), as the change readers know them.
_PROGRESSIVE = {ing: forms.split() for ing, forms in {
    "moving": "moves move", "raising": "raises raise", "increasing": "increases increase", "lowering": "lowers lower",
    "reducing": "reduces reduce", "decreasing": "decreases decrease", "cutting": "cuts cut", "bumping": "bumps bump",
    "changing": "changes change", "adjusting": "adjusts adjust", "pushing": "pushes push",
    "rescheduling": "reschedules reschedule", "shifting": "shifts shift", "switching": "switches switch",
    "dropping": "drops drop", "upgrading": "upgrades upgrade", "downgrading": "downgrades downgrade",
    "extending": "extends extend", "going": "goes go", "rising": "rises rise", "climbing": "climbs climb",
    "jumping": "jumps jump"}.items()}
_PROGRESSIVE_RE = re.compile(r"\b(is|are|['’]s|['’]re)\s+(" + "|".join(_PROGRESSIVE) + r")\b", re.I)
#: A span just before a start that is now: with it, "from now" / "from today" tells a time, no
#: start ("moved to 2 hours from now").
_SPAN_BEFORE = re.compile(r"\b(?:second|minute|hour|day|week|fortnight|month|year|min|hr)s?,?\s*$", re.I)
#: Months that are also first names: after "from" they may name a person.
_NAMES = frozenset("april may june august".split())
#: Where a sentence ends (a line break, or ".", "!", "?" before a space).
_SENTENCE_END = re.compile(r"\n|(?<=[.!?])\s+")
#: Words of a text that may hold a start (a cheap test before the pattern).
_CUES = ("start", "from", "as of", "begin", "effective", "commenc", "next", "this coming", "tomorrow")
#: A past-tense verb of the sentence before its start: a weekday, date or month there is of the past.
_PAST = re.compile(r"\b(?:\w{2,}ed|went|took|gave|made|got|came|became|began|left|put|set|cut|ran|paid|rose|"
                   r"fell|grew|brought|bought|sold|sent|spent|told|said)\b", re.I)


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``."""
    out, at = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, len(text)))
    return out


def _starts(text: str) -> list[tuple[re.Match, int, int]]:
    """Each start of ``text``: those that end a sentence or a clause of it before a semicolon,
    else one that opens the sentence before a comma (after a speaker's label, if any), with the
    clause each times: (the start, clause start, clause end)."""
    low = text.lower()
    if not any(cue in low for cue in _CUES):
        return []
    out = []
    for a, b in _sentences(text):
        ends = [m for m in _START.finditer(text, a, b) if (m.group("marker") or m.group("next")) and m.start() > a
                and not (m.group("now") and _SPAN_BEFORE.search(text, a, m.start()))]
        # (not a time from now: "moved to 2 hours from now", "3 days from today")
        if ends:   # each clause before a semicolon may end in one ("Got the letter today; my rent is going up ...")
            at = a
            for m in ends:
                out.append((m, _last_clause_start(text, at, m.start()), m.start()))
                at = m.end()
            continue
        label = LABEL.match(text[a:b])   # (a chat message's "user: " before it)
        m = _LEAD.match(text, a + (label.end() if label else 0), b)
        if m is not None:
            out.append((m, m.end(), b))
    return out


def change_start(text: str, said_at: float, *, reads: Callable[[str], Any] | None = None) -> float | None:
    """The time to come (Unix seconds, UTC midnight of its first day) at which the change
    ``text`` (str) reports starts, resolved forward from ``said_at`` (Unix seconds): the start
    that ends the last sentence that has one (and whose clause ``reads``, when given, reads as a
    change once without its start: ``reads(clause)`` not None). None when no sentence names such
    a start, or only one not after the day it was said.

    Parameters
    ----------
    text : str
    said_at : float
        When the text was said (its event time), Unix seconds.
    reads : callable, optional
        ``str -> object or None``: whether a sentence reports a change
        (:func:`engramdb.changes.change_report`).

    Returns
    -------
    float or None
        None also for a start past the calendar's end (after the year 9999).
    """
    found = None
    for m, ca, cb in _starts(text):
        if reads is not None and reads(_present(text[ca:cb])) is None:
            continue   # (the start times another clause: "Standup moved to 10am, so I'll see you next Monday.")
        try:
            got = _resolved(m, float(said_at), past=_PAST.search(text, ca, cb) is not None)
        except (ValueError, OverflowError, OSError):   # past the calendar's end (year 9999) or before its start
            got = None
        if got is not None:
            found = got
    return found


#: Where a clause of a sentence starts ("Standup moved to 10am, so I'll see you ...").
_CLAUSE = re.compile(r"[,;:]\s|\b(?:so|and|but|then|because|while)\b", re.I)


def _last_clause_start(text: str, a: int, b: int) -> int:
    """Where the last clause of ``text[a:b]`` starts (``a`` when it has one clause)."""
    cut = a
    for cut_m in _CLAUSE.finditer(text, a, b):
        cut = cut_m.end()
    return cut


def _present(clause: str) -> str:
    """``clause`` with a change verb in the progressive read as the simple present ("is moving
    to" as "moves to")."""
    return _PROGRESSIVE_RE.sub(lambda m: _PROGRESSIVE[m.group(2).lower()][m.group(1).lower().lstrip("'’") in ("are", "re")],
                               clause)


def without_start(text: str) -> str:
    """``text`` (str) without the start of each of its sentences that times a change ("...,
    starting next week"; "Starting next week, ..."), the clause it times in the simple present
    ("Spanish class is moving to Wednesdays starting next week." reads "Spanish class moves to
    Wednesdays."), so a reader takes the change as in effect; a start that is now becomes "now"
    at the clause's end ("Standup is at 10am from now on." reads "Standup is at 10am now.");
    ``text`` itself when it names none.
    A start with a year, or on a day no month has, is left: it may be of the past."""
    for m, ca, cb in reversed(_starts(text)):
        if m.group("year") or not _may_come(m):
            continue
        clause = _present(text[ca:cb])
        if m.group("now"):   # (a start that is now says the change holds now: "is at 10am from now on")
            cut = _CLOSE.search(clause).start()
            clause = clause[:cut] + " now" + clause[cut:]
        if m.start() >= cb:   # a start that ends the clause it times
            text = text[:ca] + clause + text[m.end():]
        else:   # one that opens its sentence
            text = text[:m.start()] + clause + text[cb:]
    return text


#: A past time that opens a sentence, after its label if any (:data:`engramdb.speakers.LABEL`: "Last month my
#: doctor raised ...", "user: Last Monday, we moved ...", "Big news: last week I ...", "Yesterday
#: we moved ...", "Two weeks ago my doctor ...", "Recently I switched ..."): "last" and a span of
#: time (a calendar word, or a lower-case span: not "Last Week Tonight"), or "yesterday",
#: "recently" or a count of days, weeks, months or years "ago"; an optional comma, and the first
#: word of the clause it times (:func:`_opens_clause`).
_PAST_LEAD = re.compile(
    rf"(?P<time>(?i:last){_S}(?:"
    + "|".join(sorted({w for s in LAST_SPANS for w in (s, s.capitalize()) if w == s or s in CALENDAR_WORDS},
                      key=len, reverse=True))
    + rf")|(?i:yesterday|recently|(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|a{_S}few|"
    rf"a{_S}couple(?:{_S}of)?|several|\d+){_S}(?:day|week|month|year)s?{_S}ago))(?:,?{_S})(?P<next>[^\W\d_][\w'’]*)")
#: A past time that may open a sentence (the cheap test before segmenting the text).
_PAST_LEAD_ANY = re.compile(rf"\b(?:last{_S}(?:{'|'.join(sorted(LAST_SPANS, key=len, reverse=True))})"
                            rf"|yesterday|recently|ago)\b", re.I)
#: What closes a sentence (kept at its end when a time moves there).
_CLOSE = re.compile(r"[\s.!?;:…\"'”’]*$")
#: Words after an opening time that make it the subject ("Yesterday was my birthday", "Last
#: Friday was a holiday") or go on with it ("Yesterday morning", "Last week and this week").
_TIME_GOES_ON = frozenset("was is were felt seemed marked had has morning afternoon evening night and or".split())


def _opens_clause(m: re.Match) -> bool:
    """Whether the word after the time :data:`_PAST_LEAD` matched opens the clause it times: a
    subject (:data:`engramdb.facts.SUBJECT_STARTS`, or a capitalised word: "Last week Dana took
    over ...") after "last <span>", which may name a thing ("Last quarter revenue rose ...");
    after the others any word but one of :data:`_TIME_GOES_ON` ("Yesterday gym fees went up")."""
    word = m.group("next")
    if word.lower() in _TIME_GOES_ON:
        return False
    return m.group("time")[:4].lower() != "last" or word.lower() in SUBJECT_STARTS or word[:1].isupper()


def past_lead_read(text: str) -> str:
    """``text`` (str) as the change readers (:func:`engramdb.changes.change_report`) read a past
    time that opens one of its sentences (:data:`_PAST_LEAD`; the sentences as
    :func:`engramdb.sentences.sentence_starts` cuts each line): "last <span>" moved to the
    sentence's end, before its closing punctuation ("Last month my doctor raised my dose to 75
    mcg." reads "My doctor raised my dose to 75 mcg last month.": a time there tells a one-off
    night or a past value, "The temperature fell to 5 degrees last night."), "yesterday",
    "recently" and "<count> <unit> ago" dropped (they tell no reader anything, and at the end
    they would run into a rate or a later clause: "Recently, our rent went up to $2,050 a
    month."). Before the verb their words were read as the subject's, and "last" as "the last
    time". ``text`` itself when no sentence opens so.

    >>> past_lead_read("user: Last week, we moved standup to 10am!")
    'user: We moved standup to 10am last week!'
    >>> past_lead_read("Two weeks ago my doctor raised my dose to 20 mg.")
    'My doctor raised my dose to 20 mg.'
    >>> past_lead_read("Last Friday was a holiday, so standup moved to Thursday.")
    'Last Friday was a holiday, so standup moved to Thursday.'
    """
    if _PAST_LEAD_ANY.search(text) is None:
        return text
    out = []
    for line in text.split("\n"):
        bounds = [0, *sentence_starts(line), len(line)]
        for a, b in reversed(list(zip(bounds, bounds[1:]))):
            sentence = line[a:b]
            label = LABEL.match(sentence)
            m = _PAST_LEAD.match(sentence, label.end() if label else 0)
            if m is None or not _opens_clause(m):
                continue
            rest = sentence[m.start("next"):]
            time = m.group("time")
            if time[:4].lower() == "last":
                close = _CLOSE.search(rest).start()
                rest = rest[:close] + " " + time[:1].lower() + time[1:] + rest[close:]
            line = line[:a + m.start("time")] + rest[:1].upper() + rest[1:] + line[b:]
        out.append(line)
    return "\n".join(out)


def _may_come(m: re.Match) -> bool:
    """Whether the day ``m`` names exists in some year (not "September 31st", "the 40th")."""
    day = m.group("md_day") or m.group("dm_day") or m.group("nth")
    if day is None:
        return True
    month = m.group("md_month") or m.group("dm_month")
    top = 31 if month is None else calendar.monthrange(2024, _MONTHS[month.lower()])[1]   # (2024: a leap year)
    return 1 <= int(day) <= top


def _resolved(m: re.Match, said_at: float, *, past: bool) -> float | None:
    """:func:`change_start` of the start ``m`` said at ``said_at``; ``past``: the sentence tells the
    change in the past tense (only "next ..." and "tomorrow" then name a time to come)."""
    g = {k: (v.lower() if v else v) for k, v in m.groupdict().items()}
    if g["year"] or (past and not (g["next"] or g["tomorrow"])) or not _may_come(m):
        return None
    if g["month"] in _NAMES and g["marker"] == "from":
        return None   # ("taking over from April": a person)
    said = datetime.fromtimestamp(said_at, timezone.utc)
    day = datetime(said.year, said.month, said.day, tzinfo=timezone.utc)
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
    elif g["md_month"] or g["dm_month"]:
        month = _MONTHS[g["md_month"] or g["dm_month"]]
        start = _next_date(day, month, int(g["md_day"] or g["dm_day"]))
    elif g["nth"]:
        start = _next_date(day, day.month, int(g["nth"]), months=True)
    elif g["weekday"] or g["this_day"]:
        start = _next_weekday(day, _WEEKDAYS[g["weekday"] or g["this_day"]])
    elif g["month"]:
        month = _MONTHS[g["month"]]
        start = _month_start(day.year + (month <= day.month), month)
    if start is None or start <= day:
        return None
    return start.timestamp()


def _month_start(year: int, month: int) -> datetime:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=timezone.utc)


def _next_weekday(day: datetime, weekday: int) -> datetime:
    """The first ``weekday`` (0 Monday) after ``day``."""
    return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)


def _next_date(day: datetime, month: int, n: int, *, months: bool = False) -> datetime | None:
    """The first date ``n`` of ``month`` after ``day`` (of this or one of the next eight years;
    with ``months``, of this month or one of the next twelve), or None."""
    for step in range(13 if months else 9):
        if months:
            year, mon = day.year + (month - 1 + step) // 12, (month - 1 + step) % 12 + 1
        else:
            year, mon = day.year + step, month
        if n <= calendar.monthrange(year, mon)[1]:
            got = datetime(year, mon, n, tzinfo=timezone.utc)
            if got > day:
                return got
    return None
