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

__all__ = ["split_sentences", "prose_sentences", "is_code_line", "sentence_starts"]

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


def _segment(line: str) -> list[str]:
    return [s.strip() for s in segment("en", line) if s.strip()]


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


def several_sentences(text: str) -> tuple[str, ...] | None:
    """The sentences of ``text`` (:func:`split_sentences`, the first :data:`MAX_SENTENCES`), or
    None when it holds one."""
    if _SENTENCE_END.search(text) is None:
        return None
    parts = split_sentences(text)
    return tuple(parts[:MAX_SENTENCES]) if len(parts) > 1 else None


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
