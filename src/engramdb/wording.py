"""Counts in user-facing messages: "1 memory", "2 memories", "1 session", "0 sessions".

Every CLI line and error message that states a count of things goes through :func:`count`, so
none says "1 sessions" or hides the number behind "session(s)".
"""
from __future__ import annotations

__all__ = ["count", "plural"]

#: Plurals that the two regular rules below do not give.
_IRREGULAR = {"memory": "memories", "entry": "entries", "entity": "entities", "summary": "summaries",
              "is": "are", "was": "were", "has": "have"}


def plural(noun: str) -> str:
    """The English plural of ``noun``: irregular ones from a table, a consonant + "y" -> "ies"
    ("query" -> "queries"), "s", "x", "ch", "sh" -> + "es", else + "s".

    Parameters
    ----------
    noun : str
        A singular noun, lower case (the last word is inflected: "new memory" -> "new memories").

    Returns
    -------
    str
    """
    head, _, last = noun.rpartition(" ")
    if last in _IRREGULAR:
        word = _IRREGULAR[last]
    elif len(last) > 1 and last.endswith("y") and last[-2] not in "aeiou":
        word = last[:-1] + "ies"
    elif last.endswith(("s", "x", "ch", "sh")):
        word = last + "es"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def count(n: int, noun: str, plural_form: str | None = None) -> str:
    """``n`` and ``noun``, in the plural unless n is 1: ``count(1, "memory")`` is "1 memory",
    ``count(3, "memory")`` "3 memories", ``count(0, "edge")`` "0 edges".

    Parameters
    ----------
    n : int
        The count, >= 0.
    noun : str
        The singular; the plural comes from :func:`plural` unless ``plural_form`` is given.
    plural_form : str, optional
        The plural, for a noun the rules get wrong ("more piece" -> "more pieces" is right;
        "person" needs "people").

    Returns
    -------
    str
        ``f"{n} {noun or its plural}"``.
    """
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {plural_form if plural_form is not None else plural(noun)}"
