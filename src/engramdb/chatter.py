"""Chatter: the words of a conversation that state no fact, and the messages made only of them.

A chat is full of phatic talk (Malinowski's "phatic communion": speech that keeps contact and
says nothing): greetings, thanks, compliments, laughter, acknowledgements. Admission control
(:func:`engramdb.kinds.infer_kind`) rejects such candidates; recall must not
promote them either. :func:`content_free` finds a message of nothing but thanks, greetings,
compliments and laughter ("Amazing, thank you!", "You're welcome!", "haha, you too!"): such a
message answers no question, so recall does not lift it by spreading activation from the
message beside it (:mod:`engramdb.recall.activation`), where it took hit slots from real
evidence. A message that may answer a question ("No.", "Sure, sounds good.", "ok") is not
content-free: :data:`ANSWER_WORDS`. :func:`speech_act` also tells a message that only asks
("How did the leg feel?"): it shares the words of a question put to recall but states nothing,
and recall weighs it less (``RecallConfig.question_weight``).

No model: word lists and rules, as the rest of the write path's text analysis.
"""
from __future__ import annotations

import functools
import re

from .facts import DATE_WORDS, FUNCTION_WORDS, MONTHS, NUMBER_WORDS, tokens
from .patterns import Needles
from .speakers import LABEL

__all__ = ["STATEMENT", "QUESTION", "CONTENT_FREE", "speech_act", "content_free", "filler_sentence", "filler_left",
           "chatter_left", "sentences", "PHATIC", "GREETINGS", "GREETING_PHRASES", "CHATTER", "ANSWER_WORDS",
           "THANKS", "LAUGH", "APOSTROPHES", "without_greetings", "asked_terms", "question_terms"]

#: Greetings, thanks and reactions that are mostly phatic (admission's narrow list:
#: :func:`engramdb.kinds.is_phatic`).
PHATIC = frozenset("hi hello hey thanks thank ok okay lol haha bye cool nice great sure yeah yep "
                   "wow hmm oh good morning night welcome glad awesome amazing congrats "
                   "congratulations sounds see soon later care cheers yay appreciate".split())
#: Curly apostrophes made straight (``str.translate`` table).
APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})
#: Laughter and interjections written out ("hahaha", "lol", "xD", "ugh", "hmm").
LAUGH = re.compile(r"^(?:(?:ha|he|ah|ja)+h?|l+o+l+|lmf?ao+|rofl|x+d+|a+w+|u+g+h+|b+r+|h+m+|o+h+|w+o+w+|y+a+y+)$")
#: Greetings, thanks and reactions: a sentence of these and names only addresses someone
#: ("Thanks, Mel!", "That's great, Caroline!").
GREETINGS = frozenset("hi hello hey hiya thanks thank thx cheers bye goodbye morning night evening welcome "
                      "congrats congratulations dear love great awesome amazing nice cool wow sweet lovely "
                      "wonderful fantastic brilliant proud sorry".split())
#: Words that carry no fact in a sentence of their own: greetings and farewells, thanks and
#: compliments, laughter and interjections, acknowledgements, vague hedges and conversation
#: management ("let me check", "get back to you"). A sentence made only of these (and of
#: function words and names) is chatter.
CHATTER = PHATIC | frozenset(
    # greetings, farewells, address
    "hiya howdy yo greetings goodbye cya bye-bye farewell afternoon evening day week weekend "
    "chatting chat catch talk talking seeing safe mate dude buddy man guys folks everyone everybody "
    "all dear there "
    # thanks, compliments, reactions, interjections
    "thx ty thankful grateful appreciated much lot lots ton tons bunch heaps best kind kindest sweet "
    "lovely wonderful fantastic brilliant excellent perfect helpful hilarious funny fun lifesaver star "
    "legend rock rocks genius beautiful gorgeous incredible impressive interesting cute neat lucky "
    "jealous crazy wild insane sad sorry shame pity bless omg gosh god damn yikes oops whoa woah aww "
    "aw ugh brr meh phew hooray bravo "
    # acknowledgements and agreement
    "yup nope nah no right alright fine got understood understand noted agreed agree exactly true "
    "totally definitely absolutely certainly indeed course problem problems worries worry deal makes "
    "sense mean means know knew saw same either fair enough thing things whatever works anyway "
    "anyways really tell more less back get check checking posted updated touch point fact sharing letting "
    # intensifiers, evaluations, passing feelings
    "very such quite pretty super too sounds sound seems seem looks look feel feels felt bad better "
    "happy tired exhausted sleepy hungry busy bored stressed excited nervous "
    # vague hedges
    "maybe perhaps probably possibly guess suppose think thought hope idea never mind nothing "
    "something anything everything figure out work could might will would shall us me "
    # contractions that FUNCTION_WORDS lacks
    "what's that's it's there's here's how's who's where's isn't wasn't doesn't don't didn't "
    "won't can't i'm you're you've you'll you'd we're we'll we've they're it'll that'll".split())
