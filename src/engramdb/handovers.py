"""Handovers: a duty or role passes from one person to another ("Aisha Khan is taking over the
Harbor Dental backend", "Aisha replaced Raj as tech lead", "Raj handed billing over to Aisha",
"Aisha now runs payroll", "Our new accountant is Priya Shah", "The backend is now handled by
Aisha").

Rule-based, no model, like :mod:`engramdb.swaps` (a thing in use replaced by another): the write
path asks :func:`hands_over` of a report and each earlier statement that names its duty, and links
the two ``contradicts`` (kind ``"change"``); recall then puts the later first and warns. Nothing
is superseded: the rules may misread.

A report names the new holder (a capitalised name, or the speaker: "I'm taking over billing") and
the duty: the words after "take over", "as", or a holder's verb ("now runs payroll"), up to
"from", "as", "while", a comma or the end of the clause, with a "for", "of" or "on" part kept
("PM for Apollo"). It is none when it is:

- not done: a plan, wish or question ("Aisha will take over billing", "Should Aisha take over
  billing?", "Aisha might take over"), or said to start later ("next month", "from June",
  "starting Monday");
- a stand-in ("while Raj is on leave", "until Raj is back", "for two weeks", "temporarily",
  "interim", "covering for Raj");
- history or someone's words ("Aisha took over billing in 2019", "years ago", a quote, "says");
- an assistant's words (advice or an echo).

An earlier statement holds the duty when a sentence of it that states something now (no
question, negation, past or plan) names the duty (its last word and all but one of the others:
"my manager" names "line manager"), a holder's word ("handles",
"owns", "leads", "runs", "manages", "covers", "is responsible for", "is in charge of", "looks
after", "takes care of", or "is" / "'s" for a role: "Raj is our tech lead", "Our tech lead is
Raj") and a holder other than the new one: the old holder the report names, else a capitalised
name or the speaker.

Examples
--------
>>> handover_report("Aisha Khan is taking over the Harbor Dental backend.")
Handover(new=('aisha', 'khan'), old=None, duty=('harbor', 'dental', 'backend'), owner=None)
>>> hands_over("Aisha replaced Raj as tech lead.", "Raj is our tech lead.")
True
>>> hands_over("Aisha is covering billing while Raj is on leave.", "Raj handles billing.")
False
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .facts import FUNCTION_WORDS, NEGATIONS, NOT_NOW, not_done, report_body, tokens
from .sentences import several_sentences
from .speakers import PERSON_NOUNS
from .starts import without_start
from .timeref import LAST_SPANS

__all__ = ["Handover", "handover_report", "hands_over"]


class Handover(NamedTuple):
    """A parsed handover report: ``new``, the new holder's name (lower-case words; ``("i",)`` for
    the speaker), ``old``, the old holder's when the report names one (else None), and ``duty``,
    the content words of the duty or role (lower case, in order), ``owner``, whose role it is
    when another's ("My sister's dentist is now Dr. Patel": ``"sister"``; else None)."""

    new: tuple[str, ...]
    old: tuple[str, ...] | None
    duty: tuple[str, ...]
    owner: str | None = None


_S = r"[^\S\n]+"
#: Words that open a sentence with a capital and name no one.
_NO_NAMES = frozenset("the our my your his her their this that these those we they he she it you so and but then "
                      "now since after today yesterday also just ok okay well update fyi note heads quick btw "
                      "starting from as of monday tuesday wednesday thursday friday saturday sunday".split())
#: Words that open a sentence before its subject ("Also Dana is taking over ...", "So Raj ...").
_OPENERS = frozenset("also so and but then now ok okay well update fyi note btw just oh plus".split())
#: A person's name: one to three capitalised words.
_NAME = r"(?:(?-i:Dr|Mr|Mrs|Ms|Mx|Prof)\.?{s})?(?-i:[A-Z][\w'’-]*)(?:{s}(?-i:[A-Z][\w'’-]*)){{0,2}}".format(s=_S)
#: Titles before a name, no part of whom it names ("Dr. Kim" is Kim).
_TITLES = frozenset("dr mr mrs ms mx prof".split())
_WHO = rf"(?P<new>{_NAME}|I(?:['’]m|{_S}am|['’]ve|{_S}have)?|we(?:['’]re|{_S}are)?)"


