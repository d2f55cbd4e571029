"""What the engine keeps in memory between calls, rebuilt from LMDB when missing or stale.

- :class:`~engramdb.state.columns.Columns`: per-memory state as column arrays (what ranking and
  filters read);
- :class:`~engramdb.state.namespace.Namespace`: one per namespace, owning its vector index,
  keyword postings, density and newest event time, with its dirty flags (Chroma's
  per-collection segments);
- :class:`~engramdb.state.engine_state.EngineState`: the store handle, the columns, the graph,
  the namespaces and the generation counters; loads, flushes and writes snapshots.

Dynamics, export, query and recall work on an :class:`EngineState` (a narrow protocol), never
on the public :class:`engramdb.Engram` facade. Only a committed write unit
(:mod:`engramdb.write`) changes it.
"""
from .columns import Columns
from .engine_state import EngineState
from .namespace import Namespace

__all__ = ["Columns", "EngineState", "Namespace"]
