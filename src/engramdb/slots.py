"""Slots: automatic supersession of single-valued facts, and contradiction warnings.

A *slot* is a (subject, attribute) pair in one namespace, e.g. ("user", "home_city"); a memory
that fills it carries a *value* ("Lisbon"). Slots come from the caller (``slot=`` or
``subject=``/``attribute=``/``value=`` on :meth:`Engram.add` / ``add_batch`` /
``supersede``) or, when configured, from a slot extractor, a callable
``extractor(text) -> (subject, attribute, value) | None`` (``SlotConfig.extractor``; off by
default; :func:`rule_based_extractor` is a small pattern-based one, an LLM-backed callable fits
the same interface). Subjects and attributes are stored normalised (lower case, collapsed
whitespace; attributes also turn spaces into underscores: "Home City" is "home_city"), and each
name of the user's (:data:`USER_SUBJECTS`: "me", "I", "the user", "myself", "self") is stored as
``"user"`` (:func:`canonical_subject`), so ``add(..., subject="me")`` and a later ``subject="the
user"`` fill one slot, and ``profile("user")`` shows both. A store written before subjects were
made canonical keeps the user's slots under each name it was given; reads and writes take them
as one slot (:func:`slot_members`, :meth:`EngineState.slot_table`). A value
is stored as given (surrounding whitespace stripped), so "Lisbon" displays as "Lisbon", and
compared normalised ("Lisbon" and "lisbon." are the same value).

Reading slots: :meth:`Engram.current` (the current memory of a slot, or the list of current
memories of a multi-valued one), :meth:`Engram.profile` (every attribute of a subject) and the
``subject=`` / ``attribute=`` filters of ``query`` and ``recall``. Recall also finds a slot by
the words of a question (:func:`slot_cues`, :func:`subject_weights`): "what is my job?" names
the attribute ``job``, so the user's current ``job`` memory joins the seeds with a boost even
when it shares no word with the question.

Which attributes are single-valued is ``SlotConfig`` (or ``single_valued=`` per memory).
When a memory fills a single-valued slot that already has a current memory, the one that
holds later in the world wins, so the slot always has exactly one current memory:

1. newer ``valid_from`` wins; a late report of an older state is stored already superseded
   by the current one (it is history, not news);
2. equal ``valid_from``: higher confidence wins;
3. equal ``valid_from`` and confidence (an unresolvable contradiction when the values
   differ): the newer record wins, and the two are also linked by ``contradicts`` so recall
   surfaces the pair as a warning (:class:`engramdb.types.Contradiction`). Both are kept.

The loser is marked superseded (never deleted): state ``superseded``, ``superseded_by`` the
winner, ``valid_to`` the winner's ``valid_from`` (when it stopped being true), ``retired_at``
the record time, and a ``supersedes`` edge winner -> loser. Multi-valued slots accumulate.
Memories without a slot, or filling another attribute of the same subject, are never retired
(sharing an entity is not a conflict).

The slot table lives in LMDB's ``meta`` sub-database, one key per slot (a hash of namespace,
subject and attribute) listing the nids that ever filled it, written in the same transaction
as the memories.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any, Callable, Mapping

import numpy as np

from .errors import InvalidInputError
from .sentences import CLAUSE_CUT
from .speakers import LABELS, PERSON_NOUNS, looks_like_a_name
from .temporal import said_after
from .types import Contradiction, MemoryState, Relation, STATE_BY_CODE, _STATE_CODES

__all__ = ["normalise", "canonical_subject", "slot_members", "USER_SUBJECT", "normalise_attribute", "same_value", "slot_from_item", "states_more", "rule_based_extractor", "slot_key",
           "resolve_order", "retire_record", "contradiction_warnings", "said_later", "SlotExtractor", "plan_slots",
           "join_slot", "join_slot_table", "leave_slot_table", "drop_slot_table", "choose_revived", "SLOT_PREFIX",
           "ATTRIBUTE_SYNONYMS", "USER_SUBJECTS", "PERSON_NOUNS", "slot_cues", "subject_weights"]

#: Prefix of the slot table's keys in LMDB's ``meta`` sub-database (:func:`slot_key`).
SLOT_PREFIX = "slot:"

#: The extractor interface: text -> (subject, attribute, value), or None when the text fills no slot.
SlotExtractor = Callable[[str], "tuple[str, str, str] | None"]

_MAX_SLOT_CHARS = 512
_SUPERSEDED = _STATE_CODES[MemoryState.SUPERSEDED]


def normalise(s: str) -> str:
    """Lower-case, collapse whitespace, strip surrounding whitespace and final punctuation.

    Parameters
    ----------
    s : str

    Returns
    -------
    str
    """
    return " ".join(s.lower().split()).strip(" .!?;,")


#: Subjects that stand for the person speaking: a first-person question ("my", "I") names them,
#: and a slot's subject among them is stored as :data:`USER_SUBJECT` (:func:`canonical_subject`).
USER_SUBJECTS = frozenset({"user", "me", "i", "myself", "self", "the user"})
#: The stored subject of the user's own slots.
USER_SUBJECT = "user"


def canonical_subject(s: str) -> str:
    """A slot subject as stored: :func:`normalise`d, any name of the user's
    (:data:`USER_SUBJECTS`: "Me", "I", "the user") as :data:`USER_SUBJECT` ("user"), and a thing
    of theirs as the user's ("my dog", "the user's dog": "user's dog", as the rule extractor
    names it): a model or an extractor that calls the user "user" one week and "me" the next
    fills one slot, not two with a current value each.

    Parameters
    ----------
    s : str

    Returns
    -------
    str
    """
    s = normalise(s)
    if s in USER_SUBJECTS:
        return USER_SUBJECT
    owned = _USER_OWNS.match(s)
    return s if owned is None else f"{USER_SUBJECT}'s {s[owned.end():]}"


#: The words by which a subject is the user's own thing: "my dog", "the user's dog", "user's dog"
#: are "user's dog" (the rule extractor's name for the speaker's dog; helper-226 found the three
#: as three slots), and a store written before subjects were canonical may hold any of them.
_USER_OWNERS = ("my", "the user's", "user's", "the user’s", "user’s")
_USER_OWNS = re.compile("(?:" + "|".join(map(re.escape, _USER_OWNERS)) + r") (?=\S)")


def slot_members(store, txn, namespace: str, subject: str, attribute: str) -> list[int]:
    """The nids that ever filled slot (``subject``, ``attribute``) of ``namespace`` by the slot
    table in LMDB (in ``txn``), ascending. ``subject`` is canonical (:func:`canonical_subject`);
    the user's slot also gathers the members a store written before subjects were canonical
    keeps under another of :data:`USER_SUBJECTS` ("me", "the user"), and a slot of the user's
    own thing those under another owner's word ("my dog" for "user's dog")."""
    if subject == USER_SUBJECT:
        names = sorted(USER_SUBJECTS)
    elif subject.startswith(f"{USER_SUBJECT}'s "):
        thing = subject[len(USER_SUBJECT) + 3:]
        names = [f"{owner} {thing}" for owner in _USER_OWNERS]
    else:
        names = [subject]
    out: set[int] = set()
    for name in names:
        entry = store.get_meta(txn, slot_key(namespace, name, attribute))
        if entry:
            out.update(int(n) for n in entry["nids"])
    return sorted(out)


