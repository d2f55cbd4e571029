"""Change reports: a statement that a value was changed to another ("My doctor raised my
lisinopril to 20 mg", "Standup moved to 10am", "The landlord raised our rent to 2,100 dollars").

Rule-based, no model. :func:`engramdb.facts.conflict` compares two statements about one subject
in the same words ("I take 10 mg" / "I take 20 mg"); a change report says the new value in
other words and often with another subject (the doctor, the landlord), so the write path asks
this module instead: :func:`changes_value` holds when a report's new value replaces the one an
earlier statement gives the same thing ("I take 10 mg of lisinopril every morning"). The
write path then links the two ``contradicts`` (kind ``"change"``), whatever times they name
("moved my appointment to October 27" changes "Dentist appointment on October 20"), and recall
puts the later first and warns. It never supersedes: a report read in other words may be of
another thing (a hostile pass wrote 54 such reports that the first rules took for changes).

A report is: a change verb (:data:`CHANGE_VERBS`: raise, lower, cut, move, reschedule, ...), what
it changed (the words up to "to", else the words before the verb: "Standup moved to 10am"; after an
opening "since", "because of", "due to", "thanks to" from the last noun phrase on: "Since the line
closure my commute went up to 1 hour"), an optional "from <old value>", then "to" and the new
value (after "again": "moved it again, to April 22", "Dentist moved again, now April 22 at 3pm"): a clock time ("10am", "9:30", "14:00"), a date ("October 27", "27 October", a weekday), a
place known by its number ("Room 7", "gate B12", "floor 3") or a quantity (a number with the word or currency sign it counts: "20 mg", "$49", "2,100 dollars",
"30%"; a duration followed by "later", "earlier", "past" ... is a shift, none); or a clause "X is
now <value>" ("X now comes at", "now charges", "now takes": then the earlier statement says the
same of the same thing, :data:`_VERB_KINDS`), or the speaker's own amount now ("I'm taking 20 mg of
lisinopril now"; :func:`_now_report`). Not a report: a question (the sentences of a text that ask
are read past: "... raised my lisinopril to 20 mg. Should I take it at night?"); a change negated,
planned, proposed, asked for or rumoured (a word of :data:`engramdb.facts.NOT_DONE` in its sentence
before the verb: "we might move", "I want to raise it", "Please move ...", "Rumor has it they moved
..."); an assistant's words (advice or an offer); a one-off (:data:`_ONE_OFF`: "for the summer",
"only", or a clock time on a named day, "overnight"; a span the value holds for, said right after
it: "to 40 mg for 5 days", :data:`_FOR_A_SPAN`); a change in a past year ("In 2019 standup was
moved to 10am", "... in 2019") or at a place left ("At my old apartment ..."), or undone ("then
back to 9:30am"); a story, dream or supposition ("Imagine the landlord raised ..."). A past time
that opens a sentence is read at its end (:func:`engramdb.starts.past_lead_read`: "Last month
my doctor raised my lisinopril to 20 mg." as "... to 20 mg last month."). What changed
may be named in the clause before ("Book club has changed too: it's now on Wednesdays at 6:30pm"),
and the old value said as why it changed is not given again ("..., Sundays are too busy now",
"... because Room 3 flooded"; but "9:30am is still ours" gives it). A thing in use replaced by
another ("We moved from Poetry to uv") is read by :mod:`engramdb.swaps`, as a report of sort "swap";
a duty or role passed from one person to another ("Aisha is taking over the backend") by
:mod:`engramdb.handovers`, as a report of sort "handover".

The earlier statement must name what was changed (every content word of it, but for the generic
nouns of :data:`MEASURE_NOUNS` such as "dose" or "price" when others are named), be about the same
party (no "My doctor raised my lisinopril" for "Dad takes ...", no "for Max" for another, no "their
plan" of a company it does not name), state a standing value (no past event: "I bought the TV for
$800"), and give exactly one value of the same sort (one time; one date; one number of the same
unit, or of another unit of the same quantity: "500 mg" against "1 g", "40 minutes" against "1
hour", "5 miles" against "10 km"), different from the new one: "I take 10 mg of lisinopril and 5 mg
of amlodipine" gives two values in mg, and which one changed is not said. A report of the speaker's
thing changes no other person's ("our rent" / "My sister's rent is $1,500"); when the thing recurs
(:data:`_OCCASIONS`) may be said by the report only, not otherwise by the two ("The evening
standup" / "The morning standup"). A statement said after the report (the write path compares the
two whichever was stored first) must state the present value, the speaker's own when the report is
of theirs (:func:`changes_value`).

Examples
--------
>>> changes_value("My doctor raised my lisinopril to 20 mg.", "I take 10 mg of lisinopril every morning.")
True
>>> changes_value("Standup moved to 10am.", "Standup is at 9:30am every day.")
True
>>> changes_value("My doctor raised my lisinopril to 20 mg.", "I take 10 mg of metformin every morning.")
False
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .facts import (
    ADVERBS, FUNCTION_WORDS, MONTHS, NEGATIONS, NOT_NOW, NOT_PRESENT, NUMBER_WORDS, _event_report, _stem, not_done,
    speaker_label, subject_of,
    without_questions,
)
from .handovers import hands_over, handover_report
from .patterns import DIGIT, Needles
from .renames import rename_report, renames
from .sentences import several_sentences
from .speakers import PERSON_NOUNS, labelled
from .standing import changes_standing, standing
from .starts import past_lead_read, without_start
from .swaps import replaces, swap_report
from .thirdperson import in_first_person

__all__ = ["CHANGE_VERBS", "MEASURE_NOUNS", "ChangeReport", "asked_measures", "asked_sorts", "change_report", "changed_clauses",
           "changes_value", "gives_value", "named_stems", "only_value_changed",
           "shares_value", "word_stems"]

#: Verbs that report a value changed to another (all forms the rule reads).
CHANGE_VERBS = frozenset(
    "raise raised raises increase increased increases lower lowered lowers reduce reduced reduces "
    "decrease decreased decreases cut cuts bump bumped bumps upped change changed changes adjust "
    "adjusted adjusts move moved moves push pushed pushes reschedule rescheduled reschedules shift "
    "shifted shifts switch switched switches drop dropped drops update updated updates upgrade "
    "upgraded upgrades downgrade downgraded downgrades trim trimmed trims shorten shortened shortens "
    "extend extended extends set doubled halved tripled".split())
#: Verbs by which a value changes of itself ("My rent went up to $1,450 a month"; "go" only with
#: its particle: not "We went to 3 stores"). Such a sentence often tells of a value somewhere or
#: sometime else ("Coffee rose to $5 in Norway", "My heart rate went up to 160 bpm during the
#: run"), so it reports a change only of an amount that ends its sentence, or is followed by a
#: rate alone ("a month", "per hour", "now"). The state after a fall counts too ("Our CI pipeline
#: is down to 4 minutes."); not after a rise: "up to" is as often a cap ("The fine is up to $500.",
#: "Discounts are up to 40%.").
INTRANSITIVE_VERBS = frozenset(
    "rose rise rises risen fell falls fallen climbed climbs jumped jumps grew grows grown".split()
    + [f"{go} {way}" for go in ("go", "goes", "went", "gone") for way in ("up", "down")]
    + [f"{be} down" for be in ("is", "are", "'s", "’s")])
_RATE_TAIL = re.compile(r"[^\S\n]*(?:(?:a|an|per|each|every)[^\S\n]+[\w-]+[^\S\n]*)?(?:now[^\S\n]*)?"
                        r"(?:(?:from|starting|as[^\S\n]+of)[^\S\n]+(?:this[^\S\n]+(?:month|week|year)|today|now(?:[^\S\n]+on)?)"
                        r"[^\S\n]*)?(?:[.!;]|$)", re.I)
#: "put <thing> up / down to": a value raised or lowered ("Spotify just put the family plan up to £19.99").
_PUT_UP = re.compile(r"\bput((?:[^\S\n]+(?!up\b|down\b)[\w'’&-]+){1,5}?)[^\S\n]+(up|down)[^\S\n]+to\b", re.I)
#: Nouns that say which measure of a thing changed, not which thing ("my lisinopril dose", "the
#: price of the Pro plan"): the earlier statement need not use them when it names the thing.
MEASURE_NOUNS = frozenset(
    "dose doses dosage amount level price prices cost fee rate time date day slot limit budget size number "
    "value".split())
#: Verbs before "to" + change verb that say the change was made ("The board voted to increase
#: dues", "we decided to move standup"); any other word before "to" leaves it a plan ("we need
#: to"). ("had to" is a past perfect, :data:`engramdb.facts.NOT_DONE`, before this is asked.)
_DONE_BEFORE_TO = frozenset("voted decided agreed chose managed got finally".split())
#: Words that make a change one occurrence's, not the standing value's ("for Black Friday weekend
#: only", "just for tomorrow", "temporarily", "this week's 1:1").
_ONE_OFF = frozenset("only temporarily temporary once today's tonight's tomorrow's week's summer winter "
                     "holiday holidays snowstorm storm dismissal overnight".split())
#: Phrases of the same ("just for tomorrow", "this Friday", "this sprint", "next time", "every
#: time"); "this morning" (said of when it changed: "Saw my doctor this morning. She raised my
#: dose to 20 mg.") and "time" as what changed ("Standup time moved to 10am") are none.
_ONE_OFF_PHRASE = re.compile(r"\bjust\s+for\b|(?<!from\s)(?<!starting\s)(?<!as\sof\s)\bthis\s+(?!morning\b|afternoon\b|evening\b)[\w'’]+|"
                             r"\b(?:next|every|any|each|first|last|one|that|same|the|it'?s|high|about)\s+time\b|"
                             r"\btime\s+(?:i|we|you|they|he|she)\b|"
                             r"\bwhile\s+(?:my|our|your|his|her|their|the|i|we|you|they|he|she)\b|"
                             # a while it holds for, anywhere ("For the next two weeks, standup is at 10am
                             # now.", "Until the launch, ..."; not "until further notice", nor a closing
                             # time: "we're extending our hours until 10pm")
                             r"\bfor\s+the\s+(?:next|coming)\s+(?:[\w-]+\s+){0,2}?(?:days?|weeks?|months?|sprints?)\b|"
                             r"\buntil\s+(?!further\b|now\b|\d)", re.I)
_ONE_OFF_NEEDS = Needles(("just", "this", "time", "while", "next", "coming", "until"))
#: Words of when a thing recurs: a report that names one changes a statement that names none
#: ("My doctor raised my evening lisinopril to 20 mg." / "I'm on 10 mg of lisinopril now.", "The
#: daily standup moved to 10am." / "Standup is at 9:30am."), not one that names another (stems).
_OCCASIONS = frozenset(_stem(w) for w in "daily weekly monthly yearly annual morning evening night nightly usual "
                       "regular".split())
#: A change told as history: in a named year ("moved to 10am in 2019"), or of a place the speaker
#: left ("At my old apartment the landlord raised the rent to $2,100").
_HISTORY = re.compile(r"\b(?:(?:in|since|during|back{_S}in){_S}(?:19|20)\d\d\b|(?:at|in|for){_S}(?:my|our){_S}"
                      r"(?:old|previous|former|last){_S}(?:apartment|place|house|home|job|office|company|school|gym|"
                      r"employer|team|landlord)s?\b)".replace("{_S}", r"[^\S\n]+"), re.I)
#: A span of time right after the new value, in its clause, that the value holds for ("raised my
#: prednisone to 40 mg for 5 days", "moved standup to 10am for two weeks"): a value for a while,
#: no change (helper-222: anywhere in the text it read "dizzy for a few days" and "been on it for
#: two weeks" so too). Not after money ("$30 for a day" is a rate) nor "month-to-month".
_FOR_A_SPAN = re.compile(r"[^\s.,;:!?]+(?:[^\S\n]+[^\s.,;:!?]+){0,2}?[^\S\n]+for[^\S\n]+(?:the[^\S\n]+next[^\S\n]+)?"
                         r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a[^\S\n]+few|"
                         r"a[^\S\n]+couple(?:[^\S\n]+of)?|several|\d+)[^\S\n]+"
                         r"(?:day|night|week|weekend|month|sprint)s?(?![-\w])", re.I)
_MONEY = frozenset("$ € £ ¥ ₹ chf".split())
#: A clock time changed on a named day changes that day's occurrence ("This morning I pushed my
#: pill to 11am").
_THAT_DAY = re.compile(r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week))\b", re.I)
#: Particles of a phrasal verb ("bumped my dose up to", "moved the freeze up to"): no thing named.
_PARTICLES = frozenset("up down back out off over".split())
#: Possessives of someone other than the speaker.
_THIRD = frozenset("his her their its".split())
_FIRST = frozenset("i i'm i've me my mine we we're we've us our ours".split())
_MY = frozenset("my our".split())
#: Words of a statement about things in general, no one's value ("Metformin usually comes in 500
#: mg tablets", "The average rent in Denver is $1,700").
_GENERIC = frozenset("average typical typically usually generally normally median".split())
#: Who else a statement opened by "my" / "our" may be about ("My dad takes 500 mg").
_OTHER_PARTIES = PERSON_NOUNS | frozenset("cat cats dog dogs pet pets".split())
#: ("we plan to move standup to 10am"; before "to" only: "Sprint planning is now at 10:30am" is no plan)
_PLAN = frozenset("plan plans planning planned".split())


def _unplanned(words: list[str]) -> list[str]:
    """``words`` (lower-cased) without a word of :data:`_PLAN` that no "to" or "on" follows:
    "Sprint planning moved to Tuesdays" is no plan, "we plan to move standup" and "we're planning
    on moving it" are."""
    return [w for i, w in enumerate(words) if w not in _PLAN or words[i + 1: i + 2] in (["to"], ["on"])]


