"""Statements about the user in the third person, read as the user's own: what a model writes
through a memory tool ("User lives in Boston.", "The user moved to Cambridge.", "User's sister
Rita lives in Braga.") says what the user would say in the first person ("I live in Boston.").

The rule readers (:mod:`engramdb.standing`, :mod:`engramdb.changes`) read the speaker's home,
employer, name and values from first-person words: "User moved to Cambridge." after "User lives
in Boston." was no change of home, and "where does the user live?" asked for no home
(helper-221, a fresh user whose MCP agent wrote every memory so). :func:`in_first_person` turns
such words into the first person before they read them.

What is turned: "user" or "the user" (any case; a whole word, not "users", "username", "user
manual") as the subject of a verb it is directly followed by (adverbs such as "now", "just",
"recently" between): a verb of :data:`_PRESENT` in the third person ("lives" -> "I live", "is" ->
"I am", "has" -> "I have", "doesn't" -> "I don't"; a verb of the list after "and" / "but" in
the same sentence too: "User is a nurse and lives in Boston."), a past tense (a word ending in
"-ed" or one of :data:`_PAST`) or a modal ("will", "can") -> "I"; after an auxiliary of a
question (one that ends in "?" or opens with a question word) and before a verb's base form
("does the user live", "is the user", "did the user go") -> "do I live", "am I", "did I go"; and
the possessive "user's" / "the user's" at a clause's start or after a function word -> "my" (but
"the user's moving to ..." -> "I'm moving to ..."). Anything else is left: "The user interface
moved to v2", "User research shows ...", "Remind the user to ...", "The test user's name is
Alice", "Where does the user data live?". So is a text that opens with a label other than a
note's (helper-223): a chat turn ("user: The user lives in Germany but sees US prices", where
"the user" is the speaker's app's), a ticket, a bug report or a log line ("Ticket #4412: user
moved to Germany and can't log in", "Support: User works at Acme"), but not "Note:", "Fact:",
"Update:".

>>> in_first_person("User lives in Boston.")
'I live in Boston.'
>>> in_first_person("The user's sister Rita now lives in Braga.")
'My sister Rita now lives in Braga.'
>>> in_first_person("where does the user work?")
'where do I work?'
>>> in_first_person("The user interface moved to v2.")
'The user interface moved to v2.'
"""
from __future__ import annotations

import re
from functools import lru_cache

from .speakers import LABEL, LABELS

__all__ = ["in_first_person"]

#: Verbs in the third person present that a statement about the user opens with, and their
#: first-person forms.
_PRESENT = {
    "is": "am", "isn't": "am not", "has": "have", "hasn't": "haven't", "does": "do", "doesn't": "don't",
    **{v: v[:-1] for v in (
        "lives works resides stays rents owns prefers likes loves enjoys hates dislikes wants needs takes uses "
        "drives rides eats drinks plays speaks attends commutes earns pays makes knows follows keeps volunteers "
        "visits travels manages leads belongs runs walks cooks reads writes listens practices trains sleeps wakes "
        "starts joins moves plans intends hopes expects gets shares sees owes avoids").split()},
    "studies": "study", "teaches": "teach", "watches": "watch", "goes": "go", "misses": "miss",
    "finishes": "finish", "relaxes": "relax", "fixes": "fix", "catches": "catch",
}
#: Irregular past tenses (a regular one ends in "-ed").
_PAST = frozenset("was wasn't had hadn't did didn't got took went left quit began became bought sold made met lost "
                  "found gave told said saw ran drove wrote read spent paid kept sent grew flew came".split())
#: Modals after which the verb keeps its form ("User will move ...": "I will move ...").
_MODALS = frozenset("will won't would wouldn't can can't could couldn't should shouldn't might may must "
                    "used".split())
#: Words that may stand between the subject and its verb ("The user now lives in Cambridge").
_ADVERBS = frozenset("now just recently also still currently finally already actually officially usually "
                     "often always never sometimes mostly".split())
#: Labels of a memory note, after which a text about the user is still the user's ("Note: User
#: lives in Boston."): a note's labels (:data:`engramdb.speakers.LABELS`) and a memory's, but a
#: log level ("INFO: user relocated to Frankfurt"). Any other label of one to three words
#: (:data:`engramdb.speakers.LABEL`) makes the text someone else's about their user.
_NOTE_LABELS = (LABELS | frozenset("facts memory memories preference preferences profile updates context bio about "
                                   "detail details".split())) - {"info"}
#: Words after which a bare "user's" is the user's ("Dana is the user's sister", "... with user's
#: consent"), not a compound's ("The test user's name", "Each user's quota").
_BEFORE_OWNER = frozenset("of for to with about from on in at by and but or so because that is was are were "
                          "as like than what what's whats where where's who who's how how's which when whose".split())
#: Words after "the user's <x>ing" that make it "is <x>ing" ("The user's moving to Denver"), not a
#: noun ("the user's living room").
_AFTER_ING = frozenset("to in at from for with on out up back away into over a an the my his her their this next "
                       "now soon home abroad there here".split())
#: Question words that make a text a question without its "?" ("where does the user live").
_QUESTION = re.compile(r"\s*(?:where|what|who|whom|which|when|how|why|does|do|did|is|was|has|can|will)\b", re.I)
#: Auxiliaries that open a question about the user, and their first-person forms.
_ASKING = {"does": "do", "do": "do", "did": "did", "is": "am", "was": "was", "has": "have", "have": "have",
           "can": "can", "will": "will", "would": "would", "should": "should"}

