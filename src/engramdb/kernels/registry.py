"""Kernel registry: maps kernel names to the active backend.

Backends, fastest first: ``"c"`` (csrc/ + Cython, built by setup.py), ``"numba"``
(``_numba.py``, JIT-compiled on first use) and ``"reference"`` (NumPy/Python, the spec).

Selection, made once per process on first use:

- ``ENGRAMDB_KERNELS`` unset, empty or ``auto``: try C, then Numba, then the reference. A
  fallback is reported once with :class:`KernelFallbackWarning`, and :func:`active_backend`
  tells which backend runs.
- ``ENGRAMDB_KERNELS=c|numba|reference``: that backend or
  :class:`~engramdb.errors.BackendUnavailableError`; never a silent fallback.

Importing this module is cheap: numba is imported only when the Numba backend is selected.
"""
from __future__ import annotations

import importlib
import os
import threading
import warnings
from types import ModuleType
from typing import Callable

from engramdb.errors import BackendUnavailableError

__all__ = [
    "BACKENDS",
    "KERNEL_NAMES",
    "ENV_VAR",
    "KernelFallbackWarning",
    "active_backend",
    "backend",
    "get",
    "get_native",
    "NATIVE_ONLY",
]

ENV_VAR = "ENGRAMDB_KERNELS"
BACKENDS = ("c", "numba", "reference")  # auto order
KERNEL_NAMES = (
    "spread_activation",
    "spread_activation_batch",
    "spread_topk",
    "spread_inflow",
    "rescore_salience",
    "admission_score",
    "topk",
    "fuse_seeds",
    "sentence_lift",
)

_MODULES = {
    "c": "engramdb.kernels._ckernels",
    "numba": "engramdb.kernels._numba",
    "reference": "engramdb.kernels.reference",
}
_HINTS = {
    "c": "build it with `pip install -e .` (needs a C compiler and Cython) and unset ENGRAMDB_NO_C",
    "numba": "install numba (`pip install numba`)",
    "reference": "check that numpy imports",
}


class KernelFallbackWarning(RuntimeWarning):
    """Auto selection could not load a faster backend and fell back to a slower one."""


_lock = threading.RLock()
_loaded: dict[str, ModuleType] = {}
_active: str | None = None


def backend(name: str) -> ModuleType:
    """The kernel module of one backend, imported on first request.

    Parameters
    ----------
    name : str
        ``"c"``, ``"numba"`` or ``"reference"``.

    Returns
    -------
    module
        A module defining every name in :data:`KERNEL_NAMES`.

    Raises
    ------
    BackendUnavailableError
        ``name`` is unknown, or the backend cannot be imported (not built, numba missing).
    """
    if name not in _MODULES:
        raise BackendUnavailableError(
            f"unknown kernel backend {name!r}; expected one of {', '.join(BACKENDS)}"
        )
    with _lock:
        module = _loaded.get(name)
        if module is None:
            try:
                module = importlib.import_module(_MODULES[name])
            except ImportError as exc:
                raise BackendUnavailableError(
                    f"kernel backend {name!r} cannot be loaded ({exc}); {_HINTS[name]}"
                ) from exc
            _loaded[name] = module
        return module


def _select() -> str:
    """Choose the backend from ``ENGRAMDB_KERNELS`` (see the module docstring)."""
    forced = os.environ.get(ENV_VAR, "").strip().lower()
    if forced and forced != "auto":
        if forced not in _MODULES:
            raise BackendUnavailableError(
                f"{ENV_VAR}={forced!r} is not a kernel backend; "
                f"expected auto, {', '.join(BACKENDS)} or unset"
            )
        backend(forced)  # raises if it cannot load: no fallback when forced
        return forced
    failures = []
    for name in BACKENDS:
        try:
            backend(name)
        except BackendUnavailableError as exc:
            failures.append(str(exc))
            continue
        if failures:
            warnings.warn(
                f"engramdb kernels: using the {name!r} backend because "
                + "; ".join(failures)
                + f". Set {ENV_VAR}={name} to silence this warning.",
                KernelFallbackWarning,
                stacklevel=4,
            )
        return name
    raise BackendUnavailableError("no kernel backend can be loaded: " + "; ".join(failures))


def active_backend() -> str:
    """Name of the backend that :func:`get` serves: ``"c"``, ``"numba"`` or ``"reference"``.

    The first call selects (and imports) the backend; later calls return the same name.

    Returns
    -------
    str

    Raises
    ------
    BackendUnavailableError
        ``ENGRAMDB_KERNELS`` names an unknown backend or one that cannot be loaded.
    """
    global _active
    with _lock:
        if _active is None:
            _active = _select()
        return _active


def get(name: str) -> Callable:
    """The kernel ``name`` of the active backend.

    Parameters
    ----------
    name : str
        One of :data:`KERNEL_NAMES`.

    Returns
    -------
    callable
        The kernel; same signature and results in every backend.

    Raises
    ------
    KeyError
        ``name`` is not a kernel.
    BackendUnavailableError
        As for :func:`active_backend`.
    """
    if name not in KERNEL_NAMES:
        raise KeyError(f"unknown kernel {name!r}; expected one of {', '.join(KERNEL_NAMES)}")
    return getattr(backend(active_backend()), name)


def _reset() -> None:
    """Forget the selection so the next call reads ``ENGRAMDB_KERNELS`` again (tests only)."""
    global _active
    with _lock:
        _active = None


#: Kernels with a C and a reference version only (no Numba version): :func:`get_native`.
NATIVE_ONLY = ("bm25_search", "hashing_embed")


def get_native(name: str) -> Callable:
    """A kernel of :data:`NATIVE_ONLY`: the C version when the active backend is C, else the
    reference (the Numba backend has none of these; the registry's choice is not overridden).

    Parameters
    ----------
    name : str
        One of :data:`NATIVE_ONLY`.

    Returns
    -------
    callable

    Raises
    ------
    KeyError
        ``name`` is not in :data:`NATIVE_ONLY`.
    BackendUnavailableError
        As for :func:`active_backend`.
    """
    if name not in NATIVE_ONLY:
        raise KeyError(f"unknown native kernel {name!r}; expected one of {', '.join(NATIVE_ONLY)}")
    return getattr(backend("c" if active_backend() == "c" else "reference"), name)
