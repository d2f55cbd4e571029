"""Crash safety of ``import_from(on_conflict="replace")``: the importing process is killed with
SIGKILL inside the import's write transaction (after an erase, halfway through the inserts,
after the ledger entry), inside the flush that follows (index file, column snapshot) and at
random moments; the store is reopened after each kill (see import_worker.py).

After every kill: the store opens; each memory holds the old or the new version whole (its
text, its pieces, their texts and its edges all of one version, no piece without its memory,
no piece of the other version left behind); since an import is one transaction, every memory
holds the same version (the one imported last when that import returned, else either);
the audit ledger verifies; the vector index, keyword postings and counts match the records;
recall finds a memory by its text.
"""
import os
from collections import defaultdict

import pytest

import engramdb
from engramdb.testing import entry_counts, indexed_counts, keyword_counts, raw_records

from .kill import run_and_kill_worker

WORKER = os.path.join(os.path.dirname(__file__), "import_worker.py")
MODES = ("erase", "insert", "ledger", "index", "columns", "random")
N = 12
NS = "ns"


def _long(tag: str, i: int, n: int) -> str:
    return " ".join(f"{tag} memory k{i}, sentence {j}: {tag} words about topic {i}-{j}." for j in range(n))


def text_of(version: str, i: int) -> str:
    """k<i> in each version: some long only in one version, some long in both with another
    number of pieces (StoreConfig.chunk_chars 300), some short in both."""
    sizes = {"old": (12, 1, 8, 1), "new": (1, 14, 4, 1)}[version][i % 4]
    return _long(version, i, sizes) if sizes > 1 else f"{version} memory k{i}: short."


def build(tmp_path) -> tuple[str, str, dict]:
    """The store (old version), the two exports, and the records of each version by memory:
    version -> id -> sorted (record id, text) of the memory and its pieces."""
    cfg = engramdb.EngramConfig(store=engramdb.StoreConfig(chunk_chars=300, sync=False),
                                link=engramdb.LinkConfig(auto_link=False))
    exports = str(tmp_path / "exports")
    groups = {}
    for version in ("old", "new"):
        with engramdb.open(tmp_path / f"src-{version}", dim=64, embedder="hashing", config=cfg) as eng:
            for i in range(N):
                links = [{"to": f"k{i - 1}", "relation": "next"}] if i else []
                if version == "new" and i >= 2:
                    links.append({"to": f"k{i - 2}", "relation": "supports"})
                eng.add(text_of(version, i), id=f"k{i}", namespace=NS, links=links)
            eng.export(os.path.join(exports, version))
            groups[version] = by_memory(eng)
    store = str(tmp_path / "store")
    with engramdb.open(store, dim=64, embedder="hashing", config=cfg) as eng:
        eng.import_from(os.path.join(exports, "old"))
    assert groups["old"] != groups["new"]
    assert any(len(g) > 1 for g in groups["old"].values()) and any(len(g) > 1 for g in groups["new"].values())
    return store, exports, groups


def by_memory(eng) -> dict:
    out = defaultdict(list)
    for rec in raw_records(eng).values():
        out[rec.get("chunk_of") or rec["id"]].append((rec["id"], rec["text"]))
    return {k: sorted(v) for k, v in out.items()}


def edges_of(eng) -> set:
    return {(f"k{i}", e.target, e.relation.value) for i in range(N)
            for e in eng.edges(f"k{i}", namespace=NS) if e.source == f"k{i}"}


def read_ledger(path: str) -> tuple[str | None, bool]:
    """The version of the last import started, and whether it returned."""
    target, done = None, False
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if not line.endswith("\n"):
                    continue
                verb, version = line.split()
                target, done = version, verb == "IMPORTED"
    return target, done


def check(store: str, ledger: str, groups: dict, edges: dict) -> str:
    """Reopen ``store`` after a kill; returns the version it holds."""
    with engramdb.open(store) as eng:
        report = eng.verify_ledger()
        assert report.ok, report
        held = by_memory(eng)
        assert set(held) == {f"k{i}" for i in range(N)}, f"orphan pieces or lost memories: {sorted(held)}"
        versions = set()
        for mid, recs in held.items():
            match = [v for v in ("old", "new") if recs == groups[v][mid]]
            assert match, f"{mid} is half replaced: {[r[0] for r in recs]}"
            versions.add(match[0])
        assert len(versions) == 1, f"an import is one transaction, yet memories hold {versions}"
        version = versions.pop()
        target, done = read_ledger(ledger)
        if done:   # the last import returned: its version, whatever the flush after it did
            assert version == target, (version, target)
        assert edges_of(eng) == edges[version]
        for mid in held:
            assert eng.get(mid, namespace=NS).text == text_of(version, int(mid[1:]))
        n_records = sum(len(g) for g in held.values())
        counts = entry_counts(eng)
        assert counts["ids"] == counts["vec"] == n_records
        assert indexed_counts(eng)[NS] == keyword_counts(eng)[NS] == n_records
        assert eng.stats()["namespaces"][NS]["memories"] == N
        assert eng.stats()["namespaces"][NS]["pieces"] == n_records - N
        for i in (0, 5, 10):
            want = text_of(version, i).split(".")[0]
            assert f"k{i}" in [h.id for h in eng.recall(want, namespace=NS, k=3).hits]
    return version


def setup(tmp_path):
    """The store, the two exports, each version's records and edges, and the worker's ledger."""
    store, exports, groups = build(tmp_path)
    edges = {}
    for version in ("old", "new"):
        with engramdb.open(tmp_path / f"src-{version}") as eng:
            edges[version] = edges_of(eng)
    return store, exports, groups, edges, str(tmp_path / "ledger.txt")


def test_sigkill_during_replace_import(tmp_path, rng):
    """One kill at each point (make test), then three at random moments."""
    store, exports, groups, edges, ledger = setup(tmp_path)
    plan = [(m, 1) for m in MODES if m != "random"] + [("random", 0)] * 3
    for mode, skip in plan:
        delay = float(rng.uniform(0.2, 1.5)) if mode == "random" else None
        run_and_kill_worker(WORKER, [store, exports, ledger, mode, str(skip)], delay)
        check(store, ledger, groups, edges)


@pytest.mark.slow
def test_sigkill_during_replace_import_many_times(tmp_path, rng):
    """24 kills: each point at several depths, and random moments."""
    store, exports, groups, edges, ledger = setup(tmp_path)
    for n in range(24):
        mode = MODES[n % len(MODES)]
        delay = float(rng.uniform(0.1, 2.0)) if mode == "random" else None
        run_and_kill_worker(WORKER, [store, exports, ledger, mode, str(int(rng.integers(0, 6)))], delay)
        check(store, ledger, groups, edges)
