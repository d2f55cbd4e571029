"""A-MAC admission control (arXiv:2603.04549): score candidate memories before storing them.

Each candidate gets five factors in [0, 1], in A-MAC's order (``kernels.reference.ADMISSION_FACTORS``):

========================  ===================================================================
future utility U          ``utility(texts)`` if the caller passes a callable (e.g. an LLM
                          judge); otherwise :func:`heuristic_utility`, a rule-based stand-in.
factual confidence C      the candidate's ``confidence`` (default 1), times 0.7 when the text
                          hedges ("maybe", "I think", "not sure", ...). A-MAC grounds it with
                          ROUGE-L against the transcript; a caller who has a transcript can
                          pass that score as ``confidence``.
semantic novelty N        1 - max(cosine to the namespace's nearest stored memory, cosine to
                          any earlier candidate of the batch), clipped to [0, 1]; 1 for a
                          near-duplicate that changes a number, date, name or negation of
                          it (:func:`fact_change`): the change is what is new.
temporal recency R        2**(-(now - created_at) / ``recency_half_life_s``).
content-type prior T      ``AdmissionConfig.type_prior[kind]``, capped at 0.2 (A-MAC's prior
                          for temporary states) when :func:`is_phatic` finds the text to be
                          only a greeting, thanks or filler.
========================  ===================================================================

Kinds: a candidate that gives a ``kind`` keeps it. One that does not gets the kind its text
states, by rules (:func:`infer_kind`, ``AdmissionConfig.infer_kind``): a fact or preference
is ``semantic``, an event or appointment ``episodic``, and greetings, thanks, laughter,
acknowledgements, weather small talk and bare questions are ``phatic`` chatter. The type
prior T follows the kind (a fact filed as ``semantic`` gets 0.8, not the episodic 0.5), and is
capped as above for chatter that :func:`infer_kind` finds (but not for a text in which it
finds a fact, such as "I'm diabetic", which :func:`is_phatic` counts as one content word).

score = w . [U, C, N, R, T], computed for the whole batch in one ``admission_score`` kernel
call. Decision per candidate, in batch order:

0. *reject, phatic*: no kind given and :func:`infer_kind` says ``phatic``
   (``AdmissionConfig.reject_phatic``): rejected whatever its score, before the duplicate
   check (chatter never reinforces stored chatter either). Giving a kind lets the score decide;
1. *reinforce*: its cosine to a stored active memory (or to an earlier candidate) is at least
   ``duplicate_cosine`` and :func:`fact_change` finds no changed number, date, name or
   negation: the existing memory is reinforced (salience and access count) instead of adding
   a copy; a twin of a rejected earlier candidate is rejected with it;
2. *admit*: score >= threshold;
3. *reject*: otherwise.

Protected facts: a stored candidate whose text states an identity, health or family fact
(:func:`protected_category`, ``AdmissionConfig.protect``) is tagged ``"protected"``
(``forgetting.PROTECTED_TAG``), and the rescoring job never archives or prunes it
(``ForgettingConfig.keep_protected``).

Admitted candidates are written in one transaction with the reinforcements and the log
entries (``Engram.add_batch``'s write path). In shadow mode every candidate is stored and the
decision is only reported and logged.
"""
from __future__ import annotations

import numbers
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from ..chatter import APOSTROPHES, PHATIC, chatter_left, filler_left
from ..contiguity import default_weight
from ..errors import InvalidInputError, MemoryNotFoundError, NonFiniteError
from ..index import exact_cosines
from ..kernels import registry
from ..kernels.reference import ADMISSION_FACTORS
from ..patterns import Needles
from ..facts import (
    DATE_WORDS, FUNCTION_WORDS, MONTHS, NUMBER_WORDS, ends_in_question, fact_change, fact_signature,
    tokens as _tokens, without_reminder,
)
from ..sentences import IMPERATIVE_VERBS
from ..state import EngineState
from ..types import PROTECTED_TAG, MemoryKind, MemoryState, _STATE_CODES
from ..validate import MAX_TAGS
from ..write import write_unit
from ..write.records import Prepared, write_new
from ..wording import count
from ..write.reinforce import boosted, reinforce

if TYPE_CHECKING:  # pragma: no cover
    from ..config import AdmissionConfig

__all__ = ["AdmissionDecision", "fact_change", "fact_signature", "heuristic_utility", "is_phatic",
           "infer_kind", "past_event_verb", "protected_category", "states_a_fact", "strip_speaker", "admit_batch", "nearest_earlier",
           "HEDGE_PENALTY",
           "PHATIC_PRIOR", "PHATIC_KIND", "PROTECTED_CATEGORIES"]

HEDGE_PENALTY = 0.7
PHATIC_PRIOR = 0.2   # A-MAC's type prior of temporary states
NEAREST_BLOCK = 2048   # tile side of nearest_earlier's blocked products (16 MiB of float32)
HEDGES = ("maybe", "perhaps", "probably", "possibly", "might", "i think", "i guess", "not sure",
          "unsure", "i believe", "rumor", "apparently", "supposedly", "i suppose", "i reckon", "i feel like")
CUES = frozenset(
    "prefer prefers preferred like likes love loves hate hates favorite favourite allergic always "
    "never plan plans planning decided decide decision will must need needs remember birthday "
    "deadline booked booking appointment meeting password code address phone email goal goals".split())



