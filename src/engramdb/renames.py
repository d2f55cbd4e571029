"""Renames: a thing of the speaker's (a pet, a project, a repository, a team) gets a new name ("We
renamed the cat: she's called Luna now", "We renamed the project from Falcon to Atlas", "Our
repo's new name is Atlas").

Rule-based, no model, like :mod:`engramdb.swaps` (a thing in use replaced by another) and
:mod:`engramdb.handovers` (a duty passed on): the write path asks :func:`renames` of a report
and each earlier statement that names the thing, and links the two ``contradicts`` (kind
``"change"``); recall then puts the later first and warns. Nothing is superseded: the rules
may misread.

A report (:func:`rename_report`) is one of:

- the speaker's deed ("I" or "we" before the verb, or no subject): "renamed <thing> (from <Old>)
  to <New>", "renamed <thing> <New>" ("We renamed the cat Luna"), "renamed <thing>: she's /
  it's / they're (now) called <New>", "changed <thing>'s name to <New>", "we're calling <thing>
  <New> now", "renamed <Old> to <New>"; here ``<thing>`` is "my", "our" or "the" thing;
- in any voice, of "my" or "our" thing only ("The app is now called Threads" may be anyone's):
  "<thing> was / got / has been renamed (to) <New>", "<thing>'s new name is <New>", "<thing> is
  (now) called / named <New> now", and "<Old> was renamed to <New>", "<Old> is now called <New>";

where ``<thing>`` is up to three words, its last word the thing ("the cat", "our main repo"),
and a name is a capitalised run of up to four words, one word in quotes or backticks
("renamed the repo to `atlas-api`"), or a lower-case identifier joined by "-" or "_"
("renamed shipment-api to cargo-core"). It is none when a word of
:data:`engramdb.facts.NOT_DONE` stands before the verb ("we might rename the cat Luna"), in a
question, as history ("when I was a kid", a year), or when someone else renames theirs ("My
sister renamed her cat Luna").

An earlier statement names a thing of the speaker's or the team's (:func:`names_of`): "my / our
<thing>'s name is <Name>", "my / our <thing> is called / named <Name>", "I have / we got / we
adopted a <thing> named <Name>", "my cat Whiskers is ...", "Whiskers is my cat.", or as an
earlier report's new name; not as history or a wish, nor another person's thing ("My neighbor
has a cat named Whiskers"). :func:`renames` is true when the statement names the same thing
(its last word; its other words too where both give some: "side project" is no "main project")
with another name, and that name is the report's old one when the report gives one ("from
Falcon"); a report naming no thing ("We renamed Falcon to Atlas") changes a statement naming a
thing by its old name.

Examples
--------
>>> rename_report("Also, we renamed the cat: she's called Luna now.")
Rename(thing='cat', new=('luna',), old=None, modifiers=())
>>> renames("We renamed the project from Falcon to Atlas.", "Our project is called Falcon.")
True
>>> renames("We renamed the cat Luna.", "My dog's name is Rex.")
False
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .facts import SPEAKER_LABEL, not_done, tokens
from .standing import RELAYED

__all__ = ["Rename", "names_of", "rename_report", "renames"]


class Rename(NamedTuple):
    """A parsed rename report: ``thing``, the renamed thing's last word (lower case, singular;
    "" for a report naming none: "We renamed Falcon to Atlas"), ``new``, its new name (lower-case
    words), ``old``, the old name the report gives (else None), ``modifiers``, the thing's other
    words ("side" of "side project")."""

    thing: str
    new: tuple[str, ...]
    old: tuple[str, ...] | None = None
    modifiers: tuple[str, ...] = ()


_S = r"[^\S\n]+"
#: A name: a capitalised run of up to four words ("Luna", "Project Atlas"), one word in quotes
#: or backticks ("`atlas-api`"), or a lower-case identifier joined by "-" or "_" ("shipment-api",
#: "cargo_core": helper-232, services are named so).
_NAME = (r"(?:(?-i:[^\W\d_a-z])[\w'’.&-]*(?:[^\S\n]+(?-i:[^\W\d_a-z])[\w'’.&-]*){0,3}|[`'\"“‘][\w.\-/]+[`'\"”’]|"
         r"(?-i:[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?![\w-]))")
#: A thing: up to three words, its last word the thing ("cat", "main repo", "side project").
_THING_WORDS = rf"(?P<thing>[\w-]+(?:{_S}[\w-]+){{0,2}}?)"
#: The speaker's or the team's thing ("my cat", "our repo"), or "the" thing when the speaker
#: renames it ("we renamed the cat").
_OWNED = rf"(?P<own>my|our){_S}{_THING_WORDS}"
_OWNED_OR_THE = rf"(?P<own>my|our|the){_S}{_THING_WORDS}"


def _compiled(*patterns: str) -> list[re.Pattern]:
    return [re.compile(p.replace("THE_THING", _OWNED_OR_THE).replace("THING", _OWNED).replace("NAME", _NAME), re.I)
            for p in patterns]


#: Reports whose verb is the speaker's ("we renamed the cat ..."; :func:`_speakers`).
_RENAMED_BY_SPEAKER = _compiled(
    rf"\brenamed{_S}THE_THING{_S}(?:from{_S})?(?P<old>NAME){_S}to{_S}(?P<new>NAME)",   # ("the cat Whiskers to Mochi")
    rf"\brenamed{_S}THE_THING{_S}to{_S}(?P<new>NAME)",
    rf"\brenamed{_S}THE_THING\s*[:;,—–-]\s*(?:she|he|it|they)(?:['’]s|{_S}is|['’]re|{_S}are){_S}(?:now{_S})?"
    rf"(?:called|named){_S}(?P<new>NAME)",
    rf"\brenamed{_S}THE_THING{_S}(?P<new>NAME)",
    rf"\bchanged{_S}THE_THING['’]s{_S}name{_S}to{_S}(?P<new>NAME)",
    rf"\bcalling{_S}THE_THING{_S}(?P<new>NAME)(?=\W*$|{_S}now\b|\s*[,.;!])",
    rf"\brenamed{_S}(?P<old>NAME){_S}to{_S}(?P<new>NAME)",
)
#: Reports of the speaker's or the team's thing in any voice ("Our repo's new name is Atlas").
_RENAMED = _compiled(
    rf"\bTHING{_S}(?:was|got|has{_S}been|have{_S}been){_S}renamed(?:{_S}from{_S}(?P<old>NAME))?(?:{_S}to)?{_S}(?P<new>NAME)",
    rf"\bTHING['’]s{_S}new{_S}name{_S}is{_S}(?P<new>NAME)",
    rf"\bTHING{_S}is{_S}(?:now{_S})?(?:called|named){_S}(?P<new>NAME){_S}now\b",
    rf"\bTHING{_S}is{_S}now{_S}(?:called|named){_S}(?P<new>NAME)",
    rf"(?:^|[.!?]\s+)(?P<old>NAME){_S}(?:was|got|has{_S}been){_S}renamed(?:{_S}to)?{_S}(?P<new>NAME)",
    rf"(?:^|[.!?]\s+)(?P<old>NAME){_S}is{_S}now{_S}(?:called|named){_S}(?P<new>NAME)",
)
#: Statements of the name of a thing of the speaker's or the team's.
_STATEMENTS = _compiled(
    rf"\bTHING['’]s{_S}name{_S}is{_S}(?P<new>NAME)",
    rf"\bTHING{_S}is{_S}(?:called|named){_S}(?P<new>NAME)",
    rf"\b(?P<who>i|we)(?:['’]ve)?(?:{_S}just)?{_S}(?:have|got|adopted|own|bought|started|built|launched)"
    rf"{_S}(?:a|an){_S}{_THING_WORDS},?{_S}(?:called|named){_S}(?P<new>NAME)",
    rf"\b(?P<who>i|we)(?:['’]ve)?(?:{_S}just)?{_S}(?:have|got|adopted|own|bought){_S}(?:a|an){_S}{_THING_WORDS},{_S}(?P<new>NAME),",
    rf"\b(?P<own>my|our){_S}(?P<thing>[\w-]+),?{_S}(?P<new>NAME)(?={_S}(?:is|was|has|had|loves|likes|hates|and)\b|\s*[,.!;])",
    rf"(?:^|[.!?]\s+)(?P<new>NAME){_S}is{_S}(?P<own>my|our){_S}{_THING_WORDS}[.!,]",
)
#: Words before a thing that make it a liking, not a thing one has ("my favorite band").
_LIKED = frozenset("favorite favourite fave dream ideal".split())
#: Whose the thing of a report is: the speaker ("I", "we") renames it.
_SPEAKER = frozenset("i we i've we've we're i'm".split())
#: Words that end a thing before its name ("the cat Luna" is no thing "cat luna").
_NOT_THING = frozenset("to from now name called named is was".split())
#: A thing's name told as history or a wish: no name it has ("When I was a kid we had a cat named
#: Whiskers", "I'd love to get a dog named Rex someday").
_NOT_NOW = re.compile(r"\b(?:when\s+(?:i|we)\s+(?:was|were)|as\s+a\s+(?:kid|child)|growing\s+up|used\s+to|someday|"
                      r"one\s+day|(?:19|20)\d\d)\b", re.I)
#: A rename made in part, for a while or undone ("... locally", "... for the demo", "... in the docs
#: only", "... by mistake and reverted it": helper-233).
_PARTIAL = re.compile(r"\b(?:locally|by\s+mistake|revert\w*|rolled\s+(?:it\s+)?back|undid|undone|only|temporar\w*|"
                      r"staging|for\s+(?:the|a|our)\s+(?:demo|test|tests|presentation|talk|hackathon|slides)|"
                      r"in\s+the\s+(?:docs|diagram|diagrams|slides|chart|helm\s+chart))\b", re.I)
#: Words between the speaker and "renamed" ("we finally renamed", "I've just renamed"), or opening
#: a sentence that has no subject ("Also, renamed the repo to atlas").
_FILLERS = frozenset("also just finally officially recently now have has 've already so and then oh btw ok okay "
                     "well update fyi user".split())


def _speakers(lead: list[str]) -> bool:
    """Whether the words of a sentence before its "renamed" (lower case) make it the speaker's:
    none but openers, or the speaker ("I", "we") with only such words after."""
    last = max((i for i, w in enumerate(lead) if w in _SPEAKER), default=None)
    rest = lead if last is None else lead[last + 1:]
    return all(w in _FILLERS for w in rest)


def _modifiers(words: str | None) -> tuple[str, ...]:
    """A thing's words before its last, lower case ("our main repo" -> ("main",))."""
    parts = (words or "").lower().split()
    return tuple(parts[:-1])


