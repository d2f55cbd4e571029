"""The speaker's standing relations, read from one statement: where they live (``"home"``: "I
live in Boston", "I'm based in Berlin", "I moved to Seattle") and whom they work for
(``"employer"``: "I work at Google", "I started a new job at Stripe").

Rule-based, no model, like :mod:`engramdb.changes`, which asks this module for a change report
of either relation: "I moved to Seattle last month." changes "I live in Boston." in other
words than the statement's own (which :func:`engramdb.facts.fact_change` reads only when the
two are worded alike, "I live in Boston." / "I live in Seattle."), and the write path links the
two ``contradicts`` (never supersedes: recall puts the later first and warns).

A standing relation is read from a clause whose subject is the speaker ("I", "we", "my wife
and I", "after six years in Ohio I finally", with "just", "recently", "have" and the like
between; or no subject where the sentence's is the speaker or it opens with the verb: "I left
Initech and now work at Hooli", "Just moved to Lisbon") and whose value is a name (its words
capitalised: "Seattle", "the Bay Area", "Portland, Oregon"; in a text all in lower case, one
word that is no common noun: "just relocated to tacoma"). A statement: live / living / reside /
based / settled in, based out of, a resident of, "my home (house, apartment) is in"; work /
working at or for, employed at or by, "my employer (company) is", "I'm a <role> at" (not a
regular, member, customer, student, ...). Or a report that it changed: moved or relocated to
(optionally "back", "from <old name>"); started a new job at, took a job with, accepted an offer
from, was hired at, started at, joined <name> as, "(my) new job at", "my first day at". Not
read: a clause negated, planned, wished or conditional (a word of
:data:`engramdb.facts.NOT_DONE` before the verb: "I might move to Seattle", "I don't live in
Boston anymore", "when I moved to Boston"), an infinitive ("I'd love to live in Paris"), a
question, someone's words in quotation marks, a stay ("for the summer", "temporarily"), a move
told as history (in a named year, "when I was a kid", "growing up"), a value added to another
("I also work at a bakery on weekends"), another person's ("My sister moved to Seattle", "My
husband's new job at Stripe").

Two readings of one relation name the same value when the words of one are all words of the
other ("Boston" and "Boston's Back Bay", "Google" and "Google Zurich"): a refinement, no change.

Examples
--------
>>> standing("I moved to Seattle last month.")
Standing(relation='home', value=('seattle',), was=None)
>>> standing("user: I started a new job at Stripe.")
Standing(relation='employer', value=('stripe',), was=None)
>>> standing("My sister moved to Seattle.") is None
True
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from .facts import _adds_value, ends_in_question, not_done, tokens
from .index.tokens import tokenize

__all__ = ["ASKS_STANDING", "Standing", "asked_standing", "changes_standing", "refines_standing", "standing"]


class Standing(NamedTuple):
    """A standing relation of the speaker: ``relation`` ("home" or "employer"), ``value`` (the
    name's words, lower-cased, without "the" and a possessive "'s") and ``was`` (the old value a
    "moved from <name> to <name>" report names, else None)."""

    relation: str
    value: tuple[str, ...]
    was: tuple[str, ...] | None = None


#: A name: capitalised words (up to four, a comma between two allowed: "Portland, Oregon"),
#: "the" before them dropped; in a text written all in lower case ("just moved to tacoma"), one
#: word (not a word of :data:`_NOT_NAMES`).
_NAME = r"(?:the[^\S\n]+)?(?-i:([A-Z][\w'’&-]*(?:,?[^\S\n]+[A-Z][\w'’&-]*){0,3}))"
_LOWER_NAME = r"(?:the[^\S\n]+)?([a-z][\w'’&-]*)"
_S = r"[^\S\n]+"
#: Who the speaker is at a place of work ("I'm a nurse at Mass General"): not these, which say
#: a place one goes to.
_NOT_ROLES = "regular member customer client guest patient visitor student fan subscriber user volunteer"
#: Each relation's patterns, each with the words (lower case) of which the text must hold one
#: before it is read (most texts hold none: the write path asks every new memory).
_VERBS = {
    "home": (
        (("live in", "living in", "reside in", "residing in", "based in", "based out", "settled in"),
         rf"\b(?:(?:live|living|reside|residing)(?:{_S}in)|based{_S}out{_S}of|based{_S}in|settled{_S}in){_S}NAME"),
        (("moved ", "relocated "),
         rf"\b(?:moved|relocated)(?:{_S}(?:back|over|out|away|down|up))?(?:{_S}from{_S}NAME)?{_S}to{_S}NAME"),
        (("resident",), rf"\b(?:i'm|i’m|i{_S}am|we're|we{_S}are){_S}(?:a{_S})?residents?{_S}of{_S}NAME"),
        (("home is", "house is", "apartment is", "flat is", "place is"),
         rf"\bmy{_S}(?:home|house|apartment|flat|place){_S}is{_S}in{_S}NAME"),
    ),
    "employer": (
        (("work at", "work for", "working at", "working for", "employed at", "employed by"), rf"\b(?:work|working|employed){_S}(?:at|for|by){_S}NAME"),
        (("job at", "job with", "job for", "position at", "position with", "role at", "role with", "offer from",
          "hired", "working at", "working for", "working with"),
         rf"\b(?:(?:started|start|began){_S}(?:a{_S}|my{_S})?(?:new{_S})?(?:job|position|role|working)"
         rf"|(?:got|took|accepted|landed){_S}(?:a|an|the){_S}(?:new{_S})?(?:job|position|role|offer)"
         rf"|(?:(?:was|got|been){_S})?hired){_S}(?:at|with|for|by|from){_S}NAME"),
        (("started at",), rf"\bstarted{_S}at{_S}NAME"),
        (("joined",), rf"\bjoined{_S}NAME{_S}as\b"),
        (("new job", "first day"), rf"\b(?:new{_S}job|first{_S}day){_S}(?:at|with){_S}NAME"),
        (("employer is", "company is"), rf"\bmy{_S}(?:employer|company){_S}is{_S}NAME"),
        (("i'm a", "i’m a", "i am a"),
         rf"\b(?:i'm|i’m|i{_S}am){_S}(?:a|an)(?!{_S}(?:{_NOT_ROLES.replace(' ', '|')})\b)(?:{_S}[\w-]+){{1,3}}?"
         rf"{_S}(?:at|for|with){_S}NAME"),
    ),
}
#: Patterns whose words say whose it is ("my home is in", "I'm a nurse at", "my first day at"):
#: no subject is asked of their clause.
_OWNED = re.compile(r"^(?:my|i'm|i’m|i\s+am|we're|we\s+are|new|first)\b", re.I)
#: Of those, the ones that need "my" before them, or nothing ("New job at Dropbox!", "Today was my
#: first day at Netflix", not "My wife's new job at Stripe").
_MINE_BEFORE = re.compile(r"^(?:new|first)\b", re.I)
_PATTERNS = [(relation, cues, re.compile(p.replace("NAME", _NAME), re.I),
              re.compile(p.replace("NAME", _LOWER_NAME), re.I))
             for relation, ps in _VERBS.items() for cues, p in ps]
#: The first test of every text, on the set of its words (one regex of the patterns' words took
#: 11 us a text, a substring test of each 6 us): a word of some pattern, or for "I'm a <role>
#: at", a word of each of the two sets.
_GATE = frozenset("live living reside residing resident residents based settled moved relocated work working "
                  "employed job position role offer hired started joined day home house apartment flat place "
                  "employer company".split())
_ROLE_GATE = (frozenset("i'm i’m am".split()), frozenset("at for with".split()))
#: Words that may stand between the speaker and the verb ("I have just moved to", "we're now based in").
_FILLERS = frozenset("am are have has 've 'm 're just recently finally now currently still actually "
                     "officially already eventually since then been got".split())
_SPEAKER = frozenset("i we i'm we're i've we've".split())
#: Words before the verb that make the clause no standing fact besides facts.NOT_DONE: the
#: contractions of would and will.
_CONDITIONAL = frozenset("i'd we'd i'll we'll".split())
_CLAUSE = re.compile(r"(?:[:;,](?!\d)|\s[-–—]\s|\b(?:and|so|then|but|because)\b)", re.I)
#: A move told as the speaker's history, not the standing value: in a named year, in childhood,
#: "back then" ("I moved to Boston in 2019", "I moved to Seattle when I was a kid").
_HISTORY = re.compile(r"\b(?:(?:19|20)\d\d|when{_S}(?:i|we){_S}was|when{_S}(?:i|we){_S}were|as{_S}a{_S}"
                      r"(?:kid|child|teen|teenager|baby)|growing{_S}up|back{_S}then)\b".replace("{_S}", _S), re.I)
#: A stay for a while, not a home ("moved to Seattle for the summer", "temporarily").
_TEMPORARY = re.compile(r"\b(?:temporar(?:y|ily)|for{_S}(?:the|a|this|one|two|a{_S}few){_S}(?:summer|winter|spring|fall|"
                        r"semester|term|month|months|week|weeks|year))\b".replace("{_S}", _S), re.I)
#: Words that are no name, for a text in lower case ("moved to town", "live in a van").
_NOT_NAMES = frozenset("town city home house place apartment flat area country state here there it them us "
                       "a an my our your his her their this that new another one night morning evening noon "
                       "midnight weekend weekends work school college university moment times least all once first "
                       "last length".split())
#: Words that open a sentence before its subject ("so", "btw"), and verbs that open one without
#: a subject, the speaker's ("Just moved to Tacoma", "Started a new job at Stripe").
_OPENERS = frozenset("so well oh ok okay yeah yes btw update fyi lol anyway honestly".split())
_FIRST_VERBS = frozenset("moved relocated started living working got took accepted landed settled joined".split())
_QUOTE = re.compile(r"[\"“”«»]")


def _name(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    words = tuple(re.sub(r"['’]s$", "", w.lower().rstrip(",")) for w in text.split())
    return words or None


def _speakers_clause(clause: str, sentence_subject: bool) -> bool:
    """Whether a clause that ends at a verb (its words before the verb, ``clause``) has the
    speaker as its subject ("I", "we", "after ten years in Philly I finally", "my wife and I"),
    or none when the sentence's own subject is the speaker (``sentence_subject``: "I left Target
    and now work at Walmart", or a sentence that starts at the verb, "Just moved to Tacoma"),
    and nothing that makes the verb no fact."""
    words = [t.lower().replace("’", "'") for t in tokens(clause)]
    if not_done(words) or _CONDITIONAL.intersection(words) or words[-1:] == ["to"] or _adds_value(words):
        return False
    last = max((i for i, w in enumerate(words) if w in _SPEAKER), default=None)
    if last is None:
        return sentence_subject and all(w in _FILLERS for w in words)
    return all(w in _FILLERS for w in words[last + 1:])


def _inside_quote(sentence: str, at: int) -> bool:
    """Whether place ``at`` of ``sentence`` is inside a quotation (an odd number of quotation
    marks before it): someone else's words."""
    return len(_QUOTE.findall(sentence, 0, at)) % 2 == 1