def _duty(group: str) -> str:
    """A duty or role in group ``group``: up to five words, a "for" / "of" / "on" part kept ("PM
    for Apollo")."""
    return (rf"(?:(?:the|our|my|his|her|their|all{_S}(?:of{_S})?the){_S})?"
            rf"(?P<{group}>(?!from\b)[\w&/'’-]+(?:{_S}[\w&/'’-]+){{0,4}}?"
            rf"(?:{_S}(?:for|of|on){_S}(?:the{_S})?[\w&/'’-]+(?:{_S}(?-i:[A-Z][\w'’-]*)){{0,2}})?)")


#: What may end a duty.
_END = (rf"(?=[^\S\n]*(?:$|[,.;:!?)]|{_S}?[-–—]|{_S}(?:from|as|while|until|till|starting|next|this|"
        rf"last{_S}(?:{'|'.join(sorted(LAST_SPANS, key=len, reverse=True))})|yesterday|when|now|since|after|because|"
        rf"and|but|so|today|effective|alongside|too|also|together|with)\b))")
_BE = rf"(?:(?:is|are|am|has|have|had|['’]s|just|now|officially|finally|already){_S})*"
_HOLD_VERBS = r"handles|owns|leads|runs|manages|covers|oversees|looks{s}after|takes{s}care{s}of|(?:is{s})?responsible{s}for|(?:is{s})?in{s}charge{s}of".format(s=_S)
_HELD_BY = r"handled|owned|led|run|managed|covered|overseen"
#: "X is (now) the / our (new) <role>": a change only with "now" or "new" in the match ("Raj is our
#: tech lead" is a holder).
_ROLE_PATTERN = re.compile(
    rf"\b(?P<new>{_NAME}){_S}(?:is|['’]s){_S}(?:now{_S})?(?:the|our|my){_S}(?:new{_S})?{_duty('duty')}{_END}", re.I)
_NOW, _NOW_OR_NEW = frozenset({"now"}), frozenset({"now", "new"})
#: Each pattern (commented with what it reads) with the words of which a sentence must hold one,
#: and those of which it must also hold one (None: no more).
_PATTERNS = (
    # "Aisha is taking over (the backend | as tech lead) (from Raj)", "took over from Raj as lead"
    (frozenset({"over"}), None, re.compile(rf"\b{_WHO}{_S}{_BE}(?P<verb>taking|taken|took|takes|take){_S}over{_S}"
               rf"(?:from{_S}(?P<old>{_NAME}){_S}as{_S}(?:(?:the|our|my){_S})?{_duty('duty')}{_END}"
               rf"|as{_S}(?:(?:the|our|my){_S})?{_duty('duty2')}{_END}(?:{_S}from{_S}(?P<old2>{_NAME}))?"
               rf"|{_duty('duty3')}{_END}(?:{_S}from{_S}(?P<old3>{_NAME}))?)", re.I)),
    # "Aisha replaced Raj as tech lead"
    (frozenset({"replaced", "replaces", "replacing"}), None, re.compile(rf"\b{_WHO}{_S}{_BE}(?P<verb>replaced|replaces|replacing){_S}(?P<old>{_NAME}){_S}as{_S}"
               rf"(?:(?:the|our|my){_S})?{_duty('duty')}{_END}", re.I)),
    # "Raj handed (over) billing (over) to Aisha"
    (frozenset("handed hands handing passed passes passing".split()), None, re.compile(rf"\b(?P<old>{_NAME}|I|we){_S}{_BE}(?P<verb>handed|hands|handing|passed|passes|passing)"
               rf"(?:{_S}over)?{_S}{_duty('duty')}(?:{_S}over)?{_S}to{_S}(?:(?:our|my|the|his|her|their){_S}(?:[a-z]+{_S})?)?"
               rf"(?P<new>{_NAME})", re.I)),
    # "Aisha now runs payroll", "Aisha is now responsible for payroll"
    (frozenset("handles owns leads runs manages covers oversees looks takes responsible charge handling running "
               "leading managing".split()), _NOW, re.compile(rf"\b{_WHO}{_S}(?:is{_S})?now{_S}(?P<verb>{_HOLD_VERBS}|handling|running|leading|managing){_S}"
               rf"{_duty('duty')}{_END}", re.I)),
    # "Aisha is now the PM for Apollo", "Aisha is (now) our new tech lead"
    (frozenset({"is", "s"}), _NOW_OR_NEW, _ROLE_PATTERN),
    # "Our new tech lead is Aisha", "The tech lead is now Aisha"
    (_NOW_OR_NEW, None, re.compile(rf"\b(?:the|our|my|(?-i:[A-Z])\w*['’]s){_S}(?:new{_S}{_duty('duty')}{_S}is|{_duty('duty2')}{_S}is{_S}now){_S}(?P<new>{_NAME})",
               re.I)),
    # "The backend is now handled by Aisha"
    (_NOW, None, re.compile(rf"\b{_duty('duty')}{_S}(?:is|are){_S}now{_S}(?P<verb>{_HELD_BY}){_S}by{_S}(?P<new>{_NAME})",
                            re.I)),
)
_WORD = re.compile(r"[a-z]+")
#: Substrings of which a text holds one before its words are read (most texts hold none).
_NEEDS_WORDS = re.compile("over|replac|hand|pass|now |new ")
#: A stand-in, not a handover ("also" opening the sentence is news: "Also Dana is taking over ...").
_STAND_IN = re.compile(
    rf"\b(?:while|until|till|temporar\w*|interim|acting|alongside|together{_S}with|as{_S}well|too|(?<!^)also|"
    rf"(?:was|were|is|are){_S}(?:out|away|off|sick|ill)|out{_S}with|cover(?:s|ed|ing)?{_S}for|fill(?:s|ed|ing)?{_S}in|"
    rf"on{_S}(?:leave|vacation|holiday|sabbatical)|out{_S}sick|for{_S}(?:now|the{_S}(?:time{_S}being|next)|"
    rf"(?:a|one|two|three|four|five|six|a{_S}few|a{_S}couple{_S}of|\d+){_S}(?:\w+{_S})?(?:day|week|month|sprint)s?))\b", re.I)