def _name(raw: str) -> tuple[str, ...]:
    """A name's words, lower case, without quotes or a possessive "'s"; a word ending in a
    period or comma ends it ("Whiskers. She's 3" is "whiskers")."""
    raw = raw.strip("`'\"“”‘’")
    out = []
    for w in raw.split():
        out.append(re.sub(r"['’]s$", "", w.lower().rstrip(".,;:!")))
        if w[-1] in ".,;:!" and not re.search(r"\w\.\w", w):   # ("Report.docx" is one word)
            break
    return tuple(out)


def _thing(words: str) -> str | None:
    """The last word of a thing, lower case and singular ("cats" -> "cat"), or None when a word
    of it ends a thing."""
    parts = words.lower().split()
    if not parts or _NOT_THING.intersection(parts):
        return None
    last = parts[-1]
    return last[:-1] if last.endswith("s") and not last.endswith("ss") and len(last) > 3 else last


@lru_cache(maxsize=1 << 12)
def rename_report(text: str) -> Rename | None:
    """``text`` read as a report that a thing of the speaker's got a new name (module
    docstring), or None.

    Parameters
    ----------
    text : str
        One memory's text; a leading speaker label ("user:") is read past, an assistant's is
        none.

    Returns
    -------
    Rename or None
    """
    low = text.lower()
    if "name" not in low and "called" not in low and "calling" not in low:
        return None
    if re.match(r"\s*assistant\s*:", text, re.I) or text.rstrip().endswith("?"):
        return None
    if RELAYED.search(text):
        return None   # (a game, a story, someone else's words, a translation: "Translate to Spanish: ...")
    text = SPEAKER_LABEL.sub("", text, count=1)   # (a speaker's label: "user: Falcon is now called Atlas.")
    for pattern in _RENAMED_BY_SPEAKER + _RENAMED:
        for m in pattern.finditer(text):
            lead = [t.lower() for t in tokens(re.split(r"[.!?\n]", text[: m.start()])[-1])]
            if not_done(lead) or _NOT_NOW.search(text) or _PARTIAL.search(text):
                continue   # "we might rename the cat Luna", "I didn't rename the repo", history, a game
            if pattern in _RENAMED_BY_SPEAKER and not _speakers(lead):
                continue   # "My sister renamed the cat Luna": her doing
            groups = m.groupdict()
            thing = _thing(groups["thing"]) if groups.get("thing") else None
            if groups.get("thing") and (thing is None or _LIKED.intersection(_modifiers(groups["thing"]))):
                continue   # ("My favorite band is now called ...": no thing of the speaker's)
            old = groups.get("old")
            if thing is None and not old:
                continue
            return Rename(thing or "", _name(m.group("new")), _name(old) if old else None,
                          _modifiers(groups.get("thing")))
    return None


