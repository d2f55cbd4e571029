"""Memory dynamics: admission control, salience decay and reinforcement, forgetting, rescoring.

- :mod:`.admission`: A-MAC admission scoring of candidate batches (arXiv:2603.04549) and the
  rule-based fact-change checker that keeps a changed fact from being merged as a duplicate.
- :mod:`.salience`: lazy per-kind decay helpers, reinforcement, link boosts, decision holds.
- :mod:`.forgetting`: the dynamics log, the bounded working tier (promotion before eviction),
  archiving and policy pruning.
- :mod:`.rescore`: the batch rescoring job (native ``rescore_salience`` kernel, floors, summary).

The engine's public verbs (``Engram.admit_batch``, ``review``, ``rescore``, ``dynamics_log``,
``export``, ``import_from``) delegate here; these modules use the engine's internals and are
not a public API of their own except where listed in ``__all__``.
"""
from .admission import AdmissionDecision, fact_change, heuristic_utility

__all__ = ["AdmissionDecision", "fact_change", "heuristic_utility"]