def normalise_attribute(s: str) -> str:
    """:func:`normalise`, then spaces and hyphens become underscores ("Home city" -> "home_city").

    Parameters
    ----------
    s : str

    Returns
    -------
    str
    """
    return re.sub(r"[\s\-]+", "_", normalise(s))


def same_value(a: str | None, b: str | None) -> bool:
    """Whether two slot values are the same value (compared normalised: "Lisbon" == "lisbon.")."""
    return normalise(a or "") == normalise(b or "")


def _check_part(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value or len(value) > _MAX_SLOT_CHARS:
        raise InvalidInputError(
            f"{field}: expected a non-empty string of at most {_MAX_SLOT_CHARS} characters without NUL, "
            f"got {value!r}"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(f"{field}: not valid Unicode (lone surrogate)") from None
    return value


def slot_from_item(item: Mapping[str, Any], text: str, extractor: SlotExtractor | None,
                   is_single: Callable[[str], bool]) -> tuple[str, str, str, bool] | None:
    """The slot a memory fills: (subject, attribute, value, single_valued), or None. Subject and
    attribute are normalised; the value keeps its case (surrounding whitespace stripped).

    Parameters
    ----------
    item : mapping
        The memory's fields: ``slot`` = (subject, attribute) or (subject, attribute, value), or
        ``subject`` + ``attribute`` (+ ``value``); ``single_valued`` (bool or None) overrides
        the config for this memory.
    text : str
        The memory's text; it is the value when none is given.
    extractor : callable or None
        Used only when the item names no slot.
    is_single : callable attribute -> bool
        The configured cardinality.

    Raises
    ------
    InvalidInputError
        A malformed slot (wrong arity, empty parts, subject without attribute), a bad
        ``single_valued``, or an extractor that returns something other than a 3-tuple of
        strings or None.

    Notes
    -----
    An extracted slot is dropped when the text states more than it (:func:`states_more`: "I live
    in Manchester and I work at Northwind"): the slot's next value would supersede the whole
    memory, and the employer with it. A slot the caller gives is kept whatever the text says.
    """
    slot, subject, attribute, value = (item.get(k) for k in ("slot", "subject", "attribute", "value"))
    single = item.get("single_valued")
    if single is not None and not isinstance(single, bool):
        raise InvalidInputError(f"single_valued: expected True, False or None, got {single!r}")
    if slot is not None:
        if subject is not None or attribute is not None:
            raise InvalidInputError("give slot= or subject=/attribute=, not both")
        if isinstance(slot, (str, bytes)) or not isinstance(slot, (tuple, list)) or len(slot) not in (2, 3):
            raise InvalidInputError(f"slot: expected (subject, attribute) or (subject, attribute, value), got {slot!r}")
        subject, attribute = slot[0], slot[1]
        if len(slot) == 3:
            if value is not None:
                raise InvalidInputError("the value is given twice (slot[2] and value=)")
            value = slot[2]
    elif subject is None and attribute is None:
        if value is not None:
            raise InvalidInputError("value= needs subject= and attribute= (or slot=)")
        if extractor is None:
            if single is not None:
                raise InvalidInputError("single_valued= needs a slot (slot= or subject=/attribute=)")
            return None
        got = extractor(text)
        if got is None:
            return None
        if not isinstance(got, tuple) or len(got) != 3 or not all(isinstance(x, str) and x.strip() for x in got):
            raise InvalidInputError(f"the slot extractor must return (subject, attribute, value) strings or None, got {got!r}")
        subject, attribute, value = got
        if states_more(text, value, normalise_attribute(attribute)):
            return None
    if subject is None or attribute is None:
        raise InvalidInputError("a slot needs both subject= and attribute=")
    subject = canonical_subject(_check_part(subject, "subject"))
    attribute = normalise_attribute(_check_part(attribute, "attribute"))
    value = _check_part(text if value is None else value, "value").strip()
    if not subject or not attribute or not normalise(value):
        raise InvalidInputError("slot parts must contain more than punctuation")
    return subject, attribute, value, is_single(attribute) if single is None else single


def states_more(text: str, value: str, attribute: str | None = None) -> bool:
    """Whether ``text`` states a fact besides the slot value ``value`` (of ``attribute``) an
    extractor found in it.

    It does when it states where the speaker lives or works, or their name, twice over ("I live
    in Manchester and work at Northwind", :func:`engramdb.standing.standings`), or when a sentence
    or claim of it that does not hold the value (:func:`engramdb.sentences.several_claims`,
    :func:`~engramdb.sentences.several_sentences`):

    - states another of those ("I moved to Leeds. I work at Initech now."; not "We live in
      Headingley now." for a home);
    - gives a value of something of the speaker's (:func:`engramdb.facts.frames_a_value`, its
      subject "my" or "our": "My rent is 900 pounds."; not "The city is my home now.");
    - states a health or family fact, or an identity fact other than those
      (:func:`engramdb.kinds.protected_category`: "I'm allergic to peanuts.", "My sister lives in
      Oslo.", "I turned 30 last week.", "I'm vegan.").

    The claim that holds the value states more when it states a family fact too ("I live in
    Somerville with my partner Jamie and our daughter Maya.": a move would supersede the partner
    and the daughter with the home). "I moved to Leeds. My new flat is small." and "I moved to
    Leeds and I love it." state one.

    Parameters
    ----------
    text : str
        The memory's text.
    value : str
        The slot value found in it.
    attribute : str, optional
        The slot's attribute (normalised: ``home_city``, ``employer``, ``name``, ...).
    """
    from .facts import frames_a_value
    from .kinds import protected_category
    from .sentences import several_claims, several_sentences
    from .standing import standings

    if len({got.relation for got in standings(text)}) > 1:
        return True
    parts = several_claims(text) or several_sentences(text)
    if not parts:
        return False
    own = _STANDING_RELATIONS.get(attribute or "")
    low = normalise(value)
    for part in parts:
        if low in normalise(part):
            if protected_category(part)[0] == "family":
                return True   # (helper-230: "I live in Somerville with my partner Jamie and our daughter Maya.")
            continue
        relations = {got.relation for got in standings(part)}
        if relations - {own} or (frames_a_value(part) and _MY_VALUE.match(part) is not None):
            return True
        category = protected_category(part)[0]   # (a standing of its own relation is identity too)
        if category in ("health", "family") or (category == "identity" and not relations):
            return True
    return False


#: A clause that gives something of the speaker's a value ("Also my rent is ..."), after a label.
_MY_VALUE = re.compile(r"(?:[^:\n]{1,40}:\s+)?(?:(?:also|and|but|oh|so|btw|plus|now|anyway),?\s+)*(?:my|our)\s",
                       re.IGNORECASE)


#: A slot value: up to the clause's end, a period inside it an abbreviation's ("St. Luke's
#: Hospital"; a clause is one sentence), and the end of a clause that states one now.
_VALUE = r"(?P<v>(?:[^.!?;]|\.(?=\s*\w))+?)"
_END = r"\s*[.!?]?\s*$"
_NOW_END = r"(?:,? (?:now|these days|at the moment))?" + _END
_POSSESSIVE = re.compile(r"^\s*(?P<s>[\w][\w .\-]{0,80}?)['’]s (?P<a>[a-z][\w \-]{0,60}?) (?:is|are|was|=) "
                         + _VALUE + _END, re.IGNORECASE)
_LIVES = re.compile(r"^\s*(?P<s>[\w][\w .\-]{0,80}?) (?:lives|live|now lives|now live|has moved|moved|"
                    r"relocated) (?:in|to) " + _VALUE + _END, re.IGNORECASE)


#: "<Speaker>: " opening a chat message as add_conversation and ingest_locomo store it: one to
#: four capitalised words (a name) or a chat role.
_SPEAKER = re.compile(r"^\s*(?P<sp>[A-Z][\w'.\-]*(?: [A-Z][\w'.\-]*){0,3}|user|assistant|tool|function):\s+")
#: Words that open a note as a label, not as a speaker's name ("Update: I work at Acme now").
_I_WORK = re.compile(r"^\s*I(?:'m| am)?(?: now| still| currently)? (?:work|working) (?:at|for) "
                     + _VALUE + _NOW_END, re.IGNORECASE)
_I_WORK_AS = re.compile(r"^\s*I(?:'m| am)?(?: now| still| currently)? (?:work|working) as (?:an? )?"
                        + _VALUE + _NOW_END, re.IGNORECASE)
#: A new job ("I started a new job as a product manager at Globex", "I got a job as a nurse",
#: "I just started working as a designer"): the job it names is the speaker's now.
_I_NEW_JOB = re.compile(r"^\s*I(?:'ve| have)?(?: just| recently| finally)? (?:(?:started|start|got|took|accepted|landed)"
                        r"(?: a| my| the)?(?: new)? (?:job|position|role)|started working) as (?:an? )?"
                        + _VALUE + _NOW_END, re.IGNORECASE)
#: A clause stating no current fact: negated or past ("I no longer live in", "I don't work at",
#: "I used to live in", "I never lived in").
_NEGATED = re.compile(r"\b(?:no longer|not|never|used to|anymore|any more|formerly|previously)\b|n['’]t\b",
                      re.IGNORECASE)
#: Words opening a clause as discourse, not as its subject ("Actually I now live in Lyon").
_DISCOURSE = re.compile(r"^(?:(?:actually|so|well|oh|ok|okay|also|and|but|btw|anyway|update|fyi|good news|"
                        r"just|recently|finally|luckily|plus|"
                        r"by the way|just so you know|as of now|guess what|now|(?:big|great|exciting|some|fun) news|news|heads up|"
                        r"ps|p\.s\.|life update|quick update)\b[,:!]?\s+)+", re.IGNORECASE)
#: A value's trailing words that are no part of it.
_TRAILING = re.compile(r"(?:\s+(?:since|until|till)\b.*|(?:\s+(?:now|these days|at the moment|recently|for good|"
                       r"too|as well))+)$", re.IGNORECASE)
#: A clause that is no statement of the present: a hypothetical, a plan, a wish.
_HYPOTHETICAL = re.compile(r"(?i:^(?:if|what if|maybe|perhaps|suppose|imagine|when|once|unless|do|does|did|are|is|"
                           r"would|could|should|can)\b)|\b(?:will|would|could|might|should|want to|plan to|"
                           r"going to|hope to|wish|if)\b")   # (lower case inside: "Will lives in Boston" is a name)
_ARTICLES = frozenset({"a", "an", "the", "some", "my", "our", "this", "that"})
#: Words before "'s" that own nothing: "he's saying", "it's great that", "that's" are "he is", ...
_NO_POSSESSOR = frozenset("he she it that there here what who where when how why let this one everyone "
                          "someone anyone nobody everybody somebody".split())
#: A subject of the speaker's own ("my dog", "our flat").
_MY_SUBJECT = re.compile(r"(?:my|our)\s+", re.IGNORECASE)
_SPEAKER_SUBJECTS = frozenset({"i", "we", "my family and i", "my wife and i", "my husband and i", "my partner and i"})
_I_LIVE = re.compile(r"^\s*I(?:'m| am|'ve| have)?(?: now| still| just| recently| finally| officially| already)? "
                     r"(?:live|living|moved|relocated) "
                     r"(?:in|to) " + _VALUE + _NOW_END,
                     re.IGNORECASE)


def rule_based_extractor(text: str, speaker: str | None = None) -> tuple[str, str, str] | None:
    """A tiny slot extractor for a few English patterns (off unless configured).

    * "X's Y is Z" -> (X, Y, Z), e.g. "Ana's employer is Acme." -> ("Ana", "employer", "Acme")
    * "X lives in Z" / "X moved to Z" -> (X, "home_city", Z)
    * first person, said by the speaker: "I work at Z" / "I work for Z" -> (speaker,
      "employer", Z); "I work as a Z", "I started a new job as a Z", "I got a job as a Z", "I
      just started working as a Z" -> (speaker, "job", Z); "I live in Z" / "I moved to Z" ->
      (speaker, "home_city", Z); a role's value runs past a comma, cut there ("I work as a
      data engineer at Initech, so ..." -> "data engineer at Initech", as without the clause)

    A first-person fact belongs to whoever says it. The speaker is ``speaker`` when given,
    else the ``"<Speaker>: "`` that opens a chat message as :meth:`engramdb.Engram.add_conversation`
    and LoCoMo ingest store it (``"Caroline: I work at Acme."`` -> ``("Caroline", "employer",
    "Acme")``; a name of one to four capitalised words, or a chat role such as ``user``), else
    ``"user"`` (a memory an agent keeps about its user). Such a prefix is left out of the
    pattern match, so ``"Mel: Bob moved to Boston."`` is Bob's fact.

    Parameters
    ----------
    text : str
    speaker : str, optional
        Who said ``text``.

    Failing those patterns, the speaker's home or employer in the many wordings
    :mod:`engramdb.standing` reads ("We relocated again, we're now living in Portland", "I
    started a new job at Globex") fills ``home_city`` or ``employer``.

    A message of several sentences is read clause by clause (the first clause that states a
    slot gives it); a leading discourse word is skipped ("Actually I now live in Lyon"), a
    negated or past clause states nothing ("I no longer live in Berlin", "I used to live in
    Rome"), "we" is the speaker too ("We moved to Porto"), a label such as "Big news:" is
    skipped, and a value ends before a comma, a trailing time ("I moved to Paris last week" ->
    "Paris") or the words after a name (:func:`_name_run`: "Porto with my wife", "Acme as a
    nurse"; "Bank of the West" stays whole).

    Returns
    -------
    (str, str, str) or None
        None when no clause matches a pattern whole (after a speaker prefix).
    """
    m = _SPEAKER.match(text)
    if m:
        if m["sp"].lower().split()[-1] not in LABELS:   # "Note: I moved to Porto", "Big News: ..." are the user's
            speaker = speaker or m["sp"]
        text = text[m.end():]
    who = (speaker or "").strip() or "user"
    for clause in _clauses(text):
        found = _clause_slot(clause, who)
        if found is not None:
            subject, attribute, value = found
            value = _bare_value(value, attribute)
            if value:
                return subject, attribute, value
    return _standing_slot(text, who)


def _standing_slot(text: str, who: str) -> tuple[str, str, str] | None:
    """The speaker's home or employer in the words :mod:`engramdb.standing` reads ("we're now
    living in Portland", "I started a new job at Globex", "I was hired at Initech"), as a slot of
    ``who``: (who, "home_city" or "employer", the name as written), or None."""
    from .standing import standing

    got = standing(text)
    if got is None:
        return None
    m = re.search(r"(?<!\w)" + r"[\W_]+".join(re.escape(w) for w in got.value) + r"(?!\w)", text, re.IGNORECASE)
    return (who, _STANDING_ATTRIBUTES[got.relation], m.group(0)) if m else None


#: The slot attribute of each relation of :mod:`engramdb.standing`.
_STANDING_ATTRIBUTES = {"home": "home_city", "employer": "employer", "name": "name"}
#: The relation of :mod:`engramdb.standing` each of those slot attributes holds.
_STANDING_RELATIONS = {attribute: relation for relation, attribute in _STANDING_ATTRIBUTES.items()}


def _clauses(text: str) -> list[str]:
    """The sentences of ``text``, each cut at ``; `` and before a new first-person clause
    (", and I ...", " and we ..."), without a leading discourse word ("Actually", "So", ...)."""
    from .sentences import split_sentences

    out = []
    for sentence in split_sentences(text) or [text]:
        for part in CLAUSE_CUT.split(sentence):
            part = _DISCOURSE.sub("", part.strip())
            if part:
                out.append(part)
    return out


def _clause_slot(clause: str, who: str) -> tuple[str, str, str] | None:
    """The slot one clause states, or None: a negated or past one states none ("I no longer
    live in Berlin", "I used to live in Rome"), nor a question or a hypothetical ("Do you still
    live in Berlin?", "Maybe I will move to Rome")."""
    if _NEGATED.search(clause) or clause.rstrip().endswith("?") or _HYPOTHETICAL.search(clause):
        return None
    m = _POSSESSIVE.match(clause)
    if m and m["s"].strip().lower() not in _NO_POSSESSOR:
        # "My dog's name is Biscuit" is the speaker's dog's (two speakers' dogs are two slots)
        subject = m["s"].strip()
        mine = _MY_SUBJECT.match(subject)
        if mine:
            subject = f"{who}'s {subject[mine.end():]}"
        return subject, m["a"].strip(), m["v"].strip()
    for pattern, attribute in ((_I_WORK, "employer"), (_I_WORK_AS, "job"), (_I_NEW_JOB, "job"),
                               (_I_LIVE, "home_city")):
        m = pattern.match(clause)
        if m:
            return who, attribute, m["v"].strip()
    m = _LIVES.match(clause)
    if m:
        subject = m["s"].strip()
        if subject.lower() in _SPEAKER_SUBJECTS:
            return who, "home_city", m["v"].strip()
        if looks_like_a_name(subject):   # "Bob", "Ana Lima": not "People who", "Do you still"
            return subject, "home_city", m["v"].strip()
    return None


def _bare_value(value: str, attribute: str) -> str:
    """A slot value without what follows it in the clause: a comma's apposition ("Lisbon, in
    Alfama"), a trailing time ("Paris last week", "Porto since March") or "now"; empty when
    what is left names nothing: a place without a capitalised word ("I live in hope"), an
    employer without one or an article ("I work at night"; "a shelter" is one), any value
    without a letter or only an article."""
    from .standing import names_no_place
    from .timeref import resolve_time_refs

    value = value.split(",")[0].strip()
    for window in resolve_time_refs(value, 0.0):   # (the anchor does not matter: only the text)
        if value.endswith(window.text):
            value = value[: -len(window.text)]
    value = _TRAILING.sub("", value).strip(" .!?")
    words = value.split()
    if not any(c.isalpha() for c in value) or (words and all(w.lower() in _ARTICLES for w in words)):
        return ""
    named = any(w[:1].isupper() or w[:1].isdigit() for w in words)
    if (attribute == "home_city" and not named) or (attribute == "employer" and not named
                                                    and words[0].lower() not in _ARTICLES):
        return ""   # "I live in hope", "I work at night", "I work for money" ("a shelter" is one)
    if attribute == "employer" and " ".join(words).lower() in _NOT_EMPLOYERS:
        return ""   # "I'm working at the moment", "I work for a living"
    if attribute in ("home_city", "employer"):
        run = _name_run(words)
        # "Yoga moved to 7pm.", "We moved to Tuesdays.", "I moved to Apartment 4B": no home
        relation = "home" if attribute == "home_city" else "employer"
        return "" if names_no_place(run.lower().split(), relation) else run
    return value


#: Lower-case words inside a name, before a capitalised word (or an article and one): "Bank of
#: America", "Bank of the West", "Rio de Janeiro", "Santa Cruz de la Sierra", "Teach for America",
#: "the University of Texas at Austin", "Frankfurt am Main", "Trinidad and Tobago", "Johnson &
#: Johnson".
_NAME_GLUE = frozenset("of de da do dos das du la le del della di von van der den am im upon and & y e for to at".split())
_NAME_ARTICLES = frozenset("the la le los las el l' d'".split())
#: Capitalised words that name a time, not a place or an employer ("Acme on Mondays").
_TIME_NAMES = frozenset(w.capitalize() for w in (
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays january february march april may june july august september october november "
    "december christmas easter".split()))
#: Lower-case words that end a named value: prepositions and conjunctions ("Porto with my wife",
#: "Acme as a nurse", "New York City but work in Jersey"), unless they glue a name.
_VALUE_STOP = _NAME_GLUE | frozenset(
    "but or so with as because since while where which who that in on by after before until though although "
    "if when than near from during out like right currently permanently temporarily again still back remotely "
    "part-time full-time part full lol haha anymore already too also".split())
#: What "I work at / for ..." names that is no employer.
_NOT_EMPLOYERS = frozenset({"the moment", "the minute", "the office", "the time", "a living", "the weekend",
                            "this point", "that point", "home"})


def _name_run(words: list[str]) -> str:
    """A named value without the clause that follows it.

    A value that opens with a capitalised word (after an optional "the") keeps its capitalised
    words, the lower-case words right after them ("the LGBTQ center") and the glue between two
    names ("Bank of the West", "Teach for America"); it ends at a preposition or conjunction that
    glues no name ("Porto with my wife", "Acme as a nurse", "Porto for work") or at a lower-case
    word after glue ("Porto and Ana lives in Lisbon" -> "Porto"). A value that opens otherwise ("a
    small town near Porto") is left as said."""
    start = 1 if len(words) > 1 and words[0].lower() == "the" else 0
    if not (words[start][:1].isupper() or words[start][:1].isdigit()):
        return " ".join(words)
    end, glued = start + 1, None   # glued: where the value ended before the last glue
    while end < len(words):
        w = words[end]
        if w[:1].isupper() or w[:1].isdigit():
            end += 1
            continue
        low = w.lower()
        if low not in _VALUE_STOP and not w[:1].isalpha():
            break   # "Porto :)"
        if low not in _VALUE_STOP:
            if glued is not None:   # a verb after "and Ana": the glue joined no name
                end = glued
                break
            end += 1
            continue
        nxt = end + 1
        if nxt < len(words) and words[nxt].lower() in _NAME_ARTICLES:
            nxt += 1
        if (low in _NAME_GLUE and nxt < len(words) and words[nxt][:1].isupper()
                and words[nxt].strip(".,!?") not in _TIME_NAMES):
            glued = end
            end = nxt + 1
            continue
        break
    return " ".join(words[:end])


def slot_key(namespace: str, subject: str, attribute: str) -> str:
    """The ``meta`` key of a slot (a hash keeps it under LMDB's 511-byte key limit).

    Parameters
    ----------
    namespace, subject, attribute : str
        Normalised slot parts.

    Returns
    -------
    str
        ``"slot:"`` + SHA-256 hex digest of the NUL-joined parts.
    """
    digest = hashlib.sha256("\x00".join((namespace, subject, attribute)).encode()).hexdigest()
    return SLOT_PREFIX + digest


def resolve_order(new_vf: float, new_conf: float, old_vf: float, old_conf: float) -> tuple[bool, bool]:
    """Whether a newcomer wins a single-valued slot over the current memory, and whether the
    outcome was decided by record order alone (a tie in valid time and confidence).

    Parameters
    ----------
    new_vf, old_vf : float
        ``valid_from`` of the newcomer and of the current memory, Unix seconds UTC.
    new_conf, old_conf : float
        Their confidences, in [0, 1].

    Returns
    -------
    (newcomer_wins, tie) : (bool, bool)
    """
    if new_vf != old_vf:
        return new_vf > old_vf, False
    if new_conf != old_conf:
        return new_conf > old_conf, False
    return True, True


def retire_record(rec: dict, successor_id: str, successor_valid_from: float, now: float) -> dict:
    """Mark a stored record superseded by ``successor_id`` (in place; also returned).

    ``valid_to`` becomes the successor's ``valid_from`` (never before the record's own
    ``valid_from``, never after a ``valid_to`` it already had); ``retired_at`` is ``now`` (the
    successor's record time), never before the record's own ``recorded_at``.

    Parameters
    ----------
    rec : dict
        A stored record.
    successor_id : str
    successor_valid_from : float
        Unix seconds UTC.
    now : float
        Record time of the supersession (the successor's ``recorded_at``), Unix seconds UTC.

    Returns
    -------
    dict
        ``rec``.
    """
    vf = rec.get("valid_from", rec["created_at"])
    end = max(float(successor_valid_from), float(vf))
    vt = rec.get("valid_to")
    rec["valid_to"] = end if vt is None else min(float(vt), end)
    rec["state"] = MemoryState.SUPERSEDED.value
    rec["superseded_by"] = successor_id
    rec["retired_at"] = max(float(now), float(rec["recorded_at"]))
    return rec


def plan_slots(unit, prepared: list) -> list[tuple[int, int, int, float]]:
    """Resolve the slots of a batch of new memories inside a write unit.

    Items are taken in batch order (a batch equals the same items added one by one). Sets
    the new memories' state / ``superseded_by`` / ``valid_to`` / ``retired_at`` on the
    prepared items and writes the stored holders it retires through ``unit``. The slot table
    itself gains each new member when its record is inserted (``WriteUnit.insert``).

    Parameters
    ----------
    unit : engramdb.write.WriteUnit
        The open write unit of the batch.
    prepared : list of engramdb.write.records.Prepared
        The validated batch, nids assigned.

    Returns
    -------
    list of (src nid, tgt nid, relation code, weight)
        ``supersedes`` (and, on a tie, ``contradicts``) edges to add.
    """
    entries: dict[str, list[int]] = {}
    stored: dict[int, dict] = {}      # stored records read (and maybe retired) in this batch
    by_nid = {p.nid: p for p in prepared}
    edges: list[tuple[int, int, int, float]] = []

    def view(nid: int) -> tuple[str, float, float, str | None, bool]:
        """(id, valid_from, confidence, value, current) of a slot member, batch-aware."""
        p = by_nid.get(nid)
        if p is not None:
            return p.ext_id, p.valid_from, p.confidence, p.slot_value, p.state is MemoryState.ACTIVE
        rec = stored.get(nid)
        if rec is None:
            rec = unit.record(nid)
            if rec is None:
                return "", 0.0, 0.0, None, False
            stored[nid] = rec
        return (rec["id"], rec.get("valid_from", rec["created_at"]), rec["confidence"], rec.get("value"),
                rec["state"] != MemoryState.SUPERSEDED.value and rec.get("superseded_by") is None)

    retired: dict[int, dict] = {}
    for p in prepared:
        if p.subject is None:
            continue
        now = p.recorded_at   # this item's record time: when it retires a holder
        key = slot_key(p.namespace, p.subject, p.attribute)
        members = entries.get(key)
        if members is None:
            members = entries[key] = slot_members(unit.store, unit.txn, p.namespace, p.subject, p.attribute)
        if p.single and p.slot_mode == "auto":
            holders = [(nid, view(nid)) for nid in members]
            holders = [(nid, v) for nid, v in holders if v[4] and nid != p.nid]
            if holders:
                # the strongest current holder (normally the only one)
                best_nid, best = max(holders, key=lambda h: (h[1][1], h[1][2], h[0]))
                wins, tie = resolve_order(p.valid_from, p.confidence, best[1], best[2])
                if wins:
                    for nid, (hid, *_rest) in holders:
                        _retire(nid, p, now, by_nid, stored, retired)
                        edges.append((p.nid, nid, Relation.SUPERSEDES.code, 1.0))
                        if tie and not same_value(_rest[2], p.slot_value):
                            edges.append((p.nid, nid, Relation.CONTRADICTS.code, 1.0))
                else:
                    p.state = MemoryState.SUPERSEDED
                    p.superseded_by = best[0]
                    p.valid_to = max(best[1], p.valid_from) if p.valid_to is None else min(p.valid_to, max(best[1], p.valid_from))
                    p.retired_at = now
                    edges.append((best_nid, p.nid, Relation.SUPERSEDES.code, 1.0))
                    # a backfilled value: the earlier value valid when it starts ends there
                    # (Lisbon 2020, Porto 2023, then Braga 2022: Lisbon's validity ends in 2022)
                    for nid in members:
                        if _cut_at(nid, p, by_nid, stored, retired):
                            edges.append((p.nid, nid, Relation.SUPERSEDES.code, 1.0))
        members.append(p.nid)
    for nid, rec in retired.items():
        unit.put_record(nid, rec)
    return edges


def join_slot_table(store, txn, nid: int, namespace: str, subject: str, attribute: str) -> None:
    """Add ``nid`` to the members of slot (subject, attribute) in ``namespace`` (in ``txn``)."""
    key = slot_key(namespace, subject, attribute)
    entry = store.get_meta(txn, key) or {"namespace": namespace, "subject": subject, "attribute": attribute,
                                         "nids": []}
    if nid not in entry["nids"]:
        entry["nids"].append(nid)
        store.put_meta(txn, key, entry)


def leave_slot_table(store, txn, nid: int, namespace: str, subject: str, attribute: str) -> None:
    """Drop the erased ``nid`` from the members of its slot (in ``txn``)."""
    key = slot_key(namespace, subject, attribute)
    entry = store.get_meta(txn, key)
    if entry is not None and nid in entry["nids"]:
        entry["nids"].remove(nid)
        store.put_meta(txn, key, entry)


def drop_slot_table(store, txn, namespace: str) -> int:
    """Delete every slot table entry of ``namespace`` (in ``txn``); returns how many."""
    doomed = [key for key, entry in store.meta_items(txn, SLOT_PREFIX)
              if isinstance(entry, dict) and entry.get("namespace") == namespace]
    for key in doomed:
        store.delete_meta(txn, key)
    return len(doomed)


def _cut_at(nid: int, newcomer, by_nid: dict, stored: dict, retired: dict) -> bool:
    """End the validity of slot member ``nid`` where the backfilled ``newcomer`` starts, when it
    was valid then (``valid_from < newcomer.valid_from < valid_to``): its successor becomes the
    newcomer. Returns whether it did."""
    start = newcomer.valid_from
    q = by_nid.get(nid)
    if q is not None:
        if q is not newcomer and q.valid_from < start and q.valid_to is not None and q.valid_to > start:
            q.valid_to, q.superseded_by = start, newcomer.ext_id
            return True
        return False
    rec = retired.get(nid) or stored.get(nid)
    if rec is None:
        return False
    vt = rec.get("valid_to")
    if rec.get("valid_from", rec["created_at"]) < start and vt is not None and vt > start:
        rec["valid_to"], rec["superseded_by"] = start, newcomer.ext_id
        retired[nid] = rec
        return True
    return False


def _retire(nid: int, winner, now: float, by_nid: dict, stored: dict, retired: dict) -> None:
    p = by_nid.get(nid)
    if p is not None:   # an earlier item of the same batch
        p.state = MemoryState.SUPERSEDED
        p.superseded_by = winner.ext_id
        end = max(winner.valid_from, p.valid_from)
        p.valid_to = end if p.valid_to is None else min(p.valid_to, end)
        p.retired_at = max(now, p.recorded_at)
        return
    retired[nid] = retire_record(stored[nid], winner.ext_id, winner.valid_from, now)


#: Most ``contradicts`` partners outside the hits a recall warns about, per hit.
WARNINGS_PER_HIT = 3


def said_later(warnings) -> dict[str, list[str]]:
    """Of a recall's ``warnings`` (:class:`engramdb.types.Contradiction`, as
    :func:`contradiction_warnings` makes them): each memory said otherwise later -> the ids of
    the memories that say otherwise, in order (what the retrievers put in a hit's metadata, and
    how ``context()`` explains a hit brought in as the value before a change)."""
    out: dict[str, list[str]] = {}
    for w in warnings:
        if w.later is None:
            continue
        earlier = w.target if w.later == w.source else w.source
        if w.later not in out.setdefault(earlier, []):
            out[earlier].append(w.later)
    return out


def contradiction_warnings(csr, hit_nids: list[int], state: np.ndarray, alive: np.ndarray,
                           ext_ids: list, contradicts_code: int,
                           per_hit: int = WARNINGS_PER_HIT, valid_from: np.ndarray | None = None,
                           supersedes_code: int | None = None) -> list[Contradiction]:
    """The ``contradicts`` pairs touching the hits, each pair once, in hit order: every pair of
    two hits, and at most ``per_hit`` pairs of a hit with a memory that is no hit (a memory
    contradicted by hundreds, e.g. templated notes that differ by a number, would otherwise
    bury the hits under warnings). With ``valid_from`` and ``supersedes_code``, a pair that a
    supersession resolved is left out: one of the two supersedes the other and is valid later
    (``supersede(old, by=new)`` after the write path linked them ``contradicts``); two values
    of one valid time, both superseding and contradicting (slot resolution's tie), stay.

    Parameters
    ----------
    csr : CSRGraph
        The recall CSR (each edge in both rows, with ``forward``).
    hit_nids : list of int
    state : ndarray of uint8, shape (n,)
        State codes by nid.
    alive : ndarray of bool, shape (n,)
    ext_ids : list of str
        Caller ids by nid.
    contradicts_code : int
        ``Relation.CONTRADICTS.code``.
    per_hit : int
        Most pairs of one hit with a memory outside the hits.
    valid_from : ndarray of float64, shape (n,), optional
        Valid-from times by nid (seconds): which of each pair is later (``Contradiction.later``).
    supersedes_code : int, optional
        ``Relation.SUPERSEDES.code``.

    Returns
    -------
    list of Contradiction
    """
    hits_arr = np.asarray([u for u in hit_nids if u < csr.n_nodes], np.int64)
    if len(hits_arr) == 0:
        return []
    # every CSR position of the hits' rows at once (a few vector ops, not one slice per hit)
    starts, ends = csr.indptr[hits_arr], csr.indptr[hits_arr + 1]
    lengths = ends - starts
    pos = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
    sel = np.flatnonzero(csr.relation[pos] == contradicts_code)
    out, seen = [], set()
    if len(sel) == 0:
        return out
    hits = set(hit_nids)
    rows = np.repeat(hits_arr, lengths)[sel].tolist()
    outside: dict[int, int] = {}   # hit -> its pairs with memories that are no hit
    for u, j in zip(rows, pos[sel].tolist()):
        v = int(csr.indices[j])
        if not alive[v]:
            continue
        src, tgt = (u, v) if csr.forward[j] else (v, u)
        if (src, tgt) in seen or (supersedes_code is not None and _resolved(csr, u, v, valid_from, supersedes_code)):
            continue
        if v not in hits:
            if outside.get(u, 0) >= per_hit:
                continue
            outside[u] = outside.get(u, 0) + 1
        seen.add((src, tgt))
        later = None if valid_from is None else src if said_after(valid_from[src], src, valid_from[tgt], tgt) else tgt
        out.append(Contradiction(ext_ids[src], ext_ids[tgt], STATE_BY_CODE[int(state[src])],
                                 STATE_BY_CODE[int(state[tgt])], src in hits, tgt in hits,
                                 None if later is None else ext_ids[later]))
    return out


def _resolved(csr, u: int, v: int, valid_from: np.ndarray, supersedes_code: int) -> bool:
    """Whether one of ``u``, ``v`` supersedes the other and is valid later (the row of ``u``
    holds each edge of the two, in either direction, with ``forward``)."""
    lo, hi = int(csr.indptr[u]), int(csr.indptr[u + 1])
    at = lo + np.flatnonzero((csr.indices[lo:hi] == v) & (csr.relation[lo:hi] == supersedes_code))
    for j in at.tolist():
        newer, older = (u, v) if csr.forward[j] else (v, u)
        if valid_from[newer] > valid_from[older]:
            return True
    return False


def join_slot(unit, nid: int, namespace: str, subject: str, attribute: str, multi: bool = False) -> None:
    """Make the stored memory ``nid`` (which fills no slot) a member of (subject, attribute),
    its value being its text; used when it explicitly supersedes the slot's holder.
    ``multi``: the slot's cardinality as recorded on the superseded memory."""
    rec = unit.record(nid)
    rec["subject"], rec["attribute"], rec["value"] = subject, attribute, rec["text"].strip()
    if multi:
        rec["multi"] = True
    unit.put_record(nid, rec)
    join_slot_table(unit.store, unit.txn, nid, namespace, subject, attribute)


def choose_revived(records: dict[int, dict]) -> dict[int, int]:
    """When the memory that superseded ``records`` is erased, which of them become current again.

    Memories filling the same single-valued slot compete as on arrival (later ``valid_from``,
    then higher confidence, then the later record), a memory forgotten (archived) before it was
    superseded after any other: the winner is revived, the others are re-pointed at it (e.g. a
    late report the erased memory had superseded). Memories without a slot, or in a
    multi-valued slot, are all revived.

    Parameters
    ----------
    records : dict nid -> record
        The stored records whose ``superseded_by`` is the erased memory.

    Returns
    -------
    dict nid -> nid
        Memories to keep superseded, each mapped to the revived memory that now supersedes it.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for nid, rec in records.items():
        if rec.get("subject") is not None and not rec.get("multi"):
            groups.setdefault((canonical_subject(rec["subject"]), rec["attribute"]), []).append(nid)
    repoint = {}
    for members in groups.values():
        best = max(members, key=lambda n: (records[n].get("archived_at") is None,
                                           records[n].get("valid_from", records[n]["created_at"]),
                                           records[n]["confidence"], n))
        repoint.update({n: best for n in members if n != best})
    return repoint


# ---------------------------------------------------------------------- slot cues in questions
#: Question words that name an attribute besides the attribute's own words, for recall's slot
#: cues (:func:`slot_cues`). A key is a whole attribute ("home_city") or one word of one
#: ("city", "favourite"); a question word matches in its plain form or with a plural or verb
#: ending removed ("lives" -> "live", "worked" -> "work"). Small on purpose: rule-based, no
#: model; extend it (a mapping you pass to :func:`slot_cues`) for your own attributes.
ATTRIBUTE_SYNONYMS: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in {
    "home_city": ("live", "reside", "based", "home", "hometown", "town", "city"),
    "home": ("live", "reside", "house", "flat", "apartment"),
    "address": ("live", "street", "address"),
    "job": ("job", "work", "occupation", "profession", "career", "employ", "employer", "role", "position"),
    "employer": ("work", "employ", "company", "firm", "boss", "job"),
    "school": ("school", "study", "class", "college", "university", "student", "kindergarten"),
    "birthday": ("birthday", "born", "birth"),
    "age": ("age", "old"),
    "name": ("name", "called"),
    "partner": ("partner", "wife", "husband", "spouse", "married", "girlfriend", "boyfriend"),
    "children": ("child", "children", "kid", "son", "daughter"),
    "phone": ("phone", "mobile", "number"),
    "email": ("email", "mail"),
    "diet": ("diet", "eat", "vegetarian", "vegan", "allergy", "allergic"),
    "favourite": ("favourite", "favorite", "like", "love", "prefer"),
    "favorite": ("favourite", "favorite", "like", "love", "prefer"),
    "pet": ("pet", "dog", "cat"),
    "hobby": ("hobby", "pastime", "free"),
}.items()}

_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "im", "ive"})
#: Capitalised words that name no person (a question "in May" or "on Monday" names nobody).
_NOT_NAMES = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
})
_MY = frozenset({"my", "our"})
_CAPITALISED_RE = re.compile(r"\b[A-Z][^\W\d_]+")
_GLUE = frozenset({"of", "the", "a", "an", "in", "at", "to", "for", "and", "or", "on", "is", "my", "s"})
_WORD_RE = re.compile(r"[^\W_]+")


def _forms(word: str) -> set[str]:
    """A question word and its forms without a plural or verb ending ("studies" -> "study")."""
    out = {word}
    if len(word) > 3:
        if word.endswith("ies"):
            out.add(word[:-3] + "y")
        if word.endswith("es"):
            out.add(word[:-2])
        if word.endswith("s") and not word.endswith("ss"):
            out.add(word[:-1])
        if word.endswith("ing"):
            out.update((word[:-3], word[:-3] + "e"))
        if word.endswith("ed"):
            out.update((word[:-2], word[:-1]))
    return out


def _doers(word: str) -> set[str]:
    """The doer of an inflected verb, which names its slot: "owns" / "owned" -> "owner",
    "manages" -> "manager", "leads" -> "leader"; none for a bare word ("use" is no "user")."""
    return {f + ("r" if f.endswith("e") else "er") for f in _forms(word) - {word} if len(f) > 2 and f.isalpha()}


def _question_forms(question: str) -> set[str]:
    forms: set[str] = set()
    for w in _WORD_RE.findall(question.lower().replace("'", "").replace("\u2019", "")):
        forms |= _forms(w)
    return forms


def slot_cues(question: str, attributes, synonyms: Mapping[str, frozenset[str]] | None = None) -> dict[str, float]:
    """Attributes a question names, with how fully it names each: attribute -> match in (0, 1].

    Rules: a question word (:func:`_forms` of it) that is a synonym of the whole attribute
    (:data:`ATTRIBUTE_SYNONYMS`) names it fully ("where do I live?" -> ``home_city`` 1.0);
    otherwise the match is the share of the attribute's words (split at "_", glue words such as
    "of" left out) that the question holds, each word itself or one of its synonyms
    ("what is my favourite food?" -> ``favourite_food`` 1.0, "any food tips?" -> 0.5). An
    inflected verb names its doer (:func:`_doers`: "who owns billing?" -> ``owner``).

    Parameters
    ----------
    question : str
    attributes : iterable of str
        Normalised attribute names (a namespace's slots).
    synonyms : mapping str -> frozenset of str, optional
        :data:`ATTRIBUTE_SYNONYMS` when omitted.

    Returns
    -------
    dict of str -> float
        Only the attributes named at all.
    """
    syn = ATTRIBUTE_SYNONYMS if synonyms is None else synonyms
    forms = _question_forms(question)
    forms |= {d for w in _WORD_RE.findall(question.lower()) for d in _doers(w)}   # "who owns ...?" -> owner
    out: dict[str, float] = {}
    for attr in attributes:
        if not syn.get(attr, frozenset()).isdisjoint(forms):
            out[attr] = 1.0
            continue
        parts = [w for w in attr.split("_") if w and w not in _GLUE]
        if not parts:
            continue
        hit = sum(1 for w in parts if w in forms or not syn.get(w, frozenset()).isdisjoint(forms))
        if hit:
            out[attr] = hit / len(parts)
    return out


def subject_weights(question: str, subjects, asked=()) -> dict[str, float]:
    """How surely a question is about each slot subject: subject -> 1.0, 0.5 or 0.

    A subject is *named* when all its words are in the question ("ana", "pro plan"); a
    first-person question ("my", "I") names the user-like subjects (:data:`USER_SUBJECTS`) unless
    it names another subject ("my son's school" is the son's) or another person (see below).
    Named subjects weigh 1 and the others 0. When the question names none, every subject weighs
    0.5, except the user-like ones when it names another person: 0 then ("where does my brother
    live?", "where does Tomas live?" ask nothing of the user's home).

    Another person is named by "my" / "our" followed within two words by a person noun
    (:data:`PERSON_NOUNS`: "my older brother", "my wife's job"), unless that noun is itself a
    synonym of every attribute asked ("who is my wife?" asks the user's ``partner``); or, in a
    question without a first-person word, by a capitalised word past the first that is no
    month or weekday ("Tomas").

    Parameters
    ----------
    question : str
    subjects : iterable of str
        Normalised subjects (a namespace's slots).
    asked : iterable of str
        The attributes the question names (:func:`slot_cues`), for the exception above.

    Returns
    -------
    dict of str -> float
    """
    forms = _question_forms(question)
    subjects = list(subjects)
    first_person = not forms.isdisjoint(_FIRST_PERSON)
    named = {s for s in subjects if _subject_words(s, question) <= forms}
    other = _names_other_person(question, first_person, list(asked))
    if first_person and not other and not (named - USER_SUBJECTS):
        named |= {s for s in subjects if s in USER_SUBJECTS}
    if not named:
        return {s: 0.0 if other and s in USER_SUBJECTS else 0.5 for s in subjects}
    return {s: 1.0 if s in named else 0.0 for s in subjects}


def _subject_words(subject: str, question: str) -> set[str]:
    """The words ``question`` names ``subject`` by: all its words; for a possession of the user's
    ("user's dog", as :func:`rule_based_extractor` stores "my dog"), when the question says "my"
    or "our" right before it, the words of what is possessed ("what is my dog's name?"; not
    "remind me what Mel's dog is called", nor "what's my sister's dog called?")."""
    owner, sep, rest = subject.partition("'s ")
    if sep and owner in USER_SUBJECTS:
        words = _WORD_RE.findall(rest)
        if re.search(r"\b(?:my|our)\s+" + r"\s+".join(map(re.escape, words)) + r"\b", question.lower()):
            return set(words)
    return set(_WORD_RE.findall(subject.replace("'s ", " ")))


def _names_other_person(question: str, first_person: bool, asked: list[str]) -> bool:
    """Whether ``question`` names a person other than the speaker (:func:`subject_weights`)."""
    words = _WORD_RE.findall(question.lower().replace("'", "").replace("\u2019", ""))
    for i, w in enumerate(words):
        if w not in _MY:
            continue
        for nxt in words[i + 1:i + 3]:
            person = _forms(nxt) & PERSON_NOUNS
            if person and not (asked and all(person & ATTRIBUTE_SYNONYMS.get(a, frozenset()) for a in asked)):
                return True
    if first_person:
        return False
    caps = _CAPITALISED_RE.findall(question)
    starts_with = _CAPITALISED_RE.match(question.lstrip())
    if starts_with is not None and caps and caps[0] == starts_with.group(0):
        caps = caps[1:]   # the first word of a sentence is capitalised anyway
    return any(c.lower() not in _NOT_NAMES for c in caps)
