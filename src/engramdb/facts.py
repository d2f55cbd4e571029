"""Fact-bearing tokens of a statement, and whether two statements state different facts.

Rule-based, no model. Admission uses :func:`fact_change` so that a near-duplicate that changes
a number, date, name or negation is never merged away; the write path uses :func:`conflict`
to find a new statement that negates or changes the value of an earlier one about the same
subject (it then supersedes it, or the two are linked ``contradicts``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .patterns import DIGIT, alternation
from .sentences import split_sentences
from .speakers import LABELS as NOTE_LABELS, PERSON_NOUNS, labelled
from .timeref import LAST_SPANS

__all__ = ["NUMBER_WORDS", "MONTHS", "DATE_WORDS", "NEGATIONS", "FUNCTION_WORDS", "tokens", "speaker_label", "fact_signature",
           "fact_change", "quantity_clash", "subject_of", "conflict", "conflict_many", "ends_in_question",
           "restates", "REMINDER_OPENER", "without_reminder", "frames_a_value", "SPEAKER_LABEL", "plain_statement",
           "bare_change", "subject_text"]

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: A pronoun contracted with its verb ("I'm", "we've", "she's", "they'd"): no name, and the
#: pronoun is the subject, as in "I am": "I'm taking" and "I take" speak of one subject.
_CONTRACTED = re.compile(r"(i|we|you|he|she|they|it)['’](m|re|ve|s|d|ll)")
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand million billion dozen half once twice thrice first second third fourth fifth "
    "sixth seventh eighth ninth tenth".split())
MONTHS = frozenset(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split())   # "may": capitalised only
DATE_WORDS = frozenset("monday tuesday wednesday thursday friday saturday sunday today tomorrow "
                       "yesterday tonight weekend".split())
NEGATIONS = frozenset("not no never none nobody nothing neither nor nowhere cannot without".split())
FUNCTION_WORDS = frozenset(
    "a an the i i'm i've i'd i'll we you he she they it its my our your his her their this that "
    "these those there here what when where who whom why how which yes yeah ok okay and but or so "
    "then also just in on at for to of with from by after before about as if is are was were be "
    "been do does did have has had will would can could should may might must let let's oh hey hi "
    "hello thanks thank please well sure great wow".split())


#: A file name that holds a digit, alone or at the end of a path: "example_27.py",
#: "src/app/example_27.py", "config_v2.yaml" (not "$20/month", "5mg/day", "release/2.3",
#: "node_18", "22.04": a number with its unit and a version are quantities).
_IDENTIFIER = re.compile(
    r"(?<![\w/.])(?=[\w./-]*\d)(?:[\w.-]+/)*[A-Za-z][\w-]*\.(?:py|js|ts|tsx|jsx|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|"
    r"cs|swift|json|ya?ml|toml|ini|cfg|md|rst|txt|csv|tsv|sql|sh|html|css|xml|lock|log|pdf|png|jpe?g|gif|svg|zip|"
    r"gz|tar)(?![\w/])")


#: Entries of the memos of what the write path's conflict detection asks of a text (its statement
#: without a reminder's opener, whether it may give a value, its plain form, its sentences, its
#: signal): a new memory's neighbours are mostly memories stored by earlier batches, so a memo of
#: 2**14 texts missed about half its calls at 50,000 memories, and a batch's rate fell with the
#: store's size. Sized like ``engramdb.write.records``' subject memo (2**17 texts).
STORED_TEXT_MEMO = 1 << 17


def tokens(text: str) -> list[str]:
    """Word tokens of ``text`` (letters and digits; apostrophes inside a word kept); a new list
    each call (the rules read a text's words about ten times as it is written: cached, up to
    :data:`_CACHED_CHARS` characters)."""
    return list(_tokens_of(text)) if len(text) <= _CACHED_CHARS else _TOKEN.findall(text)


_CACHED_CHARS = 4000   # (a cache of the tokens of long documents would hold far more than their text)


@lru_cache(maxsize=1 << 14)
def _tokens_of(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text))


def _negation_count(toks: list[str]) -> int:
    return sum(1 for t in toks if (low := t.lower()) in NEGATIONS or low.endswith(("n't", "n’t")))


def fact_signature(text: str) -> dict[str, Any]:
    """The fact-bearing tokens of ``text`` (see :func:`fact_change`).

    Returns
    -------
    dict with keys
        ``number`` (set of lower-cased tokens holding a digit, and number words), ``date`` (month
        and weekday names, today / tomorrow / yesterday ...; "May" only capitalised), ``name``
        (capitalised tokens that are not function words, negations, openers such as "Now" or
        "Actually" (:data:`OPENERS`), months, number words or a pronoun contracted with its verb:
        "We're", "She's") and
        ``negation`` (count of negation words and n't contractions).
    """
    # a file name (or a path to one) is one name, its digits no quantity
    # ("src/app/example_27.py" and "example_22.py" name two files; they are no number changed)
    # (the pattern needs a dot and a digit: most texts have no digit)
    idents = [m.group(0).lower() for m in _IDENTIFIER.finditer(text)] if "." in text and DIGIT.search(text) else []
    toks = tokens(_IDENTIFIER.sub(" ", text)) if idents else tokens(text)
    number, date, name = set(), set(), set(idents)
    label = _LABEL.match(text)
    at = 0 if label is None else len(tokens(label.group(1)))
    opening = range(at, _past_openers(toks, at))   # ("Right now the standup is ...": "Right" names no one)
    for i, t in enumerate(toks):
        low = t.lower()
        if i in opening:
            continue
        if (not t.isalpha() and any(map(str.isdigit, t))) or low in NUMBER_WORDS:   # (letters hold no digit)
            number.add(low)
        elif low in MONTHS or low in DATE_WORDS or t == "May":
            date.add(low)
        elif (t[0].isupper() and low not in FUNCTION_WORDS and low not in NEGATIONS and low not in OPENERS
              and not _CONTRACTED.fullmatch(low)):
            name.add(low)
    return {"number": number, "date": date, "name": name, "negation": _negation_count(toks)}


@lru_cache(maxsize=1 << 14)
def _lower_words(text: str) -> frozenset[str]:
    return frozenset(t.lower() for t in tokens(text))


def _other_names(a: dict[str, Any], b: dict[str, Any], new: str, old: str) -> bool:
    """Whether ``new`` (signature ``a``) or ``old`` (``b``) names what the other does not say in
    any case: a capitalised sentence start or an all-caps word ("I take METFORMIN") the other
    writes in lower case is no other name, nor a file both name ("config_v2.yaml")."""
    return bool(a["name"] - _lower_words(old) - b["name"]) or bool(b["name"] - _lower_words(new) - a["name"])


def fact_change(new: str, old: str) -> str | None:
    """Does ``new`` change a fact that ``old`` states? Rule-based, no model.

    Two texts state a different fact when they differ in (checked in this order):

    - ``"negation"``: the number of negation words (not, no, never, cannot, without, ...) and
      n't contractions;
    - ``"number"``: the set of tokens holding a digit (amounts, times, codes such as QX7Z9M,
      ISO dates) or number words (one ... ninety, hundred, first ... tenth, twice, ...);
    - ``"date"``: month names (and abbreviations; "May" only when capitalised), weekday names,
      today / tomorrow / yesterday / tonight / weekend;
    - ``"name"``: a capitalised token other than common function words ("The", "I", "We", ...)
      that the other text lacks in any case (so a capitalised sentence start that the other
      text has in lower case is no change).

    A changed fact is never merged as a near-duplicate. The rules err toward "changed": "two"
    vs "2", or a capitalised common word, count as a change, so a true duplicate may be stored
    once more, but a changed fact is not lost.

    Parameters
    ----------
    new, old : str

    Returns
    -------
    str or None
        The first kind of change found, or None when the texts agree on all four.

    Examples
    --------
    >>> fact_change("The meeting is at 3pm", "The meeting is at 4pm")
    'number'
    >>> fact_change("I like sushi", "I don't like sushi")
    'negation'
    >>> fact_change("We fly to Lisbon", "We fly to Porto")
    'name'
    >>> fact_change("Dinner with Ana on Friday", "dinner with Ana on Friday!") is None
    True
    """
    a, b = _signature(new), _signature(old)
    for key in ("negation", "number", "date"):
        if a[key] != b[key]:
            return key
    if _other_names(a, b, new, old):
        return "name"
    return None




#: Words that end a statement's subject: copulas, auxiliaries and common state / action verbs
#: (compared by Snowball stem, so "drinks" and "drank"... "drink" match through their stems where
#: Snowball joins them; irregular past forms are listed).
SUBJECT_END = frozenset(
    "is am are was were be been isn't aren't wasn't weren't 's has have had hasn't haven't hadn't "
    "does do did doesn't don't didn't can can't cannot could couldn't will won't would wouldn't "
    "should shouldn't may might must work live like love prefer hate want need own drive drove use "
    "take took eat ate drink drank play speak spoke move go went get got earn weigh cost run ran "
    "start leave left sleep slept seat smoke trust read write wrote watch cook study teach taught "
    "visit pay paid buy bought sell sold make made know knew think thought feel felt keep kept "
    "hold held seem remain stay become became open close belong attend wear wore".split())
_DETERMINERS = frozenset("a an the".split())
#: Adverbs that qualify a statement without changing what it is about ("no longer", "still"), or
#: its value ("My commute is only 20 minutes.", "roughly 20 minutes": helper-244).
ADVERBS = frozenset("longer still also now always usually really actually anymore currently already "
                    "just even recently finally only roughly approximately nearly".split())


_QUANTITY = re.compile(r"(\d+(?:[.,]\d+)?)\s*([^\W\d_]+|%)")


@lru_cache(maxsize=1 << 14)
def _quantities(text: str) -> dict[str, set[str]]:
    """Numbers of ``text`` by the word after them ("5 mg" -> {"mg": {"5"}})."""
    out: dict[str, set[str]] = {}
    for number, unit in _QUANTITY.findall(text):
        out.setdefault(unit.lower(), set()).add(number.replace(",", "."))
    return out


def quantity_clash(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` give one quantity different values: a number before the same word
    in both, the numbers differing. Narrower than :func:`fact_change`, which any differing
    number trips: two long messages restating one fact may differ in numbers of other things.

    Examples
    --------
    >>> quantity_clash("I take lisinopril 5 mg daily", "I take lisinopril 10 mg daily")
    True
    >>> quantity_clash("Bake at 220 degrees for 20 minutes", "Preheat to 220 degrees")
    False
    """
    return bool(_clashing_units(a, b))


def _clashing_units(a: str, b: str) -> frozenset[str]:
    """The words after a number that ``a`` and ``b`` give different numbers (lower-cased)."""
    qa, qb = _quantities(a), _quantities(b)
    return frozenset(u for u in qa.keys() & qb.keys() if qa[u] != qb[u])


def _stem(word: str) -> str:
    global _stemmer
    if _stemmer is None:
        import Stemmer   # PyStemmer, as the keyword index

        _stemmer = Stemmer.Stemmer("english")
    return _stemmer.stemWord(word)


_stemmer = None
_END_STEMS: frozenset[str] | None = None


@lru_cache(maxsize=1 << 16)
def _ends_subject(low: str) -> bool:
    global _END_STEMS
    if _END_STEMS is None:
        _END_STEMS = frozenset(_stem(w) for w in SUBJECT_END) | SUBJECT_END
    return (low in SUBJECT_END or low in NEGATIONS or low in ADVERBS or low.endswith(("n't", "n’t"))
            or _stem(low) in _END_STEMS)


_PRONOUNS = frozenset("i we you he she they it".split())
#: Words that may open a chat statement before its pronoun subject ("Now I take 20 mg", "So I'm
#: 36", "Actually, I work at Globex", "Also we moved"): skipped when a pronoun follows them.
OPENERS = ADVERBS | frozenset("so well oh ok okay yes yeah yep anyway anyways btw hey hi hello and but "
                              "update fyi honestly nowadays lately".split())
_GREETINGS = frozenset("hey hi hello".split())
#: Openers of several words, read past as :data:`OPENERS` are ("These days my favorite coffee
#: shop is Sightglass.", "At the moment I take 20 mg"): lower-case token tuples.
OPENING_PHRASES = (("these", "days"), ("at", "the", "moment"), ("right", "now"), ("by", "the", "way"),
                   ("as", "of", "now"), ("as", "of", "today"), ("just", "so", "you", "know"), ("for", "the", "record"))
#: A speaker label: a chat role, or one to three words, before a colon ("user: ", "Dana: "; not
#: "Also, we renamed the cat: ...", whose colon ends a clause).
SPEAKER_LABEL = _LABEL = re.compile(r"^((?:user|assistant|system|[^\W\d_][\w'.\-]*)(?: [^\W\d_][\w'.\-]*){0,2}):\s+")
#: What opens a statement said again or to be kept, before what it says ("Remember, I take 5 mg",
#: "As I said, I'm allergic ...", "Just a reminder: ...", "Please note that ...", "Don't forget,
#: ...", "You should know ..."): no part of the statement. A word that is also a noun or verb
#: ("note", "reminder", "again", "recap") opens one only before a comma, colon, dash, "!" or "that";
#: "Remember to ..." asks for a deed, and opens nothing.
REMINDER_OPENER = re.compile(
    r"(?:(?:(?:please|pls|just)\s+)?(?:remember|keep\s+in\s+mind|bear\s+in\s+mind|don['’]t\s+forget|"
    r"do\s+not\s+forget|never\s+forget|for\s+the\s+record|fyi|just\s+so\s+you\s+know|you\s+should\s+know|"
    r"you\s+need\s+to\s+know|i\s+want\s+you\s+to\s+know|i['’]d\s+like\s+you\s+to\s+know|let\s+me\s+remind\s+you|"
    r"did\s+you\s+know|as\s+(?:i|i['’]ve|i\s+have)\s+(?:said|mentioned|told\s+you)|"
    r"like\s+i\s+(?:said|mentioned|told\s+you)|as\s+mentioned)"
    r"(?:\s+(?:before|earlier))?(?:\s+that)?(?:\s*(?:[,:;!\-–—]|\.\.\.|…)+\s*|\s+(?!to\s))"
    r"|(?:(?:please|pls|just)\s+)?(?:a\s+)?(?:(?:quick|friendly|gentle|small)\s+)?(?:reminder|again|recap|note)"
    r"(?:\s*(?:[,:;!\-–—]|\.\.\.|…)+\s*|\s+that\s+))+(?=\S)",
    re.IGNORECASE)


@lru_cache(maxsize=STORED_TEXT_MEMO)   # (the conflict rules read each text's statement many times)
def without_reminder(text: str) -> str:
    """``text`` (str) without a reminder's opening words (:data:`REMINDER_OPENER`), after its
    speaker label if any (a chat role or a name, not a note's "Reminder:"), its next word
    capitalised: "user: Remember, I take 5 mg." -> "user: I take 5 mg."; "As I said, my dog is
    Rex." -> "My dog is Rex."; unchanged when nothing follows the opener.

    Examples
    --------
    >>> without_reminder("user: Remember, I take 5 mg of lisinopril daily.")
    'user: I take 5 mg of lisinopril daily.'
    >>> without_reminder("Reminder: the lease ends in May.")
    'The lease ends in May.'
    """
    label = _LABEL.match(text)
    start = label.end() if label is not None and speaker_label(text) is not None else 0
    r = REMINDER_OPENER.match(text, start)
    if r is None:
        return text
    rest = text[r.end():]
    return text[:start] + rest[:1].upper() + rest[1:]
#: Verbs that begin a state: before a gerund or "to" + verb ("started taking", "began to run")
#: they say when a state began, not what it is: "I started taking 5 mg" states what "I take 5 mg"
#: does, and is no one-off event (:func:`_event_report`). (keep / continue / resume are left
#: out: "I kept running for 5 km" tells one run.)
ONSET_VERBS = frozenset("start starts started starting begin begins began begun beginning".split())
#: Words after a subject that make a statement no present fact: a modal ("I'd take 20 mg", "I'll
#: be 40", "It would cost 50") tells a plan or a wish, "had" and "used" a past state ("I had been
#: taking 20 mg", "I used to pay 900"). Such a statement supersedes nothing and is superseded by
#: nothing.
NOT_PRESENT = frozenset("would will could might may should shall must had used wouldn't won't couldn't "
                        "shouldn't mustn't".split())
#: Words of a statement that tell a past value, one day's or one not real (besides
#: :data:`NOT_PRESENT` and negations: "Our rent was $1,900 last year.", "... took 40 mg yesterday",
#: "Tomorrow my alarm is set to 5am", "I want to take 20 mg"; read by :mod:`engramdb.changes` and
#: :mod:`engramdb.swaps`).
NOT_NOW = frozenset("was were had used did ago yesterday today tonight tomorrow formerly previously last if unless "
                    "maybe perhaps want wants wanted hope hopes wish wishes imagine dream dreamt".split())
#: Verbs that, before "to", tell a wish, plan or what someone else said, not a fact ("I want to
#: take 1000 mg", "I'm going to take", "I was told to take"): as :data:`NOT_PRESENT`.
INTENT_VERBS = frozenset("want wants wanted hope hopes hoped plan plans planned planning going intend intends "
                         "wish wishes try tries trying tried refuse refuses need needs told asked afraid "
                         "supposed meant".split())
#: Words between a subject and its verb that make the verb no fact that happened: a modal, plan,
#: wish, negation, condition or proposal ("Ana proposed moving the offsite to June 5"; read by
#: :mod:`engramdb.changes` and :mod:`engramdb.standing`).
NOT_DONE = NOT_PRESENT | (INTENT_VERBS - {"plan", "plans"}) | NEGATIONS | frozenset(
    "if when whether unless propose proposed proposes proposing suggest suggested suggests suggesting consider "
    "considered considering thinking thought discuss discussed discussing maybe perhaps ask asked please "
    "best recommend recommended advise advised ever todo rumor rumour rumors can last "
    # what did not happen in the world: a story, a dream, a supposition
    "imagine imagined imagining pretend pretended pretending suppose supposed supposing hypothetically "
    "dream dreamed dreamt dreaming".split())


#: Words before "last" and a span that make them no time of the verb: "the last time" ("The last
#: year I moved to Denver, it snowed"), a period it bounds or a repetition in it ("Between last June
#: and December we moved standup to 10am", "Up until last week", "Twice last month", "On Fridays
#: last month standup moved to 11am": helper-220).
_BEFORE_LAST = frozenset("the that this my our his her their every each between from until till up through except "
                         "throughout during twice thrice once times all of on in mondays tuesdays wednesdays "
                         "thursdays fridays saturdays sundays weekends mornings evenings nights".split())


#: Words that open a subject after a past time ("Last week we ...", "Last month my doctor ..."):
#: the time is then the verb's, not a part of the subject ("Last quarter revenue rose ...", "Last
#: Week Tonight moved ...") nor a subject itself ("Last Friday was a holiday";
#: :func:`engramdb.starts.past_lead_read`).
SUBJECT_STARTS = frozenset("i i'm i've we we've you he she they it my our your his her their the a an this "
                           "these those someone everyone".split())


def not_done(words: list[str]) -> bool:
    """Whether ``words`` (lower-cased) make a verb after them no fact: a word of
    :data:`NOT_DONE` or an n't contraction. "last" before a span of time
    (:data:`engramdb.timeref.LAST_SPANS`: "Last week I moved to Denver", "Last month my doctor
    raised my dose to 75 mcg") tells when, as the same words after the verb, and is read past;
    not after a word of :data:`_BEFORE_LAST` ("the last week", "until last week") nor before
    "of" ("Last Sunday of every month")."""
    said = [w for i, w in enumerate(words) if w != "last" or i + 1 == len(words)
            or words[i + 1] not in LAST_SPANS or (i and words[i - 1] in _BEFORE_LAST)
            or words[i + 2: i + 3] == ["of"]]
    return bool(NOT_DONE.intersection(said)) or any(t.endswith(("n't", "n’t")) for t in said)


#: Words that begin a subject referring back into the conversation ("It costs 30 dollars", "This
#: one has 8 GB", "That is 20 km away", "There are 2 bedrooms", "Mine is 9"): which thing or place
#: is meant is said in the turns before, and two
#: such statements are mostly about two things (two prices asked in one chat). Such a statement
#: supersedes nothing and is superseded by nothing. (he / she / they are kept: in an agent's
#: memory they mostly stand for one person the user speaks of.)
ANAPHORIC = frozenset("it its this that these those there here mine yours hers ours theirs".split())
#: A duration after an onset verb ("I started to panic after 5 minutes", "began to feel dizzy
#: within 2 hours") tells when a state began in one episode: a one-off event, as "I panicked".
_DURATION_AFTER = frozenset("after within".split())
_TIME_UNITS = frozenset("second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks "
                        "month months year years moment moments".split())
#: Words ending in -ing that are no gerund ("I started the meeting", "I started something").
_ING_NOUNS = frozenset("something anything everything nothing thing morning evening spring meeting "
                       "wedding building ceiling clothing".split())
_COPULA = frozenset("am is are".split())
_AUXILIARY = _COPULA | frozenset("have has".split())


@lru_cache(maxsize=1 << 14)   # the write path checks each new text against several neighbours
def subject_of(text: str) -> tuple[str, ...]:
    """The statement's subject, lower-cased, articles dropped; a leading "Speaker:" label is part
    of it, and a pronoun after the label or after openers of :data:`OPENERS` ends it ("user: I
    walk 5 km" -> ("user", "i"), "Now I take 20 mg", "Update: I take 20 mg" -> ("i",)); else:

    - a personal pronoun first, alone or contracted with its verb: that pronoun ("I practise
      guitar", "I'm practising guitar" -> ("i",));
    - a capitalised first word followed by a lower-case word: that name ("Dan bikes to work" ->
      ("dan",));
    - else the words before the first verb of :data:`SUBJECT_END` (by stem), negation or adverb
      of :data:`ADVERBS` ("My wife likes tea" -> ("my", "wife"); "has worked there" -> ()).

    When no verb is found the whole statement is returned; :func:`conflict` then aligns it with
    the other statement's subject. An age or a plan said in other words is read as
    :func:`plain_statement` says it ("My daughter Maya turned 8." -> ("my", "daughter", "maya")).
    """
    return _subject_span(plain_statement(without_reminder(text)))[0]


def speaker_label(text: str) -> tuple[str, ...] | None:
    """Who says ``text`` (str) by its leading "Speaker: " label, lower-cased words ("Alice: I
    take 10 mg" -> ("alice",); "user: ..." -> ("user",)), or None: no label, a note's label
    ("Update: I take 20 mg"), or a heading of several words not all capitalised ("Big news: ...",
    "Note to self: ...")."""
    label = _LABEL.match(text)
    if label is None:
        return None
    words = tokens(label.group(1))
    if len(words) == 1 and words[0].lower() in NOTE_LABELS:
        return None
    if any(not w[:1].isupper() and w.lower() not in _NAME_PARTICLES for w in words[1:]):
        return None   # a heading, not a name: "Big news: I started a new job ...", "Note to self: ..."
    return tuple(w.lower() for w in words)


#: Lower-case words inside a speaker's name ("Ludwig van Beethoven: ...").
_NAME_PARTICLES = frozenset("van von de der den da del della di du la le bin ibn al el".split())


@lru_cache(maxsize=1 << 14)
def _subject_span(text: str) -> tuple[tuple[str, ...], int]:
    """:func:`subject_of` ``text``, and how many of its tokens the subject and what goes before
    it take when a label or openers go before a pronoun ("user: Now I take" -> (("user", "i"),
    3)) or a heading or a note's label goes before the statement ("My kitchen reno: the budget
    is ..." -> (("my", "kitchen", "reno", "budget"), 4)); -1 when the subject starts the text
    (its words are its tokens)."""
    toks = tokens(text)
    label = _LABEL.match(text)
    at = 0 if label is None else len(tokens(label.group(1)))
    speaker = speaker_label(text) or ()
    lead = _past_openers(toks, at)
    if lead > 0 and lead < len(toks):   # a speaker label or openers, then a pronoun: the subject
        low = toks[lead].lower()
        if low in _PRONOUNS:
            return speaker + (low,), lead + 1
        if m := _CONTRACTED.fullmatch(low):
            return speaker + (m.group(1),), lead + 1
    if (lead > at and lead < len(toks) and toks[lead][:1].islower()
            and (_GREETINGS.isdisjoint(t.lower() for t in toks[at:lead]) or toks[lead] in ("my", "our"))):
        # openers, then another subject in lower case: the statement after them is read as one
        # that opens a text ("Actually, my favorite coffee shop is Sightglass." speaks of the
        # favorite coffee shop, as "My favorite coffee shop is Blue Bottle." does: the openers had
        # read as its subject, and no change was seen); a capital after them may be whom the text
        # addresses ("Yeah, Maria, let's ..."), as a name after a greeting is ("Hey Maria, ...");
        # after a greeting, only the speaker's thing ("Hey my favorite coffee shop is ...": helper-229)
        body = _subject_at_start(toks[lead:])
        if body:   # (none, "Oh no, Jon!": no statement follows them)
            return speaker + body, lead + len(body)   # (as the heading's below, and len(subject) for a text that opens with it)
    if at and not speaker and at < len(toks):
        # a heading or a note's label: the statement after it is read as one that opens a text
        # (as many tokens as its subject has words); a heading's words name what it is about and
        # go before its subject ("My kitchen reno: the budget is $20,000." is the kitchen reno's
        # budget, no bathroom's; "Climbing session: sent 12 routes." an event of the climbing
        # session, where "Climbing" read as the subject of a state whose number changed), a
        # note's label ("Update:", "Note to self:", :data:`NOTE_LABELS`) none ("Update: the rent
        # is $2,100" speaks of the rent)
        body = _subject_at_start(toks[at:])
        head = () if toks[0].lower() in NOTE_LABELS else tuple(
            t.lower() for t in toks[:at] if t.lower() not in _DETERMINERS)
        return head + body, at + len(body)
    return _subject_at_start(toks), -1


def _past_openers(toks: list[str], at: int) -> int:
    """The position in ``toks`` after the openers (:data:`OPENERS`, :data:`OPENING_PHRASES`)
    from position ``at`` on; ``at`` when none opens there."""
    lead = at
    while lead < len(toks):
        if toks[lead].lower() in OPENERS:
            lead += 1
            continue
        words = tuple(t.lower() for t in toks[lead:lead + 4])
        phrase = next((p for p in OPENING_PHRASES if words[:len(p)] == p), None)
        if phrase is None:
            break
        lead += len(phrase)
    return lead


def _subject_at_start(toks: list[str]) -> tuple[str, ...]:
    if toks and toks[0].lower() in _PRONOUNS:
        return (toks[0].lower(),)
    if toks and (m := _CONTRACTED.fullmatch(toks[0].lower())):
        return (m.group(1),)
    if len(toks) > 1 and toks[0][0].isupper() and toks[0].lower() not in FUNCTION_WORDS \
            and toks[1].isalpha() and toks[1].islower() and not _ends_subject(toks[0].lower()):
        return (toks[0].lower(),)
    out = []
    for t in toks:
        low = t.lower()
        if m := _CONTRACTED.fullmatch(low):   # "user: I'm taking ...": the verb is in the token
            out.append(m.group(1))
            break
        if _ends_subject(low):
            break
        if low not in _DETERMINERS:
            out.append(low)
    return tuple(out)


def _same_subject(a: tuple[str, ...], b: tuple[str, ...], text_a: str, text_b: str) -> tuple[str, ...] | None:
    """The shared subject of two statements, or None. A subject that ran to the end of its
    statement (no known verb) matches the other's when the other's is a prefix of it: the word
    after the prefix is then taken as the verb ("The landlord allows pets" / "The landlord does
    not allow pets")."""
    if a == b:
        return a
    for short, long_, text in ((a, b, text_b), (b, a, text_a)):
        ran_to_end = len(long_) == _content_count(text)
        if short and ran_to_end and long_[: len(short)] == short and not any(ch.isdigit() for w in short for ch in w):
            return short
    return None


@lru_cache(maxsize=1 << 14)
def _content_count(text: str) -> int:
    """Tokens of ``text`` that are not articles."""
    return len([t for t in tokens(text) if t.lower() not in _DETERMINERS])


@lru_cache(maxsize=1 << 14)
def _signature(text: str) -> dict[str, Any]:
    """:func:`fact_signature`, memoised for :func:`conflict` (which only reads it)."""
    return fact_signature(text)


_CLOSERS = "\"'”’»)]}」』 \t"


def ends_in_question(text: str) -> bool:
    """Whether ``text`` ends in a question mark (full-width, "?!", or inside closing quotes and
    brackets).

    >>> ends_in_question('She asked "why not?" ') and ends_in_question("Really?!")
    True
    """
    return text.rstrip(_CLOSERS).rstrip("!.…").endswith(("?", "？"))


#: A leading speaker label as the report rules read past it ("user: ", "Raj: ", "assistant: ").
_REPORT_LABEL = re.compile(r"\s*(?:user|assistant|[^\W\d_][\w'.\-]*)\s*:\s+", re.I)


def report_body(text: str) -> tuple[bool, str]:
    """What the rules of a reported change (:mod:`engramdb.swaps`, :mod:`engramdb.handovers`)
    read of ``text`` (str): whether a leading speaker label is the assistant's (its words are
    advice or an echo, no report), and the text past the label without its sentences that ask
    (:func:`without_questions`; "" when every sentence asks)."""
    label = _REPORT_LABEL.match(text)
    assistant = label is not None and label.group(0).strip().lower().startswith("assistant")
    return assistant, without_questions(text[label.end():] if label is not None else text)


@lru_cache(maxsize=1 << 14)
def without_questions(text: str) -> str:
    """``text`` without its sentences that ask ("I take 10 mg of lisinopril every morning. Can
    you remind me to refill it?" -> "I take 10 mg of lisinopril every morning."), a leading
    speaker label kept; "" when every sentence asks. A text without a question is returned as
    it is.

    >>> without_questions("user: Can you remind me? I take 10 mg of lisinopril.")
    'user: I take 10 mg of lisinopril.'
    """
    if "?" not in text and "？" not in text:
        return text
    label = _LABEL.match(text)
    head, body = (text[: label.end()], text[label.end():]) if label else ("", text)
    kept = [s for s in split_sentences(body) if not ends_in_question(s)]
    return head + " ".join(kept) if kept else ""


def _gerund(word: str) -> bool:
    return len(word) > 4 and word.endswith("ing") and word not in _ING_NOUNS


def _anaphoric(text: str, subject: tuple[str, ...]) -> bool:
    """Whether ``subject`` (of ``text``) begins, after the speaker label if any, with a word of
    :data:`ANAPHORIC`."""
    own, end = _subject_span(text)
    if end >= 0 and own == subject:   # a pronoun after a label or openers: the subject's last word
        return bool(subject) and subject[-1] in ANAPHORIC   # (none after a heading: "Log: ran 5 km")
    at = len(tokens(label.group(1))) if (label := _LABEL.match(text)) is not None else 0
    return len(subject) > at and subject[at] in ANAPHORIC


def _duration_anchor(words: list[str]) -> bool:
    """Whether ``words`` hold "after" / "within" a duration ("after 5 minutes", "within a few
    hours": the time unit at most three words after it) and no quantity of another unit: "I
    started taking 20 mg after the first week" begins a regimen, a state."""
    if any(w[:1].isdigit() and nxt not in _TIME_UNITS for w, nxt in zip(words, words[1:] + [""])):
        return False
    return any(w in _DURATION_AFTER and any(u in _TIME_UNITS for u in words[i + 1:i + 4])
               for i, w in enumerate(words))


@lru_cache(maxsize=1 << 14)
def _statement_words(text: str, subject: tuple[str, ...]) -> tuple[str, ...] | None:
    """The lower-cased words after the subject, as one present statement reads them; None when
    the statement is no present fact: a question, a modal or past perfect (:data:`NOT_PRESENT`:
    "I'd take", "I'll be", "had been"), a wish or plan (:data:`INTENT_VERBS`: "I
    want to take", "I'm going to take").

    A pronoun contracted with "am" gives its "am" back ("I'm 35" reads as "I am 35"); a copula
    before a gerund is left out ("I'm taking" reads as "I take"), and so is a verb of
    :data:`ONSET_VERBS` before a gerund or "to" + verb, with the auxiliary before it ("I've
    started taking", "I am starting to take" read as "I take"); adverbs are skipped while
    looking for them ("I just started taking"), but kept before a duration ("I started to panic after
    5 minutes" reports one episode, :func:`_event_report`). A subject of :data:`ANAPHORIC` ("It
    costs 30 dollars") gives None: what it refers to is not in the statement."""
    if ends_in_question(text) or _anaphoric(text, subject):
        return None
    toks = tokens(text)
    own, end = _subject_span(text)
    n = end if end >= 0 and own == subject else len(subject)
    pairs = [(t.lower(), t) for t in toks[n:]]
    if n and n <= len(toks) and (m := _CONTRACTED.fullmatch(toks[n - 1].lower())):
        if m.group(2) in ("d", "ll"):
            return None   # would / had / will
        if m.group(2) == "m":
            pairs.insert(0, ("am", "am"))
    i = 0
    while i < len(pairs) and pairs[i][0] in ADVERBS:
        i += 1
    if i < len(pairs) and pairs[i][0] in NOT_PRESENT:
        return None
    j = i
    while j < len(pairs) and (pairs[j][0] in _AUXILIARY or pairs[j][0] in ADVERBS or pairs[j][0] in ("was", "were")):
        j += 1
    if j + 1 < len(pairs) and pairs[j][0] in INTENT_VERBS and pairs[j + 1][0] == "to":
        return None   # "I want to take", "I am going to take", "I was told to take"
    if j + 1 < len(pairs) and pairs[j][0] in ONSET_VERBS and not _duration_anchor([w for w, _t in pairs[j + 1:]]):
        nxt = pairs[j + 1][0]
        if _gerund(nxt):
            del pairs[i:j + 1]
        elif (nxt == "to" and j + 2 < len(pairs) and pairs[j + 2][1].isalpha() and pairs[j + 2][1].islower()
              and pairs[j + 2][0] not in FUNCTION_WORDS):
            del pairs[i:j + 2]
    elif i + 1 < len(pairs) and pairs[i][0] in _COPULA and _gerund(pairs[i + 1][0]):
        del pairs[i]   # the progressive: "am taking" says what "take" does
    return tuple(w for w, _t in pairs)


@lru_cache(maxsize=1 << 14)
def _bare_number(text: str, subject: tuple[str, ...]) -> bool:
    """Whether all ``text`` says of its subject is a whole number, or groups of digits, after a
    copula ("My daughter is 7", "I'm 35", "We're 4 now", "My phone number is 912 345 678"): "is
    at 3", "is 6'2" or "is 100% sure" say more, or else."""
    words = [w for w in _statement_words(text, subject) or () if w not in _COPULA and w not in ADVERBS
             and w not in NEGATIONS]
    return bool(words) and all(w.isdigit() for w in words)


@lru_cache(maxsize=1 << 14)
def _predicate_words(text: str, subject: tuple[str, ...]) -> frozenset[str]:
    """Stems of the content words after the subject (:func:`_statement_words`), without numbers,
    negations, adverbs and the auxiliaries be, do and being ("does not drink" and "drinks" say the
    same but for the negation)."""
    words = _statement_words(text, subject) or ()
    return _content_stems([w for w in words if w not in ("am", "does", "doesn't", "do", "don't", "did", "didn't",
                                                         "being") and not w.endswith(("n't", "n’t"))])


def _content_stems(words: list[str]) -> frozenset[str]:
    """Stems of ``words`` but function words, negations, adverbs and numbers."""
    return frozenset(_stem(w) for w in words if w not in FUNCTION_WORDS and w not in NEGATIONS and w not in ADVERBS
                     and w not in NUMBER_WORDS and not any(ch.isdigit() for ch in w))


#: Irregular simple-past verbs: a statement whose verb is one of them (or a regular "-ed" form)
#: reports an event ("I ran 5 km"), not a state ("I run 5 km every Sunday").
_IRREGULAR_PAST = frozenset(
    "ate began bought brought built caught chose came cost did drank drove fell felt fought flew forgot "
    "found gave got grew heard hid held hit hurt kept knew laid led left lent let lost made meant met "
    "paid put ran rang read rode rose sang sat saw sent set shook shot showed slept sold spent spoke "
    "stole stood swam taught threw thought told took understood went woke won wore wrote".split())
_NOT_PAST = frozenset("need needs feed seed speed breed bleed proceed succeed exceed indeed shed bed red".split())
_YEAR = re.compile(r"(?:1[89]|20)\d\d")


@lru_cache(maxsize=1 << 14)
def _event_report(text: str, subject: tuple[str, ...]) -> bool:
    """Is ``text`` a report of a past event: the first word after its subject a simple-past verb?
    Two such reports that differ in a number are two events ("I ran 5 km" on Monday, "I ran 8
    km" on Tuesday), not a correction; a state ("I run 10 km every Sunday", "My rent is 900"),
    the present perfect ("I have worked there 5 years") and the beginning of a state ("I started
    taking 10 mg", "I began to run 5 km a day": :func:`_statement_words`) are not reports."""
    rest = [w for w in _statement_words(text, subject) or () if w not in ADVERBS and w not in _DETERMINERS]
    if not rest:
        return False
    verb = rest[0]
    return verb in _IRREGULAR_PAST or (len(verb) > 3 and verb.endswith("ed") and verb not in _NOT_PAST)


def _years(numbers: set[str]) -> set[str]:
    return {n for n in numbers if _YEAR.fullmatch(n)}


#: Attributes that hold one value at a time, as the head of "my ... is": "my email", "ACME's
#: billing email", "our plan" (:func:`_value_change`). Any attribute after "favourite" counts too.
ATTRIBUTE_NOUNS = frozenset(
    "email e-mail address phone mobile cell number name surname nickname username handle password passcode "
    "pin plan tier subscription job title role position occupation employer salary wage rent mortgage "
    "budget dose dosage doctor dentist therapist gp manager boss landlord hometown city timezone zone "
    "birthday anniversary deadline contact owner lead rep representative admin administrator sponsor champion "
    "accountant lawyer attorney advisor adviser coach trainer tutor teacher pediatrician vet mentor "
    "pharmacy insurer carrier gym school bank airline barber hairdresser stylist mechanic".split())
#: Nouns after "on the ..." that name one plan at a time ("ACME is on the Pro plan").
_PLAN_NOUNS = frozenset("plan tier subscription package".split())
#: Words that add a value rather than change one ("I also live in Porto", "Porto too"; a second
#: job's hours: "I work at Starbucks on weekends").
_ADDITIVE = frozenset("also too both another either additionally weekends".split())
#: Two-word phrases that do the same ("I work at MIT as well", "I work at Costco part-time").
_ADDITIVE_PAIRS = frozenset({("as", "well"), ("part", "time")})
#: Words of a second place's times, for a value said of where someone works or lives ("Dan Smith
#: works at Globex at night", "... on Saturdays", "... occasionally": helper-236); not of the
#: news of a new employer ("My team here at Acme ships on Fridays").
_SIDE_TIMES = frozenset("nights evenings summers mondays tuesdays wednesdays thursdays fridays saturdays sundays "
                        "occasionally sometimes freelance freelancing moonlighting seasonally".split())


def _adds_value(words) -> bool:
    """Whether ``words`` (lower-cased) hold a word of :data:`_ADDITIVE` or a phrase of
    :data:`_ADDITIVE_PAIRS`."""
    return not _ADDITIVE.isdisjoint(words) or any(pair in _ADDITIVE_PAIRS for pair in zip(words, words[1:]))


_FAVOURITE = frozenset("favourite favorite go-to".split())
_STATE_VERBS = {"am": "be", "is": "be", "are": "be", "live": "live", "lives": "live", "work": "work",
                "works": "work"}
_POSSESSIVES = frozenset("my our your".split())
_SPEAKERS = frozenset("i we you".split())   # (he / she / they: which person is meant is said elsewhere)
#: Titles before a person's name: two values that share one differ in the name ("My dentist is
#: Dr. Kim." / "My dentist is now Dr. Patel.").
HONORIFICS = frozenset("dr mr mrs ms miss prof professor sir dame rev fr".split())
_VALUE_MAX_WORDS = 12   # statement words of each at most
_VALUE_MAX_SPAN = 4     # words of each value at most
_WHOLE_MAX_SPAN = 8     # ... of a value with a number replaced whole (an address: "14 Rue des Lilas, Lyon")


def _named(text: str, word: str) -> bool:
    """Whether ``text`` writes ``word`` (lower case) capitalised: a name ("ACME", "Porto")."""
    return any(t.lower() == word and t[0].isupper() for t in tokens(text))


@lru_cache(maxsize=STORED_TEXT_MEMO)   # (asked of each text of a pair the conflict rules compare)
def frames_a_value(text: str) -> bool:
    """Whether ``text`` (str) may give an attribute one value in a frame of :func:`_value_change`:
    an attribute noun (:data:`ATTRIBUTE_NOUNS`, or up to three words after "favourite" or
    "go-to": "my favorite coffee shop is") before "is", "live(s) in", "work(s) at / for", "on (to)
    the ... plan". A cheap test, looser than the rule; the write path
    compares the claims of two texts that both do (:func:`engramdb.sentences.several_claims`)."""
    if text.isascii():   # (the same words in the lower-cased text: a case-insensitive search takes twice as long)
        return _VALUE_FRAME_LOW.search(text.lower()) is not None
    return _VALUE_FRAME.search(text) is not None


#: Words of which the speaker is one at a time, by kind: a diet, a marital status ("I'm vegetarian."
#: then "I'm pescatarian now.", "I'm engaged." then "I'm married now!").
CATEGORY_SETS = {
    "diet": frozenset("vegetarian vegan pescatarian pescetarian omnivore carnivore flexitarian".split()),
    "marital": frozenset("single engaged married divorced widowed separated".split()),
}
_CATEGORY_OF = {w: kind for kind, words in CATEGORY_SETS.items() for w in words}
#: The speaker said to be one of :data:`CATEGORY_SETS`: "I'm vegetarian", "I am now a vegan" (not
#: "I'm thinking of going vegan", "I was vegetarian", "My sister is vegan").
_I_AM_CATEGORY = re.compile(r"(?:^|(?<=[\s,;:(]))(?:i['’]m|i\s+am)\s+(?:(?:now|still|officially|finally|fully|a|an)\s+)*("
                            + alternation(_CATEGORY_OF) + r")\b", re.IGNORECASE)
_VALUE_FRAME = re.compile(r"\b(?:" + alternation(ATTRIBUTE_NOUNS)
                          + r"|(?:favou?rite|go-to)(?:\s+[\w-]+){1,3})\s+is\b|\b(?:live|lives|living|work|works|working)\s+"
                          r"(?:in|at|for)\b|\b(?:on|to)\s+the\s+[\w-]+\s+(?:plan|tier|subscription|package)\b|"
                          + _I_AM_CATEGORY.pattern, re.IGNORECASE)
#: The same pattern for a lower-cased ASCII text (its words are lower case).
_VALUE_FRAME_LOW = re.compile(_VALUE_FRAME.pattern)


def _in_one_word(text: str, words: tuple[str, ...]) -> bool:
    """Whether ``words`` (lower-case tokens, in order) are all tokens of one word of ``text``
    between spaces (an address, "dana@newmail.io": ("dana", "newmail", "io"))."""
    n = len(words)
    for chunk in text.split():
        toks = [t.lower() for t in tokens(chunk)]
        if len(toks) >= n > 0 and any(tuple(toks[i:i + n]) == words for i in range(len(toks) - n + 1)):
            return True
    return False


def _value_change(new: str, old: str, subject: tuple[str, ...], a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two present statements about ``subject`` (fact signatures ``a``, ``b``) give an
    attribute that holds one value at a time two values, in the same words. Three frames:

    - an attribute of :data:`ATTRIBUTE_NOUNS` (or any after "favourite") after "my", "our",
      "your" or a name's "'s", then "is" and the value: "ACME's billing email is jane@acme.io." /
      "... is finance@acme.io.", "My favourite colour is blue." / "... green."; the value's first
      words may be the same when they are one word's ("dana@oldmail.com" / "dana@newmail.io") or
      a name's ("Sarah Lee" / "Sarah Chen"; not "on the lease" / "on the mortgage", "very nice" /
      "very busy"), but for a number ("12 Main Street" / "12 Main St." is the number rule's),
      and a title before a name ("Dr. Anna Kim" / "Dr. Anna Lee") asks for names only;
    - the speaker, the listener or a name who lives in a place or works at (for) an employer,
      both capitalised: "I live in Lisbon." / "I live in Porto.", "Dan works at Fintrack." /
      "Dan works at Globex.";
    - the same on a plan: "ACME is on the Pro plan." / "We are on the Team plan now.".

    Their words after the subject (:func:`_statement_words`, adverbs such as "now" left out)
    are the same but for the value (at most four words each, no number alone: a changed number is
    the number rule's, no negation, no date), at most twelve words each; no word that adds a
    value ("also", "too", "both", "as well": "I also live in Porto"; or a second job's hours:
    "part-time", "on weekends"), no quotation. Anything else is left
    alone: a relation of many ("my sister is Anna"), a thing's state or place ("My car is red" /
    "fast", "The crash is in ..."), he / she / they (who is meant is said elsewhere), two
    medications ("I'm on metformin" / "I'm on lisinopril"). Such a pair is a conflict of kind
    ``"value"``, which the write path links ``contradicts`` (never supersedes: the rules cannot
    tell a second value from a changed one)."""
    if a["date"] != b["date"] or a["negation"] or b["negation"] or '"' in new + old or "\u201c" in new + old:
        return False
    wa, wb = (_statement_words(t, subject) for t in (new, old))
    if wa is None or wb is None or _adds_value(wa) or _adds_value(wb) or any(
            not _SIDE_TIMES.isdisjoint(w) or ("at", "night") in zip(w, w[1:]) for w in (wa, wb)):
        return False
    wa, wb = (tuple(w for w in x if w not in ADVERBS) for x in (wa, wb))
    if len(wa) > _VALUE_MAX_WORDS or len(wb) > _VALUE_MAX_WORDS:
        return False
    at = next((i for i, w in enumerate(wa) if w in _STATE_VERBS), None)
    if at is None or at >= len(wb) or wa[:at] != wb[:at] or _STATE_VERBS.get(wb[at]) != _STATE_VERBS[wa[at]]:
        return False
    pa, pb = wa[at + 1:], wb[at + 1:]
    lead = 0
    while lead < min(len(pa), len(pb)) and pa[lead] == pb[lead]:
        lead += 1
    tail = 0
    while tail < min(len(pa), len(pb)) - lead and pa[-1 - tail] == pb[-1 - tail]:
        tail += 1
    va, vb = pa[lead:len(pa) - tail], pb[lead:len(pb) - tail]
    whole = _replaced_whole(va, vb, lead, tail)
    span = _WHOLE_MAX_SPAN if whole else _VALUE_MAX_SPAN
    if not (0 < len(va) <= span and 0 < len(vb) <= span):
        return False
    if any(w in DATE_WORDS or w in MONTHS or w in _DETERMINERS for w in va + vb) or (
            (any(w.isdigit() for w in va + vb) or any(w.isdigit() for w in pa[:lead])) and not whole):
        return False   # (a number before it: an address, "12 Main Street" / "12 Main St.", is the number rule's)
    verb = _STATE_VERBS[wa[at]]
    owner = subject + wa[:at]
    if owner and owner[0] == "user":   # a chat's role label before the subject
        owner = owner[1:]
    if not owner:
        return False
    # the speaker, or a name of up to three capitalised words ("Acme Corp", "Dana Whitfield": helper-235)
    someone = (len(owner) == 1 and owner[0] in _SPEAKERS) or (len(owner) <= 3 and all(
        w not in _PRONOUNS and w not in FUNCTION_WORDS and _named(new, w) and _named(old, w) for w in owner))
    if verb == "be" and len(owner) >= 2 and (owner[0] in _POSSESSIVES or owner[0].endswith("'s")):
        # (a value's words before the change may be the same: "dana@oldmail.com" / "dana@newmail.io",
        # "dark blue" / "dark green", "Dr. Kim" / "Dr. Patel")
        if lead and not any(w in HONORIFICS for w in pa[:lead]) and not (
                (_in_one_word(new, pa[:lead] + va) and _in_one_word(old, pb[:lead] + vb))
                or all(_named(new, w) for w in pa[:lead] + va) and all(_named(old, w) for w in pb[:lead] + vb)):
            return False   # (the same first words of a value are the same word's, "dana@oldmail.com", or a
            # name's, "Sarah Lee"; not "on the lease" / "on the mortgage", "very nice" / "very busy")
        if any(w in HONORIFICS for w in pa[:lead]) or va[0] in HONORIFICS or vb[0] in HONORIFICS:
            # a person named: names only, not a title
            # alone ("Mrs. Brown" / "Ms. Brown"), nor more ("Dr. Patel for cleanings", "... temporarily")
            if not (all(_named(new, w) for w in va) and all(_named(old, w) for w in vb)) or \
                    all(w in HONORIFICS for w in va + vb):
                return False
        return owner[-1] in ATTRIBUTE_NOUNS or bool(_FAVOURITE & set(owner))
    if not someone or not (_named(new, va[0]) and _named(old, vb[0])):
        return False
    if verb == "live":
        return lead == 1 and pa[0] == "in" and not tail
    if verb == "work":
        return lead == 1 and pa[0] in ("at", "for") and not tail
    return lead == 2 and pa[:2] == ("on", "the") and tail == 1 and pa[-1] in _PLAN_NOUNS


def _replaced_whole(va: tuple[str, ...], vb: tuple[str, ...], lead: int, tail: int) -> bool:
    """Whether two values that hold a number share no word at all, and each holds a word besides
    its numbers: a whole value replaced, "12 Oak Street Springfield" / "40 Pine Road Shelbyville"
    (not "12 Main Street" / "14 Main Street", nor a bare number: the number rule's)."""
    return (not lead and not tail and set(va).isdisjoint(vb)
            and all(any(w.isdigit() for w in v) and not all(w.isdigit() for w in v) for v in (va, vb)))


#: First-person words that open a subject said by the user without a label ("I take 20 mg").
_FIRST_PERSON_SUBJECT = frozenset("i we my our me us i'm we're".split())
_POSSESSIVE_WORDS = frozenset("my our your his her their".split())


#: Adjectives after a possessive that say a value replaced an earlier one, not which thing it is
#: ("My new phone number is ...", "Our current rent is ..."): the subject is the same as without.
CHANGE_ADJECTIVES = frozenset("new current updated latest present".split())
#: Openers before it ("Btw my new phone number is ...": helper-229; :data:`OPENERS`, :data:`OPENING_PHRASES`).
_OPENER_RUN = "(?:(?:" + "|".join(sorted([*OPENERS, *(r"\s+".join(p) for p in OPENING_PHRASES)], key=len, reverse=True)) \
    + r")[,!.]*\s+)*"
_CHANGE_ADJECTIVE = re.compile(rf"^((?:user:\s+)?{_OPENER_RUN}(?:my|our|your|his|her|their|(?:the\s+)?user['’]s)\s+)"
                               rf"(?:{'|'.join(CHANGE_ADJECTIVES)})\s+", re.I)


#: A change adjective that opens a statement of a contact detail without a possessive ("New address
#: is 40 Pine Road.", "Btw, updated email is ..."): the speaker's ("my"). Only a detail that names
#: no thing of its own ("New gym is great." says how the gym is, not which).
BARE_CHANGE_NOUNS = frozenset("address email e-mail phone mobile cell username handle password passcode pin timezone"
                              .split())
_BARE_CHANGE = re.compile(rf"^((?:user:\s+)?{_OPENER_RUN})(?:{'|'.join(CHANGE_ADJECTIVES)})\s+"
                          rf"(?=(?:{'|'.join(sorted(BARE_CHANGE_NOUNS))})(?:\s+number)?\s+is\b)", re.I)


#: What a contact detail's value holds (a digit, "@", "/", "_", "+", or an abbreviation: "40 Pine
#: Road", "dana@acme.io", "America/Chicago", "PST"): "New username is taken." gives none.
_BARE_VALUE = re.compile(r"\bis\s+[^.!?]*?(?:[\d@/_+]|\b(?-i:[A-Z]{2,})\b)")


#: A home said as the street address lived at: "I live at 14 Rue des Lilas, Lyon." reads "My
#: address is 14 Rue des Lilas, Lyon." (a number, or a flat, first; not "I live at the beach").
_LIVE_AT = re.compile(rf"^((?:user:\s+)?{_OPENER_RUN})(?:(?P<i>i)|we)\s+(?:now\s+|currently\s+)?live\s+at\s+"
                      r"(?=\d|(?:flat|apt|apartment|unit|suite)\b)", re.I)


def _plain_live_at(text: str) -> str:
    """``text`` with "I live at <address>" read as "My address is <address>" (:data:`_LIVE_AT`)."""
    m = _LIVE_AT.match(text) if "live at" in text.lower() else None
    if m is None:
        return text
    return m.group(1) + ("My" if m.group("i") else "Our") + " address is " + text[m.end():]


def subject_text(text: str) -> str:
    """``text`` as the write path reads its subject (:func:`subject_of`): a contact detail after a
    change adjective as the speaker's (:func:`bare_change`), "I live at <address>" as "My address
    is <address>"."""
    return _plain_live_at(_plain_attribute(text))


def _bare_match(text: str) -> re.Match | None:
    """The match of :data:`_BARE_CHANGE` at the start of ``text`` when a value that looks like one
    follows (:data:`_BARE_VALUE`), else None."""
    b = _BARE_CHANGE.match(text)
    return b if b is not None and _BARE_VALUE.search(text, b.end()) is not None else None


def bare_change(text: str) -> bool:
    """Whether ``text`` (str) opens with a contact detail after a change adjective and no
    possessive ("New address is 40 Pine Road.", :data:`_BARE_CHANGE`), read as the speaker's. The
    write path does not read a later sentence of a message so: "My sister just moved. New address
    is 40 Pine Road." gives the sister's."""
    return _bare_match(text) is not None


def _plain_attribute(text: str) -> str:
    """``text`` without the change adjective after its opening possessive that :func:`subject_key`
    reads away ("My new phone number is ..." reads "My phone number is ..."; "My new client pays
    ..." is another client, and stays); one that opens it without a possessive is the speaker's
    ("New address is ..." reads "my address is ...": :data:`_BARE_CHANGE`)."""
    if (b := _bare_match(text)) is not None:
        return b.group(1) + "my " + text[b.end():]
    m = _CHANGE_ADJECTIVE.match(text)
    if m is None:
        return text
    plain = m.group(1) + text[m.end():]
    return plain if subject_key(subject_of(text)) == subject_key(subject_of(plain)) else text


#: A phone number said in other words ("my number is 401 ...", "my cell is ...", "my mobile number is ..."),
#: read as "my phone number is ..." (helper-230: "Btw my new number is 401 555 0199").
_PHONE_NUMBER = re.compile(r"\b((?:my|our)\s+(?:(?:new|current|updated|latest)\s+)?)(?:(?:cell|mobile)(?:\s+phone)?"
                           r"(?:\s+number)?|number)(?=\s+is\s+\+?\(?\d(?:[\s().-]*\d){6})", re.I)


#: An age said in other words: "turned 8" (with the day it happened: "Maya turned 8 yesterday!")
#: and "is 7 years old" read as "is 8", "is 7".
_TURNED = re.compile(r"\bturned\s+(\d{1,3})(?:\s+years?\s+old)?(?:\s+(?:today|yesterday|this\s+(?:week|weekend|month)|"
                     r"last\s+(?:week|weekend|month|night)|on\s+\w+day))?(?=\s*(?:[.!,;]|$))", re.I)
_YEARS_OLD = re.compile(r"\b(is|am|are|['’][sm])\s+(\d{1,3})\s+years?\s+old\b", re.I)
#: A name's age with "is" contracted: "Maya's 8 now!", "Leo's 3 already." (a number, then "now",
#: "already" or "this year" and the clause's end; not "Maya's 8 books", a possessive, nor "Who has
#: the most stickers? Maya's 8.", a possessive said short).
_NAME_IS_AGE = re.compile(r"\b((?-i:[A-Z])[\w-]*)['’]s\s+(\d{1,3})(?=\s+(?:now|already|this\s+year)\s*(?:[.!,;]|$))")
#: A person named after who they are to the speaker ("My daughter Maya", "Our neighbour Raj").
_APPOSITION = re.compile(r"^(\s*(?:user:\s+)?)(?:my|our)\s+[a-z]+\s+(?=(?-i:[A-Z])[\w'’-]+\s)", re.I)


#: A plan changed, said as the plan held after it: "We upgraded to the Enterprise plan.", "Umbrella
#: Corporation moved from the Starter plan to the Pro plan." (helper-235). The plan's name is one
#: word ("Vercel Pro plan", "Keto Diet plan" name a product or no account's plan; "Trial" is none
#: that holds, "Retirement plan" or "Payment plan" no tier of an account), the day it changed
#: may follow when it is a recent one ("today", "last week", "on Monday"; not "on 2019-03-01",
#: "last year", "on trial": helper-236), and "us" / "my account" after the verb makes the plan
#: the speaker's ("Acme switched us to the Pro plan").
_PLAN_CHANGE = re.compile(
    r"^(?P<subject>(?:user:\s+)?(?-i:[A-Z])[\w'’.&-]*(?:\s+(?-i:[A-Z])[\w'’.&-]*){0,3})\s+(?:(?:just|finally|recently)\s+)?"
    r"(?:upgraded|downgraded|moved|switched|changed)(?:\s+(?P<object>us|me|our\s+account|my\s+account)|\s+over)?"
    r"(?:\s+from\s+(?:the|our|my)\s+(?-i:[A-Z])[\w+-]*\s+(?:plan|tier|subscription))?"
    r"\s+to\s+the\s+(?P<plan>(?!(?:trial|demo|test|sandbox|retirement|pension|payment|installment|savings|meal|diet|"
    r"training|workout|exercise|treatment|care|study|lesson|travel|floor|action|marketing|project|phone|data|dental|"
    r"health|insurance|birth)\b)(?-i:[A-Z])[\w+-]*\s+(?:plan|tier|subscription))"
    r"(?:\s+(?:today|yesterday|this\s+(?:week|month)|last\s+(?:week|night)|on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day))?"
    r"(?=\s*(?:[.!]|$))", re.I)
_PLAN_BE = {"i": "am", "we": "are", "they": "are", "you": "are"}


def _plain_age(text: str) -> str:
    """``text`` with an age said in other words as "is N" (:data:`_TURNED`, :data:`_YEARS_OLD`,
    :data:`_NAME_IS_AGE`)."""
    if "turned" in text or "old" in text:
        text = _YEARS_OLD.sub(r"\1 \2", _TURNED.sub(r"is \1", text))
    if "s " in text:
        text = _NAME_IS_AGE.sub(r"\1 is \2", text)
    return text


def _plain_plan(m: re.Match) -> str:
    subject = m.group("subject")
    label = re.match(r"(?:user:\s+)?", subject).group(0)
    account = m.group("object")
    if account is not None:   # the plan of whom the verb acted on: "Acme switched us to ..."
        subject = label + ("We" if account.lower() in ("us", "our account") else "I")
    last = subject.split()[-1].lower()
    return f"{subject} {_PLAN_BE.get(last, 'is')} on the {m.group('plan')}"


def plain_statement(text: str) -> str:
    """``text`` with an age or a plan said in other words as the state it gives, unchanged
    otherwise:

    - an age (:data:`_TURNED`, :data:`_YEARS_OLD`, :data:`_NAME_IS_AGE`): "Maya turned 8
      yesterday!" reads "Maya is 8!", "Maya is 7 years old." reads "Maya is 7.", "Maya's 8 now!"
      reads "Maya is 8 now!";
    - a plan changed (:data:`_PLAN_CHANGE`): "We upgraded to the Enterprise plan." reads "We are
      on the Enterprise plan.", "Acme moved from the Starter plan to the Pro plan last week."
      "Acme is on the Pro plan." (then compared as another value on a plan, a contradiction).

    The day an age was reached or a plan changed names no event of it: the write path reads a
    statement's times from this text.

    >>> plain_statement("Maya turned 8 yesterday!")
    'Maya is 8!'
    >>> plain_statement("We upgraded to the Enterprise plan.")
    'We are on the Enterprise plan.'
    """
    text = _plain_age(text)
    if " to the " in text:
        text = _PLAN_CHANGE.sub(_plain_plan, text, count=1)
    return text


#: The age a statement gives, as :func:`plain_statement` says it ("Maya is 8").
_AGE_IS = re.compile(r"\b(?:is|am|are|['’][sm])\s+(\d{1,3})\b", re.I)


def _age_checked(kind: str | None, raw: tuple[str, str], new: str, old: str) -> str | None:
    """``kind`` of the pair ``raw`` (new, old as given; ``new``, ``old`` as :func:`_one_voice`
    reads them), but "value" (a contradiction, never a supersede) for a changed number read from
    an age said in other words or of a person named after who they are to the speaker, unless
    the age went up by one to three years and both name the person alike: "Maya turned 80!" may
    be Grandma Maya, and "Maya turned 5" no later age of "My daughter Maya is 7" (hostile pass,
    helper-233: such pairs superseded the true age)."""
    if kind != "number":
        return kind
    pn, po = _plain_age(raw[0]), _plain_age(raw[1])
    named = _without_apposition(pn, po) != (pn, po)
    if not named and pn == raw[0] and po == raw[1]:
        return kind
    a, b = _AGE_IS.search(new), _AGE_IS.search(old)
    step = int(a.group(1)) - int(b.group(1)) if a is not None and b is not None else 0
    return "number" if not named and 1 <= step <= 3 else "value"


def _without_apposition(new: str, old: str) -> tuple[str, str]:
    """``new`` and ``old`` with "my <person noun>" (:data:`engramdb.speakers.PERSON_NOUNS`) dropped
    before a name that opens one of them when the other's subject is that name alone: "My
    daughter Maya is 7." and "Maya is 8." speak of one Maya (:func:`subject_key` reads the two
    subjects alike)."""
    for i, text in enumerate((new, old)):
        m = _APPOSITION.match(text)
        if m is None:
            continue
        subject, other = subject_of(text), subject_of((old, new)[i])
        if subject[:1] == ("user",) and other[:1] == ("user",):   # (two chat messages of the user)
            subject, other = subject[1:], other[1:]
        if len(subject) == 3 and subject[1] in PERSON_NOUNS and subject[2:] == other:
            plain = m.group(1) + text[m.end():]
            return (plain, old) if i == 0 else (new, plain)
    return new, old


def subject_key(subject: tuple[str, ...]) -> tuple[str, ...]:
    """``subject`` without a leading "user" chat label before a first-person word ("user", "i")
    -> ("i",), and without a change adjective after its possessive (the user's too) before an
    attribute noun or after "favourite" (:data:`CHANGE_ADJECTIVES`, :data:`ATTRIBUTE_NOUNS`: ("my",
    "new", "phone", "number") -> ("my", "phone", "number"), ("my", "new", "favourite") -> ("my",
    "favourite"); ("my", "new", "client") stays). The user's chat message and a
    note about the user speak with one voice (see :func:`_one_voice`), and "my new phone number"
    is the number "my phone number" was; a person named after who they are to the speaker as the
    name alone (("my", "daughter", "maya") -> ("maya",): :func:`_without_apposition`); the write
    path's prefilter compares subjects by this key (of :func:`subject_text`: "New address is ..."
    is read as "my address is ..." there)."""
    if len(subject) in (3, 4) and subject[-3] in ("my", "our") and subject[-2] in PERSON_NOUNS \
            and (len(subject) == 3 or subject[0] == "user"):
        return subject[:-3] + subject[-1:]
    if len(subject) > 1 and subject[0] == "user" and subject[1] in _FIRST_PERSON_SUBJECT:
        subject = subject[1:]
    if (len(subject) > 2 and (subject[0] in _POSSESSIVE_WORDS or subject[0] in ("user's", "user’s"))
            and subject[1] in CHANGE_ADJECTIVES
            and (subject[-1] in ATTRIBUTE_NOUNS or not _FAVOURITE.isdisjoint(subject[2:]))):
        subject = subject[:1] + subject[2:]
    return subject


@lru_cache(maxsize=STORED_TEXT_MEMO)   # (asked of both texts of each pair)
def _plain(text: str) -> str:
    """``text`` as :func:`_one_voice` compares it: no reminder's opener, "my number" of a phone
    as "my phone number", no change adjective, "I live at <address>" as "My address is <address>",
    an age or plan as the state it gives."""
    return plain_statement(subject_text(_PHONE_NUMBER.sub(r"\1phone number", without_reminder(text))))


def _one_voice(new: str, old: str) -> tuple[str, str]:
    """``new`` and ``old`` with a "user: " label (a chat message of add_conversation) dropped
    from one of them when the other states the same speaker's fact without a label: "user: I take
    10 mg of lisinopril" and a note "I take 20 mg of lisinopril" are the user's two statements
    (a memory an agent keeps about its user speaks as the user); and without a change adjective
    after an opening possessive ("My new phone number is ..." reads as "My phone number is ...",
    :data:`CHANGE_ADJECTIVES`). Unchanged otherwise. A reminder's opener is no part of either (:func:`without_reminder`:
    "Remember, I take 5 mg" states "I take 5 mg")."""
    new, old = _plain(new), _plain(old)
    new, old = _without_apposition(new, old)
    ln, lo = new[:6].lower() == "user: ", old[:6].lower() == "user: "
    if ln == lo:
        return new, old
    bare = old if ln else new
    first = subject_of(bare)[:1]
    if not first or first[0] not in _FIRST_PERSON_SUBJECT:
        return new, old
    return (new[6:], old) if ln else (new, old[6:])


def conflict(new: str, old: str, *, min_overlap: float = 0.8) -> str | None:
    """Does ``new`` negate, or change a number of, what ``old`` states about the same subject?

    Rule-based and conservative (a false supersede hides a true fact):

    - same subject (:func:`subject_of`), same dates and names (:func:`fact_signature`; a
      capitalised word the other writes in lower case is no other name, as in :func:`fact_change`);
    - both state a present fact: no modal or past perfect after the subject ("I'd take 20 mg",
      "I'll be 40", "I had paid 900": :data:`NOT_PRESENT`);
    - the rest of what they say is the same: the Jaccard overlap of their predicate's content
      words (numbers and negations left out) is at least ``min_overlap``; when they give one
      quantity two values (:func:`quantity_clash`: a number before the same word, "500 mg" /
      "1000 mg"), the share of the shorter predicate's words found in the longer one;
    - then ``"negation"`` when exactly the negation count differs (numbers equal), ``"number"``
      when both hold numbers, the numbers differ and the negation count is equal;
    - else ``"value"`` when they give one attribute two values in the same words
      (:func:`_value_change`: "My email is a@x.io" / "My email is b@x.io", "I live in Lisbon" /
      "I live in Porto"), names included.

    Parameters
    ----------
    new, old : str
    min_overlap : float
        In [0, 1].

    Returns
    -------
    {"negation", "number", "event_number", "value"} or None
        ``"event_number"``: a changed number between reports of a past event ("I ran 5 km" /
        "I ran 8 km"), a correction only if both speak of the same named time. ``"value"``: the
        write path links the two ``contradicts`` and never supersedes (the rules cannot tell a
        second value from a changed one).

    Examples
    --------
    >>> conflict("Bob is not allergic to shellfish", "Bob is allergic to shellfish")
    'negation'
    >>> conflict("I have worked there for 6 years", "I have worked there for 5 years")
    'number'
    >>> conflict("Alice is not allergic to shellfish", "Bob is allergic to shellfish") is None
    True
    >>> conflict("I ran 8 km", "I ran 5 km")
    'event_number'
    """
    raw = new, old
    new, old = _one_voice(new, old)
    subject = _same_subject(subject_of(new), subject_of(old), new, old)
    if subject is None or _statement_words(new, subject) is None or _statement_words(old, subject) is None:
        return None
    a, b = fact_signature(new), fact_signature(old)
    return _age_checked(_conflict_kind(new, old, subject, a, b, min_overlap), raw, new, old)


def _conflict_kind(new: str, old: str, subject: tuple[str, ...], a: dict[str, Any], b: dict[str, Any],
                   min_overlap: float) -> str | None:
    """The end of :func:`conflict` and :func:`conflict_many`, for two statements about ``subject``
    with fact signatures ``a`` and ``b``."""
    if not _other_names(a, b, new, old):
        pa, pb = _predicate_words(new, subject), _predicate_words(old, subject)
        kind = _judge(a, b, pa, pb, min_overlap,
                      _event_report(new, subject) or _event_report(old, subject), _clashing_units(new, old),
                      _bare_number(new, subject) and _bare_number(old, subject))
        if kind is None and a["date"] == b["date"] and _ceased_habit(new, old, a, b, pa, pb):
            kind = "negation"
        if kind == "negation" and not _negated_claim(new, old, min_overlap):
            return None
        if kind is not None:
            return kind
    return "value" if _value_change(new, old, subject, a, b) or _category_change(new, old, subject, a, b) else None


def _category_change(new: str, old: str, subject: tuple[str, ...], a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether the speaker says of themselves two words of one of :data:`CATEGORY_SETS` ("I'm
    vegetarian, so keep that in mind." / "I'm pescatarian now."): no negation in either, the
    speaker the subject of both."""
    if a["negation"] or b["negation"] or subject[-1:] not in (("i",), ("i'm",)):
        return False
    m, n = _I_AM_CATEGORY.search(new), _I_AM_CATEGORY.search(old)
    if m is None or n is None:
        return False
    x, y = m.group(1).lower(), n.group(1).lower()
    return x != y and _CATEGORY_OF[x] == _CATEGORY_OF[y] and {x, y} != {"pescatarian", "pescetarian"}


#: What says a habit stopped: "I don't drink coffee anymore", "We no longer use Jira".
_CEASED = re.compile(r"\b(?:any\s?more|no\s+longer)\b", re.I)
#: Words of how often or when a habit was kept ("I drink coffee every morning", "... with
#: breakfast"): a statement that it stopped need not repeat them.
HABIT_WORDS = frozenset("every each day days daily morning mornings night nights nightly evening evenings afternoon "
                        "afternoons week weeks weekly weekend weekends weekday weekdays month months monthly year yearly "
                        "often usually regularly sometimes breakfast lunch dinner".split())
#: What makes a "not ... anymore" no stop of a habit: an obligation or an ability ("I don't have to
#: drink coffee anymore", "I can't drink coffee anymore").
_NO_STOP = re.compile(r"\b(?:ha(?:ve|s)\s+to|need(?:s)?\s+to|can['’]?t|cannot|couldn['’]?t|able\s+to)\b", re.I)


def _ceased_habit(new: str, old: str, a: dict[str, Any], b: dict[str, Any], pa: frozenset[str],
                  pb: frozenset[str]) -> bool:
    """Whether one of two statements about the same subject (fact signatures ``a``, ``b``,
    predicate words ``pa``, ``pb``) says that a habit the other states stopped: it holds one
    negation more and "anymore" or "no longer" (:data:`_CEASED`), the same numbers, and the
    other says what it says plus only when or how often (:data:`HABIT_WORDS`): "I don't drink
    coffee anymore." / "I drink coffee every morning." (not "... with milk": another claim). The
    stop names no time or meal itself: "I don't take insulin at night anymore." stops one of the
    doses of "I take insulin every morning and night.", "I don't eat lunch anymore." one of the
    meals of "I eat breakfast and lunch every day."; nor is it an obligation or an ability gone
    (:data:`_NO_STOP`)."""
    if a["negation"] == b["negation"] or a["number"] != b["number"]:
        return False
    stopped, kept, said, other = (new, old, pa, pb) if a["negation"] > b["negation"] else (old, new, pb, pa)
    if not said or not said < other or _CEASED.search(stopped) is None or _CEASED.search(kept) is not None \
            or _NO_STOP.search(stopped) is not None:
        return False
    global _HABIT_STEMS
    if _HABIT_STEMS is None:
        _HABIT_STEMS = frozenset(_stem(w) for w in HABIT_WORDS) | HABIT_WORDS
    return said.isdisjoint(_HABIT_STEMS) and other - said <= _HABIT_STEMS


_HABIT_STEMS: frozenset[str] | None = None


def _negated_claim(new: str, old: str, min_overlap: float) -> bool:
    """Whether the negation that tells ``new`` from ``old`` negates a claim both make: texts of
    several sentences need one sentence of each that :func:`conflict` reads as a negation.
    "I'm gonna be in Japan for a few months! I can't wait!" says the first sentence again, and
    its "can't" is of another sentence (the whole texts' words are alike, their negation counts
    differ)."""
    ours, theirs = split_sentences(new), split_sentences(old)
    if len(ours) <= 1 and len(theirs) <= 1:
        return True
    ours, theirs = labelled(new, ours or (new,)), labelled(old, theirs or (old,))
    return any(conflict(x, y, min_overlap=min_overlap) == "negation" for x in ours for y in theirs)


def conflict_many(pairs, *, min_overlap: float = 0.8,
                  subjects: dict[str, tuple[str, ...]] | None = None) -> list[str | None]:
    """:func:`conflict` of many ``(new, old)`` text pairs, each text analysed once.

    The write path compares every new memory with each of its near neighbours (a batch of
    10,000 gives some 50,000 pairs over far fewer distinct texts): the subject, the article-free
    token count and the fact signature of each distinct text are computed once for the call,
    and a pair whose subjects cannot match (the common case) costs one tuple comparison.

    Parameters
    ----------
    pairs : iterable of (str, str)
        ``(new, old)`` statements.
    min_overlap : float
        In [0, 1], as for :func:`conflict`.
    subjects : dict of str to tuple of str, optional
        :func:`subject_of` of texts already analysed (the write path's, see
        ``engramdb.write.records``); extended in place with the texts analysed here.

    Returns
    -------
    list of {"negation", "number", "event_number", "value"} or None
        ``conflict(new, old, min_overlap=min_overlap)`` of each pair, in order.
    """
    if subjects is None:
        subjects = {}
    sigs: dict[str, dict[str, Any]] = {}
    out: list[str | None] = []
    for new, old in pairs:
        raw = new, old
        new, old = _one_voice(new, old)   # ("user: I take 10 mg" and a note "I take 20 mg")
        sa = subjects.get(new)
        if sa is None:
            sa = subjects[new] = subject_of.__wrapped__(new)
        sb = subjects.get(old)
        if sb is None:
            sb = subjects[old] = subject_of.__wrapped__(old)
        if sa != sb and not (sa and sb and (sa[: len(sb)] == sb or sb[: len(sa)] == sa)):
            out.append(None)   # _same_subject needs equal subjects or one a prefix of the other
            continue
        subject = _same_subject(sa, sb, new, old)
        if subject is None or _statement_words(new, subject) is None or _statement_words(old, subject) is None:
            out.append(None)
            continue
        a = sigs.get(new)
        if a is None:
            a = sigs[new] = fact_signature(new)
        b = sigs.get(old)
        if b is None:
            b = sigs[old] = fact_signature(old)
        out.append(_age_checked(_conflict_kind(new, old, subject, a, b, min_overlap), raw, new, old))
    return out


def _judge(a: dict[str, Any], b: dict[str, Any], pa: frozenset[str], pb: frozenset[str],
           min_overlap: float, event: bool = False, units: frozenset[str] = frozenset(),
           bare: bool = False) -> str | None:
    """The end of :func:`conflict`: fact signatures ``a``, ``b`` and predicate words ``pa``, ``pb``
    of two statements about the same subject; ``event`` when one reports a past event
    (:func:`_event_report`): then only a changed year is a ``"number"`` correction of it
    ("moved to Berlin in 2019" / "in 2020"); another changed number is ``"event_number"``: a
    correction only when both name the same time ("I ran 5 km this morning" said twice in one
    morning), else another event (the write path decides, knowing the times). ``units``: the
    words after a number that the two give different numbers (:func:`quantity_clash`: "500 mg" /
    "1000 mg"); when the shorter predicate holds two words besides them, ``min_overlap`` of those
    must be in the longer one ("I take metformin 500 mg every morning" / "I started taking 1000
    mg of metformin": a detail said once is no other fact), else both predicates must share
    ``min_overlap`` of their words (Jaccard: "I walk 3 km" says too little to be compared with
    "I walk 5 km to work and 2 km home"). A statement whose numbers include all the other's
    changes none of them. ``bare``: both say nothing but a whole number of their subject
    (:func:`_bare_number`): that number is what they compare."""
    if a["date"] != b["date"]:
        return None
    union = pa | pb
    unit_words = {_stem(u) for u in units}
    short = min(pa, pb, key=len) - unit_words
    if not union:   # nothing said but a number ("My daughter is 7" / "My daughter is 8"), or nothing
        if not bare:
            return None
        share = 1.0
    elif units and len(short) >= 2:   # (the unit is in both by construction: it counts for neither side)
        share = len((pa & pb) - unit_words) / len(short)
    else:
        share = len(pa & pb) / len(union)
    if share < min_overlap:
        return None
    if a["negation"] != b["negation"] and a["number"] == b["number"]:
        return "negation"
    # one statement giving every number of the other, and more, restates it and adds another
    # quantity ("I take metformin 500 mg and aspirin 100 mg" / "I take metformin 500 mg")
    if (a["number"] and b["number"] and not (a["number"] <= b["number"] or b["number"] <= a["number"])
            and a["negation"] == b["negation"]):
        if event and not (_years(a["number"]) ^ _years(b["number"])):
            return "event_number"
        return "number"
    return None


#: Words of an acknowledgement that restates what was said ("Got it: metformin 500 mg each
#: morning.", "Noted, metformin 500 mg now."): no fact of their own.
ACKNOWLEDGEMENTS = frozenset("got noted note ok okay sure understood alright right great perfect thanks thank "
                             "each every per it is".split())
#: The two parties of a chat: the user's "I" is the assistant's "you".
_PARTIES = frozenset("i me my mine myself you your yours yourself".split())
#: Other people.
_OTHERS = frozenset("he him his she her hers they them their theirs we us our ours".split())
#: Words that put a restatement in the past ("You were taking 500 mg before"): still true.
_PAST = frozenset("was were used before previously earlier formerly until originally".split())


def _object_word(word: str) -> bool:
    return not (word in FUNCTION_WORDS or word in ACKNOWLEDGEMENTS or word in NEGATIONS or word in ADVERBS
                or word in _PARTIES or word in _OTHERS or word in NUMBER_WORDS or word[:1].isdigit())


@lru_cache(maxsize=1 << 14)
def _quantity_objects(text: str) -> frozenset[tuple[str, str, str]]:
    """(value, unit, object) of each quantity of ``text``: the unit is the word after the number,
    the object (by stem) the word after "of" following the unit ("500 mg of metformin"), else the
    nearest word before the number within three that is no function word, pronoun or
    acknowledgement ("metformin 500 mg"). A quantity with no object is left out."""
    out = set()
    for m in _QUANTITY.finditer(text):
        after = [t.lower() for t in tokens(text[m.end():m.end() + 80])[:2]]
        if len(after) == 2 and after[0] == "of" and _object_word(after[1]):
            obj = after[1]
        else:
            obj = next((w for w in reversed([t.lower() for t in tokens(text[max(0, m.start() - 80):m.start()])][-3:])
                        if _object_word(w)), None)
        if obj is not None:
            out.add((m.group(1).replace(",", "."), m.group(2).lower(), _stem(obj)))
    return frozenset(out)


_SENTENCE_BREAK = re.compile(r"[.!?…]+\s+")


def _sentence_at(text: str, pos: int) -> str:
    """The sentence of ``text`` holding character ``pos``, without a leading speaker label."""
    start = 0
    for m in _SENTENCE_BREAK.finditer(text, 0, pos):
        start = m.end()
    end = _SENTENCE_BREAK.search(text, pos)
    out = text[start:end.start() if end else len(text)]
    label = _LABEL.match(out)
    return out if label is None else out[label.end():]


def restates(text: str, old: str, new: str, also: tuple[str, ...] = ()) -> bool:
    """Whether ``text`` restates a value that ``new`` changes in ``old``: an echo of an outdated
    statement, such as an assistant's confirmation ("Got it: metformin 500 mg each morning.") of
    ``old`` ("I take metformin 500 mg every morning.") once ``new`` ("I started taking 1000 mg
    of metformin.") changed it. The write path links ``new`` to such an echo ``contradicts``, as
    to ``old``: recall then puts ``new`` first, with a warning, where it offered the old value
    said once more as a current fact.

    Rule-based and narrow; all of:

    - a quantity of ``old`` (a number, the word after it as its unit, and what it is of: the word
      after "of", else the nearest content word before the number, "metformin 500 mg" / "500 mg
      of metformin") has another value in ``new``, and ``text`` gives that quantity ``old``'s
      value (not ``new``'s): "Noted, aspirin 100 mg" restates no metformin dose;
    - ``text`` says nothing else: each of its content words (by stem; numbers, function words,
      adverbs and acknowledgements such as "got it", "noted", "each" aside) is one of ``old``'s
      or ``new``'s; it names no other person than ``old`` does (he, she, they, we; the chat's
      two parties, I and you, are one), and when the sentence of ``old`` that holds the value
      has a subject other than I or you ("My husband works 40 hours", "He owns 3 bikes"),
      ``text`` names it too;
    - ``text`` is no question (its sentences that ask are read past: "Got it: metformin 500 mg
      each morning. Want a refill reminder?"), negates as that sentence does ("He no longer owns 6 bikes" is
      not restated by "He owns 6 bikes"), and puts nothing in the past or the future ("was",
      "before", "used to"; "will", "should": :data:`NOT_PRESENT`).

    Parameters
    ----------
    text, old, new : str
        A leading speaker label ("assistant: ") is no part of what they say.
    also : tuple of str
        The statements ``old`` itself changed, when it is a change report: their words count
        as ``old``'s for the rule that ``text`` says nothing else, and their persons as named
        ("Got it: metformin 1000 mg each morning." restates "My doctor raised my metformin to
        1000 mg.", which changed "I take metformin 500 mg every morning.", once "My doctor
        lowered my metformin to 750 mg." changed it).

    Returns
    -------
    bool

    Examples
    --------
    >>> restates("Got it: metformin 500 mg each morning.", "I take metformin 500 mg every morning.",
    ...          "I started taking 1000 mg of metformin.")
    True
    >>> restates("Noted, aspirin 100 mg.", "I take metformin 500 mg and aspirin 100 mg.", "I take metformin 1000 mg.")
    False
    """
    # its sentences that ask are read past ("Got it: lisinopril 10 mg each morning. Want a refill
    # reminder?" restates the dose); a text of questions only restates nothing
    text = without_questions(text)
    text, old, new = (x[label.end():] if (label := _LABEL.match(x)) is not None else x for x in (text, old, new))
    if not text.strip() or ends_in_question(text):
        return False
    toks_t = [t.lower() for t in tokens(text)]
    if any(w in _PAST or w in NOT_PRESENT for w in toks_t):
        return False
    if any(w.endswith(("'ll", "’ll", "'d", "’d")) for w in toks_t):
        return False
    q_old, q_new, q_text = _quantity_objects(old), _quantity_objects(new), _quantity_objects(text)
    in_new = {(u, o) for _v, u, o in q_new}   # the quantities new gives a value
    changed = {(v, u, o) for v, u, o in q_old if (u, o) in in_new and (v, u, o) not in q_new}
    said = changed & q_text
    if not said or any((v, u, o) in q_new for v, u, o in q_text):
        return False
    toks_o = [t.lower() for t in tokens(old)]
    toks_also = [t.lower() for x in also for t in tokens(_LABEL.sub("", x, count=1))]
    if {w for w in toks_t if w in _OTHERS} - set(toks_o) - set(toks_also):
        return False
    for v, u, o in said:   # the sentence that gave the value: its negation, and its subject unless I or you
        m = next(m for m in _QUANTITY.finditer(old) if m.group(1).replace(",", ".") == v and m.group(2).lower() == u)
        sentence = _sentence_at(old, m.start())
        if _negation_count([t.lower() for t in tokens(sentence)]) != _negation_count(toks_t):
            return False
        # (whose value it is: of a change report, the statement it changed says, "My doctor raised my
        # metformin to 1000 mg" changed "I take metformin 500 mg")
        givers = [g for g in (_sentence_at(x, q.start()) for x in also for q in _QUANTITY.finditer(x)
                              if q.group(2).lower() == u)
                  if any(obj == o for _v, _u, obj in _quantity_objects(g))]
        for giver in givers or [sentence]:
            subject = {w for w in subject_of(giver) if _object_word(w) or w in _OTHERS}
            if not subject <= set(toks_t):
                return False
    words = _content_stems([w for w in toks_t if w not in ACKNOWLEDGEMENTS and w not in _PARTIES])
    return words <= _content_stems(toks_o) | _content_stems(toks_also) | _content_stems([t.lower() for t in tokens(new)])
