"""Temporal contiguity: the weight of a ``next`` link given without one.

Consecutive memories cue each other (the contiguity effect of free recall, Kahana 1996), but how
much depends on how much lies between them. In the temporal context model (Howard & Kahana
2002) the context drifts with every item studied, so two items share less of it the more items
came between. A chat message is many items: the context shared by two consecutive messages falls
with their length. Short turns ("Sure, what time?" then "Six.") are one exchange; two long
replies are two topics. So a ``next`` link given without a weight gets

    weight = exp(-d / contiguity_words),   d = (words_a + words_b) / 2,

d being the words between the two memories' centres (``LinkConfig.contiguity_words``, 250 by
default; 0 keeps the weight 1). Chosen on the tuning half of the long-chat benchmark
(``benchmarks/bench_long_chats.py --merge 1 4 8 16``): with 4-turn messages (about 90 words)
the graph still helps recall; with 16-turn messages (about 280 words), full-weight ``next``
links pushed the neighbours of the best match above other direct matches (R@5 79.8 against
BM25's 84.4; 85.6 with contiguity weights). Links given with a weight, and the turn order
:meth:`engramdb.Engram.add_conversation` builds, keep theirs.
"""
from __future__ import annotations

import math

from .types import Relation

__all__ = ["words", "contiguity_weight", "default_weight", "MIN_WEIGHT"]

#: Floor of a contiguity weight (an edge weight must be > 0).
MIN_WEIGHT = 1e-3


def words(text: str) -> int:
    """Whitespace-separated words of ``text`` (int >= 0)."""
    return len(text.split())


def contiguity_weight(words_a: int, words_b: int, scale: float) -> float:
    """exp(-(words_a + words_b) / 2 / scale), at least :data:`MIN_WEIGHT`; 1.0 when ``scale``
    is 0 (off).

    Parameters
    ----------
    words_a, words_b : int
        Lengths of the two memories, words.
    scale : float
        ``LinkConfig.contiguity_words``, words; >= 0.
    """
    if scale <= 0:
        return 1.0
    return max(math.exp(-(words_a + words_b) / 2.0 / scale), MIN_WEIGHT)


def default_weight(relation: Relation, text_a: str, text_b: str, scale: float) -> float:
    """The weight of a link given without one, from a memory of text ``text_a`` to one of
    ``text_b``: :func:`contiguity_weight` for ``next``, 1.0 for any other relation."""
    if relation is Relation.NEXT:
        return contiguity_weight(words(text_a), words(text_b), scale)
    return 1.0
