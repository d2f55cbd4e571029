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
# its may-state bits (the pin before them 987fdcfe...; the ledger the same); and when an
# auto-link's weight became the exact cosine of the two vectors (``HnswIndex.knn_batch_exact``) instead
# of hnswlib's, whose last bits depend on the CPU hnswlib was built for: the pin before (store
# 3eb7bf9e..., first add_batch 9a76e131...) held the weights of one machine, and an AMD EPYC
# machine (AVX2, no AVX-512) wrote d3bf14b3... for the same batch (hnswlib's AVX-512 sums,
# emulated in NumPy on that machine, give the old pin back); this pin is the same with hnswlib
# built for the CPU or without (HNSWLIB_NO_NATIVE), with its AVX-512 sums emulated, and with
# OpenBLAS's Prescott, Sandybridge, Haswell and Zen kernels; and when the column snapshot's meta
# gained ``text_rules`` (columns.TEXT_RULES: with the key left out, the digest is the earlier pin,
# 23aee5c9...; the ledger the same), and when TEXT_RULES became 3 (with 2 patched back in, the
# digest is the earlier pin 8d7c1062...; the ledger the same); and when the past forms of irregular
# verbs became the verb's terms (tokenizer version 8: with version 7 and no IRREGULAR_FORMS patched
# back in, the digest is the earlier pin 3fb4818c...; the ledger the same); and when praise stopped
# being keyword terms and was read as a greeting (tokenizer version 9, TEXT_RULES 4: with 8 and 3
# patched back in, the digest is the earlier pin 87efcb93...; the ledger the same); and when a few
# nouns of an act became the verb's terms (tokenizer version 10, NOUN_FORMS: with 9 and no
# NOUN_FORMS patched back in, the digest is the earlier pin 578b2a8f...; the ledger the same); and
# when a farewell stopped being keyword terms and was read as a greeting (tokenizer version 11,
# TEXT_RULES 5: with 10 and 4 patched back in, the digest is the earlier pin 1e25de70...; the
# workload holds no farewell); and when a block of a split conversation message took its
# message's BM25 length (tokenizer version 12: with 11 patched back in, the digest is the earlier
# pin 63e055f4...; the workload holds no block); and when TEXT_RULES became 6 ("moved to a new
# apartment in" states the home: with 5 patched back in, the digest is the earlier pin e72b074e...);
# and when memories of several sentences gained sentence keys (the ``keys`` sub-database: with
# ``key_sentences`` patched to return none, the digest is the earlier pin fb120e39...; the ledger,
# which does not digest keys, the same)
STORE_DIGEST = "11b4c3c5e3c8d84e6514f7c2a9bb36ec93daa5c5002be6025c6bff73057c6b0a"
LEDGER = [
    (1, 'genesis', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (2, 'add_batch', '8b6a9d51ec24d7722b0f4d96b65e90fafaa33661132097482a7f7ad23c8cde90'),
    (3, 'add_batch', 'b190f166ca35be607768c47ab136eb1ad4508a056e176b63b89eb5844a88a217'),
    (4, 'add_batch', '8fae49dd0650584da71ec702da43e55509d5cdbe360976c60167b11a725c2f7b'),
    (5, 'add_batch', 'dbe43bd140e0b18630879e309676b7ed1079a019e34cdc951b9502978e71233c'),
    (6, 'add_batch', 'e1b94946a6f2c204c09954e33461649383fa87740169b35a23a7b6c85fdb4401'),
    (7, 'add_batch', '0565791b2447927caae26a00c887cd0539df9d3a4c34de2944dcafa57c5d747b'),
    (8, 'add', '3bca9623d1234940f3a8715cfce4061ae1e292f50a93f862aed356d09a0cf0b9'),
]


def test_ingest_writes_the_pinned_store_and_ledger(tmp_path):
    digest, ledger = run(tmp_path / "s")
    assert [tuple(e) for e in ledger] == LEDGER
    assert digest == STORE_DIGEST
    with engramdb.open(tmp_path / "s") as eng:
        assert eng.verify_ledger().ok