@lru_cache(maxsize=1 << 12)
def names_of(text: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """The things of the speaker's or the team's that ``text`` names, with their names: ``((thing,
    name words, the thing's other words), ...)`` for "my cat's name is Whiskers", "our project is
    called Falcon", "I have a cat named Whiskers", "my cat Whiskers is ...", "Whiskers is my
    cat.", and a rename report's new name; none told as history or a wish ("When I was a kid we
    had a cat named ...", "I'd love to get a dog named Rex someday"), nor another person's ("My
    neighbor has a cat named Whiskers")."""
    out = []
    got = rename_report(text)
    if got is not None and got.thing:
        out.append((got.thing, got.new, got.modifiers))
    text = SPEAKER_LABEL.sub("", text, count=1)
    low = text.lower()
    if ("name" in low or "called" in low or " my " in f" {low}" or " our " in f" {low}") and not _NOT_NOW.search(text):
        for pattern in _STATEMENTS:
            for m in pattern.finditer(text):
                lead = [t.lower() for t in tokens(re.split(r"[.!?\n]", text[: m.start()])[-1])]
                if not_done(lead):   # (each pattern names the owner: "my", "our", "I have", "we got")
                    continue   # ("I'd love to get a dog named Rex"; "My neighbor has a cat named ..." matches none)
                thing, modifiers = _thing(m.group("thing")), _modifiers(m.group("thing"))
                if thing is not None and not _LIKED.intersection(modifiers):   # ("my favorite band": no thing
                    out.append((thing, _name(m.group("new")), modifiers))   # of the speaker's)
    return tuple(dict.fromkeys(out))


def renames(new: str, old: str) -> bool:
    """Whether ``new`` reports a new name (:func:`rename_report`) of a thing that ``old`` names
    otherwise (:func:`names_of`): the same thing (its last word; and its other words, where both
    give some: "side project" is no "main project"), another name, and the old name the report
    gives, if it gives one ("from Falcon"); or, for a report naming no thing ("We renamed Falcon
    to Atlas"), a thing ``old`` names by that old name."""
    report = rename_report(new)
    if report is None:
        return False
    for thing, name, modifiers in names_of(old):
        if report.thing and (thing != report.thing or (modifiers and report.modifiers and modifiers != report.modifiers)):
            continue
        if name == report.new:
            continue
        if report.old is not None and name[-len(report.old):] != report.old and report.old[-len(name):] != name:
            continue   # (the old name, or one ending the other: "Project Falcon" / "Falcon")
        return True
    return False
