"""Who said a memory (source attribution), and whom a question is about.

A memory of a conversation has a speaker: ``add_conversation`` stores a message as
``"<speaker>: <content>"`` tagged with the speaker's name and role, and a chat stored line by
line with ``add_batch`` often carries the same ``"Name: ..."`` form or a role tag. A question that
names one of the speakers ("Which cars does Dave like?", "What did the user say about ...") is
almost always answered by what that speaker said, not by what was said *to* them: on LoCoMo, of
the evidence turns of the questions that name exactly one of the two speakers, 95-98 % are that
speaker's own (the adversarial questions, which name the wrong person on purpose, apart), while
about half of recall's first ten hits were the other speaker's turns addressing them by name.
Recall weighs a memory by its source accordingly (``RecallConfig.w_speaker``,
:mod:`engramdb.recall.ranking`): source monitoring (Johnson, Hashtroudi & Lindsay 1993) applied
to retrieval.

- :func:`speaker_of`: a record's speaker, in this order: the ``"<speaker>: "`` prefix of its
  text when one of its tags is that speaker (a message ``add_conversation`` stored, whatever
  the name looks like) or when it is a chat role; else its chat-role tag; else a prefix that
  looks like a person's name (one to three capitalized words, not a label such as "Note",
  "TODO" or "Q", not a pronoun, month or weekday); else none. Names are NFC-normalised.
- :func:`named_speaker`: the one speaker a question names, among the speakers of the
  namespace's live memories (:meth:`engramdb.state.columns.Columns.speaker_words`): by a word
  of the name as written ("Dave", "Dave's"; a word two speakers share names neither on its
  own, so "Maya Chen" names Maya Chen beside Maya Lopez and "Maya" names no one), by its role
  ("the user", "the assistant"), by first-person words ("I", "my", "me": the ``user``, who
  asks) or second-person ones ("you", "your": the ``assistant``, who is asked); None when it
  names none or several. Month, weekday and season names and a question's leading auxiliary
  ("Will", "May", "Can" ...) name no one, so a speaker called May or Will is found by a full
  name or not at all. Scripts written without spaces between words (Chinese, Japanese) are
  not split into words: their names are matched only as whole space-separated tokens.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Mapping

from .timeref import CALENDAR_WORDS

__all__ = ["labelled", "speaker_of", "speaker_keys", "named_speaker", "looks_like_a_name", "others_only",
           "not_the_owners", "silent_on_the_owners", "calls_not_names", "names_given", "kin_named", "the_speakers_doing",
           "anothers_doing",
           "PERSON_NOUNS", "ANIMAL_NOUNS", "DOG_WORDS", "CAT_WORDS", "CHAT_ROLES", "FIRST_PERSON",
           "SECOND_PERSON", "LABELS"]

#: Chat roles (OpenAI's; :data:`engramdb.conversation.ROLES` is this set): a role tag or prefix is a speaker.
CHAT_ROLES = frozenset({"user", "assistant", "system", "developer", "tool", "function"})
#: Words by which a question's asker names themself: the ``user`` speaker.
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})
#: Words by which a question names the one it is asked of: the ``assistant`` speaker.
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll"})
#: Prefixes that label a note rather than name who said it ("Note: I moved to Porto" is the
#: user's, not Note's); :mod:`engramdb.slots` reads the same list.
LABELS = frozenset("note notes update reminder todo fact summary edit ps fyi important warning question answer "
                   "q a memo remember info correction password tip idea task goal draft re fw fwd subject news psa".split())
_PRONOUNS = FIRST_PERSON | SECOND_PERSON | frozenset("he she it we they him her us them his its our their".split())
#: A question's leading word that is an auxiliary, never a name ("Will Dave come?", "May I ...").
_AUXILIARIES = frozenset("will may can could would should might must shall did does do is are was were has have "
                         "had".split())
_ASKED_ROLES = frozenset({"user", "assistant"})   # roles a question names by their word
_ROLE_WORDS = frozenset(v for r in _ASKED_ROLES for v in (r, r.capitalize(), r.upper()))
#: first- and second-person words as a question may write them -> the role they name
_PERSON = {v: role for words, role in ((FIRST_PERSON, "user"), (SECOND_PERSON, "assistant"))
           for w in words for v in (w, w.capitalize(), w.upper())}

#: The speaker label before a message's text, as ``add_conversation`` writes it ("Caroline: ...",
#: "user: ..."): group 1 is the speaker.
LABEL = re.compile(r"^([^:\n]{1,40}):\s+")
_NAME = re.compile(r"[^\W\d_][\w'.\-]*(?: [^\W\d_][\w'.\-]*){0,2}")


def labelled(text: str, sentences) -> tuple[str, ...]:
    """``sentences`` (str each) of ``text``, each after the text's leading speaker label
    (:data:`LABEL`: "user: ") if it has one (the first sentence holds it already), so a
    sentence read alone keeps its speaker."""
    m = LABEL.match(text)
    if m is None:
        return tuple(sentences)
    label = m.group(0)
    return tuple(x if x.startswith(label) else label + x for x in sentences)
_WORD = re.compile(r"[^\W_][\w'’\-]*")
_POSSESSIVE = re.compile(r"['’]s?$")
_MAX_PREFIX = 128


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def speaker_of(rec: Mapping) -> str | None:
    """The speaker of a stored record (``text``, ``tags``), or None.

    Parameters
    ----------
    rec : mapping
        A stored record: ``text`` (str) and ``tags`` (sequence of str).

    Returns
    -------
    str or None
        The speaker as written, NFC-normalised (a chat role in lower case). See the module
        docstring for the order of the rules.
    """
    text, tags = rec.get("text") or "", rec.get("tags") or ()
    cut = text.find(": ", 0, _MAX_PREFIX)
    name = _nfc(text[:cut].strip()) if cut > 0 else ""
    if "\x00" in name:   # not a name (and the snapshot's name list is NUL-separated)
        name = ""
    if name:
        if name.lower() in CHAT_ROLES:
            return name.lower()
        if name in tags or name in {_nfc(t) for t in tags}:   # a speaker the record is tagged with
            return name
    for tag in tags:
        if tag in CHAT_ROLES:
            return tag
    if name and looks_like_a_name(name):
        return name
    return None


def looks_like_a_name(name: str) -> bool:
    """Whether ``name`` reads as a person's name: one to three capitalised words, not a label
    ("Note", "TODO"), a pronoun, a month, weekday or season."""
    words = name.split(" ")
    return (len(name) > 1 and _NAME.fullmatch(name) is not None and all(w[0].isupper() for w in words)
            and name.lower() not in LABELS and not any(w.lower() in _PRONOUNS | CALENDAR_WORDS for w in words))


def _bare(word: str) -> str:
    """A question word without a possessive ending ("Dave's" -> "Dave", "James'" -> "James")."""
    return _POSSESSIVE.sub("", word) if len(word) > 2 else word


def speaker_keys(name: str) -> list[str]:
    """The words a question may name speaker ``name`` by: each word of a name as written
    (matched case-sensitively: "Will" names a speaker, "will" does not), NFC-normalised,
    except single letters, pronouns and calendar words; or the role itself for the ``user``
    and ``assistant`` roles ("tool" or "system" in a question names no speaker)."""
    if name in CHAT_ROLES:
        return [name] if name in _ASKED_ROLES else []
    return [w for w in (_bare(w) for w in _WORD.findall(_nfc(name)))
            if len(w) > 1 and w.lower() not in _PRONOUNS and w.lower() not in CALENDAR_WORDS]


def named_speaker(query: str | None, words: Mapping[str, frozenset], user_code: int | None,
                  assistant_code: int | None) -> int | None:
    """The code of the one speaker ``query`` names, or None.

    Parameters
    ----------
    query : str or None
        The question.
    words : mapping of str to frozenset of int
        Word -> the codes of the namespace's speakers it is a word of (:func:`speaker_keys`
        of each live speaker; ``Columns.speaker_words``).
    user_code, assistant_code : int or None
        The codes of the ``user`` and ``assistant`` speakers, which first- and second-person
        words name; None when the namespace has no memory of that speaker.

    Returns
    -------
    int or None
        The speaker's code when the question names exactly one speaker, else None.
    """
    if not query or (not words and user_code is None and assistant_code is None):
        return None
    named: set[int] = set()
    shared: list[frozenset] = []
    tokens = _WORD.findall(_nfc(query))
    if tokens and tokens[0].lower() in _AUXILIARIES:
        tokens = tokens[1:]
    for w in tokens:
        codes = words.get(w)
        if codes is None:
            person = _PERSON.get(w)   # "I", "my", "You" ... (a calendar word is no key of a name)
            if person is not None:
                code = user_code if person == "user" else assistant_code
                if code is None:
                    continue
                codes = frozenset((code,))
            elif "'" in w or "’" in w:
                codes = words.get(_bare(w))
            elif w in _ROLE_WORDS:
                codes = words.get(w.lower())
            if not codes:
                continue
        if len(codes) == 1:
            named |= codes
            if len(named) > 1:
                return None
        else:
            shared.append(codes)
    if not shared:
        return next(iter(named)) if named else None
    if named:   # a shared word of someone else ("What did Dave tell Maya?"): two people named
        return next(iter(named)) if all(named <= codes for codes in shared) else None
    common = frozenset.intersection(*shared)   # only shared words: named if together they name one
    return next(iter(common)) if len(common) == 1 else None


#: Nouns for a person other than the speaker: after "my" / "our" they name that person ("where
#: does my brother live?" asks the brother's home, not the user's).
PERSON_NOUNS = frozenset({
    "brother", "sister", "sibling", "mother", "mom", "mum", "mommy", "mummy", "father", "dad", "daddy",
    "parent", "son", "daughter", "child", "kid", "baby", "wife", "husband", "partner", "spouse",
    "girlfriend", "boyfriend", "fiance", "fiancee", "friend", "bestie", "boss", "manager", "colleague",
    "coworker", "neighbour", "neighbor", "roommate", "flatmate", "cousin", "aunt", "uncle", "niece",
    "nephew", "grandmother", "grandma", "granny", "grandfather", "grandpa", "grandson", "granddaughter",
    "stepmother", "stepfather", "stepson", "stepdaughter", "teacher", "doctor", "therapist", "landlord",
    "tenant", "client", "student", "mentor", "assistant", "nanny", "vet",
})

#: Nouns for an animal, a pet: after "my" / "our" they name it ("what's my dog's name?"), the
#: common dog and cat breeds among them (:data:`DOG_WORDS`, :data:`CAT_WORDS`: "my golden
#: retriever" is my dog). Not the words that are food too ("fish", "chicken"), nor breeds that
#: are as often another word ("boxer", "husky", "lab", "shepherd", "persian").
DOG_WORDS = frozenset("dog puppy pup doggy doggo pooch mutt hound retriever labrador labradoodle goldendoodle "
                      "poodle beagle terrier spaniel collie dachshund corgi pug bulldog greyhound rottweiler "
                      "chihuahua schnauzer dalmatian".split())
CAT_WORDS = frozenset("cat kitten kitty tabby moggy".split())
ANIMAL_NOUNS = DOG_WORDS | CAT_WORDS | frozenset({
    "pet", "hamster", "rabbit", "bunny", "bird", "parrot", "budgie", "goldfish", "horse", "pony", "turtle",
    "tortoise", "snake", "lizard", "gecko", "ferret", "chinchilla",
})

#: The kin and pet words that may name the same one ("my mum" is "my mother", "the kitten" may be
#: "my cat", "a sibling" my sister, "my pet" any animal): each word's classes; two words that
#: share none name two (:func:`_same_one`). Any other word for a person ("friend", "boss")
#: may be anyone.
_KINDS: dict[str, frozenset[str]] = {}
for _words, _classes in (
        ("mother mom mum mommy mummy stepmother", "mother"), ("father dad daddy stepfather", "father"),
        ("parent", "mother father"), ("sister", "sister"), ("brother", "brother"), ("sibling", "sister brother"),
        ("son stepson grandson", "son"), ("daughter stepdaughter granddaughter", "daughter"),
        ("child children kid baby", "son daughter"),
        ("wife husband partner spouse girlfriend boyfriend fiance fiancee", "partner"),
        ("grandmother grandma granny", "grandmother"), ("grandfather grandpa", "grandfather"),
        ("cousin", "cousin"), ("aunt", "aunt"), ("uncle", "uncle"), ("niece", "niece"), ("nephew", "nephew"),
        (" ".join(DOG_WORDS), "pet:dog"), (" ".join(CAT_WORDS), "pet:cat"), ("rabbit bunny", "pet:rabbit"),
        ("pet", "pet:*"),
):
    for _w in _words.split():
        _KINDS[_w] = frozenset(_classes.split())
for _w in ANIMAL_NOUNS.difference(_KINDS):
    _KINDS[_w] = frozenset({"pet:" + _w})
del _words, _classes, _w


def _kind_of(word: str) -> frozenset[str] | None:
    """The classes of a kin or pet word (:data:`_KINDS`; a plural too: "kids"), ``{"person"}`` for
    another word for a person (:data:`PERSON_NOUNS`: "friend", "boss"), None for any other word."""
    for w in (word, word[:-1] if word.endswith("s") else None):
        if w in _KINDS:
            return _KINDS[w]
        if w in PERSON_NOUNS:
            return frozenset({"person"})
    return None


def _same_one(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether words of the classes ``a`` and ``b`` (:func:`_kind_of`) may name the same one."""
    if any(c.startswith("pet:") for c in a) != any(c.startswith("pet:") for c in b):   # a person is no pet
        return False
    either = a | b
    return "pet:*" in either or "person" in either or not a.isdisjoint(b)


