"""With the C extension built, opening a store and the first recall never import numba."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.strategies import load_backend

_CODE = """
import sys
import numpy as np
import engramdb
from engramdb.kernels import registry

with engramdb.open(sys.argv[1], dim=64) as db:
    a = db.add("flight LH400 to Frankfurt on Friday", kind="episodic")
    b = db.add("booking confirmation code QX7T", kind="semantic")
    db.link(a, b, "related_to")
    result = db.recall("what is the latest on my flight?", k=5)
    assert result.hits, "recall found nothing"
assert registry.active_backend() == "c", registry.active_backend()
loaded = sorted(m for m in sys.modules if m == "numba" or m.startswith("numba."))
assert not loaded, "numba imported: " + ", ".join(loaded[:5])
"""


def test_open_add_recall_never_imports_numba(tmp_path):
    load_backend("c")  # skips when the C extension is not built
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAMDB_KERNELS", "NUMBA_DISABLE_JIT")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    subprocess.run([sys.executable, "-c", _CODE, str(tmp_path / "store")], check=True, env=env)
