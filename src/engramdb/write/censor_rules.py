"""Adding and removing persistent censor rules (:mod:`engramdb.censor`), each one write unit.

A rule is a meta entry ``censor/<id>``, written through :meth:`WriteUnit.put_setting` (so the
audit ledger records the change, verb ``censor_add`` / ``censor_remove``, its digest covering the
rule); the ``censor_gen`` counter moves with every change, so a reader process reloads its rules
(``EngineState.changed_elsewhere``). After the commit the engine installs the change and
evaluates the rules on every record again (:meth:`EngineState.recensor`), so a rule applies
at once to the memories already stored.
"""
from __future__ import annotations

from ..censor import GEN_KEY, RULE_PREFIX, CensorRule
from ..errors import InvalidInputError
from ..state import EngineState
from .unit import write_unit

__all__ = ["add_rule", "remove_rule", "VERB_ADD", "VERB_REMOVE"]

#: the verbs of these writes (for the audit ledger's entries)
VERB_ADD, VERB_REMOVE = "censor_add", "censor_remove"


def add_rule(state: EngineState, rule: CensorRule, now: float) -> None:
    """Store the persistent ``rule`` (one write unit, verb ``censor_add``) and apply it.

    Raises
    ------
    InvalidInputError
        The store already holds a rule with this id; nothing is written.
    StoreLockedError, StoreFullError, StoreError
    """
    with write_unit(state, "adding a censor rule", now, verb=VERB_ADD) as unit:
        key = RULE_PREFIX + rule.id
        if unit.store.get_meta(unit.txn, key) is not None:
            raise InvalidInputError(f"a censor rule {rule.id!r} exists already; remove it first or pick another id")
        gen = int(unit.store.get_meta(unit.txn, GEN_KEY, 0)) + 1
        unit.put_setting(key, rule.to_record())
        unit.store.put_meta(unit.txn, GEN_KEY, gen)

        def apply() -> None:
            state.censor.install(rule)
            state.censor.gen = gen
        unit.after(apply)
    state.recensor(added=rule)


def remove_rule(state: EngineState, rule_id: str, now: float) -> None:
    """Delete the persistent rule ``rule_id`` (one write unit, verb ``censor_remove``); the
    memories it hid become visible again.

    Raises
    ------
    InvalidInputError
        No such rule in the store; nothing is written.
    StoreLockedError, StoreFullError, StoreError
    """
    with write_unit(state, "removing a censor rule", now, verb=VERB_REMOVE) as unit:
        key = RULE_PREFIX + rule_id
        if unit.store.get_meta(unit.txn, key) is None:
            raise InvalidInputError(f"no censor rule {rule_id!r} in the store (see censors())")
        gen = int(unit.store.get_meta(unit.txn, GEN_KEY, 0)) + 1
        unit.delete_setting(key)
        unit.store.put_meta(unit.txn, GEN_KEY, gen)

        def apply() -> None:
            state.censor.uninstall(rule_id)
            state.censor.gen = gen
        unit.after(apply)
    state.recensor()
