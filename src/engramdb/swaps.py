"""Replacement reports: the speaker says a thing in use was replaced by another, or dropped ("We
moved from Poetry to uv", "We replaced black, flake8 and isort with ruff", "I switched my editor
to Helix", "we're dropping pytest-xdist").

Rule-based, no model, like :mod:`engramdb.changes` (a time, date or amount changed) and
:mod:`engramdb.standing` (home and employer): the write path asks :func:`replaces` of a report and
each earlier statement it may replace, and links the two ``contradicts`` (kind ``"change"``);
recall then puts the later first and warns. Nothing is superseded: the rules may misread.

A report is one of:

- a change "from <old> to <new>" (or "to <new> from <old>", "off <old> onto <new>"): switched,
  moved, migrated, changed, went, upgraded ... ("While at it we moved from Poetry to uv",
  "switched my editor from VS Code to Helix", "changed dentists from Dr. Patel to Dr. Kim", "We
  switched to uv from Poetry", "We migrated off Jenkins onto GitHub Actions");
- a replacement: "replaced <old> with / by <new>", "swapped <old> for <new>", "ditched / dropped /
  left <old> for / in favour of <new>", "<old> was replaced by <new>", "we use <new> instead of
  <old>" (several old names: "black, flake8 and isort");
- a thing of the speaker's switched to a new name: "switched / changed my <thing> to <New>" (the
  new name capitalised: "switched my editor to Helix"; "switched carriers to T-Mobile"; a time,
  date, amount or place is for the other modules: "switched my mum call to Saturdays");
- a drop: "we're dropping pytest-xdist", "I stopped using Notion", "we retired Jenkins", "I don't
  use Evernote anymore"; an employer left: "I quit Hooli", "I got laid off from Hooli", "I resigned
  from Hooli" (it replaces a statement :mod:`engramdb.standing` reads that employer from: "I'm a
  designer at Hooli");
- a thing of two lower-case words switched: "I switched from oat milk to almond milk";
- a move forced by the old one's end: "Since Mint shut down I switched to YNAB", "After Evernote got
  acquired, we moved everything to Obsidian".

The report is the speaker's (I or we say it, or its verb opens the clause: "My friend switched
from Poetry to uv" is none), done (nothing of :data:`engramdb.facts.NOT_DONE` before the verb, no
"we'll", "let's", "next sprint", "soon"; no question, "How do I migrate from ..."; an "-ing" verb
only after "we're" / "I'm"), of now (no history: "at my old job", "years ago", a year; not undone
or partial: "then back", "only", or the old name said again after it: "... but the app itself
still uses Poetry"), not someone's words ("The article says ..."), a story or an assistant's.
A dropped name looks like a name (a capital inside the sentence, a digit, "-", "." or "+" inside a
word) and ends its phrase ("I removed Docker images", "dropped my phone" drop no Docker, no phone);
a change "from A to B" for an occasion ("for the presentation") or a while ("for two weeks") is
none.

An earlier statement is replaced when a sentence of it that states something now (no question,
negation, past or plan) says an old name is in use: a verb of use before it ("We use Poetry", the
speaker's "I prefer (drink, eat, take, like, love, order) oat milk", not the kids' nor "oat milk ads",
"we run them in parallel with pytest-xdist", "we're on Poetry"), a purpose after it ("flake8 for
linting", "VS Code as my editor"), "my <thing> is <name>", or a list after a colon ("Formatting:
black with line length 100, flake8"); a name the report spells with a capital is spelt so there
("I read poetry every night" is no Poetry), and not another person's ("my sister uses Poetry").
For a thing switched the statement names the thing and another name for it ("I use VS Code as my
editor.", "My carrier is Verizon."). An earlier report is replaced when it gave an old name as its
new one ("moved from Poetry to uv", then "moved from uv to pdm").

Examples
--------
>>> swap_report("While at it we moved from Poetry to uv, so the lockfile is uv.lock now.").old
(('poetry',),)
>>> replaces("We moved from Poetry to uv.", "We use Poetry for dependencies.")
True
>>> replaces("We moved from Poetry to uv.", "My sister's team uses Poetry.")
False
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .facts import (
    ADVERBS, FUNCTION_WORDS, NEGATIONS, NOT_NOW, NOT_PRESENT, NUMBER_WORDS, _stem, not_done, report_body, tokens,
    without_questions,
)
from .sentences import several_sentences
from .speakers import PERSON_NOUNS
from .standing import standings
from .starts import without_start
from .thirdperson import in_first_person
from .timeref import CALENDAR_WORDS

__all__ = ["LEFT_JOB", "Swap", "replaced_sentences", "replaces", "swap_report"]


class Swap(NamedTuple):
    """A parsed replacement report: ``old``, the names replaced (each a tuple of lower-case
    words; empty for a thing switched with its old name unsaid), ``new``, the name that took their
    place (lower-case words; empty for a drop), ``thing``, the stems of what was switched ("my
    editor": ``{"editor"}``; empty when the report names none), ``proper``, the old names the
    report spells with a capital (a name: "Poetry" is no "poetry readings"), ``consumed``, a
    thing the speaker gave up consuming, named in lower case ("I've quit coffee": it replaces
    only what the speaker drinks, eats, takes ...: "I drink coffee every morning"), ``version``,
    the version a thing was upgraded to ("We upgraded to Python 3.12": it replaces only a
    statement of the thing at another version, "We use Python 3.10")."""

    old: tuple[tuple[str, ...], ...]
    new: tuple[str, ...]
    thing: frozenset[str] = frozenset()
    proper: frozenset[tuple[str, ...]] = frozenset()
    consumed: bool = False
    version: str = ""


_S = r"[^\S\n]+"
#: A name: a word (letters, digits, "." "+" "#" "/" "-": "pytest-xdist", "C++", "Node.js"), then up
#: to two capitalised words or numbers ("VS Code", "Python 3.12", "Dr. Kim").
_WORD = r"[\w.+#/-]*\w[+#]*\.?(?![\w.+#/-]*\w)"
_NAME = rf"{_WORD}(?:{_S}(?=(?-i:[A-Z0-9])){_WORD}){{0,2}}"
#: A thing of two lower-case words, a modifier and a noun ("oat milk", "green tea", "night
#: shifts"), said after "from" or "to" of a switch; as the new one, only where its phrase ends
#: (punctuation, the end, or a word that opens no noun: "to almond milk in my coffee").
_PAIR = r"(?-i:[a-z]+)[^\S\n]+(?-i:[a-z]+)"
_PAIR_ENDS = (r"(?=\s*(?:[^\w\s]|$)|[^\S\n]+(?:in|for|at|with|on|instead|now|these|because|since|and|but|as|every|"
              r"each|today|lately|anymore|recently|this|last)\b)")
#: Names in a list ("black, flake8 and isort", "Jenkins and Travis").
_LIST = rf"{_NAME}(?:,{_S}(?!(?:and|it|this|that|they|we|i|he|she|which|who|so|but|then)\b){_NAME})*(?:,?{_S}(?:and|&){_S}{_NAME})?"
_THE = rf"(?:(?:the|our|my){_S})?"
_CHANGE_VERBS = (r"switch|switched|switching|move|moved|moving|migrate|migrated|migrating|change|changed|changing|"
                 r"went|transitioned|transitioning|converted|converting|upgraded|upgrading|downgraded|jumped|"
                 r"ported|porting")
#: What was switched: "my editor", "our CI", or a plural noun ("dentists", "carriers").
_THING = rf"(?P<thing>{_S}(?:(?:my|our|the){_S}[\w-]+(?:{_S}[\w-]+){{0,2}}?|(?-i:[a-z]+|[A-Z]{{2,5}})(?:{_S}(?-i:[a-z]+)){{0,3}}?))"
#: Verbs that drop a thing ("cancelled", "gave up", "stopped using"), and those that then take up
#: another ("... and switched to Apple Music", "... and started with Dr. Reyes").
_DROPS = (  # (an employer left first: helper-229, "I quit Hooli yesterday." ranked below "I work at Hooli.")
          r"(?:quit|left){_S}my{_S}job{_S}(?:at|with)|(?:got|was|been|were){_S}laid{_S}off{_S}(?:from|by|at)|"
          r"(?:got|was|been){_S}fired{_S}(?:from|by)|resigned{_S}from|stopped{_S}working{_S}(?:at|for)|"
          r"no{_S}longer{_S}work{_S}(?:at|for)|"
          r"(?:handed|turned|put|gave|submitted)(?:{_S}in)?{_S}(?:my{_S})?(?:notice|resignation){_S}(?:at|to)|"
          r"moved{_S}(?:everything|all|it|things){_S}out{_S}of|dropping|dropped|ditching|ditched|removing|removed|"
          r"uninstalled|retired|retiring|decommissioned|"
          r"decommissioning|sunset|sunsetted|sunsetting|cancell?ed|cancell?ing|quit|gave{_S}up|stopped{_S}using|"
          r"stopped{_S}seeing|no{_S}longer{_S}use|don't{_S}use|do{_S}not{_S}use|got{_S}rid{_S}of|getting{_S}rid{_S}of|"
          r"phasing{_S}out|phased{_S}out|giving{_S}up|given{_S}up|stopped{_S}(?:drinking|eating|having|taking)|"
          r"cut{_S}out|no{_S}longer{_S}(?:drink|eat|take)").replace("{_S}", _S)
#: Words before a verb that make it no deed done ("I almost quit", "I've basically quiet quit my job").
_HEDGES = frozenset("almost nearly basically practically virtually quiet kinda sorta".split())
#: What may follow a thing given up, or the job quit: the sentence's end, or a word of when or how
#: completely (not "coffee after 3pm", "on weekdays", "from Starbucks", "my job as treasurer").
_GIVEN_UP_END = re.compile(r"\s*(?:[.!?;,)]|$|(?:today|yesterday|completely|entirely|altogether|anymore|for\s+good|"
                           r"cold\s+turkey|again|last\s+\w+|this\s+\w+|recently|now|and)\b)", re.I)
#: Words after a thing given up that undo or unsay it ("I quit coffee and sugar and then relapsed",
#: "..., didn't last", "..., lol jk", "... but I'm back on both").
_UNDONE = re.compile(r"\b(?:relaps\w*|didn['’]?t\s+last|jk|j/k|kidding|joking|caved|started\s+again|back\s+on|"
                     r"(?:lasted|only)\s+(?:a|one|two|three|\d+)\s+(?:day|days|week|weeks|hour|hours)|for\s+(?:a|one|the)\s+"
                     r"(?:day|week|month|cleanse|detox|challenge)|for\s+lent)\b", re.I)
#: The thing of a drop of the speaker's job ("I quit my job."): it replaces the employer's statements.
LEFT_JOB = frozenset({"job"})
#: The verbs of a drop that may give up a thing consumed, named in lower case ("I've quit coffee",
#: "I gave up sugar", "I stopped drinking soda").
_GIVE_UP = re.compile(r"(?:quit|gave|giving|given|stopped|cut|no)(?:\s+(?:up|drinking|eating|having|taking|out|longer))?"
                      r"(?:\s+(?:drink|eat|take))?$")
#: The words (lower case) a text must hold one of before a pattern of a drop is read.
_DROP_WORDS = ("drop", "ditch", "remov", "uninstall", "retir", "decommission", "sunset", "cancel", "quit", "gave up",
               "stopped", "longer use", "don't use", "not use", "rid of", "phas", "out of", "left my job", "laid off",
               "fired", "resigned", "longer work", "notice", "resignation", "giving up", "given up", "cut out",
               "longer drink", "longer eat", "longer take")
_TAKE_UP = (r"switched|moved|went|changed|migrated|started{_S}(?:using|with|seeing)|now{_S}use|use|using|"
            r"signed{_S}up{_S}(?:for|with)|joined").replace("{_S}", _S)
#: What is upgraded to a version: a name of one word ("Python", "node", "React", "pnpm").
_VERSIONED = r"[A-Za-z][\w+#-]*"
#: Where a version ends its phrase: punctuation, the end, or a word that opens no noun ("Python
#: 3.12 last week"; not "moved to Denver 2 weeks ago").
_VERSION_END = (rf"(?=\s*(?:[,;:!?)]|\.(?!\d)|$)|{_S}(?:and|but|because|since|now|last|this|today|yesterday|recently|"
                rf"finally|already|across|everywhere)\b)")   # (not "for the new service", "on staging", "at home")
#: A version said alone ("3.12", "v2.1").
_BARE_VERSION = re.compile(r"v?\d+(?:\.\d+)*")
#: A version after a name in a statement ("We use Python 3.10", "React v18").
_VERSION_AFTER = re.compile(r"[\w+#-]*\s+v?(\d+(?:\.\d+)*)(?!\w|\.\d)", re.I)
_PATTERNS = (   # (kind, the words it needs one of, regex)
    # "we moved from Poetry to uv", "switched my editor from VS Code to Helix"
    ("change", (" from ",),
     re.compile(rf"\b(?P<verb>{_CHANGE_VERBS})(?:{_S}(?:over|everything|things))?{_THING}?{_S}from{_S}{_THE}"
                rf"(?:using{_S})?(?P<old>{_LIST}){_S}(?:over{_S})?(?:to|onto){_S}{_THE}(?:using{_S})?(?P<new>{_NAME})",
                re.I)),
    # "I switched from oat milk to almond milk": things of two lower-case words, after a switch only
    ("change", (" from ",),
     re.compile(rf"\b(?P<verb>switch|switched|switching|swapped|changed)(?:{_S}over)?{_S}from{_S}{_THE}"
                rf"(?P<old>{_PAIR}|{_NAME}){_S}(?:to|onto){_S}{_THE}(?P<new>{_PAIR}{_PAIR_ENDS}|{_NAME})", re.I)),
    # "we switched to uv from Poetry", "I've switched over to Helix from VS Code"
    ("change", (" from ",),
     re.compile(rf"\b(?P<verb>{_CHANGE_VERBS})(?:{_S}over)?{_THING}?{_S}(?:to|onto){_S}{_THE}(?P<new>{_NAME})"
                rf"{_S}from{_S}{_THE}(?P<old>{_LIST})", re.I)),
    # "we migrated off Jenkins onto GitHub Actions", "moved our CI off Jenkins to GitHub Actions"
    ("change", (" off ",),
     re.compile(rf"\b(?P<verb>{_CHANGE_VERBS}){_THING}?{_S}off{_S}(?:of{_S})?{_THE}(?P<old>{_LIST})"
                rf"{_S}(?:to|onto|for){_S}{_THE}(?P<new>{_NAME})", re.I)),
    # "we replaced black, flake8 and isort with ruff", "swapped Jenkins for GitHub Actions",
    # "ditched Notion in favour of Obsidian", "I left Verizon for T-Mobile"
    ("replace", ("replac", "swap", "substitut", "ditch", "drop", "dump", "abandon", "left ", "quit "),
     re.compile(rf"\b(?P<verb>replaced|replacing|swapped(?:{_S}out)?|swapping(?:{_S}out)?|substituted|ditched|"
                rf"ditching|dropped|dropping|dumped|abandoned|left|quit){_S}{_THE}(?P<old>{_LIST})"
                rf"{_S}(?:with|by|for|in{_S}favou?r{_S}of){_S}{_THE}(?P<new>{_NAME})", re.I)),
    # "Jenkins was replaced by GitHub Actions"
    ("passive", ("replaced", "swapped out", "superseded"),
     re.compile(rf"(?P<old>{_LIST}){_S}(?P<verb>(?:was|were|got|has{_S}been|have{_S}been|is{_S}being|are{_S}being)"
                rf"{_S}(?:replaced|swapped{_S}out|superseded)){_S}(?:with|by|for){_S}{_THE}(?P<new>{_NAME})", re.I)),
    # "we now use GitHub Actions instead of Jenkins"
    ("replace", ("instead of",),
     re.compile(rf"\b(?P<verb>use|using|on|with|switched{_S}to|moved{_S}to){_S}{_THE}(?P<new>{_NAME})"
                rf"(?:{_S}now)?{_S}instead{_S}of{_S}{_THE}(?P<old>{_LIST})", re.I)),
    # "I cancelled Spotify and switched to Apple Music", "I gave up Lightroom and moved to Capture One"
    ("replace", _DROP_WORDS,
     re.compile(rf"\b(?P<verb>{_DROPS}){_S}{_THE}(?P<old>{_NAME}){_S}(?:and|,)(?:{_S}(?:now|then|we|i|i've|we've|"
                rf"have))*{_S}(?:{_TAKE_UP})(?:{_S}(?:over|everyone|everything|us|the{_S}team))?"
                rf"(?:{_S}(?:to|onto|for|with))?{_S}{_THE}(?P<new>{_NAME})", re.I)),
    # "Since Mint shut down I switched to YNAB", "After Evernote got acquired, we moved everything to Obsidian"
    ("ended", ("shut", "closed", "discontinu", "went under", "went bust", "stopped working", "died", "folded",
               "acquired", "killed"),
     re.compile(rf"\b(?:since|because|after|as|now{_S}that|once){_S}{_THE}(?P<old>{_NAME}){_S}"
                rf"(?:shut{_S}down|closed(?:{_S}down)?|went{_S}(?:under|bust)|folded|died|stopped{_S}working|"
                rf"(?:was|got|has{_S}been){_S}(?:discontinued|shut{_S}down|killed|acquired)|"
                rf"is{_S}(?:shutting{_S}down|closing|being{_S}discontinued))(?:{_S}(?:last|this){_S}\w+)?,?{_S}"
                rf"(?:i|we)(?:['’]ve|{_S}have)?(?:{_S}(?:just|now|finally))?{_S}"
                rf"(?P<verb>{_TAKE_UP})(?:{_S}(?:over|everything|everyone))?(?:{_S}(?:to|onto|for|with))?{_S}{_THE}"
                rf"(?P<new>{_NAME})", re.I)),
    # "I switched my editor to Helix", "I switched carriers to T-Mobile"
    ("thing", ("switched", "changed", "swapped"),
     re.compile(rf"\b(?P<verb>switched|changed|swapped){_THING}{_S}(?:over{_S})?to{_S}"
                rf"(?P<new>(?-i:[A-Z])[\w.+#/-]*(?:{_S}(?-i:[A-Z0-9])[\w.+#/-]*){{0,2}})", re.I)),
    # "we're dropping pytest-xdist", "I stopped using Notion", "I don't use Evernote anymore"
    ("drop", _DROP_WORDS, re.compile(rf"\b(?P<verb>{_DROPS}){_S}{_THE}(?P<old>{_LIST})", re.I)),
    # "We upgraded to Python 3.12", "we bumped React to 18.3", "moved the API to Node 20.11"
    ("version", ("upgrad", "updat", "bump", "moved", "migrated", "switched", "jumped"),
     re.compile(rf"\b(?P<verb>upgraded|updated|bumped|moved|migrated|switched|jumped)(?:{_S}(?:everything|us|it|over))?"
                rf"{_S}to{_S}(?P<name>{_VERSIONED})\b{_S}v?(?P<version>\d+(?:\.\d+)*){_VERSION_END}", re.I)),
    ("version", ("upgrad", "updat", "bump", "moved", "migrated"),
     re.compile(rf"\b(?P<verb>upgraded|updated|bumped|moved|migrated){_S}{_THE}(?P<name>{_VERSIONED})"
                rf"(?:{_S}from{_S}v?\d+(?:\.\d+)*)?{_S}to{_S}v?(?P<version>\d+(?:\.\d+)*){_VERSION_END}", re.I)),
    # a version the speaker is on now: "We're on Python 3.12 now.", "I'm now using Node 20.11" (the
    # upgrade said as the state after it; "now" says it changed, a version has a dot)
    ("version", ("now",),
     re.compile(rf"\b(?:we|i)(?:['’]re|['’]m|{_S}are|{_S}am){_S}(?:(?P<now>now){_S})?(?P<verb>on|using|running)"
                rf"{_S}(?P<name>{_VERSIONED}){_S}v?(?P<version>\d+(?:\.\d+)+)"
                rf"(?(now){_VERSION_END}|{_S}now(?=\s*(?:[,;:!)]|\.(?!\d)|$)))", re.I)),
)
#: Words after a report that, with an old name said again, keep the old one ("the rest stays on Poetry").
_STAYS = frozenset("still stays stay stayed remain remains remained keep keeps kept back also both".split())
#: A value, no name ("3pm", "10", "2nd", "1990s").
_VALUE = re.compile(r"^\d[\d:.,]*(?:am|pm|st|nd|rd|th|s|k|m)?$")
#: Words no name is ("it", "that", "everything"), besides function words.
_NOT_NAMES = frozenset("it its them this that these those everything something anything nothing one ones thing "
                       "things stuff all".split())
#: Who says it: the speaker, in the clause before the verb ("we", "I've"); and the words of
#: the speaker in a statement.
_SUBJECT = frozenset("i i'm i've i'd we we're we've we'd".split())
_FIRST = _SUBJECT | frozenset("me my mine us our ours".split())
#: Words that may stand before the verb besides the speaker ("While at it we moved", "So we
#: finally retired"), and how a clause may open without a subject ("Finally moved ...").
_OPENERS = frozenset("while at it so ok okay well also just finally officially today recently yesterday "
                     "then now and but anyway btw update fyi have has had been already decision".split())
_BE = frozenset("i'm we're am are is was were".split())
#: Words of a sentence that make a report a plan, an occasion, history, undone or partial.
_NOT_NOW_REPORT = re.compile(
    r"\b(?:\w+'ll|let's|lets|next\s+(?:week|sprint|month|quarter|year|time|release)|soon|tomorrow|someday|eventually|"
    r"(?:19|20)\d\d|ago|used\s+to|back\s+(?:then|in|at|when)|when\s+(?:i|we)\s+(?:was|were)|"
    r"(?:old|previous|former|last|prior)\s+(?:job|company|employer|team|workplace|startup|gig|role|apartment|place|"
    r"house|school)|then\s+back|switched\s+back|back\s+to|only(?!\s+(?:[$£€¥]|\d))|temporar(?:y|ily)|for\s+now|trial|experiment\w*|"
    r"revert\w*|rolled\s+(?:it\s+)?back|downgrad\w*|locally|staging|"
    r"in\s+(?:college|school|high\s+school|uni|university|grad\s+school)|as\s+a\s+(?:kid|child|teen|student)|"
    r"growing\s+up)\b|^\W*(?:for|in)\s+(?:the\s+|this\s+|my\s+|our\s+|a\s+)?(?!(?:the|this|my|our|a)\b)"
    r"(?-i:[a-z])[\w-]+(?:\s+(?-i:[a-z])[\w-]+)?\s*,?\s+(?:i|we)\b", re.I)
#: Someone's words, a story or a dream: no report of the speaker's.
_REPORTED = re.compile(r"[\"“”]|\b(?:say|says|said|saying|tell|tells|told|according|article|articles|docs|"
                       r"documentation|guide|tutorial|blog|post|stor(?:y|ies)|dream\w*|joke\w*|joking|kidding|"
                       r"novel|imagine\w*|pretend\w*|hypothetical\w*|fiction\w*|idea)\b", re.I)
_ASKING = re.compile(r"^\W*(?:how|what|why|when|where|which|who|can|could|should|would|do|does|did|is|are|"
                     r"shall|may)\b", re.I)
#: An occasion or a while after a change "from A to B": none of the standing thing's.
_OCCASION = re.compile(rf"^{_S}for{_S}(?:the|this|a|one|two|three|my|our|an|\d+|tonight|today|tomorrow|"
                       rf"tonight's|today's|tomorrow's|tonight’s|today’s|tomorrow’s)\b", re.I)
_ROLE = re.compile(r"\s*(?:user|assistant)\s*:\s+", re.I)
_CLAUSE_MARK = re.compile(r"[,;:]|\s[-–—]\s|\b(?:and|but|so|then|because)\b", re.I)


def _names(text: str) -> list[tuple[tuple[str, ...], bool]]:
    """The names of a list ("black, flake8 and isort"), each as lower-case words, with whether
    the list spells it with a capital."""
    out = []
    for part in re.split(rf",(?:{_S})?(?:and{_S}|&{_S})?|{_S}(?:and|&){_S}", text.strip()):
        said = part.rstrip(".").split()
        while said and said[0].lower() in ("the", "my", "our", "a", "an"):
            said = said[1:]
        words = tuple(w.lower() for w in said)
        if len(words) == 1 and words[0].endswith(("ed", "ing")) and said[0].islower():
            break   # ("I cancelled Spotify and switched to ...": a verb ends the list)
        if words and not (len(words) == 1 and (words[0] in FUNCTION_WORDS or words[0] in _NOT_NAMES)):
            out.append((words, said[0][:1].isupper()))
    return out


def _looks_named(text: str, at: int) -> bool:
    """Whether the words of ``text`` (a name as its sentence spells it, at offset or token index
    ``at`` of the sentence) look like a name: a capital not opening the sentence, a digit, or "-",
    ".", "+" inside a word ("pytest-xdist", "Node.js")."""
    if re.search(r"\d|\w[-.+#/]\w|\w\+", text):
        return True
    return text[:1].isupper() and at > 0


def _ends_phrase(rest: str) -> bool:
    """Whether the text after a dropped name (``rest``) ends its noun phrase: punctuation, the
    end, or a word that is no noun ("for", "last", "today"); "Docker images" names images."""
    m = re.match(r"[^\S\n]*([^\W\d_][\w'’-]*)", rest)
    if m is None:
        return True
    word = m.group(1)
    return not word.islower() or word in FUNCTION_WORDS or word in ADVERBS or word in _AFTER_NAME


_AFTER_NAME = frozenset("last this today yesterday entirely completely altogether anymore everywhere for good "
                        "over subscription subscriptions account accounts membership plan instead because since "
                        "after".split())


@lru_cache(maxsize=1 << 14)
def swap_report(text: str) -> Swap | None:
    """``text`` (str; a leading speaker label read past) read as a replacement report (module
    docstring), or None. Of several in one text the last counts.

    >>> got = swap_report("We replaced black, flake8 and isort with ruff this week.")
    >>> got.old, got.new
    ((('black',), ('flake8',), ('isort',)), ('ruff',))
    >>> swap_report("We might move from Poetry to uv.") is None
    True
    """
    if _NEEDS.search(text.lower()) is None:
        return None   # (most texts: no word of any pattern; the write path asks it of every new memory)
    text = in_first_person(text)   # ("User switched from Todoist to TickTick.", as a model's memory tool writes it)
    assistant, body = report_body(without_start(text))   # (one to start on a day to come: engramdb.starts)
    if assistant:
        return None   # (an assistant's words are advice or an echo)
    if not body or not any(pattern.search(body) for _kind, pattern in _patterns(body)):
        return None
    found = None
    for sentence in several_sentences(body) or (body,):
        got = _sentence_report(sentence)
        if got is not None:
            found = got
    return found


def _sentence_report(sentence: str) -> Swap | None:
    """:func:`swap_report` of one sentence."""
    if _REPORTED.search(sentence) or _ASKING.match(sentence) or _NOT_NOW_REPORT.search(sentence):
        return None
    found = None
    for kind, pattern in _patterns(sentence):
        for m in pattern.finditer(sentence):
            got = _match_report(kind, m, sentence)
            if got is not None and (found is None or m.start() > found[0]):
                found = (m.start(), got)   # (the last; of two at one place, the first pattern)
    return None if found is None else found[1]


#: Every pattern's words in one regex: the first test of a text.
_NEEDS = re.compile("|".join(sorted({re.escape(w) for _kind, needs, _p in _PATTERNS for w in needs}, key=len, reverse=True)))


def _patterns(text: str) -> list[tuple[str, re.Pattern]]:
    """The patterns (kind, regex) whose words ``text`` holds one of (the rest cannot match)."""
    low = text.lower()
    return [(kind, pattern) for kind, needs, pattern in _PATTERNS if any(word in low for word in needs)]


def _match_report(kind: str, m: re.Match, sentence: str) -> Swap | None:
    """The report of one match ``m`` of a pattern of ``kind`` in ``sentence``, or None."""
    groups = m.groupdict()
    at = m.start("old") if kind == "passive" else m.start("verb")
    head = sentence[max(0, at - 200): at]   # (the clause before the verb: a run-on text is not read again per match)
    marks = list(_CLAUSE_MARK.finditer(head))
    clause = head[marks[-1].end():] if marks else head
    said = [t.lower() for t in tokens(clause)]
    verb = m.group("verb").lower().split()
    if kind == "passive":
        if said and not all(w in ("the", "our", "my") for w in said):
            return None   # (the old name opens its clause: "Jenkins was replaced by ...")
    else:
        if not_done(said):
            return None   # "we might move from ...", "we need to switch ..."
        if said[-1:] == ["to"] or not (set(said) & _SUBJECT or all(w in _OPENERS for w in said)):
            return None   # "My friend switched ...", "Anna moved ...", "They switched ..."
        if verb[0].endswith("ing") and not (said and said[-1] in _BE | {"now", "officially", "finally", "also"}
                                            and _BE & set(said)) and said[-1:] not in (["started"], ["began"]) \
                and said[-2:] not in (["i've", "been"], ["i’ve", "been"], ["we've", "been"], ["we’ve", "been"]):
            return None   # "Write a guide on migrating from ...": no report (but "I've started using Linear")
    if kind == "version":
        name = (groups["name"].lower(),)
        version = groups["version"]
        if (name[0] in FUNCTION_WORDS or name[0] in _NOT_NAMES or name[0].rstrip("s") in CALENDAR_WORDS
                or (verb[0] in ("moved", "migrated", "switched", "jumped")
                    and ("." not in version or re.fullmatch(r"\d{1,2}\.\d\d", version)
                         or not groups["name"][:1].isupper()))):
            return None   # ("moved standup to 10", "to 9.30": a time; a version moved to is a name's, with its dot)
        return Swap((name,), (*name, version), frozenset(), frozenset({name}) if groups["name"][:1].isupper()
                    else frozenset(), version=version)
    listed = _names(groups["old"]) if groups.get("old") else []
    old = tuple(name for name, _capital in listed)
    said_new = groups["new"].rstrip(".") if groups.get("new") else ""
    new = tuple(w.lower() for w in said_new.split())
    thing_words = [w for w in tokens(groups.get("thing") or "") if w.lower() not in FUNCTION_WORDS]
    if any(w[:1].isupper() and not w.isupper() for w in thing_words):
        return None   # "switched my Spotify to Premium": a plan of a product, no thing replaced
    thing = frozenset(_stem(w.lower()) for w in thing_words)
    if (len(new) == 1 and len(old) == 1 and len(old[0]) > 1 and _BARE_VERSION.fullmatch(new[0])
            and _BARE_VERSION.fullmatch(old[0][-1]) and "." in new[0] + old[0][-1]):
        new = (*old[0][:-1], new[0].lstrip("v"))   # "We moved from Python 3.10 to 3.12": Python 3.12
    if new and ((not said_new[:1].isupper() and (new[0] in _NOT_NAMES or new[0] in FUNCTION_WORDS))
                or new[0].rstrip("s") in CALENDAR_WORDS or _VALUE.match(new[0]) or new[0] in NUMBER_WORDS):
        return None   # "switched my call to Saturdays", "moved from 3pm to 4pm": the other modules'
    if any(_VALUE.match(o[0]) or o[0].rstrip("s") in CALENDAR_WORDS or o[0] in NUMBER_WORDS for o in old):
        return None
    if new and kind != "thing" and not _ends_phrase(sentence[m.end("new"):]):
        return None   # "swapped Oatly for regular milk", "dropping Slack for the hackathon weekend"
    if (old and new and new in old) or (not old and not thing):
        return None
    if not _HEDGES.isdisjoint(said):
        return None   # "I almost quit my job", "I've basically quiet quit"
    consumed = False
    if kind == "drop" and not (_looks_named(groups["old"], m.start("old")) and _ends_phrase(sentence[m.end("old"):])):
        # "I dropped my phone", "I removed Docker images" (but "I've quit coffee": a thing consumed)
        consumed = (_GIVE_UP.match(" ".join(verb)) is not None and 1 <= len(listed) <= 3   # ("coffee and sugar")
                    and all(len(o) <= 2 for o in old) and not any(capital for _name, capital in listed)
                    and _GIVEN_UP_END.match(sentence, m.end("old")) is not None)
        if consumed and _UNDONE.search(sentence, m.end("old")) is not None:
            return None   # "I quit coffee and sugar and then relapsed", "..., didn't last", "..., jk"
        if consumed and old == (("job",),):
            # "I quit my job.": the employer, unnamed (it replaces a statement of the speaker's employer)
            return Swap((), (), LEFT_JOB) if re.search(r"\bmy\s+$", sentence[: m.start("old")], re.I) else None
        if not consumed:
            return None
    if kind in ("change", "replace") and groups.get("old") and not _ends_phrase(sentence[m.end("old"):]) \
            and not re.match(rf"{_S}(?:to|onto|with|by|for|in{_S}favou?r)\b", sentence[m.end("old"):], re.I):
        return None
    if kind == "change" and _OCCASION.match(sentence[m.end("new"):]) or (
            kind == "drop" and _OCCASION.match(sentence[m.end("old"):])):
        return None   # "switched from French to English for the presentation", "dropping Slack for the weekend"
    rest = [t.lower() for t in tokens(sentence[m.end():])]
    if any(_find(rest, name) is not None for name in old) and not _STAYS.isdisjoint(rest):
        return None   # "..., but the app itself still uses Poetry": the old one stays (not "Notion got too slow")
    return Swap(old, new, thing, frozenset(name for name, capital in listed if capital), consumed)


def replaces(new: str, old: str) -> bool:
    """Whether the replacement report ``new`` (str) replaces what the earlier statement ``old``
    (str) says is in use (module docstring): a sentence of ``old`` that states something now says
    an old name is in use, or, for a thing switched, names the thing and another name for it; or
    ``old`` is a report whose new name is an old one of ``new``.

    Parameters
    ----------
    new, old : str
        The report and the statement said before it.

    Returns
    -------
    bool
    """
    report = swap_report(new)
    if report is None:
        return False
    old = in_first_person(old)   # ("User keeps to-dos in Todoist.": the user's own)
    earlier = swap_report(old)
    if earlier is not None and earlier.new and earlier.new in report.old:
        return True   # a report before: its new name replaced now ("from uv to pdm" after "to uv")
    if not report.new and any(s.relation == "employer" and (s.value in report.old or report.thing == LEFT_JOB)
                              for s in standings(old)):
        return True   # an employer left: "I quit Hooli." / "I quit my job." and "I'm a designer at Hooli." (engramdb.standing)
    return bool(_in_use(report, old))   # ("I've moved everything out of Trello, I'm using Notion now.")


def _in_use(report: Swap, old: str) -> tuple[str, ...]:
    """The sentences of ``old`` that say a name ``report`` replaced is in use (:func:`replaces`)."""
    label = _ROLE.match(old)   # (only a chat role's: "Jira: our issue tracker." names Jira)
    body = without_questions(old[label.end():] if label is not None else old)
    out = []
    for sentence in several_sentences(body) or (body,):
        said = tokens(sentence)
        words = [t.lower() for t in said]
        if not words or not _now(_to_clause_end(sentence, words)):
            continue
        if report.old:
            for name in report.old:
                at = _find(words, name)
                n = len(_parts(name))
                if (at is not None and (not _anothers(words[:at]) or _is_mine(words[:at]))
                        and (name not in report.proper or at == 0 or said[at][:1].isupper())
                        and not (at + n < len(said) and said[at + n][:1].isupper() and said[at][:1].isupper())
                        and (not report.version or _other_version(sentence, said, at, report.version))
                        and _used(sentence, said, at, n, consumed=report.consumed)):   # (not part of a longer name: "Chase Sapphire")
                    out.append(sentence)
                    break
        elif report.thing and _names_thing(sentence, report):
            out.append(sentence)
    return tuple(out)


#: Verbs of what the speaker consumes or favours: the thing is in use when the speaker says them.
_CONSUMES = frozenset("prefer prefers drink drinks eat eats take takes like likes love loves order orders put puts "
                      "add adds".split())
#: The speaker as a subject, and words of habit between it and the verb ("I usually drink").
_SPEAKERS = frozenset("i we i'm we're".split())
_HABITS = frozenset("usually mostly normally generally typically often always mainly only".split())
#: Words after a thing in use that end its phrase ("I drink coffee every morning").
_AFTER_THING = frozenset("every each daily nightly weekly most twice once now lately these".split())
#: Words before a name that say it is in use ("We use Poetry", "run them with pytest-xdist", "we
#: migrated to Jenkins", "I drink oat milk"), and after it ("Poetry for dependencies", "VS Code as my editor").
_USE_BEFORE = frozenset("use uses using run runs running rely relies with via through adopted installed chose "
                        "picked standardized standardised manage managed manages switched moved migrated "
                        "bank banks".split()) | _CONSUMES
_ON_AFTER = frozenset("i'm we're am are is still run runs running built hosted deployed deploy deploys based live "
                      "lives it's".split())
#: Verbs near "on", "in" or "by" before a name that say it is in use ("We deploy everything on
#: Heroku", "I take notes in Evernote", "Formatting is handled by Prettier").
_NEAR_USE = {"on": frozenset("run runs running host hosts hosted deploy deploys deployed built build builds live lives "
                             "everything stuff code site app apps listen listens watch watches stream streams read "
                             "reads play plays music shows podcasts".split()),
             "in": frozenset("notes note take takes keep keeps write writes track tracks store stores edit edits "
                             "draft drafts design designs plan plans".split()),
             "by": frozenset("handled managed done run powered hosted provided served backed".split()),
             "for": frozenset("pay pays paying paid subscribe subscribes subscribed".split())}
#: Words after "my" / "our" (a few words before) and before "in" that say where the speaker's things
#: are kept ("All my passwords are in LastPass", "My notes live in Notion").
_KEPT_IN = frozenset("are is live lives sit sits stay stays".split())
#: Words after a name that say it is a subscription ("Netflix standard is £10.99", "PureGym
#: membership, £38 a month"), and a price paid again and again in its sentence.
_PLAN_WORDS = frozenset("membership subscription plan standard premium basic tier account".split())
_RECURRING_PRICE = re.compile(r"[$£€¥]\s?\d|\d\s?(?:dollars|pounds|euros|usd|gbp|eur)\b", re.I)
_PER_PERIOD = re.compile(rf"\b(?:a|per|each|every){_S}(?:month|year|week)\b|\b(?:monthly|annually|yearly|weekly)\b|/(?:mo|month|yr|year)\b", re.I)
#: Verbs after a name that opens its statement that say it serves the speaker ("Sentry handles our
#: error tracking").
_DOES_FOR_US = frozenset("handles handle manages manage pins pin powers power runs run hosts host backs back serves "
                         "serve stores store tracks track covers cover does do builds build deploys deploy".split())
#: A list of names after a verb of use, up to the name ("We use Jenkins, SonarQube and").
_LISTED_USE = re.compile(rf"\b(?:use|uses|using|run|runs|with|via){_S}(?:[\w.+#/-]+(?:{_S}[\w.+#/-]+)?,{_S})+"
                         rf"(?:[\w.+#/-]+(?:{_S}[\w.+#/-]+)?,?{_S}(?:and|&){_S})?$|"
                         rf"\b(?:use|uses|using|run|runs|with|via){_S}[\w.+#/-]+(?:{_S}[\w.+#/-]+)?,?{_S}(?:and|&){_S}$",
                         re.I)


def _other_version(sentence: str, said: list[str], at: int, version: str) -> bool:
    """Whether the name at token ``at`` of ``sentence`` (its tokens ``said``) is followed by a
    version other than ``version`` ("Python 3.10" for an upgrade to 3.12)."""
    m = _VERSION_AFTER.match(sentence, _token_offset(sentence, said, at))
    return m is not None and m.group(1) != version


def _verb_before(low: list[str], at: int) -> int:
    """The index of the word before the name at token ``at`` of lower-case ``low``, past a
    determiner and a quantity ("I drink two flat whites": "drink"); -1 when none."""
    verb = at - 1
    while verb >= 0 and (low[verb] in ("the", "our", "my", "a", "an", "some") or low[verb] in NUMBER_WORDS
                         or low[verb].isdigit()) and at - verb <= 2:
        verb -= 1
    return verb


def _used(sentence: str, said: list[str], at: int, n: int, *, consumed: bool = False) -> bool:
    """Whether the name at token ``at`` (``n`` tokens) of ``sentence`` (its tokens ``said``) is
    said to be in use (:data:`_USE_BEFORE`, "on" after a verb of :data:`_ON_AFTER`, a purpose
    after it, "my <thing> is", or a list after a colon); with ``consumed``, only by a verb of
    :data:`_CONSUMES` before it (a thing given up: "I drink coffee every morning")."""
    low = [t.lower() for t in said]
    verb = _verb_before(low, at)
    before = low[max(0, verb - 2): verb + 1]
    if consumed and not (before and before[-1] in _CONSUMES):
        return False
    if before and before[-1] in _USE_BEFORE:
        if before[-1] not in _CONSUMES and not (n > 1 and said[at].islower() and re.search(
                r"\s+".join(re.escape(w) for w in said[at:at + n]), sentence)):   # ("oat milk", not "pytest-xdist")
            return True
        # what the speaker prefers, drinks, takes ..., and a thing in lower case: the speaker's own
        # use ("I drink oat milk", not "The kids drink oat milk", "Sushi uses white rice"), of the
        # thing itself ("I like oat milk", not "I like oat milk ads")
        j = verb - 1
        while j >= 0 and (low[j] in ADVERBS or low[j] in _HABITS):
            j -= 1
        nxt = low[at + n] if at + n < len(low) else ""
        return j >= 0 and low[j] in _SPEAKERS and (not nxt.isalpha() or nxt in _AFTER_THING or _ends_phrase(" " + nxt))
    if len(before) >= 2 and before[-1] == "on" and before[-2] in _ON_AFTER:
        return True
    near = set(low[max(0, at - 6): at])
    if before and before[-1] in _NEAR_USE and near & _NEAR_USE[before[-1]]:
        return True   # "We deploy everything on Heroku", "I keep my to-do list in Todoist", "handled by Prettier", "pay for Netflix"
    if before and before[-1] == "in" and before[-2:-1] and before[-2] in _KEPT_IN and (
            "my" in low[max(0, at - 6): at - 2] or "our" in low[max(0, at - 6): at - 2]):
        return True   # "All my passwords are in LastPass", "My notes live in Notion" (not "My sister is in Boston")
    if (low[at + n: at + n + 1] and low[at + n] in _PLAN_WORDS or at <= 2 and _PER_PERIOD.search(sentence)) \
            and _RECURRING_PRICE.search(sentence) and not _REPORTED.search(sentence):
        return True   # "Netflix standard is £10.99 a month", "PureGym membership, £38 a month": paid for
    after = low[at + n: at + n + 2]
    if after[:1] == ["for"] or after[:1] == ["as"] and after[1:2] in (["my"], ["our"], ["the"]):
        return True
    if after[:1] and after[0] in _DOES_FOR_US and at <= 1:
        return True   # "Sentry handles our error tracking.", "pip-tools pins our Python deps."
    where = _token_offset(sentence, said, at)
    tail = sentence[where:]
    if re.match(rf"[\w.+#/-]+(?:{_S}[\w.+#/-]+){{0,{n - 1}}}\s*(?::|[-–—]{_S}(?:our|my))", tail) and at <= 1:
        return True   # "Jira: our issue tracker."
    if _LISTED_USE.search(sentence[:where]):
        return True   # "We use Jenkins, SonarQube and Nexus"
    if before and before[-1] in ("is", "are") and _looks_named(said[at], at) and any(
            w in ("my", "our") for w in low[max(0, at - 7): at - 1]) and not _VERBISH.intersection(low[:at - 1]):
        return True   # "my bank is Chase", "My hosting for client sites is Netlify" (not "my car is black")
    # a list after a colon: "Formatting: black with line length 100, flake8 for linting"
    colon = sentence.rfind(":", 0, where)
    return colon >= 0 and not re.search(r"[.;!?]", sentence[colon:where]) and not any(
        w in _VERBISH for w in (t.lower() for t in tokens(sentence[colon:where])))


#: Words between a colon and a name that make it no list item ("Anyway: the tests are flaky under
#: pytest-xdist").
_VERBISH = frozenset("is are was were be been under flaky broken keeps keep fighting fails failed".split())


def _is_mine(words: list[str]) -> bool:
    """Whether ``words`` (lower-case, before a name) are "my / our <one or two words> is / are":
    the speaker's own ("My therapist is Dr. Okafor": the therapist is the thing, no one else's)."""
    return len(words) in (3, 4) and words[0] in ("my", "our") and words[-1] in ("is", "are") and not any(
        w.endswith(("'s", "’s")) for w in words)


def _token_offset(sentence: str, said: list[str], at: int) -> int:
    """Where token ``at`` of ``said`` (the tokens of ``sentence``) starts in ``sentence``."""
    pos = 0
    for i, t in enumerate(said):
        pos = sentence.find(t, pos)
        if i == at:
            return pos
        pos += len(t)
    return len(sentence)


def _names_thing(sentence: str, report: Swap) -> bool:
    """Whether ``sentence`` names the thing ``report`` switched and a name for it other than the
    new one: "<Name> as my <thing>", "my <thing> is <Name>", "<Name> is my <thing>", "my <thing>:
    <Name>", "I use <Name> for <thing>" (the thing's words by stem, singular or plural)."""
    stems = {_stem(w.lower()): w for w in tokens(sentence)}
    if not report.thing <= stems.keys():
        return False
    thing = r"[\w-]+(?:\s+[\w-]+){0,2}"
    name = r"(?-i:[A-Z])[\w.+#/-]*(?:\s+(?-i:[A-Z0-9])[\w.+#/-]*){0,2}"
    for m in re.finditer(rf"\b(?P<n1>{name})\s+(?:as|is)\s+(?:my|our)\s+(?P<t1>{thing})\b|"
                         rf"\b(?:my|our)\s+(?P<t2>{thing})\s*(?:is|:)\s+(?P<n2>{name})|"
                         rf"\b(?:use|using)\s+(?P<n3>{name})\s+(?:for|as)\s+(?:my\s+|our\s+)?(?P<t3>{thing})\b",
                         sentence, re.I):
        got, said = next((m.group(f"n{i}"), m.group(f"t{i}")) for i in (1, 2, 3) if m.group(f"n{i}"))
        if (report.thing <= {_stem(w.lower()) for w in tokens(said)}
                and tuple(w.lower() for w in got.split()) != report.new and got.split()[0].lower() not in _FIRST):
            words = [t.lower() for t in tokens(sentence)]
            return not _FIRST.isdisjoint(words) and not _anothers(words)
    return False


