"""What kind of value a "how <adjective>" question asks for, and whether a text gives one.

"How far did I run?" asks for a distance, "how long was the flight?" for a duration (or a
length), "how old is Maya?" for an age. The adjective is no topic of the question: a memory that
answers it ("Ran 5 km this morning.") never says "far", so the question's words matched only
half of it and recall reported it as weak evidence (relevance 0.12 with the hashing embedder).
Question classification by expected answer type is the standard first step of factoid question
answering (Li & Roth 2002, "Learning Question Classifiers", COLING; the NUMERIC:distance, :period,
:age ... classes); here a few types are read by rule, from the wh-phrase alone.

- :func:`asked_types`: the index term of each "how <adjective>" of a question and the type it
  asks for (``far`` -> distance; ``long`` -> duration, length or distance; ``old`` -> age;
  ``big``, ``tall``, ``heavy``, ``large``, ``high``, ``deep``, ``wide`` -> a measure; ``fast`` ->
  a speed or a time; ``early``, ``late`` -> a clock time).
- :func:`answered_terms`: those of the terms whose type ``text`` gives a value of ("5 km",
  "three weeks", "34 years old", "at 6:30am"); recall counts each as a word of the question the
  memory holds when it holds another word of the question too ("how far is the gym?" is not
  answered by "The house is 12 miles from the office."), for relevance only: the ranking never
  reads it (:mod:`engramdb.recall.results`).
- :func:`lacks_asked_value`: a question for an amount of money ("how much do I earn at Abbott?",
  "what's my rent?") and a text that gives none ("I work at Abbott as a nurse."): the text may
  share every other word of the question and still cannot answer it; recall reports it as weak
  evidence (relevance only).
"""
from __future__ import annotations

import functools
import re

__all__ = ["asked_types", "answered_terms", "asks_money", "lacks_asked_value", "VALUE_FORMS"]

_NUMBER = (r"(?:\d+(?:[.,]\d+)?(?:\s*-\s*\d+(?:[.,]\d+)?)?|half\s+an?|an?\s+(?=hour|half|year|week|month|day)"
           r"|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
           r"sixty|hundred|a\s+few|a\s+couple\s+of|couple\s+of|several)")
_DISTANCE = r"(?:km|kms|kilomet(?:er|re)s?|k|mi|miles?|m|met(?:er|re)s?|yards?|ft|feet|foot|laps?|blocks?)"
_DURATION = (r"(?:sec(?:ond)?s?|min(?:ute)?s?|h|hrs?|hours?|days?|nights?|weeks?|fortnights?|months?|years?|yrs?|"
             r"decades?)")
_LENGTH = r"(?:mm|cm|centimet(?:er|re)s?|inch(?:es)?|in|pages?|words?|chapters?|episodes?|seasons?)"
_MEASURE = (r"(?:mm|cm|m|km|met(?:er|re)s?|inch(?:es)?|ft|feet|foot|kg|kgs|kilos?|kilograms?|g|grams?|lbs?|pounds?|"
            r"stones?|tons?|tonnes?|litres?|liters?|l|ml|gallons?|sq\s*(?:ft|m)|square\s+\w+|acres?|hectares?|"
            r"bedrooms?|rooms?|stor(?:ey|y|ies|eys)|floors?|gb|tb|mb|people|seats?|guests?)")
_SPEED = r"(?:km/h|kph|mph|knots|min(?:ute)?s?\s*(?:/|per)\s*(?:km|mile)|(?:an?\s+|per\s+)(?:hour|km|mile))"
_CLOCK = r"(?:\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|\bdawn\b|o'clock)"

#: The forms of a value of each type (case-insensitive patterns).
VALUE_FORMS: dict[str, re.Pattern] = {
    "distance": re.compile(rf"\b{_NUMBER}\s*-?\s*{_DISTANCE}\b|\b(?:half\s+)?marathons?\b", re.I),
    "duration": re.compile(rf"\b{_NUMBER}\s*-?\s*{_DURATION}\b|\bsince\s+(?:\d{{4}}|last|january|february|march|april|"
                           r"may|june|july|august|september|october|november|december)\b|\ball\s+(?:day|night|week|"
                           r"year)\b", re.I),
    "length": re.compile(rf"\b{_NUMBER}\s*-?\s*{_LENGTH}\b", re.I),
    "age": re.compile(r"\b\d{1,3}\s*(?:years?|yrs?|months?|weeks?)[\s-]*old\b|\baged?\s+\d{1,3}\b|"
                      r"\bturn(?:s|ed|ing)?\s+\d{1,3}\b|\b\d{1,3}(?:st|nd|rd|th)\s+birthday\b|"
                      r"\b(?:i'?m|i\s+am|s?he'?s|s?he\s+is|they'?re|is|was)\s+(?:only\s+|just\s+|now\s+)?\d{1,3}"
                      r"(?:\s+now)?(?=\s*(?:[.,!;)]|$|and\b|but\b))", re.I),
    "measure": re.compile(rf"\b{_NUMBER}\s*-?\s*{_MEASURE}\b", re.I),
    "speed": re.compile(rf"\b{_NUMBER}\s*-?\s*{_SPEED}|\bpace\b", re.I),
    "clock": re.compile(_CLOCK, re.I),
    # an amount of money: any number, in digits or words (its currency often unsaid: "Rent is 1800
    # a month", "a 5% raise", "eighty thousand a year": helper-208), or none at all ("free")
    "money": re.compile(rf"\d|\b{_NUMBER}\b|\b(?:thousand|million|billion|grand|hundred|half|double|twice|triple|figures)\b"
                        r"|\bminimum\s+wage\b|\bfree\b", re.I),
}

