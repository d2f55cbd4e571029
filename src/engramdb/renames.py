"""Renames: a thing of the speaker's (a pet, a project, a repository, a team) gets a new name ("We
renamed the cat: she's called Luna now", "We renamed the project from Falcon to Atlas", "Our
repo's new name is Atlas").

Rule-based, no model, like :mod:`engramdb.swaps` (a thing in use replaced by another) and
:mod:`engramdb.handovers` (a duty passed on): the write path asks :func:`renames` of a report
and each earlier statement that names the thing, and links the two ``contradicts`` (kind
``"change"``); recall then puts the later first and warns. Nothing is superseded: the rules
may misread.

A report (:func:`rename_report`) is one of:

- "renamed <thing> (from <Old>) to <New>", "renamed <thing> <New>" ("We renamed the cat
  Luna"), "renamed <thing>: she's / it's / they're (now) called <New>";
- "<thing> was / got / has been renamed (to) <New>";
- "<thing>'s new name is <New>", "<thing> is (now) called / named <New> now";

where ``<thing>`` is the speaker's or the team's ("my", "our", "the", "her" / "his" / "its" of
the speaker's "we" only: up to three words, its last word the thing: "the cat", "our main
repo") and a name is a capitalised run of up to four words, or one word in quotes or
backticks ("renamed the repo to `atlas`"). It is none when a word of
:data:`engramdb.facts.NOT_DONE` stands before the verb ("we might rename the cat Luna"), in a
question, or when someone else renames theirs ("My sister renamed her cat Luna").

An earlier statement names the thing (:func:`names_of`) as "<thing>'s name is <Name>", "<thing>
is called / named <Name>", "a / my / our <thing> called / named <Name>", or as an earlier
report's new name. :func:`renames` is true when the statement names the same thing (its last
word, singular) with another name, or names the report's old name ("from Falcon").

Examples
--------
>>> rename_report("Also, we renamed the cat: she's called Luna now.")
Rename(thing='cat', new=('luna',), old=None)
>>> renames("We renamed the project from Falcon to Atlas.", "Our project is called Falcon.")
True
>>> renames("We renamed the cat Luna.", "My dog's name is Rex.")
False
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .facts import not_done, tokens

__all__ = ["Rename", "names_of", "rename_report", "renames"]


class Rename(NamedTuple):
    """A parsed rename report: ``thing``, the renamed thing's last word (lower case, singular),
    ``new``, its new name (lower-case words), ``old``, the old name the report gives (else
    None)."""

    thing: str
    new: tuple[str, ...]
    old: tuple[str, ...] | None = None


_S = r"[^\S\n]+"
#: A name: a capitalised run of up to four words ("Luna", "Project Atlas"), or one word in quotes
#: or backticks ("`atlas-api`").
_NAME = r"(?:(?-i:[^\W\d_a-z])[\w'’.&-]*(?:[^\S\n]+(?-i:[^\W\d_a-z])[\w'’.&-]*){0,3}|[`'\"“‘][\w.\-/]+[`'\"”’])"
#: The speaker's or the team's thing: "my cat", "our main repo", "the project" (up to three words).
_THING = rf"(?P<own>my|our|the|his|her|its|their){_S}(?P<thing>[\w-]+(?:{_S}[\w-]+){{0,2}}?)"
_REPORTS = [re.compile(p.replace("THING", _THING).replace("NAME", _NAME), re.I) for p in (
    rf"\brenamed{_S}THING(?:{_S}from{_S}(?P<old>NAME))?{_S}to{_S}(?P<new>NAME)",
    rf"\brenamed{_S}THING\s*[:;,—–-]\s*(?:she|he|it|they)(?:['’]s|{_S}is|['’]re|{_S}are){_S}(?:now{_S})?"
    rf"(?:called|named){_S}(?P<new>NAME)",
    rf"\brenamed{_S}THING{_S}(?P<new>NAME)",
    rf"\bTHING{_S}(?:was|got|has{_S}been|have{_S}been){_S}renamed(?:{_S}from{_S}(?P<old>NAME))?(?:{_S}to)?{_S}(?P<new>NAME)",
    rf"\bTHING['’]s{_S}new{_S}name{_S}is{_S}(?P<new>NAME)",
    rf"\bTHING{_S}is{_S}(?:now{_S})?(?:called|named){_S}(?P<new>NAME){_S}now\b",
    rf"\bTHING{_S}is{_S}now{_S}(?:called|named){_S}(?P<new>NAME)",
)]
_STATEMENTS = [re.compile(p.replace("THING", _THING).replace("NAME", _NAME), re.I) for p in (
    rf"\bTHING['’]s{_S}name{_S}is{_S}(?P<new>NAME)",
    rf"\bTHING{_S}is{_S}(?:called|named){_S}(?P<new>NAME)",
    rf"\b(?:a|an|my|our|the){_S}(?P<thing>[\w-]+(?:{_S}[\w-]+){{0,1}}?){_S}(?:called|named){_S}(?P<new>NAME)",
)]
#: Whose the thing of a report is: the speaker ("I", "we") renames it, and it is "my" / "our" /
#: "the" thing.
_SPEAKER = frozenset("i we i've we've we're i'm".split())
#: Words that end a thing before its name ("the cat Luna" is no thing "cat luna").
_NOT_THING = frozenset("to from now name called named is was".split())


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
    if "name" not in low and "called" not in low:
        return None
    if re.match(r"\s*assistant\s*:", text, re.I) or text.rstrip().endswith("?"):
        return None
    for pattern in _REPORTS:
        for m in pattern.finditer(text):
            if m.group("own").lower() not in ("my", "our", "the"):
                continue   # "My sister renamed her cat Luna": hers
            lead = [t.lower() for t in tokens(re.split(r"[.!?\n]", text[: m.start()])[-1])]
            if not_done(lead):
                continue   # "we might rename the cat Luna", "I didn't rename the repo"
            if m.group(0).lower().startswith("renamed") and not _speakers(lead):
                continue   # "My sister renamed the cat Luna": her doing
            thing = _thing(m.group("thing"))
            if thing is None:
                continue
            old = m.groupdict().get("old")
            return Rename(thing, _name(m.group("new")), _name(old) if old else None)
    return None


@lru_cache(maxsize=1 << 12)
def names_of(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The things ``text`` names, with their names: ``((thing, name words), ...)`` for "my cat's
    name is Whiskers", "our project is called Falcon", "a cat named Whiskers", and a rename
    report's new name."""
    out = []
    got = rename_report(text)
    if got is not None:
        out.append((got.thing, got.new))
    if "name" in text.lower() or "called" in text.lower():
        for pattern in _STATEMENTS:
            for m in pattern.finditer(text):
                thing = _thing(m.group("thing"))
                if thing is not None:
                    out.append((thing, _name(m.group("new"))))
    return tuple(dict.fromkeys(out))


def renames(new: str, old: str) -> bool:
    """Whether ``new`` reports a new name (:func:`rename_report`) of a thing that ``old`` names
    otherwise (:func:`names_of`: the same thing, another name), or whose old name, given by the
    report ("from Falcon"), ``old`` names beside the thing."""
    report = rename_report(new)
    if report is None:
        return False
    for thing, name in names_of(old):
        if thing == report.thing and name != report.new:
            return True
    if report.old is not None and report.old != report.new:
        low = " ".join(t.lower() for t in tokens(old))
        words = set(low.split())
        return (re.search(r"(?<!\w)" + r"\W+".join(map(re.escape, report.old)) + r"(?!\w)", low) is not None
                and (report.thing in words or report.thing + "s" in words))
    return False
