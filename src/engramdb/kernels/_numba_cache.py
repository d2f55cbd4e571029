"""Make ``@njit(cache=True)`` safe on a read-only install.

Numba looks for a writable cache directory when a cached function is *decorated*
(``NUMBA_CACHE_DIR``, then ``__pycache__`` beside the source, then the user's cache directory);
when none is writable the decoration raises ``RuntimeError: cannot cache function ...: no
locator available``, so importing the Numba backend failed on a read-only install (e.g. a
system site-packages with a read-only home). :func:`ensure_numba_cache` checks the same
locations with Numba's own locators before the kernels are decorated and, when none works,
points ``numba.config.CACHE_DIR`` at a fresh private temporary directory (mode 0700): the
kernels then compile once per process instead of failing.

Numba writes its cache atomically (temporary file + rename), so many processes starting on an
empty cache at once each compile and the last rename wins; all load identical machine code.
Numba's cache files are pickles: like the package's ``.pyc`` files they are trusted code, and
the fallback directory is private to this process for that reason (removed at exit).
"""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import numba

__all__ = ["ensure_numba_cache"]


def _probe() -> None:  # a function defined in this package's directory, for the locators
    return None


def ensure_numba_cache(source_file: str) -> str | None:
    """Give Numba a writable cache directory for kernels defined in ``source_file``.

    Parameters
    ----------
    source_file : str
        Path of the module whose functions are decorated with ``cache=True``.

    Returns
    -------
    str or None
        The private directory set as ``numba.config.CACHE_DIR``, or None when one of Numba's
        usual locations is writable (nothing changed).
    """
    try:
        from numba.core.caching import CacheImpl
        locators = CacheImpl._locator_classes
    except (ImportError, AttributeError):   # a Numba without these internals: leave it alone
        return None
    for cls in locators:
        try:
            if cls.from_function(_probe, source_file) is not None:
                return None
        except Exception:   # a locator that does not apply to a plain source file
            continue
    path = tempfile.mkdtemp(prefix=f"engramdb-numba-{os.getpid()}-")
    numba.config.CACHE_DIR = path
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
