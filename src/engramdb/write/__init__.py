"""Every mutation of a store goes through one :class:`~engramdb.write.unit.WriteUnit`.

- :mod:`.unit`: the unit itself (conflict check, one LMDB transaction, one generation bump,
  caches after the commit, hnswlib undone on abort), the one erase path and the erasure of a
  whole namespace (:meth:`~.unit.WriteUnit.erase_namespace`);
- :mod:`.records`: validation of new memories and the one path that writes them;
- :mod:`.reinforce`: salience updates (reinforcement, link boosts, the decision hold).
"""
from .unit import DROP_NAMESPACE, LOG_PREFIX, WriteUnit, write_unit

__all__ = ["DROP_NAMESPACE", "LOG_PREFIX", "WriteUnit", "write_unit"]