#: A handover said to start later, or told as history.
_LATER = re.compile(
    rf"\b(?:next{_S}\w+|starting{_S}(?!this\b|today\b|now\b)\w+|from{_S}(?:next|january|february|march|april|may|june|july|august|september|"
    rf"october|november|december|monday|tuesday|wednesday|thursday|friday)|in{_S}(?:a|two|three|\d+){_S}(?:\w+{_S})?"
    rf"(?:day|week|month)s?|soon|(?:19|20)\d\d|ago|used{_S}to|back{_S}(?:then|when|in)|"
    rf"last{_S}(?:year|summer|spring|autumn|fall|winter|season|term|semester))\b", re.I)
_REPORTED = re.compile(r"[\"“”]|\b(?:say|says|said|saying|tell|tells|told|according|rumou?rs?|heard|apparently)\b", re.I)
_FUTURE = frozenset("will 'll ’ll gonna going might may could should would shall won't".split())
_SPEAKER = frozenset("i i'm i’m i've i’ve we we're we’re".split())
#: A holder's words in an earlier statement.
_HOLDS = re.compile(rf"\b(?:{_HOLD_VERBS}|handle|own|lead|run|manage|cover|oversee|does|do|cooks|cook|walks|walk|"
                    rf"drives|drive|makes|make|picks|pick|cleans|clean|feeds|feed|teaches|teach|coaches|coach|"
                    rf"{_HELD_BY}{_S}by|is|are|['’]s)\b", re.I)
#: A role said with "is": "X is the / our <role>", "our <role> is X", "my <role> X".
_ROLE_OF = re.compile(rf"\b(?:is|are|['’]s){_S}(?:now{_S})?(?:the|our|my|his|her|their|(?-i:[A-Z])\w*['’]s)\b|"
                      rf"\b(?:the|our|my|his|her|their|(?-i:[A-Z])\w*['’]s){_S}(?:[\w'’-]+{_S}){{0,3}}(?:is|are){_S}"
                      rf"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?{_S})?(?-i:[A-Z])|"
                      rf"\b(?:the|our|my|his|her|their){_S}(?:(?-i:[a-z][\w-]*){_S}){{1,2}}(?-i:[A-Z][a-z])", re.I)
#: Last words of a duty that name no duty of their own ("the scrum master role").
_GENERIC_DUTY = frozenset("role job duty duties position responsibility responsibilities task tasks work".split())
#: Roles of which one has several ("Our new neighbour is Tom": Dave is still a neighbour).
_SEVERAL = frozenset("neighbour neighbours neighbor neighbors friend friends colleague colleagues coworker coworkers "
                     "classmate classmates teammate teammates client clients customer customers student students "
                     "patient patients member members cousin cousins roommate roommates hire hires employee employees "
                     "pet pets puppy kitten cat dog baby favourite favorite".split())


