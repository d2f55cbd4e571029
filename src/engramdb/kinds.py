"""What a text states, by rules and without a model: its kind of memory, and whether it is a fact
the default forgetting policy must keep.

- :func:`infer_kind`: a fact or preference is ``semantic``, an event or appointment
  ``episodic``, a how-to ``procedural``, and greetings, thanks, laughter, acknowledgements,
  weather small talk and bare questions are ``phatic`` chatter (:data:`PHATIC_KIND`);
- :func:`protected_category`: an identity, health or family fact (:data:`PROTECTED_CATEGORIES`),
  tagged ``protected`` on admission so that rescoring never archives it;
- :func:`states_a_fact`: whether a sentence asserts something as holding, rather than asking,
  hedging, proposing or promising it;
- :func:`is_phatic`, :func:`hedged`, :func:`past_event_verb`, :func:`strip_speaker`.

The admission policy (:mod:`engramdb.dynamics.admission`) files and protects candidates with
them, consolidation promotes only statements, and the slot rules (:mod:`engramdb.slots`) ask
whether a message states more than the value they found in it. Kinds after Tulving (1972)
(episodic and semantic memory) and Squire (1987) (procedural); the type prior of chatter after
A-MAC (arXiv:2603.04549).
"""
from __future__ import annotations

import re

from .chatter import APOSTROPHES, PHATIC, chatter_left, filler_left
from .facts import (
    DATE_WORDS, FUNCTION_WORDS, MONTHS, ends_in_question, fact_signature,
    tokens as _tokens, without_reminder,
)
from .patterns import Needles
from .sentences import IMPERATIVE_VERBS
from .types import MemoryKind

__all__ = ["infer_kind", "protected_category", "states_a_fact", "is_phatic", "hedged", "past_event_verb",
           "strip_speaker", "HEDGES", "PHATIC_KIND", "PROTECTED_CATEGORIES"]

HEDGES = ("maybe", "perhaps", "probably", "possibly", "might", "i think", "i guess", "not sure",
          "unsure", "i believe", "rumor", "apparently", "supposedly", "i suppose", "i reckon", "i feel like")

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


def hedged(text: str) -> bool:
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
    if not _tokens(body) or _is_question(body) or _chatter_sentence(body) is not None or hedged(body):
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