def _another_pet(owner: str, bare: set[str], thing: tuple[str, ...] = ()) -> bool:
    """Whether a text of the words ``bare`` (lower case, possessives bare, no chat label) names a
    pet that cannot be ``owner``, a kin or pet word, and no word that may be ``owner`` ("what's my
    dog's name?" or "what is my sister's name?" and "Actually, we renamed the cat. Her name is
    Miso now": her name is the cat's). The words of the ``thing`` asked (index-term prefixes), and
    the kin or pet words that may name it, are no other ("my cousin's dog" and "The pups love the
    park"). Only a pet: a text about a person may be about the owner too ("Adopted a rescue with
    my wife today, his name is Rex!" names the dog, "We named him Leo after my dad" the son).
    False when ``owner`` is no kin or pet word (a name may be anyone's "he")."""
    mine = _kind_of(owner)
    if mine is None or "person" in mine:
        return False
    things = [k for k in map(_kind_of, thing) if k is not None and "person" not in k]
    kinds = [k for w in bare if not w.startswith(thing) and (k := _kind_of(w)) is not None
             and not any(_same_one(k, t) for t in things)]
    return (any(c.startswith("pet:") for k in kinds for c in k)
            and not any(_same_one(mine, k) for k in kinds))


def _may_be(word: str, owner: str) -> bool:
    """Whether ``word`` may name ``owner`` (lower case): the same word, or kin or pet words that
    may name the same one ("puppy" and "dog", "cat" and "pet": :func:`_same_one`)."""
    if word == owner:
        return True
    a, b = _kind_of(word), _kind_of(owner)
    return a is not None and b is not None and "person" not in a and "person" not in b and _same_one(a, b)