def _words(text: str | None) -> tuple[str, ...]:
    return tuple(w.lower() for w in tokens(text or ""))


def _person(text: str | None) -> tuple[str, ...] | None:
    """A name as lower-case words (``("i",)`` for the speaker), or None for no one."""
    words = _words(text)
    while len(words) > 1 and words[0] in _OPENERS:   # ("Also Dana is taking over ...")
        words = words[1:]
    if not words:
        return None
    if words[0] in _SPEAKER or words[0] == "we":
        return ("i",)
    if words[0] in _NO_NAMES or words[0] in FUNCTION_WORDS:
        return None
    return words[1:] if words[0] in _TITLES and len(words) > 1 else words


@lru_cache(maxsize=1 << 12)
def handover_report(text: str) -> Handover | None:
    """``text`` (str; a leading speaker label read past) read as a handover report (module
    docstring), or None. Of several in one text the last counts.

    >>> handover_report("Raj handed billing over to Aisha last week.").duty
    ('billing',)
    >>> handover_report("Aisha will take over billing next month.") is None
    True
    """
    low = text.lower()
    if _NEEDS_WORDS.search(low) is None or not _patterns(set(_WORD.findall(low))):
        return None   # (most texts; the write path asks it of every new memory)
    assistant, body = report_body(without_start(text))   # (one to start on a day to come: engramdb.starts)
    if assistant:
        return None   # (an assistant's words are advice or an echo)
    found = None
    for sentence in several_sentences(body) or (body,):
        got = _sentence_report(sentence) if sentence else None
        if got is not None:
            found = got
    return found


def _patterns(words: set[str]) -> list[re.Pattern]:
    """The patterns a text of these lower-case ``words`` may match (:data:`_PATTERNS`)."""
    return [pattern for needs, also, pattern in _PATTERNS
            if not words.isdisjoint(needs) and (also is None or not words.isdisjoint(also))]


def _sentence_report(sentence: str) -> Handover | None:
    """:func:`handover_report` of one sentence."""
    patterns = _patterns(set(_WORD.findall(sentence.lower())))
    if not patterns or _REPORTED.search(sentence) or _STAND_IN.search(sentence) or _LATER.search(sentence):
        return None
    found = None
    for pattern in patterns:
        for m in pattern.finditer(sentence):
            before = _words(sentence[max(0, m.start() - 60): m.start()])
            verb_at = m.start("verb") if "verb" in pattern.groupindex and m.group("verb") else m.start()
            said = _words(sentence[m.start(): verb_at])
            near = [w for w in before[-4:] + said if w != "last"]   # ("Since last week I've taken over")
            if not_done(near) or _FUTURE.intersection(near):
                continue   # "we think Aisha might take over", "Aisha won't take over"
            new = _person(m.group("new"))
            old = next((_person(m.group(g)) for g in ("old", "old2", "old3")
                        if g in pattern.groupindex and m.group(g)), None)
            if pattern is _ROLE_PATTERN and not {"now", "new"} & set(_words(m.group(0))):
                continue   # "Raj is our tech lead": a holder, no handover
            group = next(g for g in ("duty", "duty2", "duty3") if g in pattern.groupindex and m.group(g))
            duty_said = m.group(group)
            owner = _owner(_words(sentence[max(0, m.start(group) - 40): m.start(group)]))
            said_duty = _words(duty_said)
            cut = max((i + 1 for i, w in enumerate(said_duty) if w.endswith(("'s", "’s"))), default=0)
            if cut:   # "my sister's dentist": the sister's
                owner, said_duty = said_duty[cut - 1][:-2], said_duty[cut:]
            duty = tuple(w for w in said_duty if w not in FUNCTION_WORDS and w not in NEGATIONS)
            while len(duty) > 1 and duty[-1] in _GENERIC_DUTY:
                duty = duty[:-1]   # "the scrum master role" is the scrum master
            if new is None or not duty or new == old or set(duty) & set(new) or duty[-1] in _SEVERAL:
                continue   # ("Our new neighbour is Tom": one of several)
                continue
            if found is None or m.start() > found[0]:
                found = (m.start(), Handover(new, old, duty, owner))
    return None if found is None else found[1]