_SPEAKER = re.compile(r"^\s*[A-Z][\w .'-]{0,30}:\s+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def strip_speaker(text: str) -> str:
    """``text`` without a leading "Speaker: " label (as conversation turns carry)."""
    return _SPEAKER.sub("", text, count=1)


def _asks_the_listener(sentence: str) -> bool:
    """A question to the other speaker ("What got you into running?"): it states no fact."""
    return sentence.rstrip().endswith("?") and any(t.lower() in ("you", "your", "you're", "you've", "yours")
                                                   for t in _tokens(sentence))


def is_phatic(text: str) -> bool:
    """True when ``text`` holds no fact. Its questions to the listener (sentences ending in "?"
    that say "you" / "your") and a leading speaker label are set aside; then the rest is phatic
    when every word is a greeting,
    thanks or filler / function word; or its only content words are names ("Thanks, Mel!") and
    it has no number or date; or it has fewer than two content words (3+ letters, not function
    words) and no number, date or name."""
    body = " ".join(x for x in _SENTENCE.findall(strip_speaker(text)) if not _asks_the_listener(x))
    toks = _tokens(body)
    low = [t.lower() for t in toks]
    if not toks or all(t in PHATIC or t in FUNCTION_WORDS for t in low):
        return True
    sig = fact_signature(body)
    specific = len(sig["number"]) + len(sig["date"]) + len(sig["name"])
    content = [t for t in low if len(t) >= 3 and t not in FUNCTION_WORDS and t not in PHATIC]
    if not sig["number"] and not sig["date"] and all(t in sig["name"] for t in content):
        return True   # greeting someone by name: "Thanks, Mel!"
    return len(content) < 2 and specific == 0


def heuristic_utility(texts: Iterable[str]) -> np.ndarray:
    """Future-utility stand-in without an LLM: specific, actionable text scores high.

    For each text, after a leading "Speaker: " label, with its word tokens: ``content`` = tokens of 3+ letters that are not
    function words; ``specific`` = fact-bearing tokens of :func:`fact_signature` (numbers,
    dates, names); ``cue`` = 1 when a token signals a lasting preference, plan or commitment
    (prefer, love, allergic, plan, decided, deadline, booked, password, ...).

        U = clip(0.2 + 0.15 * min(specific, 3) + 0.05 * min(content, 6) + 0.2 * cue, 0, 1)

    and U <= 0.1 for phatic text (:func:`is_phatic`). A caller with an LLM judge passes it as ``utility=``
    to :meth:`Engram.admit_batch` instead (A-MAC's U is an LLM rating).

    Parameters
    ----------
    texts : iterable of str

    Returns
    -------
    ndarray of float32, shape (n,), in [0, 1]
    """
    out = []
    for text in texts:
        body = strip_speaker(text)
        low = [t.lower() for t in _tokens(body)]
        sig = fact_signature(body)
        specific = len(sig["number"]) + len(sig["date"]) + len(sig["name"])
        content = sum(1 for t in low if len(t) >= 3 and t not in FUNCTION_WORDS and t not in PHATIC)
        cue = 1.0 if any(t in CUES for t in low) else 0.0
        u = 0.2 + 0.15 * min(specific, 3) + 0.05 * min(content, 6) + 0.2 * cue
        if is_phatic(text):
            u = min(u, 0.1)
        out.append(min(max(u, 0.0), 1.0))
    return np.array(out, np.float32)


# --- kind inference and protected facts (rule-based, no model) -------------------------------

PHATIC_KIND = "phatic"   # not a MemoryKind: chatter that is never stored unless the caller forces it
PROTECTED_CATEGORIES = ("health", "family", "identity")   # checked in this order

WEATHER = frozenset(
    "weather sunny sunshine sun rain raining rainy rains rained drizzle snow snowing snowy snowed cold "
    "colder hot hotter warm warmer chilly freezing frosty humid muggy windy wind cloudy clouds foggy "
    "fog storm stormy thunder sunset sunrise sky skies heat heatwave breeze breezy outside out".split())
_FIRST_PERSON = frozenset("i i'm i've i'd i'll me my mine myself we we're we've we'd we'll us our ours".split())
PREFERENCE = frozenset(
    "like likes love loves prefer prefers enjoy enjoys adore adores hate hates dislike dislikes detest "
    "detests favorite favourite favorites favourites rather fan fond".split())
_LIKE_NOT_VERB = frozenset(   # "looks like rain", "just like that": "like" as a preposition
    "look looks looked looking feel feels felt feeling seem seems seemed sound sounds sounded smell "
    "smells taste tastes just exactly more less something anything nothing things stuff much".split())
IDENTITY_STATE = ("born", "birthday", "birthdays", "anniversary", "grew up", "years old", "year old",
                  "my name", "name is", "call me", "i'm called", "my pronouns")
_IDENTITY_STATE_SPACED = tuple((cue, f" {cue} ") for cue in IDENTITY_STATE)   # (made once)
HABIT = frozenset(
    "usually always often never normally generally typically rarely seldom sometimes daily weekly "
    "monthly yearly every each weekdays weekends mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays mornings evenings nights".split())
# irregular past forms that report an event ("had", "read", "put", "felt", "thought": ambiguous, left out)
PAST_EVENT = frozenset(
    "went came bought met saw took made ate drank ran gave got left lost won found brought sent spent "
    "told said flew drove rode wrote sang swam began broke fell forgot heard held hurt kept paid sold "
    "sat slept spoke stood taught threw woke wore caught chose did built fought became shot led "
    "bit drew dug fed hid sank shook stole struck swore tore".split())
_STATIVE_ED = frozenset(   # past participles used as adjectives of a state, and words in -ed
    "married divorced engaged widowed retired interested based located named allowed supposed "
    "used tired excited scared worried bored pleased related qualified certified vaccinated talented "
    "skilled experienced obsessed involved limited advanced required needed hundred sacred naked "
    "wicked beloved rugged ragged crooked learned blessed aged wretched".split())
_NOT_BEFORE_PAST = frozenset(   # "-ed" after these is an adjective or a passive, not an event verb
    "a an the my your his her our their its this that these those is am are be been being was were "
    "get gets getting i'm you're we're they're he's she's it's that's has have had i've we've you've "
    "they've very so too more most less least not".split())
PRESENT_STATE = frozenset(
    "is am are isn't aren't i'm you're we're they're he's she's it's that's there's has have haven't "
    "hasn't own owns live lives work works speak speaks know knows need needs use uses wear wears "
    "drive drives play plays teach teaches study studies belong belongs cost costs open opens close "
    "closes start starts begin begins end ends run runs take takes eat eats drink drinks keep keeps "
    "contain contains mean means weigh weighs stand stands sit sits go goes come comes "
    "be been".split())
_SUBJECT = frozenset("i we they you he she it".split())
_BEFORE_BASE = frozenset(   # a base form after these is a present state ("I can speak", "might be")
    "also still both all don't do does doesn't can can't cannot could might may must should would "
    "i'd we'd they'd really".split())
_EVENT_PERIOD = frozenset("night week weekend month year morning afternoon evening summer winter spring "
                          "fall autumn term semester season time".split())
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_ORDINAL_DATE = re.compile(r"^\d{1,2}(?:st|nd|rd|th)$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_MONTHS_FULL = MONTHS - {"mar", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "jan", "feb", "apr"}


def _sentences(text: str) -> list[str]:
    """The sentences of ``text`` after a leading speaker label (curly apostrophes made straight)."""
    return [s for s in _SENTENCE.findall(strip_speaker(text).translate(APOSTROPHES)) if _tokens(s)]


def _chatter_sentence(sentence: str) -> str | None:
    """Why ``sentence`` states no fact ("question", "weather small talk", "greetings, thanks or
    filler"), or None when it may."""
    toks = _tokens(sentence)
    low = [t.lower() for t in toks]
    if sentence.rstrip().endswith("?") and not any(lo in _FIRST_PERSON for lo in low):
        return "question"   # one that says "I" / "my" / "we" may carry the speaker's fact
    left = chatter_left(sentence)
    if filler_left(left):
        return "greetings, thanks or filler"   # also "Thanks, Mel!", "Hi Sarah"
    _low, rest, number, names = left
    if (any(lo in WEATHER for lo in low) and not any(lo in _FIRST_PERSON for lo in low) and not number
            and not names and all(t.lower() in WEATHER or t.lower() in DATE_WORDS or t.lower() in _EVENT_PERIOD
                                  for t in rest)):
        return "weather small talk"
    return None


def _time_cue(low: list[str]) -> str | None:
    """A time expression that dates an event ("yesterday", "last week", "on Friday", "in June",
    "the 14th", "two days ago", "in 2019"); habitual ones ("every morning", "on Mondays") are not."""
    for i, t in enumerate(low):
        prev = low[i - 1] if i else ""
        if prev in ("every", "each"):
            continue
        nxt = low[i + 1] if i + 1 < len(low) else ""
        if t in ("yesterday", "today", "tomorrow", "tonight", "ago"):
            return t
        if t in ("last", "next", "this") and nxt in _EVENT_PERIOD | WEEKDAYS:
            return f"{t} {nxt}"
        if t in WEEKDAYS or t in _MONTHS_FULL:
            return t
        if t == "may" and (prev in ("in", "on", "of", "early", "late", "mid", "since", "until", "by")
                           or nxt[:1].isdigit()):
            return t
        if _ORDINAL_DATE.match(t) and prev in ("the", "on"):
            return f"{prev} {t}"
        if _YEAR.match(t) and prev in ("in", "on", "during"):
            return f"{prev} {t}"
    return None


def _past_event(low: list[str]) -> str | None:
    """A verb in the past tense that reports an event: an irregular form (went, bought, met, ...),
    a regular "-ed" form not used as an adjective or passive ("I visited", "the team shipped",
    not "is married", "a used car"), or a past progressive ("we were hiking")."""
    for i, t in enumerate(low):
        prev = low[i - 1] if i else ""
        if prev in ("was", "were") and t.endswith("ing") and len(t) > 5:
            return f"{prev} {t}"
        if t in PAST_EVENT and not (t == "got" and prev in ("i've", "we've", "you've", "they've", "have", "has")):
            return t
        if (len(t) >= 5 and t.endswith("ed") and not t.endswith("eed") and t not in _STATIVE_ED
                and prev not in _NOT_BEFORE_PAST and i > 0):
            return t
    return None


def _preference(low: list[str]) -> str | None:
    """A preference word in the present ("likes", "prefer", "favourite", "I'd rather", "fan of",
    "can't stand"); "like" after "looks" / "feels" / "just" ... is a preposition and does not count."""
    for i, t in enumerate(low):
        if t == "stand" and i and low[i - 1] in ("can't", "cannot"):
            return "can't stand"
        if t not in PREFERENCE:
            continue
        prev = low[i - 1] if i else ""
        if t == "like" and (prev in _LIKE_NOT_VERB or not prev):
            continue
        if t == "rather" and prev not in ("i'd", "we'd", "would", "she'd", "he'd", "they'd"):
            continue
        if t in ("fan", "fond") and (i + 1 >= len(low) or low[i + 1] != "of"):
            continue
        return t
    return None


def _present_state(low: list[str]) -> str | None:
    for i, t in enumerate(low):
        if t in PRESENT_STATE:
            prev = low[i - 1] if i else ""
            # a base form ("live", "work") needs a subject before it; a form in -s ("lives"), a
            # copula or "has" stands alone
            if t in ("is", "am", "are", "has", "been") or t.endswith(("s", "'m", "'re", "'s")) \
                    or prev in _SUBJECT or prev in HABIT or prev in _BEFORE_BASE:
                return t
    return None


#: A text that tells how to do something: a "how to" / "steps to" / runbook opening, "To <do X>,
#: <do Y>" (an imperative after the purpose: "To fix SSO login loops, check the IdP clock"), or
#: numbered steps ("1. Open Settings. 2. Click API.").
_HOW_TO = re.compile(
    r"^\s*(?:how[ -]to\s+(?!even\b)[a-z]+|steps? to\b|(?:runbook|checklist|procedure|instructions)(?: for\b|:))", re.I)
#: Verbs of a step of instructions besides :data:`IMPERATIVE_VERBS` (a program's or a device's).
_TECH_STEP_VERBS = frozenset(
    "hold open click install select enter type remove delete restart clear copy paste log create upgrade rotate "
    "navigate press tap unplug plug mix feed preheat bake stir pour confirm verify ensure deploy build test push "
    "pull merge tag commit back reboot reset enable disable configure download upload search review fill submit "
    "connect disconnect export import close revoke generate grant edit rename drag scroll hit".split())
#: Imperatives that ask the listener for something rather than give a step ("Remind me to renew my
#: passport before August" is a request, no procedure).
_REQUEST_VERBS = frozenset("remind tell help ask message text talk think imagine enjoy relax consider forget "
                           "remember explain translate show give".split())
_STEP_VERBS = "|".join(sorted((IMPERATIVE_VERBS - _REQUEST_VERBS) | _TECH_STEP_VERBS))
#: An imperative step with its order or condition: "Run `make clean` before building", "If the
#: build fails, clear the cache and rerun", "When deploying, first run the migrations".
_STEP_ORDER = re.compile(
    rf"^\s*(?:(?:if|when|whenever|before|after)\s[^,.;]{{1,80}},\s*(?:first\s+|then\s+|always\s+)?(?:{_STEP_VERBS})\b"
    rf"|(?:first\s+)?(?:{_STEP_VERBS})\b[^.;!?]*\b(?:before|after|then|first)\b)", re.I)
#: "To <do X>, <step>": "To fix SSO login loops, check the IdP clock" (not "To celebrate, grabbed pizza").
_PURPOSE = re.compile(rf"^\s*to [a-z]+\b[^,.;!?]*,\s*(?:first\s+|always\s+|just\s+)?(?:{_STEP_VERBS})\b", re.I)
_STEPS = re.compile(rf"(?:^|\s)(?:1[.)]|step 1\b:?)\s+(?:{_STEP_VERBS})\b.*?(?:^|\s)(?:2[.)]|step 2\b:?)\s",
                    re.I | re.S)
#: What a numbered list's label says when its items are steps ("How to rotate a key: 1. ...").
_HOW_LABEL = re.compile(r"how|steps?\b|instructions?|procedure|runbook|guide|set ?up|install|^\s*to \w+|fix|reset|"
                        r"deploy|configure|^\s*$", re.I)
_TO_DO = re.compile(r"^\s*(?:reminders?|to-?dos?|to do|tasks?|shopping(?: list)?|groceries|list|agenda|packing|"
                    r"itinerary|schedule|menu|top \d+)\b", re.I)
#: A team's decision: "We decided to ...", "The team chose ...", "We agreed on ...", "Decision: ...",
#: "We're going with ..." (a person's own "I decided to go to bed" is an episode).
_DECIDED = re.compile(
    r"^\s*(?:(?:so|and|then|finally|ok|okay|after [^,.]{1,60}),?\s+)?"
    r"(?:(?:final )?decision:\s+(?!(?:pending|tbd|tba|none|not|undecided|open)\b)\S+\s+\S+\s+\S+"
    r"|(?:we|we've|we have|we all|the team|our team|team|the board|management|leadership)\s+"
    r"(?:(?:finally|just|have|had|unanimously)\s+)?(?:(?:decided|agreed)\s+(?:to|that|on)\b(?!\s+disagree)"
    r"|chose\s+\S+(?:\s+\S+)?\s+over\b))", re.I)


def infer_kind(text: str) -> tuple[str, str]:
    """The kind of memory ``text`` states, by rules (no model), and why.

    The text is split into sentences (after a leading "Speaker: " label); questions (unless they
    say "I", "my", "we" or "our": "I can bring it tomorrow, does that work?") and chatter
    sentences are set aside (:data:`engramdb.chatter.CHATTER` words, function words, laughter, names only; or
    weather talk without "I"/"my", a number or a name). On what remains, the first rule that
    fires decides:

    1. nothing remains -> ``"phatic"`` (greetings, thanks, laughter, acknowledgements, weather
       small talk, vague hedges, questions);
    1a. how to do something (a "how to" / "steps to" / runbook opening, "To fix X, check Y",
       numbered steps "1. ... 2. ...", an ordered or conditional imperative: "Run X before
       building", "If the build fails, clear the cache") -> ``"procedural"``;
    1b. a team's decision ("We decided to ...", "The board decided that ...", "We agreed on
       ...", "We chose X over Y", "Decision: <a statement>"; not one dated today, tonight or
       tomorrow) -> ``"decision"`` (held until reviewed, and listed as an open decision by
       ``context()``: so only explicit ones; a person's "I decided to ..." is an episode);
    2. an identity state (born, birthday, "years old", "grew up", "my name") -> ``"semantic"``;
    3. a preference verb in the present (like, love, prefer, enjoy, hate, favourite, "I'd
       rather", "fan of") -> ``"semantic"``;
    4. a past-tense event verb (went, bought, met, "I visited", "the team shipped", "we were
       hiking") -> ``"episodic"``;
    5. a time expression that dates an event (yesterday, tomorrow, "last week", "on Friday",
       "in June", "the 14th", "ago") -> ``"episodic"`` (plans and appointments included);
    6. a habit (usually, always, every, on weekends, "on Mondays") -> ``"semantic"``;
    7. a present-tense state (is, am, are, has, have, been, "I live", "works at", "opens") ->
       ``"semantic"``;
    8. otherwise -> ``"episodic"`` (the kind ``add`` defaults to).

    Parameters
    ----------
    text : str

    Returns
    -------
    tuple (kind, reason)
        ``kind`` is ``"semantic"``, ``"episodic"``, ``"procedural"``, ``"decision"`` or
        ``"phatic"`` (:data:`PHATIC_KIND`, not a :class:`MemoryKind`: chatter is not stored); ``reason`` names the rule and the word
        that fired it.

    Notes
    -----
    Rules err toward keeping: a sentence with one content word outside the chatter vocabulary
    is not chatter, and a lasting fact inside an event report ("Yesterday I found out my wife
    loves sushi") is semantic when a preference or identity cue is present. Measured on
    ``benchmarks/data/admission_labelled.jsonl`` (``benchmarks/bench_admission_quality.py``).

    Examples
    --------
    >>> infer_kind("My wife is allergic to peanuts")
    ('semantic', "present state 'is'")
    >>> infer_kind("Yesterday I went to the market")
    ('episodic', "past event 'went'")
    >>> infer_kind("haha thanks, you're the best")
    ('phatic', 'greetings, thanks or filler')
    """
    why = []
    content = []
    for s in _sentences(text):
        c = _chatter_sentence(s)
        if c is None:
            content.append(s)
        elif c not in why:
            why.append(c)
    if not content:
        return PHATIC_KIND, " / ".join(why) or "no words"
    # read with and without a leading label: "Steps to reset the router: ..." reads as one
    plain = re.sub(r"^\s*(?:user|assistant|system):\s+", "", text, flags=re.I).translate(APOSTROPHES)
    body = strip_speaker(text).translate(APOSTROPHES)
    steps = _STEPS.search(plain)
    if steps is not None and (_TO_DO.match(plain) or not _HOW_LABEL.search(plain[: steps.start()] or "how")):
        steps = None   # a to-do list, an agenda, "Top picks for the trip: 1. ..." is no procedure
    if (m := _HOW_TO.match(plain) or _HOW_TO.match(body) or _PURPOSE.match(plain) or steps
            or _STEP_ORDER.match(plain)) is not None:
        return MemoryKind.PROCEDURAL.value, f"procedure '{m.group(0).strip()[:40]}'"
    if ((m := _DECIDED.match(plain) or _DECIDED.match(body)) is not None
            and _time_cue([t.lower() for t in _tokens(body)]) not in ("today", "tonight", "tomorrow", "this weekend")):
        return MemoryKind.DECISION.value, f"decision '{m.group(0).strip()}'"
    low = [t.lower() for s in content for t in _tokens(s)]
    joined = " " + " ".join(low) + " "
    for cue, spaced in _IDENTITY_STATE_SPACED:
        if spaced in joined:
            return MemoryKind.SEMANTIC.value, f"identity state '{cue}'"
    cue = _preference(low)
    if cue:
        return MemoryKind.SEMANTIC.value, f"preference '{cue}'"
    cue = _past_event(low)
    if cue:
        return MemoryKind.EPISODIC.value, f"past event '{cue}'"
    cue = _time_cue(low)
    if cue:
        return MemoryKind.EPISODIC.value, f"dated event '{cue}'"
    cue = next((t for t in low if t in HABIT), None)
    if cue:
        return MemoryKind.SEMANTIC.value, f"habit '{cue}'"
    cue = _present_state(low)
    if cue:
        return MemoryKind.SEMANTIC.value, f"present state '{cue}'"
    return MemoryKind.EPISODIC.value, "no fact or event cue (the default kind)"


HEALTH = ("allerg", "intoleran", "diabet", "asthma", "celiac", "coeliac", "epilep", "medication", "medicine",
          "insulin", "inhaler", "prescri", "diagnos", "disorder", "disease", "syndrome", "cancer", "tumor",
          "tumour", "pregnan", "surgery", "migraine", "alzheimer", "dementia", "parkinson", "arthritis",
          "chronic", "adhd", "autis", "depression", "anxiety", "bipolar", "blood type", "blood pressure",
          "cholesterol", "pacemaker", "dialysis", "chemo", "epipen", "pills", "tablets", "dosage",
          "wheelchair", "hypertension", "heart attack", "heart condition", "stroke", "seizure", "hearing aid",
          "disabilit", "disabled", "blind", "deaf", "transplant", "hiv", "hepatitis", "kidney", "thyroid",
          # mental health, recovery and other lasting conditions
          "physiotherap", "physical therap", "prosthe", "amputat", "hearing loss", "hard of hearing", "ptsd", "ocd", "antidepress",
          "therapist", "psychiatr", "anorexi", "bulimi", "panic attack", "suicidal", "self harm", "sober ",
          "sobriety", "addiction", "alcoholism", "recovering alcoholic", "in recovery", "clean for", "quit drinking",
          "i don't drink", "i do not drink", "sleep apnea", "apnoea", "hip replacement", "knee replacement",
          "bad back", "back pain", "bad knee", "bad hip",
          "crohn", "colitis", "eczema", "psoriasis", "lupus", "fibromyalgia", "sclerosis", "glaucoma", "cataract",
          "miscarried", "a miscarriage", "infertil", "ivf", "in remission", "immunocompromised",
          "dyslexi", "expecting a baby", "expecting our first", "months along", "weeks along")
#: Words of an injury, which count in a clause of the speaker's ("I'm recovering from a concussion",
#: "my injury"), not in news of a stranger's ("Messi's injury ruled him out").
INJURY_WORDS = ("injur", "sprain", "fractur", "concuss", "ligament", "whiplash", "crutches", "torn acl")
_SPEAKERS_OWN = frozenset("i i'm i've i'd me my mine myself im ive".split())
#: A body part an injury names.
_BODY = (r"(?:(?:left|right|lower|upper|bad)\s+)?(?:ankle|wrist|arm|leg|knee|hip|back|shoulder|neck|foot|toe|"
         r"finger|thumb|hand|elbow|rib|collarbone|jaw|spine|acl|mcl|meniscus|hamstring|achilles|tendon|calf|shin|"
         r"pelvis|skull|tooth|ligament|muscle|disc)s?\b")
#: An injury of the speaker or of someone of theirs: "I sprained my ankle", "my son broke his arm",
#: "I'm recovering from a broken wrist"; past forms only ("Break a leg!"), and not a thing's ("the
#: chair has a broken leg"), a stranger's ("LeBron sprained his ankle") nor someone else's doing
#: ("she twisted my arm", "you pulled my leg").
_INJURY = re.compile(
    r"(?:\b(?:i|i've|i have|my\s+\w+)\s+|^\s*)(?:(?:just|recently|badly|accidentally)\s+)?(?:broke|fractured|sprained|"
    r"twisted|tore|pulled|dislocated|injured|hurt|bruised|strained|busted)\s+(?:my|his|her|their)\s+" + _BODY
    + r"|\b(?:i'm|i am|i have|i've got|i've had|i had|recovering from|healing from|nursing)\s+(?:a|an|my)\s+"
    r"(?:broken|fractured|sprained|torn|dislocated|twisted|pulled|injured)\s+" + _BODY, re.IGNORECASE)
_DOSE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml|iu)\b", re.I)
#: A medication regimen named without a dose or the word "medication": "I take metformin twice a
#: day", "she's been taking lisinopril every morning"
_REGIMEN = re.compile(r"\b(?:take|takes|taking)\s+(?!(?:the|a|an|my|our|his|her|their|some|any|care|time|off|"
                      r"place|part|turns|it|that|this|them|him|me|us|photos?|pictures?|notes?|class(?:es)?|lessons?|"
                      r"courses?|walks?|naps?|breaks?)\b)[^.;!?]{0,40}\b(?:daily|twice|three times|once a day|"
                      r"(?:every|each) (?:morning|evening|night|day)|at bedtime|before (?:bed|breakfast|meals))\b",
                      re.I)
FAMILY = frozenset(
    "wife wife's husband husband's son son's sons daughter daughter's daughters mother mother's mom "
    "mom's mum mum's father father's dad dad's parents parents' parent brother brother's brothers "
    "sister sister's sisters sibling siblings kid kids kid's child children child's baby "
    "grandmother grandma grandfather grandpa grandparents granddaughter grandson grandchildren aunt "
    "uncle cousin cousins niece nephew spouse partner partner's fiance fiancé fiancee fiancée "
    "boyfriend girlfriend stepson stepdaughter stepmother stepfather stepmom stepdad twins in-laws hubby wifey "
    "grandad granddad nan nana granny gran grandmom grandpop".split())
#: What happens to a family once and is never an aside, said of a family member of the speaker's
#: in any clause, episode or not: "My dad passed away last year", "my grandma passed", "my sister
#: got married in June", "my parents separated", "we lost my mom in March", "my dad's funeral" (not
#: "my mom's phone died", "my son passed his exam", "my son adopted a puppy").
_FAMILY_ALT = "|".join(sorted((w for w in FAMILY if "'" not in w and "-" not in w), key=len, reverse=True))
_FAMILY_EVENT = re.compile(
    r"\bmy\s+(?:(?:late|dear|little|big|older|younger|baby|twin|step|ex|own)\s+)?(?:" + _FAMILY_ALT + r")"
    r"(?:\s+(?:just|recently|suddenly|sadly|finally|has|have|had|was|were|is|are|got))*\s+"
    r"(?:passed away|passed on|passed(?=\s*(?:[.,!;]|$|last|in|on|recently|yesterday|this|over|peacefully))|died|"
    r"married|divorced|engaged to|separated|split up|remarried|was born|were born|gave birth|had (?:a|her|his|"
    r"their) baby|was diagnosed|is pregnant)\b"
    r"|\b(?:i|we)\s+lost\s+(?:my|our)\s+(?:" + _FAMILY_ALT + r")\b(?!')"
    r"|\bmy\s+(?:" + _FAMILY_ALT + r")'s\s+(?:funeral|death|passing|wedding|divorce)\b", re.IGNORECASE)
#: The speaker's own marital state or family event, no family word needed ("I'm married", "I got
#: divorced last year", "we just got engaged", "I'm a widower", "I'm single", "we had a baby", "we
#: adopted a girl", "my wife and I split up"); not "I married the two spreadsheets", "I'm engaged
#: in a lawsuit", "I separated the concerns", a pet adopted.
_MARITAL = re.compile(
    r"\b(?:i|we)(?:\s+(?:just|recently|finally|officially))?(?:'m|m| am|'re| are| was| were| got| get| getting|"
    r"'ve been| have been| became)"
    r"(?:\s+(?:just|recently|finally|now|newly|happily|officially|a|been|got))*\s+"
    r"(?:married(?!\s+to\s+(?:this|that|the|it|my work|our work|work)\b)|divorced|engaged(?!\s+(?:in|with)\b)|"
    r"widowed|widower|widow|separated(?!\s+(?:the|it|them|"
    r"our|my|into|from|out)\b)|remarried|single(?!\s+(?:file|click|page|line|word|thing|time|one)\b))\b"
    r"|\b(?:i|we)\s+(?:just\s+|recently\s+)?(?:had a baby|adopted (?:a |our |my )?(?:baby|son|daughter|child|kid|"
    r"boy|girl|twins)|split up|broke up with (?:my|our) (?:boyfriend|girlfriend|partner|husband|wife|fianc\w*))\b"
    r"|\bmy (?:wife|husband|partner|boyfriend|girlfriend|fianc\w*) and i\s+(?:just\s+)?(?:split up|separated|"
    r"divorced|broke up|got married|got engaged)\b", re.IGNORECASE)
IDENTITY = ("my name", "name is", "call me", "i'm called", "birthday", "born", "years old", "year old",
            "i live", "we live", "lives in", "live in", "living in", "i moved to", "we moved to", "he moved to",
            "she moved to", "they moved to", "i'm from", "we're from", "grew up", "my address", "home address",
            "work as", "works as", "worked as", "work at", "works at", "work for", "works for", "my job",
            "new job", "job as", "job at", "his job", "her job", "their job", "profession", "occupation",
            "my pronouns", "accepted an offer", "job offer",
            # contact details and documents ("my number is ...", "reach me at ...")
            "phone number", "my number", "mobile number", "cell number", "my cell", "my mobile", "email address",
            "my email", "my e mail", "reach me at", "text me at", "contact me at", "zip code", "postcode",
            "postal code", "passport number", "license number", "licence number", "social security", "ssn",
            "national id",
            # languages; retirement; origin
            "native language", "mother tongue", "first language", "second language", "bilingual", "trilingual",
            "i'm retired", "i am retired", "im retired", "originally from", "i'm based in", "we're based in",
            "laid off from", "laid off by")
#: An e-mail address (its owner's contact detail when a clause says whose: "my", "me", "Priya's";
#: "contact support@acme.com", "git config user.email dev@example.com" say none).
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_OWNER = re.compile(r"(?i:\b(?:my|our|me|mine|his|her|their|i|i'm|im)\b|\w['’]s\b)")
#: A phone number of someone's: "my number is 912 345 678", "call me on +351 ...", "Ines's phone
#: is ..." (not "ticket number 1234567", "call the restaurant at (555) 123-4567").
_PHONE = re.compile(r"(?i:\b(?:(?:my|our|his|her|their|\w+['’]s)\s+(?:\w+\s+)?(?:phone|mobile|cell|number|whatsapp|"
                    r"tel|landline)|(?:call|text|reach|ring|whatsapp|contact)\s+(?:me|us)\b))[^.;!?]{0,30}?"
                    r"(?:\+|\(|\b)\d[\d\s().-]{5,}\d\b")
#: Languages a speaker may say they speak ("I speak Portuguese", "i speak portuguese"; "I speak
#: Python" is none).
LANGUAGES = frozenset(
    "english spanish portuguese french german italian dutch swedish norwegian danish finnish icelandic polish "
    "czech slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian croatian bosnian slovenian "
    "albanian lithuanian latvian estonian arabic hebrew persian farsi urdu hindi bengali punjabi gujarati marathi "
    "tamil telugu kannada malayalam nepali sinhala mandarin cantonese chinese japanese korean vietnamese thai "
    "indonesian malay tagalog filipino swahili amharic yoruba igbo hausa zulu xhosa afrikaans catalan basque "
    "galician welsh irish gaelic creole asl bsl sign".split())
_LANG_ALT = "|".join(sorted(LANGUAGES, key=len, reverse=True))
#: The speaker's diet, faith, identity or languages as a state of theirs: "I'm vegan", "Im
#: vegetarian", "we've been vegetarian for years", "I keep kosher", "I only eat halal", "as a
#: Muslim I ...", "I'm plant-based", "I speak Portuguese", "native Spanish speaker", "I don't eat
#: pork" (not "a vegan restaurant", "I ate halal food" once, "I'm a Christian Bale fan", "I'm
#: Orthodox about code reviews").
_PRACTICE = re.compile(
    r"(?:\b(?:i|we)(?:'m|’m| am|m|'re| are|'ve been| have been| became| went| turned| keep| eat| only eat| stay)"
    r"|\bas an?|^|\.\s+)"
    r"(?:\s+(?:strictly|mostly|fully|now|also|a|an|practicing|practising|devout|proud|lifelong))*\s+"
    r"(?:vegan|vegetarian|veggie|pescatarian|pescetarian|plant[- ]based|kosher|halal|gluten[- ]free|teetotal\w*|"
    r"muslim|christian|catholic|jewish|hindu|buddhist|sikh|atheist|agnostic|mormon|protestant|orthodox|"
    r"gay|lesbian|bisexual|transgender|trans|non-binary|nonbinary|queer|asexual)"
    r"(?![-\w])(?!\s+(?-i:[A-Z]))(?!\s+(?:about|fan|restaurant|place|food|menu|options?|recipes?|friends?|colleague|coworker)\b)"
    r"|\b(?:vegan|vegetarian|pescatarian) here\b"
    r"|\b(?:i|we) (?:don't|do not|never|can't|cannot|dont|cant) eat (?:any )?(?:meat|pork|beef|fish|seafood|dairy|"
    r"eggs|gluten|animal products)\b"
    r"|\b(?:i|we) (?:also |only |mostly )?(?:speak|speaks) (?:fluent |some |a little )?(?:" + _LANG_ALT + r")\b"
    r"|\bnative (?:" + _LANG_ALT + r") speaker\b"
    r"|\b(?:" + _LANG_ALT + r") is my (?:first|second|native|mother) (?:language|tongue)\b", re.IGNORECASE)
#: The speaker's age: "I'm 34", "I turned 30 yesterday", "I turn 40 next week" (not "I'm 5 minutes
#: away", "I'm 2 hours in").
_AGE = re.compile(r"\b(?:i'm|i am|im|i turned|i just turned|i turn|i'll be|i will be|i'm turning)\s+(?:\d{1,3}|"
                  r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|"
                  r"seven|eight|nine))?)(?!\d)(?![:.,]\d)(?!\s*%)(?!\s*(?:percent|minutes?|mins?|hours?|hrs?|seconds?|secs?|"
                  r"days?|weeks?|months?|years?(?!\s+old)|km|miles?|pages?|steps?|times?|points?|of|out|for|in a row|"
                  r"euros?|dollars?|bucks|k|lbs?|kg|pounds?|cm|inches|feet|ft|m|mg|hrs|chapters?|episodes?|"
                  r"levels?|games?|laps?|reps?|sets?|calls?|items?|tickets?|emails?|people|stars?)\b)",
                  re.IGNORECASE)
#: A change of job, at a named employer ("My last day at Acme is Friday", "an offer from Globex",
#: "I start at Globex on Monday"): a capitalised name after the cue ("my last day at the beach",
#: "the movie starting at 8" are none).
_JOB_CHANGE = re.compile(r"\b(?i:(?:last|first) (?:day|week) at|(?:start|starting|started) at|an offer from|"
                         r"hired (?:at|by)|promoted (?:at|by)) [A-Z][\w&-]*")
OCCUPATIONS = frozenset(
    "nurse doctor teacher engineer lawyer developer programmer designer painter writer author artist chef "
    "cook student manager accountant architect pilot driver farmer dentist pharmacist scientist researcher "
    "professor lecturer consultant analyst journalist photographer musician firefighter officer soldier "
    "electrician plumber carpenter mechanic cashier waiter waitress barista librarian veterinarian vet "
    "therapist psychologist surgeon paramedic founder ceo cto intern freelancer lead director editor "
    "translator nanny caregiver cleaner builder banker broker clerk secretary receptionist".split())


_DIGITS = tuple("0123456789")
#: What every match of each pattern of :func:`protected_category` holds (lower case): the rule
#: is not run on a text that holds none (most texts; :class:`engramdb.patterns.Needles`).
_NEEDS = {pattern: Needles(words) for pattern, words in (
    (_DOSE, _DIGITS), (_PHONE, _DIGITS),
    (_AGE, _DIGITS + ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")),
    (_REGIMEN, ("take", "taking")),
    (_INJURY, ("broke", "fractured", "sprained", "twisted", "tore", "torn", "pulled", "dislocated", "injured",
               "hurt", "bruised", "strained", "busted")),
    (_FAMILY_EVENT, ("passed", "died", "married", "divorce", "engaged", "separated", "split up", "born",
                     "gave birth", "baby", "diagnosed", "pregnant", "lost", "funeral", "death", "passing",
                     "wedding")),
    (_MARITAL, ("married", "divorced", "engaged", "widow", "separated", "single", "had a baby", "adopted",
                "split up", "broke up")),
    (_JOB_CHANGE, ("day at", "week at", "start", "offer from", "hired", "promoted")),
    (_PRACTICE, ("vegan", "vegetarian", "veggie", "pescatarian", "pescetarian", "plant", "kosher", "halal",
                 "gluten", "teetotal", "muslim", "christian", "catholic", "jewish", "hindu", "buddhist", "sikh",
                 "atheist", "agnostic", "mormon", "protestant", "orthodox", "gay", "lesbian", "bisexual", "trans",
                 "non-binary", "nonbinary", "queer", "asexual", "t eat", "never eat", "speak", "native",
                 "language", "tongue")))}


#: Each cue with the spaces :func:`protected_category` looks for it between (a word's start; a
#: whole phrase), made once.
_HEALTH_SPACED = tuple((stem, f" {stem}") for stem in HEALTH)
_IDENTITY_SPACED = tuple((cue, f" {cue} ") for cue in IDENTITY)


def _search(pattern: re.Pattern, text: str) -> re.Match | None:
    """``pattern.search(text)``, not run when ``text`` holds none of the words its matches hold."""
    return pattern.search(text) if _NEEDS[pattern].may_hold(text) else None


def protected_category(text: str, kind: str | None = None) -> tuple[str | None, str]:
    """Whether ``text`` states a fact the default policy must never forget, by rules.

    Categories, checked in this order (:data:`PROTECTED_CATEGORIES`):

    - ``"health"``: allergies and intolerances, conditions (diabetes, asthma, ...),
      medication (a dose such as "50mg", a regimen such as "I take metformin twice a day",
      "insulin", "prescription"), blood type, pregnancy, disability ("wheelchair"), an injury
      of the speaker's or their family's (``_INJURY``: "I sprained my ankle", "my son broke his
      arm", "I'm recovering from a concussion"; not "LeBron sprained his ankle", "she twisted my
      arm"), mental health and recovery ("PTSD", "my therapist", "two years sober", "I don't
      drink");
    - ``"family"``: a family member (wife, husband, son, daughter, mother, ...) in a *fact*
      (``kind`` semantic, or a clause that is one by itself): "My sister lives in Oslo" and
      "Also my son Leo is 7, he has a school play on Friday" are protected, "My son scored a
      goal yesterday" is an episode and is not; a family event in any clause, the family member
      its subject (``_FAMILY_EVENT``: "My dad passed away last year", "my grandma passed", "we
      lost my mom in March", "my sister got married"; not "my mom's phone died", "my son passed
      his exam"); the speaker's marital state (``_MARITAL``: "I'm divorced", "we just got
      engaged", "I'm single"; not "I'm engaged in a lawsuit", "I separated the concerns");
    - ``"identity"``: name, birthday and birth, age ("I'm 34", "I turned 30"; not "I'm 5 minutes
      away"), where someone lives or comes from, job ("works at", "job", "I'm a nurse", "I'm
      retired"), contact details (an e-mail address in a text that says whose: "my", "me",
      "Priya's"; a phone number after "my / Ines's phone / number / cell" or "call / text me";
      "my address"; not "contact support@acme.com", "ticket number 1234567"), documents
      ("passport number"), and the speaker's diet, faith and languages as a state
      (``_PRACTICE``: "I'm vegan", "I keep kosher", "I don't eat pork", "I'm Muslim", "I speak
      Portuguese", "native Spanish speaker"; not one meal at a vegan place, "I speak Python",
      "I'm a Christian Bale fan").

    Questions do not count, clause by clause (:func:`_asked_clauses`): "What's my name?" or "Am I
    allergic to penicillin?" names a category without stating it, while "I'm allergic to
    penicillin, should I worry?" states it in its first clause, and "I'm pregnant so is ibuprofen
    OK?" states it too. A leading label counts ("Allergies: penicillin"). Everything else does,
    erring on the side of keeping: a hedged statement
    ("I think I'm allergic to penicillin"), a request that quotes one ("Translate 'I am allergic
    to nuts' into French") and a subjectless note ("Take 50 mg sertraline daily", "Never give
    me peanuts, I'm allergic") are protected; a memory kept too long costs little, a health fact
    archived can cost much.

    Parameters
    ----------
    text : str
    kind : str, optional
        The memory's kind (``infer_kind(text)[0]`` when omitted).

    Returns
    -------
    tuple (category or None, reason)
        ``reason`` quotes the word that matched ("" when nothing did).
    """
    if kind is None:
        kind = infer_kind(text)[0]
    if kind == PHATIC_KIND:
        return None, ""
    # its questions name a category without stating it ("What's my name?"); a sentence is read
    # clause by clause, so "I'm allergic to penicillin, should I worry?" keeps its statement
    stated = [clause for clause, asks in _asked_clauses(text) if not asks]
    body = " ".join(stated)
    low = [t.lower() for t in _tokens(body)]
    joined = " " + " ".join(low) + " "
    for stem, spaced in _HEALTH_SPACED:
        if spaced in joined:
            return "health", f"health '{stem}'"
    m = _search(_DOSE, body)
    if m:
        return "health", f"health: dose '{m.group(0)}'"
    m = _search(_REGIMEN, body)
    if m:
        return "health", f"health: regimen '{m.group(0)}'"
    m = _search(_INJURY, body)
    if m:
        return "health", f"health: injury '{m.group(0)}'"
    for clause in stated:   # an injury word in a clause of the speaker's ("my concussion")
        words = [x.lower() for x in _tokens(clause)]
        if _SPEAKERS_OWN & set(words):
            said = " " + " ".join(words) + " "
            stem = next((w for w in INJURY_WORDS if f" {w}" in said), None)
            if stem:
                return "health", f"health: injury '{stem}'"
    # a family fact, in a fact or in a clause that is one ("Also my son Leo is 7, he has a
    # school play on Friday": an episode, whose first clause is a fact)
    for clause in ([body] if kind == MemoryKind.SEMANTIC.value else []) + (stated if len(stated) > 1 else []):
        fam = next((t for t in (x.lower() for x in _tokens(clause)) if t in FAMILY), None)
        if fam and (clause is body or infer_kind(clause)[0] == MemoryKind.SEMANTIC.value):
            return "family", f"family '{fam}'"
    for pattern in (_FAMILY_EVENT, _MARITAL):   # in an episode too ("My dad passed away last year")
        m = _search(pattern, body)
        if m:
            return "family", f"family: '{m.group(0)}'"
    for cue, spaced in _IDENTITY_SPACED:
        if spaced in joined:
            return "identity", f"identity '{cue}'"
    m = _search(_JOB_CHANGE, body)
    if m:
        return "identity", f"identity: job change '{m.group(0)}'"
    # (an address's dots cut clauses: it is read in the whole text, where no question holds it)
    m = next((m for m in _EMAIL.finditer(text) if any("@" in c for c in stated)), None) if "@" in text else None
    if m and _OWNER.search(text):
        return "identity", f"identity: e-mail address '{m.group(0)}'"
    for pattern, what in ((_PHONE, "phone number"), (_PRACTICE, "diet, faith or language"), (_AGE, "age")):
        m = _search(pattern, body)
        if m:
            return "identity", f"identity: {what} '{m.group(0)}'"
    for i, t in enumerate(low):
        if t in ("is", "am", "i'm", "she's", "he's", "as", "are", "we're", "they're", "be"):
            for nxt in low[i + 1:i + 5]:   # "I'll be a senior product manager"
                if nxt in OCCUPATIONS:
                    return "identity", f"identity: occupation '{nxt}'"
    return None, ""


def _hedged(text: str) -> bool:
    low = " " + " ".join(t.lower() for t in _tokens(text)) + " "
    return any(f" {h} " in low for h in HEDGES)


_LEAD = r"^(?:(?:so|well|oh|ok|okay|also|and|but|then|honestly|anyway|alternatively|just|definitely|really)\b,?\s+)*"
#: A sentence that proposes, offers or asks something of the listener instead of stating it:
#: "You might want to try yoga", "How about Friday", "Let's meet", "Feel free to ...", "I'd
#: suggest ...", "It could help to ...", "If you ...", "Please ..." (after discourse words);
#: "Let's Encrypt" (a capitalised word after it) is a name, not a proposal
_PROPOSAL = re.compile(
    _LEAD + r"(?:you(?:'d| had)? better|you (?:might|could|may|should|can|would|ought to|want to|need to|have to)|"
    r"we (?:should|could|might|ought to)|how about|what about|why not|why don't|let's(?!\s+(?-i:[A-Z]))|"
    r"let us|let me|feel free|make sure|be sure to|remember to|don't|do not|never|"
    r"i(?:'d| would)? (?:suggest|recommend|advise)|it(?:'d| might| could| may| would) (?:help|be (?:worth|good|"
    r"nice|a good idea|best|wise|better))|if you|please|pls|plz|kindly)\b", re.IGNORECASE)
#: A question without its "?": an auxiliary before its subject ("Is my flight delayed", "Could you
#: check"), or a question word before an auxiliary ("How do I convert", "What's my name")
_QUESTION_FORM = re.compile(
    _LEAD + r"(?:(?:am|is|are|was|were|do|does|did|can|could|would|will|shall|should|have|has|had|may|must|"
    r"isn't|aren't|wasn't|don't|doesn't|didn't|can't|couldn't|won't|wouldn't|shouldn't|haven't|hasn't)\s+"
    r"(?:i|you|he|she|it|we|they|my|your|his|her|its|our|their|the|this|that|these|those|there|a|an|any|anyone|"
    r"someone|somebody)\b|(?:what|where|when|why|who|whom|whose|which|how)(?:'s|'re|'d|'ll|\s+(?:am|is|are|was|"
    r"were|do|does|did|can|could|would|will|should|has|have|had|much|many|long|often|far|old)\b))", re.IGNORECASE)
#: Where a sentence's clauses part: commas, semicolons, colons and ellipses (ASCII or
#: full-width), a dash between spaces, an em dash, a line break
_CLAUSE_BREAK = re.compile(r"[,;:…，、；：]+|\s[-–—]+\s|—|\n")


def _asked_clauses(text: str) -> list[tuple[str, bool]]:
    """The clauses of ``text`` (its sentences, speaker label included, cut at
    :data:`_CLAUSE_BREAK`), each with whether it asks rather than states: it opens a sentence
    with a question's word order ("Am I allergic ...", "What's my name", "How do I ..."), or it
    ends in a question mark and says no "I" / "my" / "we" ("should I worry?" does, but opens as
    a question; "I have type 2 diabetes so what can I eat?" and "I'm allergic to penicillin
    right?" state the speaker's fact). A relative clause ("my son, who has epilepsy, ...") is
    no question. Linear in the length of the text."""
    out: list[tuple[str, bool]] = []
    for sent in _SENTENCE.findall(text.translate(APOSTROPHES)):
        parts = [x.strip() for x in _CLAUSE_BREAK.split(sent)]
        parts = [x for x in parts if x]
        for k, part in enumerate(parts):
            clause = without_reminder(part)
            form = _QUESTION_FORM.match(clause) is not None
            if ends_in_question(clause):
                asks = form or not any(t.lower() in _FIRST_PERSON for t in _tokens(clause))
            else:
                asks = form and k == 0
            out.append((clause, asks))
    return out


def _is_question(body: str) -> bool:
    """A question: it ends in a question mark (:func:`engramdb.facts.ends_in_question`) or has a
    question's word order (:data:`_QUESTION_FORM`)."""
    return ends_in_question(body) or _QUESTION_FORM.match(body) is not None


def _is_proposal(body: str) -> bool:
    """A suggestion, offer, request or command to the listener (:data:`_PROPOSAL`,
    :data:`IMPERATIVE_VERBS`)."""
    if _PROPOSAL.match(body) is not None:
        return True
    words = re.sub(_LEAD, "", body, count=1, flags=re.IGNORECASE).split(None, 1)
    return bool(words) and words[0].lower().strip(",;:!.") in IMPERATIVE_VERBS


def past_event_verb(sentence: str) -> str | None:
    """The first verb of ``sentence`` (str, a speaker label allowed) in the past tense that
    reports an event, lower-cased ("went", "adopted", "hiking" of "we were hiking"; not "is
    married", "a used car"): the cue of ``infer_kind``'s "past event"; None when it has none."""
    cue = _past_event([t.lower() for t in _tokens(strip_speaker(sentence).translate(APOSTROPHES))])
    return None if cue is None else cue.split()[-1]


def states_a_fact(sentence: str) -> bool:
    """Whether ``sentence`` (one sentence; a leading capitalised "Speaker: " label is set aside)
    asserts something as holding, rather than asking, hedging or proposing it.

    A reminder preamble is set aside first ("Please remember that I am allergic to penicillin",
    "Don't forget, ...", "You should know ..."). Then it is no statement when it is: a question
    (a question mark at its end, full-width or before closing quotes, or a question's word order:
    "Is my flight delayed", "How do I ..."); chatter (greetings, thanks, filler, weather small
    talk: the sentence rules of :func:`infer_kind`); a hedge (:data:`HEDGES`: "maybe", "I
    think", "not sure", ...); a suggestion, offer, request or command to the listener ("You
    might want to try yoga", "How about Friday", "Let's ...", "I'd recommend ...", "Please
    ...", "Don't ...", a first word of :data:`IMPERATIVE_VERBS`: "Try ...", "Drink ..."); a
    promise of the speaker, after an acknowledgement or not ("Understood, I will keep the fiscal
    year in mind", "I'll remember that"; not "I'm going to be a dad in March"), or a "Quick
    question about ..." opener. Consolidation promotes only statements to semantic facts (a question or a piece of advice
    repeated across sessions is no fact about the user). Rules, English only: a statement whose
    first word is such a verb used as a name ("Try Harder is my band") is missed.
    """
    sentence = re.sub(r"^\s*(?:user|assistant|system)\s*:\s*", "", sentence, flags=re.I)   # a chat role, any case
    body = without_reminder(strip_speaker(sentence).translate(APOSTROPHES).strip())
    if not _tokens(body) or _is_question(body) or _chatter_sentence(body) is not None or _hedged(body):
        return False
    return not _is_proposal(body) and _PROMISE.match(body) is None and _COURTESY.search(body) is None


#: A courtesy of a chat, however many content words it has ("Your support means a lot.",
#: "Thanks for the tips!", "I really appreciate your help.", "Always here to help!", "Sorry to
#: hear that, John.", "That sounds wonderful."): it thanks, comforts or reacts, and states nothing
#: that holds ("Thanks to the new bus my commute dropped to 25 minutes." does).
_COURTESY = re.compile(
    r"^(?:(?:oh|well|honestly|really|seriously|aw+|and|again)\W+)*(?:many\s+)?(?:thanks|thank\s+you|thx|ty)\b(?!\s+to\b)"
    r"|^(?:(?:oh|well|honestly|really|and)\W+)*(?:your\s+\w+|that|this|it|you|everything|all\s+(?:of\s+)?this)\s+"
    r"(?:really\s+|truly\s+|just\s+)?(?:means?|meant)\s+(?:a\s+lot|so\s+much|a\s+great\s+deal|the\s+world)\b"
    r"|^(?:(?:oh|well|honestly|really)\W+)*(?:i|we)\s+(?:really\s+|truly\s+|so\s+|do\s+)?appreciate\s+(?:it|that|this|you|"
    r"(?:all\s+)?(?:your|the)\s+(?:help|support|advice|kindness|time|tips?|patience|encouragement|kind\s+words))\b"
    r"|\b(?:always|happy|glad)\s+(?:\w+\s+)?to\s+help\W*$"
    r"|^(?:(?:oh|well|honestly|really)\W+)*no\s+(?:problem|worries)(?:\W+(?:at\s+all|\w+))?\W*$"
    r"|\bsorry\s+to\s+hear\b|\byou(?:'re|\s+are)\s+(?:very\s+|so\s+|most\s+)?welcome\b|\bmy\s+pleasure\b"
    r"|^(?:good\s+luck|take\s+care|have\s+(?:a\s+)?(?:fun|great|good|nice|lovely))\b"
    r"|^(?:that|this|it)\s+(?:sounds|looks|seems)\s+(?:so\s+|really\s+)?(?:great|wonderful|amazing|awesome|fun|lovely|good|"
    r"nice|exciting|perfect|fantastic|delicious|beautiful|cool|hard|tough|rough|frustrating|stressful)\b", re.I)


#: A speaker's promise, after an acknowledgement or not ("Understood, I will keep the fiscal year in
#: mind", "Got it, I'll remember that", "We're going to look into it"): what the speaker will do,
#: not what holds.
_PROMISE = re.compile(
    r"^(?:(?:understood|noted|got it|gotcha|sure|sure thing|ok|okay|alright|all right|of course|certainly|"
    r"absolutely|will do|thanks|thank you|great|perfect|no problem|going forward|from now on|happy to help|"
    r"thanks for letting me know)\b[\s,.!:;\-–—]*)*"
    r"(?:i|we)(?:\s+(?:will|shall)|'ll|\s+am going to|'m going to|\s+are going to|'re going to|'m gonna)\s+"
    r"(?:(?:also|definitely|always|be sure to|make sure to)\s+)?"
    r"(?:keep|remember|note|make sure|remind|use|do|look into|follow up|check|send|get back|bear|take note|"
    r"update|reply|write|answer|add|flag|track|let you know|mention|stick|avoid)\b"
    r"|^(?:quick )?question\b", re.I)


@dataclass(slots=True)
class AdmissionDecision:
    """Why a candidate was admitted, rejected or merged.

    Attributes
    ----------
    index : int
        Position of the candidate in the batch.
    id : str
        The candidate's id (given or generated); the stored id when it was written.
    decision : str
        ``"admit"``, ``"reject"`` or ``"reinforce"`` (the policy's decision, also in shadow mode).
    score : float
        Weighted sum of the factors (A-MAC S(m)).
    factors : dict str -> float
        ``future_utility``, ``factual_confidence``, ``semantic_novelty``, ``temporal_recency``,
        ``content_type_prior``, each in [0, 1].
    stored : bool
        The candidate was written as a new memory (admitted, or anything in shadow mode).
    target : str or None
        For ``reinforce``: the id of the memory reinforced (stored, or admitted earlier in the batch).
    nearest_cosine : float or None
        Cosine to the closest stored memory or earlier candidate (None in an empty namespace).
    nearest : str or None
        Id of that closest memory or candidate.
    fact_change : str or None
        Set when a near-duplicate was kept apart because it changes a fact
        (``"number"``, ``"date"``, ``"name"`` or ``"negation"``).
    reason : str
        One line saying why; a chatter candidate rejected by the phatic rule has a reason
        starting with ``"phatic"``.
    shadow : bool
        The batch ran in shadow mode (the decision was only reported and logged).
    kind : str
        The kind the candidate is (or would be) stored with: the caller's kind when given,
        otherwise the inferred kind; ``"phatic"`` for chatter rejected by the phatic rule.
    kind_given : bool
        The caller gave the kind (it is kept, and the phatic rule does not apply).
    inferred_kind : str
        :func:`infer_kind`'s answer for the text: ``"semantic"``, ``"episodic"`` or ``"phatic"``
        (computed also when the caller gave a kind, for explanation).
    kind_reason : str
        Why :func:`infer_kind` chose it (the rule and the word that fired).
    protected : str or None
        ``"health"``, ``"family"`` or ``"identity"`` when the text states such a fact
        (:func:`protected_category`); a stored candidate is then tagged ``"protected"``.
    """

    index: int
    id: str
    decision: str
    score: float
    factors: dict[str, float]
    stored: bool
    target: str | None = None
    nearest_cosine: float | None = None
    nearest: str | None = None
    fact_change: str | None = None
    reason: str = ""
    shadow: bool = field(default=False)
    kind: str = MemoryKind.EPISODIC.value
    kind_given: bool = False
    inferred_kind: str = MemoryKind.EPISODIC.value
    kind_reason: str = ""
    protected: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "decision": self.decision, "score": round(self.score, 6),
                "factors": {k: round(v, 6) for k, v in self.factors.items()}, "stored": self.stored,
                "target": self.target, "nearest_cosine": None if self.nearest_cosine is None else round(self.nearest_cosine, 6),
                "nearest": self.nearest, "fact_change": self.fact_change, "reason": self.reason,
                "shadow": self.shadow, "kind": self.kind, "kind_given": self.kind_given,
                "inferred_kind": self.inferred_kind, "kind_reason": self.kind_reason, "protected": self.protected}


def _check_utility(values: Any, n: int) -> np.ndarray:
    """The caller's utilities as float32, shape (n,): real numbers in [0, 1] (no strings or bools,
    which NumPy would convert)."""
    arr = values if isinstance(values, np.ndarray) else None
    if arr is None:
        try:
            items = list(values)
        except TypeError:
            raise InvalidInputError("utility(texts) must return n numbers in [0, 1]") from None
        if not all(isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) for x in items):
            raise InvalidInputError("utility(texts) must return n numbers in [0, 1], not strings or bools")
        values = items
    elif arr.dtype.kind not in "fiu":
        raise InvalidInputError(f"utility(texts) must return n numbers in [0, 1], got an array of {arr.dtype}")
    try:
        u = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError("utility(texts) must return n numbers in [0, 1]") from None
    if u.shape != (n,):
        raise InvalidInputError(f"utility(texts) returned shape {u.shape}, expected ({n},)")
    if not np.all(np.isfinite(u)):
        raise NonFiniteError("utility(texts) returned NaN or infinite values")
    if np.any((u < 0) | (u > 1)):
        raise InvalidInputError("utility(texts) returned values outside [0, 1]")
    return u.astype(np.float32)