def _bare_words(text: str) -> set[str]:
    """The words of ``text``, lower case, possessives bare ("Mum's" -> "mum")."""
    return {w[:-2] if w.endswith(("'s", "’s")) else w for w in _TEXT_WORD.findall(text.lower())}


#: "my <thing>" in a question: what it asks for is the speaker's ("When is my birthday?", "what's
#: my phone number?"): the one or two words after "my".
_MY_THING = re.compile(r"\bmy\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", re.I)
#: Words before a thing that make it another's ("her birthday", "his car", "their address"); not
#: "your": an assistant's reply says it of the user ("Your birthday is May 3, noted.").
_OTHERS_WORDS = frozenset("her his their its".split())
#: A text that names the user outside its chat label ("User said her birthday is May 3."): its
#: "her", "his", "their" may be the user's.
_NAMES_USER = re.compile(r"\b(?:the\s+)?user\b(?!\s*:)", re.I)
_TEXT_WORD = re.compile(r"[\w'’-]+")


def others_only(question: str, text: str) -> frozenset[str]:
    """Index terms (stems, :func:`engramdb.index.tokens.tokenize`) of what ``question`` asks for as
    the speaker's ("When is my birthday?": ``birthday``) that ``text`` names only as another's
    ("Also my mum lives in Cardiff and her birthday is on March 29.", "Dad's birthday is in
    May"): there the word matches the question but says nothing of the speaker's.

    An occurrence is another's when one of the two words before it is "her", "his", "their",
    "its" or a possessive other than the user's ("Mum's", "her phone number", not "User's") and
    no "my" or "our" comes between ("my 30th birthday" is the speaker's); neither otherwise ("the
    birthday party", an assistant's "your birthday"), which keeps the term. In a text that names
    the user ("User said her birthday is May 3.") a pronoun may be the user's: only a possessive
    name makes it another's.

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
        Empty when the question asks for nothing as "my <thing>", or the text names it as the
        speaker's, or not as anyone's, at least once.
    """
    stems = _asked_as_mine(question) if "my" in question.lower() else ()
    low = text.lower()
    stems = [stem for stem in stems if stem in low]
    if not stems:
        return frozenset()
    pronouns_mine = _NAMES_USER.search(LABEL.sub("", text, count=1)) is not None
    words = _TEXT_WORD.findall(low)
    out = set()
    for stem in stems:
        places = [i for i, w in enumerate(words) if w.startswith(stem)]
        if places and all(_anothers(words, i, pronouns_mine) for i in places):
            out.add(stem)
    return frozenset(out)


#: A question whose subject is one of the speaker's people, then its verb ("where does my mom
#: live?", "where did my sister study?", "what does my husband do?"): group 1 the person word,
#: 2 the verb.
_THEIR_DOING = re.compile(r"\b(?:do|does|did|is|was|has|had)\s+(?:my|our)\s+([a-z]+)\s+([a-z]+)\b", re.IGNORECASE)
#: A speaker's own subject right before a verb ("I live", "we've lived", "I still work").
_SPEAKER_SUBJECT = frozenset("i we i've we've i'm we're i'd we'd".split())
_BETWEEN = frozenset("still also now currently just really actually both all never always used to".split())


def the_speakers_doing(question: str, text: str) -> frozenset[str]:
    """The index term of the verb of ``question`` when the question asks what one of the
    speaker's people does ("where does my mom live?": ``live``) and ``text`` says that verb only
    of the speaker ("I live in Chicago with Tom.", "We've lived here for years") and names no one
    who may be the person (the kin word or one that may name the same: "my mother", "mum"; nor
    "he", "she", "they"): there the verb matches the question but says nothing of the person's
    (helper-203: the user's own home, 0.94, above "My mom is visiting from Denver").

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
        ``{verb term}`` or empty.
    """
    asked = _their_doing(question)
    if asked is None:
        return frozenset()
    person, stem = asked
    words = _TEXT_WORD.findall(LABEL.sub("", text, count=1).lower())
    if not _THIRD_PERSON.isdisjoint(words) or any(_may_be(_bare(w), person) or _bare(w) == person for w in words):
        return frozenset()
    # ("we" of a household may hold the partner and the children: "We live in Chicago." answers
    # "where do my kids live?"; not a parent's or a sibling's home)
    mine = _SPEAKER_SUBJECT if _HOUSEHOLD.isdisjoint(_kind_of(person) or ()) else _SPEAKER_I
    at = _verb_subjects(words, stem)
    return frozenset({stem}) if at and all(j >= 0 and words[j] in mine for j in at) else frozenset()


#: Kin who share the speaker's "we" (a partner, the children).
_HOUSEHOLD = frozenset({"partner", "son", "daughter"})
_SPEAKER_I = frozenset("i i've i'm i'd".split())


def _verb_subjects(words: list[str], stem: str) -> list[int]:
    """Where the word right before each word of ``words`` that starts with ``stem`` (a verb's index
    term) is, adverbs of :data:`_BETWEEN` skipped ("I still live"); -1 for one that opens the text."""
    out = []
    for i, w in enumerate(words):
        if w.lower().startswith(stem):
            j = i - 1
            while j >= 0 and words[j].lower() in _BETWEEN:
                j -= 1
            out.append(j)
    return out