#: Words before a change verb that put it in the future ("we'll", "next sprint", "soon").
_LATER = re.compile(r"\b(?:\w+'ll|\w+’ll|next\s+(?:week|sprint|month|quarter|year|time|release)|soon|"
                    r"tomorrow|someday|eventually)\b")

_PASSIVE = frozenset("was were been got get gets has have is are".split())
_VERB_ALT = "|".join(sorted(CHANGE_VERBS | INTRANSITIVE_VERBS, key=len, reverse=True))
_REPORT = re.compile(
    rf"\b(?P<verb>{_VERB_ALT})\b(?P<what>(?:[^\S\n]+(?!to\b|from\b)(?:\d:\d(?![\w:])|[\w'’&-]+)){{0,6}}?)"
    rf"(?:[^\S\n]+from[^\S\n]+(?P<was>(?:[^,;\n]|,(?=\d))*?))?"
    # ("moved it again, to April 22", "Dentist moved again, now April 22 at 3pm": helper-227)
    rf"(?:,?[^\S\n]+again(?:,?[^\S\n]+now)?,?)?"
    rf"(?:[^\S\n]+to|(?<=again,[^\S\n]now)|(?<=again[^\S\n]now))[^\S\n]+(?P<value>\S+(?:[^\S\n]+\S+){{0,2}})", re.I)
#: Where the clause of a change verb starts: after a label, a comma, "and", "so", "then".
_CLAUSE_MARKS = r"[:,](?!\d)|;|\s[-–—]\s"   # (a comma or colon inside a number is none: "1,400", "9:30")
_CLAUSE = re.compile(rf"(?:{_CLAUSE_MARKS}|\b(?:and|so|then|but)\b)", re.I)
_MONTH_ALT = "|".join(sorted(MONTHS | {"may"}, key=len, reverse=True))
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
#: The sorts of value, each a pattern read at the start of the text after "to", and anywhere in
#: the earlier statement.
_TIME = re.compile(r"(?<![\w:.,])(\d{1,2})(?::(\d\d))?[^\S\n]*([ap])\.?m\b\.?|(?<![\w:.,])(\d{1,2}):(\d\d)(?![\w:])", re.I)
#: (a date said with its weekday is one date: "Tuesday, September 23" is September 23)
_DATE = re.compile(rf"\b(?:(?:(?:{_WEEKDAYS}),?[^\S\n]+(?=(?:{_MONTH_ALT}|\d)))?"
                   rf"(?:({_MONTH_ALT})\.?[^\S\n]+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?"
                   rf"[^\S\n]+(?:of[^\S\n]+)?({_MONTH_ALT})\b)|({_WEEKDAYS})s?\b)", re.I)
_AMOUNT = re.compile(r"(?<![\w.,])([$€£¥₹]|(?:USD|EUR|GBP|CHF|JPY|INR|CAD|AUD)(?=[^\S\n]*\d))?"
                     r"[^\S\n]*(\d+(?:[.,]\d+)*)(?![\d:])[^\S\n]*(%|[^\W\d_]+)?")
#: What every match of :data:`_DATE` holds: a month's first three letters, or a weekday's "day".
_DATE_NEEDS = Needles(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "day"))
_MONTH_NUMBER = {m: i for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}


class ChangeReport(NamedTuple):
    """A parsed change report: ``what`` (stems of the content words naming what changed, the
    measure nouns apart in ``measure``), the new value as ``(sort, unit, value)``: sort
    "time" / "date" / "amount" / "label" (a place known by its number, its noun the unit:
    ``("label", "room", "7")``), ``unit`` the counted word's stem or currency sign ("" for times
    and dates), ``owners``, the possessives before it that name someone else ("his",
    "brother's"), ``was``, the old value a "from ... to" report names (then the earlier statement must give
    it: "moved from 3:30 to 1pm" changes no "is at 3pm"), ``mine`` (the changed thing is the
    speaker's: "my lisinopril"), ``names`` (capitalised words of the clause before the verb:
    "Globex"), ``beneficiaries`` (whom it is for: "for Max"), ``days`` (the days and dates the
    report names besides its value: "on Friday") and ``kind``, for a clause "X now <verb> <value>"
    (:func:`_now_report`), the stems of its verb's kind that the earlier statement must hold
    (:data:`_VERB_KINDS`: "Maria now comes at 7:30am" changes no "Maria leaves at 5pm"), with its
    rate and what else it names (:func:`_now_kind`). A report of sort "swap" (a thing in use
    replaced, :mod:`engramdb.swaps`) gives the new name as its value (empty for a drop); one of
    sort "handover" (a duty passed on, :mod:`engramdb.handovers`) the new holder's name, with the
    duty's stems as ``what``."""

    what: frozenset[str]
    measure: frozenset[str]
    value: tuple[str, str, str]
    owners: frozenset[str] = frozenset()
    was: tuple[str, str, str] | None = None
    mine: bool = False
    names: frozenset[str] = frozenset()
    beneficiaries: frozenset[str] = frozenset()
    days: frozenset[str] = frozenset()
    kind: frozenset[str] = frozenset()


#: Word tokens as :func:`engramdb.facts.tokens` reads them, but a pair of single digits joined by a
#: colon is one word, the name of a thing ("our 1:1", "the 2:1 mix"), no clock time.
_TOKEN = re.compile(r"(?<![\w:])\d:\d(?![\w:])|[^\W_]+(?:['’][^\W_]+)*")


def _tokens(text: str) -> list[str]:
    """The word tokens of ``text`` (:data:`_TOKEN`)."""
    return _TOKEN.findall(text)


def _time_value(m: re.Match) -> str:
    if m.group(1) is not None:   # 9:30am, 10 pm
        hour, minute = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0), int(m.group(2) or 0)
    else:
        hour, minute = int(m.group(4)), int(m.group(5))
    return f"{hour:02d}:{minute:02d}"


