"""Sentences of a memory's text: for extractive session summaries, promoted facts and the
query-biased excerpts of context blocks.

Boundaries inside a line come from sentencex (Wikimedia's rule-based segmenter): an
abbreviation ("Dr. Silva", "e.g."), a decimal ("version 2.5") or an initial does not end a
sentence, as a cut after every period did ("... on October 14 at 10:15 with Dr." became a
promoted fact). A line break always ends one: chat text puts list items, headings and code on
lines of their own.

Code is not prose. :func:`prose_sentences` leaves out fenced blocks (```` ``` ````) and lines that
read as code, so a summary of a session that helped with a program is made of what was said,
not of ``async for attempt in AsyncRetrying(``. :func:`split_sentences` keeps every line: an
excerpt for a question about code should show the code. With ``lists=False`` it also leaves out
the lines of a reply's layout: list items, headings and quotes (an assistant's options, plan
steps and packing lists are no statement of what holds).
"""
from __future__ import annotations

import re

from sentencex import segment

from .speakers import LABEL

__all__ = ["quotes", "split_sentences", "prose_sentences", "is_code_line", "sentence_starts", "several_sentences",
           "several_claims", "key_sentences", "KEY_MIN_WORDS", "CLAUSE_CUT", "IMPERATIVE_VERBS"]

_FENCE = re.compile(r"^\s*(```|~~~)")
#: A line of a reply's layout: a list item ("- ", "* ", "1. ", "2) "), a quote or table row, a
#: Markdown heading, or a line that introduces what follows ("Carry-on packing list:").
_LAYOUT = re.compile(r"^\s*(?:[-*+•>|#]|\d{1,3}[.)]\s)|:\s*$")
# a line that starts like a statement of a common programming language, or is only brackets
_CODE_START = re.compile(
    r"^\s*(def |class |import |from \S+ import |return\b|async |await |raise |try:|except\b|finally:|with \S"
    r"|elif |else:|for \S.* in .*:$|while .*:$|if .*:$|@\w|#include|function |const |let |var |public |private "
    r"|\$ |>>> |\.\.\. |SELECT |INSERT |UPDATE |CREATE )")
_CODE_END = re.compile(r"[;{}()\[\]:,=]\s*$")
_LETTERS = re.compile(r"[^\W\d_]")
_CLOSERS = frozenset("。！？｡")


def is_code_line(line: str) -> bool:
    """Whether ``line`` (one line, outside a fenced block) reads as code rather than prose: it
    starts like a statement of a common language, is indented by four spaces or a tab, or holds
    few letters for its length and ends in a bracket, ``;``, ``:``, ``,`` or ``=``."""
    if not line.strip():
        return False
    if line.startswith(("    ", "\t")) or _CODE_START.match(line):
        return True
    body = line.strip()
    letters = len(_LETTERS.findall(body))
    return bool(_CODE_END.search(body)) and letters < 0.6 * len(body)


#: Titles sentencex ends a sentence after ("My teacher is Ms. Brown." was two): a segment ending
#: in one runs on into the next when that opens with a name, not a sentence's usual first word
#: ("I spoke to Ms. Then she left.").
_RUNS_ON = re.compile(r"(?:^|\s)(?:Ms|Mx)\.$")
_OPENS_SENTENCE = frozenset("i i'm i've i'd i'll we you he she it they my our your his her its their the a an "
                            "this that these those then there here so but and or if when please thanks".split())


def _segment(line: str) -> list[str]:
    out: list[str] = []
    for s in segment("en", line):
        s = s.strip()
        if not s:
            continue
        if out and _RUNS_ON.search(out[-1]) and s.split(None, 1)[0].lower().strip(",.;:!?") not in _OPENS_SENTENCE:
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def sentence_starts(line: str) -> list[int]:
    """Offsets in ``line`` (one line) where its second, third, ... sentence starts (sentencex),
    for cutting a text at sentence boundaries (:mod:`engramdb.pieces`); [] for one sentence.
    A cut there never falls inside a word: a sentence counts when whitespace or a full-width
    stop (CJK text has no spaces) comes before it.
    """
    out: list[int] = []
    cursor = 0
    for k, sent in enumerate(_segment(line)):
        at = line.find(sent, cursor)
        if at < 0:   # the segmenter changed the text: no cut here
            continue
        if k and at > 0 and (line[at - 1].isspace() or line[at - 1] in _CLOSERS):
            out.append(at)
        cursor = at + len(sent)
    return out