#: A question whose subject is the speaker, then its verb ("where did I live before?", "where do
#: we live?", "where have I worked?"): group 1 the verb.
_MY_DOING = re.compile(r"\b(?:do|did|have|had|will|would|can|could|should)\s+(?:i|we)\s+"
                       r"(?:(?:still|ever|first|last|really|usually|once|originally|previously)\s+)?([a-z]+)\b",
                       re.IGNORECASE)


def anothers_doing(question: str, text: str) -> frozenset[str]:
    """The index term of the verb of ``question`` when the question asks what the speaker does
    ("where did I live before?": ``live``) and ``text`` says that verb only of one of the
    speaker's people: a kin or person word right before it, or a name right after one ("my
    parents live nearby", "My sister Priya lives in Austin"), or "he", "she", "they" after a kin
    word ("My sister moved last year. She lives in Denver now."), and not joined to the speaker
    by "and" ("Me and my wife lived in Denver"; "I think my sister works at Google." is the
    sister's): there the verb matches the question but says nothing of the speaker's (helper-207:
    the sister's home at relevance 0.997 for "where did I live before?"). A name alone, or "he"
    or "she" with no kin named, may be the speaker in a note about them ("User lives in Austin.",
    "Dana works at Stripe."). :func:`the_speakers_doing` the other way round.

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
        ``{verb term}`` or empty.
    """
    stem = _my_doing(question)
    if stem is None:
        return frozenset()
    words = _TEXT_WORD.findall(LABEL.sub("", text, count=1))

    def kin_at(j: int) -> bool:
        return j >= 0 and (kind := _kind_of(_bare(words[j].lower()))) is not None and "pet:*" not in kind

    low = [w.lower() for w in words]
    kin_said = [kin_at(j) for j in range(len(words))]

    def someone(j: int) -> bool:
        if j < 0 or any(low[k] == "and" and low[k - 1] in ("i", "me", "we") for k in range(max(1, j - 3), j)):
            return False   # ("Me and my wife lived ...": the speaker's too)
        if low[j] in ("he", "she", "they"):   # the kin named before it ("My sister moved. She lives in Denver.")
            return any(kin_said[:j]) and "user" not in low
        return kin_said[j] or (words[j][:1].isupper() and _reads_as_a_name(words[j]) and j > 0 and kin_said[j - 1])

    at = _verb_subjects(words, stem)
    return frozenset({stem}) if at and all(map(someone, at)) else frozenset()


@functools.lru_cache(maxsize=1024)
def _my_doing(question: str) -> str | None:
    """The index term of the verb of :data:`_MY_DOING` in ``question``, or None."""
    from .index.tokens import tokenize

    m = _MY_DOING.search(question)
    if m is None:
        return None
    stems = tokenize(m.group(1))
    return stems[0] if len(stems) == 1 else None


@functools.lru_cache(maxsize=1024)
def _their_doing(question: str) -> tuple[str, str] | None:
    """(the person word, the verb's index term) of :data:`_THEIR_DOING` in ``question`` when the
    word is a kin word (:func:`_kind_of`, no pet), else None."""
    from .index.tokens import tokenize

    m = _THEIR_DOING.search(question)
    if m is None:
        return None
    person = m.group(1).lower()
    kinds = _kind_of(person)
    if kinds is None or any(c.startswith("pet:") for c in kinds):
        return None
    stems = tokenize(m.group(2))
    return (person[:-1] if person.endswith("s") and person[:-1] in _KINDS else person, stems[0]) if len(stems) == 1 else None


@functools.lru_cache(maxsize=1024)
def _asked_as_mine(question: str) -> tuple[str, ...]:
    """The index terms of the things ``question`` asks for as "my <thing>" (see :func:`others_only`)."""
    from .index.tokens import tokenize

    out: list[str] = []
    for m in _MY_THING.finditer(question):
        first, second = m.groups()
        # "my dog's name", "my mum's job": the second word is the dog's, the mum's
        owner = first.endswith(("'s", "’s")) or first.lower() in PERSON_NOUNS
        for word in (first,) if owner or second is None else (first, second):
            out += [stem for stem in tokenize(word) if stem not in out]
    return tuple(out)


#: "<Name>'s <thing>" or "my <person>'s <thing>" in a question ("What's Kenji's phone number?",
#: "when is my sister's birthday?"): the owner, then one or two words of the thing.
_OWNERS_THING = re.compile(r"\b([^\W\d_][\w-]*)['’]s\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?")
_OWNERS_THING_AT = re.compile(f"(?={_OWNERS_THING.pattern})")
#: "my" or "our" right before a possessive ("what's my dog's name?": the dog owns the name), maybe
#: through other owners ("my sister's dog's name": the dog's).
_MY_BEFORE = re.compile(r"\b(?:my|our)\s+(?:[^\W\d_][\w-]*['’]s\s+)*$", re.IGNORECASE)
#: Words before "'s" that own nothing ("What's", "it's", "let's").
_NO_OWNER = frozenset("what who where when how why which it that there here let he she this one everyone "
                      "anyone someone nobody today tomorrow yesterday".split())
#: Words after a thing's first word that make it a rank, not the thing ("number one").
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten 1 2 3 4 5 6 7 8 9 10".split())
#: Words of a text that may stand for a named owner it does not name ("He gave me his number").
_THIRD_PERSON = frozenset("he him his she her hers they them their theirs".split())
#: Words before a thing that make it the speaker's, the user's or the team's ("my number").
_OURS_WORDS = frozenset("my our your".split())