def _date_value(m: re.Match) -> str:
    if m.group(5) is not None:
        return m.group(5).lower()
    month, day = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(4), m.group(3))
    return f"{_MONTH_NUMBER[month.lower()[:3]]:02d}-{int(day):02d}"


#: Currency and percent words as their signs ("2100 dollars" is "$2,100").
_UNIT_SIGNS = {"dollar": "$", "usd": "$", "buck": "$", "euro": "€", "eur": "€", "pound": "£", "gbp": "£",
               "quid": "£", "yen": "¥", "jpy": "¥", "rupe": "₹", "inr": "₹", "franc": "chf",
               "percent": "%",
               # a unit's names, one spelling each (stems: "milligrams" / "mg", "minutes" / "min")
               "milligram": "mg", "microgram": "mcg", "µg": "mcg", "μg": "mcg", "millilit": "ml", "gram": "g",
               "kilogram": "kg", "kilo": "kg", "lb": "lbs",
               "minut": "min", "hour": "hr", "hrs": "hr", "second": "sec", "mile": "mi", "kilometr": "km"}


#: Words after a number that say when, not what it counts ("raised the thermostat to 72 last night").
_WHEN_WORDS = frozenset("last next yesterday today tonight tomorrow ago".split())
#: What an amount is "of", up to three words before a time ("Switched to 20 mg of lisinopril last
#: month": lisinopril, not "last month").
_OF_THING = re.compile(rf"\bof\s+((?:(?!(?:{'|'.join(sorted(_WHEN_WORDS | {'this'}))})\b)[\w'’-]+\s*){{1,3}})", re.I)


def _amount_value(m: re.Match) -> tuple[str, str] | None:
    sign, number, word = m.group(1), m.group(2), m.group(3)
    unit = sign.lower() if sign else (word.lower() if word == "%" else _stem(word.lower()) if word else "")
    unit = _UNIT_SIGNS.get(unit, unit)
    if not unit or (not sign and word and (word.lower() in FUNCTION_WORDS or word.lower() in _WHEN_WORDS)):
        return None   # a bare number counts nothing named ("to 72 last night": no unit "last")
    return unit, number.replace(",", "")


#: Places known by a number: a room, gate, platform ... ("Room 7", "gate B12", "Apartment 4B",
#: "desk #12"), a value of sort "label" whose unit is the noun.
_PLACE_NOUNS = ("room|rooms|gate|platform|terminal|suite|floor|building|studio|court|lane|bay|desk|locker|apartment|"
                "apt|unit|office|seat|table|pitch|field|hall|ward|level|zone|track|dock|stall|booth|classroom|lab|"
                "cabin|berth")
_NUMBERED = re.compile(rf"\b({_PLACE_NOUNS})[^\S\n]+(?:(?:no\.?|number|#)[^\S\n]*|#)?([A-Z]?\d{{1,4}}[A-Z]?(?![\w:.,]\w)|"
                       rf"(?-i:[A-HJ-Z])(?![\w'’]))", re.I)   # ("Studio B"; not "in the hall I saw")
_PLACE_NEEDS = Needles(_PLACE_NOUNS.split("|"))
#: Places of one kind, whose numbers replace one another ("Pilates moved to Room 4" of "in Studio B").
_PLACE_KIN = {noun: kind for kind, nouns in (
    ("venue", "room studio hall classroom lab court pitch field track lane"), ("transport", "gate terminal platform dock bay"),
    ("spot", "desk seat table booth stall locker office cabin berth"), ("storey", "floor level"),
    ("home", "apartment unit suite building")) for noun in nouns.split()}


def _numbered_value(m: re.Match) -> tuple[str, str, str]:
    """The (sort, unit, value) of a place known by its number: ("label", "room", "7")."""
    noun = m.group(1).lower()
    return ("label", "apartment" if noun == "apt" else noun.removesuffix("s") if noun == "rooms" else noun,
            m.group(2).upper())


def _values(text: str) -> list[tuple[str, str, str]]:
    """Every (sort, unit, value) of ``text``: times, dates, places known by a number
    (:data:`_NUMBERED`), then amounts outside them."""
    out: list[tuple[str, str, str]] = []
    taken: list[tuple[int, int]] = []
    # (each pattern only where it can match: times and amounts hold a digit, dates a month or
    # weekday, places a place noun; most texts hold none of them)
    digit = DIGIT.search(text) is not None
    low = text.lower()
    for m in _TIME.finditer(text) if digit else ():
        out.append(("time", "", _time_value(m)))
        taken.append(m.span())
    for m in _DATE.finditer(text) if _DATE_NEEDS.may_hold(text, low) else ():
        out.append(("date", "", _date_value(m)))
        taken.append(m.span())
    for m in _NUMBERED.finditer(text) if _PLACE_NEEDS.may_hold(text, low) else ():
        if not any(a <= m.start(2) < b for a, b in taken):
            out.append(_numbered_value(m))
            taken.append(m.span())
    for m in _AMOUNT.finditer(text) if digit else ():
        if any(a <= m.start(2) < b for a, b in taken):
            continue
        got = _amount_value(m)
        if got is not None:
            out.append(("amount", *got))
    return out


def gives_value(text: str) -> bool:
    """Whether ``text`` (str) gives a time, date or amount: a value a change report can change
    (:func:`changes_value`)."""
    return bool(_values(text))


def named_stems(text: str) -> frozenset[str]:
    """The word stems a statement must hold for the change report ``text`` (str) to change its
    value (:func:`changes_value`: what the report names, when the thing recurs aside); empty when
    ``text`` reports no change of a time, date or amount."""
    report = change_report(text)
    if report is None or report.value[0] in ("name", "swap", "handover", "rename"):
        return frozenset()
    return _named(report) - _OCCASIONS


def _named(report: ChangeReport) -> frozenset[str]:
    """The stems of what ``report`` names as changed: its words, else its measure nouns."""
    return report.what if report.what else report.measure


def word_stems(text: str) -> frozenset[str]:
    """The stems of the words of ``text`` (str), lower-cased, as :func:`changes_value` reads a
    statement."""
    return frozenset(_stem(t.lower()) for t in _tokens(text))


#: What may stand before the value after "to": an article, or a word that rounds it ("to the $29
#: tier", "dropped to about 4 minutes", "went up to roughly $2,000", "to ~30 minutes").
_VALUE_LEAD = re.compile(r"^\s*(?:(?:a|an|the|about|around|roughly|approximately|nearly|almost|just|under|over)\s+|~\s*)*",
                         re.I)


def _first_value(text: str) -> tuple[str, str, str] | None:
    """The value that opens ``text`` (what follows "to" in a report), or None."""
    text = _VALUE_LEAD.sub("", text)   # "to the $29 tier", "to about 4 minutes"
    m = _NUMBERED.match(text)
    if m is not None:   # ("to Room 7")
        return _numbered_value(m)
    for pattern, sort in ((_TIME, "time"), (_DATE, "date")):
        m = pattern.match(text)
        if m is not None:
            return (sort, "", _time_value(m) if sort == "time" else _date_value(m))
    m = _AMOUNT.match(text)
    if m is None:
        return None
    got = _amount_value(m)
    if got is not None and got[0] in _DURATION_UNITS and _SHIFT.match(text, m.end()):
        return None   # a shift, no length: "moved to 1 hour later", "to 10 minutes past 9"
    return None if got is None else ("amount", *got)


#: Units of a duration, as :func:`_amount_value` gives them, and the words after one that make it
#: a shift of a time or date rather than a length ("pushed to 1 hour later", "moved to 2 hours
#: from now", "to 20 minutes earlier", "to 10 minutes past 9").
_DURATION_UNITS = frozenset("sec min hr day week".split())
_SHIFT = re.compile(r"[^\S\n]*(?:later|earlier|sooner|from[^\S\n]+now|ago|past|before|after|ahead|behind|late|early)\b",
                    re.I)


def _sentence_start(head: str) -> str:
    """The text of ``head`` from the start of its last sentence (after ". ", "! ", "? ")."""
    cut = max(head.rfind(". "), head.rfind("! "), head.rfind("? "))
    return head[cut + 2:] if cut >= 0 else head


def _owners(words: list[str]) -> frozenset[str]:
    """The possessives of ``words`` that name someone other than the speaker ("his", "brother's";
    not "let's", the speaker deciding: "Let's bump my grocery budget to $550")."""
    return frozenset(t for t in words if t in _THIRD or _anothers(t))


#: Words before "'s" that make no possessive ("let's", "it's", "that's").
_NOT_POSSESSIVE = frozenset("let it that what here there who where when how he she".split())


def _anothers(word: str) -> bool:
    """Whether ``word`` (lower-cased) is the possessive of someone other than the speaker
    ("brother's", "Anna's"; not "let's", "it's")."""
    return word.endswith(("'s", "’s")) and word[:-2] not in _FIRST and word[:-2] not in _NOT_POSSESSIVE


def _content(words: list[str]) -> list[str]:
    """Content words (a word with a digit is one when it is no bare number: "Q3", "v2")."""
    return [w for w in words if w not in FUNCTION_WORDS and w not in NEGATIONS and not w.isdigit()]


@lru_cache(maxsize=1 << 14)
def change_report(text: str) -> ChangeReport | None:
    """``text`` read as a change report (module docstring), or None. Of several changes in one
    text ("moved standup to 10am on Monday, then moved it back to 9:30am") the last counts.

    >>> change_report("The landlord raised our rent to 2,100 dollars.").value
    ('amount', '$', '2100')
    >>> change_report("We might move standup to 10am.") is None
    True
    """
    if re.match(r"\s*assistant\s*:", text, re.I):
        return None   # (an assistant's words are advice or an offer)
    # ("... raised my lisinopril to 20 mg. Should I take it at night?"; a change said to start on a
    # day to come is read as a change: the write path stores it valid from that day, engramdb.starts)
    text = without_questions(past_lead_read(without_start(in_first_person(text))))   # ("The user's rent ...")
    if not text:
        return None
    got = _value_report(text)
    if got is None:
        got = _standing_report(text)
    if got is None:
        got = _swap_report(text)
    if got is None:
        got = _rename_report(text)
    return got if got is not None else _handover_report(text)


