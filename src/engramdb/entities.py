"""Entity co-mention for the conversation graph: names, places and dates shared by a few turns.

No model: an entity is a run of capitalised words (``Pride Parade``, ``Lake Tahoe``), an
acronym (``LGBTQ``), a date (``May 7``, ``7 May``) or a year (``2022``). A single capitalised word
that opens a sentence is not an entity ("Seeing", "Wow": a name there is usually found again
mid-sentence elsewhere; the dot of a title or abbreviated place name, "Dr. Smith", "St. Mary",
ends none, and a title alone is no entity); the start of a line, of a list item (``- Set up``, ``1. Enjoy``) or of
a Markdown heading counts as a sentence start; a common word (scikit-learn's stop words plus
interjections and chat acronyms, "ASAP") or an imperative verb ("Ask Priya", "Email Dana") opening a longer run there is
dropped from it. Code is no prose: text inside ````` fences
and ```inline code``` (``True``, ``None``, class names) is skipped. Entities are lower-cased, without a closing possessive
("Caroline's" and "Caroline" are one entity).

Hubs: an entity mentioned in more than ``max(hub_min, hub_share * turns)`` memories (the
speakers' own names, "Mom") links nothing; spreading activation through such a node would
reach everything (the fan effect would also divide it away). Only entities shared by at least
two memories make a node.

References
----------
The entity-node layer of temporal knowledge graphs for agent memory: Rasmussen et al. (2025),
"Zep: A Temporal Knowledge Graph Architecture for Agent Memory", arXiv:2501.13956 (with an LLM
extractor where this uses capitalisation rules).
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from .index.stopwords import ENGLISH_STOP_WORDS

__all__ = ["extract_entities", "co_mentions", "entity_node_id", "entity_of_node", "TITLE_WORDS"]

#: The id prefix of an entity node (conversation ingest makes ``E:<entity>``).
_NODE_PREFIX = "E:"


def entity_node_id(entity: str) -> str:
    """The id of the node of ``entity`` (lower-cased, as :func:`extract_entities` gives it).

    >>> entity_node_id("lake tahoe")
    'E:lake tahoe'
    """
    return _NODE_PREFIX + entity


def entity_of_node(node_id: str) -> str | None:
    """The entity an entity node's id names, None for any other id.

    >>> entity_of_node("E:lake tahoe"), entity_of_node("m1")
    ('lake tahoe', None)
    """
    return node_id[len(_NODE_PREFIX):] if node_id.startswith(_NODE_PREFIX) else None

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december")
_DATE = re.compile(rf"\b(?:({_MONTHS})\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTHS}))\b", re.I)
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_CAPS = re.compile(r"\b[A-Z][\w'’-]*(?:[^\S\n]+(?:of[^\S\n]+|the[^\S\n]+|de[^\S\n]+)?[A-Z][\w'’-]*)*")
_POSSESSIVE = re.compile(r"['’]s$")   # "Lake Tahoe's" names Lake Tahoe
_SENTENCE_END_CHARS = frozenset('.!?:;"“([')
#: What may stand between a line's start and its first word: a list marker, a quote or heading mark, emphasis.
_LINE_LEAD = re.compile(r"\s*(?:(?:[-*+•>]|#{1,6}|\d{1,3}[.)])\s+)?[*_]*")
#: Fenced code (an unclosed fence runs to the end) and inline code spans (CommonMark's backtick runs).
_CODE = re.compile(r"```.*?(?:```|\Z)|(`+)[^`\n]+?\1", re.DOTALL)
#: Titles written before a name with a dot ("Dr. Smith", "St. Mary's", "Mt. Hood"): the dot ends no
#: sentence, so the name after it is no sentence start ("Dr Smith" is the same entity). Capitalised
#: only: "a det. Looking back" ends a sentence. "St." / "Mt." after a name is Street / Mount, which
#: ends one ("on Elm St. Swimming is ..."); so do "ft.", "Jr.", "Sr.", never joined.
_TITLES = "Mr|Mrs|Ms|Mx|Dr|Prof|St|Mt|Lt|Capt|Cpt|Sgt|Col|Gen|Maj|Adm|Rev|Fr|Hon|Gov|Sen|Rep|Pres|Supt|Insp|Det"
_TITLE_WORDS = frozenset(_TITLES.lower().split("|")) | {"jr", "sr", "ft"}   # no entity alone
#: Titles before or after a name ("dr", "mrs", "jr"), lower case: no name of their own.
TITLE_WORDS = _TITLE_WORDS
_TITLE_DOT = re.compile(rf"(?<![\w'’])({_TITLES})\.(?=[^\S\n]+([A-Z][\w'’]*))")
_SUFFIX_TITLES = frozenset({"St", "Mt"})
_NAME_BEFORE = re.compile(r"[A-Z][\w'’-]*[^\S\n]+$")
_COMMON = frozenset(ENGLISH_STOP_WORDS) | {
    "wow", "hey", "hi", "hello", "thanks", "thank", "yeah", "yes", "oh", "ok", "okay", "sure", "great",
    "awesome", "cool", "nice", "sounds", "that's", "it's", "i'm", "i've", "i'll", "i'd", "you're", "haha",
    "lol", "omg", "congrats", "congratulations", "good", "glad", "love", "sorry", "absolutely", "totally",
    "definitely", "really", "just", "what's", "let's", "did", "have", "has", "can", "will", "do", "does",
    # chat acronyms, written in capitals and naming nothing ("Please tell me ASAP")
    "asap", "fyi", "btw", "imo", "imho", "tbh", "lmao", "pls", "plz", "thx", "idk", "afaik", "tldr", "smh",
}
#: Verbs that open an imperative at a sentence or list-item start ("1. Ask Priya before you merge",
#: "Email Dana the draft", "Visit Lisbon in May"): capitalised only there, so dropped from the run
#: they open, as a common word is (not from a run elsewhere, and no name among them: "Mark", "Bill").
_IMPERATIVES = frozenset(
    "ask call check tell email text message ping send meet visit try make take use add start keep see get go "
    "book buy pick bring remind invite thank contact follow reach talk speak share show write read review set "
    "open run install update create plan schedule consider remember note please tag cc loop join attend "
    "submit compare choose avoid skip drop move put leave wait give let".split())


def extract_entities(text: str) -> set[str]:
    """Entities named in ``text`` (lower-cased): capitalised word runs, dates, years.

    Parameters
    ----------
    text : str
        One memory's text (for conversation turns, without the "Speaker: " prefix). Code
        (fenced blocks, inline code) is skipped; a line or list item starts a sentence.

    Returns
    -------
    set of str
    """
    out: set[str] = set()
    if "`" in text:   # a code block becomes a line break, an inline span a comma (a name ends there)
        text = _CODE.sub(lambda c: "\n" if c.group(1) is None else " , ", text)
    if "." in text:
        text = _TITLE_DOT.sub(_title_dot, text)
    for m in _CAPS.finditer(text):
        words = m.group(0).split()
        line = text.rfind("\n", 0, m.start()) + 1
        before = text[max(line, m.start() - 64):m.start()].rstrip()
        sentence_start = (_LINE_LEAD.fullmatch(text, line, m.start()) is not None
                          or before[-1:] in _SENTENCE_END_CHARS)
        if sentence_start and (words[0].lower().strip("'’") in _COMMON
                               or (len(words) > 1 and words[0].lower() in _IMPERATIVES)):
            words = words[1:]
        while words and words[0].lower() in ("of", "the", "de"):
            words = words[1:]
        while len(words) > 1 and words[0].lower() == words[1].lower() and words[0].lower() in _TITLE_WORDS:
            words = words[1:]   # "Dr. Dr. Smith": one title
        if not words or all(w.lower() in _TITLE_WORDS for w in words) or (
                len(words) == 1 and (words[0].lower() in _COMMON or len(words[0]) < 2)):
            continue   # titles alone ("the Dr", "Jr. Sr.") name no one
        if sentence_start and len(words) == 1 and not words[0].isupper():
            continue   # "Seeing", "Painting": capitalised only because a sentence starts there
        if words[0].lower() in _MONTHS.split("|"):
            continue   # "May 7" is a date, below
        out.add(_POSSESSIVE.sub("", " ".join(words).lower()).strip("'’-"))
    for m in _DATE.finditer(text):
        month, day = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        out.add(f"{month.lower()} {int(day)}")
    out.update(_YEAR.findall(text))
    return out


def _title_dot(m: re.Match) -> str:
    """A title's dot dropped before a name ("Dr. Smith" -> "Dr Smith"); kept before a common
    word, where it ends a sentence ("my dad is a Dr. He works"), and after a name for "St." /
    "Mt." (Main St., a street, ends the sentence)."""
    if m.group(2).lower() in _COMMON:
        return m.group(0)
    if m.group(1) in _SUFFIX_TITLES and _NAME_BEFORE.search(m.string, max(0, m.start() - 64), m.start()):
        return m.group(0)
    return m.group(1)


def co_mentions(docs: Iterable[tuple[str, str]], *, hub_share: float = 0.02,
                hub_min: int = 8) -> dict[str, list[str]]:
    """Entities shared by at least two of ``docs`` and by no more than the hub limit.

    Parameters
    ----------
    docs : iterable of (id, text)
    hub_share : float
        Entities in more than ``max(hub_min, hub_share * len(docs))`` documents are hubs: skipped.
    hub_min : int

    Returns
    -------
    dict
        entity -> ids of the documents that mention it, in document order.
    """
    docs = list(docs)
    where: dict[str, list[str]] = defaultdict(list)
    for doc_id, text in docs:
        for ent in extract_entities(text):
            where[ent].append(doc_id)
    limit = max(hub_min, int(hub_share * len(docs)))
    return {e: ids for e, ids in where.items() if 2 <= len(ids) <= limit}
