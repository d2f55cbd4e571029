"""Building blocks of the text rules' regular expressions, for speed without a change of meaning.

The write path reads every new memory with a few dozen rules (:mod:`engramdb.facts`,
:mod:`engramdb.changes`, :mod:`engramdb.standing` ...), most of them regular expressions run by
Python's backtracking engine, which tries each branch of an alternation in turn at every
position. Two things here make them cheaper and leave every match as it was:

- :func:`alternation`: a list of literal words as a trie ("e(?:mail|mployer)" for "email" and
  "employer"), so that a position is given up after one letter instead of after a try of every
  word; the longer of two words that start alike is still tried first, as in an alternation
  sorted longest first.
- :class:`Needles`: a gate before a rule that cannot match unless the text holds one of a few
  substrings (a month name before a date pattern, a digit before an amount pattern): false only
  for an ASCII text whose lower-cased form holds none of them, so the gate never turns away a
  text that a case-insensitive pattern (whose Unicode case folding is wider than
  :meth:`str.lower`) would match.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["DIGIT", "alternation", "Needles"]

#: A decimal digit (any script's, as ``\d``): the test before a rule whose matches hold a number.
DIGIT = re.compile(r"\d")


def alternation(words: Iterable[str]) -> str:
    """A regular expression that matches exactly the literal ``words``, as a trie.

    At each position it prefers the longest word, as ``"|".join(sorted(words, key=len,
    reverse=True))`` does: of two words where one is a prefix of the other, the longer is tried
    first; two other words cannot both match at one position. So a pattern built with it finds
    the same matches as one built with the sorted alternation.

    Parameters
    ----------
    words : iterable of str
        Non-empty literal words (escaped here); matched as written (compile the pattern with
        ``re.IGNORECASE`` to match them in any case).

    Returns
    -------
    str
        A non-capturing group, e.g. ``(?:e(?:mail|mployer)|job)``.

    Raises
    ------
    ValueError
        No words, or an empty word.

    Examples
    --------
    >>> alternation(["plan", "planning", "plate"])
    '(?:pla(?:n(?:ning)?|te))'
    """
    trie: dict = {}
    for word in words:
        if not word:
            raise ValueError("alternation of an empty word")
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    if not trie:
        raise ValueError("alternation of no words")

    def branch(node: dict) -> str:
        kids = sorted(k for k in node if k)
        if not kids:
            return ""
        alts = [re.escape(k) + branch(node[k]) for k in kids]
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" not in node:
            return body
        # a word ends here and longer ones go on: the longer first (a greedy optional group)
        return f"(?:{body})?"

    return "(?:" + branch(trie) + ")"


class Needles:
    """A gate before a rule that cannot match unless the text holds one of a few substrings (a
    month's name before a date pattern, a place noun before "Room 7"), in any case.

    :meth:`may_hold` is false only for an ASCII text whose lower-cased form holds none of them,
    so the gate never turns away a text that a case-insensitive pattern would match (its Unicode
    case folding is wider than :meth:`str.lower`: "K", the Kelvin sign, matches "k").

    Parameters
    ----------
    words : iterable of str
        Lower-case substrings, at least one of which every match of the gated rule holds.

    Raises
    ------
    ValueError
        No words, an empty word, or one with an upper-case letter.
    """

    __slots__ = ("words", "_pattern")

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(words)
        if any(w != w.lower() for w in self.words):
            raise ValueError(f"needles are lower case, got {self.words!r}")
        self._pattern = re.compile(alternation(self.words))

    def may_hold(self, text: str, low: str | None = None) -> bool:
        """Whether ``text`` (str) may hold one of the words; ``low`` is ``text.lower()`` when the
        caller has it."""
        if not text.isascii():
            return True
        return self._pattern.search(text.lower() if low is None else low) is not None