#: Words that open a consequence ("..., so my appointment moved to ..."): a one-off said of the
#: cause before them is not the change's.
_SO = re.compile(r"\b(?:so|therefore|which\s+means)\b", re.I)


def _consequence_start(head: str) -> int:
    """Where the consequence that holds the end of ``head`` starts: after its last "so",
    "therefore" or "which means", else 0."""
    last = None
    for last in _SO.finditer(head):
        pass
    return 0 if last is None else last.end()


def _one_off_in(text: str) -> bool:
    """Whether ``text`` says a change is one occurrence's (:data:`_ONE_OFF`, :data:`_ONE_OFF_PHRASE`)."""
    return bool(_ONE_OFF.intersection(t.lower() for t in _tokens(text)) or _one_off_phrase(text))


def _one_off_phrase(text: str) -> bool:
    """Whether ``text`` holds a phrase of :data:`_ONE_OFF_PHRASE` (each holds one of its words
    :data:`_ONE_OFF_NEEDS`)."""
    return _ONE_OFF_NEEDS.may_hold(text) and _ONE_OFF_PHRASE.search(text) is not None


def _value_report(text: str) -> ChangeReport | None:
    """:func:`change_report` of a time, date or amount (``text`` holds no sentence that asks:
    "Did they move the closing time to 5pm? I heard a rumor." is read as "I heard a rumor.")."""
    if _holds_no_report(text):   # (the cheap test first: most texts stop here)
        return None
    low = [t.lower() for t in _tokens(text)]
    one_off = bool(_ONE_OFF.intersection(low) or _one_off_phrase(text))
    if one_off and not _SO.search(text):
        return None
    if "put" in low:   # "Spotify put the family plan up to £19.99" is "raised the family plan to"
        text = _PUT_UP.sub(lambda m: ("raised" if m.group(2).lower() == "up" else "lowered") + m.group(1) + " to", text)
    found = None
    for m in _REPORT.finditer(text):
        value = _first_value(m.string[m.start("value"):])   # (all of it: "to 2 hours from now")
        if value is None and m.group("was"):
            # "from 1,800 to 2,000": the unit said once, after the old value, or never (then the
            # earlier statement's amount of the old number gives it: changes_value)
            was = _first_value(m.group("was"))
            bare = re.match(r"\s*(\d+(?:[.,]\d+)*)(?![\d:])", m.group("value"))
            bare_was = re.match(r"\s*(\d+(?:[.,]\d+)*)\s*$", m.group("was"))
            if was is not None and was[0] == "amount" and bare is not None:
                value = ("amount", was[1], bare.group(1).replace(",", ""))
            elif was is None and bare is not None and bare_was is not None:
                value = ("amount", "", bare.group(1).replace(",", ""))
        if value is not None and (m.group("verb").lower() not in INTRANSITIVE_VERBS or _ends_at_amount(m, value)):
            found = (m, value)
    if found is None:
        return None if one_off else _now_report(text)
    m, value = found
    if one_off and _one_off_in(text[_consequence_start(text[: m.start("verb")]):]):
        return None   # (a one-off said of the cause only counts in it: "Dr. Okafor is out sick this
        # week, so my appointment moved to Thursday, October 2 at 9am.")
    was = _first_value(m.group("was")) if m.group("was") else None
    if was is None and value[1:2] == ("",) and value[0] == "amount":
        was = ("amount", "", m.group("was").strip().replace(",", ""))
    if value[0] == "time" and _THAT_DAY.search(text):
        return None
    head = text[: m.start("verb")]
    after = text[m.start("value"):]
    if _FOR_A_SPAN.match(after) and value[1] not in _MONEY:
        return None   # a value for a span said with it: "raised my prednisone to 40 mg for 5 days"
    clause = _CLAUSE.split(head)[-1]
    before = [t.lower() for t in _tokens(head)]
    said = [t.lower() for t in _tokens(_sentence_start(head))]   # the report's sentence up to its verb
    if not_done(_unplanned(said)) or _LATER.search(" ".join(said)):   # ("Next sprint we'll move standup to 10am")
        return None
    if (any(len(t) == 4 and t.isdigit() and t[:2] in ("19", "20") for t in said) or re.search(r"\bback to\b", after)
            or _HISTORY.search(text)):
        return None   # "In 2019 standup was moved to 10am"; "moved to 10am, then back to 9:30am"; "... in 2019"
    if before[-1:] == ["to"] and (len(before) < 2 or before[-2] not in _DONE_BEFORE_TO):
        return None   # "we need to move standup to 10am"
    phrase = [t.lower() for t in _tokens(m.group("what")) if t.lower() not in _PARTICLES]
    what = _content(phrase)
    if all(w in MEASURE_NOUNS for w in what):
        # "Standup moved to 10am", "The meeting was moved to Friday": the subject changed;
        # "Netflix raised prices to $20": the subject's price
        what = _content(_without_opener([t.lower() for t in _tokens(clause) if t.lower() not in _PASSIVE])) + \
            [w for w in what if w not in MEASURE_NOUNS]
    if not what:   # "Switched to 20 mg of lisinopril": what the amount is of
        of = _OF_THING.search(after)
        what = _content([t.lower() for t in _tokens(of.group(1))]) if of else []
    measure = frozenset(_stem(w) for w in what if w in MEASURE_NOUNS) | \
        frozenset(_stem(w) for w in phrase if w in MEASURE_NOUNS)
    stems = frozenset(_stem(w) for w in what) - measure
    if not stems and not measure:
        return None
    owners = _owners(low[: len(before) + len(_tokens(m.group("what")))])
    beneficiaries = frozenset(n.lower() for n in re.findall(r"\bfor ([A-Z][\w'’-]*)", after) if n.lower() not in _FIRST)
    names = frozenset(t.lower() for t in _tokens(clause) if t[:1].isupper() and t.lower() not in FUNCTION_WORDS)
    days = _days(text[: m.start("value")] + " " + after[len(m.group("value")):])
    return ChangeReport(stems, measure, value, owners, was, bool(_FIRST.intersection(phrase)), names,
                        beneficiaries, days)


#: Words that open a clause with since when or why before its subject ("Since the line closure my
#: commute went up to 1 hour", "Because of the renovation the rent went up to $1,600"), and the
#: words that start a noun phrase (the subject's start, when one opens the clause). Not "after",
#: "when", "once", "with": a condition, a plan or a story ("After the bridge reopens my commute
#: drops to 25 minutes", "After college my rent went up to $1,200", "With traffic ...").
_OPENERS = frozenset("since because due thanks".split())
_PHRASE_START = frozenset("my our your his her their the this that these those".split())


def _without_opener(words: list[str]) -> list[str]:
    """``words`` (lower-cased, up to a change verb) from the start of their last noun phrase
    when an opener of :data:`_OPENERS` leads them ("since the line closure my commute" -> "my
    commute": the line closure is why, not what changed); unchanged otherwise."""
    if not words or words[0] not in _OPENERS:
        return words
    at = max((i for i, w in enumerate(words) if w in _PHRASE_START), default=0)
    return words[at:] if at else words


def _ends_at_amount(m: re.Match, value: tuple[str, str, str]) -> bool:
    """Whether the report ``m`` of an intransitive verb gives an amount that ends its sentence
    (but for a rate: "a month", "per hour", "now"): :data:`INTRANSITIVE_VERBS`."""
    if value[0] != "amount":
        return False
    rest = _VALUE_LEAD.sub("", m.string[m.start("value"):])
    amount = _AMOUNT.match(rest)
    # (the word after a currency sign's number is no unit: "$1,450 a month")
    return amount is not None and any(_RATE_TAIL.match(rest, end) for end in (amount.end(), amount.end(2)))


def _standing_report(text: str) -> ChangeReport | None:
    """The speaker's home or employer that ``text`` states or reports (:mod:`engramdb.standing`:
    "I moved to Seattle", "I started a new job at Stripe") as a report of sort "name", or None."""
    got = standing(text)
    if got is None:
        return None
    return ChangeReport(frozenset({got.relation}), frozenset(), ("name", got.relation, " ".join(got.value)), mine=True)


def _swap_report(text: str) -> ChangeReport | None:
    """A thing in use replaced by another or dropped that ``text`` reports (:mod:`engramdb.swaps`:
    "We moved from Poetry to uv", "I switched my editor to Helix") as a report of sort "swap"
    (its unit empty, its value the new name), or None."""
    got = swap_report(text)
    if got is None:
        return None
    return ChangeReport(got.thing, frozenset(), ("swap", "", " ".join(got.new)))


def _rename_report(text: str) -> ChangeReport | None:
    """A thing of the speaker's given a new name that ``text`` reports (:mod:`engramdb.renames`:
    "We renamed the cat: she's called Luna now", "We renamed the project from Falcon to Atlas")
    as a report of sort "rename" (its unit empty, its value the new name, the thing's stem as
    ``what``), or None."""
    got = rename_report(text)
    if got is None:
        return None
    what = {_stem(got.thing)} if got.thing else {_stem(w) for w in got.old or ()}   # (or the old name)
    return ChangeReport(frozenset(what), frozenset(), ("rename", "", " ".join(got.new)),
                        mine=re.search(rf"\bmy\s+(?:[\w-]+\s+){{0,2}}{re.escape(got.thing)}", text, re.I) is not None)


def _handover_report(text: str) -> ChangeReport | None:
    """A duty or role passed from one person to another that ``text`` reports
    (:mod:`engramdb.handovers`: "Aisha is taking over the backend") as a report of sort
    "handover" (its unit empty, its value the new holder), or None."""
    got = handover_report(text)
    if got is None:
        return None
    return ChangeReport(frozenset(_stem(w) for w in got.duty), frozenset(), ("handover", "", " ".join(got.new)))


