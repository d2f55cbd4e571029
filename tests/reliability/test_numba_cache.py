"""Numba's on-disk cache: a read-only install imports and runs; processes racing on an empty
cache all succeed with identical results (equal to the NumPy reference)."""
import os
import shutil
import subprocess
import sys

import pytest

from .conftest import REPO_SRC

pytest.importorskip("numba")

# top-k (cheap to compile) and, with argv "full", spread activation over a small fixed graph;
# prints the backend and a digest of the outputs
KERNELS = r"""
import hashlib, sys, numpy as np
from engramdb.graph.csr import build_symmetric_csr


def digest(get, which):
    rng = np.random.default_rng(3)
    nodes = act = np.zeros(0)
    if which == "full":
        n, m = 200, 800
        csr = build_symmetric_csr(rng.integers(0, n, m).astype(np.uint32), rng.integers(0, n, m).astype(np.uint32),
                                  rng.integers(0, 11, m).astype(np.uint8), rng.uniform(0.1, 1, m).astype(np.float32), n)
        rel_mult = np.linspace(0.5, 1.0, 16).astype(np.float32)
        out = get("spread_activation")(csr.indptr, csr.indices, csr.weight, csr.relation,
            np.array([0, 5, 9], np.int32), np.array([1.0, 0.8, 0.5], np.float32), rel_mult, 2, 0.5, 0.5, 256, 0, 1.0)
        nodes, act = out[0], out[1]
    order = np.argsort(nodes)
    top = get("topk")(np.random.default_rng(4).random(1000).astype(np.float32), 10)
    return hashlib.sha256(nodes[order].astype(np.int64).tobytes() + np.round(act[order].astype(np.float64), 6).tobytes()
                          + np.asarray(top).astype(np.int64).tobytes()).hexdigest()


if __name__ == "__main__":
    from engramdb.kernels import registry
    print(registry.active_backend(), digest(registry.get, sys.argv[-1]), flush=True)
"""


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(PYTHONPATH=os.path.abspath(REPO_SRC), PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _reference_digest(which):
    """The same digest from the NumPy reference kernels, in this process."""
    from engramdb.kernels import reference

    scope = {"__name__": "kernels"}
    exec(KERNELS, scope)  # noqa: S102 - our own constant source text
    return scope["digest"](lambda name: getattr(reference, name), which)


@pytest.mark.parametrize("which", ["topk", pytest.param("full", marks=pytest.mark.slow)])
def test_read_only_install_imports_and_runs(tmp_path, which):
    """Every place Numba could cache in is unusable: the package's ``__pycache__`` (a file
    stands where the directory would be; as root, permissions alone would not stop a write),
    NUMBA_CACHE_DIR and the user's cache directory (both below a regular file)."""
    site = tmp_path / "site"
    shutil.copytree(os.path.join(REPO_SRC, "engramdb"), site / "engramdb",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    for d in [site / "engramdb"] + [p for p in (site / "engramdb").rglob("*") if p.is_dir()]:
        (d / "__pycache__").write_text("not a directory")
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    env = _env(ENGRAMDB_KERNELS="numba", NUMBA_CACHE_DIR=str(blocker / "numba"), HOME=str(blocker),
               XDG_CACHE_HOME=str(blocker / "cache"))
    env["PYTHONPATH"] = str(site)
    res = subprocess.run([sys.executable, "-c", "import engramdb; print(engramdb.__file__)\n" + KERNELS, which],
                         capture_output=True, text=True, timeout=600, env=env, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-3000:]
    where, backend, digest = res.stdout.split()
    assert where.startswith(str(site)) and backend == "numba"
    assert digest == _reference_digest(which)


@pytest.mark.parametrize("n_procs,which", [(2, "topk"), pytest.param(8, "full", marks=pytest.mark.slow)])
def test_processes_racing_on_an_empty_cache(tmp_path, n_procs, which):
    cache = tmp_path / "numba-cache"          # empty: every process compiles and writes at once
    env = _env(ENGRAMDB_KERNELS="numba", NUMBA_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, "-c", KERNELS, which], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(n_procs)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        outs.append(out.split())
    assert {backend for backend, _ in outs} == {"numba"}
    assert len({digest for _, digest in outs}) == 1
    assert outs[0][1] == _reference_digest(which)
    assert any(cache.rglob("*.nbi"))        # the cache was written
    # a later process loads from the now warm cache and agrees
    res = subprocess.run([sys.executable, "-c", KERNELS, which], capture_output=True, text=True, timeout=600, env=env)
    assert res.returncode == 0 and res.stdout.split() == outs[0], res.stderr
