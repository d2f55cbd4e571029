"""Multi-view recall: relation families ("views") and an intent router without model weights.

The memory graph is read through four views, each a family of edge relations:

- ``semantic``: what says the same or builds on it (auto-links ``related_to``, ``supports``,
  ``supersedes``, and consolidation's ``extracted_from`` / ``evidence_for`` to summaries,
  facts and pieces);
- ``temporal``: order and co-occurrence in time (``next``, ``discussed_in`` sessions,
  ``same_session``);
- ``causal``: why (``caused_by``, ``informed_by``: decisions and their reasons and outcomes);
- ``entity``: who and what is named (``mentions``, ``same_speaker``).

The router reads the question's form with regular expressions (no model) and scales the
relation multipliers of spreading activation per view: "when / how long / before / after" ->
temporal; "why / what caused" -> causal; "who / which person" -> entity; enumerations ("how
many times", "which ... all", "what are ...s") widen the fan-out (more seeds, a weaker fan
effect) so more hits of one session or topic come through. Routing is on with
``RecallConfig.route``; ``route_boost`` is the multiplier of a routed view.

References
----------
Collins & Loftus (1975) spreading activation over typed links; Anderson (1974) fan effect;
MAGMA (arXiv:2601.03236) and Zep (arXiv:2501.13956): memory graphs read through semantic,
temporal, causal and entity views; Li & Roth (2002), "Learning question classifiers", COLING
(the question-word taxonomy the rules follow, without the learned part).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from types import MappingProxyType

from ..config import RecallConfig
from ..types import Relation

__all__ = ["VIEWS", "Intent", "classify", "keyword_query", "routed_config", "without_view"]

#: View name -> the relations it covers.
VIEWS = MappingProxyType({
    "semantic": (Relation.RELATED_TO, Relation.SUPPORTS, Relation.SUPERSEDES, Relation.EXTRACTED_FROM,
                 Relation.EVIDENCE_FOR),
    "temporal": (Relation.NEXT, Relation.DISCUSSED_IN, Relation.SAME_SESSION),
    "causal": (Relation.CAUSED_BY, Relation.INFORMED_BY),
    "entity": (Relation.MENTIONS, Relation.SAME_SPEAKER),
})

_TEMPORAL = re.compile(
    r"\b(when|how long|before|after|since|until|what (?:year|month|day|date|time)|which (?:year|month|day)|"
    r"how (?:old|recently)|first time|last time|ago)\b", re.IGNORECASE)
_CAUSAL = re.compile(r"\b(why|what caused|cause[sd]?|reasons?|because|led to|lead to|motivat\w*|inspir\w*|"
                     r"how come|result(?:ed)? (?:of|in))\b", re.IGNORECASE)
_ENTITY = re.compile(r"\b(who|whom|whose|which (?:person|people|friend|friends)|what (?:person|people|name))\b",
                     re.IGNORECASE)
_ENUM = re.compile(r"\b(how many|how often|number of|all (?:the )?\w+|list|what (?:are|were) (?:some|the)?|"
                   r"what (?:kinds?|types?|sorts?) of|which \w+ (?:has|have|did) \w+ (?:all|ever))\b|"
                   r"\bwhat \w+s (?:has|have|did|does|do)\b", re.IGNORECASE)


#: "time" in "what time", "at what time" before a verb ("what time is standup?", "what time does the
#: gym open?"): the sort of answer the question asks for, not its topic ("what time management
#: techniques ..." keeps it).
_FORM_NOUN = re.compile(r"\b(what|which)\s+time(?=\s+(?:is|are|was|were|do|does|did|will|would|should|can|could|"
                        r"has|have|had|am|shall|must)\b|'s\b)", re.IGNORECASE)


def keyword_query(query: str) -> str:
    """``query`` with the noun of its form cut out (:data:`_FORM_NOUN`: "what time is standup?"
    -> "what is standup?"), for the keyword leg and the ranking's question words. In a small
    store the word is as rare as the topic, and by BM25 on "time" alone "Long time no talk!"
    outranked "Standup moved to 10:15." for "what time is standup?". Only "time": the nouns of
    other forms are what answers in a conversation say ("for a long time", "three years ago",
    "last year"): cutting "long" of "how long" and "year" of "which year" took the evidence of 6
    of LoCoMo's 55 such questions out of the first 10. The vector leg and the hits' relevance
    read the whole question.

    Parameters
    ----------
    query : str

    Returns
    -------
    str
    """
    return _FORM_NOUN.sub(lambda m: m.group(1), query)


@dataclass(frozen=True, slots=True)
class Intent:
    """The question's form: which views to boost and whether it enumerates.

    Attributes
    ----------
    views : tuple of str
        Routed views (keys of :data:`VIEWS`), possibly empty.
    enumeration : bool
        The question asks for several items ("how many times", "what are ...").
    """

    views: tuple[str, ...]
    enumeration: bool


def classify(query: str) -> Intent:
    """The :class:`Intent` of a question, by its question words (no model).

    Parameters
    ----------
    query : str

    Returns
    -------
    Intent
    """
    views = []
    if _TEMPORAL.search(query):
        views.append("temporal")
    if _CAUSAL.search(query):
        views.append("causal")
    if _ENTITY.search(query):
        views.append("entity")
    return Intent(tuple(views), bool(_ENUM.search(query)))


def without_view(cfg: RecallConfig, view: str) -> RecallConfig:
    """``cfg`` with the relations of ``view`` carrying no activation (for ablation).

    Raises
    ------
    KeyError
        Unknown view.
    """
    mult = dict(cfg.relation_multipliers)
    for rel in VIEWS[view]:
        mult[rel] = 0.0
    return replace(cfg, relation_multipliers=mult)


_CACHE: dict[tuple, tuple[RecallConfig, RecallConfig]] = {}


def routed_config(cfg: RecallConfig, query: str | None) -> RecallConfig:
    """The configuration the router picks for ``query``: ``cfg`` itself when routing is off, the
    query has no text, or its form routes nothing; else the routed views' relation multipliers
    times ``cfg.route_boost`` and, for an enumeration, ``seed_k`` and ``keyword_k`` times
    ``cfg.route_fanout`` with the fan exponent divided by it.

    Parameters
    ----------
    cfg : RecallConfig
    query : str or None

    Returns
    -------
    RecallConfig
        Cached per (configuration, intent): routing costs a few regular-expression searches.
    """
    if not cfg.route or not query:
        return cfg
    intent = classify(query)
    if not intent.views and not intent.enumeration:
        return cfg
    key = (id(cfg), intent)   # RecallConfig holds a mapping: not hashable
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is cfg:
        return hit[1]
    mult = dict(cfg.relation_multipliers)
    for view in intent.views:
        for rel in VIEWS[view]:
            if rel in mult:
                mult[rel] = min(10.0, mult[rel] * cfg.route_boost)
    changes: dict = {"relation_multipliers": mult, "route": False}
    if intent.enumeration:
        changes.update(seed_k=min(10_000, int(round(cfg.seed_k * cfg.route_fanout))),
                       keyword_k=min(10_000, int(round(cfg.keyword_k * cfg.route_fanout))),
                       fan_exp=cfg.fan_exp / cfg.route_fanout)
    out = replace(cfg, **changes)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = (cfg, out)
    return out