def _holds_no_report(text: str) -> bool:
    """A cheap test that ``text`` holds no report: no "to", "now" or "new", or no value (a digit,
    a month or a weekday). Most texts stop here (the write path asks it of every new memory)."""
    low = text.lower()
    return (("to " not in low and "now" not in low and "new " not in low)
            or not (any(map(str.isdigit, low)) or _VALUE_WORD.search(low) is not None))


_VALUE_WORD = re.compile(rf"\b(?:{_MONTH_ALT}|(?:{_WEEKDAYS})s?)\b")   # ("moved to Thursdays")


#: Kinds of linking verb by what they say of a thing: a report "X now <verb> <value>" changes a
#: statement that says the same of X ("Maria comes at 8am"), no other ("Maria leaves at 5pm",
#: "The battery takes 2 hours to charge" / "now lasts 6 hours", "The dog gets 2 lbs of kibble" /
#: "now weighs 30 lbs"). The verbs first read here take one always; the others when "now" comes
#: before them (a hostile pass: "The meeting now ends at 11am" against "starts at 10am").
_VERB_KINDS = {verb: kind for kind in (
    "come comes came arrive arrives arrived", "leave leaves left depart departs departed",
    "start starts started begin begins began", "end ends ended finish finishes finished",
    "cost costs charge charges charged pay pays paid", "run runs ran", "meet meets met", "open opens opened",
    "close closes closed", "take takes took", "last lasts lasted", "weigh weighs weighed",
    "need needs needed require requires required",
) for verb in kind.split()}
_KIND_ALWAYS = frozenset("comes come arrives arrive charges charge takes lasts begins finishes weighs needs need "
                         "requires require".split())
#: Verbs that link a thing to its value in a statement "X is now Y" ("my car insurance is now
#: $96 a month", "latest pickup is now 5:00pm", "the shuttle leaves at 6:40am now", "Maria now
#: comes at 7:30am", "the commute now takes 1 hour").
_LINKING = frozenset("is are costs cost runs starts ends leaves departs meets opens closes pays".split()) | _KIND_ALWAYS
#: A rate after an amount ("$40 a month", "$120 an hour", "$90 for a visit", "$15 per towel").
_RATE = re.compile(r"\b(?:a|an|per|each|every)\s+([^\W\d_]+)", re.I)
#: A value that starts later ("now comes at 7:30am starting next month").
_STARTS_LATER = re.compile(r"\b(?:starting|beginning|from|as\s+of|effective)\s+(?:next|tomorrow|on|in|the)\b|"
                           r"\bnext\s+(?:week|month|year|season|term)\b", re.I)


#: Verbs by which the speaker says what amount of a thing they take or pay ("I'm taking 20 mg of
#: lisinopril now", "We pay $1,450 for rent now"), and "on" ("I'm on 20 mg of lisinopril now").
_AMOUNT_VERBS = frozenset("take takes taking pay pays paying on".split())
_SPEAKER = frozenset("i i'm we we're".split())


def _now_report(text: str) -> ChangeReport | None:
    """A statement that a thing's value is now another ("Renewal notice came in: my car insurance
    is now $96 a month"): a clause with "now", its subject (the words before a linking verb of
    :data:`_LINKING`, at least one content word) and a value after the verb; or the speaker's
    own amount of a thing, now ("I'm taking 20 mg of lisinopril now": I or we, a verb of
    :data:`_AMOUNT_VERBS`, an amount, then "of" or "for" and what it is of); or None. Not a
    clause negated or planned (as a report; :func:`change_report` read past the sentences that ask
    and asked the rest)."""
    changed: list[str] = []   # what a clause before said had changed ("Book club has changed too")
    for clause in _CLAUSE.split(_SENTENCE_END.sub(" ; ", text)):
        toks = [t.lower() for t in _tokens(clause)]
        if toks[:2] in (["now", "it's"], ["now", "it’s"]):
            toks = [toks[1], "now", *toks[2:]]   # ("Yoga changed - now it's on Thursdays")
        now = "now" in toks   # (else the thing is called new: "New rent is $2,100", "my new rent is ...")
        if not now:
            changed = _changed_subject(toks) or changed
        if not (now or "new" in toks) or not_done(_unplanned(_without_amount_needed(toks))):
            continue
        mine = _speakers_amount(clause, toks) if now else None
        if mine is not None:
            return mine
        said = None   # (the verb as the clause spells it, when not as read)
        if changed and toks[0] in ("it's", "it’s", "it", "they") and _NOW_WHERE.search(clause):
            # "Book club has changed too: it's now on Wednesdays at 6:30pm": what changed is it
            # (not "it's now 8pm and I'm still reading": the clock)
            said = toks[0] if toks[0] in ("it's", "it’s") else None
            toks = [*changed, *(["is"] if said else []), *toks[1:]]
        at = next((i for i, t in enumerate(toks) if t in _LINKING or t.endswith(("'s", "’s")) and i and t[:-2] in
                   ("it", "that")), None)
        if at is None or at == 0 or (toks.index("now") < at - 1 if now else "new" not in toks[:at]):
            continue
        subject = [t for t in _without_opener(toks[:at]) if t not in _PARTICLES and t not in ADVERBS and t != "new"]
        what = _content(subject)
        if not what:
            continue
        verb = re.search(rf"\b{re.escape(said or toks[at])}(?!\w)", clause, re.I)
        values = _values(clause[verb.end():]) if verb else []
        if not values or _STARTS_LATER.search(clause):
            continue
        if not now and _now_kind(clause[verb.end():]):
            continue   # the thing called new, its value then said of something: "My new rent is $2,100
            # for my storage unit", "New standup time is 10am for the Berlin team" (helper-233)
        kind = frozenset()
        if toks[at] in _KIND_ALWAYS or (toks[at] in _VERB_KINDS and now and toks.index("now") < at):
            kind = frozenset(_stem(w) for w in _VERB_KINDS[toks[at]].split())
            what += _now_kind(clause[verb.end():])
        measure = frozenset(_stem(w) for w in what if w in MEASURE_NOUNS)
        # the value said first ("now on Wednesdays at 6:30pm": the weekday, the time with it)
        rest = re.sub(r"^\s*(?:now\s+)?(?:(?:on|at|in|every)\s+)?", "", clause[verb.end():], flags=re.I)
        value = _first_value(rest) or values[0]
        return ChangeReport(frozenset(_stem(w) for w in what) - measure, measure, value, _owners(subject),
                            days=_days(clause[verb.end():]) - {value[2]}, kind=kind)
    return None