def nearest_earlier(vecs: np.ndarray, block: int = NEAREST_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's most similar earlier candidate of the batch, by exact blocked products.

    Row ``i`` is compared with rows ``0 .. i-1`` only (the lower triangle of the Gram matrix
    ``V V^T``), in tiles of ``block`` x ``block``, so memory stays O(block^2) rather than
    O(n^2) and the upper triangle is never computed.

    Parameters
    ----------
    vecs : ndarray of float32, shape (n, dim)
        Unit vectors, so an inner product is a cosine.
    block : int
        Tile side, > 0.

    Returns
    -------
    j : ndarray of int64, shape (n,)
        Index of the earlier candidate with the largest cosine (the first such on ties, as
        ``np.argmax``); 0 for row 0, which has none.
    cos : ndarray of float32, shape (n,)
        That cosine; -1 for row 0.

    References
    ----------
    A-MAC (arXiv:2603.04549), semantic novelty; this module's docstring.
    """
    vecs = np.ascontiguousarray(vecs, np.float32)
    n = len(vecs)
    best_j = np.zeros(n, np.int64)
    best = np.full(n, -np.inf, np.float32)
    for i0 in range(0, n, block):
        i1 = min(i0 + block, n)
        rows = vecs[i0:i1]
        for j0 in range(0, i1 - 1, block):   # column tiles left to right: ties keep the first j
            j1 = min(j0 + block, i1 - 1)
            s = rows @ vecs[j0:j1].T
            if j1 > i0:   # a tile on the diagonal: only j < i counts
                s[np.arange(i0, i1)[:, None] <= np.arange(j0, j1)[None, :]] = -np.inf
            arg = s.argmax(axis=1)
            top = s[np.arange(i1 - i0), arg]
            better = top > best[i0:i1]
            best[i0:i1][better] = top[better]
            best_j[i0:i1][better] = arg[better] + j0
    return best_j, np.where(np.isfinite(best), best, np.float32(-1.0)).astype(np.float32)


def _with_protected(tags: tuple[str, ...]) -> tuple[str, ...]:
    """``tags`` with :data:`PROTECTED_TAG` after them (unchanged when there or full)."""
    return tags if PROTECTED_TAG in tags or len(tags) >= MAX_TAGS else (*tags, PROTECTED_TAG)


def admit_batch(state: EngineState, prepared: list[Prepared], *, namespace: str, now: float,
                record_now: float | None = None, shadow: bool | None = None, utility: Callable[[list[str]], Any] | None = None,
                config: "AdmissionConfig | None" = None,
                kind_given: Sequence[bool] | None = None) -> list[AdmissionDecision]:
    """See :meth:`Engram.admit_batch`. ``prepared`` are the candidates, validated and embedded
    by the engine (each with its vector); nothing is written before the decisions are made,
    then admissions, reinforcements and log entries commit in one write unit.

    Parameters
    ----------
    now : float
        Time admission's factors (recency) and the reinforcements' salience are computed at,
        Unix seconds.
    record_now : float, optional
        Record time of the write (the dynamics log's ``at``, edge times), Unix seconds: the
        clock, which ``now`` never replaces; ``now`` when omitted.
    kind_given : sequence of bool, optional
        Per candidate, whether its mapping named a ``kind`` (``prepare`` fills in ``episodic``
        otherwise, so the prepared kind alone cannot tell). When omitted, a prepared kind other
        than ``episodic`` counts as given and ``episodic`` as the default (so a caller's explicit
        ``"episodic"`` is then re-inferred).

    Raises
    ------
    InvalidInputError
        A candidate in another namespace, an id twice or already stored, a link to itself, a
        bad ``utility``, ``kind_given`` of the wrong length.
    MemoryNotFoundError
        A link to a memory that neither the store nor the batch holds (checked for every
        candidate, whatever admission decides).
    """
    cfg = config or state.config.admission
    shadow = cfg.shadow if shadow is None else bool(shadow)
    if utility is not None and not callable(utility):
        raise InvalidInputError(f"utility must be a callable texts -> scores or None, got {type(utility).__name__}")
    for p in prepared:
        if p.namespace != namespace:
            raise InvalidInputError(f"candidate {p.ext_id!r} names namespace {p.namespace!r}; admit_batch "
                                    f"scores one namespace ({namespace!r}) at a time")
    n = len(prepared)
    if kind_given is None:
        given = [p.kind is not MemoryKind.EPISODIC for p in prepared]
    else:
        given = [bool(g) for g in kind_given]
        if len(given) != n:
            raise InvalidInputError(f"kind_given holds {count(len(given), 'flag')} for {count(n, 'candidate')}")
    if n == 0:
        return []
    seen = set()
    for p in prepared:
        if p.ext_id in seen:
            raise InvalidInputError(f"id {p.ext_id!r} appears twice in the batch")
        seen.add(p.ext_id)
    with state.store.read("checking candidate ids") as txn:
        for p in prepared:
            if state.store.lookup_id(txn, namespace, p.ext_id) is not None:
                raise InvalidInputError(f"id {p.ext_id!r} already exists in namespace {namespace!r}; "
                                        "a candidate needs a new id (or none)")
        # every candidate's links, whatever admission decides (as add_batch checks them)
        for p in prepared:
            for to, _rel, _w in p.links:
                if to == p.ext_id:
                    raise InvalidInputError(f"candidate {p.ext_id!r}: cannot link memory {to!r} to itself")
                if to not in seen and state.store.lookup_id(txn, namespace, to) is None:
                    raise MemoryNotFoundError(
                        f"link from {p.ext_id!r} to {to!r}: no memory {to!r} in namespace {namespace!r} "
                        "(a link names a stored memory or a candidate of the same batch)")
    texts = [p.text for p in prepared]
    # kinds: the caller's when given, else the one the text states; chatter is "phatic"
    inferred = [infer_kind(t) for t in texts]
    chatter = np.array([k == PHATIC_KIND for k, _ in inferred])
    kinds = []
    for p, g, (k, _) in zip(prepared, given, inferred):
        if not g and cfg.infer_kind and k != PHATIC_KIND:
            p.kind = MemoryKind(k)
        kinds.append(p.kind.value if g or k != PHATIC_KIND or not cfg.reject_phatic else PHATIC_KIND)
    phatic_rule = chatter & ~np.array(given, np.bool_) if cfg.reject_phatic else np.zeros(n, np.bool_)
    protect = [protected_category(t, k) if cfg.protect else (None, "") for t, (k, _) in zip(texts, inferred)]
    u = heuristic_utility(texts) if utility is None else _check_utility(utility(texts), n)
    vecs = np.ascontiguousarray(np.stack([p.vector for p in prepared]), dtype=np.float32)

    # nearest stored memories (any state, for novelty) and the nearest *active* one (duplicates)
    c = state.cols
    cos_store = np.full(n, -1.0, np.float32)
    dup_nid = np.full(n, -1, np.int64)
    dup_cos = np.full(n, -1.0, np.float32)
    near_nid = np.full(n, -1, np.int64)
    sp = state.space(namespace)
    index = None if sp is None else sp.index
    if index is not None and len(index):
        k = 8
        labels, cos = index.knn_batch_exact(vecs, k, ef=max(cfg.novelty_ef, k))   # (logged: the same on any machine)
        if c.censor is not None and c.blocked[labels].any():   # a hidden memory is not there for
            hid = c.blocked[labels]                             # admission (never named, never a target)
            c.censor.kept_out(np.unique(labels[hid]))
            order = np.argsort(-np.where(hid, -2.0, cos), axis=1, kind="stable")
            labels, cos = np.take_along_axis(labels, order, 1), np.take_along_axis(cos, order, 1)
            cos = np.where(c.blocked[labels], np.float32(-1.0), cos)
        cos_store = cos[:, 0].astype(np.float32)
        near_nid = labels[:, 0].astype(np.int64)
        active = (c.state[labels] == _STATE_CODES[MemoryState.ACTIVE]) & c.alive[labels] & ~c.blocked[labels]
        rows = np.flatnonzero(active.any(axis=1))
        first = active[rows].argmax(axis=1)   # the nearest active one of each row
        dup_nid[rows], dup_cos[rows] = labels[rows, first], cos[rows, first]
    # earlier candidates of the batch
    batch_j, cos_batch = nearest_earlier(vecs)
    cos_batch[1:] = exact_cosines(vecs[1:], vecs[batch_j[1:]])   # logged: the same on any machine

    stored_text: dict[int, str] = {}
    dups = sorted(set(dup_nid[(dup_nid >= 0) & (dup_cos >= cfg.duplicate_cosine)].tolist()))
    for nid, rec in zip(dups, state.records(dups, "reading near-duplicates")):
        stored_text[nid] = rec["text"]
    # a near-duplicate that changes a number, date, name or negation of the memory it is near to
    # (stored, or an earlier candidate) is kept apart from it: what it says is new, and its
    # novelty is 1 (its cosine to the memory it corrects made it look redundant, and the
    # correction was rejected while the outdated value stayed)
    # each candidate's nearest near-duplicate: "store" (a stored memory), "batch" (an earlier
    # candidate) or None; chatter is rejected before any duplicate check
    dup_of: list[str | None] = [None] * n
    change_of: list[str | None] = [None] * n
    for i, p in enumerate(prepared):
        batch_dup = n > 1 and i > 0 and cos_batch[i] >= cfg.duplicate_cosine
        store_dup = dup_nid[i] >= 0 and dup_cos[i] >= cfg.duplicate_cosine
        if phatic_rule[i]:
            continue
        if store_dup and (not batch_dup or dup_cos[i] >= cos_batch[i]):
            dup_of[i] = "store"
            change_of[i] = fact_change(p.text, stored_text[int(dup_nid[i])])
        elif batch_dup:
            dup_of[i] = "batch"
            change_of[i] = fact_change(p.text, prepared[int(batch_j[i])].text)

    conf = np.array([p.confidence * (HEDGE_PENALTY if _hedged(p.text) else 1.0) for p in prepared], np.float32)
    novelty = np.clip(1.0 - np.maximum(cos_store, cos_batch), 0.0, 1.0).astype(np.float32)
    novelty[[i for i, ch in enumerate(change_of) if ch is not None]] = 1.0
    age = np.maximum(now - np.array([p.created_at for p in prepared], np.float64), 0.0)
    recency = np.exp2(-age / cfg.recency_half_life_s).astype(np.float32)
    prior = cfg.type_prior_by_code[np.array([p.kind.code for p in prepared], np.intp)].copy()
    phatic = np.array([is_phatic(t) for t in texts])
    if cfg.infer_kind:   # infer_kind's finer rules: chatter it finds, no cap where it finds a fact
        phatic = chatter | (phatic & np.array([k != MemoryKind.SEMANTIC.value for k, _ in inferred]))
    prior[phatic] = np.minimum(prior[phatic], np.float32(PHATIC_PRIOR))
    features = np.ascontiguousarray(np.stack([u, conf, novelty, recency, prior], axis=1), dtype=np.float32)
    score, admit = registry.get("admission_score")(features, cfg.weights, float(cfg.threshold))

    decisions: list[AdmissionDecision] = []
    resolved: list[tuple[str, int | None]] = []   # per candidate: (decision, batch index it reinforces)
    stored_counts: dict[int, int] = {}
    batch_counts: dict[int, int] = {}
    for i, p in enumerate(prepared):
        factors = {name: float(features[i, j]) for j, name in enumerate(ADMISSION_FACTORS)}
        near_c, near = None, None
        if cos_store[i] > -1.0 or cos_batch[i] > -1.0:
            if cos_batch[i] > cos_store[i]:
                near_c, near = float(cos_batch[i]), prepared[int(batch_j[i])].ext_id
            else:
                near_c, near = float(cos_store[i]), c.ext_ids[int(near_nid[i])]
        d = AdmissionDecision(i, p.ext_id, "reject", float(score[i]), factors, False, nearest_cosine=near_c,
                              nearest=near, shadow=shadow, kind=kinds[i], kind_given=given[i],
                              inferred_kind=inferred[i][0], kind_reason=inferred[i][1], protected=protect[i][0])
        change = change_of[i]
        if phatic_rule[i]:   # chatter: rejected whatever its score, before any duplicate check
            d.reason = (f"phatic: {inferred[i][1]}; no fact to keep (score {float(score[i]):.3f}, "
                        f"threshold {cfg.threshold:g}, not used)")
        elif dup_of[i] == "store":
            nid = int(dup_nid[i])
            if change is None:
                d.decision, d.target = "reinforce", c.ext_ids[nid]
                d.reason = f"near-duplicate (cosine {float(dup_cos[i]):.3f}) of stored memory {d.target!r}"
                stored_counts[nid] = stored_counts.get(nid, 0) + 1
        elif dup_of[i] == "batch":
            j = int(batch_j[i])
            if change is None:
                dj, tj = resolved[j]
                if dj == "admit":
                    d.decision, d.target = "reinforce", prepared[j].ext_id
                    batch_counts[j] = batch_counts.get(j, 0) + 1
                elif dj == "reinforce":
                    d.decision, d.target = "reinforce", decisions[j].target
                    if tj is not None:
                        batch_counts[tj] = batch_counts.get(tj, 0) + 1
                    else:
                        nid = state.lookup(namespace, decisions[j].target)
                        stored_counts[nid] = stored_counts.get(nid, 0) + 1
                else:
                    d.reason = f"near-duplicate (cosine {float(cos_batch[i]):.3f}) of rejected candidate #{j}"
                if d.decision == "reinforce":
                    d.reason = f"near-duplicate (cosine {float(cos_batch[i]):.3f}) of candidate #{j}"
        if d.decision == "reject" and not d.reason:
            if admit[i]:
                d.decision = "admit"
                d.reason = f"score {float(score[i]):.3f} >= threshold {cfg.threshold:g}"
            else:
                weakest = min(factors, key=lambda f: factors[f] * float(cfg.weights[ADMISSION_FACTORS.index(f)])
                              - float(cfg.weights[ADMISSION_FACTORS.index(f)]))
                d.reason = (f"score {float(score[i]):.3f} < threshold {cfg.threshold:g} "
                            f"(largest shortfall: {weakest} = {factors[weakest]:.2f})")
                if phatic[i]:
                    d.reason += "; phatic: greetings, thanks or questions, no fact"
            if change is not None:
                d.fact_change = change
                d.reason += f"; near-duplicate kept apart: it changes a {change}"
        tgt_batch = None
        if d.decision == "reinforce" and d.target in {q.ext_id for q in prepared[:i]}:
            tgt_batch = next(j for j in range(i) if prepared[j].ext_id == d.target)
        resolved.append((d.decision, tgt_batch))
        decisions.append(d)

    rate = state.config.decay.reinforce_rate
    if shadow:
        to_add = list(prepared)
        stored_counts, batch_counts = {}, {}
    else:
        to_add = [p for p, d in zip(prepared, decisions) if d.decision == "admit"]
        for j, times in batch_counts.items():
            s = prepared[j].salience
            for _ in range(times):
                s = boosted(s, rate)
            prepared[j].salience = float(np.float32(min(s, 1.0)))
    added = {id(q) for q in to_add}
    # a reinforced candidate's fact is its target's: a protected one protects the target (a
    # candidate of the batch, or a stored memory), and its links start there (as add() of a
    # text already stored links the stored memory)
    protect = set() if shadow else {d.target for d in decisions if d.decision == "reinforce" and d.protected}
    for p, d in zip(prepared, decisions):
        d.stored = id(p) in added
        if d.stored and (d.protected or p.ext_id in protect):
            p.tags = _with_protected(p.tags)
    protect_stored = protect - {p.ext_id for p in to_add}
    carried: list[tuple[str, str, Any, float | None]] = []
    if not shadow:
        holder = {p.ext_id: p.ext_id if d.decision == "admit" else d.target
                  for p, d in zip(prepared, decisions) if d.decision in ("admit", "reinforce")}
        for p, d in zip(prepared, decisions):
            if d.decision not in ("admit", "reinforce") or not p.links:
                continue
            src = holder[p.ext_id]
            kept, left_out = [], []
            for to, rel, w in p.links:
                dest = holder.get(to) if to in seen else to   # a candidate: the memory holding its text
                if dest is None or dest == src:   # a rejected candidate, or its own text
                    left_out.append(to)
                elif d.decision == "admit":
                    kept.append((dest, rel, w))
                else:
                    carried.append((src, dest, rel, w))
            if d.decision == "admit":
                p.links = kept
            if left_out:
                d.reason += (f"; its {count(len(left_out), 'link')} to {', '.join(map(repr, left_out))} "
                             "left out (not admitted)")
    logs = [{"action": "admission_shadow" if shadow else f"admission_{d.decision}", "namespace": namespace,
             "id": d.id, "decision": d.decision, "score": d.score, "factors": d.factors, "target": d.target,
             "fact_change": d.fact_change, "reason": d.reason, "text": prepared[d.index].text,
             "tags": list(prepared[d.index].tags),
             "kind": d.kind, "kind_reason": d.kind_reason, "protected": d.protected}
            for d in decisions]   # every decision, admits included (README: dynamics_log)

    new_nid = {p.ext_id: p for p in to_add}   # their nids are set when the unit allocates them

    def nid_of(unit, ext_id: str) -> int:
        q = new_nid.get(ext_id)
        return q.nid if q is not None else unit.lookup(namespace, ext_id)

    def in_unit(unit):
        reinforce(unit, stored_counts, rate)
        for ext_id in sorted(protect_stored):
            nid = unit.lookup(namespace, ext_id)
            rec = unit.record(nid)
            tags = tuple(rec.get("tags") or ())
            if _with_protected(tags) != tags:
                unit.put_record(nid, {**rec, "tags": list(_with_protected(tags))})
        rows = []
        scale = state.config.link.contiguity_words
        text = {q.nid: q.text for q in to_add}
        for src, dest, rel, w in carried:
            a, b = nid_of(unit, src), nid_of(unit, dest)
            if w is None:   # as for a new memory's link: contiguity for `next`, else 1
                w = default_weight(rel, text.get(a) or unit.record(a)["text"], text.get(b) or unit.record(b)["text"],
                                   scale)
            rows.append((a, b, rel.code, w))
        unit.log(logs)
        return rows

    record_now = now if record_now is None else record_now
    if to_add:   # the add path: slots resolve as in add_batch (a new single value supersedes)
        write_new(state, to_add, record_now, what="admitting memories", verb="admit_batch", extra=in_unit, at=now)
    elif stored_counts or logs:
        with write_unit(state, "admission: reinforcing duplicates", record_now, verb="admit_batch", at=now) as unit:
            unit.add_edges(in_unit(unit))
    return decisions