#: The adjective of a "how <adjective>" question -> (its index term, the types that answer it).
_ASKED = {
    "far": ("far", ("distance",)),
    "long": ("long", ("duration", "length", "distance")),
    "old": ("old", ("age",)),
    "big": ("big", ("measure",)), "large": ("larg", ("measure",)), "tall": ("tall", ("measure",)),
    "heavy": ("heavi", ("measure",)), "high": ("high", ("measure",)), "deep": ("deep", ("measure",)),
    "wide": ("wide", ("measure",)),
    "fast": ("fast", ("speed", "duration")),
    "early": ("earli", ("clock",)), "late": ("late", ("clock",)),
}
_HOW = re.compile(r"\bhow\s+(" + "|".join(_ASKED) + r")\b", re.I)


@functools.lru_cache(maxsize=1024)
def asked_types(question: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The "how <adjective>" phrases of ``question``: (the adjective's index term, the value types
    that answer it) each, in order; empty for none ("How far did I run?" -> ``(("far",
    ("distance",)),)``; "How long is my commute?" -> ``(("long", ("duration", "length",
    "distance")),)``).

    Parameters
    ----------
    question : str

    Returns
    -------
    tuple of (str, tuple of str)
    """
    if "how" not in question.lower():
        return ()
    return tuple(dict.fromkeys(_ASKED[m.group(1).lower()] for m in _HOW.finditer(question)))


#: A question for an amount of money: "how much" (of money, or with no noun: "how much time
#: do I spend" asks for time) with a word of paying, earning or costing ("how much do I earn?",
#: "How much does James pay per cooking class?", "how much was the rent?"), or "what" with a
#: noun of an amount ("what's my salary?", "what is the rent?").
_ASKS_MONEY = re.compile(
    r"\bhow\s+much\s+(?:money\s+|cash\s+)?(?:do|does|did|is|was|are|were|will|would|should|can|could|have|has|had|am|"
    r"'s|it|they|that|this|i|we|you|he|she)\b(?=.*\b(?:cost|costs|costed|pay|pays|paid|paying|earn|earns|earned|earning|make|makes|made|"
    r"spend|spends|spent|charge|charges|charged|owe|owes|owed|save|saves|saved|rent|salary|salaries|wage|wages|"
    r"price|prices|priced|worth|budget|donate|donates|donated|raise|tip|tipped|fee|fees|bill|bills|sell|sold|"
    r"buy|bought|lend|lent|borrow|borrowed|income|bonus|allowance|fine|fined)\b)|"
    r"\bwhat(?:'s|\s+is|\s+was|\s+are|\s+were)\s+(?:my|our|the|his|her|their|[A-Z][a-z]+'s)\s+(?:\w+\s+)?"
    r"(?:salary|wage|wages|rent|budget|income|price|fee|fees|bonus|allowance|hourly\s+rate|rate|bill)\b",
    re.I | re.S)


@functools.lru_cache(maxsize=1024)
def asks_money(question: str) -> bool:
    """Whether ``question`` asks for an amount of money (:data:`_ASKS_MONEY`: "how much do I
    earn at Abbott?", "what's my rent?"; not "how much do I run?" nor "how much do you like it?").

    Parameters
    ----------
    question : str

    Returns
    -------
    bool
    """
    low = question.lower()
    return ("much" in low or "what" in low) and _ASKS_MONEY.search(question) is not None


def lacks_asked_value(question: str, text: str) -> bool:
    """Whether ``question`` asks for an amount of money (:func:`asks_money`) and ``text`` holds
    no number that may be one (:data:`VALUE_FORMS` ``"money"``: "$10 per class", "Rent is 1800 a
    month", "eighty thousand a year", "free"; not a date, year, clock time or duration:
    :data:`_NO_AMOUNT`): "I work at Abbott as a nurse." cannot answer "how much do I earn at
    Abbott?", however many of its words it shares.

    Parameters
    ----------
    question, text : str

    Returns
    -------
    bool
    """
    return asks_money(question) and VALUE_FORMS["money"].search(_NO_AMOUNT.sub(" ", text)) is None


#: Numbers that are no amount of money (helper-210: "My rent is due on the 1st", "since 2019",
#: "at 7am", "for 5 years", "apartment 4B" had answered "how much is my rent?"): ordinals, years,
#: clock times, durations, codes of a number and a letter (not "85k").
_NO_AMOUNT = re.compile(rf"\b\d+(?:st|nd|rd|th)\b|(?<![$£€¥₹\d.,])\b(?:19|20)\d\d\b(?![.,]?\d|\s*(?:dollars|euros|pounds|bucks))"
                        rf"|{_CLOCK}|{VALUE_FORMS['duration'].pattern}|\b\d+(?![km]\b)[a-z]\b", re.I)


def answered_terms(question: str, text: str) -> frozenset[str]:
    """The index terms of ``question``'s "how <adjective>" phrases (:func:`asked_types`) that
    ``text`` answers with a value of the asked type (:data:`VALUE_FORMS`): ``{"far"}`` for "How far
    did I run?" and "Ran 5 km this morning."; empty for "I love running." or a question without
    such a phrase.

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
    """
    asked = asked_types(question)
    if not asked:
        return frozenset()
    return frozenset(term for term, types in asked if any(VALUE_FORMS[t].search(text) for t in types))