#: A third person as a subject, and the speaker as an object: "She started me on sertraline, 50 mg".
_THIRD_PERSON = frozenset("she he they".split())
_OBJECT = frozenset("me us".split())
#: Where a sentence ends inside a text (for the clauses of :func:`_now_report`: "Book club
#: changed. It's now on Wednesdays.").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
#: "now" then a word that places a value ("now on Wednesdays", "is now at 5:15pm").
_NOW_WHERE = re.compile(r"\b(?:now|it's|it’s|is)\s+(?:on|at|in|every|from|held|weekly|"
                        r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b", re.I)


def _without_amount_needed(toks: list[str]) -> list[str]:
    """Lower-cased ``toks`` without a verb of need before a number: "Every PR needs 1 approval
    now" states an amount, no wish ("I need to move it" is one: :data:`engramdb.facts.NOT_DONE`)."""
    return [t for i, t in enumerate(toks) if not (t in _NEEDS_AMOUNT and toks[i + 1: i + 2]
                                                   and (toks[i + 1].isdigit() or toks[i + 1] in NUMBER_WORDS))]


_NEEDS_AMOUNT = frozenset("need needs require requires".split())


def _changed_subject(toks: list[str]) -> list[str]:
    """The words before a change verb (:data:`CHANGE_VERBS`) that ends a clause of lower-cased
    ``toks``, or ends it but for "too" / "again" / "a bit" ("Book club has changed too", "The
    schedule changed again"), or the speaker's thing after it ("Northwind asked to move our weekly
    call"), when they hold a content word; else empty."""
    at = next((i for i, t in enumerate(toks) if t in CHANGE_VERBS), None)
    if at is not None and toks[at + 1: at + 2] in (["our"], ["my"]) and _content(toks[at + 2:]):
        return toks[at + 2:]
    if at is None or any(t not in _AFTER_CHANGED for t in toks[at + 1:]):
        return []
    subject = [t for t in _without_opener(toks[:at]) if t not in _PASSIVE and t not in ADVERBS and t not in _FIRST]
    return subject if _content(subject) else []


#: Words that may follow "X has changed" at the end of its clause.
_AFTER_CHANGED = frozenset("too again also as well a bit lot little slightly completely".split())


def _now_kind(rest: str) -> list[str]:
    """The content words after the verb of a report "X now <verb> <value>" (``rest``) that the
    earlier statement must name as well: whom or what besides the value ("now charges guests $20",
    "a $25 late fee", "for towels", "to walk the dog"); rates and values left out (a rate is
    compared as a rate: :func:`_changes_value`)."""
    words = _RATE.sub(" ", rest)
    for m in _AMOUNT.finditer(words):
        if _amount_value(m) is not None:   # (after a currency sign the next word is no unit: "$25 late fee")
            words = words.replace(m.group(0)[: m.end(2) - m.start()] if m.group(1) else m.group(0), " ", 1)
    out = [t.lower() for t in _tokens(_NUMBERED.sub(" ", _TIME.sub(" ", _DATE.sub(" ", words))))]
    return [w for w in _content(out) if w not in ADVERBS and w not in _VERB_KINDS and w not in ("am", "pm")]


def _speakers_amount(clause: str, toks: list[str]) -> ChangeReport | None:
    """The report of a clause "I('m) / we('re) [now] <take or pay> <amount> of / for <thing>"
    (its words ``toks``, lower-cased), or None; "now" may open it ("Now I'm on 75 mcg of
    levothyroxine.", as "I'm on 75 mcg of levothyroxine now.": helper-224)."""
    if toks[:1] == ["now"]:
        toks = toks[1:]
    if not toks or toks[0] not in _SPEAKER:
        return None
    rest = [t for t in toks[1:] if t not in ("now", "am", "are", "currently")]
    if not rest or rest[0] not in _AMOUNT_VERBS:
        return None
    verb = re.search(rf"\b{rest[0]}\b", clause, re.I)
    value = _first_value(clause[verb.end():])
    if value is None or value[0] != "amount":
        return None
    of = re.search(r"\b(?:of|for)\s+((?:[\w'’-]+\s*){1,3})", clause[verb.end():])
    what = _content([t.lower() for t in _tokens(of.group(1)) if t.lower() != "now"]) if of else []
    if not what:
        return None
    return ChangeReport(frozenset(_stem(w) for w in what), frozenset(), value, mine=True)


def _days(text: str) -> frozenset[str]:
    """The days and dates ``text`` names (weekdays, "October 27"), as :func:`_date_value` gives them."""
    return frozenset(_date_value(m) for m in _DATE.finditer(text))


def changes_value(new: str, old: str, *, old_said_after: bool = False) -> bool:
    """Whether ``new`` reports that the value ``old`` gives was changed to another (module
    docstring), read whole or sentence by sentence: a chat message says more than one thing
    ("Kind of stressed. The landlord raised my rent to $1,550." changes "I live in Oakland. My
    rent is $1,400 a month."; each sentence keeps the message's speaker label). The rule for
    two sentences: ``old`` names what changed and gives exactly one value of the new value's sort
    and unit (or quantity: "500 mg" and "1 g"), a different one. ``old`` is read without its
    sentences that ask (:func:`engramdb.facts.without_questions`: a fact and a request in one
    message are common; a text of questions only changes nothing), and must speak of
    whose value the report changes ("My brother's landlord raised his rent to $1,800" changes
    no "My rent is $1,450"); be said by the same speaker when both texts name one ("Bob: ..."
    changes no "Alice: ..."); and not give its old value again ("20 mg at night and 10 mg in the
    morning" restates "10 mg"). An earlier report of the same thing is changed as a statement
    is ("Standup moved to 11am" after "Standup moved to 10am").

    A statement said after the report (``old_said_after``) gives the value anew, another one:
    the two disagree only when it states the present value, of the speaker's own thing when the
    report is of theirs ("I take 10 mg of lisinopril every morning." after "My doctor raised my
    lisinopril to 20 mg."; not "The max dose of lisinopril is 80 mg.", "Our rent was $1,900 last
    year.", "I took 40 mg of lisinopril yesterday.").

    Parameters
    ----------
    new, old : str
        The report and the statement.
    old_said_after : bool
        The statement was said after the report (else before it).

    Returns
    -------
    bool
    """
    if _UNREAL.search(new):
        return False   # "In my novel, the landlord raised my rent to $3,000, says the hero."
    if _changes_value(new, old, old_said_after):
        return True
    news, olds = _parts(new), _parts(old)
    if len(news) == 1 and len(olds) == 1:
        return False
    if change_report(new) is None or _NOT_NOW_CONTEXT.search(new):   # (read whole, the message reports a
        return False   # change of now: "I moved to Seattle. Just kidding!", "Funny story from 2015. ...")
    return any(_changes_value(n, o, old_said_after) for n in news if change_report(n) is not None for o in olds)


def changed_clauses(earlier: str, later: str, sorts: frozenset[str] | None = None,
                    units: frozenset[str] | None = None) -> tuple[str, ...]:
    """The clauses of ``earlier`` that give a value ``later`` gives anew: a clock time, date or
    quantity of the same sort (and unit: "$", "mg", "minute", or quantity: "1 g" of "500 mg") as
    one of ``later``'s, but another one. The part of a statement that a later value replaces ("I
    take 50 mg of sertraline every morning" of "I take 50 mg of sertraline every morning. Can you
    remind me to refill it?" against "I'm on 75 mg of sertraline now"; "my rent is $1,400 a month"
    of "I live in Oakland with 2 cats and my rent is $1,400 a month" against "The landlord raised
    my rent to $1,550": not the cats, nor "my commute is 40 minutes" beside it). Clauses are split
    at sentence ends (questions left out: they state no value), commas, semicolons, colons, dashes
    and "and", "so", "then", "but", "while", "which", "where", "whereas" (not "because", nor
    parentheses: "I'm on 10 mg of lisinopril because my blood pressure is high", "My blood pressure
    pill (lisinopril) is 10 mg" say one claim). Of several such clauses, those that name a content
    word of ``later`` ("my rent is $1,400" of "My rent is $1,400 and parking is $100", against "The
    landlord raised my rent to $1,550"), when one does.

    Recall uses it to tell whether a question asks for the value two memories linked
    ``contradicts`` disagree on (its words are in such a clause) or for something else the
    earlier one also says ("where do I live?").

    Parameters
    ----------
    earlier, later : str
        The texts of the two memories.
    sorts : frozenset of {"time", "date", "amount"}, optional
        Only values of these sorts count (a question asking "when" asks for a time or a date).
    units : frozenset of str, optional
        Only amounts in these units count (as :func:`asked_measures` gives them: a dose is no
        amount of money).

    Returns
    -------
    tuple of str
        In text order; empty when ``earlier`` gives no value that ``later`` gives anew.
    """
    theirs = [w for w in _values(later) if (sorts is None or _sort(w) in sorts)
              and (units is None or w[0] != "amount" or w[1] in units)]
    if not theirs:
        return ()

    def replaced(v: tuple[str, str, str]) -> bool:
        kin = [w for w in theirs if w[0] == v[0] and (v[0] != "amount" or _kin_units(w[1], v[1]))]
        return bool(kin) and not any(_same_value(v, w) for w in kin)

    out = []
    for sentence in _parts(without_questions(earlier) or ""):
        for clause in _SUBCLAUSE.split(sentence):
            if any(replaced(v) for v in _values(clause)):
                out.append(clause.strip())
    if len(out) > 1:   # of several, those naming what the later one names ("my rent is $1,400 and
        # parking is $100" against "The landlord raised my rent to $1,550": the rent)
        named = _content_stems(later)
        out = [c for c in out if _content_stems(c) & named] or out
    return tuple(out)


def _content_stems(text: str) -> frozenset[str]:
    """The stems of the content words of ``text`` (:func:`_content`), lower-cased."""
    return frozenset(_stem(w) for w in _content([t.lower() for t in _tokens(text)]))


#: Where a clause ends, for :func:`changed_clauses`: :data:`_CLAUSE`'s marks and the words that
#: open a subordinate clause ("while", "which", "where", "whereas").
_SUBCLAUSE = re.compile(rf"(?:{_CLAUSE_MARKS}|\b(?:and|so|then|but|while|which|where|whereas)\b)", re.I)
#: Questions for a time or date, and for a quantity (:func:`asked_sorts`).
_ASKS_WHEN = re.compile(r"^\W*(?:\w+:\s*)?(?:when|(?:at\s+|on\s+|in\s+)?(?:what|which)\s+(?:times?|days?|dates?|weekdays?|"
                        r"months?|years?|weeks?|hours?|seasons?|nights?|evenings?|mornings?))\b", re.I)
#: Questions for a person, a place or a thing known by its name ("who leads standup?", "where is
#: yoga?", "what street is my apartment on?", "which airline am I flying?", "which room is standup
#: in?"; :func:`asked_sorts`),
#: not "what floor", "what speed", "what night": a noun after "what" may name a value.
_ASKS_OTHER = re.compile(
    r"^\W*(?:\w+:\s*)?(?:who|whom|whose|where|(?:what|which)\s+(?:street|road|avenue|city|town|country|state|"
    r"neighbou?rhood|address|building|restaurant|cafe|bar|hotel|school|university|college|company|employer|"
    r"airline|brand|store|shop|studio|gym|clinic|hospital|doctor|dentist|teacher|coach|person|friend|team|"
    r"language|book|movie|song|show|car|colou?r|breed|room|office|venue|pharmacy|bank|library|park|church|salon|"
    r"club|band|app|website|podcast|provider|carrier|insurer|vet|therapist|trainer|tutor|manager|boss|landlord|"
    r"partner)s?)\b", re.I)
_ASKS_NAME = re.compile(r"\b(?:names?|called)\b", re.I)   # "what is the name of the kids' dentist?"
_ASKS_HOW_OFTEN = re.compile(r"\bhow\s+(?:often|many\s+times)\b", re.I)
_ASKS_HOW_MUCH = re.compile(r"\bhow\s+(?:much|many|long|far|old|big|heavy)\b|"
                            r"\b(?:what|which)\s+(?:dose|dosage|amount|price|percentage|percent|rate|cost|fee|"
                            r"temperature|weight|height|age|score|speed|distance|salary|wage|number|size|level|limit|"
                            r"budget|total|balance|quantity)\b", re.I)


def _sort(value: tuple[str, str, str]) -> str:
    """The sort of a value as a question asks for it: an ordinal ("the 21st", read as a number
    counting "st") is a day of the month, a date."""
    return "date" if value[0] == "amount" and value[1] in ("st", "nd", "rd", "th") else value[0]


def asked_sorts(question: str) -> frozenset[str] | None:
    """The sorts of value ``question`` asks for: ``{"time", "date"}`` for "when ...?", "what
    time ...?", ``{"amount"}`` for "how much / many / long ...?", "what dose ...?",
    ``{"frequency"}`` for "how often ...?" (no value a change report gives); none (the
    empty set) for a person, a place or a thing known by its name ("who leads standup?", "where
    is the conference?", "what street is my apartment on?", "what is the dentist's name?"); None
    when its form does not say ("what do I take?", "what is my rent?", "what floor is my office
    on?": a noun after "what" may name a value)."""
    if _ASKS_WHEN.search(question):
        return frozenset({"time", "date"})
    if _ASKS_HOW_OFTEN.search(question):
        return frozenset({"frequency"})   # (no value a change report gives: "how often do I take it?")
    if _ASKS_HOW_MUCH.search(question):
        return frozenset({"amount"})
    if _ASKS_OTHER.search(question) or _ASKS_NAME.search(question):
        return frozenset()
    return None


#: Units of a dose and of money, as :func:`_values` spells them (stems: "tablets" is "tablet",
#: "capsules" "capsul", "gummies" "gummi"; "dollars" is "$", "quid" "£").
_DOSE_UNITS = frozenset("mg mcg g ml cc iu meq unit pill tablet tab capsul caplet softgel gummi lozeng drop puff "
                        "spray pump patch scoop teaspoon tsp tablespoon tbsp sachet inhal inject shot vial dose".split())
_MONEY_UNITS = frozenset("$ € £ ¥ ₹ cent franc chf cad aud peso kr krona kronor zloty won rand real reai baht lira "
                         "dirham".split())
#: The sort of value each measure noun names and, for an amount, its units when the noun says
#: (:func:`asked_measures`; None: any unit, "amount", "rate", "limit").
_MEASURE_SORTS = {**dict.fromkeys(("time",), ("time", None)), **dict.fromkeys(("date", "day"), ("date", None)),
                  **dict.fromkeys(("dose", "doses", "dosage"), ("amount", _DOSE_UNITS)),
                  **dict.fromkeys(("price", "prices", "cost", "fee", "budget"), ("amount", _MONEY_UNITS)),
                  **dict.fromkeys(("amount", "rate", "limit"), ("amount", None))}


def asked_measures(question: str) -> frozenset[tuple[str, frozenset[str] | None]]:
    """The measures ``question`` names (:data:`MEASURE_NOUNS` of a time, a date or an amount: "what
    was my dose before it went up?" names an amount in mg, tablets ...; "what's the standup
    time?" a time), each as its sort and, for an amount, the units it may be in (None: any);
    empty for none. A question naming a measure asks for the value a change replaced or gave,
    whatever other words it uses, when the value is of that sort and unit: a rent raise in
    dollars is no dose."""
    return frozenset(_MEASURE_SORTS[w] for w in (t.lower() for t in _tokens(question)) if w in _MEASURE_SORTS)


#: Words of change and of measures, which name no thing of their own (:func:`only_value_changed`).
_ASKED_GENERIC = frozenset(_stem(w) for w in (*MEASURE_NOUNS, *CHANGE_VERBS, *(
    "went go goes gone up down rose rise risen fell fall climbed jumped grew current currently now new old "
    "before after previous previously earlier later latest today still usual usually what much many".split())))


#: Words that say a time or date, and speaker labels: no thing a statement names
#: (:func:`only_value_changed`).
_VALUE_WORDS = frozenset(_stem(w) for w in (
    "january february march april may june july august september october november december jan feb mar apr jun jul "
    "aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays am pm noon midnight morning afternoon evening night user assistant".split()))


def shares_value(text: str, other: str) -> bool:
    """Whether ``text`` names a time, date or amount that ``other`` gives ("where should I be at
    8pm?" and "Trivia night moved to 8pm.")."""
    theirs = _values(other)
    return any(_equal(v, w) for v in _values(text) for w in theirs)


def only_value_changed(earlier: str, later: str) -> bool:
    """Whether ``later`` gives anew a time, date or amount of ``earlier`` (:func:`changed_clauses`)
    and names nothing else that ``earlier`` does not: "Yoga class moved to 7pm." of "Yoga class
    is at 6pm at the Riverside studio with Karen." (the rest of what was said is in the earlier
    one), not "Standup moved to 10am and to room 5C." of "Standup is at 9:30 in room 4B."."""
    if not changed_clauses(earlier, later):
        return False
    # the later one's times, dates and amounts of a unit the earlier one has are the value; the
    # rest ("room 5C" beside "room 4B") is something it names
    held = {u for sort, u, _v in _values(earlier) if sort == "amount"}
    if any(v[0] == "label" for v in _values(later)):
        return False   # a place known by its number is what a "where" question asks for ("room 5C")
    rest = _DATE.sub(" ", _TIME.sub(" ", later))
    rest = _AMOUNT.sub(lambda m: " " if (got := _amount_value(m)) is not None and any(
        _kin_units(got[0], u) for u in held) else m.group(0), rest)
    return not (_content_stems(rest) - _ASKED_GENERIC - _content_stems(earlier) - _VALUE_WORDS)


#: Words of a story, dream, joke or game anywhere in a report: no change of the speaker's value.
_UNREAL = re.compile(r"\b(?:stor(?:y|ies)|dream\w*|joke\w*|joking|kidding|jk|novel|imagine\w*|pretend\w*|"
                     r"hypothetical\w*|fiction\w*|roleplay\w*|poem|lyrics)\b", re.I)
#: Words anywhere in a message that make a report in one of its sentences no change of the
#: speaker's value now, when its sentences are read alone (:func:`changes_value`): a year (history),
#: a story, dream, joke or novel, someone's quoted words, a retraction.
_NOT_NOW_CONTEXT = re.compile(
    r"\b(?:19|20)\d\d\b|[\"“”]|(?:^|[\s:])'|\b(?:story|stories|dream\w*|joke\w*|joking|kidding|jk|novel|book|"
    r"imagine\w*|pretend\w*|hypothetical\w*|suppose|said|says|say|told|tells|asked|quot\w*|character|game|fiction|"
    r"poem|script|lyrics|ago|back\s+(?:in|when|then)|used\s+to|college|school)\b", re.I)


@lru_cache(maxsize=1 << 12)
def _parts(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` (:func:`engramdb.sentences.several_sentences`), each with its
    speaker label; ``(text,)`` for one."""
    parts = several_sentences(text)
    return (text,) if parts is None else labelled(text, parts)


def _changes_value(new: str, old: str, old_said_after: bool) -> bool:
    """:func:`changes_value` of two texts read whole."""
    old = without_questions(old)   # ("I take 10 mg of lisinopril. Can you remind me to refill it?")
    report, earlier = change_report(new), change_report(old)
    if report is None or not old or earlier == report:
        return False   # (the same report twice changes nothing)
    said_by, said_before_by = speaker_label(new), speaker_label(old)
    other = said_by is not None and said_before_by is not None and said_by != said_before_by
    firsts = not _FIRST.isdisjoint(t.lower() for t in _tokens(old))
    if (swap_report(new) is not None and not old_said_after and not (other and firsts)
            and replaces(new, old)):   # a thing in use replaced, also where a move is read ("We moved from
        return True   # Django to FastAPI"), in the team's words or an assistant's ("Got it: Jenkins for CI.")
    if report.value[0] == "handover":   # the holder a report names is no speaker's value
        return not old_said_after and hands_over(new, old)
    if report.value[0] == "rename":   # a thing's new name: a statement naming it otherwise (the
        return not (other and report.mine) and renames(new, old)   # speaker's cat is no other's)
    if other and (report.mine or report.value[0] == "name" or firsts):
        # "Bob: my doctor raised my lisinopril to 20 mg" changes no "Alice: I take 10 mg"; "Bob:
        # standup moved to 10am" changes "Alice: standup is at 9:30am" (the team's, not a speaker's)
        return False
    if report.value[0] == "name":   # the speaker's home or employer
        return changes_standing(new, old)
    if report.value[0] == "swap":   # (replaces said no: a statement said after it may be of before)
        return False
    old_low = [t.lower() for t in _tokens(old)]
    old_words = word_stems(old)
    named = _named(report)
    speakers = report.mine or not _MY.isdisjoint(t.lower() for t in _tokens(new))   # the speaker's thing
    said, held = named & _OCCASIONS, old_words & _OCCASIONS
    if said and held and said != held:
        return False   # "The evening standup moved to 6pm" changes no "The morning standup is at 9am"
    if not named - said or not named - said <= old_words:   # what changed, every word of it ("staging" is no "production")
        return False
    if speakers and any(_anothers(t) and t not in report.owners for t in old_low):
        return False   # "The landlord raised our rent" changes no "My sister's rent is $1,500" (but "We pushed
        # our daughter's bedtime to 8:30pm" changes "Our daughter's bedtime is 8pm.": hers in both)
    for owner in report.owners:   # someone else's value: the earlier statement must be about them
        if owner in _THIRD:
            if _FIRST.intersection(old_low) or not report.names <= frozenset(old_low):
                return False   # "Globex upgraded their plan" changes no "Acme's plan"
        elif owner[:-2] not in old_low and _stem(owner[:-2]) not in old_words:
            return False
    if earlier is not None and old_said_after:
        return False   # a report said after this one is changed by none of it (the other way round, maybe)
    if earlier is not None:   # a report itself ("My doctor raised my lisinopril to 20 mg"): its new value changes
        return (earlier.value[0] == report.value[0] and _kin_units(earlier.value[1], report.value[1])
                and not _same_value(earlier.value, report.value)
                and earlier.owners == report.owners and report.beneficiaries == earlier.beneficiaries
                and (report.value[0] != "time" or report.days == earlier.days))
    if old_said_after and not _states_now(old_low, speakers):
        return False
    subject = subject_of(old)
    whose = subject[1:] if subject[:1] == ("user",) else subject   # (a chat's "user: " is the speaker)
    if (report.mine and len(whose) == 1 and whose[0] not in _FIRST
            and _stem(whose[0]) not in report.what | report.measure and whose[0] not in report.names
            and not (whose[0] in _THIRD_PERSON and _OBJECT.intersection(old_low))):
        return False   # "My doctor raised my lisinopril" changes no "Dad takes 10 mg of lisinopril" (but "She
        # started me on sertraline, 50 mg": the doctor gave the speaker the value)
    if (speakers and whose[:1] in (("my",), ("our",)) and not _OTHER_PARTIES.isdisjoint(whose[1:3])
            and report.names.isdisjoint(whose)):
        return False   # ... nor "My dad takes 10 mg of lisinopril", "My cat takes ..." (but "Fiona moved
        # our 1:1" changes "My manager Fiona set up a weekly 1:1 with me, Tuesdays at 2pm.": named)
    if not _GENERIC.isdisjoint(old_low):
        return False   # "The average rent in Denver is $1,700": no one's value
    if not report.beneficiaries <= frozenset(old_low):
        return False   # "raised the lisinopril to 5 mg for Max"
    if _event_report(old, subject) and not _RECURS.search(old) and not (
            report.value[0] in ("date", "time") and _BOOKED.search(old)):
        return False   # "I bought the TV for $800": a past event, no standing value (but "I signed up
        # for a pottery class, Saturdays at 10am in Room 3": what recurs stands; and "I booked a
        # dentist appointment for Tuesday, September 23 at 2:30pm" sets the time of what is to come)
    if report.days and report.value[0] == "time" and not report.days <= _days(old):
        return False   # "Pickup moved to 12:30pm on Friday": that day's, or another day's, occurrence
    if report.kind and not _kind_holds(report, new, old):
        return False
    sort, unit, value = report.value
    if sort == "amount" and not unit and report.was is not None:   # "from 1,800 to 2,000": the old number's unit
        unit = next((u for s, u, v in _values(old) if s == "amount" and v == report.was[2]), "")
        if not unit:
            return False
    # the old values of that sort and quantity ("500 mg" against "1 g"; "1 hr" is "60 min")
    same = {_canonical(w): w for w in _values(old) if w[0] == sort and _kin_units(w[1], unit)}
    if len(same) > 1 and sort == "date" and report.was is None:
        return _other_weekdays(new, same)
    if len(same) != 1 or any(_equal((sort, unit, value), w) for w in same.values()):
        return False
    was = next(iter(same.values()))
    if report.was is None and any(_equal(was, w) for w in _values(_without_spoken_of(new))):
        return False   # it gives the old value too: "20 mg at night and 10 mg in the morning" restates "10 mg"
    if report.was is not None and report.was[0] == sort:   # "from 3:30 to 1pm" changes no "at 3pm"
        return _same_value(report.was, was)
    return True


_WEEKDAY_SET = frozenset(_WEEKDAYS.split("|"))


def _other_weekdays(new: str, held: dict) -> bool:
    """Whether a report ``new`` gives days of the week none of which the earlier statement's
    several days ``held`` (:func:`_canonical` -> value) holds: "I switched my runs to Tuesday and
    Thursday evenings." changes "I go running ... Monday, Wednesday and Friday at 7am." (not
    "moved my Monday run to Wednesday": one of them moved, the others hold)."""
    given = {w[2] for w in _values(_without_spoken_of(new)) if w[0] == "date"}
    days = {w[2] for w in held.values()}
    return bool(given) and given <= _WEEKDAY_SET and days <= _WEEKDAY_SET and given.isdisjoint(days)


#: Words of a thing that recurs ("every", "weekly", "Saturdays"): a past event that set it up
#: states its standing value.
_RECURS = re.compile(r"\b(?:every|each|weekly|daily|nightly|monthly|fortnightly|(?:mon|tues|wednes|thurs|fri|satur|sun)days|"
                     r"(?:once|twice|\d+\s+times)\s+(?:a|per)\s+(?:day|week|month))\b", re.I)
#: Words of a past event that sets the day or time of one to come ("I booked a table for 8pm").
_BOOKED = re.compile(r"\b(?:booked|scheduled|rescheduled|reserved|arranged|confirmed|set\s+up|"
                     r"(?:made|got)\s+(?:an?\s+|my\s+)?(?:\w+\s+)?(?:appointment|reservation|booking))\b", re.I)
#: A clause that opens with a value the speaker says something of ("Sundays are too busy now", "9am
#: was too early"): why it changed, no value given.
_SPOKEN_OF = re.compile(r"\b(?:is|are|was|were|seems?|seemed|felt|feels?|'s)\b", re.I)
#: Words of a clause that say the old value holds still ("10 mg is still my morning dose"): given.
_STILL = re.compile(r"\b(?:still|stays?|remains?|also|as\s+well|same)\b", re.I)


def _without_spoken_of(text: str) -> str:
    """``text`` without its clauses (:data:`_SUBCLAUSE`, and "because") that open with a value
    spoken of (:data:`_SPOKEN_OF`), or say why (after "because", "since", "as"): "Also switched my
    mum call to Saturdays at 5pm, Sundays are too busy now." gives no Sunday, "Pottery moved to
    Room 7 because Room 3 flooded." no Room 3."""
    parts = re.split(rf"({_SUBCLAUSE.pattern}|\b(?:because|since|as|cause|coz)\b|[.!?]\s)", text, flags=re.I)
    kept = []
    for mark, clause in zip(["", *parts[1::2]], parts[0::2]):
        if (_first_value(clause.strip()) is not None and not _STILL.search(clause)
                and (_SPOKEN_OF.search(clause) or mark.lower() in _WHY)):
            continue   # "Sundays are too busy now", "because Room 3 flooded"
        kept.append(clause)
    return " ; ".join(kept)


_WHY = frozenset("because since as cause coz".split())


def _kind_holds(report: ChangeReport, new: str, old: str) -> bool:
    """For a report "X now <verb> <value>" (:func:`_now_report`), whether ``old`` says the same of
    the same thing: a verb of the report's kind (:data:`_VERB_KINDS`), before it no word the
    report does not name ("My gym locker costs $10" is no "The gym now charges $55"), and the same
    rate when both give one ("$90 for a visit" against "$120 an hour")."""
    low = [t.lower() for t in _tokens(old)]
    at = next((i for i, t in enumerate(low) if _stem(t) in report.kind), None)
    if at is None:
        return False
    named = report.what | report.measure | report.names
    if any(_stem(w) not in named for w in _content(low[:at]) if w != "user" and w not in _FIRST):
        return False
    rates = {_stem(r.lower()) for r in _RATE.findall(new)}, {_stem(r.lower()) for r in _RATE.findall(old)}
    return not (all(rates) and rates[0] != rates[1])


def _states_now(words: list[str], mine: bool) -> bool:
    """Whether a statement of lower-cased ``words`` gives a present value: nothing in the past, a
    plan or a wish, no day named; with ``mine`` (the report's value is the speaker's), the
    speaker's own (a first-person word)."""
    if mine and _FIRST.isdisjoint(words):
        return False   # "The max dose of lisinopril is 80 mg."
    return not (NOT_NOW.intersection(words) or not NOT_PRESENT.isdisjoint(words) or not NEGATIONS.isdisjoint(words)
                or any(w in _PLAN and after == "to" for w, after in zip(words, words[1:])))


def _same_value(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether two values are one; a clock time said without am / pm ("from 3:30") matches either
    half of the day; an amount said without its unit ("from 1,800") matches the number in any
    unit, and one in another unit of the same quantity matches its size ("1 g" is "1000 mg")."""
    if a[0] == "time" == b[0]:
        (ha, ma), (hb, mb) = (map(int, a[2].split(":")), map(int, b[2].split(":")))
        return ma == mb and ha % 12 == hb % 12
    return (a[0] == "amount" and a[2] == b[2] and not a[1]) or _equal(a, b)


def _equal(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Whether two values are one: the same, or amounts in two units of one quantity that differ
    by at most 2% ("10 km" and "6.2 miles", said rounded; "1 g" and "1000 mg")."""
    if a[0] != b[0]:
        return False
    if a[1:] == b[1:]:
        return True
    ca, cb = _canonical(a), _canonical(b)
    if a[0] != "amount" or a[1] == b[1] or ca[1] != cb[1] or a[1] not in _UNIT_SIZE:
        return False
    return abs(ca[2] - cb[2]) <= 0.02 * max(abs(ca[2]), abs(cb[2]))


#: Units of one quantity, each with its size in the quantity's first unit here: a change said
#: in another unit of the quantity ("The doctor raised my metformin to 1 g" of "I take 500 mg
#: of metformin"; "My run is now 10 km" of "My run is 5 miles").
_UNIT_SIZE = {"mcg": ("mass", 1e-3), "mg": ("mass", 1.0), "g": ("mass", 1e3), "kg": ("mass", 1e6),
              "lbs": ("mass", 453592.37), "oz": ("mass", 28349.523125),
              "sec": ("duration", 1.0), "min": ("duration", 60.0), "hr": ("duration", 3600.0),
              "km": ("length", 1.0), "mi": ("length", 1.609344)}


def _kin_units(a: str, b: str) -> bool:
    """Whether units ``a`` and ``b`` (as :func:`_values` spells them) measure one quantity."""
    return a == b or (a in _UNIT_SIZE and b in _UNIT_SIZE and _UNIT_SIZE[a][0] == _UNIT_SIZE[b][0]) or (
        a in _PLACE_KIN and _PLACE_KIN[a] == _PLACE_KIN.get(b))


def _canonical(value: tuple[str, str, str]) -> tuple:
    """``value`` with an amount in a unit of :data:`_UNIT_SIZE` as its quantity and its size in
    the quantity's first unit (rounded to 9 significant digits), so "1 hr" and "60 min" are one."""
    sort, unit, number = value
    if sort != "amount" or unit not in _UNIT_SIZE:
        return value
    try:
        size = float(number) * _UNIT_SIZE[unit][1]
    except ValueError:
        return value
    return sort, _UNIT_SIZE[unit][0], float(f"{size:.9g}")