#: Words by which a message may answer a question ("Did you book it?" - "Yes!"; "Shall I book
#: the 9:40?" - "ok, sounds good"): a message holding one is never :func:`content_free`, whatever
#: else it says. Also feelings and hedges, which answer "how was it?" ("tired but happy").
ANSWER_WORDS = frozenset(
    "yes yeah yep yup ya ja si sim oui da no nope nah nein non nao not never ok okay k alright right sure "
    "fine agreed agree exactly true correct definitely absolutely certainly indeed totally course sounds "
    "deal done did got works none both either neither same too maybe perhaps probably possibly guess "
    "suppose think hope love like bad better worse happy sad tired exhausted sleepy hungry busy bored "
    "stressed excited nervous".split())
#: Words of thanks, greeting, farewell and praise: a content-free message holds one (or laughter).
THANKS = GREETINGS | frozenset("thank thanks thx ty appreciate appreciated grateful thankful welcome cheers "
                               "bye goodbye cya congrats congratulations".split())
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
#: Words by which a question speaks of its asker: "Can you recommend a vet for my dog Rex?" tells
#: that the asker has a dog named Rex; "How is the leg feeling?" tells nothing.
_FIRST_PERSON = frozenset("i i'm i've i'd i'll me my mine myself we we're we've we'd we'll us our ours".split())