def not_the_owners(question: str, text: str) -> frozenset[str]:
    """Index terms (stems) of what ``question`` asks for as a named person's ("What's Kenji's
    phone number?": ``phone``, ``number``) that ``text`` names as someone else's and never as
    theirs: ``text`` names no such owner (by name, as its speaker label too, nor by "he", "she",
    "they") and says the thing is the speaker's or another's ("Also my phone number changed! The
    new number is 503-555-0192."). There the words match the question but say nothing of the
    owner's: :func:`others_only` the other way round. The owner is a capitalised name, a word
    for a person (:data:`PERSON_NOUNS`: "my sister's birthday") or anything of the speaker's
    ("what's my dog's name?" and "My cat's name is Miso."). A text that names a pet other than
    an owner of a kin or pet word, and nothing that may be that owner, names the thing as the
    pet's ("what's my dog's name?" or "what's my sister's name?" and "Actually, we renamed the
    cat. Her name is Miso now"; "what is my husband's name?" and "Our dog is named Biscuit.":
    :data:`PERSON_NOUNS`, :data:`ANIMAL_NOUNS`, :func:`_another_pet`); a breed is its kind ("my
    golden retriever" may be "my dog": :data:`DOG_WORDS`, :data:`CAT_WORDS`).

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
        Empty when the question asks for no one's thing, or the text may speak of the owner, or
        names none of the thing's words as someone else's.
    """
    asked = _asked_of_another(question) if _may_ask_of_another(question) else ()
    if not asked:
        return frozenset()
    words = _TEXT_WORD.findall(text.lower())
    third_person = not _THIRD_PERSON.isdisjoint(words)
    bare = {w[:-2] if w.endswith(("'s", "’s")) else w for w in words}
    said = bare if LABEL.match(text) is None else _bare_words(LABEL.sub("", text, count=1))   # (not "assistant:")
    out: set[str] = set()
    for owner, stems in asked:
        if owner in bare and not _owns_another(words, owner):
            continue
        # (the owner named only as another's owner, "My sister's cat is named Miso.": the cat's)
        another = owner in bare or _another_pet(owner, said, stems)   # (then the name said is the pet's)
        places = [(i, stem) for i, w in enumerate(words) for stem in stems if w.startswith(stem)]
        # ... and a name asked, every naming in the text another's ("a baby girl named Mira" for
        # "what is my brother's name?": helper-207)
        another = another or (_asks_a_name(stems) and bool(places)
                              and all(_names_another(" ".join(words[:i]), owner) for i, _stem in places))
        if third_person and not another:   # "he", "she", "they" may be the owner
            continue
        if places and (another or any(_someone_elses(words, i, owner) for i, _stem in places)):
            out.update(stem for _i, stem in places)
    return frozenset(out)


#: Other wordings of "my <kin or pet>'s name" ("what's the name of my sister?", "what is my sisters
#: name?", "what are my sisters' names?", "what's my sister called?", "the names of my sister's
#: kids"): group 1 "my" / "our", 2 the owner word, after the owners it is said of ("sister's kids").
_OWNER_CHAIN = r"(my|our)\s+((?:[a-z]+['’]s\s+)*[a-z]+)"
_NAME_OF = re.compile(rf"\bthe\s+(?:(?:first|last|full|middle)\s+)?names?\s+of\s+{_OWNER_CHAIN}\b(?!['’])", re.I)
_NAME_NO_APOSTROPHE = re.compile(r"\b(my|our)\s+([a-z]+?)s?['’]?\s+(?:(?:first|last|full|middle)\s+)?names?\b", re.I)
_OWNER_CALLED = re.compile(rf"\b{_OWNER_CHAIN}\s+called\W*$", re.I)
#: A kin or pet word's plural possessive ("my sister's kids' names", "my parents' address"),
#: written as the singular's ("kid's"); "children's" as "child's".
_PLURAL_OWNER = re.compile(r"\b(?:([a-z]+)s['’](?=\s)|(child)ren['’]s\b)", re.I)


def _may_ask_of_another(question: str) -> bool:
    """Whether ``question`` may ask for someone's thing: a possessive, or another wording of a
    kin's or pet's name (:data:`_NAME_OF`)."""
    return "'" in question or "’" in question or "name" in question.lower() or "called" in question.lower()


def _as_possessive(question: str) -> str:
    """``question`` with another wording of a kin's or pet's name written "my <owner>'s name"
    ("What's the name of my sister?", "What is my sisters name?", "What's my sister called?",
    "the names of my sister's kids" as "my sister's kid's name"), when the owner is a kin or pet
    word (:func:`_kind_of`); a kin or pet word's plural possessive as the singular's ("my
    sister's kids' names" as "my sister's kid's names"); else as it is."""
    def mine(m: re.Match) -> str:
        *owners, owner = m.group(2).split()   # ("sister's kids": the kids' name)
        single = owner[:-1] if owner.lower().endswith("s") and _kind_of(owner.lower()[:-1]) is not None else owner
        return (f"{m.group(1)} {''.join(o + ' ' for o in owners)}{single}'s name" if _kind_of(single.lower()) is not None
                else m.group(0))

    def singular(m: re.Match) -> str:
        word = m.group(1) or m.group(2)
        return f"{word}'s" if m.group(2) or _kind_of(word.lower()) is not None else m.group(0)

    if "'" in question or "’" in question:
        question = _PLURAL_OWNER.sub(singular, question)
    for form in (_NAME_OF, _OWNER_CALLED):
        question = form.sub(mine, question)
    return _NAME_NO_APOSTROPHE.sub(lambda m: mine(m) if "'s" not in m.group(0) else m.group(0), question)


