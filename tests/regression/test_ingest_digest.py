"""The ingest write path's output is pinned: the batched keyword postings
(``KeywordIndex.add_many``) and batched conflict detection (``facts.conflict_many``) write
the same store, byte for byte, and the same audit ledger as the per-memory path they replaced.

The pins are the store digest and the ledger digests of :mod:`ingest_workload` (conflicts,
supersessions in a batch and against stored memories, contradictions, repeats, a long text in
pieces, links, slots, tags, a decision, two namespaces) computed with engramdb at commit
1cece71 (before the batching) on this project's pinned hnswlib and NumPy.
"""
from __future__ import annotations

import engramdb

from .ingest_workload import run

# re-pinned when the column snapshot gained ``head`` and ``archived_at`` (and later ``speaker`` with
# its table of names, and ``mentioned_start`` / ``mentioned_end``), and when the keyword
# postings kept the content words of scikit-learn's stop list (tokenizer version 5; with the old
# stop set and version 4 patched back in, the digest is the earlier pin, 9d90151f...): the ledger
# below, which digests every record, vector and edge written, stayed the same; and when a role
# label stopped being a keyword term (tokenizer version 6: with version 5 patched back in, the
# digest is the earlier pin, 5b6be3aa...; the workload holds no role label); and when the column
# snapshot gained ``speech_act`` (the earlier pin d2c03462...; the ledger the same); and when a
# greeting's words stopped being keyword terms (tokenizer version 7: with version 6 patched back
# in, the digest is the earlier pin, b71775eb...; the workload holds no greeting); and when the
# column snapshot gained ``standing`` (the earlier pin 0a2189aa...; the ledger the same), then
# its may-state bits (the pin before them 987fdcfe...; the ledger the same)
STORE_DIGEST = "3eb7bf9e51955447c8a59240d87b9cd2b9d5181825376d799300af185de400ad"
LEDGER = [
    (1, 'genesis', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (2, 'add_batch', '9a76e131a5db0fedda2ba91b4a2f64d1f72bc1dcb64bc31a4d40ecaf4f447a8d'),
    (3, 'add_batch', '06726af6ce7da57277418a72402b3e2b554e0bc074698c669fe256fd9d9e77b1'),
    (4, 'add_batch', '8aa26472aa21a845b16d2b7f3ea3454badfd61139d2778fe3a7750341e5a5d85'),
    (5, 'add_batch', '84bb4d2a97a434d71c41a565ec990694042d67eee181acbd5abd3ef375792fda'),
    (6, 'add_batch', 'd1e565156c90f42d50962bb658e095f788e5cb2495bce799c3d51e659ee93acc'),
    (7, 'add_batch', 'fd4cad57a97363f909c8eb6adcd156f358b6305119771fefa89f7f94c7278da9'),
    (8, 'add', '0505071742403fed049c96fe16216571aeb0d241ee8faabb06528d6259961252'),
]


def test_ingest_writes_the_pinned_store_and_ledger(tmp_path):
    digest, ledger = run(tmp_path / "s")
    assert [tuple(e) for e in ledger] == LEDGER
    assert digest == STORE_DIGEST
    with engramdb.open(tmp_path / "s") as eng:
        assert eng.verify_ledger().ok