@lru_cache(maxsize=1 << 13)
def standing(text: str) -> Standing | None:
    """The last standing relation of the speaker that ``text`` states or reports (module
    docstring), or None.

    Parameters
    ----------
    text : str
        One memory's text; a leading speaker label ("user:", "Ana:") is read past.

    Returns
    -------
    Standing or None
    """
    low = text.lower()
    words = set(low.split())
    if _GATE.isdisjoint(words) and (_ROLE_GATE[0].isdisjoint(words) or _ROLE_GATE[1].isdisjoint(words)):
        return None
    if re.match(r"\s*assistant\s*:", low):
        return None
    patterns = [(relation, cues, p, lp) for relation, cues, p, lp in _PATTERNS if any(c in low for c in cues)]
    lower = text == low
    found: Standing | None = None
    for sentence in re.findall(r"[^.!?\n]+(?:[.!?]+|$)", text):
        said = sentence.lower()
        runs = [(relation, lp if lower else p) for relation, cues, p, lp in patterns if any(c in said for c in cues)]
        if not runs or sentence.rstrip().endswith("?") or _TEMPORARY.search(sentence):
            continue
        body = re.sub(r"^\s*(?:(?:user|[A-Z][\w'.\-]*(?: [A-Z][\w'.\-]*){0,2}):\s+)?", "", sentence)
        sentence_subject = None   # (read at the first match)
        for relation, pattern in runs:
            for m in pattern.finditer(body):
                if _inside_quote(body, m.start()):
                    continue
                if sentence_subject is None:
                    words = [t.lower() for t in tokens(body)]
                    if _adds_value(words):
                        break
                    first = next((w for w in words if w not in _FILLERS and w not in _OPENERS), None)
                    sentence_subject = first in _SPEAKER or first in _FIRST_VERBS
                clause = _CLAUSE.split(body[: m.start()])[-1]
                if not _OWNED.match(m.group(0)):
                    if not _speakers_clause(clause, sentence_subject):
                        continue
                else:
                    before = [t.lower() for t in tokens(clause)]
                    if not_done(before) or (_MINE_BEFORE.match(m.group(0)) and before[-1:] not in ([], ["my"])):
                        continue
                names = [g for g in m.groups() if g is not None]
                was, value = (_name(names[0]), _name(names[1])) if len(names) == 2 else (None, _name(names[-1]))
                if value is None or (lower and (len(value) != 1 or value[0] in _NOT_NAMES)):
                    continue
                if relation == "home" and m.group(0).lower().startswith(("moved", "relocated")) \
                        and _HISTORY.search(body):
                    continue
                found = Standing(relation, value, was)
    return found


