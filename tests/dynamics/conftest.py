"""Fixtures of the memory-dynamics tests: small stores with hand-made vectors."""
import hashlib

import numpy as np
import pytest

import engramdb

DIM = 16
T0 = 1_780_000_000.0   # a fixed "now" (2026-05-28), Unix seconds


def unit(v):
    v = np.asarray(v, np.float32)
    return v / np.linalg.norm(v)


def basis(i, dim=DIM):
    v = np.zeros(dim, np.float32)
    v[i] = 1.0
    return v


def digest(eng, skip_meta=()):
    """SHA-256 of every key/value in every sub-database (meta keys in ``skip_meta`` left out)."""
    h = hashlib.sha256()
    with eng._store.read() as txn:
        for name, db in sorted(eng._store.dbs.items()):
            for k, v in txn.cursor(db=db):
                if name == "meta" and k.decode() in skip_meta:
                    continue
                h.update(name.encode() + b"\0" + k + b"\0" + v)
    return h.hexdigest()


@pytest.fixture
def eng(tmp_store):
    e = engramdb.open(tmp_store, dim=DIM)
    yield e
    e.close()
