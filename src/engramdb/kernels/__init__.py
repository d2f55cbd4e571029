"""Compute kernels: spreading activation (single and batched) and the lateral inflow within an
activated set, salience rescoring (decay by memory kind), admission scoring and top-k, in
three backends.

``reference`` (NumPy, the spec), ``_numba`` (Numba JIT) and ``_ckernels`` (C via Cython) agree
on names, signatures and results; :mod:`engramdb.kernels.registry` picks one (C, then Numba,
then the reference; ``ENGRAMDB_KERNELS`` forces one). Importing this package is light: no
backend is imported until a kernel is requested, e.g. ``engramdb.kernels.spread_activation``
or ``registry.get("spread_activation")``.
"""
from __future__ import annotations

from engramdb.kernels.reference import (
    COMBINE_MAX,
    COMBINE_SUM,
    CONTRADICTS,
    N_RELATIONS,
    RELATION_NAMES,
)
from engramdb.kernels.registry import (
    KERNEL_NAMES,
    KernelFallbackWarning,
    active_backend,
    backend,
    get,
)

__all__ = [
    "COMBINE_MAX",
    "COMBINE_SUM",
    "CONTRADICTS",
    "KERNEL_NAMES",
    "KernelFallbackWarning",
    "N_RELATIONS",
    "RELATION_NAMES",
    "active_backend",
    "admission_score",
    "backend",
    "get",
    "rescore_salience",
    "spread_activation",
    "spread_activation_batch",
    "spread_inflow",
    "topk",
]


def __getattr__(name: str):
    """Resolve ``engramdb.kernels.<kernel>`` to the active backend's kernel, lazily."""
    if name in KERNEL_NAMES:
        return get(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