#: Index terms (:func:`engramdb.index.tokens.tokenize`) by which a question asks for the
#: speaker's home or employer ("where do I live?", "which company do I work for?").
ASKS_STANDING = {"home": frozenset(tokenize("live living lives home reside city town based moved located house "
                                            "apartment address")),
                 "employer": frozenset(tokenize("work working works job employer employed company hired"))}


def asked_standing(terms) -> frozenset[str]:
    """The relations ("home", "employer") a question asks for, by its index terms ``terms``
    (:data:`ASKS_STANDING`)."""
    return frozenset(rel for rel, words in ASKS_STANDING.items() if not words.isdisjoint(terms))


def refines_standing(new: str, old: str) -> bool:
    """Whether ``new`` and ``old`` give the speaker's home or employer as one name, one of them
    more precisely ("I live in Boston's Back Bay neighborhood." / "I live in Boston."): all the
    words of one name are words of the other. Such a pair is no conflict, whatever other rules
    read in the two texts.

    >>> refines_standing("I live in Portland, Oregon.", "I live in Portland.")
    True
    """
    a, b = standing(new), standing(old)
    return (a is not None and b is not None and a.relation == b.relation
            and (set(a.value) <= set(b.value) or set(b.value) <= set(a.value)))


def changes_standing(new: str, old: str) -> bool:
    """Whether ``new`` gives the speaker's home or employer as another name than ``old`` gives it
    (both read by :func:`standing`, the same relation, neither name's words all words of the
    other); a "moved from X to Y" report changes only a statement of X. ``old`` must not ask.

    >>> changes_standing("I moved to Seattle last month.", "I live in Boston.")
    True
    >>> changes_standing("I moved to Back Bay, Boston.", "I live in Boston.")
    False
    """
    a, b = standing(new), standing(old)
    if a is None or b is None or a.relation != b.relation or ends_in_question(old):
        return False
    if set(a.value) <= set(b.value) or set(b.value) <= set(a.value):
        return False
    return a.was is None or set(a.was) <= set(b.value) or set(b.value) <= set(a.was)