def replaced_sentences(earlier: str, later: str) -> tuple[str, ...]:
    """The sentences of ``earlier`` (str) that say a thing the replacement report ``later`` (str)
    replaced is in use (:func:`replaces`), each cut to its clause that names the thing (at ",",
    ";", "and", "but"), in text order; empty when ``later`` is no such report.
    Recall asks whether a question's words are in them: "What do we use for formatting?" asks for
    what "Formatting: black with line length 100, flake8 for linting." said, which "We replaced
    black, flake8 and isort with ruff." replaced; "What Python version are we on?" asks for none of
    "It's on Python 3.11. We use Poetry." that "We moved from Poetry to uv." replaced."""
    report = swap_report(later)
    if report is None:
        return ()
    out = []
    for sentence in _in_use(report, earlier):   # the clause that names it ("We use Poetry for dependencies
        clauses = [c for c in _USE_CLAUSE.split(sentence) if c.strip()]   # and Jenkins for CI": no CI)
        words = [[t.lower() for t in tokens(c)] for c in clauses]
        named = [c for c, w in zip(clauses, words) if any(_find(w, name) is not None for name in report.old)]
        out.extend(named or [sentence])
    return tuple(out)


#: Where a clause naming one thing in use ends ("We use Poetry for dependencies and Jenkins for CI").
_USE_CLAUSE = re.compile(r",|;|\band\b|\bbut\b|\bwhile\b", re.I)