_USER = r"(?:the\s+)?user(?![\w'’-])"
_SUBJECT = re.compile(rf"\b(?P<aux>(?:{'|'.join(_ASKING)})\s+)?(?P<subject>{_USER})(?P<rest>(?:\s+[\w'’]+){{0,3}})",
                      re.I)
_POSSESSIVE = re.compile(r"\b(?:the\s+)?user['’]s\b(?P<next>\s+[\w'’]+)?", re.I)
#: The user and one of theirs as one subject ("User and her husband live in Austin." -> "My
#: husband and I live in Austin."; helper-229: read as the husband's home alone).
_WITH_THEIRS = re.compile(r"\b(?:the\s+)?user\s+and\s+(?:his|her|their)\s+(?P<who>[\w'’-]+)\b", re.I)
#: What may come before a subject "the user": the text's or a sentence's start, a clause's.
_CLAUSE_END = re.compile(r"(?:^|[.!?:;,(\n]|\b(?:and|but|so|because|since|now|today|recently|also))\s*$", re.I)
#: Base forms of verbs a question may ask about the user with ("does the user live ...?").
_BASE = frozenset(v for v in _PRESENT.values() if v.isalpha()) | frozenset("be call mean think feel say".split())
#: A verb of :data:`_PRESENT` after "and" / "but" (adverbs of :data:`_ADVERBS` between), in a sentence turned.
_JOINED = re.compile(rf"\b(and|but)((?:\s+(?:{'|'.join(sorted(_ADVERBS))}))*\s+)("
                     + "|".join(sorted((k for k in _PRESENT if k.isalpha()), key=len, reverse=True)) + r")\b", re.I)


def _verb(rest: str) -> tuple[str, str] | None:
    """The first-person form of the words ``rest`` after "user" (adverbs, then the verb), and the
    text they replace; None when no verb of a statement about the user follows."""
    words = rest.split()
    lead = []
    for w in words:
        low = w.lower().replace("’", "'")
        if low in _ADVERBS:
            lead.append(w)
            continue
        if low in _PRESENT:
            new = _PRESENT[low]
        elif low in _PAST or low in _MODALS or (low.endswith("ed") and len(low) > 4):
            new = w
        else:
            return None
        old = " ".join(lead + [w])
        return old, " ".join(lead + [new])
    return None


def _as_subject(m: re.Match) -> str:
    aux, rest = m.group("aux"), m.group("rest")
    text = m.string
    if aux is not None and ("?" in text[m.end("subject"):] or _QUESTION.match(text)):
        # "where does the user live?" -> "where do I live?", but not "does the user data live?"
        word = aux.strip()
        follows = [w for w in rest.split() if w.lower() not in _ADVERBS][:1]   # ("does the user currently live")
        if word.lower() not in ("is", "was", "has", "have") and not (follows and follows[0].lower() in _BASE):
            return m.group(0)
        first = _ASKING[word.lower()]
        return aux.replace(word, first[:1].upper() + first[1:] if word[:1].isupper() else first) + "I" + rest
    verb = _verb(rest)
    if verb is None or not _CLAUSE_END.search(text[:m.start("subject")]):   # (not "a power user has")
        return m.group(0)
    old, new = verb
    return (aux or "") + "I" + rest.replace(old, new, 1)


def _as_possessive(m: re.Match) -> str:
    before = m.string[:m.start()]
    head = before.rstrip()
    if head and head[-1] not in ".!?:;,(\n":
        prev = re.search(r"([\w'’]+)$", head)
        if prev is not None and prev.group(1).lower() not in _BEFORE_OWNER:
            return m.group(0)   # a compound's or another clause's ("The test user's name", "Then the user's")
    nxt = m.group("next") or ""
    word = nxt.strip().lower()
    if word == "been":
        return "I've" + nxt
    if word.endswith("ing"):
        after = re.match(r"\s+([\w'’]+)", m.string[m.end():])
        if after is None or after.group(1).lower() in _AFTER_ING:   # ("the user's moving to", not "living room")
            return "I'm" + nxt
    return ("My" if not head or head[-1] in ".!?:\n" else "my") + nxt


def _with_theirs(m: re.Match) -> str:
    head = m.string[:m.start()].rstrip()
    if not _CLAUSE_END.search(m.string[:m.start()]):
        return m.group(0)   # (not a subject: "a call with the user and her lawyer")
    return ("My " if not head or head[-1] in ".!?:\n" else "my ") + m.group("who") + " and I"


def _joined_verbs(sentence: str) -> str:
    """``sentence`` (turned) with each verb of :data:`_PRESENT` after "and" / "but" in its first-person form."""
    return _JOINED.sub(lambda j: j.group(1) + j.group(2) + _PRESENT[j.group(3).lower()], sentence)


@lru_cache(maxsize=1 << 12)
def in_first_person(text: str) -> str:
    """``text`` (str) with its statements and questions about the user in the third person turned
    into the first person (module docstring); ``text`` itself when it names no user so.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    if "user" not in text.lower():
        return text
    label = LABEL.match(text)
    if label is not None and len(label.group(1).split()) <= 3 and label.group(1).strip().lower() not in _NOTE_LABELS:
        return text   # a chat turn's, a ticket's, a log's: their user is not the memory's owner
    out = _WITH_THEIRS.sub(_with_theirs, text)
    out = _POSSESSIVE.sub(_as_possessive, out)
    turned = _SUBJECT.sub(_as_subject, out)
    if turned == out:
        return out
    # ("User is a nurse at Mass General and lives in Boston.": the second verb is the user's too)
    return "".join(_joined_verbs(part) if re.search(r"\bI\b", part) else part
                   for part in re.split(r"((?<=[.!?;])\s+)", turned))
