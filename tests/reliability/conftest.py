"""Fixtures of the reliability suite: small stores, deterministic vectors, a subprocess runner."""
import os
import subprocess
import sys

import pytest

import engramdb
from engramdb.testing import raw_records

from .crash_worker import DIM, vec  # noqa: F401 - re-exported for the tests

REPO_SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def quiet_config(**store):
    """No auto-links (tests control every edge), no fsync (a process crash loses nothing
    without it; only power loss would); StoreConfig fields from ``store``."""
    store.setdefault("sync", False)
    return engramdb.EngramConfig(link=engramdb.LinkConfig(auto_link=False),
                                 store=engramdb.StoreConfig(**store))


@pytest.fixture
def store_path(tmp_path):
    return str(tmp_path / "store")


def run_python(code: str, *args: str, env: dict | None = None, timeout: float = 120,
               **kw) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (engramdb from this checkout), return the result."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = os.path.abspath(REPO_SRC) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env, **kw)


def live_ids(eng, namespace="default") -> set:
    """Ids of the live memories of ``namespace``, read from LMDB (the source of truth)."""
    return {rec["id"] for rec in raw_records(eng).values() if rec["namespace"] == namespace}