def _to_clause_end(sentence: str, words: list[str]) -> list[str]:
    """The lower-case ``words`` of ``sentence`` up to the end of its first clause that is no
    aside: a relative clause or reason after a comma ("All my passwords are in LastPass, which
    I'm not thrilled about", "I keep my to-do list in Todoist, so if you suggest tasks ...") says
    nothing of whether the first states something now."""
    m = _ASIDE.search(sentence)
    return words if m is None else [t.lower() for t in tokens(sentence[: m.start()])]


#: A comma that opens an aside: a relative clause, a reason, a consequence or a request.
_ASIDE = re.compile(r",[^\S\n]*(?:which|who|so|because|since|as|though|although|if|but|and\s+(?:if|i|we)\b)\b", re.I)


def _now(words: list[str]) -> bool:
    """Whether a sentence of lower-case ``words`` states something now: no negation, nothing
    past, planned or wished."""
    return (NEGATIONS.isdisjoint(words) and NOT_PRESENT.isdisjoint(words) and _NOT_NOW.isdisjoint(words)
            and not any(w.endswith(("n't", "n’t")) for w in words))


#: Words of a sentence that make what it says of a name history, a plan or not so (besides
#: :data:`engramdb.facts.NOT_PRESENT` and negations): "I used to use Poetry", "We were on Jenkins",
#: "Did we ever use Jenkins before?".
_NOT_NOW = NOT_NOW | frozenset("ever before".split())


def _parts(name: tuple[str, ...]) -> list[str]:
    """The tokens of a name's words ("pytest-xdist" -> "pytest", "xdist")."""
    return [t for w in name for t in (tokens(w) or [w])]


def _find(words: list[str], name: tuple[str, ...]) -> int | None:
    """Where ``name`` (lower-case words) starts in ``words`` as whole words, or None."""
    parts = _parts(name)
    n = len(parts)
    for i in range(len(words) - n + 1):
        if words[i: i + n] == parts:
            return i
    return None


def _anothers(words: list[str]) -> bool:
    """Whether ``words`` (lower-case, before a name) speak of another person: a possessive
    ("his", "my sister's", "Anna's"), a third person ("she", "they"), or one of the speaker's
    people ("my sister uses Poetry")."""
    return any(w in _THIRD or (w.endswith(("'s", "’s")) and w[:-2] not in
               ("it", "that", "what", "here", "there", "let", "who", "he", "she"))
               or (w in ("my", "our") and after in PERSON_NOUNS) for w, after in zip(words, [*words[1:], ""]))


_THIRD = frozenset("his her their he she they".split())