#: :func:`speech_act` codes (``Columns.speech_act``).
STATEMENT, QUESTION, CONTENT_FREE = 0, 1, 2


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (str) after a leading "Speaker: " label, curly apostrophes made
    straight; sentences without a word are left out."""
    return [s for s in _SENTENCE.findall(LABEL.sub("", text, count=1).translate(APOSTROPHES)) if tokens(s)]


#: The end of a greeting: punctuation or the end of the text ("How is it going to affect my
#: taxes?", "Good to meet you at the conference in Lisbon" greet nobody).
_GREETING_END = r"(?=\s*(?:[?!.,;:)~]|$))"
#: Words of praise before "job" or "work" ("Great job!").
_PRAISE = (r"(?:great|good|nice|awesome|amazing|excellent|fantastic|wonderful|brilliant|terrific|super|superb|stellar"
           r"|incredible|impressive|outstanding)")
#: What a job praised is ("Great job on the 10k!", "Great job with the race"): its words stay.
_PRAISED = r"(?:\s+(?:on|with)\s+[^.!?,;]*?)"
#: The end of praise: maybe a time word and a name ("Nice work today, Jon!"), then punctuation, an
#: emoji or the end of the text.
_PRAISE_END = (r"(?:\s+(?:there|today|again|so\s+far|this\s+(?:week|time)))?(?:,?\s+(?-i:[A-Z])[\w'’-]*)?"
               r"\s*(?:[?!.,;)~]|$|[^\w\s])")
#: A farewell that opens its clause (maybe after thanks, "ok", "bye" or "well") and ends it, or the
#: message, with no question mark: "Talk soon!", "Thanks, talk next week!", "See you tomorrow.",
#: "OK, catch you later", "Talk to you on Monday!", "Take care!", "ttyl". Its time words say
#: nothing ("next week" of "Thanks, talk next week!" came first for "What did we decide last
#: week?"). Not "See you at the dentist tomorrow." or "Talk next week about the budget." (a plan
#: with words of its own), "Should we talk tomorrow?" (a question), "We'll talk next week." (it
#: opens no clause) nor "Take care of the dog." (the care is the message).
_FAREWELL = (
    r"(?:^|(?<=[.!?,;:(]))\s*(?:(?:thanks|thank\s+you|thx|ok|okay|alright|bye|well|anyway|great|cool|cheers)[\s,!.]+)?"
    r"(?:(?:(?:talk|speak|chat)(?:\s+(?:to|with)\s+(?:you|ya|u))?|see\s+(?:you|ya|u)|catch\s+(?:you|ya|u)(?:\s+up)?|ttyl)"
    r"(?:\s+(?:soon|later|then|again|tomorrow|tonight|around|next\s+(?:week|weekend|month|year|time)"
    r"|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|this\s+(?:week|weekend|afternoon|evening)"
    r"|in\s+a\s+(?:bit|while|few(?:\s+(?:days|weeks))?)))?|take\s+care)(?=\s*(?:[!.,;:)~]|$))")
#: Greetings made of words that say something elsewhere ("Long time no talk!", "How have you
#: been?", "Hope you're doing well.", "Good to hear from you", "It's been ages!"), and praise
#: ("Great job!", "Nice work, Jon!", "Way to go!", "you're doing an amazing job"): each is read
#: as "hello"; a title is none ("We watched Long Time No See."), nor a job or work said of
#: ("I got a good job!", "Great work on Atlas!").
GREETING_PHRASES = re.compile(
    r"\b(?!(?-i:Long\s+Time\s+No\s+[A-Z]))long[\s,-]+time[\s,]+no\s+(?:see|talk|hear|chat|speak)" + _GREETING_END
    + r"|\blong\s+time(?=\s*!)|\bhow\s+(?:have\s+|'ve\s+)?you\s+been\b|"
    r"\b(?:it's|it\s+has|it's\s+been|been)\s+(?:been\s+)?(?:a\s+(?:long\s+)?(?:while|time)|ages|forever|too\s+long)"
    + _GREETING_END + r"|"
    r"\bhow\s+are\s+you(?:\s+doing)?" + _GREETING_END + r"|\bhow(?:'s|\s+is)\s+it\s+going" + _GREETING_END + r"|"
    r"\b(?:good|nice|great|lovely)\s+to\s+(?:hear\s+from|see|meet|talk\s+to)\s+(?:you|ya)" + _GREETING_END + r"|"
    r"\bhope\s+(?:you're|you\s+are|all\s+is|everything\s+is|all's)\s+(?:doing\s+)?(?:well|good|great|fine|ok|okay)"
    + _GREETING_END + r"|\bhope\s+(?:this|this\s+message|this\s+email|the\s+message)\s+finds\s+you\s+well"
    + _GREETING_END + r"|\bhope\s+you\s+(?:had|have|are\s+having|'re\s+having)\s+a\s+(?:good|great|nice|lovely|fun)\s+"
    r"(?:weekend|week|day|evening|morning|holiday|holidays|break|time)" + _GREETING_END + r"|"
    # praise that opens its clause (maybe after "wow", "oh", "hey") and ends it, maybe before a
    # time word or a name: "Great job!", "Such a great job today, Jon!", "Nice work Jon!", "Way to
    # go!", "Keep up the good work!", "Well done!"; a job praised may be named after it ("Great job
    # on the 10k!", "Great job with the race!": those words stay). Not "I got a good job!", "Good
    # work is rare.", "Really good job, decent pay." or "Solid job." (a job described), "Great work
    # on Atlas!" (work done on it), "Well done, please." (a steak), "Our band: Way to Go!" (a title:
    # every word capitalised but "to", "it", "the")
    r"(?:^|(?<=[.!?,;:(]))\s*(?:(?:wow|oh|hey|and)[\s,]+)?(?!(?-i:[A-Z][\w']*(?:\s+(?:to|it|the|[A-Z][\w']*))*\s+[A-Z]))"
    r"(?:(?:(?:such|what)\s+an?\s+)?" + _PRAISE + r"\s+(?:job(?=" + _PRAISED + r"?" + _PRAISE_END + r")|(?:work|going)"
    r"(?=" + _PRAISE_END + r"))|(?:(?:well|nicely)\s+done|job\s+well\s+done)(?=\s*(?:!|,?\s+(?-i:[A-Z])))"
    r"|(?:way\s+to\s+go|keep\s+(?:it\s+)?up(?:\s+the\s+(?:good|great)\s+work)?)(?=" + _PRAISE_END + r"))|"
    # ... and "you're doing a great job", "you did an amazing job" anywhere: the job is no employment
    r"\byou(?:'re|\s+are|'ve|\s+have)?\s+(?:done|doing|did)\s+(?:a|an|such\s+an?)\s+(?:(?:really|very|so)\s+)?"
    + _PRAISE + r"\s+job\b|" + _FAREWELL,
    re.I)


#: What a text holds when a greeting of :data:`GREETING_PHRASES` in it has words of its own ("how
#: have you been" has none the keyword index keeps): a cheap test before the pattern's. Kept
#: beside the pattern, which it must cover.
_GREETING_CUES = ("long", "it going", "hope", "hear from", "see y", "meet y", "talk", "been a", "been forever",
                  "been too", "job", "work", "going", "done", "way to go", "keep", "speak", "chat", "see u", "catch",
                  "ttyl", "care")


#: A word of each branch of :data:`GREETING_PHRASES`: a text that holds none greets nobody.
_GREETING_NEEDS = Needles(("long", "how", "it's", "has", "been", "hear", "see", "meet", "talk", "hope", "job", "work",
                           "going", "done", "way", "keep", "speak", "chat", "catch", "ttyl", "care"))


def without_greetings(text: str) -> str | None:
    """``text`` (str) with each greeting of :data:`GREETING_PHRASES` blanked out ("Long time no
    talk! Busy summer." -> " ! Busy summer."), or None when it holds none. What the keyword
    index reads (:func:`engramdb.index.keyword.term_counts`): a greeting's words answer nothing."""
    low = text.lower()
    if not any(cue in low for cue in _GREETING_CUES):
        return None
    plain = text.translate(APOSTROPHES)   # "how’s it going" as "how's it going"
    return GREETING_PHRASES.sub(" ", plain) if GREETING_PHRASES.search(plain) is not None else None


def chatter_left(sentence: str) -> tuple[list[str], list[str], bool, list[str]]:
    """What ``sentence`` (str) holds besides chatter: its words lower-cased, its words that are
    not :data:`CHATTER`, function words or laughter, whether those hold a number (digits or a
    number word), and the names among them (capitalised, not a month or date word). A greeting
    of :data:`GREETING_PHRASES` is read as "hello"."""
    greets = _GREETING_NEEDS.may_hold(sentence)   # (most sentences hold no word a greeting needs)
    toks = tokens(GREETING_PHRASES.sub(" hello ", sentence) if greets else sentence)
    low = [t.lower() for t in toks]
    rest = [t for t, lo in zip(toks, low) if lo not in CHATTER and lo not in FUNCTION_WORDS and not LAUGH.match(lo)]
    if not rest:
        return low, rest, False, []
    rest_low = [t.lower() for t in rest]
    joined = "".join(rest)   # (a digit is no letter: most texts skip the character test)
    number = (not joined.isalpha() and any(map(str.isdigit, joined))) or not NUMBER_WORDS.isdisjoint(rest_low)
    names = [t for t, lo in zip(rest, rest_low) if t[0].isupper() and lo not in MONTHS and lo not in DATE_WORDS]
    return low, rest, number, names


def filler_sentence(sentence: str) -> bool:
    """True when ``sentence`` (str) is greetings, thanks or filler: every word is a
    :data:`CHATTER` word, a function word or laughter, or the words besides a greeting are
    names only ("Thanks, Mel!", "Hi Sarah"; no number)."""
    return filler_left(chatter_left(sentence))


def filler_left(left: tuple[list[str], list[str], bool, list[str]]) -> bool:
    """:func:`filler_sentence` of a sentence's :func:`chatter_left` ``left`` (for a caller that
    reads ``left`` too: one reading of the sentence)."""
    low, rest, number, names = left
    return not rest or (not number and any(lo in GREETINGS for lo in low) and len(names) == len(rest))


def content_free(text: str) -> bool:
    """True when ``text`` (a memory's text, str) states nothing and answers nothing: after an
    optional "Speaker: " label, every word is a :data:`CHATTER` word, a function word or
    laughter (no name: "Thanks, Dr Patel!", "Hello from Tokyo!" say who or where), one is thanks,
    a greeting, praise or laughter (:data:`THANKS`), and none is one of :data:`ANSWER_WORDS`
    ("I got it!", "Me too!", "Love it!" answer the question before them); or an assistant's
    acknowledgement ("assistant: Noted!", "assistant: Got it.", "assistant: Okay!"): chatter
    alone, no question, after the label ``assistant`` (an assistant answers nothing of the
    user's life by "Got it": helper-221, "Noted!" took two of three hits by its ``next`` link).

    Examples
    --------
    >>> content_free("user: Amazing, thank you!"), content_free("You're welcome!")
    (True, True)
    >>> content_free("No, never."), content_free("ok"), content_free("Thanks! I'm 36 now.")
    (False, False, False)
    >>> content_free("assistant: Noted!"), content_free("user: Got it."), content_free("assistant: No.")
    (True, False, False)
    """
    lefts = [chatter_left(s) for s in sentences(text)]
    return _content_free(lefts) or _acknowledges(text, lefts)


#: Words by which a reply answers a question yes or no ("Do I have a dentist appointment this
#: month?" - "assistant: No."): such a reply is no mere acknowledgement (:func:`_acknowledges`).
_YES_NO = frozenset("yes yeah yep yup ya no nope nah not never none neither".split())


def _acknowledges(text: str, lefts: list[tuple[list[str], list[str], bool, list[str]]]) -> bool:
    """Whether ``text``, whose sentences' :func:`chatter_left` are ``lefts``, is an assistant's
    acknowledgement: after the label ``assistant``, chatter alone in every sentence, none asking,
    no yes or no (:data:`_YES_NO`)."""
    label = LABEL.match(text)
    return (label is not None and label.group(1).strip().lower() == "assistant" and bool(lefts) and "?" not in text
            and not any(rest or not _YES_NO.isdisjoint(low) for low, rest, _number, _names in lefts))


def _content_free(lefts: list[tuple[list[str], list[str], bool, list[str]]]) -> bool:
    """:func:`content_free` of a text's sentences' :func:`chatter_left`."""
    if any(rest for _low, rest, _number, _names in lefts):
        return False
    words = [w for low, _rest, _number, _names in lefts for w in low]
    return (any(w in THANKS or LAUGH.match(w) for w in words)
            and not any(w in ANSWER_WORDS for w in words))


def speech_act(text: str) -> int:
    """What a message does, by rules (Searle's speech acts, coarsely): :data:`CONTENT_FREE` when
    it states and answers nothing (:func:`content_free`), :data:`QUESTION` when it only asks:
    every sentence a question (after an optional "Speaker: " label) or greetings, thanks and
    filler (:func:`filler_sentence`), one at least a question, and no first-person word ("How is
    the leg feeling?", "Wow, great photo! Is that your third one?"; not "Can you recommend a vet
    for my dog Rex?"), else :data:`STATEMENT`. A question states no fact: recall weighs it by
    ``RecallConfig.question_weight``."""
    lefts = []   # each sentence read once, for both tests
    asked = False
    for s in sentences(text):
        left = chatter_left(s)
        if s.rstrip().endswith("?"):
            asked = True
        elif not filler_left(left):   # it states something (so the text is not content-free either)
            return STATEMENT
        lefts.append(left)
    if _content_free(lefts) or (not asked and _acknowledges(text, lefts)):
        return CONTENT_FREE
    if not asked or any(w in _FIRST_PERSON for low, _rest, _number, _names in lefts for w in low):
        return STATEMENT
    return QUESTION


#: A tag that makes a statement of a sentence ending in "?" ("The meeting is at 3pm, right?").
_TAG = re.compile(r",\s*(?:right|correct|ok|okay|yes|no|yeah|eh|huh|true|innit|don't you think|"
                  r"[a-z]+n['’]t (?:it|they|he|she|you|we|there|that|i))\W*\?$", re.IGNORECASE)


#: A question for advice or leave, opening its sentence (after a speaker label and discourse words):
#: a question word or modal first, and the asker's "should I", "can we", "do I need", "how do I"
#: ("What protein should I eat after a long run?", "Can I take ibuprofen?"; not "I'm allergic to
#: penicillin, should I worry?", which states its first clause).
_ADVICE = re.compile(
    r"^\s*(?:[^:\n]{1,40}:\s+)?(?:(?:so|and|but|also|ok|okay|hey|hi|well|then|now|quick question)\W+)*"
    r"(?:(?:what|which|how|when|where|who|whom|why)\b[^?]*?\b)?"
    r"(?:(?:should|shall|can|could|may|must|ought\s+to)\s+(?:i|we)|(?:do|would)\s+(?:i|we)\s+need"
    r"|(?:do|does|did)\s+(?:i|we)\s+(?:have\s+to|need\s+to)|how\s+(?:do|can|should|would)\s+(?:i|we))\b",
    re.IGNORECASE)
#: What a question calls its asker's ("my bike", "our new flat"): said, whatever the question asks.
_MINE = re.compile(r"\b(?:my|our)\s+[\w'’-]+(?:\s+[\w'’-]+)?", re.IGNORECASE)


def asked_terms(text: str) -> frozenset[str]:
    """Index terms (stems, :func:`engramdb.index.tokens.tokenize`) that ``text`` says only inside
    the questions it asks: "That sounds exhausting. Want some tips for managing the workload?"
    holds ``manag``, ``tip`` and ``workload`` only in what it asks, which states nothing (a
    speech act; Searle 1969). Said, not asked: a question that speaks of its asker ("I'm allergic
    to penicillin, right?", "Can you recommend a vet for my dog Rex?"), as :func:`speech_act`
    reads it; a statement with a tag ("The meeting is at 3pm, right?", "Mom's birthday is June 2,
    isn't it?"); and a question the text goes on past ("Guess who got promoted today? Dana!",
    "Did you see the game? We won."): only the questions a text ends on ask. A question for
    advice or leave asks whatever person it speaks in (:data:`_ADVICE`: "What protein should I
    eat after a long run?" says nothing of what its asker ate, "Can I take ibuprofen?" nothing of
    taking it), all but what it calls the asker's ("How do I fix my bike?" says there is a bike).

    Parameters
    ----------
    text : str

    Returns
    -------
    frozenset of str
        Empty when ``text`` asks nothing.
    """
    if "?" not in text:
        return frozenset()
    from .index.tokens import tokenize

    asking, stating = [], []
    for s in sentences(text):
        end = s.rstrip()
        if end.endswith("?") and not _TAG.search(end) and _ADVICE.match(s) is not None:
            asking.append(s)
            stating += [m.group(0) for m in _MINE.finditer(s)]   # ("my bike": the asker has one)
        elif end.endswith("?") and not _TAG.search(end) and not any(w.lower() in _FIRST_PERSON for w in tokens(s)):
            asking.append(s)
        else:   # a statement, and any question before it (one the text goes on past) with it
            stating += asking
            stating.append(s)
            asking = []
    if not asking:
        return frozenset()
    asked = frozenset(tokenize(" ".join(asking)))
    return asked.difference(tokenize(" ".join(stating))) if stating else asked


@functools.lru_cache(maxsize=1024)
def question_terms(question: str) -> frozenset[str]:
    """The index terms of ``question`` (:func:`engramdb.index.tokens.tokenize`), as a set."""
    from .index.tokens import tokenize

    return frozenset(tokenize(question))