def quotes(text: str, source: str) -> bool:
    """Whether ``text`` holds a sentence of ``source`` (its body after a "Speaker: " label,
    :data:`engramdb.speakers.LABEL`, of three words or more) word for word, as an extractive
    summary holds its turns' sentences (a session summary of ``consolidate`` quoting a turn)."""
    label = LABEL.match(source)
    body = source[label.end():] if label else source
    return any(len(x.split()) >= 3 and x in text for x in split_sentences(body))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (sentencex within each line; a line break ends a sentence).

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        Non-blank, stripped, in order; every non-blank line of ``text`` contributes.
    """
    out: list[str] = []
    for line in text.splitlines():
        if line.strip():
            out.extend(_segment(line))
    return out


#: A sentence end with more text after it: a text without one is one sentence (no segmenter run).
_SENTENCE_END = re.compile(r"[.!?…][\"”’')\]]*\s+\S")
#: Sentences of one text that :func:`several_sentences` keeps (a pair of texts compared sentence by
#: sentence costs at most its square).
MAX_SENTENCES = 8


#: Verbs that open advice or a request in the imperative ("Try the blue one", "Drink plenty of
#: water", "Call the bank"): a sentence whose first word (after discourse words) is one of them
#: has no subject, so it states nothing
IMPERATIVE_VERBS = frozenset(
    "add apply ask avoid book bring buy call cancel change check choose clean consider contact continue cook "
    "cut dress drink drive eat email enjoy explain find follow forget get give go grab have help imagine "
    "include join keep leave limit list look make meet message move order pack pay pick plan practice "
    "practise prepare put read reduce relax remember remind rest run save schedule see send set share show "
    "sign skip sleep start stay stop stretch swap switch take talk tell text think translate try turn "
    "update use visit wait walk watch wear write".split())
#: Where one sentence holds two claims, each with a subject of its own: "; ", ", and I ...",
#: " and we ...", " but my ..." (not a bare comma: "When I was a kid, we moved to Ohio", "If I
#: get the offer, I work at Google").
CLAUSE_CUT = re.compile(r";\s+|,?\s+(?:and|but|while|so)\s+(?=(?:I|we|(?-i:he|she|they|it|my|our))\b)",
                        re.IGNORECASE)
#: :data:`CLAUSE_CUT`, and a comma before a request or advice in the imperative ("My email is
#: dana@x.io, use that for reminders", ", please text me there": :data:`IMPERATIVE_VERBS`).
_CLAIM_CUT = re.compile(CLAUSE_CUT.pattern + r"|,\s+(?=(?:please\s+|pls\s+|just\s+)?(?:"
                        + "|".join(sorted(IMPERATIVE_VERBS)) + r")\b)", re.IGNORECASE)


def several_claims(text: str) -> tuple[str, ...] | None:
    """The claims of ``text``: its sentences (:func:`split_sentences`), each cut at
    :data:`CLAUSE_CUT` ("My email is dana@oldmail.com and I prefer email over calls." holds two)
    and before a request in the imperative ("..., please use it from now on"),
    the first :data:`MAX_SENTENCES`; None when it holds one."""
    ends = _SENTENCE_END.search(text) is not None
    if not ends and _CLAIM_CUT.search(text) is None:
        return None
    parts = [x.strip() for s in (split_sentences(text) if ends else [text]) for x in _CLAIM_CUT.split(s)]
    parts = [x for x in parts if x]
    return tuple(parts[:MAX_SENTENCES]) if len(parts) > 1 else None


def several_sentences(text: str) -> tuple[str, ...] | None:
    """The sentences of ``text`` (:func:`split_sentences`, the first :data:`MAX_SENTENCES`), or
    None when it holds one."""
    if _SENTENCE_END.search(text) is None:
        return None
    parts = split_sentences(text)
    return tuple(parts[:MAX_SENTENCES]) if len(parts) > 1 else None


#: Words a sentence needs to be a key of its own (:func:`key_sentences`): "Hey Mel!" or
#: "Thanks!" says too little to be searched for.
KEY_MIN_WORDS = 3


def key_sentences(text: str, most: int) -> list[str]:
    """The sentences of ``text`` that recall searches one by one besides the whole text (sentence
    keys: a fact said in passing inside a request, "I finally bought a Fujifilm X-T5 yesterday!
    What settings should I use for portraits?", is far from "Which camera do I have?" as a whole
    and near it as a sentence).

    Its sentences (:func:`split_sentences`) of at least :data:`KEY_MIN_WORDS` words; past ``most``
    of them, runs of consecutive sentences joined by a space into ``most`` keys of near-equal
    sentence counts.

    Parameters
    ----------
    text : str
    most : int
        Most keys (below 2: none, one key would be the whole text again).

    Returns
    -------
    list of str
        [] when fewer than two sentences qualify: the whole text is then its only key.
    """
    if most < 2 or (_SENTENCE_END.search(text) is None and "\n" not in text):
        return []
    parts = [x for x in split_sentences(text) if len(x.split()) >= KEY_MIN_WORDS]
    if len(parts) < 2:
        return []
    if len(parts) > most:
        n = len(parts)
        bounds = [n * g // most for g in range(most + 1)]
        parts = [" ".join(parts[a:b]) for a, b in zip(bounds, bounds[1:])]
    return parts


def prose_sentences(text: str, *, lists: bool = True) -> list[str]:
    """:func:`split_sentences` of the prose of ``text``: without fenced code blocks and without
    lines that read as code (:func:`is_code_line`); with ``lists=False`` without the lines of a
    reply's layout too (list items, quotes, table rows, headings, a line ending with a colon).

    Returns
    -------
    list of str
        Non-blank, stripped, in order.
    """
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.strip() or is_code_line(line) or (not lists and _LAYOUT.search(line)):
            continue
        out.extend(_segment(line))
    return out