@functools.lru_cache(maxsize=1024)
def _asked_of_another(question: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(owner, the index terms of the thing) of each "<owner>'s <thing>" of ``question`` (see
    :func:`not_the_owners`); another wording of a kin's or pet's name is read as one
    (:func:`_as_possessive`), and its "first", "full" ... name as its name."""
    from .index.tokens import tokenize

    question = _as_possessive(question)
    out = []
    for m in _OWNERS_THING_AT.finditer(question):   # (overlapping: "What's my dog's name?")
        owner, first, second = m.groups()
        low = owner.lower()
        mine = _MY_BEFORE.search(question, 0, m.start()) is not None   # "my dog's name": the dog's
        if low in _NO_OWNER or not (owner[0].isupper() or low in PERSON_NOUNS or mine):
            continue
        if second is not None and second.lower() in _NUMBER_WORDS:
            second = None   # ("John's number one goal": the thing is the goal, no number of his)
            first = None
        stems = tuple(dict.fromkeys(stem for word in (first, second) if word for stem in tokenize(word)))
        if stems:
            out.append((low, stems))
    return tuple(out)


#: A person's attributes that a text gives in words of its own (or a value of its form): the
#: words of the question that ask for it, and the words (prefixes) and forms a text gives it in.
_ATTRIBUTES = {
    "birthday": (frozenset({"birthday", "bday", "b-day"}), ("birthday", "bday", "b-day", "born", "birth", "turns",
                                                           "turned", "turning"), None),
    "phone": (frozenset({"phone", "number", "cell", "mobile"}), ("phone", "number", "cell", "mobile", "digits", "text",
                                                                  "call"), re.compile(r"\d{3}[-. )]\s?\d{3,4}")),
    "email": (frozenset({"email", "e-mail"}), ("email", "e-mail", "mail", "gmail"), re.compile(r"\S@\S")),
    "address": (frozenset({"address"}), ("address", "live", "lives", "living", "street", "road", "avenue", "lane",
                                         "drive", "apartment", "flat", "moved"), None),
    "name": (frozenset({"name", "nicknam", "first", "last", "full", "middl"}), ("name", "nickname"), None),   # (and :func:`_names_the_owner`)
}


#: What may stand between an owner word and the name it is given ("my sister Priya", "My sister is
#: Priya", "my sister's Priya", "my sister (Priya)", "My sister - Priya -", "My sister goes by Jo").
_NAME_LINK = (r"(?:\s*(?:['’]s\b|\bis\b|\bwas\b|\bare\b|\bwere\b|\b(?:goes|go|went)\s+by\b|[,:(\-–—]))*"
              r"\s*[\"“'‘]?")
_WORD_AFTER = r"([^\W\d_][\w'’-]*)"


@functools.lru_cache(maxsize=256)
def _name_forms(owner: str) -> tuple[re.Pattern, ...]:
    """The places a text gives ``owner``'s (a kin or pet word's) name without the word "name",
    group 1 the word that must read as a name (:func:`_reads_as_a_name`): the word right after
    the owner word ("my sister Priya", "My sister is Priya", "our dog, Biscuit", "my sister
    (Priya)"); after a naming "called" or "goes by" ("a sister called Jo", "we call him Rex");
    or right before "is my <owner>", "(my <owner>" or ", my <owner>" ("Priya is my sister",
    "Priya (my sister)", "Priya, my little sister"); the owner word in the plural too ("My kids:
    Leo and Mia.", "Leo and Mia are my children"); and two words joined by "and" after the owner
    word or before it ("We have two children, Leo and Mia."; groups 1 and 2)."""
    o = _owner_words(owner)
    return (re.compile(rf"(?i:\b{o}){_NAME_LINK}{_WORD_AFTER}"),
            re.compile(rf"(?i:\b(?:call(?:ed|s|ing)?|named|goes\s+by|go\s+by)\s+(?:(?:him|her|them|it)\s+)?)[\"“'‘]?"
                       rf"{_WORD_AFTER}"),
            re.compile(rf"{_WORD_AFTER}(?:\s+(?:is|was|are|were)|\s*[(,\-–—])\s*(?i:my|our)\s+(?:[\w-]+\s+)?(?i:{o})\b"
                       r"(?!['’]s)"),
            # the names of several ("My kids: Leo and Mia.", "my parents are Dr. Ann Lee and Bob Lee")
            re.compile(rf"(?i:\b{o})\W.*?{_WORD_AFTER}\s*(?:\(\d+\)\s*)?(?:,\s*|\s+)(?i:and|&)\s+(?:[\w-]+\s+)?"
                       rf"{_WORD_AFTER}", re.S),
            re.compile(rf"{_WORD_AFTER}\s*(?:,\s*|\s+)(?i:and|&)\s+{_WORD_AFTER}.*?(?i:\b{o})\b", re.S))


def _owner_words(owner: str) -> str:
    """A pattern of ``owner`` (a kin or pet word) and its plural ("kid", "kids"; "child",
    "children")."""
    o = re.escape(owner)
    return rf"(?:{o}s?|children)" if owner == "child" else rf"{o}s?"


def _reads_as_a_name(word: str) -> bool:
    """Whether ``word``, found where a text gives a name, is one: capitalised in any script
    ("Priya", "Émilie", "O'Neill"), and no pronoun, calendar word, label, kin or pet word ("I",
    "Saturday", "Mom")."""
    bare = _bare(word)
    return bare[:1].isupper() and looks_like_a_name(bare) and _kind_of(bare.lower()) is None


def _names_the_owner(owner: str, text: str) -> bool:
    """Whether ``text`` gives ``owner``'s name in one of :func:`_name_forms`; True for a text
    without a capital letter ("my sister jo called"), where a name cannot be told from a word."""
    if not any(ch.isupper() for ch in LABEL.sub("", text, count=1)):
        return True
    return _gives_a_name(owner, text)


#: A comparison before an owner word: in "Like my sister, Sam plays tennis." the word after the
#: comma is the sentence's subject, not the sister's name ("like my sister Jo" names her).
_LIKE_BEFORE = re.compile(r"\b(?:like|unlike|as\s+with|than)\s+(?:my|our)\s+(?:[\w-]+\s+)?$", re.IGNORECASE)


def _gives_a_name(owner: str, text: str) -> bool:
    """Whether ``text``, its chat label aside ("Melanie: Hey ..." gives no name), gives
    ``owner``'s name in one of :func:`_name_forms`; the word after an owner word compared with
    ("Like my sister, Sam plays tennis.") is none."""
    m = LABEL.match(text)   # (a label that holds the owner word is no speaker's: "My kids: Leo and Mia.")
    said = text if m is None or re.search(rf"(?i:\b{_owner_words(owner)}\b)", m.group(0)) else text[m.end():]
    after, called, before, *several = _name_forms(owner)
    return (any(_reads_as_a_name(m.group(1)) and ("," not in m.group(0) or _LIKE_BEFORE.search(said, 0, m.start()) is None)
                for m in after.finditer(said))
            or any(_reads_as_a_name(m.group(1)) and not _names_another(said[: m.start()], owner)
                   for m in called.finditer(said))
            or any(_reads_as_a_name(m.group(1)) for m in before.finditer(said))
            or any(_reads_as_a_name(m.group(1)) and _reads_as_a_name(m.group(2))
                   for form in several for m in form.finditer(said)))


#: Words for a person that may be anyone's kin ("a baby girl named Mira" may be a niece or a
#: daughter): a naming after one names another only for a pet, or for kin of the other sex.
_SOMEONE = frozenset("girl boy man woman guy lady person baby kid child friend".split())
_FEMALE = frozenset("girl woman lady mother mom mum mommy mummy stepmother sister daughter stepdaughter "
                    "granddaughter grandmother grandma granny aunt niece wife girlfriend fiancee".split())
_MALE = frozenset("boy man guy father dad daddy stepfather brother son stepson grandson grandfather grandpa "
                  "uncle nephew husband boyfriend fiance".split())


def _names_another(before: str, owner: str) -> bool:
    """Whether a naming word ("named", "called", "name") right after the text ``before`` names
    another than ``owner``: the nearest kin, pet or person word before it cannot be the owner
    ("Our dog is named Biscuit." for a husband's name; "My dog hates my roommate's cat, a tabby
    named Luna." for the dog's), or is a word for a person of the other sex ("They just had a
    baby girl named Mira." for a brother's). Not when that word may be the owner ("a sister called
    Jo", "my husband's name is Tom", "a baby girl named Mira" for a niece's), nor right after "his",
    "her" ("his name is Rex": whose is unknown). For a pet's name "boy" and "girl" are passed over
    ("We adopted a puppy from the shelter, a boy named Rex.": the puppy's)."""
    said = [_bare(w) for w in _TEXT_WORD.findall(LABEL.sub("", before, count=1).lower())]
    if not said or said[-1] in _THIRD_PERSON:
        return False
    pet = any(c.startswith("pet:") for c in (_kind_of(owner) or ()))
    for w in reversed(said):
        if w == owner or _may_be(w, owner):
            return False
        if w in _SOMEONE:
            if pet and w in ("boy", "girl"):
                continue
            return pet or (owner in _MALE and w in _FEMALE) or (owner in _FEMALE and w in _MALE)
        if _kind_of(w) is not None:
            return True
    return False


def _asks_a_name(stems) -> bool:
    """Whether the index terms ``stems`` of an asked thing are a name ("name", "first name")."""
    return set(stems) <= _ATTRIBUTES["name"][0] and not {"name", "nicknam"}.isdisjoint(stems)


def kin_named(question: str, text: str) -> frozenset[str]:
    """The index terms of ``question``'s kin and pet words ("dog", "mom") that ``text`` names, as
    the speaker's, by another word that may be the same one ("puppy", "golden retriever",
    "mother", "mum": :func:`_may_be`), as a synonym answers its word: "what's my dog's name?" and
    "We adopted a golden retriever puppy named Biscuit." The word must be the speaker's
    (:func:`_speakers_own`: "my mother", "our puppy", "We adopted a ... puppy"; not "Tom's
    mother", "my friend's puppy", "I'm a father"), and of the same generation ("grandson" is no
    "son") and sense ("partner" may be a tennis partner, "kitty" a poker pot, "pet" any animal).

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
    """
    asked = _kin_words(question)
    if not asked:
        return frozenset()
    from .index.tokens import tokenize

    raw = _TEXT_WORD.findall(LABEL.sub("", text, count=1).lower())
    words = [_bare(w) for w in raw]
    out: set[str] = set()
    for word in asked:
        if word in words:
            continue
        for i, w in enumerate(words):
            if (w != word and w not in _LOOSE_KIN and not w.startswith(_GENERATIONS) and _may_be(w, word)
                    and _speakers_own(raw, i)):
                out.update(tokenize(word))
                break
    return frozenset(out)


#: Kin and pet words too loose to stand for another ("pet" any animal, "partner" a tennis
#: partner, "kitty" a poker pot, "baby" anyone dear): matched only as themselves.
_LOOSE_KIN = frozenset({"pet", "pets", "partner", "partners", "kitty", "baby", "babies"})
#: Kin words of another generation or tie than the plain word ("grandson" is no "son").
_GENERATIONS = ("grand", "step", "great")
#: Verbs by which "we" or "I" make a pet or kin their own ("We adopted a puppy", "I got a kitten").
_OWNING_VERBS = frozenset("adopted got have has bought rescued brought welcomed took".split())


def _speakers_own(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` (lower-case words of a text, possessives kept) is the speaker's:
    "my" or "our" within the three words before it, with no other possessive between ("my
    mother", "our new puppy"; not "my friend's puppy", "Tom's mother", "the kids' mother"), or a
    clause opened by "I" / "we" and an owning verb ("We adopted a golden retriever puppy")."""
    for back in range(1, 4):
        if i < back:
            break
        before = words[i - back]
        if before.endswith(("'s", "’s", "s'", "s’")) or before in ("his", "her", "their", "your"):
            return False
        if before in ("my", "our"):
            return True
    head = words[max(0, i - 6):i]
    return any(a in ("i", "we") and b in _OWNING_VERBS for a, b in zip(head, head[1:]))


@functools.lru_cache(maxsize=1024)
def _kin_words(question: str) -> tuple[str, ...]:
    """The kin and pet words of ``question`` (lower case, possessives bare), once a question."""
    return tuple(w for w in dict.fromkeys(_bare_words(question))
                 if (k := _kind_of(w)) is not None and "person" not in k and "pet:*" not in k)


def names_given(question: str, text: str) -> frozenset[str]:
    """The index terms of a kin's or pet's name ``question`` asks for ("What's my sister's first
    name?": ``first``, ``name``) when ``text`` names that owner and gives a name in one of
    :func:`_name_forms` ("My sister Priya called."): the text answers the words it does not say,
    as a distance answers "how far" (:mod:`engramdb.answer_types`). Empty otherwise.

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
    """
    asked = _asked_of_another(question) if _may_ask_of_another(question) else ()
    out: set[str] = set()
    for owner, stems in asked:   # (a kin or pet word: "What is Melanie's middle name?" is no such)
        if (_asks_a_name(stems) and _kind_of(owner) is not None
                and owner in _bare_words(LABEL.sub("", text, count=1)) and _gives_a_name(owner, text)):
            out.update(stems)
    return frozenset(out)


def silent_on_the_owners(question: str, text: str) -> bool:
    """Whether ``text`` names the person whose attribute ``question`` asks for ("When is
    Daniel's birthday?", "What's Kenji's phone number?", "my sister's email", "what is my
    sister's name?") but in no word or form that gives it (:data:`_ATTRIBUTES`: "birthday",
    "born", "turns"; "phone", "cell", a number like 555-0101; "name", "named", a capitalised word
    after the owner word or a naming "called", :func:`_names_the_owner`): "Daniel is an ER nurse at
    OHSU" says nothing of his birthday, nor "My sister called while we were there." of her name,
    however well they match the question; nor does a text that names the owner only as the owner
    of another kin or pet ("My sister's boyfriend is called Dev.", "My sister's son turns 5 on May
    3.": :func:`_owns_another`). Only a birthday, phone number, email, address and
    name are asked of: their values are said in these words; anything else may be said in any
    ("What is Caroline's identity?" and "I'm a transgender woman").

    Parameters
    ----------
    question, text : str

    Returns
    -------
    bool
    """
    asked = _asked_of_another(question) if _may_ask_of_another(question) else ()
    kinds = [(owner, kind) for owner, stems in asked for kind, (asking, _words, _form) in _ATTRIBUTES.items()
             if (_asks_a_name(stems) if kind == "name" else set(stems) <= asking)]   # (no phone charger)
    if not kinds:
        return False
    low = text.lower()
    words = _TEXT_WORD.findall(low)
    bare = {w[:-2] if w.endswith(("'s", "’s")) else w for w in words}
    for owner, kind in kinds:
        _asking, said, form = _ATTRIBUTES[kind]
        # the owner as the text names it: its word, in the plural ("her two kids" for "my sister's
        # kids' names"), or a kin or pet word that may name the same ("puppy" for "dog", "mother"
        # for "mom": :func:`_may_be`)
        named = owner if owner in bare else next(
            (w for w in sorted(bare) if _may_be(w, owner)), None)
        if named is None:
            # a text naming the one the owner is asked of only as another's owner ("my sister's
            # kids" and "My sister's dog is named Rex."), or giving no name but theirs ("my
            # brother's wife" and "My brother Tom is married."), says nothing of the owner's name
            if any(other in bare and (_owns_another(words, other, owner)
                                      or (kind == "name" and _names_only(other, text)))
                   for other in _owners_of(asked, owner)):
                return True
            continue
        if _owns_another(words, named, owner):   # ("My sister's son turns 5 on May 3.")
            return True
        gives = _names_the_owner(named, text) if kind == "name" else form is not None and form.search(low) is not None
        if not gives and not any(w.startswith(said) and not (kind == "name" and _names_another(" ".join(words[:i]), named))
                                 for i, w in enumerate(words)):
            return True
    return False


#: A question that asks for a name by "called" ("what is my cat called?", "What was the band
#: called again?").
_ASKS_CALLED = re.compile(r"^\W*(?:what|which)\b.*\bcalled(?:\s+again)?\W*$", re.IGNORECASE | re.DOTALL)
#: A form of "call" in a text.
_CALL = re.compile(r"\bcall(?:ed|s|ing)?\b", re.IGNORECASE)
#: A form of "call" that names ("a cat called Miso", "we called him Rex", "is called 'Blue'"):
#: a capitalised word or a quote after it, maybe after its object.
_CALL_NAMES = re.compile(r"(?i:\bcall(?:ed|s|ing)?)\s+(?:(?i:it|him|her|them|me|us|(?:the|my|our|a) \w+)\s+)?[\"“'‘]?[A-Z]")


def calls_not_names(question: str, text: str) -> frozenset[str]:
    """The index term ``call`` when ``question`` asks for a name by "called" ("what is my cat
    called?") and ``text`` says "call" only as a phone call or a visit ("My sister Priya called.",
    "Mum called me yesterday", "I'll call the vet"): there the word matches the question but
    names nothing. Empty when the text names by it ("We got a kitten called Miso.", "we called
    him Rex") or the question asks otherwise ("who called me?").

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
        ``{"call"}`` or empty.
    """
    if not _asks_by_called(question):
        return frozenset()
    if _CALL.search(text) is None or _CALL_NAMES.search(text) is not None:
        return frozenset()
    return frozenset({"call"})


#: The senses of "work" told by the word after it: exercise ("I work out at the climbing gym"),
#: how something goes ("I work best in the mornings"), else a job.
_WORK = re.compile(r"\b(?:work|works|worked|working)\b(?:\s+(?P<next>out|outs|best|better|well|hard|harder|through)\b)?",
                   re.I)


def _work_senses(text: str) -> frozenset[str]:
    if "work" not in text.lower():   # (most texts: a substring test, not a regex)
        return frozenset()
    return frozenset("exercise" if m.group("next") in ("out", "outs") else "manner" if m.group("next") else "job"
                     for m in _WORK.finditer(text.lower()))


_asked_work_senses = functools.lru_cache(maxsize=1024)(_work_senses)   # (a question's, asked once a hit)


def works_otherwise(question: str, text: str) -> frozenset[str]:
    """The index term ``work`` when ``text`` says "work" only in another sense than ``question``
    asks it: as a job, as exercise ("work out") or as how something goes ("work best"). "Where do
    I work?" and "I work out at the Highlands climbing gym." or "I work best in the mornings at
    the coffee shop.", "Where do I work out?" and "I work at Initech.": there the word matches the
    question but says nothing of what it asks (helper-229: relevance 1.0).

    Parameters
    ----------
    question, text : str

    Returns
    -------
    frozenset of str
        ``{"work"}`` or empty.
    """
    asked = _asked_work_senses(question)
    if len(asked) != 1:
        return frozenset()
    said = _work_senses(text)
    return frozenset({"work"}) if said and asked.isdisjoint(said) else frozenset()


@functools.lru_cache(maxsize=1024)
def _asks_by_called(question: str) -> bool:
    """Whether ``question`` asks for a name by "called" (:data:`_ASKS_CALLED`; asked once a
    question, not once a hit)."""
    return "called" in question.lower() and _ASKS_CALLED.match(question) is not None


def _owns_another(words: list[str], owner: str, asked: str | None = None) -> bool:
    """Whether ``words`` (lower case) name ``owner`` only as the owner of another kin or pet
    ("my sister's cat", "my sister's boyfriend"): every "<owner>'s" followed by such a word
    that cannot be ``asked`` (the one whose thing is asked: the owner itself by default; "kid"
    for "my sister's kids' names"), and no other mention."""
    asked = owner if asked is None else asked
    seen = False
    for i, w in enumerate(words):
        if w == owner or w in (f"{owner}s", f"{owner}s'", f"{owner}s’"):
            return False
        if w in (f"{owner}'s", f"{owner}’s"):
            after = _bare(words[i + 1]) if i + 1 < len(words) else ""   # ("Kenji's wife's number")
            if _kind_of(after) is None or _may_be(after, asked):
                return False
            seen = True
    return seen


def _names_only(owner: str, text: str) -> bool:
    """Whether every word of ``text`` that reads as a name (:func:`_reads_as_a_name`) is one it
    gives ``owner`` (after the owner word: "My brother Tom is married."), or it has none; a text
    without a capital letter is never such (no name can be told from a word there)."""
    said = LABEL.sub("", text, count=1)
    if not any(ch.isupper() for ch in said):
        return False
    names = {w for w in _TEXT_WORD.findall(said) if _reads_as_a_name(w)}
    return not names.difference(m.group(1) for m in _name_forms(owner)[0].finditer(said))


def _owners_of(asked: tuple[tuple[str, tuple[str, ...]], ...], owner: str) -> list[str]:
    """The owners in ``asked`` (:func:`_asked_of_another`) whose thing is ``owner`` ("sister" of
    "kid" in "my sister's kids' names")."""
    from .index.tokens import tokenize

    stems = set(tokenize(owner))
    return [other for other, things in asked if other != owner and stems and stems <= set(things)]


def _someone_elses(words: list[str], i: int, owner: str) -> bool:
    """Whether ``words[i]`` (lower case) is named as the speaker's, the user's or a person's other
    than ``owner`` ("my number", "Lena's number")."""
    for back in (1, 2):
        before = words[i - back] if i >= back else ""
        if before.endswith(("'s", "’s")):   # ("my puppy's name": the puppy's, which may be the dog)
            return not _may_be(before[:-2], owner)
        if before in _OURS_WORDS:
            return True
    return False


def _anothers(words: list[str], i: int, pronouns_mine: bool = False) -> bool:
    """Whether ``words[i]`` (lower case) is named as another's thing (see :func:`others_only`);
    ``pronouns_mine``: "her", "his", "their" may be the user's (the text names the user)."""
    for back in (1, 2):   # "her birthday", "her phone number", "Sam's new phone"
        before = words[i - back] if i >= back else ""
        if ((before in _OTHERS_WORDS and not pronouns_mine)
                or (before.endswith(("'s", "’s")) and before[:-2] not in ("user", "my", "our"))):
            return True
        if before in ("my", "our"):
            return False
    # "Our dog is named Biscuit.", "my sister was called Jo": named as a pet's or kin's
    return (i >= 2 and words[i - 1] in ("is", "was") and _kind_of(_bare(words[i - 2])) is not None
            and words[i].startswith(("name", "call")))
