"""A fixed ingest workload for tests/regression/test_ingest_digest.py: batches of statements that
negate, renumber and restate one another (conflict detection, supersession within a batch and
against stored memories), repeats, a long text stored in pieces, explicit links, slots, tags,
a decision and two namespaces, all under a frozen clock and the hashing embedder, in batches
small enough (< 256) that hnswlib inserts on one thread (a deterministic graph), built with
efConstruction 200 (:data:`INDEX_EF_CONSTRUCTION`, the default of the pinned run)."""
from __future__ import annotations

import numpy as np

import engramdb
from engramdb.testing import frozen_clock, store_digest

T0 = 1_700_000_000.0
#: the index parameter of the pinned run (the default then): the auto-links depend on the graph
INDEX_EF_CONSTRUCTION = 200
#: near-copies were auto-linked in the pinned run (LinkConfig.duplicate_cosine came later), and
#: its auto-link search had a beam of 44 (LinkConfig.search_ef, 22 since): among this workload's
#: many equal statements, a smaller beam breaks ties between equal neighbours otherwise
LINK = engramdb.LinkConfig(duplicate_cosine=1.01, search_ef=44)
SUBJECTS = ["Bob", "Maria", "My wife", "The landlord", "I", "He", "Dan", "Our team"]
PREDICATES = ["is allergic to shellfish", "drinks coffee every morning", "allows pets in the flat",
              "has worked there for {n} years", "owns {n} bikes", "runs {n} km on Sundays",
              "likes the blue kayak", "keeps {n} plants on the balcony"]


def statements(rng: np.random.Generator, n: int) -> list[str]:
    out = []
    for _ in range(n):
        subj = SUBJECTS[int(rng.integers(len(SUBJECTS)))]
        pred = PREDICATES[int(rng.integers(len(PREDICATES)))].format(n=int(rng.integers(2, 7)))
        if rng.random() < 0.3:
            pred = "does not " + pred.replace("is ", "be ", 1) if pred.startswith("is ") else "no longer " + pred
        out.append(f"{subj} {pred}.")
    return out


def run(path) -> tuple[str, list]:
    """Ingest the workload into a new store at ``path``; returns (store digest, ledger entries
    as (seq, verb, digest))."""
    rng = np.random.default_rng(7)
    config = engramdb.EngramConfig(index=engramdb.IndexConfig(ef_construction=INDEX_EF_CONSTRUCTION), link=LINK)
    with frozen_clock(T0) as clock, engramdb.open(path, dim=384, embedder="hashing", config=config) as eng:
        for b in range(6):
            texts = statements(rng, 120)
            items = [{"id": f"b{b}-{i}", "text": t, "kind": "semantic" if i % 4 else "episodic",
                      "created_at": T0 + 3600 * (b * 200 + i if i % 9 else -i), "tags": ["t%d" % (i % 3)] if i % 5 == 0 else []}
                     for i, t in enumerate(texts)]
            items[3]["links"] = [{"to": f"b{b}-1", "relation": "supports", "weight": 0.7}]
            items[5]["text"] = items[4]["text"]               # a repeat within the batch
            items[6]["text"] = f"Ticket TP-{b}18 was closed on Friday."
            items[7] |= {"subject": "bob", "attribute": "city", "value": f"city {b % 2}", "text": f"Bob lives in city {b % 2}."}
            items[8]["kind"] = "decision"
            items[9]["text"] = ("\n\n".join(f"Paragraph {j} of the long note: " + "word " * 60 for j in range(6)))
            items[10]["namespace"] = "other"
            if b:
                items[11]["text"] = f"Bob is not allergic to shellfish any more, batch {b}."
            eng.add_batch(items)
            clock.advance(3600)
        eng.add("Maria no longer drinks coffee every morning.", id="single", created_at=T0 + 9e6)
        eng.flush()
        ledger = [(e.seq, e.verb, e.digest) for e in eng.ledger()]
        digest = store_digest(eng)
    return digest, ledger