def hands_over(new: str, old: str) -> bool:
    """Whether the handover report ``new`` (str) takes the duty from the holder an earlier
    statement ``old`` (str) names (module docstring).

    >>> hands_over("Aisha Khan is taking over the Harbor Dental backend.", "Raj handles the Harbor Dental backend.")
    True
    >>> hands_over("Aisha Khan is taking over the Harbor Dental backend.", "Raj handles the Lumen app.")
    False
    """
    report = handover_report(new)
    if report is None:
        return False
    _assistant, body = report_body(old)   # (an assistant's "Noted: Raj on releases" says who holds it)
    for sentence in several_sentences(body) or (body,):
        # the clause that names the duty ("Raj handles the release process, Priya builds the
        # billing service": Priya, named in another clause, holds no release process)
        if sentence and any(_holds(clause, report) for clause in _clauses(sentence)):
            return True
    return False


#: Where a clause of a sentence may end: a comma or semicolon, or "but" / "while" / "whereas".
_CLAUSES = re.compile(r"[,;]|\s(?:but|while|whereas)\s", re.I)


def _clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence``; a short one without a holder's word is a list item and stays
    with the next ("Priya, Raj and Tom handle releases" is one clause)."""
    out: list[str] = []
    carry = ""
    for part in _CLAUSES.split(sentence):
        part = f"{carry} {part}" if carry else part
        if len(tokens(part)) < 4 and _HOLDS.search(part) is None:
            carry = part
            continue
        carry = ""
        out.append(part)
    return out + [carry] if carry else out


def _holds(sentence: str, report: Handover) -> bool:
    """Whether ``sentence`` says now that someone other than ``report.new`` holds its duty."""
    words = list(_words(sentence))
    if not _names_duty(set(words), report.duty):
        return False
    cues = [c.group(0).lower() for c in _HOLDS.finditer(sentence)]
    if not cues or all(c in ("is", "are", "'s", "’s") for c in cues) and _ROLE_OF.search(sentence) is None:
        return False   # (a role is "X is the / our <role>" or "our <role> is X": "My desk chair is a Herman Miller" is none)
    if NOT_NOW.intersection(words) or not_done(words) or _STAND_IN.search(sentence) or _LATER.search(sentence):
        return False   # "Raj used to handle billing", "Raj doesn't handle billing", "while Raj is away"
    if handover_report(sentence) is not None:
        return False   # a report itself: the later one reads it (or it is the same)
    if _find(words, report.new) is not None:
        return False   # the new holder is named here already
    at = next((i for i, w in enumerate(words) if w == report.duty[0] or w == report.duty[-1]), 0)
    if _owner(words[max(0, at - 3): at]) != report.owner:
        return False   # "My sister's dentist is now Dr. Patel" changes no "My dentist is Dr. Kim."
    if report.old is not None:
        return _find(words, report.old) is not None
    duty = set(report.duty)
    kin = any(w in PERSON_NOUNS and i and words[i - 1] in ("my", "our") for i, w in enumerate(words))
    return kin or not _SPEAKER.isdisjoint(words) or any(
        t[:1].isupper() and t != "I" and t.lower() not in duty and t.lower() not in _NO_NAMES
        and t.lower() not in FUNCTION_WORDS for t in tokens(sentence))   # a holder: a name, "my husband", the speaker


def _owner(before: tuple[str, ...] | list[str]) -> str | None:
    """Whose role the words just ``before`` a duty say it is, when another's ("my sister's
    (new)": ``"sister"``; "Umbrella's IT admin": ``"umbrella"``, "it" there is "IT"), else None."""
    for w in reversed(before):
        if w in ("new", "current", "the", "it"):
            continue
        return w[:-2] if w.endswith(("'s", "’s")) and w[:-2] not in ("it", "that", "there", "here", "what", "who") else None
    return None


def _names_duty(words: set[str], duty: tuple[str, ...]) -> bool:
    """Whether ``words`` name ``duty``: its last word and all but one of the others ("my
    manager" names "line manager"; "the Lumen backend" no "Harbor Dental backend")."""
    return duty[-1] in words and sum(w not in words for w in duty[:-1]) <= 1


def _find(words: list[str], name: tuple[str, ...]) -> int | None:
    """Where ``name`` (lower-case words; ``("i",)`` the speaker) starts in ``words``, or None (a
    first name alone finds a full name's first word: "Raj" is "Raj Patel"; a title is none of
    it: "Dr. Kim" is not "Dr. Okafor")."""
    if name == ("i",):
        return next((i for i, w in enumerate(words) if w in _SPEAKER), None)
    return next((i for i in range(len(words)) if words[i] == name[0] and words[i] not in _TITLES), None)
