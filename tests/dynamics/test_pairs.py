"""engramdb.dynamics.pairs: consolidation's similar pairs, from scratch and kept up to date.

The reference is the definition in plain NumPy: every row's cosines to the others, the k best
(ties by the smaller nid), those at the floor. The incremental lists must give the same pairs
as a computation from scratch after any sequence of rows added, removed and changed.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engramdb.dynamics.pairs import SimilarPairs


def reference(nids: np.ndarray, vecs: np.ndarray, k: int, floor: float) -> list[tuple[int, int]]:
    sims = (vecs.astype(np.float64) @ vecs.astype(np.float64).T).astype(np.float32)   # summed in float64
    out = []
    for i in range(len(nids)):
        others = [j for j in range(len(nids)) if j != i]
        others.sort(key=lambda j: (-sims[i, j], nids[j]))
        out.extend((i, j) for j in others[:k] if sims[i, j] >= floor)
    return sorted(out)


def unit_rows(rng: np.random.Generator, n: int, dim: int, clusters: int, spread: float) -> np.ndarray:
    centres = rng.normal(size=(clusters, dim))
    v = centres[rng.integers(0, clusters, n)] + rng.normal(scale=spread, size=(n, dim))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def no_near_ties(vecs: np.ndarray, k: int, floor: float) -> bool:
    """No two cosines of a row within 1e-5 of each other or of the floor (where float32 products
    of other shapes may round either way)."""
    sims = vecs.astype(np.float64) @ vecs.astype(np.float64).T
    np.fill_diagonal(sims, -9.0)
    for row in sims:
        s = np.sort(row)[::-1][: k + 1]
        if len(s) > 1 and np.min(np.abs(np.diff(s))) < 1e-5 or np.min(np.abs(s - floor)) < 1e-5:
            return False
    return True


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.integers(2, 16), st.integers(1, 9),
       st.floats(-0.5, 0.99), st.integers(1, 70))
def test_from_scratch_matches_the_reference(seed, n, dim, k, floor, block):
    rng = np.random.default_rng(seed)
    vecs = unit_rows(rng, n, dim, int(rng.integers(1, 6)), float(rng.uniform(0.05, 1.0)))
    if not no_near_ties(vecs, k, floor):
        return
    nids = rng.permutation(10 * n + 1)[:n].astype(np.int64)
    got = SimilarPairs().pairs("x", nids, vecs, k, floor, block)
    assert got == reference(nids, vecs, k, floor)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12), st.integers(1, 8), st.floats(-0.3, 0.95),
       st.integers(2, 60),
       st.lists(st.tuples(st.integers(0, 30), st.floats(0.0, 0.5), st.floats(0.0, 0.2)), min_size=1, max_size=6))
def test_kept_lists_give_the_pairs_of_a_computation_from_scratch(seed, dim, k, floor, first, steps):
    """Rows added, removed and changed (a memory reworded in place keeps its nid) over passes."""
    rng = np.random.default_rng(seed)
    kept = SimilarPairs()
    nids, vecs = np.arange(first), unit_rows(rng, first, dim, 3, 0.5)
    next_nid = first
    kept.pairs("x", nids, vecs, k, floor)
    for added, removed, changed in steps:
        stay = rng.random(len(nids)) >= removed
        nids, vecs = nids[stay], vecs[stay].copy()
        moved = rng.random(len(nids)) < changed
        if moved.any():
            vecs[moved] = unit_rows(rng, int(moved.sum()), dim, 3, 0.5)
        nids = np.concatenate([nids, np.arange(next_nid, next_nid + added)])
        vecs = np.concatenate([vecs, unit_rows(rng, added, dim, 3, 0.5)])
        next_nid += added
        order = rng.permutation(len(nids))   # the caller's order is any
        got = kept.pairs("x", nids[order], vecs[order], k, floor, int(rng.integers(1, 40)))
        if no_near_ties(vecs[order], k, floor):
            assert got == reference(nids[order], vecs[order], k, floor)
            assert got == SimilarPairs().pairs("y", nids[order], vecs[order], k, floor)


def test_duplicate_rows_pair_with_the_smallest_nids_first():
    """Exact duplicates tie: the k kept are those of the smaller nids, whatever the order given."""
    v = np.zeros((6, 4), np.float32)
    v[:, 0] = 1.0
    nids = np.array([50, 10, 40, 20, 30, 60], np.int64)
    got = SimilarPairs().pairs("x", nids, v, 2, 0.5)
    by_nid = sorted((int(nids[i]), int(nids[j])) for i, j in got)
    assert by_nid == [(10, 20), (10, 30), (20, 10), (20, 30), (30, 10), (30, 20),
                      (40, 10), (40, 20), (50, 10), (50, 20), (60, 10), (60, 20)]


def test_a_changed_key_parameter_recomputes():
    rng = np.random.default_rng(3)
    vecs = unit_rows(rng, 40, 8, 4, 0.3)
    nids = np.arange(40)
    kept = SimilarPairs()
    assert kept.pairs("x", nids, vecs, 3, 0.6) == reference(nids, vecs, 3, 0.6)
    assert kept.pairs("x", nids, vecs, 5, 0.6) == reference(nids, vecs, 5, 0.6)
    assert kept.pairs("x", nids, vecs, 5, 0.2) == reference(nids, vecs, 5, 0.2)
    assert kept.pairs("x", nids[:1], vecs[:1], 5, 0.2) == []


def test_lists_saved_at_a_path_serve_a_new_cache_and_a_damaged_file_is_computed_again(tmp_path):
    """A new process starts from the saved lists: same pairs as from scratch after rows added,
    removed and changed; a file cut short, with a flipped byte, or written for other rows gives
    the right pairs all the same."""
    rng = np.random.default_rng(1)   # (rows without near ties, no_near_ties)
    path = str(tmp_path / "lists.bin")
    nids, vecs = np.arange(80), unit_rows(rng, 80, 12, 5, 0.4)
    first = SimilarPairs()
    assert first.pairs("x", nids, vecs, 4, 0.3, path=path) == reference(nids, vecs, 4, 0.3)
    assert (tmp_path / "lists.bin").exists() and not (tmp_path / "lists.bin.tmp").exists()
    stay = rng.random(80) > 0.2
    nids2 = np.concatenate([nids[stay], np.arange(100, 130)])
    vecs2 = np.concatenate([vecs[stay], unit_rows(rng, 30, 12, 5, 0.4)])
    vecs2[3] = unit_rows(rng, 1, 12, 5, 0.4)[0]
    assert no_near_ties(vecs2, 4, 0.3) and no_near_ties(vecs2, 5, 0.3)
    want = reference(nids2, vecs2, 4, 0.3)
    assert SimilarPairs().pairs("x", nids2, vecs2, 4, 0.3, path=path) == want
    good = (tmp_path / "lists.bin").read_bytes()
    mid = len(good) // 2
    damaged = [good[:mid], good[:-40] + bytes(b ^ 0xFF for b in good[-40:]),
               good[:mid] + bytes([good[mid] ^ 0x01]) + good[mid + 1:]]
    for data in damaged:
        (tmp_path / "lists.bin").write_bytes(data)
        assert SimilarPairs().pairs("x", nids2, vecs2, 4, 0.3, path=path) == want
    other = np.arange(1000, 1000 + len(nids2))
    assert SimilarPairs().pairs("x", other, vecs2, 4, 0.3, path=path) == reference(other, vecs2, 4, 0.3)
    (tmp_path / "lists.bin").write_bytes(good)
    assert SimilarPairs().pairs("x", nids2, vecs2, 5, 0.3, path=path) == reference(nids2, vecs2, 5, 0.3)
    (tmp_path / "a-file").write_bytes(b"")
    unwritable = str(tmp_path / "a-file" / "lists.bin")   # a cache: skipped, never an error
    assert SimilarPairs().pairs("x", nids2, vecs2, 4, 0.3, path=unwritable) == want


def test_accept_is_asked_again_only_of_new_pairs_and_changed_keys():
    rng = np.random.default_rng(1)
    nids, vecs = np.arange(80), unit_rows(rng, 80, 12, 5, 0.4)
    labels = [f"t{i % 7}" for i in range(80)]
    asked = []

    def accept(i, j):
        asked.append((i, j))
        return labels[i] != labels[j]

    kept = SimilarPairs()
    every = reference(nids, vecs, 4, 0.3)
    want = [(i, j) for i, j in every if labels[i] != labels[j]]
    assert kept.pairs("x", nids, vecs, 4, 0.3, accept=accept, accept_keys=labels) == want
    assert sorted(asked) == every
    asked.clear()
    assert kept.pairs("x", nids, vecs, 4, 0.3, accept=accept, accept_keys=labels) == want and asked == []
    labels[5] = "t0"   # row 5's key changed: its pairs are asked again, only they
    want = [(i, j) for i, j in every if labels[i] != labels[j]]
    assert kept.pairs("x", nids, vecs, 4, 0.3, accept=accept, accept_keys=labels) == want
    assert asked and all(5 in pair for pair in asked) and sorted(asked) == [p for p in every if 5 in p]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.floats(0.0, 0.9), st.integers(20, 80),
       st.lists(st.tuples(st.integers(0, 25), st.floats(0.0, 0.4)), min_size=1, max_size=5))
def test_exact_duplicates_tie_in_kept_lists_as_from_scratch(seed, k, floor, first, steps):
    """A chat says "thanks!" and "ok" again and again: rows with one vector tie, and a float32
    product rounded their cosines' last bit by its shape (a hostile pass: the kept lists and a
    computation from scratch kept other duplicates). Cosines are summed in float64, so the two
    agree, duplicates and all, whatever the order of the rows."""
    rng = np.random.default_rng(seed)
    pool = unit_rows(rng, 12, 16, 4, 0.3)   # few distinct vectors: many exact duplicates
    draw = lambda m: pool[rng.integers(0, len(pool), m)]  # noqa: E731
    kept = SimilarPairs()
    nids, vecs = np.arange(first), draw(first)
    next_nid = first
    assert kept.pairs("x", nids, vecs, k, floor) == SimilarPairs().pairs("y", nids, vecs, k, floor)
    for added, removed in steps:
        stay = rng.random(len(nids)) >= removed
        nids = np.concatenate([nids[stay], np.arange(next_nid, next_nid + added)])
        vecs = np.concatenate([vecs[stay], draw(added)])
        next_nid += added
        order = rng.permutation(len(nids))
        got = kept.pairs("x", nids[order], vecs[order], k, floor, int(rng.integers(1, 40)))
        assert got == SimilarPairs().pairs("y", nids[order], vecs[order], k, floor)
